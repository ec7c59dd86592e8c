"""``ignoreChanges`` paths that match no input of their resource, with the closest input path that exists.

The engine applies ``ignoreChanges`` by resetting each path in the new inputs to its old value
(:func:`~gpu_components.plan.property_path.reset`). A path that names nothing in either (``scaling_config.desired_size``
in the Python SDK's spelling, where the engine's inputs are ``scalingConfig.desiredSize``) resets nothing, and the
engine says nothing: the change the program meant to ignore is diffed and applied after all (``PropertyPath.Reset``
returns true "if neither the old nor the new value exist", ``sdk/go/common/resource/properties_path.go`` in
https://github.com/pulumi/pulumi). ``gpu-components plan`` and ``diff`` warn about such a path instead, naming the
closest input path that exists: the same path without the case and the ``_``/``-`` of the spelling, else the most
similar one (:func:`difflib.get_close_matches`, ratio at least :data:`CLOSE_ENOUGH`).

A path that is well formed but absent may still be meant for a value the program leaves unset and the provider or
someone else sets later; the warning says that it ignores nothing the plan holds, and leaves the judgement to the
reader.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_components.plan.property_path import ANY, Element, Path, parse, render

__all__ = ["CLOSE_ENOUGH", "ignore_changes_warnings", "unmatched_ignore_changes"]

CLOSE_ENOUGH = 0.8
"""The least :class:`difflib.SequenceMatcher` ratio of a spelling-normalised input path to count as the closest one
(0.8: a typo or two in a path of ten characters)."""


def unmatched_ignore_changes(paths: Sequence[object], *inputs: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """The ``ignoreChanges`` ``paths`` (as a plan records them) that name no value in any of ``inputs`` (a resource's
    plain inputs: the new ones, and the old ones in a diff), each with the closest input path that exists, or None.

    A path the engine cannot parse is left out: the engine skips it (``processIgnoreChanges``). ``[*]`` matches any
    list element or object key.
    """
    found: list[tuple[str, str | None]] = []
    for given in paths:
        text = str(given)
        try:
            path = parse(text)
        except ValueError:
            continue
        if any(_exists(path, value) for value in inputs):
            continue
        found.append((text, _closest(text, inputs)))
    return found


def ignore_changes_warnings(resources: Sequence[Mapping[str, Any]], old: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One warning per ``ignoreChanges`` path of each resource record of a JSON plan (``{"urn", "type", "name",
    "inputs", "options"}``) that names no input (:func:`unmatched_ignore_changes`), in the order given; ``old`` maps
    a resource's URN to its old record in a diff (its inputs count too), empty for a plan alone.

    Returns, e.g. ``aws:eks/nodeGroup:NodeGroup gpu-node-group: ignoreChanges path "scaling_config.desired_size"
    names no input of the resource, so it ignores nothing; the closest input is "scalingConfig.desiredSize" (paths are
    the engine's camelCase input names)``.
    """
    warnings: list[str] = []
    for resource in resources:
        options = resource.get("options")
        paths = options.get("ignoreChanges") if isinstance(options, Mapping) else None
        if not isinstance(paths, list) or not paths:
            continue
        inputs = [_inputs(resource)]
        before = old.get(str(resource.get("urn")))
        if before is not None:
            inputs.append(_inputs(before))
        for path, closest in unmatched_ignore_changes(paths, *inputs):
            hint = (
                f'the closest input is "{closest}" (paths are the engine\'s camelCase input names)'
                if closest is not None
                else "no input path of the resource is close to it (it ignores only a value set outside the program)"
            )
            warnings.append(
                f'{resource["type"]} {resource["name"]}: ignoreChanges path "{path}" names no input of the resource,'
                f" so it ignores nothing; {hint}"
            )
    return warnings


def _inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    inputs = resource.get("inputs", {})
    return inputs if isinstance(inputs, Mapping) else {}


def _exists(path: Sequence[Element], value: Any) -> bool:
    if not path:
        return True
    key, rest = path[0], path[1:]
    if key == ANY:
        items = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
        return any(_exists(rest, item) for item in items)
    if isinstance(key, int):
        return isinstance(value, list) and 0 <= key < len(value) and _exists(rest, value[key])
    return isinstance(value, Mapping) and key in value and _exists(rest, value[key])


def _input_paths(value: Any, prefix: Path) -> Iterator[Path]:
    """Every path in ``value`` (objects by key, lists as ``[*]``), parents before their children."""
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            yield (*prefix, str(key))
            yield from _input_paths(value[key], (*prefix, str(key)))
    elif isinstance(value, list):
        for item in value[:1]:
            yield (*prefix, ANY)
            yield from _input_paths(item, (*prefix, ANY))


def _spelling(path: str) -> str:
    return path.replace("_", "").replace("-", "").lower()


def _closest(path: str, inputs: Sequence[Mapping[str, Any]]) -> str | None:
    candidates = list(dict.fromkeys(render(p) for value in inputs for p in _input_paths(value, ())))
    by_spelling = {_spelling(candidate): candidate for candidate in reversed(candidates)}
    if _spelling(path) in by_spelling:
        return by_spelling[_spelling(path)]
    close = difflib.get_close_matches(_spelling(path), list(by_spelling), n=1, cutoff=CLOSE_ENOUGH)
    return by_spelling[close[0]] if close else None
