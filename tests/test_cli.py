"""Tests for gpu_components.cli: plan formats, several stacks, diagrams, diffs and their exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gpu_components.cli import EXIT_CHANGES, EXIT_REPLACEMENT, available_stacks, main

ROOT = Path(__file__).resolve().parents[1]
GROUP = "aws:eks/nodeGroup:NodeGroup"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, [*args])


def plan_file(path: Path, instance_type: str = "g5.2xlarge", max_size: int = 6, stack: str = "dev") -> Path:
    inputs: dict[str, Any] = {"instanceTypes": [instance_type], "scalingConfig": {"maxSize": max_size}}
    document = {
        "project": "p",
        "stack": stack,
        "resources": [{"urn": f"urn:pulumi:{stack}::p::{GROUP}::gpu", "type": GROUP, "name": "gpu", "inputs": inputs}],
        "outputs": {},
    }
    path.write_text(json.dumps(document))
    return path


@pytest.fixture(scope="module")
def eks_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plans")
    result = run("plan", "aws-eks", "--format", "json", "--out-dir", str(out), "--root", str(ROOT))
    assert result.exit_code == 0, result.output
    return out / "aws-eks.json"


def test_available_stacks_are_the_config_files() -> None:
    assert available_stacks(ROOT) == sorted(p.name[7:-5] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def test_plan_needs_a_stack_or_all() -> None:
    result = run("plan", "--root", str(ROOT))
    assert result.exit_code == 2
    assert "give at least one stack name, or --all" in result.output


def test_json_of_several_stacks_needs_an_output_directory() -> None:
    result = run("plan", "--all", "--format", "json", "--root", str(ROOT))
    assert result.exit_code == 2
    assert "--format json with several stacks needs --out-dir" in result.output


def test_exit_code_needs_diff() -> None:
    assert run("plan", "aws-eks", "--exit-code", "--root", str(ROOT)).exit_code == 2


def test_out_dir_json_is_the_golden_plan(eks_json: Path) -> None:
    assert eks_json.read_text() == (ROOT / "tests" / "stacks" / "golden" / "aws-eks.json").read_text()


def test_capacity_format_prints_the_report() -> None:
    result = run("plan", "aws-eks", "--format", "capacity", "--root", str(ROOT))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "## GPU capacity: aws-eks"
    assert result.output.splitlines()[-1] == "At maximum size: 8 GPU nodes, 22 GPUs (16 x A100-40GB, 6 x A10G)."


def test_yaml_and_mermaid_formats(tmp_path: Path) -> None:
    diagram = tmp_path / "eks.svg"
    result = run("plan", "aws-eks", "--format", "yaml", "--diagram", str(diagram), "--root", str(ROOT))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("---\n# kubernetes:core/v1:Namespace gpu-demo-gpu-device-plugin-namespace\n")
    assert diagram.read_text().startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    mermaid = run("plan", "aws-eks", "--format", "mermaid", "--root", str(ROOT))
    assert mermaid.output.splitlines()[:2] == [
        "flowchart LR",
        '    cluster["aws-eks: cluster gpu-demo<br>2 GPU pool(s)"]',
    ]


def test_diagram_needs_svg_or_png(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "--diagram", str(tmp_path / "x.gif"), "--root", str(ROOT))
    assert result.exit_code == 2
    assert "must end in .svg or .png" in result.output


def test_plan_diff_against_itself_has_no_changes(eks_json: Path) -> None:
    result = run("plan", "aws-eks", "--diff", str(eks_json), "--exit-code", "--root", str(ROOT))
    assert (result.exit_code, result.output) == (0, "Plan diff of aws-eks:\nno changes\n")


def test_plan_diff_flags_an_instance_type_change(eks_json: Path, tmp_path: Path) -> None:
    document = json.loads(eks_json.read_text())
    for resource in document["resources"]:
        if resource["name"] == "gpu-demo-gpu-a10g-shared-node-group":
            resource["inputs"]["instanceTypes"] = ["g5.xlarge"]
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(document))
    result = run("plan", "aws-eks", "--diff", str(baseline), "--exit-code", "--root", str(ROOT))
    assert result.exit_code == EXIT_REPLACEMENT
    assert result.output == (
        "Plan diff of aws-eks:\n"
        "+- aws:eks/nodeGroup:NodeGroup gpu-demo-gpu-a10g-shared-node-group\n"
        '    instanceTypes[0]: "g5.xlarge" -> "g5.2xlarge"  [forces replacement]\n'
        "0 to create, 0 to update, 1 to replace, 0 to delete; 0 output change(s)\n"
    )


def test_diff_exit_codes(tmp_path: Path) -> None:
    old = plan_file(tmp_path / "old.json")
    same = plan_file(tmp_path / "same.json")
    bigger = plan_file(tmp_path / "bigger.json", max_size=8)
    other = plan_file(tmp_path / "other.json", instance_type="g6.2xlarge")
    assert run("diff", str(old), str(same), "--exit-code").exit_code == 0
    assert run("diff", str(old), str(bigger), "--exit-code").exit_code == EXIT_CHANGES
    assert run("diff", str(old), str(other), "--exit-code").exit_code == EXIT_REPLACEMENT
    assert run("diff", str(old), str(other)).exit_code == 0


def test_diff_json_format(tmp_path: Path) -> None:
    result = run(
        "diff", str(plan_file(tmp_path / "a.json")), str(plan_file(tmp_path / "b.json", max_size=8)), "--format", "json"
    )
    assert json.loads(result.output) == [
        {
            "oldStack": "dev",
            "newStack": "dev",
            "resources": [
                {
                    "urn": f"urn:pulumi:dev::p::{GROUP}::gpu",
                    "type": GROUP,
                    "name": "gpu",
                    "action": "update",
                    "changes": [{"path": "scalingConfig.maxSize", "old": 6, "new": 8, "replaces": False}],
                }
            ],
            "outputs": [],
        }
    ]


def test_diff_of_directories_pairs_stacks_by_name(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    plan_file(tmp_path / "old" / "a.json", stack="a")
    plan_file(tmp_path / "new" / "a.json", stack="a")
    plan_file(tmp_path / "new" / "b.json", stack="b")
    result = run("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--exit-code")
    assert result.exit_code == EXIT_CHANGES
    assert result.output.splitlines() == [
        "Plan diff of a:",
        "no changes",
        "",
        "Plan diff of b:",
        "+ aws:eks/nodeGroup:NodeGroup gpu",
        "1 to create, 0 to update, 0 to replace, 0 to delete; 0 output change(s)",
    ]


def test_diff_rejects_a_file_that_is_not_a_plan(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = run("diff", str(bad), str(plan_file(tmp_path / "ok.json")))
    assert result.exit_code == 1
    assert "is not a JSON plan: it needs a 'resources' list" in result.output


def test_diff_of_several_stacks_needs_a_baseline_directory(tmp_path: Path) -> None:
    result = run("plan", "--all", "--diff", str(plan_file(tmp_path / "one.json")), "--root", str(ROOT))
    assert result.exit_code == 2
    assert "--diff with several stacks needs a directory of <stack>.json plans" in result.output
