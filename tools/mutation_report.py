"""The mutation score of the rule modules, after `mutmut run` (`make mutation`; README, "Mutation testing").

Prints one summary line (mutants, killed, survived, no tests, timeouts, score), then every survivor and every mutant
no rule test reaches, grouped by function, leaving out those explained in ``tests/mutation_equivalents.toml`` (a
mutant that behaves exactly as the original, with the reason). Exits 1 when any is left, 0 otherwise, so the
scheduled job fails until each survivor is killed by a test or explained.

Reads mutmut's own records: ``mutmut export-cicd-stats`` (the counts) and ``mutmut results --all true`` (each
mutant's status), run in the repository root where ``mutants/`` is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tests" / "mutation_equivalents.toml"
UNKILLED = ("survived", "no tests")
NOT_CHECKED = "not checked"
"""mutmut's status of a mutant a run left out (one module's run leaves every other module's)."""


def _mutmut(*args: str) -> str:
    mutmut = Path(sys.executable).with_name("mutmut")
    return subprocess.run([str(mutmut), *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def statuses(results: str) -> dict[str, str]:
    """Mutant name -> status, from ``mutmut results --all true`` (lines ``<name>: <status>``)."""
    found: dict[str, str] = {}
    for line in results.splitlines():
        name, colon, status = line.strip().rpartition(": ")
        if colon and name.count("__mutmut_") == 1:
            found[name] = status
    return found


def equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Mutant name -> why it behaves as the original (``[mutants]`` of the file; none when it does not exist)."""
    if not path.exists():
        return {}
    table: dict[str, str] = tomllib.loads(path.read_text()).get("mutants", {})
    return table


def report(counts: dict[str, int], by_mutant: dict[str, str], explained: dict[str, str]) -> tuple[str, int]:
    """The report's text and how many unkilled mutants it lists (those not explained). Mutants a partial run
    (``mutmut run "<module>.*"``) did not check count neither way: the score is that of the mutants run."""
    killed = counts["killed"] + counts["timeout"]
    not_run = sum(1 for status in by_mutant.values() if status == NOT_CHECKED)
    counted = counts["total"] - counts["skipped"] - not_run
    score = 100.0 * killed / counted if counted else 100.0
    left = {name: status for name, status in by_mutant.items() if status in UNKILLED and name not in explained}
    partial = f" of {counted} run ({not_run} not run)" if not_run else ""
    lines = [
        f"mutation: {counts['total']} mutants, {killed} killed, {counts['survived']} survived, "
        f"{counts['no_tests']} reached by no rule test, {counts['timeout']} timed out; score {score:.1f}%{partial} "
        f"({len(explained)} explained as equivalent, {len(left)} left)"
    ]
    by_function: dict[str, list[str]] = defaultdict(list)
    for name, status in sorted(left.items()):
        function, _, number = name.rpartition("__mutmut_")
        by_function[function].append(f"{number} ({status})")
    lines += [f"  {function}: {', '.join(numbers)}" for function, numbers in sorted(by_function.items())]
    stale = sorted(set(explained) - set(by_mutant))
    lines += [f"  explained but no longer a mutant: {name}" for name in stale]
    return "\n".join(lines), len(left) + len(stale)


def main() -> int:
    _mutmut("export-cicd-stats")
    counts = json.loads((ROOT / "mutants" / "mutmut-cicd-stats.json").read_text())
    text, left = report(counts, statuses(_mutmut("results", "--all", "true")), equivalents())
    print(text)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
