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

from gpu_components.aws.plan_mocks import launch_template_id
from gpu_components.azure.plan_mocks import AZURE_SUBSCRIPTION_ID as SUBSCRIPTION
from gpu_components.plan import SECRET, UNKNOWN, MissingMockError, Plan, PlanMocks, PlanMonitor, run_program
from gpu_components.plan.mock_kit import PLAN_TIMESTAMP, certificate_b64, uuid_of
from gpu_components.plan.mocks import computed_outputs, derived_outputs, to_plain

SCALING = {"desired_size": 1, "max_size": 1, "min_size": 0}


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


def test_iam_role_gets_an_auto_name_and_a_global_arn_from_its_urn() -> None:
    role_id, state = new(PlanMocks(), "aws:iam/role:Role", "nodes", {"assumeRolePolicy": "{}"})

    suffix = hex_of(ambient_urn("aws:iam/role:Role", "nodes"), 7)
    assert (role_id, state) == (
        f"nodes-{suffix}",
        {"assumeRolePolicy": "{}", "name": f"nodes-{suffix}", "arn": f"arn:aws:iam::123456789012:role/nodes-{suffix}"},
    )


def test_iam_role_keeps_an_explicit_name_and_path() -> None:
    _, state = new(PlanMocks(), "aws:iam/role:Role", "nodes", {"name": "gpu-nodes", "path": "/eks/"})

    assert state["arn"] == "arn:aws:iam::123456789012:role/eks/gpu-nodes"


def test_outputs_are_deterministic() -> None:
    inputs = {"clusterName": "gpu", "nodeRoleArn": "arn:aws:iam::123456789012:role/r"}

    first = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", inputs)
    second = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", inputs)

    assert first == second


def test_node_group_names_its_auto_scaling_group() -> None:
    node_group_id, state = new(PlanMocks(), "aws:eks/nodeGroup:NodeGroup", "a100", {"clusterName": "gpu"})

    urn = ambient_urn("aws:eks/nodeGroup:NodeGroup", "a100")
    name, suffix = f"a100-{hex_of(urn, 7)}", uuid_of(urn)
    assert (node_group_id, state) == (
        f"gpu:{name}",
        {
            "clusterName": "gpu",
            "nodeGroupName": name,
            "arn": f"arn:aws:eks:us-west-2:123456789012:nodegroup/gpu/{name}/{suffix}",
            "resources": [{"autoscalingGroups": [{"name": f"eks-{name}-{suffix}"}]}],
        },
    )


def test_launch_template_has_an_ec2_id_and_version_one() -> None:
    template_id, state = new(PlanMocks({"aws:region": "eu-west-1"}), "aws:ec2/launchTemplate:LaunchTemplate", "lt", {})

    lt_id = f"lt-{hex_of(ambient_urn('aws:ec2/launchTemplate:LaunchTemplate', 'lt'), 17)}"
    assert template_id == lt_id == launch_template_id(ambient_urn("aws:ec2/launchTemplate:LaunchTemplate", "lt"))
    assert state == {
        "arn": f"arn:aws:ec2:eu-west-1:123456789012:launch-template/{lt_id}",
        "latestVersion": 1,
        "defaultVersion": 1,
    }


def test_region_and_account_invokes_answer_the_stack_region_and_the_mocked_account() -> None:
    mocks = PlanMocks({"aws:region": "eu-west-1"})
    assert invoke(mocks, "aws:index/getRegion:getRegion", {})["region"] == "eu-west-1"
    assert invoke(mocks, "aws:index/getCallerIdentity:getCallerIdentity", {})["accountId"] == "123456789012"


def test_sqs_queue_is_known_by_its_url_and_has_an_arn_without_a_resource_type() -> None:
    url, state = new(PlanMocks({"aws:region": "eu-west-1"}), "aws:sqs/queue:Queue", "q", {"name": "demo"})

    assert url == "https://sqs.eu-west-1.amazonaws.com/123456789012/demo"
    assert state == {"name": "demo", "url": url, "arn": "arn:aws:sqs:eu-west-1:123456789012:demo"}


@pytest.mark.parametrize(
    ("typ", "name", "expected_id", "arn_resource"),
    [
        ("aws:ec2/vpc:Vpc", "net", "vpc-{hex17}", "vpc/vpc-{hex17}"),
        ("aws:eks/addon:Addon", "a", "a-{hex7}", "addon/a-{hex7}"),
        ("aws:autoscaling/tag:Tag", "t", "t-{hex7}", "tag/t-{hex7}"),
    ],
)
def test_any_aws_resource_gets_its_id_and_an_arn_in_its_service(
    typ: str, name: str, expected_id: str, arn_resource: str
) -> None:
    resource_id, state = new(PlanMocks(), typ, name, {})

    urn = ambient_urn(typ, name)
    values = {"hex17": hex_of(urn, 17), "hex7": hex_of(urn, 7)}
    service = typ.split(":")[1].split("/")[0]
    assert resource_id == expected_id.format(**values)
    assert state == {"arn": f"arn:aws:{service}:us-west-2:123456789012:{arn_resource.format(**values)}"}


def test_kubernetes_object_is_auto_named_with_eight_hex_characters_in_default_namespace() -> None:
    object_id, state = new(PlanMocks(), "kubernetes:core/v1:ConfigMap", "cfg", {"data": {"a": "b"}})

    urn = ambient_urn("kubernetes:core/v1:ConfigMap", "cfg")
    name = f"cfg-{hex_of(urn, 8)}"
    assert object_id == f"default/{name}"
    assert state == {
        "data": {"a": "b"},
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": uuid_of(urn),
            "resourceVersion": "1",
            "generation": 1,
            "creationTimestamp": PLAN_TIMESTAMP,
        },
    }


@pytest.mark.parametrize(
    "typ",
    [
        "kubernetes:core/v1:Namespace",
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
        "kubernetes:nvidia.com/v1:ClusterPolicy",
    ],
)
def test_cluster_scoped_kubernetes_objects_have_no_namespace(typ: str) -> None:
    object_id, state = new(PlanMocks(), typ, "x", {"metadata": {"name": "x"}})

    assert (object_id, sorted(state["metadata"])) == (
        "x",
        ["creationTimestamp", "generation", "name", "resourceVersion", "uid"],
    )


def test_helm_release_is_auto_named_in_its_namespace() -> None:
    release_id, state = new(
        PlanMocks(), "kubernetes:helm.sh/v3:Release", "dp", {"chart": "nvidia-device-plugin", "namespace": "nvidia"}
    )

    name = f"dp-{hex_of(ambient_urn('kubernetes:helm.sh/v3:Release', 'dp'), 8)}"
    assert (release_id, state) == (
        f"nvidia/{name}",
        {"chart": "nvidia-device-plugin", "namespace": "nvidia", "name": name},
    )


def test_local_component_gets_its_inputs_back() -> None:
    assert new(PlanMocks(), "test:index:Pool", "p", {"a": 1}, custom=False) == ("", {"a": 1})


def test_gcp_service_account_email_is_in_the_configured_project() -> None:
    account_id, state = new(
        PlanMocks({"gcp:project": "ml-prod"}), "gcp:serviceaccount/account:Account", "sa", {"accountId": "gpu-nodes"}
    )

    email = "gpu-nodes@ml-prod.iam.gserviceaccount.com"
    assert (account_id, state) == (
        f"projects/ml-prod/serviceAccounts/{email}",
        {
            "accountId": "gpu-nodes",
            "email": email,
            "member": f"serviceAccount:{email}",
            "name": f"projects/ml-prod/serviceAccounts/{email}",
            "project": "ml-prod",
        },
    )


@pytest.mark.parametrize(
    ("typ", "inputs", "expected_id"),
    [
        (
            "gcp:container/nodePool:NodePool",
            {"cluster": "projects/p/locations/us-east1/clusters/gke", "location": "us-east1", "project": "p"},
            "projects/p/locations/us-east1/clusters/gke/nodePools/{name}",
        ),
        ("gcp:projects/iAMMember:IAMMember", {"project": "p"}, "projects/p/iamMembers/{name}"),
    ],
)
def test_any_gcp_resource_gets_its_id_name_and_self_link(typ: str, inputs: dict[str, Any], expected_id: str) -> None:
    resource_id, state = new(PlanMocks(), typ, "x", inputs)

    name = f"x-{hex_of(ambient_urn(typ, 'x'), 7)}"
    module = typ.split(":")[1].split("/")[0]
    assert resource_id == expected_id.format(name=name)
    assert state == {
        **inputs,
        "name": name,
        "project": "p",
        "selfLink": f"https://www.googleapis.com/{module}/v1/{resource_id}",
    }


def test_azure_resources_get_arm_ids_names_and_the_stack_location() -> None:
    mocks = PlanMocks({"azure-native:location": "westeurope"})
    group_id, group = new(mocks, "azure-native:resources:ResourceGroup", "rg", {})
    pool_id, pool = new(
        mocks, "azure-native:containerservice:AgentPool", "a100", {"resourceGroupName": "rg", "resourceName": "aks"}
    )

    group_name = f"rg-{hex_of(ambient_urn('azure-native:resources:ResourceGroup', 'rg'), 8)}"
    assert (group_id, group) == (
        f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{group_name}",
        {"resourceGroupName": group_name, "name": group_name, "location": "westeurope"},
    )
    pool_name = f"a100-{hex_of(ambient_urn('azure-native:containerservice:AgentPool', 'a100'), 8)}"
    assert pool_id == (
        f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks/"
        f"agentPools/{pool_name}"
    )
    assert pool == {"resourceGroupName": "rg", "resourceName": "aks", "agentPoolName": pool_name, "name": pool_name}


def test_new_resource_records_every_registration() -> None:
    mocks = PlanMocks()
    new(mocks, "test:index:Pool", "p", {}, custom=False)
    new(mocks, "aws:iam/role:Role", "r", {})

    assert [(args.typ, args.custom) for args in mocks.registrations] == [
        ("test:index:Pool", False),
        ("aws:iam/role:Role", True),
    ]


def test_default_vpc_and_its_subnets_are_derived_from_the_arguments() -> None:
    args = {"filters": [{"name": "vpc-id", "values": ["vpc-1"]}]}
    seed = "aws:ec2/getSubnets:getSubnets" + json.dumps(args, sort_keys=True)

    assert invoke(PlanMocks(), "aws:ec2/getSubnets:getSubnets", args) == {
        "id": "us-west-2",
        "ids": [f"subnet-{hex_of(seed + str(n), 17)}" for n in range(3)],
    }
    vpc_id = f"vpc-{hex_of('aws:ec2/getVpc:getVpc' + json.dumps({'default': True}), 17)}"
    assert invoke(PlanMocks(), "aws:ec2/getVpc:getVpc", {"default": True}) == {
        "id": vpc_id,
        "arn": f"arn:aws:ec2:us-west-2:123456789012:vpc/{vpc_id}",
    }


def test_an_existing_eks_cluster_has_an_endpoint_and_ca_from_its_name() -> None:
    result = invoke(PlanMocks({"aws:region": "eu-west-1"}), "aws:eks/getCluster:getCluster", {"name": "prod"})

    endpoint_id = hex_of("eks-cluster/prod" + "endpoint", 32).upper()
    assert result == {
        "id": "prod",
        "name": "prod",
        "arn": "arn:aws:eks:eu-west-1:123456789012:cluster/prod",
        "endpoint": f"https://{endpoint_id}.gr7.eu-west-1.eks.amazonaws.com",
        "certificateAuthorities": [{"data": certificate_b64("eks-cluster/prod")}],
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.eu-west-1.amazonaws.com/id/{endpoint_id}"}]}],
    }


def test_an_existing_gke_cluster_has_an_endpoint_and_ca_from_its_location_and_name() -> None:
    result = invoke(PlanMocks(), "gcp:container/getCluster:getCluster", {"name": "prod", "location": "us-east4"})

    assert result == {
        "id": "projects/gpu-components-plan/locations/us-east4/clusters/prod",
        "name": "prod",
        "location": "us-east4",
        "endpoint": "34.65.58.89",
        "masterAuths": [{"clusterCaCertificate": certificate_b64("gke-cluster/us-east4/prod")}],
    }


def test_unknown_invoke_raises_naming_the_token() -> None:
    with pytest.raises(MissingMockError, match="'aws:ec2/getInstance:getInstance'") as raised:
        PlanMocks().call(MockCallArgs(token="aws:ec2/getInstance:getInstance", args={}, provider=""))
    assert raised.value.token == "aws:ec2/getInstance:getInstance"


def test_preview_gives_a_new_resource_no_id_and_unknown_computed_outputs_without_its_class() -> None:
    # Without the SDK class (the stock monitor runs no stack transformation), the computed outputs are those the mock
    # adds that are not inputs; the auto-name is known, as the provider names a resource before creating it.
    role_id, state = new(PlanMocks(preview=True), "aws:iam/role:Role", "r", {"path": "/x/"})

    name = f"r-{hex_of(ambient_urn('aws:iam/role:Role', 'r'), 7)}"
    assert (role_id, state) == ("", {"name": name, "path": "/x/", "arn": rpc.UNKNOWN})


def test_computed_outputs_are_the_sdk_classs_outputs_that_are_not_inputs() -> None:
    assert computed_outputs(aws.iam.Role) == {"arn", "createDate", "tagsAll", "uniqueId"}
    assert computed_outputs(aws.eks.NodeGroup) == {"arn", "resources", "status", "tagsAll"}
    assert computed_outputs(k8s.apps.v1.Deployment) == {"status"}
    assert computed_outputs(pulumi.ComponentResource) == frozenset()


def test_outputs_nothing_reads_are_derived_from_their_types() -> None:
    def program() -> None:
        group = aws.eks.NodeGroup(
            "g", cluster_name="gpu", node_role_arn="arn", subnet_ids=["s"], scaling_config=SCALING
        )
        pulumi.export("status", group.status)  # a string nothing here reads
        pulumi.export("tagsAll", group.tags_all)  # a map
        pulumi.export("asg", group.resources[0].autoscaling_groups[0].name)  # mocked: the autoscaler's tags read it

    outputs = run(program).outputs

    urn = "urn:pulumi:dev::proj::aws:eks/nodeGroup:NodeGroup::g"
    assert outputs == {"status": "", "tagsAll": {}, "asg": f"eks-g-{hex_of(urn, 7)}-{uuid_of(urn)}"}
    assert derived_outputs(aws.eks.NodeGroup) == {"arn": "", "resources": [], "status": "", "tagsAll": {}}


def test_a_remote_component_without_a_mock_gets_outputs_from_its_class() -> None:
    def program() -> None:
        chart = k8s.helm.v4.Chart("gpu-operator", chart="gpu-operator", repository_opts={"repo": "https://x"})
        pulumi.export("resources", chart.resources)

    assert run(program).outputs == {"resources": []}


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

    plan = run(program)

    kubeconfig = yaml.safe_load(base64.b64decode(plan.outputs["kubeconfig"]))
    assert kubeconfig["clusters"][0]["cluster"]["server"] == f"https://{plan.outputs['fqdn']}:443"
    group = f"rg-{hex_of('urn:pulumi:dev::proj::azure-native:resources:ResourceGroup::rg', 8)}"
    name = f"aks-{hex_of('urn:pulumi:dev::proj::azure-native:containerservice:ManagedCluster::aks', 8)}"
    assert plan.outputs["fqdn"] == f"gpu-{hex_of(f'{group}/{name}', 8)}.hcp.westeurope.azmk8s.io"
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

    plan = run(program, {"gcp:project": "ml-prod"})

    pool = next(r for r in plan.resources if r.name == "a100")
    assert pool.inputs["nodeConfig"]["serviceAccount"] == "gpu-nodes@ml-prod.iam.gserviceaccount.com"
    urn = "urn:pulumi:dev::proj::gcp:container/cluster:Cluster::gke"
    octets = bytes.fromhex(hex_of(urn, 6))
    assert plan.outputs == {"endpoint": f"34.{octets[0]}.{octets[1]}.{max(octets[2], 1)}", "ca": certificate_b64(urn)}
    assert base64.b64decode(plan.outputs["ca"]).startswith(b"-----BEGIN CERTIFICATE-----\n")


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
