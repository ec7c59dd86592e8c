"""The lookups a platform team's own program makes, planned offline: the plan's mocks of the common invokes, the
program's own mocks in `gpu-components-mocks.yaml`, a pulumi-eks cluster's nested outputs, and errors that name the
program's line when an invoke has no mock or an SDK's `apply` fails.

Each test writes a small project (`Pulumi.yaml`, `__main__.py`, a stack file) into a temporary directory and plans it
with `run_project`, as `gpu-components plan dev -C <dir>` does.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pulumi
import pulumi.runtime
import pytest

from gpu_components.plan import MissingMockError, ProgramError, StackFileError, run_project
from gpu_components.plan.call_sites import CALL_SITE

STACK = """\
config:
  aws:region: eu-west-1
  gcp:project: ml-prod
  gcp:region: europe-west4
  azure-native:location: westeurope
"""


def plan(tmp_path: Path, program: str, mocks: str | None = None) -> dict[str, Any]:
    """The stack outputs of `program` planned as stack `dev` of a project in `tmp_path` (with `mocks` as its
    `gpu-components-mocks.yaml`)."""
    (tmp_path / "Pulumi.yaml").write_text("name: team\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(STACK)
    (tmp_path / "__main__.py").write_text(program)
    if mocks is not None:
        (tmp_path / "gpu-components-mocks.yaml").write_text(mocks)
    return dict(run_project(tmp_path, "dev").outputs)


def failure(tmp_path: Path, program: str, mocks: str | None = None) -> ProgramError:
    with pytest.raises(ProgramError) as raised:
        plan(tmp_path, program, mocks)
    return raised.value


# ------------------------------------------------------------------------------------------------ the plan's mocks


def test_availability_zones_partition_ami_and_ssm_parameter_are_in_the_stacks_region(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        """\
import pulumi
import pulumi_aws as aws

zones = aws.get_availability_zones(state="available", exclude_names=["eu-west-1c"])
pulumi.export("zones", {"names": zones.names, "ids": zones.zone_ids, "groups": zones.group_names})
partition = aws.get_partition()
pulumi.export("partition", [partition.partition, partition.dns_suffix, partition.reverse_dns_prefix])
ami = aws.ec2.get_ami(
    most_recent=True,
    owners=["amazon"],
    filters=[
        {"name": "name", "values": ["amazon-eks-node-al2023-arm64-nvidia-1.33-*"]},
        {"name": "architecture", "values": ["arm64"]},
    ],
)
pulumi.export("ami", [ami.id, ami.arn, ami.name, ami.architecture, ami.owner_id, ami.image_owner_alias, ami.state])
parameter = aws.ssm.get_parameter(
    name="/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
)
pulumi.export("ssm", [parameter.value, parameter.type, parameter.arn])
""",
    )
    ami_id = outputs["ami"][0]
    assert outputs == {
        "zones": {"names": ["eu-west-1a", "eu-west-1b"], "ids": ["euw1-az1", "euw1-az2"], "groups": ["eu-west-1"] * 2},
        "partition": ["aws", "amazonaws.com", "com.amazonaws"],
        "ami": [
            ami_id,
            f"arn:aws:ec2:eu-west-1::image/{ami_id}",
            "amazon-eks-node-al2023-arm64-nvidia-1.33-20250101",
            "arm64",
            "123456789012",
            "amazon",
            "available",
        ],
        "ssm": [
            "ami-e0bba38543574a111",
            "String",
            "arn:aws:ssm:eu-west-1::parameter/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/"
            "recommended/image_id",
        ],
    }
    assert ami_id.startswith("ami-") and len(ami_id) == 21


def test_zone_ids_follow_the_regions_short_name(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        "import pulumi, pulumi_aws as aws\n"
        "for region in ['us-east-1', 'ap-southeast-2', 'eu-central-1', 'us-gov-west-1']:\n"
        "    pulumi.export(region, aws.get_availability_zones(region=region).zone_ids[0])\n"
        "pulumi.export('gov', aws.get_partition().partition)\n",
    )
    assert outputs == {
        "us-east-1": "use1-az1",
        "ap-southeast-2": "apse2-az1",
        "eu-central-1": "euc1-az1",
        "us-gov-west-1": "usgw1-az1",
        "gov": "aws",
    }


def test_a_policy_document_is_rendered_as_the_provider_renders_it(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        """\
import pulumi
import pulumi_aws as aws

source = '{"Version": "2012-10-17", "Statement": [{"Sid": "Irsa", "Effect": "Deny", "Action": "s3:*"}]}'
document = aws.iam.get_policy_document(
    source_policy_documents=[source],
    statements=[
        {
            "actions": ["sts:AssumeRole", "sts:TagSession"],
            "principals": [{"type": "Service", "identifiers": ["ec2.amazonaws.com", "eks.amazonaws.com"]}],
        },
        {
            "sid": "Irsa",
            "actions": ["sts:AssumeRoleWithWebIdentity"],
            "principals": [{"type": "Federated", "identifiers": ["arn:aws:iam::123456789012:oidc-provider/x"]}],
            "conditions": [
                {"test": "StringEquals", "variable": "x:sub", "values": ["system:serviceaccount:gpu:app"]},
                {"test": "StringEquals", "variable": "x:aud", "values": ["sts.amazonaws.com"]},
            ],
        },
        aws.iam.GetPolicyDocumentStatementArgs(
            effect="Deny", not_actions=["iam:*"], resources=["*"], principals=[{"type": "*", "identifiers": ["*"]}]
        ),
    ],
)
pulumi.export("json", document.json)
pulumi.export("minified", document.minified_json)
pulumi.export("id", document.id)
""",
    )
    expected = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "Irsa",
                "Effect": "Allow",
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/x"},
                "Condition": {"StringEquals": {"x:aud": "sts.amazonaws.com", "x:sub": "system:serviceaccount:gpu:app"}},
            },
            {
                "Effect": "Allow",
                "Action": ["sts:TagSession", "sts:AssumeRole"],
                "Principal": {"Service": ["eks.amazonaws.com", "ec2.amazonaws.com"]},
            },
            {"Effect": "Deny", "NotAction": "iam:*", "Resource": "*", "Principal": "*"},
        ],
    }
    assert outputs["json"] == json.dumps(expected, indent=2)
    assert outputs["minified"] == json.dumps(expected, separators=(",", ":"))
    assert outputs["id"] == str(zlib.crc32(outputs["json"].encode()))  # the provider's id: CRC-32 of the JSON


def test_client_configs_and_zones_of_azure_and_google_cloud(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        """\
import pulumi
import pulumi_azure_native as azure_native
import pulumi_gcp as gcp

client = azure_native.authorization.get_client_config()
pulumi.export("azure", [client.subscription_id, client.tenant_id, client.client_id, client.object_id])
google = gcp.organizations.get_client_config()
pulumi.export("gcp", [google.id, google.project, google.region, google.zone])
pulumi.export("zones", gcp.compute.get_zones().names)
pulumi.export("us", gcp.compute.get_zones(region="us-central1", project="other").id)
""",
    )
    assert outputs == {
        "azure": [
            "00000000-0000-0000-0000-000000000000",
            "00000000-0000-0000-0000-000000000001",
            "00000000-0000-0000-0000-000000000002",
            "00000000-0000-0000-0000-000000000003",
        ],
        "gcp": [
            "projects/ml-prod/regions/europe-west4/zones/europe-west4-a",
            "ml-prod",
            "europe-west4",
            "europe-west4-a",
        ],
        "zones": ["europe-west4-a", "europe-west4-b", "europe-west4-c"],
        "us": "projects/other/regions/us-central1",
    }


# ------------------------------------------------------------------------------------------------ pulumi-eks


def test_a_pulumi_eks_clusters_nested_outputs_are_known(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        """\
import pulumi
import pulumi_eks as eks

subnets = ["subnet-1", "subnet-2"]
cluster = eks.Cluster("gpu", vpc_id="vpc-0a1b2c", private_subnet_ids=subnets, create_oidc_provider=True)
pulumi.export("core", [cluster.core.vpc_id, cluster.core.subnet_ids, cluster.core.private_subnet_ids])
config = cluster.eks_cluster.vpc_config
pulumi.export("vpcConfig", [config.vpc_id, config.subnet_ids, config.endpoint_public_access])
pulumi.export("eksSg", [cluster.eks_cluster.vpc_config.cluster_security_group_id, cluster.cluster_security_group_id])
pulumi.export("nodeSg", [cluster.node_security_group_id, cluster.node_security_group.id])
pulumi.export("sg", [cluster.cluster_security_group.id, cluster.core.cluster_security_group.id])
pulumi.export("role", cluster.core.cluster_iam_role.arn)
pulumi.export("clusterRole", cluster.eks_cluster.role_arn)
pulumi.export("server", cluster.kubeconfig["clusters"][0]["cluster"]["server"])
pulumi.export("endpoint", cluster.core.endpoint)
pulumi.export("oidc", [cluster.oidc_provider_arn, cluster.core.oidc_provider.url])
""",
    )
    endpoint = outputs["endpoint"]
    issuer_id = endpoint.removeprefix("https://").split(".")[0]
    eks_sg, node_sg = outputs["eksSg"][0], outputs["nodeSg"][0]
    assert outputs == {
        "core": ["vpc-0a1b2c", ["subnet-1", "subnet-2"], ["subnet-1", "subnet-2"]],
        "vpcConfig": ["vpc-0a1b2c", ["subnet-1", "subnet-2"], True],
        "eksSg": [eks_sg, outputs["sg"][0]],  # EKS's own group; pulumi-eks's (cluster_security_group)
        "nodeSg": [node_sg, node_sg],
        "sg": [outputs["sg"][0], outputs["sg"][0]],
        "role": outputs["clusterRole"],
        "clusterRole": outputs["role"],
        "server": endpoint,
        "endpoint": f"https://{issuer_id}.gr7.eu-west-1.eks.amazonaws.com",
        "oidc": [
            f"arn:aws:iam::123456789012:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/{issuer_id}",
            f"https://oidc.eks.eu-west-1.amazonaws.com/id/{issuer_id}",
        ],
    }
    assert outputs["role"].startswith("arn:aws:iam::123456789012:role/gpu-eksRole-")
    assert len({eks_sg, node_sg, outputs["sg"][0]}) == 3
    assert all(group.startswith("sg-") and len(group) == 20 for group in (eks_sg, node_sg, outputs["sg"][0]))


def test_without_a_vpc_the_cluster_is_in_a_default_vpcs_three_subnets(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        "import pulumi, pulumi_eks as eks\n"
        "cluster = eks.Cluster('gpu', skip_default_security_groups=True)\n"
        "pulumi.export('net', [cluster.core.vpc_id, cluster.core.subnet_ids, cluster.core.private_subnet_ids])\n"
        "pulumi.export('sg', [cluster.node_security_group_id, cluster.cluster_security_group_id])\n",
    )
    vpc, subnets, private = outputs["net"]
    assert vpc.startswith("vpc-") and len(vpc) == 21
    assert [len(subnet) for subnet in subnets] == [24, 24, 24] and private is None
    assert outputs["sg"][0] == outputs["sg"][1]  # no node group of its own: the nodes use EKS's cluster group


# ------------------------------------------------------------------------------------------------ the program's mocks


def test_the_programs_mocks_file_gives_invoke_results_and_resource_outputs(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        """\
import pulumi
import pulumi_aws as aws

parameter = aws.ssm.get_parameter(name="/team/gpu/ami")
database = aws.rds.Instance("db", instance_class="db.t3.micro", engine="postgres", allocated_storage=20)
zones = aws.get_availability_zones()
pulumi.export("ami", parameter.value)
pulumi.export("db", [database.endpoint, database.address, database.port])
pulumi.export("zones", zones.names)
""",
        mocks="""\
invokes:
  aws:ssm/getParameter:getParameter:
    value: ami-0123456789abcdef0
  aws:index/getAvailabilityZones:getAvailabilityZones:
    names: [eu-west-1b]
resources:
  aws:rds/instance:Instance:
    endpoint: db.internal:5432
    port: 5432
""",
    )
    assert outputs == {
        "ami": "ami-0123456789abcdef0",
        "db": ["db.internal:5432", "", 5432],
        "zones": ["eu-west-1b"],
    }


@pytest.mark.parametrize(
    ("mocks", "problem"),
    [
        (
            "invoke:\n  a:b:c: {}\nresource: {}\n",
            "unknown key(s) invoke, resource: the valid keys are invokes and resources",
        ),
        (
            "invokes:\n  getParameter:\n    value: x\n",
            "invokes: 'getParameter' is not a Pulumi token such as aws:ssm/getParameter:getParameter "
            "(<package>:<module>:<name>)",
        ),
        (
            "resources:\n  aws:rds/instance:Instance: db.internal\n",
            "resources.aws:rds/instance:Instance: the outputs of aws:rds/instance:Instance must be a mapping of "
            "property names to values (got 'db.internal')",
        ),
        ("invokes: [a]\n", "invokes must be a mapping of tokens (got ['a'])"),
    ],
    ids=["unknown-keys", "token", "outputs", "section"],
)
def test_a_malformed_mocks_file_is_one_error_naming_the_file_and_the_key(
    tmp_path: Path, mocks: str, problem: str
) -> None:
    with pytest.raises(StackFileError) as raised:
        plan(tmp_path, "raise AssertionError('the program must not run')\n", mocks)
    assert str(raised.value) == f"{tmp_path / 'gpu-components-mocks.yaml'}: {problem}"


# ------------------------------------------------------------------------------------------------ errors name the line


@pytest.mark.parametrize(
    ("call", "token"),
    [
        ("aws.ec2.get_instance(instance_id='i-0a1b')", "aws:ec2/getInstance:getInstance"),
        ("aws.ec2.get_instance_output(instance_id='i-0a1b')", "aws:ec2/getInstance:getInstance"),
        ("aws.ssm.get_parameter(name='/team/secret')", "aws:ssm/getParameter:getParameter"),
    ],
    ids=["plain", "output", "unguessable"],
)
def test_an_invoke_without_a_mock_names_the_token_the_programs_line_and_the_fix(
    tmp_path: Path, call: str, token: str
) -> None:
    (tmp_path / "lookups.py").write_text(f"import pulumi_aws as aws\n\n\ndef find():\n    return {call}\n")
    error = failure(tmp_path, "import pulumi\nimport lookups\n\nlookups.find()\n")
    detail = " (parameter '/team/secret', whose value only your account knows)" if "secret" in call else ""
    assert str(error) == (
        f"the program raised MissingMockError: no plan mock for invoke '{token}'{detail}: give what it returns under "
        'invokes: in gpu-components-mocks.yaml beside Pulumi.yaml (README, "Plan your own program") (at lookups.py:5)'
    )
    assert isinstance(error.error, MissingMockError)
    assert (error.file, error.line, error.in_program) == ("lookups.py", 5, True)


def test_an_sdk_apply_that_fails_names_the_programs_line(tmp_path: Path) -> None:
    error = failure(
        tmp_path,
        "import pulumi\nimport pulumi_aws as aws\n\n"
        "cluster = aws.eks.Cluster('c', role_arn='arn', vpc_config={'subnet_ids': ['a']})\n"
        "pulumi.export('ca', cluster.certificate_authority.data)\n",
    )
    assert (
        str(error) == "the program raised AttributeError: 'NoneType' object has no attribute 'data' (at __main__.py:5)"
    )
    assert (error.file, error.line, error.in_program) == ("__main__.py", 5, True)


def test_the_programs_mock_answers_an_invoke_the_plan_has_none_for(tmp_path: Path) -> None:
    outputs = plan(
        tmp_path,
        "import pulumi, pulumi_aws as aws\n"
        "pulumi.export('ip', aws.ec2.get_instance(instance_id='i-0a1b').private_ip)\n",
        mocks="invokes:\n  aws:ec2/getInstance:getInstance:\n    privateIp: 10.0.0.7\n",
    )
    assert outputs == {"ip": "10.0.0.7"}


def test_the_sdk_functions_are_wrapped_once_and_call_through_outside_a_plan(tmp_path: Path) -> None:
    plan(tmp_path, "import pulumi\npulumi.export('x', pulumi.Output.from_input(1).apply(lambda v: v + 1))\n")
    outputs = plan(tmp_path, "import pulumi\npulumi.export('x', pulumi.Output.from_input(1).apply(lambda v: v + 1))\n")
    assert outputs == {"x": 2}
    for wrapped in (pulumi.runtime.invoke, pulumi.runtime.invoke_output, pulumi.runtime.call, pulumi.Output.apply):
        original = getattr(wrapped, "__wrapped__", None)
        assert original is not None and not hasattr(original, "__wrapped__"), wrapped
    assert CALL_SITE.get() == ()


RDS_PROGRAM = """\
import pulumi
import pulumi_aws as aws

parameter = aws.ssm.get_parameter(name="/team/gpu/ami")
db = aws.rds.Instance("db", instance_class="db.t3.micro", engine="postgres", allocated_storage=20)
pulumi.export("ami", parameter.value)
pulumi.export("endpoint", db.endpoint)
"""
RDS_MOCKS = """\
invokes:
  aws:ssm/getParameter:getParameter: {value: ami-0123456789abcdef0}
resources:
  aws:rds/instance:Instance: {endpoint: "db.internal:5432"}
"""


def test_the_programs_mocks_answer_when_spelt_right(tmp_path: Path) -> None:
    assert plan(tmp_path, RDS_PROGRAM, RDS_MOCKS) == {"ami": "ami-0123456789abcdef0", "endpoint": "db.internal:5432"}


def test_a_misspelt_invoke_token_is_named_beside_the_missing_mock(tmp_path: Path) -> None:
    error = failure(tmp_path, RDS_PROGRAM, RDS_MOCKS.replace("getParameter:getParameter", "getParameter:getParamter"))
    assert isinstance(error.error, MissingMockError)
    assert error.error.detail == (
        "(parameter '/team/gpu/ami', whose value only your account knows) (gpu-components-mocks.yaml has "
        "'aws:ssm/getParameter:getParamter' under invokes: a misspelling?)"
    )
    assert error.line == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("instance:Instance", "instance:Instanse"),
            "resources: aws:rds/instance:Instanse: never used by the program; did you mean "
            "'aws:rds/instance:Instance'?",
        ),
        (
            ("{endpoint:", "{endpont:"),
            "resources: aws:rds/instance:Instance: endpont: not an output of pulumi_aws.rds.instance.Instance by "
            "Pulumi's camelCase names (did you mean 'endpoint'?)",
        ),
    ],
    ids=["resource type", "output name"],
)
def test_a_misspelt_resource_type_or_output_is_an_error_naming_it(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    with pytest.raises(StackFileError) as raised:
        plan(tmp_path, RDS_PROGRAM, RDS_MOCKS.replace(*change))
    assert raised.value.problem == message
