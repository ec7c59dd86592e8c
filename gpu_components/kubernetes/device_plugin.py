"""``NvidiaDevicePlugin``: the NVIDIA device plugin DaemonSet for the GPU pools of one cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_components.kubernetes.addon import (
    GpuAddOnArgs,
    OwnedValue,
    config_map_metadata,
    owned_value_problems,
    served_pools,
)
from gpu_components.nvidia.device_plugin import (
    DEVICE_PLUGIN_CHART,
    DEVICE_PLUGIN_CHART_VERSION,
    DEVICE_PLUGIN_REPOSITORY,
    device_plugin_config_map,
    device_plugin_values,
)

DEFAULT_NAMESPACE = "nvidia-device-plugin"
"""Namespace of the device plugin, the one NVIDIA's install instructions use."""
CONFIG_MAP_NAME = "nvidia-device-plugin-configs"
"""Name of the ConfigMap holding the per-pool config entries (fixed, so the chart can refer to it)."""
RELEASE_NAME = "nvidia-device-plugin"
"""Helm release name."""


DEVICE_PLUGIN_OWNED_VALUES: tuple[OwnedValue, ...] = (
    OwnedValue(("config",), "each pool selects its rendered config entry from the library's ConfigMap", None),
    OwnedValue(("affinity",), "the DaemonSet runs only on the pools it serves, never beside another plugin", None),
    OwnedValue(("tolerations",), "the DaemonSet tolerates every taint of the pools it serves", None),
)
"""Device plugin chart values the library decides, which ``helm_values`` may not set."""


class NvidiaDevicePluginArgs(GpuAddOnArgs):
    """Inputs of :class:`NvidiaDevicePlugin`: those of :class:`~gpu_components.kubernetes.addon.GpuAddOnArgs`.

    ``pools``: node-pool components built for the device plugin (``device_plugin_host`` ``daemonset``: gpu_stack
    ``auto`` or ``device-plugin``, not Bottlerocket NVIDIA, not GKE-managed), or descriptions of such pools
    (:class:`~gpu_components.kubernetes.addon.AddOnPoolArgs`, ``gpu_stack`` ``auto`` or ``device-plugin``).
    ``namespace`` defaults to ``nvidia-device-plugin``; ``chart_version`` to the pinned, tested ``0.20.0``.
    """


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """Namespace, per-pool config ConfigMap and the ``nvidia-device-plugin`` Helm release.

    Each pool's config is the ConfigMap entry named after the pool; the pool's nodes select it with the label
    ``nvidia.com/device-plugin.config`` (set by the node-pool adapters). The DaemonSet tolerates every pool taint
    and is pinned by node affinity to the pools listed, so it never runs beside another device plugin.

    Children: ``<name>-namespace``, ``<name>-config``, ``<name>-release``. Providers: ``kubernetes``.

    Attributes: ``release`` (the Helm release), ``namespace`` and ``config_map_name`` (outputs), ``specs`` (the
    served pools), ``configs`` (the ConfigMap's data), ``values`` (the chart values), ``tolerations`` (the
    DaemonSet's).

    Raises:
        GpuSpecError: every problem of the args at once (see
            :func:`~gpu_components.kubernetes.addon.served_pools`), before anything is registered.
    """

    namespace: pulumi.Output[str]
    config_map_name: pulumi.Output[str]
    configs: dict[str, str]
    values: dict[str, Any]

    def __init__(self, name: str, args: NvidiaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        owned = owned_value_problems(
            DEVICE_PLUGIN_OWNED_VALUES, args.get("helm_values") if isinstance(args, Mapping) else None
        )
        served, settings = served_pools(name, NvidiaDevicePluginArgs, args, "daemonset", owned)
        specs = served.specs
        super().__init__("gpu-components:index:NvidiaDevicePlugin", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": settings.get("namespace", DEFAULT_NAMESPACE)},
            opts=child,
        )
        self.configs = device_plugin_config_map(specs)
        config_map = k8s.core.v1.ConfigMap(
            f"{name}-config",
            metadata=config_map_metadata(CONFIG_MAP_NAME, namespace.metadata.name, specs),
            data=self.configs,
            opts=child,
        )
        self.specs = specs
        self.values = device_plugin_values(specs, CONFIG_MAP_NAME, settings.get("helm_values"), served.node_taints)
        self.tolerations: list[dict[str, str]] = self.values["tolerations"]
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=DEVICE_PLUGIN_CHART,
            version=settings.get("chart_version", DEVICE_PLUGIN_CHART_VERSION),
            repository_opts={"repo": DEVICE_PLUGIN_REPOSITORY},
            namespace=namespace.metadata.name,
            values=self.values,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[config_map]),
        )
        self.namespace = namespace.metadata.name
        self.config_map_name = config_map.metadata.name
        self.register_outputs(
            {"namespace": self.namespace, "configMapName": self.config_map_name, "releaseName": self.release.name}
        )
