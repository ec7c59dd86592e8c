"""Which changes of a provisioned pool's Kubernetes objects replace its nodes: Karpenter's drift, per field.

A provisioned GPU pool on EKS (Karpenter, EKS Auto Mode) or AKS (node auto-provisioning, Karpenter for Azure) is two
Kubernetes objects, a ``karpenter.sh/v1`` NodePool and the NodeClass its ``spec.template.spec.nodeClassRef`` names
(an ``EC2NodeClass``, EKS Auto Mode's ``NodeClass``, an ``AKSNodeClass``). pulumi-kubernetes updates both in place,
but Karpenter then compares every node it launched with its NodePool and NodeClass and replaces the nodes that have
drifted: it taints each, launches a replacement and drains it, as its disruption budgets allow (Karpenter
"Disruption", https://karpenter.sh/docs/concepts/disruption/#drift). So an in-place update of these objects can drain
every GPU node of the pool, as the same change on a fixed node group does. Karpenter's rules, field by field:

- NodePool ``spec.template``: Karpenter annotates the NodePool with a hash of its node template and a node drifts
  when the hash differs (``NodePool.Hash`` over ``spec.template``, kubernetes-sigs/karpenter
  ``pkg/apis/v1/nodepool.go``): any change of its labels, annotations, taints, startup taints, ``nodeClassRef``,
  ``expireAfter`` or ``terminationGracePeriod`` replaces every node of the pool (:data:`SOURCE_NODEPOOL_HASH`).
- NodePool ``spec.template.spec.requirements`` are left out of the hash (``hash:"ignore"``) and judged per node: a node
  drifts when it no longer satisfies the new requirements ("Special Cases on Drift"), so narrowing them (an instance
  type or capacity type taken away, a requirement added) replaces the nodes that no longer fit, and widening them (a
  value added, a requirement removed) replaces none (:func:`narrowed_requirements`).
- NodePool ``spec.weight``, ``spec.limits``, ``spec.disruption`` are "behavioral fields ... not considered for
  Drift" (:data:`NODE_POOL_BEHAVIORAL`). Other changes outside the template (a future field) are read as drift, so a
  change the rules do not name is never called safe.
- NodeClass ``spec``: hashed as a whole (``EC2NodeClass.Hash``, karpenter-provider-aws ``pkg/apis/v1/
  ec2nodeclass.go``): a change of any field drifts every node launched from the class, the disk size
  (``blockDeviceMappings``, EKS Auto Mode's ``ephemeralStorage``, ``osDiskSizeGB``) among them. The selector terms
  (subnets, security groups, AMIs, capacity reservations) and ``amiFamily`` are left out of the hash and judged by what
  they resolve to in the cloud ("Special Cases on Drift": a node drifts when its subnet, security groups or AMI are no
  longer among those selected), which the plan cannot know offline: such a change is read as replacing the nodes that
  no longer match (:data:`NODE_CLASS_RESOLVED`). Karpenter for Azure hashes an AKSNodeClass's whole ``spec`` the
  same way (``AKSNodeClass.Hash``, Azure/karpenter-provider-azure ``pkg/apis/v1beta1/aksnodeclass.go``). EKS Auto
  Mode runs Karpenter (its NodePools are ``karpenter.sh/v1``) but AWS does not publish its NodeClass's hash: its
  ``spec`` is read the same way, the cautious reading.
- Deleting a NodePool terminates its nodes ("NodePool Deletion": "Karpenter will gracefully terminate nodes through
  cascading deletion when the owning NodePool is deleted"); deleting a NodeClass leaves its nodes without a class to
  match, and its finalizer waits for the nodes launched from it to terminate.

Paths are the plan's input property paths (:mod:`gpu_components.plan.property_path`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from gpu_components.plan.property_path import Path
from gpu_components.plan.replacements import KARPENTER_NODE_POOL_TYPE

__all__ = [
    "NODE_CLASS_RESOLVED",
    "NODE_CLASS_TYPES",
    "NODE_POOL_BEHAVIORAL",
    "NODE_POOL_TYPE",
    "SOURCE_DRIFT",
    "SOURCE_NODEPOOL_HASH",
    "deleted",
    "drift",
    "narrowed_requirements",
    "pools_of_class",
    "provisioned_types",
]

SOURCE_DRIFT = "https://karpenter.sh/docs/concepts/disruption/#drift"
SOURCE_NODEPOOL_HASH = (
    "https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/apis/v1/nodepool.go (NodePool.Hash: spec.template,"
    ' requirements hash:"ignore")'
)
NODE_POOL_TYPE = KARPENTER_NODE_POOL_TYPE
"""Karpenter's NodePool (EKS Karpenter, EKS Auto Mode, AKS node auto-provisioning)."""
NODE_CLASS_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass": "EC2NodeClass",
        "kubernetes:eks.amazonaws.com/v1:NodeClass": "NodeClass",
        "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass": "AKSNodeClass",
    }
)
"""The NodeClass types a provisioned pool's NodePool names -> their kind."""
NODE_POOL_BEHAVIORAL = ("weight", "limits", "disruption")
"""NodePool ``spec`` fields that never drift a node (Karpenter "Behavioral Fields", :data:`SOURCE_DRIFT`)."""
NODE_CLASS_RESOLVED = (
    "subnetSelectorTerms",
    "securityGroupSelectorTerms",
    "amiSelectorTerms",
    "capacityReservationSelectorTerms",
    "amiFamily",
)
"""NodeClass ``spec`` fields judged by what they resolve to in the cloud, not by their text (``hash:"ignore"`` in
``EC2NodeClassSpec``; Karpenter "Special Cases on Drift", :data:`SOURCE_DRIFT`)."""

_REQUIREMENTS = ("spec", "template", "spec", "requirements")


def provisioned_types() -> frozenset[str]:
    """The resource types whose changes this module judges: the NodePool and the NodeClass types."""
    return frozenset({NODE_POOL_TYPE, *NODE_CLASS_TYPES})


def _get(value: object, *keys: str) -> object:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _name(inputs: Mapping[str, Any]) -> str:
    name = _get(inputs, "metadata", "name")
    return name if isinstance(name, str) else "(unnamed)"


def _group(api_version: object) -> str:
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


def pools_of_class(class_inputs: Mapping[str, Any], resources: Iterable[Mapping[str, Any]]) -> list[str]:
    """The names of the NodePools among ``resources`` (plan records) whose ``nodeClassRef`` names the NodeClass with
    ``class_inputs`` (same group, kind and name), sorted."""
    group, kind, name = _group(class_inputs.get("apiVersion")), class_inputs.get("kind"), _name(class_inputs)
    names: set[str] = set()
    for resource in resources:
        if resource.get("type") != NODE_POOL_TYPE:
            continue
        inputs = resource.get("inputs")
        ref = _get(inputs, "spec", "template", "spec", "nodeClassRef")
        if not isinstance(ref, Mapping) or not isinstance(inputs, Mapping):
            continue
        if ref.get("name") == name and ref.get("kind") == kind and ref.get("group", group) == group:
            names.add(_name(inputs))
    return sorted(names)


def _serving(class_inputs: Mapping[str, Any], resources: Iterable[Mapping[str, Any]]) -> str:
    pools = pools_of_class(class_inputs, resources)
    return f"NodePool {', '.join(pools)}" if pools else "no NodePool in the plan"


def deleted(resource_type: str, inputs: Mapping[str, Any], resources: Iterable[Mapping[str, Any]]) -> str | None:
    """Why deleting a ``resource_type`` object with ``inputs`` drains GPU nodes, or None for other types
    (``resources``: the old plan's records, for the NodePools a NodeClass serves)."""
    if resource_type == NODE_POOL_TYPE:
        return f"the NodePool {_name(inputs)} is deleted: Karpenter drains and terminates every node it launched"
    kind = NODE_CLASS_TYPES.get(resource_type)
    if kind is None:
        return None
    return (
        f"the {kind} {_name(inputs)} is deleted: Karpenter holds its deletion until every node launched from it"
        f" ({_serving(inputs, resources)}) is terminated"
    )


def drift(
    resource_type: str,
    old_inputs: Mapping[str, Any],
    new_inputs: Mapping[str, Any],
    changed: Sequence[Path],
    resources: Iterable[Mapping[str, Any]],
) -> str | None:
    """Why an in-place update of a NodePool or NodeClass from ``old_inputs`` to ``new_inputs`` (``changed``: the
    changed input paths, each a tuple of keys and indexes) makes Karpenter replace nodes, or None (see the module
    docstring for the rules and their sources). ``resources``: the new plan's records, for the NodePools a NodeClass
    serves.

    Returns, e.g. ``Karpenter drift: spec.template.metadata.labels changed, so Karpenter replaces every node of
    NodePool h100-mig``.
    """
    if resource_type == NODE_POOL_TYPE:
        return _node_pool_drift(old_inputs, new_inputs, changed)
    kind = NODE_CLASS_TYPES.get(resource_type)
    if kind is None:
        return None
    spec = sorted({str(path[1]) for path in changed if len(path) > 1 and path[0] == "spec"})
    static = [field for field in spec if field not in NODE_CLASS_RESOLVED]
    launched = f"launched from {kind} {_name(new_inputs)} ({_serving(new_inputs, resources)})"
    if static:
        fields = ", ".join(f"spec.{field}" for field in static)
        return f"Karpenter drift: {fields} changed, so Karpenter replaces every node {launched}"
    if spec:
        fields = ", ".join(f"spec.{field}" for field in spec)
        return (
            f"Karpenter drift: {fields} changed, so Karpenter replaces each node {launched} whose subnet, security"
            " groups, AMI or reservation the new terms no longer select (resolved in the cloud, unknown offline)"
        )
    return None


def _node_pool_drift(
    old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any], changed: Sequence[Path]
) -> str | None:
    name = _name(new_inputs)
    hashed: set[str] = set()
    for path in changed:
        if len(path) < 2 or path[0] != "spec" or path[1] in NODE_POOL_BEHAVIORAL:
            continue
        if tuple(path[: len(_REQUIREMENTS)]) == _REQUIREMENTS:
            continue
        hashed.add(".".join(str(key) for key in path[:4]) if path[1] == "template" else f"spec.{path[1]}")
    if hashed:
        fields = ", ".join(sorted(hashed))
        return f"Karpenter drift: {fields} changed, so Karpenter replaces every node of NodePool {name}"
    narrowed = narrowed_requirements(_get(old_inputs, *_REQUIREMENTS), _get(new_inputs, *_REQUIREMENTS))
    if narrowed:
        return (
            f"Karpenter drift: its requirements narrow ({'; '.join(narrowed)}), so Karpenter replaces the nodes of"
            f" NodePool {name} that no longer satisfy them"
        )
    return None


def _requirements(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _values(requirement: Mapping[str, Any]) -> set[str]:
    values = requirement.get("values")
    return {str(value) for value in values} if isinstance(values, list) else set()


def _implied(new: Mapping[str, Any], old: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every node that satisfies the ``old`` requirements of a key satisfies the ``new`` one of that key."""
    operator = new.get("operator")
    for was in old:
        before = was.get("operator")
        if {k: v for k, v in was.items() if k != "minValues"} == {k: v for k, v in new.items() if k != "minValues"}:
            return True
        if operator == "In" and before == "In" and _values(was) <= _values(new):
            return True
        if operator == "NotIn" and before == "NotIn" and _values(new) <= _values(was):
            return True
        if operator == "NotIn" and before == "In" and not _values(was) & _values(new):
            return True
        if operator == "Exists" and before in ("In", "Exists"):
            return True
    return False


def narrowed_requirements(old: object, new: object) -> list[str]:
    """The ways the ``new`` NodePool requirements exclude a node the ``old`` ones allowed, one text per requirement
    (``node.kubernetes.io/instance-type no longer allows "p5.4xlarge"``, ``a new requirement
    karpenter.sh/capacity-type In ["on-demand"]``); empty when every node that satisfied the old ones satisfies the
    new ones (a value added, a requirement removed, ``minValues`` changed)."""
    before = _requirements(old)
    narrowed: list[str] = []
    for requirement in _requirements(new):
        key = requirement.get("key")
        same_key = [was for was in before if was.get("key") == key]
        if _implied(requirement, same_key):
            continue
        ins = [was for was in same_key if was.get("operator") == "In"]
        if requirement.get("operator") == "In" and ins:
            lost = sorted(set().union(*(_values(was) for was in ins)) - _values(requirement))
            narrowed.append(f"{key} no longer allows {', '.join(json.dumps(value) for value in lost)}")
            continue
        values = requirement.get("values")
        shown = f" {json.dumps(values)}" if isinstance(values, list) else ""
        narrowed.append(f"a new requirement {key} {requirement.get('operator')}{shown}")
    return narrowed
