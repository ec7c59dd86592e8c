"""Pure renderers and rules for the NVIDIA GPU Operator: who owns the driver, node labels, and Helm values.

The GPU Operator (chart ``gpu-operator`` v26.7.0 from https://helm.ngc.nvidia.com/nvidia) runs the driver,
container toolkit, device plugin, GPU feature discovery, MIG manager and DCGM exporter as DaemonSets on every GPU
node it finds. This module decides, from plain values, what it must and must not do on the pools it serves:

- **One driver owner per node** (:func:`driver_owner_problems`): the node image or the cloud installs the NVIDIA
  driver, *or* the operator does (``driver.enabled``). Two owners, or none, is an error naming both settings. Which
  pool option decides it, its default and the value that turns the node's installation off are each cloud's facts
  (:attr:`~gpu_components.cloud_facts.CloudFacts.driver`: EKS NVIDIA AMIs always install it; AKS unless the pool's
  ``gpu_driver`` is ``none``; GKE unless its ``driver_version`` is ``INSTALLATION_DISABLED``, which GKE requires
  under the operator).
- **The device plugin config** is the bare plugin's
  (:func:`~gpu_components.nvidia.device_plugin.device_plugin_config_map`: ``default`` plus one entry per pool,
  selected by the node label ``nvidia.com/device-plugin.config``). The operator does not watch that ConfigMap
  (NVIDIA: "The Operator does not monitor the time-slicing config maps"), so the values carry the configs' hash
  as an environment variable of the device plugin container: a changed config changes the DaemonSet's pod
  template and the operator rolls it. The MIG manager gets the same treatment: it reads its config file when it
  starts and then only watches the node label.
- **MIG** through the MIG manager: the mig-parted config of :mod:`gpu_components.nvidia.mig` in its own ConfigMap
  (``migManager.config``, default ``all-disabled``) and the node label ``nvidia.com/mig.config``. The operator has
  one ``mig.strategy`` per cluster, so all MIG pools it serves must share one strategy (pools without MIG work under
  either: a GPU without MIG is advertised as ``nvidia.com/gpu`` by both strategies).
- **Tolerations**: ``daemonsets.tolerations`` (every operand) and ``node-feature-discovery.worker.tolerations``
  (without NFD's labels the operator never recognises a GPU node) cover every pool taint.
- **What a cloud needs beyond the defaults** (node labels, toolkit environment, CDI, the runtime class of the node
  image's toolkit, a ResourceQuota) is that cloud's facts
  (:attr:`~gpu_components.cloud_facts.CloudFacts.gpu_operator`, from NVIDIA's guide for the cloud); this module
  renders them and names no cloud.

Facts and sources (GPU Operator v26.7.0 unless said otherwise):
- Chart values: https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml; the
  version string ``v26.7.0`` (with ``v``) as in ``helm show values nvidia/gpu-operator --version=v26.7.0``
  (NVIDIA's Helm values reference) and the repository's tag.
- Chart defaults that matter here: ``dcgmExporter.serviceMonitor.enabled: true`` (needs the Prometheus Operator's
  CRD, so the library states it), ``cdi.enabled: true``, ``mig.strategy: single``,
  ``daemonsets.tolerations`` and ``node-feature-discovery.worker.tolerations`` (``nvidia.com/gpu`` Exists).
- Device plugin env and config handling: ``controllers/object_controls.go`` (``TransformDevicePlugin``,
  ``handleDevicePluginConfig``); restart after a config change: NVIDIA "Time-Slicing GPUs in Kubernetes",
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html
- MIG manager (``WITH_REBOOT``; config read at start, then the label watched): NVIDIA "GPU Operator with MIG",
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html ("In a CSP environment
  such as Google Cloud, also specify ... WITH_REBOOT ... true"), mig-parted v0.15.0
  ``cmd/nvidia-mig-manager/main.go`` and ``deployments/container/reconfigure-mig.sh`` (reboots only when the MIG
  mode change did not take effect).
- Per-node operand switches ``nvidia.com/gpu.deploy.<operand>=false`` are honoured by the operator
  (``controllers/state_manager.go``, ``addGPUStateLabels``); NVIDIA "Installing the NVIDIA GPU Operator",
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html
- ``nvidia.com/gpu.deploy.operands=false`` is read only under a ClusterPolicy (``hasOperandsDisabled`` in
  ``gpuWorkloadConfiguration.updateGPUStateLabels``, ``controllers/state_manager.go``): it keeps every operand off
  the node. Under a GPUCluster (DRA installer ``gpu-operator``) the node labeller never reads it: it sets
  ``nvidia.com/gpu.deploy.{driver,dra-driver,dra-validator,dcgm-dra,dcgm-exporter-dra}=true`` on every node with
  ``nvidia.com/gpu.present=true`` (``gpuClusterStateLabels``; ``updateGPUClusterStateLabels`` in
  ``controllers/nodelabeling_controller.go``), and the DRA driver's kubelet plugin DaemonSet selects
  ``nvidia.com/gpu.deploy.dra-driver=true`` (``manifests/state-dra-driver/0500_daemonset.yaml``). So a DRA pool's
  ``operands=false`` (set for a ClusterPolicy beside the DRA driver chart) leaves a GPUCluster's DRA driver running
  there. The GPUCluster defines no driver (``driver.nvidiaDriverCRD.enabled`` is false by default: no
  NVIDIADriver), and the chart pins its DRA driver at ``draDriver.version`` ``v0.5.0``.
- Each cloud's needs: its facts module (``gpu_components.<cloud>.facts``), with NVIDIA's guide for the cloud.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from gpu_components.catalog import Cloud, CpuArchitecture
from gpu_components.cloud_facts import facts_for
from gpu_components.errors import Combined, Default, GpuSpecError, Problem
from gpu_components.labels import DEVICE_PLUGIN_CONFIG_LABEL, OPERAND_LABEL_PREFIX
from gpu_components.nvidia.device_plugin import (
    DEFAULT_CONFIG_NAME,
    config_hash,
    daemonset_tolerations,
    deep_merge,
    device_plugin_config_map,
)
from gpu_components.nvidia.driver_upgrade import DEFAULT_DRIVER_VERSION, upgrade_policy
from gpu_components.nvidia.mig import ALL_DISABLED, mig_config_map, mig_config_problems, mig_node_labels
from gpu_components.spec import GpuNodePoolSpec, MigStrategy, Mps, Taint

GPU_OPERATOR_CHART = "gpu-operator"
"""Helm chart name of the NVIDIA GPU Operator."""
GPU_OPERATOR_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"
"""The chart's official Helm repository (NVIDIA NGC)."""
GPU_OPERATOR_CHART_VERSION = "v26.7.0"
"""Pinned chart version, spelt as NVIDIA publishes it (with ``v``). Changing it is a deliberate upgrade, noted in
CHANGELOG.md."""

CHART_VERSION_FORM = re.compile(r"v\d+\.\d+\.\d+")
"""The chart's version form, ``vMAJOR.MINOR.PATCH`` (e.g. ``v26.7.0``): NVIDIA's Helm repository index
(:data:`GPU_OPERATOR_REPOSITORY`) publishes every release so."""

DEFAULT_MIG_STRATEGY: MigStrategy = "single"
"""``mig.strategy`` when no pool uses MIG: the chart's own default."""
CONFIG_HASH_ENV = "GPU_COMPONENTS_CONFIG_HASH"
"""Environment variable carrying a ConfigMap's hash into an operand's pod template, so a changed config rolls it
(the operator watches neither the device plugin's nor the MIG manager's ConfigMap). No NVIDIA component reads it."""
WITH_REBOOT_ENV = "WITH_REBOOT"
"""MIG manager setting: reboot the node when a MIG mode change does not take effect without one, as in cloud VMs."""
NFD_WORKER_CONTROL_PLANE_TOLERATION = MappingProxyType(
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Equal", "value": "", "effect": "NoSchedule"}
)
"""The chart's own first NFD worker toleration, kept when the list is replaced."""

SOURCE_OPERATOR_VALUES = "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml"
SOURCE_OPERATOR_MIG = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"
SOURCE_PLUGIN_MPS_MIG_STRATEGY = (
    "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/cmd/nvidia-device-plugin/main.go (validateFlags); "
    "https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/controllers/object_controls.go (applyMIGConfiguration)"
)


# ---------------------------------------------------------------------------------------------------------------
# Driver ownership
# ---------------------------------------------------------------------------------------------------------------


def node_installs_driver(cloud: Cloud, node_driver: str) -> bool:
    """Whether the node image or the cloud installs the NVIDIA driver, given the pool's driver option: unless the
    option is the cloud's :attr:`~gpu_components.cloud_facts.DriverOwnership.off` value (AKS ``gpu_driver`` ``none``,
    GKE ``driver_version`` ``INSTALLATION_DISABLED``; every EKS NVIDIA AMI ships the driver)."""
    return node_driver != facts_for(cloud).driver.off


def default_operator_driver(cloud: Cloud) -> bool:
    """Whether the operator installs the driver when ``operator_driver`` is not given: yes where the cloud's own
    installation must be off under the operator
    (:attr:`~gpu_components.cloud_facts.DriverOwnership.operator_exclusive`, GKE), no elsewhere (EKS NVIDIA AMIs
    and AKS install it)."""
    return bool(facts_for(cloud).driver.operator_exclusive)


def driver_owner_problems(
    cloud: Cloud,
    node_driver: str | None,
    operator_driver: bool,
    path: str = "",
    node_driver_path: str | None = None,
    operator_driver_path: str = "gpu_operator.operator_driver",
    cpu_architecture: CpuArchitecture = "x86_64",
    node_driver_set: bool = True,
) -> list[Problem]:
    """The one driver-ownership rule of a pool served by the GPU Operator: exactly one party installs the driver.

    The cloud's part is data, its :class:`~gpu_components.cloud_facts.DriverOwnership`: the pool option that
    decides (EKS ``ami_type``, AKS ``gpu_driver``, GKE ``driver_version``), its default, the value that turns the
    node's installation off, and whether that installation must be off under the operator.

    Args:
        cloud: the pool's cloud.
        node_driver: the pool's driver option; ``None`` for the node-pool component's default under the operator.
        operator_driver: whether the operator installs the driver (``driver.enabled``).
        path: where the pool sits in the input, e.g. ``pools[0]``.
        node_driver_path: where ``node_driver`` sits. Defaults to ``<path>.<cloud>.<option>``.
        operator_driver_path: where ``operator_driver`` sits.
        cpu_architecture: the pool's CPU architecture, which picks the default of ``node_driver`` (EKS: the AL2023
            NVIDIA AMI of the architecture). Defaults to ``x86_64``.
        node_driver_set: ``False`` when ``node_driver`` is the default a node-pool component filled in, not a value
            its args gave; the problem then shows it as the default. Defaults to ``True``.

    Returns one problem (at ``node_driver_path``, naming both settings; an unset ``node_driver`` shown as its default,
    ``(default: AL2023_x86_64_NVIDIA)``) when both or neither install the driver,
    and, where the cloud's installation must be off under the operator, when it is on: NVIDIA's GKE guide requires
    ``gpu-driver-version=disabled`` with the operator, so on GKE only ``driver_version: INSTALLATION_DISABLED``
    passes: with ``operator_driver: true`` the operator's driver manager installs the driver (NVIDIA supports it on
    Ubuntu node images), with ``false`` the cloud's own installer does
    (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.driver_installer`: Google's driver installer DaemonSet on
    Container-Optimized OS, which the operator component applies).
    """
    facts = facts_for(cloud)
    rule = facts.driver
    chosen = node_driver if node_driver is not None else rule.defaults[cpu_architecture]
    prefix = f"{path}." if path else ""
    where = node_driver_path if node_driver_path is not None else f"{prefix}{cloud}.{rule.setting}"
    # An unset driver option is shown as its default, never as a value the user wrote.
    shown: object = chosen if node_driver is not None and node_driver_set else Default(chosen)
    node = node_installs_driver(cloud, chosen)
    both = f"{rule.setting} {chosen} and {operator_driver_path} {str(operator_driver).lower()}"
    needs = f" ({rule.operator_driver_needs})" if rule.operator_driver_needs else ""
    if rule.operator_exclusive and node:
        reason = f"{facts.service} would install it" + (" and so would the GPU Operator" if operator_driver else "")
        installer = facts.gpu_operator.driver_installer
        valid = f"{rule.setting} {rule.off} with {operator_driver_path} true{needs}"
        if installer is not None and not operator_driver:
            valid = (
                f"{rule.setting} {rule.off} (with {operator_driver_path} false, {facts.service}'s driver installer "
                f"installs it on {installer.node_os} nodes)"
            )
        return [Problem(where, shown, f"{reason} ({both}); {rule.operator_exclusive}", valid, rule.source)]
    if node and operator_driver:
        return [
            Problem(
                where,
                shown,
                f"two parties would install the NVIDIA driver: the {rule.owner} and the GPU Operator ({both})",
                f"{operator_driver_path} false (every {rule.owner} ships the driver)"
                if rule.off is None
                else f"{operator_driver_path} false, or {rule.setting} {rule.off} with {operator_driver_path} true",
                rule.source,
            )
        ]
    if not node and not operator_driver and facts.gpu_operator.driver_installer is None:
        return [
            Problem(
                where,
                shown,
                f"nobody would install the NVIDIA driver: not the {rule.owner} and not the GPU Operator ({both})",
                f"{operator_driver_path} true{needs}"
                if rule.operator_exclusive
                else f"{operator_driver_path} true{needs}, or {rule.setting} {rule.defaults[cpu_architecture]}",
                rule.source,
            )
        ]
    return []


def driver_node_os_problems(
    cloud: Cloud, operator_driver: bool, pools: Sequence[tuple[str, str | None]], path: str = ""
) -> list[Problem]:
    """Pools whose nodes run the OS of the other driver owner, on a cloud where the operator's driver and the cloud's
    own installer (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.driver_installer`) each serve one node OS
    (GKE: Ubuntu for the operator's driver, Container-Optimized OS for Google's installer). ``pools``: each pool's name
    and node OS (:attr:`~gpu_components.adapter.PoolView.node_os`, ``None`` where unknown: not checked). One problem
    per such pool, at ``<path>.pools[<i>]``: the operator's driver containers do not run on the installer's OS, and
    the installer the library applies serves only its own."""
    needs = facts_for(cloud).gpu_operator
    installer = needs.driver_installer
    if installer is None or needs.operator_driver_node_os is None:
        return []
    wanted = needs.operator_driver_node_os if operator_driver else installer.node_os
    other = installer.node_os if operator_driver else needs.operator_driver_node_os
    who = "the GPU Operator's driver" if operator_driver else f"{facts_for(cloud).service}'s driver installer"
    prefix = f"{path}." if path else ""
    return [
        Problem(
            f"{prefix}pools[{index}]",
            name,
            f"its nodes run {node_os}, but with operator_driver {str(operator_driver).lower()} {who} installs the "
            f"NVIDIA driver, which serves {wanted} nodes only",
            f"the pool built with operator_driver {str(operator_driver).lower()} ({wanted} nodes), or "
            f"operator_driver {str(not operator_driver).lower()} ({other} nodes)",
            installer.source,
        )
        for index, (name, node_os) in enumerate(pools)
        if node_os is not None and node_os != wanted
    ]


# ---------------------------------------------------------------------------------------------------------------
# Node labels
# ---------------------------------------------------------------------------------------------------------------


def _os_family_and_version(node_os: str) -> tuple[str, str | None]:
    """A pool's ``node_os`` (:attr:`~gpu_components.adapter.PoolView.node_os`: a family, then a version where one is
    named, e.g. ``Ubuntu 22.04``) as its family and version (``None``: the cloud's default version of the family)."""
    family, _, version = node_os.rpartition(" ")
    return (family, version) if family and version[:1].isdigit() else (node_os, None)


def mixed_node_os_note(cloud: Cloud, pools: Sequence[tuple[str, str | None]]) -> str | None:
    """The warning for one GPU Operator serving pools of more than one node OS (``pools``: each pool's name and node
    OS, a family with a version where one is named, ``None`` where its cloud offers one), or ``None``: pools of two
    OS families, or of two versions both named (``Ubuntu 22.04`` and ``Ubuntu 24.04``). A family without a version
    (``Ubuntu``) is the cloud's default version of it, which depends on the Kubernetes version, so it is not told
    apart from a named one. AKS documents the operator as not compatible with several OS versions in one cluster: its
    driver and container toolkit differ per OS (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.
    one_node_os_source`)."""
    source = facts_for(cloud).gpu_operator.one_node_os_source
    by_os: dict[str, list[str]] = {}
    versions: dict[str, set[str]] = {}
    for name, node_os in pools:
        if node_os is not None:
            by_os.setdefault(node_os, []).append(name)
            family, version = _os_family_and_version(node_os)
            versions.setdefault(family, set()).update([version] if version is not None else [])
    if source is None or (len(versions) < 2 and all(len(named) < 2 for named in versions.values())):
        return None
    spans = "; ".join(f"{node_os}: {', '.join(names)}" for node_os, names in sorted(by_os.items()))
    return (
        f"the GPU Operator serves pools of more than one node OS ({spans}); its driver and container toolkit are "
        f"per OS and {facts_for(cloud).service} documents it as not compatible with several OS versions in one "
        f"cluster: keep its pools on one OS family and version [source: {source}]"
    )


def operand_off_label(operand: str) -> dict[str, str]:
    """The node label that keeps one operand (``device-plugin``, ``mig-manager``, ``driver``, ...) off a node."""
    return {f"{OPERAND_LABEL_PREFIX}{operand}": "false"}


def operator_node_labels(
    spec: GpuNodePoolSpec, cloud: Cloud, host_device_plugin: bool = False, host_mig: bool = False
) -> dict[str, str]:
    """Node labels a pool served by the GPU Operator needs, sorted.

    - ``nvidia.com/device-plugin.config=<pool>``: the pool's entry of the device plugin config.
    - ``nvidia.com/mig.config``: the pool's MIG layout, or ``all-disabled`` on a MIG-capable GPU without MIG.
    - ``host_device_plugin`` (the node image runs its own device plugin, as Bottlerocket NVIDIA does):
      ``nvidia.com/gpu.deploy.device-plugin=false``, so no node has two advertisers of ``nvidia.com/gpu``; such an
      image makes its MIG partitions itself too, so it implies ``host_mig``.
    - ``host_mig`` (the image or the cloud makes the MIG partitions, as Bottlerocket's settings and AKS's
      ``gpuInstanceProfile`` do): ``nvidia.com/gpu.deploy.mig-manager=false`` and no ``nvidia.com/mig.config``, so
      the MIG manager never re-partitions against them.
    - the labels the cloud needs on every node the operator serves
      (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.node_labels`; GKE:
      ``gke-no-default-nvidia-gpu-device-plugin=true``, GKE's own device plugin off).
    """
    labels = {DEVICE_PLUGIN_CONFIG_LABEL: spec.name}
    if host_device_plugin:
        labels.update(operand_off_label("device-plugin"))
    if host_device_plugin or host_mig:
        labels.update(operand_off_label("mig-manager"))
    else:
        labels.update(mig_node_labels(spec))
    labels.update(facts_for(cloud).gpu_operator.node_labels)
    return dict(sorted(labels.items()))


# ---------------------------------------------------------------------------------------------------------------
# Operator-wide rules and values
# ---------------------------------------------------------------------------------------------------------------


def mig_strategy(specs: Sequence[GpuNodePoolSpec]) -> MigStrategy:
    """The cluster's ``mig.strategy``: that of the first MIG pool, else :data:`DEFAULT_MIG_STRATEGY`."""
    return next((spec.mig.strategy for spec in specs if spec.mig is not None), DEFAULT_MIG_STRATEGY)


def mps_under_mixed_strategy_problems(specs: Sequence[GpuNodePoolSpec], path: str = "") -> list[Problem]:
    """MPS pools among ``specs`` when the operator's MIG strategy (:func:`mig_strategy`) is ``mixed``: one problem
    per MPS pool, at ``<path>.pools[<i>].mps``, naming it, the MIG pool that makes the strategy ``mixed`` and why;
    its value is the two fields that combine (:class:`~gpu_components.errors.Combined`), not the pool's MPS
    settings with their defaults filled in.

    The operator puts its one ``mig.strategy`` into every device plugin pod as ``MIG_STRATEGY`` (GPU Operator
    v26.7.0 ``controllers/object_controls.go``: ``TransformDevicePlugin`` and ``TransformMPSControlDaemon`` call
    ``applyMIGConfiguration``, which sets it whenever the strategy is not empty, and the chart renders
    ``mig.strategy`` into the ClusterPolicy, ``deployments/gpu-operator/templates/clusterpolicy.yaml``). The device
    plugin takes a flag set in the environment over its config file (k8s-device-plugin v0.20.0
    ``api/config/v1/flags.go``, ``updateFromCLIFlag``), so an MPS pool's own entry ``migStrategy: none`` is
    overridden, and the plugin refuses to start: "using --mig-strategy=mixed is not supported with MPS"
    (``cmd/nvidia-device-plugin/main.go``, ``validateFlags``). ``single`` passes that check, so MPS pools work beside
    ``single`` MIG pools. (An empty ``mig.strategy`` would leave the strategy to each node's config entry,
    ``applyMIGConfiguration``'s first branch; the library keeps one cluster-wide strategy, whose rule is above.)
    """
    strategy = mig_strategy(specs)
    decider = next(((index, spec) for index, spec in enumerate(specs) if spec.mig is not None), None)
    if strategy != "mixed" or decider is None:
        return []
    prefix = f"{path}." if path else ""
    mig_index, mig_pool = decider
    problems: list[Problem] = []
    for index, spec in enumerate(specs):
        if not isinstance(spec.sharing, Mps):
            continue
        problems.append(
            Problem(
                f"{prefix}pools[{index}].mps",
                Combined((f"{prefix}pools[{index}].mps", f"{prefix}pools[{mig_index}].mig.strategy")),
                f"MPS pool {spec.name} and {prefix}pools[{mig_index}] ({mig_pool.name}), whose MIG strategy is "
                "mixed, cannot share one GPU Operator: the operator sets its one mig.strategy (mixed) in every "
                "device plugin pod, over each pool's own config entry, and the device plugin refuses to start "
                'with MPS under it ("using --mig-strategy=mixed is not supported with MPS")',
                f"time_slicing instead of mps on {spec.name}, or mig.strategy single on {mig_pool.name} (one "
                "profile per GPU: a mig.profile)",
                SOURCE_PLUGIN_MPS_MIG_STRATEGY,
            )
        )
    return problems


def chart_version_problems(chart_version: object, path: str) -> list[Problem]:
    """A ``chart_version`` string not wholly in the chart's :data:`CHART_VERSION_FORM` (a trailing newline, no
    ``v``): Helm would find no such chart version at apply time. Not a string is a shape error, not this one's."""
    if not isinstance(chart_version, str) or CHART_VERSION_FORM.fullmatch(chart_version):
        return []
    return [
        Problem(
            path,
            chart_version,
            "not a GPU Operator chart version",
            f"vMAJOR.MINOR.PATCH, e.g. {GPU_OPERATOR_CHART_VERSION}",
            GPU_OPERATOR_REPOSITORY,
        )
    ]


def gpu_operator_problems(
    specs: Sequence[GpuNodePoolSpec],
    dcgm_exporter: bool = True,
    service_monitor: bool = False,
    path: str = "",
) -> list[Problem]:
    """Rules for the set of pools one operator serves, every problem at once.

    - One MIG strategy: ``mig.strategy`` is a single, cluster-wide value of the operator, so every MIG pool must
      use the first MIG pool's strategy.
    - No MPS pool under the ``mixed`` strategy (:func:`mps_under_mixed_strategy_problems`).
    - MIG config names: two pools may not give one mig-parted config name different layouts.
    - ``service_monitor`` needs ``dcgm_exporter`` (the ServiceMonitor scrapes the exporter).

    Args:
        path: prefix of the pools' paths (``pools[<i>]`` under it) and of ``service_monitor``.
    """
    prefix = f"{path}." if path else ""
    problems: list[Problem] = []
    mig_pools = [(index, spec) for index, spec in enumerate(specs) if spec.mig is not None]
    if mig_pools:
        first_index, first = mig_pools[0]
        for index, spec in mig_pools[1:]:
            if spec.mig is not None and first.mig is not None and spec.mig.strategy != first.mig.strategy:
                first_default = "" if first.mig.strategy_set else " (its default)"
                problems.append(
                    Problem(
                        f"{prefix}pools[{index}].mig.strategy",
                        spec.mig.strategy if spec.mig.strategy_set else Default(spec.mig.strategy),
                        f"the GPU Operator has one MIG strategy per cluster (mig.strategy), and "
                        f"{prefix}pools[{first_index}] ({first.name}) uses {first.mig.strategy}{first_default}",
                        first.mig.strategy,
                        SOURCE_OPERATOR_MIG,
                    )
                )
    problems += mps_under_mixed_strategy_problems(specs, path)
    problems += mig_config_problems(specs, f"{prefix}pools")
    if service_monitor and not dcgm_exporter:
        problems.append(
            Problem(
                f"{prefix}service_monitor",
                service_monitor,
                "a ServiceMonitor scrapes the DCGM exporter, which dcgm_exporter false turns off",
                "dcgm_exporter true, or service_monitor false",
                SOURCE_OPERATOR_VALUES,
            )
        )
    return problems


SOURCE_OPERATOR_DRA = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-intro-install.html"
"""NVIDIA "DRA Driver for NVIDIA GPUs" with the GPU Operator: the operator installed with its device plugin disabled
(``devicePlugin.enabled=false``) beside the standalone DRA driver chart, the operator keeping the driver, toolkit and
MIG manager."""
SOURCE_GPU_CLUSTER = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpucluster-reference.html"
"""NVIDIA's GPUCluster reference: the operator's DRA model (DRA driver, DCGM, DCGM exporter; no NVIDIA driver, no
device plugin, no MIG manager; CRD v26.7.0 ``crds/nvidia.com_gpuclusters.yaml``); not beside a ClusterPolicy."""
SOURCE_COMPUTE_DOMAIN_CRDS = (
    "https://github.com/NVIDIA/gpu-operator/tree/v26.7.0/deployments/gpu-operator/crds; "
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/tree/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/crds; "
    "https://helm.sh/docs/chart_best_practices/custom_resource_definitions/"
)
"""Both charts ship ``resource.nvidia.com_computedomains.yaml`` and ``..._computedomaincliques.yaml`` in ``crds/``.
The cliques are the same; the ComputeDomain CRDs differ: the operator's (v26.7.0) requires ``spec.numNodes``, the
DRA driver chart's (v0.4.1) makes it optional (default 0, minimum 0). Neither chart has a value that leaves its
``crds/`` out, only Helm's ``--skip-crds`` (the release's ``skip_crds``), which would drop the operator's own
ClusterPolicy CRD too. Helm installs a chart's ``crds/`` only where absent and never upgrades them (Helm "Custom
Resource Definitions"), and the operator's pre-upgrade hook (``templates/upgrade_crd.yaml``,
``operator.upgradeCRD``) applies only its ClusterPolicy, NVIDIADriver, GPUCluster and NFD CRDs. So the chart
installed first owns the ComputeDomain CRDs: it must be the DRA driver's, whose controller serves them."""
SOURCE_OPERATOR_HELM_VALUES = (
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/helm-values-reference.html"
)
"""NVIDIA's Helm values reference: ``operator.env`` ``DEFAULT_GPU_ALLOCATION_MODE=dra`` for a GPUCluster deployment
("so newly-added GPU nodes use the DRA model")."""
GPU_ALLOCATION_MODE_ENV = "DEFAULT_GPU_ALLOCATION_MODE"
"""The operator's environment variable choosing the allocation model of new GPU nodes (``dra`` under GPUCluster)."""


def gpu_cluster_problems(specs: Sequence[GpuNodePoolSpec], operator_driver: bool, path: str = "") -> list[Problem]:
    """What a GPUCluster (the operator deploying NVIDIA's DRA driver) cannot do for the DRA pools ``specs``: it runs
    no MIG manager, so a MIG pool's GPUs would never be partitioned, and installs no NVIDIA driver
    (``operator_driver`` true). Pools needing the operator's driver get their error from
    :func:`driver_owner_problems` (no owner)."""
    prefix = f"{path}." if path else ""
    problems = [
        Problem(
            f"{prefix}pools[{index}].mig",
            spec.mig.as_given,
            "the GPU Operator's GPUCluster (dra installer gpu-operator) runs no MIG manager, so nothing would "
            "partition the pool's GPUs",
            "dra installer chart (the cluster then runs the GPU Operator's MIG manager with its device plugin off), "
            "or no mig",
            SOURCE_GPU_CLUSTER,
        )
        for index, spec in enumerate(specs)
        if spec.mig is not None
    ]
    if operator_driver:
        problems.append(
            Problem(
                f"{prefix}operator_driver",
                operator_driver,
                "the GPU Operator's GPUCluster (dra installer gpu-operator) installs no NVIDIA driver",
                "false (the node image's or cloud's driver), or dra installer chart",
                SOURCE_GPU_CLUSTER,
            )
        )
    return problems


def gpu_cluster_values(
    specs: Sequence[GpuNodePoolSpec],
    feature_gates: Sequence[str] = (),
    dcgm_exporter: bool = True,
    service_monitor: bool = False,
    node_taints: Sequence[Taint] = (),
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Helm values of the ``gpu-operator`` chart deploying NVIDIA's DRA driver through a GPUCluster for the DRA
    pools ``specs``: ``gpuCluster.deployCR: true`` and ``clusterPolicy.deployCR: false`` (not both, NVIDIA's
    values), new GPU nodes in the DRA model (``operator.env`` :data:`GPU_ALLOCATION_MODE_ENV` ``dra``,
    :data:`SOURCE_OPERATOR_HELM_VALUES`), the driver's ``draDriver.featureGates`` (gate -> true), compute domains
    off (``draDriver.computeDomains.enabled``), the DCGM exporter as asked, and every pool taint tolerated by the
    operands and NFD's worker. ``overrides`` are merged last.

    Raises:
        GpuSpecError: :func:`gpu_cluster_problems` (MIG pools), and a ServiceMonitor without the exporter.
    """
    problems = gpu_cluster_problems(specs, operator_driver=False)
    problems += gpu_operator_problems([], dcgm_exporter, service_monitor)
    if problems:
        raise GpuSpecError(problems)
    tolerations = daemonset_tolerations(specs, node_taints)
    values: dict[str, Any] = {
        "clusterPolicy": {"deployCR": False},
        "gpuCluster": {"deployCR": True},
        "operator": {"env": _env({GPU_ALLOCATION_MODE_ENV: "dra"})},
        "draDriver": {
            "featureGates": {gate: True for gate in sorted(set(feature_gates))},
            "computeDomains": {"enabled": False},
        },
        "dcgmExporter": {"enabled": dcgm_exporter, "serviceMonitor": {"enabled": service_monitor}},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {
            "worker": {"tolerations": [dict(NFD_WORKER_CONTROL_PLANE_TOLERATION), *tolerations]}
        },
    }
    return deep_merge(values, overrides or {})


def _env(values: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in values.items()]


def gpu_operator_values(
    specs: Sequence[GpuNodePoolSpec],
    cloud: Cloud,
    operator_driver: bool,
    device_plugin_config_map_name: str,
    mig_config_map_name: str,
    dcgm_exporter: bool = True,
    service_monitor: bool = False,
    node_taints: Sequence[Taint] = (),
    overrides: Mapping[str, Any] | None = None,
    device_plugin: bool = True,
    driver_upgrade: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Helm values of the ``gpu-operator`` chart serving ``specs`` on ``cloud``.

    Args:
        specs: the validated pools the operator serves.
        cloud: their cloud, whose needs beyond the chart's defaults are its facts
            (:attr:`~gpu_components.cloud_facts.CloudFacts.gpu_operator`: AKS and GKE get the settings NVIDIA's
            guides give for them).
        operator_driver: the operator installs driver and container toolkit (``driver.enabled``,
            ``toolkit.enabled``); False where the node image ships both (EKS NVIDIA AMIs, AKS's default images).
            Checked per pool by :func:`driver_owner_problems`, not here. False on a cloud whose own driver installer
            then installs the driver (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.driver_installer`, GKE's
            on Container-Optimized OS) keeps the toolkit on and points the operator at the installer's driver root:
            ``hostPaths.driverInstallDir`` and ``toolkit.installDir`` (NVIDIA's GKE guide, "Using the Google Driver
            Installer"; its ``cdi.default=true`` is left out: the chart's CRD at v26.7.0 marks ``cdi.default``
            "Deprecated: This field is no longer used", ``cdi.enabled=true`` making CDI the default).
        device_plugin_config_map_name: the existing ConfigMap of device plugin configs (``devicePlugin.config``).
        mig_config_map_name: the existing ConfigMap with the mig-parted config under ``config.yaml``.
        dcgm_exporter: run the DCGM exporter. Defaults to True.
        service_monitor: create a ServiceMonitor for it (only when the Prometheus Operator is installed). Defaults
            to False, although the chart's own default is true: the CRD is not there on a fresh cluster.
        node_taints: taints the cloud puts on nodes itself (e.g. AKS spot), tolerated too. Defaults to none.
        overrides: raw chart values merged last, key by key (the escape hatch). Defaults to none.
        device_plugin: run the operator's device plugin. Defaults to True. False beside NVIDIA's DRA driver chart
            (``devicePlugin.enabled: false``, no device plugin config): the operator then only partitions the DRA
            pools' MIG GPUs and installs their driver where asked, the base NVIDIA's DRA install guide runs the
            driver on (:data:`SOURCE_OPERATOR_DRA`).
        driver_upgrade: how the operator rolls a new driver out
            (:class:`~gpu_components.nvidia.driver_upgrade.DriverUpgradeSettingsArgs`, checked by
            :func:`~gpu_components.nvidia.driver_upgrade.driver_upgrade_problems`). Where ``operator_driver``, the
            values state ``driver.version`` (:data:`~gpu_components.nvidia.driver_upgrade.DEFAULT_DRIVER_VERSION`)
            and the whole ``driver.upgradePolicy``
            (:func:`~gpu_components.nvidia.driver_upgrade.upgrade_policy`). Defaults to the policy's defaults.

    Raises:
        GpuSpecError: :func:`gpu_operator_problems`.
    """
    problems = gpu_operator_problems(specs, dcgm_exporter, service_monitor)
    if problems:
        raise GpuSpecError(problems)
    tolerations = daemonset_tolerations(specs, node_taints)
    nfd_tolerations = [dict(NFD_WORKER_CONTROL_PLANE_TOLERATION), *tolerations]
    plugin_hash = config_hash(device_plugin_config_map(specs, mig_strategy(specs)))
    mig_hash = config_hash(mig_config_map(specs))
    toolkit: dict[str, Any] = {"enabled": operator_driver}
    driver: dict[str, Any] = {"enabled": operator_driver}
    if operator_driver:
        driver.update(version=DEFAULT_DRIVER_VERSION, upgradePolicy=upgrade_policy(driver_upgrade))
    values: dict[str, Any] = {
        "driver": driver,
        "toolkit": toolkit,
        "mig": {"strategy": mig_strategy(specs)},
        "devicePlugin": {
            "config": {"name": device_plugin_config_map_name, "default": DEFAULT_CONFIG_NAME},
            "env": _env({CONFIG_HASH_ENV: plugin_hash}),
        }
        if device_plugin
        else {"enabled": False},
        "migManager": {
            "config": {"name": mig_config_map_name, "default": ALL_DISABLED},
            "env": _env({WITH_REBOOT_ENV: "true", CONFIG_HASH_ENV: mig_hash}),
        },
        "dcgmExporter": {"enabled": dcgm_exporter, "serviceMonitor": {"enabled": service_monitor}},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": nfd_tolerations}},
    }
    needs = facts_for(cloud).gpu_operator
    if needs.node_toolkit_runtime_class is not None and not operator_driver:
        values["operator"] = {"runtimeClass": needs.node_toolkit_runtime_class}
    if needs.driver_installer is not None and not operator_driver:
        # The cloud's installer puts the driver in its own root, and the node image has no container toolkit.
        toolkit.update(enabled=True, installDir=needs.driver_installer.driver_root)
        values["hostPaths"] = {"driverInstallDir": needs.driver_installer.driver_root}
    if needs.cdi:
        values["cdi"] = {"enabled": True}
    if needs.toolkit_env:
        toolkit["env"] = _env(needs.toolkit_env)
    return deep_merge(values, overrides or {})
