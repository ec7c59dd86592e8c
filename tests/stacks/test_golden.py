"""Every example stack's offline plan matches its committed golden JSON plan, byte for byte.

One test per stack config in ``stacks/`` (``Pulumi.<stack>.yaml``); the golden plan is
``tests/stacks/golden/<stack>.json``. Refresh after reviewing a change with ``make golden``. This is the one test
that checks a plan against its golden file; the other tests read or compare with the same in-process plan
(``tests.helpers.example_plan``), so a drift fails here, once per stack.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_components import program
from gpu_components.plan import load_stack, run_program, to_json
from tests.helpers import ROOT, example_plan

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

GOLDEN = Path(__file__).parent / "golden"
STACKS = sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@pytest.mark.parametrize("stack", STACKS)
def test_plan_matches_the_golden_plan_and_is_repeatable(stack: str) -> None:
    golden = GOLDEN / f"{stack}.json"
    first = to_json(example_plan(stack))  # the plan the other tests read
    project, config = load_stack(ROOT, stack)
    second = to_json(run_program(program.main, project=project, stack=stack, config=config))
    assert first == second, f"re-planning {stack} is not byte-identical"
    assert golden.is_file(), (
        f"no golden plan for stack {stack}: review `gpu-components plan {stack}` and run `make golden` "
        f"to write {golden.relative_to(ROOT)}"
    )
    assert first == golden.read_text(), (
        f"the {stack} plan drifted from {golden.relative_to(ROOT)}: review it, then run `make golden`"
    )


def test_every_golden_plan_belongs_to_a_stack() -> None:
    orphans = sorted(path.name for path in GOLDEN.glob("*.json") if path.stem not in STACKS)
    assert orphans == [], f"golden plans of stacks that no longer exist: {orphans}; delete them"
