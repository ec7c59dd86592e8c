"""What the GPU add-ons (device plugin, GPU Operator) take in common: the node pools they serve and their install.

An add-on takes the pools it serves, each either as its node-pool component (``EksGpuNodeGroup``,
``AksGpuNodePool``, ``GkeGpuNodePool``: anything with the :class:`~gpu_components.adapter.GpuNodePool` attributes)
or as a plain cluster pool (:class:`~gpu_components.cluster.ClusterPoolArgs`, what a ``GpuCluster`` or stack config
pool is, and what a program in another Pulumi language passes) of the add-on's ``cloud``, and derives from them
everything it needs: the validated pools, the cloud, every taint to tolerate (those the cloud adds itself, such as
AKS's spot taint, included) and who advertises each pool's GPUs, so a pool whose GPUs someone else advertises is
refused. A plain pool's GPU stack is the add-on's own (``device-plugin`` for the device plugin, ``gpu-operator`` for
the operator), and it is turned into what its component would expose by its cloud's
:attr:`~gpu_components.adapter.CloudAdapter.describe_pool`, the function the component takes its own attributes
from, so both give the add-on the same resources.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from weakref import WeakKeyDictionary

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    POOL_COMPONENTS,
    DevicePluginHost,
    GpuNodePool,
    GpuStack,
    PoolView,
    adapter_for,
    driver_setting_set,
    is_pool_component,
)
from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import CLOUDS, facts_for
from gpu_components.cluster_pool import ClusterPoolArgs
from gpu_components.enums import CloudArg
from gpu_components.errors import Combined, GpuSpecError, Problem
from gpu_components.nvidia.device_plugin import device_plugin_config_map_annotations
from gpu_components.nvidia.dra_driver import pool_access_problems
from gpu_components.shape import args_problems
from gpu_components.spec import DNS_LABEL, SOURCE_NAMES, GpuNodePoolSpec, Mps, Taint, TimeSlicing, pool_shape_problems

ADVERTISERS: Mapping[DevicePluginHost, str] = {
    "daemonset": "the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin)",
    "gpu-operator": "the GPU Operator's device plugin (NvidiaGpuOperator; the pool was built with gpu_stack "
    "gpu-operator)",
    "node-image": "the node image's own device plugin (Bottlerocket NVIDIA runs it on the host)",
    "cloud": "the cloud's managed device plugin (GKE's, or EKS Auto Mode's)",
    "dra-driver": "NVIDIA's DRA driver (NvidiaDraDriver; the pool was built with gpu_stack dra and gpu_access dra)",
}
"""Who advertises a pool's GPUs, by :data:`~gpu_components.adapter.DevicePluginHost`, for error messages."""


if TYPE_CHECKING:
    AddOnPools: TypeAlias = Sequence[ClusterPoolArgs | GpuNodePool]
else:
    AddOnPools = list[ClusterPoolArgs]
"""The type of an add-on's ``pools``. At run time, what Pulumi's schema analyzer reads: a list of plain cluster pools
(:class:`~gpu_components.cluster.ClusterPoolArgs`), what a program in any Pulumi language can pass. For type checkers,
Python callers may also pass node-pool components (any sequence, the two mixed)."""

POOL_ENTRIES = f"{POOL_COMPONENTS}, or a cluster pool (ClusterPoolArgs, a mapping)"
"""What an add-on's ``pools`` entry may be, for error messages."""


class GpuAddOnArgs(TypedDict):
    """Inputs every GPU add-on component takes.

    Each add-on's args (:class:`~gpu_components.kubernetes.NvidiaDevicePluginArgs`,
    :class:`~gpu_components.kubernetes.NvidiaGpuOperatorArgs`) declares these fields itself, with its own defaults in
    their descriptions, instead of inheriting them: Pulumi's schema analyzer reads a field's description only from
    the class that declares it. A test keeps their types equal to these.

    Fields (``pools`` and ``cloud``: see their own docstrings):
        namespace: namespace to create and install into (a DNS-1123 label). Defaults to the add-on's own (see each
            component).
        chart_version: chart version. Defaults to the add-on's pinned, tested version.
        helm_values: raw chart values merged over the rendered ones (escape hatch). Defaults to none.
    """

    pools: AddOnPools
    """The pools the add-on serves: at least one, all of one cloud, with unique pool names. Each is the pool's
    node-pool component (``EksGpuNodeGroup``, ``AksGpuNodePool``, ``GkeGpuNodePool``; Python only) or the pool as
    plain values, a cluster pool (:class:`~gpu_components.cluster.ClusterPoolArgs`, with its optional cloud block) of
    ``cloud``; the two may be mixed. Each must be a pool whose GPUs this add-on advertises (its device plugin host,
    decided by its cloud, node image and GPU stack); a pool served by its node image, its cloud or the other add-on
    is an error naming who advertises it, and so is a component another add-on already serves (a plain pool, a
    plain value, cannot be tracked across add-ons)."""
    cloud: NotRequired[CloudArg]
    """The cloud of the pools given as plain values: ``aws``, ``azure`` or ``gcp``. Required when any pool is a
    plain cluster pool; it must equal the cloud of the node-pool components given."""
    namespace: NotRequired[str]
    chart_version: NotRequired[str]
    helm_values: NotRequired[dict[str, Any]]


@dataclass(frozen=True)
class ServedPools:
    """The pools an add-on serves, as it needs them.

    Attributes:
        cloud: their cloud.
        pools: each pool's node-pool component, or for a plain pool what its component would expose
            (:class:`~gpu_components.adapter.PoolView`), in the order given.
        specs: their validated pools, in the same order.
        node_taints: taints the pools' nodes carry beyond their specs' (added by the cloud, e.g. AKS spot), each
            once, in order of first appearance.
        driver_settings: each pool's value of its cloud's driver setting (EKS ``ami_type``, AKS ``gpu_driver``,
            GKE ``driver_version``; ``None`` for the default) and where it sits in the args (``pools[0].ami_type``
            for a component, ``pools[0].aws.ami_type`` for a plain pool), and whether the args set it (``False``:
            the default filled in), in the same order.
    """

    cloud: Cloud
    pools: tuple[GpuNodePool, ...]
    specs: tuple[GpuNodePoolSpec, ...]
    node_taints: tuple[Taint, ...]
    driver_settings: tuple[tuple[str | None, str, bool], ...]


@dataclass(frozen=True)
class OwnedValue:
    """A chart value the library decides, which an add-on's ``helm_values`` may not set.

    Attributes:
        path: the value's keys in the chart values (``("driver", "enabled")``); a section given as anything but a
            mapping replaces the value too.
        why: what depends on the library's value.
        setting: the add-on's own setting that decides it, for the error's valid values; ``None`` when none does.
    """

    path: tuple[str, ...]
    why: str
    setting: str | None


def owned_value_problems(owned: Sequence[OwnedValue], helm_values: object, prefix: str = "") -> list[Problem]:
    """Problems for ``helm_values`` (an add-on's raw chart values) that set or replace a value in ``owned``.
    ``prefix`` goes before ``helm_values`` in the paths (``gpu_operator.``)."""
    problems: list[Problem] = []
    for value in owned:
        block: object = helm_values
        for depth, key in enumerate(value.path):
            if not isinstance(block, Mapping) or key not in block:
                break
            block = block[key]
            last = depth == len(value.path) - 1
            if last or not isinstance(block, Mapping):
                where = f"{prefix}helm_values." + ".".join(value.path[: depth + 1])
                if where not in (problem.path for problem in problems):
                    instead = f"{prefix}{value.setting}" if value.setting else "leave it to the library"
                    problems.append(Problem(where, block, f"decided by the library: {value.why}", instead))
                break
    return problems


def namespace_problems(namespace: object, path: str) -> list[Problem]:
    """An add-on's namespace must be a DNS-1123 label (Kubernetes object names); not a string is a shape error."""
    if isinstance(namespace, str) and not DNS_LABEL.fullmatch(namespace):
        return [
            Problem(
                path,
                namespace,
                "not a valid namespace name (DNS-1123 label)",
                "lowercase letters, digits or '-', starting and ending alphanumeric",
                SOURCE_NAMES,
            )
        ]
    return []


def served_pools(
    name: str,
    shape: type,
    args: object,
    host: DevicePluginHost,
    gpu_stack: GpuStack,
    extra: Sequence[Problem] = (),
    advertises: bool = True,
) -> tuple[ServedPools, Mapping[str, Any]]:
    """Validate an add-on's args (``shape``: its ``TypedDict``) for the pools whose GPUs ``host`` advertises.

    Returns the served pools and the args (a mapping, checked), and marks each pool as served by the add-on
    ``name`` (:attr:`~gpu_components.adapter.GpuNodePool.served_by`). ``gpu_stack`` is the GPU stack the plain pools
    are described under (the add-on's: ``device-plugin`` or ``gpu-operator``). ``extra`` are the add-on's own
    problems so far. ``advertises`` False: the add-on advertises none of the pools' GPUs (the GPU Operator with its
    device plugin off beside NVIDIA's DRA driver, for their MIG manager and driver), so it neither refuses a pool
    another add-on serves nor marks the pools as served.

    Raises:
        GpuSpecError: every problem at once: the args' shape (unknown keys, types, nulls, a ``cloud`` not among the
            clouds), a ``pools`` entry that is neither a node-pool component nor a mapping, every problem of a plain
            pool (its shape, with the closest key to an unknown one; another cloud's block; the pool's rules and its
            cloud's, paths ``pools[<i>].<field>``), a pool (plain, or a component under its own GPU stack) that breaks
            :func:`~gpu_components.nvidia.dra_driver.pool_access_problems` (``gpu_access: dra`` outside ``gpu_stack:
            dra``, ``time_slicing``/``mps`` on a DRA pool), plain pools without ``cloud``, a ``cloud`` other than the
            components', a pool whose GPUs another party advertises, a component another add-on serves, components
            of different clouds, pools with the same name, an invalid namespace.
    """
    problems = args_problems(shape, args, validated_elsewhere=("pools",))
    problems += extra
    pools: list[GpuNodePool] = []
    drivers: list[tuple[str | None, str, bool]] = []
    mapping: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
    given = mapping.get("pools")
    cloud: Cloud | None = mapping["cloud"] if mapping.get("cloud") in CLOUDS else None
    plain_pools: list[str] = []
    component_clouds: dict[Cloud, list[str]] = {}
    if given is not None and not isinstance(given, list | tuple):
        problems.append(Problem("pools", given, "a list of node-pool components or cluster pools", POOL_ENTRIES))
    elif isinstance(given, list | tuple):
        if not given:
            problems.append(Problem("pools", given, "an add-on needs at least one pool to serve", POOL_ENTRIES))
        seen: dict[str, int] = {}
        for index, entry in enumerate(given):
            where = f"pools[{index}]"
            if is_pool_component(entry):
                pool: GpuNodePool = entry
                setting = facts_for(pool.spec.cloud).driver.setting
                driver = (getattr(pool, setting, None), f"{where}.{setting}", driver_setting_set(pool))
                component_clouds.setdefault(pool.spec.cloud, []).append(where)
                # A component applied these rules when built; one built otherwise (any object with its attributes)
                # is held to them here, under its own GPU stack, its sharing as its spec holds it.
                sharing = pool.spec.sharing
                written = {} if sharing is None else {_sharing_key(sharing): dataclasses.asdict(sharing)}
                problems += pool_access_problems(pool.spec, written, getattr(pool, "gpu_stack", gpu_stack), where)
            elif isinstance(entry, Mapping):
                plain_pools.append(where)
                view, found = _plain_pool(entry, where, cloud, gpu_stack)
                problems += found
                if view is None:
                    continue
                pool = view
                setting = facts_for(view.spec.cloud).driver.setting
                driver = (view.driver_setting, f"{where}.{view.spec.cloud}.{setting}", view.driver_setting_set)
            else:
                message = "not a node-pool component or a cluster pool (a mapping)"
                problems.append(Problem(where, entry, message, POOL_ENTRIES))
                continue
            if pool.device_plugin_host != host:
                problems.append(
                    Problem(
                        where,
                        pool.spec.name,
                        f"its GPUs are advertised by {ADVERTISERS[pool.device_plugin_host]}; a second "
                        f"advertiser on its nodes would break them",
                        f"pools served by {ADVERTISERS[host]}",
                    )
                )
            if pool.served_by is not None and advertises:
                problems.append(
                    Problem(
                        where,
                        pool.spec.name,
                        f"already served by {pool.served_by}; a second add-on would advertise its GPUs twice",
                        "pools no other add-on serves",
                    )
                )
            pool_name = pool.spec.name
            if pool_name in seen:
                problems.append(
                    Problem(where, pool_name, f"pool names must be unique; pools[{seen[pool_name]}] has it too")
                )
            seen.setdefault(pool_name, index)
            pools.append(pool)
            drivers.append(driver)
    problems += _cloud_problems(mapping, plain_pools, component_clouds)
    problems += namespace_problems(mapping.get("namespace"), "namespace")
    if problems or not pools:
        raise GpuSpecError(problems)
    taints: list[Taint] = []
    for pool in pools:
        if advertises:
            pool.served_by = name
        taints += [t for t in pool.taints if t not in pool.spec.taints and t not in taints]
    served = ServedPools(
        pools[0].spec.cloud,
        tuple(pools),
        tuple(pool.spec for pool in pools),
        tuple(taints),
        tuple(drivers),
    )
    return served, mapping


def _cloud_problems(
    args: Mapping[str, Any], plain_pools: Sequence[str], component_clouds: Mapping[Cloud, Sequence[str]]
) -> list[Problem]:
    """The add-on's ``cloud`` against its pools: required when any pool is plain (``plain_pools``, their paths), and
    the cloud of every node-pool component (``component_clouds``: cloud -> the components' paths), which must be one
    cloud. A ``cloud`` not among the clouds is a shape problem, listed already."""
    clouds = sorted(component_clouds)
    if len(clouds) > 1:
        # No one value was written wrong: the components' clouds combine into the problem, so name the components.
        on = "; ".join(f"{', '.join(component_clouds[c])} on {c}" for c in clouds)
        fields = tuple(sorted((p for c in clouds for p in component_clouds[c]), key=_pool_index))
        message = f"the pools of one add-on must be of one cluster's cloud, but the node-pool components are not ({on})"
        return [Problem("pools", Combined(fields), message)]
    if "cloud" not in args:
        if not plain_pools:
            return []
        return [
            Problem(
                "cloud",
                None,
                f"required field is missing: the cloud of the plain pools ({', '.join(plain_pools)}), which decides "
                "their rules",
                ", ".join(CLOUDS),
            )
        ]
    cloud = args["cloud"]
    if cloud not in CLOUDS or not clouds or clouds == [cloud]:
        return []
    [components_cloud] = clouds
    return [
        Problem(
            "cloud",
            cloud,
            f"the pools of one add-on must be of one cluster's cloud, but the node-pool components "
            f"({', '.join(component_clouds[components_cloud])}) are on {components_cloud}",
            f"{components_cloud}, the components' cloud",
        )
    ]


def _sharing_key(sharing: TimeSlicing | Mps) -> str:
    """The pool field that holds ``sharing``: ``mps`` or ``time_slicing``."""
    return "mps" if isinstance(sharing, Mps) else "time_slicing"


def _pool_index(path: str) -> int:
    """The index in a component's path ``pools[<index>]``."""
    return int(path.removeprefix("pools[").removesuffix("]"))


def _plain_pool(
    entry: Mapping[str, Any], where: str, cloud: Cloud | None, gpu_stack: GpuStack
) -> tuple[PoolView | None, list[Problem]]:
    """What the node-pool component of the plain pool ``entry`` (a cluster pool at ``where`` in the args, on the
    add-on's ``cloud`` under its ``gpu_stack``) would expose
    (:attr:`~gpu_components.adapter.CloudAdapter.describe_pool`), or ``None`` and every problem of the pool: its shape
    (unknown keys with the closest known key, missing fields, types, allowed values) and another cloud's block; when
    those are sound, the pool's rules for its cloud, the rules of a pool under the add-on's GPU stack
    (:func:`~gpu_components.nvidia.dra_driver.pool_access_problems`: ``gpu_access`` and sharing) and the cloud's
    rules for the pool, its options and the GPU stack (those :class:`~gpu_components.cluster.GpuCluster` applies to a
    cluster pool). Without a valid ``cloud`` (a
    problem of the add-on's args) only the shape is checked."""
    problems = pool_shape_problems(ClusterPoolArgs, entry, cloud, where)
    if cloud is None:
        return None, problems
    problems += [
        Problem(
            f"{where}.{key}",
            entry[key],
            f"settings for {key}, but the add-on's cloud is {cloud}",
            f"the block {cloud}, or cloud {key}",
        )
        for key in CLOUDS
        if key != cloud and key in entry
    ]
    if problems:
        return None, problems
    options: Mapping[str, Any] = entry.get(cloud, {})
    neutral = {key: value for key, value in entry.items() if key not in CLOUDS}
    try:
        spec = GpuNodePoolSpec.from_args(neutral, cloud, where)
    except GpuSpecError as error:
        return None, list(error.problems)
    adapter = adapter_for(cloud, "cloud")
    problems = pool_access_problems(spec, entry, gpu_stack, where) + adapter.problems(spec, options, where, gpu_stack)
    if problems:
        return None, problems
    return adapter.describe_pool(spec, options, gpu_stack), []


def config_map_metadata(
    name: str, namespace: pulumi.Input[str], specs: Sequence[GpuNodePoolSpec]
) -> k8s.meta.v1.ObjectMetaArgsDict:
    """Metadata of a ConfigMap of device plugin configs (the device plugin's or the GPU Operator's): its name and
    namespace and, when any served pool's sharing is declared trusted, the annotation naming those entries
    (:func:`~gpu_components.nvidia.device_plugin.device_plugin_config_map_annotations`), so the policy rule
    ``gpu-shared-pool-trust`` passes those entries and still flags the others."""
    metadata: k8s.meta.v1.ObjectMetaArgsDict = {"name": name, "namespace": namespace}
    annotations = device_plugin_config_map_annotations(specs)
    if annotations:
        metadata["annotations"] = annotations
    return metadata


SOURCE_CLUSTER_POLICY = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/clusterpolicy-reference.html"
)
"""NVIDIA's ClusterPolicy reference: "A single ClusterPolicy instance in the cluster describes the desired state of
every GPU Operator component" (the CRD is ``scope: Cluster``, chart v26.7.0 ``crds/nvidia.com_clusterpolicies.yaml``),
and the operator's device plugin runs on every GPU node its DaemonSet tolerates."""

_CLUSTER_ADD_ONS: "WeakKeyDictionary[object, list[tuple[str, str, str]]]" = WeakKeyDictionary()
"""The GPU add-ons of each cluster in the running program: the cluster's key (:func:`_cluster_key`) -> each add-on's
component type, name and role (:func:`_role`), in order of construction."""


def _kubernetes_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Kubernetes provider a component built with ``opts`` uses, as Pulumi resolves it: ``opts.provider``,
    ``opts.providers``' ``kubernetes`` entry, then the parent's; ``None`` for the default provider."""
    if opts is None:
        return None
    if opts.provider is not None and opts.provider.package == "kubernetes":
        return opts.provider
    providers = opts.providers
    if isinstance(providers, Mapping) and "kubernetes" in providers:
        return providers["kubernetes"]
    if isinstance(providers, Sequence):
        for provider in providers:
            if provider.package == "kubernetes":
                return provider
    return opts.parent.get_provider("kubernetes::") if opts.parent is not None else None


def _cluster_key(provider: pulumi.ProviderResource | None) -> object:
    """What identifies the cluster of ``provider`` in the running program: the provider itself, or for the default
    provider the program's root stack resource (the engine connection under mocks without one)."""
    if provider is not None:
        return provider
    root = pulumi.runtime.get_root_resource()
    return root if root is not None else pulumi.runtime.settings.SETTINGS.monitor


OperatorMode = Literal["device-plugin", "mig-manager", "gpu-cluster"]
"""How a GPU Operator add-on runs, for the one-GPU-stack rule: ``device-plugin`` (a ClusterPolicy with its device
plugin, ``gpu_stack: gpu-operator``), ``mig-manager`` (a ClusterPolicy with its device plugin off, beside NVIDIA's DRA
driver chart: MIG manager and driver only) or ``gpu-cluster`` (a GPUCluster: the operator deploys the DRA driver)."""

SOURCE_GPU_CLUSTER = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpucluster-reference.html"
"""NVIDIA's GPUCluster reference: "Do not use ClusterPolicy and GPUCluster as GPU resource management models in the
same cluster"; a single GPUCluster per cluster; it manages the DRA driver, DCGM and the DCGM exporter, no driver and
no device plugin."""
SOURCE_DRA_DEVICE_CLASSES = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/tree/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/templates"
"""The DRA driver chart's templates (v0.4.1): the cluster-scoped DeviceClasses ``gpu.nvidia.com`` and
``mig.nvidia.com`` every install creates."""


def _role(kind: str, mode: str) -> str:
    return f"{kind}:{mode}" if mode else kind


def _clash(first: str, second: str) -> tuple[str, str] | None:
    """Why two GPU add-ons (:func:`_role` of each) may not share a cluster, and the source; ``None`` when they may:
    device plugin add-ons beside each other, beside the DRA driver chart and beside an operator with its device
    plugin off (``mig-manager``), each pinned to its own pools."""
    pair = {first, second}
    operators = [role for role in (first, second) if role.startswith("NvidiaGpuOperator")]
    dra_drivers = [r for r in (first, second) if r == "NvidiaDraDriver" or r == "NvidiaGpuOperator:gpu-cluster"]
    if len(operators) == 2:
        if "NvidiaGpuOperator:gpu-cluster" in pair and len(pair) == 2:
            return (
                "a GPUCluster may not run beside a ClusterPolicy (NVIDIA: not both in one cluster)",
                SOURCE_GPU_CLUSTER,
            )
        return "the GPU Operator's ClusterPolicy or GPUCluster is cluster-wide, one per cluster", SOURCE_CLUSTER_POLICY
    if len(dra_drivers) == 2:
        return (
            "two DRA drivers would both publish the driver gpu.nvidia.com and create the cluster-wide DeviceClasses "
            "gpu.nvidia.com and mig.nvidia.com",
            SOURCE_DRA_DEVICE_CLASSES,
        )
    if "NvidiaGpuOperator:device-plugin" in pair and pair != {"NvidiaGpuOperator:device-plugin"}:
        other = "device plugin's" if "NvidiaDevicePlugin" in pair else "DRA driver's"
        return (
            f"the GPU Operator's device plugin runs on every GPU node it tolerates, so it would also advertise the "
            f"{other} pools, a second time",
            SOURCE_CLUSTER_POLICY,
        )
    if pair == {"NvidiaGpuOperator:gpu-cluster", "NvidiaDevicePlugin"}:
        return (
            "the GPUCluster's DRA driver schedules itself on the GPU nodes (not configurable in the chart's draDriver "
            "values), so it cannot be kept off the device plugin's pools",
            SOURCE_GPU_CLUSTER,
        )
    return None


def gpu_stack_problems(
    kind: str, name: str, opts: pulumi.ResourceOptions | None, mode: OperatorMode | None = None
) -> list[Problem]:
    """Problems of GPU add-on ``kind`` ``name`` (``NvidiaGpuOperator`` in ``mode``, ``NvidiaDevicePlugin`` or
    ``NvidiaDraDriver``) joining the add-ons already built on the same cluster (the same Kubernetes provider, or both
    on the default one): one GPU stack per node. The GPU Operator's ClusterPolicy (or GPUCluster) is cluster-wide,
    so a second operator would fight the first over every GPU node's operands and MIG strategy, and a GPUCluster may
    not run beside a ClusterPolicy; the operator's device plugin runs on every GPU node it tolerates, so beside the
    device plugin add-on or the DRA driver it would also start on their pools and advertise their GPUs twice; two
    DRA drivers would both create the cluster-wide DeviceClasses. Allowed together, each pinned to its own pools:
    device plugin add-ons, the DRA driver, and an operator with its device plugin off (``mig-manager``)."""
    provider = _kubernetes_provider(opts)
    where = "the same Kubernetes provider" if provider is not None else "the default Kubernetes provider"
    role = _role(kind, mode or "")
    problems: list[Problem] = []
    for other_kind, other_name, other_role in _CLUSTER_ADD_ONS.get(_cluster_key(provider), []):
        clash = _clash(other_role, role)
        if clash is None:
            continue
        why, source = clash
        problems.append(
            Problem(
                "opts.provider",
                Combined((f"{other_kind} '{other_name}'", f"{kind} '{name}'")),
                f"one GPU stack per node, but both are on one cluster ({where}); {why}",
                f"one GPU Operator per cluster; device plugin add-ons, the DRA driver and an operator with its device "
                f"plugin off, each on its own pools: give {other_kind} '{other_name}' all the pools it should serve",
                source,
            )
        )
    return problems


def join_cluster(kind: str, name: str, opts: pulumi.ResourceOptions | None, mode: OperatorMode | None = None) -> None:
    """Record GPU add-on ``kind`` ``name`` (an operator in ``mode``) as built on its cluster, for
    :func:`gpu_stack_problems` of later ones."""
    _CLUSTER_ADD_ONS.setdefault(_cluster_key(_kubernetes_provider(opts)), []).append(
        (kind, name, _role(kind, mode or ""))
    )
