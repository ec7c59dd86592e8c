"""gpu_components: GPU node pools on Kubernetes that are right the first time, on EKS, AKS and GKE.

Public API:
- Pool description and validation: :class:`GpuNodePoolArgs` (input shape), :class:`GpuNodePoolSpec` (validated),
  :class:`Taint`, :class:`TimeSlicing`, :class:`Mps`, :class:`Mig`, :class:`GpuSpecError` / :class:`Problem`.
- :class:`MissingExtraError`: a cloud's components imported without that cloud's extra (``gpu-components[aws]``...).
- GPU knowledge: :mod:`gpu_components.catalog`.
- Components: :class:`GpuCluster` (pools + add-ons of one cluster, imported on first use),
  :mod:`gpu_components.aws` (``EksGpuNodeGroup``), :mod:`gpu_components.azure` (``AksGpuNodePool``),
  :mod:`gpu_components.gcp` (``GkeGpuNodePool``), :mod:`gpu_components.kubernetes` (``NvidiaDevicePlugin``,
  ``NvidiaGpuOperator``, ``NvidiaDraDriver``).
- Pod-side helpers: :mod:`gpu_components.workloads` (sample CUDA Jobs: :mod:`gpu_components.samples`); DRA resource
  claims: :mod:`gpu_components.claims` (DRA
  knowledge, DeviceClasses and what each pool publishes: :mod:`gpu_components.dra`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components import catalog
from gpu_components._extras import MissingExtraError
from gpu_components._lazy import lazy_attributes
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

_CLUSTER_NAMES = ("ClusterPoolArgs", "GpuCluster", "GpuClusterArgs", "GpuOperatorSettingsArgs", "GpuStack")
__getattr__ = lazy_attributes(__name__, dict.fromkeys(_CLUSTER_NAMES, "gpu_components.cluster"))

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
    "MissingExtraError",
    "Mps",
    "MpsArgs",
    "Problem",
    "Taint",
    "TaintArgs",
    "TimeSlicing",
    "TimeSlicingArgs",
    "catalog",
]
