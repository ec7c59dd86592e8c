"""GKE adapter rules and translations (pure): accelerator types, sharing, MIG, taints, labels, replacement fields."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp.gke import (
    DEFAULT_DRIVER_VERSION,
    accelerator_type_for,
    gke_advertised_resources,
    gke_effective_taints,
    gke_node_labels,
    gke_node_selector,
    gke_pool_view,
    gke_problems,
    gke_taints,
    guest_accelerator,
    node_pool_inputs,
    service_account_id,
)
from gpu_components.plan.replacements import FORCE_NEW
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolSpec, Taint

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "g2-standard-8", "max_size": 3}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "gcp")


def driver(version: str = "DEFAULT") -> dict[str, str]:
    return {"gpu_driver_version": version}


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, problems
    return problems[0]


# ------------------------------------------------------------------------------------------ exact NodePool inputs


def test_exclusive_pool_inputs() -> None:
    pool = spec(name="l4", min_size=1, desired_size=2, max_size=5, labels={"team": "ml"})
    assert node_pool_inputs(pool) == {
        "name": "l4",
        "initial_node_count": 2,
        "autoscaling": {"total_min_node_count": 1, "total_max_node_count": 5},
        "node_config": {
            "machine_type": "g2-standard-8",
            "disk_size_gb": 100,
            "guest_accelerators": [
                {"type": "nvidia-l4", "count": 1, "gpu_driver_installation_config": driver()},
            ],
            "labels": {"gpu-components/pool": "l4", "team": "ml"},
            "taints": [TAINT],
            "spot": False,
            "oauth_scopes": SCOPES,
        },
    }


def test_time_sharing_spot_pool_inputs_scale_from_zero() -> None:
    pool = spec(name="shared", spot=True, max_size=4, time_slicing={"replicas": 4})
    assert node_pool_inputs(pool, "LATEST") == {
        "name": "shared",
        "initial_node_count": 0,
        "autoscaling": {"total_min_node_count": 0, "total_max_node_count": 4},
        "node_config": {
            "machine_type": "g2-standard-8",
            "disk_size_gb": 100,
            "guest_accelerators": [
                {
                    "type": "nvidia-l4",
                    "count": 1,
                    "gpu_driver_installation_config": driver("LATEST"),
                    "gpu_sharing_config": {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 4},
                }
            ],
            "labels": {"gpu-components/pool": "shared"},
            "taints": [TAINT],
            "spot": True,
            "oauth_scopes": SCOPES,
        },
    }


def test_mps_pool_accelerator() -> None:
    pool = spec(instance_type="g2-standard-24", mps={"replicas": 8})
    assert node_pool_inputs(pool)["node_config"]["guest_accelerators"] == [
        {
            "type": "nvidia-l4",
            "count": 2,
            "gpu_driver_installation_config": driver(),
            "gpu_sharing_config": {"gpu_sharing_strategy": "MPS", "max_shared_clients_per_gpu": 8},
        }
    ]


def test_mig_pool_accelerator() -> None:
    pool = spec(instance_type="a2-highgpu-2g", mig={"profile": "1g.5gb"})
    assert node_pool_inputs(pool)["node_config"]["guest_accelerators"] == [
        {
            "type": "nvidia-tesla-a100",
            "count": 2,
            "gpu_driver_installation_config": driver(),
            "gpu_partition_size": "1g.5gb",
        }
    ]


def test_mig_with_time_sharing_pool_accelerator() -> None:
    pool = spec(instance_type="a2-ultragpu-1g", mig={"profile": "3g.40gb"}, time_slicing={"replicas": 3})
    assert node_pool_inputs(pool)["node_config"]["guest_accelerators"] == [
        {
            "type": "nvidia-a100-80gb",
            "count": 1,
            "gpu_driver_installation_config": driver(),
            "gpu_partition_size": "3g.40gb",
            "gpu_sharing_config": {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 3},
        }
    ]


def test_no_device_plugin_labels_on_gke_pools() -> None:
    labels = node_pool_inputs(spec(time_slicing={"replicas": 2}))["node_config"]["labels"]
    assert labels == {"gpu-components/pool": "gpu"}


def test_default_driver_version_is_stated() -> None:
    assert DEFAULT_DRIVER_VERSION == "DEFAULT"
    assert node_pool_inputs(spec())["node_config"]["guest_accelerators"][0]["gpu_driver_installation_config"] == (
        driver()
    )


# ------------------------------------------------------------------------------------------ accelerators


def test_accelerator_type_comes_from_the_machine_type() -> None:
    assert accelerator_type_for(spec(instance_type="a3-megagpu-8g")) == "nvidia-h100-mega-80gb"
    assert accelerator_type_for(spec(instance_type="a3-highgpu-8g")) == "nvidia-h100-80gb"


def test_n1_with_attached_gpus_uses_the_models_accelerator_type() -> None:
    pool = spec(instance_type="n1-standard-8", gpu_model="T4", gpu_count=2)
    assert gke_problems(pool, None) == []
    assert node_pool_inputs(pool)["node_config"]["guest_accelerators"][0]["type"] == "nvidia-tesla-t4"


# ------------------------------------------------------------------------------------------ taints


def test_gke_taint_spelling() -> None:
    assert gke_taints([Taint("nvidia.com/gpu", "present", "NoSchedule"), Taint("a", "", "PreferNoSchedule")]) == [
        TAINT,
        {"key": "a", "value": "", "effect": "PREFER_NO_SCHEDULE"},
    ]


def test_default_taint_is_the_one_gke_sets() -> None:
    assert gke_taints([DEFAULT_GPU_TAINT]) == [TAINT]


def test_gke_taint_is_reported_even_when_gpu_taint_is_off() -> None:
    pool = spec(gpu_taint=False, taints=[{"key": "team", "value": "ml", "effect": "NoSchedule"}])
    assert node_pool_inputs(pool)["node_config"]["taints"] == [{"key": "team", "value": "ml", "effect": "NO_SCHEDULE"}]
    assert gke_effective_taints(pool) == (DEFAULT_GPU_TAINT, Taint("team", "ml", "NoSchedule"))
    assert gke_effective_taints(spec()) == (DEFAULT_GPU_TAINT,)


def test_an_arm_a4x_pool_carries_gkes_arm_taint_which_is_tolerated_but_not_sent() -> None:
    pool = spec(instance_type="a4x-highgpu-4g")
    arm = Taint("kubernetes.io/arch", "arm64", "NoSchedule")
    assert (pool.cpu_architecture, pool.gpu.name, pool.gpu_count) == ("arm64", "GB200", 4)
    assert gke_effective_taints(pool) == (DEFAULT_GPU_TAINT, arm)
    assert node_pool_inputs(pool)["node_config"]["taints"] == [TAINT]
    view = gke_pool_view(pool, gpu_stack="gpu-operator")
    assert view.taints == (DEFAULT_GPU_TAINT, arm)
    assert view.tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"},
    ]
    assert gke_effective_taints(spec(instance_type="g4-standard-48")) == (DEFAULT_GPU_TAINT,)


def test_an_a4x_max_pool_is_arm64_gb300_with_gkes_arm_taint() -> None:
    pool = spec(instance_type="a4x-maxgpu-4g-metal")
    assert (pool.cpu_architecture, pool.gpu.name, pool.gpu_count) == ("arm64", "GB300", 4)
    assert accelerator_type_for(pool) == "nvidia-gb300"
    assert gke_effective_taints(pool) == (DEFAULT_GPU_TAINT, Taint("kubernetes.io/arch", "arm64", "NoSchedule"))
    assert gke_problems(pool, None) == []


# ------------------------------------------------------------------------------------------ workload side


def test_advertised_resources_are_always_nvidia_gpu() -> None:
    assert gke_advertised_resources(spec(instance_type="g2-standard-24")) == {"nvidia.com/gpu": 2}
    assert gke_advertised_resources(spec(time_slicing={"replicas": 4, "rename_by_default": False})) == {
        "nvidia.com/gpu": 4
    }
    assert gke_advertised_resources(spec(instance_type="g2-standard-24", mps={"replicas": 8})) == {"nvidia.com/gpu": 16}
    assert gke_advertised_resources(spec(instance_type="a2-highgpu-2g", mig={"profile": "1g.5gb"})) == {
        "nvidia.com/gpu": 14
    }
    mig_shared = spec(instance_type="a2-highgpu-1g", mig={"profile": "3g.20gb"}, time_slicing={"replicas": 2})
    assert gke_advertised_resources(mig_shared) == {"nvidia.com/gpu": 4}


def test_node_selector_for_an_exclusive_pool() -> None:
    assert gke_node_selector(spec(name="l4")) == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "gpu-components/pool": "l4",
    }


def test_node_selector_for_shared_and_partitioned_pools() -> None:
    assert gke_node_selector(spec(mps={"replicas": 4})) == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-gpu-sharing-strategy": "mps",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "4",
        "gpu-components/pool": "gpu",
    }
    pool = spec(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}, time_slicing={"replicas": 2})
    assert gke_node_selector(pool) == {
        "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
        "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
        "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "2",
        "gpu-components/pool": "gpu",
    }


# ------------------------------------------------------------------------------------------ rejections


def test_valid_pools_have_no_gke_problems() -> None:
    assert gke_problems(spec(time_slicing={"replicas": 48}), "LATEST") == []
    assert gke_problems(spec(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}), None) == []


def test_unknown_driver_version_is_rejected() -> None:
    problem = only(gke_problems(spec(), "INSTALLATION_DISABLED", "pools[0]"))
    assert problem.path == "pools[0].gcp.driver_version"
    assert problem.value == "INSTALLATION_DISABLED"
    assert problem.message.startswith("not a GKE driver installation mode the library supports")
    assert problem.valid == "DEFAULT, LATEST"
    assert problem.source is not None and "GPUDriverInstallationConfig".lower() in problem.source.lower()


def test_driver_version_path_in_component_args() -> None:
    assert only(gke_problems(spec(), "latest", "pool", options_path="")).path == "driver_version"


def test_time_sharing_above_48_clients_is_rejected() -> None:
    problem = only(gke_problems(spec(time_slicing={"replicas": 49}), None, "pools[1]"))
    assert (problem.path, problem.value, problem.valid) == ("pools[1].time_slicing.replicas", 49, "2..48")
    assert problem.message == "GKE lets at most 48 containers share one GPU"


def test_renamed_time_sharing_is_rejected() -> None:
    problem = only(gke_problems(spec(time_slicing={"replicas": 2, "rename_by_default": True}), None))
    assert problem.path == "time_slicing.rename_by_default"
    assert "advertises time-shared GPUs as nvidia.com/gpu" in problem.message


def test_a_layout_of_one_profile_short_of_filling_each_gpu_is_rejected() -> None:
    pool = spec(instance_type="a2-ultragpu-1g", mig={"layout": {"1g.10gb": 6}})
    problem = only(gke_problems(pool, None, "pools[0]"))
    assert (problem.path, problem.value) == ("pools[0].mig.layout", {"1g.10gb": 6})
    assert problem.message == (
        "GKE partitions every GPU of a pool with one partition size (gpu_partition_size), each GPU filled with the "
        "most instances of it; the layout is 6 x 1g.10gb per GPU, and one A100-80GB holds 7"
    )
    assert problem.valid == (
        "mig.profile with one partition size, e.g. 1g.10gb, or a layout of one profile at its most instances per GPU"
    )


def test_a_layout_of_one_profile_filling_each_gpu_is_rendered_as_the_profile() -> None:
    layout = spec(instance_type="a2-ultragpu-1g", mig={"layout": {"1g.10gb": 7}})
    profile = spec(instance_type="a2-ultragpu-1g", mig={"profile": "1g.10gb"})
    assert gke_problems(layout, None, "pools[0]") == []
    assert guest_accelerator(layout) == guest_accelerator(profile)
    assert guest_accelerator(layout)["gpu_partition_size"] == "1g.10gb"
    assert gke_node_labels(layout) == gke_node_labels(profile)
    assert gke_node_labels(layout)["cloud.google.com/gke-gpu-partition-size"] == "1g.10gb"


def test_nvidias_balanced_layout_is_rejected_at_mig_config() -> None:
    pool = spec(instance_type="a4-highgpu-8g", mig={"config": "all-balanced", "strategy": "mixed"})
    assert [(p.path, p.value) for p in gke_problems(pool, None, "pools[0]")] == [
        ("pools[0].mig.config", "all-balanced"),
        ("pools[0].mig.strategy", "mixed"),
    ]
    problem = gke_problems(pool, None, "pools[0]")[0]
    assert problem.message == (
        "GKE partitions every GPU of a pool with one partition size (gpu_partition_size), each GPU filled with the "
        "most instances of it; NVIDIA's all-balanced on B200 is 2 x 1g.23gb, 1 x 2g.45gb, 1 x 3g.90gb, several "
        "profiles"
    )


def test_nvidias_balanced_layout_is_accepted_under_the_gpu_operator() -> None:
    pool = spec(instance_type="a4-highgpu-8g", mig={"config": "all-balanced", "strategy": "mixed"})
    assert gke_problems(pool, "INSTALLATION_DISABLED", "pools[0]", gpu_stack="gpu-operator") == []


def test_a_media_extension_profile_is_rejected_without_the_operator_and_passes_under_it() -> None:
    pool = spec(instance_type="a2-ultragpu-1g", mig={"profile": "1g.10gb+me"})
    problem = only(gke_problems(pool, None, "pools[0]"))
    assert (problem.path, problem.value) == ("pools[0].mig.profile", "1g.10gb+me")
    assert "GKE's partition sizes are [compute]g.[memory]gb, without an engine attribute" in problem.message
    assert problem.valid == "1g.10gb, or gpu_stack gpu-operator (its MIG manager makes any profile of the GPU)"
    assert gke_problems(pool, "INSTALLATION_DISABLED", "pools[0]", gpu_stack="gpu-operator") == []


def test_b200_partitions_are_gkes_and_its_accelerator_is_nvidia_b200() -> None:
    pool = spec(instance_type="a4-highgpu-8g", mig={"profile": "1g.23gb"})
    assert gke_problems(pool, None) == []
    assert accelerator_type_for(pool) == "nvidia-b200"


@pytest.mark.parametrize(
    ("instance_type", "profile", "gpu", "accelerator"),
    [
        ("a4x-highgpu-4g", "1g.23gb", "GB200", "nvidia-gb200"),
        ("a4x-maxgpu-4g-metal", "1g.35gb", "GB300", "nvidia-gb300"),
        ("g4-standard-48", "1g.24gb", "RTX-PRO-6000", "nvidia-rtx-pro-6000"),
    ],
)
def test_mig_on_a_gpu_gke_does_not_partition_is_refused_unless_the_operator_makes_it(
    instance_type: str, profile: str, gpu: str, accelerator: str
) -> None:
    pool = spec(instance_type=instance_type, mig={"profile": profile})
    assert accelerator_type_for(pool) == accelerator
    problem = only(gke_problems(pool, None, "pools[0]"))
    assert (problem.path, problem.value) == ("pools[0].mig", {"profile": profile})
    assert problem.message == (
        f"GKE makes MIG partitions only on A100-40GB, A100-80GB, H100-80GB, H200-141GB, B200; {instance_type} "
        f"carries {gpu}"
    )
    assert problem.valid.startswith("gpu_stack gpu-operator")
    assert gke_problems(pool, "INSTALLATION_DISABLED", "pools[0]", gpu_stack="gpu-operator") == []
    assert gke_problems(spec(instance_type=instance_type), None) == []


def test_mixed_mig_layout_is_rejected_twice() -> None:
    pool = spec(instance_type="a2-ultragpu-1g", mig={"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"})
    assert [p.path for p in gke_problems(pool, None)] == ["mig.layout", "mig.strategy"]


def test_mixed_mig_strategy_is_rejected() -> None:
    pool = spec(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb", "strategy": "mixed"})
    problem = only(gke_problems(pool, None))
    assert (problem.path, problem.value, problem.valid) == ("mig.strategy", "mixed", "single")
    assert "single strategy" in problem.message


def test_conflicting_gpu_taint_is_rejected() -> None:
    pool = spec(gpu_taint=False, taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}])
    problem = only(gke_problems(pool, None, "pools[0]"))
    # the taint as written, at its own index (not its kubectl text at the list)
    assert (problem.path, problem.value) == (
        "pools[0].taints[0]",
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
    )
    assert problem.message.startswith("GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule itself")
    no_execute = spec(taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}])
    found = only(gke_problems(no_execute, None))
    assert (found.path, found.value) == (
        "taints[0]",  # the default GPU taint is on, so the user's first taint is the spec's second
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"},
    )


def test_explicit_gke_taint_without_the_default_is_fine() -> None:
    pool = spec(gpu_taint=False, taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])
    assert gke_problems(pool, None) == []


@pytest.mark.parametrize(
    "label",
    [
        "cloud.google.com/gke-accelerator",
        "cloud.google.com/gke-gpu-sharing-strategy",
        "cloud.google.com/gke-max-shared-clients-per-gpu",
        "cloud.google.com/gke-gpu-partition-size",
    ],
)
def test_labels_gke_sets_are_rejected(label: str) -> None:
    problem = only(gke_problems(spec(labels={label: "x"}), None, "pools[0]"))
    assert problem.path == f"pools[0].labels[{label!r}]"
    assert problem.message == "set by GKE from the pool's accelerator settings"


def test_attached_gpus_only_on_n1() -> None:
    problem = only(gke_problems(spec(instance_type="e2-standard-8", gpu_model="T4", gpu_count=1), None))
    assert (problem.path, problem.value) == ("instance_type", "e2-standard-8")
    assert problem.message.startswith("GPUs attach only to N1 machine types")


def test_n1_attaches_only_t4_and_v100_in_n1_counts() -> None:
    l4 = only(gke_problems(spec(instance_type="n1-standard-8", gpu_model="L4", gpu_count=1), None))
    assert (l4.path, l4.message, l4.valid) == ("gpu_model", "cannot be attached to an N1 machine type", "T4, V100")
    count = only(gke_problems(spec(instance_type="n1-standard-8", gpu_model="T4", gpu_count=8), None))
    assert (count.path, count.value, count.valid) == ("gpu_count", 8, "1, 2, 4")
    assert gke_problems(spec(instance_type="n1-standard-16", gpu_model="V100", gpu_count=8), None) == []


@pytest.mark.parametrize(
    "pool",
    [
        {"instance_type": "n1-standard-8", "gpu_model": "T4", "gpu_count": 1},
        {"instance_type": "n1-standard-8", "gpu_model": "V100", "gpu_count": 1},
        {"instance_type": "g2-standard-8"},
        {"instance_type": "a2-highgpu-1g"},
        {"instance_type": "a3-highgpu-8g"},
        {"instance_type": "a4-highgpu-8g"},
    ],
)
def test_time_sharing_and_mps_are_allowed_on_every_gcp_gpu(pool: dict[str, Any]) -> None:
    assert gke_problems(spec(**pool, time_slicing={"replicas": 8}), None) == []
    assert gke_problems(spec(**pool, mps={"replicas": 8}), None) == []


def test_mps_with_mig_is_refused_by_the_spec_as_gke_requires() -> None:
    with pytest.raises(GpuSpecError) as error:
        spec(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}, mps={"replicas": 2})
    assert [p.path for p in error.value.problems] == ["mps"]
    assert error.value.problems[0].message.startswith("MPS cannot be combined with MIG")


def test_every_problem_is_reported_at_once() -> None:
    pool = spec(
        labels={"cloud.google.com/gke-accelerator": "x"},
        time_slicing={"replicas": 64, "rename_by_default": True},
    )
    assert [p.path for p in gke_problems(pool, "NEWEST")] == [
        "gcp.driver_version",
        "labels['cloud.google.com/gke-accelerator']",
        "time_slicing.replicas",
        "time_slicing.rename_by_default",
    ]


# ------------------------------------------------------------------------------------------ replacement and naming


def test_force_new_fields_cover_accelerators_and_capacity() -> None:
    force_new_fields = FORCE_NEW["gcp:container/nodePool:NodePool"].fields
    for field in (
        "nodeConfig.guestAccelerators[*].type",
        "nodeConfig.guestAccelerators[*].count",
        "nodeConfig.guestAccelerators[*].gpuPartitionSize",
        "nodeConfig.guestAccelerators[*].gpuSharingConfig",
        "nodeConfig.spot",
        "initialNodeCount",
    ):
        assert field in force_new_fields
    assert "nodeConfig.labels" not in force_new_fields
    assert "nodeConfig.taints" not in force_new_fields


def test_service_account_ids_are_valid_and_stable() -> None:
    assert service_account_id("gpu-demo-gpu-l4-node-sa") == "gpu-demo-gpu-l4-node-sa"
    long = service_account_id("gpu-demo-gpu-a-very-long-pool-name-node-sa")
    assert len(long) == 30 and long == service_account_id("gpu-demo-gpu-a-very-long-pool-name-node-sa")
    assert service_account_id("1x").startswith("g-")
