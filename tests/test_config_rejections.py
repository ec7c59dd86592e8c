"""Bad input found by trying the library as a new user: each is a clear problem, before anything is registered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.aws import cluster as aws_cluster
from gpu_components.azure import cluster as azure_cluster
from gpu_components.cli import main
from gpu_components.cluster import validate_cluster
from gpu_components.gcp import cluster as gcp_cluster
from tests.helpers import copy_example_project

ROOT = Path(__file__).resolve().parents[1]
SHARED = {"name": "shared", "instance_type": "g6.xlarge", "max_size": 4, "time_slicing": {"replicas": 2}}
WIRING = {"cluster_name": "prod", "subnet_ids": ["subnet-1"]}


def plan_stack(tmp_path: Path, base: str, change: dict[str, Any]) -> Any:
    copy_example_project(tmp_path)
    (tmp_path / "stacks").mkdir(exist_ok=True)
    stack = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{base}.yaml").read_text())
    for key, value in change.items():
        if value is None:
            del stack["config"][key]
        else:
            stack["config"][key] = value
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    return CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path)])


def test_device_plugin_settings_from_stack_config_reach_the_release(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"namespace": "gpu-system"}})
    assert result.exit_code == 0, result.output
    releases = [r for r in json.loads(result.output)["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release"]
    assert [r["inputs"]["namespace"] for r in releases] == ["gpu-system"]


def test_misspelt_config_key_is_reported(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:gpu_stak": "gpu-operator"})
    assert result.exit_code == 1
    assert (
        "gpu-components:gpu_stak: unknown config key; did you mean 'gpu-components:gpu_stack'? (got 'gpu-operator'); "
        "valid: cloud, cluster, pools" in result.output
    )


def test_non_mapping_cluster_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:cluster": "c"})
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert (
        "gpu-components:cluster: must be a YAML mapping (got 'c'); valid: a mapping with keys auto_mode, existing, "
        "karpenter, kubernetes_version, name, node_role_arn, subnet_ids, system_node_group, vpc_id"
    ) in result.output


def test_a_scalar_for_pools_or_settings_lists_what_is_valid(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:pools": "l4", "gpu-components:dra": "on"})
    assert result.exit_code == 1
    assert (
        "gpu-components:pools: must be a YAML list of pools (got 'l4'); valid: a list of pools, each a mapping with "
        "keys aws, azure, cpu_architecture, desired_size, disk_size_gb, gcp, gpu_access, gpu_count, gpu_model, "
        "gpu_taint, instance_type, labels, max_size, mig, min_size, mps, name, provisioning, spot, taints, "
        "time_slicing"
    ) in result.output
    assert (
        "gpu-components:dra: must be a YAML mapping (got 'on'); valid: a mapping with keys chart_version, "
        "extended_resource, feature_gates, helm_values, installer, kubernetes_version, namespace"
    ) in result.output


def test_invalid_device_plugin_settings_are_reported(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"namespace": "Bad_NS", "bogus": 1}})
    assert result.exit_code == 1
    assert "device_plugin.bogus: unknown field" in result.output
    assert "device_plugin.namespace: not a valid namespace name (DNS-1123 label) (got 'Bad_NS')" in result.output


def test_an_unpinned_device_plugin_chart_version_in_stack_config_is_refused(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"chart_version": "^0.20"}})
    assert result.exit_code == 1
    assert (
        "device_plugin.chart_version: not an exact nvidia-device-plugin chart version: every install would take "
        "whatever the repository serves then" in result.output
    )
    assert "(got '^0.20'); valid: an exact version MAJOR.MINOR.PATCH" in result.output


def test_operator_helm_values_may_not_blank_nfd_worker_tolerations() -> None:
    blank = {"node-feature-discovery": {"worker": {"tolerations": []}}}
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [SHARED], "gpu-operator", gpu_operator={"helm_values": blank})
    [problem] = caught.value.problems
    assert problem.path == "gpu_operator.helm_values.node-feature-discovery.worker.tolerations"
    assert problem.value == []
    assert problem.valid == "leave it to the library"


def test_operator_helm_values_may_not_take_over_the_driver() -> None:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [SHARED], "gpu-operator", gpu_operator={"helm_values": {"driver": {"enabled": True}}})
    [problem] = caught.value.problems
    assert problem.path == "gpu_operator.helm_values.driver.enabled"
    assert problem.valid == "gpu_operator.operator_driver"
    assert problem.message == "decided by the library: one driver owner per pool: set operator_driver"


def test_device_plugin_stack_is_rejected_where_the_cloud_runs_its_own() -> None:
    pool = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 2}
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("gcp", [pool], "device-plugin")
    [problem] = caught.value.problems
    assert problem.path == "gpu_stack"
    assert "gcp's own device plugin" in problem.message


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"cloud": "aws", "pools": [SHARED], "aws": WIRING, "gpu_stak": "x"},
            [("gpu_stak", "unknown field; did you mean 'gpu_stack'?")],
        ),
        (
            {"cloud": "aws", "pools": [SHARED], "aws": {"subnet_ids": ["s"]}},
            [("aws.cluster_name", "required field is missing")],
        ),
        ({"cloud": "aws", "pools": [SHARED], "aws": "prod"}, [("aws", "EksWiringArgs is a mapping of its fields")]),
        (
            {"cloud": "aws", "pools": [SHARED], "aws": {**WIRING, "clustr_name": "x"}, "azure": {}},
            [
                ("azure", "wiring for azure, but the cluster is on aws"),
                ("aws.clustr_name", "unknown field; did you mean 'cluster_name'?"),
            ],
        ),
    ],
)
def test_cluster_args_are_checked(args: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    with pytest.raises(GpuSpecError) as caught:
        GpuCluster("g", args)  # type: ignore[arg-type]
    assert [(p.path, p.message) for p in caught.value.problems] == expected


def test_diff_of_a_malformed_plan_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"resources": [{"urn": 1}]}))
    result = CliRunner().invoke(main, ["diff", str(bad), str(bad)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "needs 'urn', 'type' and 'name'" in result.output


def test_existing_cluster_with_settings_only_a_new_cluster_uses_is_refused(tmp_path: Path) -> None:
    # Before, the system pool and version were dropped without a word when attaching to an existing cluster.
    cluster = {
        "name": "gpudemo",
        "existing": True,
        "resource_group_name": "gpudemo-rg",
        "kubernetes_version": "1.34",
        "system_node_pool": {"count": 2},
    }
    result = plan_stack(tmp_path, "azure-aks", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    reason = "applies only to a cluster this program creates; with existing: true it would be ignored"
    valid = "valid: remove it, or create the cluster (existing: false)"
    assert f"cluster.kubernetes_version: {reason} (got '1.34'); {valid}" in result.output
    assert f"cluster.system_node_pool: {reason} (got {{'count': 2}}); {valid}" in result.output


@pytest.mark.parametrize(
    ("stack", "system", "expected"),
    [
        (
            "aws-eks",
            {"system_node_group": {"max_size": 1}},
            "cluster.system_node_group.desired_size: must lie between min_size 1 (default) and max_size 1, which"
            " this desired_size does not (default: 2); valid: 1..1",  # desired_size not set: shown as its default
        ),
        (
            "aws-eks",
            {"system_node_group": {"min_size": 4, "desired_size": 4}},  # max_size not set (3)
            "cluster.system_node_group.max_size: must be at least 1 and at least min_size 4 (default: 3); valid: >= 4",
        ),
        (
            "aws-eks",
            {"system_node_group": {"min_size": 4, "max_size": 3, "desired_size": 3}},
            "cluster.system_node_group.max_size: must be at least 1 and at least min_size 4 (got 3); valid: >= 4",
        ),
        (
            "azure-aks",
            {"system_node_pool": {"min_count": 0, "max_count": 3, "count": 1}},
            "cluster.system_node_pool.min_count: must be at least 1 (got 0); valid: >= 1 [source: "
            "https://learn.microsoft.com/azure/aks/use-system-pools (system pools need at least one node)]",
        ),
        (
            "gcp-gke",
            {"system_node_pool": {"min_size": 0, "max_size": 0, "desired_size": 0}},
            "cluster.system_node_pool.max_size: must be at least 1 and at least min_size 0 (got 0); valid: >= 1",
        ),
    ],
)
def test_system_pool_node_counts_are_ordered(tmp_path: Path, stack: str, system: dict[str, Any], expected: str) -> None:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    cluster = {**config["gpu-components:cluster"], **system}
    result = plan_stack(tmp_path, stack, {"gpu-components:cluster": cluster})
    assert result.exit_code == 1, result.output
    assert expected in result.output


EKS_VERSION = (
    "valid: MAJOR.MINOR, e.g. 1.34 [source: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html]"
)
AKS_VERSION = (
    "valid: MAJOR.MINOR (the latest patch), or MAJOR.MINOR.PATCH, e.g. 1.34 "
    "[source: https://learn.microsoft.com/azure/aks/supported-kubernetes-versions]"
)
GKE_VERSION = (
    "valid: MAJOR.MINOR, MAJOR.MINOR.PATCH or MAJOR.MINOR.PATCH-gke.N (e.g. 1.33.3-gke.1136000), latest, or - (the "
    "default) [source: https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters"
    "#Cluster]"
)


@pytest.mark.parametrize(
    ("cloud", "version", "expected"),
    [
        ("aws", "1.34", []),
        ("aws", "1.34\n", [f"got '1.34\\n'); {EKS_VERSION}"]),
        ("aws", "1.34.2", [f"got '1.34.2'); {EKS_VERSION}"]),
        ("azure", "1.34", []),
        ("azure", "1.34.1", []),
        ("azure", " 1.34", [f"got ' 1.34'); {AKS_VERSION}"]),
        ("gcp", "1.33.3-gke.1136000", []),
        ("gcp", "latest", []),
        ("gcp", "1.33\n", [f"got '1.33\\n'); {GKE_VERSION}"]),
        ("gcp", "latest ", [f"got 'latest '); {GKE_VERSION}"]),
    ],
)
def test_kubernetes_version_must_be_the_clouds_form_whole(cloud: str, version: str, expected: list[str]) -> None:
    # Before, a trailing newline (a YAML block scalar) or space reached the cloud's API.
    module = {"aws": aws_cluster, "azure": azure_cluster, "gcp": gcp_cluster}[cloud]
    cluster = {"name": "demo", "project": "p", "resource_group_name": "rg", "kubernetes_version": version}
    found = [
        str(problem) for problem in module.config_problems(cluster) if problem.path == "cluster.kubernetes_version"
    ]
    assert found == [
        f"cluster.kubernetes_version: not a Kubernetes version the cloud accepts ({got}" for got in expected
    ]


GKE_OPERATOR_STACK = (
    "config:\n"
    "  gcp:project: proj\n"
    "  gpu-components:cloud: gcp\n"
    "  gpu-components:gpu_stack: gpu-operator\n"
    "  gpu-components:gpu_operator: {operator_driver: false}\n"
    "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
    "  gpu-components:pools:\n"
    "    - name: l4\n      instance_type: g2-standard-8\n      max_size: 2\n"
)


def test_stack_config_runs_the_gpu_operator_on_googles_cos_driver(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(GKE_OPERATOR_STACK)
    result = CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path)])
    assert result.exit_code == 0, result.output
    resources = json.loads(result.output)["resources"]
    [pool] = [
        r for r in resources if r["type"] == "gcp:container/nodePool:NodePool" and r["name"].endswith("l4-node-pool")
    ]
    assert pool["inputs"]["nodeConfig"]["imageType"] == "COS_CONTAINERD"
    [release] = [r for r in resources if r["type"] == "kubernetes:helm.sh/v3:Release"]
    assert release["inputs"]["values"]["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert [r["type"] for r in resources if r["name"].endswith("gpu-operator-driver-installer")] == [
        "kubernetes:yaml/v2:ConfigFile"
    ]


def test_stack_config_refuses_gkes_own_driver_beside_googles_installer(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = GKE_OPERATOR_STACK + "      gcp: {driver_version: LATEST}\n"
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(stack)
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "pools[0].gcp.driver_version: GKE would install it (driver_version LATEST and " in result.output
    assert "gpu_operator.operator_driver false)" in result.output
    assert "Traceback" not in result.output


def test_stack_config_refuses_helm_values_that_move_googles_driver(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = GKE_OPERATOR_STACK.replace(
        "{operator_driver: false}", "{operator_driver: false, helm_values: {hostPaths: {driverInstallDir: /run/x}}}"
    )
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(stack)
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert (
        "gpu_operator.helm_values.hostPaths.driverInstallDir: decided by the library: the operator finds the driver in "
        "/home/kubernetes/bin/nvidia, where GKE's driver installer puts the driver (got '/run/x'); valid: leave it to "
        "the library" in result.output
    )
