"""The oracle tests: real programs (NVIDIA's, Helm, Kubernetes) judge what the project renders.

Every test here carries the ``oracle`` marker (``make oracles``). Where Go is missing they are skipped with one line
that names what is missing. Each oracle test reports what it checked through the ``oracle_report`` fixture; after
the run one line per oracle is printed: configs checked, failures, versions used (also under pytest-xdist: the
workers append to one JSON-lines file the controller reads).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.oracles.build import OracleBuildError, go_missing, mark_go_tests, open_report, pins, take_report

REPORT_ENV = "GPU_COMPONENTS_ORACLE_REPORT"

Report = Callable[[str, int, int], None]
"""``report(oracle, configs_checked, failures)``: ``oracle`` is a name of ``oracles/pins.toml``."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_go_tests(items, Path(__file__).parent, pytest.mark.oracle, go_missing() or "")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A real program that could not be built or fetched (no module proxy, a bad pin) fails its test with Go's own
    message, not a Python traceback."""
    report: pytest.TestReport = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, OracleBuildError):
        report.longrepr = f"the oracle could not be built: {call.excinfo.value}"
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    open_report(REPORT_ENV, "gpu-components-oracles-")


@pytest.fixture
def oracle_report() -> Iterator[Report]:
    """Record what a test had a real program check: ``report("device-plugin", 412, 0)``."""
    lines: list[str] = []

    def report(oracle: str, checked: int, failures: int) -> None:
        assert oracle in pins(), f"{oracle!r} is not an oracle of oracles/pins.toml"
        lines.append(json.dumps({"oracle": oracle, "checked": checked, "failures": failures}))

    yield report
    with open(os.environ[REPORT_ENV], "a") as out:
        out.writelines(line + "\n" for line in lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    totals: dict[str, list[int]] = {}
    for line in take_report(config, REPORT_ENV):
        entry = json.loads(line)
        total = totals.setdefault(entry["oracle"], [0, 0])
        total[0] += entry["checked"]
        total[1] += entry["failures"]
    if not totals:
        return
    terminalreporter.section("oracles")
    pinned = pins()
    for name in sorted(totals):
        checked, failures = totals[name]
        pin = pinned[name]
        if checked == 0:
            line = f"oracle {name}: nothing checked, its tests did not run to the end (see above)"
        else:
            line = f"oracle {name}: {checked} checked, {failures} failures"
        terminalreporter.write_line(f"{line} ({pin['module']} {pin['version']})")
