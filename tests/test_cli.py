"""Tests for gpu_components.cli: plan formats, several stacks, diagrams, diffs and their exit codes, bad input."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner, Result

from gpu_components import cli
from gpu_components.cli import EXIT_CHANGES, EXIT_REPLACEMENT, available_stacks, main
from gpu_components.plan import Plan, PlannedResource, to_json
from tests.helpers import ROOT, copy_example_project, example_plan

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

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
    """aws-eks as `plan --format json --out-dir` writes it, planned by the CLI itself (once per module)."""
    out = tmp_path_factory.mktemp("plans")
    result = run("plan", "aws-eks", "--format", "json", "--out-dir", str(out), "--cwd", str(ROOT))
    assert result.exit_code == 0, result.output
    return out / "aws-eks.json"


@pytest.fixture
def planned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI gets each example stack's plan from the test session's one plan of it (`example_plan`).

    For tests of what the CLI does with a plan; `eks_json` and `test_out_dir_json_is_the_in_process_plan` run
    the CLI's own planning.
    """

    def planned(root: Path, stack: str, preview: bool) -> Plan:
        assert (root, preview) == (ROOT, False), (root, preview)
        return example_plan(stack)

    monkeypatch.setattr(cli, "_plan", planned)


def test_available_stacks_are_the_config_files() -> None:
    assert available_stacks(ROOT) == sorted(p.name[7:-5] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def test_plan_needs_a_stack_or_all() -> None:
    result = run("plan", "--cwd", str(ROOT))
    assert result.exit_code == 2
    assert "give at least one stack name, or --all" in result.output


def test_json_of_several_stacks_needs_an_output_directory() -> None:
    result = run("plan", "--all", "--format", "json", "--cwd", str(ROOT))
    assert result.exit_code == 2
    assert "--format json with several stacks needs --out-dir" in result.output


def test_exit_code_needs_diff() -> None:
    assert run("plan", "aws-eks", "--exit-code", "--cwd", str(ROOT)).exit_code == 2


def test_out_dir_json_is_the_in_process_plan(eks_json: Path) -> None:
    assert eks_json.read_text() == to_json(example_plan("aws-eks"))


@pytest.mark.usefixtures("planned_once")
def test_capacity_format_prints_the_report() -> None:
    result = run("plan", "aws-eks", "--format", "capacity", "--cwd", str(ROOT))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "## GPU capacity: aws-eks"
    assert result.output.splitlines()[-1] == "At maximum size: 8 GPU nodes, 22 GPUs (16 x A100-40GB, 6 x A10G)."


@pytest.mark.usefixtures("planned_once")
def test_yaml_and_mermaid_formats(tmp_path: Path) -> None:
    diagram = tmp_path / "eks.svg"
    result = run("plan", "aws-eks", "--format", "yaml", "--diagram", str(diagram), "--cwd", str(ROOT))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("---\n# kubernetes:core/v1:Namespace gpu-demo-gpu-device-plugin-namespace\n")
    assert diagram.read_text().startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    mermaid = run("plan", "aws-eks", "--format", "mermaid", "--cwd", str(ROOT))
    assert mermaid.output.splitlines()[:2] == [
        "flowchart LR",
        '    cluster["aws-eks: cluster gpu-demo<br>2 GPU pool(s)"]',
    ]


def test_diagram_needs_svg_or_png(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "--diagram", str(tmp_path / "x.gif"), "--cwd", str(ROOT))
    assert result.exit_code == 2
    assert "must end in .svg or .png" in result.output


@pytest.mark.usefixtures("planned_once")
def test_plan_diff_against_itself_has_no_changes(eks_json: Path) -> None:
    result = run("plan", "aws-eks", "--diff", str(eks_json), "--exit-code", "--cwd", str(ROOT))
    assert (result.exit_code, result.output) == (0, "Plan diff of aws-eks:\nno changes\n")


@pytest.mark.usefixtures("planned_once")
def test_plan_diff_flags_an_instance_type_change(eks_json: Path, tmp_path: Path) -> None:
    document = json.loads(eks_json.read_text())
    for resource in document["resources"]:
        if resource["name"] == "gpu-demo-gpu-a10g-shared-node-group":
            resource["inputs"]["instanceTypes"] = ["g5.xlarge"]
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(document))
    result = run("plan", "aws-eks", "--diff", str(baseline), "--exit-code", "--cwd", str(ROOT))
    assert result.exit_code == EXIT_REPLACEMENT
    assert result.output == (
        "Plan diff of aws-eks:\n"
        "+- aws:eks/nodeGroup:NodeGroup gpu-demo-gpu-a10g-shared-node-group\n"
        '    instanceTypes[0]: "g5.xlarge" -> "g5.2xlarge"  [forces replacement]\n'
        "0 to create, 0 to update, 1 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
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


def test_deleting_a_node_pool_exits_as_a_replacement_does(tmp_path: Path) -> None:
    old = plan_file(tmp_path / "old.json")
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({**json.loads(old.read_text()), "resources": []}))

    result = run("diff", str(old), str(empty), "--exit-code")

    assert result.exit_code == EXIT_REPLACEMENT
    assert f"- {GROUP} gpu  [drains nodes: the node pool is deleted: its nodes are drained]" in result.output


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
    result = run("plan", "--all", "--diff", str(plan_file(tmp_path / "one.json")), "--cwd", str(ROOT))
    assert result.exit_code == 2
    assert "--diff with several stacks needs a directory of <stack>.json plans" in result.output


# ------------------------------------------------------------------ malformed project and stack files (no traceback)


def project_root(
    tmp_path: Path, stack_text: str, project_text: str = "name: p\nruntime: python\nstackConfigDir: stacks\n"
) -> Path:
    (tmp_path / "stacks").mkdir(exist_ok=True)
    (tmp_path / "Pulumi.yaml").write_text(project_text)
    (tmp_path / "__main__.py").write_text("")  # the program: its stack file fails before it runs
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(stack_text)
    return tmp_path


@pytest.mark.parametrize(
    ("stack_text", "message"),
    [
        (
            "config:\n  a: b: c\n",
            "stacks/Pulumi.bad.yaml: not valid YAML: mapping values are not allowed here (line 2, column 7)",
        ),
        ("config: 5\n", "stacks/Pulumi.bad.yaml: config must be a mapping of config keys to values (got 5)"),
        ("- a\n- b\n", "stacks/Pulumi.bad.yaml: must be a YAML mapping of top-level keys (got a list of 2 item(s))"),
    ],
)
def test_plan_reports_a_malformed_stack_file_without_a_traceback(tmp_path: Path, stack_text: str, message: str) -> None:
    root = project_root(tmp_path, stack_text)
    result = run("plan", "bad", "--cwd", str(root))
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output == f"Error: bad: {root / message}\n"


def test_plan_all_reports_a_malformed_project_file(tmp_path: Path) -> None:
    root = project_root(tmp_path, "config: {}\n", project_text="name: [p\n")
    result = run("plan", "--all", "--cwd", str(root))
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {root / 'Pulumi.yaml'}: not valid YAML: while parsing a flow sequence (line 1, column 7): "
        "expected ',' or ']', but got '<stream end>' (line 2, column 1)\n"
    )


# --------------------------------------------------------------------------- output files, --diff, several stacks


NAMESPACE = PlannedResource(
    "urn:pulumi:s::p::kubernetes:core/v1:Namespace::ns",
    "kubernetes:core/v1:Namespace",
    "ns",
    None,
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu"}},
    True,
)


@pytest.fixture
def small_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stack plans to one Namespace, without running the program (the renderers have their own tests)."""
    monkeypatch.setattr(cli, "_plan", lambda root, stack, preview: Plan("p", stack, (NAMESPACE,), {}))


@pytest.mark.usefixtures("small_plans")
def test_diagram_creates_missing_directories(tmp_path: Path) -> None:
    diagram = tmp_path / "new" / "dir" / "eks.svg"
    result = run("plan", "aws-eks", "--diagram", str(diagram), "--cwd", str(ROOT))
    assert result.exit_code == 0, result.output
    assert diagram.read_text().startswith('<svg xmlns="http://www.w3.org/2000/svg"')


@pytest.mark.usefixtures("small_plans")
def test_diagram_under_a_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    result = run("plan", "aws-eks", "--diagram", str(tmp_path / "afile" / "x.svg"), "--cwd", str(ROOT))
    assert result.exit_code == 1
    assert result.output == (
        f"Error: --diagram: cannot create the directory {tmp_path / 'afile'} for x.svg: "
        "a file of that name is in the way\n"
    )


@pytest.mark.usefixtures("small_plans")
def test_plan_diff_notes_a_stack_missing_from_the_baseline_directory(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "--diff", str(tmp_path), "--exit-code", "--cwd", str(ROOT))
    assert result.exit_code == EXIT_CHANGES
    assert result.stderr == (
        f"Note: {tmp_path / 'aws-eks.json'} does not exist: aws-eks is diffed as a new stack (every resource "
        "created); if it is not new, check the --diff directory\n"
    )
    assert result.stdout.splitlines()[0] == "Plan diff of aws-eks:"


@pytest.mark.usefixtures("small_plans")
def test_plan_diff_with_a_baseline_in_the_directory_has_no_note(tmp_path: Path) -> None:
    assert run("plan", "aws-eks", "--format", "json", "--out-dir", str(tmp_path), "--cwd", str(ROOT)).exit_code == 0
    result = run("plan", "aws-eks", "--diff", str(tmp_path), "--exit-code", "--cwd", str(ROOT))
    assert (result.exit_code, result.stderr, result.stdout) == (0, "", "Plan diff of aws-eks:\nno changes\n")


@pytest.mark.parametrize(
    ("options", "given"),
    [
        (["--format", "tree"], "--format"),
        (["--out-dir", "plans"], "--out-dir"),
        (["--format", "json", "--out-dir", "plans"], "--format and --out-dir"),
    ],
)
def test_plan_diff_rejects_format_and_out_dir(tmp_path: Path, options: list[str], given: str) -> None:
    result = run("plan", "aws-eks", "--diff", str(tmp_path), *options, "--cwd", str(ROOT))
    assert result.exit_code == 2
    assert (
        f"Error: --diff prints the diff instead of the plan, so {given} would be ignored; "
        "write the plan in a separate run without --diff\n"
    ) in result.output


@pytest.mark.usefixtures("small_plans")
def test_yaml_of_several_stacks_names_each_stack() -> None:
    single = run("plan", "aws-eks", "--format", "yaml", "--cwd", str(ROOT))
    assert single.exit_code == 0, single.output
    assert (
        single.output
        == "---\n# kubernetes:core/v1:Namespace ns\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu\n"
    )
    several = run("plan", "aws-eks", "gcp-gke", "--format", "yaml", "--cwd", str(ROOT))
    assert several.exit_code == 0, several.output
    assert several.output == f"# stack: aws-eks\n{single.output}\n# stack: gcp-gke\n{single.output}"
    assert (
        list(yaml.safe_load_all(several.output))
        == [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu"}}] * 2
    )


@pytest.mark.usefixtures("small_plans")
def test_yaml_of_several_stacks_in_an_out_dir_has_no_stack_line(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "gcp-gke", "--format", "yaml", "--out-dir", str(tmp_path), "--cwd", str(ROOT))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "aws-eks.yaml").read_text().startswith("---\n# kubernetes:core/v1:Namespace ns\n")
    assert (tmp_path / "gcp-gke.yaml").read_text() == (tmp_path / "aws-eks.yaml").read_text()


# ------------------------------------------------------------------ several stacks: a failing one hides no other


def test_plan_all_plans_every_stack_past_invalid_ones(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir(exist_ok=True)
    copy_example_project(tmp_path)
    (tmp_path / "stacks" / "Pulumi.aws-eks.yaml").write_text((ROOT / "stacks" / "Pulumi.aws-eks.yaml").read_text())
    (tmp_path / "stacks" / "Pulumi.bad-config.yaml").write_text(
        "config:\n  gpu-components:cloud: aws\n  gpu-components:cluster: {name: c}\n"
        "  gpu-components:pools: [{name: A100, instance_type: p4d.24xlarge, max_size: 2}]\n"
    )
    (tmp_path / "stacks" / "Pulumi.bad-yaml.yaml").write_text("config:\n  a: b: c\n")
    out = tmp_path / "plans"

    result = run("plan", "--all", "--format", "json", "--out-dir", str(out), "--cwd", str(tmp_path))

    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    errors = result.stderr.splitlines()
    assert errors[0] == "Error: bad-config: 1 invalid GPU setting:"
    assert errors[1].startswith("  - pools[0].name: pool names also name Kubernetes objects and label values")
    assert errors[2:] == [
        f"Error: bad-yaml: {tmp_path / 'stacks' / 'Pulumi.bad-yaml.yaml'}: not valid YAML: mapping values are not "
        "allowed here (line 2, column 7)",
        "Error: 2 of 3 stacks could not be planned: bad-config, bad-yaml",
    ]
    # The valid stack is written as if it were planned alone.
    assert sorted(path.name for path in out.iterdir()) == ["aws-eks.json"]
    assert (out / "aws-eks.json").read_text() == (ROOT / "tests" / "stacks" / "golden" / "aws-eks.json").read_text()


@pytest.fixture
def some_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stacks named bad-* cannot be planned; every other stack plans to one Namespace."""

    def planned(root: Path, stack: str, preview: bool) -> Plan:
        if stack.startswith("bad"):
            raise click.ClickException(f"{stack}: 1 invalid GPU setting:\n  - pools[0].spot: wrong (got 'yes')")
        return Plan("p", stack, (NAMESPACE,), {})

    monkeypatch.setattr(cli, "_plan", planned)


BAD_A = "Error: bad-a: 1 invalid GPU setting:\n  - pools[0].spot: wrong (got 'yes')\n"


@pytest.mark.usefixtures("some_fail")
def test_plan_of_named_stacks_prints_every_error_and_every_valid_plan() -> None:
    result = run("plan", "bad-a", "aws-eks", "bad-b", "gcp-gke", "--format", "yaml", "--cwd", str(ROOT))
    single = run("plan", "aws-eks", "--format", "yaml", "--cwd", str(ROOT)).stdout

    assert result.exit_code == 1
    assert result.stdout == f"# stack: aws-eks\n{single}\n# stack: gcp-gke\n{single}"
    assert result.stderr == (
        f"{BAD_A}{BAD_A.replace('bad-a', 'bad-b')}Error: 2 of 4 stacks could not be planned: bad-a, bad-b\n"
    )


@pytest.mark.usefixtures("some_fail")
def test_one_failing_stack_prints_its_error_alone() -> None:
    result = run("plan", "bad-a", "--cwd", str(ROOT))
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", BAD_A)


@pytest.mark.usefixtures("some_fail")
def test_plan_diff_of_several_stacks_diffs_the_valid_ones_and_exits_1_over_exit_code(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "bad-a", "--diff", str(tmp_path), "--exit-code", "--cwd", str(ROOT))
    # aws-eks changed (no baseline: every resource created), which alone would exit 3; a stack not planned is an
    # error, and the diff no verdict.
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "Plan diff of aws-eks:"
    assert BAD_A in result.stderr
    assert result.stderr.endswith("Error: 1 of 2 stacks could not be planned: bad-a\n")


@pytest.mark.usefixtures("some_fail")
def test_diagrams_of_several_stacks_keep_their_stack_names_when_one_fails(tmp_path: Path) -> None:
    result = run("plan", "aws-eks", "bad-a", "--diagram", str(tmp_path / "d.svg"), "--cwd", str(ROOT))
    assert result.exit_code == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["d-aws-eks.svg"]


def test_a_pool_moved_to_another_gpu_advertiser_in_place_exits_as_a_replacement_does(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    config = (ROOT / "stacks" / "Pulumi.aws-eks-dra.yaml").read_text()
    pinned = config.replace("    - name: l40s\n", "    - name: l40s\n      gpu_access: device-plugin\n")
    assert pinned != config
    (tmp_path / "stacks" / "Pulumi.aws-eks-dra.yaml").write_text(pinned)
    baseline = ROOT / "tests" / "stacks" / "golden" / "aws-eks-dra.json"

    result = run("plan", "aws-eks-dra", "--diff", str(baseline), "--exit-code", "--cwd", str(tmp_path))

    assert result.exit_code == EXIT_REPLACEMENT, result.output
    lines = result.output.splitlines()
    start = lines.index(
        "~ aws:eks/nodeGroup:NodeGroup gpu-demo-gpu-l40s-node-group  [drains nodes: its gpu-components/gpu-access"
        " label changed (\"dra\" -> (none)): the pool's GPU advertiser changes on live nodes (NVIDIA's DRA driver ->"
        ' the device plugin): drain them, or add a new pool and move the workloads (README "Moving a pool")]'
    )
    assert lines[start + 1 : start + 5] == [
        '    labels["gpu-components/gpu-access"]: "dra" -> (none)',
        '    labels["k8s.amazonaws.com/accelerator"]: (none) -> "nvidia-l40s"',
        '    labels["nvidia.com/device-plugin.config"]: (none) -> "l40s"',
        '    labels["nvidia.com/gpu.present"]: (none) -> "true"',
    ]
    assert lines[-1] == (
        "7 to create, 3 to update, 1 to replace, 2 to delete; 5 output change(s); 1 resource(s) draining nodes"
    )


def test_a_components_warning_prints_with_the_warning_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver upgrade's drain-without-force warning went to stderr bare; it prints as the ignoreChanges ones."""

    def planned(root: Path, stack: str, preview: bool) -> Plan:
        logging.getLogger("gpu_components.plan.pulumi").warning("driver.upgradePolicy.drain is enabled without force")
        return example_plan(stack)

    monkeypatch.setattr(cli, "run_project", planned)

    result = run("plan", "aws-eks", "--cwd", str(ROOT))

    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == ["warning: aws-eks: driver.upgradePolicy.drain is enabled without force"]
