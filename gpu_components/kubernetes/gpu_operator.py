"""``NvidiaGpuOperator``: the NVIDIA GPU Operator for the GPU pools of one cluster."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired

from gpu_components.cloud_facts import facts_for
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes.addon import (
    GpuAddOnArgs,
    OwnedValue,
    config_map_metadata,
    owned_value_problems,
    served_pools,
)
from gpu_components.nvidia.device_plugin import device_plugin_config_map
from gpu_components.nvidia.gpu_operator import (
    GPU_OPERATOR_CHART,
    GPU_OPERATOR_CHART_VERSION,
    GPU_OPERATOR_REPOSITORY,
    default_operator_driver,
    driver_owner_problems,
    gpu_operator_problems,
    gpu_operator_values,
)
from gpu_components.nvidia.mig import mig_config_map

DEFAULT_NAMESPACE = "gpu-operator"
"""Namespace of the operator, the one NVIDIA's install instructions use."""
DEVICE_PLUGIN_CONFIG_MAP_NAME = "gpu-operator-device-plugin-configs"
"""Name of the ConfigMap of per-pool device plugin configs (fixed, so the chart values can refer to it)."""
MIG_CONFIG_MAP_NAME = "gpu-operator-mig-parted-config"
"""Name of the ConfigMap holding the mig-parted config under ``config.yaml`` (fixed, for the chart values)."""
RELEASE_NAME = "gpu-operator"
"""Helm release name."""
RESOURCE_QUOTA_NAME = "gpu-operator-quota"
"""Name of the ResourceQuota a cloud needs in the operator's namespace
(:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.resource_quota`; GKE admits the operands'
``system-node-critical`` pods only under one, NVIDIA's GKE guide)."""
PRIVILEGED_NAMESPACE_LABELS: Mapping[str, str] = MappingProxyType({"pod-security.kubernetes.io/enforce": "privileged"})
"""Namespace labels that let Pod Security Admission run the operands, which are privileged (NVIDIA's
getting-started prerequisites)."""


OPERATOR_OWNED_VALUES: tuple[OwnedValue, ...] = (
    OwnedValue(("driver", "enabled"), "one driver owner per pool: set operator_driver", "operator_driver"),
    OwnedValue(("toolkit", "enabled"), "the toolkit goes with the driver: set operator_driver", "operator_driver"),
    OwnedValue(("mig", "strategy"), "one MIG strategy per cluster, from the pools' mig.strategy", None),
    OwnedValue(("devicePlugin", "enabled"), "the operator's device plugin advertises the pools' GPUs", None),
    OwnedValue(("devicePlugin", "config"), "each pool selects its rendered device plugin config", None),
    OwnedValue(("migManager", "enabled"), "the MIG manager partitions the MIG pools' GPUs", None),
    OwnedValue(("migManager", "config"), "each MIG pool selects its rendered mig-parted layout", None),
    OwnedValue(("daemonsets", "tolerations"), "the operands tolerate every taint of the pools they serve", None),
)
"""GPU Operator chart values the library decides, which ``helm_values`` may not set (nor replace their section)."""


class NvidiaGpuOperatorArgs(GpuAddOnArgs):
    """Inputs of :class:`NvidiaGpuOperator`: those of :class:`~gpu_components.kubernetes.addon.GpuAddOnArgs`, and

    Fields:
        operator_driver: the operator installs the NVIDIA driver and container toolkit. Defaults to False on EKS and
            AKS (the EKS NVIDIA AMIs and AKS's default images ship both) and True on GKE (NVIDIA's GKE guide turns
            GKE's installation off). Must agree with each pool's cloud setting
            (:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`, checked by the cross-cloud
            composition, which knows the pools' cloud options).
        dcgm_exporter: run NVIDIA's DCGM exporter (GPU metrics for Prometheus). Defaults to True.
        service_monitor: create a ServiceMonitor for the exporter; only when the Prometheus Operator's CRDs are
            installed. Defaults to False.

    ``pools``: node-pool components built with ``gpu_stack: gpu-operator`` (not Bottlerocket NVIDIA), or descriptions
    of such pools (:class:`~gpu_components.kubernetes.addon.AddOnPoolArgs` with ``gpu_stack: gpu-operator``); a
    description's driver setting sits in its cloud block (``pools[0].aws.ami_type``). Their cloud also gives AKS and
    GKE the settings NVIDIA's guides give for them; the ``pools``' nodes need the labels of
    :func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`. ``namespace`` defaults to ``gpu-operator``;
    ``chart_version`` to the pinned, tested ``v26.7.0``.
    """

    operator_driver: NotRequired[bool]
    dcgm_exporter: NotRequired[bool]
    service_monitor: NotRequired[bool]


class NvidiaGpuOperator(pulumi.ComponentResource):
    """Namespace, device plugin and mig-parted ConfigMaps, and the ``gpu-operator`` Helm release.

    The device plugin uses the same per-pool config entries as the bare plugin (selected by the node label
    ``nvidia.com/device-plugin.config``); the MIG manager applies each MIG pool's layout (selected by
    ``nvidia.com/mig.config``). A change of either config rolls the operand that reads it. Every operand and the
    node-feature-discovery worker tolerate every pool taint.

    Children: ``<name>-namespace``, ``<name>-device-plugin-config``, ``<name>-mig-config``,
    ``<name>-resource-quota`` (where the cloud needs one: GKE), ``<name>-release``. Providers: ``kubernetes``.

    Attributes (plain values, known at preview): ``specs``, ``device_plugin_configs`` and ``mig_configs`` (the
    ConfigMaps' data), ``values`` (the chart values).

    Raises:
        GpuSpecError: invalid pools, MIG pools with different strategies, MIG config names with two layouts, a
            ServiceMonitor without the exporter (before anything is registered).
    """

    namespace: pulumi.Output[str]
    device_plugin_config_map_name: pulumi.Output[str]
    mig_config_map_name: pulumi.Output[str]

    def __init__(self, name: str, args: NvidiaGpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        owned = owned_value_problems(
            OPERATOR_OWNED_VALUES, args.get("helm_values") if isinstance(args, Mapping) else None
        )
        served, settings = served_pools(name, NvidiaGpuOperatorArgs, args, "gpu-operator", owned)
        cloud, specs = served.cloud, served.specs
        dcgm_exporter = settings.get("dcgm_exporter", True)
        service_monitor = settings.get("service_monitor", False)
        operator_driver = settings.get("operator_driver", default_operator_driver(cloud))
        problems = [
            problem
            for spec, (driver, path) in zip(specs, served.driver_settings, strict=True)
            for problem in driver_owner_problems(
                cloud, driver, operator_driver, "", path, "operator_driver", spec.cpu_architecture
            )
        ]
        problems += gpu_operator_problems(specs, dcgm_exporter, service_monitor)
        if problems:
            raise GpuSpecError(problems)
        super().__init__("gpu-components:index:NvidiaGpuOperator", name, None, opts)
        self.specs = specs
        self.device_plugin_configs = device_plugin_config_map(specs)
        self.mig_configs = mig_config_map(specs)
        self.values = gpu_operator_values(
            specs,
            cloud,
            operator_driver,
            DEVICE_PLUGIN_CONFIG_MAP_NAME,
            MIG_CONFIG_MAP_NAME,
            dcgm_exporter=dcgm_exporter,
            service_monitor=service_monitor,
            node_taints=served.node_taints,
            overrides=settings.get("helm_values"),
        )
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={
                "name": settings.get("namespace", DEFAULT_NAMESPACE),
                "labels": dict(PRIVILEGED_NAMESPACE_LABELS),
            },
            opts=child,
        )
        device_plugin_config = k8s.core.v1.ConfigMap(
            f"{name}-device-plugin-config",
            metadata=config_map_metadata(DEVICE_PLUGIN_CONFIG_MAP_NAME, namespace.metadata.name, specs),
            data=self.device_plugin_configs,
            opts=child,
        )
        mig_config = k8s.core.v1.ConfigMap(
            f"{name}-mig-config",
            metadata={"name": MIG_CONFIG_MAP_NAME, "namespace": namespace.metadata.name},
            data=self.mig_configs,
            opts=child,
        )
        needs: list[pulumi.Resource] = [device_plugin_config, mig_config]
        resource_quota = facts_for(cloud).gpu_operator.resource_quota
        if resource_quota is not None:
            quota_spec: Any = resource_quota()  # camelCase keys, as Kubernetes spells them
            needs.append(
                k8s.core.v1.ResourceQuota(
                    f"{name}-resource-quota",
                    metadata={"name": RESOURCE_QUOTA_NAME, "namespace": namespace.metadata.name},
                    spec=quota_spec,
                    opts=child,
                )
            )
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=GPU_OPERATOR_CHART,
            version=settings.get("chart_version", GPU_OPERATOR_CHART_VERSION),
            repository_opts={"repo": GPU_OPERATOR_REPOSITORY},
            namespace=namespace.metadata.name,
            values=self.values,
            opts=pulumi.ResourceOptions(parent=self, depends_on=needs),
        )
        self.namespace = namespace.metadata.name
        self.device_plugin_config_map_name = device_plugin_config.metadata.name
        self.mig_config_map_name = mig_config.metadata.name
        self.register_outputs(
            {
                "namespace": self.namespace,
                "devicePluginConfigMapName": self.device_plugin_config_map_name,
                "migConfigMapName": self.mig_config_map_name,
                "releaseName": self.release.name,
            }
        )
