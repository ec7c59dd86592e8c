"""The capacity of a GPU pool: what hardware it has, what each node advertises, and how isolated it is.

:func:`pool_capacity` turns a node-pool component (anything with the :class:`~gpu_components.adapter.GpuNodePool`
attributes) into a :class:`PoolCapacity` record: plain, JSON-ready, documented. A program exports one per pool (the
example program puts it under ``gpuPools.<pool>.capacity``, :data:`GPU_POOLS_OUTPUT` and :data:`CAPACITY_KEY`),
so the record is in every plan, and the plan's capacity report and diagram (:mod:`gpu_components.plan.capacity`,
:mod:`gpu_components.plan.diagram`) can be made from a JSON plan file alone.

GPU memory per unit: a whole GPU's memory (catalog), a MIG device's profile memory (NVIDIA MIG User Guide, via
the catalog), or, under time-slicing, the whole device's memory shared by every replica with no limit per replica
(NVIDIA device plugin README, "shared access to GPUs"). Under MPS served by the NVIDIA device plugin (as a
DaemonSet, through the GPU Operator, or on Bottlerocket's host), each client
gets an equal pinned-memory limit (device memory / replicas; the plugin's MPS control daemon sets
``set_default_device_pinned_mem_limit``), which caps memory but isolates neither faults nor bandwidth; under MPS
served by GKE no limit is set unless the workload sets ``CUDA_MPS_PINNED_DEVICE_MEM_LIMIT``.

A provisioned pool's record also says how its provisioner creates nodes (:class:`ProvisioningRecord`): the
provisioner, the instance types it may choose, its limits in GPUs and nodes, the capacity types, when it removes
nodes, and the pool's autoscaler note (what the provisioner cannot count when it scales:
:func:`~gpu_components.autoscaler.provisioner_note`), with the fewest and most GPUs of one node of its allowed
types. Its other fields describe a node of its first instance type (``gpusPerNode``, ``advertises``); the report
scales them to the range (:mod:`gpu_components.plan.capacity`).

A pool whose GPUs NVIDIA's DRA driver publishes (``devicePlugin`` ``dra-driver``) has no device plugin; its
record's ``draDevices`` says what each node publishes to DRA: DeviceClass (and MIG profile) -> devices per node,
``gpu.nvidia.com`` for whole GPUs, ``mig.nvidia.com/<profile>`` for MIG devices (the pool's ``dra_devices``,
:func:`gpu_components.dra.dra_devices`). Workloads ask for those devices with resource claims (Kubernetes DRA,
``resource.k8s.io/v1``: https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/).
Its ``advertises`` is empty, unless the DRA driver serving it maps ``nvidia.com/gpu`` to its ``gpu.nvidia.com``
DeviceClass (the driver's ``extended_resource`` in force, Kubernetes 1.36 or later:
:func:`~gpu_components.nvidia.dra_driver.extended_resource_in_force`): then it lists ``nvidia.com/gpu`` for the
pool's whole GPUs (its ``gpu.nvidia.com`` devices), ``through`` that DeviceClass (:func:`served_extended_resource`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
from gpu_components.adapter import GpuNodePool
from gpu_components.dra import GPU_DEVICE_CLASS
from gpu_components.mig import mig_resource_name
from gpu_components.nvidia.device_plugin import SHARED_SUFFIX
from gpu_components.spec import DisruptionBudget, GpuNodePoolSpec, Mps, TimeSlicing

__all__ = [
    "CAPACITY_KEY",
    "GPU_POOLS_OUTPUT",
    "AdvertisedUnit",
    "Isolation",
    "PoolCapacity",
    "ProvisioningRecord",
    "pool_capacity",
    "served_extended_resource",
]

GPU_POOLS_OUTPUT = "gpuPools"
"""Stack output of the pools' entries (pool name -> a mapping with the pool's record at :data:`CAPACITY_KEY`): the
example program exports it, and the plan's capacity report and diagram read it by default."""
CAPACITY_KEY = "capacity"
"""Key of a pool's :class:`PoolCapacity` record inside its entry of :data:`GPU_POOLS_OUTPUT`."""

Isolation = Literal["exclusive", "mig", "shared"]
"""How workloads on one GPU are isolated (:attr:`~gpu_components.spec.GpuNodePoolSpec.isolation`)."""


class AdvertisedUnit(TypedDict):
    """One extended resource a node advertises.

    Fields: ``name`` (e.g. ``nvidia.com/mig-1g.10gb``), ``perNode`` (count per node), ``device`` (what one unit
    runs on: ``GPU`` or ``MIG <profile>``), ``memoryGb`` (GPU memory of
    the device behind one unit, GB), ``sharedBy`` (units sharing that device: 1, or the sharing replicas),
    ``memoryLimitGb`` (memory one unit may use when a limit is enforced: the MIG device's memory, the MPS
    per-client limit; left out when units share the device's memory without a limit), ``through`` (the DRA
    DeviceClass Kubernetes allocates the resource from, ``gpu.nvidia.com``, on a DRA pool whose driver's
    DeviceClass names it as its ``extendedResourceName``; left out where a device plugin advertises it).
    """

    name: str
    perNode: int
    device: str
    memoryGb: float
    sharedBy: int
    memoryLimitGb: NotRequired[float]
    through: NotRequired[str]


class DisruptionRecord(TypedDict):
    """When a provisioner removes a provisioned pool's nodes: ``consolidation`` (``when-empty`` or
    ``when-empty-or-underutilized``), ``consolidateAfter`` (a duration), ``expireAfter`` (a duration or ``Never``;
    left out when the provisioner's own default applies) and ``terminationGracePeriod`` (a duration; left out when
    none is set) and ``budgets`` (each NodePool disruption budget in words, ``10%``, ``0 for underutilized, drifted
    during 0 9 * * mon-fri for 8h``; left out when the provisioner's own default applies)."""

    consolidation: str
    consolidateAfter: str
    expireAfter: NotRequired[str]
    terminationGracePeriod: NotRequired[str]
    budgets: NotRequired[list[str]]


class ProvisioningRecord(TypedDict):
    """How a provisioned pool's nodes are created (camelCase, JSON-ready).

    Fields: ``provisioner``; ``instanceTypes`` and ``instanceFamilies`` (as named); ``allowedTypes`` (every type the
    provisioner may choose); ``gpuModels`` (their GPU models, sorted); ``minGpusPerNode`` / ``maxGpusPerNode`` (the
    fewest and most GPUs of one node of an allowed type: the report's GPUs per node, a range where they differ);
    ``maxGpus`` (the most GPUs the pool may have: the lesser of its ``max_gpus`` and ``max_nodes`` nodes of its
    largest allowed type, whichever are given); ``maxNodes`` (its ``max_nodes``, left out when not given);
    ``capacityTypes``; ``reservation`` (left out without one); ``disruption``; ``startupTaints`` (the taints its
    nodes start with until an agent removes them, ``key=value:Effect``; left out without any); ``autoscalerNote``
    (left out without one).
    """

    provisioner: str
    instanceTypes: list[str]
    instanceFamilies: list[str]
    allowedTypes: list[str]
    gpuModels: list[str]
    minGpusPerNode: int
    maxGpusPerNode: int
    maxGpus: int
    maxNodes: NotRequired[int]
    capacityTypes: list[str]
    reservation: NotRequired[str]
    disruption: DisruptionRecord
    startupTaints: NotRequired[list[str]]
    autoscalerNote: NotRequired[str]


class PoolCapacity(TypedDict):
    """A pool's capacity record (camelCase, JSON-ready, as exported in a plan).

    Fields: ``cloud``; ``instanceType``; ``gpuModel`` and ``gpuMemoryGb`` (catalog); ``gpusPerNode``;
    ``minNodes`` / ``maxNodes``; ``spot``; ``devicePlugin`` (who advertises the GPUs: ``daemonset``,
    ``node-image``, ``cloud`` or ``dra-driver``); ``sharing`` (``none``, ``time-slicing`` or ``mps``); ``mig`` (MIG
    profile -> devices per GPU, empty without MIG); ``isolation`` (``exclusive``, ``mig`` or ``shared``);
    ``advertises``; ``draDevices`` (DRA DeviceClass or ``mig.nvidia.com/<profile>`` -> devices per node, sorted;
    only for a pool whose GPUs the DRA driver publishes: left out otherwise, and in records written before DRA);
    ``nodesBy`` (who creates and sizes the nodes of a pool with no node pool of the library's, e.g. ``GKE
    Autopilot``, whose ``minNodes`` and ``maxNodes`` are then 0; left out otherwise).
    """

    cloud: str
    instanceType: str
    gpuModel: str
    gpuMemoryGb: int
    gpusPerNode: int
    minNodes: int
    maxNodes: int
    spot: bool
    devicePlugin: str
    sharing: Literal["none", "time-slicing", "mps"]
    mig: dict[str, int]
    isolation: Isolation
    advertises: list[AdvertisedUnit]
    provisioning: NotRequired[ProvisioningRecord]
    draDevices: NotRequired[dict[str, int]]
    nodesBy: NotRequired[str]


def served_extended_resource(pool: GpuNodePool, drivers: Iterable[object]) -> str | None:
    """The extended resource a DRA pool also serves through its driver's ``gpu.nvidia.com`` DeviceClass: the
    ``extended_resource`` (``nvidia.com/gpu`` or ``None``) of the DRA driver component among ``drivers``
    (:class:`~gpu_components.kubernetes.NvidiaDraDriver`, or anything: those without ``serves`` and
    ``extended_resource`` are skipped) that serves ``pool`` (its ``serves``: a pool of another cluster with equal
    settings is not served); ``None`` for a pool the DRA driver does not serve or no driver serves."""
    if pool.device_plugin_host != "dra-driver":
        return None
    for driver in drivers:
        resource, serves = getattr(driver, "extended_resource", None), getattr(driver, "serves", None)
        if isinstance(resource, str) and callable(serves) and serves(pool):
            return resource
    return None


def pool_capacity(pool: GpuNodePool, dra_extended_resource: str | None = None) -> PoolCapacity:
    """The capacity record of a node-pool component: its spec, device-plugin host, advertised resources and, when it
    has any, the DRA devices each node publishes (its ``dra_devices``, ``{}`` on a device-plugin pool).

    ``dra_extended_resource``: on a DRA pool, the extended resource its DRA driver's ``gpu.nvidia.com`` DeviceClass
    serves (:func:`served_extended_resource`; defaults to ``None``, none); ``advertises`` then lists it for each
    node's ``gpu.nvidia.com`` devices (whole GPUs; a static-MIG pool has none), ``through`` that class."""
    spec = pool.spec
    sharing: Literal["none", "time-slicing", "mps"] = "none"
    if isinstance(spec.sharing, TimeSlicing):
        sharing = "time-slicing"
    elif isinstance(spec.sharing, Mps):
        sharing = "mps"
    record: PoolCapacity = {
        "cloud": spec.cloud,
        "instanceType": spec.instance_type,
        "gpuModel": spec.gpu.name,
        "gpuMemoryGb": spec.gpu.memory_gb,
        "gpusPerNode": spec.gpu_count,
        "minNodes": spec.min_size,
        "maxNodes": spec.max_size,
        "spot": spec.spot,
        "devicePlugin": pool.device_plugin_host,
        "sharing": sharing,
        "mig": dict(sorted(spec.mig.devices.items())) if spec.mig else {},
        "isolation": spec.isolation,
        "advertises": [
            _unit(spec, name, count, pool.device_plugin_host)
            for name, count in sorted(pool.advertised_resources.items())
        ],
    }
    whole = pool.dra_devices.get(GPU_DEVICE_CLASS, 0)
    if dra_extended_resource is not None and pool.device_plugin_host == "dra-driver" and whole:
        memory = float(spec.gpu.memory_gb)
        record["advertises"].append(
            {
                "name": dra_extended_resource,
                "perNode": whole,
                "device": "GPU",
                "memoryGb": memory,
                "sharedBy": 1,
                "memoryLimitGb": memory,
                "through": GPU_DEVICE_CLASS,
            }
        )
    if spec.provisioning is not None:
        record["provisioning"] = provisioning_record(spec, pool.autoscaler_note)
    if pool.dra_devices:
        record["draDevices"] = dict(sorted(pool.dra_devices.items()))
    nodes_by = getattr(pool, "nodes_by", None)
    if isinstance(nodes_by, str):
        record["nodesBy"] = nodes_by
    return record


def provisioning_record(spec: GpuNodePoolSpec, autoscaler_note: str | None) -> ProvisioningRecord:
    """The :class:`ProvisioningRecord` of a provisioned pool (``spec.provisioning`` set) and its autoscaler note."""
    provisioning = spec.provisioning
    assert provisioning is not None
    counts = {spec.instance_type: spec.gpu_count}
    models = {spec.gpu.name}
    for name in provisioning.allowed_types[1:]:
        found = catalog.instance_type(spec.cloud, name)
        counts[name] = found.gpu_count
        models.add(found.gpu_model or "")
    most = [provisioning.max_gpus] if provisioning.max_gpus is not None else []
    if provisioning.max_nodes is not None:
        most.append(provisioning.max_nodes * max(counts.values()))
    disruption: DisruptionRecord = {
        "consolidation": provisioning.disruption.consolidation,
        "consolidateAfter": provisioning.disruption.consolidate_after,
    }
    if provisioning.disruption.expire_after is not None:
        disruption["expireAfter"] = provisioning.disruption.expire_after
    if provisioning.disruption.termination_grace_period is not None:
        disruption["terminationGracePeriod"] = provisioning.disruption.termination_grace_period
    if provisioning.disruption.budgets:
        disruption["budgets"] = [_budget_text(budget) for budget in provisioning.disruption.budgets]
    record: ProvisioningRecord = {
        "provisioner": provisioning.provisioner,
        "instanceTypes": list(provisioning.instance_types),
        "instanceFamilies": list(provisioning.instance_families),
        "allowedTypes": list(provisioning.allowed_types),
        "gpuModels": sorted(models),
        "minGpusPerNode": min(counts.values()),
        "maxGpusPerNode": max(counts.values()),
        "maxGpus": min(most),
        "capacityTypes": list(provisioning.capacity_types),
        "disruption": disruption,
    }
    if provisioning.max_nodes is not None:
        record["maxNodes"] = provisioning.max_nodes
    if provisioning.reservation is not None:
        record["reservation"] = provisioning.reservation
    if provisioning.startup_taints:
        record["startupTaints"] = [taint.text for taint in provisioning.startup_taints]
    if autoscaler_note is not None:
        record["autoscalerNote"] = autoscaler_note
    return record


def _budget_text(budget: DisruptionBudget) -> str:
    """A disruption budget in words: its nodes, the reasons it limits (all when none are named) and its window."""
    text = budget.nodes + (f" for {', '.join(budget.reasons)}" if budget.reasons else "")
    return text + (f" during {budget.schedule} for {budget.duration}" if budget.schedule is not None else "")


def _unit(spec: GpuNodePoolSpec, name: str, count: int, host: str) -> AdvertisedUnit:
    memory = float(spec.gpu.memory_gb)
    limit: float | None = memory
    device = "GPU"
    if spec.mig is not None:
        profile = _mig_profile(spec, name)
        memory = float(spec.gpu.mig_profiles[profile].memory_gb) if profile in spec.gpu.mig_profiles else memory
        limit = memory
        device = f"MIG {profile}"
    shared_by = spec.sharing.replicas if spec.sharing is not None else 1
    if isinstance(spec.sharing, TimeSlicing):
        limit = None
    elif isinstance(spec.sharing, Mps):
        limit = round(memory / shared_by, 2) if host != "cloud" else None
    unit: AdvertisedUnit = {"name": name, "perNode": count, "device": device, "memoryGb": memory, "sharedBy": shared_by}
    if limit is not None:
        unit["memoryLimitGb"] = limit
    return unit


def _mig_profile(spec: GpuNodePoolSpec, name: str) -> str:
    """The MIG profile behind resource ``name``: the one whose :func:`~gpu_components.mig.mig_resource_name` it is
    (``.shared`` suffix aside), else the pool's only profile (single strategy, or a cloud that advertises MIG
    devices as ``nvidia.com/gpu``)."""
    assert spec.mig is not None
    base = name.removesuffix(SHARED_SUFFIX)
    for profile in spec.mig.devices:
        if mig_resource_name(profile) == base:
            return profile
    return next(iter(sorted(spec.mig.devices)))
