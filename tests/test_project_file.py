"""``Pulumi.yaml`` is a valid Pulumi project file (Pulumi's own schema, a copy in ``tests/reference/pulumi/``) and
runs the example program in the environment the Makefile makes: uv's toolchain, ``.venv``, ``stacks/``."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_pulumi_yaml_validates_against_pulumis_project_schema() -> None:
    schema = json.loads((ROOT / "tests" / "reference" / "pulumi" / "project.json").read_text())
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    jsonschema.Draft202012Validator(schema).validate(project)
    assert (project["name"], project["main"], project["stackConfigDir"]) == ("gpu-components", "stacks/", "stacks")


def test_pulumi_runs_the_program_with_uv_in_the_makefiles_virtualenv() -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "uv", "virtualenv": ".venv"}}
    makefile = (ROOT / "Makefile").read_text()
    assert "VENV := .venv\n" in makefile
    assert "$(UV) sync --locked" in makefile
