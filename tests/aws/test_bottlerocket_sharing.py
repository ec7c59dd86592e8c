"""gpu_components.aws.user_data.sharing_settings: what Bottlerocket user data sets, read back for the policy pack."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from gpu_components.aws import bottlerocket, user_data
from gpu_components.spec import GpuNodePoolSpec


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "aws")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "strategy"),
    [({"time_slicing": {"replicas": 4}}, "time-slicing"), ({"mps": {"replicas": 4}}, "mps"), ({}, "none")],
)
def test_the_strategy_the_renderer_writes_reads_back_as_text_and_base64(fields: dict[str, Any], strategy: str) -> None:
    text = bottlerocket.user_data(spec(**fields))
    assert user_data.sharing_settings(text) == (strategy, {})
    assert user_data.sharing_settings(base64.b64encode(text.encode()).decode()) == (strategy, {})
    assert (strategy in user_data.SHARING_STRATEGIES) is bool(fields)


def test_node_labels_are_read_from_the_kubernetes_settings() -> None:
    text = '[settings.kubernetes.node-labels]\n"team" = "ml"\n'
    assert user_data.sharing_settings(text) == (None, {"team": "ml"})


@pytest.mark.parametrize("value", [None, "", 3, "not toml [", "bm90IHRvbWwgWw=="])
def test_anything_but_toml_user_data_sets_nothing(value: object) -> None:
    assert user_data.sharing_settings(value) == (None, {})
