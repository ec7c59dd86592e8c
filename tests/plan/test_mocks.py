"""Tests for gpu_components.plan.mocks: realistic, deterministic outputs per resource type and invoke."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest
import yaml
from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs

from gpu_components.plan import SECRET, UNKNOWN, MissingMockError, Plan, PlanMocks, PlanMonitor, run_program
from gpu_components.plan.mocks import to_plain


def new(mocks: PlanMocks, typ: str, name: str, inputs: dict[str, Any], custom: bool = True) -> tuple[Any, Any]:
    return mocks.new_resource(MockResourceArgs(typ=typ, name=name, inputs=inputs, custom=custom))


def invoke(mocks: PlanMocks, token: str, args: dict[str, Any]) -> dict[str, Any]:
    result, failures = mocks.call(MockCallArgs(token=token, args=args, provider=""))
    assert failures == []
    return result


def hex_of(urn: str, length: int) -> str:
    return hashlib.sha256(urn.encode()).hexdigest()[:length]


def ambient_urn(typ: str, name: str) -> str:
    """The URN PlanMocks uses when called outside PlanMonitor: from the current stack and project."""
    return f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{typ}::{name}"


def test_iam_role_gets_an_auto_name_and_arn_from_its_urn() -> None:
    role_id, state = new(PlanMocks(), "aws:iam/role:Role", "nodes", {"assumeRolePolicy": "{}"})

    suffix = hex_of(ambient_urn("aws:iam/role:Role", "nodes"), 7)
    assert role_id == f"nodes-{suffix}"
    assert state["arn"] == f"arn:aws:iam::123456789012:role/nodes-{suffix}"
    assert state["assumeRolePolicy"] == "{}"


def test_iam_role_keeps_an_explicit_name_and_path() -> None:
    _, state = new(PlanMocks(), "aws:iam/role:Role", "nodes", {"name": "gpu-nodes", "path": "/eks/"})

    assert state["arn"] == "arn:aws:iam::123456789012:role/eks/gpu-nodes"


def test_outputs_are_deterministic() -> None:
    inputs = {"clusterName": "gpu", "nodeRoleArn": "arn:aws:iam::123456789012:role/r"}

    first = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", inputs)
    second = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", inputs)

    assert first == second


def test_eks_cluster_has_endpoint_certificate_and_oidc_issuer_in_the_configured_region() -> None:
    _, state = new(PlanMocks({"aws:region": "eu-central-1"}), "aws:eks/cluster:Cluster", "gpu", {"version": "1.30"})

    assert state["arn"].startswith("arn:aws:eks:eu-central-1:123456789012:cluster/gpu-")
    assert state["endpoint"].endswith(".gr7.eu-central-1.eks.amazonaws.com")
    assert base64.b64decode(state["certificateAuthority"]["data"]).startswith(b"-----BEGIN CERTIFICATE-----")
    assert state["identities"][0]["oidcs"][0]["issuer"].startswith("https://oidc.eks.eu-central-1.amazonaws.com/id/")
    assert (state["version"], state["status"]) == ("1.30", "ACTIVE")


def test_node_group_reports_status_and_autoscaling_group() -> None:
    node_group_id, state = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", {"clusterName": "gpu"})

    assert node_group_id == f"gpu:{state['nodeGroupName']}"
    assert state["status"] == "ACTIVE"
    assert state["resources"][0]["autoscalingGroups"][0]["name"].startswith(f"eks-{state['nodeGroupName']}-")
    assert state["arn"].startswith(f"arn:aws:eks:us-west-2:123456789012:nodegroup/gpu/{state['nodeGroupName']}/")


def test_launch_template_has_an_ec2_id_and_a_version() -> None:
    template_id, state = new(PlanMocks(), "aws:ec2/launchTemplate:LaunchTemplate", "lt", {})

    assert template_id.startswith("lt-") and len(template_id) == 20
    assert state["latestVersion"] == 1


@pytest.mark.parametrize(("typ", "prefix"), [("aws:ec2/vpc:Vpc", "vpc-"), ("aws:ec2/subnet:Subnet", "subnet-")])
def test_network_resources_have_ec2_ids(typ: str, prefix: str) -> None:
    resource_id, state = new(PlanMocks(), typ, "net", {"cidrBlock": "10.0.0.0/16"})

    assert resource_id.startswith(prefix)
    assert state["ownerId"] == "123456789012"


def test_unlisted_aws_resource_gets_an_arn_in_its_service() -> None:
    _, state = new(PlanMocks(), "aws:sqs/queue:Queue", "q", {})

    assert state["arn"].startswith("arn:aws:sqs:us-west-2:123456789012:queue/q-")


def test_kubernetes_object_is_auto_named_with_eight_hex_characters_in_default_namespace() -> None:
    object_id, state = new(PlanMocks(), "kubernetes:core/v1:ConfigMap", "cfg", {"data": {"a": "b"}})

    name = f"cfg-{hex_of(ambient_urn('kubernetes:core/v1:ConfigMap', 'cfg'), 8)}"
    assert state["metadata"]["name"] == name
    assert state["metadata"]["namespace"] == "default"
    assert object_id == f"default/{name}"
    assert state["data"] == {"a": "b"}


@pytest.mark.parametrize(
    "typ",
    [
        "kubernetes:core/v1:Namespace",
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
        "kubernetes:nvidia.com/v1:ClusterPolicy",
    ],
)
def test_cluster_scoped_kubernetes_objects_have_no_namespace(typ: str) -> None:
    _, state = new(PlanMocks(), typ, "x", {"metadata": {"name": "x"}})

    assert "namespace" not in state["metadata"]
    assert state["metadata"]["name"] == "x"


def test_helm_release_reports_deployed_status() -> None:
    _, state = new(
        PlanMocks(),
        "kubernetes:helm.sh/v3:Release",
        "device-plugin",
        {"chart": "nvidia-device-plugin", "version": "0.17.0", "namespace": "nvidia", "name": "nvdp"},
    )

    assert state["status"] == {
        "appVersion": "0.17.0",
        "chart": "nvidia-device-plugin",
        "name": "nvdp",
        "namespace": "nvidia",
        "revision": 1,
        "status": "deployed",
        "version": "0.17.0",
    }


def test_local_component_gets_its_inputs_back() -> None:
    assert new(PlanMocks(), "test:index:Pool", "p", {"a": 1}, custom=False) == ("", {"a": 1})


def test_gcp_service_account_email_is_in_the_configured_project() -> None:
    _, state = new(
        PlanMocks({"gcp:project": "ml-prod"}), "gcp:serviceaccount/account:Account", "sa", {"accountId": "gpu-nodes"}
    )

    assert state["email"] == "gpu-nodes@ml-prod.iam.gserviceaccount.com"
    assert state["member"] == "serviceAccount:gpu-nodes@ml-prod.iam.gserviceaccount.com"


def test_new_resource_records_every_registration() -> None:
    mocks = PlanMocks()
    new(mocks, "test:index:Pool", "p", {}, custom=False)
    new(mocks, "aws:iam/role:Role", "r", {})

    assert [(args.typ, args.custom) for args in mocks.registrations] == [
        ("test:index:Pool", False),
        ("aws:iam/role:Role", True),
    ]


def test_get_region_follows_the_stack_config() -> None:
    assert invoke(PlanMocks(), "aws:index/getRegion:getRegion", {})["name"] == "us-west-2"
    assert invoke(PlanMocks({"aws:region": "eu-west-1"}), "aws:index/getRegion:getRegion", {})["region"] == "eu-west-1"


def test_caller_identity_and_partition() -> None:
    mocks = PlanMocks()

    assert invoke(mocks, "aws:index/getCallerIdentity:getCallerIdentity", {})["accountId"] == "123456789012"
    assert invoke(mocks, "aws:index/getPartition:getPartition", {})["partition"] == "aws"


def test_policy_document_is_built_from_the_statements() -> None:
    result = invoke(
        PlanMocks(),
        "aws:iam/getPolicyDocument:getPolicyDocument",
        {
            "statements": [
                {
                    "sid": "AssumeFromPods",
                    "actions": ["sts:AssumeRoleWithWebIdentity"],
                    "principals": [{"type": "Federated", "identifiers": ["arn:aws:iam::123456789012:oidc-provider/x"]}],
                    "conditions": [
                        {"test": "StringEquals", "variable": "x:sub", "values": ["system:serviceaccount:a:b"]}
                    ],
                },
                {"effect": "Deny", "actions": ["ec2:TerminateInstances", "ec2:StopInstances"], "resources": ["*"]},
            ]
        },
    )

    assert json.loads(result["json"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AssumeFromPods",
                "Effect": "Allow",
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/x"},
                "Condition": {"StringEquals": {"x:sub": "system:serviceaccount:a:b"}},
            },
            {"Effect": "Deny", "Action": ["ec2:TerminateInstances", "ec2:StopInstances"], "Resource": "*"},
        ],
    }
    assert json.loads(result["minifiedJson"]) == json.loads(result["json"])


def test_ssm_eks_ami_parameter_answers_with_an_ami_id() -> None:
    result = invoke(
        PlanMocks(),
        "aws:ssm/getParameter:getParameter",
        {"name": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"},
    )

    assert result["value"].startswith("ami-") and len(result["value"]) == 21


def test_subnets_are_deterministic_per_filter() -> None:
    args = {"filters": [{"name": "vpc-id", "values": ["vpc-1"]}]}

    first = invoke(PlanMocks(), "aws:ec2/getSubnets:getSubnets", args)["ids"]
    other = invoke(PlanMocks(), "aws:ec2/getSubnets:getSubnets", {"filters": [{"name": "vpc-id", "values": ["vpc-2"]}]})

    assert first == invoke(PlanMocks(), "aws:ec2/getSubnets:getSubnets", args)["ids"]
    assert len(first) == 3 and first != other["ids"]


def test_yaml_decode_returns_the_documents() -> None:
    text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu\n---\n---\napiVersion: v1\nkind: ConfigMap\n"

    result = invoke(PlanMocks(), "kubernetes:yaml:decode", {"text": text})

    assert [document["kind"] for document in result["result"]] == ["Namespace", "ConfigMap"]


def test_unknown_invoke_raises_naming_the_token() -> None:
    with pytest.raises(MissingMockError, match="'aws:ec2/getInstance:getInstance'") as raised:
        PlanMocks().call(MockCallArgs(token="aws:ec2/getInstance:getInstance", args={}, provider=""))
    assert raised.value.token == "aws:ec2/getInstance:getInstance"


def test_to_plain_masks_secrets_and_marks_unknowns_and_references() -> None:
    struct = struct_pb2.Struct()
    struct.update(
        {
            "password": {rpc._special_sig_key: rpc._special_secret_sig, "value": "hunter2"},
            "pending": rpc.UNKNOWN,
            "role": {rpc._special_sig_key: rpc._special_resource_sig, "urn": "urn:pulumi:s::p::aws:iam/role:Role::r"},
            "count": 3.0,
            "ratio": 0.5,
            "nothing": None,
        }
    )

    assert to_plain(struct) == {
        "count": 3,
        "password": SECRET,
        "pending": UNKNOWN,
        "ratio": 0.5,
        "role": "urn:pulumi:s::p::aws:iam/role:Role::r",
    }
    assert to_plain(struct, mask_secrets=False)["password"] == "hunter2"


def run(program: Any, config: dict[str, Any] | None = None) -> Plan:
    return run_program(program, project="proj", stack="dev", config=config or {})


def test_aks_credentials_decode_to_a_kubeconfig_for_the_cluster() -> None:
    def program() -> None:
        group = azure.resources.ResourceGroup("rg")
        cluster = azure.containerservice.ManagedCluster(
            "aks", resource_group_name=group.name, dns_prefix="gpu", location="westeurope"
        )
        azure.containerservice.AgentPool(
            "a100", resource_group_name=group.name, resource_name_=cluster.name, agent_pool_name="a100", count=1
        )
        credentials = azure.containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group.name, resource_name=cluster.name
        )
        pulumi.export("kubeconfig", credentials.kubeconfigs[0].value)
        pulumi.export("fqdn", cluster.fqdn)
        pulumi.export("oidcIssuer", cluster.oidc_issuer_profile.issuer_url)

    plan = run(program)

    kubeconfig = yaml.safe_load(base64.b64decode(plan.outputs["kubeconfig"]))
    assert kubeconfig["clusters"][0]["cluster"]["server"] == f"https://{plan.outputs['fqdn']}:443"
    assert plan.outputs["fqdn"].startswith("gpu-") and plan.outputs["fqdn"].endswith(".hcp.westeurope.azmk8s.io")
    assert plan.outputs["oidcIssuer"].startswith("https://westeurope.oic.prod-aks.azure.com/")
    assert {r.type for r in plan.resources} >= {"azure-native:containerservice:AgentPool"}


def test_gke_cluster_endpoint_and_ca_are_usable_for_a_kubeconfig() -> None:
    def program() -> None:
        cluster = gcp.container.Cluster("gke", location="us-east1", initial_node_count=1)
        account = gcp.serviceaccount.Account("nodes", account_id="gpu-nodes")
        gcp.container.NodePool(
            "a100",
            cluster=cluster.name,
            location="us-east1",
            node_config={"machine_type": "a2-highgpu-1g", "service_account": account.email},
        )
        pulumi.export("endpoint", cluster.endpoint)
        pulumi.export("ca", cluster.master_auth.cluster_ca_certificate)
        pulumi.export("token", gcp.organizations.get_client_config_output().access_token)

    plan = run(program, {"gcp:project": "ml-prod"})

    pool = next(r for r in plan.resources if r.name == "a100")
    assert pool.inputs["nodeConfig"]["serviceAccount"] == "gpu-nodes@ml-prod.iam.gserviceaccount.com"
    assert plan.outputs["endpoint"].count(".") == 3
    assert base64.b64decode(plan.outputs["ca"]).startswith(b"-----BEGIN CERTIFICATE-----")
    assert plan.outputs["token"] == SECRET


@pytest.fixture
def stock_mocks() -> Iterator[PlanMocks]:
    """PlanMocks under the SDK's own MockMonitor, the way component unit tests use them."""
    mocks = PlanMocks()
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)
    yield mocks


@pulumi.runtime.test
def test_plan_mocks_work_with_the_stock_mock_monitor(stock_mocks: PlanMocks) -> Any:
    role = aws.iam.Role("nodes", name="gpu-nodes", assume_role_policy="{}")
    config_map = k8s.core.v1.ConfigMap("cfg", metadata={"namespace": "gpu"}, data={"a": "b"})

    def check(values: list[Any]) -> None:
        arn, namespace = values
        assert arn == "arn:aws:iam::123456789012:role/gpu-nodes"
        assert namespace == "gpu"

    return pulumi.Output.all(role.arn, config_map.metadata.namespace).apply(check)


def test_monitor_closes_the_event_loops_it_gives_worker_threads() -> None:
    # The SDK's mock monitor makes a loop per worker thread and never closes it (noise on stderr at exit).
    monitor = PlanMonitor(PlanMocks({}))
    loops: list[Any] = []

    def worker() -> None:
        monitor._thread_loop()
        monitor._thread_loop()  # once per thread
        loops.append(asyncio.get_event_loop_policy().get_event_loop())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert [loop.is_closed() for loop in loops] == [False]

    monitor.close()

    assert [loop.is_closed() for loop in loops] == [True]


class _Group(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Group", name, None, opts)
        self.namespace = k8s.core.v1.Namespace(f"{name}-ns", opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})


def test_a_resource_renamed_by_an_alias_keeps_its_generated_names_as_under_pulumi_up() -> None:
    # The engine keeps an aliased resource's state (auto-names, ids); its children inherit the parent's alias.
    def before() -> None:
        role = aws.iam.Role("old", assume_role_policy="{}")
        pulumi.export("arn", role.arn)
        pulumi.export("namespace", _Group("team").namespace.metadata.name)

    def after() -> None:
        role = aws.iam.Role(
            "new", assume_role_policy="{}", opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(name="old")])
        )
        pulumi.export("arn", role.arn)
        group = _Group("team-a", pulumi.ResourceOptions(aliases=[pulumi.Alias(name="team")]))
        pulumi.export("namespace", group.namespace.metadata.name)

    old, new = (run_program(p, project="p", stack="dev", config={}) for p in (before, after))

    assert new.outputs == old.outputs
    assert str(old.outputs["namespace"]).startswith("team-ns-")
    assert {r.name for r in new.resources} == {"new", "team-a", "team-a-ns"}
