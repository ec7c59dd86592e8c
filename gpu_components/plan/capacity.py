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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpu_components.adapter import POOL_COMPONENTS
from gpu_components.capacity import CAPACITY_KEY, GPU_POOLS_OUTPUT, AdvertisedUnit, PoolCapacity, ProvisioningRecord

__all__ = [
    "ISOLATION_TEXT",
    "capacity_records",
    "capacity_report",
    "per_node_text",
]

ISOLATION_TEXT: Mapping[str, str] = {
    "exclusive": "exclusive",
    "mig": "MIG-isolated",
    "shared": "shared, no memory isolation",
}
"""How the report names each isolation level."""


def capacity_records(outputs: Mapping[str, Any], output: str = GPU_POOLS_OUTPUT) -> dict[str, PoolCapacity]:
    """Pool name -> capacity record, read from a plan's stack outputs (``outputs[output][pool][capacity]``);
    pools without a record are left out. Sorted by pool name."""
    pools = outputs.get(output)
    if not isinstance(pools, Mapping):
        return {}
    records: dict[str, PoolCapacity] = {}
    for name in sorted(pools):
        entry = pools[name]
        if isinstance(entry, Mapping) and isinstance(entry.get(CAPACITY_KEY), Mapping):
            records[str(name)] = entry[CAPACITY_KEY]
    return records


def capacity_report(
    stack: str,
    outputs: Mapping[str, Any],
    output: str = GPU_POOLS_OUTPUT,
    *,
    records: Mapping[str, PoolCapacity] | None = None,
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
    autoscaler notes. A stack without capacity records says so.

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
        nodes = f"{record['minNodes']}..{record['maxNodes']}"
        if "provisioning" in record:
            nodes += " " + ", ".join(record["provisioning"]["capacityTypes"])
        elif record["spot"]:
            nodes += " spot"
        advertises = "<br>".join(f"{per_node_text(record, u['perNode'])} x `{u['name']}`" for u in record["advertises"])
        memory = "<br>".join(_memory_text(record, u) for u in record["advertises"])
        lines.append(
            f"| {name} | {record['cloud']} | {record['instanceType']} | {record['gpuModel']} "
            f"({_gb(record['gpuMemoryGb'])}) | {per_node_text(record, record['gpusPerNode'])} | {nodes} | {advertises} "
            f"| {memory} | {ISOLATION_TEXT.get(record['isolation'], record['isolation'])} |"
        )
    lines += ["", _totals(records.values())]
    provisioned = {name: record["provisioning"] for name, record in records.items() if "provisioning" in record}
    if provisioned:
        lines += ["", *_provisioned(provisioned)]
    return "\n".join(lines) + "\n"


def _provisioned(records: Mapping[str, ProvisioningRecord]) -> list[str]:
    """The provisioned pools' table and their autoscaler notes."""
    lines = [
        "Provisioned pools:",
        "",
        "| pool | provisioner | instance types | limits | capacity | disruption |",
        "|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
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
        lines.append(f"| {name} | {record['provisioner']} | {types} | {limits} | {capacity} | {policy} |")
        if "autoscalerNote" in record:
            notes.append(f"- {name}: {record['autoscalerNote']}.")
    return [*lines, *(["", "Autoscaler notes:", "", *notes] if notes else [])]


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
    for record in records:
        nodes += record["maxNodes"]
        model, count = record["gpuModel"], record["maxNodes"] * record["gpusPerNode"]
        if "provisioning" in record:
            model, count = "/".join(record["provisioning"]["gpuModels"]), record["provisioning"]["maxGpus"]
        gpus[model] = gpus.get(model, 0) + count
    models = ", ".join(f"{count} x {model}" for model, count in sorted(gpus.items()))
    return f"At maximum size: {nodes} GPU nodes, {sum(gpus.values())} GPUs ({models})."


def _counted(count: int, unit: str) -> str:
    """``count`` ``unit``, plural unless the count is one (``1 GPU``, ``8 GPUs``)."""
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _gb(value: float) -> str:
    return f"{value:g} GB"
