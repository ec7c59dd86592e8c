"""The Azure adapter of the cross-cloud composition: AKS agent pools, Node Auto Provisioning pools and the example AKS
cluster."""

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
    names_problems,
    os_sku_problems,
)
from gpu_components.azure.facts import CLUSTER_NAME_FORM, FACTS, LOCATION_FORM, RESOURCE_GROUP_FORM
from gpu_components.azure.nap import (
    AksNapGpuNodePool,
    AksNapGpuNodePoolArgs,
    nap_device_plugin_host,
    nap_pool_view,
    nap_problems,
)
from gpu_components.azure.options import AksPoolOptionsArgs, AksWiringArgs
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    where = f"{path}.azure" if path else "azure"
    if spec.provisioning is not None:
        return nap_problems(
            spec, options.get("gpu_driver"), options.get("node_class_spec"), path, where, gpu_stack
        ) + _refused(options, "agent_pool_args", where, "an AKS agent pool's arguments", NAP_POOL, "node_class_spec")
    return (
        aks_problems(spec, options.get("gpu_driver"), path, f"{where}.gpu_driver", gpu_stack)
        + AGENT_POOL_ARGS.problems(options.get("agent_pool_args"), f"{where}.agent_pool_args")
        + os_sku_problems(spec, options.get("agent_pool_args"), f"{where}.agent_pool_args")
        + _refused(
            options, "node_class_spec", where, "a Node Auto Provisioning node class", FIXED_POOL, "agent_pool_args"
        )
    )


NAP_POOL = "a Node Auto Provisioning pool"
FIXED_POOL = "a fixed pool (an agent pool)"


def _refused(options: Mapping[str, Any], key: str, where: str, what: str, kind: str, instead: str) -> list[Problem]:
    """``key`` (``what``) in a pool's ``azure`` block where the pool's ``kind`` has no use for it."""
    if key not in options:
        return []
    return [Problem(f"{where}.{key}", options[key], f"{what}; the pool is {kind}", instead)]


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    if spec.provisioning is not None:
        return nap_device_plugin_host(spec, gpu_stack, options.get("node_class_spec"))
    return device_plugin_host(spec, gpu_stack)


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    if spec.provisioning is not None:
        return nap_pool_view(spec, options.get("gpu_driver"), gpu_stack, options.get("node_class_spec"))
    return aks_pool_view(spec, options.get("gpu_driver"), gpu_stack, options.get("agent_pool_args", {}).get("os_sku"))


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> AksGpuNodePool | AksNapGpuNodePool:
    if "provisioning" in pool:
        # NAP pools are Kubernetes objects: no resource group or cluster name, the kubernetes provider in opts.
        nap_args = pool_component_args(pool, options, {}, gpu_stack)
        return AksNapGpuNodePool(name, cast(AksNapGpuNodePoolArgs, nap_args), opts)
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
    cluster_forms={"name": CLUSTER_NAME_FORM, "resource_group_name": RESOURCE_GROUP_FORM, "location": LOCATION_FORM},
    stack_problems=cluster.stack_problems,
    pools_problems=cluster.pool_mix_problems,
    wiring_pool_problems=lambda specs, wiring: names_problems(wiring, "azure."),
    default_kubernetes_version=cluster.DEFAULT_KUBERNETES_VERSION,
)
"""AKS: user agent pools (fixed pools) or Node Auto Provisioning NodePools (provisioned pools), with the AKS-installed
NVIDIA driver (or, under the GPU Operator, optionally the operator's); the device plugin DaemonSet or the GPU Operator
on every pool."""
