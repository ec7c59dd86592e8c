"""Plan a Pulumi YAML program offline: its resources registered as Pulumi YAML registers them, under the plan's mocks.

A project with ``runtime: yaml`` keeps its program in ``Pulumi.yaml`` itself: ``config:`` (the project's config
declarations), ``variables:``, ``resources:`` and ``outputs:`` (Pulumi YAML reference,
https://www.pulumi.com/docs/iac/languages-sdks/yaml/yaml-language-reference/). :func:`read_yaml_program` reads and
checks the whole program before anything runs; :func:`yaml_program_body` is the program ``run_program`` runs:

- **Config.** Each key declared under ``config:`` without a namespace (or in the project's) is read as
  ``${key}``: the stack file's value of ``<project>:<key>`` (the Pulumi CLI's config of a YAML project), else the
  declaration's ``value`` or ``default``. A declared ``type`` (``string``, ``integer``, ``boolean``, ``array`` with
  ``items``, ``object``: Pulumi's project schema, ``project.json``) is checked; a ``{secure: ...}`` value (which
  cannot be decrypted offline: the plan's ``[secret]``) or ``secret: true`` makes the value a secret. Keys in the
  project's namespace the stack file sets without a declaration are read too, as given.
- **Resources** are registered in dependency order (what each one's properties and options refer to), as Pulumi
  YAML sorts them. A ``gpu-components:index:<Component>`` is constructed as the engine constructs a component of a
  plugin package for a YAML or TypeScript program (its ``Construct`` call, ``pulumi/provider/server.py``
  ``ProviderServicer``): the inputs, evaluated, are serialized to the protobuf ``Struct`` the engine forwards,
  each secret value and each value from another resource an output value where it sits, however deep (Pulumi
  YAML's Go SDK registers a remote component with output values; the plan's mock monitor does not offer them, so
  ``_pulumi_internals.serialize_with_output_values`` adds the feature for this serialization alone), and the SDK's
  own ``_construct_inputs`` (``deserialize_properties(..., keep_unknowns=True)``: numbers arrive as floats) and
  ``_construct_options`` turn that request into the inputs and ``ResourceOptions`` that
  :meth:`~gpu_components.package.GpuComponentsProvider.construct` receives in the plugin: an object reaches it as
  a dict whose secret or dependent fields are outputs. An input error that escapes the provider's own checks (the
  SDK's ``Missing required input``, e.g. for an ``aws`` object that is a secret as a whole) is raised as a
  :class:`~gpu_components.errors.GpuSpecError` at its path. The component's state is what the provider server
  returns to the engine (``_construct_response``: ``rpc.serialize_properties``, so a mapping such as a ``Taint`` is
  an object and a null output is left out), deserialized as the engine's outputs are. Any other type is registered
  as it is given: ``pulumi:providers:<package>`` as a ``pulumi.ProviderResource`` of that package, else a
  ``pulumi.CustomResource``, its properties as its inputs.
- **The package.** When the program declares a ``gpu-components:*`` resource, ``packages:`` must be a mapping
  (Pulumi's project schema, ``project.json``) with a ``gpu-components`` entry, a source string or ``{source,
  version, ...}``; a local path source (relative to the project directory) must be a directory holding
  ``PulumiPlugin.yaml``, a git or URL source is taken as given (it is not fetched). Every ``gpu-components:*`` type
  must be one of the package's components (the resources of ``gpu_components.package.package_schema()``); the
  error lists them, the closest first.
- **Options** (``options:``): ``provider``, ``providers`` (a list of provider resources), ``dependsOn``,
  ``parent``, ``protect``, ``aliases`` (URNs), ``ignoreChanges``, ``replaceOnChanges``, ``retainOnDelete``,
  ``deleteBeforeReplace``, ``additionalSecretOutputs``, ``customTimeouts`` (``create``, ``update``, ``delete``),
  ``deletedWith``, ``version``, ``pluginDownloadURL``. A component's ``provider`` joins its ``providers`` under the
  provider's package, as the Go SDK that Pulumi YAML runs on sends a remote component's providers.
- **Interpolation**: a string ``${name}``, ``${name.property}``, ``${name[0]}``, ``${name["key"]}`` and chains of
  them, where ``name`` is a config key, a variable, a resource (``${res}`` is the resource itself, e.g. for
  ``providers``; ``${res.id}``, ``${res.urn}``, and for a component a property of the state its ``Construct``
  returned, null for an output its schema declares and the state leaves out) or ``pulumi`` (``stack``,
  ``project``, ``organization``, ``cwd``, ``rootDirectory``). A string that is one ``${...}`` is that value; text
  around it makes a string. ``$${`` is a literal ``${``.
- **Outputs** (``outputs:``) are the stack outputs.

What this offline reader does not support is an error before anything is registered, naming ``Pulumi.yaml``, the
resource (or variable or output) and the property: a function (``fn::invoke``, ``fn::secret``, any ``fn::*``), a
name that is not declared, a cycle, ``get:`` and ``defaultProvider:`` on a resource, the options above not listed
(``import``, ``hideDiffs``, ``replaceWith``, ``replacementTrigger``, ``envVarMappings``), a ``main:`` (a program in
another file), unknown top-level keys (other than Pulumi's project keys and the four program sections) and unknown
keys of a resource, its options or ``customTimeouts``. A property of a resource other than a component's state,
``id`` and ``urn`` cannot be read offline (the provider's schema would say what it has) and is an error too.

Pulumi YAML and Pulumi's engine were read for the facts above, not run: pulumi-yaml ``pkg/pulumiyaml/ast/template.go``
(the keys of a program, a resource and its options) and ``pkg/pulumiyaml/run.go`` (options: ``providers`` and
``dependsOn`` are lists of resources, ``protect`` a boolean, a provider resource type starts ``pulumi:providers:``).
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import graphlib
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pulumi
from pulumi.resource import DependencyResource

from gpu_components.plan._pulumi_internals import (
    WIRE_UNKNOWN,
    alias_pb2,
    construct_inputs,
    construct_options,
    construct_response,
    provider_pb2,
    serialize_with_output_values,
)
from gpu_components.plan.mock_kit import PROVIDER_TYPE_PREFIX
from gpu_components.plan.mocks import SECRET
from gpu_components.plan.runner import StackFileError, _read_mapping, _shown

__all__ = [
    "COMPONENT_PACKAGE",
    "PROJECT_KEYS",
    "YAML_RUNTIME",
    "YamlProgram",
    "YamlProgramError",
    "read_yaml_program",
    "yaml_program_body",
]

YAML_RUNTIME = "yaml"
"""The ``runtime`` of a Pulumi YAML project."""

COMPONENT_PACKAGE = "gpu-components"
"""The package whose resources are constructed through :class:`~gpu_components.package.GpuComponentsProvider`
(``gpu_components.package.PACKAGE_NAME``; spelt here so reading a program imports no component)."""

PROJECT_KEYS = (
    "name",
    "description",
    "author",
    "website",
    "license",
    "runtime",
    "main",
    "config",
    "stackConfigDir",
    "backend",
    "options",
    "template",
    "packages",
    "plugins",
)
"""The top-level keys of Pulumi's project schema (``project.json``, ``properties``)."""

PROGRAM_KEYS = ("variables", "resources", "outputs")
"""The top-level program sections of Pulumi YAML beside the project's ``config:``."""

RESOURCE_KEYS = ("type", "name", "properties", "options")
"""The keys of a resource this reader plans."""

OPTION_KEYS = (
    "additionalSecretOutputs",
    "aliases",
    "customTimeouts",
    "deleteBeforeReplace",
    "deletedWith",
    "dependsOn",
    "ignoreChanges",
    "parent",
    "pluginDownloadURL",
    "protect",
    "provider",
    "providers",
    "replaceOnChanges",
    "retainOnDelete",
    "version",
)
"""The resource options this reader plans."""

_UNSUPPORTED = {
    "get": "reading an existing resource (get:)",
    "defaultProvider": "defaultProvider:",
    "import": "importing an existing resource (import:)",
    "hideDiffs": "hideDiffs:",
    "replaceWith": "replaceWith:",
    "replacementTrigger": "replacementTrigger:",
    "envVarMappings": "envVarMappings:",
    "configuration": "the legacy configuration: section (declare config under config:)",
}
"""Keys Pulumi YAML has and this reader does not plan: each is an error saying so."""

_CONFIG_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict}
"""A project config declaration's ``type`` -> the Python type of its value (``project.json``, ``simpleConfigType``)."""

_PULUMI = "pulumi"
"""The built-in variable: ``${pulumi.stack}``, ``${pulumi.project}``, ..."""

_PULUMI_KEYS = ("stack", "project", "organization", "cwd", "rootDirectory")

_ROOT = re.compile(r"[^.\[\]}]+")
_PROPERTY = re.compile(r"\.([^.\[\]}]+)")
_INDEX = re.compile(r'\[(?:(\d+)|"([^"]*)")\]')


class YamlProgramError(StackFileError):
    """A Pulumi YAML program this offline reader cannot plan, or that Pulumi YAML would refuse.

    Attributes:
        path: the project file, ``Pulumi.yaml``.
        where: the place in it, e.g. ``resources.gpus.properties.pools[0]`` or ``variables.subnets``.
        problem: ``<where>: <what is wrong>``; the message is ``<path>: <where>: <what is wrong>``.
    """

    def __init__(self, path: Path, where: str, problem: str) -> None:
        self.where = where
        super().__init__(path, f"{where}: {problem}" if where else problem)


# ------------------------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class _Reference:
    """``${root.a[0]["b"]}``: a root name and the accessors after it (a property name, or a list index)."""

    root: str
    accessors: tuple[str | int, ...]
    text: str


@dataclass(frozen=True)
class _Interpolation:
    """A string with ``${...}``: its literal text and references, in order."""

    parts: tuple[str | _Reference, ...]


def _parse_string(text: str, fail: Callable[[str], Exception]) -> str | _Interpolation:
    """``text`` as Pulumi YAML reads a string: plain text, or text with ``${...}`` references (``$${`` is ``${``)."""
    if "${" not in text:
        return text
    parts: list[str | _Reference] = []
    literal = ""
    index = 0
    while index < len(text):
        if text.startswith("$${", index):
            literal += "${"
            index += 3
            continue
        if not text.startswith("${", index):
            literal += text[index]
            index += 1
            continue
        end = text.find("}", index)
        if end < 0:
            raise fail(f"{text!r}: an interpolation ${{...}} is not closed")
        if literal:
            parts.append(literal)
            literal = ""
        parts.append(_parse_reference(text[index + 2 : end], fail))
        index = end + 1
    if literal:
        parts.append(literal)
    return parts[0] if len(parts) == 1 and isinstance(parts[0], str) else _Interpolation(tuple(parts))


def _parse_reference(text: str, fail: Callable[[str], Exception]) -> _Reference:
    root = _ROOT.match(text)
    if root is None:
        raise fail(
            f"${{{text}}} is not a reference (a config key, variable or resource name, then .property or [index])"
        )
    accessors: list[str | int] = []
    position = root.end()
    while position < len(text):
        prop = _PROPERTY.match(text, position)
        index = _INDEX.match(text, position)
        if prop is not None:
            accessors.append(prop.group(1))
            position = prop.end()
        elif index is not None:
            accessors.append(int(index.group(1)) if index.group(1) is not None else index.group(2))
            position = index.end()
        else:
            raise fail(f'${{{text}}}: cannot read {text[position:]!r} (a property is .name, an index [0] or ["key"])')
    return _Reference(root.group(0), tuple(accessors), text)


def _expression(value: Any, where: str, fail: Callable[[str, str], Exception]) -> Any:
    """A YAML value with its strings parsed (``_Interpolation`` where they hold ``${...}``); a function
    (``fn::*``) is an error naming ``where``."""
    if isinstance(value, dict):
        for key in value:
            if isinstance(key, str) and key.lower().startswith("fn::"):
                raise fail(
                    where,
                    f"{key} is not supported by the offline plan of a YAML program (it runs no functions or invokes; "
                    "give the value itself, or from config)",
                )
        return {key: _expression(item, _joined(where, str(key)), fail) for key, item in value.items()}
    if isinstance(value, list):
        return [_expression(item, f"{where}[{index}]", fail) for index, item in enumerate(value)]
    if isinstance(value, str):
        return _parse_string(value, lambda problem: fail(where, problem))
    return value


def _joined(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# ---------------------------------------------------------------------------------------------- program


@dataclass(frozen=True)
class _Resource:
    """One entry of ``resources:``, its values parsed."""

    key: str
    type: str
    name: str
    properties: Mapping[str, Any]
    options: Mapping[str, Any]


@dataclass(frozen=True)
class YamlProgram:
    """A Pulumi YAML program read from ``Pulumi.yaml``, checked, its expressions parsed.

    Attributes:
        file: the project file.
        project: the project name (``name:``): the config namespace of the program's keys, and the URNs' project.
        config: config key -> its declaration (a mapping with ``type``, ``items``, ``default``, ``value``,
            ``secret``, ``description``), for every key of ``config:`` in the project's namespace (``key`` or
            ``<project>:key``); a plain value there is a declaration with that ``default``.
        variables: variable name -> its parsed expression, in the file's order.
        resources: resource key -> the resource, in the file's order.
        outputs: stack output name -> its parsed expression.
        order: the variables and resources in the order they are evaluated: each after what it refers to.
    """

    file: Path
    project: str
    config: Mapping[str, Mapping[str, Any]]
    variables: Mapping[str, Any]
    resources: Mapping[str, _Resource]
    outputs: Mapping[str, Any]
    order: tuple[str, ...] = field(default=())


def read_yaml_program(file: Path, project: str) -> YamlProgram:
    """Read the Pulumi YAML program in ``file`` (the project's ``Pulumi.yaml``) and check all of it.

    Raises:
        StackFileError: the file is not valid YAML or not a mapping (``runner``'s reader).
        YamlProgramError: a key, function, option or reference this reader does not plan, a name that is not
            declared, a resource without a ``type``, a value of the wrong shape, a cycle, a ``gpu-components``
            type that is not one of the package's components, or (with any such resource) a ``packages:`` without a
            usable ``gpu-components`` entry (see the module's doc).
    """
    document = _read_mapping(file)

    def fail(where: str, problem: str) -> YamlProgramError:
        return YamlProgramError(file, where, problem)

    for key in document:
        if key in _UNSUPPORTED:
            raise fail(str(key), f"{_UNSUPPORTED[key]} is not supported by the offline plan of a YAML program")
        if key not in PROJECT_KEYS and key not in PROGRAM_KEYS:
            raise fail(
                str(key),
                f"unknown top-level key; valid: {', '.join(PROJECT_KEYS + PROGRAM_KEYS)} (Pulumi's project schema and "
                "the Pulumi YAML program sections)",
            )
    if document.get("main") not in (None, ""):
        raise fail(
            "main",
            "the offline plan reads a YAML program from Pulumi.yaml itself; a program in another file (main:) "
            "is not supported",
        )
    config = _config_declarations(document.get("config"), project, fail)
    variables = {
        name: _expression(value, f"variables.{name}", fail)
        for name, value in _section(document, "variables", fail).items()
    }
    resources = {key: _resource(key, value, fail) for key, value in _section(document, "resources", fail).items()}
    components = [resource for resource in resources.values() if _package_of(resource.type) == COMPONENT_PACKAGE]
    if components:
        _check_packages(document.get("packages"), file.parent, fail)
        _check_component_types(components, fail)
    outputs = {
        name: _expression(value, f"outputs.{name}", fail) for name, value in _section(document, "outputs", fail).items()
    }
    clashes = sorted(
        (set(config) & set(variables)) | (set(config) & set(resources)) | (set(variables) & set(resources))
    )
    if clashes:
        raise fail(clashes[0], "the name is declared twice (config, variables and resources share one namespace)")
    known = {*config, *variables, *resources, _PULUMI}
    graph: dict[str, set[str]] = {}
    for name, expression in variables.items():
        graph[name] = _checked_references(expression, f"variables.{name}", known, config, fail)
    for key, resource in resources.items():
        where = f"resources.{key}"
        graph[key] = _checked_references(resource.properties, f"{where}.properties", known, config, fail)
        graph[key] |= _checked_references(resource.options, f"{where}.options", known, config, fail)
    for name, expression in outputs.items():
        _checked_references(expression, f"outputs.{name}", known, config, fail)
    try:
        order = tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        cycle = list(error.args[1])
        raise fail(cycle[0], f"refers to itself through {' -> '.join(cycle)}") from None
    return YamlProgram(file, project, config, variables, resources, outputs, order)


def _section(document: Mapping[str, Any], key: str, fail: Callable[[str, str], Exception]) -> dict[str, Any]:
    block = document.get(key)
    if block is None:
        return {}
    if not isinstance(block, dict) or not all(isinstance(name, str) for name in block):
        raise fail(key, f"must be a mapping of names (got {_shown(block)})")
    return block


def _config_declarations(
    block: Any, project: str, fail: Callable[[str, str], Exception]
) -> dict[str, Mapping[str, Any]]:
    """The declarations of the project's own config keys (``key`` or ``<project>:key``; other namespaces configure
    providers, and ``runner.load_stack`` reads them)."""
    if not isinstance(block, dict):
        return {}
    declarations: dict[str, Mapping[str, Any]] = {}
    for key, declared in block.items():
        namespace, _, name = key.rpartition(":")
        if namespace not in ("", project):
            continue
        declaration = declared if isinstance(declared, dict) else {"default": declared}
        declared_type = declaration.get("type")
        if declared_type is not None and declared_type not in _CONFIG_TYPES:
            raise fail(
                f"config.{key}.type", f"unknown config type {declared_type!r}; valid: {', '.join(_CONFIG_TYPES)}"
            )
        declarations[name] = declaration
    return declarations


def _package_of(type_: str) -> str:
    return type_.split(":", maxsplit=1)[0]


def _check_packages(packages: Any, directory: Path, fail: Callable[[str, str], Exception]) -> None:
    """``packages:`` declares ``gpu-components`` as ``pulumi up`` needs it to run the program's components.

    Pulumi's project schema (``project.json``, ``packages``): a mapping of package name -> a source string
    (optionally ``<source>@<version>``) or ``{source, version, parameters, ...}``. A source with a URL scheme
    (``https://``, ``git://``, ``github://``), ``git@`` or a host first (``github.com/<org>/<repo>``) is taken as
    given (it cannot be fetched offline); any other is a local path, relative to the project directory, that must
    be a directory holding ``PulumiPlugin.yaml`` (the package's plugin: ``pulumi package add`` reads it there).
    """
    how = (
        f"pulumi up needs the {COMPONENT_PACKAGE} package declared there (pulumi package add <path or git URL> "
        f"writes packages: {{{COMPONENT_PACKAGE}: <source>}})"
    )
    if packages is None:
        raise fail("packages", f"is missing, and the program declares {COMPONENT_PACKAGE} resources: {how}")
    if not isinstance(packages, dict):
        raise fail("packages", f"must be a mapping of package name -> source (got {_shown(packages)}): {how}")
    if COMPONENT_PACKAGE not in packages:
        close = difflib.get_close_matches(COMPONENT_PACKAGE, [str(name) for name in packages], n=1)
        hint = f" ({close[0]!r} is close: a misspelling?)" if close else ""
        raise fail(
            "packages",
            f"has no {COMPONENT_PACKAGE} entry{hint}; it declares {', '.join(map(str, packages)) or 'none'}: {how}",
        )
    where = f"packages.{COMPONENT_PACKAGE}"
    spec = packages[COMPONENT_PACKAGE]
    if isinstance(spec, dict):
        where += ".source"
        spec = spec.get("source")
    if not isinstance(spec, str) or not spec:
        raise fail(
            where,
            "must be the package's source, a string (a local path or a git URL, optionally @<version>), or a mapping "
            f"with source (and version): Pulumi's project schema (got {_shown(spec)})",
        )
    if _is_remote_source(spec):
        return
    local = directory / spec
    if not local.is_dir():
        raise fail(where, f"{spec}: the local package source {local.resolve()} is not a directory")
    if not (local / "PulumiPlugin.yaml").is_file():
        raise fail(
            where,
            f"{spec}: {local.resolve()} has no PulumiPlugin.yaml, so it is not the {COMPONENT_PACKAGE} package "
            "(give the path of the repository's root)",
        )


def _is_remote_source(source: str) -> bool:
    """A git or URL package source: a URL scheme, ``git@``, or a host name (with a dot) before the first ``/``."""
    if "://" in source or source.startswith("git@"):
        return True
    first = source.split("/", maxsplit=1)[0]
    return "/" in source and "." in first and not first.startswith(".")


def _check_component_types(components: Sequence[_Resource], fail: Callable[[str, str], Exception]) -> None:
    """Every ``gpu-components:*`` type is one of the package's components (the resources of its schema)."""
    tokens = list(_component_schemas())
    for resource in components:
        if resource.type in tokens:
            continue
        close = difflib.get_close_matches(resource.type, tokens, n=1, cutoff=0.8)
        ordered = close + [token for token in tokens if token not in close]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise fail(
            f"resources.{resource.key}.type",
            f"{resource.type!r} is not a component of the {COMPONENT_PACKAGE} package{hint}; valid: "
            f"{', '.join(ordered)}",
        )


@functools.cache
def _component_schemas() -> Mapping[str, Mapping[str, Any]]:
    """Component token -> its resource schema (``properties``: its outputs), from the package schema Pulumi's
    analyzer infers (``gpu_components.package.package_schema``, what ``pulumi package add`` reads)."""
    from gpu_components.package import package_schema  # on use: it imports every cloud's components and SDK

    resources: dict[str, Mapping[str, Any]] = package_schema()["resources"]
    return resources


def _resource(key: str, value: Any, fail: Callable[[str, str], Exception]) -> _Resource:
    where = f"resources.{key}"
    if not isinstance(value, dict):
        raise fail(where, f"must be a mapping with type, properties and options (got {_shown(value)})")
    for item in value:
        if item in _UNSUPPORTED:
            raise fail(
                f"{where}.{item}", f"{_UNSUPPORTED[item]} is not supported by the offline plan of a YAML program"
            )
        if item not in RESOURCE_KEYS:
            raise fail(f"{where}.{item}", f"unknown resource key; valid: {', '.join(RESOURCE_KEYS)}")
    type_ = value.get("type")
    if not isinstance(type_, str) or type_.count(":") != 2:
        raise fail(f"{where}.type", f"must be a resource type token such as aws:s3:Bucket (got {_shown(type_)})")
    name = value.get("name", key)
    if not isinstance(name, str) or not name:
        raise fail(f"{where}.name", f"must be the resource's name, a non-empty string (got {_shown(name)})")
    properties = value.get("properties") or {}
    if not isinstance(properties, dict):
        raise fail(f"{where}.properties", f"must be a mapping of property names (got {_shown(properties)})")
    options = value.get("options") or {}
    if not isinstance(options, dict):
        raise fail(f"{where}.options", f"must be a mapping of resource options (got {_shown(options)})")
    for option in options:
        if option in _UNSUPPORTED:
            raise fail(
                f"{where}.options.{option}",
                f"{_UNSUPPORTED[option]} is not supported by the offline plan of a YAML program",
            )
        if option not in OPTION_KEYS:
            raise fail(f"{where}.options.{option}", f"unknown resource option; valid: {', '.join(OPTION_KEYS)}")
    timeouts = options.get("customTimeouts")
    if timeouts is not None and (not isinstance(timeouts, dict) or set(timeouts) - {"create", "update", "delete"}):
        raise fail(
            f"{where}.options.customTimeouts", f"must be a mapping of create, update, delete (got {_shown(timeouts)})"
        )
    return _Resource(
        key,
        type_,
        name,
        _expression(properties, f"{where}.properties", fail),
        _expression(options, f"{where}.options", fail),
    )


def _checked_references(
    expression: Any,
    where: str,
    known: set[str],
    config: Mapping[str, Any],
    fail: Callable[[str, str], Exception],
) -> set[str]:
    """The variables and resources ``expression`` refers to; an undeclared name is an error."""
    names: set[str] = set()
    for reference, text in _references_with_place(expression, where):
        if reference.root not in known:
            raise fail(
                text,
                f"${{{reference.text}}}: {reference.root!r} is not a config key, variable or resource of this program",
            )
        if reference.root == _PULUMI and (not reference.accessors or reference.accessors[0] not in _PULUMI_KEYS):
            raise fail(text, f"${{{reference.text}}}: valid: {', '.join(f'pulumi.{key}' for key in _PULUMI_KEYS)}")
        if reference.root not in config and reference.root != _PULUMI:
            names.add(reference.root)
    return names


def _references_with_place(expression: Any, where: str) -> Iterator[tuple[_Reference, str]]:
    if isinstance(expression, _Interpolation):
        for part in expression.parts:
            if isinstance(part, _Reference):
                yield part, where
    elif isinstance(expression, dict):
        for key, item in expression.items():
            yield from _references_with_place(item, _joined(where, str(key)))
    elif isinstance(expression, list):
        for index, item in enumerate(expression):
            yield from _references_with_place(item, f"{where}[{index}]")


# -------------------------------------------------------------------------------------------- evaluation


@dataclass
class _Registered:
    """A registered resource, as the program refers to it: the resource object (for a component, one standing for
    the URN its ``Construct`` returned) and, for a component, its state (camelCase property -> value)."""

    type: str
    resource: pulumi.Resource
    state: Mapping[str, Any] | None = None


def yaml_program_body(
    program: YamlProgram, stack_config: Mapping[str, Any], *, stack: str, directory: Path
) -> Callable[[], Awaitable[None]]:
    """The Pulumi program of ``program``, for ``runner.run_program``: a coroutine function that registers every
    resource in order, then exports the outputs.

    Args:
        program: the program (:func:`read_yaml_program`).
        stack_config: the stack's config (``runner.load_stack``: full keys to YAML values, ``{"secure": ...}``
            for secrets).
        stack: the stack name (``${pulumi.stack}``).
        directory: the project directory (``${pulumi.cwd}``, ``${pulumi.rootDirectory}``).

    Raises (when run):
        YamlProgramError: a missing or mistyped config value, a value of the wrong shape for an option, a property
            read that does not exist, a reference to a resource property the reader cannot know.
        GpuSpecError: a component's input errors, each with its camelCase property path
            (:class:`~gpu_components.package.GpuComponentsProvider`), as ``pulumi up`` reports them.
    """

    async def body() -> None:
        evaluator = _Evaluator(program, stack_config, stack, directory)
        await evaluator.run()

    return body


class _Evaluator:
    def __init__(self, program: YamlProgram, stack_config: Mapping[str, Any], stack: str, directory: Path) -> None:
        self.program = program
        self.scope: dict[str, Any] = {
            _PULUMI: {
                "stack": stack,
                "project": program.project,
                "organization": pulumi.get_organization(),
                "cwd": str(directory.resolve()),
                "rootDirectory": str(directory.resolve()),
            }
        }
        for key, declaration in program.config.items():
            self.scope[key] = self._config_value(key, declaration, stack_config)
        prefix = f"{program.project}:"
        for full_key, value in stack_config.items():
            key = full_key.removeprefix(prefix)
            if full_key.startswith(prefix) and key not in self.scope:
                self.scope[key] = _secret(value)
        self._provider: Any = None

    def fail(self, where: str, problem: str) -> YamlProgramError:
        return YamlProgramError(self.program.file, where, problem)

    def _config_value(self, key: str, declaration: Mapping[str, Any], stack_config: Mapping[str, Any]) -> Any:
        full_key = f"{self.program.project}:{key}"
        if full_key in stack_config:
            value = stack_config[full_key]
        elif "value" in declaration or "default" in declaration:
            value = declaration.get("value", declaration.get("default"))
        else:
            raise self.fail(
                f"config.{key}",
                f"the stack has no value for {full_key}, and its declaration has no default (pulumi config set {key})",
            )
        if not _is_secure(value):
            self._check_type(f"config.{key}", full_key, value, declaration)
        secret = bool(declaration.get("secret")) or _is_secure(value)
        return pulumi.Output.secret(_unsecured(value)) if secret else value

    def _check_type(self, where: str, key: str, value: Any, declaration: Mapping[str, Any]) -> None:
        declared = declaration.get("type")
        if declared is None:
            return
        expected = _CONFIG_TYPES[declared]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise self.fail(where, f"{key} must be of type {declared} (got {_shown(value)})")
        items = declaration.get("items")
        if isinstance(value, list) and isinstance(items, dict):
            for index, item in enumerate(value):
                self._check_type(f"{where}[{index}]", f"{key}[{index}]", item, items)

    async def run(self) -> None:
        program = self.program
        for name in program.order:
            if name in program.variables:
                self.scope[name] = self.value(program.variables[name], f"variables.{name}")
            else:
                self.scope[name] = await self.register(program.resources[name])
        for name, expression in program.outputs.items():
            pulumi.export(name, self.value(expression, f"outputs.{name}"))

    # ---- values

    def value(self, expression: Any, where: str) -> Any:
        """The value of a parsed expression: plain, or holding outputs where it reads one."""
        if isinstance(expression, dict):
            return {key: self.value(item, _joined(where, str(key))) for key, item in expression.items()}
        if isinstance(expression, list):
            return [self.value(item, f"{where}[{index}]") for index, item in enumerate(expression)]
        if not isinstance(expression, _Interpolation):
            return expression
        parts = [part if isinstance(part, str) else self.read(part, where) for part in expression.parts]
        if len(parts) == 1:
            return parts[0]
        for part, given in zip(parts, expression.parts, strict=True):
            if isinstance(given, _Reference) and isinstance(part, (dict, list, _Registered, pulumi.Resource)):
                raise self.fail(where, f"${{{given.text}}} is not text, so it cannot be part of a string")
        if any(isinstance(part, pulumi.Output) for part in parts):
            return pulumi.Output.all(*parts).apply(lambda values: "".join(_text(v) for v in values))
        return "".join(_text(part) for part in parts)

    def read(self, reference: _Reference, where: str) -> Any:
        current = self.scope[reference.root]
        path = reference.root
        for accessor in reference.accessors:
            current = self._access(current, accessor, path, reference, where)
            path += f"[{accessor}]" if isinstance(accessor, int) else f".{accessor}"
        return current.resource if isinstance(current, _Registered) else current

    def _access(self, current: Any, accessor: str | int, path: str, reference: _Reference, where: str) -> Any:
        if isinstance(current, _Registered):
            if accessor in ("id", "urn"):
                if accessor == "id" and not isinstance(current.resource, pulumi.CustomResource):
                    raise self.fail(where, f"${{{reference.text}}}: a component has no id")
                return getattr(current.resource, str(accessor))
            if current.state is None:
                raise self.fail(
                    where,
                    f"${{{reference.text}}}: the offline plan cannot read {accessor!r} of a {current.type} (it "
                    "knows the state of gpu-components components, and every resource's id and urn)",
                )
            if accessor not in current.state:
                declared = _component_schemas()[current.type].get("properties", {})
                if accessor in declared:
                    return None  # an output the component left null: absent from the state the engine returns
                raise self.fail(
                    where,
                    f"${{{reference.text}}}: {current.type} has no output {accessor!r}; valid: "
                    f"{', '.join(sorted(declared))}",
                )
            return pulumi.Output.from_input(current.state[str(accessor)])
        if isinstance(current, pulumi.Output):
            return current.apply(lambda value: self._plain_access(value, accessor, path, reference, where))
        return self._plain_access(current, accessor, path, reference, where)

    def _plain_access(self, current: Any, accessor: str | int, path: str, reference: _Reference, where: str) -> Any:
        if isinstance(accessor, int) and isinstance(current, list) and 0 <= accessor < len(current):
            return current[accessor]
        if isinstance(accessor, str) and isinstance(current, dict) and accessor in current:
            return current[accessor]
        raise self.fail(where, f"${{{reference.text}}}: {path} has no {accessor!r} (it is {_shown(current)})")

    # ---- resources

    async def register(self, resource: _Resource) -> _Registered:
        where = f"resources.{resource.key}"
        properties = self.value(resource.properties, f"{where}.properties")
        options = {key: self.value(value, f"{where}.options.{key}") for key, value in resource.options.items()}
        package = resource.type.split(":", maxsplit=1)[0]
        if package == COMPONENT_PACKAGE:
            return await self._construct(resource, properties, options)
        opts = self._resource_options(options, f"{where}.options")
        if resource.type.startswith(PROVIDER_TYPE_PREFIX):
            provider_package = resource.type.removeprefix(PROVIDER_TYPE_PREFIX)
            return _Registered(
                resource.type, pulumi.ProviderResource(provider_package, resource.name, properties, opts)
            )
        return _Registered(resource.type, pulumi.CustomResource(resource.type, resource.name, properties, opts))

    def _resource_options(self, options: Mapping[str, Any], where: str) -> pulumi.ResourceOptions:
        timeouts = options.get("customTimeouts")
        return pulumi.ResourceOptions(
            additional_secret_outputs=self._strings(options, "additionalSecretOutputs", where),
            aliases=cast(Any, self._strings(options, "aliases", where)),
            custom_timeouts=pulumi.CustomTimeouts(**timeouts) if isinstance(timeouts, dict) else None,
            delete_before_replace=self._boolean(options, "deleteBeforeReplace", where),
            deleted_with=self._one(options, "deletedWith", where),
            depends_on=self._many(options, "dependsOn", where),
            ignore_changes=self._strings(options, "ignoreChanges", where),
            parent=self._one(options, "parent", where),
            plugin_download_url=self._string(options, "pluginDownloadURL", where),
            protect=self._boolean(options, "protect", where),
            provider=self._provider_of(options, where),
            providers=cast(Any, self._providers_of(options, where)),
            replace_on_changes=self._strings(options, "replaceOnChanges", where),
            retain_on_delete=self._boolean(options, "retainOnDelete", where),
            version=self._string(options, "version", where),
        )

    async def _construct(
        self, resource: _Resource, properties: dict[str, Any], options: Mapping[str, Any]
    ) -> _Registered:
        """Construct a component as the engine's ``Construct`` call to the plugin does (module doc)."""
        where = f"resources.{resource.key}.options"
        property_deps: dict[str, list[pulumi.Resource]] = {}
        inputs = await serialize_with_output_values(properties, property_deps)
        request = provider_pb2.ConstructRequest(
            type=resource.type,
            name=resource.name,
            inputs=inputs,
            accepts_output_values=True,
            protect=bool(self._boolean(options, "protect", where)),
            retainOnDelete=bool(self._boolean(options, "retainOnDelete", where)),
            deleteBeforeReplace=bool(self._boolean(options, "deleteBeforeReplace", where)),
            ignoreChanges=self._strings(options, "ignoreChanges", where) or [],
            replaceOnChanges=self._strings(options, "replaceOnChanges", where) or [],
            additionalSecretOutputs=self._strings(options, "additionalSecretOutputs", where) or [],
            aliases=[alias_pb2.Alias(urn=urn) for urn in self._strings(options, "aliases", where) or []],
        )
        for key, resources in property_deps.items():
            urns = sorted({urn for urn in await asyncio.gather(*(_urn(r) for r in resources)) if urn})
            request.inputDependencies[key].urns.extend(urns)
        request.dependencies.extend([await _urn(r) for r in self._many(options, "dependsOn", where) or []])
        parent = self._one(options, "parent", where)
        if parent is not None:
            request.parent = await _urn(parent)
        deleted_with = self._one(options, "deletedWith", where)
        if deleted_with is not None:
            request.deletedWith = await _urn(deleted_with)
        timeouts = options.get("customTimeouts")
        if isinstance(timeouts, dict):
            request.customTimeouts.CopyFrom(provider_pb2.ConstructRequest.CustomTimeouts(**timeouts))
        providers = list(self._providers_of(options, where) or [])
        single = self._provider_of(options, where)
        if single is not None:
            providers.append(single)
        for provider in providers:
            request.providers[provider.package] = await _provider_reference(provider)
        received = await construct_inputs(request.inputs, request.inputDependencies)
        result = self._component_provider().construct(request.name, request.type, received, construct_options(request))
        response = await construct_response(result)
        state = await construct_inputs(response.state, response.stateDependencies)
        return _Registered(resource.type, DependencyResource(response.urn), state)

    def _component_provider(self) -> Any:
        if self._provider is None:
            from gpu_components.package import GpuComponentsProvider  # on use, as package_schema

            self._provider = GpuComponentsProvider()
        return self._provider

    # ---- option values

    def _strings(self, options: Mapping[str, Any], key: str, where: str) -> list[str] | None:
        value = options.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(f"{where}.{key}", f"must be a list of strings (got {_shown(value)})")
        return value

    def _string(self, options: Mapping[str, Any], key: str, where: str) -> str | None:
        value = options.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"{where}.{key}", f"must be a string (got {_shown(value)})")
        return value

    def _boolean(self, options: Mapping[str, Any], key: str, where: str) -> bool | None:
        value = options.get(key)
        if value is not None and not isinstance(value, bool):
            raise self.fail(f"{where}.{key}", f"must be true or false (got {_shown(value)})")
        return value

    def _one(self, options: Mapping[str, Any], key: str, where: str) -> pulumi.Resource | None:
        value = options.get(key)
        if value is not None and not isinstance(value, pulumi.Resource):
            raise self.fail(f"{where}.{key}", f"must be a resource, such as ${{name}} (got {_shown(value)})")
        return value

    def _many(self, options: Mapping[str, Any], key: str, where: str) -> list[pulumi.Resource] | None:
        value = options.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, pulumi.Resource) for item in value):
            raise self.fail(f"{where}.{key}", f"must be a list of resources, such as [${{name}}] (got {_shown(value)})")
        return value

    def _provider_of(self, options: Mapping[str, Any], where: str) -> pulumi.ProviderResource | None:
        value = self._one(options, "provider", where)
        if value is not None and not isinstance(value, pulumi.ProviderResource):
            raise self.fail(f"{where}.provider", "must be a provider resource (a resource of type pulumi:providers:*)")
        return value

    def _providers_of(self, options: Mapping[str, Any], where: str) -> Sequence[pulumi.ProviderResource] | None:
        values = self._many(options, "providers", where)
        if values is not None and not all(isinstance(value, pulumi.ProviderResource) for value in values):
            raise self.fail(
                f"{where}.providers", "must be a list of provider resources (resources of type pulumi:providers:*)"
            )
        return cast(Sequence[pulumi.ProviderResource], values)


async def _urn(resource: pulumi.Resource) -> str:
    return str(await resource.urn.future())


async def _provider_reference(provider: pulumi.ProviderResource) -> str:
    """``<urn>::<id>``: how the engine refers to a provider (its id unknown in a preview of a new stack)."""
    urn = await provider.urn.future()
    provider_id = await provider.id.future()
    return f"{urn}::{provider_id if provider_id else WIRE_UNKNOWN}"


def _is_secure(value: Any) -> bool:
    if isinstance(value, dict):
        return set(value) == {"secure"} or any(_is_secure(item) for item in value.values())
    if isinstance(value, list):
        return any(_is_secure(item) for item in value)
    return False


def _unsecured(value: Any) -> Any:
    """A config value with each ``{secure: ...}`` (which cannot be decrypted offline) the plan's mask."""
    if isinstance(value, dict):
        return SECRET if set(value) == {"secure"} else {key: _unsecured(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unsecured(item) for item in value]
    return value


def _secret(value: Any) -> Any:
    return pulumi.Output.secret(_unsecured(value)) if _is_secure(value) else value


def _text(value: Any) -> str:
    """A scalar as interpolated text: strings as they are, booleans and numbers as JSON writes them."""
    return value if isinstance(value, str) else json.dumps(value)
