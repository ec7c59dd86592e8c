"""The language tests: the package from other Pulumi languages, with the real Pulumi CLI and SDK toolchains.

Every test here carries the ``languages`` marker (``make languages``). Where Go is missing they are skipped with one
line that names what is missing (the Pulumi CLI and the code generators are built from the Go module proxy).

Each test records what a language reached through :func:`record` (or the ``languages_record`` fixture);
after the run one table is printed: language -> SDK generated -> compiles -> program type-checks -> preview
reached. Under pytest-xdist the workers append to one JSON-lines file the controller reads, as the oracles do.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.languages.cli import Pulumi, pulumi_binaries
from tests.oracles.build import mark_go_tests, open_report, take_report

REPORT_ENV = "GPU_COMPONENTS_LANGUAGES_REPORT"

STEPS = ("sdk", "compiles", "typechecks", "preview")
"""The table's columns, in order: SDK generated, compiles, program type-checks, preview reached."""

HEADERS = {
    "sdk": "SDK generated",
    "compiles": "compiles",
    "typechecks": "program type-checks",
    "preview": "preview reached",
}

RESULTS = ("yes", "no", "blocked", "n/a")
"""``yes``: done and checked; ``no``: tried and failed; ``blocked``: cannot be tried here (say why in ``detail``);
``n/a``: the step does not apply to the language (YAML has no SDK to generate or compile)."""

Record = Callable[..., None]


def record(language: str, step: str, result: str, detail: str = "") -> None:
    """Record one cell of the languages table: ``record("typescript", "compiles", "yes")``.

    ``step`` is one of :data:`STEPS`, ``result`` one of :data:`RESULTS`; ``detail`` (one short line, e.g. the
    reason a step is blocked) is printed under the table. The last record of a (language, step) wins, except that a
    ``no`` is never overwritten by a ``yes``.
    """
    assert step in STEPS, f"{step!r}: a step is one of {STEPS}"
    assert result in RESULTS, f"{result!r}: a result is one of {RESULTS}"
    path = os.environ.get(REPORT_ENV)
    if not path:
        return
    with open(path, "a") as out:
        out.write(json.dumps({"language": language, "step": step, "result": result, "detail": detail}) + "\n")


@pytest.fixture
def languages_record() -> Record:
    """:func:`record`, as a fixture."""
    return record


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_go_tests(
        items,
        Path(__file__).parent,
        pytest.mark.languages,
        "Go is not on PATH: the language tests build the Pulumi CLI, its YAML language host and the SDK generators "
        "from the Go module proxy",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    open_report(REPORT_ENV, "gpu-components-languages-")


def table(lines: list[str]) -> list[str]:
    """The languages table (markdown) from the recorded JSON lines, and the details under it."""
    cells: dict[str, dict[str, str]] = {}
    details: list[str] = []
    for line in lines:
        entry = json.loads(line)
        row = cells.setdefault(entry["language"], {})
        if row.get(entry["step"]) != "no" or entry["result"] == "no":
            row[entry["step"]] = entry["result"]
        if entry.get("detail"):
            note = f"{entry['language']} / {HEADERS[entry['step']]}: {entry['detail']}"
            if note not in details:
                details.append(note)
    if not cells:
        return []
    out = [
        "| language | " + " | ".join(HEADERS[s] for s in STEPS) + " |",
        "|---|" + "---|" * len(STEPS),
    ]
    for language in sorted(cells):
        out.append(f"| {language} | " + " | ".join(cells[language].get(s, "-") for s in STEPS) + " |")
    return out + details


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    rows = table(take_report(config, REPORT_ENV))
    if not rows:
        return
    terminalreporter.section("languages")
    for row in rows:
        terminalreporter.write_line(row)


@pytest.fixture(scope="session")
def pulumi_built() -> dict[str, Path]:
    """The Pulumi CLI and YAML language host of ``oracles/pins.toml``, built once (``tests/languages/cli.py``)."""
    return pulumi_binaries()


@pytest.fixture
def pulumi(pulumi_built: dict[str, Path], tmp_path: Path) -> Pulumi:
    """The built CLI in a fresh sandbox (its own ``PULUMI_HOME``, file backend, passphrase, no plugin downloads)."""
    return Pulumi(pulumi_built, tmp_path / "sandbox")
