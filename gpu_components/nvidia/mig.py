"""Pure renderer for NVIDIA mig-parted configs, the file the GPU Operator's MIG manager applies.

The MIG manager (mig-parted v0.15.0, shipped with GPU Operator v26.7.0) reads one YAML file, key ``config.yaml`` of
its ConfigMap, of this shape::

    version: v1
    mig-configs:
      all-disabled:
      - devices: all
        mig-enabled: false
      all-1g.10gb:
      - devices: all
        mig-enabled: true
        mig-devices:
          1g.10gb: 7

and applies, on each node, the named entry its node label ``nvidia.com/mig.config`` selects. Every MIG pool
contributes its layout under its ``Mig.config_name`` (``all-<profile>`` with ``+`` as ``.`` for a uniform profile,
:func:`gpu_components.mig.mig_config_name`; ``custom-<pool>``
for a layout); ``all-disabled`` is always present and is the MIG manager's default. Layouts were already checked
against the GPU model's profiles and capacity by :mod:`gpu_components.spec`; this module renders them and rejects
one config name given two layouts (:func:`mig_config_problems`). The tests check every rendered config against a
re-implementation of mig-parted's parser rules (``tests/nvidia/mig_parted.py``).

Sources:
- Config format: https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go
- ``config.yaml`` key, ``all-disabled`` default: GPU Operator v26.7.0 ``deployments/gpu-operator/values.yaml``
  (``migManager.config``) and ``controllers/object_controls.go`` (``TransformMIGManager``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import yaml
from typing_extensions import NotRequired, TypedDict

from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import GpuNodePoolSpec, Mig, layout_text

MIG_PARTED_VERSION: Literal["v1"] = "v1"
"""The only ``version`` mig-parted's parser accepts."""
ALL_DISABLED = "all-disabled"
"""Name of the config that turns MIG off on every GPU; the MIG manager's default (``migManager.config.default``)."""
MIG_CONFIG_KEY = "config.yaml"
"""ConfigMap key the MIG manager reads a custom config from (required by the GPU Operator)."""
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
"""Node label that selects the node's entry of the mig-parted config."""
MIG_CONFIG_STATE_LABEL = "nvidia.com/mig.config.state"
"""Node label in which the MIG manager reports its progress on the node: ``pending`` while it repartitions,
``rebooting`` when a reboot is needed, then ``success`` or ``failed`` (:data:`SOURCE_MIG_CONFIG_STATE`)."""
MIG_CONFIG_STATE_SUCCESS = "success"
""":data:`MIG_CONFIG_STATE_LABEL` once the node's GPUs have the layout its :data:`MIG_CONFIG_LABEL` selects."""
SOURCE_MIG_CONFIG_STATE = (
    "https://github.com/NVIDIA/mig-parted/blob/bd7160f43f16462eeb21e1eda5e67b5b6b03fd7d/"
    "pkg/mig/reconfigure/reconfigure.go"
)
"""mig-parted's reconfigure step, which the GPU Operator's MIG manager runs: ``migConfigStateLabel =
"nvidia.com/mig.config.state"``, set to ``pending`` / ``rebooting`` while it works and to ``migStateSuccess =
"success"`` or ``migStateFailed = "failed"`` at the end."""

MIG_RECONFIGURE_DRAINS = (
    f"its {MIG_CONFIG_LABEL} label changed: the GPU Operator's MIG Manager repartitions the GPUs of every node, which"
    " needs every GPU workload on them stopped first"
)
"""Why a changed MIG config label drains a pool's GPU workloads though its nodes stay: the MIG Manager "requires that
no user workloads are running on the GPUs being configured" (and some clouds reboot the node) [source:
:data:`SOURCE_MIG_MANAGER_RECONFIGURE`]."""
SOURCE_MIG_MANAGER_RECONFIGURE = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"
)
SOURCE_MIG_PARTED_SPEC = "https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go"

MigConfigSpec = TypedDict(
    "MigConfigSpec",
    {
        "devices": Literal["all"] | list[int],
        "mig-enabled": bool,
        "mig-devices": NotRequired[dict[str, int]],
        "device-filter": NotRequired[str | list[str]],
    },
)
"""One entry of a named mig-parted config: which GPUs (``all`` or indices), MIG on or off, and, when on, the MIG
devices to make on each of those GPUs (profile -> count). ``device-filter`` limits the entry to GPUs of given PCI
device ids; the library does not render it."""

MigPartedConfig = TypedDict(
    "MigPartedConfig",
    {"version": Literal["v1"], "mig-configs": dict[str, list[MigConfigSpec]]},
)
"""A mig-parted config file: ``version: v1`` and the named configs."""


def all_disabled() -> list[MigConfigSpec]:
    """The ``all-disabled`` config: MIG mode off on every GPU (no ``mig-devices``, which the parser forbids)."""
    return [{"devices": "all", "mig-enabled": False}]


def mig_config_spec(mig: Mig) -> list[MigConfigSpec]:
    """The config of one MIG layout: every GPU of the node gets the layout's devices (profiles sorted by name)."""
    return [{"devices": "all", "mig-enabled": True, "mig-devices": dict(sorted(mig.devices.items()))}]


def mig_config_problems(specs: Iterable[GpuNodePoolSpec], path: str = "pools") -> list[Problem]:
    """Pools whose MIG layouts would share a config name with different devices.

    A uniform profile is named ``all-<profile>`` whatever the GPU, so ``1g.10gb`` on an A100 40GB (4 per GPU) and on
    an A100 80GB (7 per GPU) would need two different configs of one name; one config entry can hold only one
    layout for ``devices: all``. Paths are ``<path>[<index>].mig.profile`` with the profile as written (the config
    name and the per-GPU counts are derived, so they are in the message).
    """
    problems: list[Problem] = []
    seen: dict[str, tuple[int, GpuNodePoolSpec, dict[str, int]]] = {}
    for index, spec in enumerate(specs):
        if spec.mig is None:
            continue
        name, devices = spec.mig.config_name, dict(spec.mig.devices)
        first_index, first, first_devices = seen.setdefault(name, (index, spec, devices))
        if first is spec or first_devices == devices:
            continue
        problems.append(
            Problem(
                f"{path}[{index}].mig.{spec.mig.given_field}",
                spec.mig.given,
                f"{path}[{first_index}] ({first.gpu.name}) has it too, with {layout_text(first_devices)} per GPU, and "
                f"here ({spec.gpu.name}) it is {layout_text(devices)}; both select the mig-parted config {name!r} "
                "(node label nvidia.com/mig.config), and one mig-parted config name can hold only one layout for "
                "all GPUs",
                "the same layout, or a mig.layout for one of the pools (its config is then custom-<pool>)",
                SOURCE_MIG_PARTED_SPEC,
            )
        )
    return problems


def mig_parted_config(specs: Iterable[GpuNodePoolSpec]) -> MigPartedConfig:
    """The mig-parted config for ``specs``: ``all-disabled`` first, then each MIG pool's config, sorted by name.

    Raises:
        GpuSpecError: when two pools would give one config name different layouts (:func:`mig_config_problems`).
    """
    pools = list(specs)
    problems = mig_config_problems(pools)
    if problems:
        raise GpuSpecError(problems)
    named = {spec.mig.config_name: mig_config_spec(spec.mig) for spec in pools if spec.mig is not None}
    configs: dict[str, list[MigConfigSpec]] = {ALL_DISABLED: all_disabled()}
    configs.update(dict(sorted(named.items())))
    return {"version": MIG_PARTED_VERSION, "mig-configs": configs}


def mig_config_yaml(config: MigPartedConfig) -> str:
    """The config as block YAML, keys in the model's order (``version`` first)."""
    return yaml.safe_dump(dict(config), sort_keys=False, default_flow_style=False)


def mig_config_map(specs: Iterable[GpuNodePoolSpec]) -> dict[str, str]:
    """ConfigMap data for the MIG manager: ``{"config.yaml": <mig-parted config>}``.

    Raises:
        GpuSpecError: as :func:`mig_parted_config`.
    """
    return {MIG_CONFIG_KEY: mig_config_yaml(mig_parted_config(specs))}


def mig_node_labels(spec: GpuNodePoolSpec) -> dict[str, str]:
    """The MIG manager's selection label for a pool: its layout's config, ``all-disabled`` on a MIG-capable GPU
    without MIG (stated rather than left to the operator's default), none on GPUs without MIG."""
    if spec.mig is not None:
        return {MIG_CONFIG_LABEL: spec.mig.config_name}
    if spec.gpu.mig_capable:
        return {MIG_CONFIG_LABEL: ALL_DISABLED}
    return {}
