"""The benchmark script's child modes run (a tiny fleet and a bare replay), so `make bench` cannot rot unnoticed."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_plan", ROOT / "benchmarks" / "bench_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fleet_has_n_pools_per_cloud_and_replays_bare_through_sdk_classes(bench: ModuleType, tmp_path: Path) -> None:
    plan_file = tmp_path / "fleet-2.json"

    report = bench._child_fleet(bench._fleet_argument(2, ["aws", "azure", "gcp"], plan_file))

    assert report["clouds"] == ["aws", "azure", "gcp"]
    assert report["notes"] == []
    document = json.loads(plan_file.read_text())
    pools = Counter(
        r["type"] for r in document["resources"] if r["type"].endswith("GpuNodeGroup") or "GpuNodePool" in r["type"]
    )
    assert pools == {
        "gpu-components:index:EksGpuNodeGroup": 2,
        "gpu-components:index:AksGpuNodePool": 2,
        "gpu-components:index:GkeGpuNodePool": 2,
    }
    jobs = sorted(r["name"] for r in document["resources"] if r["type"] == "kubernetes:batch/v1:Job")
    assert jobs == [f"{prefix}{i}-vectoradd" for prefix in ("aks", "eks", "gke") for i in (1, 2)]

    bare = bench._child_bare(str(plan_file))

    ours = [r for r in document["resources"] if r["type"].startswith("gpu-components:")]
    assert bare["resources"] == len(document["resources"]) - len(ours)
    assert bare["typed"] == bare["resources"]
