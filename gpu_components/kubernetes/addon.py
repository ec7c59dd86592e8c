"""What the GPU add-ons (device plugin, GPU Operator) take in common: the node pools they serve and their install.

An add-on takes the node-pool components it serves (``EksGpuNodeGroup``, ``AksGpuNodePool``, ``GkeGpuNodePool``:
anything with the :class:`~gpu_components.adapter.GpuNodePool` attributes) and derives from them everything it
needs: the validated pools, the cloud, every taint to tolerate (those the cloud adds itself, such as AKS's spot
taint, included) and who advertises each pool's GPUs, so a pool whose GPUs someone else advertises is refused.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import POOL_COMPONENTS, DevicePluginHost, GpuNodePool, is_pool_component
from gpu_components.catalog import Cloud
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.nvidia.device_plugin import device_plugin_config_map_annotations
from gpu_components.shape import args_problems
from gpu_components.spec import DNS_LABEL, SOURCE_NAMES, GpuNodePoolSpec, Taint

ADVERTISERS: Mapping[DevicePluginHost, str] = {
    "daemonset": "the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin)",
    "gpu-operator": "the GPU Operator's device plugin (NvidiaGpuOperator; the pool was built with gpu_stack "
    "gpu-operator)",
    "node-image": "the node image's own device plugin (Bottlerocket NVIDIA runs it on the host)",
    "cloud": "the cloud's managed device plugin (GKE installs and runs it)",
}
"""Who advertises a pool's GPUs, by :data:`~gpu_components.adapter.DevicePluginHost`, for error messages."""


class GpuAddOnArgs(TypedDict):
    """Inputs every GPU add-on component takes.

    Each add-on's args (:class:`~gpu_components.kubernetes.NvidiaDevicePluginArgs`,
    :class:`~gpu_components.kubernetes.NvidiaGpuOperatorArgs`) declares these fields itself, with its own defaults in
    their descriptions, instead of inheriting them: Pulumi's schema analyzer reads a field's description only from
    the class that declares it. A test keeps their types equal to these.

    Fields:
        pools: the node-pool components the add-on serves (EksGpuNodeGroup, AksGpuNodePool, GkeGpuNodePool), at
            least one, all of one cloud, with unique pool names. Each must be one whose GPUs this add-on advertises
            (its ``device_plugin_host``); a pool served by its node image, its cloud or the other add-on is an error
            naming who advertises it.
        namespace: namespace to create and install into (a DNS-1123 label). Defaults to the add-on's own (see each
            component).
        chart_version: chart version. Defaults to the add-on's pinned, tested version.
        helm_values: raw chart values merged over the rendered ones (escape hatch). Defaults to none.
    """

    pools: list[Any]
    namespace: NotRequired[str]
    chart_version: NotRequired[str]
    helm_values: NotRequired[dict[str, Any]]


@dataclass(frozen=True)
class ServedPools:
    """The pools an add-on serves, as it needs them.

    Attributes:
        cloud: their cloud.
        components: the node-pool components, in the order given.
        specs: their validated pools, in the same order.
        node_taints: taints the pools' nodes carry beyond their specs' (added by the cloud, e.g. AKS spot), each
            once, in order of first appearance.
    """

    cloud: Cloud
    components: tuple[GpuNodePool, ...]
    specs: tuple[GpuNodePoolSpec, ...]
    node_taints: tuple[Taint, ...]


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
    if isinstance(namespace, str) and not DNS_LABEL.match(namespace):
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
    name: str, shape: type, args: object, host: DevicePluginHost, extra: Sequence[Problem] = ()
) -> tuple[ServedPools, Mapping[str, Any]]:
    """Validate an add-on's args (``shape``: its ``TypedDict``) for the pools whose GPUs ``host`` advertises.

    Returns the served pools and the args (a mapping, checked), and marks each pool as served by the add-on
    ``name`` (:attr:`~gpu_components.adapter.GpuNodePool.served_by`). ``extra`` are the add-on's own problems so far.

    Raises:
        GpuSpecError: every problem at once: the args' shape (unknown keys, types, nulls), a ``pools`` entry that is
            not a node-pool component (a pool dict included: pass the component built from it), a pool whose GPUs
            another party advertises, pools of different clouds or with the same name, an invalid namespace.
    """
    problems = args_problems(shape, args, validated_elsewhere=("pools",))
    problems += extra
    components: list[GpuNodePool] = []
    mapping: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
    pools = mapping.get("pools")
    if pools is not None and not isinstance(pools, list | tuple):
        problems.append(Problem("pools", pools, "a list of node-pool components", POOL_COMPONENTS))
    elif isinstance(pools, list | tuple):
        if not pools:
            problems.append(Problem("pools", pools, "an add-on needs at least one pool to serve", POOL_COMPONENTS))
        seen: dict[str, int] = {}
        for index, pool in enumerate(pools):
            where = f"pools[{index}]"
            if not is_pool_component(pool):
                hint = "a pool's dict; pass the node-pool component built from it" if isinstance(pool, Mapping) else ""
                message = f"not a node-pool component{f' ({hint})' if hint else ''}"
                problems.append(Problem(where, pool, message, POOL_COMPONENTS))
                continue
            component: GpuNodePool = pool
            if component.device_plugin_host != host:
                problems.append(
                    Problem(
                        where,
                        component.spec.name,
                        f"its GPUs are advertised by {ADVERTISERS[component.device_plugin_host]}; a second "
                        f"advertiser on its nodes would break them",
                        f"pools served by {ADVERTISERS[host]}",
                    )
                )
            if component.served_by is not None:
                problems.append(
                    Problem(
                        where,
                        component.spec.name,
                        f"already served by {component.served_by}; a second add-on would advertise its GPUs twice",
                        "pools no other add-on serves",
                    )
                )
            pool_name = component.spec.name
            if pool_name in seen:
                problems.append(
                    Problem(where, pool_name, f"pool names must be unique; pools[{seen[pool_name]}] has it too")
                )
            seen.setdefault(pool_name, index)
            components.append(component)
        clouds = sorted({component.spec.cloud for component in components})
        if len(clouds) > 1:
            problems.append(Problem("pools", clouds, "the pools of one add-on must be of one cluster's cloud"))
    problems += namespace_problems(mapping.get("namespace"), "namespace")
    if problems or not components:
        raise GpuSpecError(problems)
    taints: list[Taint] = []
    for component in components:
        component.served_by = name
        taints += [t for t in component.taints if t not in component.spec.taints and t not in taints]
    served = ServedPools(
        components[0].spec.cloud,
        tuple(components),
        tuple(component.spec for component in components),
        tuple(taints),
    )
    return served, mapping


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
