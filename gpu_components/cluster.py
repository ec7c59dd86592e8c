"""``GpuCluster``: the GPU pools of one cluster and the Kubernetes add-ons they need, on any cloud.

Every pool is validated (the cloud-neutral rules, then its cloud adapter's) before anything is registered; then
each pool becomes its cloud's node-pool component, and the pools whose nodes need the NVIDIA device plugin
DaemonSet get one :class:`~gpu_components.kubernetes.NvidiaDevicePlugin` holding all their config entries.
Pools whose node image or cloud runs its own device plugin are kept out of the DaemonSet, so no node ever has
two advertisers of ``nvidia.com/gpu``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import CloudAdapter, GpuNodePool
from gpu_components.aws.adapter import ADAPTER as AWS
from gpu_components.aws.adapter import EksPoolOptionsArgs, EksWiringArgs
from gpu_components.azure.adapter import ADAPTER as AZURE
from gpu_components.azure.adapter import AksPoolOptionsArgs, AksWiringArgs
from gpu_components.catalog import Cloud
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp.adapter import ADAPTER as GCP
from gpu_components.gcp.adapter import GkePoolOptionsArgs, GkeWiringArgs
from gpu_components.kubernetes.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_components.shape import STRICT, shape_problems
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, TaintArgs, parse_pools

GpuStack = Literal["auto", "device-plugin"]
"""Who advertises GPUs to Kubernetes. ``auto``: each cloud's and image's own way, and the NVIDIA device plugin
DaemonSet where nothing else runs one; ``device-plugin``: the same, stated explicitly. (The GPU Operator is a
planned third choice.)"""
GPU_STACKS: tuple[GpuStack, ...] = ("auto", "device-plugin")

ADAPTERS: Mapping[str, CloudAdapter] = MappingProxyType({"aws": AWS, "azure": AZURE, "gcp": GCP})
"""Cloud -> its adapter. A cloud without an adapter is rejected with the list of supported clouds."""


@STRICT
class ClusterPoolArgs(GpuNodePoolArgs):
    """A pool of a :class:`GpuCluster`: the cloud-neutral pool plus an optional block for its cloud
    (``aws``: :class:`~gpu_components.aws.adapter.EksPoolOptionsArgs`)."""

    aws: NotRequired[EksPoolOptionsArgs]
    azure: NotRequired[AksPoolOptionsArgs]
    gcp: NotRequired[GkePoolOptionsArgs]


class DevicePluginSettingsArgs(TypedDict):
    """Optional settings of the device plugin add-on: namespace, chart version, raw Helm values."""

    namespace: NotRequired[str]
    chart_version: NotRequired[str]
    helm_values: NotRequired[dict[str, Any]]


class GpuClusterArgs(TypedDict):
    """Inputs of :class:`GpuCluster`.

    Fields:
        cloud: ``aws``.
        pools: the GPU pools (:class:`ClusterPoolArgs`): at least one, names unique.
        aws: EKS wiring (:class:`~gpu_components.aws.adapter.EksWiringArgs`), required when ``cloud`` is ``aws``.
        gpu_stack: see :data:`GpuStack`. Defaults to ``auto``.
        device_plugin: settings of the device plugin add-on. Defaults to the pinned chart in its own namespace.
    """

    cloud: Cloud
    pools: list[ClusterPoolArgs]
    aws: NotRequired[EksWiringArgs]
    azure: NotRequired[AksWiringArgs]
    gcp: NotRequired[GkeWiringArgs]
    gpu_stack: NotRequired[GpuStack]
    device_plugin: NotRequired[DevicePluginSettingsArgs]


def _neutral(pool: Mapping[str, Any]) -> GpuNodePoolArgs:
    return cast(GpuNodePoolArgs, {key: value for key, value in pool.items() if key not in ADAPTERS})


def adapter_for(cloud: str, path: str = "cloud") -> CloudAdapter:
    """The adapter of ``cloud``.

    Raises:
        GpuSpecError: when no adapter exists for ``cloud``.
    """
    adapter = ADAPTERS.get(cloud)
    if adapter is None:
        raise GpuSpecError([Problem(path, cloud, "no node-pool adapter for this cloud", ", ".join(ADAPTERS))])
    return adapter


def validate_cluster(
    cloud: str, pools: Sequence[Mapping[str, Any]], gpu_stack: str = "auto", path: str = ""
) -> tuple[GpuNodePoolSpec, ...]:
    """Validate a cluster's pools for ``cloud``: every problem of every pool, the cloud's rules included, at once.

    Raises:
        GpuSpecError: unsupported cloud or GPU stack, invalid pools, violations of the cloud adapter's rules.
    """
    prefix = f"{path}." if path else ""
    adapter = adapter_for(cloud, f"{prefix}cloud")
    problems: list[Problem] = []
    if gpu_stack not in GPU_STACKS:
        problems.append(Problem(f"{prefix}gpu_stack", gpu_stack, "unknown GPU stack", ", ".join(GPU_STACKS)))
    for index, pool in enumerate(pools):
        problems += shape_problems(ClusterPoolArgs, pool, f"{prefix}pools[{index}]")
        others = sorted(key for key in ADAPTERS if key != cloud and key in pool)
        problems += [
            Problem(
                f"{prefix}pools[{index}].{key}",
                pool[key],
                f"settings for {key}, but the cluster is on {cloud}",
            )
            for key in others
        ]
    if problems:
        raise GpuSpecError(problems)
    def cloud_rules(spec: GpuNodePoolSpec, index: int, where: str) -> list[Problem]:
        return adapter.problems(spec, pools[index].get(cloud, {}), where)

    return parse_pools([_neutral(pool) for pool in pools], adapter.cloud, f"{prefix}pools", cloud_rules)


class GpuCluster(pulumi.ComponentResource):
    """The GPU pools of one cluster and the add-ons they need.

    Children: one node-pool component per pool, named ``<name>-<pool name>`` (``EksGpuNodeGroup`` on AWS), and
    ``<name>-device-plugin`` (:class:`~gpu_components.kubernetes.NvidiaDevicePlugin`) when any pool needs the
    DaemonSet. Providers (``opts.providers``): the cloud's (``aws``) and ``kubernetes``.

    Attributes: ``specs`` (validated pools, in order), ``pools`` (pool name -> node-pool component),
    ``device_plugin`` (``None`` when every pool's image or cloud runs its own plugin).

    Raises:
        GpuSpecError: every problem of every pool and of the wiring, before any resource is registered.
    """

    def __init__(self, name: str, args: GpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        cloud = args["cloud"]
        specs = validate_cluster(cloud, args["pools"], args.get("gpu_stack", "auto"))
        adapter = ADAPTERS[cloud]
        wiring: Mapping[str, Any] | None = cast(Mapping[str, Any], args).get(cloud)
        if wiring is None:
            raise GpuSpecError([Problem(cloud, None, f"the cluster wiring for {cloud} is required")])
        super().__init__("gpu-components:index:GpuCluster", name, None, opts)
        self.specs = specs
        self.pools: dict[str, GpuNodePool] = {}
        served: list[GpuNodePoolArgs] = []
        node_taints: list[TaintArgs] = []
        for pool in args["pools"]:
            neutral = _neutral(pool)
            component = adapter.create_pool(
                f"{name}-{pool['name']}",
                neutral,
                cast(Mapping[str, Any], pool).get(cloud, {}),
                wiring,
                pulumi.ResourceOptions(parent=self),
            )
            self.pools[pool["name"]] = component
            if component.device_plugin_host == "daemonset":
                served.append(neutral)
                node_taints += [
                    {"key": t.key, "value": t.value, "effect": t.effect}
                    for t in component.taints
                    if t not in component.spec.taints
                ]
        self.device_plugin: NvidiaDevicePlugin | None = None
        if served:
            plugin_args: NvidiaDevicePluginArgs = {"cloud": cloud, "pools": served}
            if node_taints:
                plugin_args["node_taints"] = node_taints
            settings = args.get("device_plugin", {})
            if "namespace" in settings:
                plugin_args["namespace"] = settings["namespace"]
            if "chart_version" in settings:
                plugin_args["chart_version"] = settings["chart_version"]
            if "helm_values" in settings:
                plugin_args["helm_values"] = settings["helm_values"]
            self.device_plugin = NvidiaDevicePlugin(
                f"{name}-device-plugin", plugin_args, pulumi.ResourceOptions(parent=self)
            )
        self.register_outputs({"pools": sorted(self.pools)})
