"""MIG names, in one place: the grammar of MIG profile names and the resource names derived from them.

A MIG (Multi-Instance GPU) profile name says what one GPU instance of a GPU gets: ``<compute>g.<memory>gb``, the
compute slices and the memory in GB (``1g.10gb``), then at most one attribute of the instance's engines:

- ``+me``: with one set of media engines (NVDEC, NVJPG, OFA), e.g. ``1g.10gb+me``;
- ``+me.all``: with all the GPU's media engines, e.g. ``1g.24gb+me.all``;
- ``+gfx``: with graphics (GFX) support, e.g. ``1g.24gb+gfx``;
- ``-me``: without any media engine, e.g. ``1g.24gb-me``.

These are every GPU-instance profile NVML defines (``nvmlGpuInstanceProfile``: the plain profiles of 1, 2, 3, 4,
6, 7 and 8 slices; ``_REV1`` (``+me``), ``_ALL_ME``, ``_GFX``, ``_NO_ME``), named as NVIDIA's go-nvlib names them
(``MigProfileInfo.String``: ``+`` before an attribute, ``-`` before a negated one). NVML has no "without graphics"
profile, so no name ends in ``-gfx``. Compute-instance profiles (``1c.3g.20gb``) are not GPU-instance profiles;
the library partitions GPUs into GPU instances only.

Names derived from a profile turn its ``+`` into ``.``, as NVIDIA's own tools do, because neither a Kubernetes
label value nor an extended-resource name takes a ``+``:

- the NVIDIA device plugin advertises a MIG device of the ``mixed`` strategy as ``nvidia.com/mig-<profile>``:
  ``nvidia.com/mig-1g.10gb.me`` (:func:`mig_resource_name`);
- the mig-parted config that puts one profile on every GPU is ``all-<profile>``, the value of the node label
  ``nvidia.com/mig.config`` that selects it: ``all-1g.10gb.me``, ``all-1g.24gb.me.all``, ``all-1g.24gb.gfx``,
  ``all-1g.24gb-me`` (:func:`mig_config_name`).

Every part of the library that reads or writes these names uses this module: the pool spec
(:mod:`gpu_components.spec`), the catalog loader, the device plugin renderer, the capacity record and the
workload helpers.

Sources:
- Profile names and their engines: NVIDIA MIG User Guide, "Supported MIG Profiles",
  https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html, and NVIDIA's own MIG
  table, the GPU Operator's default mig-parted config (v26.7.0 ``assets/state-mig-manager/0400_configmap.yaml``:
  ``1g.24gb+me``, ``1g.24gb+me.all``, ``1g.24gb+gfx``, ``1g.24gb-me`` on the RTX PRO 6000 Blackwell).
- The name format and the attributes ``me``, ``me.all``, ``gfx``:
  https://github.com/NVIDIA/go-nvlib/blob/main/pkg/nvlib/device/mig_profile.go (``AttributeMediaExtensions``,
  ``AttributeMediaExtensionsAll``, ``AttributeGraphics``, ``NegAttributes``), over the profiles of NVML's
  ``nvml.h`` (``NVML_GPU_INSTANCE_PROFILE_*``).
- Resource names: k8s-device-plugin v0.20.0 ``internal/rm/rm.go`` and ``internal/resource/nvml-mig-device.go``
  (``+`` replaced by ``.`` in ``mig-<profile>``).
- Config names: NVIDIA's default mig-parted config, GPU Operator v26.7.0
  ``assets/state-mig-manager/0400_configmap.yaml`` (``all-1g.10gb.me`` holds ``1g.10gb+me``, ``all-1g.24gb.gfx``
  ``1g.24gb+gfx``, ``all-1g.24gb-me`` ``1g.24gb-me``); label values: Kubernetes "Labels and Selectors", syntax and
  character set (63 characters at most, alphanumerics, ``-``, ``_`` and ``.``, alphanumeric at both ends).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "MIG_PROFILE_ATTRIBUTES",
    "MIG_PROFILE_FORMAT",
    "MIG_RESOURCE_PREFIX",
    "MIG_UNIFORM_CONFIG_PREFIX",
    "MigProfileName",
    "mig_config_name",
    "mig_profile_spelling",
    "mig_resource_name",
    "parse_mig_profile_name",
]

SOURCE_MIG_PROFILES = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"

MIG_PROFILE_ATTRIBUTES: Mapping[str, str] = MappingProxyType(
    {
        "+me": "one set of media engines (NVDEC, NVJPG, OFA)",
        "+me.all": "all the GPU's media engines",
        "+gfx": "graphics (GFX) support",
        "-me": "no media engine",
    }
)
"""The attributes a profile name may end with -> what the GPU instance then has (module docstring, sources)."""
MIG_PROFILE_FORMAT = f"<compute>g.<memory>gb[{'|'.join(MIG_PROFILE_ATTRIBUTES)}], e.g. 1g.10gb"
"""The grammar as problem messages state it (the ``valid`` of a malformed name)."""
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
"""Prefix of the extended resource of a MIG device under the device plugin's ``mixed`` strategy."""
MIG_UNIFORM_CONFIG_PREFIX = "all-"
"""Prefix of the name of a mig-parted config that puts one profile on every GPU (NVIDIA's default config)."""

_NAME = re.compile(
    r"(?P<compute>[1-9][0-9]*)g\.(?P<memory>[1-9][0-9]*)gb(?P<attribute>"
    + "|".join(re.escape(attribute) for attribute in MIG_PROFILE_ATTRIBUTES)
    + ")?"
)


@dataclass(frozen=True, slots=True)
class MigProfileName:
    """A parsed MIG profile name.

    Attributes:
        compute_slices: the ``<compute>`` of ``<compute>g``: compute slices of the GPU instance.
        memory_gb: the ``<memory>`` of ``<memory>gb``: its memory in GB, as NVIDIA rounds it.
        attribute: one of :data:`MIG_PROFILE_ATTRIBUTES`, or ``""`` for a plain profile.
    """

    compute_slices: int
    memory_gb: int
    attribute: str

    @property
    def media_extensions(self) -> bool:
        """Whether the instance has media engines of its own (``+me``, ``+me.all``)."""
        return self.attribute in ("+me", "+me.all")


def parse_mig_profile_name(name: str) -> MigProfileName | None:
    """The parts of MIG profile name ``name`` (``1g.10gb+me`` -> 1 compute slice, 10 GB, ``+me``), or ``None`` when
    ``name`` is not a GPU-instance profile name of the grammar (:data:`MIG_PROFILE_FORMAT`)."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    return MigProfileName(int(match["compute"]), int(match["memory"]), match["attribute"] or "")


_DOTTED_NAME = re.compile(
    r"(?P<base>[0-9]+g\.[0-9]+gb)\.(?P<attribute>"
    + "|".join(re.escape(attribute[1:]) for attribute in MIG_PROFILE_ATTRIBUTES if attribute.startswith("+"))
    + ")"
)


def mig_profile_spelling(name: str) -> str | None:
    """The profile name of the grammar that ``name`` writes another way, or ``None`` when there is none: another
    case (``1G.24GB`` -> ``1g.24gb``, ``1g.24gb+ME`` -> ``1g.24gb+me``) or the ``.`` spelling of names derived from
    a profile (:func:`mig_config_name`, ``nvidia.com/mig.config``: ``1g.24gb.me.all`` -> ``1g.24gb+me.all``,
    ``all-1g.10gb.me`` -> ``1g.10gb+me``). For a "did you mean" of a name :func:`parse_mig_profile_name` refuses."""
    lowered = name.strip().lower().removeprefix(MIG_UNIFORM_CONFIG_PREFIX)
    dotted = _DOTTED_NAME.fullmatch(lowered)
    candidate = f"{dotted['base']}+{dotted['attribute']}" if dotted else lowered
    if candidate == name or parse_mig_profile_name(candidate) is None:
        return None
    return candidate


def _dotted(profile: str) -> str:
    """``profile`` with each ``+`` turned into ``.``, as NVIDIA spells names derived from a profile."""
    return profile.replace("+", ".")


def mig_resource_name(profile: str) -> str:
    """The extended resource the NVIDIA device plugin advertises for a MIG profile under the ``mixed`` strategy:
    ``1g.10gb`` -> ``nvidia.com/mig-1g.10gb``, ``1g.10gb+me`` -> ``nvidia.com/mig-1g.10gb.me`` (``+`` becomes ``.``:
    a Kubernetes resource name takes no ``+``), ``1g.24gb-me`` -> ``nvidia.com/mig-1g.24gb-me``."""
    return f"{MIG_RESOURCE_PREFIX}{_dotted(profile)}"


def mig_config_name(profile: str) -> str:
    """The name of the mig-parted config that puts ``profile`` on every GPU of a node, as NVIDIA's default config
    names it: ``1g.10gb`` -> ``all-1g.10gb``, ``1g.10gb+me`` -> ``all-1g.10gb.me``, ``1g.24gb+me.all`` ->
    ``all-1g.24gb.me.all``, ``1g.24gb-me`` -> ``all-1g.24gb-me``. The name is also the value of the node label
    ``nvidia.com/mig.config`` that selects the config, so ``+`` becomes ``.``: a label value takes no ``+``
    (module docstring, sources)."""
    return f"{MIG_UNIFORM_CONFIG_PREFIX}{_dotted(profile)}"
