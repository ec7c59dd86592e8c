"""``NvidiaDevicePlugin``: the NVIDIA device plugin DaemonSet for the GPU pools of one cluster."""

from collections.abc import Mapping
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.enums import CloudArg
from gpu_components.kubernetes.addon import (
    AddOnPools,
    OwnedValue,
    config_map_metadata,
    gpu_stack_problems,
    join_cluster,
    owned_value_problems,
    served_pools,
)
from gpu_components.nvidia.device_plugin import (
    CONFIG_HASH_ANNOTATION,
    DEVICE_PLUGIN_CHART,
    DEVICE_PLUGIN_CHART_VERSION,
    DEVICE_PLUGIN_REPOSITORY,
    device_plugin_chart_version_problems,
    device_plugin_config_map,
    device_plugin_values,
)
from gpu_components.shape import plain
from gpu_components.spec import GpuNodePoolSpec

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
    OwnedValue(
        ("nodeSelector",),
        "the DaemonSet runs on every node of the pools it serves (the library's affinity); a node selector would keep "
        "it off some, whose GPUs nothing would advertise",
        None,
    ),
    OwnedValue(
        ("devicePlugin", "enabled"),
        "the device plugin DaemonSet is what advertises the pools' GPUs; without it the chart installs none and no "
        "pod gets a GPU",
        None,
    ),
    OwnedValue(
        ("migStrategy",),
        "each pool's config entry carries its pool's mig.strategy, which the chart's value would override on every "
        "pool (and the plugin refuses MPS under mixed)",
        None,
    ),
    OwnedValue(
        ("podAnnotations", CONFIG_HASH_ANNOTATION),
        "a digest of the pools' configs: the DaemonSet's pods restart when a pool's config entry changes, which a "
        "fixed value would stop (other podAnnotations are the user's)",
        None,
    ),
)
"""Device plugin chart values the library decides, which ``helm_values`` may not set."""


class NvidiaDevicePluginArgs(TypedDict):
    """Inputs of :class:`NvidiaDevicePlugin` (the fields of every add-on,
    :class:`~gpu_components.kubernetes.addon.GpuAddOnArgs`)."""

    pools: AddOnPools
    """The pools the device plugin serves: at least one, all of one cloud, with unique pool names. Each is a node-pool
    component built for the device plugin (``EksGpuNodeGroup``, ``AksGpuNodePool``; Python only) or the pool as
    plain values, a cluster pool (:class:`~gpu_components.cluster.ClusterPoolArgs`, as a ``GpuCluster`` or stack
    config pool writes it, with its optional ``aws``/``azure`` block) on ``cloud``, taken as built with gpu_stack
    ``device-plugin`` (the same pool as ``auto``); the two may be mixed. Each must be a pool whose GPUs the device
    plugin DaemonSet advertises (not Bottlerocket NVIDIA, not GKE, whose managed plugin does, not built with gpu_stack
    ``gpu-operator``): a pool served by its node image, its cloud or the GPU Operator is an error naming who
    advertises it."""
    cloud: NotRequired[CloudArg]
    """The cloud of the pools given as plain values: ``aws`` or ``azure`` (``gcp`` is valid, but GKE's managed
    plugin advertises every GKE pool's GPUs). Required when any pool is a plain cluster pool, which it decides the
    rules of; it must equal the cloud of the node-pool components given with them. Defaults to none."""
    namespace: NotRequired[str]
    """Namespace to create and install into (a DNS-1123 label). Defaults to ``nvidia-device-plugin``, the one NVIDIA's
    install instructions use."""
    chart_version: NotRequired[str]
    """Version of NVIDIA's ``nvidia-device-plugin`` chart, exact (``0.20.0``; a range such as ``^0.20`` is refused,
    :func:`~gpu_components.nvidia.chart_pin.is_pinned_chart_version`). Defaults to the pinned, tested ``0.20.0``."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw chart values merged over the rendered ones (escape hatch). Defaults to none. ``config``, ``affinity``,
    ``tolerations``, ``nodeSelector`` (the DaemonSet runs on every node of the pools it serves),
    ``devicePlugin.enabled`` (the DaemonSet is what advertises the GPUs), ``migStrategy`` (each pool's config entry
    has its own) and the ``podAnnotations`` entry ``gpu-components/config-hash`` are the library's
    (``DEVICE_PLUGIN_OWNED_VALUES``) and refused, as is a value that is not a mapping above one of them."""


class NvidiaDevicePlugin(pulumi.ComponentResource):
    """Namespace, per-pool config ConfigMap and the ``nvidia-device-plugin`` Helm release.

    Each pool's config is the ConfigMap entry named after the pool; the pool's nodes select it with the label
    ``nvidia.com/device-plugin.config`` (set by the node-pool adapters). The DaemonSet tolerates every pool taint
    and is pinned by node affinity to the pools listed, so it never runs beside another device plugin.

    Children: ``<name>-namespace``, ``<name>-config``, ``<name>-release``. Providers: ``kubernetes``.

    Outputs (known after deployment): ``namespace``, ``config_map_name``, ``release_name``. Other attributes:
    ``release`` (the Helm release), ``specs`` (the served pools), ``configs`` (the ConfigMap's data), ``values`` (the
    chart values), ``tolerations`` (the DaemonSet's).

    Raises:
        GpuSpecError: every problem of the args at once (see
            :func:`~gpu_components.kubernetes.addon.served_pools`), before anything is registered.
    """

    namespace: pulumi.Output[str]
    """Namespace the device plugin runs in."""
    config_map_name: pulumi.Output[str]
    """Name of the ConfigMap of per-pool device plugin configs (``nvidia-device-plugin-configs``)."""
    release_name: pulumi.Output[str]
    """Name of the Helm release (``nvidia-device-plugin``)."""

    def __init__(self, name: str, args: NvidiaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        owned = owned_value_problems(
            DEVICE_PLUGIN_OWNED_VALUES, args.get("helm_values") if isinstance(args, Mapping) else None
        )
        owned += gpu_stack_problems("NvidiaDevicePlugin", name, opts)
        owned += device_plugin_chart_version_problems(
            args.get("chart_version") if isinstance(args, Mapping) else None, "chart_version"
        )
        served, settings = served_pools(name, NvidiaDevicePluginArgs, args, "daemonset", "device-plugin", owned)
        specs = served.specs
        join_cluster("NvidiaDevicePlugin", name, opts)
        super().__init__("gpu-components:index:NvidiaDevicePlugin", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": settings.get("namespace", DEFAULT_NAMESPACE)},
            opts=child,
        )
        self.configs: dict[str, str] = device_plugin_config_map(specs)
        config_map = k8s.core.v1.ConfigMap(
            f"{name}-config",
            metadata=config_map_metadata(CONFIG_MAP_NAME, namespace.metadata.name, specs),
            data=self.configs,
            opts=child,
        )
        self.specs: tuple[GpuNodePoolSpec, ...] = specs
        self.values: dict[str, Any] = device_plugin_values(
            specs, CONFIG_MAP_NAME, settings.get("helm_values"), served.node_taints
        )
        self.tolerations: list[dict[str, str]] = self.values["tolerations"]
        self.release: k8s.helm.v3.Release = k8s.helm.v3.Release(
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
        self.release_name = cast(pulumi.Output[str], self.release.name)  # always set: the library names the release
        self.register_outputs(
            {"namespace": self.namespace, "configMapName": self.config_map_name, "releaseName": self.release_name}
        )
