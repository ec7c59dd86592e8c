"""GpuCluster on AWS: composition of pools and add-ons, and validation across all pools before registering."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.cluster import validate_cluster
from gpu_components.plan import to_json
from tests.helpers import ROOT, example_plan, names, plan_of, resource

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


@pytest.mark.parametrize(
    ("gpu_stack", "key", "settings", "add_on"),
    [
        ("auto", "device_plugin", {"namespace": "gpu"}, "NVIDIA device plugin"),
        ("gpu-operator", "gpu_operator", {"dcgm_exporter": False}, "GPU Operator"),
    ],
)
def test_add_on_settings_with_no_pool_the_add_on_serves_are_an_error(
    gpu_stack: str, key: str, settings: dict[str, Any], add_on: str
) -> None:
    """Only pools whose GPUs EKS Auto Mode or the Bottlerocket image advertise: the cluster deploys no add-on, so its
    settings would be ignored."""
    with pytest.raises(GpuSpecError) as raised:
        plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY], gpu_stack=gpu_stack, **{key: settings}))
    assert [str(p) for p in raised.value.problems] == [
        f"{key}: {add_on} settings, but no pool is served by the {add_on} (each pool's GPUs are advertised by "
        "another: pools[0] (auto): cloud, pools[1] (br): node-image), so the cluster deploys none and they would "
        f"be ignored (got {settings!r}); valid: no {key} settings, or a pool the {add_on} serves"
    ]
    plan = plan_of(lambda: cluster([AUTO_MODE, BOTTLEROCKET_ONLY, SHARED], gpu_stack=gpu_stack, **{key: settings}))
    component = "NvidiaGpuOperator" if key == "gpu_operator" else "NvidiaDevicePlugin"
    assert names(plan, f"gpu-components:index:{component}") == [f"gpus-{key.replace('_', '-')}"]
