"""A GKE ComputeClass has no startup taints, termination grace period or disruption budgets (issue 29): each is
refused with the reason, at the component and in the stack config."""

from __future__ import annotations

from pathlib import Path

from gpu_components.gcp import GkeComputeClassGpuPool
from tests.gcp.test_compute_class import problem_lines, provisioned
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

NOT_ON_COMPUTE_CLASS = [
    "pool.provisioning.startup_taints: a ComputeClass has no startup taints: its nodePoolConfig.taints stay on the "
    "nodes, and nothing removes them once an agent is ready (got [{'key': 'agent', 'effect': 'NoExecute'}]); valid: "
    "leave it out with provisioner compute-class",
    "pool.provisioning.disruption.termination_grace_period: a ComputeClass has no node termination grace period: GKE "
    "drains its nodes by the pods' own grace periods and PodDisruptionBudgets (got '1h'); valid: leave it out with "
    "provisioner compute-class",
    "pool.provisioning.disruption.budgets: a ComputeClass has no disruption budgets: GKE's autoscaler removes nodes "
    "by its own rules (got [{'nodes': '1'}]); valid: leave it out with provisioner compute-class",
]


def test_the_component_refuses_what_a_compute_class_has_no_field_for() -> None:
    pool = provisioned(
        provisioning={
            "startup_taints": [{"key": "agent", "effect": "NoExecute"}],
            "disruption": {"termination_grace_period": "1h", "budgets": [{"nodes": "1"}]},
        }
    )
    assert problem_lines(lambda: GkeComputeClassGpuPool("demo", {"pool": pool})) == NOT_ON_COMPUTE_CLASS  # type: ignore[typeddict-item]


def test_the_stack_config_refuses_startup_taints_on_a_compute_class(tmp_path: Path) -> None:
    config = """\
  gpu-components:cloud: gcp
  gcp:project: proj
  gpu-components:cluster:
    name: gpu-demo
    location: us-central1
  gpu-components:pools:
    - name: gpu
      instance_type: g2-standard-8
      provisioning:
        provisioner: compute-class
        max_gpus: 4
        startup_taints:
          - {key: agent, effect: NoExecute}
"""
    assert stack_problems(plan_stack(tmp_path, config)) == [
        "pools[0].provisioning.startup_taints: a ComputeClass has no startup taints: its nodePoolConfig.taints stay on "
        "the nodes, and nothing removes them once an agent is ready (got [{'key': 'agent', 'effect': 'NoExecute'}]); "
        "valid: leave it out with provisioner compute-class"
    ]
