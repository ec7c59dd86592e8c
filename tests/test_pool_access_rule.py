"""One rule for a pool under its GPU stack at every entry point (``pool_access_problems``): ``gpu_access: dra`` only
under ``gpu_stack: dra``, and no device-plugin sharing on a pool the DRA driver serves. The stack path
(``validate_cluster``) and each node-pool component and add-on give the same problem at their own paths, and the
component registers nothing."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

import pytest

from gpu_components.aws import EksGpuNodeGroup, EksKarpenterGpuNodePool
from gpu_components.azure import AksGpuNodePool, AksNapGpuNodePool
from gpu_components.cluster import validate_cluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from gpu_components.spec import TimeSlicing
from tests.helpers import plan_of

SHARING = (
    "time_slicing is the device plugin's GPU sharing (replicas of nvidia.com/gpu); under DRA sharing lives in the "
    "resource claim: pods share a GPU by referencing one shared ResourceClaim (same namespace), whose GPU sharing "
    "config sets a time-slice interval, not replicas (feature gate TimeSlicingSettings), or MPS (feature gate "
    "MPSSupport); see the resource claim helpers of gpu_components.claims and gpu_components.dra"
)
MPS = SHARING.replace("time_slicing is", "mps is", 1)
SHARING_VALID = "no time_slicing on a gpu_access dra pool, or gpu_access device-plugin"
MPS_VALID = "no mps on a gpu_access dra pool, or gpu_access device-plugin"
ACCESS = "resource claims need NVIDIA's DRA driver, which only gpu_stack dra deploys"
ACCESS_VALID = "device-plugin, or gpu_stack dra"
EKS_WIRING = {
    "cluster_name": "demo",
    "subnet_ids": ["subnet-a"],
    "node_role_arn": "arn:aws:iam::111122223333:role/nodes",
}
AKS_WIRING = {"resource_group_name": "rg", "cluster_name": "aks"}
GKE_WIRING = {"cluster": "demo", "location": "us-central1-a"}
L40S: dict[str, Any] = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 3}
H100_AKS: dict[str, Any] = {"name": "h100", "instance_type": "Standard_NC40ads_H100_v5", "max_size": 2}
L4_GKE: dict[str, Any] = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 3}
NAP: dict[str, Any] = {
    "name": "h100",
    "instance_type": "Standard_NC40ads_H100_v5",
    "provisioning": {"provisioner": "node-auto-provisioning", "max_gpus": 4},
}
KARPENTER: dict[str, Any] = {
    "name": "kp",
    "instance_type": "g6e.xlarge",
    "provisioning": {"provisioner": "karpenter", "max_gpus": 8},
}
Problems = list[tuple[str, object, str, str | None]]


def refused(build: Callable[[], object], before: Callable[[], None] = lambda: None) -> Problems:
    """The problems ``build`` raises inside a program run under the plan's mocks, after ``before`` (valid
    prerequisites); asserts ``build`` registered nothing: every resource in the plan is ``before``'s."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        before()
        with pytest.raises(GpuSpecError) as raised:
            build()
        errors.append(raised.value)

    plan = plan_of(program, config={"gcp:project": "proj"})
    baseline = plan_of(before, config={"gcp:project": "proj"})
    assert [r.urn for r in plan.resources] == [r.urn for r in baseline.resources]
    return [(p.path, p.value, p.message, p.valid) for p in errors[0].problems]


def stack(pools: list[dict[str, Any]], gpu_stack: str, cloud: str = "aws") -> Problems:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster(cloud, pools, gpu_stack, dra={"kubernetes_version": "1.34"} if gpu_stack == "dra" else None)
    return [(p.path, p.value, p.message, p.valid) for p in caught.value.problems]


def test_the_stack_path_refuses_sharing_on_a_dra_pool_and_dra_access_elsewhere() -> None:
    assert stack([{**L40S, "time_slicing": {"replicas": 2}}], "dra") == [
        ("pools[0].time_slicing", {"replicas": 2}, SHARING, SHARING_VALID)
    ]
    assert stack([{**L40S, "gpu_access": "dra"}], "gpu-operator") == [
        ("pools[0].gpu_access", "dra", ACCESS, ACCESS_VALID)
    ]


def test_eks_node_group_time_sliced_under_dra() -> None:
    pool = {**L40S, "time_slicing": {"replicas": 2}}
    assert refused(lambda: EksGpuNodeGroup("g", {"pool": pool, **EKS_WIRING, "gpu_stack": "dra"})) == [  # type: ignore[typeddict-item]
        ("pool.time_slicing", {"replicas": 2}, SHARING, SHARING_VALID)
    ]


@pytest.mark.parametrize("gpu_stack", ["auto", "gpu-operator"])
def test_eks_node_group_with_dra_access_outside_gpu_stack_dra(gpu_stack: str) -> None:
    pool = {**L40S, "gpu_access": "dra"}
    assert refused(lambda: EksGpuNodeGroup("g", {"pool": pool, **EKS_WIRING, "gpu_stack": gpu_stack})) == [  # type: ignore[typeddict-item]
        ("pool.gpu_access", "dra", ACCESS, ACCESS_VALID)
    ]


def test_aks_node_pool_with_mps_under_dra() -> None:
    pool = {**H100_AKS, "mps": {"replicas": 2}}
    assert refused(lambda: AksGpuNodePool("g", {"pool": pool, **AKS_WIRING, "gpu_stack": "dra"})) == [  # type: ignore[typeddict-item]
        ("pool.mps", {"replicas": 2}, MPS, MPS_VALID)
    ]


def test_gke_node_pool_time_sliced_under_dra() -> None:
    pool = {**L4_GKE, "time_slicing": {"replicas": 2}}
    assert refused(lambda: GkeGpuNodePool("g", {"pool": pool, **GKE_WIRING, "gpu_stack": "dra"})) == [  # type: ignore[typeddict-item]
        ("pool.time_slicing", {"replicas": 2}, SHARING, SHARING_VALID)
    ]


def test_provisioned_pools_follow_the_same_rule() -> None:
    nap = {**NAP, "time_slicing": {"replicas": 2}}
    assert refused(lambda: AksNapGpuNodePool("p", {"pool": nap, "gpu_stack": "dra"})) == [  # type: ignore[typeddict-item]
        ("pool.time_slicing", {"replicas": 2}, SHARING, SHARING_VALID)
    ]
    karpenter = {**KARPENTER, "gpu_access": "dra"}
    found = refused(
        lambda: EksKarpenterGpuNodePool("kp", {"pool": karpenter, "cluster_name": "demo", "subnet_ids": ["s"]})  # type: ignore[typeddict-item]
    )
    # Then Karpenter's own refusal of DRA, as the stack path lists it too.
    assert found[0] == ("pool.gpu_access", "dra", ACCESS, ACCESS_VALID)
    assert [(path, str(message)[:51]) for path, _, message, _ in found[1:]] == [
        ("pool.gpu_access", "AWS supports DRA with Karpenter from Karpenter 1.15")
    ]


def test_dra_driver_refuses_a_time_sliced_plain_pool() -> None:
    pool = {**L40S, "time_slicing": {"replicas": 2}}
    args = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [pool]}
    assert refused(lambda: NvidiaDraDriver("dra", args)) == [  # type: ignore[arg-type]
        ("pools[0].time_slicing", {"replicas": 2}, SHARING, SHARING_VALID)
    ]


def test_dra_driver_refuses_a_time_sliced_component() -> None:
    """A node-pool component refuses the pool itself when built; an object with its attributes built otherwise
    (the add-on takes any) is held to the same rule, its sharing as its spec holds it."""
    built: list[EksGpuNodeGroup] = []

    def before() -> None:
        built.append(EksGpuNodeGroup("g", {"pool": L40S, **EKS_WIRING, "gpu_stack": "dra"}))  # type: ignore[typeddict-item]

    def build() -> None:
        [group] = built
        spec = dataclasses.replace(group.spec, sharing=TimeSlicing(replicas=2))
        pool = types.SimpleNamespace(**{**vars(group), "spec": spec, "served_by": None})
        NvidiaDraDriver("dra", {"kubernetes_version": "1.34", "pools": [pool]})  # type: ignore[list-item]

    sharing = {"replicas": 2, "rename_by_default": False, "fail_requests_greater_than_one": False, "trusted": False}
    assert refused(build, before) == [("pools[0].time_slicing", sharing, SHARING, SHARING_VALID)]


@pytest.mark.parametrize("addon", [NvidiaDevicePlugin, NvidiaGpuOperator])
def test_device_plugin_and_operator_refuse_a_plain_dra_pool(addon: Callable[[str, Any], object]) -> None:
    args = {"cloud": "aws", "pools": [{**L40S, "gpu_access": "dra"}]}
    assert refused(lambda: addon("addon", args)) == [("pools[0].gpu_access", "dra", ACCESS, ACCESS_VALID)]
