"""mig-parted configs: exact renders for uniform and mixed layouts, each checked against mig-parted's parser rules."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_components import catalog
from gpu_components.errors import GpuSpecError
from gpu_components.nvidia.mig import (
    ALL_DISABLED,
    mig_config_map,
    mig_config_problems,
    mig_node_labels,
    mig_parted_config,
)
from gpu_components.spec import GpuNodePoolSpec
from tests.nvidia.mig_parted import mig_parted_problems


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
    # The profile as written, not the config name or the per-GPU counts derived from it (those are in the message).
    assert [str(p) for p in problems] == [
        "pools[1].mig.profile: pools[0] (A100-80GB) has it too, with 7 x 1g.10gb per GPU, and here (A100-40GB) it "
        "is 4 x 1g.10gb; both select the mig-parted config 'all-1g.10gb' (node label nvidia.com/mig.config), and "
        "one mig-parted config name can hold only one layout for all GPUs (got '1g.10gb'); valid: the same layout, "
        "or a mig.layout for one of the pools (its config is then custom-<pool>) "
        "[source: https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go]"
    ]
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
