"""Tests for gpu_components.catalog: exact facts, lookups, suggestions and data-file validation."""

from __future__ import annotations

import importlib.resources
import pickle
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gpu_components import catalog
from gpu_components.catalog import (
    CatalogLookupError,
    Cloud,
    GpuModel,
    InstanceType,
    MigProfile,
    find_instance_type,
    gcp_accelerator_type,
    gpu_model,
    gpu_models,
    instance_type,
    instance_types,
)

CLOUDS: tuple[Cloud, ...] = ("aws", "azure", "gcp")

# ------------------------------------------------------------------------------------------------ expected facts

# name -> (architecture, memory GB, compute capability)
EXPECTED_GPUS = {
    "T4": ("Turing", 16, (7, 5)),
    "T4G": ("Turing", 16, (7, 5)),
    "V100": ("Volta", 16, (7, 0)),
    "A10G": ("Ampere", 24, (8, 6)),
    "L4": ("Ada Lovelace", 24, (8, 9)),
    "L40S": ("Ada Lovelace", 48, (8, 9)),
    "A30-24GB": ("Ampere", 24, (8, 0)),
    "A100-40GB": ("Ampere", 40, (8, 0)),
    "A100-80GB": ("Ampere", 80, (8, 0)),
    "H100-80GB": ("Hopper", 80, (9, 0)),
    "H100-94GB": ("Hopper", 94, (9, 0)),
    "H200-141GB": ("Hopper", 141, (9, 0)),
    "B200": ("Blackwell", 180, (10, 0)),
    "GB200": ("Blackwell", 186, (10, 0)),
    "B300": ("Blackwell", 269, (10, 3)),
    "GB300": ("Blackwell", 278, (10, 3)),
    "RTX-PRO-6000": ("Blackwell", 96, (12, 0)),
}
NOT_MIG_CAPABLE = ("T4", "T4G", "V100", "A10G", "L4", "L40S")

# MIG User Guide, "Supported MIG Profiles": profile -> (max instances, memory slices)
_A100_80GB_PROFILES = {
    "1g.10gb": (7, 1),
    "1g.10gb+me": (1, 1),
    "1g.20gb": (4, 2),
    "2g.20gb": (3, 2),
    "3g.40gb": (2, 4),
    "4g.40gb": (1, 4),
    "7g.80gb": (1, 8),
}
EXPECTED_MIG = {
    "A30-24GB": {
        "1g.6gb": (4, 1),
        "1g.6gb+me": (1, 1),
        "2g.12gb": (2, 2),
        "2g.12gb+me": (1, 2),
        "4g.24gb": (1, 4),
    },
    "A100-40GB": {
        "1g.5gb": (7, 1),
        "1g.5gb+me": (1, 1),
        "1g.10gb": (4, 2),
        "2g.10gb": (3, 2),
        "3g.20gb": (2, 4),
        "4g.20gb": (1, 4),
        "7g.40gb": (1, 8),
    },
    "A100-80GB": _A100_80GB_PROFILES,
    "H100-80GB": _A100_80GB_PROFILES,
    "H100-94GB": {
        "1g.12gb": (7, 1),
        "1g.12gb+me": (1, 1),  # NVIDIA's GPU Operator MIG table (all-1g.12gb.me); see test_nvidia_mig_table.py
        "1g.24gb": (4, 2),
        "2g.24gb": (3, 2),
        "3g.47gb": (2, 4),
        "4g.47gb": (1, 4),
        "7g.94gb": (1, 8),
    },
    "H200-141GB": {
        "1g.18gb": (7, 1),
        "1g.18gb+me": (1, 1),
        "1g.35gb": (4, 2),
        "2g.35gb": (3, 2),
        "3g.71gb": (2, 4),
        "4g.71gb": (1, 4),
        "7g.141gb": (1, 8),
    },
    "B200": {
        "1g.23gb": (7, 1),
        "1g.23gb+me": (1, 1),
        "1g.45gb": (4, 2),
        "2g.45gb": (3, 2),
        "3g.90gb": (2, 4),
        "4g.90gb": (1, 4),
        "7g.180gb": (1, 8),
    },
    # NVIDIA's MIG table (GPU Operator v26.7.0 default mig-parted config); see test_nvidia_mig_table.py
    "GB200": {
        "1g.23gb": (7, 1),
        "1g.23gb+me": (1, 1),
        "1g.47gb": (4, 2),
        "2g.47gb": (3, 2),
        "3g.93gb": (2, 4),
        "4g.93gb": (1, 4),
        "7g.186gb": (1, 8),
    },
    "B300": {
        "1g.34gb": (7, 1),
        "1g.34gb+me": (1, 1),
        "1g.67gb": (4, 2),
        "2g.67gb": (3, 2),
        "3g.135gb": (2, 4),
        "4g.135gb": (1, 4),
        "7g.269gb": (1, 8),
    },
    "GB300": {
        "1g.35gb": (7, 1),
        "1g.35gb+me": (1, 1),
        "1g.70gb": (4, 2),
        "2g.70gb": (3, 2),
        "3g.139gb": (2, 4),
        "4g.139gb": (1, 4),
        "7g.278gb": (1, 8),
    },
    "RTX-PRO-6000": {
        "1g.24gb": (4, 1),
        "1g.24gb+me": (1, 1),
        "1g.24gb+gfx": (4, 1),
        "1g.24gb+me.all": (1, 1),
        "1g.24gb-me": (4, 1),
        "2g.48gb": (2, 2),
        "2g.48gb+gfx": (2, 2),
        "2g.48gb+me.all": (1, 2),
        "2g.48gb-me": (2, 2),
        "4g.96gb": (1, 4),
        "4g.96gb+gfx": (1, 4),
    },
}


def _sizes(family: str, model: str, counts: dict[str, int]) -> dict[str, tuple[str, int]]:
    return {f"{family}.{size}": (model, count) for size, count in counts.items()}


_G5_PATTERN = {
    "xlarge": 1,
    "2xlarge": 1,
    "4xlarge": 1,
    "8xlarge": 1,
    "16xlarge": 1,
    "12xlarge": 4,
    "24xlarge": 4,
    "48xlarge": 8,
}
# name -> (GPU model, GPUs per node), NVIDIA types only
EXPECTED_NVIDIA_TYPES: dict[str, dict[str, tuple[str, int]]] = {
    "aws": {
        **_sizes(
            "g4dn",
            "T4",
            {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1, "12xlarge": 4, "metal": 8},
        ),
        **_sizes("g5", "A10G", _G5_PATTERN),
        **_sizes("g6", "L4", _G5_PATTERN),
        **_sizes("g6e", "L40S", _G5_PATTERN),
        **_sizes("gr6", "L4", {"4xlarge": 1, "8xlarge": 1}),
        **_sizes(
            "g7e",
            "RTX-PRO-6000",
            {"2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "12xlarge": 2, "24xlarge": 4, "48xlarge": 8},
        ),
        **_sizes("g5g", "T4G", {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 2, "metal": 2}),
        **_sizes("p3", "V100", {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8}),
        "p3dn.24xlarge": ("V100", 8),
        "p4d.24xlarge": ("A100-40GB", 8),
        "p4de.24xlarge": ("A100-80GB", 8),
        "p5.4xlarge": ("H100-80GB", 1),
        "p5.48xlarge": ("H100-80GB", 8),
        "p5e.48xlarge": ("H200-141GB", 8),
        "p5en.48xlarge": ("H200-141GB", 8),
        "p6-b200.48xlarge": ("B200", 8),
        "p6-b300.48xlarge": ("B300", 8),
        "p6e-gb200.36xlarge": ("GB200", 4),
        "p6e-gb300.36xlarge": ("GB300", 4),
    },
    "azure": {
        "Standard_NC4as_T4_v3": ("T4", 1),
        "Standard_NC8as_T4_v3": ("T4", 1),
        "Standard_NC16as_T4_v3": ("T4", 1),
        "Standard_NC64as_T4_v3": ("T4", 4),
        "Standard_NC6s_v3": ("V100", 1),
        "Standard_NC12s_v3": ("V100", 2),
        "Standard_NC24s_v3": ("V100", 4),
        "Standard_NC24ads_A100_v4": ("A100-80GB", 1),
        "Standard_NC48ads_A100_v4": ("A100-80GB", 2),
        "Standard_NC96ads_A100_v4": ("A100-80GB", 4),
        "Standard_ND96asr_v4": ("A100-40GB", 8),
        "Standard_ND96amsr_A100_v4": ("A100-80GB", 8),
        "Standard_NC40ads_H100_v5": ("H100-94GB", 1),
        "Standard_NC80adis_H100_v5": ("H100-94GB", 2),
        "Standard_ND96isr_H100_v5": ("H100-80GB", 8),
        "Standard_ND96isr_H200_v5": ("H200-141GB", 8),
        "Standard_ND128isr_NDR_GB200_v6": ("GB200", 4),
        "Standard_ND128isr_GB300_v6": ("GB300", 4),
    },
    "gcp": {
        **{f"g2-standard-{n}": ("L4", 1) for n in (4, 8, 12, 16, 32)},
        "g2-standard-24": ("L4", 2),
        "g2-standard-48": ("L4", 4),
        "g2-standard-96": ("L4", 8),
        **{f"a2-highgpu-{n}g": ("A100-40GB", n) for n in (1, 2, 4, 8)},
        "a2-megagpu-16g": ("A100-40GB", 16),
        **{f"a2-ultragpu-{n}g": ("A100-80GB", n) for n in (1, 2, 4, 8)},
        **{f"a3-highgpu-{n}g": ("H100-80GB", n) for n in (1, 2, 4, 8)},
        "a3-megagpu-8g": ("H100-80GB", 8),
        "a3-ultragpu-8g": ("H200-141GB", 8),
        "a4-highgpu-8g": ("B200", 8),
        "a4x-highgpu-4g": ("GB200", 4),
        "a4x-maxgpu-4g-metal": ("GB300", 4),
        "g4-standard-48": ("RTX-PRO-6000", 1),
        "g4-standard-96": ("RTX-PRO-6000", 2),
        "g4-standard-192": ("RTX-PRO-6000", 4),
        "g4-standard-384": ("RTX-PRO-6000", 8),
    },
}
# name -> GPUs per node, AMD types
EXPECTED_AMD_TYPES: dict[str, dict[str, int]] = {
    "aws": {"g4ad.xlarge": 1, "g4ad.2xlarge": 1, "g4ad.4xlarge": 1, "g4ad.8xlarge": 2, "g4ad.16xlarge": 4},
    "azure": {
        "Standard_NV4as_v4": 1,
        "Standard_NV8as_v4": 1,
        "Standard_NV16as_v4": 1,
        "Standard_NV32as_v4": 1,
        "Standard_ND96isr_MI300X_v5": 8,
    },
    "gcp": {},
}
EXPECTED_GCP_ACCELERATORS = {
    "A100-40GB": "nvidia-tesla-a100",
    "A100-80GB": "nvidia-a100-80gb",
    "T4": "nvidia-tesla-t4",
    "L4": "nvidia-l4",
    "H100-80GB": "nvidia-h100-80gb",
    "H200-141GB": "nvidia-h200-141gb",
    "B200": "nvidia-b200",
    "GB200": "nvidia-gb200",
    "GB300": "nvidia-gb300",
    "RTX-PRO-6000": "nvidia-rtx-pro-6000",
    "V100": "nvidia-tesla-v100",
}


def _all_instance_types() -> list[InstanceType]:
    return [t for cloud in CLOUDS for t in instance_types(cloud)]


# ---------------------------------------------------------------------------------------------------- GPU models


def test_a100_80gb_1g_10gb_is_one_seventh_compute_and_one_eighth_memory() -> None:
    assert gpu_model("A100-80GB").mig_profiles["1g.10gb"] == MigProfile("1g.10gb", 7, 1, 1, 10, False)


def test_a100_40gb_1g_10gb_takes_two_memory_slices() -> None:
    assert gpu_model("A100-40GB").mig_profiles["1g.10gb"] == MigProfile("1g.10gb", 4, 1, 2, 10, False)


def test_media_extension_profile_is_flagged() -> None:
    assert gpu_model("H200-141GB").mig_profiles["1g.18gb+me"] == MigProfile("1g.18gb+me", 1, 1, 1, 18, True)


@pytest.mark.parametrize("name", sorted(EXPECTED_GPUS))
def test_gpu_model_facts(name: str) -> None:
    model = gpu_model(name)
    assert (model.name, model.vendor) == (name, "nvidia")
    assert (model.architecture, model.memory_gb, model.compute_capability) == EXPECTED_GPUS[name]


def test_gpu_models_are_exactly_the_expected_ones_sorted_by_name() -> None:
    assert [model.name for model in gpu_models()] == sorted(EXPECTED_GPUS)


@pytest.mark.parametrize("name", NOT_MIG_CAPABLE)
def test_gpus_without_mig_have_no_profiles_and_no_slices(name: str) -> None:
    model = gpu_model(name)
    assert model.mig_capable is False
    assert dict(model.mig_profiles) == {}
    assert (model.mig_compute_slices, model.mig_memory_slices) == (0, 0)


@pytest.mark.parametrize("name", sorted(EXPECTED_MIG))
def test_mig_profile_tables_match_the_mig_user_guide(name: str) -> None:
    model = gpu_model(name)
    assert model.mig_capable is True
    actual = {p.name: (p.max_instances, p.memory_slices) for p in model.mig_profiles.values()}
    assert actual == EXPECTED_MIG[name]
    assert list(model.mig_profiles) == list(EXPECTED_MIG[name])  # the guide's order


@pytest.mark.parametrize("name", sorted(EXPECTED_MIG))
def test_mig_profile_names_give_compute_slices_memory_and_media_extensions(name: str) -> None:
    for profile in gpu_model(name).mig_profiles.values():
        compute, rest = profile.name.split("g.", 1)
        memory, attribute = rest.split("gb", 1)
        assert profile.compute_slices == int(compute)
        assert profile.memory_gb == int(memory)
        assert profile.media_extensions == (attribute in ("+me", "+me.all"))


@pytest.mark.parametrize(
    ("name", "slices"),
    [("A30-24GB", (4, 4)), ("RTX-PRO-6000", (4, 4))]
    + [(n, (7, 8)) for n in sorted(EXPECTED_MIG) if n not in ("A30-24GB", "RTX-PRO-6000")],
)
def test_mig_slice_totals_per_gpu(name: str, slices: tuple[int, int]) -> None:
    model = gpu_model(name)
    assert (model.mig_compute_slices, model.mig_memory_slices) == slices


def test_mig_profiles_are_read_only_and_models_hashable() -> None:
    model = gpu_model("A100-80GB")
    with pytest.raises(TypeError):
        model.mig_profiles["9g.1gb"] = model.mig_profiles["1g.10gb"]  # type: ignore[index]
    assert hash(model) == hash(gpu_model("A100-80GB"))


def test_gpu_model_built_from_a_dict_is_frozen_too() -> None:
    model = GpuModel(
        "X", "nvidia", "Hopper", 1, (9, 0), {"7g.1gb": MigProfile("7g.1gb", 1, 7, 8, 1, False)}, "https://x"
    )
    assert (model.mig_compute_slices, model.mig_memory_slices) == (7, 8)
    with pytest.raises(TypeError):
        model.mig_profiles["1g.1gb"] = model.mig_profiles["7g.1gb"]  # type: ignore[index]


def test_unknown_gpu_model_raises_with_suggestions() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        gpu_model("A100-80G")
    error = caught.value
    assert (error.kind, error.key, error.cloud) == ("GPU model", "A100-80G", None)
    assert error.suggestions[0] == "A100-80GB"
    assert len(error.suggestions) <= 3
    assert error.source.startswith("https://")
    assert "'A100-80G'" in str(error) and "'A100-80GB'" in str(error)


def test_gpu_model_suggestions_ignore_case() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        gpu_model("h200-141gb")
    assert caught.value.suggestions[0] == "H200-141GB"


def test_catalog_lookup_error_survives_pickling() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        gcp_accelerator_type("A10G")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.kind, copy.key, copy.cloud, copy.suggestions, copy.source, str(copy)) == (
        caught.value.kind,
        caught.value.key,
        caught.value.cloud,
        caught.value.suggestions,
        caught.value.source,
        str(caught.value),
    )


def test_catalog_lookup_error_is_a_lookup_error() -> None:
    with pytest.raises(LookupError):
        gpu_model("nope")


# ------------------------------------------------------------------------------------------------ instance types


def test_p4d_24xlarge_fields() -> None:
    assert instance_type("aws", "p4d.24xlarge") == InstanceType(
        cloud="aws",
        name="p4d.24xlarge",
        gpu_vendor="nvidia",
        gpu_model="A100-40GB",
        gpu_count=8,
        cpu_architecture="x86_64",
        gpu_description="8 x NVIDIA A100 40GB",
        source="https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html",
        accelerator_type=None,
    )


@pytest.mark.parametrize("cloud", CLOUDS)
def test_nvidia_instance_types_match_the_sources(cloud: Cloud) -> None:
    actual = {t.name: (t.gpu_model, t.gpu_count) for t in instance_types(cloud) if t.gpu_vendor == "nvidia"}
    assert actual == EXPECTED_NVIDIA_TYPES[cloud]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_amd_instance_types_have_no_gpu_model(cloud: Cloud) -> None:
    amd = [t for t in instance_types(cloud) if t.gpu_vendor == "amd"]
    assert {t.name: t.gpu_count for t in amd} == EXPECTED_AMD_TYPES[cloud]
    assert all(t.gpu_model is None and "AMD" in t.gpu_description for t in amd)


@pytest.mark.parametrize("cloud", CLOUDS)
def test_instance_types_are_sorted_by_name(cloud: Cloud) -> None:
    names = [t.name for t in instance_types(cloud)]
    assert names == sorted(names)


def test_g5g_is_arm64_with_t4g() -> None:
    g5g = instance_type("aws", "g5g.16xlarge")
    assert (g5g.cpu_architecture, g5g.gpu_model, g5g.gpu_count) == ("arm64", "T4G", 2)


def test_only_g5g_and_the_grace_blackwell_hosts_are_arm64_among_gpu_types() -> None:
    arm = {t.name for t in _all_instance_types() if t.cpu_architecture == "arm64"}
    gb200 = {"p6e-gb200.36xlarge", "Standard_ND128isr_NDR_GB200_v6", "a4x-highgpu-4g"}
    gb300 = {"p6e-gb300.36xlarge", "Standard_ND128isr_GB300_v6", "a4x-maxgpu-4g-metal"}
    assert arm == {name for name in EXPECTED_NVIDIA_TYPES["aws"] if name.startswith("g5g.")} | gb200 | gb300


@pytest.mark.parametrize(
    ("cloud", "name", "accelerator", "source"),
    [
        ("aws", "p6e-gb300.36xlarge", None, "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"),
        (
            "azure",
            "Standard_ND128isr_GB300_v6",
            None,
            "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nd-gb300-v6-series",
        ),
        (
            "gcp",
            "a4x-maxgpu-4g-metal",
            "nvidia-gb300",
            "https://cloud.google.com/compute/docs/accelerator-optimized-machines",
        ),
    ],
)
def test_each_cloud_has_a_gb300_type_with_four_gpus_on_arm64(
    cloud: Cloud, name: str, accelerator: str | None, source: str
) -> None:
    gb300 = instance_type(cloud, name)
    assert (gb300.gpu_vendor, gb300.gpu_model, gb300.gpu_count, gb300.cpu_architecture) == (
        "nvidia",
        "GB300",
        4,
        "arm64",
    )
    assert (gb300.accelerator_type, gb300.source, gb300.gpu_description) == (
        accelerator,
        source,
        "4 x NVIDIA GB300 288GB",
    )


def test_g7e_carries_whole_rtx_pro_6000_gpus_on_x86_64() -> None:
    g7e = instance_type("aws", "g7e.12xlarge")
    assert (g7e.gpu_model, g7e.gpu_count, g7e.cpu_architecture) == ("RTX-PRO-6000", 2, "x86_64")
    assert g7e.gpu_description == "2 x NVIDIA RTX PRO 6000 Blackwell Server Edition 96GB"


@pytest.mark.parametrize(
    ("cloud", "name"),
    [
        # fractional SR-IOV (vGPU) sizes are left out: no GPU count describes them
        ("azure", "Standard_NC128ds_xl_RTXPRO6000BSE_v6"),
        # the AWS PCS guide names these beside the 36xlarge types; no AWS page gives their GPUs
        ("aws", "p6e-gb200.72xlarge"),
        ("aws", "p6e-gb300.72xlarge"),
    ],
)
def test_types_without_an_honest_gpu_count_are_unknown(cloud: Cloud, name: str) -> None:
    assert find_instance_type(cloud, name) is None


def test_g4ad_is_amd_radeon_pro_v520() -> None:
    g4ad = instance_type("aws", "g4ad.8xlarge")
    assert (g4ad.gpu_vendor, g4ad.gpu_model, g4ad.gpu_count) == ("amd", None, 2)
    assert g4ad.gpu_description == "2 x AMD Radeon Pro V520"


def test_azure_nvv4_is_a_fraction_of_an_mi25() -> None:
    nv4 = instance_type("azure", "Standard_NV4as_v4")
    assert (nv4.gpu_vendor, nv4.gpu_model, nv4.gpu_count) == ("amd", None, 1)
    assert nv4.gpu_description.startswith("1/8 of an AMD Radeon Instinct MI25")
    assert instance_type("azure", "Standard_NV32as_v4").gpu_description == "1 x AMD Radeon Instinct MI25"


def test_azure_mi300x_is_amd() -> None:
    mi300x = instance_type("azure", "Standard_ND96isr_MI300X_v5")
    assert (mi300x.gpu_vendor, mi300x.gpu_model, mi300x.gpu_count) == ("amd", None, 8)


def test_p3dn_is_filed_under_v100_but_says_32gb() -> None:
    p3dn = instance_type("aws", "p3dn.24xlarge")
    assert (p3dn.gpu_model, p3dn.gpu_description) == ("V100", "8 x NVIDIA V100 32GB")


def test_azure_nvads_a10_v5_is_not_listed() -> None:
    assert find_instance_type("azure", "Standard_NV36ads_A10_v5") is None


def test_every_instance_type_gpu_model_is_a_catalog_gpu_model() -> None:
    names = {model.name for model in gpu_models()}
    for t in _all_instance_types():
        if t.gpu_vendor == "nvidia":
            assert t.gpu_model in names, t.name
        else:
            assert t.gpu_model is None, t.name
        assert t.gpu_count >= 1, t.name


def test_every_entry_has_an_https_source() -> None:
    sources = [model.source for model in gpu_models()] + [t.source for t in _all_instance_types()]
    assert all(source.startswith("https://") and " " not in source for source in sources)
    non_gpu = [
        find_instance_type("aws", "m5.large"),
        find_instance_type("azure", "Standard_D4s_v5"),
        find_instance_type("gcp", "n1-standard-4"),
    ]
    assert all(t is not None and t.source.startswith("https://") for t in non_gpu)


def test_instance_type_names_and_clouds_are_consistent() -> None:
    for cloud in CLOUDS:
        for t in instance_types(cloud):
            assert t.cloud == cloud
            assert instance_type(cloud, t.name) is t


# ----------------------------------------------------------------------------------------------------------- GCP


def test_gcp_accelerator_type_values() -> None:
    assert {model: gcp_accelerator_type(model) for model in EXPECTED_GCP_ACCELERATORS} == EXPECTED_GCP_ACCELERATORS


@pytest.mark.parametrize("model", ["A10G", "L40S", "T4G", "A30-24GB", "H100-94GB"])
def test_gcp_accelerator_type_rejects_models_gcp_does_not_offer(model: str) -> None:
    with pytest.raises(CatalogLookupError) as caught:
        gcp_accelerator_type(model)
    error = caught.value
    assert (error.kind, error.key, error.cloud) == ("GPU model", model, "gcp")
    assert "not offered" in str(error)
    assert set(error.suggestions) <= set(EXPECTED_GCP_ACCELERATORS)


def test_gcp_accelerator_type_of_an_unknown_model_suggests_offered_ones() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        gcp_accelerator_type("A100-40G")
    assert caught.value.suggestions[0] == "A100-40GB"


def test_every_gcp_gpu_machine_type_names_its_accelerator_type() -> None:
    for t in instance_types("gcp"):
        expected = "nvidia-h100-mega-80gb" if t.name == "a3-megagpu-8g" else gcp_accelerator_type(t.gpu_model or "")
        assert t.accelerator_type == expected, t.name


def test_accelerator_type_is_gcp_only() -> None:
    clouds: tuple[Cloud, ...] = ("aws", "azure")
    assert all(t.accelerator_type is None for cloud in clouds for t in instance_types(cloud))


# ------------------------------------------------------------------------------------------------ non-GPU types


@pytest.mark.parametrize(
    ("cloud", "name", "architecture"),
    [
        ("aws", "m5.large", "x86_64"),
        ("aws", "t3.medium", "x86_64"),
        ("aws", "c7i.48xlarge", "x86_64"),
        ("aws", "m7i.metal-24xl", "x86_64"),
        ("aws", "m6g.xlarge", "arm64"),
        ("aws", "t4g.small", "arm64"),
        ("azure", "Standard_D4s_v5", "x86_64"),
        ("azure", "Standard_DS2_v2", "x86_64"),
        ("azure", "Standard_E64-32s_v3", "x86_64"),
        ("azure", "Standard_B2ms", "x86_64"),
        ("azure", "Standard_F8s_v2", "x86_64"),
        ("azure", "Standard_D4ps_v5", "arm64"),
        ("azure", "Standard_E8pds_v5", "arm64"),
        ("azure", "Standard_B2pts_v2", "arm64"),
        ("gcp", "e2-standard-4", "x86_64"),
        ("gcp", "n2d-highmem-8", "x86_64"),
        ("gcp", "c3-standard-4-lssd", "x86_64"),
        ("gcp", "t2a-standard-4", "arm64"),
        ("gcp", "n1-standard-8", "x86_64"),
    ],
)
def test_known_non_gpu_families(cloud: Cloud, name: str, architecture: str) -> None:
    found = find_instance_type(cloud, name)
    assert found is not None
    assert (found.cloud, found.name, found.gpu_vendor, found.gpu_model, found.gpu_count) == (
        cloud,
        name,
        "none",
        None,
        0,
    )
    assert found.cpu_architecture == architecture
    assert found.accelerator_type is None
    assert instance_type(cloud, name) == found


def test_m5_large_is_not_a_gpu_type() -> None:
    found = find_instance_type("aws", "m5.large")
    assert found is not None and found.gpu_vendor == "none"


@pytest.mark.parametrize(("name", "accelerator"), [("inf2.xlarge", "Inferentia"), ("trn1.32xlarge", "Trainium")])
def test_aws_ml_accelerators_are_not_gpus(name: str, accelerator: str) -> None:
    found = instance_type("aws", name)
    assert (found.gpu_vendor, found.gpu_count) == ("none", 0)
    assert f"AWS {accelerator}" in found.gpu_description


def test_gcp_n1_says_gpus_are_attached_separately() -> None:
    n1 = instance_type("gcp", "n1-standard-4")
    assert n1.gpu_vendor == "none"
    assert "attaches" in n1.gpu_description and "separately" in n1.gpu_description


@pytest.mark.parametrize(
    ("cloud", "name"),
    [
        ("aws", "m5.larg"),  # not an EC2 size
        ("aws", "x9.large"),  # unknown family
        ("aws", "m5"),
        ("azure", "Standard_NV36ads_A10_v5"),
        ("azure", "standard_d4s_v5"),  # names are case-sensitive
        ("gcp", "g2-standard-5"),
        ("gcp", "n2"),
    ],
)
def test_unknown_names_are_not_found(cloud: Cloud, name: str) -> None:
    assert find_instance_type(cloud, name) is None


def test_gpu_families_are_not_matched_as_non_gpu() -> None:
    assert find_instance_type("aws", "g5.3xlarge") is None
    assert find_instance_type("gcp", "a2-highgpu-3g") is None


def test_non_gpu_families_of_the_data_file_are_found() -> None:
    data = _data("instance_types.yaml")
    sample: dict[Cloud, str] = {"aws": "{}.large", "azure": "Standard_{}4s_v5", "gcp": "{}-standard-4"}
    for cloud in CLOUDS:
        for entry in data[cloud]["non_gpu_families"]:
            if entry.get("family_pattern"):
                continue
            for family in entry["families"]:
                found = find_instance_type(cloud, sample[cloud].format(family))
                assert found is not None and found.gpu_vendor == "none", (cloud, family)


# -------------------------------------------------------------------------------------------------- lookup errors


def test_instance_type_typo_raises_with_suggestions() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        instance_type("aws", "p4d.24xlarg")
    error = caught.value
    assert (error.kind, error.key, error.cloud) == ("instance type", "p4d.24xlarg", "aws")
    assert error.suggestions[0] == "p4d.24xlarge"
    assert error.source == "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
    message = str(error)
    assert "'p4d.24xlarg'" in message
    assert "'aws'" in message
    assert all(repr(suggestion) in message for suggestion in error.suggestions)


def test_instance_type_suggestions_fix_case() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        instance_type("azure", "standard_nc24ads_a100_v4")
    assert caught.value.suggestions[0] == "Standard_NC24ads_A100_v4"


def test_lookup_error_without_close_names_says_so() -> None:
    with pytest.raises(CatalogLookupError) as caught:
        instance_type("gcp", "zzzzzzzzzzzzzzzzzzzz")
    assert caught.value.suggestions == ()
    assert "no known instance type name is close" in str(caught.value)


@given(st.sampled_from([(t.cloud, t.name) for t in _all_instance_types()]), st.data())
def test_one_character_typos_get_known_suggestions(known: tuple[Cloud, str], data: st.DataObject) -> None:
    cloud, name = known
    index = data.draw(st.integers(min_value=0, max_value=len(name) - 1))
    typo = name[:index] + name[index + 1 :]
    if find_instance_type(cloud, typo) is not None:
        return  # the typo happens to be another known name
    with pytest.raises(CatalogLookupError) as caught:
        instance_type(cloud, typo)
    listed = {t.name for t in instance_types(cloud)}
    assert 1 <= len(caught.value.suggestions) <= 3
    assert set(caught.value.suggestions) <= listed
    assert repr(typo) in str(caught.value)


@pytest.mark.parametrize("call", [instance_types, lambda c: find_instance_type(c, "m5.large")])
def test_unknown_cloud_is_a_value_error(call: Any) -> None:
    with pytest.raises(ValueError, match="unknown cloud 'oci'"):
        call("oci")


# ---------------------------------------------------------------------------------------------- data validation


def _data(filename: str) -> Any:
    text = importlib.resources.files("gpu_components.catalog").joinpath("data", filename).read_text("utf-8")
    return yaml.safe_load(text)


def _parse(gpus: Any = None, types: Any = None) -> None:
    catalog._parse_catalog(
        yaml.safe_dump(gpus if gpus is not None else _data("gpus.yaml")),
        yaml.safe_dump(types if types is not None else _data("instance_types.yaml")),
    )


def test_shipped_data_parses() -> None:
    _parse()


def test_catalog_is_loaded_once() -> None:
    assert catalog._catalog() is catalog._catalog()


def test_missing_source_fails() -> None:
    gpus = _data("gpus.yaml")
    del gpus["gpus"]["T4"]["source"]
    with pytest.raises(ValueError, match=r"gpus\.T4\.source"):
        _parse(gpus=gpus)


def test_non_https_source_fails() -> None:
    types = _data("instance_types.yaml")
    types["aws"]["gpu_instance_types"][0]["source"] = "http://example.com"
    with pytest.raises(ValueError, match=r"aws\.gpu_instance_types\.0\.source"):
        _parse(types=types)


def test_unknown_key_fails() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["T4"]["memory"] = 16
    with pytest.raises(ValueError, match=r"gpus\.T4\.memory"):
        _parse(gpus=gpus)


def test_compute_capability_must_be_a_string() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["T4"]["compute_capability"] = 7.5
    with pytest.raises(ValueError, match=r"compute_capability"):
        _parse(gpus=gpus)


def test_duplicate_keys_fail() -> None:
    text = importlib.resources.files("gpu_components.catalog").joinpath("data", "instance_types.yaml")
    doubled = text.read_text("utf-8").replace("g5.xlarge: 1", "g5.xlarge: 1\n        g5.xlarge: 2", 1)
    gpus = importlib.resources.files("gpu_components.catalog").joinpath("data", "gpus.yaml").read_text("utf-8")
    with pytest.raises(ValueError, match=r"duplicate key 'g5\.xlarge'"):
        catalog._parse_catalog(gpus, doubled)


def test_profile_that_overfills_the_gpu_fails() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["A100-80GB"]["mig"]["profiles"]["1g.10gb"]["memory_slices"] = 2
    with pytest.raises(ValueError, match=r"1g\.10gb: 7 instances x 2 memory slices exceed the GPU's 8"):
        _parse(gpus=gpus)


def test_badly_named_profile_fails() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["B200"]["mig"]["profiles"]["1g23gb"] = {"max_instances": 1, "memory_slices": 1}
    with pytest.raises(ValueError, match="not a MIG profile name"):
        _parse(gpus=gpus)


def test_balanced_layout_with_a_profile_of_another_gpu_fails() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["GB300"]["mig"]["balanced"]["layout"] = {"1g.34gb": 2, "2g.70gb": 1, "3g.139gb": 1}
    with pytest.raises(ValueError, match=r"gpus\.GB300\.mig\.balanced\.layout: 1g\.34gb not among the GPU's profiles"):
        _parse(gpus=gpus)


def test_balanced_layout_that_overfills_the_gpu_fails() -> None:
    gpus = _data("gpus.yaml")
    gpus["gpus"]["B300"]["mig"]["balanced"]["layout"] = {"1g.34gb": 2, "2g.67gb": 1, "3g.135gb": 2}
    with pytest.raises(
        ValueError,
        match=r"gpus\.B300\.mig\.balanced\.layout: takes 10 compute and 12 memory slices of the GPU's 7 and 8",
    ):
        _parse(gpus=gpus)


def test_mig_block_without_a_balanced_layout_fails() -> None:
    gpus = _data("gpus.yaml")
    del gpus["gpus"]["H100-80GB"]["mig"]["balanced"]
    with pytest.raises(ValueError, match=r"gpus\.H100-80GB\.mig\.balanced"):
        _parse(gpus=gpus)


def test_unknown_gpu_model_in_instance_types_fails() -> None:
    types = _data("instance_types.yaml")
    types["aws"]["gpu_instance_types"][0]["gpu_model"] = "T5"
    with pytest.raises(ValueError, match="'T5' is not a GPU model"):
        _parse(types=types)


def test_gcp_gpu_type_without_accelerator_type_fails() -> None:
    types = _data("instance_types.yaml")
    del types["gcp"]["gpu_instance_types"][0]["accelerator_type"]
    with pytest.raises(ValueError, match="accelerator_type: required"):
        _parse(types=types)


def test_gpu_type_matched_by_a_non_gpu_family_fails() -> None:
    types = _data("instance_types.yaml")
    types["aws"]["non_gpu_families"][0]["families"].append("g5")
    with pytest.raises(ValueError, match=r"'g5\.xlarge' also matches non-GPU family g5"):
        _parse(types=types)


def test_every_problem_is_reported_at_once() -> None:
    types = _data("instance_types.yaml")
    types["aws"]["gpu_instance_types"][0]["gpu_model"] = "T5"
    types["azure"]["gpu_instance_types"][0]["gpu_model"] = "T6"
    with pytest.raises(ValueError, match="'T5'") as caught:
        _parse(types=types)
    assert "'T6'" in str(caught.value)
