"""AKS as data (:class:`~gpu_components.cloud_facts.CloudFacts`), without the Azure SDK: its agent pool name rule,
driver ownership, what the GPU Operator needs on it, and its agent pool resources.

The agent pool component (:mod:`gpu_components.azure.aks`) reads these too. Facts and sources:

- Linux node pool names: https://learn.microsoft.com/azure/aks/create-node-pools#limitations
- AKS installs the NVIDIA driver on GPU pools unless told not to (``gpu_driver: none``, ``gpuProfile.driver:
  None``): https://learn.microsoft.com/azure/aks/gpu-cluster#skip-gpu-driver-installation; with AKS's driver the
  GPU Operator's driver and toolkit are off and ``operator.runtimeClass`` is ``nvidia-container-runtime``; with the
  installation skipped, the operator installs both without special settings:
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/microsoft-aks.html
- ``nodeTaints`` are ``key=value:Effect`` strings in Kubernetes' spelling; VM sizes match case-insensitively.
- Which agent pool inputs force a replacement: pulumi-azure-native's curated force-new list for ``AgentPool``
  (``gpuInstanceProfile``, ``vmSize``, ``networkProfile.nodePublicIPTags``; added in
  pulumi/pulumi-azure-native#3655 because AKS documents them as unchangeable after creation) and the resource's URL
  path parameters (``resourceGroupName``, ``resourceName``, ``agentPoolName``), which name the pool and so always
  replace it (:data:`SOURCE_FORCE_NEW`). The agent pool component also replaces the pool when a setting AKS fixes
  at creation changes (:data:`AGENT_POOL_OPTIONS`): the MIG profile, the spot priority, eviction policy and max
  price (https://learn.microsoft.com/azure/aks/spot-node-pool), and the driver choice, offered only when a pool is
  added (``az aks nodepool add --gpu-driver``); existing nodes keep the driver they booted with.
- A new Kubernetes version or node image is rolled out by cordoning, draining and reimaging every node
  (:data:`AGENT_POOL_ROLLS`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from gpu_components.azure.options import GpuDriver
from gpu_components.cloud_facts import (
    KARPENTER_SH_LABELS,
    KARPENTER_SH_REASONS,
    LIBRARY_INSTANCE_LABEL,
    NODEPOOL_REQUIREMENT_OPERATORS,
    CloudFacts,
    ComponentOptions,
    DraFacts,
    DriverOwnership,
    ForceNewTable,
    FractionalGpuTypes,
    GpuOperatorFacts,
    InputBound,
    NodeLimit,
    NodePoolResource,
    NodeRolls,
    PoolNameRule,
    ProvisionerFacts,
    RefusedChanges,
    ReservedPrefixes,
)
from gpu_components.name_forms import KnownNames, NameForm

if TYPE_CHECKING:
    from gpu_components.enums import TaintEffectName as TaintEffect

SOURCE_GPU_OPERATOR = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/microsoft-aks.html"
SOURCE_FORCE_NEW = (
    "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/gen/forceNew.go "
    "(pulumi/pulumi-azure-native#3655; https://learn.microsoft.com/azure/aks/manage-node-pools#limitations, "
    "https://learn.microsoft.com/azure/aks/gpu-multi-instance)"
)
"""pulumi-azure-native's curated force-new properties of ``AgentPool`` and the AKS pages they rest on."""

DEFAULT_GPU_DRIVER: GpuDriver = "aks"
"""AKS installs the driver, as it does when ``gpuProfile`` is not set; the device plugin stack needs it."""
NO_GPU_DRIVER: GpuDriver = "none"
"""The ``gpu_driver`` with which AKS installs no NVIDIA driver (for the GPU Operator's own)."""
NODE_TOOLKIT_RUNTIME_CLASS = "nvidia-container-runtime"
"""``operator.runtimeClass`` with AKS's preinstalled toolkit (NVIDIA's AKS guide)."""

TAINT_EFFECTS: Mapping[TaintEffect, str] = MappingProxyType(
    {"NoSchedule": "NoSchedule", "PreferNoSchedule": "PreferNoSchedule", "NoExecute": "NoExecute"}
)
"""Kubernetes taint effect -> AKS spelling: the same (``nodeTaints`` take Kubernetes' ``key=value:Effect``)."""

AGENT_POOL_TYPE = "azure-native:containerservice:AgentPool"
"""Type token of pulumi-azure-native's AKS agent pool (API-version modules hold the same resource)."""
MANAGED_CLUSTER_TYPE = "azure-native:containerservice:ManagedCluster"
"""Type token of pulumi-azure-native's AKS cluster, whose ``agentPoolProfiles`` are node pools too."""

SOURCE_UPGRADES = "https://learn.microsoft.com/azure/aks/upgrade-conceptual"
"""How AKS upgrades a node pool: surge nodes, then each node cordoned, drained and reimaged."""

AGENT_POOL_OPTIONS = ComponentOptions(
    ignore_changes=("count",),
    replace_on_changes=(
        "gpuInstanceProfile",
        "gpuProfile",
        "scaleSetPriority",
        "scaleSetEvictionPolicy",
        "spotMaxPrice",
    ),
    delete_before_replace=True,
    why="the Cluster Autoscaler owns the node count; the MIG profile, driver choice and spot settings are fixed when "
    "a pool is created, so a change replaces the pool (deleted first: the replacement has the same AKS name)",
)
"""The options :class:`~gpu_components.azure.AksGpuNodePool` registers its agent pool with."""
AGENT_POOL_ROLLS = NodeRolls(
    ("orchestratorVersion", "nodeImageVersion"),
    "AKS upgrades the pool in place by draining and reimaging every node",
    SOURCE_UPGRADES,
)
"""Agent pool inputs AKS changes by reimaging every node (an upgrade); a VM size or MIG profile change replaces the
pool."""

_MISSING_GPU_TAINT = "GPU node pool of {gpu} has no NoSchedule GPU taint in nodeTaints"

RESERVED_PREFIXES = ReservedPrefixes(
    ("kubernetes.azure.com/",),
    taints=False,
    source="https://learn.microsoft.com/azure/aks/use-labels#unavailable-labels",
)
"""Node label key prefixes AKS keeps for its own labels."""
SOURCE_NAME_RULES = "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules"
"""Azure's naming rules per resource type: ``Microsoft.ContainerService/managedClusters`` 1 to 63 characters,
alphanumerics, underscores and hyphens, starting and ending with an alphanumeric; ``Microsoft.Resources/
resourcegroups`` 1 to 90 characters, underscores, hyphens, periods, parentheses and letters or digits (Unicode, as
.NET's ``Char.IsLetterOrDigit``), not ending in a period."""
CLUSTER_NAME_FORM = NameForm(
    "an AKS cluster name",
    re.compile(r"[0-9A-Za-z]([0-9A-Za-z_-]{0,61}[0-9A-Za-z])?"),
    "1 to 63 letters, digits, hyphens and underscores, starting and ending with a letter or digit",
    SOURCE_NAME_RULES,
)
"""An AKS managed cluster's name (:data:`SOURCE_NAME_RULES`)."""
RESOURCE_GROUP_FORM = NameForm(
    "an Azure resource group name",
    re.compile(r"[\w().-]{0,89}[\w()-]"),
    "1 to 90 letters, digits, underscores, hyphens, periods and parentheses, not ending in a period",
    SOURCE_NAME_RULES,
)
"""A resource group's name (:data:`SOURCE_NAME_RULES`; Python's Unicode ``\\w`` is letters, digits and the
underscore)."""
SOURCE_REGIONS = "https://learn.microsoft.com/azure/reliability/regions-list"
"""Azure's list of regions with their programmatic names (``az account list-locations`` lists the same names)."""
REGIONS = KnownNames(
    "region",
    "Azure's",
    (
        *("australiacentral", "australiacentral2", "australiaeast", "australiasoutheast", "austriaeast"),
        *("belgiumcentral", "brazilsouth", "brazilsoutheast", "canadacentral", "canadaeast", "centralindia"),
        *("centralus", "chilecentral", "denmarkeast", "eastasia", "eastus", "eastus2", "francecentral"),
        *("francesouth", "germanynorth", "germanywestcentral", "indonesiacentral", "israelcentral", "italynorth"),
        *("japaneast", "japanwest", "jioindiacentral", "jioindiawest", "koreacentral", "koreasouth"),
        *("malaysiawest", "mexicocentral", "newzealandnorth", "northcentralus", "northeurope", "norwayeast"),
        *("norwaywest", "polandcentral", "qatarcentral", "southafricanorth", "southafricawest", "southcentralus"),
        *("southeastasia", "southindia", "spaincentral", "swedencentral", "swedensouth", "switzerlandnorth"),
        *("switzerlandwest", "uaecentral", "uaenorth", "uksouth", "ukwest", "westcentralus", "westeurope"),
        *("westindia", "westus", "westus2", "westus3"),
        # Early-access (canary) regions, and the sovereign clouds' (Azure Government, Azure China).
        *("centraluseuap", "eastus2euap", "usgovarizona", "usgovtexas", "usgovvirginia", "usdodcentral"),
        *("usdodeast", "chinaeast", "chinaeast2", "chinaeast3", "chinanorth", "chinanorth2", "chinanorth3"),
    ),
    f"{SOURCE_REGIONS}; az account list-locations",
    "2026-12-05",
    folded=True,
)
"""Every Azure region a cluster can be created in, by programmatic name (:data:`SOURCE_REGIONS`; compiled 2026-12-05
offline, from the page's list as last known and copies of ``az account list-locations`` output, not from the live
page: check new regions there):
the public cloud's physical regions (restricted-access ones such as ``australiacentral2`` included), the canary
regions and the sovereign clouds' regions. Not the logical names ``az account list-locations`` also lists
(``global``, ``europe``, ``unitedstates``), which hold no cluster. A display name (``East US 2``) is looked up
lowercased without spaces."""
LOCATION_FORM = NameForm(
    "an Azure region name",
    re.compile(r"[A-Za-z]+( ?[A-Za-z0-9]+)*"),
    "a region's name: letters and digits, e.g. eastus, westeurope or southcentralus (or its display name, East US)",
    SOURCE_REGIONS,
    REGIONS,
)
"""An Azure region's name (``eastus``; ``az account list-locations`` lists them, with display names such as
``East US``, which Azure Resource Manager also takes): no hyphens, as another cloud's region codes have; listed in
:data:`REGIONS`."""
VM_SIZE_FORM = NameForm(
    "an Azure VM size",
    re.compile(r"Standard_[A-Z]+[0-9]+(-[0-9]+)?[a-z]*(_[0-9]+)?(_[a-z]+)?(_[A-Z][A-Za-z0-9]*)*(_v[0-9]+)?(_Promo)?"),
    "Standard_<family><vCPUs><features>[_<accelerator>]_<version>, e.g. Standard_D4ds_v5 or "
    "Standard_NC24ads_A100_v4 (older sizes may have no _<version>, e.g. Standard_B2s)",
    "https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions",
)
"""An Azure VM size's name as the APIs take it, in the parts of Azure's naming conventions: ``Standard_``, the family
in capitals (``D``, ``NC``, ``HB``), the vCPUs, optionally constrained vCPUs (``E4-2s_v3``), the lowercase additive
features (``ds``, ``ads``), optional qualifiers (``M416s_8_v2``; ``_xl`` of ``Standard_NC128ds_xl_RTXPRO6000BSE_v6``),
the accelerator (``_A100``, ``_NDR_GB200``), the version (``_v5``; none on older sizes such as ``Standard_B2s`` and
``Standard_F2``) and ``_Promo`` (older promotional sizes). Names of another form are refused: no vCPU count
(``Standard_Foo``), lowercase family (``Standard_d4ds_v5``), the retired Basic tier (``Basic_A1``)."""
MAX_NODES = NodeLimit(1000, "https://learn.microsoft.com/azure/aks/quotas-skus-regions")
"""AKS limit: nodes per node pool (Virtual Machine Scale Sets)."""
MIN_OS_DISK_GB = 30
"""Smallest OS disk (GB) AKS gives a node, in an agent pool (``osDiskSizeGB``; :data:`SOURCE_AGENT_POOL_OS_DISK`)
as in a Node Auto Provisioning AKSNodeClass (its CRD's minimum, matched to AKS's in
Azure/karpenter-provider-azure#1146)."""
SOURCE_AGENT_POOL_OS_DISK = (
    "AKS error 'The OSDiskSize for Agent pool1 cannot be less than 30GB or larger than 2048GB.' "
    "(pulumi/pulumi-azure-native#663; Azure/karpenter-provider-azure#1146 matches the AKSNodeClass to it)"
)
"""AKS refuses an agent pool ``osDiskSizeGB`` under :data:`MIN_OS_DISK_GB` or over :data:`MAX_OS_DISK_GB`."""
MAX_OS_DISK_GB = 2048
"""Largest OS disk (GB) AKS gives an agent pool's nodes (:data:`SOURCE_AGENT_POOL_OS_DISK`)."""
AGENT_POOL_BOUNDS = (
    InputBound(
        "osDiskSizeGB",
        f"{MIN_OS_DISK_GB} to {MAX_OS_DISK_GB} (GB)",
        SOURCE_AGENT_POOL_OS_DISK,
        low=MIN_OS_DISK_GB,
        high=MAX_OS_DISK_GB,
    ),
    InputBound("count", f"at most {MAX_NODES.nodes} nodes per node pool", MAX_NODES.source, high=MAX_NODES.nodes),
    InputBound("maxCount", f"at most {MAX_NODES.nodes} nodes per node pool", MAX_NODES.source, high=MAX_NODES.nodes),
)
"""An agent pool's OS disk and node counts, as the policy pack checks them on any program's agent pools (and
the agent pool profiles of a managed cluster)."""


KARPENTER_AZURE_CRD_ALLOWED = (
    "karpenter.azure.com/aksnodeclass",
    "karpenter.azure.com/sku-name",
    "karpenter.azure.com/sku-family",
    "karpenter.azure.com/sku-series",
    "karpenter.azure.com/sku-version",
    "karpenter.azure.com/sku-cpu",
    "karpenter.azure.com/sku-memory",
    "karpenter.azure.com/sku-networking-accelerated",
    "karpenter.azure.com/sku-storage-premium-capable",
    "karpenter.azure.com/sku-storage-ultra-ssd",
    "karpenter.azure.com/sku-storage-ephemeralos-maxsize",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-manufacturer",
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/placement-scope",
)
"""The ``karpenter.azure.com`` keys the NodePool CRD's domain rule lets through (Karpenter's Azure provider
v1.14.2, tests/reference/karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml line 233), as it lists them."""
SOURCE_NAP_LABELS = (
    "https://learn.microsoft.com/azure/aks/node-auto-provisioning-node-pools; "
    "https://github.com/Azure/karpenter-provider-azure/blob/main/pkg/apis/v1beta1/labels.go"
)
"""AKS NAP's (Azure Karpenter provider's) node labels: ``karpenter.azure.com/sku-gpu-name``, ``sku-gpu-count``,
``sku-family`` (the size's one-letter family, ``N`` for the NVIDIA sizes); no GPU memory label."""
SOURCE_NAP_GPU_NAME = (
    "https://github.com/Azure/karpenter-provider-azure/blob/main/pkg/providers/instancetype/instancetype.go "
    "(setRequirementsGPU: sku-gpu-name is the size's AcceleratorType parsed by github.com/Azure/skewer from the "
    "size name); https://learn.microsoft.com/azure/virtual-machines/vm-naming-conventions"
)
"""Where the ``sku-gpu-name`` values come from."""
SOURCE_NAP_DISRUPTION = "https://learn.microsoft.com/azure/aks/node-auto-provisioning-disruption"
SOURCE_NAP_EXPIRE = (
    "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/apis/crds/karpenter.sh_nodepools.yaml (the "
    "default of template.spec.expireAfter, 720h; the library's NodePools leave it unset unless expire_after is given)"
)
"""NAP's node expiry for the library's NodePools: the Karpenter NodePool CRD's default, 720h."""
"""AKS NAP honours Karpenter's ``karpenter.sh/do-not-disrupt`` pod annotation."""

SOURCE_NAP_GPU_LABELS = (
    "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/apis/v1beta1/labels.go (sku-gpu-name, "
    "sku-gpu-manufacturer, sku-gpu-count); https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/"
    "providers/instancetype/instancetype.go (setRequirementsGPU: sku-gpu-manufacturer nvidia on NVIDIA sizes, "
    "sku-gpu-name the size's accelerator; sku-gpu-count the size's GPUs)"
)
"""Where NAP's GPU label keys and values come from."""
NAP_GPU_MANUFACTURER = "nvidia"
"""``karpenter.azure.com/sku-gpu-manufacturer`` on an NVIDIA size (the provider's ``ManufacturerNvidia``,
:data:`SOURCE_NAP_GPU_LABELS`)."""
SOURCE_NVADS_A10 = (
    "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series (NVadsA10 v5: "
    "1/6, 1/3 or 1/2 of one A10 per VM through NVIDIA vGPU, with NVIDIA's GRID driver); "
    "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/providers/instancetype/instancetype.go "
    "(gpuNvidiaCount: a size's nvidia.com/gpu is Azure's integer GPUs capability of the size)"
)
"""Where the facts of :data:`FRACTIONAL_GPU_TYPES` come from."""
FRACTIONAL_GPU_TYPES = (
    FractionalGpuTypes(
        pattern=re.compile(r"^Standard_NV[0-9]+adm?s_A10_v5$"),
        families=(),
        gpu="its A10 through NVIDIA vGPU, only a fraction of one A10 on the smaller sizes (1/6, 1/3 and 1/2 on "
        "Standard_NV6ads_A10_v5, Standard_NV12ads_A10_v5 and Standard_NV18ads_A10_v5)",
        why="Karpenter's Azure provider (AKS Node Auto Provisioning) takes a size's nvidia.com/gpu from Azure's "
        "integer GPUs capability, which a fraction of a GPU is not, and the series needs NVIDIA's vGPU (GRID) "
        "driver; no whole GPU count describes it, so the catalog, whose pools count whole GPUs, does not list it",
        instead="a VM size with whole GPUs, e.g. Standard_NC4as_T4_v3 (one T4) or Standard_NC24ads_A100_v4 (one A100)",
        source=SOURCE_NVADS_A10,
    ),
)
"""The Azure VM sizes whose VMs get a fraction of one GPU (:data:`SOURCE_NVADS_A10`)."""

_ACCELERATOR_IN_SIZE = re.compile(r"^Standard_[A-Z]+[0-9]+[a-z]*_(?:NDR_)?(?P<accelerator>[A-Z]+[0-9]+[A-Z]*)_v[0-9]+$")


def nap_gpu_name(vm_size: str) -> str | None:
    """The ``karpenter.azure.com/sku-gpu-name`` value of a VM size's nodes: the accelerator part of the size name
    (``Standard_NC24ads_A100_v4`` -> ``A100``, ``Standard_ND128isr_NDR_GB200_v6`` -> ``GB200``), or ``None`` for a
    size whose name carries none (``Standard_NC6s_v3``, ``Standard_ND96asr_v4``): a newer Azure/skewer maps those
    by a table of its own, so whether the label is there depends on the provider's release, and the library does
    not select by it (:data:`SOURCE_NAP_GPU_NAME`)."""
    match = _ACCELERATOR_IN_SIZE.fullmatch(vm_size)
    return match.group("accelerator") if match is not None else None


SOURCE_GPU_OS = (
    "https://learn.microsoft.com/azure/aks/use-nvidia-gpu#limitations (Flatcar Container Linux for AKS and Azure "
    "Linux with OS Guard are not supported with NVIDIA GPUs)"
)
"""Which AKS node OSes run NVIDIA GPUs."""
SOURCE_OS_SKUS = (
    "https://learn.microsoft.com/azure/aks/upgrade-os-version (supported OS SKUs); "
    "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update#ossku"
)
"""The agent pool ``osSku`` values AKS knows."""
SOURCE_AZURE_LINUX_2_RETIREMENT = (
    "https://github.com/Azure/AKS/issues/4988 (Azure Linux 2.0 on AKS: no support or security updates from "
    "2025-11-30, node images removed from 2026-03-31); https://learn.microsoft.com/azure/aks/upgrade-os-version"
)
"""Azure Linux 2.0 (``osSku`` ``CBLMariner``, ``Mariner``) is retired on AKS."""
SOURCE_GRACE_BLACKWELL_IMAGE = (
    "https://github.com/Azure/AgentBaker/blob/06836ee2301e362039418c3a7ed0fe6004a641fd/pkg/agent/datamodel/types.go "
    "(the GB200/GB300 sizes' one AKS node image: distro aks-ubuntu-arm64-gb200-containerd-24.04-gen2, Ubuntu 24.04; "
    "pkg/agent/datamodel/sig_config.go has no Azure Linux image for them)"
)
"""AKS builds the Grace Blackwell sizes' node image (and GPU driver install) on Ubuntu only."""

UBUNTU = "Ubuntu"
"""The OS family of AKS's Ubuntu node images (``osSku`` ``Ubuntu``, ``Ubuntu2204``, ``Ubuntu2404``)."""
AZURE_LINUX = "Azure Linux"
"""The OS family of AKS's Azure Linux node images (``osSku`` ``AzureLinux``, ``AzureLinux3``)."""
GPU_OS_SKUS: Mapping[str, str] = MappingProxyType(
    {
        "Ubuntu": UBUNTU,
        "Ubuntu2204": UBUNTU,
        "Ubuntu2404": UBUNTU,
        "AzureLinux": AZURE_LINUX,
        "AzureLinux3": AZURE_LINUX,
    }
)
"""Agent pool ``osSku`` values AKS runs NVIDIA GPU nodes on -> their OS family (:data:`SOURCE_OS_SKUS`). AKS's
default, with ``osSku`` unset, is ``Ubuntu``."""
DEFAULT_OS_SKU = "Ubuntu"
"""The ``osSku`` of a Linux agent pool that sets none (AKS's default)."""
REFUSED_OS_SKUS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "AzureLinuxOSGuard": ("Azure Linux with OS Guard has no NVIDIA GPU support on AKS", SOURCE_GPU_OS),
        "Flatcar": ("Flatcar Container Linux for AKS has no NVIDIA GPU support on AKS", SOURCE_GPU_OS),
        "CBLMariner": ("Azure Linux 2.0 is retired on AKS (support ended 2025-11-30)", SOURCE_AZURE_LINUX_2_RETIREMENT),
        "Mariner": ("Azure Linux 2.0 is retired on AKS (support ended 2025-11-30)", SOURCE_AZURE_LINUX_2_RETIREMENT),
        **dict.fromkeys(
            ("Windows2019", "Windows2022", "Windows2025", "WindowsAnnual"),
            (
                "a Windows OS SKU; the library makes Linux GPU pools (osType Linux), served by NVIDIA's Linux device "
                "plugin or GPU Operator",
                SOURCE_OS_SKUS,
            ),
        ),
    }
)
"""Agent pool ``osSku`` values AKS knows that a GPU pool of the library may not take -> (why, source)."""
OS_VERSIONS: Mapping[str, str] = MappingProxyType({"Ubuntu2204": "22.04", "Ubuntu2404": "24.04", "AzureLinux3": "3"})
"""``osSku`` / ``imageFamily`` values that name an OS version -> that version. ``Ubuntu`` and ``AzureLinux`` name
none: AKS picks the version by the Kubernetes version (:data:`SOURCE_OS_SKUS`), so they may be any of the family's."""
IMAGE_FAMILIES: Mapping[str, str] = MappingProxyType(
    {"Ubuntu": UBUNTU, "Ubuntu2204": UBUNTU, "Ubuntu2404": UBUNTU, "AzureLinux": AZURE_LINUX}
)
"""AKSNodeClass ``imageFamily`` values -> their OS family: the CRD's enum (Karpenter's Azure provider v1.14.2,
tests/reference/karpenter-azure/v1.14.2/karpenter.azure.com_aksnodeclasses.yaml), each with NVIDIA GPU support
("GPUs are supported with both image families on compatible VM sizes",
https://learn.microsoft.com/azure/aks/node-auto-provisioning-aksnodeclass)."""
UBUNTU_ONLY_GPUS: Mapping[str, str] = MappingProxyType(dict.fromkeys(("GB200", "GB300"), SOURCE_GRACE_BLACKWELL_IMAGE))
"""Catalog GPU models whose VM sizes AKS runs (and installs the NVIDIA driver on) with Ubuntu only -> the source:
the Grace Blackwell sizes ND GB200 v6 and ND GB300 v6. (The RTX PRO 6000 BSE v6 sizes are not in the catalog.)"""

SOURCE_OPERATOR_ONE_OS = (
    "https://learn.microsoft.com/azure/aks/nvidia-gpu-operator (the NVIDIA GPU Operator isn't compatible with "
    f"multiple OS versions on the same AKS cluster); {SOURCE_GPU_OPERATOR}"
)
"""Why one GPU Operator should not span Ubuntu and Azure Linux pools."""

SOURCE_TAG_NAMES = (
    "https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources (Tag names are "
    "case-insensitive for operations)"
)
"""Azure tag names match in any case."""

MANAGED_GPU_TAG = "EnableManagedGPUExperience"
"""The Azure tag that turns on AKS's managed GPU experience on a node: with AKS's NVIDIA driver, AKS runs NVIDIA's
device plugin and DCGM exporter on the node itself (:data:`SOURCE_MANAGED_GPU`)."""
SOURCE_MANAGED_GPU = (
    "https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes; https://github.com/Azure/AgentBaker/blob/"
    "06836ee2301e362039418c3a7ed0fe6004a641fd/parts/linux/cloud-init/artifacts/cse_helpers.sh "
    "(enableManagedGPUExperience reads the VM's EnableManagedGPUExperience tag, value in any case) and "
    "cse_main.sh (only where AKS installs the driver)"
)
"""AKS's managed GPU experience, and how a node decides on it (an AKSNodeClass's ``tags`` go on its VMs)."""


SOURCE_ARM_IDENTITY = (
    "https://learn.microsoft.com/azure/azure-resource-manager/management/move-region (a resource's region cannot "
    "change: it is recreated in the new one); https://learn.microsoft.com/rest/api/aks/managed-clusters/"
    "create-or-update (resourceGroupName and resourceName are the resource's URL)"
)
"""Why an ARM resource's location, resource group and name replace it: they are its identity."""

OTHER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        "azure-native:resources:ResourceGroup": ForceNewTable(("location", "resourceGroupName"), SOURCE_ARM_IDENTITY),
    }
)
"""The force-new inputs of the other resources the example AKS cluster creates (its resource group)."""

SOURCE_NODE_POOL_VM_SIZE = (
    "https://learn.microsoft.com/azure/aks/manage-node-pools#limitations (\"You can't change the VM size of a node"
    ' pool after you create it."); https://learn.microsoft.com/azure/aks/resize-node-pool (resize by creating a new'
    " node pool, cordoning and draining the old one, then deleting it; the in-place resize is an opt-in preview)"
)
"""AKS: an existing node pool keeps its VM size."""

REFUSED_IN_PLACE: Mapping[str, RefusedChanges] = MappingProxyType(
    {
        "azure-native:containerservice:ManagedCluster": RefusedChanges(
            ("agentPoolProfiles[*].vmSize",),
            "AKS refuses to change the VM size of an existing node pool: add a new system pool with the new size,"
            " move the system workloads onto it, then remove the old pool",
            SOURCE_NODE_POOL_VM_SIZE,
        ),
    }
)
"""Inputs AKS refuses to change in place: the VM size of the cluster's inline (system) agent pools, which
pulumi-azure-native sends as an update of the managed cluster (an ``AgentPool`` resource's ``vmSize`` is force-new
instead, so the provider replaces it)."""

FACTS = CloudFacts(
    dra=DraFacts(
        driver_root="/",
        node_labels=MappingProxyType({}),
        source="https://learn.microsoft.com/en-us/azure/aks/use-nvidia-gpu",
    ),
    provisioners=MappingProxyType(
        {
            "node-auto-provisioning": ProvisionerFacts(
                source="https://learn.microsoft.com/azure/aks/node-auto-provisioning",
                gpu_name_label="karpenter.azure.com/sku-gpu-name",
                gpu_count_label="karpenter.azure.com/sku-gpu-count",
                gpu_memory_label=None,
                do_not_disrupt=("karpenter.sh/do-not-disrupt", "true"),
                labels_source=f"{SOURCE_NAP_LABELS}; {SOURCE_NAP_DISRUPTION}",
                gpu_name_value=nap_gpu_name,
                values_source=SOURCE_NAP_GPU_NAME,
                gpu_manufacturer_label="karpenter.azure.com/sku-gpu-manufacturer",
                gpu_manufacturer_value=NAP_GPU_MANUFACTURER,
                requirement_operators=NODEPOOL_REQUIREMENT_OPERATORS,
                requirements_source=f"{SOURCE_NAP_LABELS}; {SOURCE_NAP_GPU_LABELS}",
                counts_whole_gpus=True,
                instance_type_label="karpenter.azure.com/sku-name",
                default_expire_after="720h",
                expire_source=SOURCE_NAP_EXPIRE,
                restricted_label_domains=MappingProxyType(
                    {
                        "karpenter.sh": KARPENTER_SH_LABELS,
                        "karpenter.azure.com": "Karpenter's Azure provider sets labels in it on every node itself "
                        "(the VM size's, e.g. karpenter.azure.com/sku-gpu-name): select a node by them in a "
                        "workload instead",
                        "kubernetes.azure.com": "AKS sets labels in it on every node itself (e.g. "
                        "kubernetes.azure.com/scalesetpriority)",
                    }
                ),
                restricted_labels=MappingProxyType(
                    dict.fromkeys(
                        ("agentpool", "storageprofile", "storagetier", "accelerator"),
                        "AKS sets this node label itself",
                    )
                ),
                label_reasons=MappingProxyType(
                    dict.fromkeys(KARPENTER_AZURE_CRD_ALLOWED, LIBRARY_INSTANCE_LABEL) | dict(KARPENTER_SH_REASONS)
                ),
                restricted_labels_source="https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/apis/"
                'crds/karpenter.sh_nodepools.yaml (template.metadata.labels: label domains "karpenter.sh", '
                '"karpenter.azure.com" and "kubernetes.azure.com" are restricted, each refusing a key whose domain '
                "part ends with the domain; "
                'labels "agentpool", "storageprofile", "storagetier" and "accelerator" are restricted; '
                "tests/reference/karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml lines 225-242)",
            )
        }
    ),
    cloud="azure",
    service="AKS",
    force_new=OTHER_FORCE_NEW,
    refused_in_place=REFUSED_IN_PLACE,
    pool_name=PoolNameRule(
        re.compile(r"^[a-z][a-z0-9]*$"),
        12,
        "1-12 lowercase letters or digits, starting with a letter (Linux node pools)",
        "https://learn.microsoft.com/azure/aks/create-node-pools#limitations",
    ),
    taint_effects=TAINT_EFFECTS,
    driver=DriverOwnership(
        setting="gpu_driver",
        defaults=MappingProxyType({"x86_64": DEFAULT_GPU_DRIVER, "arm64": DEFAULT_GPU_DRIVER}),
        off=NO_GPU_DRIVER,
        owner="AKS node image",
        source=SOURCE_GPU_OPERATOR,
    ),
    gpu_operator=GpuOperatorFacts(
        source=SOURCE_GPU_OPERATOR,
        node_toolkit_runtime_class=NODE_TOOLKIT_RUNTIME_CLASS,
        one_node_os_source=SOURCE_OPERATOR_ONE_OS,
    ),
    node_pools=(
        NodePoolResource(
            type_token=AGENT_POOL_TYPE,
            instance_types="vmSize",
            taints="nodeTaints",
            missing_gpu_taint=_MISSING_GPU_TAINT,
            taint_text=True,
            api_versions=True,
            labels="nodeLabels",
            force_new=ForceNewTable(
                (
                    "agentPoolName",
                    "resourceGroupName",
                    "resourceName",
                    "gpuInstanceProfile",
                    "vmSize",
                    "networkProfile.nodePublicIPTags",
                ),
                SOURCE_FORCE_NEW,
            ),
            rolls=AGENT_POOL_ROLLS,
            component=AGENT_POOL_OPTIONS,
            bounds=AGENT_POOL_BOUNDS,
        ),
        NodePoolResource(
            type_token=MANAGED_CLUSTER_TYPE,
            instance_types="vmSize",
            taints="nodeTaints",
            missing_gpu_taint=_MISSING_GPU_TAINT,
            taint_text=True,
            api_versions=True,
            pools="agentPoolProfiles",
            force_new=ForceNewTable(("location", "resourceGroupName", "resourceName"), SOURCE_ARM_IDENTITY),
            bounds=AGENT_POOL_BOUNDS,
        ),
    ),
    instance_types_ignore_case=True,
    fractional_gpu_types=FRACTIONAL_GPU_TYPES,
    reserved_prefixes=RESERVED_PREFIXES,
    max_pool_nodes=MAX_NODES,
)
"""AKS: agent pools whose driver AKS installs unless ``gpu_driver`` is ``none``."""
