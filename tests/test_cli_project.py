"""`gpu-components plan STACK --cwd DIR` of a platform team's own Pulumi project, in every format, and its errors.

The project (written into a temporary directory) is not the example: its own `Pulumi.yaml` (`main: app/`), an
`app/__main__.py` that imports a sibling module and reads a file beside it, an `EksGpuNodeGroup` per pool and an
`NvidiaDevicePlugin` serving them, and two stack files. It exports no `gpuPools`: the capacity report and the diagram
come from the node-pool components the program created.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gpu_components.cli import main
from gpu_components.plan.capacity import capacity_report
from gpu_components.plan.diagram import to_mermaid, to_svg
from gpu_components.plan.project import run_project
from tests.helpers import ROOT, example_plan

PULUMI_YAML = """\
name: ml-platform
description: The ML platform's GPU pools on its EKS clusters
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: venv
main: app/
"""

MAIN = '''\
"""The ML platform's GPU pools on its existing EKS cluster."""

import pulumi
import pulumi_kubernetes as k8s

import pools
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.kubernetes import NvidiaDevicePlugin


def main() -> None:
    config = pulumi.Config()
    cluster = config.require("cluster")
    with open("kubeconfig.yaml") as kubeconfig:
        provider = k8s.Provider("ml-k8s", kubeconfig=kubeconfig.read())
    groups = [
        EksGpuNodeGroup(f"ml-{pool['name']}", {"pool": pool, "cluster_name": cluster, "subnet_ids": ["subnet-a"]})
        for pool in pools.gpu_pools()
    ]
    NvidiaDevicePlugin("ml-device-plugin", {"pools": groups}, pulumi.ResourceOptions(provider=provider))
    pulumi.export("poolNames", [group.spec.name for group in groups])


if __name__ == "__main__":
    main()
'''

POOLS = '''\
"""The team's pools, sized by the stack's config (read when the module is imported)."""

import pulumi

MAX_NODES = pulumi.Config().require_int("maxNodes")


def gpu_pools() -> list[dict]:
    return [
        {"name": "l4-shared", "instance_type": "g6.xlarge", "max_size": MAX_NODES, "time_slicing": {"replicas": 4}},
        {"name": "a10g", "instance_type": "g5.xlarge", "max_size": 2, "spot": True},
    ]
'''

DEV = "config:\n  aws:region: us-west-2\n  ml-platform:cluster: ml-dev\n  ml-platform:maxNodes: 3\n"
PROD = "config:\n  aws:region: us-east-1\n  ml-platform:cluster: ml-prod\n  ml-platform:maxNodes: 8\n"

CAPACITY_DEV = """\
## GPU capacity: dev

| pool | cloud | instance | GPU | GPUs/node | nodes | each node advertises | GPU memory per unit | isolation |
|---|---|---|---|---|---|---|---|---|
| a10g | aws | g5.xlarge | A10G (24 GB) | 1 | 0..2 spot | 1 x `nvidia.com/gpu` | 24 GB (GPU) | exclusive |
| l4-shared | aws | g6.xlarge | L4 (24 GB) | 1 | 0..3 | 4 x `nvidia.com/gpu` | 24 GB (GPU) shared by 4 time-sliced \
replicas | shared, no memory isolation |

At maximum size: 5 GPU nodes, 5 GPUs (2 x A10G, 3 x L4).
"""

POOL_RESOURCES = [
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-label-gpu-components/pool"),
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-label-k8s.amazonaws.com/accelerator"),
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-label-nvidia.com/device-plugin.config"),
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-label-nvidia.com/gpu.present"),
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-nvidia.com-gpu"),
    ("aws:autoscaling/tag:Tag", "{pool}-autoscaler-taint-nvidia.com/gpu"),
    ("aws:eks/nodeGroup:NodeGroup", "{pool}-node-group"),
    ("aws:iam/role:Role", "{pool}-node-role"),
    ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "{pool}-node-role-cni"),
    ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "{pool}-node-role-ecr"),
    ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "{pool}-node-role-worker"),
    ("gpu-components:index:EksGpuNodeGroup", "{pool}"),
]


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The team's project directory."""
    root = tmp_path_factory.mktemp("ml-platform")
    (root / "app").mkdir()
    (root / "Pulumi.yaml").write_text(PULUMI_YAML)
    (root / "Pulumi.dev.yaml").write_text(DEV)
    (root / "Pulumi.prod.yaml").write_text(PROD)
    (root / "app" / "__main__.py").write_text(MAIN)
    (root / "app" / "pools.py").write_text(POOLS)
    (root / "app" / "kubeconfig.yaml").write_text("apiVersion: v1\nkind: Config\n")
    return root


def run(*args: str) -> Result:
    return CliRunner().invoke(main, [*args])


def planned(team: Path, *args: str) -> str:
    result = run("plan", *args, "--cwd", str(team))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return result.stdout


# ------------------------------------------------------------------------------------------------ every format


def test_json(team: Path) -> None:
    document = json.loads(planned(team, "dev", "--format", "json"))
    assert (document["project"], document["stack"], document["outputs"]) == (
        "ml-platform",
        "dev",
        {"poolNames": ["l4-shared", "a10g"]},
    )
    expected = sorted(
        [(kind, name.format(pool=pool)) for pool in ("ml-a10g", "ml-l4-shared") for kind, name in POOL_RESOURCES]
        + [
            ("gpu-components:index:NvidiaDevicePlugin", "ml-device-plugin"),
            ("kubernetes:core/v1:ConfigMap", "ml-device-plugin-config"),
            ("kubernetes:core/v1:Namespace", "ml-device-plugin-namespace"),
            ("kubernetes:helm.sh/v3:Release", "ml-device-plugin-release"),
            ("pulumi:providers:kubernetes", "ml-k8s"),
        ]
    )
    assert sorted((r["type"], r["name"]) for r in document["resources"]) == expected
    by_name = {r["name"]: r for r in document["resources"]}
    group = by_name["ml-l4-shared-node-group"]
    assert group["urn"] == (
        "urn:pulumi:dev::ml-platform::gpu-components:index:EksGpuNodeGroup$aws:eks/nodeGroup:NodeGroup"
        "::ml-l4-shared-node-group"
    )
    assert group["parent"] == "urn:pulumi:dev::ml-platform::gpu-components:index:EksGpuNodeGroup::ml-l4-shared"
    inputs = group["inputs"]
    assert (inputs["clusterName"], inputs["instanceTypes"], inputs["subnetIds"]) == (
        "ml-dev",
        ["g6.xlarge"],
        ["subnet-a"],
    )
    assert inputs["scalingConfig"] == {"desiredSize": 0, "maxSize": 3, "minSize": 0}
    assert inputs["taints"] == [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}]
    assert by_name["ml-a10g-node-group"]["inputs"]["capacityType"] == "SPOT"
    assert by_name["ml-k8s"]["inputs"] == {"kubeconfig": "apiVersion: v1\nkind: Config\n"}
    release = by_name["ml-device-plugin-release"]["inputs"]
    assert (release["chart"], release["version"], release["namespace"]) == (
        "nvidia-device-plugin",
        "0.20.0",
        "nvidia-device-plugin",
    )
    affinity = release["values"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert affinity["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["a10g", "l4-shared"]


def test_tree(team: Path) -> None:
    tree = planned(team, "dev").splitlines()
    assert tree[0] == "pulumi:pulumi:Stack ml-platform-dev"
    tops = [line for line in tree if line.startswith("+ ")]
    assert tops == [
        "+ gpu-components:index:EksGpuNodeGroup ml-a10g",
        "+ gpu-components:index:EksGpuNodeGroup ml-l4-shared",
        "+ gpu-components:index:NvidiaDevicePlugin ml-device-plugin",
        "+ pulumi:providers:kubernetes ml-k8s",
    ]
    assert "    + aws:eks/nodeGroup:NodeGroup ml-l4-shared-node-group" in tree
    assert "        scalingConfig.maxSize: 3" in tree
    assert tree[-3:] == ["outputs:", "    poolNames[0]: l4-shared", "    poolNames[1]: a10g"]


def test_yaml(team: Path) -> None:
    text = planned(team, "dev", "--format", "yaml")
    heads = [line for line in text.splitlines() if line.startswith("# ")]
    assert heads == [
        "# kubernetes:core/v1:Namespace ml-device-plugin-namespace",
        "# kubernetes:core/v1:ConfigMap ml-device-plugin-config",
        "# kubernetes:helm.sh/v3:Release ml-device-plugin-release",
        "# Helm values: chart nvidia-device-plugin 0.20.0 from https://nvidia.github.io/k8s-device-plugin, release "
        "nvidia-device-plugin in namespace nvidia-device-plugin",
    ]
    assert "    sharing:\n      timeSlicing:\n" in text


def test_capacity_comes_from_the_programs_node_pool_components(team: Path) -> None:
    assert planned(team, "dev", "--format", "capacity") == CAPACITY_DEV


def test_mermaid(team: Path) -> None:
    lines = planned(team, "dev", "--format", "mermaid").splitlines()
    assert lines[:8] == [
        "flowchart LR",
        '    cluster["dev<br>2 GPU pool(s)"]',
        '    p0["pool a10g<br>g5.xlarge, spot<br>0..2 nodes"]',
        '    p0g["1 x A10G (24 GB) per node<br>node advertises 1 x nvidia.com/gpu"]',
        '    p0s0["whole GPU<br>exclusive"]',
        '    p1["pool l4-shared<br>g6.xlarge<br>0..3 nodes"]',
        '    p1g["1 x L4 (24 GB) per node<br>node advertises 4 x nvidia.com/gpu"]',
        '    p1s0["whole GPU x 4 time-sliced replicas<br>shared, no memory isolation"]',
    ]


def test_diagram_file(team: Path, tmp_path: Path) -> None:
    planned(team, "dev", "--format", "capacity", "--diagram", str(tmp_path / "ml.svg"))
    svg = (tmp_path / "ml.svg").read_text()
    assert ">pool l4-shared</text>" in svg
    assert ">pool a10g</text>" in svg


def test_all_plans_the_projects_stacks_each_with_its_own_config(team: Path) -> None:
    text = planned(team, "--all", "--format", "capacity")
    assert text.startswith(CAPACITY_DEV + "\n## GPU capacity: prod\n")
    # prod's pools.py read prod's maxNodes: the sibling module is imported afresh for each stack.
    assert text.splitlines()[-1] == "At maximum size: 10 GPU nodes, 10 GPUs (2 x A10G, 8 x L4)."


def test_root_is_the_deprecated_name_of_cwd(team: Path) -> None:
    result = run("plan", "dev", "--format", "capacity", "--root", str(team))
    assert (result.exit_code, result.stdout) == (0, CAPACITY_DEV)
    assert result.stderr == "--root is deprecated: use --cwd (-C)\n"
    assert run("plan", "dev", "--format", "capacity", "--cwd", str(team)).stderr == ""
    assert run("plan", "dev", "--root", str(team), "--cwd", str(team)).exit_code == 0
    conflict = run("plan", "dev", "--root", str(ROOT), "--cwd", str(team))
    assert conflict.exit_code == 2
    assert "--root is the deprecated name of --cwd: give one of them" in conflict.output
    help_text = " ".join(run("plan", "--help").output.split())
    assert "-C, --cwd DIRECTORY" in help_text
    assert "--root DIRECTORY Deprecated: the same as --cwd, which replaces it." in help_text


# ------------------------------------------------------------------------------------------------ errors


def failed(directory: Path, *args: str) -> str:
    """The error of a plan that cannot be made (exit 1, no traceback, nothing on stdout), without its last newline."""
    result = run("plan", *(args or ("dev",)), "-C", str(directory))
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.endswith("\n")
    return result.stderr[:-1]


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)
    return directory


def test_a_directory_without_pulumi_yaml(tmp_path: Path) -> None:
    assert failed(tmp_path) == f"Error: no Pulumi project at {tmp_path} ({tmp_path / 'Pulumi.yaml'} is missing)"
    assert failed(tmp_path, "--all") == failed(tmp_path)


@pytest.mark.parametrize(
    ("runtime", "language"), [("nodejs", "nodejs"), ("\n  name: dotnet", "dotnet"), ("go", "go")], ids=str
)
def test_a_runtime_other_than_python_or_yaml(tmp_path: Path, runtime: str, language: str) -> None:
    write(tmp_path, {"Pulumi.yaml": f"name: web\nruntime: {runtime}\n", "Pulumi.dev.yaml": "config: {}\n"})
    assert failed(tmp_path) == (
        f"Error: {tmp_path / 'Pulumi.yaml'}: runtime is {language}, not python or yaml: gpu-components plan runs "
        "Pulumi Python and YAML programs only"
    )


def test_a_main_that_does_not_exist(tmp_path: Path) -> None:
    write(tmp_path, {"Pulumi.yaml": "name: p\nruntime: python\nmain: infra/\n", "Pulumi.dev.yaml": "config: {}\n"})
    assert failed(tmp_path) == (
        f"Error: {tmp_path / 'Pulumi.yaml'}: main: infra/ does not exist (no file or directory {tmp_path / 'infra'})"
    )
    assert failed(tmp_path, "--all") == failed(tmp_path)


def test_a_program_that_raises(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Pulumi.yaml": "name: p\nruntime: python\nmain: app/\n",
            "Pulumi.dev.yaml": "config: {}\n",
            "app/__main__.py": "import pools\n\npools.build('dev')\n",
            "app/pools.py": "def build(stack):\n    raise RuntimeError(f'no GPU quota for {stack}')\n",
        },
    )
    assert failed(tmp_path) == "Error: dev: the program raised RuntimeError: no GPU quota for dev (at app/pools.py:2)"


def test_an_invoke_without_a_mock_names_the_token_the_line_and_the_mocks_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Pulumi.yaml": "name: p\nruntime: python\n",
            "Pulumi.dev.yaml": "config: {}\n",
            "__main__.py": "import pulumi_aws as aws\n\nhost = aws.ec2.get_instance(instance_id='i-0a1b')\n",
        },
    )
    assert failed(tmp_path) == (
        "Error: dev: the program raised MissingMockError: no plan mock for invoke 'aws:ec2/getInstance:getInstance': "
        'give what it returns under invokes: in gpu-components-mocks.yaml beside Pulumi.yaml (README, "Plan your own '
        'program") (at __main__.py:3)'
    )
    write(tmp_path, {"gpu-components-mocks.yaml": "invoke:\n  aws:ec2/getInstance:getInstance: {}\n"})
    assert failed(tmp_path) == (
        f"Error: dev: {tmp_path / 'gpu-components-mocks.yaml'}: unknown key(s) invoke: the valid keys are invokes and "
        "resources"
    )
    write(
        tmp_path, {"gpu-components-mocks.yaml": "invokes:\n  aws:ec2/getInstance:getInstance: {privateIp: 10.0.0.7}\n"}
    )
    assert run("plan", "dev", "-C", str(tmp_path)).exit_code == 0


def test_invalid_gpu_input_keeps_todays_message(tmp_path: Path) -> None:
    write(tmp_path, {"Pulumi.yaml": PULUMI_YAML, "Pulumi.dev.yaml": DEV, "app/__main__.py": MAIN})
    write(tmp_path, {"app/kubeconfig.yaml": "", "app/pools.py": POOLS.replace('"l4-shared"', '"L4"')})
    assert failed(tmp_path) == (
        "Error: dev: 1 invalid GPU setting:\n"
        "  - pool.name: pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels "
        "(got 'L4'); valid: 1-50 lowercase letters, digits or '-', starting and ending alphanumeric "
        "[source: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names]"
    )


def test_the_readmes_python_example_plans_the_project(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    section = re.search(r"^### Plan your own program\n(.*?)^###? ", (ROOT / "README.md").read_text(), re.M | re.S)
    assert section is not None
    [snippet] = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    shutil.copytree(team, tmp_path / "infra")
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "README.md", "exec"), {})
    assert capsys.readouterr().out == planned(team, "--all", "--format", "capacity") + "\n"
    assert (tmp_path / "dev.json").read_text() == planned(team, "dev", "--format", "json")


# ------------------------------------------------------------------------------------------------ the example


@pytest.mark.stack
@pytest.mark.parametrize("stack", ["aws-eks", "aws-eks-dra", "aws-eks-operator", "azure-aks", "gcp-gke", "gcp-gke-dra"])
def test_the_example_stacks_capacity_and_diagrams_are_unchanged(stack: str) -> None:
    """From the node-pool components (what `plan` now reads) as from the exported `gpuPools` (what it read)."""
    exported = example_plan(stack)
    project = run_project(ROOT, stack)
    assert project.resources == exported.resources
    assert project.outputs == exported.outputs
    assert capacity_report(stack, project.outputs, records=project.pools) == capacity_report(stack, exported.outputs)
    title = f"{stack}: cluster {exported.outputs['clusterName']}"
    assert to_mermaid(title, {}, records=project.pools) == to_mermaid(title, exported.outputs)
    assert to_svg(title, {}, records=project.pools) == to_svg(title, exported.outputs)
