"""The pack's ``gpu-pool-cloud-bounds``: a GPU pool of any program outside what its cloud's API accepts (EKS cluster
names and node group sizes, AKS OS disks and node counts, GKE nodes per node pool zone), exact messages."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.policy.rules import pool_bound_violations

EKS = "aws:eks/nodeGroup:NodeGroup"
AGENT_POOL = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
GKE = "gcp:container/nodePool:NodePool"
EKS_NAME_SOURCE = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html"
EKS_QUOTAS = "https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html"
AKS_DISK_SOURCE = (
    "AKS error 'The OSDiskSize for Agent pool1 cannot be less than 30GB or larger than 2048GB.' "
    "(pulumi/pulumi-azure-native#663; Azure/karpenter-provider-azure#1146 matches the AKSNodeClass to it)"
)
AKS_QUOTAS = "https://learn.microsoft.com/azure/aks/quotas-skus-regions"
GKE_QUOTAS = "https://cloud.google.com/kubernetes-engine/quotas"


def _eks(**props: Any) -> dict[str, Any]:
    return {"clusterName": "gpu", "instanceTypes": ["g5.xlarge"], "scalingConfig": {"maxSize": 2}, **props}


def test_an_eks_gpu_node_group_naming_a_cluster_eks_cannot_have() -> None:
    assert pool_bound_violations(EKS, _eks(clusterName="gpu demo")) == [
        "clusterName: 'gpu demo' is not what EKS accepts (an EKS cluster name: 1 to 100 letters, digits, hyphens and "
        "underscores, starting with a letter or digit), so EKS refuses this GPU pool (g5.xlarge (1 x NVIDIA A10G "
        f"24GB)) when it is deployed [source: {EKS_NAME_SOURCE}]"
    ]


@pytest.mark.parametrize(("size", "flagged"), [(450, False), (451, True)])
def test_an_eks_gpu_node_group_at_and_past_the_nodes_per_group_quota(size: int, flagged: bool) -> None:
    violations = pool_bound_violations(EKS, _eks(scalingConfig={"maxSize": size, "minSize": 0}))
    assert violations == (
        [
            f"scalingConfig.maxSize: {size} is not what EKS accepts (at most 450 nodes per managed node group), so "
            f"EKS refuses this GPU pool (g5.xlarge (1 x NVIDIA A10G 24GB)) when it is deployed [source: {EKS_QUOTAS}]"
        ]
        if flagged
        else []
    )


@pytest.mark.parametrize(("disk", "flagged"), [(29, True), (30, False), (2048, False), (2049, True)])
def test_an_aks_gpu_agent_pool_os_disk_at_and_past_both_bounds(disk: int, flagged: bool) -> None:
    props = {"vmSize": "Standard_NC4as_T4_v3", "osDiskSizeGB": disk, "count": 1}
    expected = (
        f"osDiskSizeGB: {disk} is not what AKS accepts (30 to 2048 (GB)), so AKS refuses this GPU pool "
        f"(Standard_NC4as_T4_v3 (1 x NVIDIA T4 16GB)) when it is deployed [source: {AKS_DISK_SOURCE}]"
    )
    assert pool_bound_violations(AGENT_POOL, props) == ([expected] if flagged else [])


def test_the_agent_pool_profiles_of_a_managed_cluster_are_judged_each() -> None:
    props = {
        "agentPoolProfiles": [
            {"name": "system", "vmSize": "Standard_D4s_v5", "osDiskSizeGB": 10, "count": 1},
            {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "count": 1001, "maxCount": 1000},
        ]
    }
    assert pool_bound_violations(MANAGED_CLUSTER, props) == [
        "agentPoolProfiles[1].count: 1001 is not what AKS accepts (at most 1000 nodes per node pool), so AKS refuses "
        f"this GPU pool (Standard_NC4as_T4_v3 (1 x NVIDIA T4 16GB)) when it is deployed [source: {AKS_QUOTAS}]"
    ]


@pytest.mark.parametrize("field", ["nodeCount", "autoscaling.minNodeCount", "autoscaling.maxNodeCount"])
def test_a_gke_gpu_node_pool_over_the_nodes_per_zone_limit(field: str) -> None:
    head, _, tail = field.rpartition(".")
    counts: dict[str, Any] = {head: {tail: 1001}} if head else {tail: 1001}
    props = {"nodeConfig": {"machineType": "g2-standard-4", "guestAccelerators": [{"type": "nvidia-l4", "count": 1}]}}
    assert pool_bound_violations(GKE, {**props, **counts}) == [
        f"{field}: 1001 is not what GKE accepts (at most 1000 nodes per node pool zone), so GKE refuses this GPU "
        f"pool (1 x nvidia-l4) when it is deployed [source: {GKE_QUOTAS}]"
    ]
    assert pool_bound_violations(GKE, {**props, **({head: {tail: 1000}} if head else {tail: 1000})}) == []


def test_pools_without_gpus_and_unknown_values_are_not_judged() -> None:
    cpu = {"clusterName": "gpu demo", "instanceTypes": ["m5.large"], "scalingConfig": {"maxSize": 9999}}
    assert pool_bound_violations(EKS, cpu) == []
    # An output the preview does not know yet reaches the pack as no plain value.
    assert pool_bound_violations(EKS, _eks(clusterName=None, scalingConfig={"maxSize": None})) == []
    assert pool_bound_violations(AGENT_POOL, {"vmSize": "Standard_NC4as_T4_v3", "osDiskSizeGB": True}) == []
    assert pool_bound_violations("kubernetes:core/v1:ConfigMap", {"data": {}}) == []


GKE_L4 = {"nodeConfig": {"machineType": "g2-standard-4", "guestAccelerators": [{"type": "nvidia-l4", "count": 1}]}}


@pytest.mark.parametrize(
    ("zones", "total", "over"),
    [
        (
            {"nodeLocations": ["us-central1-a", "us-central1-b"], "location": "us-central1"},
            2001,
            "the 2 zones of nodeLocations",
        ),
        ({"location": "us-central1-a"}, 1001, "the zone of location us-central1-a"),
    ],
)
def test_a_gke_gpu_node_pools_total_max_node_count_over_its_known_zones(
    zones: dict[str, Any], total: int, over: str
) -> None:
    props = {**GKE_L4, **zones, "autoscaling": {"totalMaxNodeCount": total}}
    assert pool_bound_violations(GKE, props) == [
        f"autoscaling.totalMaxNodeCount: {total} is not what GKE accepts (at most 1000 nodes per node pool zone: at "
        f"most {total - 1} over {over}), so GKE refuses this GPU pool (1 x nvidia-l4) when it is deployed [source: "
        f"{GKE_QUOTAS}]"
    ]
    assert pool_bound_violations(GKE, {**props, "autoscaling": {"totalMaxNodeCount": total - 1}}) == []


def test_a_gke_total_max_node_count_of_a_regional_pool_without_node_locations_is_not_judged() -> None:
    """A regional pool's zones default to the cluster's, which the pool's inputs do not hold."""
    props = {**GKE_L4, "location": "us-central1", "autoscaling": {"totalMaxNodeCount": 5000}}
    assert pool_bound_violations(GKE, props) == []
