"""When a provisioner may take a provisioned pool's nodes away: expiry, termination grace period, consolidation, and
disruption budgets with their cron schedules (:class:`Disruption`), as Karpenter's NodePool CRD has them.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from gpu_components.enums import (
    ConsolidationName,
    DisruptionReasonName,
    value_of,
)
from gpu_components.errors import Problem
from gpu_components.spec.shapes import DisruptionBudgetArgs, ProvisioningArgs

DEFAULT_CONSOLIDATE_AFTER = "10m"
"""How long a provisioned pool's node stays empty before its provisioner may remove it, when the pool does not say:
long enough for a job queue's next pod to find the node (and its pulled images) still there."""
DURATION = re.compile(r"^([0-9]+(s|m|h))+$")
"""A duration as Karpenter's NodePool takes it (``disruption.consolidateAfter``, ``template.spec.expireAfter``):
digits with ``s``, ``m`` or ``h``, repeated (``1h30m``); ``Never`` is accepted where the field says so.
Source: :data:`SOURCE_KARPENTER_DISRUPTION`."""
ZERO_DURATION = re.compile(r"^(0+(s|m|h))+$")
"""A :data:`DURATION` of zero: every number in it ``0`` (``0h``, ``0h00m``)."""
SOURCE_KARPENTER_DISRUPTION = "https://karpenter.sh/docs/concepts/disruption/"
SOURCE_KARPENTER_BUDGETS = "https://karpenter.sh/docs/concepts/disruption/#disruption-budgets"
SOURCE_KARPENTER_TERMINATION = "https://karpenter.sh/docs/concepts/disruption/#terminationgraceperiod"
SOURCE_NODEPOOL_CRD = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml "
    "(tests/reference/karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml)"
)
BUDGET_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
"""A budget's ``nodes``: a count or a percentage, the NodePool CRD's pattern (:data:`SOURCE_NODEPOOL_CRD`)."""
BUDGET_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
"""A budget's ``duration``: hours or minutes, or hours and minutes, the NodePool CRD's pattern."""
BUDGET_SCHEDULE = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)
"""A budget's ``schedule``: a cron macro or five fields, the NodePool CRD's pattern. The pattern is loose (it is
unanchored and takes any five words); :func:`_cron_problem` checks each field."""
CRON_MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
"""The cron macros a budget's ``schedule`` may be (the NodePool CRD's pattern)."""
CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day-of-month", 1, 31, ()),
    ("month", 1, 12, ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")),
    ("day-of-week", 0, 6, ("sun", "mon", "tue", "wed", "thu", "fri", "sat")),
)
"""The five standard cron fields: name, lowest and highest value, and the names of the values from the lowest on
(Karpenter parses ``schedule`` with robfig/cron's standard parser)."""
CRON_BLANK_FIELDS = ("day-of-month", "day-of-week")
"""The cron fields that may be ``?``, as ``*``, "for leaving either day-of-month or day-of-week blank"
(:data:`SOURCE_CRON`)."""
SOURCE_CRON = "https://pkg.go.dev/github.com/robfig/cron/v3#hdr-CRON_Expression_Format"
MAX_BUDGETS = 50
"""Most budgets (and reasons per budget) a NodePool takes (the CRD's ``maxItems``)."""
DISRUPTION_REASONS: Mapping[str, str] = MappingProxyType(
    {"underutilized": "Underutilized", "empty": "Empty", "drifted": "Drifted"}
)
"""``disruption.budgets[].reasons`` -> the NodePool CRD's ``reasons`` enum value."""


@dataclass(frozen=True, slots=True)
class DisruptionBudget:
    """A validated disruption budget (see :class:`DisruptionBudgetArgs`)."""

    nodes: str
    reasons: tuple[DisruptionReasonName, ...] = ()
    schedule: str | None = None
    duration: str | None = None


@dataclass(frozen=True, slots=True)
class Disruption:
    """A provisioned pool's validated disruption policy (see :class:`DisruptionArgs`); ``expire_after`` is ``None``
    when the provisioner's own default applies, ``termination_grace_period`` when the pool sets none."""

    consolidation: ConsolidationName = "when-empty"
    consolidate_after: str = DEFAULT_CONSOLIDATE_AFTER
    expire_after: str | None = None
    termination_grace_period: str | None = None
    budgets: tuple[DisruptionBudget, ...] = ()


def _disruption(given: ProvisioningArgs, where: str) -> tuple[Disruption, list[Problem]]:
    args = given.get("disruption", {})
    problems: list[Problem] = []
    consolidate_after = args.get("consolidate_after", DEFAULT_CONSOLIDATE_AFTER)
    if not DURATION.fullmatch(consolidate_after):
        problems.append(
            Problem(
                f"{where}.disruption.consolidate_after",
                consolidate_after,
                "not a duration",
                "digits with s, m or h, e.g. 10m, 1h30m",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    expire_after = args.get("expire_after")
    if expire_after is not None and expire_after != "Never" and not DURATION.fullmatch(expire_after):
        problems.append(
            Problem(
                f"{where}.disruption.expire_after",
                expire_after,
                "not a duration",
                "digits with s, m or h, e.g. 720h, or Never",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    elif expire_after is not None and ZERO_DURATION.fullmatch(expire_after):
        problems.append(
            Problem(
                f"{where}.disruption.expire_after",
                expire_after,
                "a zero duration: every node would expire, and be replaced, as soon as it is created",
                "a duration above zero, e.g. 720h, or Never (nodes do not expire)",
                SOURCE_KARPENTER_DISRUPTION,
            )
        )
    grace = args.get("termination_grace_period")
    if grace is not None and not DURATION.fullmatch(grace):
        problems.append(
            Problem(
                f"{where}.disruption.termination_grace_period",
                grace,
                "not a duration",
                "digits with s, m or h, e.g. 24h, 1h30m",
                SOURCE_KARPENTER_TERMINATION,
            )
        )
    budgets, found = _budgets(args.get("budgets", []), f"{where}.disruption.budgets")
    problems += found
    consolidation: ConsolidationName = value_of(args.get("consolidation", "when-empty"))
    return Disruption(consolidation, consolidate_after, expire_after, grace, budgets), problems


def _cron_value(text: str, low: int, names: tuple[str, ...]) -> int | None:
    """The number a cron value stands for (a number, or a name counted from ``low``); ``None`` if neither."""
    if text.isascii() and text.isdigit():
        return int(text)
    return names.index(text.lower()) + low if text.lower() in names else None


def _cron_field_ok(field: str, low: int, high: int, names: tuple[str, ...], blank: bool) -> bool:
    """Whether one cron field is a list of ``*`` (or ``?`` where ``blank``), values or ranges, each with an optional
    ``/step``."""
    for item in field.split(","):
        span, slash, step = item.partition("/")
        if slash and not (step.isascii() and step.isdigit() and int(step) > 0):
            return False
        if span == "*" or (blank and span == "?"):
            continue
        first, dash, last = span.partition("-")
        start = _cron_value(first, low, names)
        end = _cron_value(last, low, names) if dash else start
        if start is None or end is None or not low <= start <= end <= high:
            return False
    return True


def _cron_problem(schedule: str) -> str | None:
    """Why ``schedule`` is not a cron schedule Karpenter takes (naming the bad field and its value), or ``None``:
    one of :data:`CRON_MACROS`, or the five fields of :data:`CRON_FIELDS` (:data:`SOURCE_CRON`)."""
    if schedule.startswith("@"):
        return None if schedule in CRON_MACROS else f"not a cron macro ({', '.join(CRON_MACROS)})"
    fields = schedule.split()
    if len(fields) != len(CRON_FIELDS):
        return f"not a cron schedule: {len(fields)} fields, not 5 (minute hour day-of-month month day-of-week)"
    for text, (name, low, high, names) in zip(fields, CRON_FIELDS, strict=True):
        blank = name in CRON_BLANK_FIELDS
        if not _cron_field_ok(text, low, high, names, blank):
            named = f" or {names[0]}-{names[-1]}" if names else ""
            question = ", ?" if blank else ""
            return (
                f"not a cron schedule: {name} {text!r} is not *, {low}-{high}{named}{question}, a list, range or step"
            )
    return None


def _budgets(given: Sequence[DisruptionBudgetArgs], path: str) -> tuple[tuple[DisruptionBudget, ...], list[Problem]]:
    """Validated disruption budgets, by the NodePool CRD's rules on ``disruption.budgets``
    (:data:`SOURCE_NODEPOOL_CRD`): at most :data:`MAX_BUDGETS`; ``nodes``, ``duration`` and ``schedule`` by their
    patterns; each reason once; ``schedule`` and ``duration`` together or not at all."""
    problems: list[Problem] = []
    if len(given) > MAX_BUDGETS:
        problems.append(
            Problem(
                path, len(given), "more budgets than a NodePool takes", f"at most {MAX_BUDGETS}", SOURCE_NODEPOOL_CRD
            )
        )
    budgets: list[DisruptionBudget] = []
    for index, budget in enumerate(given):
        at = f"{path}[{index}]"
        if not BUDGET_NODES.fullmatch(budget["nodes"]):
            problems.append(
                Problem(
                    f"{at}.nodes",
                    budget["nodes"],
                    "not a node count or percentage",
                    'a whole number ("0", "2") or a percentage up to 100% ("10%")',
                    SOURCE_KARPENTER_BUDGETS,
                )
            )
        reasons: tuple[DisruptionReasonName, ...] = tuple(value_of(r) for r in budget.get("reasons", []))
        problems += [
            Problem(f"{at}.reasons[{i}]", reason, "given twice", ", ".join(DISRUPTION_REASONS), SOURCE_NODEPOOL_CRD)
            for i, reason in enumerate(reasons)
            if reason in reasons[:i]
        ]
        schedule, duration = budget.get("schedule"), budget.get("duration")
        if schedule is not None and (bad := _cron_problem(schedule)) is not None:
            problems.append(
                Problem(
                    f"{at}.schedule",
                    schedule,
                    bad,
                    "five cron fields (e.g. 0 9 * * mon-fri) or @annually, @yearly, @monthly, @weekly, @daily, "
                    "@midnight, @hourly",
                    SOURCE_KARPENTER_BUDGETS,
                )
            )
        if duration is not None and not BUDGET_DURATION.fullmatch(duration):
            problems.append(
                Problem(
                    f"{at}.duration",
                    duration,
                    "not a budget duration: hours and minutes only, as cron does not work in seconds",
                    "e.g. 8h, 30m, 1h30m",
                    SOURCE_NODEPOOL_CRD,
                )
            )
        if (schedule is None) != (duration is None):
            missing, given_key = ("duration", "schedule") if duration is None else ("schedule", "duration")
            problems.append(
                Problem(
                    f"{at}.{missing}",
                    None,
                    f"a budget's schedule and duration go together: {given_key} is set, so {missing} is required "
                    "(without both, the budget is always active)",
                    "schedule and duration, or neither",
                    SOURCE_NODEPOOL_CRD,
                )
            )
        budgets.append(DisruptionBudget(budget["nodes"], reasons, schedule, duration))
    return tuple(budgets), problems
