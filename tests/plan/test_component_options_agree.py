"""For every node-pool component, what it registers as ``replace_on_changes`` / ``ignore_changes`` and what the plan's
diff reports agree.

Each cloud's facts say which options the library's component gives its node-pool resource
(:attr:`~gpu_components.cloud_facts.NodePoolResource.component`), which inputs the provider replaces it for
(``force_new``) and which it changes by recreating the nodes (``rolls``). These tests build each component under the
plan, check that the options it registered are those, and then change every input of the planned resource (and every
path its options name) one at a time and check the diff's verdict: an ignored path is no change, a
``replaceOnChanges`` or force-new path replaces and drains, a rolling path drains in place, anything else updates.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from gpu_components.cloud_facts import CLOUDS, NodePoolResource, facts_for
from gpu_components.plan import to_json
from gpu_components.plan.diff import DRAINS_REPLACED, diff
from gpu_components.plan.property_path import Path, contains, overlaps, parse, render
from tests.helpers import plan_of, pool_components

POOLS: dict[str, dict[str, Any]] = {
    "aws": {"name": "l4", "instance_type": "g6.xlarge", "max_size": 4, "spot": True, "time_slicing": {"replicas": 4}},
    "azure": {
        "name": "t4",
        "instance_type": "Standard_NC8as_T4_v3",
        "max_size": 4,
        "spot": True,
        "time_slicing": {"replicas": 4},
    },
    "gcp": {
        "name": "l4",
        "instance_type": "g2-standard-8",
        "max_size": 4,
        "spot": True,
        "time_slicing": {"replicas": 4},
    },
}
"""A spot, time-sliced pool per cloud: the most inputs a pool registers."""


def component_resources() -> Iterator[tuple[str, NodePoolResource]]:
    for cloud in CLOUDS:
        for resource in facts_for(cloud).node_pools:
            if resource.component is not None:
                yield cloud, resource


CASES = list(component_resources())
IDS = [f"{cloud}-{resource.type_token}" for cloud, resource in CASES]


def test_every_cloud_has_a_node_pool_component_record() -> None:
    assert sorted(cloud for cloud, _ in CASES) == sorted(CLOUDS)


def planned(cloud: str, type_token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The plan document of one node-pool component, and its node-pool resource's record in it."""
    plan = plan_of(lambda: pool_components(cloud, [POOLS[cloud]]))
    document = json.loads(to_json(plan))
    records = [r for r in document["resources"] if r["type"] == type_token]
    assert len(records) == 1, [r["type"] for r in document["resources"]]
    return document, records[0]


@pytest.mark.parametrize(("cloud", "resource"), CASES, ids=IDS)
def test_the_component_registers_the_options_its_facts_say(cloud: str, resource: NodePoolResource) -> None:
    assert resource.component is not None
    _, record = planned(cloud, resource.type_token)

    options = record["options"]
    assert options.get("replaceOnChanges", []) == list(resource.component.replace_on_changes)
    assert options.get("ignoreChanges", []) == list(resource.component.ignore_changes)
    assert options.get("deleteBeforeReplace", False) is resource.component.delete_before_replace


def leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    if isinstance(value, dict) and value:
        for key in sorted(value):
            yield from leaves(value[key], (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path


def changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-changed"
    if isinstance(value, list):
        return [*value, "added"]
    if isinstance(value, dict):
        return {**value, "added": "x"}
    return "changed"


def set_at(inputs: dict[str, Any], path: Path) -> None:
    """Change the value at ``path`` (creating it, as a string, where it does not exist)."""
    target: Any = inputs
    for element in path[:-1]:
        target = target.setdefault(element, {}) if isinstance(target, dict) else target[element]
    last = path[-1]
    if isinstance(target, dict):
        target[last] = changed(target.get(last, "absent"))
    else:
        target[last] = changed(target[last])


def expected_verdict(resource: NodePoolResource, path: Path) -> str:
    """What the engine does with a change at ``path``, from the facts alone: ``none``, ``replace``, ``roll``,
    ``update``."""
    assert resource.component is not None and resource.force_new is not None
    if any(contains(parse(p), path) for p in resource.component.ignore_changes):
        return "none"
    replacing = (*resource.force_new.fields, *resource.component.replace_on_changes)
    if any(overlaps(parse(p), path) for p in replacing):
        return "replace"
    rolls = resource.rolls
    spared = rolls is None or any(contains(parse(p), path) for p in rolls.unless)
    if rolls is not None and not spared and any(overlaps(parse(p), path) for p in rolls.fields):
        return "roll"
    return "update"


def verdict(old: dict[str, Any], new: dict[str, Any]) -> str:
    result = diff(old, new)
    if result.empty:
        return "none"
    (change,) = result.changed
    if change.action == "replace":
        assert change.drains == DRAINS_REPLACED
        return "replace"
    return "roll" if change.drains else "update"


@pytest.mark.parametrize(("cloud", "resource"), CASES, ids=IDS)
def test_the_diff_reports_every_input_change_as_the_components_options_and_the_facts_say(
    cloud: str, resource: NodePoolResource
) -> None:
    assert resource.component is not None
    document, record = planned(cloud, resource.type_token)
    option_paths = [parse(p) for p in (*resource.component.ignore_changes, *resource.component.replace_on_changes)]
    paths = sorted({*leaves(record["inputs"]), *option_paths}, key=render)
    seen: dict[str, str] = {}
    for path in paths:
        new = copy.deepcopy(document)
        target = next(r for r in new["resources"] if r["urn"] == record["urn"])
        set_at(target["inputs"], path)
        seen[render(path)] = verdict(document, new)
        assert seen[render(path)] == expected_verdict(resource, path), render(path)

    # What the component's own options say, whatever the provider's tables say.
    for path in resource.component.ignore_changes:
        assert seen[path] == "none", path
    for path in resource.component.replace_on_changes:
        assert seen[path] == "replace", path
    assert "update" in seen.values()  # some input does update in place
