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
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gpu_components.aws.facts import (
    KARPENTER_NAMESPACE,
    KARPENTER_SERVICE_ACCOUNT,
    KARPENTER_VERSION,
    SOURCE_KARPENTER_GETTING_STARTED,
)
from gpu_components.errors import Problem
from gpu_components.labels import SYSTEM_ROLE_LABEL
from gpu_components.spec import label_key_problems, label_value_problems

MIN_KARPENTER_VERSION = "1.0.0"
"""The oldest Karpenter release the library's custom resources work with: ``karpenter.sh/v1`` NodePools and
``karpenter.k8s.aws/v1`` EC2NodeClasses came with 1.0.0 (:data:`SOURCE_KARPENTER_V1`)."""
SOURCE_KARPENTER_V1 = "https://karpenter.sh/docs/upgrading/v1-migration/"
"""Karpenter's v1 migration guide: the v1 APIs (NodePool, EC2NodeClass) from Karpenter 1.0.0."""
SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")
"""A Karpenter chart version, ``1.2.3`` (its three numbers as groups, without leading zeros, as semver has them): the
chart's tags on ``oci://public.ecr.aws/karpenter/karpenter`` have no leading ``v`` (the guide's
``KARPENTER_VERSION="1.14.1"``, :data:`~gpu_components.aws.facts.SOURCE_KARPENTER_GETTING_STARTED`), so ``v1.2.3``
names no chart."""
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


@dataclass(frozen=True)
class OwnedHelmValue:
    """A Karpenter chart value the library decides, which ``helm_values`` may not set.

    Attributes:
        why: what the library's value is and what depends on it.
        setting: the :class:`~gpu_components.aws.karpenter.KarpenterController` input that decides it instead, for
            the error's valid values; ``None`` when none does.
    """

    why: str
    setting: str | None = None


RENDERED_HELM_VALUES: Mapping[tuple[str, ...], OwnedHelmValue] = MappingProxyType(
    {
        ("settings", "clusterName"): OwnedHelmValue(
            "the cluster, which also names the interruption queue and scopes the controller's IAM policy",
            "cluster_name",
        ),
        ("settings", "interruptionQueue"): OwnedHelmValue(
            "the interruption queue the library creates and subscribes to the interruption events"
        ),
        ("serviceAccount", "name"): OwnedHelmValue(
            f"{KARPENTER_NAMESPACE}/{KARPENTER_SERVICE_ACCOUNT}, the service account the Pod Identity association "
            "gives the controller's role"
        ),
        ("nodeSelector",): OwnedHelmValue(
            "the nodes the controller runs on, which must not be nodes Karpenter launches", "node_selector"
        ),
        ("controller", "resources"): OwnedHelmValue(
            "the guide's controller resources: 1 CPU and 1Gi, requested and limited"
        ),
    }
)
"""Why each value :func:`helm_values` renders is the library's (path in the chart values -> reason), a whole
section where the path ends at a mapping. No value it renders is left to ``helm_values``: each is the cluster, the
resources the library creates, or where and how the controller runs."""
CHART_HELM_VALUES: Mapping[tuple[str, ...], OwnedHelmValue] = MappingProxyType(
    {
        ("serviceAccount", "create"): OwnedHelmValue(
            f"the chart creates the service account {KARPENTER_NAMESPACE}/{KARPENTER_SERVICE_ACCOUNT} that the Pod "
            "Identity association names; without it the controller gets no AWS credentials"
        ),
        ("affinity",): OwnedHelmValue(
            "the chart's affinity keeps each controller replica on a node of its own and off the nodes Karpenter "
            "launches, which the controller could otherwise remove from under itself",
            "node_selector",
        ),
    }
)
"""Chart defaults the library relies on (:data:`SOURCE_KARPENTER_CHART_VALUES`), refused in ``helm_values`` too."""


def _rendered_paths(values: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The values :func:`helm_values` renders, each at its path in :data:`RENDERED_HELM_VALUES` (a whole section
    there), or at its leaf where it has no reason there."""
    paths: list[tuple[str, ...]] = []
    for key, value in values.items():
        here = (*path, key)
        paths += (
            _rendered_paths(value, here) if here not in RENDERED_HELM_VALUES and isinstance(value, Mapping) else [here]
        )
    return paths


UNEXPLAINED = OwnedHelmValue("rendered by karpenter_controller.helm_values")
"""The reason of a rendered value missing from :data:`RENDERED_HELM_VALUES` (refused all the same; a test requires
every rendered value to have its own reason)."""
OWNED_HELM_VALUES: Mapping[tuple[str, ...], OwnedHelmValue] = MappingProxyType(
    {
        **{path: RENDERED_HELM_VALUES.get(path, UNEXPLAINED) for path in _rendered_paths(helm_values("", ""))},
        **CHART_HELM_VALUES,
    }
)
"""Every chart value ``helm_values`` may not set (path -> why): all that :func:`helm_values` renders, derived from
it, and :data:`CHART_HELM_VALUES`."""


def supported_version(version: object) -> bool:
    """Whether ``version`` is a Karpenter chart version (``1.2.3``) from :data:`MIN_KARPENTER_VERSION` on."""
    found = SEMVER.fullmatch(version) if isinstance(version, str) else None
    minimum = tuple(int(part) for part in MIN_KARPENTER_VERSION.split("."))
    return found is not None and tuple(int(part) for part in found.groups()) >= minimum


def _version_problems(version: object, path: str) -> list[Problem]:
    """A ``version`` string that is not a supported chart version (a non-string is the shape check's)."""
    if not isinstance(version, str) or supported_version(version):
        return []
    if version.startswith("v") and supported_version(version[1:]):
        return [
            Problem(
                path,
                version,
                "Karpenter's chart versions on oci://public.ecr.aws/karpenter/karpenter have no leading v (the "
                f'guide installs KARPENTER_VERSION="{KARPENTER_VERSION}"), so Helm would find no chart {version}',
                f"{version[1:]} (without the v)",
                SOURCE_KARPENTER_GETTING_STARTED,
            )
        ]
    return [
        Problem(
            path,
            version,
            "not a Karpenter release the library supports: its NodePools and EC2NodeClasses are karpenter.sh/v1 "
            "and karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on",
            f"a release MAJOR.MINOR.PATCH from {MIN_KARPENTER_VERSION} on, e.g. {KARPENTER_VERSION}",
            SOURCE_KARPENTER_V1,
        )
    ]


def _helm_values_problems(
    overrides: Mapping[str, Any], prefix: str, settings: Mapping[str, str | None]
) -> list[Problem]:
    """``helm_values`` setting a value of :data:`OWNED_HELM_VALUES`, or giving a section above one anything but a
    mapping (which replaces it; at the shallowest such section, once). ``settings`` names each component input at
    this entry point (``None``: it has none)."""
    problems: list[Problem] = []
    for path, owned in OWNED_HELM_VALUES.items():
        block: object = overrides
        for depth, key in enumerate(path):
            if not isinstance(block, Mapping) or key not in block:
                break
            block = block[key]
            if depth < len(path) - 1 and isinstance(block, Mapping):
                continue
            where = f"{prefix}helm_values." + ".".join(path[: depth + 1])
            if any(problem.path == where for problem in problems):
                break
            if depth < len(path) - 1:
                inside = [".".join(other) for other in OWNED_HELM_VALUES if other[: depth + 1] == path[: depth + 1]]
                problems.append(
                    Problem(
                        where,
                        block,
                        f"must be a mapping: the library sets {', '.join(inside)} inside it, which this value would "
                        "replace",
                        "a mapping of chart values",
                        SOURCE_KARPENTER_GETTING_STARTED,
                    )
                )
                break
            setting = settings.get(owned.setting) if owned.setting else None
            problems.append(
                Problem(
                    where,
                    block,
                    f"set by the library ({owned.why})",
                    f"remove it, and set {setting} instead" if setting else "remove it",
                    SOURCE_KARPENTER_GETTING_STARTED,
                )
            )
    return problems


def _node_selector_problems(selector: object, path: str) -> list[Problem]:
    """Each label of ``node_selector`` (a mapping of strings: its shape is checked by the caller's shape check) a
    Kubernetes label key and value (:func:`~gpu_components.spec.label_key_problems`,
    :func:`~gpu_components.spec.label_value_problems`), at ``<path>['<key>']``."""
    if not isinstance(selector, Mapping):
        return []
    problems: list[Problem] = []
    for key, value in selector.items():
        where = f"{path}[{key!r}]"
        problems += label_key_problems(key, where) if isinstance(key, str) else []
        problems += label_value_problems(value, where) if isinstance(value, str) else []
    return problems


COMPONENT_SETTINGS: Mapping[str, str | None] = MappingProxyType(
    {"cluster_name": "cluster_name", "node_selector": "node_selector"}
)
"""The inputs of :class:`~gpu_components.aws.karpenter.KarpenterController` that decide owned values, by name."""


def settings_problems(
    settings: Mapping[str, Any], prefix: str, inputs: Mapping[str, str | None] = COMPONENT_SETTINGS
) -> list[Problem]:
    """The controller's ``version`` (a chart version ``1.2.3`` from :data:`MIN_KARPENTER_VERSION` on; ``v1.2.3``
    is refused with the version without its ``v``), ``node_selector`` (Kubernetes label keys and values) and
    ``helm_values`` (no value of :data:`OWNED_HELM_VALUES`, and a mapping where the library sets keys inside), at
    ``<prefix>version``, ``<prefix>node_selector['<key>']`` and ``<prefix>helm_values...``: the example cluster's
    ``cluster.karpenter`` and :class:`~gpu_components.aws.karpenter.KarpenterController` (no prefix). A value of
    the wrong type (a ``version`` that is not a string, ``helm_values`` that are not a mapping) is left to the
    caller's shape check, which reports it once. ``inputs`` names, at this entry point, the component inputs that
    decide owned values (:data:`COMPONENT_SETTINGS`; ``None``: it has none), for the errors' valid values."""
    overrides = settings.get("helm_values", {})
    return (
        _version_problems(settings.get("version"), f"{prefix}version")
        + _node_selector_problems(settings.get("node_selector"), f"{prefix}node_selector")
        + (_helm_values_problems(overrides, prefix, inputs) if isinstance(overrides, Mapping) else [])
    )
