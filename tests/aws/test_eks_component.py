"""EksGpuNodeGroup under Pulumi mocks: the exact NodeGroup inputs and the children it registers."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from gpu_components.aws import EksGpuNodeGroup, EksGpuNodeGroupArgs
from gpu_components.errors import GpuSpecError
from tests.helpers import names, plan_of, resource


def node_group(pool: dict[str, Any], **extra: Any) -> None:
    args: dict[str, Any] = {"pool": pool, "cluster_name": "demo", "subnet_ids": ["subnet-a", "subnet-b"]}
    args.update(extra)
    EksGpuNodeGroup("gpu", args)  # type: ignore[arg-type]


@pytest.mark.parametrize("preview", [True, False])
def test_time_sliced_spot_pool_registers_exact_node_group(preview: bool) -> None:
    pool = {
        "name": "shared",
        "instance_type": "g5.2xlarge",
        "max_size": 4,
        "spot": True,
        "time_slicing": {"replicas": 4},
    }
    plan = plan_of(lambda: node_group(pool, node_role_arn="arn:aws:iam::123456789012:role/nodes"), preview)
    inputs = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpu-node-group").inputs
    assert inputs == {
        "amiType": "AL2023_x86_64_NVIDIA",
        "capacityType": "SPOT",
        "clusterName": "demo",
        "instanceTypes": ["g5.2xlarge"],
        "labels": {
            "gpu-components/pool": "shared",
            "nvidia.com/device-plugin.config": "shared",
            "nvidia.com/gpu.present": "true",
        },
        "nodeRoleArn": "arn:aws:iam::123456789012:role/nodes",
        "scalingConfig": {"desiredSize": 0, "maxSize": 4, "minSize": 0},
        "subnetIds": ["subnet-a", "subnet-b"],
        "tags": {},
        "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
    }
    assert names(plan, "aws:iam/role:Role") == []
    tag = resource(plan, "aws:autoscaling/tag:Tag", "gpu-autoscaler-nvidia.com-gpu").inputs["tag"]
    assert tag == {
        "key": "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu",
        "propagateAtLaunch": False,
        "value": "4",
    }


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
    assert resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpu-node-group").inputs["amiType"] == "AL2023_ARM_64_NVIDIA"


def test_bottlerocket_mig_pool_carries_settings_in_a_launch_template() -> None:
    pool = {"name": "mig", "instance_type": "p5.48xlarge", "max_size": 2, "mig": {"profile": "1g.20gb"}}
    plan = plan_of(lambda: node_group(pool, ami_type="BOTTLEROCKET_x86_64_NVIDIA"))
    template = resource(plan, "aws:ec2/launchTemplate:LaunchTemplate", "gpu-launch-template").inputs
    assert base64.b64decode(template["userData"]).decode() == (
        "[settings.kubelet-device-plugins.nvidia]\n"
        'device-sharing-strategy = "none"\n'
        'device-partitioning-strategy = "mig"\n'
        "\n"
        "[settings.kubelet-device-plugins.nvidia.mig.profile]\n"
        '"h100.80gb" = "1g.20gb"\n'
    )
    inputs = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpu-node-group").inputs
    assert inputs["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    assert inputs["labels"] == {"gpu-components/pool": "mig"}
    assert set(inputs["launchTemplate"]) == {"id", "version"}
    tag = resource(plan, "aws:autoscaling/tag:Tag", "gpu-autoscaler-nvidia.com-gpu").inputs["tag"]
    assert tag["value"] == "32"


def test_component_has_the_documented_type_token_and_parents() -> None:
    plan = plan_of(lambda: node_group({"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1}))
    component = resource(plan, "gpu-components:index:EksGpuNodeGroup", "gpu")
    group = resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpu-node-group")
    assert group.parent == component.urn


def test_invalid_pool_registers_nothing() -> None:
    registered: list[str] = []

    def program() -> None:
        args: EksGpuNodeGroupArgs = {
            "pool": {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 1},
            "cluster_name": "demo",
            "subnet_ids": ["subnet-a"],
            "ami_type": "AL2023_x86_64_STANDARD",
        }
        try:
            EksGpuNodeGroup("gpu", args)
        except GpuSpecError as error:
            registered.append(str(error))

    plan = plan_of(program)
    assert [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"] == []
    assert "pool.ami_type: not an NVIDIA AMI type" in registered[0]
