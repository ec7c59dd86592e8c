"""The plan's mocks of the AWS and EKS providers (pulumi-aws, pulumi-eks), without their SDKs: realistic,
deterministic outputs of the resources, remote components and invokes a GPU node-pool program uses on EKS.

Registered through the EKS facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`. ARNs are in :data:`AWS_ACCOUNT_ID` and the stack's ``aws:region``
(default :data:`DEFAULT_AWS_REGION`); ids follow EC2's and IAM's formats (``lt-`` and 17 hex digits, ``AROA`` and
17 characters); auto-named resources get 7 hex characters, as the provider's.

Sources for the shapes: the output properties declared by the pulumi-aws 7 and pulumi-eks 4 Python SDKs; the AWS
API references for identifier formats (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html,
https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplate.html).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpu_components.plan.mock_kit import (
    PLAN_TIMESTAMP,
    MissingMockError,
    MockInvoke,
    MockResource,
    Outputs,
    ProviderMocks,
    certificate_b64,
    child_urn,
    digits_of,
    existing_reference,
    hex_of,
    reference,
    registered,
    synthetic,
    uuid_of,
)

__all__ = [
    "AWS_ACCOUNT_ID",
    "DEFAULT_AWS_REGION",
    "DEFAULT_EKS_VERSION",
    "MOCKS",
    "launch_template_id",
]

AWS_ACCOUNT_ID = "123456789012"
"""The AWS account of every mocked ARN (the documentation account id AWS uses in its examples)."""
AWS_PARTITION = "aws"
"""The partition of every mocked ARN (AWS's commercial regions)."""
DEFAULT_AWS_REGION = "us-west-2"
"""Region used when the stack config has no `aws:region`."""
DEFAULT_EKS_VERSION = "1.31"
"""Kubernetes version an EKS cluster reports when the program sets none (EKS picks its default)."""


def _region(config: Mapping[str, str]) -> str:
    """The stack's AWS region."""
    return config.get("aws:region") or DEFAULT_AWS_REGION


def _arn(config: Mapping[str, str], service: str, resource: str, *, regional: bool = True) -> str:
    """An ARN of the mocked account, in the stack's region unless the service is global (IAM)."""
    region = _region(config) if regional else ""
    return f"arn:{AWS_PARTITION}:{service}:{region}:{AWS_ACCOUNT_ID}:{resource}"


# --------------------------------------------------------------------------------------------------
# Resources


def _aws_zone_id(region: str, index: int) -> str:
    parts = region.split("-")
    short = parts[0] + "".join(p[0] for p in parts[1:-1]) + parts[-1] if len(parts) >= 3 else region
    return f"{short}-az{index}"


def _one_or_many(values: Sequence[Any]) -> Any:
    return values[0] if len(values) == 1 else list(values)


def _tags(r: MockResource) -> dict[str, Any]:
    return {"tagsAll": dict(r.get("tags", {})), "region": r.get("region", _region(r.config))}


def _aws_eks_cluster(r: MockResource) -> Outputs:
    name = r.autoname("name")
    endpoint_id = hex_of(r.urn + "endpoint", 32).upper()
    vpc_config = dict(r.get("vpcConfig", {}))
    network = dict(r.get("kubernetesNetworkConfig", {}))
    state = {
        "name": name,
        "arn": _arn(r.config, "eks", f"cluster/{name}"),
        "clusterId": uuid_of(r.urn + "cluster-id"),
        "createdAt": PLAN_TIMESTAMP,
        "endpoint": f"https://{endpoint_id}.gr7.{_region(r.config)}.eks.amazonaws.com",
        "certificateAuthority": {"data": certificate_b64(r.urn)},
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{_region(r.config)}.amazonaws.com/id/{endpoint_id}"}]}],
        "version": r.get("version", DEFAULT_EKS_VERSION),
        "platformVersion": "eks.1",
        "status": "ACTIVE",
        "vpcConfig": {
            "endpointPrivateAccess": False,
            "endpointPublicAccess": True,
            "publicAccessCidrs": ["0.0.0.0/0"],
            **vpc_config,
            "clusterSecurityGroupId": f"sg-{hex_of(r.urn + 'cluster-sg', 17)}",
            "vpcId": f"vpc-{hex_of(json.dumps(vpc_config.get('subnetIds', [])), 17)}",
        },
        "kubernetesNetworkConfig": {"ipFamily": "ipv4", "serviceIpv4Cidr": "172.20.0.0/16", **network},
        **_tags(r),
    }
    r.mocks.remember("eks", name, state)
    return name, state


def _aws_eks_node_group(r: MockResource) -> Outputs:
    cluster = str(r.get("clusterName", "cluster"))
    name = r.autoname("nodeGroupName")
    suffix = uuid_of(r.urn)
    version = r.get("version", DEFAULT_EKS_VERSION)
    return f"{cluster}:{name}", {
        "nodeGroupName": name,
        "arn": _arn(r.config, "eks", f"nodegroup/{cluster}/{name}/{suffix}"),
        "status": "ACTIVE",
        "resources": [{"autoscalingGroups": [{"name": f"eks-{name}-{suffix}"}], "remoteAccessSecurityGroupId": ""}],
        "version": version,
        "releaseVersion": r.get("releaseVersion", f"{version}.0-20250101"),
        "capacityType": r.get("capacityType", "ON_DEMAND"),
        "amiType": r.get("amiType", "CUSTOM" if r.get("launchTemplate") else "AL2023_x86_64_STANDARD"),
        **_tags(r),
    }


def _aws_eks_addon(r: MockResource) -> Outputs:
    cluster = str(r.get("clusterName", "cluster"))
    addon = str(r.get("addonName", r.name))
    return f"{cluster}:{addon}", {
        "arn": _arn(r.config, "eks", f"addon/{cluster}/{addon}/{uuid_of(r.urn)}"),
        "addonVersion": r.get("addonVersion", "v1.0.0-eksbuild.1"),
        "createdAt": PLAN_TIMESTAMP,
        "modifiedAt": PLAN_TIMESTAMP,
        **_tags(r),
    }


def _aws_iam_role(r: MockResource) -> Outputs:
    name = r.autoname("name")
    path = r.get("path", "/")
    return name, {
        "name": name,
        "path": path,
        "arn": _arn(r.config, "iam", f"role{path}{name}", regional=False),
        "uniqueId": "AROA" + hex_of(r.urn, 17).upper(),
        "createDate": PLAN_TIMESTAMP,
        "maxSessionDuration": r.get("maxSessionDuration", 3600),
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_policy(r: MockResource) -> Outputs:
    name = r.autoname("name")
    arn = _arn(r.config, "iam", f"policy{r.get('path', '/')}{name}", regional=False)
    return arn, {
        "name": name,
        "arn": arn,
        "policyId": "ANPA" + hex_of(r.urn, 17).upper(),
        "attachmentCount": 0,
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_role_policy_attachment(r: MockResource) -> Outputs:
    return f"{r.get('role', r.name)}-{digits_of(r.urn, 26)}", {}


def _aws_iam_instance_profile(r: MockResource) -> Outputs:
    name = r.autoname("name")
    return name, {
        "name": name,
        "arn": _arn(r.config, "iam", f"instance-profile/{name}", regional=False),
        "uniqueId": "AIPA" + hex_of(r.urn, 17).upper(),
        "createDate": PLAN_TIMESTAMP,
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_oidc_provider(r: MockResource) -> Outputs:
    url = str(r.get("url", f"https://oidc.eks.{_region(r.config)}.amazonaws.com/id/{hex_of(r.urn, 32).upper()}"))
    arn = _arn(r.config, "iam", f"oidc-provider/{url.removeprefix('https://')}", regional=False)
    return arn, {"arn": arn, "url": url, "tagsAll": dict(r.get("tags", {}))}


def launch_template_id(urn: str) -> str:
    """The id the plan gives the EC2 launch template ``urn`` (``lt-`` and 17 hex digits, as EC2's own ids)."""
    return f"lt-{hex_of(urn, 17)}"


def _aws_launch_template(r: MockResource) -> Outputs:
    lt_id = launch_template_id(r.urn)
    return lt_id, {
        "name": r.autoname("name"),
        "arn": _arn(r.config, "ec2", f"launch-template/{lt_id}"),
        "latestVersion": 1,
        "defaultVersion": 1,
        **_tags(r),
    }


def _aws_vpc(r: MockResource) -> Outputs:
    vpc_id = f"vpc-{hex_of(r.urn, 17)}"
    return vpc_id, {
        "arn": _arn(r.config, "ec2", f"vpc/{vpc_id}"),
        "cidrBlock": r.get("cidrBlock", "10.0.0.0/16"),
        "defaultNetworkAclId": f"acl-{hex_of(r.urn + 'acl', 17)}",
        "defaultRouteTableId": f"rtb-{hex_of(r.urn + 'rtb', 17)}",
        "mainRouteTableId": f"rtb-{hex_of(r.urn + 'rtb', 17)}",
        "defaultSecurityGroupId": f"sg-{hex_of(r.urn + 'sg', 17)}",
        "dhcpOptionsId": f"dopt-{hex_of(r.urn + 'dopt', 17)}",
        "enableDnsSupport": r.get("enableDnsSupport", True),
        "enableDnsHostnames": r.get("enableDnsHostnames", False),
        "instanceTenancy": r.get("instanceTenancy", "default"),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_subnet(r: MockResource) -> Outputs:
    subnet_id = f"subnet-{hex_of(r.urn, 17)}"
    return subnet_id, {
        "arn": _arn(r.config, "ec2", f"subnet/{subnet_id}"),
        "availabilityZone": r.get("availabilityZone", f"{_region(r.config)}a"),
        "availabilityZoneId": r.get("availabilityZoneId", _aws_zone_id(_region(r.config), 1)),
        "mapPublicIpOnLaunch": r.get("mapPublicIpOnLaunch", False),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_security_group(r: MockResource) -> Outputs:
    sg_id = f"sg-{hex_of(r.urn, 17)}"
    return sg_id, {
        "name": r.autoname("name"),
        "arn": _arn(r.config, "ec2", f"security-group/{sg_id}"),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_generic(r: MockResource) -> Outputs:
    """Any other AWS resource: an id and an ARN in the resource's service."""
    module = r.type.split(":")[1].split("/")[0]
    resource_id = f"{r.name}-{hex_of(r.urn, 7)}"
    kind = r.type.rsplit(":", 1)[-1].lower()
    return resource_id, {"arn": _arn(r.config, module, f"{kind}/{resource_id}"), **_tags(r)}


# --------------------------------------------------------------------------------------------------
# pulumi-eks remote components


def _eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, *, role_arn: str = "", profile: str = "") -> Any:
    args = ["eks", "get-token", "--cluster-name", cluster_name, "--output", "json"]
    if role_arn:
        args += ["--role-arn", role_arn]
    env = [{"name": "KUBERNETES_EXEC_INFO", "value": '{"apiVersion": "client.authentication.k8s.io/v1beta1"}'}]
    if profile:
        env.append({"name": "AWS_PROFILE", "value": profile})
    return {
        "apiVersion": "v1",
        "clusters": [{"cluster": {"server": endpoint, "certificate-authority-data": ca_data}, "name": "kubernetes"}],
        "contexts": [{"context": {"cluster": "kubernetes", "user": "aws"}, "name": "aws"}],
        "current-context": "aws",
        "kind": "Config",
        "users": [
            {
                "name": "aws",
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "args": args,
                        "command": "aws",
                        "env": env,
                    }
                },
            }
        ],
    }


def _eks_component_cluster(r: MockResource) -> Outputs:
    """`eks:index:Cluster`: the outputs pulumi-eks returns, with its key children as references."""
    name = r.name
    tags = dict(r.get("tags", {}))
    service_role = r.get("serviceRole")
    if isinstance(service_role, str):
        role_ref = existing_reference(service_role)
    else:
        role_urn, role_id, _ = synthetic(r.child("aws:iam/role:Role", f"{name}-eksRole", {"tags": tags}), _aws_iam_role)
        role_ref = reference(role_urn, role_id)
    cluster_sg_urn, cluster_sg_id, _ = synthetic(
        r.child("aws:ec2/securityGroup:SecurityGroup", f"{name}-eksClusterSecurityGroup", {"tags": tags}),
        _aws_security_group,
    )
    node_sg_urn, node_sg_id, _ = synthetic(
        r.child("aws:ec2/securityGroup:SecurityGroup", f"{name}-nodeSecurityGroup", {"tags": tags}),
        _aws_security_group,
    )
    ingress_urn, ingress_id, _ = synthetic(
        r.child("aws:ec2/securityGroupRule:SecurityGroupRule", f"{name}-eksClusterIngressRule"),
        lambda c: (f"sgrule-{digits_of(c.urn, 10)}", {}),
    )
    subnet_ids = list(r.get("subnetIds", [])) or [
        *r.get("privateSubnetIds", []),
        *r.get("publicSubnetIds", []),
    ]
    cluster_inputs: dict[str, Any] = {
        "version": r.get("version", DEFAULT_EKS_VERSION),
        "vpcConfig": {
            "subnetIds": subnet_ids,
            "securityGroupIds": [cluster_sg_id],
            "endpointPrivateAccess": r.get("endpointPrivateAccess", False),
            "endpointPublicAccess": r.get("endpointPublicAccess", True),
        },
        "tags": {**tags, **dict(r.get("clusterTags", {}))},
    }
    if r.get("name"):
        cluster_inputs["name"] = r.get("name")
    cluster_urn, cluster_id, cluster = synthetic(
        r.child("aws:eks/cluster:Cluster", f"{name}-eksCluster", cluster_inputs), _aws_eks_cluster
    )
    endpoint = cluster["endpoint"]
    ca_data = cluster["certificateAuthority"]["data"]
    issuer = cluster["identities"][0]["oidcs"][0]["issuer"]
    kubeconfig = _eks_kubeconfig(cluster["name"], endpoint, ca_data)
    kubeconfig_json = json.dumps(kubeconfig)
    provider_urn, provider_id, _ = synthetic(
        r.child("pulumi:providers:kubernetes", f"{name}-eks-k8s", {"kubeconfig": kubeconfig_json}),
        lambda c: (uuid_of(c.urn), {}),
    )

    instance_roles: list[dict[str, Any]] = []
    given_roles = r.get("instanceRoles") or ([r.get("instanceRole")] if r.get("instanceRole") else [])
    if given_roles:
        instance_roles = [existing_reference(urn) for urn in given_roles if isinstance(urn, str)]
    elif not r.get("skipDefaultNodeGroup", False):
        urn, role_id, _ = synthetic(r.child("aws:iam/role:Role", f"{name}-instanceRole"), _aws_iam_role)
        instance_roles = [reference(urn, role_id)]

    oidc_arn = _arn(r.config, "iam", f"oidc-provider/{issuer.removeprefix('https://')}", regional=False)
    core: dict[str, Any] = {
        "cluster": reference(cluster_urn, cluster_id),
        "clusterIamRole": role_ref,
        "clusterSecurityGroup": reference(cluster_sg_urn, cluster_sg_id),
        "endpoint": endpoint,
        "instanceRoles": instance_roles,
        "kubeconfig": kubeconfig,
        "nodeGroupOptions": dict(r.get("nodeGroupOptions", {})),
        "provider": reference(provider_urn, provider_id),
        "subnetIds": subnet_ids,
        "vpcId": r.get("vpcId", f"vpc-{hex_of(r.urn + 'vpc', 17)}"),
        "privateSubnetIds": list(r.get("privateSubnetIds", [])),
        "publicSubnetIds": list(r.get("publicSubnetIds", [])),
        "tags": tags,
        "accessEntries": [],
    }
    outputs: dict[str, Any] = {
        "autoModeNodeRoleName": "",
        "clusterIngressRuleId": ingress_id,
        "clusterSecurityGroup": reference(cluster_sg_urn, cluster_sg_id),
        "clusterSecurityGroupId": cluster_sg_id,
        "core": core,
        "defaultNodeGroupAsgName": "",
        "eksCluster": reference(cluster_urn, cluster_id),
        "eksClusterIngressRule": reference(ingress_urn, ingress_id),
        "fargateProfileId": "",
        "fargateProfileStatus": "",
        "instanceRoles": instance_roles,
        "kubeconfig": kubeconfig,
        "kubeconfigJson": kubeconfig_json,
        "nodeSecurityGroup": reference(node_sg_urn, node_sg_id),
        "nodeSecurityGroupId": node_sg_id,
        "oidcIssuer": issuer.removeprefix("https://"),
        "oidcProviderArn": oidc_arn,
        "oidcProviderUrl": issuer,
    }
    if r.get("createOidcProvider", False):
        oidc_urn, oidc_id, _ = synthetic(
            r.child("aws:iam/openIdConnectProvider:OpenIdConnectProvider", f"{name}-oidcProvider", {"url": issuer}),
            _aws_iam_oidc_provider,
        )
        core["oidcProvider"] = reference(oidc_urn, oidc_id)
    if not r.get("skipDefaultNodeGroup", False):
        asg_urn, asg_id, _ = synthetic(
            r.child("aws:autoscaling/group:Group", f"{name}-nodeGroup"), lambda c: (c.autoname("name"), {})
        )
        outputs["defaultNodeGroup"] = {
            "autoScalingGroup": reference(asg_urn, asg_id),
            "extraNodeSecurityGroups": [],
            "nodeSecurityGroup": reference(node_sg_urn, node_sg_id),
        }
        outputs["defaultNodeGroupAsgName"] = asg_id
    return "", outputs


def _eks_component_managed_node_group(r: MockResource) -> Outputs:
    """`eks:index:ManagedNodeGroup`: its `nodeGroup` output as a reference to a mocked `aws.eks.NodeGroup`."""
    cluster = r.get("cluster")
    cluster_name = r.get("clusterName") or (cluster.get("name") if isinstance(cluster, Mapping) else None)
    inputs = {key: value for key, value in r.inputs.items() if key != "cluster"}
    inputs["clusterName"] = cluster_name or "cluster"
    urn, node_group_id, _ = synthetic(
        r.child("aws:eks/nodeGroup:NodeGroup", f"{r.name}-managedNodeGroup", inputs), _aws_eks_node_group
    )
    return "", {"nodeGroup": reference(urn, node_group_id), "placementGroupName": ""}


# --------------------------------------------------------------------------------------------------
# Invokes and methods


def _aws_get_region(i: MockInvoke) -> dict[str, Any]:
    region = str(i.args.get("region") or i.args.get("name") or _region(i.config))
    return {
        "name": region,
        "region": region,
        "id": region,
        "description": region,
        "endpoint": f"ec2.{region}.amazonaws.com",
    }


def _aws_get_caller_identity(i: MockInvoke) -> dict[str, Any]:
    return {
        "accountId": AWS_ACCOUNT_ID,
        "arn": f"arn:{AWS_PARTITION}:iam::{AWS_ACCOUNT_ID}:user/gpu-components-plan",
        "userId": "AIDA" + hex_of("caller", 17).upper(),
        "id": AWS_ACCOUNT_ID,
    }


def _aws_get_partition(i: MockInvoke) -> dict[str, Any]:
    return {
        "partition": AWS_PARTITION,
        "id": AWS_PARTITION,
        "dnsSuffix": "amazonaws.com",
        "reverseDnsPrefix": "com.amazonaws",
    }


def _aws_get_availability_zones(i: MockInvoke) -> dict[str, Any]:
    region = _region(i.config)
    return {
        "id": region,
        "names": [f"{region}{letter}" for letter in "abc"],
        "zoneIds": [_aws_zone_id(region, index) for index in (1, 2, 3)],
        "groupNames": [region],
        "state": "available",
    }


def _aws_get_vpc(i: MockInvoke) -> dict[str, Any]:
    vpc_id = str(i.args.get("id") or f"vpc-{hex_of(i.seed(), 17)}")
    return {
        "id": vpc_id,
        "arn": _arn(i.config, "ec2", f"vpc/{vpc_id}"),
        "cidrBlock": i.args.get("cidrBlock") or "10.0.0.0/16",
        "default": bool(i.args.get("default", False)),
        "dhcpOptionsId": f"dopt-{hex_of(vpc_id, 17)}",
        "enableDnsHostnames": True,
        "enableDnsSupport": True,
        "instanceTenancy": "default",
        "mainRouteTableId": f"rtb-{hex_of(vpc_id, 17)}",
        "ownerId": AWS_ACCOUNT_ID,
        "region": _region(i.config),
        "state": "available",
        "tags": dict(i.args.get("tags") or {}),
    }


def _aws_get_subnets(i: MockInvoke) -> dict[str, Any]:
    seed = i.seed()
    return {
        "id": _region(i.config),
        "ids": [f"subnet-{hex_of(seed + str(index), 17)}" for index in range(3)],
        "region": _region(i.config),
    }


def _aws_get_subnet(i: MockInvoke) -> dict[str, Any]:
    subnet_id = str(i.args.get("id") or f"subnet-{hex_of(i.seed(), 17)}")
    return {
        "id": subnet_id,
        "arn": _arn(i.config, "ec2", f"subnet/{subnet_id}"),
        "availabilityZone": f"{_region(i.config)}a",
        "availabilityZoneId": _aws_zone_id(_region(i.config), 1),
        "cidrBlock": "10.0.0.0/19",
        "vpcId": i.args.get("vpcId") or f"vpc-{hex_of(subnet_id, 17)}",
        "ownerId": AWS_ACCOUNT_ID,
        "state": "available",
    }


def _aws_get_eks_cluster(i: MockInvoke) -> dict[str, Any]:
    name = str(i.args.get("name", "cluster"))
    known = i.mocks.recall("eks", name)
    if known is None:
        seed = f"eks-cluster/{name}"
        endpoint_id = hex_of(seed, 32).upper()
        known = {
            "arn": _arn(i.config, "eks", f"cluster/{name}"),
            "endpoint": f"https://{endpoint_id}.gr7.{_region(i.config)}.eks.amazonaws.com",
            "certificateAuthority": {"data": certificate_b64(seed)},
            "identities": [
                {"oidcs": [{"issuer": f"https://oidc.eks.{_region(i.config)}.amazonaws.com/id/{endpoint_id}"}]}
            ],
            "version": DEFAULT_EKS_VERSION,
            "platformVersion": "eks.1",
            "vpcConfig": {
                "clusterSecurityGroupId": f"sg-{hex_of(seed, 17)}",
                "subnetIds": [f"subnet-{hex_of(seed + str(index), 17)}" for index in range(3)],
                "securityGroupIds": [],
                "vpcId": f"vpc-{hex_of(seed, 17)}",
                "endpointPrivateAccess": False,
                "endpointPublicAccess": True,
                "publicAccessCidrs": ["0.0.0.0/0"],
            },
            "kubernetesNetworkConfig": {"ipFamily": "ipv4", "serviceIpv4Cidr": "172.20.0.0/16"},
            "roleArn": _arn(i.config, "iam", f"role/{name}-eksRole", regional=False),
            "tags": {},
        }
    network = dict(known.get("kubernetesNetworkConfig") or {})
    return {
        "id": name,
        "name": name,
        "arn": known["arn"],
        "clusterId": uuid_of(known["arn"]),
        "createdAt": PLAN_TIMESTAMP,
        "endpoint": known["endpoint"],
        "certificateAuthorities": [known["certificateAuthority"]],
        "identities": known["identities"],
        "version": known.get("version", DEFAULT_EKS_VERSION),
        "platformVersion": known.get("platformVersion", "eks.1"),
        "status": "ACTIVE",
        "roleArn": known.get("roleArn", ""),
        "vpcConfig": known.get("vpcConfig") or {},
        "kubernetesNetworkConfigs": [network],
        "accessConfigs": [
            {"authenticationMode": "API_AND_CONFIG_MAP", "bootstrapClusterCreatorAdminPermissions": True}
        ],
        "enabledClusterLogTypes": [],
        "tags": dict(known.get("tags") or {}),
        "region": _region(i.config),
    }


def _aws_get_policy_document(i: MockInvoke) -> dict[str, Any]:
    """Build the JSON policy document the way the AWS provider does from `statements`.

    Single-element action/resource/principal lists become strings, as in the provider's output.
    `sourcePolicyDocuments` are prepended; `overridePolicyDocuments` replace statements by `Sid`.
    """
    statements: list[dict[str, Any]] = []
    for source in i.args.get("sourcePolicyDocuments") or []:
        statements.extend(_document_statements(source))
    for raw in i.args.get("statements") or []:
        statements.append(_policy_statement(raw))
    for override in i.args.get("overridePolicyDocuments") or []:
        for statement in _document_statements(override):
            sid = statement.get("Sid")
            positions = [n for n, s in enumerate(statements) if sid and s.get("Sid") == sid]
            if positions:
                statements[positions[0]] = statement
            else:
                statements.append(statement)
    document: dict[str, Any] = {"Version": i.args.get("version") or "2012-10-17"}
    if i.args.get("policyId"):
        document["Id"] = i.args["policyId"]
    document["Statement"] = statements
    text = json.dumps(document, indent=2)
    return {
        "id": digits_of(text, 10),
        "json": text,
        "minifiedJson": json.dumps(document, separators=(",", ":")),
        "statements": list(i.args.get("statements") or []),
        "version": document["Version"],
    }


def _document_statements(text: Any) -> list[dict[str, Any]]:
    document = json.loads(text) if isinstance(text, str) else {}
    found = document.get("Statement", []) if isinstance(document, dict) else []
    return [found] if isinstance(found, dict) else [s for s in found if isinstance(s, dict)]


def _policy_statement(raw: Mapping[str, Any]) -> dict[str, Any]:
    statement: dict[str, Any] = {}
    if raw.get("sid"):
        statement["Sid"] = raw["sid"]
    statement["Effect"] = raw.get("effect") or "Allow"
    for key, aws_key in (
        ("actions", "Action"),
        ("notActions", "NotAction"),
        ("resources", "Resource"),
        ("notResources", "NotResource"),
    ):
        if raw.get(key):
            statement[aws_key] = _one_or_many(list(raw[key]))
    for key, aws_key in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
        blocks = [b for b in raw.get(key) or [] if isinstance(b, Mapping)]
        if not blocks:
            continue
        if all(b.get("type") == "*" for b in blocks):
            statement[aws_key] = "*"
            continue
        principals: dict[str, list[Any]] = {}
        for block in blocks:
            principals.setdefault(str(block.get("type")), []).extend(block.get("identifiers") or [])
        statement[aws_key] = {kind: _one_or_many(ids) for kind, ids in principals.items()}
    conditions: dict[str, dict[str, Any]] = {}
    for condition in raw.get("conditions") or []:
        test = conditions.setdefault(str(condition.get("test")), {})
        test[str(condition.get("variable"))] = _one_or_many(list(condition.get("values") or []))
    if conditions:
        statement["Condition"] = conditions
    return statement


_K8S_VERSION = re.compile(r"(\d+\.\d+)")


def _aws_get_parameter(i: MockInvoke) -> dict[str, Any]:
    """SSM parameters; the public EKS/Bottlerocket AMI parameters answer with AMI ids / release versions."""
    name = str(i.args.get("name", ""))
    if name.endswith("image_id") or name.endswith("/ami_id"):
        value = f"ami-{hex_of(name, 17)}"
    elif name.endswith("release_version"):
        match = _K8S_VERSION.search(name)
        value = f"{match.group(1) if match else DEFAULT_EKS_VERSION}.0-20250101"
    else:
        value = f"plan-value-{hex_of(name, 8)}"
    arn_name = name if name.startswith("/") else f"/{name}"
    return {
        "id": name,
        "name": name,
        "arn": _arn(i.config, "ssm", f"parameter{arn_name}"),
        "type": "String",
        "value": value,
        "insecureValue": value,
        "version": 1,
        "withDecryption": bool(i.args.get("withDecryption", True)),
        "region": _region(i.config),
    }


def _aws_get_ami(i: MockInvoke) -> dict[str, Any]:
    image_id = f"ami-{hex_of(i.seed(), 17)}"
    return {
        "id": image_id,
        "imageId": image_id,
        "arn": f"arn:{AWS_PARTITION}:ec2:{_region(i.config)}::image/{image_id}",
        "architecture": "x86_64",
        "name": str(i.args.get("nameRegex") or "plan-ami"),
        "ownerId": AWS_ACCOUNT_ID,
        "state": "available",
    }


def _eks_get_kubeconfig(i: MockInvoke) -> dict[str, Any]:
    """The `eks:index:Cluster/getKubeconfig` method: the cluster's kubeconfig, as a JSON string."""
    component_urn = str(i.args.get("__self__", ""))
    cluster_urn = child_urn(component_urn, "aws:eks/cluster:Cluster", f"{component_urn.rsplit('::', 1)[-1]}-eksCluster")
    cluster = registered(cluster_urn)
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


# --------------------------------------------------------------------------------------------------
# The table


MOCKS = ProviderMocks(
    resources={
        "aws:eks/cluster:Cluster": _aws_eks_cluster,
        "aws:eks/nodeGroup:NodeGroup": _aws_eks_node_group,
        "aws:eks/addon:Addon": _aws_eks_addon,
        "aws:iam/role:Role": _aws_iam_role,
        "aws:iam/policy:Policy": _aws_iam_policy,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": _aws_iam_role_policy_attachment,
        "aws:iam/instanceProfile:InstanceProfile": _aws_iam_instance_profile,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": _aws_iam_oidc_provider,
        "aws:ec2/launchTemplate:LaunchTemplate": _aws_launch_template,
        "aws:ec2/vpc:Vpc": _aws_vpc,
        "aws:ec2/subnet:Subnet": _aws_subnet,
        "aws:ec2/securityGroup:SecurityGroup": _aws_security_group,
    },
    components={
        "eks:index:Cluster": _eks_component_cluster,
        "eks:index:ManagedNodeGroup": _eks_component_managed_node_group,
    },
    invokes={
        "aws:index/getRegion:getRegion": _aws_get_region,
        "aws:index/getCallerIdentity:getCallerIdentity": _aws_get_caller_identity,
        "aws:index/getPartition:getPartition": _aws_get_partition,
        "aws:index/getAvailabilityZones:getAvailabilityZones": _aws_get_availability_zones,
        "aws:ec2/getVpc:getVpc": _aws_get_vpc,
        "aws:ec2/getSubnets:getSubnets": _aws_get_subnets,
        "aws:ec2/getSubnet:getSubnet": _aws_get_subnet,
        "aws:ec2/getAmi:getAmi": _aws_get_ami,
        "aws:eks/getCluster:getCluster": _aws_get_eks_cluster,
        "aws:iam/getPolicyDocument:getPolicyDocument": _aws_get_policy_document,
        "aws:ssm/getParameter:getParameter": _aws_get_parameter,
        "eks:index:Cluster/getKubeconfig": _eks_get_kubeconfig,
    },
    fallbacks={"aws": _aws_generic},
)
"""pulumi-aws resources and invokes and pulumi-eks components and methods, as the plan mocks them; any other
pulumi-aws resource gets an id and an ARN in its service."""
