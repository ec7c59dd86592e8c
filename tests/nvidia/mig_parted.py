"""mig-parted's config parser rules, re-implemented to check what the library renders (test-only).

:func:`mig_parted_problems` rejects a parsed mig-parted config file for the reasons the MIG manager would reject
it on the node, so the tests can check every rendered ``config.yaml`` against the parser rather than only against
our own expected text. It lives with the tests because nothing in the package needs it: the package renders
configs from validated specs (:mod:`gpu_components.nvidia.mig`).

Sources:
- Config format and parser: https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go
- Profile name format (go-nvlib v0.12.0, vendored by mig-parted v0.15.0):
  https://github.com/NVIDIA/go-nvlib/blob/v0.12.0/pkg/nvlib/device/mig_profile.go and
  https://github.com/NVIDIA/mig-parted/blob/v0.15.0/pkg/types/mig_config.go
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeGuard

from gpu_components.errors import Problem
from gpu_components.nvidia.mig import MIG_PARTED_VERSION, SOURCE_MIG_PARTED_SPEC

SOURCE_MIG_PROFILE_FORMAT = "https://github.com/NVIDIA/go-nvlib/blob/v0.12.0/pkg/nvlib/device/mig_profile.go"
SOURCE_MIG_COUNTS = "https://github.com/NVIDIA/mig-parted/blob/v0.15.0/pkg/types/mig_config.go"

_SPEC_KEYS = ("version", "mig-configs")
_ENTRY_KEYS = ("devices", "mig-enabled", "mig-devices", "device-filter")
_FIELD = re.compile(r"^[0-9]+$")


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
