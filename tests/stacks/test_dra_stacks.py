"""The DRA example stacks (``aws-eks-dra``, ``gcp-gke-dra``) as planned offline: every Kubernetes manifest they
register that is a DRA object or uses one (ResourceClaimTemplates, ResourceClaims, Jobs and Pods with
``resourceClaims``) and every Namespace validates strictly with kubernetes-validate for each Kubernetes version >= 1.34
it ships schemas for, and each claim a sample Job makes selects only devices its target pool's nodes publish (the
pool component's ``draDevices`` output)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kubernetes_validate
import pytest

from gpu_components.dra import GPU_DEVICE_CLASS, MIG_DEVICE_CLASS, mig_profile_expression
from gpu_components.plan.runner import Plan
from tests.helpers import example_plan
from tests.test_claims_validate import DRA_VERSIONS

pytestmark = pytest.mark.stack  # plans whole example stacks (left out by `make check-fast`)

DRA_STACKS = ("aws-eks-dra", "gcp-gke-dra")
CLAIM_KINDS = ("ResourceClaimTemplate", "ResourceClaim")
WORKLOAD_KINDS = ("Job", "Pod")


def pod_spec(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    """The pod spec of a Pod or a Job manifest."""
    spec: Mapping[str, Any] = manifest["spec"]
    return spec if manifest["kind"] == "Pod" else spec["template"]["spec"]


def dra_manifests(plan: Plan) -> list[dict[str, Any]]:
    """Every Kubernetes manifest of ``plan`` that is a DRA object, uses one (a Job or Pod with ``resourceClaims``) or
    is a Namespace, as registered (the inputs carry ``apiVersion`` and ``kind``)."""
    found = []
    for item in plan.resources:
        if not item.custom or not item.type.startswith("kubernetes:"):
            continue
        kind = item.inputs.get("kind")
        if kind in (*CLAIM_KINDS, "DeviceClass", "Namespace") or (
            kind in WORKLOAD_KINDS and pod_spec(item.inputs).get("resourceClaims")
        ):
            found.append(item.inputs)
    return found


def pool_devices(plan: Plan) -> dict[str, tuple[Mapping[str, str], Mapping[str, int]]]:
    """Pool name -> (its nodeSelector, its draDevices), from each node-pool component's outputs."""
    return {
        item.outputs["poolName"]: (item.outputs["nodeSelector"], item.outputs["draDevices"])
        for item in plan.resources
        if not item.custom and "draDevices" in item.outputs
    }


def device_of(request: Mapping[str, Any], devices: Mapping[str, int]) -> str:
    """The key of ``devices`` (``gpu.nvidia.com`` or ``mig.nvidia.com/<profile>``) that an ``exactly`` device request
    selects: its DeviceClass, and for MIG its profile selector. Fails when it selects none of them."""
    exactly = request["exactly"]
    expressions = [selector["cel"]["expression"] for selector in exactly.get("selectors", [])]
    matches = [
        key
        for key in devices
        if (key == GPU_DEVICE_CLASS and exactly["deviceClassName"] == GPU_DEVICE_CLASS)
        or (
            key.startswith(f"{MIG_DEVICE_CLASS}/")
            and exactly["deviceClassName"] == MIG_DEVICE_CLASS
            and mig_profile_expression(key.split("/", 1)[1]) in expressions
        )
    ]
    assert len(matches) == 1, f"request {request['name']} selects {matches} of the pool's devices {dict(devices)}"
    return matches[0]


def claims_made(plan: Plan) -> list[tuple[str, str, str, int, str]]:
    """(workload name, pool, request name, device count, device key) of every request of every claim a Job or Pod of
    ``plan`` makes, each checked against its pool's devices per node."""
    manifests = dra_manifests(plan)
    claims = {
        (item["metadata"]["namespace"], item["metadata"]["name"]): item
        for item in manifests
        if item["kind"] in CLAIM_KINDS
    }
    pools = pool_devices(plan)
    made = []
    for workload in (item for item in manifests if item["kind"] in WORKLOAD_KINDS):
        spec = pod_spec(workload)
        [pool] = [name for name, (selector, _) in pools.items() if selector.items() <= spec["nodeSelector"].items()]
        devices = pools[pool][1]
        for reference in spec["resourceClaims"]:
            claim_name = reference.get("resourceClaimTemplateName") or reference["resourceClaimName"]
            claim = claims[(workload["metadata"]["namespace"], claim_name)]
            claim_spec = claim["spec"]["spec"] if claim["kind"] == "ResourceClaimTemplate" else claim["spec"]
            for request in claim_spec["devices"]["requests"]:
                key = device_of(request, devices)
                count = request["exactly"]["count"]
                assert count <= devices[key], f"{claim_name}: {count} x {key}, a node of {pool} has {devices[key]}"
                made.append((workload["metadata"]["name"], pool, request["name"], count, key))
    return made


@pytest.mark.parametrize("version", DRA_VERSIONS)
@pytest.mark.parametrize("stack", DRA_STACKS)
def test_every_dra_manifest_of_the_dra_stacks_validates_strictly(stack: str, version: str) -> None:
    manifests = dra_manifests(example_plan(stack))
    assert (
        sorted((item["kind"], item["metadata"]["name"]) for item in manifests)
        == {
            "aws-eks-dra": [
                ("Job", "h100-mig-vectoradd"),
                ("Job", "l40s-vectoradd"),
                ("Namespace", "dra-driver-nvidia-gpu"),
                ("Namespace", "gpu-operator"),
                ("ResourceClaimTemplate", "h100-mig-vectoradd"),
                ("ResourceClaimTemplate", "l40s-vectoradd"),
            ],
            "gcp-gke-dra": [  # GKE's driver installer is a ConfigFile of its pinned URL: no manifest in the plan
                ("Job", "l4-dra-vectoradd"),
                ("Namespace", "dra-driver-nvidia-gpu"),
                ("ResourceClaimTemplate", "l4-dra-vectoradd"),
            ],
        }[stack]
    )
    for item in manifests:
        kubernetes_validate.validate(item, version, strict=True)


def test_the_aws_eks_dra_samples_claim_only_devices_their_pools_publish() -> None:
    plan = example_plan("aws-eks-dra")
    assert {pool: devices for pool, (_, devices) in pool_devices(plan).items()} == {
        "h100-mig": {"mig.nvidia.com/1g.10gb": 56},
        "l40s": {"gpu.nvidia.com": 1},
    }
    assert claims_made(plan) == [
        ("h100-mig-vectoradd", "h100-mig", "mig", 1, "mig.nvidia.com/1g.10gb"),
        ("l40s-vectoradd", "l40s", "gpu", 1, "gpu.nvidia.com"),
    ]


def test_the_gcp_gke_dra_samples_claim_only_devices_their_pools_publish() -> None:
    plan = example_plan("gcp-gke-dra")
    assert {pool: devices for pool, (_, devices) in pool_devices(plan).items()} == {
        "l4-dra": {"gpu.nvidia.com": 1},
        "l4-plugin": {},  # GKE's device plugin advertises its GPU as nvidia.com/gpu: no DRA device, no claim
    }
    assert claims_made(plan) == [("l4-dra-vectoradd", "l4-dra", "gpu", 1, "gpu.nvidia.com")]


def test_a_claim_for_a_mig_profile_the_pool_lacks_is_caught() -> None:
    devices = {"mig.nvidia.com/1g.10gb": 56}
    request = {
        "name": "mig",
        "exactly": {
            "count": 1,
            "deviceClassName": MIG_DEVICE_CLASS,
            "selectors": [{"cel": {"expression": mig_profile_expression("3g.40gb")}}],
        },
    }
    with pytest.raises(AssertionError, match=r"request mig selects \[\] of the pool's devices"):
        device_of(request, devices)
    request["exactly"]["selectors"] = [{"cel": {"expression": mig_profile_expression("1g.10gb")}}]
    assert device_of(request, devices) == "mig.nvidia.com/1g.10gb"
    with pytest.raises(AssertionError, match=r"request mig selects \[\]"):
        device_of({**request, "exactly": {"count": 1, "deviceClassName": GPU_DEVICE_CLASS}}, devices)
