"""PyYAML's libyaml-backed safe loader when available (several times faster than the pure-Python one), else the
pure-Python loader. Both build the same data from the same text.

Only loading goes through libyaml: its emitter differs from the pure-Python one on long and multi-line strings and
ignores emitter hooks such as ``increase_indent``, so the rendered YAML (configs, hashes, plans) stays on
``yaml.safe_dump`` and does not depend on whether libyaml is installed.

Pulumi's own files are read differently: :func:`load_pulumi` reads ``Pulumi.yaml`` and ``Pulumi.<stack>.yaml`` with
the scalar types of gopkg.in/yaml.v3, the YAML library the Pulumi CLI reads them with (YAML 1.2 core schema: ``yes``
is a string there, where PyYAML's YAML 1.1 safe loader makes it True).
"""

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import yaml

# Type-checked as the pure-Python class (same constructor API), so it can be subclassed.
if TYPE_CHECKING or not yaml.__with_libyaml__:
    from yaml import SafeLoader
else:
    from yaml import CSafeLoader as SafeLoader

__all__ = ["PulumiLoader", "SafeLoader", "go_yaml_resolve", "load_all", "load_pulumi"]


def load_all(text: str) -> Iterator[Any]:
    """``yaml.safe_load_all(text)``, through the fastest safe loader."""
    return yaml.load_all(text, Loader=SafeLoader)


# ------------------------------------------------------------------------------------- Pulumi project and stack files

_GO_YAML = "https://github.com/go-yaml/yaml/blob/v3.0.1/resolve.go"
"""gopkg.in/yaml.v3 v3.0.1's ``resolve``: how the Pulumi CLI types an untagged plain scalar."""
_PULUMI_LOADERS = "https://github.com/pulumi/pulumi/blob/master/sdk/go/common/workspace/loaders.go"
"""``LoadProjectBytes`` and ``LoadProjectStackBytes``: each file decoded with yaml.v3 (``sdk/go/common/encoding``,
``marshal.go``; ``gopkg.in/yaml.v3 v3.0.1`` in ``sdk/go.mod`` and ``pkg/go.mod``)."""
_PULUMI_CONFIG = "https://github.com/pulumi/pulumi/blob/master/sdk/go/common/resource/config/object.go"
"""``unmarshalObject``: how a decoded YAML value becomes a config value (a ``time.Time`` becomes its ``String()``)."""

_TAG = "tag:yaml.org,2002:"
_STR, _BOOL, _NULL, _INT, _FLOAT, _TIMESTAMP, _MERGE = (
    f"{_TAG}{name}" for name in ("str", "bool", "null", "int", "float", "timestamp", "merge")
)
_WORDS: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(("true", "True", "TRUE"), (_BOOL, True)),
    **dict.fromkeys(("false", "False", "FALSE"), (_BOOL, False)),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (_NULL, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (_FLOAT, math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (_FLOAT, math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (_FLOAT, -math.inf)),
}
"""yaml.v3's resolve table: YAML 1.2's core-schema words, and no other (``yes``, ``on``, ``n`` are strings)."""
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
"""What Go's ``strconv.ParseFloat`` takes of a scalar starting with ``.`` (no underscores: Python's float() would)."""
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
"""yaml.v3's ``yamlStyleFloat``: YAML 1.2's core-schema float, which needs no dot (``1e3`` is 1000.0)."""
_GO_DIGITS = {
    2: re.compile(r"[01]+"),
    8: re.compile(r"[0-7]*"),
    10: re.compile(r"[0-9]+"),
    16: re.compile(r"[0-9a-fA-F]+"),
}
_TIMESTAMP_TEXT = re.compile(
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"(?:(?:(?P<t>[Tt])| +)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{1,2}):(?P<second>[0-9]{1,2})"
    r"(?:[.,](?P<fraction>[0-9]+))?(?P<zone>Z|[-+][0-9]{2}:[0-9]{2})?)?"
)
"""yaml.v3's ``allowedTimestampFormats`` read by Go's ``time.Parse``: a date, a date and time with ``T`` or ``t``
and a zone (``Z`` or ``±hh:mm``), or a date and time after spaces with no zone."""


def _go_int(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 0, 64)``, else ``ParseUint(text, 0, 64)`` (base prefixes 0x, 0o, 0b, and a
    leading 0 for octal, as yaml.v3 still reads YAML 1.1's ``0777``); None when neither parses."""
    sign, digits = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    base = 10
    if digits.startswith("0"):
        base, digits = {"b": (2, digits[2:]), "o": (8, digits[2:]), "x": (16, digits[2:])}.get(
            digits[1:2].lower() if len(digits) >= 3 else "", (8, digits[1:])
        )
    if not _GO_DIGITS[base].fullmatch(digits):
        return None
    value = int(digits or "0", base)
    if sign == "-":
        return -value if value <= 2**63 else None
    return value if value <= (2**63 - 1 if sign else 2**64 - 1) else None


def _go_time(text: str) -> str | None:
    """A timestamp as the Pulumi CLI makes it a config value: yaml.v3 parses it into a Go ``time.Time`` and Pulumi's
    config object keeps ``time.Time.String()`` (``2001-12-14 00:00:00 +0000 UTC``, :data:`_PULUMI_CONFIG`); None
    when yaml.v3 would not read ``text`` as a timestamp.

    A ``±hh:mm`` offset is shown as Go shows a fixed zone (``-0500 -0500``); where the offset is the local zone's of
    the machine running ``pulumi``, Go names that zone instead (``-0500 EST``).
    """
    match = _TIMESTAMP_TEXT.fullmatch(text)
    if match is None or (match["t"] is None and match["zone"] is not None):
        return None
    if match["hour"] is not None and match["t"] is not None and match["zone"] is None:
        return None  # the T layouts end in a zone
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    hour, minute, second = (int(match[key] or 0) for key in ("hour", "minute", "second"))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not (1 <= month <= 12 and 1 <= day <= days[month - 1] and hour < 24 and minute < 60 and second < 60):
        return None
    fraction = (match["fraction"] or "")[:9].ljust(9, "0").rstrip("0")
    zone = match["zone"] or "Z"
    if zone == "Z":
        offset, name = "+0000", "UTC"
    else:
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 24 or minutes > 60:
            return None
        total = hours * 60 + minutes
        offset = f"{zone[0] if total else '+'}{total // 60:02d}{total % 60:02d}"
        name = offset
    clock = f"{hour:02d}:{minute:02d}:{second:02d}" + (f".{fraction}" if fraction else "")
    return f"{year:04d}-{month:02d}-{day:02d} {clock} {offset} {name}"


def go_yaml_resolve(text: str, tag: str = "") -> tuple[str, Any]:
    """(tag, value) of a scalar as gopkg.in/yaml.v3 v3.0.1 resolves it (``resolve``, :data:`_GO_YAML`): an untagged
    plain scalar with ``tag`` ``""``, or a scalar with an explicit standard tag.

    YAML 1.2's core schema, with yaml.v3's own leniencies: underscores between digits are dropped (``1_0`` is 10),
    a leading ``0`` still means octal (``0777`` is 511), and ``2001-12-14`` is a timestamp (see :func:`_go_time`).
    Unlike PyYAML's YAML 1.1 resolver, ``yes``/``no``/``on``/``off``/``y``/``n`` and sexagesimal ``1:30`` are strings,
    and ``1e3`` is a float.
    """
    if tag == _STR:
        return _STR, text
    if text in _WORDS:
        return _WORDS[text]
    if text[0] == ".":
        if _DOT_FLOAT.fullmatch(text) and not math.isinf(float(text)):
            return _FLOAT, float(text)
    elif text[0] in "+-0123456789":
        if tag in ("", _TIMESTAMP):
            moment = _go_time(text)
            if moment is not None:
                return _TIMESTAMP, moment
        plain = text.replace("_", "")
        number = _go_int(plain)
        if number is not None:
            return _INT, number
        if _YAML_STYLE_FLOAT.fullmatch(plain) and not math.isinf(float(plain)):
            return _FLOAT, float(plain)
    return _STR, text


class PulumiLoader(yaml.SafeLoader):
    """Reads ``Pulumi.yaml`` and ``Pulumi.<stack>.yaml`` as the Pulumi CLI does (:data:`_PULUMI_LOADERS`): safe
    loading with gopkg.in/yaml.v3's scalar types (:func:`go_yaml_resolve`), not PyYAML's YAML 1.1 ones, so
    ``spot: yes`` is the string ``"yes"`` a real ``pulumi up`` hands the program, and a mapping key given twice is an
    error (yaml.v3: ``mapping key ... already defined``), where PyYAML would keep the last value.

    Timestamps are the text Pulumi's config makes of them (see :func:`_go_time`); a ``!!binary`` value is its bytes
    as text; a tag yaml.v3 does not know leaves the value untyped. The pure-Python loader (not libyaml's): these
    files are small, and its error messages carry the line and column the plan's errors show.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            return _MERGE if value == "<<" else go_yaml_resolve(value)[0]
        return cast(Any, super()).resolve(kind, value, implicit)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[str, yaml.Node] = {}
        for key_node, _ in node.value if isinstance(node, yaml.MappingNode) else ():
            if isinstance(key_node, yaml.ScalarNode):
                seen = first.setdefault(key_node.value, key_node)
                if seen is not key_node:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"mapping key {key_node.value!r} already defined at line {seen.start_mark.line + 1}",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep=deep)


def _construct_scalar(loader: PulumiLoader, node: yaml.Node) -> Any:
    """A bool, null, int, float or timestamp scalar, typed as yaml.v3 types it; an explicit tag the text does not
    fit (``!!bool yes``) is an error, as yaml.v3's ``cannot decode``."""
    text = loader.construct_scalar(cast(yaml.ScalarNode, node))
    tag, value = go_yaml_resolve(text, node.tag)
    if tag == node.tag:
        return value
    if node.tag == _FLOAT and tag == _INT:
        return float(value)
    short = "!!" + node.tag.removeprefix(_TAG)
    raise yaml.constructor.ConstructorError(
        None, None, f"cannot decode !!{tag.removeprefix(_TAG)} `{text}` as a {short}", node.start_mark
    )


def _construct_untyped(loader: PulumiLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(cast(yaml.ScalarNode, node))


def _construct_binary(loader: PulumiLoader, node: yaml.Node) -> str:
    data = yaml.constructor.SafeConstructor.construct_yaml_binary(loader, cast(yaml.ScalarNode, node))
    # yaml.v3 keeps the decoded bytes as a Go string, and Pulumi's config JSON writes invalid UTF-8 as U+FFFD.
    return data.decode("utf-8", "replace")


for _tag in (_BOOL, _NULL, _INT, _FLOAT, _TIMESTAMP):
    PulumiLoader.add_constructor(_tag, _construct_scalar)
PulumiLoader.add_constructor(f"{_TAG}binary", _construct_binary)
PulumiLoader.add_constructor(f"{_TAG}set", _construct_untyped)  # yaml.v3 reads a tagged mapping as a mapping
PulumiLoader.add_constructor(f"{_TAG}omap", _construct_untyped)  # and a tagged sequence as a sequence
PulumiLoader.add_constructor(f"{_TAG}pairs", _construct_untyped)
PulumiLoader.add_constructor(None, _construct_untyped)


def load_pulumi(data: bytes | str) -> Any:
    """The document in a Pulumi project or stack file, typed as the Pulumi CLI types it (:class:`PulumiLoader`).

    Raises:
        yaml.YAMLError: not valid YAML, a duplicate mapping key, or an explicit tag its value does not fit.
    """
    return yaml.load(data, Loader=PulumiLoader)  # a SafeLoader subclass
