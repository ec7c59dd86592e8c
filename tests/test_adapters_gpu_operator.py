"""The node-pool adapters' rules and translations under ``gpu_stack: gpu-operator``, as plain functions, and the
standalone components' own checks."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.aws.eks import device_plugin_host as eks_host
from gpu_components.aws.eks import eks_problems, node_group_inputs
from gpu_components.azure.aks import agent_pool_inputs, aks_problems
from gpu_components.azure.aks import device_plugin_host as aks_host
from gpu_components.catalog import Cloud
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.gcp.gke import gke_problems, node_pool_inputs
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import plan_of


def spec(cloud: Cloud, instance_type: str, **fields: Any) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args({"name": "gpu", "instance_type": instance_type, "max_size": 2, **fields}, cloud)  # type: ignore[arg-type]


def test_eks_host_per_stack_and_image() -> None:
    assert [eks_host("AL2023_x86_64_NVIDIA", stack) for stack in ("auto", "device-plugin", "gpu-operator")] == [
        "daemonset",
        "daemonset",
        "gpu-operator",
    ]
    assert eks_host("BOTTLEROCKET_x86_64_NVIDIA", "gpu-operator") == "node-image"


def test_eks_mig_layout_on_al2023_under_the_operator() -> None:
    mixed = spec(
        "aws", "p4de.24xlarge", mig={"layout": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 1}, "strategy": "mixed"}
    )
    assert [p.path for p in eks_problems(mixed, None)] == ["mig"]
    assert eks_problems(mixed, None, "", "gpu-operator") == []
    labels = node_group_inputs(mixed, "AL2023_x86_64_NVIDIA", "gpu-operator")["labels"]
    assert labels["nvidia.com/mig.config"] == "custom-gpu"
    bottlerocket = spec("aws", "p4d.24xlarge", mig={"layout": {"3g.20gb": 2}})
    assert eks_problems(bottlerocket, "BOTTLEROCKET_x86_64_NVIDIA", "", "gpu-operator") != []


def test_aks_labels_and_driver_under_the_operator() -> None:
    t4 = spec("azure", "Standard_NC4as_T4_v3")
    assert aks_host(t4, "gpu-operator") == "gpu-operator"
    assert aks_problems(t4, "none", gpu_stack="gpu-operator") == []
    inputs = agent_pool_inputs(t4, "none", "gpu-operator")
    assert (inputs["gpu_profile"], inputs["node_labels"]) == (
        {"driver": "None"},
        {"gpu-components/pool": "gpu", "nvidia.com/device-plugin.config": "gpu"},
    )


def test_gke_rules_and_inputs_under_the_operator() -> None:
    mixed = spec("gcp", "a2-highgpu-1g", mig={"layout": {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}, "strategy": "mixed"})
    assert [p.path for p in gke_problems(mixed, None)] == ["mig.layout", "mig.strategy"]
    assert gke_problems(mixed, "INSTALLATION_DISABLED", gpu_stack="gpu-operator") == []
    assert [p.valid for p in gke_problems(mixed, "NEWEST", gpu_stack="gpu-operator")] == [
        "DEFAULT, LATEST, INSTALLATION_DISABLED"
    ]
    config = node_pool_inputs(mixed, "INSTALLATION_DISABLED", "gpu-operator")["node_config"]
    assert config["guest_accelerators"] == [
        {
            "type": "nvidia-tesla-a100",
            "count": 1,
            "gpu_driver_installation_config": {"gpu_driver_version": "INSTALLATION_DISABLED"},
        }
    ]
    assert config["labels"]["nvidia.com/mig.config"] == "custom-gpu"
    assert "image_type" not in node_pool_inputs(mixed)["node_config"]


def test_standalone_gke_pool_under_the_operator_needs_gke_driver_off() -> None:
    def program() -> None:
        args = {
            "pool": {"name": "l4", "instance_type": "g2-standard-4", "max_size": 1},
            "cluster": "prod",
            "location": "us-central1",
            "service_account": "n@p.iam.gserviceaccount.com",
            "gpu_stack": "gpu-operator",
            "driver_version": "DEFAULT",
        }
        with pytest.raises(GpuSpecError) as caught:
            GkeGpuNodePool("demo", args)  # type: ignore[arg-type]
        assert [(p.path, p.value) for p in caught.value.problems] == [("driver_version", "DEFAULT")]
        assert "driver_version DEFAULT and operator_driver true" in caught.value.problems[0].message

    plan = plan_of(program)
    assert [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"] == []
