"""EKS pools under DRA (``gpu_stack: dra``, a pool's ``gpu_access``): AL2023 NVIDIA node groups served by NVIDIA's
DRA driver; Bottlerocket, Karpenter and EKS Auto Mode pools refused with the reason; who advertises each pool's
GPUs."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpu_components.aws import EksGpuNodeGroup, EksKarpenterGpuNodePool
from gpu_components.aws.adapter import ADAPTER
from gpu_components.errors import GpuSpecError
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import BOTH_MODES, inputs_by_name, plan_and, resource

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TAG = "aws:autoscaling/tag:Tag"
ROLE = "arn:aws:iam::123456789012:role/nodes"
EKS_DRA = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html"
BOTTLEROCKET_DRA = "https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/1035"
H100_MIG = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 2, "mig": {"profile": "1g.10gb"}}


def fixed(**fields: Any) -> dict[str, Any]:
    return {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 3, **fields}


def karpenter(**fields: Any) -> dict[str, Any]:
    return {
        "name": "kp",
        "instance_type": "g6e.xlarge",
        "provisioning": {"provisioner": "karpenter", "max_gpus": 8},
        **fields,
    }


def auto_mode(**fields: Any) -> dict[str, Any]:
    return {
        "name": "auto",
        "instance_type": "g6.xlarge",
        "provisioning": {"provisioner": "eks-auto-mode", "max_gpus": 8},
        **fields,
    }


def spec(pool: dict[str, Any]) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(pool, "aws")


@BOTH_MODES
def test_dra_node_group_registers_exact_labels(preview: bool) -> None:
    plan, group = plan_and(
        lambda: EksGpuNodeGroup(
            "gpu",
            {  # type: ignore[typeddict-item]
                "pool": fixed(),
                "cluster_name": "demo",
                "subnet_ids": ["subnet-a"],
                "node_role_arn": ROLE,
                "gpu_stack": "dra",
            },
        ),
        preview,
    )
    inputs = resource(plan, NODE_GROUP, "gpu-node-group").inputs
    assert inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    # No device plugin labels and no k8s.amazonaws.com/accelerator: the nodes advertise no nvidia.com/gpu.
    # nvidia.com/gpu.deploy.operands=false: a GPU Operator beside the DRA driver (for other pools' MIG) runs nothing
    # on these nodes.
    assert inputs["labels"] == {
        "gpu-components/gpu-access": "dra",
        "gpu-components/pool": "l40s",
        "nvidia.com/gpu.deploy.operands": "false",
    }
    assert group.device_plugin_host == "dra-driver"
    assert group.advertised_resources == {}
    assert group.labels == inputs["labels"]
    # The Cluster Autoscaler's template: no nvidia.com/gpu on the nodes (the instance type alone would promise one).
    tags = {inputs["tag"]["key"]: inputs["tag"]["value"] for inputs in inputs_by_name(plan, TAG).values()}
    assert tags == {
        "k8s.io/cluster-autoscaler/node-template/label/gpu-components/gpu-access": "dra",
        "k8s.io/cluster-autoscaler/node-template/label/gpu-components/pool": "l40s",
        "k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu.deploy.operands": "false",
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "0",
        "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu": "present:NoSchedule",
    }


def test_device_plugin_pool_under_dra_is_what_auto_gives() -> None:
    pool = spec(fixed(gpu_access="device-plugin"))
    dra = ADAPTER.describe_pool(pool, {}, "dra")
    auto = ADAPTER.describe_pool(pool, {}, "auto")
    # The same pool, plus nvidia.com/gpu.deploy.operands=false: a GPU Operator beside the DRA driver (for DRA pools'
    # MIG) runs none of its operands on a device-plugin pool.
    assert dataclasses.replace(dra, labels=auto.labels) == auto
    assert dra.device_plugin_host == "daemonset"
    assert dra.labels == {
        "gpu-components/pool": "l40s",
        "k8s.amazonaws.com/accelerator": "nvidia-l40s",
        "nvidia.com/device-plugin.config": "l40s",
        "nvidia.com/gpu.deploy.operands": "false",
        "nvidia.com/gpu.present": "true",
    }


@pytest.mark.parametrize(
    ("pool", "options", "gpu_stack", "host"),
    [
        (fixed(), {}, "dra", "dra-driver"),
        (fixed(gpu_access="dra"), {"ami_type": "AL2023_x86_64_NVIDIA"}, "dra", "dra-driver"),
        (fixed(gpu_access="device-plugin"), {}, "dra", "daemonset"),
        (fixed(), {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, "dra", "node-image"),
        (fixed(), {}, "auto", "daemonset"),
        (fixed(), {}, "gpu-operator", "gpu-operator"),
        (karpenter(), {}, "dra", "daemonset"),
        (karpenter(gpu_access="device-plugin"), {}, "dra", "daemonset"),
        (auto_mode(), {}, "dra", "cloud"),
        (auto_mode(gpu_access="device-plugin"), {}, "dra", "cloud"),
    ],
    ids=[
        "al2023-default",
        "al2023-dra",
        "al2023-device-plugin",
        "bottlerocket",
        "al2023-auto",
        "al2023-operator",
        "karpenter-default",
        "karpenter-device-plugin",
        "auto-mode-default",
        "auto-mode-device-plugin",
    ],
)
def test_device_plugin_host_per_pool_kind_and_access(
    pool: dict[str, Any], options: dict[str, Any], gpu_stack: str, host: str
) -> None:
    assert ADAPTER.device_plugin_host(spec(pool), options, gpu_stack) == host  # type: ignore[arg-type]


def test_bottlerocket_dra_pool_refused() -> None:
    [problem] = ADAPTER.problems(spec(fixed()), {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, "pools[0]", "dra")
    assert str(problem) == (
        "pools[0].gpu_access: BOTTLEROCKET_x86_64_NVIDIA nodes run NVIDIA's device plugin on the host (Bottlerocket's "
        "own DRA driver is a host setting the library does not manage), and NVIDIA's DRA driver may not share a node "
        "with a device plugin (default: dra); valid: ami_type AL2023_x86_64_NVIDIA (AL2023 NVIDIA: the driver on the "
        f"host, no device plugin), or gpu_access: device-plugin [source: {BOTTLEROCKET_DRA}]"
    )


def test_bottlerocket_device_plugin_pool_passes_under_dra() -> None:
    pool = spec(fixed(gpu_access="device-plugin"))
    assert ADAPTER.problems(pool, {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, "pools[0]", "dra") == []


def test_karpenter_dra_pool_refused() -> None:
    [problem] = ADAPTER.problems(spec(karpenter(gpu_access="dra")), {}, "pools[1]", "dra")
    assert problem.path == "pools[1].gpu_access"
    assert problem.value == "dra"
    assert problem.message.startswith("AWS supports DRA with Karpenter from Karpenter 1.15")
    assert "the library deploys Karpenter 1.14.1" in problem.message
    assert problem.valid == (
        "gpu_access: device-plugin, or an EKS managed node group (no provisioning) with an AL2023 NVIDIA AMI"
    )
    assert problem.source == EKS_DRA


def test_karpenter_component_refuses_dra() -> None:
    with pytest.raises(GpuSpecError) as error:
        EksKarpenterGpuNodePool(
            "kp",
            {"pool": karpenter(), "cluster_name": "demo", "subnet_ids": ["subnet-a"], "gpu_stack": "dra"},  # type: ignore[typeddict-item]
        )
    assert [problem.path for problem in error.value.problems] == ["pool.gpu_access"]


def test_auto_mode_dra_pool_refused() -> None:
    [problem] = ADAPTER.problems(spec(auto_mode()), {}, "pools[2]", "dra")
    assert problem.path == "pools[2].gpu_access"
    assert problem.message.startswith("EKS Auto Mode runs its own NVIDIA DRA driver in the node runtime")
    assert problem.valid == (
        "gpu_access: device-plugin (AWS's device plugin), or an EKS managed node group (no provisioning) with an "
        "AL2023 NVIDIA AMI"
    )
    assert problem.source == EKS_DRA


def test_auto_mode_device_plugin_pool_passes_under_dra() -> None:
    assert ADAPTER.problems(spec(auto_mode(gpu_access="device-plugin")), {}, "pools[2]", "dra") == []


def test_al2023_dra_mig_pool_is_accepted_and_needs_the_operator_mig_manager() -> None:
    pool = spec(H100_MIG)
    assert ADAPTER.problems(pool, {}, "pools[0]", "dra") == []
    # The MIG manager's label, which makes the cluster deploy the GPU Operator beside the DRA driver.
    assert ADAPTER.describe_pool(pool, {}, "dra").labels["nvidia.com/mig.config"] == "all-1g.10gb"
    assert "nvidia.com/mig.config" not in ADAPTER.describe_pool(spec(fixed()), {}, "dra").labels


def test_al2023_device_plugin_mig_pool_still_refused_under_dra() -> None:
    [problem] = ADAPTER.problems(spec({**H100_MIG, "gpu_access": "device-plugin"}), {}, "pools[0]", "dra")
    assert problem.path == "pools[0].mig"


def test_dra_facts_driver_root_is_the_host() -> None:
    assert ADAPTER.facts.dra is not None
    assert ADAPTER.facts.dra.driver_root == "/"
    assert dict(ADAPTER.facts.dra.node_labels) == {}
    assert ADAPTER.facts.dra.driver_installer is None
    assert ADAPTER.facts.dra.source == EKS_DRA
