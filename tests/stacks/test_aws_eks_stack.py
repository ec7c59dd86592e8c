"""The aws-eks example stack, planned offline exactly as `gpu-components plan aws-eks` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.cli import main
from gpu_components.plan import Plan, to_json
from tests.helpers import ROOT, copy_example_project, example_plan, names, resource

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)


def plan() -> Plan:
    return example_plan("aws-eks")


def test_gpu_pools_have_exact_node_group_inputs() -> None:
    result = plan()
    shared = resource(result, "aws:eks/nodeGroup:NodeGroup", "gpu-demo-gpu-a10g-shared-node-group").inputs
    assert {key: shared[key] for key in ("amiType", "capacityType", "instanceTypes", "scalingConfig", "taints")} == {
        "amiType": "AL2023_x86_64_NVIDIA",
        "capacityType": "SPOT",
        "instanceTypes": ["g5.2xlarge"],
        "scalingConfig": {"desiredSize": 0, "maxSize": 6, "minSize": 0},
        "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
    }
    assert shared["labels"] == {
        "gpu-components/pool": "a10g-shared",
        "gpu-components/sharing": "trusted",  # time_slicing.trusted
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nvidia.com/device-plugin.config": "a10g-shared",
        "nvidia.com/gpu.present": "true",
        "workload": "inference",
    }
    mig = resource(result, "aws:eks/nodeGroup:NodeGroup", "gpu-demo-gpu-a100-mig-node-group").inputs
    assert (mig["amiType"], mig["instanceTypes"], mig["labels"]) == (
        "BOTTLEROCKET_x86_64_NVIDIA",
        ["p4d.24xlarge"],
        {"gpu-components/pool": "a100-mig", "k8s.amazonaws.com/accelerator": "nvidia-a100-40gb"},
    )


def test_device_plugin_serves_only_pools_without_their_own_plugin() -> None:
    result = plan()
    config = resource(result, "kubernetes:core/v1:ConfigMap", "gpu-demo-gpu-device-plugin-config").inputs
    assert sorted(config["data"]) == ["a10g-shared", "default"]
    assert yaml.safe_load(config["data"]["a10g-shared"])["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}
    ]
    assert names(result, "kubernetes:helm.sh/v3:Release") == ["gpu-demo-gpu-device-plugin-release"]


def test_cluster_and_system_node_group_are_created() -> None:
    result = plan()
    cluster = resource(result, "eks:index:Cluster", "gpu-demo").inputs
    assert (cluster["skipDefaultNodeGroup"], cluster["version"], cluster["authenticationMode"]) == (True, "1.34", "API")
    system = resource(result, "aws:eks/nodeGroup:NodeGroup", "gpu-demo-system").inputs
    assert (system["amiType"], system["instanceTypes"]) == ("AL2023_x86_64_STANDARD", ["m7i.large"])


def test_outputs_mask_the_kubeconfig_and_summarise_pools() -> None:
    outputs = plan().outputs
    assert outputs["kubeconfig"] == "[secret]"
    summary = {key: value for key, value in outputs["gpuPools"]["a100-mig"].items() if key != "capacity"}
    assert summary == {
        "advertises": {"nvidia.com/gpu": 56},
        "devicePlugin": "node-image",
        "gpus": "8 x A100-40GB",
        "instanceType": "p4d.24xlarge",
        "nodes": "0..2",
    }


def test_cli_json_is_the_in_process_plan_and_complete() -> None:
    result = CliRunner().invoke(main, ["plan", "aws-eks", "--format", "json", "--cwd", str(ROOT)])
    assert result.exit_code == 0, result.output
    assert result.output == to_json(plan())
    document = json.loads(result.output)
    assert document["stack"] == "aws-eks"
    assert {"urn", "type", "name", "parent", "inputs"} <= set(document["resources"][0])
    types = {r["type"] for r in document["resources"]}
    assert "aws:autoscaling/tag:Tag" in types  # created inside an apply


def test_cli_reports_invalid_config_without_traceback(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    (tmp_path / "stacks").mkdir(exist_ok=True)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.aws-eks.yaml").read_text())
    stack["config"]["gpu-components:pools"][0]["time_slicing"]["replicas"] = 1
    stack["config"]["gpu-components:pools"][1]["mig"]["profile"] = "1g.10gbb"
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "bad", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "pools[0].time_slicing.replicas: the device plugin requires at least 2 replicas (got 1)" in result.output
    assert "pools[1].mig.profile: not a MIG profile name (got '1g.10gbb')" in result.output


def test_cli_names_the_available_stacks_for_an_unknown_one() -> None:
    result = CliRunner().invoke(main, ["plan", "nope", "--cwd", str(ROOT)])
    assert result.exit_code == 1
    assert "aws-eks" in result.output
