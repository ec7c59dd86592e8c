"""The cloud-neutral rules of a provisioned pool (``provisioning``): each with its input and exact error parts."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import Disruption, GpuNodePoolSpec, Provisioning


def pool(provisioning: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A Karpenter pool of g6e.xlarge (one L40S) with a limit of 8 GPUs, changed by ``provisioning`` and ``fields``."""
    base: dict[str, Any] = {
        "name": "gpu",
        "instance_type": "g6e.xlarge",
        "provisioning": {"provisioner": "karpenter", "max_gpus": 8, **(provisioning or {})},
    }
    base.update(fields)
    return base


def problems_of(args: dict[str, Any], cloud: str = "aws") -> list[tuple[str, object, str, str | None]]:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]
    return [(p.path, p.value, p.message, p.valid) for p in caught.value.problems]


def test_a_provisioned_pool_resolves_its_families_limits_and_safe_defaults() -> None:
    spec = GpuNodePoolSpec.from_args(pool({"instance_families": ["g6e"], "max_gpus": 16}), "aws")
    assert spec.provisioning == Provisioning(
        provisioner="karpenter",
        instance_types=("g6e.xlarge",),
        instance_families=("g6e",),
        allowed_types=(
            "g6e.xlarge",
            "g6e.12xlarge",
            "g6e.16xlarge",
            "g6e.24xlarge",
            "g6e.2xlarge",
            "g6e.48xlarge",
            "g6e.4xlarge",
            "g6e.8xlarge",
        ),
        max_gpus=16,
        max_nodes=None,
        capacity_types=("on-demand",),
        reservation=None,
        disruption=Disruption(consolidation="when-empty", consolidate_after="10m", expire_after=None),
    )
    # no fixed node counts; the most nodes are as many g6e.xlarge (1 GPU) as 16 GPUs hold
    assert (spec.min_size, spec.desired_size, spec.max_size, spec.spot) == (0, 0, 16, False)


def test_spot_capacity_comes_from_the_pools_spot_or_the_capacity_types() -> None:
    spot = GpuNodePoolSpec.from_args(pool(spot=True), "aws")
    assert (spot.provisioning and spot.provisioning.capacity_types, spot.spot) == (("spot",), True)
    reserved = GpuNodePoolSpec.from_args(
        pool({"capacity_types": ["reserved", "on-demand"], "reservation": "cr-0123456789abcdef0", "max_nodes": 2}),
        "aws",
    )
    assert reserved.provisioning is not None
    assert (reserved.provisioning.capacity_types, reserved.provisioning.reservation, reserved.max_size) == (
        ("reserved", "on-demand"),
        "cr-0123456789abcdef0",
        2,
    )


@pytest.mark.parametrize(
    ("args", "cloud", "expected"),
    [
        pytest.param(
            pool({"provisioner": "compute-class"}),
            "aws",
            [
                (
                    "provisioning.provisioner",
                    "compute-class",
                    "not a provisioner of EKS",
                    "karpenter, eks-auto-mode",
                )
            ],
            id="a provisioner of another cloud",
        ),
        pytest.param(
            pool(max_size=3, min_size=1),
            "aws",
            [
                (
                    "min_size",
                    1,
                    "a provisioned pool has no fixed node counts: its provisioner creates nodes for pending pods "
                    "within provisioning.max_gpus / max_nodes",
                    None,
                ),
                (
                    "max_size",
                    3,
                    "a provisioned pool has no fixed node counts: its provisioner creates nodes for pending pods "
                    "within provisioning.max_gpus / max_nodes",
                    None,
                ),
            ],
            id="fixed node counts",
        ),
        pytest.param(
            {"name": "gpu", "instance_type": "g6e.xlarge", "provisioning": {"provisioner": "karpenter"}},
            "aws",
            [("provisioning.max_gpus", None, "a provisioned pool needs a limit: max_gpus, max_nodes or both", None)],
            id="no limit",
        ),
        pytest.param(
            pool({"instance_types": ["g6e.12xlarge"], "max_gpus": 2, "max_nodes": 0}),
            "aws",
            [
                ("provisioning.max_nodes", 0, "a pool needs room for one node", ">= 1"),
                (
                    "provisioning.max_gpus",
                    2,
                    "below one node of g6e.12xlarge (4 GPUs): the provisioner could never create such a node; raise "
                    "the limit or drop those types",
                    ">= 4",
                ),
            ],
            id="limits below one node",
        ),
        pytest.param(
            pool({"instance_types": ["g6.xlarge", "g6e.xlarge"]}),
            "aws",
            [
                (
                    "provisioning.instance_types[1]",
                    "g6e.xlarge",
                    "already allowed (the pool's instance_type or an earlier entry)",
                    None,
                )
            ],
            id="a type twice",
        ),
        pytest.param(
            pool({"instance_types": ["g6.xlarge", "g6.2xlarge"]}, time_slicing={"replicas": 2}),
            "aws",
            [
                (
                    "provisioning",
                    "g6.xlarge (L4), g6.2xlarge (L4)",
                    "time_slicing is set for one GPU model, the L40S of instance_type g6e.xlarge, and these types "
                    "have another: every node of the pool must have that model; make one pool per GPU model",
                    None,
                )
            ],
            id="sharing across GPU models",
        ),
        pytest.param(
            pool({"instance_families": ["p6e-gb200"], "max_gpus": 8}, instance_type="p6-b200.48xlarge"),
            "aws",
            [
                (
                    "provisioning",
                    "p6e-gb200.36xlarge (arm64)",
                    "a provisioned pool has one CPU architecture, its instance_type p6-b200.48xlarge's (x86_64): its "
                    "node image and tolerations follow it; make one pool per architecture",
                    None,
                )
            ],
            id="two CPU architectures",
        ),
        pytest.param(
            pool({"instance_families": ["g9"], "instance_types": ["m7i.large"]}),
            "aws",
            [
                (
                    "provisioning.instance_types[0]",
                    "m7i.large",
                    "not an NVIDIA GPU type (No GPU (general purpose)): a provisioned pool allows catalog NVIDIA aws "
                    "instance types only",
                    "NVIDIA GPU instance types, e.g. g4dn.12xlarge, g4dn.16xlarge, g4dn.2xlarge, g4dn.4xlarge "
                    "(59 in the catalog)",
                ),
                (
                    "provisioning.instance_families[0]",
                    "g9",
                    "unknown aws GPU instance family",
                    "g4dn, g5, g5g, g6, g6e, g7e, gr6, p3, p3dn, p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, "
                    "p6e-gb200, p6e-gb300",
                ),
            ],
            id="unknown family and a non-GPU type",
        ),
        pytest.param(
            pool(
                {"provisioner": "node-auto-provisioning", "instance_families": ["NC"]},
                instance_type="Standard_NC24ads_A100_v4",
            ),
            "azure",
            [
                (
                    "provisioning.instance_families[0]",
                    "NC",
                    "instance families are not named on azure: list the instance types",
                    "provisioning.instance_types",
                )
            ],
            id="families on azure",
        ),
        pytest.param(
            pool({"capacity_types": ["reserved", "reserved"]}, spot=True),
            "aws",
            [
                (
                    "spot",
                    True,
                    "a provisioned pool says its capacity in provisioning.capacity_types; give one, not both",
                    None,
                ),
                ("provisioning.capacity_types[1]", "reserved", "given twice", None),
                ("provisioning.reservation", None, "reserved capacity needs the reservation it comes from", None),
            ],
            id="reserved capacity without a reservation",
        ),
        pytest.param(
            pool({"reservation": "cr-1", "disruption": {"consolidate_after": "ten minutes", "expire_after": "30d"}}),
            "aws",
            [
                (
                    "provisioning.reservation",
                    "cr-1",
                    "a reservation is used only with reserved among capacity_types; add reserved or drop it",
                    None,
                ),
                (
                    "provisioning.disruption.consolidate_after",
                    "ten minutes",
                    "not a duration",
                    "digits with s, m or h, e.g. 10m, 1h30m",
                ),
                (
                    "provisioning.disruption.expire_after",
                    "30d",
                    "not a duration",
                    "digits with s, m or h, e.g. 720h, or Never",
                ),
            ],
            id="a reservation without reserved, bad durations",
        ),
        pytest.param(
            {"name": "gpu", "instance_type": "g6e.xlarge"},
            "aws",
            [
                (
                    "max_size",
                    None,
                    "required for a fixed node pool (most nodes); or make the pool provisioned with provisioning",
                    None,
                )
            ],
            id="a fixed pool without max_size",
        ),
    ],
)
def test_bad_provisioning_gets_exact_errors(
    args: dict[str, Any], cloud: str, expected: list[tuple[str, object, str, str | None]]
) -> None:
    assert problems_of(args, cloud) == expected


def test_every_problem_names_its_source_where_the_rule_has_one() -> None:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(pool({"provisioner": "compute-class"}), "aws")  # type: ignore[arg-type]
    [problem] = caught.value.problems
    assert isinstance(problem, Problem)
    assert problem.source == (
        "https://karpenter.sh/docs/concepts/nodepools/; https://docs.aws.amazon.com/eks/latest/userguide/automode.html"
    )
