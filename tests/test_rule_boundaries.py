"""Every numeric boundary of the pool rules, tested on both sides of its edge (issue 31).

Each row is one rule's edge, written from the rule's source (the constant and the page it cites): the value on the
edge is accepted, the value one step past it is refused with the exact problem (path, value, message, valid values
and source), so a rule that moves its edge by one, compares the wrong way or loses its message fails a row. The rows
run through the spec (what every entry point calls), and through a stack config and ``GpuCluster``, where the same
rules must reach the user with the pool's path.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.cli import main
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import (
    MAX_DISK_SIZE_GB,
    MAX_POOL_NAME_LENGTH,
    MIN_DISK_SIZE_GB,
    MIN_SHARING_REPLICAS,
    MPS_MAX_CLIENTS,
    MPS_MAX_CLIENTS_BELOW_7_5,
    SOURCE_DISK_SIZE,
    SOURCE_LABELS,
    SOURCE_MIG,
    SOURCE_MIG_MEDIA,
    SOURCE_MPS_CLIENTS,
    SOURCE_NAMES,
    SOURCE_SHARING,
    GpuNodePoolSpec,
)
from tests.helpers import ROOT, WIRING, copy_example_project, plan_of

AWS = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
"""A10G, compute capability 8.6."""
T4 = {**AWS, "instance_type": "g4dn.xlarge"}
"""T4, compute capability 7.5: the MPS client limit's edge itself."""
V100 = {**AWS, "instance_type": "p3.2xlarge"}
"""V100, compute capability 7.0, below the edge."""
A100 = {**AWS, "instance_type": "p4d.24xlarge"}
"""A100-40GB: 7 compute and 8 memory MIG slices."""
AKS = {"name": "gpu", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 3}
GKE = {"name": "gpu", "instance_type": "g2-standard-4", "max_size": 3}

LABEL_VALUE_VALID = "<= 63 chars: alphanumerics, '-', '_', '.', starting and ending alphanumeric (or empty)"
LABEL_KEY_VALID = "[DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.')"
PREFIX_253 = ".".join(["a" * 63] * 3 + ["a" * 61])
"""A DNS subdomain of exactly 253 characters (four labels of at most 63)."""
DISK = "node disk size (GiB) out of range: at least EKS's default node disk, at most an MBR boot volume"
MPS_SOURCE = SOURCE_MPS_CLIENTS


@dataclass(frozen=True)
class Edge:
    """One rule's edge: ``at`` (accepted) and ``past`` (refused with ``problem``), both full pools on ``cloud``;
    ``in_stack`` false for an edge whose pools need a GPU stack the example stack does not run (MIG on EKS needs the
    GPU Operator or Bottlerocket: tests/test_mig.py covers those entry points)."""

    rule: str
    cloud: str
    at: dict[str, Any]
    past: dict[str, Any]
    problem: Problem
    in_stack: bool = field(default=True)


def _mig(layout: dict[str, int]) -> dict[str, Any]:
    return {**A100, "mig": {"layout": layout, "strategy": "mixed"}}


def _mig_edge(rule: str, at: dict[str, int], past: dict[str, int], problem: Problem) -> Edge:
    return Edge(rule, "aws", _mig(at), _mig(past), problem, in_stack=False)


EDGES = [
    Edge(
        "pool name: a DNS-1123 label of at most MAX_POOL_NAME_LENGTH (50)",
        "aws",
        {**AWS, "name": "a" * MAX_POOL_NAME_LENGTH},
        {**AWS, "name": "a" * (MAX_POOL_NAME_LENGTH + 1)},
        Problem(
            "name",
            "a" * 51,
            "pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels",
            "1-50 lowercase letters, digits or '-', starting and ending alphanumeric",
            SOURCE_NAMES,
        ),
    ),
    Edge(
        "AKS node pool name: at most 12 characters (Linux pools)",
        "azure",
        {**AKS, "name": "a" * 12},
        {**AKS, "name": "a" * 13},
        Problem(
            "name",
            "a" * 13,
            "not a valid azure node pool name",
            "1-12 lowercase letters or digits, starting with a letter (Linux node pools)",
            "https://learn.microsoft.com/azure/aks/create-node-pools#limitations",
        ),
    ),
    Edge(
        "GKE node pool name: at most 40 characters",
        "gcp",
        {**GKE, "name": "a" * 40},
        {**GKE, "name": "a" * 41},
        Problem(
            "name",
            "a" * 41,
            "not a valid gcp node pool name",
            "1-40 lowercase letters, digits or '-', starting with a letter and not ending with '-'",
            "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools",
        ),
    ),
    Edge(
        "label value: at most 63 characters",
        "aws",
        {**AWS, "labels": {"team": "v" * 63}},
        {**AWS, "labels": {"team": "v" * 64}},
        Problem("labels['team']", "v" * 64, "not a valid label value", LABEL_VALUE_VALID, SOURCE_LABELS),
    ),
    Edge(
        "label key name: at most 63 characters",
        "aws",
        {**AWS, "labels": {"k" * 63: "v"}},
        {**AWS, "labels": {"k" * 64: "v"}},
        Problem(f"labels[{'k' * 64!r}]", "k" * 64, "not a valid qualified name", LABEL_KEY_VALID, SOURCE_LABELS),
    ),
    Edge(
        "label key prefix: a DNS subdomain of at most 253 characters",
        "aws",
        {**AWS, "labels": {f"{PREFIX_253}/k": "v"}},
        {**AWS, "labels": {f"{PREFIX_253}a/k": "v"}},
        Problem(
            f"labels[{PREFIX_253 + 'a/k'!r}]",
            f"{PREFIX_253}a/k",
            "not a valid qualified name",
            LABEL_KEY_VALID,
            SOURCE_LABELS,
        ),
    ),
    Edge(
        "taint value: a label value, at most 63 characters",
        "aws",
        {**AWS, "taints": [{"key": "team", "value": "v" * 63, "effect": "NoSchedule"}]},
        {**AWS, "taints": [{"key": "team", "value": "v" * 64, "effect": "NoSchedule"}]},
        Problem("taints[0].value", "v" * 64, "not a valid label value", LABEL_VALUE_VALID, SOURCE_LABELS),
    ),
    Edge(
        "node disk: at least MIN_DISK_SIZE_GB (20 GiB)",
        "aws",
        {**AWS, "disk_size_gb": MIN_DISK_SIZE_GB},
        {**AWS, "disk_size_gb": MIN_DISK_SIZE_GB - 1},
        Problem("disk_size_gb", 19, DISK, "20..2048 (default 100)", SOURCE_DISK_SIZE),
    ),
    Edge(
        "node disk: at most MAX_DISK_SIZE_GB (2048 GiB)",
        "aws",
        {**AWS, "disk_size_gb": MAX_DISK_SIZE_GB},
        {**AWS, "disk_size_gb": MAX_DISK_SIZE_GB + 1},
        Problem("disk_size_gb", 2049, DISK, "20..2048 (default 100)", SOURCE_DISK_SIZE),
    ),
    Edge(
        "time-slicing replicas: at least MIN_SHARING_REPLICAS (2)",
        "aws",
        {**AWS, "time_slicing": {"replicas": MIN_SHARING_REPLICAS}},
        {**AWS, "time_slicing": {"replicas": MIN_SHARING_REPLICAS - 1}},
        Problem("time_slicing.replicas", 1, "the device plugin requires at least 2 replicas", ">= 2", SOURCE_SHARING),
    ),
    Edge(
        "MPS replicas: at most MPS_MAX_CLIENTS (48) from compute capability 7.5 (A10G, 8.6)",
        "aws",
        {**AWS, "mps": {"replicas": MPS_MAX_CLIENTS}},
        {**AWS, "mps": {"replicas": MPS_MAX_CLIENTS + 1}},
        Problem(
            "mps.replicas",
            49,
            "MPS replicas must be at least 2 and at most the MPS client limit of compute capability 8.6 of A10G",
            "2..48",
            MPS_SOURCE,
        ),
    ),
    Edge(
        "MPS replicas: compute capability 7.5 itself (T4) takes MPS_MAX_CLIENTS (48)",
        "aws",
        {**T4, "mps": {"replicas": MPS_MAX_CLIENTS}},
        {**T4, "mps": {"replicas": MPS_MAX_CLIENTS + 1}},
        Problem(
            "mps.replicas",
            49,
            "MPS replicas must be at least 2 and at most the MPS client limit of compute capability 7.5 of T4",
            "2..48",
            MPS_SOURCE,
        ),
    ),
    Edge(
        "MPS replicas: at most MPS_MAX_CLIENTS_BELOW_7_5 (16) below compute capability 7.5 (V100, 7.0)",
        "aws",
        {**V100, "mps": {"replicas": MPS_MAX_CLIENTS_BELOW_7_5}},
        {**V100, "mps": {"replicas": MPS_MAX_CLIENTS_BELOW_7_5 + 1}},
        Problem(
            "mps.replicas",
            17,
            "MPS replicas must be at least 2 and at most the MPS client limit of compute capability 7.0 of V100",
            "2..16",
            MPS_SOURCE,
        ),
    ),
    Edge(
        "MPS replicas: at least MIN_SHARING_REPLICAS (2)",
        "aws",
        {**AWS, "mps": {"replicas": MIN_SHARING_REPLICAS}},
        {**AWS, "mps": {"replicas": MIN_SHARING_REPLICAS - 1}},
        Problem(
            "mps.replicas",
            1,
            "MPS replicas must be at least 2 and at most the MPS client limit of compute capability 8.6 of A10G",
            "2..48",
            MPS_SOURCE,
        ),
    ),
    Edge(
        "min_size: at least 0",
        "aws",
        {**AWS, "min_size": 0},
        {**AWS, "min_size": -1},
        Problem("min_size", -1, "must not be negative", ">= 0"),
    ),
    Edge(
        "max_size: at least 1",
        "aws",
        {**AWS, "max_size": 1},
        {**AWS, "max_size": 0},
        Problem("max_size", 0, "a pool needs room for at least one node", ">= 1"),
    ),
    Edge(
        "desired_size: at most max_size",
        "aws",
        {**AWS, "desired_size": 3},
        {**AWS, "desired_size": 4},
        Problem(
            "desired_size",
            4,
            "node counts must satisfy min_size <= desired_size <= max_size (min_size=0, max_size=3)",
            "0..3",
        ),
    ),
    Edge(
        "desired_size: at least min_size",
        "aws",
        {**AWS, "min_size": 2, "desired_size": 2},
        {**AWS, "min_size": 2, "desired_size": 1},
        Problem(
            "desired_size",
            1,
            "node counts must satisfy min_size <= desired_size <= max_size (min_size=2, max_size=3)",
            "2..3",
        ),
    ),
    Edge(
        "EKS managed node group: at most 450 nodes",
        "aws",
        {**AWS, "max_size": 450},
        {**AWS, "max_size": 451},
        Problem(
            "max_size",
            451,
            "more nodes than one EKS node pool may have; split the pool",
            "<= 450",
            "https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html",
        ),
    ),
    Edge(
        "AKS node pool: at most 1000 nodes",
        "azure",
        {**AKS, "max_size": 1000},
        {**AKS, "max_size": 1001},
        Problem(
            "max_size",
            1001,
            "more nodes than one AKS node pool may have; split the pool",
            "<= 1000",
            "https://learn.microsoft.com/azure/aks/quotas-skus-regions",
        ),
    ),
    _mig_edge(
        "MIG layout: at most the GPU's memory slices (A100-40GB: 8), compute within its 7",
        {"3g.20gb": 2},
        {"3g.20gb": 2, "1g.5gb": 1},
        Problem(
            "mig.layout",
            {"3g.20gb": 2, "1g.5gb": 1},
            "the layout does not fit one A100-40GB: it needs 7 compute and 9 memory slices of 7 and 8",
            "at most 7 compute and 8 memory slices",
            SOURCE_MIG,
        ),
    ),
    _mig_edge(
        "MIG layout: at most the GPU's compute slices (A100-40GB: 7), memory within its 8",
        {"4g.20gb": 1, "3g.20gb": 1},
        {"4g.20gb": 1, "2g.10gb": 2},
        Problem(
            "mig.layout",
            {"4g.20gb": 1, "2g.10gb": 2},
            "the layout does not fit one A100-40GB: it needs 8 compute and 8 memory slices of 7 and 8",
            "at most 7 compute and 8 memory slices",
            SOURCE_MIG,
        ),
    ),
    _mig_edge(
        "MIG layout: at most the profile's instances per GPU (1g.5gb on A100-40GB: 7)",
        {"1g.5gb": 7},
        {"1g.5gb": 8},
        Problem("mig.layout['1g.5gb']", 8, "A100-40GB holds at most 7 instances of 1g.5gb", "1..7", SOURCE_MIG_MEDIA),
    ),
]


def _problems(pool: dict[str, Any], cloud: str) -> list[Problem]:
    try:
        GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    except GpuSpecError as error:
        return list(error.problems)
    return []


@pytest.mark.parametrize("edge", EDGES, ids=[edge.rule for edge in EDGES])
def test_the_edge_is_accepted_and_one_step_past_it_is_refused(edge: Edge) -> None:
    assert _problems(edge.at, edge.cloud) == []
    assert _problems(edge.past, edge.cloud) == [edge.problem]


STACKS = {"aws": "aws-eks", "azure": "azure-aks", "gcp": "gcp-gke"}


def _named(pool: dict[str, Any], name: str) -> dict[str, Any]:
    """``pool`` under ``name`` unless its own name is the edge being tested."""
    return pool if pool["name"] != "gpu" else {**pool, "name": name}


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_a_stack_config_reports_each_edge_past_at_its_pool(cloud: str, tmp_path: Path) -> None:
    """All of a cloud's refused values in one stack config: each reaches the user at ``pools[i]`` with the same
    problem, and the pools on the edge after them add none."""
    edges = [edge for edge in EDGES if edge.cloud == cloud and edge.in_stack]
    pools = [_named(edge.past, f"past{i}") for i, edge in enumerate(edges)]
    pools += [_named(edge.at, f"at{i}") for i, edge in enumerate(edges)]
    project = copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{STACKS[cloud]}.yaml").read_text())
    stack["config"]["gpu-components:pools"] = pools
    (project / "stacks" / f"Pulumi.{STACKS[cloud]}.yaml").write_text(yaml.safe_dump(stack, sort_keys=False))
    result = CliRunner().invoke(main, ["plan", STACKS[cloud], "--cwd", str(project)])
    assert result.exit_code == 1, result.output
    reported = [line.removeprefix("  - ") for line in result.output.splitlines() if line.startswith("  - ")]
    assert reported == [
        str(Problem(f"pools[{i}].{edge.problem.path}", *dataclasses.astuple(edge.problem)[1:]))
        for i, edge in enumerate(edges)
    ]


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_gpu_cluster_reports_each_edge_past_at_its_pool(cloud: str) -> None:
    """The same pools given to ``GpuCluster``: the same problems, at ``pools[i]``, before any resource."""
    edges = [edge for edge in EDGES if edge.cloud == cloud and edge.in_stack]
    pools = [_named(edge.past, f"past{i}") for i, edge in enumerate(edges)]
    pools += [_named(edge.at, f"at{i}") for i, edge in enumerate(edges)]
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", {"cloud": cloud, "pools": pools, cloud: WIRING[cloud]}))
    assert list(error.value.problems) == [
        Problem(f"pools[{i}].{edge.problem.path}", *dataclasses.astuple(edge.problem)[1:])
        for i, edge in enumerate(edges)
    ]
