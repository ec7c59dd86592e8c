"""Tests for gpu_components.plan.property_path: Pulumi's property paths, as the engine reads them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_components.plan.property_path import ANY, contains, overlaps, parse, render, reset


@pytest.mark.parametrize(
    ("path", "elements"),
    [
        ("count", ("count",)),
        ("scalingConfig.desiredSize", ("scalingConfig", "desiredSize")),
        ("nodeTaints[0]", ("nodeTaints", 0)),
        ('labels["nvidia.com/gpu"]', ("labels", "nvidia.com/gpu")),
        ('["key with \\"quotes\\""].x', ('key with "quotes"', "x")),
        ("nodeConfig.guestAccelerators[*].type", ("nodeConfig", "guestAccelerators", ANY, "type")),
        ("a.*.b", ("a", ANY, "b")),
        ("a[0][1].b", ("a", 0, 1, "b")),
        ("kubelet-device-plugins.nvidia", ("kubelet-device-plugins", "nvidia")),  # any characters up to . or [
        ("a.[0]", ("a", 0)),  # tolerated, as the engine does
    ],
)
def test_paths_parse_as_the_engine_parses_them(path: str, elements: tuple[Any, ...]) -> None:
    assert parse(path) == elements


@pytest.mark.parametrize("path", [".a", "a.", "a[0", 'a["b]', 'a["b"', "a[x]"])
def test_malformed_paths_are_errors(path: str) -> None:
    with pytest.raises(ValueError, match="property path"):
        parse(path)


def test_render_writes_what_parse_reads() -> None:
    for path in ("count", "a.b[0]", 'labels["nvidia.com/gpu"]', "a[*].b"):
        assert render(parse(path)) == path


def test_contains_is_the_path_or_beneath_it_with_wildcards() -> None:
    assert contains(parse("gpuProfile"), parse("gpuProfile.driver"))
    assert contains(parse("gpuProfile"), parse("gpuProfile"))
    assert not contains(parse("gpuProfile.driver"), parse("gpuProfile"))
    assert contains(parse("a[*].type"), parse("a[3].type"))
    assert not contains(parse("a[0].type"), parse("a[1].type"))
    assert overlaps(parse("gpuProfile.driver"), parse("gpuProfile"))


def reset_copy(path: str, old: Any, new: Any) -> tuple[bool, Any]:
    changed = copy.deepcopy(new)
    return reset(parse(path), old, changed), changed


def test_reset_puts_the_old_value_back() -> None:
    old = {"scalingConfig": {"desiredSize": 1, "maxSize": 4}, "count": 2}
    new = {"scalingConfig": {"desiredSize": 3, "maxSize": 6}, "count": 5}

    assert reset_copy("scalingConfig.desiredSize", old, new) == (
        True,
        {"scalingConfig": {"desiredSize": 1, "maxSize": 6}, "count": 5},
    )
    assert reset_copy("count", old, new) == (True, {"scalingConfig": {"desiredSize": 3, "maxSize": 6}, "count": 2})


def test_reset_removes_a_key_the_old_inputs_lack_and_keeps_one_they_have() -> None:
    assert reset_copy("count", {}, {"count": 3}) == (True, {})
    assert reset_copy("count", {"count": 3}, {}) == (True, {"count": 3})


def test_reset_fails_through_an_added_or_removed_element() -> None:
    # The engine then keeps the change ("cannot ignore changes in added or removed elements of the path").
    assert reset_copy("scalingConfig.desiredSize", {"scalingConfig": {"desiredSize": 1}}, {}) == (False, {})
    assert reset_copy("taints[1]", {"taints": ["a"]}, {"taints": ["a", "b"]}) == (False, {"taints": ["a", "b"]})
    ok, _ = reset_copy("scalingConfig.desiredSize", {}, {"scalingConfig": {"desiredSize": 1}})
    assert ok  # absent in the old inputs: removed from the new object, which exists


def test_reset_with_a_wildcard_resets_every_element() -> None:
    old = {"accelerators": [{"type": "a", "count": 1}, {"type": "b", "count": 1}]}
    new = {"accelerators": [{"type": "a", "count": 2}, {"type": "b", "count": 3}]}

    assert reset_copy("accelerators[*].count", old, new) == (True, old)
    assert reset_copy("tags.*", {"tags": {"a": "1"}}, {"tags": {"a": "2", "b": "3"}}) == (True, {"tags": {"a": "1"}})
