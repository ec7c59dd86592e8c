"""A value not of its field's type names the valid values too, whatever the type (the rule of every error:
field, value, valid values): a settings section its keys, another mapping key: value pairs, a string, a list."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.errors import GpuSpecError
from gpu_components.spec import parse_pools


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"time_slicing": 4},
            "pools[0].time_slicing: input should be a valid dictionary (got 4); valid: a mapping with keys "
            "fail_requests_greater_than_one, rename_by_default, replicas, trusted",
        ),
        (
            {"labels": 5},
            "pools[0].labels: input should be a valid dictionary (got 5); valid: a mapping of key: value pairs",
        ),
        (
            {"labels": {"workload": ["inference"]}},
            "pools[0].labels['workload']: input should be a valid string (got ['inference']); valid: a string",
        ),
        ({"taints": {"key": "a"}}, "pools[0].taints: input should be a valid list (got {'key': 'a'}); valid: a list"),
    ],
)
def test_a_value_of_the_wrong_type_names_what_is_valid(change: dict[str, Any], expected: str) -> None:
    pool = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2, **change}
    with pytest.raises(GpuSpecError) as raised:
        parse_pools([pool], "aws")
    assert [str(problem) for problem in raised.value.problems] == [expected]
