"""KarpenterController under the plan's mocks, and GpuCluster's check that a cluster with Karpenter pools runs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pytest
from click.testing import CliRunner

from gpu_components import GpuCluster
from gpu_components.aws import EksKarpenterGpuNodePool, KarpenterController
from gpu_components.cli import main
from gpu_components.errors import GpuSpecError
from gpu_components.plan import Plan
from tests.aws.test_provisioned import L40S_SHARED, WIRING
from tests.helpers import ROOT, names, plan_and, plan_of, resource
from tests.plan.test_yaml_program import ROLE, write

RELEASE = "kubernetes:helm.sh/v3:Release"
CONTROLLER = "gpu-components:index:KarpenterController"


def controller_plan(args: dict[str, Any]) -> tuple[Plan, KarpenterController]:
    def build() -> KarpenterController:
        provider = pulumi.ProviderResource("kubernetes", "prod-k8s", {})
        controller = KarpenterController("karpenter", args, pulumi.ResourceOptions(providers={"kubernetes": provider}))  # type: ignore[arg-type]
        pulumi.export("nodeRoleArn", controller.node_role_arn)
        return controller

    return plan_and(build, preview=False)


def test_on_a_users_cluster_it_installs_the_chart_on_the_given_nodes_and_no_second_pod_identity_agent() -> None:
    plan, controller = controller_plan(
        {"cluster_name": "prod", "node_selector": {"node-role": "ops"}, "pod_identity_agent": False}
    )
    release = resource(plan, RELEASE, "karpenter-release")
    assert release.inputs["values"] == {
        "settings": {"clusterName": "prod", "interruptionQueue": "prod"},
        "serviceAccount": {"name": "karpenter"},
        "nodeSelector": {"node-role": "ops"},
        "controller": {
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
        },
    }
    assert (release.inputs["version"], release.inputs["namespace"]) == ("1.14.1", "kube-system")
    assert release.provider_reference.split("::")[-2] == "prod-k8s"
    assert names(plan, "aws:eks/addon:Addon") == []
    component = resource(plan, CONTROLLER, "karpenter")
    assert {r.name for r in plan.resources if r.parent == component.urn} == {
        "karpenter-node-role",
        *(f"karpenter-node-role-{suffix}" for suffix in ("worker", "ecr", "cni", "ssm")),
        "karpenter-node-access",
        "karpenter-queue",
        "karpenter-queue-policy",
        *(f"karpenter-{event}" for event in ("health", "spot", "rebalance", "state-change", "reservation")),
        *(f"karpenter-{event}-target" for event in ("health", "spot", "rebalance", "state-change", "reservation")),
        "karpenter-controller",
        "karpenter-pod-identity",
        "karpenter-release",
    }
    assert plan.outputs["nodeRoleArn"] == resource(plan, "aws:iam/role:Role", "karpenter-node-role").outputs["arn"]
    assert controller.version == "1.14.1"


def test_bad_args_are_every_problem_at_once_before_anything_is_registered() -> None:
    args = {
        "cluster_name": "prod cluster",
        "version": "0.37.0",
        "helm_values": {"settings": {"clusterName": "other"}},
        "replicas": 3,
    }
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: KarpenterController("karpenter", args))  # type: ignore[arg-type]
    assert [(p.path, p.value) for p in error.value.problems] == [
        ("replicas", 3),
        ("cluster_name", "prod cluster"),
        ("version", "0.37.0"),
        ("helm_values.settings.clusterName", "other"),
    ]
    assert error.value.problems[2].message == (
        "not a Karpenter release the library supports: its NodePools and EC2NodeClasses are karpenter.sh/v1 and "
        "karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on"
    )


KARPENTER_POOL = "aws.karpenter_controller: pools[0] (l40s-shared) is a Karpenter pool, whose NodePool and "
KARPENTER_REASON = (
    "EC2NodeClass only a running Karpenter controller reads, and GpuCluster does not install one (got {}); valid: "
    "true once the cluster runs Karpenter 1.0 or later (a KarpenterController, with its node_role_arn as "
    "aws.node_role_arn), or no Karpenter pool [source: https://karpenter.sh/v1.14/getting-started/"
    "getting-started-with-karpenter/]"
)


@pytest.mark.parametrize("said", [None, False], ids=["unsaid", "false"])
def test_gpu_cluster_refuses_karpenter_pools_on_a_cluster_not_said_to_run_karpenter(said: bool | None) -> None:
    wiring = WIRING if said is None else {**WIRING, "karpenter_controller": said}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", {"cloud": "aws", "aws": wiring, "pools": [L40S_SHARED]}))  # type: ignore[arg-type]
    assert [str(p) for p in error.value.problems] == [KARPENTER_POOL + KARPENTER_REASON.format(said)]


def test_gpu_cluster_refuses_karpenter_pools_without_the_controllers_node_role() -> None:
    wiring = {key: value for key, value in WIRING.items() if key != "node_role_arn"}
    args = {"cloud": "aws", "aws": {**wiring, "karpenter_controller": True}, "pools": [L40S_SHARED]}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", args))  # type: ignore[arg-type]
    assert [str(p) for p in error.value.problems] == [
        "aws.node_role_arn: pools[0] (l40s-shared) is a Karpenter pool: its nodes must use the Karpenter controller's "
        "node role, the one role the controller's policy lets it pass to EC2 (iam:PassRole); a role made for the pool "
        "would never launch a node (got None); valid: the ARN of the controller's node role (KarpenterController's "
        "node_role_arn output) [source: https://karpenter.sh/v1.14/getting-started/getting-started-with-karpenter/]"
    ]


def test_gpu_cluster_takes_karpenter_pools_with_the_controllers_node_role() -> None:
    def build() -> GpuCluster:
        provider = pulumi.ProviderResource("kubernetes", "k8s", {})
        controller = KarpenterController(
            "karpenter", {"cluster_name": "demo"}, pulumi.ResourceOptions(providers={"kubernetes": provider})
        )
        wiring = {**WIRING, "node_role_arn": controller.node_role_arn, "karpenter_controller": True}
        return GpuCluster(
            "c",
            {"cloud": "aws", "aws": wiring, "pools": [L40S_SHARED]},  # type: ignore[typeddict-item]
            pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=[controller]),
        )

    plan, cluster = plan_and(build, preview=False)
    pool = cluster.pools["l40s-shared"]
    assert isinstance(pool, EksKarpenterGpuNodePool)
    node_class = resource(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "c-l40s-shared-node-class")
    node_role = resource(plan, "aws:iam/role:Role", "karpenter-node-role")
    assert node_class.inputs["spec"]["role"] == node_role.outputs["name"]
    assert names(plan, "aws:eks/accessEntry:AccessEntry") == ["karpenter-node-access"]


def test_a_yaml_program_gets_the_same_refusal(tmp_path: Path) -> None:
    program = f"""\
packages:
  gpu-components: {ROOT}
resources:
  gpus:
    type: gpu-components:index:GpuCluster
    properties:
      cloud: aws
      aws: {{clusterName: demo, subnetIds: [subnet-a], nodeRoleArn: "{ROLE}"}}
      pools:
        - {{name: l40s-shared, instanceType: g6e.xlarge, provisioning: {{provisioner: karpenter, maxGpus: 8}}}}
"""
    write(tmp_path, program, "config: {}\n")
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1] == (
        "  - aws.karpenterController: pools[0] (l40s-shared) is a Karpenter pool, whose NodePool and "
        + KARPENTER_REASON.format("None")
    )


def test_an_output_cluster_name_is_refused_as_an_output_not_by_its_repr() -> None:
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: KarpenterController("karpenter", {"cluster_name": pulumi.Output.from_input("demo")}))  # type: ignore[typeddict-item]
    assert [str(p) for p in error.value.problems] == [
        "cluster_name: input should be a valid string (got a pulumi.Output, a value known only once deployed: this "
        "field must be plain); valid: a string"
    ]
