"""Workloads against the pools they select: stack rules of the policy pack (pure).

**The pool facts, one derivation.** A pool is what one of the library's node-pool components registers as its outputs
(:func:`gpu_components.adapter.pool_outputs`): ``poolName``, ``labels``, ``nodeSelector``, ``taints`` (Kubernetes
spelling, the cloud's own included), ``advertisedResources`` per node and ``devicePluginHost``, the values the workload
helpers read; a DRA pool's ``advertisedResources`` is empty, and it is judged only where the library's DRA driver
component serving it records ``extendedResource`` (``nvidia.com/gpu``: the pool's ``gpu.nvidia.com`` devices,
``draDevices``, are what a plain ``nvidia.com/gpu`` limit is allocated). The per-container limit of a shared pool comes
from what the library renders for its advertiser: the device plugin config entry its nodes select by
``nvidia.com/device-plugin.config`` (in any ConfigMap of the stack: MPS, or time-slicing with
``failRequestsGreaterThanOne``, admit one per container, :data:`~gpu_components.spec.SOURCE_SHARING`), or the cloud's
sharing label where the cloud's own plugin shares GPUs (GKE admits one per container,
:class:`~gpu_components.cloud_facts.ManagedDevicePlugin`). Pools built without the library's components, and stacks
without any, are not judged (:func:`stack_pools` is empty). Stack policies see each resource's outputs, inputs
propagated to outputs in a preview (:data:`SOURCE_STACK_POLICIES`); a component's outputs are what it registered
(``register_outputs``), which ``gpu-components plan --policy`` hands over as such. Where an engine has recorded none for
a component yet, its pool is not found and nothing is judged against it (the rules fail open, never on a guess).

**Which pools a workload selects.** A GPU workload is one whose container limits an NVIDIA resource
(:func:`~gpu_components.workloads.is_gpu_resource`). Its pods select a pool when their ``nodeSelector`` and one term
of their required node affinity (if any) agree with the pool's labels (its ``labels`` and ``nodeSelector``
outputs), and at least one of those requirements names a label the pool has (``In``, ``Exists`` or a
``nodeSelector`` entry): a requirement on a label the pool's outputs do not hold (set by the cloud or a
provisioner, such as ``topology.kubernetes.io/zone``) neither selects nor refutes it.

**Tolerations** follow Kubernetes' matching (:data:`SOURCE_TOLERATIONS`): an empty key with ``Exists`` tolerates
every taint; otherwise the keys must be equal; ``Exists`` takes any value, ``Equal`` (the default) the same value;
an empty effect matches every effect. Only ``NoSchedule`` and ``NoExecute`` taints keep pods off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gpu_components.autoscaler import gpu_resource_note
from gpu_components.cloud_facts import all_cloud_facts
from gpu_components.dra import GPU_DEVICE_CLASS
from gpu_components.gpu_requests import SOURCE_SCHEDULE_GPUS, parse_gpu_quantity
from gpu_components.labels import DEVICE_PLUGIN_CONFIG_LABEL, POOL_LABEL
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, SHARED_SUFFIX
from gpu_components.policy.rules import (
    WORKLOAD_POD_SPECS,
    StackResource,
    StackViolation,
    _at,
    _list,
    _map,
    dra_extended_resource_recorded,
)
from gpu_components.spec import SOURCE_SHARING
from gpu_components.workloads import is_gpu_resource

SOURCE_STACK_POLICIES = "https://www.pulumi.com/docs/iac/using-pulumi/crossguard/core-concepts/"
"""Pulumi's policy concepts: stack policies get resource outputs (inputs propagated to outputs during preview)."""
SOURCE_TOLERATIONS = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
SOURCE_NODE_SELECTION = "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
SOURCE_AUTOSCALER_GPU = (
    "https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/processors/customresources/"
    "gpu_processor.go; https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/"
    "README.md (Special note on GPU instances)"
)
REPELLING = ("NoSchedule", "NoExecute")
"""Taint effects that keep pods without a matching toleration off a node."""


@dataclass(frozen=True)
class PoolFacts:
    """One node-pool component's facts (see the module docstring).

    Attributes:
        urn: the component's URN.
        name: its pool name.
        labels: its nodes' labels and the labels a pod selects it by, merged.
        taints: ``(key, value, effect)`` of each taint on its nodes, Kubernetes spelling.
        advertised: resource name -> count each node advertises.
        host: who advertises its GPUs (``devicePluginHost``).
        max_shared: resource name -> the most a container may ask for (shared pools that admit one), with the source.
        node_selector: the labels the component says a pod selects it by (its ``nodeSelector`` output).
    """

    urn: str
    name: str
    labels: Mapping[str, str]
    taints: tuple[tuple[str, str, str], ...]
    advertised: Mapping[str, int]
    host: str
    max_shared: Mapping[str, tuple[int, str]]
    node_selector: Mapping[str, str]


def _config_entries(resources: Sequence[StackResource]) -> dict[str, Mapping[str, Any]]:
    """Device plugin config entries of the stack's ConfigMaps: entry name -> parsed config (``version: v1``)."""
    entries: dict[str, Mapping[str, Any]] = {}
    for _, resource_type, props in resources:
        if resource_type != "kubernetes:core/v1:ConfigMap":
            continue
        for entry, text in _map(props.get("data")).items():
            try:
                config = yaml.safe_load(text) if isinstance(text, str) else None
            except yaml.YAMLError:
                continue
            if isinstance(config, Mapping) and config.get("version") == "v1" and "flags" in config:
                entries[str(entry)] = config
    return entries


def _entry_max_shared(config: Mapping[str, Any]) -> dict[str, tuple[int, str]]:
    """Resources a device plugin config entry shares with at most one per container: MPS always, time-slicing with
    ``failRequestsGreaterThanOne`` (NVIDIA's device plugin, :data:`~gpu_components.spec.SOURCE_SHARING`)."""
    sharing = _map(config.get("sharing"))
    limited: dict[str, tuple[int, str]] = {}
    for mode in ("mps", "timeSlicing"):
        block = _map(sharing.get(mode))
        if not block or (mode == "timeSlicing" and block.get("failRequestsGreaterThanOne") is not True):
            continue
        for resource in map(_map, _list(block.get("resources"))):
            name = resource.get("name")
            if not isinstance(name, str):
                continue
            renamed = resource.get("rename") or (f"{name}{SHARED_SUFFIX}" if block.get("renameByDefault") else name)
            limited[str(renamed)] = (1, SOURCE_SHARING)
    return limited


def _cloud_max_shared(labels: Mapping[str, str], advertised: Mapping[str, int]) -> dict[str, tuple[int, str]]:
    """Resources the cloud's own device plugin shares (its sharing label on the pool's nodes), with its limit."""
    for facts in all_cloud_facts():
        plugin = facts.managed_device_plugin
        if plugin is not None and plugin.sharing_label is not None and plugin.sharing_label in labels:
            return {name: (plugin.max_shared_gpus, plugin.max_shared_gpus_source) for name in advertised}
    return {}


def _workload_target(pool: PoolFacts) -> bool:
    """Whether the workload rules judge a pool: every pool but a DRA pool without an extended resource (a DRA pool
    whose driver serves ``nvidia.com/gpu`` through its DeviceClass is one a plain GPU limit may select)."""
    return pool.host != "dra-driver" or bool(pool.advertised)


def stack_pools(resources: Iterable[StackResource]) -> list[PoolFacts]:
    """The pools of the stack: one per node-pool component whose outputs hold ``poolName`` and
    ``advertisedResources`` (the module docstring's derivation), in URN order."""
    resources = list(resources)
    entries = _config_entries(resources)
    # Pools whose DRA driver serves plain nvidia.com/gpu, as the DRA rule reads the drivers' records (by pool name:
    # the pools' outputs name no cluster).
    extended = {name for (_, name), serves in dra_extended_resource_recorded(resources).items() if serves}
    pools: list[PoolFacts] = []
    for urn, _, props in sorted(resources, key=lambda resource: resource[0]):
        name, advertised = props.get("poolName"), props.get("advertisedResources")
        if not isinstance(name, str) or not isinstance(advertised, Mapping):
            continue
        labels = {str(k): str(v) for k, v in {**_map(props.get("labels")), **_map(props.get("nodeSelector"))}.items()}
        counts = {str(k): int(v) for k, v in advertised.items() if isinstance(v, (int, float))}
        host = str(props.get("devicePluginHost") or "")
        whole = _map(props.get("draDevices")).get(GPU_DEVICE_CLASS)
        if host == "dra-driver" and name in extended and isinstance(whole, (int, float)) and whole > 0:
            counts = {GPU_RESOURCE: int(whole)}
        entry = entries.get(labels.get(DEVICE_PLUGIN_CONFIG_LABEL, ""))
        max_shared = _entry_max_shared(entry) if host != "cloud" and entry is not None else {}
        if host == "cloud":
            max_shared = _cloud_max_shared(labels, counts)
        taints = tuple(
            (str(t.get("key", "")), str(t.get("value") or ""), str(t.get("effect", "")))
            for t in map(_map, _list(props.get("taints")))
        )
        selector = {str(k): str(v) for k, v in _map(props.get("nodeSelector")).items()}
        pools.append(PoolFacts(urn, name, labels, taints, counts, host, max_shared, selector))
    return pools


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """Whether one ``matchExpressions`` item holds for a pool's labels; ``None`` when its key is not among them."""
    key, operator = expression.get("key"), expression.get("operator")
    values = [str(value) for value in _list(expression.get("values"))]
    if not isinstance(key, str) or key not in labels:
        return None
    if operator == "In":
        return labels[key] in values
    if operator == "NotIn":
        return labels[key] not in values
    if operator == "Exists":
        return True
    if operator == "DoesNotExist":
        return False
    return None


def _selects(pod: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether the pod's required node selection selects a pool with ``labels`` (module docstring)."""
    selector = _map(pod.get("nodeSelector"))
    if any(key in labels and labels[key] != str(value) for key, value in selector.items()):
        return False
    positive = any(key in labels for key in selector)
    affinity = _at(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = [_map(term) for term in _list(_map(affinity).get("nodeSelectorTerms"))]
    if not terms:
        return positive
    for term in terms:
        expressions = [_map(item) for item in _list(term.get("matchExpressions"))]
        results = [_expression_matches(item, labels) for item in expressions]
        if any(result is False for result in results):
            continue
        named = any(
            result is True and item.get("operator") in ("In", "Exists")
            for item, result in zip(expressions, results, strict=True)
        )
        if positive or named:
            return True
    return False


def _tolerates(tolerations: Sequence[Mapping[str, Any]], taint: tuple[str, str, str]) -> bool:
    """Whether any toleration tolerates ``taint`` by Kubernetes' matching rules (module docstring)."""
    key, value, effect = taint
    for toleration in tolerations:
        if toleration.get("effect") not in (None, "", effect):
            continue
        operator = toleration.get("operator") or "Equal"
        if not toleration.get("key"):
            if operator == "Exists":
                return True
            continue
        if toleration.get("key") != key:
            continue
        if operator == "Exists" or (operator == "Equal" and str(toleration.get("value") or "") == value):
            return True
    return False


def _gpu_limits(path: str, pod: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """``(where, resource, count)`` of each NVIDIA resource limit of the pod's containers, the count read as the
    ``gpu-workload-quantities`` rule reads it (:func:`~gpu_components.workloads.parse_gpu_quantity`: a whole number,
    or a string of one such as ``"3"``; numbers arrive from the engine as doubles). A limit that is no valid quantity
    is that rule's to report, and is not judged here."""
    found: list[tuple[str, str, float]] = []
    for field in ("initContainers", "containers"):
        for index, container in enumerate(map(_map, _list(pod.get(field)))):
            for name, given in _map(_at(container, "resources", "limits")).items():
                if not isinstance(name, str) or not is_gpu_resource(name):
                    continue
                where = f"{path}.{field}[{index}].resources.limits[{name!r}]"
                count, _ = parse_gpu_quantity(given, where, integral_floats=True)
                if count is not None:
                    found.append((where, name, float(count)))
    return found


@dataclass(frozen=True)
class _Workload:
    urn: str
    path: str
    pod: Mapping[str, Any]
    limits: list[tuple[str, str, float]]
    selected: list[PoolFacts]
    dra_selected: bool
    """Whether the pods select a DRA pool the workload rules do not judge (:func:`_workload_target`): the DRA
    rule's (``gpu-dra-pool-extended-resource``)."""


def _workloads(resources: Sequence[StackResource], pools: Sequence[PoolFacts]) -> list[_Workload]:
    """The GPU workloads of the stack with the GPU pools each selects (on a stack with pools the rules judge)."""
    if not any(_workload_target(pool) for pool in pools):
        return []
    found: list[_Workload] = []
    for urn, resource_type, props in resources:
        keys = WORKLOAD_POD_SPECS.get(resource_type)
        if keys is None:
            continue
        path, pod = ".".join(keys), _map(_at(props, *keys))
        limits = _gpu_limits(path, pod)
        if limits:
            selected = [pool for pool in pools if _selects(pod, pool.labels)]
            judged = [pool for pool in selected if _workload_target(pool)]
            found.append(_Workload(urn, path, pod, limits, judged, len(judged) < len(selected)))
    return found


def _names(pools: Iterable[PoolFacts]) -> str:
    return ", ".join(sorted(pool.name for pool in pools))


def _selector_text(pool: PoolFacts) -> str:
    """The node selector a pod gives to land on ``pool``: its component's ``nodeSelector``, else the pool label."""
    selector = pool.node_selector or {POOL_LABEL: pool.name}
    return "{" + ", ".join(f"{key}: {value}" for key, value in selector.items()) + "}"


def workload_pool_selection_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """A GPU workload must select a GPU pool of the stack: a ``nodeSelector`` entry or a required node affinity
    ``In``/``Exists`` on a label the pool has (the pool label :data:`~gpu_components.spec.POOL_LABEL`, or a label
    only that pool has). Otherwise its pods may wait on, or land on, nodes that have no such GPUs. A workload that
    selects a DRA pool whose driver serves no extended resource there (none in force, or a static-MIG pool) is the
    DRA rule's (``gpu-dra-pool-extended-resource``), which says why."""
    resources = list(resources)
    everything = stack_pools(resources)
    pools = [pool for pool in everything if _workload_target(pool)]
    return [
        (
            workload.urn,
            f"{workload.path}: the pods ask for {', '.join(sorted({name for _, name, _ in workload.limits}))} but "
            f"their nodeSelector and required node affinity select none of the stack's GPU pools "
            f"({_names(pools)}); select one, e.g. nodeSelector {_selector_text(pools[0])} "
            f"(gpu_components.workloads.gpu_pod_settings) [source: {SOURCE_NODE_SELECTION}]",
        )
        for workload in _workloads(resources, everything)
        if not workload.selected and not workload.dra_selected
    ]


def _untolerated(pod: Mapping[str, Any], pool: PoolFacts) -> list[str]:
    tolerations = [_map(item) for item in _list(pod.get("tolerations"))]
    return [
        f"{key}={value}:{effect}" if value else f"{key}:{effect}"
        for key, value, effect in pool.taints
        if effect in REPELLING and not _tolerates(tolerations, (key, value, effect))
    ]


def workload_pool_toleration_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """A GPU workload must tolerate every ``NoSchedule``/``NoExecute`` taint of at least one GPU pool it selects
    (Kubernetes' toleration matching, module docstring): otherwise its pods stay Pending. An ``Equal`` toleration
    with another value than the taint's, or none at all, is a violation naming each untolerated taint."""
    resources = list(resources)
    messages: list[StackViolation] = []
    for workload in _workloads(resources, stack_pools(resources)):
        missing = {pool.name: _untolerated(workload.pod, pool) for pool in workload.selected}
        if not missing or any(not taints for taints in missing.values()):
            continue
        detail = "; ".join(f"pool {name}: {', '.join(taints)}" for name, taints in sorted(missing.items()))
        messages.append(
            (
                workload.urn,
                f"{workload.path}.tolerations: the pods select GPU pools whose taints they do not tolerate "
                f"({detail}), so they stay Pending; add the pool's tolerations (the node-pool component's "
                f"tolerations output, gpu_components.workloads.gpu_pod_settings) [source: {SOURCE_TOLERATIONS}]",
            )
        )
    return messages


def _misfit(pool: PoolFacts, name: str, count: float) -> str | None:
    """Why one container's ``count`` of ``name`` does not fit a pool, or ``None`` when it does."""
    limit = pool.max_shared.get(name)
    if limit is not None and count > limit[0]:
        return f"pool {pool.name} shares {name} and admits at most {limit[0]} per container [source: {limit[1]}]"
    per_node = pool.advertised.get(name, 0)
    if count > per_node:
        has = f"{per_node} {name}" if per_node else f"no {name} (it advertises {_advertised(pool)})"
        return f"pool {pool.name}'s nodes each have {has} [source: {SOURCE_SCHEDULE_GPUS}]"
    return None


def _advertised(pool: PoolFacts) -> str:
    return ", ".join(f"{name}: {count}" for name, count in sorted(pool.advertised.items())) or "nothing"


def workload_pool_fit_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """Each GPU limit of a GPU workload's containers must fit one GPU pool it selects: at most the pool's
    per-container limit on shared GPUs (MPS, time-slicing with ``failRequestsGreaterThanOne``, GKE's sharing: 1) and
    at most what one node of the pool advertises (``advertisedResources``: GPUs per node x replicas, for a
    provisioned pool its largest type). A limit no selected pool can hold keeps the pods Pending (or the device
    plugin fails the allocation)."""
    resources = list(resources)
    messages: list[StackViolation] = []
    for workload in _workloads(resources, stack_pools(resources)):
        if not workload.selected:
            continue
        for where, name, count in workload.limits:
            reasons = [_misfit(pool, name, count) for pool in workload.selected]
            if all(reason is not None for reason in reasons):
                messages.append(
                    (
                        workload.urn,
                        f"{where}: {count:g} {name} per container fits no GPU pool the pods select: "
                        + "; ".join(str(reason) for reason in reasons),
                    )
                )
    return messages


def autoscaler_resource_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """An advisory for each pool whose nodes advertise GPU resources but no ``nvidia.com/gpu`` (MIG devices under
    the ``mixed`` strategy, renamed shared GPUs): the Cluster Autoscaler waits only for ``nvidia.com/gpu`` on a new
    node, so it may add nodes for pods a starting node will hold
    (:func:`~gpu_components.autoscaler.gpu_resource_note`, the note ``gpu-components plan`` prints as a warning).
    The components' outputs do not hold the pool's size, so a fixed pool of one size is reported too; DRA pools
    advertise no extended resource and are not."""
    return [
        (pool.urn, f"pool {pool.name}: {note} [source: {SOURCE_AUTOSCALER_GPU}]")
        for pool in stack_pools(resources)
        if pool.host != "dra-driver" and pool.advertised
        for note in [gpu_resource_note(pool.advertised)]
        if note is not None
    ]
