"""``GpuSpecError`` is Pulumi's own input error: one ``{"property_path", "reason"}`` per problem."""

from __future__ import annotations

import pickle

import pulumi

from gpu_components.errors import Combined, Default, GpuSpecError, Problem

PROBLEMS = [
    Problem("pools[0].name", "GPU", "not a DNS label", "lowercase a-z, 0-9 and -", "RFC 1123"),
    Problem("pools[1].max_size", 0, "a pool needs room for at least one node", ">= 1"),
]


def test_the_error_is_an_input_properties_error_with_one_entry_per_problem() -> None:
    error = GpuSpecError(PROBLEMS)
    assert isinstance(error, pulumi.InputPropertiesError)
    assert isinstance(error, ValueError)
    assert error.errors == [
        {
            "property_path": "pools[0].name",
            "reason": "not a DNS label (got 'GPU'); valid: lowercase a-z, 0-9 and - [source: RFC 1123]",
        },
        {
            "property_path": "pools[1].max_size",
            "reason": "a pool needs room for at least one node (got 0); valid: >= 1",
        },
    ]


def test_the_message_lists_every_problem_with_its_path() -> None:
    error = GpuSpecError(PROBLEMS)
    assert (
        error.message
        == str(error)
        == (
            "2 invalid GPU settings:\n"
            "  - pools[0].name: not a DNS label (got 'GPU'); valid: lowercase a-z, 0-9 and - [source: RFC 1123]\n"
            "  - pools[1].max_size: a pool needs room for at least one node (got 0); valid: >= 1"
        )
    )


def test_the_error_survives_pickling_with_its_problems() -> None:
    copy = pickle.loads(pickle.dumps(GpuSpecError(PROBLEMS)))
    assert (copy.problems, copy.errors, str(copy)) == (tuple(PROBLEMS), GpuSpecError(PROBLEMS).errors, str(copy))


def test_a_default_is_shown_as_the_default_not_as_a_value_given() -> None:
    problem = Problem("pools[0].mig.strategy", Default("single"), "needs the mixed strategy", "mixed")
    assert problem.reason == "needs the mixed strategy (default: single); valid: mixed"


def test_a_combination_names_its_fields_and_they_move_under_a_prefix() -> None:
    problem = Problem("pools[1].mps", Combined(("pools[1].mps", "pools[0].mig.strategy")), "MPS under mixed")
    assert problem.reason == "MPS under mixed (combines pools[1].mps and pools[0].mig.strategy)"
    assert str(problem.under("gpu_operator")) == (
        "gpu_operator.pools[1].mps: MPS under mixed (combines gpu_operator.pools[1].mps and "
        "gpu_operator.pools[0].mig.strategy)"
    )
