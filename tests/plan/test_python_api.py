"""The Python API takes a directory or file as a `str` or any path-like, as the README writes it
(`run_project("infra", "dev")`), and a wrong argument is a `TypeError` that names it, raised before anything runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gpu_components.plan import load_project, load_stack, run_program, run_project, stack_config_dir
from gpu_components.plan.policy import (
    PolicyConfig,
    PolicyConfigError,
    PolicyPack,
    PolicyPackError,
    load_policy_config,
    run_policy_pack,
)
from tests.helpers import ROOT, example_plan

pytestmark = pytest.mark.stack


class PathLike(os.PathLike[str]):
    """A path-like that is neither a `str` nor a `Path` (as `os.DirEntry` and other libraries' paths are)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)


@pytest.mark.parametrize("kind", [str, PathLike], ids=["str", "path-like"])
def test_a_project_directory_may_be_a_str_or_a_path_like(kind: type) -> None:
    directory = kind(ROOT)
    assert load_stack(directory, "aws-eks") == load_stack(ROOT, "aws-eks")
    assert stack_config_dir(directory) == ROOT / "stacks"
    project = load_project(directory)
    assert (project.directory, project.stack_config_dir) == (ROOT, ROOT / "stacks")
    assert run_project(directory, "azure-aks").resources == example_plan("azure-aks").resources


@pytest.mark.parametrize("kind", [str, PathLike], ids=["str", "path-like"])
def test_a_policy_pack_and_its_config_may_be_a_str_or_a_path_like(kind: type, tmp_path: Path) -> None:
    pack = PolicyPack.load(kind(ROOT / "policy"))
    assert (pack.directory, pack.label) == (ROOT / "policy", f"local: {ROOT / 'policy'}")
    with pytest.raises(PolicyPackError, match=f"^no policy pack at {re.escape(str(tmp_path / 'none'))}: not a dir"):
        PolicyPack.load(kind(tmp_path / "none"))
    file = tmp_path / "policy.json"
    file.write_text('{"all": "advisory"}')
    assert load_policy_config(kind(file)) == {"all": PolicyConfig("advisory")}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"plan": {"stack": "dev"}},
            "run_policy_pack: plan must be a Plan (run_project(...) or run_program(...)), got dict",
        ),
        (
            {"pack": "policies/gpu"},
            "run_policy_pack: pack must be a PolicyPack (PolicyPack.load(directory) or PolicyPack.builtin()) or "
            "None, got str",
        ),
        (
            {"config": [PolicyConfig("advisory")]},
            "run_policy_pack: config must be a mapping of policy name -> PolicyConfig or enforcement level "
            "(load_policy_config(path)), got list",
        ),
        (
            {"config": {"all": {"enforcementLevel": "advisory"}}},
            "run_policy_pack: config['all'] must be a PolicyConfig or an enforcement level (advisory, mandatory, "
            "remediate, disabled), got {'enforcementLevel': 'advisory'} (dict)",
        ),
    ],
    ids=["plan", "pack", "config", "config value"],
)
def test_run_policy_pack_names_a_wrong_argument(arguments: dict[str, object], message: str) -> None:
    given: dict[str, object] = {"plan": example_plan("aws-eks"), **arguments}
    with pytest.raises(TypeError) as caught:
        run_policy_pack(**given)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_an_enforcement_level_alone_is_a_policy_config() -> None:
    with pytest.raises(PolicyConfigError) as caught:
        run_policy_pack(example_plan("aws-eks"), config={"all": "strict"})
    assert str(caught.value) == (
        "policy config 'all': 'strict' is not an enforcement level; valid: advisory, mandatory, remediate, disabled"
    )
    plan = example_plan("aws-eks")
    assert run_policy_pack(plan, config={"all": "mandatory"}) == run_policy_pack(
        plan, config={"all": PolicyConfig("mandatory")}
    )


@pytest.mark.parametrize("preview", ["false", 1, None])
def test_preview_must_be_a_bool(preview: object) -> None:
    expected = (
        "preview must be a bool (True: pulumi preview of a new stack; False: the state after pulumi up), "
        f"got {preview!r} ({type(preview).__name__})"
    )
    with pytest.raises(TypeError) as caught:
        run_program(lambda: None, project="p", stack="s", config={}, preview=preview)  # type: ignore[arg-type]
    assert str(caught.value) == f"run_program: {expected}"
    with pytest.raises(TypeError) as caught:
        run_project(ROOT, "aws-eks", preview=preview)  # type: ignore[arg-type]
    assert str(caught.value) == f"run_project: {expected}"
