"""``GkeGpuNodePool``: a GKE Standard node pool for a validated GPU pool, with GKE-native sharing and drivers.

GKE spellings (``NO_SCHEDULE``, ``TIME_SHARING``, ``gpu_partition_size``, accelerator types) live here and
nowhere else. GKE differs from EKS and AKS in three ways the library has to know:

- **GKE runs the device plugin and installs the driver.** The pool's ``guest_accelerators`` entry carries the
  driver installation mode and the sharing settings; GKE's own device plugin advertises ``nvidia.com/gpu`` for
  whole GPUs, time-shared or MPS clients and MIG partitions alike. So the pool's ``device_plugin_host`` is
  ``"cloud"`` and the cross-cloud composition deploys no NVIDIA device plugin (nor its ConfigMap) for it.
- **GKE taints GPU nodes itself** with ``nvidia.com/gpu=present:NoSchedule``, the library's default taint, so the
  two always agree. GKE adds it only when the cluster already has a non-GPU node pool, so the library sends it
  explicitly (``gpu_taint``, default on). With ``gpu_taint: false`` the library does not send it, but still
  reports it in the component's ``taints`` (and :func:`gke_effective_taints`): GKE puts it on the nodes of any
  cluster with a system pool, and a toleration of a taint that is absent costs nothing, while a missing one
  leaves pods pending. Any other taint with the key ``nvidia.com/gpu`` is rejected: it would conflict with GKE's.
  The provider keeps in state only the taint keys it was given (``flattenTaints``), so GKE's own taint never
  shows up as a diff.
- **Sharing is a node-pool setting that forces replacement** (the GKE table of
  :data:`gpu_components.plan.replacements.FORCE_NEW`). GKE's plugin refuses
  a container that asks for more than one shared GPU whatever ``time_slicing.fail_requests_greater_than_one``
  says ("at most 1 nvidia.com/gpu can be requested on GPU nodes", GKE's time-sharing page), and it has no
  ``.shared`` resource names, so ``rename_by_default`` is refused.

**Under the GPU Operator** (``gpu_stack: gpu-operator``) the NVIDIA stack replaces GKE's: GKE's driver installation
is off (``driver_version: INSTALLATION_DISABLED``, the operator installs the driver on an Ubuntu node image), GKE's
device plugin is kept off the nodes by the node label ``gke-no-default-nvidia-gpu-device-plugin=true``, and no
``gpu_sharing_config`` or ``gpu_partition_size`` is sent: the operator's device plugin shares GPUs and its MIG
manager partitions them, so resources follow the NVIDIA device plugin's naming and GKE's sharing limits do not
apply (NVIDIA's GKE guide:
https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/google-gke.html). GKE still taints the nodes.

**Under DRA** (a fixed pool whose resolved ``gpu_access`` is ``dra``, :func:`dra_pool`) NVIDIA's DRA driver
publishes the GPUs: GKE's driver installation is off (``driver_version: INSTALLATION_DISABLED``, its default there;
another mode is refused), GKE's device plugin is kept off by the node label
``gke-no-default-nvidia-gpu-device-plugin=true``, the nodes carry ``gpu-components/gpu-access: dra``, no sharing or
partition settings are sent and MIG is refused (GKE lists time-sharing, multi-instance GPUs and MPS among what DRA
cannot use), and the driver comes from GKE's COS driver installer DaemonSet, which installs it under
``/home/kubernetes/bin/nvidia``, the DRA driver's ``nvidiaDriverRoot`` on GKE
(:attr:`~gpu_components.cloud_facts.DraFacts.driver_installer` of :data:`gpu_components.gcp.facts.FACTS`). GKE's
DRA setup: https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra (GKE 1.34 or later; no DRA with node
auto-provisioning or on Autopilot, so ComputeClass pools are refused under DRA).

Facts and their sources:

- GPU node pools, driver installation, the automatic taint:
  https://cloud.google.com/kubernetes-engine/docs/how-to/gpus
- Driver installation modes ``INSTALLATION_DISABLED|DEFAULT|LATEST`` (``GPUDriverInstallationConfig``):
  https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#gpudriverinstallationconfig
- Time-sharing (all NVIDIA GPUs; at most 48 clients per GPU; combinable with MIG; node labels
  ``cloud.google.com/gke-gpu-sharing-strategy`` / ``cloud.google.com/gke-max-shared-clients-per-gpu``):
  https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus and
  https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus
- MPS (all NVIDIA GPUs; at most 48 clients per GPU; not with MIG):
  https://cloud.google.com/kubernetes-engine/docs/how-to/nvidia-mps-gpus
- MIG: one partition size per node pool (``gpu_partition_size``), A100 40GB/80GB, H100 80GB, H200, B200 only
  (:data:`GKE_MIG_GPUS`; not the GB200 of A4X, the GB300 of A4X Max nor the RTX PRO 6000 of G4); label
  ``cloud.google.com/gke-gpu-partition-size``: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi
- Arm nodes (A4X, A4X Max) carry GKE's ``kubernetes.io/arch=arm64:NoSchedule`` taint (:data:`ARM_TAINT`):
  https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment
- The GKE node label names are also the Cluster Autoscaler's GKE constants
  (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/gce``: ``GPUPartitionSizeLabel``,
  ``GPUMaxSharedClientsLabel``, ``GPUSharingStrategyLabel``).
- Node service account: the minimum role is ``roles/container.defaultNodeServiceAccount``; image pulls from
  Artifact Registry need ``roles/artifactregistry.reader``:
  https://cloud.google.com/kubernetes-engine/docs/how-to/service-accounts and
  https://cloud.google.com/kubernetes-engine/security/configure-node-service-accounts
- N1 machine types with attached GPUs (T4: 1, 2 or 4; V100: 1, 2, 4 or 8):
  https://cloud.google.com/compute/docs/gpus
- Which ``google_container_node_pool`` fields force replacement: the provider's schema
  (hashicorp/terraform-provider-google ``google/services/container/node_config.go`` and
  ``resource_container_node_pool.go``), which pulumi-gcp bridges.
- Scale from zero: GKE's managed Cluster Autoscaler builds a template node for an empty pool from the node pool
  itself: machine type, accelerator type and count with its partition size and sharing settings (turned into
  ``nvidia.com/gpu`` = GPUs x partitions x clients, and the GKE GPU labels above), ``node_config.labels`` and
  ``node_config.taints`` (https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler, and the GCE
  provider's ``GPUPartitionSizeLabel``/``GPUMaxSharedClientsLabel`` handling). With GKE's device plugin nothing is
  missing and GKE has no tags to add. Under the GPU Operator the node pool knows only whole GPUs, so a time-sliced,
  MPS or MIG pool's template is wrong: the component's ``autoscaler_note`` says so (:func:`gke_autoscaler_note`).
- Node disk (``pool.disk_size_gb``): ``node_config.disk_size_gb``.
"""

import hashlib
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
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
from gpu_components.autoscaler import LATE_MIG_NOTE, gpu_resource_note, joined
from gpu_components.enums import GpuStackArg, value_of
from gpu_components.errors import Problem
from gpu_components.gcp._sdk import gcp
from gpu_components.gcp.facts import (
    CLUSTER_NAME_FORM,
    COMPUTE_CLASS_LABEL,
    COS_NODE_OS,
    GKE_DRA_NODE_LABELS,
    GKE_DRIVER_INSTALLATION_DISABLED,
    LOCATION_FORM,
    MAX_NODES_PER_ZONE,
    NODE_POOL_OPTIONS,
    SHARING_STRATEGY_LABEL,
    SOURCE_CUSTOM_CLASSES,
    SOURCE_GKE_DRA,
    SOURCE_GKE_GPUS,
    SOURCE_GKE_QUOTAS,
    TAINT_EFFECTS,
    UBUNTU_NODE_OS,
    is_zone,
)
from gpu_components.gpu_requests import tolerations
from gpu_components.labels import GPU_ACCESS_LABEL, GPU_TAINT_KEY, POOL_LABEL
from gpu_components.mig import parse_mig_profile_name
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, advertised_resources
from gpu_components.nvidia.gpu_operator import driver_owner_problems, operator_node_labels
from gpu_components.provider_args import ProviderArgs, collected
from gpu_components.shape import plain
from gpu_components.spec import (
    DEFAULT_GPU_TAINT,
    DNS_LABEL,
    SOURCE_NAMES,
    GpuNodePoolArgs,
    GpuNodePoolSpec,
    Mps,
    Taint,
    TimeSlicing,
    not_uniform,
    sharing_trust_labels,
)

SOURCE_DRIVER = (
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#gpudriverinstallationconfig"
)
SOURCE_TIME_SHARING = "https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus"
SOURCE_MPS = "https://cloud.google.com/kubernetes-engine/docs/how-to/nvidia-mps-gpus"
SOURCE_MIG = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi"
SOURCE_NODE_SERVICE_ACCOUNT = "https://cloud.google.com/kubernetes-engine/security/configure-node-service-accounts"
SOURCE_N1_GPUS = "https://cloud.google.com/compute/docs/gpus"

TOKEN = "gpu-components:index:GkeGpuNodePool"
"""Pulumi type token of :class:`GkeGpuNodePool`."""
DEVICE_PLUGIN_HOST: DevicePluginHost = "cloud"
"""GKE runs its own device plugin on GPU nodes; the NVIDIA device plugin DaemonSet must stay off them."""


def device_plugin_host(gpu_stack: GpuStack = "auto", spec: GpuNodePoolSpec | None = None) -> DevicePluginHost:
    """Who advertises GPUs on a GKE pool: GKE's own plugin (:data:`DEVICE_PLUGIN_HOST`), the GPU Operator's under
    ``gpu-operator``, or NVIDIA's DRA driver (``dra-driver``) on a pool ``spec`` whose resolved ``gpu_access`` is
    ``dra`` (GKE's plugin and driver installation are then off, :func:`dra_problems`)."""
    if spec is not None and dra_pool(spec, gpu_stack):
        return "dra-driver"
    return "gpu-operator" if gpu_stack == "gpu-operator" else DEVICE_PLUGIN_HOST


def dra_pool(spec: GpuNodePoolSpec, gpu_stack: GpuStack) -> bool:
    """Whether NVIDIA's DRA driver serves the pool: a fixed node pool whose resolved ``gpu_access`` is ``dra``
    (:meth:`~gpu_components.spec.GpuNodePoolSpec.uses_dra`). A ComputeClass pool never is: GKE has no DRA with node
    auto-provisioning (:func:`~gpu_components.gcp.compute_class.compute_class_dra_problems` refuses it)."""
    return spec.provisioning is None and spec.uses_dra(gpu_stack)


ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
"""Node label GKE sets to the accelerator type, e.g. ``nvidia-l4``."""
MAX_SHARED_CLIENTS_LABEL = "cloud.google.com/gke-max-shared-clients-per-gpu"
"""Node label GKE sets on shared-GPU nodes: the clients per GPU, as a string."""
PARTITION_SIZE_LABEL = "cloud.google.com/gke-gpu-partition-size"
"""Node label GKE sets on MIG nodes: the partition size, e.g. ``1g.5gb``."""
SOURCE_ARM_TAINT = "https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment"
ARM_TAINT = Taint("kubernetes.io/arch", "arm64", "NoSchedule")
"""The taint GKE Standard puts on every Arm node by default (:data:`SOURCE_ARM_TAINT`: "placing a taint
(kubernetes.io/arch=arm64:NoSchedule) on all Arm nodes"); a pod without a ``kubernetes.io/arch`` node selector or
this toleration stays off them."""
GKE_MIG_GPUS = ("A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB", "B200")
"""Catalog GPU models GKE makes MIG partitions on (``gpu_partition_size``): "The following GPU types support
multi-instance GPUs", :data:`SOURCE_MIG` (A100 40GB and 80GB, H100 80GB, H200 141GB, B200). GKE offers the GB200
(A4X), the GB300 (A4X Max) and the RTX PRO 6000 (G4), which are MIG-capable, but does not partition them: their MIG
is the GPU Operator's (``gpu_stack: gpu-operator``)."""
GKE_GPU_LABELS = (ACCELERATOR_LABEL, SHARING_STRATEGY_LABEL, MAX_SHARED_CLIENTS_LABEL, PARTITION_SIZE_LABEL)
"""Node labels GKE derives from the pool's accelerator settings; a user label may not set them."""

SHARING_STRATEGIES: Mapping[type, tuple[str, str]] = MappingProxyType(
    {TimeSlicing: ("TIME_SHARING", "time-sharing"), Mps: ("MPS", "mps")}
)
"""Sharing mode -> (``gpu_sharing_strategy`` API value, value of :data:`SHARING_STRATEGY_LABEL`)."""
MAX_SHARED_CLIENTS_PER_GPU = 48
"""Most clients GKE lets share one GPU, for time-sharing and MPS alike."""

DRIVER_VERSIONS = ("DEFAULT", "LATEST")
"""Driver installation modes the library accepts with GKE's own device plugin. ``INSTALLATION_DISABLED`` (a driver
installed by someone else) is accepted only under the GPU Operator (:data:`OPERATOR_DRIVER_VERSIONS`)."""
OPERATOR_DRIVER_VERSIONS = (*DRIVER_VERSIONS, GKE_DRIVER_INSTALLATION_DISABLED)
"""Driver installation modes known under the GPU Operator; which one is right is the driver-ownership rule's
(:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`: ``INSTALLATION_DISABLED``)."""


def default_driver_version(gpu_stack: GpuStack, spec: GpuNodePoolSpec | None = None) -> str:
    """The driver mode used when a pool gives none: :data:`DEFAULT_DRIVER_VERSION`, or ``INSTALLATION_DISABLED``
    under the GPU Operator, whose driver NVIDIA's GKE guide requires instead of GKE's, and on a DRA pool ``spec``
    (GKE's DRA setup: "Automatic GPU driver installation isn't supported with DRA", :data:`SOURCE_GKE_DRA`)."""
    if gpu_stack == "gpu-operator" or (spec is not None and dra_pool(spec, gpu_stack)):
        return GKE_DRIVER_INSTALLATION_DISABLED
    return DEFAULT_DRIVER_VERSION


OPERATOR_IMAGE_TYPE = "UBUNTU_CONTAINERD"
"""Node image of GKE pools whose driver the GPU Operator installs (``operator_driver`` true): its driver containers
support Ubuntu, not Container-Optimized OS (NVIDIA's GKE guide, "Using NVIDIA Driver Manager")."""
COS_IMAGE_TYPE = "COS_CONTAINERD"
"""Node image of GKE pools served by the GPU Operator on Google's driver (``operator_driver`` false): the one Google's
driver installer DaemonSet the library applies serves (:data:`~gpu_components.gcp.facts.GKE_COS_OPERATOR`)."""
IMAGE_TYPES: Mapping[str, str] = MappingProxyType({UBUNTU_NODE_OS: OPERATOR_IMAGE_TYPE, COS_NODE_OS: COS_IMAGE_TYPE})
"""Node OS -> GKE ``image_type`` of a pool under the GPU Operator."""


def operator_node_os(gpu_stack: GpuStack, operator_driver: bool | None) -> str | None:
    """The OS of a pool's nodes under the GPU Operator: Ubuntu when the operator installs the driver
    (``operator_driver`` true), Container-Optimized OS when Google's driver installer does; ``None`` under any other
    GPU stack (GKE's default image serves) and when ``operator_driver`` is not known (a pool given to the operator as
    plain values follows the operator's own)."""
    if gpu_stack != "gpu-operator" or operator_driver is None:
        return None
    return UBUNTU_NODE_OS if operator_driver else COS_NODE_OS


GKE_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36")
"""Kubernetes minor versions GKE's release channels offer in late 2026, for schema checks of what the library
renders. Source: https://cloud.google.com/kubernetes-engine/docs/release-schedule"""

DEFAULT_DRIVER_VERSION = "DEFAULT"
"""Driver installation mode used when none is given: GKE's default driver for the node's GKE version. It is what
GKE installs when the mode is left out, so stating it changes nothing on the nodes, while leaving it out lets the
provider see a computed value and plan a replacement. ``LATEST`` picks newer drivers at node upgrades."""

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
"""OAuth scope of the nodes: IAM roles of the node service account, not scopes, decide what nodes may do."""
NODE_SERVICE_ACCOUNT_ROLES: Mapping[str, str] = MappingProxyType(
    {
        "node": "roles/container.defaultNodeServiceAccount",
        "registry": "roles/artifactregistry.reader",
    }
)
"""Project roles of a node service account the library creates (suffix -> role). GKE documents
``roles/container.defaultNodeServiceAccount`` as the minimum a node needs (logging, monitoring, metadata and
autoscaling metrics: what ``logging.logWriter``, ``monitoring.metricWriter``, ``monitoring.viewer`` and
``stackdriver.resourceMetadata.writer`` used to be granted for); ``artifactregistry.reader`` lets nodes pull
images from the project's Artifact Registry."""

N1_ATTACHED_GPUS: Mapping[str, tuple[int, ...]] = MappingProxyType({"T4": (1, 2, 4), "V100": (1, 2, 4, 8)})
"""GPU models (of the catalog) that attach to N1 machine types -> the GPU counts an N1 VM may have."""


class GkeGpuNodePoolArgs(TypedDict):
    """Inputs of :class:`GkeGpuNodePool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``gcp``."""
    cluster: pulumi.Input[str]
    """Name of the GKE Standard cluster."""
    location: pulumi.Input[str]
    """The cluster's location (region or zone)."""
    project: NotRequired[pulumi.Input[str]]
    """The cluster's project. Defaults to the provider's project."""
    node_locations: NotRequired[pulumi.Input[Sequence[pulumi.Input[str]]]]
    """Zones for the pool's nodes (zones that offer the GPU). Defaults to the cluster's."""
    service_account: NotRequired[pulumi.Input[str]]
    """Email of the nodes' service account. Defaults to a new one with ``NODE_SERVICE_ACCOUNT_ROLES``
    (``roles/container.defaultNodeServiceAccount``, ``roles/artifactregistry.reader``) on the project."""
    driver_version: NotRequired[str]
    """GKE's driver installation mode, ``DEFAULT`` or ``LATEST``. Defaults to ``DEFAULT`` (``DEFAULT_DRIVER_VERSION``:
    GKE's default driver for the node's GKE version, stated so the provider plans no replacement). Under the GPU
    Operator and on a DRA pool (``gpu_access: dra``) it must be ``INSTALLATION_DISABLED``, its default there."""
    operator_driver: NotRequired[bool]
    """Under gpu_stack ``gpu-operator`` only: who installs the NVIDIA driver, as the ``NvidiaGpuOperator`` serving the
    pool is told (its ``operator_driver``; the two must agree). True: the operator's driver, on Ubuntu nodes
    (``UBUNTU_CONTAINERD``); false: Google's driver installer DaemonSet (which ``NvidiaGpuOperator`` applies), on
    Container-Optimized OS nodes (``COS_CONTAINERD``), NVIDIA's GKE guide's two ways. Defaults to true."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto`` (GKE's driver and device plugin). With ``gpu-operator`` GKE's
    device plugin is kept off the nodes and the operator (``NvidiaGpuOperator``, ``operator_driver`` true) installs the
    driver and advertises the GPUs. With ``dra`` a pool whose ``gpu_access`` is ``dra`` (the default there) gets GKE's
    driver installation off (GKE's driver installer DaemonSet installs it), GKE's device plugin kept off by the label
    ``gke-no-default-nvidia-gpu-device-plugin``, and NVIDIA's DRA driver publishes its GPUs; MIG is refused there."""
    compute_class: NotRequired[str]
    """Name of a ComputeClass whose pods this node pool also serves (GKE's "manually created node pools" of a class):
    the nodes get GKE's label ``cloud.google.com/compute-class=<name>`` and taint
    ``cloud.google.com/compute-class=<name>:NoSchedule``, and the pool's ``taints`` and ``tolerations`` include it. Any
    class in the cluster, one made outside the library included; a DNS-1123 label of at most 63 characters that GKE
    does not keep for its own classes (``gke-``, ``autopilot``). Defaults to none (the pool serves no class)."""
    node_pool_args: NotRequired[dict[str, Any]]
    """Other ``pulumi_gcp.container.NodePool`` arguments, in the SDK's snake_case names (e.g. ``management``,
    ``upgrade_settings``, ``placement_policy``), and ``node_config`` keys (e.g. ``disk_type``,
    ``reservation_affinity``, ``workload_metadata_config``) merged key by key into the library's ``node_config``.
    Defaults to none. A key the library sets (``NODE_POOL_OWNED_ARGS``, ``NODE_CONFIG_OWNED_ARGS``) or that the SDK
    does not take is an error naming the key."""


NODE_POOL_OWNED_ARGS = (
    "autoscaling",
    "cluster",
    "initial_node_count",
    "location",
    "name",
    "name_prefix",
    "node_count",
    "node_locations",
    "project",
)
"""``gcp.container.NodePool`` arguments the library sets (the pool's name and scaling, the wiring), refused in
``node_pool_args``; ``name_prefix`` and ``node_count`` would contradict ``name`` and ``autoscaling``."""
NODE_CONFIG_OWNED_ARGS = (
    "boot_disk",
    "disk_size_gb",
    "effective_taints",
    "guest_accelerators",
    "image_type",
    "labels",
    "machine_type",
    "oauth_scopes",
    "preemptible",
    "service_account",
    "spot",
    "taints",
)
"""``node_config`` keys the library sets (instance type, accelerators with their driver, sharing and partition
settings, disk size, labels, taints, spot capacity, node image, identity), refused in ``node_pool_args``;
``boot_disk`` carries the disk size too, ``preemptible`` the capacity type, ``effective_taints`` the taints."""
NODE_POOL_ARGS = ProviderArgs(
    "pulumi_gcp.container.NodePool",
    gcp.container.NodePoolArgs,
    frozenset(NODE_POOL_OWNED_ARGS),
    MappingProxyType(
        {
            "node_config": ProviderArgs(
                "pulumi_gcp.container.NodePool node_config",
                gcp.container.NodePoolNodeConfigArgs,
                frozenset(NODE_CONFIG_OWNED_ARGS),
            )
        }
    ),
)
"""The escape hatch of :class:`GkeGpuNodePool` (``node_pool_args``; see :mod:`gpu_components.provider_args`)."""


# ---------------------------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


SOURCE_BUILT_IN_CLASSES = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-built-in-compute-classes"
RESERVED_NAME_PREFIXES = ("gke-", "autopilot")
"""Prefixes GKE keeps for its own ComputeClasses (the built-in ``autopilot`` and ``autopilot-spot``,
:data:`SOURCE_BUILT_IN_CLASSES`): a custom ComputeClass's name may start with neither (GKE's "About custom
ComputeClasses", :data:`~gpu_components.gcp.facts.SOURCE_CUSTOM_CLASSES`)."""
MAX_COMPUTE_CLASS_NAME_LENGTH = 63
"""Longest ComputeClass name a node pool can name: the name is the value of GKE's label, at most 63 characters."""


def compute_class_taint(name: str) -> Taint:
    """The taint GKE puts on a ComputeClass's nodes, and a node pool created for the class carries:
    ``cloud.google.com/compute-class=<name>:NoSchedule``."""
    return Taint(COMPUTE_CLASS_LABEL, name, "NoSchedule")


def compute_class_name_problems(name: str, path: str) -> list[Problem]:
    """A ComputeClass name GKE keeps for its own classes (:data:`RESERVED_NAME_PREFIXES`): one problem at ``path``."""
    if not name.startswith(RESERVED_NAME_PREFIXES):
        return []
    return [
        Problem(
            path,
            name,
            "GKE keeps ComputeClass names starting with gke- or autopilot for its own classes (autopilot, "
            "autopilot-spot), so it refuses a custom ComputeClass named so",
            "a name that starts with neither gke- nor autopilot",
            f"{SOURCE_CUSTOM_CLASSES}; {SOURCE_BUILT_IN_CLASSES}",
        )
    ]


def compute_class_tie_problems(
    spec: GpuNodePoolSpec, compute_class: str | None, path: str, option: str
) -> list[Problem]:
    """A fixed pool's tie to a ComputeClass (``compute_class``, at ``option``): a DNS-1123 label of at most
    :data:`MAX_COMPUTE_CLASS_NAME_LENGTH` characters (an object name and a label value) that GKE does not keep
    (:func:`compute_class_name_problems`); and no label or taint of the pool's own on GKE's
    ``cloud.google.com/compute-class`` key, which only ``compute_class`` sets (one way to say it)."""
    problems: list[Problem] = []
    if compute_class is not None:
        if not DNS_LABEL.fullmatch(compute_class) or len(compute_class) > MAX_COMPUTE_CLASS_NAME_LENGTH:
            problems.append(
                Problem(
                    option,
                    compute_class,
                    "a ComputeClass name is an object name and the value of GKE's compute-class label",
                    f"1-{MAX_COMPUTE_CLASS_NAME_LENGTH} lowercase letters, digits or '-', starting and ending "
                    "alphanumeric",
                    SOURCE_NAMES,
                )
            )
        problems += compute_class_name_problems(compute_class, option)
    why = (
        "GKE ties a node pool you create to a ComputeClass with this label and taint together: compute_class sets both"
    )
    problems += [
        Problem(
            _join(path, spec.taint_path(index)), taint.as_given(), why, f"{option}: <class name>", SOURCE_CUSTOM_CLASSES
        )
        for index, taint in enumerate(spec.taints)
        if taint.key == COMPUTE_CLASS_LABEL
    ]
    if COMPUTE_CLASS_LABEL in spec.labels:
        problems.append(
            Problem(
                f"{_join(path, 'labels')}[{COMPUTE_CLASS_LABEL!r}]",
                COMPUTE_CLASS_LABEL,
                why,
                f"{option}: <class name>",
                SOURCE_CUSTOM_CLASSES,
            )
        )
    return problems


def gke_problems(
    spec: GpuNodePoolSpec,
    driver_version: str | None,
    path: str = "",
    options_path: str | None = None,
    gpu_stack: GpuStack = "auto",
) -> list[Problem]:
    """GKE rules for a validated pool; every problem at once.

    Args:
        spec: the validated pool.
        driver_version: the pool's ``driver_version`` option, or ``None`` for the default.
        path: prefix of the pool's fields, e.g. ``pools[0]``.
        options_path: prefix of the GKE options (``driver_version``). Defaults to ``<path>.gcp``.
        gpu_stack: the cluster's GPU stack. Under ``gpu-operator`` ``INSTALLATION_DISABLED`` is a known mode (the
            driver-ownership rule, checked by the composition, requires it) and GKE's sharing and MIG rules do not
            apply: the operator's device plugin and MIG manager do the sharing and partitioning.

    Rules (sources in the module docstring): the driver mode is ``DEFAULT`` or ``LATEST``; GPUs attach only to
    N1 (T4, V100, in the counts N1 allows); no taint with the key ``nvidia.com/gpu`` other than GKE's own; no
    user label GKE sets itself; time-sharing at most 48 clients per GPU and without ``rename_by_default`` (GKE
    advertises ``nvidia.com/gpu`` only); MIG as one uniform partition size (``mig.profile``) with the
    ``single`` strategy, on the GPUs GKE partitions (:data:`GKE_MIG_GPUS`). MPS with MIG is already refused by
    the spec, which GKE agrees with.
    """
    problems: list[Problem] = []
    options = _join(path, "gcp") if options_path is None else options_path
    chosen = default_driver_version(gpu_stack, spec) if driver_version is None else driver_version
    operator = gpu_stack == "gpu-operator"
    dra = dra_pool(spec, gpu_stack)
    known = OPERATOR_DRIVER_VERSIONS if operator else DRIVER_VERSIONS
    if dra:
        problems += dra_problems(spec, chosen, path, _join(options, "driver_version"))
    elif chosen not in known:
        problems.append(
            Problem(
                _join(options, "driver_version"),
                chosen,
                "not a GKE driver installation mode the library supports (INSTALLATION_DISABLED would leave the "
                "nodes without a driver unless gpu_stack is gpu-operator, whose driver then installs it)",
                ", ".join(known),
                SOURCE_DRIVER,
            )
        )
    problems += _attached_gpu_problems(spec, path)
    for index, taint in enumerate(spec.taints):
        if taint.key == GPU_TAINT_KEY and taint != DEFAULT_GPU_TAINT:
            problems.append(
                Problem(
                    _join(path, spec.taint_path(index)),
                    taint.as_given(),
                    f"GKE taints GPU nodes {DEFAULT_GPU_TAINT.text} itself; another value or effect for this key "
                    "would conflict with it",
                    f"{DEFAULT_GPU_TAINT.text} (gpu_taint: true), or a taint with another key",
                    SOURCE_GKE_GPUS,
                )
            )
    for key in spec.labels:
        if key in GKE_GPU_LABELS:
            problems.append(
                Problem(
                    f"{_join(path, 'labels')}[{key!r}]",
                    key,
                    "set by GKE from the pool's accelerator settings",
                    "any other label key",
                    SOURCE_GKE_GPUS,
                )
            )
    if not operator and not dra:
        problems += _sharing_problems(spec, path)
    return problems


def dra_problems(spec: GpuNodePoolSpec, driver_version: str, path: str, driver_path: str) -> list[Problem]:
    """GKE's DRA prerequisites for a pool whose resolved ``gpu_access`` is ``dra`` (:data:`SOURCE_GKE_DRA`): the
    driver installation mode ``INSTALLATION_DISABLED`` (GKE's automatic installation "isn't supported with DRA"; the
    driver comes from GKE's installer DaemonSet, :data:`~gpu_components.gcp.facts.GKE_COS_DRIVER_INSTALLER`), and no
    MIG: GKE documents multi-instance GPUs (its ``gpu_partition_size``) among the sharing features DRA cannot use, and
    GKE makes no partitions without its own driver installation. Time-slicing and MPS on a DRA pool are the
    cloud-neutral rule's (sharing lives in the resource claim)."""
    problems: list[Problem] = []
    if driver_version != GKE_DRIVER_INSTALLATION_DISABLED:
        problems.append(
            Problem(
                driver_path,
                driver_version,
                "a DRA pool (gpu_access dra) needs GKE's automatic driver installation disabled: GKE does not support "
                "it with DRA, and the driver comes from GKE's driver installer DaemonSet instead",
                f"{GKE_DRIVER_INSTALLATION_DISABLED} (the default on DRA pools), or gpu_access: device-plugin",
                SOURCE_GKE_DRA,
            )
        )
    if spec.mig is not None:
        problems.append(
            Problem(
                _join(path, "mig"),
                spec.mig.as_given,
                "GKE does not support multi-instance GPUs with DRA (its partitions come from gpu_partition_size, "
                "which needs GKE's driver installation, off on DRA pools)",
                "no mig on a DRA pool, or gpu_access: device-plugin (GKE's own MIG partitions)",
                SOURCE_GKE_DRA,
            )
        )
    return problems


def _attached_gpu_problems(spec: GpuNodePoolSpec, path: str) -> list[Problem]:
    known = catalog.find_instance_type("gcp", spec.instance_type)
    if known is None or known.gpu_vendor != "none":
        return []
    counts = N1_ATTACHED_GPUS.get(spec.gpu.name)
    if not spec.instance_type.startswith("n1-"):
        return [
            Problem(
                _join(path, "instance_type"),
                spec.instance_type,
                "GPUs attach only to N1 machine types; other GPU machine types carry their GPUs built in",
                "an n1-* machine type, or a GPU machine type (a2-, a3-, a4-, g2-)",
                SOURCE_N1_GPUS,
            )
        ]
    if counts is None:
        return [
            Problem(
                _join(path, "gpu_model"),
                spec.gpu.name,
                "cannot be attached to an N1 machine type",
                ", ".join(N1_ATTACHED_GPUS),
                SOURCE_N1_GPUS,
            )
        ]
    if spec.gpu_count not in counts:
        return [
            Problem(
                _join(path, "gpu_count"),
                spec.gpu_count,
                f"{spec.gpu.name} attaches to N1 machine types only in these counts",
                ", ".join(map(str, counts)),
                SOURCE_N1_GPUS,
            )
        ]
    return []


def _sharing_problems(spec: GpuNodePoolSpec, path: str) -> list[Problem]:
    problems: list[Problem] = []
    sharing = spec.sharing
    if isinstance(sharing, TimeSlicing):
        if sharing.replicas > MAX_SHARED_CLIENTS_PER_GPU:
            problems.append(
                Problem(
                    _join(path, "time_slicing.replicas"),
                    sharing.replicas,
                    f"GKE lets at most {MAX_SHARED_CLIENTS_PER_GPU} containers share one GPU",
                    f"2..{MAX_SHARED_CLIENTS_PER_GPU}",
                    SOURCE_TIME_SHARING,
                )
            )
        if sharing.rename_by_default:
            problems.append(
                Problem(
                    _join(path, "time_slicing.rename_by_default"),
                    True,
                    "GKE's device plugin advertises time-shared GPUs as nvidia.com/gpu; it has no .shared names",
                    "false",
                    SOURCE_TIME_SHARING,
                )
            )
    mig = spec.mig
    if mig is not None:
        if spec.gpu.name not in GKE_MIG_GPUS:
            problems.append(
                Problem(
                    _join(path, "mig"),
                    mig.as_given,
                    f"GKE makes MIG partitions only on {', '.join(GKE_MIG_GPUS)}; {spec.instance_type} carries "
                    f"{spec.gpu.name}",
                    "gpu_stack gpu-operator (its MIG manager partitions any MIG-capable GPU), or a machine type "
                    "with one of those GPUs",
                    SOURCE_MIG,
                )
            )
        if mig.uniform_profile is None:
            problems.append(
                Problem(
                    _join(path, f"mig.{mig.given_field}"),
                    mig.given,
                    "GKE partitions every GPU of a pool with one partition size (gpu_partition_size), each GPU "
                    f"filled with the most instances of it; {not_uniform(mig, spec.gpu)}",
                    "mig.profile with one partition size, e.g. 1g.10gb, or a layout of one profile at its most "
                    "instances per GPU",
                    SOURCE_MIG,
                )
            )
        attributed = parse_mig_profile_name(mig.uniform_profile) if mig.uniform_profile is not None else None
        if attributed is not None and attributed.attribute:
            problems.append(
                Problem(
                    _join(path, f"mig.{mig.given_field}"),
                    mig.given,
                    "GKE's partition sizes are [compute]g.[memory]gb, without an engine attribute (+me, +me.all, "
                    "+gfx, -me), and its node label cloud.google.com/gke-gpu-partition-size holds no '+'",
                    f"{attributed.compute_slices}g.{attributed.memory_gb}gb, or gpu_stack gpu-operator (its MIG "
                    "manager makes any profile of the GPU)",
                    SOURCE_MIG,
                )
            )
        if mig.strategy != "single":
            problems.append(
                Problem(
                    _join(path, "mig.strategy"),
                    mig.strategy,
                    "GKE advertises every MIG partition as nvidia.com/gpu (the single strategy)",
                    "single",
                    SOURCE_MIG,
                )
            )
    return problems


# ---------------------------------------------------------------------------------------------------------------
# Translation (pure)
# ---------------------------------------------------------------------------------------------------------------


def accelerator_type_for(spec: GpuNodePoolSpec) -> str:
    """The GKE accelerator type of the pool: the machine type's (``a2-highgpu-1g`` -> ``nvidia-tesla-a100``), or
    for N1 with attached GPUs the GPU model's (``T4`` -> ``nvidia-tesla-t4``)."""
    known = catalog.find_instance_type("gcp", spec.instance_type)
    if known is not None and known.accelerator_type is not None:
        return known.accelerator_type
    return catalog.gcp_accelerator_type(spec.gpu.name)


def gke_taints(taints: Sequence[Taint]) -> list[dict[str, str]]:
    """Taints in the GKE API's spelling: ``{"key", "value", "effect": "NO_SCHEDULE"}`` (``value`` ``""`` when
    the taint has none; GKE requires the field)."""
    return [{"key": t.key, "value": t.value, "effect": TAINT_EFFECTS[t.effect]} for t in taints]


def gke_effective_taints(spec: GpuNodePoolSpec, compute_class: str | None = None) -> tuple[Taint, ...]:
    """The taints the pool's nodes carry: the spec's, plus GKE's own ``nvidia.com/gpu=present:NoSchedule`` when
    ``gpu_taint`` is off (GKE adds it to GPU pools of clusters with other pools; see the module docstring), on
    Arm machine types (A4X) GKE's ``kubernetes.io/arch=arm64:NoSchedule`` (:data:`ARM_TAINT`), and for a pool tied
    to a ComputeClass ``cloud.google.com/compute-class=<name>:NoSchedule`` (:func:`compute_class_taint`), which
    workloads and the GPU Operator's DaemonSets must tolerate."""
    taints = spec.taints if DEFAULT_GPU_TAINT in spec.taints else (DEFAULT_GPU_TAINT, *spec.taints)
    if spec.cpu_architecture == "arm64" and ARM_TAINT not in taints:
        taints = (*taints, ARM_TAINT)
    if compute_class is not None:
        taints = (*taints, compute_class_taint(compute_class))
    return taints


def node_labels(
    spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto", compute_class: str | None = None
) -> dict[str, str]:
    """Node labels the pool sets: the user's, the pool label, GKE's ``cloud.google.com/compute-class: <name>`` for a
    pool tied to a ComputeClass (``compute_class``) and, where its sharing is declared trusted,
    ``gpu-components/sharing: trusted`` (:func:`~gpu_components.spec.sharing_trust_labels`). No device-plugin labels
    with GKE's own plugin (GKE labels GPU nodes itself, :data:`GKE_GPU_LABELS`); under the GPU Operator, the
    operator's (:func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`, GKE's device plugin off
    included); on a DRA pool (resolved ``gpu_access: dra``) ``gke-no-default-nvidia-gpu-device-plugin: "true"`` (GKE's
    plugin off, :data:`~gpu_components.gcp.facts.SOURCE_GKE_DRA`), ``nvidia.com/gpu.present: "true"`` (as NVIDIA's
    GKE setup labels them, :data:`~gpu_components.gcp.facts.SOURCE_DRA_DRIVER_GKE_LABELS`) and
    ``gpu-components/gpu-access: dra``."""
    labels = dict(spec.labels)
    labels[POOL_LABEL] = spec.name
    if compute_class is not None:
        labels[COMPUTE_CLASS_LABEL] = compute_class
    if dra_pool(spec, gpu_stack):
        labels.update(GKE_DRA_NODE_LABELS)
        labels[GPU_ACCESS_LABEL] = "dra"
    elif gpu_stack == "gpu-operator":
        labels.update(operator_node_labels(spec, "gcp"))
    labels.update(sharing_trust_labels(spec))
    return dict(sorted(labels.items()))


def gke_advertised_resources(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, int]:
    """What each node advertises under GKE's device plugin: ``{"nvidia.com/gpu": n}``, with ``n`` = GPUs x MIG
    partitions per GPU x clients per GPU (time-sharing or MPS; with MIG, each partition is shared). Under the GPU
    Operator, what the NVIDIA device plugin advertises
    (:func:`~gpu_components.nvidia.device_plugin.advertised_resources`)."""
    if dra_pool(spec, gpu_stack):
        return {}
    if gpu_stack == "gpu-operator":
        return advertised_resources(spec)
    count = spec.gpu_count
    if spec.mig is not None:
        count *= spec.mig.instances_per_gpu
    if spec.sharing is not None:
        count *= spec.sharing.replicas
    return {GPU_RESOURCE: count}


def gke_node_labels(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """The labels GKE puts on the pool's nodes for its accelerator settings (sorted); only the accelerator under
    the GPU Operator, which GKE is not told about sharing or partitions for."""
    labels = {ACCELERATOR_LABEL: accelerator_type_for(spec)}
    if gpu_stack == "gpu-operator" or dra_pool(spec, gpu_stack):
        return labels
    if spec.sharing is not None:
        labels[SHARING_STRATEGY_LABEL] = SHARING_STRATEGIES[type(spec.sharing)][1]
        labels[MAX_SHARED_CLIENTS_LABEL] = str(spec.sharing.replicas)
    if spec.mig is not None and spec.mig.uniform_profile is not None:
        labels[PARTITION_SIZE_LABEL] = spec.mig.uniform_profile
    return dict(sorted(labels.items()))


def gke_node_selector(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """A pod node selector for the pool: the pool label and GKE's accelerator, sharing and partition labels.

    GKE asks workloads for shared GPUs and MIG partitions to select those labels, so a pod that expects a
    partition or a share never lands on a whole GPU. MPS pods also need ``hostIPC: true`` (GKE's MPS page).
    """
    return dict(sorted({POOL_LABEL: spec.name, **gke_node_labels(spec, gpu_stack)}.items()))


def guest_accelerator(
    spec: GpuNodePoolSpec, driver_version: str | None = None, gpu_stack: GpuStack = "auto"
) -> dict[str, Any]:
    """The pool's ``node_config.guest_accelerators`` entry: type, count, driver mode, sharing, partition size
    (the last two not under the GPU Operator, whose device plugin and MIG manager do them)."""
    accelerator: dict[str, Any] = {
        "type": accelerator_type_for(spec),
        "count": spec.gpu_count,
        "gpu_driver_installation_config": {
            "gpu_driver_version": default_driver_version(gpu_stack, spec) if driver_version is None else driver_version
        },
    }
    if gpu_stack == "gpu-operator" or dra_pool(spec, gpu_stack):
        return accelerator
    if spec.mig is not None and spec.mig.uniform_profile is not None:
        accelerator["gpu_partition_size"] = spec.mig.uniform_profile
    if spec.sharing is not None:
        accelerator["gpu_sharing_config"] = {
            "gpu_sharing_strategy": SHARING_STRATEGIES[type(spec.sharing)][0],
            "max_shared_clients_per_gpu": spec.sharing.replicas,
        }
    return accelerator


def node_pool_inputs(
    spec: GpuNodePoolSpec,
    driver_version: str | None = None,
    gpu_stack: GpuStack = "auto",
    compute_class: str | None = None,
    operator_driver: bool = True,
) -> dict[str, Any]:
    """The plain ``gcp.container.NodePool`` inputs derived from the spec (cluster wiring and service account
    excluded). ``autoscaling`` uses the pool-wide ``total_*`` limits (GKE's per-zone limits would multiply by
    the zones); ``initial_node_count`` is per zone, as GKE defines it. Under the GPU Operator the nodes run
    :data:`OPERATOR_IMAGE_TYPE`, or :data:`COS_IMAGE_TYPE` on Google's driver (``operator_driver`` false). A pool
    tied to a ComputeClass (``compute_class``) has GKE's label and taint of the class last among its labels and
    taints."""
    taints = spec.taints if compute_class is None else (*spec.taints, compute_class_taint(compute_class))
    inputs: dict[str, Any] = {
        "name": spec.name,
        "initial_node_count": spec.desired_size,
        "autoscaling": {"total_min_node_count": spec.min_size, "total_max_node_count": spec.max_size},
        "node_config": {
            "machine_type": spec.instance_type,
            "disk_size_gb": spec.disk_size_gb,
            "guest_accelerators": [guest_accelerator(spec, driver_version, gpu_stack)],
            "labels": node_labels(spec, gpu_stack, compute_class),
            "taints": gke_taints(taints),
            "spot": spec.spot,
            "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
        },
    }
    node_os = operator_node_os(gpu_stack, operator_driver)
    if node_os is not None:
        inputs["node_config"]["image_type"] = IMAGE_TYPES[node_os]
    return inputs


def gke_autoscaler_note(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> str | None:
    """What GKE's Cluster Autoscaler cannot model about the pool's nodes, or ``None`` (always ``None`` with GKE's
    own device plugin: see the module docstring). Under the GPU Operator: shared or partitioned GPUs (the node pool
    tells GKE only of whole GPUs), MIG made by the MIG manager after a node joins, and nodes that advertise no
    ``nvidia.com/gpu`` (:mod:`gpu_components.autoscaler`)."""
    if gpu_stack != "gpu-operator" or dra_pool(spec, gpu_stack):
        return None
    advertised = gke_advertised_resources(spec, gpu_stack)
    unknown_to_gke = None
    if spec.sharing is not None or spec.mig is not None:
        unknown_to_gke = (
            f"GKE's autoscaler builds its template from the node pool, which under the GPU Operator has "
            f"{spec.gpu_count} whole GPU(s) and no sharing or partitions, while nodes advertise "
            + ", ".join(f"{count} x {name}" for name, count in sorted(advertised.items()))
        )
    return joined(unknown_to_gke, LATE_MIG_NOTE if spec.mig is not None else None, gpu_resource_note(advertised))


def gke_pool_view(
    spec: GpuNodePoolSpec,
    driver_version: str | None = None,
    gpu_stack: GpuStack = "auto",
    compute_class: str | None = None,
    operator_driver: bool | None = None,
) -> PoolView:
    """What a :class:`GkeGpuNodePool` of the pool exposes, without creating it: who advertises its GPUs under the
    GPU stack (:func:`device_plugin_host`), the labels the pool sets (:func:`node_labels`), the taints its nodes
    carry, GKE's own included (:func:`gke_effective_taints`), what each node advertises
    (:func:`gke_advertised_resources`), the node selector (:func:`gke_node_selector`), the autoscaler note
    (:func:`gke_autoscaler_note`) and ``driver_setting``: ``driver_version`` (``None``: the GPU stack's default,
    :func:`default_driver_version`). A pool tied to a ComputeClass (``compute_class``) has the class's label and
    taint; its node selector stays the pool's own (a pod that selects the class may select little else, so the
    class's pods reach the pool through the ComputeClass's own pool or selector). Under the GPU Operator its
    ``node_os`` is that of its image (:func:`operator_node_os`), which the operator checks against its own
    ``operator_driver``."""
    taints = gke_effective_taints(spec, compute_class)
    return PoolView(
        spec=spec,
        device_plugin_host=device_plugin_host(gpu_stack, spec),
        labels=node_labels(spec, gpu_stack, compute_class),
        taints=taints,
        advertised_resources=gke_advertised_resources(spec, gpu_stack),
        node_selector=gke_node_selector(spec, gpu_stack),
        autoscaler_note=gke_autoscaler_note(spec, gpu_stack),
        tolerations=tolerations(taints),
        driver_setting=default_driver_version(gpu_stack, spec) if driver_version is None else driver_version,
        driver_setting_set=driver_version is not None,
        node_os=operator_node_os(gpu_stack, operator_driver),
    )


def service_account_id(name: str) -> str:
    """A service account id for a resource name: 6-30 characters, ``[a-z][-a-z0-9]*[a-z0-9]``; long names are
    shortened with a digest of the full name, so ids stay unique and stable."""
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    if not slug[:1].isalpha():
        slug = f"g-{slug}"
    if 6 <= len(slug) <= 30:
        return slug
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{slug[:21].rstrip('-')}-{digest}"


# ---------------------------------------------------------------------------------------------------------------
# Component
# ---------------------------------------------------------------------------------------------------------------


def create_node_service_account(
    name: str, project: pulumi.Input[str] | None = None, opts: pulumi.ResourceOptions | None = None
) -> tuple[gcp.serviceaccount.Account, list[pulumi.Resource]]:
    """A service account for GKE nodes with :data:`NODE_SERVICE_ACCOUNT_ROLES` on its project.

    Returns the account (``<name>``) and its role bindings (``<name>-<node|registry>``), which node pools should
    depend on.
    """
    account = gcp.serviceaccount.Account(
        name,
        account_id=service_account_id(name),
        display_name=f"GKE nodes ({name})",
        project=project,
        opts=opts,
    )
    members: list[pulumi.Resource] = [
        gcp.projects.IAMMember(
            f"{name}-{suffix}",
            project=account.project,
            role=role,
            member=account.member,
            opts=opts,
        )
        for suffix, role in NODE_SERVICE_ACCOUNT_ROLES.items()
    ]
    return account, members


def zone_size_problems(
    spec: GpuNodePoolSpec,
    node_locations: object,
    path: str,
    zones_path: str,
    location: object = None,
    location_path: str = "location",
) -> list[Problem]:
    """A fixed pool's ``max_size`` (GKE's ``total_max_node_count``, across its zones) against GKE's limit of
    :data:`~gpu_components.gcp.facts.MAX_NODES_PER_ZONE` nodes per node pool zone, over the zones the pool is known
    to have: ``node_locations`` (at ``zones_path``) when a plain list, or else the one zone of a zonal cluster's
    ``location`` (at ``location_path``, :func:`~gpu_components.gcp.facts.is_zone`): at most 1000 x their number.
    Without either (a regional cluster's zones, which the library does not know) or as outputs, nothing is checked.
    A multi-zonal cluster (a zonal location with more zones) names its zones in ``node_locations``.

    Source: :data:`~gpu_components.gcp.facts.SOURCE_GKE_QUOTAS`."""
    if isinstance(node_locations, Sequence) and not isinstance(node_locations, str) and node_locations:
        zones = len(node_locations)
        where = f"over the {zones} zone(s) of {zones_path}"
        valid = "or more zones"
    elif is_zone(location):
        zones = 1
        where = f"in the zone of {location_path} {location}"
        valid = f"or {zones_path} naming more zones"
    else:
        return []
    most = MAX_NODES_PER_ZONE * zones
    if spec.max_size <= most:
        return []
    return [
        Problem(
            f"{path}.max_size" if path else "max_size",
            spec.max_size,
            f"more nodes than GKE allows in one node pool {where} ({MAX_NODES_PER_ZONE} per node pool zone)",
            f"<= {most}, {valid}",
            SOURCE_GKE_QUOTAS,
        )
    ]


def cluster_problems(given: Mapping[str, Any], prefix: str, name_key: str = "cluster") -> list[Problem]:
    """The cluster's name (``given[name_key]``) as GKE names a cluster and its ``location`` as a region or zone
    (:data:`~gpu_components.gcp.facts.CLUSTER_NAME_FORM`, :data:`~gpu_components.gcp.facts.LOCATION_FORM`), at
    ``<prefix><key>``: the example cluster config (``cluster.``, ``name``), ``GpuCluster``'s ``gcp`` wiring
    (``gcp.``) and :class:`GkeGpuNodePool` (no prefix). Values that are not plain strings (outputs) are not
    judged."""
    return CLUSTER_NAME_FORM.problems(given.get(name_key), f"{prefix}{name_key}") + LOCATION_FORM.problems(
        given.get("location"), f"{prefix}location"
    )


def _provisioned_problems(pool: object) -> list[Problem]:
    """A provisioned pool given to :class:`GkeGpuNodePool`, which makes node pools of fixed bounds only: a pool whose
    nodes a ComputeClass's node-pool auto-creation makes is a
    :class:`~gpu_components.gcp.GkeComputeClassGpuPool`."""
    return fixed_pool_problems(
        pool,
        "GkeGpuNodePool",
        "a fixed GKE node pool",
        {"compute-class": ("a ComputeClass", "GkeComputeClassGpuPool")},
    )


def _gke_component_problems(spec: GpuNodePoolSpec, args: GkeGpuNodePoolArgs) -> list[Problem]:
    """GKE's rules for a standalone pool component (with :func:`zone_size_problems` over its ``node_locations``);
    under the GPU Operator the operator always owns the driver on GKE (NVIDIA's GKE guide), so the one ownership
    rule is asked with it."""
    driver_version = args.get("driver_version")
    gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
    problems = gke_problems(spec, driver_version, "pool", options_path="", gpu_stack=gpu_stack)
    problems += zone_size_problems(spec, args.get("node_locations"), "pool", "node_locations", args.get("location"))
    problems += compute_class_tie_problems(spec, args.get("compute_class"), "pool", "compute_class")
    if gpu_stack == "device-plugin":
        problems.append(
            Problem(
                "gpu_stack",
                gpu_stack,
                "the pool is served by GKE's own device plugin, which the NVIDIA device plugin may not run beside",
                "auto, or gpu-operator (which turns GKE's plugin off)",
            )
        )
    operator_driver = args.get("operator_driver")
    if gpu_stack == "gpu-operator":
        problems += driver_owner_problems(
            "gcp", driver_version, operator_driver is not False, "pool", "driver_version", "operator_driver"
        )
    elif "operator_driver" in args:
        problems.append(
            Problem(
                "operator_driver",
                operator_driver,
                f"who installs the driver under the GPU Operator, but gpu_stack is {gpu_stack}: it would be ignored",
                "gpu_stack gpu-operator, or no operator_driver",
            )
        )
    return problems


class GkeGpuNodePool(pulumi.ComponentResource):
    """A GKE Standard node pool of NVIDIA GPU nodes for one validated pool; GKE installs the driver and runs the
    device plugin, and sharing (time-sharing, MPS, MIG) is the pool's own setting.

    Children: ``<name>-node-sa`` and ``<name>-node-sa-<node|registry>`` (when no service account is given) and
    ``<name>-node-pool``. The node pool is named like the pool (GKE pool names are unique in a cluster), is
    deleted before it is replaced (GPU quota rarely holds two pools at once) and ignores changes to
    ``initialNodeCount`` (which would replace it; the autoscaler owns the size). Providers: ``gcp``.

    Outputs: ``node_pool_name``, ``node_pool_id``, ``service_account_email`` (known after deployment), ``pool_name``,
    ``labels``, ``taints``, ``tolerations``, ``node_selector``, ``advertised_resources``, ``dra_devices``,
    ``device_plugin_host``, ``autoscaler_note`` (plain values, known at preview). Other attributes: ``spec``,
    ``gpu_stack``, ``accelerator_type``, ``driver_version``, ``node_pool`` (the ``gcp.container.NodePool``),
    ``served_by``.

    Raises:
        GpuSpecError: invalid pool, or one GKE cannot run (see :func:`gke_problems`); a provisioned pool (a
            ``provisioning`` block: a :class:`~gpu_components.gcp.GkeComputeClassGpuPool` makes it); ``gpu_stack``
            ``device-plugin`` (GKE's own plugin serves the pool); under the GPU Operator, a driver mode other than
            ``INSTALLATION_DISABLED``; ``node_pool_args`` keys that the SDK does not take or
            the library owns; a ``compute_class`` name that is not a DNS-1123 label or that GKE keeps, or a label or
            taint of the pool's own on ``cloud.google.com/compute-class`` (:func:`compute_class_tie_problems`).
    """

    node_pool_name: pulumi.Output[str]
    """Name of the node pool in GKE: the pool's name."""
    node_pool_id: pulumi.Output[str]
    """Id of the node pool, as the provider reports it
    (``projects/<project>/locations/<location>/clusters/<cluster>/nodePools/<name>``)."""
    service_account_email: pulumi.Output[str]
    """Email of the nodes' service account: the one given, or the account the component created."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the node pool sets (``node_config.labels``): the user's, ``gpu-components/pool``, the GPU
    Operator's where it serves the pool, and ``gpu-components/sharing`` for trusted sharing. GKE adds its own
    accelerator, sharing and partition labels to the nodes."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling; ``value`` ``""`` when a taint has none), GKE's own GPU
    taint ``nvidia.com/gpu=present:NoSchedule`` included."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes: ``key``, ``operator`` (``Equal`` with a
    ``value``, ``Exists`` without one) and ``effect``, as a pod spec's ``tolerations`` takes them."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>`` and GKE's accelerator,
    sharing and partition labels (GKE asks pods for shared GPUs and MIG partitions to select them)."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node advertises (e.g. ``nvidia.com/gpu: 7`` for an A100 partitioned
    into ``1g.5gb``)."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``cloud`` (GKE's own device plugin), ``gpu-operator`` (the GPU Operator's
    device plugin, ``NvidiaGpuOperator``) or ``dra-driver`` (NVIDIA's DRA driver: ``gpu_access`` ``dra``)."""
    autoscaler_note: str | None
    """What the Cluster Autoscaler cannot model about the pool's nodes when it scales the pool from zero, or null."""

    def __init__(self, name: str, args: GkeGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        spec = collected(
            lambda: validated_pool(
                GkeGpuNodePoolArgs,
                args,
                "gcp",
                lambda spec: _gke_component_problems(spec, args),
                fixed=_provisioned_problems,
            ),
            cluster_problems(args, "") + NODE_POOL_ARGS.problems(args.get("node_pool_args"), "node_pool_args")
            if isinstance(args, Mapping)
            else [],
        )
        driver_version = args.get("driver_version")
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
        super().__init__(TOKEN, name, None, opts)
        compute_class = args.get("compute_class")
        operator_driver: bool | None = args.get("operator_driver", True) if gpu_stack == "gpu-operator" else None
        view = gke_pool_view(spec, driver_version, gpu_stack, compute_class, operator_driver)
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        adopt_view(self, view)
        self.gpu_stack: GpuStack = gpu_stack
        self.accelerator_type: str = accelerator_type_for(spec)
        self.driver_version: str = view.driver_setting
        inputs = node_pool_inputs(spec, self.driver_version, gpu_stack, compute_class, operator_driver is not False)
        child = pulumi.ResourceOptions(parent=self)

        service_account = args.get("service_account")
        depends: list[pulumi.Resource] = []
        if service_account is None:
            account, depends = create_node_service_account(f"{name}-node-sa", args.get("project"), child)
            service_account = account.email
        ours = {
            "cluster": args["cluster"],
            "location": args["location"],
            "project": args.get("project"),
            "node_locations": args.get("node_locations"),
            **inputs,
            "node_config": {**inputs["node_config"], "service_account": service_account},
        }
        self.node_pool: gcp.container.NodePool = gcp.container.NodePool(
            f"{name}-node-pool",
            **NODE_POOL_ARGS.merged(ours, args.get("node_pool_args")),
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends, **NODE_POOL_OPTIONS.resource_options()),
        )
        self.node_pool_name = self.node_pool.name
        self.node_pool_id = self.node_pool.id
        self.service_account_email = pulumi.Output.from_input(service_account)
        self.register_outputs(
            {
                "nodePoolName": self.node_pool_name,
                "nodePoolId": self.node_pool_id,
                "serviceAccountEmail": self.service_account_email,
                **pool_outputs(self),
            }
        )
