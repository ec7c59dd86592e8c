"""AWS: GPU node groups on EKS.

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the AWS SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.aws.eks import EksGpuNodeGroup, EksGpuNodeGroupArgs

__all__ = ["EksGpuNodeGroup", "EksGpuNodeGroupArgs"]

__getattr__ = lazy_attributes(__name__, dict.fromkeys(__all__, "gpu_components.aws.eks"))
