"""What the plan's per-provider mocks are written with: the views of a registration and of an invoke they receive,
the table a cloud registers them in, and deterministic values.

Each cloud's mocks (``gpu_components.<cloud>.plan_mocks``, no cloud SDK) build a :class:`ProviderMocks` table and
register it through the cloud's facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`);
:class:`~gpu_components.plan.mocks.PlanMocks` answers from every cloud's table and its own (Kubernetes and
Pulumi's own resources), so the plan's mock machinery names no cloud.

Every value is a function of the resource's URN, its inputs, the stack config or the invoke's arguments: no
randomness, no clock. Physical names that the providers would auto-generate are ``<logical name>-<hex>`` with the
hex taken from a SHA-256 of the URN (:meth:`MockResource.autoname`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from gpu_components.plan._pulumi_internals import RESOURCE_SIG, SIG_KEY, MockMonitor, settings

__all__ = [
    "MOCKS_FILE",
    "PLAN_TIMESTAMP",
    "PROVIDER_TYPE_PREFIX",
    "STACK_TYPE",
    "UNKNOWN",
    "InvokeMock",
    "MissingMockError",
    "MockInvoke",
    "MockResource",
    "MockState",
    "Outputs",
    "ProviderMocks",
    "ResourceMock",
    "UserMocks",
    "certificate_b64",
    "child_urn",
    "hex_of",
    "reference",
    "registered",
    "synthetic",
    "uuid_of",
]

UNKNOWN = "[unknown]"
"""What a value unknown at preview time becomes in a recorded plan."""
PLAN_TIMESTAMP = "2025-01-01T00:00:00Z"
"""The fixed creation time of every mocked resource (outputs must not depend on the clock)."""
STACK_TYPE = "pulumi:pulumi:Stack"
"""Type of the stack resource, which the engine leaves out of its children's URNs."""
PROVIDER_TYPE_PREFIX = "pulumi:providers:"
"""How the type of a provider resource starts (``pulumi:providers:<package>``)."""


MOCKS_FILE = "gpu-components-mocks.yaml"
"""The file beside a project's ``Pulumi.yaml`` that gives the plan the program's own invoke results and resource
outputs (:mod:`gpu_components.plan.user_mocks`)."""


class MissingMockError(LookupError):
    """An invoke, call or remote component that the plan's mocks have no mock for.

    The message names the token (and ``detail``, what else about the call the mocks could not answer) and how to
    give the plan a result without changing this package: under ``invokes:`` (an invoke or method call) or
    ``resources:`` (a remote component) of :data:`MOCKS_FILE` beside the project's ``Pulumi.yaml``. The program's
    line that made the call is found from the call site the plan records for each invoke
    (:class:`~gpu_components.plan.project.ProgramError`).
    """

    def __init__(self, kind: str, token: str, detail: str = "") -> None:
        self.kind = kind
        self.token = token
        self.detail = detail
        section = "resources" if kind == "remote component" else "invokes"
        about = f" {detail}" if detail else ""
        super().__init__(
            f"no plan mock for {kind} {token!r}{about}: give what it returns under {section}: in {MOCKS_FILE} beside "
            f'Pulumi.yaml (README, "Plan your own program")'
        )


# --------------------------------------------------------------------------------------------------
# Deterministic values


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def hex_of(seed: str, length: int) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``seed``."""
    return _digest(seed)[:length]


def uuid_of(seed: str) -> str:
    """A version-4-shaped UUID from the SHA-256 of ``seed``."""
    d = _digest(seed)
    return f"{d[:8]}-{d[8:12]}-4{d[13:16]}-a{d[17:20]}-{d[20:32]}"


def certificate_b64(seed: str) -> str:
    """A base64 PEM block that looks like a cluster CA certificate (not a valid certificate)."""
    body = base64.b64encode(bytes.fromhex(_digest(seed) * 6)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"
    return base64.b64encode(pem.encode()).decode()


def reference(urn: str, resource_id: str | None) -> dict[str, Any]:
    """A resource reference, which the SDK turns back into a resource object (via getResource)."""
    ref: dict[str, Any] = {SIG_KEY: RESOURCE_SIG, "urn": urn, "packageVersion": ""}
    if resource_id is not None:
        ref["id"] = resource_id
    return ref


def child_urn(parent_urn: str, type_: str, name: str) -> str:
    """The URN the engine gives a child: the parent's type chain (without the stack) + `$` + type."""
    parts = parent_urn.split("::")
    qualified = parts[2] if len(parts) > 3 else ""
    if qualified and qualified != STACK_TYPE:
        type_ = f"{qualified}${type_}"
    prefix = "::".join(parts[:2]) if len(parts) > 3 else "urn:pulumi:stack::project"
    return f"{prefix}::{type_}::{name}"


# --------------------------------------------------------------------------------------------------
# Context handed to the per-type functions


class MockState(Protocol):
    """What the mocks keep between registrations and invokes: the clusters a program registered, so that later
    ``get*`` and credential invokes agree with them (:class:`~gpu_components.plan.mocks.PlanMocks`)."""

    def remember(self, kind: str, key: str, state: Mapping[str, Any]) -> None: ...

    def recall(self, kind: str, key: str) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class MockResource:
    """One registration as the per-type functions see it.

    `inputs` are plain values: secrets unwrapped, resource references as URNs, unknowns as `UNKNOWN`. `config` is
    the flat stack config (``{"<namespace>:<key>": value}``), from which each cloud's mocks read their provider's
    settings (region, location, project).
    """

    urn: str
    type: str
    name: str
    inputs: Mapping[str, Any]
    config: Mapping[str, str]
    mocks: MockState
    autonamed: set[str] = field(default_factory=set, compare=False)
    """The inputs :meth:`autoname` filled in: the provider names a resource before creating it, so a preview knows
    them."""

    def get(self, key: str, default: Any = None) -> Any:
        """The input `key`, or `default` when it is missing, empty or unknown."""
        value = self.inputs.get(key)
        if value is None or value == UNKNOWN or value == "" or value == [] or value == {}:
            return default
        return value

    def autoname(self, key: str, *, length: int = 7) -> str:
        """The input `key`, else the provider's auto-name `<logical name>-<hex>` derived from the URN."""
        explicit = self.get(key)
        if isinstance(explicit, str):
            return explicit
        self.autonamed.add(key)
        return f"{self.name}-{hex_of(self.urn, length)}"

    def child(self, type_: str, name: str, inputs: Mapping[str, Any] | None = None) -> MockResource:
        """A resource that a remote component would create as a child of this one."""
        return MockResource(child_urn(self.urn, type_, name), type_, name, inputs or {}, self.config, self.mocks)


Outputs = tuple[str, dict[str, Any]]
"""(physical id, computed outputs) — merged over the registered inputs by `PlanMocks.new_resource`."""
ResourceMock = Callable[[MockResource], Outputs]
"""The mock of a resource type: its id and computed outputs from the registration."""


@dataclass(frozen=True)
class MockInvoke:
    """One invoke (or resource-method call) as the per-token functions see it: plain arguments and the stack
    config, as in :class:`MockResource`."""

    token: str
    args: Mapping[str, Any]
    config: Mapping[str, str]
    mocks: MockState

    def seed(self) -> str:
        """The token and arguments as text: the seed of values derived from the invoke."""
        return self.token + json.dumps(self.args, sort_keys=True, default=str)


InvokeMock = Callable[[MockInvoke], dict[str, Any]]
"""The mock of an invoke: its result from the (plain) arguments."""


# --------------------------------------------------------------------------------------------------
# Children of remote components


def registered(urn: str) -> MockMonitor.ResourceRegistration | None:
    """What the mock monitor holds for ``urn`` (a registered or synthetic resource), or None."""
    monitor = settings.get_monitor()
    return monitor.resources.get(urn) if isinstance(monitor, MockMonitor) else None


def synthetic(r: MockResource, fn: ResourceMock) -> tuple[str, str, dict[str, Any]]:
    """Mock a child that a remote component's plugin would create, so references to it resolve.

    The child is put in the mock monitor's resource table (what `pulumi:pulumi:getResource` reads),
    not in the plan: the plan lists what the program registers.
    """
    resource_id, computed = fn(r)
    state = {**r.inputs, **computed}
    monitor = settings.get_monitor()
    if isinstance(monitor, MockMonitor):
        monitor.resources[r.urn] = MockMonitor.ResourceRegistration(r.urn, resource_id, state)
    return r.urn, resource_id, state


# --------------------------------------------------------------------------------------------------
# The table a cloud registers


@dataclass(frozen=True)
class ProviderMocks:
    """The plan's mocks of one cloud's providers, by type token, invoke token and provider package.

    Attributes:
        resources: custom resource type -> its mock.
        components: remote (multi-language) component type -> the outputs its plugin would return.
        invokes: invoke or resource-method token -> its result.
        fallbacks: provider package (a type token's first part) -> the mock of any other custom resource of it.
    """

    resources: Mapping[str, ResourceMock] = field(default_factory=lambda: MappingProxyType({}))
    components: Mapping[str, ResourceMock] = field(default_factory=lambda: MappingProxyType({}))
    invokes: Mapping[str, InvokeMock] = field(default_factory=lambda: MappingProxyType({}))
    fallbacks: Mapping[str, ResourceMock] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class UserMocks:
    """A program's own mocks, from :data:`MOCKS_FILE` beside its ``Pulumi.yaml``
    (:func:`gpu_components.plan.user_mocks.load_user_mocks`, whose docstring shows the file).

    Attributes:
        invokes: invoke or method token -> the result every call of it returns (instead of the plan's own mock).
        resources: resource type -> outputs laid over the mocked outputs of each resource of that type.
        path: the file they came from (None when made in code).
    """

    invokes: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    resources: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    path: Path | None = None
