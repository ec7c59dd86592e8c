"""AKS Node Auto Provisioning pools, round two (issue 29): startup taints, termination grace period and budgets in
the Karpenter NodePool (valid against Azure's copy of its CRD), the GPU add-on tolerating startup taints, and
``node_class_spec`` keys only where the AKSNodeClass CRD has fields."""

from __future__ import annotations

from typing import Any

from gpu_components.cluster import GpuCluster
from tests import crd_schemas
from tests.azure.test_nap import A100, NODE_POOL, RELEASE, WIRING, component_problems, custom_resource, nap_plan
from tests.helpers import plan_of, resource

CILIUM = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
LIFECYCLE: dict[str, Any] = {
    **A100,
    "provisioning": {
        **A100["provisioning"],
        "startup_taints": [CILIUM],
        "disruption": {"termination_grace_period": "2h", "budgets": [{"nodes": "1", "reasons": ["empty"]}]},
    },
}


def test_a_nap_pool_renders_startup_taints_grace_period_and_budgets_its_crd_takes() -> None:
    node_pool = custom_resource(nap_plan(LIFECYCLE), NODE_POOL, "p-node-pool")
    assert crd_schemas.problems(node_pool, "azure") == []
    template = node_pool["spec"]["template"]["spec"]
    assert (template["startupTaints"], template["terminationGracePeriod"]) == ([CILIUM], "2h")
    assert node_pool["spec"]["disruption"]["budgets"] == [{"nodes": "1", "reasons": ["Empty"]}]


def test_the_gpu_add_on_tolerates_a_nap_pools_startup_taints() -> None:
    plan = plan_of(lambda: GpuCluster("c", {"cloud": "azure", "pools": [LIFECYCLE], "azure": WIRING}))  # type: ignore[typeddict-item]
    [release] = [r for r in plan.resources if r.type == RELEASE]
    assert {**CILIUM, "operator": "Equal"} in release.inputs["values"]["tolerations"]
    assert resource(plan, NODE_POOL, "c-a100nap-node-pool").inputs["spec"]["template"]["spec"]["startupTaints"] == [
        CILIUM
    ]


def test_node_class_spec_keys_must_be_aks_node_class_fields() -> None:
    args = {"pool": A100, "node_class_spec": {"imageFamly": "AzureLinux", "kubelet": {"maxPods": 30}}}
    assert component_problems(args) == [
        (
            "node_class_spec.imageFamly",
            "not a field of the AKSNodeClass at spec; the CRD has spec.imageFamily",
        ),
        (
            "node_class_spec.kubelet.maxPods",
            "not a field of the AKSNodeClass at spec.kubelet; the CRD has spec.maxPods",
        ),
    ]
