"""Which field paths the provisioners' custom resources have, so an escape hatch (``node_pool_spec``,
``node_class_spec``) never puts a key where the CRD has no field.

The package ships no CRD copies: ``crd_fields.json`` beside this module holds a compact field tree of each kind's
``spec``, generated from the CRDs under ``tests/reference/`` by ``python -m gpu_components.crd_fields
tests/reference`` (a test regenerates it and compares, so it cannot drift from them). A tree maps each property name
to the tree of its value: a nested mapping for an object whose properties the CRD lists, ``{"[]": item}`` for an
array, ``"*"`` for an object that takes any key (``additionalProperties``, ``x-kubernetes-preserve-unknown-fields``,
or no listed properties), and ``null`` for a scalar.

EKS Auto Mode's ``NodeClass`` has no tree: its only schema copy predates fields AWS documents since (see
``SOURCES.md``), so a field missing there is unknown, not invalid.
"""

from __future__ import annotations

import difflib
import functools
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from gpu_components.errors import Problem

FIELDS_FILE = Path(__file__).with_name("crd_fields.json")
"""The generated field trees (kind -> tree of its ``spec``)."""
CRDS: Mapping[str, str] = {
    "NodePool": "karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml",
    "EC2NodeClass": "karpenter/aws-v1.14.1/karpenter.k8s.aws_ec2nodeclasses.yaml",
    "AKSNodeClass": "karpenter-azure/v1.14.2/karpenter.azure.com_aksnodeclasses.yaml",
}
"""Kind -> its CRD under ``tests/reference/`` (the versions the library renders against)."""
SOURCES: Mapping[str, str] = {
    "NodePool": "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml",
    "EC2NodeClass": "https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/"
    "karpenter.k8s.aws_ec2nodeclasses.yaml",
    "AKSNodeClass": "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/apis/crds/"
    "karpenter.azure.com_aksnodeclasses.yaml",
}
"""Kind -> the upstream CRD its tree comes from."""
OPEN = "*"
ITEMS = "[]"


def tree_of(schema: Mapping[str, Any]) -> Any:
    """The field tree of an OpenAPI schema (see the module docstring)."""
    kind = schema.get("type")
    if kind == "array":
        return {ITEMS: tree_of(schema.get("items", {}))}
    if kind != "object" and "properties" not in schema:
        return None
    properties = schema.get("properties")
    if not properties or schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("additionalProperties"):
        return OPEN
    return {name: tree_of(value) for name, value in sorted(properties.items())}


def generate(reference: Path) -> dict[str, Any]:
    """The trees of :data:`CRDS`' ``spec`` (their first served version's schema), from the CRDs under
    ``reference``."""
    trees: dict[str, Any] = {}
    for kind, file in CRDS.items():
        crd = yaml.safe_load((reference / file).read_text())
        schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        trees[kind] = tree_of(schema["properties"]["spec"])
    return trees


@functools.cache
def trees() -> dict[str, Any]:
    """The shipped trees (:data:`FIELDS_FILE`)."""
    loaded: dict[str, Any] = json.loads(FIELDS_FILE.read_text())
    return loaded


def _paths(tree: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(tree, Mapping):
        for name, sub in tree.items():
            path = f"{prefix}{name}" if name == ITEMS else f"{prefix}.{name}" if prefix else name
            yield path
            yield from _paths(sub, path)


def _closest(key: str, kind: str) -> list[str]:
    """Where ``kind``'s spec has a field named ``key`` (or, failing that, a close name)."""
    paths = [path for path in _paths(trees()[kind]) if not path.endswith(ITEMS)]
    exact = [path for path in paths if path.rsplit(".", 1)[-1] == key]
    if exact:
        return exact
    close = difflib.get_close_matches(key, sorted({path.rsplit(".", 1)[-1] for path in paths}), n=2)
    return [path for name in close for path in paths if path.rsplit(".", 1)[-1] == name]


def unknown_field_problems(given: object, kind: str, path: str, owned: tuple[str, ...] = ()) -> list[Problem]:
    """Keys of ``given`` (an escape hatch's value at ``path``, a ``spec`` of ``kind``) at a path ``kind``'s CRD has no
    field for, each with where the CRD has a field of that name (or a close one), e.g. ``startupTaints`` at the top
    of a NodePool's spec: it is ``template.spec.startupTaints`` (said to be the library's when under one of the
    ``owned`` spec keys)."""
    return _walk(given, trees()[kind], kind, path, "", owned)


def _walk(given: object, tree: Any, kind: str, path: str, at: str, owned: tuple[str, ...]) -> list[Problem]:
    if isinstance(tree, Mapping) and ITEMS in tree:
        items = given if isinstance(given, list) else []
        return [
            problem
            for index, item in enumerate(items)
            for problem in _walk(item, tree[ITEMS], kind, f"{path}[{index}]", f"{at}[]", owned)
        ]
    if not isinstance(tree, Mapping) or not isinstance(given, Mapping):
        return []
    problems: list[Problem] = []
    for key, value in given.items():
        if key in tree:
            problems += _walk(value, tree[key], kind, f"{path}.{key}", f"{at}.{key}" if at else str(key), owned)
            continue
        closest = _closest(str(key), kind)
        hint = f"; the CRD has {' and '.join(f'spec.{c}' for c in closest)}" if closest else ""
        if closest and all(c.split(".", 1)[0].split("[", 1)[0] in owned for c in closest):
            hint += ", which gpu_components sets from the pool"
        problems.append(
            Problem(
                f"{path}.{key}",
                key,
                f"not a field of the {kind} at spec{'.' + at if at else ''}{hint}",
                ", ".join(tree),
                SOURCES[kind],
            )
        )
    return problems


def main(argv: list[str]) -> int:
    """``python -m gpu_components.crd_fields <tests/reference>``: rewrite :data:`FIELDS_FILE`."""
    if len(argv) != 1:
        print("usage: python -m gpu_components.crd_fields <path of tests/reference>", file=sys.stderr)
        return 2
    FIELDS_FILE.write_text(json.dumps(generate(Path(argv[0])), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
