"""Input patterns match the whole value: a trailing newline (which ``re.match`` with ``$`` lets through) is refused,
through the stack config (the plan CLI), ``GpuCluster`` and the helpers each pattern serves (issue 16 re-trial)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_components.aws.cluster import config_problems
from gpu_components.azure.facts import nap_gpu_name
from gpu_components.cluster import GpuCluster
from gpu_components.gcp import GkeComputeClassGpuPool
from gpu_components.gpu_requests import parse_gpu_quantity
from gpu_components.kubernetes.addon import namespace_problems
from gpu_components.plan.property_path import render
from gpu_components.plan.state import default_provider_name
from gpu_components.spec import name_problems
from gpu_components.workloads import is_gpu_resource
from tests.aws.test_provisioned import L40S_SHARED, RESERVED, WIRING
from tests.aws.test_provisioned_bad_inputs import _problems, _stack
from tests.gcp.test_compute_class import problem_lines, provisioned

LABEL_VALUE = (
    "not a valid label value (got 'ml\\n'); valid: <= 63 chars: alphanumerics, '-', '_', '.', starting and ending "
    "alphanumeric (or empty)"
)
LABEL_KEY = (
    "not a valid qualified name (got 'team\\n'); valid: [DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: "
    "alphanumerics, '-', '_', '.')"
)
RESERVATION = (
    "not an EC2 capacity reservation id: the EC2NodeClass's capacityReservationSelectorTerms[].id takes only one "
    "(got 'cr-0123abcd\\n'); valid: an id matching ^cr-[0-9a-z]+$, e.g. cr-0123456789abcdef0"
)


def _expected(where: str) -> list[str]:
    return [
        f"{where}.provisioning.disruption.consolidate_after: not a duration (got '5m\\n'); valid: digits with s, m or "
        "h, e.g. 10m, 1h30m",
        f"{where}.provisioning.disruption.expire_after: not a duration (got '720h\\n'); valid: digits with s, m or h, "
        "e.g. 720h, or Never",
        f"{where}.labels['team']: {LABEL_VALUE}",
        f"{where}.labels['team\\n']: {LABEL_KEY}",
    ]


def test_durations_and_labels_with_a_trailing_newline_are_refused_by_gpu_cluster() -> None:
    disruption = {"expire_after": "720h\n", "consolidate_after": "5m\n"}
    pool = {
        **L40S_SHARED,
        "labels": {"team": "ml\n", "team\n": "x"},
        "provisioning": {**L40S_SHARED["provisioning"], "disruption": disruption},
    }
    assert _problems(
        lambda: GpuCluster("c", {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [pool]})
    ) == _expected(  # type: ignore[arg-type]
        "pools[0]"
    )
    reserved = {**RESERVED, "provisioning": {**RESERVED["provisioning"], "reservation": "cr-0123abcd\n"}}
    assert _problems(
        lambda: GpuCluster("c", {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [reserved]})
    ) == [  # type: ignore[arg-type]
        f"pools[0].provisioning.reservation: {RESERVATION}"
    ]


def test_trailing_newlines_are_refused_through_the_stack_config(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: p
      instance_type: g6e.xlarge
      labels: {team: "ml\\n", "team\\n": x}
      provisioning:
        provisioner: karpenter
        max_gpus: 8
        disruption: {expire_after: "720h\\n", consolidate_after: "5m\\n"}
    - name: r
      instance_type: p5.48xlarge
      provisioning: {provisioner: karpenter, max_gpus: 8, capacity_types: [reserved], reservation: "cr-0123abcd\\n"}
"""
    cluster = '  gpu-components:cluster: {name: c3, karpenter: {version: "1.2.0\\n"}}\n'
    assert _stack(tmp_path, cluster, pools) == [
        "cluster.karpenter.version: not a Karpenter release the library supports: its NodePools and EC2NodeClasses "
        "are karpenter.sh/v1 and karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on (got '1.2.0\\n'); "
        "valid: a release MAJOR.MINOR.PATCH from 1.0.0 on, e.g. 1.14.1",
        *_expected("pools[0]"),
        f"pools[1].provisioning.reservation: {RESERVATION}",
    ]
    assert config_problems({"name": "c", "karpenter": {"version": "1.2.0"}}) == []


def test_a_gcp_reservation_name_with_a_trailing_newline_is_refused() -> None:
    pool = provisioned(provisioning={"reservation": "my-res\n", "capacity_types": ["reserved"]})
    assert problem_lines(lambda: GkeComputeClassGpuPool("demo", {"pool": pool})) == [  # type: ignore[typeddict-item]
        "pool.provisioning.reservation: not a Compute Engine reservation name (got 'my-res\\n'); valid: 1-63 "
        "lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen"
    ]


@pytest.mark.parametrize("cloud", ["aws", "azure", "gcp"])
def test_a_pool_name_with_a_trailing_newline_is_refused(cloud: str) -> None:
    assert [p.message for p in name_problems("gpu\n", cloud, "name")] == [  # type: ignore[arg-type]
        f"not a valid {cloud} node pool name, and pool names also name Kubernetes objects and label values, so they "
        "must be DNS-1123 labels",
    ]
    assert name_problems("gpu", cloud, "name") == []  # type: ignore[arg-type]


def test_the_other_patterns_match_the_whole_value() -> None:
    assert [p.path for p in namespace_problems("gpu-operator\n", "namespace")] == ["namespace"]
    assert namespace_problems("gpu-operator", "namespace") == []
    assert (is_gpu_resource("nvidia.com/gpu\n"), is_gpu_resource("nvidia.com/gpu")) == (False, True)
    count, problems = parse_gpu_quantity("1\n", "gpus")
    assert (count, [(p.path, p.message) for p in problems]) == (
        None,
        [("gpus", "not a whole number of GPUs (no fractions, units or exponents)")],
    )
    assert parse_gpu_quantity("1", "gpus") == (1, [])
    assert (nap_gpu_name("Standard_NC24ads_A100_v4\n"), nap_gpu_name("Standard_NC24ads_A100_v4")) == (None, "A100")
    assert render(["spec", "name\n"]) == 'spec["name\\n"]'
    with pytest.raises(ValueError, match="is not a semantic version"):
        default_provider_name("7.51.1\n")
