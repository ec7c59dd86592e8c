"""The GPU capacity report of a plan, made from the pools' capacity records (:mod:`gpu_components.capacity`).

:func:`capacity_report` renders a Markdown table per stack: GPU model and memory, GPUs per node, node range, what
each node advertises to Kubernetes (count x resource), GPU memory per advertised unit and the isolation level, then
the stack's totals at maximum size; then, for provisioned pools, how their provisioner creates nodes (provisioner,
allowed instance types, limits in GPUs and nodes, capacity types, disruption) and each one's autoscaler note. The
records come from the node-pool components the program created
(``gpu-components plan`` hands them over: :attr:`~gpu_components.plan.project.ProjectPlan.pools`, so any program that
uses the components gets a report), or else from a plan's outputs (``gpuPools.<pool>.capacity``, which the example
program exports with :func:`~gpu_components.capacity.pool_capacity`), so a JSON plan file with that output alone is
enough.

DRA pools (GPUs published by NVIDIA's DRA driver, ``devicePlugin`` ``dra-driver``): their row shows the DRA devices
each node publishes (the record's ``draDevices``, else the ``draDevices`` of the pool's ``gpuPools`` entry; a record
or state without either, written before DRA, shows none), and, where the driver's DeviceClass serves an extended
resource (``advertises`` units with ``through``: ``nvidia.com/gpu`` through ``gpu.nvidia.com`` from Kubernetes 1.36,
:func:`~gpu_components.capacity.pool_capacity`), that resource too; a section lists them with who publishes them.
With ``claims`` (:func:`claim_records` of the plan's resources: the
``ResourceClaimTemplate`` and ``ResourceClaim`` objects the program registers, ``resource.k8s.io/v1``), a last
section lists each claim's requests (DeviceClass, count, CEL selectors), its opaque configs and the workloads that
use it, with the pools their ``nodeSelector`` names (Kubernetes DRA: :data:`SOURCE_DRA`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpu_components.adapter import POOL_COMPONENTS
from gpu_components.capacity import CAPACITY_KEY, GPU_POOLS_OUTPUT, AdvertisedUnit, PoolCapacity, ProvisioningRecord
from gpu_components.labels import POOL_LABEL
from gpu_components.plan.runner import PlannedResource

__all__ = [
    "DRA_DEVICES_KEY",
    "ISOLATION_TEXT",
    "ClaimRecord",
    "ClaimRequest",
    "capacity_records",
    "capacity_report",
    "claim_records",
    "dra_device_memory_gb",
    "dra_memory_text",
    "per_node_text",
]

ISOLATION_TEXT: Mapping[str, str] = {
    "exclusive": "exclusive",
    "mig": "MIG-isolated",
    "shared": "shared, no memory isolation",
}
"""How the report names each isolation level."""
DRA_DEVICES_KEY = "draDevices"
"""Key of a pool's DRA devices per node in its capacity record and in its entry of the ``gpuPools`` output."""
SOURCE_DRA = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
CLAIM_TYPES: Mapping[str, tuple[str, ...]] = {
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate": ("spec", "spec", "devices"),
    "kubernetes:resource.k8s.io/v1:ResourceClaim": ("spec", "devices"),
}
"""Resource claim types -> where their ``devices`` (``requests``, ``config``) sit in the inputs."""
_POD_SPECS: Mapping[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
}
"""Workload kinds (``kubernetes:<group>/<version>:<kind>``) -> where their pod spec sits."""
_MIG_MEMORY = re.compile(r"\.([0-9]+)gb")
"""The memory part of a MIG profile name (``<slices>g.<memory>gb``, NVIDIA MIG User Guide)."""


@dataclass(frozen=True)
class ClaimRequest:
    """One device request of a claim: its ``name`` (``<request>/<subrequest>`` for a ``firstAvailable``
    alternative), ``device_class``, ``count`` (a number, or ``all`` for allocation mode ``All``) and the CEL
    ``selectors``."""

    name: str
    device_class: str
    count: str
    selectors: tuple[str, ...]


@dataclass(frozen=True)
class ClaimRecord:
    """A resource claim the plan registers: ``kind`` (``ResourceClaimTemplate`` or ``ResourceClaim``),
    ``name`` (``<namespace>/<name>``), its ``requests``, its opaque ``configs`` in words (``GpuConfig sharing
    TimeSlicing (interval Long)``) and the workloads that use it (``used_by``: ``<Kind> <namespace>/<name>``, with
    ``(pool <p>)`` where the pod's ``nodeSelector`` names one) and those pools (``pools``, sorted)."""

    kind: str
    name: str
    requests: tuple[ClaimRequest, ...]
    configs: tuple[str, ...]
    used_by: tuple[str, ...]
    pools: tuple[str, ...] = ()


def capacity_records(outputs: Mapping[str, Any], output: str = GPU_POOLS_OUTPUT) -> dict[str, PoolCapacity]:
    """Pool name -> capacity record, read from a plan's stack outputs (``outputs[output][pool][capacity]``);
    pools without a record are left out. Sorted by pool name. A record without ``draDevices`` takes a non-empty
    ``draDevices`` of the pool's entry (the pool output), where there is one."""
    pools = outputs.get(output)
    if not isinstance(pools, Mapping):
        return {}
    records: dict[str, PoolCapacity] = {}
    for name in sorted(pools):
        entry = pools[name]
        if isinstance(entry, Mapping) and isinstance(entry.get(CAPACITY_KEY), Mapping):
            record: PoolCapacity = entry[CAPACITY_KEY]
            devices = entry.get(DRA_DEVICES_KEY)
            if DRA_DEVICES_KEY not in record and isinstance(devices, Mapping) and devices:
                record = {**record, "draDevices": {str(key): int(count) for key, count in sorted(devices.items())}}
            records[str(name)] = record
    return records


def capacity_report(
    stack: str,
    outputs: Mapping[str, Any],
    output: str = GPU_POOLS_OUTPUT,
    *,
    records: Mapping[str, PoolCapacity] | None = None,
    claims: Iterable[ClaimRecord] = (),
) -> str:
    """The capacity report of one stack as Markdown (readable as plain text too), ending with a newline.

    One row per pool: GPU model (memory), GPUs per node, node range (``min..max``, ``spot`` noted; a provisioned
    pool's capacity types, e.g. ``spot, on-demand``), what each node advertises (``count x resource``, one per
    resource), GPU memory per advertised unit, isolation. A provisioned pool whose allowed types have different GPU
    counts shows GPUs per node and advertised counts as a range over them (``1-2``, ``7-14``). Then the
    stack's totals at maximum size: nodes, GPUs per model (a provisioned pool's GPUs are its ``maxGpus``: its
    ``max_gpus`` or ``max_nodes`` nodes of its largest type, counted under its GPU models joined with ``/``).
    Then, when there are provisioned pools, a table of them (provisioner,
    instance types and families with the number of allowed types, limits, capacity types, disruption) and their
    autoscaler notes. Then, when there are DRA pools, a table of them: who publishes their GPUs, the DRA devices of
    each node and of the pool at maximum size. Then the ``claims`` (:func:`claim_records`), when given any. A stack
    without capacity records says so.

    ``records`` (pool name -> record, e.g. the node-pool components a program created:
    :attr:`~gpu_components.plan.project.ProjectPlan.pools`) is reported when given; otherwise the records are read
    from the stack output ``output`` (:func:`capacity_records`).
    """
    if records is None:
        records = capacity_records(outputs, output)
    lines = [f"## GPU capacity: {stack}", ""]
    if not records:
        lines.append(
            f"No GPU pools with a capacity record: the program creates no node-pool component ({POOL_COMPONENTS}) "
            f"and exports no stack output `{output}`."
        )
        return "\n".join(lines) + "\n"
    lines += [
        "| pool | cloud | instance | GPU | GPUs/node | nodes | each node advertises | GPU memory per unit "
        "| isolation |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, record in records.items():
        nodes = record.get("nodesBy") or f"{record['minNodes']}..{record['maxNodes']}"
        if "provisioning" in record:
            nodes += " " + ", ".join(record["provisioning"]["capacityTypes"])
        elif record["spot"]:
            nodes += " spot"
        advertises = "<br>".join(f"{per_node_text(record, u['perNode'])} x `{u['name']}`" for u in record["advertises"])
        memory = "<br>".join(_memory_text(record, u) for u in record["advertises"])
        devices = record.get("draDevices", {})
        if devices:
            served = [
                f"{per_node_text(record, u['perNode'])} x `{u['name']}` (through DRA DeviceClass {u['through']})"
                for u in record["advertises"]
                if "through" in u
            ]
            advertises = "<br>".join(
                [*(f"{per_node_text(record, n)} x `{d}` (DRA device)" for d, n in devices.items()), *served]
            )
            memory = "<br>".join(
                [
                    *(dra_memory_text(record, device) for device in devices),
                    *(_memory_text(record, u) for u in record["advertises"] if "through" in u),
                ]
            )
        lines.append(
            f"| {name} | {record['cloud']} | {record['instanceType']} | {record['gpuModel']} "
            f"({_gb(record['gpuMemoryGb'])}) | {per_node_text(record, record['gpusPerNode'])} | {nodes} | {advertises} "
            f"| {memory} | {ISOLATION_TEXT.get(record['isolation'], record['isolation'])} |"
        )
    lines += ["", _totals(records.values())]
    provisioned = {name: record["provisioning"] for name, record in records.items() if "provisioning" in record}
    if provisioned:
        lines += ["", *_provisioned(provisioned)]
    dra = {name: record for name, record in records.items() if record.get("draDevices")}
    if dra:
        lines += ["", *_dra_pools(dra)]
    claims = list(claims)
    if claims:
        lines += ["", *_claims(claims)]
    return "\n".join(lines) + "\n"


def _dra_pools(records: Mapping[str, PoolCapacity]) -> list[str]:
    """The DRA pools' table: who publishes their GPUs, the DRA devices per node and at maximum size."""
    served = {name: [unit for unit in record["advertises"] if "through" in unit] for name, record in records.items()}
    header = (
        "DRA pools (workloads ask for these devices with resource claims; where a pool lists an extended resource, "
        "a plain container limit of it is allocated whole GPUs through the DeviceClass named, Kubernetes' "
        "DRAExtendedResource):"
        if any(served.values())
        else "DRA pools (no extended resource: workloads ask for these devices with resource claims):"
    )
    lines = [header, "", "| pool | published by | DRA devices per node | at maximum size |", "|---|---|---|---|"]
    for name, record in records.items():
        devices = record.get("draDevices", {})
        per_node = ", ".join(f"{per_node_text(record, count)} x `{device}`" for device, count in devices.items())
        most = ", ".join(f"{_most_devices(record, count)} x `{device}`" for device, count in devices.items())
        for unit in served[name]:
            per_node += (
                f"; also {per_node_text(record, unit['perNode'])} x `{unit['name']}` through `{unit['through']}`"
            )
        lines.append(f"| {name} | {record['devicePlugin']} | {per_node} | {most} |")
    return lines


def _most_devices(record: PoolCapacity, count: int) -> int:
    """A pool's DRA devices of one kind at maximum size: ``count`` per node of its first instance type, scaled to
    its most GPUs (a provisioned pool's ``maxGpus``, else ``maxNodes`` nodes)."""
    per_gpu = count // max(record["gpusPerNode"], 1)
    if "provisioning" in record:
        return per_gpu * record["provisioning"]["maxGpus"]
    return count * record["maxNodes"]


def dra_device_memory_gb(record: PoolCapacity, device: str) -> float | None:
    """GPU memory of one DRA device of a pool, GB: the GPU's for ``gpu.nvidia.com``, the memory its MIG profile name
    gives for ``mig.nvidia.com/<profile>`` (``<slices>g.<memory>gb``, NVIDIA MIG User Guide); ``None`` for a name
    without it."""
    _, _, profile = device.partition("/")
    if not profile:
        return float(record["gpuMemoryGb"])
    found = _MIG_MEMORY.search(profile)
    return float(found.group(1)) if found else None


def dra_memory_text(record: PoolCapacity, device: str) -> str:
    """GPU memory of one DRA device as the report writes it: ``80 GB (GPU)`` for ``gpu.nvidia.com``,
    ``10 GB (MIG 1g.10gb)`` for ``mig.nvidia.com/1g.10gb``."""
    memory = dra_device_memory_gb(record, device)
    _, _, profile = device.partition("/")
    what = f"MIG {profile}" if profile else "GPU"
    return f"{_gb(memory)} ({what})" if memory is not None else what


def _cell(text: str) -> str:
    """Text for a Markdown table cell: ``|`` escaped (CEL's ``||``)."""
    return text.replace("|", "\\|")


def _claims(claims: list[ClaimRecord]) -> list[str]:
    """The resource claims' table: one row per request."""
    lines = [
        "Resource claims (resource.k8s.io/v1):",
        "",
        "| claim | request | DeviceClass | count | selectors | config | used by |",
        "|---|---|---|---|---|---|---|",
    ]
    for claim in claims:
        configs = "<br>".join(_cell(config) for config in claim.configs) or "-"
        used_by = "<br>".join(claim.used_by) or "-"
        for request in claim.requests:
            selectors = "<br>".join(f"`{_cell(selector)}`" for selector in request.selectors) or "-"
            lines.append(
                f"| {claim.kind} {claim.name} | {request.name} | `{request.device_class}` | {request.count} "
                f"| {selectors} | {configs} | {used_by} |"
            )
    return lines


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _at(value: object, *keys: str) -> object:
    for key in keys:
        value = _map(value).get(key)
    return value


def _request(name: str, request: Mapping[str, Any]) -> ClaimRequest:
    """One request (an ``exactly`` request or a ``firstAvailable`` alternative) as a :class:`ClaimRequest`."""
    count = "all" if request.get("allocationMode") == "All" else str(request.get("count", 1))
    selectors = tuple(
        str(_at(selector, "cel", "expression"))
        for selector in _list(request.get("selectors"))
        if isinstance(_at(selector, "cel", "expression"), str)
    )
    return ClaimRequest(name, str(request.get("deviceClassName", "")), count, selectors)


def _config_text(config: Mapping[str, Any]) -> str:
    """An opaque config in words: ``GpuConfig sharing TimeSlicing (interval Long)``, ``MigDeviceConfig sharing MPS``,
    or the driver and kind for others; requests it applies to in brackets when it names them."""
    opaque = _map(config.get("opaque"))
    parameters = _map(opaque.get("parameters"))
    text = str(parameters.get("kind") or opaque.get("driver") or "config")
    sharing = _map(parameters.get("sharing"))
    if sharing.get("strategy"):
        text += f" sharing {sharing['strategy']}"
        interval = _at(sharing, "timeSlicingConfig", "interval")
        if isinstance(interval, str):
            text += f" (interval {interval})"
    requests = [str(name) for name in _list(config.get("requests"))]
    return f"{text} [{', '.join(requests)}]" if requests else text


def claim_records(resources: Iterable[PlannedResource]) -> list[ClaimRecord]:
    """The resource claims among a plan's resources, with the workloads that use them (a pod's ``resourceClaims``
    naming the claim as ``resourceClaimTemplateName`` or ``resourceClaimName``, in the claim's namespace), sorted by
    kind and name. A claim without requests has none listed; one no workload uses has no ``used_by``."""
    resources = list(resources)
    users: dict[tuple[str, str, str], list[tuple[str, str | None]]] = {}
    for resource in resources:
        kind = resource.type.rsplit(":", 1)[-1]
        keys = _POD_SPECS.get(kind)
        if keys is None or not resource.type.startswith("kubernetes:"):
            continue
        metadata = _map(resource.inputs.get("metadata"))
        namespace = str(metadata.get("namespace") or "default")
        pod = _map(_at(resource.inputs, *keys))
        selected = _map(pod.get("nodeSelector")).get(POOL_LABEL)
        pool = selected if isinstance(selected, str) else None
        user = f"{kind} {namespace}/{metadata.get('name', resource.name)}" + (f" (pool {pool})" if pool else "")
        for reference in _list(pod.get("resourceClaims")):
            for field, claim_kind in (
                ("resourceClaimTemplateName", "ResourceClaimTemplate"),
                ("resourceClaimName", "ResourceClaim"),
            ):
                name = _map(reference).get(field)
                if isinstance(name, str):
                    users.setdefault((claim_kind, namespace, name), []).append((user, pool))
    records: list[ClaimRecord] = []
    for resource in resources:
        keys = CLAIM_TYPES.get(resource.type)
        if keys is None:
            continue
        kind = resource.type.rsplit(":", 1)[-1]
        metadata = _map(resource.inputs.get("metadata"))
        namespace, name = str(metadata.get("namespace") or "default"), str(metadata.get("name", resource.name))
        devices = _map(_at(resource.inputs, *keys))
        requests: list[ClaimRequest] = []
        for request in _list(devices.get("requests")):
            item = _map(request)
            request_name = str(item.get("name", ""))
            if "exactly" in item:
                requests.append(_request(request_name, _map(item["exactly"])))
            for alternative in _list(item.get("firstAvailable")):
                option = _map(alternative)
                requests.append(_request(f"{request_name}/{option.get('name', '')}", option))
        configs = tuple(_config_text(_map(config)) for config in _list(devices.get("config")))
        using = users.get((kind, namespace, name), [])
        used_by = tuple(sorted(user for user, _ in using))
        pools = tuple(sorted({pool for _, pool in using if pool is not None}))
        records.append(ClaimRecord(kind, f"{namespace}/{name}", tuple(requests), configs, used_by, pools))
    return sorted(records, key=lambda record: (record.kind, record.name))


def _provisioned(records: Mapping[str, ProvisioningRecord]) -> list[str]:
    """The provisioned pools' table and their autoscaler notes."""
    lines = [
        "Provisioned pools:",
        "",
        "| pool | provisioner | instance types | limits | capacity | disruption |",
        "|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    startup: list[str] = []
    for name, record in records.items():
        types = ", ".join(record["instanceTypes"])
        if record["instanceFamilies"]:
            types += f"; families {', '.join(record['instanceFamilies'])}"
        types += f" ({_counted(len(record['allowedTypes']), 'type')}: {'/'.join(record['gpuModels'])})"
        limits = _counted(record["maxGpus"], "GPU") + (
            f", {_counted(record['maxNodes'], 'node')}" if "maxNodes" in record else ""
        )
        capacity = ", ".join(record["capacityTypes"])
        if "reservation" in record:
            capacity += f" ({record['reservation']})"
        disruption = record["disruption"]
        policy = f"{disruption['consolidation']} after {disruption['consolidateAfter']}"
        if "expireAfter" in disruption:
            policy += f", expire after {disruption['expireAfter']}"
        if "terminationGracePeriod" in disruption:
            policy += f", drain at most {disruption['terminationGracePeriod']}"
        if "budgets" in disruption:
            policy += f"; budgets: {'; '.join(disruption['budgets'])}"
        lines.append(f"| {name} | {record['provisioner']} | {types} | {limits} | {capacity} | {_cell(policy)} |")
        if "startupTaints" in record:
            startup.append(f"- {name}: {', '.join(record['startupTaints'])}.")
        if "autoscalerNote" in record:
            notes.append(f"- {name}: {record['autoscalerNote']}.")
    return [
        *lines,
        *(
            [
                "",
                "Startup taints (removed once an agent has readied the node; pods need not tolerate them):",
                "",
                *startup,
            ]
            if startup
            else []
        ),
        *(["", "Autoscaler notes:", "", *notes] if notes else []),
    ]


def per_node_text(record: PoolCapacity, count: int) -> str:
    """``count`` (of a node of the pool's first instance type) as text; for a provisioned pool whose allowed types
    have different GPU counts, the range over them (``1-2``), the count scaled per GPU (a pool's sharing and MIG
    being one GPU model's, each GPU advertises the same units). A record without the range (a plan file written
    before it was recorded) shows ``count``."""
    provisioning = record.get("provisioning")
    fewest = provisioning.get("minGpusPerNode") if provisioning is not None else None
    most = provisioning.get("maxGpusPerNode") if provisioning is not None else None
    if fewest is None or most is None or fewest == most:
        return str(count)
    per_gpu = count // max(record["gpusPerNode"], 1)
    return f"{per_gpu * fewest}-{per_gpu * most}"


def _memory_text(record: PoolCapacity, unit: AdvertisedUnit) -> str:
    """``24 GB (GPU)``, ``5 GB (MIG 1g.5gb)``, ``24 GB (GPU) shared by 4 time-sliced replicas``, or for MPS with a
    per-client limit ``6 GB limit (24 GB GPU / 4 MPS clients)``."""
    memory, device = _gb(unit["memoryGb"]), unit["device"]
    if unit["sharedBy"] <= 1:
        return f"{memory} ({device})"
    limit = unit.get("memoryLimitGb")
    if record["sharing"] == "mps" and limit is not None:
        return f"{_gb(limit)} limit ({memory} {device} / {unit['sharedBy']} MPS clients)"
    kind = "MPS clients" if record["sharing"] == "mps" else "time-sliced replicas"
    return f"{memory} ({device}) shared by {unit['sharedBy']} {kind}"


def _totals(records: Iterable[PoolCapacity]) -> str:
    nodes = 0
    gpus: dict[str, int] = {}
    unbounded: list[str] = []
    for record in records:
        if "nodesBy" in record:  # no node pool of the program's: the cloud sizes it, with no limit here
            unbounded.append(record["nodesBy"])
            continue
        nodes += record["maxNodes"]
        model, count = record["gpuModel"], record["maxNodes"] * record["gpusPerNode"]
        if "provisioning" in record:
            model, count = "/".join(record["provisioning"]["gpuModels"]), record["provisioning"]["maxGpus"]
        gpus[model] = gpus.get(model, 0) + count
    if unbounded and not gpus:
        return f"No maximum size: {', '.join(sorted(set(unbounded)))} creates and sizes the GPU nodes for the pods."
    models = ", ".join(f"{count} x {model}" for model, count in sorted(gpus.items()))
    if unbounded:
        models += f"; not counting the pools {', '.join(sorted(set(unbounded)))} sizes"
    return f"At maximum size: {nodes} GPU nodes, {sum(gpus.values())} GPUs ({models})."


def _counted(count: int, unit: str) -> str:
    """``count`` ``unit``, plural unless the count is one (``1 GPU``, ``8 GPUs``)."""
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _gb(value: float) -> str:
    return f"{value:g} GB"
