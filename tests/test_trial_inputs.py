"""Bad inputs a new user tried (issue 30's last trial), each one error at every entry point where it can be given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.azure import AksGpuNodePool
from gpu_components.cli import main
from tests.helpers import ROOT, WIRING, copy_example_project, plan_of

SUBNETS = (
    "a node group needs at least one subnet (got []); valid: one subnet id or more "
    "[source: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html]"
)
AKS_NAME = (
    "not a valid azure node pool name, and pool names also name Kubernetes objects and label values, so they must be "
    "DNS-1123 labels (got 'T4-pool'); valid: 1-12 lowercase letters or digits, starting with a letter (Linux node "
    "pools); and 1-50 lowercase letters, digits or '-', starting and ending alphanumeric [source: "
    "https://learn.microsoft.com/azure/aks/create-node-pools#limitations; "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names]"
)
POOL = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 2}
AKS_POOL = {"name": "T4-pool", "instance_type": "Standard_NC4as_T4_v3", "max_size": 2}


def problems(build: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as error:
        plan_of(build)
    return [str(problem) for problem in error.value.problems]


def plan_stack(tmp_path: Path, base: str, config: dict[str, Any], cluster: dict[str, Any] | None = None) -> list[str]:
    """The problem lines of ``gpu-components plan`` on the example stack ``base`` with ``config`` (and ``cluster``
    keys) changed."""
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{base}.yaml").read_text())
    stack["config"].update(config)
    stack["config"]["gpu-components:cluster"] = {**stack["config"].get("gpu-components:cluster", {}), **(cluster or {})}
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1, result.output
    return [line.removeprefix("  - ") for line in result.output.splitlines() if line.startswith("  - ")]


def test_an_empty_subnet_list_is_refused_at_the_component_gpu_cluster_and_stack_config(tmp_path: Path) -> None:
    args = {"pool": POOL, **WIRING["aws"], "subnet_ids": []}
    assert problems(lambda: EksGpuNodeGroup("np", args)) == [f"subnet_ids: {SUBNETS}"]
    wiring = {**WIRING["aws"], "subnet_ids": []}
    assert problems(lambda: GpuCluster("c", {"cloud": "aws", "pools": [POOL], "aws": wiring})) == [
        f"aws.subnet_ids: {SUBNETS}"
    ]
    assert plan_stack(tmp_path, "aws-eks", {}, {"vpc_id": "vpc-1", "subnet_ids": []}) == [
        f"cluster.subnet_ids: {SUBNETS}"
    ]


def test_an_uppercase_aks_pool_name_is_one_error() -> None:
    args = {"pool": AKS_POOL, **WIRING["azure"]}
    assert problems(lambda: AksGpuNodePool("np", args)) == [f"pool.name: {AKS_NAME}"]
    assert problems(lambda: GpuCluster("c", {"cloud": "azure", "pools": [AKS_POOL], "azure": WIRING["azure"]})) == [
        f"pools[0].name: {AKS_NAME}"
    ]


def test_another_clouds_provisioner_on_aks_is_one_error(tmp_path: Path) -> None:
    pool = {
        "name": "nap",
        "instance_type": "Standard_NC4as_T4_v3",
        "provisioning": {"provisioner": "karpenter", "max_gpus": 8},
    }
    reported = plan_stack(tmp_path, "azure-aks", {"gpu-components:pools": [pool]})
    assert [line for line in reported if line.startswith("pools[0].provisioning")] == [
        "pools[0].provisioning.provisioner: not a provisioner of AKS (got 'karpenter'); valid: node-auto-provisioning "
        "[source: https://learn.microsoft.com/azure/aks/node-auto-provisioning]"
    ]


def test_a_component_given_as_a_pool_is_named_as_a_resource() -> None:
    def build() -> None:
        group = EksGpuNodeGroup("np", {"pool": POOL, **WIRING["aws"]})
        GpuCluster("c", {"cloud": "aws", "pools": [group], "aws": WIRING["aws"]})  # type: ignore[list-item]

    assert problems(build) == [
        "pools[0]: input should be a valid dictionary (got a EksGpuNodeGroup resource: this field takes a plain "
        "description, not a resource); valid: a mapping with keys aws, azure, cpu_architecture, desired_size, "
        "disk_size_gb, gcp, gpu_access, gpu_count, gpu_model, gpu_taint, instance_type, labels, max_size, mig, "
        "min_size, mps, name, provisioning, spot, taints, time_slicing"
    ]
