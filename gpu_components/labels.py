"""The Kubernetes names the library puts on nodes and pods: node labels, the GPU taint, the pod-side toleration shape.

The lowest floor of the package with :mod:`gpu_components.enums`: the cloud facts, the spec's rules, the renderers and
the workload helpers all read these names, so they live below all of them (design notes, "Layers").
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from typing_extensions import NotRequired, TypedDict

from gpu_components.enums import TaintEffectName

SOURCE_LABELS = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"
SOURCE_TAINTS = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"

POST_BOOT_LABEL_PREFIXES: Mapping[str, str] = MappingProxyType(
    {
        "nvidia.com/": "NVIDIA's GPU feature discovery",
        "feature.node.kubernetes.io/": "Node Feature Discovery",
    }
)
"""Node label prefixes whose labels a node gets only after it boots, from a DaemonSet that inspects it (prefix ->
who sets them), so a provisioner cannot choose an instance type by them (:data:`SOURCE_POST_BOOT_LABELS`)."""
SOURCE_POST_BOOT_LABELS = (
    "https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0 (GPU feature discovery labels nodes nvidia.com/gpu.*); "
    "https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/features.html "
    "(feature.node.kubernetes.io/*); https://karpenter.sh/docs/concepts/scheduling/#well-known-labels (the labels "
    "Karpenter knows of an instance type before it launches it)"
)

GPU_TAINT_KEY = "nvidia.com/gpu"
"""Key of the default GPU taint: the key the NVIDIA device plugin chart and GKE use."""
GPU_TAINT_VALUE = "present"
"""Value of the default GPU taint, the value GKE puts on its GPU pools (so all three clouds agree)."""
GPU_TAINT_EFFECT: TaintEffectName = "NoSchedule"
"""Effect of the default GPU taint: pods without a matching toleration are not scheduled on GPU nodes."""

SYSTEM_ROLE_LABEL = "gpu-components/role"
"""Node label (value ``system``) of the example clusters' non-GPU system pools."""
POOL_LABEL = "gpu-components/pool"
"""Node label every pool's nodes carry, valued with the pool name, so workloads can select a pool."""
GPU_ACCESS_LABEL = "gpu-components/gpu-access"
"""Node label (value ``dra``) of the pools whose GPUs NVIDIA's DRA driver publishes (``gpu_access: dra``), so
selectors, the policy pack and people tell them from device-plugin pools, which carry no such label."""
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
"""Node label that selects a named entry of the device plugin's config (NVIDIA device plugin, v0.20.0)."""
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
"""Node label the device plugin chart's default node affinity accepts instead of NFD's PCI label."""
MPS_CAPABLE_LABEL = "nvidia.com/mps.capable"
"""Node label (value ``"true"``) on which the NVIDIA device plugin chart v0.20.0 schedules its MPS control daemon
(``templates/daemonset-mps-control-daemon.yml``, ``nodeSelector``); the GPU Operator v26.7.0's MPS control daemon
selects it too (``assets/state-mps-control-daemon/0400_daemonset.yaml``). GPU feature discovery sets it on nodes whose
device plugin config shares GPUs by MPS (k8s-device-plugin v0.20.0 ``internal/lm/nvml.go``,
``newSharingLabeler``); where GPU feature discovery does not run, the library sets it on its MPS pools."""
OPERAND_LABEL_PREFIX = "nvidia.com/gpu.deploy."
"""Prefix of the GPU Operator's per-node operand switches (``nvidia.com/gpu.deploy.device-plugin=false``)."""
SHARING_TRUST_KEY = "gpu-components/sharing"
"""Node label (and ConfigMap label, annotation or launch template tag) that marks GPU sharing without memory isolation
(time-slicing, MPS) as serving workloads that trust each other; the policy rule ``gpu-shared-pool-trust`` reads it.
A pool gets it from ``time_slicing.trusted`` / ``mps.trusted`` (:func:`~gpu_components.spec.sharing_trust_labels`)."""
SHARING_TRUSTED = "trusted"
"""The value of :data:`SHARING_TRUST_KEY` that marks trust."""
SHARING_TRUSTED_ENTRIES_KEY = "gpu-components/sharing-trusted-entries"
"""Annotation of a device plugin config ConfigMap: the comma-separated names of its entries whose sharing is trusted
(one ConfigMap holds the entries of several pools, some trusted and some not; a ConfigMap-wide
:data:`SHARING_TRUST_KEY` label or annotation would mark them all)."""
RESERVED_LABELS = frozenset(
    {
        POOL_LABEL,
        GPU_ACCESS_LABEL,
        DEVICE_PLUGIN_CONFIG_LABEL,
        GPU_PRESENT_LABEL,
        MPS_CAPABLE_LABEL,
        "nvidia.com/mig.config",
        SHARING_TRUST_KEY,
    }
)
"""Node labels the library sets itself on every cloud; a user label may not set them, nor those it sets for a
cloud's GPU Operator (:func:`~gpu_components.spec.reserved_labels`)."""
RESERVED_LIBRARY_LABEL_PREFIXES = (OPERAND_LABEL_PREFIX,)
"""Label prefixes the library sets itself (the GPU Operator's operand switches decide which NVIDIA DaemonSets run
on a pool, so a user label could put a second device plugin on a node or keep the only one off)."""
RESERVED_LABEL_PREFIXES = ("kubernetes.io/", "k8s.io/")
"""Label prefixes reserved for Kubernetes core components (Kubernetes labels documentation)."""


class Toleration(TypedDict):
    """A pod toleration in Kubernetes spelling: ``Equal`` with a value, or ``Exists`` without one
    (:data:`SOURCE_TAINTS`)."""

    key: str
    operator: Literal["Equal", "Exists"]
    value: NotRequired[str]
    effect: TaintEffectName
