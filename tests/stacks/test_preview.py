"""Preview and up plans of every example stack differ exactly by the unknowns (issue 13, "Preview as a preview").

`run_program(..., preview=True)` is `pulumi preview` of a new stack: each new custom resource's id and computed
outputs are unknown, so every input fed from them reads `"[unknown]"`. The up plan (the default) is the state after
`pulumi up`. Both must register the same resources with the same options, and their inputs and stack outputs may
differ only where the preview has `"[unknown]"`; which values those are is asserted exactly per stack.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from click.testing import CliRunner

from gpu_components.cli import main
from gpu_components.plan import UNKNOWN, load_stack, run_program, to_json
from gpu_components.program import main as example_program
from tests.helpers import ROOT, example_plan

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@functools.cache
def documents(stack: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON plan documents of ``stack``: (up, preview)."""
    project, config = load_stack(ROOT, stack)
    preview = run_program(example_program, project=project, stack=stack, config=config, preview=True)
    return json.loads(to_json(example_plan(stack))), json.loads(to_json(preview))


def unknowns(up: Any, preview: Any, path: str = "") -> dict[str, Any]:
    """Every path where ``preview`` is unknown and ``up`` is not, with the up value; fails at any other difference
    (a key or list element on one side only, or two different known values)."""
    if preview == UNKNOWN and up != UNKNOWN:
        return {path: up}
    if isinstance(up, dict) and isinstance(preview, dict):
        assert sorted(up) == sorted(preview), path
        return {k: v for key in up for k, v in unknowns(up[key], preview[key], f"{path}.{key}").items()}
    if isinstance(up, list) and isinstance(preview, list):
        assert len(up) == len(preview), path
        pairs = enumerate(zip(up, preview, strict=True))
        return {k: v for n, (a, b) in pairs for k, v in unknowns(a, b, f"{path}[{n}]").items()}
    assert up == preview, path
    return {}


def unknown_paths(stack: str) -> dict[str, Any]:
    """The unknowns of the preview of ``stack``: ``<resource name>.<inputs path>`` or ``outputs.<path>``, and the
    value each has after `pulumi up`."""
    up, preview = documents(stack)
    assert [r["urn"] for r in up["resources"]] == [r["urn"] for r in preview["resources"]]
    found: dict[str, Any] = {}
    for old, new in zip(up["resources"], preview["resources"], strict=True):
        assert {k: v for k, v in old.items() if k != "inputs"} == {k: v for k, v in new.items() if k != "inputs"}
        found.update(unknowns(old["inputs"], new["inputs"], old["name"]))
    found.update(unknowns(up["outputs"], preview["outputs"], "outputs"))
    assert sorted(up) == sorted(preview) and (up["project"], up["stack"]) == (preview["project"], preview["stack"])
    return found


@pytest.mark.parametrize("stack", STACKS)
def test_preview_and_up_plans_have_the_same_resources_and_differ_only_by_unknowns(stack: str) -> None:
    found = unknown_paths(stack)

    assert found, f"{stack}: a preview of a new stack has unknowns"
    if stack in ATTACHED:  # the kubeconfig of an existing cluster is made from a lookup, known at preview
        return
    # The Kubernetes provider is fed the cluster's kubeconfig, made from outputs the cluster has only once it exists;
    # after `pulumi up` it is a secret, in preview it is unknown (an unknown hides nothing).
    provider = {
        "azure-aks": "gpudemo-k8s",
        "azure-aks-nap": "gpunap-k8s",
        "aws-eks-karpenter": "gpu-karpenter-k8s",
        "aws-eks-auto": "gpu-auto-k8s",
        "gcp-gke-autopilot": "gpu-autopilot-k8s",
    }.get(stack, "gpu-demo-k8s")
    assert (found[f"{provider}.kubeconfig"], found["outputs.kubeconfig"]) == ("[secret]", "[secret]")


ATTACHED: tuple[str, ...] = ()
"""Stacks that attach to an existing cluster (``existing: true``)."""


def test_provisioned_eks_preview_unknowns() -> None:
    # The pools' node classes name the node role the cluster side creates (Karpenter's, or Auto Mode's), by its name:
    # unknown until the role exists. The NodePools hold no unknown (their limits, requirements and labels are the
    # pools' plain values).
    karpenter = unknown_paths("aws-eks-karpenter")
    auto = unknown_paths("aws-eks-auto")
    assert {k: v for k, v in karpenter.items() if "-node-class." in k or "-node-pool." in k} == {
        "gpu-karpenter-gpu-h100-mig-node-class.spec.role": "gpu-karpenter-karpenter-node-role-aa9d4d0",
        "gpu-karpenter-gpu-l40s-shared-node-class.spec.role": "gpu-karpenter-karpenter-node-role-aa9d4d0",
    }
    assert karpenter["gpu-karpenter-karpenter-node-access.principalArn"] == (
        "arn:aws:iam::123456789012:role/gpu-karpenter-karpenter-node-role-aa9d4d0"
    )
    assert auto == {
        "gpu-auto-gpu-l4-auto-node-class.spec.role": "gpu-auto-auto-node-role-369b3d0",
        "gpu-auto-k8s.kubeconfig": "[secret]",
        "gpu-auto.autoMode.computeConfig.nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-auto-auto-node-role-369b3d0",
        "outputs.kubeconfig": "[secret]",
    }


def test_eks_preview_unknowns() -> None:
    found = unknown_paths("aws-eks")
    role = "arn:aws:iam::123456789012:role/gpu-demo-node-role-0c4f5e8"
    groups = {
        "a100-mig": "eks-gpu-demo-gpu-a100-mig-node-group-d3ed933-d3ed9332-c1a1-433d-adb7-d1d0b619e151",
        "a10g-shared": "eks-gpu-demo-gpu-a10g-shared-node-group-9049f43-9049f435-9dcf-4b57-ac9c-ecfabd916c68",
    }
    autoscaler = {path: value for path, value in found.items() if "-autoscaler-" in path}
    # Each Auto Scaling group tag names its node group's group: a computed output of the node group.
    assert autoscaler == {
        f"gpu-demo-gpu-{pool}-autoscaler-{tag}.autoscalingGroupName": groups[pool]
        for pool, tags in {
            "a100-mig": [
                "label-gpu-components/pool",
                "label-k8s.amazonaws.com/accelerator",
                "nvidia.com-gpu",
                "taint-nvidia.com/gpu",
            ],
            "a10g-shared": [
                "label-gpu-components/pool",
                "label-k8s.amazonaws.com/accelerator",
                "label-gpu-components/sharing",
                "label-nvidia.com/device-plugin.config",
                "label-nvidia.com/gpu.present",
                "label-workload",
                "nvidia.com-gpu",
                "taint-nvidia.com/gpu",
            ],
        }.items()
        for tag in tags
    }
    assert {path: value for path, value in found.items() if path not in autoscaler} == {
        # The node role's ARN and the Bottlerocket launch template's id and version: computed outputs.
        "gpu-demo-system.nodeRoleArn": role,
        "gpu-demo-gpu-a100-mig-node-group.nodeRoleArn": role,
        "gpu-demo-gpu-a10g-shared-node-group.nodeRoleArn": role,
        "gpu-demo-gpu-a100-mig-node-group.launchTemplate.id": "lt-d7e48817324eb8772",
        "gpu-demo-gpu-a100-mig-node-group.launchTemplate.version": "1",
        "gpu-demo-k8s.kubeconfig": "[secret]",
        "outputs.kubeconfig": "[secret]",
    }


def test_aks_preview_unknowns() -> None:
    # The resource group's and the cluster's names are outputs of theirs (the inputs are resourceGroupName and
    # resourceName): the cluster's group, each agent pool's group and cluster, and the credentials listed for them.
    assert unknown_paths("azure-aks") == {
        "gpudemo.resourceGroupName": "gpudemo-rg",
        "gpudemo-gpu-a100mig-agent-pool.resourceGroupName": "gpudemo-rg",
        "gpudemo-gpu-a100mig-agent-pool.resourceName": "gpudemo",
        "gpudemo-gpu-gb200-agent-pool.resourceGroupName": "gpudemo-rg",
        "gpudemo-gpu-gb200-agent-pool.resourceName": "gpudemo",
        "gpudemo-gpu-t4spot-agent-pool.resourceGroupName": "gpudemo-rg",
        "gpudemo-gpu-t4spot-agent-pool.resourceName": "gpudemo",
        "gpudemo-k8s.kubeconfig": "[secret]",
        "outputs.kubeconfig": "[secret]",
    }


def test_gke_preview_unknowns() -> None:
    # The node service account's email (and member) is computed; the kubeconfig is made from the cluster's endpoint.
    email = "gpu-demo-nodes@gpu-demo-project.iam.gserviceaccount.com"
    assert unknown_paths("gcp-gke") == {
        "gpu-demo-system.nodeConfig.serviceAccount": email,
        "gpu-demo-gpu-a100-mig-node-pool.nodeConfig.serviceAccount": email,
        "gpu-demo-gpu-b200-mig-node-pool.nodeConfig.serviceAccount": email,
        "gpu-demo-gpu-l4-shared-node-pool.nodeConfig.serviceAccount": email,
        "gpu-demo-gpu-l4-auto-compute-class.spec.nodePoolConfig.serviceAccount": email,
        "gpu-demo-nodes-node.member": f"serviceAccount:{email}",
        "gpu-demo-nodes-registry.member": f"serviceAccount:{email}",
        "gpu-demo-k8s.kubeconfig": "[secret]",
        "outputs.kubeconfig": "[secret]",
    }


def test_plan_preview_flag_prints_the_preview_and_the_default_is_up() -> None:
    up, preview = documents("gcp-gke")

    def printed(*flags: str) -> Any:
        result = CliRunner().invoke(main, ["plan", "gcp-gke", "--format", "json", "--cwd", str(ROOT), *flags])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    assert printed("--preview") == preview
    assert printed() == up
