"""tools/mutation_report.py: the score and the survivors left, from mutmut's records (`make mutation`)."""

from __future__ import annotations

from pathlib import Path

from tools import mutation_report

RESULTS = """\
    gpu_components.spec.names.x_label_value_problems__mutmut_1: killed
    gpu_components.spec.names.x_label_value_problems__mutmut_2: survived
    gpu_components.spec.sharing.x_mps_client_limit__mutmut_3: survived
    gpu_components.spec.sharing.x_mps_client_limit__mutmut_4: no tests
    gpu_components.spec.pool.x_parse_pools__mutmut_9: timeout
"""
COUNTS = {"total": 5, "killed": 1, "survived": 2, "no_tests": 1, "timeout": 1, "skipped": 0}


def test_statuses_are_read_from_mutmuts_results() -> None:
    assert mutation_report.statuses(RESULTS + "\nsome other line\n") == {
        "gpu_components.spec.names.x_label_value_problems__mutmut_1": "killed",
        "gpu_components.spec.names.x_label_value_problems__mutmut_2": "survived",
        "gpu_components.spec.sharing.x_mps_client_limit__mutmut_3": "survived",
        "gpu_components.spec.sharing.x_mps_client_limit__mutmut_4": "no tests",
        "gpu_components.spec.pool.x_parse_pools__mutmut_9": "timeout",
    }


def test_the_report_gives_the_score_and_each_survivor_not_explained() -> None:
    explained = {"gpu_components.spec.sharing.x_mps_client_limit__mutmut_3": "same value either way"}
    text, left = mutation_report.report(COUNTS, mutation_report.statuses(RESULTS), explained)
    assert text.splitlines() == [
        "mutation: 5 mutants, 2 killed, 2 survived, 1 reached by no rule test, 1 timed out; score 40.0% "
        "(1 explained as equivalent, 2 left)",
        "  gpu_components.spec.names.x_label_value_problems: 2 (survived)",
        "  gpu_components.spec.sharing.x_mps_client_limit: 4 (no tests)",
    ]
    assert left == 2


def test_a_partial_run_scores_the_mutants_it_ran() -> None:
    """One module's run: mutmut counts every module's mutants in its total and marks the others "not checked"."""
    results = RESULTS + "    gpu_components.spec.hardware.x__mig__mutmut_1: not checked\n"
    text, left = mutation_report.report({**COUNTS, "total": 6}, mutation_report.statuses(results), {})
    assert text.splitlines()[0] == (
        "mutation: 6 mutants, 2 killed, 2 survived, 1 reached by no rule test, 1 timed out; score 40.0% of 5 run "
        "(1 not run) (0 explained as equivalent, 3 left)"
    )
    assert left == 3


def test_an_explanation_of_a_mutant_that_no_longer_exists_is_reported() -> None:
    text, left = mutation_report.report(
        {**COUNTS, "survived": 0, "no_tests": 0},
        {"gpu_components.spec.pool.x_build__mutmut_1": "killed"},
        {"gone": "x"},
    )
    assert text.splitlines()[1:] == ["  explained but no longer a mutant: gone"]
    assert left == 1


def test_the_equivalents_file_is_a_table_of_reasons(tmp_path: Path) -> None:
    path = tmp_path / "equivalents.toml"
    path.write_text('[mutants]\n"a.b.x_f__mutmut_1" = "the comparison is on whole numbers"\n')
    assert mutation_report.equivalents(path) == {"a.b.x_f__mutmut_1": "the comparison is on whole numbers"}
    assert mutation_report.equivalents(tmp_path / "missing.toml") == {}
