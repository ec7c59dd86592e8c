"""Pure renderer and checker for NVIDIA mig-parted configs, the file the GPU Operator's MIG manager applies.

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
contributes its layout under its ``Mig.config_name`` (``all-<profile>`` for a uniform profile, ``custom-<pool>``
for a layout); ``all-disabled`` is always present and is the MIG manager's default. Layouts were already checked
against the GPU model's profiles and capacity by :mod:`gpu_components.spec`; this module renders them and encodes
mig-parted's own parser rules (:func:`mig_parted_problems`), so a rendered or hand-written config is rejected
here for the same reasons the MIG manager would reject it on the node.

Sources:
- Config format and parser: https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go
- Profile name format (go-nvlib v0.12.0, vendored by mig-parted v0.15.0):
  https://github.com/NVIDIA/go-nvlib/blob/v0.12.0/pkg/nvlib/device/mig_profile.go and
  https://github.com/NVIDIA/mig-parted/blob/v0.15.0/pkg/types/mig_config.go
- ``config.yaml`` key, ``all-disabled`` default: GPU Operator v26.7.0 ``deployments/gpu-operator/values.yaml``
  (``migManager.config``) and ``controllers/object_controls.go`` (``TransformMIGManager``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal, TypeGuard

import yaml
from typing_extensions import NotRequired, TypedDict

from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import GpuNodePoolSpec, Mig

MIG_PARTED_VERSION: Literal["v1"] = "v1"
"""The only ``version`` mig-parted's parser accepts."""
ALL_DISABLED = "all-disabled"
"""Name of the config that turns MIG off on every GPU; the MIG manager's default (``migManager.config.default``)."""
MIG_CONFIG_KEY = "config.yaml"
"""ConfigMap key the MIG manager reads a custom config from (required by the GPU Operator)."""
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
"""Node label that selects the node's entry of the mig-parted config."""

SOURCE_MIG_PARTED_SPEC = "https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go"
SOURCE_MIG_PROFILE_FORMAT = "https://github.com/NVIDIA/go-nvlib/blob/v0.12.0/pkg/nvlib/device/mig_profile.go"
SOURCE_MIG_COUNTS = "https://github.com/NVIDIA/mig-parted/blob/v0.15.0/pkg/types/mig_config.go"

_SPEC_KEYS = ("version", "mig-configs")
_ENTRY_KEYS = ("devices", "mig-enabled", "mig-devices", "device-filter")
_FIELD = re.compile(r"^[0-9]+$")

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
    layout for ``devices: all``. Paths are ``<path>[<index>].mig``.
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
                f"{path}[{index}].mig",
                devices,
                f"MIG config {name!r} already holds {first_devices} for {path}[{first_index}] ({first.gpu.name}); "
                "one mig-parted config name can hold only one layout for all GPUs",
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


# ---------------------------------------------------------------------------------------------------------------
# mig-parted's parser rules
# ---------------------------------------------------------------------------------------------------------------


def mig_profile_format_problem(profile: str) -> str | None:
    """Why ``profile`` is not a MIG profile name mig-parted parses, or ``None`` when it is.

    The format (go-nvlib ``parseMigProfile``): ``[<C>c.]<G>g.<GB>gb``, optionally followed by ``+`` or ``-`` and a
    comma-separated list of attributes (``1g.10gb+me``); not both ``+`` and ``-``; attributes are unique, not empty,
    letters, digits and dots only, not starting with a digit or a dot and not ending with a dot.
    """
    if profile == "":
        return "profile is the empty string"
    positive = profile.split("+", 1)
    negative = profile.split("-", 1)
    if len(positive) == 2 and len(negative) == 2:
        return "contains both '+' and '-' attributes"
    parts = positive if len(positive) == 2 else negative
    fields = parts[0].split(".", 2)
    suffixes = {3: ("c", "g", "gb"), 2: ("g", "gb")}.get(len(fields))
    if suffixes is None:
        return "expected <G>g.<GB>gb or <C>c.<G>g.<GB>gb"
    for text, suffix in zip(fields, suffixes, strict=True):
        if not text.endswith(suffix) or not _FIELD.match(text[: -len(suffix)]):
            return f"malformed field {text!r} (expected a number followed by {suffix!r})"
    if len(parts) == 2:
        attributes = parts[1].split(",")
        if len(set(attributes)) != len(attributes):
            return "non-unique attribute"
        for attribute in attributes:
            if attribute == "":
                return "empty attribute"
            if attribute[0].isdigit() or attribute[0] == "." or attribute[-1] == ".":
                return f"attribute {attribute!r} begins with a digit or a dot, or ends with a dot"
            if not all(c.isascii() and (c.isalnum() or c == ".") for c in attribute):
                return f"attribute {attribute!r} has a character other than a letter, digit or dot"
    return None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _mig_devices_problems(devices: object, where: str) -> list[Problem]:
    if not isinstance(devices, Mapping):
        return [
            Problem(where, devices, "must map MIG profiles to counts", "e.g. {'1g.10gb': 7}", SOURCE_MIG_PARTED_SPEC)
        ]
    problems: list[Problem] = []
    for profile, count in devices.items():
        reason = mig_profile_format_problem(profile) if isinstance(profile, str) else "not a string"
        if reason is not None:
            problems.append(
                Problem(
                    f"{where}[{profile!r}]",
                    profile,
                    f"not a MIG profile name: {reason}",
                    "<G>g.<GB>gb[+attributes], e.g. 1g.10gb or 1g.10gb+me",
                    SOURCE_MIG_PROFILE_FORMAT,
                )
            )
        if not _is_int(count) or count < 0:
            problems.append(
                Problem(
                    f"{where}[{profile!r}]", count, "a count must be a whole number >= 0", ">= 0", SOURCE_MIG_COUNTS
                )
            )
    if devices and not problems and not any(count > 0 for count in devices.values()):
        problems.append(Problem(where, dict(devices), "all counts are 0", "at least one count > 0", SOURCE_MIG_COUNTS))
    return problems


def _entry_problems(entry: object, where: str) -> list[Problem]:
    if not isinstance(entry, Mapping):
        return [Problem(where, entry, "an entry must be a mapping", ", ".join(_ENTRY_KEYS), SOURCE_MIG_PARTED_SPEC)]
    problems = [
        Problem(f"{where}.{key}", None, "required field is missing", None, SOURCE_MIG_PARTED_SPEC)
        for key in ("devices", "mig-enabled")
        if key not in entry
    ]
    problems += [
        Problem(f"{where}.{key}", entry[key], "unexpected field", ", ".join(_ENTRY_KEYS), SOURCE_MIG_PARTED_SPEC)
        for key in entry
        if key not in _ENTRY_KEYS
    ]
    devices = entry.get("devices", "all")
    if devices != "all" and not (isinstance(devices, list) and all(_is_int(item) for item in devices)):
        problems.append(
            Problem(f"{where}.devices", devices, "must be 'all' or a list of GPU indices", "all, [0, 1, ...]")
        )
    device_filter = entry.get("device-filter", "")
    if not isinstance(device_filter, str) and not (
        isinstance(device_filter, list) and all(isinstance(item, str) for item in device_filter)
    ):
        problems.append(Problem(f"{where}.device-filter", device_filter, "must be a string or a list of strings", None))
    enabled = entry.get("mig-enabled", False)
    if not isinstance(enabled, bool):
        problems.append(Problem(f"{where}.mig-enabled", enabled, "must be true or false", "true, false"))
        return problems
    devices_given = entry.get("mig-devices")
    if enabled and devices_given is None:
        problems.append(
            Problem(
                f"{where}.mig-devices",
                None,
                "required when mig-enabled is true",
                "e.g. {'1g.10gb': 7}",
                SOURCE_MIG_PARTED_SPEC,
            )
        )
    elif not enabled and devices_given:
        problems.append(
            Problem(
                f"{where}.mig-devices",
                devices_given,
                "MIG devices given while mig-enabled is false",
                "no mig-devices",
                SOURCE_MIG_PARTED_SPEC,
            )
        )
    if devices_given is not None:
        problems += _mig_devices_problems(devices_given, f"{where}.mig-devices")
    return problems


def mig_parted_problems(config: object, path: str = "") -> list[Problem]:
    """Check a parsed mig-parted config file against mig-parted's parser (``api/spec/v1``, v0.15.0).

    Rules: a mapping with ``version`` (exactly ``v1``) and ``mig-configs`` only; ``mig-configs`` has at least one
    named config and each config at least one entry; each entry has ``devices`` (``all`` or a list of indices) and
    ``mig-enabled`` (a bool), ``mig-devices`` when MIG is enabled (``null`` counts as missing) and no MIG devices when
    it is disabled (an empty mapping passes, as in the parser), an optional ``device-filter`` (string or list of
    strings) and no other key; ``mig-devices`` maps valid profile names (:func:`mig_profile_format_problem`) to
    counts >= 0, not all 0.

    Args:
        config: the parsed YAML (e.g. ``yaml.safe_load`` of a ``config.yaml``).
        path: prefix of every problem's path.
    """
    prefix = f"{path}." if path else ""
    if not isinstance(config, Mapping):
        return [Problem(path or "config", config, "a mig-parted config must be a mapping", ", ".join(_SPEC_KEYS))]
    problems: list[Problem] = []
    if config.get("version") != MIG_PARTED_VERSION:
        message = "required field is missing" if "version" not in config else "unknown version"
        problems.append(Problem(f"{prefix}version", config.get("version"), message, "v1", SOURCE_MIG_PARTED_SPEC))
    problems += [
        Problem(f"{prefix}{key}", config[key], "unexpected field", ", ".join(_SPEC_KEYS), SOURCE_MIG_PARTED_SPEC)
        for key in config
        if key not in _SPEC_KEYS
    ]
    configs = config.get("mig-configs")
    if configs is None:
        return problems
    if not isinstance(configs, Mapping) or not configs:
        problems.append(
            Problem(
                f"{prefix}mig-configs",
                configs,
                "at least one named config is required",
                "e.g. {'all-disabled': [...]}",
                SOURCE_MIG_PARTED_SPEC,
            )
        )
        return problems
    for name, entries in configs.items():
        where = f"{prefix}mig-configs[{name!r}]"
        if not isinstance(entries, list) or not entries:
            problems.append(
                Problem(where, entries, "at least one entry is required", "a list of entries", SOURCE_MIG_PARTED_SPEC)
            )
            continue
        for index, entry in enumerate(entries):
            problems += _entry_problems(entry, f"{where}[{index}]")
    return problems
