"""A typed caller of the components' args, checked by ``mypy --strict`` (``make lint``), never run: a closed value
set's field takes its enum's members and its plain strings alike, and refuses other strings. Strict mode reports an
unused ``type: ignore``, so each refused value below fails the check if mypy ever accepts it."""

from __future__ import annotations

from gpu_components import GpuNodePoolArgs, TaintArgs
from gpu_components.aws import EksGpuNodeGroupArgs
from gpu_components.azure import AksGpuNodePoolArgs
from gpu_components.cluster import ClusterPoolArgs, GpuClusterArgs
from gpu_components.enums import Cloud, CpuArchitecture, GpuDriver, GpuStack, MigStrategy, TaintEffect

WIRING = {"cluster_name": "gpu", "subnet_ids": ["subnet-1"]}

by_strings: GpuNodePoolArgs = {
    "name": "l4",
    "instance_type": "g6.xlarge",
    "max_size": 2,
    "cpu_architecture": "x86_64",
    "taints": [{"key": "team", "effect": "NoExecute"}],
    "mig": {"profile": "1g.5gb", "strategy": "mixed"},
}
by_members: GpuNodePoolArgs = {
    "name": "l4",
    "instance_type": "g6.xlarge",
    "max_size": 2,
    "cpu_architecture": CpuArchitecture.ARM64,
    "taints": [{"key": "team", "effect": TaintEffect.NO_EXECUTE}],
    "mig": {"profile": "1g.5gb", "strategy": MigStrategy.SINGLE},
}
cluster_pool: ClusterPoolArgs = {
    "name": "t4",
    "instance_type": "Standard_NC8as_T4_v3",
    "max_size": 2,
    "taints": [{"key": "team", "effect": TaintEffect.NO_SCHEDULE}],
    "azure": {"gpu_driver": GpuDriver.NONE},
}
cluster_by_strings: GpuClusterArgs = {
    "cloud": "aws",
    "aws": {"cluster_name": "gpu", "subnet_ids": ["subnet-1"]},
    "pools": [cluster_pool],
    "gpu_stack": "gpu-operator",
}
cluster_by_members: GpuClusterArgs = {
    "cloud": Cloud.AWS,
    "aws": {"cluster_name": "gpu", "subnet_ids": ["subnet-1"]},
    "pools": [{"name": "l4", "instance_type": "g6.xlarge", "max_size": 2, "aws": {"node_group_args": {}}}],
    "gpu_stack": GpuStack.DEVICE_PLUGIN,
}
eks: EksGpuNodeGroupArgs = {"pool": by_strings, "cluster_name": "gpu", "subnet_ids": [], "gpu_stack": "auto"}
aks: AksGpuNodePoolArgs = {"pool": by_members, "resource_group_name": "rg", "cluster_name": "gpu", "gpu_driver": "aks"}

misspelt_effect: TaintArgs = {"key": "team", "effect": "NO_SCHEDULE"}  # type: ignore[typeddict-item]
misspelt_stack: EksGpuNodeGroupArgs = {
    "pool": by_strings,
    "cluster_name": "gpu",
    "subnet_ids": [],
    "gpu_stack": "gpu-operater",  # type: ignore[typeddict-item]
}
wrong_enum: AksGpuNodePoolArgs = {
    "pool": by_members,
    "resource_group_name": "rg",
    "cluster_name": "gpu",
    "gpu_driver": GpuStack.AUTO,  # type: ignore[typeddict-item]
}

# Names that moved to lower modules stay importable, type-checked, from their old homes (CHANGELOG, issue 28).
from gpu_components.aws.bottlerocket import SHARING_STRATEGIES, decode_user_data, sharing_settings  # noqa: E402
from gpu_components.cluster import ADAPTERS, adapter_for  # noqa: E402
from gpu_components.spec import GPU_TAINT_KEY, POOL_LABEL  # noqa: E402
from gpu_components.workloads import (  # noqa: E402
    SOURCE_SCHEDULE_GPUS,
    allowed_gpus,
    gpu_selection_problems,
    parse_gpu_quantity,
    tolerations,
)

moved = (SHARING_STRATEGIES, decode_user_data, sharing_settings, ADAPTERS, adapter_for, GPU_TAINT_KEY, POOL_LABEL)
moved_helpers = (SOURCE_SCHEDULE_GPUS, allowed_gpus, gpu_selection_problems, parse_gpu_quantity, tolerations)
