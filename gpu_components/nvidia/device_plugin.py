"""Pure renderers for the NVIDIA device plugin: its config file, per-pool config entries, Helm values.

The config file format is the device plugin's ``api/config/v1`` (k8s-device-plugin v0.20.0,
https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#configuration-option-details). The plugin silently
ignores unknown keys, so configs are built from the ``TypedDict`` models below, never from free-form dicts.

Several pools share one ConfigMap: each pool is a named entry (the pool name), and each node selects its entry
with the label ``nvidia.com/device-plugin.config=<pool name>``; the entry ``default`` (exclusive GPUs, no MIG)
serves any node without the label.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import yaml
from typing_extensions import NotRequired, TypedDict

from gpu_components.errors import Problem
from gpu_components.labels import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_PRESENT_LABEL,
    MPS_CAPABLE_LABEL,
    SHARING_TRUSTED_ENTRIES_KEY,
)
from gpu_components.mig import mig_resource_name
from gpu_components.nvidia.chart_pin import unpinned_chart_version_problems
from gpu_components.spec import GpuNodePoolSpec, Mps, Taint, TimeSlicing

DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
"""Helm chart name of the NVIDIA device plugin."""
DEVICE_PLUGIN_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
"""The chart's official Helm repository (k8s-device-plugin README)."""
DEVICE_PLUGIN_CHART_VERSION = "0.20.0"
"""Pinned chart version. Changing it is a deliberate upgrade, noted in CHANGELOG.md."""


def device_plugin_chart_version_problems(chart_version: object, path: str) -> list[Problem]:
    """A device plugin ``chart_version`` that is not exact (``^0.20``, ``0.x``): the one chart pin rule of
    :func:`~gpu_components.nvidia.chart_pin.unpinned_chart_version_problems`, which the policy pack's
    ``nvidia-chart-version-pinned`` applies to any Helm release."""
    return unpinned_chart_version_problems(chart_version, path, DEVICE_PLUGIN_CHART, DEVICE_PLUGIN_CHART_VERSION)


DEFAULT_CONFIG_NAME = "default"
"""Name of the config entry for nodes without the selection label: exclusive GPUs, no MIG."""
MPS_ROOT = "/run/nvidia/mps"
"""Host directory for MPS pipes and logs (the chart's ``mps.root`` default)."""
SHARED_SUFFIX = ".shared"
"""Suffix the device plugin adds to a shared resource's name when ``renameByDefault`` is true."""
GPU_RESOURCE = "nvidia.com/gpu"
"""The extended resource of a whole GPU (and of a MIG device under the single strategy)."""

MigStrategyFlag = Literal["none", "single", "mixed"]
MIG_STRATEGY_FLAGS: tuple[MigStrategyFlag, ...] = ("none", "single", "mixed")
"""The device plugin's ``--mig-strategy`` values (k8s-device-plugin ``api/config/v1/flags.go``)."""


class ReplicatedResource(TypedDict):
    """One resource shared by time-slicing or MPS: ``name`` advertised ``replicas`` times per device."""

    name: str
    replicas: int


class ReplicatedResources(TypedDict):
    """``sharing.timeSlicing`` / ``sharing.mps`` of the config file."""

    renameByDefault: bool
    failRequestsGreaterThanOne: bool
    resources: list[ReplicatedResource]


class SharingConfig(TypedDict):
    """``sharing`` of the config file: exactly one of ``timeSlicing`` or ``mps``."""

    timeSlicing: NotRequired[ReplicatedResources]
    mps: NotRequired[ReplicatedResources]


class Flags(TypedDict):
    """``flags`` of the config file (only the fields this library sets)."""

    migStrategy: MigStrategyFlag
    failOnInitError: bool
    mpsRoot: NotRequired[str]


class DevicePluginConfig(TypedDict):
    """The device plugin's config file, ``version: v1``."""

    version: Literal["v1"]
    flags: Flags
    sharing: NotRequired[SharingConfig]


def base_resources(spec: GpuNodePoolSpec) -> dict[str, int]:
    """Resources one node has before sharing: resource name -> devices per node.

    Exclusive: ``{"nvidia.com/gpu": gpus}``. MIG single: ``{"nvidia.com/gpu": gpus * instances}``. MIG mixed:
    one entry per profile, :func:`~gpu_components.mig.mig_resource_name` (``nvidia.com/mig-<profile>``) ->
    ``gpus * count``.
    """
    if spec.mig is None:
        return {GPU_RESOURCE: spec.gpu_count}
    if spec.mig.strategy == "single":
        return {GPU_RESOURCE: spec.gpu_count * spec.mig.instances_per_gpu}
    return {mig_resource_name(profile): spec.gpu_count * count for profile, count in sorted(spec.mig.devices.items())}


def advertised_resources(spec: GpuNodePoolSpec) -> dict[str, int]:
    """What each node of the pool advertises to Kubernetes under the NVIDIA device plugin.

    Time-slicing and MPS multiply each device by ``replicas``; with ``rename_by_default`` the names get the
    ``.shared`` suffix. Returns resource name -> count per node, sorted by name.
    """
    resources = base_resources(spec)
    sharing = spec.sharing
    if sharing is None:
        return resources
    suffix = SHARED_SUFFIX if isinstance(sharing, TimeSlicing) and sharing.rename_by_default else ""
    return {f"{name}{suffix}": count * sharing.replicas for name, count in sorted(resources.items())}


def _replicated(spec: GpuNodePoolSpec, replicas: int, rename: bool, fail_above_one: bool) -> ReplicatedResources:
    return {
        "renameByDefault": rename,
        "failRequestsGreaterThanOne": fail_above_one,
        "resources": [{"name": name, "replicas": replicas} for name in sorted(base_resources(spec))],
    }


def device_plugin_config(spec: GpuNodePoolSpec, mig_strategy: MigStrategyFlag | None = None) -> DevicePluginConfig:
    """The device plugin config entry for one pool.

    ``flags.migStrategy`` follows the pool's MIG strategy (``none`` without MIG), or ``mig_strategy`` where the
    program that runs the plugin sets one strategy for every entry (see :func:`device_plugin_config_map`);
    time-slicing and MPS become
    ``sharing.timeSlicing`` / ``sharing.mps`` over the pool's base resources. MPS sets ``flags.mpsRoot`` and always
    fails requests for more than one replica (the plugin's rule for MPS).
    """
    strategy: MigStrategyFlag = (
        mig_strategy if mig_strategy is not None else (spec.mig.strategy if spec.mig else "none")
    )
    flags: Flags = {"migStrategy": strategy, "failOnInitError": True}
    config: DevicePluginConfig = {"version": "v1", "flags": flags}
    sharing = spec.sharing
    if isinstance(sharing, TimeSlicing):
        config["sharing"] = {
            "timeSlicing": _replicated(
                spec, sharing.replicas, sharing.rename_by_default, sharing.fail_requests_greater_than_one
            )
        }
    elif isinstance(sharing, Mps):
        flags["mpsRoot"] = MPS_ROOT
        config["sharing"] = {"mps": _replicated(spec, sharing.replicas, False, True)}
    return config


def default_device_plugin_config(mig_strategy: MigStrategyFlag | None = None) -> DevicePluginConfig:
    """The ``default`` entry: exclusive GPUs, no MIG (or ``mig_strategy``), fail when the GPU cannot be
    initialised."""
    return {
        "version": "v1",
        "flags": {"migStrategy": "none" if mig_strategy is None else mig_strategy, "failOnInitError": True},
    }


def device_plugin_config_map(
    specs: Iterable[GpuNodePoolSpec], mig_strategy: MigStrategyFlag | None = None
) -> dict[str, str]:
    """ConfigMap data for the plugin: ``default`` plus one YAML entry per pool, keyed by pool name, sorted.

    ``mig_strategy``: the strategy the plugin runs with whatever an entry says, where its runner sets one for all
    entries. The GPU Operator does: it sets ``MIG_STRATEGY`` (its ``mig.strategy``) in the plugin's container
    (``controllers/object_controls.go`` ``applyMIGConfiguration``), and the plugin's flags from the environment
    override the file's (k8s-device-plugin ``api/config/v1/flags.go`` ``UpdateFromCLIFlags``). Every entry then
    says that strategy, so the rendered config is the one the plugin runs (checked by the real plugin:
    ``tests/oracles/test_device_plugin.py``).

    Raises ``ValueError`` when ``mig_strategy`` is given and is not ``none``, ``single`` or ``mixed`` (the plugin's
    ``--mig-strategy`` values).
    """
    if mig_strategy is not None and mig_strategy not in MIG_STRATEGY_FLAGS:
        raise ValueError(f"mig_strategy must be one of {', '.join(MIG_STRATEGY_FLAGS)} (got {mig_strategy!r})")
    entries: dict[str, DevicePluginConfig] = {DEFAULT_CONFIG_NAME: default_device_plugin_config(mig_strategy)}
    entries.update({spec.name: device_plugin_config(spec, mig_strategy) for spec in specs})
    return {name: to_yaml(entries[name]) for name in sorted(entries)}


def device_plugin_config_map_annotations(specs: Iterable[GpuNodePoolSpec]) -> dict[str, str]:
    """Annotations of the ConfigMap of :func:`device_plugin_config_map`: the entries whose sharing is declared
    trusted (``time_slicing.trusted`` / ``mps.trusted``), comma-separated in entry order under
    :data:`~gpu_components.spec.SHARING_TRUSTED_ENTRIES_KEY` (``{"gpu-components/sharing-trusted-entries":
    "a10g-shared,l4"}``), which the policy rule ``gpu-shared-pool-trust`` reads per entry; ``{}`` when none is."""
    trusted = sorted(spec.name for spec in specs if spec.sharing is not None and spec.sharing.trusted)
    return {SHARING_TRUSTED_ENTRIES_KEY: ",".join(trusted)} if trusted else {}


def device_plugin_node_labels(spec: GpuNodePoolSpec) -> dict[str, str]:
    """Node labels a pool served by the device plugin DaemonSet needs: its config entry and GPU presence, and on an
    MPS pool ``nvidia.com/mps.capable: "true"``.

    The chart (v0.20.0, ``templates/daemonset-mps-control-daemon.yml``) runs the MPS control daemon only on nodes
    with :data:`~gpu_components.spec.MPS_CAPABLE_LABEL` ``"true"``, a label only GPU feature discovery sets, and the
    library leaves the chart's feature discovery off (``gfd.enabled: false``, the chart's default); without the
    daemon the plugin on an MPS node waits for it forever and advertises nothing. So the pool's nodes carry the
    label from their node pool, the value GPU feature discovery would give them. Returns label -> value, e.g.
    ``{"nvidia.com/device-plugin.config": "a10g", "nvidia.com/gpu.present": "true"}``.
    """
    labels = {DEVICE_PLUGIN_CONFIG_LABEL: spec.name, GPU_PRESENT_LABEL: "true"}
    if isinstance(spec.sharing, Mps):
        labels[MPS_CAPABLE_LABEL] = "true"
    return labels


def toleration(taint: Taint) -> dict[str, str]:
    """The toleration of one taint: ``Equal`` with its value, or ``Exists`` when the taint has no value."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


CHART_DEFAULT_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
)
"""The chart's own tolerations (values.yaml, v0.20.0); kept when the chart's list is replaced."""


def daemonset_tolerations(
    specs: Iterable[GpuNodePoolSpec],
    node_taints: Iterable[Taint] = (),
    defaults: Sequence[Mapping[str, str]] = CHART_DEFAULT_TOLERATIONS,
) -> list[dict[str, str]]:
    """Tolerations for a DaemonSet that must run on every pool: the chart's ``defaults`` (this chart's unless
    another chart's are given), each pool taint, each startup taint of a provisioned pool (the DaemonSet must run
    before the agent that removes it is ready, and may be what advances the node's startup), and ``node_taints``
    (taints the cloud adds to nodes itself, e.g. AKS spot), each once, in that order."""
    result = [dict(item) for item in defaults]
    pool_taints = [taint for spec in specs for taint in (*spec.taints, *spec.startup_taints)]
    for taint in [*pool_taints, *node_taints]:
        item = toleration(taint)
        if item not in result:
            result.append(item)
    return result


CONFIG_HASH_ANNOTATION = "gpu-components/config-hash"
"""The device plugin pods' annotation holding :func:`config_hash` of the pools' configs (chart value
``podAnnotations``)."""


def config_hash(data: Mapping[str, str]) -> str:
    """A short, stable digest of ConfigMap data; as a pod annotation it rolls the DaemonSet when configs change."""
    text = yaml.safe_dump(dict(data), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def device_plugin_values(
    specs: Sequence[GpuNodePoolSpec],
    config_map_name: str,
    overrides: Mapping[str, Any] | None = None,
    node_taints: Sequence[Taint] = (),
) -> dict[str, Any]:
    """Helm values for the ``nvidia-device-plugin`` chart serving ``specs``.

    The config comes from the existing ConfigMap ``config_map_name`` (``config.name``) with ``default`` as the
    fallback entry; node affinity requires the config-selection label to name one of the pools (so the DaemonSet
    never lands on nodes whose image or cloud runs its own plugin); tolerations cover every pool taint and
    ``node_taints`` (taints the cloud adds itself); a pod
    annotation carries the configs' hash. ``overrides`` (the raw-values escape hatch) is merged last, key by key.
    """
    data = device_plugin_config_map(specs)
    values: dict[str, Any] = {
        "config": {"name": config_map_name, "default": DEFAULT_CONFIG_NAME},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": DEVICE_PLUGIN_CONFIG_LABEL,
                                    "operator": "In",
                                    "values": sorted(spec.name for spec in specs),
                                }
                            ]
                        }
                    ]
                }
            }
        },
        "tolerations": daemonset_tolerations(specs, node_taints),
        "podAnnotations": {CONFIG_HASH_ANNOTATION: config_hash(data)},
    }
    return deep_merge(values, overrides or {})


def deep_merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``overrides`` merged in: nested mappings merge key by key, anything else is replaced."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def to_yaml(config: Mapping[str, Any]) -> str:
    """Serialise a rendered config as block YAML with keys in the model's order."""
    return yaml.safe_dump(dict(config), sort_keys=False, default_flow_style=False)
