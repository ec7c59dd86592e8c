"""The pool: :class:`GpuNodePoolSpec` and its rules in the order they run (:func:`_build`), and
:func:`parse_pools` for a cluster's pools.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, cast

from gpu_components.catalog import Cloud, CpuArchitecture, GpuModel
from gpu_components.cloud_facts import CLOUDS
from gpu_components.enums import (
    GpuAccessName,
    value_of,
)
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.labels import (
    SHARING_TRUST_KEY,
    SHARING_TRUSTED,
)
from gpu_components.shape import plain
from gpu_components.spec.hardware import (
    DEFAULT_DISK_SIZE_GB,
    Mig,
    _disk_size_problems,
    _hardware,
    _mig,
    _node_limit_problems,
    _size_problems,
)
from gpu_components.spec.names import (
    DEFAULT_GPU_TAINT,
    Taint,
    _cloud_reserved_problems,
    _label_problems,
    _taints,
    name_problems,
)
from gpu_components.spec.provisioning import Provisioning, _provisioned_max_nodes, _provisioning
from gpu_components.spec.shapes import GpuNodePoolArgs, _join, pool_shape_problems
from gpu_components.spec.sharing import Sharing, _sharing


@dataclass(frozen=True, slots=True)
class GpuNodePoolSpec:
    """A validated GPU node pool. Build it with :meth:`from_args`; its fields are plain, preview-time values.

    Attributes:
        name: pool name. cloud: ``aws``, ``azure`` or ``gcp``. instance_type: as given.
        gpu: the GPU model (catalog entry). gpu_count: GPUs per node. cpu_architecture: ``x86_64``/``arm64``.
        min_size, max_size, desired_size: node counts. spot: spot capacity. disk_size_gb: each node's disk (GiB).
        labels: the user's node labels (the library adds its own in the adapters).
        taints: every taint of the pool, the default GPU taint first when on.
        sharing: time-slicing, MPS, or ``None`` for exclusive GPUs. mig: MIG layout or ``None``.
        provisioning: how a provisioned pool's nodes are created, or ``None`` for a fixed pool. A provisioned pool
            has ``min_size`` and ``desired_size`` 0 and ``max_size`` its most nodes (``max_nodes``, else as many
            nodes of ``instance_type`` as ``max_gpus`` holds); ``spot`` says whether spot is among its capacity
            types; ``instance_type``, ``gpu``, ``gpu_count`` and ``cpu_architecture`` describe a node of its first
            instance type.
        disk_size_set: whether the input gave ``disk_size_gb`` (``False``: the library's default), so a rule that
            cannot honour a node disk size (an EKS Auto Mode pool on a shared NodeClass) can tell a chosen one.
        gpu_taint: whether the default GPU taint is on (input ``gpu_taint``, default ``True``), so
            :meth:`taint_path` can tell the user's taints from it.
        gpu_access: ``device-plugin`` or ``dra`` as the pool gives it, or ``None`` to follow the cluster's GPU
            stack (``dra`` under ``gpu_stack: dra``, else ``device-plugin``).
    """

    name: str
    cloud: Cloud
    instance_type: str
    gpu: GpuModel
    gpu_count: int
    cpu_architecture: CpuArchitecture
    min_size: int
    max_size: int
    desired_size: int
    spot: bool
    disk_size_gb: int = DEFAULT_DISK_SIZE_GB
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    taints: tuple[Taint, ...] = (DEFAULT_GPU_TAINT,)
    sharing: Sharing | None = None
    mig: Mig | None = None
    provisioning: Provisioning | None = None
    gpu_taint: bool = True
    gpu_access: GpuAccessName | None = None
    disk_size_set: bool = field(default=False, compare=False)

    def taint_path(self, index: int) -> str:
        """Where ``taints[index]`` of this spec sits in the input: ``taints[<i>]`` for a taint the user gave,
        ``gpu_taint`` for the default GPU taint (first when on)."""
        offset = 1 if self.gpu_taint else 0
        return "gpu_taint" if index < offset else f"taints[{index - offset}]"

    @property
    def startup_taints(self) -> tuple[Taint, ...]:
        """The taints the pool's nodes start with until an agent removes them (``provisioning.startup_taints``;
        none on a fixed pool). Pods need not tolerate them; DaemonSets that must run on every node do."""
        return self.provisioning.startup_taints if self.provisioning is not None else ()

    def uses_dra(self, gpu_stack: str) -> bool:
        """Whether the pool's resolved ``gpu_access`` is ``dra`` under the cluster's ``gpu_stack``: the pool's own
        ``gpu_access``, else the cluster's default (``dra`` under ``gpu_stack: dra``, else ``device-plugin``)."""
        return (self.gpu_access if self.gpu_access is not None else gpu_stack) == "dra"

    @classmethod
    def from_args(cls, args: GpuNodePoolArgs | Mapping[str, object], cloud: Cloud, path: str = "") -> "GpuNodePoolSpec":
        """Validate ``args`` for ``cloud`` and return the spec.

        Args:
            args: the pool as a :class:`GpuNodePoolArgs` dictionary (or parsed YAML of that shape).
            cloud: the cloud the pool is for; instance types and pool-name rules are looked up for it.
            path: prefix for problem paths, e.g. ``pools[1]``.

        Raises:
            GpuSpecError: with every problem found: unknown or misspelt fields, wrong types, instance types that
                are unknown, not NVIDIA or not GPUs, node counts out of order, invalid names, labels and taints,
                sharing replicas out of the device plugin's limits, MPS with MIG, MIG on GPUs without MIG or with
                profiles or layouts the GPU does not have, a node disk size out of range; fractional-GPU instance
                types or families (:attr:`~gpu_components.cloud_facts.CloudFacts.fractional_gpu_types`), a short
                ``gpu_model`` naming several models, ``provisioning.gpu_requirements`` that are not the provisioner's
                GPU labels or values, or that exclude a named instance type.
        """
        spec, problems = cls.checked(args, cloud, path)
        if problems or spec is None:
            raise GpuSpecError(problems)
        return spec

    @classmethod
    def checked(
        cls, args: GpuNodePoolArgs | Mapping[str, object], cloud: Cloud, path: str = ""
    ) -> "tuple[GpuNodePoolSpec | None, list[Problem]]":
        """:meth:`from_args` without raising: ``(spec, problems)``. The spec is given also when its only problems
        are bounds of the cloud that leave it sound (``max_size`` over the cloud's nodes per node pool,
        :attr:`~gpu_components.cloud_facts.CloudFacts.max_pool_nodes`), so a validator can check the cloud's rules
        on it too and report every problem at once; ``None`` for any other problem.

        Raises:
            GpuSpecError: only for an unknown ``cloud``.
        """
        args, cloud = plain(args), value_of(cloud)
        if cloud not in CLOUDS:
            raise GpuSpecError([Problem("cloud", cloud, "unknown cloud", ", ".join(CLOUDS))])
        problems = pool_shape_problems(GpuNodePoolArgs, args, cloud, path)
        if problems:
            return None, problems
        return _build(cast(GpuNodePoolArgs, args), cloud, path)  # shape_problems proved the shape

    @property
    def isolation(self) -> Literal["exclusive", "mig", "shared"]:
        """How workloads on one GPU are isolated: whole GPUs, MIG partitions, or shared without memory isolation."""
        if self.sharing is not None:
            return "shared"
        return "mig" if self.mig is not None else "exclusive"


def sharing_trust_labels(spec: GpuNodePoolSpec) -> dict[str, str]:
    """``{SHARING_TRUST_KEY: SHARING_TRUSTED}`` for a pool whose time-slicing or MPS is declared ``trusted``, else
    ``{}``: the node label every cloud's adapter puts on such a pool (EKS node group ``labels`` and Bottlerocket
    ``settings.kubernetes.node-labels``, AKS ``nodeLabels``, GKE ``nodeConfig.labels``)."""
    if spec.sharing is not None and spec.sharing.trusted:
        return {SHARING_TRUST_KEY: SHARING_TRUSTED}
    return {}


def _build(args: GpuNodePoolArgs, cloud: Cloud, path: str) -> tuple[GpuNodePoolSpec | None, list[Problem]]:
    """The spec of a well-shaped pool and its problems (:meth:`GpuNodePoolSpec.checked`): the spec is ``None`` unless
    the only problems are the cloud's bounds (``bounds``), which leave it sound."""
    bounds: list[Problem] = []
    problems = name_problems(args["name"], cloud, _join(path, "name"))
    hardware, found = _hardware(args, cloud, path)
    problems += found
    taints, taint_problems = _taints(args, path)
    provisioning, found = _provisioning(args, cloud, hardware, taints, path)
    problems += found
    if provisioning is not None:
        min_size = desired = 0
        max_size = _provisioned_max_nodes(provisioning, hardware.gpu_count)
    elif "max_size" in args:
        min_size = args.get("min_size", 0)
        desired = args.get("desired_size", min_size)
        max_size = args["max_size"]
        problems += _size_problems(min_size, args.get("desired_size"), max_size, path)
        bounds = _node_limit_problems(max_size, cloud, path)
    else:  # no sizes: the problem keeps the spec from being built below
        problems.append(
            Problem(
                _join(path, "max_size"),
                None,
                "required for a fixed node pool (most nodes); or make the pool provisioned with provisioning",
            )
        )
    disk_size_gb = args.get("disk_size_gb", DEFAULT_DISK_SIZE_GB)
    problems += _disk_size_problems(disk_size_gb, path)
    labels = dict(args.get("labels", {}))
    problems += _label_problems(labels, _join(path, "labels"))
    problems += _cloud_reserved_problems(labels, args.get("taints", []), cloud, path)
    problems += taint_problems
    sharing, found = _sharing(args, hardware.gpu, path)
    problems += found
    mig, found = _mig(args, hardware.gpu, path)
    problems += found
    if problems or hardware.gpu is None:
        return None, problems + bounds
    spec = GpuNodePoolSpec(
        name=args["name"],
        cloud=cloud,
        instance_type=args["instance_type"],
        gpu=hardware.gpu,
        gpu_count=hardware.gpu_count,
        cpu_architecture=hardware.cpu_architecture,
        min_size=min_size,
        max_size=max_size,
        desired_size=desired,
        spot="spot" in provisioning.capacity_types if provisioning is not None else args.get("spot", False),
        disk_size_gb=disk_size_gb,
        labels=MappingProxyType(labels),
        taints=taints,
        sharing=sharing,
        mig=mig,
        provisioning=provisioning,
        gpu_taint=args.get("gpu_taint", True),
        gpu_access=cast(GpuAccessName, value_of(args["gpu_access"])) if "gpu_access" in args else None,
        disk_size_set="disk_size_gb" in args,
    )
    return spec, bounds


def parse_pools(
    pools: Sequence[GpuNodePoolArgs] | Sequence[Mapping[str, object]],
    cloud: Cloud,
    path: str = "pools",
    rules: Callable[[GpuNodePoolSpec, int, str], list[Problem]] | None = None,
) -> tuple[GpuNodePoolSpec, ...]:
    """Validate several pools of one cluster; raise every problem of every pool at once.

    Besides each pool's own rules, pool names must be unique in a cluster (they name node groups and device
    plugin config entries). ``rules`` (spec, index, path of the pool) adds checks for each pool that passed its
    own, e.g. a cloud adapter's.

    Raises:
        GpuSpecError: with the problems of all pools, paths ``pools[<index>]....``.
    """
    problems: list[Problem] = []
    specs: list[GpuNodePoolSpec] = []
    seen: dict[str, int] = {}
    for index, pool in enumerate(pools):
        where = f"{path}[{index}]"
        spec, found = GpuNodePoolSpec.checked(pool, cloud, where)
        problems += found
        if spec is not None:
            # A pool out of only its cloud's bounds is sound: its rules are checked too, so all come at once.
            specs.append(spec)
            problems += rules(spec, index, where) if rules is not None else []
        name = pool.get("name") if isinstance(pool, Mapping) else None
        if isinstance(name, str):
            if name in seen:
                problems.append(
                    Problem(f"{where}.name", name, f"pool names must be unique; {path}[{seen[name]}] has it too")
                )
            seen.setdefault(name, index)
    if not pools:
        problems.append(Problem(path, [], "a GPU cluster needs at least one pool"))
    if problems:
        raise GpuSpecError(problems)
    return tuple(specs)


def dra_refused(spec: GpuNodePoolSpec, path: str, why: str, valid: str, source: str) -> Problem:
    """The problem of a pool whose resolved ``gpu_access`` is ``dra`` where its cloud, image or provisioner cannot
    serve DRA: at ``<path>.gpu_access``, valued as the pool gave it, or as the cluster's default (``(default:
    dra)``, :class:`~gpu_components.errors.Default`) when the pool follows ``gpu_stack: dra``."""
    value: object = spec.gpu_access if spec.gpu_access is not None else Default("dra")
    return Problem(f"{path}.gpu_access" if path else "gpu_access", value, why, valid, source)
