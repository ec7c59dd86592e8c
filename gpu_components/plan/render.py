"""Render a `Plan` as deterministic text: JSON for machines and golden files, a tree for reviewers.

Both renderers are pure functions of the plan: the same plan gives the same bytes, so a committed
plan is a reviewable diff in a pull request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from gpu_components.plan.runner import Plan, PlannedResource

__all__ = ["to_json", "to_tree"]

_INDENT = "    "
"""One level of the tree."""
_LONG_STRING = 100
"""Strings longer than this many characters (or with a newline) are shown as indented blocks."""
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_KUBERNETES_REDUNDANT = frozenset({"apiVersion", "kind"})
"""Inputs of Kubernetes objects that repeat the type token, left out of the tree."""


def to_json(plan: Plan) -> str:
    """The plan as a JSON document, keys sorted, two-space indent, trailing newline.

    Shape: `{"project": str, "stack": str, "config": {...}, "resources": [{"urn", "type", "name", "parent",
    "custom", "inputs", "options"}, ...] (sorted by URN), "outputs": {...}}`; `config` is the stack config the program
    ran with, flat (`{"aws:region": "us-west-2"}`), each secret `"[secret]"`: the settings of the default providers,
    which the diff compares; `options` holds the resource options the engine received, each left out at its default
    (`{}` when all are: `gpu_components.plan.options`).
    """
    document = {
        "project": plan.project,
        "stack": plan.stack,
        "config": dict(plan.config),
        "resources": [
            {
                "urn": resource.urn,
                "type": resource.type,
                "name": resource.name,
                "parent": resource.parent,
                "custom": resource.custom,
                "inputs": _jsonable(resource.inputs),
                "options": _jsonable(resource.options),
            }
            for resource in sorted(plan.resources, key=lambda r: r.urn)
        ],
        "outputs": _jsonable(plan.outputs),
    }
    return json.dumps(document, sort_keys=True, indent=2) + "\n"


def to_tree(plan: Plan) -> str:
    """The plan as an indented tree, one resource per `+ <type> <name>` line under its parent.

    The stack is the root line (`pulumi:pulumi:Stack <project>-<stack>`). Children are sorted by type,
    then name. Under each resource come its inputs as `key: value` lines: nested maps flattened to
    dotted keys (`scalingConfig.desiredSize`; keys that are not identifiers quoted,
    `labels["nvidia.com/gpu"]`), list items indexed (`taints[0].key`), empty values (None, "", [], {})
    left out, and `apiVersion`/`kind` of Kubernetes objects left out (the type says them). Strings are
    bare unless they would read as a number, boolean or null (then JSON-quoted: `"true"`); strings
    with a newline or longer than 100 characters become indented blocks (`key: |`), JSON objects
    pretty-printed. After the inputs, the resource options the engine received (those not at their defaults, by
    Pulumi's names: `provider`, `dependsOn`, `protect`, `ignoreChanges`, ...) follow under an `options:` line, one
    level deeper, in the same style. Resources whose parent is not in the plan are shown at the top level. The
    stack outputs follow under `outputs:`. Ends with a newline.
    """
    by_parent: dict[str | None, list[PlannedResource]] = {}
    urns = {resource.urn for resource in plan.resources}
    for resource in plan.resources:
        parent = resource.parent if resource.parent in urns else None
        by_parent.setdefault(parent, []).append(resource)
    for children in by_parent.values():
        children.sort(key=lambda r: (r.type, r.name, r.urn))

    lines = [f"pulumi:pulumi:Stack {plan.project}-{plan.stack}"]
    lines.extend(_subtree(by_parent, None, 1))
    outputs = list(_fields(plan.outputs, 1))
    if outputs:
        lines.append("outputs:")
        lines.extend(outputs)
    return "\n".join(lines) + "\n"


def _subtree(by_parent: Mapping[str | None, list[PlannedResource]], parent: str | None, depth: int) -> Iterator[str]:
    for resource in by_parent.get(parent, []):
        yield f"{_INDENT * (depth - 1)}+ {resource.type} {resource.name}"
        inputs = resource.inputs
        if resource.type.startswith("kubernetes:"):
            inputs = {k: v for k, v in inputs.items() if k not in _KUBERNETES_REDUNDANT}
        yield from _fields(inputs, depth)
        if resource.options:
            yield f"{_INDENT * depth}options:"
            yield from _fields(resource.options, depth + 1)
        yield from _subtree(by_parent, resource.urn, depth + 1)


def _fields(values: Mapping[str, Any], depth: int) -> Iterator[str]:
    indent = _INDENT * depth
    for key, value in _flatten(values, ""):
        text = _scalar(value)
        block = _block(value) if isinstance(value, str) else None
        if block is None:
            yield f"{indent}{key}: {text}"
        else:
            yield f"{indent}{key}: |"
            yield from (f"{indent}  {line}" if line else "" for line in block)


def _flatten(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            segment = str(key)
            if not prefix:
                name = segment
            elif _IDENTIFIER.fullmatch(segment):
                name = f"{prefix}.{segment}"
            else:
                name = f"{prefix}[{json.dumps(segment)}]"
            yield from _flatten(value[key], name)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _flatten(item, f"{prefix}[{index}]")
    elif value is not None and value != "":
        yield prefix, value


def _scalar(value: Any) -> str:
    """Strings bare, unless they would read as another type (`"true"`, `"8"`) or hide whitespace."""
    if isinstance(value, str):
        return json.dumps(value) if _looks_typed(value) or value != value.strip() else value
    return json.dumps(value)


def _looks_typed(value: str) -> bool:
    try:
        parsed = json.loads(value)
    except ValueError:
        return False
    return parsed is None or isinstance(parsed, (bool, int, float))


def _block(value: str) -> list[str] | None:
    """The lines of a long or multi-line string (JSON objects and arrays pretty-printed), else None."""
    if "\n" not in value and len(value) <= _LONG_STRING:
        return None
    stripped = value.strip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            return json.dumps(parsed, indent=2).splitlines()
    return value.rstrip("\n").splitlines()


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value
