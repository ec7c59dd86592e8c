"""Issue 29's provisioned-pool fields through the multi-language package (the provider's ``Construct``): startup
taints, budgets (an enum list) and the grace period arrive as the Python path gives them, and their errors name the
consumer's camelCase paths."""

from __future__ import annotations

from typing import Any

from gpu_components.aws.provisioned import EksKarpenterGpuNodePool
from tests.test_package_construct import ROLE, both_paths, construct_error

CILIUM = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
WIRING = {"cluster_name": "demo", "subnet_ids": ["subnet-a"], "node_role_arn": ROLE}
WIRED = {"clusterName": "demo", "subnetIds": ["subnet-a"], "nodeRoleArn": ROLE}


def test_startup_taints_budgets_and_grace_period_arrive_as_the_python_path_gives_them() -> None:
    disruption: dict[str, Any] = {
        "termination_grace_period": "2h",
        "budgets": [{"nodes": "0", "reasons": ["drifted", "empty"], "schedule": "@daily", "duration": "1h"}],
    }
    provisioning = {"provisioner": "karpenter", "max_gpus": 8, "startup_taints": [CILIUM], "disruption": disruption}
    python, constructed = both_paths(
        lambda: EksKarpenterGpuNodePool(
            "l40s",
            {"pool": {"name": "l40s", "instance_type": "g6e.xlarge", "provisioning": provisioning}, **WIRING},  # type: ignore[typeddict-item]
        ),
        "EksKarpenterGpuNodePool",
        "l40s",
        {
            "pool": {
                "name": "l40s",
                "instanceType": "g6e.xlarge",
                "provisioning": {
                    "provisioner": "karpenter",
                    "maxGpus": 8,
                    "startupTaints": [CILIUM],
                    "disruption": {
                        "terminationGracePeriod": "2h",
                        "budgets": [
                            {"nodes": "0", "reasons": ["drifted", "empty"], "schedule": "@daily", "duration": "1h"}
                        ],
                    },
                },
            },
            **WIRED,
        },
    )
    assert constructed.resources == python.resources
    [node_pool] = [r for r in python.resources if r.inputs.get("kind") == "NodePool"]
    assert node_pool.inputs["spec"]["disruption"]["budgets"] == [
        {"nodes": "0", "reasons": ["Drifted", "Empty"], "schedule": "@daily", "duration": "1h"}
    ]
    assert node_pool.inputs["spec"]["template"]["spec"]["startupTaints"] == [CILIUM]


def test_startup_taint_and_node_class_errors_name_camel_case_paths() -> None:
    pool = {
        "name": "l40s",
        "instanceType": "g6e.xlarge",
        "diskSizeGb": 200,
        "provisioning": {
            "provisioner": "eks-auto-mode",
            "maxGpus": 8,
            "startupTaints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
        },
    }
    error = construct_error("EksAutoModeGpuNodePool", {"pool": pool, **WIRED, "nodeClass": "default"})
    assert [(p.path, p.value) for p in error.problems] == [
        ("pool.provisioning.startupTaints[0].key", "nvidia.com/gpu"),
    ]
    del pool["provisioning"]["startupTaints"]  # type: ignore[attr-defined]
    error = construct_error("EksAutoModeGpuNodePool", {"pool": pool, **WIRED, "nodeClass": "default"})
    assert [(p.path, p.value) for p in error.problems] == [("nodeClass", "default")]
