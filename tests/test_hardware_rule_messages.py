"""The exact problems of the hardware rules (gpu_components/spec/hardware.py; issue 31): every part of each message.

Each row is one pool and the whole list of problems the spec gives it: path, the value got, the message, the valid
values and the source cited, written from the rule and the page it cites (the catalog entry's page for instance
types, NVIDIA's MIG User Guide for MIG). Rows come in pairs across each condition of a rule (a catalog type whose
field agrees and one whose field does not; a cloud that attaches GPUs to CPU machine types and one that does not), so
a rule that loses a field of its message, compares the wrong way or checks the wrong key fails a row.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import pytest

from gpu_components import catalog
from gpu_components.cloud_facts import facts_for
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import SOURCE_MIG, GpuNodePoolSpec, Mig, parse_pools

AWS = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
GCP = {"name": "gpu", "instance_type": "g2-standard-4", "max_size": 3}
UNLISTED = {"name": "gpu", "instance_type": "x9.gpu", "max_size": 3, "cpu_architecture": "x86_64", "gpu_count": 1}
"""An instance type the catalog does not list: the pool gives its GPUs itself."""

AWS_ACCELERATED = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
AWS_GENERAL = "https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html"
GCP_GPUS = "https://cloud.google.com/compute/docs/gpus"
N1 = (
    "No built-in GPU: GKE attaches NVIDIA GPUs (nvidia-tesla-t4, nvidia-tesla-v100) to N1 machine types separately, "
    "as guest accelerators with their own type and count"
)


def _examples(cloud: str) -> str:
    """The valid values of a refused instance type: the first four NVIDIA types of the catalog and how many it has."""
    names = [t.name for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia"]  # type: ignore[arg-type]
    return f"NVIDIA GPU instance types, e.g. {', '.join(names[:4])} ({len(names)} in the catalog)"


def _unknown(cloud: str, missing: str) -> str:
    return (
        f"unknown {cloud} instance type (closest known names under valid); for a type the catalog does not list, "
        f"also give {missing}"
    )


def _disagrees(name: str) -> str:
    return f"disagrees with the catalog entry of {name}"


@dataclass(frozen=True)
class Row:
    case: str
    cloud: str
    pool: dict[str, Any]
    problems: list[Problem]


GPU_COUNT_ABOVE_0 = {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}


def _problems(pool: dict[str, Any], cloud: str) -> list[Problem]:
    try:
        GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    except GpuSpecError as error:
        return list(error.problems)
    return []


HARDWARE = [
    Row("a catalog type's own CPU architecture", "aws", {**AWS, "cpu_architecture": "x86_64"}, []),
    Row(
        "a catalog type's CPU architecture written otherwise",
        "aws",
        {**AWS, "cpu_architecture": "arm64"},
        [Problem("cpu_architecture", "arm64", _disagrees("g5.xlarge"), "'x86_64'", AWS_ACCELERATED)],
    ),
    Row(
        "a catalog type's GPU count written otherwise",
        "aws",
        {**AWS, "gpu_count": 2},
        [Problem("gpu_count", 2, _disagrees("g5.xlarge"), "1", AWS_ACCELERATED)],
    ),
    Row("a catalog type's GPU model by its short name", "aws", {**AWS, "gpu_model": "A10G"}, []),
    Row(
        "a catalog type's GPU model written otherwise",
        "aws",
        {**AWS, "gpu_model": "L4"},
        [Problem("gpu_model", "L4", _disagrees("g5.xlarge"), "'A10G'", AWS_ACCELERATED)],
    ),
    Row(
        "an AMD GPU type",
        "aws",
        {**AWS, "instance_type": "g4ad.2xlarge"},
        [
            Problem(
                "instance_type",
                "g4ad.2xlarge",
                "not an NVIDIA GPU instance type (1 x AMD Radeon Pro V520)",
                _examples("aws"),
                AWS_ACCELERATED,
            )
        ],
    ),
    Row(
        "a CPU type, on a cloud that attaches no GPUs to CPU types, even with GPUs given",
        "aws",
        {**AWS, "instance_type": "m5.large", "gpu_model": "T4", "gpu_count": 1},
        [
            Problem(
                "instance_type",
                "m5.large",
                "not a GPU instance type (No GPU (general purpose))",
                _examples("aws"),
                AWS_GENERAL,
            )
        ],
    ),
    Row(
        "a CPU type with GPUs attached: its CPU architecture from the catalog",
        "gcp",
        {**GCP, "instance_type": "n1-standard-8", "gpu_model": "T4", "gpu_count": 1},
        [],
    ),
    Row(
        "a CPU type that attaches GPUs, with their model but not their count",
        "gcp",
        {**GCP, "instance_type": "n1-standard-8", "gpu_model": "T4"},
        [Problem("instance_type", "n1-standard-8", f"not a GPU instance type ({N1})", _examples("gcp"), GCP_GPUS)],
    ),
    Row(
        "a CPU type that attaches GPUs, with their count but not their model",
        "gcp",
        {**GCP, "instance_type": "n1-standard-8", "gpu_count": 1},
        [Problem("instance_type", "n1-standard-8", f"not a GPU instance type ({N1})", _examples("gcp"), GCP_GPUS)],
    ),
    Row(
        "an unlisted type without its GPUs: the closest names at a similarity of 0.5, not difflib's default 0.6",
        "aws",
        {**AWS, "instance_type": "g4dn"},
        [
            Problem(
                "instance_type",
                "g4dn",
                _unknown("aws", "cpu_architecture, gpu_count, gpu_model"),
                "g4dn.metal, g4dn.xlarge, g4dn.8xlarge",
            )
        ],
    ),
    Row(
        "an unlisted type close to more than three names: the three closest",
        "aws",
        {**AWS, "instance_type": "g5.2xlarg"},
        [
            Problem(
                "instance_type",
                "g5.2xlarg",
                _unknown("aws", "cpu_architecture, gpu_count, gpu_model"),
                "g5.2xlarge, g5g.2xlarge, g5.24xlarge",
            )
        ],
    ),
    Row(
        "an unlisted type close to no name: examples of NVIDIA types instead",
        "aws",
        {**AWS, "instance_type": "qqqqqqqq"},
        [
            Problem(
                "instance_type",
                "qqqqqqqq",
                _unknown("aws", "cpu_architecture, gpu_count, gpu_model"),
                _examples("aws"),
            )
        ],
    ),
    Row(
        "an unlisted type with only its CPU architecture missing",
        "aws",
        {**AWS, "instance_type": "qqqqqqqq", "gpu_model": "T4", "gpu_count": 1},
        [Problem("instance_type", "qqqqqqqq", _unknown("aws", "cpu_architecture"), _examples("aws"))],
    ),
    Row("an unlisted type with all of its GPUs given", "aws", {**UNLISTED, "gpu_model": "T4"}, []),
    Row(
        "an unlisted type of an unknown GPU model close to catalog names",
        "aws",
        {**UNLISTED, "gpu_model": "A100-4OGB"},
        [Problem("gpu_model", "A100-4OGB", "unknown GPU model", "A100-40GB, H100-94GB, A100-80GB")],
    ),
    Row(
        "an unlisted type of an unknown GPU model close to none: every catalog GPU model",
        "aws",
        {**UNLISTED, "gpu_model": "zzzz"},
        [Problem("gpu_model", "zzzz", "unknown GPU model", ", ".join(m.name for m in catalog.gpu_models()))],
    ),
    Row("an unlisted type of one GPU", "aws", {**UNLISTED, "gpu_model": "T4", "gpu_count": 1}, []),
    Row(
        "an unlisted type of no GPU",
        "aws",
        {**UNLISTED, "gpu_model": "T4", "gpu_count": 0},
        [Problem("gpu_count", 0, "GPUs per node must be a whole number >= 1")],
    ),
    Row(
        "an unlisted type of a negative GPU count",
        "aws",
        {**UNLISTED, "gpu_model": "T4", "gpu_count": -1},
        [Problem("gpu_count", -1, "GPUs per node must be a whole number >= 1")],
    ),
    Row(
        "an unknown GPU model with MIG: MIG is not checked without a GPU",
        "aws",
        {**UNLISTED, "gpu_model": "zzzz", "mig": {"profile": "1g.10gb"}},
        [Problem("gpu_model", "zzzz", "unknown GPU model", ", ".join(m.name for m in catalog.gpu_models()))],
    ),
]


def test_the_closest_name_rows_are_on_both_sides_of_the_cutoff() -> None:
    """``g4dn`` is as close as 0.5 to three names and as close as 0.6 to none; ``g5.2xlarg`` to more than three."""
    names = [t.name for t in catalog.instance_types("aws")]
    assert (difflib.get_close_matches("g4dn", names, cutoff=0.5), difflib.get_close_matches("g4dn", names)) == (
        ["g4dn.metal", "g4dn.xlarge", "g4dn.8xlarge"],
        [],
    )
    assert len(difflib.get_close_matches("g5.2xlarg", names, n=4, cutoff=0.5)) == 4


ROOM = Problem("max_size", 0, "a pool needs room for at least one node", ">= 1")


def _min_above_max(min_size: int, max_size: int, valid: str | None) -> Problem:
    message = (
        f"node counts must satisfy min_size <= max_size (max_size={max_size}; desired_size, not set, defaults to "
        "min_size)"
    )
    return Problem("min_size", min_size, message, valid)


SIZES = [
    Row("min_size 0 with max_size 0: only max_size is wrong", "aws", {**AWS, "min_size": 0, "max_size": 0}, [ROOM]),
    Row(
        "min_size 1 above max_size 0",
        "aws",
        {**AWS, "min_size": 1, "max_size": 0},
        [ROOM, _min_above_max(1, 0, "0..0")],
    ),
    Row(
        "min_size 1 above a negative max_size: no range to offer",
        "aws",
        {**AWS, "min_size": 1, "max_size": -1},
        [
            Problem("max_size", -1, "a pool needs room for at least one node", ">= 1"),
            _min_above_max(1, -1, None),
        ],
    ),
]


def _provisioned(instance_type: str, instance_types: list[str], **fields: Any) -> dict[str, Any]:
    provisioning = {"provisioner": "karpenter", "max_gpus": 8, "instance_types": instance_types}
    return {"name": "gpu", "instance_type": instance_type, "provisioning": provisioning, **fields}


def _one_model(key: str, others: str, model: str, first: str) -> Problem:
    return Problem(
        "provisioning",
        others,
        f"{key} is set for one GPU model, the {model} of instance_type {first}, and these types have another: every "
        "node of the pool must have that model; make one pool per GPU model",
    )


PROVISIONED = [
    Row("types of one GPU model and CPU architecture", "aws", _provisioned("g6.xlarge", ["g6.2xlarge"]), []),
    Row("types of two GPU models, unshared", "aws", _provisioned("g6e.xlarge", ["g6.xlarge", "g5.xlarge"]), []),
    Row(
        "types of another CPU architecture, each named",
        "aws",
        _provisioned("g6e.xlarge", ["g5g.xlarge", "g6.xlarge", "g5g.2xlarge"]),
        [
            Problem(
                "provisioning",
                "g5g.xlarge (arm64), g5g.2xlarge (arm64)",
                "a provisioned pool has one CPU architecture, its instance_type g6e.xlarge's (x86_64): its node image "
                "and tolerations follow it; make one pool per architecture",
            )
        ],
    ),
    Row(
        "MPS on types of other GPU models",
        "aws",
        _provisioned("g6e.xlarge", ["g6.xlarge", "g6e.2xlarge", "g5.xlarge"], mps={"replicas": 2}),
        [_one_model("mps", "g6.xlarge (L4), g5.xlarge (A10G)", "L40S", "g6e.xlarge")],
    ),
    Row(
        "MIG on a type of another GPU model",
        "aws",
        _provisioned("p4de.24xlarge", ["p4d.24xlarge"], mig={"profile": "1g.10gb"}),
        [_one_model("mig", "p4d.24xlarge (A100-40GB)", "A100-80GB", "p4de.24xlarge")],
    ),
    Row("MIG on types of one GPU model", "aws", _provisioned("p4de.24xlarge", [], mig={"profile": "1g.10gb"}), []),
]


A100 = {"name": "gpu", "instance_type": "p4d.24xlarge", "max_size": 3}
"""A100-40GB: 7 compute and 8 memory MIG slices; 1g.5gb up to 7 per GPU, 7g.40gb 1."""
A100_PROFILES = "1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb"
"""The A100-40GB's MIG profiles, in the order of NVIDIA's table (MIG User Guide, "Supported MIG Profiles"): 1g.5gb x7,
1g.5gb+me x1, 1g.10gb x4, 2g.10gb x3, 3g.20gb x2, 4g.20gb x1, 7g.40gb x1. 2g.20gb is the A100-80GB's, not its."""
MIG_TABLES = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
"""The page of those tables: the source a problem about one GPU's profiles or their counts cites."""
MIG_FORMAT = "<compute>g.<memory>gb[+me|+me.all|+gfx|-me], e.g. 1g.10gb"
MIG_CAPABLE = ", ".join(model.name for model in catalog.gpu_models() if model.mig_capable)


def _none_of(profile: str) -> str:
    return f"a layout entry needs at least 1 instance of {profile}; leave out a profile it has none of"


MIG = [
    Row(
        "a layout entry that is no MIG profile name, beside one that is",
        "aws",
        {**A100, "mig": {"layout": {"1g5gb": 1, "2g.10gb": 1}, "strategy": "mixed"}},
        [Problem("mig.layout['1g5gb']", "1g5gb", "not a MIG profile name", MIG_FORMAT, SOURCE_MIG)],
    ),
    Row(
        "a uniform profile written in capitals",
        "aws",
        {**A100, "mig": {"profile": "1G.5GB"}},
        [Problem("mig.profile", "1G.5GB", "not a MIG profile name; did you mean '1g.5gb'?", MIG_FORMAT, SOURCE_MIG)],
    ),
    Row(
        "MIG on a GPU without it",
        "aws",
        {**AWS, "mig": {"profile": "1g.5gb", "strategy": "single"}},
        [
            Problem(
                "mig",
                {"profile": "1g.5gb", "strategy": "single"},
                "A10G does not support MIG",
                f"GPUs with MIG: {MIG_CAPABLE}",
                SOURCE_MIG,
            )
        ],
    ),
    Row("a uniform profile on a GPU with MIG", "aws", {**A100, "mig": {"profile": "1g.5gb"}}, []),
    Row(
        "a uniform profile of another GPU, well formed: no did-you-mean",
        "aws",
        {**A100, "mig": {"profile": "2g.20gb"}},
        [Problem("mig.profile", "2g.20gb", "not a MIG profile of A100-40GB", A100_PROFILES, MIG_TABLES)],
    ),
    Row(
        "a layout entry of another GPU's profile, beside one of this GPU's",
        "aws",
        {**A100, "mig": {"layout": {"1g.5gb": 1, "2g.20gb": 1}, "strategy": "mixed"}},
        [Problem("mig.layout['2g.20gb']", "2g.20gb", "not a MIG profile of A100-40GB", A100_PROFILES, MIG_TABLES)],
    ),
    Row(
        "a layout entry of a negative count",
        "aws",
        {**A100, "mig": {"layout": {"1g.5gb": -1}}},
        [Problem("mig.layout['1g.5gb']", -1, _none_of("1g.5gb"), "1..7", MIG_TABLES)],
    ),
    Row(
        "a layout entry of no instance",
        "aws",
        {**A100, "mig": {"layout": {"1g.5gb": 0}}},
        [Problem("mig.layout['1g.5gb']", 0, _none_of("1g.5gb"), "1..7", MIG_TABLES)],
    ),
    Row("a layout entry of one instance, the fewest", "aws", {**A100, "mig": {"layout": {"1g.5gb": 1}}}, []),
    Row(
        "a layout entry of 7 x 1g.5gb, the most an A100-40GB holds",
        "aws",
        {**A100, "mig": {"layout": {"1g.5gb": 7}}},
        [],
    ),
    Row(
        "a layout entry of 8 x 1g.5gb, one more than an A100-40GB holds",
        "aws",
        {**A100, "mig": {"layout": {"1g.5gb": 8}}},
        [Problem("mig.layout['1g.5gb']", 8, "A100-40GB holds at most 7 instances of 1g.5gb", "1..7", MIG_TABLES)],
    ),
    Row(
        "a layout entry of 1 x 4g.20gb, the most an A100-40GB holds",
        "aws",
        {**A100, "mig": {"layout": {"4g.20gb": 1}}},
        [],
    ),
    Row(
        "a layout entry of 2 x 4g.20gb: one instance, said in the singular",
        "aws",
        {**A100, "mig": {"layout": {"4g.20gb": 2}}},
        [Problem("mig.layout['4g.20gb']", 2, "A100-40GB holds at most 1 instance of 4g.20gb", "1..1", MIG_TABLES)],
    ),
]


ROWS = HARDWARE + SIZES + PROVISIONED + MIG


@pytest.mark.parametrize("row", ROWS, ids=[row.case for row in ROWS])
def test_each_pool_gets_exactly_its_problems(row: Row) -> None:
    assert _problems(row.pool, row.cloud) == row.problems


@pytest.mark.parametrize("row", ROWS, ids=[row.case for row in ROWS])
def test_in_a_cluster_each_pool_gets_its_problems_at_its_path(row: Row) -> None:
    """The same pool second of a cluster's pools, after a sound one: the same problems, each at ``pools[1]``."""
    pools = [{**AWS, "name": "first"} if row.cloud == "aws" else {**GCP, "name": "first"}, row.pool]
    try:
        parse_pools(pools, row.cloud)  # type: ignore[arg-type]
    except GpuSpecError as error:
        assert list(error.problems) == [problem.under("pools[1]") for problem in row.problems]
    else:
        assert row.problems == []


@pytest.mark.parametrize(
    ("cloud", "pool", "hardware"),
    [
        ("aws", {**UNLISTED, "gpu_model": "T4", "gpu_count": 2, "cpu_architecture": "arm64"}, ("T4", 2, "arm64")),
        ("aws", {**UNLISTED, "gpu_model": "L4", "gpu_count": 1}, ("L4", 1, "x86_64")),
        ("gcp", {**GCP, "instance_type": "n1-standard-8", "gpu_model": "T4", "gpu_count": 4}, ("T4", 4, "x86_64")),
        ("aws", {**AWS, "gpu_model": "A10G"}, ("A10G", 1, "x86_64")),
    ],
    ids=["unlisted arm64", "unlisted x86_64", "N1 with GPUs attached", "catalog type"],
)
def test_a_pool_gets_the_gpus_and_cpu_architecture_it_gives_or_its_catalog_entry_has(
    cloud: str, pool: dict[str, Any], hardware: tuple[str, int, str]
) -> None:
    spec = GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    assert (spec.gpu.name, spec.gpu_count, spec.cpu_architecture) == hardware


def test_rules_after_a_negative_gpu_count_see_the_count_as_written() -> None:
    """A provisioned pool's GPU requirements are checked against the count the pool gave, even one below 1: the
    problem they give states that count, not a value the user never wrote."""
    pool = {
        **{key: value for key, value in UNLISTED.items() if key != "max_size"},
        "gpu_model": "T4",
        "gpu_count": -1,
        "provisioning": {"provisioner": "karpenter", "max_gpus": 8, "gpu_requirements": [GPU_COUNT_ABOVE_0]},
    }
    assert _problems(pool, "aws") == [
        Problem("gpu_count", -1, "GPUs per node must be a whole number >= 1"),
        Problem(
            "instance_type",
            "x9.gpu",
            "excluded by provisioning.gpu_requirements[0] (karpenter.k8s.aws/instance-gpu-count Gt [0]): "
            "x9.gpu's karpenter.k8s.aws/instance-gpu-count is -1; drop the type or change the requirement",
            None,
            facts_for("aws").provisioners["karpenter"].requirements_source,
        ),
    ]


@pytest.mark.parametrize(
    ("mig", "expected"),
    [
        ({"profile": "3g.20gb"}, Mig({"3g.20gb": 2}, "single", "3g.20gb", "all-3g.20gb", uniform_profile="3g.20gb")),
        ({"layout": {"1g.5gb": 7}}, Mig({"1g.5gb": 7}, "single", None, "custom-gpu", uniform_profile="1g.5gb")),
        ({"layout": {"1g.5gb": 6}}, Mig({"1g.5gb": 6}, "single", None, "custom-gpu")),
        ({"layout": {"4g.20gb": 1}}, Mig({"4g.20gb": 1}, "single", None, "custom-gpu", uniform_profile="4g.20gb")),
        (
            {"layout": {"4g.20gb": 1, "3g.20gb": 1}, "strategy": "mixed"},
            Mig({"4g.20gb": 1, "3g.20gb": 1}, "mixed", None, "custom-gpu"),
        ),
        (
            {"config": "all-balanced", "strategy": "mixed"},
            Mig({"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}, "mixed", None, "all-balanced", config="all-balanced"),
        ),
    ],
    ids=[
        "uniform profile: as many as one GPU holds",
        "layout of one profile at the most one GPU holds",
        "layout of one profile one short of the most",
        "layout of one profile one GPU holds once",
        "layout of two profiles, the first at its most",
        "NVIDIA's all-balanced: three profiles",
    ],
)
def test_a_mig_layout_names_its_profile_only_when_that_one_profile_fills_each_gpu(
    mig: dict[str, Any], expected: Mig
) -> None:
    """``uniform_profile`` (what a cloud that makes only uniform partitions can take) is the one profile at the most
    instances an A100-40GB holds (NVIDIA's table: 1g.5gb x7, 3g.20gb x2, 4g.20gb x1), and nothing for a layout short of
    that or of several profiles, even when one of them is at its most. NVIDIA's ``all-balanced`` for the A100-40GB
    (the GPU Operator's mig-parted config, tests/reference/nvidia/.../0400_configmap.yaml) is 2 x 1g.5gb, 1 x 2g.10gb
    and 1 x 3g.20gb."""
    assert GpuNodePoolSpec.from_args({**A100, "mig": mig}, "aws").mig == expected  # type: ignore[arg-type]
