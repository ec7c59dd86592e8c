"""`--format state`: a plan as the deployment `pulumi stack export` writes, checked against Pulumi's own schemas and
the rules of Pulumi's reader (``tests/plan/pulumi_state.py``), with exact values."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import importlib.metadata
import json
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
import pytest

from gpu_components.plan import SECRET, UNKNOWN, Plan, PlannedResource, to_json
from gpu_components.plan.state import (
    UNKNOWN_VALUE,
    default_provider_name,
    state_value,
    timeout_seconds,
    to_state,
    to_state_json,
)
from tests.helpers import example_plan, plan_of
from tests.nvidia.nvidia_mig_table import git_blob_id
from tests.plan.pulumi_state import REFERENCE, reader_errors, schema_errors
from tests.stacks.test_golden import STACKS

PULUMI_COMMIT = "1b5949891b3cefcb9974752b24a5ecef0acc86c8"
"""The pulumi/pulumi commit the schema copies come from (``tests/reference/README.md``)."""
PULUMI_BLOBS = {
    "deployments.json": "67508f7cdfc43732fd44d8dc927c1887a5741b61",
    "resources.json": "8a8a92e6127666382030b5db448de28c459ba0e9",
    "property-values.json": "fff2005d89450d184e28ad2fc6cfe021b7fa07cd",
    "project.json": "71846eef618fe494532a833b344ec901053843f8",
    "pulumi.json": "3a3c2e0f3046cda0ad5c06a5c979b813f4d099e0",
}
"""Git blob ids of the copies in ``tests/reference/pulumi/`` at :data:`PULUMI_COMMIT`."""

SECRET_VALUE = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "plaintext": '"[secret]"'}
"""A secret as the export writes it: the mask, never the value."""
EKS = "urn:pulumi:aws-eks::gpu-components::"
AWS_PROVIDER = f"{EKS}pulumi:providers:aws::default_7_51_1"
NODE_ROLE = f"{EKS}aws:iam/role:Role::gpu-demo-node-role"
GPU_CLUSTER = f"{EKS}gpu-components:index:GpuCluster::gpu-demo-gpu"
A10G = f"{EKS}gpu-components:index:GpuCluster$gpu-components:index:EksGpuNodeGroup::gpu-demo-gpu-a10g-shared"
A10G_NODE_GROUP = (
    f"{EKS}gpu-components:index:GpuCluster$gpu-components:index:EksGpuNodeGroup$aws:eks/nodeGroup:NodeGroup"
    "::gpu-demo-gpu-a10g-shared-node-group"
)
K8S_VERSION = importlib.metadata.version("pulumi-kubernetes")
MANIFEST = {"time": "2025-01-01T00:00:00Z", "magic": "", "version": ""}


def entries(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {resource["urn"]: resource for resource in document["deployment"]["resources"]}


def from_state(value: Any) -> Any:
    """A state property value back in the plan's form: the secret mask and unknowns as the plan writes them."""
    if value == SECRET_VALUE:
        return SECRET
    if value == UNKNOWN_VALUE:
        return UNKNOWN
    if isinstance(value, dict):
        return {key: from_state(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_state(item) for item in value]
    return value


# --------------------------------------------------------------------------- Pulumi's schemas, unchanged


@pytest.mark.parametrize("name", sorted(PULUMI_BLOBS))
def test_pulumi_copies_are_the_upstream_blobs(name: str) -> None:
    assert git_blob_id((REFERENCE / name).read_bytes()) == PULUMI_BLOBS[name]


def test_a_broken_deployment_fails_the_schema() -> None:
    document = to_state(example_plan("aws-eks"))
    assert schema_errors(document) == []
    broken = copy.deepcopy(document)
    node_group = entries(broken)[A10G_NODE_GROUP]
    node_group["retainOnDelete"] = True  # in Go's ResourceV3, not in the schema
    node_group["inputs"]["tags"] = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
    del broken["deployment"]["manifest"]["magic"]
    errors = schema_errors(broken)
    assert errors, "a broken deployment must fail validation"
    assert any("is not valid under any of the given schemas" in error for error in errors), errors


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("version",), "3"),
        (("deployment", "manifest", "time"), 20250101),
        (("deployment", "resources", 0, "custom"), "false"),
        (("deployment", "resources", 0, "urn"), None),
        (("deployment", "resources", 1, "ignoreChanges"), ["tags"]),
    ],
    ids=["version-string", "time-number", "custom-string", "urn-null", "ignoreChanges"],
)
def test_each_break_fails_the_schema(path: tuple[Any, ...], value: Any) -> None:
    document = to_state(example_plan("aws-eks"))
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert schema_errors(document) != []


def test_the_reader_rules_catch_a_child_before_its_parent_and_a_ciphertext_without_a_secrets_provider() -> None:
    document = to_state(example_plan("aws-eks"))
    assert reader_errors(document) == []
    resources = document["deployment"]["resources"]
    by_urn = entries(document)
    parent, child = resources.index(by_urn[A10G]), resources.index(by_urn[A10G_NODE_GROUP])
    resources[parent], resources[child] = resources[child], resources[parent]
    by_urn[NODE_ROLE]["outputs"]["arn"] = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
    by_urn[NODE_ROLE]["outputs"]["arn"]["ciphertext"] = "AAAA"
    assert reader_errors(document) == [
        f"{NODE_ROLE} outputs.arn: a ciphertext secret without a secrets provider cannot be decrypted",
        f"{A10G_NODE_GROUP}: its parent {A10G} is not before it",
    ]


# --------------------------------------------------------------------------- every example stack


@pytest.mark.stack
@pytest.mark.parametrize("stack", STACKS)
def test_every_example_stack_exports_a_deployment_pulumi_reads(stack: str) -> None:
    document = json.loads(to_state_json(example_plan(stack)))
    assert schema_errors(document) == []
    assert reader_errors(document) == []


@pytest.mark.stack
@pytest.mark.parametrize("stack", STACKS)
def test_the_export_and_the_json_plan_hold_the_same_resources_and_inputs(stack: str) -> None:
    plan = example_plan(stack)
    planned = {r["urn"]: r for r in json.loads(to_json(plan))["resources"]}
    exported = entries(to_state(plan))
    stack_urn = f"urn:pulumi:{stack}::gpu-components::pulumi:pulumi:Stack::gpu-components-{stack}"
    defaults = {urn for urn in exported if urn.split("::")[-1].startswith("default")}
    assert set(exported) - defaults == {stack_urn, *planned}
    assert all(exported[urn]["type"].startswith("pulumi:providers:") for urn in defaults)
    for urn, resource in planned.items():
        inputs = from_state(exported[urn].get("inputs", {}))
        if resource["type"].startswith("pulumi:providers:"):
            inputs = {key: value for key, value in inputs.items() if key not in ("__internal", "version")}
        assert inputs == resource["inputs"], urn
        assert exported[urn]["parent"] == (resource["parent"] or stack_urn)
        assert exported[urn]["custom"] == resource["custom"]
        depends_on = resource["options"].get("dependsOn", [])
        assert {dep for dep in depends_on if planned[dep]["custom"]} <= set(exported[urn].get("dependencies", []))
    assert from_state(exported[stack_urn].get("outputs", {})) == json.loads(to_json(plan))["outputs"]


# --------------------------------------------------------------------------- exact values (aws-eks)


@pytest.mark.stack
def test_the_manifest_and_the_stack_resource() -> None:
    document = to_state(example_plan("aws-eks"))
    version = f"gpu-components {importlib.metadata.version('gpu-components')}"
    assert document["version"] == 3
    assert list(document["deployment"]) == ["manifest", "resources"]
    assert document["deployment"]["manifest"] == {
        "time": "2025-01-01T00:00:00Z",
        "magic": hashlib.sha256(version.encode()).hexdigest(),
        "version": version,
    }
    stack = document["deployment"]["resources"][0]
    assert list(stack) == ["urn", "custom", "type", "outputs"]
    assert stack["urn"] == f"{EKS}pulumi:pulumi:Stack::gpu-components-aws-eks"
    assert (stack["custom"], stack["type"]) == (False, "pulumi:pulumi:Stack")
    assert stack["outputs"]["clusterName"] == "gpu-demo"
    assert stack["outputs"]["kubeconfig"] == SECRET_VALUE


@pytest.mark.stack
def test_default_providers_come_before_their_first_resource() -> None:
    resources = to_state(example_plan("aws-eks"))["deployment"]["resources"]
    assert [(r["type"], r["urn"].rsplit("::", 1)[1]) for r in resources[:5]] == [
        ("pulumi:pulumi:Stack", "gpu-components-aws-eks"),
        ("pulumi:providers:aws", "default_7_51_1"),
        ("aws:iam/role:Role", "gpu-demo-node-role"),
        ("pulumi:providers:eks", "default_4_4_0"),
        ("eks:index:Cluster", "gpu-demo"),
    ]
    assert resources[1] == {
        "urn": AWS_PROVIDER,
        "custom": True,
        "id": "c586e029-65c7-49e9-ab87-b9138a1721a9",
        "type": "pulumi:providers:aws",
        "inputs": {"__internal": {}, "region": "us-west-2", "version": "7.51.1"},
        "outputs": {"region": "us-west-2", "version": "7.51.1"},
    }
    cluster = resources[4]
    assert "provider" not in cluster and "id" not in cluster  # a remote component: its provider's program owns it
    assert cluster["custom"] is False
    assert cluster["outputs"]["oidcIssuer"] == "oidc.eks.us-west-2.amazonaws.com/id/DC01346C3E8976DA9638A95E6B0A8D99"


@pytest.mark.stack
def test_a_node_group_entry() -> None:
    node_group = entries(to_state(example_plan("aws-eks")))[A10G_NODE_GROUP]
    assert list(node_group) == [
        "urn",
        "custom",
        "id",
        "type",
        "inputs",
        "outputs",
        "parent",
        "dependencies",
        "provider",
        "propertyDependencies",
    ]
    assert node_group["id"] == "gpu-demo:gpu-demo-gpu-a10g-shared-node-group-9049f43"
    assert node_group["parent"] == A10G
    assert node_group["dependencies"] == [NODE_ROLE]
    assert node_group["provider"] == f"{AWS_PROVIDER}::c586e029-65c7-49e9-ab87-b9138a1721a9"
    assert node_group["propertyDependencies"] == {
        "amiType": [],
        "capacityType": [],
        "clusterName": [],
        "diskSize": [],
        "instanceTypes": [],
        "labels": [],
        "nodeRoleArn": [NODE_ROLE],
        "scalingConfig": [],
        "subnetIds": [],
        "tags": [],
        "taints": [],
    }
    labels = {
        "gpu-components/pool": "a10g-shared",
        "gpu-components/sharing": "trusted",
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nvidia.com/device-plugin.config": "a10g-shared",
        "nvidia.com/gpu.present": "true",
        "workload": "inference",
    }
    assert node_group["inputs"] == {
        "amiType": "AL2023_x86_64_NVIDIA",
        "capacityType": "SPOT",
        "clusterName": "gpu-demo",
        "diskSize": 100,
        "instanceTypes": ["g5.2xlarge"],
        "labels": labels,
        "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-demo-node-role-0c4f5e8",
        "scalingConfig": {"desiredSize": 0, "maxSize": 6, "minSize": 0},
        "subnetIds": ["subnet-4909ee5bf40d1eb6b", "subnet-d7441d840f0ca0c1f", "subnet-7cb09a02fcc1a454e"],
        "tags": {},
        "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
    }
    computed = {key: value for key, value in node_group["outputs"].items() if key not in node_group["inputs"]}
    asg = "eks-gpu-demo-gpu-a10g-shared-node-group-9049f43-9049f435-9dcf-4b57-ac9c-ecfabd916c68"
    assert computed == {
        "arn": "arn:aws:eks:us-west-2:123456789012:nodegroup/gpu-demo/gpu-demo-gpu-a10g-shared-node-group-9049f43/"
        "9049f435-9dcf-4b57-ac9c-ecfabd916c68",
        "nodeGroupName": "gpu-demo-gpu-a10g-shared-node-group-9049f43",
        "resources": [{"autoscalingGroups": [{"name": asg}]}],
        "status": "",
        "tagsAll": {},
    }


@pytest.mark.stack
def test_a_component_entry_holds_its_registered_outputs() -> None:
    component = entries(to_state(example_plan("aws-eks")))[A10G]
    assert list(component) == ["urn", "custom", "type", "outputs", "parent"]
    assert (component["custom"], component["type"], component["parent"]) == (
        False,
        "gpu-components:index:EksGpuNodeGroup",
        GPU_CLUSTER,
    )
    assert component["outputs"]["nodeGroupName"] == "gpu-demo-gpu-a10g-shared-node-group-9049f43"
    assert component["outputs"]["advertisedResources"] == {"nvidia.com/gpu": 4}


@pytest.mark.stack
def test_an_explicit_provider_has_its_version_and_a_secret_kubeconfig() -> None:
    resources = entries(to_state(example_plan("aws-eks")))
    provider = resources[f"{EKS}pulumi:providers:kubernetes::gpu-demo-k8s"]
    assert provider == {
        "urn": f"{EKS}pulumi:providers:kubernetes::gpu-demo-k8s",
        "custom": True,
        "id": "fd9a81dc-0f17-4bdc-a7bd-a1cd4245e820",
        "type": "pulumi:providers:kubernetes",
        "inputs": {"__internal": {}, "kubeconfig": SECRET_VALUE, "version": K8S_VERSION},
        "outputs": {"kubeconfig": SECRET_VALUE, "version": K8S_VERSION},
        "parent": f"{EKS}pulumi:pulumi:Stack::gpu-components-aws-eks",
        "dependencies": [f"{EKS}eks:index:Cluster::gpu-demo"],
        "propertyDependencies": {"kubeconfig": [f"{EKS}eks:index:Cluster::gpu-demo"]},
    }
    namespace = resources[
        f"{EKS}gpu-components:index:GpuCluster$gpu-components:index:NvidiaDevicePlugin$kubernetes:core/v1:Namespace"
        "::gpu-demo-gpu-device-plugin-namespace"
    ]
    assert namespace["provider"] == f"{provider['urn']}::fd9a81dc-0f17-4bdc-a7bd-a1cd4245e820"


# --------------------------------------------------------------------------- options, secrets, unknowns


def _options_program() -> None:
    provider = kubernetes.Provider("k8s", kubeconfig="{}")
    kubernetes.core.v1.ConfigMap(
        "cm",
        data={"token": pulumi.Output.secret("hunter2-never-in-state"), "plain": "visible"},
        opts=pulumi.ResourceOptions(
            provider=provider,
            protect=True,
            aliases=[pulumi.Alias(name="old-cm")],
            custom_timeouts=pulumi.CustomTimeouts(create="1h30m", delete="90s"),
            additional_secret_outputs=["metadata"],
            retain_on_delete=True,
            ignore_changes=["data"],
            delete_before_replace=True,
        ),
    )


def test_options_are_written_where_the_schema_has_them() -> None:
    document = to_state(plan_of(_options_program, preview=False))
    assert schema_errors(document) == []
    assert reader_errors(document) == []
    config_map = entries(document)["urn:pulumi:unit::test::kubernetes:core/v1:ConfigMap::cm"]
    assert config_map["protect"] is True
    assert config_map["aliases"] == ["urn:pulumi:unit::test::kubernetes:core/v1:ConfigMap::old-cm"]
    assert config_map["customTimeouts"] == {"create": 5400, "delete": 90}
    assert config_map["additionalSecretOutputs"] == ["metadata"]
    assert config_map["outputs"]["metadata"] == SECRET_VALUE
    assert config_map["inputs"]["data"] == {"plain": "visible", "token": SECRET_VALUE}
    assert config_map["outputs"]["data"] == SECRET_VALUE  # the SDK reads a map holding a secret as a secret map
    for absent in ("retainOnDelete", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace"):
        assert absent not in config_map
    assert "hunter2" not in to_state_json(plan_of(_options_program, preview=False))


def test_unknowns_are_the_schemas_unknown_value() -> None:
    urn = "urn:pulumi:s::p::aws:s3/bucket:Bucket::b"
    bucket = PlannedResource(
        urn,
        "aws:s3/bucket:Bucket",
        "b",
        None,
        {"bucket": "b"},
        True,
        id=UNKNOWN,
        outputs={"bucket": "b", "arn": UNKNOWN, "tags": [UNKNOWN]},
    )
    document = to_state(Plan("p", "s", (bucket,), {"arn": UNKNOWN}))
    assert schema_errors(document) == []
    stack, provider, exported = document["deployment"]["resources"]
    assert stack["outputs"] == {"arn": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"}
    assert provider["urn"] == "urn:pulumi:s::p::pulumi:providers:aws::default"
    assert provider["inputs"] == {}  # no version asked for, no config: no `version`, no `__internal`
    assert exported["id"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    assert exported["outputs"] == {"arn": UNKNOWN_VALUE, "bucket": "b", "tags": [UNKNOWN_VALUE]}
    assert exported["provider"] == f"urn:pulumi:s::p::pulumi:providers:aws::default::{provider['id']}"


def test_a_secret_config_value_is_a_secret_default_provider_input() -> None:
    urn = "urn:pulumi:s::p::gcp:storage/bucket:Bucket::b"
    bucket = PlannedResource(urn, "gcp:storage/bucket:Bucket", "b", None, {}, True, id="b", version="10.2.0")
    plan = Plan(
        "p",
        "s",
        (bucket,),
        {},
        config={"gcp:project": "demo", "gcp:credentials": SECRET, "aws:region": "us-east-1"},
    )
    provider = to_state(plan)["deployment"]["resources"][1]
    assert provider["urn"] == "urn:pulumi:s::p::pulumi:providers:gcp::default_10_2_0"
    assert provider["inputs"] == {
        "__internal": {},
        "credentials": SECRET_VALUE,
        "project": "demo",
        "version": "10.2.0",
    }


def test_state_values() -> None:
    assert state_value({"b": [SECRET, 1.5], "a": None}) == {"a": None, "b": [SECRET_VALUE, 1.5]}
    assert state_value(UNKNOWN) == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    assert state_value([float("inf"), float("-inf")]) == [
        {"4dabf18193072939515e22adb298388d": "8ad145fe-0d11-4827-bfd7-1abcbf086f5c", "value": "7ff0000000000000"},
        {"4dabf18193072939515e22adb298388d": "8ad145fe-0d11-4827-bfd7-1abcbf086f5c", "value": "fff0000000000000"},
    ]
    assert (
        schema_errors(
            {
                "version": 3,
                "deployment": {
                    "manifest": MANIFEST,
                    "resources": [
                        {
                            "urn": "urn:pulumi:s::p::x:index:R::r",
                            "custom": True,
                            "type": "x:index:R",
                            "outputs": {"n": state_value(float("nan"))},
                        }
                    ],
                },
            }
        )
        == []
    )


@pytest.mark.parametrize(
    ("version", "url", "name"),
    [
        ("", "", "default"),
        ("7.51.1", "", "default_7_51_1"),
        ("v4.4", "", "default_4_4_0"),
        ("1.2.3-alpha.1+build.5", "", "default_1_2_3_alpha_1_build_5"),
        ("0.1.0", "https://example.com/plugins/", "default_0_1_0_https_/example.com/plugins"),
    ],
)
def test_default_provider_names(version: str, url: str, name: str) -> None:
    assert default_provider_name(version, url) == name


def test_a_version_that_is_not_semver_is_refused() -> None:
    with pytest.raises(ValueError, match=r"provider version 'latest' is not a semantic version such as 7.51.1"):
        default_provider_name("latest")


@pytest.mark.parametrize(
    ("duration", "seconds"),
    [("30m", 1800), ("1h30m", 5400), ("1.5h", 5400), ("300ms", 0.3), ("2h45m30.5s", 9930.5), ("0", 0), ("-1m", -60)],
)
def test_timeouts_in_seconds_as_go_parses_them(duration: str, seconds: float) -> None:
    assert timeout_seconds(duration) == pytest.approx(seconds)


@pytest.mark.parametrize("duration", ["10 minutes", "1d", "m", "", "5"])
def test_a_timeout_go_cannot_parse_is_refused(duration: str) -> None:
    with pytest.raises(ValueError, match=r"customTimeouts of urn:x: .* is not a duration the Pulumi engine parses"):
        timeout_seconds(duration, "urn:x")


def test_resources_without_dependencies_between_them_are_listed_by_urn() -> None:
    def component(name: str) -> PlannedResource:
        return PlannedResource(f"urn:pulumi:s::p::x:index:C::{name}", "x:index:C", name, None, {}, False)

    document = to_state(Plan("p", "s", (component("b"), component("a")), {}))
    assert [r["urn"].rsplit("::", 1)[1] for r in document["deployment"]["resources"]] == ["p-s", "a", "b"]


@pytest.mark.stack
def test_the_same_plan_gives_the_same_bytes_whatever_order_its_resources_were_registered_in() -> None:
    """The order a program registers resources in changes with when its outputs resolve; the export must not."""
    plan = example_plan("aws-eks")
    shuffled = dataclasses.replace(plan, resources=tuple(reversed(plan.resources)))

    assert to_state_json(shuffled) == to_state_json(plan)
    seen: set[str] = set()
    for resource in to_state(plan)["deployment"]["resources"]:
        before = {
            resource.get("parent"),
            resource.get("provider", "").rpartition("::")[0],
            *resource.get("dependencies", ()),
        }
        assert before - {None, ""} <= seen, resource["urn"]
        seen.add(resource["urn"])
