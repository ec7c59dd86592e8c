"""``provisioning.gpu_requirements`` (issue 29): a provisioned pool narrowed by GPU in its provisioner's own GPU
labels, checked and rendered the same through the pool spec, each provisioned component, ``GpuCluster``, the
package's ``Construct`` and the stack config; the rendered NodePools still match their CRDs."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.aws.provisioned import EksAutoModeGpuNodePool, EksKarpenterGpuNodePool
from gpu_components.azure import AksNapGpuNodePool
from gpu_components.cli import main
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.spec import GpuNodePoolSpec, GpuRequirement
from tests import crd_schemas
from tests.helpers import ROOT, copy_example_project, plan_and, plan_of, resource
from tests.test_package_construct import construct_error
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems

WIRING = {
    "cluster_name": "demo",
    "subnet_ids": ["subnet-a"],
    "node_role_arn": "arn:aws:iam::111122223333:role/gpu-nodes",
}
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
GPU_MAKER = "karpenter.k8s.aws/instance-gpu-manufacturer"
KARPENTER_KEYS = f"{GPU_NAME}, {GPU_COUNT}, {GPU_MEMORY}, {GPU_MAKER}"
AUTO_KEYS = (
    "eks.amazonaws.com/instance-gpu-name, eks.amazonaws.com/instance-gpu-count, eks.amazonaws.com/instance-gpu-memory, "
    "eks.amazonaws.com/instance-gpu-manufacturer"
)
NAP_KEYS = (
    "karpenter.azure.com/sku-gpu-name, karpenter.azure.com/sku-gpu-count, karpenter.azure.com/sku-gpu-manufacturer"
)
AWS_NAMES = "a100, a10g, b200, b300, h100, h200, l4, l40s, t4, t4g, v100"

# One L40S per node, from two families: the requirements keep the g6e types with one L40S (g6 has L4s).
ONE_L40S: dict[str, Any] = {
    "name": "l40s",
    "instance_type": "g6e.xlarge",
    "provisioning": {
        "provisioner": "karpenter",
        "instance_families": ["g6e", "g6"],
        "max_gpus": 8,
        "gpu_requirements": [
            {"key": GPU_NAME, "operator": "In", "values": ["l40s"]},
            {"key": GPU_COUNT, "operator": "Lt", "values": ["2"]},
            {"key": GPU_MAKER, "operator": "In", "values": ["nvidia"]},
        ],
    },
}
ONE_L40S_TYPES = ["g6e.xlarge", "g6e.16xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.8xlarge"]
ONE_L40S_REQUIREMENTS: list[dict[str, Any]] = [
    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ONE_L40S_TYPES},
    {"key": GPU_NAME, "operator": "In", "values": ["l40s"]},
    {"key": GPU_COUNT, "operator": "Lt", "values": ["2"]},
    {"key": GPU_MAKER, "operator": "In", "values": ["nvidia"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
]


def with_requirements(pool: dict[str, Any], requirements: list[dict[str, Any]], **provisioning: Any) -> dict[str, Any]:
    changed = copy.deepcopy(pool)
    changed["provisioning"]["gpu_requirements"] = requirements
    changed["provisioning"].update(provisioning)
    return changed


def nap_pool(instance_type: str, requirements: list[dict[str, Any]], **provisioning: Any) -> dict[str, Any]:
    """A NAP pool of ``instance_type`` with these GPU requirements (and more ``provisioning``)."""
    return {
        "name": "napgpu",
        "instance_type": instance_type,
        "provisioning": {
            "provisioner": "node-auto-provisioning",
            "max_gpus": 4,
            "gpu_requirements": requirements,
            **provisioning,
        },
    }


def spec_problems(pool: dict[str, Any], cloud: str = "aws") -> list[str]:
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool, cloud)  # type: ignore[arg-type]
    return [f"{p.path}: {p.message} (got {p.value!r}); valid: {p.valid}" for p in error.value.problems]


def built_problems(build: Any) -> list[str]:
    """The problems a component (or cluster) raises, after registering nothing."""
    with pytest.raises(GpuSpecError) as error:
        plan = plan_of(build)
        assert plan.resources == ()
    return [f"{p.path}: {p.message} (got {p.value!r}); valid: {p.valid}" for p in error.value.problems]


def node_pool_of(plan: Any, name: str = "gpu-node-pool") -> dict[str, Any]:
    inputs = resource(plan, NODE_POOL, name).inputs
    return {key: inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")}


# 1. Valid requirements filter the allowed types and are rendered beside them.


def test_requirements_keep_only_the_family_types_they_admit() -> None:
    spec = GpuNodePoolSpec.from_args(ONE_L40S, "aws")
    assert spec.provisioning is not None
    assert spec.provisioning.allowed_types == tuple(ONE_L40S_TYPES)
    assert spec.provisioning.gpu_requirements == (
        GpuRequirement(GPU_NAME, "In", ("l40s",)),
        GpuRequirement(GPU_COUNT, "Lt", ("2",)),
        GpuRequirement(GPU_MAKER, "In", ("nvidia",)),
    )
    assert spec.max_size == 8


def test_a_karpenter_node_pool_renders_them_beside_the_instance_types_and_matches_the_crd() -> None:
    plan = plan_and(lambda: EksKarpenterGpuNodePool("gpu", {"pool": ONE_L40S, **WIRING}), preview=False)[0]  # type: ignore[typeddict-item]
    node_pool = node_pool_of(plan)
    assert node_pool["spec"]["template"]["spec"]["requirements"] == ONE_L40S_REQUIREMENTS
    assert crd_schemas.problems(node_pool, "aws") == []


def test_an_auto_mode_node_pool_renders_its_own_keys_and_memory_in_mib() -> None:
    pool = {
        "name": "big-gpu",
        "instance_type": "g6e.xlarge",
        "provisioning": {
            "provisioner": "eks-auto-mode",
            "instance_families": ["g6e", "g6"],
            "max_nodes": 4,
            "gpu_requirements": [
                {"key": "eks.amazonaws.com/instance-gpu-memory", "operator": "Gt", "values": ["40000"]}
            ],
        },
    }
    plan = plan_and(lambda: EksAutoModeGpuNodePool("gpu", {"pool": pool, **WIRING}), preview=False)[0]  # type: ignore[typeddict-item]
    node_pool = node_pool_of(plan)
    g6e = ["g6e.xlarge", "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge", "g6e.2xlarge", "g6e.48xlarge"]
    g6e += ["g6e.4xlarge", "g6e.8xlarge"]
    assert node_pool["spec"]["template"]["spec"]["requirements"][:2] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": g6e},
        {"key": "eks.amazonaws.com/instance-gpu-memory", "operator": "Gt", "values": ["40000"]},
    ]
    assert crd_schemas.problems(node_pool, "aws") == []


def test_a_nap_node_pool_renders_azure_keys_and_values() -> None:
    requirements = [
        {"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["A100"]},
        {"key": "karpenter.azure.com/sku-gpu-count", "operator": "Lte", "values": ["2"]},
        {"key": "karpenter.azure.com/sku-gpu-manufacturer", "operator": "Exists"},
    ]
    pool = nap_pool("Standard_NC24ads_A100_v4", requirements, instance_types=["Standard_NC48ads_A100_v4"])
    plan = plan_and(lambda: AksNapGpuNodePool("gpu", {"pool": pool}), preview=False)[0]  # type: ignore[typeddict-item]
    node_pool = node_pool_of(plan)
    assert node_pool["spec"]["template"]["spec"]["requirements"][:4] == [
        {
            "key": "karpenter.azure.com/sku-name",
            "operator": "In",
            "values": ["Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4"],
        },
        {"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["A100"]},
        {"key": "karpenter.azure.com/sku-gpu-count", "operator": "Lte", "values": ["2"]},
        {"key": "karpenter.azure.com/sku-gpu-manufacturer", "operator": "Exists"},
    ]
    assert crd_schemas.problems(node_pool, "azure") == []


def test_the_package_construct_path_renders_what_the_python_path_renders() -> None:
    from tests.test_package_construct import both_paths

    provisioning = {
        "provisioner": "karpenter",
        "instanceFamilies": ["g6e", "g6"],
        "maxGpus": 8,
        "gpuRequirements": [
            {"key": GPU_NAME, "operator": "In", "values": ["l40s"]},
            {"key": GPU_COUNT, "operator": "Lt", "values": ["2"]},
            {"key": GPU_MAKER, "operator": "In", "values": ["nvidia"]},
        ],
    }
    inputs = {
        "pool": {"name": "l40s", "instanceType": "g6e.xlarge", "provisioning": provisioning},
        "clusterName": "demo",
        "subnetIds": ["subnet-a"],
        "nodeRoleArn": WIRING["node_role_arn"],
    }
    python, constructed = both_paths(
        lambda: EksKarpenterGpuNodePool("l40s", {"pool": ONE_L40S, **WIRING}),  # type: ignore[typeddict-item]
        "EksKarpenterGpuNodePool",
        "l40s",
        inputs,
    )
    assert constructed.resources == python.resources
    [node_pool] = [r for r in python.resources if r.inputs.get("kind") == "NodePool"]
    assert node_pool.inputs["spec"]["template"]["spec"]["requirements"] == ONE_L40S_REQUIREMENTS


# 2. Keys: another provisioner's, post-boot labels, anything else.

KEY_PROBLEMS: list[dict[str, Any]] = [
    {"key": "eks.amazonaws.com/instance-gpu-name", "operator": "In", "values": ["l40s"]},
    {"key": "karpenter.azure.com/sku-gpu-count", "operator": "In", "values": ["1"]},
    {"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-L40S"]},
    {"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "Exists"},
    {"key": "karpenter.k8s.aws/instance-gpu-nme", "operator": "Exists"},
]
POST_BOOT = (
    "sets {prefix}* labels on a node only after it boots, while karpenter chooses the instance type before the node "
    "exists, from its own labels of each type: it cannot choose GPUs by them"
)
KEY_MESSAGES = [
    "provisioning.gpu_requirements[0].key: eks.amazonaws.com/instance-gpu-name is the GPU name label of "
    f"eks-auto-mode; karpenter's is {GPU_NAME} (got 'eks.amazonaws.com/instance-gpu-name'); valid: " + KARPENTER_KEYS,
    "provisioning.gpu_requirements[1].key: karpenter.azure.com/sku-gpu-count is the GPU count label of "
    f"node-auto-provisioning; karpenter's is {GPU_COUNT} (got 'karpenter.azure.com/sku-gpu-count'); valid: "
    + KARPENTER_KEYS,
    "provisioning.gpu_requirements[2].key: NVIDIA's GPU feature discovery "
    + POST_BOOT.format(prefix="nvidia.com/")
    + f" (got 'nvidia.com/gpu.product'); valid: {KARPENTER_KEYS}",
    "provisioning.gpu_requirements[3].key: Node Feature Discovery "
    + POST_BOOT.format(prefix="feature.node.kubernetes.io/")
    + f" (got 'feature.node.kubernetes.io/pci-10de.present'); valid: {KARPENTER_KEYS}",
    f"provisioning.gpu_requirements[4].key: not a GPU label of karpenter; did you mean '{GPU_NAME}'? "
    f"(got 'karpenter.k8s.aws/instance-gpu-nme'); valid: {KARPENTER_KEYS}",
]


def test_keys_that_are_not_the_provisioners_gpu_labels_are_refused_with_the_right_key() -> None:
    assert spec_problems(with_requirements(ONE_L40S, KEY_PROBLEMS)) == KEY_MESSAGES


def test_auto_mode_names_its_own_key_for_karpenters_and_nap_has_no_memory_label() -> None:
    auto = with_requirements(ONE_L40S, [{"key": GPU_MEMORY, "operator": "Gt", "values": ["1"]}])
    auto["provisioning"]["provisioner"] = "eks-auto-mode"
    assert spec_problems(auto) == [
        f"provisioning.gpu_requirements[0].key: {GPU_MEMORY} is the GPU memory label of karpenter; eks-auto-mode's "
        "is eks.amazonaws.com/instance-gpu-memory (got 'karpenter.k8s.aws/instance-gpu-memory'); valid: " + AUTO_KEYS
    ]
    nap = nap_pool("Standard_NC24ads_A100_v4", [{"key": GPU_MEMORY, "operator": "Gt", "values": ["1"]}])
    assert spec_problems(nap, "azure") == [
        f"provisioning.gpu_requirements[0].key: {GPU_MEMORY} is the GPU memory label of karpenter; "
        "node-auto-provisioning sets no GPU memory label (got 'karpenter.k8s.aws/instance-gpu-memory'); valid: "
        + NAP_KEYS
    ]


# 3. Operators and values, in the provisioner's own format.


def test_operators_and_values_are_checked_in_the_provisioners_format() -> None:
    requirements: list[dict[str, Any]] = [
        {"key": GPU_NAME, "operator": "In", "values": ["L40S"]},
        {"key": GPU_NAME, "operator": "Gt", "values": ["l4"]},
        {"key": GPU_MEMORY, "operator": "Gte", "values": ["48GB"]},
        {"key": GPU_COUNT, "operator": "Lt", "values": ["1", "2"]},
        {"key": GPU_COUNT, "operator": "In"},
        {"key": GPU_MAKER, "operator": "Exists", "values": ["nvidia"]},
        {"key": GPU_MAKER, "operator": "In", "values": ["NVIDIA"]},
    ]
    assert spec_problems(with_requirements(ONE_L40S, requirements)) == [
        f"provisioning.gpu_requirements[0].values[0]: not a {GPU_NAME} value of the catalog's aws NVIDIA types; did "
        f"you mean 'l40s'? (got 'L40S'); valid: {AWS_NAMES}",
        f"provisioning.gpu_requirements[1].operator: Gt compares whole numbers, and {GPU_NAME} is a name (got 'Gt'); "
        "valid: In, NotIn, Exists, DoesNotExist",
        f"provisioning.gpu_requirements[2].values[0]: {GPU_MEMORY} is a whole number (MiB of one GPU's memory) (got "
        "'48GB'); valid: a whole number, e.g. 81920 (80 GiB)",
        "provisioning.gpu_requirements[3].values: Lt takes one value (got ['1', '2']); valid: one whole number",
        "provisioning.gpu_requirements[4].values: In needs at least one value (got []); valid: >= 1 value",
        "provisioning.gpu_requirements[5].values: Exists takes no values (got ['nvidia']); valid: none",
        f"provisioning.gpu_requirements[6].values[0]: the pool's GPUs are NVIDIA's, whose {GPU_MAKER} is nvidia; did "
        "you mean 'nvidia'? (got 'NVIDIA'); valid: nvidia",
    ]


def test_auto_mode_takes_no_gte_or_lte_and_nap_names_gpus_in_upper_case() -> None:
    auto = with_requirements(
        ONE_L40S, [{"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Lte", "values": ["1"]}]
    )
    auto["provisioning"]["provisioner"] = "eks-auto-mode"
    assert spec_problems(auto) == [
        "provisioning.gpu_requirements[0].operator: not an operator of eks-auto-mode's NodePool requirements (got "
        "'Lte'); valid: In, NotIn, Exists, DoesNotExist, Gt, Lt"
    ]
    nap = nap_pool(
        "Standard_NC40ads_H100_v5", [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["h100"]}]
    )
    assert spec_problems(nap, "azure") == [
        "provisioning.gpu_requirements[0].values[0]: not a karpenter.azure.com/sku-gpu-name value of the catalog's "
        "azure NVIDIA types; did you mean 'H100'? (got 'h100'); valid: A100, GB200, GB300, H100, H200, T4"
    ]


# 4. Types the requirements exclude: named ones are errors, never dropped; unknown label values are not guessed.


def test_a_named_type_the_requirements_exclude_is_an_error_naming_both() -> None:
    pool = with_requirements(ONE_L40S, ONE_L40S["provisioning"]["gpu_requirements"], instance_types=["g6e.12xlarge"])
    assert spec_problems(pool) == [
        "provisioning.instance_types[0]: excluded by provisioning.gpu_requirements[1] "
        f"({GPU_COUNT} Lt [2]): g6e.12xlarge's {GPU_COUNT} is 4; drop the type or change the requirement "
        "(got 'g6e.12xlarge'); valid: None"
    ]
    first = with_requirements(ONE_L40S, [{"key": GPU_NAME, "operator": "NotIn", "values": ["l40s"]}])
    assert spec_problems(first) == [
        f"instance_type: excluded by provisioning.gpu_requirements[0] ({GPU_NAME} NotIn [l40s]): g6e.xlarge's "
        f"{GPU_NAME} is l40s; drop the type or change the requirement (got 'g6e.xlarge'); valid: None"
    ]


def test_a_type_whose_label_value_the_library_does_not_know_is_an_error() -> None:
    pool = nap_pool(
        "Standard_NC6s_v3", [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "NotIn", "values": ["T4"]}]
    )
    assert spec_problems(pool, "azure") == [
        "provisioning.gpu_requirements[0]: the library does not know the karpenter.azure.com/sku-gpu-name value "
        "node-auto-provisioning gives nodes of Standard_NC6s_v3, so it cannot tell whether the requirement admits "
        "them (got {'key': 'karpenter.azure.com/sku-gpu-name', 'operator': 'NotIn', 'values': ['T4']}); valid: "
        "requirements on labels whose values the library knows for every allowed type"
    ]


def test_the_limit_rule_sees_only_the_admitted_types() -> None:
    # g6e.48xlarge (8 GPUs) is dropped by the count requirement, so a limit of 4 GPUs is enough.
    pool = with_requirements(
        ONE_L40S, [{"key": GPU_COUNT, "operator": "Lte", "values": ["4"]}], instance_families=["g6e"], max_gpus=4
    )
    spec = GpuNodePoolSpec.from_args(pool, "aws")
    assert spec.provisioning is not None
    assert "g6e.48xlarge" not in spec.provisioning.allowed_types
    assert "g6e.24xlarge" in spec.provisioning.allowed_types


# 5. A GKE ComputeClass takes none; every entry point reports the same problems.


def test_a_compute_class_pool_takes_no_gpu_requirements() -> None:
    pool = {
        "name": "l4cc",
        "instance_type": "g2-standard-4",
        "provisioning": {
            "provisioner": "compute-class",
            "max_gpus": 4,
            "gpu_requirements": [
                {"key": "cloud.google.com/gke-accelerator", "operator": "In", "values": ["nvidia-l4"]}
            ],
        },
    }
    assert spec_problems(pool, "gcp") == [
        "provisioning.gpu_requirements: compute-class pools take no GPU requirements: a ComputeClass has no NodePool "
        "requirements: it selects GPUs by its priorities' gpu type and count (priorities[].gpu), which the library "
        "derives from the pool's instance types; narrow the pool by its instance_type, instance_types and "
        "instance_families instead (got [{'key': 'cloud.google.com/gke-accelerator', 'operator': 'In', 'values': "
        "['nvidia-l4']}]); valid: None"
    ]


def test_the_components_and_gpu_cluster_refuse_what_the_spec_refuses() -> None:
    bad = with_requirements(ONE_L40S, KEY_PROBLEMS)
    assert built_problems(lambda: EksKarpenterGpuNodePool("gpu", {"pool": bad, **WIRING})) == [  # type: ignore[typeddict-item]
        f"pool.{line}" for line in KEY_MESSAGES
    ]
    cluster = {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [bad]}
    assert built_problems(lambda: GpuCluster("c", cluster)) == [f"pools[0].{line}" for line in KEY_MESSAGES]  # type: ignore[arg-type]
    nap = nap_pool("Standard_NC24ads_A100_v4", [{"key": GPU_NAME, "operator": "In", "values": ["a100"]}])
    assert built_problems(lambda: AksNapGpuNodePool("gpu", {"pool": nap})) == [  # type: ignore[typeddict-item]
        f"pool.provisioning.gpu_requirements[0].key: {GPU_NAME} is the GPU name label of karpenter; "
        f"node-auto-provisioning's is karpenter.azure.com/sku-gpu-name (got '{GPU_NAME}'); valid: {NAP_KEYS}"
    ]


def test_the_package_path_reports_the_problems_under_camel_case_paths() -> None:
    pool = {
        "name": "l40s",
        "instanceType": "g6e.xlarge",
        "provisioning": {
            "provisioner": "karpenter",
            "maxGpus": 8,
            "gpuRequirements": [{"key": "nvidia.com/gpu.product", "operator": "Exists"}],
        },
    }
    error = construct_error("EksKarpenterGpuNodePool", {"pool": pool, "clusterName": "demo", "subnetIds": ["s"]})
    assert [(p.path, p.value) for p in error.problems] == [
        ("pool.provisioning.gpuRequirements[0].key", "nvidia.com/gpu.product")
    ]


def test_an_unknown_operator_is_refused_by_the_shape_with_the_enum() -> None:
    pool = with_requirements(ONE_L40S, [{"key": GPU_NAME, "operator": "in", "values": ["l40s"]}])
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool, "aws")
    [problem] = error.value.problems
    assert (problem.path, problem.value) == ("provisioning.gpu_requirements[0].operator", "in")
    assert problem.valid == "'In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte' or 'Lte'"


def test_the_stack_config_reports_them_through_the_plan_cli(tmp_path: Path) -> None:
    config = """\
  gpu-components:cloud: aws
  gpu-components:cluster: {name: c3, karpenter: {}}
  gpu-components:pools:
    - name: p
      instance_type: g6e.xlarge
      provisioning:
        provisioner: karpenter
        max_gpus: 8
        instance_types: [g6.xlarge]
        gpu_requirements:
          - {key: eks.amazonaws.com/instance-gpu-name, operator: In, values: [l40s]}
          - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [l40s]}
"""
    assert stack_problems(plan_stack(tmp_path, config)) == [
        "pools[0].provisioning.gpu_requirements[0].key: eks.amazonaws.com/instance-gpu-name is the GPU name label of "
        f"eks-auto-mode; karpenter's is {GPU_NAME} (got 'eks.amazonaws.com/instance-gpu-name'); valid: "
        + KARPENTER_KEYS
    ]
    fixed = config.replace("          - {key: eks.amazonaws.com/instance-gpu-name, operator: In, values: [l40s]}\n", "")
    assert stack_problems(plan_stack(tmp_path, fixed)) == [
        "pools[0].provisioning.instance_types[0]: excluded by pools[0].provisioning.gpu_requirements[0] "
        f"({GPU_NAME} In [l40s]): g6.xlarge's {GPU_NAME} is l4; drop the type or change the requirement (got "
        "'g6.xlarge')"
    ]


def test_the_nap_stack_config_renders_them_into_a_valid_node_pool(tmp_path: Path) -> None:
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.azure-aks-nap.yaml").read_text())
    pool = stack["config"]["gpu-components:pools"][0]
    pool["provisioning"]["gpu_requirements"] = [
        {"key": "karpenter.azure.com/sku-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
    ]
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["plan", "t", "--format", "json", "--cwd", str(tmp_path), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    plan = yaml.safe_load((out / "t.json").read_text())
    node_pools = [
        r for r in plan["resources"] if r["type"] == NODE_POOL and r["inputs"]["metadata"]["name"] == pool["name"]
    ]
    [node_pool] = node_pools
    requirements = node_pool["inputs"]["spec"]["template"]["spec"]["requirements"]
    assert requirements[1] == {
        "key": "karpenter.azure.com/sku-gpu-manufacturer",
        "operator": "In",
        "values": ["nvidia"],
    }
    resource_ = {key: node_pool["inputs"][key] for key in ("apiVersion", "kind", "metadata", "spec")}
    assert crd_schemas.problems(resource_, "azure") == []


def test_requirement_problems_come_with_the_types_problems_at_once() -> None:
    pool = with_requirements(
        ONE_L40S, [{"key": "nvidia.com/gpu.product", "operator": "Exists"}], instance_types=["g9.xlarge"]
    )
    with pytest.raises(GpuSpecError) as error:
        GpuNodePoolSpec.from_args(pool, "aws")
    assert [p.path for p in error.value.problems] == [
        "provisioning.instance_types[0]",
        "provisioning.gpu_requirements[0].key",
    ]
