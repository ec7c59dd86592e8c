"""Every Python snippet of README's "Use it in your own program" runs: the program snippets under the plan's mocks
(with the config values they read), the unit-test snippet with pytest in a fresh interpreter."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_components.cli import main
from gpu_components.cluster_pool import ClusterPoolArgs
from gpu_components.package import COMPONENTS
from gpu_components.plan import Plan
from tests.helpers import ROOT, names, plan_of, resource
from tools import readme_reference

SECTION = re.search(r"^## Use it in your own program\n(.*?)^## ", (ROOT / "README.md").read_text(), re.M | re.S)
assert SECTION is not None, "README has no 'Use it in your own program' section"
SNIPPETS = re.findall(r"```python\n(.*?)```", SECTION.group(1), re.S)
PROGRAMS = [snippet for snippet in SNIPPETS if "set_mocks" not in snippet]
[UNIT_TEST] = [snippet for snippet in SNIPPETS if "set_mocks" in snippet]
CONFIG = {
    "test:cluster_name": "prod",
    "test:subnet_ids": '["subnet-0a1b", "subnet-2c3d"]',
    "test:kubeconfig": "apiVersion: v1\nkind: Config\n",
    "test:resource_group_name": "gpu-rg",
}


def run(snippet: str) -> Plan:
    return plan_of(lambda: exec(compile(snippet, "README.md", "exec"), {}), preview=True, config=CONFIG)


def test_the_section_has_a_snippet_per_cloud_the_cluster_and_a_unit_test() -> None:
    assert [("EksGpuNodeGroup(" in s, "AksGpuNodePool(" in s, "GkeGpuNodePool(" in s) for s in PROGRAMS] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
        (False, False, False),
        (False, False, False),
    ]
    assert "GpuCluster(" in PROGRAMS[3] and "gpu_pod_settings(" in PROGRAMS[3]
    assert "NvidiaGpuOperator(" in PROGRAMS[4]


def test_the_eks_snippet_serves_only_the_al2023_pool_with_the_device_plugin() -> None:
    plan = run(PROGRAMS[0])
    assert names(plan, "aws:eks/nodeGroup:NodeGroup") == ["h100-node-group", "l4-node-group"]
    config = resource(plan, "kubernetes:core/v1:ConfigMap", "device-plugin-config").inputs
    assert sorted(config["data"]) == ["default", "l4"]
    assert plan.outputs == {"l4NodeSelector": {"gpu-components/pool": "l4"}}


def test_the_aks_snippet_tolerates_the_spot_taint() -> None:
    plan = run(PROGRAMS[1])
    assert names(plan, "azure-native:containerservice:AgentPool") == ["a100mig-agent-pool", "t4spot-agent-pool"]
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "device-plugin-release").inputs
    assert {
        "effect": "NoSchedule",
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
    } in release["values"]["tolerations"]


def test_the_gke_snippet_deploys_no_nvidia_add_on() -> None:
    plan = run(PROGRAMS[2])
    assert names(plan, "gcp:container/nodePool:NodePool") == ["l4-node-pool"]
    assert not [r for r in plan.resources if r.type.startswith("kubernetes:")]


def test_the_plain_pools_snippet_serves_both_pools_and_creates_none() -> None:
    plan = run(PROGRAMS[4])
    assert not [r for r in plan.resources if r.type.startswith("gcp:")]
    plugin = resource(plan, "kubernetes:core/v1:ConfigMap", "gpu-operator-device-plugin-config").inputs
    assert sorted(plugin["data"]) == ["a100", "default", "l4"]
    mig = resource(plan, "kubernetes:core/v1:ConfigMap", "gpu-operator-mig-config").inputs
    assert list(yaml.safe_load(mig["data"]["config.yaml"])["mig-configs"]) == ["all-disabled", "all-1g.5gb"]
    assert names(plan, "kubernetes:core/v1:ResourceQuota") == ["gpu-operator-resource-quota"]
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpu-operator-release").inputs["values"]
    assert (values["driver"]["enabled"], values["mig"]["strategy"]) == (True, "single")


def test_the_cluster_snippet_lands_the_deployment_on_the_l4_pool() -> None:
    plan = run(PROGRAMS[3])
    pod = resource(plan, "kubernetes:apps/v1:Deployment", "inference").inputs["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu-components/pool": "l4"}
    assert pod["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert pod["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


@pytest.mark.stack
def test_the_unit_test_snippet_passes_under_pytest(tmp_path: Path) -> None:
    (tmp_path / "test_readme_unit.py").write_text(UNIT_TEST)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


# ------------------------------------------------------------------------------------- the command lines it shows


def readme_commands() -> list[tuple[int, list[str]]]:
    """(line number, arguments after `gpu-components`) of every `gpu-components` command in README's shell blocks
    (a `$ ` prompt and a trailing `# comment` left out)."""
    found: list[tuple[int, list[str]]] = []
    language: str | None = None
    for number, line in enumerate((ROOT / "README.md").read_text().splitlines(), 1):
        if line.startswith("```"):
            language = None if language is not None else (line[3:].strip() or "plain")
            continue
        words = shlex.split(line.removeprefix("$ "), comments=True) if language in ("sh", "plain") else []
        if words and words[0] in ("gpu-components", ".venv/bin/gpu-components"):
            found.append((number, words[1:]))
    return found


def test_the_quick_start_says_how_to_run_the_command_make_installed() -> None:
    quick_start = (ROOT / "README.md").read_text().split("\n## Quick start\n")[1].split("\n## ")[0]
    for way in ("source .venv/bin/activate", "`.venv/bin/gpu-components`", "`uv run gpu-components`"):
        assert way in quick_start
    # make install's script is where the README says it is, and runs.
    script = Path(sys.executable).parent / "gpu-components"
    done = subprocess.run([str(script), "plan", "--help"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: gpu-components plan [OPTIONS] [STACKS]...")


def test_every_readme_command_names_a_command_and_options_it_has() -> None:
    commands = readme_commands()
    assert len(commands) >= 15, commands
    for number, words in commands:
        command = main.commands.get(words[0])
        assert command is not None, f"README.md:{number}: no command {words[0]!r}"
        options = {name for parameter in command.params for name in parameter.opts if name.startswith("-")}
        for word in words[1:]:
            if word.startswith("-"):
                assert word.split("=")[0] in options, f"README.md:{number}: {words[0]} has no option {word}"


def test_the_generated_reference_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    schema = json.loads((ROOT / "schema.json").read_text())
    assert readme_reference.with_reference(readme, schema) == readme, "README is stale: run make readme-reference"


def test_the_reference_lists_every_component_and_nested_pool_field() -> None:
    schema = json.loads((ROOT / "schema.json").read_text())
    text = readme_reference.reference(schema)
    assert f"#### Components ({len(COMPONENTS)})" in text
    assert all(f"| `{component.__name__}` |" in text for component in COMPONENTS)
    pool_rows = readme_reference.rows(ClusterPoolArgs, "", schema)
    fields = [row.split("`")[1] for row in pool_rows]
    assert len(fields) == len(set(fields))
    assert {
        "name",
        "provisioning.disruption.budgets[].nodes",
        "provisioning.startup_taints[].effect",
        "taints[].value",
        "gcp.compute_class",
        "aws.node_group_args",
    } <= set(fields)
    assert (
        "| `provisioning.capacity_types` | `capacityTypes` | list of `on-demand` \\| `spot` \\| `reserved` |  |" in text
    )
    assert (
        "| `resource_group_name` | `resourceGroupName` | string | required | Resource group of the AKS cluster. |"
        in text
    )


def test_a_schema_change_changes_the_reference() -> None:
    readme = (ROOT / "README.md").read_text()
    schema = json.loads((ROOT / "schema.json").read_text())
    schema["types"]["gpu-components:index:AksWiringArgs"]["properties"]["clusterName"]["description"] = "Renamed."
    stale = readme_reference.with_reference(readme, schema)
    assert "| `cluster_name` | `clusterName` | string | required | Renamed. |" in stale
    assert readme_reference.with_reference(stale, json.loads((ROOT / "schema.json").read_text())) == readme


def test_the_invalid_config_echo_is_what_the_plan_prints(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    shown = re.search(
        r"`stacks/Pulumi\.bad\.yaml`:\n\n```yaml\n(.*?)```.*?```\n\$ gpu-components plan bad\n(.*?)```", readme, re.S
    )
    assert shown is not None, "README lost its invalid-config example"
    config, echo = shown.groups()
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks", ignore=shutil.ignore_patterns("Pulumi.*.yaml", "__pycache__"))
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path)
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(config)
    script = Path(sys.executable).parent / "gpu-components"
    done = subprocess.run(
        [str(script), "plan", "bad", "-C", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", echo)


def test_the_karpenter_controller_snippet_gives_the_pools_its_node_role() -> None:
    section = re.search(
        r"^### Provisioned pools on EKS: Karpenter and EKS Auto Mode\n(.*?)^### ",
        (ROOT / "README.md").read_text(),
        re.M | re.S,
    )
    assert section is not None
    [snippet] = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    plan = plan_of(lambda: exec(compile(snippet, "README.md", "exec"), {}), preview=False, config=CONFIG)
    node_class = resource(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "gpus-l40s-node-class")
    assert (
        node_class.inputs["spec"]["role"] == resource(plan, "aws:iam/role:Role", "karpenter-node-role").outputs["name"]
    )
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "karpenter-release").inputs
    assert release["values"]["nodeSelector"] == {"node-role": "system"}
