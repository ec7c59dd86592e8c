"""Pure renderers and rules for NVIDIA's DRA driver (Dynamic Resource Allocation of GPUs), without any SDK.

NVIDIA's DRA driver (``kubernetes-sigs/dra-driver-nvidia-gpu``, Helm chart ``dra-driver-nvidia-gpu`` v0.4.1 from
``oci://registry.k8s.io/dra-driver-nvidia/charts``) publishes the GPUs of the nodes its kubelet plugin runs on as
DRA devices (DeviceClasses ``gpu.nvidia.com`` and ``mig.nvidia.com``) for resource claims; no device plugin
advertises ``nvidia.com/gpu`` there, but from Kubernetes 1.36 the ``gpu.nvidia.com`` DeviceClass serves it
(:func:`extended_resource_problems`). This module decides, from plain values, the chart values for the pools
it serves and the rules of a ``gpu_stack: dra`` cluster:

- **Kubernetes 1.34 or later** (:func:`kubernetes_version_problems`): DRA's ``resource.k8s.io/v1`` API is GA from
  1.34.
- **One advertiser per node**: the chart refuses to render GPU support (``resources.gpus.enabled``) unless
  ``gpuResourcesEnabledOverride`` is true, because its kubelet plugin may not run beside the device plugin on a node.
  The library guarantees that: the kubelet plugin's node affinity selects exactly the DRA pools (node label
  ``gpu-components/pool``), and the device plugin add-on selects only its own pools; so the override is set.
- **MIG partitions first**: the kubelet plugin publishes the devices it finds at start only
  (:data:`SOURCE_DRA_KUBELET_PLUGIN_ENUMERATION`), so on nodes the GPU Operator's MIG manager partitions it waits
  for the manager's ``nvidia.com/mig.config.state: success`` (:func:`kubelet_plugin_node_selector_terms`).
- **Sharing lives in the resource claim** (:func:`dra_sharing_problems`): a pool's ``time_slicing`` / ``mps`` is the
  device plugin's; under DRA pods share a GPU by referencing one shared ResourceClaim, whose GPU sharing config
  sets a time-slice *interval* (feature gate TimeSlicingSettings) or MPS (feature gate MPSSupport).
- **Plain ``nvidia.com/gpu`` through DRA** (:func:`extended_resource_problems`, :func:`extended_resource_note`):
  the chart always sets the ``gpu.nvidia.com`` DeviceClass's ``extendedResourceName: nvidia.com/gpu``, which
  Kubernetes honours from 1.36 (DRAExtendedResource); the DRA setting ``extended_resource`` says so explicitly.
- **Feature gates** (:func:`feature_gate_problems`): the combinations the driver refuses at start, DynamicMIG
  beside static MIG pools (it destroys MIG partitions it did not create), and DynamicMIG below Kubernetes 1.36
  (its partitionable devices need the ``DRAPartitionableDevices`` gate, on by default from 1.36).

Sources (driver v0.4.1 unless said otherwise):
- Chart location and install: ``docs/install.md``,
  https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/install.md
- Chart values and the override: ``deployments/helm/dra-driver-nvidia-gpu/values.yaml`` and
  ``templates/validation.yaml``; the kubelet plugin DaemonSet ``templates/kubeletplugin.yaml``.
- Feature gates and their dependencies: ``pkg/featuregates/featuregates.go`` (``ValidateFeatureGates``).
- Sharing configs: ``api/nvidia.com/resource/v1beta1/sharing.go`` (``TimeSlicingConfig.Interval``: ``Default``,
  ``Short``, ``Medium``, ``Long``; ``MpsConfig``).
- DRA GA in 1.34: https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import facts_for
from gpu_components.dra import RESOURCE_API_VERSION
from gpu_components.enums import DraFeatureGate
from gpu_components.errors import Combined, Problem
from gpu_components.labels import POOL_LABEL
from gpu_components.nvidia.device_plugin import daemonset_tolerations, deep_merge
from gpu_components.nvidia.gpu_operator import node_installs_driver
from gpu_components.nvidia.mig import MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_SUCCESS
from gpu_components.shape import did_you_mean
from gpu_components.spec import GpuNodePoolSpec, Mps, Taint

DRA_DRIVER_CHART = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
"""The driver's Helm chart, as its install guide names it (an OCI chart: no separate repository)."""
DRA_DRIVER_CHART_VERSION = "0.4.1"
"""The pinned, tested chart version (no ``v``, as the chart's ``Chart.yaml`` and ``--version`` spell it)."""
DRA_CHART_VERSION_FORM = re.compile(r"\d+\.\d+\.\d+")
"""The form of the chart's versions: ``MAJOR.MINOR.PATCH`` without ``v``."""
DEFAULT_DRA_NAMESPACE = "dra-driver-nvidia-gpu"
"""The namespace the driver's install guide installs into."""
OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"
"""``nvidiaDriverRoot`` when the GPU Operator's driver container installs the driver (chart values.yaml: "If the
NVIDIA GPU driver is managed using the NVIDIA GPU Driver Container, this is typically /run/nvidia/driver")."""
MIN_KUBERNETES_VERSION = (1, 34)
MIN_KUBERNETES_PATCH = (1, 34, 2)
"""The oldest Kubernetes patch release NVIDIA's DRA driver v0.4.1 supports (:data:`SOURCE_DRA_PREREQUISITES`)."""
SOURCE_DRA_PREREQUISITES = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/prerequisites.md"
"""The driver's prerequisites (v0.4.1): "Kubernetes | v1.34.2 or later"."""
"""The first Kubernetes version serving DRA's ``resource.k8s.io/v1`` (GA)."""

SOURCE_DRA = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
SOURCE_DRA_CHART = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/tree/v0.4.1/deployments/helm/dra-driver-nvidia-gpu"
)
SOURCE_DRA_INSTALL = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/install.md"
SOURCE_DRA_FEATURE_GATES = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/pkg/featuregates/featuregates.go"
)
PARTITIONABLE_DEVICES_GATE = "DRAPartitionableDevices"
"""Kubernetes' feature gate of partitionable DRA devices (KEP-4815), which DynamicMIG's devices need."""
PARTITIONABLE_DEVICES_DEFAULT_ON = (1, 36)
"""The first Kubernetes minor release with :data:`PARTITIONABLE_DEVICES_GATE` beta and on by default (alpha and
off from 1.33 to 1.35: :data:`SOURCE_PARTITIONABLE_DEVICES_GATE`)."""
SOURCE_PARTITIONABLE_DEVICES = (
    "https://kubernetes.io/docs/concepts/resource-management/dynamic-resource-allocation/dra-features/"
)
"""Kubernetes' DRA features: "Partitionable devices", beta since v1.36, enabled by default."""
SOURCE_PARTITIONABLE_DEVICES_GATE = "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/"
"""Kubernetes' feature gates: ``DRAPartitionableDevices`` alpha (default false) 1.33-1.35, beta (default true) from
1.36."""
SOURCE_DYNAMIC_MIG_SLICES = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/driver.go"
)
"""With DynamicMIG the kubelet plugin publishes ResourceSlices "according to KEP 4815 (partitionable devices)": each
GPU's counter set, the whole GPU and every MIG device it could make (``publishResources``,
``generateSplitResourceSlices``)."""
SOURCE_DRA_SHARING = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/api/nvidia.com/resource/v1beta1/sharing.go"
)
EXTENDED_RESOURCE_GATE = "DRAExtendedResource"
"""Kubernetes' feature gate of extended resources served by DRA (KEP-5004): a DeviceClass's
``spec.extendedResourceName`` lets a pod's plain extended-resource limit be allocated from that class's devices."""
EXTENDED_RESOURCE_DEFAULT_ON = (1, 36)
"""The first Kubernetes minor release with :data:`EXTENDED_RESOURCE_GATE` beta and on by default (alpha and off in
1.34 and 1.35, where the API server drops a DeviceClass's ``extendedResourceName``:
:data:`SOURCE_EXTENDED_RESOURCE_GATE`)."""
EXTENDED_RESOURCE = "nvidia.com/gpu"
"""The extended resource the pinned chart's ``gpu.nvidia.com`` DeviceClass names
(:data:`SOURCE_GPU_DEVICE_CLASS_TEMPLATE`); ``mig.nvidia.com`` names none."""
SOURCE_GPU_DEVICE_CLASS_TEMPLATE = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/"
    "templates/deviceclass-gpu.yaml"
)
"""The chart's ``gpu.nvidia.com`` DeviceClass: with ``resourceApiVersion`` ``resource.k8s.io/v1`` it always sets
``extendedResourceName: nvidia.com/gpu`` (no chart value leaves it out)."""
SOURCE_EXTENDED_RESOURCE_GATE = "https://www.kubernetes.dev/resources/keps/5004/"
"""KEP-5004, DRA extended resources: feature gate ``DRAExtendedResource``, alpha in 1.34, beta and on by default in
1.36 (also Kubernetes' feature gates page,
https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/)."""

DRA_CHART_VALUE_KEYS: tuple[str, ...] = (
    "nvidiaDriverRoot",
    "nvidiaCDIHookPath",
    "altProcDevices",
    "nameOverride",
    "fullnameOverride",
    "namespaceOverride",
    "selectorLabelsOverride",
    "gpuResourcesEnabledOverride",
    "allowDefaultNamespace",
    "resourceApiVersion",
    "imagePullSecrets",
    "image",
    "serviceAccount",
    "resources",
    "featureGates",
    "logVerbosity",
    "webhook",
    "controller",
    "kubeletPlugin",
)
"""The top-level keys of the pinned chart's ``values.yaml`` (v0.4.1, in its order; :data:`SOURCE_DRA_CHART`)."""
DRA_CHART_TEMPLATE_KEYS: tuple[str, ...] = ("maskNvidiaDriverParams",)
"""Top-level values the pinned chart's templates read that its ``values.yaml`` does not declare
(``templates/kubeletplugin.yaml`` v0.4.1 passes ``maskNvidiaDriverParams`` to the kubelet plugin's containers)."""
DRA_CHART_NESTED_VALUES: tuple[str, ...] = (
    "controller.affinity",
    "controller.containers.computeDomain.env",
    "controller.containers.computeDomain.resources",
    "controller.containers.computeDomain.securityContext",
    "controller.leaderElection.enabled",
    "controller.leaderElection.leaseDuration",
    "controller.leaderElection.renewDeadline",
    "controller.leaderElection.retryPeriod",
    "controller.metrics.enabled",
    "controller.metrics.httpEndpoint",
    "controller.metrics.metricsPath",
    "controller.metrics.profilePath",
    "controller.networkPolicy.enabled",
    "controller.nodeSelector",
    "controller.podAnnotations",
    "controller.podSecurityContext",
    "controller.priorityClassName",
    "controller.replicas",
    "controller.tolerations",
    "image.pullPolicy",
    "image.repository",
    "image.tag",
    "kubeletPlugin.affinity",
    "kubeletPlugin.containers.computeDomains.env",
    "kubeletPlugin.containers.computeDomains.healthcheckPort",
    "kubeletPlugin.containers.computeDomains.resources",
    "kubeletPlugin.containers.computeDomains.securityContext",
    "kubeletPlugin.containers.gpus.env",
    "kubeletPlugin.containers.gpus.healthcheckPort",
    "kubeletPlugin.containers.gpus.resources",
    "kubeletPlugin.containers.gpus.securityContext",
    "kubeletPlugin.kubeletPluginsDirectoryPath",
    "kubeletPlugin.kubeletRegistrarDirectoryPath",
    "kubeletPlugin.metrics.computeDomainHttpEndpoint",
    "kubeletPlugin.metrics.enabled",
    "kubeletPlugin.metrics.gpuHttpEndpoint",
    "kubeletPlugin.metrics.metricsPath",
    "kubeletPlugin.networkPolicy.enabled",
    "kubeletPlugin.nodeSelector",
    "kubeletPlugin.podAnnotations",
    "kubeletPlugin.podSecurityContext",
    "kubeletPlugin.priorityClassName",
    "kubeletPlugin.tolerations",
    "kubeletPlugin.updateStrategy",
    "resources.computeDomains.enabled",
    "resources.gpus.enabled",
    "serviceAccount.annotations",
    "serviceAccount.create",
    "serviceAccount.name",
    "webhook.affinity",
    "webhook.containerPort",
    "webhook.containers.webhook.resources",
    "webhook.containers.webhook.securityContext",
    "webhook.enabled",
    "webhook.failurePolicy",
    "webhook.nodeSelector",
    "webhook.podAnnotations",
    "webhook.podSecurityContext",
    "webhook.priorityClassName",
    "webhook.replicas",
    "webhook.serviceAccount.annotations",
    "webhook.serviceAccount.create",
    "webhook.serviceAccount.name",
    "webhook.servicePort",
    "webhook.tls",
    "webhook.tolerations",
)
"""The nested values the pinned chart's templates read (every ``.Values.<a>.<b>...`` of
``deployments/helm/dra-driver-nvidia-gpu/templates/*`` at v0.4.1 below a top-level key whose value is a map of the
chart's own settings; :data:`SOURCE_DRA_CHART`). A key below one of these paths is the Kubernetes object or map the
template passes on (``affinity``, ``resources``, ``env``, ``webhook.tls``, ...) and is not checked; a key beside
them is one the templates never read. ``values.yaml`` also declares ``webhook.strategy``, which no template reads."""

CHART_KUBELET_PLUGIN_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
)
"""The chart's own ``kubeletPlugin.tolerations`` (values.yaml v0.4.1); kept when the library's list replaces it."""
SOURCE_DRA_KUBELET_PLUGIN_ENUMERATION = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/nvlib.go"
)
"""The kubelet plugin finds its devices once, at start: ``NewDeviceState`` (``device_state.go``) calls
``enumerateAllPossibleDevices`` -> ``GetPerGpuAllocatableDevices`` ("called once upon startup", ``nvlib.go``); every
later ``publishResources`` (``driver.go``) republishes that same set. So MIG devices made after it started are not
published until it restarts."""

EXCLUSIVE_GATES: tuple[tuple[str, str], ...] = (
    ("DynamicMIG", "PassthroughSupport"),
    ("DynamicMIG", "NVMLDeviceHealthCheck"),
    ("DynamicMIG", "MPSSupport"),
    ("PassthroughSupport", "NVMLDeviceHealthCheck"),
)
"""Feature gates the driver refuses together ("feature gate A is currently mutually exclusive with B",
``ValidateFeatureGates``)."""
REQUIRED_GATES: Mapping[str, str] = {"DeviceMetadata": "PassthroughSupport"}
"""Feature gate -> the gate it requires ("feature gate A requires B to also be enabled", ``ValidateFeatureGates``;
the beta ``ComputeDomainCliques`` -> ``IMEXDaemonsWithDNSNames`` pair is on by default and cannot be turned off
here)."""

_VERSION = re.compile(r"(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)")
"""``MAJOR.MINOR`` as Kubernetes writes its versions: numbers without leading zeros (``1.036`` is no version)."""


def operator_installs_driver(cloud: Cloud, driver_setting: str | None) -> bool:
    """Whether a pool's NVIDIA driver must come from the GPU Operator: its cloud's driver setting (EKS ``ami_type``,
    AKS ``gpu_driver``, GKE ``driver_version``; ``None`` for the default, with which the image or cloud installs it)
    turns the node's own installation off), unless the cloud's own installer DaemonSet brings it
    (:attr:`~gpu_components.cloud_facts.DraFacts.driver_installer`: GKE's COS installer on a DRA pool, whose
    automatic installation is always off, :data:`gpu_components.gcp.facts.SOURCE_GKE_DRA`), which
    :class:`~gpu_components.kubernetes.NvidiaDraDriver` applies."""
    if driver_setting is None or node_installs_driver(cloud, driver_setting):
        return False
    dra = facts_for(cloud).dra
    return dra is None or dra.driver_installer is None


def driver_root(cloud: Cloud, driver_setting: str | None) -> str | None:
    """The DRA driver chart's ``nvidiaDriverRoot`` for a pool: :data:`OPERATOR_DRIVER_ROOT` where the GPU Operator
    installs the driver (:func:`operator_installs_driver`), else the cloud's
    :attr:`~gpu_components.cloud_facts.DraFacts.driver_root`; ``None`` when the cloud has no DRA facts."""
    if operator_installs_driver(cloud, driver_setting):
        return OPERATOR_DRIVER_ROOT
    dra = facts_for(cloud).dra
    return dra.driver_root if dra is not None else None


def driver_root_problems(roots: Sequence[tuple[str, str | None, object]]) -> list[Problem]:
    """The chart has one ``nvidiaDriverRoot`` for all the pools it serves: ``roots`` (each pool's path, root and
    driver setting as given) must be known and agree; a problem at each pool whose root is unknown (``None``) or
    differs from the first pool's."""
    missing = [
        Problem(path, value, "the library knows no NVIDIA driver root of this cloud's pools for the DRA driver")
        for path, root, value in roots
        if root is None
    ]
    if missing or not roots:
        return missing
    first_path, first_root, _ = roots[0]
    return [
        Problem(
            path,
            value,
            f"NVIDIA's DRA driver has one nvidiaDriverRoot for all its pools: this pool's NVIDIA driver lives under "
            f"{root}, {first_path}'s under {first_root}",
            "one driver owner (the node image or cloud, or the GPU Operator) for all the DRA pools",
            SOURCE_DRA_CHART,
        )
        for path, root, value in roots[1:]
        if root != first_root
    ]


def version_number_hint(problems: Sequence[Problem], path: str) -> list[Problem]:
    """``problems`` (shape problems) with the one of a Kubernetes version given as a number at ``path`` (an unquoted
    YAML ``1.34``) made to say the valid form and how to quote it: YAML reads ``1.30`` as the number 1.3, so the
    version must be a quoted string."""
    return [
        dataclasses.replace(
            problem,
            message="a number, not a string: YAML reads an unquoted version as a number (1.30 as 1.3); quote it",
            valid='MAJOR.MINOR as a string, e.g. "1.34"',
        )
        if problem.path == path and isinstance(problem.value, int | float) and not isinstance(problem.value, bool)
        else problem
        for problem in problems
    ]


_PATCH_VERSION = re.compile(r"(?P<major>[0-9]+)\.(?P<minor>[0-9]+)\.(?P<patch>[0-9]+)")


def kubernetes_patch_problems(version: object, path: str) -> list[Problem]:
    """A cluster version given to the patch (``1.34.1``, GKE's ``1.34.1-gke.1200``: ``MAJOR.MINOR.PATCH`` first)
    below :data:`MIN_KUBERNETES_PATCH` in its minor release: NVIDIA's DRA driver v0.4.1 needs Kubernetes 1.34.2 or
    later (:data:`SOURCE_DRA_PREREQUISITES`). A minor version alone (``1.34``: the cloud's latest patch), another
    form or another minor release is not this rule's (:func:`kubernetes_version_problems` judges the minor)."""
    match = _PATCH_VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        return []
    major, minor, patch = (int(match[part]) for part in ("major", "minor", "patch"))
    if (major, minor) != MIN_KUBERNETES_PATCH[:2] or patch >= MIN_KUBERNETES_PATCH[2]:
        return []
    oldest = ".".join(str(part) for part in MIN_KUBERNETES_PATCH)
    return [
        Problem(
            path,
            version,
            f"NVIDIA's DRA driver v0.4.1 supports Kubernetes {oldest} or later; earlier {major}.{minor} patch "
            "releases are not supported",
            f">= {oldest}, or {major}.{minor} (the cloud's latest patch)",
            SOURCE_DRA_PREREQUISITES,
        )
    ]


def kubernetes_version_problems(version: object, path: str) -> list[Problem]:
    """The cluster's Kubernetes ``major.minor`` under ``gpu_stack: dra``: required, of that form, and at least
    1.34, where ``resource.k8s.io/v1`` is GA. Not a string is a shape error, not this one's."""
    if version is None:
        return [
            Problem(
                path,
                None,
                "required under gpu_stack dra: the cluster's Kubernetes version (major.minor), which must serve DRA's "
                "resource.k8s.io/v1 API (GA from Kubernetes 1.34)",
                "MAJOR.MINOR >= 1.34, e.g. 1.34",
                SOURCE_DRA,
            )
        ]
    if not isinstance(version, str):
        return []
    match = _VERSION.fullmatch(version)
    if match is None:
        return [Problem(path, version, "not a Kubernetes major.minor version", "MAJOR.MINOR, e.g. 1.34", SOURCE_DRA)]
    if (int(match["major"]), int(match["minor"])) < MIN_KUBERNETES_VERSION:
        return [
            Problem(
                path,
                version,
                "DRA's resource.k8s.io/v1 API, which NVIDIA's DRA driver uses, is GA from Kubernetes 1.34; earlier "
                "versions serve DRA only as a beta API behind feature gates",
                ">= 1.34",
                SOURCE_DRA,
            )
        ]
    return []


def dra_namespace_problems(namespace: object, helm_values: object, path: str) -> list[Problem]:
    """The namespace ``default`` without the chart value ``allowDefaultNamespace: true``: the chart refuses to
    render there ("Running in the 'default' namespace is not recommended", ``templates/validation.yaml`` at v0.4.1,
    :data:`SOURCE_DRA_CHART`), so the release would fail at apply time."""
    allowed = isinstance(helm_values, Mapping) and helm_values.get("allowDefaultNamespace") is True
    if namespace != "default" or allowed:
        return []
    return [
        Problem(
            path,
            namespace,
            "the DRA driver's chart refuses to run in the default namespace (its templates/validation.yaml) unless "
            "helm_values sets allowDefaultNamespace: true",
            f"another namespace (default: {DEFAULT_DRA_NAMESPACE}), or helm_values allowDefaultNamespace true",
            SOURCE_DRA_CHART,
        )
    ]


def dra_chart_version_problems(chart_version: object, path: str) -> list[Problem]:
    """A ``chart_version`` string not wholly of :data:`DRA_CHART_VERSION_FORM` (a ``v`` prefix, a trailing newline):
    Helm would find no such chart version at apply time."""
    if not isinstance(chart_version, str) or DRA_CHART_VERSION_FORM.fullmatch(chart_version):
        return []
    return [
        Problem(
            path,
            chart_version,
            "not a DRA driver chart version",
            f"MAJOR.MINOR.PATCH without v, e.g. {DRA_DRIVER_CHART_VERSION}",
            SOURCE_DRA_INSTALL,
        )
    ]


def dra_chart_version_note(chart_version: object) -> str | None:
    """What a ``chart_version`` other than the pinned :data:`DRA_DRIVER_CHART_VERSION` leaves unchecked, as a warning
    for the plan and ``pulumi up`` (``None`` for the pinned chart or no version): the library renders the values,
    feature gate names and owned keys of chart 0.4.1 and checks no ``helm_values`` key
    (:func:`dra_helm_values_problems`), so a value the other chart renamed or dropped would be ignored by Helm."""
    if not isinstance(chart_version, str) or chart_version == DRA_DRIVER_CHART_VERSION:
        return None
    return (
        f"DRA driver chart_version {chart_version} is not the pinned, tested {DRA_DRIVER_CHART_VERSION}: the chart "
        f"values, feature gate names and library-owned keys are those of chart {DRA_DRIVER_CHART_VERSION}, and no "
        f"helm_values key is checked against chart {chart_version}; compare its values.yaml with "
        f"{DRA_DRIVER_CHART_VERSION}'s before deploying"
    )


def dra_helm_values_problems(helm_values: object, chart_version: object, prefix: str = "") -> list[Problem]:
    """Keys of the DRA driver's ``helm_values`` the pinned chart (v0.4.1) has no value for, so Helm would pass them
    to templates that never read them and they would be ignored: each at ``<prefix>helm_values.<path>``, with the
    closest chart key when one is close. Top-level keys are checked against :data:`DRA_CHART_VALUE_KEYS` and
    :data:`DRA_CHART_TEMPLATE_KEYS`; keys inside a map of the chart's own settings (``kubeletPlugin``,
    ``controller``, ``webhook``, ``resources``, ``image``, ``serviceAccount``, and their ``containers`` /
    ``metrics`` / ... maps) against :data:`DRA_CHART_NESTED_VALUES`; the contents of a value the chart passes on
    whole (``affinity``, ``tolerations``, ``resources``, ``env``, ``featureGates``, ``webhook.tls``, ...) are not.
    Only for the pinned chart: with another ``chart_version`` nothing is checked (that chart's values are not known
    here; README "DRA settings"). The keys the library owns are refused by
    :func:`~gpu_components.kubernetes.addon.owned_value_problems` instead (``namespace``: the chart's validation
    refuses it)."""
    if not isinstance(helm_values, Mapping) or chart_version not in (None, DRA_DRIVER_CHART_VERSION):
        return []
    top = (*DRA_CHART_VALUE_KEYS, *DRA_CHART_TEMPLATE_KEYS)
    paths = [tuple(path.split(".")) for path in DRA_CHART_NESTED_VALUES]
    problems: list[Problem] = []

    def check(values: Mapping[Any, Any], at: tuple[str, ...]) -> None:
        known = sorted({path[len(at)] for path in paths if path[: len(at)] == at}) if at else sorted(top)
        for key, value in values.items():
            here = (*at, str(key))
            if str(key) not in known and not (not at and key == "namespace"):
                close = did_you_mean(str(key), known)
                chart = f"the DRA driver chart {DRA_DRIVER_CHART_VERSION}"
                where = (
                    f"a value of {'.'.join(at)} that {chart}'s templates read"
                    if at
                    else f"a top-level value of {chart}"
                )
                problems.append(
                    Problem(
                        f"{prefix}helm_values.{'.'.join(here)}",
                        value,
                        f"not {where}, so it would be ignored" + (f"; did you mean {close!r}?" if close else ""),
                        ", ".join(known),
                        SOURCE_DRA_CHART,
                    )
                )
            elif isinstance(value, Mapping) and here not in paths and any(p[: len(here)] == here for p in paths):
                check(value, here)

    check(helm_values, ())
    return problems


def partitionable_devices_problems(gates: Sequence[str], kubernetes_version: object, path: str) -> list[Problem]:
    """DynamicMIG among ``gates`` (at ``path``) on a cluster of Kubernetes ``kubernetes_version`` (``MAJOR.MINOR``)
    below :data:`PARTITIONABLE_DEVICES_DEFAULT_ON`: with DynamicMIG the driver publishes each GPU's possible MIG
    devices as partitionable devices (shared counters of the parent GPU, KEP-4815;
    :data:`SOURCE_DYNAMIC_MIG_SLICES`), which Kubernetes serves and schedules only with its
    :data:`PARTITIONABLE_DEVICES_GATE` feature gate: alpha, off by default, in 1.33 to 1.35; beta, on by default,
    from 1.36 (:data:`SOURCE_PARTITIONABLE_DEVICES_GATE`). Managed control planes (EKS, AKS, GKE) give users no
    way to turn an alpha gate of kube-apiserver and kube-scheduler on (GKE only on short-lived alpha clusters).

    A version that is not ``MAJOR.MINOR`` is :func:`kubernetes_version_problems`' to report, not this one's; the
    version is required under ``gpu_stack: dra``, so an unknown version does not reach here."""
    match = _VERSION.fullmatch(kubernetes_version) if isinstance(kubernetes_version, str) else None
    if DraFeatureGate.DYNAMIC_MIG.value not in gates or match is None:
        return []
    if (int(match["major"]), int(match["minor"])) >= PARTITIONABLE_DEVICES_DEFAULT_ON:
        return []
    on = ".".join(str(part) for part in PARTITIONABLE_DEVICES_DEFAULT_ON)
    return [
        Problem(
            f"{path}[{list(gates).index(DraFeatureGate.DYNAMIC_MIG.value)}]",
            DraFeatureGate.DYNAMIC_MIG.value,
            f"with DynamicMIG the DRA driver publishes MIG devices as partitionable devices, which need Kubernetes' "
            f"{PARTITIONABLE_DEVICES_GATE} feature gate in kube-apiserver, kube-scheduler and kubelet; in Kubernetes "
            f"{kubernetes_version} that gate is alpha and off by default (alpha 1.33 to 1.35, beta and on by default "
            f"from {on}), and managed control planes (EKS, AKS, GKE) do not let users turn alpha gates on",
            f"kubernetes_version >= {on}, or no DynamicMIG",
            f"{SOURCE_PARTITIONABLE_DEVICES_GATE}; {SOURCE_PARTITIONABLE_DEVICES}; {SOURCE_DYNAMIC_MIG_SLICES}",
        )
    ]


def _minor(kubernetes_version: object) -> tuple[int, int] | None:
    """``MAJOR.MINOR`` of a version string as numbers; ``None`` for another form or value."""
    match = _VERSION.fullmatch(kubernetes_version) if isinstance(kubernetes_version, str) else None
    return (int(match["major"]), int(match["minor"])) if match is not None else None


def extended_resource_problems(given: object, kubernetes_version: object, path: str) -> list[Problem]:
    """The DRA setting ``extended_resource`` (at ``path``) against the cluster's Kubernetes ``kubernetes_version``:

    - ``true`` below :data:`EXTENDED_RESOURCE_DEFAULT_ON`: Kubernetes' :data:`EXTENDED_RESOURCE_GATE` feature gate is
      alpha and off there, so the API server drops the DeviceClass's ``extendedResourceName`` and no DRA pool serves
      ``nvidia.com/gpu``; managed control planes (EKS, AKS, GKE) do not let users turn alpha gates on, and the
      driver's ``feature_gates`` are the driver's, not Kubernetes' (:data:`SOURCE_EXTENDED_RESOURCE_GATE`).
    - ``false`` from :data:`EXTENDED_RESOURCE_DEFAULT_ON`: the pinned chart always renders ``extendedResourceName:
      nvidia.com/gpu`` on its ``gpu.nvidia.com`` DeviceClass (no chart value leaves it out,
      :data:`SOURCE_GPU_DEVICE_CLASS_TEMPLATE`), so the DRA pools would serve plain ``nvidia.com/gpu`` requests
      anyway.

    Left out (``None``) is valid on every version (:func:`extended_resource_note` warns from 1.36). A version not of
    the form ``MAJOR.MINOR`` (or none) is :func:`kubernetes_version_problems`' to report, and a value that is not a
    bool a shape problem: neither is judged here."""
    minor = _minor(kubernetes_version)
    if not isinstance(given, bool) or minor is None:
        return []
    on = ".".join(str(part) for part in EXTENDED_RESOURCE_DEFAULT_ON)
    if given and minor < EXTENDED_RESOURCE_DEFAULT_ON:
        return [
            Problem(
                path,
                True,
                f"DRA pools serve plain {EXTENDED_RESOURCE} requests through the DeviceClass's extendedResourceName "
                f"only with Kubernetes' {EXTENDED_RESOURCE_GATE} feature gate; in Kubernetes {kubernetes_version} "
                f"that gate is alpha and off by default (alpha 1.34 and 1.35, beta and on by default from {on}), so "
                "the API server drops extendedResourceName, and managed control planes (EKS, AKS, GKE) do not let "
                "users turn alpha gates on (the DRA driver's feature_gates are the driver's own, not Kubernetes')",
                f"kubernetes_version >= {on}, or extended_resource false or unset",
                f"{SOURCE_EXTENDED_RESOURCE_GATE}; {SOURCE_GPU_DEVICE_CLASS_TEMPLATE}",
            )
        ]
    if not given and minor >= EXTENDED_RESOURCE_DEFAULT_ON:
        return [
            Problem(
                path,
                False,
                f"the DRA driver chart {DRA_DRIVER_CHART_VERSION} always renders its gpu.nvidia.com DeviceClass with "
                f"extendedResourceName: {EXTENDED_RESOURCE} (templates/deviceclass-gpu.yaml; no chart value leaves it "
                f"out), and from Kubernetes {on} the {EXTENDED_RESOURCE_GATE} feature gate is on by default, so the "
                f"DRA pools serve plain {EXTENDED_RESOURCE} requests whatever this setting says",
                f"extended_resource true (or unset) on Kubernetes >= {on}, or a kubernetes_version below {on}",
                f"{SOURCE_GPU_DEVICE_CLASS_TEMPLATE}; {SOURCE_EXTENDED_RESOURCE_GATE}",
            )
        ]
    return []


def static_mig_problems(given: object, pools: Sequence[tuple[str, bool]], path: str) -> list[Problem]:
    """``extended_resource`` ``true`` (at ``path``) on a driver whose served pools (``pools``: each one's name and
    whether it has a static MIG layout) all have a static MIG layout: their GPUs are published as ``mig.nvidia.com``
    devices only, none as a whole ``gpu.nvidia.com`` device, and only the ``gpu.nvidia.com`` DeviceClass names the
    extended resource (:data:`SOURCE_GPU_DEVICE_CLASS_TEMPLATE`), so the setting would serve nothing: a plain
    ``nvidia.com/gpu`` pod stays Pending there. (Left out, nothing is said: :func:`extended_resource_note` is quiet.)"""
    if given is not True or not pools or not all(mig for _, mig in pools):
        return []
    names = ", ".join(name for name, _ in pools)
    return [
        Problem(
            path,
            True,
            f"every pool the DRA driver serves ({names}) has a static MIG layout: their GPUs are published as "
            f"mig.nvidia.com devices, none as a whole gpu.nvidia.com device, and only the gpu.nvidia.com DeviceClass "
            f"names {EXTENDED_RESOURCE} (mig.nvidia.com names no extended resource), so no plain {EXTENDED_RESOURCE} "
            "request could be served: such a pod would stay Pending",
            "extended_resource left out, or a DRA pool of whole GPUs (no mig) to serve",
            SOURCE_GPU_DEVICE_CLASS_TEMPLATE,
        )
    ]


def extended_resource_in_force(given: object, kubernetes_version: object) -> bool:
    """Whether the DRA pools serve plain ``nvidia.com/gpu`` requests through the ``gpu.nvidia.com`` DeviceClass
    (validated settings, :func:`extended_resource_problems`): ``extended_resource`` ``true``, or left out on
    Kubernetes :data:`EXTENDED_RESOURCE_DEFAULT_ON` or later; never on a version not of the form ``MAJOR.MINOR``."""
    minor = _minor(kubernetes_version)
    if given is None:
        return minor is not None and minor >= EXTENDED_RESOURCE_DEFAULT_ON
    return given is True


def extended_resource_note(given: object, kubernetes_version: object, whole_gpu_pools: Sequence[str]) -> str | None:
    """The warning, for the plan and ``pulumi up``, of ``extended_resource`` left out on Kubernetes
    :data:`EXTENDED_RESOURCE_DEFAULT_ON` or later (``None`` otherwise): the DRA pools then serve plain
    ``nvidia.com/gpu`` requests too (:func:`extended_resource_in_force`), which setting it ``true`` acknowledges.
    ``whole_gpu_pools``: the names of the served pools that publish whole GPUs (no static MIG layout), which the
    warning names; without one there is nothing to serve and nothing to warn of (:func:`static_mig_problems`)."""
    if given is not None or not whole_gpu_pools or not extended_resource_in_force(given, kubernetes_version):
        return None
    return (
        f"on Kubernetes {kubernetes_version} the DRA pools of whole GPUs ({', '.join(whole_gpu_pools)}) also serve "
        f"plain {EXTENDED_RESOURCE} requests (container "
        f"limits) through the DRA driver's gpu.nvidia.com DeviceClass, whose extendedResourceName the driver chart "
        f"{DRA_DRIVER_CHART_VERSION} always sets (Kubernetes' {EXTENDED_RESOURCE_GATE} feature gate is on by default "
        f"from {'.'.join(str(part) for part in EXTENDED_RESOURCE_DEFAULT_ON)}): a pod asking for {EXTENDED_RESOURCE} "
        "that tolerates a DRA pool's taints may be given one of its GPUs; set the DRA setting extended_resource: true "
        "to acknowledge it"
    )


def gpu_cluster_extended_resource_note(kubernetes_version: object) -> str | None:
    """The warning, on Kubernetes :data:`EXTENDED_RESOURCE_DEFAULT_ON` or later, of DRA pools whose driver the GPU
    Operator's GPUCluster deploys (``dra.installer: gpu-operator``): its DeviceClasses are the operator's, which the
    library does not model, so whether they serve plain ``nvidia.com/gpu`` requests is unknown, and the library's
    reports (capacity, ``pool_scheduling``, ``gpu_pod_settings``) count none. ``None`` below that version, where the
    feature gate is off by default."""
    minor = _minor(kubernetes_version)
    if minor is None or minor < EXTENDED_RESOURCE_DEFAULT_ON:
        return None
    return (
        f"on Kubernetes {kubernetes_version} a DeviceClass with an extendedResourceName serves plain "
        f"{EXTENDED_RESOURCE} requests (Kubernetes' {EXTENDED_RESOURCE_GATE} feature gate is on by default from "
        f"{'.'.join(str(part) for part in EXTENDED_RESOURCE_DEFAULT_ON)}); under dra.installer gpu-operator the GPU "
        "Operator's GPUCluster creates the DRA pools' DeviceClasses, which the library does not model, so it counts "
        f"no {EXTENDED_RESOURCE} on them (capacity, pool_scheduling, gpu_pod_settings): check the operator's "
        f"gpu.nvidia.com DeviceClass before relying on either [source: {SOURCE_EXTENDED_RESOURCE_GATE}]"
    )


def feature_gate_problems(
    gates: Sequence[str], mig_pools: Sequence[tuple[str, str]], path: str, kubernetes_version: object
) -> list[Problem]:
    """Problems of the DRA driver feature gates to turn on (``gates``, at ``path``): a gate given twice, pairs the
    driver refuses at start (:data:`EXCLUSIVE_GATES`, :data:`REQUIRED_GATES`), DynamicMIG on a cluster with
    static MIG pools (``mig_pools``: each pool's path and name): the driver then creates and destroys MIG devices
    itself, destroying the partitions the pools' MIG manager made; and DynamicMIG on a cluster of
    ``kubernetes_version`` without partitionable devices (:func:`partitionable_devices_problems`)."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, gate in enumerate(gates):
        if gate in seen:
            problems.append(Problem(f"{path}[{index}]", gate, "feature gate given twice", "each gate once"))
        seen.add(gate)
    for first, second in EXCLUSIVE_GATES:
        if first in seen and second in seen:
            problems.append(
                Problem(
                    path,
                    Combined((f"{path}[{gates.index(first)}]", f"{path}[{gates.index(second)}]")),
                    f"the DRA driver refuses feature gate {first} together with {second} (mutually exclusive)",
                    f"{first} or {second}, not both",
                    SOURCE_DRA_FEATURE_GATES,
                )
            )
    for gate, needed in REQUIRED_GATES.items():
        if gate in seen and needed not in seen:
            problems.append(
                Problem(
                    f"{path}[{gates.index(gate)}]",
                    gate,
                    f"the DRA driver requires feature gate {needed} with {gate}",
                    f"{gate} with {needed}",
                    SOURCE_DRA_FEATURE_GATES,
                )
            )
    if "DynamicMIG" in seen and mig_pools:
        pools = ", ".join(f"{where} ({name})" for where, name in mig_pools)
        problems.append(
            Problem(
                f"{path}[{gates.index('DynamicMIG')}]",
                "DynamicMIG",
                f"DynamicMIG lets the DRA driver create and destroy MIG devices on demand, destroying the static MIG "
                f"partitions it did not create, and {pools} has static MIG partitions (mig)",
                "no DynamicMIG, or no mig on the cluster's pools",
                SOURCE_DRA_FEATURE_GATES,
            )
        )
    return problems + partitionable_devices_problems(gates, kubernetes_version, path)


def dra_sharing_problems(spec: GpuNodePoolSpec, given: object, where: str) -> list[Problem]:
    """A pool whose GPUs the DRA driver publishes (``gpu_access: dra``) with the device plugin's sharing
    (``time_slicing``, ``mps``; ``given`` is the field as written): under DRA, sharing lives in the resource claim."""
    if spec.sharing is None:
        return []
    key = "mps" if isinstance(spec.sharing, Mps) else "time_slicing"
    return [
        Problem(
            f"{where}.{key}",
            given,
            f"{key} is the device plugin's GPU sharing (replicas of nvidia.com/gpu); under DRA sharing lives in the "
            "resource claim: pods share a GPU by referencing one shared ResourceClaim (same namespace), whose GPU "
            "sharing config sets a time-slice interval, not replicas (feature gate TimeSlicingSettings), or MPS "
            "(feature gate MPSSupport); see the resource claim helpers of gpu_components.claims and gpu_components.dra",
            f"no {key} on a gpu_access dra pool, or gpu_access device-plugin",
            SOURCE_DRA_SHARING,
        )
    ]


def pool_access_problems(spec: GpuNodePoolSpec, given: Mapping[str, Any], gpu_stack: str, where: str) -> list[Problem]:
    """The rules of one pool under its cluster's GPU stack, the same at every entry point (``GpuCluster`` and the
    stack config, each node-pool component, the add-ons' pools): ``gpu_access: dra`` only under ``gpu_stack: dra``
    (only that stack deploys NVIDIA's DRA driver), and a pool whose resolved ``gpu_access`` is ``dra``
    (:meth:`~gpu_components.spec.GpuNodePoolSpec.uses_dra`) has no device-plugin sharing
    (:func:`dra_sharing_problems`).

    Args:
        spec: the validated pool.
        given: the pool as written (its ``time_slicing`` / ``mps`` is echoed in the problem).
        gpu_stack: the GPU stack the pool is built under (the cluster's, the component's ``gpu_stack``, or the
            add-on's for a plain pool).
        where: the pool's path: ``pools[<i>]`` (cluster, add-on), ``pool`` (a node-pool component).

    Returns:
        The problems, paths ``<where>.gpu_access``, ``<where>.time_slicing``, ``<where>.mps`` (source: Kubernetes
        DRA docs, :data:`SOURCE_DRA`; the driver's sharing API, :data:`SOURCE_DRA_SHARING`).
    """
    if spec.gpu_access == "dra" and gpu_stack != "dra":
        return [
            Problem(
                f"{where}.gpu_access",
                "dra",
                "resource claims need NVIDIA's DRA driver, which only gpu_stack dra deploys",
                "device-plugin, or gpu_stack dra",
                SOURCE_DRA,
            )
        ]
    if not spec.uses_dra(gpu_stack):
        return []
    return dra_sharing_problems(spec, given.get("mps", given.get("time_slicing")), where)


def kubelet_plugin_node_selector_terms(
    specs: Iterable[GpuNodePoolSpec], mig_manager_pools: Collection[str] = ()
) -> list[dict[str, Any]]:
    """The kubelet plugin's ``nodeSelectorTerms`` (ORed): one selecting the pools by ``gpu-components/pool``, and
    one for the pools in ``mig_manager_pools`` (names of the pools whose MIG partitions the GPU Operator's MIG manager
    makes on each new node) that also requires ``nvidia.com/mig.config.state`` In ``success``: the kubelet plugin
    publishes the devices it finds at start only (:data:`SOURCE_DRA_KUBELET_PLUGIN_ENUMERATION`), and the MIG
    manager restarts only the operator's own operands after repartitioning, so a plugin started before the
    partitions would publish the unpartitioned GPUs until restarted. Each term only when it has pools. The term
    keeps a plugin from starting early on a new node; a running plugin is not evicted when the label changes later
    (``IgnoredDuringExecution``)."""
    names = sorted(spec.name for spec in specs)
    plain = [name for name in names if name not in mig_manager_pools]
    mig = [name for name in names if name in mig_manager_pools]
    terms: list[dict[str, Any]] = []
    if plain:
        terms.append({"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": plain}]})
    if mig:
        terms.append(
            {
                "matchExpressions": [
                    {"key": POOL_LABEL, "operator": "In", "values": mig},
                    {"key": MIG_CONFIG_STATE_LABEL, "operator": "In", "values": [MIG_CONFIG_STATE_SUCCESS]},
                ]
            }
        )
    return terms


def dra_driver_values(
    specs: Sequence[GpuNodePoolSpec],
    driver_root: str,
    feature_gates: Sequence[str] = (),
    node_taints: Sequence[Taint] = (),
    overrides: Mapping[str, Any] | None = None,
    *,
    mig_manager_pools: Collection[str] = (),
    kubelet_plugin_priority_class: str | None = None,
) -> dict[str, Any]:
    """Helm values of the ``dra-driver-nvidia-gpu`` chart serving ``specs``.

    Args:
        specs: the validated pools whose GPUs the driver publishes (``device_plugin_host: dra-driver``).
        driver_root: ``nvidiaDriverRoot``: where the NVIDIA driver's files are on the host (the cloud's
            :attr:`~gpu_components.cloud_facts.DraFacts.driver_root`, or :data:`OPERATOR_DRIVER_ROOT` when the GPU
            Operator's driver container installs it).
        feature_gates: the driver feature gates to turn on (``featureGates``: gate -> true). Defaults to none.
        node_taints: taints the cloud puts on nodes itself, tolerated too. Defaults to none.
        overrides: raw chart values merged last, key by key (the escape hatch). Defaults to none.
        mig_manager_pools: names of the pools in ``specs`` whose MIG partitions the GPU Operator's MIG manager makes
            (their nodes carry ``nvidia.com/mig.config``): the kubelet plugin waits on their nodes for the MIG
            manager's ``success`` (:func:`kubelet_plugin_node_selector_terms`). Defaults to none.
        kubelet_plugin_priority_class: ``kubeletPlugin.priorityClassName``, where the cloud needs another than the
            chart's ``system-node-critical`` (the cloud's
            :attr:`~gpu_components.cloud_facts.DraFacts.kubelet_plugin_priority_class`; GKE: ``""``, none).
            Defaults to ``None``: the chart's.

    Returns:
        ``resourceApiVersion: resource.k8s.io/v1`` (the API of the claims the helpers write,
        :data:`~gpu_components.dra.RESOURCE_API_VERSION`, pinned rather than the chart's detection from the
        cluster's ``.Capabilities.APIVersions``, which an offline render or a cluster misreporting its APIs gets
        wrong: :data:`SOURCE_DRA_CHART` ``values.yaml``); ``nvidiaDriverRoot``; ``gpuResourcesEnabledOverride:
        true`` (the chart's guard against a device plugin on
        the same node: the library guarantees one advertiser per node, the kubelet plugin selecting exactly the
        pools given and the device plugin add-on only its own); ``resources`` (GPUs on, compute domains off: they
        serve Multi-Node NVLink systems, turned on through ``overrides``); ``featureGates``; ``kubeletPlugin``
        node affinity (``gpu-components/pool`` In the pools' names; MIG manager pools in a term of their own, see
        ``mig_manager_pools``), tolerations, and ``priorityClassName`` when ``kubelet_plugin_priority_class`` is
        given.
    """
    values: dict[str, Any] = {
        "resourceApiVersion": RESOURCE_API_VERSION,
        "nvidiaDriverRoot": driver_root,
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "featureGates": {gate: True for gate in sorted(set(feature_gates))},
        "kubeletPlugin": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": kubelet_plugin_node_selector_terms(specs, mig_manager_pools)
                    }
                }
            },
            "tolerations": daemonset_tolerations(specs, node_taints, CHART_KUBELET_PLUGIN_TOLERATIONS),
        },
    }
    if kubelet_plugin_priority_class is not None:
        values["kubeletPlugin"]["priorityClassName"] = kubelet_plugin_priority_class
    return deep_merge(values, overrides or {})
