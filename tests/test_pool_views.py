"""Each cloud's pool view (CloudAdapter.describe_pool) is what its node-pool component exposes and registers: the
component takes its plain attributes from it, and the node pool it creates carries the view's labels and taints."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from gpu_components.adapter import PoolView, driver_setting_set, node_os
from gpu_components.aws.eks import eks_taints
from gpu_components.azure.aks import aks_taints
from gpu_components.cluster import ADAPTERS
from gpu_components.gcp.gke import gke_taints
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import plan_and, pool_components, resource

DRIVER_ATTRIBUTE = {"aws": "ami_type", "azure": "gpu_driver", "gcp": "driver_version"}
"""The component attribute holding the pool's driver setting (the view's ``driver_setting``)."""

CASES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    ("aws", {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}}, {}, "auto"),
    (
        "aws",
        {"name": "mig", "instance_type": "p4de.24xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}, "spot": True},
        {},
        "gpu-operator",
    ),
    (
        "aws",
        {"name": "br", "instance_type": "g5.xlarge", "max_size": 2, "mps": {"replicas": 4}},
        {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"},
        "gpu-operator",
    ),
    ("azure", {"name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True}, {}, "auto"),
    (
        "azure",
        {"name": "mig", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 1, "mig": {"profile": "1g.10gb"}},
        {"gpu_driver": "none"},
        "gpu-operator",
    ),
    (
        "gcp",
        {"name": "l4", "instance_type": "g2-standard-4", "max_size": 2, "gpu_taint": False, "mps": {"replicas": 4}},
        {"driver_version": "LATEST"},
        "auto",
    ),
    (
        "gcp",
        {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 1, "mig": {"profile": "1g.5gb"}},
        {},
        "gpu-operator",
    ),
]
IDS = [f"{cloud}-{pool['name']}-{stack}" for cloud, pool, _, stack in CASES]


def registered_labels_and_taints(cloud: str, inputs: dict[str, Any]) -> tuple[Any, Any]:
    if cloud == "aws":
        return inputs["labels"], inputs["taints"]
    if cloud == "azure":
        return inputs["nodeLabels"], inputs["nodeTaints"]
    return inputs["nodeConfig"]["labels"], inputs["nodeConfig"]["taints"]


@pytest.mark.parametrize(("cloud", "pool", "options", "gpu_stack"), CASES, ids=IDS)
def test_the_component_exposes_its_clouds_pool_view(
    cloud: str, pool: dict[str, Any], options: dict[str, Any], gpu_stack: str
) -> None:
    plan, [component] = plan_and(lambda: pool_components(cloud, [pool], gpu_stack, **options))
    view = ADAPTERS[cloud].describe_pool(GpuNodePoolSpec.from_args(pool, cloud), options, gpu_stack)  # type: ignore[arg-type]
    attributes = [
        field.name
        for field in fields(PoolView)
        if field.name not in ("driver_setting", "driver_setting_set", "node_os")
    ]
    assert {name: getattr(component, name) for name in attributes} == {name: getattr(view, name) for name in attributes}
    # A GKE pool under the GPU Operator knows its image (the operator's driver by default: Ubuntu); given as plain
    # values it follows the operator's own operator_driver, so its view leaves the OS unknown.
    gke_operator = cloud == "gcp" and gpu_stack == "gpu-operator"
    assert (node_os(component), view.node_os) == (("Ubuntu", None) if gke_operator else (view.node_os,) * 2)
    assert getattr(component, DRIVER_ATTRIBUTE[cloud]) == view.driver_setting
    assert driver_setting_set(component) == view.driver_setting_set == (DRIVER_ATTRIBUTE[cloud] in options)
    node_pool = {"aws": "node-group", "azure": "agent-pool", "gcp": "node-pool"}[cloud]
    node_pool_type = {
        "aws": "aws:eks/nodeGroup:NodeGroup",
        "azure": "azure-native:containerservice:AgentPool",
        "gcp": "gcp:container/nodePool:NodePool",
    }[cloud]
    labels, taints = registered_labels_and_taints(
        cloud, resource(plan, node_pool_type, f"np-{pool['name']}-{node_pool}").inputs
    )
    assert labels == view.labels
    sent = [taint for taint in view.taints if taint in view.spec.taints] if cloud == "gcp" else view.taints
    assert taints == {"aws": eks_taints, "azure": aks_taints, "gcp": gke_taints}[cloud](sent)


def test_the_views_differ_where_the_clouds_do() -> None:
    """AKS adds its spot taint, GKE its GPU taint, Bottlerocket advertises GPUs itself: the views say so."""
    azure = ADAPTERS["azure"].describe_pool(
        GpuNodePoolSpec.from_args(CASES[3][1], "azure"),
        {},
        "auto",  # type: ignore[arg-type]
    )
    assert [taint.text for taint in azure.taints] == [
        "nvidia.com/gpu=present:NoSchedule",
        "kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
    ]
    gcp = ADAPTERS["gcp"].describe_pool(GpuNodePoolSpec.from_args(CASES[5][1], "gcp"), {}, "auto")  # type: ignore[arg-type]
    assert ([taint.text for taint in gcp.taints], gcp.device_plugin_host, gcp.advertised_resources) == (
        ["nvidia.com/gpu=present:NoSchedule"],
        "cloud",
        {"nvidia.com/gpu": 4},
    )
    bottlerocket = ADAPTERS["aws"].describe_pool(
        GpuNodePoolSpec.from_args(CASES[2][1], "aws"),
        CASES[2][2],
        "gpu-operator",  # type: ignore[arg-type]
    )
    assert (bottlerocket.device_plugin_host, bottlerocket.driver_setting, bottlerocket.labels) == (
        "node-image",
        "BOTTLEROCKET_x86_64_NVIDIA",
        {
            "gpu-components/pool": "br",
            "k8s.amazonaws.com/accelerator": "nvidia-a10g",
            "nvidia.com/gpu.deploy.operands": "false",
        },
    )


@pytest.mark.parametrize(("cloud", "pool", "options"), [case[:3] for case in CASES], ids=IDS)
def test_auto_and_device_plugin_give_the_same_view(cloud: str, pool: dict[str, Any], options: dict[str, Any]) -> None:
    """The device plugin add-on takes a plain pool as built with gpu_stack ``device-plugin``; a component built with
    ``auto`` (the default) must expose the same, on every cloud. On GKE both are the cloud's managed plugin's
    (``device_plugin_host`` ``cloud``), which the add-on refuses (tests/kubernetes/test_addon_pool_descriptions.py)."""
    spec = GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    auto = ADAPTERS[cloud].describe_pool(spec, options, "auto")
    device_plugin = ADAPTERS[cloud].describe_pool(spec, options, "device-plugin")
    assert device_plugin == auto
    host = {"aws": "node-image" if "ami_type" in options else "daemonset", "azure": "daemonset", "gcp": "cloud"}[cloud]
    assert auto.device_plugin_host == host
