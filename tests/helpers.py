"""Shared test helpers: run a small program under the plan mocks and find what it registered."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpu_components.plan import Plan, PlannedResource, load_stack, run_program
from gpu_components.program import main as example_program

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: `Pulumi.yaml` and the example stacks' `stacks/Pulumi.<stack>.yaml`."""


def plan_of(program: Callable[[], None], preview: bool = True, config: dict[str, Any] | None = None) -> Plan:
    """Run ``program`` under the plan's mocks (project ``test``, stack ``unit``)."""
    return run_program(program, project="test", stack="unit", config=config or {}, preview=preview)


def resource(plan: Plan, type_: str, name: str) -> PlannedResource:
    """The one resource of ``type_`` named ``name``; fails listing what exists when absent."""
    found = [r for r in plan.resources if r.type == type_ and r.name == name]
    assert len(found) == 1, sorted((r.type, r.name) for r in plan.resources)
    return found[0]


def names(plan: Plan, type_: str) -> list[str]:
    """Names of every registered resource of ``type_``, sorted."""
    return sorted(r.name for r in plan.resources if r.type == type_)


@functools.cache
def example_plan(stack: str) -> Plan:
    """The example stack ``stack`` planned as `gpu-components plan <stack>` plans it, once per test process.

    Shared by every test that reads it: read it, never change it. `tests/stacks/test_golden.py` compares it with
    the committed golden plan (the one test that reads a golden file to check a plan).
    """
    project, config = load_stack(ROOT, stack)
    return run_program(example_program, project=project, stack=stack, config=config)
