"""Shared test helpers: run a small program under the plan mocks and find what it registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_components.plan import Plan, PlannedResource, run_program


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
