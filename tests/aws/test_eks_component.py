"""EksGpuNodeGroup under Pulumi mocks: the exact NodeGroup inputs and the children it registers."""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pytest

from gpu_components.aws import EksGpuNodeGroup, EksGpuNodeGroupArgs
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.plan import UNKNOWN, Plan
from tests.helpers import BOTH_MODES, inputs_by_name, names, plan_and, plan_of, resource

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TAG = "aws:autoscaling/tag:Tag"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"
ROLE = "arn:aws:iam::123456789012:role/nodes"
SHARED_POOL = {
    "name": "shared",
    "instance_type": "g5.2xlarge",
    "max_size": 4,
    "spot": True,
    "time_slicing": {"replicas": 4},
}


def node_group(pool: dict[str, Any], **extra: Any) -> EksGpuNodeGroup:
    args: dict[str, Any] = {"pool": pool, "cluster_name": "demo", "subnet_ids": ["subnet-a", "subnet-b"]}
    args.update(extra)
    return EksGpuNodeGroup("gpu", args)  # type: ignore[arg-type]


def exported(group: EksGpuNodeGroup) -> EksGpuNodeGroup:
    """Export the Auto Scaling group name the component derived from the node group's ``resources``."""
    pulumi.export("asg", group.autoscaling_group_name)
    return group


def tags_by_name(plan: Plan) -> dict[str, Any]:
    return dict(inputs_by_name(plan, TAG))


@BOTH_MODES
def test_time_sliced_spot_pool_registers_exact_node_group(preview: bool) -> None:
    plan = plan_of(lambda: node_group(SHARED_POOL, node_role_arn=ROLE), preview)
    inputs = resource(plan, NODE_GROUP, "gpu-node-group").inputs
    assert inputs == {
        "amiType": "AL2023_x86_64_NVIDIA",
        "capacityType": "SPOT",
        "clusterName": "demo",
        "diskSize": 100,
        "instanceTypes": ["g5.2xlarge"],
        "labels": {
            "gpu-components/pool": "shared",
            "k8s.amazonaws.com/accelerator": "nvidia-a10g",
            "nvidia.com/device-plugin.config": "shared",
            "nvidia.com/gpu.present": "true",
        },
        "nodeRoleArn": ROLE,
        "scalingConfig": {"desiredSize": 0, "maxSize": 4, "minSize": 0},
        "subnetIds": ["subnet-a", "subnet-b"],
        "tags": {},
        "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
    }
    assert names(plan, "aws:iam/role:Role") == []


@BOTH_MODES
def test_autoscaler_tags_are_registered_with_static_names_in_preview_and_up(preview: bool) -> None:
    plan, _ = plan_and(lambda: exported(node_group(SHARED_POOL, node_role_arn=ROLE)), preview)
    asg = plan.outputs["asg"]
    # The mocked node group's one Auto Scaling group (EKS creates one per managed node group), a computed output:
    # unknown in preview, so every tag names an unknown group, but the tags are registered all the same.
    assert asg == (UNKNOWN if preview else "eks-gpu-node-group-8fd0b05-8fd0b052-64b3-47e6-aab0-db0af82cac73")

    def tag(key: str, value: str) -> dict[str, Any]:
        return {"autoscalingGroupName": asg, "tag": {"key": key, "propagateAtLaunch": False, "value": value}}

    assert tags_by_name(plan) == {
        "gpu-autoscaler-nvidia.com-gpu": tag(f"{TEMPLATE}resources/nvidia.com/gpu", "4"),
        "gpu-autoscaler-label-gpu-components/pool": tag(f"{TEMPLATE}label/gpu-components/pool", "shared"),
        "gpu-autoscaler-label-k8s.amazonaws.com/accelerator": tag(
            f"{TEMPLATE}label/k8s.amazonaws.com/accelerator", "nvidia-a10g"
        ),
        "gpu-autoscaler-label-nvidia.com/device-plugin.config": tag(
            f"{TEMPLATE}label/nvidia.com/device-plugin.config", "shared"
        ),
        "gpu-autoscaler-label-nvidia.com/gpu.present": tag(f"{TEMPLATE}label/nvidia.com/gpu.present", "true"),
        "gpu-autoscaler-taint-nvidia.com/gpu": tag(f"{TEMPLATE}taint/nvidia.com/gpu", "present:NoSchedule"),
    }
    component = resource(plan, "gpu-components:index:EksGpuNodeGroup", "gpu")
    assert {r.parent for r in plan.resources if r.type == TAG} == {component.urn}


def test_user_labels_and_taints_are_tagged_too() -> None:
    pool = {
        "name": "gpu",
        "instance_type": "g6.xlarge",
        "max_size": 2,
        "labels": {"team": "ml"},
        "taints": [{"key": "dedicated", "effect": "NoExecute"}],
    }
    plan = plan_of(lambda: node_group(pool))
    tags = {name: inputs["tag"] for name, inputs in tags_by_name(plan).items()}
    assert tags["gpu-autoscaler-label-team"] == {
        "key": f"{TEMPLATE}label/team",
        "propagateAtLaunch": False,
        "value": "ml",
    }
    assert tags["gpu-autoscaler-taint-dedicated"] == {
        "key": f"{TEMPLATE}taint/dedicated",
        "propagateAtLaunch": False,
        "value": ":NoExecute",
    }
    assert tags["gpu-autoscaler-label-k8s.amazonaws.com/accelerator"]["value"] == "nvidia-l4"


def test_node_role_is_created_when_none_is_given() -> None:
    plan = plan_of(lambda: node_group({"name": "gpu", "instance_type": "g6.xlarge", "max_size": 1}))
    assert names(plan, "aws:iam/role:Role") == ["gpu-node-role"]
    attachments = {r.name: r.inputs["policyArn"] for r in plan.resources if r.type.endswith("RolePolicyAttachment")}
    assert attachments == {
        "gpu-node-role-cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
        "gpu-node-role-ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "gpu-node-role-worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    }


def test_graviton_pool_gets_the_arm_nvidia_ami() -> None:
    plan = plan_of(lambda: node_group({"name": "arm", "instance_type": "g5g.2xlarge", "max_size": 1}))
    assert resource(plan, NODE_GROUP, "gpu-node-group").inputs["amiType"] == "AL2023_ARM_64_NVIDIA"


@BOTH_MODES
def test_bottlerocket_mig_pool_carries_settings_and_disk_in_a_launch_template(preview: bool) -> None:
    pool = {"name": "mig", "instance_type": "p5.48xlarge", "max_size": 2, "mig": {"profile": "1g.20gb"}}
    plan = plan_of(lambda: node_group({**pool, "disk_size_gb": 250}, ami_type="BOTTLEROCKET_x86_64_NVIDIA"), preview)
    template = resource(plan, LAUNCH_TEMPLATE, "gpu-launch-template").inputs
    assert base64.b64decode(template["userData"]).decode() == (
        "[settings.kubelet-device-plugins.nvidia]\n"
        'device-sharing-strategy = "none"\n'
        'device-partitioning-strategy = "mig"\n'
        "\n"
        "[settings.kubelet-device-plugins.nvidia.mig.profile]\n"
        '"h100.80gb" = "1g.20gb"\n'
    )
    assert template["blockDeviceMappings"] == [{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": 250}}]
    inputs = resource(plan, NODE_GROUP, "gpu-node-group").inputs
    assert inputs["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    assert inputs["labels"] == {"gpu-components/pool": "mig", "k8s.amazonaws.com/accelerator": "nvidia-h100-80gb"}
    assert set(inputs["launchTemplate"]) == {"id", "version"}
    assert "diskSize" not in inputs  # EKS refuses diskSize beside a launch template
    tag = tags_by_name(plan)["gpu-autoscaler-nvidia.com-gpu"]["tag"]
    assert tag["value"] == "32"  # 8 x H100 80GB, 4 x 1g.20gb each


def test_pool_disk_size_is_the_node_group_disk() -> None:
    plan = plan_of(
        lambda: node_group({"name": "gpu", "instance_type": "g6.xlarge", "max_size": 1, "disk_size_gb": 500})
    )
    assert resource(plan, NODE_GROUP, "gpu-node-group").inputs["diskSize"] == 500


def test_mixed_mig_pool_zeroes_whole_gpus_and_says_what_the_autoscaler_cannot_model() -> None:
    pool = {
        "name": "mixed",
        "instance_type": "p4d.24xlarge",
        "max_size": 2,
        "mig": {"layout": {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}, "strategy": "mixed"},
    }
    plan, group = plan_and(lambda: node_group(pool, gpu_stack="gpu-operator"))
    tags = {name: inputs["tag"]["value"] for name, inputs in tags_by_name(plan).items()}
    assert {name: value for name, value in tags.items() if "label" not in name and "taint" not in name} == {
        "gpu-autoscaler-nvidia.com-gpu": "0",
        "gpu-autoscaler-nvidia.com-mig-1g.5gb": "16",
        "gpu-autoscaler-nvidia.com-mig-2g.10gb": "8",
        "gpu-autoscaler-nvidia.com-mig-3g.20gb": "8",
    }
    assert "k8s.amazonaws.com/accelerator" not in group.labels
    assert group.autoscaler_note == (
        "nodes advertise nvidia.com/mig-1g.5gb, nvidia.com/mig-2g.10gb, nvidia.com/mig-3g.20gb and no "
        "nvidia.com/gpu, the only GPU resource the Cluster Autoscaler waits for on a new node: it may add nodes for "
        "pods a starting node will hold; MIG partitions are made by the GPU Operator's MIG manager after a node "
        "joins; until then the node advertises whole GPUs, not the partitions the Cluster Autoscaler's template "
        "counts"
    )


def test_time_sliced_pool_has_no_autoscaler_note() -> None:
    _, group = plan_and(lambda: node_group(SHARED_POOL))
    assert group.autoscaler_note is None


@BOTH_MODES
def test_node_group_args_are_merged_under_the_library_keys(preview: bool) -> None:
    extra = {"update_config": {"max_unavailable": 1}, "release_version": "1.34.0-20260101", "node_group_name": "g"}
    plan = plan_of(lambda: node_group(SHARED_POOL, node_role_arn=ROLE, node_group_args=extra), preview)
    inputs = resource(plan, NODE_GROUP, "gpu-node-group").inputs
    assert (inputs["updateConfig"], inputs["releaseVersion"], inputs["nodeGroupName"]) == (
        {"maxUnavailable": 1},
        "1.34.0-20260101",
        "g",
    )
    assert (inputs["diskSize"], inputs["capacityType"]) == (100, "SPOT")


def test_component_has_the_documented_type_token_and_parents() -> None:
    plan = plan_of(lambda: node_group({"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1}))
    component = resource(plan, "gpu-components:index:EksGpuNodeGroup", "gpu")
    group = resource(plan, NODE_GROUP, "gpu-node-group")
    assert group.parent == component.urn


def rejected(args: dict[str, Any]) -> GpuSpecError:
    """``EksGpuNodeGroup("gpu", args)`` under the mocks: it must raise before registering anything."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            EksGpuNodeGroup("gpu", args)  # type: ignore[arg-type]
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program)
    assert plan.resources == ()
    [error] = errors
    return error


def wired(pool: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    given = pool if pool is not None else {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1}
    return {"pool": given, "cluster_name": "demo", "subnet_ids": ["subnet-a"], **extra}


OWNED = (
    "ami_type, capacity_type, cluster_name, disk_size, instance_types, labels, launch_template, node_role_arn, "
    "scaling_config, subnet_ids, tags, taints"
)


def test_invalid_pool_registers_nothing() -> None:
    args: EksGpuNodeGroupArgs = {
        "pool": {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1},
        "cluster_name": "demo",
        "subnet_ids": ["subnet-a"],
        "ami_type": "AL2023_x86_64_STANDARD",
    }
    error = rejected(dict(args))
    assert [p.message for p in error.problems] == ["not an NVIDIA AMI type; g5.xlarge has 1 x A10G"]


@pytest.mark.parametrize("key", ["disk_size", "labels", "taints", "scaling_config", "ami_type", "launch_template"])
def test_node_group_args_may_not_set_an_owned_key(key: str) -> None:
    [problem] = rejected(wired(node_group_args={key: "x"})).problems
    assert (problem.path, problem.value) == (f"node_group_args.{key}", "x")
    assert problem.message.startswith("set by gpu_components from the pool and the component's own args")
    assert problem.valid == f"any other argument; owned: {OWNED}"


def test_unknown_node_group_arg_names_the_closest() -> None:
    [problem] = rejected(wired(node_group_args={"update_confg": {}})).problems
    assert problem.path == "node_group_args.update_confg"
    assert (
        problem.message == "unknown field; did you mean 'update_config'? (not an argument of pulumi_aws.eks.NodeGroup)"
    )
    assert problem.valid == "update_config"


def test_node_group_args_must_be_a_mapping() -> None:
    [problem] = rejected(wired(node_group_args=["update_config"])).problems
    assert (problem.path, problem.message) == ("node_group_args", "input should be a valid dictionary")


def test_remote_access_is_refused_beside_the_bottlerocket_launch_template() -> None:
    pool = {"name": "br", "instance_type": "p4d.24xlarge", "max_size": 1}
    args = wired(pool, ami_type="BOTTLEROCKET_x86_64_NVIDIA", node_group_args={"remote_access": {"ec2_ssh_key": "k"}})
    [problem] = rejected(args).problems
    assert problem.path == "node_group_args.remote_access"
    assert problem.source == "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"


def test_autoscaler_template_tags_are_refused_in_tags() -> None:
    key = "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"
    [problem] = rejected(wired(tags={key: "8", "team": "ml"})).problems
    assert problem.path == f"tags[{key!r}]"
    assert problem.valid == "a key not under k8s.io/cluster-autoscaler/node-template/"


def test_a_bad_pool_does_not_hide_a_bad_escape_hatch() -> None:
    pool = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1, "disk_size_gb": 10}
    error = rejected(wired(pool, node_group_args={"disk_size": 200}))
    assert [p.path for p in error.problems] == ["pool.disk_size_gb", "node_group_args.disk_size"]
    assert error.problems[0].valid == "20..2048 (default 100)"


def test_two_taints_with_one_key_cannot_be_tagged() -> None:
    pool = {
        "name": "gpu",
        "instance_type": "g5.xlarge",
        "max_size": 1,
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}],
    }
    [problem] = rejected(wired(pool)).problems
    assert (problem.path, problem.value) == (
        "pool.taints[0]",
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"},  # as written, at its own index
    )
    assert problem.message.startswith(
        "a second taint with key nvidia.com/gpu (the default GPU taint nvidia.com/gpu=present:NoSchedule has it too)"
    )
    assert problem.valid == "one taint per key on EKS"


def test_two_written_taints_with_one_key_name_both() -> None:
    pool = {
        "name": "gpu",
        "instance_type": "g5.xlarge",
        "max_size": 1,
        "taints": [{"key": "team", "value": "a", "effect": "NoSchedule"}, {"key": "team", "effect": "NoExecute"}],
    }
    [problem] = rejected(wired(pool)).problems
    assert (problem.path, problem.value) == ("pool.taints[1]", {"key": "team", "effect": "NoExecute"})
    assert problem.message.startswith("a second taint with key team (pool.taints[0] has it too)")


def test_the_autoscaler_gpu_label_is_the_library_s() -> None:
    pool = {
        "name": "gpu",
        "instance_type": "g5.xlarge",
        "max_size": 1,
        "labels": {"k8s.amazonaws.com/accelerator": "a"},
    }
    [problem] = rejected(wired(pool)).problems
    assert problem.path == "pool.labels['k8s.amazonaws.com/accelerator']"


@pytest.mark.parametrize("name", ["", "-demo", "demo.gpu", "d" * 101])
def test_a_cluster_name_eks_would_refuse_is_refused(name: str) -> None:
    [problem] = rejected(wired(cluster_name=name)).problems
    assert (problem.path, problem.value, problem.message) == ("cluster_name", name, "not an EKS cluster name")
    assert problem.valid == "1 to 100 letters, digits, hyphens and underscores, starting with a letter or digit"
    assert problem.source == "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html"


def test_gpu_cluster_refuses_a_bad_eks_cluster_name_in_its_wiring() -> None:
    with pytest.raises(GpuSpecError) as error:
        wiring = {"cluster_name": "gpu demo", "subnet_ids": ["subnet-a"]}
        GpuCluster("gpu", {"cloud": "aws", "aws": wiring, "pools": [wired()["pool"]]})
    [problem] = error.value.problems
    assert (problem.path, problem.value, problem.message) == ("aws.cluster_name", "gpu demo", "not an EKS cluster name")


@pytest.mark.parametrize(
    ("provisioning", "made_by"),
    [
        ({"provisioner": "karpenter", "max_gpus": 8}, "Karpenter creates nodes for is an EksKarpenterGpuNodePool"),
        (
            {"provisioner": "eks-auto-mode", "max_gpus": 8},
            "EKS Auto Mode creates nodes for is an EksAutoModeGpuNodePool",
        ),
    ],
    ids=["karpenter", "eks-auto-mode"],
)
def test_a_provisioned_pool_is_not_a_managed_node_group(provisioning: dict[str, Any], made_by: str) -> None:
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: node_group({"name": "l4", "instance_type": "g6.xlarge", "provisioning": provisioning}))
    assert [(p.path, p.value, p.message, p.valid) for p in error.value.problems] == [
        (
            "pool.provisioning.provisioner",
            provisioning["provisioner"],
            f"EksGpuNodeGroup makes a fixed EKS managed node group; a pool that {made_by}",
            "no provisioning, or EksKarpenterGpuNodePool or EksAutoModeGpuNodePool",
        )
    ]
