"""Issue 30: a change of a provisioned pool's NodePool or NodeClass drains its nodes as Karpenter's drift says
(https://karpenter.sh/docs/concepts/disruption/#drift), with the exact diff text and ``diff --exit-code`` status:
4 where Karpenter replaces nodes, 3 where it replaces none (a widening, a behavioral field)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.plan.karpenter_drift import narrowed_requirements
from tests.plan.test_engine_verdicts import Edit, pool, stack_plans, verdict

SUMMARY = "0 to create, 1 to update, 0 to replace, 0 to delete; {} output change(s)"


def provisioning(name: str, **settings: Any) -> Edit:
    """An edit of one pool's ``provisioning`` block in the stack config."""

    def edit(config: dict[str, Any]) -> None:
        next(p for p in config["gpu-components:pools"] if p["name"] == name)["provisioning"].update(settings)

    return edit


def removed(name: str) -> Edit:
    def edit(config: dict[str, Any]) -> None:
        config["gpu-components:pools"] = [p for p in config["gpu-components:pools"] if p["name"] != name]

    return edit


@pytest.mark.stack
def test_a_label_added_to_a_karpenter_pool_replaces_its_nodes(tmp_path: Path) -> None:
    """It read as an update (exit 3): the label is in the NodePool's template hash, so every node drifts."""
    text, status = verdict(
        tmp_path, *stack_plans("azure-aks-nap", pool("t4shared", labels={"workload": "notebooks", "team": "ml"}))
    )

    assert text == (
        "Plan diff of azure-aks-nap:\n"
        "~ kubernetes:karpenter.sh/v1:NodePool gpunap-gpu-t4shared-node-pool  [drains nodes: Karpenter drift:"
        " spec.template.metadata.labels changed, so Karpenter replaces every node of NodePool t4shared]\n"
        '    spec.template.metadata.labels.team: (none) -> "ml"\n'
        f"{SUMMARY.format(0)}; 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_a_disk_size_change_drifts_every_node_of_the_ec2_node_class(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("aws-eks-karpenter", pool("l40s-shared", disk_size_gb=200)))

    assert text == (
        "Plan diff of aws-eks-karpenter:\n"
        "~ kubernetes:karpenter.k8s.aws/v1:EC2NodeClass gpu-karpenter-gpu-l40s-shared-node-class  [drains nodes:"
        " Karpenter drift: spec.blockDeviceMappings changed, so Karpenter replaces every node launched from"
        " EC2NodeClass l40s-shared (NodePool l40s-shared)]\n"
        '    spec.blockDeviceMappings[0].ebs.volumeSize: "100Gi" -> "200Gi"\n'
        f"{SUMMARY.format(0)}; 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_a_disk_size_change_drifts_an_auto_mode_and_an_aks_node_class(tmp_path: Path) -> None:
    auto, auto_status = verdict(tmp_path, *stack_plans("aws-eks-auto", pool("l4-auto", disk_size_gb=200)))
    nap, nap_status = verdict(tmp_path, *stack_plans("azure-aks-nap", pool("a100nap", disk_size_gb=200)))

    assert auto.splitlines()[1:3] == [
        "~ kubernetes:eks.amazonaws.com/v1:NodeClass gpu-auto-gpu-l4-auto-node-class  [drains nodes: Karpenter drift:"
        " spec.ephemeralStorage changed, so Karpenter replaces every node launched from NodeClass l4-auto"
        " (NodePool l4-auto)]",
        '    spec.ephemeralStorage.size: "100Gi" -> "200Gi"',
    ]
    assert nap.splitlines()[1:3] == [
        "~ kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass gpunap-gpu-a100nap-node-class  [drains nodes:"
        " Karpenter drift: spec.osDiskSizeGB changed, so Karpenter replaces every node launched from AKSNodeClass"
        " a100nap (NodePool a100nap)]",
        "    spec.osDiskSizeGB: 100 -> 200",
    ]
    assert (auto_status, nap_status) == (4, 4)


@pytest.mark.stack
def test_narrowing_capacity_types_replaces_the_nodes_that_no_longer_fit(tmp_path: Path) -> None:
    text, status = verdict(
        tmp_path, *stack_plans("aws-eks-karpenter", provisioning("l40s-shared", capacity_types=["on-demand"]))
    )

    assert text.splitlines()[1:4] == [
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-karpenter-gpu-l40s-shared-node-pool  [drains nodes: Karpenter"
        ' drift: its requirements narrow (karpenter.sh/capacity-type no longer allows "spot"), so Karpenter replaces'
        " the nodes of NodePool l40s-shared that no longer satisfy them]",
        '    spec.template.spec.requirements[1].values[0]: "spot" -> "on-demand"',
        '    spec.template.spec.requirements[1].values[1]: "on-demand" -> (none)',
    ]
    assert text.splitlines()[-1] == f"{SUMMARY.format(3)}; 1 resource(s) draining nodes"
    assert status == 4


@pytest.mark.stack
def test_narrowing_instance_types_replaces_the_nodes_that_no_longer_fit(tmp_path: Path) -> None:
    text, status = verdict(
        tmp_path,
        *stack_plans("aws-eks-auto", provisioning("l4-auto", instance_families=[], instance_types=["g6.2xlarge"])),
    )

    assert text.splitlines()[1] == (
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-auto-gpu-l4-auto-node-pool  [drains nodes: Karpenter drift: its"
        ' requirements narrow (node.kubernetes.io/instance-type no longer allows "g6.12xlarge", "g6.16xlarge",'
        ' "g6.24xlarge", "g6.48xlarge", "g6.4xlarge", "g6.8xlarge"), so Karpenter replaces the nodes of NodePool'
        " l4-auto that no longer satisfy them]"
    )
    assert status == 4


@pytest.mark.stack
def test_widening_instance_types_replaces_no_node(tmp_path: Path) -> None:
    """Karpenter: a node whose type the new requirements still allow has not drifted."""
    text, status = verdict(
        tmp_path,
        *stack_plans("aws-eks-karpenter", provisioning("l40s-shared", instance_types=["g6e.2xlarge", "g6e.4xlarge"])),
    )

    assert text == (
        "Plan diff of aws-eks-karpenter:\n"
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-karpenter-gpu-l40s-shared-node-pool\n"
        '    spec.template.spec.requirements[0].values[2]: (none) -> "g6e.4xlarge"\n'
        "outputs:\n"
        '    gpuPools.l40s-shared.capacity.provisioning.allowedTypes[2]: (none) -> "g6e.4xlarge"\n'
        '    gpuPools.l40s-shared.capacity.provisioning.instanceTypes[2]: (none) -> "g6e.4xlarge"\n'
        f"{SUMMARY.format(2)}\n"
    )
    assert status == 3


@pytest.mark.stack
def test_limits_and_disruption_settings_are_behavioral_and_replace_no_node(tmp_path: Path) -> None:
    limits, limits_status = verdict(tmp_path, *stack_plans("azure-aks-nap", provisioning("a100nap", max_gpus=16)))
    consolidate, consolidate_status = verdict(
        tmp_path,
        *stack_plans(
            "aws-eks-auto", provisioning("l4-auto", disruption={"expire_after": "336h", "consolidate_after": "30m"})
        ),
    )

    assert limits.splitlines()[1:3] == [
        "~ kubernetes:karpenter.sh/v1:NodePool gpunap-gpu-a100nap-node-pool",
        '    spec.limits["nvidia.com/gpu"]: "8" -> "16"',
    ]
    assert consolidate.splitlines()[1:3] == [
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-auto-gpu-l4-auto-node-pool",
        '    spec.disruption.consolidateAfter: "10m" -> "30m"',
    ]
    assert (limits_status, consolidate_status) == (3, 3)


@pytest.mark.stack
def test_an_expire_after_change_is_in_the_template_hash_and_replaces_every_node(tmp_path: Path) -> None:
    text, status = verdict(
        tmp_path, *stack_plans("aws-eks-auto", provisioning("l4-auto", disruption={"expire_after": "168h"}))
    )

    assert text.splitlines()[1:3] == [
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-auto-gpu-l4-auto-node-pool  [drains nodes: Karpenter drift:"
        " spec.template.spec.expireAfter changed, so Karpenter replaces every node of NodePool l4-auto]",
        '    spec.template.spec.expireAfter: "336h" -> "168h"',
    ]
    assert status == 4


@pytest.mark.stack
def test_deleting_a_karpenter_pool_drains_its_nodes(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("aws-eks-karpenter", removed("l40s-shared")))

    lines = text.splitlines()
    assert (
        "- kubernetes:karpenter.sh/v1:NodePool gpu-karpenter-gpu-l40s-shared-node-pool  [drains nodes: the NodePool"
        " l40s-shared is deleted: Karpenter drains and terminates every node it launched]"
    ) in lines
    assert (
        "- kubernetes:karpenter.k8s.aws/v1:EC2NodeClass gpu-karpenter-gpu-l40s-shared-node-class  [drains nodes: the"
        " EC2NodeClass l40s-shared is deleted: Karpenter holds its deletion until every node launched from it"
        " (NodePool l40s-shared) is terminated]"
    ) in lines
    assert lines[-1] == (
        "0 to create, 1 to update, 1 to replace, 4 to delete; 1 output change(s); 2 resource(s) draining nodes"
    )
    assert status == 4


def test_requirements_narrow_only_when_a_node_they_allowed_no_longer_fits() -> None:
    spot = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}
    zone = {"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": ["us-west-2d"]}

    assert narrowed_requirements([spot], [{**spot, "values": ["spot", "on-demand", "reserved"]}]) == []
    assert narrowed_requirements([spot, zone], [spot]) == []
    assert narrowed_requirements([spot], [{**spot, "minValues": 1}]) == []
    assert narrowed_requirements([zone], [{**zone, "values": []}]) == []
    assert narrowed_requirements([spot], [spot, zone]) == [
        'a new requirement topology.kubernetes.io/zone NotIn ["us-west-2d"]'
    ]
    assert narrowed_requirements([zone], [{**zone, "values": ["us-west-2d", "us-west-2c"]}]) == [
        'a new requirement topology.kubernetes.io/zone NotIn ["us-west-2d", "us-west-2c"]'
    ]
    assert narrowed_requirements([spot], [{**spot, "values": ["on-demand"]}]) == [
        'karpenter.sh/capacity-type no longer allows "spot"'
    ]
