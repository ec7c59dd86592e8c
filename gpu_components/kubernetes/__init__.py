"""Kubernetes add-ons for GPU pools: the NVIDIA device plugin and the NVIDIA GPU Operator."""

from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperator, NvidiaGpuOperatorArgs

__all__ = [
    "NvidiaDevicePlugin",
    "NvidiaDevicePluginArgs",
    "NvidiaGpuOperator",
    "NvidiaGpuOperatorArgs",
]
