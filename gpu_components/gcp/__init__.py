"""Google Cloud: GPU node pools on GKE, with GKE's own driver installation, device plugin and GPU sharing; and GPU
workloads on GKE Autopilot (no node pool).

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the Google Cloud SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.gcp.autopilot import GkeAutopilotGpuPool, GkeAutopilotGpuPoolArgs
    from gpu_components.gcp.compute_class import GkeComputeClassGpuPool, GkeComputeClassGpuPoolArgs
    from gpu_components.gcp.gke import GkeGpuNodePool, GkeGpuNodePoolArgs

__all__ = [
    "GkeAutopilotGpuPool",
    "GkeAutopilotGpuPoolArgs",
    "GkeComputeClassGpuPool",
    "GkeComputeClassGpuPoolArgs",
    "GkeGpuNodePool",
    "GkeGpuNodePoolArgs",
]

__getattr__ = lazy_attributes(
    __name__,
    {
        **dict.fromkeys(("GkeGpuNodePool", "GkeGpuNodePoolArgs"), "gpu_components.gcp.gke"),
        **dict.fromkeys(("GkeComputeClassGpuPool", "GkeComputeClassGpuPoolArgs"), "gpu_components.gcp.compute_class"),
        **dict.fromkeys(("GkeAutopilotGpuPool", "GkeAutopilotGpuPoolArgs"), "gpu_components.gcp.autopilot"),
    },
)
