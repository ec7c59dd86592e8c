"""`gpu-components plan --format state`: the deployment document, one per stack (several stacks need --out-dir)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpu_components import cli
from gpu_components.cli import main
from gpu_components.plan import Plan
from gpu_components.plan.state import to_state_json
from tests.helpers import ROOT
from tests.test_cli import NAMESPACE as PLAIN_NAMESPACE

NAMESPACE = dataclasses.replace(PLAIN_NAMESPACE, id="gpu", version="4.34.2")


def small_plan(root: Path, stack: str, preview: bool = False) -> Plan:
    return Plan("p", stack, (NAMESPACE,), {})


@pytest.fixture(autouse=True)
def small_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stack plans to one Namespace, without running the program (the writer has its own tests)."""
    monkeypatch.setattr(cli, "_plan", small_plan)


def test_state_prints_the_deployment() -> None:
    result = CliRunner().invoke(main, ["plan", "aws-eks", "--format", "state", "--cwd", str(ROOT)])
    assert result.exit_code == 0, result.output
    assert result.output == to_state_json(small_plan(ROOT, "aws-eks"))
    resources = json.loads(result.output)["deployment"]["resources"]
    assert [(r["type"], r["urn"].rsplit("::", 1)[1]) for r in resources] == [
        ("pulumi:pulumi:Stack", "p-aws-eks"),
        ("pulumi:providers:kubernetes", "default_4_34_2"),
        ("kubernetes:core/v1:Namespace", "ns"),
    ]


def test_state_of_several_stacks_needs_an_output_directory() -> None:
    result = CliRunner().invoke(main, ["plan", "--all", "--format", "state", "--cwd", str(ROOT)])
    assert result.exit_code == 2
    assert "--format state with several stacks needs --out-dir" in result.output


def test_state_of_several_stacks_writes_one_json_file_each(tmp_path: Path) -> None:
    args = ["plan", "aws-eks", "gcp-gke", "--format", "state", "--out-dir", str(tmp_path), "--cwd", str(ROOT)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["aws-eks.json", "gcp-gke.json"]
    assert (tmp_path / "gcp-gke.json").read_text() == to_state_json(small_plan(ROOT, "gcp-gke"))
