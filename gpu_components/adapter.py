"""What each cloud provides to the cross-cloud composition and the example program.

A cloud package (``aws``, and later ``azure`` and ``gcp``) exposes one :class:`CloudAdapter`: the shapes of its
pool options and cluster wiring, its extra rules, where the device plugin runs on its pools (both per GPU stack),
how to create a node pool component, how the example program creates or attaches a cluster, and its facts as data
(:class:`~gpu_components.cloud_facts.CloudFacts`, held SDK-free in ``gpu_components.<cloud>.facts`` so the plan and
the policy pack read them without the cloud's SDK).
:mod:`gpu_components.cluster` and :mod:`gpu_components.program` only dispatch on the cloud; they hold no cloud
spelling.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, cast

import pulumi

from gpu_components.catalog import Cloud, CpuArchitecture, find_instance_type
from gpu_components.cloud_facts import CloudFacts
from gpu_components.dra import dra_devices
from gpu_components.enums import GpuStackName, value_of
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.name_forms import NameForm
from gpu_components.nvidia.dra_driver import pool_access_problems
from gpu_components.shape import args_problems
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, Taint

if TYPE_CHECKING:
    from gpu_components.labels import Toleration

GpuStack = GpuStackName
"""A GPU stack's value, as the library's code is typed (the args' and schema's enum is
:class:`gpu_components.enums.GpuStack`, exported as ``gpu_components.GpuStack``). Who advertises GPUs to
Kubernetes. ``auto``: each cloud's and image's own way, and the NVIDIA device plugin
DaemonSet where nothing else runs one; ``device-plugin``: the same, stated explicitly; ``gpu-operator``: the NVIDIA
GPU Operator (device plugin, MIG manager, GPU feature discovery, DCGM exporter) on every pool whose node image
does not run its own device plugin."""
GPU_STACKS: tuple[GpuStack, ...] = ("auto", "device-plugin", "gpu-operator", "dra")

DevicePluginHost = Literal["daemonset", "node-image", "cloud", "gpu-operator", "dra-driver"]
"""Who advertises GPUs on a pool's nodes: the cluster's NVIDIA device plugin DaemonSet, the node image's own
host plugin (Bottlerocket NVIDIA), the cloud's managed plugin (GKE), the NVIDIA device plugin run by the GPU
Operator, or NVIDIA's DRA driver (DRA devices for resource claims, no extended resource). Exactly one per pool."""

# The pool outputs' annotations on each node-pool component class: for a type checker the Python attributes' types,
# for Pulumi's schema analyzer (which reads the class annotations at run time and takes no tuple, Literal or
# postponed annotation) their schema types. The values are the same: a Taint serializes as its mapping.
if TYPE_CHECKING:
    PoolTaints: TypeAlias = tuple[Taint, ...]
    PoolTolerations: TypeAlias = list[Toleration]
    PoolDevicePluginHost: TypeAlias = DevicePluginHost
else:
    PoolTaints = list[Taint]
    PoolTolerations = list[dict[str, str]]
    PoolDevicePluginHost = str


class GpuNodePool(Protocol):
    """What every cloud's node-pool component exposes (plain values, known at preview)."""

    spec: GpuNodePoolSpec
    device_plugin_host: DevicePluginHost
    labels: dict[str, str]
    """Every node label the pool's nodes get from its definition (user labels and the library's)."""
    taints: tuple[Taint, ...]
    """Every taint on the pool's nodes, including taints the cloud adds itself (e.g. AKS spot)."""
    advertised_resources: dict[str, int]
    """Extended resource name -> count each node advertises, as the pool's device plugin names them."""

    @property
    def dra_devices(self) -> dict[str, int]:
        """What each node publishes to DRA (:func:`~gpu_components.dra.dra_devices`: ``gpu.nvidia.com`` or
        ``mig.nvidia.com/<profile>`` -> devices per node) when NVIDIA's DRA driver serves the pool, else ``{}``."""

    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool (the pool label, plus what the cloud requires)."""
    autoscaler_note: str | None
    """What the Cluster Autoscaler (a provisioned pool: its provisioner) cannot model about the pool's nodes when it
    scales it from zero (e.g. resources that appear only after a node joins), or ``None``
    (:mod:`gpu_components.autoscaler`, :func:`~gpu_components.autoscaler.provisioner_note`)."""
    tolerations: list[Toleration]
    """The tolerations a pod needs for every taint of the pool's nodes (Kubernetes spelling)."""
    served_by: str | None
    """The add-on component (``NvidiaDevicePlugin``/``NvidiaGpuOperator``) that advertises the pool's GPUs, once one
    has taken the pool: a second one is refused (two advertisers on one node)."""


@dataclass
class PoolView:
    """What a node-pool component exposes (the :class:`GpuNodePool` attributes), computed from a validated pool, its
    cloud options and the GPU stack without creating any resource: :attr:`CloudAdapter.describe_pool`.

    Each node-pool component takes its plain attributes from its cloud's view, and an add-on given a pool as plain
    values (a :class:`~gpu_components.cluster.ClusterPoolArgs` in its ``pools``) serves the view, so the two never
    disagree. Attributes: those of :class:`GpuNodePool`, and ``driver_setting``.
    """

    spec: GpuNodePoolSpec
    device_plugin_host: DevicePluginHost
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    advertised_resources: dict[str, int]
    node_selector: dict[str, str]
    autoscaler_note: str | None
    tolerations: list[Toleration]
    driver_setting: str
    """The pool's value of its cloud's driver setting (:attr:`~gpu_components.cloud_facts.DriverOwnership.setting`:
    EKS ``ami_type``, AKS ``gpu_driver``, GKE ``driver_version``), the default filled in; what the GPU Operator's
    driver-ownership rule reads."""
    served_by: str | None = None
    driver_setting_set: bool = True
    """Whether ``driver_setting`` was given (``False``: the default filled in)."""
    node_os: str | None = None
    """The OS of the pool's nodes where the cloud offers several for GPU pools: its family (AKS: ``Ubuntu`` or ``Azure
    Linux``), then its version where the pool names one (``Ubuntu 22.04``), else ``None``; the GPU Operator warns when
    it serves pools of more than one family or named version
    (:func:`~gpu_components.nvidia.gpu_operator.mixed_node_os_note`)."""

    @property
    def dra_devices(self) -> dict[str, int]:
        """What each node publishes to DRA (:func:`~gpu_components.dra.dra_devices`) when the pool's host is
        ``dra-driver``; ``{}`` for a pool another party advertises (extended resources, no DRA devices)."""
        return dra_devices(self.spec) if self.device_plugin_host == "dra-driver" else {}


def adopt_view(component: GpuNodePool, view: PoolView) -> None:
    """Give a node-pool component the plain attributes it exposes beyond its ``spec`` from its cloud's pool view (the
    one code path behind both a component and an add-on's plain pool); ``served_by`` stays the component's own."""
    component.device_plugin_host = view.device_plugin_host
    component.labels = view.labels
    component.taints = view.taints
    component.advertised_resources = view.advertised_resources
    setattr(component, "dra_devices", view.dra_devices)  # noqa: B010 (read-only in the protocol: a PoolView computes it)
    component.node_selector = view.node_selector
    component.autoscaler_note = view.autoscaler_note
    component.tolerations = view.tolerations
    setattr(component, _DRIVER_SETTING_SET, view.driver_setting_set)
    setattr(component, NODE_OS, view.node_os)  # not in the protocol: only some clouds offer several OS families


NODE_OS = "node_os"
"""The attribute of a node-pool component that holds :attr:`PoolView.node_os` (set by :func:`adopt_view`)."""


def node_os(pool: GpuNodePool | PoolView) -> str | None:
    """The OS family of a pool's nodes (:attr:`PoolView.node_os`), for a node-pool component or a plain pool's view;
    ``None`` where its cloud offers one OS for GPU pools."""
    value = getattr(pool, NODE_OS, None)
    return value if isinstance(value, str) else None


def driver_setting_set(pool: GpuNodePool) -> bool:
    """Whether a node-pool component's args set its cloud's driver setting (EKS ``ami_type``, AKS ``gpu_driver``,
    GKE ``driver_version``); ``False`` when the default is in use, so an add-on's error shows it as the default. Kept
    off the components' declared attributes, which are their outputs."""
    return bool(getattr(pool, _DRIVER_SETTING_SET, True))


_DRIVER_SETTING_SET = "_driver_setting_set"
"""The private attribute :func:`adopt_view` sets for :func:`driver_setting_set`."""


def pool_outputs(pool: GpuNodePool) -> dict[str, Any]:
    """The outputs every node-pool component registers besides its cloud's own (camelCase; plain values): pool
    name, node labels, taints and the tolerations a workload needs for them, node selector, what each node
    advertises (resource name -> count) and publishes to DRA (``draDevices``), who advertises it, and the autoscaler
    note."""
    return {
        "poolName": pool.spec.name,
        "labels": pool.labels,
        "taints": [dict(taint.to_args()) for taint in pool.taints],
        "tolerations": pool.tolerations,
        "nodeSelector": pool.node_selector,
        "advertisedResources": pool.advertised_resources,
        "draDevices": pool.dra_devices,
        "devicePluginHost": pool.device_plugin_host,
        "autoscalerNote": pool.autoscaler_note,
    }


POOL_COMPONENTS = "EksGpuNodeGroup, AksGpuNodePool or GkeGpuNodePool"
"""The node-pool components, for error messages."""


def is_pool_component(value: object) -> bool:
    """Whether ``value`` is a node-pool component (has a validated ``spec`` and a ``device_plugin_host``)."""
    return isinstance(getattr(value, "spec", None), GpuNodePoolSpec) and isinstance(
        getattr(value, "device_plugin_host", None), str
    )


@dataclass(frozen=True)
class KubernetesInstall:
    """What a cluster got through the Kubernetes provider before its GPU pools (:attr:`ProvisionedCluster.kubernetes`).

    Attributes:
        depends_on: the resources the pools must wait for.
        wiring: what it adds to the cluster's wiring, e.g. EKS's Karpenter node role as ``node_role_arn``.
    """

    depends_on: list[pulumi.Resource]
    wiring: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProvisionedCluster:
    """A cluster the example program created or attached to.

    Attributes:
        kubeconfig: kubeconfig text for the Kubernetes provider (the program marks it secret).
        wiring: the cloud's wiring args for :class:`~gpu_components.cluster.GpuCluster`.
        depends_on: resources the GPU pools must wait for (the cluster, its system pool).
        kubernetes: what the cluster needs set up through the Kubernetes provider (given) before the GPU pools,
            e.g. EKS's Karpenter controller; returns what the pools wait for and the wiring it adds. None when
            nothing.
    """

    kubeconfig: pulumi.Input[str]
    wiring: Mapping[str, Any]
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    kubernetes: Callable[[pulumi.ProviderResource], KubernetesInstall] | None = None


@dataclass(frozen=True)
class WorkloadOnlyMode:
    """A cluster mode in which the cloud runs the GPU nodes and their whole GPU stack, with no node pool for the
    library to create and no add-on it may deploy (GKE Autopilot): each pool is a workload target only.

    Attributes:
        name: the mode as users know it, e.g. ``GKE Autopilot``.
        problems: (pools, wiring, settings, prefix, wiring_path) -> (the pools' specs, every problem): the mode's
            rules for the pools, the wiring and the GPU stack settings (``settings``: ``gpu_stack`` and the add-ons'
            settings as given); ``wiring`` is the component's cluster wiring or the stack's ``cluster`` config, found
            at ``wiring_path``.
        create_pool: (name, pool, wiring, opts) -> the pool's component (it registers no cloud resource).
    """

    name: str
    problems: Callable[
        [object, Mapping[str, Any], Mapping[str, Any], str, str],
        tuple[tuple[GpuNodePoolSpec, ...], list[Problem]],
    ]
    create_pool: Callable[[str, Mapping[str, Any], Mapping[str, Any], pulumi.ResourceOptions], GpuNodePool]


@dataclass(frozen=True)
class CloudAdapter:
    """One cloud's part of the composition.

    Attributes:
        cloud: ``aws``, ``azure`` or ``gcp``.
        pool_options: ``TypedDict`` of the pool's cloud block (key ``cloud`` in a cluster pool).
        cluster_config: ``TypedDict`` of the example program's ``cluster`` config on this cloud.
        problems: the cloud's rules for a validated pool, its options and the cluster's GPU stack; paths start
            with ``path``. Driver ownership under the GPU Operator is not among them: the composition checks it
            with :func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`.
        device_plugin_host: who advertises GPUs on the pool's nodes under the GPU stack.
        create_pool: create the node-pool component ``name`` for a pool, its options, the cluster wiring and the
            GPU stack (which decides the pool's labels and cloud settings).
        describe_pool: what the node-pool component of a validated pool, its options and the GPU stack exposes
            (:class:`PoolView`), without creating anything; the component takes its plain attributes from it.
        config_problems: extra rules for the ``cluster`` config beyond its shape.
        provision: create or attach the example cluster from validated ``cluster`` config.
        wiring, facts: see below.
    """

    cloud: Cloud
    pool_options: type
    cluster_config: type
    problems: Callable[[GpuNodePoolSpec, Mapping[str, Any], str, GpuStack], list[Problem]]
    device_plugin_host: Callable[[GpuNodePoolSpec, Mapping[str, Any], GpuStack], DevicePluginHost]
    create_pool: Callable[
        [str, GpuNodePoolArgs, Mapping[str, Any], Mapping[str, Any], GpuStack, pulumi.ResourceOptions], GpuNodePool
    ]
    describe_pool: Callable[[GpuNodePoolSpec, Mapping[str, Any], GpuStack], PoolView]
    config_problems: Callable[[Mapping[str, Any]], list[Problem]]
    provision: Callable[[Mapping[str, Any]], ProvisionedCluster]
    wiring: type
    """``TypedDict`` of the cluster wiring :class:`~gpu_components.cluster.GpuCluster` takes for this cloud (its
    values may be Pulumi inputs, so only its keys are checked)."""
    facts: CloudFacts
    """The cloud's facts as data (spellings, pool-name rule, driver ownership, GPU Operator needs, node-pool
    resources), the record ``gpu_components.<cloud>.facts`` holds without the SDK
    (:func:`~gpu_components.cloud_facts.facts_for`)."""
    stack_problems: Callable[[Mapping[str, Any], Sequence[Any]], list[Problem]] = lambda cluster, pools: []
    """The example program's rules between a well-shaped ``cluster`` config and the pools (paths ``pools[<i>]...``),
    e.g. a provisioned pool needs its provisioner on the cluster. Defaults to none."""
    wiring_problems: Callable[[Mapping[str, Any], Sequence[Any]], list[Problem]] = lambda wiring, pools: []
    """The cloud's rules between a :class:`~gpu_components.cluster.GpuCluster`'s wiring and its pools (paths
    ``pools[<i>]...``), e.g. EKS: an Auto Mode pool on a NodeClass it does not own needs the wiring's
    ``node_role_arn``. Defaults to none."""
    pools_problems: Callable[[Sequence[GpuNodePoolSpec], str], list[Problem]] = lambda specs, prefix: []
    """The cloud's rules between the valid pools of one cluster (every entry point: ``GpuCluster`` and the stack
    config; paths ``<prefix>pools[<i>]...``), e.g. AKS: fixed pools and Node Auto Provisioning pools may not share a
    cluster. Defaults to none."""
    wiring_pool_problems: Callable[[Sequence[GpuNodePoolSpec], Mapping[str, Any]], list[Problem]] = (
        lambda specs, wiring: []
    )
    """The cloud's rules of a :class:`~gpu_components.cluster.GpuCluster`'s cluster wiring, alone and with the valid
    pools (none when a pool has problems; paths ``<cloud>...`` and ``pools[<i>]...``): EKS's cluster name, GKE's fixed
    pool ``max_size`` within its ``node_locations`` zones. Defaults to none."""
    options_problems: Callable[[Sequence[GpuNodePoolSpec], Sequence[Mapping[str, Any]], str], list[Problem]] = (
        lambda specs, options, prefix: []
    )
    """The cloud's rules between the valid pools of one cluster and their cloud blocks (``options[i]`` is
    ``specs[i]``'s, ``{}`` when not given; every entry point: ``GpuCluster`` and the stack config), e.g. GKE: a fixed
    pool's ``gcp.compute_class`` names a ComputeClass pool of the cluster. Defaults to none."""
    cluster_forms: Mapping[str, NameForm] = field(default_factory=dict)
    """The example ``cluster`` config's keys whose values have a cloud's form (name, region), by key: a required one
    left out names its form as the valid values. Defaults to none."""
    wiring_notes: Callable[[Sequence[GpuNodePoolSpec], Mapping[str, Any]], list[str]] = lambda specs, wiring: []
    """Warnings about wiring settings that change nothing for the valid pools (EKS: ``aws.karpenter_controller:
    true`` with no Karpenter pool), each with its reason; :class:`~gpu_components.cluster.GpuCluster` logs them
    (``pulumi.log.warn``), as they stop nothing. Defaults to none."""
    default_kubernetes_version: str | None = None
    """The ``MAJOR.MINOR`` a new example cluster runs when its ``cluster`` config gives no ``kubernetes_version``
    (EKS and AKS: the version the program creates it with); ``None`` where the cloud picks it (GKE: its release
    channel's). Defaults to none."""
    workload_only: Callable[[Mapping[str, Any]], WorkloadOnlyMode | None] = lambda wiring: None
    """The cluster mode of a wiring (or stack ``cluster`` config) whose pools are workload targets only
    (:class:`WorkloadOnlyMode`: GKE Autopilot), or ``None`` for the cloud's node pools. Defaults to none."""


def validated_pool(
    shape: type,
    args: object,
    cloud: Cloud,
    rules: Callable[[GpuNodePoolSpec], list[Problem]],
    spellings: Mapping[str, Mapping[str, str]] | None = None,
    *,
    fixed: Callable[[object], list[Problem]] | None = None,
) -> GpuNodePoolSpec:
    """Validate a node-pool component's args, collect every problem, and return the pool's spec.

    The component's own fields first (:func:`~gpu_components.shape.args_problems`: unknown keys with the closest
    known one, missing wiring, nulls, types, enum values, ``spellings`` of the cloud's own values), the pool in
    full (:meth:`~gpu_components.spec.GpuNodePoolSpec.from_args`, paths under ``pool``), then, when both are sound,
    the pool's rules under the component's ``gpu_stack`` that every entry point applies
    (:func:`~gpu_components.nvidia.dra_driver.pool_access_problems`: ``pool.gpu_access``, ``pool.time_slicing``,
    ``pool.mps``) and the cloud's ``rules`` for the spec (called with the args already checked). A fixed node-pool
    component passes ``fixed`` (:func:`fixed_pool_problems` over the raw pool): a pool it refuses there (one with a
    ``provisioning`` key) gets that problem alone, none about the block's contents.

    Raises:
        GpuSpecError: with every problem found, before the component registers anything.
    """
    problems = args_problems(shape, args, validated_elsewhere=("pool",), spellings=spellings)
    spec: GpuNodePoolSpec | None = None
    pool = args.get("pool") if isinstance(args, Mapping) else None
    sound = not problems
    redirect = fixed(pool) if fixed is not None else []
    problems += redirect
    if pool is not None and not redirect:
        # A pool out of only its cloud's bounds (``checked``) is sound: its rules are checked too, all at once.
        spec, found = GpuNodePoolSpec.checked(pool, cloud, "pool")
        problems += found
    if spec is not None and sound:
        gpu_stack = value_of(args.get("gpu_stack", "auto")) if isinstance(args, Mapping) else "auto"
        problems += pool_access_problems(spec, pool if isinstance(pool, Mapping) else {}, gpu_stack, "pool")
        problems += rules(spec)
    if problems or spec is None:
        raise GpuSpecError(problems)
    return spec


def fixed_pool_problems(
    pool: object, component: str, made: str, provisioned: Mapping[str, tuple[str, str]]
) -> list[Problem]:
    """A ``provisioning`` key in the raw ``pool`` given to ``component``, a fixed node-pool component that makes
    ``made`` (fixed bounds, no provisioner): one problem naming the component to use instead (``provisioned``:
    provisioner -> (its name as users know it, its component)), whatever the block holds. At
    ``pool.provisioning.provisioner`` when the block names one of the cloud's provisioners, else at
    ``pool.provisioning`` (no provisioner, another cloud's, a block that is not a mapping, or null). ``[]`` for a
    pool without the key (and for a pool that is not a mapping: the pool's shape check reports it)."""
    if not isinstance(pool, Mapping) or "provisioning" not in pool:
        return []
    block = pool["provisioning"]
    provisioner = value_of(block.get("provisioner")) if isinstance(block, Mapping) else None
    valid = f"no provisioning, or {' or '.join(made_by for _, made_by in provisioned.values())}"
    if isinstance(provisioner, str) and provisioner in provisioned:
        what, made_by = provisioned[provisioner]
        return [
            Problem(
                "pool.provisioning.provisioner",
                provisioner,
                f"{component} makes {made}; a pool that {what} creates nodes for is {_article(made_by)} {made_by}",
                valid,
            )
        ]
    made_by_each = "; ".join(
        f"a pool that {what} creates nodes for (provisioner: {name}) is {_article(made_by)} {made_by}"
        for name, (what, made_by) in provisioned.items()
    )
    return [
        Problem("pool.provisioning", block, f"{component} makes {made}, with no provisioning; {made_by_each}", valid)
    ]


def _article(noun: str) -> str:
    return "an" if noun[:1] in "AEIOU" else "a"


def pool_component_args(
    pool: GpuNodePoolArgs, options: Mapping[str, Any], wiring: Mapping[str, Any], gpu_stack: GpuStack
) -> dict[str, Any]:
    """The args of a cloud's node-pool component: the pool, the cluster wiring and the pool's cloud options, whose
    keys each cloud names after its component's args (checked before: wiring keys by the composition, options by
    their ``TypedDict``), and the GPU stack."""
    return {"pool": pool, **wiring, **options, "gpu_stack": gpu_stack}


@dataclass(frozen=True)
class SystemPoolSizes:
    """How a cloud's example cluster config names and defaults its system pool's node counts.

    Attributes:
        key: the system pool's key in the ``cluster`` config (``system_node_group`` on EKS).
        names: the (minimum, count at creation, maximum) keys, e.g. ``("min_size", "desired_size", "max_size")``.
        defaults: their defaults, in the same order.
        floor: the least minimum the cloud accepts (AKS: 1 for a ``System`` pool).
        floor_source: the document of ``floor``; None when it is only "not negative".
    """

    key: str
    names: tuple[str, str, str]
    defaults: tuple[int, int, int]
    floor: int = 0
    floor_source: str | None = None

    def counts(self, cluster: Mapping[str, Any]) -> dict[str, int]:
        """The three node counts of ``cluster``'s system pool by name, defaults filled in."""
        given = cluster.get(self.key) or {}
        return {name: int(given.get(name, default)) for name, default in zip(self.names, self.defaults, strict=True)}


@dataclass(frozen=True)
class VersionForm:
    """How a cloud spells a new cluster's ``kubernetes_version``.

    Attributes:
        pattern: the whole value must match it (``re.fullmatch``: no space or newline around it).
        valid: the forms, as text for the error, e.g. ``MAJOR.MINOR, e.g. 1.34``.
        source: the cloud's API document of the field.
    """

    pattern: re.Pattern[str]
    valid: str
    source: str


@dataclass(frozen=True)
class SystemImage:
    """The one CPU architecture a cloud's system pool image runs on (EKS's ``AL2023_x86_64_STANDARD``).

    Attributes:
        name: the image as the cloud names it.
        architecture: the CPU architecture of the instance types it runs on.
        source: the page that says so.
    """

    name: str
    architecture: CpuArchitecture
    source: str


def system_instance_type_problems(
    cloud: Cloud, value: object, path: str, form: NameForm, image: SystemImage | None = None
) -> list[Problem]:
    """The system pool's instance type (``value``, at ``path``): one the catalog knows (a GPU type, or one of its
    non-GPU families, :func:`~gpu_components.catalog.find_instance_type`) of ``image``'s CPU architecture when the
    image runs on one only, else at least of the cloud's ``form``, which the cloud's API would otherwise refuse at
    apply time. A value that is not a string is the shape check's."""
    if not isinstance(value, str):
        return []
    known = find_instance_type(cloud, value)
    if known is None:
        return form.problems(value, path)
    if image is None or known.cpu_architecture == image.architecture:
        return []
    return [
        Problem(
            path,
            value,
            f"an {known.cpu_architecture} instance type, but the system pool runs {image.name}, an "
            f"{image.architecture} image",
            f"an {image.architecture} instance type",
            image.source,
        )
    ]


def example_cluster_problems(
    cluster: Mapping[str, Any],
    new_cluster_only: tuple[str, ...],
    system: SystemPoolSizes,
    version: VersionForm,
    existing_requires: tuple[str, ...] = (),
) -> list[Problem]:
    """The rules every cloud's example ``cluster`` config shares (beyond its shape).

    - With ``existing: true``, no key of ``new_cluster_only`` (version, network, system pool...): the program
      neither creates nor changes an existing cluster, so it would drop them without a word; and every key of
      ``existing_requires`` (what the program cannot look up, e.g. the EKS node subnets).
    - Of a new cluster, a ``kubernetes_version`` string in the cloud's ``version`` form, whole (a trailing newline
      from a YAML block scalar would reach the cloud's API, which refuses it at apply time).
    - Of a new cluster, the system pool's minimum, count at creation and maximum, defaults filled in: minimum at
      least ``system.floor``, maximum at least 1 and at least the minimum, count between the two (the node-group
      APIs of all three clouds reject anything else at apply time; here it fails before any resource).

    Returns:
        the problems, with paths ``cluster.<key>`` and ``cluster.<system key>.<name>``; a defaulted value is
        marked ``(default)`` in the message, and a problem at a field left to its default shows it as
        ``(default: 2)`` (:class:`~gpu_components.errors.Default`), not as a value given.
    """
    if cluster.get("existing", False):
        ignored = [
            Problem(
                f"cluster.{key}",
                cluster[key],
                "applies only to a cluster this program creates; with existing: true it would be ignored",
                "remove it, or create the cluster (existing: false)",
            )
            for key in new_cluster_only
            if key in cluster
        ]
        missing = [
            Problem(f"cluster.{key}", None, "required when attaching to an existing cluster")
            for key in existing_requires
            if key not in cluster
        ]
        return ignored + missing
    given = cluster.get(system.key) or {}
    values = system.counts(cluster)

    def label(name: str) -> str:
        return f"{name} {values[name]}" + ("" if name in given else " (default)")

    def shown(name: str) -> object:
        return values[name] if name in given else Default(values[name])

    low, count, high = system.names
    path = f"cluster.{system.key}"
    problems = []
    given_version = cluster.get("kubernetes_version")
    if isinstance(given_version, str) and not version.pattern.fullmatch(given_version):
        problems.append(
            Problem(
                "cluster.kubernetes_version",
                given_version,
                "not a Kubernetes version the cloud accepts",
                version.valid,
                version.source,
            )
        )
    if values[low] < system.floor:
        problems.append(
            Problem(
                f"{path}.{low}",
                shown(low),
                f"must be at least {system.floor}",
                f">= {system.floor}",
                system.floor_source,
            )
        )
    least_high = max(values[low], 1)
    if values[high] < least_high:
        problems.append(
            Problem(f"{path}.{high}", shown(high), f"must be at least 1 and at least {label(low)}", f">= {least_high}")
        )
    elif not values[low] <= values[count] <= values[high]:
        problems.append(
            Problem(
                f"{path}.{count}",
                shown(count),
                f"must lie between {label(low)} and {label(high)}, which this {count} does not",
                f"{values[low]}..{values[high]}",
            )
        )
    return problems


class _Adapters(Mapping[str, CloudAdapter]):
    """Cloud -> the ``ADAPTER`` of its module, imported on first lookup: a program on one cloud never imports the
    other clouds' SDKs. Listing the clouds (``in``, iteration) imports nothing."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)

    def __getitem__(self, cloud: str) -> CloudAdapter:
        return cast(CloudAdapter, importlib.import_module(self._modules[cloud]).ADAPTER)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


ADAPTERS: Mapping[str, CloudAdapter] = _Adapters(
    {"aws": "gpu_components.aws.adapter", "azure": "gpu_components.azure.adapter", "gcp": "gpu_components.gcp.adapter"}
)
"""Cloud -> its adapter (imported on first lookup). A cloud without an adapter is rejected with the list of
supported clouds."""


def adapter_for(cloud: str, path: str = "cloud") -> CloudAdapter:
    """The adapter of ``cloud``.

    Raises:
        GpuSpecError: when no adapter exists for ``cloud``.
    """
    adapter = ADAPTERS.get(cloud)
    if adapter is None:
        raise GpuSpecError([Problem(path, cloud, "no node-pool adapter for this cloud", ", ".join(ADAPTERS))])
    return adapter
