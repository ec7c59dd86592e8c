"""Pulumi mocks with realistic, deterministic outputs, used to plan a program offline.

`PlanMocks` answers resource registrations and invokes the way the providers would, closely
enough that programs which read outputs (ARNs, endpoints, kubeconfigs, emails) keep going, including
into `apply` callbacks that create more resources. `PlanMonitor` is the mock resource monitor that
records every registration (custom resources, component resources and remote components) with its
parent and its inputs as the engine sees them, and gives resources engine-style URNs.

Which outputs a resource has, and their types, come from its class in the provider's SDK (learned from each
registration, :meth:`PlanMocks.learn_resource_class`): its computed outputs (outputs that are not inputs,
:func:`computed_outputs`) are unknown in a preview, and after ``pulumi up`` each gets a value of its type
(:func:`derived_outputs`) unless a mock gives one. Mocks give only identities and the values other resources or
invokes read: each cloud's live in its package (``gpu_components.<cloud>.plan_mocks``, no cloud SDK), a
:class:`~gpu_components.plan.mock_kit.ProviderMocks` table of mocks by resource type, remote component type, invoke
token and provider package (the package's fallback gives any resource of it its id and identity: ARN, ARM id, self
link), gathered in :data:`CLOUD_MOCKS`. This
module holds the machinery and pulumi-kubernetes's objects and Helm releases, and looks a registration up in every
table.

Every value is a function of the resource's URN, its inputs, the stack config or the invoke's arguments: no
randomness, no clock (:mod:`gpu_components.plan.mock_kit`). Physical names that the providers would auto-generate
are `<logical name>-<hex>` with the hex taken from a SHA-256 of the URN (7 characters for cloud resources, 8 for
Kubernetes objects, matching the lengths the providers use).

Invokes without a mock raise `MissingMockError` naming the token, so a missing mock is found rather than silently
returning an empty result; so does a remote component without a mock whose SDK class is not known (under the SDK's
own mock monitor).
"""

from __future__ import annotations

import asyncio
import collections.abc
import contextvars
import difflib
import functools
import importlib
import threading
import typing
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple, cast

import pulumi
from google.protobuf import struct_pb2  # type: ignore[import-untyped]
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs, Mocks

from gpu_components.cloud_facts import CLOUDS
from gpu_components.plan._pulumi_internals import (
    ARCHIVE_SIG,
    ASSET_SIG,
    OUTPUT_VALUE_SIG,
    RESOURCE_SIG,
    SECRET_SIG,
    SIG_KEY,
    WIRE_UNKNOWN,
    MockMonitor,
    input_parameters,
    output_properties,
    output_types,
    provider_pb2,
    resource_pb2,
)
from gpu_components.plan.call_sites import mark
from gpu_components.plan.mock_kit import (
    MOCKS_FILE,
    PLAN_TIMESTAMP,
    PROVIDER_TYPE_PREFIX,
    STACK_TYPE,
    UNKNOWN,
    MissingMockError,
    MockInvoke,
    MockResource,
    Outputs,
    ProviderMocks,
    ResourceMock,
    UserMocks,
    hex_of,
    uuid_of,
)
from gpu_components.plan.options import identity_of, recorded_options, urn_of

__all__ = [
    "PLAN_TIMESTAMP",
    "SECRET",
    "UNKNOWN",
    "MissingMockError",
    "PlanMocks",
    "PlanMonitor",
    "Registration",
    "planned_id",
    "to_plain",
]

SECRET = "[secret]"
"""What a secret value becomes in a recorded plan."""


class DuplicateResourceError(ValueError):
    """Two resources with one URN (same type, name and parent): the Pulumi engine refuses such a program."""

    def __init__(self, urn: str) -> None:
        super().__init__(f"duplicate resource URN {urn}: give each resource a unique name")
        self.urn = urn


# --------------------------------------------------------------------------------------------------
# Plain values from the wire format


def to_plain(value: Any, *, mask_secrets: bool = True) -> Any:
    """Convert a protobuf property value (as the engine receives it) to plain JSON-able Python.

    Args:
        value: a `struct_pb2.Struct`, `struct_pb2.Value`, `struct_pb2.ListValue` or an already plain value.
        mask_secrets: replace every secret with `SECRET` (default); when false, unwrap it.

    Returns plain dicts/lists/str/int/float/bool/None where: unknowns (preview) become `UNKNOWN`, secret or not
    (an unknown hides nothing);
    resource references become the referenced URN; assets and archives become
    `{"asset": <path|text|uri>}` / `{"archive": <path|uri|{name: ...}>}`; numbers with an integral value
    become `int` (the wire format only has doubles); `None` entries of maps are dropped.
    """
    if isinstance(value, struct_pb2.Value):
        kind = value.WhichOneof("kind")
        if kind == "struct_value":
            return to_plain(value.struct_value, mask_secrets=mask_secrets)
        if kind == "list_value":
            return to_plain(value.list_value, mask_secrets=mask_secrets)
        if kind == "string_value":
            return to_plain(value.string_value, mask_secrets=mask_secrets)
        if kind == "number_value":
            return to_plain(value.number_value, mask_secrets=mask_secrets)
        if kind == "bool_value":
            return value.bool_value
        return None
    if isinstance(value, struct_pb2.ListValue):
        return [to_plain(item, mask_secrets=mask_secrets) for item in value.values]
    if isinstance(value, struct_pb2.Struct):
        return _plain_map({key: value.fields[key] for key in value.fields}, mask_secrets)
    if isinstance(value, Mapping):
        return _plain_map(value, mask_secrets)
    if isinstance(value, (list, tuple)):
        return [to_plain(item, mask_secrets=mask_secrets) for item in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, str) and value == WIRE_UNKNOWN:
        return UNKNOWN
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    # Python objects the SDK deserialized (resources, unknowns, assets) when called with SDK values.
    return _plain_object(value)


def _plain_map(fields: Mapping[str, Any], mask_secrets: bool) -> Any:
    signature = _string_field(fields, SIG_KEY)
    if signature == SECRET_SIG:
        value = to_plain(fields.get("value"), mask_secrets=False)
        return SECRET if mask_secrets and value != UNKNOWN else value
    if signature == RESOURCE_SIG:
        return _string_field(fields, "urn")
    if signature == OUTPUT_VALUE_SIG:
        if "value" not in fields:
            return UNKNOWN
        if mask_secrets and to_plain(fields.get("secret")) is True:
            return SECRET
        return to_plain(fields["value"], mask_secrets=mask_secrets)
    if signature == ASSET_SIG:
        for key in ("path", "text", "uri"):
            if key in fields:
                return {"asset": _string_field(fields, key)}
    if signature == ARCHIVE_SIG:
        for key in ("assets", "path", "uri"):
            if key in fields:
                return {"archive": to_plain(fields[key], mask_secrets=mask_secrets)}
    plain: dict[str, Any] = {}
    for key in sorted(fields):
        item = to_plain(fields[key], mask_secrets=mask_secrets)
        if item is not None:
            plain[key] = item
    return plain


def _string_field(fields: Mapping[str, Any], key: str) -> str | None:
    raw = fields.get(key)
    if isinstance(raw, struct_pb2.Value):
        return raw.string_value if raw.WhichOneof("kind") == "string_value" else None
    return raw if isinstance(raw, str) else None


def _plain_object(value: Any) -> Any:
    from pulumi import Resource  # local: keeps this module import-light for the type checker
    from pulumi.output import Unknown

    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, Resource):
        return f"[resource {type(value).__name__}]"
    return str(value)


# --------------------------------------------------------------------------------------------------
# Kubernetes resources

_CLUSTER_SCOPED_KINDS = frozenset(
    {
        "AKSNodeClass",
        "APIService",
        "CSIDriver",
        "CSINode",
        "CertificateSigningRequest",
        "ComputeClass",
        "CustomResourceDefinition",
        "DeviceClass",
        "EC2NodeClass",
        "FlowSchema",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "NVIDIADriver",
        "Namespace",
        "Node",
        "NodeClass",
        "NodePool",
        "PersistentVolume",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "ResourceSlice",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
"""Kinds without a namespace (besides every `Cluster*` kind, e.g. ClusterRole, ClusterPolicy)."""


def _kubernetes_object(r: MockResource) -> Outputs:
    kind = r.type.rsplit(":", 1)[-1]
    metadata = dict(r.get("metadata", {}))
    name = metadata.get("name") or f"{r.name}-{hex_of(r.urn, 8)}"
    computed: dict[str, Any] = {
        **metadata,
        "name": name,
        "uid": uuid_of(r.urn),
        "resourceVersion": "1",
        "generation": 1,
        "creationTimestamp": PLAN_TIMESTAMP,
    }
    if kind in _CLUSTER_SCOPED_KINDS or kind.startswith("Cluster"):
        return name, {"metadata": computed}
    namespace = metadata.get("namespace") or "default"
    computed["namespace"] = namespace
    return f"{namespace}/{name}", {"metadata": computed}


def _helm_release(r: MockResource) -> Outputs:
    """A Helm v3 release: ``<namespace>/<name>``, its name given or auto-named with 8 hex characters."""
    name = r.autoname("name", length=8)
    namespace = r.get("namespace", "default")
    return f"{namespace}/{name}", {"name": name, "namespace": namespace}


def _any_resource(r: MockResource) -> Outputs:
    """A custom resource of a package without mocks: an id derived from its URN."""
    return f"{r.name}-{hex_of(r.urn, 7)}", {}


_OWN = ProviderMocks(
    resources={"kubernetes:helm.sh/v3:Release": _helm_release}, fallbacks={"kubernetes": _kubernetes_object}
)
"""pulumi-kubernetes's resources: objects (metadata filled in as the API server does) and Helm releases."""


CLOUD_MOCKS: Mapping[str, ProviderMocks] = MappingProxyType(
    {cloud: importlib.import_module(f"gpu_components.{cloud}.plan_mocks").MOCKS for cloud in CLOUDS}
)
"""Cloud -> the mocks of its providers: ``MOCKS`` of ``gpu_components.<cloud>.plan_mocks`` (plain data, no cloud SDK;
on the plan's floor, beside this module), one entry per cloud of :data:`~gpu_components.cloud_facts.CLOUDS`."""


@functools.cache
def _tables() -> ProviderMocks:
    """:data:`_OWN` and every cloud's table (:data:`CLOUD_MOCKS`) in one, gathered at the first registration or
    invoke."""
    tables = (_OWN, *CLOUD_MOCKS.values())
    return ProviderMocks(
        resources={token: fn for table in tables for token, fn in table.resources.items()},
        components={token: fn for table in tables for token, fn in table.components.items()},
        invokes={token: fn for table in tables for token, fn in table.invokes.items()},
        fallbacks={package: fn for table in tables for package, fn in table.fallbacks.items()},
    )


# --------------------------------------------------------------------------------------------------
# The mocks


class _Registering(NamedTuple):
    urn: str
    remote: bool
    plain_inputs: Mapping[str, Any]
    identity: str
    """The URN the mocks derive generated values from: the resource's, or its first alias (see `PlanMonitor`)."""


_REGISTERING: contextvars.ContextVar[_Registering | None] = contextvars.ContextVar(
    "gpu_components_plan_registering", default=None
)
"""Set by `PlanMonitor` around each registration, so `PlanMocks` sees the URN the monitor computed."""


class PlanMocks(Mocks):
    """Pulumi mocks that return realistic, deterministic outputs for GPU node-pool programs.

    Args:
        config: flat stack config (`{"<namespace>:<key>": value}`, values as strings), from which each cloud's
            mocks read their provider's settings (region, location, project) and their defaults
            (``gpu_components.<cloud>.plan_mocks``).
        preview: answer as the engine does in ``pulumi preview`` of a new stack (default False: as after
            ``pulumi up``): a new custom resource's id is empty (unknown) and its computed outputs
            (:func:`computed_outputs`, of the class :meth:`learn_resource_class` saw) are the wire unknown, and a
            method called on a resource the run registered returns unknowns. Reads and local components are
            answered as in up mode.
        user: the program's own mocks (:class:`~gpu_components.plan.mock_kit.UserMocks`): an invoke's result there
            replaces the plan's mock of it, a resource type's outputs there are laid over the plan's (default none).

    `new_resource` returns `(id, state)` with state = the registered inputs overlaid with the computed
    outputs for the type (the providers' tables: resources, components and fallbacks by package); local
    component resources get their inputs back. Every call is appended to `registrations`; every invoke to
    `invokes`. `call` raises `MissingMockError` for an invoke without a mock.

    Works with the stock `MockMonitor` (URNs then lack the parent chain) and best with `PlanMonitor`.
    """

    def __init__(
        self, config: Mapping[str, str] | None = None, *, preview: bool = False, user: UserMocks | None = None
    ) -> None:
        self.config: Mapping[str, str] = dict(config or {})
        self.preview = preview
        self.user = user or UserMocks()
        self.registrations: list[MockResourceArgs] = []
        self._classes: dict[str, type] = {}
        self.invokes: list[MockCallArgs] = []
        self._known: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def remember(self, kind: str, key: str, state: Mapping[str, Any]) -> None:
        """Keep a cluster's mocked state, so later `get*`/credential invokes agree with it."""
        with self._lock:
            self._known[(kind, key)] = dict(state)

    def recall(self, kind: str, key: str) -> dict[str, Any] | None:
        """The state kept by `remember`, if the program registered that cluster."""
        with self._lock:
            return self._known.get((kind, key))

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        """Mock one registration (custom resource, component or remote component) or read."""
        with self._lock:
            self.registrations.append(args)
        registering = _REGISTERING.get()
        if registering is not None:
            urn, remote, plain = registering.urn, registering.remote, registering.plain_inputs
            identity = urn if remote else registering.identity
        else:
            urn = f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{args.typ}::{args.name}"
            remote, plain, identity = False, to_plain(args.inputs, mask_secrets=False), urn
        if args.resource_id and "name" not in plain:
            plain = {**plain, "name": args.resource_id}  # a read: most providers' ids are the name
        name = identity.split("::", 3)[3] if identity != urn else args.name
        resource = MockResource(identity, args.typ, name, plain, self.config, self)
        # Reads (`Resource.get`) arrive with an id and no `custom` flag; only custom resources are read.
        custom = bool(args.custom) or bool(args.resource_id)
        cls = self._classes.get(args.typ)
        given = self.user.resources.get(args.typ)
        fn = self._resource_fn(args.typ, custom, remote, cls is not None or given is not None)
        if fn is None:
            return "", dict(args.inputs)
        resource_id, computed = fn(resource)
        if given is not None:
            computed = {**computed, **given}
        derived = derived_outputs(cls) if cls is not None else {}
        if args.resource_id:
            # A read: the resource exists, in preview too.
            return args.resource_id, {**derived, **args.inputs, **computed}
        if self.preview:
            return "", self._preview_state(args, computed, resource.autonamed)
        return resource_id, {**derived, **args.inputs, **computed}

    def learn_resource_class(self, args: pulumi.ResourceTransformationArgs) -> None:
        """A stack transformation (``pulumi.runtime.register_stack_transformation``) that remembers the SDK class of
        each resource type the program registers, so that the mocks know which of its outputs are computed
        (:func:`computed_outputs`: unknown in a preview) and their types (:func:`derived_outputs`). It changes
        nothing (returns None)."""
        self._classes.setdefault(args.type_, type(args.resource))

    def _preview_state(
        self, args: MockResourceArgs, computed: Mapping[str, Any], autonamed: set[str]
    ) -> dict[str, Any]:
        """What the engine returns for a new resource in ``pulumi preview``: its inputs as registered (without what
        the mock adds inside them), the inputs the program left out as the provider fills them in before creating
        the resource (auto-names, the provider's defaults), and its computed outputs unknown
        (:func:`computed_outputs`; without the resource's SDK class, every output the mock adds that is not an
        input)."""
        cls = self._classes.get(args.typ)
        unknown = computed_outputs(cls) if cls is not None else frozenset(computed) - autonamed
        state = {key: value for key, value in computed.items() if key not in unknown}
        state.update(args.inputs)
        state.update(dict.fromkeys(unknown - frozenset(args.inputs), WIRE_UNKNOWN))
        return state

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        """Mock one invoke (or resource-method call): the program's own result for its token (`user`), else the
        plan's mock; raise `MissingMockError` if it has neither."""
        given = self.user.invokes.get(args.token)
        fn = _tables().invokes.get(args.token)
        try:
            if fn is None and given is None:
                raise MissingMockError("invoke", args.token)
            with self._lock:
                self.invokes.append(args)
            if given is not None:
                return dict(given), []
            assert fn is not None  # for the type checker: one of the two is given
            plain = to_plain(args.args, mask_secrets=False)
            return fn(MockInvoke(args.token, plain if isinstance(plain, dict) else {}, self.config, self)), []
        except MissingMockError as missing:
            close = difflib.get_close_matches(args.token, list(self.user.invokes), n=1)
            if close:
                hint = f"({MOCKS_FILE} has {close[0]!r} under invokes: a misspelling?)"
                missing = MissingMockError(missing.kind, missing.token, f"{missing.detail} {hint}".lstrip())
            mark(missing)  # the program's call of the invoke, which this worker thread's stack lacks
            raise missing from None

    def user_mock_problems(self) -> list[str]:
        """What in the program's own mocks (`user`) cannot be what the program meant, after its run: a resource
        output its SDK class does not have (Pulumi's camelCase names), and an invoke token or resource type the
        program never used that is close to one it used (a misspelling, which would otherwise be silently unused).
        One text per problem, each naming the section and key."""
        problems: list[str] = []
        for type_, outputs in self.user.resources.items():
            cls = self._classes.get(type_)
            if cls is None:
                continue
            names = sorted(set(output_properties(cls).values()) - {"id", "urn"})
            for key in outputs:
                if key not in names:
                    close = difflib.get_close_matches(key, names, n=1)
                    valid = f"did you mean {close[0]!r}?" if close else f"its outputs: {', '.join(names)}"
                    problems.append(
                        f"resources: {type_}: {key}: not an output of {cls.__module__}.{cls.__name__} by Pulumi's "
                        f"camelCase names ({valid})"
                    )
        for section, given, used in (
            ("invokes", self.user.invokes, {call.token for call in self.invokes}),
            ("resources", self.user.resources, {registration.typ for registration in self.registrations}),
        ):
            for key in given:
                close = [] if key in used else difflib.get_close_matches(key, sorted(used), n=1)
                if close:
                    problems.append(f"{section}: {key}: never used by the program; did you mean {close[0]!r}?")
        return problems

    @staticmethod
    def _resource_fn(type_: str, custom: bool, remote: bool, known_class: bool) -> ResourceMock | None:
        """The mock of a registration: a remote component's, a custom resource's (:func:`_custom_resource_fn`), or
        None for a local component. A remote component without a mock gets the outputs derived from its SDK class
        (:func:`derived_outputs`), and raises `MissingMockError` where that class is not known."""
        components = _tables().components
        if type_ in components:
            return components[type_]
        if not custom:
            if not remote:
                return None
            if not known_class:
                raise MissingMockError("remote component", type_)
            return lambda r: ("", {})
        return _custom_resource_fn(type_)


@functools.cache
def computed_outputs(cls: type) -> frozenset[str]:
    """The computed outputs of a resource class, by Pulumi's names: its output properties (the ``@pulumi.getter``
    properties of a provider SDK's generated class, as the SDK reads them to resolve a registration's outputs) that
    are not inputs (parameters of its generated constructor), which a new resource has only once it is created, so
    ``pulumi preview`` shows them unknown. A component written in Python declares none."""
    inputs = input_parameters(cls)
    return frozenset(
        pulumi_name
        for python_name, pulumi_name in output_properties(cls).items()
        if python_name not in inputs and pulumi_name not in ("id", "urn") and not python_name.startswith("_")
    )


def derived_outputs(cls: type) -> dict[str, Any]:
    """The value after ``pulumi up`` of each computed output of resource class ``cls`` (:func:`computed_outputs`)
    that no mock gives, from its type in the SDK class: ``""``, ``0``, ``False``, ``[]`` or ``{}`` for a string,
    number, boolean, list or map; an object, enum, literal or resource is left out (None to the program). Only
    values that other resources or invokes read are mocked (the providers' tables); these are what nothing here
    depends on. Each call makes new lists and maps."""
    return {name: empty() for name, empty in _empty_values(cls)}


@functools.cache
def _empty_values(cls: type) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """(output, the type's empty value maker) for each computed output of ``cls`` whose type has one."""
    types = output_types(cls)
    found = ((name, _empty_value(types.get(name))) for name in sorted(computed_outputs(cls)))
    return tuple((name, empty) for name, empty in found if empty is not None)


def _empty_value(type_: Any) -> Callable[[], Any] | None:
    if type_ in (str, int, float, bool):
        return cast(Callable[[], Any], type_)
    origin = typing.get_origin(type_)
    if origin in (list, tuple, collections.abc.Sequence):
        return list
    if origin in (dict, collections.abc.Mapping):
        return dict
    return None


def _custom_resource_fn(type_: str) -> ResourceMock:
    """The mock of a custom resource type: a provider's own, a specific one, or its package's fallback."""
    if type_.startswith(PROVIDER_TYPE_PREFIX):
        return lambda r: (uuid_of(r.urn), {})
    tables = _tables()
    if type_ in tables.resources:
        return tables.resources[type_]
    return tables.fallbacks.get(type_.split(":", 1)[0], _any_resource)


def planned_id(resource_type: str, urn: str, inputs: Mapping[str, Any]) -> str:
    """The physical id the plan gives the custom resource ``urn`` of ``resource_type`` with ``inputs`` (plain, as a
    plan records them): how other resources' inputs name it in a plan, e.g. a node group's ``launchTemplate.id``.

    Computed by the resource's mock under the default config (an id that holds a region or project holds the
    default one).
    """
    mocks = PlanMocks()
    resource = MockResource(urn, resource_type, urn.rsplit("::", 1)[-1], inputs, mocks.config, mocks)
    return _custom_resource_fn(resource_type)(resource)[0]


# --------------------------------------------------------------------------------------------------
# The monitor


class Registration(NamedTuple):
    """One resource registration as the engine received it.

    `parent` is the parent URN, or None for the stack's direct children; `inputs` are the plain
    inputs (camelCase keys) with secrets replaced by `SECRET` (see `to_plain`); `options` the resource options
    the engine received, by Pulumi's names, those at their defaults left out
    (:func:`~gpu_components.plan.options.recorded_options`).

    What the registration carried besides: `provider_reference`, the provider reference as sent (``<provider
    URN>::<provider id>``, ``""`` for the engine's default provider); `dependencies`, every URN the resource depends
    on (its inputs' and ``depends_on``'s, components expanded into their resources as the SDK sends them), sorted;
    `property_dependencies`, input name -> the URNs that input's value came from, sorted; `version` and
    `plugin_download_url`, the package version and plugin download URL the SDK asked for (``""`` when none). And what
    the mocks answered: `id`, the physical id (None for a component; `UNKNOWN` for a custom resource whose id the
    mocks left unknown, an empty id as the SDK reads one in a preview); `outputs`, the resource's state, plain and
    masked like `inputs` (a component's: what it passed to ``register_outputs``, else what the mocks returned).
    """

    urn: str
    type: str
    name: str
    parent: str | None
    custom: bool
    remote: bool
    inputs: Mapping[str, Any]
    options: Mapping[str, Any]
    provider_reference: str = ""
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = {}
    version: str = ""
    plugin_download_url: str = ""
    id: str | None = None
    outputs: Mapping[str, Any] = {}


class PlanMonitor(MockMonitor):
    """A mock resource monitor that records every registration, with its options, and gives engine-style URNs.

    Unlike the stock `MockMonitor` it names resources the way the engine does (the parent's full type
    chain, without `pulumi:pulumi:Stack`), hands the URN to `PlanMocks`, and answers resource-method
    calls (`Call`, which the stock monitor lacks) through `PlanMocks.call`.

    A resource with an alias (its own, or one inherited from a renamed parent, as the engine's
    ``inheritedChildAlias`` makes it) gets its mocked outputs from its first alias's URN and name, the identity it
    had in the stack's state: a resource renamed by an alias keeps its generated names and ids under ``pulumi up``,
    so its plan does too, and a rename reads as a rename in a diff.

    Read `registrations` after the program has finished.
    """

    mocks: PlanMocks

    def __init__(self, mocks: PlanMocks) -> None:
        super().__init__(mocks)
        self.mocks = mocks
        self._registrations: list[Registration] = []
        self._urns: set[str] = set()
        self._identities: dict[str, str] = {}
        self._answers: dict[str, tuple[str | None, Mapping[str, Any]]] = {}
        self._outputs: dict[str, Mapping[str, Any]] = {}
        self._lock = threading.Lock()
        self._thread = threading.local()
        self._loops: list[asyncio.AbstractEventLoop] = []

    @property
    def registrations(self) -> list[Registration]:
        """Every registration so far except the stack itself, in arrival order, each ``dependsOn`` written with
        components where it holds all of one's resources (:func:`_collapse_components`)."""
        with self._lock:
            registrations = [self._answered(r) for r in self._registrations]
        return _collapse_components(registrations)

    def _answered(self, registration: Registration) -> Registration:
        """The registration with the id and outputs the mocks gave it; call holding the lock."""
        answer = self._answers.get(registration.urn)
        if answer is None:
            return registration
        resource_id, outputs = answer
        return registration._replace(id=resource_id, outputs=self._outputs.get(registration.urn, outputs))

    def _thread_loop(self) -> None:
        """Give the calling worker thread an event loop this monitor closes (:meth:`close`).

        The SDK's mock monitor needs one per thread and, where there is none, makes one it never closes; at exit
        such a loop's finalizer can print "Exception ignored ... Invalid file descriptor" on stderr.
        """
        if getattr(self._thread, "loop", None) is not None:
            return
        try:
            asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # no loop on this thread yet: the SDK would make one
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._thread.loop = loop
            with self._lock:
                self._loops.append(loop)

    def close(self) -> None:
        """Close the event loops made for worker threads; call once the run's executor has shut down."""
        with self._lock:
            loops, self._loops = self._loops, []
        for loop in loops:
            loop.close()

    def Invoke(self, request: resource_pb2.ResourceInvokeRequest) -> Any:
        """Let `MockMonitor` answer an invoke through `PlanMocks.call`, on a thread loop this monitor owns."""
        self._thread_loop()
        return super().Invoke(request)  # type: ignore[no-untyped-call]

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """The URN the engine would give: `urn:pulumi:<stack>::<project>::<type chain>::<name>`."""
        return urn_of(parent, type_, name, pulumi.get_stack(), pulumi.get_project())

    def RegisterResource(self, request: resource_pb2.RegisterResourceRequest) -> Any:
        """Record the registration, then let `MockMonitor` call `PlanMocks.new_resource` with its URN."""
        self._thread_loop()
        urn = self.make_urn(request.parent, request.type, request.name)
        if request.type != STACK_TYPE:
            parent = request.parent or None
            if parent is not None and parent.split("::")[2] == STACK_TYPE:
                parent = None
            inputs = to_plain(request.object)
            options = recorded_options(request, pulumi.get_stack(), pulumi.get_project())
            registration = Registration(
                urn,
                request.type,
                request.name,
                parent,
                bool(request.custom),
                bool(request.remote),
                inputs,
                options,
                provider_reference=request.provider,
                dependencies=tuple(sorted(set(request.dependencies))),
                property_dependencies={
                    key: tuple(sorted(set(request.propertyDependencies[key].urns)))
                    for key in sorted(request.propertyDependencies)
                },
                version=request.version,
                plugin_download_url=request.pluginDownloadURL,
            )
            with self._lock:
                if urn in self._urns:
                    raise DuplicateResourceError(urn)
                self._urns.add(urn)
                self._registrations.append(registration)
                identity = self._identity(urn, request.type, request.name, parent, options.get("aliases", ()))
        else:
            identity = urn
        plain = to_plain(request.object, mask_secrets=False)
        token = _REGISTERING.set(_Registering(urn, bool(request.remote), plain, identity))
        try:
            response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        finally:
            _REGISTERING.reset(token)
        if request.type != STACK_TYPE:
            resource_id: str | None = None
            if request.custom:
                resource_id = response.id if response.id and response.id != WIRE_UNKNOWN else UNKNOWN
            outputs = to_plain(response.object)
            with self._lock:
                self._answers[urn] = (resource_id, outputs if isinstance(outputs, dict) else {})
        return response

    def RegisterResourceOutputs(self, request: resource_pb2.RegisterResourceOutputsRequest) -> Any:
        """Record what a component passed to ``register_outputs`` (plain, masked) as its outputs."""
        outputs = to_plain(request.outputs)
        with self._lock:
            self._outputs[request.urn] = outputs if isinstance(outputs, dict) else {}
        return super().RegisterResourceOutputs(request)  # type: ignore[no-untyped-call]

    def _identity(self, urn: str, type_: str, name: str, parent: str | None, aliases: Sequence[str]) -> str:
        """The URN the resource's mocked outputs derive from (:func:`~gpu_components.plan.options.identity_of`),
        remembered for its children; call holding the lock."""
        parent_identity = None if parent is None else self._identities.get(parent, parent)
        identity = identity_of(urn, type_, name, parent, aliases, parent_identity)
        self._identities[urn] = identity
        return identity

    def ReadResource(self, request: resource_pb2.ReadResourceRequest) -> Any:
        """Let `MockMonitor` mock a read (`Resource.get`); reads are not recorded as registrations."""
        self._thread_loop()
        urn = self.make_urn(request.parent, request.type, request.name)
        token = _REGISTERING.set(_Registering(urn, False, to_plain(request.properties, mask_secrets=False), urn))
        try:
            return super().ReadResource(request)  # type: ignore[no-untyped-call]
        finally:
            _REGISTERING.reset(token)

    def Call(self, request: resource_pb2.ResourceCallRequest) -> provider_pb2.CallResponse:
        """Answer a resource-method call (e.g. `eks.Cluster.get_kubeconfig`) through `PlanMocks.call`."""
        args = to_plain(request.args, mask_secrets=False)
        result, failures = self.mocks.call(MockCallArgs(request.tok, args, request.provider))
        if self.mocks.preview and args.get("__self__") in self.resources:
            # A method of a resource this run creates: in preview the resource does not exist yet, so what the
            # method returns from its state is unknown.
            result = dict.fromkeys(result, WIRE_UNKNOWN)
        returned = struct_pb2.Struct()
        returned.update(cast(dict[str, Any], _jsonable(result)))
        response = provider_pb2.CallResponse(
            failures=[provider_pb2.CheckFailure(property=p, reason=r) for p, r in failures or []]
        )
        getattr(response, "return").CopyFrom(returned)
        return response


def _collapse_components(registrations: list[Registration]) -> list[Registration]:
    """The registrations with each ``dependsOn`` written as the program gave it where that can be told: the SDK
    sends a local component in ``depends_on`` as the resources in it (its custom and remote descendants through local
    components: ``_add_dependency`` in the SDK's ``rpc.py``), so a ``dependsOn`` that holds every one of a
    component's resources (two or more: one is just that resource) names the component instead, outermost components
    first. The engine treats both the same;
    written out, each resource depending on a whole cluster would list every resource in it (quadratic in the pools
    of a fleet)."""
    by_urn = {r.urn: r for r in registrations}
    children: dict[str, list[str]] = {}
    for r in registrations:
        if r.parent is not None:
            children.setdefault(r.parent, []).append(r.urn)
    expanded: dict[str, frozenset[str]] = {}

    def resources_in(urn: str) -> frozenset[str]:
        if urn not in expanded:
            found: set[str] = set()
            pending = list(children.get(urn, ()))
            while pending:
                child = by_urn[pending.pop()]
                if child.custom or child.remote:
                    found.add(child.urn)
                else:
                    pending.extend(children.get(child.urn, ()))
            expanded[urn] = frozenset(found)
        return expanded[urn]

    def ancestors(urn: str) -> list[str]:
        chain: list[str] = []
        parent = by_urn[urn].parent if urn in by_urn else None
        while parent is not None and parent in by_urn and parent not in chain:
            chain.append(parent)
            parent = by_urn[parent].parent
        return chain

    collapsed: list[Registration] = []
    for r in registrations:
        depends_on = r.options.get("dependsOn")
        if not depends_on:
            collapsed.append(r)
            continue
        remaining = set(depends_on)
        components = {c for urn in depends_on for c in ancestors(urn) if not (by_urn[c].custom or by_urn[c].remote)}
        named: list[str] = []
        for component in sorted(components, key=lambda c: (len(ancestors(c)), c)):
            inside = resources_in(component)
            if len(inside) >= 2 and inside <= remaining:
                remaining -= inside
                named.append(component)
        if named:
            r = r._replace(options={**r.options, "dependsOn": sorted({*remaining, *named})})
        collapsed.append(r)
    return collapsed


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
