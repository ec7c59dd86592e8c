"""GKE Autopilot GPU workloads (gpu_components.gcp.autopilot): the version rule of the Accelerator compute class
selector, the node selector, the refusals, and GkeAutopilotGpuPool under the plan's mocks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.cli import main
from gpu_components.cluster import GpuCluster, validate_cluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import cluster as gcp_cluster
from gpu_components.gcp.autopilot import (
    ACCELERATOR_CLASS_MIN_VERSION,
    ACCELERATOR_SELECTOR_UNTIL,
    GkeAutopilotGpuPool,
    accelerator_class_needed,
    autopilot_node_selector,
    autopilot_problems,
    autopilot_spec,
)
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.workloads import gpu_pod_settings
from tests.helpers import BOTH_MODES, ROOT, copy_example_project, example_plan, plan_and

L4 = {"name": "l4", "instance_type": "g2-standard-8"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def messages(error: pytest.ExceptionInfo[GpuSpecError]) -> list[tuple[str, str]]:
    return [(problem.path, problem.message) for problem in error.value.problems]


@pytest.mark.parametrize(
    ("version", "needed"),
    [
        ("1.28.9-gke.1069000", True),
        ("1.29.2", True),
        ("1.29.3-gke.1093000", True),
        ("1.29.4-gke.1426999", True),
        ("1.29.4-gke.1427000", False),
        ("1.29.5", False),
        ("1.30", False),
        ("1.33.3-gke.1136000", False),
    ],
)
def test_accelerator_class_selector_only_on_the_versions_that_need_it(version: str, needed: bool) -> None:
    assert accelerator_class_needed(version) is needed


@pytest.mark.parametrize("version", ["1.29", "1.28", "1.28.9", "1.29.4"])
def test_a_version_prefix_on_both_sides_of_a_boundary_is_refused_not_guessed(version: str) -> None:
    with pytest.raises(GpuSpecError) as error:
        accelerator_class_needed(version)
    [(path, message)] = messages(error)
    assert path == "kubernetes_version"
    assert "names GKE versions on both sides" in message and "give the full version" in message


@pytest.mark.parametrize("version", ["one", "v1.30", "1.33 ", "1.30-gke", "1.30.1-gke.x"])
def test_a_malformed_version_is_refused_as_no_gke_version(version: str) -> None:
    with pytest.raises(GpuSpecError) as error:
        accelerator_class_needed(version)
    [problem] = error.value.problems
    assert (problem.value, problem.path) == (version, "kubernetes_version")
    assert problem.message.startswith("not a GKE version (MAJOR.MINOR, MAJOR.MINOR.PATCH or MAJOR.MINOR.PATCH-gke.N")


def test_an_unquoted_yaml_version_is_told_to_quote_it() -> None:
    with pytest.raises(GpuSpecError) as error:
        accelerator_class_needed(1.3)
    [problem] = error.value.problems
    assert "a number, not a version string: YAML reads 1.30 as 1.3; quote it" in problem.message


@pytest.mark.parametrize("version", [None, "latest", "-"])
def test_an_unknown_version_is_refused(version: object) -> None:
    with pytest.raises(GpuSpecError) as error:
        accelerator_class_needed(version)
    [problem] = error.value.problems
    assert problem.value == version
    assert "the library does not guess the release channel's" in problem.message
    assert problem.source == "https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus"


def test_a_version_before_the_accelerator_class_is_refused() -> None:
    with pytest.raises(GpuSpecError) as error:
        accelerator_class_needed("1.28.8")
    [problem] = error.value.problems
    assert problem.message.startswith(
        "the Accelerator compute class for Autopilot GPU pods isn't supported before 1.28.9-gke.1069000"
    )


def test_the_boundaries_are_googles() -> None:
    assert ACCELERATOR_CLASS_MIN_VERSION == "1.28.9-gke.1069000"
    assert ACCELERATOR_SELECTOR_UNTIL == "1.29.4-gke.1427000"


def test_node_selector_on_a_current_version_is_accelerator_and_count_only() -> None:
    spec = autopilot_spec({"name": "h100", "instance_type": "a3-highgpu-8g"})
    assert autopilot_node_selector(spec, "1.33") == {
        "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
        "cloud.google.com/gke-accelerator-count": "8",
    }


def test_node_selector_on_an_older_version_adds_the_accelerator_class() -> None:
    spec = autopilot_spec({**L4, "spot": True})
    assert autopilot_node_selector(spec, "1.29.3-gke.1093000") == {
        "cloud.google.com/compute-class": "Accelerator",
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-accelerator-count": "1",
        "cloud.google.com/gke-spot": "true",
    }


def test_time_sharing_and_mig_select_gkes_labels() -> None:
    shared = autopilot_spec({**L4, "time_slicing": {"replicas": 4}})
    assert autopilot_node_selector(shared, "1.30") == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-accelerator-count": "1",
        "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "4",
    }
    mig = autopilot_spec({"name": "a100", "instance_type": "a2-highgpu-1g", "mig": {"profile": "1g.5gb"}})
    assert autopilot_node_selector(mig, "1.30")["cloud.google.com/gke-gpu-partition-size"] == "1g.5gb"


def test_node_pool_fields_are_refused_each_with_the_reason() -> None:
    pool = {
        **L4,
        "min_size": 0,
        "max_size": 3,
        "desired_size": 1,
        "disk_size_gb": 200,
        "labels": {"team": "ml"},
        "taints": [{"key": "a", "value": "b", "effect": "NoSchedule"}],
        "provisioning": {"provisioner": "compute-class"},
        "gcp": {"driver_version": "LATEST"},
    }
    with pytest.raises(GpuSpecError) as error:
        autopilot_spec(pool, "pools[0]")
    paths = [path for path, _ in messages(error)]
    assert paths == [
        "pools[0].max_size",
        "pools[0].min_size",
        "pools[0].desired_size",
        "pools[0].disk_size_gb",
        "pools[0].labels",
        "pools[0].taints",
        "pools[0].provisioning",
        "pools[0].gcp",
    ]
    assert all("Autopilot has no node pools" in message for _, message in messages(error))


@pytest.mark.parametrize(
    ("gpu_stack", "reason", "source"),
    [
        ("gpu-operator", "using the GPU Operator is not supported", "gpu-operator/latest/google-gke.html"),
        ("dra", "DRA setup does not support Autopilot", "how-to/set-up-dra"),
        ("device-plugin", "GKE runs its own device plugin", "how-to/autopilot-gpus"),
    ],
)
def test_other_gpu_stacks_are_refused_with_reason_and_source(gpu_stack: str, reason: str, source: str) -> None:
    [problem] = autopilot_problems(autopilot_spec(L4), "1.30", gpu_stack)
    assert (problem.path, problem.value, problem.valid) == ("gpu_stack", gpu_stack, "auto")
    assert reason in problem.message
    assert problem.source is not None and problem.source.endswith(source)


def test_mps_is_refused() -> None:
    [problem] = autopilot_problems(autopilot_spec({**L4, "mps": {"replicas": 2}}), "1.30")
    assert problem.path == "pool.mps"
    assert "MPS is not offered on GKE Autopilot" in problem.message


def test_sharing_before_autopilot_time_sharing_is_refused() -> None:
    spec = autopilot_spec({**L4, "time_slicing": {"replicas": 4}})
    [problem] = autopilot_problems(spec, "1.29.2-gke.1")
    assert problem.path == "kubernetes_version"
    assert "offers from 1.29.3-gke.1093000 on" in problem.message
    assert autopilot_problems(spec, "1.29.3-gke.1093000") == []


def test_gkes_sharing_limits_still_apply() -> None:
    spec = autopilot_spec({**L4, "time_slicing": {"replicas": 64}})
    [problem] = autopilot_problems(spec, "1.30")
    assert problem.path == "pool.time_slicing.replicas"


@BOTH_MODES
def test_component_registers_nothing_and_gives_pod_settings(preview: bool) -> None:
    plan, pool = plan_and(
        lambda: GkeAutopilotGpuPool(
            "l4", {"pool": {**L4, "time_slicing": {"replicas": 2}}, "kubernetes_version": "1.30"}
        ),
        preview,
    )
    assert [r.type for r in plan.resources] == ["gpu-components:index:GkeAutopilotGpuPool"]
    assert pool.device_plugin_host == "cloud"
    assert pool.advertised_resources == {"nvidia.com/gpu": 2}
    assert pool.accelerator_class is False
    settings = gpu_pod_settings(pool, 1)
    assert settings == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {
            "cloud.google.com/gke-accelerator": "nvidia-l4",
            "cloud.google.com/gke-accelerator-count": "1",
            "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
            "cloud.google.com/gke-max-shared-clients-per-gpu": "2",
        },
    }


def test_pod_settings_keep_the_accelerator_class_beside_the_gpu_selectors() -> None:
    _, pool = plan_and(lambda: GkeAutopilotGpuPool("l4", {"pool": L4, "kubernetes_version": "1.29.3-gke.1093000"}))
    assert gpu_pod_settings(pool, 1)["nodeSelector"]["cloud.google.com/compute-class"] == "Accelerator"


def test_dra_access_and_no_gpu_taint_are_refused_on_autopilot() -> None:
    errors: list[GpuSpecError] = []

    def build() -> None:
        try:
            args: Any = {"pool": {**L4, "gpu_access": "dra", "gpu_taint": False}, "kubernetes_version": "1.34"}
            GkeAutopilotGpuPool("l4", args)
        except GpuSpecError as error:
            errors.append(error)

    plan, _ = plan_and(build)
    assert plan.resources == ()
    [error] = errors
    assert [(p.path, p.value) for p in error.problems] == [("pool.gpu_access", "dra"), ("pool.gpu_taint", False)]
    assert "GKE's DRA setup does not support Autopilot clusters" in error.problems[0].message
    assert "GKE taints Autopilot GPU nodes nvidia.com/gpu=present:NoSchedule itself" in error.problems[1].message


def test_component_refuses_before_registering_anything() -> None:
    errors: list[GpuSpecError] = []

    def build() -> None:
        try:
            args: Any = {"pool": {**L4, "max_size": 2}, "gpu_stack": "gpu-operator"}
            GkeAutopilotGpuPool("l4", args)
        except GpuSpecError as error:
            errors.append(error)

    plan, _ = plan_and(build)
    assert plan.resources == ()
    [error] = errors
    assert [p.path for p in error.problems] == ["kubernetes_version", "pool.max_size"]


# ---------------------------------------------------------------------------------------------------------------
# Every entry point: GpuCluster, the stack config (offline plan, CLI), validate_cluster
# ---------------------------------------------------------------------------------------------------------------

AUTOPILOT_WIRING = {"cluster": "c", "location": "us-central1", "autopilot": True, "kubernetes_version": "1.33"}


@BOTH_MODES
def test_gpu_cluster_on_autopilot_registers_only_the_workload_targets(preview: bool) -> None:
    args: Any = {
        "cloud": "gcp",
        "gcp": AUTOPILOT_WIRING,
        "pools": [L4, {"name": "h100", "instance_type": "a3-highgpu-8g"}],
    }
    plan, cluster = plan_and(lambda: GpuCluster("gpus", args), preview)
    assert sorted((r.type, r.name) for r in plan.resources) == [
        ("gpu-components:index:GkeAutopilotGpuPool", "gpus-h100"),
        ("gpu-components:index:GkeAutopilotGpuPool", "gpus-l4"),
        ("gpu-components:index:GpuCluster", "gpus"),
    ]
    assert (cluster.device_plugin, cluster.gpu_operator, cluster.dra_driver) == (None, None, None)
    assert cluster.pool_scheduling["h100"] == {
        "nodeSelector": {
            "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
            "cloud.google.com/gke-accelerator-count": "8",
        },
        "tolerations": [GPU_TOLERATION],
        "advertisedResources": {"nvidia.com/gpu": 8},
        "draDevices": {},
        "devicePluginHost": "cloud",
    }


def test_gpu_cluster_on_autopilot_refuses_everything_else_before_registering() -> None:
    errors: list[GpuSpecError] = []
    args: Any = {
        "cloud": "gcp",
        "gpu_stack": "dra",
        "dra": {"kubernetes_version": "1.34"},
        "gcp": {**AUTOPILOT_WIRING, "kubernetes_version": "latest", "service_account": "sa@p.iam"},
        "pools": [{**L4, "max_size": 4, "gcp": {"driver_version": "LATEST"}}],
    }

    def build() -> None:
        try:
            GpuCluster("gpus", args)
        except GpuSpecError as error:
            errors.append(error)

    plan, _ = plan_and(build)
    assert plan.resources == ()
    [error] = errors
    assert [(p.path, p.value) for p in error.problems] == [
        ("gpu_stack", "dra"),
        ("dra", {"kubernetes_version": "1.34"}),
        ("gcp.service_account", "sa@p.iam"),
        ("gcp.kubernetes_version", "latest"),
        ("pools[0].max_size", 4),
        ("pools[0].gcp", {"driver_version": "LATEST"}),
    ]
    assert "GKE's DRA setup does not support Autopilot" in error.problems[0].message


def test_kubernetes_version_in_standard_wiring_is_refused() -> None:
    args: Any = {
        "cloud": "gcp",
        "gcp": {"cluster": "c", "location": "us-central1-a", "kubernetes_version": "1.33"},
        "pools": [{**L4, "max_size": 2}],
    }
    with pytest.raises(GpuSpecError) as error:
        plan_and(lambda: GpuCluster("gpus", args))
    [problem] = error.value.problems
    assert problem.path == "gcp.kubernetes_version"
    assert "only read on an Autopilot cluster" in problem.message


def test_validate_cluster_takes_the_stack_cluster_config() -> None:
    cluster = {"name": "c", "location": "us-central1", "autopilot": True, "kubernetes_version": "1.29.3-gke.1093000"}
    [spec] = validate_cluster("gcp", [L4], cluster=cluster)
    assert (spec.min_size, spec.max_size, spec.gpu_count) == (0, 0, 1)
    with pytest.raises(GpuSpecError) as error:
        validate_cluster("gcp", [L4], "gpu-operator", cluster={**cluster, "kubernetes_version": "1.29"})
    assert [(p.path, p.value) for p in error.value.problems] == [
        ("gpu_stack", "gpu-operator"),
        ("cluster.kubernetes_version", "1.29"),
    ]


def test_stack_cluster_config_refuses_node_pool_keys_with_autopilot() -> None:
    cluster = {
        "name": "c",
        "location": "us-central1",
        "project": "p",
        "autopilot": True,
        "kubernetes_version": "1.33",
        "system_node_pool": {"machine_type": "e2-standard-4"},
        "node_locations": ["us-central1-a"],
    }
    problems = gcp_cluster.config_problems(cluster)
    assert [(p.path, p.valid) for p in problems] == [
        ("cluster.system_node_pool", "no system_node_pool with autopilot"),
        ("cluster.node_locations", "no node_locations with autopilot"),
    ]
    existing = {"name": "c", "location": "us-central1", "project": "p", "existing": True, "autopilot": True}
    assert gcp_cluster.config_problems({**existing, "kubernetes_version": "1.33"}) == []


def test_example_stack_plans_an_autopilot_cluster_and_no_node_pool() -> None:
    plan = example_plan("gcp-gke-autopilot")
    types = sorted({r.type for r in plan.resources})
    assert "gcp:container/nodePool:NodePool" not in types
    assert "kubernetes:helm.sh/v3:Release" not in types
    [cluster] = [r for r in plan.resources if r.type == "gcp:container/cluster:Cluster"]
    assert cluster.inputs["enableAutopilot"] is True
    assert cluster.inputs["minMasterVersion"] == "1.33"
    assert "nodeConfig" not in cluster.inputs and "removeDefaultNodePool" not in cluster.inputs
    jobs = {r.name: r.inputs["spec"]["template"]["spec"] for r in plan.resources if r.type == "kubernetes:batch/v1:Job"}
    assert jobs["l4-vectoradd"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-accelerator-count": "1",
        "cloud.google.com/gke-spot": "true",
    }


def test_cli_reports_autopilot_refusals_from_the_stack_config(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.gcp-gke-autopilot.yaml").read_text())
    stack["config"]["gpu-components:gpu_stack"] = "gpu-operator"
    del stack["config"]["gpu-components:cluster"]["kubernetes_version"]
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "gpu_stack: not on GKE Autopilot: NVIDIA: 'For Autopilot Pods, using the GPU Operator is not supported'" in (
        result.output
    )
    assert "cluster.kubernetes_version: required on Autopilot" in result.output


@pytest.mark.parametrize("add_on", [NvidiaDevicePlugin, NvidiaGpuOperator])
def test_standalone_add_ons_refuse_an_autopilot_pool(add_on: Any) -> None:
    errors: list[GpuSpecError] = []

    def build() -> None:
        pool = GkeAutopilotGpuPool("l4", {"pool": L4, "kubernetes_version": "1.33"})  # type: ignore[typeddict-item]
        try:
            add_on("addon", {"pools": [pool]})
        except GpuSpecError as error:
            errors.append(error)

    plan, _ = plan_and(build)
    assert [r.type for r in plan.resources] == ["gpu-components:index:GkeAutopilotGpuPool"]
    [error] = errors
    [problem] = error.problems
    assert problem.path == "pools[0]"
    assert "advertised by the cloud's managed device plugin" in problem.message
