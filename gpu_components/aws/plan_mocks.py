"""The plan's mocks of the AWS and EKS providers (pulumi-aws, pulumi-eks), without their SDKs.

Registered through the EKS facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`, which derives every other output from the resource's SDK class. What
is here: each pulumi-aws resource's identity (:func:`_aws_resource`: its id and ARN, in :data:`AWS_ACCOUNT_ID` and
the stack's ``aws:region``, default :data:`DEFAULT_AWS_REGION`; EC2 ids are a prefix and 17 hex digits, auto-names 7
hex characters, as the provider's), and the values other resources or invokes read: a node group's Auto Scaling
group, a launch template's id and version, pulumi-eks's ``Cluster`` (its EKS cluster, with the endpoint and CA
its kubeconfig is made from), an SQS queue's URL, and the invokes the library makes (the default VPC and its subnets,
an existing cluster, the region and the account).

Sources for the formats: the AWS identifier reference
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html), the EC2 launch template API
(https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplate.html), EKS's node group API (its
``resources.autoScalingGroups``, https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupResources.html)
and pulumi-eks's kubeconfig (``aws eks get-token``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from gpu_components.plan.mock_kit import (
    MissingMockError,
    MockInvoke,
    MockResource,
    Outputs,
    ProviderMocks,
    certificate_b64,
    child_urn,
    hex_of,
    reference,
    registered,
    synthetic,
    uuid_of,
)

__all__ = ["AWS_ACCOUNT_ID", "DEFAULT_AWS_REGION", "MOCKS", "launch_template_id"]

AWS_ACCOUNT_ID = "123456789012"
"""The AWS account of every mocked ARN (the documentation account id AWS uses in its examples)."""
DEFAULT_AWS_REGION = "us-west-2"
"""Region used when the stack config has no `aws:region`."""

_EC2_ID_PREFIXES = {
    "aws:ec2/launchTemplate:LaunchTemplate": "lt",
    "aws:ec2/securityGroup:SecurityGroup": "sg",
    "aws:ec2/subnet:Subnet": "subnet",
    "aws:ec2/vpc:Vpc": "vpc",
}
"""EC2 resources whose id is their prefix and 17 hex digits (EC2's resource ids)."""
_NAME_INPUTS = {
    "aws:cloudwatch/eventRule:EventRule": "name",
    "aws:eks/cluster:Cluster": "name",
    "aws:iam/role:Role": "name",
    "aws:iam/policy:Policy": "name",
}
"""Resources whose name input the provider fills in with an auto-name when the program gives none."""
_GLOBAL_SERVICES = frozenset({"iam"})
"""Services whose ARNs have no region."""


def _region(config: Mapping[str, str]) -> str:
    return config.get("aws:region") or DEFAULT_AWS_REGION


def _arn(config: Mapping[str, str], service: str, resource: str) -> str:
    """An ARN of the mocked account, in the stack's region unless the service is global."""
    region = "" if service in _GLOBAL_SERVICES else _region(config)
    return f"arn:aws:{service}:{region}:{AWS_ACCOUNT_ID}:{resource}"


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def launch_template_id(urn: str) -> str:
    """The id the plan gives the EC2 launch template ``urn`` (``lt-`` and 17 hex digits, as EC2's own ids)."""
    return f"lt-{hex_of(urn, 17)}"


def _aws_resource(r: MockResource) -> Outputs:
    """Any pulumi-aws resource: its id (an EC2 id, its name, or ``<logical name>-<7 hex>``) and its ARN,
    ``arn:aws:<service>:<region>:<account>:<kind>/<id>`` (IAM's: ``<kind><path><name>``, no region)."""
    service = r.type.split(":")[1].split("/")[0]
    kind = _kebab(r.type.rsplit(":", 1)[-1])
    name_key = _NAME_INPUTS.get(r.type)
    outputs: dict[str, Any] = {}
    if r.type in _EC2_ID_PREFIXES:
        resource_id = f"{_EC2_ID_PREFIXES[r.type]}-{hex_of(r.urn, 17)}"
    elif name_key is not None:
        resource_id = outputs[name_key] = r.autoname(name_key)
    else:
        resource_id = f"{r.name}-{hex_of(r.urn, 7)}"
    path = str(r.get("path", "/")) if service in _GLOBAL_SERVICES else "/"
    outputs["arn"] = _arn(r.config, service, f"{kind}{path}{resource_id}")
    return resource_id, outputs


def _launch_template(r: MockResource) -> Outputs:
    """Its id (:func:`launch_template_id`), which the diff finds node groups by, and version 1, which a node group
    that uses it names."""
    resource_id = launch_template_id(r.urn)
    return resource_id, {
        "arn": _arn(r.config, "ec2", f"launch-template/{resource_id}"),
        "latestVersion": 1,
        "defaultVersion": 1,
    }


def _queue(r: MockResource) -> Outputs:
    """An SQS queue: its URL (the queue's id), ``https://sqs.<region>.amazonaws.com/<account>/<name>``, and ARN
    ``arn:aws:sqs:<region>:<account>:<name>`` (SQS's ARN has no resource type)."""
    name = r.autoname("name")
    region = _region(r.config)
    url = f"https://sqs.{region}.amazonaws.com/{AWS_ACCOUNT_ID}/{name}"
    return url, {"name": name, "url": url, "arn": f"arn:aws:sqs:{region}:{AWS_ACCOUNT_ID}:{name}"}


def _node_group(r: MockResource) -> Outputs:
    """``<cluster>:<name>``, and the one Auto Scaling group EKS creates for it, which the autoscaler's tags name."""
    cluster = str(r.get("clusterName", "cluster"))
    name = r.autoname("nodeGroupName")
    suffix = uuid_of(r.urn)
    return f"{cluster}:{name}", {
        "nodeGroupName": name,
        "arn": _arn(r.config, "eks", f"nodegroup/{cluster}/{name}/{suffix}"),
        "resources": [{"autoscalingGroups": [{"name": f"eks-{name}-{suffix}"}]}],
    }


def _eks_cluster_state(name: str, seed: str, config: Mapping[str, str]) -> dict[str, Any]:
    """What EKS reports of cluster ``name``: its ARN, endpoint, CA and OIDC issuer (derived from ``seed``)."""
    endpoint_id = hex_of(seed + "endpoint", 32).upper()
    region = _region(config)
    return {
        "name": name,
        "arn": _arn(config, "eks", f"cluster/{name}"),
        "endpoint": f"https://{endpoint_id}.gr7.{region}.eks.amazonaws.com",
        "certificateAuthority": {"data": certificate_b64(seed)},
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{region}.amazonaws.com/id/{endpoint_id}"}]}],
    }


def _eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, *, role_arn: str = "", profile: str = "") -> Any:
    """The kubeconfig pulumi-eks makes for a cluster: ``aws eks get-token`` for the cluster (and role, profile)."""
    args = ["eks", "get-token", "--cluster-name", cluster_name, "--output", "json"]
    if role_arn:
        args += ["--role-arn", role_arn]
    env = [{"name": "KUBERNETES_EXEC_INFO", "value": '{"apiVersion": "client.authentication.k8s.io/v1beta1"}'}]
    if profile:
        env.append({"name": "AWS_PROFILE", "value": profile})
    exec_ = {"apiVersion": "client.authentication.k8s.io/v1beta1", "args": args, "command": "aws", "env": env}
    return {
        "apiVersion": "v1",
        "clusters": [{"cluster": {"server": endpoint, "certificate-authority-data": ca_data}, "name": "kubernetes"}],
        "contexts": [{"context": {"cluster": "kubernetes", "user": "aws"}, "name": "aws"}],
        "current-context": "aws",
        "kind": "Config",
        "users": [{"name": "aws", "user": {"exec": exec_}}],
    }


def _eks_component_cluster(r: MockResource) -> Outputs:
    """``eks:index:Cluster``: its EKS cluster (a resource the plugin creates, so references to it resolve), the
    kubeconfig made from that cluster's endpoint and CA, and the OIDC provider when it is asked for."""
    cluster = r.child(
        "aws:eks/cluster:Cluster", f"{r.name}-eksCluster", {"name": r.get("name")} if r.get("name") else {}
    )
    state = _eks_cluster_state(cluster.autoname("name"), cluster.urn, r.config)
    cluster_urn, cluster_id, _ = synthetic(cluster, lambda c: (state["name"], state))
    kubeconfig = _eks_kubeconfig(state["name"], state["endpoint"], state["certificateAuthority"]["data"])
    issuer = state["identities"][0]["oidcs"][0]["issuer"]
    core: dict[str, Any] = {"cluster": reference(cluster_urn, cluster_id), "endpoint": state["endpoint"]}
    if r.get("createOidcProvider", False):
        oidc = r.child("aws:iam/openIdConnectProvider:OpenIdConnectProvider", f"{r.name}-oidcProvider")
        arn = _arn(r.config, "iam", f"oidc-provider/{issuer.removeprefix('https://')}")
        core["oidcProvider"] = reference(*synthetic(oidc, lambda c: (arn, {"arn": arn, "url": issuer}))[:2])
    return "", {
        "core": core,
        "eksCluster": reference(cluster_urn, cluster_id),
        "kubeconfig": kubeconfig,
        "kubeconfigJson": json.dumps(kubeconfig),
        "oidcIssuer": issuer.removeprefix("https://"),
    }


def _eks_get_kubeconfig(i: MockInvoke) -> dict[str, Any]:
    """The ``eks:index:Cluster/getKubeconfig`` method: the kubeconfig of the component's EKS cluster, as JSON."""
    component_urn = str(i.args.get("__self__", ""))
    cluster = registered(
        child_urn(component_urn, "aws:eks/cluster:Cluster", f"{component_urn.rsplit('::', 1)[-1]}-eksCluster")
    )
    if cluster is None:
        raise MissingMockError("call", f"{i.token} (cluster {component_urn!r} not registered)")
    state = cluster.state
    kubeconfig = _eks_kubeconfig(
        str(state["name"]),
        str(state["endpoint"]),
        str(state["certificateAuthority"]["data"]),
        role_arn=str(i.args.get("roleArn") or ""),
        profile=str(i.args.get("profileName") or ""),
    )
    return {"result": json.dumps(kubeconfig)}


def _get_vpc(i: MockInvoke) -> dict[str, Any]:
    """``aws.ec2.get_vpc`` (the default VPC of a new cluster): an id derived from the arguments."""
    vpc_id = str(i.args.get("id") or f"vpc-{hex_of(i.seed(), 17)}")
    return {"id": vpc_id, "arn": _arn(i.config, "ec2", f"vpc/{vpc_id}")}


def _get_subnets(i: MockInvoke) -> dict[str, Any]:
    """``aws.ec2.get_subnets`` (the default VPC's subnets): three ids derived from the filters."""
    return {"id": _region(i.config), "ids": [f"subnet-{hex_of(i.seed() + str(n), 17)}" for n in range(3)]}


def _get_region(i: MockInvoke) -> dict[str, Any]:
    """``aws.get_region``: the stack's ``aws:region`` (default :data:`DEFAULT_AWS_REGION`)."""
    region = _region(i.config)
    return {"id": region, "region": region, "name": region, "endpoint": f"ec2.{region}.amazonaws.com"}


def _get_caller_identity(i: MockInvoke) -> dict[str, Any]:
    """``aws.get_caller_identity``: :data:`AWS_ACCOUNT_ID`, as a user of it."""
    arn = f"arn:aws:iam::{AWS_ACCOUNT_ID}:user/plan"
    return {"id": AWS_ACCOUNT_ID, "accountId": AWS_ACCOUNT_ID, "arn": arn, "userId": "AIDAPLAN"}


def _get_eks_cluster(i: MockInvoke) -> dict[str, Any]:
    """``aws.eks.get_cluster`` (an existing cluster): its endpoint and CA, from its name."""
    name = str(i.args.get("name", "cluster"))
    state = _eks_cluster_state(name, f"eks-cluster/{name}", i.config)
    return {
        "id": name,
        "name": name,
        "arn": state["arn"],
        "endpoint": state["endpoint"],
        "certificateAuthorities": [state["certificateAuthority"]],
        "identities": state["identities"],
    }


MOCKS = ProviderMocks(
    resources={
        "aws:ec2/launchTemplate:LaunchTemplate": _launch_template,
        "aws:eks/nodeGroup:NodeGroup": _node_group,
        "aws:sqs/queue:Queue": _queue,
    },
    components={"eks:index:Cluster": _eks_component_cluster},
    invokes={
        "aws:ec2/getVpc:getVpc": _get_vpc,
        "aws:ec2/getSubnets:getSubnets": _get_subnets,
        "aws:eks/getCluster:getCluster": _get_eks_cluster,
        "aws:index/getCallerIdentity:getCallerIdentity": _get_caller_identity,
        "aws:index/getRegion:getRegion": _get_region,
        "eks:index:Cluster/getKubeconfig": _eks_get_kubeconfig,
    },
    fallbacks={"aws": _aws_resource},
)
"""pulumi-aws resources (every one: :func:`_aws_resource`; node groups, launch templates and SQS queues as other
resources read them), pulumi-eks's ``Cluster`` and its ``getKubeconfig`` method, and the invokes the library makes."""
