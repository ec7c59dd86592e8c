"""GPU Operator: the driver-ownership rule, node labels, operator-wide rules and exact chart values per cloud."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.catalog import Cloud
from gpu_components.errors import Combined, Default, GpuSpecError
from gpu_components.gcp.facts import gke_resource_quota_spec
from gpu_components.nvidia.device_plugin import config_hash, device_plugin_config_map
from gpu_components.nvidia.gpu_operator import (
    GPU_OPERATOR_CHART_VERSION,
    GPU_OPERATOR_REPOSITORY,
    driver_owner_problems,
    gpu_operator_problems,
    gpu_operator_values,
    operator_node_labels,
)
from gpu_components.nvidia.mig import mig_config_map
from gpu_components.spec import GpuNodePoolSpec, Taint
from tests.nvidia.test_driver_upgrade import OPERATOR_DRIVER

INSTANCE_TYPES: dict[str, dict[str, str]] = {
    "aws": {"plain": "g5.xlarge", "mig": "p4de.24xlarge", "mig40": "p4d.24xlarge"},
    "azure": {"plain": "Standard_NC4as_T4_v3", "mig": "Standard_NC24ads_A100_v4", "mig40": "Standard_ND96asr_v4"},
    "gcp": {"plain": "g2-standard-4", "mig": "a2-ultragpu-1g", "mig40": "a2-highgpu-1g"},
}


def spec(cloud: Cloud = "aws", kind: str = "plain", **fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": INSTANCE_TYPES[cloud][kind], "max_size": 2}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]


def values(cloud: Cloud, operator_driver: bool, *specs: GpuNodePoolSpec, **extra: Any) -> dict[str, Any]:
    pools = list(specs) or [spec(cloud)]
    return gpu_operator_values(pools, cloud, operator_driver, "dp-configs", "mig-configs", **extra)


def test_pinned_chart_version_and_repository() -> None:
    assert (GPU_OPERATOR_CHART_VERSION, GPU_OPERATOR_REPOSITORY) == ("v26.7.0", "https://helm.ngc.nvidia.com/nvidia")


# ---------------------------------------------------------------------------------------------------------------
# Driver ownership: exactly one owner
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cloud", "node_driver", "operator_driver"),
    [
        ("aws", None, False),
        ("aws", "AL2023_ARM_64_NVIDIA", False),
        ("aws", "BOTTLEROCKET_x86_64_NVIDIA", False),
        ("azure", None, False),
        ("azure", "aks", False),
        ("azure", "none", True),
        ("gcp", "INSTALLATION_DISABLED", True),
        ("gcp", "INSTALLATION_DISABLED", False),  # Google's driver installer DaemonSet installs it (COS)
    ],
)
def test_one_driver_owner_passes(cloud: Cloud, node_driver: str | None, operator_driver: bool) -> None:
    assert driver_owner_problems(cloud, node_driver, operator_driver, "pools[0]") == []


@pytest.mark.parametrize(
    ("cloud", "node_driver", "operator_driver", "path", "parts"),
    [
        (
            "aws",
            None,
            True,
            "pools[0].aws.ami_type",
            ["two parties", "EKS NVIDIA AMI", "ami_type AL2023_x86_64_NVIDIA", "operator_driver true"],
        ),
        (
            "aws",
            "BOTTLEROCKET_x86_64_NVIDIA",
            True,
            "pools[0].aws.ami_type",
            ["two parties", "ami_type BOTTLEROCKET_x86_64_NVIDIA", "operator_driver true"],
        ),
        (
            "azure",
            "aks",
            True,
            "pools[0].azure.gpu_driver",
            ["two parties", "AKS node image", "gpu_driver aks", "operator_driver true"],
        ),
        (
            "azure",
            "none",
            False,
            "pools[0].azure.gpu_driver",
            ["nobody", "gpu_driver none", "operator_driver false"],
        ),
        (
            "gcp",
            "DEFAULT",
            True,
            "pools[0].gcp.driver_version",
            ["GKE would install it and so would the GPU Operator", "driver_version DEFAULT", "operator_driver true"],
        ),
        (
            "gcp",
            "LATEST",
            False,
            "pools[0].gcp.driver_version",
            ["GKE would install it", "driver_version LATEST", "to be disabled"],
        ),
    ],
)
def test_two_owners_or_none_is_rejected_naming_both_settings(
    cloud: Cloud, node_driver: str | None, operator_driver: bool, path: str, parts: list[str]
) -> None:
    problems = driver_owner_problems(cloud, node_driver, operator_driver, "pools[0]")
    assert [p.path for p in problems] == [path]
    for part in parts:
        assert part in problems[0].message
    assert problems[0].source is not None and problems[0].valid is not None


def test_an_arm64_eks_pool_without_an_ami_type_is_told_of_the_arm64_ami() -> None:
    (problem,) = driver_owner_problems("aws", None, True, "pools[0]", cpu_architecture="arm64")
    assert problem.value == Default("AL2023_ARM_64_NVIDIA")
    assert "(ami_type AL2023_ARM_64_NVIDIA and gpu_operator.operator_driver true)" in problem.message


def test_an_unset_driver_option_is_shown_as_its_default_and_a_written_one_as_written() -> None:
    (unset,) = driver_owner_problems("azure", None, True, "pools[0]")
    assert str(unset) == (
        "pools[0].azure.gpu_driver: two parties would install the NVIDIA driver: the AKS node image and the GPU "
        "Operator (gpu_driver aks and gpu_operator.operator_driver true) (default: aks); valid: "
        "gpu_operator.operator_driver false, or gpu_driver none with gpu_operator.operator_driver true "
        "[source: https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/microsoft-aks.html]"
    )
    (written,) = driver_owner_problems("azure", "aks", True, "pools[0]")
    assert written.reason == unset.reason.replace("(default: aks)", "(got 'aks')")


def test_on_gke_only_gkes_installation_off_is_offered_with_either_driver_owner() -> None:
    (problem,) = driver_owner_problems("gcp", "DEFAULT", True)
    assert problem.valid == (
        "driver_version INSTALLATION_DISABLED with gpu_operator.operator_driver true (Ubuntu node image; false: "
        "Google's driver installer on Container-Optimized OS)"
    )
    for node_driver in ("LATEST", "DEFAULT"):
        (problem,) = driver_owner_problems("gcp", node_driver, False)
        assert problem.valid == (
            "driver_version INSTALLATION_DISABLED (with gpu_operator.operator_driver false, GKE's driver installer "
            "installs it on Container-Optimized OS nodes)"
        )


def test_driver_owner_paths_can_be_given() -> None:
    problems = driver_owner_problems("azure", "aks", True, node_driver_path="pool.gpu_driver", operator_driver_path="x")
    assert problems[0].path == "pool.gpu_driver"
    assert "x true" in problems[0].message
    assert problems[0].valid == "x false, or gpu_driver none with x true"


# ---------------------------------------------------------------------------------------------------------------
# Node labels
# ---------------------------------------------------------------------------------------------------------------


def test_node_labels_of_a_mig_pool() -> None:
    pool = spec("aws", "mig", name="mig", mig={"profile": "1g.10gb"})
    assert operator_node_labels(pool, "aws") == {
        "nvidia.com/device-plugin.config": "mig",
        "nvidia.com/mig.config": "all-1g.10gb",
    }


def test_a_uniform_me_profile_selects_and_renders_nvidias_config_name_a_label_can_hold() -> None:
    pool = spec("aws", "mig", name="media", mig={"profile": "1g.10gb+me"})
    assert operator_node_labels(pool, "aws") == {
        "nvidia.com/device-plugin.config": "media",
        "nvidia.com/mig.config": "all-1g.10gb.me",
    }
    assert yaml.safe_load(mig_config_map([pool])["config.yaml"]) == {
        "version": "v1",
        "mig-configs": {
            "all-disabled": [{"devices": "all", "mig-enabled": False}],
            "all-1g.10gb.me": [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb+me": 1}}],
        },
    }


def test_node_labels_of_a_pool_whose_image_runs_its_own_plugin_turn_operands_off() -> None:
    pool = spec("aws", "mig40", name="br", mig={"profile": "1g.5gb"})
    assert operator_node_labels(pool, "aws", host_device_plugin=True) == {
        "nvidia.com/device-plugin.config": "br",
        "nvidia.com/gpu.deploy.device-plugin": "false",
        "nvidia.com/gpu.deploy.mig-manager": "false",
    }


def test_node_labels_of_a_pool_whose_cloud_makes_mig_partitions_keep_only_the_mig_manager_off() -> None:
    pool = spec("azure", "mig", name="aks", mig={"profile": "1g.10gb"})
    assert operator_node_labels(pool, "azure", host_mig=True) == {
        "nvidia.com/device-plugin.config": "aks",
        "nvidia.com/gpu.deploy.mig-manager": "false",
    }


def test_node_labels_on_gke_turn_gkes_device_plugin_off() -> None:
    assert operator_node_labels(spec("gcp"), "gcp") == {
        "gke-no-default-nvidia-gpu-device-plugin": "true",
        "nvidia.com/device-plugin.config": "gpu",
    }


def test_node_labels_of_a_mig_capable_pool_without_mig_state_all_disabled() -> None:
    assert operator_node_labels(spec("azure", "mig"), "azure")["nvidia.com/mig.config"] == "all-disabled"


# ---------------------------------------------------------------------------------------------------------------
# Operator-wide rules
# ---------------------------------------------------------------------------------------------------------------


def test_mig_pools_with_different_strategies_are_rejected() -> None:
    single = spec("aws", "mig", name="one", mig={"profile": "1g.10gb"})
    plain = spec("aws", name="plain")
    mixed = spec("aws", "mig", name="two", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    problems = gpu_operator_problems([single, plain, mixed])
    assert [(p.path, p.value, p.valid) for p in problems] == [("pools[2].mig.strategy", "mixed", "single")]
    assert "one MIG strategy per cluster (mig.strategy), and pools[0] (one) uses single" in problems[0].message
    with pytest.raises(GpuSpecError, match="one MIG strategy per cluster"):
        values("aws", False, single, mixed)


MPS_UNDER_MIXED = (
    "MPS pool mps and pools[0] (mixed), whose MIG strategy is mixed, cannot share one GPU Operator: the operator sets "
    "its one mig.strategy (mixed) in every device plugin pod, over each pool's own config entry, and the device "
    'plugin refuses to start with MPS under it ("using --mig-strategy=mixed is not supported with MPS")'
)


def test_an_mps_pool_beside_a_mixed_mig_pool_is_rejected_naming_both_pools_and_the_strategy() -> None:
    mixed = spec("aws", "mig", name="mixed", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    mps = spec("aws", name="mps", mps={"replicas": 4})
    problems = gpu_operator_problems([mixed, spec("aws", name="plain"), mps], path="gpu_operator")
    assert [(p.path, p.value, p.message, p.valid) for p in problems] == [
        (
            "gpu_operator.pools[2].mps",
            Combined(("gpu_operator.pools[2].mps", "gpu_operator.pools[0].mig.strategy")),
            MPS_UNDER_MIXED.replace("pools[0]", "gpu_operator.pools[0]"),
            "time_slicing instead of mps on mps, or mig.strategy single on mixed (one profile per GPU: a mig.profile)",
        )
    ]
    # The pool's MPS settings with their defaults filled in ({'replicas': 4, 'trusted': False}) are not what the
    # user wrote: the reason names the two fields that combine.
    assert problems[0].reason.startswith(
        MPS_UNDER_MIXED.replace("pools[0]", "gpu_operator.pools[0]")
        + " (combines gpu_operator.pools[2].mps and gpu_operator.pools[0].mig.strategy); valid: time_slicing"
    )
    assert "k8s-device-plugin/blob/v0.20.0/cmd/nvidia-device-plugin/main.go" in str(problems[0].source)
    with pytest.raises(GpuSpecError, match="not supported with MPS"):
        values("aws", False, mixed, mps)


def test_mps_pools_beside_single_mig_pools_keep_the_single_strategy() -> None:
    single = spec("aws", "mig", name="single", mig={"profile": "1g.10gb"})
    mps = spec("aws", name="mps", mps={"replicas": 4})
    assert gpu_operator_problems([single, mps]) == []
    assert values("aws", False, single, mps)["mig"] == {"strategy": "single"}


def test_service_monitor_needs_the_exporter() -> None:
    problems = gpu_operator_problems([spec()], dcgm_exporter=False, service_monitor=True, path="gpu_operator")
    assert [(p.path, p.value) for p in problems] == [("gpu_operator.service_monitor", True)]
    assert "dcgm_exporter false" in problems[0].message


def test_one_mig_config_name_with_two_layouts_is_rejected() -> None:
    eighty = spec("aws", "mig", name="a", mig={"profile": "1g.10gb"})
    forty = spec("aws", "mig40", name="b", mig={"profile": "1g.10gb"})
    assert [(p.path, p.value) for p in gpu_operator_problems([eighty, forty])] == [("pools[1].mig.profile", "1g.10gb")]


STRATEGY_VALID = "[source: https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html]"


def test_a_default_mig_strategy_beside_a_mixed_pool_is_shown_as_the_default() -> None:
    mixed = spec("aws", "mig", name="mixed", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    uniform = spec("aws", "mig", name="uniform", mig={"profile": "1g.10gb"})  # strategy not set: single
    problems = gpu_operator_problems([mixed, uniform])
    assert [(p.path, p.value) for p in problems] == [("pools[1].mig.strategy", Default("single"))]
    assert str(problems[0]) == (
        "pools[1].mig.strategy: the GPU Operator has one MIG strategy per cluster (mig.strategy), and pools[0] "
        f"(mixed) uses mixed (default: single); valid: mixed {STRATEGY_VALID}"
    )


def test_a_written_mig_strategy_beside_a_default_one_says_the_first_is_its_default() -> None:
    uniform = spec("aws", "mig", name="uniform", mig={"profile": "1g.10gb"})  # strategy not set: single
    mixed = spec("aws", "mig", name="mixed", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    problems = gpu_operator_problems([uniform, mixed])
    assert [str(p) for p in problems] == [
        "pools[1].mig.strategy: the GPU Operator has one MIG strategy per cluster (mig.strategy), and pools[0] "
        f"(uniform) uses single (its default) (got 'mixed'); valid: single {STRATEGY_VALID}"
    ]


def test_two_written_mig_strategies_echo_the_second() -> None:
    mixed = spec("aws", "mig", name="mixed", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    single = spec("aws", "mig", name="single", mig={"profile": "1g.10gb", "strategy": "single"})
    problems = gpu_operator_problems([mixed, single])
    assert [str(p) for p in problems] == [
        "pools[1].mig.strategy: the GPU Operator has one MIG strategy per cluster (mig.strategy), and pools[0] "
        f"(mixed) uses mixed (got 'single'); valid: mixed {STRATEGY_VALID}"
    ]


# ---------------------------------------------------------------------------------------------------------------
# Exact values per cloud and driver choice
# ---------------------------------------------------------------------------------------------------------------

TOLERATIONS = [
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
]
CONTROL_PLANE = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}


def test_eks_values_with_the_amis_driver_are_exact() -> None:
    pool = spec("aws")
    assert values("aws", False, pool) == {
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "mig": {"strategy": "single"},
        "devicePlugin": {
            "config": {"name": "dp-configs", "default": "default"},
            "env": [
                {"name": "GPU_COMPONENTS_CONFIG_HASH", "value": config_hash(device_plugin_config_map([pool], "single"))}
            ],
        },
        "migManager": {
            "config": {"name": "mig-configs", "default": "all-disabled"},
            "env": [
                {"name": "WITH_REBOOT", "value": "true"},
                {"name": "GPU_COMPONENTS_CONFIG_HASH", "value": config_hash(mig_config_map([pool]))},
            ],
        },
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": False}},
        "daemonsets": {"tolerations": TOLERATIONS},
        "node-feature-discovery": {"worker": {"tolerations": [CONTROL_PLANE, *TOLERATIONS]}},
    }


def test_aks_values_with_the_aks_driver_use_the_images_toolkit_runtime_class() -> None:
    result = values("azure", False)
    assert (result["driver"], result["toolkit"], result["operator"]) == (
        {"enabled": False},
        {"enabled": False},
        {"runtimeClass": "nvidia-container-runtime"},
    )
    assert "cdi" not in result


def test_aks_values_with_the_operators_driver_have_no_special_settings() -> None:
    result = values("azure", True)
    assert (result["driver"], result["toolkit"]) == (OPERATOR_DRIVER, {"enabled": True})
    assert "operator" not in result and "cdi" not in result


def test_gke_values_with_the_operators_driver_follow_nvidias_gke_guide() -> None:
    result = values("gcp", True)
    assert (result["driver"], result["toolkit"], result["cdi"]) == (
        OPERATOR_DRIVER,
        {"enabled": True, "env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]},
        {"enabled": True},
    )
    assert "operator" not in result and "hostPaths" not in result


def test_gke_values_on_googles_driver_follow_nvidias_google_driver_installer_steps() -> None:
    """NVIDIA's GKE guide: hostPaths.driverInstallDir and toolkit.installDir /home/kubernetes/bin/nvidia,
    cdi.enabled true, driver.enabled false; cdi.default is deprecated and unused in the chart's v26.7.0 CRD."""
    result = values("gcp", False)
    assert (result["driver"], result["toolkit"], result["hostPaths"], result["cdi"]) == (
        {"enabled": False},
        {
            "enabled": True,
            "installDir": "/home/kubernetes/bin/nvidia",
            "env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}],
        },
        {"driverInstallDir": "/home/kubernetes/bin/nvidia"},
        {"enabled": True},
    )
    assert "operator" not in result


def test_eks_values_are_the_same_keys_as_gke_minus_gke_extras() -> None:
    assert set(values("gcp", True)) - set(values("aws", False)) == {"cdi"}


def test_mixed_mig_pools_set_the_mixed_strategy() -> None:
    pool = spec("aws", "mig", mig={"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"})
    assert values("aws", False, spec("aws", name="plain"), pool)["mig"] == {"strategy": "mixed"}


def test_dcgm_exporter_opt_out_and_service_monitor_opt_in() -> None:
    assert values("aws", False, dcgm_exporter=False)["dcgmExporter"] == {
        "enabled": False,
        "serviceMonitor": {"enabled": False},
    }
    assert values("aws", False, service_monitor=True)["dcgmExporter"] == {
        "enabled": True,
        "serviceMonitor": {"enabled": True},
    }


def test_tolerations_cover_every_pool_taint_and_cloud_taint_in_every_daemonset_and_nfd_worker() -> None:
    tainted = spec("azure", taints=[{"key": "dedicated", "value": "ml", "effect": "NoExecute"}])
    bare = spec("azure", name="bare", gpu_taint=False, taints=[{"key": "team", "effect": "NoSchedule"}])
    spot = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")
    result = values("azure", False, tainted, bare, node_taints=[spot])
    expected = [
        *TOLERATIONS,
        {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
        {"key": "team", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
    ]
    assert result["daemonsets"]["tolerations"] == expected
    assert result["node-feature-discovery"]["worker"]["tolerations"] == [CONTROL_PLANE, *expected]


def env(result: dict[str, Any], operand: str) -> dict[str, str]:
    return {item["name"]: item["value"] for item in result[operand]["env"]}


def test_a_changed_device_plugin_config_changes_only_the_device_plugins_pod_template() -> None:
    before = values("aws", False, spec(time_slicing={"replicas": 4}))
    after = values("aws", False, spec(time_slicing={"replicas": 8}))
    assert env(before, "devicePlugin") != env(after, "devicePlugin")
    assert env(before, "migManager") == env(after, "migManager")


def test_a_changed_mig_layout_changes_the_mig_managers_pod_template() -> None:
    layout = {"3g.40gb": 1, "1g.10gb": 2}
    before = values("aws", False, spec("aws", "mig", mig={"layout": layout, "strategy": "mixed"}))
    after = values("aws", False, spec("aws", "mig", mig={"layout": {**layout, "1g.10gb": 4}, "strategy": "mixed"}))
    assert (
        env(before, "migManager")["GPU_COMPONENTS_CONFIG_HASH"]
        != env(after, "migManager")["GPU_COMPONENTS_CONFIG_HASH"]
    )
    assert env(before, "devicePlugin") == env(after, "devicePlugin")


def test_helm_values_are_merged_last_key_by_key() -> None:
    result = values(
        "aws", False, overrides={"driver": {"enabled": True, "version": "580.95.05"}, "gfd": {"enabled": False}}
    )
    assert result["driver"] == {"enabled": True, "version": "580.95.05"}
    assert result["gfd"] == {"enabled": False}
    assert result["toolkit"] == {"enabled": False}


def test_values_survive_a_yaml_round_trip() -> None:
    result = values("gcp", True, spec("gcp", "mig", mig={"profile": "1g.10gb"}))
    assert yaml.safe_load(yaml.safe_dump(result)) == result


@pytest.mark.parametrize("version", EKS_KUBERNETES_VERSIONS)
def test_gke_resource_quota_validates_strictly(version: str) -> None:
    manifest = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota", "namespace": "gpu-operator"},
        "spec": gke_resource_quota_spec(),
    }
    kubernetes_validate.validate(manifest, version, strict=True)
    assert manifest["spec"]["scopeSelector"]["matchExpressions"][0]["values"] == [
        "system-node-critical",
        "system-cluster-critical",
    ]


def test_every_plugin_entry_says_the_operators_mig_strategy() -> None:
    """The operator sets its mig.strategy as MIG_STRATEGY in the plugin's container, which overrides each entry's
    flags.migStrategy (k8s-device-plugin api/config/v1/flags.go): every rendered entry says the strategy the plugin
    runs with (found by the real device plugin, tests/oracles/test_device_plugin.py)."""
    from gpu_components.nvidia.gpu_operator import mig_strategy

    mig = {"name": "mig", "instance_type": "p4d.24xlarge", "max_size": 1, "mig": {"profile": "1g.5gb"}}
    pools = [spec("aws"), GpuNodePoolSpec.from_args(mig, "aws")]
    data = device_plugin_config_map(pools, mig_strategy(pools))
    assert {name: yaml.safe_load(text)["flags"]["migStrategy"] for name, text in data.items()} == {
        "default": "single",
        "gpu": "single",
        "mig": "single",
    }
