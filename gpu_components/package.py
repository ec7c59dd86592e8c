"""The components as the Pulumi package ``gpu-components``, for TypeScript, Go, C#, Java and YAML programs.

A consumer runs ``pulumi package add <this repository or a path to it>``: Pulumi reads ``PulumiPlugin.yaml`` at the
repository root, starts this plugin (the root ``__main__.py`` calls :func:`main`), asks it for its schema and
generates an SDK in the consumer's language. Each component the consumer creates is then constructed here, in this
Python host, through the provider's ``Construct`` (Pulumi's source-based plugin packages: "Build a component",
https://www.pulumi.com/docs/iac/guides/building-extending/components/build-a-component/).

The schema is inferred from the components' type hints by Pulumi's own analyzer
(``pulumi.provider.experimental.analyzer``): args ``TypedDict``\\ s, enums, per-attribute docstrings and the
components' class-level output annotations. ``schema.json`` at the repository root is that schema, committed
(``make schema`` rewrites it; a test fails when it drifts).

What a consumer sees differs from a Python caller's only in spelling: property names are camelCase
(``timeSlicing.failRequestsGreaterThanOne``), and every validation error names the property by that path. Values are
checked before the component runs where the Python SDK would otherwise coerce them silently: a whole number for an
integer property (numbers cross the wire as floats, and ``int()`` would round ``1.5``), a known value for an enum
property, and no property the schema does not declare. When values outside their enums are the only such problems,
the component gets them as the strings they are and reports them as it does for a Python caller (an unknown
provisioner names the cloud's provisioners only), beside every other problem of its input, as the stack config
does. A list of enum values (``capacityTypes``) reaches the
component as the enum's members: the SDK alone would map each item as an object.

Built on ``pulumi.provider.experimental.component.ComponentProvider`` (checked on pulumi 3.272.0, the locked
version): this module overrides its ``construct`` and ``map_input_properties``, reads its component and type
definitions (``_component_defs``, ``_type_defs``, an enum's ``python_type``) and ``get_type_definition``, and
unwraps the SDK's ``ComponentInitError`` (its ``inner`` exception); ``tests/test_package_construct.py`` fails if those
change.
"""

import difflib
import inspect
import json
import re
import sys
from collections.abc import Mapping
from enum import Enum
from importlib.metadata import version as distribution_version
from typing import Any

import pulumi
from pulumi.provider import ConstructResult
from pulumi.provider import main as serve
from pulumi.provider.experimental.analyzer import ComponentDefinition, PropertyDefinition, PropertyType
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError

from gpu_components.aws.eks import EksGpuNodeGroup
from gpu_components.aws.karpenter import KarpenterController
from gpu_components.aws.provisioned import EksAutoModeGpuNodePool, EksKarpenterGpuNodePool
from gpu_components.azure.aks import AksGpuNodePool
from gpu_components.azure.nap import AksNapGpuNodePool
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp.autopilot import GkeAutopilotGpuPool
from gpu_components.gcp.compute_class import GkeComputeClassGpuPool
from gpu_components.gcp.gke import GkeGpuNodePool
from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin
from gpu_components.kubernetes.dra_driver import NvidiaDraDriver
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperator
from gpu_components.shape import WHOLE_NUMBER, not_allowed, unknown_field

__all__ = ["COMPONENTS", "PACKAGE_NAME", "GpuComponentsProvider", "main", "package_schema", "package_version"]

PACKAGE_NAME = "gpu-components"
"""The Pulumi package name: resource tokens are ``gpu-components:index:<ClassName>``."""

COMPONENTS: tuple[type[pulumi.ComponentResource], ...] = (
    GpuCluster,
    EksGpuNodeGroup,
    EksKarpenterGpuNodePool,
    EksAutoModeGpuNodePool,
    KarpenterController,
    AksGpuNodePool,
    AksNapGpuNodePool,
    GkeGpuNodePool,
    GkeComputeClassGpuPool,
    GkeAutopilotGpuPool,
    NvidiaDevicePlugin,
    NvidiaGpuOperator,
    NvidiaDraDriver,
)
"""Every public component, in the order the schema lists them."""

_NOT_PLAIN = (
    "must be a plain value known before deployment, not a secret or another resource's output: the components "
    "validate it and render it into configs and labels before anything is created"
)

_ANY = "pulumi.json#/Any"
"""The schema's type of a value of any shape (the escape hatches' SDK args and Helm values)."""
_UNKNOWN_SHOWN = "[secret or unknown]"
"""How an error shows an output's value (a secret, or known only after deployment)."""

_WHOLE_OUTPUT = (
    "arrived as one output (a secret, or a value that depends on another resource, as a whole), whose fields the "
    "plugin cannot read: give its fields one by one"
)

_SEGMENT = re.compile(r"([^.\[]+)|\[(\d+)\]")


def package_version() -> str:
    """The version of the installed ``gpu-components`` distribution: the package's version in its schema."""
    return distribution_version(PACKAGE_NAME)


class GpuComponentsProvider(ComponentProvider):
    """Pulumi's component provider for :data:`COMPONENTS`, with the library's input checks and error paths.

    Raises (from :meth:`construct`):
        GpuSpecError: a :class:`pulumi.InputPropertiesError` with one entry per problem, its path in the consumer's
            camelCase (``pools[0].timeSlicing.replicas``): what the engine shows a TypeScript or YAML caller, as it
            shows a Python caller the same problems with snake_case paths. First, before the component runs, every
            raw-value problem of the whole input at once (a type that is not one of :data:`COMPONENTS`, an unknown
            or missing property, a value of the wrong shape, a fraction for an integer, a value outside an enum, a
            secret or output in a plain GPU setting); then the component's own problems. A value outside its enum
            alone is the component's to report, with its other problems.
    """

    def __init__(self) -> None:
        super().__init__(list(COMPONENTS), PACKAGE_NAME, version=package_version())
        # The analyzer copies docstrings as written, for Python readers: continuation lines keep the source's
        # indentation (a code block in the generated SDKs' Markdown docs), Sphinx roles and snake_case names.
        mappings = [m for c in self._component_defs.values() for m in (c.inputs_mapping, c.outputs_mapping)]
        mappings += [t.properties_mapping for t in self._type_defs.values()]
        renames = {python: schema for mapping in mappings for schema, python in mapping.items() if python != schema}
        self.schema = json.dumps(_for_consumers(json.loads(self.schema or "{}"), renames))

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: pulumi.Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        component = self._component_defs.get(resource_type.rsplit(":", maxsplit=1)[-1])
        if component is None or not resource_type.startswith(f"{PACKAGE_NAME}:"):
            tokens = [f"{PACKAGE_NAME}:index:{c.__name__}" for c in COMPONENTS]
            close = difflib.get_close_matches(resource_type, tokens, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise GpuSpecError(
                [Problem("type", resource_type, f"not a component of this package{hint}", ", ".join(tokens))]
            )
        outside: list[Problem] = []
        problems = self._raw_problems(inputs, component.inputs, "", outside)
        if any(problem not in outside for problem in problems):
            raise GpuSpecError(problems)
        # Only values outside an enum (or none): the component gets them as the strings they are, as a Python
        # caller's, and reports them with its own message (an unknown provisioner names the cloud's provisioners
        # only) beside every other problem of its input, as the stack config does.
        try:
            result = super().construct(name, resource_type, inputs, options)
        except ComponentInitError as error:
            if not isinstance(error.inner, GpuSpecError):
                raise
            raise GpuSpecError(self._consumer_problem(component, p) for p in error.inner.problems) from None
        if problems:  # a component that let a value outside its enum through: refused all the same
            raise GpuSpecError(problems)
        return result

    def map_input_properties(
        self,
        inputs: pulumi.Inputs,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> pulumi.Inputs:
        """Let Pulumi map one object's names to Python's (its raw values were checked before, in :meth:`construct`)."""
        # A value outside its enum (left to the component, see :meth:`construct`) reaches it as given: the SDK,
        # which would raise on it, maps a member of the enum in its place.
        outside: dict[str, object] = {}
        if isinstance(inputs, Mapping):
            for schema_name, prop in properties.items():
                enum_type = self._enum_type(prop)
                value = inputs.get(schema_name)
                if enum_type is not None and isinstance(value, str) and value not in _values(enum_type):
                    outside[schema_name] = value
            inputs = {**inputs, **{key: next(iter(self._enum_type(properties[key]) or ())).value for key in outside}}
        mapped = dict(super().map_input_properties(inputs, properties, mapping, component_name, property_path))
        for schema_name, python_name in mapping.items():
            if python_name not in mapped:
                continue
            prop = properties[schema_name]
            # The SDK maps a list or map of enum values item by item as an object (each ``"spot"`` becomes ``{}``):
            # such a property gets its raw values (checked before), as the enum's members.
            if isinstance(inputs, Mapping) and (members := self._enum_members(prop, inputs[schema_name])) is not None:
                mapped[python_name] = members
            if schema_name in outside:
                mapped[python_name] = outside[schema_name]
            # Numbers cross the wire as floats, and the SDK passes an integer property's float on as it came.
            mapped[python_name] = _as_integers(prop, mapped[python_name])
        return mapped

    def _enum_members(self, prop: PropertyDefinition, value: object) -> object | None:
        """``value`` (a list or map of enum values) with each value as its enum's member; ``None`` when ``prop`` is
        not a list or map of an enum of this package, or ``value`` is not that shape (an output, passed on)."""
        if prop.items is not None and isinstance(value, list):
            item_type = self._enum_type(prop.items)
            return None if item_type is None else [_member(item_type, item) for item in value]
        if prop.additional_properties is not None and isinstance(value, Mapping):
            item_type = self._enum_type(prop.additional_properties)
            return None if item_type is None else {key: _member(item_type, item) for key, item in value.items()}
        return None

    def _enum_type(self, prop: PropertyDefinition) -> type[Enum] | None:
        type_def = self.get_type_definition(prop) if prop.ref else None
        if type_def is None or not type_def.enum or not issubclass(type_def.python_type, Enum):
            return None
        return type_def.python_type

    def _raw_problems(
        self, inputs: object, properties: dict[str, PropertyDefinition], path: str, outside: list[Problem]
    ) -> list[Problem]:
        """Every raw-value problem of one object and of the objects, lists and maps inside it, at once; those of a
        value outside its enum are also added to ``outside``."""
        if not isinstance(inputs, Mapping):
            return []

        def where(key: str) -> str:
            return f"{path}.{key}" if path else key

        allowed = sorted(properties)
        problems = [
            Problem(where(key), value, unknown_field(key, allowed), ", ".join(allowed))
            for key, value in inputs.items()
            if key not in properties
        ]
        for key, prop in properties.items():
            value = inputs.get(key)
            if value is None and not prop.optional:
                problems.append(Problem(where(key), None, "required property is missing"))
            else:
                problems += self._value_problems(prop, value, where(key), outside)
        return problems

    def _value_problems(
        self, prop: PropertyDefinition, value: object, path: str, outside: list[Problem]
    ) -> list[Problem]:
        if value is None:
            return []  # an optional property left out (a missing required one is reported by its object)
        if isinstance(value, pulumi.Output):
            if not prop.plain or prop.ref == _ANY:
                # A wiring value from another resource, or a value in an escape hatch (SDK args, Helm values), which
                # is passed on as given: the component and the cloud check it when known.
                return []
            if prop.ref and (type_def := self.get_type_definition(prop)) is not None and not type_def.enum:
                return [Problem(path, _UNKNOWN_SHOWN, _WHOLE_OUTPUT)]
            return [Problem(path, _UNKNOWN_SHOWN, _NOT_PLAIN)]
        if prop.type == PropertyType.INTEGER and not _whole_number(value):
            return [Problem(path, value, "must be a whole number", WHOLE_NUMBER)]
        type_def = self.get_type_definition(prop) if prop.ref else None
        if type_def is not None and type_def.enum:
            values = [member.value for member in type_def.enum]
            if value in values:
                return []
            problem = Problem(path, value, not_allowed(value, [str(v) for v in values]), _one_of(values))
            outside.append(problem)
            return [problem]
        if type_def is not None:
            if not isinstance(value, Mapping):
                return [Problem(path, value, "must be an object", "{" + ", ".join(sorted(type_def.properties)) + "}")]
            return self._raw_problems(value, type_def.properties, path, outside)
        if prop.type == PropertyType.ARRAY and not isinstance(value, list):
            return [Problem(path, value, "must be a list")]
        if prop.items is not None and isinstance(value, list):
            return [
                problem
                for index, item in enumerate(value)
                for problem in (
                    [Problem(f"{path}[{index}]", None, "a list item must not be null")]
                    if item is None
                    else self._value_problems(prop.items, item, f"{path}[{index}]", outside)
                )
            ]
        if prop.additional_properties is not None:
            if not isinstance(value, Mapping):
                return [Problem(path, value, "must be an object (a map)")]
            return [
                problem
                for key, item in value.items()
                for problem in self._value_problems(prop.additional_properties, item, f"{path}[{key!r}]", outside)
            ]
        return []

    def _consumer_problem(self, component: ComponentDefinition, problem: Problem) -> Problem:
        """``problem`` with its path spelt as the consumer wrote it: each object property in the schema's camelCase,
        list indexes kept, and the keys of a map (labels, Helm values, tags) as given."""
        properties: dict[str, PropertyDefinition] | None = component.inputs
        reverse = {py: schema for schema, py in component.inputs_mapping.items()}
        current: PropertyDefinition | None = None
        parts: list[str] = []
        rest = problem.path
        while rest:
            match = _SEGMENT.match(rest)
            if match is None:
                break
            name, index = match.groups()
            if index is not None:
                parts.append(f"[{index}]")
                current = current.items if current is not None else None
            elif properties is None:
                break  # inside a map or a value of any shape: the rest is keys the caller wrote
            else:
                schema_name = reverse.get(name, name)
                parts.append(f".{schema_name}" if parts else schema_name)
                current = properties.get(schema_name)
            rest = rest[match.end() :].removeprefix(".")
            properties, reverse = self._object_of(current)
        if rest:
            parts.append(rest if rest.startswith("[") or not parts else f".{rest}")
        return Problem("".join(parts), _masked(problem.value), problem.message, problem.valid, problem.source)

    def _object_of(
        self, prop: PropertyDefinition | None
    ) -> tuple[dict[str, PropertyDefinition] | None, dict[str, str]]:
        """The properties (and Python name -> schema name) of the object type ``prop`` refers to; ``None`` for a
        map, a list (its items come next), ``Any`` or a plain value."""
        if prop is None or prop.ref is None:
            return None, {}
        type_def = self.get_type_definition(prop)
        if type_def is None or type_def.enum:
            return None, {}
        return type_def.properties, {py: schema for schema, py in type_def.properties_mapping.items()}


_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([\w]+)`")
"""A Sphinx cross-reference (``:class:`~gpu_components.cluster.ClusterPoolArgs```): its last name is what a reader of
the generated SDK can look up."""
_CODE = re.compile(r"``([^`]+)``")


def _for_consumers(node: Any, renames: Mapping[str, str]) -> Any:
    """``node`` (a schema or part of one) with every ``description`` written for the generated SDKs' readers:
    dedented (:func:`inspect.cleandoc`), Sphinx roles and reST literals as Markdown code, and a literal that names a
    property of the package in Python (``min_size``, ``time_slicing.trusted``) in the schema's camelCase."""
    if isinstance(node, dict):
        if node.get("additionalProperties", {}).get("$ref") == _ANY:
            renames = {}  # an escape hatch: its text names the provider SDK's own arguments, snake_case as they are
        return {
            key: _description(value, renames)
            if key == "description" and isinstance(value, str)
            else _for_consumers(value, renames)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_for_consumers(item, renames) for item in node]
    return node


def _description(text: str, renames: Mapping[str, str]) -> str:
    def code(match: re.Match[str]) -> str:
        literal = match.group(1)
        parts = literal.split(".")
        if all(part in renames or "_" not in part for part in parts):
            literal = ".".join(renames.get(part, part) for part in parts)
        return f"`{literal}`"

    return _CODE.sub(code, _ROLE.sub(lambda match: f"``{match.group(1)}``", inspect.cleandoc(text)))


def _as_integers(prop: PropertyDefinition, value: object) -> object:
    """``value`` with the whole floats of an integer property (or of an integer list's items or map's values, e.g. a
    MIG layout's counts) as ints (checked whole before), and an integer map's keys in order of name."""
    if prop.type == PropertyType.INTEGER and isinstance(value, float):
        return int(value)
    if prop.type == PropertyType.ARRAY and prop.items is not None and isinstance(value, list):
        return [_as_integers(prop.items, item) for item in value]
    if prop.additional_properties is not None and isinstance(value, dict):
        keys = list(value)
        if prop.additional_properties.type == PropertyType.INTEGER:
            # The wire (a protobuf Struct, a map) does not keep the order the program wrote a map's keys in: a MIG
            # layout gets its profiles in order of name, which is how they are usually written (1g before 2g), so
            # an error echoes the layout the same way on every run.
            keys.sort()
        return {key: _as_integers(prop.additional_properties, value[key]) for key in keys}
    return value


def _masked(value: object) -> object:
    """``value`` with each output in it (a secret, or a value known only after deployment) as ``[secret or
    unknown]``, so an error shows no object's address and no secret; and each whole-valued number as the integer
    the program wrote: the wire (a protobuf ``Struct``) carries every number as a double, so a TypeScript ``5`` or
    a YAML ``5`` arrives as ``5.0``, which the error would otherwise echo."""
    if isinstance(value, pulumi.Output):
        return _UNKNOWN_SHOWN
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, Mapping):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item) for item in value]
    return value


def _values(enum_type: type[Enum]) -> list[object]:
    return [member.value for member in enum_type]


def _member(enum_type: type[Enum], value: object) -> object:
    """``value`` as the member of ``enum_type`` it names, else as given (the component refuses it)."""
    return enum_type(value) if value in _values(enum_type) else value


def _whole_number(value: object) -> bool:
    return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))


def _one_of(values: list[Any]) -> str:
    """``'a', 'b' or 'c'``: how the Python path's shape checks list allowed values (pydantic's wording)."""
    quoted = [repr(value) for value in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def package_schema() -> dict[str, Any]:
    """The package schema Pulumi's analyzer infers for :data:`COMPONENTS` (what ``pulumi package add`` reads)."""
    schema = GpuComponentsProvider().schema
    assert schema is not None  # ComponentProvider always builds one
    loaded: dict[str, Any] = json.loads(schema)
    return loaded


def main(args: list[str] | None = None) -> None:
    """Run the plugin: serve :class:`GpuComponentsProvider` to the Pulumi engine (``args``: the plugin's command
    line, by default ``sys.argv[1:]``: the engine address and flags the language host passes)."""
    serve(GpuComponentsProvider(), sys.argv[1:] if args is None else args)


if __name__ == "__main__":
    json.dump(package_schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
