"""``GpuCluster``: the GPU pools of one cluster and the Kubernetes add-ons they need, on any cloud.

Every pool is validated (the cloud-neutral rules, then its cloud adapter's) before anything is registered; then
each pool becomes its cloud's node-pool component, and the pools whose nodes need the NVIDIA device plugin
DaemonSet get one :class:`~gpu_components.kubernetes.NvidiaDevicePlugin` holding all their config entries.
Pools whose node image or cloud runs its own device plugin are kept out of the DaemonSet, so no node ever has
two advertisers of ``nvidia.com/gpu``.

Under ``gpu_stack: gpu-operator`` one :class:`~gpu_components.kubernetes.NvidiaGpuOperator` serves instead every
pool whose node image runs no device plugin of its own (all but Bottlerocket on EKS, whose nodes keep their host
plugin and get no operand). Each served pool must have exactly one driver owner, the node image or cloud or the
operator (:func:`~gpu_components.nvidia.gpu_operator.driver_owner_problems`, naming both settings), and the pools
together must suit one operator (:func:`~gpu_components.nvidia.gpu_operator.gpu_operator_problems`).

Under ``gpu_stack: dra`` NVIDIA's DRA driver (:class:`~gpu_components.kubernetes.NvidiaDraDriver`) publishes the
pools whose ``gpu_access`` is ``dra`` or unset, where their cloud lets it (the adapter's ``device_plugin_host`` is
``dra-driver``), to resource claims; the other pools keep what ``auto`` gives them. The DRA rules
(:func:`_dra_problems`, :func:`_dra_pool_problems`, :func:`_dra_cluster_problems`) come with their sources.
"""

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    ADAPTERS,
    GPU_STACKS,
    CloudAdapter,
    DevicePluginHost,
    GpuNodePool,
    PoolTolerations,
    WorkloadOnlyMode,
    adapter_for,
)
from gpu_components.adapter import GpuStack as GpuStackName
from gpu_components.aws.options import EksWiringArgs
from gpu_components.azure.options import AksWiringArgs
from gpu_components.catalog import Cloud as CloudName
from gpu_components.cloud_facts import CloudFacts, facts_for
from gpu_components.cluster_pool import ClusterPoolArgs
from gpu_components.enums import (
    CloudArg,
    DraFeatureGateArg,
    DraFeatureGateName,
    DraInstallerArg,
    GpuStack,
    GpuStackArg,
    value_of,
)
from gpu_components.errors import Combined, GpuSpecError, Problem
from gpu_components.gcp.options import GkeWiringArgs
from gpu_components.kubernetes.addon import ADVERTISERS, namespace_problems, owned_value_problems
from gpu_components.kubernetes.device_plugin import (
    DEVICE_PLUGIN_OWNED_VALUES,
    NvidiaDevicePlugin,
    NvidiaDevicePluginArgs,
)
from gpu_components.kubernetes.dra_driver import DRA_DRIVER_OWNED_VALUES, NvidiaDraDriver, NvidiaDraDriverArgs
from gpu_components.kubernetes.gpu_operator import (
    OPERATOR_OWNED_VALUES,
    NvidiaGpuOperator,
    NvidiaGpuOperatorArgs,
    driver_owned_value_problems,
)
from gpu_components.name_forms import missing_form_problems
from gpu_components.nvidia.device_plugin import device_plugin_chart_version_problems
from gpu_components.nvidia.dra_driver import (
    dra_chart_version_problems,
    dra_helm_values_problems,
    dra_namespace_problems,
    driver_root,
    driver_root_problems,
    extended_resource_problems,
    feature_gate_problems,
    gpu_cluster_extended_resource_note,
    kubernetes_version_problems,
    operator_installs_driver,
    pool_access_problems,
    static_mig_problems,
    version_number_hint,
)
from gpu_components.nvidia.driver_upgrade import DriverUpgradeSettingsArgs, driver_upgrade_problems
from gpu_components.nvidia.gpu_operator import (
    SOURCE_GPU_CLUSTER,
    chart_version_problems,
    default_operator_driver,
    driver_owner_problems,
    gpu_cluster_problems,
    gpu_operator_problems,
)
from gpu_components.nvidia.mig import MIG_CONFIG_LABEL
from gpu_components.shape import STRICT, args_problems, plain, required_keys, shape_problems
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, parse_pools, pool_shape_problems
from gpu_components.workloads import dra_extended_resources

__all__ = [
    "ADAPTERS",
    "GPU_STACKS",
    "ClusterPoolArgs",
    "DevicePluginSettingsArgs",
    "DraSettingsArgs",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuOperatorSettingsArgs",
    "GpuStack",
    "PoolScheduling",
    "adapter_for",
    "validate_cluster",
]


@STRICT
class DevicePluginSettingsArgs(TypedDict):
    """Optional settings of the device plugin add-on (:class:`~gpu_components.kubernetes.NvidiaDevicePlugin`)."""

    namespace: NotRequired[str]
    """Namespace to create and install into (a DNS-1123 label). Defaults to ``nvidia-device-plugin``."""
    chart_version: NotRequired[str]
    """Version of NVIDIA's ``nvidia-device-plugin`` chart, exact (a range such as ``^0.20`` is refused). Defaults to
    the pinned, tested ``0.20.0``."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw chart values merged over the rendered ones. Defaults to none. ``config``, ``affinity``, ``tolerations``,
    ``migStrategy`` (each pool's config entry has its own) and the ``podAnnotations`` entry
    ``gpu-components/config-hash`` (which restarts the plugin when a pool's config changes) are the library's and
    refused."""


@STRICT
class GpuOperatorSettingsArgs(TypedDict):
    """Optional settings of the GPU Operator add-on (``gpu_stack: gpu-operator``); see
    :class:`~gpu_components.kubernetes.gpu_operator.NvidiaGpuOperatorArgs`."""

    operator_driver: NotRequired[bool]
    """The operator installs the NVIDIA driver and toolkit. Defaults to false on EKS and AKS (EKS NVIDIA AMIs and
    AKS's default images ship both) and true on GKE (NVIDIA's GKE guide turns GKE's installation off under the
    operator). Must agree with every served pool's own driver setting (EKS ``ami_type``: false; AKS ``gpu_driver``:
    ``none`` needs true, ``aks`` false; GKE ``driver_version``: ``INSTALLATION_DISABLED`` with true)."""
    dcgm_exporter: NotRequired[bool]
    """Run NVIDIA's DCGM exporter (GPU metrics for Prometheus). Defaults to true."""
    service_monitor: NotRequired[bool]
    """A ServiceMonitor for the exporter (needs the Prometheus Operator and ``dcgm_exporter``). Defaults to false."""
    namespace: NotRequired[str]
    """Namespace to create and install into (a DNS-1123 label). Defaults to ``gpu-operator``."""
    chart_version: NotRequired[str]
    """Version of NVIDIA's ``gpu-operator`` chart. Defaults to the pinned, tested ``v26.7.0``."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw chart values merged over the rendered ones. Defaults to none. Not ``driver.enabled``, ``toolkit.enabled``,
    ``mig.strategy`` and the other values the library decides; ``driver.upgradePolicy`` is checked as
    ``driver_upgrade`` is."""
    driver_upgrade: NotRequired[DriverUpgradeSettingsArgs]
    """How the operator rolls a new driver version over its nodes (``driver.upgradePolicy``), with ``operator_driver``
    only. Defaults to one node at a time, at most 25% unavailable, waiting up to an hour for long-running pods
    (``gpu-components/long-running=true``, the workload helpers' ``do_not_disrupt``), no drain; see
    :class:`~gpu_components.nvidia.driver_upgrade.DriverUpgradeSettingsArgs`."""


@STRICT
class DraSettingsArgs(TypedDict):
    """Settings of a ``gpu_stack: dra`` cluster: NVIDIA's DRA driver
    (:class:`~gpu_components.kubernetes.NvidiaDraDriver`, or the GPU Operator's GPUCluster) and the Kubernetes version
    it needs."""

    installer: NotRequired[DraInstallerArg]
    """Who deploys the DRA driver: ``chart`` (the driver's own Helm chart, with the GPU Operator's MIG manager, its
    device plugin off, for the DRA pools that need MIG partitioning or the operator's driver) or ``gpu-operator``
    (the GPU Operator's GPUCluster, a technology preview with no MIG manager and no driver: no MIG pool, no pool
    needing the operator's driver, no device-plugin pool beside it). Defaults to ``chart``."""
    kubernetes_version: NotRequired[str]
    """The cluster's Kubernetes version, ``MAJOR.MINOR``: at least ``1.34``, where DRA's ``resource.k8s.io/v1`` API is
    GA. Required under ``gpu_stack: dra`` (the example program fills it from ``cluster.kubernetes_version``)."""
    feature_gates: NotRequired[list[DraFeatureGateArg]]
    """The DRA driver's feature gates to turn on (alpha, off by default: ``TimeSlicingSettings``, ``MPSSupport``,
    ``DynamicMIG``, ``PassthroughSupport``, ``NVMLDeviceHealthCheck``, ``DeviceMetadata``). Defaults to none.
    ``DynamicMIG`` is refused beside MIG pools, and so are the pairs the driver refuses at start."""
    extended_resource: NotRequired[bool]
    """Whether the DRA pools also serve plain ``nvidia.com/gpu`` requests (container limits, whole GPUs) through the
    driver's ``gpu.nvidia.com`` DeviceClass, with installer ``chart`` only: its chart 0.4.1 always sets the class's
    ``extendedResourceName: nvidia.com/gpu``, which Kubernetes honours from 1.36 (feature gate
    ``DRAExtendedResource``, beta and on by default; alpha and off in 1.34 and 1.35, where the API server drops it:
    https://www.kubernetes.dev/resources/keps/5004/). ``true`` acknowledges it and is refused below 1.36; ``false``
    is refused from 1.36 (no chart value leaves the name out: pin a Kubernetes version below 1.36, or accept
    ``true``); ``true`` is refused too where every DRA pool has a static MIG layout (no whole GPU to serve). Defaults
    to unset: in force from 1.36, with a warning saying so (none without a whole-GPU DRA pool), and off below. In
    force, the capacity report lists ``nvidia.com/gpu`` for the DRA pools' whole GPUs, the policy rule
    ``gpu-dra-pool-extended-resource`` lets their ``nvidia.com/gpu`` pods pass, and
    :func:`~gpu_components.workloads.gpu_pod_settings` given the DRA driver accepts a GPU count on them."""
    namespace: NotRequired[str]
    """Namespace of the DRA driver chart (a DNS-1123 label), with installer ``chart`` only. Defaults to
    ``dra-driver-nvidia-gpu``."""
    chart_version: NotRequired[str]
    """Version of the ``dra-driver-nvidia-gpu`` chart, with installer ``chart`` only. Defaults to the pinned, tested
    ``0.4.1``. Another version is deployed as given with the values, feature gate names and owned keys of 0.4.1, its
    ``helm_values`` keys unchecked, and a warning saying so
    (:func:`~gpu_components.nvidia.dra_driver.dra_chart_version_note`)."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw DRA driver chart values merged over the rendered ones, with installer ``chart`` only. Defaults to none.
    ``nvidiaDriverRoot``, ``gpuResourcesEnabledOverride``, ``resources.gpus.enabled``, ``featureGates``,
    ``kubeletPlugin.affinity``, ``kubeletPlugin.tolerations`` and ``namespace`` are the library's and refused. Under the
    pinned chart a key its templates never read is refused (top level, and inside the chart's own maps such as
    ``kubeletPlugin`` or ``controller.metrics``; not inside a value passed on whole, such as ``affinity`` or
    ``resources``: :func:`~gpu_components.nvidia.dra_driver.dra_helm_values_problems`)."""


class GpuClusterArgs(TypedDict):
    """Inputs of :class:`GpuCluster`."""

    cloud: CloudArg
    """The cluster's cloud: ``aws``, ``azure`` or ``gcp``."""
    pools: list[ClusterPoolArgs]
    """The GPU pools: at least one, names unique."""
    aws: NotRequired[EksWiringArgs]
    """EKS wiring: how the pools attach to the cluster. Required when ``cloud`` is ``aws``, refused otherwise."""
    azure: NotRequired[AksWiringArgs]
    """AKS wiring: how the pools attach to the cluster. Required when ``cloud`` is ``azure``, refused otherwise."""
    gcp: NotRequired[GkeWiringArgs]
    """GKE wiring: how the pools attach to the cluster. Required when ``cloud`` is ``gcp``, refused otherwise."""
    gpu_stack: NotRequired[GpuStackArg]
    """Who advertises GPUs to Kubernetes: ``auto``, ``device-plugin``, ``gpu-operator`` or ``dra`` (NVIDIA's DRA
    driver publishes the pools whose ``gpu_access`` is ``dra`` or unset; ``device-plugin`` pools keep their device
    plugin). Defaults to ``auto``."""
    device_plugin: NotRequired[DevicePluginSettingsArgs]
    """Settings of the device plugin add-on. Defaults to the pinned chart in its own namespace. Refused under
    ``gpu_stack: gpu-operator``, which runs no device plugin add-on."""
    gpu_operator: NotRequired[GpuOperatorSettingsArgs]
    """Settings of the GPU Operator add-on, with ``gpu_stack: gpu-operator``, or ``dra`` when the cluster deploys
    the operator (dra installer ``gpu-operator``, or DRA pools needing its MIG manager or driver). Defaults to the
    pinned chart, the node image's or cloud's driver, the DCGM exporter without a ServiceMonitor."""
    dra: NotRequired[DraSettingsArgs]
    """Settings of ``gpu_stack: dra`` (required there for its ``kubernetes_version``); refused under any other GPU
    stack."""


def cluster_args_problems(args: Mapping[str, Any]) -> list[Problem]:
    """Problems with :class:`GpuClusterArgs` beyond the pools, settings and the args' own keys: the cluster wiring of
    the cloud (required keys present, no unknown keys, the cloud's rules between it and the pools), and wiring given
    for another cloud."""
    problems: list[Problem] = []
    cloud = args.get("cloud")
    if not isinstance(cloud, str) or cloud not in ADAPTERS:
        return problems
    adapter = ADAPTERS[cloud]
    problems += [
        Problem(key, args[key], f"wiring for {key}, but the cluster is on {cloud}")
        for key in ADAPTERS
        if key != cloud and key in args
    ]
    wiring = args.get(cloud)
    if wiring is None:
        required = ", ".join(required_keys(adapter.wiring))
        return [*problems, Problem(cloud, wiring, f"the cluster wiring for {cloud} is required", required)]
    problems += missing_form_problems(args_problems(adapter.wiring, wiring, cloud), adapter.cluster_forms, f"{cloud}.")
    pools = args.get("pools")
    if isinstance(wiring, Mapping) and isinstance(pools, list):
        problems += not_reported(adapter.wiring_problems(wiring, pools), problems)
    return problems


def _neutral(pool: Mapping[str, Any]) -> GpuNodePoolArgs:
    return cast(GpuNodePoolArgs, {key: value for key, value in pool.items() if key not in ADAPTERS})


_ADD_ON_HOST: Mapping[str, DevicePluginHost] = {"device_plugin": "daemonset", "gpu_operator": "gpu-operator"}
"""The GPU stack add-on a settings key configures -> the ``device_plugin_host`` of the pools it serves."""


def _unused_settings_problems(
    key: str,
    settings_: Mapping[str, Any] | None,
    specs: Sequence[GpuNodePoolSpec],
    hosts: Mapping[int, DevicePluginHost],
    prefix: str,
) -> list[Problem]:
    """Settings of the add-on ``key`` (``device_plugin``, ``gpu_operator``) when no pool is served by it: the
    cluster deploys no such add-on (every pool's GPUs are advertised by the cloud or the node image), so they would
    be ignored."""
    wanted = _ADD_ON_HOST[key]
    if settings_ is None or wanted in hosts.values():
        return []
    others = ", ".join(f"{prefix}pools[{index}] ({spec.name}): {hosts[index]}" for index, spec in enumerate(specs))
    add_on = "NVIDIA device plugin" if key == "device_plugin" else "GPU Operator"
    return [
        Problem(
            f"{prefix}{key}",
            settings_,
            f"{add_on} settings, but no pool is served by the {add_on} (each pool's GPUs are advertised by another: "
            f"{others}), so the cluster deploys none and they would be ignored",
            f"no {key} settings, or a pool the {add_on} serves",
        )
    ]


def _unserved_operator_problems(
    specs: Sequence[GpuNodePoolSpec], hosts: Mapping[int, DevicePluginHost], prefix: str
) -> list[Problem]:
    """``gpu_stack: gpu-operator`` on a cluster none of whose pools the GPU Operator serves (every pool's GPUs are
    advertised by the cloud, e.g. EKS Auto Mode pools, or the node image): the cluster would deploy no operator and
    run exactly as under ``auto``, so the switch is refused, as ``device-plugin`` is on a cloud-served pool."""
    others = ", ".join(f"{prefix}pools[{index}] ({spec.name}): {hosts[index]}" for index, spec in enumerate(specs))
    return [
        Problem(
            f"{prefix}gpu_stack",
            "gpu-operator",
            f"no pool is served by the GPU Operator (each pool's GPUs are advertised by another: {others}), so the "
            "cluster would deploy no operator and the switch would be ignored",
            "auto (each pool's own way), or a pool the GPU Operator serves",
        )
    ]


@dataclasses.dataclass(frozen=True)
class _DraPool:
    """A pool whose GPUs NVIDIA's DRA driver publishes, as the DRA rules need it: its spec, its nodes' labels, its
    cloud's driver setting as given (``None``: the default) and its path."""

    spec: GpuNodePoolSpec
    labels: Mapping[str, str]
    driver_setting: str | None
    where: str


def needs_gpu_operator(cloud: CloudName, spec: GpuNodePoolSpec, labels: Mapping[str, str], driver: str | None) -> bool:
    """Whether a DRA pool (``device_plugin_host: dra-driver``) needs the GPU Operator beside the DRA driver: for its
    MIG partitions (a MIG pool whose nodes carry ``nvidia.com/mig.config``, the label the operator's MIG manager
    applies: each cloud's label function sets it where the cloud or image makes no partitions, as on EKS AL2023 and AKS
    Node Auto Provisioning; one that partitions the GPUs itself, as AKS's ``gpuInstanceProfile`` does, sets none) or
    for its NVIDIA driver (its cloud's driver setting turns the node's own installation off)."""
    return (spec.mig is not None and MIG_CONFIG_LABEL in labels) or operator_installs_driver(cloud, driver)


def _dra_problems(dra: object, gpu_stack: str, prefix: str) -> list[Problem]:
    """The ``dra`` settings on their own: shape, only under ``gpu_stack: dra`` (where the Kubernetes version is
    required and at least 1.34), namespace, chart version and owned values, and the chart's settings refused under
    installer ``gpu-operator`` (the operator deploys the driver; its own settings are ``gpu_operator``)."""
    path = f"{prefix}dra"
    if dra is None and gpu_stack != "dra":
        return []
    if dra is not None:
        problems = version_number_hint(shape_problems(DraSettingsArgs, dra, path), f"{path}.kubernetes_version")
        if gpu_stack in GPU_STACKS and gpu_stack != "dra":
            return [
                *problems,
                Problem(
                    path,
                    dra,
                    f"DRA settings, but gpu_stack is {gpu_stack}: they would be ignored",
                    "gpu_stack dra, or no dra settings",
                ),
            ]
    else:
        problems = []
    settings: Mapping[str, Any] = dra if isinstance(dra, Mapping) else {}
    null_version = "kubernetes_version" in settings and settings["kubernetes_version"] is None  # a shape problem
    if (dra is None or isinstance(dra, Mapping)) and not null_version:
        problems += kubernetes_version_problems(settings.get("kubernetes_version"), f"{path}.kubernetes_version")
    problems += namespace_problems(settings.get("namespace"), f"{path}.namespace")
    problems += dra_namespace_problems(settings.get("namespace"), settings.get("helm_values"), f"{path}.namespace")
    problems += dra_chart_version_problems(settings.get("chart_version"), f"{path}.chart_version")
    problems += owned_value_problems(DRA_DRIVER_OWNED_VALUES, settings.get("helm_values"), f"{path}.")
    problems += dra_helm_values_problems(settings.get("helm_values"), settings.get("chart_version"), f"{path}.")
    if value_of(settings.get("installer")) != "gpu-operator":
        problems += extended_resource_problems(
            settings.get("extended_resource"), settings.get("kubernetes_version"), f"{path}.extended_resource"
        )
    else:
        problems += [
            Problem(
                f"{path}.{key}",
                settings[key],
                "a setting of the DRA driver's own chart, but under installer gpu-operator the GPU Operator deploys "
                "the driver: it would be ignored",
                f"gpu_operator.{key}, or installer chart",
            )
            for key in ("namespace", "chart_version", "helm_values")
            if key in settings
        ]
        if "extended_resource" in settings:
            problems.append(
                Problem(
                    f"{path}.extended_resource",
                    settings["extended_resource"],
                    "a setting of the DRA driver's own chart, whose gpu.nvidia.com DeviceClass the library knows; "
                    "under installer gpu-operator the GPU Operator's GPUCluster deploys the driver and its "
                    "DeviceClasses, which the library does not model: it would be ignored",
                    "no extended_resource, or installer chart",
                )
            )
    return problems


def _dra_pool_problems(
    spec: GpuNodePoolSpec, pool: Mapping[str, Any], host: DevicePluginHost, gpu_stack: str, installer: str, where: str
) -> list[Problem]:
    """One pool's DRA rules: those of every entry point
    (:func:`~gpu_components.nvidia.dra_driver.pool_access_problems`: ``gpu_access: dra`` only under ``gpu_stack:
    dra``, no pool-level sharing on a DRA pool: it lives in the claim) and, under installer ``gpu-operator``, no MIG on
    a pool the DRA driver serves (the GPUCluster runs no MIG manager) and every pool a DRA pool (the GPUCluster's
    driver cannot be kept off the others' nodes)."""
    problems = pool_access_problems(spec, pool, gpu_stack, where)
    if gpu_stack != "dra":
        return problems
    if host != "dra-driver":
        if installer != "gpu-operator":
            return problems
        return [
            *problems,
            Problem(
                f"{where}.gpu_access" if spec.gpu_access is not None else where,
                spec.gpu_access or spec.name,
                f"its GPUs are advertised by {ADVERTISERS[host]}, but under dra installer gpu-operator the "
                "GPUCluster's DRA driver schedules itself on every GPU node (not configurable), so it would "
                "publish them a second time",
                "gpu_access dra on a pool the DRA driver can serve, or dra installer chart",
                SOURCE_GPU_CLUSTER,
            ),
        ]
    if installer == "gpu-operator":
        problems += [
            dataclasses.replace(problem, path=f"{where}.mig") for problem in gpu_cluster_problems([spec], False)
        ]
    return problems


def _installer_problems(cloud: CloudName, installer: str, prefix: str) -> list[Problem]:
    """Installer ``gpu-operator`` on a cloud whose DRA pools get their NVIDIA driver from the cloud's own installer
    DaemonSet (:attr:`~gpu_components.cloud_facts.DraFacts.driver_installer`: GKE): refused, once, at
    ``dra.installer``; the pools are then checked as under installer ``chart``, the one valid value, so no pool
    problem names the refused installer."""
    facts = facts_for(cloud)
    dra_facts = facts.dra
    if installer != "gpu-operator" or dra_facts is None or dra_facts.driver_installer is None:
        return []
    return [
        Problem(
            f"{prefix}dra.installer",
            "gpu-operator",
            f"{facts.service} DRA pools get the NVIDIA driver from {facts.service}'s installer DaemonSet (driver "
            f"root {dra_facts.driver_root}), which NvidiaDraDriver applies under installer chart; the GPU "
            "Operator's GPUCluster installs no driver and the library sets none of its host paths for it",
            "chart",
            dra_facts.driver_installer_source,
        )
    ]


def _dra_cluster_problems(
    cloud: CloudName,
    specs: Sequence[GpuNodePoolSpec],
    hosts: Mapping[int, DevicePluginHost],
    dra_pools: Mapping[int, _DraPool],
    dra: Mapping[str, Any],
    installer: str,
    gpu_operator: object,
    device_plugin: object,
    prefix: str,
) -> list[Problem]:
    """The rules of a ``gpu_stack: dra`` cluster's pools together: some pool must be a DRA pool (else the switch
    would be ignored, as ``gpu-operator`` is on pools it cannot serve); one driver root for the DRA driver's pools
    (installer ``chart``); the feature gates (DynamicMIG beside MIG pools); the GPU Operator beside the chart (its
    pools' MIG strategies and driver owner); settings of add-ons the cluster would not deploy."""
    others = ", ".join(f"{prefix}pools[{index}] ({spec.name}): {hosts[index]}" for index, spec in enumerate(specs))
    if not dra_pools:
        return [
            Problem(
                f"{prefix}gpu_stack",
                "dra",
                f"no pool's GPUs are published by NVIDIA's DRA driver (each pool's GPUs are advertised by another: "
                f"{others}), so the cluster would deploy no DRA driver and the switch would be ignored",
                "auto (each pool's own way), or a pool the DRA driver serves (gpu_access dra or unset)",
            )
        ]
    problems: list[Problem] = []
    gates = (
        [value_of(gate) for gate in dra.get("feature_gates", [])] if isinstance(dra.get("feature_gates"), list) else []
    )
    mig_pools = [(f"{prefix}pools[{index}]", spec.name) for index, spec in enumerate(specs) if spec.mig is not None]
    problems += feature_gate_problems(gates, mig_pools, f"{prefix}dra.feature_gates", dra.get("kubernetes_version"))
    facts = facts_for(cloud)
    if installer == "gpu-operator":  # refused on a cloud whose own installer brings the driver: _installer_problems
        return problems
    problems += static_mig_problems(
        dra.get("extended_resource"),
        [(pool.spec.name, pool.spec.mig is not None) for pool in dra_pools.values()],
        f"{prefix}dra.extended_resource",
    )
    setting = facts.driver.setting
    roots = [
        (f"{pool.where}.{cloud}.{setting}", driver_root(cloud, pool.driver_setting), pool.driver_setting)
        for pool in dra_pools.values()
    ]
    problems += driver_root_problems(roots)
    helper = {
        index: pool
        for index, pool in dra_pools.items()
        if needs_gpu_operator(cloud, pool.spec, pool.labels, pool.driver_setting)
    }
    settings: Mapping[str, Any] = gpu_operator if isinstance(gpu_operator, Mapping) else {}
    given_driver = settings.get("operator_driver")
    operator_driver = (
        given_driver
        if isinstance(given_driver, bool)
        else any(operator_installs_driver(cloud, pool.driver_setting) for pool in helper.values())
    )
    for pool in helper.values():
        problems += driver_owner_problems(
            cloud,
            pool.driver_setting,
            operator_driver,
            pool.where,
            operator_driver_path=f"{prefix}gpu_operator.operator_driver",
            cpu_architecture=pool.spec.cpu_architecture,
        )
    if helper:
        problems += driver_upgrade_problems(
            settings.get("driver_upgrade"), settings.get("helm_values"), operator_driver, f"{prefix}gpu_operator"
        )
    problems += _at_input_positions(
        gpu_operator_problems(
            [pool.spec for pool in helper.values()],
            bool(settings.get("dcgm_exporter", True)),
            bool(settings.get("service_monitor", False)),
        ),
        list(helper),
        prefix,
    )
    if gpu_operator is not None and not helper:
        problems.append(
            Problem(
                f"{prefix}gpu_operator",
                gpu_operator,
                "GPU Operator settings, but under dra installer chart the cluster deploys the operator only for DRA "
                "pools that need its MIG manager or driver, and none does: they would be ignored",
                "no gpu_operator settings, or dra installer gpu-operator",
            )
        )
    if device_plugin is not None and "daemonset" not in hosts.values():
        problems.append(
            Problem(
                f"{prefix}device_plugin",
                device_plugin,
                f"NVIDIA device plugin settings, but no pool is served by the NVIDIA device plugin ({others}), so the "
                "cluster deploys none and they would be ignored",
                "no device_plugin settings, or a pool with gpu_access device-plugin the device plugin serves",
            )
        )
    return problems


def validate_cluster(
    cloud: str,
    pools: Sequence[Mapping[str, Any]],
    gpu_stack: str = "auto",
    path: str = "",
    gpu_operator: Mapping[str, Any] | None = None,
    device_plugin: Mapping[str, Any] | None = None,
    dra: Mapping[str, Any] | None = None,
    cluster: Mapping[str, Any] | None = None,
    cluster_path: str = "cluster",
) -> tuple[GpuNodePoolSpec, ...]:
    """Validate a cluster's pools for ``cloud`` and ``gpu_stack``: every problem of every pool, the cloud's rules
    and, under the GPU Operator, the driver-ownership and operator-wide rules included, at once.

    Args:
        cloud: the cluster's cloud.
        pools: the pools (:class:`ClusterPoolArgs`).
        gpu_stack: see :class:`GpuStack`.
        path: prefix of every problem's path (``""`` for component args).
        gpu_operator: the GPU Operator settings (:class:`GpuOperatorSettingsArgs`), with ``gpu-operator``, or
            ``dra`` when the cluster deploys the operator.
        device_plugin: the device plugin settings, which ``gpu-operator`` has no use for.
        dra: the DRA settings (:class:`DraSettingsArgs`), only with ``dra``, where its ``kubernetes_version`` is
            required.
        cluster: the cluster's wiring or stack ``cluster`` config, at ``cluster_path``, when it may name a cluster
            mode whose pools are workload targets only (the adapter's
            :attr:`~gpu_components.adapter.CloudAdapter.workload_only`: GKE Autopilot); that mode's rules then
            replace the node-pool ones.

    Raises:
        GpuSpecError: unsupported cloud or GPU stack, invalid pools or settings, violations of the cloud adapter's
            rules, two driver owners or none for a pool served by the GPU Operator; under ``dra``
            (:func:`_dra_problems`, :func:`_dra_pool_problems`): a Kubernetes version below 1.34, ``gpu_access:
            dra`` without ``gpu_stack: dra``, pool sharing (``time_slicing``/``mps``) on a DRA pool, what the
            GPUCluster cannot do, DynamicMIG beside MIG pools, settings that would be ignored.
    """
    cloud, pools, gpu_stack = value_of(cloud), plain(pools), value_of(gpu_stack)
    gpu_operator, device_plugin, dra = plain(gpu_operator), plain(device_plugin), plain(dra)
    prefix = f"{path}." if path else ""
    adapter = adapter_for(cloud, f"{prefix}cloud")
    mode = adapter.workload_only(cluster) if isinstance(cluster, Mapping) else None
    if mode is not None and cluster is not None:
        settings_given = {"gpu_stack": gpu_stack, "gpu_operator": gpu_operator, "device_plugin": device_plugin}
        mode_specs, found = mode.problems(pools, cluster, {**settings_given, "dra": dra}, prefix, cluster_path)
        if found:
            raise GpuSpecError(found)
        return mode_specs
    problems: list[Problem] = []
    if gpu_stack not in GPU_STACKS:
        problems.append(Problem(f"{prefix}gpu_stack", gpu_stack, "unknown GPU stack", ", ".join(GPU_STACKS)))
    operator = gpu_stack == "gpu-operator"
    dra_settings: Mapping[str, Any] = dra if isinstance(dra, Mapping) else {}
    installer = value_of(dra_settings.get("installer", "chart"))
    problems += _dra_problems(dra, gpu_stack, prefix)
    refused_installer = _installer_problems(adapter.cloud, installer, prefix) if gpu_stack == "dra" else []
    problems += refused_installer
    pool_installer = "chart" if refused_installer else installer
    if gpu_operator is not None:
        problems += shape_problems(GpuOperatorSettingsArgs, gpu_operator, f"{prefix}gpu_operator")
        if not operator and gpu_stack in GPU_STACKS and gpu_stack != "dra":
            problems.append(
                Problem(
                    f"{prefix}gpu_operator",
                    gpu_operator,
                    f"GPU Operator settings, but gpu_stack is {gpu_stack}: they would be ignored",
                    "gpu_stack gpu-operator, or no gpu_operator settings",
                )
            )
    if device_plugin is not None:
        problems += shape_problems(DevicePluginSettingsArgs, device_plugin, f"{prefix}device_plugin")
    for key, settings_ in (("device_plugin", device_plugin), ("gpu_operator", gpu_operator)):  # dra's: _dra_problems
        if isinstance(settings_, Mapping):
            problems += namespace_problems(settings_.get("namespace"), f"{prefix}{key}.namespace")
    if isinstance(gpu_operator, Mapping):
        problems += chart_version_problems(gpu_operator.get("chart_version"), f"{prefix}gpu_operator.chart_version")
        problems += owned_value_problems(
            OPERATOR_OWNED_VALUES, gpu_operator.get("helm_values"), f"{prefix}gpu_operator."
        )
    if isinstance(device_plugin, Mapping):
        problems += device_plugin_chart_version_problems(
            device_plugin.get("chart_version"), f"{prefix}device_plugin.chart_version"
        )
        problems += owned_value_problems(
            DEVICE_PLUGIN_OWNED_VALUES, device_plugin.get("helm_values"), f"{prefix}device_plugin."
        )
    if device_plugin is not None and operator:
        problems.append(
            Problem(
                f"{prefix}device_plugin",
                device_plugin,
                "device plugin settings, but gpu_stack is gpu-operator, which runs no device plugin add-on: they "
                "would be ignored",
                "gpu_operator settings, or gpu_stack auto / device-plugin",
            )
        )
    if not isinstance(pools, list | tuple):
        raise GpuSpecError([*problems, Problem(f"{prefix}pools", pools, "a list of pools", "[{name, ...}, ...]")])
    misshapen: set[int] = set()
    for index, pool in enumerate(pools):
        shape = pool_shape_problems(ClusterPoolArgs, pool, adapter.cloud, f"{prefix}pools[{index}]")
        if shape:
            misshapen.add(index)
        problems += shape
        others = sorted(key for key in ADAPTERS if key != cloud and isinstance(pool, Mapping) and key in pool)
        problems += [
            Problem(
                f"{prefix}pools[{index}].{key}",
                pool[key],
                f"settings for {key}, but the cluster is on {cloud}",
            )
            for key in others
        ]
    if gpu_stack not in GPU_STACKS:
        raise GpuSpecError(problems)
    stack = gpu_stack
    settings: Mapping[str, Any] = gpu_operator if isinstance(gpu_operator, Mapping) else {}
    given_driver = settings.get("operator_driver")
    operator_driver = given_driver if isinstance(given_driver, bool) else default_operator_driver(adapter.cloud)
    served: list[tuple[int, GpuNodePoolSpec]] = []
    dra_pools: dict[int, _DraPool] = {}
    hosts: dict[int, DevicePluginHost] = {}
    operator_hosts: dict[int, DevicePluginHost] = {}  # each pool's host under gpu-operator (device-plugin only)

    def cloud_rules(spec: GpuNodePoolSpec, index: int, where: str) -> list[Problem]:
        if index in misshapen:  # its cloud block may not be a mapping; its shape problems are listed already
            return []
        options: Mapping[str, Any] = pools[index].get(cloud, {})
        found = adapter.problems(spec, options, where, stack)
        host = adapter.device_plugin_host(spec, options, stack)
        hosts[index] = host
        if stack == "device-plugin":
            operator_hosts[index] = adapter.device_plugin_host(spec, options, "gpu-operator")
        if stack == "device-plugin" and host == "cloud":
            found.append(
                Problem(
                    f"{prefix}gpu_stack",
                    gpu_stack,
                    f"{where} is served by {cloud}'s own device plugin, which the NVIDIA device plugin may not "
                    "run beside",
                    _BESIDE_CLOUD_PLUGIN_VALID,
                )
            )
        if operator and host == "gpu-operator":
            served.append((index, spec))
        found += _dra_pool_problems(spec, pools[index], host, gpu_stack, pool_installer, where)
        if host == "dra-driver":
            view = adapter.describe_pool(spec, options, stack)
            dra_pools[index] = _DraPool(spec, view.labels, options.get(adapter.facts.driver.setting), where)
        if operator and host != "cloud":  # a cloud-served pool (a GKE ComputeClass) keeps the cloud's driver
            found += driver_owner_problems(
                adapter.cloud,
                options.get(adapter.facts.driver.setting),
                operator_driver,
                where,
                operator_driver_path=f"{prefix}gpu_operator.operator_driver",
                cpu_architecture=spec.cpu_architecture,
            )
        return found

    pool_problems = list(problems)
    specs: tuple[GpuNodePoolSpec, ...] = ()
    neutral = [_neutral(pool) if isinstance(pool, Mapping) else cast(GpuNodePoolArgs, pool) for pool in pools]
    try:
        specs = parse_pools(neutral, adapter.cloud, f"{prefix}pools", cloud_rules)
        pool_problems += adapter.pools_problems(specs, prefix)
        pool_problems += adapter.options_problems(
            specs, [pool.get(cloud, {}) if isinstance(pool, Mapping) else {} for pool in pools], prefix
        )
        if misshapen:  # who serves a misshapen pool is unknown; its shape problems are listed already
            pass
        elif operator and specs and "gpu-operator" not in hosts.values():
            # The explicit switch to the operator would be ignored: refused as device-plugin is on such pools (its
            # settings, if any, would be ignored with it).
            pool_problems += _unserved_operator_problems(specs, hosts, prefix)
        elif gpu_stack == "dra":
            pool_problems += _dra_cluster_problems(
                adapter.cloud, specs, hosts, dra_pools, dra_settings, installer, gpu_operator, device_plugin, prefix
            )
        else:
            add_on = ("gpu_operator", gpu_operator) if operator else ("device_plugin", device_plugin)
            pool_problems += _unused_settings_problems(add_on[0], add_on[1], specs, hosts, prefix)
    except GpuSpecError as error:
        # A misshapen pool's problems are already listed, from the shape of a cluster pool; every other pool's
        # problems are listed too, so one bad pool never hides another's.
        roots = [f"{prefix}pools[{index}]" for index in misshapen]
        pool_problems += [
            problem
            for problem in error.problems
            if not any(problem.path == root or problem.path.startswith((f"{root}.", f"{root}[")) for root in roots)
        ]
    if operator and isinstance(gpu_operator, Mapping):
        pool_problems += driver_owned_value_problems(
            adapter.cloud, operator_driver, gpu_operator.get("helm_values"), f"{prefix}gpu_operator."
        )
        pool_problems += driver_upgrade_problems(
            gpu_operator.get("driver_upgrade"),
            gpu_operator.get("helm_values"),
            operator_driver,
            f"{prefix}gpu_operator",
        )
    if operator:
        pool_problems += _at_input_positions(
            gpu_operator_problems(
                [spec for _, spec in served],
                bool(settings.get("dcgm_exporter", True)),
                bool(settings.get("service_monitor", False)),
            ),
            [index for index, _ in served],
            prefix,
        )
    pool_problems += _provisioner_mix_problems(specs, adapter.facts, prefix)
    if "gpu-operator" not in operator_hosts.values():
        # The operator would serve none of the pools, so gpu-operator is refused too (_unserved_operator_problems).
        pool_problems = [
            dataclasses.replace(problem, valid="auto") if problem.valid == _BESIDE_CLOUD_PLUGIN_VALID else problem
            for problem in pool_problems
        ]
    if pool_problems:
        raise GpuSpecError(pool_problems)
    return specs


def _builds_for_driver_owner(
    adapter: CloudAdapter, spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStackName
) -> bool:
    """Whether the pool's node-pool component is told who installs the driver (its ``operator_driver``): a pool the GPU
    Operator serves on a cloud whose own driver installer may install it instead
    (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.driver_installer`: GKE, whose node image follows)."""
    return (
        adapter.facts.gpu_operator.driver_installer is not None
        and adapter.device_plugin_host(spec, options, gpu_stack) == "gpu-operator"
    )


_BESIDE_CLOUD_PLUGIN_VALID = "auto, or gpu-operator"
"""The valid values of ``gpu_stack: device-plugin`` on a pool the cloud's own device plugin serves, when the GPU
Operator would serve some pool (else ``auto`` alone)."""


def _provisioner_mix_problems(specs: Sequence[GpuNodePoolSpec], facts: CloudFacts, prefix: str) -> list[Problem]:
    """Pools whose provisioner may not launch nodes beside an earlier pool's
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.excludes`)."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, spec in enumerate(specs):
        if spec.provisioning is None:
            continue
        provisioner = spec.provisioning.provisioner
        own = facts.provisioners.get(provisioner)
        clash = next((other for other in own.excludes if other in seen), None) if own is not None else None
        if own is not None and clash is not None:
            problems.append(
                Problem(
                    f"{prefix}pools[{index}].provisioning.provisioner",
                    provisioner,
                    f"pools[{seen[clash]}] is a {clash} pool: {own.excludes_reason}",
                    f"{clash}, as pools[{seen[clash]}], or a cluster of its own",
                    own.source,
                )
            )
        seen.setdefault(provisioner, index)
    return problems


_POOL_INDEX = re.compile(r"\bpools\[(\d+)\]")


def _at_input_positions(problems: list[Problem], positions: Sequence[int], prefix: str) -> list[Problem]:
    """Problems about a subset of the pools (paths ``pools[<i>]`` into the subset, message references included)
    with ``pools[<i>]`` turned into the pools' positions in the input, under ``prefix``; other paths get ``prefix``
    (``gpu_operator.service_monitor``: the rule's ``service_monitor`` sits in the operator settings)."""

    def at_input(text: str) -> str:
        return _POOL_INDEX.sub(lambda match: f"pools[{positions[int(match.group(1))]}]", text)

    def where(path: str) -> str:
        return f"{prefix}{at_input(path)}" if path.startswith("pools[") else f"{prefix}gpu_operator.{path}"

    def value_at(value: object) -> object:
        return Combined(tuple(where(field) for field in value.fields)) if isinstance(value, Combined) else value

    return [
        Problem(where(problem.path), value_at(problem.value), at_input(problem.message), problem.valid, problem.source)
        for problem in problems
    ]


_VALIDATED_BY_THE_CLUSTER_RULES = (
    "cloud",
    "pools",
    "aws",
    "azure",
    "gcp",
    "gpu_stack",
    "gpu_operator",
    "device_plugin",
    "dra",
)
"""GpuCluster fields that :func:`cluster_args_problems` and :func:`validate_cluster` check (with the stack config's
paths and messages); :func:`~gpu_components.shape.args_problems` checks the rest and the args' own shape."""


def _shape_first(reported: list[Problem], follow_on: Sequence[Problem], args: Mapping[str, Any]) -> list[Problem]:
    """``reported`` and the ``follow_on`` problems not about a field ``reported`` already names (its path, or one
    under it): one bad value, one problem (``aws.karpenter_controller: "yes"`` is a type error, not also a missing
    controller; ``pools: null`` is a null, not also "not a list"). The one exception: the cloud's own wiring given
    null, where the cluster rules' "required" problem replaces the shape's "leave the field out for its default"
    (the wiring has no default)."""
    cloud = args.get("cloud")
    required_wiring = isinstance(cloud, str) and cloud in ADAPTERS and cloud in args and args[cloud] is None
    kept = [problem for problem in reported if not (required_wiring and problem.path == cloud)]
    return kept + not_reported(follow_on, kept)


def not_reported(follow_on: Sequence[Problem], reported: Sequence[Problem]) -> list[Problem]:
    """The ``follow_on`` problems about no field ``reported`` names already (its path, or a path under it): a check
    run after the shape check skips the fields the shape check has refused."""

    def already(path: str) -> bool:
        return any(path == at.path or path.startswith((f"{at.path}.", f"{at.path}[")) for at in reported)

    return [problem for problem in follow_on if not already(problem.path)]


class PoolScheduling(TypedDict):
    """What a workload needs to land on one pool of a :class:`GpuCluster` and use its GPUs (a ``pool_scheduling``
    entry; its keys are camelCase, the registered output's, for programs in every Pulumi language). From Python,
    :mod:`gpu_components.workloads` builds pod settings from the pool components themselves."""

    nodeSelector: dict[str, str]
    """Node labels a pod selects to land on the pool: ``gpu-components/pool: <pool name>``, plus what the cloud
    requires (AKS: ``kubernetes.azure.com/accelerator: nvidia``; GKE: its accelerator and sharing labels)."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint on the pool's nodes (Kubernetes spelling: ``key``, ``operator``,
    ``value``, ``effect``), the taints the cloud adds itself (AKS spot) included."""
    advertisedResources: dict[str, int]
    """Extended resource name -> how many each node advertises (``nvidia.com/gpu``, or ``nvidia.com/mig-1g.5gb``
    under the mixed MIG strategy; time-slicing and MPS replicas counted): the resource a container's limit names.
    A DRA pool lists ``nvidia.com/gpu`` -> its whole GPUs per node where its driver's ``extended_resource`` is in
    force (Kubernetes 1.36 or later: the scheduler serves the limit through the ``gpu.nvidia.com`` DeviceClass,
    DRAExtendedResource), and nothing otherwise."""
    draDevices: dict[str, int]
    """What each node publishes to DRA for resource claims (``gpu.nvidia.com`` -> whole GPUs, or
    ``mig.nvidia.com/<profile>`` -> MIG devices) when NVIDIA's DRA driver serves the pool; ``{}`` otherwise."""
    devicePluginHost: str
    """Who advertises the pool's GPUs: ``daemonset`` (the NVIDIA device plugin add-on), ``gpu-operator``,
    ``node-image`` (Bottlerocket NVIDIA), ``cloud`` (GKE) or ``dra-driver`` (NVIDIA's DRA driver)."""


# The type of GpuCluster.dra_feature_gates: for a type checker the gate names' Literal, for Pulumi's schema analyzer
# (which takes no tuple or Literal) a list of strings, as the output is registered.
if TYPE_CHECKING:
    DraFeatureGates: TypeAlias = tuple[DraFeatureGateName, ...]
else:
    DraFeatureGates = list[str]


class GpuCluster(pulumi.ComponentResource):
    """The GPU pools of one cluster and the add-ons they need.

    Children: one node-pool component per pool, named ``<name>-<pool name>`` (``EksGpuNodeGroup`` on AWS), and
    ``<name>-device-plugin`` (:class:`~gpu_components.kubernetes.NvidiaDevicePlugin`) when any pool needs the
    DaemonSet, or, under ``gpu_stack: gpu-operator``, ``<name>-gpu-operator``
    (:class:`~gpu_components.kubernetes.NvidiaGpuOperator`) when any pool is served by the operator. Under
    ``gpu_stack: dra``, for the pools NVIDIA's DRA driver serves: ``<name>-dra-driver``
    (:class:`~gpu_components.kubernetes.NvidiaDraDriver`) and, for those needing its MIG manager or driver,
    ``<name>-gpu-operator`` with its device plugin off (dra installer ``chart``); or ``<name>-gpu-operator`` with a
    GPUCluster (dra installer ``gpu-operator``); the device plugin serves the ``gpu_access: device-plugin`` pools
    as under ``auto``. Providers (``opts.providers``): the cloud's (``aws``, ``azure-native``, ``gcp``) and
    ``kubernetes``.

    Outputs: ``pool_names``, ``pool_scheduling``, ``dra_feature_gates`` (plain, known at preview; the DRA driver
    feature gates the cluster turns on, which the claim helpers of :mod:`gpu_components.claims` take).
    Other attributes: ``specs`` (validated pools, in order), ``pools`` (pool name -> node-pool
    component), ``device_plugin``, ``gpu_operator`` and ``dra_driver`` (each ``None`` when not created).

    Raises:
        GpuSpecError: every problem of every pool, of the settings and of the wiring, before any resource is
            registered.
    """

    pool_names: list[str]
    """The names of the cluster's GPU pools, sorted; each is a node-pool component's ``pool_name``, named
    ``<name>-<pool name>``."""
    pool_scheduling: dict[str, PoolScheduling]
    """Pool name -> what a workload needs to land on that pool and use its GPUs (node selector, tolerations, the
    resources each node advertises, who advertises them): how a program in another language schedules work on the
    pools."""
    dra_feature_gates: DraFeatureGates
    """The DRA driver feature gates the cluster turns on (``dra.feature_gates``; empty unless ``gpu_stack: dra``):
    what a resource claim's time-slicing (``TimeSlicingSettings``) or MPS (``MPSSupport``) config needs, and with
    ``DynamicMIG`` whole-GPU pools claimable as MIG devices."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        problems = args_problems(GpuClusterArgs, args, validated_elsewhere=_VALIDATED_BY_THE_CLUSTER_RULES)
        specs: tuple[GpuNodePoolSpec, ...] = ()
        mode: WorkloadOnlyMode | None = None
        if isinstance(args, Mapping) and "cloud" in args and "pools" in args:
            problems = _shape_first(problems, cluster_args_problems(args), args)
            wired = ADAPTERS.get(value_of(args["cloud"]))
            given_wiring = args.get(wired.cloud) if wired is not None else None
            mode = (
                wired.workload_only(given_wiring) if wired is not None and isinstance(given_wiring, Mapping) else None
            )
            try:
                specs = validate_cluster(
                    args["cloud"],
                    args["pools"],
                    args.get("gpu_stack", "auto"),
                    gpu_operator=args.get("gpu_operator"),
                    device_plugin=args.get("device_plugin"),
                    dra=args.get("dra"),
                    cluster=given_wiring if isinstance(given_wiring, Mapping) else None,
                    cluster_path=wired.cloud if wired is not None else "cluster",
                )
            except GpuSpecError as error:
                problems = _shape_first(problems, error.problems, args)
            if wired is not None and isinstance(given_wiring, Mapping) and mode is None:
                problems = _shape_first(problems, wired.wiring_pool_problems(specs, given_wiring), args)
        if problems:
            raise GpuSpecError(problems)
        cloud: CloudName = value_of(args["cloud"])
        gpu_stack: GpuStackName = value_of(args.get("gpu_stack", "auto"))
        adapter = ADAPTERS[cloud]
        wiring: Mapping[str, Any] = cast(Mapping[str, Any], args)[cloud]
        super().__init__("gpu-components:index:GpuCluster", name, None, opts)
        for note in adapter.wiring_notes(specs, wiring):
            pulumi.log.warn(note, resource=self)
        self.specs: tuple[GpuNodePoolSpec, ...] = specs
        self.dra_feature_gates = tuple(value_of(gate) for gate in args.get("dra", {}).get("feature_gates", []))
        self.pools: dict[str, GpuNodePool] = {}
        operator_settings: Mapping[str, Any] = args.get("gpu_operator", {})
        for spec, pool in zip(specs, args["pools"], strict=True):
            if mode is not None:  # the cloud runs the nodes and their GPU stack: a workload target, no add-on
                self.pools[pool["name"]] = mode.create_pool(
                    f"{name}-{pool['name']}", _neutral(pool), wiring, pulumi.ResourceOptions(parent=self)
                )
                continue
            options: Mapping[str, Any] = cast(Mapping[str, Any], pool).get(cloud, {})
            if _builds_for_driver_owner(adapter, spec, options, gpu_stack):
                # The node image follows who installs the driver (GKE: Ubuntu for the operator's, COS for Google's).
                given = operator_settings.get("operator_driver")
                options = {**options, "operator_driver": default_operator_driver(cloud) if given is None else given}
            self.pools[pool["name"]] = adapter.create_pool(
                f"{name}-{pool['name']}",
                _neutral(pool),
                options,
                wiring,
                gpu_stack,
                pulumi.ResourceOptions(parent=self),
            )
        self.device_plugin: NvidiaDevicePlugin | None = None
        self.gpu_operator: NvidiaGpuOperator | None = None
        self.dra_driver: NvidiaDraDriver | None = None
        child = pulumi.ResourceOptions(parent=self)

        def served(host: DevicePluginHost) -> list[GpuNodePool]:
            return [component for component in self.pools.values() if component.device_plugin_host == host]

        daemonset, operator, dra_pools = served("daemonset"), served("gpu-operator"), served("dra-driver")
        if daemonset:
            plugin_args: NvidiaDevicePluginArgs = {**args.get("device_plugin", {}), "cloud": cloud, "pools": daemonset}
            self.device_plugin = NvidiaDevicePlugin(f"{name}-device-plugin", plugin_args, child)
        if operator:
            operator_args = cast(NvidiaGpuOperatorArgs, {**operator_settings, "cloud": cloud, "pools": operator})
            self.gpu_operator = NvidiaGpuOperator(f"{name}-gpu-operator", operator_args, child)
        if dra_pools:
            self._compose_dra(name, cloud, dra_pools, args.get("dra", {}), operator_settings, child)
        self.pool_names = sorted(self.pools)
        self.pool_scheduling = {
            pool_name: {
                "nodeSelector": pool.node_selector,
                "tolerations": pool.tolerations,
                "advertisedResources": {
                    **pool.advertised_resources,
                    **dra_extended_resources(pool, self.dra_driver),
                },
                "draDevices": pool.dra_devices,
                "devicePluginHost": pool.device_plugin_host,
            }
            for pool_name, pool in sorted(self.pools.items())
        }
        self.register_outputs(
            {
                "poolNames": self.pool_names,
                "poolScheduling": self.pool_scheduling,
                "draFeatureGates": list(self.dra_feature_gates),
            }
        )

    def _compose_dra(
        self,
        name: str,
        cloud: CloudName,
        pools: list[GpuNodePool],
        dra: Mapping[str, Any],
        operator_settings: Mapping[str, Any],
        child: pulumi.ResourceOptions,
    ) -> None:
        """The add-ons of the DRA pools (validated): under installer ``chart`` the DRA driver's chart, and the GPU
        Operator with its device plugin off for the pools needing its MIG manager or driver
        (:func:`needs_gpu_operator`); under installer ``gpu-operator`` the operator's GPUCluster."""
        gates = list(dra.get("feature_gates", []))
        if value_of(dra.get("installer", "chart")) == "gpu-operator":
            gpu_cluster_args = {
                **operator_settings,
                "cloud": cloud,
                "pools": pools,
                "dra_installer": "gpu-operator",
                "dra_feature_gates": gates,
            }
            self.gpu_operator = NvidiaGpuOperator(
                f"{name}-gpu-operator", cast(NvidiaGpuOperatorArgs, gpu_cluster_args), child
            )
            note = gpu_cluster_extended_resource_note(dra["kubernetes_version"])
            if note is not None:
                pulumi.log.warn(note, resource=self)
            return
        chart_keys = ("namespace", "chart_version", "helm_values", "feature_gates", "extended_resource")
        driver_args = {
            **{key: dra[key] for key in chart_keys if key in dra},
            "kubernetes_version": dra["kubernetes_version"],
            "cloud": cloud,
            "pools": pools,
        }
        self.dra_driver = NvidiaDraDriver(f"{name}-dra-driver", cast(NvidiaDraDriverArgs, driver_args), child)
        setting = facts_for(cloud).driver.setting
        helped = [
            pool for pool in pools if needs_gpu_operator(cloud, pool.spec, pool.labels, getattr(pool, setting, None))
        ]
        if helped:
            helper_args = {**operator_settings, "cloud": cloud, "pools": helped, "dra_installer": "chart"}
            # After the DRA driver's release: its chart's ComputeDomain CRDs are the ones installed, not the
            # operator's (NvidiaGpuOperator, SOURCE_COMPUTE_DOMAIN_CRDS).
            self.gpu_operator = NvidiaGpuOperator(
                f"{name}-gpu-operator",
                cast(NvidiaGpuOperatorArgs, helper_args),
                pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[self.dra_driver])),
            )
