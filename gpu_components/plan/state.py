"""A plan written as a Pulumi deployment: the document ``pulumi stack export`` writes (deployment version 3).

:func:`to_state` turns a :class:`~gpu_components.plan.runner.Plan` into ``{"version": 3, "deployment":
{"manifest": {...}, "resources": [...]}}``, the shape Pulumi's ``apitype.UntypedDeployment`` and ``DeploymentV3``
hold (``sdk/go/common/apitype/core.go``) and its JSON schemas describe (``deployments.json``, ``resources.json``,
``property-values.json`` in the same directory); :func:`to_state_json` is that document as text, what
``gpu-components plan STACK --format state`` prints. Every fact below is read from ``pulumi/pulumi`` at commit
``1b5949891b3c`` (the commit the schema copies in ``tests/reference/pulumi/`` come from).

The resources, in the order the engine writes a new stack's state (parents before children, each resource after
the resources it depends on and after its provider):

- the stack, ``pulumi:pulumi:Stack`` named ``<project>-<stack>``, with the plan's stack outputs;
- each default provider the engine would create, just before the first resource that uses it: a custom resource
  or remote component registered without an explicit provider gets ``pulumi:providers:<package>`` named
  ``default`` or ``default_<major>_<minor>_<patch>`` for the package version the SDK asked for (with
  ``_<download URL as a name>`` when the SDK gave one) (``ProviderRequest.DefaultName``,
  ``pkg/resource/deploy/providers/provider.go``). Its inputs are the stack config of its package, keys without the
  namespace, values as strings, secret ones secret (``Target.GetPackageConfig``), and ``version`` with an empty
  ``__internal`` map (``pluginDownloadURL`` in it when given) (``newRegisterDefaultProviderEvent``,
  ``default_providers.go``; ``SetProviderVersion``, ``SetProviderURL``, ``registry.go``); its outputs the same
  without ``__internal`` (``Registry.Create``); its id what the plan's mocks give every provider resource
  (:func:`~gpu_components.plan.mocks.planned_id`);
- every registered resource after its parent, provider and dependencies, ties by URN (:func:`_ordered`): ``urn``,
  ``custom``, ``id`` (custom resources), ``type``, ``inputs``, ``outputs``, ``parent`` (the stack's URN for a top-level
  resource), ``protect``, ``dependencies``, ``provider`` (``<provider URN>::<provider id>``, the explicit one as the SDK
  sent it or the default one's), ``propertyDependencies``, ``additionalSecretOutputs``, ``aliases``, ``customTimeouts``
  (seconds, as the engine parses the durations given: ``generateTimeoutInSeconds``, ``source_eval.go``), each left out
  at its default, as Go's ``omitempty`` leaves it out (``ResourceV3``). An explicit provider's inputs gain ``version``
  and ``__internal`` as a default provider's do; its outputs are its inputs without ``__internal``. A remote component
  (pulumi-eks's ``Cluster``) has no ``provider``: its state is registered by its provider's own program; the resources
  that program would create are not in the plan, so not here either.

Values: inputs and outputs are the plan's (resource references as the referenced URN). A secret is written in the
schema's "decrypted secret" form, ``{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
"plaintext": "\\"[secret]\\""}``: the plan never learns a secret's value, so the plaintext is the JSON of the mask
``"[secret]"``, never the secret; the document has no ``secrets_providers``, and Pulumi reads a plaintext secret
without one (``DeserializePropertyValue``, ``pkg/resource/stack/deployment.go``), where a ``ciphertext`` would need
the secrets provider that encrypted it. Outputs named in ``additionalSecretOutputs`` are secret, as the engine
stores them. A value unknown in a preview (``"[unknown]"`` in the plan) is the schema's unknown value
``04da6b54-80e4-46f7-96ec-b56ff0331ba9`` (``computedValuePlaceholder``), and so is an unknown id (the engine's
``providers.UnknownID`` for a provider not yet created). Maps are written with sorted keys.

Left out, because the schema (``resources.json``, ``additionalProperties: false``) has no place for them although
``ResourceV3`` does: ``retainOnDelete``, ``ignoreChanges``, ``replaceOnChanges``, ``created``, ``modified``,
``sourcePosition``; ``deleteBeforeReplace`` is not part of a resource's state at all. The JSON plan keeps them
(``options``). The manifest's ``time`` is the plan's fixed timestamp
(:data:`~gpu_components.plan.mock_kit.PLAN_TIMESTAMP`), its ``version`` names this library (no Pulumi engine wrote
the document), its ``magic`` is the SHA-256 of that version in hex (``ManifestV1.NewMagic``), and it lists no
plugins. Provider inputs hold what the program and config gave; the defaults a provider's ``CheckConfig`` would add
are unknown offline. Resources a program reads (``Resource.get``) are not in a plan, so not here: a dependency on
one names a resource the document lacks.
"""

from __future__ import annotations

import graphlib
import hashlib
import importlib.metadata
import json
import math
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeGuard

from gpu_components.plan.mock_kit import PLAN_TIMESTAMP, PROVIDER_TYPE_PREFIX, STACK_TYPE, UNKNOWN
from gpu_components.plan.mocks import SECRET, planned_id
from gpu_components.plan.options import urn_of
from gpu_components.plan.runner import Plan, PlannedResource

__all__ = [
    "DEPLOYMENT_VERSION",
    "FLOAT_SIG",
    "SECRET_SIG",
    "SIG_KEY",
    "UNKNOWN_VALUE",
    "default_provider_name",
    "from_state",
    "is_state",
    "plan_value",
    "state_value",
    "timeout_seconds",
    "to_state",
    "to_state_json",
]

DEPLOYMENT_VERSION = 3
"""The deployment version written (``apitype.DeploymentSchemaVersionCurrent``; version 4 only adds ``features``)."""
SIG_KEY = "4dabf18193072939515e22adb298388d"
"""The key that marks a special property value (``resource.SigKey``; ``property-values.json``)."""
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
"""The signature of a secret (``resource.SecretSig``; ``property-values.json``)."""
FLOAT_SIG = "8ad145fe-0d11-4827-bfd7-1abcbf086f5c"
"""The signature of a NaN or infinite number (``floatSignature``; ``property-values.json``)."""
UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""What state holds for an unknown value or id (``computedValuePlaceholder``, ``providers.UnknownID``)."""

_INTERNAL = "__internal"
_NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
"""The bytes a name may hold, first or later (``nameFirstCharRegexpPattern``, ``nameRestCharRegexpPattern``)."""
_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def to_state_json(plan: Plan) -> str:
    """:func:`to_state` as JSON text: four-space indent (as ``pulumi stack export`` indents), trailing newline."""
    return json.dumps(to_state(plan), indent=4, ensure_ascii=False, allow_nan=False) + "\n"


def to_state(plan: Plan) -> dict[str, Any]:
    """The plan as a Pulumi deployment, version 3 (see the module docstring for every field and its source).

    Args:
        plan: a plan from :func:`~gpu_components.plan.runner.run_program` (or ``run_project``), or made by hand.

    Returns:
        ``{"version": 3, "deployment": {"manifest": {"time", "magic", "version"}, "resources": [...]}}``, plain JSON
        values, the same for the same plan.

    Raises:
        ValueError: a resource's ``customTimeouts`` holds a duration the engine cannot parse (the engine refuses
            that registration: "unable to parse customTimeout Value").
    """
    version = f"gpu-components {importlib.metadata.version('gpu-components')}"
    manifest = {"time": PLAN_TIMESTAMP, "magic": hashlib.sha256(version.encode()).hexdigest(), "version": version}
    stack_urn = urn_of("", STACK_TYPE, f"{plan.project}-{plan.stack}", plan.stack, plan.project)
    stack: dict[str, Any] = {"urn": stack_urn, "custom": False, "type": STACK_TYPE}
    if plan.outputs:
        stack["outputs"] = _properties(plan.outputs)
    resources = [stack, *_resources(plan, stack_urn)]
    return {"version": DEPLOYMENT_VERSION, "deployment": {"manifest": manifest, "resources": resources}}


def _ordered(resources: Sequence[PlannedResource]) -> list[PlannedResource]:
    """The resources in an order the engine's reader accepts, the same on every run: each after its parent, its
    provider and what it depends on (the rule Pulumi's reader checks), ties broken by URN. (The order a program
    registers resources in depends on when its outputs resolve, so it differs from run to run.)"""
    by_urn = {resource.urn: resource for resource in resources}
    graph = graphlib.TopologicalSorter[str]()
    for resource in resources:
        provider = resource.provider_reference.rpartition("::")[0]
        before = {resource.parent, provider, *resource.dependencies}
        before.update(urn for urns in resource.property_dependencies.values() for urn in urns)
        graph.add(resource.urn, *sorted(urn for urn in before if urn in by_urn and urn != resource.urn))
    graph.prepare()
    ordered: list[PlannedResource] = []
    while graph.is_active():
        ready = sorted(graph.get_ready())
        ordered.extend(by_urn[urn] for urn in ready)
        graph.done(*ready)
    return ordered


def _resources(plan: Plan, stack_urn: str) -> Iterator[dict[str, Any]]:
    """Every resource after the stack (:func:`_ordered`), each default provider before its first user."""
    defaults: dict[tuple[str, str, str], str] = {}
    for resource in _ordered(plan.resources):
        reference = resource.provider_reference
        remote = resource.remote and not resource.custom
        if not reference and (_managed(resource) or remote):
            key = (resource.type.split(":", 1)[0], resource.version, resource.plugin_download_url)
            if key not in defaults:
                provider = _default_provider(plan, *key)
                defaults[key] = f"{provider['urn']}::{provider['id']}"
                yield provider
            reference = defaults[key]
        yield _resource(resource, stack_urn, None if remote else reference or None)


def _managed(resource: PlannedResource) -> bool:
    """A custom resource that a provider manages (not a provider resource itself)."""
    return resource.custom and not resource.type.startswith(PROVIDER_TYPE_PREFIX)


def _default_provider(plan: Plan, package: str, version: str, url: str) -> dict[str, Any]:
    """The default provider the engine registers for ``package`` at ``version`` (and download ``url``)."""
    type_ = f"{PROVIDER_TYPE_PREFIX}{package}"
    urn = urn_of("", type_, default_provider_name(version, url), plan.stack, plan.project)
    config = {key.split(":", 1)[1]: value for key, value in plan.config.items() if key.split(":", 1)[0] == package}
    inputs = _provider_inputs(config, version, url)
    return {
        "urn": urn,
        "custom": True,
        "id": _id(planned_id(type_, urn, config)),
        "type": type_,
        "inputs": _properties(inputs),
        "outputs": _properties({k: v for k, v in inputs.items() if k != _INTERNAL}),
    }


def _provider_inputs(inputs: Mapping[str, Any], version: str, url: str) -> dict[str, Any]:
    """A provider resource's inputs as the engine stores them: ``version`` and ``__internal`` added."""
    stored = dict(inputs)
    if version or url:
        internal = dict(stored.get(_INTERNAL) or {})
        if url:
            internal["pluginDownloadURL"] = url
        stored[_INTERNAL] = internal
    if version:
        stored["version"] = version
    return stored


def default_provider_name(version: str, url: str = "") -> str:
    """The name the engine gives a default provider: ``default``, then ``_<major>_<minor>_<patch>``, each
    pre-release and build part of ``version`` after ``_``, and ``_<url as a name>`` for a download URL
    (``ProviderRequest.DefaultName``, ``tokens.IntoQName``).

    Args:
        version: the package version the SDK asked for (semver, e.g. ``7.51.1``), ``""`` for none.
        url: the plugin download URL the SDK asked for, ``""`` for none.

    Raises:
        ValueError: ``version`` is not a semantic version (the engine refuses the registration).
    """
    name = "default"
    if version:
        match = _VERSION.fullmatch(version)
        if match is None:
            raise ValueError(f"provider version {version!r} is not a semantic version such as 7.51.1")
        major, minor, patch, pre, build = match.groups()
        name += f"_{int(major)}_{int(minor or 0)}_{int(patch or 0)}"
        for part in (pre.split(".") if pre else []) + (build.split(".") if build else []):
            name += f"_{part}"
    if url:
        name += f"_{_qname(url)}"
    return name


def _qname(text: str) -> str:
    """``tokens.IntoQName``: each non-empty ``/``-separated segment with every byte a name may not hold (UTF-8)
    replaced by ``_``; ``_`` when nothing is left."""
    segments = [
        "".join(chr(byte) if byte in _NAME_BYTES else "_" for byte in segment.encode())
        for segment in text.split("/")
        if segment
    ]
    return "/".join(segments) or "_"


def _resource(resource: PlannedResource, stack_urn: str, provider: str | None) -> dict[str, Any]:
    """One registered resource as ``ResourceV3``, fields in its order, each left out at its default."""
    options = resource.options
    provider_type = resource.type.startswith(PROVIDER_TYPE_PREFIX)
    inputs: Mapping[str, Any] = resource.inputs
    outputs: Mapping[str, Any] = resource.outputs
    if provider_type:
        inputs = _provider_inputs(inputs, resource.version, resource.plugin_download_url)
        outputs = {k: v for k, v in inputs.items() if k != _INTERNAL}
    secret_outputs = options.get("additionalSecretOutputs", [])
    outputs = {key: SECRET if key in secret_outputs else value for key, value in outputs.items()}
    entry: dict[str, Any] = {"urn": resource.urn, "custom": resource.custom}
    if resource.custom and resource.id:
        entry["id"] = _id(resource.id)
    entry["type"] = resource.type
    if inputs:
        entry["inputs"] = _properties(inputs)
    if outputs:
        entry["outputs"] = _properties(outputs)
    entry["parent"] = resource.parent or stack_urn
    if options.get("protect"):
        entry["protect"] = True
    if resource.dependencies:
        entry["dependencies"] = list(resource.dependencies)
    if provider:
        entry["provider"] = provider
    if resource.property_dependencies:
        entry["propertyDependencies"] = {key: list(urns) for key, urns in resource.property_dependencies.items()}
    if secret_outputs:
        entry["additionalSecretOutputs"] = list(secret_outputs)
    if options.get("aliases"):
        entry["aliases"] = list(options["aliases"])
    timeouts = options.get("customTimeouts")
    if timeouts:
        entry["customTimeouts"] = {
            key: _number(timeout_seconds(value, resource.urn)) for key, value in timeouts.items() if value
        }
    return entry


def _id(value: str) -> str:
    return UNKNOWN_VALUE if value == UNKNOWN else value


def timeout_seconds(duration: str, urn: str = "") -> float:
    """A custom timeout as the engine stores it: Go's ``time.ParseDuration`` of the text, in seconds.

    Args:
        duration: e.g. ``30m``, ``1h30m``, ``1.5h``, ``90s`` (units ``ns``, ``us``, ``ms``, ``s``, ``m``, ``h``).
        urn: the resource the timeout belongs to, for the error message.

    Raises:
        ValueError: not a Go duration (the engine refuses such a registration).
    """
    text = duration.strip()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    if not body or _DURATION_PART.sub("", body):
        where = f" of {urn}" if urn else ""
        raise ValueError(
            f"customTimeouts{where}: {duration!r} is not a duration the Pulumi engine parses "
            "(Go time.ParseDuration: numbers with units ns, us, ms, s, m, h, e.g. 30m or 1h30m)"
        )
    return sign * sum(float(number) * _SECONDS[unit] for number, unit in _DURATION_PART.findall(body))


def _number(value: float) -> float | int:
    """A float as Go's encoding/json writes it: integral values without a fraction."""
    return int(value) if value.is_integer() else value


def _properties(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: state_value(values[key]) for key in sorted(values)}


def state_value(value: Any) -> Any:
    """A plan value (plain, masked) as a property value of Pulumi's state (``property-values.json``).

    ``"[secret]"`` becomes a decrypted secret whose plaintext is the JSON of the mask (the module docstring says
    why), ``"[unknown]"`` the unknown value ``04da6b54-80e4-46f7-96ec-b56ff0331ba9``, a NaN or infinite number
    Pulumi's float form (its IEEE 754 bits as 16 hex digits: ``SerializePropertyValue``); maps (keys sorted) and
    lists are converted item by item; other values are unchanged.
    """
    if value == SECRET:
        return {SIG_KEY: SECRET_SIG, "plaintext": json.dumps(SECRET)}
    if value == UNKNOWN:
        return UNKNOWN_VALUE
    if isinstance(value, Mapping):
        return _properties(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [state_value(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        # JSON has no NaN or infinity: Pulumi writes the IEEE 754 bits in hex under its float signature.
        return {SIG_KEY: FLOAT_SIG, "value": struct.pack(">d", value).hex()}
    return value


def is_state(document: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether a parsed document is a deployment (``{"version", "deployment": {"resources": [...]}}``, what
    :func:`to_state` and ``pulumi stack export`` write) rather than a JSON plan."""
    deployment = document.get("deployment") if isinstance(document, Mapping) else None
    # `pulumi stack export` of a stack with no resources leaves `resources` out (Pulumi's DeploymentV3, omitempty).
    return isinstance(deployment, Mapping) and isinstance(deployment.get("resources", []), list)


def from_state(document: Mapping[str, Any]) -> dict[str, Any]:
    """A deployment (:func:`is_state`) read back as the JSON plan document the diff compares
    (:func:`~gpu_components.plan.render.to_json`'s shape), so that a plan can be diffed against a stack's state.

    The stack resource gives ``project``, ``stack`` and ``outputs`` (without one, the URNs give the names; a
    deployment with no resources, or none listed, is an empty stack of no name, which the diff takes as the other
    side's); each default provider (``pulumi:providers:<pkg>``
    named ``default...``) gives the stack config of its package (``<pkg>:<key>``, its inputs but ``version`` and
    ``__internal``), as the plan's ``config`` holds it; every other resource keeps ``urn``, ``type``, its name (the
    URN's last part), ``parent`` (None for a top-level one), ``custom``, ``inputs`` (an explicit provider's without
    the ``version`` and ``__internal`` the engine adds) and the options state keeps: ``provider`` (an explicit one's
    URN), ``protect``, ``aliases``, ``additionalSecretOutputs``. Values are read back as the plan writes them
    (:func:`plan_value`). What state does not keep (``ignoreChanges``, ``replaceOnChanges``, ``retainOnDelete``,
    ``deleteBeforeReplace``, config that no provider reads) is absent.

    Raises:
        ValueError: a resource lacks ``urn`` or ``type``.
    """
    deployment = document["deployment"]
    stack_urn, project, stack = "", "", ""
    outputs: Mapping[str, Any] = {}
    config: dict[str, Any] = {}
    defaults: set[str] = set()
    records: list[Mapping[str, Any]] = []
    for index, resource in enumerate(deployment.get("resources", [])):
        if not isinstance(resource, Mapping) or not isinstance(resource.get("urn"), str) or "type" not in resource:
            raise ValueError(f"the deployment's resources[{index}] needs 'urn' and 'type'")
        urn, type_ = resource["urn"], str(resource["type"])
        name = urn.rsplit("::", 1)[-1]
        if type_ == STACK_TYPE:
            stack_urn, outputs = urn, resource.get("outputs") or {}
            stack, project = urn.split("::")[0].removeprefix("urn:pulumi:"), urn.split("::")[1]
        elif type_.startswith(PROVIDER_TYPE_PREFIX) and name.startswith("default"):
            defaults.add(urn)
            package = type_.removeprefix(PROVIDER_TYPE_PREFIX)
            for key, value in (resource.get("inputs") or {}).items():
                if key not in (_INTERNAL, "version"):
                    config[f"{package}:{key}"] = plan_value(value)
        else:
            records.append(resource)
    if not stack and records:  # no Stack resource: every URN names the stack and project too
        stack, project = (
            str(records[0]["urn"]).split("::")[0].removeprefix("urn:pulumi:"),
            records[0]["urn"].split("::")[1],
        )
    resources = [_plan_record(resource, stack_urn, defaults) for resource in records]
    return {
        "project": project,
        "stack": stack,
        "config": config,
        "resources": sorted(resources, key=lambda r: str(r["urn"])),
        "outputs": plan_value(outputs),
    }


def _plan_record(resource: Mapping[str, Any], stack_urn: str, defaults: set[str]) -> dict[str, Any]:
    urn, type_ = str(resource["urn"]), str(resource["type"])
    inputs = plan_value(resource.get("inputs") or {})
    if type_.startswith(PROVIDER_TYPE_PREFIX):
        inputs = {key: value for key, value in inputs.items() if key not in (_INTERNAL, "version")}
    options: dict[str, Any] = {}
    provider = str(resource.get("provider") or "").rpartition("::")[0]
    if provider and provider not in defaults:
        options["provider"] = provider
    for key in ("protect", "aliases", "additionalSecretOutputs"):
        if resource.get(key):
            options[key] = resource[key]
    parent = resource.get("parent")
    return {
        "urn": urn,
        "type": type_,
        "name": urn.rsplit("::", 1)[-1],
        "parent": None if parent in (None, stack_urn) or f"::{STACK_TYPE}::" in str(parent) else parent,
        "custom": resource.get("custom") is True,
        "inputs": inputs,
        "options": options,
    }


def plan_value(value: Any) -> Any:
    """A property value of Pulumi's state as the plan writes it, :func:`state_value` undone: a secret is
    ``"[secret]"`` (its plaintext or ciphertext never read), the unknown value ``"[unknown]"``, Pulumi's float form
    the number; maps and lists item by item."""
    if isinstance(value, Mapping):
        if value.get(SIG_KEY) == SECRET_SIG:
            return SECRET
        if value.get(SIG_KEY) == FLOAT_SIG and isinstance(value.get("value"), str):
            return struct.unpack(">d", bytes.fromhex(value["value"]))[0]
        return {key: plan_value(item) for key, item in value.items()}
    if value == UNKNOWN_VALUE:
        return UNKNOWN
    if isinstance(value, list):
        return [plan_value(item) for item in value]
    return value
