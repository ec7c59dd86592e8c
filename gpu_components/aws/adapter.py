"""The AWS adapter of the cross-cloud composition: EKS node groups and the example EKS cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pulumi

from gpu_components.adapter import CloudAdapter, DevicePluginHost, GpuStack, PoolView, pool_component_args
from gpu_components.aws import cluster
from gpu_components.aws.eks import (
    EksGpuNodeGroup,
    EksGpuNodeGroupArgs,
    ami_type_for,
    device_plugin_host,
    eks_pool_view,
    eks_problems,
    node_group_args_problems,
)
from gpu_components.aws.facts import FACTS
from gpu_components.aws.options import EksPoolOptionsArgs, EksWiringArgs
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    where = f"{path}.aws" if path else "aws"
    return eks_problems(spec, options.get("ami_type"), path, gpu_stack, f"{where}.ami_type") + node_group_args_problems(
        options.get("node_group_args"), options.get("ami_type"), f"{where}.node_group_args"
    )


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    return device_plugin_host(ami_type_for(spec, options.get("ami_type")), gpu_stack)


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    return eks_pool_view(spec, options.get("ami_type"), gpu_stack)


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> EksGpuNodeGroup:
    return EksGpuNodeGroup(name, cast(EksGpuNodeGroupArgs, pool_component_args(pool, options, wiring, gpu_stack)), opts)


ADAPTER = CloudAdapter(
    cloud="aws",
    pool_options=EksPoolOptionsArgs,
    cluster_config=cluster.EksClusterConfig,
    problems=_problems,
    device_plugin_host=_host,
    create_pool=_create_pool,
    describe_pool=_describe,
    config_problems=cluster.config_problems,
    provision=cluster.provision,
    wiring=EksWiringArgs,
    facts=FACTS,
)
"""EKS: managed node groups with NVIDIA AMIs; the device plugin DaemonSet (or the GPU Operator) except on
Bottlerocket, whose host plugin serves its nodes."""
