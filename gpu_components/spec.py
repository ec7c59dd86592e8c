"""The cloud-neutral GPU node pool: input shapes, validated spec objects, and every GPU rule.

Callers describe a pool as a :class:`GpuNodePoolArgs` dictionary (the same shape as a pool in a stack's config)
and turn it into a validated, immutable :class:`GpuNodePoolSpec` with :meth:`GpuNodePoolSpec.from_args`. All
problems of the input are collected and raised at once as :class:`~gpu_components.errors.GpuSpecError`, so no
resource is registered for an invalid pool.

Terms are Kubernetes' and NVIDIA's (``NoSchedule``, MIG profile ``1g.10gb``, MIG strategy ``single``/``mixed``);
the clouds' own spellings live only in the cloud adapters.
"""

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, cast

from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
from gpu_components.catalog import Cloud, CpuArchitecture, GpuModel
from gpu_components.cloud_facts import CLOUDS, FractionalGpuTypes, ProvisionerFacts, all_cloud_facts, facts_for
from gpu_components.enums import (
    CapacityTypeArg,
    CapacityTypeName,
    ConsolidationArg,
    ConsolidationName,
    CpuArchitectureArg,
    DisruptionReasonArg,
    DisruptionReasonName,
    GpuAccessArg,
    GpuAccessName,
    MigConfigArg,
    MigStrategyArg,
    MigStrategyName,
    ProvisionerArg,
    ProvisionerName,
    RequirementOperatorArg,
    RequirementOperatorName,
    TaintEffectArg,
    TaintEffectName,
    value_of,
)
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.labels import (
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    OPERAND_LABEL_PREFIX,
    POST_BOOT_LABEL_PREFIXES,
    RESERVED_LABEL_PREFIXES,
    RESERVED_LABELS,
    RESERVED_LIBRARY_LABEL_PREFIXES,
    SHARING_TRUST_KEY,
    SHARING_TRUSTED,
    SOURCE_LABELS,
    SOURCE_POST_BOOT_LABELS,
    SOURCE_TAINTS,
)
from gpu_components.mig import MIG_PROFILE_FORMAT, mig_config_name, mig_profile_spelling, parse_mig_profile_name
from gpu_components.shape import STRICT, did_you_mean, plain, shape_problems

TaintEffect = TaintEffectName
"""A taint effect's value, as the library's code is typed (the schema's enum:
:class:`gpu_components.enums.TaintEffect`)."""
MigStrategy = MigStrategyName
"""A MIG strategy's value, as the library's code is typed (the schema's enum:
:class:`gpu_components.enums.MigStrategy`)."""

if TYPE_CHECKING:
    _TaintEffectField = TaintEffect
else:  # what Pulumi's analyzer reads of a Taint output: the schema's enum (the value is always a plain string)
    from gpu_components.enums import TaintEffect as _TaintEffectField

SOURCE_SHARING = "https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#shared-access-to-gpus"
SOURCE_MPS_CLIENTS = "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/cmd/mps-control-daemon/mps/device.go"
SOURCE_MIG = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/#supported-mig-profiles"
SOURCE_MIG_MEDIA = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
"""NVIDIA MIG User Guide, "Supported MIG Profiles": each GPU's media engines (NVDEC, NVENC, JPEG, OFA) per profile.
Every table gives the whole GPU one OFA and each ``+me`` / ``+me.all`` profile that OFA; ``+me.all`` "allocates all
available media engines to this instance", and on the RTX PRO 6000 (the GPU with ``+me.all``) every other profile
but ``-me`` holds an NVDEC, NVENC and JPEG of its own."""
SOURCE_MIG_STRATEGY = "https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html#mig-strategies"
NUMERIC_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
"""Requirement operators that compare a label's value as an integer (the NodePool CRD: a single value, an integer
>= 0)."""

RESERVED_POOL_NAMES = frozenset({"default"})
"""Pool names the library uses itself: ``default`` names the device plugin's default config entry."""

MIN_SHARING_REPLICAS = 2
"""Fewest replicas the NVIDIA device plugin accepts for time-slicing and MPS ("number of replicas must be >= 2")."""
MPS_MAX_CLIENTS = 48
"""Most MPS replicas per GPU the device plugin's MPS daemon accepts at compute capability >= 7.5."""
MPS_MAX_CLIENTS_BELOW_7_5 = 16
"""Most MPS replicas per GPU the device plugin's MPS daemon accepts below compute capability 7.5."""

SOURCE_DISK_SIZE = (
    "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html (diskSize: 20 GiB by default); "
    "https://aws-ia.github.io/terraform-aws-eks-blueprints/patterns/machine-learning/ml-container-cache/ "
    "(nvcr.io/nvidia/pytorch:24.08-py3: 9.5 GB compressed, 20.4 GB on disk); "
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig (diskSizeGb: 100 GB by default); "
    "https://docs.aws.amazon.com/ebs/latest/userguide/volume_constraints.html (MBR boot volumes: at most 2 TiB)"
)
DEFAULT_DISK_SIZE_GB = 100
"""Disk of each node (GiB) when a pool gives none. EKS node groups default to 20 GiB, less than one unpacked NVIDIA
framework image (NGC PyTorch 24.08: 9.5 GB of compressed layers, 20.4 GB on disk, so about 30 GB while it is
pulled); 100 GiB holds that pull plus two more such images below the kubelet's default image garbage-collection
threshold (85 % of the disk), and is GKE's own default node disk, so GKE pools get what GKE would give them.
Sources: :data:`SOURCE_DISK_SIZE`."""
MIN_DISK_SIZE_GB = 20
"""Smallest node disk a pool may ask for (GiB): EKS's own default, so a pool created before ``disk_size_gb`` existed
can keep its disk by stating it (Amazon EKS CreateNodegroup API, ``diskSize``)."""
MAX_DISK_SIZE_GB = 2048
"""Largest node disk a pool may ask for (GiB): 2 TiB, the most a boot volume partitioned with MBR can use (Amazon EBS
volume constraints); model weights and datasets that need more belong on volumes of their own."""

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
"""A DNS-1123 label: what Kubernetes object names (and namespaces) built from a pool name must be."""
MAX_POOL_NAME_LENGTH = 50
"""Longest pool name: 63 (DNS-1123 label) less the longest suffix the library appends (``-vectoradd``, and room)."""
SOURCE_NAMES = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names"
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


# ---------------------------------------------------------------------------------------------------------------
# Input shapes (plain dictionaries: stack config and component args)
# ---------------------------------------------------------------------------------------------------------------


@STRICT
class TaintArgs(TypedDict):
    """A node taint, in Kubernetes spelling."""

    key: str
    """The taint's key, a qualified name (``[DNS subdomain prefix/]name``), e.g. ``dedicated``."""
    value: NotRequired[str]
    """The taint's value, a label value (at most 63 characters); may be omitted."""
    effect: TaintEffectArg
    """What the taint does to pods that do not tolerate it: ``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``."""


@STRICT
class TimeSlicingArgs(TypedDict):
    """CUDA time-slicing: each GPU (or MIG device) is advertised ``replicas`` times; no memory isolation."""

    replicas: int
    """How many times each GPU (or MIG device) is advertised: at least 2 (the device plugin's minimum)."""
    rename_by_default: NotRequired[bool]
    """Advertise ``<resource>.shared`` instead of the plain resource name. Defaults to false."""
    fail_requests_greater_than_one: NotRequired[bool]
    """Reject containers that ask for more than one replica. Defaults to false (the device plugin's default for
    time-slicing)."""
    trusted: NotRequired[bool]
    """The workloads sharing the GPUs trust each other (they can read each other's GPU memory): marks the pool
    ``gpu-components/sharing: trusted`` for the policy rule ``gpu-shared-pool-trust``. Defaults to false, so the
    rule flags the pool until someone says so."""


@STRICT
class MpsArgs(TypedDict):
    """CUDA MPS: each GPU is split into ``replicas`` MPS clients sharing its memory (no fault isolation)."""

    replicas: int
    """MPS clients per GPU: at least 2 and at most the GPU's MPS client limit (48 at compute capability >= 7.5, else
    16; the device plugin's MPS control daemon)."""
    trusted: NotRequired[bool]
    """The MPS clients' workloads trust each other, as for time-slicing (``TimeSlicingArgs.trusted``). Defaults to
    false."""


@STRICT
class MigArgs(TypedDict):
    """Multi-Instance GPU partitioning of every GPU of the pool: one of ``profile``, ``layout`` or ``config``."""

    profile: NotRequired[str]
    """A uniform layout: one MIG profile (e.g. ``1g.10gb``), each GPU filled with the profile's maximum number of
    instances. Must be a profile of the pool's GPU (NVIDIA MIG user guide, supported profiles)."""
    layout: NotRequired[dict[str, int]]
    """A mixed layout: MIG profile -> instance count per GPU, e.g. ``{"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}``;
    the instances must fit one GPU, and several profiles need the ``mixed`` strategy. A layout of one profile at
    its most instances per GPU (``{"1g.10gb": 7}`` on an 80 GB A100) is that profile's uniform layout, which AKS
    and GKE can make as ``profile`` would."""
    config: NotRequired[MigConfigArg]
    """NVIDIA's named mixed layout ``all-balanced``: the layout NVIDIA's GPU Operator default mig-parted config gives
    the pool's GPU (``1g.10gb`` x 2, ``2g.20gb``, ``3g.40gb`` on an 80 GB A100 or H100), needing the ``mixed``
    strategy; also the config's name in the MIG manager's config and its ``nvidia.com/mig.config`` label. Not on
    AKS agent pools or GKE-made partitions, which take one profile per GPU."""
    strategy: NotRequired[MigStrategyArg]
    """How the MIG devices are advertised: ``single`` (all MIG devices of a node alike, as ``nvidia.com/gpu``) or
    ``mixed`` (as ``nvidia.com/mig-<profile>``). Defaults to ``single``.

    A device plugin notion: on a pool NVIDIA's DRA driver serves it changes nothing the pool publishes (the driver
    publishes each MIG device in DeviceClass ``mig.nvidia.com`` with its ``profile`` attribute, either way). It is
    still accepted there, not refused: the layout rule above is checked with the pool alone, before its GPU stack is
    known, so a DRA pool's layout of several profiles still says ``mixed``; and on a DRA pool the GPU Operator
    partitions (EKS AL2023, AKS Node Auto Provisioning) it is the operator's ``mig.strategy``, which its GPU
    Feature Discovery labels follow."""


@STRICT
class DisruptionBudgetArgs(TypedDict):
    """A limit on how many of a provisioned pool's nodes the provisioner may remove at once (a Karpenter NodePool
    ``disruption.budgets`` item: :data:`SOURCE_KARPENTER_BUDGETS`)."""

    nodes: str
    """Most nodes being removed at once: a count (``"0"`` stops the removals the budget covers) or a percentage of
    the pool's nodes (``"10%"``), as the CRD's pattern ``^((100|[0-9]{1,2})%|[0-9]+)$``."""
    reasons: NotRequired[list[DisruptionReasonArg]]
    """The removals the budget limits: ``underutilized``, ``empty``, ``drifted`` (each once). Defaults to all three.
    No budget holds back expiry (``expire_after``), which is forceful (:data:`SOURCE_KARPENTER_BUDGETS`)."""
    schedule: NotRequired[str]
    """When the budget starts being active: a cron schedule (five fields, or ``@daily`` and the like), in UTC.
    Needs ``duration``. Defaults to always active."""
    duration: NotRequired[str]
    """How long the budget stays active after each ``schedule`` hit: hours and minutes (``8h``, ``1h30m``). Needs
    ``schedule``."""


@STRICT
class DisruptionArgs(TypedDict):
    """When a provisioner may remove a provisioned pool's nodes (Karpenter NodePool ``disruption``, ``expireAfter``,
    ``terminationGracePeriod``).

    The defaults keep running GPU jobs in place as far as the provisioner lets them: a node is removed for
    consolidation only once it has run no pods for ``consolidate_after``. Nodes still expire by age at the
    provisioner's default unless ``expire_after`` says otherwise: Karpenter's NodePool CRD defaults ``expireAfter``
    to ``720h`` (30 days, also on AKS Node Auto Provisioning), EKS Auto Mode to ``336h`` (14 days, at most 21); a
    GKE ComputeClass has no expiry unless one is given."""

    consolidation: NotRequired[ConsolidationArg]
    """``when-empty`` (the default: only nodes without pods) or ``when-empty-or-underutilized`` (also nodes whose pods
    fit elsewhere; their pods are evicted, which long GPU jobs may not survive). The NodePool CRD v1.14.1 also lists
    ``Balanced``, which Karpenter's v1.14 documentation does not describe yet; it is not offered."""
    consolidate_after: NotRequired[str]
    """How long a node stays empty (or underutilized) before it is removed: a duration such as ``10m`` or ``1h30m``
    (digits with ``s``, ``m`` or ``h``). Defaults to ``10m``, so a job queue's next pod finds the node still there."""
    expire_after: NotRequired[str]
    """Age after which a node is replaced (its pods evicted), a duration such as ``720h``, or ``Never``. Defaults to
    the provisioner's own: Karpenter and AKS Node Auto Provisioning ``720h`` (the NodePool CRD's default), EKS Auto
    Mode ``336h`` (at most ``504h``), none on a GKE ComputeClass."""
    termination_grace_period: NotRequired[str]
    """How long a node being removed may drain before the provisioner deletes its remaining pods, do-not-disrupt
    pods and blocking PodDisruptionBudgets included: a duration such as ``24h`` (NodePool
    ``template.spec.terminationGracePeriod``). Defaults to none: a node waits for such pods forever. Needed when
    pods ask not to be disrupted (the workload helpers' ``do_not_disrupt``) on a pool whose nodes expire
    (:data:`SOURCE_KARPENTER_TERMINATION`). Not on a GKE ComputeClass."""
    budgets: NotRequired[list[DisruptionBudgetArgs]]
    """Limits on how many nodes the provisioner removes at once, the most restrictive active one applying
    (NodePool ``disruption.budgets``, at most 50). Defaults to the provisioner's (Karpenter: ``10%`` of the nodes).
    Not on a GKE ComputeClass."""


@STRICT
class GpuRequirementArgs(TypedDict):
    """A provisioned pool's requirement on one of its provisioner's GPU node labels, as the NodePool CRD's
    ``template.spec.requirements`` items are (``{key, operator, values}``)."""

    key: str
    """A GPU label of the pool's provisioner: Karpenter ``karpenter.k8s.aws/instance-gpu-name``, ``-count``,
    ``-memory``, ``-manufacturer``; EKS Auto Mode the same under ``eks.amazonaws.com/``; AKS Node Auto Provisioning
    ``karpenter.azure.com/sku-gpu-name``, ``sku-gpu-count``, ``sku-gpu-manufacturer``."""
    operator: RequirementOperatorArg
    """``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``, ``Gte``, ``Lte`` (``Gt``..``Lte`` on the
    count and memory labels only; ``Gte``/``Lte`` not on EKS Auto Mode)."""
    values: NotRequired[list[str]]
    """The values, in the provisioner's own format: GPU names as it spells them (``h100``, ``l40s`` on AWS; ``A100``,
    ``H100`` on Azure), counts and memory (MiB) as whole numbers (``"2"``, ``"81920"``), manufacturer ``nvidia``.
    At least one with ``In``/``NotIn``, exactly one with ``Gt``..``Lte``, none with ``Exists``/``DoesNotExist``.
    Defaults to none."""


@STRICT
class ProvisioningArgs(TypedDict):
    """A provisioned pool: nodes are created for pending pods by a provisioner, within limits, instead of a fixed
    node pool scaling between ``min_size`` and ``max_size``."""

    provisioner: ProvisionerArg
    """The cloud's provisioner: ``karpenter`` or ``eks-auto-mode`` (AWS), ``compute-class`` (GCP),
    ``node-auto-provisioning`` (Azure)."""
    instance_types: NotRequired[list[str]]
    """More instance types the provisioner may choose besides the pool's ``instance_type`` (catalog NVIDIA types of
    the cloud). Defaults to none."""
    instance_families: NotRequired[list[str]]
    """Instance families whose catalog NVIDIA types the provisioner may choose too (AWS ``g6e``, GCP ``g2``; not on
    Azure). Defaults to none."""
    max_gpus: NotRequired[int]
    """Most GPUs the pool's nodes may have in all (the provisioner's limit on ``nvidia.com/gpu``); at least the GPUs
    of one node of every allowed type. ``max_gpus`` or ``max_nodes`` is required."""
    max_nodes: NotRequired[int]
    """Most nodes of the pool (>= 1). ``max_gpus`` or ``max_nodes`` is required."""
    capacity_types: NotRequired[list[CapacityTypeArg]]
    """Capacity the nodes may use: ``on-demand``, ``spot``, ``reserved`` (with ``reservation``). Defaults to
    ``on-demand`` (``spot`` when the pool's ``spot`` is true; give one or the other)."""
    reservation: NotRequired[str]
    """The capacity reservation ``reserved`` capacity comes from: an EC2 capacity reservation id (``cr-...``,
    Capacity Blocks for ML included) or a GKE reservation name. Required with ``reserved``, refused without it."""
    disruption: NotRequired[DisruptionArgs]
    """When the provisioner may remove nodes. Defaults: see :class:`DisruptionArgs`."""
    gpu_requirements: NotRequired[list[GpuRequirementArgs]]
    """Narrow the pool's nodes by GPU, in the provisioner's own GPU node labels (:class:`GpuRequirementArgs`),
    rendered into the NodePool's requirements beside its instance types. They also filter those types by the
    catalog's label values: a named type (``instance_type``, ``instance_types``) they exclude is an error, a family
    expands only to the types they admit. Not on a GKE ComputeClass (its ``priorities[].gpu`` selects GPUs); no
    post-boot labels (``nvidia.com/gpu.*``, ``feature.node.kubernetes.io/*``). Defaults to none."""
    startup_taints: NotRequired[list[TaintArgs]]
    """Taints the nodes start with, which an agent (e.g. a CNI such as Cilium) removes once it is ready (NodePool
    ``template.spec.startupTaints``): the provisioner does not count them when it places pending pods, a node
    initializes only once they are gone, and pods need not tolerate them (the workload helpers add no toleration).
    The library's GPU DaemonSets tolerate them. Not the GPU taint's key nor one of the pool's ``taints``' keys. Not
    on a GKE ComputeClass. Defaults to none."""


@STRICT
class GpuNodePoolArgs(TypedDict):
    """A GPU node pool, as callers and stack config describe it."""

    name: str
    """Pool name: also a Kubernetes label value and object name (a DNS-1123 label of at most 50 characters) and the
    cloud's node pool name (each cloud's rule, e.g. AKS: 1-12 lowercase letters or digits, starting with a letter)."""
    instance_type: str
    """The cloud's instance type, VM size or machine type, e.g. ``g5.xlarge``, ``Standard_NC24ads_A100_v4``,
    ``a2-highgpu-1g``."""
    gpu_model: NotRequired[str]
    """GPU model (a catalog GPU name, e.g. ``L4``) of an instance type the catalog does not list, which then needs
    ``gpu_count`` and ``cpu_architecture`` too; or of the GPUs attached to a GCP N1 machine type, with ``gpu_count``.
    A short name (``H100``, ``A100``, ``H200``, ``A30``) stands for the full one (``H100-80GB``) where the pool's
    instance types (or, for a type outside the catalog, the catalog) have only one such model; else it is an error
    naming them. Defaults to the catalog's."""
    gpu_count: NotRequired[int]
    """GPUs per node (>= 1) of an instance type the catalog does not list, or attached to a GCP N1 machine type; see
    ``gpu_model``. Defaults to the catalog's."""
    cpu_architecture: NotRequired[CpuArchitectureArg]
    """CPU architecture of an instance type the catalog does not list: ``x86_64`` or ``arm64``; see ``gpu_model``.
    Defaults to the catalog's."""
    min_size: NotRequired[int]
    """Fewest nodes (>= 0) of a fixed pool. Defaults to 0."""
    max_size: NotRequired[int]
    """Most nodes of a fixed pool (>= 1, >= ``min_size``; at most 450 on EKS and 1000 on AKS, the most one node pool
    may have). Required, except in a provisioned pool (``provisioning``), whose limits are its own."""
    desired_size: NotRequired[int]
    """Nodes at creation of a fixed pool, between ``min_size`` and ``max_size``; afterwards the Cluster Autoscaler
    owns the count. Defaults to ``min_size``."""
    spot: NotRequired[bool]
    """Spot (preemptible) capacity. Defaults to false."""
    labels: NotRequired[dict[str, str]]
    """Extra node labels (Kubernetes label keys and values; not the library's own, nor under ``kubernetes.io/`` or
    ``k8s.io/``). Defaults to none."""
    gpu_taint: NotRequired[bool]
    """Put the default taint ``nvidia.com/gpu=present:NoSchedule`` on the pool. Defaults to true. Turning it off
    lets any pod land on GPU nodes; do so only when another taint keeps other work away."""
    taints: NotRequired[list[TaintArgs]]
    """Extra node taints. Defaults to none."""
    time_slicing: NotRequired[TimeSlicingArgs]
    """GPU sharing by time-slicing, without memory isolation (not with ``mps``). Defaults to exclusive GPUs."""
    mps: NotRequired[MpsArgs]
    """GPU sharing by CUDA MPS, without memory isolation (not with ``time_slicing`` or ``mig``). Defaults to exclusive
    GPUs."""
    mig: NotRequired[MigArgs]
    """MIG partitioning of the pool's GPUs (not with ``mps``). Defaults to no MIG."""
    disk_size_gb: NotRequired[int]
    """Each node's disk in GiB, 20..2048: the root disk (EKS ``disk_size``, AKS ``os_disk_size_gb``, GKE
    ``node_config.disk_size_gb``), or on Bottlerocket the data volume that holds container images. Defaults to 100,
    big enough for CUDA images (``DEFAULT_DISK_SIZE_GB``)."""
    provisioning: NotRequired[ProvisioningArgs]
    """Make the pool provisioned: a provisioner creates its nodes for pending pods (Karpenter, EKS Auto Mode, a GKE
    ComputeClass, AKS Node Auto Provisioning), within its limits. Defaults to a fixed node pool."""
    gpu_access: NotRequired[GpuAccessArg]
    """How pods get the pool's GPUs: ``device-plugin`` (extended resources such as ``nvidia.com/gpu``) or ``dra``
    (resource claims served by NVIDIA's DRA driver, only under ``gpu_stack: dra``). Defaults to ``dra`` under
    ``gpu_stack: dra`` and ``device-plugin`` otherwise."""


# ---------------------------------------------------------------------------------------------------------------
# Validated spec objects
# ---------------------------------------------------------------------------------------------------------------


_TAINT_FIELDS = ("key", "value", "effect")


@dataclass(frozen=True, slots=True)
class Taint(Mapping[str, str]):
    """A validated node taint in Kubernetes spelling. Read-only, it is also the mapping ``{"key", "value",
    "effect"}`` (:meth:`to_args`), the form Pulumi serializes it in (a node-pool component's ``taints`` output)."""

    key: str
    """The taint's key, e.g. ``nvidia.com/gpu``."""
    value: str
    """The taint's value; ``""`` when the taint has none."""
    effect: _TaintEffectField
    """``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``."""

    @classmethod
    def from_args(cls, args: TaintArgs) -> "Taint":
        """The taint of a :class:`TaintArgs` (a missing ``value`` becomes ``""``); checked by the pool rules."""
        return cls(args["key"], args.get("value", ""), value_of(args["effect"]))

    def to_args(self) -> TaintArgs:
        """This taint as :class:`TaintArgs`, the shape component args take."""
        return {"key": self.key, "value": self.value, "effect": self.effect}

    def as_given(self) -> dict[str, str]:
        """The taint as a pool's ``taints`` item gives it, for an error: ``{"key", "value", "effect"}``, without
        ``value`` when it is empty."""
        given = {"key": self.key, "value": self.value, "effect": self.effect}
        return given if self.value else {"key": self.key, "effect": self.effect}

    @property
    def text(self) -> str:
        """The taint as ``kubectl taint`` writes it: ``key=value:Effect``, or ``key:Effect`` without a value
        (``nvidia.com/gpu=present:NoSchedule``). Source: :data:`SOURCE_TAINTS`."""
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def __getitem__(self, name: str) -> str:
        if name not in _TAINT_FIELDS:
            raise KeyError(name)
        return str(getattr(self, name))

    def __iter__(self) -> Iterator[str]:
        return iter(_TAINT_FIELDS)

    def __len__(self) -> int:
        return len(_TAINT_FIELDS)


DEFAULT_GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT)
"""The taint every GPU pool carries unless ``gpu_taint`` is False: ``nvidia.com/gpu=present:NoSchedule``."""


@dataclass(frozen=True, slots=True)
class TimeSlicing:
    """Validated time-slicing settings (see :class:`TimeSlicingArgs`)."""

    replicas: int
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False
    trusted: bool = False


@dataclass(frozen=True, slots=True)
class Mps:
    """Validated MPS settings (see :class:`MpsArgs`)."""

    replicas: int
    trusted: bool = False


@dataclass(frozen=True, slots=True)
class Mig:
    """A validated MIG layout: ``devices`` maps each MIG profile to its instance count per GPU.

    ``profile`` is the uniform profile when the input gave one (``None`` for a layout), and ``config_name`` is the
    layout's name in mig-parted terms, also the value of the node label ``nvidia.com/mig.config``:
    :func:`~gpu_components.mig.mig_config_name` for a uniform profile (``all-1g.10gb``, ``all-1g.10gb.me`` for
    ``1g.10gb+me``), ``custom-<pool>`` for a layout.
    ``strategy_set`` is ``False`` when the input left ``strategy`` to its default (``single``), so an error about
    the strategy shows it as the default rather than as a value the user wrote.
    ``config`` is NVIDIA's named layout when the input gave one (``all-balanced``, then also ``config_name``).
    ``uniform_profile`` is the one profile that fills every GPU: ``profile``, or a layout of one profile at its
    most instances per GPU; ``None`` for any other layout.
    """

    devices: Mapping[str, int]
    strategy: MigStrategy
    profile: str | None
    config_name: str
    strategy_set: bool = field(default=True, compare=False)
    config: str | None = None
    uniform_profile: str | None = None

    @property
    def instances_per_gpu(self) -> int:
        """MIG devices on each GPU."""
        return sum(self.devices.values())

    @property
    def given_field(self) -> Literal["profile", "layout", "config"]:
        """The ``mig`` field the layout was given by."""
        if self.profile is not None:
            return "profile"
        return "config" if self.config is not None else "layout"

    @property
    def given(self) -> object:
        """The value of :attr:`given_field` as the user wrote it: the profile, the layout or the config's name."""
        if self.profile is not None:
            return self.profile
        return self.config if self.config is not None else dict(self.devices)

    @property
    def as_given(self) -> dict[str, object]:
        """The pool's ``mig`` input as the user wrote it, for an error about the whole field: ``{"profile": ...}``,
        ``{"layout": {...}}`` or ``{"config": ...}``, with ``"strategy"`` when it was set (not the devices a
        profile fills each GPU with, nor the config name)."""
        given: dict[str, object] = {self.given_field: self.given}
        if self.strategy_set:
            given["strategy"] = self.strategy
        return given


Sharing = TimeSlicing | Mps

DEFAULT_CONSOLIDATE_AFTER = "10m"
"""How long a provisioned pool's node stays empty before its provisioner may remove it, when the pool does not say:
long enough for a job queue's next pod to find the node (and its pulled images) still there."""
DURATION = re.compile(r"^([0-9]+(s|m|h))+$")
"""A duration as Karpenter's NodePool takes it (``disruption.consolidateAfter``, ``template.spec.expireAfter``):
digits with ``s``, ``m`` or ``h``, repeated (``1h30m``); ``Never`` is accepted where the field says so.
Source: :data:`SOURCE_KARPENTER_DISRUPTION`."""
SOURCE_KARPENTER_DISRUPTION = "https://karpenter.sh/docs/concepts/disruption/"
SOURCE_KARPENTER_BUDGETS = "https://karpenter.sh/docs/concepts/disruption/#disruption-budgets"
SOURCE_KARPENTER_TERMINATION = "https://karpenter.sh/docs/concepts/disruption/#terminationgraceperiod"
SOURCE_NODEPOOL_CRD = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml "
    "(tests/reference/karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml)"
)
SOURCE_STARTUP_TAINTS = "https://karpenter.sh/docs/concepts/nodepools/#cilium-startup-taint"
BUDGET_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
"""A budget's ``nodes``: a count or a percentage, the NodePool CRD's pattern (:data:`SOURCE_NODEPOOL_CRD`)."""
BUDGET_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
"""A budget's ``duration``: hours or minutes, or hours and minutes, the NodePool CRD's pattern."""
BUDGET_SCHEDULE = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)
"""A budget's ``schedule``: a cron macro or five fields, the NodePool CRD's pattern. The pattern is loose (it is
unanchored and takes any five words); :func:`_cron_problem` checks each field."""
CRON_MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
"""The cron macros a budget's ``schedule`` may be (the NodePool CRD's pattern)."""
CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day-of-month", 1, 31, ()),
    ("month", 1, 12, ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")),
    ("day-of-week", 0, 6, ("sun", "mon", "tue", "wed", "thu", "fri", "sat")),
)
"""The five standard cron fields: name, lowest and highest value, and the names of the values from the lowest on
(Karpenter parses ``schedule`` with robfig/cron's standard parser)."""
SOURCE_CRON = "https://pkg.go.dev/github.com/robfig/cron/v3#hdr-CRON_Expression_Format"
MAX_BUDGETS = 50
"""Most budgets (and reasons per budget) a NodePool takes (the CRD's ``maxItems``)."""
DISRUPTION_REASONS: Mapping[str, str] = MappingProxyType(
    {"underutilized": "Underutilized", "empty": "Empty", "drifted": "Drifted"}
)
"""``disruption.budgets[].reasons`` -> the NodePool CRD's ``reasons`` enum value."""


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    """A validated disruption budget (see :class:`DisruptionBudgetArgs`)."""

    nodes: str
    reasons: tuple[DisruptionReasonName, ...] = ()
    schedule: str | None = None
    duration: str | None = None


@dataclass(frozen=True, slots=True)
class Disruption:
    """A provisioned pool's validated disruption policy (see :class:`DisruptionArgs`); ``expire_after`` is ``None``
    when the provisioner's own default applies, ``termination_grace_period`` when the pool sets none."""

    consolidation: ConsolidationName = "when-empty"
    consolidate_after: str = DEFAULT_CONSOLIDATE_AFTER
    expire_after: str | None = None
    termination_grace_period: str | None = None
    budgets: tuple[DisruptionBudget, ...] = ()


@dataclass(frozen=True, slots=True)
class GpuRequirement:
    """A validated GPU requirement of a provisioned pool (see :class:`GpuRequirementArgs`)."""

    key: str
    operator: RequirementOperatorName
    values: tuple[str, ...] = ()

    def to_node_selector(self) -> dict[str, object]:
        """The requirement as a NodePool's ``template.spec.requirements`` item: ``{key, operator, values}``, without
        ``values`` when there are none (``Exists``, ``DoesNotExist``)."""
        item: dict[str, object] = {"key": self.key, "operator": self.operator}
        if self.values:
            item["values"] = list(self.values)
        return item

    @property
    def text(self) -> str:
        """The requirement in words for a message: ``karpenter.k8s.aws/instance-gpu-name In [h100]``."""
        return f"{self.key} {self.operator}" + (f" [{', '.join(self.values)}]" if self.values else "")

    def admits(self, value: str) -> bool:
        """Whether a node whose label :attr:`key` is ``value`` meets the requirement (Kubernetes' node selector
        rules; the numeric operators compare integers)."""
        if self.operator in NUMERIC_OPERATORS:
            given, bound = int(value), int(self.values[0])
            return {"Gt": given > bound, "Lt": given < bound, "Gte": given >= bound, "Lte": given <= bound}[
                self.operator
            ]
        return {
            "In": value in self.values,
            "NotIn": value not in self.values,
            "Exists": True,
            "DoesNotExist": False,
        }[self.operator]


@dataclass(frozen=True, slots=True)
class Provisioning:
    """A provisioned pool's validated settings (see :class:`ProvisioningArgs`).

    Attributes:
        provisioner: ``karpenter``, ``eks-auto-mode``, ``compute-class`` or ``node-auto-provisioning``.
        instance_types: the types named: the pool's ``instance_type`` first, then ``provisioning.instance_types``.
        instance_families: the families named, as given.
        allowed_types: every catalog type the provisioner may choose: ``instance_types`` and the catalog's NVIDIA
            types of each family that ``gpu_requirements`` admit, in that order, each once.
        max_gpus, max_nodes: the limits given (``None`` when not).
        capacity_types: the capacity the nodes may use, defaults filled in.
        reservation: the capacity reservation of ``reserved`` capacity, else ``None``.
        disruption: when the provisioner may remove nodes.
        gpu_requirements: the requirements on the provisioner's GPU labels, as given (validated).
        startup_taints: the taints the nodes start with until an agent removes them.
    """

    provisioner: ProvisionerName
    instance_types: tuple[str, ...]
    instance_families: tuple[str, ...]
    allowed_types: tuple[str, ...]
    max_gpus: int | None
    max_nodes: int | None
    capacity_types: tuple[CapacityTypeName, ...]
    reservation: str | None
    disruption: Disruption
    gpu_requirements: tuple[GpuRequirement, ...] = ()
    startup_taints: tuple[Taint, ...] = ()


@dataclass(frozen=True, slots=True)
class GpuNodePoolSpec:
    """A validated GPU node pool. Build it with :meth:`from_args`; its fields are plain, preview-time values.

    Attributes:
        name: pool name. cloud: ``aws``, ``azure`` or ``gcp``. instance_type: as given.
        gpu: the GPU model (catalog entry). gpu_count: GPUs per node. cpu_architecture: ``x86_64``/``arm64``.
        min_size, max_size, desired_size: node counts. spot: spot capacity. disk_size_gb: each node's disk (GiB).
        labels: the user's node labels (the library adds its own in the adapters).
        taints: every taint of the pool, the default GPU taint first when on.
        sharing: time-slicing, MPS, or ``None`` for exclusive GPUs. mig: MIG layout or ``None``.
        provisioning: how a provisioned pool's nodes are created, or ``None`` for a fixed pool. A provisioned pool
            has ``min_size`` and ``desired_size`` 0 and ``max_size`` its most nodes (``max_nodes``, else as many
            nodes of ``instance_type`` as ``max_gpus`` holds); ``spot`` says whether spot is among its capacity
            types; ``instance_type``, ``gpu``, ``gpu_count`` and ``cpu_architecture`` describe a node of its first
            instance type.
        disk_size_set: whether the input gave ``disk_size_gb`` (``False``: the library's default), so a rule that
            cannot honour a node disk size (an EKS Auto Mode pool on a shared NodeClass) can tell a chosen one.
        gpu_taint: whether the default GPU taint is on (input ``gpu_taint``, default ``True``), so
            :meth:`taint_path` can tell the user's taints from it.
        gpu_access: ``device-plugin`` or ``dra`` as the pool gives it, or ``None`` to follow the cluster's GPU
            stack (``dra`` under ``gpu_stack: dra``, else ``device-plugin``).
    """

    name: str
    cloud: Cloud
    instance_type: str
    gpu: GpuModel
    gpu_count: int
    cpu_architecture: CpuArchitecture
    min_size: int
    max_size: int
    desired_size: int
    spot: bool
    disk_size_gb: int = DEFAULT_DISK_SIZE_GB
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    taints: tuple[Taint, ...] = (DEFAULT_GPU_TAINT,)
    sharing: Sharing | None = None
    mig: Mig | None = None
    provisioning: Provisioning | None = None
    gpu_taint: bool = True
    gpu_access: GpuAccessName | None = None
    disk_size_set: bool = field(default=False, compare=False)

    def taint_path(self, index: int) -> str:
        """Where ``taints[index]`` of this spec sits in the input: ``taints[<i>]`` for a taint the user gave,
        ``gpu_taint`` for the default GPU taint (first when on)."""
        offset = 1 if self.gpu_taint else 0
        return "gpu_taint" if index < offset else f"taints[{index - offset}]"

    @property
    def startup_taints(self) -> tuple[Taint, ...]:
        """The taints the pool's nodes start with until an agent removes them (``provisioning.startup_taints``;
        none on a fixed pool). Pods need not tolerate them; DaemonSets that must run on every node do."""
        return self.provisioning.startup_taints if self.provisioning is not None else ()

    def uses_dra(self, gpu_stack: str) -> bool:
        """Whether the pool's resolved ``gpu_access`` is ``dra`` under the cluster's ``gpu_stack``: the pool's own
        ``gpu_access``, else the cluster's default (``dra`` under ``gpu_stack: dra``, else ``device-plugin``)."""
        return (self.gpu_access or ("dra" if gpu_stack == "dra" else "device-plugin")) == "dra"

    @classmethod
    def from_args(cls, args: GpuNodePoolArgs | Mapping[str, object], cloud: Cloud, path: str = "") -> "GpuNodePoolSpec":
        """Validate ``args`` for ``cloud`` and return the spec.

        Args:
            args: the pool as a :class:`GpuNodePoolArgs` dictionary (or parsed YAML of that shape).
            cloud: the cloud the pool is for; instance types and pool-name rules are looked up for it.
            path: prefix for problem paths, e.g. ``pools[1]``.

        Raises:
            GpuSpecError: with every problem found: unknown or misspelt fields, wrong types, instance types that
                are unknown, not NVIDIA or not GPUs, node counts out of order, invalid names, labels and taints,
                sharing replicas out of the device plugin's limits, MPS with MIG, MIG on GPUs without MIG or with
                profiles or layouts the GPU does not have, a node disk size out of range; fractional-GPU instance
                types or families (:attr:`~gpu_components.cloud_facts.CloudFacts.fractional_gpu_types`), a short
                ``gpu_model`` naming several models, ``provisioning.gpu_requirements`` that are not the provisioner's
                GPU labels or values, or that exclude a named instance type.
        """
        spec, problems = cls.checked(args, cloud, path)
        if problems or spec is None:
            raise GpuSpecError(problems)
        return spec

    @classmethod
    def checked(
        cls, args: GpuNodePoolArgs | Mapping[str, object], cloud: Cloud, path: str = ""
    ) -> "tuple[GpuNodePoolSpec | None, list[Problem]]":
        """:meth:`from_args` without raising: ``(spec, problems)``. The spec is given also when its only problems
        are bounds of the cloud that leave it sound (``max_size`` over the cloud's nodes per node pool,
        :attr:`~gpu_components.cloud_facts.CloudFacts.max_pool_nodes`), so a validator can check the cloud's rules
        on it too and report every problem at once; ``None`` for any other problem.

        Raises:
            GpuSpecError: only for an unknown ``cloud``.
        """
        args, cloud = plain(args), value_of(cloud)
        if cloud not in CLOUDS:
            raise GpuSpecError([Problem("cloud", cloud, "unknown cloud", ", ".join(CLOUDS))])
        problems = pool_shape_problems(GpuNodePoolArgs, args, cloud, path)
        if problems:
            return None, problems
        return _build(cast(GpuNodePoolArgs, args), cloud, path)  # shape_problems proved the shape

    @property
    def isolation(self) -> Literal["exclusive", "mig", "shared"]:
        """How workloads on one GPU are isolated: whole GPUs, MIG partitions, or shared without memory isolation."""
        if self.sharing is not None:
            return "shared"
        return "mig" if self.mig is not None else "exclusive"


# ---------------------------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def name_problems(name: str, cloud: Cloud, path: str) -> list[Problem]:
    """Problems with a pool name: a valid Kubernetes label value, the cloud's pool-name rule, not reserved."""
    problems: list[Problem] = []
    rule = facts_for(cloud).pool_name
    if not name or len(name) > rule.max_length or not rule.pattern.fullmatch(name):
        problems.append(Problem(path, name, f"not a valid {cloud} node pool name", rule.valid, rule.source))
    if not DNS_LABEL.fullmatch(name) or len(name) > MAX_POOL_NAME_LENGTH:
        problems.append(
            Problem(
                path,
                name,
                "pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels",
                f"1-{MAX_POOL_NAME_LENGTH} lowercase letters, digits or '-', starting and ending alphanumeric",
                SOURCE_NAMES,
            )
        )
    if name in RESERVED_POOL_NAMES:
        problems.append(
            Problem(path, name, "reserved: it names the device plugin's default config entry", "any other name")
        )
    return problems


def label_key_problems(key: str, path: str) -> list[Problem]:
    """Problems with a label or taint key: ``[prefix/]name`` with a DNS-subdomain prefix (Kubernetes rule)."""
    prefix, _, name = key.rpartition("/")
    valid = "[DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.')"
    if (prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix))) or (
        len(name) > 63 or not _LABEL_NAME.fullmatch(name)
    ):
        return [Problem(path, key, "not a valid qualified name", valid, SOURCE_LABELS)]
    return []


def label_value_problems(value: str, path: str) -> list[Problem]:
    """Problems with a label or taint value (Kubernetes rule: <= 63 chars, alphanumeric at both ends)."""
    if len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        valid = "<= 63 chars: alphanumerics, '-', '_', '.', starting and ending alphanumeric (or empty)"
        return [Problem(path, value, "not a valid label value", valid, SOURCE_LABELS)]
    return []


@functools.cache
def reserved_labels() -> frozenset[str]:
    """Every node label the library sets itself: :data:`RESERVED_LABELS` and the labels it sets on the GPU Operator's
    nodes on any cloud (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.node_labels`, e.g. GKE's
    ``gke-no-default-nvidia-gpu-device-plugin``)."""
    return RESERVED_LABELS | {label for facts in all_cloud_facts() for label in facts.gpu_operator.node_labels}


def _label_problems(labels: Mapping[str, str], path: str) -> list[Problem]:
    problems: list[Problem] = []
    for key, value in labels.items():
        where = f"{path}[{key!r}]"
        problems += label_key_problems(key, where)
        problems += label_value_problems(value, where)
        if key == SHARING_TRUST_KEY:
            problems.append(
                Problem(
                    where,
                    key,
                    "set by gpu_components itself on pools whose sharing is declared trusted",
                    "time_slicing: {trusted: true} or mps: {trusted: true}",
                )
            )
        elif key in reserved_labels():
            problems.append(Problem(where, key, "set by gpu_components itself", "any other label key"))
        elif key.startswith(RESERVED_LIBRARY_LABEL_PREFIXES):
            problems.append(
                Problem(
                    where,
                    key,
                    f"set by gpu_components itself: the {OPERAND_LABEL_PREFIX}* labels switch the GPU Operator's "
                    "operands on or off per node",
                    "a key under another prefix",
                )
            )
        elif key.startswith(RESERVED_LABEL_PREFIXES) or any(
            key.split("/")[0].endswith("." + p.rstrip("/")) for p in RESERVED_LABEL_PREFIXES
        ):
            problems.append(
                Problem(
                    where,
                    key,
                    "the kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
                    "a key under your own prefix",
                    SOURCE_LABELS,
                )
            )
    return problems


def _cloud_reserved_problems(
    labels: Mapping[str, str], taints: Sequence[TaintArgs], cloud: Cloud, path: str
) -> list[Problem]:
    """Label (and, where the cloud says so, taint) keys under a prefix the cloud's node-pool API keeps for itself."""
    reserved = facts_for(cloud).reserved_prefixes
    if reserved is None:
        return []
    service = facts_for(cloud).service
    # Label keys under Kubernetes' own prefixes are reported by the label rules already.
    keys = [(f"{_join(path, 'labels')}[{key!r}]", key) for key in labels if not key.startswith(RESERVED_LABEL_PREFIXES)]
    if reserved.taints:
        keys += [(f"{_join(path, 'taints')}[{index}].key", taint["key"]) for index, taint in enumerate(taints)]
    return [
        Problem(
            where,
            key,
            f"{service} refuses keys under {', '.join(reserved.prefixes)} in node pools",
            "a key under your own prefix",
            reserved.source,
        )
        for where, key in keys
        if key.startswith(reserved.prefixes)
    ]


def _node_limit_problems(max_size: int, cloud: Cloud, path: str) -> list[Problem]:
    limit = facts_for(cloud).max_pool_nodes
    if limit is None or max_size <= limit.nodes:
        return []
    service = facts_for(cloud).service
    message = f"more nodes than one {service} node pool may have; split the pool"
    return [Problem(_join(path, "max_size"), max_size, message, f"<= {limit.nodes}", limit.source)]


def _taints(args: GpuNodePoolArgs, path: str) -> tuple[tuple[Taint, ...], list[Problem]]:
    problems: list[Problem] = []
    taints: list[Taint] = [DEFAULT_GPU_TAINT] if args.get("gpu_taint", True) else []
    for index, given in enumerate(args.get("taints", [])):
        where = f"{_join(path, 'taints')}[{index}]"
        taint = Taint.from_args(given)
        problems += label_key_problems(taint.key, f"{where}.key")
        problems += label_value_problems(taint.value, f"{where}.value")
        clash = [t for t in taints if (t.key, t.effect) == (taint.key, taint.effect)]
        if clash:
            message = (
                "duplicates the default GPU taint; set gpu_taint: false to replace it"
                if clash[0] == DEFAULT_GPU_TAINT
                else "a taint with this key and effect is already given"
            )
            problems.append(Problem(where, dict(given), message, None, SOURCE_TAINTS))
        taints.append(taint)
    return tuple(taints), problems


@dataclass(frozen=True, slots=True)
class _Hardware:
    gpu: GpuModel | None
    gpu_count: int
    cpu_architecture: CpuArchitecture


def _hardware(args: GpuNodePoolArgs, cloud: Cloud, path: str) -> tuple[_Hardware, list[Problem]]:
    """Resolve the instance type's GPU model, count and CPU architecture from the catalog or explicit fields."""
    name = args["instance_type"]
    where = _join(path, "instance_type")
    keys: tuple[Literal["gpu_model", "gpu_count", "cpu_architecture"], ...] = (
        "gpu_model",
        "gpu_count",
        "cpu_architecture",
    )
    explicit = {key: args[key] for key in keys if key in args}
    known = catalog.find_instance_type(cloud, name)
    problems: list[Problem] = []
    if known is not None and known.gpu_vendor == "nvidia" and known.gpu_model is not None:
        for key, value in explicit.items():
            catalogued = {"gpu_model": known.gpu_model, "gpu_count": known.gpu_count}.get(key, known.cpu_architecture)
            short = key == "gpu_model" and gpu_models_named(str(value), [known.gpu_model]) == [known.gpu_model]
            if value != catalogued and not short:
                problems.append(
                    Problem(
                        _join(path, key),
                        value,
                        f"disagrees with the catalog entry of {name}",
                        repr(catalogued),
                        known.source,
                    )
                )
        return _Hardware(catalog.gpu_model(known.gpu_model), known.gpu_count, known.cpu_architecture), problems
    if known is not None and known.gpu_vendor == "amd":
        problems.append(
            Problem(
                where,
                name,
                f"not an NVIDIA GPU instance type ({known.gpu_description})",
                _examples(cloud),
                known.source,
            )
        )
        return _Hardware(None, 0, known.cpu_architecture), problems
    attached_gpus = (
        known is not None and facts_for(cloud).attached_gpus and {"gpu_model", "gpu_count"} <= explicit.keys()
    )
    if known is not None and not attached_gpus:
        problems.append(
            Problem(
                where,
                name,
                f"not a GPU instance type ({known.gpu_description})",
                _examples(cloud),
                known.source,
            )
        )
        return _Hardware(None, 0, known.cpu_architecture), problems
    fractional = fractional_gpu_types(cloud, name)
    if fractional is not None:
        problems.append(fractional_problem(fractional, name, where))
        return _Hardware(None, 0, "x86_64"), problems
    missing = sorted({"gpu_model", "gpu_count", "cpu_architecture"} - explicit.keys())
    if known is not None:
        missing = [key for key in missing if key != "cpu_architecture"]
    if missing:
        suggestions = difflib.get_close_matches(name, [t.name for t in catalog.instance_types(cloud)], n=3, cutoff=0.5)
        problems.append(
            Problem(
                where,
                name,
                f"unknown {cloud} instance type (closest known names under valid); for a type the catalog "
                f"does not list, also give {', '.join(missing)}",
                ", ".join(suggestions) if suggestions else _examples(cloud),
            )
        )
        return _Hardware(None, 0, "x86_64"), problems
    gpu: GpuModel | None = None
    given = str(explicit["gpu_model"])
    try:
        gpu = catalog.gpu_model(given)
    except catalog.CatalogLookupError as error:
        named = gpu_models_named(given, [model.name for model in catalog.gpu_models()])
        if len(named) == 1:
            gpu = catalog.gpu_model(named[0])
        elif named:
            problems.append(
                Problem(
                    _join(path, "gpu_model"),
                    given,
                    f"short for several catalog GPU models, and instance type {name} is not in the catalog to tell "
                    "which: give the full name",
                    ", ".join(named),
                )
            )
        else:
            problems.append(
                Problem(
                    _join(path, "gpu_model"), given, "unknown GPU model", ", ".join(error.suggestions) or _gpu_names()
                )
            )
    count = explicit["gpu_count"]
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        problems.append(Problem(_join(path, "gpu_count"), count, "GPUs per node must be a whole number >= 1"))
        count = 0
    architecture = known.cpu_architecture if known is not None else cast(CpuArchitecture, explicit["cpu_architecture"])
    return _Hardware(gpu, int(count), architecture), problems


def _examples(cloud: Cloud) -> str:
    names = [t.name for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia"]
    return f"NVIDIA GPU instance types, e.g. {', '.join(names[:4])} ({len(names)} in the catalog)"


def _gpu_names() -> str:
    return ", ".join(model.name for model in catalog.gpu_models())


_MEMORY_SUFFIX = re.compile(r"^-[0-9]+GB$")
"""What follows a GPU's short name in a catalog name that tells one memory size from another (``-80GB``)."""


def gpu_models_named(name: str, models: Iterable[str]) -> list[str]:
    """The GPU models among ``models`` (catalog names) that ``name`` names, sorted: the model of that name, else
    those that are ``name`` and a memory size (``H100`` names ``H100-80GB`` and ``H100-94GB``; ``L4`` only ``L4``;
    case as the catalog writes it). More than one means the short name is ambiguous among ``models``."""
    models = set(models)
    if name in models:
        return [name]
    return sorted(model for model in models if model.startswith(name) and _MEMORY_SUFFIX.fullmatch(model[len(name) :]))


def fractional_gpu_types(cloud: Cloud, name: str) -> FractionalGpuTypes | None:
    """The cloud's fractional-GPU record (:attr:`~gpu_components.cloud_facts.CloudFacts.fractional_gpu_types`)
    that instance type ``name`` belongs to, or ``None``."""
    return next((record for record in facts_for(cloud).fractional_gpu_types if record.pattern.fullmatch(name)), None)


def fractional_problem(record: FractionalGpuTypes, name: str, path: str) -> Problem:
    """The problem of a pool naming a fractional-GPU instance type or family ``name`` at ``path``: what its nodes
    get, why no pool of them would work, what to use instead, and the sources."""
    return Problem(
        path,
        name,
        f"{name} gives each node {record.gpu}: {record.why}",
        record.instead,
        record.source,
    )


def _size_problems(min_size: int, desired: int | None, max_size: int, path: str) -> list[Problem]:
    """Node-count problems; ``desired`` is ``None`` when not set (it defaults to ``min_size``), so a ``min_size``
    above ``max_size`` is reported at ``min_size``, the value the user wrote, not at a ``desired_size`` they never
    set (nor anything when ``min_size`` is 0, maybe its default: the ``max_size`` problem says it all)."""
    problems: list[Problem] = []
    if min_size < 0:
        problems.append(Problem(_join(path, "min_size"), min_size, "must not be negative", ">= 0"))
    if max_size < 1:
        problems.append(Problem(_join(path, "max_size"), max_size, "a pool needs room for at least one node", ">= 1"))
    if desired is None:
        if min_size > max(max_size, 0):
            problems.append(
                Problem(
                    _join(path, "min_size"),
                    min_size,
                    f"node counts must satisfy min_size <= max_size (max_size={max_size}; desired_size, not set, "
                    "defaults to min_size)",
                    f"0..{max_size}" if max_size >= 0 else None,
                )
            )
    elif not min_size <= desired <= max_size:
        problems.append(
            Problem(
                _join(path, "desired_size"),
                desired,
                f"node counts must satisfy min_size <= desired_size <= max_size (min_size={min_size}, "
                f"max_size={max_size})",
                f"{min_size}..{max_size}" if min_size <= max_size else None,
            )
        )
    return problems


def _disk_size_problems(disk_size_gb: int, path: str) -> list[Problem]:
    if MIN_DISK_SIZE_GB <= disk_size_gb <= MAX_DISK_SIZE_GB:
        return []
    return [
        Problem(
            _join(path, "disk_size_gb"),
            disk_size_gb,
            "node disk size (GiB) out of range: at least EKS's default node disk, at most an MBR boot volume",
            f"{MIN_DISK_SIZE_GB}..{MAX_DISK_SIZE_GB} (default {DEFAULT_DISK_SIZE_GB})",
            SOURCE_DISK_SIZE,
        )
    ]


def sharing_trust_labels(spec: GpuNodePoolSpec) -> dict[str, str]:
    """``{SHARING_TRUST_KEY: SHARING_TRUSTED}`` for a pool whose time-slicing or MPS is declared ``trusted``, else
    ``{}``: the node label every cloud's adapter puts on such a pool (EKS node group ``labels`` and Bottlerocket
    ``settings.kubernetes.node-labels``, AKS ``nodeLabels``, GKE ``nodeConfig.labels``)."""
    if spec.sharing is not None and spec.sharing.trusted:
        return {SHARING_TRUST_KEY: SHARING_TRUSTED}
    return {}


def mps_client_limit(gpu: GpuModel) -> int:
    """Most MPS replicas one GPU takes: 48 at compute capability >= 7.5, else 16.

    Source: the device plugin's MPS control daemon (k8s-device-plugin v0.20.0,
    ``cmd/mps-control-daemon/mps/device.go``), which is what rejects a larger value on the node.
    """
    return MPS_MAX_CLIENTS if gpu.compute_capability >= (7, 5) else MPS_MAX_CLIENTS_BELOW_7_5


def _sharing(args: GpuNodePoolArgs, gpu: GpuModel | None, path: str) -> tuple[Sharing | None, list[Problem]]:
    problems: list[Problem] = []
    time_slicing = args.get("time_slicing")
    mps = args.get("mps")
    if time_slicing is not None and mps is not None:
        problems.append(
            Problem(
                _join(path, "mps"),
                dict(mps),
                "time-slicing and MPS are mutually exclusive on a pool",
                "one of time_slicing, mps",
                SOURCE_SHARING,
            )
        )
    if mps is not None and "mig" in args:
        problems.append(
            Problem(
                _join(path, "mps"),
                dict(mps),
                "MPS cannot be combined with MIG: the device plugin skips MIG devices under MPS",
                "time_slicing with mig, or mps without mig",
                SOURCE_SHARING,
            )
        )
    if time_slicing is not None:
        replicas = time_slicing["replicas"]
        if replicas < MIN_SHARING_REPLICAS:
            problems.append(
                Problem(
                    _join(path, "time_slicing.replicas"),
                    replicas,
                    "the device plugin requires at least 2 replicas",
                    f">= {MIN_SHARING_REPLICAS}",
                    SOURCE_SHARING,
                )
            )
        sharing: Sharing = TimeSlicing(
            replicas,
            time_slicing.get("rename_by_default", False),
            time_slicing.get("fail_requests_greater_than_one", False),
            time_slicing.get("trusted", False),
        )
        return sharing, problems
    if mps is not None:
        replicas = mps["replicas"]
        limit = mps_client_limit(gpu) if gpu is not None else MPS_MAX_CLIENTS
        if not MIN_SHARING_REPLICAS <= replicas <= limit:
            cc = f"compute capability {'.'.join(map(str, gpu.compute_capability))} of {gpu.name}" if gpu else "the GPU"
            problems.append(
                Problem(
                    _join(path, "mps.replicas"),
                    replicas,
                    f"MPS replicas must be at least 2 and at most the MPS client limit of {cc}",
                    f"{MIN_SHARING_REPLICAS}..{limit}",
                    SOURCE_MPS_CLIENTS,
                )
            )
        return Mps(replicas, mps.get("trusted", False)), problems
    return None, problems


def _mig(args: GpuNodePoolArgs, gpu: GpuModel | None, path: str) -> tuple[Mig | None, list[Problem]]:
    given = args.get("mig")
    if given is None:
        return None, []
    where = _join(path, "mig")
    strategy: MigStrategy = value_of(given.get("strategy", "single"))
    problems: list[Problem] = []
    has_profile, has_layout, named = (
        "profile" in given,
        "layout" in given,
        value_of(given["config"]) if "config" in given else None,
    )
    if [has_profile, has_layout, named is not None].count(True) != 1:
        problems.append(
            Problem(
                where,
                dict(given),
                "give exactly one of profile (uniform), layout or config (NVIDIA's named layout)",
                "profile, layout, config",
            )
        )
        return None, problems
    devices: dict[str, int] = {given["profile"]: 0} if has_profile else dict(given.get("layout", {}))
    if not devices and named is None:
        valid = "at least one entry <profile>: <instances per GPU>, e.g. {'1g.10gb': 2}"
        problems.append(Problem(f"{where}.layout", {}, "a MIG layout needs at least one profile", valid))
        return None, problems
    bad_syntax = [p for p in devices if parse_mig_profile_name(p) is None]
    for profile in bad_syntax:
        field_path = f"{where}.profile" if has_profile else f"{where}.layout[{profile!r}]"
        problems.append(
            Problem(
                field_path,
                profile,
                "not a MIG profile name" + _did_you_mean_profile(profile, gpu),
                MIG_PROFILE_FORMAT,
                SOURCE_MIG,
            )
        )
    if gpu is None or bad_syntax:
        return None, problems
    if not gpu.mig_capable:
        capable = ", ".join(m.name for m in catalog.gpu_models() if m.mig_capable)
        problems.append(
            Problem(
                where,
                dict(given),
                f"{gpu.name} does not support MIG",
                f"GPUs with MIG: {capable}",
                SOURCE_MIG,
            )
        )
        return None, problems
    if named is not None:
        devices = dict(gpu.mig_balanced)
    valid_profiles = ", ".join(gpu.mig_profiles)
    for profile, count in devices.items():
        field_path = f"{where}.profile" if has_profile else f"{where}.layout[{profile!r}]"
        known = gpu.mig_profiles.get(profile)
        if known is None:
            message = f"not a MIG profile of {gpu.name}" + _did_you_mean_profile(profile, gpu)
            problems.append(Problem(field_path, profile, message, valid_profiles, gpu.mig_source))
        elif has_profile or named is not None:
            devices[profile] = known.max_instances if has_profile else count
        elif not 1 <= count <= known.max_instances:
            most = known.max_instances
            if count < 1:
                message = f"a layout entry needs at least 1 instance of {profile}; leave out a profile it has none of"
            else:
                message = f"{gpu.name} holds at most {most} instance{'s' if most != 1 else ''} of {profile}"
            problems.append(Problem(field_path, count, message, f"1..{most}", gpu.mig_source))
    if problems:
        return None, problems
    if has_layout:
        compute = sum(gpu.mig_profiles[p].compute_slices * n for p, n in devices.items())
        memory = sum(gpu.mig_profiles[p].memory_slices * n for p, n in devices.items())
        if compute > gpu.mig_compute_slices or memory > gpu.mig_memory_slices:
            problems.append(
                Problem(
                    f"{where}.layout",
                    dict(devices),
                    f"the layout does not fit one {gpu.name}: it needs {compute} compute and {memory} memory "
                    f"slices of {gpu.mig_compute_slices} and {gpu.mig_memory_slices}",
                    f"at most {gpu.mig_compute_slices} compute and {gpu.mig_memory_slices} memory slices",
                    SOURCE_MIG,
                )
            )
        problems += _media_engine_problems(devices, gpu, f"{where}.layout")
    if strategy == "single" and len(devices) > 1:
        problems.append(
            Problem(
                f"{where}.strategy",
                strategy if "strategy" in given else Default(strategy),
                "the single MIG strategy needs one profile on every GPU; a layout of several profiles "
                + (f"(NVIDIA's {named} on {gpu.name}: {layout_text(devices)}) " if named is not None else "")
                + "needs the mixed strategy",
                "mixed",
                SOURCE_MIG_STRATEGY,
            )
        )
    if problems:
        return None, problems
    uniform = given.get("profile")
    config_name = mig_config_name(uniform) if uniform else named or f"custom-{args['name']}"
    ((only, count),) = devices.items() if len(devices) == 1 else ((None, 0),)
    filled = only if only is not None and count == gpu.mig_profiles[only].max_instances else None
    return Mig(MappingProxyType(devices), strategy, uniform, config_name, "strategy" in given, named, filled), []


def layout_text(devices: Mapping[str, int]) -> str:
    """A layout as problem messages state it: ``2 x 1g.10gb, 1 x 2g.20gb``."""
    return ", ".join(f"{count} x {profile}" for profile, count in devices.items())


def not_uniform(mig: Mig, gpu: GpuModel) -> str:
    """Why a MIG layout is not one profile filling each GPU (for a cloud that makes only such partitions): its
    several profiles, or its one profile's count short of the most ``gpu`` holds."""
    named = f"NVIDIA's {mig.config} on {gpu.name} is " if mig.config is not None else "the layout is "
    if len(mig.devices) > 1:
        return f"{named}{layout_text(mig.devices)}, several profiles"
    ((profile, count),) = mig.devices.items()
    most = gpu.mig_profiles[profile].max_instances
    return f"{named}{count} x {profile} per GPU, and one {gpu.name} holds {most}"


def _did_you_mean_profile(profile: str, gpu: GpuModel | None) -> str:
    """``; did you mean '<name>'?`` for a MIG profile name written another way (:func:`mig_profile_spelling`: case,
    NVIDIA's ``.`` spelling of config names) that names a profile of ``gpu`` (any profile when the GPU is unknown);
    ``""`` otherwise: a profile of another size is a different partition, not a typo to correct."""
    spelling = mig_profile_spelling(profile)
    if spelling is None or (gpu is not None and gpu.mig_capable and spelling not in gpu.mig_profiles):
        return ""
    return f"; did you mean {spelling!r}?"


def _media_engine_problems(devices: Mapping[str, int], gpu: GpuModel, field_path: str) -> list[Problem]:
    """Media-engine rules of a MIG layout ``devices`` (profile -> instances per GPU) on ``gpu``.

    - At most one instance per GPU with media extensions (``+me`` or ``+me.all``): each takes the GPU's single
      OFA (:data:`SOURCE_MIG_MEDIA`), so two such instances never fit one GPU, whatever their per-profile counts.
    - A ``+me.all`` instance takes all the GPU's media engines, so every other instance on its GPU is ``-me``
      (no media engine); a plain or ``+gfx`` instance holds an NVDEC, NVENC and JPEG the ``+me.all`` already has.
    - Nothing else: a name has one attribute at most (:mod:`gpu_components.mig`), so no profile is both ``-me`` and
      ``+gfx``, and ``-me``, ``+gfx`` and plain instances share a GPU with each other and with one ``+me``.

    Returns one problem at ``field_path`` per broken rule (empty when the layout is fine); mig-parted would fail to
    create such a layout on the node.
    """
    attributes = {profile: parsed.attribute for profile in devices if (parsed := parse_mig_profile_name(profile))}
    with_media = [p for p, attribute in attributes.items() if attribute in ("+me", "+me.all")]
    all_media = [p for p, attribute in attributes.items() if attribute == "+me.all"]
    problems: list[Problem] = []
    if sum(devices[p] for p in with_media) > 1:
        problems.append(
            Problem(
                field_path,
                dict(devices),
                f"{' and '.join(f'{devices[p]} x {p}' for p in with_media)} cannot share one {gpu.name}: each "
                "instance with media extensions (+me, +me.all) takes the GPU's only OFA",
                "at most one +me or +me.all instance per GPU",
                SOURCE_MIG_MEDIA,
            )
        )
    others = [p for p, attribute in attributes.items() if attribute not in ("+me", "+me.all", "-me")]
    if all_media and others:
        problems.append(
            Problem(
                field_path,
                dict(devices),
                f"{all_media[0]} takes all the media engines of its {gpu.name}, so {', '.join(others)} cannot "
                "share the GPU",
                "no media engine (-me) profiles next to a +me.all instance",
                SOURCE_MIG_MEDIA,
            )
        )
    return problems


FIXED_POOL_SIZES: tuple[Literal["min_size", "max_size", "desired_size"], ...] = ("min_size", "max_size", "desired_size")
"""A fixed pool's node counts, which a provisioned pool does not take (its provisioner decides its nodes)."""


def _family_types(cloud: Cloud, family: str) -> tuple[str, ...]:
    separator = facts_for(cloud).instance_family_separator
    return tuple(
        t.name
        for t in catalog.instance_types(cloud)
        if separator is not None and t.gpu_vendor == "nvidia" and t.name.split(separator, 1)[0] == family
    )


def _families(cloud: Cloud) -> list[str]:
    separator = facts_for(cloud).instance_family_separator
    if separator is None:
        return []
    names = (t.name.split(separator, 1)[0] for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia")
    return sorted(set(names))


def _allowed_types(
    given: ProvisioningArgs, cloud: Cloud, first: str, where: str
) -> tuple[tuple[str, ...], tuple[str, ...], list[Problem]]:
    """The named types (``first`` and ``instance_types``) and every allowed type, with the problems of both lists."""
    problems: list[Problem] = []
    named = [first]
    for index, name in enumerate(given.get("instance_types", [])):
        at = f"{where}.instance_types[{index}]"
        known = catalog.find_instance_type(cloud, name)
        fractional = fractional_gpu_types(cloud, name) if known is None else None
        if name in named:
            problems.append(Problem(at, name, "already allowed (the pool's instance_type or an earlier entry)"))
        elif fractional is not None:
            problems.append(fractional_problem(fractional, name, at))
        elif known is None or known.gpu_vendor != "nvidia" or known.gpu_model is None:
            nvidia = [t.name for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia"]
            suggestions = difflib.get_close_matches(name, nvidia, n=3) if known is None else []
            why = "unknown" if known is None else f"not an NVIDIA GPU type ({known.gpu_description})"
            problems.append(
                Problem(
                    at,
                    name,
                    f"{why}: a provisioned pool allows catalog NVIDIA {cloud} instance types only",
                    ", ".join(suggestions) or _examples(cloud),
                )
            )
        else:
            named.append(name)
    allowed = list(named)
    families = given.get("instance_families", [])
    valid = _families(cloud)
    for index, family in enumerate(families):
        at = f"{where}.instance_families[{index}]"
        if not valid:
            problems.append(
                Problem(
                    at,
                    family,
                    f"instance families are not named on {cloud}: list the instance types",
                    f"{where}.instance_types",
                )
            )
        elif fractional := next((r for r in facts_for(cloud).fractional_gpu_types if family in r.families), None):
            problems.append(fractional_problem(fractional, family, at))
        elif family not in valid:
            problems.append(
                Problem(
                    at, family, f"unknown {cloud} GPU instance family" + _suggestion(family, valid), ", ".join(valid)
                )
            )
        elif family in families[:index]:
            problems.append(Problem(at, family, "already allowed by an earlier entry"))
        else:
            allowed += [name for name in _family_types(cloud, family) if name not in allowed]
    return tuple(named), tuple(allowed), problems


def _requirement_key_problems(
    key: str, facts: ProvisionerFacts, provisioner: ProvisionerName, here: str
) -> list[Problem]:
    """A requirement key that is not one of the provisioner's GPU labels: another provisioner's (naming this one's
    label of the same kind), a label set only after the node boots, or any other key."""
    ours = facts.gpu_labels()
    if key in ours.values():
        return []
    valid = ", ".join(ours.values())
    source = facts.requirements_source or None
    others = [
        (name, kind)
        for cloud_facts in all_cloud_facts()
        for name, other in cloud_facts.provisioners.items()
        for kind, label in other.gpu_labels().items()
        if label == key and name != provisioner
    ]
    if others:
        name, kind = others[0]
        right = f"{provisioner}'s is {ours[kind]}" if kind in ours else f"{provisioner} sets no GPU {kind} label"
        return [Problem(f"{here}.key", key, f"{key} is the GPU {kind} label of {name}; {right}", valid, source)]
    prefix = next((p for p in POST_BOOT_LABEL_PREFIXES if key.startswith(p)), None)
    if prefix is not None:
        return [
            Problem(
                f"{here}.key",
                key,
                f"{POST_BOOT_LABEL_PREFIXES[prefix]} sets {prefix}* labels on a node only after it boots, while "
                f"{provisioner} chooses the instance type before the node exists, from its own labels of each type: "
                "it cannot choose GPUs by them",
                valid,
                SOURCE_POST_BOOT_LABELS,
            )
        ]
    return [
        Problem(
            f"{here}.key",
            key,
            f"not a GPU label of {provisioner}" + _suggestion(key, list(ours.values())),
            valid,
            source,
        )
    ]


def _name_values(cloud: Cloud, facts: ProvisionerFacts) -> list[str]:
    """The GPU name label values of the cloud's catalog NVIDIA types that the library knows (as the provisioner
    spells them), sorted."""
    names = (facts.gpu_name_value(t.name) for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia")
    return sorted({name for name in names if name is not None})


def _requirement_value_problems(
    requirement: GpuRequirement, kind: str, cloud: Cloud, facts: ProvisionerFacts, here: str
) -> list[Problem]:
    """Values of a requirement on the provisioner's GPU label of ``kind`` that the label never has: GPU names as the
    provisioner spells them, whole numbers for counts and MiB, the NVIDIA manufacturer value."""
    source = facts.requirements_source or None
    problems: list[Problem] = []
    for index, value in enumerate(requirement.values):
        at = f"{here}.values[{index}]"
        if kind == "name":
            known = _name_values(cloud, facts)
            if value not in known:
                alike = next((name for name in known if name.lower() == value.lower()), None)
                hint = f"; did you mean {alike!r}?" if alike else _suggestion(value, known)
                message = f"not a {requirement.key} value of the catalog's {cloud} NVIDIA types" + hint
                problems.append(Problem(at, value, message, ", ".join(known), facts.values_source or source))
        elif kind in ("count", "memory") and not value.isdigit():
            unit = "GPUs per node" if kind == "count" else "MiB of one GPU's memory"
            example = "2" if kind == "count" else "81920 (80 GiB)"
            problems.append(
                Problem(
                    at,
                    value,
                    f"{requirement.key} is a whole number ({unit})",
                    f"a whole number, e.g. {example}",
                    source,
                )
            )
        elif kind == "manufacturer" and value != facts.gpu_manufacturer_value:
            right = facts.gpu_manufacturer_value or ""
            hint = f"; did you mean {right!r}?" if value.lower() == right else ""
            message = f"the pool's GPUs are NVIDIA's, whose {requirement.key} is {right}" + hint
            problems.append(Problem(at, value, message, right, source))
    return problems


def _requirement_problems(
    requirement: GpuRequirement, cloud: Cloud, facts: ProvisionerFacts, provisioner: ProvisionerName, here: str
) -> list[Problem]:
    """Problems of one GPU requirement of a provisioned pool: its key (:func:`_requirement_key_problems`), its
    operator (one the provisioner's NodePool takes; the numeric ones on counts and memory only), how many values the
    operator takes (the NodePool CRD's rules), and each value (:func:`_requirement_value_problems`)."""
    problems = _requirement_key_problems(requirement.key, facts, provisioner, here)
    if problems:
        return problems
    kind = {label: kind for kind, label in facts.gpu_labels().items()}[requirement.key]
    operator = requirement.operator
    source = facts.requirements_source or None
    if operator not in facts.requirement_operators:
        problems.append(
            Problem(
                f"{here}.operator",
                operator,
                f"not an operator of {provisioner}'s NodePool requirements",
                ", ".join(facts.requirement_operators),
                source,
            )
        )
    elif operator in NUMERIC_OPERATORS and kind not in ("count", "memory"):
        problems.append(
            Problem(
                f"{here}.operator",
                operator,
                f"{operator} compares whole numbers, and {requirement.key} is a {kind}",
                "In, NotIn, Exists, DoesNotExist",
                source,
            )
        )
    count = len(requirement.values)
    if operator in ("In", "NotIn") and count == 0:
        problems.append(Problem(f"{here}.values", [], f"{operator} needs at least one value", ">= 1 value", source))
    elif operator in ("Exists", "DoesNotExist") and count:
        problems.append(
            Problem(f"{here}.values", list(requirement.values), f"{operator} takes no values", "none", source)
        )
    elif operator in NUMERIC_OPERATORS and count != 1:
        valid = "one whole number"
        problems.append(
            Problem(f"{here}.values", list(requirement.values), f"{operator} takes one value", valid, source)
        )
    return problems + _requirement_value_problems(requirement, kind, cloud, facts, here)


def _gpu_requirements(
    given: ProvisioningArgs,
    cloud: Cloud,
    provisioner: ProvisionerName,
    types: tuple[tuple[str, ...], tuple[str, ...]],
    first_count: int | None,
    paths: tuple[str, str],
) -> tuple[tuple[GpuRequirement, ...], tuple[str, ...], list[Problem]]:
    """The validated ``provisioning.gpu_requirements`` of a pool and the allowed types they admit.

    ``types`` is (the named types: ``instance_type`` then ``instance_types``; every allowed type), ``first_count``
    the GPUs of a node of the first (``None`` when the pool's types have problems of their own: the requirements are
    then checked, but no type is filtered), ``paths`` (the pool's path, its ``provisioning``'s). Each type is checked
    against each requirement with the label values the provisioner gives its nodes (:class:`ProvisionerFacts`: GPU
    name and memory per type, the catalog's GPU count, the NVIDIA manufacturer value). A named type a requirement
    excludes is a problem naming both; a family's types it excludes are left out (the pool's ``instance_type``
    always stays, so no pool is left without types); a type whose label value the library does not know is a
    problem, never a guess.
    """
    items = given.get("gpu_requirements", [])
    named, allowed = types
    path, where = paths
    if not items:
        return (), allowed, []
    facts = facts_for(cloud).provisioners[provisioner]
    at = f"{where}.gpu_requirements"
    if facts.requirements_refused:
        return (
            (),
            allowed,
            [
                Problem(
                    at,
                    [dict(item) for item in items],
                    f"{provisioner} pools take no GPU requirements: {facts.requirements_refused}",
                    None,
                    facts.requirements_source or None,
                )
            ],
        )
    requirements = tuple(
        GpuRequirement(item["key"], value_of(item["operator"]), tuple(item.get("values", []))) for item in items
    )
    problems = [
        problem
        for index, requirement in enumerate(requirements)
        for problem in _requirement_problems(requirement, cloud, facts, provisioner, f"{at}[{index}]")
    ]
    if problems or first_count is None:
        return requirements, allowed, problems
    kinds = {label: kind for kind, label in facts.gpu_labels().items()}
    named_paths = {named[0]: _join(path, "instance_type")} | {
        name: f"{where}.instance_types[{index}]" for index, name in enumerate(named[1:])
    }
    kept: list[str] = []
    for name in allowed:
        memory = facts.gpu_memory_mib(name)
        values = {
            "name": facts.gpu_name_value(name),
            "count": str(first_count if name == allowed[0] else catalog.instance_type(cloud, name).gpu_count),
            "memory": str(memory) if memory is not None else None,
            "manufacturer": facts.gpu_manufacturer_value,
        }
        admitted = True
        for index, requirement in enumerate(requirements):
            value = values[kinds[requirement.key]]
            if value is None:
                problems.append(
                    Problem(
                        f"{at}[{index}]",
                        requirement.to_node_selector(),
                        f"the library does not know the {requirement.key} value {provisioner} gives nodes of {name}, "
                        "so it cannot tell whether the requirement admits them",
                        "requirements on labels whose values the library knows for every allowed type",
                        facts.values_source or facts.requirements_source or None,
                    )
                )
                admitted = False
            elif admitted and not requirement.admits(value):
                admitted = False
                if name in named_paths:
                    problems.append(
                        Problem(
                            named_paths[name],
                            name,
                            f"excluded by {at}[{index}] ({requirement.text}): {name}'s {requirement.key} is {value}; "
                            "drop the type or change the requirement",
                            None,
                            facts.requirements_source or None,
                        )
                    )
        if admitted:
            kept.append(name)
    return requirements, tuple(kept), problems


def _model_problems(
    spec_args: GpuNodePoolArgs, cloud: Cloud, allowed: Sequence[str], hardware: "_Hardware", where: str
) -> list[Problem]:
    """One CPU architecture per provisioned pool; one GPU model where sharing or MIG needs one."""
    found = {name: catalog.instance_type(cloud, name) for name in allowed[1:]}
    problems: list[Problem] = []
    first = spec_args["instance_type"]
    other_arch = [
        f"{name} ({t.cpu_architecture})" for name, t in found.items() if t.cpu_architecture != hardware.cpu_architecture
    ]
    if other_arch:
        problems.append(
            Problem(
                where,
                ", ".join(other_arch),
                f"a provisioned pool has one CPU architecture, its instance_type {first}'s "
                f"({hardware.cpu_architecture}): its node image and tolerations follow it; make one pool per "
                "architecture",
            )
        )
    needs_one = [key for key in ("time_slicing", "mps", "mig") if key in spec_args]
    other_model = [
        f"{name} ({t.gpu_model})"
        for name, t in found.items()
        if hardware.gpu is not None and t.gpu_model != hardware.gpu.name
    ]
    if needs_one and other_model:
        problems.append(
            Problem(
                where,
                ", ".join(other_model),
                f"{needs_one[0]} is set for one GPU model, the {hardware.gpu.name if hardware.gpu else '?'} of "
                f"instance_type {first}, and these types have another: every node of the pool must have that model; "
                "make one pool per GPU model",
            )
        )
    return problems


def _short_model_problems(
    args: GpuNodePoolArgs, cloud: Cloud, allowed: Sequence[str], gpu: GpuModel, path: str
) -> list[Problem]:
    """A pool ``gpu_model`` given as a short name (``H100``) that names more than one GPU model among the pool's
    allowed types (``H100-80GB`` and ``H100-94GB``): the pool must say which."""
    given = args.get("gpu_model")
    if given is None or given == gpu.name:
        return []
    models = [gpu.name] + [catalog.instance_type(cloud, name).gpu_model or "" for name in allowed[1:]]
    return pool_gpu_model(given, models, "the pool's", _join(path, "gpu_model"))[1]


def pool_gpu_model(given: str, models: Iterable[str], whose: str, field: str) -> tuple[str, list[Problem]]:
    """``given`` as the catalog name of the one GPU model among ``models`` (a pool's) that it names, itself or by
    its short name (``H100`` -> ``H100-80GB``: :func:`gpu_models_named`); ``given`` unchanged when it names none (the
    caller says so). A problem at ``field`` naming the models when it names several (``whose``: whose instance types,
    for the message, e.g. ``pool big's``)."""
    named = gpu_models_named(given, models)
    if len(named) > 1:
        message = f"short for several GPU models of {whose} instance types ({', '.join(named)}): give the full name"
        return given, [Problem(field, given, message, ", ".join(named))]
    return (named[0] if named else given), []


def _limit_problems(
    given: ProvisioningArgs, cloud: Cloud, allowed: Sequence[str], first_count: int, where: str
) -> list[Problem]:
    if "max_gpus" not in given and "max_nodes" not in given:
        return [Problem(f"{where}.max_gpus", None, "a provisioned pool needs a limit: max_gpus, max_nodes or both")]
    problems: list[Problem] = []
    if "max_nodes" in given and given["max_nodes"] < 1:
        problems.append(Problem(f"{where}.max_nodes", given["max_nodes"], "a pool needs room for one node", ">= 1"))
    if "max_gpus" in given:
        counts = {allowed[0]: first_count} | {n: catalog.instance_type(cloud, n).gpu_count for n in allowed[1:]}
        too_big = [
            f"{name} ({count} GPU{'' if count == 1 else 's'})"
            for name, count in counts.items()
            if count > given["max_gpus"]
        ]
        if too_big:
            problems.append(
                Problem(
                    f"{where}.max_gpus",
                    given["max_gpus"],
                    f"below one node of {', '.join(too_big)}: the provisioner could never create such a node; raise "
                    "the limit or drop those types",
                    f">= {max(counts.values())}",
                )
            )
    return problems


UNRESERVED_PROVISIONERS: tuple[ProvisionerName, ...] = ("node-auto-provisioning",)
"""Provisioners that launch no reserved capacity at all (AKS Node Auto Provisioning: spot and on-demand only). Their
own rules refuse ``reserved`` among ``capacity_types`` (``azure.nap.NAP_CAPACITY_TYPES``), so a missing
``reservation`` is not reported beside that: it would point at a field that cannot help."""


def _capacity(
    args: GpuNodePoolArgs, given: ProvisioningArgs, path: str, where: str, provisioner: ProvisionerName
) -> tuple[tuple[CapacityTypeName, ...], list[Problem]]:
    problems: list[Problem] = []
    types: tuple[CapacityTypeName, ...] = ("spot",) if args.get("spot", False) else ("on-demand",)
    if "capacity_types" in given:
        types = tuple(value_of(t) for t in given["capacity_types"])
        at = f"{where}.capacity_types"
        if "spot" in args:
            problems.append(
                Problem(
                    _join(path, "spot"),
                    args["spot"],
                    "a provisioned pool says its capacity in provisioning.capacity_types; give one, not both",
                )
            )
        if not types:
            problems.append(Problem(at, [], "at least one capacity type", "on-demand, spot, reserved"))
        problems += [Problem(f"{at}[{i}]", name, "given twice") for i, name in enumerate(types) if name in types[:i]]
    if "reserved" in types and "reservation" not in given and provisioner not in UNRESERVED_PROVISIONERS:
        problems.append(Problem(f"{where}.reservation", None, "reserved capacity needs the reservation it comes from"))
    if "reservation" in given and "reserved" not in types:
        problems.append(
            Problem(
                f"{where}.reservation",
                given["reservation"],
                "a reservation is used only with reserved among capacity_types; add reserved or drop it",
            )
        )
    return types, problems


def _disruption(given: ProvisioningArgs, where: str) -> tuple[Disruption, list[Problem]]:
    args = given.get("disruption", {})
    problems: list[Problem] = []
    consolidate_after = args.get("consolidate_after", DEFAULT_CONSOLIDATE_AFTER)
    if not DURATION.fullmatch(consolidate_after):
        problems.append(
            Problem(
                f"{where}.disruption.consolidate_after",
                consolidate_after,
                "not a duration",
                "digits with s, m or h, e.g. 10m, 1h30m",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    expire_after = args.get("expire_after")
    if expire_after is not None and expire_after != "Never" and not DURATION.fullmatch(expire_after):
        problems.append(
            Problem(
                f"{where}.disruption.expire_after",
                expire_after,
                "not a duration",
                "digits with s, m or h, e.g. 720h, or Never",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    elif expire_after is not None and expire_after != "Never" and not any(c in "123456789" for c in expire_after):
        problems.append(
            Problem(
                f"{where}.disruption.expire_after",
                expire_after,
                "a zero duration: every node would expire, and be replaced, as soon as it is created",
                "a duration above zero, e.g. 720h, or Never (nodes do not expire)",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    grace = args.get("termination_grace_period")
    if grace is not None and not DURATION.fullmatch(grace):
        problems.append(
            Problem(
                f"{where}.disruption.termination_grace_period",
                grace,
                "not a duration",
                "digits with s, m or h, e.g. 24h, 1h30m",
                SOURCE_KARPENTER_TERMINATION,
            )
        )
    budgets, found = _budgets(args.get("budgets", []), f"{where}.disruption.budgets")
    problems += found
    consolidation: ConsolidationName = value_of(args.get("consolidation", "when-empty"))
    return Disruption(consolidation, consolidate_after, expire_after, grace, budgets), problems


def _cron_value(text: str, low: int, names: tuple[str, ...]) -> int | None:
    """The number a cron value stands for (a number, or a name counted from ``low``); ``None`` if neither."""
    if text.isascii() and text.isdigit():
        return int(text)
    return names.index(text.lower()) + low if text.lower() in names else None


def _cron_field_ok(field: str, low: int, high: int, names: tuple[str, ...]) -> bool:
    """Whether one cron field is a list of ``*``, values or ranges, each with an optional ``/step``."""
    for item in field.split(","):
        span, slash, step = item.partition("/")
        if slash and not (step.isascii() and step.isdigit() and int(step) > 0):
            return False
        if span == "*":
            continue
        first, dash, last = span.partition("-")
        start = _cron_value(first, low, names)
        end = _cron_value(last, low, names) if dash else start
        if start is None or end is None or not low <= start <= end <= high:
            return False
    return True


def _cron_problem(schedule: str) -> str | None:
    """Why ``schedule`` is not a cron schedule Karpenter takes (naming the bad field and its value), or ``None``:
    one of :data:`CRON_MACROS`, or the five fields of :data:`CRON_FIELDS` (:data:`SOURCE_CRON`)."""
    if schedule.startswith("@"):
        return None if schedule in CRON_MACROS else f"not a cron macro ({', '.join(CRON_MACROS)})"
    fields = schedule.split()
    if len(fields) != len(CRON_FIELDS):
        return f"not a cron schedule: {len(fields)} fields, not 5 (minute hour day-of-month month day-of-week)"
    for text, (name, low, high, names) in zip(fields, CRON_FIELDS, strict=True):
        if not _cron_field_ok(text, low, high, names):
            named = f" or {names[0]}-{names[-1]}" if names else ""
            return f"not a cron schedule: {name} {text!r} is not *, {low}-{high}{named}, a list, range or step"
    return None


def _budgets(given: Sequence[DisruptionBudgetArgs], path: str) -> tuple[tuple[DisruptionBudget, ...], list[Problem]]:
    """Validated disruption budgets, by the NodePool CRD's rules on ``disruption.budgets``
    (:data:`SOURCE_NODEPOOL_CRD`): at most :data:`MAX_BUDGETS`; ``nodes``, ``duration`` and ``schedule`` by their
    patterns; each reason once; ``schedule`` and ``duration`` together or not at all."""
    problems: list[Problem] = []
    if len(given) > MAX_BUDGETS:
        problems.append(
            Problem(
                path, len(given), "more budgets than a NodePool takes", f"at most {MAX_BUDGETS}", SOURCE_NODEPOOL_CRD
            )
        )
    budgets: list[DisruptionBudget] = []
    for index, budget in enumerate(given):
        at = f"{path}[{index}]"
        if not BUDGET_NODES.fullmatch(budget["nodes"]):
            problems.append(
                Problem(
                    f"{at}.nodes",
                    budget["nodes"],
                    "not a node count or percentage",
                    'a whole number ("0", "2") or a percentage up to 100% ("10%")',
                    SOURCE_KARPENTER_BUDGETS,
                )
            )
        reasons: tuple[DisruptionReasonName, ...] = tuple(value_of(r) for r in budget.get("reasons", []))
        problems += [
            Problem(f"{at}.reasons[{i}]", reason, "given twice", ", ".join(DISRUPTION_REASONS), SOURCE_NODEPOOL_CRD)
            for i, reason in enumerate(reasons)
            if reason in reasons[:i]
        ]
        schedule, duration = budget.get("schedule"), budget.get("duration")
        if schedule is not None and (bad := _cron_problem(schedule)) is not None:
            problems.append(
                Problem(
                    f"{at}.schedule",
                    schedule,
                    bad,
                    "five cron fields (e.g. 0 9 * * mon-fri) or @annually, @yearly, @monthly, @weekly, @daily, "
                    "@midnight, @hourly",
                    SOURCE_KARPENTER_BUDGETS,
                )
            )
        if duration is not None and not BUDGET_DURATION.fullmatch(duration):
            problems.append(
                Problem(
                    f"{at}.duration",
                    duration,
                    "not a budget duration: hours and minutes only, as cron does not work in seconds",
                    "e.g. 8h, 30m, 1h30m",
                    SOURCE_NODEPOOL_CRD,
                )
            )
        if (schedule is None) != (duration is None):
            missing, given_key = ("duration", "schedule") if duration is None else ("schedule", "duration")
            problems.append(
                Problem(
                    f"{at}.{missing}",
                    None,
                    f"a budget's schedule and duration go together: {given_key} is set, so {missing} is required "
                    "(without both, the budget is always active)",
                    "schedule and duration, or neither",
                    SOURCE_NODEPOOL_CRD,
                )
            )
        budgets.append(DisruptionBudget(budget["nodes"], reasons, schedule, duration))
    return tuple(budgets), problems


def _startup_taints(
    given: ProvisioningArgs, taints: Sequence[Taint], where: str
) -> tuple[tuple[Taint, ...], list[Problem]]:
    """Validated ``provisioning.startup_taints``: each a valid taint, given once (key and effect), never the GPU
    taint's key (a taint pods must tolerate, which no agent removes) nor the key of one of the pool's ``taints``
    (the node would carry both, and removing the startup taint would leave the other)."""
    problems: list[Problem] = []
    result: list[Taint] = []
    for index, item in enumerate(given.get("startup_taints", [])):
        at = f"{where}.startup_taints[{index}]"
        taint = Taint.from_args(item)
        problems += label_key_problems(taint.key, f"{at}.key")
        problems += label_value_problems(taint.value, f"{at}.value")
        if taint.key == GPU_TAINT_KEY:
            problems.append(
                Problem(
                    f"{at}.key",
                    taint.key,
                    "the GPU taint is never a startup taint: it stays on GPU nodes so only pods that tolerate it "
                    "land there, and no agent removes it",
                    "another key (the GPU taint is the pool's gpu_taint)",
                    SOURCE_STARTUP_TAINTS,
                )
            )
        elif any(t.key == taint.key for t in taints):
            problems.append(
                Problem(
                    f"{at}.key",
                    taint.key,
                    "already a key of the pool's taints, which stay on the nodes: as a startup taint too the node "
                    "would keep one after the agent removes the other",
                    "a key none of the pool's taints has",
                    SOURCE_STARTUP_TAINTS,
                )
            )
        elif any((t.key, t.effect) == (taint.key, taint.effect) for t in result):
            problems.append(Problem(at, dict(item), "a startup taint with this key and effect is already given"))
        result.append(taint)
    return tuple(result), problems


def _unsupported_problems(
    given: ProvisioningArgs, facts: ProvisionerFacts, provisioner: str, where: str
) -> list[Problem]:
    """``provisioning`` fields the provisioner has no field for (:attr:`ProvisionerFacts.unsupported`)."""
    problems: list[Problem] = []
    for field_path, why in facts.unsupported.items():
        value: object = given
        for key in field_path.split("."):
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is not None:
            problems.append(
                Problem(
                    f"{where}.{field_path}", value, why, f"leave it out with provisioner {provisioner}", facts.source
                )
            )
    return problems


def pool_shape_problems(shape: type, pool: object, cloud: Cloud | None, path: str) -> list[Problem]:
    """:func:`~gpu_components.shape.shape_problems` of a pool (``shape``: :class:`GpuNodePoolArgs` or a cluster
    pool) on ``cloud``: an unknown ``provisioning.provisioner`` is told the provisioners of that cloud only (with
    the closest of them), not every cloud's. Without a ``cloud`` (unknown), every cloud's."""
    problems = shape_problems(shape, pool, path)
    if cloud is None:
        return problems
    offered = list(facts_for(cloud).provisioners)
    where = _join(path, "provisioning.provisioner")
    return [
        Problem(
            where,
            problem.value,
            f"not a provisioner of {facts_for(cloud).service}" + _suggestion(problem.value, offered),
            ", ".join(offered) or "none",
            problem.source,
        )
        if problem.path == where and offered
        else problem
        for problem in problems
    ]


def _suggestion(value: object, candidates: Sequence[str]) -> str:
    """``; did you mean '<closest>'?`` for a string close to one of ``candidates``, else nothing."""
    close = did_you_mean(value, candidates) if isinstance(value, str) else None
    return f"; did you mean {close!r}?" if close else ""


def _restricted_label_problems(
    labels: Mapping[str, str], facts: ProvisionerFacts, provisioner: str, path: str
) -> list[Problem]:
    """A provisioned pool's labels its provisioner's NodePool CRD refuses, by its rules on
    ``template.metadata.labels``: a key whose domain part (before its ``/``, or the whole key without one) ends with
    a restricted domain (the CRD's ``!x.find("^([^/]+)").endsWith(domain)``), and the plain keys it names
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.restricted_label_domains`, ``restricted_labels``); a key
    the domain rule lets through but the library sets, or another rule refuses, gets its own reason
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.label_reasons`)."""
    domains = facts.restricted_label_domains
    valid = "a label whose domain does not end with " + ", ".join(domains)
    if facts.restricted_labels:
        valid += ", other than " + ", ".join(facts.restricted_labels)
    problems: list[Problem] = []
    for key in labels:
        where = f"{_join(path, 'labels')}[{key!r}]"
        hit = next((d for d in domains if key.split("/", 1)[0].endswith(d)), None)
        if key in facts.label_reasons:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label {key} may not be set on {provisioner} NodePools: {facts.label_reasons[key]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
        elif hit is not None:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label domain {hit} is restricted on {provisioner} NodePools: the NodePool CRD refuses a key "
                    f"whose domain (the part before '/', or the whole key without one) ends with {hit}, as "
                    f"{domains[hit]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
        elif key in facts.restricted_labels:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label {key} is restricted on {provisioner} NodePools: the NodePool CRD refuses it, as "
                    f"{facts.restricted_labels[key]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
    return problems


def _provisioning(
    args: GpuNodePoolArgs, cloud: Cloud, hardware: "_Hardware", taints: Sequence[Taint], path: str
) -> tuple[Provisioning | None, list[Problem]]:
    """The validated ``provisioning`` of a pool (``None`` for a fixed pool), and its problems; a provisioned pool
    takes no fixed pool node counts."""
    given = args.get("provisioning")
    if given is None:
        return None, []
    where = _join(path, "provisioning")
    problems = [
        Problem(
            _join(path, key),
            args[key],
            "a provisioned pool has no fixed node counts: its provisioner creates nodes for pending pods within "
            "provisioning.max_gpus / max_nodes",
        )
        for key in FIXED_POOL_SIZES
        if key in args
    ]
    provisioner: ProvisionerName = value_of(given["provisioner"])
    offered = facts_for(cloud).provisioners
    if provisioner not in offered:
        problems.append(
            Problem(
                f"{where}.provisioner",
                provisioner,
                f"not a provisioner of {facts_for(cloud).service}",
                ", ".join(offered) or "none",
                "; ".join(f.source for f in offered.values()) or None,
            )
        )
    if provisioner in offered:
        # Keys under the cloud's own reserved prefixes are reported by _cloud_reserved_problems already.
        reserved = facts_for(cloud).reserved_prefixes
        labels = {
            key: value
            for key, value in args.get("labels", {}).items()
            if reserved is None or not key.startswith(reserved.prefixes)
        }
        problems += _restricted_label_problems(labels, offered[provisioner], provisioner, path)
    named, allowed, found = _allowed_types(given, cloud, args["instance_type"], where)
    problems += found
    requirements: tuple[GpuRequirement, ...] = ()
    types_known = hardware.gpu is not None and not found
    if provisioner in offered:
        first_count = hardware.gpu_count if types_known else None
        requirements, allowed, found = _gpu_requirements(
            given, cloud, provisioner, (named, allowed), first_count, (path, where)
        )
        problems += found
    if hardware.gpu is not None and types_known and not found:
        problems += _model_problems(args, cloud, allowed, hardware, where)
        problems += _limit_problems(given, cloud, allowed, hardware.gpu_count, where)
        problems += _short_model_problems(args, cloud, allowed, hardware.gpu, path)
    capacity_types, found = _capacity(args, given, path, where, provisioner)
    problems += found
    disruption, found = _disruption(given, where)
    problems += found
    if provisioner in offered:
        problems += _unsupported_problems(given, offered[provisioner], provisioner, where)
    startup_taints, found = _startup_taints(given, taints, where)
    problems += found
    return (
        Provisioning(
            provisioner=provisioner,
            instance_types=named,
            instance_families=tuple(given.get("instance_families", [])),
            allowed_types=allowed,
            max_gpus=given.get("max_gpus"),
            max_nodes=given.get("max_nodes"),
            capacity_types=capacity_types,
            reservation=given.get("reservation"),
            disruption=disruption,
            gpu_requirements=requirements,
            startup_taints=startup_taints,
        ),
        problems,
    )


def _provisioned_max_nodes(provisioning: Provisioning, gpu_count: int) -> int:
    """Most nodes of a provisioned pool: ``max_nodes``, else as many nodes of its first type as ``max_gpus`` holds."""
    if provisioning.max_nodes is not None:
        return provisioning.max_nodes
    return (provisioning.max_gpus or 0) // max(gpu_count, 1)


def _build(args: GpuNodePoolArgs, cloud: Cloud, path: str) -> tuple[GpuNodePoolSpec | None, list[Problem]]:
    """The spec of a well-shaped pool and its problems (:meth:`GpuNodePoolSpec.checked`): the spec is ``None`` unless
    the only problems are the cloud's bounds (``bounds``), which leave it sound."""
    bounds: list[Problem] = []
    problems = name_problems(args["name"], cloud, _join(path, "name"))
    hardware, found = _hardware(args, cloud, path)
    problems += found
    taints, taint_problems = _taints(args, path)
    provisioning, found = _provisioning(args, cloud, hardware, taints, path)
    problems += found
    if provisioning is not None:
        min_size = desired = 0
        max_size = _provisioned_max_nodes(provisioning, hardware.gpu_count)
    else:
        min_size = args.get("min_size", 0)
        desired = args.get("desired_size", min_size)
        max_size = args.get("max_size", 0)
        if "max_size" in args:
            problems += _size_problems(min_size, args.get("desired_size"), max_size, path)
            bounds += _node_limit_problems(max_size, cloud, path)
        else:
            problems.append(
                Problem(
                    _join(path, "max_size"),
                    None,
                    "required for a fixed node pool (most nodes); or make the pool provisioned with provisioning",
                )
            )
    disk_size_gb = args.get("disk_size_gb", DEFAULT_DISK_SIZE_GB)
    problems += _disk_size_problems(disk_size_gb, path)
    labels = dict(args.get("labels", {}))
    problems += _label_problems(labels, _join(path, "labels"))
    problems += _cloud_reserved_problems(labels, args.get("taints", []), cloud, path)
    problems += taint_problems
    sharing, found = _sharing(args, hardware.gpu, path)
    problems += found
    mig, found = _mig(args, hardware.gpu, path)
    problems += found
    if problems or hardware.gpu is None:
        return None, problems + bounds
    spec = GpuNodePoolSpec(
        name=args["name"],
        cloud=cloud,
        instance_type=args["instance_type"],
        gpu=hardware.gpu,
        gpu_count=hardware.gpu_count,
        cpu_architecture=hardware.cpu_architecture,
        min_size=min_size,
        max_size=max_size,
        desired_size=desired,
        spot="spot" in provisioning.capacity_types if provisioning is not None else args.get("spot", False),
        disk_size_gb=disk_size_gb,
        labels=MappingProxyType(labels),
        taints=taints,
        sharing=sharing,
        mig=mig,
        provisioning=provisioning,
        gpu_taint=args.get("gpu_taint", True),
        gpu_access=cast(GpuAccessName, value_of(args["gpu_access"])) if "gpu_access" in args else None,
        disk_size_set="disk_size_gb" in args,
    )
    return spec, bounds


def parse_pools(
    pools: Sequence[GpuNodePoolArgs] | Sequence[Mapping[str, object]],
    cloud: Cloud,
    path: str = "pools",
    rules: Callable[[GpuNodePoolSpec, int, str], list[Problem]] | None = None,
) -> tuple[GpuNodePoolSpec, ...]:
    """Validate several pools of one cluster; raise every problem of every pool at once.

    Besides each pool's own rules, pool names must be unique in a cluster (they name node groups and device
    plugin config entries). ``rules`` (spec, index, path of the pool) adds checks for each pool that passed its
    own, e.g. a cloud adapter's.

    Raises:
        GpuSpecError: with the problems of all pools, paths ``pools[<index>]....``.
    """
    problems: list[Problem] = []
    specs: list[GpuNodePoolSpec] = []
    seen: dict[str, int] = {}
    for index, pool in enumerate(pools):
        where = f"{path}[{index}]"
        spec, found = GpuNodePoolSpec.checked(pool, cloud, where)
        problems += found
        if spec is not None:
            # A pool out of only its cloud's bounds is sound: its rules are checked too, so all come at once.
            specs.append(spec)
            problems += rules(spec, index, where) if rules is not None else []
        name = pool.get("name") if isinstance(pool, Mapping) else None
        if isinstance(name, str):
            if name in seen:
                problems.append(
                    Problem(f"{where}.name", name, f"pool names must be unique; {path}[{seen[name]}] has it too")
                )
            seen.setdefault(name, index)
    if not pools:
        problems.append(Problem(path, [], "a GPU cluster needs at least one pool"))
    if problems:
        raise GpuSpecError(problems)
    return tuple(specs)


def dra_refused(spec: GpuNodePoolSpec, path: str, why: str, valid: str, source: str) -> Problem:
    """The problem of a pool whose resolved ``gpu_access`` is ``dra`` where its cloud, image or provisioner cannot
    serve DRA: at ``<path>.gpu_access``, valued as the pool gave it, or as the cluster's default (``(default:
    dra)``, :class:`~gpu_components.errors.Default`) when the pool follows ``gpu_stack: dra``."""
    value: object = spec.gpu_access if spec.gpu_access is not None else Default("dra")
    return Problem(f"{path}.gpu_access" if path else "gpu_access", value, why, valid, source)
