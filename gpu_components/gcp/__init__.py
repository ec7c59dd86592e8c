"""Google Cloud: GPU node pools on GKE, with GKE's own driver installation, device plugin and GPU sharing."""

from gpu_components.gcp.gke import GkeGpuNodePool, GkeGpuNodePoolArgs

__all__ = ["GkeGpuNodePool", "GkeGpuNodePoolArgs"]
