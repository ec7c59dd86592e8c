"""The resource options a plan records: what the Pulumi engine receives with each registration.

Each :class:`~gpu_components.plan.runner.PlannedResource` carries ``options``, read from the
``RegisterResourceRequest`` the plan's monitor receives (:func:`recorded_options`), under Pulumi's own names:

- ``provider``: the URN of the provider resource the resource is managed by (an explicit provider, given or
  inherited from a parent's ``providers``); left out for the engine's default provider.
- ``dependsOn``: the URNs the resource depends on beyond those its inputs name (the program's ``depends_on``),
  sorted. The SDK sends a component as the resources in it; where all of a component's resources (two or more) are
  there, the plan names the component (the monitor's ``registrations``), so a resource that depends on a whole
  cluster lists one URN, not every resource of every pool.
- ``protect``: true when the engine refuses to delete the resource.
- ``replaceOnChanges``: input property paths whose change replaces the resource, as given.
- ``ignoreChanges``: input property paths whose changes the engine ignores, as given.
- ``deleteBeforeReplace``: true (or false) when the program says whether a replacement deletes the old resource
  first.
- ``aliases``: the URNs the resource may have had in the stack's state, from the program's ``aliases`` (a name,
  type, parent, stack or project alias resolved as the engine resolves it).
- ``retainOnDelete``: true when deleting the resource only removes it from the stack.
- ``additionalSecretOutputs``: outputs the engine stores as secrets, as given.
- ``customTimeouts``: the ``create``, ``update`` and ``delete`` durations given.

Every option at its default (no explicit provider, no dependencies, false, empty) is left out, so a resource
with none records ``{}``.

Aliases: the provider SDKs give many resources type aliases of their own (pulumi-azure-native 3.29: 110 on
``containerservice:AgentPool``, one per API version), which are most of the time such a resource takes to register
under mocks, and only match old API-version types in a stack's state. :func:`drop_sdk_type_aliases`, a stack
transformation, removes those before the SDK resolves them and leaves the program's own, which reach the monitor
and are recorded. An SDK's type alias is an ``Alias`` that sets only ``type_``, to another type of the resource's own
package, on a provider resource; a program's alias of that one form is dropped with them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from gpu_components.plan._pulumi_internals import resource_pb2
from gpu_components.plan.mock_kit import STACK_TYPE

__all__ = [
    "OPTION_NAMES",
    "drop_sdk_type_aliases",
    "identity_of",
    "inherited_child_alias",
    "recorded_options",
    "urn_of",
]

OPTION_NAMES = (
    "provider",
    "dependsOn",
    "protect",
    "replaceOnChanges",
    "ignoreChanges",
    "deleteBeforeReplace",
    "aliases",
    "retainOnDelete",
    "additionalSecretOutputs",
    "customTimeouts",
)
"""The options a plan records, by Pulumi's names."""


def urn_of(parent: str, type_: str, name: str, stack: str, project: str) -> str:
    """The URN the engine gives a resource: ``urn:pulumi:<stack>::<project>::<type chain>::<name>``, the type chain
    being the parent's (without the root stack's type) and the resource's type, joined by ``$``."""
    qualified = type_
    if parent:
        parent_type = parent.split("::")[2]
        if parent_type != STACK_TYPE:
            qualified = f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


def inherited_child_alias(child_type: str, child_name: str, parent_urn: str, parent_alias: str) -> str:
    """The alias a child inherits from its parent's alias (the engine's ``inheritedChildAlias``): the child under the
    parent's old URN, with the parent's old name in place of its current one where the child's name starts with it
    (the ``{parent name}-details`` convention).

    Args:
        child_type, child_name: the child's type and (current) name.
        parent_urn: the parent's current URN.
        parent_alias: the parent's old URN, which its alias matched.
    """
    parent_name = parent_urn.split("::", 3)[3]
    alias_name = child_name
    if child_name.startswith(parent_name):
        alias_name = parent_alias.split("::", 3)[3] + child_name[len(parent_name) :]
    stack_and_project = "::".join(parent_urn.split("::")[:2])
    return f"{stack_and_project}::{parent_alias.split('::', 3)[2]}${child_type}::{alias_name}"


def identity_of(
    urn: str, type_: str, name: str, parent: str | None, aliases: Sequence[str], parent_identity: str | None
) -> str:
    """The URN the plan's mocks derive a resource's generated names and ids from: its first alias, else the alias it
    inherits from a parent whose identity is an alias, else its own URN. A resource renamed by an alias keeps its
    cloud names under ``pulumi up``, so its plan keeps them too.

    Args:
        urn, type_, name, parent: the resource's URN, type, name and parent URN (None at the top level).
        aliases: its recorded aliases (URNs).
        parent_identity: the parent's identity, or None at the top level.
    """
    if aliases:
        return aliases[0]
    if parent is not None and parent_identity is not None and parent_identity != parent:
        return inherited_child_alias(type_, name, parent, parent_identity)
    return urn


def recorded_options(request: resource_pb2.RegisterResourceRequest, stack: str, project: str) -> dict[str, Any]:
    """The options of one registration, as the plan records them (see the module docstring), defaults left out.

    Args:
        request: the registration as the monitor received it.
        stack, project: the stack and project an alias without its own resolves in.
    """
    options: dict[str, Any] = {}
    if request.provider:
        options["provider"] = _provider_urn(request.provider)
    implicit = {urn for dependencies in request.propertyDependencies.values() for urn in dependencies.urns}
    explicit = sorted(set(request.dependencies) - implicit)
    if explicit:
        options["dependsOn"] = explicit
    if request.HasField("protect") and request.protect:
        options["protect"] = True
    if request.replaceOnChanges:
        options["replaceOnChanges"] = list(request.replaceOnChanges)
    if request.ignoreChanges:
        options["ignoreChanges"] = list(request.ignoreChanges)
    if request.deleteBeforeReplaceDefined or request.deleteBeforeReplace:
        options["deleteBeforeReplace"] = bool(request.deleteBeforeReplace)
    aliases = _alias_urns(request, stack, project)
    if aliases:
        options["aliases"] = aliases
    if request.HasField("retainOnDelete") and request.retainOnDelete:
        options["retainOnDelete"] = True
    if request.additionalSecretOutputs:
        options["additionalSecretOutputs"] = list(request.additionalSecretOutputs)
    if request.HasField("customTimeouts"):
        timeouts = request.customTimeouts
        given = {key: getattr(timeouts, key) for key in ("create", "update", "delete") if getattr(timeouts, key)}
        if given:
            options["customTimeouts"] = given
    return options


def _provider_urn(reference: str) -> str:
    """The provider resource's URN in a provider reference (``<urn>::<id>``)."""
    return reference.rsplit("::", 1)[0]


def _alias_urns(request: resource_pb2.RegisterResourceRequest, stack: str, project: str) -> list[str]:
    """The URNs the registration's aliases stand for, in order, each once: what the engine's ``collapseAliasToUrn``
    makes of them (a spec's missing name, type, stack and project are the resource's own; its parent is the one
    given, none, or the resource's; a root-stack parent is none)."""
    urns: list[str] = []
    for urn in request.aliasURNs:
        if urn not in urns:
            urns.append(urn)
    for alias in request.aliases:
        if alias.WhichOneof("alias") == "urn":
            urn = alias.urn
        else:
            spec = alias.spec
            if spec.noParent:
                parent = ""
            elif spec.WhichOneof("parent") == "parentUrn" and spec.parentUrn:
                parent = spec.parentUrn
            else:
                parent = request.parent
            if parent and parent.split("::")[2] == STACK_TYPE:
                parent = ""
            urn = urn_of(
                parent,
                spec.type or request.type,
                spec.name or request.name,
                spec.stack or stack,
                spec.project or project,
            )
        if urn not in urns:
            urns.append(urn)
    return urns


def drop_sdk_type_aliases(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    """A stack transformation that registers a provider resource without its SDK's type aliases (see the module
    docstring), keeping every alias the program gave."""
    aliases = args.opts.aliases
    if not aliases or not isinstance(args.resource, pulumi.CustomResource):
        return None
    package = args.type_.split(":", 1)[0]
    kept = [alias for alias in aliases if not _sdk_type_alias(alias, package)]
    if len(kept) == len(aliases):
        return None
    opts = copy.copy(args.opts)
    opts.aliases = kept or None
    return pulumi.ResourceTransformationResult(args.props, opts)


def _sdk_type_alias(alias: object, package: str) -> bool:
    """Whether ``alias`` has the form of a provider SDK's own type alias: only ``type_`` set, in ``package``."""
    if not isinstance(alias, pulumi.Alias):
        return False
    fields: Mapping[str, object] = {
        "name": alias.name,
        "parent": alias.parent,
        "stack": alias.stack,
        "project": alias.project,
    }
    return (
        all(value is ... for value in fields.values())
        and isinstance(alias.type_, str)
        and alias.type_.split(":", 1)[0] == package
    )
