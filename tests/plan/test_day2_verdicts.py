"""Issue 26's day-2 verdicts: each change that was reported wrongly, or not at all, with the exact diff text and the
exit status of ``gpu-components diff --exit-code`` (3 changes, 4 a node pool drained, 6 ``pulumi up`` would refuse).

Provider moves follow the engine's ``providerChanged`` (pulumi/pulumi ``pkg/resource/deploy/step_generator.go``): the
new provider's ``DiffConfig`` compares the old provider's settings with the new one's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest
from click.testing import CliRunner

from gpu_components.aws import EksGpuNodeGroup
from gpu_components.cli import main
from tests.helpers import WIRING
from tests.plan.test_engine_verdicts import pool, program_plan, stack_plans, verdict

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
SPEC = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 4}
TAGS = (
    "gpu-autoscaler-label-gpu-components/pool",
    "gpu-autoscaler-label-k8s.amazonaws.com/accelerator",
    "gpu-autoscaler-label-nvidia.com/device-plugin.config",
    "gpu-autoscaler-label-nvidia.com/gpu.present",
    "gpu-autoscaler-nvidia.com-gpu",
    "gpu-autoscaler-taint-nvidia.com/gpu",
)
"""The Auto Scaling group tags EksGpuNodeGroup ``gpu`` makes beside its node group (the same provider)."""


def node_group(provider: str | None = None, region: str = "us-west-2") -> Callable[[], None]:
    """EksGpuNodeGroup ``gpu`` on the default AWS provider, or on an explicit one named ``provider`` in ``region``."""

    def program() -> None:
        providers = [aws.Provider(provider, region=region)] if provider is not None else None
        EksGpuNodeGroup("gpu", {"pool": SPEC, **WIRING["aws"]}, pulumi.ResourceOptions(providers=providers))

    return program


def provider_lines(old: str, new: str, *settings: str, mark: str = "") -> list[str]:
    return [f"    (provider): {old} -> {new}{mark}", *settings]


def test_moving_a_node_group_from_the_default_provider_to_one_in_another_region_replaces_it(tmp_path: Path) -> None:
    """It read as no change to the node group (only the new provider listed; exit 3): the engine replaces it, as
    pulumi-aws's DiffConfig replaces every resource of a provider whose region changed."""
    old = to_plan(node_group(), {"aws:region": "us-west-2"})
    text, status = verdict(tmp_path, old, to_plan(node_group("east", "us-east-1"), {"aws:region": "us-west-2"}))

    moved = provider_lines(
        "(the default provider)",
        '"urn:pulumi:dev::p::pulumi:providers:aws::east"',
        '    (provider settings) region: "us-west-2" -> "us-east-1"  [forces replacement]',
        # What the SDK's aws.Provider sends beside the region (its schema defaults); the stack config has neither.
        '    (provider settings) skipCredentialsValidation: (none) -> "false"',
        '    (provider settings) skipRegionValidation: (none) -> "true"',
        mark="  [forces replacement]",
    )
    assert text.splitlines() == [
        "Plan diff of dev:",
        *(line for tag in TAGS for line in (f"+- aws:autoscaling/tag:Tag {tag}", *moved)),
        f"+- {NODE_GROUP} gpu-node-group",
        *moved,
        "+ pulumi:providers:aws east",
        "1 to create, 0 to update, 7 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes",
    ]
    assert status == 4


def test_swapping_a_provider_for_one_with_the_same_settings_replaces_nothing(tmp_path: Path) -> None:
    """It read as a forced replacement (exit 4): DiffConfig of identical settings asks for none, so the engine keeps
    every resource; only the providers themselves are created and deleted (exit 3)."""
    text, status = verdict(tmp_path, program_plan(node_group("east")), program_plan(node_group("west")))

    kept = "  [provider changed to one with the same settings: the engine keeps the resource]"
    swap = provider_lines(
        '"urn:pulumi:dev::p::pulumi:providers:aws::east"', '"urn:pulumi:dev::p::pulumi:providers:aws::west"'
    )
    assert text.splitlines() == [
        "Plan diff of dev:",
        *(line for tag in TAGS for line in (f"= aws:autoscaling/tag:Tag {tag}{kept}", *swap)),
        f"= {NODE_GROUP} gpu-node-group{kept}",
        *swap,
        "- pulumi:providers:aws east",
        "+ pulumi:providers:aws west",
        "1 to create, 0 to update, 0 to replace, 1 to delete; 0 output change(s); 7 moved to a provider of the same"
        " settings and otherwise unchanged",
    ]
    assert status == 3


def to_plan(program: Callable[[], None], config: dict[str, str]) -> str:
    from gpu_components.plan import run_program, to_json

    return to_json(run_program(program, project="p", stack="dev", config=config))


def sized_node_group(desired: int, ignore: str) -> Callable[[], None]:
    """A plain EKS node group of ``desired`` nodes whose ``ignoreChanges`` is ``ignore``."""

    def program() -> None:
        aws.eks.NodeGroup(
            "ng",
            cluster_name="gpu",
            node_role_arn="arn:aws:iam::123456789012:role/n",
            subnet_ids=["subnet-1"],
            scaling_config={"desired_size": desired, "min_size": 0, "max_size": 4},
            opts=pulumi.ResourceOptions(ignore_changes=[ignore]),
        )

    return program


def test_an_ignore_changes_path_that_names_no_input_is_warned_about_in_the_diff(tmp_path: Path) -> None:
    """The Python spelling ignores nothing (the engine's inputs are camelCase): the size change is diffed, and the
    diff says why, naming the closest input path."""
    old = program_plan(sized_node_group(1, "scaling_config.desired_size"))
    text, status = verdict(tmp_path, old, program_plan(sized_node_group(3, "scaling_config.desired_size")))

    assert text == (
        "Plan diff of dev:\n"
        f'warning: {NODE_GROUP} ng: ignoreChanges path "scaling_config.desired_size" names no input of the resource, so'
        ' it ignores nothing; the closest input is "scalingConfig.desiredSize" (paths are the engine\'s camelCase input'
        " names)\n"
        f"~ {NODE_GROUP} ng\n"
        "    scalingConfig.desiredSize: 1 -> 3\n"
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s)\n"
    )
    assert status == 3
    # The engine's spelling ignores the change, and warns of nothing.
    right = program_plan(sized_node_group(3, "scalingConfig.desiredSize"))
    assert verdict(tmp_path, program_plan(sized_node_group(1, "scalingConfig.desiredSize")), right) == (
        "Plan diff of dev:\nno changes\n",
        0,
    )


PROJECT = """\
name: p
runtime: python
main: app/
"""
PROGRAM = """\
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

aws.eks.NodeGroup(
    "ng",
    cluster_name="gpu",
    node_role_arn="arn:aws:iam::123456789012:role/n",
    subnet_ids=["subnet-1"],
    scaling_config={"desired_size": 1, "min_size": 0, "max_size": 4},
    opts=pulumi.ResourceOptions(ignore_changes=["scaling_config.desired_size"]),
)
"""


def test_an_ignore_changes_path_that_names_no_input_is_warned_about_by_plan(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text(PROJECT)
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text(PROGRAM)

    result = CliRunner().invoke(main, ["plan", "dev", "--cwd", str(tmp_path)])

    assert result.exit_code == 0
    assert result.stderr == (
        f'warning: dev: {NODE_GROUP} ng: ignoreChanges path "scaling_config.desired_size" names no input of the'
        ' resource, so it ignores nothing; the closest input is "scalingConfig.desiredSize" (paths are the engine\'s'
        " camelCase input names)\n"
    )


def protected_node_group(present: bool) -> Callable[[], None]:
    def program() -> None:
        if present:
            EksGpuNodeGroup("gpu", {"pool": SPEC, **WIRING["aws"]}, pulumi.ResourceOptions(protect=True))

    return program


def test_deleting_a_protected_node_group_is_refused(tmp_path: Path) -> None:
    """It exited 3: pulumi up refuses to delete a protected resource, so the diff exits 6 (refused)."""
    text, status = verdict(
        tmp_path, program_plan(protected_node_group(True)), program_plan(protected_node_group(False))
    )

    protected = "  [protected: pulumi up refuses to delete it until protect is removed]"
    assert (
        f"- {NODE_GROUP} gpu-node-group  [drains nodes: the node pool is deleted: its nodes are drained]{protected}"
        in (text.splitlines())
    )
    assert text.splitlines()[-1] == (
        "0 to create, 0 to update, 0 to replace, 8 to delete; 0 output change(s); 1 resource(s) draining nodes;"
        " 8 refused"
        " (pulumi up would fail)"
    )
    assert status == 6


@pytest.mark.stack
def test_a_karpenter_mig_layout_change_under_the_gpu_operator_drains_the_node_pool(tmp_path: Path) -> None:
    """It read as an update (exit 3): the MIG manager repartitions the GPUs of the NodePool's live nodes."""
    text, status = verdict(tmp_path, *stack_plans("aws-eks-karpenter", pool("h100-mig", mig={"profile": "2g.20gb"})))

    lines = text.splitlines()
    at = lines.index(
        "~ kubernetes:karpenter.sh/v1:NodePool gpu-karpenter-gpu-h100-mig-node-pool  [drains nodes: its"
        " nvidia.com/mig.config label changed: the GPU Operator's MIG Manager repartitions the GPUs of every node,"
        " which needs every GPU workload on them stopped first]"
    )
    assert lines[at + 1] == '    spec.template.metadata.labels["nvidia.com/mig.config"]: "all-1g.10gb" -> "all-2g.20gb"'
    assert (
        lines[-1]
        == "0 to create, 2 to update, 1 to replace, 0 to delete; 8 output change(s); 1 resource(s) draining nodes"
    )
    assert status == 4


def system_vm_size(size: str) -> Callable[[dict[str, Any]], None]:
    def edit(config: dict[str, Any]) -> None:
        config["gpu-components:cluster"]["system_node_pool"]["vm_size"] = size

    return edit


@pytest.mark.stack
def test_an_aks_system_pool_vm_size_change_is_refused_by_aks(tmp_path: Path) -> None:
    """It read as an update (exit 3): AKS refuses to change an existing pool's VM size."""
    text, status = verdict(tmp_path, *stack_plans("azure-aks", system_vm_size("Standard_D8ds_v5")))

    assert text == (
        "Plan diff of azure-aks:\n"
        "~ azure-native:containerservice:ManagedCluster gpudemo  [refused: AKS refuses to change the VM size of an"
        " existing node pool: add a new system pool with the new size, move the system workloads onto it, then remove"
        " the old pool [source: https://learn.microsoft.com/azure/aks/manage-node-pools#limitations (\"You can't change"
        ' the VM size of a node pool after you create it."); https://learn.microsoft.com/azure/aks/resize-node-pool'
        " (resize by creating a new node pool, cordoning and draining the old one, then deleting it; the in-place"
        " resize is an opt-in preview)]]\n"
        '    agentPoolProfiles[0].vmSize: "Standard_D4ds_v5" -> "Standard_D8ds_v5"  [refused in place]\n'
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s); 1 refused (pulumi up would fail)\n"
    )
    assert status == 6


def nvidia_driver(version: str) -> Callable[[], None]:
    """A GPU Operator NVIDIADriver custom resource for the nodes labelled ``pool: l4``."""

    def program() -> None:
        k8s.apiextensions.CustomResource(
            "driver",
            api_version="nvidia.com/v1alpha1",
            kind="NVIDIADriver",
            spec={
                "version": version,
                "nodeSelector": {"pool": "l4"},
                "upgradePolicy": {
                    "autoUpgrade": True,
                    "maxParallelUpgrades": 2,
                    "maxUnavailable": "50%",
                    "waitForCompletion": {"timeoutSeconds": 600, "podSelector": "gpu-components/long-running=true"},
                    "podDeletion": {"timeoutSeconds": 300},
                    "drain": {"enable": True, "timeoutSeconds": 900},
                },
            },
        )

    return program


def test_an_nvidia_driver_version_change_drains_its_nodes(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, program_plan(nvidia_driver("580.95.05")), program_plan(nvidia_driver("595.91.07")))

    assert text == (
        "Plan diff of dev:\n"
        "~ kubernetes:nvidia.com/v1alpha1:NVIDIADriver driver  [drains nodes: the NVIDIADriver's driver version changes"
        ' ("580.95.05" -> "595.91.07"): the GPU Operator\'s upgrade controller evicts the GPU pods of the nodes it'
        ' selects ({"pool": "l4"}), node by node (maxParallelUpgrades 2, maxUnavailable 50%, waits 600 s for pods'
        " gpu-components/long-running=true, then deletes GPU pods (timeout 300 s), drains (timeout 900 s))]\n"
        '    spec.version: "580.95.05" -> "595.91.07"\n'
        "0 to create, 1 to update, 0 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4
