"""The pool's node disk (``disk_size_gb``): its default, its range on the boundaries, and its type."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.errors import GpuSpecError
from gpu_components.spec import DEFAULT_DISK_SIZE_GB, GpuNodePoolSpec


def pool(**fields: Any) -> dict[str, Any]:
    return {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1, **fields}


def test_default_is_100_gib() -> None:
    assert DEFAULT_DISK_SIZE_GB == 100
    assert GpuNodePoolSpec.from_args(pool(), "aws").disk_size_gb == 100


@pytest.mark.parametrize("size", [20, 2048])
def test_range_ends_are_accepted(size: int) -> None:
    assert GpuNodePoolSpec.from_args(pool(disk_size_gb=size), "aws", "pools[0]").disk_size_gb == size


@pytest.mark.parametrize("size", [19, 2049, 0, -100])
def test_sizes_outside_the_range_are_rejected(size: int) -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool(disk_size_gb=size), "aws", "pools[0]")
    [problem] = error.value.problems
    assert (problem.path, problem.value, problem.valid) == ("pools[0].disk_size_gb", size, "20..2048 (default 100)")
    assert (
        problem.message
        == "node disk size (GiB) out of range: at least EKS's default node disk, at most an MBR boot volume"
    )


@pytest.mark.parametrize("size", [100.0, "100", True])
def test_a_size_is_a_whole_number(size: object) -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool(disk_size_gb=size), "aws")
    [problem] = error.value.problems
    assert (problem.path, problem.value) == ("disk_size_gb", size)
