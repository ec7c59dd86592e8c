"""The Pulumi SDK's private APIs that the offline plan uses: every one of them, imported here and nowhere else.

The plan runs a program the way ``pulumi up`` would, under the SDK's mocks, and needs a few things the SDK keeps
private. Each was checked on the pulumi versions in :data:`CHECKED_ON` (the one in ``uv.lock`` first);
``tests/plan/test_pulumi_internals.py`` checks that each still exists and behaves as the plan relies on, so an SDK
release that moves one fails that named test instead of a plan. Public APIs (``pulumi.runtime.set_mocks``,
``Mocks``, ``MockResourceArgs``, ``MockCallArgs``, ``register_stack_transformation``, ``pulumi.get_stack``) are not
listed.

================================  =========================  =======================================================
name here                         SDK name                   why the plan needs it
================================  =========================  =======================================================
``Stack``                         ``runtime.stack.Stack``    the root resource ``set_mocks`` creates; its
                                                             ``outputs`` are the program's exports
``run_pulumi_func``               ``runtime.stack``          runs the program and waits for every pending output
``massage``                       ``runtime.stack``          turns exports into the values ``pulumi up`` records
``serialize_properties``          ``runtime.rpc``            the wire form of the exports (secrets kept marked)
``WIRE_UNKNOWN``                  ``runtime.rpc.UNKNOWN``    the wire value of an unknown output: what a preview's
                                                             computed outputs are
``SIG_KEY``, ``*_SIG``            ``runtime.rpc._special_*`` the wire markers of secrets, resource references,
                                                             output values, assets and archives (Pulumi's
                                                             property-value spec)
``settings``                      ``runtime.settings``       ``ROOT`` and ``SETTINGS`` (``outputs``, ``lock``,
                                                             ``package_refs``, ``base_providers_by_ref``): a fresh
                                                             root and per-run state, which ``set_mocks`` leaves
                                                             alone; ``get_root_resource`` and ``get_monitor``
``MockMonitor``                   ``runtime.mocks``          the monitor the plan extends to record registrations
                                                             (``resources``, ``ResourceRegistration``)
``provider_pb2``,                 ``runtime.proto``          the messages of the monitor calls the plan overrides
``resource_pb2``
``output_properties``             ``_types.resource_py_to_`` a resource class's output properties (Python name ->
                                  ``pulumi_names``           Pulumi name), as the SDK reads them to resolve a
                                                             registration's outputs
``output_types``                  ``_types.resource_types``  a resource class's output properties' types (Pulumi
                                                             name -> type, ``Output`` and ``Optional`` unwrapped):
                                                             the value the plan derives for a computed output
``construct_inputs``,             ``provider.server.``       what the SDK's provider server makes of the engine's
``construct_options``             ``ProviderServicer.``      ``ConstructRequest`` (inputs deserialized with unknowns
                                  ``_construct_inputs``,     kept, secret or dependent ones as outputs; the
                                  ``_construct_options``     request's options as ``ResourceOptions``): the offline
                                                             plan of a YAML program constructs components as the
                                                             plugin would
``alias_pb2``                     ``runtime.proto``          the alias message of a ``ConstructRequest``
``engine_pb2``                    ``runtime.proto``          the log severities of the engine's ``Log`` call, which
                                                             the plan's engine serves (a message names its resource)
``serialize_with_output_values``  ``runtime.rpc.``           a remote component's inputs as the engine forwards them
                                  ``serialize_properties``   (Pulumi YAML's Go SDK registers a remote component with
                                  with ``settings.SETTINGS.`` output values): secret and dependent leaves as output
                                  ``monitor_features``       values, which the mock monitor does not offer
``construct_response``            ``provider.server.``       the state a component's ``Construct`` returns, as the
                                  ``ProviderServicer.``      SDK's provider server serializes it for the engine
                                  ``_construct_response``    (mappings become objects, unknowns and secrets marked)
``input_parameters``              a generated class's        the inputs a provider SDK's resource class takes (its
                                  ``_internal_init``         generated constructor body, which every Pulumi provider
                                                             SDK's code generator writes): with
                                                             ``output_properties``, which outputs are computed, so
                                                             unknown in a preview
================================  =========================  =======================================================
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from typing import Any, cast

from pulumi import _types
from pulumi.provider.server import ProviderServicer as _ProviderServicer
from pulumi.runtime import rpc as _rpc
from pulumi.runtime import settings
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.proto import alias_pb2, provider_pb2, resource_pb2
from pulumi.runtime.proto import engine_pb2 as engine_pb2
from pulumi.runtime.stack import Stack, massage, run_pulumi_func

CHECKED_ON: dict[str, tuple[str, ...]] = {
    "pulumi": ("3.272.0",),
    # The provider SDKs whose generated classes `input_parameters` and `output_types` read.
    "pulumi-kubernetes": ("4.34.2",),
    "pulumi-aws": ("7.51.1",),
    "pulumi-eks": ("4.4.0",),
    "pulumi-azure-native": ("3.29.0",),
    "pulumi-gcp": ("10.2.0",),
}
"""Distribution -> the versions the plan and its tests were run on with these APIs."""

serialize_properties = _rpc.serialize_properties
construct_inputs = _ProviderServicer._construct_inputs
construct_options = _ProviderServicer._construct_options
WIRE_UNKNOWN: str = _rpc.UNKNOWN
SIG_KEY: str = _rpc._special_sig_key
SECRET_SIG: str = _rpc._special_secret_sig
RESOURCE_SIG: str = _rpc._special_resource_sig
OUTPUT_VALUE_SIG: str = _rpc._special_output_value_sig
ASSET_SIG: str = _rpc._special_asset_sig
ARCHIVE_SIG: str = _rpc._special_archive_sig


async def serialize_with_output_values(inputs: Mapping[str, Any], property_deps: dict[str, list[Any]]) -> Any:
    """``inputs`` serialized to the protobuf ``Struct`` of a ``ConstructRequest``, each secret or dependent value an
    output value where it sits (``{"4dabf18193072939515e22adb298388d": "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value":
    ..., "secret": true, "dependencies": [...]}``), as the engine forwards the inputs of a remote component that Pulumi
    YAML's Go SDK registers with output values. The SDK keeps output values only when the monitor reports the
    ``outputValues`` feature, which its mock monitor does not: the feature is added for this serialization alone, in
    a task of its own (``monitor_features`` is a context variable, so the run's own registrations are untouched).
    ``property_deps`` receives each top-level key's resources."""

    async def serialize() -> Any:
        features = settings.SETTINGS.monitor_features
        settings.SETTINGS.monitor_features = {*features, resource_pb2.RESOURCE_MONITOR_FEATURE_OUTPUT_VALUES}
        return await _rpc.serialize_properties(inputs, property_deps, keep_output_values=True)

    return await asyncio.create_task(serialize())


async def construct_response(result: Any) -> Any:
    """The ``ConstructResponse`` the SDK's provider server sends the engine for a ``ConstructResult``: its ``urn``,
    its ``state`` serialized (``rpc.serialize_properties``, ``id`` and ``urn`` left out, ``None`` values left out)
    and ``stateDependencies``."""
    return await _ProviderServicer._construct_response(cast(Any, None), result)


def output_properties(cls: type) -> dict[str, str]:
    """The output properties of resource class ``cls``: Python name -> Pulumi name (``id`` and ``urn`` included)."""
    return _types.resource_py_to_pulumi_names(cls)


def output_types(cls: type) -> dict[str, Any]:
    """The types of resource class ``cls``'s output properties: Pulumi name -> type (``Output[T]`` and
    ``Optional[T]`` unwrapped to ``T``)."""
    return _types.resource_types(cls)


def input_parameters(cls: type) -> frozenset[str]:
    """The Python names of the inputs resource class ``cls`` takes: the parameters of its generated
    ``_internal_init`` (none for a class without one, such as a component written in Python)."""
    init = getattr(cls, "_internal_init", None)
    return frozenset(inspect.signature(init).parameters) if init is not None else frozenset()


__all__ = [
    "ARCHIVE_SIG",
    "ASSET_SIG",
    "CHECKED_ON",
    "OUTPUT_VALUE_SIG",
    "RESOURCE_SIG",
    "SECRET_SIG",
    "SIG_KEY",
    "WIRE_UNKNOWN",
    "MockMonitor",
    "Stack",
    "alias_pb2",
    "construct_inputs",
    "construct_options",
    "construct_response",
    "input_parameters",
    "massage",
    "output_properties",
    "output_types",
    "provider_pb2",
    "resource_pb2",
    "run_pulumi_func",
    "serialize_properties",
    "serialize_with_output_values",
    "settings",
]
