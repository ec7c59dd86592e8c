"""Sample GPU Jobs: NVIDIA's CUDA vector-add sample rendered for a pool, and one registered per pool of a cluster.

:func:`vector_add_job` renders the sample ``Job`` manifest for one pool (its pod settings from
:func:`~gpu_components.workloads.pod_settings`, or on a DRA pool a resource claim template from
:mod:`gpu_components.claims`), and :func:`sample_jobs` registers one per pool of a cluster, as the example program
does. Built on the pod-side helpers and the claim helpers, above both (README, "Layout").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pulumi
import pulumi_kubernetes as k8s

from gpu_components import claims
from gpu_components.adapter import GpuNodePool
from gpu_components.claims import DraPodSettings
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.workloads import GpuPodSettings, gpu_pod_settings

SOURCE_VECTOR_ADD = (
    "https://docs.nvidia.com/datacenter/cloud-native/confidential-containers/latest/run-sample-workload.html"
)
"""NVIDIA's sample workload page that uses :data:`VECTOR_ADD_IMAGE`."""
VECTOR_ADD_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0-ubuntu22.04"
"""NVIDIA's CUDA vector-add sample image (tag as in NVIDIA's sample-workload docs); it prints ``Test PASSED``."""
VECTOR_ADD_NAMESPACE = "default"
"""Namespace of the sample Jobs unless another is given."""
VECTOR_ADD_BACKOFF_LIMIT = 2
"""Retries of a sample Job's pod before the Job fails."""
SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait"
"""pulumi-kubernetes annotation: do not wait for the Job to complete. Sample Jobs set it because their pools may
scale from zero, and ``pulumi up`` should not block on the autoscaler and a spot market."""


class GpuPools(Protocol):
    """Anything holding node-pool components by pool name, such as :class:`~gpu_components.cluster.GpuCluster`."""

    @property
    def pools(self) -> Mapping[str, GpuNodePool]: ...


def vector_add_manifest(
    settings: GpuPodSettings, name: str, namespace: str = VECTOR_ADD_NAMESPACE, labels: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A ``batch/v1`` Job running NVIDIA's CUDA vector-add sample (:data:`VECTOR_ADD_IMAGE`) with ``settings``.

    The pod never restarts in place (``restartPolicy: Never``) and is retried :data:`VECTOR_ADD_BACKOFF_LIMIT`
    times; the Job carries :data:`SKIP_AWAIT_ANNOTATION`.
    """
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [{"name": "vectoradd", "image": VECTOR_ADD_IMAGE, "resources": settings["resources"]}],
        "tolerations": settings["tolerations"],
        "nodeSelector": settings["nodeSelector"],
    }
    if settings.get("hostIPC"):
        pod_spec["hostIPC"] = True
    if "affinity" in settings:
        pod_spec["affinity"] = settings["affinity"]
    return _vector_add_job(
        pod_spec, settings.get("annotations"), name, namespace, {**settings.get("labels", {}), **(labels or {})}
    )


def dra_vector_add_manifest(
    settings: DraPodSettings,
    name: str,
    namespace: str = VECTOR_ADD_NAMESPACE,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """:func:`vector_add_manifest` for a DRA pool: the pod gets its device through ``settings``' resource claims
    (:func:`~gpu_components.claims.claim_pod_settings`: pod ``resourceClaims``, container ``resources.claims``),
    with no ``nvidia.com/gpu`` limit."""
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [{"name": "vectoradd", "image": VECTOR_ADD_IMAGE, "resources": {"claims": settings["claims"]}}],
        "resourceClaims": settings["resourceClaims"],
        "tolerations": settings["tolerations"],
        "nodeSelector": settings["nodeSelector"],
    }
    return _vector_add_job(pod_spec, None, name, namespace, labels)


def _vector_add_job(
    pod_spec: dict[str, Any],
    annotations: Mapping[str, str] | None,
    name: str,
    namespace: str,
    labels: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The vector-add Job around ``pod_spec`` (labels, pod annotations, backoff limit, skip-await annotation)."""
    pod_labels = {"app.kubernetes.io/name": "cuda-vectoradd", **(labels or {})}
    template_metadata: dict[str, Any] = {"labels": pod_labels}
    if annotations is not None:
        template_metadata["annotations"] = dict(annotations)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": dict(pod_labels),
            "annotations": {SKIP_AWAIT_ANNOTATION: "true"},
        },
        "spec": {
            "backoffLimit": VECTOR_ADD_BACKOFF_LIMIT,
            "template": {"metadata": template_metadata, "spec": pod_spec},
        },
    }


def vector_add_claim_template(
    pool: GpuNodePool, *, name: str | None = None, namespace: str = VECTOR_ADD_NAMESPACE
) -> dict[str, Any]:
    """The ``ResourceClaimTemplate`` of a DRA pool's vector-add Job: one whole GPU
    (:func:`~gpu_components.claims.gpu_claim_template`) or, on a MIG pool, one MIG device of the first profile of
    its layout (:func:`~gpu_components.claims.mig_claim_template`).

    Args:
        pool: a node-pool component whose ``device_plugin_host`` is ``dra-driver``.
        name: Defaults to ``<pool name>-vectoradd``, the Job's name.
        namespace: Defaults to :data:`VECTOR_ADD_NAMESPACE`.

    Raises:
        GpuSpecError: see :func:`~gpu_components.claims.gpu_claim_template` (a pool not served by the DRA driver).
    """
    name = name or f"{pool.spec.name}-vectoradd"
    if pool.spec.mig is not None:
        return claims.mig_claim_template(pool, name, next(iter(pool.spec.mig.devices)), namespace=namespace)
    return claims.gpu_claim_template(pool, name, namespace=namespace)


def vector_add_job(
    pool: GpuNodePool,
    *,
    name: str | None = None,
    namespace: str = VECTOR_ADD_NAMESPACE,
    resource: str | None = None,
    mig_profile: str | None = None,
) -> dict[str, Any]:
    """The CUDA vector-add Job manifest (plain dict) that runs on one GPU of ``pool``.

    On a DRA pool (``device_plugin_host`` ``dra-driver``) the pod claims its device through the resource claim
    template of :func:`vector_add_claim_template` (same name and namespace), which must be created with the Job.

    Args:
        pool: a node-pool component.
        name: the Job's name. Defaults to ``<pool name>-vectoradd``.
        namespace: Defaults to :data:`VECTOR_ADD_NAMESPACE`.
        resource, mig_profile: which resource on a pool advertising several. Defaults to the first advertised
            name in sorted order (a sample needs one device, whichever it is). Not for a DRA pool.

    Raises:
        GpuSpecError: see :func:`pod_settings` (:func:`vector_add_claim_template` on a DRA pool; ``resource`` or
            ``mig_profile`` given for a DRA pool).
    """
    job_name = name or f"{pool.spec.name}-vectoradd"
    labels = {"gpu-components/sample-for": pool.spec.name}
    if pool.device_plugin_host == "dra-driver":
        given = [(field, value) for field, value in (("resource", resource), ("mig_profile", mig_profile)) if value]
        if given:
            raise GpuSpecError(
                [
                    Problem(
                        field,
                        value,
                        f"pool {pool.spec.name} is a DRA pool: its sample claims one GPU or one MIG device of its "
                        "first profile through a resource claim template",
                        "None",
                    )
                    for field, value in given
                ]
            )
        template = vector_add_claim_template(pool, name=job_name, namespace=namespace)
        return dra_vector_add_manifest(claims.claim_pod_settings(pool, [template]), job_name, namespace, labels)
    if resource is None and mig_profile is None and pool.advertised_resources:
        resource = sorted(pool.advertised_resources)[0]
    settings = gpu_pod_settings(pool, 1, resource=resource, mig_profile=mig_profile)
    return vector_add_manifest(settings, job_name, namespace, labels)


def sample_jobs(cluster: GpuPools, opts: pulumi.ResourceOptions | None = None) -> dict[str, k8s.batch.v1.Job]:
    """Register one CUDA vector-add ``k8s.batch.v1.Job`` per pool of ``cluster``, named ``<pool>-vectoradd``; for a
    DRA pool, also its ``k8s.resource.v1.ResourceClaimTemplate`` of the same name (:func:`vector_add_claim_template`),
    which the Job depends on.

    Args:
        cluster: a :class:`~gpu_components.cluster.GpuCluster` (anything with ``pools``).
        opts: options of every Job: the ``kubernetes`` provider, and ``depends_on`` the cluster so the device
            plugin is in place first. Pulumi names (and Kubernetes names) are ``<pool>-vectoradd``, so they are
            unique only per program: use one cluster's pools per program, or different namespaces.

    Returns:
        pool name -> Job, in the order of ``cluster.pools``.
    """
    jobs: dict[str, k8s.batch.v1.Job] = {}
    for pool_name, pool in cluster.pools.items():
        name = f"{pool_name}-vectoradd"
        manifest = vector_add_job(pool, name=name)
        job_opts = opts
        if pool.device_plugin_host == "dra-driver":
            claim = vector_add_claim_template(pool, name=name)
            template = k8s.resource.v1.ResourceClaimTemplate(
                name, metadata=claim["metadata"], spec=claim["spec"], opts=opts
            )
            job_opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[template]))
        jobs[pool_name] = k8s.batch.v1.Job(name, metadata=manifest["metadata"], spec=manifest["spec"], opts=job_opts)
    return jobs
