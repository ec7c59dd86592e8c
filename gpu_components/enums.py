"""The closed value sets of the components' args, as the enums of the multi-language package's schema.

Pulumi's schema analyzer (``pulumi.provider.experimental.analyzer``) turns an ``enum.Enum`` in a component's args
into a schema enum, named after the class, so a TypeScript, Go or C# caller gets ``GpuStack.GpuOperator`` instead of a
string. Python callers keep passing plain strings, or pass the members; both behave alike:

- Each args field of an enum is annotated ``<Enum>Arg``: at run time the enum (what the analyzer reads), for a type
  checker the enum or its values (``GpuStack | Literal["auto", "device-plugin", "gpu-operator"]``), so
  ``{"gpu_stack": "gpu-operator"}`` and ``{"gpu_stack": GpuStack.GPU_OPERATOR}`` both type-check.
- Validation (pydantic, strict) checks a value against the enum's values, member or string alike, with the errors a
  ``Literal`` field gives (``not one of the allowed values ... valid: 'auto', 'device-plugin' or 'gpu-operator'``).
- Each component turns members into their values first (:func:`~gpu_components.shape.plain`), so no member reaches
  a resource input, a rendered config, a label or the plan.

The ``<Enum>Name`` aliases are the values as a ``Literal``, which the library's own code is typed with.
"""

import sys
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # Python 3.10: what enum.StrEnum is from 3.11 on

    class StrEnum(str, Enum):
        """An enum of strings whose members are their values (``str(member)`` is the value)."""

        __str__ = str.__str__


class _Values(StrEnum):
    """A closed set of strings that pydantic validates as the ``Literal`` of its values."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """The values as a literal schema: strict validation takes a plain string or a member, and a wrong value
        gets pydantic's ``literal_error`` listing the values, as a ``Literal`` field does."""
        return core_schema.literal_schema([member.value for member in cls])


class Cloud(_Values):
    """The cloud a cluster runs on."""

    AWS = "aws"
    """Amazon Web Services: EKS managed node groups."""
    AZURE = "azure"
    """Microsoft Azure: AKS agent pools."""
    GCP = "gcp"
    """Google Cloud: GKE Standard node pools."""


class CpuArchitecture(_Values):
    """The CPU architecture of an instance type."""

    X86_64 = "x86_64"
    """64-bit x86 (Intel, AMD)."""
    ARM64 = "arm64"
    """64-bit Arm (AWS Graviton, NVIDIA Grace)."""


class TaintEffect(_Values):
    """What a node taint does to pods that do not tolerate it (Kubernetes spelling;
    https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)."""

    NO_SCHEDULE = "NoSchedule"
    """New pods are not scheduled on the node; running pods stay."""
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    """The scheduler avoids the node when it can."""
    NO_EXECUTE = "NoExecute"
    """New pods are not scheduled and running pods are evicted."""


class MigStrategy(_Values):
    """How the device plugin advertises MIG devices
    (https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html#mig-strategies)."""

    SINGLE = "single"
    """All MIG devices of a node alike, advertised as ``nvidia.com/gpu``."""
    MIXED = "mixed"
    """Each profile advertised as its own resource, ``nvidia.com/mig-<profile>``."""


class MigConfig(_Values):
    """NVIDIA's named mixed MIG layouts, as the GPU Operator's default mig-parted config names them (v26.7.0
    ``assets/state-mig-manager/0400_configmap.yaml``)."""

    ALL_BALANCED = "all-balanced"
    """One GPU split into 1g x 2, 2g x 1 and 3g x 1 (A30, RTX PRO 6000: 1g x 2, 2g x 1), per GPU as the table gives
    it (the catalog's ``mig_balanced``)."""


class GpuStack(_Values):
    """Who advertises GPUs to Kubernetes."""

    AUTO = "auto"
    """Each cloud's and node image's own way, and the NVIDIA device plugin DaemonSet where nothing else runs one."""
    DEVICE_PLUGIN = "device-plugin"
    """The same as ``auto``, stated explicitly; refused for pools whose cloud runs its own device plugin (GKE)."""
    GPU_OPERATOR = "gpu-operator"
    """The NVIDIA GPU Operator (device plugin, MIG manager, GPU feature discovery, DCGM exporter) on every pool whose
    node image runs no device plugin of its own."""
    DRA = "dra"
    """NVIDIA's DRA driver: pods get GPUs as ``resource.k8s.io/v1`` resource claims (Kubernetes 1.34 and later) on
    every pool whose ``gpu_access`` is ``dra`` (the default under this stack); pools set to ``device-plugin`` keep a
    device plugin."""


class GpuAccess(_Values):
    """How pods get a pool's GPUs: one advertiser per node."""

    DEVICE_PLUGIN = "device-plugin"
    """As extended resources (``nvidia.com/gpu``) advertised by a device plugin: the NVIDIA device plugin, the GPU
    Operator's, or the cloud's or node image's own."""
    DRA = "dra"
    """As Dynamic Resource Allocation devices (DeviceClasses ``gpu.nvidia.com``, ``mig.nvidia.com``) published by
    NVIDIA's DRA driver, which pods request through resource claims; needs ``gpu_stack: dra``."""


class DraInstaller(_Values):
    """What deploys NVIDIA's DRA driver under ``gpu_stack: dra``."""

    CHART = "chart"
    """The driver's own Helm chart, ``dra-driver-nvidia-gpu`` (kubernetes-sigs), pinned."""
    GPU_OPERATOR = "gpu-operator"
    """The GPU Operator's ``GPUCluster`` resource (experimental in v26.7.0; it may not coexist with a
    ``ClusterPolicy``)."""


class DraFeatureGate(_Values):
    """A feature gate of NVIDIA's DRA driver (``featureGates`` of its chart; v0.4.1 ``pkg/featuregates``). Alpha gates
    are off by default; the claim configs that need one say which."""

    TIME_SLICING_SETTINGS = "TimeSlicingSettings"
    """Alpha: a claim's GPU sharing config may set a time-slice interval."""
    MPS_SUPPORT = "MPSSupport"
    """Alpha: a claim's GPU sharing config may use CUDA MPS."""
    DYNAMIC_MIG = "DynamicMIG"
    """Alpha: the driver creates MIG devices on demand (and destroys partitions it did not create)."""
    PASSTHROUGH_SUPPORT = "PassthroughSupport"
    """Alpha: GPUs bound to the ``vfio-pci`` driver for passthrough."""
    NVML_DEVICE_HEALTH_CHECK = "NVMLDeviceHealthCheck"
    """Alpha: device health checks through NVML."""
    DEVICE_METADATA = "DeviceMetadata"
    """Alpha: the kubelet plugin writes device metadata files into workloads."""
    IMEX_DAEMONS_WITH_DNS_NAMES = "IMEXDaemonsWithDNSNames"
    """Beta, on by default: IMEX daemons addressed by DNS names (compute domains)."""
    COMPUTE_DOMAIN_CLIQUES = "ComputeDomainCliques"
    """Beta, on by default: compute domains kept in ``ComputeDomainClique`` objects."""
    CRASH_ON_NVLINK_FABRIC_ERRORS = "CrashOnNVLinkFabricErrors"
    """Beta, on by default: the kubelet plugin fails on NVLink fabric errors instead of running without the fabric."""


class GpuDriver(_Values):
    """Who installs the NVIDIA driver on an AKS pool's nodes."""

    AKS = "aks"
    """AKS installs it (AKS's default; agent pool ``gpuProfile.driver: Install``)."""
    NONE = "none"
    """Nobody on the AKS side (``gpuProfile.driver: None``): for a GPU stack that brings its own driver, the GPU
    Operator with ``operator_driver``."""


class Provisioner(_Values):
    """What creates a provisioned pool's nodes for pending pods, instead of a fixed node pool."""

    KARPENTER = "karpenter"
    """Karpenter on EKS: a ``karpenter.sh/v1`` NodePool and a ``karpenter.k8s.aws/v1`` EC2NodeClass."""
    EKS_AUTO_MODE = "eks-auto-mode"
    """EKS Auto Mode: a ``karpenter.sh/v1`` NodePool and an ``eks.amazonaws.com/v1`` NodeClass; AWS runs the NVIDIA
    driver and device plugin."""
    COMPUTE_CLASS = "compute-class"
    """GKE: a custom ComputeClass (``cloud.google.com/v1``) whose node pools GKE creates itself."""
    NODE_AUTO_PROVISIONING = "node-auto-provisioning"
    """AKS Node Auto Provisioning (Karpenter-based): a ``karpenter.sh/v1`` NodePool and an ``AKSNodeClass``."""


class CapacityType(_Values):
    """Which capacity a provisioned pool's nodes may come from."""

    ON_DEMAND = "on-demand"
    """On-demand capacity."""
    SPOT = "spot"
    """Spot (preemptible) capacity."""
    RESERVED = "reserved"
    """A capacity reservation the pool names (``provisioning.reservation``)."""


class Consolidation(_Values):
    """When a provisioner may remove a provisioned pool's nodes to consolidate work."""

    WHEN_EMPTY = "when-empty"
    """Only nodes running no pods (besides DaemonSets): running GPU jobs are never moved to pack nodes tighter."""
    WHEN_EMPTY_OR_UNDERUTILIZED = "when-empty-or-underutilized"
    """Also nodes whose pods fit elsewhere: pods are evicted and restarted, which long GPU jobs may not survive."""


class RequirementOperator(_Values):
    """How a provisioned pool's GPU requirement relates a node label to its values: the operators of the Karpenter
    NodePool CRD's ``template.spec.requirements`` (v1.14)."""

    IN = "In"
    """The label's value is one of ``values``."""
    NOT_IN = "NotIn"
    """The label's value is none of ``values``, or the label is absent."""
    EXISTS = "Exists"
    """The label is present (no ``values``)."""
    DOES_NOT_EXIST = "DoesNotExist"
    """The label is absent (no ``values``)."""
    GT = "Gt"
    """The label's value, an integer, is greater than the one value."""
    LT = "Lt"
    """The label's value, an integer, is less than the one value."""
    GTE = "Gte"
    """The label's value, an integer, is at least the one value."""
    LTE = "Lte"
    """The label's value, an integer, is at most the one value."""


class DisruptionReason(_Values):
    """A reason a provisioner removes nodes, which a disruption budget may limit (Karpenter NodePool
    ``disruption.budgets[].reasons``: https://karpenter.sh/docs/concepts/disruption/#reasons)."""

    UNDERUTILIZED = "underutilized"
    """Consolidation of nodes whose pods fit elsewhere (Karpenter ``Underutilized``)."""
    EMPTY = "empty"
    """Consolidation of nodes running no pods (Karpenter ``Empty``)."""
    DRIFTED = "drifted"
    """Replacement of nodes that no longer match their NodePool or node class (Karpenter ``Drifted``)."""


CloudName = Literal["aws", "azure", "gcp"]
"""The values of :class:`Cloud`."""
CpuArchitectureName = Literal["x86_64", "arm64"]
"""The values of :class:`CpuArchitecture`."""
TaintEffectName = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
"""The values of :class:`TaintEffect`."""
MigStrategyName = Literal["single", "mixed"]
"""The values of :class:`MigStrategy`."""
MigConfigName = Literal["all-balanced"]
"""The values of :class:`MigConfig`."""
GpuStackName = Literal["auto", "device-plugin", "gpu-operator", "dra"]
"""The values of :class:`GpuStack`."""
GpuAccessName = Literal["device-plugin", "dra"]
"""The values of :class:`GpuAccess`."""
DraInstallerName = Literal["chart", "gpu-operator"]
"""The values of :class:`DraInstaller`."""
DraFeatureGateName = Literal[
    "TimeSlicingSettings",
    "MPSSupport",
    "DynamicMIG",
    "PassthroughSupport",
    "NVMLDeviceHealthCheck",
    "DeviceMetadata",
    "IMEXDaemonsWithDNSNames",
    "ComputeDomainCliques",
    "CrashOnNVLinkFabricErrors",
]
"""The values of :class:`DraFeatureGate`."""
GpuDriverName = Literal["aks", "none"]
"""The values of :class:`GpuDriver`."""
ProvisionerName = Literal["karpenter", "eks-auto-mode", "compute-class", "node-auto-provisioning"]
"""The values of :class:`Provisioner`."""
CapacityTypeName = Literal["on-demand", "spot", "reserved"]
"""The values of :class:`CapacityType`."""
ConsolidationName = Literal["when-empty", "when-empty-or-underutilized"]
"""The values of :class:`Consolidation`."""
RequirementOperatorName = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"]
"""The values of :class:`RequirementOperator`."""
DisruptionReasonName = Literal["underutilized", "empty", "drifted"]
"""The values of :class:`DisruptionReason`."""

# What an args field of each enum takes: for a type checker the member or its value, at run time the enum (the
# annotation Pulumi's analyzer reads; it takes no Literal and no union).
if TYPE_CHECKING:
    CloudArg: TypeAlias = Cloud | CloudName
    CpuArchitectureArg: TypeAlias = CpuArchitecture | CpuArchitectureName
    TaintEffectArg: TypeAlias = TaintEffect | TaintEffectName
    MigStrategyArg: TypeAlias = MigStrategy | MigStrategyName
    MigConfigArg: TypeAlias = MigConfig | MigConfigName
    GpuStackArg: TypeAlias = GpuStack | GpuStackName
    GpuAccessArg: TypeAlias = GpuAccess | GpuAccessName
    DraInstallerArg: TypeAlias = DraInstaller | DraInstallerName
    DraFeatureGateArg: TypeAlias = DraFeatureGate | DraFeatureGateName
    GpuDriverArg: TypeAlias = GpuDriver | GpuDriverName
    ProvisionerArg: TypeAlias = Provisioner | ProvisionerName
    CapacityTypeArg: TypeAlias = CapacityType | CapacityTypeName
    ConsolidationArg: TypeAlias = Consolidation | ConsolidationName
    RequirementOperatorArg: TypeAlias = RequirementOperator | RequirementOperatorName
    DisruptionReasonArg: TypeAlias = DisruptionReason | DisruptionReasonName
else:
    CloudArg = Cloud
    CpuArchitectureArg = CpuArchitecture
    TaintEffectArg = TaintEffect
    MigStrategyArg = MigStrategy
    MigConfigArg = MigConfig
    GpuStackArg = GpuStack
    GpuAccessArg = GpuAccess
    DraInstallerArg = DraInstaller
    DraFeatureGateArg = DraFeatureGate
    GpuDriverArg = GpuDriver
    ProvisionerArg = Provisioner
    CapacityTypeArg = CapacityType
    ConsolidationArg = Consolidation
    RequirementOperatorArg = RequirementOperator
    DisruptionReasonArg = DisruptionReason

ENUMS: tuple[type[StrEnum], ...] = (
    Cloud,
    CpuArchitecture,
    TaintEffect,
    MigStrategy,
    MigConfig,
    GpuStack,
    GpuAccess,
    DraInstaller,
    DraFeatureGate,
    GpuDriver,
    Provisioner,
    CapacityType,
    Consolidation,
    RequirementOperator,
    DisruptionReason,
)
"""Every enum of the components' args."""

_Value = TypeVar("_Value", bound=str)


def value_of(value: Enum | _Value) -> _Value:
    """The value of an enum member, or ``value`` itself when it is one already (``GpuStack.AUTO`` -> ``"auto"``)."""
    result: _Value = value.value if isinstance(value, Enum) else value
    return result


__all__ = [
    "ENUMS",
    "CapacityType",
    "CapacityTypeArg",
    "CapacityTypeName",
    "Cloud",
    "CloudArg",
    "CloudName",
    "Consolidation",
    "ConsolidationArg",
    "ConsolidationName",
    "CpuArchitecture",
    "CpuArchitectureArg",
    "CpuArchitectureName",
    "DisruptionReason",
    "DisruptionReasonArg",
    "DisruptionReasonName",
    "DraFeatureGate",
    "DraFeatureGateArg",
    "DraFeatureGateName",
    "DraInstaller",
    "DraInstallerArg",
    "DraInstallerName",
    "GpuAccess",
    "GpuAccessArg",
    "GpuAccessName",
    "GpuDriver",
    "GpuDriverArg",
    "GpuDriverName",
    "GpuStack",
    "GpuStackArg",
    "GpuStackName",
    "MigConfig",
    "MigConfigArg",
    "MigConfigName",
    "MigStrategy",
    "MigStrategyArg",
    "MigStrategyName",
    "Provisioner",
    "ProvisionerArg",
    "ProvisionerName",
    "TaintEffect",
    "TaintEffectArg",
    "TaintEffectName",
    "value_of",
]
