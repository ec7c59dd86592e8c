"""Cluster-level config checked like pools are, at every entry point where it can be given: the example stack config
(through ``gpu-components plan``), ``GpuCluster``'s wiring and the node-pool components. Cluster names, resource
groups, regions and system pool instance types are judged before any resource is registered."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pulumi_aws
import pytest
import yaml
from click.testing import CliRunner

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.aws import facts as aws_facts
from gpu_components.azure import AksGpuNodePool
from gpu_components.azure import facts as azure_facts
from gpu_components.azure.facts import VM_SIZE_FORM
from gpu_components.catalog import instance_types
from gpu_components.cli import main
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.gcp import facts as gcp_facts
from tests.helpers import copy_example_project, plan_of
from tests.test_config_rejections import ROOT, plan_stack

AKS_NAME = (
    "not an AKS cluster name (got {!r}); valid: 1 to 63 letters, digits, hyphens and underscores, starting and ending "
    "with a letter or digit [source: https://learn.microsoft.com/azure/azure-resource-manager/management/"
    "resource-name-rules]"
)
RESOURCE_GROUP = (
    "not an Azure resource group name (got {!r}); valid: 1 to 90 letters, digits, underscores, hyphens, periods and "
    "parentheses, not ending in a period [source: https://learn.microsoft.com/azure/azure-resource-manager/"
    "management/resource-name-rules]"
)
GKE_NAME = (
    "not a GKE cluster name (got {!r}); valid: 1 to 40 lowercase letters, digits and hyphens, starting with a letter "
    "and ending with a letter or digit [source: https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/"
    "projects.locations.clusters#Cluster]"
)
GKE_LOCATION = (
    "not a Google Cloud region or zone (got {!r}); valid: a region such as us-central1 or a zone such as "
    "us-central1-a [source: https://cloud.google.com/compute/docs/regions-zones]"
)
AZURE_LOCATION = (
    "not an Azure region name (got {!r}); valid: a region's name: letters and digits, e.g. eastus, westeurope or "
    "southcentralus (or its display name, East US) [source: https://learn.microsoft.com/azure/reliability/"
    "regions-list]"
)

AZURE_VM_SIZE = (
    "not an Azure VM size (got {!r}); valid: Standard_<family><vCPUs><features>[_<accelerator>]_<version>, e.g. "
    "Standard_D4ds_v5 or Standard_NC24ads_A100_v4 (older sizes may have no _<version>, e.g. Standard_B2s) [source: "
    "https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions]"
)


def reasons(error: GpuSpecError) -> list[str]:
    return [str(problem) for problem in error.problems]


# The example stack config, through the CLI.


def test_stack_config_refuses_aks_names_region_and_vm_size_the_cloud_would(tmp_path: Path) -> None:
    cluster = {
        "name": "gpu.demo",
        "resource_group_name": "gpudemo-rg.",
        "location": "us-east-1",
        "system_node_pool": {"vm_size": "D4ds_v5"},
    }
    result = plan_stack(tmp_path, "azure-aks", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    for line in (
        f"cluster.name: {AKS_NAME.format('gpu.demo')}",
        f"cluster.resource_group_name: {RESOURCE_GROUP.format('gpudemo-rg.')}",
        f"cluster.location: {AZURE_LOCATION.format('us-east-1')}",
        f"cluster.system_node_pool.vm_size: {AZURE_VM_SIZE.format('D4ds_v5')}",
    ):
        assert line in result.output


def test_stack_config_needs_a_region_for_a_new_aks_cluster(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "azure-aks", {"azure-native:location": None})
    assert result.exit_code == 1
    assert (
        "cluster.location: required when the azure-native:location config is not set: the new resource group and "
        "cluster need a region (got None); valid: an Azure region, e.g. eastus"
    ) in result.output


def test_stack_config_refuses_a_gke_name_location_and_machine_type_the_cloud_would(tmp_path: Path) -> None:
    cluster = {
        "name": "GPU_demo",
        "location": "us-central",
        "system_node_pool": {"machine_type": "standard4"},
    }
    result = plan_stack(tmp_path, "gcp-gke", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    for line in (
        f"cluster.name: {GKE_NAME.format('GPU_demo')}",
        f"cluster.location: {GKE_LOCATION.format('us-central')}",
        "cluster.system_node_pool.machine_type: not a Compute Engine machine type (got 'standard4'); valid: "
        "<series>-<type>-<size> in lowercase, e.g. e2-standard-4 or n2-highmem-8 [source: "
        "https://cloud.google.com/compute/docs/machine-resource]",
    ):
        assert line in result.output


@pytest.mark.parametrize(
    ("instance_type", "reason"),
    [
        (
            "m7g.large",
            "an arm64 instance type, but the system pool runs AL2023_x86_64_STANDARD, an x86_64 image (got "
            "'m7g.large'); valid: an x86_64 instance type [source: https://docs.aws.amazon.com/eks/latest/"
            "APIReference/API_Nodegroup.html (amiType)]",
        ),
        (
            "m7i large",
            "not an EC2 instance type (got 'm7i large'); valid: <family>.<size> in lowercase, e.g. m7i.large or "
            "c7g.xlarge [source: https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html]",
        ),
    ],
    ids=["arm64-type-on-x86-ami", "malformed"],
)
def test_stack_config_refuses_an_eks_system_instance_type_the_node_group_cannot_run(
    tmp_path: Path, instance_type: str, reason: str
) -> None:
    cluster = {"name": "gpu-demo", "system_node_group": {"instance_type": instance_type}}
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert f"cluster.system_node_group.instance_type: {reason}" in result.output


def test_stack_config_accepts_a_well_formed_system_type_the_catalog_does_not_list(tmp_path: Path) -> None:
    cluster = {"name": "gpu-demo", "system_node_group": {"instance_type": "m8i-flex.large"}}
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:cluster": cluster})
    assert result.exit_code == 0, result.output


def test_stack_config_refuses_an_aws_region_that_is_not_a_region_code(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"aws:region": "US West (Oregon)"})
    assert result.exit_code == 1
    assert (
        "aws:region: not an AWS Region code (got 'US West (Oregon)'); valid: a Region code such as us-west-2, "
        "eu-central-1 or us-gov-west-1 [source: https://docs.aws.amazon.com/global-infrastructure/latest/regions/"
        "aws-regions.html]"
    ) in result.output


# GpuCluster's wiring.

T4 = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
L4 = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 2}


def test_gpu_cluster_refuses_aks_wiring_names_azure_would() -> None:
    args: Any = {"cloud": "azure", "pools": [T4], "azure": {"cluster_name": "-prod", "resource_group_name": "rg."}}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))
    assert reasons(error.value) == [
        f"azure.cluster_name: {AKS_NAME.format('-prod')}",
        f"azure.resource_group_name: {RESOURCE_GROUP.format('rg.')}",
    ]


def test_gpu_cluster_refuses_gke_wiring_name_and_location_gke_would() -> None:
    args: Any = {"cloud": "gcp", "pools": [L4], "gcp": {"cluster": "demo-", "location": "us_central1"}}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args), True, {"gcp:project": "proj"})
    assert reasons(error.value) == [
        f"gcp.cluster: {GKE_NAME.format('demo-')}",
        f"gcp.location: {GKE_LOCATION.format('us_central1')}",
    ]


# The node-pool components.


def test_aks_gpu_node_pool_refuses_names_azure_would() -> None:
    args: Any = {"pool": T4, "cluster_name": "a" * 64, "resource_group_name": "my rg"}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: AksGpuNodePool("p", args))
    assert reasons(error.value) == [
        f"cluster_name: {AKS_NAME.format('a' * 64)}",
        f"resource_group_name: {RESOURCE_GROUP.format('my rg')}",
    ]


def test_gke_gpu_node_pool_refuses_a_name_and_location_gke_would() -> None:
    args: Any = {"pool": L4, "cluster": "a" * 41, "location": "europe-west4-"}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GkeGpuNodePool("p", args), True, {"gcp:project": "proj"})
    assert reasons(error.value) == [
        f"cluster: {GKE_NAME.format('a' * 41)}",
        f"location: {GKE_LOCATION.format('europe-west4-')}",
    ]


def test_names_at_the_limits_of_each_form_are_accepted() -> None:
    aks: Any = {"pool": T4, "cluster_name": "a" * 62 + "9", "resource_group_name": "(Team_A).gpu-" + "r" * 77}
    gke: Any = {"pool": L4, "cluster": "g" + "-" * 38 + "1", "location": "us-central1"}
    plan_of(lambda: (AksGpuNodePool("p", aks), GkeGpuNodePool("q", gke)), True, {"gcp:project": "proj"})


# The device plugin's escape hatch, from the stack config (GpuCluster and the component: tests/test_bad_inputs.py).


def test_stack_config_refuses_device_plugin_values_that_fix_the_config_hash(tmp_path: Path) -> None:
    values = {"podAnnotations": {"gpu-components/config-hash": "0", "team": "ml"}}
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"helm_values": values}})
    assert result.exit_code == 1
    assert (
        "device_plugin.helm_values.podAnnotations.gpu-components/config-hash: decided by the library: a digest of the "
        "pools' configs: the DaemonSet's pods restart when a pool's config entry changes, which a fixed value would "
        "stop (other podAnnotations are the user's) (got '0'); valid: leave it to the library"
    ) in result.output


def test_stack_config_passes_other_device_plugin_pod_annotations_on(tmp_path: Path) -> None:
    values = {"podAnnotations": {"team": "ml"}}
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"helm_values": values}})
    assert result.exit_code == 0, result.output
    [release] = [r for r in json.loads(result.output)["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release"]
    assert release["inputs"]["values"]["podAnnotations"]["team"] == "ml"
    assert sorted(release["inputs"]["values"]["podAnnotations"]) == ["gpu-components/config-hash", "team"]


# One bad value, one problem: the cluster rules skip what the shape check has refused.

G6 = {"name": "g6", "instance_type": "g6.xlarge", "max_size": 2}
KARPENTER_POOL = {
    "name": "k",
    "instance_type": "g6.xlarge",
    "provisioning": {"provisioner": "karpenter", "max_gpus": 4},
}
EKS_WIRING = {"cluster_name": "prod", "subnet_ids": ["subnet-1"]}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            {"pools": [KARPENTER_POOL], "aws": {**EKS_WIRING, "karpenter_controller": "yes"}},
            "aws.karpenter_controller: input should be a valid boolean (got 'yes'); valid: true, false",
        ),
        ({"pools": None}, "pools: must not be null (got None); valid: a list"),
        ({"cloud": None}, "cloud: must not be null (got None); valid: 'aws', 'azure' or 'gcp'"),
        (
            {"aws": None},
            "aws: the cluster wiring for aws is required (got None); valid: cluster_name, subnet_ids",
        ),
        (
            {"gpu_stack": "dra", "dra": None},
            "dra: must not be null; leave the field out for its default (got None); valid: a mapping with keys "
            "chart_version, extended_resource, feature_gates, helm_values, installer, kubernetes_version, namespace",
        ),
    ],
    ids=["karpenter-controller-string", "pools-null", "cloud-null", "wiring-null", "dra-null"],
)
def test_gpu_cluster_reports_one_bad_value_once(change: dict[str, Any], reason: str) -> None:
    args: Any = {"cloud": "aws", "pools": [G6], "aws": EKS_WIRING, **change}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))
    assert reasons(error.value) == [reason]


def test_stack_config_reports_one_bad_value_once(tmp_path: Path) -> None:
    cluster = {"name": "gpu-demo", "karpenter": "yes"}
    result = plan_stack(tmp_path, "aws-eks-karpenter", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert "1 invalid GPU setting" in result.output
    assert (
        "cluster.karpenter: input should be a valid dictionary (got 'yes'); valid: a mapping with keys existing, "
        "helm_values, version"
    ) in result.output


# A provisioning block on a fixed-pool component: the component to use, and nothing about the block's contents.

EKS_FIXED = (
    "EksGpuNodeGroup makes a fixed EKS managed node group, with no provisioning; a pool that Karpenter creates nodes "
    "for (provisioner: karpenter) is an EksKarpenterGpuNodePool; a pool that EKS Auto Mode creates nodes for "
    "(provisioner: eks-auto-mode) is an EksAutoModeGpuNodePool (got {!r}); valid: no provisioning, or "
    "EksKarpenterGpuNodePool or EksAutoModeGpuNodePool"
)
GKE_FIXED = (
    "GkeGpuNodePool makes a fixed GKE node pool, with no provisioning; a pool that a ComputeClass creates nodes for "
    "(provisioner: compute-class) is a GkeComputeClassGpuPool (got {!r}); valid: no provisioning, or "
    "GkeComputeClassGpuPool"
)
AKS_FIXED = (
    "AksGpuNodePool makes a fixed AKS agent pool, with no provisioning; a pool that Node Auto Provisioning creates "
    "nodes for (provisioner: node-auto-provisioning) is an AksNapGpuNodePool (got {!r}); valid: no provisioning, or "
    "AksNapGpuNodePool"
)


@pytest.mark.parametrize(
    "provisioning",
    [{"provisioner": "karpenter"}, {"max_gpus": 2}, None, "compute-class", {"provisioner": "node-auto-provisioning"}],
    ids=["another-clouds-provisioner", "no-provisioner", "null", "not-a-mapping", "aks-provisioner"],
)
def test_gke_gpu_node_pool_redirects_any_provisioning_block(provisioning: object) -> None:
    args: Any = {"pool": {**L4, "provisioning": provisioning}, "cluster": "c", "location": "us-central1"}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GkeGpuNodePool("p", args), True, {"gcp:project": "proj"})
    assert reasons(error.value) == [f"pool.provisioning: {GKE_FIXED.format(provisioning)}"]


@pytest.mark.parametrize(
    ("provisioning", "reason"),
    [
        ({}, f"pool.provisioning: {EKS_FIXED.format({})}"),
        ({"provisioner": "compute-class", "max_gpus": 2}, None),
        (
            {"provisioner": "eks-auto-mode"},  # beside max_size, and with no limit: still the redirect alone
            "pool.provisioning.provisioner: EksGpuNodeGroup makes a fixed EKS managed node group; a pool that EKS "
            "Auto Mode creates nodes for is an EksAutoModeGpuNodePool (got 'eks-auto-mode'); valid: no provisioning, "
            "or EksKarpenterGpuNodePool or EksAutoModeGpuNodePool",
        ),
    ],
    ids=["empty", "another-clouds-provisioner", "auto-mode-with-max-size"],
)
def test_eks_gpu_node_group_redirects_any_provisioning_block(provisioning: dict[str, Any], reason: str | None) -> None:
    args: Any = {"pool": {**G6, "provisioning": provisioning}, **EKS_WIRING}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: EksGpuNodeGroup("p", args))
    assert reasons(error.value) == [reason or f"pool.provisioning: {EKS_FIXED.format(provisioning)}"]


def test_aks_gpu_node_pool_redirects_a_provisioning_block_without_a_provisioner() -> None:
    args: Any = {"pool": {**T4, "provisioning": {"max_gpus": 2}}, "cluster_name": "c", "resource_group_name": "rg"}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: AksGpuNodePool("p", args))
    assert reasons(error.value) == [f"pool.provisioning: {AKS_FIXED.format({'max_gpus': 2})}"]


def test_aks_gpu_node_pool_redirects_a_nap_pool_beside_max_size() -> None:
    pool = {**T4, "provisioning": {"provisioner": "node-auto-provisioning", "max_gpus": 4}}
    args: Any = {"pool": pool, "cluster_name": "c", "resource_group_name": "rg"}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: AksGpuNodePool("p", args))
    assert reasons(error.value) == [
        "pool.provisioning.provisioner: AksGpuNodePool makes a fixed AKS agent pool; a pool that Node Auto "
        "Provisioning creates nodes for is an AksNapGpuNodePool (got 'node-auto-provisioning'); valid: no "
        "provisioning, or AksNapGpuNodePool"
    ]


# Azure VM sizes: the form the message states.


def _azure_sizes_in_use() -> list[str]:
    """Every Azure size of the catalog, and every ``Standard_`` name written in full in the example stacks."""
    stacks = "".join(path.read_text() for path in (ROOT / "stacks").glob("Pulumi.azure-*.yaml"))
    return sorted({item.name for item in instance_types("azure")} | set(re.findall(r"Standard_\w+", stacks)))


def test_every_catalog_and_stack_vm_size_has_the_azure_form() -> None:
    sizes = _azure_sizes_in_use()
    assert "Standard_D4ds_v5" in sizes and "Standard_ND128isr_NDR_GB200_v6" in sizes
    assert [size for size in sizes if VM_SIZE_FORM.problems(size, "vm_size")] == []


@pytest.mark.parametrize(
    "size",
    [
        "Standard_E4-2s_v3",
        "Standard_B2s",
        "Standard_F2",
        "Standard_M416s_8_v2",
        "Standard_NC128ds_xl_RTXPRO6000BSE_v6",
        "Standard_ND96is_MI300X_v5",
        "Standard_D2_v2_Promo",
        "Standard_HB120-16rs_v3",
    ],
)
def test_real_vm_sizes_outside_the_catalog_have_the_azure_form(size: str) -> None:
    assert VM_SIZE_FORM.problems(size, "vm_size") == []


@pytest.mark.parametrize(
    "size", ["Standard_Foo", "Standard_d4ds_v5", "Standard_4ds_v5", "Standard_D4ds_v5_", "Basic_A1", "Standard_"]
)
def test_stack_config_refuses_a_vm_size_outside_the_azure_form(tmp_path: Path, size: str) -> None:
    cluster = {"name": "gpudemo", "resource_group_name": "gpudemo-rg", "system_node_pool": {"vm_size": size}}
    result = plan_stack(tmp_path, "azure-aks", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert f"cluster.system_node_pool.vm_size: {AZURE_VM_SIZE.format(size)}" in result.output


# Regions and locations: of the form, and in the cloud's list.

AWS_REGION_UNLISTED = (
    "aws:region: not an AWS Region code: AWS's list of Regions has no us-west-99 (list of 2026-12-05) (got "
    "'us-west-99'); valid: a Region of the list, closest: us-west-2, us-west-1, us-east-2 [source: https://docs.aws.amazon.com/"
    "global-infrastructure/latest/regions/aws-regions.html]"
)


def test_the_aws_region_list_is_pulumi_aws_s_region_enum() -> None:
    assert sorted(aws_facts.REGIONS.names) == sorted(region.value for region in pulumi_aws.Region)


def test_stack_config_refuses_an_aws_region_aws_does_not_list(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks", {"aws:region": "us-west-99"})
    assert result.exit_code == 1
    assert AWS_REGION_UNLISTED in result.output


@pytest.mark.parametrize("region", ["eusc-de-east-1", "us-gov-west-1", "cn-northwest-1", "mx-central-1"])
def test_aws_regions_of_every_partition_are_accepted(region: str) -> None:
    assert aws_facts.REGION_FORM.problems(region, "aws:region") == []


@pytest.mark.parametrize(
    ("key", "path"),
    [("azure-native:location", "azure-native:location"), ("cluster", "cluster.location")],
)
def test_stack_config_refuses_an_azure_region_azure_does_not_list(tmp_path: Path, key: str, path: str) -> None:
    cluster = {"name": "gpudemo", "resource_group_name": "gpudemo-rg"}
    change: dict[str, Any] = (
        {"azure-native:location": "mars"}
        if key != "cluster"
        else {"azure-native:location": None, "gpu-components:cluster": {**cluster, "location": "westus9"}}
    )
    result = plan_stack(tmp_path, "azure-aks", change)
    assert result.exit_code == 1
    if key == "cluster":
        assert (
            "cluster.location: not an Azure region name: Azure's list of regions has no westus9 (list of 2026-12-05) "
            "(got 'westus9'); valid: a region of the list, closest: westus, westus3, westus2 [source: "
            "https://learn.microsoft.com/azure/reliability/regions-list; az account list-locations]"
        ) in result.output
    else:
        assert (
            f"{path}: not an Azure region name: Azure's list of regions has no mars (list of 2026-12-05) (got 'mars'); "
            "valid: a region of the list [source: https://learn.microsoft.com/azure/reliability/regions-list; az "
            "account list-locations]"
        ) in result.output


@pytest.mark.parametrize("location", ["eastus2", "East US 2", "swedencentral", "usgovvirginia"])
def test_azure_region_names_and_display_names_are_accepted(location: str) -> None:
    assert azure_facts.LOCATION_FORM.problems(location, "location") == []


GKE_UNLISTED = (
    "not a Google Cloud region or zone: Google Cloud's list of regions has no us-central9 (list of 2026-12-05) (got "
    "{!r}); valid: a region of the list, closest: us-central1, me-central2, me-central1 [source: "
    "https://cloud.google.com/compute/docs/regions-zones]"
)


@pytest.mark.parametrize("location", ["us-central9", "us-central9-a"])
def test_stack_config_refuses_a_gke_location_google_does_not_list(tmp_path: Path, location: str) -> None:
    result = plan_stack(tmp_path, "gcp-gke", {"gpu-components:cluster": {"name": "gpu-demo", "location": location}})
    assert result.exit_code == 1
    assert f"cluster.location: {GKE_UNLISTED.format(location)}" in result.output


def test_stack_config_refuses_a_zone_letter_no_zone_has(tmp_path: Path) -> None:
    result = plan_stack(
        tmp_path, "gcp-gke", {"gpu-components:cluster": {"name": "gpu-demo", "location": "us-central1-z"}}
    )
    assert result.exit_code == 1
    assert f"cluster.location: {GKE_LOCATION.format('us-central1-z')}" in result.output


@pytest.mark.parametrize(
    ("region", "reason"),
    [
        (
            "mars",
            "not a Google Cloud region (got 'mars'); valid: a region such as us-central1 (not a zone such as "
            "us-central1-a) [source: https://cloud.google.com/compute/docs/regions-zones]",
        ),
        (
            "us-central1-a",
            "not a Google Cloud region (got 'us-central1-a'); valid: a region such as us-central1 (not a "
            "zone such as us-central1-a) [source: https://cloud.google.com/compute/docs/regions-zones]",
        ),
        (
            "us-west9",
            "not a Google Cloud region: Google Cloud's list of regions has no us-west9 (list of 2026-12-05) (got "
            "'us-west9'); valid: a region of the list, closest: us-west4, us-west3, us-west2 [source: "
            "https://cloud.google.com/compute/docs/regions-zones]",
        ),
    ],
    ids=["not-a-region", "a-zone", "unlisted"],
)
def test_stack_config_checks_the_gcp_region_like_the_location(tmp_path: Path, region: str, reason: str) -> None:
    result = plan_stack(tmp_path, "gcp-gke", {"gcp:region": region})
    assert result.exit_code == 1
    assert f"gcp:region: {reason}" in result.output


def test_gpu_cluster_refuses_a_gke_location_google_does_not_list() -> None:
    args: Any = {"cloud": "gcp", "pools": [L4], "gcp": {"cluster": "demo", "location": "us-central9-a"}}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args), True, {"gcp:project": "proj"})
    assert reasons(error.value) == [f"gcp.location: {GKE_UNLISTED.format('us-central9-a')}"]


@pytest.mark.parametrize("location", ["us-central9", "us-central1-z"])
def test_gke_gpu_node_pool_refuses_a_location_google_does_not_have(location: str) -> None:
    args: Any = {"pool": L4, "cluster": "c", "location": location}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GkeGpuNodePool("p", args), True, {"gcp:project": "proj"})
    expected = GKE_UNLISTED if location == "us-central9" else GKE_LOCATION
    assert reasons(error.value) == [f"location: {expected.format(location)}"]


def test_every_region_the_stacks_and_docs_use_is_listed() -> None:
    text = (
        "".join(path.read_text() for path in (ROOT / "stacks").glob("Pulumi.*.yaml")) + (ROOT / "README.md").read_text()
    )
    stacks = [yaml.safe_load(path.read_text())["config"] for path in (ROOT / "stacks").glob("Pulumi.*.yaml")]
    aws_regions = {config["aws:region"] for config in stacks if "aws:region" in config}
    gcp_regions = {config["gcp:region"] for config in stacks if "gcp:region" in config}
    azure_regions = {config["azure-native:location"] for config in stacks if "azure-native:location" in config}
    gke_locations = set(re.findall(r"\b(?:us|europe|asia)-[a-z]+[0-9]+(?:-[a-f])?\b", text))
    assert aws_regions and gcp_regions and azure_regions and gke_locations
    assert [r for r in aws_regions if aws_facts.REGION_FORM.problems(r, "r")] == []
    assert [r for r in gcp_regions if gcp_facts.REGION_FORM.problems(r, "r")] == []
    assert [r for r in azure_regions if azure_facts.LOCATION_FORM.problems(r, "r")] == []
    assert [r for r in gke_locations if gcp_facts.LOCATION_FORM.problems(r, "r")] == []


# Settings that do nothing: refused, or a warning with the reason.

KARPENTER_NOTE = (
    "aws.karpenter_controller: true, but no pool is a Karpenter pool (provisioning.provisioner: karpenter): it changes "
    "nothing, as GpuCluster reads it only to allow Karpenter pools (it installs no controller); remove it (in the "
    "example program's stack config: cluster.karpenter, which sets it), or add a Karpenter pool"
)


def test_gpu_cluster_warns_of_a_karpenter_controller_no_pool_needs(caplog: pytest.LogCaptureFixture) -> None:
    args: Any = {"cloud": "aws", "pools": [G6], "aws": {**EKS_WIRING, "karpenter_controller": True}}
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: GpuCluster("c", args))
    assert [r.getMessage() for r in caplog.records if "karpenter_controller" in r.getMessage()] == [
        f"gpu-components:index:GpuCluster (c): {KARPENTER_NOTE}"
    ]


def test_gpu_cluster_with_a_karpenter_pool_gives_no_karpenter_warning(caplog: pytest.LogCaptureFixture) -> None:
    wiring = {**EKS_WIRING, "karpenter_controller": True, "node_role_arn": "arn:aws:iam::123456789012:role/k"}
    args: Any = {"cloud": "aws", "pools": [KARPENTER_POOL], "aws": wiring}
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: GpuCluster("c", args))
    assert [r.getMessage() for r in caplog.records if "karpenter_controller" in r.getMessage()] == []


def test_stack_config_warns_of_a_karpenter_cluster_without_karpenter_pools(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "aws-eks-karpenter", {"gpu-components:pools": [G6]})
    assert result.exit_code == 0, result.output
    assert f"warning: t: gpu-components:index:GpuCluster (gpu-karpenter-gpu): {KARPENTER_NOTE}" in result.output


@pytest.mark.parametrize(
    ("key", "base", "reason"),
    [
        (
            "device_plugin",
            "aws-eks",
            "must not be null; give a YAML mapping, or leave the key out for its default (got None); valid: a mapping "
            "with keys chart_version, helm_values, namespace",
        ),
        (
            "gpu_operator",
            "aws-eks-operator",
            "must not be null; give a YAML mapping, or leave the key out for its default (got None); valid: a mapping "
            "with keys chart_version, dcgm_exporter, driver_upgrade, helm_values, namespace, operator_driver, "
            "service_monitor",
        ),
        (
            "cluster",
            "aws-eks",
            "must not be null; give a YAML mapping (got None); valid: a mapping with keys auto_mode, existing, "
            "karpenter, kubernetes_version, name, node_role_arn, subnet_ids, system_node_group, vpc_id",
        ),
    ],
)
def test_stack_config_refuses_a_null_settings_key(tmp_path: Path, key: str, base: str, reason: str) -> None:
    result = plan_stack_raw(tmp_path, base, {f"gpu-components:{key}": None})
    assert result.exit_code == 1
    assert "1 invalid GPU setting" in result.output
    assert f"gpu-components:{key}: {reason}" in result.output


def test_stack_config_refuses_null_pools_once(tmp_path: Path) -> None:
    result = plan_stack_raw(tmp_path, "aws-eks", {"gpu-components:pools": None})
    assert result.exit_code == 1
    assert "1 invalid GPU setting" in result.output
    assert "gpu-components:pools: must not be null; give a YAML list of pools (got None)" in result.output


def test_gpu_cluster_refuses_a_null_device_plugin() -> None:
    args: Any = {"cloud": "aws", "pools": [G6], "aws": EKS_WIRING, "device_plugin": None}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))
    assert reasons(error.value) == [
        "device_plugin: must not be null; leave the field out for its default (got None); valid: a mapping with keys "
        "chart_version, helm_values, namespace"
    ]


# Valid values where a key is left out or a version is a YAML number.


def test_stack_config_names_the_valid_gke_locations_when_none_is_given(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "gcp-gke", {"gpu-components:cluster": {"name": "gpu-demo"}})
    assert result.exit_code == 1
    assert (
        "cluster.location: required field is missing (got None); valid: a region such as us-central1 or a zone such "
        "as us-central1-a [source: https://cloud.google.com/compute/docs/regions-zones]"
    ) in result.output


def test_gpu_cluster_names_the_valid_gke_locations_when_none_is_given() -> None:
    args: Any = {"cloud": "gcp", "pools": [L4], "gcp": {"cluster": "demo"}}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args), True, {"gcp:project": "proj"})
    assert reasons(error.value) == [
        "gcp.location: required field is missing (got None); valid: a region such as us-central1 or a zone such as "
        "us-central1-a [source: https://cloud.google.com/compute/docs/regions-zones]"
    ]


@pytest.mark.parametrize(("base", "extra"), [("aws-eks", {}), ("azure-aks", {"resource_group_name": "gpudemo-rg"})])
def test_stack_config_says_to_quote_a_kubernetes_version_yaml_reads_as_a_number(
    tmp_path: Path, base: str, extra: dict[str, str]
) -> None:
    cluster = {"name": "gpudemo", "kubernetes_version": 1.30, **extra}
    result = plan_stack(tmp_path, base, {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert (
        "cluster.kubernetes_version: a number, not a string: YAML reads an unquoted version as a number (1.30 as 1.3); "
        'quote it (got 1.3); valid: MAJOR.MINOR as a string, e.g. "1.34"'
    ) in result.output


def plan_stack_raw(tmp_path: Path, base: str, change: dict[str, Any]) -> Any:
    """Like ``plan_stack``, but a ``None`` value is written as a YAML null instead of removing the key."""
    copy_example_project(tmp_path)
    (tmp_path / "stacks").mkdir(exist_ok=True)
    stack = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{base}.yaml").read_text())
    stack["config"].update(change)
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    return CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path)])
