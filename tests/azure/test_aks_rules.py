"""AKS adapter rules and translations (pure): agent pool inputs, MIG instance profiles, spot, driver."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components import catalog
from gpu_components.azure.adapter import ADAPTER
from gpu_components.azure.aks import (
    AKS_GPU_NODE_LABEL,
    AKS_MIG_GPUS,
    SOURCE_GPU_DRIVER,
    SOURCE_MIG_ON_AKS,
    SPOT_TAINT,
    agent_pool_inputs,
    aks_mig_profiles,
    aks_problems,
    aks_taints,
    gpu_instance_profile,
    pool_taints,
)
from gpu_components.spec import GpuNodePoolSpec, Taint

GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "Standard_NC4as_T4_v3", "max_size": 3}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "azure")


def a100(profile: str, **fields: Any) -> GpuNodePoolSpec:
    return spec(name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"profile": profile}, **fields)


def test_exclusive_pool_inputs_are_exact() -> None:
    assert agent_pool_inputs(spec(min_size=1, desired_size=2)) == {
        "agent_pool_name": "gpu",
        "mode": "User",
        "os_type": "Linux",
        "type": "VirtualMachineScaleSets",
        "vm_size": "Standard_NC4as_T4_v3",
        "enable_auto_scaling": True,
        "min_count": 1,
        "max_count": 3,
        "count": 2,
        "os_disk_size_gb": 100,
        "node_labels": {
            "gpu-components/pool": "gpu",
            "nvidia.com/device-plugin.config": "gpu",
            "nvidia.com/gpu.present": "true",
        },
        "node_taints": [GPU_TAINT],
        "gpu_profile": {"driver": "Install"},
    }


def test_time_slicing_is_device_plugin_config_only() -> None:
    sliced = agent_pool_inputs(spec(time_slicing={"replicas": 4}))
    assert sliced == agent_pool_inputs(spec())
    assert "gpu_instance_profile" not in sliced


def test_mps_adds_only_the_label_the_charts_mps_control_daemon_selects() -> None:
    inputs = agent_pool_inputs(spec(mps={"replicas": 8}))
    exclusive = agent_pool_inputs(spec())
    assert inputs == {**exclusive, "node_labels": {**exclusive["node_labels"], "nvidia.com/mps.capable": "true"}}


def test_spot_pool_declares_what_aks_adds() -> None:
    inputs = agent_pool_inputs(spec(name="t4spot", spot=True, min_size=0, max_size=4, labels={"team": "ml"}))
    assert inputs["scale_set_priority"] == "Spot"
    assert inputs["scale_set_eviction_policy"] == "Delete"
    assert inputs["spot_max_price"] == -1
    assert inputs["node_taints"] == [GPU_TAINT, "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]
    assert inputs["node_labels"] == {
        "gpu-components/pool": "t4spot",
        "kubernetes.azure.com/scalesetpriority": "spot",
        "nvidia.com/device-plugin.config": "t4spot",
        "nvidia.com/gpu.present": "true",
        "team": "ml",
    }
    assert (inputs["min_count"], inputs["max_count"], inputs["count"]) == (0, 4, 0)


def test_spot_taint_is_exposed_once_even_when_the_user_declares_it() -> None:
    declared = spec(spot=True, taints=[{"key": SPOT_TAINT.key, "value": "spot", "effect": "NoSchedule"}])
    assert pool_taints(declared).count(SPOT_TAINT) == 1
    assert pool_taints(spec(spot=True))[-1] == SPOT_TAINT
    assert SPOT_TAINT not in pool_taints(spec())


def test_regular_pool_sets_no_spot_settings() -> None:
    inputs = agent_pool_inputs(spec())
    assert not {"scale_set_priority", "scale_set_eviction_policy", "spot_max_price"} & set(inputs)


def test_autoscaling_counts_follow_the_spec() -> None:
    inputs = agent_pool_inputs(spec(min_size=2, max_size=10, desired_size=5))
    assert inputs["enable_auto_scaling"] is True
    assert (inputs["min_count"], inputs["max_count"], inputs["count"]) == (2, 10, 5)


def test_taint_string_form() -> None:
    assert aks_taints([Taint("nvidia.com/gpu", "present", "NoSchedule"), Taint("a", "", "PreferNoSchedule")]) == [
        "nvidia.com/gpu=present:NoSchedule",
        "a:PreferNoSchedule",
    ]


@pytest.mark.parametrize(
    ("profile", "expected"),
    [("1g.10gb", "MIG1g"), ("2g.20gb", "MIG2g"), ("3g.40gb", "MIG3g"), ("4g.40gb", "MIG4g"), ("7g.80gb", "MIG7g")],
)
def test_each_mig_profile_maps_to_its_gpu_instance_profile(profile: str, expected: str) -> None:
    pool = a100(profile)
    assert gpu_instance_profile(pool) == expected
    assert agent_pool_inputs(pool)["gpu_instance_profile"] == expected
    assert aks_problems(pool, None) == []


def test_mig_pool_inputs_are_exact() -> None:
    assert agent_pool_inputs(a100("1g.10gb", max_size=2)) == {
        "agent_pool_name": "mig",
        "mode": "User",
        "os_type": "Linux",
        "type": "VirtualMachineScaleSets",
        "vm_size": "Standard_NC24ads_A100_v4",
        "enable_auto_scaling": True,
        "min_count": 0,
        "max_count": 2,
        "count": 0,
        "os_disk_size_gb": 100,
        "node_labels": {
            "gpu-components/pool": "mig",
            "nvidia.com/device-plugin.config": "mig",
            "nvidia.com/gpu.present": "true",
        },
        "node_taints": [GPU_TAINT],
        "gpu_profile": {"driver": "Install"},
        "gpu_instance_profile": "MIG1g",
    }


def test_mixed_strategy_with_a_uniform_profile_is_accepted() -> None:
    pool = spec(instance_type="Standard_NC24ads_A100_v4", mig={"profile": "3g.40gb", "strategy": "mixed"})
    assert aks_problems(pool, None) == []
    assert gpu_instance_profile(pool) == "MIG3g"


def test_aks_mig_profiles_follow_the_aks_table_on_a100_40gb() -> None:
    made = aks_mig_profiles(catalog.gpu_model("A100-40GB"))
    assert {name: profile.name for name, profile in made.items()} == {
        "MIG1g": "1g.5gb",
        "MIG2g": "2g.10gb",
        "MIG3g": "3g.20gb",
        "MIG4g": "4g.20gb",
        "MIG7g": "7g.40gb",
    }


def test_a_gb200_vm_is_arm64_and_takes_no_gpu_instance_profile() -> None:
    pool = spec(name="gb200", instance_type="Standard_ND128isr_NDR_GB200_v6")
    assert (pool.cpu_architecture, pool.gpu.name, pool.gpu_count) == ("arm64", "GB200", 4)
    assert aks_problems(pool, None) == []
    assert "gpu_instance_profile" not in agent_pool_inputs(pool)
    [problem] = aks_problems(spec(instance_type="Standard_ND128isr_NDR_GB200_v6", mig={"profile": "1g.23gb+me"}), None)
    assert (problem.path, problem.value) == ("mig", {"profile": "1g.23gb+me"})


def test_mig_layout_is_rejected() -> None:
    pool = spec(
        instance_type="Standard_NC24ads_A100_v4",
        mig={"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"},
    )
    [problem] = aks_problems(pool, None, "pools[0]")
    assert problem.path == "pools[0].mig.layout"
    assert problem.value == {"3g.40gb": 1, "2g.20gb": 1}
    assert problem.message == (
        "AKS partitions every GPU of a pool with one gpuInstanceProfile (MIG1g..MIG7g), each GPU filled with the most "
        "instances of one profile; the layout is 1 x 3g.40gb, 1 x 2g.20gb, several profiles"
    )
    assert problem.valid == "a uniform mig.profile, or a layout of one profile at its most instances per GPU"
    assert problem.source == SOURCE_MIG_ON_AKS


def test_a_layout_of_one_profile_filling_each_gpu_is_the_profiles_gpu_instance_profile() -> None:
    layout = spec(instance_type="Standard_NC24ads_A100_v4", mig={"layout": {"1g.10gb": 7}})
    profile = spec(instance_type="Standard_NC24ads_A100_v4", mig={"profile": "1g.10gb"})
    assert aks_problems(layout, None, "pools[0]") == []
    assert gpu_instance_profile(layout) == gpu_instance_profile(profile) == "MIG1g"


def test_a_layout_of_one_profile_short_of_filling_each_gpu_is_rejected() -> None:
    pool = spec(instance_type="Standard_NC24ads_A100_v4", mig={"layout": {"1g.10gb": 6}})
    [problem] = aks_problems(pool, None, "pools[0]")
    assert (problem.path, problem.value) == ("pools[0].mig.layout", {"1g.10gb": 6})
    assert problem.message == (
        "AKS partitions every GPU of a pool with one gpuInstanceProfile (MIG1g..MIG7g), each GPU filled with the most "
        "instances of one profile; the layout is 6 x 1g.10gb per GPU, and one A100-80GB holds 7"
    )


def test_nvidias_balanced_layout_is_rejected_at_mig_config() -> None:
    pool = spec(instance_type="Standard_NC24ads_A100_v4", mig={"config": "all-balanced", "strategy": "mixed"})
    [problem] = aks_problems(pool, None, "pools[0]")
    assert (problem.path, problem.value) == ("pools[0].mig.config", "all-balanced")
    assert problem.message == (
        "AKS partitions every GPU of a pool with one gpuInstanceProfile (MIG1g..MIG7g), each GPU filled with the most "
        "instances of one profile; NVIDIA's all-balanced on A100-80GB is 2 x 1g.10gb, 1 x 2g.20gb, 1 x 3g.40gb, "
        "several profiles"
    )


def test_a_layout_of_a_profile_aks_cannot_make_is_rejected_at_mig_layout() -> None:
    pool = spec(instance_type="Standard_NC24ads_A100_v4", mig={"layout": {"1g.20gb": 4}})
    [problem] = aks_problems(pool, None, "pools[0]")
    assert (problem.path, problem.value) == ("pools[0].mig.layout", {"1g.20gb": 4})
    assert problem.message == "AKS's gpuInstanceProfile makes only one profile per compute size on A100-80GB"


@pytest.mark.parametrize("profile", ["1g.20gb", "1g.10gb+me"])
def test_mig_profile_aks_cannot_make_is_rejected(profile: str) -> None:
    [problem] = aks_problems(a100(profile), None, "pools[1]")
    assert problem.path == "pools[1].mig.profile"
    assert problem.value == profile
    assert problem.message == "AKS's gpuInstanceProfile makes only one profile per compute size on A100-80GB"
    assert problem.valid == ("1g.10gb (MIG1g), 2g.20gb (MIG2g), 3g.40gb (MIG3g), 4g.40gb (MIG4g), 7g.80gb (MIG7g)")
    assert problem.source == SOURCE_MIG_ON_AKS


def test_gpu_driver_none_is_rejected_with_the_device_plugin() -> None:
    [problem] = aks_problems(spec(), "none", "pools[0]", "pools[0].azure.gpu_driver")
    assert problem.path == "pools[0].azure.gpu_driver"
    assert problem.value == "none"
    assert "gpu_driver none" in problem.message
    assert "device plugin" in problem.message
    assert "gpu_stack" in problem.message
    assert problem.valid == "gpu_driver aks with the device plugin, or gpu_stack gpu-operator with operator_driver true"
    assert problem.source == SOURCE_GPU_DRIVER


def test_gpu_driver_aks_is_the_default() -> None:
    assert aks_problems(spec(), None) == aks_problems(spec(), "aks") == []
    assert agent_pool_inputs(spec(), "aks")["gpu_profile"] == {"driver": "Install"}
    assert agent_pool_inputs(spec(), "none")["gpu_profile"] == {"driver": "None"}


def test_adapter_reports_problems_under_the_pool_options() -> None:
    problems = ADAPTER.problems(a100("1g.20gb"), {"gpu_driver": "none"}, "pools[2]", "auto")
    assert [p.path for p in problems] == ["pools[2].mig.profile", "pools[2].azure.gpu_driver"]
    assert ADAPTER.device_plugin_host(spec(), {}, "auto") == "daemonset"


def test_aks_gpu_node_label_is_exposed() -> None:
    assert AKS_GPU_NODE_LABEL == "kubernetes.azure.com/accelerator"


def test_aks_mig_gpus_are_the_catalogs_a100_h100_and_h200_models() -> None:
    mig_models = {m.name for m in catalog.gpu_models() if m.mig_capable}
    assert set(AKS_MIG_GPUS) == {n for n in mig_models if n.split("-")[0] in ("A100", "H100", "H200")}


@pytest.mark.parametrize(
    ("instance_type", "profile", "gpu"),
    [
        # the new-user trial: Standard_ND128isr_NDR_GB200_v6 with mig.profile 1g.23gb rendered gpuInstanceProfile MIG1g
        ("Standard_ND128isr_NDR_GB200_v6", "1g.23gb", "GB200"),
        ("Standard_ND128isr_GB300_v6", "1g.35gb", "GB300"),
    ],
)
def test_mig_on_a_grace_blackwell_vm_size_is_rejected_by_aks(instance_type: str, profile: str, gpu: str) -> None:
    pool = spec(name="mig", instance_type=instance_type, mig={"profile": profile})
    [problem] = aks_problems(pool, None, "pools[0]")
    assert (problem.path, problem.value, problem.message, problem.valid, problem.source) == (
        "pools[0].mig",
        {"profile": profile},  # the mig field as written
        f"AKS makes MIG partitions (gpuInstanceProfile) only on A100, H100 and H200 VM sizes; {instance_type} carries "
        f"{gpu}",
        "a VM size with one of A100-40GB, A100-80GB, H100-80GB, H100-94GB, H200-141GB, or no mig",
        SOURCE_MIG_ON_AKS,
    )


def test_mig_is_rejected_on_every_azure_size_of_a_mig_gpu_aks_does_not_partition() -> None:
    sizes = {
        t.name: t.gpu_model
        for t in catalog.instance_types("azure")
        if t.gpu_model is not None and catalog.gpu_model(t.gpu_model).mig_capable and t.gpu_model not in AKS_MIG_GPUS
    }
    assert sizes == {"Standard_ND128isr_GB300_v6": "GB300", "Standard_ND128isr_NDR_GB200_v6": "GB200"}
    for name, gpu in sizes.items():
        profile = next(iter(catalog.gpu_model(gpu).mig_profiles))
        [problem] = aks_problems(spec(instance_type=name, mig={"profile": profile}), None)
        assert (problem.path, problem.value) == ("mig", {"profile": profile})


def test_a_gb300_vm_is_arm64_with_four_whole_gpus() -> None:
    pool = spec(name="gb300", instance_type="Standard_ND128isr_GB300_v6")
    assert (pool.cpu_architecture, pool.gpu.name, pool.gpu_count) == ("arm64", "GB300", 4)
    assert aks_problems(pool, None) == []
    assert "gpu_instance_profile" not in agent_pool_inputs(pool)


@pytest.mark.parametrize(
    ("instance_type", "profile", "expected"),
    [
        ("Standard_ND96asr_v4", "1g.5gb", "MIG1g"),
        ("Standard_NC40ads_H100_v5", "1g.12gb", "MIG1g"),
        ("Standard_ND96isr_H100_v5", "7g.80gb", "MIG7g"),
        ("Standard_ND96isr_H200_v5", "3g.71gb", "MIG3g"),
    ],
)
def test_mig_on_the_a100_h100_and_h200_sizes_aks_documents_renders(
    instance_type: str, profile: str, expected: str
) -> None:
    pool = spec(name="mig", instance_type=instance_type, mig={"profile": profile})
    assert aks_problems(pool, None) == []
    assert agent_pool_inputs(pool)["gpu_instance_profile"] == expected
