"""NvidiaGpuOperator under Pulumi mocks: namespace, ConfigMaps, Helm release; manifests valid for EKS versions."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.cluster import GpuCluster
from gpu_components.errors import Default, GpuSpecError
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperator
from gpu_components.plan import Plan
from tests.helpers import names, plan_of, pool_components, resource
from tests.nvidia.mig_parted import mig_parted_problems

POOLS: list[Any] = [
    {"name": "shared", "instance_type": "g5.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}},
    {
        "name": "mig",
        "instance_type": "p4de.24xlarge",
        "max_size": 2,
        "mig": {"profile": "1g.10gb"},
        "taints": [{"key": "dedicated", "value": "training", "effect": "NoExecute"}],
    },
]
GKE_POOLS: list[Any] = [{"name": "l4", "instance_type": "g2-standard-4", "max_size": 2}]
RELEASE = "kubernetes:helm.sh/v3:Release"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"


def operator_plan(preview: bool = True, **extra: Any) -> Plan:
    return plan_of(
        lambda: NvidiaGpuOperator("op", {"pools": pool_components("aws", POOLS, "gpu-operator"), **extra}),
        preview=preview,
    )


@pytest.mark.parametrize("preview", [True, False])
def test_registers_namespace_configmaps_and_pinned_release(preview: bool) -> None:
    plan = operator_plan(preview)
    namespace = resource(plan, "kubernetes:core/v1:Namespace", "op-namespace").inputs
    assert namespace["metadata"] == {
        "name": "gpu-operator",
        "labels": {"pod-security.kubernetes.io/enforce": "privileged"},
    }
    plugin = resource(plan, CONFIG_MAP, "op-device-plugin-config").inputs
    assert plugin["metadata"] == {"name": "gpu-operator-device-plugin-configs", "namespace": "gpu-operator"}
    assert sorted(plugin["data"]) == ["default", "mig", "shared"]
    assert yaml.safe_load(plugin["data"]["mig"])["flags"] == {"migStrategy": "single", "failOnInitError": True}
    mig = resource(plan, CONFIG_MAP, "op-mig-config").inputs
    assert mig["metadata"] == {"name": "gpu-operator-mig-parted-config", "namespace": "gpu-operator"}
    assert list(mig["data"]) == ["config.yaml"]
    assert list(yaml.safe_load(mig["data"]["config.yaml"])["mig-configs"]) == ["all-disabled", "all-1g.10gb"]
    release = resource(plan, RELEASE, "op-release").inputs
    assert (release["chart"], release["version"], release["name"], release["namespace"]) == (
        "gpu-operator",
        "v26.7.0",
        "gpu-operator",
        "gpu-operator",
    )
    assert release["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    values = release["values"]
    assert values["devicePlugin"]["config"] == {"default": "default", "name": "gpu-operator-device-plugin-configs"}
    assert values["migManager"]["config"] == {"default": "all-disabled", "name": "gpu-operator-mig-parted-config"}
    assert (values["driver"], values["toolkit"], values["mig"]) == (
        {"enabled": False},
        {"enabled": False},
        {"strategy": "single"},
    )
    assert {"effect": "NoExecute", "key": "dedicated", "operator": "Equal", "value": "training"} in values[
        "daemonsets"
    ]["tolerations"]
    assert names(plan, "kubernetes:core/v1:ResourceQuota") == []


def test_component_attributes_hold_the_rendered_configs_and_values() -> None:
    captured: list[NvidiaGpuOperator] = []
    plan_of(lambda: captured.append(NvidiaGpuOperator("op", {"pools": pool_components("aws", POOLS, "gpu-operator")})))
    component = captured[0]
    assert [spec.name for spec in component.specs] == ["shared", "mig"]
    assert sorted(component.device_plugin_configs) == ["default", "mig", "shared"]
    assert mig_parted_problems(yaml.safe_load(component.mig_configs["config.yaml"])) == []
    assert component.values["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": False}}


def test_settings_override_namespace_version_driver_metrics_and_values() -> None:
    plan = operator_plan(
        namespace="nvidia",
        chart_version="v26.3.3",
        operator_driver=False,
        service_monitor=True,
        helm_values={"sandboxWorkloads": {"enabled": False}},
    )
    release = resource(plan, RELEASE, "op-release").inputs
    values = release["values"]
    assert (release["namespace"], release["version"], values["sandboxWorkloads"]) == (
        "nvidia",
        "v26.3.3",
        {"enabled": False},
    )
    assert (values["driver"], values["toolkit"]) == ({"enabled": False}, {"enabled": False})
    assert values["dcgmExporter"]["serviceMonitor"] == {"enabled": True}
    assert resource(plan, CONFIG_MAP, "op-mig-config").inputs["metadata"]["namespace"] == "nvidia"


def test_the_operator_tolerates_the_taint_aks_puts_on_a_spot_pool() -> None:
    spot = [{"name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True}]
    plan = plan_of(lambda: NvidiaGpuOperator("op", {"pools": pool_components("azure", spot, "gpu-operator")}))
    tolerations = resource(plan, RELEASE, "op-release").inputs["values"]["daemonsets"]["tolerations"]
    assert tolerations[-1] == {
        "effect": "NoSchedule",
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
    }


def test_an_operator_driver_on_eks_nvidia_amis_is_two_driver_owners() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: NvidiaGpuOperator(
                "op", {"pools": pool_components("aws", POOLS[:1], "gpu-operator"), "operator_driver": True}
            )
        )
    assert [(p.path, p.value) for p in caught.value.problems] == [
        ("pools[0].ami_type", Default("AL2023_x86_64_NVIDIA"))
    ]
    assert "operator_driver true" in caught.value.problems[0].message


def test_gke_gets_the_resource_quota_nvidia_requires_before_the_release() -> None:
    plan = plan_of(
        lambda: NvidiaGpuOperator(
            "op", {"pools": pool_components("gcp", GKE_POOLS, "gpu-operator"), "operator_driver": True}
        )
    )
    quota = resource(plan, "kubernetes:core/v1:ResourceQuota", "op-resource-quota").inputs
    assert quota["metadata"] == {"name": "gpu-operator-quota", "namespace": "gpu-operator"}
    assert quota["spec"]["hard"] == {"pods": "100"}
    values = resource(plan, RELEASE, "op-release").inputs["values"]
    assert values["toolkit"]["env"] == [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]


def test_gke_on_googles_driver_applies_its_installer_to_cos_pools() -> None:
    plan = plan_of(
        lambda: NvidiaGpuOperator(
            "op",
            {
                "pools": pool_components("gcp", GKE_POOLS, "gpu-operator", operator_driver=False),
                "operator_driver": False,
            },
        )
    )
    node_config = resource(plan, "gcp:container/nodePool:NodePool", "np-l4-node-pool").inputs["nodeConfig"]
    assert node_config["imageType"] == "COS_CONTAINERD"
    values = resource(plan, RELEASE, "op-release").inputs["values"]
    assert (values["driver"], values["hostPaths"]) == (
        {"enabled": False},
        {"driverInstallDir": "/home/kubernetes/bin/nvidia"},
    )
    assert (values["toolkit"]["enabled"], values["toolkit"]["installDir"]) == (True, "/home/kubernetes/bin/nvidia")
    assert names(plan, "kubernetes:yaml/v2:ConfigFile") == ["op-driver-installer"]


@pytest.mark.parametrize(
    ("pool_driver", "operator_driver", "runs", "serves"),
    [
        (False, True, "Container-Optimized OS", "Ubuntu"),
        (True, False, "Ubuntu", "Container-Optimized OS"),
    ],
)
def test_gke_pool_built_for_the_other_driver_owner_is_refused(
    pool_driver: bool, operator_driver: bool, runs: str, serves: str
) -> None:
    registered: list[GpuSpecError] = []

    def program() -> None:
        pools = pool_components("gcp", GKE_POOLS, "gpu-operator", operator_driver=pool_driver)
        try:
            NvidiaGpuOperator("op", {"pools": pools, "operator_driver": operator_driver})
        except GpuSpecError as error:
            registered.append(error)
            raise

    with pytest.raises(Exception, match="serves"):
        plan_of(program)
    problem = registered[0].problems[0]
    assert (len(registered[0].problems), problem.path, problem.value) == (1, "pools[0]", "l4")
    assert f"its nodes run {runs}, but with operator_driver {str(operator_driver).lower()}" in problem.message
    assert f"which serves {serves} nodes only" in problem.message
    assert problem.valid == (
        f"the pool built with operator_driver {str(operator_driver).lower()} ({serves} nodes), or "
        f"operator_driver {str(pool_driver).lower()} ({runs} nodes)"
    )
    assert problem.source is not None and "google-gke.html (Using the Google Driver Installer)" in problem.source


def test_invalid_operator_settings_raise_every_problem_at_once() -> None:
    mixed: list[Any] = [
        *POOLS,
        {
            "name": "mixed",
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
        },
    ]
    registered: list[str] = []

    def program() -> None:
        try:
            NvidiaGpuOperator(
                "op",
                {
                    "pools": pool_components("aws", mixed, "gpu-operator"),
                    "dcgm_exporter": False,
                    "service_monitor": True,
                },
            )
        except GpuSpecError as error:
            registered.append(str(error))
            raise

    with pytest.raises(Exception, match="one MIG strategy per cluster"):
        plan_of(program)
    assert "pools[2].mig.strategy" in registered[0] and "service_monitor" in registered[0]


@pytest.mark.parametrize("version", EKS_KUBERNETES_VERSIONS)
def test_rendered_manifests_validate_strictly(version: str) -> None:
    plan = plan_of(
        lambda: NvidiaGpuOperator(
            "op", {"pools": pool_components("gcp", GKE_POOLS, "gpu-operator"), "operator_driver": True}
        )
    )
    aws = operator_plan()
    values = resource(aws, RELEASE, "op-release").inputs["values"]
    manifests: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            **resource(aws, "kubernetes:core/v1:Namespace", "op-namespace").inputs,
        },
        {"apiVersion": "v1", "kind": "ConfigMap", **resource(aws, CONFIG_MAP, "op-device-plugin-config").inputs},
        {"apiVersion": "v1", "kind": "ConfigMap", **resource(aws, CONFIG_MAP, "op-mig-config").inputs},
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            **resource(plan, "kubernetes:core/v1:ResourceQuota", "op-resource-quota").inputs,
        },
        # The operator puts daemonsets.tolerations and devicePlugin.env into its operands' pod templates.
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
            "spec": {
                "selector": {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}},
                "template": {
                    "metadata": {"labels": {"app": "nvidia-device-plugin-daemonset"}},
                    "spec": {
                        "tolerations": values["daemonsets"]["tolerations"],
                        "containers": [
                            {
                                "name": "nvidia-device-plugin",
                                "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0",
                                "env": values["devicePlugin"]["env"],
                            },
                            {
                                "name": "nvidia-mig-manager",
                                "image": "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.15.0",
                                "env": values["migManager"]["env"],
                            },
                        ],
                    },
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "nfd-worker"},
            "spec": {
                "tolerations": values["node-feature-discovery"]["worker"]["tolerations"],
                "containers": [{"name": "worker", "image": "registry.k8s.io/nfd/node-feature-discovery:v0.18.0"}],
            },
        },
    ]
    for manifest in manifests:
        kubernetes_validate.validate(manifest, version, strict=True)


CHART_VERSION_VALID = "valid: vMAJOR.MINOR.PATCH, e.g. v26.7.0 [source: https://helm.ngc.nvidia.com/nvidia]"


@pytest.mark.parametrize("version", ["v26.7.0\n", "26.7.0", " v26.7.0", "v26.7"])
def test_chart_version_must_be_the_charts_form_whole(version: str) -> None:
    # Before, a trailing newline or a missing v reached Helm, which finds no such chart version at apply time.
    expected = f"chart_version: not a GPU Operator chart version (got {version!r}); {CHART_VERSION_VALID}"
    with pytest.raises(GpuSpecError) as caught:
        operator_plan(chart_version=version)
    assert [str(problem) for problem in caught.value.problems] == [expected]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: GpuCluster(
                "c",
                {
                    "cloud": "aws",
                    "gpu_stack": "gpu-operator",
                    "pools": POOLS[:1],
                    "aws": {
                        "cluster_name": "c",
                        "subnet_ids": ["s"],
                        "node_role_arn": "arn:aws:iam::111122223333:role/n",
                    },
                    "gpu_operator": {"chart_version": version},
                },
            )
        )
    assert [str(problem) for problem in caught.value.problems] == [f"gpu_operator.{expected}"]


def test_a_chart_version_of_the_charts_form_reaches_the_release() -> None:
    assert resource(operator_plan(chart_version="v25.10.1"), RELEASE, "op-release").inputs["version"] == "v25.10.1"


def _refused(args: dict[str, Any]) -> GpuSpecError:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            NvidiaGpuOperator("op", args)  # type: ignore[arg-type]
        except GpuSpecError as error:
            errors.append(error)
            raise

    with pytest.raises(Exception):  # noqa: B017 (the mocks re-raise the program's error as their own)
        plan_of(program)
    return errors[0]


def test_plain_gke_pools_follow_the_operators_driver_owner() -> None:
    """A plain pool takes the operator's own operator_driver: Google's driver needs no node-pool component."""
    plan = plan_of(lambda: NvidiaGpuOperator("op", {"cloud": "gcp", "pools": GKE_POOLS, "operator_driver": False}))
    values = resource(plan, RELEASE, "op-release").inputs["values"]
    assert values["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert names(plan, "kubernetes:yaml/v2:ConfigFile") == ["op-driver-installer"]


def test_helm_values_may_not_move_googles_driver_or_set_an_ignored_driver() -> None:
    helm_values = {
        "hostPaths": "/x",
        "toolkit": {"installDir": 5},
        "cdi": {"enabled": False},
        "driver": {"version": "550.1.2", "upgradePolicy": {"autoUpgrade": True}},
    }
    error = _refused({"cloud": "gcp", "pools": GKE_POOLS, "operator_driver": False, "helm_values": helm_values})
    found = {(p.path, p.valid) for p in error.problems}
    assert {
        ("helm_values.hostPaths", "leave it to the library"),
        ("helm_values.toolkit.installDir", "leave it to the library"),
        ("helm_values.cdi.enabled", "leave it to the library"),
        ("helm_values.driver.version", "operator_driver"),
        ("helm_values.driver.upgradePolicy", "operator_driver"),
    } <= found
    messages = {p.path: p.message for p in error.problems}
    assert (
        "/home/kubernetes/bin/nvidia, where GKE's driver installer puts the driver" in messages["helm_values.hostPaths"]
    )
    assert "operator_driver false), so it would be ignored" in messages["helm_values.driver.version"]


def test_helm_values_keep_the_driver_root_where_the_operator_or_the_image_owns_the_driver() -> None:
    """Only Google's installer fixes the driver root; elsewhere hostPaths is the user's, driver.version too where the
    operator installs the driver."""
    helm_values = {"hostPaths": {"driverInstallDir": "/opt/nvidia"}, "driver": {"version": "580.95.05"}}
    plan = plan_of(
        lambda: NvidiaGpuOperator(
            "op", {"cloud": "gcp", "pools": GKE_POOLS, "operator_driver": True, "helm_values": helm_values}
        )
    )
    values = resource(plan, RELEASE, "op-release").inputs["values"]
    assert (values["hostPaths"], values["driver"]["version"]) == ({"driverInstallDir": "/opt/nvidia"}, "580.95.05")
    error = _refused({"cloud": "aws", "pools": POOLS[:1], "helm_values": {"driver": {"version": "580.95.05"}}})
    assert [p.path for p in error.problems] == ["helm_values.driver.version"]
