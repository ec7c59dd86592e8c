"""The test-side re-implementation of mig-parted's parser rules (tests/nvidia/mig_parted.py), rule by rule."""

from __future__ import annotations

from typing import Any

import pytest

from tests.nvidia.mig_parted import mig_parted_problems, mig_profile_format_problem
from tests.nvidia.nvidia_mig_table import mig_configs, mig_parted_file, uniform_configs


def messages(config: object) -> list[str]:
    return [f"{p.path}: {p.message}" for p in mig_parted_problems(config)]


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


# NVIDIA's own default config (GPU Operator v26.7.0) is the oracle for the re-implementation: every name and entry
# in it is one the real parser accepts, with attributes (+gfx, -me, +me.all) our catalog never uses.
NVIDIA_PROFILES = sorted(
    {config.profile for config in uniform_configs()}
    | {profile for entry in mig_configs()["all-balanced"] for profile in entry["mig-devices"]}
)


def test_nvidia_table_has_the_profile_names_it_is_read_for() -> None:
    assert len(NVIDIA_PROFILES) == 78
    assert {"1g.10gb+me", "1g.24gb+gfx", "1g.24gb-me", "1g.24gb+me.all", "3g.135gb"} <= set(NVIDIA_PROFILES)


@pytest.mark.parametrize("profile", NVIDIA_PROFILES)
def test_every_profile_name_in_nvidias_table_parses(profile: str) -> None:
    assert mig_profile_format_problem(profile) is None


def test_nvidias_default_config_passes_the_parser_rules() -> None:
    assert mig_parted_problems(mig_parted_file()) == []
