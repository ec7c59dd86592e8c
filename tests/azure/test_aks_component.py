"""``AksGpuNodePool`` and ``GpuCluster`` on Azure under the plan's Pulumi mocks: registered inputs and resource
options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pytest
import yaml

from gpu_components.adapter import ProvisionedCluster
from gpu_components.azure import AksGpuNodePool, AksGpuNodePoolArgs
from gpu_components.azure.aks import SPOT_TAINT
from gpu_components.azure.cluster import config_problems, provision
from gpu_components.cluster import GpuCluster, GpuClusterArgs
from gpu_components.errors import GpuSpecError
from gpu_components.plan import UNKNOWN, Plan
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolArgs
from tests.helpers import BOTH_MODES, names, plan_and, plan_of, plan_with_options, resource

AGENT_POOL = "azure-native:containerservice:AgentPool"
MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
SPOT_TAINT_TEXT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
WIRING = {"resourceGroupName": "rg-gpu", "resourceName": "gpu-demo"}
GPU_RESOURCE_TAG = "k8s.io_cluster-autoscaler_node-template_resources_nvidia.com_gpu"


def pool_args(**fields: Any) -> AksGpuNodePoolArgs:
    pool: dict[str, Any] = {"name": "gpu", "instance_type": "Standard_NC4as_T4_v3", "max_size": 3}
    pool.update(fields)
    return {"pool": pool, "resource_group_name": "rg-gpu", "cluster_name": "gpu-demo"}  # type: ignore[typeddict-item]


def base_inputs(name: str, vm_size: str, gpus: int = 1, **extra: Any) -> dict[str, Any]:
    """The registered agent pool inputs of a pool on ``vm_size`` whose nodes advertise ``gpus`` x nvidia.com/gpu."""
    inputs: dict[str, Any] = {
        **WIRING,
        "agentPoolName": name,
        "mode": "User",
        "osType": "Linux",
        "type": "VirtualMachineScaleSets",
        "vmSize": vm_size,
        "enableAutoScaling": True,
        "minCount": 0,
        "maxCount": 3,
        "count": 0,
        "osDiskSizeGB": 100,
        "nodeLabels": {
            "gpu-components/pool": name,
            "nvidia.com/device-plugin.config": name,
            "nvidia.com/gpu.present": "true",
        },
        "nodeTaints": [GPU_TAINT],
        "gpuProfile": {"driver": "Install"},
        "tags": {GPU_RESOURCE_TAG: str(gpus)},
    }
    inputs.update(extra)
    return inputs


def agent_pool(plan: Plan, name: str) -> Mapping[str, Any]:
    """The registered inputs of the agent pool ``name``."""
    return resource(plan, AGENT_POOL, name).inputs


@BOTH_MODES
def test_exclusive_pool_registers_exact_inputs(preview: bool) -> None:
    plan, _ = plan_and(lambda: AksGpuNodePool("t4", pool_args()), preview)
    assert names(plan, AGENT_POOL) == ["t4-agent-pool"]
    assert agent_pool(plan, "t4-agent-pool") == base_inputs("gpu", "Standard_NC4as_T4_v3")


@BOTH_MODES
def test_agent_pool_outputs_echo_the_inputs(preview: bool) -> None:
    def program() -> None:
        pool = AksGpuNodePool("t4", pool_args())
        pulumi.export("vmSize", pool.agent_pool.vm_size)
        pulumi.export("nodeTaints", pool.agent_pool.node_taints)
        pulumi.export("gpuInstanceProfile", pool.agent_pool.gpu_instance_profile)

    outputs = plan_of(program, preview).outputs
    assert outputs["vmSize"] == "Standard_NC4as_T4_v3"
    assert outputs["nodeTaints"] == [GPU_TAINT]
    # Not an input without MIG: unknown until the pool exists (preview), then unset (exports drop None).
    assert outputs.get("gpuInstanceProfile") == (UNKNOWN if preview else None)


@BOTH_MODES
def test_time_slicing_leaves_the_agent_pool_unchanged(preview: bool) -> None:
    plan, pool = plan_and(lambda: AksGpuNodePool("shared", pool_args(time_slicing={"replicas": 4})), preview)
    assert agent_pool(plan, "shared-agent-pool") == base_inputs("gpu", "Standard_NC4as_T4_v3", gpus=4)
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}


@BOTH_MODES
def test_an_mps_pool_carries_the_label_the_charts_mps_control_daemon_selects(preview: bool) -> None:
    plan, pool = plan_and(lambda: AksGpuNodePool("shared", pool_args(mps={"replicas": 4})), preview)
    assert agent_pool(plan, "shared-agent-pool") == base_inputs(
        "gpu",
        "Standard_NC4as_T4_v3",
        gpus=4,
        nodeLabels={
            "gpu-components/pool": "gpu",
            "nvidia.com/device-plugin.config": "gpu",
            "nvidia.com/gpu.present": "true",
            "nvidia.com/mps.capable": "true",
        },
    )
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}


@pytest.mark.parametrize(
    ("profile", "expected", "devices"),
    [
        ("1g.10gb", "MIG1g", 7),
        ("2g.20gb", "MIG2g", 3),
        ("3g.40gb", "MIG3g", 2),
        ("4g.40gb", "MIG4g", 1),
        ("7g.80gb", "MIG7g", 1),
    ],
)
@BOTH_MODES
def test_mig_pool_registers_its_gpu_instance_profile(preview: bool, profile: str, expected: str, devices: int) -> None:
    args = pool_args(name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"profile": profile})
    plan, pool = plan_and(lambda: AksGpuNodePool("a100", args), preview)
    assert agent_pool(plan, "a100-agent-pool") == base_inputs(
        "mig", "Standard_NC24ads_A100_v4", gpus=devices, gpuInstanceProfile=expected
    )
    assert pool.gpu_instance_profile == expected
    assert pool.advertised_resources == {"nvidia.com/gpu": devices}


@BOTH_MODES
def test_spot_autoscaling_pool_registers_spot_settings(preview: bool) -> None:
    args = pool_args(name="t4spot", spot=True, min_size=0, max_size=6, time_slicing={"replicas": 4})
    plan, pool = plan_and(lambda: AksGpuNodePool("t4spot", args), preview)
    inputs = agent_pool(plan, "t4spot-agent-pool")
    assert inputs == base_inputs(
        "t4spot",
        "Standard_NC4as_T4_v3",
        gpus=4,
        maxCount=6,
        nodeLabels={
            "gpu-components/pool": "t4spot",
            "kubernetes.azure.com/scalesetpriority": "spot",
            "nvidia.com/device-plugin.config": "t4spot",
            "nvidia.com/gpu.present": "true",
        },
        nodeTaints=[GPU_TAINT, SPOT_TAINT_TEXT],
        scaleSetPriority="Spot",
        scaleSetEvictionPolicy="Delete",
        spotMaxPrice=-1,
    )
    assert pool.taints == (DEFAULT_GPU_TAINT, SPOT_TAINT)
    assert pool.node_selector == {"gpu-components/pool": "t4spot", "kubernetes.azure.com/accelerator": "nvidia"}


@BOTH_MODES
def test_agent_pool_options_replace_fixed_properties(preview: bool) -> None:
    args = pool_args(instance_type="Standard_NC24ads_A100_v4", mig={"profile": "1g.10gb"})

    def program() -> None:
        AksGpuNodePool("a100", args)

    _, recorded = plan_with_options(program, preview)
    options = recorded["a100-agent-pool"]
    assert "gpuInstanceProfile" in options["replaceOnChanges"]
    assert set(options["replaceOnChanges"]) == {
        "gpuInstanceProfile",
        "gpuProfile",
        "scaleSetPriority",
        "scaleSetEvictionPolicy",
        "spotMaxPrice",
    }
    assert options["deleteBeforeReplace"] is True
    assert options["ignoreChanges"] == ["count"]


def registers_nothing(preview: bool, args: AksGpuNodePoolArgs, name: str = "t4") -> tuple[Plan, GpuSpecError]:
    """Plan ``AksGpuNodePool(name, args)``, which must raise; the plan and the error."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            AksGpuNodePool(name, args)
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, preview)
    [error] = errors
    return plan, error


@BOTH_MODES
def test_gpu_driver_none_raises_before_registering(preview: bool) -> None:
    args = pool_args()
    args["gpu_driver"] = "none"
    plan, error = registers_nothing(preview, args)
    [problem] = error.problems
    assert problem.path == "gpu_driver"
    assert plan.resources == ()


@BOTH_MODES
def test_mig_layout_raises_before_registering(preview: bool) -> None:
    layout = {"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"}
    plan, error = registers_nothing(preview, pool_args(instance_type="Standard_NC24ads_A100_v4", mig=layout), "a100")
    assert [p.path for p in error.problems] == ["pool.mig.layout"]
    assert plan.resources == ()


@BOTH_MODES
def test_a_layout_of_one_profile_filling_each_gpu_registers_as_the_profile(preview: bool) -> None:
    args = pool_args(name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"layout": {"1g.10gb": 7}})
    plan, pool = plan_and(lambda: AksGpuNodePool("a100", args), preview)
    assert agent_pool(plan, "a100-agent-pool") == base_inputs(
        "mig", "Standard_NC24ads_A100_v4", gpus=7, gpuInstanceProfile="MIG1g"
    )
    assert (pool.gpu_instance_profile, pool.advertised_resources) == ("MIG1g", {"nvidia.com/gpu": 7})


@BOTH_MODES
def test_nvidias_balanced_layout_raises_before_registering(preview: bool) -> None:
    balanced = {"config": "all-balanced", "strategy": "mixed"}
    plan, error = registers_nothing(preview, pool_args(instance_type="Standard_NC24ads_A100_v4", mig=balanced), "a100")
    assert [(p.path, p.value) for p in error.problems] == [("pool.mig.config", "all-balanced")]
    assert plan.resources == ()


def cluster_args(pools: list[dict[str, Any]]) -> GpuClusterArgs:
    return {
        "cloud": "azure",
        "pools": pools,  # type: ignore[typeddict-item]
        "azure": {"resource_group_name": "rg-gpu", "cluster_name": "gpu-demo"},
    }


POOLS: list[dict[str, Any]] = [
    {
        "name": "a100mig",
        "instance_type": "Standard_NC24ads_A100_v4",
        "max_size": 2,
        "mig": {"profile": "1g.10gb", "strategy": "single"},
    },
    {
        "name": "t4spot",
        "instance_type": "Standard_NC4as_T4_v3",
        "max_size": 6,
        "spot": True,
        "time_slicing": {"replicas": 4},
        "azure": {"gpu_driver": "aks"},
    },
]


@BOTH_MODES
def test_gpu_cluster_composes_aks_pools_and_the_device_plugin(preview: bool) -> None:
    plan, gpus = plan_and(lambda: GpuCluster("gpu", cluster_args(POOLS)), preview)
    assert sorted(gpus.pools) == ["a100mig", "t4spot"]
    assert all(isinstance(pool, AksGpuNodePool) for pool in gpus.pools.values())
    assert agent_pool(plan, "gpu-a100mig-agent-pool")["gpuInstanceProfile"] == "MIG1g"
    assert agent_pool(plan, "gpu-t4spot-agent-pool")["scaleSetPriority"] == "Spot"
    assert gpus.device_plugin is not None
    assert sorted(gpus.device_plugin.configs) == ["a100mig", "default", "t4spot"]
    tolerations = gpus.device_plugin.values["tolerations"]
    assert {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
        "effect": "NoSchedule",
    } in tolerations
    affinity = gpus.device_plugin.values["affinity"]["nodeAffinity"]
    terms = affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0]["values"] == ["a100mig", "t4spot"]


def test_gpu_cluster_rejects_what_aks_cannot_do() -> None:
    pools: list[dict[str, Any]] = [
        {**POOLS[0], "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"}},
        {**POOLS[1], "azure": {"gpu_driver": "none"}},
        {**POOLS[1], "name": "other", "aws": {"ami_type": "AL2023_x86_64_NVIDIA"}},
    ]
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args(pools))
    # Another cloud's block hides none of the AKS problems: every pool's are reported at once.
    assert [p.path for p in error.value.problems] == [
        "pools[2].aws",
        "pools[0].mig.layout",
        "pools[1].azure.gpu_driver",
    ]


def test_gpu_cluster_takes_a_full_uniform_layout_and_refuses_a_short_one() -> None:
    full = {**POOLS[0], "mig": {"layout": {"1g.10gb": 7}}}
    plan = plan_of(lambda: GpuCluster("gpu", cluster_args([full])) and None)
    assert agent_pool(plan, "gpu-a100mig-agent-pool")["gpuInstanceProfile"] == "MIG1g"
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args([{**POOLS[0], "mig": {"layout": {"1g.10gb": 6}}}]))
    assert [(p.path, p.value) for p in error.value.problems] == [("pools[0].mig.layout", {"1g.10gb": 6})]


def test_unknown_azure_option_is_rejected() -> None:
    pool: GpuNodePoolArgs = {"name": "t4", "instance_type": "Standard_NC4as_T4_v3", "max_size": 1}
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args([{**pool, "azure": {"driver": "none"}}]))
    assert [p.path for p in error.value.problems] == ["pools[0].azure.driver"]


def kubeconfig_of(plan: Plan) -> Any:
    """The exported ``kubeconfig``: the cluster user credential the plan's mocks list for the cluster."""
    return yaml.safe_load(plan.outputs["kubeconfig"])


def exported(cluster: ProvisionedCluster) -> ProvisionedCluster:
    pulumi.export("kubeconfig", cluster.kubeconfig)
    return cluster


@BOTH_MODES
def test_new_cluster_has_a_system_pool_and_a_managed_identity(preview: bool) -> None:
    config = {"name": "gpudemo", "resource_group_name": "gpudemo-rg", "location": "eastus"}
    plan, _ = plan_and(lambda: exported(provision(config)), preview)
    assert names(plan, MANAGED_CLUSTER) == ["gpudemo"]
    inputs = resource(plan, MANAGED_CLUSTER, "gpudemo").inputs
    assert inputs["identity"] == {"type": "SystemAssigned"}
    assert inputs["kubernetesVersion"] == "1.34"
    assert inputs["agentPoolProfiles"] == [
        {
            "name": "system",
            "mode": "System",
            "osType": "Linux",
            "type": "VirtualMachineScaleSets",
            "vmSize": "Standard_D4ds_v5",
            "enableAutoScaling": True,
            "minCount": 1,
            "maxCount": 3,
            "count": 2,
        }
    ]
    group = resource(plan, "azure-native:resources:ResourceGroup", "gpudemo-rg").inputs
    assert group == {"resourceGroupName": "gpudemo-rg", "location": "eastus"}
    if preview:  # the credentials are listed for the group's and the cluster's names, computed outputs: unknown
        assert plan.outputs["kubeconfig"] == UNKNOWN
        return
    # The user credential listed for resource group gpudemo-rg, cluster gpudemo: both are in its context.
    assert kubeconfig_of(plan)["contexts"] == [
        {"context": {"cluster": "gpudemo", "user": "clusterUser_gpudemo-rg_gpudemo"}, "name": "gpudemo"}
    ]


@BOTH_MODES
def test_existing_cluster_is_attached_with_its_decoded_user_kubeconfig(preview: bool) -> None:
    config = {"name": "prod", "existing": True, "resource_group_name": "ml-rg"}
    plan, cluster = plan_and(lambda: exported(provision(config)), preview)
    assert cluster.wiring == {"resource_group_name": "ml-rg", "cluster_name": "prod"}
    assert kubeconfig_of(plan)["contexts"] == [
        {"context": {"cluster": "prod", "user": "clusterUser_ml-rg_prod"}, "name": "prod"}
    ]
    assert plan.resources == ()


def test_existing_cluster_needs_its_resource_group() -> None:
    [problem] = config_problems({"name": "prod", "existing": True})
    assert problem.path == "cluster.resource_group_name"
    assert config_problems({"name": "prod", "location": "eastus"}) == []


@BOTH_MODES
def test_user_tags_keep_the_autoscaler_resource_tags_and_disk_size_is_the_os_disk(preview: bool) -> None:
    args = pool_args(disk_size_gb=256)
    args["tags"] = {"team": "ml"}
    plan, _ = plan_and(lambda: AksGpuNodePool("t4", args), preview)
    inputs = agent_pool(plan, "t4-agent-pool")
    assert inputs["tags"] == {"team": "ml", GPU_RESOURCE_TAG: "1"}
    assert inputs["osDiskSizeGB"] == 256


@BOTH_MODES
def test_mixed_mig_pool_zeroes_whole_gpus_for_the_autoscaler(preview: bool) -> None:
    args = pool_args(
        name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"profile": "1g.10gb", "strategy": "mixed"}
    )
    plan, pool = plan_and(lambda: AksGpuNodePool("a100", args), preview)
    assert agent_pool(plan, "a100-agent-pool")["tags"] == {
        GPU_RESOURCE_TAG: "0",
        "k8s.io_cluster-autoscaler_node-template_resources_nvidia.com_mig-1g.10gb": "7",
    }
    assert pool.autoscaler_note == (
        "nodes advertise nvidia.com/mig-1g.10gb and no nvidia.com/gpu, the only GPU resource the Cluster Autoscaler "
        "waits for on a new node: it may add nodes for pods a starting node will hold"
    )


def test_single_mig_pool_has_no_autoscaler_note() -> None:
    args = pool_args(name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"profile": "1g.10gb"})
    _, pool = plan_and(lambda: AksGpuNodePool("a100", args))
    assert pool.autoscaler_note is None


@BOTH_MODES
def test_agent_pool_args_are_merged_under_the_library_keys(preview: bool) -> None:
    args = pool_args()
    args["agent_pool_args"] = {"availability_zones": ["1", "2"], "max_pods": 50, "os_disk_type": "Managed"}
    plan, _ = plan_and(lambda: AksGpuNodePool("t4", args), preview)
    assert agent_pool(plan, "t4-agent-pool") == base_inputs(
        "gpu", "Standard_NC4as_T4_v3", availabilityZones=["1", "2"], maxPods=50, osDiskType="Managed"
    )


OWNED = (
    "agent_pool_name, count, enable_auto_scaling, gpu_instance_profile, gpu_profile, max_count, min_count, mode, "
    "node_labels, node_taints, os_disk_size_gb, os_type, resource_group_name, resource_name, "
    "scale_set_eviction_policy, scale_set_priority, spot_max_price, tags, type, vm_size"
)


@pytest.mark.parametrize("key", ["os_disk_size_gb", "node_taints", "gpu_instance_profile", "vm_size", "min_count"])
@BOTH_MODES
def test_agent_pool_args_may_not_set_an_owned_key(preview: bool, key: str) -> None:
    args = pool_args()
    args["agent_pool_args"] = {key: 1}
    plan, error = registers_nothing(preview, args)
    [problem] = error.problems
    assert (problem.path, problem.value) == (f"agent_pool_args.{key}", 1)
    assert problem.valid == f"any other argument; owned: {OWNED}"
    assert plan.resources == ()


def test_unknown_agent_pool_arg_names_the_closest() -> None:
    args = pool_args()
    args["agent_pool_args"] = {"availabilty_zones": ["1"]}
    _, error = registers_nothing(True, args)
    [problem] = error.problems
    assert problem.path == "agent_pool_args.availabilty_zones"
    assert problem.message == (
        "unknown field; did you mean 'availability_zones'? "
        "(not an argument of pulumi_azure_native.containerservice.AgentPool)"
    )
    assert problem.valid == "availability_zones"


def test_autoscaler_tags_are_refused_in_tags_in_any_case() -> None:
    args = pool_args()
    args["tags"] = {"K8s.io_cluster-autoscaler_node-template_resources_nvidia.com_gpu": "8"}
    _, error = registers_nothing(True, args)
    [problem] = error.problems
    assert problem.path == "tags['K8s.io_cluster-autoscaler_node-template_resources_nvidia.com_gpu']"
    assert problem.valid == "a name not under k8s.io_cluster-autoscaler_node-template_"


def test_disk_size_out_of_range_is_refused() -> None:
    _, error = registers_nothing(True, pool_args(disk_size_gb=4096))
    [problem] = error.problems
    assert (problem.path, problem.value, problem.valid) == ("pool.disk_size_gb", 4096, "20..2048 (default 100)")


AKS_OS_DISK = (
    "an AKS agent pool's osDiskSizeGB is at least 30 GB",
    "30..2048",
    "AKS error 'The OSDiskSize for Agent pool1 cannot be less than 30GB or larger than 2048GB.' "
    "(pulumi/pulumi-azure-native#663; Azure/karpenter-provider-azure#1146 matches the AKSNodeClass to it)",
)


@pytest.mark.parametrize("size", [20, 29])
def test_a_disk_under_aks_smallest_os_disk_is_refused(size: int) -> None:
    _, error = registers_nothing(True, pool_args(disk_size_gb=size))
    [problem] = error.problems
    assert (problem.path, problem.value) == ("pool.disk_size_gb", size)
    assert (problem.message, problem.valid, problem.source) == AKS_OS_DISK


def test_a_30_gb_disk_is_the_agent_pools_os_disk() -> None:
    plan = plan_of(lambda: AksGpuNodePool("t4", pool_args(disk_size_gb=30)))
    assert agent_pool(plan, "t4-agent-pool")["osDiskSizeGB"] == 30


def test_gpu_cluster_refuses_a_disk_under_aks_smallest_os_disk_at_its_pool_path() -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args([{**POOLS[1], "disk_size_gb": 25}]))
    [problem] = error.value.problems
    assert (problem.path, problem.value) == ("pools[0].disk_size_gb", 25)
    assert (problem.message, problem.valid, problem.source) == AKS_OS_DISK


def test_gpu_cluster_checks_the_escape_hatch_at_its_pool_path() -> None:
    pool = {**POOLS[1], "azure": {"agent_pool_args": {"node_labels": {"a": "b"}}}}
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args([pool]))
    assert [p.path for p in error.value.problems] == ["pools[0].azure.agent_pool_args.node_labels"]


def test_a_pool_over_the_nodes_per_pool_limit_with_a_small_os_disk_reports_both() -> None:
    """The cloud's per-pool node limit leaves the pool sound: its AKS rules are checked too, all at once."""
    _, error = registers_nothing(True, pool_args(max_size=1001, disk_size_gb=25))
    assert [(p.path, p.value, p.message) for p in error.problems] == [
        ("pool.max_size", 1001, "more nodes than one AKS node pool may have; split the pool"),
        ("pool.disk_size_gb", 25, AKS_OS_DISK[0]),
    ]
