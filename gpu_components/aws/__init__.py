"""AWS: GPU node groups on EKS, Karpenter and EKS Auto Mode GPU pools, and the Karpenter controller.

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the AWS SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.aws.eks import EksGpuNodeGroup, EksGpuNodeGroupArgs
    from gpu_components.aws.karpenter import KarpenterController, KarpenterControllerArgs
    from gpu_components.aws.provisioned import (
        EksAutoModeGpuNodePool,
        EksAutoModeGpuNodePoolArgs,
        EksKarpenterGpuNodePool,
        EksKarpenterGpuNodePoolArgs,
    )

__all__ = [
    "EksAutoModeGpuNodePool",
    "EksAutoModeGpuNodePoolArgs",
    "EksGpuNodeGroup",
    "EksGpuNodeGroupArgs",
    "EksKarpenterGpuNodePool",
    "EksKarpenterGpuNodePoolArgs",
    "KarpenterController",
    "KarpenterControllerArgs",
]

__getattr__ = lazy_attributes(
    __name__,
    {
        name: "gpu_components.aws.eks"
        if name.startswith("EksGpuNodeGroup")
        else "gpu_components.aws.karpenter"
        if name.startswith("KarpenterController")
        else "gpu_components.aws.provisioned"
        for name in __all__
    },
)
