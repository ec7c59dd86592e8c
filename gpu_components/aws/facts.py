"""EKS as data (:class:`~gpu_components.cloud_facts.CloudFacts`), without the AWS SDKs: its NVIDIA AMI types, taint
effects, node group name rule, driver ownership and node group resource.

The node group component (:mod:`gpu_components.aws.eks`) reads these tables too, so the component, the plan and the
policy pack spell EKS one way. Facts and sources:

- NVIDIA AMI types and what they ship (the driver and the container toolkit, not the device plugin; Amazon Linux 2
  GPU AMIs are past their end of support): https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html
- Node group names and taint effects: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html,
  https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html
- Which node group inputs force a replacement: the attributes marked ``ForceNew`` in the upstream Terraform
  provider schema that pulumi-aws bridges (:data:`SOURCE_FORCE_NEW`). ``launchTemplate.version``,
  ``scalingConfig``, ``labels``, ``taints``, ``updateConfig``, ``version`` and ``releaseVersion`` update in place.
- Under the GPU Operator every EKS NVIDIA AMI keeps its own driver and toolkit (the operator's are off).
- A node group whose launch template changes is updated in place to the template's new version, and EKS replaces
  every node of it, draining each (:data:`SOURCE_NODE_UPDATES`); so does a new AMI release version, Kubernetes
  version or launch template version (:data:`NODE_GROUP_ROLLS`). A Bottlerocket launch template's user data may
  share GPUs (:mod:`gpu_components.aws.bottlerocket`); it is base64 TOML, which the plan's diff reads decoded.
- The node group component and the example cluster's system node group leave ``scalingConfig.desiredSize`` to the
  Cluster Autoscaler (:data:`NODE_GROUP_OPTIONS`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from gpu_components.aws import user_data
from gpu_components.catalog import CpuArchitecture
from gpu_components.cloud_facts import (
    KARPENTER_SH_LABELS,
    KARPENTER_SH_REASONS,
    LIBRARY_INSTANCE_LABEL,
    NODEPOOL_REQUIREMENT_OPERATORS,
    CloudFacts,
    ComponentOptions,
    DraFacts,
    DriverOwnership,
    EncodedInput,
    ForceNewTable,
    FractionalGpuTypes,
    GpuImages,
    GpuOperatorFacts,
    InputBound,
    NodeLimit,
    NodePoolResource,
    NodeRolls,
    NodeTemplate,
    PoolNameRule,
    ProvisionerFacts,
    ReservedPrefixes,
    TemplateSharing,
)
from gpu_components.name_forms import KnownNames, NameForm

if TYPE_CHECKING:
    from gpu_components.enums import TaintEffectName as TaintEffect

SOURCE_PROVIDER_REGION = (
    "https://github.com/pulumi/pulumi-aws/pull/4000 (a changed provider region replaces every"
    " resource the provider manages, deleting it in the old region and creating it in the new)"
)
"""pulumi-aws: the provider's ``DiffConfig`` asks to replace its resources when ``region`` changes."""
PROVIDER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {"pulumi:providers:aws": ForceNewTable(("region",), SOURCE_PROVIDER_REGION)}
)
"""The AWS provider's settings whose change replaces every resource it manages (:data:`SOURCE_PROVIDER_REGION`)."""
SOURCE_AMI_TYPES = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html"
SOURCE_EKS_DRA = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html"
"""AWS on the NVIDIA DRA driver: for Kubernetes 1.34 and later, on managed node groups, self-managed nodes and
Karpenter with the EKS-optimized AL2023 NVIDIA AMIs (which carry the NVIDIA driver on the host, the chart's default
``nvidiaDriverRoot`` ``/``); EKS Auto Mode includes the NVIDIA DRA driver in its node runtime on Kubernetes 1.36 and
later (nothing to install, and Auto Mode keeps a DRA driver and a device plugin off the same node); Karpenter
supports DRA from version 1.15, dynamic provisioning behind Karpenter feature gates."""
SOURCE_BOTTLEROCKET_DRA = "https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/1035"
"""Bottlerocket's own NVIDIA DRA driver, a host service that runs only with ``settings.kubelet-dra-drivers.nvidia.
enabled`` true and ``settings.kubelet-device-plugins.nvidia.enabled`` false (bottlerocket-core-kit #1035, 2026-09;
the latter setting from #914): on Bottlerocket NVIDIA the node image, not a DaemonSet, runs the GPU publisher."""
KARPENTER_DRA_VERSION = "1.15"
"""The first Karpenter version that supports DRA (:data:`SOURCE_EKS_DRA`)."""
SOURCE_FORCE_NEW = "https://github.com/hashicorp/terraform-provider-aws/blob/main/internal/service/eks/node_group.go"
"""Schema of ``aws_eks_node_group``, which pulumi-aws's ``eks.NodeGroup`` bridges (``ForceNew: true`` fields)."""
SOURCE_NODE_UPDATES = "https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html"
"""EKS's managed node update behavior: a new launch template version is rolled out by replacing every node."""

NVIDIA_AMI_TYPES: Mapping[str, CpuArchitecture] = MappingProxyType(
    {
        "AL2023_x86_64_NVIDIA": "x86_64",
        "AL2023_ARM_64_NVIDIA": "arm64",
        "BOTTLEROCKET_x86_64_NVIDIA": "x86_64",
        "BOTTLEROCKET_ARM_64_NVIDIA": "arm64",
    }
)
"""EKS AMI types with NVIDIA drivers -> the CPU architecture they run on (``AL2_x86_64_GPU`` is past support)."""
RETIRED_GPU_AMI_TYPES = frozenset({"AL2_x86_64_GPU"})
"""GPU AMI types EKS no longer supports (Amazon Linux 2 reached end of support for EKS AMIs)."""
DEFAULT_AMI_TYPES: Mapping[CpuArchitecture, str] = MappingProxyType(
    {"x86_64": "AL2023_x86_64_NVIDIA", "arm64": "AL2023_ARM_64_NVIDIA"}
)
"""AMI type used when none is given, by CPU architecture: Amazon Linux 2023 with NVIDIA drivers."""
BOTTLEROCKET_AMI_TYPES: Mapping[CpuArchitecture, str] = MappingProxyType(
    {"x86_64": "BOTTLEROCKET_x86_64_NVIDIA", "arm64": "BOTTLEROCKET_ARM_64_NVIDIA"}
)
"""Bottlerocket NVIDIA AMI type by CPU architecture (its host device plugin makes MIG partitions from settings)."""
BOTTLEROCKET_ARM_NVIDIA_FAMILIES = frozenset({"g5g"})
"""Instance families the Bottlerocket aarch64 NVIDIA AMI supports: EKS's AMI table (:data:`SOURCE_AMI_TYPES`) lists
g5g alone under "Bottlerocket aarch64/arm64 aws-k8s-nvidia", while the Grace Blackwell hosts (p6e-gb200,
p6e-gb300) are listed under "AL2023 ARM NVIDIA" only. The x86_64 Bottlerocket and AL2023 NVIDIA AMIs list the same
families."""

TAINT_EFFECTS: Mapping[TaintEffect, str] = MappingProxyType(
    {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}
)
"""Kubernetes taint effect -> EKS API spelling."""

NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"
"""Type token of pulumi-aws's EKS managed node group."""
LAUNCH_TEMPLATE_TYPE = "aws:ec2/launchTemplate:LaunchTemplate"
"""Type token of pulumi-aws's EC2 launch template, which a node group names by ``launchTemplate.id``."""
DRAINS_ROLLED = "its launch template changed: EKS rolls every node onto the new version"
"""How the plan's diff says that a node group's nodes drain because its launch template changed."""

NODE_GROUP_ROLLS = NodeRolls(
    ("launchTemplate.version", "releaseVersion", "version"),
    "EKS updates the node group in place and replaces every node, draining each",
    SOURCE_NODE_UPDATES,
)
"""Node group inputs whose change EKS rolls out by replacing every node: the launch template version, the AMI release
version and the Kubernetes version (an instance type or AMI type change replaces the whole group)."""
NODE_GROUP_OPTIONS = ComponentOptions(
    ignore_changes=("scalingConfig.desiredSize",),
    why="the Cluster Autoscaler owns the node group's desired size",
)
"""The options :class:`~gpu_components.aws.EksGpuNodeGroup` and the example cluster's system node group register their
node groups with."""
SOURCE_USER_DATA = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RequestLaunchTemplateData.html"
"""EC2 takes a launch template's user data base64-encoded."""

RESERVED_PREFIXES = ReservedPrefixes(
    ("kubernetes.io/", "k8s.io/", "eks.amazonaws.com/"),
    taints=True,
    source="EKS CreateNodegroup error 'cannot contain reserved prefixes [kubernetes.io/, k8s.io/, eks.amazonaws.com/]' "
    "for labels and taints (aws/containers-roadmap#1451)",
)
"""Label and taint key prefixes the EKS node group API refuses besides Kubernetes' own."""
MAX_NODES = NodeLimit(450, "https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html")
"""EKS service quota: nodes per managed node group."""
SOURCE_CLUSTER_NAME = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html"
"""EKS ``CreateCluster``: a cluster name is 1 to 100 characters, alphanumerics (case-sensitive), hyphens and
underscores, and starts with an alphanumeric."""
CLUSTER_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,99}")
"""An EKS cluster name (:data:`SOURCE_CLUSTER_NAME`), matched whole (``fullmatch``)."""
CLUSTER_NAME_FORM = NameForm(
    "an EKS cluster name",
    CLUSTER_NAME,
    "1 to 100 letters, digits, hyphens and underscores, starting with a letter or digit",
    SOURCE_CLUSTER_NAME,
)
"""An EKS cluster name, as :func:`~gpu_components.aws.eks.cluster_name_problems` checks it."""
SOURCE_IAM_ARNS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html"
"""IAM identifiers: a role's ARN is ``arn:<partition>:iam::<account>:role/<path><name>`` (partitions ``aws``,
``aws-cn``, ``aws-us-gov``; a 12-digit account; a path ``/`` or ``/<segments>/`` of printable ASCII; a name of 1 to
64 letters, digits and ``+=,.@_-``)."""
ROLE_ARN_FORM = NameForm(
    "an IAM role ARN",
    re.compile(r"arn:(?:aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role/(?:[\x21-\x7e]*/)?[A-Za-z0-9+=,.@_-]{1,64}"),
    "arn:<aws, aws-cn or aws-us-gov>:iam::<12-digit account>:role/<optional path/><name>, e.g. "
    "arn:aws:iam::123456789012:role/gpu-nodes",
    SOURCE_IAM_ARNS,
)
"""The ARN of an IAM role (:data:`SOURCE_IAM_ARNS`), as the node roles of EKS pools and clusters are checked (a plain
string only: an output, known at deployment, is not)."""
INSTANCE_TYPE_FORM = NameForm(
    "an EC2 instance type",
    re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9-]+"),
    "<family>.<size> in lowercase, e.g. m7i.large or c7g.xlarge",
    "https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html",
)
"""An EC2 instance type's name: a family (series, generation, options: ``m7i``, ``m7i-flex``), a period and a size
(``large``, ``48xlarge``, ``metal-24xl``)."""
SOURCE_REGIONS = "https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html"
"""AWS's list of Regions and their codes."""
REGIONS = KnownNames(
    "Region",
    "AWS's",
    (
        *("af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3"),
        *("ap-south-1", "ap-south-2", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4"),
        *("ap-southeast-5", "ap-southeast-6", "ap-southeast-7", "ca-central-1", "ca-west-1", "eu-central-1"),
        *("eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3"),
        *("il-central-1", "me-central-1", "me-south-1", "mx-central-1", "sa-east-1", "us-east-1", "us-east-2"),
        *("us-west-1", "us-west-2", "cn-north-1", "cn-northwest-1", "eusc-de-east-1", "us-gov-east-1"),
        *("us-gov-west-1", "us-iso-east-1", "us-iso-west-1", "us-isob-east-1", "us-isob-west-1", "eu-isoe-west-1"),
        *("us-isof-east-1", "us-isof-south-1"),
    ),
    SOURCE_REGIONS,
    "2026-12-05",
)
"""Every AWS Region code, of every partition (commercial, China, GovCloud, European Sovereign Cloud, ISO): the
codes of :data:`SOURCE_REGIONS`, as pulumi-aws 7.51.1's ``aws.Region`` enum (which the provider's ``region``
takes) lists them, read 2026-12-05 (``tests/test_cluster_config_forms.py`` keeps the two equal)."""
REGION_FORM = NameForm(
    "an AWS Region code",
    re.compile(r"[a-z]{2,4}(-[a-z]+)+-[0-9]+"),
    "a Region code such as us-west-2, eu-central-1 or us-gov-west-1",
    SOURCE_REGIONS,
    REGIONS,
)
"""An AWS Region code (``aws:region``): a geography, one or more words and a number (``us-west-2``,
``ap-southeast-3``, ``us-gov-west-1``), listed in :data:`REGIONS`."""
NODE_GROUP_BOUNDS = (
    InputBound(
        "clusterName",
        "an EKS cluster name: 1 to 100 letters, digits, hyphens and underscores, starting with a letter or digit",
        SOURCE_CLUSTER_NAME,
        pattern=CLUSTER_NAME,
    ),
    InputBound(
        "scalingConfig.maxSize",
        f"at most {MAX_NODES.nodes} nodes per managed node group",
        MAX_NODES.source,
        high=MAX_NODES.nodes,
    ),
)
"""A managed node group's cluster name and size, as the policy pack checks them on any program's node groups."""


SOURCE_KARPENTER_GPU_LABELS = (
    "https://karpenter.sh/docs/reference/instance-types/ (generated from EC2 DescribeInstanceTypes; "
    "aws/karpenter-provider-aws@1d927085 website/content/en/docs/reference/instance-types.md); "
    "https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/instancetype/types.go "
    "(instance-gpu-name: the EC2 GPU name in lower kebab case; instance-gpu-memory: the EC2 GPU memory in MiB)"
)
"""Where the values of Karpenter's GPU labels come from. EKS Auto Mode sets the same values under its own keys
(``eks.amazonaws.com/instance-gpu-name: t4`` and ``instance-gpu-memory: 16384`` on a g4dn in AWS's label table,
:data:`SOURCE_AUTO_MODE_LABELS`)."""
SOURCE_KARPENTER_LABELS = "https://karpenter.sh/docs/reference/instance-types/"
"""Karpenter's AWS well-known labels (``karpenter.k8s.aws/instance-gpu-name`` and the rest; the keys are in
``pkg/apis/v1/labels.go`` of aws/karpenter-provider-aws)."""
SOURCE_AUTO_MODE_LABELS = "https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html"
"""EKS Auto Mode's supported labels (``eks.amazonaws.com/instance-gpu-name``, ``-count``, ``-memory`` (MiB),
``instance-family``)."""
SOURCE_NODEPOOL_LABEL_RULES = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml "
    '(template.metadata.labels: label domain "karpenter.sh" is restricted, label "karpenter.sh/nodepool" is '
    'restricted, label domain "karpenter.k8s.aws" is restricted, each refusing a key whose domain part ends with '
    "the domain; tests/reference/karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml lines 224-231)"
)
"""The label rules of the NodePool CRD's template labels (Karpenter's AWS provider v1.14.1)."""
KARPENTER_AWS_CRD_ALLOWED = (
    "karpenter.k8s.aws/instance-tenancy",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/ec2nodeclass",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/placement-group-id",
    "karpenter.k8s.aws/placement-group-partition",
)
"""The ``karpenter.k8s.aws`` keys the NodePool CRD's domain rule lets through (:data:`SOURCE_NODEPOOL_LABEL_RULES`,
line 231), as it lists them."""
SOURCE_KARPENTER_DISRUPTION = "https://karpenter.sh/docs/concepts/disruption/#pod-level-controls"
SOURCE_KARPENTER_EXPIRE = (
    "https://karpenter.sh/docs/concepts/nodepools/#spectemplatespecexpireafter (the NodePool CRD's default of "
    "template.spec.expireAfter, 720h)"
)
"""Karpenter's default node expiry: 720h (30 days), the NodePool CRD's default."""
SOURCE_AUTO_MODE_EXPIRE = "https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html"
"""EKS Auto Mode's node expiry: 336h (14 days) unless the NodePool says otherwise, at most 21 days."""
"""``karpenter.sh/do-not-disrupt: "true"`` on a pod: Karpenter excludes its node from consolidation (not from
expiration, interruption or node repair)."""

EC2_GPU_LABEL_VALUES: Mapping[str, tuple[str, int]] = MappingProxyType(
    {
        "g4dn": ("t4", 16384),
        "g5": ("a10g", 22888),
        "g5g": ("t4g", 16384),
        "g6": ("l4", 22888),
        "g6e": ("l40s", 45776),
        "gr6": ("l4", 22888),
        "p3dn": ("v100", 32768),
        "p4d": ("a100", 40960),
        "p4de": ("a100", 81920),
        "p5": ("h100", 81920),
        "p5e": ("h200", 144384),
        "p5en": ("h200", 144384),
        "p6-b200": ("b200", 183359),
        "p6-b300": ("b300", 275040),
    }
)
"""Instance family -> (GPU name label value, GPU memory label value in MiB) that Karpenter sets on the NVIDIA GPU
nodes of the catalog's families (:data:`SOURCE_KARPENTER_GPU_LABELS`). Note the EC2 memory figures: an A10G or L4
"24 GB" GPU is 22888 MiB, an L40S 45776 MiB; and that the A100 of p4d (40 GB) and p4de (80 GB) share the name
``a100``. Not listed (absent from Karpenter's reference): p3, p6e-gb200."""


EC2_GPU_MANUFACTURER = "nvidia"
"""The GPU manufacturer label value of an NVIDIA GPU node: EC2's ``NVIDIA`` in lower kebab case
(:data:`SOURCE_KARPENTER_TYPES_CODE`), under Karpenter's and Auto Mode's keys alike."""
SOURCE_KARPENTER_TYPES_CODE = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go "
    "(computeRequirements: instance-gpu-name and instance-gpu-manufacturer are EC2's GPU name and manufacturer in "
    "lower kebab case, instance-gpu-count its GPU Count, instance-gpu-memory its memory in MiB; nvidiaGPUs: "
    "nvidia.com/gpu is the sum of the NVIDIA GPUs' Count)"
)
"""Karpenter v1.14.1's code that sets the GPU labels and the ``nvidia.com/gpu`` capacity of an instance type."""
AUTO_MODE_REQUIREMENT_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
"""The operators a requirement of an EKS Auto Mode NodePool may use: Kubernetes' node selector operators. AWS runs
its own Karpenter there and does not say which version; ``Gte`` and ``Lte``, newer Karpenter operators, are left
out."""
SOURCE_G6F = (
    "https://aws.amazon.com/ec2/instance-types/g6/ (G6f and Gr6f: fractional GPUs, 1/8 to 1/2 of one L4); "
    "https://github.com/aws/karpenter-provider-aws/issues/8368 (EC2 DescribeInstanceTypes returns a GPU count of 0 "
    "for every g6f type, so Karpenter will not launch them for nvidia.com/gpu requests and may exceed NodePool "
    f"nvidia.com/gpu limits with them); {SOURCE_KARPENTER_TYPES_CODE}; "
    "https://karpenter.sh/docs/concepts/nodeoverlays/ (NodeOverlay: alpha, behind the NodeOverlay feature gate, adds "
    "extended resources to instance types)"
)
"""Where the facts of :data:`FRACTIONAL_GPU_TYPES` come from."""
FRACTIONAL_GPU_TYPES = (
    FractionalGpuTypes(
        pattern=re.compile(r"^(g6f|gr6f)\.[0-9a-z]+$"),
        families=("g6f", "gr6f"),
        gpu="1/8 to 1/2 of one NVIDIA L4, not whole GPUs",
        why="EC2 reports their GPU count as 0, which Karpenter (v1.14.1) and EKS Auto Mode take as the node's "
        "nvidia.com/gpu and instance-gpu-count, so no node of them is ever created for a pod asking for "
        "nvidia.com/gpu nor counted against a GPU limit; and no whole GPU count describes them, so the catalog, "
        "whose pools (fixed or provisioned) count whole GPUs, does not list them",
        instead="an instance type with whole GPUs (the g6 family: one or more whole L4s); or, outside this library, "
        "a Karpenter NodeOverlay (karpenter.sh/v1alpha1, alpha, behind Karpenter's NodeOverlay feature gate) that "
        "adds nvidia.com/gpu capacity to these types",
        source=SOURCE_G6F,
    ),
)
"""The EC2 instance types whose nodes get a fraction of one GPU (:data:`SOURCE_G6F`)."""


def ec2_gpu_name(instance_type: str) -> str | None:
    """The GPU name label value of an EC2 instance type's nodes (``g6e.xlarge`` -> ``l40s``), or ``None`` when
    :data:`EC2_GPU_LABEL_VALUES` does not list its family."""
    values = EC2_GPU_LABEL_VALUES.get(instance_type.split(".")[0])
    return values[0] if values is not None else None


def ec2_gpu_memory_mib(instance_type: str) -> int | None:
    """The GPU memory label value (MiB of one GPU) of an EC2 instance type's nodes (``g6e.xlarge`` -> 45776), or
    ``None`` when :data:`EC2_GPU_LABEL_VALUES` does not list its family."""
    values = EC2_GPU_LABEL_VALUES.get(instance_type.split(".")[0])
    return values[1] if values is not None else None


SOURCE_KARPENTER_GETTING_STARTED = "https://karpenter.sh/v1.14/getting-started/getting-started-with-karpenter/"
"""Karpenter v1.14's getting-started guide: namespace ``kube-system``, chart version 1.14.1, the controller's EKS Pod
Identity association (service account ``karpenter``) and the add-on ``eks-pod-identity-agent``, the Helm values
``settings.clusterName`` and ``settings.interruptionQueue`` (the queue named after the cluster), the controller's
1 CPU / 1Gi requests and limits, and its CloudFormation template (``cloudformation.yaml`` beside the page, the same at
tag v1.14.1 under ``website/content/en/preview``): the node role's managed policies, the controller's permissions,
the interruption queue (messages kept 300 s, SSE-SQS on, only EventBridge and SQS may send, HTTPS only) and its
EventBridge rules."""
KARPENTER_CHART = "oci://public.ecr.aws/karpenter/karpenter"
"""Karpenter's Helm chart (public ECR, OCI)."""
KARPENTER_VERSION = "1.14.1"
"""Karpenter chart and controller version the example installs, the version of the CRDs under ``tests/reference``."""
KARPENTER_NAMESPACE = "kube-system"
"""Namespace of the Karpenter controller (the guide's ``KARPENTER_NAMESPACE``)."""
KARPENTER_SERVICE_ACCOUNT = "karpenter"
"""Service account of the Karpenter controller, which its EKS Pod Identity association names."""
SOURCE_ACCESS_ENTRIES = "https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html"
"""EKS access entries: type ``EC2_LINUX`` for a role of self-managed Linux nodes (Karpenter's); none is needed for a
managed node group's role (EKS adds it); one access entry per IAM principal and cluster."""
SOURCE_AUTO_NODE_ROLE = "https://docs.aws.amazon.com/eks/latest/userguide/auto-create-node-role.html"
"""The Auto Mode node role: trusted by ``ec2.amazonaws.com``, with ``AmazonEKSWorkerNodeMinimalPolicy`` and
``AmazonEC2ContainerRegistryPullOnly``; EKS creates its access entry when the cluster is created
(https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)."""
SOURCE_AUTO_MIGRATE_KARPENTER = "https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html"
"""AWS documents self-managed Karpenter beside EKS Auto Mode only as a migration from one to the other."""
SOURCE_PULUMI_EKS_AUTO_MODE = "https://github.com/pulumi/pulumi-eks/blob/master/nodejs/eks/cluster/cluster.ts"
"""pulumi-eks ``Cluster`` with ``autoMode.enabled``: sets the compute config (node pools ``general-purpose`` and
``system`` unless given), ``storageConfig.blockStorage`` and ``kubernetesNetworkConfig.elasticLoadBalancing`` on
together, adds the Auto Mode policies to the cluster role, and leaves the VPC CNI and kube-proxy add-ons and the
self-managed add-ons off (Auto Mode nodes bring their own networking)."""


_TERRAFORM_AWS = "https://github.com/hashicorp/terraform-provider-aws/blob/main/internal/service/"
OTHER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        "aws:autoscaling/tag:Tag": ForceNewTable(
            ("autoscalingGroupName", "tag.key"), f"{_TERRAFORM_AWS}autoscaling/group_tag.go"
        ),
        "aws:iam/role:Role": ForceNewTable(("name", "namePrefix", "path"), f"{_TERRAFORM_AWS}iam/role.go"),
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ForceNewTable(
            ("role", "policyArn"), f"{_TERRAFORM_AWS}iam/role_policy_attachment.go"
        ),
        LAUNCH_TEMPLATE_TYPE: ForceNewTable(("name", "namePrefix"), f"{_TERRAFORM_AWS}ec2/ec2_launch_template.go"),
    }
)
"""The force-new inputs (``ForceNew`` in the upstream Terraform schemas that pulumi-aws bridges) of the other
resources the EKS components create: a changed Auto Scaling group tag key, role name or attached policy replaces
the resource; a launch template's other settings make a new version of it in place."""

KARPENTER_WITH_AUTO_MODE = (
    "EKS Auto Mode runs its own Karpenter: with the karpenter controller too, two provisioners would launch this "
    "cluster's nodes (AWS documents the two side by side only while migrating from one to the other), and the "
    "Karpenter chart's default affinity keeps its controller off every Auto Mode node"
)
"""Why a cluster runs Karpenter or EKS Auto Mode, not both (:data:`SOURCE_AUTO_MIGRATE_KARPENTER`,
:data:`SOURCE_KARPENTER_GETTING_STARTED`)."""

FACTS = CloudFacts(
    provider_force_new=PROVIDER_FORCE_NEW,
    dra=DraFacts(
        driver_root="/",
        node_labels=MappingProxyType({}),
        source=SOURCE_EKS_DRA,
    ),
    provisioners=MappingProxyType(
        {
            "karpenter": ProvisionerFacts(
                source="https://karpenter.sh/docs/concepts/nodepools/",
                gpu_name_label="karpenter.k8s.aws/instance-gpu-name",
                gpu_count_label="karpenter.k8s.aws/instance-gpu-count",
                gpu_memory_label="karpenter.k8s.aws/instance-gpu-memory",
                do_not_disrupt=("karpenter.sh/do-not-disrupt", "true"),
                labels_source=f"{SOURCE_KARPENTER_LABELS}; {SOURCE_KARPENTER_DISRUPTION}",
                gpu_name_value=ec2_gpu_name,
                gpu_memory_mib=ec2_gpu_memory_mib,
                values_source=SOURCE_KARPENTER_GPU_LABELS,
                counts_whole_gpus=True,
                restricted_label_domains=MappingProxyType(
                    {
                        "karpenter.sh": KARPENTER_SH_LABELS,
                        "karpenter.k8s.aws": "Karpenter's AWS provider sets labels in it on every node itself (the "
                        "instance type's, e.g. karpenter.k8s.aws/instance-gpu-name): select a node by them in a "
                        "workload instead",
                    }
                ),
                restricted_labels_source=SOURCE_NODEPOOL_LABEL_RULES,
                label_reasons=MappingProxyType(
                    dict.fromkeys(KARPENTER_AWS_CRD_ALLOWED, LIBRARY_INSTANCE_LABEL) | dict(KARPENTER_SH_REASONS)
                ),
                excludes=("eks-auto-mode",),
                excludes_reason=KARPENTER_WITH_AUTO_MODE,
                gpu_manufacturer_label="karpenter.k8s.aws/instance-gpu-manufacturer",
                gpu_manufacturer_value=EC2_GPU_MANUFACTURER,
                requirement_operators=NODEPOOL_REQUIREMENT_OPERATORS,
                requirements_source=f"{SOURCE_KARPENTER_LABELS}; {SOURCE_KARPENTER_TYPES_CODE}",
                default_expire_after="720h",
                expire_source=SOURCE_KARPENTER_EXPIRE,
            ),
            "eks-auto-mode": ProvisionerFacts(
                source="https://docs.aws.amazon.com/eks/latest/userguide/automode.html",
                gpu_name_label="eks.amazonaws.com/instance-gpu-name",
                gpu_count_label="eks.amazonaws.com/instance-gpu-count",
                gpu_memory_label="eks.amazonaws.com/instance-gpu-memory",
                do_not_disrupt=("karpenter.sh/do-not-disrupt", "true"),
                labels_source=f"{SOURCE_AUTO_MODE_LABELS}; {SOURCE_KARPENTER_DISRUPTION}",
                gpu_name_value=ec2_gpu_name,
                gpu_memory_mib=ec2_gpu_memory_mib,
                values_source=f"{SOURCE_AUTO_MODE_LABELS}; {SOURCE_KARPENTER_GPU_LABELS}",
                counts_whole_gpus=True,
                restricted_label_domains=MappingProxyType(
                    {
                        "karpenter.sh": KARPENTER_SH_LABELS,
                        "karpenter.k8s.aws": "it is the domain of Karpenter's own AWS provider, which Auto Mode "
                        "does not run: Auto Mode sets its instance labels under eks.amazonaws.com instead (e.g. "
                        "eks.amazonaws.com/instance-gpu-name): select a node by them in a workload instead",
                    }
                ),
                restricted_labels_source=SOURCE_NODEPOOL_LABEL_RULES,
                label_reasons=KARPENTER_SH_REASONS,
                excludes=("karpenter",),
                excludes_reason=KARPENTER_WITH_AUTO_MODE,
                gpu_manufacturer_label="eks.amazonaws.com/instance-gpu-manufacturer",
                gpu_manufacturer_value=EC2_GPU_MANUFACTURER,
                requirement_operators=AUTO_MODE_REQUIREMENT_OPERATORS,
                requirements_source=f"{SOURCE_AUTO_MODE_LABELS}; {SOURCE_KARPENTER_TYPES_CODE}",
                default_expire_after="336h",
                expire_source=SOURCE_AUTO_MODE_EXPIRE,
                expire_never=False,
            ),
        }
    ),
    instance_family_separator=".",
    fractional_gpu_types=FRACTIONAL_GPU_TYPES,
    cloud="aws",
    service="EKS",
    force_new=OTHER_FORCE_NEW,
    pool_name=PoolNameRule(
        re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]*$"),
        63,
        "1-63 letters, digits, '-' or '_', starting with a letter or digit",
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html",
    ),
    taint_effects=TAINT_EFFECTS,
    driver=DriverOwnership(
        setting="ami_type",
        defaults=DEFAULT_AMI_TYPES,
        off=None,
        owner="EKS NVIDIA AMI",
        source=SOURCE_AMI_TYPES,
    ),
    gpu_operator=GpuOperatorFacts(source=SOURCE_AMI_TYPES),
    node_pools=(
        NodePoolResource(
            type_token=NODE_GROUP_TYPE,
            instance_types="instanceTypes",
            taints="taints",
            missing_gpu_taint="GPU node group ({gpu}) has no NO_SCHEDULE GPU taint",
            labels="labels",
            gpu_images=GpuImages("amiType", "AMI type", frozenset(NVIDIA_AMI_TYPES) | RETIRED_GPU_AMI_TYPES),
            template=NodeTemplate(
                LAUNCH_TEMPLATE_TYPE,
                "launchTemplate.id",
                DRAINS_ROLLED,
                SOURCE_NODE_UPDATES,
                sharing=TemplateSharing(
                    settings="userData",
                    read=user_data.sharing_settings,
                    shared_strategies=user_data.SHARING_STRATEGIES,
                    label="Bottlerocket device-sharing-strategy",
                    tags="tags",
                ),
            ),
            force_new=ForceNewTable(
                (
                    "amiType",
                    "capacityType",
                    "clusterName",
                    "diskSize",
                    "instanceTypes",
                    "launchTemplate.id",
                    "launchTemplate.name",
                    "nodeGroupName",
                    "nodeGroupNamePrefix",
                    "nodeRoleArn",
                    "remoteAccess",
                    "subnetIds",
                ),
                SOURCE_FORCE_NEW,
            ),
            rolls=NODE_GROUP_ROLLS,
            component=NODE_GROUP_OPTIONS,
            bounds=NODE_GROUP_BOUNDS,
        ),
    ),
    reserved_prefixes=RESERVED_PREFIXES,
    max_pool_nodes=MAX_NODES,
    encoded_inputs=(EncodedInput(LAUNCH_TEMPLATE_TYPE, "userData", user_data.decode_user_data, SOURCE_USER_DATA),),
)
"""EKS: managed node groups of NVIDIA AMIs, each of which ships the driver."""
