"""AWS: GPU node groups on EKS."""

from gpu_components.aws.eks import EksGpuNodeGroup, EksGpuNodeGroupArgs

__all__ = ["EksGpuNodeGroup", "EksGpuNodeGroupArgs"]
