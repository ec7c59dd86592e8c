"""What the example program needs of an EKS cluster: create a minimal one, or attach to an existing one.

A new cluster is a pulumi-eks ``Cluster`` (API authentication mode, no default node group) with a small
``AL2023_x86_64_STANDARD`` system node group for add-ons, in the given VPC or the account's default VPC.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import ProvisionedCluster, SystemPoolSizes, example_cluster_problems
from gpu_components.aws._sdk import aws, eks
from gpu_components.aws.eks import create_node_role
from gpu_components.aws.facts import NODE_GROUP_OPTIONS
from gpu_components.errors import Problem
from gpu_components.shape import STRICT
from gpu_components.spec import SYSTEM_ROLE_LABEL

DEFAULT_KUBERNETES_VERSION = "1.34"
"""Kubernetes version of a new EKS cluster: in EKS standard support in late 2026 (EKS version calendar)."""
SYSTEM_INSTANCE_TYPE = "m7i.large"
"""Instance type of the small system node group that runs add-ons (CoreDNS, the device plugin's controller)."""
SYSTEM_SIZES = SystemPoolSizes("system_node_group", ("min_size", "desired_size", "max_size"), (1, 2, 3))
"""The system node group's node counts (``scalingConfig``): 1 to 3 nodes, 2 at creation."""
NEW_CLUSTER_ONLY = ("kubernetes_version", "vpc_id", "system_node_group")
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true``."""


@STRICT
class SystemNodeGroupConfig(TypedDict):
    """The non-GPU node group for cluster add-ons. Defaults: ``m7i.large``, 1 to 3 nodes, 2 at creation."""

    instance_type: NotRequired[str]
    min_size: NotRequired[int]
    max_size: NotRequired[int]
    desired_size: NotRequired[int]


@STRICT
class EksClusterConfig(TypedDict):
    """``cluster`` config on AWS.

    Fields:
        name: EKS cluster name (created, or looked up when ``existing``).
        existing: attach to the existing cluster ``name`` instead of creating one. Defaults to False.
        kubernetes_version: version of a new cluster. Defaults to ``1.34``.
        vpc_id, subnet_ids: network of a new cluster and of the node groups. Defaults to the account's default
            VPC and its subnets; ``subnet_ids`` is required with ``existing``.
        node_role_arn: IAM role for the node groups. Defaults to one role created for all of them.
        system_node_group: see :class:`SystemNodeGroupConfig` (new clusters only).
    """

    name: str
    existing: NotRequired[bool]
    kubernetes_version: NotRequired[str]
    vpc_id: NotRequired[str]
    subnet_ids: NotRequired[list[str]]
    node_role_arn: NotRequired[str]
    system_node_group: NotRequired[SystemNodeGroupConfig]


def eks_kubeconfig(cluster_name: str, endpoint: str, certificate_authority: str) -> str:
    """A kubeconfig (JSON) for an EKS cluster that authenticates with ``aws eks get-token``."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": cluster_name,
                    "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority},
                }
            ],
            "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
            "current-context": cluster_name,
            "users": [
                {
                    "name": cluster_name,
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "aws",
                            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--output", "json"],
                        }
                    },
                }
            ],
        },
        sort_keys=True,
    )


def _network(cluster: EksClusterConfig) -> tuple[pulumi.Input[str], pulumi.Input[Sequence[str]]]:
    if "subnet_ids" in cluster and "vpc_id" in cluster:
        return cluster["vpc_id"], cluster["subnet_ids"]
    vpc_id = cluster["vpc_id"] if "vpc_id" in cluster else aws.ec2.get_vpc(default=True).id
    subnet_ids = cluster.get("subnet_ids") or aws.ec2.get_subnets(filters=[{"name": "vpc-id", "values": [vpc_id]}]).ids
    return vpc_id, subnet_ids


def _create(cluster: EksClusterConfig) -> ProvisionedCluster:
    name = cluster["name"]
    vpc_id, subnet_ids = _network(cluster)
    depends_on: list[pulumi.Resource] = []
    eks_cluster = eks.Cluster(
        name,
        name=name,
        version=cluster.get("kubernetes_version", DEFAULT_KUBERNETES_VERSION),
        vpc_id=vpc_id,
        subnet_ids=subnet_ids,
        skip_default_node_group=True,
        authentication_mode=eks.AuthenticationMode.API,
    )
    role_arn: pulumi.Input[str]
    if "node_role_arn" in cluster:
        role_arn = cluster["node_role_arn"]
    else:
        role, attachments = create_node_role(f"{name}-node-role")
        role_arn = role.arn
        depends_on.extend(attachments)
    system = cluster.get("system_node_group", {})
    counts = SYSTEM_SIZES.counts(cluster)
    system_group = aws.eks.NodeGroup(
        f"{name}-system",
        cluster_name=name,
        node_role_arn=role_arn,
        subnet_ids=subnet_ids,
        ami_type="AL2023_x86_64_STANDARD",
        instance_types=[system.get("instance_type", SYSTEM_INSTANCE_TYPE)],
        scaling_config={
            "min_size": counts["min_size"],
            "max_size": counts["max_size"],
            "desired_size": counts["desired_size"],
        },
        labels={SYSTEM_ROLE_LABEL: "system"},
        opts=pulumi.ResourceOptions(
            depends_on=[eks_cluster, *depends_on], ignore_changes=list(NODE_GROUP_OPTIONS.ignore_changes)
        ),
    )
    return ProvisionedCluster(
        kubeconfig=eks_cluster.kubeconfig_json,
        wiring={"cluster_name": name, "subnet_ids": subnet_ids, "node_role_arn": role_arn},
        depends_on=[eks_cluster, system_group, *depends_on],
    )


def _attach(cluster: EksClusterConfig) -> ProvisionedCluster:
    found = aws.eks.get_cluster_output(name=cluster["name"])
    kubeconfig = pulumi.Output.all(found.endpoint, found.certificate_authorities).apply(
        lambda parts: eks_kubeconfig(cluster["name"], parts[0], parts[1][0]["data"])
    )
    wiring: dict[str, Any] = {"cluster_name": cluster["name"], "subnet_ids": cluster["subnet_ids"]}
    if "node_role_arn" in cluster:
        wiring["node_role_arn"] = cluster["node_role_arn"]
    return ProvisionedCluster(kubeconfig=kubeconfig, wiring=wiring)


def config_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """Rules of the ``cluster`` config beyond its shape: those of
    :func:`~gpu_components.adapter.example_cluster_problems` (:data:`NEW_CLUSTER_ONLY`, :data:`SYSTEM_SIZES`), and
    ``subnet_ids`` is required with ``existing``."""
    return example_cluster_problems(cluster, NEW_CLUSTER_ONLY, SYSTEM_SIZES, existing_requires=("subnet_ids",))


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the EKS cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(EksClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
