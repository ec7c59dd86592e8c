"""The GPU Operator's driver upgrade policy: rendered whole where the operator installs the driver, and the rules that
keep an upgrade from stalling or stopping every GPU pod at once, from the settings and the ``helm_values`` escape
hatch (:mod:`gpu_components.nvidia.driver_upgrade`)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.errors import Problem
from gpu_components.nvidia.driver_upgrade import (
    describe_policy,
    driver_upgrade_problems,
    driver_upgrade_warnings,
    upgrade_policy,
)

SOURCE_DOCS = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-driver-upgrades.html"
SOURCE_VALUES = (
    "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml (driver.upgradePolicy);"
    " ClusterPolicy CRD v26.7.0 spec.driver.upgradePolicy (timeoutSeconds: zero means infinite; maxParallelUpgrades:"
    " 0 means no limit, all nodes will be upgraded in parallel)"
)

OPERATOR_DRIVER: dict[str, Any] = {
    "enabled": True,
    "version": "595.91.07",
    "upgradePolicy": {
        "autoUpgrade": True,
        "maxParallelUpgrades": 1,
        "maxUnavailable": "25%",
        "waitForCompletion": {"timeoutSeconds": 3600, "podSelector": "gpu-components/long-running=true"},
        "gpuPodDeletion": {"force": False, "timeoutSeconds": 300, "deleteEmptyDir": False},
        "drain": {"enable": False, "force": False, "timeoutSeconds": 300, "deleteEmptyDir": False},
    },
}
"""The chart values' ``driver`` where the operator installs the driver, with the default upgrade policy."""


def test_the_default_policy_is_rendered_whole() -> None:
    assert upgrade_policy(None) == OPERATOR_DRIVER["upgradePolicy"]


def test_settings_render_into_the_policy() -> None:
    policy = upgrade_policy(
        {
            "max_parallel_upgrades": 2,
            "max_unavailable": "1",
            "wait_timeout_seconds": 7200,
            "pod_deletion_timeout_seconds": 600,
            "drain": True,
            "drain_timeout_seconds": 900,
            "force": True,
            "delete_empty_dir": True,
        }
    )

    assert policy == {
        "autoUpgrade": True,
        "maxParallelUpgrades": 2,
        "maxUnavailable": "1",
        "waitForCompletion": {"timeoutSeconds": 7200, "podSelector": "gpu-components/long-running=true"},
        "gpuPodDeletion": {"force": True, "timeoutSeconds": 600, "deleteEmptyDir": True},
        "drain": {"enable": True, "force": True, "timeoutSeconds": 900, "deleteEmptyDir": True},
    }
    assert upgrade_policy({"all_nodes_at_once": True})["maxParallelUpgrades"] == 0


def test_zero_timeouts_and_all_nodes_at_once_by_number_are_refused() -> None:
    settings = {
        "wait_timeout_seconds": 0,
        "pod_deletion_timeout_seconds": 0,
        "drain": True,
        "drain_timeout_seconds": -5,
        "max_parallel_upgrades": 0,
        "max_unavailable": "0%",
    }

    assert driver_upgrade_problems(settings, None, True, "gpu_operator") == [
        Problem(
            "gpu_operator.driver_upgrade.wait_timeout_seconds",
            0,
            "the GPU Operator reads 0 as no timeout: the node stays cordoned, waiting, for as long as a long-running"
            " pod runs",
            "a whole number of seconds of at least 1",
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.driver_upgrade.pod_deletion_timeout_seconds",
            0,
            "the GPU Operator reads 0 as no timeout: a GPU pod that never terminates holds the node's upgrade forever",
            "a whole number of seconds of at least 1",
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.driver_upgrade.drain_timeout_seconds",
            -5,
            "a negative number of seconds",
            "a whole number of seconds of at least 1",
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.driver_upgrade.max_parallel_upgrades",
            0,
            "the GPU Operator reads 0 as no limit: every node's driver is upgraded at once, stopping every GPU pod in"
            " the cluster together",
            "a whole number of at least 1, or all_nodes_at_once true to upgrade every node at once",
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.driver_upgrade.max_unavailable",
            "0%",
            "not a number of nodes or a percentage of at least 1 (0 lets no node be taken down: the upgrade never"
            " runs)",
            'a whole number of at least 1 (2 or "2") or a percentage from 1% to 100% ("25%")',
            SOURCE_VALUES,
        ),
    ]


def test_all_nodes_at_once_is_asked_for_by_name_and_only_one_way() -> None:
    assert driver_upgrade_problems({"all_nodes_at_once": True}, None, True) == []
    assert [
        p.message
        for p in driver_upgrade_problems(
            {"all_nodes_at_once": True}, {"driver": {"upgradePolicy": {"maxParallelUpgrades": 0}}}, True
        )
    ] == ["driver_upgrade.all_nodes_at_once sets this too (True); the helm value would override it silently"]
    assert [
        p.path for p in driver_upgrade_problems({"all_nodes_at_once": True, "max_parallel_upgrades": 2}, None, True)
    ] == ["driver_upgrade.all_nodes_at_once"]


def test_the_escape_hatch_is_held_to_the_same_rules() -> None:
    helm_values = {
        "driver": {
            "upgradePolicy": {
                "maxParallelUpgrades": 0,
                "maxUnavailable": 0,
                "waitForCompletion": {"timeoutSeconds": 0, "podSelector": ""},
                "gpuPodDeletion": {"timeoutSeconds": 0},
                "drain": {"enable": True, "timeoutSeconds": 0},
            }
        }
    }

    problems = driver_upgrade_problems(None, helm_values, True, "gpu_operator")

    assert [(p.path, p.value) for p in problems] == [
        ("gpu_operator.helm_values.driver.upgradePolicy.waitForCompletion.timeoutSeconds", 0),
        ("gpu_operator.helm_values.driver.upgradePolicy.gpuPodDeletion.timeoutSeconds", 0),
        ("gpu_operator.helm_values.driver.upgradePolicy.drain.timeoutSeconds", 0),
        ("gpu_operator.helm_values.driver.upgradePolicy.maxParallelUpgrades", 0),
        ("gpu_operator.helm_values.driver.upgradePolicy.maxUnavailable", 0),
        ("gpu_operator.helm_values.driver.upgradePolicy.waitForCompletion.podSelector", ""),
    ]
    assert problems[-1] == Problem(
        "gpu_operator.helm_values.driver.upgradePolicy.waitForCompletion.podSelector",
        "",
        "the upgrade waits only for the pods this selects; the workload helpers label long-running GPU pods"
        " gpu-components/long-running=true (do_not_disrupt), and any other selector would leave them unwaited for:"
        " their GPU pods would be deleted mid-run",
        "gpu-components/long-running=true (the library's; leave it out)",
        SOURCE_DOCS,
    )


def test_settings_where_the_operator_does_not_install_the_driver_are_refused() -> None:
    assert driver_upgrade_problems({"drain": True}, None, False, "gpu_operator") == [
        Problem(
            "gpu_operator.driver_upgrade",
            {"drain": True},
            "the GPU Operator does not install the driver here (operator_driver false), so it never upgrades it: the"
            " upgrade policy would be ignored",
            "operator_driver true, or no driver_upgrade",
            SOURCE_DOCS,
        )
    ]


@pytest.mark.parametrize("unavailable", ["1", "12", "1%", "25%", "100%", 1, 2])
def test_max_unavailable_takes_a_number_or_a_percentage(unavailable: int | str) -> None:
    assert driver_upgrade_problems({"max_unavailable": unavailable}, None, True) == []


@pytest.mark.parametrize("unavailable", ["0", "0%", "101%", "25 %", "a", "-1", 0, -2, True, 2.5, [1]])
def test_max_unavailable_refuses_zero_and_other_forms(unavailable: object) -> None:
    assert [p.path for p in driver_upgrade_problems({"max_unavailable": unavailable}, None, True)] == [
        "driver_upgrade.max_unavailable"
    ]


def test_a_whole_number_max_unavailable_is_refused_below_1_in_full() -> None:
    assert driver_upgrade_problems({"max_unavailable": 0}, None, True) == [
        Problem(
            "driver_upgrade.max_unavailable",
            0,
            "not a number of nodes or a percentage of at least 1 (0 lets no node be taken down: the upgrade never"
            " runs)",
            'a whole number of at least 1 (2 or "2") or a percentage from 1% to 100% ("25%")',
            SOURCE_VALUES,
        )
    ]


def test_a_whole_number_max_unavailable_renders_as_an_int() -> None:
    assert upgrade_policy({"max_unavailable": 2})["maxUnavailable"] == 2


def test_a_drain_without_force_is_warned_about() -> None:
    assert driver_upgrade_warnings(upgrade_policy(None)) == []
    assert driver_upgrade_warnings(upgrade_policy({"drain": True, "force": True})) == []
    assert driver_upgrade_warnings(upgrade_policy({"drain": True})) == [
        "driver.upgradePolicy.drain is enabled without force: kubectl drain refuses to evict a pod no controller"
        " manages (a long-running GPU pod started as a bare Pod included), so such a pod holds the drain until"
        " drain.timeoutSeconds (300) and the node's driver upgrade fails; run long GPU work as Jobs, or set"
        f" driver_upgrade.force [source: {SOURCE_DOCS}]"
    ]


def test_the_policy_in_a_few_words() -> None:
    assert describe_policy(upgrade_policy(None)) == (
        "maxParallelUpgrades 1, maxUnavailable 25%, waits 3600 s for pods gpu-components/long-running=true, then"
        " deletes GPU pods (timeout 300 s), no drain"
    )
    assert describe_policy(None) == "no upgrade policy rendered (the chart's defaults apply)"
    assert describe_policy({"autoUpgrade": False}) == (
        "autoUpgrade false: each node's driver pod must be restarted by hand"
    )


def test_helm_upgrade_policy_values_of_the_wrong_type_are_refused() -> None:
    helm = {
        "driver": {
            "version": 595,
            "upgradePolicy": {
                "maxParallelUpgrades": "2",
                "waitForCompletion": {"timeoutSeconds": "60"},
                "autoUpgrade": "no",
                "maxUnavailable": 2.5,
            },
        }
    }

    assert driver_upgrade_problems(None, helm, True, "gpu_operator") == [
        Problem(
            "gpu_operator.helm_values.driver.version",
            595,
            "must be a string (the driver image's tag)",
            'a string ("595.91.07")',
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.maxParallelUpgrades",
            "2",
            "must be a whole number",
            None,
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.waitForCompletion.timeoutSeconds",
            "60",
            "must be a whole number",
            None,
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.autoUpgrade",
            "no",
            "must be true or false",
            None,
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.maxUnavailable",
            2.5,
            'must be a whole number or a string (2, "2", "25%")',
            None,
            SOURCE_VALUES,
        ),
    ]


POLICY_KEYS = "autoUpgrade, maxParallelUpgrades, maxUnavailable, waitForCompletion, gpuPodDeletion, drain"


@pytest.mark.parametrize("policy", [[1], "oops"])
def test_a_helm_upgrade_policy_that_is_not_a_mapping_is_refused(policy: object) -> None:
    assert driver_upgrade_problems(None, {"driver": {"upgradePolicy": policy}}, True) == [
        Problem(
            "helm_values.driver.upgradePolicy",
            policy,
            "must be a mapping of the upgrade policy's fields",
            POLICY_KEYS,
            SOURCE_VALUES,
        )
    ]


@pytest.mark.parametrize("key", ["maxParalelUpgrades", "max_parallel_upgrades"])
def test_unknown_helm_upgrade_policy_keys_are_refused_with_the_closest(key: str) -> None:
    assert driver_upgrade_problems(None, {"driver": {"upgradePolicy": {key: 2}}}, True) == [
        Problem(
            f"helm_values.driver.upgradePolicy.{key}",
            2,
            "unknown field; did you mean 'maxParallelUpgrades'?",
            POLICY_KEYS,
            SOURCE_VALUES,
        )
    ]


def test_unknown_keys_in_a_helm_upgrade_policy_section_are_refused() -> None:
    assert driver_upgrade_problems(None, {"driver": {"upgradePolicy": {"drain": {"enabled": True}}}}, True) == [
        Problem(
            "helm_values.driver.upgradePolicy.drain.enabled",
            True,
            "unknown field; did you mean 'enable'?",
            "enable, force, podSelector, timeoutSeconds, deleteEmptyDir",
            SOURCE_VALUES,
        )
    ]


def test_a_whole_helm_upgrade_policy_of_the_right_types_passes() -> None:
    assert (
        driver_upgrade_problems(None, {"driver": {"version": "580.1", "upgradePolicy": upgrade_policy(None)}}, True)
        == []
    )


def test_a_helm_upgrade_policy_key_a_setting_also_sets_is_refused() -> None:
    helm = {"driver": {"upgradePolicy": {"maxParallelUpgrades": 3, "drain": {"force": True}}}}

    assert driver_upgrade_problems({"max_parallel_upgrades": 2, "force": True}, helm, True, "gpu_operator") == [
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.maxParallelUpgrades",
            3,
            "gpu_operator.driver_upgrade.max_parallel_upgrades sets this too (2); the helm value would override it"
            " silently",
            "one of gpu_operator.driver_upgrade.max_parallel_upgrades or"
            " gpu_operator.helm_values.driver.upgradePolicy.maxParallelUpgrades, not both",
            SOURCE_VALUES,
        ),
        Problem(
            "gpu_operator.helm_values.driver.upgradePolicy.drain.force",
            True,
            "gpu_operator.driver_upgrade.force sets this too (True); the helm value would override it silently",
            "one of gpu_operator.driver_upgrade.force or gpu_operator.helm_values.driver.upgradePolicy.drain.force,"
            " not both",
            SOURCE_VALUES,
        ),
    ]


def test_helm_upgrade_policy_keys_no_setting_sets_pass_beside_settings() -> None:
    helm = {"driver": {"upgradePolicy": {"maxUnavailable": "50%"}}}

    assert driver_upgrade_problems({"max_parallel_upgrades": 2}, helm, True) == []


def test_a_drain_timeout_without_drain_is_refused_as_ignored() -> None:
    assert driver_upgrade_problems({"drain_timeout_seconds": 900}, None, True, "gpu_operator") == [
        Problem(
            "gpu_operator.driver_upgrade.drain_timeout_seconds",
            900,
            "applies only to a drain, and gpu_operator.driver_upgrade.drain is not true: the GPU Operator would ignore"
            " it",
            "gpu_operator.driver_upgrade.drain true beside it, or no drain_timeout_seconds",
            SOURCE_VALUES,
        )
    ]
    assert [p.path for p in driver_upgrade_problems({"drain": False, "drain_timeout_seconds": 900}, None, True)] == [
        "driver_upgrade.drain_timeout_seconds"
    ]


def test_a_drain_timeout_with_a_drain_passes() -> None:
    assert driver_upgrade_problems({"drain": True, "drain_timeout_seconds": 900}, None, True) == []
    helm = {"driver": {"upgradePolicy": {"drain": {"enable": True}}}}
    assert driver_upgrade_problems({"drain_timeout_seconds": 900}, helm, True) == []
