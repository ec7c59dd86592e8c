"""What Kubernetes' Dynamic Resource Allocation (DRA) and NVIDIA's DRA driver publish and accept: SDK-free facts.

Kubernetes DRA (``resource.k8s.io/v1``, GA from 1.34, :data:`SOURCE_KUBERNETES_DRA`): a pod asks for devices
through a resource claim (a ``ResourceClaim``, or a ``ResourceClaimTemplate`` from which Kubernetes makes one claim
per pod) whose requests name a DeviceClass and may narrow it with CEL selectors over the attributes and capacities
the driver publishes; an opaque per-request config reaches the driver.

NVIDIA's DRA driver (``kubernetes-sigs/dra-driver-nvidia-gpu`` v0.4.1, driver name ``gpu.nvidia.com``):

- DeviceClasses ``gpu.nvidia.com`` (whole GPUs, ``type == 'gpu'``) and ``mig.nvidia.com`` (MIG devices, ``type ==
  'mig'``) (:data:`SOURCE_GPU_DEVICE_CLASS`, :data:`SOURCE_MIG_DEVICE_CLASS`).
- Device attributes, qualified by the driver name (``device.attributes['gpu.nvidia.com'].<name>`` in CEL): a GPU's
  ``productName`` (NVML's device name, e.g. ``NVIDIA A100-SXM4-40GB``), ``uuid``, ``brand``, ``architecture``,
  ``cudaComputeCapability``, ``driverVersion``, ``cudaDriverVersion`` (:data:`SOURCE_GPU_ATTRIBUTES`); a MIG device's
  ``profile`` (e.g. ``1g.10gb``), ``parentUUID`` and its parent's ``productName`` (:data:`SOURCE_MIG_ATTRIBUTES`).
  Capacity ``memory`` in bytes (a GPU's total memory, :data:`SOURCE_GPU_CAPACITY`).
- Opaque claim configs of ``apiVersion: resource.nvidia.com/v1beta1`` (:data:`SOURCE_CONFIG_KINDS`): ``GpuConfig``
  for GPUs, ``MigDeviceConfig`` for MIG devices, each with ``sharing.strategy`` ``TimeSlicing`` or ``MPS``; a
  ``GpuConfig``'s ``timeSlicingConfig.interval`` is ``Default``, ``Short``, ``Medium`` or ``Long`` and its
  ``mpsConfig`` has ``defaultActiveThreadPercentage`` (0..100), ``defaultPinnedDeviceMemoryLimit`` (a quantity)
  and ``defaultPerDevicePinnedMemoryLimit`` (:data:`SOURCE_SHARING`). The driver refuses the ``TimeSlicing``
  strategy unless its ``TimeSlicingSettings`` feature gate is on, and ``MPS`` unless ``MPSSupport`` is on (both
  alpha, off by default: :data:`SOURCE_CONFIG_GATES`): :data:`SHARING_FEATURE_GATES`.

What a node publishes (:func:`dra_devices`): each GPU as a ``gpu.nvidia.com`` device, or, once partitioned, as its
MIG devices in ``mig.nvidia.com`` (without the DynamicMIG feature gate the driver creates no MIG device; it publishes
the partitions mig-parted or the GPU Operator's MIG manager made), not as a whole GPU. With DynamicMIG, an
unpartitioned MIG-capable GPU is published whole and as every MIG device it could make, which the driver makes on
allocation (:data:`SOURCE_DYNAMIC_MIG`).

Without a config, one claim referenced by several pods (a ``ResourceClaim`` by name, same namespace) gives each of
them access to its device, as the driver's demo "one shared, global claim providing access to a GPU" does; no
feature gate is needed for that (:data:`SOURCE_SHARED_CLAIM`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from gpu_components import cel
from gpu_components.enums import DraFeatureGate
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolSpec

_DRIVER_TREE = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/"

SOURCE_KUBERNETES_DRA = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
"""Kubernetes DRA: resource claims and templates, DeviceClasses, CEL selectors, pod ``resourceClaims``."""
SOURCE_CLAIM_TEMPLATE_API = (
    "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-template-v1/"
)
"""The ``resource.k8s.io/v1`` ``ResourceClaimTemplate`` API (``spec.spec.devices.requests[].exactly``)."""
SOURCE_GPU_DEVICE_CLASS = f"{_DRIVER_TREE}deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-gpu.yaml"
"""The driver chart's ``gpu.nvidia.com`` DeviceClass."""
SOURCE_MIG_DEVICE_CLASS = f"{_DRIVER_TREE}deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-mig.yaml"
"""The driver chart's ``mig.nvidia.com`` DeviceClass."""
SOURCE_GPU_ATTRIBUTES = f"{_DRIVER_TREE}cmd/gpu-kubelet-plugin/deviceinfo.go"
"""The attributes the driver publishes for a whole GPU (``GpuInfo.Attributes``)."""
SOURCE_MIG_ATTRIBUTES = f"{_DRIVER_TREE}cmd/gpu-kubelet-plugin/mig.go"
"""The attributes the driver publishes for a MIG device (``CommonAttributesMig``: ``profile``, ``parentUUID``)."""
SOURCE_GPU_CAPACITY = f"{_DRIVER_TREE}cmd/gpu-kubelet-plugin/partitions.go"
"""A GPU's ``memory`` capacity in bytes (``fullGpuCapacity``); the driver's e2e test selects on it with
``device.capacity["gpu.nvidia.com"].memory.compareTo(quantity(...)) >= 0`` (``test/e2e/framework/specs/
memory-size.yaml.tmpl``)."""
SOURCE_CONFIG_KINDS = f"{_DRIVER_TREE}api/nvidia.com/resource/v1beta1/api.go"
"""Group ``resource.nvidia.com``, version ``v1beta1``, kinds ``GpuConfig`` and ``MigDeviceConfig``."""
SOURCE_SHARING = f"{_DRIVER_TREE}api/nvidia.com/resource/v1beta1/sharing.go"
"""Sharing strategies, time-slice intervals and MPS config fields of a claim config."""
SOURCE_CONFIG_GATES = f"{_DRIVER_TREE}api/nvidia.com/resource/v1beta1/validate.go"
"""``validateSharingStrategy``: ``TimeSlicing`` needs ``TimeSlicingSettings``, ``MPS`` needs ``MPSSupport``."""
SOURCE_DYNAMIC_MIG = f"{_DRIVER_TREE}cmd/gpu-kubelet-plugin/driver.go"
"""With the DynamicMIG feature gate the kubelet plugin publishes, per GPU, a counter set, the whole GPU and each MIG
device the GPU could make (KEP-4815 partitionable devices: ``publishResources``, ``generateSplitResourceSlices``);
the MIG devices carry the MIG attributes (``CommonAttributesMig``, :data:`SOURCE_MIG_ATTRIBUTES`)."""
SOURCE_SHARED_CLAIM = f"{_DRIVER_TREE}demo/specs/quickstart/v1/gpu-test3.yaml"
"""The driver's demo of one ``ResourceClaim`` shared by two pods (no config, no feature gate)."""

RESOURCE_API_VERSION = "resource.k8s.io/v1"
"""API version of DRA's objects, GA from Kubernetes 1.34 (:data:`SOURCE_KUBERNETES_DRA`)."""
DRIVER_NAME = "gpu.nvidia.com"
"""The DRA driver's name: the domain of its device attributes and capacities and the ``driver`` of an opaque
config (:data:`SOURCE_GPU_DEVICE_CLASS`)."""
GPU_DEVICE_CLASS = "gpu.nvidia.com"
"""DeviceClass of whole GPUs (:data:`SOURCE_GPU_DEVICE_CLASS`)."""
MIG_DEVICE_CLASS = "mig.nvidia.com"
"""DeviceClass of MIG devices (:data:`SOURCE_MIG_DEVICE_CLASS`)."""
PRODUCT_NAME_ATTRIBUTE = "productName"
"""A GPU's (and a MIG device's parent's) NVML device name, e.g. ``NVIDIA L40S`` (:data:`SOURCE_GPU_ATTRIBUTES`)."""
MIG_PROFILE_ATTRIBUTE = "profile"
"""A MIG device's profile, e.g. ``1g.10gb`` (:data:`SOURCE_MIG_ATTRIBUTES`)."""
PARENT_UUID_ATTRIBUTE = f"{DRIVER_NAME}/parentUUID"
"""A MIG device's parent GPU, fully qualified as a claim's ``constraints[].matchAttribute`` names it
(:data:`SOURCE_MIG_ATTRIBUTES`; Kubernetes DRA: :data:`SOURCE_KUBERNETES_DRA`)."""
MEMORY_CAPACITY = "memory"
"""A GPU's memory capacity, in bytes (:data:`SOURCE_GPU_CAPACITY`)."""

STANDARD_ATTRIBUTE_DOMAIN = "resource.kubernetes.io"
"""The domain of Kubernetes' standard device attributes (``pciBusID``, ``pcieRoot``), which the driver sets on a
GPU beside its own (:data:`SOURCE_STANDARD_ATTRIBUTES`)."""
SOURCE_STANDARD_ATTRIBUTES = f"{_DRIVER_TREE}vendor/k8s.io/dynamic-resource-allocation/deviceattribute/attribute.go"
"""``StandardDeviceAttributePCIBusID``, ``StandardDeviceAttributePCIeRoot`` (``resource.kubernetes.io/``), which the
driver's ``nvlib.go`` reads for each GPU."""
GPU_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    DRIVER_NAME: (
        "addressingMode",
        "architecture",
        "brand",
        "cudaComputeCapability",
        "cudaDriverVersion",
        "driverVersion",
        "productName",
        "type",
        "uuid",
    ),
    STANDARD_ATTRIBUTE_DOMAIN: ("pciBusID", "pcieRoot"),
}
"""A whole GPU's attributes by domain (``GpuInfo.Attributes``, :data:`SOURCE_GPU_ATTRIBUTES`; ``addressingMode``,
``pciBusID`` and ``pcieRoot`` only where the node reports them: :data:`SOURCE_STANDARD_ATTRIBUTES`)."""
MIG_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    DRIVER_NAME: (
        "addressingMode",
        "architecture",
        "brand",
        "cudaComputeCapability",
        "cudaDriverVersion",
        "driverVersion",
        "parentUUID",
        "productName",
        "profile",
        "type",
        "uuid",
    )
}
"""A MIG device's attributes by domain (``CommonAttributesMig`` and the device's ``uuid``,
:data:`SOURCE_MIG_ATTRIBUTES`)."""
GPU_CAPACITIES: dict[str, tuple[str, ...]] = {DRIVER_NAME: (MEMORY_CAPACITY,)}
"""A whole GPU's capacities by domain (``fullGpuCapacity``, :data:`SOURCE_GPU_CAPACITY`)."""
MIG_CAPACITIES: dict[str, tuple[str, ...]] = {
    DRIVER_NAME: (
        "copyEngines",
        "decoders",
        "encoders",
        "jpegEngines",
        MEMORY_CAPACITY,
        "memorySlice<N>",
        "multiprocessors",
        "ofaEngines",
    )
}
"""A MIG device's capacities by domain (``CommonCapacitiesMig``, and ``memorySlice<N>`` for each memory slice a
static MIG device holds, ``N`` a number: :data:`SOURCE_MIG_ATTRIBUTES`, ``deviceinfo.go``)."""
PUBLISHED_NAMES: dict[str, tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]] = {
    GPU_DEVICE_CLASS: (GPU_ATTRIBUTES, GPU_CAPACITIES),
    MIG_DEVICE_CLASS: (MIG_ATTRIBUTES, MIG_CAPACITIES),
}
"""DeviceClass -> (attributes, capacities) by domain, of the devices the driver publishes in it."""

CONFIG_API_VERSION = "resource.nvidia.com/v1beta1"
"""``apiVersion`` of the driver's opaque claim configs (:data:`SOURCE_CONFIG_KINDS`)."""
GPU_CONFIG_KIND = "GpuConfig"
"""Opaque config kind for a request of whole GPUs (:data:`SOURCE_CONFIG_KINDS`)."""
MIG_DEVICE_CONFIG_KIND = "MigDeviceConfig"
"""Opaque config kind for a request of MIG devices (:data:`SOURCE_CONFIG_KINDS`)."""

SharingStrategy = Literal["TimeSlicing", "MPS"]
"""``sharing.strategy`` of a claim config (:data:`SOURCE_SHARING`)."""
TimeSliceInterval = Literal["Default", "Short", "Medium", "Long"]
"""``sharing.timeSlicingConfig.interval`` of a ``GpuConfig`` (:data:`SOURCE_SHARING`)."""
TIME_SLICE_INTERVALS: tuple[TimeSliceInterval, ...] = ("Default", "Short", "Medium", "Long")
"""Every time-slice interval the driver accepts, shortest-named first as the driver lists them."""
SHARING_FEATURE_GATES: dict[SharingStrategy, DraFeatureGate] = {
    "TimeSlicing": DraFeatureGate.TIME_SLICING_SETTINGS,
    "MPS": DraFeatureGate.MPS_SUPPORT,
}
"""The driver feature gate each sharing strategy of a claim config needs (:data:`SOURCE_CONFIG_GATES`)."""
MPS_ACTIVE_THREAD_PERCENTAGE = (0, 100)
"""Bounds of ``mpsConfig.defaultActiveThreadPercentage`` (``MpsConfig.Validate``, :data:`SOURCE_CONFIG_GATES`)."""


def attribute(name: str) -> str:
    """The CEL expression of the driver's device attribute ``name``: ``device.attributes['gpu.nvidia.com'].name``."""
    return f"device.attributes['{DRIVER_NAME}'].{name}"


def capacity(name: str) -> str:
    """The CEL expression of the driver's device capacity ``name``: ``device.capacity['gpu.nvidia.com'].name``."""
    return f"device.capacity['{DRIVER_NAME}'].{name}"


def mig_profile_expression(profile: str) -> str:
    """CEL selecting MIG devices of ``profile``: ``device.attributes['gpu.nvidia.com'].profile == '1g.10gb'`` (as the
    driver's demo ``demo/specs/quickstart/v1/gpu-test4.yaml`` selects them)."""
    return f"{attribute(MIG_PROFILE_ATTRIBUTE)} == '{profile}'"


def memory_at_least_expression(gigabytes: int) -> str:
    """CEL selecting GPUs with at least ``gigabytes`` GB of memory, in decimal gigabytes (``quantity('48G')``).

    Decimal ``G``, not ``Gi``: the GB of a GPU's name (the catalog's ``memory_gb``) is not what NVML reports; a GPU
    sold as 48 GB reports a little under 48 GiB (memory the driver reserves) but more than 48 * 10^9 bytes, so a
    ``Gi`` floor would miss the very GPU it names."""
    return f"{capacity(MEMORY_CAPACITY)}.compareTo(quantity('{gigabytes}G')) >= 0"


def memory_below_expression(gigabytes: int) -> str:
    """CEL selecting GPUs with less than ``gigabytes`` GB of memory (decimal, as :func:`memory_at_least_expression`)."""
    return f"{capacity(MEMORY_CAPACITY)}.compareTo(quantity('{gigabytes}G')) < 0"


def product_family(gpu_model: str) -> str:
    """The lowercase product family of a catalog GPU model, its memory suffix dropped: ``A100-80GB`` -> ``a100``,
    ``L40S`` -> ``l40s``, ``RTX-PRO-6000`` -> ``rtx-pro-6000``."""
    parts = gpu_model.lower().split("-")
    if len(parts) > 1 and parts[-1].endswith("gb") and parts[-1][:-2].isdigit():
        parts = parts[:-1]
    return "-".join(parts)


def product_name_expression(gpu_model: str) -> str:
    """CEL selecting GPUs whose ``productName`` names the family of catalog model ``gpu_model`` as a whole word
    (case-insensitive; ``-`` in the family matches a space or ``-``): ``T4`` matches ``Tesla T4`` but not
    ``NVIDIA T4G``, ``A100`` matches ``NVIDIA A100-SXM4-80GB``. The driver's demo selects A100s the same way
    (``productName.lowerAscii().matches('^.*a100.*$')``, ``demo/specs/quickstart/v1/gpu-test6.yaml``). Models of
    one family (``A100-40GB``, ``A100-80GB``) need a memory bound besides."""
    family = product_family(gpu_model).replace("-", "[ -]")
    return f"{attribute(PRODUCT_NAME_ATTRIBUTE)}.lowerAscii().matches('(^|[^a-z0-9]){family}([^a-z0-9]|$)')"


def dra_devices(spec: GpuNodePoolSpec, dynamic_mig: bool = False) -> dict[str, int]:
    """What each node of the pool publishes to DRA, per node: ``{"gpu.nvidia.com": <GPUs>}`` for whole GPUs, or for
    a MIG pool one entry per MIG profile of its layout, ``mig.nvidia.com/<profile>`` -> MIG devices per node (the
    profile's instances per GPU times the node's GPUs), sorted by key. E.g. 8 H100s in all-``1g.10gb``:
    ``{"mig.nvidia.com/1g.10gb": 56}``; a ``g6e.xlarge`` (1 L40S): ``{"gpu.nvidia.com": 1}``.

    ``dynamic_mig``: the driver runs with its DynamicMIG feature gate (defaults to ``False``). Then a pool of whole
    MIG-capable GPUs (no ``mig``) publishes, besides its GPUs, every MIG device each GPU could make, as partitionable
    devices sharing the GPU's counters (:data:`SOURCE_DYNAMIC_MIG`): ``mig.nvidia.com/<profile>`` -> the profile's
    most instances on one GPU (the catalog's ``max_instances``) times the node's GPUs, for each profile of the GPU
    model; the driver makes the MIG device when a claim is allocated. A static MIG pool (refused beside DynamicMIG)
    or a GPU without MIG publishes as without it.

    Cloud-neutral and regardless of who advertises the pool: a device-plugin pool's node component reports ``{}``
    (:attr:`~gpu_components.adapter.PoolView.dra_devices`)."""
    if spec.mig is None:
        devices = {GPU_DEVICE_CLASS: spec.gpu_count}
        if dynamic_mig:
            devices |= {
                f"{MIG_DEVICE_CLASS}/{name}": profile.max_instances * spec.gpu_count
                for name, profile in sorted(spec.gpu.mig_profiles.items())
            }
        return devices
    return {
        f"{MIG_DEVICE_CLASS}/{profile}": count * spec.gpu_count for profile, count in sorted(spec.mig.devices.items())
    }


def selector_problems(expression: object, device_class: object, path: str) -> list[Problem]:
    """Problems of a CEL selector ``expression`` of a request of ``device_class`` against what NVIDIA's driver
    publishes there (:data:`PUBLISHED_NAMES`; another class: syntax, fields and value only), at ``path``: at most one
    (:func:`gpu_components.cel.selector_problems`: a syntax error, an attribute or capacity the driver does not
    publish, a ``device.<field>`` Kubernetes does not define, a value that is not a bool)."""
    published = PUBLISHED_NAMES.get(device_class) if isinstance(device_class, str) else None
    source = f"{SOURCE_GPU_ATTRIBUTES}; {SOURCE_MIG_ATTRIBUTES}; {SOURCE_GPU_CAPACITY}; {SOURCE_STANDARD_ATTRIBUTES}"
    return cel.selector_problems(expression, path, str(device_class), published, source)


SHARING_SETTINGS: dict[str, SharingStrategy] = {"timeSlicingConfig": "TimeSlicing", "mpsConfig": "MPS"}
"""A claim config's sharing settings -> the strategy they belong to (:data:`SOURCE_SHARING`: a time-slicing config
only with ``TimeSlicing``, an MPS config only with ``MPS``)."""


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _sequence(value: object) -> Sequence[Any]:
    """``value`` as a list's items: any Sequence but a string (the policy engine's read-only proxies of resource
    properties are Sequences and Mappings, not lists and dicts), else none."""
    return value if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) else ()


def _sharing_strategies(sharing: Mapping[str, Any]) -> set[str]:
    """The strategies a config's ``sharing`` asks for: its ``strategy`` and the strategy of each setting it holds."""
    strategy = sharing.get("strategy")
    named = {strategy} if isinstance(strategy, str) else set()
    return named | {SHARING_SETTINGS[field] for field in SHARING_SETTINGS if field in sharing}


def _selects_profile(expression: object) -> bool:
    """Whether a CEL selector reads the driver's MIG ``profile`` attribute, in any spelling
    (``device.attributes['gpu.nvidia.com'].profile``, ``...['profile']``, either quote: :func:`cel.references`)."""
    return ("attributes", DRIVER_NAME, MIG_PROFILE_ATTRIBUTE) in cel.references(expression)


def _request_selector_problems(request: Mapping[str, Any], at: str, kind: str) -> list[Problem]:
    """Problems of the selectors of one request of a claim (an ``exactly`` request, or a ``firstAvailable``
    subrequest, ``kind`` in words), at ``at``: a MIG ``profile`` selector of a ``gpu.nvidia.com`` request, or any
    other problem of :func:`selector_problems` for the driver's classes; another class is not judged."""
    device_class = request.get("deviceClassName")
    if device_class not in PUBLISHED_NAMES:
        return []
    problems: list[Problem] = []
    for number, selector in enumerate(_sequence(request.get("selectors"))):
        expression = _mapping(_mapping(selector).get("cel")).get("expression")
        path = f"{at}.selectors[{number}].cel.expression"
        if device_class != GPU_DEVICE_CLASS or not _selects_profile(expression):
            problems += selector_problems(expression, device_class, path)
            continue
        problems.append(
            Problem(
                path,
                expression,
                f"selects on the MIG attribute {MIG_PROFILE_ATTRIBUTE}, which no device of DeviceClass "
                f"{GPU_DEVICE_CLASS} (a whole GPU) publishes, so the {kind} could never be allocated",
                f"DeviceClass {MIG_DEVICE_CLASS} for a MIG profile, or a whole-GPU attribute",
                f"{SOURCE_GPU_ATTRIBUTES}; {SOURCE_MIG_ATTRIBUTES}",
            )
        )
    return problems


def unsatisfiable_claim_problems(devices: Mapping[str, Any], where: str) -> list[Problem]:
    """Problems of a claim's ``devices`` (``resource.k8s.io/v1``: ``requests``, ``config``; ``where``: its path) that
    NVIDIA's driver or the scheduler could never satisfy, whoever wrote the claim:

    - ``sharing.timeSlicingConfig.replicas`` in a driver config (``GpuConfig``, ``MigDeviceConfig``): the device
      plugin's time-slicing field; the DRA driver's ``TimeSlicingConfig`` has only ``interval``
      (:data:`SOURCE_SHARING`), and its strict decoder refuses unknown fields;
    - two sharing strategies for one request (``TimeSlicing`` and ``MPS``, in one config or in two configs that
      apply to the request; a config with no ``requests`` applies to all): a device has one ``sharing``;
    - a ``gpu.nvidia.com`` request (``exactly``, or a ``firstAvailable`` subrequest) with a selector on the MIG
      ``profile`` attribute, in any spelling (``.profile``, ``['profile']``): only MIG devices (DeviceClass
      ``mig.nvidia.com``) publish it (:data:`SOURCE_GPU_ATTRIBUTES`, :data:`SOURCE_MIG_ATTRIBUTES`), so the
      selector matches no device; with the DynamicMIG gate too, whose MIG devices are of ``mig.nvidia.com``
      (:data:`SOURCE_DYNAMIC_MIG`), where a profile request on a pool of whole GPUs is satisfiable;
    - any other selector of a ``gpu.nvidia.com`` or ``mig.nvidia.com`` request or subrequest with a problem of
      :func:`selector_problems` (a CEL syntax error, an attribute or capacity the driver does not publish for the
      class, a value that is not a bool): one problem per selector.

    Returns the problems, in request and config order; ``[]`` for a claim without them."""
    problems: list[Problem] = []
    requests = devices.get("requests")
    names: list[str] = []
    for index, request in enumerate(_sequence(requests)):
        names += [request["name"]] if isinstance(_mapping(request).get("name"), str) else []
        at = f"{where}.requests[{index}]"
        exactly = _mapping(_mapping(request).get("exactly"))
        problems += _request_selector_problems(exactly, f"{at}.exactly", "request")
        for number, subrequest in enumerate(_sequence(_mapping(request).get("firstAvailable"))):
            problems += _request_selector_problems(_mapping(subrequest), f"{at}.firstAvailable[{number}]", "subrequest")
    strategies: dict[str, dict[str, int]] = {}
    configs = devices.get("config")
    for index, config in enumerate(_sequence(configs)):
        opaque = _mapping(_mapping(config).get("opaque"))
        parameters = _mapping(opaque.get("parameters"))
        if opaque.get("driver") != DRIVER_NAME or parameters.get("kind") not in (
            GPU_CONFIG_KIND,
            MIG_DEVICE_CONFIG_KIND,
        ):
            continue
        sharing = _mapping(parameters.get("sharing"))
        at = f"{where}.config[{index}].opaque.parameters.sharing"
        if "replicas" in _mapping(sharing.get("timeSlicingConfig")):
            problems.append(
                Problem(
                    f"{at}.timeSlicingConfig.replicas",
                    sharing["timeSlicingConfig"]["replicas"],
                    "not a field of NVIDIA's DRA driver (replicas is the device plugin's time-slicing); a DRA "
                    "claim shares a GPU among the pods that use the claim, and time-slicing sets only interval",
                    f"timeSlicingConfig.interval: {', '.join(TIME_SLICE_INTERVALS)}",
                    SOURCE_SHARING,
                )
            )
        applies = _sequence(_mapping(config).get("requests"))
        for name in applies or names or ["*"]:
            for strategy in _sharing_strategies(sharing):
                strategies.setdefault(str(name), {}).setdefault(strategy, index)
    for name, found in strategies.items():
        if len(found) > 1:
            problems.append(
                Problem(
                    f"{where}.config",
                    {strategy: f"config[{index}]" for strategy, index in sorted(found.items())},
                    f"request {name} is given two sharing strategies; a device of NVIDIA's DRA driver has one "
                    "sharing with one strategy",
                    "one of TimeSlicing, MPS per request",
                    SOURCE_SHARING,
                )
            )
    return problems


__all__ = [
    "CONFIG_API_VERSION",
    "DRIVER_NAME",
    "GPU_ATTRIBUTES",
    "GPU_CAPACITIES",
    "GPU_CONFIG_KIND",
    "GPU_DEVICE_CLASS",
    "MEMORY_CAPACITY",
    "MIG_ATTRIBUTES",
    "MIG_CAPACITIES",
    "MIG_DEVICE_CLASS",
    "MIG_DEVICE_CONFIG_KIND",
    "MIG_PROFILE_ATTRIBUTE",
    "MPS_ACTIVE_THREAD_PERCENTAGE",
    "PARENT_UUID_ATTRIBUTE",
    "PRODUCT_NAME_ATTRIBUTE",
    "PUBLISHED_NAMES",
    "RESOURCE_API_VERSION",
    "SHARING_FEATURE_GATES",
    "SHARING_SETTINGS",
    "SOURCE_CLAIM_TEMPLATE_API",
    "SOURCE_CONFIG_GATES",
    "SOURCE_CONFIG_KINDS",
    "SOURCE_DYNAMIC_MIG",
    "SOURCE_GPU_ATTRIBUTES",
    "SOURCE_GPU_CAPACITY",
    "SOURCE_GPU_DEVICE_CLASS",
    "SOURCE_KUBERNETES_DRA",
    "SOURCE_MIG_ATTRIBUTES",
    "SOURCE_MIG_DEVICE_CLASS",
    "SOURCE_SHARED_CLAIM",
    "SOURCE_SHARING",
    "SOURCE_STANDARD_ATTRIBUTES",
    "STANDARD_ATTRIBUTE_DOMAIN",
    "TIME_SLICE_INTERVALS",
    "SharingStrategy",
    "TimeSliceInterval",
    "attribute",
    "capacity",
    "dra_devices",
    "memory_at_least_expression",
    "memory_below_expression",
    "mig_profile_expression",
    "product_family",
    "product_name_expression",
    "selector_problems",
    "unsatisfiable_claim_problems",
]
