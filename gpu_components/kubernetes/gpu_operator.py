"""``NvidiaGpuOperator``: the NVIDIA GPU Operator for the GPU pools of one cluster."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import node_os
from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import facts_for
from gpu_components.enums import CloudArg, DraFeatureGateArg, DraInstallerArg, value_of
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.kubernetes.addon import (
    AddOnPools,
    OperatorMode,
    OwnedValue,
    config_map_metadata,
    gpu_stack_problems,
    join_cluster,
    owned_value_problems,
    served_pools,
)
from gpu_components.nvidia.device_plugin import device_plugin_config_map
from gpu_components.nvidia.dra_driver import operator_installs_driver
from gpu_components.nvidia.driver_upgrade import (
    DriverUpgradeSettingsArgs,
    driver_upgrade_problems,
    driver_upgrade_warnings,
)
from gpu_components.nvidia.gpu_operator import (
    GPU_OPERATOR_CHART,
    GPU_OPERATOR_CHART_VERSION,
    GPU_OPERATOR_REPOSITORY,
    chart_version_problems,
    default_operator_driver,
    driver_node_os_problems,
    driver_owner_problems,
    gpu_cluster_problems,
    gpu_cluster_values,
    gpu_operator_problems,
    gpu_operator_values,
    mig_strategy,
    mixed_node_os_note,
)
from gpu_components.nvidia.mig import mig_config_map
from gpu_components.shape import plain
from gpu_components.spec import GpuNodePoolSpec

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
    OwnedValue(
        ("node-feature-discovery", "worker", "tolerations"),
        "NFD's worker labels the GPU nodes the operands select (feature.node.kubernetes.io/pci-10de.present), so it "
        "tolerates every taint of the pools they serve",
        None,
    ),
    OwnedValue(
        ("nfd", "enabled"),
        "the operator finds its GPU nodes by the label Node Feature Discovery gives them "
        "(feature.node.kubernetes.io/pci-10de.present), and NVIDIA turns NFD off only where NFD already runs; the "
        "library runs no other NFD and sets no such label (a pool may not), on any cloud, so no operand would run",
        None,
    ),
    OwnedValue(
        ("gfd", "enabled"),
        "GPU feature discovery labels the nodes nvidia.com/mps.capable, which the operator's MPS control daemon "
        "selects (its DaemonSet nvidia-device-plugin-mps-control-daemon: nvidia.com/gpu.deploy.device-plugin=true, "
        "nvidia.com/mps.capable=true); without it an MPS pool's device plugin waits for the daemon forever",
        None,
    ),
    OwnedValue(("clusterPolicy", "deployCR"), "the GPU stack decides ClusterPolicy or GPUCluster", "dra_installer"),
    OwnedValue(("gpuCluster", "deployCR"), "the GPU stack decides ClusterPolicy or GPUCluster", "dra_installer"),
    OwnedValue(("draDriver", "featureGates"), "the DRA driver's feature gates, which the claim rules read", None),
)
"""GPU Operator chart values the library decides, which ``helm_values`` may not set (nor replace their section)."""


def driver_owned_values(cloud: Cloud, operator_driver: bool) -> tuple[OwnedValue, ...]:
    """Chart values the driver owner decides, beyond :data:`OPERATOR_OWNED_VALUES`: where the operator installs no
    driver (``operator_driver`` false) its ``driver.version`` and ``driver.upgradePolicy`` would be ignored; on the
    cloud's own driver installer (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.driver_installer`, GKE's COS
    installer) the operator finds that driver and keeps its toolkit by ``hostPaths.driverInstallDir``,
    ``toolkit.installDir`` and ``cdi.enabled``, which the library sets to the installer's (NVIDIA's GKE guide)."""
    if operator_driver:
        return ()
    ignored = "the operator installs no driver here (operator_driver false), so it would be ignored"
    owned = [
        OwnedValue(("driver", "version"), ignored, "operator_driver"),
        OwnedValue(("driver", "upgradePolicy"), ignored, "operator_driver"),
    ]
    installer = facts_for(cloud).gpu_operator.driver_installer
    if installer is not None:
        where = f"{installer.driver_root}, where {facts_for(cloud).service}'s driver installer puts the driver"
        owned += [
            OwnedValue(("hostPaths", "driverInstallDir"), f"the operator finds the driver in {where}", None),
            OwnedValue(("toolkit", "installDir"), f"the toolkit goes beside the driver in {where}", None),
            OwnedValue(("cdi", "enabled"), "NVIDIA's guide for the cloud's driver installer turns CDI on", None),
        ]
    return tuple(owned)


def driver_owned_value_problems(
    cloud: Cloud, operator_driver: bool, helm_values: object, prefix: str = ""
) -> list[Problem]:
    """``helm_values`` setting a value of :func:`driver_owned_values`, but not at a path the problems of
    :data:`OPERATOR_OWNED_VALUES` name already: a section of both (``driver`` given as a scalar) is refused once.
    ``prefix`` goes before ``helm_values`` in the paths (``gpu_operator.``)."""
    reported = {problem.path for problem in owned_value_problems(OPERATOR_OWNED_VALUES, helm_values, prefix)}
    return [
        problem
        for problem in owned_value_problems(driver_owned_values(cloud, operator_driver), helm_values, prefix)
        if problem.path not in reported
    ]


class NvidiaGpuOperatorArgs(TypedDict):
    """Inputs of :class:`NvidiaGpuOperator` (the fields of every add-on,
    :class:`~gpu_components.kubernetes.addon.GpuAddOnArgs`, and the operator's own). The served pools' cloud also gives
    AKS and GKE the settings NVIDIA's guides give for them."""

    pools: AddOnPools
    """The pools the operator serves: at least one, all of one cloud, with unique pool names. Each is a node-pool
    component built with gpu_stack ``gpu-operator`` (``EksGpuNodeGroup``, ``AksGpuNodePool``, ``GkeGpuNodePool``;
    Python only) or the pool as plain values, a cluster pool (:class:`~gpu_components.cluster.ClusterPoolArgs`, as a
    ``GpuCluster`` or stack config pool writes it, with its optional ``aws``/``azure``/``gcp`` block) on ``cloud``,
    taken as built with gpu_stack ``gpu-operator``; the two may be mixed. The nodes then carry the labels of
    ``operator_node_labels``; Bottlerocket NVIDIA pools keep their host device plugin and are refused, and so is a
    pool served by its cloud or the device plugin add-on, with an error naming who advertises it."""
    cloud: NotRequired[CloudArg]
    """The cloud of the pools given as plain values: ``aws``, ``azure`` or ``gcp``. Required when any pool is a plain
    cluster pool, which it decides the rules of; it must equal the cloud of the node-pool components given with them.
    Defaults to none."""
    namespace: NotRequired[str]
    """Namespace to create and install into (a DNS-1123 label; labelled for privileged pods). Defaults to
    ``gpu-operator``, the one NVIDIA's install instructions use."""
    chart_version: NotRequired[str]
    """Version of NVIDIA's ``gpu-operator`` chart. Defaults to the pinned, tested ``v26.7.0``."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw chart values merged over the rendered ones (escape hatch). Defaults to none. The values the library decides
    (``OPERATOR_OWNED_VALUES``: ``driver.enabled``, ``toolkit.enabled``, ``mig.strategy``, ``devicePlugin.enabled``,
    ``devicePlugin.config``, ``migManager.enabled``, ``migManager.config``, ``daemonsets.tolerations``,
    ``node-feature-discovery.worker.tolerations``, ``nfd.enabled``: the operator finds its GPU nodes by NFD's
    ``feature.node.kubernetes.io/pci-10de.present`` label, which nothing else gives them on any cloud,
    ``gfd.enabled``) are refused, as is a value that is not a mapping above one of them."""
    operator_driver: NotRequired[bool]
    """The operator installs the NVIDIA driver and container toolkit. Defaults to false on EKS and AKS (the EKS
    NVIDIA AMIs and AKS's default images ship both) and true on GKE (NVIDIA's GKE guide turns GKE's installation off).
    Must agree with each pool's own driver setting (EKS ``ami_type``, AKS ``gpu_driver``, GKE ``driver_version``):
    exactly one driver owner per pool. False on GKE: Google's driver installer DaemonSet installs the driver on
    Container-Optimized OS nodes (the component applies it; ``GkeGpuNodePool`` pools built with ``operator_driver``
    false), and the operator keeps its container toolkit."""
    dcgm_exporter: NotRequired[bool]
    """Run NVIDIA's DCGM exporter (GPU metrics for Prometheus). Defaults to true."""
    service_monitor: NotRequired[bool]
    """Create a ServiceMonitor for the exporter; only when the Prometheus Operator's CRDs are installed, and only with
    ``dcgm_exporter``. Defaults to false."""
    dra_installer: NotRequired[DraInstallerArg]
    """Serve pools whose GPUs NVIDIA's DRA driver publishes (``gpu_access: dra`` pools built with gpu_stack ``dra``;
    plain pools taken as such) instead of device-plugin pools: ``chart``: beside the DRA driver's own chart
    (:class:`~gpu_components.kubernetes.NvidiaDraDriver`) a ClusterPolicy with the operator's device plugin off
    (``devicePlugin.enabled: false``), for the DRA pools that need its MIG manager or driver; ``gpu-operator``: a
    GPUCluster, the operator deploying the DRA driver itself (no MIG manager, no driver: MIG pools and
    ``operator_driver`` are refused). Defaults to none: a ClusterPolicy with its device plugin
    (``gpu_stack: gpu-operator``)."""
    driver_upgrade: NotRequired[DriverUpgradeSettingsArgs]
    """How the operator rolls a new driver version over its nodes (``driver.upgradePolicy``), where it installs the
    driver (``operator_driver``; refused otherwise): one node at a time, at most 25% unavailable, waiting up to an hour
    for the pods the workload helpers label long-running (``gpu-components/long-running=true``), five minutes for GPU
    pod deletion, no drain. Defaults to that policy, rendered whole. Timeouts of 0 (forever) and
    ``maxParallelUpgrades`` 0 (every node at once, unless ``all_nodes_at_once``) are refused here and in
    ``helm_values.driver.upgradePolicy``."""
    dra_feature_gates: NotRequired[list[DraFeatureGateArg]]
    """The DRA driver's feature gates to turn on, with ``dra_installer`` ``gpu-operator`` only
    (``draDriver.featureGates``). Defaults to none."""


class NvidiaGpuOperator(pulumi.ComponentResource):
    """Namespace, device plugin and mig-parted ConfigMaps, and the ``gpu-operator`` Helm release.

    The device plugin uses the same per-pool config entries as the bare plugin (selected by the node label
    ``nvidia.com/device-plugin.config``); the MIG manager applies each MIG pool's layout (selected by
    ``nvidia.com/mig.config``). A change of either config rolls the operand that reads it. Every operand and the
    node-feature-discovery worker tolerate every pool taint.

    With ``dra_installer`` it serves DRA pools (``gpu_stack: dra``): ``chart``, beside NVIDIA's DRA driver chart, a
    ClusterPolicy with its device plugin off (``devicePlugin.enabled: false``; NVIDIA's DRA install guide,
    :data:`~gpu_components.nvidia.gpu_operator.SOURCE_OPERATOR_DRA`), its MIG manager and driver for those pools, the
    pools staying the DRA driver's (not marked served); ``gpu-operator``, a GPUCluster that deploys the DRA driver
    (:func:`~gpu_components.nvidia.gpu_operator.gpu_cluster_values`). The ConfigMaps are created in every mode.

    The Helm release waits for every resource the component's ``depends_on`` names, besides its ConfigMaps. Beside
    the DRA driver chart, give it that chart's component (:class:`~gpu_components.kubernetes.NvidiaDraDriver`; the
    :class:`~gpu_components.cluster.GpuCluster` does): both charts ship the ComputeDomain CRDs in ``crds/``, in
    different versions, and Helm installs a chart's ``crds/`` only where absent, never upgrading them, so the first
    release to install owns them (:data:`~gpu_components.nvidia.gpu_operator.SOURCE_COMPUTE_DOMAIN_CRDS`).

    On GKE with ``operator_driver`` false (NVIDIA's GKE guide, "Using the Google Driver Installer") it applies
    Google's driver installer DaemonSet for Container-Optimized OS from its pinned URL
    (:data:`~gpu_components.gcp.facts.GKE_COS_OPERATOR`), and points the operator's driver root and toolkit at
    the installer's directory (:func:`~gpu_components.nvidia.gpu_operator.gpu_operator_values`).

    Children: ``<name>-namespace``, ``<name>-device-plugin-config``, ``<name>-mig-config``,
    ``<name>-resource-quota`` (where the cloud needs one: GKE), ``<name>-driver-installer`` (a
    ``kubernetes.yaml.v2.ConfigFile``, on the cloud's own driver installer: GKE with ``operator_driver`` false),
    ``<name>-release``. Providers: ``kubernetes``.

    Outputs (known after deployment): ``namespace``, ``device_plugin_config_map_name``, ``mig_config_map_name``,
    ``release_name``. Other attributes (plain values, known at preview, but ``release``): ``specs``,
    ``device_plugin_configs`` and ``mig_configs`` (the ConfigMaps' data), ``values`` (the chart values), ``release``
    (the Helm release), ``driver_installer`` (the ConfigFile, or ``None``).

    Raises:
        GpuSpecError: invalid pools, MIG pools with different strategies, MIG config names with two layouts, a
            ServiceMonitor without the exporter, driver upgrade settings that would break an upgrade or be ignored
            (:func:`~gpu_components.nvidia.driver_upgrade.driver_upgrade_problems`), a node-pool component built
            for the other driver owner (:func:`~gpu_components.nvidia.gpu_operator.driver_node_os_problems`), before
            anything is registered.
    """

    namespace: pulumi.Output[str]
    """Namespace the operator runs in."""
    device_plugin_config_map_name: pulumi.Output[str]
    """Name of the ConfigMap of per-pool device plugin configs (``gpu-operator-device-plugin-configs``)."""
    mig_config_map_name: pulumi.Output[str]
    """Name of the ConfigMap of the MIG pools' mig-parted layouts (``gpu-operator-mig-parted-config``)."""
    release_name: pulumi.Output[str]
    """Name of the Helm release (``gpu-operator``)."""

    def __init__(self, name: str, args: NvidiaGpuOperatorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        owned = owned_value_problems(
            OPERATOR_OWNED_VALUES, args.get("helm_values") if isinstance(args, Mapping) else None
        )
        if isinstance(args, Mapping):
            owned += chart_version_problems(args.get("chart_version"), "chart_version")
        given: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
        installer = value_of(given.get("dra_installer"))
        modes: dict[str | None, OperatorMode] = {None: "device-plugin", "chart": "mig-manager"}
        mode = modes.get(installer, "gpu-cluster")
        if "dra_feature_gates" in given and installer != "gpu-operator":
            owned.append(
                Problem(
                    "dra_feature_gates",
                    given["dra_feature_gates"],
                    "the DRA driver's feature gates, but the operator deploys no DRA driver unless dra_installer is "
                    "gpu-operator: they would be ignored",
                    "dra_installer gpu-operator, or no dra_feature_gates",
                )
            )
        owned += gpu_stack_problems("NvidiaGpuOperator", name, opts, mode)
        if installer is None:
            served, settings = served_pools(name, NvidiaGpuOperatorArgs, args, "gpu-operator", "gpu-operator", owned)
        else:
            served, settings = served_pools(
                name, NvidiaGpuOperatorArgs, args, "dra-driver", "dra", owned, advertises=mode == "gpu-cluster"
            )
        cloud, specs = served.cloud, served.specs
        dcgm_exporter = settings.get("dcgm_exporter", True)
        service_monitor = settings.get("service_monitor", False)
        defaults: dict[OperatorMode, bool] = {
            "device-plugin": default_operator_driver(cloud),
            "mig-manager": any(operator_installs_driver(cloud, value) for value, _, _ in served.driver_settings),
            "gpu-cluster": False,
        }
        default_driver = defaults[mode]
        operator_driver = settings.get("operator_driver", default_driver)
        problems = [
            problem
            for spec, (driver, path, given) in zip(specs, served.driver_settings, strict=True)
            for problem in driver_owner_problems(
                cloud, driver, operator_driver, "", path, "operator_driver", spec.cpu_architecture, given
            )
        ]
        if mode == "gpu-cluster":
            problems += gpu_cluster_problems(specs, operator_driver)
        problems += driver_owned_value_problems(cloud, operator_driver, settings.get("helm_values"))
        problems += driver_node_os_problems(
            cloud, operator_driver, [(spec.name, node_os(pool)) for spec, pool in zip(specs, served.pools, strict=True)]
        )
        problems += gpu_operator_problems(specs, dcgm_exporter, service_monitor)
        problems += driver_upgrade_problems(
            settings.get("driver_upgrade"), settings.get("helm_values"), operator_driver
        )
        if problems:
            raise GpuSpecError(problems)
        join_cluster("NvidiaGpuOperator", name, opts, mode)
        self.mode: OperatorMode = mode
        super().__init__("gpu-components:index:NvidiaGpuOperator", name, None, opts)
        self.specs: tuple[GpuNodePoolSpec, ...] = specs
        pool_oses = [(spec.name, node_os(pool)) for spec, pool in zip(specs, served.pools, strict=True)]
        os_note = mixed_node_os_note(cloud, pool_oses)
        if os_note is not None:
            pulumi.log.warn(os_note, resource=self)
        self.device_plugin_configs: dict[str, str] = device_plugin_config_map(specs, mig_strategy(specs))
        self.mig_configs: dict[str, str] = mig_config_map(specs)
        if mode == "gpu-cluster":
            self.values: dict[str, Any] = gpu_cluster_values(
                specs,
                [value_of(gate) for gate in settings.get("dra_feature_gates", [])],
                dcgm_exporter=dcgm_exporter,
                service_monitor=service_monitor,
                node_taints=served.node_taints,
                overrides=settings.get("helm_values"),
            )
        else:
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
                device_plugin=mode == "device-plugin",
                driver_upgrade=settings.get("driver_upgrade"),
            )
        policy = self.values.get("driver", {}).get("upgradePolicy")
        for warning in driver_upgrade_warnings(policy) if isinstance(policy, Mapping) and operator_driver else ():
            pulumi.log.warn(warning, resource=self)
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
        installer = facts_for(cloud).gpu_operator.driver_installer
        # The cloud's installer and the operator need no ordering: the operator's validator waits for the driver.
        self.driver_installer: k8s.yaml.v2.ConfigFile | None = (
            k8s.yaml.v2.ConfigFile(f"{name}-driver-installer", file=installer.manifest, opts=child)
            if installer is not None and mode == "device-plugin" and not operator_driver
            else None
        )
        release_opts = pulumi.ResourceOptions(parent=self, depends_on=needs)
        if opts is not None and opts.depends_on is not None:
            # Pulumi gives a component's depends_on to none of its children: the release takes it itself.
            release_opts = pulumi.ResourceOptions.merge(
                release_opts, pulumi.ResourceOptions(depends_on=opts.depends_on)
            )
        self.release: k8s.helm.v3.Release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=GPU_OPERATOR_CHART,
            version=settings.get("chart_version", GPU_OPERATOR_CHART_VERSION),
            repository_opts={"repo": GPU_OPERATOR_REPOSITORY},
            namespace=namespace.metadata.name,
            values=self.values,
            opts=release_opts,
        )
        self.namespace = namespace.metadata.name
        self.device_plugin_config_map_name = device_plugin_config.metadata.name
        self.mig_config_map_name = mig_config.metadata.name
        self.release_name = cast(pulumi.Output[str], self.release.name)  # always set: the library names the release
        self.register_outputs(
            {
                "namespace": self.namespace,
                "devicePluginConfigMapName": self.device_plugin_config_map_name,
                "migConfigMapName": self.mig_config_map_name,
                "releaseName": self.release_name,
            }
        )
