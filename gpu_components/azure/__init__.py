"""Azure: GPU agent pools and Node Auto Provisioning pools on AKS.

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the Azure SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.azure.aks import AksGpuNodePool, AksGpuNodePoolArgs
    from gpu_components.azure.nap import AksNapGpuNodePool, AksNapGpuNodePoolArgs

__all__ = ["AksGpuNodePool", "AksGpuNodePoolArgs", "AksNapGpuNodePool", "AksNapGpuNodePoolArgs"]

__getattr__ = lazy_attributes(
    __name__,
    {
        "AksGpuNodePool": "gpu_components.azure.aks",
        "AksGpuNodePoolArgs": "gpu_components.azure.aks",
        "AksNapGpuNodePool": "gpu_components.azure.nap",
        "AksNapGpuNodePoolArgs": "gpu_components.azure.nap",
    },
)
