"""The GCP adapter of the cross-cloud composition: GKE node pools and the example GKE cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pulumi

from gpu_components.adapter import CloudAdapter, DevicePluginHost, GpuStack, PoolView, pool_component_args
from gpu_components.errors import Problem
from gpu_components.gcp import cluster
from gpu_components.gcp.facts import FACTS
from gpu_components.gcp.gke import (
    NODE_POOL_ARGS,
    GkeGpuNodePool,
    GkeGpuNodePoolArgs,
    device_plugin_host,
    gke_pool_view,
    gke_problems,
)
from gpu_components.gcp.options import GkePoolOptionsArgs, GkeWiringArgs
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    where = f"{path}.gcp" if path else "gcp"
    return gke_problems(spec, options.get("driver_version"), path, gpu_stack=gpu_stack) + NODE_POOL_ARGS.problems(
        options.get("node_pool_args"), f"{where}.node_pool_args"
    )


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    return device_plugin_host(gpu_stack)


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    return gke_pool_view(spec, options.get("driver_version"), gpu_stack)


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> GkeGpuNodePool:
    return GkeGpuNodePool(name, cast(GkeGpuNodePoolArgs, pool_component_args(pool, options, wiring, gpu_stack)), opts)


ADAPTER = CloudAdapter(
    cloud="gcp",
    pool_options=GkePoolOptionsArgs,
    cluster_config=cluster.GkeClusterConfig,
    problems=_problems,
    device_plugin_host=_host,
    create_pool=_create_pool,
    describe_pool=_describe,
    config_problems=cluster.config_problems,
    provision=cluster.provision,
    wiring=GkeWiringArgs,
    facts=FACTS,
)
"""GKE: Standard node pools whose driver and device plugin GKE manages and sharing is a node-pool setting, or, under
the GPU Operator, whose driver, device plugin, sharing and MIG the operator manages."""
