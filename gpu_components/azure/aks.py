"""``AksGpuNodePool``: an AKS user agent pool for a validated GPU pool.

AKS spellings (``MIG1g``, ``Spot``, ``key=value:NoSchedule`` taint strings, ``gpuProfile.driver``) live in this
package and nowhere else (what the plan and the policy pack read without the Azure SDK in
:mod:`gpu_components.azure.facts`). Facts:
- Agent pool inputs (``gpuInstanceProfile`` ``MIG1g|MIG2g|MIG3g|MIG4g|MIG7g``, ``gpuProfile.driver``
  ``Install|None``, spot settings): the ``Microsoft.ContainerService/managedClusters/agentPools`` REST API,
  version 2025-09-01, the version of pulumi-azure-native 3.x's default ``containerservice.AgentPool``:
  https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update?view=rest-aks-2025-09-01
- MIG on AKS: one GPU instance profile per pool, fixed at creation, with the device plugin's ``single`` or
  ``mixed`` strategy, on A100, H100 and H200 VM sizes only (:data:`AKS_MIG_GPUS`):
  https://learn.microsoft.com/azure/aks/gpu-multi-instance
- AKS installs the NVIDIA driver on GPU pools unless told not to, and not the device plugin:
  https://learn.microsoft.com/azure/aks/gpu-cluster#skip-gpu-driver-installation
- Under the GPU Operator (``gpu_stack: gpu-operator``): with AKS's driver the operator's driver and toolkit are off;
  with ``gpu_driver: none`` the operator installs them (NVIDIA's AKS guide:
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/microsoft-aks.html; who owns the driver is
  checked by :func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`). MIG pools keep their
  ``gpuInstanceProfile`` and the operator's MIG manager is kept off them.
- Spot pools get the label ``kubernetes.azure.com/scalesetpriority: spot`` and the taint
  ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule``; priority and max price are fixed at creation:
  https://learn.microsoft.com/azure/aks/spot-node-pool
- Scale from zero (:data:`SOURCE_AUTOSCALER`): AKS's managed Cluster Autoscaler builds a template node for an
  empty pool from the agent pool's own ``nodeLabels`` and ``nodeTaints`` (which the library sets in full, AKS's spot
  taint and label included), the VM size (CPU, memory, ``nvidia.com/gpu`` = the size's GPU count, and the label
  ``kubernetes.azure.com/accelerator=nvidia``), and the scale set's tags
  ``k8s.io_cluster-autoscaler_node-template_resources_<resource, '/' written '_'>``, which override a resource's
  amount (the cloud provider's ``azure_template.go``). Without them the template of a time-sliced or MIG pool says
  one device per GPU; so the agent pool's tags, which AKS applies to the pool's scale set
  (https://learn.microsoft.com/azure/aks/use-tags), carry the resources each node advertises (:func:`autoscaler_tags`).
  Nothing else is missing; what no template can say is in the component's ``autoscaler_note``.
- Node disk (``pool.disk_size_gb``): the agent pool's ``osDiskSizeGB``.
- Node OS (``agent_pool_args.os_sku``): the values AKS runs NVIDIA GPUs on, and Azure Linux only on sizes whose
  AKS node image has it (:func:`os_sku_problems`; facts and sources in :mod:`gpu_components.azure.facts`).
"""

from collections.abc import Mapping, Sequence
from enum import Enum
from types import MappingProxyType
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    DevicePluginHost,
    GpuStack,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    adopt_view,
    fixed_pool_problems,
    pool_outputs,
    validated_pool,
)
from gpu_components.autoscaler import gpu_resource_note, owned_tag_problems
from gpu_components.azure._sdk import azure_native
from gpu_components.azure.facts import (
    AGENT_POOL_OPTIONS,
    AZURE_LINUX,
    CLUSTER_NAME_FORM,
    DEFAULT_GPU_DRIVER,
    DEFAULT_OS_SKU,
    GPU_OS_SKUS,
    MANAGED_GPU_TAG,
    MAX_OS_DISK_GB,
    MIN_OS_DISK_GB,
    NO_GPU_DRIVER,
    OS_VERSIONS,
    REFUSED_OS_SKUS,
    RESOURCE_GROUP_FORM,
    SOURCE_AGENT_POOL_OS_DISK,
    SOURCE_MANAGED_GPU,
    SOURCE_OS_SKUS,
    UBUNTU,
    UBUNTU_ONLY_GPUS,
)
from gpu_components.azure.options import GpuDriver
from gpu_components.catalog import GpuModel, MigProfile, instance_type
from gpu_components.enums import GpuDriverArg, GpuStackArg, value_of
from gpu_components.errors import Problem
from gpu_components.gpu_requests import tolerations
from gpu_components.labels import GPU_ACCESS_LABEL, POOL_LABEL
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, advertised_resources, device_plugin_node_labels
from gpu_components.nvidia.gpu_operator import operand_off_label, operator_node_labels
from gpu_components.nvidia.mig import mig_node_labels
from gpu_components.provider_args import ProviderArgs, collected
from gpu_components.shape import did_you_mean, plain
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, Taint, not_uniform, sharing_trust_labels

SOURCE_AGENT_POOL_API = "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update?view=rest-aks-2025-09-01"
SOURCE_MIG_ON_AKS = "https://learn.microsoft.com/azure/aks/gpu-multi-instance"
SOURCE_GPU_DRIVER = "https://learn.microsoft.com/azure/aks/gpu-cluster#skip-gpu-driver-installation"
SOURCE_SPOT = "https://learn.microsoft.com/azure/aks/spot-node-pool"
SOURCE_AUTOSCALER = (
    "https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/azure/README.md "
    "(Scaling a VMSS node group to and from 0); .../cloudprovider/azure/azure_template.go"
)

AKS_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36")
"""Kubernetes minor versions AKS supports in late 2026 (AKS keeps the three newest GA minors, plus LTS), for schema
checks of what the library renders. Source: https://learn.microsoft.com/azure/aks/supported-kubernetes-versions"""

AKS_GPU_NODE_LABEL = "kubernetes.azure.com/accelerator"
"""Node label AKS puts on its GPU nodes (value :data:`AKS_GPU_NODE_LABEL_VALUE`); workloads may select on it."""
AKS_GPU_NODE_LABEL_VALUE = "nvidia"
"""Value of :data:`AKS_GPU_NODE_LABEL` on NVIDIA GPU nodes."""

SPOT_PRIORITY_KEY = "kubernetes.azure.com/scalesetpriority"
"""Key of the label and taint AKS itself puts on every spot pool."""
SPOT_TAINT = Taint(SPOT_PRIORITY_KEY, "spot", "NoSchedule")
"""The taint AKS adds to spot pools. Declared on the pool so a second plan shows no diff, and exposed in the
component's ``taints`` so the device plugin and workloads tolerate it."""
SPOT_LABELS: Mapping[str, str] = MappingProxyType({SPOT_PRIORITY_KEY: "spot"})
"""The label AKS adds to spot pools. Declared on the pool: AKS keeps it among the pool's own labels, and a label
update without it would remove it (Azure/AKS#3152)."""
SPOT_EVICTION_POLICY = "Delete"
"""Evicted spot nodes are deleted, not deallocated: deallocated nodes still count against quota and block
scaling (AKS spot documentation). AKS's own default."""
SPOT_MAX_PRICE = -1.0
"""Pay at most the on-demand price, so nodes are never evicted for price, only for capacity."""

GPU_INSTANCE_PROFILES: Mapping[int, str] = MappingProxyType(
    {1: "MIG1g", 2: "MIG2g", 3: "MIG3g", 4: "MIG4g", 7: "MIG7g"}
)
"""MIG compute slices -> AKS ``gpuInstanceProfile``."""

AKS_MIG_GPUS = ("A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB")
"""Catalog GPU models AKS makes MIG partitions on (``gpuInstanceProfile``): "Multi-instance GPU is currently
supported on NVIDIA A100, H100, and H200 series GPU VM sizes on AKS" (:data:`SOURCE_MIG_ON_AKS`, "Prerequisites and
limitations"; MicrosoftDocs/azure-aks-docs ``articles/aks/gpu-multi-instance.md``, ms.date 05/22/2026). The GB200
of the ND GB200 v6 sizes and the GB300 of the ND GB300 v6 sizes are MIG-capable but not among them. The library
makes every AKS MIG pool with ``gpuInstanceProfile``, the GPU Operator's MIG manager kept off it, under any
``gpu_stack``."""

GPU_DRIVER_SETTINGS: Mapping[str, str] = MappingProxyType({"aks": "Install", "none": "None"})
"""``gpu_driver`` -> ``gpuProfile.driver``."""

AUTOSCALER_TEMPLATE_TAG = "k8s.io_cluster-autoscaler_node-template_"
"""Prefix of the scale set tags the Cluster Autoscaler reads to build a template node (Azure tag names cannot hold
``/``): owned by the library, refused in ``tags``."""
AUTOSCALER_RESOURCE_TAG = f"{AUTOSCALER_TEMPLATE_TAG}resources_"
"""Prefix of the tag that sets how much of a resource an empty pool's nodes offer (the resource name follows, with
``/`` written ``_``)."""

AGENT_POOL_OWNED_ARGS = (
    "agent_pool_name",
    "count",
    "enable_auto_scaling",
    "gpu_instance_profile",
    "gpu_profile",
    "max_count",
    "min_count",
    "mode",
    "node_labels",
    "node_taints",
    "os_disk_size_gb",
    "os_type",
    "resource_group_name",
    "resource_name",
    "scale_set_eviction_policy",
    "scale_set_priority",
    "spot_max_price",
    "tags",
    "type",
    "vm_size",
)
"""``azure_native.containerservice.AgentPool`` arguments the library sets (from the pool, ``gpu_driver``, the wiring
and ``tags``), refused in ``agent_pool_args``."""
AGENT_POOL_ARGS = ProviderArgs(
    "pulumi_azure_native.containerservice.AgentPool",
    azure_native.containerservice.AgentPoolArgs,
    frozenset(AGENT_POOL_OWNED_ARGS),
)
"""The escape hatch of :class:`AksGpuNodePool` (``agent_pool_args``; see :mod:`gpu_components.provider_args`)."""

REPLACE_ON_CHANGES = AGENT_POOL_OPTIONS.replace_on_changes
"""Agent pool properties fixed at creation: a change replaces the pool instead of an update AKS refuses (the agent
pool's options, :data:`~gpu_components.azure.facts.AGENT_POOL_OPTIONS`, which the plan's diff applies too). The MIG
profile, spot priority, eviction policy and max price are documented as fixed; the driver choice is offered only
when a pool is added (``az aks nodepool add --gpu-driver``) and existing nodes keep the driver they booted with."""


class AksGpuNodePoolArgs(TypedDict):
    """Inputs of :class:`AksGpuNodePool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``azure``."""
    resource_group_name: pulumi.Input[str]
    """Resource group of the AKS cluster."""
    cluster_name: pulumi.Input[str]
    """Name of the AKS cluster."""
    gpu_driver: NotRequired[GpuDriverArg]
    """Who installs the NVIDIA driver on the pool's nodes: ``aks`` (AKS) or ``none``. Defaults to ``aks``. ``none``
    is rejected while the pool is served by the NVIDIA device plugin, which installs no driver; under the GPU Operator
    it needs the operator's driver (``operator_driver``, checked by the cross-cloud composition)."""
    tags: NotRequired[Mapping[str, str]]
    """Azure tags for the agent pool (AKS applies them to its scale set). Defaults to none; the library adds the
    Cluster Autoscaler's resource tags, and keys under ``k8s.io_cluster-autoscaler_node-template_`` are refused, as
    is ``EnableManagedGPUExperience: "true"`` (AKS's own device plugin beside the library's GPU stack)."""
    agent_pool_args: NotRequired[dict[str, Any]]
    """Other ``pulumi_azure_native.containerservice.AgentPool`` arguments, in the SDK's snake_case names (e.g.
    ``availability_zones``, ``vnet_subnet_id``, ``upgrade_settings``, ``kubelet_config``), merged under the
    library's. Defaults to none. A key the library sets (``AGENT_POOL_OWNED_ARGS``) or that ``AgentPool`` does not
    take is an error naming the key; ``os_sku`` must be an OS AKS runs NVIDIA GPUs on for the pool's VM size
    (:func:`os_sku_problems`)."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``. With ``gpu-operator`` the pool gets the operator's node labels
    instead of the device plugin's. With ``dra`` a pool whose ``gpu_access`` is ``dra`` (the default there) gets the
    label ``gpu-components/gpu-access: dra`` instead, NVIDIA's DRA driver publishing its GPUs."""


def device_plugin_host(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> DevicePluginHost:
    """Where the device plugin runs on an AKS pool (AKS installs none): NVIDIA's DRA driver (``dra-driver``) on a
    pool whose resolved ``gpu_access`` is ``dra`` (agent pools and Node Auto Provisioning pools alike: AKS runs no
    device plugin of its own, and its driver, ``gpu_driver: aks``, sits on the host, the DRA driver's default
    ``nvidiaDriverRoot`` ``/``), the GPU Operator's under ``gpu-operator``, else the cluster's DaemonSet."""
    if spec.uses_dra(gpu_stack):
        return "dra-driver"
    return "gpu-operator" if gpu_stack == "gpu-operator" else "daemonset"


def pool_advertised_resources(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, int]:
    """What each node advertises as extended resources: nothing on a DRA pool (its GPUs are DRA devices), else the
    NVIDIA device plugin's resources (:func:`~gpu_components.nvidia.device_plugin.advertised_resources`)."""
    return {} if device_plugin_host(spec, gpu_stack) == "dra-driver" else advertised_resources(spec)


def aks_mig_profiles(gpu: GpuModel) -> dict[str, MigProfile]:
    """The MIG profiles AKS can make on ``gpu``, by ``gpuInstanceProfile``.

    ``MIG<n>g`` fills each GPU with the profile of ``n`` compute slices and the fewest memory slices, without media
    extensions (AKS's table: ``MIG1g`` -> ``1g.5gb`` x 7 on A100 40GB); other profiles of the same compute size
    (``1g.10gb+me``, ``1g.20gb``) cannot be asked for.
    """
    result: dict[str, MigProfile] = {}
    for slices, name in GPU_INSTANCE_PROFILES.items():
        candidates = [
            profile
            for profile in gpu.mig_profiles.values()
            if profile.compute_slices == slices and not profile.media_extensions
        ]
        if candidates:
            result[name] = min(candidates, key=lambda profile: profile.memory_slices)
    return result


def gpu_instance_profile(spec: GpuNodePoolSpec) -> str | None:
    """The pool's ``gpuInstanceProfile``, or ``None`` without MIG or when AKS cannot make the spec's MIG layout
    (only a uniform one: ``profile``, or a layout of one profile at its most instances per GPU)."""
    if spec.mig is None or spec.mig.uniform_profile is None:
        return None
    for name, profile in aks_mig_profiles(spec.gpu).items():
        if profile.name == spec.mig.uniform_profile:
            return name
    return None


def aks_problems(
    spec: GpuNodePoolSpec,
    gpu_driver: str | None,
    path: str = "",
    driver_path: str = "gpu_driver",
    gpu_stack: GpuStack = "auto",
) -> list[Problem]:
    """AKS rules for a validated pool: MIG only on the GPUs AKS partitions (:data:`AKS_MIG_GPUS`), a MIG layout AKS
    can make, ``disk_size_gb`` at least AKS's smallest OS disk
    (:data:`~gpu_components.azure.facts.MIN_OS_DISK_GB`, 30), and a driver for the device plugin.

    Args:
        spec: the validated pool.
        gpu_driver: the pool's ``gpu_driver`` option (``None``: the default, ``aks``).
        path: where the pool sits in the input (``pools[0]``); MIG problems are reported under ``<path>.mig``.
        driver_path: where ``gpu_driver`` sits in the input.
        gpu_stack: the cluster's GPU stack. Under ``gpu-operator`` ``gpu_driver none`` is not rejected here: the
            one driver-ownership rule (:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`) decides.
    """
    problems: list[Problem] = []
    mig = spec.mig
    where = f"{path}.mig" if path else "mig"
    if mig is not None and spec.gpu.name not in AKS_MIG_GPUS:
        problems.append(
            Problem(
                where,
                mig.as_given,
                f"AKS makes MIG partitions (gpuInstanceProfile) only on A100, H100 and H200 VM sizes; "
                f"{spec.instance_type} carries {spec.gpu.name}",
                f"a VM size with one of {', '.join(AKS_MIG_GPUS)}, or no mig",
                SOURCE_MIG_ON_AKS,
            )
        )
    elif mig is not None and mig.uniform_profile is None:
        problems.append(
            Problem(
                f"{where}.{mig.given_field}",
                mig.given,
                "AKS partitions every GPU of a pool with one gpuInstanceProfile (MIG1g..MIG7g), each GPU filled "
                f"with the most instances of one profile; {not_uniform(mig, spec.gpu)}",
                "a uniform mig.profile, or a layout of one profile at its most instances per GPU",
                SOURCE_MIG_ON_AKS,
            )
        )
    elif mig is not None and gpu_instance_profile(spec) is None:
        possible = aks_mig_profiles(spec.gpu)
        problems.append(
            Problem(
                f"{where}.{mig.given_field}",
                mig.given,
                f"AKS's gpuInstanceProfile makes only one profile per compute size on {spec.gpu.name}",
                ", ".join(f"{profile.name} ({name})" for name, profile in possible.items()),
                SOURCE_MIG_ON_AKS,
            )
        )
    if spec.disk_size_gb < MIN_OS_DISK_GB:
        problems.append(
            Problem(
                f"{path}.disk_size_gb" if path else "disk_size_gb",
                spec.disk_size_gb,
                f"an AKS agent pool's osDiskSizeGB is at least {MIN_OS_DISK_GB} GB",
                f"{MIN_OS_DISK_GB}..{MAX_OS_DISK_GB}",
                SOURCE_AGENT_POOL_OS_DISK,
            )
        )
    return problems + driver_problems(spec, gpu_driver, driver_path, gpu_stack)


def driver_problems(
    spec: GpuNodePoolSpec, gpu_driver: str | None, driver_path: str = "gpu_driver", gpu_stack: GpuStack = "auto"
) -> list[Problem]:
    """``gpu_driver none`` on a pool the NVIDIA device plugin serves, which installs no driver either (agent pools
    and Node Auto Provisioning pools alike; ``None``: the default, ``aks``)."""
    driver = gpu_driver if gpu_driver is not None else DEFAULT_GPU_DRIVER
    if driver != NO_GPU_DRIVER or device_plugin_host(spec, gpu_stack) != "daemonset":
        return []
    return [
        Problem(
            driver_path,
            driver,
            "gpu_driver none stops AKS installing the NVIDIA driver, and the pool's GPU stack (the NVIDIA "
            "device plugin, gpu_stack auto or device-plugin) installs none either: the GPUs would be unusable",
            "gpu_driver aks with the device plugin, or gpu_stack gpu-operator with operator_driver true",
            SOURCE_GPU_DRIVER,
        )
    ]


def os_family_problems(
    spec: GpuNodePoolSpec,
    value: object,
    families: Mapping[str, str],
    path: str,
    what: str = "an agent pool osSku",
    source: str = SOURCE_OS_SKUS,
) -> list[Problem]:
    """Problems of a pool's node OS (an agent pool's ``osSku``, an AKSNodeClass's ``imageFamily``): a value AKS runs no
    NVIDIA GPU on, or no longer runs at all (:data:`~gpu_components.azure.facts.REFUSED_OS_SKUS`: why and source), a
    value not among ``families`` (``what``, documented at ``source``; with the closest one), and an Azure Linux value
    where one of the pool's VM sizes carries a GPU whose AKS node image is Ubuntu only
    (:data:`~gpu_components.azure.facts.UBUNTU_ONLY_GPUS`). ``None``: AKS's default (Ubuntu)."""
    refused = REFUSED_OS_SKUS
    if value is None:
        return []
    given = value_of(value) if isinstance(value, Enum) else value
    valid = ", ".join(families)
    if isinstance(given, str) and given in refused:
        why, source = refused[given]
        return [Problem(path, given, f"{why}, so a GPU pool cannot use it", valid, source)]
    if not isinstance(given, str) or given not in families:
        close = did_you_mean(given, families) if isinstance(given, str) else None
        hint = f"; did you mean {close!r}?" if close else ""
        return [Problem(path, given, f"not {what} AKS runs NVIDIA GPU nodes with{hint}", valid, source)]
    if families[given] != AZURE_LINUX:
        return []
    sizes = spec.provisioning.allowed_types if spec.provisioning is not None else (spec.instance_type,)
    problems: list[Problem] = []
    for size in sizes:
        gpu = instance_type("azure", size).gpu_model
        if gpu is not None and gpu in UBUNTU_ONLY_GPUS:
            ubuntu = ", ".join(name for name, family in families.items() if family != AZURE_LINUX)
            problems.append(
                Problem(
                    path,
                    given,
                    f"AKS runs {size} ({gpu}) on Ubuntu only: no Azure Linux node image or GPU driver install for it",
                    f"{ubuntu} (or leave it unset: {DEFAULT_OS_SKU})",
                    UBUNTU_ONLY_GPUS[gpu],
                )
            )
    return problems


def os_sku_problems(spec: GpuNodePoolSpec, agent_pool_args: object, path: str = "agent_pool_args") -> list[Problem]:
    """Problems of a fixed pool's ``agent_pool_args.os_sku`` (:func:`os_family_problems` over
    :data:`~gpu_components.azure.facts.GPU_OS_SKUS`): OS Guard and Flatcar (no NVIDIA GPU support), Azure Linux 2.0
    (``CBLMariner``, ``Mariner``: retired), Windows SKUs (the library's pools are Linux), unknown values, and Azure
    Linux on an Ubuntu-only GPU size."""
    if not isinstance(agent_pool_args, Mapping):
        return []
    return os_family_problems(spec, agent_pool_args.get("os_sku"), GPU_OS_SKUS, f"{path}.os_sku")


def pool_taints(spec: GpuNodePoolSpec) -> tuple[Taint, ...]:
    """Every taint the pool's nodes carry: the spec's, then the one AKS adds to spot pools (once)."""
    if spec.spot and SPOT_TAINT not in spec.taints:
        return (*spec.taints, SPOT_TAINT)
    return spec.taints


def aks_taints(taints: Sequence[Taint]) -> list[str]:
    """Taints in AKS's string form: ``key=value:Effect``, or ``key:Effect`` for a taint without value (Kubernetes'
    own text form, :attr:`~gpu_components.spec.Taint.text`)."""
    return [taint.text for taint in taints]


def node_labels(
    spec: GpuNodePoolSpec,
    gpu_stack: GpuStack = "auto",
    agent_pool: bool = True,
    gpu_driver: GpuDriver | None = None,
    host: DevicePluginHost | None = None,
) -> dict[str, str]:
    """Node labels of the pool: the user's, the pool label, the selection labels of what serves the pool (the
    device plugin DaemonSet's, or the GPU Operator's with the MIG manager off MIG pools, whose partitions AKS makes
    from ``gpuInstanceProfile``), on spot pools the spot label AKS keeps among the pool's labels, and on pools whose
    sharing is declared trusted ``gpu-components/sharing: trusted``
    (:func:`~gpu_components.spec.sharing_trust_labels`).

    ``agent_pool`` false (a Node Auto Provisioning pool): no spot label (NAP writes
    ``kubernetes.azure.com/scalesetpriority`` on each node itself, ``spot`` or ``regular``) and, under the GPU
    Operator, its MIG manager partitions MIG pools (there is no ``gpuInstanceProfile``).

    A DRA pool (resolved ``gpu_access: dra``) gets ``gpu-components/gpu-access: dra`` instead of the device plugin's
    labels; a DRA Node Auto Provisioning pool with MIG also gets the MIG manager's ``nvidia.com/mig.config``
    (:func:`~gpu_components.nvidia.mig.mig_node_labels`): NAP makes no partitions (its AKSNodeClass has no
    ``gpuInstanceProfile``), so the GPU Operator's MIG manager, its device plugin off, makes them before the DRA
    driver publishes them, and that label is what makes the cluster deploy it
    (:func:`~gpu_components.cluster.needs_gpu_operator`). An agent pool's partitions are AKS's
    (``gpuInstanceProfile``, :data:`SOURCE_MIG_ON_AKS`): no such label, and where that operator serves the pool for
    its driver (``gpu_driver`` ``none``) ``nvidia.com/gpu.deploy.mig-manager=false``, so its MIG manager never
    re-partitions AKS's GPUs. A DRA pool the operator does not serve (``gpu_driver`` ``aks``, the default, and no
    MIG manager needed) gets ``nvidia.com/gpu.deploy.operands=false``: beside the DRA driver chart (installer
    ``chart``) that operator may install the driver for other pools, never here (a GPUCluster, installer
    ``gpu-operator``, ignores that label and runs its DRA driver there). Under ``gpu_stack: dra`` a pool left to the
    device plugin gets ``nvidia.com/gpu.deploy.operands=false`` too (installer ``gpu-operator`` refuses such pools).

    ``gpu_driver``: the pool's ``gpu_driver`` (``None``: the default, ``aks``); it decides only a DRA pool's labels.
    ``host``: who advertises the pool's GPUs (``None``: :func:`device_plugin_host`); ``cloud`` (AKS's managed GPU
    experience on a Node Auto Provisioning pool) adds no device plugin labels, and under ``gpu_stack: dra``
    ``nvidia.com/gpu.deploy.operands=false`` as on a device plugin pool.
    """
    labels = dict(spec.labels)
    labels[POOL_LABEL] = spec.name
    host = device_plugin_host(spec, gpu_stack) if host is None else host
    if host == "gpu-operator":
        labels.update(operator_node_labels(spec, "azure", host_mig=agent_pool and spec.mig is not None))
    elif host == "dra-driver":
        labels[GPU_ACCESS_LABEL] = "dra"
        operator_driver = gpu_driver == NO_GPU_DRIVER
        operator_mig = spec.mig is not None and not agent_pool
        if operator_mig:
            labels.update(mig_node_labels(spec))
        elif operator_driver and spec.mig is not None:
            labels.update(operand_off_label("mig-manager"))
        if not operator_mig and not operator_driver:
            labels.update(operand_off_label("operands"))
    else:
        if host != "cloud":
            labels.update(device_plugin_node_labels(spec))
        if gpu_stack == "dra":
            labels.update(operand_off_label("operands"))
    if spec.spot and agent_pool:
        labels.update(SPOT_LABELS)
    labels.update(sharing_trust_labels(spec))
    return dict(sorted(labels.items()))


def agent_pool_inputs(
    spec: GpuNodePoolSpec, gpu_driver: GpuDriver = DEFAULT_GPU_DRIVER, gpu_stack: GpuStack = "auto"
) -> dict[str, Any]:
    """The plain ``azure_native.containerservice.AgentPool`` inputs derived from the spec (cluster wiring excluded).

    A ``User`` pool of Linux VM scale set nodes with the cluster autoscaler on between ``min_size`` and
    ``max_size`` (``count`` is the size at creation) and an OS disk of ``disk_size_gb``; spot pools get priority
    ``Spot``, eviction policy ``Delete`` and max price ``-1``; MIG pools get their ``gpuInstanceProfile``.
    """
    inputs: dict[str, Any] = {
        "agent_pool_name": spec.name,
        "mode": "User",
        "os_type": "Linux",
        "type": "VirtualMachineScaleSets",
        "vm_size": spec.instance_type,
        "enable_auto_scaling": True,
        "min_count": spec.min_size,
        "max_count": spec.max_size,
        "count": spec.desired_size,
        "os_disk_size_gb": spec.disk_size_gb,
        "node_labels": node_labels(spec, gpu_stack, gpu_driver=gpu_driver),
        "node_taints": aks_taints(pool_taints(spec)),
        "gpu_profile": {"driver": GPU_DRIVER_SETTINGS[gpu_driver]},
    }
    if spec.spot:
        inputs["scale_set_priority"] = "Spot"
        inputs["scale_set_eviction_policy"] = SPOT_EVICTION_POLICY
        inputs["spot_max_price"] = SPOT_MAX_PRICE
    profile = gpu_instance_profile(spec)
    if profile is not None:
        inputs["gpu_instance_profile"] = profile
    return inputs


def autoscaler_tags(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """The Cluster Autoscaler's resource tags for the pool's scale set (tag name -> amount, sorted): what one node
    advertises under the GPU stack (:func:`pool_advertised_resources`: nothing on a DRA pool), and ``nvidia.com/gpu``
    = ``0`` when that is not among it (the VM size alone would promise whole GPUs).
    Source: :data:`SOURCE_AUTOSCALER`."""
    resources = {GPU_RESOURCE: 0, **pool_advertised_resources(spec, gpu_stack)}
    tags = {f"{AUTOSCALER_RESOURCE_TAG}{name.replace('/', '_')}": str(count) for name, count in resources.items()}
    return dict(sorted(tags.items()))


def managed_gpu_tag(tags: object) -> str | None:
    """The name under which Azure ``tags`` turn on AKS's managed GPU experience, as written, or ``None``:
    :data:`~gpu_components.azure.facts.MANAGED_GPU_TAG` in any case (Azure tag names are case-insensitive,
    :data:`~gpu_components.azure.facts.SOURCE_TAG_NAMES`) with the value ``true`` in any case, as AKS's node
    bootstrap reads it (:data:`~gpu_components.azure.facts.SOURCE_MANAGED_GPU`)."""
    if not isinstance(tags, Mapping):
        return None
    for name, value in tags.items():
        if (
            isinstance(name, str)
            and name.lower() == MANAGED_GPU_TAG.lower()
            and isinstance(value, str)
            and value.lower() == "true"
        ):
            return name
    return None


def managed_gpu_tagged(tags: object) -> bool:
    """Whether Azure ``tags`` turn on AKS's managed GPU experience (:func:`managed_gpu_tag`)."""
    return managed_gpu_tag(tags) is not None


def tag_problems(tags: object, path: str = "tags") -> list[Problem]:
    """Problems with the agent pool's ``tags``: names under :data:`AUTOSCALER_TEMPLATE_TAG`, which the library sets
    (Azure tag names are case-insensitive, so the prefix is matched in any case), and AKS's managed GPU tag
    (:func:`managed_gpu_tagged`), which would make AKS run NVIDIA's device plugin beside the library's GPU stack."""
    problems = owned_tag_problems(
        tags,
        AUTOSCALER_TEMPLATE_TAG,
        "set by gpu_components: the Cluster Autoscaler's node-template tags describe what the pool's nodes offer",
        f"a name not under {AUTOSCALER_TEMPLATE_TAG}",
        SOURCE_AUTOSCALER,
        ignore_case=True,
        path=path,
    )
    if (name := managed_gpu_tag(tags)) is not None and isinstance(tags, Mapping):
        problems.append(
            Problem(
                f"{path}[{name!r}]",
                tags[name],
                "AKS would run NVIDIA's device plugin on the agent pool's nodes beside the library's GPU stack (two "
                "advertisers); the library leaves GPUs to AKS on Node Auto Provisioning pools only "
                "(node_class_spec.tags)",
                "no such tag",
                SOURCE_MANAGED_GPU,
            )
        )
    return problems


def aks_autoscaler_note(spec: GpuNodePoolSpec) -> str | None:
    """What the Cluster Autoscaler cannot model about the pool's nodes despite the tags, or ``None``: nodes that
    advertise no ``nvidia.com/gpu`` (:func:`~gpu_components.autoscaler.gpu_resource_note`). AKS makes MIG partitions
    from ``gpuInstanceProfile`` when a node is created, under the GPU Operator too, so they are there when its device
    plugin starts."""
    return gpu_resource_note(advertised_resources(spec))


def node_os_family(value: object, families: Mapping[str, str]) -> str:
    """The OS family (``Ubuntu``, ``Azure Linux``) of an ``osSku`` or ``imageFamily`` among ``families``, followed by
    its version where the value names one (``Ubuntu 22.04``, ``Azure Linux 3``: :data:`~gpu_components.azure.facts.
    OS_VERSIONS`); AKS's default, Ubuntu, when unset (values outside ``families`` are refused before,
    :func:`os_family_problems`)."""
    given = value_of(value) if isinstance(value, Enum) else value
    if not isinstance(given, str):
        return UBUNTU
    family = families.get(given, UBUNTU)
    return f"{family} {OS_VERSIONS[given]}" if given in families and given in OS_VERSIONS else family


def aks_pool_view(
    spec: GpuNodePoolSpec, gpu_driver: GpuDriver | None = None, gpu_stack: GpuStack = "auto", os_sku: object = None
) -> PoolView:
    """What an :class:`AksGpuNodePool` of the pool exposes, without creating it: who advertises its GPUs under the
    GPU stack (:func:`device_plugin_host`), its labels (:func:`node_labels`), its taints with the one AKS adds to
    spot pools (:func:`pool_taints`), the node selector (the pool label and :data:`AKS_GPU_NODE_LABEL`),
    ``driver_setting``: ``gpu_driver`` (``None``: the default, ``aks``), and ``node_os``: the OS family of
    ``os_sku`` (``agent_pool_args.os_sku``; ``None``: AKS's default, Ubuntu)."""
    taints = pool_taints(spec)
    return PoolView(
        spec=spec,
        device_plugin_host=device_plugin_host(spec, gpu_stack),
        labels=node_labels(spec, gpu_stack, gpu_driver=gpu_driver),
        taints=taints,
        advertised_resources=pool_advertised_resources(spec, gpu_stack),
        node_selector={POOL_LABEL: spec.name, AKS_GPU_NODE_LABEL: AKS_GPU_NODE_LABEL_VALUE},
        autoscaler_note=aks_autoscaler_note(spec),
        tolerations=tolerations(taints),
        driver_setting=gpu_driver if gpu_driver is not None else DEFAULT_GPU_DRIVER,
        driver_setting_set=gpu_driver is not None,
        node_os=node_os_family(os_sku, GPU_OS_SKUS),
    )


class AksGpuNodePool(pulumi.ComponentResource):
    """An AKS user agent pool of NVIDIA GPU nodes for one validated pool.

    Children: ``<name>-agent-pool`` (the agent pool is named after the pool in AKS). The agent pool ignores
    changes to ``count`` so the cluster autoscaler owns it, replaces itself when a property fixed at creation
    changes (:data:`REPLACE_ON_CHANGES`), and is deleted before its replacement is created, since the
    replacement has the same AKS name. Providers: ``azure-native``.

    Outputs: ``agent_pool_id``, ``agent_pool_name`` (known after deployment), ``pool_name``, ``labels``, ``taints``,
    ``tolerations``, ``node_selector``, ``advertised_resources``, ``dra_devices``, ``device_plugin_host``,
    ``autoscaler_note`` (plain values, known at preview). Other attributes: ``spec``, ``gpu_driver``, ``gpu_stack``,
    ``gpu_instance_profile`` (``None`` without MIG), ``agent_pool`` (the ``AgentPool``), ``served_by``.

    Raises:
        GpuSpecError: invalid pool, a MIG layout AKS cannot make, no driver for the device plugin, autoscaler tags
            in ``tags``, ``agent_pool_args`` keys that ``AgentPool`` does not take or the library owns, an
            ``agent_pool_args.os_sku`` without NVIDIA GPU support on the pool's VM size (:func:`os_sku_problems`).
    """

    agent_pool_id: pulumi.Output[str]
    """ARM resource id of the agent pool."""
    agent_pool_name: pulumi.Output[str]
    """Name of the agent pool in AKS: the pool's name."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the pool's nodes get from the agent pool (``nodeLabels``): the user's, ``gpu-components/pool``,
    the labels that select the device plugin's or GPU Operator's config, AKS's spot label on spot pools, and
    ``gpu-components/sharing`` for trusted sharing."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling; ``value`` ``""`` when a taint has none): the default GPU
    taint first when on, and AKS's spot taint ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` on spot
    pools."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes: ``key``, ``operator`` (``Equal`` with a
    ``value``, ``Exists`` without one) and ``effect``, as a pod spec's ``tolerations`` takes them."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>`` and AKS's
    ``kubernetes.azure.com/accelerator: nvidia``."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node advertises (e.g. ``nvidia.com/gpu: 7`` for an A100 in
    ``MIG1g`` under the single strategy)."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``daemonset`` (the NVIDIA device plugin DaemonSet, ``NvidiaDevicePlugin``),
    ``gpu-operator`` (the GPU Operator's device plugin, ``NvidiaGpuOperator``) or ``dra-driver`` (NVIDIA's DRA driver:
    a pool with ``gpu_access`` ``dra``); AKS runs none itself."""
    autoscaler_note: str | None
    """What the Cluster Autoscaler cannot model about the pool's nodes when it scales the pool from zero (nodes that
    advertise no ``nvidia.com/gpu``), or null."""

    def __init__(self, name: str, args: AksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        spec = collected(
            lambda: validated_pool(
                AksGpuNodePoolArgs,
                args,
                "azure",
                lambda spec: aks_problems(
                    spec, args.get("gpu_driver"), "pool", "gpu_driver", value_of(args.get("gpu_stack", "auto"))
                )
                + os_sku_problems(spec, args.get("agent_pool_args")),
                spellings={"gpu_driver": {cloud: ours for ours, cloud in GPU_DRIVER_SETTINGS.items()}},
                fixed=_provisioned_problems,
            ),
            _own_args_problems(args),
        )
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
        super().__init__("gpu-components:index:AksGpuNodePool", name, None, opts)
        self.gpu_driver: GpuDriver = value_of(args.get("gpu_driver", DEFAULT_GPU_DRIVER))
        view = aks_pool_view(
            spec, self.gpu_driver if "gpu_driver" in args else None, gpu_stack, _os_sku(args.get("agent_pool_args"))
        )
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        adopt_view(self, view)
        self.gpu_stack: GpuStack = gpu_stack
        self.gpu_instance_profile: str | None = gpu_instance_profile(spec)
        inputs = agent_pool_inputs(spec, self.gpu_driver, gpu_stack)
        ours = {
            "resource_group_name": args["resource_group_name"],
            "resource_name_": args["cluster_name"],
            "tags": {**args.get("tags", {}), **autoscaler_tags(spec, gpu_stack)},
            **inputs,
        }
        self.agent_pool: azure_native.containerservice.AgentPool = azure_native.containerservice.AgentPool(
            f"{name}-agent-pool",
            **AGENT_POOL_ARGS.merged(ours, args.get("agent_pool_args")),
            opts=pulumi.ResourceOptions(parent=self, **AGENT_POOL_OPTIONS.resource_options()),
        )
        self.agent_pool_id = self.agent_pool.id
        self.agent_pool_name = self.agent_pool.name
        self.register_outputs(
            {"agentPoolId": self.agent_pool_id, "agentPoolName": self.agent_pool_name, **pool_outputs(self)}
        )


def _os_sku(agent_pool_args: object) -> object:
    """``agent_pool_args.os_sku``, or ``None``."""
    return agent_pool_args.get("os_sku") if isinstance(agent_pool_args, Mapping) else None


def _own_args_problems(args: object) -> list[Problem]:
    """The problems of the component's own args that need no pool: ``cluster_name`` and ``resource_group_name``
    (:func:`names_problems`), ``tags`` and ``agent_pool_args``."""
    if not isinstance(args, Mapping):
        return []
    return (
        names_problems(args, "")
        + tag_problems(args.get("tags"))
        + AGENT_POOL_ARGS.problems(args.get("agent_pool_args"), "agent_pool_args")
    )


def names_problems(given: Mapping[str, Any], prefix: str, name_key: str = "cluster_name") -> list[Problem]:
    """The cluster's name (``given[name_key]``) as Azure names a managed cluster and its ``resource_group_name`` as
    it names a resource group (:data:`~gpu_components.azure.facts.CLUSTER_NAME_FORM`,
    :data:`~gpu_components.azure.facts.RESOURCE_GROUP_FORM`), at ``<prefix><key>``: the example cluster config
    (``cluster.``, ``name``), ``GpuCluster``'s ``azure`` wiring (``azure.``) and the node-pool components (no
    prefix). Values that are not plain strings (outputs) are not judged."""
    return CLUSTER_NAME_FORM.problems(given.get(name_key), f"{prefix}{name_key}") + RESOURCE_GROUP_FORM.problems(
        given.get("resource_group_name"), f"{prefix}resource_group_name"
    )


def _provisioned_problems(pool: object) -> list[Problem]:
    """A provisioned pool given to :class:`AksGpuNodePool`, which makes fixed agent pools only."""
    return fixed_pool_problems(
        pool,
        "AksGpuNodePool",
        "a fixed AKS agent pool",
        {"node-auto-provisioning": ("Node Auto Provisioning", "AksNapGpuNodePool")},
    )
