"""What the Karpenter controller needs on an EKS cluster, as plain data: its IAM policy, the trust of its role
(EKS Pod Identity), the interruption queue's policy and EventBridge rules, its node role's policies, its Helm values,
and the rules of its settings (:func:`settings_problems`: version and ``helm_values``).
:class:`~gpu_components.aws.karpenter.KarpenterController` creates the resources from these (as the example
cluster's ``cluster.karpenter`` does through it).

Every fact is from Karpenter v1.14's getting-started guide and its CloudFormation template
(:data:`~gpu_components.aws.facts.SOURCE_KARPENTER_GETTING_STARTED`); the policy is written here from the actions,
resources and conditions that template documents (one policy instead of its five, statement ids our own; the optional
zonal-shift permission is left out, as the example leaves ``settings.enableZonalShift`` at its default, off). EKS Pod
Identity rather than IRSA, as the guide does: no OIDC provider to create, and the role trusts one fixed service
principal (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from gpu_components.aws.facts import KARPENTER_SERVICE_ACCOUNT, KARPENTER_VERSION, SOURCE_KARPENTER_GETTING_STARTED
from gpu_components.errors import Problem
from gpu_components.labels import SYSTEM_ROLE_LABEL

MIN_KARPENTER_VERSION = "1.0.0"
"""The oldest Karpenter release the library's custom resources work with: ``karpenter.sh/v1`` NodePools and
``karpenter.k8s.aws/v1`` EC2NodeClasses came with 1.0.0 (:data:`SOURCE_KARPENTER_V1`)."""
SOURCE_KARPENTER_V1 = "https://karpenter.sh/docs/upgrading/v1-migration/"
"""Karpenter's v1 migration guide: the v1 APIs (NodePool, EC2NodeClass) from Karpenter 1.0.0."""
SEMVER = re.compile(r"^v?([0-9]+)\.([0-9]+)\.([0-9]+)$")
"""A Karpenter release, ``1.2.3`` or ``v1.2.3`` (its three numbers as groups)."""
POLICY_VERSION = "2012-10-17"
"""IAM policy language version."""
POD_IDENTITY_TRUST = {
    "Version": POLICY_VERSION,
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "pods.eks.amazonaws.com"},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }
    ],
}
"""Trust policy of a role for EKS Pod Identity (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html)."""
NODE_ROLE_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
        "ssm": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    }
)
"""Managed policies of the role of nodes Karpenter launches (role suffix -> ARN), the template's
``KarpenterNodeRole``."""
INTERRUPTION_EVENTS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "health": ("aws.health", "AWS Health Event"),
        "spot": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
        "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
        "state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
        "reservation": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
    }
)
"""The EventBridge rules sending to the interruption queue (rule suffix -> (event source, detail type)): AWS Health
scheduled changes, spot interruption warnings, rebalance recommendations, instance state changes and capacity
reservation interruption warnings."""
QUEUE_RETENTION_SECONDS = 300
"""How long the interruption queue keeps a message."""
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
"""The controller container's resources, as the guide installs it."""
CHART_REPLICAS = 2
"""The chart's default ``replicas`` of the controller Deployment (``charts/karpenter/values.yaml`` of
aws/karpenter-provider-aws v1.14.1). Its default ``affinity`` keeps each replica on a node of its own (required pod
anti-affinity on ``kubernetes.io/hostname``) and off the nodes Karpenter launches (node affinity
``karpenter.sh/nodepool DoesNotExist``); with :func:`helm_values`' node selector only the system node group's nodes
are left, so it needs as many nodes as replicas (checked by the Helm oracle, ``tests/oracles/test_helm.py``)."""
SOURCE_KARPENTER_CHART_VALUES = (
    "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml"
)
"""The Karpenter chart's values at the pinned release: ``replicas``, ``affinity``, ``topologySpreadConstraints``."""


def controller_replicas(helm_values: Mapping[str, Any]) -> object:
    """The controller's replica count under ``cluster.karpenter.helm_values`` (the chart's :data:`CHART_REPLICAS`
    unless they set ``replicas``; returned as given, checked by the caller)."""
    return helm_values.get("replicas", CHART_REPLICAS) if isinstance(helm_values, Mapping) else CHART_REPLICAS


OWNED_HELM_VALUES = (
    ("settings", "clusterName"),
    ("settings", "interruptionQueue"),
    ("serviceAccount", "name"),
)
"""Helm values the example sets for its cluster, queue and Pod Identity association, refused in ``helm_values``."""


def _owned(cluster: str) -> dict[str, str]:
    return {f"aws:ResourceTag/kubernetes.io/cluster/{cluster}": "owned"}


def _statement(sid: str, actions: list[str], resources: str | list[str], **condition: Any) -> dict[str, Any]:
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": resources}
    if condition:
        statement["Condition"] = condition
    return statement


def controller_policy(cluster: str, region: str, account: str, node_role_arn: str, queue_arn: str) -> dict[str, Any]:
    """The Karpenter controller's IAM policy for ``cluster`` in ``region`` of ``account``: launch and tag instances,
    fleets, launch templates and their volumes and network interfaces tagged as the cluster's and a NodePool's,
    terminate only those, pass only ``node_role_arn`` to EC2, manage the instance profiles of its EC2NodeClasses, read
    the cluster's endpoint, EC2/SSM/pricing data, and consume ``queue_arn``. Partition ``aws``."""
    ec2 = f"arn:aws:ec2:{region}"
    launched = [
        f"{ec2}:*:{kind}/*"
        for kind in ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
    ]
    request_tags = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster}": "owned",
        "aws:RequestTag/eks:eks-cluster-name": cluster,
    }
    nodepool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    profiles = f"arn:aws:iam::{account}:instance-profile/*"
    profile_tags = {**_owned(cluster), "aws:ResourceTag/topology.kubernetes.io/region": region}
    profile_request_tags = {**request_tags, "aws:RequestTag/topology.kubernetes.io/region": region}
    node_class = "karpenter.k8s.aws/ec2nodeclass"
    return {
        "Version": POLICY_VERSION,
        "Statement": [
            _statement(
                "LaunchFromSharedResources",
                ["ec2:RunInstances", "ec2:CreateFleet"],
                [
                    f"{ec2}::image/*",
                    f"{ec2}::snapshot/*",
                    *(f"{ec2}:*:{kind}/*" for kind in ("security-group", "subnet", "capacity-reservation")),
                    f"{ec2}:*:placement-group/*",
                ],
            ),
            _statement(
                "LaunchFromOwnedTemplates",
                ["ec2:RunInstances", "ec2:CreateFleet"],
                f"{ec2}:*:launch-template/*",
                StringEquals=_owned(cluster),
                StringLike=nodepool,
            ),
            _statement(
                "CreateOwnedResources",
                ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
                launched,
                StringEquals=request_tags,
                StringLike={"aws:RequestTag/karpenter.sh/nodepool": "*"},
            ),
            _statement(
                "TagOnCreate",
                ["ec2:CreateTags"],
                launched,
                StringEquals={
                    **request_tags,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                StringLike={"aws:RequestTag/karpenter.sh/nodepool": "*"},
            ),
            _statement(
                "TagOwnedInstances",
                ["ec2:CreateTags"],
                f"{ec2}:*:instance/*",
                StringEquals=_owned(cluster),
                StringLike=nodepool,
                StringEqualsIfExists={"aws:RequestTag/eks:eks-cluster-name": cluster},
                **{
                    "ForAllValues:StringEquals": {
                        "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                    }
                },
            ),
            _statement(
                "DeleteOwned",
                ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
                StringEquals=_owned(cluster),
                StringLike=nodepool,
            ),
            _statement(
                "PassNodeRole",
                ["iam:PassRole"],
                node_role_arn,
                StringEquals={"iam:PassedToService": "ec2.amazonaws.com"},
            ),
            _statement(
                "CreateInstanceProfiles",
                ["iam:CreateInstanceProfile"],
                profiles,
                StringEquals=profile_request_tags,
                StringLike={f"aws:RequestTag/{node_class}": "*"},
            ),
            _statement(
                "TagInstanceProfiles",
                ["iam:TagInstanceProfile"],
                profiles,
                StringEquals={**profile_tags, **profile_request_tags},
                StringLike={f"aws:ResourceTag/{node_class}": "*", f"aws:RequestTag/{node_class}": "*"},
            ),
            _statement(
                "ManageInstanceProfiles",
                ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
                profiles,
                StringEquals=profile_tags,
                StringLike={f"aws:ResourceTag/{node_class}": "*"},
            ),
            _statement("DescribeCluster", ["eks:DescribeCluster"], f"arn:aws:eks:{region}:{account}:cluster/{cluster}"),
            _statement(
                "ConsumeInterruptionQueue", ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"], queue_arn
            ),
            _statement(
                "ReadRegion",
                [
                    f"ec2:{action}"
                    for action in (
                        "DescribeCapacityReservations",
                        "DescribeImages",
                        "DescribeInstances",
                        "DescribeInstanceStatus",
                        "DescribeInstanceTypeOfferings",
                        "DescribeInstanceTypes",
                        "DescribeLaunchTemplates",
                        "DescribePlacementGroups",
                        "DescribeSecurityGroups",
                        "DescribeSpotPriceHistory",
                        "DescribeSubnets",
                    )
                ],
                "*",
                StringEquals={"aws:RequestedRegion": region},
            ),
            _statement("ReadAmiParameters", ["ssm:GetParameter"], f"arn:aws:ssm:{region}::parameter/aws/service/*"),
            _statement("ReadPrices", ["pricing:GetProducts"], "*"),
            _statement("ListInstanceProfiles", ["iam:ListInstanceProfiles"], "*"),
            _statement("ReadInstanceProfiles", ["iam:GetInstanceProfile"], profiles),
        ],
    }


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """The interruption queue's policy: EventBridge and SQS may send to it, and nothing may use it over plain
    HTTP."""
    return {
        "Version": POLICY_VERSION,
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Sid": "EventsSend",
                "Effect": "Allow",
                "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
        ],
    }


def event_pattern(source: str, detail_type: str) -> dict[str, list[str]]:
    """The EventBridge pattern of one kind of event (:data:`INTERRUPTION_EVENTS`)."""
    return {"source": [source], "detail-type": [detail_type]}


SYSTEM_NODE_SELECTOR: Mapping[str, str] = MappingProxyType({SYSTEM_ROLE_LABEL: "system"})
"""Where the controller runs by default: the example cluster's system node group (label ``gpu-components/role:
system``)."""


def helm_values(cluster: str, queue: Any, node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR) -> dict[str, Any]:
    """The chart values the library sets: the cluster and interruption queue (``queue``: its name, or an output of
    it), the service account its Pod Identity association names, the controller on the nodes ``node_selector``
    selects (defaults to the system node group, :data:`SYSTEM_NODE_SELECTOR`; the chart keeps its own
    ``kubernetes.io/os: linux`` and its affinity away from Karpenter's nodes) and the guide's controller
    resources."""
    return {
        "settings": {"clusterName": cluster, "interruptionQueue": queue},
        "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
        "nodeSelector": dict(node_selector),
        "controller": {"resources": CONTROLLER_RESOURCES},
    }


def supported_version(version: object) -> bool:
    """Whether ``version`` is a Karpenter release (``1.2.3``, or ``v1.2.3``) from :data:`MIN_KARPENTER_VERSION` on."""
    found = SEMVER.fullmatch(version) if isinstance(version, str) else None
    minimum = tuple(int(part) for part in MIN_KARPENTER_VERSION.split("."))
    return found is not None and tuple(int(part) for part in found.groups()) >= minimum


def _library_helm_sections() -> dict[tuple[str, ...], list[str]]:
    """Every mapping of the Karpenter chart's values the library sets, at any depth (those of
    :func:`helm_values`: path, e.g. ``("controller", "resources")`` -> the
    keys it sets inside), each of which a ``helm_values`` override must leave a mapping."""
    sections: dict[tuple[str, ...], list[str]] = {}

    def walk(values: Mapping[str, Any], path: tuple[str, ...]) -> None:
        for key, value in values.items():
            if isinstance(value, Mapping):
                sections[(*path, key)] = list(value)
                walk(value, (*path, key))

    walk(helm_values("", ""), ())
    return sections


def _not_mapping_sections(overrides: Mapping[str, Any], prefix: str) -> list[Problem]:
    """A ``helm_values`` value that is not a mapping where the library sets keys inside (the shallowest such path:
    the override replaces everything below it)."""
    problems: list[Problem] = []
    for path, fields in _library_helm_sections().items():
        parent: Any = overrides
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, Mapping) else None
        if not isinstance(parent, Mapping) or path[-1] not in parent or isinstance(parent[path[-1]], Mapping):
            continue
        dotted = ".".join(path)
        problems.append(
            Problem(
                f"{prefix}helm_values.{dotted}",
                parent[path[-1]],
                f"must be a mapping: the library sets {', '.join(f'{dotted}.{field}' for field in fields)} inside "
                "it, which this value would replace",
                "a mapping of chart values",
                SOURCE_KARPENTER_GETTING_STARTED,
            )
        )
    return problems


def settings_problems(settings: Mapping[str, Any], prefix: str) -> list[Problem]:
    """The controller's ``version`` (a release from :data:`MIN_KARPENTER_VERSION` on) and ``helm_values`` (no value
    the library sets, :data:`OWNED_HELM_VALUES`, and a mapping where the library sets keys inside), at
    ``<prefix>version`` and ``<prefix>helm_values...``: the example cluster's ``cluster.karpenter`` and
    :class:`~gpu_components.aws.karpenter.KarpenterController` (no prefix)."""
    problems: list[Problem] = []
    version = settings.get("version")
    if version is not None and not supported_version(version):
        problems.append(
            Problem(
                f"{prefix}version",
                version,
                "not a Karpenter release the library supports: its NodePools and EC2NodeClasses are karpenter.sh/v1 "
                "and karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on",
                f"a release MAJOR.MINOR.PATCH from {MIN_KARPENTER_VERSION} on, e.g. {KARPENTER_VERSION}",
                SOURCE_KARPENTER_V1,
            )
        )
    overrides = settings.get("helm_values", {})
    problems += _not_mapping_sections(overrides, prefix)
    problems += [
        Problem(
            f"{prefix}helm_values.{section}.{field}",
            overrides[section][field],
            "set by the library (the cluster, its interruption queue, the service account of its Pod Identity "
            "association)",
            "remove it",
            SOURCE_KARPENTER_GETTING_STARTED,
        )
        for section, field in OWNED_HELM_VALUES
        if isinstance(overrides.get(section), Mapping) and field in overrides[section]
    ]
    return problems
