"""``AksNapGpuNodePool``: a provisioned GPU pool on AKS Node Auto Provisioning (NAP), a ``karpenter.sh/v1``
``NodePool`` and the ``karpenter.azure.com/v1beta1`` ``AKSNodeClass`` it names.

NAP runs Karpenter with Azure's provider for the cluster (``nodeProvisioningProfile.mode: Auto``, see
:mod:`gpu_components.azure.cluster`); it creates a pool's nodes for pending pods that tolerate its taints, within its
limits. Facts and sources:

- NodePool requirements on ``karpenter.azure.com/sku-name`` (VM sizes), ``karpenter.sh/capacity-type``
  (``spot`` / ``on-demand``), ``kubernetes.io/arch`` and ``kubernetes.io/os``; limits; weights
  (:data:`SOURCE_NAP_NODE_POOLS`). Karpenter v1.14's ``limits`` take ``nodes`` beside resources such as
  ``nvidia.com/gpu`` (the NodePool CRD of Azure's provider v1.14.2: "Limits other than limits.nodes is not supported
  when replicas is set").
- AKSNodeClass (:data:`SOURCE_AKS_NODE_CLASS`): ``imageFamily`` (``Ubuntu``, the default, or ``AzureLinux``; "GPUs
  are supported with both image families on compatible VM sizes"), ``osDiskSizeGB`` (default 128, at least 30), and
  ``gpu.mode``: ``Driver`` (the default: AKS installs the NVIDIA driver, and only VM sizes with a managed driver are
  considered) or ``None`` (no driver: for the GPU Operator's), the pool's ``gpu_driver`` ``aks`` / ``none``.
- NAP installs neither the device plugin nor MIG partitions: the provider's bootstrap contract sets
  ``EnableGPUDevicePluginIfNeeded`` and ``MIGNode`` false (:data:`SOURCE_NAP_BOOTSTRAP`) and the AKSNodeClass has
  no ``gpuInstanceProfile``. So the cluster's NVIDIA device plugin DaemonSet or the GPU Operator advertises the GPUs
  (as on agent pools), and MIG is made only by the GPU Operator's MIG manager, which works with a preinstalled
  driver (:data:`SOURCE_MIG_MANAGER`); the pool's ``nvidia.com/mig.config`` label tells it the layout.
- AKS-managed GPUs (:data:`~gpu_components.azure.facts.SOURCE_MANAGED_GPU`): a node class whose ``tags`` carry
  ``EnableManagedGPUExperience: "true"`` puts the tag on its VMs, and AKS's node bootstrap then runs NVIDIA's device
  plugin and DCGM exporter itself (only with AKS's driver): such a pool's GPUs are advertised by AKS (host ``cloud``,
  :func:`nap_device_plugin_host`), never by the library's stack beside it (:func:`managed_gpu_problems`).
- Node OS: ``imageFamily`` is checked as an agent pool's ``osSku`` is
  (:func:`~gpu_components.azure.aks.os_family_problems`).
- Capacity: NAP maps ``spot`` and ``on-demand`` to AKS priorities ``Spot`` and ``Regular`` and knows no other
  capacity type (:data:`SOURCE_NAP_CAPACITY`); ``reserved`` is refused.
- Taints and labels: a node gets its NodeClaim's taints (the NodePool template's), and nothing else; NAP adds no
  spot taint, unlike an agent pool, and labels every node ``kubernetes.azure.com/scalesetpriority`` ``spot`` or
  ``regular`` itself (:data:`SOURCE_NAP_TAINTS`).
- Disruption: ``consolidationPolicy``, ``consolidateAfter`` and ``template.spec.expireAfter`` as Karpenter's; NAP's
  own default NodePool uses ``expireAfter: Never`` (:data:`SOURCE_NAP_NODE_POOLS`), Karpenter's CRD defaults to
  ``720h``.
"""

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components import crd_fields
from gpu_components.adapter import (
    DevicePluginHost,
    GpuStack,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    adopt_view,
    pool_outputs,
    validated_pool,
)
from gpu_components.autoscaler import provisioner_note, uncounted_resource_problems
from gpu_components.azure.aks import (
    device_plugin_host,
    driver_problems,
    managed_gpu_tag,
    managed_gpu_tagged,
    node_labels,
    node_os_family,
    os_family_problems,
    pool_advertised_resources,
)
from gpu_components.azure.facts import (
    DEFAULT_GPU_DRIVER,
    IMAGE_FAMILIES,
    MANAGED_GPU_TAG,
    MAX_OS_DISK_GB,
    MIN_OS_DISK_GB,
    NO_GPU_DRIVER,
    SOURCE_MANAGED_GPU,
)
from gpu_components.azure.options import GpuDriver
from gpu_components.catalog import CpuArchitecture
from gpu_components.enums import GpuDriverArg, GpuStackArg, value_of
from gpu_components.errors import Problem
from gpu_components.gpu_requests import tolerations
from gpu_components.labels import POOL_LABEL
from gpu_components.nodepool import disruption, taint_items, template_disruption
from gpu_components.nvidia.device_plugin import GPU_RESOURCE
from gpu_components.shape import plain
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec

SOURCE_NAP = "https://learn.microsoft.com/azure/aks/node-auto-provisioning"
"""NAP overview: Karpenter-based; not on clusters with the Cluster Autoscaler; managed identity only."""
SOURCE_NAP_NODE_POOLS = "https://learn.microsoft.com/azure/aks/node-auto-provisioning-node-pools"
"""NAP NodePools: SKU selectors and well-known labels, capacity types, limits, the default NodePool."""
SOURCE_AKS_NODE_CLASS = "https://learn.microsoft.com/azure/aks/node-auto-provisioning-aksnodeclass"
"""AKSNodeClass: image families, OS disk size (default 128, minimum 30 GB), ``gpu.mode``."""
SOURCE_NAP_BOOTSTRAP = (
    "https://github.com/Azure/karpenter-provider-azure/blob/main/pkg/providers/imagefamily/bootstrap/staticvalues.go "
    "(MIGNode, EnableGPUDevicePluginIfNeeded: false); designs/0002-gpu-selection-and-bootstrap.md"
)
"""NAP's node bootstrap: no MIG node, no AKS device plugin."""
SOURCE_NAP_CAPACITY = (
    "https://github.com/Azure/karpenter-provider-azure/blob/main/pkg/providers/instance/aksmachineinstanceutils.go "
    f"(capacity types spot and on-demand only); {SOURCE_NAP_NODE_POOLS}"
)
"""Which capacity types NAP offers."""
SOURCE_NAP_TAINTS = (
    "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/providers/instance/"
    "aksmachineinstancehelpers.go "
    "(configureTaints: the NodeClaim's taints only, as node initialization taints, and no node taints); "
    "pkg/providers/imagefamily/bootstrap/aksbootstrap.go (--register-with-taints: the NodeClaim's taints only); "
    "pkg/cloudprovider/cloudprovider.go (scalesetpriority label); https://github.com/Azure/karpenter-provider-azure/"
    "pull/1284 (the label, written on spot nodes only)"
)
"""What taints and priority label NAP puts on its nodes (Karpenter for Azure v1.14.2, the provider NAP runs): a node
gets its NodeClaim's taints through either path, the AKS Machine API or the VM bootstrap, and nothing else. Its
nodes are single VMs or AKS machines, not VM scale set instances, so AKS's
``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` (put on spot scale set node pools) is not among them:
NAP spot pools neither declare nor need a toleration of it (issue 32)."""
SOURCE_MIG_MANAGER = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html "
    "(MIG Manager with preinstalled drivers)"
)
"""The GPU Operator's MIG manager partitions GPUs whose driver the node image installed."""
SOURCE_NODE_OVERLAY = "https://karpenter.sh/docs/concepts/nodeoverlays/"
"""Karpenter's NodeOverlay (v1alpha1, behind the NodeOverlay feature gate)."""

NODE_POOL_API_VERSION = "karpenter.sh/v1"
"""API version of Karpenter's NodePool."""
NODE_CLASS_API_VERSION = "karpenter.azure.com/v1beta1"
"""API version of Azure's AKSNodeClass (the served storage version of the provider's CRD v1.14.2)."""
NODE_CLASS_GROUP = "karpenter.azure.com"
"""API group of AKSNodeClass, as a NodePool's ``nodeClassRef`` names it."""
SKU_NAME_LABEL = "karpenter.azure.com/sku-name"
"""NodePool requirement key of the VM size (SKU)."""
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
"""NodePool requirement key of the capacity type."""
ARCH_LABEL = "kubernetes.io/arch"
"""Well-known node label of the CPU architecture."""
OS_LABEL = "kubernetes.io/os"
"""Well-known node label of the operating system; NAP makes Linux nodes only (no Windows pools)."""
KARPENTER_ARCH: Mapping[CpuArchitecture, str] = {"x86_64": "amd64", "arm64": "arm64"}
"""Catalog CPU architecture -> ``kubernetes.io/arch`` value."""
NAP_CAPACITY_TYPES = ("on-demand", "spot")
"""Capacity types NAP offers (:data:`SOURCE_NAP_CAPACITY`)."""
DEFAULT_IMAGE_FAMILY = "Ubuntu"
"""``imageFamily`` of the node class unless ``node_class_spec`` says otherwise: AKS's default Linux (Ubuntu 24.04 from
Kubernetes 1.34), with NVIDIA GPU support (:data:`SOURCE_AKS_NODE_CLASS`)."""
GPU_MODES: Mapping[str, str] = {"aks": "Driver", "none": "None"}
"""``gpu_driver`` -> AKSNodeClass ``gpu.mode``."""
NODE_CLASS_OWNED_KEYS = ("gpu", "osDiskSizeGB")
"""AKSNodeClass spec keys the library sets (from ``gpu_driver`` and ``pool.disk_size_gb``), refused in
``node_class_spec``."""


class AksNapGpuNodePoolArgs(TypedDict):
    """Inputs of :class:`AksNapGpuNodePool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``azure``, with ``provisioning.provisioner`` ``node-auto-provisioning``."""
    gpu_driver: NotRequired[GpuDriverArg]
    """Who installs the NVIDIA driver on the pool's nodes: ``aks`` (AKSNodeClass ``gpu.mode: Driver``) or ``none``
    (``gpu.mode: None``, for the GPU Operator's driver). Defaults to ``aks``. ``none`` is rejected while the NVIDIA
    device plugin serves the pool."""
    node_class_spec: NotRequired[dict[str, Any]]
    """The escape hatch: more AKSNodeClass ``spec`` fields, in the CRD's camelCase (``imageFamily``, ``vnetSubnetID``,
    ``kubelet``, ``tags``, ...), merged over the library's defaults (``imageFamily: Ubuntu``). Defaults to none.
    ``gpu`` and ``osDiskSizeGB`` are the library's (``gpu_driver``, ``pool.disk_size_gb``) and refused;
    ``imageFamily`` must run NVIDIA GPUs on the pool's VM sizes; ``tags`` is a map of strings, and
    ``EnableManagedGPUExperience: "true"`` there leaves the pool's GPUs to AKS's own device plugin."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto`` (the NVIDIA device plugin DaemonSet). With ``gpu-operator`` the
    pool gets the operator's node labels, its MIG manager among them for a MIG pool. With ``dra`` a pool whose
    ``gpu_access`` is ``dra`` (the default there) gets the label ``gpu-components/gpu-access: dra`` instead."""


def nap_problems(
    spec: GpuNodePoolSpec,
    gpu_driver: object,
    node_class_spec: object,
    path: str = "pool",
    options_path: str = "",
    gpu_stack: GpuStack = "auto",
) -> list[Problem]:
    """NAP rules for a validated provisioned pool and its AKS options.

    - ``reserved`` capacity: NAP offers ``spot`` and ``on-demand`` only.
    - MIG only under the GPU Operator or on a DRA pool (NAP and the device plugin make no partitions; the operator's
      MIG manager does, its label from :func:`~gpu_components.azure.aks.node_labels`), and with
      the ``single`` strategy; no ``time_slicing.rename_by_default``: Karpenter knows an instance type's
      ``nvidia.com/gpu`` count, never a ``nvidia.com/mig-<profile>`` or ``nvidia.com/gpu.shared`` resource, so a pod
      asking for one would never get a node.
    - ``disk_size_gb`` at least 30 (the AKSNodeClass's ``osDiskSizeGB`` minimum).
    - ``gpu_driver none`` only where the GPU Operator brings a driver
      (:func:`~gpu_components.azure.aks.driver_problems`).
    - ``node_class_spec``: a mapping without the library's keys (:data:`NODE_CLASS_OWNED_KEYS`).

    Args:
        path: where the pool sits (``pool``, ``pools[0]``).
        options_path: where the AKS options sit (``""`` for a component's own args, ``pools[0].azure``).
    """

    def at(key: str) -> str:
        return f"{options_path}.{key}" if options_path else key

    provisioning = spec.provisioning
    assert provisioning is not None, "nap_problems takes a provisioned pool"
    problems: list[Problem] = []
    for index, capacity in enumerate(provisioning.capacity_types):
        if capacity not in NAP_CAPACITY_TYPES:
            problems.append(
                Problem(
                    f"{path}.provisioning.capacity_types[{index}]",
                    capacity,
                    "AKS Node Auto Provisioning offers spot and on-demand capacity only (no capacity reservations)",
                    ", ".join(NAP_CAPACITY_TYPES),
                    SOURCE_NAP_CAPACITY,
                )
            )
    mig = spec.mig
    refused_mig = mig is not None and device_plugin_host(spec, gpu_stack) not in ("gpu-operator", "dra-driver")
    if mig is not None and refused_mig:
        problems.append(
            Problem(
                f"{path}.mig",
                mig.given,
                "Node Auto Provisioning makes no MIG partitions (its AKSNodeClass has no gpuInstanceProfile) and the "
                "NVIDIA device plugin makes none either: only the GPU Operator's MIG manager can",
                "gpu_stack gpu-operator, or a fixed pool (no provisioning) with AKS's gpuInstanceProfile",
                SOURCE_NAP_BOOTSTRAP,
            )
        )
    problems += uncounted_resource_problems(spec, path, mig=not refused_mig)
    if spec.disk_size_gb < MIN_OS_DISK_GB:
        problems.append(
            Problem(
                f"{path}.disk_size_gb",
                spec.disk_size_gb,
                f"an AKSNodeClass's osDiskSizeGB is at least {MIN_OS_DISK_GB} GB",
                f"{MIN_OS_DISK_GB}..{MAX_OS_DISK_GB}",
                SOURCE_AKS_NODE_CLASS,
            )
        )
    driver = value_of(gpu_driver) if isinstance(gpu_driver, str) else None
    problems += driver_problems(spec, driver, at("gpu_driver"), gpu_stack)
    problems += node_class_spec_problems(node_class_spec, at("node_class_spec"))
    if isinstance(node_class_spec, Mapping):
        problems += os_family_problems(
            spec,
            node_class_spec.get("imageFamily"),
            IMAGE_FAMILIES,
            at("node_class_spec.imageFamily"),
            "an AKSNodeClass imageFamily",
            SOURCE_AKS_NODE_CLASS,
        )
    problems += managed_gpu_problems(spec, driver, node_class_spec, at("node_class_spec.tags"), gpu_stack)
    return problems


def managed_gpu(node_class_spec: object) -> bool:
    """Whether the node class's ``tags``, which it puts on its VMs, turn on AKS's managed GPU experience
    (:func:`~gpu_components.azure.aks.managed_gpu_tagged`)."""
    return isinstance(node_class_spec, Mapping) and managed_gpu_tagged(node_class_spec.get("tags"))


def nap_device_plugin_host(
    spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto", node_class_spec: object = None
) -> DevicePluginHost:
    """Who advertises a NAP pool's GPUs: AKS itself (``cloud``) when its node class is tagged for AKS's managed GPU
    experience (:func:`managed_gpu`), else as on an agent pool
    (:func:`~gpu_components.azure.aks.device_plugin_host`)."""
    return "cloud" if managed_gpu(node_class_spec) else device_plugin_host(spec, gpu_stack)


def managed_gpu_problems(
    spec: GpuNodePoolSpec, gpu_driver: str | None, node_class_spec: object, path: str, gpu_stack: GpuStack = "auto"
) -> list[Problem]:
    """Problems of a node class tagged for AKS's managed GPU experience (:func:`managed_gpu`), where AKS runs NVIDIA's
    device plugin on each node itself: with ``gpu_driver none`` (AKS starts it only with its own driver), beside the
    GPU Operator's or NVIDIA's DRA driver (two advertisers on a node), or with time-slicing or MPS (AKS's plugin gets
    no sharing config from the library)."""
    name = managed_gpu_tag(node_class_spec.get("tags")) if isinstance(node_class_spec, Mapping) else None
    if name is None or not isinstance(node_class_spec, Mapping):
        return []
    where = f"{path}[{name!r}]"
    tagged = f"{MANAGED_GPU_TAG}=true makes AKS run NVIDIA's device plugin on the pool's nodes"
    if gpu_driver == NO_GPU_DRIVER:
        return [
            Problem(
                where,
                node_class_spec["tags"][name],
                f"{tagged} only where AKS installs the driver; with gpu_driver none it does nothing",
                "gpu_driver aks, or no such tag",
                SOURCE_MANAGED_GPU,
            )
        ]
    host = device_plugin_host(spec, gpu_stack)
    if host in ("gpu-operator", "dra-driver"):
        other = "the GPU Operator's device plugin" if host == "gpu-operator" else "NVIDIA's DRA driver"
        return [
            Problem(
                where,
                node_class_spec["tags"][name],
                f"{tagged}, and {other} would advertise the same GPUs: two advertisers on one node",
                "no such tag (the library's GPU stack advertises), or gpu_stack auto with gpu_access device-plugin",
                SOURCE_MANAGED_GPU,
            )
        ]
    if spec.sharing is not None:
        return [
            Problem(
                where,
                node_class_spec["tags"][name],
                f"{tagged}, which gets no time-slicing or MPS config from the library: the pool's sharing would be "
                "silently lost",
                "no such tag, or no time_slicing/mps",
                SOURCE_MANAGED_GPU,
            )
        ]
    return []


def node_class_spec_problems(node_class_spec: object, path: str = "node_class_spec") -> list[Problem]:
    """Problems of ``node_class_spec``: not a mapping, a key the library sets (:data:`NODE_CLASS_OWNED_KEYS`),
    ``tags`` that are not a mapping of tag names to strings (:func:`tags_problems`), or a key at a path the
    AKSNodeClass CRD does not have (:func:`~gpu_components.crd_fields.unknown_field_problems`)."""
    if node_class_spec is None:
        return []
    if not isinstance(node_class_spec, Mapping):
        return [Problem(path, node_class_spec, "must be a mapping of AKSNodeClass spec fields")]
    unowned = {key: value for key, value in node_class_spec.items() if key not in NODE_CLASS_OWNED_KEYS}
    return (
        tags_problems(node_class_spec.get("tags"), f"{path}.tags")
        + [
            Problem(
                f"{path}.{key}",
                node_class_spec[key],
                "set by gpu_components: gpu.mode from gpu_driver, osDiskSizeGB from the pool's disk_size_gb",
                "gpu_driver, pool.disk_size_gb",
            )
            for key in NODE_CLASS_OWNED_KEYS
            if key in node_class_spec
        ]
        + crd_fields.unknown_field_problems(unowned, "AKSNodeClass", path, NODE_CLASS_OWNED_KEYS)
    )


def tags_problems(tags: object, path: str = "node_class_spec.tags") -> list[Problem]:
    """Problems of an AKSNodeClass's ``tags``: a map of tag name to string value (the CRD's ``spec.tags``:
    ``additionalProperties: {type: string}``), so neither a string such as ``"a=b"`` nor a non-string value."""
    if tags is None:
        return []
    if not isinstance(tags, Mapping):
        return [
            Problem(
                path,
                tags,
                "AKSNodeClass tags are a map of tag name to string value, not a string or list",
                f"a mapping such as {{{MANAGED_GPU_TAG}: 'true'}}",
                SOURCE_AKS_NODE_CLASS,
            )
        ]
    return [
        Problem(f"{path}[{key!r}]", value, "an AKSNodeClass tag value is a string", "a string", SOURCE_AKS_NODE_CLASS)
        for key, value in tags.items()
        if not isinstance(value, str)
    ]


SOURCE_KARPENTER_DRA = "https://karpenter.sh/docs/tasks/dra/"
NAP_DRA_NOTE = (
    "pods get this pool's GPUs through resource claims, and Karpenter launches nodes for resource claims only with its "
    "DRA support (alpha, Helm setting settings.enableDRA), which AKS does not document for Node Auto Provisioning"
)
"""The autoscaler note of a Node Auto Provisioning pool under DRA (:data:`SOURCE_KARPENTER_DRA`)."""


def nap_pool_view(
    spec: GpuNodePoolSpec,
    gpu_driver: GpuDriver | None = None,
    gpu_stack: GpuStack = "auto",
    node_class_spec: Mapping[str, Any] | None = None,
) -> PoolView:
    """What an :class:`AksNapGpuNodePool` of the pool exposes, without creating it: who advertises its GPUs (as on an
    agent pool: the device plugin DaemonSet or the GPU Operator; AKS itself, ``cloud``, when ``node_class_spec``'s
    tags turn on its managed GPU experience, :func:`nap_device_plugin_host`), the OS family of its ``imageFamily``
    (``node_os``), the NodePool template's labels
    (:func:`~gpu_components.azure.aks.node_labels` for NAP) and taints (the pool's own: NAP adds none), the node
    selector (the pool label), what Karpenter cannot count (:func:`~gpu_components.autoscaler.provisioner_note`),
    and ``driver_setting``: ``gpu_driver`` (``None``: the default, ``aks``)."""
    host = nap_device_plugin_host(spec, gpu_stack, node_class_spec)
    return PoolView(
        spec=spec,
        device_plugin_host=host,
        labels=node_labels(spec, gpu_stack, agent_pool=False, gpu_driver=gpu_driver, host=host),
        taints=spec.taints,
        advertised_resources=pool_advertised_resources(spec, gpu_stack),
        node_selector={POOL_LABEL: spec.name},
        autoscaler_note=NAP_DRA_NOTE if host == "dra-driver" else provisioner_note(spec, host),
        tolerations=tolerations(spec.taints),
        driver_setting=gpu_driver if gpu_driver is not None else DEFAULT_GPU_DRIVER,
        driver_setting_set=gpu_driver is not None,
        node_os=node_os_family((node_class_spec or {}).get("imageFamily"), IMAGE_FAMILIES),
    )


def node_class(
    spec: GpuNodePoolSpec, gpu_driver: GpuDriver = DEFAULT_GPU_DRIVER, node_class_spec: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The pool's AKSNodeClass (a whole custom resource; metadata name: the pool's): ``imageFamily``
    (:data:`DEFAULT_IMAGE_FAMILY` unless ``node_class_spec`` gives one), ``node_class_spec``'s other fields,
    ``osDiskSizeGB`` = ``disk_size_gb`` and ``gpu.mode`` from ``gpu_driver``."""
    return {
        "apiVersion": NODE_CLASS_API_VERSION,
        "kind": "AKSNodeClass",
        "metadata": {"name": spec.name},
        "spec": {
            "imageFamily": DEFAULT_IMAGE_FAMILY,
            **(node_class_spec or {}),
            "osDiskSizeGB": spec.disk_size_gb,
            "gpu": {"mode": GPU_MODES[gpu_driver]},
        },
    }


def node_pool(
    spec: GpuNodePoolSpec,
    gpu_stack: GpuStack = "auto",
    gpu_driver: GpuDriver | None = None,
    host: DevicePluginHost | None = None,
) -> dict[str, Any]:
    """The pool's Karpenter NodePool (a whole custom resource; metadata name: the pool's).

    ``template.metadata.labels``: :func:`nap_pool_view`'s labels; ``template.spec``: the pool's taints, the node class
    of the same name, requirements (VM sizes on ``karpenter.azure.com/sku-name``, the pool's GPU requirements on
    ``karpenter.azure.com/sku-gpu-*`` as given, capacity types, architecture, Linux)
    and ``startupTaints``, ``expireAfter``, ``terminationGracePeriod`` when given
    (:func:`~gpu_components.nodepool.template_disruption`); ``limits``: ``nvidia.com/gpu`` (the VM sizes' physical
    GPUs) from ``max_gpus`` and ``nodes`` from ``max_nodes``, each when given; ``disruption``:
    :func:`~gpu_components.nodepool.disruption` (``consolidationPolicy``, ``consolidateAfter``, ``budgets``).
    ``host``: who advertises the pool's GPUs (``None``: as :func:`~gpu_components.azure.aks.device_plugin_host`
    says; ``cloud`` for AKS's managed GPU experience).
    """
    provisioning = spec.provisioning
    assert provisioning is not None, "node_pool takes a provisioned pool"
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": NODE_CLASS_GROUP, "kind": "AKSNodeClass", "name": spec.name},
        "requirements": [
            {"key": SKU_NAME_LABEL, "operator": "In", "values": list(provisioning.allowed_types)},
            *(requirement.to_node_selector() for requirement in provisioning.gpu_requirements),
            {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": list(provisioning.capacity_types)},
            {"key": ARCH_LABEL, "operator": "In", "values": [KARPENTER_ARCH[spec.cpu_architecture]]},
            {"key": OS_LABEL, "operator": "In", "values": ["linux"]},
        ],
        "taints": taint_items(spec.taints),
        **template_disruption(provisioning),
    }
    limits: dict[str, str] = {}
    if provisioning.max_gpus is not None:
        limits[GPU_RESOURCE] = str(provisioning.max_gpus)
    if provisioning.max_nodes is not None:
        limits["nodes"] = str(provisioning.max_nodes)
    return {
        "apiVersion": NODE_POOL_API_VERSION,
        "kind": "NodePool",
        "metadata": {"name": spec.name},
        "spec": {
            "template": {
                "metadata": {
                    "labels": node_labels(spec, gpu_stack, agent_pool=False, gpu_driver=gpu_driver, host=host)
                },
                "spec": template_spec,
            },
            "limits": limits,
            "disruption": disruption(provisioning),
        },
    }


class AksNapGpuNodePool(pulumi.ComponentResource):
    """A provisioned GPU pool on AKS Node Auto Provisioning: a Karpenter ``NodePool`` and its ``AKSNodeClass``, both
    named after the pool, through the ``kubernetes`` provider (``opts.providers``) of a cluster with NAP on.

    Children: ``<name>-node-class`` (AKSNodeClass), ``<name>-node-pool`` (NodePool, after the node class). NAP
    creates the nodes for pending pods that tolerate the pool's taints; the cluster's NVIDIA device plugin or GPU
    Operator (``device_plugin_host``) advertises their GPUs, as on an agent pool.

    Outputs: ``node_pool_name``, ``node_class_name``, ``pool_name``, ``labels``, ``taints``, ``tolerations``,
    ``node_selector``, ``advertised_resources``, ``dra_devices``, ``device_plugin_host``, ``autoscaler_note`` (plain
    values). Other attributes: ``spec``, ``gpu_driver``, ``gpu_stack``, ``node_pool`` and ``node_class`` (the custom
    resources), ``served_by``.

    Raises:
        GpuSpecError: invalid pool, a fixed pool (no ``provisioning``), reserved capacity, MIG without the GPU
            Operator or with the ``mixed`` strategy, a disk under 30 GB, no driver for the device plugin,
            ``node_class_spec`` keys the library owns, an ``imageFamily`` without NVIDIA GPU support on the pool's VM
            sizes, ``tags`` that are not a map of strings, AKS's managed GPU tag where it would not advertise alone
            (:func:`nap_problems`).
    """

    node_pool_name: str
    """Name of the NodePool (and of the AKSNodeClass): the pool's name."""
    node_class_name: str
    """Name of the AKSNodeClass: the pool's name."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the NodePool template gives the pool's nodes: the user's, ``gpu-components/pool``, the labels
    that select the device plugin's or GPU Operator's config (the MIG manager's layout among them), and
    ``gpu-components/sharing`` for trusted sharing. NAP adds its own (``karpenter.azure.com/sku-*``,
    ``kubernetes.azure.com/scalesetpriority``)."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling): the NodePool template's, the default GPU taint first when
    on; NAP adds none, spot nodes included."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>``."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node of the pool's first VM size advertises."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``daemonset`` (``NvidiaDevicePlugin``), ``gpu-operator``
    (``NvidiaGpuOperator``), ``dra-driver`` (NVIDIA's DRA driver: ``gpu_access`` ``dra``), or ``cloud`` (AKS's own
    plugin, for a node class tagged ``EnableManagedGPUExperience: "true"``); NAP runs none otherwise."""
    autoscaler_note: str | None
    """What Karpenter cannot count when it creates the pool's nodes (shared or MIG devices), or null."""

    def __init__(self, name: str, args: AksNapGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto")) if isinstance(args, Mapping) else "auto"
        spec = validated_pool(
            AksNapGpuNodePoolArgs,
            args,
            "azure",
            lambda spec: _fixed_pool_problems(spec)
            or nap_problems(spec, args.get("gpu_driver"), args.get("node_class_spec"), "pool", "", gpu_stack),
            spellings={"gpu_driver": {cloud: ours for ours, cloud in GPU_MODES.items()}},
        )
        super().__init__("gpu-components:index:AksNapGpuNodePool", name, None, opts)
        self.gpu_driver: GpuDriver = value_of(args.get("gpu_driver", DEFAULT_GPU_DRIVER))
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        self.node_pool_name = spec.name
        self.node_class_name = spec.name
        self.gpu_stack: GpuStack = gpu_stack
        adopt_view(self, nap_pool_view(spec, self.gpu_driver, gpu_stack, args.get("node_class_spec")))
        self.node_class = _custom_resource(
            f"{name}-node-class",
            node_class(spec, self.gpu_driver, args.get("node_class_spec")),
            pulumi.ResourceOptions(parent=self),
        )
        self.node_pool = _custom_resource(
            f"{name}-node-pool",
            node_pool(spec, gpu_stack, self.gpu_driver, self.device_plugin_host),
            pulumi.ResourceOptions(parent=self, depends_on=[self.node_class]),
        )
        self.register_outputs(
            {"nodePoolName": self.node_pool_name, "nodeClassName": self.node_class_name, **pool_outputs(self)}
        )


def _custom_resource(
    name: str, resource: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> k8s.apiextensions.CustomResource:
    return k8s.apiextensions.CustomResource(
        name,
        api_version=resource["apiVersion"],
        kind=resource["kind"],
        metadata=resource["metadata"],
        spec=resource["spec"],
        opts=opts,
    )


def _fixed_pool_problems(spec: GpuNodePoolSpec) -> list[Problem]:
    """A fixed pool given to :class:`AksNapGpuNodePool`."""
    if spec.provisioning is not None:
        return []
    return [
        Problem(
            "pool.provisioning",
            None,
            "AksNapGpuNodePool makes a pool that Node Auto Provisioning creates nodes for: give provisioning with "
            "provisioner node-auto-provisioning (a fixed pool is an AksGpuNodePool)",
        )
    ]
