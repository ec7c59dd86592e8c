"""Run a Pulumi policy pack on an offline plan, as ``pulumi preview --policy-pack`` runs it, without the engine.

:func:`run_policy_pack` starts the pack's program and talks to it as the Pulumi engine's analyzer client does, over
gRPC with the protobufs the Pulumi SDK ships (``pulumi.runtime.proto``: ``analyzer_pb2``, ``analyzer_pb2_grpc``); the
pack itself runs on ``pulumi-policy`` unchanged. What the engine does, and what this module does in its place
(Pulumi's ``pkg/resource/plugin/analyzer_plugin.go``, ``pkg/engine/update.go``, ``pkg/resource/deploy/
step_generator.go`` and ``analyze_snapshot.go``, ``pkg/resource/analyzer/config.go``, pulumi/pulumi at 1b5949891b3c):

- **Start the pack.** A pack directory holds ``PulumiPolicy.yaml`` (``runtime: python``, optional ``version``,
  ``runtime.options.virtualenv``) and a ``__main__.py``; Pulumi's Python language host runs it as ``python -u -m
  pulumi.policy <engine address> <pack directory>`` (``RunPlugin`` in ``pulumi-language-python``), here with the
  virtualenv's Python when the pack names one, else this interpreter, in the pack directory; no engine listens at
  the address argument (``pulumi.policy`` only hands it on). The library's own pack
  (:mod:`gpu_components.policy`, the one ``policy/`` at the repository root serves) runs as ``python -u -m
  gpu_components.policy``. The pack prints the port of its gRPC server on its first line of stdout.
- **GetAnalyzerInfo**, then **ConfigureStack** (stack, project, ``dryRun: true``), then **Configure** with the
  reconciled policy config: each policy's enforcement level and its config schema's defaults, then the pack's
  initial config, then the config file (``--policy-config``, the JSON ``pulumi preview --policy-pack-config``
  takes: ``{"<policy>" | "all": "<level>" | {"enforcementLevel": ..., <property>: ...}}``), each policy's
  properties validated against its schema (JSON Schema, with the ``jsonschema`` package where the engine uses
  gojsonschema). Stricter than the engine: a config naming a policy the pack does not have is an error (the engine
  passes it on and the pack ignores it).
- **Analyze** each resource of the plan: its type, URN, name, properties (the plan's inputs: numbers as doubles, a
  secret as a secret whose value is the plan's mask ``"[secret]"``, an unknown as the engine's unknown sentinel),
  options (``protect``, ``ignoreChanges``, ``deleteBeforeReplace``, ``aliases``, ``additionalSecretOutputs``,
  ``customTimeouts`` in seconds, ``parent``) and its explicit provider resource with that provider's inputs. The
  root stack resource (``pulumi:pulumi:Stack``, ``<project>-<stack>``) comes first, as the engine registers it, and
  is the parent of the program's top-level resources. Resources on a default provider carry none (the plan does not
  record default providers).
- **AnalyzeStack** with every resource, its parent and dependencies (the plan's ``dependsOn``): the engine sends each
  resource's outputs there; a plan has none for a custom resource, so its inputs again (what a preview knows of a
  new resource), a component's registered outputs (the node-pool components' pool facts, which the pack's workload
  rules read) and, for the root stack, the stack outputs. A stack violation is attributed to the URN it names when
  that is in the plan, else to the root stack.
- **Not run:** remediations (``Remediate``): they rewrite a resource's inputs before ``pulumi up``, which an offline
  plan of the program cannot do.

The pack process is always killed at the end, whatever happened. A pack that cannot start, crashes or prints no port,
a ``PulumiPolicy.yaml`` that is missing, malformed or not ``python``, and a bad config file are a
:class:`PolicyPackError` (:class:`PolicyConfigError` for the config) with the pack's stderr tail where it ran.

:func:`to_text` prints the verdicts as ``pulumi preview`` prints its ``Policies:`` section
(``pkg/backend/display/progress.go`` ``printPolicies``, ``diff.go`` ``renderDiffPolicyViolationEvent``): the pack as
``<name>@v<version>`` with ✅ (no violation), ⚠️ (advisory only) or ❌ (a mandatory one), then each violation as
``- [<level>]  <policy>  (<type>: <resource>)`` and its message (the policy's description, then what it reported)
indented below, sorted by enforcement level, severity, policy name and URN. Where ``pulumi preview`` shows the
resource's name, this shows its URN (names repeat across components; a URN does not).
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc  # type: ignore[import-untyped]
import jsonschema  # type: ignore[import-untyped]
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2  # type: ignore[import-untyped]
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc
from pulumi.runtime.rpc import UNKNOWN as WIRE_UNKNOWN
from pulumi_policy.deserialize import SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY

from gpu_components._yaml import load_pulumi
from gpu_components.plan.mock_kit import STACK_TYPE
from gpu_components.plan.mocks import SECRET, UNKNOWN
from gpu_components.plan.runner import Plan, PlannedResource

__all__ = [
    "BUILTIN_PACK_MODULE",
    "ENFORCEMENT_LEVELS",
    "PolicyConfig",
    "PolicyConfigError",
    "PolicyPack",
    "PolicyPackError",
    "PolicyReport",
    "Violation",
    "display_type",
    "load_policy_config",
    "run_policy_pack",
    "to_text",
]

BUILTIN_PACK_MODULE = "gpu_components.policy"
"""The library's own pack, run as ``python -u -m gpu_components.policy`` (the pack ``policy/`` serves)."""
ENFORCEMENT_LEVELS = ("advisory", "mandatory", "remediate", "disabled")
"""Pulumi's enforcement levels (``apitype.EnforcementLevel``), by their config spelling."""
PORT_TIMEOUT_S = 60.0
"""Seconds a pack has to print its port (importing a pack's rules and grpc takes a few seconds on a busy machine)."""
RPC_TIMEOUT_S = 120.0
"""Seconds one analyzer call may take."""
STDERR_TAIL_LINES = 20
"""Lines of a failed pack's stderr shown in the error."""
ENGINE_ADDRESS = "127.0.0.1:0"
"""The engine address a pack program is started with: no engine listens offline, and ``pulumi.policy`` dials none."""
_MAX_MESSAGE = 400 * 1024 * 1024
"""gRPC message limit (bytes) both ways, as ``pulumi-policy``'s server sets it: a stack's resources in one request."""

_LEVELS: Mapping[int, str] = {
    proto.ADVISORY: "advisory",
    proto.MANDATORY: "mandatory",
    proto.REMEDIATE: "remediate",
    proto.DISABLED: "disabled",
}
_LEVEL_VALUES: Mapping[str, int] = {name: value for value, name in _LEVELS.items()}
_SEVERITIES: Mapping[int, str] = {
    proto.POLICY_SEVERITY_LOW: "low",
    proto.POLICY_SEVERITY_MEDIUM: "medium",
    proto.POLICY_SEVERITY_HIGH: "high",
    proto.POLICY_SEVERITY_CRITICAL: "critical",
}
_LEVEL_RANK = {"remediate": 0, "mandatory": 1, "advisory": 2, "disabled": 3}
_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "": 4}
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class PolicyPackError(Exception):
    """A policy pack that cannot be run: a missing or malformed pack directory, a runtime other than Python, a pack
    program that crashes or prints no port, a failed analyzer call. The message says which, with the pack's stderr
    tail where it ran."""


class PolicyConfigError(PolicyPackError):
    """A policy config file (``--policy-config``) that is missing, not JSON, not shaped as Pulumi reads it, names a
    policy the pack does not have, or gives a policy properties its config schema refuses."""


@dataclass(frozen=True)
class PolicyPack:
    """A policy pack to run: a pack directory (``directory``), or the library's own (``directory`` None).

    Attributes:
        directory: the directory holding ``PulumiPolicy.yaml`` and ``__main__.py``; None for the built-in pack.
        python: the interpreter that runs it (the pack's ``virtualenv``, else this one).
        version: ``PulumiPolicy.yaml``'s ``version``, which overrides what the pack reports (as in the engine).
    """

    directory: Path | None
    python: str
    version: str | None = None

    @classmethod
    def builtin(cls) -> PolicyPack:
        """The library's own pack (:mod:`gpu_components.policy`), run with this interpreter."""
        return cls(None, sys.executable)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> PolicyPack:
        """Read the pack in ``directory`` (a ``str`` or path-like) as the engine does (``workspace.LoadPolicyPack``).

        Raises:
            PolicyPackError: ``directory`` is not a directory, or has no ``PulumiPolicy.yaml`` or ``__main__.py``;
                the file is not valid YAML, has no ``runtime`` or one other than ``python``; its ``virtualenv``
                does not exist.
        """
        directory = Path(directory)
        if not directory.is_dir():
            raise PolicyPackError(f"no policy pack at {directory}: not a directory")
        file = directory / "PulumiPolicy.yaml"
        if not file.is_file():
            raise PolicyPackError(f"no policy pack at {directory} ({file} is missing)")
        try:
            document = load_pulumi(file.read_bytes())
        except (yaml.YAMLError, ValueError) as error:
            raise PolicyPackError(f"{file}: not valid YAML: {error}") from None
        if not isinstance(document, Mapping):
            raise PolicyPackError(f"{file}: not a policy pack project (a mapping of runtime, version, ...)")
        runtime, options = _runtime(file, document.get("runtime"))
        if runtime != "python":
            raise PolicyPackError(
                f"{file}: runtime is {runtime}, not python: gpu-components plan --policy runs Python policy packs only"
            )
        if not (directory / "__main__.py").is_file():
            raise PolicyPackError(
                f"{directory}/__main__.py is missing: a Python policy pack's program is its __main__.py"
            )
        version = document.get("version")
        python = sys.executable
        virtualenv = options.get("virtualenv")
        if isinstance(virtualenv, str) and virtualenv:
            python = os.path.abspath(directory / virtualenv / "bin" / "python")  # the venv's link, unresolved
            if not Path(python).exists():
                raise PolicyPackError(
                    f"{file}: virtualenv {virtualenv} has no Python ({python} does not exist); create it, or "
                    "remove the option to run the pack with this interpreter"
                )
        return cls(directory, python, str(version) if version not in (None, "") else None)

    @property
    def label(self) -> str:
        """Where the pack comes from, as the ``Policies:`` section names it: ``local: <dir>`` or ``built-in: ...``."""
        return f"local: {self.directory}" if self.directory is not None else f"built-in: {BUILTIN_PACK_MODULE}"

    def command(self) -> list[str]:
        """The command that starts the pack's program (see the module docstring)."""
        if self.directory is None:
            return [self.python, "-u", "-m", BUILTIN_PACK_MODULE]
        return [self.python, "-u", "-m", "pulumi.policy", ENGINE_ADDRESS, str(self.directory.resolve())]


def _runtime(file: Path, runtime: object) -> tuple[str, Mapping[str, Any]]:
    """The runtime's name and options: ``runtime: python`` or ``runtime: {name: python, options: {...}}``."""
    if isinstance(runtime, str) and runtime:
        return runtime, {}
    if isinstance(runtime, Mapping) and isinstance(runtime.get("name"), str) and runtime["name"]:
        options = runtime.get("options")
        return runtime["name"], options if isinstance(options, Mapping) else {}
    raise PolicyPackError(f"{file}: project is missing a 'runtime' attribute")


@dataclass(frozen=True)
class PolicyConfig:
    """One policy's config: its enforcement level (one of :data:`ENFORCEMENT_LEVELS`, or None to keep the pack's)
    and its properties."""

    enforcement_level: str | None = None
    properties: Mapping[str, Any] = field(default_factory=dict)


def load_policy_config(path: str | os.PathLike[str]) -> dict[str, PolicyConfig]:
    """A policy config file as the engine reads ``--policy-pack-config`` (``parsePolicyPackConfig``): a JSON object,
    policy name (or ``all``) -> an enforcement level, or an object with an optional ``enforcementLevel`` and the
    policy's properties. Entries with neither are dropped; an empty file is no config. ``path`` is a ``str`` or
    path-like.

    Raises:
        PolicyConfigError: the file cannot be read, is not JSON or not shaped so; an enforcement level that is not
            one of :data:`ENFORCEMENT_LEVELS`; ``environments`` (Pulumi ESC environments cannot be opened offline).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise PolicyConfigError(f"policy config {path}: cannot read it: {error.strerror or error}") from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except ValueError as error:
        raise PolicyConfigError(f"policy config {path}: not JSON: {error}") from None
    if not isinstance(document, dict):
        raise PolicyConfigError(f"policy config {path}: not a JSON object of policy name -> config")
    if "environments" in document:
        raise PolicyConfigError(
            f"policy config {path}: environments (Pulumi ESC) cannot be opened offline; give the values themselves"
        )
    result: dict[str, PolicyConfig] = {}
    for name, value in document.items():
        if isinstance(value, str):
            level: object = value
            properties: dict[str, Any] = {}
        elif isinstance(value, dict):
            properties = dict(value)
            level = properties.pop("enforcementLevel", None)
        else:
            raise PolicyConfigError(
                f"policy config {path}: parsing {name!r}: {json.dumps(value)} is not a valid value; must be a string "
                "or object"
            )
        if level is not None and level not in ENFORCEMENT_LEVELS:
            raise PolicyConfigError(
                f"policy config {path}: parsing enforcement level for {name!r}: {json.dumps(level)} is not a valid "
                f"enforcement level; valid: {', '.join(ENFORCEMENT_LEVELS)}"
            )
        if level is None and not properties:
            continue
        result[name] = PolicyConfig(level if isinstance(level, str) else None, properties)
    return result


@dataclass(frozen=True)
class Violation:
    """One policy violation, as the engine's ``AnalyzeDiagnostic``.

    Attributes:
        policy: the policy's name. level: its enforcement level (``mandatory``, ``advisory``).
        urn: the resource's URN (a stack policy's: the URN it named, else the root stack's).
        message: the policy's description, then what it reported (``pulumi-policy`` joins them with a newline).
        severity: ``low`` .. ``critical``, or ``""`` when the policy gives none.
    """

    policy: str
    level: str
    urn: str
    message: str
    severity: str = ""

    @property
    def resource_type(self) -> str:
        """The resource's type token, from its URN."""
        return _urn_type(self.urn)


@dataclass(frozen=True)
class PolicyReport:
    """The verdicts of one pack on one stack's plan: the pack's name, version and :attr:`PolicyPack.label`, and the
    violations in the order ``pulumi preview`` prints them."""

    stack: str
    pack: str
    version: str
    label: str
    violations: tuple[Violation, ...]

    @property
    def mandatory(self) -> bool:
        """True when a mandatory violation was found: ``pulumi preview`` fails and ``pulumi up`` refuses to run."""
        return any(violation.level == "mandatory" for violation in self.violations)


def run_policy_pack(
    plan: Plan, pack: PolicyPack | None = None, config: Mapping[str, PolicyConfig | str] | None = None
) -> PolicyReport:
    """Run ``pack`` (default: the library's own) on ``plan`` as ``pulumi preview --policy-pack`` would run it on the
    program's registrations (see the module docstring), and return its verdicts.

    Args:
        plan: a plan (``run_project(...)``, ``run_program(...)``).
        pack: :meth:`PolicyPack.load` of a pack directory, or :meth:`PolicyPack.builtin` (the default).
        config: policy config (:func:`load_policy_config`), applied over the pack's defaults: policy name (or
            ``all``) -> a :class:`PolicyConfig`, or an enforcement level alone (one of :data:`ENFORCEMENT_LEVELS`),
            as the config file writes it.

    Raises:
        TypeError: ``plan`` is not a :class:`~gpu_components.plan.runner.Plan`, ``pack`` not a :class:`PolicyPack`,
            ``config`` not a mapping of policy name -> :class:`PolicyConfig` or enforcement level.
        PolicyPackError: the pack cannot be started or fails (its stderr tail in the message).
        PolicyConfigError: ``config`` names a policy the pack lacks or gives properties its schema refuses, or an
            enforcement level that is not one of :data:`ENFORCEMENT_LEVELS`.
    """
    given = _checked_arguments(plan, pack, config)
    pack = pack or PolicyPack.builtin()
    with _served(pack) as (stub, stderr):
        try:
            info = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=RPC_TIMEOUT_S)
            version = pack.version or info.version
            stub.ConfigureStack(
                proto.AnalyzerStackConfigureRequest(
                    stack=plan.stack, project=plan.project, organization="organization", dry_run=True
                ),
                timeout=RPC_TIMEOUT_S,
            )
            if info.supportsConfig:
                request = proto.ConfigureAnalyzerRequest()
                for name, policy_config in _reconciled(info, given).items():
                    entry = request.policyConfig[name]
                    entry.enforcementLevel = _LEVEL_VALUES[policy_config.enforcement_level or "advisory"]
                    entry.properties.update(dict(policy_config.properties))
                stub.Configure(request, timeout=RPC_TIMEOUT_S)
            elif given:
                raise PolicyConfigError(f"policy pack {info.name!r} at {pack.label} does not support config")
            violations = _analyze(stub, plan)
        except grpc.RpcError as error:
            raise PolicyPackError(
                f"policy pack at {pack.label} failed: {error.details() or error.code()}{_tail(stderr)}"
            ) from None
    ordered = sorted(
        violations,
        key=lambda v: (_LEVEL_RANK.get(v.level, 99), _SEVERITY_RANK.get(v.severity, 99), v.policy, v.urn),
    )
    return PolicyReport(plan.stack, info.name, version, pack.label, tuple(ordered))


# ------------------------------------------------------------------------------------------ the pack's process


@contextmanager
def _served(pack: PolicyPack) -> Iterator[tuple[analyzer_pb2_grpc.AnalyzerStub, IO[bytes]]]:
    """Start the pack, read its port, and yield an analyzer client and its stderr; kill the process afterwards."""
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                pack.command(),
                cwd=pack.directory,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as error:
            raise PolicyPackError(f"policy pack at {pack.label} cannot start: {error.strerror or error}") from None
        assert process.stdout is not None
        first_line: queue.Queue[bytes] = queue.Queue()
        reader = threading.Thread(target=_read_stdout, args=(process.stdout, first_line), daemon=True)
        reader.start()
        channel: grpc.Channel | None = None
        try:
            port = _port(pack, process, first_line, stderr)
            options = [
                ("grpc.max_receive_message_length", _MAX_MESSAGE),
                ("grpc.max_send_message_length", _MAX_MESSAGE),
            ]
            channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=options)
            try:
                grpc.channel_ready_future(channel).result(timeout=PORT_TIMEOUT_S)
            except grpc.FutureTimeoutError:
                raise PolicyPackError(
                    f"policy pack at {pack.label} printed port {port} but serves nothing there{_tail(stderr)}"
                ) from None
            yield analyzer_pb2_grpc.AnalyzerStub(channel), stderr
        finally:
            if channel is not None:
                channel.close()
            _stop(process)
            reader.join(5)  # returns at the ended process's end of file
            process.stdout.close()


def _read_stdout(stdout: IO[bytes], first_line: queue.Queue[bytes]) -> None:
    """Hand on the pack's first line of stdout (its port), then read away the rest until the process ends, so a pack
    that prints never blocks on a full pipe."""
    first_line.put(stdout.readline())
    stdout.read()


def _port(pack: PolicyPack, process: subprocess.Popen[bytes], first_line: queue.Queue[bytes], stderr: IO[bytes]) -> int:
    """The port the pack prints on its first line of stdout, waiting at most :data:`PORT_TIMEOUT_S`."""
    try:
        line = first_line.get(timeout=PORT_TIMEOUT_S).decode(errors="replace").strip()
    except queue.Empty:
        raise PolicyPackError(
            f"policy pack at {pack.label} printed no port within {PORT_TIMEOUT_S:g} s{_tail(stderr)}"
        ) from None
    if not line:
        status = process.wait()
        raise PolicyPackError(
            f"policy pack at {pack.label} exited with status {status} before printing its port{_tail(stderr)}"
        )
    if not line.isdigit():
        raise PolicyPackError(f"policy pack at {pack.label} printed {line!r} instead of its port{_tail(stderr)}")
    return int(line)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the pack's process: terminate, then kill if it does not exit within 5 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(stderr: IO[bytes]) -> str:
    """The last :data:`STDERR_TAIL_LINES` lines of the pack's stderr, as an error's ending (``""`` when empty)."""
    stderr.flush()
    stderr.seek(0)
    lines = stderr.read().decode(errors="replace").rstrip().splitlines()[-STDERR_TAIL_LINES:]
    return "; its stderr ends with:\n" + "\n".join(f"  {line}" for line in lines) if lines else ""


# ---------------------------------------------------------------------------------------------------- config


def _checked_arguments(plan: object, pack: object, config: object) -> dict[str, PolicyConfig]:
    """:func:`run_policy_pack`'s arguments checked before a pack is started: a ``TypeError`` naming the argument and
    what it takes; ``config`` with each enforcement level given alone made a :class:`PolicyConfig`."""
    if not isinstance(plan, Plan):
        raise TypeError(
            f"run_policy_pack: plan must be a Plan (run_project(...) or run_program(...)), got {type(plan).__name__}"
        )
    if pack is not None and not isinstance(pack, PolicyPack):
        raise TypeError(
            "run_policy_pack: pack must be a PolicyPack (PolicyPack.load(directory) or PolicyPack.builtin()) or None, "
            f"got {type(pack).__name__}"
        )
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise TypeError(
            "run_policy_pack: config must be a mapping of policy name -> PolicyConfig or enforcement level "
            f"(load_policy_config(path)), got {type(config).__name__}"
        )
    result: dict[str, PolicyConfig] = {}
    for name, value in config.items():
        if isinstance(value, PolicyConfig):
            result[name] = value
        elif isinstance(value, str):
            if value not in ENFORCEMENT_LEVELS:
                raise PolicyConfigError(
                    f"policy config {name!r}: {value!r} is not an enforcement level; "
                    f"valid: {', '.join(ENFORCEMENT_LEVELS)}"
                )
            result[name] = PolicyConfig(value)
        else:
            raise TypeError(
                f"run_policy_pack: config[{name!r}] must be a PolicyConfig or an enforcement level "
                f"({', '.join(ENFORCEMENT_LEVELS)}), got {value!r} ({type(value).__name__})"
            )
    return result


def _reconciled(info: proto.AnalyzerInfo, given: Mapping[str, PolicyConfig]) -> dict[str, PolicyConfig]:
    """Each policy's config as the engine reconciles it (``ReconcilePolicyPackConfig``): the policy's enforcement
    level and its schema's defaults, then the pack's initial config, then ``given`` (``all`` first), validated."""
    names = [policy.name for policy in info.policies]
    unknown = sorted(set(given) - {*names, "all"})
    if unknown:
        raise PolicyConfigError(
            f"policy config names {', '.join(map(repr, unknown))}, which pack {info.name!r} does not have; its "
            f"policies: {', '.join(sorted(names))}"
        )
    result: dict[str, PolicyConfig] = {}
    schemas: dict[str, dict[str, Any]] = {}
    for policy in info.policies:
        schema = json_format.MessageToDict(policy.configSchema.properties) if policy.HasField("configSchema") else {}
        schemas[policy.name] = {"type": "object", "properties": schema} if schema else {}
        if policy.HasField("configSchema") and policy.configSchema.required:
            schemas[policy.name]["required"] = list(policy.configSchema.required)
        defaults = {key: value["default"] for key, value in schema.items() if "default" in value}
        result[policy.name] = PolicyConfig(_LEVELS.get(policy.enforcementLevel, "advisory"), defaults)
    initial = {
        name: PolicyConfig(_LEVELS.get(value.enforcementLevel), json_format.MessageToDict(value.properties))
        for name, value in info.initialConfig.items()
    }
    for layer in (initial, given):
        everyone = layer.get("all")
        if everyone is not None and everyone.enforcement_level is not None:
            result = {name: PolicyConfig(everyone.enforcement_level, c.properties) for name, c in result.items()}
        for name, config in layer.items():
            if name == "all" or name not in result:
                continue
            old = result[name]
            level = config.enforcement_level or old.enforcement_level
            result[name] = PolicyConfig(level, {**old.properties, **config.properties})
    problems = sorted(
        f"{name}: {_where(error)}{error.message}"
        for name, schema in schemas.items()
        if schema
        for error in jsonschema.Draft7Validator(schema).iter_errors(dict(result[name].properties))
    )
    if problems:
        raise PolicyConfigError(f"validating policy config for {info.name!r}: {'; '.join(problems)}")
    return result


def _where(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(part) for part in error.absolute_path)
    return f"{path}: " if path else ""


# --------------------------------------------------------------------------------------------------- analysis


def _analyze(stub: analyzer_pb2_grpc.AnalyzerStub, plan: Plan) -> list[Violation]:
    """Analyze every resource (the root stack first), then AnalyzeStack; the violations found."""
    stack_urn = f"urn:pulumi:{plan.stack}::{plan.project}::{STACK_TYPE}::{plan.project}-{plan.stack}"
    root = PlannedResource(stack_urn, STACK_TYPE, f"{plan.project}-{plan.stack}", None, {}, False)
    resources = [root, *plan.resources]
    by_urn = {resource.urn: resource for resource in resources}
    violations: list[Violation] = []
    for resource in resources:
        parent = None if resource is root else resource.parent or stack_urn
        request = proto.AnalyzeRequest(
            type=resource.type,
            urn=resource.urn,
            name=resource.name,
            properties=_struct(resource.inputs),
            options=_options(resource, parent),
        )
        provider = _provider(resource, by_urn)
        if provider is not None:
            request.provider.CopyFrom(provider)
        response = stub.Analyze(request, timeout=RPC_TIMEOUT_S)
        violations += [_violation(diagnostic, resource.urn) for diagnostic in response.diagnostics]
    stack_request = proto.AnalyzeStackRequest()
    for resource in resources:
        parent = None if resource is root else resource.parent or stack_urn
        item = stack_request.resources.add(
            type=resource.type,
            urn=resource.urn,
            name=resource.name,
            properties=_struct(plan.outputs if resource is root else _stack_properties(resource)),
            options=_options(resource, parent),
            parent=parent or "",
            dependencies=list(resource.options.get("dependsOn", [])),
        )
        provider = _provider(resource, by_urn)
        if provider is not None:
            item.provider.CopyFrom(provider)
    response = stub.AnalyzeStack(stack_request, timeout=RPC_TIMEOUT_S)
    for diagnostic in response.diagnostics:
        urn = diagnostic.urn if diagnostic.urn in by_urn else stack_urn
        violations.append(_violation(diagnostic, urn))
    return violations


def _stack_properties(resource: PlannedResource) -> Mapping[str, Any]:
    """What AnalyzeStack gets of a resource: a custom resource's inputs (what a preview knows of a new one), a
    component's registered outputs (plain values, known at preview: the engine records them in a preview too)."""
    return resource.inputs if resource.custom else resource.outputs


def _violation(diagnostic: proto.AnalyzeDiagnostic, urn: str) -> Violation:
    level = _LEVELS.get(diagnostic.enforcementLevel, "advisory")
    # A remediation that still leaves a violation is reported as mandatory (the engine's analyzeResource).
    return Violation(
        diagnostic.policyName,
        "mandatory" if level == "remediate" else level,
        urn,
        diagnostic.message,
        _SEVERITIES.get(diagnostic.severity, ""),
    )


def _options(resource: PlannedResource, parent: str | None) -> proto.AnalyzerResourceOptions:
    options = resource.options
    result = proto.AnalyzerResourceOptions(
        protect=bool(options.get("protect", False)),
        ignoreChanges=list(options.get("ignoreChanges", [])),
        aliases=list(options.get("aliases", [])),
        additionalSecretOutputs=list(options.get("additionalSecretOutputs", [])),
        parent=parent or "",
    )
    if "deleteBeforeReplace" in options:
        result.deleteBeforeReplace = bool(options["deleteBeforeReplace"])
        result.deleteBeforeReplaceDefined = True
    timeouts = options.get("customTimeouts", {})
    result.customTimeouts.create = _seconds(timeouts.get("create"))
    result.customTimeouts.update = _seconds(timeouts.get("update"))
    result.customTimeouts.delete = _seconds(timeouts.get("delete"))
    return result


def _seconds(duration: object) -> float:
    """A custom timeout (a Go duration such as ``1h30m``, as the SDK sends it) in seconds, as the engine sends it;
    0 for none or one that does not parse."""
    if not isinstance(duration, str) or not duration:
        return 0.0
    parts = _DURATION.findall(duration)
    if "".join(number + unit for number, unit in parts) != duration:
        return 0.0
    return sum(float(number) * _DURATION_UNITS[unit] for number, unit in parts)


def _provider(
    resource: PlannedResource, by_urn: Mapping[str, PlannedResource]
) -> proto.AnalyzerProviderResource | None:
    provider = by_urn.get(str(resource.options.get("provider", "")))
    if provider is None:
        return None
    return proto.AnalyzerProviderResource(
        type=provider.type, urn=provider.urn, name=provider.name, properties=_struct(provider.inputs)
    )


def _struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    """A plan's plain values as the engine marshals properties for an analyzer (``KeepUnknowns``, ``KeepSecrets``):
    the plan's unknown marker as the engine's unknown sentinel, its secret mask as a secret holding the mask."""
    result = struct_pb2.Struct()
    json_format.ParseDict({key: _wire(value) for key, value in values.items()}, result)
    return result


def _wire(value: Any) -> Any:
    if value == UNKNOWN:
        return WIRE_UNKNOWN
    if value == SECRET:
        return {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": SECRET}
    if isinstance(value, Mapping):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_wire(item) for item in value]
    return value


# ------------------------------------------------------------------------------------------------------ output


def _urn_type(urn: str) -> str:
    """The resource type of a URN (the last of its ``$``-joined type chain); ``""`` for no URN."""
    parts = urn.split("::")
    return parts[2].rsplit("$", 1)[-1] if len(parts) >= 4 else ""


def display_type(token: str) -> str:
    """A type token as Pulumi displays it (``tokens.Type.DisplayName``): the module's last path segment dropped when
    it is the type's name in camelCase (``aws:eks/nodeGroup:NodeGroup`` -> ``aws:eks:NodeGroup``)."""
    parts = token.split(":")
    if len(parts) != 3 or not parts[2] or "/" not in parts[1]:
        return token
    package, module, name = parts
    head, _, last = module.rpartition("/")
    if last != name[:1].lower() + name[1:]:
        return token
    return f"{package}:{head}:{name}"


def to_text(reports: Sequence[PolicyReport]) -> str:
    """The ``Policies:`` section of each report (see the module docstring); with several stacks each section is
    headed ``Policies (<stack>):``. Every section ends with a blank line."""
    lines: list[str] = []
    for report in reports:
        lines.append("Policies:" if len(reports) == 1 else f"Policies ({report.stack}):")
        mark = "✅"
        if report.violations:
            mark = "❌" if report.mandatory else "⚠️"
        lines.append(f"    {mark} {report.pack}@v{report.version} ({report.label})")
        for violation in report.violations:
            severity = f" [severity: {violation.severity}]" if violation.severity else ""
            clause = f"  ({display_type(violation.resource_type)}: {violation.urn})" if violation.urn else ""
            lines.append(f"        - [{violation.level}]{severity}  {violation.policy}{clause}")
            lines += [f"          {line}" for line in violation.message.rstrip("\n").split("\n")]
        lines.append("")
    return "\n".join(lines) + "\n" if lines else ""
