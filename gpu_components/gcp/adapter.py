"""The GCP adapter of the cross-cloud composition: GKE node pools, ComputeClass pools (a pool with ``provisioning``,
:mod:`gpu_components.gcp.compute_class`) and the example GKE cluster."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi

from gpu_components.adapter import CloudAdapter, DevicePluginHost, GpuStack, PoolView, pool_component_args
from gpu_components.errors import Problem
from gpu_components.gcp import cluster
from gpu_components.gcp.autopilot import autopilot_mode
from gpu_components.gcp.compute_class import (
    DEVICE_PLUGIN_HOST,
    GkeComputeClassGpuPool,
    GkeComputeClassGpuPoolArgs,
    compute_class_dra_problems,
    compute_class_pool_view,
    compute_class_problems,
    compute_class_spec_problems,
)
from gpu_components.gcp.facts import CLUSTER_NAME_FORM, FACTS, LOCATION_FORM
from gpu_components.gcp.gke import (
    NODE_POOL_ARGS,
    GkeGpuNodePool,
    GkeGpuNodePoolArgs,
    cluster_problems,
    compute_class_tie_problems,
    device_plugin_host,
    gke_pool_view,
    gke_problems,
    zone_size_problems,
)
from gpu_components.gcp.options import GkePoolOptionsArgs, GkeWiringArgs
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    """A fixed pool's GKE rules and ``node_pool_args``; a ComputeClass pool's rules and ``compute_class_spec``. Each
    kind refuses the other's escape hatch: a ComputeClass pool has no node pool of its own to pass arguments to."""
    where = f"{path}.gcp" if path else "gcp"
    if spec.provisioning is not None:
        problems = compute_class_dra_problems(spec, gpu_stack, path)
        problems += compute_class_problems(spec, options.get("driver_version"), path)
        problems += compute_class_spec_problems(options.get("compute_class_spec"), f"{where}.compute_class_spec")
        if "node_pool_args" in options:
            problems.append(
                Problem(
                    f"{where}.node_pool_args",
                    options["node_pool_args"],
                    "a ComputeClass pool has no node pool of its own: GKE creates its node pools",
                    f"{where}.compute_class_spec (other ComputeClass spec fields)",
                )
            )
        if "compute_class" in options:
            problems.append(
                Problem(
                    f"{where}.compute_class",
                    options["compute_class"],
                    "a ComputeClass pool is its own ComputeClass, named like the pool; compute_class ties a fixed "
                    "pool to one",
                    "no compute_class on a ComputeClass pool",
                )
            )
        return problems
    problems = gke_problems(spec, options.get("driver_version"), path, gpu_stack=gpu_stack)
    problems += NODE_POOL_ARGS.problems(options.get("node_pool_args"), f"{where}.node_pool_args")
    problems += compute_class_tie_problems(spec, options.get("compute_class"), path, f"{where}.compute_class")
    if "compute_class_spec" in options:
        problems.append(
            Problem(
                f"{where}.compute_class_spec",
                options["compute_class_spec"],
                "only a ComputeClass pool (provisioning with provisioner compute-class) has a ComputeClass",
                f"{where}.node_pool_args for a fixed node pool",
            )
        )
    return problems


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    return DEVICE_PLUGIN_HOST if spec.provisioning is not None else device_plugin_host(gpu_stack, spec)


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    if spec.provisioning is not None:
        return compute_class_pool_view(spec, options.get("driver_version"), gpu_stack)
    return gke_pool_view(spec, options.get("driver_version"), gpu_stack, options.get("compute_class"))


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> GkeGpuNodePool | GkeComputeClassGpuPool:
    """A ComputeClass pool for a pool with ``provisioning`` (its wiring: the nodes' service account and zones; a
    ComputeClass lives in the cluster the ``kubernetes`` provider reaches), else a GKE node pool."""
    if "provisioning" in pool:
        args: dict[str, Any] = {"pool": pool, **options, "gpu_stack": gpu_stack}
        args |= {key: wiring[key] for key in ("service_account", "node_locations") if key in wiring}
        return GkeComputeClassGpuPool(name, cast(GkeComputeClassGpuPoolArgs, args), opts)
    return GkeGpuNodePool(name, cast(GkeGpuNodePoolArgs, pool_component_args(pool, options, wiring, gpu_stack)), opts)


def _options_problems(
    specs: Sequence[GpuNodePoolSpec], options: Sequence[Mapping[str, Any]], prefix: str
) -> list[Problem]:
    """A fixed pool's ``gcp.compute_class`` names a ComputeClass pool of the same cluster (the composition makes no
    other class; a class made outside the library is for a :class:`~gpu_components.gcp.GkeGpuNodePool` alone)."""
    classes = [spec.name for spec in specs if spec.provisioning is not None]
    return [
        Problem(
            f"{prefix}pools[{index}].gcp.compute_class",
            given["compute_class"],
            "not a ComputeClass pool of this cluster: a fixed pool serves a ComputeClass the cluster makes",
            ", ".join(classes)
            or "none: the cluster has no ComputeClass pool (provisioning.provisioner: compute-class)",
        )
        for index, (spec, given) in enumerate(zip(specs, options, strict=True))
        if spec.provisioning is None
        and isinstance(given.get("compute_class"), str)
        and given["compute_class"] not in classes
    ]


def _wiring_problems(specs: Sequence[GpuNodePoolSpec], wiring: Mapping[str, Any]) -> list[Problem]:
    """Each fixed pool's ``max_size`` within GKE's nodes per node pool zone over the wiring's ``node_locations``
    (or the one zone of a zonal ``location``; :func:`~gpu_components.gcp.gke.zone_size_problems`); ``cluster`` and
    ``location`` a GKE cluster's name and a region or zone (:func:`~gpu_components.gcp.gke.cluster_problems`);
    ``kubernetes_version`` only with ``autopilot`` (a Standard cluster's pools do not read it)."""
    refused = cluster_problems(wiring, "gcp.")
    if "kubernetes_version" in wiring and wiring.get("autopilot") is not True:
        refused.append(
            Problem(
                "gcp.kubernetes_version",
                wiring["kubernetes_version"],
                "only read on an Autopilot cluster (gcp.autopilot: true); a Standard cluster's pools would ignore it",
                "no kubernetes_version, or autopilot: true",
            )
        )
    return refused + [
        problem
        for index, spec in enumerate(specs)
        if spec.provisioning is None
        for problem in zone_size_problems(
            spec,
            wiring.get("node_locations"),
            f"pools[{index}]",
            "gcp.node_locations",
            wiring.get("location"),
            "gcp.location",
        )
    ]


ADAPTER = CloudAdapter(
    cloud="gcp",
    pool_options=GkePoolOptionsArgs,
    cluster_config=cluster.GkeClusterConfig,
    problems=_problems,
    device_plugin_host=_host,
    create_pool=_create_pool,
    describe_pool=_describe,
    config_problems=cluster.config_problems,
    stack_problems=cluster.stack_problems,
    wiring_pool_problems=_wiring_problems,
    provision=cluster.provision,
    wiring=GkeWiringArgs,
    facts=FACTS,
    cluster_forms={"name": CLUSTER_NAME_FORM, "location": LOCATION_FORM},
    options_problems=_options_problems,
    workload_only=autopilot_mode,
)
"""GKE: Standard node pools whose driver and device plugin GKE manages and sharing is a node-pool setting, or, under
the GPU Operator, whose driver, device plugin, sharing and MIG the operator manages; and ComputeClasses whose node
pools GKE creates, with GKE's driver, device plugin and sharing."""
