"""Capacity records and the capacity report of provisioned pools (issue 16), from specs built by
``GpuNodePoolSpec.from_args`` and the autoscaler note of :func:`gpu_components.autoscaler.provisioner_note`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_components.autoscaler import provisioner_note
from gpu_components.capacity import PoolCapacity, pool_capacity
from gpu_components.nvidia.device_plugin import advertised_resources
from gpu_components.plan.capacity import capacity_report
from gpu_components.plan.diagram import to_mermaid
from gpu_components.spec import GpuNodePoolSpec


@dataclass
class FakePool:
    spec: GpuNodePoolSpec
    device_plugin_host: Any
    advertised_resources: dict[str, int]
    autoscaler_note: str | None
    dra_devices: dict[str, int] = field(default_factory=dict)  # a device-plugin pool publishes none


def record(cloud: str, host: str = "daemonset", **args: Any) -> PoolCapacity:
    spec = GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]
    return pool_capacity(FakePool(spec, host, advertised_resources(spec), provisioner_note(spec, host)))


def time_sliced() -> PoolCapacity:
    return record(
        "aws",
        name="l40s",
        instance_type="g6e.xlarge",
        time_slicing={"replicas": 4},
        provisioning={
            "provisioner": "karpenter",
            "max_gpus": 8,
            "instance_types": ["g6e.2xlarge"],
            "capacity_types": ["spot", "on-demand"],
            "disruption": {"expire_after": "720h"},
        },
    )


def mixed() -> PoolCapacity:
    return record(
        "aws",
        name="mixed",
        instance_type="g6.xlarge",
        provisioning={
            "provisioner": "karpenter",
            "max_nodes": 3,
            "instance_families": ["g6e"],
            "capacity_types": ["reserved"],
            "reservation": "cr-0123456789abcdef0",
            "disruption": {"consolidation": "when-empty-or-underutilized", "consolidate_after": "1h"},
        },
    )


def test_provisioned_record_says_how_the_provisioner_creates_nodes() -> None:
    assert time_sliced()["provisioning"] == {
        "provisioner": "karpenter",
        "instanceTypes": ["g6e.xlarge", "g6e.2xlarge"],
        "instanceFamilies": [],
        "allowedTypes": ["g6e.xlarge", "g6e.2xlarge"],
        "gpuModels": ["L40S"],
        "minGpusPerNode": 1,
        "maxGpusPerNode": 1,
        "maxGpus": 8,
        "capacityTypes": ["spot", "on-demand"],
        "disruption": {"consolidation": "when-empty", "consolidateAfter": "10m", "expireAfter": "720h"},
        "autoscalerNote": "karpenter counts each nvidia.com/gpu request as a whole GPU of the instance type (1 per "
        "g6e.xlarge node) while a node advertises 4 (time-slicing, 4 replicas per GPU): it may create up to 4 times "
        "the nodes pending pods need; the empty ones are consolidated later",
    }


def test_node_limit_gives_the_gpus_of_its_largest_allowed_type() -> None:
    provisioning = mixed()["provisioning"]
    assert (provisioning["maxGpus"], provisioning["maxNodes"], provisioning["gpuModels"]) == (24, 3, ["L4", "L40S"])
    assert (provisioning["minGpusPerNode"], provisioning["maxGpusPerNode"]) == (1, 8)
    assert provisioning["allowedTypes"][:3] == ["g6.xlarge", "g6e.12xlarge", "g6e.16xlarge"]
    assert len(provisioning["allowedTypes"]) == 9
    assert provisioning["reservation"] == "cr-0123456789abcdef0"
    assert "autoscalerNote" not in provisioning


def h100_mig_nap() -> PoolCapacity:
    return record(
        "azure",
        "gpu-operator",
        name="h100mig",
        instance_type="Standard_NC40ads_H100_v5",
        mig={"profile": "1g.12gb", "strategy": "single"},
        provisioning={
            "provisioner": "node-auto-provisioning",
            "max_gpus": 8,
            "max_nodes": 4,
            "instance_types": ["Standard_NC80adis_H100_v5"],
        },
    )


def test_report_shows_a_range_where_allowed_types_differ_in_gpus_and_the_totals_agree() -> None:
    lines = capacity_report("s", {"gpuPools": {"h100mig": {"capacity": h100_mig_nap()}}}).splitlines()
    assert lines[4] == (
        "| h100mig | azure | Standard_NC40ads_H100_v5 | H100-94GB (94 GB) | 1-2 | 0..4 on-demand | "
        "7-14 x `nvidia.com/gpu` | 12 GB (MIG 1g.12gb) | MIG-isolated |"
    )
    assert lines[6] == "At maximum size: 4 GPU nodes, 8 GPUs (8 x H100-94GB)."


def test_diagram_shows_the_same_ranges() -> None:
    diagram = to_mermaid("s", {"gpuPools": {"h100mig": {"capacity": h100_mig_nap()}}})
    assert '    p0g["1-2 x H100-94GB (94 GB) per node<br>node advertises 7-14 x nvidia.com/gpu"]\n' in diagram


def test_fixed_pool_record_has_no_provisioning() -> None:
    assert "provisioning" not in record("aws", name="fixed", instance_type="g6e.xlarge", max_size=2)


def test_report_lists_provisioned_pools_and_their_notes() -> None:
    outputs = {"gpuPools": {"l40s": {"capacity": time_sliced()}, "mixed": {"capacity": mixed()}}}
    assert capacity_report("s", outputs) == (
        "## GPU capacity: s\n"
        "\n"
        "| pool | cloud | instance | GPU | GPUs/node | nodes | each node advertises | GPU memory per unit "
        "| isolation |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| l40s | aws | g6e.xlarge | L40S (48 GB) | 1 | 0..8 spot, on-demand | 4 x `nvidia.com/gpu` | 48 GB (GPU) "
        "shared by 4 time-sliced replicas | shared, no memory isolation |\n"
        "| mixed | aws | g6.xlarge | L4 (24 GB) | 1-8 | 0..3 reserved | 1-8 x `nvidia.com/gpu` | 24 GB (GPU) | "
        "exclusive |\n"
        "\n"
        "At maximum size: 11 GPU nodes, 32 GPUs (24 x L4/L40S, 8 x L40S).\n"
        "\n"
        "Provisioned pools:\n"
        "\n"
        "| pool | provisioner | instance types | limits | capacity | disruption |\n"
        "|---|---|---|---|---|---|\n"
        "| l40s | karpenter | g6e.xlarge, g6e.2xlarge (2 types: L40S) | 8 GPUs | spot, on-demand | when-empty after "
        "10m, expire after 720h |\n"
        "| mixed | karpenter | g6.xlarge; families g6e (9 types: L4/L40S) | 24 GPUs, 3 nodes | reserved "
        "(cr-0123456789abcdef0) | when-empty-or-underutilized after 1h |\n"
        "\n"
        "Autoscaler notes:\n"
        "\n"
        "- l40s: karpenter counts each nvidia.com/gpu request as a whole GPU of the instance type (1 per g6e.xlarge "
        "node) while a node advertises 4 (time-slicing, 4 replicas per GPU): it may create up to 4 times the nodes "
        "pending pods need; the empty ones are consolidated later.\n"
    )


def test_report_counts_one_type_one_gpu_and_one_node_in_the_singular() -> None:
    one = record(
        "aws",
        name="one",
        instance_type="g6e.xlarge",
        provisioning={"provisioner": "karpenter", "max_gpus": 1, "max_nodes": 1},
    )
    report = capacity_report("s", {"gpuPools": {"one": {"capacity": one}}})
    assert "| one | karpenter | g6e.xlarge (1 type: L40S) | 1 GPU, 1 node | on-demand | when-empty after 10m |\n" in (
        report
    )


def test_report_shows_disruption_budgets_and_startup_taints() -> None:
    budgeted = record(
        "aws",
        name="train",
        instance_type="p5.48xlarge",
        provisioning={
            "provisioner": "karpenter",
            "max_gpus": 16,
            "startup_taints": [{"key": "example.com/agent-not-ready", "value": "true", "effect": "NoSchedule"}],
            "disruption": {
                "consolidation": "when-empty-or-underutilized",
                "budgets": [
                    {"nodes": "10%"},
                    {
                        "nodes": "0",
                        "reasons": ["underutilized", "drifted"],
                        "schedule": "0 9 * * mon-fri",
                        "duration": "8h",
                    },
                ],
            },
        },
    )
    assert budgeted["provisioning"]["disruption"]["budgets"] == [
        "10%",
        "0 for underutilized, drifted during 0 9 * * mon-fri for 8h",
    ]
    assert budgeted["provisioning"]["startupTaints"] == ["example.com/agent-not-ready=true:NoSchedule"]
    report = capacity_report("s", {"gpuPools": {"train": {"capacity": budgeted}}})
    assert report.endswith(
        "| train | karpenter | p5.48xlarge (1 type: H100-80GB) | 16 GPUs | on-demand | when-empty-or-underutilized "
        "after 10m; budgets: 10%; 0 for underutilized, drifted during 0 9 * * mon-fri for 8h |\n"
        "\n"
        "Startup taints (removed once an agent has readied the node; pods need not tolerate them):\n"
        "\n"
        "- train: example.com/agent-not-ready=true:NoSchedule.\n"
    )
