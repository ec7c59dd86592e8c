"""kube-apiserver (``k8s.io/kubernetes`` v1.36.3) validates every Kubernetes object of every plan for real.

Each example stack's objects are server-side applied for real on a fresh control plane (one per stack: their objects
share names), the generated variants' objects with ``dryRun=All`` on one control plane per cloud (CRDs and
namespaces applied for real first); OpenAPI schemas, CRD structural schemas and CEL rules, and admission run as
for ``pulumi up``. Upstream behaviour: ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`` (apply
patch), ``staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/validation`` (CRD schemas and CEL),
``pkg/apis/core/validation/validation.go`` (pods, e.g. extended resources).
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from gpu_components.claims import gpu_claim_template, mig_claim_template, shared_gpu_claim
from tests.oracles.conftest import Report
from tests.oracles.kube import ApiError, PlanObjects, control_plane, describe, kube_binaries, plan_objects
from tests.oracles.kube_placement import example_runs
from tests.oracles.plans import example_plans, variant_of, variant_plans
from tests.test_claims import HOPPER, h100_mig, l40s

ORACLE = "kube-apiserver"


@pytest.fixture(scope="session")
def kube_bins() -> dict[str, Path]:
    return kube_binaries()


def test_example_plans_apply_for_real(kube_bins: dict[str, Path], oracle_report: Report) -> None:
    runs = example_runs(kube_bins)
    applied = sum(run.applied for run in runs.values())
    refused = {stack: run.refused for stack, run in runs.items() if run.refused}
    oracle_report(ORACLE, applied, sum(len(r) for r in refused.values()))
    assert refused == {}
    assert set(runs) == set(example_plans())
    assert applied >= 240, applied


def test_variant_plans_dry_run(kube_bins: dict[str, Path], oracle_report: Report) -> None:
    by_cloud: dict[str, list[str]] = {}
    for name in variant_plans():
        by_cloud.setdefault(variant_of(name).cloud, []).append(name)
    checked = 0
    refused: list[str] = []
    for cloud, names in sorted(by_cloud.items()):
        with control_plane(kube_bins, cloud) as plane, ThreadPoolExecutor(4) as pool:
            crds: set[str] = set()
            namespaces: set[str] = set()
            for name in names:
                found = plan_objects(variant_plans()[name])
                new = [c for c in found.crds if c["metadata"]["name"] not in crds]
                plane.install_crds(new)
                crds.update(c["metadata"]["name"] for c in new)
                checked += len(found.crds)
                for obj in found.rest:  # namespaces for real (the dry-run objects need them), once
                    if obj["kind"] == "Namespace" and obj["metadata"]["name"] not in namespaces:
                        plane.apply(obj)
                        namespaces.add(obj["metadata"]["name"])

                def dry_run(obj: dict[str, Any], found: PlanObjects = found, name: str = name) -> str | None:
                    try:
                        plane.send(obj, found.by_helm(obj), dry_run=True)
                    except ApiError as error:
                        return f"{name}: {describe(obj)}: {error.message}"
                    return None

                results = list(pool.map(dry_run, found.rest))
                checked += sum(1 for r in results if r is None)
                refused += [r for r in results if r is not None]
    oracle_report(ORACLE, checked, len(refused))
    assert refused == []
    assert len(variant_plans()) >= 600
    assert checked >= 16000, checked


def _karpenter_nodepool() -> dict[str, Any]:
    plan = example_plans()["aws-eks-karpenter"]
    resource = next(r for r in plan["resources"] if r["type"] == "kubernetes:karpenter.sh/v1:NodePool")
    return copy.deepcopy(resource["inputs"])


def _job(stack: str) -> dict[str, Any]:
    plan = example_plans()[stack]
    return copy.deepcopy(next(r for r in plan["resources"] if r["type"] == "kubernetes:batch/v1:Job")["inputs"])


def test_refuses_what_the_real_api_refuses(kube_bins: dict[str, Path], oracle_report: Report) -> None:
    """The oracle can fail: the cloud API's taint spelling in a Karpenter NodePool (the CRD's OpenAPI enum), a
    template label in Karpenter's own domain (the CRD's CEL rule), and a GPU request above its limit in a Job (core
    validation of extended resources)."""
    pool = _karpenter_nodepool()
    pool["spec"]["template"]["spec"]["taints"][0]["effect"] = "NO_SCHEDULE"
    labelled = _karpenter_nodepool()
    labelled["spec"]["template"]["metadata"]["labels"]["karpenter.sh/gpu-pool"] = "h100-mig"
    job = _job("aws-eks")
    container = job["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["requests"] = {"nvidia.com/gpu": "2"}
    with control_plane(kube_bins, "aws") as plane:
        with pytest.raises(ApiError) as taint:
            plane.apply(pool, dry_run=True)
        with pytest.raises(ApiError) as cel:
            plane.apply(labelled, dry_run=True)
        with pytest.raises(ApiError) as gpu:
            plane.apply(job, dry_run=True)
        plane.apply(_karpenter_nodepool(), dry_run=True)  # the plan's own object passes
    assert 'spec.template.spec.taints[0].effect: Unsupported value: "NO_SCHEDULE"' in taint.value.message
    assert 'label domain "karpenter.sh" is restricted' in cel.value.message
    assert "must be equal to nvidia.com/gpu limit" in gpu.value.message
    oracle_report(ORACLE, 4, 0)


def test_custom_claim_selectors_compile_in_the_real_api(kube_bins: dict[str, Path], oracle_report: Report) -> None:
    """The claim helpers' custom CEL selectors (checked by ``gpu_components.cel``) compile in kube-apiserver's own CEL
    environment for DRA selectors; the same claim with an expression that does not parse is refused (the oracle can
    fail)."""
    parent = "device.attributes['gpu.nvidia.com'].parentUUID != ''"
    memory = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    claims = [
        gpu_claim_template(l40s(), "custom-gpu", min_gpu_memory_gb=40, selectors=[HOPPER, memory]),
        mig_claim_template(h100_mig(), "custom-mig", "1g.10gb", selectors=[parent]),
        shared_gpu_claim(l40s(), "custom-shared", selectors=["device.driver == 'gpu.nvidia.com'"]),
    ]
    broken = copy.deepcopy(claims[0])
    broken["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"].append(
        {"cel": {"expression": "device.attributes['gpu.nvidia.com'].productName =="}}
    )
    with control_plane(kube_bins) as plane:
        namespaces = {claim["metadata"].get("namespace", "default") for claim in claims}
        for namespace in sorted(namespaces - {"default"}):
            plane.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
        for claim in claims:
            plane.apply(claim, dry_run=True)
        with pytest.raises(ApiError) as refused:
            plane.apply(broken, dry_run=True)
    assert "compilation failed" in refused.value.message
    oracle_report(ORACLE, len(claims) + 1, 0)
