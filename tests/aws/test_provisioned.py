"""Karpenter and EKS Auto Mode GPU pools (issue 16): the exact custom resources, each valid against its schema; who
advertises GPUs (never two on a node); the add-ons' DaemonSets tolerate and select the pools' nodes; bad inputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.aws import EksAutoModeGpuNodePool, EksKarpenterGpuNodePool
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDevicePlugin
from gpu_components.plan import Plan
from tests import crd_schemas
from tests.helpers import names, plan_and, plan_of, resource
from tests.test_stack_config_problems import CLUSTER
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

ROLE = "arn:aws:iam::123456789012:role/gpu-nodes"
WIRING = {"cluster_name": "demo", "subnet_ids": ["subnet-a", "subnet-b"], "node_role_arn": ROLE}
EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
AUTO_NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}
SELECTORS = {
    "securityGroupSelectorTerms": [{"tags": {"aws:eks:cluster-name": "demo"}}],
    "subnetSelectorTerms": [{"id": "subnet-a"}, {"id": "subnet-b"}],
}
AL2023_ROOT = [{"deviceName": "/dev/xvda", "ebs": {"encrypted": True, "volumeSize": "100Gi", "volumeType": "gp3"}}]

L40S_SHARED = {
    "name": "l40s-shared",
    "instance_type": "g6e.xlarge",
    "time_slicing": {"replicas": 4},
    "labels": {"workload": "inference"},
    "provisioning": {
        "provisioner": "karpenter",
        "instance_types": ["g6e.2xlarge"],
        "max_gpus": 16,
        "capacity_types": ["spot", "on-demand"],
        "disruption": {"expire_after": "720h"},
    },
}
H100_MIG = {
    "name": "h100-mig",
    "instance_type": "p5.48xlarge",
    "mig": {"profile": "1g.10gb", "strategy": "single"},
    "provisioning": {
        "provisioner": "karpenter",
        "instance_families": ["p5"],
        "max_nodes": 2,
        "disruption": {"consolidation": "when-empty-or-underutilized", "consolidate_after": "1h"},
    },
}
BOTTLEROCKET = {
    "name": "br",
    "instance_type": "g5.2xlarge",
    "time_slicing": {"replicas": 2},
    "disk_size_gb": 200,
    "provisioning": {"provisioner": "karpenter", "max_nodes": 3},
}
AUTO_L4 = {
    "name": "auto-l4",
    "instance_type": "g6.xlarge",
    "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
    "provisioning": {
        "provisioner": "eks-auto-mode",
        "instance_families": ["g6"],
        "max_gpus": 8,
        "disruption": {"expire_after": "336h"},
    },
}
RESERVED = {
    "name": "h200-reserved",
    "instance_type": "p5e.48xlarge",
    "provisioning": {
        "provisioner": "karpenter",
        "max_nodes": 1,
        "capacity_types": ["reserved"],
        "reservation": "cr-0123456789abcdef0",
    },
}


def karpenter(pool: dict[str, Any], **extra: Any) -> EksKarpenterGpuNodePool:
    return EksKarpenterGpuNodePool("gpu", {"pool": pool, **WIRING, **extra})  # type: ignore[typeddict-item]


def auto_mode(pool: dict[str, Any], **extra: Any) -> EksAutoModeGpuNodePool:
    return EksAutoModeGpuNodePool("gpu", {"pool": pool, **WIRING, **extra})  # type: ignore[typeddict-item]


def custom_resources(plan: Plan, class_type: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The NodeClass and NodePool the component registered, each checked against its schema."""
    node_class = dict(resource(plan, class_type, "gpu-node-class").inputs)
    node_pool = dict(resource(plan, NODE_POOL, "gpu-node-pool").inputs)
    assert crd_schemas.problems(node_class, "aws") == []
    assert crd_schemas.problems(node_pool, "aws") == []
    return node_class, node_pool


def requirements(types: dict[str, Any], capacity: list[str]) -> list[dict[str, Any]]:
    return [
        types,
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    ]


def test_time_sliced_l40s_karpenter_pool_renders_exact_crs() -> None:
    plan, pool = plan_and(lambda: karpenter(L40S_SHARED), preview=False)
    node_class, node_pool = custom_resources(plan, EC2_NODE_CLASS)
    assert node_class == {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "l40s-shared"},
        "spec": {
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "blockDeviceMappings": AL2023_ROOT,
            "role": "gpu-nodes",
            **SELECTORS,
        },
    }
    assert node_pool == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "l40s-shared"},
        "spec": {
            "disruption": {"consolidateAfter": "10m", "consolidationPolicy": "WhenEmpty"},
            "limits": {"nvidia.com/gpu": 16},
            "template": {
                "metadata": {
                    "labels": {
                        "gpu-components/pool": "l40s-shared",
                        "nvidia.com/device-plugin.config": "l40s-shared",
                        "nvidia.com/gpu.present": "true",
                        "workload": "inference",
                    }
                },
                "spec": {
                    "expireAfter": "720h",
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "l40s-shared"},
                    "requirements": requirements(
                        {
                            "key": "node.kubernetes.io/instance-type",
                            "operator": "In",
                            "values": ["g6e.xlarge", "g6e.2xlarge"],
                        },
                        ["spot", "on-demand"],
                    ),
                    "taints": [GPU_TAINT],
                },
            },
        },
    }
    assert pool.device_plugin_host == "daemonset"
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}
    assert pool.autoscaler_note == (
        "karpenter counts each nvidia.com/gpu request as a whole GPU of the instance type (1 per g6e.xlarge node) "
        "while a node advertises 4 (time-slicing, 4 replicas per GPU): it may create up to 4 times the nodes "
        "pending pods need; the empty ones are consolidated later"
    )
    assert names(plan, "aws:iam/role:Role") == []


def test_h100_mig_pool_under_the_gpu_operator_selects_its_family_and_carries_the_operator_labels() -> None:
    plan, pool = plan_and(lambda: karpenter(H100_MIG, gpu_stack="gpu-operator"), preview=False)
    node_class, node_pool = custom_resources(plan, EC2_NODE_CLASS)
    assert node_class["spec"] == {
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "blockDeviceMappings": AL2023_ROOT,
        "role": "gpu-nodes",
        **SELECTORS,
    }
    assert node_pool["spec"] == {
        "disruption": {"consolidateAfter": "1h", "consolidationPolicy": "WhenEmptyOrUnderutilized"},
        "limits": {"nodes": 2},
        "template": {
            "metadata": {
                "labels": {
                    "gpu-components/pool": "h100-mig",
                    "nvidia.com/device-plugin.config": "h100-mig",
                    "nvidia.com/mig.config": "all-1g.10gb",
                }
            },
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "h100-mig"},
                "requirements": requirements(
                    {
                        "key": "node.kubernetes.io/instance-type",
                        "operator": "In",
                        "values": ["p5.48xlarge", "p5.4xlarge"],
                    },
                    ["on-demand"],
                ),
                "taints": [GPU_TAINT],
            },
        },
    }
    assert pool.device_plugin_host == "gpu-operator"
    assert pool.autoscaler_note is not None
    assert pool.autoscaler_note.endswith(
        "MIG partitions are made by the GPU Operator's MIG manager after a node joins; until then the node "
        "advertises whole GPUs"
    )


def test_bottlerocket_pool_carries_its_device_plugin_settings_and_sizes_the_data_volume() -> None:
    plan, pool = plan_and(lambda: karpenter(BOTTLEROCKET, ami_type="BOTTLEROCKET_x86_64_NVIDIA"), preview=False)
    node_class, node_pool = custom_resources(plan, EC2_NODE_CLASS)
    assert node_class["spec"] == {
        "amiSelectorTerms": [{"alias": "bottlerocket@latest"}],
        "blockDeviceMappings": [
            {"deviceName": "/dev/xvda", "ebs": {"encrypted": True, "volumeSize": "4Gi", "volumeType": "gp3"}},
            {"deviceName": "/dev/xvdb", "ebs": {"encrypted": True, "volumeSize": "200Gi", "volumeType": "gp3"}},
        ],
        "role": "gpu-nodes",
        **SELECTORS,
        "userData": (
            "[settings.kubelet-device-plugins.nvidia]\n"
            'device-sharing-strategy = "time-slicing"\n\n'
            "[settings.kubelet-device-plugins.nvidia.time-slicing]\n"
            "replicas = 2\n"
            "rename-by-default = false\n"
            "fail-requests-greater-than-one = false\n"
        ),
    }
    assert node_pool["spec"]["template"]["metadata"] == {"labels": {"gpu-components/pool": "br"}}
    assert node_pool["spec"]["limits"] == {"nodes": 3}
    assert pool.device_plugin_host == "node-image"


def test_auto_mode_pool_renders_exact_crs_and_is_served_by_aws() -> None:
    plan, pool = plan_and(lambda: auto_mode(AUTO_L4), preview=False)
    node_class, node_pool = custom_resources(plan, AUTO_NODE_CLASS)
    assert node_class == {
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": {"name": "auto-l4"},
        "spec": {"ephemeralStorage": {"size": "100Gi"}, "role": "gpu-nodes", **SELECTORS},
    }
    assert node_pool == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "auto-l4"},
        "spec": {
            "disruption": {"consolidateAfter": "10m", "consolidationPolicy": "WhenEmpty"},
            "limits": {"nvidia.com/gpu": 8},
            "template": {
                "metadata": {"labels": {"gpu-components/pool": "auto-l4"}},
                "spec": {
                    "expireAfter": "336h",
                    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "auto-l4"},
                    "requirements": requirements(
                        {
                            "key": "node.kubernetes.io/instance-type",
                            "operator": "In",
                            "values": [
                                "g6.xlarge",
                                "g6.12xlarge",
                                "g6.16xlarge",
                                "g6.24xlarge",
                                "g6.2xlarge",
                                "g6.48xlarge",
                                "g6.4xlarge",
                                "g6.8xlarge",
                            ],
                        },
                        ["on-demand"],
                    ),
                    "taints": [GPU_TAINT, {"effect": "NoSchedule", "key": "team", "value": "ml"}],
                },
            },
        },
    }
    assert (pool.device_plugin_host, pool.advertised_resources, pool.autoscaler_note) == (
        "cloud",
        {"nvidia.com/gpu": 1},
        None,
    )


def test_reserved_capacity_selects_the_reservation() -> None:
    plan = plan_of(lambda: karpenter(RESERVED), preview=False)
    node_class, node_pool = custom_resources(plan, EC2_NODE_CLASS)
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert node_pool["spec"]["template"]["spec"]["requirements"] == requirements(
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5e.48xlarge"]}, ["reserved"]
    )


@pytest.mark.parametrize(
    ("component", "pool", "access"),
    [(EksKarpenterGpuNodePool, L40S_SHARED, "EC2_LINUX"), (EksAutoModeGpuNodePool, AUTO_L4, "EC2")],
    ids=["karpenter", "auto-mode"],
)
def test_without_a_role_the_pool_creates_one_with_its_access_entry(
    component: type[Any], pool: dict[str, Any], access: str
) -> None:
    wiring = {key: value for key, value in WIRING.items() if key != "node_role_arn"}
    plan = plan_of(lambda: component("gpu", {"pool": pool, **wiring}), preview=False)
    assert names(plan, "aws:iam/role:Role") == ["gpu-node-role"]
    role_arn = resource(plan, "aws:iam/role:Role", "gpu-node-role").outputs["arn"]
    entry = resource(plan, "aws:eks/accessEntry:AccessEntry", "gpu-access-entry").inputs
    assert dict(entry) == {"clusterName": "demo", "principalArn": role_arn, "type": access}
    policies = {r.name: dict(r.inputs) for r in plan.resources if r.type.endswith("AccessPolicyAssociation")}
    assert policies == (
        {}
        if access == "EC2_LINUX"
        else {
            "gpu-access-policy": {
                "accessScope": {"type": "cluster"},
                "clusterName": "demo",
                "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy",
                "principalArn": role_arn,
            }
        }
    )
    node_class = resource(
        plan,
        "kubernetes:"
        + ("karpenter.k8s.aws/v1:EC2NodeClass" if access == "EC2_LINUX" else "eks.amazonaws.com/v1:NodeClass"),
        "gpu-node-class",
    )
    role_name = resource(plan, "aws:iam/role:Role", "gpu-node-role").outputs["name"]
    assert node_class.inputs["spec"]["role"] == role_name


# ---------------------------------------------------------------------------------------------------------------
# Who advertises GPUs, through GpuCluster: one advertiser per node, and the DaemonSets reach every served node.

POOLS = {
    "karpenter-al2023": ({**L40S_SHARED}, {}),
    "karpenter-bottlerocket": ({**BOTTLEROCKET}, {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}),
    "eks-auto-mode": ({**AUTO_L4}, {}),
}


def _matches(expression: dict[str, Any], labels: dict[str, str]) -> bool:
    key, operator = expression["key"], expression["operator"]
    if operator == "In":
        return labels.get(key) in expression["values"]
    if operator == "NotIn":
        return labels.get(key) not in expression["values"]
    if operator == "Exists":
        return key in labels
    assert operator == "DoesNotExist", operator
    return key not in labels


def _tolerates(tolerations: list[dict[str, Any]], taint: dict[str, str]) -> bool:
    return any(
        t["key"] == taint["key"]
        and t.get("effect", taint["effect"]) == taint["effect"]
        and (t["operator"] == "Exists" or t.get("value", "") == taint.get("value", ""))
        for t in tolerations
    )


def _advertisers(plan: Plan, labels: dict[str, str], taints: list[dict[str, str]], host: str) -> list[str]:
    """Who advertises GPUs on a node with ``labels`` and ``taints``: the node image or AWS, the device plugin
    DaemonSet (its node affinity matches and it tolerates the taints), the GPU Operator's device plugin (operands
    not switched off on the node, and its DaemonSets tolerate the taints)."""
    found = [host] if host in ("node-image", "cloud") else []
    releases = {r.name: r.inputs["values"] for r in plan.resources if r.type == "kubernetes:helm.sh/v3:Release"}
    plugin = releases.get("c-device-plugin-release")
    if plugin is not None:
        terms = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        selected = any(all(_matches(e, labels) for e in t["matchExpressions"]) for t in terms["nodeSelectorTerms"])
        if selected and all(_tolerates(plugin["tolerations"], taint) for taint in taints):
            found.append("daemonset")
    operator = releases.get("c-gpu-operator-release")
    if operator is not None:
        off = {labels.get("nvidia.com/gpu.deploy.operands"), labels.get("nvidia.com/gpu.deploy.device-plugin")}
        tolerated = all(_tolerates(operator["daemonsets"]["tolerations"], taint) for taint in taints)
        if "false" not in off and tolerated:
            found.append("gpu-operator")
    return found


FIXED_BESIDE = {"name": "fixed", "max_size": 2}


@pytest.mark.parametrize("gpu_stack", ["auto", "device-plugin", "gpu-operator"])
@pytest.mark.parametrize("kind", list(POOLS))
def test_no_node_gets_two_device_plugins_and_served_nodes_get_theirs(kind: str, gpu_stack: str) -> None:
    pool, options = POOLS[kind]
    pools: list[dict[str, Any]] = [{**pool, "aws": options}]
    if gpu_stack == "gpu-operator" and kind != "karpenter-al2023":
        # The operator serves none of these pools (a sole one is refused: test_provisioned_bad_inputs): a fixed
        # pool it serves beside it deploys it.
        pools.append({key: value for key, value in L40S_SHARED.items() if key != "provisioning"} | FIXED_BESIDE)
    cluster = {"cloud": "aws", "gpu_stack": gpu_stack, "pools": pools, "aws": {**WIRING, "karpenter_controller": True}}
    if kind == "eks-auto-mode" and gpu_stack == "device-plugin":
        assert _problems(lambda: GpuCluster("c", cluster)) == [  # type: ignore[arg-type]
            "gpu_stack: pools[0] is served by aws's own device plugin, which the NVIDIA device plugin may not run "
            "beside (got 'device-plugin')"
        ]
        return
    plan, built = plan_and(lambda: GpuCluster("c", cluster), preview=False)  # type: ignore[arg-type]
    component = built.pools[pool["name"]]
    node_pool = dict(resource(plan, NODE_POOL, f"c-{pool['name']}-node-pool").inputs)
    template = node_pool["spec"]["template"]
    found = _advertisers(plan, template["metadata"]["labels"], template["spec"]["taints"], component.device_plugin_host)
    assert found == [component.device_plugin_host]


def test_an_auto_mode_pool_beside_an_operator_pool_keeps_every_operand_off() -> None:
    # A fixed pool beside it: a Karpenter pool may not share the cluster with an Auto Mode one.
    fixed = {key: value for key, value in L40S_SHARED.items() if key != "provisioning"} | {"max_size": 2}
    cluster = {
        "cloud": "aws",
        "gpu_stack": "gpu-operator",
        "pools": [fixed, AUTO_L4],
        "aws": {**WIRING, "karpenter_controller": True},
    }
    plan, built = plan_and(lambda: GpuCluster("c", cluster), preview=False)  # type: ignore[arg-type]
    auto = dict(resource(plan, NODE_POOL, "c-auto-l4-node-pool").inputs)["spec"]["template"]
    assert auto["metadata"]["labels"] == {"gpu-components/pool": "auto-l4", "nvidia.com/gpu.deploy.operands": "false"}
    assert _advertisers(plan, auto["metadata"]["labels"], auto["spec"]["taints"], "cloud") == ["cloud"]
    assert built.gpu_operator is not None and built.device_plugin is None


# ---------------------------------------------------------------------------------------------------------------
# Bad inputs: exact errors through the component, GpuCluster and the stack config.


@pytest.mark.parametrize(
    ("pools", "valid"),
    [
        # The operator would serve no pool, so gpu-operator is refused too (test_provisioned_bad_inputs).
        ([AUTO_L4], "auto"),
        (
            [{key: value for key, value in L40S_SHARED.items() if key != "provisioning"} | FIXED_BESIDE, AUTO_L4],
            "auto, or gpu-operator",
        ),
    ],
)
def test_device_plugin_on_an_auto_mode_pool_offers_gpu_operator_only_when_it_would_serve_a_pool(
    pools: list[dict[str, Any]], valid: str
) -> None:
    cluster = {
        "cloud": "aws",
        "gpu_stack": "device-plugin",
        "pools": pools,
        "aws": {**WIRING, "karpenter_controller": True},
    }
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: GpuCluster("c", cluster))  # type: ignore[arg-type]
    where = f"pools[{len(pools) - 1}]"
    assert [str(problem) for problem in caught.value.problems] == [
        f"gpu_stack: {where} is served by aws's own device plugin, which the NVIDIA device plugin may not run beside "
        f"(got 'device-plugin'); valid: {valid}"
    ]


def _problems(build: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(build)
    return [f"{p.path}: {p.message} (got {p.value!r})" for p in caught.value.problems]


SHARING_ON_AUTO = (
    "EKS Auto Mode nodes run AWS's own NVIDIA device plugin, which no NodeClass or NodePool field configures, and "
    "Auto Mode keeps any second device plugin off them"
)


def test_auto_mode_refuses_sharing_mig_and_long_expiry_but_takes_a_reservation() -> None:
    pool = {
        **AUTO_L4,
        "instance_type": "p5.48xlarge",
        "time_slicing": {"replicas": 2},
        "provisioning": {
            "provisioner": "eks-auto-mode",
            "max_nodes": 1,
            "capacity_types": ["reserved"],
            "reservation": "cr-0123456789abcdef0",
            "disruption": {"expire_after": "505h"},
        },
    }
    assert _problems(lambda: auto_mode(pool, node_class_spec={"role": "x"})) == [
        f"pool.time_slicing: {SHARING_ON_AUTO} (got 2)",
        "pool.provisioning.disruption.expire_after: EKS Auto Mode replaces every node after at most 21 days (504h) "
        "(got '505h')",
        "node_class_spec.role: set by gpu_components from the pool on the NodeClass (got 'x')",
    ]
    mig = {
        "name": "auto-mig",
        "instance_type": "p5.48xlarge",
        "mig": {"profile": "1g.10gb", "strategy": "single"},
        "provisioning": {"provisioner": "eks-auto-mode", "max_nodes": 1},
    }
    assert _problems(lambda: auto_mode(mig)) == [f"pool.mig: {SHARING_ON_AUTO} (got 'all-1g.10gb')"]


def test_components_refuse_another_provisioner_and_owned_spec_keys() -> None:
    assert _problems(lambda: auto_mode(L40S_SHARED)) == [
        "pool.provisioning.provisioner: this component realises eks-auto-mode pools (got 'karpenter')"
    ]
    fixed = {"name": "fixed", "instance_type": "g6e.xlarge", "max_size": 2}
    assert _problems(lambda: karpenter(fixed, node_pool_spec={"limits": {}, "weight": 10})) == [
        "pool.provisioning: required by this component: a pool provisioned by karpenter (got None)",
        "node_pool_spec.limits: set by gpu_components from the pool on the NodePool (got {})",
    ]
    assert _problems(lambda: karpenter(L40S_SHARED, ami_type="AL2023_ARM_64_NVIDIA")) == [
        "ami_type: built for arm64, but g6e.xlarge is x86_64 (got 'AL2023_ARM_64_NVIDIA')"
    ]


def test_gpu_cluster_refuses_fixed_pool_settings_on_provisioned_pools_and_the_reverse() -> None:
    pools = [
        {**L40S_SHARED, "aws": {"node_group_args": {"update_config": {}}, "node_class_spec": {"userData": "x"}}},
        {**AUTO_L4, "aws": {"ami_type": "AL2023_x86_64_NVIDIA"}},
        {"name": "fixed", "instance_type": "g6e.xlarge", "max_size": 2, "aws": {"node_pool_spec": {"weight": 1}}},
    ]
    cluster = {"cloud": "aws", "pools": pools, "aws": {**WIRING, "karpenter_controller": True}}
    assert _problems(lambda: GpuCluster("c", cluster)) == [  # type: ignore[arg-type]
        "pools[0].aws.node_group_args: an EKS managed node group setting; this pool is provisioned by karpenter "
        "(got {'update_config': {}})",
        "pools[0].aws.node_class_spec.userData: set by gpu_components from the pool on the EC2NodeClass (got 'x')",
        "pools[1].aws.ami_type: EKS Auto Mode chooses the node AMI itself (its NodeClass has no AMI setting) "
        "(got 'AL2023_x86_64_NVIDIA')",
        "pools[2].aws.node_pool_spec: a provisioned pool's setting (Karpenter NodePool / NodeClass spec); this pool "
        "is an EKS managed node group (got {'weight': 1})",
    ]


def test_stack_config_reports_auto_mode_sharing(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: auto-shared
      instance_type: g6.xlarge
      time_slicing:
        replicas: 2
      provisioning:
        provisioner: eks-auto-mode
        max_gpus: 4
"""
    result = plan_stack(
        tmp_path,
        "  gpu-components:cloud: aws\n"
        + CLUSTER
        + "    existing: true\n    subnet_ids: [subnet-a]\n    auto_mode: {existing: true}\n"
        + "    node_role_arn: arn:aws:iam::111122223333:role/auto-nodes\n"
        + pools,
    )
    assert stack_problems(result) == [f"pools[0].time_slicing: {SHARING_ON_AUTO} (got 2); valid: exclusive GPUs"]


def test_an_add_on_serves_a_plain_karpenter_pool_and_refuses_an_auto_mode_one() -> None:
    plan = plan_of(lambda: NvidiaDevicePlugin("dp", {"cloud": "aws", "pools": [L40S_SHARED]}))
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "dp-release").inputs["values"]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms == {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {"key": "nvidia.com/device-plugin.config", "operator": "In", "values": ["l40s-shared"]}
                ]
            }
        ]
    }
    assert _problems(lambda: NvidiaDevicePlugin("dp", {"cloud": "aws", "pools": [AUTO_L4]})) == [
        "pools[0]: its GPUs are advertised by the cloud's managed device plugin (GKE's, or EKS Auto Mode's); a second "
        "advertiser on its nodes would break them (got 'auto-l4')"
    ]
