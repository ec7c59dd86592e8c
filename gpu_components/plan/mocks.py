"""Pulumi mocks with realistic, deterministic outputs, used to plan a program offline.

`PlanMocks` answers resource registrations and invokes the way the cloud providers would, closely
enough that programs which read outputs (ARNs, endpoints, kubeconfigs, emails) keep going, including
into `apply` callbacks that create more resources. `PlanMonitor` is the mock resource monitor that
records every registration (custom resources, component resources and remote components) with its
parent and its inputs as the engine sees them, and gives resources engine-style URNs.

Every value is a function of the resource's URN, its inputs or the invoke's arguments: no randomness,
no clock. Physical names that the providers would auto-generate are `<logical name>-<hex>` with the hex
taken from a SHA-256 of the URN (7 characters for cloud resources, 8 for Kubernetes objects, matching
the lengths the providers use).

Invokes without a mock raise `MissingMockError` naming the token, so a missing mock is found rather
than silently returning an empty result. Resource types without a specific mock get generic outputs
(an id and, per cloud, an ARN / ARM id / self link); remote components without a mock raise, because
their outputs cannot be guessed.

Sources for the shapes: the output properties declared by pulumi-aws 7, pulumi-eks 4,
pulumi-azure-native 3, pulumi-gcp 10 and pulumi-kubernetes 4 Python SDKs; the AWS, Azure and Google
Cloud API references for identifier formats.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import pulumi
import yaml
from google.protobuf import struct_pb2  # type: ignore[import-untyped]
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs, Mocks

from gpu_components import _yaml
from gpu_components.plan._pulumi_internals import (
    ARCHIVE_SIG,
    ASSET_SIG,
    OUTPUT_VALUE_SIG,
    RESOURCE_SIG,
    SECRET_SIG,
    SIG_KEY,
    WIRE_UNKNOWN,
    MockMonitor,
    provider_pb2,
    resource_pb2,
    settings,
)

__all__ = [
    "AWS_ACCOUNT_ID",
    "AZURE_SUBSCRIPTION_ID",
    "AZURE_TENANT_ID",
    "DEFAULT_AWS_REGION",
    "DEFAULT_AZURE_LOCATION",
    "DEFAULT_GCP_PROJECT",
    "DEFAULT_GCP_REGION",
    "PLAN_TIMESTAMP",
    "SECRET",
    "UNKNOWN",
    "MissingMockError",
    "PlanMocks",
    "PlanMonitor",
    "Registration",
    "launch_template_id",
    "planned_id",
    "to_plain",
]

SECRET = "[secret]"
"""What a secret value becomes in a recorded plan."""
UNKNOWN = "[unknown]"
"""What a value unknown at preview time becomes in a recorded plan."""

AWS_ACCOUNT_ID = "123456789012"
"""The AWS account of every mocked ARN (the documentation account id AWS uses in its examples)."""
AWS_PARTITION = "aws"
DEFAULT_AWS_REGION = "us-west-2"
"""Region used when the stack config has no `aws:region`."""
AZURE_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000"
AZURE_TENANT_ID = "11111111-1111-1111-1111-111111111111"
DEFAULT_AZURE_LOCATION = "eastus"
"""Location used when neither the resource nor `azure-native:location` gives one."""
DEFAULT_GCP_PROJECT = "gpu-components-plan"
"""Project used when neither the resource nor `gcp:project` gives one."""
DEFAULT_GCP_REGION = "us-central1"
"""Region used when neither the resource nor `gcp:region` gives one."""
DEFAULT_EKS_VERSION = "1.31"
"""Kubernetes version an EKS cluster reports when the program sets none (EKS picks its default)."""
DEFAULT_AKS_VERSION = "1.31.5"
DEFAULT_GKE_VERSION = "1.31.6-gke.1020000"
PLAN_TIMESTAMP = "2025-01-01T00:00:00Z"
"""The fixed creation time of every mocked resource (outputs must not depend on the clock)."""

_STACK_TYPE = "pulumi:pulumi:Stack"


class DuplicateResourceError(ValueError):
    """Two resources with one URN (same type, name and parent): the Pulumi engine refuses such a program."""

    def __init__(self, urn: str) -> None:
        super().__init__(f"duplicate resource URN {urn}: give each resource a unique name")
        self.urn = urn


class MissingMockError(LookupError):
    """An invoke, call or remote component that `PlanMocks` has no mock for.

    The message names the token, so the fix (add a function to the token map in
    `gpu_components/plan/mocks.py`) is obvious.
    """

    def __init__(self, kind: str, token: str) -> None:
        self.kind = kind
        self.token = token
        super().__init__(
            f"no plan mock for {kind} {token!r}: add one to gpu_components/plan/mocks.py "
            f"so the offline plan knows what it returns"
        )


# --------------------------------------------------------------------------------------------------
# Plain values from the wire format


def to_plain(value: Any, *, mask_secrets: bool = True) -> Any:
    """Convert a protobuf property value (as the engine receives it) to plain JSON-able Python.

    Args:
        value: a `struct_pb2.Struct`, `struct_pb2.Value`, `struct_pb2.ListValue` or an already plain value.
        mask_secrets: replace every secret with `SECRET` (default); when false, unwrap it.

    Returns plain dicts/lists/str/int/float/bool/None where: unknowns (preview) become `UNKNOWN`;
    resource references become the referenced URN; assets and archives become
    `{"asset": <path|text|uri>}` / `{"archive": <path|uri|{name: ...}>}`; numbers with an integral value
    become `int` (the wire format only has doubles); `None` entries of maps are dropped.
    """
    if isinstance(value, struct_pb2.Value):
        kind = value.WhichOneof("kind")
        if kind == "struct_value":
            return to_plain(value.struct_value, mask_secrets=mask_secrets)
        if kind == "list_value":
            return to_plain(value.list_value, mask_secrets=mask_secrets)
        if kind == "string_value":
            return to_plain(value.string_value, mask_secrets=mask_secrets)
        if kind == "number_value":
            return to_plain(value.number_value, mask_secrets=mask_secrets)
        if kind == "bool_value":
            return value.bool_value
        return None
    if isinstance(value, struct_pb2.ListValue):
        return [to_plain(item, mask_secrets=mask_secrets) for item in value.values]
    if isinstance(value, struct_pb2.Struct):
        return _plain_map({key: value.fields[key] for key in value.fields}, mask_secrets)
    if isinstance(value, Mapping):
        return _plain_map(value, mask_secrets)
    if isinstance(value, (list, tuple)):
        return [to_plain(item, mask_secrets=mask_secrets) for item in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, str) and value == WIRE_UNKNOWN:
        return UNKNOWN
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    # Python objects the SDK deserialized (resources, unknowns, assets) when called with SDK values.
    return _plain_object(value)


def _plain_map(fields: Mapping[str, Any], mask_secrets: bool) -> Any:
    signature = _string_field(fields, SIG_KEY)
    if signature == SECRET_SIG:
        return SECRET if mask_secrets else to_plain(fields.get("value"), mask_secrets=False)
    if signature == RESOURCE_SIG:
        return _string_field(fields, "urn")
    if signature == OUTPUT_VALUE_SIG:
        if mask_secrets and to_plain(fields.get("secret")) is True:
            return SECRET
        if "value" not in fields:
            return UNKNOWN
        return to_plain(fields["value"], mask_secrets=mask_secrets)
    if signature == ASSET_SIG:
        for key in ("path", "text", "uri"):
            if key in fields:
                return {"asset": _string_field(fields, key)}
    if signature == ARCHIVE_SIG:
        for key in ("assets", "path", "uri"):
            if key in fields:
                return {"archive": to_plain(fields[key], mask_secrets=mask_secrets)}
    plain: dict[str, Any] = {}
    for key in sorted(fields):
        item = to_plain(fields[key], mask_secrets=mask_secrets)
        if item is not None:
            plain[key] = item
    return plain


def _string_field(fields: Mapping[str, Any], key: str) -> str | None:
    raw = fields.get(key)
    if isinstance(raw, struct_pb2.Value):
        return raw.string_value if raw.WhichOneof("kind") == "string_value" else None
    return raw if isinstance(raw, str) else None


def _plain_object(value: Any) -> Any:
    from pulumi import Resource  # local: keeps this module import-light for the type checker
    from pulumi.output import Unknown

    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, Resource):
        return f"[resource {type(value).__name__}]"
    return str(value)


# --------------------------------------------------------------------------------------------------
# Deterministic values


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def _hex(seed: str, length: int) -> str:
    return _digest(seed)[:length]


def _digits(seed: str, length: int) -> str:
    return str(int(_digest(seed), 16))[:length]


def _uuid(seed: str) -> str:
    d = _digest(seed)
    return f"{d[:8]}-{d[8:12]}-4{d[13:16]}-a{d[17:20]}-{d[20:32]}"


def _ipv4(seed: str) -> str:
    octets = bytes.fromhex(_hex(seed, 6))
    return f"34.{octets[0]}.{octets[1]}.{max(octets[2], 1)}"


def _certificate_b64(seed: str) -> str:
    """A base64 PEM block that looks like a cluster CA certificate (not a valid certificate)."""
    body = base64.b64encode(bytes.fromhex(_digest(seed) * 6)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"
    return base64.b64encode(pem.encode()).decode()


def _secret(value: Any) -> dict[str, Any]:
    """Wrap a value so the SDK sees it as a secret output."""
    return {SIG_KEY: SECRET_SIG, "value": value}


def _ref(urn: str, resource_id: str | None) -> dict[str, Any]:
    """A resource reference, which the SDK turns back into a resource object (via getResource)."""
    ref: dict[str, Any] = {SIG_KEY: RESOURCE_SIG, "urn": urn, "packageVersion": ""}
    if resource_id is not None:
        ref["id"] = resource_id
    return ref


def _child_urn(parent_urn: str, type_: str, name: str) -> str:
    """The URN the engine gives a child: the parent's type chain (without the stack) + `$` + type."""
    parts = parent_urn.split("::")
    qualified = parts[2] if len(parts) > 3 else ""
    if qualified and qualified != _STACK_TYPE:
        type_ = f"{qualified}${type_}"
    prefix = "::".join(parts[:2]) if len(parts) > 3 else "urn:pulumi:stack::project"
    return f"{prefix}::{type_}::{name}"


def _aws_zone_id(region: str, index: int) -> str:
    parts = region.split("-")
    short = parts[0] + "".join(p[0] for p in parts[1:-1]) + parts[-1] if len(parts) >= 3 else region
    return f"{short}-az{index}"


def _one_or_many(values: Sequence[Any]) -> Any:
    return values[0] if len(values) == 1 else list(values)


def _last_segment(value: str) -> str:
    return value.rstrip("/").rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------------------
# Context handed to the per-type functions


@dataclass(frozen=True)
class _Env:
    """Where the mocked clouds live: regions and projects from the stack config, fixed accounts."""

    aws_region: str
    azure_location: str
    gcp_project: str
    gcp_region: str

    def aws_arn(self, service: str, resource: str, *, regional: bool = True) -> str:
        region = self.aws_region if regional else ""
        return f"arn:{AWS_PARTITION}:{service}:{region}:{AWS_ACCOUNT_ID}:{resource}"


@dataclass(frozen=True)
class _Resource:
    """One registration as the per-type functions see it.

    `inputs` are plain values: secrets unwrapped, resource references as URNs, unknowns as `UNKNOWN`.
    """

    urn: str
    type: str
    name: str
    inputs: Mapping[str, Any]
    env: _Env
    mocks: PlanMocks

    def get(self, key: str, default: Any = None) -> Any:
        """The input `key`, or `default` when it is missing, empty or unknown."""
        value = self.inputs.get(key)
        if value is None or value == UNKNOWN or value == "" or value == [] or value == {}:
            return default
        return value

    def autoname(self, key: str, *, length: int = 7) -> str:
        """The input `key`, else the provider's auto-name `<logical name>-<hex>` derived from the URN."""
        explicit = self.get(key)
        if isinstance(explicit, str):
            return explicit
        return f"{self.name}-{_hex(self.urn, length)}"

    def child(self, type_: str, name: str, inputs: Mapping[str, Any] | None = None) -> _Resource:
        """A resource that a remote component would create as a child of this one."""
        return _Resource(_child_urn(self.urn, type_, name), type_, name, inputs or {}, self.env, self.mocks)


_Outputs = tuple[str, dict[str, Any]]
"""(physical id, computed outputs) — merged over the registered inputs by `PlanMocks.new_resource`."""
_ResourceFn = Callable[[_Resource], _Outputs]


@dataclass(frozen=True)
class _Invoke:
    token: str
    args: Mapping[str, Any]
    env: _Env
    mocks: PlanMocks

    def seed(self) -> str:
        return self.token + json.dumps(self.args, sort_keys=True, default=str)


_InvokeFn = Callable[[_Invoke], dict[str, Any]]


# --------------------------------------------------------------------------------------------------
# AWS resources


def _tags(r: _Resource) -> dict[str, Any]:
    return {"tagsAll": dict(r.get("tags", {})), "region": r.get("region", r.env.aws_region)}


def _aws_eks_cluster(r: _Resource) -> _Outputs:
    name = r.autoname("name")
    endpoint_id = _hex(r.urn + "endpoint", 32).upper()
    vpc_config = dict(r.get("vpcConfig", {}))
    network = dict(r.get("kubernetesNetworkConfig", {}))
    state = {
        "name": name,
        "arn": r.env.aws_arn("eks", f"cluster/{name}"),
        "clusterId": _uuid(r.urn + "cluster-id"),
        "createdAt": PLAN_TIMESTAMP,
        "endpoint": f"https://{endpoint_id}.gr7.{r.env.aws_region}.eks.amazonaws.com",
        "certificateAuthority": {"data": _certificate_b64(r.urn)},
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{r.env.aws_region}.amazonaws.com/id/{endpoint_id}"}]}],
        "version": r.get("version", DEFAULT_EKS_VERSION),
        "platformVersion": "eks.1",
        "status": "ACTIVE",
        "vpcConfig": {
            "endpointPrivateAccess": False,
            "endpointPublicAccess": True,
            "publicAccessCidrs": ["0.0.0.0/0"],
            **vpc_config,
            "clusterSecurityGroupId": f"sg-{_hex(r.urn + 'cluster-sg', 17)}",
            "vpcId": f"vpc-{_hex(json.dumps(vpc_config.get('subnetIds', [])), 17)}",
        },
        "kubernetesNetworkConfig": {"ipFamily": "ipv4", "serviceIpv4Cidr": "172.20.0.0/16", **network},
        **_tags(r),
    }
    r.mocks.remember("eks", name, state)
    return name, state


def _aws_eks_node_group(r: _Resource) -> _Outputs:
    cluster = str(r.get("clusterName", "cluster"))
    name = r.autoname("nodeGroupName")
    suffix = _uuid(r.urn)
    version = r.get("version", DEFAULT_EKS_VERSION)
    return f"{cluster}:{name}", {
        "nodeGroupName": name,
        "arn": r.env.aws_arn("eks", f"nodegroup/{cluster}/{name}/{suffix}"),
        "status": "ACTIVE",
        "resources": [{"autoscalingGroups": [{"name": f"eks-{name}-{suffix}"}], "remoteAccessSecurityGroupId": ""}],
        "version": version,
        "releaseVersion": r.get("releaseVersion", f"{version}.0-20250101"),
        "capacityType": r.get("capacityType", "ON_DEMAND"),
        "amiType": r.get("amiType", "CUSTOM" if r.get("launchTemplate") else "AL2023_x86_64_STANDARD"),
        **_tags(r),
    }


def _aws_eks_addon(r: _Resource) -> _Outputs:
    cluster = str(r.get("clusterName", "cluster"))
    addon = str(r.get("addonName", r.name))
    return f"{cluster}:{addon}", {
        "arn": r.env.aws_arn("eks", f"addon/{cluster}/{addon}/{_uuid(r.urn)}"),
        "addonVersion": r.get("addonVersion", "v1.0.0-eksbuild.1"),
        "createdAt": PLAN_TIMESTAMP,
        "modifiedAt": PLAN_TIMESTAMP,
        **_tags(r),
    }


def _aws_iam_role(r: _Resource) -> _Outputs:
    name = r.autoname("name")
    path = r.get("path", "/")
    return name, {
        "name": name,
        "path": path,
        "arn": r.env.aws_arn("iam", f"role{path}{name}", regional=False),
        "uniqueId": "AROA" + _hex(r.urn, 17).upper(),
        "createDate": PLAN_TIMESTAMP,
        "maxSessionDuration": r.get("maxSessionDuration", 3600),
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_policy(r: _Resource) -> _Outputs:
    name = r.autoname("name")
    arn = r.env.aws_arn("iam", f"policy{r.get('path', '/')}{name}", regional=False)
    return arn, {
        "name": name,
        "arn": arn,
        "policyId": "ANPA" + _hex(r.urn, 17).upper(),
        "attachmentCount": 0,
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_role_policy_attachment(r: _Resource) -> _Outputs:
    return f"{r.get('role', r.name)}-{_digits(r.urn, 26)}", {}


def _aws_iam_instance_profile(r: _Resource) -> _Outputs:
    name = r.autoname("name")
    return name, {
        "name": name,
        "arn": r.env.aws_arn("iam", f"instance-profile/{name}", regional=False),
        "uniqueId": "AIPA" + _hex(r.urn, 17).upper(),
        "createDate": PLAN_TIMESTAMP,
        "tagsAll": dict(r.get("tags", {})),
    }


def _aws_iam_oidc_provider(r: _Resource) -> _Outputs:
    url = str(r.get("url", f"https://oidc.eks.{r.env.aws_region}.amazonaws.com/id/{_hex(r.urn, 32).upper()}"))
    arn = r.env.aws_arn("iam", f"oidc-provider/{url.removeprefix('https://')}", regional=False)
    return arn, {"arn": arn, "url": url, "tagsAll": dict(r.get("tags", {}))}


def launch_template_id(urn: str) -> str:
    """The id the plan gives the EC2 launch template ``urn`` (``lt-`` and 17 hex digits, as EC2's own ids)."""
    return f"lt-{_hex(urn, 17)}"


def _aws_launch_template(r: _Resource) -> _Outputs:
    lt_id = launch_template_id(r.urn)
    return lt_id, {
        "name": r.autoname("name"),
        "arn": r.env.aws_arn("ec2", f"launch-template/{lt_id}"),
        "latestVersion": 1,
        "defaultVersion": 1,
        **_tags(r),
    }


def _aws_vpc(r: _Resource) -> _Outputs:
    vpc_id = f"vpc-{_hex(r.urn, 17)}"
    return vpc_id, {
        "arn": r.env.aws_arn("ec2", f"vpc/{vpc_id}"),
        "cidrBlock": r.get("cidrBlock", "10.0.0.0/16"),
        "defaultNetworkAclId": f"acl-{_hex(r.urn + 'acl', 17)}",
        "defaultRouteTableId": f"rtb-{_hex(r.urn + 'rtb', 17)}",
        "mainRouteTableId": f"rtb-{_hex(r.urn + 'rtb', 17)}",
        "defaultSecurityGroupId": f"sg-{_hex(r.urn + 'sg', 17)}",
        "dhcpOptionsId": f"dopt-{_hex(r.urn + 'dopt', 17)}",
        "enableDnsSupport": r.get("enableDnsSupport", True),
        "enableDnsHostnames": r.get("enableDnsHostnames", False),
        "instanceTenancy": r.get("instanceTenancy", "default"),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_subnet(r: _Resource) -> _Outputs:
    subnet_id = f"subnet-{_hex(r.urn, 17)}"
    return subnet_id, {
        "arn": r.env.aws_arn("ec2", f"subnet/{subnet_id}"),
        "availabilityZone": r.get("availabilityZone", f"{r.env.aws_region}a"),
        "availabilityZoneId": r.get("availabilityZoneId", _aws_zone_id(r.env.aws_region, 1)),
        "mapPublicIpOnLaunch": r.get("mapPublicIpOnLaunch", False),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_security_group(r: _Resource) -> _Outputs:
    sg_id = f"sg-{_hex(r.urn, 17)}"
    return sg_id, {
        "name": r.autoname("name"),
        "arn": r.env.aws_arn("ec2", f"security-group/{sg_id}"),
        "ownerId": AWS_ACCOUNT_ID,
        **_tags(r),
    }


def _aws_generic(r: _Resource) -> _Outputs:
    """Any other AWS resource: an id and an ARN in the resource's service."""
    module = r.type.split(":")[1].split("/")[0]
    resource_id = f"{r.name}-{_hex(r.urn, 7)}"
    kind = r.type.rsplit(":", 1)[-1].lower()
    return resource_id, {"arn": r.env.aws_arn(module, f"{kind}/{resource_id}"), **_tags(r)}


# --------------------------------------------------------------------------------------------------
# pulumi-eks remote components


def _synthetic(r: _Resource, fn: _ResourceFn) -> tuple[str, str, dict[str, Any]]:
    """Mock a child that a remote component's plugin would create, so references to it resolve.

    The child is put in the mock monitor's resource table (what `pulumi:pulumi:getResource` reads),
    not in the plan: the plan lists what the program registers.
    """
    resource_id, computed = fn(r)
    state = {**r.inputs, **computed}
    monitor = settings.get_monitor()
    if isinstance(monitor, MockMonitor):
        monitor.resources[r.urn] = MockMonitor.ResourceRegistration(r.urn, resource_id, state)
    return r.urn, resource_id, state


def _existing_ref(urn: str) -> dict[str, Any]:
    monitor = settings.get_monitor()
    registered = monitor.resources.get(urn) if isinstance(monitor, MockMonitor) else None
    return _ref(urn, registered.id if registered is not None else None)


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


def _eks_component_cluster(r: _Resource) -> _Outputs:
    """`eks:index:Cluster`: the outputs pulumi-eks returns, with its key children as references."""
    name = r.name
    tags = dict(r.get("tags", {}))
    service_role = r.get("serviceRole")
    if isinstance(service_role, str):
        role_ref = _existing_ref(service_role)
    else:
        role_urn, role_id, _ = _synthetic(
            r.child("aws:iam/role:Role", f"{name}-eksRole", {"tags": tags}), _aws_iam_role
        )
        role_ref = _ref(role_urn, role_id)
    cluster_sg_urn, cluster_sg_id, _ = _synthetic(
        r.child("aws:ec2/securityGroup:SecurityGroup", f"{name}-eksClusterSecurityGroup", {"tags": tags}),
        _aws_security_group,
    )
    node_sg_urn, node_sg_id, _ = _synthetic(
        r.child("aws:ec2/securityGroup:SecurityGroup", f"{name}-nodeSecurityGroup", {"tags": tags}),
        _aws_security_group,
    )
    ingress_urn, ingress_id, _ = _synthetic(
        r.child("aws:ec2/securityGroupRule:SecurityGroupRule", f"{name}-eksClusterIngressRule"),
        lambda c: (f"sgrule-{_digits(c.urn, 10)}", {}),
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
    cluster_urn, cluster_id, cluster = _synthetic(
        r.child("aws:eks/cluster:Cluster", f"{name}-eksCluster", cluster_inputs), _aws_eks_cluster
    )
    endpoint = cluster["endpoint"]
    ca_data = cluster["certificateAuthority"]["data"]
    issuer = cluster["identities"][0]["oidcs"][0]["issuer"]
    kubeconfig = _eks_kubeconfig(cluster["name"], endpoint, ca_data)
    kubeconfig_json = json.dumps(kubeconfig)
    provider_urn, provider_id, _ = _synthetic(
        r.child("pulumi:providers:kubernetes", f"{name}-eks-k8s", {"kubeconfig": kubeconfig_json}),
        lambda c: (_uuid(c.urn), {}),
    )

    instance_roles: list[dict[str, Any]] = []
    given_roles = r.get("instanceRoles") or ([r.get("instanceRole")] if r.get("instanceRole") else [])
    if given_roles:
        instance_roles = [_existing_ref(urn) for urn in given_roles if isinstance(urn, str)]
    elif not r.get("skipDefaultNodeGroup", False):
        urn, role_id, _ = _synthetic(r.child("aws:iam/role:Role", f"{name}-instanceRole"), _aws_iam_role)
        instance_roles = [_ref(urn, role_id)]

    oidc_arn = r.env.aws_arn("iam", f"oidc-provider/{issuer.removeprefix('https://')}", regional=False)
    core: dict[str, Any] = {
        "cluster": _ref(cluster_urn, cluster_id),
        "clusterIamRole": role_ref,
        "clusterSecurityGroup": _ref(cluster_sg_urn, cluster_sg_id),
        "endpoint": endpoint,
        "instanceRoles": instance_roles,
        "kubeconfig": kubeconfig,
        "nodeGroupOptions": dict(r.get("nodeGroupOptions", {})),
        "provider": _ref(provider_urn, provider_id),
        "subnetIds": subnet_ids,
        "vpcId": r.get("vpcId", f"vpc-{_hex(r.urn + 'vpc', 17)}"),
        "privateSubnetIds": list(r.get("privateSubnetIds", [])),
        "publicSubnetIds": list(r.get("publicSubnetIds", [])),
        "tags": tags,
        "accessEntries": [],
    }
    outputs: dict[str, Any] = {
        "autoModeNodeRoleName": "",
        "clusterIngressRuleId": ingress_id,
        "clusterSecurityGroup": _ref(cluster_sg_urn, cluster_sg_id),
        "clusterSecurityGroupId": cluster_sg_id,
        "core": core,
        "defaultNodeGroupAsgName": "",
        "eksCluster": _ref(cluster_urn, cluster_id),
        "eksClusterIngressRule": _ref(ingress_urn, ingress_id),
        "fargateProfileId": "",
        "fargateProfileStatus": "",
        "instanceRoles": instance_roles,
        "kubeconfig": kubeconfig,
        "kubeconfigJson": kubeconfig_json,
        "nodeSecurityGroup": _ref(node_sg_urn, node_sg_id),
        "nodeSecurityGroupId": node_sg_id,
        "oidcIssuer": issuer.removeprefix("https://"),
        "oidcProviderArn": oidc_arn,
        "oidcProviderUrl": issuer,
    }
    if r.get("createOidcProvider", False):
        oidc_urn, oidc_id, _ = _synthetic(
            r.child("aws:iam/openIdConnectProvider:OpenIdConnectProvider", f"{name}-oidcProvider", {"url": issuer}),
            _aws_iam_oidc_provider,
        )
        core["oidcProvider"] = _ref(oidc_urn, oidc_id)
    if not r.get("skipDefaultNodeGroup", False):
        asg_urn, asg_id, _ = _synthetic(
            r.child("aws:autoscaling/group:Group", f"{name}-nodeGroup"), lambda c: (c.autoname("name"), {})
        )
        outputs["defaultNodeGroup"] = {
            "autoScalingGroup": _ref(asg_urn, asg_id),
            "extraNodeSecurityGroups": [],
            "nodeSecurityGroup": _ref(node_sg_urn, node_sg_id),
        }
        outputs["defaultNodeGroupAsgName"] = asg_id
    return "", outputs


def _eks_component_managed_node_group(r: _Resource) -> _Outputs:
    """`eks:index:ManagedNodeGroup`: its `nodeGroup` output as a reference to a mocked `aws.eks.NodeGroup`."""
    cluster = r.get("cluster")
    cluster_name = r.get("clusterName") or (cluster.get("name") if isinstance(cluster, Mapping) else None)
    inputs = {key: value for key, value in r.inputs.items() if key != "cluster"}
    inputs["clusterName"] = cluster_name or "cluster"
    urn, node_group_id, _ = _synthetic(
        r.child("aws:eks/nodeGroup:NodeGroup", f"{r.name}-managedNodeGroup", inputs), _aws_eks_node_group
    )
    return "", {"nodeGroup": _ref(urn, node_group_id), "placementGroupName": ""}


# --------------------------------------------------------------------------------------------------
# Azure resources


def _azure_rg_id(rg: str) -> str:
    return f"/subscriptions/{AZURE_SUBSCRIPTION_ID}/resourceGroups/{rg}"


def _azure_resource_group(r: _Resource) -> _Outputs:
    name = r.autoname("resourceGroupName", length=8)
    return _azure_rg_id(name), {
        "resourceGroupName": name,
        "name": name,
        "location": r.get("location", r.env.azure_location),
        "properties": {"provisioningState": "Succeeded"},
        "type": "Microsoft.Resources/resourceGroups",
    }


def _aks_fqdn(prefix: str, rg: str, name: str, location: str, kind: str = "hcp") -> str:
    return f"{prefix}-{_hex(rg + '/' + name, 8)}.{kind}.{location}.azmk8s.io"


def _azure_managed_cluster(r: _Resource) -> _Outputs:
    rg = str(r.get("resourceGroupName", "rg"))
    name = r.autoname("resourceName", length=8)
    location = str(r.get("location", r.env.azure_location))
    prefix = str(r.get("dnsPrefix", name))
    resource_id = f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{name}"
    version = r.get("kubernetesVersion", DEFAULT_AKS_VERSION)
    node_rg = r.get("nodeResourceGroup", f"MC_{rg}_{name}_{location}")
    pools = [
        {
            **dict(pool),
            "currentOrchestratorVersion": pool.get("orchestratorVersion", version),
            "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.12.0",
            "provisioningState": "Succeeded",
            "powerState": {"code": "Running"},
        }
        for pool in r.get("agentPoolProfiles", [])
        if isinstance(pool, Mapping)
    ]
    identity = dict(r.get("identity", {}))
    if identity.get("type") == "SystemAssigned":
        identity.update(principalId=_uuid(r.urn + "principal"), tenantId=AZURE_TENANT_ID)
    state = {
        "resourceName": name,
        "name": name,
        "location": location,
        "dnsPrefix": prefix,
        "fqdn": _aks_fqdn(prefix, rg, name, location),
        "azurePortalFQDN": _aks_fqdn(prefix, rg, name, location, "portal.hcp"),
        "kubernetesVersion": version,
        "currentKubernetesVersion": version,
        "nodeResourceGroup": node_rg,
        "agentPoolProfiles": pools,
        "identity": identity,
        "identityProfile": {
            "kubeletidentity": {
                "clientId": _uuid(r.urn + "kubelet-client"),
                "objectId": _uuid(r.urn + "kubelet-object"),
                "resourceId": f"{_azure_rg_id(str(node_rg))}/providers/Microsoft.ManagedIdentity/"
                f"userAssignedIdentities/{name}-agentpool",
            }
        },
        "oidcIssuerProfile": {
            **dict(r.get("oidcIssuerProfile", {})),
            "issuerURL": f"https://{location}.oic.prod-aks.azure.com/{AZURE_TENANT_ID}/{_uuid(r.urn)}/",
        },
        "maxAgentPools": 100,
        "powerState": {"code": "Running"},
        "provisioningState": "Succeeded",
        "resourceUID": _hex(r.urn, 24),
        "type": "Microsoft.ContainerService/ManagedClusters",
    }
    r.mocks.remember("aks", f"{rg}/{name}", {**r.inputs, **state, "id": resource_id})
    return resource_id, state


def _azure_agent_pool(r: _Resource) -> _Outputs:
    rg = str(r.get("resourceGroupName", "rg"))
    cluster = str(r.get("resourceName", "cluster"))
    name = r.autoname("agentPoolName", length=8)
    resource_id = f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{cluster}/agentPools/{name}"
    return resource_id, {
        "agentPoolName": name,
        "name": name,
        "currentOrchestratorVersion": r.get("orchestratorVersion", DEFAULT_AKS_VERSION),
        "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.12.0",
        "provisioningState": "Succeeded",
        "eTag": _hex(r.urn, 32),
        "type": "Microsoft.ContainerService/managedClusters/agentPools",
    }


def _azure_generic(r: _Resource) -> _Outputs:
    """Any other azure-native resource: an ARM id and a name."""
    module = r.type.split(":")[1]
    kind = r.type.rsplit(":", 1)[-1]
    name = f"{r.name}-{_hex(r.urn, 8)}"
    rg = str(r.get("resourceGroupName", "rg"))
    return f"{_azure_rg_id(rg)}/providers/Microsoft.{module}/{kind}/{name}", {"name": name}


# --------------------------------------------------------------------------------------------------
# Google Cloud resources


def _gcp_location(r: _Resource) -> str:
    return str(r.get("location", r.get("region", r.env.gcp_region)))


def _gke_cluster_state(name: str, location: str, project: str, seed: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    version = inputs.get("minMasterVersion") or DEFAULT_GKE_VERSION
    master_auth = dict(inputs.get("masterAuth") or {})
    return {
        "name": name,
        "location": location,
        "project": project,
        "endpoint": _ipv4(seed),
        "masterAuth": {
            "clientCertificateConfig": {"issueClientCertificate": False},
            **master_auth,
            "clusterCaCertificate": _certificate_b64(seed),
            "clientCertificate": "",
            "clientKey": "",
        },
        "masterVersion": version,
        "nodeVersion": inputs.get("nodeVersion") or version,
        "selfLink": f"https://container.googleapis.com/v1/projects/{project}/locations/{location}/clusters/{name}",
        "servicesIpv4Cidr": "34.118.224.0/20",
        "labelFingerprint": _hex(seed + "labels", 8),
        "effectiveLabels": dict(inputs.get("resourceLabels") or {}),
        "pulumiLabels": dict(inputs.get("resourceLabels") or {}),
        "operation": "",
    }


def _gcp_container_cluster(r: _Resource) -> _Outputs:
    name = r.autoname("name")
    location = _gcp_location(r)
    project = str(r.get("project", r.env.gcp_project))
    state = _gke_cluster_state(name, location, project, r.urn, r.inputs)
    r.mocks.remember("gke", f"{location}/{name}", {**r.inputs, **state})
    return f"projects/{project}/locations/{location}/clusters/{name}", state


def _gcp_container_node_pool(r: _Resource) -> _Outputs:
    cluster = _last_segment(str(r.get("cluster", "cluster")))
    name = r.autoname("name")
    location = _gcp_location(r)
    project = str(r.get("project", r.env.gcp_project))
    group = f"gke-{cluster}-{name}-{_hex(r.urn, 8)}"
    zone = f"{location}-a" if location.count("-") == 1 else location
    base = f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}"
    return f"projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}", {
        "name": name,
        "location": location,
        "project": project,
        "version": r.get("version", DEFAULT_GKE_VERSION),
        "instanceGroupUrls": [f"{base}/instanceGroupManagers/{group}-grp"],
        "managedInstanceGroupUrls": [f"{base}/instanceGroups/{group}-grp"],
        "operation": "",
    }


def _gcp_service_account(r: _Resource) -> _Outputs:
    project = str(r.get("project", r.env.gcp_project))
    account_id = str(r.get("accountId", r.name))
    email = f"{account_id}@{project}.iam.gserviceaccount.com"
    name = f"projects/{project}/serviceAccounts/{email}"
    return name, {
        "accountId": account_id,
        "email": email,
        "member": f"serviceAccount:{email}",
        "name": name,
        "project": project,
        "uniqueId": "1" + _digits(r.urn, 20),
    }


def _gcp_generic(r: _Resource) -> _Outputs:
    """Any other GCP resource: an id, a name and a self link in the configured project."""
    project = str(r.get("project", r.env.gcp_project))
    name = r.autoname("name")
    kind = r.type.rsplit(":", 1)[-1]
    module = r.type.split(":")[1].split("/")[0]
    resource_id = f"projects/{project}/{kind[0].lower() + kind[1:]}s/{name}"
    return resource_id, {
        "name": name,
        "project": project,
        "selfLink": f"https://www.googleapis.com/{module}/v1/{resource_id}",
    }


# --------------------------------------------------------------------------------------------------
# Kubernetes resources

_CLUSTER_SCOPED_KINDS = frozenset(
    {
        "APIService",
        "CSIDriver",
        "CSINode",
        "CertificateSigningRequest",
        "CustomResourceDefinition",
        "DeviceClass",
        "FlowSchema",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "NVIDIADriver",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "ResourceSlice",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
"""Kinds without a namespace (besides every `Cluster*` kind, e.g. ClusterRole, ClusterPolicy)."""


def _kubernetes_object(r: _Resource) -> _Outputs:
    kind = r.type.rsplit(":", 1)[-1]
    metadata = dict(r.get("metadata", {}))
    name = metadata.get("name") or f"{r.name}-{_hex(r.urn, 8)}"
    computed: dict[str, Any] = {
        **metadata,
        "name": name,
        "uid": _uuid(r.urn),
        "resourceVersion": "1",
        "generation": 1,
        "creationTimestamp": PLAN_TIMESTAMP,
    }
    if kind in _CLUSTER_SCOPED_KINDS or kind.startswith("Cluster"):
        return name, {"metadata": computed}
    namespace = metadata.get("namespace") or "default"
    computed["namespace"] = namespace
    return f"{namespace}/{name}", {"metadata": computed}


def _helm_release(r: _Resource) -> _Outputs:
    name = r.autoname("name", length=8)
    namespace = r.get("namespace", "default")
    chart = _last_segment(str(r.get("chart", name)))
    version = r.get("version", "")
    return f"{namespace}/{name}", {
        "name": name,
        "namespace": namespace,
        "status": {
            "name": name,
            "namespace": namespace,
            "chart": chart,
            "version": version,
            "appVersion": version,
            "revision": 1,
            "status": "deployed",
        },
    }


def _kubernetes_rendered_component(r: _Resource) -> _Outputs:
    """Helm v4 Chart, YAML v2 ConfigGroup/ConfigFile, Kustomize v2: the provider renders their children.

    Offline there is no Helm or kustomize, so their `resources` output is empty.
    """
    return "", {"resources": []}


def _stack_reference(r: _Resource) -> _Outputs:
    """Another stack's outputs cannot be known offline: a reference reads as a stack without outputs."""
    return str(r.get("name", r.name)), {"outputs": {}, "secretOutputNames": []}


# --------------------------------------------------------------------------------------------------
# The resource map

_RESOURCES: dict[str, _ResourceFn] = {
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
    "azure-native:resources:ResourceGroup": _azure_resource_group,
    "azure-native:containerservice:ManagedCluster": _azure_managed_cluster,
    "azure-native:containerservice:AgentPool": _azure_agent_pool,
    "gcp:container/cluster:Cluster": _gcp_container_cluster,
    "gcp:container/nodePool:NodePool": _gcp_container_node_pool,
    "gcp:serviceaccount/account:Account": _gcp_service_account,
    "kubernetes:helm.sh/v3:Release": _helm_release,
    "pulumi:pulumi:StackReference": _stack_reference,
}
"""Custom resources by type token: (id, computed outputs) from the registration."""

_COMPONENTS: dict[str, _ResourceFn] = {
    "eks:index:Cluster": _eks_component_cluster,
    "eks:index:ManagedNodeGroup": _eks_component_managed_node_group,
    "kubernetes:helm.sh/v4:Chart": _kubernetes_rendered_component,
    "kubernetes:yaml/v2:ConfigGroup": _kubernetes_rendered_component,
    "kubernetes:yaml/v2:ConfigFile": _kubernetes_rendered_component,
    "kubernetes:kustomize/v2:Directory": _kubernetes_rendered_component,
}
"""Remote (multi-language) components by type token: the outputs their plugin would return."""


def _any_generic(r: _Resource) -> _Outputs:
    """A custom resource of any other package: an id derived from its URN, no computed outputs."""
    return f"{r.name}-{_hex(r.urn, 7)}", {}


_GENERIC_BY_PACKAGE: dict[str, _ResourceFn] = {
    "aws": _aws_generic,
    "azure-native": _azure_generic,
    "gcp": _gcp_generic,
    "kubernetes": _kubernetes_object,
}
"""Fallbacks for custom resources without an entry in `_RESOURCES`, by package."""


# --------------------------------------------------------------------------------------------------
# Invokes


def _aws_get_region(i: _Invoke) -> dict[str, Any]:
    region = str(i.args.get("region") or i.args.get("name") or i.env.aws_region)
    return {
        "name": region,
        "region": region,
        "id": region,
        "description": region,
        "endpoint": f"ec2.{region}.amazonaws.com",
    }


def _aws_get_caller_identity(i: _Invoke) -> dict[str, Any]:
    return {
        "accountId": AWS_ACCOUNT_ID,
        "arn": f"arn:{AWS_PARTITION}:iam::{AWS_ACCOUNT_ID}:user/gpu-components-plan",
        "userId": "AIDA" + _hex("caller", 17).upper(),
        "id": AWS_ACCOUNT_ID,
    }


def _aws_get_partition(i: _Invoke) -> dict[str, Any]:
    return {
        "partition": AWS_PARTITION,
        "id": AWS_PARTITION,
        "dnsSuffix": "amazonaws.com",
        "reverseDnsPrefix": "com.amazonaws",
    }


def _aws_get_availability_zones(i: _Invoke) -> dict[str, Any]:
    region = i.env.aws_region
    return {
        "id": region,
        "names": [f"{region}{letter}" for letter in "abc"],
        "zoneIds": [_aws_zone_id(region, index) for index in (1, 2, 3)],
        "groupNames": [region],
        "state": "available",
    }


def _aws_get_vpc(i: _Invoke) -> dict[str, Any]:
    vpc_id = str(i.args.get("id") or f"vpc-{_hex(i.seed(), 17)}")
    return {
        "id": vpc_id,
        "arn": i.env.aws_arn("ec2", f"vpc/{vpc_id}"),
        "cidrBlock": i.args.get("cidrBlock") or "10.0.0.0/16",
        "default": bool(i.args.get("default", False)),
        "dhcpOptionsId": f"dopt-{_hex(vpc_id, 17)}",
        "enableDnsHostnames": True,
        "enableDnsSupport": True,
        "instanceTenancy": "default",
        "mainRouteTableId": f"rtb-{_hex(vpc_id, 17)}",
        "ownerId": AWS_ACCOUNT_ID,
        "region": i.env.aws_region,
        "state": "available",
        "tags": dict(i.args.get("tags") or {}),
    }


def _aws_get_subnets(i: _Invoke) -> dict[str, Any]:
    seed = i.seed()
    return {
        "id": i.env.aws_region,
        "ids": [f"subnet-{_hex(seed + str(index), 17)}" for index in range(3)],
        "region": i.env.aws_region,
    }


def _aws_get_subnet(i: _Invoke) -> dict[str, Any]:
    subnet_id = str(i.args.get("id") or f"subnet-{_hex(i.seed(), 17)}")
    return {
        "id": subnet_id,
        "arn": i.env.aws_arn("ec2", f"subnet/{subnet_id}"),
        "availabilityZone": f"{i.env.aws_region}a",
        "availabilityZoneId": _aws_zone_id(i.env.aws_region, 1),
        "cidrBlock": "10.0.0.0/19",
        "vpcId": i.args.get("vpcId") or f"vpc-{_hex(subnet_id, 17)}",
        "ownerId": AWS_ACCOUNT_ID,
        "state": "available",
    }


def _aws_get_eks_cluster(i: _Invoke) -> dict[str, Any]:
    name = str(i.args.get("name", "cluster"))
    known = i.mocks.recall("eks", name)
    if known is None:
        seed = f"eks-cluster/{name}"
        endpoint_id = _hex(seed, 32).upper()
        known = {
            "arn": i.env.aws_arn("eks", f"cluster/{name}"),
            "endpoint": f"https://{endpoint_id}.gr7.{i.env.aws_region}.eks.amazonaws.com",
            "certificateAuthority": {"data": _certificate_b64(seed)},
            "identities": [
                {"oidcs": [{"issuer": f"https://oidc.eks.{i.env.aws_region}.amazonaws.com/id/{endpoint_id}"}]}
            ],
            "version": DEFAULT_EKS_VERSION,
            "platformVersion": "eks.1",
            "vpcConfig": {
                "clusterSecurityGroupId": f"sg-{_hex(seed, 17)}",
                "subnetIds": [f"subnet-{_hex(seed + str(index), 17)}" for index in range(3)],
                "securityGroupIds": [],
                "vpcId": f"vpc-{_hex(seed, 17)}",
                "endpointPrivateAccess": False,
                "endpointPublicAccess": True,
                "publicAccessCidrs": ["0.0.0.0/0"],
            },
            "kubernetesNetworkConfig": {"ipFamily": "ipv4", "serviceIpv4Cidr": "172.20.0.0/16"},
            "roleArn": i.env.aws_arn("iam", f"role/{name}-eksRole", regional=False),
            "tags": {},
        }
    network = dict(known.get("kubernetesNetworkConfig") or {})
    return {
        "id": name,
        "name": name,
        "arn": known["arn"],
        "clusterId": _uuid(known["arn"]),
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
        "region": i.env.aws_region,
    }


def _aws_get_policy_document(i: _Invoke) -> dict[str, Any]:
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
        "id": _digits(text, 10),
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


def _aws_get_parameter(i: _Invoke) -> dict[str, Any]:
    """SSM parameters; the public EKS/Bottlerocket AMI parameters answer with AMI ids / release versions."""
    name = str(i.args.get("name", ""))
    if name.endswith("image_id") or name.endswith("/ami_id"):
        value = f"ami-{_hex(name, 17)}"
    elif name.endswith("release_version"):
        match = _K8S_VERSION.search(name)
        value = f"{match.group(1) if match else DEFAULT_EKS_VERSION}.0-20250101"
    else:
        value = f"plan-value-{_hex(name, 8)}"
    arn_name = name if name.startswith("/") else f"/{name}"
    return {
        "id": name,
        "name": name,
        "arn": i.env.aws_arn("ssm", f"parameter{arn_name}"),
        "type": "String",
        "value": value,
        "insecureValue": value,
        "version": 1,
        "withDecryption": bool(i.args.get("withDecryption", True)),
        "region": i.env.aws_region,
    }


def _aws_get_ami(i: _Invoke) -> dict[str, Any]:
    image_id = f"ami-{_hex(i.seed(), 17)}"
    return {
        "id": image_id,
        "imageId": image_id,
        "arn": f"arn:{AWS_PARTITION}:ec2:{i.env.aws_region}::image/{image_id}",
        "architecture": "x86_64",
        "name": str(i.args.get("nameRegex") or "plan-ami"),
        "ownerId": AWS_ACCOUNT_ID,
        "state": "available",
    }


def _aks_kubeconfig_yaml(fqdn: str, cluster: str, rg: str, user: str) -> str:
    kubeconfig = {
        "apiVersion": "v1",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": _certificate_b64(fqdn),
                    "server": f"https://{fqdn}:443",
                },
                "name": cluster,
            }
        ],
        "contexts": [{"context": {"cluster": cluster, "user": f"{user}_{rg}_{cluster}"}, "name": cluster}],
        "current-context": cluster,
        "kind": "Config",
        "users": [
            {
                "name": f"{user}_{rg}_{cluster}",
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "args": [
                            "get-token",
                            "--login",
                            "azurecli",
                            "--server-id",
                            "6dae42f8-4368-4678-94ff-3960e28e3630",
                        ],
                        "command": "kubelogin",
                        "env": None,
                        "provideClusterInfo": False,
                    }
                },
            }
        ],
    }
    return yaml.safe_dump(kubeconfig, sort_keys=False)


def _aks_known(i: _Invoke) -> tuple[str, str, dict[str, Any]]:
    rg = str(i.args.get("resourceGroupName", "rg"))
    name = str(i.args.get("resourceName", "cluster"))
    known = i.mocks.recall("aks", f"{rg}/{name}")
    if known is None:
        location = i.env.azure_location
        known = {
            "id": f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{name}",
            "name": name,
            "location": location,
            "dnsPrefix": name,
            "fqdn": _aks_fqdn(name, rg, name, location),
            "kubernetesVersion": DEFAULT_AKS_VERSION,
            "currentKubernetesVersion": DEFAULT_AKS_VERSION,
            "nodeResourceGroup": f"MC_{rg}_{name}_{location}",
            "provisioningState": "Succeeded",
            "powerState": {"code": "Running"},
            "type": "Microsoft.ContainerService/ManagedClusters",
        }
    return rg, name, known


def _aks_credentials(user: str) -> _InvokeFn:
    def credentials(i: _Invoke) -> dict[str, Any]:
        rg, name, known = _aks_known(i)
        text = _aks_kubeconfig_yaml(str(known["fqdn"]), name, rg, user)
        return {"kubeconfigs": [{"name": user, "value": base64.b64encode(text.encode()).decode()}]}

    return credentials


def _aks_get_managed_cluster(i: _Invoke) -> dict[str, Any]:
    return dict(_aks_known(i)[2])


def _azure_get_client_config(i: _Invoke) -> dict[str, Any]:
    return {
        "clientId": _uuid("azure-client"),
        "objectId": _uuid("azure-object"),
        "subscriptionId": AZURE_SUBSCRIPTION_ID,
        "tenantId": AZURE_TENANT_ID,
    }


def _gcp_get_cluster(i: _Invoke) -> dict[str, Any]:
    name = str(i.args.get("name", "cluster"))
    location = str(i.args.get("location") or i.env.gcp_region)
    project = str(i.args.get("project") or i.env.gcp_project)
    known = i.mocks.recall("gke", f"{location}/{name}")
    if known is None:
        known = _gke_cluster_state(name, location, project, f"gke-cluster/{location}/{name}", {})
    return {
        **{key: value for key, value in known.items() if key != "masterAuth"},
        "id": f"projects/{project}/locations/{location}/clusters/{name}",
        "masterAuths": [known["masterAuth"]],
        "nodePools": [],
    }


def _gcp_get_client_config(i: _Invoke) -> dict[str, Any]:
    return {
        "id": f"projects/{i.env.gcp_project}/regions/{i.env.gcp_region}/zones/{i.env.gcp_region}-a",
        "accessToken": _secret("ya29.plan-mock-token"),
        "project": i.env.gcp_project,
        "region": i.env.gcp_region,
        "zone": f"{i.env.gcp_region}-a",
        "defaultLabels": {},
    }


def _gcp_get_engine_versions(i: _Invoke) -> dict[str, Any]:
    versions = [DEFAULT_GKE_VERSION, "1.30.10-gke.1070000", "1.29.14-gke.1018000"]
    channels = {
        "RAPID": "1.32.2-gke.1182001",
        "REGULAR": DEFAULT_GKE_VERSION,
        "STABLE": "1.30.10-gke.1070000",
    }
    return {
        "id": str(i.args.get("location") or i.env.gcp_region),
        "defaultClusterVersion": DEFAULT_GKE_VERSION,
        "latestMasterVersion": DEFAULT_GKE_VERSION,
        "latestNodeVersion": DEFAULT_GKE_VERSION,
        "validMasterVersions": versions,
        "validNodeVersions": versions,
        "releaseChannelDefaultVersion": channels,
        "releaseChannelLatestVersion": channels,
        "releaseChannelUpgradeTargetVersion": channels,
    }


def _gcp_get_zones(i: _Invoke) -> dict[str, Any]:
    region = str(i.args.get("region") or i.env.gcp_region)
    return {
        "id": f"projects/{i.env.gcp_project}/regions/{region}",
        "names": [f"{region}-{letter}" for letter in "abcf"],
        "project": i.env.gcp_project,
        "region": region,
    }


def _gcp_get_project(i: _Invoke) -> dict[str, Any]:
    project = str(i.args.get("projectId") or i.env.gcp_project)
    return {
        "id": f"projects/{project}",
        "projectId": project,
        "name": project,
        "number": "1" + _digits(project, 11),
    }


def _kubernetes_yaml_decode(i: _Invoke) -> dict[str, Any]:
    """Decode the YAML text the way the provider does: one object per non-empty document."""
    documents = _yaml.load_all(str(i.args.get("text", "")))
    return {"result": [document for document in documents if document]}


def _eks_get_kubeconfig(i: _Invoke) -> dict[str, Any]:
    """The `eks:index:Cluster/getKubeconfig` method: the cluster's kubeconfig, as a JSON string."""
    component_urn = str(i.args.get("__self__", ""))
    cluster_urn = _child_urn(
        component_urn, "aws:eks/cluster:Cluster", f"{component_urn.rsplit('::', 1)[-1]}-eksCluster"
    )
    monitor = settings.get_monitor()
    registered = monitor.resources.get(cluster_urn) if isinstance(monitor, MockMonitor) else None
    if registered is None:
        raise MissingMockError("call", f"{i.token} (cluster {component_urn!r} not registered)")
    state = registered.state
    kubeconfig = _eks_kubeconfig(
        str(state["name"]),
        str(state["endpoint"]),
        str(state["certificateAuthority"]["data"]),
        role_arn=str(i.args.get("roleArn") or ""),
        profile=str(i.args.get("profileName") or ""),
    )
    return {"result": json.dumps(kubeconfig)}


_INVOKES: dict[str, _InvokeFn] = {
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
    "azure-native:containerservice:listManagedClusterUserCredentials": _aks_credentials("clusterUser"),
    "azure-native:containerservice:listManagedClusterAdminCredentials": _aks_credentials("clusterAdmin"),
    "azure-native:containerservice:getManagedCluster": _aks_get_managed_cluster,
    "azure-native:authorization:getClientConfig": _azure_get_client_config,
    "gcp:container/getCluster:getCluster": _gcp_get_cluster,
    "gcp:container/getEngineVersions:getEngineVersions": _gcp_get_engine_versions,
    "gcp:compute/getZones:getZones": _gcp_get_zones,
    "gcp:organizations/getClientConfig:getClientConfig": _gcp_get_client_config,
    "gcp:organizations/getProject:getProject": _gcp_get_project,
    "kubernetes:yaml:decode": _kubernetes_yaml_decode,
    "eks:index:Cluster/getKubeconfig": _eks_get_kubeconfig,
}
"""Invokes and resource-method calls by token: the result from the (plain) arguments."""


# --------------------------------------------------------------------------------------------------
# The mocks


class _Registering(NamedTuple):
    urn: str
    remote: bool
    plain_inputs: Mapping[str, Any]


_REGISTERING: contextvars.ContextVar[_Registering | None] = contextvars.ContextVar(
    "gpu_components_plan_registering", default=None
)
"""Set by `PlanMonitor` around each registration, so `PlanMocks` sees the URN the monitor computed."""


class PlanMocks(Mocks):
    """Pulumi mocks that return realistic, deterministic outputs for GPU node-pool programs.

    Args:
        config: flat stack config (`{"aws:region": "eu-west-1", ...}`, values as strings); picks the
            AWS region (`aws:region`, default `DEFAULT_AWS_REGION`), Azure location
            (`azure-native:location`, default `DEFAULT_AZURE_LOCATION`), GCP project and region
            (`gcp:project` / `gcp:region`, defaults `DEFAULT_GCP_PROJECT` / `DEFAULT_GCP_REGION`).

    `new_resource` returns `(id, state)` with state = the registered inputs overlaid with the computed
    outputs for the type (see `_RESOURCES`, `_COMPONENTS`, `_GENERIC_BY_PACKAGE`); local component
    resources get their inputs back. Every call is appended to `registrations`; every invoke to
    `invokes`. `call` raises `MissingMockError` for an invoke without a mock.

    Works with the stock `MockMonitor` (URNs then lack the parent chain) and best with `PlanMonitor`.
    """

    def __init__(self, config: Mapping[str, str] | None = None) -> None:
        config = config or {}
        self.env = _Env(
            aws_region=config.get("aws:region") or DEFAULT_AWS_REGION,
            azure_location=config.get("azure-native:location") or DEFAULT_AZURE_LOCATION,
            gcp_project=config.get("gcp:project") or DEFAULT_GCP_PROJECT,
            gcp_region=config.get("gcp:region") or DEFAULT_GCP_REGION,
        )
        self.registrations: list[MockResourceArgs] = []
        self.invokes: list[MockCallArgs] = []
        self._known: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def remember(self, kind: str, key: str, state: Mapping[str, Any]) -> None:
        """Keep a cluster's mocked state, so later `get*`/credential invokes agree with it."""
        with self._lock:
            self._known[(kind, key)] = dict(state)

    def recall(self, kind: str, key: str) -> dict[str, Any] | None:
        """The state kept by `remember`, if the program registered that cluster."""
        with self._lock:
            return self._known.get((kind, key))

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        """Mock one registration (custom resource, component or remote component) or read."""
        with self._lock:
            self.registrations.append(args)
        registering = _REGISTERING.get()
        if registering is not None:
            urn, remote, plain = registering.urn, registering.remote, registering.plain_inputs
        else:
            urn = f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{args.typ}::{args.name}"
            remote, plain = False, to_plain(args.inputs, mask_secrets=False)
        if args.resource_id and "name" not in plain:
            plain = {**plain, "name": args.resource_id}  # a read: most providers' ids are the name
        resource = _Resource(urn, args.typ, args.name, plain, self.env, self)
        # Reads (`Resource.get`) arrive with an id and no `custom` flag; only custom resources are read.
        fn = self._resource_fn(args.typ, bool(args.custom) or bool(args.resource_id), remote)
        if fn is None:
            return "", dict(args.inputs)
        resource_id, computed = fn(resource)
        if args.resource_id:
            resource_id = args.resource_id
        return resource_id, {**args.inputs, **computed}

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        """Mock one invoke (or resource-method call); raise `MissingMockError` if it has no mock."""
        fn = _INVOKES.get(args.token)
        if fn is None:
            raise MissingMockError("invoke", args.token)
        with self._lock:
            self.invokes.append(args)
        plain = to_plain(args.args, mask_secrets=False)
        return fn(_Invoke(args.token, plain if isinstance(plain, dict) else {}, self.env, self)), []

    @staticmethod
    def _resource_fn(type_: str, custom: bool, remote: bool) -> _ResourceFn | None:
        if type_ in _COMPONENTS:
            return _COMPONENTS[type_]
        if not custom:
            if remote:
                raise MissingMockError("remote component", type_)
            return None
        return _custom_resource_fn(type_)


def _custom_resource_fn(type_: str) -> _ResourceFn:
    """The mock of a custom resource type: a provider's own, a specific one, or its package's fallback."""
    if type_.startswith("pulumi:providers:"):
        return lambda r: (_uuid(r.urn), {})
    if type_ in _RESOURCES:
        return _RESOURCES[type_]
    return _GENERIC_BY_PACKAGE.get(type_.split(":", 1)[0], _any_generic)


def planned_id(resource_type: str, urn: str, inputs: Mapping[str, Any]) -> str:
    """The physical id the plan gives the custom resource ``urn`` of ``resource_type`` with ``inputs`` (plain, as a
    plan records them): how other resources' inputs name it in a plan, e.g. a node group's ``launchTemplate.id``.

    Computed by the resource's mock under the default config (an id that holds a region or project holds the
    default one).
    """
    mocks = PlanMocks()
    resource = _Resource(urn, resource_type, urn.rsplit("::", 1)[-1], inputs, mocks.env, mocks)
    return _custom_resource_fn(resource_type)(resource)[0]


# --------------------------------------------------------------------------------------------------
# The monitor


class Registration(NamedTuple):
    """One resource registration as the engine received it.

    `parent` is the parent URN, or None for the stack's direct children; `inputs` are the plain
    inputs (camelCase keys) with secrets replaced by `SECRET` (see `to_plain`).
    """

    urn: str
    type: str
    name: str
    parent: str | None
    custom: bool
    remote: bool
    inputs: Mapping[str, Any]


class PlanMonitor(MockMonitor):
    """A mock resource monitor that records every registration and gives engine-style URNs.

    Unlike the stock `MockMonitor` it names resources the way the engine does (the parent's full type
    chain, without `pulumi:pulumi:Stack`), hands the URN to `PlanMocks`, and answers resource-method
    calls (`Call`, which the stock monitor lacks) through `PlanMocks.call`.

    Read `registrations` after the program has finished.
    """

    mocks: PlanMocks

    def __init__(self, mocks: PlanMocks) -> None:
        super().__init__(mocks)
        self.mocks = mocks
        self._registrations: list[Registration] = []
        self._urns: set[str] = set()
        self._lock = threading.Lock()
        self._thread = threading.local()
        self._loops: list[asyncio.AbstractEventLoop] = []

    @property
    def registrations(self) -> list[Registration]:
        """Every registration so far except the stack itself, in arrival order."""
        with self._lock:
            return list(self._registrations)

    def _thread_loop(self) -> None:
        """Give the calling worker thread an event loop this monitor closes (:meth:`close`).

        The SDK's mock monitor needs one per thread and, where there is none, makes one it never closes; at exit
        such a loop's finalizer can print "Exception ignored ... Invalid file descriptor" on stderr.
        """
        if getattr(self._thread, "loop", None) is not None:
            return
        try:
            asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # no loop on this thread yet: the SDK would make one
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._thread.loop = loop
            with self._lock:
                self._loops.append(loop)

    def close(self) -> None:
        """Close the event loops made for worker threads; call once the run's executor has shut down."""
        with self._lock:
            loops, self._loops = self._loops, []
        for loop in loops:
            loop.close()

    def Invoke(self, request: resource_pb2.ResourceInvokeRequest) -> Any:
        """Let `MockMonitor` answer an invoke through `PlanMocks.call`, on a thread loop this monitor owns."""
        self._thread_loop()
        return super().Invoke(request)  # type: ignore[no-untyped-call]

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """The URN the engine would give: `urn:pulumi:<stack>::<project>::<type chain>::<name>`."""
        stack, project = pulumi.get_stack(), pulumi.get_project()
        if parent:
            qualified = parent.split("::")[2]
            if qualified != _STACK_TYPE:
                type_ = f"{qualified}${type_}"
        return f"urn:pulumi:{stack}::{project}::{type_}::{name}"

    def RegisterResource(self, request: resource_pb2.RegisterResourceRequest) -> Any:
        """Record the registration, then let `MockMonitor` call `PlanMocks.new_resource` with its URN."""
        self._thread_loop()
        urn = self.make_urn(request.parent, request.type, request.name)
        if request.type != _STACK_TYPE:
            parent = request.parent or None
            if parent is not None and parent.split("::")[2] == _STACK_TYPE:
                parent = None
            inputs = to_plain(request.object)
            registration = Registration(
                urn, request.type, request.name, parent, bool(request.custom), bool(request.remote), inputs
            )
            with self._lock:
                if urn in self._urns:
                    raise DuplicateResourceError(urn)
                self._urns.add(urn)
                self._registrations.append(registration)
        token = _REGISTERING.set(_Registering(urn, bool(request.remote), to_plain(request.object, mask_secrets=False)))
        try:
            return super().RegisterResource(request)  # type: ignore[no-untyped-call]
        finally:
            _REGISTERING.reset(token)

    def ReadResource(self, request: resource_pb2.ReadResourceRequest) -> Any:
        """Let `MockMonitor` mock a read (`Resource.get`); reads are not recorded as registrations."""
        self._thread_loop()
        urn = self.make_urn(request.parent, request.type, request.name)
        token = _REGISTERING.set(_Registering(urn, False, to_plain(request.properties, mask_secrets=False)))
        try:
            return super().ReadResource(request)  # type: ignore[no-untyped-call]
        finally:
            _REGISTERING.reset(token)

    def Call(self, request: resource_pb2.ResourceCallRequest) -> provider_pb2.CallResponse:
        """Answer a resource-method call (e.g. `eks.Cluster.get_kubeconfig`) through `PlanMocks.call`."""
        args = to_plain(request.args, mask_secrets=False)
        result, failures = self.mocks.call(MockCallArgs(request.tok, args, request.provider))
        returned = struct_pb2.Struct()
        returned.update(cast(dict[str, Any], _jsonable(result)))
        response = provider_pb2.CallResponse(
            failures=[provider_pb2.CheckFailure(property=p, reason=r) for p, r in failures or []]
        )
        getattr(response, "return").CopyFrom(returned)
        return response


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
