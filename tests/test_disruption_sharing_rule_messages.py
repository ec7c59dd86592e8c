"""The exact problems of the disruption, sharing and pool-shape rules (issue 31), each edge from both sides.

Pins every part of each problem (path, the value got, the message, the valid values and the source cited) of:

- a provisioned pool's ``disruption`` (``gpu_components/spec/disruption.py``), by Karpenter's disruption docs and
  its NodePool CRD v1.14.1 (``tests/reference/karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml``): durations,
  the zero expiry, the termination grace period, and ``budgets`` (at most 50; ``nodes`` by the CRD's pattern;
  each reason once; ``schedule`` a cron schedule as robfig/cron's standard parser takes it, which Karpenter uses;
  ``duration`` in hours and minutes; ``schedule`` and ``duration`` together);
- GPU sharing (``gpu_components/spec/sharing.py``), by the NVIDIA device plugin v0.20.0: time-slicing and MPS
  exclusive, MPS without MIG, and the MPS client limit when the pool's GPU is not known;
- the pool shape (``gpu_components/spec/shapes.py``): an unknown provisioner told the cloud's own, and the
  ``provisioning`` fields a provisioner has no field for, each with the source of the rule.

Each accepted row checks the value the spec resolves, each refused row the whole list of problems, under a pool
path (``pools[0]``) so a problem that loses the path fails too.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.cloud_facts import facts_for
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import (
    MAX_BUDGETS,
    SOURCE_KARPENTER_BUDGETS,
    SOURCE_KARPENTER_DISRUPTION,
    SOURCE_KARPENTER_TERMINATION,
    SOURCE_MPS_CLIENTS,
    SOURCE_NODEPOOL_CRD,
    SOURCE_SHARING,
    Disruption,
    DisruptionBudget,
    GpuNodePoolSpec,
    Mps,
    TimeSlicing,
)

AT = "pools[0]"
"""The pool's path in a cluster's pools: every problem's path starts with it."""
DISRUPTION = f"{AT}.provisioning.disruption"
BUDGETS = f"{DISRUPTION}.budgets"
SCHEDULE_VALID = (
    "five cron fields (e.g. 0 9 * * mon-fri) or @annually, @yearly, @monthly, @weekly, @daily, @midnight, @hourly"
)
TOGETHER = (
    "a budget's schedule and duration go together: {given} is set, so {missing} is required (without both, the "
    "budget is always active)"
)
COMPUTE_CLASS_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes"
EKS_PROVISIONERS_SOURCE = (
    "https://karpenter.sh/docs/concepts/nodepools/; https://docs.aws.amazon.com/eks/latest/userguide/automode.html"
)


def karpenter(disruption: dict[str, Any]) -> dict[str, Any]:
    """A Karpenter pool of g6e.xlarge (one L40S) with the given ``disruption``."""
    provisioning = {"provisioner": "karpenter", "max_gpus": 8, "disruption": disruption}
    return {"name": "gpu", "instance_type": "g6e.xlarge", "provisioning": provisioning}


def budget(**fields: Any) -> dict[str, Any]:
    """A Karpenter pool with one disruption budget of ``nodes: "1"`` and ``fields``."""
    return karpenter({"budgets": [{"nodes": "1", **fields}]})


def scheduled(schedule: str) -> dict[str, Any]:
    """A Karpenter pool with one budget on ``schedule`` for 8 hours."""
    return budget(schedule=schedule, duration="8h")


def schedule_problem(schedule: str, why: str) -> list[Problem]:
    return [Problem(f"{BUDGETS}[0].schedule", schedule, why, SCHEDULE_VALID, SOURCE_KARPENTER_BUDGETS)]


def problems(pool: dict[str, Any], cloud: str = "aws") -> list[Problem]:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(pool, cloud, AT)  # type: ignore[arg-type]
    return list(caught.value.problems)


def disruption(pool: dict[str, Any]) -> Disruption:
    spec = GpuNodePoolSpec.from_args(pool, "aws", AT)  # type: ignore[arg-type]
    assert spec.provisioning is not None
    return spec.provisioning.disruption


# Durations (Karpenter disruption docs): digits with s, m or h; an expiry above zero, or Never.


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param({"consolidate_after": "1h30m"}, Disruption(consolidate_after="1h30m"), id="consolidate_after"),
        pytest.param({"expire_after": "10s"}, Disruption(expire_after="10s"), id="expire_after of seconds"),
        pytest.param({"expire_after": "0h1m"}, Disruption(expire_after="0h1m"), id="expire_after one minute"),
        pytest.param({"expire_after": "100h0m"}, Disruption(expire_after="100h0m"), id="expire_after 100 hours"),
        pytest.param({"expire_after": "Never"}, Disruption(expire_after="Never"), id="expire_after Never"),
        pytest.param(
            {"termination_grace_period": "24h"}, Disruption(termination_grace_period="24h"), id="grace period"
        ),
    ],
)
def test_a_duration_is_accepted(given: dict[str, Any], expected: Disruption) -> None:
    assert disruption(karpenter(given)) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param(
            {"consolidate_after": "ten minutes"},
            Problem(
                f"{DISRUPTION}.consolidate_after",
                "ten minutes",
                "not a duration",
                "digits with s, m or h, e.g. 10m, 1h30m",
                SOURCE_KARPENTER_DISRUPTION,
            ),
            id="consolidate_after",
        ),
        pytest.param(
            {"expire_after": "30d"},
            Problem(
                f"{DISRUPTION}.expire_after",
                "30d",
                "not a duration",
                "digits with s, m or h, e.g. 720h, or Never",
                SOURCE_KARPENTER_DISRUPTION,
            ),
            id="expire_after in days",
        ),
        pytest.param(
            {"expire_after": "never"},
            Problem(
                f"{DISRUPTION}.expire_after",
                "never",
                "not a duration",
                "digits with s, m or h, e.g. 720h, or Never",
                SOURCE_KARPENTER_DISRUPTION,
            ),
            id="expire_after never in lower case",
        ),
        pytest.param(
            {"expire_after": "0h0m"},
            Problem(
                f"{DISRUPTION}.expire_after",
                "0h0m",
                "a zero duration: every node would expire, and be replaced, as soon as it is created",
                "a duration above zero, e.g. 720h, or Never (nodes do not expire)",
                SOURCE_KARPENTER_DISRUPTION,
            ),
            id="expire_after zero",
        ),
        pytest.param(
            {"expire_after": "00s"},
            Problem(
                f"{DISRUPTION}.expire_after",
                "00s",
                "a zero duration: every node would expire, and be replaced, as soon as it is created",
                "a duration above zero, e.g. 720h, or Never (nodes do not expire)",
                SOURCE_KARPENTER_DISRUPTION,
            ),
            id="expire_after zero seconds",
        ),
        pytest.param(
            {"termination_grace_period": "1d"},
            Problem(
                f"{DISRUPTION}.termination_grace_period",
                "1d",
                "not a duration",
                "digits with s, m or h, e.g. 24h, 1h30m",
                SOURCE_KARPENTER_TERMINATION,
            ),
            id="grace period in days",
        ),
    ],
)
def test_a_bad_duration_is_refused(given: dict[str, Any], expected: Problem) -> None:
    assert problems(karpenter(given)) == [expected]


# Budgets (NodePool CRD v1.14.1): at most 50, nodes by the CRD's pattern, each reason once.


def test_budgets_up_to_the_crds_max_items_are_accepted() -> None:
    assert MAX_BUDGETS == 50  # the CRD's spec.disruption.budgets maxItems
    given = karpenter({"budgets": [{"nodes": str(n)} for n in range(50)]})
    assert disruption(given).budgets == tuple(DisruptionBudget(str(n)) for n in range(50))


def test_one_budget_more_than_the_crds_max_items_is_refused() -> None:
    given = karpenter({"budgets": [{"nodes": str(n)} for n in range(51)]})
    assert problems(given) == [
        Problem(BUDGETS, 51, "more budgets than a NodePool takes", "at most 50", SOURCE_NODEPOOL_CRD)
    ]


@pytest.mark.parametrize("nodes", ["0", "100%", "99%", "0%", "250"])
def test_a_node_count_or_percentage_is_accepted(nodes: str) -> None:
    given = karpenter({"budgets": [{"nodes": nodes}]})
    assert disruption(given).budgets == (DisruptionBudget(nodes),)


@pytest.mark.parametrize("nodes", ["101%", "-1", "10 %", "1.5"])
def test_a_bad_node_count_is_refused(nodes: str) -> None:
    assert problems(karpenter({"budgets": [{"nodes": nodes}]})) == [
        Problem(
            f"{BUDGETS}[0].nodes",
            nodes,
            "not a node count or percentage",
            'a whole number ("0", "2") or a percentage up to 100% ("10%")',
            SOURCE_KARPENTER_BUDGETS,
        )
    ]


def test_each_reason_once_is_accepted() -> None:
    given = budget(reasons=["drifted", "empty", "underutilized"])
    assert disruption(given).budgets == (DisruptionBudget("1", ("drifted", "empty", "underutilized")),)


def test_a_reason_given_twice_is_refused_at_its_second_place() -> None:
    assert problems(budget(reasons=["drifted", "empty", "drifted"])) == [
        Problem(
            f"{BUDGETS}[0].reasons[2]", "drifted", "given twice", "underutilized, empty, drifted", SOURCE_NODEPOOL_CRD
        )
    ]


# Schedules: a cron macro or five fields (robfig/cron's standard parser, which Karpenter parses them with; its
# "CRON Expression Format": ``?`` may stand for ``*`` in day-of-month and day-of-week, to leave either blank).


@pytest.mark.parametrize(
    "schedule",
    [
        "@midnight",
        "*/1 * * * *",
        "*,59 * * * *",
        "0 0-23/1 * * *",
        "59 23 31 12 6",
        "0 0 1 1 0",
        "0 9 * jan-DEC sun-sat",
        "5/15 * * * *",
        "0 9 ? * mon-fri",
        "0 9 1,15 * ?",
        "0 9 ?/2 * *",
    ],
)
def test_a_cron_schedule_is_accepted(schedule: str) -> None:
    assert disruption(scheduled(schedule)).budgets == (DisruptionBudget("1", (), schedule, "8h"),)


@pytest.mark.parametrize(
    ("schedule", "why"),
    [
        ("@every 1h", "not a cron macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)"),
        ("0 9 * *", "not a cron schedule: 4 fields, not 5 (minute hour day-of-month month day-of-week)"),
        ("a 9 * * *", "not a cron schedule: minute 'a' is not *, 0-59, a list, range or step"),
        ("*,60 * * * *", "not a cron schedule: minute '*,60' is not *, 0-59, a list, range or step"),
        ("*/0 * * * *", "not a cron schedule: minute '*/0' is not *, 0-59, a list, range or step"),
        ("? 9 * * *", "not a cron schedule: minute '?' is not *, 0-59, a list, range or step"),
        ("0 24 * * *", "not a cron schedule: hour '24' is not *, 0-23, a list, range or step"),
        ("0 mon-5 * * *", "not a cron schedule: hour 'mon-5' is not *, 0-23, a list, range or step"),
        ("0 5-x * * *", "not a cron schedule: hour '5-x' is not *, 0-23, a list, range or step"),
        ("0 ? * * *", "not a cron schedule: hour '?' is not *, 0-23, a list, range or step"),
        ("0 9 0 * *", "not a cron schedule: day-of-month '0' is not *, 1-31, ?, a list, range or step"),
        ("0 9 * 13 *", "not a cron schedule: month '13' is not *, 1-12 or jan-dec, a list, range or step"),
        ("0 9 * ? *", "not a cron schedule: month '?' is not *, 1-12 or jan-dec, a list, range or step"),
        ("0 9 * * 7", "not a cron schedule: day-of-week '7' is not *, 0-6 or sun-sat, ?, a list, range or step"),
        (
            "0 9 * * fri-mon",
            "not a cron schedule: day-of-week 'fri-mon' is not *, 0-6 or sun-sat, ?, a list, range or step",
        ),
    ],
)
def test_a_bad_cron_schedule_is_refused_naming_the_field(schedule: str, why: str) -> None:
    assert problems(scheduled(schedule)) == schedule_problem(schedule, why)


# Duration of a scheduled budget (the CRD's pattern): hours and minutes; schedule and duration together.


@pytest.mark.parametrize("duration", ["8h", "30m", "1h30m", "1h30m0s"])
def test_a_budget_duration_in_hours_and_minutes_is_accepted(duration: str) -> None:
    given = budget(schedule="@daily", duration=duration)
    assert disruption(given).budgets == (DisruptionBudget("1", (), "@daily", duration),)


@pytest.mark.parametrize("duration", ["30s", "1d", "1m30m"])
def test_a_budget_duration_in_seconds_or_days_is_refused(duration: str) -> None:
    assert problems(budget(schedule="@daily", duration=duration)) == [
        Problem(
            f"{BUDGETS}[0].duration",
            duration,
            "not a budget duration: hours and minutes only, as cron does not work in seconds",
            "e.g. 8h, 30m, 1h30m",
            SOURCE_NODEPOOL_CRD,
        )
    ]


@pytest.mark.parametrize(
    ("fields", "missing", "given"),
    [
        pytest.param({"schedule": "@daily"}, "duration", "schedule", id="schedule without duration"),
        pytest.param({"duration": "8h"}, "schedule", "duration", id="duration without schedule"),
    ],
)
def test_a_schedule_or_duration_alone_is_refused(fields: dict[str, str], missing: str, given: str) -> None:
    assert problems(budget(**fields)) == [
        Problem(
            f"{BUDGETS}[0].{missing}",
            None,
            TOGETHER.format(given=given, missing=missing),
            "schedule and duration, or neither",
            SOURCE_NODEPOOL_CRD,
        )
    ]


# Sharing (NVIDIA device plugin v0.20.0).

G5 = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 2}
"""One A10G (compute capability 8.6)."""
P4D = {"name": "gpu", "instance_type": "p4d.24xlarge", "max_size": 2}
"""Eight A100-40GB, MIG-capable."""
UNKNOWN = {"name": "gpu", "instance_type": "g9.xlarge", "max_size": 2}
"""An instance type outside the catalog and without gpu_model: its GPU (and so its MPS client limit) is unknown."""
UNKNOWN_TYPE = Problem(
    f"{AT}.instance_type",
    "g9.xlarge",
    "unknown aws instance type (closest known names under valid); for a type the catalog does not list, also give "
    "cpu_architecture, gpu_count, gpu_model",
    "g6.xlarge, g5.xlarge, g6e.xlarge",
)


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        pytest.param({**G5, "time_slicing": {"replicas": 2}}, TimeSlicing(2), id="time-slicing alone"),
        pytest.param({**G5, "mps": {"replicas": 2}}, Mps(2), id="MPS alone"),
        pytest.param(
            {**P4D, "time_slicing": {"replicas": 2}, "mig": {"profile": "1g.5gb"}},
            TimeSlicing(2),
            id="time-slicing, MIG",
        ),
    ],
)
def test_one_kind_of_sharing_is_accepted(pool: dict[str, Any], expected: TimeSlicing | Mps) -> None:
    assert GpuNodePoolSpec.from_args(pool, "aws", AT).sharing == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        pytest.param(
            {**G5, "time_slicing": {"replicas": 2}, "mps": {"replicas": 4}},
            Problem(
                f"{AT}.mps",
                {"replicas": 4},
                "time-slicing and MPS are mutually exclusive on a pool",
                "one of time_slicing, mps",
                SOURCE_SHARING,
            ),
            id="time-slicing and MPS",
        ),
        pytest.param(
            {**P4D, "mps": {"replicas": 4}, "mig": {"profile": "1g.5gb"}},
            Problem(
                f"{AT}.mps",
                {"replicas": 4},
                "MPS cannot be combined with MIG: the device plugin skips MIG devices under MPS",
                "time_slicing with mig, or mps without mig",
                SOURCE_SHARING,
            ),
            id="MPS and MIG",
        ),
    ],
)
def test_two_kinds_of_sharing_are_refused_at_the_pools_mps(pool: dict[str, Any], expected: Problem) -> None:
    assert problems(pool) == [expected]


def test_mps_on_a_gpu_not_known_takes_the_highest_client_limit() -> None:
    assert problems({**UNKNOWN, "mps": {"replicas": 48}}) == [UNKNOWN_TYPE]


def test_mps_past_the_highest_client_limit_on_a_gpu_not_known_says_the_gpu() -> None:
    assert problems({**UNKNOWN, "mps": {"replicas": 49}}) == [
        UNKNOWN_TYPE,
        Problem(
            f"{AT}.mps.replicas",
            49,
            "MPS replicas must be at least 2 and at most the MPS client limit of the GPU",
            "2..48",
            SOURCE_MPS_CLIENTS,
        ),
    ]


# Pool shape: a provisioner of the pool's cloud; the provisioning fields its provisioner has no field for.


@pytest.mark.parametrize(
    ("provisioner", "expected"),
    [
        pytest.param(
            "compute-class",
            Problem(
                f"{AT}.provisioning.provisioner",
                "compute-class",
                "not a provisioner of EKS",
                "karpenter, eks-auto-mode",
                EKS_PROVISIONERS_SOURCE,
            ),
            id="another cloud's provisioner (the provisioning rule, citing EKS's provisioners)",
        ),
        pytest.param(
            "Karpenter",
            Problem(
                f"{AT}.provisioning.provisioner",
                "Karpenter",
                "not a provisioner of EKS; did you mean 'karpenter'?",
                "karpenter, eks-auto-mode",
            ),
            id="not a provisioner at all (the shape, which cites no source)",
        ),
        pytest.param(
            5,
            Problem(f"{AT}.provisioning.provisioner", 5, "not a provisioner of EKS", "karpenter, eks-auto-mode"),
            id="not a string",
        ),
    ],
)
def test_an_unknown_provisioner_is_told_the_clouds_own(provisioner: object, expected: Problem) -> None:
    pool = {"name": "gpu", "instance_type": "g6e.xlarge", "provisioning": {"provisioner": provisioner, "max_gpus": 8}}
    assert problems(pool) == [expected]


def compute_class(disruption: dict[str, Any]) -> dict[str, Any]:
    provisioning = {"provisioner": "compute-class", "max_gpus": 8, "disruption": disruption}
    return {"name": "gpu", "instance_type": "g2-standard-8", "provisioning": provisioning}


def test_a_compute_class_takes_the_disruption_fields_it_has() -> None:
    spec = GpuNodePoolSpec.from_args(compute_class({"expire_after": "720h"}), "gcp", AT)  # type: ignore[arg-type]
    assert spec.provisioning is not None
    assert spec.provisioning.disruption == Disruption(expire_after="720h")


def test_a_field_the_provisioner_has_none_for_is_refused_citing_the_provisioner() -> None:
    assert facts_for("gcp").provisioners["compute-class"].source == COMPUTE_CLASS_SOURCE
    assert problems(compute_class({"termination_grace_period": "1h"}), "gcp") == [
        Problem(
            f"{DISRUPTION}.termination_grace_period",
            "1h",
            "a ComputeClass has no node termination grace period: GKE drains its nodes by the pods' own grace periods "
            "and PodDisruptionBudgets",
            "leave it out with provisioner compute-class",
            COMPUTE_CLASS_SOURCE,
        )
    ]
