"""Azure: GPU agent pools on AKS."""

from gpu_components.azure.aks import AksGpuNodePool, AksGpuNodePoolArgs

__all__ = ["AksGpuNodePool", "AksGpuNodePoolArgs"]
