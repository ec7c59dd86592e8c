"""AKS pools under DRA (``gpu_stack: dra``, a pool's ``gpu_access``): agent pools and Node Auto Provisioning pools
served by NVIDIA's DRA driver with AKS's driver or the GPU Operator's, their labels and MIG, and who advertises each
pool's GPUs."""

from __future__ import annotations

import dataclasses
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
OPERANDS_OFF = {"nvidia.com/gpu.deploy.operands": "false"}


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
    # AKS's driver and AKS's partitions: a GPU Operator beside the DRA driver (for other pools) runs nothing here.
    assert inputs["nodeLabels"] == {**DRA_LABELS, **OPERANDS_OFF}
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
    assert template["metadata"] == {"labels": {**DRA_LABELS, **OPERANDS_OFF}}
    [pool] = captured
    assert pool.device_plugin_host == "dra-driver"
    assert pool.advertised_resources == {}
    assert pool.autoscaler_note == NAP_DRA_NOTE


def test_device_plugin_pool_under_dra_is_what_auto_gives() -> None:
    pool = spec(fixed(gpu_access="device-plugin"))
    dra = ADAPTER.describe_pool(pool, {}, "dra")
    auto = ADAPTER.describe_pool(pool, {}, "auto")
    # The same pool, plus nvidia.com/gpu.deploy.operands=false: a GPU Operator beside the DRA driver (installing
    # the driver of DRA pools with gpu_driver none) runs none of its operands on a device-plugin pool.
    assert dataclasses.replace(dra, labels=auto.labels) == auto
    assert dra.device_plugin_host == "daemonset"
    assert dra.labels == {**auto.labels, **OPERANDS_OFF}
    assert auto.labels == {
        "gpu-components/pool": "h100",
        "nvidia.com/device-plugin.config": "h100",
        "nvidia.com/gpu.present": "true",
    }


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
    assert ADAPTER.describe_pool(agent, {}, "dra").labels == {**DRA_LABELS, **OPERANDS_OFF}
    assert ADAPTER.describe_pool(auto_provisioned, {}, "dra").labels == {
        **DRA_LABELS,
        "nvidia.com/mig.config": "all-1g.12gb",
    }
    assert ADAPTER.describe_pool(spec(nap()), {}, "dra").labels == {**DRA_LABELS, **OPERANDS_OFF}


@pytest.mark.parametrize(
    ("pool", "labels"),
    [
        (fixed(), DRA_LABELS),
        (nap(), DRA_LABELS),
        # AKS makes the partitions (gpuInstanceProfile): the operator serving the pool's driver keeps its MIG
        # manager off, or its default all-disabled would undo them.
        (fixed(mig={"profile": "1g.12gb"}), {**DRA_LABELS, "nvidia.com/gpu.deploy.mig-manager": "false"}),
        (nap(mig={"profile": "1g.12gb"}), {**DRA_LABELS, "nvidia.com/mig.config": "all-1g.12gb"}),
    ],
    ids=["agent", "nap", "agent-mig", "nap-mig"],
)
def test_dra_pool_on_the_operators_driver_keeps_its_operands(pool: dict[str, Any], labels: dict[str, str]) -> None:
    """gpu_driver none: the GPU Operator beside the DRA driver installs the pool's driver, so no operands=false."""
    assert ADAPTER.describe_pool(spec(pool), {"gpu_driver": "none"}, "dra").labels == labels


def test_dra_nap_pool_on_the_operators_driver_registers_its_labels() -> None:
    plan, _ = plan_and(
        lambda: AksNapGpuNodePool("p", {"pool": nap(), "gpu_stack": "dra", "gpu_driver": "none"})  # type: ignore[typeddict-item]
    )
    template = resource(plan, NODE_POOL, "p-node-pool").inputs["spec"]["template"]
    assert template["metadata"] == {"labels": DRA_LABELS}


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
