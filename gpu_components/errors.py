"""The one error type for invalid input, and the problems it collects.

Every rule in the library reports a :class:`Problem` (where, what was given, why it is wrong, what would be
valid, and the document the rule comes from). Validators collect all problems of an input and raise them at
once as a :class:`GpuSpecError`, before any Pulumi resource is registered. It is Pulumi's own kind of input error,
:class:`pulumi.InputPropertiesError`, with one entry per problem (its property path and the reason), so the Pulumi
CLI reports it the way it reports a provider's input errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pulumi


@dataclass(frozen=True, slots=True)
class Default:
    """The :attr:`Problem.value` of a field the user did not set: the library's default ``value`` for it, shown as
    ``(default: single)`` rather than ``(got 'single')``, a value the user never wrote."""

    value: object


@dataclass(frozen=True, slots=True)
class Combined:
    """The :attr:`Problem.value` of a problem no single written value has: the ``fields`` (paths) whose values
    combine into it, shown as ``(combines pools[1].mps and pools[0].mig.strategy)``."""

    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """One invalid value.

    Attributes:
        path: where the value sits in the input, e.g. ``pools[1].mig.profile``.
        value: the value that was given, as the user wrote it (``None`` when a required value is missing); a
            :class:`Default` when the field was not set and its default breaks the rule, a :class:`Combined` when
            the problem is a combination of fields.
        message: why the value is wrong, in the field's standard terms.
        valid: the valid values or range, as text; ``None`` when there is no short list.
        source: the document the rule comes from (URL or doc title); ``None`` for plain syntax rules.
    """

    path: str
    value: object
    message: str
    valid: str | None = None
    source: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    @property
    def reason(self) -> str:
        """Everything but the path: the message, the value given, the valid values and the source."""
        if isinstance(self.value, Default):
            text = f"{self.message} (default: {self.value.value})"
        elif isinstance(self.value, Combined):
            text = f"{self.message} (combines {' and '.join(self.value.fields)})"
        elif isinstance(self.value, pulumi.Output):
            text = f"{self.message} (got a pulumi.Output, a value known only once deployed: this field must be plain)"
        elif isinstance(self.value, pulumi.Resource):
            kind = type(self.value).__name__
            text = f"{self.message} (got a {kind} resource: this field takes a plain description, not a resource)"
        else:
            text = f"{self.message} (got {self.value!r})"
        if self.valid is not None:
            text += f"; valid: {self.valid}"
        if self.source is not None:
            text += f" [source: {self.source}]"
        return text

    def under(self, prefix: str) -> Problem:
        """Return this problem with ``prefix`` put before its path (``pools[0]`` + ``name``)."""
        if not prefix:
            return self
        return Problem(
            _under(prefix, self.path), _value_under(prefix, self.value), self.message, self.valid, self.source
        )


def _under(prefix: str, path: str) -> str:
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def _value_under(prefix: str, value: object) -> object:
    """``value`` with a :class:`Combined`'s fields put under ``prefix`` as the problem's path is."""
    if isinstance(value, Combined):
        return Combined(tuple(_under(prefix, field) for field in value.fields))
    return value


class GpuSpecError(pulumi.InputPropertiesError, ValueError):
    """Invalid GPU input (pools, cluster args, stack config, workload requests): every problem found, raised at
    once before any resource is registered.

    A :class:`pulumi.InputPropertiesError` (and, as before, a ``ValueError``): ``errors`` holds one
    ``{"property_path", "reason"}`` per problem, in Pulumi's shape; ``message`` and ``str()`` list them all.

    Attributes:
        problems: the problems, in the order the validators found them.
    """

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        count = len(self.problems)
        lines = [f"{count} invalid GPU setting{'s' if count != 1 else ''}:"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        super().__init__(
            "\n".join(lines),
            [{"property_path": problem.path, "reason": problem.reason} for problem in self.problems],
        )

    def __reduce__(self) -> tuple[type[GpuSpecError], tuple[tuple[Problem, ...]]]:
        return type(self), (self.problems,)


def raise_if(problems: Iterable[Problem]) -> None:
    """Raise :class:`GpuSpecError` when ``problems`` is not empty."""
    collected = tuple(problems)
    if collected:
        raise GpuSpecError(collected)
