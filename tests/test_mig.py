"""MIG names in one place: the profile-name grammar against NVIDIA's own MIG table and mig-parted's parser, and the
resource names the device plugin derives from profiles."""

from __future__ import annotations

import re

import pytest

from gpu_components import GpuSpecError, catalog
from gpu_components.mig import (
    MIG_PROFILE_ATTRIBUTES,
    MigProfileName,
    mig_config_name,
    mig_resource_name,
    parse_mig_profile_name,
)
from gpu_components.spec import MAX_POOL_NAME_LENGTH, GpuNodePoolSpec
from tests.nvidia.mig_parted import mig_profile_format_problem
from tests.nvidia.nvidia_mig_table import UniformConfig, profile_size, uniform_configs

TABLE_PROFILES = sorted({config.profile for config in uniform_configs()})
CATALOG_PROFILES = sorted({profile for model in catalog.gpu_models() for profile in model.mig_profiles})

# Kubernetes "Labels and Selectors", syntax and character set: a label value is at most 63 characters, empty or
# alphanumerics, '-', '_' and '.' that begin and end alphanumeric. An extended resource name is a qualified name:
# a DNS-subdomain prefix, '/', and a name of the label value's characters (not empty).
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
QUALIFIED_NAME = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
)


def is_label_value(value: str) -> bool:
    return len(value) <= 63 and LABEL_VALUE.fullmatch(value) is not None


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


@pytest.mark.parametrize(
    ("profile", "name"),
    [
        ("1g.10gb", "all-1g.10gb"),
        ("1g.10gb+me", "all-1g.10gb.me"),
        ("1g.24gb+me.all", "all-1g.24gb.me.all"),
        ("1g.24gb+gfx", "all-1g.24gb.gfx"),
        ("1g.24gb-me", "all-1g.24gb-me"),
    ],
)
def test_mig_config_names_are_nvidias(profile: str, name: str) -> None:
    assert mig_config_name(profile) == name


@pytest.mark.parametrize("config", uniform_configs(), ids=lambda config: f"{config.name}-{config.device_filter}")
def test_every_uniform_config_of_nvidias_table_has_the_name_mig_config_name_derives(config: UniformConfig) -> None:
    assert mig_config_name(config.profile) == config.name


@pytest.mark.parametrize("profile", CATALOG_PROFILES)
def test_every_name_derived_from_a_catalog_profile_is_a_valid_label_value_or_resource_name(profile: str) -> None:
    assert is_label_value(mig_config_name(profile)), mig_config_name(profile)
    assert QUALIFIED_NAME.fullmatch(mig_resource_name(profile)), mig_resource_name(profile)
    assert len(mig_resource_name(profile).partition("/")[2]) <= 63


def test_the_catalog_has_profiles_with_every_attribute_nvidia_names() -> None:
    attributes = {parse_mig_profile_name(profile).attribute for profile in CATALOG_PROFILES}  # type: ignore[union-attr]
    assert attributes == {"", *MIG_PROFILE_ATTRIBUTES}


@pytest.mark.parametrize(
    ("profile", "config", "resource"),
    [
        ("1g.24gb+gfx", "all-1g.24gb.gfx", "nvidia.com/mig-1g.24gb.gfx"),
        ("1g.24gb+me.all", "all-1g.24gb.me.all", "nvidia.com/mig-1g.24gb.me.all"),
        ("2g.48gb-me", "all-2g.48gb-me", "nvidia.com/mig-2g.48gb-me"),
        ("4g.96gb+gfx", "all-4g.96gb.gfx", "nvidia.com/mig-4g.96gb.gfx"),
    ],
)
def test_an_rtx_pro_6000_pool_of_an_attributed_profile_selects_nvidias_config_and_resource(
    profile: str, config: str, resource: str
) -> None:
    pool = GpuNodePoolSpec.from_args(
        {"name": "rtx", "instance_type": "g4-standard-48", "max_size": 1, "mig": {"profile": profile}}, "gcp"
    )
    assert pool.mig is not None
    assert pool.mig.config_name == config
    assert mig_resource_name(profile) == resource
    assert is_label_value(config) and QUALIFIED_NAME.fullmatch(resource)


def test_a_uniform_me_profile_pool_selects_nvidias_config_name() -> None:
    pool = GpuNodePoolSpec.from_args(
        {"name": "media", "instance_type": "p4de.24xlarge", "max_size": 1, "mig": {"profile": "1g.10gb+me"}}, "aws"
    )
    assert pool.mig is not None
    assert (pool.mig.config_name, dict(pool.mig.devices)) == ("all-1g.10gb.me", {"1g.10gb+me": 1})


def test_a_layout_config_name_of_the_longest_pool_name_is_a_valid_label_value() -> None:
    name = "p" * MAX_POOL_NAME_LENGTH
    pool = GpuNodePoolSpec.from_args(
        {
            "name": name,
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
        },
        "aws",
    )
    assert pool.mig is not None
    assert pool.mig.config_name == f"custom-{name}"
    assert is_label_value(pool.mig.config_name)


def _rtx_pro_6000_layout(layout: dict[str, int]) -> GpuNodePoolSpec:
    """A GCP G4 (RTX PRO 6000) pool of MIG layout ``layout`` under the mixed strategy."""
    return GpuNodePoolSpec.from_args(
        {"name": "p", "instance_type": "g4-standard-48", "max_size": 1, "mig": {"layout": layout, "strategy": "mixed"}},
        "gcp",
    )


MEDIA_SOURCE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"


@pytest.mark.parametrize(
    ("layout", "message", "valid"),
    [
        (  # the new-user trial's layout: both take the GPU's only OFA
            {"1g.24gb+me": 1, "1g.24gb+me.all": 1},
            "1 x 1g.24gb+me and 1 x 1g.24gb+me.all cannot share one RTX-PRO-6000: each instance with media "
            "extensions (+me, +me.all) takes the GPU's only OFA",
            "at most one +me or +me.all instance per GPU",
        ),
        (
            {"1g.24gb+me.all": 1, "2g.48gb+me.all": 1},
            "1 x 1g.24gb+me.all and 1 x 2g.48gb+me.all cannot share one RTX-PRO-6000: each instance with media "
            "extensions (+me, +me.all) takes the GPU's only OFA",
            "at most one +me or +me.all instance per GPU",
        ),
        (
            {"1g.24gb+me.all": 1, "1g.24gb": 1, "1g.24gb+gfx": 2},
            "1g.24gb+me.all takes all the media engines of its RTX-PRO-6000, so 1g.24gb, 1g.24gb+gfx cannot share "
            "the GPU",
            "no media engine (-me) profiles next to a +me.all instance",
        ),
        (
            {"2g.48gb+me.all": 1, "2g.48gb": 1},
            "2g.48gb+me.all takes all the media engines of its RTX-PRO-6000, so 2g.48gb cannot share the GPU",
            "no media engine (-me) profiles next to a +me.all instance",
        ),
    ],
)
def test_a_layout_whose_media_engines_do_not_fit_one_gpu_is_rejected(
    layout: dict[str, int], message: str, valid: str
) -> None:
    with pytest.raises(GpuSpecError) as caught:
        _rtx_pro_6000_layout(layout)
    [problem] = caught.value.problems
    assert (problem.path, problem.value, problem.message, problem.valid, problem.source) == (
        "mig.layout",
        layout,
        message,
        valid,
        MEDIA_SOURCE,
    )


@pytest.mark.parametrize(
    "layout",
    [
        {"1g.24gb+me.all": 1, "1g.24gb-me": 3},
        {"2g.48gb+me.all": 1, "2g.48gb-me": 1},
        {"1g.24gb+me": 1, "1g.24gb+gfx": 3},
        {"1g.24gb+me": 1, "1g.24gb-me": 1, "2g.48gb": 1},
    ],
)
def test_a_layout_with_one_media_extended_instance_renders(layout: dict[str, int]) -> None:
    pool = _rtx_pro_6000_layout(layout)
    assert pool.mig is not None
    assert dict(pool.mig.devices) == layout
