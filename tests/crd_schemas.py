"""Check a custom resource the library renders against its kind's published schema, as the API server would with
``kubectl apply --validate=strict``: types, enums, patterns, formats, required fields and, where the schema lists an
object's properties without ``x-kubernetes-preserve-unknown-fields``, no unknown field.

The schemas are the unchanged upstream copies under ``tests/reference/`` (see its README): the CRDs of Karpenter
(AWS provider v1.14.1), of Azure's Karpenter provider (v1.14.2), and community JSON Schema conversions of EKS Auto
Mode's ``NodeClass`` and GKE's ``ComputeClass``. The CRDs' CEL rules (``x-kubernetes-validations``) are not evaluated
here; a test that relies on one says so and checks the value itself.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

REFERENCE = Path(__file__).parent / "reference"

SCHEMAS = {
    ("karpenter.sh/v1", "NodePool", "aws"): "karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml",
    ("karpenter.sh/v1alpha1", "NodeOverlay", "aws"): "karpenter/aws-v1.14.1/karpenter.sh_nodeoverlays.yaml",
    ("karpenter.k8s.aws/v1", "EC2NodeClass", "aws"): "karpenter/aws-v1.14.1/karpenter.k8s.aws_ec2nodeclasses.yaml",
    ("karpenter.sh/v1", "NodePool", "azure"): "karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml",
    ("karpenter.azure.com/v1beta1", "AKSNodeClass", "azure"): (
        "karpenter-azure/v1.14.2/karpenter.azure.com_aksnodeclasses.yaml"
    ),
    ("eks.amazonaws.com/v1", "NodeClass", "aws"): "eks-auto-mode/nodeclass_v1.schema.json",
    ("cloud.google.com/v1", "ComputeClass", "gcp"): "gke/computeclass_v1.schema.json",
}
"""(apiVersion, kind, cloud) -> the schema's file under ``tests/reference/``. The cloud picks the provider's copy of
Karpenter's own CRDs (each provider adds rules on its label domain)."""


def _strict(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on every object that lists its properties and does not keep
    unknown fields: what the API server's strict field validation refuses."""
    if isinstance(schema, dict):
        result = {key: _strict(value) for key, value in schema.items()}
        if (
            "properties" in schema
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields", False)
        ):
            result["additionalProperties"] = False
        return result
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema


@functools.cache
def _schema(file: str, version: str) -> dict[str, Any]:
    text = (REFERENCE / file).read_text()
    if file.endswith(".json"):
        document: dict[str, Any] = json.loads(text)
        return _strict(document)  # type: ignore[no-any-return]
    crd = yaml.safe_load(text)
    [served] = [v for v in crd["spec"]["versions"] if v["name"] == version and v.get("served")]
    schema = copy.deepcopy(served["schema"]["openAPIV3Schema"])
    return _strict(schema)  # type: ignore[no-any-return]


def problems(resource: dict[str, Any], cloud: str) -> list[str]:
    """Every schema violation of ``resource`` (a whole custom resource: apiVersion, kind, metadata, spec), as
    ``<path>: <message>`` lines; empty when it is valid.

    Raises:
        KeyError: no schema is known for the resource's apiVersion and kind on ``cloud``.
    """
    file = SCHEMAS[(resource["apiVersion"], resource["kind"], cloud)]
    schema = _schema(file, resource["apiVersion"].rsplit("/", 1)[1])
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    body = {key: value for key, value in resource.items() if key != "metadata"}
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body))
