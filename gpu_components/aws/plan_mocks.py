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

import functools
import json
import re
import zlib
from collections.abc import Mapping
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


def _fixed(outputs: Outputs, _: MockResource) -> Outputs:
    """A mock that gives every resource ``outputs``."""
    return outputs


def _eks_network(r: MockResource) -> dict[str, Any]:
    """The network of a pulumi-eks ``Cluster``: the VPC and subnets it names, else (as pulumi-eks does without
    ``vpcId``) the default VPC and its subnets, ids derived from the component's URN."""
    private, public = list(r.get("privateSubnetIds", [])), list(r.get("publicSubnetIds", []))
    subnets = list(r.get("subnetIds", [])) or private + public
    if not subnets:
        subnets = [f"subnet-{hex_of(r.urn + 'subnet' + str(n), 17)}" for n in range(3)]
    network: dict[str, Any] = {"vpcId": str(r.get("vpcId", f"vpc-{hex_of(r.urn + 'vpc', 17)}")), "subnetIds": subnets}
    if private:
        network["privateSubnetIds"] = private
    if public:
        network["publicSubnetIds"] = public
    return network


def _eks_component_cluster(r: MockResource) -> Outputs:
    """``eks:index:Cluster``: the outputs pulumi-eks 4's ``Cluster`` and ``CoreData`` declare that programs read.

    Its EKS cluster (a resource the plugin creates, put in the monitor so references resolve) with its ``vpcConfig``
    (the VPC and subnets, :func:`_eks_network`; ``clusterSecurityGroupId`` the group EKS itself creates) and service
    role; the security groups pulumi-eks creates for the control plane and the nodes, whose ids are
    ``clusterSecurityGroupId`` and ``nodeSecurityGroupId`` (with ``skipDefaultSecurityGroups``: none, and both ids
    are EKS's group, as pulumi-eks documents); the kubeconfig made from the cluster's endpoint and CA; ``core`` (VPC,
    subnets, endpoint, cluster role, kubeconfig, the cluster security group, tags); the OIDC provider when it is asked
    for (https://www.pulumi.com/registry/packages/eks/api-docs/cluster/#outputs)."""
    network = _eks_network(r)
    role = r.child("aws:iam/role:Role", f"{r.name}-eksRole")
    role_name = role.autoname("name")
    role_arn = _arn(r.config, "iam", f"role/{role_name}")
    role_ref = reference(*synthetic(role, lambda c: (role_name, {"name": role_name, "arn": role_arn}))[:2])
    security_groups: dict[str, tuple[dict[str, Any], str]] = {}
    if not r.get("skipDefaultSecurityGroups", False):
        for key, suffix in (
            ("clusterSecurityGroup", "eksClusterSecurityGroup"),
            ("nodeSecurityGroup", "nodeSecurityGroup"),
        ):
            group = r.child("aws:ec2/securityGroup:SecurityGroup", f"{r.name}-{suffix}", {"vpcId": network["vpcId"]})
            group_id = f"sg-{hex_of(group.urn, 17)}"
            group_state = {"vpcId": network["vpcId"], "arn": _arn(r.config, "ec2", f"security-group/{group_id}")}
            urn, _, _ = synthetic(group, functools.partial(_fixed, (group_id, group_state)))
            security_groups[key] = (reference(urn, group_id), group_id)
    cluster = r.child(
        "aws:eks/cluster:Cluster", f"{r.name}-eksCluster", {"name": r.get("name")} if r.get("name") else {}
    )
    state = _eks_cluster_state(cluster.autoname("name"), cluster.urn, r.config)
    eks_security_group = f"sg-{hex_of(cluster.urn + 'cluster-security-group', 17)}"  # the one EKS itself creates
    state.update(
        roleArn=role_arn,
        version=str(r.get("version", "")),
        status="ACTIVE",
        tags=dict(r.get("clusterTags", {})),
        vpcConfig={
            "clusterSecurityGroupId": eks_security_group,
            "endpointPrivateAccess": bool(r.get("endpointPrivateAccess", False)),
            "endpointPublicAccess": bool(r.get("endpointPublicAccess", True)),
            "publicAccessCidrs": list(r.get("publicAccessCidrs", ["0.0.0.0/0"])),
            "securityGroupIds": [group_id for _, group_id in security_groups.values()][:1],
            "subnetIds": network["subnetIds"],
            "vpcId": network["vpcId"],
        },
    )
    cluster_urn, cluster_id, _ = synthetic(cluster, lambda c: (state["name"], state))
    kubeconfig = _eks_kubeconfig(state["name"], state["endpoint"], state["certificateAuthority"]["data"])
    issuer = state["identities"][0]["oidcs"][0]["issuer"]
    core: dict[str, Any] = {
        **network,
        "cluster": reference(cluster_urn, cluster_id),
        "clusterIamRole": role_ref,
        "endpoint": state["endpoint"],
        "instanceRoles": [],
        "kubeconfig": kubeconfig,
        "nodeGroupOptions": {},
        "tags": dict(r.get("tags", {})),
    }
    outputs: dict[str, Any] = {
        "clusterSecurityGroupId": eks_security_group,
        "core": core,
        "eksCluster": reference(cluster_urn, cluster_id),
        "instanceRoles": [],
        "kubeconfig": kubeconfig,
        "kubeconfigJson": json.dumps(kubeconfig),
        "oidcIssuer": issuer.removeprefix("https://"),
    }
    for key, (ref, group_id) in security_groups.items():
        outputs[key], outputs[f"{key}Id"] = ref, group_id
    if "clusterSecurityGroup" in security_groups:
        core["clusterSecurityGroup"] = outputs["clusterSecurityGroup"]
    if "nodeSecurityGroup" not in security_groups:
        outputs["nodeSecurityGroupId"] = eks_security_group  # pulumi-eks: without its own, the nodes use EKS's
    if r.get("createOidcProvider", False):
        oidc = r.child("aws:iam/openIdConnectProvider:OpenIdConnectProvider", f"{r.name}-oidcProvider")
        arn = _arn(r.config, "iam", f"oidc-provider/{issuer.removeprefix('https://')}")
        core["oidcProvider"] = reference(*synthetic(oidc, lambda c: (arn, {"arn": arn, "url": issuer}))[:2])
        outputs.update(oidcProviderArn=arn, oidcProviderUrl=issuer)
    return "", outputs


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


_DIRECTIONS = {"gov": "g", "north": "n", "south": "s", "east": "e", "west": "w", "central": "c"}


def _zone_id_prefix(region: str) -> str:
    """The prefix of a region's Availability Zone ids, ``use1`` for ``us-east-1``, ``apse2`` for ``ap-southeast-2``,
    ``usgw1`` for ``us-gov-west-1``
    (https://docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html)."""
    area, *middle, number = region.split("-")
    directions = "".join("".join(short for word, short in _DIRECTIONS.items() if word in part)[:2] for part in middle)
    return f"{area}{directions}{number}"


def _get_availability_zones(i: MockInvoke) -> dict[str, Any]:
    """``aws.get_availability_zones``: zones ``a``, ``b`` and ``c`` of the stack's region (or the ``region``
    argument), ids ``<prefix>-az1`` to ``-az3``, less those ``excludeNames``/``excludeZoneIds`` name."""
    region = str(i.args.get("region") or _region(i.config))
    zones = [(f"{region}{letter}", f"{_zone_id_prefix(region)}-az{n}") for n, letter in enumerate("abc", 1)]
    excluded = {*i.args.get("excludeNames", []), *i.args.get("excludeZoneIds", [])}
    zones = [(name, zone_id) for name, zone_id in zones if name not in excluded and zone_id not in excluded]
    return {
        "id": region,
        "region": region,
        "names": [name for name, _ in zones],
        "zoneIds": [zone_id for _, zone_id in zones],
        "groupNames": [region] * len(zones),
        "state": str(i.args.get("state", "")),
    }


def _partition(region: str) -> tuple[str, str]:
    """(partition, DNS suffix) of a region (https://docs.aws.amazon.com/whitepapers/latest/aws-fault-isolation-
    boundaries/partitions.html)."""
    if region.startswith("cn-"):
        return "aws-cn", "amazonaws.com.cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov", "amazonaws.com"
    return "aws", "amazonaws.com"


def _get_partition(i: MockInvoke) -> dict[str, Any]:
    """``aws.get_partition``: the partition of the stack's region."""
    partition, suffix = _partition(_region(i.config))
    return {
        "id": partition,
        "partition": partition,
        "dnsSuffix": suffix,
        "reverseDnsPrefix": ".".join(reversed(suffix.split("."))),
    }


def _policy_strings(values: Any) -> Any:
    """A list of strings as the provider writes it in a policy: one value alone, else sorted in reverse
    (``policyDecodeConfigStrings`` in terraform-provider-aws ``internal/service/iam/policy_model.go``)."""
    items = [str(v) for v in values]
    return items[0] if len(items) == 1 else sorted(items, reverse=True)


def _policy_principals(principals: list[Mapping[str, Any]]) -> Any:
    """``principals``/``notPrincipals`` as the provider writes them: ``"*"`` for one ``*`` of type ``*``, else type ->
    identifiers (map keys sorted, as Go writes a map)."""
    if (
        len(principals) == 1
        and principals[0].get("type") == "*"
        and list(principals[0].get("identifiers", [])) == ["*"]
    ):
        return "*"
    written: dict[str, Any] = {}
    for principal in principals:
        kind, identifiers = str(principal.get("type", "")), _policy_strings(principal.get("identifiers", []))
        if kind in written:
            before = written[kind] if isinstance(written[kind], list) else [written[kind]]
            identifiers = before + (identifiers if isinstance(identifiers, list) else [identifiers])
        written[kind] = identifiers
    return dict(sorted(written.items()))


def _policy_conditions(conditions: list[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``conditions`` as the provider writes them: test -> variable -> values (in order; one value alone)."""
    written: dict[str, dict[str, list[str]]] = {}
    for condition in conditions:
        values = written.setdefault(str(condition.get("test", "")), {}).setdefault(
            str(condition.get("variable", "")), []
        )
        values.extend(str(v) for v in condition.get("values", []))
    return {
        test: {variable: values[0] if len(values) == 1 else values for variable, values in sorted(variables.items())}
        for test, variables in sorted(written.items())
    }


def _policy_statement(statement: Mapping[str, Any]) -> dict[str, Any]:
    """One statement of ``aws.iam.get_policy_document`` as the provider renders it: ``Sid``, ``Effect`` (default
    ``Allow``), ``Action``, ``NotAction``, ``Resource``, ``NotResource``, ``Principal``, ``NotPrincipal``,
    ``Condition``, each left out when empty."""
    rendered: dict[str, Any] = {"Sid": statement.get("sid"), "Effect": statement.get("effect") or "Allow"}
    for key, name in (
        ("actions", "Action"),
        ("notActions", "NotAction"),
        ("resources", "Resource"),
        ("notResources", "NotResource"),
    ):
        if statement.get(key):
            rendered[name] = _policy_strings(statement[key])
    for key, name in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
        if statement.get(key):
            rendered[name] = _policy_principals(statement[key])
    if statement.get("conditions"):
        rendered["Condition"] = _policy_conditions(statement["conditions"])
    return {key: value for key, value in rendered.items() if value}


def _merge_statements(statements: list[dict[str, Any]], more: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``more`` merged into ``statements`` as the provider merges documents: a statement replaces the one of its
    ``Sid``, one without a ``Sid`` (or with a new one) is appended."""
    merged = list(statements)
    for statement in more:
        sid = statement.get("Sid")
        at = next((n for n, old in enumerate(merged) if sid and old.get("Sid") == sid), None)
        if at is None:
            merged.append(statement)
        else:
            merged[at] = statement
    return merged


def _go_json(document: Any, *, indent: int | None) -> str:
    """JSON as Go's ``encoding/json`` writes it (``MarshalIndent`` with two spaces, or ``Marshal``): ``<``, ``>`` and
    ``&`` escaped."""
    separators = (",", ": ") if indent else (",", ":")
    text = json.dumps(document, indent=indent, separators=separators, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _get_policy_document(i: MockInvoke) -> dict[str, Any]:
    """``aws.iam.get_policy_document``: the JSON policy document rendered from its statements as the provider
    renders it (terraform-provider-aws ``iam/policy_document_data_source.go`` and ``policy_model.go``): ``Version``
    (default ``2012-10-17``), ``Id`` (``policyId``), ``Statement``: the ``sourcePolicyDocuments``' statements, then
    the given ones, then the ``overridePolicyDocuments``', each replacing the statement of its ``Sid``; ``json``
    indented by two spaces, ``minifiedJson`` compact, ``id`` the CRC-32 of ``json`` (the provider's
    ``create.StringHashcode``)."""
    statements: list[dict[str, Any]] = []
    for source in i.args.get("sourcePolicyDocuments", []):
        statements = _merge_statements(statements, list(json.loads(source).get("Statement", [])))
    statements = _merge_statements(statements, [_policy_statement(s) for s in i.args.get("statements", [])])
    for override in i.args.get("overridePolicyDocuments", []):
        statements = _merge_statements(statements, list(json.loads(override).get("Statement", [])))
    document: dict[str, Any] = {"Version": str(i.args.get("version") or "2012-10-17")}
    if i.args.get("policyId"):
        document["Id"] = str(i.args["policyId"])
    if statements:
        document["Statement"] = statements
    text = _go_json(document, indent=2)
    return {
        **i.args,
        "id": str(zlib.crc32(text.encode())),
        "json": text,
        "minifiedJson": _go_json(document, indent=None),
    }


def _ami_id(seed: str) -> str:
    return f"ami-{hex_of(seed, 17)}"


def _filter_value(args: Mapping[str, Any], name: str) -> str | None:
    """The first value of the invoke's filter ``name``, if it has one."""
    for given in args.get("filters", []):
        if given.get("name") == name and given.get("values"):
            return str(given["values"][0])
    return None


def _get_ami(i: MockInvoke) -> dict[str, Any]:
    """``aws.ec2.get_ami``: an AMI id derived from the arguments (``ami-`` and 17 hex digits), in the stack's region,
    named by the ``name`` filter (its ``*`` as a date), of the ``architecture`` filter's architecture (default
    ``x86_64``), owned by the first numeric ``owners`` entry (else the mocked account), owner alias ``amazon`` when
    ``owners`` names it (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_Image.html)."""
    image_id = _ami_id(i.seed())
    name = (_filter_value(i.args, "name") or f"image-{hex_of(i.seed(), 7)}").replace("*", "20250101")
    owner = next((str(o) for o in i.args.get("owners", []) if str(o).isdigit()), AWS_ACCOUNT_ID)
    return {
        **i.args,
        "id": image_id,
        "imageId": image_id,
        "arn": f"arn:aws:ec2:{_region(i.config)}::image/{image_id}",
        "name": name,
        "architecture": _filter_value(i.args, "architecture") or "x86_64",
        "creationDate": PLAN_TIMESTAMP,
        "ownerId": owner,
        "imageOwnerAlias": "amazon" if "amazon" in i.args.get("owners", []) else "",
        "rootDeviceName": "/dev/xvda",
        "rootDeviceType": "ebs",
        "virtualizationType": "hvm",
        "state": "available",
        "public": True,
        "enaSupport": True,
    }


_PUBLIC_PARAMETER = re.compile(r"^/aws/service/.*/image_id$")
"""AWS's public SSM parameters that hold an AMI id: the EKS-optimized, Bottlerocket and Amazon Linux AMIs
(https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html)."""


def _get_parameter(i: MockInvoke) -> dict[str, Any]:
    """``aws.ssm.get_parameter`` of an AMI's public parameter (``/aws/service/.../image_id``, e.g. the EKS-optimized
    AMIs'): an AMI id derived from the parameter's name. Any other parameter's value cannot be guessed:
    `MissingMockError` (the program's own mocks file gives it)."""
    name = str(i.args.get("name", ""))
    if not _PUBLIC_PARAMETER.match(name):
        raise MissingMockError("invoke", i.token, f"(parameter {name!r}, whose value only your account knows)")
    value = _ami_id(name)
    return {
        "id": name,
        "name": name,
        "arn": f"arn:aws:ssm:{_region(i.config)}::parameter{name}",
        "type": "String",
        "value": value,
        "insecureValue": value,
        "version": 1,
        "withDecryption": bool(i.args.get("withDecryption", True)),
    }


MOCKS = ProviderMocks(
    resources={
        "aws:ec2/launchTemplate:LaunchTemplate": _launch_template,
        "aws:eks/nodeGroup:NodeGroup": _node_group,
        "aws:sqs/queue:Queue": _queue,
    },
    components={"eks:index:Cluster": _eks_component_cluster},
    invokes={
        "aws:ec2/getAmi:getAmi": _get_ami,
        "aws:ec2/getVpc:getVpc": _get_vpc,
        "aws:ec2/getSubnets:getSubnets": _get_subnets,
        "aws:eks/getCluster:getCluster": _get_eks_cluster,
        "aws:iam/getPolicyDocument:getPolicyDocument": _get_policy_document,
        "aws:index/getAvailabilityZones:getAvailabilityZones": _get_availability_zones,
        "aws:index/getCallerIdentity:getCallerIdentity": _get_caller_identity,
        "aws:index/getPartition:getPartition": _get_partition,
        "aws:index/getRegion:getRegion": _get_region,
        "aws:ssm/getParameter:getParameter": _get_parameter,
        "eks:index:Cluster/getKubeconfig": _eks_get_kubeconfig,
    },
    fallbacks={"aws": _aws_resource},
)
"""pulumi-aws resources (every one: :func:`_aws_resource`; node groups, launch templates and SQS queues as other
resources read them), pulumi-eks's ``Cluster`` and its ``getKubeconfig`` method, and the invokes the library makes."""
