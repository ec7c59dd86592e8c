"""What each cloud provides to the cross-cloud composition and the example program.

A cloud package (``aws``, and later ``azure`` and ``gcp``) exposes one :class:`CloudAdapter`: the shapes of its
pool options and cluster wiring, its extra rules, where the device plugin runs on its pools (both per GPU stack),
how to create a node pool component, and how the example program creates or attaches a cluster.
:mod:`gpu_components.cluster` and :mod:`gpu_components.program` only dispatch on the cloud; they hold no cloud
spelling.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import pulumi

from gpu_components.catalog import Cloud
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, Taint

GpuStack = Literal["auto", "device-plugin", "gpu-operator"]
"""Who advertises GPUs to Kubernetes. ``auto``: each cloud's and image's own way, and the NVIDIA device plugin
DaemonSet where nothing else runs one; ``device-plugin``: the same, stated explicitly; ``gpu-operator``: the NVIDIA
GPU Operator (device plugin, MIG manager, GPU feature discovery, DCGM exporter) on every pool whose node image
does not run its own device plugin."""
GPU_STACKS: tuple[GpuStack, ...] = ("auto", "device-plugin", "gpu-operator")

DevicePluginHost = Literal["daemonset", "node-image", "cloud", "gpu-operator"]
"""Who advertises GPUs on a pool's nodes: the cluster's NVIDIA device plugin DaemonSet, the node image's own
host plugin (Bottlerocket NVIDIA), the cloud's managed plugin (GKE), or the NVIDIA device plugin run by the GPU
Operator. Exactly one per pool."""


class GpuNodePool(Protocol):
    """What every cloud's node-pool component exposes (plain values, known at preview)."""

    spec: GpuNodePoolSpec
    device_plugin_host: DevicePluginHost
    labels: dict[str, str]
    """Every node label the pool's nodes get from its definition (user labels and the library's)."""
    taints: tuple[Taint, ...]
    """Every taint on the pool's nodes, including taints the cloud adds itself (e.g. AKS spot)."""
    advertised_resources: dict[str, int]
    """Extended resource name -> count each node advertises, as the pool's device plugin names them."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool (the pool label, plus what the cloud requires)."""


@dataclass(frozen=True)
class ProvisionedCluster:
    """A cluster the example program created or attached to.

    Attributes:
        kubeconfig: kubeconfig text for the Kubernetes provider (the program marks it secret).
        wiring: the cloud's wiring args for :class:`~gpu_components.cluster.GpuCluster`.
        depends_on: resources the GPU pools must wait for (the cluster, its system pool).
    """

    kubeconfig: pulumi.Input[str]
    wiring: Mapping[str, Any]
    depends_on: list[pulumi.Resource] = field(default_factory=list)


@dataclass(frozen=True)
class CloudAdapter:
    """One cloud's part of the composition.

    Attributes:
        cloud: ``aws``, ``azure`` or ``gcp``.
        pool_options: ``TypedDict`` of the pool's cloud block (key ``cloud`` in a cluster pool).
        cluster_config: ``TypedDict`` of the example program's ``cluster`` config on this cloud.
        problems: the cloud's rules for a validated pool, its options and the cluster's GPU stack; paths start
            with ``path``. Driver ownership under the GPU Operator is not among them: the composition checks it
            with :func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`.
        device_plugin_host: who advertises GPUs on the pool's nodes under the GPU stack.
        create_pool: create the node-pool component ``name`` for a pool, its options, the cluster wiring and the
            GPU stack (which decides the pool's labels and cloud settings).
        config_problems: extra rules for the ``cluster`` config beyond its shape.
        provision: create or attach the example cluster from validated ``cluster`` config.
        wiring: see below.
    """

    cloud: Cloud
    pool_options: type
    cluster_config: type
    problems: Callable[[GpuNodePoolSpec, Mapping[str, Any], str, GpuStack], list[Problem]]
    device_plugin_host: Callable[[GpuNodePoolSpec, Mapping[str, Any], GpuStack], DevicePluginHost]
    create_pool: Callable[
        [str, GpuNodePoolArgs, Mapping[str, Any], Mapping[str, Any], GpuStack, pulumi.ResourceOptions], GpuNodePool
    ]
    config_problems: Callable[[Mapping[str, Any]], list[Problem]]
    provision: Callable[[Mapping[str, Any]], ProvisionedCluster]
    wiring: type
    """``TypedDict`` of the cluster wiring :class:`~gpu_components.cluster.GpuCluster` takes for this cloud (its
    values may be Pulumi inputs, so only its keys are checked)."""


def pool_component_args(
    pool: GpuNodePoolArgs, options: Mapping[str, Any], wiring: Mapping[str, Any], gpu_stack: GpuStack
) -> dict[str, Any]:
    """The args of a cloud's node-pool component: the pool, the cluster wiring and the pool's cloud options, whose
    keys each cloud names after its component's args (checked before: wiring keys by the composition, options by
    their ``TypedDict``), and the GPU stack."""
    return {"pool": pool, **wiring, **options, "gpu_stack": gpu_stack}
