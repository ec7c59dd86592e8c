"""Real changes to the example stacks and components, diffed with the verdict `pulumi up` would reach: exact diff
text and the exit status of ``gpu-components diff --exit-code`` (0 no change, 3 changes, 4 a node pool drained).

Each case plans the program twice, before and after the change, as ``gpu-components plan`` does, and diffs the two
JSON plans. The options each resource is registered with (``ignoreChanges``, ``replaceOnChanges``,
``deleteBeforeReplace``, ``provider``, ``aliases``) are in the plans, and the diff applies them as the engine does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from click.testing import CliRunner

from gpu_components.aws import EksGpuNodeGroup
from gpu_components.azure import AksGpuNodePool
from gpu_components.cli import main
from gpu_components.kubernetes import NvidiaDevicePlugin
from gpu_components.nvidia.mig import MIG_RECONFIGURE_DRAINS
from gpu_components.plan import load_stack, run_program, to_json
from gpu_components.plan.diff import diff, to_text
from gpu_components.plan.replacements import repartitions_gpus
from gpu_components.program import main as example_program
from tests.helpers import ROOT, WIRING, example_plan

Edit = Callable[[dict[str, Any]], None]


def stack_plans(stack: str, edit: Edit) -> tuple[str, str]:
    """The example stack's JSON plan, and its plan with ``edit`` applied to its stack config."""
    project, config = load_stack(ROOT, stack)
    changed = copy.deepcopy(config)
    edit(changed)
    after = run_program(example_program, project=project, stack=stack, config=changed)
    return to_json(example_plan(stack)), to_json(after)


def pool(name: str, **settings: Any) -> Edit:
    """An edit that changes one pool's settings in the stack config."""

    def edit(config: dict[str, Any]) -> None:
        next(p for p in config["gpu-components:pools"] if p["name"] == name).update(settings)

    return edit


def program_plan(program: Callable[[], None]) -> str:
    return to_json(run_program(program, project="p", stack="dev", config={}))


def verdict(tmp_path: Path, old: str, new: str) -> tuple[str, int]:
    """The diff's text, checked to be what ``gpu-components diff --exit-code`` prints, and its exit status."""
    (tmp_path / "old.json").write_text(old)
    (tmp_path / "new.json").write_text(new)
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--exit-code"])
    text = to_text(diff(old, new))
    assert result.output == text
    return text, result.exit_code


SPOT_TOLERATION = (
    '{"effect": "NoSchedule", "key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot"}'
)


@pytest.mark.stack
def test_aks_spot_to_regular_replaces_the_agent_pool_and_drains_it(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("azure-aks", pool("t4spot", spot=False)))

    assert text == (
        "Plan diff of azure-aks:\n"
        "+- azure-native:containerservice:AgentPool gpudemo-gpu-t4spot-agent-pool  [delete before replace]\n"
        '    nodeLabels["kubernetes.azure.com/scalesetpriority"]: "spot" -> (none)\n'
        '    nodeTaints[1]: "kubernetes.azure.com/scalesetpriority=spot:NoSchedule" -> (none)\n'
        '    scaleSetEvictionPolicy: "Delete" -> (none)  [forces replacement]\n'
        '    scaleSetPriority: "Spot" -> (none)  [forces replacement]\n'
        "    spotMaxPrice: -1 -> (none)  [forces replacement]\n"
        "+- kubernetes:batch/v1:Job t4spot-vectoradd  [delete before replace]\n"
        f"    spec.template.spec.tolerations[1]: {SPOT_TOLERATION} -> (none)  [forces replacement]\n"
        "~ kubernetes:helm.sh/v3:Release gpudemo-gpu-device-plugin-release\n"
        f"    values.tolerations[3]: {SPOT_TOLERATION} -> (none)\n"
        "outputs:\n"
        "    gpuPools.t4spot.capacity.spot: true -> false\n"
        "0 to create, 1 to update, 2 to replace, 0 to delete; 1 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_aks_regular_to_spot_replaces_the_agent_pool_and_drains_it(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("azure-aks", pool("a100mig", spot=True)))

    assert text == (
        "Plan diff of azure-aks:\n"
        "+- azure-native:containerservice:AgentPool gpudemo-gpu-a100mig-agent-pool  [delete before replace]\n"
        '    nodeLabels["kubernetes.azure.com/scalesetpriority"]: (none) -> "spot"\n'
        '    nodeTaints[1]: (none) -> "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"\n'
        '    scaleSetEvictionPolicy: (none) -> "Delete"  [forces replacement]\n'
        '    scaleSetPriority: (none) -> "Spot"  [forces replacement]\n'
        "    spotMaxPrice: (none) -> -1  [forces replacement]\n"
        "+- kubernetes:batch/v1:Job a100mig-vectoradd  [delete before replace]\n"
        f"    spec.template.spec.tolerations[1]: (none) -> {SPOT_TOLERATION}  [forces replacement]\n"
        "outputs:\n"
        "    gpuPools.a100mig.capacity.spot: false -> true\n"
        "0 to create, 0 to update, 2 to replace, 0 to delete; 1 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


def test_an_aks_driver_change_replaces_the_agent_pool_and_drains_it(tmp_path: Path) -> None:
    def program(driver: str) -> Callable[[], None]:
        pool = {"name": "a100", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 2}
        return lambda: AksGpuNodePool(
            "a100", {"pool": pool, **WIRING["azure"], "gpu_stack": "gpu-operator", "gpu_driver": driver}
        )

    text, status = verdict(tmp_path, program_plan(program("aks")), program_plan(program("none")))

    assert text == (
        "Plan diff of dev:\n"
        "+- azure-native:containerservice:AgentPool a100-agent-pool  [delete before replace]\n"
        '    gpuProfile.driver: "Install" -> "None"  [forces replacement]\n'
        "0 to create, 0 to update, 1 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_a_gke_desired_size_change_is_ignored_as_the_node_pool_ignores_initial_node_count(tmp_path: Path) -> None:
    # initialNodeCount is force-new in the provider, but the pool ignores it: the Cluster Autoscaler owns the size.
    old, new = stack_plans("gcp-gke", pool("l4-shared", desired_size=2))

    assert '"initialNodeCount": 2' in new
    assert verdict(tmp_path, old, new) == ("Plan diff of gcp-gke:\nno changes\n", 0)


@pytest.mark.stack
def test_a_gke_machine_type_change_recreates_every_node_of_the_pool(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("gcp-gke", pool("l4-shared", instance_type="g2-standard-16")))

    assert text == (
        "Plan diff of gcp-gke:\n"
        "~ gcp:container/nodePool:NodePool gpu-demo-gpu-l4-shared-node-pool  [drains nodes: GKE recreates every node"
        " of the pool to apply it, draining each]\n"
        '    nodeConfig.machineType: "g2-standard-8" -> "g2-standard-16"  [rolls nodes]\n'
        "outputs:\n"
        '    gpuPools.l4-shared.capacity.instanceType: "g2-standard-8" -> "g2-standard-16"\n'
        '    gpuPools.l4-shared.instanceType: "g2-standard-8" -> "g2-standard-16"\n'
        "0 to create, 1 to update, 0 to replace, 0 to delete; 2 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_an_eks_desired_size_change_is_ignored(tmp_path: Path) -> None:
    old, new = stack_plans("aws-eks", pool("a10g-shared", desired_size=3))

    assert '"desiredSize": 3' in new
    assert verdict(tmp_path, old, new) == ("Plan diff of aws-eks:\nno changes\n", 0)


@pytest.mark.stack
def test_a_bottlerocket_mig_change_reads_decoded_and_rolls_the_node_group(tmp_path: Path) -> None:
    edit = pool("a100-mig", mig={"profile": "2g.10gb", "strategy": "single"})
    text, status = verdict(tmp_path, *stack_plans("aws-eks", edit))

    assert text.splitlines()[1:6] == [
        "~ aws:autoscaling/tag:Tag gpu-demo-gpu-a100-mig-autoscaler-nvidia.com-gpu",
        '    tag.value: "56" -> "24"',
        "~ aws:ec2/launchTemplate:LaunchTemplate gpu-demo-gpu-a100-mig-launch-template",
        '    userData (base64 TOML) settings.kubelet-device-plugins.nvidia.mig.profile["a100.40gb"]: "1g.5gb"'
        ' -> "2g.10gb"',
        "~ aws:eks/nodeGroup:NodeGroup gpu-demo-gpu-a100-mig-node-group  [drains nodes: its launch template changed:"
        " EKS rolls every node onto the new version]",
    ]
    assert text.endswith(
        "0 to create, 3 to update, 0 to replace, 0 to delete; 7 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


@pytest.mark.stack
def test_a_gpu_operator_mig_change_on_eks_drains_the_gpu_workloads_of_the_node_group(tmp_path: Path) -> None:
    """The node group is updated in place (labels), but the MIG Manager repartitions every node's GPUs."""
    edit = pool("a100-mig", mig={"profile": "3g.20gb", "strategy": "single"})
    text, status = verdict(tmp_path, *stack_plans("aws-eks-operator", edit))

    assert text.splitlines()[5:7] == [
        "~ aws:eks/nodeGroup:NodeGroup gpu-demo-gpu-a100-mig-node-group  [drains nodes: its nvidia.com/mig.config"
        " label changed: the GPU Operator's MIG Manager repartitions the GPUs of every node, which needs every GPU"
        " workload on them stopped first]",
        '    labels["nvidia.com/mig.config"]: "all-1g.5gb" -> "all-3g.20gb"',
    ]
    assert text.endswith(
        "0 to create, 4 to update, 1 to replace, 0 to delete; 7 output change(s); 1 resource(s) draining nodes\n"
    )
    assert status == 4


def test_a_mig_config_label_drains_only_when_it_gets_a_new_value() -> None:
    node_group = "aws:eks/nodeGroup:NodeGroup"
    old = {"labels": {"nvidia.com/mig.config": "all-1g.5gb", "team": "a"}}

    assert repartitions_gpus(node_group, old, {"labels": {"nvidia.com/mig.config": "all-1g.5gb", "team": "b"}}) is None
    assert repartitions_gpus(node_group, old, {"labels": {"team": "a"}}) is None
    assert repartitions_gpus(node_group, {}, old) == MIG_RECONFIGURE_DRAINS
    assert repartitions_gpus("gcp:container/nodePool:NodePool", {}, {"nodeConfig": old}) == MIG_RECONFIGURE_DRAINS
    assert repartitions_gpus("kubernetes:core/v1:Node", {}, old) is None


def device_plugin_program(pool_name: str, *, alias: str | None = None, provider: bool = True) -> Callable[[], None]:
    """An EKS node group and the device plugin serving it, with a Kubernetes provider (or the default one)."""
    spec = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 4, "time_slicing": {"replicas": 4}}

    def program() -> None:
        opts = pulumi.ResourceOptions(aliases=[pulumi.Alias(name=alias)]) if alias else None
        node_group = EksGpuNodeGroup(pool_name, {"pool": spec, **WIRING["aws"]}, opts)
        kubernetes = k8s.Provider("k8s", kubeconfig="apiVersion: v1") if provider else None
        NvidiaDevicePlugin(
            "device-plugin",
            {"pools": [node_group]},
            pulumi.ResourceOptions(providers={"kubernetes": kubernetes}) if kubernetes else None,
        )

    return program


def test_a_rename_covered_by_an_alias_is_no_delete_and_create(tmp_path: Path) -> None:
    old = program_plan(device_plugin_program("gpu"))
    text, status = verdict(tmp_path, old, program_plan(device_plugin_program("gpu-l4", alias="gpu")))

    # The component matches its alias; its children inherit it (their names start with the component's).
    assert text == (
        "Plan diff of dev:\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-label-gpu-components/pool  [renamed from gpu-autoscaler-label-"
        "gpu-components/pool]\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-label-k8s.amazonaws.com/accelerator  [renamed from"
        " gpu-autoscaler-label-k8s.amazonaws.com/accelerator]\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-label-nvidia.com/device-plugin.config  [renamed from"
        " gpu-autoscaler-label-nvidia.com/device-plugin.config]\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-label-nvidia.com/gpu.present  [renamed from gpu-autoscaler-label-"
        "nvidia.com/gpu.present]\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-nvidia.com-gpu  [renamed from gpu-autoscaler-nvidia.com-gpu]\n"
        "= aws:autoscaling/tag:Tag gpu-l4-autoscaler-taint-nvidia.com/gpu  [renamed from"
        " gpu-autoscaler-taint-nvidia.com/gpu]\n"
        "= aws:eks/nodeGroup:NodeGroup gpu-l4-node-group  [renamed from gpu-node-group]\n"
        "= gpu-components:index:EksGpuNodeGroup gpu-l4  [renamed from gpu]\n"
        "0 to create, 0 to update, 0 to replace, 0 to delete; 0 output change(s); 8 renamed by an alias and otherwise"
        " unchanged\n"
    )
    assert status == 0
    # Without the alias the same rename deletes the node group and creates another.
    text, status = verdict(tmp_path, old, program_plan(device_plugin_program("gpu-l4")))
    assert "- aws:eks/nodeGroup:NodeGroup gpu-node-group  [drains nodes: the node pool is deleted" in text
    assert "+ aws:eks/nodeGroup:NodeGroup gpu-l4-node-group\n" in text
    assert status == 4


def test_removing_the_kubernetes_provider_replaces_what_it_managed(tmp_path: Path) -> None:
    # The resources would move to the default provider: whatever cluster the ambient kubeconfig points at.
    old = program_plan(device_plugin_program("gpu"))
    text, status = verdict(tmp_path, old, program_plan(device_plugin_program("gpu", provider=False)))

    # Its settings differ (the kubeconfig) and the facts do not say whether pulumi-kubernetes' DiffConfig replaces
    # for that: replaced, saying so.
    provider = (
        '    (provider): "urn:pulumi:dev::p::pulumi:providers:kubernetes::k8s" -> (the default provider)  [forces'
        " replacement]  [unless the new provider's DiffConfig finds these settings need none, which cannot be asked"
        ' offline]\n    (provider settings) kubeconfig: "apiVersion: v1" -> (none)'
    )
    assert text == (
        "Plan diff of dev:\n"
        "+- kubernetes:core/v1:ConfigMap device-plugin-config\n"
        f"{provider}\n"
        "+- kubernetes:core/v1:Namespace device-plugin-namespace\n"
        f"{provider}\n"
        "+- kubernetes:helm.sh/v3:Release device-plugin-release\n"
        f"{provider}\n"
        "- pulumi:providers:kubernetes k8s\n"
        "0 to create, 0 to update, 3 to replace, 1 to delete; 0 output change(s)\n"
    )
    assert status == 3


def test_a_launch_template_change_under_a_kept_alias_still_rolls_the_node_group(tmp_path: Path) -> None:
    # The alias stays in the program after the rename; the mocks give the template the id of its old URN, and the
    # diff follows it to the node group that names the template.
    def program(profile: str) -> Callable[[], None]:
        spec = {"name": "a100", "instance_type": "p4d.24xlarge", "max_size": 2, "mig": {"profile": profile}}
        args = {"pool": spec, **WIRING["aws"], "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}
        return lambda: EksGpuNodeGroup("gpu-a100", args, pulumi.ResourceOptions(aliases=[pulumi.Alias(name="gpu")]))

    text, status = verdict(tmp_path, program_plan(program("1g.5gb")), program_plan(program("2g.10gb")))

    assert (
        "~ aws:eks/nodeGroup:NodeGroup gpu-a100-node-group  [drains nodes: its launch template changed: EKS rolls"
        " every node onto the new version]\n" in text
    )
    assert status == 4
