"""The aws-eks-operator example stack (aws-eks with `gpu_stack: gpu-operator`), planned offline exactly as
`gpu-components plan aws-eks-operator` does."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_components import program
from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.plan import Plan, load_stack, run_program
from tests.helpers import ROOT, example_plan, names, resource
from tests.nvidia.mig_parted import mig_parted_problems

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

STACK = "aws-eks-operator"
RELEASE = "kubernetes:helm.sh/v3:Release"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"

MIG_PARTED_CONFIG = """\
version: v1
mig-configs:
  all-disabled:
  - devices: all
    mig-enabled: false
  all-1g.23gb:
  - devices: all
    mig-enabled: true
    mig-devices:
      1g.23gb: 7
  all-1g.5gb:
  - devices: all
    mig-enabled: true
    mig-devices:
      1g.5gb: 7
"""


@pytest.fixture
def plan() -> Plan:
    return example_plan(STACK)


def test_one_config_key_differs_from_aws_eks_besides_the_mig_pool_image() -> None:
    _, operator = load_stack(ROOT, STACK)
    _, plain = load_stack(ROOT, "aws-eks")
    assert operator["gpu-components:gpu_stack"] == "gpu-operator"
    assert "gpu-components:gpu_stack" not in plain
    assert {key for key in operator if operator[key] != plain.get(key)} == {
        "gpu-components:gpu_stack",
        "gpu-components:pools",
    }


def test_one_gpu_operator_release_pinned_and_no_device_plugin(plan: Plan) -> None:
    assert names(plan, RELEASE) == ["gpu-demo-gpu-gpu-operator-release"]
    release = resource(plan, RELEASE, "gpu-demo-gpu-gpu-operator-release").inputs
    assert (release["chart"], release["version"], release["repositoryOpts"], release["namespace"]) == (
        "gpu-operator",
        "v26.7.0",
        {"repo": "https://helm.ngc.nvidia.com/nvidia"},
        "gpu-operator",
    )
    assert not any(r.inputs.get("chart") == "nvidia-device-plugin" for r in plan.resources if r.type == RELEASE)
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == []


def test_the_ami_keeps_driver_and_toolkit(plan: Plan) -> None:
    values: dict[str, Any] = resource(plan, RELEASE, "gpu-demo-gpu-gpu-operator-release").inputs["values"]
    assert (values["driver"], values["toolkit"]) == ({"enabled": False}, {"enabled": False})
    assert values["mig"] == {"strategy": "single"}
    assert values["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": False}}


def test_mig_pool_runs_al2023_with_the_mig_manager_label(plan: Plan) -> None:
    group = resource(plan, NODE_GROUP, "gpu-demo-gpu-a100-mig-node-group").inputs
    assert (group["amiType"], group["instanceTypes"], group["labels"]) == (
        "AL2023_x86_64_NVIDIA",
        ["p4d.24xlarge"],
        {
            "gpu-components/pool": "a100-mig",
            "k8s.amazonaws.com/accelerator": "nvidia-a100-40gb",
            "nvidia.com/device-plugin.config": "a100-mig",
            "nvidia.com/mig.config": "all-1g.5gb",
        },
    )
    assert "launchTemplate" not in group or group["launchTemplate"] is None
    shared = resource(plan, NODE_GROUP, "gpu-demo-gpu-a10g-shared-node-group").inputs
    assert shared["labels"] == {
        "gpu-components/pool": "a10g-shared",
        "gpu-components/sharing": "trusted",  # time_slicing.trusted
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nvidia.com/device-plugin.config": "a10g-shared",
        "workload": "inference",
    }


def test_mig_parted_config_map_is_exact_and_parses(plan: Plan) -> None:
    config_map = resource(plan, CONFIG_MAP, "gpu-demo-gpu-gpu-operator-mig-config").inputs
    assert config_map["metadata"] == {"name": "gpu-operator-mig-parted-config", "namespace": "gpu-operator"}
    assert config_map["data"] == {"config.yaml": MIG_PARTED_CONFIG}
    assert mig_parted_problems(yaml.safe_load(config_map["data"]["config.yaml"])) == []
    plugin = resource(plan, CONFIG_MAP, "gpu-demo-gpu-gpu-operator-device-plugin-config").inputs
    assert sorted(plugin["data"]) == ["a100-mig", "a10g-shared", "b200-mig", "default"]
    for item in (config_map, plugin):
        manifest = {"apiVersion": "v1", "kind": "ConfigMap", **item}
        kubernetes_validate.validate(manifest, EKS_KUBERNETES_VERSIONS[-1], strict=True)


def test_outputs_name_the_operator_as_the_device_plugin(plan: Plan) -> None:
    pools = plan.outputs["gpuPools"]
    assert {name: pool["devicePlugin"] for name, pool in pools.items()} == {
        "a100-mig": "gpu-operator",
        "a10g-shared": "gpu-operator",
        "b200-mig": "gpu-operator",
    }
    assert pools["a100-mig"]["advertises"] == {"nvidia.com/gpu": 56}
    assert pools["b200-mig"]["advertises"] == {"nvidia.com/gpu": 56}  # 8 B200 x 7 x 1g.23gb


def plan_switched(stack: str) -> Plan:
    project, config = load_stack(ROOT, stack)
    config = {**config, "gpu-components:gpu_stack": "gpu-operator"}
    return run_program(program.main, project=project, stack=stack, config=config)


def test_aws_eks_switches_with_one_key_and_bottlerocket_keeps_its_host_plugin() -> None:
    plan = plan_switched("aws-eks")
    assert names(plan, RELEASE) == ["gpu-demo-gpu-gpu-operator-release"]
    group = resource(plan, NODE_GROUP, "gpu-demo-gpu-a100-mig-node-group").inputs
    assert (group["amiType"], group["labels"]) == (
        "BOTTLEROCKET_x86_64_NVIDIA",
        {
            "gpu-components/pool": "a100-mig",
            "k8s.amazonaws.com/accelerator": "nvidia-a100-40gb",
            "nvidia.com/gpu.deploy.operands": "false",
        },
    )
    plugin = resource(plan, CONFIG_MAP, "gpu-demo-gpu-gpu-operator-device-plugin-config").inputs
    assert sorted(plugin["data"]) == ["a10g-shared", "default"]
    assert plan.outputs["gpuPools"]["a100-mig"]["devicePlugin"] == "node-image"


def test_azure_aks_switches_with_one_key() -> None:
    plan = plan_switched("azure-aks")
    assert names(plan, RELEASE) == ["gpudemo-gpu-gpu-operator-release"]
    values: dict[str, Any] = resource(plan, RELEASE, "gpudemo-gpu-gpu-operator-release").inputs["values"]
    assert (values["driver"], values["operator"]) == ({"enabled": False}, {"runtimeClass": "nvidia-container-runtime"})


def test_gcp_gke_switches_with_one_key_and_the_operator_owns_the_driver() -> None:
    plan = plan_switched("gcp-gke")
    assert names(plan, RELEASE) == ["gpu-demo-gpu-gpu-operator-release"]
    pools = [r.inputs for r in plan.resources if r.type == "gcp:container/nodePool:NodePool" and "-gpu-" in r.name]
    accelerators = [p["nodeConfig"]["guestAccelerators"][0] for p in pools]
    assert [a["gpuDriverInstallationConfig"] for a in accelerators] == [
        {"gpuDriverVersion": "INSTALLATION_DISABLED"},
        {"gpuDriverVersion": "INSTALLATION_DISABLED"},
        {"gpuDriverVersion": "INSTALLATION_DISABLED"},
    ]
    assert all("gpuSharingConfig" not in a and "gpuPartitionSize" not in a for a in accelerators)
    values = resource(plan, RELEASE, "gpu-demo-gpu-gpu-operator-release").inputs["values"]
    assert values["driver"]["enabled"] is True
