"""The Pulumi SDK's private APIs that the plan uses (all in ``gpu_components.plan._pulumi_internals``) still exist
and mean what the plan takes them to mean. The wire markers are checked against Pulumi's own property-value schema
(``tests/reference/pulumi/property-values.json``, a copy of ``sdk/go/common/apitype/property-values.json``)."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any, Literal, cast

import pulumi

from gpu_components.plan import _pulumi_internals as internals

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "reference" / "pulumi" / "property-values.json").read_text())


def schema_entry(title: str) -> dict[str, Any]:
    entries = [entry for entry in SCHEMA["oneOf"] if entry.get("title") == title]
    assert len(entries) == 1, [entry.get("title") for entry in SCHEMA["oneOf"]]
    return dict(entries[0])


def signature(title: str) -> str:
    return str(schema_entry(title)["properties"][internals.SIG_KEY]["const"])


def test_the_signature_key_is_the_one_the_schema_reserves() -> None:
    assert list(schema_entry("Object property values")["properties"]) == [internals.SIG_KEY]


def test_wire_markers_are_the_schemas_signatures() -> None:
    assert (
        signature("Secret Property Values"),
        signature("Resource reference property values"),
        signature("Asset property values"),
        signature("Archive property values"),
    ) == (internals.SECRET_SIG, internals.RESOURCE_SIG, internals.ASSET_SIG, internals.ARCHIVE_SIG)
    assert schema_entry("Unknown property values")["const"] == internals.WIRE_UNKNOWN


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def test_the_installed_pulumi_and_provider_sdks_are_checked_versions() -> None:
    # A cloud's SDK that is not installed (an environment with one cloud's extra) is not used by the plan.
    installed = {name: _version(name) for name in internals.CHECKED_ON if _version(name) is not None}
    assert "pulumi" in installed
    assert {name: version for name, version in installed.items() if version not in internals.CHECKED_ON[name]} == {}


def test_settings_and_monitor_carry_the_attributes_the_runner_resets() -> None:
    for name in ("outputs", "lock", "package_refs", "base_providers_by_ref"):
        assert hasattr(internals.settings.SETTINGS, name), name
    assert callable(internals.settings.get_root_resource)
    assert callable(internals.settings.get_monitor)
    assert isinstance(internals.MockMonitor.ResourceRegistration, type)
    assert {"Invoke", "RegisterResource", "ReadResource"} <= set(vars(internals.MockMonitor))
    assert issubclass(internals.Stack, pulumi.ComponentResource)


def test_a_resource_class_declares_its_outputs_and_its_constructor_its_inputs() -> None:
    import pulumi_kubernetes as k8s

    outputs = internals.output_properties(k8s.apps.v1.Deployment)
    assert {python: outputs[python] for python in ("api_version", "metadata", "spec", "status")} == {
        "api_version": "apiVersion",
        "metadata": "metadata",
        "spec": "spec",
        "status": "status",
    }
    assert {"api_version", "kind", "metadata", "spec"} <= internals.input_parameters(k8s.apps.v1.Deployment)
    assert "status" not in internals.input_parameters(k8s.apps.v1.Deployment)
    assert internals.input_parameters(pulumi.ComponentResource) == frozenset()
    types = internals.output_types(k8s.apps.v1.Deployment)
    assert (types["apiVersion"], types["status"]) == (Literal["apps/v1"], k8s.apps.v1.outputs.DeploymentStatus)


def test_the_provider_servers_construct_helpers_turn_a_request_into_inputs_and_options() -> None:
    """What the YAML plan relies on: the inputs of a ``ConstructRequest`` arrive deserialized, numbers as floats, a
    value without dependencies plain; its options become ``ResourceOptions`` (providers from ``<urn>::<id>``)."""
    import asyncio

    from google.protobuf import struct_pb2

    request = internals.provider_pb2.ConstructRequest(
        type="gpu-components:index:GpuCluster",
        name="gpus",
        protect=True,
        dependencies=["urn:pulumi:dev::p::kubernetes:core/v1:Namespace::ns"],
        aliases=[internals.alias_pb2.Alias(urn="urn:pulumi:dev::p::gpu-components:index:GpuCluster::old")],
    )
    inputs = struct_pb2.Struct()
    inputs.update({"pools": [{"maxSize": 2}]})
    request.inputs.CopyFrom(inputs)
    loop = asyncio.new_event_loop()
    try:
        decoded = loop.run_until_complete(internals.construct_inputs(request.inputs, request.inputDependencies))
    finally:
        loop.close()
    assert decoded == {"pools": [{"maxSize": 2.0}]}
    assert isinstance(decoded["pools"][0]["maxSize"], float)
    options = internals.construct_options(request)
    assert options.protect is True
    assert options.aliases == ["urn:pulumi:dev::p::gpu-components:index:GpuCluster::old"]
    assert [type(dependency).__name__ for dependency in cast(list[Any], options.depends_on)] == ["DependencyResource"]


def test_component_inputs_keep_output_values_and_a_construct_result_serializes_as_the_server_sends_it() -> None:
    """What the YAML plan relies on: a secret leaf inside an object serializes as an output value where it sits (the
    monitor's features are untouched afterwards), and a component's state serializes its mappings as objects."""
    import asyncio
    from types import MappingProxyType

    from google.protobuf import json_format
    from pulumi.provider.provider import ConstructResult

    async def run() -> tuple[Any, Any, set[int]]:
        before = set(internals.settings.SETTINGS.monitor_features)
        deps: dict[str, list[Any]] = {}
        inputs = await internals.serialize_with_output_values(
            {"aws": {"clusterName": pulumi.Output.secret("demo"), "region": "us-west-2"}}, deps
        )
        result = ConstructResult(
            urn="urn:pulumi:dev::p::gpu-components:index:EksGpuNodeGroup::l4",
            state={"taints": [MappingProxyType({"key": "nvidia.com/gpu", "effect": "NoSchedule"})], "note": None},
        )
        response = await internals.construct_response(result)
        return inputs, response, set(internals.settings.SETTINGS.monitor_features) ^ before

    loop = asyncio.new_event_loop()
    try:
        inputs, response, features = loop.run_until_complete(run())
    finally:
        loop.close()
    assert json_format.MessageToDict(inputs) == {
        "aws": {
            "clusterName": {internals.SIG_KEY: internals.OUTPUT_VALUE_SIG, "value": "demo", "secret": True},
            "region": "us-west-2",
        }
    }
    assert features == set()  # none added or removed
    assert response.urn == "urn:pulumi:dev::p::gpu-components:index:EksGpuNodeGroup::l4"
    assert json_format.MessageToDict(response.state) == {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}
