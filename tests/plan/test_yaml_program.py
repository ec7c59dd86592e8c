"""Tests for gpu_components.plan.yaml_program: a Pulumi YAML project planned offline.

Projects are written into a temporary directory (`Pulumi.yaml` holds the program, `Pulumi.dev.yaml` the stack's
config). These programs use generic resources (a Kubernetes provider and objects); the components of the
gpu-components package, constructed through its provider, are planned in `tests/stacks/test_language_examples.py`.
The checks of a program that declares components (its `packages:` entry, its component types) are here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gpu_components.aws.provisioned import EksKarpenterGpuNodePool
from gpu_components.cli import main
from gpu_components.plan import Plan, Project, StackFileError, load_project, run_project
from gpu_components.plan.render import to_tree
from gpu_components.plan.yaml_program import YamlProgramError
from gpu_components.spec import GpuNodePoolArgs
from tests.helpers import ROOT, plan_of

HEADER = "name: team\nruntime: yaml\n"

CONFIG = """\
config:
  clusterName:
    type: string
  subnetIds:
    type: array
    items:
      type: string
  replicas:
    type: integer
    default: 2
  kubeconfig:
    type: string
    secret: true
"""

STACK = """\
config:
  team:clusterName: prod
  team:subnetIds: [subnet-a, subnet-b]
  team:kubeconfig:
    secure: v1:abc
"""


ROLE = "arn:aws:iam::123456789012:role/nodes"


def custom_inputs(plan: Plan) -> dict[tuple[str, str], dict[str, Any]]:
    """The inputs of each provider-managed resource a plan registers, by type and name."""
    return {(r.type, r.name): r.inputs for r in plan.resources if r.custom}


def write(tmp_path: Path, program: str, stack: str = STACK) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(HEADER + program)
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    return tmp_path


def test_a_yaml_project_loads_with_pulumi_yaml_as_its_program(tmp_path: Path) -> None:
    write(tmp_path, CONFIG)
    assert load_project(tmp_path) == Project(
        name="team",
        directory=tmp_path,
        main=tmp_path / "Pulumi.yaml",
        stack_config_dir=tmp_path,
        runtime="yaml",
    )


def test_resources_are_registered_as_given_with_config_variables_and_references(tmp_path: Path) -> None:
    write(
        tmp_path,
        CONFIG
        + """\
variables:
  prefix: gpu-${clusterName}
resources:
  k8s:
    type: pulumi:providers:kubernetes
    name: prod-k8s
    properties:
      kubeconfig: ${kubeconfig}
  ns:
    type: kubernetes:core/v1:Namespace
    properties:
      metadata:
        name: ${prefix}
        labels:
          subnet: ${subnetIds[1]}
          replicas: "${replicas}"
          literal: $${notInterpolated}
    options:
      provider: ${k8s}
      protect: true
      ignoreChanges: [metadata.labels]
  quota:
    type: kubernetes:core/v1:ResourceQuota
    properties:
      metadata:
        namespace: ${prefix}
    options:
      provider: ${k8s}
      dependsOn:
        - ${ns}
outputs:
  namespace: ${prefix}
  namespaceUrn: ${ns.urn}
""",
    )
    plan = run_project(tmp_path, "dev")
    assert to_tree(plan) == (
        "pulumi:pulumi:Stack team-dev\n"
        "+ kubernetes:core/v1:Namespace ns\n"
        "    metadata.labels.literal: ${notInterpolated}\n"
        "    metadata.labels.replicas: 2\n"
        "    metadata.labels.subnet: subnet-b\n"
        "    metadata.name: gpu-prod\n"
        "    options:\n"
        "        ignoreChanges[0]: metadata.labels\n"
        "        protect: true\n"
        "        provider: urn:pulumi:dev::team::pulumi:providers:kubernetes::prod-k8s\n"
        "+ kubernetes:core/v1:ResourceQuota quota\n"
        "    metadata.namespace: gpu-prod\n"
        "    options:\n"
        "        dependsOn[0]: urn:pulumi:dev::team::kubernetes:core/v1:Namespace::ns\n"
        "        provider: urn:pulumi:dev::team::pulumi:providers:kubernetes::prod-k8s\n"
        "+ pulumi:providers:kubernetes prod-k8s\n"
        "    kubeconfig: [secret]\n"
        "outputs:\n"
        "    namespace: gpu-prod\n"
        "    namespaceUrn: urn:pulumi:dev::team::kubernetes:core/v1:Namespace::ns\n"
    )


@pytest.mark.parametrize(
    ("program", "where", "problem"),
    [
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    properties:\n      metadata:\n"
            "        name:\n          fn::invoke:\n            function: aws:index:getRegion\n",
            "resources.ns.properties.metadata.name",
            "fn::invoke is not supported by the offline plan of a YAML program (it runs no functions or invokes; "
            "give the value itself, or from config)",
        ),
        (
            "variables:\n  region:\n    Fn::Secret: us-west-2\n",
            "variables.region",
            "Fn::Secret is not supported by the offline plan of a YAML program (it runs no functions or invokes; "
            "give the value itself, or from config)",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    properties:\n      metadata:\n"
            "        name: ${clustrName}\n",
            "resources.ns.properties.metadata.name",
            "${clustrName}: 'clustrName' is not a config key, variable or resource of this program",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    properties:\n      metadata:\n"
            "        name: ${pulumi.stak}\n",
            "resources.ns.properties.metadata.name",
            "${pulumi.stak}: valid: pulumi.stack, pulumi.project, pulumi.organization, pulumi.cwd, "
            "pulumi.rootDirectory",
        ),
        (
            "resource:\n  ns:\n    type: kubernetes:core/v1:Namespace\n",
            "resource",
            "unknown top-level key; valid: name, description, author, website, license, runtime, main, config, "
            "stackConfigDir, backend, options, template, packages, plugins, variables, resources, outputs (Pulumi's "
            "project schema and the Pulumi YAML program sections)",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    propertie:\n      a: 1\n",
            "resources.ns.propertie",
            "unknown resource key; valid: type, name, properties, options",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    options:\n      dependOn: []\n",
            "resources.ns.options.dependOn",
            "unknown resource option; valid: additionalSecretOutputs, aliases, customTimeouts, deleteBeforeReplace, "
            "deletedWith, dependsOn, ignoreChanges, parent, pluginDownloadURL, protect, provider, providers, "
            "replaceOnChanges, retainOnDelete, version",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    get:\n      id: default\n",
            "resources.ns.get",
            "reading an existing resource (get:) is not supported by the offline plan of a YAML program",
        ),
        (
            "resources:\n  ns:\n    type: kubernetes:core/v1:Namespace\n    options:\n      import: default\n",
            "resources.ns.options.import",
            "importing an existing resource (import:) is not supported by the offline plan of a YAML program",
        ),
        (
            "resources:\n  ns:\n    type: Namespace\n",
            "resources.ns.type",
            "must be a resource type token such as aws:s3:Bucket (got 'Namespace')",
        ),
        (
            "variables:\n  a: ${b}\n  b: ${a}\n",
            "a",
            "refers to itself through a -> b -> a",
        ),
        (
            "main: infra/\n",
            "main",
            "the offline plan reads a YAML program from Pulumi.yaml itself; a program in another file (main:) is "
            "not supported",
        ),
    ],
    ids=[
        "fn-invoke",
        "fn-secret",
        "unknown-name",
        "unknown-pulumi-key",
        "unknown-top-level-key",
        "unknown-resource-key",
        "unknown-option",
        "get",
        "import",
        "type-not-a-token",
        "cycle",
        "main",
    ],
)
def test_what_the_reader_does_not_plan_is_an_error_naming_file_place_and_problem(
    tmp_path: Path, program: str, where: str, problem: str
) -> None:
    write(tmp_path, CONFIG + program)
    with pytest.raises(YamlProgramError) as raised:
        load_project(tmp_path)
    assert (raised.value.path, raised.value.where) == (tmp_path / "Pulumi.yaml", where)
    assert str(raised.value) == f"{tmp_path / 'Pulumi.yaml'}: {where}: {problem}"
    with pytest.raises(YamlProgramError) as again:
        run_project(tmp_path, "dev")
    assert str(again.value) == str(raised.value)


@pytest.mark.parametrize(
    ("stack", "where", "problem"),
    [
        (
            "config:\n  team:subnetIds: [subnet-a]\n  team:kubeconfig: k\n",
            "config.clusterName",
            "the stack has no value for team:clusterName, and its declaration has no default (pulumi config set "
            "clusterName)",
        ),
        (
            "config:\n  team:clusterName: prod\n  team:subnetIds: subnet-a\n  team:kubeconfig: k\n",
            "config.subnetIds",
            "team:subnetIds must be of type array (got 'subnet-a')",
        ),
        (
            "config:\n  team:clusterName: prod\n  team:subnetIds: [subnet-a, 3]\n  team:kubeconfig: k\n",
            "config.subnetIds[1]",
            "team:subnetIds[1] must be of type string (got 3)",
        ),
        (
            "config:\n  team:clusterName: prod\n  team:subnetIds: [a]\n  team:kubeconfig: k\n  team:replicas: '2'\n",
            "config.replicas",
            "team:replicas must be of type integer (got '2')",
        ),
    ],
    ids=["missing", "not-a-list", "item-not-a-string", "integer-as-string"],
)
def test_config_values_are_required_and_typed_as_declared(tmp_path: Path, stack: str, where: str, problem: str) -> None:
    write(tmp_path, CONFIG, stack)
    with pytest.raises(YamlProgramError) as raised:
        run_project(tmp_path, "dev")
    assert str(raised.value) == f"{tmp_path / 'Pulumi.yaml'}: {where}: {problem}"


def test_reading_an_output_of_a_generic_resource_is_an_error(tmp_path: Path) -> None:
    write(
        tmp_path,
        CONFIG
        + "resources:\n  k8s:\n    type: pulumi:providers:kubernetes\n"
        + "outputs:\n  cluster: ${k8s.cluster}\n",
    )
    with pytest.raises(YamlProgramError) as raised:
        run_project(tmp_path, "dev")
    assert str(raised.value) == (
        f"{tmp_path / 'Pulumi.yaml'}: outputs.cluster: ${{k8s.cluster}}: the offline plan cannot read 'cluster' of a "
        "pulumi:providers:kubernetes (it knows the state of gpu-components components, and every resource's id and "
        "urn)"
    )


def test_a_yaml_program_error_is_a_stack_file_error_the_cli_prints_without_a_traceback(tmp_path: Path) -> None:
    write(tmp_path, CONFIG + "variables:\n  region:\n    fn::invoke:\n      function: aws:index:getRegion\n")
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {tmp_path / 'Pulumi.yaml'}: variables.region: fn::invoke is not supported by the offline plan of a "
        "YAML program (it runs no functions or invokes; give the value itself, or from config)\n"
    )
    assert issubclass(YamlProgramError, StackFileError)


# ------------------------------------------------------------- a program using the gpu-components package

NODE_GROUP = """\
resources:
  l4:
    type: gpu-components:index:EksGpuNodeGroup
    properties:
      clusterName: ${clusterName}
      subnetIds: ${subnetIds}
      pool: {name: l4, instanceType: g6.xlarge, maxSize: 4}
"""

HOW = (
    "pulumi up needs the gpu-components package declared there (pulumi package add <path or git URL> writes "
    "packages: {gpu-components: <source>})"
)


@pytest.mark.parametrize(
    ("packages", "where", "problem"),
    [
        ("", "packages", f"is missing, and the program declares gpu-components resources: {HOW}"),
        (
            "packages:\n  - gpu-components\n",
            "packages",
            f"must be a mapping of package name -> source (got a list of 1 item(s)): {HOW}",
        ),
        (
            "packages:\n  gpu-compnents: ../..\n",
            "packages",
            f"has no gpu-components entry ('gpu-compnents' is close: a misspelling?); it declares gpu-compnents: {HOW}",
        ),
        (
            "packages:\n  gpu-components: 5\n",
            "packages.gpu-components",
            "must be the package's source, a string (a local path or a git URL, optionally @<version>), or a mapping "
            "with source (and version): Pulumi's project schema (got 5)",
        ),
        (
            "packages:\n  gpu-components:\n    version: 0.1.0\n",
            "packages.gpu-components.source",
            "must be the package's source, a string (a local path or a git URL, optionally @<version>), or a mapping "
            "with source (and version): Pulumi's project schema (got None)",
        ),
        (
            "packages:\n  gpu-components: ../no-such-checkout\n",
            "packages.gpu-components",
            "../no-such-checkout: the local package source {parent}/no-such-checkout is not a directory",
        ),
        (
            "packages:\n  gpu-components: .\n",
            "packages.gpu-components",
            ".: {project} has no PulumiPlugin.yaml, so it is not the gpu-components package (give the path of the "
            "repository's root)",
        ),
    ],
    ids=["missing", "list", "misspelt", "number", "no-source", "no-directory", "no-plugin"],
)
def test_a_program_with_components_must_declare_the_package(
    tmp_path: Path, packages: str, where: str, problem: str
) -> None:
    write(tmp_path, packages + CONFIG + NODE_GROUP)
    with pytest.raises(YamlProgramError) as raised:
        load_project(tmp_path)
    assert raised.value.where == where
    detail = problem.replace("{parent}", str(tmp_path.parent.resolve())).replace("{project}", str(tmp_path.resolve()))
    assert str(raised.value) == f"{tmp_path / 'Pulumi.yaml'}: {where}: {detail}"


@pytest.mark.parametrize(
    "packages",
    [
        f"packages:\n  gpu-components: {ROOT}\n",
        "packages:\n  gpu-components: github.com/example/gpu-components@v0.1.0\n",
        "packages:\n  gpu-components:\n    source: https://github.com/example/gpu-components\n    version: v0.1.0\n",
        "packages:\n  gpu-components: git@github.com:example/gpu-components.git\n",
    ],
    ids=["local-path", "git-host-path", "url-in-a-mapping", "git-ssh"],
)
def test_a_local_package_source_holding_the_plugin_or_a_git_source_is_accepted(tmp_path: Path, packages: str) -> None:
    write(tmp_path, packages + CONFIG + NODE_GROUP)
    assert load_project(tmp_path).runtime == "yaml"


def test_a_program_without_components_needs_no_packages(tmp_path: Path) -> None:
    write(tmp_path, CONFIG + "resources:\n  k8s:\n    type: pulumi:providers:kubernetes\n")
    assert load_project(tmp_path).runtime == "yaml"


TOKENS = (
    "gpu-components:index:EksGpuNodeGroup, gpu-components:index:EksKarpenterGpuNodePool, "
    "gpu-components:index:EksAutoModeGpuNodePool, gpu-components:index:KarpenterController, "
    "gpu-components:index:AksGpuNodePool, "
    "gpu-components:index:AksNapGpuNodePool, gpu-components:index:GkeGpuNodePool, "
    "gpu-components:index:GkeComputeClassGpuPool, gpu-components:index:GkeAutopilotGpuPool, "
    "gpu-components:index:NvidiaDevicePlugin, "
    "gpu-components:index:NvidiaGpuOperator, gpu-components:index:NvidiaDraDriver"
)


@pytest.mark.parametrize(
    ("type_", "problem"),
    [
        (
            "gpu-components:index:GpuClustr",
            "'gpu-components:index:GpuClustr' is not a component of the gpu-components package (did you mean "
            f"'gpu-components:index:GpuCluster'?); valid: gpu-components:index:GpuCluster, {TOKENS}",
        ),
        (
            "gpu-components:aws:Pool",
            "'gpu-components:aws:Pool' is not a component of the gpu-components package; valid: "
            f"gpu-components:index:GpuCluster, {TOKENS}",
        ),
    ],
    ids=["misspelt", "unknown"],
)
def test_a_component_type_must_be_one_of_the_packages_components(tmp_path: Path, type_: str, problem: str) -> None:
    program = NODE_GROUP.replace("gpu-components:index:EksGpuNodeGroup", type_)
    write(tmp_path, f"packages:\n  gpu-components: {ROOT}\n" + CONFIG + program)
    with pytest.raises(YamlProgramError) as raised:
        load_project(tmp_path)
    assert str(raised.value) == f"{tmp_path / 'Pulumi.yaml'}: resources.l4.type: {problem}"


def test_a_provisioned_pools_capacity_types_plan_as_on_the_python_path(tmp_path: Path) -> None:
    """``capacityTypes`` (a list of enum values) from YAML: the Karpenter NodePool and EC2NodeClass are those the
    Python program registers for the same pool, capacity types as written."""
    program = f"""\
packages:
  gpu-components: {ROOT}
resources:
  l40s:
    type: gpu-components:index:EksKarpenterGpuNodePool
    properties:
      clusterName: demo
      subnetIds: [subnet-a]
      nodeRoleArn: {ROLE}
      pool:
        name: l40s
        instanceType: g6e.xlarge
        provisioning: {{provisioner: karpenter, maxGpus: 8, capacityTypes: [spot, on-demand]}}
"""
    write(tmp_path, program, "config: {}\n")
    pool: GpuNodePoolArgs = {
        "name": "l40s",
        "instance_type": "g6e.xlarge",
        "provisioning": {"provisioner": "karpenter", "max_gpus": 8, "capacity_types": ["spot", "on-demand"]},
    }
    python = plan_of(
        lambda: EksKarpenterGpuNodePool(
            "l40s", {"pool": pool, "cluster_name": "demo", "subnet_ids": ["subnet-a"], "node_role_arn": ROLE}
        ),
        preview=False,
    )
    planned = run_project(tmp_path, "dev", preview=False)
    assert custom_inputs(planned) == custom_inputs(python)
    assert {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]} in custom_inputs(
        planned
    )[("kubernetes:karpenter.sh/v1:NodePool", "l40s-node-pool")]["spec"]["template"]["spec"]["requirements"]


def test_a_miscased_provisioner_gets_the_clouds_message_beside_the_other_pools_problems(tmp_path: Path) -> None:
    """As the stack config reports them (tests/aws/test_provisioned_bad_inputs.py): a value outside the provisioner
    enum names the cloud's provisioners only, and another pool's problem is reported in the same run."""
    program = f"""\
packages:
  gpu-components: {ROOT}
resources:
  gpus:
    type: gpu-components:index:GpuCluster
    properties:
      cloud: aws
      aws: {{clusterName: demo, subnetIds: [subnet-a], nodeRoleArn: "{ROLE}", karpenterController: true}}
      pools:
        - {{name: p, instanceType: g6e.xlarge, provisioning: {{provisioner: Karpenter, maxGpus: 8}}}}
        - name: q
          instanceType: g6e.xlarge
          provisioning: {{provisioner: karpenter, maxGpus: 8, instanceFamilies: [G6E]}}
"""
    write(tmp_path, program, "config: {}\n")
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "Error: dev: 2 invalid GPU settings:",
        "  - pools[0].provisioning.provisioner: not a provisioner of EKS; did you mean 'karpenter'? (got "
        "'Karpenter'); valid: karpenter, eks-auto-mode",
        "  - pools[1].provisioning.instanceFamilies[0]: unknown aws GPU instance family; did you mean 'g6e'? (got "
        "'G6E'); valid: g4dn, g5, g5g, g6, g6e, g7e, gr6, p3, p3dn, p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, "
        "p6e-gb200, p6e-gb300",
    ]


def test_an_unpinned_device_plugin_chart_version_in_a_yaml_program_is_an_error(tmp_path: Path) -> None:
    program = f"""\
packages:
  gpu-components: {ROOT}
resources:
  gpus:
    type: gpu-components:index:GpuCluster
    properties:
      cloud: aws
      aws: {{clusterName: demo, subnetIds: [subnet-a]}}
      pools: [{{name: l4, instanceType: g6.xlarge, maxSize: 2}}]
      devicePlugin: {{chartVersion: "^0.20"}}
"""
    write(tmp_path, program, "config: {}\n")
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        "Error: dev: 1 invalid GPU setting:",
        "  - devicePlugin.chartVersion: not an exact nvidia-device-plugin chart version: every install would take "
        "whatever the repository serves then, so the GPU stack could change under the cluster without a change to "
        "the program (got '^0.20'); valid: an exact version MAJOR.MINOR.PATCH (optional v prefix and pre-release), "
        "not a range, e.g. 0.20.0 [source: https://helm.sh/docs/helm/helm_install/]",
    ]


def test_the_pack_judges_a_yaml_programs_workloads_against_its_pools(tmp_path: Path) -> None:
    program = f"""\
packages:
  gpu-components: {ROOT}
resources:
  l4:
    type: gpu-components:index:EksGpuNodeGroup
    properties:
      clusterName: demo
      subnetIds: [subnet-a]
      pool: {{name: l4, instanceType: g6.xlarge, maxSize: 2}}
  train:
    type: kubernetes:batch/v1:Job
    properties:
      spec:
        template:
          spec:
            restartPolicy: Never
            nodeSelector: {{gpu-components/pool: l4}}
            containers: [{{name: c, image: i, resources: {{limits: {{nvidia.com/gpu: 1}}}}}}]
"""
    write(tmp_path, program, "config: {}\n")
    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path), "--policy"])
    assert result.exit_code == 5, result.output
    assert "[mandatory]  gpu-workload-pool-tolerations  (kubernetes:batch/v1:Job: " in result.output
    assert "(pool l4: nvidia.com/gpu=present:NoSchedule)" in result.output
