"""gpu_components.cel: one CEL selector, parsed and checked against what a driver publishes."""

from __future__ import annotations

import pytest

from gpu_components.cel import selector_problems

PUBLISHED = ({"dra.example.com": ("model",)}, {"dra.example.com": ("slot<N>",)})


def test_names_are_checked_only_when_the_class_publishes_known_names() -> None:
    expression = "device.attributes['dra.example.com'].modle == 'a'"
    assert selector_problems(expression, "selectors[0]", "other.example.com", None, None) == []
    [problem] = selector_problems(expression, "selectors[0]", "example", PUBLISHED, "https://example.com/driver")
    assert (problem.message, problem.valid, problem.source) == (
        "device.attributes['dra.example.com'].modle: NVIDIA's DRA driver publishes no attribute 'modle' for "
        "DeviceClass example (did you mean 'model'?), so the selector never matches",
        "model",
        "https://example.com/driver",
    )


@pytest.mark.parametrize(
    ("expression", "kind"),
    [
        ("1", "a number"),
        ("-1.5", "a number"),
        ("b'x'", "bytes"),
        ("null", "null"),
        ("[true]", "a list"),
        ("{'a': true}", "a map"),
        ("(2 * 3)", "arithmetic"),
        ("-device.capacity['dra.example.com'].slot3", "arithmetic"),
    ],
)
def test_plain_non_bool_values_are_named(expression: str, kind: str) -> None:
    [problem] = selector_problems(expression, "selectors[0]", "example", PUBLISHED, None)
    assert (
        problem.message == f"evaluates to {kind}, not a bool; a selector must evaluate to true or false for each device"
    )


@pytest.mark.parametrize(
    "expression",
    [
        "true",
        "device.capacity['dra.example.com'].slot12 > 0 ? true : false",
        "device.attributes['dra.example.com'].model",
    ],
)
def test_bools_and_values_known_only_when_evaluated_pass(expression: str) -> None:
    assert selector_problems(expression, "selectors[0]", "example", PUBLISHED, None) == []
