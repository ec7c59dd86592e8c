"""Compare two JSON plans as the Pulumi engine would: what a change to a program or its config creates, deletes,
updates and replaces, and which node pools it drains.

``diff(old, new)`` takes two documents written by :func:`gpu_components.plan.to_json` or
:func:`gpu_components.plan.state.to_state` (``--format state``, a deployment as ``pulumi stack export`` writes it; told
apart by their content and read back by :func:`~gpu_components.plan.state.from_state`), as text or parsed, and returns
a :class:`PlanDiff`. It follows the engine's rules (``pkg/resource/deploy/step_generator.go`` in pulumi/pulumi),
with each resource's options as the plan records them (:mod:`gpu_components.plan.options`):

- A new resource is matched with the old one of its URN, or else with the first of its aliases that names an old
  resource nobody else claims, its parent's alias included (a child of a renamed component inherits the component's
  alias, with the old component name in place of the new at the front of its own name, as the engine's
  ``inheritedChildAlias`` does): a rename covered by an alias is the same resource, not a deletion and a creation.
  A rename that changes nothing else is listed as ``renamed``, which is no change.
- The new side's ``ignoreChanges`` paths are reset to their old values before inputs are compared (the engine's
  ``processIgnoreChanges``, Pulumi's property-path syntax: ``scalingConfig.desiredSize``, ``count``): a change there
  is no change.
- A change replaces the resource when the provider cannot make it in place (a node pool's force-new inputs,
  :mod:`gpu_components.plan.replacements`) or when it lies under one of the new side's ``replaceOnChanges`` paths.
  A change of the resource's ``provider`` (an explicit provider added, removed or swapped for another, unless the
  provider itself was renamed by an alias) is judged as the engine's ``providerChanged`` does, by the new provider's
  ``DiffConfig`` of the old provider's settings against the new one's (:class:`_Providers`: an explicit provider's
  inputs, or the default provider's stack config): the same settings keep the resource (listed as ``same``); a
  changed setting the cloud's facts say replaces (the AWS provider's ``region``) replaces it; other changed settings
  replace it too, with a note that the provider's own answer cannot be asked offline. A replacement with
  ``deleteBeforeReplace`` says so; a deleted or replaced resource that is ``protect``-ed is marked, as ``pulumi up``
  would refuse it, and so is an in-place change of an input the cloud refuses
  (:attr:`~gpu_components.cloud_facts.CloudFacts.refused_in_place`, AKS's VM size of an existing pool):
  :attr:`PlanDiff.refused`.
- Inputs that hold an encoded document (a launch template's base64 user data with Bottlerocket's TOML settings;
  :attr:`~gpu_components.cloud_facts.CloudFacts.encoded_inputs`) are compared decoded.

A change that drains the GPU nodes of a node pool is marked with why (:attr:`ResourceChange.drains`): the pool
replaced, the pool deleted (not when ``retainOnDelete`` keeps it in the cloud), an in-place change that the cloud
makes by recreating every node (GKE's node configuration, EKS's AMI release or launch template version, AKS
upgrades: :attr:`~gpu_components.cloud_facts.NodePoolResource.rolls`), or the template the pool takes its nodes'
settings from changed (the cloud updates the pool in place but replaces each of its nodes): the node-pool
resource's :class:`~gpu_components.cloud_facts.NodeTemplate` in its cloud's facts says which template and how it is
named (an EKS node group's launch template, by ``launchTemplate.id``). Two label changes drain a pool's GPU work though
its nodes stay: a new MIG layout (``nvidia.com/mig.config``, the MIG Manager repartitions the GPUs) and a new GPU
advertiser (``gpu-components/gpu-access``: the pool moves between the device plugin and NVIDIA's DRA driver on live
nodes, :func:`~gpu_components.plan.replacements.changes_gpu_advertiser`, EKS and AKS pools and Karpenter NodePools).
A new driver version of the GPU Operator (its Helm release's ``values.driver.version`` where it installs the driver,
or an NVIDIADriver's ``spec.version``) drains the GPU pods of the nodes it serves, node by node, by its upgrade policy:
the release or custom resource is marked, naming the pools and the policy
(:func:`~gpu_components.plan.replacements.upgrades_gpu_driver`).

The other options (``dependsOn``, ``protect``, ``retainOnDelete``, ...) change nothing in the cloud on their own:
the engine records them without an update, and so does the diff. A plan written before options were recorded has
no ``options`` key: its resources' ``provider`` is unknown and not compared, and with no ``ignoreChanges`` or
``replaceOnChanges`` on the new side only the providers' own rules apply.

A value that bears a secret (Pulumi marked it secret on one side, or it holds a kubeconfig) is never printed: the
change reads ``path: [secret] (changed)`` (:func:`_masked`).

Limits, because a plan is offline: a secret or preview-time unknown reads the same (``"[secret]"``,
``"[unknown]"``) on both sides, so a change hidden behind one is not seen; replacements are known only for the
node-pool types that have a force-new table and for ``replaceOnChanges``.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import yaml

from gpu_components.cloud_facts import EncodedInput, NodeTemplate, all_cloud_facts
from gpu_components.plan.ignore_changes import ignore_changes_warnings
from gpu_components.plan.karpenter_drift import deleted as karpenter_deleted
from gpu_components.plan.karpenter_drift import drift as karpenter_drift
from gpu_components.plan.karpenter_drift import provisioned_types
from gpu_components.plan.kubernetes_replacements import deletes_first, force_new_paths
from gpu_components.plan.mock_kit import PROVIDER_TYPE_PREFIX
from gpu_components.plan.mocks import SECRET, planned_id
from gpu_components.plan.options import identity_of, inherited_child_alias
from gpu_components.plan.property_path import Path, parse, render, reset
from gpu_components.plan.replacements import (
    changes_gpu_advertiser,
    forces_replacement,
    node_pool_types,
    provider_setting_replaces,
    refused_in_place,
    repartitions_gpus,
    rolls_nodes,
    under_any,
    upgrades_gpu_driver,
)
from gpu_components.plan.state import from_state, is_state

__all__ = ["ABSENT", "InputChange", "PlanDiff", "PlanFormatError", "ResourceChange", "diff", "to_document", "to_text"]

DRAINS_REPLACED = "the node pool is replaced: its nodes are drained and recreated"
DRAINS_DELETED = "the node pool is deleted: its nodes are drained"
PROVIDER = "(provider)"
"""The path of a change of a resource's provider in :attr:`ResourceChange.changes`."""
PROVIDER_SETTINGS = "(provider settings)"
"""The path prefix of a change of the settings of a resource's (explicit) provider, e.g. ``(provider settings)
region``, in :attr:`ResourceChange.changes`."""
PROVIDER_ASKS = "unless the new provider's DiffConfig finds these settings need none, which cannot be asked offline"
"""The :attr:`InputChange.note` of a changed provider reference whose settings changed where the facts do not say
whether the change replaces."""
PROVIDER_UNKNOWN = "the plans do not hold the providers' settings, so the engine's DiffConfig cannot be replayed"
"""The :attr:`InputChange.note` of a changed provider reference where either plan lacks the providers' settings."""
PROVIDER_KEPT = "provider changed to one with the same settings: the engine keeps the resource"
"""How the text marks a resource whose provider reference changed to a provider of identical settings."""
DRAINS_PROVIDER_SETTINGS = (
    "its provider's settings changed: the provider decides whether that replaces every resource it manages"
    " (DiffConfig), which cannot be asked offline"
)


_TEMPLATES: Mapping[str, NodeTemplate] = MappingProxyType(
    {
        resource.type_token: resource.template
        for facts in all_cloud_facts()
        for resource in facts.node_pools
        if resource.template is not None
    }
)
"""Node-pool resource type -> the template its nodes' settings come from, from every cloud's facts."""


def _encoded_inputs() -> Mapping[str, tuple[tuple[Path, EncodedInput], ...]]:
    by_type: dict[str, list[tuple[Path, EncodedInput]]] = {}
    for facts in all_cloud_facts():
        for encoded in facts.encoded_inputs:
            by_type.setdefault(encoded.type_token, []).append((parse(encoded.path), encoded))
    return MappingProxyType({type_: tuple(inputs) for type_, inputs in by_type.items()})


_ENCODED = _encoded_inputs()
"""Resource type -> its inputs that hold an encoded document (parsed path, facts), from every cloud's facts."""


class _Absent:
    """The value of a path on the side where it does not exist."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
"""Stands for a missing value in :class:`InputChange` (an input added or removed)."""


class PlanFormatError(ValueError):
    """A document is not a JSON plan (``{"resources": [{"urn", "type", "name", "inputs"}, ...], ...}``)."""


@dataclass(frozen=True)
class InputChange:
    """One changed input (or output) path: ``old`` / ``new`` are :data:`ABSENT` where the path does not exist.

    ``replaces`` is True when the change makes the engine replace the resource (a force-new input, a
    ``replaceOnChanges`` path, its provider); ``rolls`` when the cloud makes it in place by recreating every node of
    a node pool. For a change inside an encoded input, ``decoded`` says how the input was encoded (``base64 TOML``)
    and ``within`` is the path inside the decoded document (``""`` for the whole of it). ``refused`` says why the
    cloud refuses the change in place (``pulumi up`` fails on it:
    :attr:`~gpu_components.cloud_facts.CloudFacts.refused_in_place`), and ``note`` what the verdict cannot know
    offline (:data:`PROVIDER_ASKS`, :data:`PROVIDER_UNKNOWN`). ``secret``: the value bears a secret
    (:func:`_masked`), so ``old`` and ``new`` are both ``"[secret]"`` and only the fact that it changed is shown.
    """

    path: str
    old: Any
    new: Any
    replaces: bool = False
    rolls: bool = False
    decoded: str | None = None
    within: str = ""
    refused: str | None = None
    note: str | None = None
    secret: bool = False


@dataclass(frozen=True)
class ResourceChange:
    """A resource created, deleted, updated in place, replaced, or only renamed by an alias (``same``);
    ``changes`` is empty for created and deleted resources.

    Attributes:
        drains: why the change drains a node pool's GPU nodes (:data:`DRAINS_REPLACED`, :data:`DRAINS_DELETED`, a
            roll's :attr:`~gpu_components.cloud_facts.NodeRolls.why`, or its template's
            :attr:`~gpu_components.cloud_facts.NodeTemplate.rolls`, a new MIG layout or a new GPU advertiser in its
            node labels), or None.
        old_urn: the old resource's URN where an alias matched it (a rename), else None.
        delete_before_replace: a replacement deletes the old resource before it creates the new one.
        retained: a deleted resource with ``retainOnDelete``: only removed from the stack, left in the cloud.
        protected: a deleted or replaced resource marked ``protect``: ``pulumi up`` refuses the change.
        refused: why the cloud refuses an in-place change of the resource (``pulumi up`` fails on it), or None.
        provider_kept: its provider reference changed to a provider of the same settings, which the engine takes
            without replacing it (:data:`PROVIDER_KEPT`).
    """

    urn: str
    type: str
    name: str
    action: Literal["create", "delete", "update", "replace", "same"]
    changes: tuple[InputChange, ...] = ()
    drains: str | None = None
    old_urn: str | None = None
    delete_before_replace: bool = False
    retained: bool = False
    protected: bool = False
    refused: str | None = None
    provider_kept: bool = False


@dataclass(frozen=True)
class PlanDiff:
    """What changed between two plans. Every sequence is sorted by URN (outputs by path).

    ``renamed`` holds the resources an alias matched, or whose provider changed to one of the same settings, that
    change nothing else (no change to the engine either). ``warnings`` are the new plan's ``ignoreChanges`` paths that
    name no input (:func:`~gpu_components.plan.ignore_changes.ignore_changes_warnings`).
    """

    old_stack: str
    new_stack: str
    added: tuple[ResourceChange, ...]
    removed: tuple[ResourceChange, ...]
    changed: tuple[ResourceChange, ...]
    outputs: tuple[InputChange, ...]
    renamed: tuple[ResourceChange, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def replacements(self) -> tuple[ResourceChange, ...]:
        """The changed resources the engine replaces."""
        return tuple(change for change in self.changed if change.action == "replace")

    @property
    def drained(self) -> tuple[ResourceChange, ...]:
        """The node pools whose nodes the change drains (replaced, deleted or rolled), sorted by URN."""
        return tuple(sorted((c for c in (*self.removed, *self.changed) if c.drains), key=lambda c: c.urn))

    @property
    def refused(self) -> tuple[ResourceChange, ...]:
        """The changes ``pulumi up`` would fail on, sorted by URN: a ``protect``-ed resource deleted or replaced, an
        input the cloud refuses to change in place."""
        return tuple(
            sorted((c for c in (*self.removed, *self.changed) if c.protected or c.refused), key=lambda c: c.urn)
        )

    @property
    def empty(self) -> bool:
        """True when the plans are the same (resources and outputs), renames by alias apart."""
        return not (self.added or self.removed or self.changed or self.outputs)


def diff(old: str | Mapping[str, Any], new: str | Mapping[str, Any]) -> PlanDiff:
    """Compare two JSON plans (text, or the parsed documents) by the engine's rules (see the module docstring).

    Raises:
        PlanFormatError: either document is not a JSON plan.
    """
    before, after = _document(old, "old"), _document(new, "new")
    old_resources, new_resources = _resources(before, "old"), _resources(after, "new")
    matches = _match(old_resources, new_resources)
    claimed = set(matches.values())
    pools = node_pool_types()
    drainable = pools | provisioned_types()
    added = tuple(
        ResourceChange(urn, r["type"], r["name"], "create")
        for urn, r in sorted(new_resources.items())
        if urn not in matches
    )
    removed = tuple(
        _removed(urn, resource, pools, old_resources.values())
        for urn, resource in sorted(old_resources.items())
        if urn not in claimed
    )
    compared = {
        urn: _compare(old_resources[matches[urn]], new_resources[urn], new_resources) for urn in sorted(matches)
    }
    template_types = {template.type_token for template in _TEMPLATES.values()}
    identities = _identities(new_resources)
    rolled: set[tuple[str, str]] = set()  # (type, id) of each template whose inputs changed
    for urn, changes in compared.items():
        resource = new_resources[urn]
        if resource["type"] in template_types and changes:
            # The id the plan's mocks gave it: from its alias where it has one, as the cloud keeps it on a rename.
            rolled.add((resource["type"], planned_id(resource["type"], identities[urn], _inputs(resource))))
    providers = _Providers(old_resources, new_resources, before.get("config"), after.get("config"), matches)
    changed: list[ResourceChange] = []
    renamed: list[ResourceChange] = []
    for urn, changes in compared.items():
        was, now = old_resources[matches[urn]], new_resources[urn]
        if was.get("parent") != now.get("parent") and matches[urn] == urn:
            changes = (InputChange("(parent)", was.get("parent"), now.get("parent")), *changes)
        moved, kept = providers.changes(was, now)
        changes = (*moved, *changes)
        replace = any(c.replaces for c in changes)
        drains: str | None = None
        if replace and now["type"] in drainable:
            drains = DRAINS_REPLACED
        elif any(c.path.startswith(PROVIDER_SETTINGS) for c in changes) and now["type"] in drainable:
            drains = DRAINS_PROVIDER_SETTINGS
        elif not replace:
            drains = next((rolls_nodes(now["type"], parse(c.path)) for c in changes if c.rolls), None)
            template = _TEMPLATES.get(now["type"])
            if drains is None and template is not None and _template_id(now, template) in rolled:
                drains = template.rolls
            if drains is None and changes:
                drains = (
                    changes_gpu_advertiser(now["type"], _inputs(was), _inputs(now))
                    or repartitions_gpus(now["type"], _inputs(was), _inputs(now))
                    or upgrades_gpu_driver(now["type"], _inputs(was), _inputs(now), _operator_pools(now, new_resources))
                    or karpenter_drift(
                        now["type"],
                        _inputs(was),
                        _inputs(now),
                        [parse(c.path) for c in changes if not c.path.startswith("(")],
                        new_resources.values(),
                    )
                )
        old_urn = matches[urn] if matches[urn] != urn else None
        changes = tuple(_masked(change) for change in changes)
        if drains is None and all(c.path == PROVIDER for c in changes) and (kept or not changes):
            if old_urn is not None or kept:
                renamed.append(
                    ResourceChange(urn, now["type"], now["name"], "same", changes, old_urn=old_urn, provider_kept=kept)
                )
            continue
        new_options, old_options = _options(now) or {}, _options(was) or {}
        changed.append(
            ResourceChange(
                urn,
                now["type"],
                now["name"],
                "replace" if replace else "update",
                changes,
                drains,
                old_urn=old_urn,
                delete_before_replace=replace
                and (new_options.get("deleteBeforeReplace") is True or _provider_deletes_first(was, now, changes)),
                protected=replace and old_options.get("protect") is True and new_options.get("protect") is True,
                refused=None if replace else next((c.refused for c in changes if c.refused), None),
                provider_kept=kept,
            )
        )
    outputs = tuple(
        _masked(InputChange(render(path), a, b))
        for path, a, b in _changes(before.get("outputs", {}), after.get("outputs", {}), ())
    )
    # A side with no stack name (the state of a stack with no resources) is of the other side's stack.
    old_stack, new_stack = str(before.get("stack") or ""), str(after.get("stack") or "")
    return PlanDiff(
        old_stack=old_stack or new_stack,
        new_stack=new_stack or old_stack,
        added=added,
        removed=removed,
        changed=tuple(changed),
        outputs=outputs,
        renamed=tuple(renamed),
        warnings=tuple(
            ignore_changes_warnings(
                [new_resources[urn] for urn in sorted(new_resources)],
                {urn: old_resources[old_urn] for urn, old_urn in matches.items()},
            )
        ),
    )


def _masked(change: InputChange) -> InputChange:
    """``change`` with both values masked (``"[secret]"``, :attr:`InputChange.secret`) when either bears a secret:
    Pulumi marked it secret (the plan's ``"[secret]"``, so its other side, plain, is a secret too), or it holds a
    kubeconfig (:func:`_holds_kubeconfig`), whose users' tokens, client keys and exec credentials grant access to
    the cluster although pulumi-kubernetes's schema does not mark its provider's ``kubeconfig`` secret."""
    if not any(value == SECRET or _holds_kubeconfig(value) for value in (change.old, change.new)):
        return change
    old = ABSENT if change.old is ABSENT else SECRET
    new = ABSENT if change.new is ABSENT else SECRET
    return dataclasses.replace(change, old=old, new=new, secret=True)


def _holds_kubeconfig(value: object) -> bool:
    """Whether ``value`` is a kubeconfig document (YAML or JSON text of a ``kind: Config`` object with ``clusters``
    or ``users``: client-go's ``clientcmd/api/v1.Config``, https://kubernetes.io/docs/concepts/configuration/organize-
    cluster-access-kubeconfig/)."""
    if not isinstance(value, str) or "Config" not in value or ("users" not in value and "clusters" not in value):
        return False
    try:
        document = yaml.safe_load(value)
    except yaml.YAMLError:
        return False
    return isinstance(document, Mapping) and document.get("kind") == "Config"


def _options(resource: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A resource's recorded options, or None for a plan written before options were recorded."""
    options = resource.get("options")
    return options if isinstance(options, Mapping) else None


def _inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    inputs = resource.get("inputs", {})
    return inputs if isinstance(inputs, Mapping) else {}


def _removed(
    urn: str, resource: Mapping[str, Any], pools: frozenset[str], resources: Iterable[Mapping[str, Any]]
) -> ResourceChange:
    """A deleted resource: a node pool's deletion drains it (:data:`DRAINS_DELETED`), a Karpenter NodePool's or
    NodeClass's its nodes (:func:`~gpu_components.plan.karpenter_drift.deleted`; ``resources``: the old plan's
    records), unless ``retainOnDelete`` leaves it in the cloud."""
    options = _options(resource) or {}
    retained = options.get("retainOnDelete") is True
    drains = None
    if not retained:
        drains = (
            DRAINS_DELETED
            if resource["type"] in pools
            else karpenter_deleted(resource["type"], _inputs(resource), resources)
        )
    return ResourceChange(
        urn,
        resource["type"],
        resource["name"],
        "delete",
        drains=drains,
        retained=retained,
        protected=options.get("protect") is True,
    )


class _Providers:
    """The providers of both plans, to judge a change of the provider that manages a resource as the engine's
    ``providerChanged`` does (pulumi/pulumi ``pkg/resource/deploy/step_generator.go``).

    A custom resource's provider is its explicit provider (``options.provider``; its settings are that provider
    resource's inputs) or its package's default provider (its settings are the stack config of that package's
    namespace, ``aws:region``, from the plan's ``config``). When the provider reference changes (an explicit provider
    added, removed or swapped; a provider renamed by an alias is the same one) the engine asks the new provider's
    ``DiffConfig`` to compare the old provider's settings with the new one's: same settings, no replacement.
    """

    def __init__(
        self,
        old: Mapping[str, Mapping[str, Any]],
        new: Mapping[str, Mapping[str, Any]],
        old_config: object,
        new_config: object,
        matches: Mapping[str, str],
    ) -> None:
        self._old, self._new = old, new
        self._old_config, self._new_config = old_config, new_config
        self._matches = matches

    def changes(self, was: Mapping[str, Any], now: Mapping[str, Any]) -> tuple[tuple[InputChange, ...], bool]:
        """The changes of the provider that manages a resource, old record ``was`` and new ``now``: a
        :data:`PROVIDER` change where the reference changed, then one :data:`PROVIDER_SETTINGS` change per changed
        setting; and whether the reference changed to a provider of the same settings (the engine keeps the
        resource).

        A setting the cloud's facts list as replacing
        (:func:`~gpu_components.plan.replacements.provider_setting_replaces`: the AWS provider's ``region``) forces
        replacement. A changed reference with other changed settings forces it too unless the new provider's
        ``DiffConfig`` says otherwise, which cannot be asked offline (the change says so); so does one whose settings
        the plans do not hold (a plan written before options or config were recorded, a provider not in the plan).
        """
        old_options, new_options = _options(was), _options(now)
        if old_options is None or new_options is None or now.get("custom") is not True:
            return (), False
        if now["type"].startswith(PROVIDER_TYPE_PREFIX):
            return (), False
        old_ref, new_ref = old_options.get("provider"), new_options.get("provider")
        renamed = old_ref is not None and new_ref is not None and self._matches.get(str(new_ref)) == old_ref
        swapped = old_ref != new_ref and not renamed
        old_settings = _provider_settings(was, self._old, self._old_config)
        new_settings = _provider_settings(now, self._new, self._new_config)
        reference = (ABSENT if old_ref is None else old_ref, ABSENT if new_ref is None else new_ref)
        if old_settings is None or new_settings is None:
            if not swapped:
                return (), False
            return (InputChange(PROVIDER, *reference, replaces=True, note=PROVIDER_UNKNOWN),), False
        provider_type = new_settings[0]
        settings = tuple(
            InputChange(
                f"{PROVIDER_SETTINGS} {render(path)}",
                a,
                b,
                replaces=provider_setting_replaces(provider_type, str(path[0])),
            )
            for path, a, b in _changes(old_settings[1], new_settings[1], ())
        )
        if not swapped:
            return settings, False
        known = any(change.replaces for change in settings)
        note = None if known or not settings else PROVIDER_ASKS
        return (InputChange(PROVIDER, *reference, replaces=bool(settings), note=note), *settings), not settings


def _provider_settings(
    resource: Mapping[str, Any], resources: Mapping[str, Mapping[str, Any]], config: object
) -> tuple[str, Mapping[str, Any]] | None:
    """(provider type, settings) of the provider that manages the custom ``resource`` in a plan of ``resources`` and
    stack ``config``: its explicit provider's inputs, else its package's default provider's settings (the config keys
    of the package's namespace, without it); None where the plan does not hold them."""
    provider = (_options(resource) or {}).get("provider")
    if provider is not None:
        record = resources.get(str(provider))
        return None if record is None else (str(record["type"]), _inputs(record))
    if not isinstance(config, Mapping):
        return None
    package = resource["type"].split(":", 1)[0]
    settings = {
        str(key).partition(":")[2]: value for key, value in config.items() if str(key).partition(":")[0] == package
    }
    return f"{PROVIDER_TYPE_PREFIX}{package}", settings


def _operator_pools(release: Mapping[str, Any], resources: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The pools a GPU Operator release serves, sorted: the entries (but ``default``) of the device plugin config map
    its values name (``values.devicePlugin.config.name``), a resource beside it (same parent); none where the values
    name none (its device plugin off)."""
    values = _inputs(release).get("values")
    plugin = values.get("devicePlugin") if isinstance(values, Mapping) else None
    config = plugin.get("config") if isinstance(plugin, Mapping) else None
    name = config.get("name") if isinstance(config, Mapping) else None
    for resource in resources.values():
        metadata = _inputs(resource).get("metadata")
        data = _inputs(resource).get("data")
        if (
            name is not None
            and resource.get("parent") == release.get("parent")
            and isinstance(metadata, Mapping)
            and metadata.get("name") == name
            and isinstance(data, Mapping)
        ):
            return sorted(str(key) for key in data if key != "default")
    return []


def _provider_deletes_first(was: Mapping[str, Any], now: Mapping[str, Any], changes: tuple[InputChange, ...]) -> bool:
    """Whether the resource's provider itself asks to delete it before replacing it: pulumi-kubernetes does for an
    object it replaces for one of its own force-new fields (not for a changed provider or a ``replaceOnChanges``
    path, which the engine decides) when the program names it and keeps the name
    (:func:`~gpu_components.plan.kubernetes_replacements.deletes_first`)."""
    if not deletes_first(now["type"], _inputs(was), _inputs(now)):
        return False
    own = force_new_paths(now["type"], _inputs(now), {})
    return any(c.replaces and c.path != PROVIDER and under_any(own, parse(c.path)) for c in changes)


def _paths(values: object) -> list[Path]:
    """The property paths in an option's list that parse (the engine skips an ignoreChanges path it cannot parse)."""
    paths: list[Path] = []
    for value in values if isinstance(values, list) else ():
        try:
            paths.append(parse(str(value)))
        except ValueError:
            continue
    return paths


def _compare(
    was: Mapping[str, Any], now: Mapping[str, Any], resources: Mapping[str, Mapping[str, Any]]
) -> tuple[InputChange, ...]:
    """The changes between the old and the new record of one resource, by the engine's rules and its provider's
    (``resources``: the new plan's, where the resource's provider is found)."""
    type_ = now["type"]
    old_inputs = _inputs(was)
    new_inputs: Any = copy.deepcopy(dict(_inputs(now)))
    new_options = _options(now)
    provider = resources.get(str((new_options or {}).get("provider")))
    replace_on = list(force_new_paths(type_, new_inputs, _inputs(provider) if provider is not None else {}))
    if new_options is not None:
        for path in _paths(new_options.get("ignoreChanges")):
            reset(path, old_inputs, new_inputs)
        replace_on += _paths(new_options.get("replaceOnChanges"))
    changes: list[InputChange] = []
    for path, a, b, decoded, within in _input_changes(type_, old_inputs, new_inputs):
        replaces = forces_replacement(type_, path) or under_any(replace_on, path)
        rolls = not replaces and rolls_nodes(type_, path) is not None
        refused = None if replaces else refused_in_place(type_, path)
        changes.append(InputChange(render(path), a, b, replaces, rolls, decoded, within, refused))
    return tuple(changes)


def _input_changes(
    type_: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[tuple[Path, Any, Any, str | None, str]]:
    """Every changed input path with its old and new value, encoded inputs compared decoded:
    ``(path, old, new, how the input was encoded or None, the path inside the decoded document)``."""
    encoded = dict(_ENCODED.get(type_, ()))
    for path, a, b in _changes(old, new, ()):
        facts = encoded.get(path)
        decoded_a = facts.decode(a) if facts is not None else None
        decoded_b = facts.decode(b) if facts is not None else None
        if decoded_a is None or decoded_b is None or decoded_a[0] != decoded_b[0]:
            yield path, a, b, None, ""
            continue
        for inner, x, y in _changes(decoded_a[1], decoded_b[1], ()):
            yield path, x, y, decoded_a[0], render(inner)


def _match(old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """New URN -> the old URN of the same resource: its own, or the first alias that names an unclaimed old resource
    (the engine's ``getOldResource``), parents before children so that a child inherits its parent's alias."""
    matches: dict[str, str] = {}
    aliased: dict[str, str] = {}  # new URN -> the old URN its alias matched (the engine's sg.aliases)
    claimed: set[str] = set()
    for urn in sorted(new, key=lambda u: (_depth(u, new), u)):
        if urn in old and urn not in claimed:
            matches[urn] = urn
            claimed.add(urn)
            continue
        for alias in _aliases(urn, new[urn], aliased):
            if alias in old and alias not in claimed and alias not in new:
                matches[urn] = aliased[urn] = alias
                claimed.add(alias)
                break
    return matches


def _identities(resources: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Each resource's identity in the plan's mocks (:func:`~gpu_components.plan.options.identity_of`), parents
    first."""
    identities: dict[str, str] = {}
    for urn in sorted(resources, key=lambda u: (_depth(u, resources), u)):
        resource = resources[urn]
        parent = resource.get("parent")
        parent = parent if isinstance(parent, str) else None
        aliases = [a for a in (_options(resource) or {}).get("aliases", []) if isinstance(a, str)]
        parent_identity = None if parent is None else identities.get(parent, parent)
        identities[urn] = identity_of(urn, resource["type"], resource["name"], parent, aliases, parent_identity)
    return identities


def _depth(urn: str, resources: Mapping[str, Mapping[str, Any]]) -> int:
    depth, seen = 0, {urn}
    parent = resources[urn].get("parent")
    while isinstance(parent, str) and parent in resources and parent not in seen:
        depth, parent = depth + 1, resources[parent].get("parent")
        seen.add(str(parent))
    return depth


def _aliases(urn: str, resource: Mapping[str, Any], aliased: Mapping[str, str]) -> list[str]:
    """A resource's aliases as the engine's ``generateAliases`` makes them: its own, then, when its parent was
    matched by an alias, the inherited ones (its own name and each of its aliases under the parent's old URN)."""
    own = [str(alias) for alias in (_options(resource) or {}).get("aliases", []) if isinstance(alias, str)]
    result = list(own)
    parent = resource.get("parent")
    if isinstance(parent, str) and parent in aliased:
        for type_, name in ((resource["type"], resource["name"]), *((_urn_type(a), _urn_name(a)) for a in own)):
            inherited = inherited_child_alias(type_, name, parent, aliased[parent])
            if inherited not in result:
                result.append(inherited)
    return result


def _urn_qualified_type(urn: str) -> str:
    return urn.split("::", 3)[2] if urn.count("::") >= 3 else ""


def _urn_type(urn: str) -> str:
    return _urn_qualified_type(urn).rsplit("$", 1)[-1]


def _urn_name(urn: str) -> str:
    return urn.split("::", 3)[3] if urn.count("::") >= 3 else urn


def _template_id(resource: Mapping[str, Any], template: NodeTemplate) -> tuple[str, str] | None:
    """The template a node-pool record names (its type and the id at :attr:`NodeTemplate.reference`), or None."""
    value: object = _inputs(resource)
    for key in template.reference.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return (template.type_token, value) if isinstance(value, str) else None


def _document(value: str | Mapping[str, Any], side: str) -> Mapping[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise PlanFormatError(f"the {side} plan is not JSON: {error}") from None
    if is_state(value):
        try:
            return from_state(value)
        except ValueError as error:
            raise PlanFormatError(f"the {side} state cannot be read: {error}") from None
    if not isinstance(value, Mapping) or not isinstance(value.get("resources"), list):
        raise PlanFormatError(f"the {side} plan is not a JSON plan: it needs a 'resources' list")
    return value


def _resources(document: Mapping[str, Any], side: str) -> dict[str, Mapping[str, Any]]:
    resources: dict[str, Mapping[str, Any]] = {}
    for index, resource in enumerate(document["resources"]):
        if not isinstance(resource, Mapping) or not all(key in resource for key in ("urn", "type", "name")):
            raise PlanFormatError(f"the {side} plan's resources[{index}] needs 'urn', 'type' and 'name'")
        resources[str(resource["urn"])] = resource
    return resources


def _changes(old: Any, new: Any, path: Path) -> Iterator[tuple[Path, Any, Any]]:
    """Every leaf path whose value differs, depth first, map keys sorted."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            yield from _changes(old.get(key, ABSENT), new.get(key, ABSENT), (*path, str(key)))
    elif isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            a = old[index] if index < len(old) else ABSENT
            b = new[index] if index < len(new) else ABSENT
            yield from _changes(a, b, (*path, index))
    elif old != new or type(old) is not type(new):
        yield path, old, new


# ------------------------------------------------------------------------------------------------ text rendering

_SYMBOL = {"create": "+", "delete": "-", "update": "~", "replace": "+-", "same": "="}
_INDENT = "    "


def to_text(result: PlanDiff) -> str:
    """The diff as text for a terminal or a PR comment (Pulumi's symbols: ``+`` create, ``-`` delete, ``~`` update,
    ``+-`` replace; ``=`` a rename by alias that changes nothing else), one resource per line with its changed inputs
    beneath as ``path: old -> new`` (force-new, ``replaceOnChanges`` and provider changes marked
    ``[forces replacement]``, changes that recreate a node pool's nodes ``[rolls nodes]``, a change inside an encoded
    input as ``path (encoding) path-inside: old -> new``, multi-line strings as a unified diff).

    A resource line is marked ``[drains nodes: why]`` where a deletion or an in-place change drains a node pool (a
    replacement says so already), ``[delete before replace]``, ``[renamed from <old name>]`` (or ``[was <old URN>]``
    where its type or parent changed too), ``[retained: ...]`` for a deletion that ``retainOnDelete`` leaves in the
    cloud, ``[protected: ...]`` where ``pulumi up`` would refuse it, ``[refused: why]`` where the cloud refuses the
    in-place change (the input marked ``[refused in place]``) and ``[provider changed to one with the same settings:
    ...]`` (:data:`PROVIDER_KEPT`). A provider change the plans cannot judge for sure carries its
    :attr:`InputChange.note`.
    A ``warning: ...`` line after the title names each ``ignoreChanges`` path that ignores nothing
    (:attr:`PlanDiff.warnings`). Ends with the stack outputs that changed and a summary line (``N resource(s) draining
    nodes`` counts resources marked ``drains nodes``: an operator release may drain several pools), and a newline."""
    stacks = result.new_stack if result.old_stack == result.new_stack else f"{result.old_stack} -> {result.new_stack}"
    lines = [f"Plan diff of {stacks}:"]
    if result.old_stack != result.new_stack:
        lines.append(
            "note: the plans are of different stacks; resources are matched by URN, which holds the stack name, "
            "so no resource of one matches one of the other"
        )
    lines.extend(f"warning: {warning}" for warning in result.warnings)
    if result.empty and not result.renamed:
        lines.append("no changes")
        return "\n".join(lines) + "\n"
    every = (*result.added, *result.removed, *result.changed, *result.renamed)
    for change in sorted(every, key=lambda c: (c.type, c.name, c.urn)):
        lines.append(f"{_SYMBOL[change.action]} {change.type} {change.name}{_marks(change)}")
        for item in change.changes:
            lines.extend(_change_lines(item, _INDENT))
    if result.outputs:
        lines.append("outputs:")
        for item in result.outputs:
            lines.extend(_change_lines(item, _INDENT))
    replaced = len(result.replacements)
    # Resources, not pools: a GPU Operator release or an NVIDIADriver drains every pool it serves (several, or
    # every node it selects), a node pool resource one.
    drained = f"; {len(result.drained)} resource(s) draining nodes" if result.drained else ""
    aliased = sum(1 for change in result.renamed if change.old_urn is not None)
    kept = len(result.renamed) - aliased
    renamed = f"; {aliased} renamed by an alias and otherwise unchanged" if aliased else ""
    moved = f"; {kept} moved to a provider of the same settings and otherwise unchanged" if kept else ""
    refused = f"; {len(result.refused)} refused (pulumi up would fail)" if result.refused else ""
    lines.append(
        f"{len(result.added)} to create, {len(result.changed) - replaced} to update, {replaced} to replace, "
        f"{len(result.removed)} to delete; {len(result.outputs)} output change(s){drained}{renamed}{moved}{refused}"
    )
    return "\n".join(lines) + "\n"


def _marks(change: ResourceChange) -> str:
    marks: list[str] = []
    if change.old_urn is not None:
        if _urn_qualified_type(change.old_urn) == _urn_qualified_type(change.urn):
            marks.append(f"renamed from {_urn_name(change.old_urn)}")
        else:
            marks.append(f"was {change.old_urn}")
    if change.delete_before_replace:
        marks.append("delete before replace")
    # A replacement says that it drains already (``+-``, ``[forces replacement]``); deletions and rolls say why.
    if change.drains and change.action != "replace":
        marks.append(f"drains nodes: {change.drains}")
    if change.retained:
        marks.append("retained: retainOnDelete leaves it in the cloud, only the stack forgets it")
    if change.protected:
        verb = "delete" if change.action == "delete" else "replace"
        marks.append(f"protected: pulumi up refuses to {verb} it until protect is removed")
    if change.refused:
        marks.append(f"refused: {change.refused}")
    if change.provider_kept:
        marks.append(PROVIDER_KEPT)
    return "".join(f"  [{mark}]" for mark in marks)


def _change_lines(item: InputChange, indent: str) -> list[str]:
    mark = "  [forces replacement]" if item.replaces else "  [rolls nodes]" if item.rolls else ""
    mark += "  [refused in place]" if item.refused else ""
    mark += f"  [{item.note}]" if item.note else ""
    path = item.path
    if item.decoded is not None:
        path = f"{path} ({item.decoded}) {item.within}" if item.within else f"{path} ({item.decoded})"
    if item.secret:
        verb = "added" if item.old is ABSENT else "removed" if item.new is ABSENT else "changed"
        return [f"{indent}{path}: {SECRET} ({verb}){mark}"]
    if isinstance(item.old, str) and isinstance(item.new, str) and ("\n" in item.old or "\n" in item.new):
        body = difflib.unified_diff(item.old.splitlines(), item.new.splitlines(), "old", "new", lineterm="", n=1)
        return [f"{indent}{path}:{mark}", *(f"{indent}  {line}" for line in list(body)[2:])]
    return [f"{indent}{path}: {_value(item.old, item.path)} -> {_value(item.new, item.path)}{mark}"]


def _value(value: Any, path: str = "") -> str:
    if value is ABSENT:
        return "(the default provider)" if path == PROVIDER else "(none)"
    return json.dumps(value, sort_keys=True)


def to_document(result: PlanDiff) -> dict[str, Any]:
    """The diff as a JSON-ready document: ``{"oldStack", "newStack", "resources": [{"urn", "type", "name",
    "action", "changes": [{"path", "old", "new", "replaces", "rolls", "decoded", "within", "refused", "note",
    "secret"}], "drains", "oldUrn", "deleteBeforeReplace", "retained", "protected", "refused", "providerKept"}],
    "outputs": [...]}``; ``old`` / ``new`` are left out where the path does not exist (both ``"[secret]"`` where
    ``secret``), ``rolls``, ``decoded``, ``within``, ``refused``, ``note`` and ``secret`` where not set, and
    ``drains``, ``oldUrn``, ``refused`` and the flags where the change has none. Renames by alias and moves to a
    provider of the same settings that change nothing else have the action ``same``."""
    return {
        "oldStack": result.old_stack,
        "newStack": result.new_stack,
        "resources": [
            {
                "urn": change.urn,
                "type": change.type,
                "name": change.name,
                "action": change.action,
                "changes": [_change_document(item) for item in change.changes],
                **({"drains": change.drains} if change.drains else {}),
                **({"oldUrn": change.old_urn} if change.old_urn else {}),
                **({"deleteBeforeReplace": True} if change.delete_before_replace else {}),
                **({"retained": True} if change.retained else {}),
                **({"protected": True} if change.protected else {}),
                **({"refused": change.refused} if change.refused else {}),
                **({"providerKept": True} if change.provider_kept else {}),
            }
            for change in (*result.added, *result.removed, *result.changed, *result.renamed)
        ],
        "outputs": [_change_document(item) for item in result.outputs],
        **({"warnings": list(result.warnings)} if result.warnings else {}),
    }


def _change_document(item: InputChange) -> dict[str, Any]:
    document: dict[str, Any] = {"path": item.path, "replaces": item.replaces}
    if item.rolls:
        document["rolls"] = True
    if item.secret:
        document["secret"] = True
    if item.refused:
        document["refused"] = item.refused
    if item.note:
        document["note"] = item.note
    if item.decoded is not None:
        document["decoded"] = item.decoded
        document["within"] = item.within
    if item.old is not ABSENT:
        document["old"] = item.old
    if item.new is not ABSENT:
        document["new"] = item.new
    return document
