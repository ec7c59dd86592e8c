"""Fractional-GPU instance types (issue 29): AWS G6f / Gr6f and Azure NVadsA10 v5 are refused by name, with why no
pool of them would work and what to use instead, wherever a type or family can be named: the pool spec, the fixed
and provisioned components, ``GpuCluster``, the package's ``Construct`` and the stack config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.aws import EksGpuNodeGroup
from gpu_components.aws.facts import SOURCE_G6F
from gpu_components.aws.provisioned import EksKarpenterGpuNodePool
from gpu_components.azure import AksGpuNodePool, AksNapGpuNodePool
from gpu_components.azure.facts import SOURCE_NVADS_A10
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import plan_of
from tests.test_package_construct import construct_error
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

WIRING = {
    "cluster_name": "demo",
    "subnet_ids": ["subnet-a"],
    "node_role_arn": "arn:aws:iam::111122223333:role/gpu-nodes",
}
G6F = (
    "{name} gives each node 1/8 to 1/2 of one NVIDIA L4, not whole GPUs: EC2 reports their GPU count as 0, which "
    "Karpenter (v1.14.1) and EKS Auto Mode take as the node's nvidia.com/gpu and instance-gpu-count, so no node of "
    "them is ever created for a pod asking for nvidia.com/gpu nor counted against a GPU limit; and no whole GPU "
    "count describes them, so the catalog, whose pools (fixed or provisioned) count whole GPUs, does not list them"
)
G6F_INSTEAD = (
    "an instance type with whole GPUs (the g6 family: one or more whole L4s); or, outside this library, a Karpenter "
    "NodeOverlay (karpenter.sh/v1alpha1, alpha, behind Karpenter's NodeOverlay feature gate) that adds nvidia.com/gpu "
    "capacity to these types"
)
NVADS = (
    "{name} gives each node its A10 through NVIDIA vGPU, only a fraction of one A10 on the smaller sizes (1/6, 1/3 "
    "and 1/2 on Standard_NV6ads_A10_v5, Standard_NV12ads_A10_v5 and Standard_NV18ads_A10_v5): Karpenter's Azure "
    "provider (AKS Node Auto Provisioning) takes a size's nvidia.com/gpu from Azure's integer GPUs capability, which "
    "a fraction of a GPU is not, and the series needs NVIDIA's vGPU (GRID) driver; no whole GPU count describes it, "
    "so the catalog, whose pools count whole GPUs, does not list it"
)
NVADS_INSTEAD = "a VM size with whole GPUs, e.g. Standard_NC4as_T4_v3 (one T4) or Standard_NC24ads_A100_v4 (one A100)"


def g6f(path: str, name: str) -> Problem:
    return Problem(path, name, G6F.format(name=name), G6F_INSTEAD, SOURCE_G6F)


def nvads(path: str, name: str) -> Problem:
    return Problem(path, name, NVADS.format(name=name), NVADS_INSTEAD, SOURCE_NVADS_A10)


def spec_problems(pool: dict[str, Any], cloud: str) -> tuple[Problem, ...]:
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    return error.value.problems


def built_problems(build: Any) -> tuple[Problem, ...]:
    with pytest.raises(GpuSpecError) as error:
        plan = plan_of(build)
        assert plan.resources == ()
    return error.value.problems


KARPENTER_G6F: dict[str, Any] = {
    "name": "l4",
    "instance_type": "g6.xlarge",
    "provisioning": {
        "provisioner": "karpenter",
        "max_gpus": 8,
        "instance_types": ["g6f.2xlarge"],
        "instance_families": ["g6", "gr6f"],
    },
}
KARPENTER_G6F_PROBLEMS = (
    g6f("provisioning.instance_types[0]", "g6f.2xlarge"),
    g6f("provisioning.instance_families[1]", "gr6f"),
)


def test_a_fixed_pool_of_a_g6f_type_is_refused_even_with_its_gpus_stated() -> None:
    assert spec_problems({"name": "l4", "instance_type": "g6f.large", "max_size": 2}, "aws") == (
        g6f("instance_type", "g6f.large"),
    )
    stated = {"gpu_model": "L4", "gpu_count": 1, "cpu_architecture": "x86_64"}
    assert spec_problems({"name": "l4", "instance_type": "gr6f.4xlarge", "max_size": 2, **stated}, "aws") == (
        g6f("instance_type", "gr6f.4xlarge"),
    )


def test_a_provisioned_pool_refuses_g6f_types_and_families_by_name() -> None:
    assert spec_problems(KARPENTER_G6F, "aws") == KARPENTER_G6F_PROBLEMS


def test_the_facts_name_the_provisioners_count_and_the_documented_alternative() -> None:
    assert "https://github.com/aws/karpenter-provider-aws/issues/8368" in SOURCE_G6F
    assert "v1.14.1/pkg/providers/instancetype/types.go" in SOURCE_G6F
    assert "https://karpenter.sh/docs/concepts/nodeoverlays/" in SOURCE_G6F


def test_azure_nvads_a10_sizes_are_refused_on_agent_pools_and_nap() -> None:
    assert spec_problems({"name": "a10", "instance_type": "Standard_NV6ads_A10_v5", "max_size": 1}, "azure") == (
        nvads("instance_type", "Standard_NV6ads_A10_v5"),
    )
    nap = {
        "name": "t4nap",
        "instance_type": "Standard_NC4as_T4_v3",
        "provisioning": {
            "provisioner": "node-auto-provisioning",
            "max_gpus": 4,
            "instance_types": ["Standard_NV36adms_A10_v5"],
        },
    }
    assert built_problems(lambda: AksNapGpuNodePool("gpu", {"pool": nap})) == (  # type: ignore[typeddict-item]
        nvads("pool.provisioning.instance_types[0]", "Standard_NV36adms_A10_v5"),
    )
    fixed = {"name": "a10", "instance_type": "Standard_NV12ads_A10_v5", "max_size": 1}
    args = {"pool": fixed, "resource_group_name": "rg", "cluster_name": "gpu"}
    assert built_problems(lambda: AksGpuNodePool("gpu", args)) == (  # type: ignore[arg-type]
        nvads("pool.instance_type", "Standard_NV12ads_A10_v5"),
    )


def test_the_components_and_gpu_cluster_refuse_them_before_registering_anything() -> None:
    assert built_problems(lambda: EksKarpenterGpuNodePool("gpu", {"pool": KARPENTER_G6F, **WIRING})) == tuple(  # type: ignore[typeddict-item]
        problem.under("pool") for problem in KARPENTER_G6F_PROBLEMS
    )
    fixed = {"name": "l4", "instance_type": "g6f.xlarge", "max_size": 2}
    node_group = {"pool": fixed, "cluster_name": "demo", "subnet_ids": ["s"], "node_role_arn": WIRING["node_role_arn"]}
    assert built_problems(lambda: EksGpuNodeGroup("gpu", node_group)) == (  # type: ignore[arg-type]
        g6f("pool.instance_type", "g6f.xlarge"),
    )
    cluster = {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [KARPENTER_G6F]}
    assert built_problems(lambda: GpuCluster("c", cluster)) == tuple(  # type: ignore[arg-type]
        problem.under("pools[0]") for problem in KARPENTER_G6F_PROBLEMS
    )


def test_the_package_path_names_the_camel_case_field() -> None:
    pool = {"name": "l4", "instanceType": "g6.xlarge", "provisioning": {"provisioner": "karpenter", "maxGpus": 8}}
    pool["provisioning"]["instanceFamilies"] = ["g6f"]  # type: ignore[index]
    error = construct_error("EksKarpenterGpuNodePool", {"pool": pool, "clusterName": "demo", "subnetIds": ["s"]})
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("pool.provisioning.instanceFamilies[0]", "g6f", G6F_INSTEAD)
    ]


def test_the_stack_config_refuses_them_through_the_plan_cli(tmp_path: Path) -> None:
    config = """\
  gpu-components:cloud: aws
  gpu-components:cluster: {name: c3, karpenter: {}}
  gpu-components:pools:
    - {name: p, instance_type: g6.xlarge, provisioning: {provisioner: karpenter, max_gpus: 8, instance_families: [g6f]}}
"""
    assert stack_problems(plan_stack(tmp_path, config)) == [
        f"pools[0].provisioning.instance_families[0]: {G6F.format(name='g6f')} (got 'g6f'); valid: {G6F_INSTEAD}"
    ]
