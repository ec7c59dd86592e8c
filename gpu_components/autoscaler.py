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
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_components.errors import Problem
from gpu_components.nvidia.device_plugin import GPU_RESOURCE


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


LATE_MIG_NOTE = (
    "MIG partitions are made by the GPU Operator's MIG manager after a node joins; until then the node advertises "
    "whole GPUs, not the partitions the Cluster Autoscaler's template counts"
)
"""The note for pools partitioned by NVIDIA's MIG manager (see the module docstring)."""


def joined(*notes: str | None) -> str | None:
    """The notes that are not ``None``, joined with ``"; "``; ``None`` when there are none."""
    present = [note for note in notes if note is not None]
    return "; ".join(present) if present else None
