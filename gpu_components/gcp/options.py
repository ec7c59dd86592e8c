"""The GKE blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``gcp`` options and the cluster's
``gcp`` wiring. Kept apart from the adapter so the composition can name them without importing the GCP SDK."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.shape import STRICT


@STRICT
class GkePoolOptionsArgs(TypedDict):
    """GKE-only settings of a pool (block ``gcp`` of a cluster pool). ``driver_version``: ``DEFAULT`` or
    ``LATEST`` (``INSTALLATION_DISABLED`` under the GPU Operator); ``node_pool_args`` (the escape hatch: other
    ``pulumi_gcp.container.NodePool`` arguments and ``node_config`` keys); see
    :class:`~gpu_components.gcp.GkeGpuNodePoolArgs`."""

    driver_version: NotRequired[str]
    node_pool_args: NotRequired[dict[str, Any]]


class GkeWiringArgs(TypedDict):
    """How GKE pools attach to their cluster: cluster name and location, and optionally the project, the zones
    for the nodes and the nodes' service account (defaults: see :class:`~gpu_components.gcp.GkeGpuNodePoolArgs`)."""

    cluster: pulumi.Input[str]
    location: pulumi.Input[str]
    project: NotRequired[pulumi.Input[str]]
    node_locations: NotRequired[pulumi.Input[Sequence[pulumi.Input[str]]]]
    service_account: NotRequired[pulumi.Input[str]]
