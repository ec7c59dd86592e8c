"""Tests for gpu_components.plan.project: a Pulumi Python project loaded and run as `pulumi preview` runs it.

Projects here are written into a temporary directory: `Pulumi.yaml`, a stack file and a small program, as a
platform team's own repository would hold them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gpu_components import GpuSpecError
from gpu_components.plan import ProgramError, Project, ProjectPlan, StackFileError, load_project, run_project
from gpu_components.plan.capacity import capacity_report
from gpu_components.plan.project import pool_records
from tests.helpers import ROOT

PYTHON = "name: team\nruntime: python\n"


def project(tmp_path: Path, pulumi_yaml: str, files: dict[str, str], stacks: dict[str, str] | None = None) -> Path:
    """A project directory: `Pulumi.yaml`, the program's `files` (path -> text) and a stack file per stack."""
    (tmp_path / "Pulumi.yaml").write_text(pulumi_yaml)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for stack, text in (stacks or {"dev": "config: {}\n"}).items():
        (tmp_path / f"Pulumi.{stack}.yaml").write_text(text)
    return tmp_path


# ------------------------------------------------------------------------------------------------ loading


def test_the_example_project_is_one_such_project() -> None:
    loaded = load_project(ROOT)
    assert loaded == Project(
        name="gpu-components", directory=ROOT, main=ROOT / "stacks", stack_config_dir=ROOT / "stacks"
    )
    assert (loaded.program, loaded.program_directory) == (ROOT / "stacks" / "__main__.py", ROOT / "stacks")
    assert loaded.stacks() == [
        "aws-eks",
        "aws-eks-auto",
        "aws-eks-dra",
        "aws-eks-karpenter",
        "aws-eks-operator",
        "azure-aks",
        "azure-aks-nap",
        "gcp-gke",
        "gcp-gke-autopilot",
        "gcp-gke-dra",
    ]


@pytest.mark.parametrize(
    ("pulumi_yaml", "files", "program", "program_directory"),
    [
        (PYTHON, {"__main__.py": ""}, "__main__.py", "."),
        (PYTHON + "main: app/\n", {"app/__main__.py": ""}, "app/__main__.py", "app"),
        (PYTHON + "main: app\n", {"app/__main__.py": ""}, "app/__main__.py", "app"),
        (PYTHON + "main: src/infra.py\n", {"src/infra.py": ""}, "src/infra.py", "src"),
        (
            "name: team\nruntime:\n  name: python\n  options:\n    toolchain: pip\n",
            {"__main__.py": ""},
            "__main__.py",
            ".",
        ),
    ],
    ids=["default", "directory", "directory-no-slash", "file", "runtime-mapping"],
)
def test_main_names_the_program(
    tmp_path: Path, pulumi_yaml: str, files: dict[str, str], program: str, program_directory: str
) -> None:
    loaded = load_project(project(tmp_path, pulumi_yaml, files))
    assert loaded.name == "team"
    assert loaded.program == tmp_path / program
    assert loaded.program_directory == Path(os.path.normpath(tmp_path / program_directory))


def test_a_directory_without_pulumi_yaml_is_no_project(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        load_project(tmp_path)
    assert str(raised.value) == f"no Pulumi project at {tmp_path} ({tmp_path / 'Pulumi.yaml'} is missing)"


@pytest.mark.parametrize(
    ("pulumi_yaml", "files", "problem"),
    [
        (
            "name: team\nruntime: nodejs\n",
            {},
            "runtime is nodejs, not python or yaml: gpu-components plan runs Pulumi Python and YAML programs only",
        ),
        (
            "name: team\nruntime:\n  name: go\n",
            {},
            "runtime is go, not python or yaml: gpu-components plan runs Pulumi Python and YAML programs only",
        ),
        (
            "name: team\n",
            {"__main__.py": ""},
            "runtime is missing: the project's language, which the plan needs to be python or yaml",
        ),
        (
            "name: team\nruntime: [python]\n",
            {},
            "runtime must be a language name, or a mapping with the language under name (got a list of 1 item(s))",
        ),
        (PYTHON + "main: app/\n", {}, "main: app/ does not exist (no file or directory {root}/app)"),
        (
            PYTHON + "main: app/\n",
            {"app/helpers.py": ""},
            "main: app/ is a directory without __main__.py (the program Pulumi runs there)",
        ),
        (
            PYTHON,
            {},
            "the program {root}/__main__.py does not exist (without main:, the program is the project directory's "
            "__main__.py)",
        ),
        (PYTHON + "main: /srv/app\n", {}, "main must be a relative path (got '/srv/app')"),
        (PYTHON + "main: ../app\n", {}, "main must be inside the project directory (got '../app')"),
        (PYTHON + "main: 3\n", {}, "main must be a path relative to the project directory (got 3)"),
    ],
    ids=[
        "nodejs",
        "go-mapping",
        "no-runtime",
        "runtime-list",
        "main-missing",
        "main-without-main-py",
        "default-without-main-py",
        "main-absolute",
        "main-outside",
        "main-number",
    ],
)
def test_a_project_the_plan_cannot_run_is_a_project_file_error(
    tmp_path: Path, pulumi_yaml: str, files: dict[str, str], problem: str
) -> None:
    with pytest.raises(StackFileError) as raised:
        load_project(project(tmp_path, pulumi_yaml, files))
    assert str(raised.value) == f"{tmp_path / 'Pulumi.yaml'}: {problem.format(root=tmp_path)}"


# ------------------------------------------------------------------------------------------------ running

PROBE = """\
import os
import sys

import pulumi

import sibling

pulumi.export("name", __name__)
pulumi.export("cwd", os.getcwd())
pulumi.export("path0", sys.path[0])
pulumi.export("argv", sys.argv)
pulumi.export("sibling", sibling.VALUE)
pulumi.export("data", open("data.txt").read())
"""


def test_the_program_runs_as_main_in_its_directory_and_everything_is_restored(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        PYTHON + "main: app/\n",
        {"app/__main__.py": PROBE, "app/sibling.py": "VALUE = 'from a sibling'\n", "app/data.txt": "relative"},
    )
    cwd, path, argv = os.getcwd(), list(sys.path), sys.argv
    plan = run_project(root, "dev")
    app = str((tmp_path / "app").resolve())
    assert plan.outputs == {
        "name": "__main__",
        "cwd": app,
        "path0": app,
        "argv": ["."],
        "sibling": "from a sibling",
        "data": "relative",
    }
    assert (plan.project, plan.stack) == ("team", "dev")
    assert (os.getcwd(), sys.path, sys.argv) == (cwd, path, argv)
    assert "sibling" not in sys.modules


def test_a_file_main_runs_that_file_with_its_directory_first_on_the_path(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        PYTHON + "main: infra/program.py\n",
        {"infra/program.py": PROBE, "infra/sibling.py": "VALUE = 1\n", "infra/data.txt": "x"},
    )
    plan = run_project(load_project(root), "dev")
    infra = str((tmp_path / "infra").resolve())
    assert (plan.outputs["cwd"], plan.outputs["path0"], plan.outputs["argv"]) == (infra, infra, ["program.py"])


def test_each_stack_imports_the_programs_modules_afresh(tmp_path: Path) -> None:
    """A module that reads config when imported reads each stack's: every `pulumi preview` is a new process."""
    root = project(
        tmp_path,
        PYTHON,
        {
            "__main__.py": "import pulumi\nimport settings\npulumi.export('size', settings.SIZE)\n",
            "settings.py": "import pulumi\nSIZE = pulumi.Config().require_int('size')\n",
        },
        {"small": "config:\n  team:size: 1\n", "large": "config:\n  team:size: 8\n"},
    )
    assert [run_project(root, stack).outputs["size"] for stack in ("small", "large", "small")] == [1, 8, 1]


def test_a_program_that_raises_names_the_type_the_message_and_its_line(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        PYTHON + "main: app/\n",
        {
            "app/__main__.py": "import pools\n\npools.build()\n",
            "app/pools.py": "def build():\n    raise ValueError('no GPU quota in us-west-2')\n",
        },
    )
    cwd, path = os.getcwd(), list(sys.path)
    with pytest.raises(ProgramError) as raised:
        run_project(root, "dev")
    error = raised.value
    assert str(error) == "the program raised ValueError: no GPU quota in us-west-2 (at app/pools.py:2)"
    assert (error.file, error.line, error.in_program) == ("app/pools.py", 2, True)
    assert isinstance(error.error, ValueError)
    assert error.__cause__ is error.error
    assert (os.getcwd(), sys.path) == (cwd, path)
    assert "pools" not in sys.modules


def test_an_error_raised_in_a_library_is_placed_at_the_programs_call(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        PYTHON,
        {"__main__.py": "import json\n\n\njson.loads('{not json')\n"},
    )
    with pytest.raises(ProgramError) as raised:
        run_project(root, "dev")
    assert str(raised.value) == (
        "the program raised JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 "
        "(char 1) (at __main__.py:4)"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {
                "__main__.py": "import pulumi\n\n"
                "def check(value):\n    raise KeyError(value)\n\n"
                "pulumi.Output.from_input('x').apply(check)\n"
            },
            "the program raised KeyError: 'x' (at __main__.py:4)",
        ),
        (
            {"__main__.py": "import broken\n", "broken.py": "x = (\n"},
            "the program raised SyntaxError: '(' was never closed (at broken.py:1)",
        ),
        ({"__main__.py": "import sys\n\nsys.exit(3)\n"}, "the program called sys.exit(3) (at __main__.py:3)"),
        (
            {"__main__.py": "import no_such_module\n"},
            "the program raised ModuleNotFoundError: No module named 'no_such_module' (at __main__.py:1)",
        ),
    ],
    ids=["in-apply", "syntax", "sys-exit", "import"],
)
def test_every_way_a_program_fails_is_a_program_error(tmp_path: Path, files: dict[str, str], message: str) -> None:
    with pytest.raises(ProgramError) as raised:
        run_project(project(tmp_path, PYTHON, files), "dev")
    assert str(raised.value) == message


def test_invalid_gpu_input_keeps_its_own_error(tmp_path: Path) -> None:
    program = (
        "from gpu_components.aws import EksGpuNodeGroup\n"
        "EksGpuNodeGroup('gpu', {'pool': {'name': 'A100', 'instance_type': 'p4d.24xlarge', 'max_size': 1},"
        " 'cluster_name': 'c', 'subnet_ids': ['s']})\n"
    )
    with pytest.raises(GpuSpecError) as raised:
        run_project(project(tmp_path, PYTHON, {"__main__.py": program}), "dev")
    assert str(raised.value).startswith("1 invalid GPU setting:\n  - pool.name: pool names also name Kubernetes")


# ------------------------------------------------------------------------------------------------ pools

TWO_CLUSTERS = """\
from gpu_components.aws import EksGpuNodeGroup

for cluster in ("east", "west"):
    EksGpuNodeGroup(
        f"{cluster}-l4",
        {"pool": {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2}, "cluster_name": cluster,
         "subnet_ids": ["s"]},
    )
EksGpuNodeGroup(
    "east-a100",
    {"pool": {"name": "a100", "instance_type": "p4d.24xlarge", "max_size": 1}, "cluster_name": "east",
     "subnet_ids": ["s"]},
)
"""


def test_the_pools_are_the_node_pool_components_the_program_created(tmp_path: Path) -> None:
    plan = run_project(project(tmp_path, PYTHON, {"__main__.py": TWO_CLUSTERS}), "dev")
    assert isinstance(plan, ProjectPlan)
    assert plan.outputs == {}
    assert list(plan.pools) == ["a100", "l4 (east-l4)", "l4 (west-l4)"]
    assert {name: record["maxNodes"] for name, record in plan.pools.items()} == {
        "a100": 1,
        "l4 (east-l4)": 2,
        "l4 (west-l4)": 2,
    }
    assert pool_records(plan) is plan.pools
    report = capacity_report(plan.stack, plan.outputs, records=pool_records(plan))
    assert report.splitlines()[-1] == "At maximum size: 5 GPU nodes, 12 GPUs (8 x A100-40GB, 4 x L4)."


def test_a_program_without_pools_says_so(tmp_path: Path) -> None:
    plan = run_project(project(tmp_path, PYTHON, {"__main__.py": "import pulumi\npulumi.export('x', 1)\n"}), "dev")
    assert (plan.pools, pool_records(plan)) == ({}, None)
    assert capacity_report(plan.stack, plan.outputs, records=pool_records(plan)) == (
        "## GPU capacity: dev\n\nNo GPU pools with a capacity record: the program creates no node-pool component "
        "(EksGpuNodeGroup, AksGpuNodePool or GkeGpuNodePool) and exports no stack output `gpuPools`.\n"
    )
