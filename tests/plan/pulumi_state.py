"""Read a deployment the way Pulumi does: its JSON schemas, then the checks its Go reader makes.

:func:`schema_errors` validates against Pulumi's own schemas (unchanged copies in ``tests/reference/pulumi/``,
joined by a ``referencing`` registry under their ``$id``\\ s, as ``pkg/resource/stack/deployment.go`` compiles them).
:func:`reader_errors` applies, in our words, the rules Pulumi's Go code enforces when it turns an exported
deployment into a snapshot (``pulumi stack import``), each read from ``pulumi/pulumi`` at ``1b5949891b3c``:

- ``UnmarshalUntypedDeployment``: version 1..4; version 4 and up list only supported ``features``.
- ``DeserializeResource``: a non-empty ``urn`` and ``type``; no ``id`` on a resource that is not custom.
- ``DeserializePropertyValue``: an object with the signature key is one of the known special values; a secret
  holds exactly one of ``ciphertext`` or ``plaintext``, a plaintext is JSON; a ciphertext needs the deployment's
  ``secrets_providers``; a resource reference has a string ``urn``.
- ``Snapshot.VerifyIntegrity`` (``pkg/resource/deploy/snapshot.go``): the manifest's ``magic`` is the SHA-256 of
  its ``version`` (``ManifestV1.NewMagic``); a provider resource is referenceable (``<urn>::<id>`` with an id);
  each resource's ``provider`` names a provider resource that comes before it; its ``parent``, ``dependencies`` and
  ``propertyDependencies`` name resources that come before it; no URN twice.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "pulumi"
SCHEMA_FILES = ("deployments.json", "resources.json", "property-values.json")
"""Pulumi's schemas of an exported deployment: the document, a resource, a property value."""

SIG_KEY = "4dabf18193072939515e22adb298388d"
SIGNATURES = {
    "c44067f5952c0a294b673a41bacd8c17": "asset",
    "0def7320c3a5731c473e5ecbe6d01bc7": "archive",
    "1b47061264138c4ac30d75fd1eb44270": "secret",
    "5cf8f73096256a8f31e491e813e4eb8e": "resource reference",
    "803fd3297a5875dc03ca845dda5d2a98": "byte string",
    "8ad145fe-0d11-4827-bfd7-1abcbf086f5c": "float",
}
"""The signatures ``DeserializePropertyValue`` knows (``asset.AssetSig``, ``archive.ArchiveSig``,
``resource.SecretSig``, ``resource.ResourceReferenceSig``, ``resource.ByteStringSig``, ``floatSignature``)."""
SUPPORTED_FEATURES = frozenset(
    {
        "refreshBeforeUpdate",
        "views",
        "hooks",
        "taint",
        "replaceWith",
        "snippets-prototype",
        "extensionParameterization",
        "byteString",
    }
)
"""``supportedFeatures`` of ``deployment.go``."""


@cache
def validator() -> jsonschema.Draft202012Validator:
    """A validator of ``deployments.json`` that resolves its ``$ref``\\ s to the two other files."""
    schemas = [json.loads((REFERENCE / name).read_text()) for name in SCHEMA_FILES]
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas
    )
    return jsonschema.Draft202012Validator(
        schemas[0], registry=registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def schema_errors(document: Any) -> list[str]:
    """Every schema violation, as ``<path>: <message>``; empty when the document is valid."""
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator().iter_errors(document)
    ]


def reader_errors(document: dict[str, Any]) -> list[str]:
    """What Pulumi's Go reader would refuse in a schema-valid deployment (the module docstring lists the rules)."""
    problems: list[str] = []
    version = document["version"]
    if not 1 <= version <= 4:
        problems.append(f"deployment version {version} is not one Pulumi reads (1..4)")
    unsupported = sorted(set(document.get("features", [])) - SUPPORTED_FEATURES) if version >= 4 else []
    if unsupported:
        problems.append(f"unsupported features {unsupported}")
    deployment = document["deployment"]
    manifest = deployment["manifest"]
    if manifest["magic"] != hashlib.sha256(manifest["version"].encode()).hexdigest():
        problems.append("magic cookie mismatch")
    has_secrets_provider = bool(deployment.get("secrets_providers", {}).get("type"))
    seen: set[str] = set()
    providers: set[str] = set()
    for index, resource in enumerate(deployment.get("resources", [])):
        urn, type_ = resource.get("urn", ""), resource.get("type", "")
        if not urn or not type_:
            problems.append(f"resource {index} lacks its urn or type")
        if not resource.get("custom") and resource.get("id"):
            problems.append(f"{urn}: not custom but has an id")
        if urn in seen:
            problems.append(f"{urn}: twice")
        for key in ("inputs", "outputs"):
            for name, value in resource.get(key, {}).items():
                problems.extend(f"{urn} {key}.{name}: {p}" for p in _value_problems(value, has_secrets_provider))
        if type_.startswith("pulumi:providers:"):
            if not resource.get("id"):
                problems.append(f"{urn}: a provider without an id cannot be referenced")
            providers.add(f"{urn}::{resource.get('id', '')}")
        provider = resource.get("provider")
        if provider and provider not in providers:
            problems.append(f"{urn}: provider {provider} is not a provider resource before it")
        earlier = [("parent", resource["parent"])] if "parent" in resource else []
        earlier += [("dependency", dep) for dep in resource.get("dependencies", [])]
        earlier += [
            (f"property dependency ({key})", dep)
            for key, deps in resource.get("propertyDependencies", {}).items()
            for dep in deps
        ]
        problems.extend(f"{urn}: its {kind} {dep} is not before it" for kind, dep in earlier if dep not in seen)
        seen.add(urn)
    return problems


def _value_problems(value: Any, has_secrets_provider: bool) -> list[str]:
    if isinstance(value, list):
        return [problem for item in value for problem in _value_problems(item, has_secrets_provider)]
    if not isinstance(value, dict):
        return []
    if SIG_KEY not in value:
        return [problem for item in value.values() for problem in _value_problems(item, has_secrets_provider)]
    kind = SIGNATURES.get(value[SIG_KEY])
    if kind is None:
        return [f"unrecognized signature {value[SIG_KEY]!r}"]
    if kind == "secret":
        if ("ciphertext" in value) == ("plaintext" in value):
            return ["a secret needs exactly one of ciphertext and plaintext"]
        if "ciphertext" in value and not has_secrets_provider:
            return ["a ciphertext secret without a secrets provider cannot be decrypted"]
        if "plaintext" in value:
            try:
                return _value_problems(json.loads(value["plaintext"]), has_secrets_provider)
            except (TypeError, json.JSONDecodeError):
                return ["a secret's plaintext is not JSON"]
    if kind == "resource reference" and not isinstance(value.get("urn"), str):
        return ["a resource reference without a urn"]
    return []
