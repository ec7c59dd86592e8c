"""Device plugin config, advertised resources and chart values: exact renders, checked against the plugin's rules."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_components.nvidia.device_plugin import (
    advertised_resources,
    daemonset_tolerations,
    device_plugin_config,
    device_plugin_config_map,
    device_plugin_node_labels,
    device_plugin_values,
)
from gpu_components.spec import GpuNodePoolSpec

FLAG_KEYS = {"migStrategy", "failOnInitError", "mpsRoot"}
SHARING_KEYS = {"renameByDefault", "failRequestsGreaterThanOne", "resources"}


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "aws")  # type: ignore[arg-type]


def check_plugin_rules(config: dict[str, Any]) -> None:
    """The device plugin's own parser rules (api/config/v1, v0.20.0): version, field names, replicas."""
    assert config["version"] == "v1"
    assert set(config) <= {"version", "flags", "sharing"}
    assert set(config["flags"]) <= FLAG_KEYS
    assert config["flags"]["migStrategy"] in ("none", "single", "mixed")
    sharing = config.get("sharing")
    if sharing is not None:
        assert len(sharing) == 1 and next(iter(sharing)) in ("timeSlicing", "mps")
        block = next(iter(sharing.values()))
        assert set(block) == SHARING_KEYS
        assert block["resources"], "resources must not be empty"
        for resource in block["resources"]:
            assert set(resource) == {"name", "replicas"}
            assert resource["replicas"] >= 2
        if "mps" in sharing:
            assert config["flags"]["migStrategy"] != "mixed"
            assert [r["name"] for r in block["resources"]] == ["nvidia.com/gpu"]
            assert config["flags"]["mpsRoot"] == "/run/nvidia/mps"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, {"nvidia.com/device-plugin.config": "gpu", "nvidia.com/gpu.present": "true"}),
        (
            {"time_slicing": {"replicas": 4}},
            {"nvidia.com/device-plugin.config": "gpu", "nvidia.com/gpu.present": "true"},
        ),
        (
            {"mps": {"replicas": 4}},
            {
                "nvidia.com/device-plugin.config": "gpu",
                "nvidia.com/gpu.present": "true",
                # the chart v0.20.0 schedules its MPS control daemon only on nodes with this label (nodeSelector of
                # templates/daemonset-mps-control-daemon.yml), which only GPU feature discovery sets otherwise
                "nvidia.com/mps.capable": "true",
            },
        ),
    ],
)
def test_node_labels_select_the_config_and_on_mps_pools_the_mps_control_daemon(
    fields: dict[str, Any], expected: dict[str, str]
) -> None:
    assert device_plugin_node_labels(spec(**fields)) == expected


def test_the_chart_values_leave_feature_discovery_off_so_the_mps_label_must_come_from_the_pool() -> None:
    values = device_plugin_values([spec(mps={"replicas": 4})], "configs")
    assert "gfd" not in values and "nfd" not in values


def test_under_the_chart_each_entry_keeps_its_own_mig_strategy_so_mps_works_beside_mixed_mig() -> None:
    # The chart (v0.20.0) sets MIG_STRATEGY, which would override every entry, only when its value migStrategy is
    # given (its default is null); the library never gives it, so the MPS entry's "none" is what the plugin reads.
    mixed = GpuNodePoolSpec.from_args(
        {
            "name": "mixed",
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
        },
        "aws",
    )
    mps = spec(name="mps", mps={"replicas": 4})
    values = device_plugin_values([mixed, mps], "configs")
    assert "migStrategy" not in values
    entries = {name: yaml.safe_load(text) for name, text in device_plugin_config_map([mixed, mps]).items()}
    assert {name: entry["flags"]["migStrategy"] for name, entry in entries.items()} == {
        "default": "none",
        "mixed": "mixed",
        "mps": "none",
    }


def test_a_mixed_layout_with_an_me_profile_names_its_resource_as_the_plugin_does() -> None:
    # k8s-device-plugin v0.20.0 internal/rm/rm.go: the resource of a MIG profile is mig-<profile> with '+' as '.'
    pool = GpuNodePoolSpec.from_args(
        {
            "name": "media",
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"layout": {"1g.10gb+me": 1, "1g.10gb": 5}, "strategy": "mixed"},
            "time_slicing": {"replicas": 2},
        },
        "aws",
    )
    assert advertised_resources(pool) == {"nvidia.com/mig-1g.10gb": 80, "nvidia.com/mig-1g.10gb.me": 16}
    assert device_plugin_config(pool)["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/mig-1g.10gb", "replicas": 2},
        {"name": "nvidia.com/mig-1g.10gb.me", "replicas": 2},
    ]


def test_exclusive_pool_config() -> None:
    config = device_plugin_config(spec())
    assert config == {"version": "v1", "flags": {"migStrategy": "none", "failOnInitError": True}}
    check_plugin_rules(dict(config))


def test_time_slicing_config_yaml_is_exact() -> None:
    data = device_plugin_config_map([spec(name="shared", time_slicing={"replicas": 4, "rename_by_default": True})])
    assert list(data) == ["default", "shared"]
    assert data["shared"] == (
        "version: v1\n"
        "flags:\n"
        "  migStrategy: none\n"
        "  failOnInitError: true\n"
        "sharing:\n"
        "  timeSlicing:\n"
        "    renameByDefault: true\n"
        "    failRequestsGreaterThanOne: false\n"
        "    resources:\n"
        "    - name: nvidia.com/gpu\n"
        "      replicas: 4\n"
    )
    assert data["default"] == "version: v1\nflags:\n  migStrategy: none\n  failOnInitError: true\n"
    for text in data.values():
        check_plugin_rules(yaml.safe_load(text))


def test_mps_config_sets_mps_root_and_fails_requests_above_one() -> None:
    config = device_plugin_config(spec(mps={"replicas": 10}))
    assert config == {
        "version": "v1",
        "flags": {"migStrategy": "none", "failOnInitError": True, "mpsRoot": "/run/nvidia/mps"},
        "sharing": {
            "mps": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": "nvidia.com/gpu", "replicas": 10}],
            }
        },
    }
    check_plugin_rules(dict(config))


def test_mixed_mig_with_time_slicing_shares_each_mig_resource() -> None:
    pool = spec(
        instance_type="p5.48xlarge",
        mig={"layout": {"3g.40gb": 1, "1g.10gb+me": 1, "1g.10gb": 2}, "strategy": "mixed"},
        time_slicing={"replicas": 2},
    )
    config = device_plugin_config(pool)
    assert config["flags"]["migStrategy"] == "mixed"
    assert config["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/mig-1g.10gb", "replicas": 2},
        {"name": "nvidia.com/mig-1g.10gb.me", "replicas": 2},
        {"name": "nvidia.com/mig-3g.40gb", "replicas": 2},
    ]
    check_plugin_rules(dict(config))
    assert advertised_resources(pool) == {
        "nvidia.com/mig-1g.10gb": 32,
        "nvidia.com/mig-1g.10gb.me": 16,
        "nvidia.com/mig-3g.40gb": 16,
    }


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, {"nvidia.com/gpu": 1}),
        ({"instance_type": "g5.12xlarge", "time_slicing": {"replicas": 4}}, {"nvidia.com/gpu": 16}),
        ({"time_slicing": {"replicas": 3, "rename_by_default": True}}, {"nvidia.com/gpu.shared": 3}),
        ({"mps": {"replicas": 8}}, {"nvidia.com/gpu": 8}),
        ({"instance_type": "p4d.24xlarge", "mig": {"profile": "1g.5gb"}}, {"nvidia.com/gpu": 56}),
        (
            {"instance_type": "p4d.24xlarge", "mig": {"profile": "3g.20gb", "strategy": "mixed"}},
            {"nvidia.com/mig-3g.20gb": 16},
        ),
    ],
)
def test_advertised_resources_per_node(fields: dict[str, Any], expected: dict[str, int]) -> None:
    assert advertised_resources(spec(**fields)) == expected


def test_daemonset_tolerates_chart_defaults_and_every_pool_taint_once() -> None:
    pools = [
        spec(name="a"),
        spec(name="b", taints=[{"key": "dedicated", "value": "ml", "effect": "NoExecute"}]),
        spec(name="c", gpu_taint=False, taints=[{"key": "team", "effect": "NoSchedule"}]),
    ]
    assert daemonset_tolerations(pools) == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
        {"key": "team", "operator": "Exists", "effect": "NoSchedule"},
    ]


def test_chart_values_pin_affinity_to_served_pools_and_merge_overrides() -> None:
    pools = [spec(name="b"), spec(name="a", time_slicing={"replicas": 2})]
    values = device_plugin_values(pools, "configs", {"priorityClassName": "custom", "config": {"default": "a"}})
    assert values["config"] == {"name": "configs", "default": "a"}
    assert values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "nvidia.com/device-plugin.config", "operator": "In", "values": ["a", "b"]}]}
        ]
    }
    assert values["priorityClassName"] == "custom"
    assert len(values["podAnnotations"]["gpu-components/config-hash"]) == 16


def test_config_hash_changes_when_a_config_changes() -> None:
    before = device_plugin_values([spec(time_slicing={"replicas": 2})], "c")
    after = device_plugin_values([spec(time_slicing={"replicas": 3})], "c")
    same = device_plugin_values([spec(time_slicing={"replicas": 2})], "c")
    key = "gpu-components/config-hash"
    assert before["podAnnotations"][key] != after["podAnnotations"][key]
    assert before["podAnnotations"][key] == same["podAnnotations"][key]


@pytest.mark.parametrize("strategy", ["bogus", "Mixed", "", 3])
def test_a_mig_strategy_the_plugin_has_not_is_refused(strategy: object) -> None:
    with pytest.raises(ValueError) as raised:
        device_plugin_config_map([], strategy)  # type: ignore[arg-type]
    assert str(raised.value) == f"mig_strategy must be one of none, single, mixed (got {strategy!r})"


def test_daemonset_tolerates_the_startup_taints_of_provisioned_pools() -> None:
    cilium = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
    provisioning = {"provisioner": "karpenter", "max_gpus": 4, "startup_taints": [cilium]}
    provisioned = GpuNodePoolSpec.from_args(
        {"name": "p", "instance_type": "g5.xlarge", "provisioning": provisioning}, "aws"
    )  # type: ignore[typeddict-item]
    assert daemonset_tolerations([provisioned]) == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "node.cilium.io/agent-not-ready", "operator": "Equal", "value": "true", "effect": "NoExecute"},
    ]
