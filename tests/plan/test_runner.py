"""Tests for gpu_components.plan.runner: running programs under the plan mocks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure_native
import pulumi_eks as eks
import pulumi_kubernetes as k8s
import pytest
from pulumi.runtime import settings

from gpu_components.plan import (
    SECRET,
    UNKNOWN,
    DuplicateResourceError,
    MissingMockError,
    Plan,
    PlannedResource,
    StackFileError,
    StackNotFoundError,
    flatten_config,
    load_stack,
    run_program,
    stack_config_dir,
)

PROJECT = "proj"
STACK = "dev"
ASSUME_EC2 = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "ec2.amazonaws.com"}}],
    }
)


class Pool(pulumi.ComponentResource):
    """A throwaway component: a role, and an instance profile created once the role's ARN is known."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Pool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(f"{name}-role", assume_role_policy=ASSUME_EC2, opts=child)
        self.profile = self.role.arn.apply(
            lambda arn: aws.iam.InstanceProfile(f"{name}-profile", role=arn.rsplit("/", 1)[-1], opts=child)
        )
        self.register_outputs({"roleArn": self.role.arn})


def pool_program() -> None:
    pool = Pool("gpu")
    pulumi.export("roleArn", pool.role.arn)


def run(program: Any, config: dict[str, Any] | None = None, *, preview: bool = False) -> Plan:
    return run_program(program, project=PROJECT, stack=STACK, config=config or {}, preview=preview)


def by_name(plan: Plan) -> dict[str, PlannedResource]:
    return {resource.name: resource for resource in plan.resources}


def test_component_and_its_children_are_recorded_with_parents() -> None:
    resources = by_name(run(pool_program))

    assert set(resources) == {"gpu", "gpu-role", "gpu-profile"}
    component = resources["gpu"]
    assert (component.type, component.custom, component.parent) == ("test:index:Pool", False, None)
    assert component.urn == "urn:pulumi:dev::proj::test:index:Pool::gpu"
    assert resources["gpu-role"].parent == component.urn
    assert resources["gpu-role"].urn == "urn:pulumi:dev::proj::test:index:Pool$aws:iam/role:Role::gpu-role"


def test_resource_created_inside_apply_is_recorded() -> None:
    profile = by_name(run(pool_program))["gpu-profile"]

    assert profile.type == "aws:iam/instanceProfile:InstanceProfile"
    assert profile.parent == "urn:pulumi:dev::proj::test:index:Pool::gpu"
    assert profile.inputs == {"role": f"gpu-role-{_role_suffix()}"}


def test_preview_leaves_a_new_resources_id_and_computed_outputs_unknown_and_runs_no_apply_on_them() -> None:
    plan = run(pool_program, preview=True)

    # The role's ARN is computed (an output of aws.iam.Role that is not an input): unknown, so the instance profile
    # that the apply on it would create is not created, as in `pulumi preview` of a new stack.
    assert sorted(by_name(plan)) == ["gpu", "gpu-role"]
    assert plan.outputs == {"roleArn": UNKNOWN}


def test_preview_keeps_inputs_and_auto_names_known_and_leaves_components_alone() -> None:
    def program() -> None:
        role = aws.iam.Role("r", assume_role_policy=ASSUME_EC2, path="/gpu/")
        group = pulumi.ComponentResource("test:index:Group", "g")
        group.register_outputs({"fixed": "value"})
        pulumi.export("name", role.name)  # an input the provider fills in (auto-name): known before creation
        pulumi.export("path", role.path)  # an input given
        pulumi.export("id", role.id)
        pulumi.export("uniqueId", role.unique_id)
        pulumi.export("tagsAll", role.tags_all)
        pulumi.export("group", group.urn)

    plan = run(program, preview=True)

    assert plan.outputs == {
        "name": f"r-{hashlib.sha256(b'urn:pulumi:dev::proj::aws:iam/role:Role::r').hexdigest()[:7]}",
        "path": "/gpu/",
        "id": UNKNOWN,
        "uniqueId": UNKNOWN,
        "tagsAll": UNKNOWN,
        "group": "urn:pulumi:dev::proj::test:index:Group::g",
    }


def test_a_secret_that_is_unknown_reads_unknown() -> None:
    def program() -> None:
        role = aws.iam.Role("r", assume_role_policy=ASSUME_EC2)
        k8s.Provider("k", kubeconfig=pulumi.Output.secret(role.arn))
        pulumi.export("secretArn", pulumi.Output.secret(role.arn))

    plan = run(program, preview=True)

    assert by_name(plan)["k"].inputs == {"kubeconfig": UNKNOWN}
    assert plan.outputs == {"secretArn": UNKNOWN}
    assert by_name(run(program))["k"].inputs == {"kubeconfig": SECRET}


def test_preview_reads_an_existing_resource_with_known_outputs() -> None:
    def program() -> None:
        role = aws.iam.Role.get("existing", "gpu-nodes")
        pulumi.export("arn", role.arn)
        pulumi.export("uniqueId", role.unique_id)

    # The ARN is the role's identity; its unique id, which nothing here reads, is derived from its type (a string).
    expected = {"arn": "arn:aws:iam::123456789012:role/gpu-nodes", "uniqueId": ""}
    assert run(program, preview=True).outputs == run(program).outputs == expected


def _role_suffix() -> str:
    """The auto-name suffix of `gpu-role`: 7 hex characters of its URN's SHA-256."""
    urn = "urn:pulumi:dev::proj::test:index:Pool$aws:iam/role:Role::gpu-role"
    return hashlib.sha256(urn.encode()).hexdigest()[:7]


def test_resources_are_sorted_by_urn() -> None:
    plan = run(pool_program)

    assert [r.urn for r in plan.resources] == sorted(r.urn for r in plan.resources)


def test_inputs_are_recorded_as_the_engine_sees_them() -> None:
    role = by_name(run(pool_program))["gpu-role"]

    assert role.inputs == {"assumeRolePolicy": ASSUME_EC2}
    assert role.custom is True


def test_stack_exports_are_recorded() -> None:
    plan = run(pool_program)

    assert plan.outputs == {"roleArn": f"arn:aws:iam::123456789012:role/gpu-role-{_role_suffix()}"}
    assert (plan.project, plan.stack) == (PROJECT, STACK)


def test_structured_config_is_readable_with_require_object() -> None:
    def program() -> None:
        cluster = pulumi.Config().require_object("cluster")
        pulumi.export("pools", cluster["pools"])
        pulumi.export("region", pulumi.Config("aws").require("region"))
        pulumi.export("spot", pulumi.Config().require_bool("spot"))

    config = {"cluster": {"pools": [{"name": "a100", "count": 2}]}, "aws:region": "eu-west-1", "spot": True}
    plan = run(program, config)

    assert plan.outputs == {"pools": [{"count": 2, "name": "a100"}], "region": "eu-west-1", "spot": True}


def test_secret_config_is_masked_in_inputs_and_outputs() -> None:
    def program() -> None:
        token = pulumi.Config().require_secret("token")
        k8s.core.v1.Secret("creds", string_data={"token": token})
        pulumi.export("token", token)
        pulumi.export("plain", pulumi.Output.secret("also hidden"))

    plan = run(program, {"token": {"secure": "AAABAKd2tDcwJ0u3"}})

    assert by_name(plan)["creds"].inputs["stringData"] == SECRET
    assert plan.outputs == {"plain": SECRET, "token": SECRET}
    assert "AAABAKd2tDcwJ0u3" not in repr(plan)


def test_exception_in_program_propagates_unchanged() -> None:
    error = ValueError("pool 'a100': gpu_count must be >= 1 (got 0)")

    def program() -> None:
        aws.iam.Role("r", assume_role_policy=ASSUME_EC2)
        raise error

    with pytest.raises(ValueError) as raised:
        run(program)
    assert raised.value is error


def test_exception_in_apply_propagates_unchanged() -> None:
    error = KeyError("raised inside apply")

    def fail(_: str) -> None:
        raise error

    def program() -> None:
        aws.iam.Role("r", assume_role_policy=ASSUME_EC2).arn.apply(fail)

    with pytest.raises(KeyError) as raised:
        run(program)
    assert raised.value is error
    run(program, preview=True)  # the ARN is unknown in preview: the apply does not run


def test_unknown_invoke_raises_an_error_naming_the_token() -> None:
    def program() -> None:
        aws.ec2.get_instance(instance_id="i-0123456789abcdef0")

    with pytest.raises(MissingMockError, match=r"invoke 'aws:ec2/getInstance:getInstance'"):
        run(program)


def test_unknown_invoke_in_an_output_raises_too() -> None:
    def program() -> None:
        pulumi.export("arn", aws.ec2.get_instance_output(instance_id="i-0123456789abcdef0").arn)

    with pytest.raises(MissingMockError, match="aws:ec2/getInstance:getInstance"):
        run(program)


def test_runs_do_not_share_resources_or_config() -> None:
    def first() -> None:
        aws.iam.Role("only-in-first", assume_role_policy=ASSUME_EC2)

    def second() -> None:
        pulumi.export("leaked", pulumi.Config().get("flag") or "none")

    run(first, {"flag": "set"})
    plan = run(second)

    assert plan.resources == ()
    assert plan.outputs == {"leaked": "none"}


def test_run_leaves_the_callers_pulumi_state_alone() -> None:
    root_before = settings.get_root_resource()
    monitor_before = settings.get_monitor()
    config_before = dict(pulumi.runtime.config.CONFIG.get())

    run(pool_program)

    assert settings.get_root_resource() is root_before
    assert settings.get_monitor() is monitor_before
    assert pulumi.runtime.config.CONFIG.get() == config_before


def test_runs_can_be_repeated_in_one_process() -> None:
    plans = [run(pool_program) for _ in range(3)]

    assert plans[0] == plans[1] == plans[2]


def eks_program() -> None:
    cluster = eks.Cluster(
        "gpu",
        vpc_id="vpc-0a1b2c3d4e5f67890",
        subnet_ids=["subnet-0a1b2c3d4e5f67890", "subnet-0f9e8d7c6b5a43210"],
        skip_default_node_group=True,
        create_oidc_provider=True,
    )
    provider = k8s.Provider("gpu-k8s", kubeconfig=cluster.kubeconfig_json)
    cluster.core.oidc_provider.arn.apply(
        lambda arn: k8s.core.v1.ConfigMap(
            "irsa", data={"oidcProviderArn": arn}, opts=pulumi.ResourceOptions(provider=provider)
        )
    )
    pulumi.export("clusterName", cluster.eks_cluster.name)
    pulumi.export("endpoint", cluster.core.endpoint)
    pulumi.export("kubeconfig", cluster.get_kubeconfig(profile_name="gpu"))


def test_pulumi_eks_cluster_outputs_are_usable() -> None:
    plan = run(eks_program, {"aws:region": "us-east-1"})
    resources = by_name(plan)

    cluster = resources["gpu"]
    assert (cluster.type, cluster.custom) == ("eks:index:Cluster", False)
    assert cluster.inputs["skipDefaultNodeGroup"] is True
    assert plan.outputs["clusterName"].startswith("gpu-eksCluster-")
    assert plan.outputs["endpoint"].endswith(".gr7.us-east-1.eks.amazonaws.com")
    irsa = resources["irsa"].inputs["data"]["oidcProviderArn"]
    assert irsa.startswith("arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/")
    kubeconfig = json.loads(plan.outputs["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["exec"]["env"][-1] == {"name": "AWS_PROFILE", "value": "gpu"}
    assert (
        json.loads(resources["gpu-k8s"].inputs["kubeconfig"])["clusters"][0]["cluster"]["server"]
        == (plan.outputs["endpoint"])
    )


def test_pulumi_eks_cluster_outputs_are_unknown_in_preview() -> None:
    plan = run(eks_program, {"aws:region": "us-east-1"}, preview=True)
    resources = by_name(plan)

    # Every output of the remote component is computed: the kubeconfig-fed provider reads unknown, the ConfigMap made
    # in an apply on the OIDC provider's ARN is not created, and the get_kubeconfig call waits for the cluster.
    assert sorted(resources) == ["gpu", "gpu-k8s"]
    assert resources["gpu-k8s"].inputs == {"kubeconfig": UNKNOWN}
    assert plan.outputs == {"clusterName": UNKNOWN, "endpoint": UNKNOWN, "kubeconfig": UNKNOWN}


def test_remote_component_children_are_not_in_the_plan() -> None:
    plan = run(eks_program)

    assert {r.type for r in plan.resources} == {
        "eks:index:Cluster",
        "kubernetes:core/v1:ConfigMap",
        "pulumi:providers:kubernetes",
    }


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_load_stack_reads_project_name_and_namespaced_config(tmp_path: Path) -> None:
    write(tmp_path / "Pulumi.yaml", "name: gpu-components\nruntime: python\nstackConfigDir: stacks\n")
    write(
        tmp_path / "stacks" / "Pulumi.aws-eks.yaml",
        "config:\n  aws:region: us-west-2\n  cluster:\n    name: gpu\n  gpu-components:token:\n    secure: AAAB\n",
    )

    project, config = load_stack(tmp_path, "aws-eks")

    assert project == "gpu-components"
    assert config == {
        "aws:region": "us-west-2",
        "gpu-components:cluster": {"name": "gpu"},
        "gpu-components:token": {"secure": "AAAB"},
    }


def test_load_stack_applies_project_defaults_under_the_stack_file(tmp_path: Path) -> None:
    write(
        tmp_path / "Pulumi.yaml",
        "name: p\nruntime: python\nconfig:\n  gpuStack:\n    type: string\n    default: auto\n"
        "  spot:\n    default: false\n  note:\n    type: string\n",
    )
    write(tmp_path / "Pulumi.dev.yaml", "config:\n  p:spot: true\n")

    assert load_stack(tmp_path, "dev") == ("p", {"p:gpuStack": "auto", "p:spot": True})


def test_load_stack_lists_available_stacks_when_missing(tmp_path: Path) -> None:
    write(tmp_path / "Pulumi.yaml", "name: p\nruntime: python\nstackConfigDir: stacks\n")
    write(tmp_path / "stacks" / "Pulumi.aws-eks.yaml", "config: {}\n")
    write(tmp_path / "stacks" / "Pulumi.gcp-gke.yaml", "config: {}\n")

    with pytest.raises(FileNotFoundError, match=r"available stacks: aws-eks, gcp-gke") as raised:
        load_stack(tmp_path, "azure")
    assert isinstance(raised.value, StackNotFoundError)
    assert raised.value.available == ["aws-eks", "gcp-gke"]


def test_load_stack_without_project_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"Pulumi\.yaml"):
        load_stack(tmp_path, "dev")


@pytest.mark.parametrize(
    ("stack_text", "problem"),
    [
        ("config:\n  a: b: c\n", "not valid YAML: mapping values are not allowed here (line 2, column 7)"),
        (
            "config:\n  - a\n  b: 1\n",
            "not valid YAML: while parsing a block collection (line 2, column 3): "
            "expected <block end>, but found '?' (line 3, column 3)",
        ),
        ("config: 5\n", "config must be a mapping of config keys to values (got 5)"),
        ("config: [a, b]\n", "config must be a mapping of config keys to values (got a list of 2 item(s))"),
        ("- a\n- b\n", "must be a YAML mapping of top-level keys (got a list of 2 item(s))"),
        (
            "a: \x07\n",
            "not valid YAML: character #x0007 at position 3 is not allowed (special characters are not allowed)",
        ),
        ("just text\n", "must be a YAML mapping of top-level keys (got 'just text')"),
        (
            "config:\n  5: x\n",
            "config keys must be strings such as aws:region or cluster (got 5 of type int)",
        ),
        (b"config:\n  a: \xff\n", "not valid YAML: byte #xff at position 13 is not utf-8 (invalid start byte)"),
    ],
)
def test_load_stack_rejects_a_malformed_stack_file(tmp_path: Path, stack_text: str | bytes, problem: str) -> None:
    write(tmp_path / "Pulumi.yaml", "name: p\nstackConfigDir: stacks\n")
    stack_file = tmp_path / "stacks" / "Pulumi.bad.yaml"
    write(stack_file, "")
    if isinstance(stack_text, bytes):
        stack_file.write_bytes(stack_text)
    else:
        stack_file.write_text(stack_text)

    with pytest.raises(StackFileError) as raised:
        load_stack(tmp_path, "bad")
    assert raised.value.path == stack_file
    assert str(raised.value).startswith(f"{stack_file}: {problem}")
    assert isinstance(raised.value, ValueError)


def test_load_stack_reads_an_empty_stack_file_and_a_null_config_as_no_config(tmp_path: Path) -> None:
    write(tmp_path / "Pulumi.yaml", "name: p\n")
    write(tmp_path / "Pulumi.empty.yaml", "")
    write(tmp_path / "Pulumi.null.yaml", "config:\n")
    assert load_stack(tmp_path, "empty") == ("p", {})
    assert load_stack(tmp_path, "null") == ("p", {})


@pytest.mark.parametrize(
    ("project_text", "problem"),
    [
        ("name: [p\n", "not valid YAML: while parsing a flow sequence (line 1, column 7): expected ',' or ']'"),
        ("- name\n", "must be a YAML mapping of top-level keys (got a list of 1 item(s))"),
        ("runtime: python\n", "name must be the project name, a non-empty string (it is missing)"),
        ("name: 5\n", "name must be the project name, a non-empty string (got 5)"),
        (
            "name: p\nstackConfigDir: [a]\n",
            "stackConfigDir must be a directory path relative to the project (got ['a'])",
        ),
        ("name: p\nconfig: yes\n", "config must be a mapping of config keys to values (got 'yes')"),
    ],
)
def test_load_stack_rejects_a_malformed_project_file(tmp_path: Path, project_text: str, problem: str) -> None:
    write(tmp_path / "Pulumi.yaml", project_text)
    write(tmp_path / "Pulumi.dev.yaml", "config: {}\n")

    for call in (lambda: load_stack(tmp_path, "dev"), lambda: stack_config_dir(tmp_path)):
        with pytest.raises(StackFileError) as raised:
            call()
        assert str(raised.value).startswith(f"{tmp_path / 'Pulumi.yaml'}: {problem}")


def test_stack_config_dir_follows_stack_config_dir(tmp_path: Path) -> None:
    write(tmp_path / "Pulumi.yaml", "name: p\nstackConfigDir: stacks\n")
    assert stack_config_dir(tmp_path) == tmp_path / "stacks"


def test_flatten_config_stores_values_as_the_engine_does() -> None:
    flat, secret_keys = flatten_config(
        "p",
        {
            "aws:region": "us-west-2",
            "count": 3,
            "spot": False,
            "cluster": {"name": "gpu", "password": {"secure": "AAAB"}},
            "token": {"secure": "AAAC"},
        },
    )

    assert flat == {
        "aws:region": "us-west-2",
        "p:count": "3",
        "p:spot": "false",
        "p:cluster": '{"name": "gpu", "password": "[secret]"}',
        "p:token": "[secret]",
    }
    assert secret_keys == ["p:cluster", "p:token"]


def test_duplicate_resource_urns_fail_as_the_engine_would() -> None:
    def program() -> None:
        k8s.core.v1.Namespace("a", metadata={"name": "x"})
        k8s.core.v1.Namespace("a", metadata={"name": "y"})

    with pytest.raises(DuplicateResourceError, match=r"duplicate resource URN .*kubernetes:core/v1:Namespace::a"):
        run_program(program, project="p", stack="s", config={})


def test_sdk_type_aliases_are_dropped_before_the_sdk_resolves_them_and_the_programs_are_kept() -> None:
    # pulumi-azure-native declares 110 API-version type aliases on AgentPool, and resolving them was most of its
    # registration time; they only match old API-version types in a stack's state. The program's own are recorded.
    seen: dict[str, int] = {}

    def program() -> None:
        pool = azure_native.containerservice.AgentPool(
            "gpu", resource_group_name="rg", resource_name_="aks", vm_size="Standard_NC24ads_A100_v4", count=1
        )
        role = aws.iam.Role(
            "role", assume_role_policy=ASSUME_EC2, opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(name="old")])
        )
        seen.update(pool=len(pool._aliases), role=len(role._aliases))

    plan = run(program)

    assert seen == {"pool": 0, "role": 1}
    pool = by_name(plan)["gpu"]
    assert pool.urn == "urn:pulumi:dev::proj::azure-native:containerservice:AgentPool::gpu"
    assert pool.inputs == {
        "count": 1,
        "resourceGroupName": "rg",
        "resourceName": "aks",
        "vmSize": "Standard_NC24ads_A100_v4",
    }
    assert pool.options == {}
    assert by_name(plan)["role"].options == {"aliases": ["urn:pulumi:dev::proj::aws:iam/role:Role::old"]}
