"""The exact problems of the pool-name, label, taint, pool-list and GPU-quantity rules (issue 31).

Each row pins a rule's whole problem (path, the value got, message, valid values, source) or its exact result,
written from the rule's own source: the clouds' node-pool name rules and Kubernetes' DNS-1123 label rule
(``gpu_components.spec.names``), the labels the library and the provisioners' NodePool CRDs keep for themselves, the
Mapping a :class:`~gpu_components.spec.Taint` is for Pulumi, the pool list of a cluster and the DRA refusal
(``gpu_components.spec.pool``), and Kubernetes' GPU quantities and GPU selections (``gpu_components.gpu_requests``).
Both sides of each edge are rows, so a rule that loses a field of its problem, moves an edge or swaps a branch fails
one. The rows run through the spec entry points (``GpuNodePoolSpec.checked``, ``parse_pools``) and the public helpers
of ``gpu_components.workloads``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components import catalog
from gpu_components.aws.facts import SOURCE_NODEPOOL_LABEL_RULES
from gpu_components.enums import TaintEffect
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.spec import SOURCE_LABELS, SOURCE_NAMES, GpuNodePoolSpec, Taint, dra_refused, parse_pools
from gpu_components.workloads import allowed_gpus, gpu_selection_problems, parse_gpu_quantity

AWS = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
AKS = {"name": "gpu", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 3}
GKE = {"name": "gpu", "instance_type": "g2-standard-4", "max_size": 3}
POOLS = {"aws": AWS, "azure": AKS, "gcp": GKE}

EKS_NAME_VALID = "1-63 letters, digits, '-' or '_', starting with a letter or digit"
EKS_NAME_SOURCE = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
AKS_NAME_VALID = "1-12 lowercase letters or digits, starting with a letter (Linux node pools)"
AKS_NAME_SOURCE = "https://learn.microsoft.com/azure/aks/create-node-pools#limitations"
GKE_NAME_VALID = "1-40 lowercase letters, digits or '-', starting with a letter and not ending with '-'"
GKE_NAME_SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools"
)
DNS_MESSAGE = "pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels"
DNS_VALID = "1-50 lowercase letters, digits or '-', starting and ending alphanumeric"
LABEL_KEY_VALID = "[DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.')"
SOURCE_SCHEDULE_GPUS = "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/"
QUANTITY_VALID = 'a whole number of at least 1, e.g. 1 or "1"'


def _checked(pool: dict[str, Any], cloud: str, path: str = "pools[0]") -> list[Problem]:
    spec, problems = GpuNodePoolSpec.checked(pool, cloud, path)  # type: ignore[arg-type]
    assert (spec is None) == bool(problems)
    return problems


def _both(cloud: str, name: str, valid: str, source: str) -> Problem:
    """The one problem of a name that breaks the cloud's rule and the DNS-1123 label rule."""
    return Problem(
        "pools[0].name",
        name,
        f"not a valid {cloud} node pool name, and {DNS_MESSAGE}",
        f"{valid}; and {DNS_VALID}",
        f"{source}; {SOURCE_NAMES}",
    )


NAMES = [
    ("aws", "gpu-1a", []),
    ("aws", "-gpu", [_both("aws", "-gpu", EKS_NAME_VALID, EKS_NAME_SOURCE)]),
    ("aws", "Gpu", [Problem("pools[0].name", "Gpu", DNS_MESSAGE, DNS_VALID, SOURCE_NAMES)]),
    ("aws", "gpu_a", [Problem("pools[0].name", "gpu_a", DNS_MESSAGE, DNS_VALID, SOURCE_NAMES)]),
    ("azure", "gpu1", []),
    ("azure", "GPU", [_both("azure", "GPU", AKS_NAME_VALID, AKS_NAME_SOURCE)]),
    (
        "azure",
        "gpu-a",
        [Problem("pools[0].name", "gpu-a", "not a valid azure node pool name", AKS_NAME_VALID, AKS_NAME_SOURCE)],
    ),
    ("gcp", "gpu-a1", []),
    ("gcp", "gpu-", [_both("gcp", "gpu-", GKE_NAME_VALID, GKE_NAME_SOURCE)]),
    (
        "gcp",
        "1gpu",
        [Problem("pools[0].name", "1gpu", "not a valid gcp node pool name", GKE_NAME_VALID, GKE_NAME_SOURCE)],
    ),
    # "default" names the device plugin's default config entry, on every cloud; it is a valid name otherwise
    *[
        (
            cloud,
            "default",
            [
                Problem(
                    "pools[0].name",
                    "default",
                    "reserved: it names the device plugin's default config entry",
                    "any other name",
                )
            ],
        )
        for cloud in ("aws", "azure", "gcp")
    ],
    ("aws", "defaults", []),
]


@pytest.mark.parametrize(("cloud", "name", "problems"), NAMES, ids=[f"{c}-{n}" for c, n, _ in NAMES])
def test_a_pool_name_breaking_a_rule_gets_its_whole_problem(cloud: str, name: str, problems: list[Problem]) -> None:
    assert _checked({**POOLS[cloud], "name": name}, cloud) == problems


LABELS = [
    ("team", "ml", []),
    (
        "gpu-components/sharing",
        "trusted",
        [
            Problem(
                "pools[0].labels['gpu-components/sharing']",
                "gpu-components/sharing",
                "set by gpu_components itself on pools whose sharing is declared trusted",
                "time_slicing: {trusted: true} or mps: {trusted: true}",
            )
        ],
    ),
    (
        "nvidia.com/gpu.present",
        "true",
        [
            Problem(
                "pools[0].labels['nvidia.com/gpu.present']",
                "nvidia.com/gpu.present",
                "set by gpu_components itself",
                "any other label key",
            )
        ],
    ),
    (
        "nvidia.com/gpu.deploy.device-plugin",
        "false",
        [
            Problem(
                "pools[0].labels['nvidia.com/gpu.deploy.device-plugin']",
                "nvidia.com/gpu.deploy.device-plugin",
                "set by gpu_components itself: the nvidia.com/gpu.deploy.* labels switch the GPU Operator's operands "
                "on or off per node",
                "a key under another prefix",
            )
        ],
    ),
    (
        "node.kubernetes.io/x",
        "v",
        [
            Problem(
                "pools[0].labels['node.kubernetes.io/x']",
                "node.kubernetes.io/x",
                "the kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
                "a key under your own prefix",
                SOURCE_LABELS,
            )
        ],
    ),
    (
        "k8s.io/x",
        "v",
        [
            Problem(
                "pools[0].labels['k8s.io/x']",
                "k8s.io/x",
                "the kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
                "a key under your own prefix",
                SOURCE_LABELS,
            )
        ],
    ),
    # a subdomain of a reserved prefix is reserved too; a domain that only ends with its letters, or a plain name
    # spelt like it, is not
    ("mykubernetes.io/x", "v", []),
    ("kubernetes.io", "v", []),
]


@pytest.mark.parametrize(("key", "value", "problems"), LABELS, ids=[key for key, _, _ in LABELS])
def test_a_label_the_library_or_kubernetes_keeps_gets_its_whole_problem(
    key: str, value: str, problems: list[Problem]
) -> None:
    assert _checked({**GKE, "labels": {key: value}}, "gcp") == problems


NAP_VALID = (
    "a label whose domain does not end with karpenter.sh, karpenter.azure.com, kubernetes.azure.com, other than "
    "agentpool, storageprofile, storagetier, accelerator"
)
NAP_SOURCE = (
    "https://github.com/Azure/karpenter-provider-azure/blob/v1.14.2/pkg/apis/crds/karpenter.sh_nodepools.yaml "
    '(template.metadata.labels: label domains "karpenter.sh", "karpenter.azure.com" and "kubernetes.azure.com" are '
    "restricted, each refusing a key whose domain part ends with the domain; "
    'labels "agentpool", "storageprofile", "storagetier" and "accelerator" are restricted; '
    "tests/reference/karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml lines 225-242)"
)
NAP_POOL = {
    "name": "napl",
    "instance_type": "Standard_NC24ads_A100_v4",
    "provisioning": {"provisioner": "node-auto-provisioning", "max_nodes": 1},
}
KARPENTER_POOL = {
    "name": "gpu",
    "instance_type": "g6e.xlarge",
    "provisioning": {"provisioner": "karpenter", "max_gpus": 8},
}
KARPENTER_VALID = "a label whose domain does not end with karpenter.sh, karpenter.k8s.aws"
KARPENTER_SH = (
    "Karpenter sets labels in it on every node itself (karpenter.sh/nodepool, karpenter.sh/capacity-type): select a "
    "node by them in a workload instead"
)


def _bad_key(key: str) -> Problem:
    return Problem(f"pools[0].labels[{key!r}]", key, "not a valid qualified name", LABEL_KEY_VALID, SOURCE_LABELS)


RESTRICTED = [
    (
        "azure",
        NAP_POOL,
        "agentpool",
        [
            Problem(
                "pools[0].labels['agentpool']",
                "agentpool",
                "label agentpool is restricted on node-auto-provisioning NodePools: the NodePool CRD refuses it, as "
                "AKS sets this node label itself",
                NAP_VALID,
                NAP_SOURCE,
            )
        ],
    ),
    ("azure", NAP_POOL, "team/agentpool", []),
    # the CRD's domain is the key's part before its first '/' (x.find("^([^/]+)")): with two slashes, the first;
    # the provisioner's rules run before the label rules
    (
        "aws",
        KARPENTER_POOL,
        "karpenter.sh/a/b",
        [
            Problem(
                "pools[0].labels['karpenter.sh/a/b']",
                "karpenter.sh/a/b",
                "label domain karpenter.sh is restricted on karpenter NodePools: the NodePool CRD refuses a key whose "
                "domain (the part before '/', or the whole key without one) ends with karpenter.sh, as "
                f"{KARPENTER_SH}",
                KARPENTER_VALID,
                SOURCE_NODEPOOL_LABEL_RULES,
            ),
            _bad_key("karpenter.sh/a/b"),
        ],
    ),
    ("aws", KARPENTER_POOL, "team/karpenter.sh/b", [_bad_key("team/karpenter.sh/b")]),
]


@pytest.mark.parametrize(
    ("cloud", "pool", "key", "problems"), RESTRICTED, ids=[f"{cloud}-{key}" for cloud, _, key, _ in RESTRICTED]
)
def test_a_label_the_nodepool_crd_refuses_gets_its_whole_problem(
    cloud: str, pool: dict[str, Any], key: str, problems: list[Problem]
) -> None:
    assert _checked({**pool, "labels": {key: "x"}}, cloud) == problems


def test_a_taint_is_the_mapping_of_its_three_fields_as_pulumi_serializes_it() -> None:
    """Pulumi serializes a component's ``taints`` output item as a Mapping (``items()``: its iteration and lookups)."""
    taint = Taint.from_args({"key": "nvidia.com/gpu", "effect": TaintEffect.NO_SCHEDULE})
    assert (list(taint), list(taint.items()), len(taint)) == (
        ["key", "value", "effect"],
        [("key", "nvidia.com/gpu"), ("value", ""), ("effect", "NoSchedule")],
        3,
    )
    assert [type(taint[name]) for name in taint] == [str, str, str]
    for name in ("text", "Key", ""):
        with pytest.raises(KeyError) as missing:
            taint[name]
        assert missing.value.args == (name,)
    assert ("text" in taint, "effect" in taint) == (False, True)


def test_a_cluster_without_pools_or_with_a_name_twice_gets_its_whole_problems() -> None:
    with pytest.raises(GpuSpecError) as empty:
        parse_pools([], "aws")
    assert empty.value.problems == (Problem("pools", [], "a GPU cluster needs at least one pool"),)
    with pytest.raises(GpuSpecError) as twice:
        parse_pools([AWS, {**AWS, "name": "other"}, AWS, AWS], "aws", "cluster.pools")
    assert twice.value.problems == (
        Problem("cluster.pools[2].name", "gpu", "pool names must be unique; cluster.pools[0] has it too"),
        Problem("cluster.pools[3].name", "gpu", "pool names must be unique; cluster.pools[0] has it too"),
    )


def test_a_fixed_pool_without_max_size_gets_its_problem_at_the_pools_path() -> None:
    no_max = {"name": "gpu", "instance_type": "g5.xlarge"}
    assert _checked(no_max, "aws") == [
        Problem(
            "pools[0].max_size",
            None,
            "required for a fixed node pool (most nodes); or make the pool provisioned with provisioning",
        )
    ]
    assert _checked({**no_max, "max_size": 1}, "aws") == []


@pytest.mark.parametrize(
    ("capacity_types", "spot"), [(["spot", "on-demand"], True), (["on-demand", "spot"], True), (["on-demand"], False)]
)
def test_a_provisioned_pool_is_spot_when_its_capacity_types_allow_spot(capacity_types: list[str], spot: bool) -> None:
    pool = {**KARPENTER_POOL, "provisioning": {**KARPENTER_POOL["provisioning"], "capacity_types": capacity_types}}
    assert GpuNodePoolSpec.from_args(pool, "aws").spot is spot  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("gpu_access", "gpu_stack", "uses_dra"),
    [
        (None, "dra", True),
        (None, "auto", False),
        (None, "gpu-operator", False),
        ("dra", "auto", True),
        ("dra", "dra", True),
        ("device-plugin", "dra", False),
        ("device-plugin", "auto", False),
    ],
)
def test_a_pool_uses_dra_by_its_own_gpu_access_else_the_clusters_stack(
    gpu_access: str | None, gpu_stack: str, uses_dra: bool
) -> None:
    pool = {**AWS, "gpu_access": gpu_access} if gpu_access is not None else AWS
    assert GpuNodePoolSpec.from_args(pool, "aws").uses_dra(gpu_stack) is uses_dra  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("gpu_access", "path", "problem"),
    [
        ("dra", "pools[1]", Problem("pools[1].gpu_access", "dra", "why", "valid", "source")),
        ("dra", "", Problem("gpu_access", "dra", "why", "valid", "source")),
        (None, "pool", Problem("pool.gpu_access", Default("dra"), "why", "valid", "source")),
        (None, "", Problem("gpu_access", Default("dra"), "why", "valid", "source")),
    ],
)
def test_a_refused_dra_pool_is_valued_as_given_or_as_the_clusters_default(
    gpu_access: str | None, path: str, problem: Problem
) -> None:
    pool = {**AWS, "gpu_access": gpu_access} if gpu_access is not None else AWS
    spec = GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]
    assert dra_refused(spec, path, "why", "valid", "source") == problem


def _quantity(value: object, message: str) -> tuple[None, list[Problem]]:
    return None, [Problem("limits", value, message, QUANTITY_VALID, SOURCE_SCHEDULE_GPUS)]


ZERO = "zero GPUs: leave the GPU resource out instead"
NEGATIVE = "a GPU count cannot be negative"
FRACTION = "GPUs cannot be split into fractions; a GPU quantity is a whole number"
NOT_WHOLE = "not a whole number of GPUs (no fractions, units or exponents)"
QUANTITIES = [
    # (value, integral_floats, result): at least 1, an int or a string of digits; a protobuf double only when whole
    (1, False, (1, [])),
    (8, False, (8, [])),
    ("1", False, (1, [])),
    ("+2", False, (2, [])),
    (0, False, _quantity(0, ZERO)),
    (-1, False, _quantity(-1, NEGATIVE)),
    ("0", False, _quantity("0", ZERO)),
    ("-1", False, _quantity("-1", NEGATIVE)),
    ("0", True, _quantity("0", ZERO)),
    ("1.5", False, _quantity("1.5", NOT_WHOLE)),
    ("1e3", True, _quantity("1e3", NOT_WHOLE)),
    ("", False, _quantity("", NOT_WHOLE)),
    (True, False, _quantity(True, "a boolean is not a GPU count")),
    (True, True, _quantity(True, "a boolean is not a GPU count")),
    (2.0, False, _quantity(2.0, "a float is not a GPU count, even a whole one; write 2")),
    (1.5, False, _quantity(1.5, FRACTION)),
    (1.5, True, _quantity(1.5, FRACTION)),
    (1.0, True, (1, [])),
    (2.0, True, (2, [])),
    (0.0, True, _quantity(0, ZERO)),
    (-3.0, True, _quantity(-3, NEGATIVE)),
    ([1], False, _quantity([1], "a GPU quantity is a whole number, not a list")),
    (None, True, _quantity(None, "a GPU quantity is a whole number, not a NoneType")),
]


@pytest.mark.parametrize(
    ("value", "integral_floats", "result"),
    QUANTITIES,
    ids=[f"{value!r}-{'struct' if integral else 'python'}" for value, integral, _ in QUANTITIES],
)
def test_a_gpu_quantity_is_its_count_or_its_whole_problem_with_the_value_as_written(
    value: object, integral_floats: bool, result: tuple[int | None, list[Problem]]
) -> None:
    count, problems = parse_gpu_quantity(value, "limits", integral_floats=integral_floats)
    assert (count, problems) == result
    # the value as the user wrote it: 0 == 0.0 and 1 == True for ==, so its type and spelling too
    assert [str(problem) for problem in problems] == [str(problem) for problem in result[1]]
    assert [type(problem.value) for problem in problems] == [type(problem.value) for problem in result[1]]


MODEL = "must be a GPU model name (a string) or None"
MEMORY = "must be a whole number of GB, at least 1"
SELECTIONS = [
    (None, None, []),
    ("A100-80GB", 1, []),
    ("L4", 24, []),
    (4, None, [Problem("gpu_model", 4, MODEL)]),
    (None, 0, [Problem("min_gpu_memory_gb", 0, MEMORY)]),
    (None, -8, [Problem("min_gpu_memory_gb", -8, MEMORY)]),
    (None, True, [Problem("min_gpu_memory_gb", True, MEMORY)]),
    (None, 8.5, [Problem("min_gpu_memory_gb", 8.5, MEMORY)]),
    (None, 16.0, [Problem("min_gpu_memory_gb", 16.0, MEMORY)]),
    (None, "16", [Problem("min_gpu_memory_gb", "16", MEMORY)]),
    (["L4"], "16", [Problem("gpu_model", ["L4"], MODEL), Problem("min_gpu_memory_gb", "16", MEMORY)]),
]


@pytest.mark.parametrize(("gpu_model", "min_gpu_memory_gb", "problems"), SELECTIONS)
def test_a_gpu_selection_is_a_model_name_and_a_whole_number_of_gb(
    gpu_model: object, min_gpu_memory_gb: object, problems: list[Problem]
) -> None:
    found = gpu_selection_problems(gpu_model, min_gpu_memory_gb)
    assert found == problems
    assert [type(problem.value) for problem in found] == [type(problem.value) for problem in problems]


def test_a_provisioned_pool_allows_the_gpus_of_each_of_its_types() -> None:
    pool = {**KARPENTER_POOL, "provisioning": {**KARPENTER_POOL["provisioning"], "instance_types": ["g6e.12xlarge"]}}
    spec = GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]
    l40s = catalog.gpu_model("L40S")
    assert allowed_gpus(spec) == {"g6e.xlarge": (l40s, 1), "g6e.12xlarge": (l40s, 4)}
    assert allowed_gpus(GpuNodePoolSpec.from_args(AWS, "aws")) == {"g5.xlarge": (catalog.gpu_model("A10G"), 1)}  # type: ignore[arg-type]


def test_the_spec_without_a_path_puts_problems_at_the_pools_own_fields_and_names_an_unknown_cloud() -> None:
    spec, problems = GpuNodePoolSpec.checked({**AWS, "name": "default"}, "aws")  # type: ignore[arg-type]
    assert (spec, problems) == (
        None,
        [Problem("name", "default", "reserved: it names the device plugin's default config entry", "any other name")],
    )
    with pytest.raises(GpuSpecError) as unknown:
        GpuNodePoolSpec.checked(AWS, "ec2")  # type: ignore[arg-type]
    assert unknown.value.problems == (Problem("cloud", "ec2", "unknown cloud", "aws, azure, gcp"),)


EKS_RESERVED = (
    "EKS CreateNodegroup error 'cannot contain reserved prefixes [kubernetes.io/, k8s.io/, eks.amazonaws.com/]' "
    "for labels and taints (aws/containers-roadmap#1451)"
)


def _eks_refuses(where: str, key: str) -> Problem:
    return Problem(
        where,
        key,
        "EKS refuses keys under kubernetes.io/, k8s.io/, eks.amazonaws.com/ in node pools",
        "a key under your own prefix",
        EKS_RESERVED,
    )


CLOUD_RESERVED = [
    # EKS refuses its prefixes in label and taint keys; AKS in label keys only
    (
        "aws",
        {**AWS, "labels": {"eks.amazonaws.com/x": "v"}},
        [_eks_refuses("pools[0].labels['eks.amazonaws.com/x']", "eks.amazonaws.com/x")],
    ),
    (
        "aws",
        {
            **AWS,
            "taints": [{"key": "team", "effect": "NoSchedule"}, {"key": "eks.amazonaws.com/x", "effect": "NoSchedule"}],
        },
        [_eks_refuses("pools[0].taints[1].key", "eks.amazonaws.com/x")],
    ),
    ("aws", {**AWS, "labels": {"my-eks.amazonaws.com/x": "v"}}, []),
    (
        "azure",
        {**AKS, "labels": {"kubernetes.azure.com/x": "v"}},
        [
            Problem(
                "pools[0].labels['kubernetes.azure.com/x']",
                "kubernetes.azure.com/x",
                "AKS refuses keys under kubernetes.azure.com/ in node pools",
                "a key under your own prefix",
                "https://learn.microsoft.com/azure/aks/use-labels#unavailable-labels",
            )
        ],
    ),
    ("azure", {**AKS, "taints": [{"key": "kubernetes.azure.com/x", "effect": "NoSchedule"}]}, []),
    ("gcp", {**GKE, "labels": {"cloud.google.com/x": "v"}}, []),
]


@pytest.mark.parametrize(("cloud", "pool", "problems"), CLOUD_RESERVED)
def test_a_key_under_a_prefix_the_clouds_node_pool_api_keeps_gets_its_whole_problem(
    cloud: str, pool: dict[str, Any], problems: list[Problem]
) -> None:
    assert _checked(pool, cloud) == problems


def _taint(key: str, effect: str = "NoSchedule", value: str | None = None) -> dict[str, str]:
    return {"key": key, "effect": effect} | ({"value": value} if value is not None else {})


DEFAULT_CLASH = "duplicates the default GPU taint; set gpu_taint: false to replace it"
GIVEN_CLASH = "a taint with this key and effect is already given"
SOURCE_TAINTS = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
TAINTS = [
    # a taint's key and effect say which taint it is (one per pair on a node); its value does not
    (
        "mine",
        True,
        [_taint("nvidia.com/gpu", value="other")],
        [Problem("pools[0].taints[0]", _taint("nvidia.com/gpu", value="other"), DEFAULT_CLASH, None, SOURCE_TAINTS)],
    ),
    ("mine-no-default", False, [_taint("nvidia.com/gpu", value="other")], []),
    ("other-effect", True, [_taint("nvidia.com/gpu", "NoExecute")], []),
    (
        "given-twice",
        False,
        [_taint("team", value="a"), _taint("other"), _taint("team", value="b")],
        [Problem("pools[0].taints[2]", _taint("team", value="b"), GIVEN_CLASH, None, SOURCE_TAINTS)],
    ),
    (
        "given-twice-default-on",
        True,
        [_taint("team"), _taint("team")],
        [Problem("pools[0].taints[1]", _taint("team"), GIVEN_CLASH, None, SOURCE_TAINTS)],
    ),
    # each taint's key and value problems, each at its own field, all kept
    (
        "bad-key-then-good",
        True,
        [_taint("bad key"), _taint("good")],
        [Problem("pools[0].taints[0].key", "bad key", "not a valid qualified name", LABEL_KEY_VALID, SOURCE_LABELS)],
    ),
    (
        "bad-key-and-value",
        True,
        [_taint("bad key", value="bad value")],
        [
            Problem("pools[0].taints[0].key", "bad key", "not a valid qualified name", LABEL_KEY_VALID, SOURCE_LABELS),
            Problem(
                "pools[0].taints[0].value",
                "bad value",
                "not a valid label value",
                "<= 63 chars: alphanumerics, '-', '_', '.', starting and ending alphanumeric (or empty)",
                SOURCE_LABELS,
            ),
        ],
    ),
]


@pytest.mark.parametrize(("case", "gpu_taint", "taints", "problems"), TAINTS, ids=[case for case, *_ in TAINTS])
def test_a_taint_given_twice_or_misspelt_gets_its_whole_problem(
    case: str, gpu_taint: bool, taints: list[dict[str, str]], problems: list[Problem]
) -> None:
    assert _checked({**GKE, "gpu_taint": gpu_taint, "taints": taints}, "gcp") == problems
