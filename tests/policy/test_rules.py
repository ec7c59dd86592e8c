"""Policy rules over resource properties as the Pulumi engine sees them (camelCase), written the way users write
them by hand, plus the pack's wiring into pulumi_policy."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpu_components.aws import bottlerocket
from gpu_components.aws.eks import eks_taints
from gpu_components.aws.facts import FACTS as EKS
from gpu_components.aws.facts import NVIDIA_AMI_TYPES, TAINT_EFFECTS
from gpu_components.nvidia.device_plugin import device_plugin_config_map, device_plugin_config_map_annotations
from gpu_components.policy import DEFAULT_ENFORCEMENT, policies, rules
from gpu_components.policy.rules import (
    chart_version_violations,
    dra_alpha_claim_config_violations,
    dra_pool_extended_resource_violations,
    dra_unsatisfiable_claim_violations,
    node_pool_taint_violations,
    pool_bound_violations,
    shared_gpu_trust_violations,
    toleration_without_gpu_violations,
    workload_gpu_quantity_violations,
)
from gpu_components.policy.workload_pools import (
    autoscaler_resource_violations,
    workload_pool_fit_violations,
    workload_pool_selection_violations,
    workload_pool_toleration_violations,
)
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolSpec, sharing_trust_labels

GOLDEN = Path(__file__).resolve().parents[1] / "stacks" / "golden" / "aws-eks.json"
GPU_TAINT_EKS = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


# ---------------------------------------------------------------------------------------------------------------
# GPU node pools carry a NoSchedule GPU taint
# ---------------------------------------------------------------------------------------------------------------


def eks_node_group(**props: Any) -> dict[str, Any]:
    return {
        "clusterName": "prod",
        "nodeRoleArn": "arn:aws:iam::123456789012:role/nodes",
        "subnetIds": ["subnet-a"],
        "scalingConfig": {"minSize": 0, "maxSize": 4, "desiredSize": 0},
        **props,
    }


def test_eks_gpu_node_group_with_the_gpu_taint_passes() -> None:
    props = eks_node_group(instanceTypes=["g5.2xlarge"], amiType="AL2023_x86_64_NVIDIA", taints=[GPU_TAINT_EKS])
    assert node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", props) == []


def test_eks_gpu_node_group_without_taints_is_flagged() -> None:
    (message,) = node_pool_taint_violations(
        "aws:eks/nodeGroup:NodeGroup", eks_node_group(instanceTypes=["p5.48xlarge"])
    )
    assert message.startswith("taints: GPU node group (p5.48xlarge (8 x NVIDIA H100")
    assert "{key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE}" in message
    assert "taint-and-toleration" in message


@pytest.mark.parametrize(
    "taints",
    [
        [{"key": "nvidia.com/gpu", "value": "present", "effect": "PREFER_NO_SCHEDULE"}],
        [{"key": "team", "value": "ml", "effect": "NO_SCHEDULE"}],
        [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],  # Kubernetes spelling: not EKS's
    ],
)
def test_eks_gpu_node_group_with_a_weak_or_foreign_taint_is_flagged(taints: list[dict[str, str]]) -> None:
    props = eks_node_group(instanceTypes=["g6.xlarge"], taints=taints)
    assert len(node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", props)) == 1


def test_eks_no_execute_and_configured_taint_keys_pass() -> None:
    no_execute = eks_node_group(instanceTypes=["g6.xlarge"], taints=[{**GPU_TAINT_EKS, "effect": "NO_EXECUTE"}])
    assert node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", no_execute) == []
    team = eks_node_group(instanceTypes=["g6.xlarge"], taints=[{"key": "team", "value": "ml", "effect": "NO_SCHEDULE"}])
    assert node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", team, ["team"]) == []


def test_eks_nvidia_ami_type_alone_marks_a_gpu_node_group() -> None:
    props = eks_node_group(amiType="BOTTLEROCKET_x86_64_NVIDIA", launchTemplate={"id": "lt-1", "version": "1"})
    (message,) = node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", props)
    assert "AMI type BOTTLEROCKET_x86_64_NVIDIA" in message


def test_eks_cpu_and_amd_node_groups_are_not_gpu_pools() -> None:
    for props in (eks_node_group(instanceTypes=["m7i.large"]), eks_node_group(instanceTypes=["g4ad.xlarge"])):
        assert node_pool_taint_violations("aws:eks/nodeGroup:NodeGroup", props) == []


def aks_agent_pool(**props: Any) -> dict[str, Any]:
    return {"resourceGroupName": "rg", "resourceName": "aks", "count": 1, "mode": "User", **props}


def test_aks_gpu_agent_pool_with_a_gpu_taint_passes() -> None:
    for taint in ("nvidia.com/gpu=present:NoSchedule", "sku=gpu:NoSchedule", "nvidia.com/gpu:NoSchedule"):
        props = aks_agent_pool(vmSize="Standard_NC24ads_A100_v4", nodeTaints=[taint])
        assert node_pool_taint_violations("azure-native:containerservice:AgentPool", props) == [], taint


def test_aks_gpu_agent_pool_with_only_the_spot_taint_is_flagged() -> None:
    props = aks_agent_pool(
        vmSize="Standard_NC4as_T4_v3",
        scaleSetPriority="Spot",
        nodeTaints=["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"],
    )
    (message,) = node_pool_taint_violations("azure-native:containerservice:AgentPool", props)
    assert message.startswith("nodeTaints: GPU node pool of Standard_NC4as_T4_v3 (1 x NVIDIA T4")
    assert "'nvidia.com/gpu=present:NoSchedule'" in message


def test_aks_vm_sizes_match_case_insensitively_and_versioned_types_count() -> None:
    props = aks_agent_pool(vmSize="standard_nc6s_v3", nodeTaints=["nvidia.com/gpu=present:PreferNoSchedule"])
    assert len(node_pool_taint_violations("azure-native:containerservice/v20240901:AgentPool", props)) == 1
    cpu = aks_agent_pool(vmSize="Standard_D4s_v5")
    assert node_pool_taint_violations("azure-native:containerservice:AgentPool", cpu) == []


def test_aks_managed_cluster_profiles_are_checked_each() -> None:
    props = {
        "resourceGroupName": "rg",
        "agentPoolProfiles": [
            {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 2},
            {"name": "gpu", "mode": "User", "vmSize": "Standard_NC24ads_A100_v4", "count": 1},
            {"name": "gpu2", "vmSize": "Standard_NC24ads_A100_v4", "nodeTaints": ["sku=gpu:NoSchedule"]},
        ],
    }
    (message,) = node_pool_taint_violations("azure-native:containerservice:ManagedCluster", props)
    assert message.startswith("agentPoolProfiles[1] (gpu): GPU node pool of Standard_NC24ads_A100_v4")


KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
GPU_TAINT_K8S = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
A100_SKU = {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC24ads_A100_v4"]}
STARTUP_ONLY = (
    "spec.template.spec.startupTaints: GPU NodePool (Standard_NC24ads_A100_v4 (1 x NVIDIA A100 80GB PCIe)) has its "
    "GPU taint nvidia.com/gpu only in startupTaints, which pods need not tolerate and which is removed once the node "
    "is initialized, so any pod can land on its GPU nodes; put it in spec.template.spec.taints "
    "[source: https://karpenter.sh/docs/concepts/nodepools/ (spec.template.spec.startupTaints: taints another system "
    "removes once the node is ready; pods need not tolerate them)]"
)


def karpenter_node_pool(template: dict[str, Any], limits: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {"template": {"spec": template}, "limits": limits or {}},
    }


def missing_taint(gpu: str) -> str:
    return (
        f"spec.template.spec.taints: GPU NodePool ({gpu}) has no NoSchedule GPU taint, so any pod can land on its GPU "
        "nodes; add {key: nvidia.com/gpu, value: present, effect: NoSchedule} (taint keys accepted: nvidia.com/gpu, "
        "sku) [source: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/]"
    )


def test_a_karpenter_gpu_node_pool_with_the_gpu_taint_passes() -> None:
    props = karpenter_node_pool({"requirements": [A100_SKU], "taints": [GPU_TAINT_K8S]})
    assert node_pool_taint_violations(KARPENTER_NODE_POOL, props) == []
    both = karpenter_node_pool(
        {"requirements": [A100_SKU], "taints": [GPU_TAINT_K8S], "startupTaints": [GPU_TAINT_K8S]}
    )
    assert node_pool_taint_violations(KARPENTER_NODE_POOL, both) == []


def test_a_karpenter_gpu_node_pool_with_its_gpu_taint_only_in_startup_taints_is_flagged() -> None:
    props = karpenter_node_pool({"requirements": [A100_SKU], "startupTaints": [GPU_TAINT_K8S]})
    assert node_pool_taint_violations(KARPENTER_NODE_POOL, props) == [STARTUP_ONLY]


@pytest.mark.parametrize(
    ("template", "limits", "gpu"),
    [
        (
            {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.xlarge"]}]},
            None,
            "g5.xlarge (1 x NVIDIA A10G 24GB)",
        ),
        (
            {"requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}]},
            None,
            "requirement karpenter.k8s.aws/instance-gpu-count Gt 0",
        ),
        (
            {"requirements": [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["H100"]}]},
            None,
            "requirement karpenter.azure.com/sku-gpu-name In H100",
        ),
        ({"requirements": []}, {"nvidia.com/gpu": "8"}, "limits nvidia.com/gpu: 8"),
        (
            {"requirements": [A100_SKU], "taints": [{**GPU_TAINT_K8S, "effect": "PreferNoSchedule"}]},
            None,
            "Standard_NC24ads_A100_v4 (1 x NVIDIA A100 80GB PCIe)",
        ),
    ],
    ids=["instance-type", "gpu-count", "gpu-name", "gpu-limit", "weak-effect"],
)
def test_a_karpenter_gpu_node_pool_without_the_gpu_taint_is_flagged(
    template: dict[str, Any], limits: dict[str, str] | None, gpu: str
) -> None:
    props = karpenter_node_pool(template, limits)
    assert node_pool_taint_violations(KARPENTER_NODE_POOL, props) == [missing_taint(gpu)]


@pytest.mark.parametrize(
    "requirement",
    [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.xlarge"]},
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["0"]},
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "DoesNotExist"},
        {"key": "karpenter.azure.com/sku-gpu-count", "operator": "Gte", "values": ["0"]},
    ],
)
def test_a_karpenter_node_pool_without_gpus_is_not_a_gpu_pool(requirement: dict[str, Any]) -> None:
    props = karpenter_node_pool({"requirements": [requirement]})
    assert node_pool_taint_violations(KARPENTER_NODE_POOL, props) == []


def gke_node_pool(**node_config: Any) -> dict[str, Any]:
    return {"cluster": "prod", "location": "us-central1", "nodeCount": 1, "nodeConfig": node_config}


def test_gke_gpu_pool_without_an_explicit_taint_passes_because_gke_taints_it() -> None:
    attached = gke_node_pool(machineType="n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4", "count": 1}])
    built_in = gke_node_pool(machineType="a2-highgpu-1g")
    for props in (attached, built_in):
        assert node_pool_taint_violations("gcp:container/nodePool:NodePool", props) == []


def test_gke_gpu_pool_with_a_conflicting_gpu_taint_is_flagged() -> None:
    props = gke_node_pool(
        machineType="g2-standard-8",
        taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "PREFER_NO_SCHEDULE"}],
    )
    (message,) = node_pool_taint_violations("gcp:container/nodePool:NodePool", props)
    assert message.startswith("nodeConfig.taints[0]: GKE taints GPU pools nvidia.com/gpu=present:NoSchedule itself")
    cpu = gke_node_pool(machineType="e2-standard-4", taints=[{"key": "nvidia.com/gpu", "effect": "NO_EXECUTE"}])
    assert node_pool_taint_violations("gcp:container/nodePool:NodePool", cpu) == []


def test_cloud_spellings_agree_with_the_adapters() -> None:
    (node_group,) = EKS.node_pools  # what the policy pack reads of an EKS node group
    assert node_group.gpu_images is not None and set(NVIDIA_AMI_TYPES) <= node_group.gpu_images.types
    assert TAINT_EFFECTS["NoSchedule"] in {EKS.taint_effects[effect] for effect in rules.REPELLING_EFFECTS}
    assert eks_taints([DEFAULT_GPU_TAINT]) == [GPU_TAINT_EKS]
    assert (
        node_pool_taint_violations(
            "aws:eks/nodeGroup:NodeGroup",
            eks_node_group(instanceTypes=["g5.xlarge"], taints=eks_taints([DEFAULT_GPU_TAINT])),
        )
        == []
    )


# ---------------------------------------------------------------------------------------------------------------
# GPU workloads: whole-number limits, equal requests
# ---------------------------------------------------------------------------------------------------------------


def deployment(containers: list[dict[str, Any]], **pod: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "inference", "namespace": "ml"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "inference"}},
            "template": {"metadata": {"labels": {"app": "inference"}}, "spec": {"containers": containers, **pod}},
        },
    }


def container(**resources: Any) -> dict[str, Any]:
    return {"name": "model", "image": "registry.example/model:1", "resources": resources}


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"nvidia.com/gpu": 1}},
        {"limits": {"nvidia.com/gpu": "2", "cpu": "500m"}, "requests": {"nvidia.com/gpu": "2", "cpu": "0.5"}},
        {"limits": {"nvidia.com/gpu": 1.0}},  # the engine hands every number over as a double
        {"limits": {"nvidia.com/mig-1g.10gb": "1"}},
        {"limits": {"cpu": "1"}, "requests": {"memory": "1Gi"}},
    ],
)
def test_deployments_with_whole_gpu_limits_pass(resources: dict[str, Any]) -> None:
    props = deployment([container(**resources)])
    assert workload_gpu_quantity_violations("kubernetes:apps/v1:Deployment", props) == []


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        (
            {"limits": {"nvidia.com/gpu": 0.5}},
            "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: GPUs cannot be split into fractions",
        ),
        (
            {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "2"}},
            "spec.template.spec.containers[0].resources.requests['nvidia.com/gpu']: a GPU request must equal the "
            "GPU limit (got '2'); valid: 1",
        ),
        (
            {"requests": {"nvidia.com/gpu": 1}},
            "spec.template.spec.containers[0].resources.requests['nvidia.com/gpu']: a GPU request without a limit",
        ),
        (
            {"limits": {"nvidia.com/gpu.shared": "500m"}},
            "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu.shared']: not a whole number",
        ),
        (
            {"limits": {"nvidia.com/gpu": 0}},
            "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: zero GPUs",
        ),
        (
            {"limits": {"nvidia.com/gpu": True}},
            "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: a boolean is not a GPU count",
        ),
    ],
)
def test_deployments_with_invalid_gpu_quantities_are_flagged(resources: dict[str, Any], expected: str) -> None:
    props = deployment([container(**resources)])
    (message,) = workload_gpu_quantity_violations("kubernetes:apps/v1:Deployment", props)
    assert message.startswith(expected)
    assert message.endswith("[source: https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/]")


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        (
            {"limits": {"nvidia.com/gpu": 0.0}},
            "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: zero GPUs: leave the GPU resource "
            "out instead (got 0)",
        ),
        (
            {"limits": {"nvidia.com/gpu": 2.0}, "requests": {"nvidia.com/gpu": 1.0}},
            "spec.template.spec.containers[0].resources.requests['nvidia.com/gpu']: a GPU request must equal the GPU "
            "limit (got 1); valid: 2",
        ),
        (
            {"requests": {"nvidia.com/gpu": 1.0}},
            "spec.template.spec.containers[0].resources.requests['nvidia.com/gpu']: a GPU request without a limit: "
            "GPUs are set in limits (a request, if given, must equal it) (got 1)",
        ),
    ],
)
def test_engine_doubles_of_whole_counts_are_echoed_as_the_integers_written(
    resources: dict[str, Any], expected: str
) -> None:
    # The engine hands the pack every number as a double: the manifest's 0 arrives as 0.0, and is shown as 0.
    (message,) = workload_gpu_quantity_violations("kubernetes:apps/v1:Deployment", deployment([container(**resources)]))
    assert message.startswith(expected)


def test_every_workload_kind_and_init_containers_are_checked() -> None:
    bad = {"containers": [container(limits={"nvidia.com/gpu": "1.5"})]}
    shapes = {
        "kubernetes:core/v1:Pod": ({"spec": bad}, "spec.containers[0]"),
        "kubernetes:batch/v1:Job": ({"spec": {"template": {"spec": bad}}}, "spec.template.spec.containers[0]"),
        "kubernetes:batch/v1:CronJob": (
            {"spec": {"schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": bad}}}}},
            "spec.jobTemplate.spec.template.spec.containers[0]",
        ),
        "kubernetes:apps/v1:StatefulSet": ({"spec": {"template": {"spec": bad}}}, "spec.template.spec.containers[0]"),
        "kubernetes:apps/v1:DaemonSet": ({"spec": {"template": {"spec": bad}}}, "spec.template.spec.containers[0]"),
        "kubernetes:apps/v1:ReplicaSet": ({"spec": {"template": {"spec": bad}}}, "spec.template.spec.containers[0]"),
    }
    for resource_type, (props, path) in shapes.items():
        (message,) = workload_gpu_quantity_violations(resource_type, props)
        assert message.startswith(f"{path}.resources.limits['nvidia.com/gpu']"), resource_type
    init = {"spec": {"initContainers": [container(requests={"nvidia.com/gpu": 1})], "containers": []}}
    (message,) = workload_gpu_quantity_violations("kubernetes:core/v1:Pod", init)
    assert message.startswith("spec.initContainers[0].resources.requests")
    assert workload_gpu_quantity_violations("kubernetes:core/v1:ConfigMap", {"data": {}}) == []


# ---------------------------------------------------------------------------------------------------------------
# Workloads that tolerate GPU taints but request no GPU
# ---------------------------------------------------------------------------------------------------------------


def daemonset(name: str, namespace: str = "kube-system", **pod: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container()], **pod}},
        },
    }


def test_cpu_deployment_tolerating_the_gpu_taint_is_flagged() -> None:
    props = deployment([container(limits={"cpu": "1"})], tolerations=[GPU_TOLERATION])
    (message,) = toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props)
    assert message.startswith(
        "spec.template.spec.tolerations: the pods tolerate GPU taints (nvidia.com/gpu) but no container requests"
    )


def test_gpu_deployment_tolerating_the_gpu_taint_passes() -> None:
    props = deployment([container(limits={"nvidia.com/gpu": 1})], tolerations=[GPU_TOLERATION])
    assert toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props) == []
    plain = deployment([container(limits={"cpu": "1"})])
    assert toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", plain) == []


def test_a_deployment_claiming_its_gpu_through_a_resource_claim_passes() -> None:
    claimed = container(limits={"cpu": "1"})
    claimed["resources"]["claims"] = [{"name": "gpu"}]
    claims = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    props = deployment([claimed], tolerations=[GPU_TOLERATION], resourceClaims=claims)
    assert toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props) == []
    # a container claim naming no claim of the pod is not a request (the API server would refuse the pod)
    props["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "other", "resourceClaimTemplateName": "one-gpu"}]
    assert len(toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props)) == 1


def test_nvidia_system_daemonsets_are_allowed_and_others_flagged() -> None:
    plugin = daemonset("nvidia-device-plugin", "nvidia-device-plugin", tolerations=[GPU_TOLERATION])
    assert toleration_without_gpu_violations("kubernetes:apps/v1:DaemonSet", plugin) == []
    agent = daemonset("fluent-bit", tolerations=[{"operator": "Exists"}])
    (message,) = toleration_without_gpu_violations("kubernetes:apps/v1:DaemonSet", agent)
    assert "every taint (operator Exists without a key)" in message
    assert toleration_without_gpu_violations("kubernetes:apps/v1:DaemonSet", agent, ["kube-system/fluent-*"]) == []


def test_allow_list_applies_to_daemonsets_only() -> None:
    props = deployment([container()], tolerations=[GPU_TOLERATION])
    props["metadata"]["name"] = "nvidia-device-plugin"
    assert len(toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props)) == 1


def test_configured_gpu_taint_keys_are_used() -> None:
    props = deployment([container()], tolerations=[{"key": "gpu", "operator": "Exists"}])
    assert toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props) == []
    assert len(toleration_without_gpu_violations("kubernetes:apps/v1:Deployment", props, gpu_taint_keys=["gpu"])) == 1


# ---------------------------------------------------------------------------------------------------------------
# NVIDIA Helm charts pin a version
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource_type", "props"),
    [
        ("kubernetes:helm.sh/v3:Release", {"chart": "nvidia-device-plugin", "version": "0.20.0"}),
        ("kubernetes:helm.sh/v3:Release", {"chart": "nvidia/gpu-operator", "version": "v26.7.0"}),
        ("kubernetes:helm.sh/v4:Chart", {"chart": "oci://nvcr.io/nvidia/gpu-operator", "version": "v26.7.0"}),
        ("kubernetes:helm.sh/v3:Release", {"chart": "https://example.com/charts/gpu-operator-v26.7.0.tgz"}),
        ("kubernetes:helm.sh/v3:Release", {"chart": "./charts/nvidia-device-plugin"}),
        ("kubernetes:helm.sh/v3:Release", {"chart": "cert-manager"}),
    ],
)
def test_pinned_or_unrelated_charts_pass(resource_type: str, props: dict[str, Any]) -> None:
    assert chart_version_violations(resource_type, props) == []


@pytest.mark.parametrize(
    ("resource_type", "props", "got"),
    [
        (
            "kubernetes:helm.sh/v3:Release",
            {"chart": "gpu-operator", "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"}},
            "no version",
        ),
        ("kubernetes:helm.sh/v4:Chart", {"chart": "nvidia-device-plugin", "version": ""}, "no version"),
        (
            "kubernetes:helm.sh/v3:Release",
            {"chart": "nvidia/nvidia-device-plugin", "version": "^0.20.0"},
            "version '^0.20.0', not an exact version",
        ),
        ("kubernetes:helm.sh/v4:Chart", {"chart": "gpu-feature-discovery", "version": "0.x"}, "version '0.x'"),
    ],
)
def test_unpinned_nvidia_charts_are_flagged(resource_type: str, props: dict[str, Any], got: str) -> None:
    (message,) = chart_version_violations(resource_type, props)
    assert message.startswith("version: chart ")
    assert got in message


# ---------------------------------------------------------------------------------------------------------------
# Shared GPU pools need the trust marking
# ---------------------------------------------------------------------------------------------------------------


def shared_spec() -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(
        {"name": "shared", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 4}}, "aws"
    )


def test_device_plugin_config_map_with_sharing_is_flagged_per_shared_entry() -> None:
    props = {"metadata": {"name": "nvidia-device-plugin-configs"}, "data": device_plugin_config_map([shared_spec()])}
    (message,) = shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", props)
    assert message.startswith("data['shared']: device plugin config 'shared' (timeSlicing) shares GPUs without memory")
    assert "list it in the ConfigMap's annotation gpu-components/sharing-trusted-entries (gpu_components' pools: " in (
        message
    )


def test_config_map_marked_trusted_or_without_sharing_passes() -> None:
    data = device_plugin_config_map([shared_spec()])
    for metadata in (
        {"annotations": {"gpu-components/sharing": "trusted"}},
        {"labels": {"gpu-components/sharing": "trusted"}},
    ):
        assert shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", {"metadata": metadata, "data": data}) == []
    exclusive = {"metadata": {}, "data": {"default": data["default"], "other": "not: [yaml", "app.conf": "a=b"}}
    assert shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", exclusive) == []


def test_config_map_entries_are_marked_trusted_one_by_one() -> None:
    trusted = GpuNodePoolSpec.from_args(
        {"name": "trusted", "instance_type": "g5.2xlarge", "max_size": 2, "mps": {"replicas": 4, "trusted": True}},
        "aws",
    )
    specs = [shared_spec(), trusted]
    props = {
        "metadata": {"name": "configs", "annotations": device_plugin_config_map_annotations(specs)},
        "data": device_plugin_config_map(specs),
    }
    assert props["metadata"]["annotations"] == {"gpu-components/sharing-trusted-entries": "trusted"}
    (message,) = shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", props)
    assert message.startswith("data['shared']: device plugin config 'shared' (timeSlicing) shares GPUs")
    both = {"metadata": {"annotations": {"gpu-components/sharing-trusted-entries": "trusted, shared"}}}
    assert shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", {**props, **both}) == []


def test_trusted_pools_carry_the_mark_the_rule_reads() -> None:
    spec = GpuNodePoolSpec.from_args(
        {"name": "l4", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 4, "trusted": True}},
        "aws",
    )
    assert sharing_trust_labels(spec) == {"gpu-components/sharing": "trusted"}
    assert sharing_trust_labels(shared_spec()) == {}
    user_data = base64.b64encode(bottlerocket.user_data(spec).encode()).decode()
    assert shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", {"userData": user_data}) == []


def test_hand_written_mps_config_map_is_flagged() -> None:
    config = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n"
    props = {"metadata": {"name": "dp", "labels": {"gpu-components/sharing": "yes"}}, "data": {"any": config}}
    (message,) = shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", props)
    assert "'any' (mps)" in message


def test_gke_shared_pool_is_flagged_unless_labelled_trusted() -> None:
    accelerator = {
        "type": "nvidia-l4",
        "count": 1,
        "gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4},
    }
    props = gke_node_pool(machineType="g2-standard-8", guestAccelerators=[accelerator])
    (message,) = shared_gpu_trust_violations("gcp:container/nodePool:NodePool", props)
    assert message.startswith("nodeConfig.guestAccelerators[0].gpuSharingConfig: GKE GPU sharing TIME_SHARING")
    trusted = gke_node_pool(
        machineType="g2-standard-8", guestAccelerators=[accelerator], labels={"gpu-components/sharing": "trusted"}
    )
    assert shared_gpu_trust_violations("gcp:container/nodePool:NodePool", trusted) == []


def test_bottlerocket_launch_template_with_sharing_is_flagged_unless_tagged_trusted() -> None:
    user_data = base64.b64encode(bottlerocket.user_data(shared_spec()).encode()).decode()
    props = {"userData": user_data, "updateDefaultVersion": True}
    (message,) = shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", props)
    assert message.startswith("userData: Bottlerocket device-sharing-strategy time-slicing shares GPUs")
    tagged = {**props, "tags": {"gpu-components/sharing": "trusted"}}
    assert shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", tagged) == []
    labelled = (
        '[settings.kubernetes.node-labels]\n"gpu-components/sharing" = "trusted"\n'
        '[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = "mps"\n'
    )
    labelled_props = {"userData": base64.b64encode(labelled.encode()).decode()}
    assert shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", labelled_props) == []
    for other in ({"userData": "bm90IHRvbWwgWw=="}, {"imageId": "ami-1"}):
        assert shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", other) == []


# ---------------------------------------------------------------------------------------------------------------
# The library's own example stack, as planned
# ---------------------------------------------------------------------------------------------------------------


RULES = {
    "gpu-node-pool-taint": node_pool_taint_violations,
    "gpu-workload-quantities": workload_gpu_quantity_violations,
    "gpu-toleration-without-gpu": toleration_without_gpu_violations,
    "nvidia-chart-version-pinned": chart_version_violations,
    "gpu-shared-pool-trust": shared_gpu_trust_violations,
    "gpu-pool-cloud-bounds": pool_bound_violations,
}
"""Policy name -> the rule function behind it, called directly (what the offline --policy run must agree with)."""
STACK_RULES = {
    "gpu-dra-pool-extended-resource": dra_pool_extended_resource_violations,
    "gpu-dra-alpha-claim-config": dra_alpha_claim_config_violations,
    "gpu-workload-pool-selection": workload_pool_selection_violations,
    "gpu-workload-pool-tolerations": workload_pool_toleration_violations,
    "gpu-workload-pool-fit": workload_pool_fit_violations,
    "gpu-pool-autoscaler-resources": autoscaler_resource_violations,
    "gpu-dra-unsatisfiable-claim": dra_unsatisfiable_claim_violations,
}
"""Policy name -> the stack rule behind it (every resource at once, as the pack's stack policies call them)."""

EXAMPLE_VIOLATIONS: dict[str, list[tuple[str, str]]] = {
    "aws-eks": [],
    "aws-eks-auto": [],
    "aws-eks-dra": [],
    "aws-eks-karpenter": [],
    "aws-eks-operator": [],
    "azure-aks": [],
    "azure-aks-nap": [],
    "gcp-gke": [],
    "gcp-gke-autopilot": [],
    "gcp-gke-dra": [],
}
"""Example stack -> (policy name, resource URN) of every violation the rules find in its golden plan: none, now that
every shared pool says its workloads trust each other (time_slicing.trusted)."""


def rule_verdicts(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(policy name, resource URN, message) of every violation the rule functions (resource and stack rules) find in
    a JSON plan's inputs."""
    resources = [(item["urn"], item["type"], item["inputs"]) for item in plan["resources"]]
    return sorted(
        [
            (name, item["urn"], message)
            for item in plan["resources"]
            for name, rule in RULES.items()
            for message in rule(item["type"], item["inputs"])
        ]
        + [(name, urn, message) for name, stack_rule in STACK_RULES.items() for urn, message in stack_rule(resources)]
    )


@pytest.mark.stack
@pytest.mark.parametrize("stack", sorted(EXAMPLE_VIOLATIONS))
def test_the_example_plans_break_no_rule(stack: str) -> None:
    plan = json.loads((GOLDEN.parent / f"{stack}.json").read_text())
    assert [(name, urn) for name, urn, _ in rule_verdicts(plan)] == EXAMPLE_VIOLATIONS[stack]


@pytest.mark.stack
def test_the_aws_eks_example_without_trust_breaks_only_the_advisory_sharing_rule() -> None:
    plan = json.loads(GOLDEN.read_text())
    for item in plan["resources"]:
        item["inputs"].get("metadata", {}).pop("annotations", None)
    config_map = (
        "urn:pulumi:aws-eks::gpu-components::gpu-components:index:GpuCluster$gpu-components:index:NvidiaDevicePlugin"
        "$kubernetes:core/v1:ConfigMap::gpu-demo-gpu-device-plugin-config"
    )
    assert [(name, urn) for name, urn, _ in rule_verdicts(plan)] == [("gpu-shared-pool-trust", config_map)]


# ---------------------------------------------------------------------------------------------------------------
# The pack: names, enforcement levels, config, the engine's value encoding
# ---------------------------------------------------------------------------------------------------------------


def test_policies_have_the_default_enforcement_levels_and_overrides() -> None:
    assert {p.name: p.enforcement_level for p in policies()} == dict(DEFAULT_ENFORCEMENT)
    overridden = {p.name: p.enforcement_level for p in policies({"gpu-shared-pool-trust": EnforcementLevel.MANDATORY})}
    assert overridden["gpu-shared-pool-trust"] == EnforcementLevel.MANDATORY
    with pytest.raises(ValueError, match="unknown policies"):
        policies({"no-such-policy": EnforcementLevel.DISABLED})


def analyze(
    resource_type: str,
    props: dict[str, Any],
    config: dict[str, dict[str, Any]] | None = None,
    levels: dict[str, int] | None = None,
) -> list[tuple[str, str]]:
    """Run the pack as the Pulumi engine does: props and config as protobuf Structs through the analyzer."""
    servicer = _PolicyAnalyzerServicer("gpu-components", "0.0.1", list(policies()), EnforcementLevel.ADVISORY)
    if config or levels:
        request = proto.ConfigureAnalyzerRequest()
        for name in {*(config or {}), *(levels or {})}:
            entry = request.policyConfig[name]
            entry.enforcementLevel = (levels or {}).get(name, proto.ADVISORY)
            entry.properties.update((config or {}).get(name, {}))
        servicer.Configure(request, None)
    properties = struct_pb2.Struct()
    json_format.ParseDict(props, properties)
    response = servicer.Analyze(
        proto.AnalyzeRequest(type=resource_type, properties=properties, urn="urn:pulumi:s::p::t::n", name="n"),
        None,
    )
    return [(d.policyName, d.message) for d in response.diagnostics]


def test_the_analyzer_reports_violations_with_engine_encoded_numbers() -> None:
    good = deployment([container(limits={"nvidia.com/gpu": 1}, requests={"nvidia.com/gpu": 1})])
    assert analyze("kubernetes:apps/v1:Deployment", good) == []
    bad = deployment([container(limits={"nvidia.com/gpu": 1.5})], tolerations=[GPU_TOLERATION])
    reported = analyze("kubernetes:apps/v1:Deployment", bad)
    assert [name for name, _ in reported] == ["gpu-workload-quantities"]
    assert "GPUs cannot be split into fractions" in reported[0][1]


def test_the_analyzer_passes_policy_config_to_the_rules() -> None:
    props = daemonset("fluent-bit", tolerations=[{"operator": "Exists"}])
    assert [name for name, _ in analyze("kubernetes:apps/v1:DaemonSet", props)] == ["gpu-toleration-without-gpu"]
    config = {"gpu-toleration-without-gpu": {"allowedDaemonSets": ["fluent-bit"]}}
    assert analyze("kubernetes:apps/v1:DaemonSet", props, config) == []


def violations(reported: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(policy, violation)``: each diagnostic's message without the policy description the engine puts first."""
    return [(name, message.split("\n", 1)[1]) for name, message in reported]


def test_a_config_key_a_policy_does_not_have_is_reported_once_with_the_closest_property() -> None:
    """Trial: the Pulumi CLI checks only the properties a policy's schema declares (``convertSchema`` in
    pkg/resource/analyzer/config.go: no additionalProperties) and hands any other key to the pack, which read none
    of them: a misspelt key left the default in force unseen."""
    props = daemonset("fluent-bit", tolerations=[{"operator": "Exists"}])
    config = {"gpu-toleration-without-gpu": {"allowedDaemonSet": ["fluent-bit"]}}
    assert violations(analyze("kubernetes:apps/v1:DaemonSet", props, config)) == [
        (
            "gpu-toleration-without-gpu",
            "policy config of gpu-toleration-without-gpu: 'allowedDaemonSet' is not a config property of this policy, "
            "so it is ignored; did you mean 'allowedDaemonSets'?; its config properties are allowedDaemonSets, "
            "gpuTaintKeys (enforcementLevel aside)",
        ),
        *violations(analyze("kubernetes:apps/v1:DaemonSet", props)),  # the default allow-list still applies
    ]
    quantities = {"gpu-workload-quantities": {"strict": True}}
    good = deployment([container(limits={"nvidia.com/gpu": 1})])
    assert violations(analyze("kubernetes:apps/v1:Deployment", good, quantities)) == [
        (
            "gpu-workload-quantities",
            "policy config of gpu-workload-quantities: 'strict' is not a config property of this policy, so it is "
            "ignored; it takes no config properties (enforcementLevel aside)",
        )
    ]


def test_a_config_problem_is_reported_once_per_pack_run_not_per_resource() -> None:
    servicer = _PolicyAnalyzerServicer("gpu-components", "0.0.1", list(policies()), EnforcementLevel.ADVISORY)
    request = proto.ConfigureAnalyzerRequest()
    request.policyConfig["gpu-node-pool-taint"].properties.update({"gpuTaintKey": ["x"]})
    servicer.Configure(request, None)
    properties = struct_pb2.Struct()
    json_format.ParseDict(deployment([container(limits={"nvidia.com/gpu": 1})]), properties)
    reported = [
        [
            d.message.split("\n", 1)[1]  # after the policy's description
            for d in servicer.Analyze(
                proto.AnalyzeRequest(type="kubernetes:apps/v1:Deployment", properties=properties, urn=f"urn:{n}"), None
            ).diagnostics
        ]
        for n in range(2)
    ]
    assert reported == [
        [
            "policy config of gpu-node-pool-taint: 'gpuTaintKey' is not a config property of this policy, so it is "
            "ignored; did you mean 'gpuTaintKeys'?; its config properties are gpuTaintKeys (enforcementLevel aside)"
        ],
        [],
    ]


def test_pack_config_sets_enforcement_levels() -> None:
    bad = deployment([container(limits={"nvidia.com/gpu": "0.5"})])
    response = analyze("kubernetes:apps/v1:Deployment", bad)
    assert [name for name, _ in response] == ["gpu-workload-quantities"]
    assert analyze("kubernetes:apps/v1:Deployment", bad, levels={"gpu-workload-quantities": proto.DISABLED}) == []
