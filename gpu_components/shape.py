"""Structural checks of plain input (types, required keys, unknown keys) with pydantic.

Input dictionaries (stack config, component args) are described by ``TypedDict`` classes decorated with
:data:`STRICT`. :func:`shape_problems` validates a value against such a class and turns each pydantic error into
a :class:`~gpu_components.errors.Problem` with the field path, the given value and, for an unknown key, the keys
that are allowed there. Strict mode: ``2.0`` is not an integer, ``"4"`` is not a number, ``true`` is not ``1``.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import NotRequired, Required, is_typeddict

from gpu_components.errors import Problem

STRICT = with_config(ConfigDict(extra="forbid", strict=True))
"""Decorator for input ``TypedDict`` classes: unknown keys are errors and no type is coerced."""


@functools.cache
def _adapter(shape: type) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


def shape_problems(shape: type, data: object, path: str = "") -> list[Problem]:
    """Check ``data`` against the ``TypedDict`` ``shape``; return one problem per structural error.

    Args:
        shape: a ``TypedDict`` class decorated with :data:`STRICT`.
        data: the plain value to check (typically parsed YAML or a caller's dict).
        path: prefix for every problem's path, e.g. ``pools[2]``.
    """
    try:
        _adapter(shape).validate_python(data)
    except ValidationError as error:
        return [_problem(shape, item, path) for item in error.errors(include_url=False)]
    return []


def _problem(shape: type, item: Mapping[str, Any], prefix: str) -> Problem:
    loc = tuple(item["loc"])
    path = _join(prefix, loc)
    if item["type"] == "extra_forbidden":
        allowed = _keys_at(shape, loc[:-1])
        return Problem(path, item["input"], "unknown field", ", ".join(allowed) if allowed else None)
    if item["type"] == "missing":
        return Problem(path, None, "required field is missing")
    expected = item.get("ctx", {}).get("expected")
    message = str(item["msg"])
    if expected is not None:
        return Problem(path, item["input"], "not one of the allowed values", str(expected))
    return Problem(path, item["input"], message[:1].lower() + message[1:])


def _join(prefix: str, loc: tuple[int | str, ...]) -> str:
    text = prefix
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text = f"{text}.{part}" if text else str(part)
    return text


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) in (NotRequired, Required, typing.Annotated):
        annotation = typing.get_args(annotation)[0]
    return annotation


def _keys_at(shape: type, loc: tuple[int | str, ...]) -> list[str]:
    """The keys a ``TypedDict`` allows at ``loc`` inside ``shape`` (empty when not a ``TypedDict`` there)."""
    current: Any = shape
    for part in loc:
        current = _unwrap(current)
        if is_typeddict(current) and isinstance(part, str):
            current = typing.get_type_hints(current, include_extras=True).get(part)
        elif typing.get_origin(current) in (list, tuple) and isinstance(part, int):
            current = typing.get_args(current)[0]
        elif typing.get_origin(current) is dict:
            current = typing.get_args(current)[1]
        else:
            return []
    current = _unwrap(current)
    return sorted(typing.get_type_hints(current)) if is_typeddict(current) else []


def field_names(shape: type) -> list[str]:
    """Every key a ``TypedDict`` declares (inherited ones included), sorted, without resolving annotations."""
    return sorted(shape.__annotations__)


def required_keys(shape: type) -> list[str]:
    """The keys a ``TypedDict`` requires, sorted. Annotations are read as written (postponed strings included)
    and not resolved, so fields typed with Pulumi ``Input`` aliases work."""

    def optional(hint: Any) -> bool:
        text = hint.__forward_arg__ if isinstance(hint, typing.ForwardRef) else hint
        return (isinstance(text, str) and text.startswith("NotRequired[")) or typing.get_origin(hint) is NotRequired

    return sorted(key for key, hint in shape.__annotations__.items() if not optional(hint))
