"""Kubernetes add-ons for GPU pools: the NVIDIA device plugin and the NVIDIA GPU Operator."""

from gpu_components.kubernetes.addon import AddOnPoolArgs
from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperator, NvidiaGpuOperatorArgs

__all__ = [
    "AddOnPoolArgs",
    "NvidiaDevicePlugin",
    "NvidiaDevicePluginArgs",
    "NvidiaGpuOperator",
    "NvidiaGpuOperatorArgs",
]
