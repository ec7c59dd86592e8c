"""Compare two JSON plans: what a change to a program or its config adds, removes, changes and replaces.

``diff(old, new)`` takes two documents written by :func:`gpu_components.plan.to_json` (text or parsed) and returns
a :class:`PlanDiff`: resources added and removed (matched by URN), resources whose inputs changed with every
changed input path and its old and new value, and changed stack outputs. A change the cloud cannot make in place
(a force-new input of a node pool, :mod:`gpu_components.plan.replacements`) marks its resource as a replacement.

A change that drains the GPU nodes of a node pool is marked with why (:attr:`ResourceChange.drains`): the pool
replaced, the pool deleted, or every node rolled because the template the pool takes its nodes' settings from
changed (the cloud updates the pool in place but replaces each of its nodes): the node-pool resource's
:class:`~gpu_components.cloud_facts.NodeTemplate` in its cloud's facts says which template and how it is named
(an EKS node group's launch template, by ``launchTemplate.id``).

Limits, because a plan is offline: a secret or preview-time unknown reads the same (``"[secret]"``,
``"[unknown]"``) on both sides, so a change hidden behind one is not seen; replacements are known only for the
node-pool types that have a force-new table; a renamed resource shows as one removed and one added.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from gpu_components.cloud_facts import NodeTemplate, all_cloud_facts
from gpu_components.plan.mocks import planned_id
from gpu_components.plan.replacements import forces_replacement, node_pool_types

__all__ = ["ABSENT", "InputChange", "PlanDiff", "PlanFormatError", "ResourceChange", "diff", "to_document", "to_text"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
DRAINS_REPLACED = "the node pool is replaced: its nodes are drained and recreated"
DRAINS_DELETED = "the node pool is deleted: its nodes are drained"

_TEMPLATES: Mapping[str, NodeTemplate] = MappingProxyType(
    {
        resource.type_token: resource.template
        for facts in all_cloud_facts()
        for resource in facts.node_pools
        if resource.template is not None
    }
)
"""Node-pool resource type -> the template its nodes' settings come from, from every cloud's facts."""


class _Absent:
    """The value of a path on the side where it does not exist."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
"""Stands for a missing value in :class:`InputChange` (an input added or removed)."""


class PlanFormatError(ValueError):
    """A document is not a JSON plan (``{"resources": [{"urn", "type", "name", "inputs"}, ...], ...}``)."""


@dataclass(frozen=True)
class InputChange:
    """One changed input (or output) path: ``old`` / ``new`` are :data:`ABSENT` where the path does not exist.

    ``replaces`` is True when the change forces the cloud to replace the resource.
    """

    path: str
    old: Any
    new: Any
    replaces: bool = False


@dataclass(frozen=True)
class ResourceChange:
    """A resource added, removed, updated in place, or replaced (``changes`` empty for added and removed).

    ``drains`` says why the change drains a node pool's GPU nodes (:data:`DRAINS_REPLACED`,
    :data:`DRAINS_DELETED`, or its template's :attr:`~gpu_components.cloud_facts.NodeTemplate.rolls`), or is None.
    """

    urn: str
    type: str
    name: str
    action: Literal["create", "delete", "update", "replace"]
    changes: tuple[InputChange, ...] = ()
    drains: str | None = None


@dataclass(frozen=True)
class PlanDiff:
    """What changed between two plans. Every sequence is sorted by URN (outputs by path)."""

    old_stack: str
    new_stack: str
    added: tuple[ResourceChange, ...]
    removed: tuple[ResourceChange, ...]
    changed: tuple[ResourceChange, ...]
    outputs: tuple[InputChange, ...]

    @property
    def replacements(self) -> tuple[ResourceChange, ...]:
        """The changed resources the cloud must replace."""
        return tuple(change for change in self.changed if change.action == "replace")

    @property
    def drained(self) -> tuple[ResourceChange, ...]:
        """The node pools whose nodes the change drains (replaced, deleted or rolled), sorted by URN."""
        return tuple(sorted((c for c in (*self.removed, *self.changed) if c.drains), key=lambda c: c.urn))

    @property
    def empty(self) -> bool:
        """True when the plans are the same (resources and outputs)."""
        return not (self.added or self.removed or self.changed or self.outputs)


def diff(old: str | Mapping[str, Any], new: str | Mapping[str, Any]) -> PlanDiff:
    """Compare two JSON plans (text, or the parsed documents).

    Raises:
        PlanFormatError: either document is not a JSON plan.
    """
    before, after = _document(old, "old"), _document(new, "new")
    old_resources, new_resources = _resources(before, "old"), _resources(after, "new")
    added = tuple(
        ResourceChange(urn, r["type"], r["name"], "create")
        for urn, r in sorted(new_resources.items())
        if urn not in old_resources
    )
    pools = node_pool_types()
    removed = tuple(
        ResourceChange(urn, r["type"], r["name"], "delete", drains=DRAINS_DELETED if r["type"] in pools else None)
        for urn, r in sorted(old_resources.items())
        if urn not in new_resources
    )
    kept = sorted(set(old_resources) & set(new_resources))
    changed_inputs = {
        urn: list(_changes(old_resources[urn].get("inputs", {}), new_resources[urn].get("inputs", {}), ""))
        for urn in kept
    }
    template_types = {template.type_token for template in _TEMPLATES.values()}
    rolled: set[tuple[str, str]] = set()  # (type, id) of each template whose inputs changed
    for urn in kept:
        resource = new_resources[urn]
        if resource["type"] in template_types and changed_inputs[urn]:
            rolled.add((resource["type"], planned_id(resource["type"], urn, resource.get("inputs", {}))))
    changed: list[ResourceChange] = []
    for urn in kept:
        was, now = old_resources[urn], new_resources[urn]
        changes = tuple(
            InputChange(path, a, b, forces_replacement(now["type"], path)) for path, a, b in changed_inputs[urn]
        )
        if was.get("parent") != now.get("parent"):
            changes = (InputChange("(parent)", was.get("parent"), now.get("parent")), *changes)
        action: Literal["update", "replace"] = "replace" if any(c.replaces for c in changes) else "update"
        drains = DRAINS_REPLACED if action == "replace" and now["type"] in pools else None
        template = _TEMPLATES.get(now["type"])
        if drains is None and template is not None and _template_id(now, template) in rolled:
            drains = template.rolls
        if changes or drains:
            changed.append(ResourceChange(urn, now["type"], now["name"], action, changes, drains))
    outputs = tuple(
        InputChange(path, a, b) for path, a, b in _changes(before.get("outputs", {}), after.get("outputs", {}), "")
    )
    return PlanDiff(
        old_stack=str(before.get("stack", "")),
        new_stack=str(after.get("stack", "")),
        added=added,
        removed=removed,
        changed=tuple(changed),
        outputs=outputs,
    )


def _template_id(resource: Mapping[str, Any], template: NodeTemplate) -> tuple[str, str] | None:
    """The template a node-pool record names (its type and the id at :attr:`NodeTemplate.reference`), or None."""
    value: object = resource.get("inputs", {})
    for key in template.reference.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return (template.type_token, value) if isinstance(value, str) else None


def _document(value: str | Mapping[str, Any], side: str) -> Mapping[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise PlanFormatError(f"the {side} plan is not JSON: {error}") from None
    if not isinstance(value, Mapping) or not isinstance(value.get("resources"), list):
        raise PlanFormatError(f"the {side} plan is not a JSON plan: it needs a 'resources' list")
    return value


def _resources(document: Mapping[str, Any], side: str) -> dict[str, Mapping[str, Any]]:
    resources: dict[str, Mapping[str, Any]] = {}
    for index, resource in enumerate(document["resources"]):
        if not isinstance(resource, Mapping) or not all(key in resource for key in ("urn", "type", "name")):
            raise PlanFormatError(f"the {side} plan's resources[{index}] needs 'urn', 'type' and 'name'")
        resources[str(resource["urn"])] = resource
    return resources


def _changes(old: Any, new: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """Every leaf path whose value differs, depth first, map keys sorted."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            yield from _changes(old.get(key, ABSENT), new.get(key, ABSENT), _join(path, str(key)))
    elif isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            a = old[index] if index < len(old) else ABSENT
            b = new[index] if index < len(new) else ABSENT
            yield from _changes(a, b, f"{path}[{index}]")
    elif old != new or type(old) is not type(new):
        yield path, old, new


def _join(prefix: str, key: str) -> str:
    if not prefix:
        return key if _IDENTIFIER.match(key) else f"[{json.dumps(key)}]"
    return f"{prefix}.{key}" if _IDENTIFIER.match(key) else f"{prefix}[{json.dumps(key)}]"


# ------------------------------------------------------------------------------------------------ text rendering

_SYMBOL = {"create": "+", "delete": "-", "update": "~", "replace": "+-"}
_INDENT = "    "


def to_text(result: PlanDiff) -> str:
    """The diff as text for a terminal or a PR comment (Pulumi's symbols: ``+`` create, ``-`` delete,
    ``~`` update, ``+-`` replace), one resource per line (marked ``[drains nodes: why]`` where a deletion or a
    roll drains a node pool) with its changed inputs beneath as ``path: old -> new``, force-new inputs marked
    ``[forces replacement]``, multi-line strings as a unified diff. Ends with the stack outputs that changed and a
    summary line. Ends with a newline."""
    stacks = result.new_stack if result.old_stack == result.new_stack else f"{result.old_stack} -> {result.new_stack}"
    lines = [f"Plan diff of {stacks}:"]
    if result.old_stack != result.new_stack:
        lines.append(
            "note: the plans are of different stacks; resources are matched by URN, which holds the stack name, "
            "so no resource of one matches one of the other"
        )
    if result.empty:
        lines.append("no changes")
        return "\n".join(lines) + "\n"
    for change in sorted((*result.added, *result.removed, *result.changed), key=lambda c: (c.type, c.name, c.urn)):
        # A replacement says so already (``+-``, ``[forces replacement]``); deletions and rolls say why they drain.
        drains = f"  [drains nodes: {change.drains}]" if change.drains and change.action != "replace" else ""
        lines.append(f"{_SYMBOL[change.action]} {change.type} {change.name}{drains}")
        for item in change.changes:
            lines.extend(_change_lines(item, _INDENT))
    if result.outputs:
        lines.append("outputs:")
        for item in result.outputs:
            lines.extend(_change_lines(item, _INDENT))
    replaced = len(result.replacements)
    drained = f"; {len(result.drained)} node pool(s) drained" if result.drained else ""
    lines.append(
        f"{len(result.added)} to create, {len(result.changed) - replaced} to update, {replaced} to replace, "
        f"{len(result.removed)} to delete; {len(result.outputs)} output change(s){drained}"
    )
    return "\n".join(lines) + "\n"


def _change_lines(item: InputChange, indent: str) -> list[str]:
    mark = "  [forces replacement]" if item.replaces else ""
    if isinstance(item.old, str) and isinstance(item.new, str) and ("\n" in item.old or "\n" in item.new):
        body = difflib.unified_diff(item.old.splitlines(), item.new.splitlines(), "old", "new", lineterm="", n=1)
        return [f"{indent}{item.path}:{mark}", *(f"{indent}  {line}" for line in list(body)[2:])]
    return [f"{indent}{item.path}: {_value(item.old)} -> {_value(item.new)}{mark}"]


def _value(value: Any) -> str:
    if value is ABSENT:
        return "(none)"
    return json.dumps(value, sort_keys=True)


def to_document(result: PlanDiff) -> dict[str, Any]:
    """The diff as a JSON-ready document: ``{"oldStack", "newStack", "resources": [{"urn", "type", "name",
    "action", "changes": [{"path", "old", "new", "replaces"}], "drains"}], "outputs": [...]}``; ``old`` / ``new``
    are left out where the path does not exist, ``drains`` where the change drains no node pool."""
    return {
        "oldStack": result.old_stack,
        "newStack": result.new_stack,
        "resources": [
            {
                "urn": change.urn,
                "type": change.type,
                "name": change.name,
                "action": change.action,
                "changes": [_change_document(item) for item in change.changes],
                **({"drains": change.drains} if change.drains else {}),
            }
            for change in (*result.added, *result.removed, *result.changed)
        ],
        "outputs": [_change_document(item) for item in result.outputs],
    }


def _change_document(item: InputChange) -> dict[str, Any]:
    document: dict[str, Any] = {"path": item.path, "replaces": item.replaces}
    if item.old is not ABSENT:
        document["old"] = item.old
    if item.new is not ABSENT:
        document["new"] = item.new
    return document
