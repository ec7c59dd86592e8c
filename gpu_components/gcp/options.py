"""The GKE blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``gcp`` options and the cluster's
``gcp`` wiring. Kept apart from the adapter so the composition can name them without importing the GCP SDK."""

from collections.abc import Sequence
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.shape import STRICT


@STRICT
class GkePoolOptionsArgs(TypedDict):
    """GKE-only settings of a pool (block ``gcp`` of a cluster pool); see
    :class:`~gpu_components.gcp.GkeGpuNodePoolArgs`."""

    driver_version: NotRequired[str]
    """GKE's driver installation mode: ``DEFAULT`` or ``LATEST`` (``INSTALLATION_DISABLED`` under the GPU Operator,
    whose driver then installs it). Defaults to ``DEFAULT`` (``INSTALLATION_DISABLED`` under the GPU Operator with
    ``operator_driver``)."""
    node_pool_args: NotRequired[dict[str, Any]]
    """The escape hatch: other ``pulumi_gcp.container.NodePool`` arguments, in the SDK's snake_case names, and
    ``node_config`` keys (e.g. ``node_config.disk_type``), merged under the library's. Defaults to none. A key the
    library sets or that the SDK does not take is an error naming the key. Fixed pools only."""
    compute_class: NotRequired[str]
    """Name of a ComputeClass pool of the same cluster whose pods this fixed pool also serves: the node pool gets
    GKE's label ``cloud.google.com/compute-class=<name>`` and taint ``cloud.google.com/compute-class=<name>:NoSchedule``
    (GKE's "manually created node pools" of a class), and the pool's taints and tolerations include it. Defaults to
    none. A name that is not a ComputeClass pool (``provisioning.provisioner: compute-class``) of the cluster is an
    error; for a class made outside the library, use :class:`~gpu_components.gcp.GkeGpuNodePool` alone. Fixed pools
    only."""
    compute_class_spec: NotRequired[dict[str, Any]]
    """The escape hatch of a ComputeClass pool (``provisioning.provisioner: compute-class``): other ComputeClass
    ``spec`` fields in the CRD's camelCase, merged over the library's; see
    :class:`~gpu_components.gcp.compute_class.GkeComputeClassGpuPoolArgs`. Defaults to none."""


class GkeWiringArgs(TypedDict):
    """How GKE pools attach to their cluster."""

    cluster: pulumi.Input[str]
    """Name of the GKE cluster."""
    location: pulumi.Input[str]
    """The cluster's location (region or zone)."""
    project: NotRequired[pulumi.Input[str]]
    """The cluster's project. Defaults to the provider's project."""
    node_locations: NotRequired[pulumi.Input[Sequence[pulumi.Input[str]]]]
    """Zones for the pools' nodes (zones that offer the GPU). Defaults to the cluster's."""
    service_account: NotRequired[pulumi.Input[str]]
    """Email of the nodes' service account. Defaults to a new one per pool with the roles
    ``roles/container.defaultNodeServiceAccount`` and ``roles/artifactregistry.reader`` on the project."""
    autopilot: NotRequired[bool]
    """The cluster is a GKE Autopilot cluster: GKE creates the GPU nodes for the pods and runs their driver and device
    plugin, so each pool is a workload target only (``GkeAutopilotGpuPool``: no node pool, no add-on) and needs
    ``kubernetes_version``; ``gpu_stack`` other than ``auto``, add-on settings, ``node_locations``,
    ``service_account`` and node-pool fields of the pools are refused. Defaults to false (GKE Standard)."""
    kubernetes_version: NotRequired[str]
    """The Autopilot cluster's GKE version, which decides whether GPU pods select
    ``cloud.google.com/compute-class: Accelerator`` (GKE 1.28.9-gke.1069000 up to 1.29.4-gke.1427000): ``1.30`` or
    later, or a full version such as ``1.29.3-gke.1093000``. Required with ``autopilot``, refused without it."""
