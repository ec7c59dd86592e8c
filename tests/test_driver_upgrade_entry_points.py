"""The driver upgrade rules through every public entry point: the stack config (the example program), ``GpuCluster``,
the standalone ``NvidiaGpuOperator`` (its ``helm_values`` escape hatch included) and the package's ``Construct``
path, each refusing before anything is registered; and the diff verdict on a driver version change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.kubernetes import NvidiaGpuOperator
from gpu_components.plan import load_stack, run_program
from gpu_components.program import main as example_program
from tests.helpers import ROOT, plan_of
from tests.plan.test_engine_verdicts import program_plan, verdict
from tests.test_package_construct import construct_error

SOURCE_VALUES = (
    "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml (driver.upgradePolicy);"
    " ClusterPolicy CRD v26.7.0 spec.driver.upgradePolicy (timeoutSeconds: zero means infinite; maxParallelUpgrades:"
    " 0 means no limit, all nodes will be upgraded in parallel)"
)
GKE = {"cluster": "prod", "location": "us-central1", "service_account": "nodes@p.iam.gserviceaccount.com"}
L4 = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 2, "gcp": {"driver_version": "INSTALLATION_DISABLED"}}
"""A GKE pool under the operator's driver (the GKE default under the GPU Operator)."""
L4_POOL = {key: value for key, value in L4.items() if key != "gcp"}
OPERATOR_POOL = {"gpu_stack": "gpu-operator", "driver_version": "INSTALLATION_DISABLED"}
"""The same pool as ``GkeGpuNodePool`` args: the driver option beside the pool."""
WAIT_FOREVER = Problem(
    "gpu_operator.driver_upgrade.wait_timeout_seconds",
    0,
    "the GPU Operator reads 0 as no timeout: the node stays cordoned, waiting, for as long as a long-running pod runs",
    "a whole number of seconds of at least 1",
    SOURCE_VALUES,
)


def refused(program: Callable[[], object]) -> list[Problem]:
    """The problems ``program`` raises, checked to have registered nothing."""
    found: list[Problem] = []

    def run() -> None:
        with pytest.raises(GpuSpecError) as raised:
            program()
        found.extend(raised.value.problems)

    assert plan_of(run).resources == ()
    return found


def gke_cluster(**operator: Any) -> Callable[[], object]:
    return lambda: GpuCluster(
        "gpus", {"cloud": "gcp", "gcp": GKE, "pools": [L4], "gpu_stack": "gpu-operator", "gpu_operator": operator}
    )


def test_gpu_cluster_refuses_a_wait_that_never_ends() -> None:
    assert refused(gke_cluster(driver_upgrade={"wait_timeout_seconds": 0})) == [WAIT_FOREVER]


def test_gpu_cluster_refuses_all_nodes_at_once_through_the_escape_hatch() -> None:
    found = refused(gke_cluster(helm_values={"driver": {"upgradePolicy": {"maxParallelUpgrades": 0}}}))

    assert [(p.path, p.value) for p in found] == [
        ("gpu_operator.helm_values.driver.upgradePolicy.maxParallelUpgrades", 0)
    ]


def test_the_stack_config_refuses_upgrade_settings_the_operator_would_ignore() -> None:
    """aws-eks-operator keeps the AMI's driver (operator_driver false): an upgrade policy would never apply."""
    project, config = load_stack(ROOT, "aws-eks-operator")
    changed = {**config, "gpu-components:gpu_operator": {"driver_upgrade": {"drain": True}}}

    with pytest.raises(GpuSpecError) as raised:
        run_program(example_program, project=project, stack="aws-eks-operator", config=changed)

    assert [(p.path, p.value) for p in raised.value.problems] == [("gpu_operator.driver_upgrade", {"drain": True})]


def operator(**settings: Any) -> Callable[[], object]:
    def program() -> object:
        pool = GkeGpuNodePool("l4", {"pool": L4_POOL, **GKE, **OPERATOR_POOL})
        return NvidiaGpuOperator("op", {"pools": [pool], **settings})  # type: ignore[typeddict-item]

    return program


def test_the_standalone_operator_enforces_the_same_rules() -> None:
    problems: list[Problem] = []

    def program() -> None:
        pool = GkeGpuNodePool("l4", {"pool": L4_POOL, **GKE, **OPERATOR_POOL})
        with pytest.raises(GpuSpecError) as raised:
            NvidiaGpuOperator(
                "op",
                {
                    "pools": [pool],
                    "driver_upgrade": {"wait_timeout_seconds": 0},
                    "helm_values": {"driver": {"upgradePolicy": {"waitForCompletion": {"podSelector": "app=train"}}}},
                },
            )
        problems.extend(raised.value.problems)

    plan = plan_of(program)

    assert [p.type for p in plan.resources if p.type.startswith("gpu-components")] == [
        "gpu-components:index:GkeGpuNodePool"
    ]
    assert [(p.path, p.value) for p in problems] == [
        ("driver_upgrade.wait_timeout_seconds", 0),
        ("helm_values.driver.upgradePolicy.waitForCompletion.podSelector", "app=train"),
    ]


def test_the_standalone_operator_warns_of_a_drain_without_force(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(operator(driver_upgrade={"drain": True}))

    assert [r.getMessage() for r in caplog.records if "drain" in r.getMessage()] == [
        "gpu-components:index:NvidiaGpuOperator (op): "
        "driver.upgradePolicy.drain is enabled without force: kubectl drain refuses to evict a pod no controller"
        " manages (a long-running GPU pod started as a bare Pod included), so such a pod holds the drain until"
        " drain.timeoutSeconds (300) and the node's driver upgrade fails; run long GPU work as Jobs, or set"
        " driver_upgrade.force [source: https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
        "gpu-driver-upgrades.html]"
    ]


def test_the_package_construct_path_refuses_with_camel_case_paths() -> None:
    pool = {
        "name": "l4",
        "instanceType": "g2-standard-8",
        "maxSize": 2,
        "gcp": {"driverVersion": "INSTALLATION_DISABLED"},
    }
    error = construct_error(
        "GpuCluster",
        {
            "cloud": "gcp",
            "gcp": {"cluster": "prod", "location": "us-central1", "serviceAccount": "nodes@p.iam.gserviceaccount.com"},
            "pools": [pool],
            "gpuStack": "gpu-operator",
            "gpuOperator": {"driverUpgrade": {"maxParallelUpgrades": 0}},
        },
    )

    assert [(p.path, p.value) for p in error.problems] == [("gpuOperator.driverUpgrade.maxParallelUpgrades", 0)]


def versioned(version: str | None) -> Callable[[], None]:
    helm = {"driver": {"version": version}} if version else {}

    def program() -> None:
        gke_cluster(helm_values=helm)()

    return program


def test_a_driver_version_change_drains_the_operators_pools(tmp_path: Path) -> None:
    """It read as an update of the Helm release (exit 3): the operator's upgrade controller evicts the GPU pods of every
    node it installs the driver on."""
    text, status = verdict(tmp_path, program_plan(versioned(None)), program_plan(versioned("600.10.01")))

    assert text == (
        "Plan diff of dev:\n"
        "~ kubernetes:helm.sh/v3:Release gpus-gpu-operator-release  [drains nodes: the GPU Operator's driver version"
        ' changes ("595.91.07" -> "600.10.01"): its upgrade controller evicts the GPU pods of pools l4, node by node'
        " (maxParallelUpgrades 1, maxUnavailable 25%, waits 3600 s for pods gpu-components/long-running=true, then"
        " deletes GPU pods (timeout 300 s), no drain)]\n"
        '    values.driver.version: "595.91.07" -> "600.10.01"\n'
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4
