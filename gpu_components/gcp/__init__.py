"""Google Cloud: GPU node pools on GKE, with GKE's own driver installation, device plugin and GPU sharing.

The components are imported on first use, so importing this package or its light modules (``options``) does not
import the Google Cloud SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_components._lazy import lazy_attributes

if TYPE_CHECKING:
    from gpu_components.gcp.gke import GkeGpuNodePool, GkeGpuNodePoolArgs

__all__ = ["GkeGpuNodePool", "GkeGpuNodePoolArgs"]

__getattr__ = lazy_attributes(__name__, dict.fromkeys(__all__, "gpu_components.gcp.gke"))
