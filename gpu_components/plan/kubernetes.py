"""Everything a plan renders into the cluster, as Kubernetes YAML: manifests, then the Helm values per release.

``to_kubernetes_yaml(plan)`` is a multi-document YAML stream, deterministic (same plan, same bytes):

- one document per Kubernetes object the program registers (``kubernetes:<group>/<version>:<Kind>`` resources
  with ``apiVersion`` and ``kind``: Namespaces, ConfigMaps, Jobs, ...), ordered the way ``kubectl apply`` wants
  them (Namespaces, then CustomResourceDefinitions, then the rest), then by namespace, name and URN. Keys come in
  Kubernetes' usual order (``apiVersion``, ``kind``, ``metadata``, then the rest sorted); multi-line strings
  (ConfigMap data) as literal blocks. An object without ``metadata.name`` (Pulumi auto-names it at deploy time)
  gets the resource's logical name, noted in its header comment.
- one document per Helm release (``kubernetes:helm.sh/v3:Release``, ``kubernetes:helm.sh/v4:Chart``) holding
  exactly the values passed to the chart, so ``helm template <chart> -f <that document>`` renders what Pulumi
  would install. Its header comment names the chart, version, repository, release name and namespace. These
  documents are values files, not manifests: they have no ``apiVersion``/``kind``.

Each document starts with ``# <type> <logical name>``. Secrets read ``"[secret]"`` and preview-time unknowns
``"[unknown]"``, as in every plan, with one exception that keeps each document of the shape Kubernetes (or Helm)
expects: a field that Kubernetes types as a map (:data:`MAP_FIELDS`: a Secret's ``stringData``, ``data``, a
ConfigMap's ``binaryData``, ``metadata.labels`` and ``annotations``) or a release's Helm values, masked whole (a
secret ``Output`` of a whole map, or a map unknown in a preview), is written as an empty map ``{}``, and a header
comment names the field and its mask (``# stringData: [secret] in the plan (its keys and values are not shown); {}
stands in``). A map whose keys are known and whose values are masked is written as it is (``password: '[secret]'``),
which is already a map of strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from gpu_components.plan.mocks import SECRET, UNKNOWN
from gpu_components.plan.runner import Plan, PlannedResource

__all__ = ["HELM_TYPES", "MAP_FIELDS", "KubernetesDocument", "kubernetes_documents", "to_kubernetes_yaml"]

HELM_TYPES = frozenset({"kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart"})
"""Resource types whose ``values`` input is a Helm chart's values."""
_FIRST_KINDS = ("Namespace", "CustomResourceDefinition")
"""Kinds applied before everything else, in this order."""
_LEADING_KEYS = ("apiVersion", "kind", "metadata")
MAP_FIELDS: tuple[tuple[str, ...], ...] = (
    ("data",),
    ("stringData",),
    ("binaryData",),
    ("metadata", "labels"),
    ("metadata", "annotations"),
)
"""Paths in a manifest that Kubernetes types as a map of strings (``object`` with ``additionalProperties: string`` in
the Kubernetes OpenAPI schema: Secret ``data``/``stringData``, ConfigMap ``data``/``binaryData``, ObjectMeta
``labels``/``annotations``): masked whole, each is written as ``{}`` with a header comment."""
_MASKS = (SECRET, UNKNOWN)


@dataclass(frozen=True)
class KubernetesDocument:
    """One YAML document: a manifest (``body`` is the object) or Helm values (``body`` is the values mapping)."""

    kind: Literal["manifest", "helm-values"]
    resource: PlannedResource
    body: Mapping[str, Any]
    comments: tuple[str, ...]


def kubernetes_documents(plan: Plan) -> list[KubernetesDocument]:
    """The plan's Kubernetes manifests (ordered for ``kubectl apply``), then its Helm values (by URN)."""
    manifests: list[KubernetesDocument] = []
    values: list[KubernetesDocument] = []
    for resource in plan.resources:
        if resource.type in HELM_TYPES:
            values.append(_helm_values(resource))
        elif resource.type.startswith("kubernetes:") and {"apiVersion", "kind"} <= set(resource.inputs):
            manifests.append(_manifest(resource))
    manifests.sort(key=_manifest_order)
    values.sort(key=lambda document: document.resource.urn)
    return [*manifests, *values]


def to_kubernetes_yaml(plan: Plan) -> str:
    """All documents of :func:`kubernetes_documents` as one YAML stream (each starts with ``---``), ending with a
    newline; an empty string when the plan renders nothing into the cluster."""
    parts = []
    for document in kubernetes_documents(plan):
        header = "\n".join(f"# {line}" for line in document.comments)
        parts.append(f"---\n{header}\n{_dump(document.body)}")
    return "".join(parts)


def _manifest(resource: PlannedResource) -> KubernetesDocument:
    inputs = dict(resource.inputs)
    comments = [f"{resource.type} {resource.name}"]
    metadata = dict(inputs.get("metadata") or {})
    if not metadata.get("name"):
        metadata["name"] = resource.name
        comments.append("metadata.name: the logical name; Pulumi appends a random suffix when it creates the object")
    inputs["metadata"] = metadata
    for path in MAP_FIELDS:
        parent = inputs if len(path) == 1 else inputs.get(path[0])
        if isinstance(parent, dict) and parent.get(path[-1]) in _MASKS:
            comments.append(_masked_map(".".join(path), parent[path[-1]]))
            parent[path[-1]] = {}
    body = {key: _sorted(inputs[key]) for key in _LEADING_KEYS if key in inputs}
    body.update({key: _sorted(inputs[key]) for key in sorted(inputs) if key not in _LEADING_KEYS})
    return KubernetesDocument("manifest", resource, body, tuple(comments))


def _helm_values(resource: PlannedResource) -> KubernetesDocument:
    inputs = resource.inputs
    repository = (inputs.get("repositoryOpts") or {}).get("repo", "")
    chart = f"chart {inputs.get('chart', '?')} {inputs.get('version', '(latest)')}"
    if repository:
        chart += f" from {repository}"
    release = f"release {inputs.get('name', resource.name)} in namespace {inputs.get('namespace', 'default')}"
    comments = [f"{resource.type} {resource.name}", f"Helm values: {chart}, {release}"]
    values = inputs.get("values") or {}
    if values in _MASKS:
        comments.append(_masked_map("values", values))
        values = {}
    return KubernetesDocument("helm-values", resource, _sorted(values), tuple(comments))


def _masked_map(field: str, mask: str) -> str:
    """The header comment of a map masked whole, written as ``{}``."""
    return f"{field}: {mask} in the plan (its keys and values are not shown); {{}} stands in"


def _manifest_order(document: KubernetesDocument) -> tuple[int, str, str, str]:
    body = document.body
    kind = str(body.get("kind", ""))
    rank = _FIRST_KINDS.index(kind) if kind in _FIRST_KINDS else len(_FIRST_KINDS)
    metadata = body.get("metadata") or {}
    return rank, str(metadata.get("namespace", "")), f"{kind}/{metadata.get('name', '')}", document.resource.urn


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _sorted(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [_sorted(item) for item in value]
    return value


class _Dumper(yaml.SafeDumper):
    """Block YAML, multi-line strings as literal blocks, list items indented under their key."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and not any(line != line.rstrip() for line in value.splitlines()):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _represent_str)


def _dump(body: Mapping[str, Any]) -> str:
    if not body:
        return "{}\n"
    text: str = yaml.dump(dict(body), Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=120)
    return text
