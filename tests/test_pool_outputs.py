"""What every node-pool component exposes to a user: the plain outputs it registers besides its cloud's own."""

from __future__ import annotations

from typing import Any

from gpu_components.adapter import pool_outputs
from tests.helpers import plan_of, pool_components

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def outputs(cloud: str, pool: dict[str, Any]) -> dict[str, Any]:
    built: list[Any] = []
    plan_of(lambda: built.extend(pool_components(cloud, [pool])))
    return pool_outputs(built[0])


def test_an_eks_time_sliced_pool() -> None:
    result = outputs(
        "aws", {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}}
    )
    assert result == {
        "poolName": "l4",
        "labels": {
            "gpu-components/pool": "l4",
            "k8s.amazonaws.com/accelerator": "nvidia-l4",
            "nvidia.com/device-plugin.config": "l4",
            "nvidia.com/gpu.present": "true",
        },
        "taints": [GPU_TAINT],
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"gpu-components/pool": "l4"},
        "advertisedResources": {"nvidia.com/gpu": 4},
        "draDevices": {},
        "devicePluginHost": "daemonset",
        "autoscalerNote": None,
    }


def test_an_aks_spot_pool_tolerates_the_spot_taint_aks_adds() -> None:
    result = outputs("azure", {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True})
    spot = {"key": "kubernetes.azure.com/scalesetpriority", "value": "spot", "effect": "NoSchedule"}
    assert result["taints"] == [GPU_TAINT, spot]
    assert result["tolerations"] == [GPU_TOLERATION, {**spot, "operator": "Equal"}]
    assert result["nodeSelector"] == {"gpu-components/pool": "t4", "kubernetes.azure.com/accelerator": "nvidia"}
    assert (result["advertisedResources"], result["devicePluginHost"]) == ({"nvidia.com/gpu": 1}, "daemonset")


def test_a_gke_mig_pool_is_advertised_by_gke() -> None:
    result = outputs(
        "gcp", {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 1, "mig": {"profile": "1g.5gb"}}
    )
    assert (result["devicePluginHost"], result["advertisedResources"]) == ("cloud", {"nvidia.com/gpu": 7})
    assert result["tolerations"] == [GPU_TOLERATION]
