"""SDK-free knowledge of Dynamic Resource Allocation (DRA, ``resource.k8s.io/v1``) with NVIDIA's DRA driver.

NVIDIA's DRA driver (``kubernetes-sigs/dra-driver-nvidia-gpu``, chart v0.4.1) publishes each node's GPUs as DRA
devices in ResourceSlices, in two DeviceClasses: ``gpu.nvidia.com`` for whole GPUs and ``mig.nvidia.com`` for the
MIG devices already partitioned on the node (without the DynamicMIG feature gate the driver creates no MIG device;
it publishes the partitions mig-parted or the GPU Operator's MIG manager made). A GPU partitioned into MIG devices
is published as its MIG devices, not as a whole GPU.

Sources:
- DeviceClasses: chart v0.4.1 ``templates/deviceclass-gpu.yaml`` (``gpu.nvidia.com``) and
  ``templates/deviceclass-mig.yaml`` (``mig.nvidia.com``),
  https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/tree/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/templates
- DRA: https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
"""

from __future__ import annotations

from gpu_components.spec import GpuNodePoolSpec

__all__ = ["GPU_DEVICE_CLASS", "MIG_DEVICE_CLASS", "dra_devices"]

GPU_DEVICE_CLASS = "gpu.nvidia.com"
"""DeviceClass of whole GPUs (chart v0.4.1 ``templates/deviceclass-gpu.yaml``)."""
MIG_DEVICE_CLASS = "mig.nvidia.com"
"""DeviceClass of MIG devices (chart v0.4.1 ``templates/deviceclass-mig.yaml``)."""


def dra_devices(spec: GpuNodePoolSpec) -> dict[str, int]:
    """What each node of the pool publishes to DRA, per node: ``{"gpu.nvidia.com": <GPUs>}`` for whole GPUs, or for
    a MIG pool one entry per MIG profile of its layout, ``mig.nvidia.com/<profile>`` -> MIG devices per node (the
    profile's instances per GPU times the node's GPUs), sorted by key. E.g. 8 H100s in all-``1g.10gb``:
    ``{"mig.nvidia.com/1g.10gb": 56}``; a ``g6e.xlarge`` (1 L40S): ``{"gpu.nvidia.com": 1}``.

    Cloud-neutral and regardless of who advertises the pool: a device-plugin pool's node component reports ``{}``
    (:attr:`~gpu_components.adapter.PoolView.dra_devices`)."""
    if spec.mig is None:
        return {GPU_DEVICE_CLASS: spec.gpu_count}
    return {
        f"{MIG_DEVICE_CLASS}/{profile}": count * spec.gpu_count for profile, count in sorted(spec.mig.devices.items())
    }
