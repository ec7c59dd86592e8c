"""Azure: GPU agent pools on AKS.

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the Azure SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.azure.aks import AksGpuNodePool, AksGpuNodePoolArgs

__all__ = ["AksGpuNodePool", "AksGpuNodePoolArgs"]

__getattr__ = lazy_attributes(__name__, dict.fromkeys(__all__, "gpu_components.azure.aks"))
