"""mig-parted configs: exact renders for uniform and mixed layouts, and mig-parted's parser rules."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gpu_components import catalog
from gpu_components.errors import GpuSpecError
from gpu_components.nvidia.mig import (
    ALL_DISABLED,
    mig_config_map,
    mig_config_problems,
    mig_node_labels,
    mig_parted_config,
    mig_parted_problems,
    mig_profile_format_problem,
)
from gpu_components.spec import GpuNodePoolSpec


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "p4de.24xlarge", "max_size": 2}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "aws")


UNIFORM = spec(name="uniform", mig={"profile": "1g.10gb"})
MIXED = spec(
    name="mixed",
    instance_type="p4d.24xlarge",
    mig={"layout": {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}, "strategy": "mixed"},
)


def messages(config: object) -> list[str]:
    return [f"{p.path}: {p.message}" for p in mig_parted_problems(config)]


def test_uniform_layout_config_yaml_is_exact() -> None:
    data = mig_config_map([UNIFORM])
    assert list(data) == ["config.yaml"]
    assert data["config.yaml"] == (
        "version: v1\n"
        "mig-configs:\n"
        "  all-disabled:\n"
        "  - devices: all\n"
        "    mig-enabled: false\n"
        "  all-1g.10gb:\n"
        "  - devices: all\n"
        "    mig-enabled: true\n"
        "    mig-devices:\n"
        "      1g.10gb: 7\n"
    )


def test_mixed_layout_config_yaml_is_exact() -> None:
    assert mig_config_map([MIXED])["config.yaml"] == (
        "version: v1\n"
        "mig-configs:\n"
        "  all-disabled:\n"
        "  - devices: all\n"
        "    mig-enabled: false\n"
        "  custom-mixed:\n"
        "  - devices: all\n"
        "    mig-enabled: true\n"
        "    mig-devices:\n"
        "      1g.5gb: 2\n"
        "      2g.10gb: 1\n"
        "      3g.20gb: 1\n"
    )


def test_pools_without_mig_give_only_all_disabled() -> None:
    assert mig_parted_config([spec(instance_type="g5.xlarge")]) == {
        "version": "v1",
        "mig-configs": {"all-disabled": [{"devices": "all", "mig-enabled": False}]},
    }


def test_configs_are_sorted_after_all_disabled_and_shared_names_appear_once() -> None:
    other = spec(name="other", instance_type="p5.48xlarge", mig={"profile": "1g.10gb"})  # H100 80GB: also 7
    config = mig_parted_config([MIXED, UNIFORM, other])
    assert list(config["mig-configs"]) == [ALL_DISABLED, "all-1g.10gb", "custom-mixed"]


def test_one_config_name_with_two_layouts_is_rejected() -> None:
    a100_40 = spec(name="small", instance_type="p4d.24xlarge", mig={"profile": "1g.10gb"})  # 4 per GPU
    problems = mig_config_problems([UNIFORM, a100_40])
    assert [(p.path, p.value) for p in problems] == [("pools[1].mig", {"1g.10gb": 4})]
    assert "'all-1g.10gb' already holds {'1g.10gb': 7} for pools[0] (A100-80GB)" in problems[0].message
    with pytest.raises(GpuSpecError, match="one mig-parted config name can hold only one layout"):
        mig_config_map([UNIFORM, a100_40])


def test_node_labels_select_layout_or_all_disabled() -> None:
    assert mig_node_labels(UNIFORM) == {"nvidia.com/mig.config": "all-1g.10gb"}
    assert mig_node_labels(MIXED) == {"nvidia.com/mig.config": "custom-mixed"}
    assert mig_node_labels(spec()) == {"nvidia.com/mig.config": "all-disabled"}
    assert mig_node_labels(spec(instance_type="g5.xlarge")) == {}


def test_every_uniform_profile_of_every_gpu_renders_a_config_the_parser_accepts() -> None:
    instance = {"A100-40GB": "p4d.24xlarge", "A100-80GB": "p4de.24xlarge", "H100-80GB": "p5.48xlarge"}
    checked = 0
    for model, instance_type in instance.items():
        for profile in catalog.gpu_model(model).mig_profiles:
            pool = spec(name=f"p{checked}", instance_type=instance_type, mig={"profile": profile})
            assert mig_parted_problems(yaml.safe_load(mig_config_map([pool])["config.yaml"])) == []
            checked += 1
    assert checked >= 21


def test_rendered_mixed_config_passes_the_parser_rules() -> None:
    assert mig_parted_problems(yaml.safe_load(mig_config_map([UNIFORM, MIXED])["config.yaml"])) == []


# ---------------------------------------------------------------------------------------------------------------
# Parser rules (mig-parted v0.15.0 api/spec/v1)
# ---------------------------------------------------------------------------------------------------------------

ENABLED = {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb": 7}}


def config_with(*entries: object) -> dict[str, Any]:
    return {"version": "v1", "mig-configs": {"c": list(entries)}}


def test_version_is_required_and_must_be_v1() -> None:
    assert messages({"mig-configs": {"c": [ENABLED]}}) == ["version: required field is missing"]
    assert messages({"version": "v2", "mig-configs": {"c": [ENABLED]}}) == ["version: unknown version"]


def test_unexpected_top_level_field_is_rejected() -> None:
    assert messages({**config_with(ENABLED), "migConfigs": {}}) == ["migConfigs: unexpected field"]


def test_mig_configs_and_each_config_need_an_entry() -> None:
    assert messages({"version": "v1", "mig-configs": {}}) == ["mig-configs: at least one named config is required"]
    assert messages(config_with()) == ["mig-configs['c']: at least one entry is required"]


def test_devices_and_mig_enabled_are_required() -> None:
    assert messages(config_with({"mig-devices": {"1g.10gb": 7}})) == [
        "mig-configs['c'][0].devices: required field is missing",
        "mig-configs['c'][0].mig-enabled: required field is missing",
        "mig-configs['c'][0].mig-devices: MIG devices given while mig-enabled is false",
    ]


def test_mig_devices_required_when_enabled_null_counts_as_missing() -> None:
    expected = ["mig-configs['c'][0].mig-devices: required when mig-enabled is true"]
    assert messages(config_with({"devices": "all", "mig-enabled": True})) == expected
    assert messages(config_with({"devices": "all", "mig-enabled": True, "mig-devices": None})) == expected


def test_mig_devices_forbidden_when_disabled() -> None:
    entry = {"devices": "all", "mig-enabled": False, "mig-devices": {"1g.10gb": 7}}
    assert messages(config_with(entry)) == [
        "mig-configs['c'][0].mig-devices: MIG devices given while mig-enabled is false"
    ]
    # The parser rejects only a non-empty mapping: `mig-devices: {}` with MIG off passes, as on the node.
    assert messages(config_with({"devices": "all", "mig-enabled": False, "mig-devices": {}})) == []


def test_unexpected_entry_field_is_rejected() -> None:
    assert messages(config_with({**ENABLED, "migDevices": {}})) == ["mig-configs['c'][0].migDevices: unexpected field"]


@pytest.mark.parametrize("devices", ["some", [0, "1"], 3, [True]])
def test_devices_must_be_all_or_indices(devices: object) -> None:
    assert messages(config_with({**ENABLED, "devices": devices})) == [
        "mig-configs['c'][0].devices: must be 'all' or a list of GPU indices"
    ]


def test_devices_may_be_indices_and_device_filter_a_string_or_list() -> None:
    assert messages(config_with({**ENABLED, "devices": [0, 1], "device-filter": ["0x20B010DE"]})) == []
    assert messages(config_with({**ENABLED, "device-filter": "0x20B010DE"})) == []
    assert messages(config_with({**ENABLED, "device-filter": 7})) == [
        "mig-configs['c'][0].device-filter: must be a string or a list of strings"
    ]


def test_mig_enabled_must_be_a_bool() -> None:
    assert messages(config_with({**ENABLED, "mig-enabled": "yes"})) == [
        "mig-configs['c'][0].mig-enabled: must be true or false"
    ]


def test_counts_must_be_whole_non_negative_and_not_all_zero() -> None:
    assert messages(config_with({**ENABLED, "mig-devices": {"1g.10gb": -1}})) == [
        "mig-configs['c'][0].mig-devices['1g.10gb']: a count must be a whole number >= 0"
    ]
    assert messages(config_with({**ENABLED, "mig-devices": {"1g.10gb": 0, "2g.20gb": 0}})) == [
        "mig-configs['c'][0].mig-devices: all counts are 0"
    ]
    assert messages(config_with({**ENABLED, "mig-devices": {"1g.10gb": 0, "2g.20gb": 3}})) == []


def test_bad_profile_name_in_a_config_is_reported_with_its_reason() -> None:
    problems = mig_parted_problems(config_with({**ENABLED, "mig-devices": {"1g10gb": 7}}))
    assert [(p.path, p.message) for p in problems] == [
        (
            "mig-configs['c'][0].mig-devices['1g10gb']",
            "not a MIG profile name: expected <G>g.<GB>gb or <C>c.<G>g.<GB>gb",
        )
    ]


@pytest.mark.parametrize("profile", ["1g.10gb", "7g.80gb", "1c.2g.20gb", "1g.10gb+me", "1g.10gb-me", "1g.5gb+me,gfx"])
def test_valid_profile_names(profile: str) -> None:
    assert mig_profile_format_problem(profile) is None


@pytest.mark.parametrize(
    ("profile", "reason"),
    [
        ("", "empty string"),
        ("1g.10gb+me-x", "both '+' and '-'"),
        ("1g10gb", "expected <G>g.<GB>gb"),
        ("g.10gb", "malformed field 'g'"),
        ("1g.10", "malformed field '10'"),
        ("1g.10gb.1x", "malformed field"),
        (" 1g.10gb", "malformed field ' 1g'"),
        ("1g.10gb+", "empty attribute"),
        ("1g.10gb+1me", "begins with a digit"),
        ("1g.10gb+.me", "begins with a digit or a dot"),
        ("1g.10gb+me.", "ends with a dot"),
        ("1g.10gb+me,me", "non-unique attribute"),
        ("1g.10gb+m_e", "other than a letter, digit or dot"),
    ],
)
def test_invalid_profile_names(profile: str, reason: str) -> None:
    problem = mig_profile_format_problem(profile)
    assert problem is not None and reason in problem


@given(
    st.integers(min_value=1, max_value=7),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(["", "+me", "-me", "+me,gfx"]),
)
def test_generated_profile_names_parse(compute: int, memory: int, suffix: str) -> None:
    assert mig_profile_format_problem(f"{compute}g.{memory}gb{suffix}") is None
