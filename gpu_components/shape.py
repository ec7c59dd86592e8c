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
import typing
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, TypeVar, cast

import pulumi
from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import NotRequired, Required, is_typeddict

from gpu_components.errors import Problem
from gpu_components.name_forms import MISSING

_T = TypeVar("_T")

STRICT = with_config(ConfigDict(extra="forbid", strict=True))
"""Decorator for input ``TypedDict`` classes: unknown keys are errors and no type is coerced."""


def plain(value: _T) -> _T:
    """``value`` with every enum member in it replaced by the member's value, in dicts, lists and tuples at any depth
    (new containers; every other object, Pulumi Outputs and components included, kept as it is).

    Each component calls it on its args first, so a caller's enum members (``GpuStack.GPU_OPERATOR``, or what the
    multi-language provider makes of a schema enum) behave exactly as their strings and never reach a resource
    input, a rendered config, a label or the plan.
    """
    if isinstance(value, Enum):
        return cast(_T, value.value)
    if isinstance(value, dict):
        return cast(_T, {key: plain(item) for key, item in value.items()})
    if isinstance(value, list):
        return cast(_T, [plain(item) for item in value])
    if isinstance(value, tuple):
        return cast(_T, tuple(plain(item) for item in value))
    return value


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
    path = _join(prefix, loc, shape)
    if item["type"] == "extra_forbidden":
        allowed = _keys_at(shape, loc[:-1])
        return Problem(path, item["input"], unknown_field(str(loc[-1]), allowed), ", ".join(allowed) or None)
    if item["type"] == "missing":
        return Problem(path, None, MISSING)
    parent: Any = _unwrap(_at(shape, loc[:-1])) if loc and isinstance(loc[-1], str) else None
    if item["input"] is None and is_typeddict(parent):
        # A null field: the same words whichever entry point checks it (args_problems for a component's own args).
        return Problem(path, None, null_message(_required(parent, str(loc[-1]))), _null_valid(shape, loc, item))
    expected = item.get("ctx", {}).get("expected")
    message = str(item["msg"])
    if expected is not None:
        return Problem(path, item["input"], not_allowed(item["input"], _allowed_at(shape, loc)), str(expected))
    if item["type"] in _INTEGER_TYPES:
        return Problem(path, item["input"], "must be a whole number", WHOLE_NUMBER)
    if item["type"] == "list_type" and isinstance(item["input"], str | int | float):
        items = _allowed_at(shape, (*loc, 0))
        of = f"; items: {', '.join(items)}" if items else ""
        return Problem(path, item["input"], "must be a list, not a single value", f"a list, e.g. [{item['input']}]{of}")
    return Problem(path, item["input"], message[:1].lower() + message[1:], _valid_of_type(shape, loc, item["type"]))


WHOLE_NUMBER = "a whole number, without quotes or a fraction (2, not 2.5, 2.0 or '2')"
"""The valid values of an integer field, as its type error states them (strict: no float, string or boolean)."""
_INTEGER_TYPES = frozenset({"int_type", "int_parsing", "int_from_float"})
"""pydantic's error types of a value that is not an integer."""
_VALID_OF_TYPE: Mapping[str, str] = {"bool_type": "true, false", "bool_parsing": "true, false"}
"""pydantic's error type of a value not of a field's type -> the valid values, for types that have a short list
(``bool``: YAML's ``true``/``false``; strict mode takes no ``"true"``, ``yes``, ``1`` or null)."""


_MAPPING_TYPES = frozenset({"dict_type", "mapping_type", "model_type"})
"""pydantic's error types of a value that is not a mapping (a settings section, labels)."""


def _valid_of_type(shape: type, loc: tuple[int | str, ...], error_type: str) -> str | None:
    """The valid values of a value not of its field's type, as a type error states them: the short list of
    :data:`_VALID_OF_TYPE`; for a settings section its keys, for another mapping ``key: value`` pairs; a string, a
    list or a number where one is expected; ``None`` for an error type that names no type."""
    if error_type in _VALID_OF_TYPE:
        return _VALID_OF_TYPE[error_type]
    if error_type in _MAPPING_TYPES:
        keys = _keys_at(shape, loc)
        return _mapping_with_keys(keys) if keys else "a mapping of key: value pairs"
    if error_type == "string_type":
        return "a string"
    if error_type == "list_type":
        return "a list"
    if error_type in ("float_type", "float_parsing"):
        return "a number"
    return None


def _mapping_with_keys(keys: Sequence[str]) -> str:
    return f"a mapping with keys {', '.join(keys)}"


def valid_mapping(shape: type, loc: tuple[int | str, ...] = ()) -> str:
    """What is valid where ``shape`` (at ``loc`` inside it) expects a mapping, as a type error there states it
    (``a mapping with keys chart_version, namespace``): for a value that is no mapping at all, such as a stack config
    scalar."""
    return _valid_of_type(shape, loc, "dict_type") or "a mapping of key: value pairs"


def _allowed_at(shape: type, loc: tuple[int | str, ...]) -> list[str]:
    """The values a ``Literal`` or enum field at ``loc`` inside ``shape`` allows, as strings (empty elsewhere)."""
    current = _unwrap(_at(shape, loc))
    if isinstance(current, type) and issubclass(current, Enum):
        return [str(member.value) for member in current]
    return [str(value) for value in typing.get_args(current) if isinstance(value, str)]


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``word`` most likely meant: the one equal to it but for case, else the closest by
    ``difflib.get_close_matches`` (ratio >= 0.6, compared in lower case); ``None`` when none is close. The one
    suggestion helper of the library's messages (unknown keys, enum values, MIG profile names)."""
    by_lower = {candidate.lower(): candidate for candidate in candidates}
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1)
    return by_lower[close[0]] if close else None


def not_allowed(value: object, allowed: Iterable[str]) -> str:
    """The message for a value not among the ``allowed`` values: ``not one of the allowed values``, with the closest
    allowed value when a string is close to one (``Single`` -> ``did you mean 'single'?``)."""
    close = did_you_mean(value, allowed) if isinstance(value, str) else None
    return f"not one of the allowed values; did you mean {close!r}?" if close else "not one of the allowed values"


def _join(prefix: str, loc: tuple[int | str, ...], shape: Any) -> str:
    """The path of pydantic's ``loc`` inside ``shape``: a field as ``.field``, a list index as ``[0]``, and a key of a
    mapping (labels, a MIG layout) as ``['key']``, as the library's rules write them (a key may hold dots)."""
    text = prefix
    current: Any = shape
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif typing.get_origin(_unwrap(current)) is dict:
            text += f"[{part!r}]"
        else:
            text = f"{text}.{part}" if text else str(part)
        current = _inside(current, part)
    return text


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) in (NotRequired, Required, typing.Annotated):
        annotation = typing.get_args(annotation)[0]
    return annotation


def _inside(annotation: Any, part: int | str) -> Any:
    """The annotation of ``part`` inside ``annotation``: a ``TypedDict``'s field, a list's item or a dict's value;
    ``None`` anywhere else."""
    current = _unwrap(annotation)
    if is_typeddict(current) and isinstance(part, str):
        return typing.get_type_hints(current, include_extras=True).get(part)
    if typing.get_origin(current) in (list, tuple) and isinstance(part, int):
        return typing.get_args(current)[0]
    if typing.get_origin(current) is dict:
        return typing.get_args(current)[1]
    return None


def _at(shape: type, loc: tuple[int | str, ...]) -> Any:
    """The annotation at ``loc`` inside ``shape`` (``None`` where ``loc`` leaves the shape)."""
    current: Any = shape
    for part in loc:
        current = _inside(current, part)
    return current


def _keys_at(shape: type, loc: tuple[int | str, ...]) -> list[str]:
    """The keys a ``TypedDict`` allows at ``loc`` inside ``shape`` (empty when not a ``TypedDict`` there)."""
    current = _unwrap(_at(shape, loc))
    return sorted(typing.get_type_hints(current)) if is_typeddict(current) else []


def _null_valid(shape: type, loc: tuple[int | str, ...], item: Mapping[str, Any]) -> str | None:
    """The valid values of a field given as null, from pydantic's error on it: those its type has (a Literal's or
    enum's values, ``true, false``, a mapping's keys, ...)."""
    expected = item.get("ctx", {}).get("expected")
    return str(expected) if expected is not None else _valid_of_type(shape, loc, str(item["type"]))


def _required(shape: type, key: str) -> bool:
    """Whether a STRICT ``TypedDict`` requires ``key`` (its resolved hint not ``NotRequired``: the class's own
    ``__required_keys__`` counts every field of a module with postponed annotations as required)."""
    return typing.get_origin(typing.get_type_hints(shape, include_extras=True).get(key)) is not NotRequired


def _field_null_valid(shape: type, key: str) -> str | None:
    """:func:`_null_valid` of a component arg ``key`` given as null (``None`` for a ``pulumi.Input`` field)."""
    annotation, adapter = _field_adapter(shape, key)
    if adapter is None:
        return None
    if is_typeddict(annotation):  # its keys as written: a wiring's hints name Pulumi types not resolvable here
        return _mapping_with_keys(sorted(annotation.__annotations__))
    try:
        adapter.validate_python(None)
    except ValidationError as error:
        return _null_valid(annotation, (), error.errors(include_url=False)[0])
    return None


def null_message(required: bool) -> str:
    """The message for a field given as null: ``must not be null``, and for an optional field how to get its
    default (leave it out: a null would read as left out, which the writer may not mean)."""
    return "must not be null" + ("" if required else "; leave the field out for its default")


def field_names(shape: type) -> list[str]:
    """Every key a ``TypedDict`` declares (inherited ones included), sorted, without resolving annotations."""
    return sorted(shape.__annotations__)


def required_keys(shape: type) -> list[str]:
    """The keys a ``TypedDict`` requires, sorted (those not marked ``NotRequired``)."""

    def optional(hint: Any) -> bool:
        return typing.get_origin(hint) is NotRequired

    return sorted(key for key, hint in shape.__annotations__.items() if not optional(hint))


def unknown_field(key: str, allowed: Sequence[str]) -> str:
    """The message for an unknown key: ``unknown field``, with the closest allowed key when one is close."""
    close = did_you_mean(key, allowed)
    return f"unknown field; did you mean {close!r}?" if close else "unknown field"


_STRICT_CONFIG = ConfigDict(strict=True)


def _pulumi_input_type(annotation: object) -> object | None:
    """``T`` of a ``pulumi.Input[T]`` annotation (``Union[T, Awaitable[T], Output[T]]``), else ``None``."""
    members: tuple[object, ...] = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Union else ()
    if not any(typing.get_origin(member) is Awaitable for member in members):
        return None
    return members[0]


def _input_problems(plain_type: object, value: object, path: str) -> list[Problem]:
    """A wiring field's value (``pulumi.Input[plain_type]``): any Output (or awaitable) passes; a plain value must be of
    the plain type (a string; a list of strings or Outputs; a mapping)."""
    if isinstance(value, pulumi.Output | Awaitable):
        return []
    origin = typing.get_origin(plain_type)
    if plain_type is str and not isinstance(value, str):
        return [Problem(path, value, "must be a string or a Pulumi Output")]
    if origin in (Sequence, list):
        if not isinstance(value, list | tuple):
            return [Problem(path, value, "must be a list or a Pulumi Output")]
        if _pulumi_input_type(typing.get_args(plain_type)[0]) is str:
            return [
                Problem(f"{path}[{index}]", item, "must be a string or a Pulumi Output")
                for index, item in enumerate(value)
                if not isinstance(item, str | pulumi.Output | Awaitable)
            ]
    if origin in (Mapping, dict) and not isinstance(value, Mapping):
        return [Problem(path, value, "must be a mapping or a Pulumi Output")]
    return []


@functools.cache
def _field_adapter(shape: type, key: str) -> tuple[Any, TypeAdapter[Any] | None]:
    """The annotation of field ``key`` of ``shape`` (``NotRequired`` removed) and a strict pydantic adapter for it;
    no adapter for a Pulumi input (wiring) field, whose value may be an ``Output``."""
    annotation = _unwrap(shape.__annotations__[key])
    if _pulumi_input_type(annotation) is not None:
        return annotation, None
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
    problems += [Problem(where(key), None, MISSING) for key in required_keys(shape) if key not in args]
    for key in fields:
        if key not in args:
            continue
        value = args[key]
        if value is None:
            problems.append(
                Problem(where(key), None, null_message(key in required_keys(shape)), _field_null_valid(shape, key))
            )
            continue
        if key in validated_elsewhere:
            continue
        annotation, adapter = _field_adapter(shape, key)
        if adapter is None:
            problems += _input_problems(_pulumi_input_type(annotation), value, where(key))
        else:
            problems += _value_problems(annotation, adapter, value, where(key), (spellings or {}).get(key, {}))
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
