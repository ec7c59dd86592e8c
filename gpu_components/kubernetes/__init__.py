"""Kubernetes add-ons for GPU pools: the NVIDIA device plugin."""

from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs

__all__ = ["NvidiaDevicePlugin", "NvidiaDevicePluginArgs"]
