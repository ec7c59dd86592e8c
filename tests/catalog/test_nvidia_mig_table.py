"""The catalog's MIG profiles against NVIDIA's own MIG table (GPU Operator v26.7.0 default mig-parted config).

The oracle is NVIDIA's file, copied unchanged into ``tests/reference`` (see its README): per profile the most
instances one GPU holds (uniform configs ``all-<profile>``) and per device group a balanced mixed layout
(``all-balanced``). Our catalog has no PCI device ids, so each catalog model is matched to the table by name: the
device id below is the one NVIDIA's PCI id list gives the part our instance types carry, and it must name exactly
one ``all-balanced`` group (whose YAML comment names the same GPU). The memory size is the one on NVIDIA's
"Supported GPUs" page of the MIG User Guide, not the catalog's; for the B300 and GB300, which that page does not list
yet, it is the memory of the table's full-GPU profile (``7g.269gb``, ``7g.278gb``).

Every catalog profile and NVIDIA's ``all-balanced`` layout of every MIG-capable catalog GPU is rendered by the
library's mig-parted renderer, checked against mig-parted's parser rules, and compared with NVIDIA's entry.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gpu_components import catalog
from gpu_components.errors import GpuSpecError
from gpu_components.nvidia.mig import mig_config_map
from gpu_components.spec import GpuNodePoolSpec
from tests.nvidia.mig_parted import mig_parted_problems
from tests.nvidia.nvidia_mig_table import (
    TABLE_BLOB,
    TABLE_PATH,
    balanced_groups,
    balanced_layout,
    git_blob_id,
    mig_configs,
    profile_size,
    uniform_counts,
)

# catalog model -> (PCI device id as mig-parted's device-filter spells it, NVIDIA's product, memory GB)
DEVICES: dict[str, tuple[str, str, int]] = {
    "A30-24GB": ("0x20B710DE", "A30", 24),
    "A100-40GB": ("0x20B010DE", "A100-SXM4-40GB", 40),  # p4d, ND96asr_v4, a2-highgpu
    "A100-80GB": ("0x20B210DE", "A100-SXM4-80GB", 80),  # p4de, a2-ultragpu; NC A100 v4's PCIe 0x20B5 is in its group
    "H100-80GB": ("0x233010DE", "H100-SXM5-80GB", 80),  # p5, ND H100 v5, a3
    "H100-94GB": ("0x232110DE", "H100 NVL", 94),  # NCads H100 v5
    "H200-141GB": ("0x233510DE", "H200-SXM5", 141),  # p5e/p5en, ND H200 v5, a3-ultragpu
    "B200": ("0x290110DE", "B200", 180),  # p6-b200, a4-highgpu
    "GB200": ("0x294110DE", "GB200", 186),  # p6e-gb200, a4x-highgpu, ND GB200 v6
    "B300": ("0x318210DE", "B300", 269),  # p6-b300; memory: the table's full-GPU profile 7g.269gb
    "GB300": ("0x31C210DE", "GB300", 278),  # memory: the table's full-GPU profile 7g.278gb
    "RTX-PRO-6000": ("0x2BB510DE", "RTX PRO 6000 Blackwell Server Edition", 96),  # g4-standard
}

# MIG geometry (MIG User Guide, "Supported MIG Profiles"): compute slices of a GPU -> compute slices of a profile ->
# the memory slices it may take. 7/8-slice GPUs: 1g takes 1 or 2 of 8, 2g 2, 3g and 4g 4, 7g all 8; the A30's
# 4/4: 1g 1, 2g 2, 4g all 4. It only decides which of the table's device-less configs belong to a GPU: a profile
# belongs when its memory is that of the slices it takes on that GPU (read from the GPU's balanced layout, and
# the GPU's memory for all slices).
GEOMETRY: dict[int, dict[int, tuple[int, ...]]] = {
    7: {1: (1, 2), 2: (2,), 3: (4,), 4: (4,), 7: (8,)},
    4: {1: (1,), 2: (2,), 4: (4,)},
}

# Table profiles of a GPU's sizes that the catalog leaves out, per model, with the reason. Most of the table's
# uniform configs carry no device filter, so another GPU's profile whose size coincides applies here too.
KNOWN_EXCEPTIONS: dict[str, dict[str, str]] = {
    "A100-40GB": {
        "1g.10gb+me": "the 80 GB parts' one-slice media profile; on the 40 GB A100 1g.10gb takes two memory "
        "slices and has no +me variant (MIG User Guide, A100 table: 1g.5gb+me only)",
    },
    "H100-94GB": {
        profile: "an RTX PRO 6000 Blackwell profile (four 24 GB slices; MIG User Guide, RTX PRO 6000 table), not an "
        "H100 NVL one, whose media profile is 1g.12gb+me"
        for profile in ("1g.24gb+me", "1g.24gb+gfx", "1g.24gb+me.all", "1g.24gb-me")
    },
    "H200-141GB": {
        "1g.35gb+me": "the GB300's one-slice media profile (the table's all-1g.35gb gives device 0x31C210DE, GB300, "
        "7 instances); on the H200 1g.35gb takes two memory slices and has no +me variant (MIG User Guide, H200 "
        "table: 1g.18gb+me only)",
    },
}

MIG_MODELS = sorted(DEVICES)


def _catalog_counts(model: str) -> dict[str, int]:
    return {p.name: p.max_instances for p in catalog.gpu_model(model).mig_profiles.values()}


def _compute_slices(model: str) -> int:
    """A GPU's compute slices, from the table: the count of its smallest 1g profile (its balanced layout's)."""
    device = DEVICES[model][0]
    (smallest,) = (p for p in balanced_layout(device) if profile_size(p)[0] == 1)
    return uniform_counts(device)[smallest]


def _memory_of_slices(model: str) -> dict[int, int]:
    """Memory slices -> GB on a GPU: 1, 2 and 4 slices from its balanced layout's 1g, 2g and 3g profiles (A30: 1g,
    2g), all slices from NVIDIA's memory size."""
    device, _, memory = DEVICES[model]
    geometry = GEOMETRY[_compute_slices(model)]
    sizes = {geometry[profile_size(p)[0]][0]: profile_size(p)[1] for p in balanced_layout(device)}
    return {**sizes, max(max(slices) for slices in geometry.values()): memory}


def _slices_of(model: str, profile: str) -> list[int]:
    """The memory slices ``profile`` may take on ``model`` whose memory is the profile's (none: not its size)."""
    compute, memory, _ = profile_size(profile)
    memory_of = _memory_of_slices(model)
    return [s for s in GEOMETRY[_compute_slices(model)].get(compute, ()) if memory_of.get(s) == memory]


def _table_profiles(model: str) -> dict[str, int]:
    """The table's profiles of a GPU's sizes (see :data:`GEOMETRY`) -> their counts."""
    return {p: n for p, n in uniform_counts(DEVICES[model][0]).items() if _slices_of(model, p)}


def _pool(model: str, mig: dict[str, Any]) -> GpuNodePoolSpec:
    """A pool of one GPU of ``model`` (an instance type the catalog does not list) with MIG settings ``mig``."""
    args: dict[str, Any] = {
        "name": "mig",
        "instance_type": "x9.custom",
        "gpu_model": model,
        "gpu_count": 1,
        "cpu_architecture": "x86_64",
        "max_size": 1,
        "mig": mig,
    }
    return GpuNodePoolSpec.from_args(args, "aws")


def _spec(model: str, layout: dict[str, int]) -> GpuNodePoolSpec:
    """A pool of one GPU of ``model`` with a MIG ``layout``."""
    return _pool(model, {"layout": layout, "strategy": "mixed" if len(layout) > 1 else "single"})


def _rendered(pool: GpuNodePoolSpec) -> dict[str, Any]:
    """The pool's mig-parted config, as mig-parted reads it, after checking it passes the parser's rules."""
    config: dict[str, Any] = yaml.safe_load(mig_config_map([pool])["config.yaml"])
    assert mig_parted_problems(config) == []
    return config


# ------------------------------------------------------------------------------------------------ the oracle itself


def test_reference_copy_is_the_upstream_blob() -> None:
    assert git_blob_id(TABLE_PATH.read_bytes()) == TABLE_BLOB


def test_every_mig_capable_catalog_model_is_matched_to_the_table() -> None:
    assert sorted(m.name for m in catalog.gpu_models() if m.mig_capable) == MIG_MODELS


@pytest.mark.parametrize("model", MIG_MODELS)
def test_device_id_names_exactly_one_balanced_group(model: str) -> None:
    device = DEVICES[model][0]
    assert sum(device in group for group in balanced_groups()) == 1


@pytest.mark.parametrize("model", MIG_MODELS)
def test_catalog_memory_is_nvidias(model: str) -> None:
    assert catalog.gpu_model(model).memory_gb == DEVICES[model][2]


# --------------------------------------------------------------------------------------------- catalog vs. table


@pytest.mark.parametrize("model", MIG_MODELS)
def test_each_catalog_profile_has_nvidias_count(model: str) -> None:
    ours = _catalog_counts(model)
    nvidia = uniform_counts(DEVICES[model][0])
    assert ours == {profile: nvidia.get(profile) for profile in ours}


@pytest.mark.parametrize("model", MIG_MODELS)
def test_each_table_profile_of_the_gpu_is_in_the_catalog(model: str) -> None:
    missing = {p: n for p, n in _table_profiles(model).items() if p not in _catalog_counts(model)}
    assert set(missing) == set(KNOWN_EXCEPTIONS.get(model, {}))


@pytest.mark.parametrize("model", MIG_MODELS)
def test_catalog_memory_slices_are_those_of_the_profiles_size(model: str) -> None:
    profiles = catalog.gpu_model(model).mig_profiles.values()
    assert {p.name: [p.memory_slices] for p in profiles} == {p.name: _slices_of(model, p.name) for p in profiles}


def test_memory_of_slices_is_read_from_the_table() -> None:
    assert _memory_of_slices("A100-40GB") == {1: 5, 2: 10, 4: 20, 8: 40}
    assert _memory_of_slices("H200-141GB") == {1: 18, 2: 35, 4: 71, 8: 141}
    assert _memory_of_slices("A30-24GB") == {1: 6, 2: 12, 4: 24}


@pytest.mark.parametrize("model", MIG_MODELS)
def test_catalog_slice_totals_are_the_tables(model: str) -> None:
    gpu = catalog.gpu_model(model)
    compute = _compute_slices(model)
    memory = max(max(slices) for slices in GEOMETRY[compute].values())
    assert (gpu.mig_compute_slices, gpu.mig_memory_slices) == (compute, memory)


@pytest.mark.parametrize("model", MIG_MODELS)
def test_balanced_layout_is_accepted_and_uses_every_compute_slice(model: str) -> None:
    layout = balanced_layout(DEVICES[model][0])
    assert sum(profile_size(p)[0] * n for p, n in layout.items()) == _compute_slices(model)
    spec = _spec(model, layout)
    assert spec.mig is not None and dict(spec.mig.devices) == layout


@pytest.mark.parametrize("model", MIG_MODELS)
def test_catalog_balanced_layout_is_nvidias_all_balanced_entry(model: str) -> None:
    gpu = catalog.gpu_model(model)
    assert dict(gpu.mig_balanced) == balanced_layout(DEVICES[model][0])
    assert gpu.mig_balanced_source == (
        "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/assets/state-mig-manager/0400_configmap.yaml"
    )


@pytest.mark.parametrize("model", ["B300", "GB300"])
def test_blackwell_ultra_tables_are_exactly_the_tables_profiles_of_the_gpu(model: str) -> None:
    # no exception: every table profile of the GPU's sizes is in the catalog with NVIDIA's count, and nothing else
    assert _catalog_counts(model) == _table_profiles(model)


def test_blackwell_ultra_tables_are_exact() -> None:
    # the four-way one-slice profile takes two memory slices: GB300 1g.70gb (not 1g.35gb, its seven-way slice)
    assert _table_profiles("GB300") == {
        "1g.35gb": 7,
        "1g.35gb+me": 1,
        "1g.70gb": 4,
        "2g.70gb": 3,
        "3g.139gb": 2,
        "4g.139gb": 1,
        "7g.278gb": 1,
    }
    assert _table_profiles("B300") == {
        "1g.34gb": 7,
        "1g.34gb+me": 1,
        "1g.67gb": 4,
        "2g.67gb": 3,
        "3g.135gb": 2,
        "4g.135gb": 1,
        "7g.269gb": 1,
    }


def test_table_profiles_of_one_gpu_are_exact() -> None:
    assert _table_profiles("H100-94GB") == {
        "1g.12gb": 7,
        "1g.12gb+me": 1,
        "1g.24gb": 4,
        "1g.24gb+me": 1,
        "1g.24gb+gfx": 4,
        "1g.24gb+me.all": 1,
        "1g.24gb-me": 4,
        "2g.24gb": 3,
        "3g.47gb": 2,
        "4g.47gb": 1,
        "7g.94gb": 1,
    }


# ------------------------------------------------------------------------------------- rendered configs vs. table


def _nvidia_entry(name: str, device: str) -> dict[str, Any]:
    """NVIDIA's entry of config ``name`` for GPUs of ``device``, without its device filter."""
    (entry,) = (e for e in mig_configs()[name] if device in e.get("device-filter", (device,)))
    return {key: value for key, value in entry.items() if key != "device-filter"}


@pytest.mark.parametrize(("model", "profile"), [(m, p) for m in MIG_MODELS for p in catalog.gpu_model(m).mig_profiles])
def test_every_uniform_profile_renders_nvidias_config(model: str, profile: str) -> None:
    pool = _pool(model, {"profile": profile})
    assert pool.mig is not None
    name = pool.mig.config_name
    assert _rendered(pool)["mig-configs"][name] == [_nvidia_entry(name, DEVICES[model][0])]


@pytest.mark.parametrize("model", MIG_MODELS)
def test_nvidias_balanced_layout_renders_as_nvidias_all_balanced_entry(model: str) -> None:
    device = DEVICES[model][0]
    pool = _spec(model, balanced_layout(device))
    assert pool.mig is not None
    assert _rendered(pool)["mig-configs"][pool.mig.config_name] == [_nvidia_entry("all-balanced", device)]


@pytest.mark.parametrize("model", MIG_MODELS)
def test_the_all_balanced_config_renders_nvidias_all_balanced_entry_under_its_name(model: str) -> None:
    pool = _pool(model, {"config": "all-balanced", "strategy": "mixed"})
    assert pool.mig is not None and pool.mig.config_name == "all-balanced"
    assert _rendered(pool)["mig-configs"]["all-balanced"] == [_nvidia_entry("all-balanced", DEVICES[model][0])]


def test_gb300_all_balanced_renders_exactly() -> None:
    rendered = _rendered(_pool("GB300", {"config": "all-balanced", "strategy": "mixed"}))["mig-configs"]
    assert rendered["all-balanced"] == [
        {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.35gb": 2, "2g.70gb": 1, "3g.139gb": 1}}
    ]


def test_uniform_blackwell_renders_are_exact() -> None:
    b200 = _rendered(_pool("B200", {"profile": "1g.23gb"}))["mig-configs"]["all-1g.23gb"]
    assert b200 == [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.23gb": 7}}]
    gb300 = _rendered(_pool("GB300", {"profile": "1g.35gb"}))["mig-configs"]["all-1g.35gb"]
    assert gb300 == [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.35gb": 7}}]
    gb300_four = _rendered(_pool("GB300", {"profile": "1g.70gb"}))["mig-configs"]["all-1g.70gb"]
    assert gb300_four == [{"devices": "all", "mig-enabled": True, "mig-devices": {"1g.70gb": 4}}]
    rtx = _rendered(_pool("RTX-PRO-6000", {"profile": "2g.48gb+me.all"}))["mig-configs"]["all-2g.48gb.me.all"]
    assert rtx == [{"devices": "all", "mig-enabled": True, "mig-devices": {"2g.48gb+me.all": 1}}]


# ------------------------------------------------------------------------------------ generated layouts vs. table


@given(st.sampled_from(MIG_MODELS), st.data())
def test_uniform_layout_is_accepted_exactly_up_to_nvidias_count(model: str, data: st.DataObject) -> None:
    table = uniform_counts(DEVICES[model][0])
    profile = data.draw(st.sampled_from(sorted(_catalog_counts(model))))
    count = data.draw(st.integers(min_value=1, max_value=table[profile] + 3))
    if count <= table[profile]:
        spec = _spec(model, {profile: count})
        assert spec.mig is not None and dict(spec.mig.devices) == {profile: count}
    else:
        with pytest.raises(GpuSpecError) as caught:
            _spec(model, {profile: count})
        assert [(p.path, p.valid) for p in caught.value.problems] == [
            (f"mig.layout[{profile!r}]", f"1..{table[profile]}")
        ]


@given(st.sampled_from(MIG_MODELS), st.data())
def test_every_part_of_nvidias_balanced_layout_is_accepted(model: str, data: st.DataObject) -> None:
    balanced = balanced_layout(DEVICES[model][0])
    part = {p: data.draw(st.integers(min_value=0, max_value=n)) for p, n in sorted(balanced.items())}
    part = {p: n for p, n in part.items() if n}
    if part:
        spec = _spec(model, part)
        assert spec.mig is not None and dict(spec.mig.devices) == part


@given(st.sampled_from(MIG_MODELS), st.data())
def test_nvidias_balanced_layout_plus_any_instance_is_rejected(model: str, data: st.DataObject) -> None:
    balanced = balanced_layout(DEVICES[model][0])
    extra = data.draw(st.sampled_from(sorted(_catalog_counts(model))))
    layout = {**balanced, extra: balanced.get(extra, 0) + 1}
    with pytest.raises(GpuSpecError) as caught:
        _spec(model, layout)
    # a layout that no longer fits may also break a media-engine rule (both at mig.layout)
    assert {p.path for p in caught.value.problems} in ({"mig.layout"}, {f"mig.layout[{extra!r}]"})
