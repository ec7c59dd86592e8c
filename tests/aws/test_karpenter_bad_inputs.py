"""Bad input to the Karpenter controller (the ``KarpenterController`` component and the example cluster's
``cluster.karpenter``) and to the EKS node role ARN (pools, ``GpuCluster``'s wiring, the example cluster): each is one
clear error naming the field, never a traceback and never passed on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pytest

from gpu_components import GpuCluster
from gpu_components.aws import (
    EksAutoModeGpuNodePool,
    EksGpuNodeGroup,
    EksKarpenterGpuNodePool,
    KarpenterController,
    karpenter_controller,
)
from gpu_components.aws.cluster import config_problems
from gpu_components.errors import GpuSpecError
from tests.aws.test_provisioned import AUTO_L4, L40S_SHARED
from tests.aws.test_provisioned_bad_inputs import HELM_CLUSTER, KARPENTER_POOL, _stack
from tests.helpers import plan_of

KARPENTER_SOURCE = " [source: https://karpenter.sh/v1.14/getting-started/getting-started-with-karpenter/]"


def controller_problems(**args: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: KarpenterController("k", {"cluster_name": "demo", **args}))  # type: ignore[typeddict-item]
    return [str(problem) for problem in caught.value.problems]


# 1. helm_values that are not a mapping: the shape check's one error, no AttributeError; a null one is told to be left
# out, in the same words from the stack config and from KarpenterController's args.
NULL_HELM_VALUES = (
    "must not be null; leave the field out for its default (got None); valid: a mapping of key: value pairs"
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([1], "input should be a valid dictionary (got [1]); valid: a mapping of key: value pairs"),
        ("x", "input should be a valid dictionary (got 'x'); valid: a mapping of key: value pairs"),
        (None, NULL_HELM_VALUES),
    ],
)
def test_controller_helm_values_that_are_not_a_mapping_are_one_error(given: object, expected: str) -> None:
    assert controller_problems(helm_values=given) == [f"helm_values: {expected}"]


@pytest.mark.parametrize(("given", "shown"), [("[1]", "[1]"), ("x", "'x'"), ("null", "None")])
def test_stack_config_karpenter_helm_values_that_are_not_a_mapping_are_one_error(
    tmp_path: Path, given: str, shown: str
) -> None:
    cluster = HELM_CLUSTER + f"      helm_values: {given}\n"
    expected = (
        NULL_HELM_VALUES
        if given == "null"
        else f"input should be a valid dictionary (got {shown}); valid: a mapping of key: value pairs"
    )
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [f"cluster.karpenter.helm_values: {expected}"]


# 2. The version: no leading v (the chart's tags have none); a number is one error.

V_PREFIX = (
    "Karpenter's chart versions on oci://public.ecr.aws/karpenter/karpenter have no leading v (the guide installs "
    "KARPENTER_VERSION=\"1.14.1\"), so Helm would find no chart v1.14.1 (got 'v1.14.1'); valid: 1.14.1 (without the v)"
)


def test_controller_refuses_a_v_prefixed_version_suggesting_it_without() -> None:
    assert controller_problems(version="v1.14.1") == ["version: " + V_PREFIX + KARPENTER_SOURCE]


def test_stack_config_refuses_a_v_prefixed_karpenter_version(tmp_path: Path) -> None:
    cluster = HELM_CLUSTER + '      version: "v1.14.1"\n'
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == ["cluster.karpenter.version: " + V_PREFIX]


def test_a_numeric_version_is_one_error() -> None:
    assert controller_problems(version=1.14) == ["version: input should be a valid string (got 1.14); valid: a string"]


def test_stack_config_numeric_karpenter_version_is_one_error(tmp_path: Path) -> None:
    cluster = HELM_CLUSTER + "      version: 1.14\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.karpenter.version: input should be a valid string (got 1.14); valid: a string"
    ]


# 3. Values the library renders, or relies on the chart's default of, are refused in helm_values.


def test_every_value_the_library_renders_is_owned_with_its_own_reason() -> None:
    rendered = karpenter_controller.helm_values("demo", "demo", {"team": "ops"})

    def leaves(values: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        return [
            leaf
            for key, value in values.items()
            for leaf in (leaves(value, (*path, key)) if isinstance(value, dict) and value else [(*path, key)])
        ]

    owned = karpenter_controller.OWNED_HELM_VALUES
    for leaf in leaves(rendered):
        [owner] = [path for path in owned if leaf[: len(path)] == path]
        # Nothing rendered is deliberately overridable: each value is the cluster, a resource the library creates, or
        # where and how the controller runs (RENDERED_HELM_VALUES gives the reason of each).
        assert owned[owner] is not karpenter_controller.UNEXPLAINED, leaf
    assert set(karpenter_controller.CHART_HELM_VALUES) <= set(owned)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            {"nodeSelector": {"team": "ops"}},
            "helm_values.nodeSelector: set by the library (the nodes the controller runs on, which must not be nodes "
            "Karpenter launches) (got {'team': 'ops'}); valid: remove it, and set node_selector instead",
        ),
        (
            {"affinity": None},
            "helm_values.affinity: set by the library (the chart's affinity keeps each controller replica on a node "
            "of its own and off the nodes Karpenter launches, which the controller could otherwise remove from under "
            "itself) (got None); valid: remove it, and set node_selector instead",
        ),
        (
            {"serviceAccount": {"create": False}},
            "helm_values.serviceAccount.create: set by the library (the chart creates the service account "
            "kube-system/karpenter that the Pod Identity association names; without it the controller gets no AWS "
            "credentials) (got False); valid: remove it",
        ),
        (
            {"controller": {"resources": {"limits": {"memory": "2Gi"}}}},
            "helm_values.controller.resources: set by the library (the guide's controller resources: 1 CPU and 1Gi, "
            "requested and limited) (got {'limits': {'memory': '2Gi'}}); valid: remove it",
        ),
        (
            {"settings": {"clusterName": "other"}},
            "helm_values.settings.clusterName: set by the library (the cluster, which also names the interruption "
            "queue and scopes the controller's IAM policy) (got 'other'); valid: remove it, and set cluster_name "
            "instead",
        ),
    ],
    ids=["node-selector", "affinity", "service-account-create", "controller-resources", "cluster-name"],
)
def test_controller_refuses_helm_values_the_library_owns(values: dict[str, Any], expected: str) -> None:
    assert controller_problems(helm_values=values) == [expected + KARPENTER_SOURCE]


def test_controller_takes_other_helm_values_over_the_libraries() -> None:
    values = {"replicas": 3, "settings": {"featureGates": {"nodeOverlay": True}}, "controller": {"env": []}}
    plan = plan_of(lambda: KarpenterController("k", {"cluster_name": "demo", "helm_values": values}))
    [release] = [r for r in plan.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert release.inputs["values"]["replicas"] == 3
    assert release.inputs["values"]["settings"] == {
        "clusterName": "demo",
        "interruptionQueue": "demo",
        "featureGates": {"nodeOverlay": True},
    }


def test_stack_config_names_the_cluster_name_for_the_owned_cluster_name() -> None:
    [problem] = config_problems({"name": "c", "karpenter": {"helm_values": {"settings": {"clusterName": "x"}}}})
    assert problem.valid == "remove it, and set cluster.name instead"


# 6. node_selector labels.


def test_controller_node_selector_labels_are_kubernetes_labels() -> None:
    assert controller_problems(node_selector={"bad key!": "ok", "team": "-ops", "node-role": "system"}) == [
        "node_selector['bad key!']: not a valid qualified name (got 'bad key!'); valid: [DNS subdomain prefix "
        "(<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.') "
        "[source: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set]",
        "node_selector['team']: not a valid label value (got '-ops'); valid: <= 63 chars: alphanumerics, '-', '_', "
        "'.', starting and ending alphanumeric (or empty) "
        "[source: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set]",
    ]


def test_controller_node_selector_values_are_at_most_63_characters() -> None:
    [problem] = controller_problems(node_selector={"team": "o" * 64})
    assert problem.startswith("node_selector['team']: not a valid label value")


# 7. node_role_arn: an IAM role's ARN when a plain string.

ARN_VALID = (
    "valid: arn:<aws, aws-cn or aws-us-gov>:iam::<12-digit account>:role/<optional path/><name>, e.g. "
    "arn:aws:iam::123456789012:role/gpu-nodes"
)
ARN_SOURCE = " [source: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html]"
BAD_ARNS = [
    "gpu-nodes",
    "arn:aws:iam::1234:role/gpu-nodes",
    "arn:aws:iam::123456789012:instance-profile/gpu-nodes",
    "arn:aws-iso:iam::123456789012:role/gpu-nodes",
    "arn:aws:iam::123456789012:role/",
]
GOOD_ARNS = [
    "arn:aws:iam::123456789012:role/gpu-nodes",
    "arn:aws-cn:iam::123456789012:role/teams/ml/gpu-nodes",
    "arn:aws-us-gov:iam::123456789012:role/gpu+nodes@ml",
]
WIRING = {"cluster_name": "demo", "subnet_ids": ["subnet-a"]}


def arn_problem(path: str, arn: str) -> str:
    return f"{path}: not an IAM role ARN (got {arn!r}); {ARN_VALID}{ARN_SOURCE}"


def problems_of(build: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(build)
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize("arn", BAD_ARNS)
def test_pool_components_refuse_a_node_role_arn_that_is_not_a_role_arn(arn: str) -> None:
    node_group = {"pool": {"name": "l4", "instance_type": "g6.xlarge", "max_size": 1}, **WIRING, "node_role_arn": arn}
    karpenter = {"pool": L40S_SHARED, **WIRING, "node_role_arn": arn}
    auto_mode = {"pool": AUTO_L4, **WIRING, "node_role_arn": arn}
    assert problems_of(lambda: EksGpuNodeGroup("g", node_group)) == [arn_problem("node_role_arn", arn)]  # type: ignore[arg-type]
    assert problems_of(lambda: EksKarpenterGpuNodePool("k", karpenter)) == [arn_problem("node_role_arn", arn)]  # type: ignore[arg-type]
    assert problems_of(lambda: EksAutoModeGpuNodePool("a", auto_mode)) == [arn_problem("node_role_arn", arn)]  # type: ignore[arg-type]


@pytest.mark.parametrize("arn", BAD_ARNS)
def test_gpu_cluster_refuses_a_wiring_node_role_arn_that_is_not_a_role_arn(arn: str) -> None:
    pool = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 1}
    args = {"cloud": "aws", "aws": {**WIRING, "node_role_arn": arn}, "pools": [pool]}
    assert problems_of(lambda: GpuCluster("c", args)) == [arn_problem("aws.node_role_arn", arn)]  # type: ignore[arg-type]


@pytest.mark.parametrize("arn", BAD_ARNS)
def test_stack_config_refuses_a_cluster_node_role_arn_that_is_not_a_role_arn(tmp_path: Path, arn: str) -> None:
    cluster = f'  gpu-components:cluster:\n    name: c3\n    node_role_arn: "{arn}"\n'
    pools = "  gpu-components:pools:\n    - {name: l4, instance_type: g6.xlarge, max_size: 1}\n"
    assert _stack(tmp_path, cluster, pools) == [arn_problem("cluster.node_role_arn", arn).removesuffix(ARN_SOURCE)]


@pytest.mark.parametrize("arn", GOOD_ARNS)
def test_role_arns_of_each_partition_and_with_a_path_are_taken(arn: str) -> None:
    assert config_problems({"name": "c", "node_role_arn": arn}) == []
    plan_of(lambda: EksKarpenterGpuNodePool("k", {"pool": L40S_SHARED, **WIRING, "node_role_arn": arn}))  # type: ignore[typeddict-item]


def test_an_output_node_role_arn_is_not_checked() -> None:
    def build() -> None:
        arn = pulumi.Output.from_input("not-an-arn-until-deployed")
        EksKarpenterGpuNodePool("k", {"pool": L40S_SHARED, **WIRING, "node_role_arn": arn})  # type: ignore[typeddict-item]

    plan_of(build)


@pytest.mark.parametrize("version", ["01.14.1", "1.014.1", "1.14.01"])
def test_a_version_with_leading_zeros_names_no_chart(version: str) -> None:
    """Semver has no leading zeros, and the chart's tags none (new-user trial)."""
    assert controller_problems(version=version) == [
        f"version: not a Karpenter release the library supports: its NodePools and EC2NodeClasses are karpenter.sh/v1 "
        f"and karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on (got {version!r}); valid: a release "
        "MAJOR.MINOR.PATCH from 1.0.0 on, e.g. 1.14.1 [source: https://karpenter.sh/docs/upgrading/v1-migration/]"
    ]
