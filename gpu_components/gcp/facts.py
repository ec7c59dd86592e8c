"""GKE as data (:class:`~gpu_components.cloud_facts.CloudFacts`), without the GCP SDK: its node pool name rule, taint
effects, driver ownership, what the GPU Operator needs on it, and its node pool resource.

The node pool component (:mod:`gpu_components.gcp.gke`) reads these too. Facts and sources:

- Node pool names: https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools
- GKE installs the driver (``gpu_driver_version``) and runs its own device plugin; it taints GPU nodes
  ``nvidia.com/gpu=present:NoSchedule`` itself: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus
- GPUs attach to N1 machine types separately, and GKE names a node pool's GPUs by accelerator type
  (``guestAccelerators[].type``): :data:`SOURCE_GPUS`
- What GKE's device plugin asks of pods on shared GPUs: at most one time-shared ``nvidia.com/gpu`` per container
  (:data:`SOURCE_GKE_TIME_SHARING`), ``hostIPC: true`` on MPS nodes (:data:`SOURCE_GKE_MPS`).
- The GPU Operator on GKE (NVIDIA's GKE guide,
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/google-gke.html): GKE's driver installation
  off (``gpu-driver-version=disabled``), and either the operator's driver on, which needs Ubuntu node images ("NVIDIA
  Driver Manager"), or the operator's driver off with Google's driver installer DaemonSet installing it on
  Container-Optimized OS nodes and the operator told where it is (``hostPaths.driverInstallDir`` and
  ``toolkit.installDir`` ``/home/kubernetes/bin/nvidia``, ``cdi.enabled`` and ``cdi.default`` true: "Using the Google
  Driver Installer", :data:`GKE_COS_OPERATOR`); GKE's device plugin off by the node label
  ``gke-no-default-nvidia-gpu-device-plugin=true``; a ResourceQuota admitting ``system-node-critical`` pods in the
  operator's namespace; on GKE 1.33+ the toolkit needs ``RUNTIME_CONFIG_SOURCE=file``; ``cdi.enabled=true``.
- Which node pool inputs force a replacement: the attributes marked ``ForceNew`` in the upstream Terraform provider
  schema that pulumi-gcp bridges (:data:`SOURCE_FORCE_NEW`): the accelerators with their sharing, partition and
  driver settings, spot and preemptible, the service account and OAuth scopes, the initial node count. Not among
  them: ``nodeConfig.machineType``, ``labels`` and ``taints``, which GKE updates in place (a GPU machine type change
  usually changes the accelerator count or type too, which does replace), and ``autoscaling``.
- What GKE changes in place by recreating every node with the pool's upgrade strategy (:data:`NODE_POOL_ROLLS`):
  the node configuration (machine type, disk, image type and the rest of ``nodeConfig``;
  :data:`SOURCE_NODE_CHANGES`) and the node version, but not the Kubernetes node labels, taints and network tags,
  which it updates on the running nodes (:data:`SOURCE_NODE_LABELS`).
- The node pool component leaves ``initialNodeCount`` (the pool's desired size at creation) to the Cluster
  Autoscaler, as does the example cluster's system pool, so a change of it is no change (:data:`NODE_POOL_OPTIONS`),
  though the provider would replace the pool for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gpu_components import catalog
from gpu_components.cloud_facts import (
    CloudDriverInstaller,
    CloudFacts,
    ComponentOptions,
    DraFacts,
    DriverOwnership,
    ExclusiveSelector,
    ForceNewTable,
    GpuOperatorFacts,
    InputBound,
    ManagedDevicePlugin,
    NodePoolResource,
    NodeRolls,
    PoolNameRule,
    ProvisionerFacts,
)
from gpu_components.labels import GPU_PRESENT_LABEL
from gpu_components.name_forms import KnownNames, NameForm

if TYPE_CHECKING:
    from gpu_components.enums import TaintEffectName as TaintEffect

SOURCE_GKE_GPUS = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus"
SOURCE_GPU_OPERATOR = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/google-gke.html"
"""NVIDIA's guide to the GPU Operator on GKE."""
MAX_NODES_PER_ZONE = 1000
"""GKE limit: nodes per node pool zone (Standard clusters; :data:`SOURCE_GKE_QUOTAS`)."""
SOURCE_GKE_QUOTAS = "https://cloud.google.com/kubernetes-engine/quotas"
"""GKE quotas and limits: "Nodes per node pool zone: 1,000"."""
ZONE_NODES_ACCEPTED = f"at most {MAX_NODES_PER_ZONE} nodes per node pool zone"
SOURCE_GCP_ZONES = "https://cloud.google.com/compute/docs/regions-zones"
"""Compute Engine's regions and zones: a zone is named ``<region>-<letter>`` (``us-central1-a``), a region
``<geography>-<area><number>`` (``us-central1``)."""
ZONE_NAME = re.compile(r"[a-z]+-[a-z]+[0-9]+-[a-z]")
"""A zone's name, as opposed to a region's (:data:`SOURCE_GCP_ZONES`): a GKE ``location`` matching it is a zonal
cluster's."""


REGIONS = KnownNames(
    "region",
    "Google Cloud's",
    (
        *("africa-south1", "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3"),
        *("asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2", "asia-southeast3"),
        *("australia-southeast1", "australia-southeast2", "europe-central2", "europe-north1", "europe-north2"),
        *("europe-southwest1", "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6"),
        *("europe-west8", "europe-west9", "europe-west10", "europe-west12", "me-central1", "me-central2"),
        *("me-west1", "northamerica-northeast1", "northamerica-northeast2", "northamerica-south1"),
        *("southamerica-east1", "southamerica-west1", "us-central1", "us-east1", "us-east4", "us-east5"),
        *("us-south1", "us-west1", "us-west2", "us-west3", "us-west4"),
    ),
    SOURCE_GCP_ZONES,
    "2026-12-05",
)
"""Every Compute Engine region (:data:`SOURCE_GCP_ZONES`; compiled 2026-12-05 offline, from the page's region table
as last known, not from the live page: check new regions there)."""
LOCATION_FORM = NameForm(
    "a Google Cloud region or zone",
    re.compile(r"(?P<listed>[a-z]+-[a-z]+[0-9]+)(-[a-f])?"),
    "a region such as us-central1 or a zone such as us-central1-a",
    SOURCE_GCP_ZONES,
    REGIONS,
)
"""A GKE ``location``: a region (regional cluster) or a zone (zonal cluster) of a region in :data:`REGIONS`,
:data:`SOURCE_GCP_ZONES`. A zone is its region and a letter ``a`` to ``f``, the letters Compute Engine's zones use;
which letters a region has (``us-central1``: a, b, c, f; ``europe-west1``: b, c, d) is not checked: the library
keeps no per-region zone list, so a zone of a listed region with a letter it lacks is refused only by GKE."""
REGION_FORM = NameForm(
    "a Google Cloud region",
    re.compile(r"[a-z]+-[a-z]+[0-9]+"),
    "a region such as us-central1 (not a zone such as us-central1-a)",
    SOURCE_GCP_ZONES,
    REGIONS,
)
"""The ``gcp:region`` config (the provider's default region): a region of :data:`REGIONS`, not a zone."""
SOURCE_CLUSTER_NAME = (
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters#Cluster"
)
"""GKE's ``Cluster.name``: up to 40 characters, lowercase letters, numbers and hyphens only, starting with a letter
and ending with a number or a letter."""
CLUSTER_NAME_FORM = NameForm(
    "a GKE cluster name",
    re.compile(r"[a-z]([a-z0-9-]{0,38}[a-z0-9])?"),
    "1 to 40 lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit",
    SOURCE_CLUSTER_NAME,
)
"""A GKE cluster's name (:data:`SOURCE_CLUSTER_NAME`)."""
MACHINE_TYPE_FORM = NameForm(
    "a Compute Engine machine type",
    re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)+"),
    "<series>-<type>-<size> in lowercase, e.g. e2-standard-4 or n2-highmem-8",
    "https://cloud.google.com/compute/docs/machine-resource",
)
"""A Compute Engine machine type's name (``e2-standard-4``, ``c3-standard-4-lssd``, ``n2-custom-4-16384``)."""


def is_zone(location: object) -> bool:
    """Whether ``location`` (a cluster's or node pool's ``location``) names a zone, not a region
    (:data:`ZONE_NAME`); ``False`` for anything but a plain string (an output, say)."""
    return isinstance(location, str) and ZONE_NAME.fullmatch(location) is not None


def node_pool_zones(inputs: Mapping[str, Any]) -> tuple[int, str] | None:
    """How many zones a node pool's provider inputs (camelCase) put it in, and which, in words: its
    ``nodeLocations`` (a plain list of names), or else the one zone of a zonal ``location``; ``None`` where the
    inputs do not say (a regional pool takes the cluster's zones, which its inputs do not hold). A zonal cluster
    with further zones (multi-zonal) gives its pools those zones too: such a pool must name them in
    ``nodeLocations`` for the bound to count them."""
    locations = inputs.get("nodeLocations")
    if isinstance(locations, Sequence) and not isinstance(locations, str) and locations:
        return len(locations), f"the {len(locations)} zone{'s' if len(locations) != 1 else ''} of nodeLocations"
    location = inputs.get("location")
    if is_zone(location):
        return 1, f"the zone of location {location}"
    return None


NODE_POOL_BOUNDS = (
    InputBound("nodeCount", ZONE_NODES_ACCEPTED, SOURCE_GKE_QUOTAS, high=MAX_NODES_PER_ZONE),
    InputBound("autoscaling.minNodeCount", ZONE_NODES_ACCEPTED, SOURCE_GKE_QUOTAS, high=MAX_NODES_PER_ZONE),
    InputBound("autoscaling.maxNodeCount", ZONE_NODES_ACCEPTED, SOURCE_GKE_QUOTAS, high=MAX_NODES_PER_ZONE),
    InputBound(
        "autoscaling.totalMaxNodeCount",
        ZONE_NODES_ACCEPTED,
        SOURCE_GKE_QUOTAS,
        high=MAX_NODES_PER_ZONE,
        per=node_pool_zones,
    ),
)
"""A node pool's per-zone node counts (``nodeCount``, ``autoscaling.min/maxNodeCount``), and its total
``autoscaling.totalMaxNodeCount`` over the zones its inputs name (:func:`node_pool_zones`: ``nodeLocations`` or a
zonal ``location``; not judged otherwise), as the policy pack checks them on any program's node pools."""
SOURCE_GKE_DRA = "https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra"
"""GKE's DRA setup: a GPU node pool for DRA has automatic driver installation disabled (``gpu-driver-version=disabled``)
and the node label ``gke-no-default-nvidia-gpu-device-plugin=true``; limitations: no node auto-provisioning, no
Autopilot, no automatic GPU driver installation, no time-sharing, multi-instance GPUs or MPS (GKE's own sharing);
GKE version 1.34 or later."""
SOURCE_GKE_MANUAL_DRIVERS = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers"
"""GKE's manual driver installation: apply the driver installer DaemonSet of
GoogleCloudPlatform/container-engine-accelerators for the node image (``nvidia-driver-installer/cos/
daemonset-preloaded.yaml`` on Container-Optimized OS, the default GKE image)."""
SOURCE_DRA_DRIVER_GKE_ROOT = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/install.md"
"""The DRA driver's install guide (v0.4.1): "For GKE, use /home/kubernetes/bin/nvidia" as ``nvidiaDriverRoot``; its
GKE demo (``demo/clusters/gke/create-cluster.sh``) labels the node pools ``gke-no-default-nvidia-gpu-device-plugin=
true,nvidia.com/gpu.present=true`` (:data:`SOURCE_DRA_DRIVER_GKE_LABELS`) and applies GKE's driver installer
DaemonSet."""
SOURCE_DRA_DRIVER_GKE_LABELS = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/demo/clusters/gke/create-cluster.sh"
)
"""NVIDIA's GKE setup for its DRA driver (v0.4.1): GPU node pools created with ``--node-labels=
gke-no-default-nvidia-gpu-device-plugin=true,nvidia.com/gpu.present=true`` (``nvidia.com/gpu.present`` is the label
the chart's default kubelet plugin affinity accepts where no NFD or GPU Operator labels the node)."""
GKE_DRA_DRIVER_ROOT = "/home/kubernetes/bin/nvidia"
"""Where GKE's driver installer puts the NVIDIA driver on the host (its DaemonSet's ``nvidia-install-dir-host``
volume), the DRA driver's ``nvidiaDriverRoot`` on GKE (:data:`SOURCE_DRA_DRIVER_GKE_ROOT`)."""
GKE_NO_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
"""Node label (value ``"true"``) that keeps GKE's own device plugin off a node pool's nodes (:data:`SOURCE_GKE_DRA`)."""
GKE_DRA_NODE_LABELS: Mapping[str, str] = MappingProxyType(
    {GKE_NO_DEVICE_PLUGIN_LABEL: "true", GPU_PRESENT_LABEL: "true"}
)
"""The node labels of a GKE DRA pool, as NVIDIA's GKE setup sets them (:data:`SOURCE_DRA_DRIVER_GKE_LABELS`): GKE's
device plugin off, and ``nvidia.com/gpu.present``."""
GKE_COS_DRIVER_INSTALLER = (
    "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
    "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer/cos/daemonset-preloaded.yaml"
)
"""GKE's NVIDIA driver installer DaemonSet for Container-Optimized OS nodes (``kube-system/nvidia-driver-installer``),
pinned to container-engine-accelerators commit ``992db812`` (2026-06-11): it runs on nodes with
``cloud.google.com/gke-accelerator`` and without ``cloud.google.com/gke-gpu-driver-version`` (the label GKE sets where
it installs the driver itself), so it serves exactly the pools whose driver installation is disabled, and installs the
driver under :data:`GKE_DRA_DRIVER_ROOT` (:data:`SOURCE_GKE_MANUAL_DRIVERS`)."""
COS_NODE_OS = "Container-Optimized OS"
"""The OS of GKE's default node image (``COS_CONTAINERD``), the one :data:`GKE_COS_DRIVER_INSTALLER` serves."""
UBUNTU_NODE_OS = "Ubuntu"
"""The OS of GKE's ``UBUNTU_CONTAINERD`` node image, the one the GPU Operator's own driver supports on GKE."""
GKE_COS_OPERATOR = CloudDriverInstaller(
    manifest=GKE_COS_DRIVER_INSTALLER,
    driver_root=GKE_DRA_DRIVER_ROOT,
    node_os=COS_NODE_OS,
    source=f"{SOURCE_GPU_OPERATOR} (Using the Google Driver Installer)",
)
"""The GPU Operator on Google's driver (NVIDIA's GKE guide, "Using the Google Driver Installer"): GKE's automatic
installation disabled, Google's installer DaemonSet for Container-Optimized OS applied, and the operator installed with
``driver.enabled=false``, ``hostPaths.driverInstallDir`` and ``toolkit.installDir`` ``/home/kubernetes/bin/nvidia``
("On GKE node images, the /home directory is writable and is a stateful location for storing the NVIDIA runtime
binaries"), ``cdi.enabled=true`` and ``cdi.default=true``."""
SOURCE_GPUS = "https://cloud.google.com/compute/docs/gpus"
"""Compute Engine's GPU page: the accelerator type of each GPU model, and the machine types GPUs attach to."""
SOURCE_GKE_TIME_SHARING = "https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus"
"""GKE: "at most 1 nvidia.com/gpu can be requested" per container on time-shared GPU nodes."""
SOURCE_GKE_MPS = "https://cloud.google.com/kubernetes-engine/docs/how-to/nvidia-mps-gpus"
"""GKE: pods on MPS nodes need ``hostIPC: true``."""
SOURCE_FORCE_NEW = (
    "https://github.com/hashicorp/terraform-provider-google/blob/main/google/services/container/"
    "resource_container_node_pool.go, .../node_config.go"
)
"""Schema of ``google_container_node_pool`` and its ``node_config``, which pulumi-gcp's ``container.NodePool``
bridges (``ForceNew: true`` fields)."""

SOURCE_NODE_CHANGES = (
    "https://cloud.google.com/kubernetes-engine/docs/concepts/managing-clusters (Types of changes to a GKE cluster)"
)
"""GKE: changes to a node pool's node configuration are applied by recreating its nodes with the node upgrade
strategy."""
SOURCE_NODE_LABELS = "https://cloud.google.com/kubernetes-engine/docs/how-to/update-existing-nodepools"
"""GKE: Kubernetes node labels and taints (and network tags) of an existing pool are updated without recreating it."""

NODE_POOL_ROLLS = NodeRolls(
    ("nodeConfig", "version"),
    "GKE recreates every node of the pool to apply it, draining each",
    f"{SOURCE_NODE_CHANGES}; {SOURCE_NODE_LABELS}",
    unless=("nodeConfig.labels", "nodeConfig.taints", "nodeConfig.tags"),
)
"""Node pool inputs GKE changes in place by recreating every node: the node configuration (machine type, disk, image
and the rest) and the node version; not the Kubernetes node labels, taints and network tags. The accelerators, spot
and the service account replace the pool (its force-new inputs)."""
NODE_POOL_OPTIONS = ComponentOptions(
    ignore_changes=("initialNodeCount",),
    delete_before_replace=True,
    why="the Cluster Autoscaler owns the size (initialNodeCount only sizes a new pool); a replacement is deleted "
    "first, since it has the same GKE name",
)
"""The options :class:`~gpu_components.gcp.GkeGpuNodePool` registers its node pool with (the example cluster's
system pool takes its ``ignore_changes``)."""

GKE_DRIVER_INSTALLATION_DISABLED = "INSTALLATION_DISABLED"
"""GKE ``gpu_driver_version`` that turns off GKE's driver installation."""
GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
"""GKE node label that keeps GKE's own device plugin off a node; set by the library on GKE pools served by the GPU
Operator (NVIDIA's GKE guide)."""
GKE_TOOLKIT_ENV: Mapping[str, str] = MappingProxyType({"RUNTIME_CONFIG_SOURCE": "file"})
"""Toolkit environment NVIDIA's GKE guide requires on GKE 1.33+ (else the toolkit misconfigures containerd)."""
GKE_CRITICAL_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
"""Priority classes GKE admits outside ``kube-system`` only under a matching ResourceQuota (the operands use
``system-node-critical``)."""
GKE_DRA_KUBELET_PLUGIN_PRIORITY_CLASS = ""
"""The DRA driver chart's ``kubeletPlugin.priorityClassName`` on GKE: none, as GKE's DRA guide installs the chart
(``--set kubeletPlugin.priorityClassName=""``, :data:`SOURCE_GKE_DRA_HELM`). The chart's ``system-node-critical``
is one of :data:`GKE_CRITICAL_PRIORITY_CLASSES`, which GKE admits outside ``kube-system`` only under a matching
ResourceQuota (:func:`gke_resource_quota_spec`, which the GPU Operator's namespace gets)."""
SOURCE_GKE_DRA_HELM = "https://gke-ai-labs.dev/docs/tutorials/dynamic-resource-allocation/gpu-fungibility/"
"""GKE's DRA tutorial installing NVIDIA's DRA driver chart on GKE: ``nvidiaDriverRoot=/home/kubernetes/bin/nvidia/``,
``gpuResourcesEnabledOverride=true``, ``resources.computeDomains.enabled=false``,
``kubeletPlugin.priorityClassName=""`` and a kubelet plugin toleration (``operator: Exists``) "to ensure the driver
can run on tainted GPU nodes"."""
GKE_OPERATOR_POD_QUOTA = 100
"""Most critical-priority pods the quota admits in the operator's namespace (NVIDIA's GKE guide uses 100)."""

TAINT_EFFECTS: Mapping[TaintEffect, str] = MappingProxyType(
    {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}
)
"""Kubernetes taint effect -> GKE API spelling."""
SHARING_STRATEGY_LABEL = "cloud.google.com/gke-gpu-sharing-strategy"
"""Node label GKE sets on shared-GPU nodes: ``time-sharing`` or ``mps``."""
GPU_SHARING_STRATEGIES = frozenset({"TIME_SHARING", "MPS"})
"""GKE ``gpu_sharing_strategy`` values: GPUs shared without memory isolation (:data:`SOURCE_GKE_TIME_SHARING`)."""

NODE_POOL_TYPE = "gcp:container/nodePool:NodePool"
"""Type token of pulumi-gcp's GKE node pool."""


def gke_resource_quota_spec() -> dict[str, Any]:
    """Spec of the ResourceQuota NVIDIA's GKE guide creates in the operator's namespace so that GKE admits its
    ``system-node-critical`` pods there."""
    return {
        "hard": {"pods": str(GKE_OPERATOR_POD_QUOTA)},
        "scopeSelector": {
            "matchExpressions": [
                {"operator": "In", "scopeName": "PriorityClass", "values": list(GKE_CRITICAL_PRIORITY_CLASSES)}
            ]
        },
    }


SOURCE_GKE_NODE_LABELS = "https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus"
"""GKE's GPU node labels, as a GPU node shows them: ``cloud.google.com/gke-accelerator: nvidia-tesla-t4`` (the
accelerator type), ``cloud.google.com/gke-accelerator-count: "1"``, ``cloud.google.com/machine-family``; GKE sets
no GPU memory label."""
SOURCE_SAFE_TO_EVICT = (
    "https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler; "
    "https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md"
)
"""``cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`` on a pod keeps GKE's cluster autoscaler (which also
scales ComputeClass node pools) from removing its node to scale down."""


SOURCE_CUSTOM_CLASSES = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes"
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
"""Node label (and taint key, ``NoSchedule``) of a ComputeClass's nodes, its value the class's name; pods select the
class with it, and a node pool created by hand serves a class with both (:data:`SOURCE_CUSTOM_CLASSES`, "manually
created node pools")."""
SOURCE_COMPUTE_CLASS_SELECTORS = (
    "https://github.com/newrelic/newrelic-prometheus-configurator/issues/472; "
    "https://github.com/GoogleCloudPlatform/kubernetes-engine-samples/pull/1570"
)
"""GKE's admission message for a pod that selects a custom ComputeClass and another node label, quoted in the first
thread: "Key 'kubernetes.io/os' is not allowed with node selector; Custom Compute Classes can only be used along
labels with keys: cloud.google.com/compute-class, topology.kubernetes.io/region, topology.kubernetes.io/zone, ..."
(:data:`COMPUTE_CLASS_SELECTOR_KEYS`); the second removed a ``compute-class`` selector from GKE's own samples because
"specifying both compute-class and machine-family nodeSelectors is incompatible on GKE Standard"."""
COMPUTE_CLASS_SELECTOR_KEYS = (
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "cloud.google.com/gke-accelerator-count",
    "cloud.google.com/gke-tpu-topology",
    "cloud.google.com/gke-tpu-accelerator",
)
"""The node label keys GKE lets a pod select beside ``cloud.google.com/compute-class``, in the order of its message
(:data:`SOURCE_COMPUTE_CLASS_SELECTORS`); GKE rejects a pod that selects any other beside a custom ComputeClass,
``cloud.google.com/gke-accelerator``, ``cloud.google.com/machine-family``, ``cloud.google.com/gke-spot`` and the
pool's own labels included."""


def gke_accelerator(machine_type: str) -> str | None:
    """The ``cloud.google.com/gke-accelerator`` value of a GPU machine type's nodes: its accelerator type
    (``g2-standard-8`` -> ``nvidia-l4``, ``a3-megagpu-8g`` -> ``nvidia-h100-mega-80gb``; catalog, from
    https://cloud.google.com/compute/docs/gpus), or ``None`` for a type the catalog does not list with one."""
    found = catalog.find_instance_type("gcp", machine_type)
    return found.accelerator_type if found is not None else None


_TERRAFORM_GOOGLE = "https://github.com/hashicorp/terraform-provider-google/blob/main/google/services/"
OTHER_FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        "gcp:serviceaccount/account:Account": ForceNewTable(
            ("accountId", "project"), f"{_TERRAFORM_GOOGLE}resourcemanager/resource_google_service_account.go"
        ),
        "gcp:container/cluster:Cluster": ForceNewTable(
            ("name", "location", "project"), f"{_TERRAFORM_GOOGLE}container/resource_container_cluster.go"
        ),
        "gcp:projects/iAMMember:IAMMember": ForceNewTable(
            ("member", "role", "project", "condition"),
            "https://github.com/hashicorp/terraform-provider-google/blob/"
            "main/google/tpgiamresource/resource_iam_member.go",
        ),
    }
)
"""The force-new inputs (``ForceNew`` in the upstream Terraform schemas that pulumi-gcp bridges) of the other
resources the GKE components create: the node service account's id, and each of its project IAM members' member,
role, project and condition; and of the example cluster: its name, location and project."""

FACTS = CloudFacts(
    dra=DraFacts(
        driver_root=GKE_DRA_DRIVER_ROOT,
        node_labels=GKE_DRA_NODE_LABELS,
        source=SOURCE_GKE_DRA,
        driver_installer=GKE_COS_DRIVER_INSTALLER,
        driver_installer_source=SOURCE_GKE_MANUAL_DRIVERS,
        kubelet_plugin_priority_class=GKE_DRA_KUBELET_PLUGIN_PRIORITY_CLASS,
    ),
    provisioners=MappingProxyType(
        {
            "compute-class": ProvisionerFacts(
                source="https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes",
                gpu_name_label="cloud.google.com/gke-accelerator",
                gpu_count_label="cloud.google.com/gke-accelerator-count",
                gpu_memory_label=None,
                do_not_disrupt=("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
                labels_source=f"{SOURCE_GKE_NODE_LABELS}; {SOURCE_SAFE_TO_EVICT}",
                gpu_name_value=gke_accelerator,
                values_source="https://cloud.google.com/compute/docs/gpus (the machine type's accelerator type)",
                requirements_refused="a ComputeClass has no NodePool requirements: it selects GPUs by its priorities' "
                "gpu type and count (priorities[].gpu), which the library derives from the pool's instance types; "
                "narrow the pool by its instance_type, instance_types and instance_families instead",
                requirements_source="https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes",
                unsupported=MappingProxyType(
                    {
                        "startup_taints": "a ComputeClass has no startup taints: its nodePoolConfig.taints stay on "
                        "the nodes, and nothing removes them once an agent is ready",
                        "disruption.termination_grace_period": "a ComputeClass has no node termination grace "
                        "period: GKE drains its nodes by the pods' own grace periods and PodDisruptionBudgets",
                        "disruption.budgets": "a ComputeClass has no disruption budgets: GKE's autoscaler removes "
                        "nodes by its own rules",
                    }
                ),
            )
        }
    ),
    instance_family_separator="-",
    cloud="gcp",
    force_new=OTHER_FORCE_NEW,
    service="GKE",
    pool_name=PoolNameRule(
        re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$"),
        40,
        "1-40 lowercase letters, digits or '-', starting with a letter and not ending with '-'",
        "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools",
    ),
    taint_effects=TAINT_EFFECTS,
    driver=DriverOwnership(
        setting="driver_version",
        defaults=MappingProxyType(
            {"x86_64": GKE_DRIVER_INSTALLATION_DISABLED, "arm64": GKE_DRIVER_INSTALLATION_DISABLED}
        ),
        off=GKE_DRIVER_INSTALLATION_DISABLED,
        owner="GKE driver installation",
        source=SOURCE_GPU_OPERATOR,
        operator_exclusive="NVIDIA's GKE guide requires GKE's driver installation to be disabled under the GPU "
        "Operator (the operator's driver, or Google's driver installer DaemonSet, installs it)",
        operator_driver_needs="Ubuntu node image; false: Google's driver installer on Container-Optimized OS",
    ),
    gpu_operator=GpuOperatorFacts(
        source=SOURCE_GPU_OPERATOR,
        node_labels=MappingProxyType({GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL: "true"}),
        toolkit_env=GKE_TOOLKIT_ENV,
        cdi=True,
        resource_quota=gke_resource_quota_spec,
        driver_installer=GKE_COS_OPERATOR,
        operator_driver_node_os=UBUNTU_NODE_OS,
    ),
    node_pools=(
        NodePoolResource(
            type_token=NODE_POOL_TYPE,
            instance_types="nodeConfig.machineType",
            taints="nodeConfig.taints",
            missing_gpu_taint="",
            accelerators="nodeConfig.guestAccelerators",
            sharing_strategy="gpuSharingConfig.gpuSharingStrategy",
            shared_strategies=GPU_SHARING_STRATEGIES,
            labels="nodeConfig.labels",
            force_new=ForceNewTable(
                (
                    "name",
                    "cluster",
                    "location",
                    "project",
                    "initialNodeCount",
                    "nodeConfig.guestAccelerators",
                    "nodeConfig.guestAccelerators[*].type",
                    "nodeConfig.guestAccelerators[*].count",
                    "nodeConfig.guestAccelerators[*].gpuPartitionSize",
                    "nodeConfig.guestAccelerators[*].gpuSharingConfig",
                    "nodeConfig.guestAccelerators[*].gpuSharingConfig.gpuSharingStrategy",
                    "nodeConfig.guestAccelerators[*].gpuSharingConfig.maxSharedClientsPerGpu",
                    "nodeConfig.guestAccelerators[*].gpuDriverInstallationConfig",
                    "nodeConfig.guestAccelerators[*].gpuDriverInstallationConfig.gpuDriverVersion",
                    "nodeConfig.spot",
                    "nodeConfig.preemptible",
                    "nodeConfig.serviceAccount",
                    "nodeConfig.oauthScopes",
                ),
                SOURCE_FORCE_NEW,
            ),
            rolls=NODE_POOL_ROLLS,
            component=NODE_POOL_OPTIONS,
            bounds=NODE_POOL_BOUNDS,
        ),
    ),
    attached_gpus=True,
    accelerator_type_source=SOURCE_GPUS,
    gpu_taint_source=SOURCE_GKE_GPUS,
    managed_device_plugin=ManagedDevicePlugin(
        max_shared_gpus=1,
        max_shared_gpus_source=SOURCE_GKE_TIME_SHARING,
        mps_host_ipc_source=SOURCE_GKE_MPS,
        sharing_label=SHARING_STRATEGY_LABEL,
    ),
    exclusive_selectors=(
        ExclusiveSelector(
            COMPUTE_CLASS_LABEL,
            COMPUTE_CLASS_SELECTOR_KEYS,
            SOURCE_COMPUTE_CLASS_SELECTORS,
            # Autopilot's built-in GPU class, which pods select beside the GPU selectors (gcp.autopilot).
            exempt=("Accelerator",),
        ),
    ),
)
"""GKE: Standard node pools whose driver and device plugin GKE runs, or, under the GPU Operator, the operator."""
