"""The custom-resource schema check itself: it accepts a valid resource and refuses what the API server would."""

from __future__ import annotations

from tests.crd_schemas import REFERENCE, SCHEMAS, problems
from tests.plan.test_state import git_blob_id

BLOBS = {
    "karpenter/aws-v1.14.1/karpenter.k8s.aws_ec2nodeclasses.yaml": "d62d4b4cb116543e24bcff1c69255c6a2256818a",
    "karpenter/aws-v1.14.1/karpenter.sh_nodeoverlays.yaml": "9e3014048bd6fd8726849db7fbae1cf248c05db5",
    "karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml": "36f2f18fe5827655650e3c58ec9c9f4d4b9e1888",
    "karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml": "1008760f19e225119f6c7fb4728efefdf3763b1d",
    "karpenter-azure/v1.14.2/karpenter.azure.com_aksnodeclasses.yaml": "fe560ce0786b43b85e93a949f0df9517c069bf7a",
    "eks-auto-mode/nodeclass_v1.schema.json": "b17921ac609cb2c204090093c4d7d8a6c9775ecf",
    "gke/computeclass_v1.schema.json": "a9a7087f18583c4531a3a8fe32b6a26adb3c907c",
}

NODE_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.xlarge"]}
                ],
            }
        },
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
    },
}


def test_the_copies_are_the_upstream_blobs_and_each_schema_has_one() -> None:
    assert {file: git_blob_id((REFERENCE / file).read_bytes()) for file in BLOBS} == BLOBS
    assert set(SCHEMAS.values()) <= set(BLOBS)


def test_a_valid_node_pool_passes_and_unknown_fields_wrong_enums_and_missing_fields_do_not() -> None:
    assert problems(NODE_POOL, "aws") == []
    bad = {
        **NODE_POOL,
        "spec": {
            "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass"}}},
            "disruption": {"consolidationPolicy": "Never", "consolidateAfter": "10m"},
            "limit": {"nvidia.com/gpu": 8},
        },
    }
    assert problems(bad, "aws") == [
        "spec.disruption.consolidationPolicy: 'Never' is not one of ['WhenEmpty', 'WhenEmptyOrUnderutilized', "
        "'Balanced']",
        "spec.template.spec.nodeClassRef: 'name' is a required property",
        "spec.template.spec: 'requirements' is a required property",
        "spec: Additional properties are not allowed ('limit' was unexpected)",
    ]
