"""Tests for gpu_components.plan.render: deterministic JSON and tree renderings of a plan."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_components.plan import Plan, PlannedResource, run_program, to_json, to_tree

POLICY = '{"Version":"2012-10-17","Statement":[]}'


class Pool(pulumi.ComponentResource):
    """A throwaway component: a role, and a ConfigMap created once the role's ARN is known."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Pool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(
            f"{name}-role",
            name=f"{name}-nodes",
            assume_role_policy=POLICY,
            tags={"team": "ml"},
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["tags"]),
        )
        self.role.arn.apply(
            lambda arn: k8s.core.v1.ConfigMap(
                f"{name}-info",
                metadata={"namespace": "gpu", "labels": {"nvidia.com/gpu.present": "true"}},
                data={"roleArn": arn, "empty": ""},
                opts=child,
            )
        )
        self.register_outputs({})


def program() -> None:
    pool = Pool("a100")
    pulumi.export("roleArn", pool.role.arn)
    pulumi.export("token", pulumi.Config().require_secret("token"))


def plan_of_program() -> Plan:
    return run_program(program, project="proj", stack="dev", config={"token": {"secure": "AAABAJv"}})


EXPECTED_JSON = """\
{
  "config": {
    "proj:token": "[secret]"
  },
  "outputs": {
    "roleArn": "arn:aws:iam::123456789012:role/a100-nodes",
    "token": "[secret]"
  },
  "project": "proj",
  "resources": [
    {
      "custom": true,
      "inputs": {
        "assumeRolePolicy": "{\\"Version\\":\\"2012-10-17\\",\\"Statement\\":[]}",
        "name": "a100-nodes",
        "tags": {
          "team": "ml"
        }
      },
      "name": "a100-role",
      "options": {
        "ignoreChanges": [
          "tags"
        ]
      },
      "parent": "urn:pulumi:dev::proj::test:index:Pool::a100",
      "type": "aws:iam/role:Role",
      "urn": "urn:pulumi:dev::proj::test:index:Pool$aws:iam/role:Role::a100-role"
    },
    {
      "custom": true,
      "inputs": {
        "apiVersion": "v1",
        "data": {
          "empty": "",
          "roleArn": "arn:aws:iam::123456789012:role/a100-nodes"
        },
        "kind": "ConfigMap",
        "metadata": {
          "labels": {
            "nvidia.com/gpu.present": "true"
          },
          "namespace": "gpu"
        }
      },
      "name": "a100-info",
      "options": {},
      "parent": "urn:pulumi:dev::proj::test:index:Pool::a100",
      "type": "kubernetes:core/v1:ConfigMap",
      "urn": "urn:pulumi:dev::proj::test:index:Pool$kubernetes:core/v1:ConfigMap::a100-info"
    },
    {
      "custom": false,
      "inputs": {},
      "name": "a100",
      "options": {},
      "parent": null,
      "type": "test:index:Pool",
      "urn": "urn:pulumi:dev::proj::test:index:Pool::a100"
    }
  ],
  "stack": "dev"
}
"""

EXPECTED_TREE = """\
pulumi:pulumi:Stack proj-dev
+ test:index:Pool a100
    + aws:iam/role:Role a100-role
        assumeRolePolicy: {"Version":"2012-10-17","Statement":[]}
        name: a100-nodes
        tags.team: ml
        options:
            ignoreChanges[0]: tags
    + kubernetes:core/v1:ConfigMap a100-info
        data.roleArn: arn:aws:iam::123456789012:role/a100-nodes
        metadata.labels["nvidia.com/gpu.present"]: "true"
        metadata.namespace: gpu
outputs:
    roleArn: arn:aws:iam::123456789012:role/a100-nodes
    token: [secret]
"""


def test_json_of_a_small_program_is_exact() -> None:
    assert to_json(plan_of_program()) == EXPECTED_JSON


def test_tree_of_a_small_program_is_exact() -> None:
    assert to_tree(plan_of_program()) == EXPECTED_TREE


def test_two_runs_render_byte_identical() -> None:
    first, second = plan_of_program(), plan_of_program()

    assert to_json(first).encode() == to_json(second).encode()
    assert to_tree(first).encode() == to_tree(second).encode()


def resource(
    name: str, type_: str, parent: str | None = None, inputs: dict[str, object] | None = None
) -> PlannedResource:
    urn_type = type_ if parent is None else f"{parent.split('::')[2]}${type_}"
    return PlannedResource(
        urn=f"urn:pulumi:s::p::{urn_type}::{name}",
        type=type_,
        name=name,
        parent=parent,
        inputs=inputs or {},
        custom=not type_.startswith("test:"),
    )


def test_json_sorts_resources_by_urn_and_ends_with_a_newline() -> None:
    plan = Plan(
        project="p",
        stack="s",
        resources=(resource("b", "aws:iam/role:Role"), resource("a", "aws:iam/role:Role")),
        outputs={},
    )

    rendered = to_json(plan)

    assert rendered.endswith("}\n")
    assert [r["name"] for r in json.loads(rendered)["resources"]] == ["a", "b"]


def test_tree_sorts_children_by_type_then_name() -> None:
    parent = resource("pool", "test:index:Pool")
    plan = Plan(
        project="p",
        stack="s",
        resources=(
            parent,
            resource("z", "aws:iam/role:Role", parent.urn),
            resource("b", "kubernetes:core/v1:ConfigMap", parent.urn),
            resource("a", "kubernetes:core/v1:ConfigMap", parent.urn),
            resource("a", "aws:eks/nodeGroup:NodeGroup", parent.urn),
        ),
        outputs={},
    )

    assert to_tree(plan).splitlines()[2:] == [
        "    + aws:eks/nodeGroup:NodeGroup a",
        "    + aws:iam/role:Role z",
        "    + kubernetes:core/v1:ConfigMap a",
        "    + kubernetes:core/v1:ConfigMap b",
    ]


def test_tree_flattens_inputs_and_skips_empty_values() -> None:
    plan = Plan(
        project="p",
        stack="s",
        resources=(
            resource(
                "gpu",
                "aws:eks/nodeGroup:NodeGroup",
                inputs={
                    "scalingConfig": {"desiredSize": 1, "maxSize": 4},
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NO_SCHEDULE"}],
                    "labels": {"nvidia.com/gpu": "true", "empty": ""},
                    "subnetIds": [],
                    "tags": {},
                    "launchTemplate": None,
                    "spot": False,
                    "count": 8,
                },
            ),
        ),
        outputs={},
    )

    assert to_tree(plan).splitlines()[2:] == [
        "    count: 8",
        '    labels["nvidia.com/gpu"]: "true"',
        "    scalingConfig.desiredSize: 1",
        "    scalingConfig.maxSize: 4",
        "    spot: false",
        "    taints[0].effect: NO_SCHEDULE",
        "    taints[0].key: nvidia.com/gpu",
    ]


def test_tree_shows_long_strings_as_blocks_and_pretty_prints_json() -> None:
    config = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole"}]})
    plan = Plan(
        project="p",
        stack="s",
        resources=(
            resource(
                "cfg",
                "kubernetes:core/v1:ConfigMap",
                inputs={"apiVersion": "v1", "kind": "ConfigMap", "data": {"config.yaml": config}},
            ),
            resource("role", "aws:iam/role:Role", inputs={"assumeRolePolicy": policy + " " * 30}),
        ),
        outputs={},
    )

    assert to_tree(plan) == (
        "pulumi:pulumi:Stack p-s\n"
        "+ aws:iam/role:Role role\n"
        "    assumeRolePolicy: |\n"
        "      {\n"
        '        "Version": "2012-10-17",\n'
        '        "Statement": [\n'
        "          {\n"
        '            "Effect": "Allow",\n'
        '            "Action": "sts:AssumeRole"\n'
        "          }\n"
        "        ]\n"
        "      }\n"
        "+ kubernetes:core/v1:ConfigMap cfg\n"
        '    data["config.yaml"]: |\n'
        "      version: v1\n"
        "      sharing:\n"
        "        timeSlicing:\n"
        "          resources:\n"
        "          - name: nvidia.com/gpu\n"
        "            replicas: 4\n"
    )


def test_tree_shows_resources_with_an_unknown_parent_at_the_top() -> None:
    orphan = resource("child", "aws:iam/role:Role", parent="urn:pulumi:s::p::eks:index:Cluster::gone")
    plan = Plan(project="p", stack="s", resources=(orphan,), outputs={"n": 1})

    assert to_tree(plan) == "pulumi:pulumi:Stack p-s\n+ aws:iam/role:Role child\noutputs:\n    n: 1\n"
