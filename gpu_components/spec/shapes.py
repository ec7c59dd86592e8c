"""The shape of a pool's input: the plain dictionaries a stack config and the components take
(:class:`GpuNodePoolArgs` and its parts), and the shape checks every entry point runs before any rule.
"""

from collections.abc import Mapping, Sequence

from typing_extensions import NotRequired, TypedDict

from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import ProvisionerFacts, facts_for
from gpu_components.enums import (
    CapacityTypeArg,
    ConsolidationArg,
    CpuArchitectureArg,
    DisruptionReasonArg,
    GpuAccessArg,
    MigConfigArg,
    MigStrategyArg,
    ProvisionerArg,
    RequirementOperatorArg,
    TaintEffectArg,
)
from gpu_components.errors import Problem
from gpu_components.shape import STRICT, did_you_mean, shape_problems


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


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


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
    the closest of them), not every cloud's. Without a ``cloud`` (unknown), every cloud's. A shape problem cites no
    source, nor does the one told instead."""
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
            ", ".join(offered),
        )
        if problem.path == where and offered
        else problem
        for problem in problems
    ]


def _suggestion(value: object, candidates: Sequence[str]) -> str:
    """``; did you mean '<closest>'?`` for a string close to one of ``candidates``, else nothing."""
    close = did_you_mean(value, candidates) if isinstance(value, str) else None
    return f"; did you mean {close!r}?" if close else ""
