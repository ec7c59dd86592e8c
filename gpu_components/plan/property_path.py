"""Pulumi's property paths, as the engine reads ``ignoreChanges`` and ``replaceOnChanges``, on a plan's plain inputs.

A path such as ``scalingConfig.desiredSize``, ``nodeTaints[0]``, ``labels["nvidia.com/gpu"]`` or
``nodeConfig.guestAccelerators[*].type`` is a sequence of elements: object keys (``str``), list indexes (``int``),
and ``"*"``, which stands for any key or index. :func:`parse` reads one as the engine's ``ParsePropertyPath`` does,
:func:`contains` is its ``PropertyPath.Contains`` (does a change at one path lie at or beneath another), and
:func:`reset` its ``PropertyPath.Reset``, which ``ignoreChanges`` applies: the value at the path in the new inputs
is set back to the old one, or the call fails where the path was added or removed along the way.

Source: ``sdk/go/common/resource/properties_path.go`` and ``processIgnoreChanges`` /
``applyReplaceOnChanges`` in ``pkg/resource/deploy/step_generator.go`` of https://github.com/pulumi/pulumi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["ANY", "Element", "Path", "contains", "overlaps", "parse", "render", "reset"]

Element = str | int
"""One element of a path: an object key, a list index, or :data:`ANY`."""
Path = tuple[Element, ...]

ANY = "*"
"""The element that stands for any key or index (``[*]``, or ``*`` as a key)."""

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def parse(path: str) -> Path:
    """The elements of ``path``, read as the engine's ``ParsePropertyPath`` reads it.

    Names run to the next ``.`` or ``[``; ``["key"]`` is a quoted key (``\\"`` escapes a quote); ``[n]`` an index;
    ``[*]`` any element.

    Raises:
        ValueError: ``path`` is not a property path (an unclosed bracket or quote, a bad index, a leading or
            trailing ``.``).
    """
    elements: list[Element] = []
    rest = path
    if rest.startswith("."):
        raise ValueError(f"property path {path!r} must start with a name or index")
    while rest:
        if rest[0] == ".":
            rest = rest[1:]
            if not rest:
                raise ValueError(f"property path {path!r} must end with a name or index")
        elif rest[0] == "[":
            if rest[1:2] == '"':
                key: list[str] = []
                i = 2
                while True:
                    if i >= len(rest):
                        raise ValueError(f"property path {path!r} has a quoted name without its closing quote")
                    if rest[i] == '"':
                        i += 1
                        break
                    if rest[i] == "\\" and rest[i + 1 : i + 2] == '"':
                        key.append('"')
                        i += 2
                    else:
                        key.append(rest[i])
                        i += 1
                if rest[i : i + 1] != "]":
                    raise ValueError(f"property path {path!r} has a quoted name without its closing bracket")
                elements.append("".join(key))
                rest = rest[i + 1 :]
            else:
                end = rest.find("]")
                if end == -1:
                    raise ValueError(f"property path {path!r} has an index without its closing bracket")
                segment = rest[1:end]
                if segment == ANY:
                    elements.append(ANY)
                else:
                    try:
                        elements.append(int(segment, 10))
                    except ValueError:
                        raise ValueError(f"property path {path!r} has an invalid index {segment!r}") from None
                rest = rest[end + 1 :]
        else:
            end = min((i for i in (rest.find("."), rest.find("[")) if i != -1), default=len(rest))
            elements.append(rest[:end])
            rest = rest[end:]
    return tuple(elements)


def render(path: Sequence[Element]) -> str:
    """``path`` as the plan's diff writes it: ``a.b``, ``a[0]``, ``a["not an identifier"]``."""
    text = ""
    for element in path:
        if isinstance(element, int):
            text += f"[{element}]"
        elif element == ANY:
            text += "[*]"
        elif _IDENTIFIER.fullmatch(element):
            text += f".{element}" if text else element
        else:
            text += f"[{json.dumps(element)}]"
    return text


def _match(a: Element, b: Element) -> bool:
    return a in (ANY, b) or b == ANY


def contains(outer: Sequence[Element], inner: Sequence[Element]) -> bool:
    """Whether ``inner`` is ``outer`` or lies beneath it (the engine's ``PropertyPath.Contains``; :data:`ANY` in
    either matches any element)."""
    return len(inner) >= len(outer) and all(_match(a, b) for a, b in zip(outer, inner, strict=False))


def overlaps(a: Sequence[Element], b: Sequence[Element]) -> bool:
    """Whether either path contains the other: a change at one changes the value at the other."""
    return contains(a, b) or contains(b, a)


def reset(path: Sequence[Element], old: Any, new: Any) -> bool:
    """Set the value at ``path`` in ``new`` (plain JSON, changed in place) back to its value in ``old``, as the
    engine's ``PropertyPath.Reset`` does for ``ignoreChanges``: a key missing from ``old`` is removed from ``new``;
    no object or list element is created, and no list is resized.

    Returns:
        False where the path cannot be reset (it runs through an element added or removed, or through values of
        different shapes): the engine then keeps the change ("cannot ignore changes in added or removed elements").
    """
    if not path:
        return False
    key, rest = path[0], path[1:]
    if isinstance(key, int):
        return _reset_index(key, rest, old, new)
    if key == ANY:
        return _reset_any(rest, old, new)
    if not rest:
        if isinstance(old, dict) and key in old:
            if not isinstance(new, dict):
                return False
            new[key] = old[key]
        elif isinstance(new, dict):
            new.pop(key, None)
        return True
    if not isinstance(old, dict) or not isinstance(new, dict):
        return not isinstance(old, dict) and not isinstance(new, dict)
    if key in old and key not in new:
        return False
    if key not in old and key not in new:
        return True
    return reset(rest, old.get(key), new[key])


def _reset_index(index: int, rest: Path | Sequence[Element], old: Any, new: Any) -> bool:
    if index < 0:
        return False
    if not rest:
        if not isinstance(old, list) and not isinstance(new, list):
            return True
        if not isinstance(old, list) or not isinstance(new, list):
            return False
        if index >= len(old) and index >= len(new):
            return True
        if index >= len(old) or index >= len(new):
            return False
        new[index] = old[index]
        return True
    if not isinstance(old, list) or not isinstance(new, list):
        return not isinstance(old, list) and not isinstance(new, list)
    if index >= len(old) or index >= len(new):
        return False
    return reset(rest, old[index], new[index])


def _reset_any(rest: Path | Sequence[Element], old: Any, new: Any) -> bool:
    if not rest:
        if isinstance(new, dict):
            if isinstance(old, dict):
                new.clear()
                new.update(old)
            return True
        if isinstance(new, list):
            if isinstance(old, list):
                for i in range(min(len(old), len(new))):
                    new[i] = old[i]
                return len(old) == len(new)
            return True
        return False
    if isinstance(old, dict) and isinstance(new, dict):
        return all(key in new and reset(rest, value, new[key]) for key, value in old.items())
    if isinstance(old, list) and isinstance(new, list):
        ok = all(reset(rest, old[i], new[i]) for i in range(min(len(old), len(new))))
        return ok and len(old) == len(new)
    return False
