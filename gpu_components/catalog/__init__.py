"""GPU knowledge as data: GPU models and the instance types of AWS, Azure and GCP.

The catalog holds two kinds of facts, each in a YAML file under ``catalog/data/`` in which every entry names
the public page it comes from (``source``):

* ``gpus.yaml`` — NVIDIA GPU models (:class:`GpuModel`): memory, architecture and CUDA compute capability,
  from NVIDIA's product pages and the MIG User Guide's "Supported GPUs" table (AWS's instance pages for the
  AWS-only A10G and T4G). For MIG-capable GPUs also the MIG profiles, with their maximum instances per GPU
  and memory slices, from the MIG User Guide's "Supported MIG Profiles" tables
  (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html).
* ``instance_types.yaml`` — per cloud, the GPU instance types (:class:`InstanceType`): GPU vendor, model,
  GPUs per node and CPU architecture, from the AWS instance type specifications
  (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html), the Azure VM size pages
  (https://learn.microsoft.com/azure/virtual-machines/sizes/) and GCP's GPU and accelerator-optimized
  machine pages (https://cloud.google.com/compute/docs/gpus,
  https://cloud.google.com/compute/docs/accelerator-optimized-machines), which also give the GKE
  accelerator type of each GCP GPU machine type. The file also lists families/series *without* GPUs
  (``m5``, ``Standard_D``, ``e2``, and GCP ``n1``, to which GKE attaches GPUs separately), matched by name
  pattern, so that a non-GPU type is recognised as one rather than reported as unknown. AMD GPU types (AWS
  g4ad, Azure NVv4 and ND MI300X v5) are listed with ``gpu_vendor="amd"`` so callers can reject them by name.

Not supported: Azure NVadsA10 v5 (``Standard_NV*ads_A10_v5``), whose VMs get a fraction of an A10 through
NVIDIA vGPU, and Azure NC RTX PRO 6000 BSE v6 (``Standard_NC*_RTXPRO6000BSE_v6``), whose GPUs are exposed through
SR-IOV to offer partial-GPU sizes, need NVIDIA's vGPU (GRID) driver and are not supported on AKS
(https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nc-rtxpro6000-bse-v6-series-overview);
a GPU count does not describe them honestly, so those sizes are not listed. NVadsA10 v5 and AWS's fractional-GPU
G6f / Gr6f are refused by name with the reason (the clouds' ``fractional_gpu_types`` facts,
:func:`gpu_components.spec.fractional_gpu_types`); the RTX PRO 6000 BSE v6 sizes are unknown instance types, as
any name the catalog does not know.

The catalog only provides lookups and, for unknown names, the closest known names
(:class:`CatalogLookupError`). The rule that an instance type the catalog does not know is an error unless
the caller states its GPU model and count explicitly is enforced by ``gpu_components.spec``, not here.

The data files are read once, on first use, and validated; a malformed file raises :class:`ValueError`
naming every problem found.
"""

from __future__ import annotations

import difflib
import functools
import importlib.resources
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any, Literal, TypeVar, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from gpu_components import _yaml
from gpu_components.mig import MIG_PROFILE_FORMAT, parse_mig_profile_name

__all__ = [
    "CatalogLookupError",
    "Cloud",
    "CpuArchitecture",
    "GpuModel",
    "GpuVendor",
    "InstanceType",
    "MigProfile",
    "find_instance_type",
    "gcp_accelerator_type",
    "gpu_model",
    "gpu_models",
    "instance_type",
    "instance_types",
]

Cloud = Literal["aws", "azure", "gcp"]
CpuArchitecture = Literal["x86_64", "arm64"]
GpuVendor = Literal["nvidia", "amd", "none"]
"""``"none"``: not a GPU instance type (e.g. ``m5.large``, or AWS Inferentia/Trainium)."""

_CLOUDS: tuple[Cloud, ...] = get_args(Cloud)
_DATA_PACKAGE = "gpu_components.catalog"
_GPUS_FILE = "data/gpus.yaml"
_INSTANCE_TYPES_FILE = "data/instance_types.yaml"
# difflib settings for "did you mean": at most 3 names, similarity ratio >= 0.5.
_SUGGESTIONS = 3
_SUGGESTION_CUTOFF = 0.5


# ----------------------------------------------------------------------------------------------- public types


@dataclass(frozen=True, slots=True)
class MigProfile:
    """One MIG GPU-instance profile of a GPU model (NVIDIA MIG User Guide, "Supported MIG Profiles").

    Attributes:
        name: the profile as NVIDIA spells it, e.g. ``"1g.10gb"`` or ``"1g.10gb+me"`` (the grammar:
            :mod:`gpu_components.mig`).
        max_instances: how many instances of this profile alone fit on one GPU.
        compute_slices: compute slices the profile takes (the ``N`` of ``Ng``): 1, 2, 3, 4 or 7.
        memory_slices: memory slices the profile takes, out of the GPU's total (8; A30, RTX PRO 6000: 4).
        memory_gb: GPU memory of one instance in GB (the ``M`` of ``Mgb``).
        media_extensions: whether the profile carries media engines of its own (``+me``, ``+me.all``).
    """

    name: str
    max_instances: int
    compute_slices: int
    memory_slices: int
    memory_gb: int
    media_extensions: bool


@dataclass(frozen=True, slots=True)
class GpuModel:
    """An NVIDIA GPU model.

    Attributes:
        name: catalog key, e.g. ``"T4"``, ``"A100-80GB"``, ``"H100-94GB"``, ``"B200"``, ``"GB200"``, ``"B300"``,
            ``"GB300"``, ``"RTX-PRO-6000"`` (RTX PRO 6000 Blackwell Server Edition).
        vendor: always ``"nvidia"`` (AMD GPUs are described on their instance types only).
        architecture: ``"Turing"``, ``"Volta"``, ``"Ampere"``, ``"Ada Lovelace"``, ``"Hopper"`` or
            ``"Blackwell"``.
        memory_gb: GPU memory in GB.
        compute_capability: CUDA compute capability as ``(major, minor)``, e.g. ``(7, 5)`` for T4.
        mig_profiles: MIG profiles by name, in the MIG User Guide's order; empty when not MIG-capable.
            Read-only (a ``types.MappingProxyType``).
        source: URL of the page the model's memory, architecture and compute capability come from.
        mig_source: URL of the page its MIG profiles and their instance counts come from (gpus.yaml's ``mig``
            block ``source``); ``None`` when not MIG-capable. Defaults to ``None``.
        mig_balanced: NVIDIA's ``all-balanced`` layout of the GPU, profile -> instances per GPU (gpus.yaml's
            ``mig.balanced.layout``: the GPU Operator's default mig-parted config, the entry of the GPU's PCI
            device id); empty when not MIG-capable. Read-only. Defaults to empty.
        mig_balanced_source: URL of the file ``mig_balanced`` comes from; ``None`` when not MIG-capable. Defaults
            to ``None``.
    """

    name: str
    vendor: GpuVendor
    architecture: str
    memory_gb: int
    compute_capability: tuple[int, int]
    mig_profiles: Mapping[str, MigProfile] = field(hash=False)
    source: str
    mig_source: str | None = None
    mig_balanced: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    mig_balanced_source: str | None = None

    def __post_init__(self) -> None:
        for name in ("mig_profiles", "mig_balanced"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    @property
    def mig_capable(self) -> bool:
        """Whether the GPU supports MIG (it has at least one MIG profile)."""
        return bool(self.mig_profiles)

    @property
    def mig_compute_slices(self) -> int:
        """Compute slices per GPU under MIG: 7 (A30, RTX PRO 6000: 4); 0 when not MIG-capable.

        Equal to the full-GPU profile's (the loader checks this against ``mig.compute_slices`` in gpus.yaml).
        """
        return max((profile.compute_slices for profile in self.mig_profiles.values()), default=0)

    @property
    def mig_memory_slices(self) -> int:
        """Memory slices per GPU under MIG: 8 (A30, RTX PRO 6000: 4); 0 when not MIG-capable.

        Equal to the full-GPU profile's (the loader checks this against ``mig.memory_slices`` in gpus.yaml).
        """
        return max((profile.memory_slices for profile in self.mig_profiles.values()), default=0)


@dataclass(frozen=True, slots=True)
class InstanceType:
    """An instance type (AWS), VM size (Azure) or machine type (GCP) and the GPUs it carries.

    Attributes:
        cloud: ``"aws"``, ``"azure"`` or ``"gcp"``.
        name: as the cloud spells it, e.g. ``"p4d.24xlarge"``, ``"Standard_NC24ads_A100_v4"`` or
            ``"a2-highgpu-1g"``.
        gpu_vendor: ``"nvidia"``, ``"amd"``, or ``"none"`` for a type without GPUs.
        gpu_model: the :class:`GpuModel` name for NVIDIA types; ``None`` otherwise (AMD GPUs are named in
            ``gpu_description``).
        gpu_count: GPU devices per node; 0 for ``"none"``. Azure NVv4 sizes each expose one device that is a
            fraction of an AMD MI25 (said in ``gpu_description``).
        cpu_architecture: ``"x86_64"`` or ``"arm64"``.
        gpu_description: human-readable, e.g. ``"8 x NVIDIA A100 40GB"`` or ``"4 x AMD Radeon Pro V520"``.
        source: URL of the page the entry comes from.
        accelerator_type: GCP only: the GKE/Compute Engine accelerator type of a GPU machine type, e.g.
            ``"nvidia-tesla-a100"`` or ``"nvidia-h100-mega-80gb"``; ``None`` elsewhere and for non-GPU types.
    """

    cloud: Cloud
    name: str
    gpu_vendor: GpuVendor
    gpu_model: str | None
    gpu_count: int
    cpu_architecture: CpuArchitecture
    gpu_description: str
    source: str
    accelerator_type: str | None = None


LookupKind = Literal["GPU model", "instance type"]


class CatalogLookupError(LookupError):
    """A GPU model or instance type the catalog does not know (or a GPU model a cloud does not offer).

    Attributes:
        kind: ``"GPU model"`` or ``"instance type"``.
        key: the name that was looked up.
        cloud: the cloud it was looked up for, or ``None`` for cloud-independent lookups.
        suggestions: up to 3 known names closest to ``key`` (``difflib.get_close_matches``, cutoff 0.5,
            compared case-insensitively), best first; empty when nothing is close.
        source: URL of the page that lists the known names of this kind.

    ``str()`` names the key, the cloud and the suggestions.
    """

    kind: LookupKind
    key: str
    cloud: Cloud | None
    suggestions: tuple[str, ...]
    source: str
    _reason: str | None

    def __init__(
        self,
        kind: LookupKind,
        key: str,
        *,
        cloud: Cloud | None = None,
        suggestions: Sequence[str] = (),
        source: str,
        reason: str | None = None,
    ) -> None:
        self.kind = kind
        self.key = key
        self.cloud = cloud
        self.suggestions = tuple(suggestions)
        self.source = source
        self._reason = reason
        where = f" for cloud {cloud!r}" if cloud is not None else ""
        head = f"{kind} {key!r} {reason}" if reason else f"unknown {kind} {key!r}{where}"
        if self.suggestions:
            hint = "did you mean " + ", ".join(repr(name) for name in self.suggestions) + "?"
        else:
            hint = f"no known {kind} name is close to it"
        super().__init__(f"{head}; {hint} (known names: {source})")

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword-only arguments need a partial to survive pickling (e.g. across worker processes).
        rebuild = functools.partial(
            CatalogLookupError,
            cloud=self.cloud,
            suggestions=self.suggestions,
            source=self.source,
            reason=self._reason,
        )
        return (rebuild, (self.kind, self.key))


# ----------------------------------------------------------------------------------------------- lookups


def gpu_model(name: str) -> GpuModel:
    """Return the GPU model called ``name`` (exact catalog key, e.g. ``"A100-80GB"``).

    Raises:
        CatalogLookupError: ``name`` is not a catalog GPU model (``kind="GPU model"``, ``cloud=None``);
            its ``suggestions`` are the closest known model names.
    """
    catalog = _catalog()
    model = catalog.gpu_models.get(name)
    if model is None:
        raise CatalogLookupError(
            "GPU model",
            name,
            suggestions=_suggest(name, catalog.gpu_models),
            source=catalog.gpu_models_source,
        )
    return model


def gpu_models() -> tuple[GpuModel, ...]:
    """All catalog GPU models, sorted by name."""
    return _catalog().sorted_gpu_models


def find_instance_type(cloud: Cloud, name: str) -> InstanceType | None:
    """Return what the catalog knows of instance type ``name`` on ``cloud``, or ``None`` if it knows nothing.

    ``name`` must be spelled exactly as the cloud lists it (case included). Listed GPU types are returned as
    catalogued. Other names that match a known non-GPU family (e.g. ``m5.large``, ``Standard_D4s_v5``,
    ``e2-standard-4``, ``n1-standard-8``) give an :class:`InstanceType` with ``gpu_vendor="none"``,
    ``gpu_model=None``, ``gpu_count=0`` and the family's CPU architecture.

    Raises:
        ValueError: ``cloud`` is not ``"aws"``, ``"azure"`` or ``"gcp"``, or the data files are malformed.
    """
    _check_cloud(cloud)
    catalog = _catalog()
    listed = catalog.instance_types[cloud].get(name)
    if listed is not None:
        return listed
    families = [family for family in catalog.non_gpu_families[cloud] if family.matches(name)]
    if len(families) > 1:
        raise ValueError(
            f"{_INSTANCE_TYPES_FILE}: {cloud} instance type {name!r} matches more than one non-GPU family: "
            + ", ".join(family.describe() for family in families)
        )
    if not families:
        return None
    family = families[0]
    return InstanceType(
        cloud=cloud,
        name=name,
        gpu_vendor="none",
        gpu_model=None,
        gpu_count=0,
        cpu_architecture=family.cpu_architecture,
        gpu_description=family.gpu_description,
        source=family.source,
    )


def instance_type(cloud: Cloud, name: str) -> InstanceType:
    """Like :func:`find_instance_type`, but an unknown name is an error.

    Raises:
        CatalogLookupError: the catalog knows nothing of ``name`` on ``cloud`` (``kind="instance type"``);
            its ``suggestions`` are the closest listed types of that cloud, its ``source`` the cloud's
            instance-type page.
        ValueError: ``cloud`` is not ``"aws"``, ``"azure"`` or ``"gcp"``.
    """
    found = find_instance_type(cloud, name)
    if found is None:
        catalog = _catalog()
        raise CatalogLookupError(
            "instance type",
            name,
            cloud=cloud,
            suggestions=_suggest(name, catalog.instance_types[cloud]),
            source=catalog.cloud_sources[cloud],
        )
    return found


def instance_types(cloud: Cloud) -> tuple[InstanceType, ...]:
    """The GPU instance types (NVIDIA and AMD) the catalog lists for ``cloud``, sorted by name.

    Non-GPU families are matched by pattern (see :func:`find_instance_type`) and are not enumerated here.

    Raises:
        ValueError: ``cloud`` is not ``"aws"``, ``"azure"`` or ``"gcp"``.
    """
    _check_cloud(cloud)
    return _catalog().sorted_instance_types[cloud]


def gcp_accelerator_type(gpu_model: str) -> str:
    """The GKE/Compute Engine accelerator type of a GPU model: ``"A100-40GB"`` -> ``"nvidia-tesla-a100"``.

    This is the model's usual accelerator type (``"H100-80GB"`` -> ``"nvidia-h100-80gb"``); a machine type may
    use another (A3 Mega: ``"nvidia-h100-mega-80gb"``), which :attr:`InstanceType.accelerator_type` gives.
    Source: https://cloud.google.com/compute/docs/gpus.

    Raises:
        CatalogLookupError: ``kind="GPU model"``, ``cloud="gcp"``: the model is unknown, or GCP does not
            offer it (e.g. ``"A10G"``); its ``suggestions`` are the closest models GCP offers.
    """
    catalog = _catalog()
    defaults = catalog.default_accelerator_types["gcp"]
    accelerator = defaults.get(gpu_model)
    if accelerator is not None:
        return accelerator
    offered = sorted(defaults)
    reason = (
        f"is not offered on cloud 'gcp' (GCP offers {', '.join(offered)})"
        if gpu_model in catalog.gpu_models
        else f"is unknown for cloud 'gcp' (GCP offers {', '.join(offered)})"
    )
    raise CatalogLookupError(
        "GPU model",
        gpu_model,
        cloud="gcp",
        suggestions=_suggest(gpu_model, offered),
        source=catalog.cloud_sources["gcp"],
        reason=reason,
    )


def _check_cloud(cloud: str) -> None:
    if cloud not in _CLOUDS:
        raise ValueError(f"unknown cloud {cloud!r}; expected one of {', '.join(_CLOUDS)}")


def _suggest(key: str, known: Iterable[str]) -> tuple[str, ...]:
    """Up to 3 known names closest to ``key``, best first, compared case-insensitively."""
    by_lower = {name.lower(): name for name in known}
    matches = difflib.get_close_matches(key.lower(), list(by_lower), n=_SUGGESTIONS, cutoff=_SUGGESTION_CUTOFF)
    return tuple(by_lower[match] for match in matches)


# ----------------------------------------------------------------------------------------------- loading


@dataclass(frozen=True, slots=True)
class _NonGpuFamily:
    """A family/series of instance types without GPUs, matched by a regex over the whole name."""

    family: str
    pattern: re.Pattern[str]
    cpu_architecture: CpuArchitecture
    gpu_description: str
    source: str

    def matches(self, name: str) -> bool:
        return self.pattern.fullmatch(name) is not None

    def describe(self) -> str:
        return f"{self.family} ({self.pattern.pattern})"


@dataclass(frozen=True, slots=True)
class _Catalog:
    gpu_models: Mapping[str, GpuModel]
    sorted_gpu_models: tuple[GpuModel, ...]
    gpu_models_source: str
    instance_types: Mapping[Cloud, Mapping[str, InstanceType]]
    sorted_instance_types: Mapping[Cloud, tuple[InstanceType, ...]]
    non_gpu_families: Mapping[Cloud, tuple[_NonGpuFamily, ...]]
    cloud_sources: Mapping[Cloud, str]
    default_accelerator_types: Mapping[Cloud, Mapping[str, str]]
    """GPU model -> its default accelerator type, for each cloud that names GPUs by accelerator type."""


@functools.cache
def _catalog() -> _Catalog:
    """The catalog, read from the package's data files on first use."""
    root = importlib.resources.files(_DATA_PACKAGE)
    return _parse_catalog(
        root.joinpath(_GPUS_FILE).read_text(encoding="utf-8"),
        root.joinpath(_INSTANCE_TYPES_FILE).read_text(encoding="utf-8"),
    )


# Shapes of the data files (pydantic, strict: no coercion, no unknown keys).

_Url = Annotated[str, StringConstraints(pattern=r"^https://[^\s]+$")]
_Text = Annotated[str, StringConstraints(min_length=1)]
_Count = Annotated[int, Field(ge=1)]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


_ShapeT = TypeVar("_ShapeT", bound=_Shape)


class _MigProfileShape(_Shape):
    max_instances: _Count
    memory_slices: _Count


class _MigBalancedShape(_Shape):
    source: _Url
    layout: Annotated[dict[str, _Count], Field(min_length=1)]


class _MigShape(_Shape):
    compute_slices: _Count
    memory_slices: _Count
    source: _Url
    profiles: Annotated[dict[str, _MigProfileShape], Field(min_length=1)]
    balanced: _MigBalancedShape


class _GpuShape(_Shape):
    vendor: Literal["nvidia"]
    architecture: Literal["Turing", "Volta", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"]
    memory_gb: _Count
    compute_capability: Annotated[str, StringConstraints(pattern=r"^[0-9]+\.[0-9]+$")]
    source: _Url
    mig: _MigShape | None = None


class _GpusFileShape(_Shape):
    source: _Url
    gpus: Annotated[dict[str, _GpuShape], Field(min_length=1)]


class _CountOverrideShape(_Shape):
    gpu_count: _Count
    gpu_description: _Text


class _GpuGroupShape(_Shape):
    gpu_vendor: Literal["nvidia", "amd"]
    gpu_model: _Text | None = None
    accelerator_type: _Text | None = None
    cpu_architecture: CpuArchitecture
    gpu_description: _Text
    source: _Url
    gpu_counts: Annotated[dict[str, _Count | _CountOverrideShape], Field(min_length=1)]


class _NonGpuShape(_Shape):
    families: Annotated[list[_Text], Field(min_length=1)]
    family_pattern: _Text | None = None
    cpu_architecture: CpuArchitecture
    gpu_description: _Text
    source: _Url


class _AcceleratorShape(_Shape):
    name: _Text
    gpu_model: _Text
    default: bool


class _CloudShape(_Shape):
    source: _Url
    gpu_instance_types: Annotated[list[_GpuGroupShape], Field(min_length=1)]
    non_gpu_family_pattern: _Text
    non_gpu_families: list[_NonGpuShape]
    accelerator_types: list[_AcceleratorShape] = []


class _InstanceTypesFileShape(_Shape):
    aws: _CloudShape
    azure: _CloudShape
    gcp: _CloudShape


class _UniqueKeyLoader(_yaml.SafeLoader):
    """Safe loader (libyaml-backed when available) rejecting duplicate mapping keys, which safe_load would collapse."""


def _construct_unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r}",
                key_node.start_mark,
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=True)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping)


def _load_yaml(text: str, filename: str) -> Any:
    try:
        # A safe-loader subclass: as safe as yaml.safe_load, and duplicate keys are errors.
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as error:
        raise ValueError(f"{filename} is not valid YAML: {error}") from error


def _validate(shape: type[_ShapeT], data: Any, filename: str) -> _ShapeT:
    try:
        return shape.model_validate(data)
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(part) for part in item['loc']) or '<root>'}: {item['msg']}" for item in error.errors()
        ]
        raise ValueError(_malformed(filename, problems)) from error


def _malformed(filename: str, problems: Sequence[str]) -> str:
    return f"{filename} is malformed:\n" + "\n".join(f"  - {problem}" for problem in problems)


def _parse_catalog(gpus_text: str, instance_types_text: str) -> _Catalog:
    """Parse and validate both data files; raise ValueError listing every problem found.

    A cloud whose section lists accelerator types names a machine's GPUs by them, so each of its NVIDIA machine types
    must give one (the cloud's facts say so with its source,
    :attr:`~gpu_components.cloud_facts.CloudFacts.accelerator_type_source`; the facts sit above the catalog, and a
    test holds the two to each other).
    """
    gpus_file = _validate(_GpusFileShape, _load_yaml(gpus_text, _GPUS_FILE), _GPUS_FILE)
    problems: list[str] = []
    models = {name: _gpu_model(name, shape, problems) for name, shape in gpus_file.gpus.items()}
    if problems:
        raise ValueError(_malformed(_GPUS_FILE, problems))

    types_file = _validate(
        _InstanceTypesFileShape, _load_yaml(instance_types_text, _INSTANCE_TYPES_FILE), _INSTANCE_TYPES_FILE
    )
    clouds: dict[Cloud, _CloudShape] = {cloud: getattr(types_file, cloud) for cloud in _CLOUDS}
    accelerators = {
        cloud: _accelerators(cloud, shape, models, problems)
        for cloud, shape in clouds.items()
        if shape.accelerator_types
    }
    instance_types: dict[Cloud, dict[str, InstanceType]] = {}
    non_gpu: dict[Cloud, tuple[_NonGpuFamily, ...]] = {}
    for cloud, shape in clouds.items():
        instance_types[cloud] = _instance_types(cloud, shape, models, accelerators.get(cloud), problems)
        non_gpu[cloud] = _non_gpu_families(cloud, shape, problems)
        for name in instance_types[cloud]:
            clashes = [family.describe() for family in non_gpu[cloud] if family.matches(name)]
            if clashes:
                problems.append(f"{cloud}: GPU instance type {name!r} also matches non-GPU family {clashes[0]}")
    if problems:
        raise ValueError(_malformed(_INSTANCE_TYPES_FILE, problems))

    return _Catalog(
        gpu_models=MappingProxyType(models),
        sorted_gpu_models=tuple(models[name] for name in sorted(models)),
        gpu_models_source=gpus_file.source,
        instance_types=MappingProxyType({c: MappingProxyType(types) for c, types in instance_types.items()}),
        sorted_instance_types=MappingProxyType(
            {c: tuple(types[name] for name in sorted(types)) for c, types in instance_types.items()}
        ),
        non_gpu_families=MappingProxyType(non_gpu),
        cloud_sources=MappingProxyType({cloud: shape.source for cloud, shape in clouds.items()}),
        default_accelerator_types=MappingProxyType(
            {
                cloud: MappingProxyType({a.gpu_model: name for name, a in by_name.items() if a.default})
                for cloud, by_name in accelerators.items()
            }
        ),
    )


def _gpu_model(name: str, shape: _GpuShape, problems: list[str]) -> GpuModel:
    major, minor = (int(part) for part in shape.compute_capability.split("."))
    profiles: dict[str, MigProfile] = {}
    if shape.mig is not None:
        for profile_name, profile_shape in shape.mig.profiles.items():
            profile = _mig_profile(f"gpus.{name}.mig.profiles.{profile_name}", profile_name, profile_shape, problems)
            if profile is not None:
                profiles[profile_name] = profile
        _check_mig(name, shape.memory_gb, shape.mig, profiles, problems)
    return GpuModel(
        name=name,
        vendor=shape.vendor,
        architecture=shape.architecture,
        memory_gb=shape.memory_gb,
        compute_capability=(major, minor),
        mig_profiles=MappingProxyType(profiles),
        source=shape.source,
        mig_source=shape.mig.source if shape.mig is not None else None,
        mig_balanced=MappingProxyType(dict(shape.mig.balanced.layout) if shape.mig is not None else {}),
        mig_balanced_source=shape.mig.balanced.source if shape.mig is not None else None,
    )


def _mig_profile(where: str, name: str, shape: _MigProfileShape, problems: list[str]) -> MigProfile | None:
    parsed = parse_mig_profile_name(name)
    if parsed is None:
        problems.append(f"{where}: not a MIG profile name ({MIG_PROFILE_FORMAT})")
        return None
    return MigProfile(
        name=name,
        max_instances=shape.max_instances,
        compute_slices=parsed.compute_slices,
        memory_slices=shape.memory_slices,
        memory_gb=parsed.memory_gb,
        media_extensions=parsed.media_extensions,
    )


def _check_mig(
    gpu: str, memory_gb: int, mig: _MigShape, profiles: Mapping[str, MigProfile], problems: list[str]
) -> None:
    """Check MIG profiles against the GPU's slice totals and memory size."""
    full = [
        p for p in profiles.values() if p.compute_slices == mig.compute_slices and p.memory_slices == mig.memory_slices
    ]
    if not full:
        problems.append(
            f"gpus.{gpu}.mig: no full-GPU profile with {mig.compute_slices} compute and "
            f"{mig.memory_slices} memory slices"
        )
    for profile in profiles.values():
        where = f"gpus.{gpu}.mig.profiles.{profile.name}"
        if profile.max_instances * profile.compute_slices > mig.compute_slices:
            problems.append(
                f"{where}: {profile.max_instances} instances x {profile.compute_slices} compute slices "
                f"exceed the GPU's {mig.compute_slices}"
            )
        if profile.max_instances * profile.memory_slices > mig.memory_slices:
            problems.append(
                f"{where}: {profile.max_instances} instances x {profile.memory_slices} memory slices "
                f"exceed the GPU's {mig.memory_slices}"
            )
        # NVIDIA names a profile by its share of the GPU's memory, rounded: e.g. 2/8 of 141 GB -> "35gb".
        share = memory_gb * profile.memory_slices / mig.memory_slices
        if abs(profile.memory_gb - share) > 0.5:
            problems.append(
                f"{where}: {profile.memory_slices}/{mig.memory_slices} of {memory_gb} GB is {share:g} GB, "
                f"not {profile.memory_gb} GB"
            )
    _check_balanced(gpu, mig, profiles, problems)


def _check_balanced(gpu: str, mig: _MigShape, profiles: Mapping[str, MigProfile], problems: list[str]) -> None:
    """Check NVIDIA's balanced layout of a GPU: profiles of the GPU that fit it together."""
    where = f"gpus.{gpu}.mig.balanced.layout"
    layout = mig.balanced.layout
    unknown = [name for name in layout if name not in profiles]
    if unknown:
        problems.append(f"{where}: {', '.join(unknown)} not among the GPU's profiles")
        return
    compute = sum(profiles[name].compute_slices * count for name, count in layout.items())
    memory = sum(profiles[name].memory_slices * count for name, count in layout.items())
    if compute > mig.compute_slices or memory > mig.memory_slices:
        problems.append(
            f"{where}: takes {compute} compute and {memory} memory slices of the GPU's {mig.compute_slices} and "
            f"{mig.memory_slices}"
        )


@dataclass(frozen=True, slots=True)
class _Accelerator:
    gpu_model: str
    default: bool


def _accelerators(
    cloud: Cloud, shape: _CloudShape, models: Mapping[str, GpuModel], problems: list[str]
) -> dict[str, _Accelerator]:
    """The accelerator types of a cloud that names GPUs by them: name -> GPU model, and whether it is the model's
    default."""
    accelerators: dict[str, _Accelerator] = {}
    defaults: dict[str, str] = {}
    for index, entry in enumerate(shape.accelerator_types):
        where = f"{cloud}.accelerator_types[{index}]"
        if entry.name in accelerators:
            problems.append(f"{where}: accelerator type {entry.name!r} is listed twice")
        if entry.gpu_model not in models:
            problems.append(f"{where}: unknown GPU model {entry.gpu_model!r}")
        if entry.default:
            if entry.gpu_model in defaults:
                earlier = defaults[entry.gpu_model]
                problems.append(f"{where}: {entry.gpu_model} already has default accelerator type {earlier!r}")
            defaults[entry.gpu_model] = entry.name
        accelerators[entry.name] = _Accelerator(entry.gpu_model, entry.default)
    for model in sorted({accelerator.gpu_model for accelerator in accelerators.values()} - defaults.keys()):
        problems.append(f"{cloud}.accelerator_types: {model} has no default accelerator type")
    return accelerators


def _instance_types(
    cloud: Cloud,
    shape: _CloudShape,
    models: Mapping[str, GpuModel],
    accelerators: Mapping[str, _Accelerator] | None,
    problems: list[str],
) -> dict[str, InstanceType]:
    """The GPU instance types of ``cloud``; ``accelerators`` are its accelerator types, ``None`` where the cloud names
    no GPUs by accelerator type."""
    types: dict[str, InstanceType] = {}
    for index, group in enumerate(shape.gpu_instance_types):
        where = f"{cloud}.gpu_instance_types[{index}]"
        if group.gpu_vendor == "nvidia" and group.gpu_model not in models:
            problems.append(f"{where}.gpu_model: {group.gpu_model!r} is not a GPU model in {_GPUS_FILE}")
        if group.gpu_vendor != "nvidia" and group.gpu_model is not None:
            problems.append(f"{where}.gpu_model: only NVIDIA types name a GPU model (give it in gpu_description)")
        # The accelerator types the group's must be one of, where its machine types need one.
        known = accelerators if group.gpu_vendor == "nvidia" else None
        wants_accelerator = known is not None
        if wants_accelerator and group.accelerator_type is None:
            problems.append(f"{where}.accelerator_type: required for {cloud} NVIDIA machine types")
        if not wants_accelerator and group.accelerator_type is not None:
            problems.append(
                f"{where}.accelerator_type: only the NVIDIA machine types of a cloud that names GPUs by accelerator "
                "type have one"
            )
        if known is not None and group.accelerator_type is not None:
            accelerator = known.get(group.accelerator_type)
            if accelerator is None:
                problems.append(
                    f"{where}.accelerator_type: {group.accelerator_type!r} is not in {cloud}.accelerator_types"
                )
            elif accelerator.gpu_model != group.gpu_model:
                problems.append(
                    f"{where}.accelerator_type: {group.accelerator_type!r} is a {accelerator.gpu_model}, "
                    f"not a {group.gpu_model}"
                )
        for name, count in group.gpu_counts.items():
            if name in types:
                problems.append(f"{where}.gpu_counts.{name}: listed twice for {cloud}")
            if isinstance(count, _CountOverrideShape):
                gpu_count, description = count.gpu_count, count.gpu_description
            else:
                gpu_count, description = count, group.gpu_description.replace("{count}", str(count))
            types[name] = InstanceType(
                cloud=cloud,
                name=name,
                gpu_vendor=group.gpu_vendor,
                gpu_model=group.gpu_model if group.gpu_vendor == "nvidia" else None,
                gpu_count=gpu_count,
                cpu_architecture=group.cpu_architecture,
                gpu_description=description,
                source=group.source,
                accelerator_type=group.accelerator_type if wants_accelerator else None,
            )
    return types


def _non_gpu_families(cloud: Cloud, shape: _CloudShape, problems: list[str]) -> tuple[_NonGpuFamily, ...]:
    families: list[_NonGpuFamily] = []
    seen: set[tuple[str, str]] = set()
    for index, entry in enumerate(shape.non_gpu_families):
        where = f"{cloud}.non_gpu_families[{index}]"
        template = entry.family_pattern or shape.non_gpu_family_pattern
        if template.count("{family}") != 1:
            problems.append(f"{where}: family pattern {template!r} must contain '{{family}}' exactly once")
            continue
        for family in entry.families:
            if (family, template) in seen:
                problems.append(f"{where}: family {family!r} is listed twice with the same pattern")
            seen.add((family, template))
            try:
                pattern = re.compile(template.replace("{family}", re.escape(family)))
            except re.error as error:
                problems.append(f"{where}: family pattern {template!r} is not a valid regex: {error}")
                break
            families.append(_NonGpuFamily(family, pattern, entry.cpu_architecture, entry.gpu_description, entry.source))
    return tuple(families)
