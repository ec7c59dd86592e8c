"""The pool's hardware: its instance type's GPU model and count, sizes and node disk, and MIG (:class:`Mig`: the
profiles each GPU model has, layouts that fit, media engines).
"""

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from gpu_components import catalog
from gpu_components.catalog import Cloud, CpuArchitecture, GpuModel
from gpu_components.cloud_facts import FractionalGpuTypes, facts_for
from gpu_components.enums import (
    value_of,
)
from gpu_components.errors import Default, Problem
from gpu_components.mig import MIG_PROFILE_FORMAT, mig_config_name, mig_profile_spelling, parse_mig_profile_name
from gpu_components.spec.names import MigStrategy
from gpu_components.spec.shapes import GpuNodePoolArgs, _join

SOURCE_MIG = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/#supported-mig-profiles"
SOURCE_MIG_MEDIA = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
"""NVIDIA MIG User Guide, "Supported MIG Profiles": each GPU's media engines (NVDEC, NVENC, JPEG, OFA) per profile.
Every table gives the whole GPU one OFA and each ``+me`` / ``+me.all`` profile that OFA; ``+me.all`` "allocates all
available media engines to this instance", and on the RTX PRO 6000 (the GPU with ``+me.all``) every other profile
but ``-me`` holds an NVDEC, NVENC and JPEG of its own."""
SOURCE_MIG_STRATEGY = "https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html#mig-strategies"
SOURCE_DISK_SIZE = (
    "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html (diskSize: 20 GiB by default); "
    "https://aws-ia.github.io/terraform-aws-eks-blueprints/patterns/machine-learning/ml-container-cache/ "
    "(nvcr.io/nvidia/pytorch:24.08-py3: 9.5 GB compressed, 20.4 GB on disk); "
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig (diskSizeGb: 100 GB by default); "
    "https://docs.aws.amazon.com/ebs/latest/userguide/volume_constraints.html (MBR boot volumes: at most 2 TiB)"
)
DEFAULT_DISK_SIZE_GB = 100
"""Disk of each node (GiB) when a pool gives none. EKS node groups default to 20 GiB, less than one unpacked NVIDIA
framework image (NGC PyTorch 24.08: 9.5 GB of compressed layers, 20.4 GB on disk, so about 30 GB while it is
pulled); 100 GiB holds that pull plus two more such images below the kubelet's default image garbage-collection
threshold (85 % of the disk), and is GKE's own default node disk, so GKE pools get what GKE would give them.
Sources: :data:`SOURCE_DISK_SIZE`."""
MIN_DISK_SIZE_GB = 20
"""Smallest node disk a pool may ask for (GiB): EKS's own default, so a pool created before ``disk_size_gb`` existed
can keep its disk by stating it (Amazon EKS CreateNodegroup API, ``diskSize``)."""
MAX_DISK_SIZE_GB = 2048
"""Largest node disk a pool may ask for (GiB): 2 TiB, the most a boot volume partitioned with MBR can use (Amazon EBS
volume constraints); model weights and datasets that need more belong on volumes of their own."""


@dataclass(frozen=True, slots=True)
class Mig:
    """A validated MIG layout: ``devices`` maps each MIG profile to its instance count per GPU.

    ``profile`` is the uniform profile when the input gave one (``None`` for a layout), and ``config_name`` is the
    layout's name in mig-parted terms, also the value of the node label ``nvidia.com/mig.config``:
    :func:`~gpu_components.mig.mig_config_name` for a uniform profile (``all-1g.10gb``, ``all-1g.10gb.me`` for
    ``1g.10gb+me``), ``custom-<pool>`` for a layout.
    ``strategy_set`` is ``False`` when the input left ``strategy`` to its default (``single``), so an error about
    the strategy shows it as the default rather than as a value the user wrote.
    ``config`` is NVIDIA's named layout when the input gave one (``all-balanced``, then also ``config_name``).
    ``uniform_profile`` is the one profile that fills every GPU: ``profile``, or a layout of one profile at its
    most instances per GPU; ``None`` for any other layout.
    """

    devices: Mapping[str, int]
    strategy: MigStrategy
    profile: str | None
    config_name: str
    strategy_set: bool = field(default=True, compare=False)
    config: str | None = None
    uniform_profile: str | None = None

    @property
    def instances_per_gpu(self) -> int:
        """MIG devices on each GPU."""
        return sum(self.devices.values())

    @property
    def given_field(self) -> Literal["profile", "layout", "config"]:
        """The ``mig`` field the layout was given by."""
        if self.profile is not None:
            return "profile"
        return "config" if self.config is not None else "layout"

    @property
    def given(self) -> object:
        """The value of :attr:`given_field` as the user wrote it: the profile, the layout or the config's name."""
        if self.profile is not None:
            return self.profile
        return self.config if self.config is not None else dict(self.devices)

    @property
    def as_given(self) -> dict[str, object]:
        """The pool's ``mig`` input as the user wrote it, for an error about the whole field: ``{"profile": ...}``,
        ``{"layout": {...}}`` or ``{"config": ...}``, with ``"strategy"`` when it was set (not the devices a
        profile fills each GPU with, nor the config name)."""
        given: dict[str, object] = {self.given_field: self.given}
        if self.strategy_set:
            given["strategy"] = self.strategy
        return given


def _node_limit_problems(max_size: int, cloud: Cloud, path: str) -> list[Problem]:
    limit = facts_for(cloud).max_pool_nodes
    if limit is None or max_size <= limit.nodes:
        return []
    service = facts_for(cloud).service
    message = f"more nodes than one {service} node pool may have; split the pool"
    return [Problem(_join(path, "max_size"), max_size, message, f"<= {limit.nodes}", limit.source)]


@dataclass(frozen=True, slots=True)
class _Hardware:
    gpu: GpuModel | None
    gpu_count: int
    cpu_architecture: CpuArchitecture


_NO_GPU = _Hardware(None, 0, "x86_64")
"""The hardware of a pool whose instance type gives it no NVIDIA GPU (its problems say why): no spec is built without
a GPU, and every rule that reads the count or CPU architecture checks for the GPU first, so these two mean nothing."""


def _hardware(args: GpuNodePoolArgs, cloud: Cloud, path: str) -> tuple[_Hardware, list[Problem]]:
    """Resolve the instance type's GPU model, count and CPU architecture from the catalog or explicit fields."""
    name = args["instance_type"]
    where = _join(path, "instance_type")
    keys: tuple[Literal["gpu_model", "gpu_count", "cpu_architecture"], ...] = (
        "gpu_model",
        "gpu_count",
        "cpu_architecture",
    )
    explicit = {key: args[key] for key in keys if key in args}
    known = catalog.find_instance_type(cloud, name)
    problems: list[Problem] = []
    if known is not None and known.gpu_vendor == "nvidia" and known.gpu_model is not None:
        for key, value in explicit.items():
            catalogued = {"gpu_model": known.gpu_model, "gpu_count": known.gpu_count}.get(key, known.cpu_architecture)
            short = key == "gpu_model" and gpu_models_named(str(value), [known.gpu_model]) == [known.gpu_model]
            if value != catalogued and not short:
                problems.append(
                    Problem(
                        _join(path, key),
                        value,
                        f"disagrees with the catalog entry of {name}",
                        repr(catalogued),
                        known.source,
                    )
                )
        return _Hardware(catalog.gpu_model(known.gpu_model), known.gpu_count, known.cpu_architecture), problems
    if known is not None and known.gpu_vendor == "amd":
        problems.append(
            Problem(
                where,
                name,
                f"not an NVIDIA GPU instance type ({known.gpu_description})",
                _examples(cloud),
                known.source,
            )
        )
        return _NO_GPU, problems
    attached_gpus = (
        known is not None and facts_for(cloud).attached_gpus and {"gpu_model", "gpu_count"} <= explicit.keys()
    )
    if known is not None and not attached_gpus:
        problems.append(
            Problem(
                where,
                name,
                f"not a GPU instance type ({known.gpu_description})",
                _examples(cloud),
                known.source,
            )
        )
        return _NO_GPU, problems
    fractional = fractional_gpu_types(cloud, name)
    if fractional is not None:
        problems.append(fractional_problem(fractional, name, where))
        return _NO_GPU, problems
    # A known type gets here only with GPUs attached, gpu_model and gpu_count given, and its CPU architecture.
    missing = sorted({"gpu_model", "gpu_count", "cpu_architecture"} - explicit.keys())
    if known is None and missing:
        suggestions = difflib.get_close_matches(name, [t.name for t in catalog.instance_types(cloud)], cutoff=0.5)
        problems.append(
            Problem(
                where,
                name,
                f"unknown {cloud} instance type (closest known names under valid); for a type the catalog "
                f"does not list, also give {', '.join(missing)}",
                ", ".join(suggestions) if suggestions else _examples(cloud),
            )
        )
        return _NO_GPU, problems
    gpu: GpuModel | None = None
    given = str(explicit["gpu_model"])
    try:
        gpu = catalog.gpu_model(given)
    except catalog.CatalogLookupError as error:
        named = gpu_models_named(given, [model.name for model in catalog.gpu_models()])
        if len(named) == 1:
            gpu = catalog.gpu_model(named[0])
        elif named:
            problems.append(
                Problem(
                    _join(path, "gpu_model"),
                    given,
                    f"short for several catalog GPU models, and instance type {name} is not in the catalog to tell "
                    "which: give the full name",
                    ", ".join(named),
                )
            )
        else:
            problems.append(
                Problem(
                    _join(path, "gpu_model"), given, "unknown GPU model", ", ".join(error.suggestions) or _gpu_names()
                )
            )
    count = args["gpu_count"]  # a whole number: the pool's shape is checked first
    if count < 1:
        problems.append(Problem(_join(path, "gpu_count"), count, "GPUs per node must be a whole number >= 1"))
    architecture: CpuArchitecture = known.cpu_architecture if known is not None else value_of(args["cpu_architecture"])
    return _Hardware(gpu, count, architecture), problems


def _examples(cloud: Cloud) -> str:
    names = [t.name for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia"]
    return f"NVIDIA GPU instance types, e.g. {', '.join(names[:4])} ({len(names)} in the catalog)"


def _gpu_names() -> str:
    return ", ".join(model.name for model in catalog.gpu_models())


_MEMORY_SUFFIX = re.compile(r"^-[0-9]+GB$")
"""What follows a GPU's short name in a catalog name that tells one memory size from another (``-80GB``)."""


def gpu_models_named(name: str, models: Iterable[str]) -> list[str]:
    """The GPU models among ``models`` (catalog names) that ``name`` names, sorted: the model of that name, else
    those that are ``name`` and a memory size (``H100`` names ``H100-80GB`` and ``H100-94GB``; ``L4`` only ``L4``;
    case as the catalog writes it). More than one means the short name is ambiguous among ``models``."""
    models = set(models)
    if name in models:
        return [name]
    return sorted(model for model in models if model.startswith(name) and _MEMORY_SUFFIX.fullmatch(model[len(name) :]))


def fractional_gpu_types(cloud: Cloud, name: str) -> FractionalGpuTypes | None:
    """The cloud's fractional-GPU record (:attr:`~gpu_components.cloud_facts.CloudFacts.fractional_gpu_types`)
    that instance type ``name`` belongs to, or ``None``."""
    return next((record for record in facts_for(cloud).fractional_gpu_types if record.pattern.fullmatch(name)), None)


def fractional_problem(record: FractionalGpuTypes, name: str, path: str) -> Problem:
    """The problem of a pool naming a fractional-GPU instance type or family ``name`` at ``path``: what its nodes
    get, why no pool of them would work, what to use instead, and the sources."""
    return Problem(
        path,
        name,
        f"{name} gives each node {record.gpu}: {record.why}",
        record.instead,
        record.source,
    )


def _size_problems(min_size: int, desired: int | None, max_size: int, path: str) -> list[Problem]:
    """Node-count problems; ``desired`` is ``None`` when not set (it defaults to ``min_size``), so a ``min_size``
    above ``max_size`` is reported at ``min_size``, the value the user wrote, not at a ``desired_size`` they never
    set (nor anything when ``min_size`` is 0, maybe its default: the ``max_size`` problem says it all)."""
    problems: list[Problem] = []
    if min_size < 0:
        problems.append(Problem(_join(path, "min_size"), min_size, "must not be negative", ">= 0"))
    if max_size < 1:
        problems.append(Problem(_join(path, "max_size"), max_size, "a pool needs room for at least one node", ">= 1"))
    if desired is None:
        if min_size > max(max_size, 0):
            problems.append(
                Problem(
                    _join(path, "min_size"),
                    min_size,
                    f"node counts must satisfy min_size <= max_size (max_size={max_size}; desired_size, not set, "
                    "defaults to min_size)",
                    f"0..{max_size}" if max_size >= 0 else None,
                )
            )
    elif not min_size <= desired <= max_size:
        problems.append(
            Problem(
                _join(path, "desired_size"),
                desired,
                f"node counts must satisfy min_size <= desired_size <= max_size (min_size={min_size}, "
                f"max_size={max_size})",
                f"{min_size}..{max_size}" if min_size <= max_size else None,
            )
        )
    return problems


def _disk_size_problems(disk_size_gb: int, path: str) -> list[Problem]:
    if MIN_DISK_SIZE_GB <= disk_size_gb <= MAX_DISK_SIZE_GB:
        return []
    return [
        Problem(
            _join(path, "disk_size_gb"),
            disk_size_gb,
            "node disk size (GiB) out of range: at least EKS's default node disk, at most an MBR boot volume",
            f"{MIN_DISK_SIZE_GB}..{MAX_DISK_SIZE_GB} (default {DEFAULT_DISK_SIZE_GB})",
            SOURCE_DISK_SIZE,
        )
    ]


def _mig(args: GpuNodePoolArgs, gpu: GpuModel | None, path: str) -> tuple[Mig | None, list[Problem]]:
    given = args.get("mig")
    if given is None:
        return None, []
    where = _join(path, "mig")
    strategy: MigStrategy = value_of(given.get("strategy", "single"))
    problems: list[Problem] = []
    has_profile, has_layout, named = (
        "profile" in given,
        "layout" in given,
        value_of(given["config"]) if "config" in given else None,
    )
    if [has_profile, has_layout, named is not None].count(True) != 1:
        problems.append(
            Problem(
                where,
                dict(given),
                "give exactly one of profile (uniform), layout or config (NVIDIA's named layout)",
                "profile, layout, config",
            )
        )
        return None, problems
    devices: dict[str, int] = {given["profile"]: 0} if has_profile else dict(given.get("layout", {}))
    if not devices and named is None:
        valid = "at least one entry <profile>: <instances per GPU>, e.g. {'1g.10gb': 2}"
        problems.append(Problem(f"{where}.layout", {}, "a MIG layout needs at least one profile", valid))
        return None, problems
    bad_syntax = [p for p in devices if parse_mig_profile_name(p) is None]
    for profile in bad_syntax:
        field_path = f"{where}.profile" if has_profile else f"{where}.layout[{profile!r}]"
        problems.append(
            Problem(
                field_path,
                profile,
                "not a MIG profile name" + _did_you_mean_profile(profile, gpu),
                MIG_PROFILE_FORMAT,
                SOURCE_MIG,
            )
        )
    if gpu is None or bad_syntax:
        return None, problems
    if not gpu.mig_capable:
        capable = ", ".join(m.name for m in catalog.gpu_models() if m.mig_capable)
        problems.append(
            Problem(
                where,
                dict(given),
                f"{gpu.name} does not support MIG",
                f"GPUs with MIG: {capable}",
                SOURCE_MIG,
            )
        )
        return None, problems
    if named is not None:
        devices = dict(gpu.mig_balanced)
    valid_profiles = ", ".join(gpu.mig_profiles)
    for profile, count in devices.items():
        field_path = f"{where}.profile" if has_profile else f"{where}.layout[{profile!r}]"
        known = gpu.mig_profiles.get(profile)
        if known is None:
            # A well-formed name (checked above) is its own spelling: no did-you-mean (mig_profile_spelling is None).
            message = f"not a MIG profile of {gpu.name}"
            problems.append(Problem(field_path, profile, message, valid_profiles, gpu.mig_source))
        elif has_profile or named is not None:
            devices[profile] = known.max_instances if has_profile else count
        elif count < 1:
            message = f"a layout entry needs at least 1 instance of {profile}; leave out a profile it has none of"
            problems.append(Problem(field_path, count, message, f"1..{known.max_instances}", gpu.mig_source))
        elif count > known.max_instances:
            most = known.max_instances
            message = f"{gpu.name} holds at most {most} instance{'s' if most != 1 else ''} of {profile}"
            problems.append(Problem(field_path, count, message, f"1..{most}", gpu.mig_source))
    if problems:
        return None, problems
    if has_layout:
        compute = sum(gpu.mig_profiles[p].compute_slices * n for p, n in devices.items())
        memory = sum(gpu.mig_profiles[p].memory_slices * n for p, n in devices.items())
        if compute > gpu.mig_compute_slices or memory > gpu.mig_memory_slices:
            problems.append(
                Problem(
                    f"{where}.layout",
                    dict(devices),
                    f"the layout does not fit one {gpu.name}: it needs {compute} compute and {memory} memory "
                    f"slices of {gpu.mig_compute_slices} and {gpu.mig_memory_slices}",
                    f"at most {gpu.mig_compute_slices} compute and {gpu.mig_memory_slices} memory slices",
                    SOURCE_MIG,
                )
            )
        problems += _media_engine_problems(devices, gpu, f"{where}.layout")
    if strategy == "single" and len(devices) > 1:
        problems.append(
            Problem(
                f"{where}.strategy",
                strategy if "strategy" in given else Default(strategy),
                "the single MIG strategy needs one profile on every GPU; a layout of several profiles "
                + (f"(NVIDIA's {named} on {gpu.name}: {layout_text(devices)}) " if named is not None else "")
                + "needs the mixed strategy",
                "mixed",
                SOURCE_MIG_STRATEGY,
            )
        )
    if problems:
        return None, problems
    uniform = given.get("profile")
    config_name = mig_config_name(uniform) if uniform else named or f"custom-{args['name']}"
    filled = _filling_profile(devices, gpu)
    return Mig(MappingProxyType(devices), strategy, uniform, config_name, "strategy" in given, named, filled), []


def _filling_profile(devices: Mapping[str, int], gpu: GpuModel) -> str | None:
    """The one profile of layout ``devices`` when it fills each ``gpu`` (as many instances as one holds: the
    :attr:`Mig.uniform_profile`), ``None`` for a layout of several profiles or of fewer instances."""
    if len(devices) != 1:
        return None
    ((profile, count),) = devices.items()
    return profile if count == gpu.mig_profiles[profile].max_instances else None


def layout_text(devices: Mapping[str, int]) -> str:
    """A layout as problem messages state it: ``2 x 1g.10gb, 1 x 2g.20gb``."""
    return ", ".join(f"{count} x {profile}" for profile, count in devices.items())


def not_uniform(mig: Mig, gpu: GpuModel) -> str:
    """Why a MIG layout is not one profile filling each GPU (for a cloud that makes only such partitions): its
    several profiles, or its one profile's count short of the most ``gpu`` holds."""
    named = f"NVIDIA's {mig.config} on {gpu.name} is " if mig.config is not None else "the layout is "
    if len(mig.devices) > 1:
        return f"{named}{layout_text(mig.devices)}, several profiles"
    ((profile, count),) = mig.devices.items()
    most = gpu.mig_profiles[profile].max_instances
    return f"{named}{count} x {profile} per GPU, and one {gpu.name} holds {most}"


def _did_you_mean_profile(profile: str, gpu: GpuModel | None) -> str:
    """``; did you mean '<name>'?`` for a MIG profile name written another way (:func:`mig_profile_spelling`: case,
    NVIDIA's ``.`` spelling of config names) that names a profile of ``gpu`` (any profile when the GPU is unknown);
    ``""`` otherwise: a profile of another size is a different partition, not a typo to correct."""
    spelling = mig_profile_spelling(profile)
    if spelling is None or (gpu is not None and gpu.mig_capable and spelling not in gpu.mig_profiles):
        return ""
    return f"; did you mean {spelling!r}?"


def _media_engine_problems(devices: Mapping[str, int], gpu: GpuModel, field_path: str) -> list[Problem]:
    """Media-engine rules of a MIG layout ``devices`` (profile -> instances per GPU) on ``gpu``.

    - At most one instance per GPU with media extensions (``+me`` or ``+me.all``): each takes the GPU's single
      OFA (:data:`SOURCE_MIG_MEDIA`), so two such instances never fit one GPU, whatever their per-profile counts.
    - A ``+me.all`` instance takes all the GPU's media engines, so every other instance on its GPU is ``-me``
      (no media engine); a plain or ``+gfx`` instance holds an NVDEC, NVENC and JPEG the ``+me.all`` already has.
    - Nothing else: a name has one attribute at most (:mod:`gpu_components.mig`), so no profile is both ``-me`` and
      ``+gfx``, and ``-me``, ``+gfx`` and plain instances share a GPU with each other and with one ``+me``.

    Returns one problem at ``field_path`` per broken rule (empty when the layout is fine); mig-parted would fail to
    create such a layout on the node.
    """
    attributes = {profile: parsed.attribute for profile in devices if (parsed := parse_mig_profile_name(profile))}
    with_media = [p for p, attribute in attributes.items() if attribute in ("+me", "+me.all")]
    all_media = [p for p, attribute in attributes.items() if attribute == "+me.all"]
    problems: list[Problem] = []
    if sum(devices[p] for p in with_media) > 1:
        problems.append(
            Problem(
                field_path,
                dict(devices),
                f"{' and '.join(f'{devices[p]} x {p}' for p in with_media)} cannot share one {gpu.name}: each "
                "instance with media extensions (+me, +me.all) takes the GPU's only OFA",
                "at most one +me or +me.all instance per GPU",
                SOURCE_MIG_MEDIA,
            )
        )
    others = [p for p, attribute in attributes.items() if attribute not in ("+me", "+me.all", "-me")]
    if all_media and others:
        problems.append(
            Problem(
                field_path,
                dict(devices),
                f"{all_media[0]} takes all the media engines of its {gpu.name}, so {', '.join(others)} cannot "
                "share the GPU",
                "no media engine (-me) profiles next to a +me.all instance",
                SOURCE_MIG_MEDIA,
            )
        )
    return problems


def _model_problems(
    spec_args: GpuNodePoolArgs, cloud: Cloud, allowed: Sequence[str], hardware: "_Hardware", where: str
) -> list[Problem]:
    """One CPU architecture per provisioned pool; one GPU model where sharing or MIG needs one."""
    gpu = hardware.gpu
    if gpu is None:  # the caller checks first; mypy does not know
        return []
    found = {name: catalog.instance_type(cloud, name) for name in allowed[1:]}
    problems: list[Problem] = []
    first = spec_args["instance_type"]
    other_arch = [
        f"{name} ({t.cpu_architecture})" for name, t in found.items() if t.cpu_architecture != hardware.cpu_architecture
    ]
    if other_arch:
        problems.append(
            Problem(
                where,
                ", ".join(other_arch),
                f"a provisioned pool has one CPU architecture, its instance_type {first}'s "
                f"({hardware.cpu_architecture}): its node image and tolerations follow it; make one pool per "
                "architecture",
            )
        )
    needs_one = [key for key in ("time_slicing", "mps", "mig") if key in spec_args]
    other_model = [f"{name} ({t.gpu_model})" for name, t in found.items() if t.gpu_model != gpu.name]
    if needs_one and other_model:
        problems.append(
            Problem(
                where,
                ", ".join(other_model),
                f"{needs_one[0]} is set for one GPU model, the {gpu.name} of "
                f"instance_type {first}, and these types have another: every node of the pool must have that model; "
                "make one pool per GPU model",
            )
        )
    return problems


def _short_model_problems(
    args: GpuNodePoolArgs, cloud: Cloud, allowed: Sequence[str], gpu: GpuModel, path: str
) -> list[Problem]:
    """A pool ``gpu_model`` given as a short name (``H100``) that names more than one GPU model among the pool's
    allowed types (``H100-80GB`` and ``H100-94GB``): the pool must say which."""
    given = args.get("gpu_model")
    if given is None or given == gpu.name:
        return []
    # Every allowed type is a catalog NVIDIA type, which names its GPU model.
    models = [gpu.name] + [model for name in allowed[1:] if (model := catalog.instance_type(cloud, name).gpu_model)]
    return pool_gpu_model(given, models, "the pool's", _join(path, "gpu_model"))[1]


def pool_gpu_model(given: str, models: Iterable[str], whose: str, field: str) -> tuple[str, list[Problem]]:
    """``given`` as the catalog name of the one GPU model among ``models`` (a pool's) that it names, itself or by
    its short name (``H100`` -> ``H100-80GB``: :func:`gpu_models_named`); ``given`` unchanged when it names none (the
    caller says so). A problem at ``field`` naming the models when it names several (``whose``: whose instance types,
    for the message, e.g. ``pool big's``)."""
    named = gpu_models_named(given, models)
    if len(named) > 1:
        message = f"short for several GPU models of {whose} instance types ({', '.join(named)}): give the full name"
        return given, [Problem(field, given, message, ", ".join(named))]
    return (named[0] if named else given), []
