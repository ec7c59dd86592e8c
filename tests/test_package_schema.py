"""The package schema Pulumi's analyzer infers from the components: committed as ``schema.json``, valid against
Pulumi's package metaschema (``tests/reference/pulumi/pulumi.json``), every component under its token, every property
described."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest
import regress
from jsonschema.exceptions import ValidationError

from gpu_components.package import COMPONENTS, PACKAGE_NAME, package_schema, package_version
from tests.helpers import ROOT

METASCHEMA = json.loads((ROOT / "tests" / "reference" / "pulumi" / "pulumi.json").read_text())


def _ecma_pattern(
    validator: jsonschema.protocols.Validator, pattern: str, instance: object, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """JSON Schema's ``pattern`` as the specification has it, an ECMA-262 regular expression: the metaschema's
    version patterns use ECMA's named groups ``(?<major>...)``, which Python's ``re`` does not read."""
    if isinstance(instance, str) and regress.Regex(pattern).find(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


PackageSchemaValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern})


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return package_schema()


def test_the_committed_schema_is_what_the_analyzer_infers(schema: dict[str, Any]) -> None:
    """``schema.json`` is rewritten by ``make schema``; this fails when the components' types changed without it."""
    committed = json.loads((ROOT / "schema.json").read_text())
    assert committed == schema, "schema.json is stale: run `make schema` and review the diff"


def test_the_schema_validates_against_pulumis_package_metaschema(schema: dict[str, Any]) -> None:
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in PackageSchemaValidator(METASCHEMA).iter_errors(schema)
    ]
    assert errors == []


def test_the_metaschema_check_catches_a_broken_schema(schema: dict[str, Any]) -> None:
    broken = {**schema, "version": "one", "resources": {"gpu-components:index:GpuCluster": {"isComponent": "yes"}}}
    messages = sorted(e.message for e in PackageSchemaValidator(METASCHEMA).iter_errors(broken))
    assert any("'one' does not match" in message for message in messages)
    assert "'yes' is not of type 'boolean'" in messages


def test_every_public_component_is_a_component_resource_under_its_token(schema: dict[str, Any]) -> None:
    assert (schema["name"], schema["version"]) == (PACKAGE_NAME, package_version())
    assert sorted(schema["resources"]) == sorted(f"gpu-components:index:{c.__name__}" for c in COMPONENTS)
    assert {token: resource.get("isComponent") for token, resource in schema["resources"].items()} == dict.fromkeys(
        schema["resources"], True
    )
    assert "dependencies" not in schema or schema["dependencies"] == []  # no other package's types cross over


def _properties(schema: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for token, resource in schema["resources"].items():
        for kind in ("inputProperties", "properties"):
            for name, prop in resource.get(kind, {}).items():
                yield f"{token}.{kind}.{name}", prop
    for token, type_ in schema["types"].items():
        for name, prop in type_.get("properties", {}).items():
            yield f"{token}.{name}", prop


def test_every_property_has_a_description(schema: dict[str, Any]) -> None:
    undescribed = [where for where, prop in _properties(schema) if not prop.get("description", "").strip()]
    assert undescribed == []
    assert len(list(_properties(schema))) > 100  # the walk reaches every component's inputs, outputs and types


def test_every_type_and_component_has_a_description(schema: dict[str, Any]) -> None:
    described = {**schema["resources"], **schema["types"]}
    assert [token for token, spec in described.items() if not spec.get("description", "").strip()] == []


def _descriptions(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _descriptions(item)


def test_descriptions_are_written_for_the_generated_sdks_readers(schema: dict[str, Any]) -> None:
    """Dedented Markdown (no reST literals or Sphinx roles), and the package's own properties in camelCase."""
    texts = list(_descriptions(schema))
    assert [t for t in texts if "``" in t or ":class:" in t or ":meth:" in t or "\n\n    " in t] == []
    desired = schema["types"]["gpu-components:index:ClusterPoolArgs"]["properties"]["desiredSize"]["description"]
    assert desired == (
        "Nodes at creation of a fixed pool, between `minSize` and `maxSize`; afterwards the Cluster Autoscaler\n"
        "owns the count. Defaults to `minSize`."
    )


def test_an_escape_hatchs_description_keeps_the_sdks_snake_case_names(schema: dict[str, Any]) -> None:
    """``nodeGroupArgs`` takes ``pulumi_aws.eks.NodeGroup``'s arguments as that SDK spells them: its description must
    not camelCase them, even where a name matches one of the package's own properties (``node_group_name``)."""
    text = schema["resources"]["gpu-components:index:EksGpuNodeGroup"]["inputProperties"]["nodeGroupArgs"][
        "description"
    ]
    assert "(e.g. `update_config`,\n`node_group_name`, `release_version`)" in text
    assert "`cluster_name`" in text
    assert "nodeGroupName" not in text
