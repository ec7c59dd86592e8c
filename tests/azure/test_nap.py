"""``AksNapGpuNodePool`` (AKS Node Auto Provisioning: a Karpenter NodePool and its AKSNodeClass), its rules through
the component, ``GpuCluster`` and the stack config, the add-ons on its nodes, and a NAP cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.azure import AksGpuNodePool, AksNapGpuNodePool
from gpu_components.azure.cluster import config_problems, provision, stack_problems
from gpu_components.cli import main
from gpu_components.cluster import GpuCluster, GpuClusterArgs
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.plan import Plan
from tests.crd_schemas import problems
from tests.helpers import ROOT, copy_example_project, example_plan, plan_of, resource

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"
RELEASE = "kubernetes:helm.sh/v3:Release"
NAP = "node-auto-provisioning"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
WIRING = {"resource_group_name": "rg", "cluster_name": "gpu"}

A100: dict[str, Any] = {
    "name": "a100nap",
    "instance_type": "Standard_NC24ads_A100_v4",
    "labels": {"workload": "inference"},
    "provisioning": {
        "provisioner": NAP,
        "instance_types": ["Standard_NC48ads_A100_v4"],
        "capacity_types": ["spot", "on-demand"],
        "max_gpus": 8,
    },
}
H100_MIG: dict[str, Any] = {
    "name": "h100mig",
    "instance_type": "Standard_NC40ads_H100_v5",
    "mig": {"profile": "1g.12gb", "strategy": "single"},
    "provisioning": {
        "provisioner": NAP,
        "instance_types": ["Standard_NC80adis_H100_v5"],
        "max_nodes": 4,
        "disruption": {"consolidate_after": "30m", "expire_after": "Never"},
    },
}
T4_SHARED: dict[str, Any] = {
    "name": "t4nap",
    "instance_type": "Standard_NC8as_T4_v3",
    "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
    "time_slicing": {"replicas": 4},
    "provisioning": {"provisioner": NAP, "capacity_types": ["spot"], "max_nodes": 3},
}


def custom_resource(plan: Plan, type_: str, name: str) -> dict[str, Any]:
    """A planned custom resource as the API server gets it: apiVersion, kind, metadata and spec."""
    inputs = resource(plan, type_, name).inputs
    return {key: inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")}


def nap_plan(pool: dict[str, Any], **args: Any) -> Plan:
    return plan_of(lambda: AksNapGpuNodePool("p", {"pool": pool, **args}))  # type: ignore[typeddict-item]


def component_problems(args: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, message) of each problem ``AksNapGpuNodePool`` raises for ``args``; it registers nothing."""
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: AksNapGpuNodePool("p", args))  # type: ignore[arg-type]
    return [(p.path, p.message) for p in error.value.problems]


def test_an_a100_pool_under_the_operator_renders_exact_valid_crs() -> None:
    plan = nap_plan(A100, gpu_stack="gpu-operator")
    node_pool = custom_resource(plan, NODE_POOL, "p-node-pool")
    node_class = custom_resource(plan, NODE_CLASS, "p-node-class")
    assert node_pool == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "a100nap"},
        "spec": {
            "template": {
                "metadata": {
                    "labels": {
                        "gpu-components/pool": "a100nap",
                        "nvidia.com/device-plugin.config": "a100nap",
                        "nvidia.com/mig.config": "all-disabled",
                        "workload": "inference",
                    }
                },
                "spec": {
                    "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "a100nap"},
                    "requirements": [
                        {
                            "key": "karpenter.azure.com/sku-name",
                            "operator": "In",
                            "values": ["Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4"],
                        },
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                    ],
                    "taints": [GPU_TAINT],
                },
            },
            "limits": {"nvidia.com/gpu": "8"},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        },
    }
    assert node_class == {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "metadata": {"name": "a100nap"},
        "spec": {"imageFamily": "Ubuntu", "osDiskSizeGB": 100, "gpu": {"mode": "Driver"}},
    }
    assert problems(node_pool, "azure") == []
    assert problems(node_class, "azure") == []


def test_an_h100_mig_pool_under_the_operator_is_partitioned_by_its_mig_manager() -> None:
    plan = nap_plan(
        H100_MIG, gpu_stack="gpu-operator", gpu_driver="none", node_class_spec={"imageFamily": "AzureLinux"}
    )
    node_pool = custom_resource(plan, NODE_POOL, "p-node-pool")
    node_class = custom_resource(plan, NODE_CLASS, "p-node-class")
    assert node_pool == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "h100mig"},
        "spec": {
            "template": {
                "metadata": {
                    "labels": {
                        "gpu-components/pool": "h100mig",
                        "nvidia.com/device-plugin.config": "h100mig",
                        "nvidia.com/mig.config": "all-1g.12gb",
                    }
                },
                "spec": {
                    "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "h100mig"},
                    "requirements": [
                        {
                            "key": "karpenter.azure.com/sku-name",
                            "operator": "In",
                            "values": ["Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5"],
                        },
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                    ],
                    "taints": [GPU_TAINT],
                    "expireAfter": "Never",
                },
            },
            "limits": {"nodes": "4"},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30m"},
        },
    }
    assert node_class == {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "metadata": {"name": "h100mig"},
        "spec": {"imageFamily": "AzureLinux", "osDiskSizeGB": 100, "gpu": {"mode": "None"}},
    }
    assert problems(node_pool, "azure") == []
    assert problems(node_class, "azure") == []


def test_a_spot_pool_gets_no_spot_taint_and_the_note_says_karpenter_counts_whole_gpus() -> None:
    # NAP nodes carry their NodeClaim's taints only, not AKS's scale set spot taint (SOURCE_NAP_TAINTS, issue 32).
    captured: list[AksNapGpuNodePool] = []
    plan = plan_of(lambda: captured.append(AksNapGpuNodePool("p", {"pool": T4_SHARED})))
    [pool] = captured
    assert [dict(t.to_args()) for t in pool.taints] == [
        GPU_TAINT,
        {"key": "team", "value": "ml", "effect": "NoSchedule"},
    ]
    assert pool.labels == {
        "gpu-components/pool": "t4nap",
        "nvidia.com/device-plugin.config": "t4nap",
        "nvidia.com/gpu.present": "true",
    }
    assert (pool.node_selector, pool.advertised_resources, pool.device_plugin_host) == (
        {"gpu-components/pool": "t4nap"},
        {"nvidia.com/gpu": 4},
        "daemonset",
    )
    assert pool.autoscaler_note == (
        "node-auto-provisioning counts each nvidia.com/gpu request as a whole GPU of the instance type (1 per "
        "Standard_NC8as_T4_v3 node) while a node advertises 4 (time-slicing, 4 replicas per GPU): it may create up to "
        "4 times the nodes pending pods need; the empty ones are consolidated later"
    )
    node_pool = custom_resource(plan, NODE_POOL, "p-node-pool")
    assert node_pool["spec"]["template"]["spec"]["taints"] == [
        GPU_TAINT,
        {"key": "team", "value": "ml", "effect": "NoSchedule"},
    ]
    assert problems(node_pool, "azure") == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {
                "pool": {
                    **A100,
                    "provisioning": {
                        **A100["provisioning"],
                        "capacity_types": ["on-demand", "reserved"],
                        "reservation": "crg-1",
                    },
                }
            },
            [
                (
                    "pool.provisioning.capacity_types[1]",
                    "AKS Node Auto Provisioning offers spot and on-demand capacity only (no capacity reservations)",
                )
            ],
        ),
        (
            {"pool": {**A100, "provisioning": {**A100["provisioning"], "capacity_types": ["reserved"]}}},
            [
                (
                    "pool.provisioning.capacity_types[0]",
                    "AKS Node Auto Provisioning offers spot and on-demand capacity only (no capacity reservations)",
                )
            ],
        ),
        (
            {"pool": H100_MIG},
            [
                (
                    "pool.mig",
                    "Node Auto Provisioning makes no MIG partitions (its AKSNodeClass has no gpuInstanceProfile) and "
                    "the NVIDIA device plugin makes none either: only the GPU Operator's MIG manager can",
                )
            ],
        ),
        (
            {"pool": {**H100_MIG, "mig": {"profile": "1g.12gb", "strategy": "mixed"}}, "gpu_stack": "gpu-operator"},
            [
                (
                    "pool.mig.strategy",
                    "node-auto-provisioning, a Karpenter-based provisioner, sizes a node by its instance type's "
                    "nvidia.com/gpu count and knows no nvidia.com/mig-<profile> resource: a pod requesting one would "
                    "stay pending, with no node created for it",
                )
            ],
        ),
        (
            {"pool": {**T4_SHARED, "time_slicing": {"replicas": 4, "rename_by_default": True}}},
            [
                (
                    "pool.time_slicing.rename_by_default",
                    "node-auto-provisioning, a Karpenter-based provisioner, sizes a node by its instance type's "
                    "nvidia.com/gpu count and knows no nvidia.com/gpu.shared resource: a pod requesting one would "
                    "stay pending, with no node created for it",
                )
            ],
        ),
        (
            {"pool": {**A100, "disk_size_gb": 20}, "gpu_driver": "none"},
            [
                ("pool.disk_size_gb", "an AKSNodeClass's osDiskSizeGB is at least 30 GB"),
                (
                    "gpu_driver",
                    "gpu_driver none stops AKS installing the NVIDIA driver, and the pool's GPU stack (the NVIDIA "
                    "device plugin, gpu_stack auto or device-plugin) installs none either: the GPUs would be unusable",
                ),
            ],
        ),
        (
            {"pool": A100, "node_class_spec": {"osDiskSizeGB": 256, "gpu": {"mode": "None"}, "maxPods": 50}},
            [
                (
                    "node_class_spec.gpu",
                    "set by gpu_components: gpu.mode from gpu_driver, osDiskSizeGB from the pool's disk_size_gb",
                ),
                (
                    "node_class_spec.osDiskSizeGB",
                    "set by gpu_components: gpu.mode from gpu_driver, osDiskSizeGB from the pool's disk_size_gb",
                ),
            ],
        ),
        (
            {"pool": {"name": "fixed", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}},
            [
                (
                    "pool.provisioning",
                    "AksNapGpuNodePool makes a pool that Node Auto Provisioning creates nodes for: give provisioning "
                    "with provisioner node-auto-provisioning (a fixed pool is an AksGpuNodePool)",
                )
            ],
        ),
    ],
    ids=[
        "reserved",
        "reserved-without-reservation",
        "mig-without-operator",
        "mig-mixed",
        "renamed-time-slicing",
        "small-disk-and-no-driver",
        "owned-node-class-keys",
        "fixed",
    ],
)
def test_bad_inputs_raise_before_anything_is_registered(args: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert component_problems(args) == expected


def test_a_provisioned_pool_is_not_an_agent_pool() -> None:
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: AksGpuNodePool("p", {"pool": A100, **WIRING}))  # type: ignore[typeddict-item]
    assert [(p.path, p.message) for p in error.value.problems] == [
        (
            "pool.provisioning.provisioner",
            "AksGpuNodePool makes a fixed AKS agent pool; a pool that Node Auto Provisioning creates nodes for is an "
            "AksNapGpuNodePool",
        )
    ]


def test_gpu_cluster_refuses_each_kind_of_pool_the_others_escape_hatch() -> None:
    fixed = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "azure": {"node_class_spec": {}}}
    nap = {**A100, "azure": {"agent_pool_args": {"availability_zones": ["1"]}}}
    args: GpuClusterArgs = {"cloud": "azure", "pools": [fixed, nap], "azure": WIRING}  # type: ignore[typeddict-item]
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))
    assert [(p.path, p.message, p.valid) for p in error.value.problems] == [
        (
            "pools[0].azure.node_class_spec",
            "a Node Auto Provisioning node class; the pool is a fixed pool (an agent pool)",
            "agent_pool_args",
        ),
        (
            "pools[1].azure.agent_pool_args",
            "an AKS agent pool's arguments; the pool is a Node Auto Provisioning pool",
            "node_class_spec",
        ),
    ]


@pytest.mark.parametrize("gpu_stack", ["auto", "gpu-operator"])
def test_the_add_on_serving_a_nap_pool_tolerates_its_taints_and_is_its_only_device_plugin(gpu_stack: str) -> None:
    args: GpuClusterArgs = {"cloud": "azure", "pools": [T4_SHARED, A100], "azure": WIRING, "gpu_stack": gpu_stack}  # type: ignore[typeddict-item]
    plan = plan_of(lambda: GpuCluster("c", args))
    [release] = [r for r in plan.resources if r.type == RELEASE]
    assert release.name == ("c-device-plugin-release" if gpu_stack == "auto" else "c-gpu-operator-release")
    values = release.inputs["values"]
    tolerations = values["tolerations"] if gpu_stack == "auto" else values["daemonsets"]["tolerations"]
    for pool in (T4_SHARED, A100):
        node_pool = resource(plan, NODE_POOL, f"c-{pool['name']}-node-pool").inputs["spec"]["template"]
        for taint in node_pool["spec"]["taints"]:
            assert {**taint, "operator": "Equal"} in tolerations
        if gpu_stack == "auto":
            [term] = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
                "nodeSelectorTerms"
            ]
            [expression] = term["matchExpressions"]
            assert node_pool["metadata"]["labels"][expression["key"]] in expression["values"]


def test_a_nap_pool_served_by_one_device_plugin_is_refused_by_a_second() -> None:
    def program() -> None:
        pool = AksNapGpuNodePool("p", {"pool": A100, "gpu_stack": "gpu-operator"})
        NvidiaGpuOperator("op", {"pools": [pool]})
        NvidiaDevicePlugin("dp", {"pools": [pool]})

    with pytest.raises(GpuSpecError) as error:
        plan_of(program)
    assert [(p.path, p.message) for p in error.value.problems] == [
        (
            "opts.provider",
            "one GPU stack per node, but both are on one cluster (the default Kubernetes provider); the GPU "
            "Operator's device plugin runs on every GPU node it tolerates, so it would also advertise the device "
            "plugin's pools, a second time",
        ),
        (
            "pools[0]",
            "its GPUs are advertised by the GPU Operator's device plugin (NvidiaGpuOperator; the pool was built with "
            "gpu_stack gpu-operator); a second advertiser on its nodes would break them",
        ),
        ("pools[0]", "already served by op; a second add-on would advertise its GPUs twice"),
    ]


def test_a_new_nap_cluster_gets_nap_azure_cni_overlay_with_cilium_and_a_fixed_system_pool() -> None:
    plan = plan_of(lambda: provision({"name": "gpunap", "node_auto_provisioning": True}) and None)
    cluster = resource(plan, "azure-native:containerservice:ManagedCluster", "gpunap").inputs
    assert cluster["nodeProvisioningProfile"] == {"mode": "Auto"}
    assert cluster["networkProfile"] == {
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "networkDataplane": "cilium",
    }
    assert cluster["agentPoolProfiles"] == [
        {
            "name": "system",
            "mode": "System",
            "osType": "Linux",
            "type": "VirtualMachineScaleSets",
            "vmSize": "Standard_D4ds_v5",
            "count": 2,
        }
    ]


def test_nap_cluster_config_rules() -> None:
    cluster = {
        "name": "c",
        "location": "eastus",
        "node_auto_provisioning": True,
        "system_node_pool": {"min_count": 1, "max_count": 3},
    }
    assert [(p.path, p.message) for p in config_problems(cluster)] == [
        (
            f"cluster.system_node_pool.{key}",
            "Node Auto Provisioning may not run beside the Cluster Autoscaler: the system pool of a NAP cluster has a "
            "fixed count",
        )
        for key in ("min_count", "max_count")
    ]
    attached = {"name": "c", "existing": True, "resource_group_name": "rg", "node_auto_provisioning": True}
    assert config_problems(attached) == []
    fixed = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
    assert stack_problems(attached, [A100]) == []
    assert [(p.path, p.valid) for p in stack_problems(attached, [fixed])] == [
        ("pools[0]", "provisioning with provisioner node-auto-provisioning, or node_auto_provisioning: false")
    ]


MIXED = (
    "pools[1]: a fixed pool is an agent pool scaled by the Cluster Autoscaler, which a cluster with Node Auto "
    "Provisioning may not run: pools[0] (a100nap) is a Node Auto Provisioning pool, which needs NAP on the cluster "
    "(got 't4'); valid: every pool provisioned with provisioner node-auto-provisioning, or none [source: "
    "https://learn.microsoft.com/azure/aks/node-auto-provisioning]"
)
T4_FIXED = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}


def test_gpu_cluster_refuses_a_fixed_pool_beside_a_nap_pool_as_the_stack_config_does(tmp_path: Path) -> None:
    args: GpuClusterArgs = {"cloud": "azure", "pools": [A100, T4_FIXED], "azure": WIRING}  # type: ignore[typeddict-item]
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))
    assert [str(p) for p in error.value.problems] == [MIXED]
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.azure-aks-nap.yaml").read_text())
    stack["config"]["gpu-components:pools"] = [A100, T4_FIXED]
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [f"  - {MIXED}"]


def test_the_stack_config_refuses_a_nap_pool_on_a_cluster_without_nap(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.azure-aks-nap.yaml").read_text())
    del stack["config"]["gpu-components:cluster"]["node_auto_provisioning"]
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    for index in (0, 1):
        assert (
            f"pools[{index}].provisioning: a Node Auto Provisioning pool needs NAP on the cluster (got "
            "'node-auto-provisioning'); valid: cluster.node_auto_provisioning: true" in result.output
        )


def test_every_custom_resource_of_the_nap_stack_matches_its_crd() -> None:
    plan = example_plan("azure-aks-nap")
    resources = [r for r in plan.resources if r.type in (NODE_POOL, NODE_CLASS)]
    assert sorted(r.name for r in resources) == [
        "gpunap-gpu-a100nap-node-class",
        "gpunap-gpu-a100nap-node-pool",
        "gpunap-gpu-h100mig-node-class",
        "gpunap-gpu-h100mig-node-pool",
        "gpunap-gpu-t4shared-node-class",
        "gpunap-gpu-t4shared-node-pool",
    ]
    for planned in resources:
        cr = {key: planned.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")}
        assert problems(json.loads(json.dumps(cr)), "azure") == [], planned.name
