"""``AksGpuNodePool`` and ``GpuCluster`` on Azure under Pulumi mocks: registered inputs and resource options."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs

from gpu_components.azure import AksGpuNodePool, AksGpuNodePoolArgs
from gpu_components.azure.aks import SPOT_TAINT
from gpu_components.azure.cluster import config_problems, provision
from gpu_components.cluster import GpuCluster, GpuClusterArgs
from gpu_components.errors import GpuSpecError
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolArgs

AGENT_POOL = "azure-native:containerservice:AgentPool"
CREDENTIALS = "azure-native:containerservice:listManagedClusterUserCredentials"
GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
SPOT_TAINT_TEXT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
WIRING = {"resourceGroupName": "rg-gpu", "resourceName": "gpu-demo"}


class InputMocks(pulumi.runtime.Mocks):
    """Every resource's state is its inputs plus the ARM ``name`` (the pool's, cluster's or group's own name);
    ``resources`` maps resource name -> (type, inputs)."""

    def __init__(self) -> None:
        self.resources: dict[str, tuple[str, dict[str, Any]]] = {}

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.resources[args.name] = (args.typ, dict(args.inputs))
        keys = ("agentPoolName", "resourceName", "resourceGroupName")
        name = next((args.inputs[key] for key in keys if key in args.inputs), args.name)
        return f"{args.name}-id", {"name": name, **args.inputs}

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        if args.token == CREDENTIALS:
            kubeconfig = f"clusters: [{args.args['resourceGroupName']}/{args.args['resourceName']}]\n"
            return {
                "kubeconfigs": [{"name": "clusterUser", "value": base64.b64encode(kubeconfig.encode()).decode()}]
            }, []
        raise AssertionError(f"unexpected invoke {args.token}")


class RecordingMonitor(MockMonitor):
    """The SDK's mock monitor, also recording each resource's options as the engine receives them."""

    def __init__(self, mocks: InputMocks) -> None:
        super().__init__(mocks)
        self.options: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request: Any) -> Any:
        self.options[request.name] = {
            "replaceOnChanges": list(request.replaceOnChanges),
            "ignoreChanges": list(request.ignoreChanges),
            "deleteBeforeReplace": request.deleteBeforeReplace,
        }
        return super().RegisterResource(request)  # type: ignore[no-untyped-call]


@pytest.fixture(params=[False, True], ids=["up", "preview"])
def mocks(request: pytest.FixtureRequest) -> Iterator[tuple[InputMocks, RecordingMonitor]]:
    mocks = InputMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=request.param, monitor=monitor)
    yield mocks, monitor


def pool_args(**fields: Any) -> AksGpuNodePoolArgs:
    pool: dict[str, Any] = {"name": "gpu", "instance_type": "Standard_NC4as_T4_v3", "max_size": 3}
    pool.update(fields)
    return {"pool": pool, "resource_group_name": "rg-gpu", "cluster_name": "gpu-demo"}  # type: ignore[typeddict-item]


def base_inputs(name: str, vm_size: str, **extra: Any) -> dict[str, Any]:
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
        "nodeLabels": {
            "gpu-components/pool": name,
            "nvidia.com/device-plugin.config": name,
            "nvidia.com/gpu.present": "true",
        },
        "nodeTaints": [GPU_TAINT],
        "gpuProfile": {"driver": "Install"},
    }
    inputs.update(extra)
    return inputs


def after(*resources: pulumi.Resource) -> pulumi.Output[list[str]]:
    """An output known once ``resources`` are registered (URNs are known in preview too, so checks always run)."""
    return pulumi.Output.all(*[resource.urn for resource in resources])


def registered(pool: AksGpuNodePool) -> pulumi.Output[dict[str, Any]]:
    """The agent pool's inputs as registered (the mocks echo inputs as state)."""
    names = [
        "resource_group_name",
        "resource_name",
        "agent_pool_name",
        "mode",
        "os_type",
        "type",
        "vm_size",
        "enable_auto_scaling",
        "min_count",
        "max_count",
        "count",
        "node_labels",
        "node_taints",
        "gpu_profile",
        "gpu_instance_profile",
        "scale_set_priority",
        "scale_set_eviction_policy",
        "spot_max_price",
    ]
    return pulumi.Output.all(*[getattr(pool.agent_pool, n) for n in names]).apply(
        lambda values: dict(zip(names, values, strict=True))
    )


@pulumi.runtime.test
def test_exclusive_pool_registers_exact_inputs(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    pool = AksGpuNodePool("t4", pool_args())

    def check(_: Any) -> None:
        typ, inputs = recorded.resources["t4-agent-pool"]
        assert typ == AGENT_POOL
        assert inputs == base_inputs("gpu", "Standard_NC4as_T4_v3")

    return after(pool.agent_pool).apply(check)


@pulumi.runtime.test
def test_agent_pool_outputs_echo_the_inputs(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    pool = AksGpuNodePool("t4", pool_args())

    def check(values: dict[str, Any]) -> None:
        assert values["vm_size"] == "Standard_NC4as_T4_v3"
        assert values["node_taints"] == [GPU_TAINT]
        assert values["gpu_instance_profile"] is None

    return registered(pool).apply(check)


@pytest.mark.parametrize("sharing", [{"time_slicing": {"replicas": 4}}, {"mps": {"replicas": 4}}])
@pulumi.runtime.test
def test_sharing_leaves_the_agent_pool_unchanged(
    mocks: tuple[InputMocks, RecordingMonitor], sharing: dict[str, Any]
) -> Any:
    recorded, _ = mocks
    pool = AksGpuNodePool("shared", pool_args(**sharing))

    def check(_: Any) -> None:
        assert recorded.resources["shared-agent-pool"][1] == base_inputs("gpu", "Standard_NC4as_T4_v3")
        assert pool.advertised_resources == {"nvidia.com/gpu": 4}

    return after(pool.agent_pool).apply(check)


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
@pulumi.runtime.test
def test_mig_pool_registers_its_gpu_instance_profile(
    mocks: tuple[InputMocks, RecordingMonitor], profile: str, expected: str, devices: int
) -> Any:
    recorded, _ = mocks
    pool = AksGpuNodePool(
        "a100", pool_args(name="mig", instance_type="Standard_NC24ads_A100_v4", mig={"profile": profile})
    )

    def check(_: Any) -> None:
        assert recorded.resources["a100-agent-pool"][1] == base_inputs(
            "mig", "Standard_NC24ads_A100_v4", gpuInstanceProfile=expected
        )
        assert pool.gpu_instance_profile == expected
        assert pool.advertised_resources == {"nvidia.com/gpu": devices}

    return after(pool.agent_pool).apply(check)


@pulumi.runtime.test
def test_spot_autoscaling_pool_registers_spot_settings(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    pool = AksGpuNodePool(
        "t4spot", pool_args(name="t4spot", spot=True, min_size=0, max_size=6, time_slicing={"replicas": 4})
    )

    def check(_: Any) -> None:
        inputs = recorded.resources["t4spot-agent-pool"][1]
        assert inputs == base_inputs(
            "t4spot",
            "Standard_NC4as_T4_v3",
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

    return after(pool.agent_pool).apply(check)


@pulumi.runtime.test
def test_agent_pool_options_replace_fixed_properties(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    _, monitor = mocks
    pool = AksGpuNodePool("a100", pool_args(instance_type="Standard_NC24ads_A100_v4", mig={"profile": "1g.10gb"}))

    def check(_: Any) -> None:
        options = monitor.options["a100-agent-pool"]
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

    return after(pool.agent_pool).apply(check)


@pulumi.runtime.test
def test_gpu_driver_none_raises_before_registering(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    args = pool_args()
    args["gpu_driver"] = "none"
    with pytest.raises(GpuSpecError) as error:
        AksGpuNodePool("t4", args)
    [problem] = error.value.problems
    assert problem.path == "gpu_driver"
    assert recorded.resources == {}


@pulumi.runtime.test
def test_mig_layout_raises_before_registering(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    layout = {"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"}
    with pytest.raises(GpuSpecError) as error:
        AksGpuNodePool("a100", pool_args(instance_type="Standard_NC24ads_A100_v4", mig=layout))
    assert [p.path for p in error.value.problems] == ["pool.mig.layout"]
    assert recorded.resources == {}


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


@pulumi.runtime.test
def test_gpu_cluster_composes_aks_pools_and_the_device_plugin(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    gpus = GpuCluster("gpu", cluster_args(POOLS))

    def check(_: Any) -> None:
        assert sorted(gpus.pools) == ["a100mig", "t4spot"]
        assert all(isinstance(pool, AksGpuNodePool) for pool in gpus.pools.values())
        assert recorded.resources["gpu-a100mig-agent-pool"][1]["gpuInstanceProfile"] == "MIG1g"
        assert recorded.resources["gpu-t4spot-agent-pool"][1]["scaleSetPriority"] == "Spot"
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

    agent_pools = [pool.agent_pool for pool in gpus.pools.values() if isinstance(pool, AksGpuNodePool)]
    return pulumi.Output.all(after(*agent_pools), gpus.device_plugin.namespace if gpus.device_plugin else None).apply(
        check
    )


def test_gpu_cluster_rejects_what_aks_cannot_do() -> None:
    pools: list[dict[str, Any]] = [
        {**POOLS[0], "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"}},
        {**POOLS[1], "azure": {"gpu_driver": "none"}},
        {**POOLS[1], "name": "other", "aws": {"ami_type": "AL2023_x86_64_NVIDIA"}},
    ]
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args(pools))
    assert [p.path for p in error.value.problems] == ["pools[2].aws"]
    pools.pop()
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args(pools))
    assert [p.path for p in error.value.problems] == ["pools[0].mig.layout", "pools[1].azure.gpu_driver"]


def test_unknown_azure_option_is_rejected() -> None:
    pool: GpuNodePoolArgs = {"name": "t4", "instance_type": "Standard_NC4as_T4_v3", "max_size": 1}
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpu", cluster_args([{**pool, "azure": {"driver": "none"}}]))
    assert [p.path for p in error.value.problems] == ["pools[0].azure.driver"]


@pulumi.runtime.test
def test_new_cluster_has_a_system_pool_and_a_managed_identity(mocks: tuple[InputMocks, RecordingMonitor]) -> Any:
    recorded, _ = mocks
    cluster = provision({"name": "gpudemo", "resource_group_name": "gpudemo-rg", "location": "eastus"})

    def check(kubeconfig: str) -> None:
        typ, inputs = recorded.resources["gpudemo"]
        assert typ == "azure-native:containerservice:ManagedCluster"
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
        assert recorded.resources["gpudemo-rg"][1] == {"resourceGroupName": "gpudemo-rg", "location": "eastus"}
        assert kubeconfig == "clusters: [gpudemo-rg/gpudemo]\n"

    return pulumi.Output.from_input(cluster.kubeconfig).apply(check)


@pulumi.runtime.test
def test_existing_cluster_is_attached_with_its_decoded_user_kubeconfig(
    mocks: tuple[InputMocks, RecordingMonitor],
) -> Any:
    recorded, _ = mocks
    cluster = provision({"name": "prod", "existing": True, "resource_group_name": "ml-rg"})
    assert cluster.wiring == {"resource_group_name": "ml-rg", "cluster_name": "prod"}

    def check(kubeconfig: str) -> None:
        assert kubeconfig == "clusters: [ml-rg/prod]\n"
        assert recorded.resources == {}

    return pulumi.Output.from_input(cluster.kubeconfig).apply(check)


def test_existing_cluster_needs_its_resource_group() -> None:
    [problem] = config_problems({"name": "prod", "existing": True})
    assert problem.path == "cluster.resource_group_name"
    assert config_problems({"name": "prod"}) == []
