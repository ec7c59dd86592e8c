"""The AKS blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``azure`` options and the cluster's
``azure`` wiring. Kept apart from the adapter so the composition can name them without importing the Azure SDK."""

from __future__ import annotations

from typing import Any, Literal

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.shape import STRICT

GpuDriver = Literal["aks", "none"]
"""Who installs the NVIDIA driver on the pool's nodes: ``aks`` (AKS, its default) or ``none`` (nobody on the AKS
side; for a GPU stack that brings its own driver: the GPU Operator with ``operator_driver``)."""


@STRICT
class AksPoolOptionsArgs(TypedDict):
    """AKS-only settings of a pool (block ``azure`` of a cluster pool). ``gpu_driver`` and ``agent_pool_args`` (the
    escape hatch: other ``pulumi_azure_native.containerservice.AgentPool`` arguments): see
    :class:`~gpu_components.azure.AksGpuNodePoolArgs`."""

    gpu_driver: NotRequired[GpuDriver]
    agent_pool_args: NotRequired[dict[str, Any]]


class AksWiringArgs(TypedDict):
    """How AKS pools attach to their cluster: the cluster's resource group and name."""

    resource_group_name: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
