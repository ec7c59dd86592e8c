"""The examples that use the gpu-components package from other Pulumi languages (``examples/yaml-eks``,
``examples/typescript-eks``): valid project files, the same pools in both, and the YAML one planned offline through
the package's ``Construct`` path to the same GPU resources as the ``aws-eks`` example stack.

No Pulumi CLI or Node.js toolchain is available here: the TypeScript program is checked only for what a reading can
show (its project file, and that its pools are the YAML example's data).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from gpu_components import GpuSpecError
from gpu_components.cli import main
from gpu_components.plan import Plan, PlannedResource, run_project
from gpu_components.plan.yaml_program import YamlProgramError
from tests.helpers import ROOT, example_plan

YAML_EXAMPLE = ROOT / "examples" / "yaml-eks"
TS_EXAMPLE = ROOT / "examples" / "typescript-eks"
PROJECT_SCHEMA = json.loads((ROOT / "tests" / "reference" / "pulumi" / "project.json").read_text())

pytestmark = pytest.mark.stack


def yaml_pools() -> list[dict[str, Any]]:
    program = yaml.safe_load((YAML_EXAMPLE / "Pulumi.yaml").read_text())
    pools: list[dict[str, Any]] = program["resources"]["gpus"]["properties"]["pools"]
    return pools


@pytest.mark.parametrize("example", [YAML_EXAMPLE, TS_EXAMPLE], ids=["yaml", "typescript"])
def test_the_examples_pulumi_yaml_validates_and_adds_this_package(example: Path) -> None:
    project = yaml.safe_load((example / "Pulumi.yaml").read_text())
    jsonschema.Draft202012Validator(PROJECT_SCHEMA).validate(project)
    assert project["packages"] == {"gpu-components": "../.."}
    assert (example / "../..").resolve() == ROOT
    assert (ROOT / "PulumiPlugin.yaml").is_file()


def test_the_typescript_pools_are_the_yaml_examples_pools() -> None:
    """The ``pools`` of the ``GpuCluster`` in ``index.ts``, read as data (a TypeScript object literal without
    comments or trailing commas is YAML flow syntax), are the YAML example's pools."""
    source = (TS_EXAMPLE / "index.ts").read_text()
    literal = re.search(r"^        pools: (\[\n.*?\n        \]),$", source, re.M | re.S)
    assert literal is not None
    assert yaml.safe_load(literal.group(1)) == yaml_pools()
    assert 'import * as gpuComponents from "@pulumi/gpu-components";' in source
    package = json.loads((TS_EXAMPLE / "package.json").read_text())
    assert package["dependencies"]["@pulumi/gpu-components"] == "file:sdks/gpu-components"


def test_the_yaml_pools_are_the_aws_eks_stacks_pools_in_camel_case() -> None:
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.aws-eks.yaml").read_text())

    def camel(value: Any) -> Any:
        if isinstance(value, dict):
            return {re.sub(r"_(\w)", lambda m: m.group(1).upper(), k): camel(v) for k, v in value.items()}
        if isinstance(value, list):
            return [camel(item) for item in value]
        return value

    assert camel(stack["config"]["gpu-components:pools"]) == yaml_pools()


# ------------------------------------------------------------------------------ the YAML example, planned


def aws_eks_wiring() -> dict[str, Any]:
    """What the aws-eks stack's GPU node groups were given to attach to its cluster: one value each."""
    groups = [
        r
        for r in example_plan("aws-eks").resources
        if r.type == "aws:eks/nodeGroup:NodeGroup" and r.parent and "GpuCluster" in r.parent
    ]
    assert [r.name for r in groups] == ["gpu-demo-gpu-a100-mig-node-group", "gpu-demo-gpu-a10g-shared-node-group"]
    wiring = {(r.inputs["clusterName"], tuple(r.inputs["subnetIds"]), r.inputs["nodeRoleArn"]) for r in groups}
    assert len(wiring) == 1
    [(cluster, subnets, role)] = wiring
    return {"clusterName": cluster, "subnetIds": list(subnets), "nodeRoleArn": role}


def yaml_example_as(tmp_path: Path, project: str, stack: str, config: Mapping[str, Any], text: str = "") -> Path:
    """A copy of the YAML example in ``tmp_path``: its ``Pulumi.yaml`` with the project renamed ``project``, the
    package's source this repository's absolute path (``../..`` from the copy is not it), ``text`` edits applied
    (old -> new pairs, ``\\0``-separated), and a stack file ``Pulumi.<stack>.yaml`` holding
    ``config`` (and a secret kubeconfig)."""
    program = (YAML_EXAMPLE / "Pulumi.yaml").read_text()
    program = program.replace("name: gpu-components-yaml-eks\n", f"name: {project}\n")
    program = program.replace("  gpu-components: ../..\n", f"  gpu-components: {ROOT}\n")
    for edit in filter(None, text.split("\0\0")):
        old, new = edit.split("\0")
        assert program.count(old) == 1, old
        program = program.replace(old, new)
    (tmp_path / "Pulumi.yaml").write_text(program)
    values = {f"{project}:{key}": value for key, value in config.items()}
    values[f"{project}:kubeconfig"] = {"secure": "v1:kubeconfig"}
    (tmp_path / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": values}))
    return tmp_path


EKS_CLUSTER = (
    "gpu-demo",
    "gpu-demo-system",
    "gpu-demo-node-role-cni",
    "gpu-demo-node-role-ecr",
    "gpu-demo-node-role-worker",
)
"""The resources of the aws-eks stack's EKS cluster, which its GpuCluster depends on."""


def gpu_cluster_subtree(plan: Plan) -> dict[str, PlannedResource]:
    """The GpuCluster and every resource under it, by URN."""
    [root] = [r for r in plan.resources if r.type == "gpu-components:index:GpuCluster"]
    parents = {r.urn: r.parent for r in plan.resources}

    def under(urn: str | None) -> bool:
        while urn is not None:
            if urn == root.urn:
                return True
            urn = parents.get(urn)
        return False

    return {r.urn: r for r in plan.resources if under(r.urn)}


def test_the_yaml_example_plans_the_aws_eks_stacks_gpu_resources(tmp_path: Path) -> None:
    """The YAML example, planned offline through the package's Construct path, registers the aws-eks stack's
    GpuCluster subtree: the same resources (type, name, parent), inputs and options.

    Given the wiring the aws-eks stack's node groups received (cluster name, subnet ids, node role ARN) as its
    config. URNs embed the project and stack names, and the plan's mocks derive ids (a launch template's, an Auto
    Scaling group's name) from URNs; so the YAML example is planned in a copy whose only change is its project name,
    that of the example project (``gpu-components``), and as stack ``aws-eks``: every URN, id, reference and provider
    URN is then comparable byte for byte (its Kubernetes provider has the Python program's name, ``gpu-demo-k8s``).
    One option differs, on the GpuCluster itself: the Python program creates the EKS cluster and depends on it
    (``dependsOn``), the YAML example attaches to an existing one.
    """
    directory = yaml_example_as(tmp_path, "gpu-components", "aws-eks", aws_eks_wiring())
    planned = gpu_cluster_subtree(run_project(directory, "aws-eks"))
    expected = gpu_cluster_subtree(example_plan("aws-eks"))
    assert sorted(planned) == sorted(expected)
    assert len(planned) == 22
    for urn, resource in expected.items():
        options = dict(resource.options)
        if resource.type == "gpu-components:index:GpuCluster":
            assert sorted(options.pop("dependsOn")) == sorted(
                r.urn for r in example_plan("aws-eks").resources if r.name in EKS_CLUSTER
            )
        got = planned[urn]
        assert (got.type, got.name, got.parent, got.custom, got.inputs, got.options) == (
            resource.type,
            resource.name,
            resource.parent,
            resource.custom,
            resource.inputs,
            options,
        ), urn


def test_the_yaml_example_plans_as_committed_from_the_cli() -> None:
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(YAML_EXAMPLE), "--format", "json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    groups = {r["name"]: r["inputs"] for r in plan["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup"}
    assert sorted(groups) == ["gpu-demo-gpu-a100-mig-node-group", "gpu-demo-gpu-a10g-shared-node-group"]
    stack = yaml.safe_load((YAML_EXAMPLE / "Pulumi.dev.yaml").read_text())["config"]
    for inputs in groups.values():
        assert (inputs["clusterName"], inputs["subnetIds"], inputs["nodeRoleArn"]) == (
            stack["gpu-components-yaml-eks:clusterName"],
            stack["gpu-components-yaml-eks:subnetIds"],
            stack["gpu-components-yaml-eks:nodeRoleArn"],
        )
    assert (groups["gpu-demo-gpu-a10g-shared-node-group"]["scalingConfig"], plan["outputs"]) == (
        {"desiredSize": 0, "maxSize": 6, "minSize": 0},
        {"clusterName": "gpu-demo", "poolNames": ["a100-mig", "a10g-shared"]},
    )


BAD_VALUES = [
    (
        "profile: 1g.5gb\0profile: 7g.80gb",
        ("pools[1].mig.profile", "7g.80gb", "not a MIG profile of A100-40GB"),
        "1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb",
    ),
    (
        "replicas: 4\0replicas: 1.5",
        ("pools[0].timeSlicing.replicas", 1.5, "must be a whole number"),
        "a whole number, without quotes or a fraction (2, not 2.5, 2.0 or '2')",
    ),
    (
        "timeSlicing:\0timeSlicng:",
        ("pools[0].timeSlicng", {"replicas": 4.0, "trusted": True}, "unknown field; did you mean 'timeSlicing'?"),
        "aws, azure, cpuArchitecture, desiredSize, diskSizeGb, gcp, gpuAccess, gpuCount, gpuModel, gpuTaint, "
        "instanceType, labels, maxSize, mig, minSize, mps, name, provisioning, spot, taints, timeSlicing",
    ),
]
"""(edit of the example's Pulumi.yaml, (camelCase path, the value as it arrives in the plugin: numbers as floats,
message), valid values)."""


@pytest.mark.parametrize(("edit", "problem", "valid"), BAD_VALUES, ids=["mig-profile", "replicas", "unknown-field"])
def test_a_bad_value_in_the_yaml_is_the_components_error_with_its_camel_case_path(
    tmp_path: Path, edit: str, problem: tuple[str, Any, str], valid: str | None
) -> None:
    directory = yaml_example_as(tmp_path, "gpu-components-yaml-eks", "dev", aws_eks_wiring(), edit)
    with pytest.raises(GpuSpecError) as raised:
        run_project(directory, "dev")
    [found] = raised.value.problems
    assert ((found.path, found.value, found.message), found.valid) == (problem, valid)
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(directory)])
    assert (result.exit_code, result.output) == (1, f"Error: dev: 1 invalid GPU setting:\n  - {found}\n")
    assert "Traceback" not in result.output


def test_the_yaml_options_of_a_component_reach_its_registration(tmp_path: Path) -> None:
    """``protect``, ``dependsOn`` and ``aliases`` given in the YAML travel in the ConstructRequest and are the
    options the component registers with (what the SDK's provider server makes of them)."""
    edit = (
        "      providers:\n        - ${k8s}\n\0      providers:\n        - ${k8s}\n      protect: true\n"
        "      dependsOn:\n        - ${k8s}\n      aliases:\n        - urn:pulumi:dev::gpu-components-yaml-eks::"
        "gpu-components:index:GpuCluster::gpus\n"
    )
    directory = yaml_example_as(tmp_path, "gpu-components-yaml-eks", "dev", aws_eks_wiring(), edit)
    plan = run_project(directory, "dev")
    [cluster] = [r for r in plan.resources if r.type == "gpu-components:index:GpuCluster"]
    assert cluster.options == {
        "aliases": ["urn:pulumi:dev::gpu-components-yaml-eks::gpu-components:index:GpuCluster::gpus"],
        "dependsOn": ["urn:pulumi:dev::gpu-components-yaml-eks::pulumi:providers:kubernetes::gpu-demo-k8s"],
        "protect": True,
    }


# ------------------------------------------------------------------ values from resources, secrets, outputs


ROLE = "  role:\n    type: aws:iam:Role\n    properties:\n      assumeRolePolicy: '{}'\n"
"""A generic resource the YAML program declares (after its ``resources:`` key), whose id the node groups get."""


def node_groups(plan: Plan) -> list[PlannedResource]:
    groups = [r for r in plan.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert [r.name for r in groups] == ["gpu-demo-gpu-a100-mig-node-group", "gpu-demo-gpu-a10g-shared-node-group"]
    return groups


def test_a_field_from_another_resource_reaches_the_node_groups_and_makes_them_depend_on_it(tmp_path: Path) -> None:
    """``aws.nodeRoleArn: ${role.id}`` is an output value inside the ``aws`` object, as the engine forwards it: the
    plugin reads the object field by field, and the node groups get the role's id and depend on the role."""
    edit = "nodeRoleArn: ${nodeRoleArn}\0nodeRoleArn: ${role.id}\0\0resources:\n\0resources:\n" + ROLE
    directory = yaml_example_as(tmp_path, "gpu-components-yaml-eks", "dev", aws_eks_wiring(), edit)
    plan = run_project(directory, "dev")
    [role] = [r for r in plan.resources if r.type == "aws:iam:Role"]
    assert role.id == "role-398afc5"
    for group in node_groups(plan):
        assert (group.inputs["nodeRoleArn"], group.inputs["clusterName"]) == (role.id, "gpu-demo")
        assert group.property_dependencies["nodeRoleArn"] == (role.urn,)
        assert role.urn in group.dependencies
        assert group.property_dependencies["clusterName"] == ()


@pytest.mark.parametrize(
    ("key", "value", "input_name"),
    [
        ("clusterName", {"secure": "v1:name"}, "clusterName"),
        ("subnetIds", {"secure": "v1:subnets"}, "subnetIds"),
    ],
    ids=["cluster-name", "subnet-ids"],
)
def test_a_secret_config_field_reaches_the_node_groups_as_a_secret(
    tmp_path: Path, key: str, value: Any, input_name: str
) -> None:
    """A ``secure:`` stack value (``secret: true`` declared too) inside the ``aws`` object arrives in the plugin as a
    secret output value where it sits, and the node groups' input is a secret."""
    edit = f"  {key}:\n    type: \0  {key}:\n    secret: true\n    type: "
    config = {**aws_eks_wiring(), key: value}
    directory = yaml_example_as(tmp_path, "gpu-components-yaml-eks", "dev", config, edit)
    for group in node_groups(run_project(directory, "dev")):
        assert group.inputs[input_name] == "[secret]"
        assert group.inputs["nodeRoleArn"] == aws_eks_wiring()["nodeRoleArn"]


def test_a_secret_in_a_plain_property_is_an_error_at_its_path(tmp_path: Path) -> None:
    edit = (
        "  kubeconfig:\n\0  team:\n    type: string\n    secret: true\n  kubeconfig:\n"
        "\0\0workload: inference\0workload: ${team}"
    )
    directory = yaml_example_as(tmp_path, "gpu-components-yaml-eks", "dev", {**aws_eks_wiring(), "team": "ml"}, edit)
    with pytest.raises(GpuSpecError) as raised:
        run_project(directory, "dev")
    [found] = raised.value.problems
    assert found.path == "pools[0].labels['workload']"
    assert "plain value" in found.message


NODE_GROUP_PROGRAM = f"""\
name: pools
runtime: yaml
packages:
  gpu-components: {ROOT}
resources:
  l4:
    type: gpu-components:index:EksGpuNodeGroup
    properties:
      clusterName: demo
      subnetIds: [subnet-a]
      pool:
        name: l4
        instanceType: g6.xlarge
        maxSize: 4
outputs:
  note: ${{l4.autoscalerNote}}
  taints: ${{l4.taints}}
  tolerations: ${{l4.tolerations}}
  advertised: ${{l4.advertisedResources}}
"""


def test_a_components_outputs_read_as_the_engine_returns_its_state(tmp_path: Path) -> None:
    """The state is what the provider server sends the engine: a ``Taint`` (a read-only mapping) is an object, and
    an output the schema declares that the component left null (``autoscalerNote``: nothing to note for a pool of
    one GPU model) reads as null, which Pulumi leaves out of the stack outputs."""
    (tmp_path / "Pulumi.yaml").write_text(NODE_GROUP_PROGRAM)
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    assert run_project(tmp_path, "dev").outputs == {
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        "advertised": {"nvidia.com/gpu": 1},
    }


def test_reading_an_output_the_component_does_not_declare_names_the_declared_ones(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text(NODE_GROUP_PROGRAM + "  wrong: ${l4.autoscalerNotes}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    with pytest.raises(YamlProgramError) as raised:
        run_project(tmp_path, "dev")
    assert str(raised.value) == (
        f"{tmp_path / 'Pulumi.yaml'}: outputs.wrong: ${{l4.autoscalerNotes}}: gpu-components:index:EksGpuNodeGroup "
        "has no output 'autoscalerNotes'; valid: advertisedResources, autoscalerNote, autoscalingGroupName, "
        "devicePluginHost, draDevices, labels, nodeGroupArn, nodeGroupName, nodeRoleArn, nodeSelector, poolName, "
        "taints, tolerations"
    )


def test_an_object_that_is_one_secret_is_an_error_at_its_path(tmp_path: Path) -> None:
    """A secret ``aws`` object as a whole arrives in the plugin as one output, whose fields it cannot read: the CLI
    prints it as it prints the components' errors, at its path."""
    edit = (
        "  kubeconfig:\n\0  aws:\n    type: object\n    secret: true\n  kubeconfig:\n\0\0"
        "      aws:\n        clusterName: ${clusterName}\n        subnetIds: ${subnetIds}\n"
        "        nodeRoleArn: ${nodeRoleArn}\n\0      aws: ${aws}\n"
    )
    directory = yaml_example_as(
        tmp_path, "gpu-components-yaml-eks", "dev", {**aws_eks_wiring(), "aws": aws_eks_wiring()}, edit
    )
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(directory)])
    assert (result.exit_code, result.output) == (
        1,
        "Error: dev: 1 invalid GPU setting:\n"
        "  - aws: arrived as one output (a secret, or a value that depends on another resource, as a whole), whose "
        "fields the plugin cannot read: give its fields one by one (got '[secret or unknown]')\n",
    )
