"""The Azure adapter of the cross-cloud composition: AKS agent pools and the example AKS cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pulumi

from gpu_components.adapter import CloudAdapter, DevicePluginHost, GpuStack, PoolView, pool_component_args
from gpu_components.azure import cluster
from gpu_components.azure.aks import (
    AGENT_POOL_ARGS,
    AksGpuNodePool,
    AksGpuNodePoolArgs,
    aks_pool_view,
    aks_problems,
    device_plugin_host,
)
from gpu_components.azure.facts import FACTS
from gpu_components.azure.options import AksPoolOptionsArgs, AksWiringArgs
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    where = f"{path}.azure" if path else "azure"
    return aks_problems(spec, options.get("gpu_driver"), path, f"{where}.gpu_driver", gpu_stack) + (
        AGENT_POOL_ARGS.problems(options.get("agent_pool_args"), f"{where}.agent_pool_args")
    )


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    return device_plugin_host(spec, gpu_stack)


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    return aks_pool_view(spec, options.get("gpu_driver"), gpu_stack)


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> AksGpuNodePool:
    return AksGpuNodePool(name, cast(AksGpuNodePoolArgs, pool_component_args(pool, options, wiring, gpu_stack)), opts)


ADAPTER = CloudAdapter(
    cloud="azure",
    pool_options=AksPoolOptionsArgs,
    cluster_config=cluster.AksClusterConfig,
    problems=_problems,
    device_plugin_host=_host,
    create_pool=_create_pool,
    describe_pool=_describe,
    config_problems=cluster.config_problems,
    provision=cluster.provision,
    wiring=AksWiringArgs,
    facts=FACTS,
)
"""AKS: user agent pools with the AKS-installed NVIDIA driver (or, under the GPU Operator, optionally the
operator's); the device plugin DaemonSet or the GPU Operator on every pool."""
