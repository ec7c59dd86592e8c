"""What the Kubernetes Cluster Autoscaler cannot know about a GPU pool's nodes, as notes the plan can show (pure).

To scale a pool up from zero the autoscaler builds a template node for it from what the cloud tells it (EKS:
Auto Scaling group and node group tags; AKS: the agent pool and its scale set's tags; GKE: the node pool's own
settings; each cloud package says which, and sets them). Two things no template can say:

- **Only ``nvidia.com/gpu`` counts as a GPU.** The autoscaler waits for a new GPU node's device plugin only for
  that resource: a node labelled as a GPU node whose ``nvidia.com/gpu`` is still zero is treated as not ready yet
  (``GpuCustomResourcesProcessor`` in ``processors/customresources/gpu_processor.go``, and ``GPULabel`` of each
  cloud provider). A node that advertises other names (MIG devices under the ``mixed`` strategy, time-sliced
  replicas renamed ``<resource>.shared``) looks ready before its device plugin has advertised anything, so pods
  that will fit on it still look unschedulable and the autoscaler may add more nodes; the AWS provider's README
  describes this over-scaling ("Special note on GPU instances").
- **Partitions made after the node joins.** NVIDIA's MIG manager (GPU Operator) partitions GPUs on a running
  node: it first advertises whole GPUs, so until the MIG manager is done the autoscaler sees fewer, larger
  devices than the template promised.

Sources: https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/processors/customresources/gpu_processor.go,
https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md

A provisioned pool (``provisioning``) is scaled by its provisioner instead; :func:`provisioner_note` says what a
Karpenter-based one (Karpenter, EKS Auto Mode, AKS Node Auto Provisioning) cannot count: it plans nodes from each
instance type's ``nvidia.com/gpu`` count, so time-slicing replicas, MPS clients and MIG devices are unknown to it
(:data:`SOURCE_PROVISIONER_GPU_COUNT`).
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_components.adapter import DevicePluginHost
from gpu_components.cloud_facts import facts_for
from gpu_components.errors import Problem
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, advertised_resources
from gpu_components.spec import GpuNodePoolSpec, Mps, TimeSlicing

SOURCE_PROVISIONER_GPU_COUNT = (
    "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-time-slicing.html "
    "(Karpenter counts each nvidia.com/gpu request as a physical GPU even when time-slicing is enabled); "
    "https://github.com/kubernetes-sigs/karpenter/issues/2140; "
    "https://karpenter.sh/docs/concepts/nodeoverlays/ (NodeOverlay spec.capacity adds extended resources to "
    "instance types in the scheduling simulation; alpha, NodeOverlay feature gate)"
)
"""What a Karpenter-based provisioner knows of a node's GPUs when it scales, and what can tell it more."""


def owned_tag_problems(
    tags: object, prefix: str, reason: str, valid: str, source: str, *, ignore_case: bool = False, path: str = "tags"
) -> list[Problem]:
    """Problems with a node pool's cloud ``tags`` whose keys fall under ``prefix``, the autoscaler's node-template
    tags that the library sets itself (``reason`` says why one given by hand is wrong). ``ignore_case``: the cloud
    compares tag names case-insensitively (Azure). Anything but a mapping has none here (the shape check reports
    it)."""
    if not isinstance(tags, Mapping):
        return []

    def owned(key: str) -> bool:
        return key.lower().startswith(prefix.lower()) if ignore_case else key.startswith(prefix)

    return [
        Problem(f"{path}[{key!r}]", value, reason, valid, source)
        for key, value in tags.items()
        if isinstance(key, str) and owned(key)
    ]


def gpu_resource_note(advertised: Mapping[str, int]) -> str | None:
    """A note when a node advertises no ``nvidia.com/gpu`` (see the module docstring), else ``None``.

    Args:
        advertised: resource name -> count one node advertises.
    """
    if advertised.get(GPU_RESOURCE, 0) > 0:
        return None
    return (
        f"nodes advertise {', '.join(sorted(advertised))} and no {GPU_RESOURCE}, the only GPU resource "
        "the Cluster Autoscaler waits for on a new node: it may add nodes for pods a starting node will hold"
    )


def autoscaled_pool_warning(advertised: Mapping[str, int], min_nodes: int, max_nodes: int) -> str | None:
    """The warning for a fixed pool the Cluster Autoscaler scales (``min_nodes`` below ``max_nodes``) whose nodes
    advertise no ``nvidia.com/gpu`` (MIG ``mixed`` devices, renamed shared GPUs): :func:`gpu_resource_note`, or
    ``None``. ``gpu-components plan`` prints it on stderr (the exit code unchanged); the policy pack's
    ``gpu-pool-autoscaler-resources`` reports the same note as an advisory violation.

    Args:
        advertised: resource name -> count one node advertises.
        min_nodes, max_nodes: the pool's size bounds.
    """
    if min_nodes >= max_nodes or not advertised:
        return None
    return gpu_resource_note(advertised)


LATE_MIG_NOTE = (
    "MIG partitions are made by the GPU Operator's MIG manager after a node joins; until then the node advertises "
    "whole GPUs, not the partitions the Cluster Autoscaler's template counts"
)
"""The note for pools partitioned by NVIDIA's MIG manager (see the module docstring)."""


def joined(*notes: str | None) -> str | None:
    """The notes that are not ``None``, joined with ``"; "``; ``None`` when there are none."""
    present = [note for note in notes if note is not None]
    return "; ".join(present) if present else None


def uncounted_resource_problems(spec: GpuNodePoolSpec, path: str = "pool", *, mig: bool = True) -> list[Problem]:
    """Problems of a provisioned pool whose nodes would advertise a GPU resource its provisioner never launches a
    node for: a Karpenter-based provisioner
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.counts_whole_gpus`) sizes nodes by each instance type's
    ``nvidia.com/gpu`` count and knows no ``nvidia.com/mig-<profile>`` (MIG ``mixed`` strategy) or
    ``nvidia.com/gpu.shared`` (``time_slicing.rename_by_default``) resource (:data:`SOURCE_PROVISIONER_GPU_COUNT`):
    a pod requesting one would stay pending. The one rule for Karpenter and AKS Node Auto Provisioning.

    Args:
        spec: the validated pool (a fixed pool, or another provisioner's, has none).
        path: where the pool sits (``pool``, ``pools[0]``, ``""`` for a component's own args).
        mig: check the MIG strategy (off where the caller refuses the pool's MIG for another reason).
    """
    if spec.provisioning is None:
        return []
    facts = facts_for(spec.cloud).provisioners.get(spec.provisioning.provisioner)
    if facts is None or not facts.counts_whole_gpus:
        return []
    prefix = f"{path}." if path else ""
    problems: list[Problem] = []
    if mig and spec.mig is not None and spec.mig.strategy != "single":
        problems.append(
            Problem(
                f"{prefix}mig.strategy",
                spec.mig.strategy,
                _uncounted(spec, "nvidia.com/mig-<profile>"),
                "single",
                SOURCE_PROVISIONER_GPU_COUNT,
            )
        )
    if isinstance(spec.sharing, TimeSlicing) and spec.sharing.rename_by_default:
        problems.append(
            Problem(
                f"{prefix}time_slicing.rename_by_default",
                True,
                _uncounted(spec, f"{GPU_RESOURCE}.shared"),
                "false",
                SOURCE_PROVISIONER_GPU_COUNT,
            )
        )
    return problems


def _uncounted(spec: GpuNodePoolSpec, resource: str) -> str:
    provisioner = spec.provisioning.provisioner if spec.provisioning is not None else "the provisioner"
    return (
        f"{provisioner}, a Karpenter-based provisioner, sizes a node by its instance type's {GPU_RESOURCE} count and "
        f"knows no {resource} resource: a pod requesting one would stay pending, with no node created for it"
    )


def provisioner_note(spec: GpuNodePoolSpec, device_plugin_host: DevicePluginHost) -> str | None:
    """What a provisioned pool's provisioner cannot count when it creates nodes, or ``None`` (a fixed pool, a
    provisioner that plans nodes otherwise, or nodes that advertise exactly their GPUs as ``nvidia.com/gpu``).

    A Karpenter-based provisioner (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.counts_whole_gpus`) plans
    each node from the instance type's GPU count (:data:`SOURCE_PROVISIONER_GPU_COUNT`):

    nodes advertising ``nvidia.com/gpu`` replicas (time-slicing, MPS) or MIG devices (single strategy): it counts
    each requested unit as a whole GPU, so it may create more nodes than the pending pods need (consolidation
    removes the empty ones later). Nodes advertising other names (renamed time-slicing, MIG ``mixed``) are refused
    on such pools (:func:`uncounted_resource_problems`).

    Args:
        spec: the validated pool.
        device_plugin_host: who advertises its GPUs (``cloud``: what the cloud's own plugin advertises, whole GPUs
            unless the cloud shares them, which the provisioned pool components refuse where the cloud does).
    """
    if spec.provisioning is None:
        return None
    facts = facts_for(spec.cloud).provisioners.get(spec.provisioning.provisioner)
    if facts is None or not facts.counts_whole_gpus:
        return None
    advertised = advertised_resources(spec) if device_plugin_host != "cloud" else {GPU_RESOURCE: spec.gpu_count}
    provisioner = spec.provisioning.provisioner
    per_node = advertised.get(GPU_RESOURCE, 0)
    if per_node <= spec.gpu_count:
        return None
    device = "MIG device" if spec.mig is not None else "GPU"
    if isinstance(spec.sharing, TimeSlicing):
        why = f"time-slicing, {spec.sharing.replicas} replicas per {device}"
    elif isinstance(spec.sharing, Mps):
        why = f"MPS, {spec.sharing.replicas} clients per {device}"
    else:
        why = "MIG devices"
    return (
        f"{provisioner} counts each {GPU_RESOURCE} request as a whole GPU of the instance type ({spec.gpu_count} per "
        f"{spec.instance_type} node) while a node advertises {per_node} ({why}): it may create up to "
        f"{per_node // spec.gpu_count} times the nodes pending pods need; the empty ones are consolidated later"
    )
