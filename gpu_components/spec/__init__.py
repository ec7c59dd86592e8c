"""The cloud-neutral GPU node pool: input shapes, validated spec objects, and every GPU rule.

Callers describe a pool as a :class:`GpuNodePoolArgs` dictionary (the same shape as a pool in a stack's config)
and turn it into a validated, immutable :class:`GpuNodePoolSpec` with :meth:`GpuNodePoolSpec.from_args`. All
problems of the input are collected and raised at once as :class:`~gpu_components.errors.GpuSpecError`, so no
resource is registered for an invalid pool.

Terms are Kubernetes' and NVIDIA's (``NoSchedule``, MIG profile ``1g.10gb``, MIG strategy ``single``/``mixed``);
the clouds' own spellings live only in the cloud adapters.

The package is split by what each part decides; this module re-exports the public names of all of them, so callers
import from ``gpu_components.spec``. Each part imports only those above it in this list:

- :mod:`~gpu_components.spec.shapes`: the shape of the input (:class:`GpuNodePoolArgs` and its parts) and the shape
  checks every entry point runs first (:func:`pool_shape_problems`);
- :mod:`~gpu_components.spec.names`: pool names, node labels and taints (:class:`Taint`);
- :mod:`~gpu_components.spec.sharing`: time-slicing and MPS (:class:`TimeSlicing`, :class:`Mps`);
- :mod:`~gpu_components.spec.disruption`: expiry, consolidation and disruption budgets of provisioned pools
  (:class:`Disruption`);
- :mod:`~gpu_components.spec.hardware`: instance type, GPU model and count, sizes, node disk, and MIG (:class:`Mig`);
- :mod:`~gpu_components.spec.provisioning`: provisioned pools' instance types, GPU requirements, limits and capacity
  (:class:`Provisioning`);
- :mod:`~gpu_components.spec.pool`: :class:`GpuNodePoolSpec`, with the pool's rules in the order they run in one
  place (``_build``: name, hardware, taints, provisioning or fixed sizes, disk, labels, the cloud's reserved labels,
  sharing, MIG), and :func:`parse_pools`.

The label and taint names themselves (``nvidia.com/gpu``, ``gpu-components/pool``) are :mod:`gpu_components.labels`,
a floor below the catalog, the facts and this package (design notes, "Layers").
"""

from gpu_components.labels import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_ACCESS_LABEL,
    GPU_PRESENT_LABEL,
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    MPS_CAPABLE_LABEL,
    OPERAND_LABEL_PREFIX,
    POOL_LABEL,
    POST_BOOT_LABEL_PREFIXES,
    RESERVED_LABEL_PREFIXES,
    RESERVED_LABELS,
    RESERVED_LIBRARY_LABEL_PREFIXES,
    SHARING_TRUST_KEY,
    SHARING_TRUSTED,
    SHARING_TRUSTED_ENTRIES_KEY,
    SOURCE_LABELS,
    SOURCE_POST_BOOT_LABELS,
    SOURCE_TAINTS,
    SYSTEM_ROLE_LABEL,
)
from gpu_components.spec.disruption import (
    BUDGET_DURATION,
    BUDGET_NODES,
    BUDGET_SCHEDULE,
    CRON_FIELDS,
    CRON_MACROS,
    DEFAULT_CONSOLIDATE_AFTER,
    DISRUPTION_REASONS,
    DURATION,
    MAX_BUDGETS,
    SOURCE_CRON,
    SOURCE_KARPENTER_BUDGETS,
    SOURCE_KARPENTER_DISRUPTION,
    SOURCE_KARPENTER_TERMINATION,
    SOURCE_NODEPOOL_CRD,
    Disruption,
    DisruptionBudget,
)
from gpu_components.spec.hardware import (
    DEFAULT_DISK_SIZE_GB,
    MAX_DISK_SIZE_GB,
    MIN_DISK_SIZE_GB,
    SOURCE_DISK_SIZE,
    SOURCE_MIG,
    SOURCE_MIG_MEDIA,
    SOURCE_MIG_STRATEGY,
    Mig,
    fractional_gpu_types,
    fractional_problem,
    gpu_models_named,
    layout_text,
    not_uniform,
    pool_gpu_model,
)
from gpu_components.spec.names import (
    DEFAULT_GPU_TAINT,
    DNS_LABEL,
    MAX_POOL_NAME_LENGTH,
    RESERVED_POOL_NAMES,
    SOURCE_NAMES,
    MigStrategy,
    Taint,
    TaintEffect,
    label_key_problems,
    label_value_problems,
    name_problems,
    reserved_labels,
)
from gpu_components.spec.pool import GpuNodePoolSpec, dra_refused, parse_pools, sharing_trust_labels
from gpu_components.spec.provisioning import (
    FIXED_POOL_SIZES,
    NUMERIC_OPERATORS,
    SOURCE_STARTUP_TAINTS,
    UNRESERVED_PROVISIONERS,
    GpuRequirement,
    Provisioning,
)
from gpu_components.spec.shapes import (
    DisruptionArgs,
    DisruptionBudgetArgs,
    GpuNodePoolArgs,
    GpuRequirementArgs,
    MigArgs,
    MpsArgs,
    ProvisioningArgs,
    TaintArgs,
    TimeSlicingArgs,
    pool_shape_problems,
)
from gpu_components.spec.sharing import (
    MIN_SHARING_REPLICAS,
    MPS_MAX_CLIENTS,
    MPS_MAX_CLIENTS_BELOW_7_5,
    SOURCE_MPS_CLIENTS,
    SOURCE_SHARING,
    Mps,
    Sharing,
    TimeSlicing,
    mps_client_limit,
)

__all__ = [
    "BUDGET_DURATION",
    "BUDGET_NODES",
    "BUDGET_SCHEDULE",
    "CRON_FIELDS",
    "CRON_MACROS",
    "DEFAULT_CONSOLIDATE_AFTER",
    "DEFAULT_DISK_SIZE_GB",
    "DEFAULT_GPU_TAINT",
    "DEVICE_PLUGIN_CONFIG_LABEL",
    "DISRUPTION_REASONS",
    "DNS_LABEL",
    "DURATION",
    "FIXED_POOL_SIZES",
    "GPU_ACCESS_LABEL",
    "GPU_PRESENT_LABEL",
    "GPU_TAINT_EFFECT",
    "GPU_TAINT_KEY",
    "GPU_TAINT_VALUE",
    "MAX_BUDGETS",
    "MAX_DISK_SIZE_GB",
    "MAX_POOL_NAME_LENGTH",
    "MIN_DISK_SIZE_GB",
    "MIN_SHARING_REPLICAS",
    "MPS_CAPABLE_LABEL",
    "MPS_MAX_CLIENTS",
    "MPS_MAX_CLIENTS_BELOW_7_5",
    "NUMERIC_OPERATORS",
    "OPERAND_LABEL_PREFIX",
    "POOL_LABEL",
    "POST_BOOT_LABEL_PREFIXES",
    "RESERVED_LABELS",
    "RESERVED_LABEL_PREFIXES",
    "RESERVED_LIBRARY_LABEL_PREFIXES",
    "RESERVED_POOL_NAMES",
    "SHARING_TRUSTED",
    "SHARING_TRUSTED_ENTRIES_KEY",
    "SHARING_TRUST_KEY",
    "SOURCE_CRON",
    "SOURCE_DISK_SIZE",
    "SOURCE_KARPENTER_BUDGETS",
    "SOURCE_KARPENTER_DISRUPTION",
    "SOURCE_KARPENTER_TERMINATION",
    "SOURCE_LABELS",
    "SOURCE_MIG",
    "SOURCE_MIG_MEDIA",
    "SOURCE_MIG_STRATEGY",
    "SOURCE_MPS_CLIENTS",
    "SOURCE_NAMES",
    "SOURCE_NODEPOOL_CRD",
    "SOURCE_POST_BOOT_LABELS",
    "SOURCE_SHARING",
    "SOURCE_STARTUP_TAINTS",
    "SOURCE_TAINTS",
    "SYSTEM_ROLE_LABEL",
    "UNRESERVED_PROVISIONERS",
    "Disruption",
    "DisruptionArgs",
    "DisruptionBudget",
    "DisruptionBudgetArgs",
    "GpuNodePoolArgs",
    "GpuNodePoolSpec",
    "GpuRequirement",
    "GpuRequirementArgs",
    "Mig",
    "MigArgs",
    "MigStrategy",
    "Mps",
    "MpsArgs",
    "Provisioning",
    "ProvisioningArgs",
    "Sharing",
    "Taint",
    "TaintArgs",
    "TaintEffect",
    "TimeSlicing",
    "TimeSlicingArgs",
    "dra_refused",
    "fractional_gpu_types",
    "fractional_problem",
    "gpu_models_named",
    "label_key_problems",
    "label_value_problems",
    "layout_text",
    "mps_client_limit",
    "name_problems",
    "not_uniform",
    "parse_pools",
    "pool_gpu_model",
    "pool_shape_problems",
    "reserved_labels",
    "sharing_trust_labels",
]
