"""AKS pools under DRA (``gpu_stack: dra``, a pool's ``gpu_access``): agent pools and Node Auto Provisioning pools
served by NVIDIA's DRA driver with AKS's driver or the GPU Operator's, their labels and MIG, and who advertises each
pool's GPUs."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_components import GpuCluster
from gpu_components.azure import AksGpuNodePool, AksNapGpuNodePool
from gpu_components.azure.adapter import ADAPTER
from gpu_components.azure.nap import NAP_DRA_NOTE
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import BOTH_MODES, names, plan_and, resource

AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NAP = "node-auto-provisioning"
DRA_LABELS = {"gpu-components/gpu-access": "dra", "gpu-components/pool": "h100"}


def fixed(**fields: Any) -> dict[str, Any]:
    return {"name": "h100", "instance_type": "Standard_NC40ads_H100_v5", "max_size": 2, **fields}


def nap(**fields: Any) -> dict[str, Any]:
    return {
        "name": "h100",
        "instance_type": "Standard_NC40ads_H100_v5",
        "provisioning": {"provisioner": NAP, "max_gpus": 4},
        **fields,
    }


def spec(pool: dict[str, Any]) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(pool, "azure")


@BOTH_MODES
def test_dra_agent_pool_registers_exact_labels_profile_and_tags(preview: bool) -> None:
    plan, component = plan_and(
        lambda: AksGpuNodePool(
            "gpu",
            {  # type: ignore[typeddict-item]
                "pool": fixed(mig={"profile": "1g.12gb"}),
                "resource_group_name": "rg",
                "cluster_name": "aks",
                "gpu_stack": "dra",
            },
        ),
        preview,
    )
    inputs = resource(plan, AGENT_POOL, "gpu-agent-pool").inputs
    assert inputs["nodeLabels"] == DRA_LABELS
    assert inputs["gpuInstanceProfile"] == "MIG1g"  # AKS makes the partitions the DRA driver publishes
    assert inputs["gpuProfile"] == {"driver": "Install"}
    # The Cluster Autoscaler's template: no nvidia.com/gpu on the nodes.
    assert inputs["tags"] == {"k8s.io_cluster-autoscaler_node-template_resources_nvidia.com_gpu": "0"}
    assert component.device_plugin_host == "dra-driver"
    assert component.advertised_resources == {}


def test_dra_nap_pool_template_labels_and_note() -> None:
    captured: list[AksNapGpuNodePool] = []
    plan, _ = plan_and(lambda: captured.append(AksNapGpuNodePool("p", {"pool": nap(), "gpu_stack": "dra"})))  # type: ignore[typeddict-item]
    template = resource(plan, NODE_POOL, "p-node-pool").inputs["spec"]["template"]
    assert template["metadata"] == {"labels": DRA_LABELS}
    [pool] = captured
    assert pool.device_plugin_host == "dra-driver"
    assert pool.advertised_resources == {}
    assert pool.autoscaler_note == NAP_DRA_NOTE


def test_device_plugin_pool_under_dra_is_what_auto_gives() -> None:
    pool = spec(fixed(gpu_access="device-plugin"))
    assert ADAPTER.describe_pool(pool, {}, "dra") == ADAPTER.describe_pool(pool, {}, "auto")
    assert ADAPTER.describe_pool(pool, {}, "dra").device_plugin_host == "daemonset"


@pytest.mark.parametrize(
    ("pool", "gpu_stack", "host"),
    [
        (fixed(), "dra", "dra-driver"),
        (fixed(gpu_access="device-plugin"), "dra", "daemonset"),
        (fixed(), "auto", "daemonset"),
        (fixed(), "gpu-operator", "gpu-operator"),
        (nap(), "dra", "dra-driver"),
        (nap(gpu_access="device-plugin"), "dra", "daemonset"),
        (nap(), "gpu-operator", "gpu-operator"),
    ],
    ids=["agent-default", "agent-device-plugin", "agent-auto", "agent-operator", "nap-default", "nap-dp", "nap-op"],
)
def test_device_plugin_host_per_pool_kind_and_access(pool: dict[str, Any], gpu_stack: str, host: str) -> None:
    assert ADAPTER.device_plugin_host(spec(pool), {}, gpu_stack) == host  # type: ignore[arg-type]


@pytest.mark.parametrize("gpu_driver", ["aks", "none"])
def test_dra_pools_take_aks_driver_or_the_operators(gpu_driver: str) -> None:
    assert ADAPTER.problems(spec(fixed()), {"gpu_driver": gpu_driver}, "pools[0]", "dra") == []
    assert ADAPTER.problems(spec(nap()), {"gpu_driver": gpu_driver}, "pools[0]", "dra") == []
    assert ADAPTER.describe_pool(spec(fixed()), {"gpu_driver": gpu_driver}, "dra").driver_setting == gpu_driver


def test_device_plugin_pool_without_driver_still_refused_under_dra() -> None:
    [problem] = ADAPTER.problems(spec(fixed(gpu_access="device-plugin")), {"gpu_driver": "none"}, "pools[0]", "dra")
    assert problem.path == "pools[0].azure.gpu_driver"


def test_mig_on_dra_pools_needs_the_operator_only_on_nap() -> None:
    agent = spec(fixed(mig={"profile": "1g.12gb"}))
    auto_provisioned = spec(nap(mig={"profile": "1g.12gb"}))
    assert ADAPTER.problems(agent, {}, "pools[0]", "dra") == []
    assert ADAPTER.problems(auto_provisioned, {}, "pools[0]", "dra") == []
    # The MIG manager's label (what makes the cluster deploy it) on the NAP pool only: AKS partitions agent pools.
    assert ADAPTER.describe_pool(agent, {}, "dra").labels == DRA_LABELS
    assert ADAPTER.describe_pool(auto_provisioned, {}, "dra").labels == {
        **DRA_LABELS,
        "nvidia.com/mig.config": "all-1g.12gb",
    }
    assert ADAPTER.describe_pool(spec(nap()), {}, "dra").labels == DRA_LABELS


def test_a_dra_nap_mig_pool_gets_the_gpu_operator_mig_manager_serving_only_it() -> None:
    t4 = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "provisioning": {"provisioner": NAP, "max_gpus": 2}}
    plan, cluster = plan_and(
        lambda: GpuCluster(
            "gpus",
            {  # type: ignore[typeddict-item]
                "cloud": "azure",
                "azure": {"resource_group_name": "rg", "cluster_name": "aks"},
                "pools": [nap(mig={"profile": "1g.12gb"}), t4],
                "gpu_stack": "dra",
                "dra": {"kubernetes_version": "1.34"},
            },
        )
    )
    assert names(plan, "gpu-components:index:NvidiaGpuOperator") == ["gpus-gpu-operator"]
    assert names(plan, "kubernetes:yaml/v2:ConfigFile") == []  # AKS installs the driver: no installer to apply
    assert cluster.gpu_operator is not None
    assert [spec.name for spec in cluster.gpu_operator.specs] == ["h100"]
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release").inputs["values"]
    assert (values["devicePlugin"], values["driver"], values["toolkit"]) == (
        {"enabled": False},
        {"enabled": False},
        {"enabled": False},
    )
    mig = resource(plan, "kubernetes:core/v1:ConfigMap", "gpus-gpu-operator-mig-config").inputs["data"]
    assert list(yaml.safe_load(mig["config.yaml"])["mig-configs"]) == ["all-disabled", "all-1g.12gb"]


def test_nap_mig_device_plugin_pool_still_refused_under_dra() -> None:
    [problem] = ADAPTER.problems(
        spec(nap(mig={"profile": "1g.12gb"}, gpu_access="device-plugin")), {}, "pools[0]", "dra"
    )
    assert problem.path == "pools[0].mig"


def test_dra_facts_driver_root_is_the_host() -> None:
    assert ADAPTER.facts.dra is not None
    assert ADAPTER.facts.dra.driver_root == "/"
    assert dict(ADAPTER.facts.dra.node_labels) == {}
    assert ADAPTER.facts.dra.driver_installer is None
