"""The EKS blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``aws`` options and the cluster's
``aws`` wiring. Kept apart from the adapter so the composition can name them without importing the AWS SDKs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.shape import STRICT


@STRICT
class EksPoolOptionsArgs(TypedDict):
    """EKS-only settings of a pool (block ``aws`` of a cluster pool). ``ami_type`` and ``node_group_args`` (the
    escape hatch: other ``pulumi_aws.eks.NodeGroup`` arguments): see
    :class:`~gpu_components.aws.EksGpuNodeGroupArgs`."""

    ami_type: NotRequired[str]
    node_group_args: NotRequired[dict[str, Any]]


class EksWiringArgs(TypedDict):
    """How EKS pools attach to their cluster: cluster name, node subnets, and optionally a node role ARN."""

    cluster_name: pulumi.Input[str]
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    node_role_arn: NotRequired[pulumi.Input[str]]
