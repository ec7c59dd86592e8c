"""The AKS blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``azure`` options and the cluster's
``azure`` wiring. Kept apart from the adapter so the composition can name them without importing the Azure SDK."""

from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.enums import GpuDriverArg, GpuDriverName
from gpu_components.shape import STRICT

GpuDriver = GpuDriverName
"""Who installs the NVIDIA driver on the pool's nodes, as the library's code is typed (the args' and schema's enum:
:class:`gpu_components.enums.GpuDriver`): ``aks`` (AKS, its default) or ``none`` (nobody on the AKS side; for a GPU
stack that brings its own driver: the GPU Operator with ``operator_driver``)."""


@STRICT
class AksPoolOptionsArgs(TypedDict):
    """AKS-only settings of a pool (block ``azure`` of a cluster pool); see
    :class:`~gpu_components.azure.AksGpuNodePoolArgs`."""

    gpu_driver: NotRequired[GpuDriverArg]
    """Who installs the NVIDIA driver on the pool's nodes: ``aks`` (AKS) or ``none`` (only under the GPU Operator with
    ``operator_driver``). Defaults to ``aks``."""
    agent_pool_args: NotRequired[dict[str, Any]]
    """The escape hatch of a fixed pool: other ``pulumi_azure_native.containerservice.AgentPool`` arguments, in the
    SDK's snake_case names (e.g. ``availability_zones``, ``os_sku``), merged under the library's. Defaults to none. A
    key the library sets or that ``AgentPool`` does not take is an error naming the key; ``os_sku`` must be an OS AKS
    runs NVIDIA GPUs on for the pool's VM size; refused on a provisioned pool."""
    node_class_spec: NotRequired[dict[str, Any]]
    """The escape hatch of a provisioned (Node Auto Provisioning) pool: more ``AKSNodeClass`` spec fields in the
    CRD's camelCase (``imageFamily``, ``vnetSubnetID``, ``tags``, ...). Defaults to none. ``gpu`` and ``osDiskSizeGB``
    are the library's; ``imageFamily`` must run NVIDIA GPUs on the pool's VM sizes; ``tags`` is a map of strings, and
    ``EnableManagedGPUExperience: "true"`` there leaves the pool's GPUs to AKS's own device plugin; refused on a fixed
    pool."""


class AksWiringArgs(TypedDict):
    """How AKS pools attach to their cluster."""

    resource_group_name: pulumi.Input[str]
    """Resource group of the AKS cluster."""
    cluster_name: pulumi.Input[str]
    """Name of the AKS cluster."""
