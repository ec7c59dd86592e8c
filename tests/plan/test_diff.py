"""Tests for gpu_components.plan.diff and .replacements: plan diffs with force-new node-pool changes flagged."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpu_components.aws.facts import DRAINS_ROLLED
from gpu_components.aws.plan_mocks import launch_template_id
from gpu_components.plan.diff import (
    ABSENT,
    DRAINS_DELETED,
    DRAINS_REPLACED,
    PROVIDER_UNKNOWN,
    InputChange,
    PlanFormatError,
    diff,
    to_document,
    to_text,
)
from gpu_components.plan.replacements import forces_replacement

GOLDEN = Path(__file__).resolve().parents[1] / "stacks" / "golden" / "aws-eks.json"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
URN = "urn:pulumi:dev::p::aws:eks/nodeGroup:NodeGroup::gpu"


def node_group(**inputs: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "instanceTypes": ["g5.2xlarge"],
        "scalingConfig": {"desiredSize": 0, "maxSize": 6, "minSize": 0},
        "labels": {"gpu-components/pool": "gpu"},
    }
    base.update(inputs)
    return {"urn": URN, "type": NODE_GROUP, "name": "gpu", "parent": None, "custom": True, "inputs": base}


def plan(*resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"project": "p", "stack": "dev", "resources": list(resources), "outputs": outputs or {}}


def test_identical_plans_have_no_changes() -> None:
    result = diff(plan(node_group()), plan(node_group()))
    assert result.empty
    assert to_text(result) == "Plan diff of dev:\nno changes\n"


def test_instance_type_change_replaces_the_node_group() -> None:
    result = diff(plan(node_group()), plan(node_group(instanceTypes=["g5.4xlarge"])))
    assert [change.action for change in result.changed] == ["replace"]
    assert result.changed[0].changes == (InputChange("instanceTypes[0]", "g5.2xlarge", "g5.4xlarge", True),)
    assert to_text(result) == (
        "Plan diff of dev:\n"
        "+- aws:eks/nodeGroup:NodeGroup gpu\n"
        '    instanceTypes[0]: "g5.2xlarge" -> "g5.4xlarge"  [forces replacement]\n'
        "0 to create, 0 to update, 1 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert [change.drains for change in result.drained] == [DRAINS_REPLACED]


def test_scaling_and_label_changes_update_in_place() -> None:
    new = node_group(scalingConfig={"desiredSize": 0, "maxSize": 8, "minSize": 0}, labels={"team": "ml"})
    result = diff(plan(node_group()), plan(new))
    assert result.replacements == ()
    assert to_text(result) == (
        "Plan diff of dev:\n"
        "~ aws:eks/nodeGroup:NodeGroup gpu\n"
        '    labels["gpu-components/pool"]: "gpu" -> (none)\n'
        '    labels.team: (none) -> "ml"\n'
        "    scalingConfig.maxSize: 6 -> 8\n"
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s)\n"
    )


def test_added_and_removed_resources_and_outputs() -> None:
    role = {"urn": "urn:r", "type": "aws:iam/role:Role", "name": "r", "parent": None, "inputs": {}}
    result = diff(plan(role, outputs={"a": 1}), plan(node_group(), outputs={"a": 2}))
    assert [(c.action, c.name) for c in (*result.added, *result.removed)] == [("create", "gpu"), ("delete", "r")]
    assert result.outputs == (InputChange("a", 1, 2),)
    assert to_text(result).splitlines()[1:] == [
        "+ aws:eks/nodeGroup:NodeGroup gpu",
        "- aws:iam/role:Role r",
        "outputs:",
        "    a: 1 -> 2",
        "1 to create, 0 to update, 0 to replace, 1 to delete; 1 output change(s)",
    ]


def test_multi_line_strings_show_as_a_unified_diff() -> None:
    old = {"urn": "urn:c", "type": "kubernetes:core/v1:ConfigMap", "name": "c", "inputs": {"data": {"x": "a\nb\n"}}}
    new = copy.deepcopy(old)
    new["inputs"]["data"]["x"] = "a\nc\n"
    assert to_text(diff(plan(old), plan(new))).splitlines()[1:5] == [
        "+- kubernetes:core/v1:ConfigMap c",
        "    data.x:  [forces replacement]",
        "      @@ -1,2 +1,2 @@",
        "       a",
    ]


def test_json_document_leaves_out_absent_sides() -> None:
    result = diff(plan(node_group()), plan(node_group(amiType="AL2023_x86_64_NVIDIA")))
    assert to_document(result)["resources"][0]["changes"] == [
        {"path": "amiType", "new": "AL2023_x86_64_NVIDIA", "replaces": True}
    ]
    assert result.changed[0].changes[0].old is ABSENT


def test_a_parent_change_is_reported() -> None:
    moved = node_group()
    moved["parent"] = "urn:parent"
    assert diff(plan(node_group()), plan(moved)).changed[0].changes[0] == InputChange("(parent)", None, "urn:parent")


@pytest.mark.parametrize("document", ["not json", "[]", '{"resources": [{"urn": "x"}]}'])
def test_documents_that_are_not_plans_are_rejected(document: str) -> None:
    with pytest.raises(PlanFormatError):
        diff(document, plan())


def test_golden_plan_with_a_new_instance_type_flags_the_gpu_node_group() -> None:
    old = json.loads(GOLDEN.read_text())
    new = copy.deepcopy(old)
    target = "gpu-demo-gpu-a10g-shared-node-group"
    for resource in new["resources"]:
        if resource["name"] == target:
            resource["inputs"]["instanceTypes"] = ["g5.4xlarge"]
    result = diff(old, new)
    assert [(c.name, c.action) for c in result.changed] == [(target, "replace")]


@pytest.mark.parametrize(
    ("type_", "path", "expected"),
    [
        (NODE_GROUP, "instanceTypes[0]", True),
        (NODE_GROUP, "launchTemplate.id", True),
        (NODE_GROUP, "launchTemplate.version", False),
        (NODE_GROUP, "launchTemplate", True),
        (NODE_GROUP, "remoteAccess.ec2SshKey", True),
        (NODE_GROUP, "scalingConfig.maxSize", False),
        (NODE_GROUP, "taints[0].value", False),
        (NODE_GROUP, "amiType", True),
        ("azure-native:containerservice:AgentPool", "vmSize", True),
        ("azure-native:containerservice:AgentPool", "gpuInstanceProfile", True),
        ("azure-native:containerservice:AgentPool", "maxCount", False),
        ("azure-native:containerservice:AgentPool", "nodeTaints[0]", False),
        ("aws:iam/role:Role", "name", True),
        ("aws:iam/role:Role", "assumeRolePolicy", False),
        ("aws:autoscaling/tag:Tag", "tag.key", True),
        ("aws:autoscaling/tag:Tag", "tag.value", False),
        ("aws:ec2/launchTemplate:LaunchTemplate", "userData", False),
        ("gcp:serviceaccount/account:Account", "accountId", True),
        ("gcp:serviceaccount/account:Account", "displayName", False),
        ("gcp:projects/iAMMember:IAMMember", "member", True),
        ("aws:s3/bucket:Bucket", "bucket", False),
    ],
)
def test_force_new_tables(type_: str, path: str, expected: bool) -> None:
    assert forces_replacement(type_, path) is expected


def test_gke_accelerator_changes_replace_and_autoscaling_does_not() -> None:
    assert forces_replacement("gcp:container/nodePool:NodePool", "nodeConfig.guestAccelerators[0].count")
    assert not forces_replacement("gcp:container/nodePool:NodePool", "autoscaling.totalMaxNodeCount")


def test_deleting_a_node_pool_drains_it_and_other_deletions_do_not() -> None:
    role = {"urn": "urn:pulumi:dev::p::aws:iam/role:Role::r", "type": "aws:iam/role:Role", "name": "r", "inputs": {}}
    result = diff(plan(node_group(), role), plan())

    assert [(change.name, change.drains) for change in result.removed] == [("gpu", DRAINS_DELETED), ("r", None)]
    assert [change.name for change in result.drained] == ["gpu"]
    text = to_text(result)
    assert (
        "- aws:eks/nodeGroup:NodeGroup gpu  [drains nodes: the node pool is deleted: its nodes are drained]\n" in text
    )
    assert "- aws:iam/role:Role r\n" in text
    assert text.endswith(
        "0 to create, 0 to update, 0 to replace, 2 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert to_document(result)["resources"][0]["drains"] == DRAINS_DELETED
    assert "drains" not in to_document(result)["resources"][1]


def test_a_changed_launch_template_rolls_the_nodes_of_the_node_group_using_it() -> None:
    # EKS updates the node group in place to the template's new version and replaces each node; the plan's version
    # reads "1" on both sides (no state), so the diff follows the template's id.
    lt_urn = "urn:pulumi:dev::p::aws:ec2/launchTemplate:LaunchTemplate::gpu-lt"
    other_urn = "urn:pulumi:dev::p::aws:ec2/launchTemplate:LaunchTemplate::other-lt"

    def template(urn: str, user_data: str) -> dict[str, Any]:
        return {
            "urn": urn,
            "type": "aws:ec2/launchTemplate:LaunchTemplate",
            "name": urn.rsplit("::", 1)[1],
            "inputs": {"userData": user_data},
        }

    group = node_group(launchTemplate={"id": launch_template_id(lt_urn), "version": "1"})
    result = diff(
        plan(group, template(lt_urn, "a"), template(other_urn, "x")),
        plan(group, template(lt_urn, "b"), template(other_urn, "x")),
    )

    assert [(c.type, c.action, c.drains) for c in result.changed] == [
        ("aws:ec2/launchTemplate:LaunchTemplate", "update", None),
        (NODE_GROUP, "update", DRAINS_ROLLED),
    ]
    assert result.changed[1].changes == ()
    assert (
        "~ aws:eks/nodeGroup:NodeGroup gpu  [drains nodes: its launch template changed: EKS rolls every node onto"
        " the new version]\n" in to_text(result)
    )


def test_an_unchanged_launch_template_rolls_nothing() -> None:
    lt_urn = "urn:pulumi:dev::p::aws:ec2/launchTemplate:LaunchTemplate::gpu-lt"
    group = node_group(launchTemplate={"id": launch_template_id(lt_urn), "version": "1"})
    template = {"urn": lt_urn, "type": "aws:ec2/launchTemplate:LaunchTemplate", "name": "gpu-lt", "inputs": {}}

    result = diff(
        plan(group, template), plan(node_group(launchTemplate=group["inputs"]["launchTemplate"], labels={}), template)
    )

    assert [(c.action, c.drains) for c in result.changed] == [("update", None)]
    assert result.drained == ()


def test_plans_of_different_stacks_say_why_nothing_matches() -> None:
    other = {**node_group(), "urn": URN.replace(":dev::", ":prod::")}
    text = to_text(diff(plan(node_group()), {**plan(other), "stack": "prod"}))

    assert text.startswith(
        "Plan diff of dev -> prod:\nnote: the plans are of different stacks; resources are matched by URN, which"
        " holds the stack name, so no resource of one matches one of the other\n"
    )


# ------------------------------------------------------------------------------------------------ the engine's rules

AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_POOL = "gcp:container/nodePool:NodePool"
K8S = "urn:pulumi:dev::p::pulumi:providers:kubernetes::k8s"


def record(
    type_: str, name: str, inputs: dict[str, Any], options: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    document = {
        "urn": f"urn:pulumi:dev::p::{type_}::{name}",
        "type": type_,
        "name": name,
        "parent": None,
        "custom": True,
        "inputs": inputs,
        **extra,
    }
    if options is not None:
        document["options"] = options
    return document


def test_a_change_under_ignore_changes_is_no_change() -> None:
    ignoring = {"ignoreChanges": ["scalingConfig.desiredSize"]}
    old = node_group(scalingConfig={"desiredSize": 0, "maxSize": 6, "minSize": 0})
    new = node_group(scalingConfig={"desiredSize": 3, "maxSize": 6, "minSize": 0})

    assert diff(plan({**old, "options": ignoring}), plan({**new, "options": ignoring})).empty
    # The new side's options count (the engine's goal state), also against a plan that recorded none.
    assert diff(plan(old), plan({**new, "options": ignoring})).empty
    assert not diff(plan({**old, "options": ignoring}), plan({**new, "options": {}})).empty


def test_an_ignored_path_through_an_added_element_still_changes() -> None:
    # The engine cannot reset a path whose parent was added, so the change stays.
    old = record(NODE_POOL, "np", {"autoscaling": {}}, {"ignoreChanges": ["autoscaling.x.y"]})
    new = record(NODE_POOL, "np", {"autoscaling": {"x": {"y": 1}}}, {"ignoreChanges": ["autoscaling.x.y"]})

    assert [c.path for c in diff(plan(old), plan(new)).changed[0].changes] == ["autoscaling.x"]


def test_an_ignored_force_new_input_does_not_replace() -> None:
    options = {"ignoreChanges": ["initialNodeCount"], "deleteBeforeReplace": True}
    result = diff(
        plan(record(NODE_POOL, "np", {"initialNodeCount": 0}, options)),
        plan(record(NODE_POOL, "np", {"initialNodeCount": 2}, options)),
    )

    assert result.empty


def test_replace_on_changes_replaces_and_delete_before_replace_is_shown() -> None:
    options = {"replaceOnChanges": ["gpuProfile", "scaleSetPriority"], "deleteBeforeReplace": True}
    old = record(AGENT_POOL, "pool", {"gpuProfile": {"driver": "Install"}, "scaleSetPriority": "Spot"}, options)
    new = record(AGENT_POOL, "pool", {"gpuProfile": {"driver": "None"}}, options)

    result = diff(plan(old), plan(new))

    assert [(c.action, c.delete_before_replace, c.drains) for c in result.changed] == [
        ("replace", True, DRAINS_REPLACED)
    ]
    assert to_text(result).splitlines()[1:4] == [
        f"+- {AGENT_POOL} pool  [delete before replace]",
        '    gpuProfile.driver: "Install" -> "None"  [forces replacement]',
        '    scaleSetPriority: "Spot" -> (none)  [forces replacement]',
    ]
    # Without the option, the provider updates both in place.
    assert diff(plan({**old, "options": {}}), plan({**new, "options": {}})).changed[0].action == "update"


def test_a_changed_provider_replaces_and_a_plan_without_options_compares_none() -> None:
    with_provider = record("kubernetes:core/v1:Namespace", "ns", {}, {"provider": K8S})
    default = record("kubernetes:core/v1:Namespace", "ns", {}, {})

    result = diff(plan(with_provider), plan(default))

    # The test plans hold no provider record and no config: the engine's DiffConfig cannot be replayed.
    assert result.changed[0].changes == (InputChange("(provider)", K8S, ABSENT, True, note=PROVIDER_UNKNOWN),)
    assert to_text(result).splitlines()[1:3] == [
        "+- kubernetes:core/v1:Namespace ns",
        f'    (provider): "{K8S}" -> (the default provider)  [forces replacement]  [{PROVIDER_UNKNOWN}]',
    ]
    assert result.drained == ()  # not a node pool
    assert diff(plan({k: v for k, v in with_provider.items() if k != "options"}), plan(default)).empty


def test_a_provider_renamed_by_an_alias_is_the_same_provider() -> None:
    renamed = "urn:pulumi:dev::p::pulumi:providers:kubernetes::cluster"
    old_provider = record("pulumi:providers:kubernetes", "k8s", {"kubeconfig": "[secret]"}, {})
    new_provider = record("pulumi:providers:kubernetes", "cluster", {"kubeconfig": "[secret]"}, {"aliases": [K8S]})

    result = diff(
        plan(old_provider, record("kubernetes:core/v1:Namespace", "ns", {}, {"provider": K8S})),
        plan(new_provider, record("kubernetes:core/v1:Namespace", "ns", {}, {"provider": renamed})),
    )

    assert result.empty
    assert [(c.name, c.old_urn) for c in result.renamed] == [("cluster", K8S)]


def test_a_rename_covered_by_an_alias_is_the_same_resource_and_its_children_follow() -> None:
    component = "gpu-components:index:EksGpuNodeGroup"
    old_parent = f"urn:pulumi:dev::p::{component}::gpu"
    new_parent = f"urn:pulumi:dev::p::{component}::gpu-l4"
    child = f"{component}${NODE_GROUP}"
    old = plan(
        {**record(component, "gpu", {}, {}), "custom": False},
        {
            **node_group(),
            "urn": f"urn:pulumi:dev::p::{child}::gpu-node-group",
            "name": "gpu-node-group",
            "parent": old_parent,
            "options": {},
        },
    )
    new = plan(
        {**record(component, "gpu-l4", {}, {"aliases": [old_parent]}), "custom": False},
        {
            **node_group(labels={"team": "ml"}),
            "urn": f"urn:pulumi:dev::p::{child}::gpu-l4-node-group",
            "name": "gpu-l4-node-group",
            "parent": new_parent,
            "options": {},
        },
    )

    result = diff(old, new)

    assert (result.added, result.removed) == ((), ())
    assert [(c.name, c.action, c.old_urn) for c in (*result.changed, *result.renamed)] == [
        ("gpu-l4-node-group", "update", f"urn:pulumi:dev::p::{child}::gpu-node-group"),
        ("gpu-l4", "same", old_parent),
    ]
    text = to_text(result)
    assert f"~ {NODE_GROUP} gpu-l4-node-group  [renamed from gpu-node-group]\n" in text
    assert f"= {component} gpu-l4  [renamed from gpu]\n" in text
    assert text.endswith("; 1 renamed by an alias and otherwise unchanged\n")


def test_a_rename_without_an_alias_is_a_deletion_and_a_creation() -> None:
    old = record("kubernetes:core/v1:Namespace", "a", {}, {})
    new = record("kubernetes:core/v1:Namespace", "b", {}, {"aliases": ["urn:pulumi:dev::p::x:y:Z::elsewhere"]})

    result = diff(plan(old), plan(new))

    assert [(c.action, c.name) for c in (*result.added, *result.removed)] == [("create", "b"), ("delete", "a")]


def test_a_retained_node_pool_is_not_drained_and_protection_is_shown() -> None:
    retained = {**node_group(), "options": {"retainOnDelete": True}}
    protected = {**node_group(), "options": {"protect": True}}

    assert diff(plan(retained), plan()).drained == ()
    assert "[retained: retainOnDelete leaves it in the cloud" in to_text(diff(plan(retained), plan()))
    assert "[protected: pulumi up refuses to delete it until protect is removed]" in to_text(
        diff(plan(protected), plan())
    )
    replaced = diff(plan(protected), plan({**protected, "inputs": {**protected["inputs"], "amiType": "X"}}))
    assert replaced.changed[0].protected


def test_option_changes_alone_are_no_change() -> None:
    # The engine records dependsOn, protect and the rest without an update; only the provider is diffed.
    old = {**node_group(), "options": {}}
    new = {**node_group(), "options": {"protect": True, "dependsOn": ["urn:x"], "ignoreChanges": ["labels"]}}

    assert diff(plan(old), plan(new)).empty


def test_in_place_node_config_changes_roll_a_gke_pools_nodes_and_label_changes_do_not() -> None:
    def pool(**node_config: Any) -> dict[str, Any]:
        return record(NODE_POOL, "np", {"nodeConfig": {"machineType": "g2-standard-8", **node_config}}, {})

    rolled = diff(plan(pool()), plan(pool(machineType="g2-standard-16")))
    relabelled = diff(plan(pool()), plan(pool(labels={"team": "ml"})))

    assert [(c.action, c.drains) for c in rolled.changed] == [
        ("update", "GKE recreates every node of the pool to apply it, draining each")
    ]
    assert rolled.changed[0].changes[0].rolls
    assert [(c.action, c.drains) for c in relabelled.changed] == [("update", None)]


def test_base64_user_data_is_diffed_decoded() -> None:
    def template(toml: str) -> dict[str, Any]:
        encoded = base64.b64encode(toml.encode()).decode()
        return record("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"userData": encoded}, {})

    result = diff(
        plan(template('[settings.nvidia]\nprofile = "1g.5gb"\n')),
        plan(template('[settings.nvidia]\nprofile = "2g.10gb"\n')),
    )

    assert result.changed[0].changes == (
        InputChange("userData", "1g.5gb", "2g.10gb", decoded="base64 TOML", within="settings.nvidia.profile"),
    )
    assert '    userData (base64 TOML) settings.nvidia.profile: "1g.5gb" -> "2g.10gb"\n' in to_text(result)
    assert to_document(result)["resources"][0]["changes"] == [
        {
            "path": "userData",
            "decoded": "base64 TOML",
            "within": "settings.nvidia.profile",
            "old": "1g.5gb",
            "new": "2g.10gb",
            "replaces": False,
        }
    ]
    script = diff(plan(template("#!/bin/sh\necho a\n")), plan(template("#!/bin/sh\necho b\n")))
    assert to_text(script).splitlines()[2:5] == ["    userData (base64):", "      @@ -1,2 +1,2 @@", "       #!/bin/sh"]


AGENT_POOL = "azure-native:containerservice:AgentPool"
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
ADVERTISER_TO_DRA = (
    'its gpu-components/gpu-access label changed ((none) -> "dra"): the pool\'s GPU advertiser changes on live nodes'
    " (the device plugin -> NVIDIA's DRA driver): drain them, or add a new pool and move the workloads"
    ' (README "Moving a pool")'
)
ADVERTISER_TO_DEVICE_PLUGIN = (
    'its gpu-components/gpu-access label changed ("dra" -> (none)): the pool\'s GPU advertiser changes on live nodes'
    " (NVIDIA's DRA driver -> the device plugin): drain them, or add a new pool and move the workloads"
    ' (README "Moving a pool")'
)


def karpenter_pool(labels: dict[str, str]) -> dict[str, Any]:
    return record(KARPENTER_NODE_POOL, "np", {"spec": {"template": {"metadata": {"labels": labels}}}}, {})


@pytest.mark.parametrize(
    ("old", "new", "drains"),
    [
        (node_group(), node_group(labels={"gpu-components/pool": "gpu", "gpu-components/gpu-access": "dra"}), None),
        (
            record(AGENT_POOL, "ap", {"nodeLabels": {"gpu-components/gpu-access": "dra"}}, {}),
            record(AGENT_POOL, "ap", {"nodeLabels": {}}, {}),
            ADVERTISER_TO_DEVICE_PLUGIN,
        ),
        (karpenter_pool({"gpu-components/pool": "np"}), karpenter_pool({"gpu-components/gpu-access": "dra"}), None),
    ],
)
def test_a_new_gpu_advertiser_on_a_live_pool_strands_its_work(
    old: dict[str, Any], new: dict[str, Any], drains: str | None
) -> None:
    result = diff(plan(old), plan(new))

    assert [(c.action, c.drains) for c in result.changed] == [("update", drains or ADVERTISER_TO_DRA)]
    assert result.drained == result.changed


def test_other_label_changes_leave_the_gpu_advertiser_alone() -> None:
    access = {"gpu-components/pool": "gpu", "gpu-components/gpu-access": "dra"}
    relabelled = diff(plan(node_group(labels=access)), plan(node_group(labels={**access, "team": "ml"})))
    other = record("kubernetes:core/v1:ConfigMap", "cm", {"data": {"gpu-components/gpu-access": "dra"}}, {})

    assert [(c.action, c.drains) for c in relabelled.changed] == [("update", None)]
    assert diff(plan(other), plan(record("kubernetes:core/v1:ConfigMap", "cm", {"data": {}}, {}))).drained == ()


def test_a_new_gpu_advertiser_is_marked_on_the_pool_line() -> None:
    result = diff(plan(node_group()), plan(node_group(labels={"gpu-components/gpu-access": "dra"})))

    assert to_text(result).splitlines() == [
        "Plan diff of dev:",
        f"~ {NODE_GROUP} gpu  [drains nodes: {ADVERTISER_TO_DRA}]",
        '    labels["gpu-components/gpu-access"]: (none) -> "dra"',
        '    labels["gpu-components/pool"]: "gpu" -> (none)',
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes",
    ]
