"""Provisioned EKS GPU pools (issue 16): ``EksKarpenterGpuNodePool`` (Karpenter ``NodePool`` + ``EC2NodeClass``) and
``EksAutoModeGpuNodePool`` (EKS Auto Mode: Karpenter ``NodePool`` + ``eks.amazonaws.com`` ``NodeClass``).

The pool's node labels and taints are a fixed EKS pool's (:func:`~gpu_components.aws.eks.node_labels`, the pool's
taints), set in the NodePool's ``template``, without the Cluster Autoscaler's ``k8s.amazonaws.com/accelerator``
(no Cluster Autoscaler scales these nodes). Facts and sources:

- Karpenter ``EC2NodeClass`` (:data:`SOURCE_EC2NODECLASS`): ``amiSelectorTerms`` ``alias`` ``al2023@latest`` /
  ``bottlerocket@latest``: for an instance type with NVIDIA GPUs Karpenter picks the family's accelerated (NVIDIA)
  AMI variant itself (:data:`SOURCE_ACCELERATED_AMI`), so the pool's ``aws.ami_type`` only chooses the family
  (:data:`AMI_ALIASES`); ``role``: the node role's name (Karpenter makes the instance profile); ``userData``: for
  Bottlerocket, TOML merged with Karpenter's own settings (our device plugin settings,
  :mod:`gpu_components.aws.bottlerocket`);
  ``blockDeviceMappings`` replace the family's defaults (AL2023 ``/dev/xvda``; Bottlerocket ``/dev/xvda`` 4Gi OS
  volume and ``/dev/xvdb`` data volume), so the pool's ``disk_size_gb`` goes on the root volume (AL2023) or the data
  volume (Bottlerocket); ``capacityReservationSelectorTerms`` ``{id}`` with capacity type ``reserved``
  (Karpenter >= 1.3; :data:`SOURCE_RESERVED`).
- Security groups: EKS tags the cluster security group it creates ``aws:eks:cluster-name: <cluster>``
  (:data:`SOURCE_CLUSTER_SECURITY_GROUP`); both NodeClasses select it by that tag.
- Karpenter ``NodePool`` (:data:`SOURCE_NODEPOOL`): ``requirements`` (instance types, capacity type,
  architecture), ``limits`` (``nvidia.com/gpu``, ``nodes``), ``disruption`` (``consolidationPolicy``,
  ``consolidateAfter``), ``template.spec.expireAfter``. Karpenter sizes a node from its instance type's GPU count,
  not from time-slicing replicas or MIG devices (:func:`karpenter_note`). Its alpha ``NodeOverlay`` could tell it
  the shared capacity; it is not rendered (alpha, behind the ``NodeOverlay`` feature gate; the note says so).
- EKS Auto Mode (:data:`SOURCE_AUTO_ACCELERATED`, :data:`SOURCE_AUTO_NODECLASS`, :data:`SOURCE_AUTO_NODEPOOL`): AWS
  runs the NVIDIA driver and device plugin on its nodes and prevents a second GPU manager on the same node
  (:data:`SOURCE_AUTO_DEVICES`; the plugin "runs automatically and isn't visible as a daemon set",
  :data:`SOURCE_AUTO_ACCELERATED`); its ``NodeClass`` has no AMI or device plugin setting, so our sharing and MIG
  settings cannot reach the plugin: time-slicing, MPS and MIG are refused. No device plugin DaemonSet is deployed
  there; under the GPU Operator the nodes carry ``nvidia.com/gpu.deploy.operands=false`` (as Bottlerocket's), so no
  operand (a second device plugin among them) lands on them while other pools of the cluster keep the operator.
  Auto Mode nodes live at most 21 days (:data:`AUTO_MODE_MAX_EXPIRE_HOURS`); ``expireAfter`` above is refused.
  Reserved capacity goes into the Auto Mode NodeClass's ``capacityReservationSelectorTerms`` (AWS documents the
  field, :data:`SOURCE_AUTO_RESERVATIONS`, though the NodeClass schema copy under ``tests/reference`` predates it).
  A pool may name a NodeClass it does not own (``node_class``, e.g. Auto Mode's built-in ``default``) when it sets
  nothing that lives in a NodeClass.
- Instance families (``provisioning.instance_families``) are rendered as the catalog's types of those families
  (``node.kubernetes.io/instance-type`` In, :func:`requirements`), not as the family label, which would admit types
  the catalog and so the pool's rules do not know.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components import crd_fields
from gpu_components.adapter import (
    DevicePluginHost,
    GpuNodePool,
    GpuStack,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    adopt_view,
    pool_outputs,
    validated_pool,
)
from gpu_components.autoscaler import joined, provisioner_note, uncounted_resource_problems
from gpu_components.aws import bottlerocket
from gpu_components.aws._sdk import aws
from gpu_components.aws.eks import (
    AUTOSCALER_GPU_LABEL,
    ami_problems,
    ami_type_for,
    create_node_role,
    device_plugin_host,
    node_labels,
    subnet_ids_problems,
)
from gpu_components.aws.facts import (
    KARPENTER_DRA_VERSION,
    ROLE_ARN_FORM,
    SOURCE_EKS_DRA,
    SOURCE_KARPENTER_GETTING_STARTED,
)
from gpu_components.enums import GpuStackArg, value_of
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gpu_requests import tolerations
from gpu_components.labels import POOL_LABEL
from gpu_components.nodepool import disruption, taint_items, template_disruption
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, advertised_resources
from gpu_components.provider_args import collected
from gpu_components.shape import plain
from gpu_components.spec import DURATION, GpuNodePoolArgs, GpuNodePoolSpec, Mps, Provisioning, dra_refused

SOURCE_EC2NODECLASS = "https://karpenter.sh/docs/concepts/nodeclasses/"
SOURCE_NODEPOOL = "https://karpenter.sh/docs/concepts/nodepools/"
SOURCE_ACCELERATED_AMI = "https://aws-samples.github.io/karpenter-blueprints/blueprints/nvidia-gpu-workload/"
"""AWS's Karpenter blueprint: for accelerated instances Karpenter selects the EKS-optimized accelerated AMI itself."""
SOURCE_RESERVED = "https://karpenter.sh/docs/concepts/nodepools/#reserved-capacity"
SOURCE_NODE_OVERLAY = "https://karpenter.sh/docs/concepts/nodeoverlays/"
SOURCE_CLUSTER_SECURITY_GROUP = "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html"
SOURCE_AUTO_NODECLASS = "https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html"
SOURCE_AUTO_NODEPOOL = "https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html"
SOURCE_AUTO_ACCELERATED = "https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html"
SOURCE_AUTO_DEVICES = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html"
SOURCE_ACCESS_ENTRIES = "https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html"
SOURCE_AUTO_RESERVATIONS = "https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html"
"""EKS Auto Mode and capacity reservations: a NodeClass's ``capacityReservationSelectorTerms`` (``id``, ``tags``,
``owner``) select ODCRs and Capacity Blocks for ML, whose nodes are ``karpenter.sh/capacity-type: reserved``; once
any NodeClass of the cluster has such terms, Auto Mode stops launching into open ODCRs for every NodeClass."""
SOURCE_AUTO_DEFAULT_NODE_CLASS = (
    "https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html; "
    "https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html"
)
"""EKS Auto Mode's built-in NodeClass ``default`` (the cluster's node role, subnets and security group), which its
built-in NodePools use and other NodePools may name; it exists while at least one built-in NodePool is enabled (the
example program's Auto Mode cluster enables both, :data:`~gpu_components.aws.cluster.AUTO_MODE_NODE_POOLS`)."""
AUTO_MODE_RESERVATION_WARNING = (
    "EKS Auto Mode: this pool's NodeClass has capacityReservationSelectorTerms, so Auto Mode no longer launches "
    "into open On-Demand Capacity Reservations for any NodeClass of the cluster: an open ODCR is used only where a "
    f"NodeClass selects it ({SOURCE_AUTO_RESERVATIONS})"
)
"""The warning of an Auto Mode pool with reserved capacity (:data:`SOURCE_AUTO_RESERVATIONS`)."""
NODE_CLASS_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
"""A NodeClass name: a DNS-1123 subdomain (at most 253 characters), as every Kubernetes object name."""

SOURCE_RESERVATION_ID = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml "
    "(the pattern of capacityReservationSelectorTerms.id; tests/reference/karpenter/aws-v1.14.1/"
    "karpenter.k8s.aws_ec2nodeclasses.yaml line 264)"
)
RESERVATION_ID = re.compile(r"^cr-[0-9a-z]+$")
"""An EC2 capacity reservation id, as the EC2NodeClass CRD's ``capacityReservationSelectorTerms[].id`` pattern
(:data:`SOURCE_RESERVATION_ID`)."""

KARPENTER_GROUP = "karpenter.k8s.aws"
AUTO_MODE_GROUP = "eks.amazonaws.com"
NODEPOOL_API = "karpenter.sh/v1"
CLUSTER_NAME_TAG = "aws:eks:cluster-name"
"""Tag EKS puts on the cluster security group it creates, valued the cluster's name
(:data:`SOURCE_CLUSTER_SECURITY_GROUP`)."""
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ARCH_LABEL = "kubernetes.io/arch"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
ARCHITECTURES: Mapping[str, str] = {"x86_64": "amd64", "arm64": "arm64"}
"""Catalog CPU architecture -> the ``kubernetes.io/arch`` value."""
AMI_ALIASES: Mapping[str, str] = {"AL2023": "al2023@latest", "BOTTLEROCKET": "bottlerocket@latest"}
"""EKS AMI type family (the ``ami_type`` before its first ``_``) -> the EC2NodeClass ``amiSelectorTerms`` alias.
Karpenter picks the NVIDIA variant for GPU instance types (:data:`SOURCE_EC2NODECLASS`)."""
ROOT_DEVICE = "/dev/xvda"
BOTTLEROCKET_OS_VOLUME_GIB = 4
"""Size of Bottlerocket's OS volume (``/dev/xvda``) in Karpenter's default block device mappings
(:data:`SOURCE_EC2NODECLASS`), kept when the data volume is sized."""
AUTO_MODE_MAX_EXPIRE_HOURS = 504
"""EKS Auto Mode replaces nodes after at most 21 days (504h; default 336h): :data:`SOURCE_AUTO_NODEPOOL`."""
AUTO_MODE_NODE_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
"""The access policy of an Auto Mode node role's access entry (type ``EC2``): :data:`SOURCE_AUTO_NODECLASS`."""

NODE_POOL_OWNED = ("disruption", "limits", "template")
"""NodePool ``spec`` keys the library sets, refused in ``node_pool_spec``."""
EC2_NODE_CLASS_OWNED = (
    "amiFamily",
    "amiSelectorTerms",
    "blockDeviceMappings",
    "capacityReservationSelectorTerms",
    "instanceProfile",
    "role",
    "securityGroupSelectorTerms",
    "subnetSelectorTerms",
    "userData",
)
"""EC2NodeClass ``spec`` keys the library sets (``instanceProfile`` excludes ``role``), refused in
``node_class_spec``."""
AUTO_NODE_CLASS_OWNED = (
    "capacityReservationSelectorTerms",
    "ephemeralStorage",
    "role",
    "securityGroupSelectorTerms",
    "subnetSelectorTerms",
)
"""Auto Mode NodeClass ``spec`` keys the library sets, refused in ``node_class_spec``."""


class EksKarpenterGpuNodePoolArgs(TypedDict):
    """Inputs of :class:`EksKarpenterGpuNodePool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``aws``, with a ``provisioning`` block."""
    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster (selects its cluster security group by the ``aws:eks:cluster-name`` tag)."""
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    """Subnets for the nodes (``subnetSelectorTerms`` by ``id``)."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """IAM role of the nodes (the NodeClass takes its name, the part after the last ``/``). Defaults to a new role
    with the EKS worker, ECR pull and CNI policies and an EKS access entry for it.
    A plain string must be an IAM role's ARN, ``arn:<aws|aws-cn|aws-us-gov>:iam::<12-digit account>:role/<optional
    path/><name>`` (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html); an output is taken as
    given."""
    node_pool_spec: NotRequired[dict[str, Any]]
    """Other NodePool ``spec`` fields (e.g. ``weight``), merged under the library's. Defaults to none. A key the
    library sets (``disruption``, ``limits``, ``template``) is an error naming the key."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``."""

    ami_type: NotRequired[str]
    """An NVIDIA EKS AMI type: its family picks the AMI alias (``AL2023_*_NVIDIA``: ``al2023@latest``, our device
    plugin or the GPU Operator; ``BOTTLEROCKET_*_NVIDIA``: ``bottlerocket@latest``, its host device plugin).
    Defaults to the AL2023 NVIDIA type of the pool's architecture."""
    node_class_spec: NotRequired[dict[str, Any]]
    """Other EC2NodeClass ``spec`` fields (e.g. ``tags``, ``metadataOptions``), merged under the library's. Defaults
    to none. A key the library sets (:data:`EC2_NODE_CLASS_OWNED`) is an error naming the key."""


class EksAutoModeGpuNodePoolArgs(TypedDict):
    """Inputs of :class:`EksAutoModeGpuNodePool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``aws``, with a ``provisioning`` block."""
    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster (selects its cluster security group by the ``aws:eks:cluster-name`` tag)."""
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    """Subnets for the nodes (``subnetSelectorTerms`` by ``id``)."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """IAM role of the nodes (the NodeClass takes its name, the part after the last ``/``). Defaults to a new role
    with the EKS worker, ECR pull and CNI policies and an EKS access entry for it.
    A plain string must be an IAM role's ARN, ``arn:<aws|aws-cn|aws-us-gov>:iam::<12-digit account>:role/<optional
    path/><name>`` (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html); an output is taken as
    given."""
    node_pool_spec: NotRequired[dict[str, Any]]
    """Other NodePool ``spec`` fields (e.g. ``weight``), merged under the library's. Defaults to none. A key the
    library sets (``disruption``, ``limits``, ``template``) is an error naming the key."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``."""

    node_class_spec: NotRequired[dict[str, Any]]
    """Other Auto Mode NodeClass ``spec`` fields (e.g. ``tags``, ``networkPolicy``), merged under the library's.
    Defaults to none. A key the library sets (:data:`AUTO_NODE_CLASS_OWNED`) is an error naming the key."""
    node_class: NotRequired[str]
    """The NodeClass the NodePool uses (its ``nodeClassRef``) instead of one of the pool's own: ``default``, Auto
    Mode's built-in NodeClass (:data:`SOURCE_AUTO_DEFAULT_NODE_CLASS`; it exists while one of the cluster's
    built-in NodePools is enabled), or the name of a NodeClass managed elsewhere. No NodeClass and no node role are
    created then, and ``subnet_ids`` is not used (the NodeClass has its own), so the pool may set nothing that lives
    in a NodeClass: no ``disk_size_gb``, no reserved capacity, no ``node_class_spec``; and ``node_role_arn`` is
    required (the role of that NodeClass's nodes, reported as the ``node_role_arn`` output). Defaults to a NodeClass
    of the pool's own, named after the pool."""


def owned_key_problems(given: object, owned: Sequence[str], path: str, kind: str) -> list[Problem]:
    """Problems with an escape hatch (``node_pool_spec``/``node_class_spec``): keys the library sets."""
    if not isinstance(given, Mapping):
        return []
    return [
        Problem(
            f"{path}.{key}",
            given[key],
            f"set by gpu_components from the pool on the {kind}",
            f"{kind} spec keys other than {', '.join(owned)}",
            SOURCE_NODEPOOL if kind == "NodePool" else SOURCE_EC2NODECLASS,
        )
        for key in owned
        if key in given
    ]


def _provisioning(spec: GpuNodePoolSpec) -> Provisioning:
    if spec.provisioning is None:
        raise GpuSpecError([Problem("pool.provisioning", None, "required: a provisioned pool's provisioning block")])
    return spec.provisioning


def provisioner_problems(spec: GpuNodePoolSpec, expected: str, path: str) -> list[Problem]:
    """A pool given to a provisioned component must name that component's provisioner."""
    where = f"{path}.provisioning" if path else "provisioning"
    if spec.provisioning is None:
        return [Problem(where, None, f"required by this component: a pool provisioned by {expected}", expected)]
    if spec.provisioning.provisioner != expected:
        return [
            Problem(
                f"{where}.provisioner",
                spec.provisioning.provisioner,
                f"this component realises {expected} pools",
                expected,
            )
        ]
    return []


def karpenter_problems(
    spec: GpuNodePoolSpec, ami_type: str | None, path: str, gpu_stack: GpuStack, ami_type_path: str | None
) -> list[Problem]:
    """Karpenter rules for a validated provisioned pool: the AMI rules of a fixed EKS pool
    (:func:`~gpu_components.aws.eks.ami_problems`); resources Karpenter cannot count
    (:func:`~gpu_components.autoscaler.uncounted_resource_problems`); a ``reservation`` is an EC2 capacity
    reservation id (:data:`RESERVATION_ID`)."""
    problems = karpenter_dra_problems(spec, gpu_stack, path)
    problems += ami_problems(spec, ami_type, path, gpu_stack, ami_type_path) + uncounted_resource_problems(spec, path)
    return problems + reservation_problems(spec, path, "EC2NodeClass's", SOURCE_RESERVATION_ID)


def reservation_problems(spec: GpuNodePoolSpec, path: str, node_class: str, source: str) -> list[Problem]:
    """A ``reservation`` that is not an EC2 capacity reservation id (:data:`RESERVATION_ID`), the only form the
    ``node_class``'s ``capacityReservationSelectorTerms[].id`` takes."""
    reservation = spec.provisioning.reservation if spec.provisioning is not None else None
    if reservation is None or RESERVATION_ID.fullmatch(reservation):
        return []
    return [
        Problem(
            f"{path}.provisioning.reservation" if path else "provisioning.reservation",
            reservation,
            f"not an EC2 capacity reservation id: the {node_class} capacityReservationSelectorTerms[].id takes only "
            "one",
            f"an id matching {RESERVATION_ID.pattern}, e.g. cr-0123456789abcdef0",
            source,
        )
    ]


def auto_node_class_problems(spec: GpuNodePoolSpec, args: Mapping[str, Any], path: str, where: str) -> list[Problem]:
    """Problems of an Auto Mode pool's ``node_class`` (at ``where``, with the pool at ``path`` and the component
    args or pool options ``args``): a NodeClass name (:data:`NODE_CLASS_NAME`); a NodeClass not the pool's own
    takes none of the pool's NodeClass settings (``disk_size_gb`` given, reserved capacity, ``node_class_spec``),
    which would not reach it (:data:`SOURCE_AUTO_DEFAULT_NODE_CLASS`)."""
    name = args.get("node_class")
    if name is None:
        return []
    if not isinstance(name, str) or len(name) > 253 or not NODE_CLASS_NAME.fullmatch(name):
        return [
            Problem(
                where,
                name,
                "not a NodeClass name",
                "default (EKS Auto Mode's built-in NodeClass) or a DNS-1123 subdomain of at most 253 characters",
                SOURCE_AUTO_NODECLASS,
            )
        ]
    prefix = f"{path}." if path else ""
    settings = [f"{prefix}disk_size_gb"] if spec.disk_size_set else []
    if spec.provisioning is not None and spec.provisioning.reservation is not None:
        settings.append(f"{prefix}provisioning.reservation")
    if "node_class_spec" in args:
        settings.append(where.rsplit(".", 1)[0] + ".node_class_spec" if "." in where else "node_class_spec")
    if not settings:
        return []
    return [
        Problem(
            where,
            name,
            f"NodeClass {name} is not the pool's own: its settings are its own, so {', '.join(settings)} (settings the "
            "library writes into the pool's NodeClass) would not reach the nodes",
            "leave node_class out (the pool gets a NodeClass of its own), or drop those settings",
            SOURCE_AUTO_DEFAULT_NODE_CLASS,
        )
    ]


def karpenter_dra_problems(spec: GpuNodePoolSpec, gpu_stack: GpuStack, path: str) -> list[Problem]:
    """A Karpenter pool whose resolved ``gpu_access`` is ``dra``: refused. AWS documents DRA with Karpenter from
    Karpenter 1.15, dynamic provisioning behind Karpenter feature gates (:data:`SOURCE_EKS_DRA`); the library
    deploys Karpenter 1.14.1 (``cluster.karpenter``), which launches nodes for a pod's extended resources and knows
    nothing of its resource claims."""
    if not spec.uses_dra(gpu_stack):
        return []
    return [
        dra_refused(
            spec,
            path,
            f"AWS supports DRA with Karpenter from Karpenter {KARPENTER_DRA_VERSION} (dynamic provisioning behind "
            "its feature gates); the library deploys Karpenter 1.14.1 and follows its CRDs, a version that launches "
            "no nodes for resource claims",
            "gpu_access: device-plugin, or an EKS managed node group (no provisioning) with an AL2023 NVIDIA AMI",
            SOURCE_EKS_DRA,
        )
    ]


def auto_mode_dra_problems(spec: GpuNodePoolSpec, gpu_stack: GpuStack, path: str) -> list[Problem]:
    """An EKS Auto Mode pool whose resolved ``gpu_access`` is ``dra``: refused. AWS documents Auto Mode's own NVIDIA
    DRA driver, built into its node runtime on Kubernetes 1.36 and later (:data:`SOURCE_EKS_DRA`): a DRA driver the
    cloud runs, which the library's ownership rule does not model yet (its ``dra-driver`` pools get NVIDIA's chart,
    which must not run beside AWS's)."""
    if not spec.uses_dra(gpu_stack):
        return []
    return [
        dra_refused(
            spec,
            path,
            "EKS Auto Mode runs its own NVIDIA DRA driver in the node runtime (Kubernetes 1.36 and later) and keeps "
            "any other GPU publisher off its nodes; the library does not manage Auto Mode's DRA driver yet, and its "
            "own DRA driver chart may not run there",
            "gpu_access: device-plugin (AWS's device plugin), or an EKS managed node group (no provisioning) with an "
            "AL2023 NVIDIA AMI",
            SOURCE_EKS_DRA,
        )
    ]


def auto_mode_problems(spec: GpuNodePoolSpec, path: str, gpu_stack: GpuStack = "auto") -> list[Problem]:
    """EKS Auto Mode rules: no DRA (:func:`auto_mode_dra_problems`), no time-slicing, MPS or MIG (AWS's own device
    plugin serves the nodes and no NodeClass field configures it), a ``reservation`` is an EC2 capacity reservation
    id (the NodeClass's ``capacityReservationSelectorTerms``, :data:`SOURCE_AUTO_RESERVATIONS`), ``expire_after`` at
    most 21 days (504h)."""
    prefix = f"{path}." if path else ""
    provisioning = spec.provisioning
    problems: list[Problem] = auto_mode_dra_problems(spec, gpu_stack, path)
    why = (
        "EKS Auto Mode nodes run AWS's own NVIDIA device plugin, which no NodeClass or NodePool field configures, and "
        "Auto Mode keeps any second device plugin off them"
    )
    if spec.sharing is not None:
        strategy = "mps" if isinstance(spec.sharing, Mps) else "time_slicing"
        problems.append(
            Problem(f"{prefix}{strategy}", spec.sharing.replicas, why, "exclusive GPUs", SOURCE_AUTO_ACCELERATED)
        )
    if spec.mig is not None:
        problems.append(Problem(f"{prefix}mig", spec.mig.config_name, why, "whole GPUs", SOURCE_AUTO_ACCELERATED))
    if provisioning is None:
        return problems
    problems += reservation_problems(spec, path, "NodeClass's", SOURCE_AUTO_RESERVATIONS)
    expire = provisioning.disruption.expire_after
    if expire is not None and (expire == "Never" or _hours(expire) > AUTO_MODE_MAX_EXPIRE_HOURS):
        problems.append(
            Problem(
                f"{prefix}provisioning.disruption.expire_after",
                expire,
                f"EKS Auto Mode replaces every node after at most 21 days ({AUTO_MODE_MAX_EXPIRE_HOURS}h)",
                f"a duration up to {AUTO_MODE_MAX_EXPIRE_HOURS}h",
                SOURCE_AUTO_NODEPOOL,
            )
        )
    return problems


def _hours(duration: str) -> float:
    """A Karpenter duration (:data:`~gpu_components.spec.DURATION`, already checked) in hours."""
    assert DURATION.fullmatch(duration)
    total = 0.0
    number = ""
    for char in duration:
        if char.isdigit():
            number += char
        else:
            total += int(number) / {"s": 3600, "m": 60, "h": 1}[char]
            number = ""
    return total


def ami_alias(ami_type: str) -> str:
    """The ``amiSelectorTerms`` alias of an NVIDIA EKS AMI type (:data:`AMI_ALIASES`)."""
    return AMI_ALIASES[ami_type.split("_", 1)[0]]


def provisioned_labels(spec: GpuNodePoolSpec, host: DevicePluginHost, gpu_stack: GpuStack) -> dict[str, str]:
    """A fixed EKS pool's node labels (:func:`~gpu_components.aws.eks.node_labels`) without the Cluster Autoscaler's
    :data:`~gpu_components.aws.eks.AUTOSCALER_GPU_LABEL`."""
    return {k: v for k, v in node_labels(spec, host, gpu_stack).items() if k != AUTOSCALER_GPU_LABEL}


KARPENTER_LATE_MIG_NOTE = (
    "MIG partitions are made by the GPU Operator's MIG manager after a node joins; until then the node advertises "
    "whole GPUs"
)
"""The note for Karpenter pools partitioned by NVIDIA's MIG manager."""


def karpenter_note(spec: GpuNodePoolSpec, host: DevicePluginHost) -> str | None:
    """What Karpenter cannot count when it picks nodes for pending pods
    (:func:`~gpu_components.autoscaler.provisioner_note`: it takes ``nvidia.com/gpu`` from the instance type's GPU
    count, not from time-slicing/MPS replicas or MIG devices; its alpha ``NodeOverlay`` could tell it,
    :data:`SOURCE_NODE_OVERLAY`, which the library does not render), and that MIG made by the GPU Operator's MIG
    manager appears only after the node joins; or ``None``."""
    late_mig = KARPENTER_LATE_MIG_NOTE if host == "gpu-operator" and spec.mig is not None else None
    return joined(provisioner_note(spec, host), late_mig)


def karpenter_pool_view(spec: GpuNodePoolSpec, ami_type: str | None, gpu_stack: GpuStack) -> PoolView:
    """What an :class:`EksKarpenterGpuNodePool` exposes: who advertises GPUs as on a fixed EKS pool of the AMI
    (:func:`~gpu_components.aws.eks.device_plugin_host`), its labels (:func:`provisioned_labels`), the spec's
    taints, the pool label as node selector; ``driver_setting`` is the AMI type."""
    chosen = ami_type_for(spec, ami_type)
    host = device_plugin_host(chosen, gpu_stack)
    return _view(spec, host, gpu_stack, karpenter_note(spec, host), chosen)


def auto_mode_pool_view(spec: GpuNodePoolSpec, gpu_stack: GpuStack) -> PoolView:
    """What an :class:`EksAutoModeGpuNodePool` exposes: GPUs advertised by AWS (``cloud``); ``driver_setting``
    ``eks-auto-mode``."""
    return _view(spec, "cloud", gpu_stack, None, "eks-auto-mode")


def _view(
    spec: GpuNodePoolSpec, host: DevicePluginHost, gpu_stack: GpuStack, note: str | None, setting: str
) -> PoolView:
    return PoolView(
        spec=spec,
        device_plugin_host=host,
        labels=provisioned_labels(spec, host, gpu_stack),
        taints=spec.taints,
        advertised_resources=advertised_resources(spec),
        node_selector={POOL_LABEL: spec.name},
        autoscaler_note=note,
        tolerations=tolerations(spec.taints),
        driver_setting=setting,
    )


def requirements(spec: GpuNodePoolSpec) -> list[dict[str, Any]]:
    """The NodePool's ``template.spec.requirements``: every allowed instance type
    (``node.kubernetes.io/instance-type`` In ``provisioning.allowed_types``), the pool's GPU requirements
    (``provisioning.gpu_requirements``, on Karpenter's ``karpenter.k8s.aws/instance-gpu-*`` or Auto Mode's
    ``eks.amazonaws.com/instance-gpu-*`` labels, as given), the capacity types (``karpenter.sh/capacity-type``), the
    CPU architecture (``kubernetes.io/arch``).

    Instance families always expand to the catalog's types of those families, never to the provisioner's family
    label: ``karpenter.k8s.aws/instance-family In [p5]`` would also admit EC2 types the catalog does not list (such
    as a smaller p5 size with another GPU count), which the limits check, the one-GPU-model rule and the capacity
    report never saw."""
    provisioning = _provisioning(spec)
    return [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(provisioning.allowed_types)},
        *(requirement.to_node_selector() for requirement in provisioning.gpu_requirements),
        {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": list(provisioning.capacity_types)},
        {"key": ARCH_LABEL, "operator": "In", "values": [ARCHITECTURES[spec.cpu_architecture]]},
    ]


def node_pool_spec(spec: GpuNodePoolSpec, labels: Mapping[str, str], node_class: Mapping[str, str]) -> dict[str, Any]:
    """The NodePool ``spec`` the library owns: ``template`` (labels, taints, requirements, ``nodeClassRef``, and
    :func:`~gpu_components.nodepool.template_disruption`: ``startupTaints``, ``expireAfter``,
    ``terminationGracePeriod`` when given), ``limits`` (``nvidia.com/gpu``, ``nodes`` when given), ``disruption``
    (:func:`~gpu_components.nodepool.disruption`)."""
    provisioning = _provisioning(spec)
    template_spec: dict[str, Any] = {"nodeClassRef": dict(node_class), "requirements": requirements(spec)}
    if spec.taints:
        template_spec["taints"] = taint_items(spec.taints)
    template_spec.update(template_disruption(provisioning))
    limits: dict[str, int] = {}
    if provisioning.max_gpus is not None:
        limits[GPU_RESOURCE] = provisioning.max_gpus
    if provisioning.max_nodes is not None:
        limits["nodes"] = provisioning.max_nodes
    return {
        "template": {"metadata": {"labels": dict(labels)}, "spec": template_spec},
        "limits": limits,
        "disruption": disruption(provisioning),
    }


def block_device_mappings(spec: GpuNodePoolSpec, host: DevicePluginHost) -> list[dict[str, Any]]:
    """EC2NodeClass ``blockDeviceMappings``: AL2023: the root volume sized ``disk_size_gb``; Bottlerocket: its 4Gi OS
    volume and the data volume (:data:`~gpu_components.aws.bottlerocket.DATA_VOLUME_DEVICE`) sized ``disk_size_gb``.
    gp3, encrypted (Karpenter's defaults, which a mapping replaces)."""

    def volume(device: str, gib: int) -> dict[str, Any]:
        return {"deviceName": device, "ebs": {"volumeSize": f"{gib}Gi", "volumeType": "gp3", "encrypted": True}}

    if host == "node-image":
        return [
            volume(ROOT_DEVICE, BOTTLEROCKET_OS_VOLUME_GIB),
            volume(bottlerocket.DATA_VOLUME_DEVICE, spec.disk_size_gb),
        ]
    return [volume(ROOT_DEVICE, spec.disk_size_gb)]


def _selectors(
    cluster_name: pulumi.Input[str], subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
) -> dict[str, Any]:
    return {
        "subnetSelectorTerms": pulumi.Output.from_input(subnet_ids).apply(lambda ids: [{"id": i} for i in ids]),
        "securityGroupSelectorTerms": [{"tags": {CLUSTER_NAME_TAG: cluster_name}}],
    }


def ec2_node_class_spec(
    spec: GpuNodePoolSpec, ami_type: str, host: DevicePluginHost, role: pulumi.Input[str]
) -> dict[str, Any]:
    """The EC2NodeClass ``spec`` fields derived from the pool (cluster selectors excluded): ``role``,
    ``amiSelectorTerms``, ``blockDeviceMappings``, ``userData`` (Bottlerocket), ``capacityReservationSelectorTerms``
    (reserved capacity)."""
    result: dict[str, Any] = {
        "role": role,
        "amiSelectorTerms": [{"alias": ami_alias(ami_type)}],
        "blockDeviceMappings": block_device_mappings(spec, host),
    }
    if host == "node-image":
        result["userData"] = bottlerocket.user_data(spec)
    provisioning = _provisioning(spec)
    if provisioning.reservation is not None:
        result["capacityReservationSelectorTerms"] = [{"id": provisioning.reservation}]
    return result


def _role_name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


class _ProvisionedPool(pulumi.ComponentResource):
    """What both provisioned pools share: the pool view, the node role, the two custom resources. Each component
    declares its outputs itself (Pulumi's schema analyzer reads a class's own annotations and docstrings)."""

    def _setup(self, spec: GpuNodePoolSpec, view: PoolView, gpu_stack: GpuStack) -> None:
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        self.node_pool_name = spec.name
        self.gpu_stack: GpuStack = gpu_stack
        adopt_view(cast(GpuNodePool, self), view)

    def _role(
        self, name: str, args: Mapping[str, Any], access: str
    ) -> tuple[pulumi.Output[str], list[pulumi.Resource]]:
        """The node role's name and what the NodeClass must wait for. Without ``node_role_arn``: a new role and its
        EKS access entry of type ``access`` (``EC2_LINUX`` for Karpenter, ``EC2`` with the Auto Mode node policy):
        :data:`SOURCE_ACCESS_ENTRIES`."""
        child = pulumi.ResourceOptions(parent=self)
        given = args.get("node_role_arn")
        if given is not None:
            self.node_role_arn = pulumi.Output.from_input(given)
            return self.node_role_arn.apply(_role_name), []
        role, depends = create_node_role(f"{name}-node-role", child)
        entry = aws.eks.AccessEntry(
            f"{name}-access-entry", cluster_name=args["cluster_name"], principal_arn=role.arn, type=access, opts=child
        )
        depends.append(entry)
        if access == "EC2":
            depends.append(
                aws.eks.AccessPolicyAssociation(
                    f"{name}-access-policy",
                    cluster_name=args["cluster_name"],
                    principal_arn=role.arn,
                    policy_arn=AUTO_MODE_NODE_POLICY,
                    access_scope={"type": "cluster"},
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[entry]),
                )
            )
        self.node_role_arn = role.arn
        return role.name, depends

    def _custom_resources(
        self,
        name: str,
        node_class: tuple[str, str, dict[str, Any]] | None,
        pool_spec: dict[str, Any],
        depends: list[pulumi.Resource],
    ) -> None:
        """The NodePool, after its NodeClass (``node_class``: API version, kind, spec; ``None`` when the pool uses a
        NodeClass it does not own, and ``self.node_class`` is ``None``)."""
        self.node_class: k8s.apiextensions.CustomResource | None = None
        if node_class is not None:
            api_version, kind, class_spec = node_class
            self.node_class = k8s.apiextensions.CustomResource(
                f"{name}-node-class",
                api_version=api_version,
                kind=kind,
                metadata={"name": self.spec.name},
                spec=class_spec,
                opts=pulumi.ResourceOptions(parent=self, depends_on=depends),
            )
        self.node_pool = k8s.apiextensions.CustomResource(
            f"{name}-node-pool",
            api_version=NODEPOOL_API,
            kind="NodePool",
            metadata={"name": self.spec.name},
            spec=pool_spec,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.node_class] if self.node_class else []),
        )
        self.register_outputs(
            {
                "nodePoolName": self.node_pool_name,
                "nodeRoleArn": self.node_role_arn,
                **pool_outputs(cast(GpuNodePool, self)),
            }
        )


class EksKarpenterGpuNodePool(_ProvisionedPool):
    """A Karpenter-provisioned pool of NVIDIA GPU nodes on EKS: a ``karpenter.sh/v1`` NodePool and a
    ``karpenter.k8s.aws/v1`` EC2NodeClass, both named after the pool (Karpenter itself must run in the cluster).

    Children: ``<name>-node-role`` and its policy attachments and ``<name>-access-entry`` (type ``EC2_LINUX``) when no
    role is given, ``<name>-node-class`` (EC2NodeClass), ``<name>-node-pool`` (NodePool). Providers: ``aws``,
    ``kubernetes``. Who advertises GPUs: as a fixed EKS pool of the same AMI (AL2023: the device plugin DaemonSet or
    the GPU Operator; Bottlerocket: its host plugin, configured in the EC2NodeClass ``userData``).

    Outputs: ``node_pool_name``, ``node_role_arn`` and the common pool outputs (``pool_name``, ``labels``, ``taints``,
    ``tolerations``, ``node_selector``, ``advertised_resources``, ``dra_devices``, ``device_plugin_host``,
    ``autoscaler_note``). Other attributes: ``spec``, ``ami_type``, ``gpu_stack``, ``node_pool``, ``node_class``,
    ``served_by``.

    Raises:
        GpuSpecError: invalid pool, a pool not provisioned by ``karpenter``, a non-NVIDIA or wrong-architecture AMI
            type, sharing or MIG the image (or stack) cannot do, keys the library owns in ``node_pool_spec`` or
            ``node_class_spec``.
    """

    node_pool_name: str
    """Name of the NodePool (and of its NodeClass): the pool's name."""
    node_role_arn: pulumi.Output[str]
    """ARN of the nodes' IAM role: the one given, or the role the component created."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the NodePool's template puts on the nodes: the user's, ``gpu-components/pool``, and the
    labels that select the device plugin's or GPU Operator's config (or keep the operator's operands off)."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling), the default GPU taint first when on."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>``."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node advertises."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``daemonset``, ``gpu-operator``, ``node-image`` (Bottlerocket) or ``cloud``
    (EKS Auto Mode)."""
    autoscaler_note: str | None
    """What the provisioner cannot count when it scales the pool (shared or MIG resources), or null."""

    def __init__(
        self, name: str, args: EksKarpenterGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = plain(args)
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto")) if isinstance(args, Mapping) else "auto"
        spec = collected(
            lambda: validated_pool(
                EksKarpenterGpuNodePoolArgs,
                args,
                "aws",
                lambda spec: provisioner_problems(spec, "karpenter", "pool")
                or karpenter_problems(spec, args.get("ami_type"), "pool", gpu_stack, "ami_type"),
            ),
            hatch_problems(args, EC2_NODE_CLASS_OWNED, "EC2NodeClass") + _role_arn_problems(args),
        )
        super().__init__("gpu-components:index:EksKarpenterGpuNodePool", name, None, opts)
        view = karpenter_pool_view(spec, args.get("ami_type"), gpu_stack)
        self._setup(spec, view, gpu_stack)
        self.ami_type: str = view.driver_setting
        role, depends = self._role(name, args, "EC2_LINUX")
        class_spec = {
            **args.get("node_class_spec", {}),
            **_selectors(args["cluster_name"], args["subnet_ids"]),
            **ec2_node_class_spec(spec, self.ami_type, self.device_plugin_host, role),
        }
        ref = {"group": KARPENTER_GROUP, "kind": "EC2NodeClass", "name": spec.name}
        pool_spec = {**args.get("node_pool_spec", {}), **node_pool_spec(spec, self.labels, ref)}
        self._custom_resources(name, (f"{KARPENTER_GROUP}/v1", "EC2NodeClass", class_spec), pool_spec, depends)


class EksAutoModeGpuNodePool(_ProvisionedPool):
    """An EKS Auto Mode pool of NVIDIA GPU nodes: a ``karpenter.sh/v1`` NodePool and an ``eks.amazonaws.com/v1``
    NodeClass, both named after the pool (the cluster must have Auto Mode compute on).

    AWS runs the driver and device plugin on the nodes (``device_plugin_host`` ``cloud``): no DaemonSet or GPU
    Operator operand is deployed there (under the GPU Operator the nodes carry ``nvidia.com/gpu.deploy.operands=
    false``), and time-slicing, MPS and MIG are refused (:data:`SOURCE_AUTO_ACCELERATED`). Nodes live at most 21 days.

    Children: ``<name>-node-role`` and its policy attachments, ``<name>-access-entry`` (type ``EC2``) and
    ``<name>-access-policy`` (``AmazonEKSAutoNodePolicy``) when no role is given, ``<name>-node-class``,
    ``<name>-node-pool``. Providers: ``aws``, ``kubernetes``.

    Outputs: as :class:`EksKarpenterGpuNodePool`. Other attributes: ``spec``, ``gpu_stack``, ``node_pool``,
    ``node_class`` (``None`` with ``node_class``: no NodeClass is created), ``served_by``.

    Raises:
        GpuSpecError: invalid pool, a pool not provisioned by ``eks-auto-mode``, sharing or MIG, a reservation that
            is not a capacity reservation id, ``expire_after`` above 504h, keys the library owns in
            ``node_pool_spec`` or ``node_class_spec``, a ``node_class`` with NodeClass settings of the pool or without
            ``node_role_arn``.

    Reserved capacity (``provisioning.capacity_types`` ``reserved`` with ``reservation``) goes into the NodeClass's
    ``capacityReservationSelectorTerms``, with a warning: once any NodeClass of the cluster selects reservations,
    Auto Mode stops launching into open ODCRs for every NodeClass (:data:`SOURCE_AUTO_RESERVATIONS`).
    """

    node_pool_name: str
    """Name of the NodePool (and of its NodeClass): the pool's name."""
    node_role_arn: pulumi.Output[str]
    """ARN of the nodes' IAM role: the one given, or the role the component created."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the NodePool's template puts on the nodes: the user's, ``gpu-components/pool``, and the
    labels that select the device plugin's or GPU Operator's config (or keep the operator's operands off)."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling), the default GPU taint first when on."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>``."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node advertises."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``daemonset``, ``gpu-operator``, ``node-image`` (Bottlerocket) or ``cloud``
    (EKS Auto Mode)."""
    autoscaler_note: str | None
    """What the provisioner cannot count when it scales the pool (shared or MIG resources), or null."""

    def __init__(self, name: str, args: EksAutoModeGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto")) if isinstance(args, Mapping) else "auto"
        spec = collected(
            lambda: validated_pool(
                EksAutoModeGpuNodePoolArgs,
                args,
                "aws",
                lambda spec: provisioner_problems(spec, "eks-auto-mode", "pool")
                or auto_mode_problems(spec, "pool", gpu_stack)
                + auto_node_class_problems(spec, args, "pool", "node_class")
                + _shared_role_problems(args),
            ),
            hatch_problems(args, AUTO_NODE_CLASS_OWNED, "NodeClass") + _role_arn_problems(args),
        )
        super().__init__("gpu-components:index:EksAutoModeGpuNodePool", name, None, opts)
        self._setup(spec, auto_mode_pool_view(spec, gpu_stack), gpu_stack)
        if spec.provisioning is not None and spec.provisioning.reservation is not None:
            pulumi.log.warn(AUTO_MODE_RESERVATION_WARNING, resource=self)
        shared = args.get("node_class")
        ref = {"group": AUTO_MODE_GROUP, "kind": "NodeClass", "name": shared or spec.name}
        pool_spec = {**args.get("node_pool_spec", {}), **node_pool_spec(spec, self.labels, ref)}
        if shared is not None:
            self.node_role_arn = pulumi.Output.from_input(args["node_role_arn"])
            self._custom_resources(name, None, pool_spec, [])
            return
        role, depends = self._role(name, args, "EC2")
        class_spec = {
            **args.get("node_class_spec", {}),
            **_selectors(args["cluster_name"], args["subnet_ids"]),
            **auto_node_class_spec(spec, role),
        }
        self._custom_resources(name, (f"{AUTO_MODE_GROUP}/v1", "NodeClass", class_spec), pool_spec, depends)


def _role_arn_problems(args: object) -> list[Problem]:
    """A plain ``node_role_arn`` that is not an IAM role's ARN (:data:`~gpu_components.aws.facts.ROLE_ARN_FORM`)."""
    return ROLE_ARN_FORM.problems(args.get("node_role_arn") if isinstance(args, Mapping) else None, "node_role_arn")


def _shared_role_problems(args: Mapping[str, Any], path: str = "node_role_arn") -> list[Problem]:
    """``node_role_arn`` (at ``path``) is required with ``node_class``: the component creates no role for a NodeClass
    it does not own, and reports the given one as its ``node_role_arn`` output."""
    if "node_class" not in args or "node_role_arn" in args:
        return []
    return [
        Problem(
            path,
            None,
            f"required with node_class {args['node_class']!r}: no role is created for a NodeClass the pool does not "
            "own; give the role that NodeClass's nodes use (for default, the cluster's Auto Mode node role, "
            "compute_config.node_role_arn), reported as the node_role_arn output",
            "the node role's ARN",
            SOURCE_AUTO_DEFAULT_NODE_CLASS,
        )
    ]


def wiring_problems(wiring: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """A ``GpuCluster``'s EKS wiring and its pools: an Auto Mode pool's ``aws.node_class`` needs the wiring's
    ``node_role_arn`` (:func:`_shared_role_problems`), reported at ``aws.node_role_arn``; a Karpenter pool needs
    ``aws.karpenter_controller: true`` (:func:`karpenter_controller_problems`); a plain ``aws.node_role_arn`` must be
    an IAM role's ARN (:data:`~gpu_components.aws.facts.ROLE_ARN_FORM`); a plain ``aws.subnet_ids`` not empty
    (:func:`~gpu_components.aws.eks.subnet_ids_problems`)."""
    return (
        ROLE_ARN_FORM.problems(wiring.get("node_role_arn"), "aws.node_role_arn")
        + subnet_ids_problems(wiring.get("subnet_ids"), "aws.subnet_ids")
        + [
            problem
            for pool in pools
            if isinstance(pool, Mapping) and isinstance(pool.get("aws"), Mapping)
            for problem in _shared_role_problems({**wiring, **pool["aws"]}, "aws.node_role_arn")
        ][:1]
        + karpenter_controller_problems(wiring, pools)
    )


def karpenter_controller_problems(wiring: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Karpenter pools on a cluster whose wiring does not say it runs the Karpenter controller
    (``aws.karpenter_controller``): ``GpuCluster`` does not install the controller, and without it the pools'
    NodePools and EC2NodeClasses would be custom resources nothing reads (or whose CRDs the cluster lacks), so no pool
    would ever get a node; or whose wiring gives no ``aws.node_role_arn``: the controller may pass only its own node
    role to EC2 (:func:`~gpu_components.aws.karpenter_controller.controller_policy`), so the pools' nodes must use it.
    One problem, naming the first such pool."""
    karpenter_pools = [
        (index, pool.get("name"))
        for index, pool in enumerate(pools)
        if isinstance(pool, Mapping)
        and isinstance(pool.get("provisioning"), Mapping)
        and value_of(pool["provisioning"].get("provisioner")) == "karpenter"
    ]
    if not karpenter_pools:
        return []
    index, pool_name = karpenter_pools[0]
    if wiring.get("karpenter_controller") is True:
        if "node_role_arn" in wiring:
            return []
        return [
            Problem(
                "aws.node_role_arn",
                None,
                f"pools[{index}] ({pool_name}) is a Karpenter pool: its nodes must use the Karpenter controller's "
                "node role, the one role the controller's policy lets it pass to EC2 (iam:PassRole); a role made "
                "for the pool would never launch a node",
                "the ARN of the controller's node role (KarpenterController's node_role_arn output)",
                SOURCE_KARPENTER_GETTING_STARTED,
            )
        ]
    return [
        Problem(
            "aws.karpenter_controller",
            wiring.get("karpenter_controller"),
            f"pools[{index}] ({pool_name}) is a Karpenter pool, whose NodePool and EC2NodeClass only a running "
            "Karpenter controller reads, and GpuCluster does not install one",
            "true once the cluster runs Karpenter 1.0 or later (a KarpenterController, with its node_role_arn as "
            "aws.node_role_arn), or no Karpenter pool",
            SOURCE_KARPENTER_GETTING_STARTED,
        )
    ]


def auto_node_class_spec(spec: GpuNodePoolSpec, role: pulumi.Input[str]) -> dict[str, Any]:
    """The Auto Mode NodeClass ``spec`` fields derived from the pool (cluster selectors excluded): ``role``,
    ``ephemeralStorage`` (``disk_size_gb``), ``capacityReservationSelectorTerms`` (reserved capacity,
    :data:`SOURCE_AUTO_RESERVATIONS`)."""
    result: dict[str, Any] = {"role": role, "ephemeralStorage": {"size": f"{spec.disk_size_gb}Gi"}}
    provisioning = _provisioning(spec)
    if provisioning.reservation is not None:
        result["capacityReservationSelectorTerms"] = [{"id": provisioning.reservation}]
    return result


def hatch_problems(args: object, class_owned: Sequence[str], class_kind: str, path: str = "") -> list[Problem]:
    """Problems with the escape hatches ``node_pool_spec`` and ``node_class_spec`` of ``args`` (a component's args or
    a pool's ``aws`` block at ``path``): keys the library sets (:data:`NODE_POOL_OWNED`, ``class_owned``), and
    other keys at a path the kind's CRD does not have (:func:`~gpu_components.crd_fields.unknown_field_problems`;
    not for the Auto Mode ``NodeClass``, whose only schema copy lacks fields AWS added since)."""
    if not isinstance(args, Mapping):
        return []
    prefix = f"{path}." if path else ""
    problems = owned_key_problems(args.get("node_pool_spec"), NODE_POOL_OWNED, f"{prefix}node_pool_spec", "NodePool")
    problems += _unowned_field_problems(
        args.get("node_pool_spec"), NODE_POOL_OWNED, "NodePool", f"{prefix}node_pool_spec"
    )
    class_spec = args.get("node_class_spec")
    problems += owned_key_problems(class_spec, class_owned, f"{prefix}node_class_spec", class_kind)
    if class_kind in crd_fields.CRDS:
        problems += _unowned_field_problems(class_spec, class_owned, class_kind, f"{prefix}node_class_spec")
    return problems


def _unowned_field_problems(given: object, owned: Sequence[str], kind: str, path: str) -> list[Problem]:
    """:func:`~gpu_components.crd_fields.unknown_field_problems` of the keys of ``given`` the library does not set
    (those are refused as such)."""
    if not isinstance(given, Mapping):
        return []
    return crd_fields.unknown_field_problems(
        {k: v for k, v in given.items() if k not in owned}, kind, path, tuple(owned)
    )
