"""Kubernetes add-ons for GPU pools: the NVIDIA device plugin, the NVIDIA GPU Operator and NVIDIA's DRA driver."""

from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_components.kubernetes.dra_driver import NvidiaDraDriver, NvidiaDraDriverArgs
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperator, NvidiaGpuOperatorArgs

__all__ = [
    "NvidiaDevicePlugin",
    "NvidiaDevicePluginArgs",
    "NvidiaDraDriver",
    "NvidiaDraDriverArgs",
    "NvidiaGpuOperator",
    "NvidiaGpuOperatorArgs",
]
