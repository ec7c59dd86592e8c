"""NVIDIA's MIG table, read from the GPU Operator's default mig-parted config (test-only oracle).

The file is an unchanged copy of NVIDIA/gpu-operator v26.7.0 ``assets/state-mig-manager/0400_configmap.yaml``
(``tests/reference/README.md``). Its ``config.yaml`` holds, for every MIG profile NVIDIA ships a default for, a
uniform config ``all-<profile>`` with the most instances of that profile one GPU holds, and ``all-balanced``, one
mixed layout per group of PCI device ids. Most uniform configs apply to every GPU (no ``device-filter``); where one
profile name means different counts on different GPUs, the config has one entry per device group. This module
reads the data only, never the YAML comments (which misplace several configs).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

TABLE_PATH = (
    Path(__file__).resolve().parent.parent
    / "reference"
    / "nvidia"
    / "gpu-operator-v26.7.0"
    / "assets"
    / "state-mig-manager"
    / "0400_configmap.yaml"
)
TABLE_BLOB = "90cdde0954d4c405ca41353fc58d5cd67111eb68"
"""Git blob id of the upstream file at NVIDIA/gpu-operator v26.7.0 (commit 10ee5b3638b89e11e949412aafa5ba99279c3721)."""

NOT_UNIFORM = ("all-disabled", "all-enabled", "all-balanced")
"""Configs of the table that are not one profile repeated: MIG off, MIG on without devices, the mixed layouts."""

_SIZE = re.compile(r"^(?P<compute>[0-9]+)g\.(?P<memory>[0-9]+)gb(?P<attributes>[+-].*)?$")


@dataclass(frozen=True)
class UniformConfig:
    """One entry of a uniform config: ``count`` instances of ``profile`` on GPUs of ``device_filter`` (``None``:
    every GPU)."""

    name: str
    profile: str
    count: int
    device_filter: tuple[str, ...] | None


def git_blob_id(data: bytes) -> str:
    """The id git gives a file of these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@cache
def mig_parted_file() -> Mapping[str, Any]:
    """The ConfigMap's ``config.yaml``, parsed: the mig-parted config file the MIG manager reads by default."""
    config_map = yaml.safe_load(TABLE_PATH.read_text("utf-8"))
    return yaml.safe_load(config_map["data"]["config.yaml"])  # type: ignore[no-any-return]


def mig_configs() -> Mapping[str, Any]:
    """The ``mig-configs`` of the table: config name -> list of entries, as mig-parted reads them."""
    return mig_parted_file()["mig-configs"]  # type: ignore[no-any-return]


def _filter(entry: Mapping[str, Any]) -> tuple[str, ...] | None:
    given = entry.get("device-filter")
    if given is None:
        return None
    return (given,) if isinstance(given, str) else tuple(given)


@cache
def uniform_configs() -> tuple[UniformConfig, ...]:
    """Every entry of every uniform config, in the file's order."""
    found: list[UniformConfig] = []
    for name, entries in mig_configs().items():
        if name in NOT_UNIFORM:
            continue
        for entry in entries:
            ((profile, count),) = entry["mig-devices"].items()
            found.append(UniformConfig(name, profile, count, _filter(entry)))
    return tuple(found)


def uniform_counts(device_id: str) -> dict[str, int]:
    """Profile -> most instances per GPU, for the uniform configs the table applies to ``device_id`` (those without
    a device filter and those whose filter names it).

    Raises:
        ValueError: when two entries give one profile on this device (the table would be ambiguous).
    """
    counts: dict[str, int] = {}
    for config in uniform_configs():
        if config.device_filter is not None and device_id not in config.device_filter:
            continue
        if config.profile in counts:
            raise ValueError(f"{config.profile} is given twice for {device_id}")
        counts[config.profile] = config.count
    return counts


def balanced_groups() -> list[tuple[str, ...]]:
    """The device groups of ``all-balanced``, in the file's order."""
    return [_filter(entry) or () for entry in mig_configs()["all-balanced"]]


def balanced_layout(device_id: str) -> dict[str, int]:
    """The ``all-balanced`` layout of ``device_id``.

    Raises:
        KeyError: when no ``all-balanced`` entry names the device.
    """
    for entry in mig_configs()["all-balanced"]:
        if device_id in (_filter(entry) or ()):
            return dict(entry["mig-devices"])
    raise KeyError(device_id)


def profile_size(profile: str) -> tuple[int, int, str]:
    """``(compute slices, memory GB, attributes)`` read from a profile name: ``1g.10gb+me`` -> ``(1, 10, "+me")``."""
    match = _SIZE.match(profile)
    if match is None:
        raise ValueError(f"not a <G>g.<GB>gb profile: {profile!r}")
    return int(match["compute"]), int(match["memory"]), match["attributes"] or ""
