"""``ClusterPoolArgs``: one GPU pool as plain values, the form a :class:`~gpu_components.cluster.GpuCluster` pool, a
stack config pool and a GPU add-on's plain pool (:class:`~gpu_components.kubernetes.NvidiaDevicePlugin`,
:class:`~gpu_components.kubernetes.NvidiaGpuOperator`) take alike.

It lives apart from :mod:`gpu_components.cluster`, which imports the add-ons, so the add-ons can name it too; it is
importable as ``gpu_components.cluster.ClusterPoolArgs`` as before.
"""

from typing_extensions import NotRequired, TypedDict

from gpu_components.aws.options import EksPoolOptionsArgs
from gpu_components.azure.options import AksPoolOptionsArgs
from gpu_components.enums import CpuArchitectureArg, GpuAccessArg
from gpu_components.gcp.options import GkePoolOptionsArgs
from gpu_components.shape import STRICT
from gpu_components.spec import MigArgs, MpsArgs, ProvisioningArgs, TaintArgs, TimeSlicingArgs

__all__ = ["ClusterPoolArgs"]


@STRICT
class ClusterPoolArgs(TypedDict):
    """A pool of a :class:`~gpu_components.cluster.GpuCluster` (and of the stack config), or a pool a GPU add-on
    serves given as plain values: the cloud-neutral pool (:class:`~gpu_components.spec.GpuNodePoolArgs`, whose fields
    it declares itself, since Pulumi's schema analyzer reads a field's description only from the class that declares
    it; a test keeps the two alike) and an optional block for its cloud (the cluster's or the add-on's ``cloud``)."""

    name: str
    """Pool name: also a Kubernetes label value and object name (a DNS-1123 label of at most 50 characters) and the
    cloud's node pool name (each cloud's rule, e.g. AKS: 1-12 lowercase letters or digits, starting with a letter)."""
    instance_type: str
    """The cloud's instance type, VM size or machine type, e.g. ``g5.xlarge``, ``Standard_NC24ads_A100_v4``,
    ``a2-highgpu-1g``."""
    gpu_model: NotRequired[str]
    """GPU model (a catalog GPU name, e.g. ``L4``) of an instance type the catalog does not list, which then needs
    ``gpu_count`` and ``cpu_architecture`` too; or of the GPUs attached to a GCP N1 machine type, with ``gpu_count``.
    A short name (``H100``, ``A100``, ``H200``, ``A30``) stands for the full one (``H100-80GB``) where the pool's
    instance types (or, for a type outside the catalog, the catalog) have only one such model; else it is an error
    naming them. Defaults to the catalog's."""
    gpu_count: NotRequired[int]
    """GPUs per node (>= 1) of an instance type the catalog does not list, or attached to a GCP N1 machine type; see
    ``gpu_model``. Defaults to the catalog's."""
    cpu_architecture: NotRequired[CpuArchitectureArg]
    """CPU architecture of an instance type the catalog does not list: ``x86_64`` or ``arm64``; see ``gpu_model``.
    Defaults to the catalog's."""
    min_size: NotRequired[int]
    """Fewest nodes (>= 0) of a fixed pool. Defaults to 0."""
    max_size: NotRequired[int]
    """Most nodes of a fixed pool (>= 1, >= ``min_size``; at most 450 on EKS and 1000 on AKS, the most one node pool
    may have). Required, except in a provisioned pool (``provisioning``), whose limits are its own."""
    desired_size: NotRequired[int]
    """Nodes at creation of a fixed pool, between ``min_size`` and ``max_size``; afterwards the Cluster Autoscaler
    owns the count. Defaults to ``min_size``."""
    spot: NotRequired[bool]
    """Spot (preemptible) capacity. Defaults to false."""
    labels: NotRequired[dict[str, str]]
    """Extra node labels (Kubernetes label keys and values; not the library's own, nor under ``kubernetes.io/`` or
    ``k8s.io/``). Defaults to none."""
    gpu_taint: NotRequired[bool]
    """Put the default taint ``nvidia.com/gpu=present:NoSchedule`` on the pool. Defaults to true. Turning it off
    lets any pod land on GPU nodes; do so only when another taint keeps other work away."""
    taints: NotRequired[list[TaintArgs]]
    """Extra node taints. Defaults to none."""
    time_slicing: NotRequired[TimeSlicingArgs]
    """GPU sharing by time-slicing, without memory isolation (not with ``mps``). Defaults to exclusive GPUs."""
    mps: NotRequired[MpsArgs]
    """GPU sharing by CUDA MPS, without memory isolation (not with ``time_slicing`` or ``mig``). Defaults to exclusive
    GPUs."""
    mig: NotRequired[MigArgs]
    """MIG partitioning of the pool's GPUs (not with ``mps``). Defaults to no MIG."""
    disk_size_gb: NotRequired[int]
    """Each node's disk in GiB, 20..2048: the root disk (EKS ``disk_size``, AKS ``os_disk_size_gb``, GKE
    ``node_config.disk_size_gb``), or on Bottlerocket the data volume that holds container images. Defaults to 100,
    big enough for CUDA images (``DEFAULT_DISK_SIZE_GB``)."""
    provisioning: NotRequired[ProvisioningArgs]
    """Make the pool provisioned: a provisioner creates its nodes for pending pods (Karpenter, EKS Auto Mode, a GKE
    ComputeClass, AKS Node Auto Provisioning), within its limits. Defaults to a fixed node pool."""
    gpu_access: NotRequired[GpuAccessArg]
    """How pods get the pool's GPUs: ``device-plugin`` (extended resources such as ``nvidia.com/gpu``) or ``dra``
    (resource claims served by NVIDIA's DRA driver, only under ``gpu_stack: dra``). Defaults to ``dra`` under
    ``gpu_stack: dra`` and ``device-plugin`` otherwise."""
    aws: NotRequired[EksPoolOptionsArgs]
    """EKS-only settings of the pool (only on ``aws``): ``ami_type``, ``node_group_args``."""
    azure: NotRequired[AksPoolOptionsArgs]
    """AKS-only settings of the pool (only on ``azure``): ``gpu_driver``, ``agent_pool_args``."""
    gcp: NotRequired[GkePoolOptionsArgs]
    """GKE-only settings of the pool (only on ``gcp``): ``driver_version``, ``node_pool_args``."""
