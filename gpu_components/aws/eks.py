"""``EksGpuNodeGroup``: an EKS managed node group for a validated GPU pool.

EKS spellings (AMI types, ``NO_SCHEDULE``, ``SPOT``) live here and nowhere else. Facts:
- NVIDIA AMI types and the AL2023 NVIDIA AMI contents (driver and container toolkit, no device plugin):
  https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html
- Taint effects and node group inputs: https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html
- Node role policies: https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html
- MIG on AL2023 is documented only through NVIDIA's MIG Manager (GPU Operator):
  https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html
- Under the GPU Operator (``gpu_stack: gpu-operator``) the NVIDIA AMIs keep the driver and toolkit (the operator's
  are off). AL2023 pools are served by the operator: its device plugin and MIG manager (labels of
  :func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`). Bottlerocket pools keep their host device
  plugin and MIG settings, and every operand is kept off their nodes with ``nvidia.com/gpu.deploy.operands=false``
  (NVIDIA "Installing the NVIDIA GPU Operator", section Operands:
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html#operands): Bottlerocket
  is not among the GPU Operator's supported operating systems (bottlerocket-os/bottlerocket#4162), and its
  operands (validator, GPU feature discovery, DCGM exporter) expect the toolkit's ``nvidia`` runtime class.
- Cluster Autoscaler scale-from-zero resource tags:
  https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import DevicePluginHost, GpuStack, validated_pool
from gpu_components.aws import bottlerocket
from gpu_components.aws._sdk import aws
from gpu_components.errors import Problem
from gpu_components.nvidia.device_plugin import advertised_resources, device_plugin_node_labels
from gpu_components.nvidia.gpu_operator import operand_off_label, operator_node_labels
from gpu_components.spec import POOL_LABEL, GpuNodePoolArgs, GpuNodePoolSpec, Taint

SOURCE_AMI_TYPES = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html"
SOURCE_MIG_ON_EKS = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html"

NVIDIA_AMI_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "AL2023_x86_64_NVIDIA": "x86_64",
        "AL2023_ARM_64_NVIDIA": "arm64",
        "BOTTLEROCKET_x86_64_NVIDIA": "x86_64",
        "BOTTLEROCKET_ARM_64_NVIDIA": "arm64",
    }
)
"""EKS AMI types with NVIDIA drivers -> the CPU architecture they run on (``AL2_x86_64_GPU`` is past support)."""
RETIRED_GPU_AMI_TYPES = frozenset({"AL2_x86_64_GPU"})
"""GPU AMI types EKS no longer supports (Amazon Linux 2 reached end of support for EKS AMIs)."""
DEFAULT_AMI_TYPES: Mapping[str, str] = MappingProxyType(
    {"x86_64": "AL2023_x86_64_NVIDIA", "arm64": "AL2023_ARM_64_NVIDIA"}
)
"""AMI type used when none is given, by CPU architecture: Amazon Linux 2023 with NVIDIA drivers."""

TAINT_EFFECTS: Mapping[str, str] = MappingProxyType(
    {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}
)
"""Kubernetes taint effect -> EKS API spelling."""

NODE_ROLE_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    }
)
"""Managed policies attached to a node role the component creates (role suffix -> ARN). The CNI policy is on the
node role because the example cluster does not set up IRSA for the VPC CNI."""

EKS_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36")
"""Kubernetes versions EKS supports in late 2026 (standard and extended support), for schema checks of what the
library renders. Source: https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html"""

CLUSTER_AUTOSCALER_RESOURCE_TAG = "k8s.io/cluster-autoscaler/node-template/resources/"
"""Prefix of the Auto Scaling group tag that tells Cluster Autoscaler what an empty node group's nodes offer."""


class EksGpuNodeGroupArgs(TypedDict):
    """Inputs of :class:`EksGpuNodeGroup`.

    Fields:
        pool: the GPU pool (:class:`~gpu_components.spec.GpuNodePoolArgs`), validated for ``aws``.
        cluster_name: name of the EKS cluster.
        subnet_ids: subnets for the nodes (private subnets of the cluster's VPC).
        node_role_arn: IAM role of the nodes. Defaults to a new role with the EKS worker, ECR pull and CNI
            policies.
        ami_type: an NVIDIA EKS AMI type matching the instance's CPU architecture. Defaults to
            ``AL2023_x86_64_NVIDIA`` / ``AL2023_ARM_64_NVIDIA``. A ``BOTTLEROCKET_*_NVIDIA`` type runs the device
            plugin on the host, configured through Bottlerocket settings, and the device plugin DaemonSet (or,
            under the GPU Operator, every operand) is then kept off the pool.
        tags: AWS tags for the node group. Defaults to none.
        gpu_stack: the cluster's GPU stack (:data:`~gpu_components.adapter.GpuStack`). Defaults to ``auto``. With
            ``gpu-operator`` an AL2023 pool gets the operator's node labels (device plugin config, MIG config) and
            may use MIG through the operator's MIG manager; the operator itself is
            :class:`~gpu_components.kubernetes.NvidiaGpuOperator`, with ``operator_driver`` false.
    """

    pool: GpuNodePoolArgs
    cluster_name: pulumi.Input[str]
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    node_role_arn: NotRequired[pulumi.Input[str]]
    ami_type: NotRequired[str]
    tags: NotRequired[Mapping[str, str]]
    gpu_stack: NotRequired[GpuStack]


def ami_type_for(spec: GpuNodePoolSpec, ami_type: str | None) -> str:
    """The AMI type to use: ``ami_type`` when given, else the AL2023 NVIDIA AMI for the CPU architecture."""
    return ami_type if ami_type is not None else DEFAULT_AMI_TYPES[spec.cpu_architecture]


def device_plugin_host(ami_type: str, gpu_stack: GpuStack = "auto") -> DevicePluginHost:
    """Where the device plugin runs: on the host for Bottlerocket NVIDIA (whatever the GPU stack), else as the
    cluster's DaemonSet, or the GPU Operator's under ``gpu-operator``."""
    if ami_type.startswith("BOTTLEROCKET_"):
        return "node-image"
    return "gpu-operator" if gpu_stack == "gpu-operator" else "daemonset"


def eks_problems(
    spec: GpuNodePoolSpec,
    ami_type: str | None,
    path: str = "",
    gpu_stack: GpuStack = "auto",
    ami_type_path: str | None = None,
) -> list[Problem]:
    """EKS rules for a validated pool: an NVIDIA AMI type of the right architecture, and sharing the image can do.

    MIG needs partitions made on the node: Bottlerocket makes them from its settings; on AL2023 only NVIDIA's
    MIG Manager (GPU Operator) does, so MIG on AL2023 is rejected unless the pool is served by the GPU Operator.
    ``ami_type_path`` is where ``ami_type`` sits in the input (defaults to ``<path>.ami_type``).
    """
    chosen = ami_type_for(spec, ami_type)
    where = ami_type_path if ami_type_path is not None else (f"{path}.ami_type" if path else "ami_type")
    arch = NVIDIA_AMI_TYPES.get(chosen)
    if arch is None:
        retired = chosen in RETIRED_GPU_AMI_TYPES
        return [
            Problem(
                where,
                chosen,
                f"{'an NVIDIA AMI type past its end of support' if retired else 'not an NVIDIA AMI type'}; "
                f"{spec.instance_type} has {spec.gpu_count} x {spec.gpu.name}",
                ", ".join(NVIDIA_AMI_TYPES),
                SOURCE_AMI_TYPES,
            )
        ]
    if arch != spec.cpu_architecture:
        valid = ", ".join(name for name, a in NVIDIA_AMI_TYPES.items() if a == spec.cpu_architecture)
        return [
            Problem(
                where,
                chosen,
                f"built for {arch}, but {spec.instance_type} is {spec.cpu_architecture}",
                valid,
                SOURCE_AMI_TYPES,
            )
        ]
    if device_plugin_host(chosen) == "node-image":
        return bottlerocket.bottlerocket_problems(spec, path)
    if spec.mig is not None and gpu_stack != "gpu-operator":
        bottlerocket_type = f"BOTTLEROCKET_{'x86_64' if arch == 'x86_64' else 'ARM_64'}_NVIDIA"
        return [
            Problem(
                f"{path}.mig" if path else "mig",
                spec.mig.config_name,
                f"{chosen} nodes have no MIG partitioning of their own; EKS documents MIG through NVIDIA's "
                "MIG Manager (GPU Operator) or Bottlerocket's MIG settings",
                f"gpu_stack gpu-operator, or ami_type {bottlerocket_type} with a uniform mig.profile",
                SOURCE_MIG_ON_EKS,
            )
        ]
    return []


def eks_taints(taints: Sequence[Taint]) -> list[dict[str, str]]:
    """Taints in the EKS API's spelling: ``{"key", "value", "effect": "NO_SCHEDULE"}`` (value omitted if empty)."""
    result: list[dict[str, str]] = []
    for taint in taints:
        item = {"key": taint.key, "effect": TAINT_EFFECTS[taint.effect]}
        if taint.value:
            item["value"] = taint.value
        result.append(item)
    return result


def node_labels(spec: GpuNodePoolSpec, host: DevicePluginHost, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """Node labels of the pool: the user's, the pool label, and the selection labels of whatever serves it: the
    device plugin DaemonSet's, the GPU Operator's (:func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`),
    or, on Bottlerocket under the GPU Operator, ``nvidia.com/gpu.deploy.operands=false`` (the host plugin serves
    the nodes and no operand runs there). Bottlerocket without the operator gets no NVIDIA labels."""
    labels = dict(spec.labels)
    labels[POOL_LABEL] = spec.name
    if host == "daemonset":
        labels.update(device_plugin_node_labels(spec))
    elif host == "gpu-operator":
        labels.update(operator_node_labels(spec, "aws"))
    elif gpu_stack == "gpu-operator":
        labels.update(operand_off_label("operands"))
    return dict(sorted(labels.items()))


def autoscaler_tags(spec: GpuNodePoolSpec) -> dict[str, str]:
    """Cluster Autoscaler node-template resource tags: what one node advertises, for scaling from zero."""
    return {
        f"{CLUSTER_AUTOSCALER_RESOURCE_TAG}{name}": str(count) for name, count in advertised_resources(spec).items()
    }


def node_group_inputs(spec: GpuNodePoolSpec, ami_type: str, gpu_stack: GpuStack = "auto") -> dict[str, Any]:
    """The plain ``aws.eks.NodeGroup`` inputs derived from the spec (cluster wiring excluded)."""
    return {
        "ami_type": ami_type,
        "instance_types": [spec.instance_type],
        "capacity_type": "SPOT" if spec.spot else "ON_DEMAND",
        "scaling_config": {
            "min_size": spec.min_size,
            "max_size": spec.max_size,
            "desired_size": spec.desired_size,
        },
        "labels": node_labels(spec, device_plugin_host(ami_type, gpu_stack), gpu_stack),
        "taints": eks_taints(spec.taints),
    }


_ASSUME_ROLE_POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    },
    sort_keys=True,
)


def create_node_role(
    name: str, opts: pulumi.ResourceOptions | None = None
) -> tuple[aws.iam.Role, list[pulumi.Resource]]:
    """An IAM role EC2 nodes can assume, with the :data:`NODE_ROLE_POLICIES` attached.

    Returns the role (``<name>``) and its policy attachments (``<name>-<worker|ecr|cni>``), which node groups
    should depend on.
    """
    role = aws.iam.Role(name, assume_role_policy=_ASSUME_ROLE_POLICY, opts=opts)
    attachments: list[pulumi.Resource] = [
        aws.iam.RolePolicyAttachment(f"{name}-{suffix}", role=role.name, policy_arn=arn, opts=opts)
        for suffix, arn in NODE_ROLE_POLICIES.items()
    ]
    return role, attachments


class EksGpuNodeGroup(pulumi.ComponentResource):
    """An EKS managed node group of NVIDIA GPU nodes for one validated pool.

    Children: ``<name>-node-role`` and ``<name>-node-role-<worker|ecr|cni>`` (when no role is given),
    ``<name>-launch-template`` (Bottlerocket only: the device plugin settings as TOML user data),
    ``<name>-node-group``, and ``<name>-autoscaler-<resource>`` Auto Scaling group tags for scale-from-zero
    (created once the node group reports its Auto Scaling group).
    The node group ignores changes to ``scalingConfig.desiredSize`` so the Cluster Autoscaler owns it.
    Providers: ``aws``.

    Attributes (plain values, known at preview): ``spec``, ``ami_type``, ``gpu_stack``, ``device_plugin_host``
    (``daemonset``, ``gpu-operator`` or ``node-image``), ``labels``, ``taints``, ``advertised_resources``,
    ``node_selector``.

    Raises:
        GpuSpecError: invalid pool, non-NVIDIA or wrong-architecture AMI type, sharing the image (or, for MIG on
            AL2023, the GPU stack) cannot do.
    """

    node_group: aws.eks.NodeGroup
    node_role_arn: pulumi.Output[str]

    def __init__(self, name: str, args: EksGpuNodeGroupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = validated_pool(
            EksGpuNodeGroupArgs,
            args,
            "aws",
            lambda spec: eks_problems(spec, args.get("ami_type"), "pool", args.get("gpu_stack", "auto")),
        )
        gpu_stack: GpuStack = args.get("gpu_stack", "auto")
        super().__init__("gpu-components:index:EksGpuNodeGroup", name, None, opts)
        self.spec = spec
        self.gpu_stack = gpu_stack
        self.ami_type = ami_type_for(spec, args.get("ami_type"))
        self.device_plugin_host: DevicePluginHost = device_plugin_host(self.ami_type, gpu_stack)
        self.advertised_resources = advertised_resources(spec)
        inputs = node_group_inputs(spec, self.ami_type, gpu_stack)
        self.labels: dict[str, str] = inputs["labels"]
        self.taints = spec.taints
        self.node_selector = {POOL_LABEL: spec.name}
        child = pulumi.ResourceOptions(parent=self)

        role_arn = args.get("node_role_arn")
        depends: list[pulumi.Resource] = []
        if role_arn is None:
            role, depends = create_node_role(f"{name}-node-role", child)
            role_arn = role.arn

        launch_template: aws.eks.NodeGroupLaunchTemplateArgs | None = None
        if self.device_plugin_host == "node-image":
            template = aws.ec2.LaunchTemplate(
                f"{name}-launch-template",
                user_data=base64.b64encode(bottlerocket.user_data(spec).encode()).decode(),
                update_default_version=True,
                opts=child,
            )
            launch_template = aws.eks.NodeGroupLaunchTemplateArgs(
                version=template.latest_version.apply(str), id=template.id
            )

        self.node_group = aws.eks.NodeGroup(
            f"{name}-node-group",
            cluster_name=args["cluster_name"],
            node_role_arn=role_arn,
            subnet_ids=args["subnet_ids"],
            launch_template=launch_template,
            tags=dict(args.get("tags", {})),
            **inputs,
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends, ignore_changes=["scalingConfig.desiredSize"]),
        )
        self.node_role_arn = pulumi.Output.from_input(role_arn)
        tags = autoscaler_tags(spec)
        self.node_group.resources.apply(lambda resources: self._tag_groups(name, resources, tags))
        self.register_outputs(
            {"nodeGroupArn": self.node_group.arn, "nodeRoleArn": self.node_role_arn, "labels": self.labels}
        )

    def _tag_groups(
        self,
        name: str,
        resources: Sequence[aws.eks.outputs.NodeGroupResource] | None,
        tags: Mapping[str, str],
    ) -> None:
        """Tag the node group's Auto Scaling groups (known only once it exists) with the autoscaler templates."""
        groups = [group.name for item in resources or [] for group in item.autoscaling_groups or [] if group.name]
        for position, group in enumerate(groups):
            suffix = f"-{position}" if position else ""
            for key, value in sorted(tags.items()):
                resource = key.removeprefix(CLUSTER_AUTOSCALER_RESOURCE_TAG).replace("/", "-")
                aws.autoscaling.Tag(
                    f"{name}-autoscaler-{resource}{suffix}",
                    autoscaling_group_name=group,
                    tag={"key": key, "value": value, "propagate_at_launch": False},
                    opts=pulumi.ResourceOptions(parent=self),
                )
