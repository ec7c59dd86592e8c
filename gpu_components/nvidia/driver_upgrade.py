"""The GPU Operator's driver upgrade policy (``driver.upgradePolicy``): settings, rendering, rules and how a plan
diff describes it.

Where the operator installs the NVIDIA driver (``driver.enabled``), a new driver version is rolled out node by node by
its upgrade controller: it cordons a node, waits for the pods matching ``waitForCompletion.podSelector`` to finish
(``waitForCompletion.timeoutSeconds``, 0 = forever), deletes the pods using GPUs (``gpuPodDeletion``), drains the node
when ``drain.enable`` (``drain``), reloads the driver and uncordons it; at most ``maxParallelUpgrades`` nodes at a time
(0 = every node at once) and at most ``maxUnavailable`` nodes unavailable (a number or a percentage of the nodes).
NVIDIA "GPU Driver Upgrades" (:data:`SOURCE_DRIVER_UPGRADES`); the chart's values and the ClusterPolicy CRD of v26.7.0
(:data:`SOURCE_UPGRADE_POLICY`).

The library renders the whole policy explicitly (:func:`upgrade_policy`), each default a named constant, so a chart
upgrade never changes it silently, and refuses what would break an upgrade (:func:`driver_upgrade_problems`): a
timeout of 0 (the node stays cordoned for as long as a pod runs, or a deletion or drain hangs), ``maxParallelUpgrades``
0 unless asked for by name (``all_nodes_at_once``), a ``maxUnavailable`` of 0 or not a whole number or percentage, a
``waitForCompletion.podSelector`` other than the one the workload helpers' long-running pods match
(:data:`LONG_RUNNING_SELECTOR`: :func:`~gpu_components.workloads.pod_settings` labels a ``do_not_disrupt`` pod
:data:`LONG_RUNNING_LABEL`). The same rules read the ``helm_values`` escape hatch's ``driver.upgradePolicy``, merged
over the settings. A drain that cannot evict every pod (``drain`` without ``force``: ``kubectl drain`` stops at a pod
no controller manages) is warned about (:func:`driver_upgrade_warnings`).
"""

import re
from collections.abc import Mapping
from typing import Any, TypeGuard

from typing_extensions import NotRequired, TypedDict

from gpu_components.errors import Problem
from gpu_components.shape import STRICT, unknown_field

__all__ = [
    "DEFAULT_DRAIN_TIMEOUT_SECONDS",
    "DEFAULT_DRIVER_VERSION",
    "DEFAULT_MAX_PARALLEL_UPGRADES",
    "DEFAULT_MAX_UNAVAILABLE",
    "DEFAULT_POD_DELETION_TIMEOUT_SECONDS",
    "DEFAULT_WAIT_TIMEOUT_SECONDS",
    "LONG_RUNNING_LABEL",
    "LONG_RUNNING_SELECTOR",
    "DriverUpgradeSettingsArgs",
    "describe_policy",
    "driver_upgrade_problems",
    "driver_upgrade_warnings",
    "upgrade_policy",
]

SOURCE_DRIVER_UPGRADES = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-driver-upgrades.html"
"""NVIDIA "GPU Driver Upgrades": the upgrade controller and its ``driver.upgradePolicy``."""
SOURCE_UPGRADE_POLICY = (
    "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml (driver.upgradePolicy);"
    " ClusterPolicy CRD v26.7.0 spec.driver.upgradePolicy (timeoutSeconds: zero means infinite; maxParallelUpgrades:"
    " 0 means no limit, all nodes will be upgraded in parallel)"
)
"""The chart's values and the CRD's field descriptions of v26.7.0."""

LONG_RUNNING_LABEL = "gpu-components/long-running"
"""The pod label the workload helpers put on a long-running GPU pod (``do_not_disrupt``), which the upgrade policy
waits for before it deletes a node's GPU pods."""
LONG_RUNNING_SELECTOR = f"{LONG_RUNNING_LABEL}=true"
"""``waitForCompletion.podSelector``: the pods labelled :data:`LONG_RUNNING_LABEL` ``true``."""
DEFAULT_DRIVER_VERSION = "595.91.07"
"""``driver.version`` rendered where the operator installs the driver: chart v26.7.0's own default, stated so a chart
upgrade never changes the driver (and drains every GPU node) unasked. Change it with ``helm_values.driver.version``."""
DEFAULT_AUTO_UPGRADE = True
"""``autoUpgrade``: the upgrade controller on, the chart's default (NVIDIA recommends it)."""
DEFAULT_MAX_PARALLEL_UPGRADES = 1
"""``maxParallelUpgrades``: one node at a time, the chart's default."""
DEFAULT_MAX_UNAVAILABLE = "25%"
"""``maxUnavailable``: a quarter of the driver's nodes, the chart's default."""
DEFAULT_WAIT_TIMEOUT_SECONDS = 3600
"""``waitForCompletion.timeoutSeconds``: one hour for the long-running pods to finish. The chart's 0 waits forever,
keeping a node cordoned for as long as any such pod runs."""
DEFAULT_POD_DELETION_TIMEOUT_SECONDS = 300
"""``gpuPodDeletion.timeoutSeconds``: five minutes for the GPU pods to terminate, the chart's default."""
DEFAULT_DRAIN_TIMEOUT_SECONDS = 300
"""``drain.timeoutSeconds``: five minutes, the chart's default (its values: "recommended to set a timeout to avoid
infinite drain")."""

_INT_OR_STRING = "int-or-string"
_POLICY_FIELDS: Mapping[str, Any] = {
    "autoUpgrade": bool,
    "maxParallelUpgrades": int,
    "maxUnavailable": _INT_OR_STRING,
    "waitForCompletion": {"timeoutSeconds": int, "podSelector": str},
    "gpuPodDeletion": {"force": bool, "timeoutSeconds": int, "deleteEmptyDir": bool},
    "drain": {"enable": bool, "force": bool, "podSelector": str, "timeoutSeconds": int, "deleteEmptyDir": bool},
}
"""The keys and types of ``driver.upgradePolicy`` (chart values and ClusterPolicy CRD v26.7.0; ``maxUnavailable`` an
IntOrString); a nested mapping is a section of its own keys."""
_SETS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "auto_upgrade": (("autoUpgrade",),),
    "max_parallel_upgrades": (("maxParallelUpgrades",),),
    "all_nodes_at_once": (("maxParallelUpgrades",),),
    "max_unavailable": (("maxUnavailable",),),
    "wait_timeout_seconds": (("waitForCompletion", "timeoutSeconds"),),
    "pod_deletion_timeout_seconds": (("gpuPodDeletion", "timeoutSeconds"),),
    "drain": (("drain", "enable"),),
    "drain_timeout_seconds": (("drain", "timeoutSeconds"),),
    "force": (("gpuPodDeletion", "force"), ("drain", "force")),
    "delete_empty_dir": (("gpuPodDeletion", "deleteEmptyDir"), ("drain", "deleteEmptyDir")),
}
"""The ``driver.upgradePolicy`` keys each driver upgrade setting renders (:func:`upgrade_policy`)."""
_TYPE_WORDS: Mapping[object, str] = {
    bool: "true or false",
    int: "a whole number",
    str: "a string",
    _INT_OR_STRING: 'a whole number or a string (2, "2", "25%")',
}
_MAX_UNAVAILABLE = re.compile(r"^(?:[1-9][0-9]*|(?:[1-9][0-9]?|100)%)$")
_POLICY = ("driver", "upgradePolicy")


@STRICT
class DriverUpgradeSettingsArgs(TypedDict):
    """How the GPU Operator rolls a new driver version over the nodes it installs the driver on
    (``driver.upgradePolicy``; NVIDIA "GPU Driver Upgrades"). Used only where the operator installs the driver
    (``operator_driver``)."""

    auto_upgrade: NotRequired[bool]
    """The operator's upgrade controller rolls a new driver out node by node (``autoUpgrade``). Defaults to true, the
    chart's default; false leaves each node's driver pod to be restarted by hand."""
    max_parallel_upgrades: NotRequired[int]
    """Nodes upgraded at once (``maxParallelUpgrades``), at least 1. Defaults to 1. For every node at once (the
    operator's 0) set ``all_nodes_at_once`` instead."""
    all_nodes_at_once: NotRequired[bool]
    """Upgrade every node at once (``maxParallelUpgrades`` 0): every GPU pod on every node stops together. Defaults to
    false. Not with ``max_parallel_upgrades``."""
    max_unavailable: NotRequired[Any]
    """Most driver nodes unavailable during the upgrade (``maxUnavailable``, an IntOrString): a whole number of nodes
    (``2`` or ``"2"``, rendered as given) or a percentage of them (``"25%"``, rounded up by the operator), at least 1.
    Defaults to ``25%``. Typed ``Any`` because a component schema has no int-or-string type; checked by
    :func:`driver_upgrade_problems`."""
    wait_timeout_seconds: NotRequired[int]
    """Seconds to wait on a cordoned node for the long-running pods (labelled ``gpu-components/long-running=true`` by
    the workload helpers' ``do_not_disrupt``) to finish before their GPU pods are deleted
    (``waitForCompletion.timeoutSeconds``), at least 1. Defaults to 3600 (the chart's 0 waits forever)."""
    pod_deletion_timeout_seconds: NotRequired[int]
    """Seconds to wait for the node's GPU pods to terminate (``gpuPodDeletion.timeoutSeconds``), at least 1. Defaults
    to 300."""
    drain: NotRequired[bool]
    """Also drain the node (``kubectl drain``) before the driver reloads (``drain.enable``). Defaults to false, as
    the chart: deleting the GPU pods is enough to unload the driver."""
    drain_timeout_seconds: NotRequired[int]
    """Seconds before a drain gives up (``drain.timeoutSeconds``), at least 1. Defaults to 300. Only with ``drain``
    true (refused as ignored otherwise)."""
    force: NotRequired[bool]
    """Delete or drain pods that no controller manages too (``gpuPodDeletion.force``, ``drain.force``): they are not
    recreated. Defaults to false."""
    delete_empty_dir: NotRequired[bool]
    """Delete or drain pods with ``emptyDir`` volumes too, losing that data (``gpuPodDeletion.deleteEmptyDir``,
    ``drain.deleteEmptyDir``). Defaults to false."""


def upgrade_policy(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The chart's ``driver.upgradePolicy`` for the (valid) ``settings`` (:class:`DriverUpgradeSettingsArgs`), every
    field explicit, the defaults filled in (the ``DEFAULT_*`` constants)."""
    given: Mapping[str, Any] = settings or {}
    force = bool(given.get("force", False))
    empty_dir = bool(given.get("delete_empty_dir", False))
    parallel = (
        0
        if given.get("all_nodes_at_once") is True
        else given.get("max_parallel_upgrades", DEFAULT_MAX_PARALLEL_UPGRADES)
    )
    return {
        "autoUpgrade": given.get("auto_upgrade", DEFAULT_AUTO_UPGRADE),
        "maxParallelUpgrades": parallel,
        "maxUnavailable": given.get("max_unavailable", DEFAULT_MAX_UNAVAILABLE),
        "waitForCompletion": {
            "timeoutSeconds": given.get("wait_timeout_seconds", DEFAULT_WAIT_TIMEOUT_SECONDS),
            "podSelector": LONG_RUNNING_SELECTOR,
        },
        "gpuPodDeletion": {
            "force": force,
            "timeoutSeconds": given.get("pod_deletion_timeout_seconds", DEFAULT_POD_DELETION_TIMEOUT_SECONDS),
            "deleteEmptyDir": empty_dir,
        },
        "drain": {
            "enable": given.get("drain", False),
            "force": force,
            "timeoutSeconds": given.get("drain_timeout_seconds", DEFAULT_DRAIN_TIMEOUT_SECONDS),
            "deleteEmptyDir": empty_dir,
        },
    }


_TIMEOUTS = (
    (
        "wait_timeout_seconds",
        ("waitForCompletion", "timeoutSeconds"),
        "the node stays cordoned, waiting, for as long as a long-running pod runs",
    ),
    (
        "pod_deletion_timeout_seconds",
        ("gpuPodDeletion", "timeoutSeconds"),
        "a GPU pod that never terminates holds the node's upgrade forever",
    ),
    (
        "drain_timeout_seconds",
        ("drain", "timeoutSeconds"),
        "a drain that cannot finish holds the node's upgrade forever",
    ),
)


def driver_upgrade_problems(
    settings: object, helm_values: object, operator_driver: bool | None, path: str = ""
) -> list[Problem]:
    """What in the driver upgrade settings, or in ``helm_values.driver.upgradePolicy`` (merged over them), would break
    an upgrade, every problem at once (values of the wrong type in the settings are the shape check's; in
    ``helm_values.driver.upgradePolicy`` these check every key and type against the chart's values and the CRD,
    :data:`_POLICY_FIELDS`, and that ``helm_values.driver.version`` is a string).

    - a timeout of 0 (``*_timeout_seconds``; the operator reads 0 as forever), or below 0;
    - ``maxParallelUpgrades`` 0 (every node at once) unless ``all_nodes_at_once``; ``all_nodes_at_once`` beside
      ``max_parallel_upgrades``; below 0;
    - ``maxUnavailable`` not a whole number or percentage of at least 1 (0 stops every upgrade);
    - ``waitForCompletion.podSelector`` other than :data:`LONG_RUNNING_SELECTOR` (the long-running pods would not be
      waited for: their GPU pods would be deleted mid-run);
    - settings where the operator does not install the driver (``operator_driver`` false): they would be ignored.

    Args:
        settings: the ``driver_upgrade`` settings (:class:`DriverUpgradeSettingsArgs`), or None.
        helm_values: the operator's raw chart values, or None.
        operator_driver: whether the operator installs the driver; None where not known yet.
        path: where the operator's settings sit (``gpu_operator``); ``""`` at the top level.
    """
    prefix = f"{path}." if path else ""
    given: Mapping[str, Any] = settings if isinstance(settings, Mapping) else {}
    where = f"{prefix}driver_upgrade"
    problems: list[Problem] = []
    if settings is not None and operator_driver is False:
        problems.append(
            Problem(
                where,
                settings,
                "the GPU Operator does not install the driver here (operator_driver false), so it never upgrades it:"
                " the upgrade policy would be ignored",
                "operator_driver true, or no driver_upgrade",
                SOURCE_DRIVER_UPGRADES,
            )
        )
    for key, _, why in _TIMEOUTS:
        value = given.get(key)
        if _whole(value) and value < 1:
            problems.append(
                Problem(
                    f"{where}.{key}",
                    value,
                    _zero_why(value, why),
                    "a whole number of seconds of at least 1",
                    SOURCE_UPGRADE_POLICY,
                )
            )
    parallel = given.get("max_parallel_upgrades")
    at_once = given.get("all_nodes_at_once") is True
    if _whole(parallel) and parallel < 1:
        problems.append(_parallel_problem(f"{where}.max_parallel_upgrades", parallel))
    if at_once and "max_parallel_upgrades" in given:
        problems.append(
            Problem(
                f"{where}.all_nodes_at_once",
                True,
                "all_nodes_at_once sets maxParallelUpgrades 0 itself; max_parallel_upgrades says it a second way",
                "all_nodes_at_once true without max_parallel_upgrades, or max_parallel_upgrades without it",
                SOURCE_UPGRADE_POLICY,
            )
        )
    unavailable = given.get("max_unavailable")
    if "max_unavailable" in given and not _unavailable_ok(unavailable):
        problems.append(_unavailable_problem(f"{where}.max_unavailable", unavailable))
    problems += _helm_problems(helm_values, at_once, f"{prefix}helm_values.driver.upgradePolicy")
    problems += _overlap_problems(given, helm_values, where, f"{prefix}helm_values.driver.upgradePolicy")
    problems += _drain_only_problems(given, helm_values, where)
    return problems


_DRAIN_ONLY = ("drain_timeout_seconds",)
"""Settings that render only into ``drain`` (``force`` and ``delete_empty_dir`` also apply to ``gpuPodDeletion``)."""


def _drain_only_problems(given: Mapping[str, Any], helm_values: object, where: str) -> list[Problem]:
    """Drain-only settings where no drain runs (``drain`` not true, nor ``helm_values``' ``drain.enable``): the
    operator would ignore them."""
    policy: object = helm_values
    for key in (*_POLICY, "drain"):
        policy = policy.get(key) if isinstance(policy, Mapping) else None
    if given.get("drain") is True or (isinstance(policy, Mapping) and policy.get("enable") is True):
        return []
    return [
        Problem(
            f"{where}.{key}",
            given[key],
            f"applies only to a drain, and {where}.drain is not true: the GPU Operator would ignore it",
            f"{where}.drain true beside it, or no {key}",
            SOURCE_UPGRADE_POLICY,
        )
        for key in _DRAIN_ONLY
        if key in given
    ]


def _overlap_problems(given: Mapping[str, Any], helm_values: object, where: str, helm_where: str) -> list[Problem]:
    """A ``helm_values.driver.upgradePolicy`` key that a given driver upgrade setting also renders: the helm value
    would win silently, so the two ways of saying one thing are refused."""
    policy: object = helm_values
    for key in _POLICY:
        policy = policy.get(key) if isinstance(policy, Mapping) else None
    if not isinstance(policy, Mapping):
        return []
    problems: list[Problem] = []
    for setting, keys in _SETS.items():
        if setting not in given:
            continue
        for keypath in keys:
            block: object = policy
            for key in keypath[:-1]:
                block = block.get(key) if isinstance(block, Mapping) else None
            if not isinstance(block, Mapping) or keypath[-1] not in block:
                continue
            helm_path = f"{helm_where}.{'.'.join(keypath)}"
            problems.append(
                Problem(
                    helm_path,
                    block[keypath[-1]],
                    f"{where}.{setting} sets this too ({given[setting]!r}); the helm value would override it silently",
                    f"one of {where}.{setting} or {helm_path}, not both",
                    SOURCE_UPGRADE_POLICY,
                )
            )
    return problems


def _helm_problems(helm_values: object, at_once: bool, where: str) -> list[Problem]:
    """The rules of :func:`driver_upgrade_problems` on ``helm_values.driver.upgradePolicy``."""
    policy: object = helm_values
    for key in _POLICY:
        policy = policy.get(key) if isinstance(policy, Mapping) else None
    problems = _version_problems(helm_values, where.removesuffix(".upgradePolicy"))
    if policy is None:
        return problems
    problems += _policy_shape_problems(policy, _POLICY_FIELDS, where)
    if not isinstance(policy, Mapping):
        return problems
    for _, (section, field), why in _TIMEOUTS:
        block = policy.get(section)
        value = block.get(field) if isinstance(block, Mapping) else None
        if _whole(value) and value < 1:
            problems.append(
                Problem(
                    f"{where}.{section}.{field}",
                    value,
                    _zero_why(value, why),
                    "a whole number of seconds of at least 1",
                    SOURCE_UPGRADE_POLICY,
                )
            )
    parallel = policy.get("maxParallelUpgrades")
    if _whole(parallel) and (parallel < 0 or (parallel == 0 and not at_once)):
        problems.append(_parallel_problem(f"{where}.maxParallelUpgrades", parallel))
    unavailable = policy.get("maxUnavailable")
    if (_whole(unavailable) and unavailable < 1) or (
        isinstance(unavailable, str) and not _MAX_UNAVAILABLE.fullmatch(unavailable)
    ):
        problems.append(_unavailable_problem(f"{where}.maxUnavailable", unavailable))
    wait = policy.get("waitForCompletion")
    selector = wait.get("podSelector") if isinstance(wait, Mapping) else None
    if isinstance(wait, Mapping) and "podSelector" in wait and selector != LONG_RUNNING_SELECTOR:
        problems.append(
            Problem(
                f"{where}.waitForCompletion.podSelector",
                selector,
                "the upgrade waits only for the pods this selects; the workload helpers label long-running GPU pods"
                f" {LONG_RUNNING_SELECTOR} (do_not_disrupt), and any other selector would leave them unwaited for:"
                " their GPU pods would be deleted mid-run",
                f"{LONG_RUNNING_SELECTOR} (the library's; leave it out)",
                SOURCE_DRIVER_UPGRADES,
            )
        )
    return problems


def _version_problems(helm_values: object, where: str) -> list[Problem]:
    """``helm_values.driver.version`` not a string (the chart's image tag)."""
    driver = helm_values.get("driver") if isinstance(helm_values, Mapping) else None
    if not isinstance(driver, Mapping) or "version" not in driver or isinstance(driver["version"], str):
        return []
    return [
        Problem(
            f"{where}.version",
            driver["version"],
            "must be a string (the driver image's tag)",
            f'a string ("{DEFAULT_DRIVER_VERSION}")',
            SOURCE_UPGRADE_POLICY,
        )
    ]


def _policy_shape_problems(value: object, fields: Mapping[str, Any], where: str) -> list[Problem]:
    """Keys and types of a ``driver.upgradePolicy`` (section) against :data:`_POLICY_FIELDS`: unknown keys (with the
    closest known one) and values of the wrong type, every one at once."""
    allowed = list(fields)
    if not isinstance(value, Mapping):
        return [
            Problem(
                where,
                value,
                "must be a mapping of the upgrade policy's fields",
                ", ".join(allowed),
                SOURCE_UPGRADE_POLICY,
            )
        ]
    problems: list[Problem] = []
    for key, item in value.items():
        path = f"{where}.{key}"
        expected = fields.get(key) if isinstance(key, str) else None
        if expected is None:
            close = unknown_field(str(key), allowed)
            camel = re.sub(r"_([a-z])", lambda match: match.group(1).upper(), str(key))
            if close == "unknown field" and camel in fields:
                close = f"unknown field; did you mean {camel!r}?"
            problems.append(Problem(path, item, close, ", ".join(allowed), SOURCE_UPGRADE_POLICY))
        elif isinstance(expected, Mapping):
            problems += _policy_shape_problems(item, expected, path)
        elif not _is_type(item, expected):
            problems.append(Problem(path, item, f"must be {_TYPE_WORDS[expected]}", None, SOURCE_UPGRADE_POLICY))
    return problems


def _is_type(value: object, expected: object) -> bool:
    if expected == _INT_OR_STRING:
        return _whole(value) or isinstance(value, str)
    if expected is int:
        return _whole(value)
    return isinstance(value, expected) if isinstance(expected, type) else False


def _unavailable_ok(value: object) -> bool:
    """Whether ``value`` is a ``maxUnavailable`` of at least 1: a whole number, or a string of one or a percentage."""
    if _whole(value):
        return value >= 1
    return isinstance(value, str) and _MAX_UNAVAILABLE.fullmatch(value) is not None


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _zero_why(value: int, why: str) -> str:
    if value == 0:
        return f"the GPU Operator reads 0 as no timeout: {why}"
    return "a negative number of seconds"


def _parallel_problem(where: str, value: int) -> Problem:
    return Problem(
        where,
        value,
        "the GPU Operator reads 0 as no limit: every node's driver is upgraded at once, stopping every GPU pod in the"
        " cluster together"
        if value == 0
        else "a negative number of nodes",
        "a whole number of at least 1, or all_nodes_at_once true to upgrade every node at once",
        SOURCE_UPGRADE_POLICY,
    )


def _unavailable_problem(where: str, value: object) -> Problem:
    return Problem(
        where,
        value,
        "not a number of nodes or a percentage of at least 1 (0 lets no node be taken down: the upgrade never runs)",
        'a whole number of at least 1 (2 or "2") or a percentage from 1% to 100% ("25%")',
        SOURCE_UPGRADE_POLICY,
    )


def driver_upgrade_warnings(policy: Mapping[str, Any]) -> list[str]:
    """Warnings about a rendered ``driver.upgradePolicy`` (after ``helm_values``) that is valid but may stall: a
    drain without ``force`` stops at any pod no controller manages, including a long-running GPU pod started bare
    (``kubectl drain`` refuses such pods unless forced), until ``drain.timeoutSeconds``, and the node's upgrade
    fails."""
    drain = policy.get("drain")
    if not isinstance(drain, Mapping) or drain.get("enable") is not True or drain.get("force") is True:
        return []
    return [
        "driver.upgradePolicy.drain is enabled without force: kubectl drain refuses to evict a pod no controller"
        " manages (a long-running GPU pod started as a bare Pod included), so such a pod holds the drain until"
        f" drain.timeoutSeconds ({drain.get('timeoutSeconds')}) and the node's driver upgrade fails; run long GPU work"
        " as Jobs, or set driver_upgrade.force [source: " + SOURCE_DRIVER_UPGRADES + "]"
    ]


def _section(policy: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = policy.get(key)
    return value if isinstance(value, Mapping) else {}


def describe_policy(policy: object) -> str:
    """A rendered ``driver.upgradePolicy`` in a few words for a plan diff, e.g. ``maxParallelUpgrades 1,
    maxUnavailable 25%, waits 3600 s for pods gpu-components/long-running=true, then deletes GPU pods (timeout 300 s),
    no drain``; ``no upgrade policy rendered`` where there is none (the operator's defaults apply)."""
    if not isinstance(policy, Mapping):
        return "no upgrade policy rendered (the chart's defaults apply)"
    if policy.get("autoUpgrade") is False:
        return "autoUpgrade false: each node's driver pod must be restarted by hand"
    # The chart's values say gpuPodDeletion; the ClusterPolicy and NVIDIADriver CRDs say podDeletion.
    wait, drain = _section(policy, "waitForCompletion"), _section(policy, "drain")
    deletion = _section(policy, "gpuPodDeletion") or _section(policy, "podDeletion")
    selector = wait.get("podSelector") or "(none)"
    drained = f"drains (timeout {drain.get('timeoutSeconds')} s)" if drain.get("enable") is True else "no drain"
    return (
        f"maxParallelUpgrades {policy.get('maxParallelUpgrades')}, maxUnavailable {policy.get('maxUnavailable')},"
        f" waits {wait.get('timeoutSeconds')} s for pods {selector}, then deletes GPU pods (timeout"
        f" {deletion.get('timeoutSeconds')} s), {drained}"
    )
