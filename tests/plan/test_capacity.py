"""Tests for gpu_components.capacity (capacity records per pool) and gpu_components.plan.capacity (the stack's
capacity report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gpu_components.capacity import pool_capacity
from gpu_components.nvidia.device_plugin import advertised_resources
from gpu_components.plan import Plan
from gpu_components.plan.capacity import capacity_records, capacity_report
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import example_plan


@dataclass
class FakePool:
    spec: GpuNodePoolSpec
    device_plugin_host: Any
    advertised_resources: dict[str, int]
    dra_devices: dict[str, int] = field(default_factory=dict)  # a device-plugin pool publishes none


def pool(host: str = "daemonset", advertised: dict[str, int] | None = None, **args: Any) -> FakePool:
    spec = GpuNodePoolSpec.from_args({"name": "p", "max_size": 3, **args}, "aws")
    return FakePool(spec, host, advertised if advertised is not None else advertised_resources(spec))


@pytest.fixture
def eks_plan() -> Plan:
    return example_plan("aws-eks")


@pytest.mark.stack
def test_aws_eks_capacity_report_is_exact(eks_plan: Plan) -> None:
    assert capacity_report("aws-eks", eks_plan.outputs) == (
        "## GPU capacity: aws-eks\n"
        "\n"
        "| pool | cloud | instance | GPU | GPUs/node | nodes | each node advertises | GPU memory per unit "
        "| isolation |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| a100-mig | aws | p4d.24xlarge | A100-40GB (40 GB) | 8 | 0..2 | 56 x `nvidia.com/gpu` | 5 GB (MIG 1g.5gb) "
        "| MIG-isolated |\n"
        "| a10g-shared | aws | g5.2xlarge | A10G (24 GB) | 1 | 0..6 spot | 4 x `nvidia.com/gpu` "
        "| 24 GB (GPU) shared by 4 time-sliced replicas | shared, no memory isolation |\n"
        "\n"
        "At maximum size: 8 GPU nodes, 22 GPUs (16 x A100-40GB, 6 x A10G).\n"
    )


def test_exclusive_pool_record() -> None:
    record = pool_capacity(pool(instance_type="g5.12xlarge", min_size=1))
    assert record == {
        "cloud": "aws",
        "instanceType": "g5.12xlarge",
        "gpuModel": "A10G",
        "gpuMemoryGb": 24,
        "gpusPerNode": 4,
        "minNodes": 1,
        "maxNodes": 3,
        "spot": False,
        "devicePlugin": "daemonset",
        "sharing": "none",
        "mig": {},
        "isolation": "exclusive",
        "advertises": [
            {
                "name": "nvidia.com/gpu",
                "perNode": 4,
                "device": "GPU",
                "memoryGb": 24.0,
                "sharedBy": 1,
                "memoryLimitGb": 24.0,
            }
        ],
    }


def test_mixed_mig_layout_gives_one_unit_per_profile() -> None:
    spec_args = {"instance_type": "p4d.24xlarge", "mig": {"layout": {"3g.20gb": 1, "1g.5gb": 4}, "strategy": "mixed"}}
    units = pool_capacity(pool(**spec_args))["advertises"]
    assert [(u["name"], u["perNode"], u["device"], u["memoryGb"]) for u in units] == [
        ("nvidia.com/mig-1g.5gb", 32, "MIG 1g.5gb", 5.0),
        ("nvidia.com/mig-3g.20gb", 8, "MIG 3g.20gb", 20.0),
    ]


def test_b200_node_of_1g_23gb_advertises_8_gpus_x_7_slices_under_the_single_strategy() -> None:
    record = pool_capacity(pool(instance_type="p6-b200.48xlarge", mig={"profile": "1g.23gb"}))
    assert (record["gpuModel"], record["gpuMemoryGb"], record["gpusPerNode"], record["mig"]) == (
        "B200",
        180,
        8,
        {"1g.23gb": 7},
    )
    assert record["advertises"] == [
        {
            "name": "nvidia.com/gpu",
            "perNode": 56,
            "device": "MIG 1g.23gb",
            "memoryGb": 23.0,
            "sharedBy": 1,
            "memoryLimitGb": 23.0,
        }
    ]
    report = capacity_report("s", {"gpuPools": {"b200": {"capacity": record}}})
    assert (
        "| b200 | aws | p6-b200.48xlarge | B200 (180 GB) | 8 | 0..3 | 56 x `nvidia.com/gpu` | 23 GB (MIG 1g.23gb) "
        "| MIG-isolated |"
    ) in report


def test_gb200_host_mixed_layout_and_rtx_pro_6000_attributed_profiles() -> None:
    gb200 = pool_capacity(
        pool(
            instance_type="p6e-gb200.36xlarge",
            mig={"layout": {"3g.93gb": 1, "2g.47gb": 1, "1g.23gb": 2}, "strategy": "mixed"},
        )
    )
    assert [(u["name"], u["perNode"], u["memoryGb"]) for u in gb200["advertises"]] == [
        ("nvidia.com/mig-1g.23gb", 8, 23.0),
        ("nvidia.com/mig-2g.47gb", 4, 47.0),
        ("nvidia.com/mig-3g.93gb", 4, 93.0),
    ]
    rtx = GpuNodePoolSpec.from_args(
        {
            "name": "rtx",
            "instance_type": "g4-standard-192",
            "max_size": 1,
            "mig": {"layout": {"1g.24gb+gfx": 2, "2g.48gb-me": 1}, "strategy": "mixed"},
        },
        "gcp",
    )
    units = pool_capacity(FakePool(rtx, "gpu-operator", advertised_resources(rtx)))["advertises"]
    assert [(u["name"], u["perNode"], u["device"], u["memoryGb"]) for u in units] == [
        ("nvidia.com/mig-1g.24gb.gfx", 8, "MIG 1g.24gb+gfx", 24.0),
        ("nvidia.com/mig-2g.48gb-me", 4, "MIG 2g.48gb-me", 48.0),
    ]


@pytest.mark.parametrize("host", ["daemonset", "gpu-operator", "node-image"])
def test_mps_under_the_nvidia_device_plugin_has_a_memory_limit_per_client(host: str) -> None:
    unit = pool_capacity(pool(host, instance_type="g5.2xlarge", mps={"replicas": 4}))["advertises"][0]
    assert (unit["perNode"], unit["sharedBy"], unit.get("memoryLimitGb")) == (4, 4, 6.0)


def test_mps_served_by_the_cloud_has_no_memory_limit() -> None:
    unit = pool_capacity(pool("cloud", instance_type="g5.2xlarge", mps={"replicas": 4}))["advertises"][0]
    assert "memoryLimitGb" not in unit


def test_time_slicing_has_no_memory_limit_and_renamed_resources() -> None:
    record = pool_capacity(pool(instance_type="g5.2xlarge", time_slicing={"replicas": 2, "rename_by_default": True}))
    assert (record["isolation"], record["sharing"]) == ("shared", "time-slicing")
    assert record["advertises"] == [
        {"name": "nvidia.com/gpu.shared", "perNode": 2, "device": "GPU", "memoryGb": 24.0, "sharedBy": 2}
    ]


def test_report_of_mps_pool_states_the_limit() -> None:
    record = pool_capacity(pool(instance_type="g5.2xlarge", mps={"replicas": 4}))
    report = capacity_report("s", {"gpuPools": {"p": {"capacity": record}}})
    assert "| 6 GB limit (24 GB GPU / 4 MPS clients) | shared, no memory isolation |" in report


def test_records_without_capacity_are_skipped_and_reported() -> None:
    outputs = {"gpuPools": {"old": {"instanceType": "g5.xlarge"}}}
    assert capacity_records(outputs) == {}
    assert capacity_report("s", outputs) == (
        "## GPU capacity: s\n\nNo GPU pools with a capacity record: the program creates no node-pool component "
        "(EksGpuNodeGroup, AksGpuNodePool or GkeGpuNodePool) and exports no stack output `gpuPools`.\n"
    )


def test_gb300_host_of_1g_35gb_and_g7e_of_1g_24gb_under_the_single_strategy() -> None:
    gb300 = pool_capacity(pool(instance_type="p6e-gb300.36xlarge", mig={"profile": "1g.35gb"}))
    assert (gb300["gpuModel"], gb300["gpuMemoryGb"], gb300["gpusPerNode"], gb300["mig"]) == (
        "GB300",
        278,
        4,
        {"1g.35gb": 7},
    )
    assert [(u["name"], u["perNode"], u["device"], u["memoryGb"]) for u in gb300["advertises"]] == [
        ("nvidia.com/gpu", 28, "MIG 1g.35gb", 35.0)
    ]
    g7e = pool_capacity(pool(instance_type="g7e.24xlarge", mig={"profile": "1g.24gb"}))
    assert (g7e["gpuModel"], g7e["gpuMemoryGb"], g7e["gpusPerNode"], g7e["mig"]) == (
        "RTX-PRO-6000",
        96,
        4,
        {"1g.24gb": 4},
    )
    assert [(u["name"], u["perNode"], u["device"], u["memoryGb"]) for u in g7e["advertises"]] == [
        ("nvidia.com/gpu", 16, "MIG 1g.24gb", 24.0)
    ]
