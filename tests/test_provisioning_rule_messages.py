"""The rules of ``gpu_components.spec.provisioning`` pinned to their whole problems (issue 31): path, the value got,
message, valid values and the source cited, for every rule of a provisioned pool's types, families, GPU requirements,
limits, capacity and startup taints, under a pool path prefix as ``GpuCluster`` and the stack config give it; and
:class:`GpuRequirement`'s node-selector semantics on both sides of each numeric bound (Kubernetes' node affinity
operators, Karpenter's ``Gte``/``Lte``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components import catalog
from gpu_components.cloud_facts import facts_for
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.labels import SOURCE_POST_BOOT_LABELS
from gpu_components.spec import GpuNodePoolSpec, GpuRequirement
from gpu_components.spec.hardware import fractional_gpu_types
from gpu_components.spec.provisioning import SOURCE_STARTUP_TAINTS
from tests.test_provisioning_spec import pool

AT = "pools[2]"
"""The path prefix every pool here is checked under (``GpuNodePoolSpec.from_args(..., path=AT)``)."""
KARPENTER = facts_for("aws").provisioners["karpenter"]
NAP = facts_for("azure").provisioners["node-auto-provisioning"]
COMPUTE_CLASS = facts_for("gcp").provisioners["compute-class"]
GPU = "karpenter.k8s.aws/instance-gpu-"
KARPENTER_KEYS = f"{GPU}name, {GPU}count, {GPU}memory, {GPU}manufacturer"
AWS_NAMES = "a100, a10g, b200, b300, h100, h200, l4, l40s, t4, t4g, v100"
AWS_FAMILIES = (
    "g4dn, g5, g5g, g6, g6e, g7e, gr6, p3, p3dn, p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, p6e-gb200, p6e-gb300"
)
LABEL_SYNTAX = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"


def requiring(*requirements: dict[str, Any], **provisioning: Any) -> dict[str, Any]:
    return pool({"gpu_requirements": list(requirements), **provisioning})


def problems_of(args: dict[str, Any], cloud: str = "aws") -> list[Problem]:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(args, cloud, path=AT)  # type: ignore[arg-type]
    return list(caught.value.problems)


def spec_of(args: dict[str, Any], cloud: str = "aws") -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(args, cloud, path=AT)  # type: ignore[arg-type]


# 1. A requirement's operator on a node's label value: Kubernetes' node selector operators, the numeric ones comparing
# integers (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#operators; Karpenter adds Gte and
# Lte, https://karpenter.sh/docs/concepts/nodepools/#spectemplatespecrequirements).


@pytest.mark.parametrize(
    ("operator", "values", "value", "admitted"),
    [
        ("Gt", ("4",), "3", False),
        ("Gt", ("4",), "4", False),
        ("Gt", ("4",), "5", True),
        ("Gt", ("9",), "10", True),  # integers, not strings ("10" < "9" as text)
        ("Lt", ("4",), "3", True),
        ("Lt", ("4",), "4", False),
        ("Lt", ("4",), "5", False),
        ("Lt", ("9",), "10", False),
        ("Gte", ("4",), "3", False),
        ("Gte", ("4",), "4", True),
        ("Gte", ("4",), "5", True),
        ("Lte", ("4",), "3", True),
        ("Lte", ("4",), "4", True),
        ("Lte", ("4",), "5", False),
        ("In", ("l4", "l40s"), "l40s", True),
        ("In", ("l4", "l40s"), "h100", False),
        ("NotIn", ("l4", "l40s"), "l40s", False),
        ("NotIn", ("l4", "l40s"), "h100", True),
        ("Exists", (), "l4", True),
        ("DoesNotExist", (), "l4", False),
    ],
)
def test_a_requirement_admits_a_label_value_as_kubernetes_node_selectors_do(
    operator: Any, values: tuple[str, ...], value: str, admitted: bool
) -> None:
    assert GpuRequirement(f"{GPU}count", operator, values).admits(value) is admitted


@pytest.mark.parametrize(
    ("requirement", "selector", "text"),
    [
        (
            GpuRequirement(f"{GPU}name", "In", ("l4", "l40s")),
            {"key": f"{GPU}name", "operator": "In", "values": ["l4", "l40s"]},
            f"{GPU}name In [l4, l40s]",
        ),
        (GpuRequirement(f"{GPU}name", "Exists"), {"key": f"{GPU}name", "operator": "Exists"}, f"{GPU}name Exists"),
    ],
)
def test_a_requirement_renders_as_a_node_pool_item_and_in_words(
    requirement: GpuRequirement, selector: dict[str, object], text: str
) -> None:
    assert (requirement.to_node_selector(), requirement.text) == (selector, text)


# 2. The named types and families.


def test_no_catalog_type_is_a_fractional_gpu_type() -> None:
    # FractionalGpuTypes: "they are not in the catalog"; the type rules ask every name whether it is one.
    assert [
        (cloud, t.name)
        for cloud in ("aws", "azure", "gcp")
        for t in catalog.instance_types(cloud)  # type: ignore[arg-type]
        if fractional_gpu_types(cloud, t.name) is not None  # type: ignore[arg-type]
    ] == []


def test_types_and_families_that_are_unknown_not_nvidia_or_repeated_get_whole_problems() -> None:
    args = pool(
        {"instance_types": ["g6e.xlarg", "g4ad.xlarge"], "instance_families": ["g6e", "g6x", "g6e"]},
    )
    assert problems_of(args) == [
        Problem(
            f"{AT}.provisioning.instance_types[0]",
            "g6e.xlarg",
            "unknown: a provisioned pool allows catalog NVIDIA aws instance types only",
            "g6e.xlarge, g6e.8xlarge, g6e.4xlarge",
        ),
        Problem(
            f"{AT}.provisioning.instance_types[1]",
            "g4ad.xlarge",
            "not an NVIDIA GPU type (1 x AMD Radeon Pro V520): a provisioned pool allows catalog NVIDIA aws instance "
            "types only",
            "NVIDIA GPU instance types, e.g. g4dn.12xlarge, g4dn.16xlarge, g4dn.2xlarge, g4dn.4xlarge (59 in the "
            "catalog)",
        ),
        Problem(
            f"{AT}.provisioning.instance_families[1]",
            "g6x",
            "unknown aws GPU instance family; did you mean 'g6'?",
            AWS_FAMILIES,
        ),
        Problem(f"{AT}.provisioning.instance_families[2]", "g6e", "already allowed by an earlier entry"),
    ]


def test_a_family_adds_its_nvidia_types_after_the_named_ones_once() -> None:
    spec = spec_of(pool({"instance_types": ["p6-b200.48xlarge"], "instance_families": ["p6-b200"], "max_gpus": 16}))
    assert spec.provisioning is not None
    assert spec.provisioning.allowed_types == ("g6e.xlarge", "p6-b200.48xlarge")


# 3. GPU requirements: keys, operators, value counts and values, each problem citing the provisioner's pages.


def test_requirement_keys_that_are_not_the_provisioners_gpu_labels() -> None:
    args = requiring(
        {"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Exists"},
        {"key": "nvidia.com/gpu.product", "operator": "Exists"},
        {"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "Exists"},
        {"key": f"{GPU}nme", "operator": "Exists"},
    )
    here = f"{AT}.provisioning.gpu_requirements"
    after_boot = (
        "labels on a node only after it boots, while karpenter chooses the instance type before the node exists, "
        "from its own labels of each type: it cannot choose GPUs by them"
    )
    assert problems_of(args) == [
        Problem(
            f"{here}[0].key",
            "eks.amazonaws.com/instance-gpu-count",
            f"eks.amazonaws.com/instance-gpu-count is the GPU count label of eks-auto-mode; karpenter's is {GPU}count",
            KARPENTER_KEYS,
            KARPENTER.requirements_source,
        ),
        Problem(
            f"{here}[1].key",
            "nvidia.com/gpu.product",
            f"NVIDIA's GPU feature discovery sets nvidia.com/* {after_boot}",
            KARPENTER_KEYS,
            SOURCE_POST_BOOT_LABELS,
        ),
        Problem(
            f"{here}[2].key",
            "feature.node.kubernetes.io/pci-10de.present",
            f"Node Feature Discovery sets feature.node.kubernetes.io/* {after_boot}",
            KARPENTER_KEYS,
            SOURCE_POST_BOOT_LABELS,
        ),
        Problem(
            f"{here}[3].key",
            f"{GPU}nme",
            f"not a GPU label of karpenter; did you mean '{GPU}name'?",
            KARPENTER_KEYS,
            KARPENTER.requirements_source,
        ),
    ]


def test_requirement_operators_value_counts_and_values() -> None:
    args = requiring(
        {"key": f"{GPU}name", "operator": "In", "values": ["L40S", "l40", "zzz"]},
        {"key": f"{GPU}count", "operator": "Gt", "values": ["two"]},
        {"key": f"{GPU}memory", "operator": "Gt", "values": ["48GB"]},
        {"key": f"{GPU}manufacturer", "operator": "In", "values": ["amd", "NVIDIA"]},
        {"key": f"{GPU}manufacturer", "operator": "Gt", "values": ["1"]},
        {"key": f"{GPU}count", "operator": "NotIn"},
        {"key": f"{GPU}count", "operator": "DoesNotExist", "values": ["1"]},
        {"key": f"{GPU}count", "operator": "Lte"},
    )
    here = f"{AT}.provisioning.gpu_requirements"
    source = KARPENTER.requirements_source
    name_value = f"not a {GPU}name value of the catalog's aws NVIDIA types"
    maker = f"the pool's GPUs are NVIDIA's, whose {GPU}manufacturer is nvidia"
    assert problems_of(args) == [
        Problem(
            f"{here}[0].values[0]", "L40S", f"{name_value}; did you mean 'l40s'?", AWS_NAMES, KARPENTER.values_source
        ),
        Problem(
            f"{here}[0].values[1]", "l40", f"{name_value}; did you mean 'l40s'?", AWS_NAMES, KARPENTER.values_source
        ),
        Problem(f"{here}[0].values[2]", "zzz", name_value, AWS_NAMES, KARPENTER.values_source),
        Problem(
            f"{here}[1].values[0]",
            "two",
            f"{GPU}count is a whole number (GPUs per node)",
            "a whole number, e.g. 2",
            source,
        ),
        Problem(
            f"{here}[2].values[0]",
            "48GB",
            f"{GPU}memory is a whole number (MiB of one GPU's memory)",
            "a whole number, e.g. 81920 (80 GiB)",
            source,
        ),
        Problem(f"{here}[3].values[0]", "amd", maker, "nvidia", source),
        Problem(f"{here}[3].values[1]", "NVIDIA", f"{maker}; did you mean 'nvidia'?", "nvidia", source),
        Problem(
            f"{here}[4].operator",
            "Gt",
            f"Gt compares whole numbers, and {GPU}manufacturer is a manufacturer",
            "In, NotIn, Exists, DoesNotExist",
            source,
        ),
        Problem(f"{here}[4].values[0]", "1", maker, "nvidia", source),
        Problem(f"{here}[5].values", [], "NotIn needs at least one value", ">= 1 value", source),
        Problem(f"{here}[6].values", ["1"], "DoesNotExist takes no values", "none", source),
        Problem(f"{here}[7].values", [], "Lte takes one value", "one whole number", source),
    ]


def test_an_operator_the_provisioners_node_pool_lacks_cites_its_page() -> None:
    auto = requiring({"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Gte", "values": ["1"]})
    auto["provisioning"]["provisioner"] = "eks-auto-mode"
    assert problems_of(auto) == [
        Problem(
            f"{AT}.provisioning.gpu_requirements[0].operator",
            "Gte",
            "not an operator of eks-auto-mode's NodePool requirements",
            "In, NotIn, Exists, DoesNotExist, Gt, Lt",
            facts_for("aws").provisioners["eks-auto-mode"].requirements_source,
        )
    ]


def test_a_compute_class_refuses_requirements_citing_its_page() -> None:
    requirement = {"key": "cloud.google.com/gke-accelerator", "operator": "In", "values": ["nvidia-l4"]}
    args = pool({"provisioner": "compute-class", "gpu_requirements": [requirement]}, instance_type="g2-standard-4")
    assert problems_of(args, "gcp") == [
        Problem(
            f"{AT}.provisioning.gpu_requirements",
            [requirement],
            f"compute-class pools take no GPU requirements: {COMPUTE_CLASS.requirements_refused}",
            None,
            COMPUTE_CLASS.requirements_source,
        )
    ]


def test_requirements_of_a_provisioner_the_cloud_lacks_are_not_checked() -> None:
    args = requiring({"key": "nvidia.com/gpu.product", "operator": "Exists"}, provisioner="compute-class")
    assert [(p.path, p.value) for p in problems_of(args)] == [(f"{AT}.provisioning.provisioner", "compute-class")]


# 4. The types the requirements exclude or cannot tell.


def test_unknown_label_values_stop_that_type_and_cite_the_values_page() -> None:
    # Karpenter's instance-types page gives no GPU memory (nor name) of the g7e types; the count rule would exclude
    # them as well, but a type whose value is unknown is reported once, not guessed.
    args = requiring(
        {"key": f"{GPU}memory", "operator": "Gte", "values": ["1"]},
        {"key": f"{GPU}count", "operator": "Lt", "values": ["1"]},
        instance_types=["g7e.2xlarge"],
    )
    memory = {"key": f"{GPU}memory", "operator": "Gte", "values": ["1"]}
    here = f"{AT}.provisioning"
    assert problems_of(args) == [
        Problem(
            f"{AT}.instance_type",
            "g6e.xlarge",
            f"excluded by {here}.gpu_requirements[1] ({GPU}count Lt [1]): g6e.xlarge's {GPU}count is 1; drop the "
            "type or change the requirement",
            None,
            KARPENTER.requirements_source,
        ),
        Problem(
            f"{here}.gpu_requirements[0]",
            memory,
            f"the library does not know the {GPU}memory value karpenter gives nodes of g7e.2xlarge, so it cannot tell "
            "whether the requirement admits them",
            "requirements on labels whose values the library knows for every allowed type",
            KARPENTER.values_source,
        ),
    ]


def test_every_provisioner_that_takes_requirements_cites_where_its_label_values_come_from() -> None:
    # The problems of a value the library does not know cite values_source (ProvisionerFacts: where gpu_name_value
    # and gpu_memory_mib come from), so a provisioner that takes requirements must have one.
    assert [
        name
        for cloud in ("aws", "azure", "gcp")
        for name, facts in facts_for(cloud).provisioners.items()
        if not facts.requirements_refused and not facts.values_source
    ] == []


def test_unknown_label_values_of_a_nap_pool_cite_its_values_page() -> None:
    nap = {
        "name": "napgpu",
        "instance_type": "Standard_NC6s_v3",
        "provisioning": {
            "provisioner": "node-auto-provisioning",
            "max_gpus": 4,
            "gpu_requirements": [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "NotIn", "values": ["T4"]}],
        },
    }
    [problem] = problems_of(nap, "azure")
    assert (problem.path, problem.source) == (f"{AT}.provisioning.gpu_requirements[0]", NAP.values_source)


def test_the_first_types_count_is_its_own_for_a_type_the_catalog_lacks() -> None:
    args = pool(
        {"gpu_requirements": [{"key": f"{GPU}count", "operator": "Gt", "values": ["4"]}]},
        instance_type="x9.large",
        gpu_model="L4",
        gpu_count=4,
        cpu_architecture="x86_64",
    )
    assert problems_of(args) == [
        Problem(
            f"{AT}.instance_type",
            "x9.large",
            f"excluded by {AT}.provisioning.gpu_requirements[0] ({GPU}count Gt [4]): x9.large's {GPU}count is 4; drop "
            "the type or change the requirement",
            None,
            KARPENTER.requirements_source,
        )
    ]


def test_types_with_problems_of_their_own_are_not_filtered_by_the_requirements() -> None:
    # The first type would be excluded, but the list has an unknown type: only that is reported.
    args = requiring({"key": f"{GPU}count", "operator": "Gt", "values": ["4"]}, instance_types=["g9.xlarge"])
    assert [p.path for p in problems_of(args)] == [f"{AT}.provisioning.instance_types[0]"]


# 5. Limits, capacity, fixed node counts.


def test_a_limit_below_several_types_names_each_of_them() -> None:
    args = pool({"instance_types": ["g6e.12xlarge", "g6e.24xlarge"], "max_gpus": 2})
    assert problems_of(args) == [
        Problem(
            f"{AT}.provisioning.max_gpus",
            2,
            "below one node of g6e.12xlarge (4 GPUs), g6e.24xlarge (4 GPUs): the provisioner could never create such "
            "a node; raise the limit or drop those types",
            ">= 4",
        )
    ]


@pytest.mark.parametrize(("max_gpus", "max_size"), [(8, 2), (10, 2), (11, 2), (12, 3)])
def test_the_most_nodes_are_whole_nodes_of_the_first_type_within_max_gpus(max_gpus: int, max_size: int) -> None:
    assert spec_of(pool({"max_gpus": max_gpus}, instance_type="g6e.12xlarge")).max_size == max_size


def test_capacity_and_fixed_count_problems_sit_under_the_pools_path() -> None:
    args = pool({"capacity_types": [], "reservation": "cr-1"}, spot=False, max_size=2)
    assert problems_of(args) == [
        Problem(
            f"{AT}.max_size",
            2,
            "a provisioned pool has no fixed node counts: its provisioner creates nodes for pending pods within "
            "provisioning.max_gpus / max_nodes",
        ),
        Problem(
            f"{AT}.spot",
            False,
            "a provisioned pool says its capacity in provisioning.capacity_types; give one, not both",
        ),
        Problem(f"{AT}.provisioning.capacity_types", [], "at least one capacity type", "on-demand, spot, reserved"),
        Problem(
            f"{AT}.provisioning.reservation",
            "cr-1",
            "a reservation is used only with reserved among capacity_types; add reserved or drop it",
        ),
    ]


def test_reserved_capacity_without_a_reservation() -> None:
    args = pool({"capacity_types": ["reserved"]})
    assert problems_of(args) == [
        Problem(f"{AT}.provisioning.reservation", None, "reserved capacity needs the reservation it comes from")
    ]


def test_spot_false_alone_means_on_demand() -> None:
    provisioning = spec_of(pool(spot=False)).provisioning
    assert provisioning is not None and provisioning.capacity_types == ("on-demand",)


# 6. Startup taints (https://karpenter.sh/docs/concepts/nodepools/#cilium-startup-taint).


def test_startup_taints_get_whole_problems() -> None:
    args = pool(
        {
            "startup_taints": [
                {"key": "bad key", "value": "x y", "effect": "NoSchedule"},
                {"key": "nvidia.com/gpu", "effect": "NoSchedule"},
                {"key": "team", "effect": "NoExecute"},
                {"key": "agent", "effect": "NoSchedule"},
                {"key": "agent", "effect": "NoExecute"},
                {"key": "agent", "effect": "NoSchedule"},
            ]
        },
        taints=[{"key": "team", "value": "ml", "effect": "NoSchedule"}],
    )
    here = f"{AT}.provisioning.startup_taints"
    assert problems_of(args) == [
        Problem(
            f"{here}[0].key",
            "bad key",
            "not a valid qualified name",
            "[DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.')",
            LABEL_SYNTAX,
        ),
        Problem(
            f"{here}[0].value",
            "x y",
            "not a valid label value",
            "<= 63 chars: alphanumerics, '-', '_', '.', starting and ending alphanumeric (or empty)",
            LABEL_SYNTAX,
        ),
        Problem(
            f"{here}[1].key",
            "nvidia.com/gpu",
            "the GPU taint is never a startup taint: it stays on GPU nodes so only pods that tolerate it land there, "
            "and no agent removes it",
            "another key (the GPU taint is the pool's gpu_taint)",
            SOURCE_STARTUP_TAINTS,
        ),
        Problem(
            f"{here}[2].key",
            "team",
            "already a key of the pool's taints, which stay on the nodes: as a startup taint too the node would keep "
            "one after the agent removes the other",
            "a key none of the pool's taints has",
            SOURCE_STARTUP_TAINTS,
        ),
        Problem(
            f"{here}[5]",
            {"key": "agent", "effect": "NoSchedule"},
            "a startup taint with this key and effect is already given",
        ),
    ]
