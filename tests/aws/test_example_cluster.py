"""The example program's EKS cluster with a provisioner: the Karpenter controller (IAM, Pod Identity, interruption
queue and rules, access entry, chart) or EKS Auto Mode, created or attached, its config rules, and the offline plan of
a stack with each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from click.testing import CliRunner

from gpu_components.adapter import ProvisionedCluster
from gpu_components.aws import cluster as eks_cluster
from gpu_components.aws import karpenter_controller
from gpu_components.aws.facts import KARPENTER_VERSION
from gpu_components.cli import main
from gpu_components.plan import UNKNOWN, Plan, load_stack, run_program
from gpu_components.program import main as example_program
from tests.helpers import BOTH_MODES, ROOT, copy_example_project, inputs_by_name, names, plan_and, resource

CONFIG = {"aws:region": "us-west-2"}
ACCOUNT = "123456789012"
RELEASE = "kubernetes:helm.sh/v3:Release"


def exported(provisioned: ProvisionedCluster) -> ProvisionedCluster:
    """Export the wiring (its outputs resolve only inside the run)."""
    pulumi.export("wiring", provisioned.wiring)
    return provisioned


def plan_cluster(config: dict[str, Any], preview: bool = False) -> tuple[Plan, ProvisionedCluster]:
    return plan_and(lambda: exported(eks_cluster.provision(config)), preview, CONFIG)


def karpenter_plan(preview: bool = False, **karpenter: Any) -> Plan:
    """A new cluster ``demo`` with Karpenter, its chart installed through a Kubernetes provider as the program does."""

    def build() -> ProvisionedCluster:
        provisioned = exported(eks_cluster.provision({"name": "demo", "karpenter": karpenter}))
        assert provisioned.kubernetes is not None
        provider = pulumi.ProviderResource("kubernetes", "demo-k8s", {})
        installed = provisioned.kubernetes(provider)
        pulumi.export("installed", [r.urn for r in installed.depends_on])
        pulumi.export("installedWiring", installed.wiring)
        return provisioned

    return plan_and(build, preview, CONFIG)[0]


def role_arn(plan: Plan, name: str) -> str:
    return str(resource(plan, "aws:iam/role:Role", name).outputs["arn"])


def test_karpenter_node_role_has_the_documented_policies_and_an_ec2_linux_access_entry() -> None:
    plan = karpenter_plan()
    node_role = resource(plan, "aws:iam/role:Role", "demo-karpenter-node-role").inputs
    assert json.loads(node_role["assumeRolePolicy"]) == {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
    attachments = inputs_by_name(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    assert {name: attachment["policyArn"] for name, attachment in attachments.items() if "karpenter-node" in name} == {
        "demo-karpenter-node-role-worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "demo-karpenter-node-role-ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "demo-karpenter-node-role-cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
        "demo-karpenter-node-role-ssm": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    }
    entry = resource(plan, "aws:eks/accessEntry:AccessEntry", "demo-karpenter-node-access").inputs
    assert entry == {
        "clusterName": "demo",
        "principalArn": role_arn(plan, "demo-karpenter-node-role"),
        "type": "EC2_LINUX",
    }


def test_pool_wiring_names_the_karpenter_node_role() -> None:
    plan = karpenter_plan()
    wiring = {**plan.outputs["wiring"], **plan.outputs["installedWiring"]}
    assert wiring["karpenter_controller"] is True
    assert wiring["node_role_arn"] == role_arn(plan, "demo-karpenter-node-role")
    assert wiring["node_role_arn"] != role_arn(plan, "demo-node-role")  # the system node group's own role
    assert resource(plan, "aws:eks/nodeGroup:NodeGroup", "demo-system").inputs["nodeRoleArn"] == role_arn(
        plan, "demo-node-role"
    )


def test_interruption_queue_keeps_messages_five_minutes_encrypted_and_https_only() -> None:
    plan = karpenter_plan()
    queue = resource(plan, "aws:sqs/queue:Queue", "demo-karpenter-queue")
    assert queue.inputs == {"name": "demo", "messageRetentionSeconds": 300, "sqsManagedSseEnabled": True}
    arn = f"arn:aws:sqs:us-west-2:{ACCOUNT}:demo"
    assert queue.outputs["arn"] == arn
    policy = resource(plan, "aws:sqs/queuePolicy:QueuePolicy", "demo-karpenter-queue-policy").inputs
    assert policy["queueUrl"] == f"https://sqs.us-west-2.amazonaws.com/{ACCOUNT}/demo"
    assert json.loads(policy["policy"]) == {
        "Version": "2012-10-17",
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Sid": "EventsSend",
                "Effect": "Allow",
                "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                "Action": "sqs:SendMessage",
                "Resource": arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "sqs:*",
                "Resource": arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
        ],
    }


def test_eventbridge_rules_send_each_interruption_event_to_the_queue() -> None:
    plan = karpenter_plan()
    rules = inputs_by_name(plan, "aws:cloudwatch/eventRule:EventRule")
    assert {name: json.loads(rule["eventPattern"]) for name, rule in rules.items()} == {
        "demo-karpenter-health": {"detail-type": ["AWS Health Event"], "source": ["aws.health"]},
        "demo-karpenter-spot": {"detail-type": ["EC2 Spot Instance Interruption Warning"], "source": ["aws.ec2"]},
        "demo-karpenter-rebalance": {"detail-type": ["EC2 Instance Rebalance Recommendation"], "source": ["aws.ec2"]},
        "demo-karpenter-state-change": {
            "detail-type": ["EC2 Instance State-change Notification"],
            "source": ["aws.ec2"],
        },
        "demo-karpenter-reservation": {
            "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"],
            "source": ["aws.ec2"],
        },
    }
    targets = inputs_by_name(plan, "aws:cloudwatch/eventTarget:EventTarget")
    rule_names = {name: resource(plan, "aws:cloudwatch/eventRule:EventRule", name).outputs["name"] for name in rules}
    assert targets == {
        f"{name}-target": {
            "rule": rule_names[name],
            "arn": f"arn:aws:sqs:us-west-2:{ACCOUNT}:demo",
            "targetId": "KarpenterInterruptionQueueTarget",
        }
        for name in rules
    }


def test_controller_role_is_assumed_through_pod_identity_by_the_karpenter_service_account() -> None:
    plan = karpenter_plan()
    role = resource(plan, "aws:iam/role:Role", "demo-karpenter-controller").inputs
    assert json.loads(role["assumeRolePolicy"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "pods.eks.amazonaws.com"},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
            }
        ],
    }
    association = resource(
        plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "demo-karpenter-pod-identity"
    ).inputs
    assert association == {
        "clusterName": "demo",
        "namespace": "kube-system",
        "serviceAccount": "karpenter",
        "roleArn": role_arn(plan, "demo-karpenter-controller"),
    }
    agent = resource(plan, "aws:eks/addon:Addon", "demo-karpenter-pod-identity-agent").inputs
    assert agent == {"clusterName": "demo", "addonName": "eks-pod-identity-agent"}
    policy = resource(plan, "aws:iam/policy:Policy", "demo-karpenter-controller")
    attachment = resource(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "demo-karpenter-controller")
    assert attachment.inputs == {
        "role": resource(plan, "aws:iam/role:Role", "demo-karpenter-controller").outputs["name"],
        "policyArn": policy.outputs["arn"],
    }
    node_role = role_arn(plan, "demo-karpenter-node-role")
    assert json.loads(policy.inputs["policy"]) == karpenter_controller.controller_policy(
        "demo", "us-west-2", ACCOUNT, node_role, f"arn:aws:sqs:us-west-2:{ACCOUNT}:demo"
    )


def test_controller_policy_scopes_each_permission_as_documented() -> None:
    policy = karpenter_controller.controller_policy(
        "demo", "us-west-2", ACCOUNT, "arn:aws:iam::123456789012:role/node", "arn:aws:sqs:us-west-2:123456789012:demo"
    )
    statements = {statement.pop("Sid"): statement for statement in policy["Statement"]}
    assert policy["Version"] == "2012-10-17"
    assert all(statement["Effect"] == "Allow" for statement in statements.values())
    owned = {"aws:ResourceTag/kubernetes.io/cluster/demo": "owned"}
    nodepool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    launched = [
        f"arn:aws:ec2:us-west-2:*:{kind}/*"
        for kind in ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
    ]
    request_tags = {"aws:RequestTag/kubernetes.io/cluster/demo": "owned", "aws:RequestTag/eks:eks-cluster-name": "demo"}
    profiles = "arn:aws:iam::123456789012:instance-profile/*"
    profile_tags = {**owned, "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2"}
    profile_request = {**request_tags, "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"}
    node_class = {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}
    assert statements == {
        "LaunchFromSharedResources": {
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": [
                "arn:aws:ec2:us-west-2::image/*",
                "arn:aws:ec2:us-west-2::snapshot/*",
                "arn:aws:ec2:us-west-2:*:security-group/*",
                "arn:aws:ec2:us-west-2:*:subnet/*",
                "arn:aws:ec2:us-west-2:*:capacity-reservation/*",
                "arn:aws:ec2:us-west-2:*:placement-group/*",
            ],
        },
        "LaunchFromOwnedTemplates": {
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": "arn:aws:ec2:us-west-2:*:launch-template/*",
            "Condition": {"StringEquals": owned, "StringLike": nodepool},
        },
        "CreateOwnedResources": {
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Resource": launched,
            "Condition": {
                "StringEquals": request_tags,
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        "TagOnCreate": {
            "Effect": "Allow",
            "Action": ["ec2:CreateTags"],
            "Resource": launched,
            "Condition": {
                "StringEquals": {
                    **request_tags,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        "TagOwnedInstances": {
            "Effect": "Allow",
            "Action": ["ec2:CreateTags"],
            "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
            "Condition": {
                "StringEquals": owned,
                "StringLike": nodepool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": "demo"},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        },
        "DeleteOwned": {
            "Effect": "Allow",
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Resource": ["arn:aws:ec2:us-west-2:*:instance/*", "arn:aws:ec2:us-west-2:*:launch-template/*"],
            "Condition": {"StringEquals": owned, "StringLike": nodepool},
        },
        "PassNodeRole": {
            "Effect": "Allow",
            "Action": ["iam:PassRole"],
            "Resource": "arn:aws:iam::123456789012:role/node",
            "Condition": {"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}},
        },
        "CreateInstanceProfiles": {
            "Effect": "Allow",
            "Action": ["iam:CreateInstanceProfile"],
            "Resource": profiles,
            "Condition": {
                "StringEquals": profile_request,
                "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        "TagInstanceProfiles": {
            "Effect": "Allow",
            "Action": ["iam:TagInstanceProfile"],
            "Resource": profiles,
            "Condition": {
                "StringEquals": {**profile_tags, **profile_request},
                "StringLike": {**node_class, "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        "ManageInstanceProfiles": {
            "Effect": "Allow",
            "Action": [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            "Resource": profiles,
            "Condition": {"StringEquals": profile_tags, "StringLike": node_class},
        },
        "DescribeCluster": {
            "Effect": "Allow",
            "Action": ["eks:DescribeCluster"],
            "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
        },
        "ConsumeInterruptionQueue": {
            "Effect": "Allow",
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            "Resource": "arn:aws:sqs:us-west-2:123456789012:demo",
        },
        "ReadRegion": {
            "Effect": "Allow",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": "us-west-2"}},
        },
        "ReadAmiParameters": {
            "Effect": "Allow",
            "Action": ["ssm:GetParameter"],
            "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
        },
        "ReadPrices": {"Effect": "Allow", "Action": ["pricing:GetProducts"], "Resource": "*"},
        "ListInstanceProfiles": {"Effect": "Allow", "Action": ["iam:ListInstanceProfiles"], "Resource": "*"},
        "ReadInstanceProfiles": {"Effect": "Allow", "Action": ["iam:GetInstanceProfile"], "Resource": profiles},
    }


@BOTH_MODES
def test_karpenter_chart_is_pinned_and_set_for_the_cluster_queue_and_system_node_group(preview: bool) -> None:
    plan = karpenter_plan(preview)
    release = resource(plan, RELEASE, "demo-karpenter-release")
    assert release.inputs == {
        "compat": "true",  # the SDK's own
        "name": "karpenter",
        "chart": "oci://public.ecr.aws/karpenter/karpenter",
        "version": "1.14.1",
        "namespace": "kube-system",
        "values": {
            "settings": {"clusterName": "demo", "interruptionQueue": "demo"},
            "serviceAccount": {"name": "karpenter"},
            "nodeSelector": {"gpu-components/role": "system"},
            "controller": {
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
            },
        },
    }
    assert release.provider_reference.split("::")[-2] == "demo-k8s"  # through the Kubernetes provider given
    # The chart waits for what the controller needs; the GPU pools wait for the chart (its CRDs).
    waits_for = {r.name for r in plan.resources if r.urn in release.dependencies}
    assert {
        "demo-system",
        "demo-karpenter-pod-identity-agent",
        "demo-karpenter-pod-identity",
        "demo-karpenter-controller",
        "demo-karpenter-node-access",
        "demo-karpenter-queue-policy",
        "demo-karpenter-spot-target",
    } <= waits_for
    controller = resource(plan, "gpu-components:index:KarpenterController", "demo-karpenter")
    assert release.parent == controller.urn
    assert plan.outputs["installed"] == [controller.urn]


def test_karpenter_version_and_helm_values_are_configurable() -> None:
    plan = karpenter_plan(version="1.14.0", helm_values={"settings": {"featureGates": {"nodeOverlay": True}}})
    release = resource(plan, RELEASE, "demo-karpenter-release").inputs
    assert release["version"] == "1.14.0"
    assert release["values"]["settings"] == {
        "clusterName": "demo",
        "interruptionQueue": "demo",
        "featureGates": {"nodeOverlay": True},
    }


def test_a_cluster_without_a_provisioner_installs_nothing_through_kubernetes() -> None:
    plan, provisioned = plan_cluster({"name": "demo"})
    assert provisioned.kubernetes is None
    assert names(plan, "aws:sqs/queue:Queue") == []
    assert names(plan, "aws:eks/accessEntry:AccessEntry") == []
    assert plan.outputs["wiring"]["node_role_arn"] == role_arn(plan, "demo-node-role")


@BOTH_MODES
def test_auto_mode_cluster_has_a_compute_config_with_its_node_role_and_no_system_node_group(preview: bool) -> None:
    plan, provisioned = plan_cluster({"name": "demo", "auto_mode": {}}, preview)
    cluster = resource(plan, "eks:index:Cluster", "demo").inputs
    node_role = UNKNOWN if preview else role_arn(plan, "demo-auto-node-role")
    assert cluster["autoMode"] == {
        "enabled": True,
        "createNodeRole": False,
        "computeConfig": {"nodeRoleArn": node_role, "nodePools": ["general-purpose", "system"]},
    }
    assert (cluster["authenticationMode"], cluster["skipDefaultNodeGroup"]) == ("API", True)
    assert names(plan, "aws:eks/nodeGroup:NodeGroup") == []
    assert provisioned.kubernetes is None
    role = resource(plan, "aws:iam/role:Role", "demo-auto-node-role").inputs
    assert json.loads(role["assumeRolePolicy"])["Statement"] == [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ]
    attachments = inputs_by_name(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    assert {name: attachment["policyArn"] for name, attachment in attachments.items()} == {
        "demo-auto-node-role-worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
        "demo-auto-node-role-ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
    }
    # EKS creates the access entry of the compute config's node role itself.
    assert names(plan, "aws:eks/accessEntry:AccessEntry") == []
    if not preview:
        assert plan.outputs["wiring"]["node_role_arn"] == role_arn(plan, "demo-auto-node-role")


def test_auto_mode_uses_a_given_node_role() -> None:
    given = "arn:aws:iam::123456789012:role/AmazonEKSAutoNodeRole"
    plan, _ = plan_cluster({"name": "demo", "auto_mode": {}, "node_role_arn": given})
    assert resource(plan, "eks:index:Cluster", "demo").inputs["autoMode"]["computeConfig"]["nodeRoleArn"] == given
    assert names(plan, "aws:iam/role:Role") == []
    assert plan.outputs["wiring"]["node_role_arn"] == given


@pytest.mark.parametrize("provisioner", ["karpenter", "auto_mode"])
def test_existing_cluster_with_its_provisioner_is_attached_creating_nothing(provisioner: str) -> None:
    role = "arn:aws:iam::123456789012:role/KarpenterNodeRole-prod"
    config = {
        "name": "prod",
        "existing": True,
        "subnet_ids": ["subnet-1"],
        "node_role_arn": role,
        provisioner: {"existing": True},
    }
    assert eks_cluster.config_problems(config) == []
    plan, provisioned = plan_cluster(config)
    assert plan.resources == ()
    assert provisioned.kubernetes is None
    says = {"karpenter_controller": True} if provisioner == "karpenter" else {}
    assert plan.outputs["wiring"] == {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": role, **says}


def messages(config: dict[str, Any]) -> list[str]:
    return [str(problem) for problem in eks_cluster.config_problems(config)]


def test_karpenter_and_auto_mode_together_are_refused() -> None:
    [problem] = eks_cluster.config_problems({"name": "demo", "karpenter": {}, "auto_mode": {}})
    assert problem.path == "cluster.auto_mode"
    assert problem.message.startswith("EKS Auto Mode runs its own Karpenter: with the karpenter controller too, two")
    assert problem.valid == "karpenter or auto_mode, not both"
    assert problem.source == (
        "https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html, "
        "https://karpenter.sh/v1.14/getting-started/getting-started-with-karpenter/"
    )


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            {
                "existing": True,
                "subnet_ids": ["s"],
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                "karpenter": {},
            },
            [
                "cluster.karpenter.existing: the program turns Karpenter on only in a cluster it creates; on an "
                "existing cluster it uses the Karpenter already there (got False); valid: true (the cluster runs it), "
                "or create the cluster (existing: false)"
            ],
        ),
        (
            {"auto_mode": {"existing": True}, "node_role_arn": "arn:aws:iam::123456789012:role/nodes"},
            [
                "cluster.auto_mode.existing: a cluster this program creates has no EKS Auto Mode yet (got True); "
                "valid: false (the program sets it up), or attach to the cluster (cluster.existing: true)"
            ],
        ),
        (
            {"existing": True, "subnet_ids": ["s"], "karpenter": {"existing": True, "version": "1.14.0"}},
            [
                "cluster.karpenter.version: applies only to a Karpenter this program sets up; with "
                "karpenter.existing: true it would be ignored (got '1.14.0'); valid: remove it",
                "cluster.node_role_arn: required with karpenter.existing: the IAM role of the nodes Karpenter "
                "launches, which the GPU pools' node classes name (the one role with the cluster's access entry for "
                "them) (got None) [source: https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html]",
            ],
        ),
        (
            {"auto_mode": {}, "system_node_group": {"min_size": 1}},
            [
                "cluster.system_node_group: an Auto Mode cluster runs its add-ons on Auto Mode's built-in system "
                "node pool, and leaves the VPC CNI and kube-proxy add-ons a managed node group needs off "
                "(got {'min_size': 1}); valid: remove it "
                "[source: https://github.com/pulumi/pulumi-eks/blob/master/nodejs/eks/cluster/cluster.ts]"
            ],
        ),
        (
            {"karpenter": {"helm_values": {"settings": {"clusterName": "x", "batchMaxDuration": "5s"}}}},
            [
                "cluster.karpenter.helm_values.settings.clusterName: set by the library (the cluster, which also "
                "names the interruption queue and scopes the controller's IAM policy) (got 'x'); valid: remove it, "
                "and set cluster.name instead "
                "[source: https://karpenter.sh/v1.14/getting-started/getting-started-with-karpenter/]"
            ],
        ),
    ],
    ids=[
        "existing-without-existing-karpenter",
        "new-with-existing-auto-mode",
        "attached-karpenter",
        "auto-system",
        "owned-values",
    ],
)
def test_bad_provisioner_config_is_refused_with_exact_errors(config: dict[str, Any], expected: list[str]) -> None:
    assert messages({"name": "demo", **config}) == expected


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("name", ["gpu demo", "_gpu", "g" * 101])
def test_a_cluster_name_eks_would_refuse_is_refused(name: str, existing: bool) -> None:
    config = {"name": name, "existing": existing, "subnet_ids": ["s"]} if existing else {"name": name}
    assert messages(config) == [
        f"cluster.name: not an EKS cluster name (got {name!r}); valid: 1 to 100 letters, digits, hyphens and "
        "underscores, starting with a letter or digit "
        "[source: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html]"
    ]


def test_a_hundred_character_cluster_name_is_an_eks_name() -> None:
    assert messages({"name": "g" * 99 + "_"}) == []


def test_existing_cluster_with_new_cluster_keys_and_karpenter_reports_both() -> None:
    config = {"name": "p", "existing": True, "subnet_ids": ["s"], "vpc_id": "vpc-1", "karpenter": {"version": "1.14.1"}}
    assert [problem.path for problem in eks_cluster.config_problems(config)] == [
        "cluster.vpc_id",
        "cluster.karpenter.existing",
    ]


def stack_plan(cluster: dict[str, Any], stack: str = "aws-eks") -> Plan:
    """An example stack's program and pools (``aws-eks``'s by default), with ``cluster`` as its cluster config."""
    project, config = load_stack(ROOT, stack)
    config["gpu-components:cluster"] = cluster
    return run_program(example_program, project=project, stack="provisioners", config=config)


@pytest.mark.stack
def test_offline_plan_of_a_karpenter_cluster_installs_the_chart_before_the_gpu_pools() -> None:
    plan = stack_plan({"name": "gpu-demo", "karpenter": {}})
    release = resource(plan, RELEASE, "gpu-demo-karpenter-release")
    assert release.provider_reference.split("::")[-2] == "gpu-demo-k8s"
    gpu = resource(plan, "gpu-components:index:GpuCluster", "gpu-demo-gpu")
    assert release.urn in gpu.dependencies
    assert names(plan, "aws:sqs/queue:Queue") == ["gpu-demo-karpenter-queue"]


@pytest.mark.stack
def test_offline_plan_of_an_auto_mode_cluster() -> None:
    # aws-eks-auto's pools (a fixed pool is refused on a new Auto Mode cluster)
    plan = stack_plan({"name": "gpu-demo", "auto_mode": {}}, "aws-eks-auto")
    assert resource(plan, "eks:index:Cluster", "gpu-demo").inputs["autoMode"]["enabled"] is True
    assert names(plan, RELEASE) == []  # no Karpenter chart, and no device plugin: AWS runs its own
    assert names(plan, "aws:eks/nodeGroup:NodeGroup") == []


@pytest.mark.stack
def test_stack_config_with_both_provisioners_fails_before_any_resource(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.aws-eks.yaml").read_text())
    stack["config"]["gpu-components:cluster"] = {"name": "gpu-demo", "karpenter": {}, "auto_mode": {}}
    (tmp_path / "stacks" / "Pulumi.both.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "both", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert (
        "  - cluster.auto_mode: EKS Auto Mode runs its own Karpenter: with the karpenter controller too"
        in result.output
    )


@pytest.mark.stack
def test_stack_config_with_a_bad_eks_cluster_name_fails_before_any_resource(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.aws-eks.yaml").read_text())
    stack["config"]["gpu-components:cluster"] = {"name": "gpu.demo"}
    (tmp_path / "stacks" / "Pulumi.badname.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "badname", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "  - cluster.name: not an EKS cluster name (got 'gpu.demo'); valid: 1 to 100 letters" in result.output


def test_karpenter_pin_is_the_version_of_the_crds_the_node_pools_are_checked_against() -> None:
    assert KARPENTER_VERSION == "1.14.1"
    assert (
        ROOT / "tests" / "reference" / "karpenter" / f"aws-v{KARPENTER_VERSION}" / "karpenter.sh_nodepools.yaml"
    ).is_file()
