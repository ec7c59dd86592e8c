"""gpu_components: GPU node pools on Kubernetes that are right the first time, on EKS (AKS and GKE to come).

Public API:
- Pool description and validation: :class:`GpuNodePoolArgs` (input shape), :class:`GpuNodePoolSpec` (validated),
  :class:`Taint`, :class:`TimeSlicing`, :class:`Mps`, :class:`Mig`, :class:`GpuSpecError` / :class:`Problem`.
- GPU knowledge: :mod:`gpu_components.catalog`.
- Components: :class:`GpuCluster` (pools + add-ons of one cluster), :mod:`gpu_components.aws`
  (``EksGpuNodeGroup``), :mod:`gpu_components.kubernetes` (``NvidiaDevicePlugin``).
- Pod-side helpers: :mod:`gpu_components.workloads`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_components import catalog
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import (
    DEFAULT_GPU_TAINT,
    GpuNodePoolArgs,
    GpuNodePoolSpec,
    Mig,
    MigArgs,
    Mps,
    MpsArgs,
    Taint,
    TaintArgs,
    TimeSlicing,
    TimeSlicingArgs,
)

if TYPE_CHECKING:
    from gpu_components.cluster import ClusterPoolArgs, GpuCluster, GpuClusterArgs, GpuOperatorSettingsArgs, GpuStack

_CLUSTER_NAMES = frozenset({"ClusterPoolArgs", "GpuCluster", "GpuClusterArgs", "GpuOperatorSettingsArgs", "GpuStack"})


def __getattr__(name: str) -> Any:
    """Import the cross-cloud composition (and with it every cloud SDK) only when it is used."""
    if name in _CLUSTER_NAMES:
        from gpu_components import cluster

        return getattr(cluster, name)
    raise AttributeError(f"module 'gpu_components' has no attribute {name!r}")


__all__ = [
    "DEFAULT_GPU_TAINT",
    "ClusterPoolArgs",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuNodePoolArgs",
    "GpuNodePoolSpec",
    "GpuOperatorSettingsArgs",
    "GpuSpecError",
    "GpuStack",
    "Mig",
    "MigArgs",
    "Mps",
    "MpsArgs",
    "Problem",
    "Taint",
    "TaintArgs",
    "TimeSlicing",
    "TimeSlicingArgs",
    "catalog",
]
