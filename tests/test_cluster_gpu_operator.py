"""GpuCluster with ``gpu_stack: gpu-operator`` on EKS, AKS and GKE: one driver owner per pool, the operator's
labels and cloud settings per pool, the operator add-on over the pools it serves, every problem at once."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.cluster import validate_cluster
from gpu_components.errors import Combined, Default, Problem
from gpu_components.plan import Plan
from tests.helpers import names, plan_of, resource
from tests.nvidia.test_driver_upgrade import OPERATOR_DRIVER

WIRING: dict[str, dict[str, Any]] = {
    "aws": {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"},
    "azure": {"resource_group_name": "rg", "cluster_name": "prod"},
    "gcp": {"cluster": "prod", "location": "us-central1", "service_account": "nodes@p.iam.gserviceaccount.com"},
}
PLAIN = {
    "aws": {"name": "plain", "instance_type": "g5.xlarge", "max_size": 2},
    "azure": {"name": "plain", "instance_type": "Standard_NC4as_T4_v3", "max_size": 2},
    "gcp": {"name": "plain", "instance_type": "g2-standard-4", "max_size": 2},
}
GKE_DRIVER_OFF = {"driver_version": "INSTALLATION_DISABLED"}
OPERATOR = "gpu-components:index:NvidiaGpuOperator"
RELEASE = "kubernetes:helm.sh/v3:Release"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"


def cluster(cloud: str, pools: list[dict[str, Any]], **extra: Any) -> None:
    args = {"cloud": cloud, cloud: WIRING[cloud], "pools": pools, "gpu_stack": "gpu-operator", **extra}
    GpuCluster("gpus", args)  # type: ignore[arg-type]


def planned(cloud: str, pools: list[dict[str, Any]], **extra: Any) -> Plan:
    return plan_of(lambda: cluster(cloud, pools, **extra))


def problems(cloud: str, pools: list[dict[str, Any]], **settings: Any) -> list[Problem]:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster(cloud, pools, "gpu-operator", gpu_operator=settings or None)
    return list(caught.value.problems)


def only(found: list[Problem]) -> Problem:
    assert len(found) == 1, found
    return found[0]


def values(plan: Plan) -> dict[str, Any]:
    inputs: dict[str, Any] = resource(plan, RELEASE, "gpus-gpu-operator-release").inputs
    return inputs["values"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------------------------
# One driver owner: every conflict rejected through the composition, naming both settings
# ---------------------------------------------------------------------------------------------------------------


def test_eks_two_driver_owners_name_the_ami_type_and_operator_driver() -> None:
    problem = only(problems("aws", [PLAIN["aws"]], operator_driver=True))
    assert (problem.path, problem.value) == ("pools[0].aws.ami_type", Default("AL2023_x86_64_NVIDIA"))
    assert "two parties would install the NVIDIA driver" in problem.message
    assert "ami_type AL2023_x86_64_NVIDIA and gpu_operator.operator_driver true" in problem.message
    assert problem.valid == "gpu_operator.operator_driver false (every EKS NVIDIA AMI ships the driver)"


def test_eks_arm64_pool_without_an_ami_type_is_told_of_its_own_arm64_ami() -> None:
    arm = {"name": "arm", "instance_type": "g5g.xlarge", "max_size": 2}
    problem = only(problems("aws", [arm], operator_driver=True))
    assert (problem.path, problem.value) == ("pools[0].aws.ami_type", Default("AL2023_ARM_64_NVIDIA"))
    assert "ami_type AL2023_ARM_64_NVIDIA and gpu_operator.operator_driver true" in problem.message


def test_aks_two_driver_owners_and_none_name_both_settings() -> None:
    two = only(problems("azure", [PLAIN["azure"]], operator_driver=True))
    assert (two.path, two.value) == ("pools[0].azure.gpu_driver", Default("aks"))
    assert "two parties" in two.message
    assert "gpu_driver aks and gpu_operator.operator_driver true" in two.message
    nobody = only(problems("azure", [{**PLAIN["azure"], "azure": {"gpu_driver": "none"}}]))
    assert (nobody.path, nobody.value) == ("pools[0].azure.gpu_driver", "none")
    assert "nobody would install the NVIDIA driver" in nobody.message
    assert "gpu_driver none and gpu_operator.operator_driver false" in nobody.message


def test_gke_driver_installed_by_gke_or_by_nobody_names_both_settings() -> None:
    gke = only(problems("gcp", [{**PLAIN["gcp"], "gcp": {"driver_version": "DEFAULT"}}], operator_driver=True))
    assert (gke.path, gke.value) == ("pools[0].gcp.driver_version", "DEFAULT")
    assert "driver_version DEFAULT and gpu_operator.operator_driver true" in gke.message
    assert gke.valid == (
        "driver_version INSTALLATION_DISABLED with gpu_operator.operator_driver true (Ubuntu node image; false: "
        "Google's driver installer on Container-Optimized OS)"
    )
    both = only(problems("gcp", [{**PLAIN["gcp"], "gcp": {"driver_version": "LATEST"}}], operator_driver=False))
    assert (both.path, both.value) == ("pools[0].gcp.driver_version", "LATEST")
    assert "GKE would install it (driver_version LATEST and gpu_operator.operator_driver false)" in both.message


def test_one_driver_owner_passes_on_every_cloud() -> None:
    validate_cluster("aws", [PLAIN["aws"]], "gpu-operator")
    validate_cluster("azure", [PLAIN["azure"]], "gpu-operator", gpu_operator={"operator_driver": False})
    validate_cluster(
        "azure",
        [{**PLAIN["azure"], "azure": {"gpu_driver": "none"}}],
        "gpu-operator",
        gpu_operator={"operator_driver": True},
    )
    validate_cluster(
        "gcp", [{**PLAIN["gcp"], "gcp": GKE_DRIVER_OFF}], "gpu-operator", gpu_operator={"operator_driver": True}
    )
    # GKE's driver installer DaemonSet installs it when the operator does not (NVIDIA's GKE guide, COS).
    validate_cluster("gcp", [PLAIN["gcp"]], "gpu-operator", gpu_operator={"operator_driver": False})


def test_aks_gpu_driver_none_stays_rejected_with_the_device_plugin() -> None:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("azure", [{**PLAIN["azure"], "azure": {"gpu_driver": "none"}}], "auto")
    assert [p.path for p in caught.value.problems] == ["pools[0].azure.gpu_driver"]


def test_every_problem_of_every_pool_and_of_the_operator_is_raised_at_once() -> None:
    pools = [
        EKS_BOTTLEROCKET,  # not served by the operator: the operator's pool indexes are mapped back
        {"name": "single", "instance_type": "p4de.24xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}},
        {
            "name": "mixed",
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"profile": "2g.20gb", "strategy": "mixed"},
        },
        {**PLAIN["aws"], "time_slicing": {"replicas": 1}},
    ]
    found = problems("aws", pools, operator_driver=True, dcgm_exporter=False, service_monitor=True)
    assert [p.path for p in found] == [
        "pools[0].aws.ami_type",
        "pools[1].aws.ami_type",
        "pools[2].aws.ami_type",
        "pools[3].time_slicing.replicas",
        "pools[2].mig.strategy",
        "gpu_operator.service_monitor",
    ]
    strategy = found[4]
    assert "pools[1] (single) uses single" in strategy.message


def test_an_mps_pool_beside_a_mixed_mig_pool_is_rejected_at_their_input_positions() -> None:
    pools = [
        EKS_BOTTLEROCKET,  # not served by the operator: the operator's pool indexes are mapped back
        {**PLAIN["aws"], "name": "mps", "mps": {"replicas": 4, "trusted": True}},
        {
            "name": "mixed",
            "instance_type": "p4de.24xlarge",
            "max_size": 1,
            "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
        },
    ]
    problem = only(problems("aws", pools))
    assert (problem.path, problem.value) == ("pools[1].mps", Combined(("pools[1].mps", "pools[2].mig.strategy")))
    assert problem.message.startswith("MPS pool mps and pools[2] (mixed), whose MIG strategy is mixed, cannot share")
    assert problem.valid == (
        "time_slicing instead of mps on mps, or mig.strategy single on mixed (one profile per GPU: a mig.profile)"
    )


# ---------------------------------------------------------------------------------------------------------------
# Settings: strict shape, only with their stack
# ---------------------------------------------------------------------------------------------------------------


def test_operator_settings_are_shape_checked() -> None:
    found = problems("aws", [PLAIN["aws"]], operator_driver="yes", dcgm=True)
    assert sorted(p.path for p in found) == ["gpu_operator.dcgm", "gpu_operator.operator_driver"]


def test_settings_of_the_other_stack_are_rejected() -> None:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [PLAIN["aws"]], "auto", gpu_operator={"dcgm_exporter": False})
    assert only(list(caught.value.problems)).message.startswith("GPU Operator settings, but gpu_stack is auto")
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [PLAIN["aws"]], "gpu-operator", device_plugin={"namespace": "x"})
    assert only(list(caught.value.problems)).path == "device_plugin"


def test_invalid_operator_cluster_registers_nothing() -> None:
    errors: list[str] = []

    def program() -> None:
        try:
            cluster("aws", [PLAIN["aws"]], gpu_operator={"operator_driver": True})
        except GpuSpecError as error:
            errors.append(str(error))

    plan = plan_of(program)
    assert [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"] == []
    assert "two parties would install the NVIDIA driver" in errors[0]


# ---------------------------------------------------------------------------------------------------------------
# EKS
# ---------------------------------------------------------------------------------------------------------------

EKS_MIG = {"name": "mig", "instance_type": "p4de.24xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
EKS_BOTTLEROCKET = {
    "name": "br",
    "instance_type": "p4d.24xlarge",
    "max_size": 1,
    "mig": {"profile": "1g.5gb"},
    "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"},
}


def test_eks_mig_on_al2023_is_rejected_without_the_operator_and_served_by_its_mig_manager() -> None:
    with pytest.raises(GpuSpecError):
        validate_cluster("aws", [EKS_MIG], "auto")
    plan = planned("aws", [PLAIN["aws"], EKS_MIG])
    group = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpus-mig-node-group").inputs
    assert (group["amiType"], group["labels"]) == (
        "AL2023_x86_64_NVIDIA",
        {
            "gpu-components/pool": "mig",
            "k8s.amazonaws.com/accelerator": "nvidia-a100-80gb",
            "nvidia.com/device-plugin.config": "mig",
            "nvidia.com/mig.config": "all-1g.10gb",
        },
    )
    assert names(plan, OPERATOR) == ["gpus-gpu-operator"]
    assert names(plan, RELEASE) == ["gpus-gpu-operator-release"]
    assert (values(plan)["driver"], values(plan)["toolkit"]) == ({"enabled": False}, {"enabled": False})


def test_eks_all_balanced_is_labelled_and_rendered_as_nvidias_balanced_layout() -> None:
    balanced = {
        **EKS_MIG,
        "instance_type": "p6e-gb300.36xlarge",
        "mig": {"config": "all-balanced", "strategy": "mixed"},
    }
    plan = planned("aws", [PLAIN["aws"], balanced])
    group = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpus-mig-node-group").inputs
    assert group["labels"]["nvidia.com/mig.config"] == "all-balanced"
    config = yaml.safe_load(resource(plan, CONFIG_MAP, "gpus-gpu-operator-mig-config").inputs["data"]["config.yaml"])
    assert config["mig-configs"]["all-balanced"] == [
        {"devices": "all", "mig-enabled": True, "mig-devices": {"1g.35gb": 2, "2g.70gb": 1, "3g.139gb": 1}}
    ]


def test_eks_bottlerocket_keeps_its_host_plugin_and_no_operand_runs_there() -> None:
    plan = planned("aws", [PLAIN["aws"], EKS_BOTTLEROCKET])
    group = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpus-br-node-group").inputs
    assert group["labels"] == {
        "gpu-components/pool": "br",
        "k8s.amazonaws.com/accelerator": "nvidia-a100-40gb",
        "nvidia.com/gpu.deploy.operands": "false",
    }
    assert names(plan, "aws:ec2/launchTemplate:LaunchTemplate") == ["gpus-br-launch-template"]
    configs = resource(plan, CONFIG_MAP, "gpus-gpu-operator-device-plugin-config").inputs["data"]
    assert sorted(configs) == ["default", "plain"]


def test_eks_only_bottlerocket_pools_refuse_the_operator() -> None:
    """The image's host plugin serves every pool: no operator would be deployed, so the switch is refused."""
    assert [str(p) for p in problems("aws", [EKS_BOTTLEROCKET])] == [
        "gpu_stack: no pool is served by the GPU Operator (each pool's GPUs are advertised by another: pools[0] "
        "(br): node-image), so the cluster would deploy no operator and the switch would be ignored (got "
        "'gpu-operator'); valid: auto (each pool's own way), or a pool the GPU Operator serves"
    ]


# ---------------------------------------------------------------------------------------------------------------
# AKS
# ---------------------------------------------------------------------------------------------------------------

AKS_MIG = {"name": "mig", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 1, "mig": {"profile": "1g.10gb"}}


def test_aks_operator_driver_with_gpu_driver_none_and_mig_kept_to_gpu_instance_profile() -> None:
    pools = [
        {**PLAIN["azure"], "spot": True, "azure": {"gpu_driver": "none"}},
        {**AKS_MIG, "azure": {"gpu_driver": "none"}},
    ]
    plan = planned("azure", pools, gpu_operator={"operator_driver": True, "dcgm_exporter": False})
    agent = resource(plan, "azure-native:containerservice:AgentPool", "gpus-mig-agent-pool").inputs
    assert (agent["gpuInstanceProfile"], agent["gpuProfile"]) == ("MIG1g", {"driver": "None"})
    assert agent["nodeLabels"] == {
        "gpu-components/pool": "mig",
        "nvidia.com/device-plugin.config": "mig",
        "nvidia.com/gpu.deploy.mig-manager": "false",
    }
    result = values(plan)
    assert (result["driver"], result["toolkit"], result["dcgmExporter"]["enabled"]) == (
        OPERATOR_DRIVER,
        {"enabled": True},
        False,
    )
    assert "operator" not in result
    spot = {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
        "effect": "NoSchedule",
    }
    assert spot in result["daemonsets"]["tolerations"]
    assert spot in result["node-feature-discovery"]["worker"]["tolerations"]
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == []


# ---------------------------------------------------------------------------------------------------------------
# GKE
# ---------------------------------------------------------------------------------------------------------------


def test_gke_operator_pool_turns_gke_driver_plugin_and_sharing_off() -> None:
    pool = {
        **PLAIN["gcp"],
        "time_slicing": {"replicas": 64, "rename_by_default": True},
        "gcp": GKE_DRIVER_OFF,
    }
    with pytest.raises(GpuSpecError):
        validate_cluster("gcp", [pool], "auto")
    plan = planned("gcp", [pool], gpu_operator={"operator_driver": True})
    config = resource(plan, "gcp:container/nodePool:NodePool", "gpus-plain-node-pool").inputs["nodeConfig"]
    assert config["guestAccelerators"] == [
        {"count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"}, "type": "nvidia-l4"}
    ]
    assert config["imageType"] == "UBUNTU_CONTAINERD"
    assert config["labels"] == {
        "gke-no-default-nvidia-gpu-device-plugin": "true",
        "gpu-components/pool": "plain",
        "nvidia.com/device-plugin.config": "plain",
    }
    assert values(plan)["driver"] == OPERATOR_DRIVER
    assert names(plan, "kubernetes:core/v1:ResourceQuota") == ["gpus-gpu-operator-resource-quota"]


def test_gke_operator_on_googles_driver_runs_cos_nodes_and_the_installer() -> None:
    """NVIDIA's GKE guide, "Using the Google Driver Installer": GKE's installation disabled, Google's COS installer
    DaemonSet applied, the operator's driver off and its toolkit and driver root at /home/kubernetes/bin/nvidia."""
    plan = planned("gcp", [PLAIN["gcp"]], gpu_operator={"operator_driver": False})
    config = resource(plan, "gcp:container/nodePool:NodePool", "gpus-plain-node-pool").inputs["nodeConfig"]
    assert config["imageType"] == "COS_CONTAINERD"
    assert config["guestAccelerators"][0]["gpuDriverInstallationConfig"] == {
        "gpuDriverVersion": "INSTALLATION_DISABLED"
    }
    assert config["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    rendered = values(plan)
    assert rendered["driver"] == {"enabled": False}
    assert rendered["toolkit"] == {
        "enabled": True,
        "installDir": "/home/kubernetes/bin/nvidia",
        "env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}],
    }
    assert rendered["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert rendered["cdi"] == {"enabled": True}
    installer = resource(plan, "kubernetes:yaml/v2:ConfigFile", "gpus-gpu-operator-driver-installer")
    assert installer.inputs["file"] == (
        "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
        "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer/cos/daemonset-preloaded.yaml"
    )


def test_gke_operator_driver_keeps_ubuntu_nodes_and_applies_no_installer() -> None:
    plan = planned("gcp", [PLAIN["gcp"]])
    config = resource(plan, "gcp:container/nodePool:NodePool", "gpus-plain-node-pool").inputs["nodeConfig"]
    assert config["imageType"] == "UBUNTU_CONTAINERD"
    assert "hostPaths" not in values(plan)
    assert names(plan, "kubernetes:yaml/v2:ConfigFile") == []


def test_gke_operator_pool_advertises_with_nvidia_device_plugin_names() -> None:
    pools: dict[str, Any] = {}

    def program() -> None:
        args = {
            "cloud": "gcp",
            "gcp": WIRING["gcp"],
            "pools": [
                {**PLAIN["gcp"], "time_slicing": {"replicas": 4, "rename_by_default": True}, "gcp": GKE_DRIVER_OFF}
            ],
            "gpu_stack": "gpu-operator",
            "gpu_operator": {"operator_driver": True},
        }
        pools.update(GpuCluster("gpus", args).pools)  # type: ignore[arg-type]

    plan_of(program)
    pool = pools["plain"]
    assert (pool.device_plugin_host, pool.advertised_resources) == ("gpu-operator", {"nvidia.com/gpu.shared": 4})
    assert pool.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-l4", "gpu-components/pool": "plain"}
