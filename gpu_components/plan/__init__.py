"""Offline plan: run a Pulumi program under realistic mocks and render what it would create.

- `run_project(directory, stack)` → `ProjectPlan`: the Pulumi Python or YAML project in `directory` (its `Pulumi.yaml`
  names the program, `main:`, and the stack config directory) planned as `pulumi up` would leave a new stack
  (`preview=True`: as `pulumi preview` of a new stack shows it, computed outputs unknown), with the
  capacity records of the node-pool components its program created (`pools`); `load_project(directory)` →
  `Project`. A program that raises raises `ProgramError` (type, message, and the program's file and line).
- `run_program(program, project=..., stack=..., config=...)` → `Plan` (resources with parents and
  inputs, stack outputs; secrets masked), deterministic and repeatable in one process.
- `load_stack(root, stack)` → (project name, stack config) as the Pulumi CLI reads them; a malformed
  `Pulumi.yaml` or stack file raises `StackFileError` naming the file and the problem.
- `to_json(plan)` / `to_tree(plan)` → deterministic text.
- `PlanMocks` / `PlanMonitor` → the mocks themselves, for tests that call `pulumi.runtime.set_mocks`.
"""

from __future__ import annotations

from gpu_components.plan.mocks import SECRET, UNKNOWN, DuplicateResourceError, MissingMockError, PlanMocks, PlanMonitor
from gpu_components.plan.project import ProgramError, Project, ProjectPlan, load_project, run_project
from gpu_components.plan.render import to_json, to_tree
from gpu_components.plan.runner import (
    Plan,
    PlannedResource,
    StackFileError,
    StackNotFoundError,
    flatten_config,
    load_stack,
    run_program,
    stack_config_dir,
)

__all__ = [
    "SECRET",
    "UNKNOWN",
    "DuplicateResourceError",
    "MissingMockError",
    "Plan",
    "PlanMocks",
    "PlanMonitor",
    "PlannedResource",
    "ProgramError",
    "Project",
    "ProjectPlan",
    "StackFileError",
    "StackNotFoundError",
    "flatten_config",
    "load_project",
    "load_stack",
    "run_program",
    "run_project",
    "stack_config_dir",
    "to_json",
    "to_tree",
]
