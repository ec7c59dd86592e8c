"""``gpu_model`` short names (issue 29): ``H100``, ``A100``, ``H200``, ``A30`` name the catalog's full model where the
pool's instance types have only one of that name, else an error names the full models; the full name stays the
canonical form in outputs. Through the pool spec, the components, ``GpuCluster``, the package's ``Construct``, the
stack config, the workload helpers and DRA claim templates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.aws import EksGpuNodeGroup
from gpu_components.azure import AksNapGpuNodePool
from gpu_components.claims import gpu_claim_template
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.spec import GpuNodePoolSpec, gpu_models_named
from gpu_components.workloads import gpu_node_requirements
from tests.helpers import plan_and, plan_of
from tests.test_claims import view
from tests.test_package_construct import construct_error
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

ROLE = "arn:aws:iam::111122223333:role/gpu-nodes"
H100_NAP: dict[str, Any] = {
    "name": "h100nap",
    "instance_type": "Standard_NC40ads_H100_v5",
    "gpu_model": "H100",
    "provisioning": {
        "provisioner": "node-auto-provisioning",
        "max_nodes": 2,
        "instance_types": ["Standard_ND96isr_H100_v5"],
    },
}
AMBIGUOUS_H100 = Problem(
    "gpu_model",
    "H100",
    "short for several GPU models of the pool's instance types (H100-80GB, H100-94GB): give the full name",
    "H100-80GB, H100-94GB",
)


def spec_of(pool: dict[str, Any], cloud: str) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]


def spec_problems(pool: dict[str, Any], cloud: str) -> tuple[Problem, ...]:
    with pytest.raises(GpuSpecError) as error:
        spec_of(pool, cloud)
    return error.value.problems


def test_gpu_models_named_takes_a_name_and_a_memory_suffix_only() -> None:
    models = ["H100-80GB", "H100-94GB", "A100-40GB", "RTX-PRO-6000", "L4", "L40S"]
    assert gpu_models_named("H100", models) == ["H100-80GB", "H100-94GB"]
    assert gpu_models_named("H100-94GB", models) == ["H100-94GB"]
    assert gpu_models_named("L4", models) == ["L4"]
    assert gpu_models_named("RTX", models) == []
    assert gpu_models_named("h100", models) == []


@pytest.mark.parametrize(
    ("cloud", "instance_type", "short", "full"),
    [
        ("aws", "p5.48xlarge", "H100", "H100-80GB"),
        ("aws", "p4d.24xlarge", "A100", "A100-40GB"),
        ("aws", "p5e.48xlarge", "H200", "H200-141GB"),
        ("azure", "Standard_NC40ads_H100_v5", "H100", "H100-94GB"),
    ],
)
def test_a_short_name_of_the_pools_one_model_is_its_full_name(
    cloud: str, instance_type: str, short: str, full: str
) -> None:
    spec = spec_of({"name": "p", "instance_type": instance_type, "max_size": 1, "gpu_model": short}, cloud)
    assert spec.gpu.name == full


def test_a_type_outside_the_catalog_takes_a_short_name_the_catalog_has_once() -> None:
    stated = {"gpu_count": 1, "cpu_architecture": "x86_64", "max_size": 1}
    assert (
        spec_of({"name": "p", "instance_type": "x9.large", "gpu_model": "A30", **stated}, "aws").gpu.name == "A30-24GB"
    )
    assert spec_problems({"name": "p", "instance_type": "x9.large", "gpu_model": "A100", **stated}, "aws") == (
        Problem(
            "gpu_model",
            "A100",
            "short for several catalog GPU models, and instance type x9.large is not in the catalog to tell which: "
            "give the full name",
            "A100-40GB, A100-80GB",
        ),
    )


def test_a_short_name_of_a_model_the_type_does_not_have_still_disagrees() -> None:
    [problem] = spec_problems({"name": "p", "instance_type": "p5.48xlarge", "max_size": 1, "gpu_model": "H200"}, "aws")
    assert (problem.path, problem.value, problem.message, problem.valid) == (
        "gpu_model",
        "H200",
        "disagrees with the catalog entry of p5.48xlarge",
        "'H100-80GB'",
    )


def test_a_short_name_two_models_of_the_pool_share_is_an_error() -> None:
    assert spec_problems(H100_NAP, "azure") == (AMBIGUOUS_H100,)
    karpenter = {
        "name": "a100",
        "instance_type": "p4d.24xlarge",
        "gpu_model": "A100",
        "provisioning": {"provisioner": "karpenter", "max_gpus": 16, "instance_families": ["p4de"]},
    }
    assert spec_problems(karpenter, "aws") == (
        Problem(
            "gpu_model",
            "A100",
            "short for several GPU models of the pool's instance types (A100-40GB, A100-80GB): give the full name",
            "A100-40GB, A100-80GB",
        ),
    )


def test_components_and_gpu_cluster_keep_the_full_name_and_refuse_ambiguity() -> None:
    pool = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1, "gpu_model": "H100"}
    args = {"pool": pool, "cluster_name": "demo", "subnet_ids": ["s"], "node_role_arn": ROLE}
    _, node_group = plan_and(lambda: EksGpuNodeGroup("gpu", args))  # type: ignore[arg-type]
    assert node_group.spec.gpu.name == "H100-80GB"
    with pytest.raises(GpuSpecError) as error:
        plan_and(lambda: AksNapGpuNodePool("gpu", {"pool": H100_NAP}))  # type: ignore[typeddict-item]
    assert error.value.problems == (AMBIGUOUS_H100.under("pool"),)
    cluster = {"cloud": "azure", "azure": {"resource_group_name": "rg", "cluster_name": "gpu"}, "pools": [H100_NAP]}
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: GpuCluster("c", cluster))  # type: ignore[arg-type]
    assert error.value.problems == (AMBIGUOUS_H100.under("pools[0]"),)


def test_the_package_path_and_the_stack_config_refuse_ambiguity(tmp_path: Path) -> None:
    pool = {"name": "h100", "instanceType": "x9.large", "gpuModel": "H100", "gpuCount": 1, "maxSize": 1}
    pool["cpuArchitecture"] = "x86_64"
    error = construct_error("EksGpuNodeGroup", {"pool": pool, "clusterName": "demo", "subnetIds": ["s"]})
    assert [(p.path, p.value, p.valid) for p in error.problems] == [("pool.gpuModel", "H100", "H100-80GB, H100-94GB")]
    config = """\
  gpu-components:cloud: aws
  gpu-components:cluster: {name: c3, karpenter: {}}
  gpu-components:pools:
    - name: a100
      instance_type: p4d.24xlarge
      gpu_model: A100
      provisioning: {provisioner: karpenter, max_gpus: 16, instance_families: [p4de]}
"""
    assert stack_problems(plan_stack(tmp_path, config)) == [
        "pools[0].gpu_model: short for several GPU models of the pool's instance types (A100-40GB, A100-80GB): give "
        "the full name (got 'A100'); valid: A100-40GB, A100-80GB"
    ]


def test_workload_helpers_take_a_short_name_the_pool_makes_unambiguous() -> None:
    nap = spec_of(
        {
            "name": "p",
            "instance_type": "Standard_NC24ads_A100_v4",
            "provisioning": {
                "provisioner": "node-auto-provisioning",
                "max_nodes": 4,
                "instance_types": ["Standard_NC40ads_H100_v5"],
            },
        },
        "azure",
    )
    assert gpu_node_requirements(nap, gpu_model="H100") == (
        [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["H100"]}],
        [],
    )
    karpenter = spec_of(
        {
            "name": "p",
            "instance_type": "g6e.xlarge",
            "provisioning": {"provisioner": "karpenter", "max_gpus": 16, "instance_families": ["p4d", "p4de"]},
        },
        "aws",
    )
    assert gpu_node_requirements(karpenter, gpu_model="A100") == (
        [],
        [
            Problem(
                "gpu_model",
                "A100",
                "short for several GPU models of pool p's instance types (A100-40GB, A100-80GB): give the full name",
                "A100-40GB, A100-80GB",
            )
        ],
    )


def test_a_dra_claim_template_takes_a_short_name_as_the_full_one() -> None:
    pool = view({"name": "h100", "instance_type": "p5.48xlarge", "max_size": 2})
    assert gpu_claim_template(pool, "h100", gpu_model="H100") == gpu_claim_template(pool, "h100", gpu_model="H100-80GB")
