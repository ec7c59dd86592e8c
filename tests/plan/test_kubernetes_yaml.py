"""Tests for gpu_components.plan.kubernetes: the Kubernetes YAML of everything a plan renders into the cluster."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.azure.aks import AKS_KUBERNETES_VERSIONS
from gpu_components.gcp.gke import GKE_KUBERNETES_VERSIONS
from gpu_components.plan import Plan, PlannedResource, load_stack
from gpu_components.plan.kubernetes import kubernetes_documents, to_kubernetes_yaml
from tests import crd_schemas
from tests.helpers import ROOT, example_plan

STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def resource(type_: str, name: str, inputs: dict[str, Any]) -> PlannedResource:
    return PlannedResource(f"urn:pulumi:s::p::{type_}::{name}", type_, name, None, inputs, True)


SMALL = Plan(
    project="p",
    stack="s",
    resources=(
        resource(
            "kubernetes:core/v1:ConfigMap",
            "cm",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"namespace": "gpu"},
                "data": {"b": "x: 1\n", "a": "y"},
            },
        ),
        resource(
            "kubernetes:core/v1:Namespace", "ns", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu"}}
        ),
        resource(
            "kubernetes:helm.sh/v3:Release",
            "rel",
            {
                "chart": "nvidia-device-plugin",
                "version": "0.20.0",
                "name": "ndp",
                "namespace": "gpu",
                "repositoryOpts": {"repo": "https://nvidia.github.io/k8s-device-plugin"},
                "values": {"config": {"name": "cm"}, "affinity": {}},
            },
        ),
        resource("aws:iam/role:Role", "role", {"name": "r"}),
        resource("pulumi:providers:kubernetes", "k8s", {"kubeconfig": "[secret]"}),
    ),
    outputs={},
)


def test_small_plan_renders_exact_yaml() -> None:
    assert to_kubernetes_yaml(SMALL) == (
        "---\n"
        "# kubernetes:core/v1:Namespace ns\n"
        "apiVersion: v1\n"
        "kind: Namespace\n"
        "metadata:\n"
        "  name: gpu\n"
        "---\n"
        "# kubernetes:core/v1:ConfigMap cm\n"
        "# metadata.name: the logical name; Pulumi appends a random suffix when it creates the object\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        "  name: cm\n"
        "  namespace: gpu\n"
        "data:\n"
        "  a: y\n"
        "  b: |\n"
        "    x: 1\n"
        "---\n"
        "# kubernetes:helm.sh/v3:Release rel\n"
        "# Helm values: chart nvidia-device-plugin 0.20.0 from https://nvidia.github.io/k8s-device-plugin, "
        "release ndp in namespace gpu\n"
        "affinity: {}\n"
        "config:\n"
        "  name: cm\n"
    )


def test_a_plan_without_kubernetes_objects_renders_nothing() -> None:
    assert to_kubernetes_yaml(Plan("p", "s", (resource("aws:iam/role:Role", "r", {}),), {})) == ""


@pytest.fixture(params=STACKS)
def stack_plan(request: pytest.FixtureRequest) -> Plan:
    return example_plan(str(request.param))


CLOUD_VERSIONS = {"aws": EKS_KUBERNETES_VERSIONS, "azure": AKS_KUBERNETES_VERSIONS, "gcp": GKE_KUBERNETES_VERSIONS}


@pytest.mark.stack
def test_stack_manifests_validate_strictly_for_every_version_of_their_cloud(stack_plan: Plan) -> None:
    manifests = [d for d in kubernetes_documents(stack_plan) if d.kind == "manifest"]
    assert manifests, "the example stacks render Kubernetes objects"
    _, config = load_stack(ROOT, stack_plan.stack)
    cloud = config["gpu-components:cloud"]
    # Custom resources (a GKE ComputeClass) are checked against their own schemas; the rest against Kubernetes'.
    custom = [d for d in manifests if (d.body["apiVersion"], d.body["kind"], cloud) in crd_schemas.SCHEMAS]
    assert [crd_schemas.problems(dict(d.body), cloud) for d in custom] == [[] for _ in custom]
    versions = CLOUD_VERSIONS[cloud]
    if config.get("gpu-components:gpu_stack") == "dra":  # refused below 1.34, where resource.k8s.io/v1 is GA
        versions = tuple(v for v in versions if tuple(map(int, v.split("."))) >= (1, 34))
    assert versions
    for version in versions:
        for document in manifests:
            if document not in custom:
                kubernetes_validate.validate(dict(document.body), version, strict=True)


@pytest.mark.stack
def test_stack_yaml_parses_back_to_the_documents_and_is_deterministic(stack_plan: Plan) -> None:
    text = to_kubernetes_yaml(stack_plan)
    assert text == to_kubernetes_yaml(stack_plan)
    assert list(yaml.safe_load_all(text)) == [dict(d.body) for d in kubernetes_documents(stack_plan)]


@pytest.mark.stack
def test_helm_values_are_the_release_values(stack_plan: Plan) -> None:
    releases = {r.urn: r for r in stack_plan.resources if r.type == "kubernetes:helm.sh/v3:Release"}
    values = [d for d in kubernetes_documents(stack_plan) if d.kind == "helm-values"]
    assert [d.resource.urn for d in values] == sorted(releases)
    for document in values:
        assert document.body == releases[document.resource.urn].inputs["values"]


MASKED = Plan(
    project="p",
    stack="s",
    resources=(
        resource(
            "kubernetes:core/v1:Secret",
            "whole",
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "whole"}, "stringData": "[secret]"},
        ),
        resource(
            "kubernetes:core/v1:Secret",
            "keys",
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "keys"}, "stringData": {"token": "[secret]"}},
        ),
        resource(
            "kubernetes:core/v1:ConfigMap",
            "cm",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "cm", "labels": "[unknown]"},
                "data": "[unknown]",
            },
        ),
        resource("kubernetes:helm.sh/v3:Release", "rel", {"chart": "c", "name": "rel", "values": "[secret]"}),
    ),
    outputs={},
)


def test_a_map_masked_whole_is_an_empty_map_with_a_comment_so_the_document_keeps_its_shape() -> None:
    text = to_kubernetes_yaml(MASKED)
    assert text == (
        "---\n"
        "# kubernetes:core/v1:ConfigMap cm\n"
        "# data: [unknown] in the plan (its keys and values are not shown); {} stands in\n"
        "# metadata.labels: [unknown] in the plan (its keys and values are not shown); {} stands in\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        "  labels: {}\n"
        "  name: cm\n"
        "data: {}\n"
        "---\n"
        "# kubernetes:core/v1:Secret keys\n"
        "apiVersion: v1\n"
        "kind: Secret\n"
        "metadata:\n"
        "  name: keys\n"
        "stringData:\n"
        "  token: '[secret]'\n"
        "---\n"
        "# kubernetes:core/v1:Secret whole\n"
        "# stringData: [secret] in the plan (its keys and values are not shown); {} stands in\n"
        "apiVersion: v1\n"
        "kind: Secret\n"
        "metadata:\n"
        "  name: whole\n"
        "stringData: {}\n"
        "---\n"
        "# kubernetes:helm.sh/v3:Release rel\n"
        "# Helm values: chart c (latest), release rel in namespace default\n"
        "# values: [secret] in the plan (its keys and values are not shown); {} stands in\n"
        "{}\n"
    )
    manifests = [document for document in yaml.safe_load_all(text) if "kind" in document]
    for document in manifests:
        kubernetes_validate.validate(document, EKS_KUBERNETES_VERSIONS[0], strict=True)
    # The plan itself is not changed: it still reads the mask.
    assert MASKED.resources[0].inputs["stringData"] == "[secret]"
    assert MASKED.resources[2].inputs["metadata"] == {"name": "cm", "labels": "[unknown]"}
