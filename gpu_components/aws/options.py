"""The EKS blocks of a :class:`~gpu_components.cluster.GpuCluster`: a pool's ``aws`` options and the cluster's
``aws`` wiring. Kept apart from the adapter so the composition can name them without importing the AWS SDKs."""

from collections.abc import Sequence
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.shape import STRICT


@STRICT
class EksPoolOptionsArgs(TypedDict):
    """EKS-only settings of a pool (block ``aws`` of a cluster pool); see
    :class:`~gpu_components.aws.EksGpuNodeGroupArgs`."""

    ami_type: NotRequired[str]
    """An NVIDIA EKS AMI type matching the instance's CPU architecture (``AL2023_*_NVIDIA``, or
    ``BOTTLEROCKET_*_NVIDIA``, whose host runs the device plugin). Defaults to ``AL2023_x86_64_NVIDIA`` /
    ``AL2023_ARM_64_NVIDIA``."""
    node_group_args: NotRequired[dict[str, Any]]
    """The escape hatch: other ``pulumi_aws.eks.NodeGroup`` arguments, in the SDK's snake_case names (e.g.
    ``update_config``), merged under the library's. Defaults to none. A key the library sets or that ``NodeGroup``
    does not take is an error naming the key. Fixed pools only (refused on provisioned pools, which have
    ``node_pool_spec`` and ``node_class_spec``)."""
    node_pool_spec: NotRequired[dict[str, Any]]
    """Provisioned pools: other Karpenter NodePool ``spec`` fields (e.g. ``weight``), merged under the library's.
    Defaults to none. ``disruption``, ``limits`` and ``template`` are the library's."""
    node_class_spec: NotRequired[dict[str, Any]]
    """Provisioned pools: other EC2NodeClass (Karpenter) or NodeClass (EKS Auto Mode) ``spec`` fields (e.g.
    ``tags``), merged under the library's. Defaults to none. The keys the library sets are refused."""
    node_class: NotRequired[str]
    """EKS Auto Mode pools: the NodeClass the NodePool uses instead of one of its own, e.g. ``default`` (Auto Mode's
    built-in NodeClass); then the pool sets nothing a NodeClass holds (no ``disk_size_gb``, reserved capacity or
    ``node_class_spec``) and the cluster wiring gives ``node_role_arn``. Defaults to a NodeClass of the pool's own
    (see :class:`~gpu_components.aws.EksAutoModeGpuNodePoolArgs`)."""


class EksWiringArgs(TypedDict):
    """How EKS pools attach to their cluster."""

    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster."""
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    """Subnets for the nodes (private subnets of the cluster's VPC)."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """IAM role of the nodes. Defaults to a new role per pool with the EKS worker, ECR pull and CNI policies. With
    Karpenter pools, the role of the nodes the Karpenter controller launches (a ``KarpenterController``'s
    ``node_role_arn``): the controller may pass only that role to EC2.
    A plain string must be an IAM role's ARN, ``arn:<aws|aws-cn|aws-us-gov>:iam::<12-digit account>:role/<optional
    path/><name>`` (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html); an output is taken as
    given."""
    karpenter_controller: NotRequired[bool]
    """The cluster runs the Karpenter controller (1.0 or later: a ``KarpenterController``, the example cluster's
    ``cluster.karpenter``, or one installed otherwise). ``GpuCluster`` does not install it: a Karpenter pool's
    NodePool and EC2NodeClass are custom resources only that controller reads (and its chart brings their CRDs),
    so Karpenter pools are refused unless this is true. Defaults to false."""
