"""GpuCluster on AWS: composition of pools and add-ons, and validation across all pools before registering."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.cli import main
from gpu_components.cluster import validate_cluster
from gpu_components.plan import to_json
from tests.helpers import ROOT, copy_example_project, example_plan, names, plan_of, resource

WIRING = {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"}
SHARED = {"name": "shared", "instance_type": "g6.xlarge", "max_size": 4, "time_slicing": {"replicas": 2}}
MIG = {
    "name": "mig",
    "instance_type": "p4de.24xlarge",
    "max_size": 1,
    "mig": {"profile": "3g.40gb"},
    "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"},
}


def cluster(pools: list[dict[str, Any]], **extra: Any) -> None:
    GpuCluster("gpus", {"cloud": "aws", "aws": WIRING, "pools": pools, **extra})  # type: ignore[typeddict-item]


def test_pools_become_node_groups_and_the_plugin_serves_daemonset_pools_only() -> None:
    plan = plan_of(lambda: cluster([SHARED, MIG]))
    assert names(plan, "gpu-components:index:EksGpuNodeGroup") == ["gpus-mig", "gpus-shared"]
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == ["gpus-device-plugin"]
    config = resource(plan, "kubernetes:core/v1:ConfigMap", "gpus-device-plugin-config").inputs
    assert sorted(config["data"]) == ["default", "shared"]
    component = resource(plan, "gpu-components:index:GpuCluster", "gpus")
    assert resource(plan, "gpu-components:index:EksGpuNodeGroup", "gpus-shared").parent == component.urn


def test_no_device_plugin_when_every_pool_runs_its_own() -> None:
    plan = plan_of(lambda: cluster([MIG]))
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == []
    assert names(plan, "kubernetes:helm.sh/v3:Release") == []


def test_device_plugin_settings_reach_the_add_on() -> None:
    plan = plan_of(lambda: cluster([SHARED], device_plugin={"namespace": "gpu-system", "chart_version": "0.19.2"}))
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-device-plugin-release").inputs
    assert (release["namespace"], release["version"]) == ("gpu-system", "0.19.2")


def test_problems_of_all_pools_and_cloud_rules_are_raised_together() -> None:
    pools = [
        {**SHARED, "time_slicing": {"replicas": 1}},
        {**MIG, "aws": {"ami_type": "AL2023_ARM_64_NVIDIA"}},
        {**SHARED, "name": "other", "aws": {"ami_typ": "x"}},
    ]
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", pools)
    # The misshapen third pool does not hide the first two pools' problems.
    assert [(p.path, p.message) for p in caught.value.problems] == [
        ("pools[2].aws.ami_typ", "unknown field; did you mean 'ami_type'?"),
        ("pools[0].time_slicing.replicas", "the device plugin requires at least 2 replicas"),
        ("pools[1].aws.ami_type", "built for arm64, but p4de.24xlarge is x86_64"),
    ]
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", pools[:2])
    assert [p.path for p in caught.value.problems] == ["pools[0].time_slicing.replicas", "pools[1].aws.ami_type"]


def test_invalid_cluster_registers_nothing() -> None:
    errors: list[str] = []

    def program() -> None:
        try:
            cluster([SHARED, {**SHARED}])
        except GpuSpecError as error:
            errors.append(str(error))

    plan = plan_of(program)
    assert [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"] == []
    assert "pools[1].name: pool names must be unique; pools[0] has it too" in errors[0]


def test_unknown_cloud_and_gpu_stack_are_rejected() -> None:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("oracle", [SHARED])
    assert caught.value.problems[0].path == "cloud"
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [SHARED], gpu_stack="magic")
    assert caught.value.problems[0].path == "gpu_stack"


@pytest.mark.stack
def test_module_entry_point_runs_the_plan() -> None:
    # A fresh interpreter, as a user runs it; azure-aks is the example stack that imports the fewest SDKs.
    done = subprocess.run(
        [sys.executable, "-m", "gpu_components", "plan", "azure-aks", "--format", "json", "--cwd", str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == to_json(example_plan("azure-aks"))


BOTTLEROCKET_ONLY = {**MIG, "name": "br"}
AUTO_MODE = {
    "name": "auto",
    "instance_type": "g6.xlarge",
    "provisioning": {"provisioner": "eks-auto-mode", "max_gpus": 4},
}


def test_device_plugin_settings_with_no_pool_the_plugin_serves_are_an_error() -> None:
    """Only pools whose GPUs EKS Auto Mode or the Bottlerocket image advertise: the cluster deploys no device plugin,
    so its settings would be ignored."""
    settings = {"namespace": "gpu"}
    with pytest.raises(GpuSpecError) as raised:
        plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY], device_plugin=settings))
    assert [str(p) for p in raised.value.problems] == [
        "device_plugin: NVIDIA device plugin settings, but no pool is served by the NVIDIA device plugin (each "
        "pool's GPUs are advertised by another: pools[0] (auto): cloud, pools[1] (br): node-image), so the cluster "
        f"deploys none and they would be ignored (got {settings!r}); valid: no device_plugin settings, or a pool the "
        "NVIDIA device plugin serves"
    ]
    plan = plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY, SHARED], device_plugin=settings))
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == ["gpus-device-plugin"]


@pytest.mark.parametrize("settings", [None, {"dcgm_exporter": False}], ids=["no-settings", "settings"])
def test_gpu_operator_with_no_pool_the_operator_serves_is_an_error(settings: dict[str, Any] | None) -> None:
    """``gpu_stack: gpu-operator`` on pools whose GPUs EKS Auto Mode or the Bottlerocket image advertise: no operator
    would be deployed, so the switch (and its settings) would be silently ignored; refused, as device-plugin is.
    With one pool the operator serves, it is deployed."""
    extra = {} if settings is None else {"gpu_operator": settings}
    with pytest.raises(GpuSpecError) as raised:
        plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY], gpu_stack="gpu-operator", **extra))
    assert [str(p) for p in raised.value.problems] == [
        "gpu_stack: no pool is served by the GPU Operator (each pool's GPUs are advertised by another: pools[0] "
        "(auto): cloud, pools[1] (br): node-image), so the cluster would deploy no operator and the switch would be "
        "ignored (got 'gpu-operator'); valid: auto (each pool's own way), or a pool the GPU Operator serves"
    ]
    plan = plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY, SHARED], gpu_stack="gpu-operator", **extra))
    assert names(plan, "gpu-components:index:NvidiaGpuOperator") == ["gpus-gpu-operator"]


def test_the_aws_eks_auto_stack_refuses_the_gpu_operator_switch(tmp_path: Path) -> None:
    """The one-key switch ``gpu_stack: gpu-operator`` on a stack whose only pool EKS Auto Mode serves: refused
    (README, "Every stack but aws-eks-auto switches to the NVIDIA GPU Operator with one key")."""
    copy_example_project(tmp_path)
    stack = (ROOT / "stacks" / "Pulumi.aws-eks-auto.yaml").read_text()
    switched = stack.replace(
        "  gpu-components:cloud: aws\n", "  gpu-components:cloud: aws\n  gpu-components:gpu_stack: gpu-operator\n"
    )
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(switched)
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - gpu_stack: no pool is served by the GPU Operator (each pool's GPUs are advertised by another: pools[0] "
        "(l4-auto): cloud), so the cluster would deploy no operator and the switch would be ignored (got "
        "'gpu-operator'); valid: auto (each pool's own way), or a pool the GPU Operator serves"
    ]
