"""What an input change does to a node pool, per resource type, from each cloud's facts: replace it, or roll its nodes.

A reviewer of an offline plan diff needs to know which changes delete and recreate a node pool (draining every
GPU node in it) rather than update it in place, and which in-place updates still recreate every node. Those are
properties of the provider and the cloud, not of the plan, so each cloud records them as data beside its other
facts, with their sources, in each of its :class:`~gpu_components.cloud_facts.NodePoolResource` records
(``gpu_components.<cloud>.facts``):

- ``force_new``: the inputs whose change the provider replaces the resource for (EKS node groups and GKE node pools
  from the upstream Terraform schemas' ``ForceNew`` fields, AKS agent pools from pulumi-azure-native's curated list
  plus the pool's name parameters);
- ``rolls``: the inputs the cloud changes in place by recreating every node (GKE's node configuration, EKS's AMI
  release and launch template versions, AKS upgrades).

One change drains a pool's GPU workloads though its nodes stay: a new value of the GPU Operator MIG Manager's node
label (``nvidia.com/mig.config``) in the pool's node labels (each cloud's
:attr:`~gpu_components.cloud_facts.NodePoolResource.labels` path) repartitions every node's GPUs
(:func:`repartitions_gpus`). Another changes who advertises its GPUs: a new value of the pool's
``gpu-components/gpu-access`` node label (:data:`~gpu_components.spec.GPU_ACCESS_LABEL`: ``dra`` on a pool NVIDIA's DRA
driver serves, none on a device-plugin pool), which EKS node groups, AKS agent pools and Karpenter NodePools (EKS
Karpenter, AKS node auto-provisioning) take in place: the other advertiser starts on the live nodes while their
running workloads hold what the old one handed out (:func:`changes_gpu_advertiser`).

The other resources the library creates beside node pools (Auto Scaling group tags, IAM roles, service accounts, IAM
members, launch templates) have force-new tables of their own in each cloud's facts
(:attr:`~gpu_components.cloud_facts.CloudFacts.force_new`): :func:`forces_replacement` reads both.

A resource's own ``replaceOnChanges`` and ``ignoreChanges`` options come on top, from the plan
(:mod:`gpu_components.plan.diff` applies them as the engine does); the library's own components take theirs from
the same facts (:attr:`~gpu_components.cloud_facts.NodePoolResource.component`).

Paths are Pulumi input property paths in the plan's camelCase (:mod:`gpu_components.plan.property_path`): ``a.b``
for nested objects and ``[*]`` for any list index. A table entry covers everything beneath it (``remoteAccess``
covers ``remoteAccess.ec2SshKey``), and a change of a whole object that contains a listed field (``launchTemplate``
added or removed) counts as a change of that field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from gpu_components.cloud_facts import ForceNewTable, NodePoolResource, NodeRolls, RefusedChanges, all_cloud_facts
from gpu_components.labels import GPU_ACCESS_LABEL
from gpu_components.nvidia.driver_upgrade import DEFAULT_DRIVER_VERSION, describe_policy
from gpu_components.nvidia.gpu_operator import GPU_OPERATOR_CHART, GPU_OPERATOR_CHART_VERSION
from gpu_components.nvidia.mig import MIG_CONFIG_LABEL, MIG_RECONFIGURE_DRAINS
from gpu_components.plan.property_path import Element, Path, contains, overlaps, parse

__all__ = [
    "FORCE_NEW",
    "HELM_RELEASE_TYPE",
    "KARPENTER_NODE_POOL_TYPE",
    "NVIDIA_DRIVER_TYPE",
    "OTHER_FORCE_NEW",
    "ROLLS",
    "ForceNewTable",
    "changes_gpu_advertiser",
    "forces_replacement",
    "node_pool_types",
    "provider_setting_replaces",
    "refused_in_place",
    "repartitions_gpus",
    "rolls_nodes",
    "under_any",
    "upgrades_gpu_driver",
]

FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        resource.type_token: resource.force_new
        for facts in all_cloud_facts()
        for resource in facts.node_pools
        if resource.force_new is not None
    }
)
"""Node-pool resource type -> its force-new input paths, gathered from every cloud's facts (each table's source
is in the table)."""

ROLLS: Mapping[str, NodeRolls] = MappingProxyType(
    {
        resource.type_token: resource.rolls
        for facts in all_cloud_facts()
        for resource in facts.node_pools
        if resource.rolls is not None
    }
)
"""Node-pool resource type -> the inputs the cloud changes by recreating every node, from every cloud's facts."""

_LABELLED: Mapping[str, NodePoolResource] = MappingProxyType(
    {resource.type_token: resource for facts in all_cloud_facts() for resource in facts.node_pools if resource.labels}
)
"""Node-pool resource type -> its record, for the types whose node labels the facts locate."""

KARPENTER_NODE_POOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool"
"""Karpenter's NodePool (EKS Karpenter, AKS node auto-provisioning): its nodes' labels are at
``spec.template.metadata.labels`` (https://karpenter.sh/docs/concepts/nodepools/)."""
_KARPENTER_LABELS = ("spec", "template", "metadata", "labels")

OTHER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {type_: table for facts in all_cloud_facts() for type_, table in facts.force_new.items()}
)
"""Resource type -> its force-new input paths, for the other resources the library creates with node pools (each
cloud's :attr:`~gpu_components.cloud_facts.CloudFacts.force_new`)."""

_FORCE_NEW_PATHS: Mapping[str, tuple[Path, ...]] = MappingProxyType(
    {
        type_: tuple(parse(field) for field in table.fields)
        for type_, table in (*FORCE_NEW.items(), *OTHER_FORCE_NEW.items())
    }
)
_ROLL_PATHS: Mapping[str, tuple[tuple[Path, ...], tuple[Path, ...]]] = MappingProxyType(
    {
        type_: (tuple(parse(field) for field in rolls.fields), tuple(parse(field) for field in rolls.unless))
        for type_, rolls in ROLLS.items()
    }
)


_REFUSED: Mapping[str, tuple[RefusedChanges, tuple[Path, ...]]] = MappingProxyType(
    {
        type_: (refused, tuple(parse(field) for field in refused.fields))
        for facts in all_cloud_facts()
        for type_, refused in facts.refused_in_place.items()
    }
)
"""Resource type -> the inputs its cloud refuses to change in place (each cloud's
:attr:`~gpu_components.cloud_facts.CloudFacts.refused_in_place`) and their parsed paths."""

_PROVIDER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {type_: table for facts in all_cloud_facts() for type_, table in facts.provider_force_new.items()}
)
"""Provider type -> the settings whose change replaces every resource it manages (each cloud's
:attr:`~gpu_components.cloud_facts.CloudFacts.provider_force_new`)."""


def refused_in_place(resource_type: str, path: str | Sequence[Element]) -> str | None:
    """Why the cloud refuses a change at input ``path`` of a ``resource_type`` resource made in place (its
    :attr:`~gpu_components.cloud_facts.RefusedChanges.why`, with the source), or None: e.g. the VM size of an AKS
    cluster's inline agent pool (``agentPoolProfiles[0].vmSize``)."""
    refused = _REFUSED.get(resource_type)
    if refused is None or not under_any(refused[1], path):
        return None
    return f"{refused[0].why} [source: {refused[0].source}]"


def provider_setting_replaces(provider_type: str, setting: str) -> bool:
    """Whether a change of ``setting`` (a top-level key, e.g. ``region``) of a ``provider_type`` provider
    (``pulumi:providers:aws``) makes the provider's ``DiffConfig`` replace every resource it manages. False for the
    settings and providers the facts do not list: the provider decides, which the plan cannot ask."""
    table = _PROVIDER_FORCE_NEW.get(provider_type)
    return table is not None and setting in table.fields


def node_pool_types() -> frozenset[str]:
    """The resource types this module knows as node pools (those with a force-new table)."""
    return frozenset(FORCE_NEW)


def _elements(path: str | Sequence[Element]) -> Sequence[Element]:
    return parse(path) if isinstance(path, str) else path


def under_any(fields: Iterable[Sequence[Element]], path: str | Sequence[Element]) -> bool:
    """Whether a change at ``path`` changes the value at one of ``fields``: the path is a field, lies beneath one,
    or contains one (list indexes match ``[*]``)."""
    elements = _elements(path)
    return any(overlaps(field, elements) for field in fields)


def forces_replacement(resource_type: str, path: str | Sequence[Element]) -> bool:
    """Whether a change at input ``path`` (e.g. ``instanceTypes[0]``, ``launchTemplate``) of a ``resource_type``
    resource makes its provider replace it.

    True when the path, with list indexes read as ``[*]``, is a listed field, lies beneath one, or contains one.
    False for resource types without a table.
    """
    return under_any(_FORCE_NEW_PATHS.get(resource_type, ()), path)


def rolls_nodes(resource_type: str, path: str | Sequence[Element]) -> str | None:
    """Why a change at input ``path`` of a ``resource_type`` node pool, made in place, recreates every node of the
    pool (its :class:`~gpu_components.cloud_facts.NodeRolls`), or None when it does not.

    A change rolls the nodes when it touches a rolling field (the path is one, lies beneath one, or contains one)
    beyond the paths the cloud updates without recreating nodes (a change that lies entirely within those does not).
    """
    tables = _ROLL_PATHS.get(resource_type)
    if tables is None:
        return None
    fields, unless = tables
    elements = _elements(path)
    if any(contains(spared, elements) for spared in unless):
        return None
    return ROLLS[resource_type].why if under_any(fields, elements) else None


def repartitions_gpus(
    resource_type: str, old_inputs: Mapping[str, object], new_inputs: Mapping[str, object]
) -> str | None:
    """Why an in-place change of a ``resource_type`` node pool from ``old_inputs`` to ``new_inputs`` (plain inputs,
    as a plan records them) drains its GPU workloads, or None: its nodes' ``nvidia.com/mig.config`` label gets a new
    value, so the GPU Operator's MIG Manager repartitions every node's GPUs, which needs them free of workloads
    (:data:`~gpu_components.nvidia.mig.MIG_RECONFIGURE_DRAINS`). A label removed changes nothing on the nodes. Read
    for the node-pool types whose labels the facts locate and for Karpenter NodePools
    (:data:`KARPENTER_NODE_POOL_TYPE`, EKS Karpenter and AKS node auto-provisioning under the GPU Operator).
    """
    old_labels, new_labels = _node_labels(resource_type, old_inputs), _node_labels(resource_type, new_inputs)
    if old_labels is None or new_labels is None:
        return None
    old, new = old_labels.get(MIG_CONFIG_LABEL), new_labels.get(MIG_CONFIG_LABEL)
    return MIG_RECONFIGURE_DRAINS if new is not None and new != old else None


def _node_labels(resource_type: str, inputs: Mapping[str, object]) -> Mapping[str, object] | None:
    """The node labels a node pool of ``resource_type`` gives its nodes, or None for a type whose labels are not
    located (an AKS cluster's inline pools, any other resource)."""
    resource = _LABELLED.get(resource_type)
    if resource is not None:
        return resource.node_labels(inputs)
    if resource_type != KARPENTER_NODE_POOL_TYPE:
        return None
    value: object = inputs
    for key in _KARPENTER_LABELS:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def _advertiser(access: object) -> str:
    return "NVIDIA's DRA driver" if access == "dra" else "the device plugin"


def changes_gpu_advertiser(
    resource_type: str, old_inputs: Mapping[str, object], new_inputs: Mapping[str, object]
) -> str | None:
    """Why an in-place change of a ``resource_type`` node pool from ``old_inputs`` to ``new_inputs`` (plain inputs,
    as a plan records them) strands the GPU work deployed on it, or None: its nodes'
    :data:`~gpu_components.spec.GPU_ACCESS_LABEL` label gets a new value (added, changed or removed), so the pool
    moves between the device plugin and NVIDIA's DRA driver on live nodes. The nodes stay (EKS node groups and AKS
    agent pools update labels in place; Karpenter replaces drifted nodes in its own time): for a while both
    advertisers may run on one node, and the running workloads keep asking for what only the old one advertised
    (``nvidia.com/gpu`` limits, or resource claims). Node pools whose label change replaces them (GKE) are replaced
    already. Read for EKS node groups, AKS agent pools, GKE node pools and Karpenter NodePools
    (:data:`KARPENTER_NODE_POOL_TYPE`).

    Returns, e.g. ``its gpu-components/gpu-access label changed ((none) -> "dra"): the pool's GPU advertiser changes
    on live nodes (the device plugin -> NVIDIA's DRA driver): drain them, or add a new pool and move the workloads
    (README "Moving a pool")``.
    """
    old, new = _node_labels(resource_type, old_inputs), _node_labels(resource_type, new_inputs)
    if old is None or new is None:
        return None
    was, now = old.get(GPU_ACCESS_LABEL), new.get(GPU_ACCESS_LABEL)
    if was == now:
        return None
    values = " -> ".join("(none)" if value is None else json.dumps(value) for value in (was, now))
    return (
        f"its {GPU_ACCESS_LABEL} label changed ({values}): the pool's GPU advertiser changes on live nodes"
        f" ({_advertiser(was)} -> {_advertiser(now)}): drain them, or add a new pool and move the workloads"
        ' (README "Moving a pool")'
    )


NVIDIA_DRIVER_TYPE = "kubernetes:nvidia.com/v1alpha1:NVIDIADriver"
"""The GPU Operator's NVIDIADriver custom resource (CRD v26.7.0 ``nvidia.com_nvidiadrivers.yaml``): a driver
``spec.version`` and ``spec.upgradePolicy`` for the nodes its ``spec.nodeSelector`` selects."""
HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"
"""pulumi-kubernetes' Helm release, whose ``values`` hold the GPU Operator's ``driver`` settings."""


def _driver(inputs: Mapping[str, object]) -> Mapping[str, object]:
    values = inputs.get("values")
    driver = values.get("driver") if isinstance(values, Mapping) else None
    return driver if isinstance(driver, Mapping) else {}


def _driver_version(inputs: Mapping[str, object]) -> object:
    """The driver version a GPU Operator release installs: ``values.driver.version``, else the default of the pinned
    chart (:data:`~gpu_components.nvidia.driver_upgrade.DEFAULT_DRIVER_VERSION`), else None (another chart's own
    default, unknown offline)."""
    version = _driver(inputs).get("version")
    if version is not None:
        return version
    return DEFAULT_DRIVER_VERSION if inputs.get("version") == GPU_OPERATOR_CHART_VERSION else None


def upgrades_gpu_driver(
    resource_type: str, old_inputs: Mapping[str, object], new_inputs: Mapping[str, object], pools: Sequence[str]
) -> str | None:
    """Why an in-place change of a GPU Operator Helm release (``resource_type`` :data:`HELM_RELEASE_TYPE`, chart
    ``gpu-operator``) or NVIDIADriver custom resource (:data:`NVIDIA_DRIVER_TYPE`, ``spec.version``; its nodes are
    those its ``spec.nodeSelector`` selects) from ``old_inputs`` to ``new_inputs`` drains GPU pods, or None: the
    operator installs the driver
    (``values.driver.enabled``) and its version changes (``values.driver.version``, or the chart version where the
    values leave it to the chart's default, which the plan cannot read: said so). The operator's upgrade controller
    then cordons each node, waits for the long-running pods, deletes its GPU pods and reloads the driver, as its
    ``driver.upgradePolicy`` says (NVIDIA "GPU Driver Upgrades").

    Args:
        pools: the pools whose nodes run the operator's driver (the pools the release serves), named in the text.

    Returns, e.g. ``the GPU Operator's driver version changes ("595.91.07" -> "600.10.01"): its upgrade controller
    evicts the GPU pods of pools a100, l4, node by node (maxParallelUpgrades 1, ...)``.
    """
    if resource_type == NVIDIA_DRIVER_TYPE:
        return _nvidia_driver_upgrade(old_inputs, new_inputs)
    if resource_type != HELM_RELEASE_TYPE or new_inputs.get("chart") != GPU_OPERATOR_CHART:
        return None
    if _driver(new_inputs).get("enabled") is not True:
        return None
    old, new = _driver_version(old_inputs), _driver_version(new_inputs)
    if old is not None and new is not None:
        if old == new:
            return None
        change = f"the GPU Operator's driver version changes ({json.dumps(old)} -> {json.dumps(new)})"
    elif old_inputs.get("version") != new_inputs.get("version"):
        change = (
            "the GPU Operator's chart version changes and the driver version is left to the chart's default, which"
            " cannot be read offline: the driver may change"
        )
    else:
        return None
    served = f"pools {', '.join(pools)}" if pools else "every node it installs the driver on"
    return (
        f"{change}: its upgrade controller evicts the GPU pods of {served}, node by node"
        f" ({describe_policy(_driver(new_inputs).get('upgradePolicy'))})"
    )


def _nvidia_driver_upgrade(old_inputs: Mapping[str, object], new_inputs: Mapping[str, object]) -> str | None:
    old_spec, new_spec = old_inputs.get("spec"), new_inputs.get("spec")
    old = old_spec.get("version") if isinstance(old_spec, Mapping) else None
    new = new_spec.get("version") if isinstance(new_spec, Mapping) else None
    if old == new or not isinstance(new_spec, Mapping):
        return None
    selector = new_spec.get("nodeSelector")
    nodes = f"the nodes it selects ({json.dumps(selector, sort_keys=True)})" if selector else "every GPU node"
    return (
        f"the NVIDIADriver's driver version changes ({json.dumps(old)} -> {json.dumps(new)}): the GPU Operator's"
        f" upgrade controller evicts the GPU pods of {nodes}, node by node"
        f" ({describe_policy(new_spec.get('upgradePolicy'))})"
    )
