"""Run a Pulumi program offline under `PlanMocks` and record what it would create.

`run_program` is what `gpu-components plan <stack>` and the whole-stack tests call: it runs the same
program `pulumi up` runs, with the stack's config, against the mock monitor, waits until every
registration (including those made inside `apply` callbacks) is done, and returns a `Plan`: every
registered resource with its parent and inputs, and the stack outputs, secrets masked.

Each run happens on its own thread, in a fresh `contextvars.Context` with its own asyncio event loop,
so Pulumi's global runtime state (root stack resource, config, mocks, settings) never leaks between
runs or into the caller: `run_program` can be called any number of times in one process.

Each resource's options are recorded as the engine receives them (`gpu_components.plan.options`). The provider
SDKs' own type aliases are dropped before the SDK resolves them (`drop_sdk_type_aliases`): they only match old
API-version types in a stack's state, and resolving them is most of the client-side cost of some provider
resources (pulumi-azure-native declares one type alias per API version: 110 on `containerservice:AgentPool` in
3.29); the program's own aliases are kept and recorded.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import math
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import yaml

from gpu_components._yaml import load_pulumi
from gpu_components.plan._pulumi_internals import (
    Stack,
    engine_pb2,
    massage,
    run_pulumi_func,
    serialize_properties,
    settings,
)
from gpu_components.plan.call_sites import recording
from gpu_components.plan.mock_kit import MOCKS_FILE, UserMocks
from gpu_components.plan.mocks import SECRET, PlanMocks, PlanMonitor, to_plain
from gpu_components.plan.options import drop_sdk_type_aliases

__all__ = [
    "Plan",
    "PlannedResource",
    "StackFileError",
    "StackNotFoundError",
    "flatten_config",
    "load_stack",
    "run_program",
    "stack_config_dir",
]

_LOG = logging.getLogger("gpu_components.plan.pulumi")
"""Where the Pulumi SDK's log messages (e.g. warnings from provider SDKs) go during a plan."""

_SEVERITIES = {
    engine_pb2.DEBUG: logging.DEBUG,
    engine_pb2.INFO: logging.INFO,
    engine_pb2.WARNING: logging.WARNING,
    engine_pb2.ERROR: logging.ERROR,
}
"""The engine's log severities -> the logging levels of :data:`_LOG`."""


class _PlanEngine:
    """The engine of a plan's runs, for its one call a program makes: ``Log`` (``pulumi.log.warn`` and the like).
    A message about a resource is logged as ``<type> (<name>): <message>``, the type and name the Pulumi CLI lists
    the resource's messages under, so a plan of several clusters says which component warns (the SDK's mock engine
    drops the resource)."""

    def Log(self, request: Any) -> None:
        message = str(request.message)
        if request.urn:
            *_, qualified_type, name = str(request.urn).split("::")
            message = f"{qualified_type.rsplit('$', 1)[-1]} ({name}): {message}"
        _LOG.log(_SEVERITIES.get(request.severity, logging.INFO), message)


_ORGANIZATION = "organization"
"""What `pulumi.get_organization()` returns during a plan (the SDK's own default)."""


@dataclass(frozen=True)
class PlannedResource:
    """One resource the program registered.

    Attributes:
        urn: the engine-style URN, e.g. `urn:pulumi:dev::proj::gpu-components:index:X$aws:iam/role:Role::r`.
        type: the type token, e.g. `aws:iam/role:Role`.
        name: the logical name given to the constructor.
        parent: the parent's URN, or None for the stack's direct children.
        inputs: the inputs as registered (camelCase keys as the engine sees them), plain JSON values;
            secrets are `"[secret]"`, preview-time unknowns `"[unknown]"`, resource references URNs.
        custom: True for provider-managed resources, False for components (local or remote).
        options: the resource options the engine received, by Pulumi's names (`provider`, `dependsOn`, `protect`,
            `replaceOnChanges`, `ignoreChanges`, `deleteBeforeReplace`, `aliases`, `retainOnDelete`,
            `additionalSecretOutputs`, `customTimeouts`), each left out at its default
            (`gpu_components.plan.options`).
        id: the physical id the mocks gave a custom resource (`"[unknown]"` where they left it unknown, as in a
            preview of a new resource); None for a component.
        outputs: the resource's state as the mocks returned it (inputs overlaid with computed outputs), plain and
            masked like `inputs`; a component's is what it passed to `register_outputs` (else its inputs).
        provider_reference: the provider reference the SDK sent, `<provider URN>::<provider id>`; `""` when it
            sent none (a custom resource is then managed by the engine's default provider for its package).
        remote: True for a remote component (a component a provider plugin constructs, such as pulumi-eks's
            `Cluster`).
        dependencies: every URN the resource depends on, through its inputs or `depends_on` (a component there
            expanded into its resources, as the SDK sends it), sorted.
        property_dependencies: input name -> the URNs its value depends on, sorted, for every input the SDK sent.
        version: the provider package version the SDK asked for (`"7.51.0"`), `""` when none.
        plugin_download_url: the provider plugin download URL the SDK asked for, `""` when none.

    The last eight are what Pulumi's state holds (`gpu_components.plan.state`); the JSON plan leaves them out.
    """

    urn: str
    type: str
    name: str
    parent: str | None
    inputs: Mapping[str, Any]
    custom: bool
    options: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    outputs: Mapping[str, Any] = field(default_factory=dict)
    provider_reference: str = ""
    remote: bool = False
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    version: str = ""
    plugin_download_url: str = ""


@dataclass(frozen=True)
class Plan:
    """What a program would create: its resources sorted by URN and its stack outputs (secrets masked).

    Attributes:
        config: the stack config the program ran with, flat (`{"aws:region": "us-west-2"}`, values as the engine
            hands them to a program), each secret key's whole value `"[secret]"`.
    """

    project: str
    stack: str
    resources: tuple[PlannedResource, ...]
    outputs: Mapping[str, Any]
    config: Mapping[str, str] = field(default_factory=dict)


class StackNotFoundError(FileNotFoundError):
    """The stack config file does not exist; `available` lists the stacks that do."""

    def __init__(self, path: Path, available: list[str]) -> None:
        self.path = path
        self.available = available
        listing = ", ".join(available) if available else "none"
        super().__init__(f"no stack config {path} (available stacks: {listing})")


class StackFileError(ValueError):
    """`Pulumi.yaml` or a stack config file cannot be read: not valid YAML, or not shaped as Pulumi reads it.

    `path` is the file, `problem` what is wrong with it; the message is `<path>: <problem>`.
    """

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def stack_config_dir(root: str | os.PathLike[str]) -> Path:
    """The directory holding the project's stack config files: `<root>/<stackConfigDir>` (default `root`).

    Raises:
        FileNotFoundError: `Pulumi.yaml` is missing.
        StackFileError: `Pulumi.yaml` is not valid YAML or not a valid project file.
    """
    return _load_project(Path(root))[1]


def load_stack(root: str | os.PathLike[str], stack: str) -> tuple[str, dict[str, Any]]:
    """Read a project's name and one stack's config the way the Pulumi CLI does.

    Args:
        root: the project directory (a `str` or path-like), holding `Pulumi.yaml` (`name:`, optional
            `stackConfigDir:` and project-level `config:` defaults).
        stack: the stack name; its config is `<root>/<stackConfigDir>/Pulumi.<stack>.yaml`.

    Returns:
        (project name, config) where config maps full keys (`"aws:region"`, `"<project>:cluster"`; keys
        without a namespace get the project's) to the YAML values (str, numbers, bools, structured
        values, or `{"secure": "..."}` for secrets), typed as the Pulumi CLI types them
        (`gpu_components._yaml.load_pulumi`: `yes`, `on` and `1:30` are strings, `1e3` a number).
        Project-level defaults from `Pulumi.yaml` come first and the stack file overrides them.

    Raises:
        FileNotFoundError: `Pulumi.yaml` is missing.
        StackNotFoundError: the stack file is missing; the message lists the available stacks.
        StackFileError: `Pulumi.yaml` or the stack file is not valid YAML (a mapping key given twice included),
            is not a mapping, has no project `name`, or has a `config:` that is not a mapping with string keys or
            holds an infinite or NaN number.
    """
    project, stack_dir, declarations = _load_project(Path(root))
    stack_file = stack_dir / f"Pulumi.{stack}.yaml"
    if not stack_file.is_file():
        available = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in stack_dir.glob("Pulumi.*.yaml"))
        raise StackNotFoundError(stack_file, available)
    stack_doc = _read_mapping(stack_file)

    config: dict[str, Any] = {}
    for key, declared in declarations.items():
        if isinstance(declared, dict) and ("default" in declared or "value" in declared):
            config[_full_key(project, key)] = declared.get("value", declared.get("default"))
        elif not isinstance(declared, dict):
            config[_full_key(project, key)] = declared
    for key, value in _config_block(stack_file, stack_doc).items():
        config[_full_key(project, key)] = value
    return project, config


def _load_project(root: Path) -> tuple[str, Path, dict[str, Any]]:
    """(project name, stack config directory, project-level `config:` declarations) from `<root>/Pulumi.yaml`."""
    project_file = root / "Pulumi.yaml"
    if not project_file.is_file():
        raise FileNotFoundError(f"no Pulumi project at {root} ({project_file} is missing)")
    document = _read_mapping(project_file)
    name = document.get("name")
    if not isinstance(name, str) or not name:
        found = "it is missing" if name is None else f"got {name!r}"
        raise StackFileError(project_file, f"name must be the project name, a non-empty string ({found})")
    config_dir = document.get("stackConfigDir")
    if config_dir is not None and not isinstance(config_dir, str):
        raise StackFileError(
            project_file, f"stackConfigDir must be a directory path relative to the project (got {config_dir!r})"
        )
    return name, root / (config_dir or "."), _config_block(project_file, document)


def _read_mapping(path: Path) -> dict[str, Any]:
    """The YAML mapping in `path`, typed as the Pulumi CLI types it (`gpu_components._yaml.load_pulumi`: YAML 1.2
    core-schema scalars as gopkg.in/yaml.v3 reads them, so `yes` and `on` are strings, not PyYAML's YAML 1.1
    booleans); an empty file is an empty mapping."""
    try:
        document = load_pulumi(path.read_bytes())
    except OSError as error:
        raise StackFileError(path, f"cannot be read ({error.strerror or error})") from None
    except yaml.YAMLError as error:
        raise StackFileError(path, f"not valid YAML: {_yaml_problem(error)}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise StackFileError(path, f"must be a YAML mapping of top-level keys (got {_shown(document)})")
    return document


def _config_block(path: Path, document: Mapping[str, Any]) -> dict[str, Any]:
    """The document's `config:` block (empty when absent or null): a mapping with string keys."""
    block = document.get("config")
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise StackFileError(path, f"config must be a mapping of config keys to values (got {_shown(block)})")
    for key in block:
        if not isinstance(key, str):
            raise StackFileError(
                path,
                f"config keys must be strings such as aws:region or cluster (got {key!r} of type {type(key).__name__})",
            )
        number = _non_finite(block[key])
        if number is not None:
            # Pulumi keeps config values as JSON (sdk/go/common/resource/config, object.MarshalJSON), which has no
            # infinity or NaN: `pulumi up` fails to load the file ("json: unsupported value").
            raise StackFileError(
                path, f"config value {key} holds {number!r}, which Pulumi cannot store (JSON has no infinity or NaN)"
            )
    return block


def _non_finite(value: Any) -> float | None:
    """The first infinite or NaN number in a config value, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((number for number in map(_non_finite, items) if number is not None), None)


def _shown(value: Any) -> str:
    """A value as the message shows it: short, with its YAML type when it is not a scalar."""
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _yaml_problem(error: yaml.YAMLError) -> str:
    """PyYAML's description of a syntax error on one line, with 1-based line and column numbers."""
    if isinstance(error, yaml.MarkedYAMLError):
        parts = []
        for text, mark in ((error.context, error.context_mark), (error.problem, error.problem_mark)):
            if text:
                parts.append(f"{text} (line {mark.line + 1}, column {mark.column + 1})" if mark else text)
        if error.note:
            parts.append(error.note)
        return ": ".join(parts)
    if isinstance(error, yaml.reader.ReaderError):
        # PyYAML's reader: `character` is a code point (encoding "unicode") or the first undecodable byte.
        if error.encoding == "unicode":
            return f"character #x{error.character:04x} at position {error.position} is not allowed ({error.reason})"
        return f"byte #x{error.character:02x} at position {error.position} is not {error.encoding} ({error.reason})"
    return " ".join(str(error).split())


def _full_key(project: str, key: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def flatten_config(project: str, config: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Turn a `config:` block into what the Pulumi engine hands a program.

    Keys without a namespace get the project's; strings stay as they are; booleans become
    `"true"`/`"false"`, numbers their decimal text, structured values JSON (so `require_object` works).
    Numbers are written as the engine's JSON (Go's encoding/json) writes them: a whole float below 1e21 has no
    fraction (`1e3` in a stack file reaches the program as `1000`, an int, as under `pulumi up`).
    A secret (`{"secure": ...}`, also nested inside a structured value) cannot be decrypted offline:
    it becomes `"[secret]"` and its key is reported as secret, so `Config.get_secret` returns a secret
    output and the plan masks it.

    Returns:
        (config keyed by full key, the list of secret keys).
    """
    flat: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in config.items():
        full = _full_key(project, key)
        plain, secret = _config_value(value)
        flat[full] = plain if isinstance(plain, str) else json.dumps(plain)
        if secret:
            secret_keys.append(full)
    return flat, sorted(secret_keys)


def _config_value(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return SECRET, True
        items = [(k, *_config_value(v)) for k, v in value.items()]
        return {k: v for k, v, _ in items}, any(secret for _, _, secret in items)
    if isinstance(value, list):
        elements = [_config_value(v) for v in value]
        return [v for v, _ in elements], any(secret for _, secret in elements)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        # Go's encoding/json writes a float64 below 1e21 with %f's digits: 1000.0 is `1000`, an int once read back.
        return int(value), False
    return value, False


def _check_preview(function: str, preview: object) -> None:
    """Raise `TypeError` naming `function`'s `preview` argument unless it is a bool (a string such as `"false"`
    would otherwise read as true)."""
    if not isinstance(preview, bool):
        raise TypeError(
            f"{function}: preview must be a bool (True: pulumi preview of a new stack; False: the state after pulumi "
            f"up), got {preview!r} ({type(preview).__name__})"
        )


def run_program(
    program: Callable[[], Awaitable[None] | None],
    *,
    project: str,
    stack: str,
    config: Mapping[str, Any],
    preview: bool = False,
    user_mocks: UserMocks | None = None,
) -> Plan:
    """Run `program` under `PlanMocks` and return what it registered.

    Args:
        program: the Pulumi program; it must read config inside the call (`pulumi.Config()`), not at
            import time, because config is set for this run only. It may return an awaitable (a coroutine), which
            is awaited on the run's event loop before the stack outputs are read, as the SDK's own entry point
            (`run_pulumi_func`) awaits one.
        project: the project name (`Pulumi.yaml` `name:`), used for URNs and unqualified config keys.
        stack: the stack name, used for URNs.
        config: the stack's `config:` block (see `load_stack` and `flatten_config`).
        preview: False (the default): the state after `pulumi up` of a new stack, every output known, which is
            what golden plans and PR diffs compare. True: `pulumi preview` of a new stack, as the engine shows
            it: each new custom resource's id and computed outputs (the outputs its SDK class declares that are
            not inputs) are unknown, so inputs fed from them read `"[unknown]"` and `apply` callbacks on them do
            not run; component resources and reads (`Resource.get`) are not affected. Both modes register the
            same resources with the same options (a program that creates resources inside an `apply` on a
            computed output would not: the example's components create none).
        user_mocks: the program's own invoke results and resource outputs (`gpu_components.plan.mock_kit.UserMocks`,
            read by `gpu_components.plan.user_mocks.load_user_mocks`), over the plan's own mocks; default none.

    Returns:
        The `Plan`: resources sorted by URN (the stack resource itself excluded), stack outputs as
        exported by the time the program returns, secrets masked as `"[secret]"`.

    Raises:
        TypeError: `preview` is not a bool.
        Whatever the program (or an `apply` callback in it) raises, unchanged; `MissingMockError` for an
        invoke or remote component without a mock.
    """
    _check_preview("run_program", preview)
    flat, secret_keys = flatten_config(project, config)
    outcome: list[Plan] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(
                contextvars.Context().run(_run, program, project, stack, flat, secret_keys, preview, user_mocks)
            )
        except BaseException as exc:  # handed to the calling thread below
            failure.append(exc)

    worker = threading.Thread(target=target, name=f"gpu-components-plan-{stack}", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _run(
    program: Callable[[], Awaitable[None] | None],
    project: str,
    stack: str,
    config: dict[str, str],
    secret_keys: list[str],
    preview: bool,
    user_mocks: UserMocks | None,
) -> Plan:
    """The body of one run, on a fresh thread and context: configure, run, collect, clean up."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    mocks = PlanMocks(config, preview=preview, user=user_mocks)
    monitor = PlanMonitor(mocks)
    try:
        settings.ROOT.set(None)
        pulumi.runtime.set_all_config(config, secret_keys)
        # MockSettings leaves these alone; without fresh ones a run would share the SDK's process-wide
        # defaults (pending outputs, package references) with every other fresh context.
        settings.SETTINGS.outputs = set()
        settings.SETTINGS.lock = threading.Lock()
        settings.SETTINGS.package_refs = {}
        settings.SETTINGS.base_providers_by_ref = {}
        pulumi.runtime.set_mocks(
            mocks,
            project=project,
            stack=stack,
            preview=preview,
            logger=_LOG,
            monitor=monitor,
            organization=_ORGANIZATION,
        )
        settings.SETTINGS.engine = _PlanEngine()
        root = settings.get_root_resource()
        if not isinstance(root, Stack):
            raise RuntimeError("set_mocks did not create the root stack resource")
        pulumi.runtime.register_stack_transformation(drop_sdk_type_aliases)
        pulumi.runtime.register_stack_transformation(mocks.learn_resource_class)
        exports: dict[str, Any] = {}

        async def body() -> None:
            result = program()
            if inspect.isawaitable(result):
                await result
            # What `pulumi up` registers as stack outputs: the exports made by the time the program returns.
            exports.update(root.outputs)

        with recording():
            loop.run_until_complete(run_pulumi_func(body))
        outputs = loop.run_until_complete(_plain_outputs(exports))
        misspelt = mocks.user_mock_problems()
        if misspelt and user_mocks is not None:
            raise StackFileError(user_mocks.path or Path(MOCKS_FILE), "; ".join(misspelt))
        registrations = monitor.registrations
        resources = tuple(
            PlannedResource(
                r.urn,
                r.type,
                r.name,
                r.parent,
                r.inputs,
                r.custom,
                r.options,
                id=r.id,
                outputs=r.outputs,
                provider_reference=r.provider_reference,
                remote=r.remote,
                dependencies=r.dependencies,
                property_dependencies=r.property_dependencies,
                version=r.version,
                plugin_download_url=r.plugin_download_url,
            )
            for r in sorted(registrations, key=lambda r: r.urn)
        )
        return Plan(
            project=project,
            stack=stack,
            resources=resources,
            outputs=outputs,
            config={key: SECRET if key in secret_keys else value for key, value in config.items()},
        )
    finally:
        _close(loop)
        monitor.close()


async def _plain_outputs(exports: Mapping[str, Any]) -> dict[str, Any]:
    """Resolve the stack exports the way the SDK serializes them, then make them plain and masked."""
    struct = await serialize_properties(massage(dict(exports), []), {})
    plain = to_plain(struct)
    return plain if isinstance(plain, dict) else {}


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a failed program left pending, then shut the loop and its executor down."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.run_until_complete(loop.shutdown_default_executor())
    asyncio.set_event_loop(None)
    loop.close()
