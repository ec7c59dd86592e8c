"""One GPU stack per node: a second NvidiaGpuOperator, the operator's device plugin beside the device plugin add-on or
the DRA driver, a GPUCluster beside a ClusterPolicy, or two DRA drivers, on one cluster (one Kubernetes provider, or
the default one) are refused before they register anything; the device plugin, the DRA driver and an operator with
its device plugin off may share a cluster, each on its own pools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from tests.helpers import plan_of, pool_components

MPS: dict[str, Any] = {
    "name": "mps",
    "instance_type": "g5.2xlarge",
    "max_size": 1,
    "mps": {"replicas": 4, "trusted": True},
}
MIXED: dict[str, Any] = {
    "name": "mix",
    "instance_type": "p4d.24xlarge",
    "max_size": 1,
    "mig": {"layout": {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}, "strategy": "mixed"},
}
SOURCE = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/clusterpolicy-reference.html"
VALID = (
    "one GPU Operator per cluster; device plugin add-ons, the DRA driver and an operator with its device plugin off, "
    "each on its own pools"
)


def refused(program: Callable[[], None]) -> tuple[str, list[str]]:
    """The one problem ``program`` raises for its last add-on, and every resource name the plan still holds."""
    raised: list[GpuSpecError] = []

    def run() -> None:
        try:
            program()
        except GpuSpecError as error:
            raised.append(error)

    plan = plan_of(run)
    [error] = raised
    [problem] = error.problems
    return str(problem), sorted(resource.name for resource in plan.resources)


def provider_opts(name: str = "k8s") -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(provider=k8s.Provider(name, kubeconfig="{}"))


def test_a_second_gpu_operator_on_one_provider_is_refused_naming_both() -> None:
    def program() -> None:
        opts = provider_opts()
        NvidiaGpuOperator("op1", {"cloud": "aws", "pools": [MPS]}, opts)
        NvidiaGpuOperator("op2", {"cloud": "aws", "pools": [MIXED]}, opts)

    problem, resources = refused(program)
    assert problem == (
        "opts.provider: one GPU stack per node, but both are on one cluster (the same Kubernetes provider); the "
        "GPU Operator's ClusterPolicy or GPUCluster is cluster-wide, one per cluster (combines NvidiaGpuOperator "
        f"'op1' and NvidiaGpuOperator 'op2'); valid: {VALID}: give NvidiaGpuOperator 'op1' all the pools it should "
        f"serve [source: {SOURCE}]"
    )
    assert [name for name in resources if name.startswith("op2")] == []


def test_a_second_gpu_operator_on_the_default_provider_is_refused() -> None:
    def program() -> None:
        NvidiaGpuOperator("op1", {"pools": pool_components("aws", [MPS], "gpu-operator")})
        NvidiaGpuOperator("op2", {"pools": pool_components("aws", [MIXED], "gpu-operator")})

    problem, resources = refused(program)
    assert "(the default Kubernetes provider)" in problem
    assert "(combines NvidiaGpuOperator 'op1' and NvidiaGpuOperator 'op2')" in problem
    assert [name for name in resources if name.startswith("op2")] == []


def test_a_second_gpu_operator_inherits_its_parents_provider() -> None:
    def program() -> None:
        opts = provider_opts()
        NvidiaGpuOperator("op1", {"cloud": "aws", "pools": [MPS]}, opts)
        parent = pulumi.ComponentResource("test:index:Parent", "parent", None, opts)
        NvidiaGpuOperator("op2", {"cloud": "aws", "pools": [MIXED]}, pulumi.ResourceOptions(parent=parent))

    problem, _ = refused(program)
    assert "(the same Kubernetes provider)" in problem


@pytest.mark.parametrize("operator_first", [False, True])
def test_the_gpu_operator_beside_the_device_plugin_is_refused(operator_first: bool) -> None:
    def program() -> None:
        plugin_pools = pool_components("aws", [MPS])
        operator_pools = pool_components("aws", [MIXED], "gpu-operator")
        if operator_first:
            NvidiaGpuOperator("op", {"pools": operator_pools})
            NvidiaDevicePlugin("dp", {"pools": plugin_pools})
        else:
            NvidiaDevicePlugin("dp", {"pools": plugin_pools})
            NvidiaGpuOperator("op", {"pools": operator_pools})

    problem, resources = refused(program)
    first, second = ("NvidiaGpuOperator 'op'", "NvidiaDevicePlugin 'dp'")[:: 1 if operator_first else -1]
    assert problem.startswith(
        "opts.provider: one GPU stack per node, but both are on one cluster (the default Kubernetes provider); "
        "the GPU Operator's device plugin runs on every GPU node it tolerates, so it would also advertise the device "
        f"plugin's pools, a second time (combines {first} and {second}); valid: {VALID}: give {first} all"
    )
    late = "dp" if operator_first else "op"
    assert [name for name in resources if name.startswith(f"{late}-")] == []


def test_add_ons_on_different_providers_or_two_device_plugins_are_accepted() -> None:
    def program() -> None:
        NvidiaGpuOperator("op1", {"cloud": "aws", "pools": [MPS]}, provider_opts())
        NvidiaGpuOperator("op2", {"cloud": "aws", "pools": [MIXED]}, provider_opts("other"))
        NvidiaDevicePlugin("dp1", {"cloud": "aws", "pools": [MPS]})
        NvidiaDevicePlugin("dp2", {"cloud": "aws", "pools": [{**MPS, "name": "mps2"}]}, pulumi.ResourceOptions())

    releases = sorted(r.name for r in plan_of(program).resources if r.type == "kubernetes:helm.sh/v3:Release")
    assert releases == ["dp1-release", "dp2-release", "op1-release", "op2-release"]


L40S: dict[str, Any] = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 1}
H100: dict[str, Any] = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
SOURCE_GPU_CLUSTER = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpucluster-reference.html"


def dra_driver(name: str, pool: dict[str, Any] = L40S) -> None:
    NvidiaDraDriver(name, {"cloud": "aws", "kubernetes_version": "1.34", "pools": [pool]})


def test_the_device_plugin_the_dra_driver_and_an_operator_without_its_device_plugin_share_a_cluster() -> None:
    def program() -> None:
        NvidiaDevicePlugin("dp", {"cloud": "aws", "pools": [MPS]})
        dra_driver("dra", H100)
        NvidiaGpuOperator("op", {"cloud": "aws", "pools": [H100], "dra_installer": "chart"})

    releases = sorted(r.name for r in plan_of(program).resources if r.type == "kubernetes:helm.sh/v3:Release")
    assert releases == ["dp-release", "dra-release", "op-release"]


def test_two_dra_drivers_are_refused() -> None:
    problem, resources = refused(lambda: (dra_driver("dra1"), dra_driver("dra2", {**L40S, "name": "other"})))
    assert problem.startswith(
        "opts.provider: one GPU stack per node, but both are on one cluster (the default Kubernetes provider); two "
        "DRA drivers would both publish the driver gpu.nvidia.com and create the cluster-wide DeviceClasses "
        "gpu.nvidia.com and mig.nvidia.com (combines NvidiaDraDriver 'dra1' and NvidiaDraDriver 'dra2')"
    )
    assert [name for name in resources if name.startswith("dra2")] == []


def test_the_operators_device_plugin_beside_the_dra_driver_is_refused() -> None:
    problem, _ = refused(lambda: (dra_driver("dra"), NvidiaGpuOperator("op", {"cloud": "aws", "pools": [MPS]})))
    assert (
        "the GPU Operator's device plugin runs on every GPU node it tolerates, so it would also advertise the DRA "
        "driver's pools, a second time (combines NvidiaDraDriver 'dra' and NvidiaGpuOperator 'op')"
    ) in problem


def test_a_gpu_cluster_beside_a_cluster_policy_or_the_device_plugin_is_refused() -> None:
    def gpu_cluster() -> None:
        NvidiaGpuOperator("gc", {"cloud": "aws", "pools": [L40S], "dra_installer": "gpu-operator"})

    problem, _ = refused(
        lambda: (NvidiaGpuOperator("op", {"cloud": "aws", "pools": [H100], "dra_installer": "chart"}), gpu_cluster())
    )
    assert problem == (
        "opts.provider: one GPU stack per node, but both are on one cluster (the default Kubernetes provider); a "
        "GPUCluster may not run beside a ClusterPolicy (NVIDIA: not both in one cluster) (combines NvidiaGpuOperator "
        f"'op' and NvidiaGpuOperator 'gc'); valid: {VALID}: give NvidiaGpuOperator 'op' all the pools it should serve "
        f"[source: {SOURCE_GPU_CLUSTER}]"
    )
    problem, _ = refused(lambda: (NvidiaDevicePlugin("dp", {"cloud": "aws", "pools": [MPS]}), gpu_cluster()))
    assert "the GPUCluster's DRA driver schedules itself on the GPU nodes" in problem
    problem, _ = refused(lambda: (gpu_cluster(), dra_driver("dra")))
    assert "two DRA drivers would both publish the driver gpu.nvidia.com" in problem
