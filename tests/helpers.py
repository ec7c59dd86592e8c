"""Shared test helpers: run a small program under the plan mocks and find what it registered.

The plan's own harness (:func:`gpu_components.plan.run_program`) is the only Pulumi mock harness of the tests:
:func:`plan_of` runs a program under it, :func:`plan_and` also hands back what the program built (for the plain
attributes of a component), :func:`plan_with_options` also records each resource's options, and
:func:`example_plan` plans an example stack once per test process.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pulumi
import pytest

from gpu_components.plan import Plan, PlannedResource, load_stack, run_program
from gpu_components.program import main as example_program

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: `Pulumi.yaml` and the example stacks' `stacks/Pulumi.<stack>.yaml`."""

BOTH_MODES = pytest.mark.parametrize("preview", [True, False], ids=["preview", "up"])
"""Run a test as `pulumi preview` and as `pulumi up`: the test takes a `preview` argument for `plan_of`."""

T = TypeVar("T")


def plan_of(program: Callable[[], None], preview: bool = True, config: dict[str, Any] | None = None) -> Plan:
    """Run ``program`` under the plan's mocks (project ``test``, stack ``unit``)."""
    return run_program(program, project="test", stack="unit", config=config or {}, preview=preview)


def plan_and(build: Callable[[], T], preview: bool = True, config: dict[str, Any] | None = None) -> tuple[Plan, T]:
    """Like :func:`plan_of`, also returning what ``build`` returned (a component, for its plain attributes).

    Outputs of what ``build`` returned cannot be read after the run: export them (``pulumi.export``) and read
    ``plan.outputs``.
    """
    built: list[T] = []
    plan = plan_of(lambda: built.append(build()), preview, config)
    return plan, built[0]


def plan_with_options(
    program: Callable[[], None], preview: bool = True, config: dict[str, Any] | None = None
) -> tuple[Plan, dict[str, dict[str, Any]]]:
    """Like :func:`plan_of`, also returning the options each resource is registered with, by resource name.

    Recorded by a stack transformation, which sees a resource's options once its component has merged its own in:
    ``replaceOnChanges`` and ``ignoreChanges`` (property names as given; the SDK sends camelCase names to the engine
    unchanged) and ``deleteBeforeReplace`` (False when unset, as the SDK sends it).
    """
    options: dict[str, dict[str, Any]] = {}

    def record(args: pulumi.ResourceTransformationArgs) -> None:
        options[args.name] = {
            "replaceOnChanges": list(args.opts.replace_on_changes or []),
            "ignoreChanges": list(args.opts.ignore_changes or []),
            "deleteBeforeReplace": bool(args.opts.delete_before_replace),
        }

    def recorded() -> None:
        pulumi.runtime.register_stack_transformation(record)
        program()

    return plan_of(recorded, preview, config), options


def resource(plan: Plan, type_: str, name: str) -> PlannedResource:
    """The one resource of ``type_`` named ``name``; fails listing what exists when absent."""
    found = [r for r in plan.resources if r.type == type_ and r.name == name]
    assert len(found) == 1, sorted((r.type, r.name) for r in plan.resources)
    return found[0]


def names(plan: Plan, type_: str) -> list[str]:
    """Names of every registered resource of ``type_``, sorted."""
    return sorted(r.name for r in plan.resources if r.type == type_)


def inputs_by_name(plan: Plan, type_: str) -> dict[str, Mapping[str, Any]]:
    """The registered inputs of every resource of ``type_``, by resource name."""
    return {r.name: r.inputs for r in plan.resources if r.type == type_}


def copy_example_project(directory: Path) -> Path:
    """``directory`` made a copy of the example project without its stacks: ``Pulumi.yaml`` (``main: stacks/``,
    ``stackConfigDir: stacks``) and the program, ``stacks/__main__.py``; a test writes its own stack files into
    ``directory / "stacks"``. Returns ``directory``."""
    (directory / "stacks").mkdir(parents=True, exist_ok=True)
    (directory / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (directory / "stacks" / "__main__.py").write_text((ROOT / "stacks" / "__main__.py").read_text())
    return directory


@functools.cache
def example_plan(stack: str) -> Plan:
    """The example stack ``stack`` planned as `gpu-components plan <stack>` plans it, once per test process.

    Shared by every test that reads it: read it, never change it. `tests/stacks/test_golden.py` compares it with
    the committed golden plan (the one test that reads a golden file to check a plan).
    """
    project, config = load_stack(ROOT, stack)
    return run_program(example_program, project=project, stack=stack, config=config)


WIRING: dict[str, dict[str, Any]] = {
    "aws": {"cluster_name": "gpu", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"},
    "azure": {"resource_group_name": "rg", "cluster_name": "gpu"},
    "gcp": {"cluster": "gpu", "location": "us-central1"},
}
"""Plain cluster wiring for each cloud's node-pool component, for tests that need pools to exist."""


def pool_components(cloud: str, pools: list[Any], gpu_stack: str = "auto", **options: Any) -> list[Any]:
    """Each cloud's node-pool component for each pool (named ``np-<pool>``), with :data:`WIRING`; call inside a
    program (``plan_of``). ``options`` go to every component (e.g. ``ami_type``)."""
    component = {"aws": "EksGpuNodeGroup", "azure": "AksGpuNodePool", "gcp": "GkeGpuNodePool"}[cloud]
    cls = getattr(importlib.import_module(f"gpu_components.{cloud}"), component)
    return [
        cls(f"np-{pool['name']}", {"pool": pool, **WIRING[cloud], "gpu_stack": gpu_stack, **options}) for pool in pools
    ]
