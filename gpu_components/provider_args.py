"""The node-pool components' escape hatch: the provider SDK's own node-pool arguments, checked, then merged under ours.

Each node-pool component takes one mapping of its provider resource's arguments, in the SDK's snake_case names, for
what the library has no field for (update strategy, kubelet settings, zones, ...): ``EksGpuNodeGroup``'s
``node_group_args`` (``pulumi_aws.eks.NodeGroup``), ``AksGpuNodePool``'s ``agent_pool_args``
(``pulumi_azure_native.containerservice.AgentPool``), ``GkeGpuNodePool``'s ``node_pool_args``
(``pulumi_gcp.container.NodePool``, its ``node_config`` merged key by key). The component schema types the mapping
plainly (a multi-language schema cannot name another package's args type), so its keys are checked here at run
time against the SDK's own args class (the parameters of its ``__init__``): a misspelt key is an error naming the
closest arguments, never an argument silently dropped. A key the library sets itself (taints, labels, scaling,
accelerators, MIG and sharing, disk size, instance type, capacity type, cluster wiring) is an error too: one way to
say a thing, and the pool spec stays the one description of the nodes. Values are passed through unchecked (they
may be Pulumi inputs); the SDK and the cloud check them.
"""

from __future__ import annotations

import collections.abc
import difflib
import functools
import inspect
import sys
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

import pulumi

from gpu_components.errors import GpuSpecError, Problem, raise_if
from gpu_components.shape import unknown_field

T = TypeVar("T")


@functools.cache
def sdk_argument_names(args_class: type) -> tuple[str, ...]:
    """The keyword arguments of a provider SDK args class (``pulumi_aws.eks.NodeGroupArgs``), sorted."""
    return tuple(sorted(inspect.signature(args_class).parameters))


@functools.cache
def _sdk_annotation(args_class: type, key: str) -> Any:
    return inspect.signature(args_class).parameters[key].annotation


_PLAIN: dict[type, str] = {str: "a string", bool: "true or false", int: "a whole number", float: "a number"}


def _value_matches(annotation: Any, value: object, module: str) -> bool:
    """Whether ``value`` fits the SDK's annotation of an argument (``pulumi.Input[...]``: a plain value of the type,
    or an Output; nested ``...Args`` classes as the class or a mapping, whose keys the SDK checks)."""
    if isinstance(value, pulumi.Output | Awaitable):
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        return any(_value_matches(arm, value, module) for arm in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if origin is collections.abc.Awaitable:
        return False  # only an awaitable fits, and awaitables were accepted above
    if annotation in (str, bool):
        return isinstance(value, annotation)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if origin in (Mapping, dict, collections.abc.Mapping):
        item = typing.get_args(annotation)[1] if typing.get_args(annotation) else Any
        return isinstance(value, Mapping) and all(_value_matches(item, v, module) for v in value.values())
    if origin in (Sequence, list, collections.abc.Sequence):
        item = typing.get_args(annotation)[0] if typing.get_args(annotation) else Any
        return isinstance(value, list | tuple) and all(_value_matches(item, v, module) for v in value)
    if isinstance(annotation, typing.ForwardRef):
        if annotation.__forward_arg__.startswith("Output["):
            return False  # only an Output fits, and Outputs were accepted above
        cls = getattr(sys.modules.get(module), annotation.__forward_arg__, None)
        return not isinstance(cls, type) or isinstance(value, cls | Mapping)  # unresolved: the SDK checks it
    return True  # Any, and annotations this check does not model: the SDK checks them


def _expected(annotation: Any) -> str:
    """How to say what an annotation takes, for an error message."""
    arms = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Union else (annotation,)
    plain = [arm for arm in arms if arm is not type(None) and typing.get_origin(arm) is not collections.abc.Awaitable]
    plain = [arm for arm in plain if not (isinstance(arm, typing.ForwardRef) and arm.__forward_arg__ == "Output[T]")]
    if not plain:
        return "a Pulumi Output"
    first = plain[0]
    origin = typing.get_origin(first)
    if first in _PLAIN:
        return f"{_PLAIN[first]} (or a Pulumi Output)"
    if origin in (Mapping, dict, collections.abc.Mapping):
        return "a mapping (or a Pulumi Output)"
    if origin in (Sequence, list, collections.abc.Sequence):
        return "a list (or a Pulumi Output)"
    if isinstance(first, typing.ForwardRef):
        return f"a mapping of {first.__forward_arg__} fields (or a Pulumi Output)"
    return "a value of the SDK's type"


@dataclass(frozen=True)
class ProviderArgs:
    """One node-pool component's escape hatch.

    Attributes:
        resource: the SDK resource the arguments are for, as users import it (``pulumi_aws.eks.NodeGroup``).
        args_class: the SDK's args class, whose ``__init__`` parameters are the valid keys.
        owned: keys the library sets itself, refused in the mapping.
        nested: keys whose value is an object merged key by key (GKE ``node_config``) -> its own escape hatch.
    """

    resource: str
    args_class: type
    owned: frozenset[str]
    nested: Mapping[str, ProviderArgs] = field(default_factory=lambda: MappingProxyType({}))

    def owned_paths(self) -> list[str]:
        """Every owned key, nested ones as ``<key>.<nested key>``, sorted."""
        paths = list(self.owned)
        for key, inner in self.nested.items():
            paths += [f"{key}.{path}" for path in inner.owned_paths()]
        return sorted(paths)

    def problems(self, given: object, path: str) -> list[Problem]:
        """Problems with the escape-hatch mapping ``given`` found at ``path`` (``node_group_args``): a key that is
        not an argument of :attr:`args_class` (with the closest ones), a key the library owns (with every owned
        key), a nested object that is not a mapping. Anything but a mapping (``None``: none given) has none here:
        the args' shape check reports it."""
        if not isinstance(given, Mapping):
            return []
        names = sdk_argument_names(self.args_class)
        problems: list[Problem] = []
        for key, value in given.items():
            where = f"{path}.{key}"
            if key not in names:
                close = difflib.get_close_matches(str(key), names, n=3)
                allowed = [name for name in names if name not in self.owned]
                message = f"{unknown_field(str(key), names)} (not an argument of {self.resource})"
                problems.append(Problem(where, value, message, ", ".join(close or allowed)))
            elif key in self.owned:
                problems.append(
                    Problem(
                        where,
                        value,
                        f"set by gpu_components from the pool and the component's own args; the escape hatch adds "
                        f"{self.resource} arguments, it does not override the library's",
                        f"any other argument; owned: {', '.join(self.owned_paths())}",
                    )
                )
            elif not _value_matches(_sdk_annotation(self.args_class, key), value, self.args_class.__module__):
                expected = _expected(_sdk_annotation(self.args_class, key))
                problems.append(Problem(where, value, f"must be {expected}, as {self.resource} takes it"))
            elif key in self.nested:
                problems += (
                    self.nested[key].problems(value, where)
                    if isinstance(value, Mapping)
                    else [
                        Problem(
                            where, value, f"a mapping of {self.nested[key].resource} argument names, merged into ours"
                        )
                    ]
                )
        return problems

    def merged(self, ours: Mapping[str, Any], given: Mapping[str, Any] | None) -> dict[str, Any]:
        """``given`` (already checked by :meth:`problems`) with ``ours`` over it; nested objects merged key by key."""
        result = {**(given or {}), **ours}
        for key, inner in self.nested.items():
            if given is not None and key in given and key in ours:
                result[key] = inner.merged(ours[key], given[key])
        return result


def collected(validate: Callable[[], T], problems: Sequence[Problem]) -> T:
    """Run ``validate`` (which raises :class:`~gpu_components.errors.GpuSpecError` for invalid input) and raise its
    problems and ``problems`` together, so neither set hides the other; return what ``validate`` returned."""
    try:
        result = validate()
    except GpuSpecError as error:
        raise GpuSpecError([*error.problems, *problems]) from None
    raise_if(problems)
    return result
