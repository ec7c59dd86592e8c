"""Structural checks of plain input (types, required keys, unknown keys) with pydantic.

Input dictionaries (stack config, component args) are described by ``TypedDict`` classes decorated with
:data:`STRICT`. :func:`shape_problems` validates a value against such a class and turns each pydantic error into
a :class:`~gpu_components.errors.Problem` with the field path, the given value and, for an unknown key, the keys
that are allowed there; for a value of the wrong type, the valid values where they are a short list (a boolean
field's ``true, false``). Strict mode: ``2.0`` is not an integer, ``"4"`` is not a number, ``true`` is not ``1``.
"""

from __future__ import annotations

import difflib
import functools
import sys
import typing
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

import pulumi
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
        return Problem(path, item["input"], unknown_field(str(loc[-1]), allowed), ", ".join(allowed) or None)
    if item["type"] == "missing":
        return Problem(path, None, "required field is missing")
    expected = item.get("ctx", {}).get("expected")
    message = str(item["msg"])
    if expected is not None:
        return Problem(path, item["input"], "not one of the allowed values", str(expected))
    return Problem(path, item["input"], message[:1].lower() + message[1:], _VALID_OF_TYPE.get(item["type"]))


_VALID_OF_TYPE: Mapping[str, str] = {"bool_type": "true, false", "bool_parsing": "true, false"}
"""pydantic's error type of a value not of a field's type -> the valid values, for types that have a short list
(``bool``: YAML's ``true``/``false``; strict mode takes no ``"true"``, ``yes``, ``1`` or null)."""


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


def unknown_field(key: str, allowed: Sequence[str]) -> str:
    """The message for an unknown key: ``unknown field``, with the closest allowed key when one is close."""
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"unknown field; did you mean {close[0]!r}?" if close else "unknown field"


_STRICT_CONFIG = ConfigDict(strict=True)


_INPUT_KINDS: tuple[tuple[str, type | tuple[type, ...], str], ...] = (
    ("pulumi.Input[str]", str, "a string or a Pulumi Output"),
    ("pulumi.Input[Sequence[", (list, tuple), "a list or a Pulumi Output"),
    ("pulumi.Input[Mapping[", Mapping, "a mapping or a Pulumi Output"),
)
"""How a wiring field is written (annotation text, under NotRequired) -> the plain types it takes besides an Output,
and how to say so."""


def _input_problems(hint: object, value: object, path: str) -> list[Problem]:
    """A wiring field's value: any Output (or awaitable) passes; a plain value must be of the field's plain type."""
    if isinstance(value, pulumi.Output | Awaitable):
        return []
    text = hint.__forward_arg__ if isinstance(hint, typing.ForwardRef) else str(hint)
    text = text.removeprefix("NotRequired[")
    for written, types, expected in _INPUT_KINDS:
        if text.startswith(written) and (not isinstance(value, types) or (types is not str and isinstance(value, str))):
            return [Problem(path, value, f"must be {expected}")]
    if text.startswith("pulumi.Input[Sequence[pulumi.Input[str]]]") and isinstance(value, list | tuple):
        return [
            Problem(f"{path}[{index}]", item, "must be a string or a Pulumi Output")
            for index, item in enumerate(value)
            if not isinstance(item, str | pulumi.Output | Awaitable)
        ]
    return []


@functools.cache
def _field_adapter(shape: type, key: str) -> tuple[Any, TypeAdapter[Any]] | None:
    """The annotation of field ``key`` of ``shape`` and a strict pydantic adapter for it; ``None`` for a Pulumi
    input (wiring) field, whose value may be an ``Output``."""
    hint = shape.__annotations__[key]
    annotation: Any = hint
    if isinstance(hint, typing.ForwardRef):
        text = hint.__forward_arg__
        if "pulumi.Input[" in text or "pulumi.Output[" in text:
            return None
        module = sys.modules[hint.__forward_module__ or shape.__module__]
        annotation = eval(text, vars(module))  # a TypedDict's own annotation, evaluated as typing.get_type_hints does
    annotation = _unwrap(annotation)
    config = None if is_typeddict(annotation) else _STRICT_CONFIG  # a TypedDict carries its own (STRICT) config
    return annotation, TypeAdapter(annotation, config=config)


def args_problems(
    shape: type,
    args: object,
    path: str = "",
    *,
    validated_elsewhere: Sequence[str] = (),
    spellings: Mapping[str, Mapping[str, str]] | None = None,
) -> list[Problem]:
    """Check a component's args against its ``TypedDict`` ``shape``: one problem per unknown key (with the closest
    known key), missing required key, null, and value of the wrong type or not among the allowed values.

    Fields typed ``pulumi.Input[...]`` (cluster wiring) take a plain value or a Pulumi ``Output``: only a null is an
    error there, since an ``Output``'s value is not known before deployment. Fields in ``validated_elsewhere`` (a
    pool, which the pool rules check in full) are checked for presence and null only.

    Args:
        shape: the component's args ``TypedDict``.
        args: what the caller passed.
        path: prefix of every problem's path (``""`` for a component's own args).
        spellings: field -> a cloud's own spelling of a value -> this library's (``{"gpu_driver": {"Install":
            "aks"}}``): a value written the cloud's way gets an error that names ours.
    """
    fields = field_names(shape)
    if not isinstance(args, Mapping):
        return [Problem(path or "args", args, f"{shape.__name__} is a mapping of its fields", ", ".join(fields))]

    def where(key: str) -> str:
        return f"{path}.{key}" if path else key

    problems = [
        Problem(where(str(key)), args[key], unknown_field(str(key), fields), ", ".join(fields))
        for key in args
        if key not in fields
    ]
    problems += [
        Problem(where(key), None, "required field is missing") for key in required_keys(shape) if key not in args
    ]
    for key in fields:
        if key not in args:
            continue
        value = args[key]
        if value is None:
            required = key in required_keys(shape)
            message = "must not be null" + ("" if required else "; leave the field out for its default")
            problems.append(Problem(where(key), None, message))
            continue
        if key in validated_elsewhere:
            continue
        field = _field_adapter(shape, key)
        if field is None:
            problems += _input_problems(shape.__annotations__[key], value, where(key))
        else:
            problems += _value_problems(*field, value, where(key), (spellings or {}).get(key, {}))
    return problems


def _value_problems(
    annotation: Any, adapter: TypeAdapter[Any], value: object, path: str, spellings: Mapping[str, str]
) -> list[Problem]:
    try:
        adapter.validate_python(value)
    except ValidationError as error:
        problems = [_problem(annotation, item, path) for item in error.errors(include_url=False)]
        if isinstance(value, str) and value in spellings:
            return [
                Problem(
                    path,
                    value,
                    f"that is the cloud API's own spelling; this library spells it {spellings[value]!r}",
                    problems[0].valid,
                )
            ]
        return problems
    return []
