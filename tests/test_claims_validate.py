"""Every DRA manifest the claim helpers and the DRA sample Job render validates strictly with kubernetes-validate for
each Kubernetes version >= 1.34 (DRA's ``resource.k8s.io/v1`` is GA from 1.34) it ships schemas for; the sample Job
of a DRA pool registers its ResourceClaimTemplate under the plan's mocks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import kubernetes_validate
import pulumi
import pytest
from kubernetes_validate.utils import all_versions
from packaging.version import Version

from gpu_components.adapter import GpuNodePool
from gpu_components.claims import (
    claim_pod_settings,
    gpu_claim_template,
    mig_claim_template,
    mps_claim_template,
    shared_gpu_claim,
)
from gpu_components.samples import VECTOR_ADD_IMAGE, sample_jobs, vector_add_claim_template, vector_add_job
from tests.helpers import names, plan_of, resource
from tests.test_claims import h100_mig, karpenter, l40s

DRA_VERSIONS = sorted({v for v in all_versions() if Version(v) >= Version("1.34")}, key=Version)
"""Every Kubernetes version kubernetes-validate ships schemas for from 1.34 on."""


def test_kubernetes_validate_ships_dra_versions() -> None:
    assert DRA_VERSIONS[:4] == ["1.34.0", "1.35.0", "1.36.0", "1.37.0"]


def pod(settings: Mapping[str, Any], containers: int = 1) -> dict[str, Any]:
    """A Pod using ``settings`` of :func:`claim_pod_settings`, its claims in ``containers`` containers."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "trainer", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": f"ctr{index}", "image": VECTOR_ADD_IMAGE, "resources": {"claims": settings["claims"]}}
                for index in range(containers)
            ],
            "resourceClaims": settings["resourceClaims"],
            "tolerations": settings["tolerations"],
            "nodeSelector": settings["nodeSelector"],
        },
    }


def manifests() -> list[dict[str, Any]]:
    """One of every manifest shape the DRA helpers render."""
    whole, mig, mixed = l40s(), h100_mig(), karpenter()
    rendered = [
        gpu_claim_template(whole, "two", gpus=2),
        gpu_claim_template(mixed, "a100", gpus=8, gpu_model="A100-40GB", min_gpu_memory_gb=40),
        mig_claim_template(mig, "mig", "1g.10gb", devices=7),
        shared_gpu_claim(whole, "shared"),
        shared_gpu_claim(whole, "sliced", time_slice_interval="Medium", feature_gates=["TimeSlicingSettings"]),
        shared_gpu_claim(mig, "shared-mig", mig_profile="1g.10gb"),
        mps_claim_template(
            whole,
            "mps",
            feature_gates=["MPSSupport"],
            default_active_thread_percentage=25,
            default_pinned_device_memory_limit="8Gi",
        ),
        mps_claim_template(mig, "mig-mps", feature_gates=["MPSSupport"], mig_profile="1g.10gb"),
        vector_add_claim_template(whole),
        vector_add_claim_template(mig),
        vector_add_job(whole),
        vector_add_job(mig),
    ]
    rendered.append(pod(claim_pod_settings(whole, [rendered[0], rendered[3], rendered[4]]), containers=2))
    rendered.append(pod(claim_pod_settings(mig, [rendered[2], rendered[5], rendered[7]])))
    return rendered


@pytest.mark.parametrize("version", DRA_VERSIONS)
def test_every_dra_manifest_validates_strictly(version: str) -> None:
    rendered = manifests()
    assert [item["kind"] for item in rendered] == [
        *["ResourceClaimTemplate"] * 3,
        *["ResourceClaim"] * 3,
        *["ResourceClaimTemplate"] * 4,
        "Job",
        "Job",
        "Pod",
        "Pod",
    ]
    for item in rendered:
        kubernetes_validate.validate(item, version, strict=True)


@pytest.mark.parametrize("version", DRA_VERSIONS)
def test_a_bad_claim_fails_strict_validation(version: str) -> None:
    manifest = gpu_claim_template(l40s(), "gpu")
    manifest["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClass"] = "gpu.nvidia.com"  # misspelt
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(manifest, version, strict=True)


def test_resource_claims_are_not_in_kubernetes_1_33() -> None:
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        kubernetes_validate.validate(shared_gpu_claim(l40s(), "shared"), "1.33.0", strict=True)


@dataclass
class FakeCluster:
    pools: Mapping[str, GpuNodePool]


def test_sample_jobs_register_the_claim_template_of_a_dra_pool_first() -> None:
    cluster = FakeCluster({"l40s": l40s(), "h100": h100_mig()})
    plan = plan_of(lambda: sample_jobs(cluster, pulumi.ResourceOptions()))
    assert names(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate") == ["h100-vectoradd", "l40s-vectoradd"]
    assert names(plan, "kubernetes:batch/v1:Job") == ["h100-vectoradd", "l40s-vectoradd"]
    claim = resource(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate", "h100-vectoradd")
    assert {key: claim.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")} == vector_add_claim_template(
        h100_mig()
    )
    job = resource(plan, "kubernetes:batch/v1:Job", "h100-vectoradd")
    assert {key: job.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")} == vector_add_job(h100_mig())
    assert job.options["dependsOn"] == [claim.urn]
