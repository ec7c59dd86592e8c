"""Provisioned EKS pools, round two (issue 29): startup taints, termination grace period and disruption budgets in
the NodePool, escape-hatch keys only where the CRDs have fields, EKS Auto Mode reserved capacity and NodeClass
choice, and the Karpenter version's ReservedCapacity gate, at each entry point (component, GpuCluster, stack
config)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components import crd_fields
from gpu_components.aws import EksAutoModeGpuNodePool
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.workloads import gpu_pod_settings
from tests import crd_schemas
from tests.aws.test_provisioned import (
    AUTO_L4,
    AUTO_NODE_CLASS,
    EC2_NODE_CLASS,
    GPU_TAINT,
    NODE_POOL,
    RESERVED,
    WIRING,
    _problems,
    auto_mode,
    custom_resources,
    karpenter,
)
from tests.helpers import plan_and, plan_of, resource
from tests.test_stack_config_problems import CLUSTER
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

CILIUM = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
LIFECYCLE = {
    "name": "train",
    "instance_type": "g6e.xlarge",
    "provisioning": {
        "provisioner": "karpenter",
        "max_gpus": 8,
        "startup_taints": [CILIUM],
        "disruption": {
            "expire_after": "168h",
            "termination_grace_period": "24h",
            "budgets": [
                {
                    "nodes": "0",
                    "reasons": ["underutilized", "drifted"],
                    "schedule": "0 9 * * mon-fri",
                    "duration": "8h",
                },
                {"nodes": "20%"},
            ],
        },
    },
}


def test_karpenter_pool_renders_startup_taints_grace_period_and_budgets_the_crd_takes() -> None:
    plan = plan_of(lambda: karpenter(LIFECYCLE), preview=False)
    _, node_pool = custom_resources(plan, EC2_NODE_CLASS)
    template = node_pool["spec"]["template"]["spec"]
    assert (template["taints"], template["startupTaints"]) == ([GPU_TAINT], [CILIUM])
    assert (template["expireAfter"], template["terminationGracePeriod"]) == ("168h", "24h")
    assert node_pool["spec"]["disruption"] == {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": "10m",
        "budgets": [
            {"nodes": "0", "reasons": ["Underutilized", "Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"},
            {"nodes": "20%"},
        ],
    }


def test_startup_taints_are_not_the_pools_tolerations() -> None:
    plan = plan_of(lambda: karpenter(LIFECYCLE), preview=False)
    outputs = resource(plan, "gpu-components:index:EksKarpenterGpuNodePool", "gpu").outputs
    assert outputs["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


def test_auto_mode_pool_renders_the_same_lifecycle_fields() -> None:
    pool = {**LIFECYCLE, "provisioning": {**LIFECYCLE["provisioning"], "provisioner": "eks-auto-mode"}}  # type: ignore[dict-item]
    plan = plan_of(lambda: auto_mode(pool), preview=False)
    _, node_pool = custom_resources(plan, AUTO_NODE_CLASS)
    assert node_pool["spec"]["template"]["spec"]["startupTaints"] == [CILIUM]
    assert node_pool["spec"]["template"]["spec"]["terminationGracePeriod"] == "24h"


def _pool(**provisioning: Any) -> dict[str, Any]:
    return {**LIFECYCLE, "provisioning": {"provisioner": "karpenter", "max_gpus": 8, **provisioning}}


def test_the_gpu_taint_or_a_pool_taint_is_never_a_startup_taint() -> None:
    pool = {
        **_pool(
            startup_taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}, {"key": "team", "effect": "NoExecute"}]
        ),
        "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
    }
    assert _problems(lambda: karpenter(pool)) == [
        "pool.provisioning.startup_taints[0].key: the GPU taint is never a startup taint: it stays on GPU nodes so "
        "only pods that tolerate it land there, and no agent removes it (got 'nvidia.com/gpu')",
        "pool.provisioning.startup_taints[1].key: already a key of the pool's taints, which stay on the nodes: as a "
        "startup taint too the node would keep one after the agent removes the other (got 'team')",
    ]


def test_budgets_follow_the_crds_rules() -> None:
    budgets = [
        {"nodes": "101%"},
        {"nodes": "1", "reasons": ["empty", "empty"], "schedule": "@daily"},
        {"nodes": "1", "duration": "30s", "schedule": "daily"},
    ]
    assert _problems(lambda: karpenter(_pool(disruption={"budgets": budgets, "termination_grace_period": "1d"}))) == [
        "pool.provisioning.disruption.termination_grace_period: not a duration (got '1d')",
        "pool.provisioning.disruption.budgets[0].nodes: not a node count or percentage (got '101%')",
        "pool.provisioning.disruption.budgets[1].reasons[1]: given twice (got 'empty')",
        "pool.provisioning.disruption.budgets[1].duration: a budget's schedule and duration go together: schedule is "
        "set, so duration is required (without both, the budget is always active) (got None)",
        "pool.provisioning.disruption.budgets[2].schedule: not a cron schedule: 1 fields, not 5 (minute hour "
        "day-of-month month day-of-week) (got 'daily')",
        "pool.provisioning.disruption.budgets[2].duration: not a budget duration: hours and minutes only, as cron "
        "does not work in seconds (got '30s')",
    ]


@pytest.mark.parametrize(
    ("schedule", "why"),
    [
        ("0 25 * * *", "hour '25' is not *, 0-23"),
        ("0 8 * * 8", "day-of-week '8' is not *, 0-6 or sun-sat"),
        ("a b c d e", "minute 'a' is not *, 0-59"),
        ("0 8 * * mon-fri extra", "6 fields, not 5"),
        ("@dailyx", "not a cron macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)"),
        ("0 8 32 * *", "day-of-month '32' is not *, 1-31"),
        ("0 8 * 0 *", "month '0' is not *, 1-12 or jan-dec"),
        ("*/0 8 * * *", "minute '*/0' is not *, 0-59"),
        ("0 8-5 * * *", "hour '8-5' is not *, 0-23"),
    ],
)
def test_a_bad_budget_schedule_names_the_bad_field(schedule: str, why: str) -> None:
    budgets = [{"nodes": "1", "schedule": schedule, "duration": "8h"}]
    (problem,) = _problems(lambda: karpenter(_pool(disruption={"budgets": budgets})))
    assert problem.startswith("pool.provisioning.disruption.budgets[0].schedule: ")
    assert why in problem
    assert problem.endswith(f"(got {schedule!r})")


@pytest.mark.parametrize(
    "schedule",
    ["@daily", "@annually", "@hourly", "0 9 * * mon-fri", "*/15 0-6,22-23 1,15 jan-mar,DEC 0-6/2", "0 0 1 12 sun"],
)
def test_a_valid_budget_schedule_is_accepted(schedule: str) -> None:
    budgets = [{"nodes": "1", "schedule": schedule, "duration": "8h"}]
    karpenter(_pool(disruption={"budgets": budgets}))


def test_an_unknown_budget_reason_is_refused_with_the_closest() -> None:
    bad = _pool(disruption={"budgets": [{"nodes": "1", "reasons": ["Drifted"]}]})
    assert _problems(lambda: karpenter(bad)) == [
        "pool.provisioning.disruption.budgets[0].reasons[0]: not one of the allowed values; did you mean 'drifted'? "
        "(got 'Drifted')"
    ]


# ---------------------------------------------------------------------------------------------------------------
# Escape hatches
# ---------------------------------------------------------------------------------------------------------------


def test_escape_hatch_keys_must_be_crd_fields_and_name_the_real_path() -> None:
    hatches = {
        "node_pool_spec": {"startupTaints": [CILIUM], "weight": 10},
        "node_class_spec": {"metadataOptions": {"httpToken": "required"}, "tags": {"team": "ml"}},
    }
    assert _problems(lambda: karpenter(LIFECYCLE, **hatches)) == [
        "node_pool_spec.startupTaints: not a field of the NodePool at spec; the CRD has "
        "spec.template.spec.startupTaints, which gpu_components sets from the pool (got 'startupTaints')",
        "node_class_spec.metadataOptions.httpToken: not a field of the EC2NodeClass at spec.metadataOptions; the CRD "
        "has spec.metadataOptions.httpTokens (got 'httpToken')",
    ]


def test_gpu_cluster_checks_escape_hatch_paths_too() -> None:
    pools = [{**LIFECYCLE, "aws": {"node_pool_spec": {"expireAfter": "1h"}}}]
    assert _problems(
        lambda: GpuCluster("c", {"cloud": "aws", "pools": pools, "aws": {**WIRING, "karpenter_controller": True}})
    ) == [  # type: ignore[arg-type]
        "pools[0].aws.node_pool_spec.expireAfter: not a field of the NodePool at spec; the CRD has "
        "spec.template.spec.expireAfter, which gpu_components sets from the pool (got 'expireAfter')",
    ]


# ---------------------------------------------------------------------------------------------------------------
# EKS Auto Mode: reserved capacity, NodeClass choice
# ---------------------------------------------------------------------------------------------------------------

AUTO_RESERVED = {
    **RESERVED,
    "name": "auto-reserved",
    "provisioning": {**RESERVED["provisioning"], "provisioner": "eks-auto-mode"},
}  # type: ignore[dict-item]


def test_auto_mode_reserved_capacity_selects_the_reservation_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan = plan_of(lambda: auto_mode(AUTO_RESERVED), preview=False)
    node_class = dict(resource(plan, AUTO_NODE_CLASS, "gpu-node-class").inputs)
    node_pool = dict(resource(plan, NODE_POOL, "gpu-node-pool").inputs)
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    # The NodeClass schema copy predates capacityReservationSelectorTerms (SOURCES.md: a missing field is unknown
    # there, not invalid; AWS documents it, SOURCE_AUTO_RESERVATIONS): the rest is checked against it.
    rest = {
        **node_class,
        "spec": {k: v for k, v in node_class["spec"].items() if k != "capacityReservationSelectorTerms"},
    }
    assert crd_schemas.problems(rest, "aws") == []
    assert crd_schemas.problems(node_pool, "aws") == []
    assert node_pool["spec"]["template"]["spec"]["requirements"][1]["values"] == ["reserved"]
    assert [r.getMessage() for r in caplog.records if "open On-Demand" in r.getMessage()] == [
        "gpu-components:index:EksAutoModeGpuNodePool (gpu): EKS Auto Mode: this pool's NodeClass has "
        "capacityReservationSelectorTerms, so Auto Mode no longer launches "
        "into open On-Demand Capacity Reservations for any NodeClass of the cluster: an open ODCR is used only where a "
        "NodeClass selects it (https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html)"
    ]


def test_auto_mode_refuses_a_reservation_that_is_not_an_id() -> None:
    pool = {**AUTO_RESERVED, "provisioning": {**AUTO_RESERVED["provisioning"], "reservation": "my-block"}}
    assert _problems(lambda: auto_mode(pool)) == [
        "pool.provisioning.reservation: not an EC2 capacity reservation id: the NodeClass's "
        "capacityReservationSelectorTerms[].id takes only one (got 'my-block')"
    ]


def test_auto_mode_pool_on_the_default_node_class_creates_no_node_class_or_role() -> None:
    plan = plan_of(lambda: auto_mode(AUTO_L4, node_class="default"), preview=False)
    assert [r.name for r in plan.resources if "node-class" in r.name or "role" in r.name] == []
    node_pool = dict(resource(plan, NODE_POOL, "gpu-node-pool").inputs)
    assert crd_schemas.problems(node_pool, "aws") == []
    assert node_pool["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "eks.amazonaws.com",
        "kind": "NodeClass",
        "name": "default",
    }
    outputs = resource(plan, "gpu-components:index:EksAutoModeGpuNodePool", "gpu").outputs
    assert outputs["nodeRoleArn"] == WIRING["node_role_arn"]


def test_the_default_node_class_takes_no_per_pool_node_class_settings() -> None:
    pool = {**AUTO_RESERVED, "disk_size_gb": 200}
    no_role = {k: v for k, v in WIRING.items() if k != "node_role_arn"}
    with_settings = lambda: EksAutoModeGpuNodePool(  # noqa: E731
        "gpu",
        {"pool": pool, **no_role, "node_class": "default", "node_class_spec": {"tags": {}}},  # type: ignore[typeddict-item]
    )
    assert _problems(with_settings) == [
        "node_class: NodeClass default is not the pool's own: its settings are its own, so pool.disk_size_gb, "
        "pool.provisioning.reservation, node_class_spec (settings the library writes into the pool's NodeClass) "
        "would not reach the nodes (got 'default')",
        "node_role_arn: required with node_class 'default': no role is created for a NodeClass the pool does not "
        "own; give the role that NodeClass's nodes use (for default, the cluster's Auto Mode node role, "
        "compute_config.node_role_arn), reported as the node_role_arn output (got None)",
    ]
    assert _problems(lambda: auto_mode(AUTO_L4, node_class="Default_")) == [
        "node_class: not a NodeClass name (got 'Default_')"
    ]


def test_gpu_cluster_pool_options_name_the_node_class() -> None:
    pools = [
        {**AUTO_L4, "disk_size_gb": 120, "aws": {"node_class": "default"}},
        {**LIFECYCLE, "aws": {"node_class": "x"}},
    ]
    assert _problems(
        lambda: GpuCluster("c", {"cloud": "aws", "pools": pools, "aws": {**WIRING, "karpenter_controller": True}})
    ) == [  # type: ignore[arg-type]
        "pools[0].aws.node_class: NodeClass default is not the pool's own: its settings are its own, so "
        "pools[0].disk_size_gb (settings the library writes into the pool's NodeClass) would not reach the nodes "
        "(got 'default')",
        "pools[1].aws.node_class: an EKS Auto Mode pool's setting; a Karpenter pool has an EC2NodeClass of its own "
        "(got 'x')",
    ]
    plan = plan_of(
        lambda: GpuCluster(
            "c",
            {
                "cloud": "aws",
                "pools": [{**AUTO_L4, "aws": {"node_class": "default"}}],
                "aws": {**WIRING, "karpenter_controller": True},
            },
        )  # type: ignore[arg-type]
    )
    assert (
        resource(plan, NODE_POOL, "c-auto-l4-node-pool").inputs["spec"]["template"]["spec"]["nodeClassRef"]["name"]
        == "default"
    )


# ---------------------------------------------------------------------------------------------------------------
# Stack config: the Karpenter version's ReservedCapacity gate; startup taints and budgets
# ---------------------------------------------------------------------------------------------------------------

RESERVED_POOL = """\
  gpu-components:pools:
    - name: h200
      instance_type: p5e.48xlarge
      provisioning:
        provisioner: karpenter
        max_nodes: 1
        capacity_types: [reserved]
        reservation: cr-0123456789abcdef0
"""


@pytest.mark.parametrize(
    ("karpenter_config", "expected"),
    [
        (
            "    karpenter:\n      version: 1.2.1\n",
            "cluster.karpenter.version: Karpenter supports capacity reservations from 1.3.0 on, and pools[0] use "
            "reserved capacity (got '1.2.1'); valid: a release from 1.3.0 on (the gate on by default from 1.6.0), "
            "e.g. 1.14.1",
        ),
        (
            "    karpenter:\n      version: 1.5.0\n",
            "cluster.karpenter.version: Karpenter's ReservedCapacity feature gate is off by default before 1.6.0, and "
            "pools[0] use reserved capacity (got '1.5.0'); valid: "
            "cluster.karpenter.helm_values.settings.featureGates.reservedCapacity: true, or a release from 1.6.0 on",
        ),
        (
            "    karpenter:\n      helm_values:\n        settings:\n          featureGates:\n"
            "            reservedCapacity: false\n",
            "cluster.karpenter.helm_values.settings.featureGates.reservedCapacity: the ReservedCapacity feature gate "
            "is what lets Karpenter launch reserved capacity, which pools[0] use (capacity type reserved) (got "
            "False); valid: true, or leave it out",
        ),
    ],
    ids=["before-1.3", "gate-off-by-default", "gate-turned-off"],
)
def test_stack_config_refuses_reserved_pools_without_the_gate(
    tmp_path: Path, karpenter_config: str, expected: str
) -> None:
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + karpenter_config + RESERVED_POOL)
    assert stack_problems(result) == [expected]


def test_stack_config_takes_a_1_5_karpenter_with_the_gate_on(tmp_path: Path) -> None:
    karpenter_config = (
        "    karpenter:\n      version: 1.5.0\n      helm_values:\n        settings:\n          featureGates:\n"
        "            reservedCapacity: true\n"
    )
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + karpenter_config + RESERVED_POOL)
    assert result.exit_code == 0, result.output


GTE_POOL = """\
  gpu-components:pools:
    - name: l40s
      instance_type: g6e.xlarge
      provisioning:
        provisioner: karpenter
        instance_families: [g6e]
        max_gpus: 8
        gpu_requirements:
          - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [l40s]}
          - {key: karpenter.k8s.aws/instance-gpu-count, operator: Lte, values: ["1"]}
"""


def test_stack_config_refuses_gte_requirements_before_karpenter_1_9(tmp_path: Path) -> None:
    karpenter_config = "    karpenter:\n      version: 1.8.3\n"
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + karpenter_config + GTE_POOL)
    assert stack_problems(result) == [
        "cluster.karpenter.version: Karpenter takes the Gte and Lte requirement operators from 1.9.0 on (its NodePool "
        "CRD refuses them before), and pools[0].provisioning.gpu_requirements[1] use them (got '1.8.3'); valid: a "
        "release from 1.9.0 on, e.g. 1.14.1; or Gt and Lt (Gte N is Gt N-1)"
    ]


@pytest.mark.parametrize("karpenter_config", ["    karpenter:\n      version: 1.9.0\n", "    karpenter: {}\n"])
def test_stack_config_takes_gte_requirements_from_karpenter_1_9(tmp_path: Path, karpenter_config: str) -> None:
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + karpenter_config + GTE_POOL)
    assert result.exit_code == 0, result.output


def test_stack_config_reports_startup_taint_and_budget_problems(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: train
      instance_type: g6e.xlarge
      provisioning:
        provisioner: karpenter
        max_gpus: 8
        startup_taints:
          - {key: nvidia.com/gpu, effect: NoSchedule}
        disruption:
          budgets:
            - {nodes: "1", duration: 8h}
"""
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + "    karpenter: {}\n" + pools)
    assert stack_problems(result) == [
        "pools[0].provisioning.disruption.budgets[0].schedule: a budget's schedule and duration go together: duration "
        "is set, so schedule is required (without both, the budget is always active) (got None); valid: schedule and "
        "duration, or neither",
        "pools[0].provisioning.startup_taints[0].key: the GPU taint is never a startup taint: it stays on GPU nodes "
        "so only pods that tolerate it land there, and no agent removes it (got 'nvidia.com/gpu'); valid: another key "
        "(the GPU taint is the pool's gpu_taint)",
    ]


def test_gpu_pod_settings_of_a_component_refuse_do_not_disrupt_without_a_grace_period() -> None:
    no_grace = {**LIFECYCLE, "provisioning": {"provisioner": "karpenter", "max_gpus": 8}}
    _, pool = plan_and(lambda: karpenter(no_grace))
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(pool, 1, do_not_disrupt=True)
    assert [(p.path, p.valid) for p in caught.value.problems] == [
        (
            "do_not_disrupt",
            "set pool train's provisioning.disruption.termination_grace_period (e.g. 24h), or its "
            "provisioning.disruption.expire_after: Never",
        )
    ]
    _, graced = plan_and(lambda: karpenter(LIFECYCLE))
    assert gpu_pod_settings(graced, 1, do_not_disrupt=True)["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}


def test_gpu_cluster_wiring_needs_the_node_role_for_a_node_class_the_pool_does_not_own() -> None:
    no_role = {k: v for k, v in WIRING.items() if k != "node_role_arn"}
    pools = [{**AUTO_L4, "aws": {"node_class": "default"}}]
    assert _problems(lambda: GpuCluster("c", {"cloud": "aws", "pools": pools, "aws": no_role})) == [  # type: ignore[arg-type]
        "aws.node_role_arn: required with node_class 'default': no role is created for a NodeClass the pool does not "
        "own; give the role that NodeClass's nodes use (for default, the cluster's Auto Mode node role, "
        "compute_config.node_role_arn), reported as the node_role_arn output (got None)"
    ]


AUTO_CLUSTER = (
    "    existing: true\n    subnet_ids: [subnet-a]\n    auto_mode: {existing: true}\n"
    "    node_role_arn: arn:aws:iam::111122223333:role/auto-nodes\n"
)
AUTO_POOL = """\
  gpu-components:pools:
    - name: auto-l4
      instance_type: g6.xlarge
      aws: {node_class: default}
      provisioning:
        provisioner: eks-auto-mode
        max_gpus: 4
"""


def test_stack_config_puts_an_auto_mode_pool_on_the_default_node_class(tmp_path: Path) -> None:
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + AUTO_CLUSTER + AUTO_POOL)
    assert result.exit_code == 0, result.output
    sized = AUTO_POOL.replace("      aws:", "      disk_size_gb: 150\n      aws:")
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + AUTO_CLUSTER + sized)
    assert stack_problems(result) == [
        "pools[0].aws.node_class: NodeClass default is not the pool's own: its settings are its own, so "
        "pools[0].disk_size_gb (settings the library writes into the pool's NodeClass) would not reach the nodes "
        "(got 'default'); valid: leave node_class out (the pool gets a NodeClass of its own), or drop those settings"
    ]


def test_gpu_cluster_renders_lifecycle_fields_and_its_device_plugin_tolerates_the_startup_taint() -> None:
    plan = plan_of(
        lambda: GpuCluster(
            "c", {"cloud": "aws", "pools": [LIFECYCLE], "aws": {**WIRING, "karpenter_controller": True}}
        ),
        preview=False,
    )  # type: ignore[arg-type]
    node_pool = dict(resource(plan, NODE_POOL, "c-train-node-pool").inputs)
    assert crd_schemas.problems(node_pool, "aws") == []
    assert node_pool["spec"]["template"]["spec"]["startupTaints"] == [CILIUM]
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "c-device-plugin-release").inputs["values"]
    assert {**CILIUM, "operator": "Equal"} in values["tolerations"]


def test_gpu_cluster_renders_auto_mode_reserved_capacity() -> None:
    plan = plan_of(
        lambda: GpuCluster(
            "c", {"cloud": "aws", "pools": [AUTO_RESERVED], "aws": {**WIRING, "karpenter_controller": True}}
        ),
        preview=False,
    )  # type: ignore[arg-type]
    node_class = resource(plan, AUTO_NODE_CLASS, "c-auto-reserved-node-class").inputs
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]


def test_stack_config_refuses_an_escape_hatch_key_the_crd_lacks(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: train
      instance_type: g6e.xlarge
      aws:
        node_class_spec: {metadataOption: {}}
      provisioning:
        provisioner: karpenter
        max_gpus: 8
"""
    result = plan_stack(tmp_path, "  gpu-components:cloud: aws\n" + CLUSTER + "    karpenter: {}\n" + pools)
    assert stack_problems(result) == [
        "pools[0].aws.node_class_spec.metadataOption: not a field of the EC2NodeClass at spec; the CRD has "
        "spec.metadataOptions (got 'metadataOption'); valid: " + ", ".join(sorted(crd_fields.trees()["EC2NodeClass"]))
    ]
