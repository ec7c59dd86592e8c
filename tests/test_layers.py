"""The package's imports run one way (design notes and README, "Layout"): no import cycle between its modules, and no
module importing from a floor above its own (the layers contract in pyproject.toml, ``[tool.importlinter]``).

Both read grimp's graph of the package, which holds every import statement: module level, inside functions and under
``TYPE_CHECKING`` alike, so an import moved into a function to dodge a cycle still counts.
"""

from __future__ import annotations

import graphlib
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
FACADES = frozenset({"gpu_components", "gpu_components.aws", "gpu_components.azure", "gpu_components.gcp"})
"""Packages whose ``__init__`` re-exports public names lazily, above every floor (pyproject.toml's comment)."""


def import_cycle(package: str) -> list[str] | None:
    """One import cycle between the modules of ``package`` (each module once, the first repeated at the end, each
    arrow with the line of its import), or ``None`` when its imports form no cycle."""
    graph = grimp.build_graph(package, cache_dir=None)
    sorter = graphlib.TopologicalSorter(
        {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    )
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        cycle: list[str] = error.args[1]
        steps = []
        for importer, imported in zip(cycle[1:], cycle[:-1], strict=True):
            lines = sorted(
                detail["line_number"] for detail in graph.get_import_details(importer=importer, imported=imported)
            )
            steps.append(f"{importer} -> {imported} (line {', '.join(map(str, lines))})")
        return steps
    return None


def floors() -> list[list[str]]:
    """The floors of pyproject.toml's layers contract, top first, each the modules (with their submodules) on it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "floors"]
    return [[name.strip() for name in layer.split(":")] for layer in contract["layers"]]


def test_the_package_has_no_import_cycle() -> None:
    assert import_cycle("gpu_components") is None


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("from circle.high import VALUE\n")
    (package / "high.py").write_text(
        textwrap.dedent(
            """\
            VALUE = 1


            def late() -> int:
                from circle import low

                return low.VALUE
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cycle = import_cycle("circle")
    assert cycle is not None
    assert sorted(cycle) == ["circle.high -> circle.low (line 5)", "circle.low -> circle.high (line 1)"]


def test_no_module_imports_from_a_floor_above_its_own() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 1 kept, 0 broken." in done.stdout


def test_every_module_is_on_exactly_one_floor() -> None:
    graph = grimp.build_graph("gpu_components", cache_dir=None)
    named = [name for floor in floors() for name in floor]
    assert len(named) == len(set(named))
    placed = {
        module: [name for name in named if module == name or module.startswith(name + ".")]
        for module in sorted(graph.modules - FACADES)
    }
    assert {module: names for module, names in placed.items() if len(names) != 1} == {}


def test_the_floors_are_the_design_notes_seven() -> None:
    """Top first: plan / policy / CLI, composition, adapters and components, renderers, spec, catalog and facts, value
    types (the order the README's Layout section draws)."""
    found = floors()
    assert [len(found), found[0][0], found[1][0], found[2][0], found[3][0], found[4][0], found[5][0], found[6][0]] == [
        7,
        "gpu_components.cli",
        "gpu_components.cluster",
        "gpu_components.adapter",
        "gpu_components.nvidia",
        "gpu_components.spec",
        "gpu_components.catalog",
        "gpu_components.errors",
    ]
