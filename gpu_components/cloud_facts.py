"""What each cloud is, as plain data: the record the core reads instead of naming a cloud.

Each cloud package holds one :class:`CloudFacts` record, ``FACTS`` in ``gpu_components.<cloud>.facts``, a module
that imports no cloud SDK, so the pool spec, the NVIDIA renderers, the add-on components, the offline plan and the
policy pack can read it on any install. The cloud's :class:`~gpu_components.adapter.CloudAdapter` carries the same
record (``facts``). :func:`facts_for` looks a record up by cloud name and imports only that cloud's facts module.

A record holds the cloud's spellings (taint effects, resource type tokens, input paths), its rules as data (the
node pool name rule, who installs the NVIDIA driver and how a pool says so) and what NVIDIA's GPU Operator needs
on it, each with its source (the offline plan's mocks of the cloud's providers are the plan's own:
``gpu_components.<cloud>.plan_mocks``, gathered by :data:`gpu_components.plan.mocks.CLOUD_MOCKS`). The rules that
read them (:func:`~gpu_components.spec.name_problems`,
:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`, the plan's force-new check and diff, the policy
pack's GPU taint and shared-GPU rules, the workload helpers, the catalog loader, the plan's mocks) live
once, in the core, and branch on none of these clouds by name.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast, get_args

from gpu_components.catalog import Cloud, CpuArchitecture
from gpu_components.enums import ProvisionerName

if TYPE_CHECKING:
    from gpu_components.enums import TaintEffectName as TaintEffect

__all__ = [
    "CLOUDS",
    "CloudDriverInstaller",
    "CloudFacts",
    "ComponentOptions",
    "DriverOwnership",
    "EncodedInput",
    "ForceNewTable",
    "FractionalGpuTypes",
    "GpuImages",
    "GpuOperatorFacts",
    "InputBound",
    "ManagedDevicePlugin",
    "NodePoolResource",
    "NodeRolls",
    "NodeTemplate",
    "PoolNameRule",
    "ProvisionerFacts",
    "TemplateSharing",
    "all_cloud_facts",
    "facts_for",
]

CLOUDS: tuple[Cloud, ...] = get_args(Cloud)
"""The clouds with a facts record, in the catalog's order; ``gpu_components.<cloud>.facts`` holds each."""


@dataclass(frozen=True, slots=True)
class PoolNameRule:
    """What the cloud's API accepts as a node pool name.

    Attributes:
        pattern: the characters and their order (the whole name must match: ``fullmatch``).
        max_length: the longest name.
        valid: the rule in words, for problem messages.
        source: the API page that states it.
    """

    pattern: re.Pattern[str]
    max_length: int
    valid: str
    source: str


@dataclass(frozen=True, slots=True)
class DriverOwnership:
    """Who installs the NVIDIA driver on the cloud's GPU nodes, and how a pool says so: the data of the one
    driver-ownership rule (:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`).

    Attributes:
        setting: the pool option (and node-pool component attribute) that decides whether the node image or the
            cloud installs the driver, e.g. EKS ``ami_type``.
        defaults: the node-pool component's value of ``setting`` under the GPU Operator when the pool gives none,
            by CPU architecture.
        off: the value of ``setting`` with which neither image nor cloud installs a driver; ``None`` when every
            value installs one (every EKS NVIDIA AMI ships it).
        owner: how problem messages name the node-side installer, e.g. ``EKS NVIDIA AMI``.
        operator_exclusive: why the cloud's own installation must be off on every pool the GPU Operator serves
            (so the operator installs the driver), or ``""`` where either may (NVIDIA's GKE guide requires it off).
        operator_driver_needs: what the operator's own driver needs of the pool on this cloud, for problem
            messages (GKE: an Ubuntu node image), or ``""``.
        source: the page that says who installs the driver and how the operator must be told.
    """

    setting: str
    defaults: Mapping[CpuArchitecture, str]
    off: str | None
    owner: str
    source: str
    operator_exclusive: str = ""
    operator_driver_needs: str = ""


@dataclass(frozen=True, slots=True)
class CloudDriverInstaller:
    """The cloud's own NVIDIA driver installer, which the GPU Operator can use instead of its driver (GKE: Google's
    driver installer DaemonSet on Container-Optimized OS nodes, NVIDIA's "Using the Google Driver Installer").

    Attributes:
        manifest: URL of the installer's manifest, pinned to a commit, applied as is.
        driver_root: the host directory the installer puts the driver in, where the operator looks for it
            (``hostPaths.driverInstallDir``) and installs its container toolkit (``toolkit.installDir``).
        node_os: the OS of the nodes the installer serves (:attr:`~gpu_components.adapter.PoolView.node_os`).
        source: the guide that installs the operator on this installer's driver.
    """

    manifest: str
    driver_root: str
    node_os: str
    source: str


@dataclass(frozen=True, slots=True)
class GpuOperatorFacts:
    """What the NVIDIA GPU Operator needs on the cloud beyond its chart defaults (NVIDIA's guide for the cloud).

    Attributes:
        source: NVIDIA's GPU Operator guide for the cloud.
        node_labels: labels of every node the operator serves (GKE: its own device plugin kept off).
        toolkit_env: environment of the operator's container toolkit (GKE 1.33+: ``RUNTIME_CONFIG_SOURCE=file``).
        cdi: the chart's ``cdi.enabled`` is set true explicitly (GKE).
        node_toolkit_runtime_class: ``operator.runtimeClass`` when the node image's driver and toolkit are used
            (AKS: ``nvidia-container-runtime``), or ``None``.
        resource_quota: the spec of a ResourceQuota the operator's namespace needs (GKE admits
            ``system-node-critical`` pods outside ``kube-system`` only under one), or ``None``.
        one_node_os_source: where the cloud says one GPU Operator should serve nodes of one OS family (AKS), or
            ``None``; the operator warns when it spans several (:attr:`~gpu_components.adapter.PoolView.node_os`).
        driver_installer: the cloud's own driver installer that installs the driver when the operator does not
            (``operator_driver`` false) on pools whose cloud installation must be off under the operator
            (:attr:`DriverOwnership.operator_exclusive`), or ``None``.
        operator_driver_node_os: the OS of the nodes the operator's own driver serves where the cloud also offers
            the installer's (GKE: ``Ubuntu``), or ``None``.
    """

    source: str
    node_labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    toolkit_env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    cdi: bool = False
    node_toolkit_runtime_class: str | None = None
    resource_quota: Callable[[], dict[str, Any]] | None = None
    one_node_os_source: str | None = None
    driver_installer: CloudDriverInstaller | None = None
    operator_driver_node_os: str | None = None


@dataclass(frozen=True, slots=True)
class ManagedDevicePlugin:
    """The cloud's own NVIDIA device plugin, where the cloud runs one on its GPU nodes (device plugin host
    ``cloud``): what it asks of the pods on shared GPUs, the data of the workload helpers
    (:func:`~gpu_components.workloads.pod_settings`).

    Attributes:
        max_shared_gpus: the most shared GPUs one container may request on a time-shared or MPS pool.
        max_shared_gpus_source: the page that says so.
        mps_host_ipc_source: the page saying that pods on its MPS nodes need ``hostIPC: true``, or ``None`` where
            they do not.
        sharing_label: the node label the cloud puts on nodes whose GPUs it shares (GKE's
            ``cloud.google.com/gke-gpu-sharing-strategy``), which the policy pack reads from a pool's labels; ``None``
            where there is none.
    """

    max_shared_gpus: int
    max_shared_gpus_source: str
    mps_host_ipc_source: str | None = None
    sharing_label: str | None = None


@dataclass(frozen=True, slots=True)
class ExclusiveSelector:
    """A node label that, when a pod selects it, limits what else the pod may select: the cloud rejects the pod when
    its node selector or node affinity names any other key (GKE's ``cloud.google.com/compute-class``). The data of
    the workload helpers (:func:`~gpu_components.workloads.pod_settings`).

    Attributes:
        key: the node label.
        allowed: the other node label keys a pod may select beside it.
        source: the page (or the cloud's own rejection message) that says so.
        exempt: values of the label that limit nothing (GKE Autopilot's built-in ``Accelerator`` class, which pods
            select beside the GPU selectors). Defaults to none.
    """

    key: str
    allowed: tuple[str, ...]
    source: str
    exempt: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DraFacts:
    """What NVIDIA's DRA driver needs on the cloud's fixed pools whose pods get GPUs through resource claims
    (``gpu_access: dra``), when the node image or the cloud installs the NVIDIA driver.

    Attributes:
        driver_root: the host directory holding the driver's files, the DRA driver chart's ``nvidiaDriverRoot``
            (``/`` where the node image installs the driver on the host).
        node_labels: labels a DRA pool's nodes carry so that no other device plugin advertises their GPUs, and
            those the cloud's setup for NVIDIA's DRA driver sets (GKE: ``gke-no-default-nvidia-gpu-device-plugin:
            "true"`` and ``nvidia.com/gpu.present: "true"``); empty where none is needed.
        source: the page giving these facts.
        driver_installer: the URL of the manifest (pinned to a commit) of the cloud's own NVIDIA driver installer
            DaemonSet, where a DRA pool's nodes get the driver from it rather than from the node image or the cloud's
            automatic installation (GKE: automatic installation is off on DRA pools, and GKE's COS installer puts
            the driver under ``driver_root``); ``None`` where the node image or the cloud installs it. The
            composition applies it once per cluster with a DRA pool (``kubernetes.yaml.v2.ConfigFile``).
        driver_installer_source: the page that tells users to apply ``driver_installer``; ``None`` without one.
        kubelet_plugin_priority_class: the DRA driver chart's ``kubeletPlugin.priorityClassName`` where the cloud
            does not admit the chart's ``system-node-critical`` in the driver's namespace (GKE: ``""``, none, as
            GKE's DRA guide sets it); ``None`` keeps the chart's.
    """

    driver_root: str
    node_labels: Mapping[str, str]
    source: str
    driver_installer: str | None = None
    driver_installer_source: str | None = None
    kubelet_plugin_priority_class: str | None = None


def _no_value(instance_type: str) -> None:
    """No label value known for any instance type."""
    return None


KARPENTER_SH_LABELS = (
    "Karpenter sets labels in it on every node itself (karpenter.sh/nodepool, karpenter.sh/capacity-type): select "
    "a node by them in a workload instead"
)
"""Who sets the labels of the ``karpenter.sh`` domain on a Karpenter-based provisioner's nodes
(https://karpenter.sh/docs/reference/well-known-labels/), for
:attr:`ProvisionerFacts.restricted_label_domains`."""
KARPENTER_SH_REASONS: Mapping[str, str] = MappingProxyType(
    {
        "karpenter.sh/capacity-type": "the library sets it from provisioning.capacity_types (a NodePool requirement; "
        "Karpenter turns a template label into one, which would repeat or contradict it)",
        "karpenter.sh/nodepool": "Karpenter sets it to the NodePool's name on every node, and the NodePool CRD "
        'refuses it (label "karpenter.sh/nodepool" is restricted)',
    }
)
"""Why a pool may not set the ``karpenter.sh`` keys the NodePool CRD's domain rule lets through, for
:attr:`ProvisionerFacts.label_reasons`."""
LIBRARY_INSTANCE_LABEL = (
    "the NodePool CRD allows it, but Karpenter turns a template label into a requirement, and the library sets the "
    "pool's instance types and node class from instance_type itself: it would repeat or contradict them; select a "
    "node by it in a workload instead"
)
"""Why a pool may not set a provider's instance label the NodePool CRD's domain rule lets through."""


NODEPOOL_REQUIREMENT_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
"""The operators of a Karpenter NodePool requirement (``template.spec.requirements[].operator``), the same enum in the
NodePool CRDs of Karpenter's AWS provider v1.14.1 and Azure's v1.14.2
(tests/reference/karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml,
tests/reference/karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml), for
:attr:`ProvisionerFacts.requirement_operators`."""


@dataclass(frozen=True, slots=True)
class ProvisionerFacts:
    """A provisioner of the cloud (``provisioning.provisioner``) as data: the node labels it sets on the nodes it
    creates, which a workload selects when a pool label is not enough, and how a pod asks not to be disrupted.

    Attributes:
        source: the page documenting the provisioner.
        gpu_name_label: node label with the GPU model's name, as the provisioner spells it.
        gpu_count_label: node label with the node's GPU count.
        gpu_memory_label: node label with one GPU's memory (MiB), or ``None`` where the provisioner sets none.
        do_not_disrupt: the pod annotation (key, value) that keeps the provisioner from voluntarily removing the
            pod's node while the pod runs (consolidation; not forceful disruption such as expiry or a spot
            interruption).
        labels_source: the page listing those labels and the annotation.
        gpu_name_value: the value of ``gpu_name_label`` on a node of an instance type (as the catalog names it), or
            ``None`` where the provisioner sets none or the library does not know it (the workload helpers then
            refuse to select by it).
        gpu_memory_mib: the value of ``gpu_memory_label`` on a node of an instance type, or ``None`` (as above).
        values_source: the page or code the values of ``gpu_name_value`` / ``gpu_memory_mib`` come from.
        counts_whole_gpus: the provisioner decides how many nodes to create from each instance type's GPU count
            (``nvidia.com/gpu``), knowing nothing of time-slicing replicas, MPS clients or MIG devices
            (Karpenter-based provisioners: :func:`~gpu_components.autoscaler.provisioner_note`).
        restricted_label_domains: label domains a pool's labels may not use (domain -> who sets labels in it, for
            the message), as the NodePool CRD's rule on ``template.metadata.labels`` has it
            (``!x.find("^([^/]+)").endsWith(domain)``): a key whose domain part (before its ``/``, or the whole key
            when it has none) ends with the domain, so ``mykarpenter.sh/x`` and a plain ``karpenter.sh`` too. The
            CRD lets a few well-known keys of a domain through (``karpenter.sh/capacity-type``, the instance-type
            labels); the library refuses them as well: it writes the pool's capacity type, instance types and node
            class into the NodePool itself, from the pool's own fields, and Karpenter turns a template label into a
            requirement, which would repeat or contradict those.
        restricted_labels: plain label keys the NodePool CRD refuses in ``template.metadata.labels`` (key -> who
            sets it), e.g. AKS's ``agentpool``.
        restricted_labels_source: where :attr:`restricted_label_domains` and :attr:`restricted_labels` come from.
        label_reasons: keys of a restricted domain the CRD's domain rule lets through (key -> why a pool may not
            set it all the same: the library sets it, or another CRD rule refuses it), so the error gives that
            reason instead of the domain rule's.
        excludes: the cloud's other provisioners that may not launch nodes in the same cluster as this one.
        excludes_reason: why (with its source), the message of that rule wherever it is checked (the pools of a
            ``GpuCluster``, the example program's ``cluster`` config).
        instance_type_label: the NodePool requirement key of the instance type (Kubernetes' well-known
            ``node.kubernetes.io/instance-type`` unless the provisioner has its own, AKS NAP's
            ``karpenter.azure.com/sku-name``).
        gpu_manufacturer_label: node label with the GPU manufacturer, or ``None`` where the provisioner sets none.
        gpu_manufacturer_value: the value of ``gpu_manufacturer_label`` on a node with NVIDIA GPUs (``nvidia``), or
            ``None`` without such a label.
        requirement_operators: the operators the provisioner's NodePool takes in ``template.spec.requirements``
            (its CRD's enum), which a pool's ``provisioning.gpu_requirements`` may use; empty where the provisioner
            has no NodePool requirements.
        requirements_source: where the GPU labels a pool may require, and their values' format, are documented.
        requirements_refused: why a pool of this provisioner takes no ``provisioning.gpu_requirements`` (with what
            selects its GPUs instead), or ``""`` where it takes them.
        default_expire_after: the age after which the provisioner replaces a node when the pool gives no
            ``disruption.expire_after`` (a duration such as ``720h``), or ``None`` where nodes do not expire by age.
        expire_source: where :attr:`default_expire_after` comes from.
        expire_never: whether nodes may be kept without expiry (``expire_after: Never``); EKS Auto Mode replaces
            every node within 21 days.
        unsupported: ``provisioning`` fields (path below it, e.g. ``startup_taints``) the provisioner has no field
            for -> why, refused with :attr:`source` as the rule's source.
    """

    source: str
    gpu_name_label: str
    gpu_count_label: str
    gpu_memory_label: str | None
    do_not_disrupt: tuple[str, str]
    labels_source: str
    gpu_name_value: Callable[[str], str | None] = _no_value
    gpu_memory_mib: Callable[[str], int | None] = _no_value
    values_source: str = ""
    counts_whole_gpus: bool = False
    restricted_label_domains: Mapping[str, str] = field(default_factory=dict)
    restricted_labels: Mapping[str, str] = field(default_factory=dict)
    restricted_labels_source: str = ""
    label_reasons: Mapping[str, str] = field(default_factory=dict)
    excludes: tuple[str, ...] = ()
    excludes_reason: str = ""
    instance_type_label: str = "node.kubernetes.io/instance-type"
    gpu_manufacturer_label: str | None = None
    gpu_manufacturer_value: str | None = None
    requirement_operators: tuple[str, ...] = ()
    requirements_source: str = ""
    requirements_refused: str = ""
    default_expire_after: str | None = None
    expire_source: str = ""
    expire_never: bool = True
    unsupported: Mapping[str, str] = field(default_factory=dict)

    def gpu_labels(self) -> dict[str, str]:
        """The provisioner's GPU node labels by what each gives: ``{"name": <key>, "count": <key>, "memory": <key>,
        "manufacturer": <key>}``, without those the provisioner does not set."""
        labels = {
            "name": self.gpu_name_label,
            "count": self.gpu_count_label,
            "memory": self.gpu_memory_label,
            "manufacturer": self.gpu_manufacturer_label,
        }
        return {kind: key for kind, key in labels.items() if key is not None}


@dataclass(frozen=True, slots=True)
class FractionalGpuTypes:
    """Instance types whose nodes get a fraction of one GPU, which no GPU count describes: the library refuses them by
    name, with why and what to do instead, rather than as unknown types (they are not in the catalog).

    Attributes:
        pattern: the types' names (the whole name must match: ``fullmatch``).
        families: the instance families they form, as ``provisioning.instance_families`` would name them (``g6f``);
            empty where the library names no families.
        gpu: what a node gets, e.g. ``1/8 to 1/2 of one NVIDIA L4``.
        why: how the cloud and its provisioners count such a GPU, and so why a pool of them would never work.
        instead: what to use instead (the provisioner's documented way, or whole-GPU types).
        source: the pages and code the facts come from.
    """

    pattern: re.Pattern[str]
    families: tuple[str, ...]
    gpu: str
    why: str
    instead: str
    source: str


@dataclass(frozen=True, slots=True)
class ForceNewTable:
    """The input paths of one resource type whose change replaces the resource, and where that fact comes from.

    Paths are Pulumi input property paths in the plan's camelCase: ``a.b`` for nested objects and ``[*]`` for any
    list index; an entry covers everything beneath it (:func:`~gpu_components.plan.replacements.forces_replacement`).
    """

    fields: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True)
class RefusedChanges:
    """The inputs of one resource type that its cloud refuses to change in place, though the provider sends the change
    as an update (they are not force-new): ``pulumi up`` fails on them, and the resource stays as it was.

    Attributes:
        fields: the input paths (as :class:`ForceNewTable`'s); an entry covers everything beneath it.
        why: what the cloud says and what to do instead, e.g. ``AKS refuses to change the VM size of an existing node
            pool: add a new system pool ...``.
        source: the page that says so.
    """

    fields: tuple[str, ...]
    why: str
    source: str


@dataclass(frozen=True, slots=True)
class NodeRolls:
    """The inputs of a node-pool resource that the cloud changes in place by recreating every node of the pool, one
    after another (each drained first): the plan's diff flags such a change as draining the pool's nodes.

    Attributes:
        fields: the input paths (as :class:`ForceNewTable`'s); an entry covers everything beneath it.
        why: how the diff says it, e.g. ``GKE recreates every node of the pool to apply it``.
        source: the page that says so.
        unless: paths beneath ``fields`` that the cloud changes without recreating nodes (GKE's node labels).
    """

    fields: tuple[str, ...]
    why: str
    source: str
    unless: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ComponentOptions:
    """The resource options the library's components register a node-pool resource with (the pool components and
    the example clusters' system pools): what the engine, and so the plan's diff, applies on top of the provider's
    own rules. Each component passes :meth:`resource_options` to the resource, so the two cannot drift apart.

    Attributes:
        ignore_changes: input paths whose changes the engine ignores (the Cluster Autoscaler owns the size).
        replace_on_changes: input paths whose change replaces the resource (settings fixed at creation that the
            provider would try to update in place).
        delete_before_replace: the old resource is deleted before its replacement is created (the replacement
            has the same cloud name).
        why: why, in words.
    """

    ignore_changes: tuple[str, ...] = ()
    replace_on_changes: tuple[str, ...] = ()
    delete_before_replace: bool = False
    why: str = ""

    def resource_options(self) -> dict[str, Any]:
        """The keyword arguments of ``pulumi.ResourceOptions`` that say these options (those set)."""
        options: dict[str, Any] = {}
        if self.ignore_changes:
            options["ignore_changes"] = list(self.ignore_changes)
        if self.replace_on_changes:
            options["replace_on_changes"] = list(self.replace_on_changes)
        if self.delete_before_replace:
            options["delete_before_replace"] = True
        return options


@dataclass(frozen=True, slots=True)
class EncodedInput:
    """An input that holds an encoded document (an EC2 launch template's base64 user data, Bottlerocket TOML inside):
    the plan's diff compares the decoded documents, so a change reads as the setting that changed.

    Attributes:
        type_token: the resource's type token.
        path: the input's path, e.g. ``userData``.
        decode: the value decoded, as ``(how it was encoded, the document)``, e.g. ``("base64 TOML", {...})`` or
            ``("base64", "text")``; ``None`` when the value is not so encoded.
        source: the page that says how the value is encoded.
    """

    type_token: str
    path: str
    decode: Callable[[object], tuple[str, object] | None]
    source: str


@dataclass(frozen=True, slots=True)
class GpuImages:
    """Node images that mark a pool as a GPU pool whatever its instance type.

    Attributes:
        path: where a pool's image sits in its inputs, e.g. ``amiType``.
        label: how messages name it, e.g. ``AMI type``.
        types: the images with NVIDIA drivers.
    """

    path: str
    label: str
    types: frozenset[str]


@dataclass(frozen=True, slots=True)
class TemplateSharing:
    """How a node template's settings share GPUs: what the policy pack's shared-GPU rule reads of it.

    Attributes:
        settings: where the template's node settings sit, e.g. ``userData``.
        read: the GPU sharing strategy the settings set (or ``None``) and the node labels they give, from the value
            at ``settings``.
        shared_strategies: the strategies that share a GPU without memory isolation.
        label: how messages name the strategy setting, e.g. ``Bottlerocket device-sharing-strategy``.
        tags: where the template's tags sit.
    """

    settings: str
    read: Callable[[object], tuple[str | None, Mapping[str, Any]]]
    shared_strategies: frozenset[str]
    label: str
    tags: str


@dataclass(frozen=True, slots=True)
class NodeTemplate:
    """A resource that a node pool takes its nodes' settings from, naming it by id (an EKS launch template): what
    the plan's diff and the policy pack read of it.

    Attributes:
        type_token: the template's type token, e.g. ``aws:ec2/launchTemplate:LaunchTemplate``.
        reference: where the node pool's inputs hold the template's id, e.g. ``launchTemplate.id``.
        rolls: how the plan's diff says that a change of the template drains the pools that use it: the cloud
            updates such a pool in place but replaces every one of its nodes.
        rolls_source: the page that says so.
        sharing: how the template's settings share GPUs, or ``None`` where they cannot.
    """

    type_token: str
    reference: str
    rolls: str
    rolls_source: str
    sharing: TemplateSharing | None = None


@dataclass(frozen=True, slots=True)
class InputBound:
    """A bound the cloud's API holds one input of a node pool to, which the policy pack checks on the pools of any
    program (the components check the same facts on their own arguments, before anything is registered).

    Attributes:
        path: the input, dotted camelCase inside one pool (``osDiskSizeGB``, ``autoscaling.maxNodeCount``).
        accepted: what the cloud accepts, in words (``30 to 2048 (GB)``).
        source: the page (or the cloud's own error) that gives the bound.
        low: the smallest number accepted, or ``None``.
        high: the largest number accepted, or ``None``.
        pattern: the whole-string form a text value must have, or ``None``.
        per: for a bound per unit of something the pool's inputs name (GKE's nodes per node pool zone, for a total
            over the pool's zones), how many units the pool has and which, in words, read from the pool's inputs:
            ``(2, "the 2 zones of nodeLocations")``; ``None`` (the function's answer) where the inputs do not say,
            and then the value is not judged. ``low`` and ``high`` are per unit. ``None`` (the field) for a plain
            bound.
    """

    path: str
    accepted: str
    source: str
    low: int | None = None
    high: int | None = None
    pattern: re.Pattern[str] | None = None
    per: Callable[[Mapping[str, Any]], tuple[int, str] | None] | None = None

    def breaks(self, value: object, pool: Mapping[str, Any] | None = None) -> bool:
        """Whether ``value`` is outside the bound, for a bound :attr:`per` unit the units of ``pool`` (the pool's
        inputs). A value of another kind than the bound reads (a number for ``low``/``high``, a string for
        ``pattern``: an unknown output, say), or a pool whose units are not known, is not judged."""
        units = 1
        if self.per is not None:
            found = self.per(pool or {})
            if found is None:
                return False
            units = found[0]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            low = self.low * units if self.low is not None else None
            high = self.high * units if self.high is not None else None
            return (low is not None and value < low) or (high is not None and value > high)
        if isinstance(value, str) and self.pattern is not None:
            return self.pattern.fullmatch(value) is None
        return False

    def accepted_for(self, pool: Mapping[str, Any] | None = None) -> str:
        """What the cloud accepts, in words, for ``pool``: :attr:`accepted`, and for a bound :attr:`per` unit the
        bound over the pool's units (``at most 1000 nodes per node pool zone: at most 2000 over the 2 zones of
        nodeLocations``)."""
        found = self.per(pool or {}) if self.per is not None else None
        if found is None:
            return self.accepted
        units, what = found
        over = [f"at least {self.low * units}"] if self.low is not None else []
        over += [f"at most {self.high * units}"] if self.high is not None else []
        return f"{self.accepted}: {' and '.join(over)} over {what}"


@dataclass(frozen=True, slots=True)
class NodePoolResource:
    """A provider resource that holds GPU node pools, as the Pulumi engine sees its inputs (camelCase; ``a.b`` is
    key ``b`` of object ``a``): what the plan's diff and the policy pack read of it.

    Attributes:
        type_token: the resource's type token, e.g. ``aws:eks/nodeGroup:NodeGroup``.
        instance_types: where a pool's instance type sits (a string, or a list of them).
        taints: where a pool's taints sit.
        taint_text: the taints are ``key=value:Effect`` strings rather than ``{key, value, effect}`` objects.
        missing_gpu_taint: how the policy pack says that a GPU pool has no repelling GPU taint, ``{gpu}`` being
            what marks it as a GPU pool; ``""`` when the cloud taints GPU nodes itself
            (:attr:`CloudFacts.gpu_taint_source`).
        api_versions: the provider also has the type in API-version modules, the same resource
            (``azure-native:containerservice/v20240901:AgentPool``).
        pools: where a list of pools sits inside the resource (an AKS cluster's ``agentPoolProfiles``); ``""``
            when the resource is one pool.
        gpu_images: node images that make a pool a GPU pool, or ``None``.
        accelerators: where the GPUs attached to a pool sit (``{type, count}`` objects), or ``""``.
        sharing_strategy: where a GPU sharing strategy sits inside each accelerator, or ``""``.
        shared_strategies: the strategies that share a GPU without memory isolation.
        labels: where a pool's node labels sit, or ``""``.
        force_new: the inputs whose change replaces the resource, or ``None`` when the plan knows no such rule for
            it (then it is not a node pool to the plan's diff).
        template: the resource the pool may take its nodes' settings from, or ``None``.
        rolls: the inputs the cloud changes in place by recreating every node, or ``None``.
        component: the resource options the library's components register the resource with, or ``None``.
        bounds: the bounds the cloud's API holds a pool's inputs to (:class:`InputBound`).
    """

    type_token: str
    instance_types: str
    taints: str
    missing_gpu_taint: str
    taint_text: bool = False
    api_versions: bool = False
    pools: str = ""
    gpu_images: GpuImages | None = None
    accelerators: str = ""
    sharing_strategy: str = ""
    shared_strategies: frozenset[str] = frozenset()
    labels: str = ""
    force_new: ForceNewTable | None = None
    template: NodeTemplate | None = None
    rolls: NodeRolls | None = None
    component: ComponentOptions | None = None
    bounds: tuple[InputBound, ...] = ()

    def node_labels(self, inputs: Mapping[str, object]) -> Mapping[str, object]:
        """The node labels a resource of this type gives its pool, read from its ``inputs`` (plain, camelCase) at
        :attr:`labels`; empty where the record has no labels path or the inputs hold no labels map there."""
        value: object = inputs if self.labels else None
        for key in self.labels.split("."):
            value = value.get(key) if isinstance(value, Mapping) else None
        return value if isinstance(value, Mapping) else {}

    def matches(self, resource_type: str) -> bool:
        """Whether ``resource_type`` is this resource (in any API-version module, where the provider has them)."""
        if resource_type == self.type_token:
            return True
        if not self.api_versions:
            return False
        package, module, name = self.type_token.split(":")
        return (
            re.fullmatch(rf"{re.escape(package)}:{re.escape(module)}/v[0-9a-z]+:{re.escape(name)}", resource_type)
            is not None
        )


@dataclass(frozen=True, slots=True)
class ReservedPrefixes:
    """Key prefixes a cloud keeps for its own node labels (and, where ``taints``, taints), and its source."""

    prefixes: tuple[str, ...]
    taints: bool
    source: str


@dataclass(frozen=True, slots=True)
class NodeLimit:
    """The most nodes a cloud allows in one node pool, and its source."""

    nodes: int
    source: str


@dataclass(frozen=True, slots=True)
class CloudFacts:
    """One cloud's facts record (see the module docstring).

    Attributes:
        cloud: ``aws``, ``azure`` or ``gcp``.
        service: how messages name the cloud's Kubernetes service: ``EKS``, ``AKS``, ``GKE``.
        pool_name: what a node pool name may be.
        taint_effects: Kubernetes taint effect -> the cloud API's spelling.
        driver: who installs the NVIDIA driver, and how a pool says so.
        gpu_operator: what the GPU Operator needs on the cloud.
        node_pools: the provider resources that hold node pools, as the plan and the policy pack read them.
        attached_gpus: GPUs also attach to some of the cloud's CPU machine types (GCP N1), so a pool of a
            catalogued non-GPU type may name its GPU model and count.
        instance_types_ignore_case: the cloud's API matches instance type names case-insensitively (Azure VM sizes).
        gpu_taint_source: the page saying the cloud taints GPU nodes with the default GPU taint itself
            (``nvidia.com/gpu=present:NoSchedule``, GKE), or ``None``.
        reserved_prefixes: label (and taint) key prefixes the cloud's node-pool API keeps for itself, beyond
            Kubernetes' own ``kubernetes.io/`` and ``k8s.io/``; with the page that says so.
        max_pool_nodes: the most nodes one node pool may have (its ``max_size``), with the page that says so;
            ``None`` where the cloud sets no per-pool maximum that ``max_size`` maps onto.
        managed_device_plugin: what the cloud's own device plugin asks of pods on shared GPUs, or ``None`` where
            the cloud runs no device plugin of its own.
        accelerator_type_source: the page saying that the cloud's API names a machine's GPUs by an accelerator type
            besides the machine type (GKE's ``guestAccelerators[].type``), so the catalog gives each of its NVIDIA
            machine types one (:attr:`~gpu_components.catalog.InstanceType.accelerator_type`); ``None`` elsewhere.
        encoded_inputs: inputs of the cloud's resources that hold an encoded document, which the plan's diff
            compares decoded.
        force_new: the inputs whose change replaces each of the other resources the library creates for a pool
            (Auto Scaling group tags, IAM roles and their attachments, launch templates, service accounts, IAM
            members), by resource type, with their sources; the plan's diff flags such a change as a replacement.
        provisioners: the provisioners a pool of the cloud may name (``provisioning.provisioner``), each with its
            facts; none where the cloud has none.
        instance_family_separator: what ends an instance family in the cloud's instance type names (``.`` in
            ``g6e.xlarge``, ``-`` in ``g2-standard-4``), so ``provisioning.instance_families`` can name families;
            ``None`` where the library names no families (AKS VM sizes).
        dra: what NVIDIA's DRA driver needs on the cloud's pools (:class:`DraFacts`), or ``None`` where the
            library does not run it.
        exclusive_selectors: node labels beside which the cloud lets a pod select only some others
            (:class:`ExclusiveSelector`); none where the cloud has none.
        fractional_gpu_types: instance types of the cloud whose nodes get a fraction of a GPU, refused by name.
        refused_in_place: the inputs the cloud refuses to change in place, by resource type (:class:`RefusedChanges`;
            AKS: the VM size of a cluster's inline agent pools); the plan's diff flags such a change as refused.
        provider_force_new: the settings of the cloud's Pulumi provider whose change makes the provider's
            ``DiffConfig`` ask to replace every resource it manages, by provider type (``pulumi:providers:aws``:
            ``region``); a change of any other setting is the provider's to judge, which the plan cannot ask.
    """

    cloud: Cloud
    service: str
    pool_name: PoolNameRule
    taint_effects: Mapping[TaintEffect, str]
    driver: DriverOwnership
    gpu_operator: GpuOperatorFacts
    node_pools: tuple[NodePoolResource, ...]
    attached_gpus: bool = False
    instance_types_ignore_case: bool = False
    gpu_taint_source: str | None = None
    reserved_prefixes: ReservedPrefixes | None = None
    max_pool_nodes: NodeLimit | None = None
    managed_device_plugin: ManagedDevicePlugin | None = None
    accelerator_type_source: str | None = None
    encoded_inputs: tuple[EncodedInput, ...] = ()
    force_new: Mapping[str, ForceNewTable] = field(default_factory=lambda: MappingProxyType({}))
    provisioners: Mapping[ProvisionerName, ProvisionerFacts] = field(default_factory=lambda: MappingProxyType({}))
    instance_family_separator: str | None = None
    dra: DraFacts | None = None
    exclusive_selectors: tuple[ExclusiveSelector, ...] = ()
    fractional_gpu_types: tuple[FractionalGpuTypes, ...] = ()
    refused_in_place: Mapping[str, RefusedChanges] = field(default_factory=lambda: MappingProxyType({}))
    provider_force_new: Mapping[str, ForceNewTable] = field(default_factory=lambda: MappingProxyType({}))


@functools.cache
def facts_for(cloud: str) -> CloudFacts:
    """The facts record of ``cloud``, imported from ``gpu_components.<cloud>.facts`` on first use (no cloud SDK).

    Raises:
        KeyError: ``cloud`` is not one of :data:`CLOUDS`.
    """
    if cloud not in CLOUDS:
        raise KeyError(f"no facts for cloud {cloud!r}; known: {', '.join(CLOUDS)}")
    return cast(CloudFacts, importlib.import_module(f"gpu_components.{cloud}.facts").FACTS)


def all_cloud_facts() -> tuple[CloudFacts, ...]:
    """Every cloud's facts record, in the order of :data:`CLOUDS`."""
    return tuple(facts_for(cloud) for cloud in CLOUDS)
