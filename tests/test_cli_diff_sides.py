"""Issue 30: what ``gpu-components diff`` takes on each side: an empty or missing side is an error, and a
``--format state`` document (the stack's state as ``plan --format state`` writes it) is read as its plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpu_components.cli import main
from tests.helpers import ROOT

GOLDEN = ROOT / "tests" / "stacks" / "golden"


def run(*args: str) -> tuple[str, int]:
    result = CliRunner().invoke(main, list(args))
    return result.output, result.exit_code


def test_two_empty_directories_are_an_error(tmp_path: Path) -> None:
    """It printed nothing and exited 0, as if nothing changed."""
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()

    output, status = run("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--exit-code")

    assert output == (
        f"Error: OLD {tmp_path / 'old'} is a directory with no <stack>.json plan: nothing to compare (write plans"
        " with gpu-components plan --all --format json --out-dir DIR)\n"
    )
    assert status == 1


def test_an_empty_side_beside_plans_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "new").mkdir()
    output, status = run("diff", str(GOLDEN), str(tmp_path / "new"))

    assert output == (
        f"Error: NEW {tmp_path / 'new'} is a directory with no <stack>.json plan: nothing to compare (write plans"
        " with gpu-components plan --all --format json --out-dir DIR)\n"
    )
    assert status == 1


def test_a_missing_side_is_an_error(tmp_path: Path) -> None:
    output, status = run("diff", str(GOLDEN / "aws-eks.json"), str(tmp_path / "aws-eks.json"))

    assert output == (
        f"Error: NEW {tmp_path / 'aws-eks.json'} does not exist: give a plan file or a directory of <stack>.json\n"
    )
    assert status == 1


@pytest.fixture(scope="module")
def karpenter_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real ``plan aws-eks-karpenter --format state`` output."""
    output, status = run("plan", "aws-eks-karpenter", "--format", "state", "--cwd", str(ROOT))
    assert status == 0, output
    path = tmp_path_factory.mktemp("state") / "aws-eks-karpenter.json"
    path.write_text(output)
    return path


@pytest.mark.stack
def test_the_state_of_a_stack_diffs_clean_against_its_json_plan(karpenter_state: Path) -> None:
    assert run("diff", str(karpenter_state), str(GOLDEN / "aws-eks-karpenter.json"), "--exit-code") == (
        "Plan diff of aws-eks-karpenter:\nno changes\n",
        0,
    )
    assert run("diff", str(GOLDEN / "aws-eks-karpenter.json"), str(karpenter_state), "--exit-code") == (
        "Plan diff of aws-eks-karpenter:\nno changes\n",
        0,
    )


@pytest.mark.stack
def test_deployed_state_against_a_plan_with_one_change(karpenter_state: Path, tmp_path: Path) -> None:
    plan = json.loads((GOLDEN / "aws-eks-karpenter.json").read_text())
    pool = next(r for r in plan["resources"] if r["name"] == "gpu-karpenter-gpu-l40s-shared-node-pool")
    pool["inputs"]["spec"]["template"]["metadata"]["labels"]["team"] = "ml"
    (tmp_path / "new.json").write_text(json.dumps(plan))

    output, status = run("diff", str(karpenter_state), str(tmp_path / "new.json"), "--exit-code")

    assert output == (
        "Plan diff of aws-eks-karpenter:\n"
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-karpenter-gpu-l40s-shared-node-pool  [drains nodes: Karpenter drift:"
        " spec.template.metadata.labels changed, so Karpenter replaces every node of NodePool l40s-shared]\n"
        '    spec.template.metadata.labels.team: (none) -> "ml"\n'
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


def test_a_document_that_is_neither_plan_nor_state_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"version": 3}')
    output, status = run("diff", str(tmp_path / "x.json"), str(GOLDEN / "aws-eks.json"))

    assert output == (
        f"Error: {tmp_path / 'x.json'} is not a JSON plan: it needs a 'resources' list (or, as --format state writes"
        " it, 'deployment.resources')\n"
    )
    assert status == 1


@pytest.mark.parametrize("deployment", [{}, {"resources": []}], ids=["resources left out", "no resources"])
def test_the_state_of_a_stack_with_no_resources_is_an_empty_stack(
    deployment: dict[str, object], tmp_path: Path
) -> None:
    """`pulumi stack export` of an empty stack leaves `resources` out (new-user trial): every resource of the plan is
    added, under the plan's stack name, with no note of different stacks."""
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"version": 3, "deployment": deployment}))
    output, status = run("diff", str(empty), str(GOLDEN / "aws-eks.json"), "--format", "json")

    (diff,) = json.loads(output)
    assert (diff["oldStack"], diff["newStack"], status) == ("aws-eks", "aws-eks", 0)
    plan = json.loads((GOLDEN / "aws-eks.json").read_text())
    assert sorted(change["urn"] for change in diff["resources"] if change["action"] == "create") == sorted(
        resource["urn"] for resource in plan["resources"]
    )
    text, _ = run("diff", str(empty), str(GOLDEN / "aws-eks.json"))
    assert text.splitlines()[0] == "Plan diff of aws-eks:"
    assert "different stacks" not in text


def test_a_state_without_its_stack_resource_takes_the_stack_name_from_the_urns(
    karpenter_state: Path, tmp_path: Path
) -> None:
    state = json.loads(karpenter_state.read_text())
    state["deployment"]["resources"] = [
        resource for resource in state["deployment"]["resources"] if resource["type"] != "pulumi:pulumi:Stack"
    ]
    headless = tmp_path / "headless.json"
    headless.write_text(json.dumps(state))
    output, _ = run("diff", str(headless), str(karpenter_state))
    assert output.splitlines()[0] == "Plan diff of aws-eks-karpenter:"
    assert "different stacks" not in output
    assert all(not line.startswith(("+ ", "- ")) for line in output.splitlines())
