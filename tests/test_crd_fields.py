"""The shipped CRD field trees (``gpu_components/crd_fields.json``) are those of the reference CRDs, and the escape
hatches' path check reads them."""

from __future__ import annotations

import json
from pathlib import Path

from gpu_components import crd_fields

REFERENCE = Path(__file__).parent / "reference"


def test_the_shipped_trees_are_regenerated_from_the_reference_crds() -> None:
    assert json.loads(crd_fields.FIELDS_FILE.read_text()) == crd_fields.generate(REFERENCE)


def test_a_tree_marks_open_objects_arrays_and_scalars() -> None:
    node_pool = crd_fields.trees()["NodePool"]
    assert sorted(node_pool) == ["disruption", "limits", "replicas", "template", "weight"]
    assert node_pool["limits"] == crd_fields.OPEN
    assert node_pool["weight"] is None
    assert node_pool["template"]["spec"]["startupTaints"] == {
        "[]": {"effect": None, "key": None, "timeAdded": None, "value": None}
    }
    assert node_pool["disruption"]["budgets"]["[]"] == {
        "duration": None,
        "nodes": None,
        "reasons": {"[]": None},
        "schedule": None,
    }


def test_keys_under_an_open_object_and_in_array_items_are_checked_as_the_crd_allows() -> None:
    given = {
        "limits": {"anything": "1"},
        "template": {"spec": {"taints": [{"key": "a", "effect": "NoSchedule", "vale": "x"}]}},
    }
    [problem] = crd_fields.unknown_field_problems(given, "NodePool", "hatch")
    assert (problem.path, problem.value, problem.message, problem.valid) == (
        "hatch.template.spec.taints[0].vale",
        "vale",
        "not a field of the NodePool at spec.template.spec.taints[]; the CRD has "
        "spec.template.spec.startupTaints[].value and spec.template.spec.taints[].value and "
        "spec.template.spec.requirements[].values",
        "effect, key, timeAdded, value",
    )
