"""The plan reads `Pulumi.yaml` and stack files as the Pulumi CLI does (gopkg.in/yaml.v3, YAML 1.2 core-schema
scalars), not as PyYAML's YAML 1.1 safe loader would: `spot: yes` is the string a real `pulumi up` hands the
program, so the plan rejects it as `pulumi up` would instead of planning `spot: true`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components._yaml import go_yaml_resolve, load_pulumi
from gpu_components.cli import main
from gpu_components.plan.runner import StackFileError, flatten_config, load_stack
from tests.helpers import copy_example_project


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # YAML 1.1's other booleans are strings (PyYAML: True/False).
        ("yes", "yes"),
        ("Yes", "Yes"),
        ("no", "no"),
        ("on", "on"),
        ("OFF", "OFF"),
        ("y", "y"),
        ("n", "n"),
        # YAML 1.2's booleans and nulls.
        ("true", True),
        ("True", True),
        ("FALSE", False),
        ("~", None),
        ("null", None),
        ("Null", None),
        ("", None),
        # Integers: yaml.v3 drops underscores (as PyYAML does) and reads 0o, 0x, 0b and a leading 0 (octal).
        ("1_0", 10),
        ("0o17", 15),
        ("0777", 511),
        ("0x1F", 31),
        ("0b101", 5),
        ("+12", 12),
        ("-0", 0),
        ("18446744073709551615", 2**64 - 1),
        # Floats: no dot needed (PyYAML: the string '1e3'); 08 is no octal, so a float.
        ("1e3", 1000.0),
        ("1.", 1.0),
        (".5", 0.5),
        ("1_000.5", 1000.5),
        ("08", 8.0),
        ("18446744073709551616", 1.8446744073709552e19),
        ("-.inf", -math.inf),
        # Strings: YAML 1.1's sexagesimal numbers (PyYAML: 90), an underscore after a leading dot, a bad date.
        ("1:30", "1:30"),
        (".5_0", ".5_0"),
        ("2001-13-14", "2001-13-14"),
        ("0x", "0x"),
        # Timestamps, as Pulumi's config makes them text (Go's time.Time.String()).
        ("2001-12-14", "2001-12-14 00:00:00 +0000 UTC"),
        ("2001-12-14 21:59:43.10", "2001-12-14 21:59:43.1 +0000 UTC"),
        ("2001-12-14T21:59:43.123456789012Z", "2001-12-14 21:59:43.123456789 +0000 UTC"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.1 -0500 -0500"),
        ("2001-12-14T21:59:43", "2001-12-14T21:59:43"),  # a T layout needs a zone
    ],
)
def test_plain_scalars_are_typed_as_yaml_v3_types_them(text: str, expected: Any) -> None:
    [value] = load_pulumi(f"- {text}\n")
    assert value == expected
    assert type(value) is type(expected)


def test_quoted_and_explicitly_tagged_scalars() -> None:
    document = load_pulumi("a: 'true'\nb: \"1_0\"\nc: !!int '1_0'\nd: !!float 1\ne: !!str 10\nf: !Ref x\n")
    assert document == {"a": "true", "b": "1_0", "c": 10, "d": 1.0, "e": "10", "f": "x"}
    assert type(document["d"]) is float


def test_merge_keys_still_merge() -> None:
    assert load_pulumi("a: &x {p: 1}\nb: {<<: *x, q: 2}\n") == {"a": {"p": 1}, "b": {"p": 1, "q": 2}}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\nb: 2\na: 3\n", "mapping key 'a' already defined at line 1"),
        ("x:\n  a: 1\n  'a': 2\n", "mapping key 'a' already defined at line 2"),
        ("a: !!bool yes\n", "cannot decode !!str `yes` as a !!bool"),
        ("a: !!int x\n", "cannot decode !!str `x` as a !!int"),
    ],
)
def test_what_yaml_v3_refuses_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(yaml.YAMLError) as raised:
        load_pulumi(text)
    assert problem in str(raised.value)


def test_resolve_names_each_tag() -> None:
    assert go_yaml_resolve("yes") == ("tag:yaml.org,2002:str", "yes")
    assert go_yaml_resolve("1_0") == ("tag:yaml.org,2002:int", 10)
    assert go_yaml_resolve("1e3") == ("tag:yaml.org,2002:float", 1000.0)
    # With an explicit tag other than !!timestamp, yaml.v3 does not try the timestamp layouts.
    assert go_yaml_resolve("2001-12-14", "tag:yaml.org,2002:int") == ("tag:yaml.org,2002:str", "2001-12-14")
    assert go_yaml_resolve("2001-12-14", "tag:yaml.org,2002:timestamp")[0] == "tag:yaml.org,2002:timestamp"


# ---------------------------------------------------------------------------------------- stack and project files


STACK = """\
config:
  p:spot: yes
  p:gpu_taint: on
  p:max_size: 1_0
  p:octal: 0o17
  p:scale: 1e3
  p:tilde: ~
  p:null: null
  p:true: true
  p:pool:
    spot: yes
    max_size: 1e3
    ratio: 1.5
"""


def write_project(tmp_path: Path, stack_text: str, project_text: str = "name: p\n") -> Path:
    (tmp_path / "Pulumi.yaml").write_text(project_text)
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_text)
    return tmp_path


def test_load_stack_types_values_as_pulumi_does(tmp_path: Path) -> None:
    _, config = load_stack(write_project(tmp_path, STACK), "dev")
    assert config == {
        "p:spot": "yes",
        "p:gpu_taint": "on",
        "p:max_size": 10,
        "p:octal": 15,
        "p:scale": 1000.0,
        "p:tilde": None,
        "p:null": None,
        "p:true": True,
        "p:pool": {"spot": "yes", "max_size": 1000.0, "ratio": 1.5},
    }


def test_project_defaults_are_typed_as_pulumi_does(tmp_path: Path) -> None:
    project = "name: p\nconfig:\n  spot:\n    default: yes\n  on: off\n"
    config = load_stack(write_project(tmp_path, "config: {}\n", project), "dev")
    assert config == ("p", {"p:spot": "yes", "p:on": "off"})


def test_whole_numbers_reach_the_program_as_the_engines_json_writes_them() -> None:
    flat, _ = flatten_config("p", {"scale": 1000.0, "pool": {"max_size": 1000.0, "ratio": 1.5, "big": 1e21}})
    assert flat == {"p:scale": "1000", "p:pool": '{"max_size": 1000, "ratio": 1.5, "big": 1e+21}'}
    assert json.loads(flat["p:pool"])["max_size"] == 1000


@pytest.mark.parametrize(
    ("stack_text", "problem"),
    [
        (
            "config:\n  p:a: 1\n  p:a: 2\n",
            "not valid YAML: while constructing a mapping (line 2, column 3): mapping key 'p:a' already defined at "
            "line 2 (line 3, column 3)",
        ),
        (
            "config:\n  p:pool:\n    max: .inf\n",
            "config value p:pool holds inf, which Pulumi cannot store (JSON has no infinity or NaN)",
        ),
    ],
)
def test_load_stack_refuses_what_pulumi_refuses(tmp_path: Path, stack_text: str, problem: str) -> None:
    with pytest.raises(StackFileError) as raised:
        load_stack(write_project(tmp_path, stack_text), "dev")
    assert str(raised.value) == f"{tmp_path / 'Pulumi.dev.yaml'}: {problem}"


# ------------------------------------------------------------------------------------------------ through the CLI


def plan_pool(tmp_path: Path, pool: str) -> Any:
    (tmp_path / "stacks").mkdir(exist_ok=True)
    copy_example_project(tmp_path)
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(
        "config:\n  aws:region: us-west-2\n  gpu-components:cloud: aws\n  gpu-components:cluster:\n    name: c\n"
        f"  gpu-components:pools:\n    - name: a10g\n      instance_type: g5.2xlarge\n{pool}"
    )
    return CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path)])


def test_spot_yes_is_a_config_error_as_under_pulumi_up(tmp_path: Path) -> None:
    result = plan_pool(tmp_path, "      max_size: 2\n      spot: yes\n      gpu_taint: on\n")
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output == (
        "Error: t: 2 invalid GPU settings:\n"
        "  - pools[0].spot: input should be a valid boolean (got 'yes'); valid: true, false\n"
        "  - pools[0].gpu_taint: input should be a valid boolean (got 'on'); valid: true, false\n"
    )


def test_a_date_is_the_text_pulumi_makes_of_it_not_a_traceback(tmp_path: Path) -> None:
    result = plan_pool(tmp_path, "      max_size: 2\n      labels:\n        since: 2024-01-01\n")
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "  - pools[0].labels['since']: not a valid label value (got '2024-01-01 00:00:00 +0000 UTC')" in (
        result.output
    )


def test_whole_numbers_in_any_spelling_plan_as_pulumi_up_runs_them(tmp_path: Path) -> None:
    result = plan_pool(tmp_path, "      max_size: 1_0\n      min_size: 1e0\n")
    assert result.exit_code == 0, result.output
    [group] = [r for r in json.loads(result.output)["resources"] if r["name"] == "c-gpu-a10g-node-group"]
    assert group["inputs"]["scalingConfig"] == {"desiredSize": 1, "maxSize": 10, "minSize": 1}
