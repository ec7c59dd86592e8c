"""CEL device selectors of a resource claim, checked before Kubernetes or the scheduler sees them.

A request's ``selectors[].cel.expression`` is evaluated against each device (``resource.k8s.io/v1``
``CELDeviceSelector``, :data:`SOURCE_CEL_DEVICE_SELECTOR`): its input is an object ``device`` with ``driver``, the
``attributes`` and ``capacity`` maps grouped by domain (``device.attributes['gpu.nvidia.com'].productName``) and
``allowMultipleAllocations``, and it must evaluate to a bool. :func:`selector_problems` parses an expression with
``cel-python`` (``celpy``, Apache-2.0, a CEL parser; :data:`SOURCE_CEL_PARSER`) and reports, as the claim helpers and
the policy pack need it:

- a syntax error, with the parser's message;
- an attribute or capacity of a domain or name that the driver does not publish for devices of the request's
  DeviceClass (the caller gives them: :func:`gpu_components.dra.selector_problems` gives NVIDIA's,
  :data:`gpu_components.dra.PUBLISHED_NAMES`), with the valid names and a did-you-mean; a ``device.<field>``
  Kubernetes does not define;
- an expression whose value is plainly not a bool (a literal other than ``true``/``false``, arithmetic, a list or
  map): Kubernetes refuses it, and a value that is known only at run time is left to Kubernetes' CEL compiler.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence

import celpy.celparser
from lark import Token, Tree

from gpu_components.errors import Problem
from gpu_components.shape import did_you_mean

SOURCE_CEL_DEVICE_SELECTOR = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-v1/"
"""``CELDeviceSelector.expression``: a bool over ``device.driver``, ``device.attributes``, ``device.capacity`` and
``device.allowMultipleAllocations``."""
SOURCE_CEL_PARSER = "https://pypi.org/project/cel-python/"
"""The CEL parser the check uses (``celpy.celparser.CELParser``)."""
DEVICE_FIELDS = ("allowMultipleAllocations", "attributes", "capacity", "driver")
"""The fields of a selector's ``device`` (:data:`SOURCE_CEL_DEVICE_SELECTOR`)."""

_WRAPPERS = frozenset(
    ("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member")
)
_WRAPPERS_AND_PARENS = _WRAPPERS | {"primary", "paren_expr"}
_NOT_BOOLEAN = frozenset(("addition", "multiplication", "list_lit", "map_lit", "mapinits"))
_NUMBERED = re.compile(r"^(?P<stem>[A-Za-z]+)[0-9]+$")


def _child(node: Tree[Token]) -> Tree[Token] | None:
    """The one subtree of a node that only wraps it (``expr`` -> ``conditionalor`` -> ...), else ``None``."""
    if len(node.children) == 1 and isinstance(node.children[0], Tree):
        return node.children[0]
    return None


def _unwrap(node: Tree[Token], through: frozenset[str]) -> Tree[Token]:
    inner = _child(node)
    while node.data in through and inner is not None:
        node, inner = inner, _child(inner)
    return node


def _string(node: Tree[Token]) -> str | None:
    """The value of a string literal expression, else ``None``."""
    literal = _unwrap(node, _WRAPPERS_AND_PARENS)
    token = literal.children[0] if literal.data == "literal" and literal.children else None
    if isinstance(token, Token) and token.type == "STRING_LIT" and str(token)[:1] in "'\"":
        return str(token)[1:-1]
    return None


def _subtrees(node: Tree[Token]) -> Iterator[Tree[Token]]:
    """``node`` and every subtree below it, outermost first, left to right."""
    yield node
    for child in node.children:
        if isinstance(child, Tree):
            yield from _subtrees(child)


def _device_field(node: Tree[Token]) -> str | None:
    """``F`` when ``node`` is ``device.F``, else ``None``."""
    if node.data != "member_dot":
        return None
    target, name = node.children
    base = _unwrap(target, _WRAPPERS_AND_PARENS) if isinstance(target, Tree) else None
    ident = base.children[0] if base is not None and base.data == "ident" else None
    return str(name) if isinstance(ident, Token) and str(ident) == "device" else None


def _references(tree: Tree[Token]) -> list[tuple[str, str | None, str | None]]:
    """Each ``device.F`` of the expression, in order: ``(F, domain, name)`` with the domain and name of
    ``device.attributes['<domain>'].<name>`` / ``['<name>']`` (``None`` where not a literal or not given)."""
    found: list[tuple[str, str | None, str | None]] = []
    for node in _subtrees(tree):
        field = _device_field(node)
        if field is not None and field not in ("attributes", "capacity"):
            found.append((field, None, None))
        if node.data not in ("member_dot", "member_index"):
            continue
        target, key = node.children
        index = _unwrap(target, _WRAPPERS) if isinstance(target, Tree) else None
        if index is None or index.data != "member_index":
            continue
        inner, domain = index.children
        map_field = _device_field(_unwrap(inner, _WRAPPERS)) if isinstance(inner, Tree) else None
        if map_field not in ("attributes", "capacity") or not isinstance(domain, Tree):
            continue
        name = str(key) if isinstance(key, Token) else _string(key) if isinstance(key, Tree) else None
        found.append((str(map_field), _string(domain), name))
    return found


def references(expression: object) -> list[tuple[str, str | None, str | None]]:
    """Each ``device.<field>`` an expression reads, in order, without repeats: ``(field, domain, name)``, with the
    domain and name of ``device.attributes['<domain>'].<name>`` (or ``['<name>']``, in either quote) and of
    ``device.capacity[...]`` (``None`` where not a literal or not given), ``(field, None, None)`` for another field.
    ``[]`` for a value that is not a string or not valid CEL (:func:`selector_problems` reports those)."""
    if not isinstance(expression, str):
        return []
    try:
        tree = celpy.celparser.CELParser().parse(expression)
    except celpy.celparser.CELParseError:
        return []
    return list(dict.fromkeys(_references(tree)))


def _not_boolean(tree: Tree[Token]) -> str | None:
    """What the expression's value plainly is when it is not a bool (``a string``, ``arithmetic``...), else
    ``None`` (a bool, or a value known only when evaluated)."""
    node = _unwrap(tree, _WRAPPERS_AND_PARENS)
    if node.data in _NOT_BOOLEAN:
        return {"addition": "arithmetic", "multiplication": "arithmetic", "list_lit": "a list"}.get(node.data, "a map")
    if node.data == "unary" and isinstance(node.children[0], Tree) and node.children[0].data == "unary_neg":
        return "arithmetic"
    token = node.children[0] if node.data == "literal" and node.children else None
    if isinstance(token, Token) and token.type != "BOOL_LIT":
        kinds = {"STRING_LIT": "a string", "BYTES_LIT": "bytes", "NULL_LIT": "null"}
        return kinds.get(str(token.type), "a number")
    return None


Published = tuple[Mapping[str, Sequence[str]], Mapping[str, Sequence[str]]]
"""What a driver publishes for the devices of one DeviceClass: (attribute names, capacity names), each by domain;
a name ``<stem><N>`` stands for the stem followed by any number (``memorySlice<N>``)."""


def _name_problem(
    path: str, expression: str, device_class: str, published: Published, reference: tuple[str, str | None, str | None]
) -> Problem | None:
    """A problem when ``device.<field>['<domain>'].<name>`` (``reference``) is not ``published`` for
    ``device_class``."""
    field, domain, name = reference
    names = published[0] if field == "attributes" else published[1]
    what = "attribute" if field == "attributes" else "capacity"
    source = None
    if domain is not None and domain not in names:
        close = did_you_mean(domain, names)
        hint = f" (did you mean {close!r}?)" if close else ""
        return Problem(
            path,
            expression,
            f"device.{field}[{domain!r}]: NVIDIA's DRA driver publishes no {what} of domain {domain!r} for "
            f"DeviceClass {device_class}{hint}, so the selector never matches",
            ", ".join(sorted(names)),
            source,
        )
    valid = names.get(domain, ()) if domain is not None else ()
    numbered = _NUMBERED.match(name) if name is not None else None
    if name is None or domain is None or name in valid or (numbered and f"{numbered['stem']}<N>" in valid):
        return None
    close = did_you_mean(name, valid)
    hint = f" (did you mean {close!r}?)" if close else ""
    return Problem(
        path,
        expression,
        f"device.{field}[{domain!r}].{name}: NVIDIA's DRA driver publishes no {what} {name!r} for DeviceClass "
        f"{device_class}{hint}, so the selector never matches",
        ", ".join(valid),
        source,
    )


def selector_problems(
    expression: object, path: str, device_class: str, published: Published | None, source: str | None
) -> list[Problem]:
    """Problems of one CEL selector ``expression`` of a request of ``device_class``, at ``path`` (e.g.
    ``selectors[1]``), given what the class's devices publish (``published``; ``None``: a class whose names are not
    known, checked for syntax, ``device.<field>`` and a non-bool value only; ``source``: where the names come from):

    - not a string;
    - a syntax error: the message names the parser's line, column and message;
    - ``device.attributes['<domain>'].<name>`` / ``device.capacity[...]`` (or ``['<name>']``) of a domain or name
      the driver does not publish for the class (``valid`` lists them), with a did-you-mean; ``device.<field>``
      other than :data:`DEVICE_FIELDS`;
    - a value plainly not a bool (``valid``: an expression that evaluates to true or false).

    Returns ``[]`` for a selector without them, else one problem (one per selector, as the policy pack reports
    them): its message and valid values each finding's, joined by ``; ``."""
    if not isinstance(expression, str):
        return [Problem(path, expression, "must be a CEL expression (a string)", "a CEL expression")]
    try:
        tree = celpy.celparser.CELParser().parse(expression)
    except celpy.celparser.CELParseError as error:
        cause = error.__context__ or error
        message = str(cause).strip().splitlines()[0]
        return [
            Problem(
                path,
                expression,
                f"not valid CEL: {message}",
                "a CEL expression over device.driver, device.attributes and device.capacity",
                f"{SOURCE_CEL_DEVICE_SELECTOR}; {SOURCE_CEL_PARSER}",
            )
        ]
    problems: list[Problem] = []
    for reference in dict.fromkeys(_references(tree)):
        field = reference[0]
        if field not in DEVICE_FIELDS:
            close = did_you_mean(field, DEVICE_FIELDS)
            hint = f" (did you mean {close!r}?)" if close else ""
            problems.append(
                Problem(
                    path,
                    expression,
                    f"device.{field}: a selector's device has no field {field!r}{hint}",
                    ", ".join(DEVICE_FIELDS),
                    SOURCE_CEL_DEVICE_SELECTOR,
                )
            )
        elif published is not None:
            problem = _name_problem(path, expression, device_class, published, reference)
            problems += [dataclasses.replace(problem, source=source)] if problem is not None else []
    kind = _not_boolean(tree)
    if kind is not None:
        problems.append(
            Problem(
                path,
                expression,
                f"evaluates to {kind}, not a bool; a selector must evaluate to true or false for each device",
                "an expression that evaluates to true or false",
                SOURCE_CEL_DEVICE_SELECTOR,
            )
        )
    if len(problems) < 2:
        return problems
    return [
        Problem(
            path,
            expression,
            "; ".join(problem.message for problem in problems),
            "; ".join(dict.fromkeys(str(problem.valid) for problem in problems)),
            "; ".join(dict.fromkeys(str(problem.source) for problem in problems)),
        )
    ]


__all__ = [
    "DEVICE_FIELDS",
    "SOURCE_CEL_DEVICE_SELECTOR",
    "SOURCE_CEL_PARSER",
    "Published",
    "references",
    "selector_problems",
]
