"""MIG names in one place: the profile-name grammar against NVIDIA's own MIG table and mig-parted's parser, and the
resource names the device plugin derives from profiles."""

from __future__ import annotations

import pytest

from gpu_components import catalog
from gpu_components.mig import (
    MIG_PROFILE_ATTRIBUTES,
    MigProfileName,
    mig_resource_name,
    parse_mig_profile_name,
)
from tests.nvidia.mig_parted import mig_profile_format_problem
from tests.nvidia.nvidia_mig_table import profile_size, uniform_configs

TABLE_PROFILES = sorted({config.profile for config in uniform_configs()})


def test_the_table_has_every_attribute_of_the_grammar() -> None:
    attributes = {profile_size(profile)[2] for profile in TABLE_PROFILES}
    assert attributes == {"", *MIG_PROFILE_ATTRIBUTES}


@pytest.mark.parametrize("profile", TABLE_PROFILES)
def test_every_profile_name_in_nvidias_table_parses_to_its_size(profile: str) -> None:
    compute, memory, attribute = profile_size(profile)
    assert parse_mig_profile_name(profile) == MigProfileName(compute, memory, attribute)


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("1g.10gb", MigProfileName(1, 10, "")),
        ("7g.141gb", MigProfileName(7, 141, "")),
        ("1g.10gb+me", MigProfileName(1, 10, "+me")),
        ("1g.24gb+me.all", MigProfileName(1, 24, "+me.all")),
        ("4g.96gb+gfx", MigProfileName(4, 96, "+gfx")),
        ("2g.48gb-me", MigProfileName(2, 48, "-me")),
        ("8g.192gb", MigProfileName(8, 192, "")),  # NVML has 8-slice GPU instances
    ],
)
def test_profile_names_parse(profile: str, expected: MigProfileName) -> None:
    assert parse_mig_profile_name(profile) == expected


@pytest.mark.parametrize(
    "profile",
    [
        "",
        "1g10gb",
        "1g.10gbb",
        "1g.10GB",
        "g.10gb",
        "0g.10gb",
        "1g.0gb",
        "01g.10gb",
        "1g.10gb+",
        "1g.10gb+ME",
        "1g.10gb-gfx",  # NVML defines no GPU instance without graphics
        "1g.10gb-me.all",
        "1g.10gb+me+gfx",
        "1g.10gb+me,gfx",
        "1c.3g.20gb",  # a compute-instance profile, not a GPU instance
        " 1g.10gb",
        "1g.10gb\n",
    ],
)
def test_malformed_profile_names_do_not_parse(profile: str) -> None:
    assert parse_mig_profile_name(profile) is None


@pytest.mark.parametrize("profile", ["1g.10gb", "1g.10gb+me", "1g.24gb+me.all", "1g.24gb+gfx", "1g.24gb-me"])
def test_every_name_of_the_grammar_is_one_mig_parted_parses(profile: str) -> None:
    assert parse_mig_profile_name(profile) is not None
    assert mig_profile_format_problem(profile) is None


@pytest.mark.parametrize(
    ("attribute", "media"), [("", False), ("+me", True), ("+me.all", True), ("+gfx", False), ("-me", False)]
)
def test_media_extensions_are_the_me_attributes(attribute: str, media: bool) -> None:
    assert MigProfileName(1, 24, attribute).media_extensions is media


def test_catalog_profiles_are_parsed_by_the_grammar() -> None:
    for model in catalog.gpu_models():
        for profile in model.mig_profiles.values():
            parsed = parse_mig_profile_name(profile.name)
            assert parsed is not None
            assert (parsed.compute_slices, parsed.memory_gb, parsed.media_extensions) == (
                profile.compute_slices,
                profile.memory_gb,
                profile.media_extensions,
            )


def test_mig_resource_name_replaces_plus() -> None:
    assert mig_resource_name("1g.10gb+me") == "nvidia.com/mig-1g.10gb.me"


@pytest.mark.parametrize(
    ("profile", "resource"),
    [
        ("1g.10gb", "nvidia.com/mig-1g.10gb"),
        ("1g.24gb+me.all", "nvidia.com/mig-1g.24gb.me.all"),
        ("1g.24gb+gfx", "nvidia.com/mig-1g.24gb.gfx"),
        ("1g.24gb-me", "nvidia.com/mig-1g.24gb-me"),
    ],
)
def test_mig_resource_names_are_the_device_plugins(profile: str, resource: str) -> None:
    assert mig_resource_name(profile) == resource
