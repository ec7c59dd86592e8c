"""GPU policy rules as plain functions over a resource's type and properties, as the Pulumi engine sees them.

Each validator takes ``(resource_type, props)`` — ``props`` are the resource's inputs in the engine's camelCase
(``amiType``, ``nodeTaints``, ``nodeConfig.guestAccelerators``), whether or not this library created the resource
— and returns one message per violation (empty when the resource complies or the rule does not apply to it).
:mod:`gpu_components.policy` wraps each in a ``pulumi_policy.ResourceValidationPolicy``.

GPU knowledge comes from the library, not from copies: GPU instance types from :mod:`gpu_components.catalog`, the
GPU quantity rule from :mod:`gpu_components.workloads`. The clouds' raw spellings of NVIDIA AMI types and taint
effects are the cloud APIs' own and mirror the adapters' constants (``aws.eks.NVIDIA_AMI_TYPES``,
``aws.eks.TAINT_EFFECTS``, ``gcp.gke.TAINT_EFFECTS``, ``azure.aks.aks_taints``); the tests check that they agree,
and the pack does not import the cloud SDKs.

Decisions:

- **GKE pools without an explicit taint pass.** GKE taints GPU node pools ``nvidia.com/gpu=present:NoSchedule``
  itself whenever the cluster has a non-GPU pool, i.e. whenever there is other work to keep off
  (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus). A GKE GPU pool that sets an ``nvidia.com/gpu``
  taint with another effect is flagged: it would conflict with GKE's.
- **Trust marking for shared GPUs.** Time-slicing and MPS give no memory isolation, so a shared pool is flagged
  unless it carries :data:`SHARING_TRUST_KEY` ``=`` :data:`SHARING_TRUSTED`: as a node label of a GKE pool
  (``nodeConfig.labels``), as a label or annotation of the device plugin's ConfigMap (it marks every entry), and
  as a tag of a Bottlerocket launch template or a node label in its settings.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import re
import sys
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

import yaml

from gpu_components import catalog
from gpu_components.catalog import Cloud, InstanceType
from gpu_components.workloads import SOURCE_SCHEDULE_GPUS, container_gpu_problems, is_gpu_resource

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SOURCE_TAINTS = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
SOURCE_SHARING = "https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#shared-access-to-gpus"
SOURCE_HELM_VERSION = "https://helm.sh/docs/helm/helm_install/"

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AKS_AGENT_POOL = re.compile(r"^azure-native:containerservice(/v[0-9a-z]+)?:AgentPool$")
AKS_MANAGED_CLUSTER = re.compile(r"^azure-native:containerservice(/v[0-9a-z]+)?:ManagedCluster$")
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")

WORKLOAD_POD_SPECS: Mapping[str, tuple[str, ...]] = {
    "kubernetes:core/v1:Pod": ("spec",),
    "kubernetes:core/v1:PodTemplate": ("template", "spec"),
    "kubernetes:core/v1:ReplicationController": ("spec", "template", "spec"),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:ReplicaSet": ("spec", "template", "spec"),
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Workload resource types -> where their pod spec sits in the props."""
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"

EKS_NVIDIA_AMI_TYPES = frozenset(
    {
        "AL2023_x86_64_NVIDIA",
        "AL2023_ARM_64_NVIDIA",
        "BOTTLEROCKET_x86_64_NVIDIA",
        "BOTTLEROCKET_ARM_64_NVIDIA",
        "AL2_x86_64_GPU",
    }
)
"""EKS AMI types with NVIDIA drivers (``AL2_x86_64_GPU`` is past end of support but still found in programs)."""
REPELLING_EFFECTS = {"aws": ("NO_SCHEDULE", "NO_EXECUTE"), "azure": ("NoSchedule", "NoExecute")}
"""Taint effects, in each API's spelling, that keep pods without a toleration off a node."""
GKE_NO_SCHEDULE = "NO_SCHEDULE"

DEFAULT_GPU_TAINT_KEYS = ("nvidia.com/gpu", "sku")
"""Taint keys that mark GPU nodes: the device plugin's and GKE's ``nvidia.com/gpu``, and ``sku`` (AKS's GPU guide
uses ``sku=gpu:NoSchedule``). Configurable per policy (``gpuTaintKeys``)."""
SUGGESTED_TAINT = "nvidia.com/gpu=present:NoSchedule"
DEFAULT_ALLOWED_DAEMONSETS = (
    "nvidia-device-plugin*",
    "nvidia-dcgm*",
    "nvidia-container-toolkit*",
    "nvidia-driver*",
    "nvidia-mig-manager*",
    "nvidia-operator-validator*",
    "gpu-feature-discovery*",
    "gpu-operator*",
    "*dcgm-exporter*",
    "node-feature-discovery*",
)
"""DaemonSets (``fnmatch`` patterns over ``metadata.name`` or ``namespace/name``) that may tolerate GPU taints
without requesting GPUs: the NVIDIA stack's own agents, which must run on every GPU node. Configurable
(``allowedDaemonSets``); add cluster-wide agents (log shippers, node exporters) there."""

NVIDIA_CHARTS = frozenset({"nvidia-device-plugin", "gpu-operator", "gpu-feature-discovery"})
"""Helm charts of the NVIDIA GPU stack."""
_PINNED_VERSION = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")

SHARING_TRUST_KEY = "gpu-components/sharing"
"""Label / annotation / tag key that marks a shared GPU pool as serving workloads that trust each other."""
SHARING_TRUSTED = "trusted"
"""The value of :data:`SHARING_TRUST_KEY` that marks trust."""
GKE_SHARING_STRATEGIES = frozenset({"TIME_SHARING", "MPS"})
BOTTLEROCKET_SHARING = frozenset({"time-slicing", "mps"})


# ---------------------------------------------------------------------------------------------------------------
# Plain-value access (props are Mappings and Sequences, possibly the engine's read-only proxies)
# ---------------------------------------------------------------------------------------------------------------


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> Sequence[Any]:
    return value if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) else ()


def _at(props: Mapping[str, Any], *keys: str) -> object:
    current: object = props
    for key in keys:
        current = _map(current).get(key)
    return current


def _nvidia_instance(cloud: Cloud, name: object) -> InstanceType | None:
    """The catalog entry of an NVIDIA GPU instance type (Azure sizes match case-insensitively), else ``None``."""
    if not isinstance(name, str) or not name:
        return None
    known = catalog.find_instance_type(cloud, name)
    if known is None and cloud == "azure":
        known = next((t for t in catalog.instance_types(cloud) if t.name.lower() == name.lower()), None)
    return known if known is not None and known.gpu_vendor == "nvidia" else None


def _describe(instance: InstanceType) -> str:
    return f"{instance.name} ({instance.gpu_description})"


# ---------------------------------------------------------------------------------------------------------------
# Rule 1: GPU node pools carry a NoSchedule GPU taint
# ---------------------------------------------------------------------------------------------------------------


def _eks_gpu(props: Mapping[str, Any]) -> str | None:
    for name in _list(props.get("instanceTypes")):
        instance = _nvidia_instance("aws", name)
        if instance is not None:
            return _describe(instance)
    ami_type = props.get("amiType")
    if ami_type in EKS_NVIDIA_AMI_TYPES:
        return f"AMI type {ami_type}"
    return None


def _structured_taint_ok(taints: object, effects: Collection[str], keys: Collection[str]) -> bool:
    return any(_map(t).get("key") in keys and _map(t).get("effect") in effects for t in _list(taints))


def _aks_taint_ok(taints: object, keys: Collection[str]) -> bool:
    for text in _list(taints):
        if not isinstance(text, str) or ":" not in text:
            continue
        head, _, effect = text.rpartition(":")
        key = head.split("=", 1)[0]
        if key in keys and effect in REPELLING_EFFECTS["azure"]:
            return True
    return False


def _aks_pool_violations(pool: Mapping[str, Any], where: str, keys: Collection[str]) -> list[str]:
    instance = _nvidia_instance("azure", pool.get("vmSize"))
    if instance is None or _aks_taint_ok(pool.get("nodeTaints"), keys):
        return []
    return [
        f"{where}: GPU node pool of {_describe(instance)} has no NoSchedule GPU taint in nodeTaints, so any pod can "
        f"land on its GPU nodes; add {SUGGESTED_TAINT!r} (taint keys accepted: {', '.join(keys)}) "
        f"[source: {SOURCE_TAINTS}]"
    ]


def node_pool_taint_violations(
    resource_type: str, props: Mapping[str, Any], gpu_taint_keys: Collection[str] = DEFAULT_GPU_TAINT_KEYS
) -> list[str]:
    """A GPU node pool must carry a ``NoSchedule`` (or ``NoExecute``) taint with a GPU taint key.

    Covers ``aws:eks/nodeGroup:NodeGroup`` (GPU instance types or NVIDIA AMI types; ``taints`` with
    ``effect: NO_SCHEDULE``), ``azure-native:containerservice:AgentPool`` and the ``agentPoolProfiles`` of a
    ``ManagedCluster`` (GPU VM sizes; ``nodeTaints`` strings ``key=value:NoSchedule``), and
    ``gcp:container/nodePool:NodePool`` (see the module's decision on GKE). AKS's spot taint does not count: it is
    not a GPU taint, and spot-tolerant pods would still land on the GPUs. GPU instance types are the catalog's; a
    type the catalog does not know is not recognised as a GPU type (an NVIDIA AMI type still marks an EKS group).
    """
    keys = tuple(gpu_taint_keys)
    if resource_type == EKS_NODE_GROUP:
        gpu = _eks_gpu(props)
        if gpu is None or _structured_taint_ok(props.get("taints"), REPELLING_EFFECTS["aws"], keys):
            return []
        return [
            f"taints: GPU node group ({gpu}) has no NO_SCHEDULE GPU taint, so any pod can land on its GPU nodes; "
            f"add {{key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE}} (taint keys accepted: "
            f"{', '.join(keys)}) [source: {SOURCE_TAINTS}]"
        ]
    if AKS_AGENT_POOL.match(resource_type):
        return _aks_pool_violations(props, "nodeTaints", keys)
    if AKS_MANAGED_CLUSTER.match(resource_type):
        messages: list[str] = []
        for index, pool in enumerate(_list(props.get("agentPoolProfiles"))):
            name = _map(pool).get("name", index)
            messages += _aks_pool_violations(_map(pool), f"agentPoolProfiles[{index}] ({name})", keys)
        return messages
    if resource_type == GKE_NODE_POOL:
        if _gke_gpu(props) is None:
            return []
        return [
            f"nodeConfig.taints[{index}]: GKE taints GPU pools nvidia.com/gpu=present:NoSchedule itself; an "
            f"nvidia.com/gpu taint with effect {_map(taint).get('effect')} conflicts with it; use NO_SCHEDULE "
            "[source: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus]"
            for index, taint in enumerate(_list(_at(props, "nodeConfig", "taints")))
            if _map(taint).get("key") == "nvidia.com/gpu" and _map(taint).get("effect") != GKE_NO_SCHEDULE
        ]
    return []


def _gke_gpu(props: Mapping[str, Any]) -> str | None:
    for accelerator in _list(_at(props, "nodeConfig", "guestAccelerators")):
        count = _map(accelerator).get("count")
        if isinstance(count, (int, float)) and count > 0:
            return f"{count:g} x {_map(accelerator).get('type')}"
    instance = _nvidia_instance("gcp", _at(props, "nodeConfig", "machineType"))
    return _describe(instance) if instance is not None else None


# ---------------------------------------------------------------------------------------------------------------
# Rules 2 and 3: GPU workloads
# ---------------------------------------------------------------------------------------------------------------


def _pod_spec(resource_type: str, props: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    keys = WORKLOAD_POD_SPECS.get(resource_type)
    if keys is None:
        return None
    return ".".join(keys), _map(_at(props, *keys))


def _containers(path: str, pod: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for field in ("initContainers", "containers"):
        for index, container in enumerate(_list(pod.get(field))):
            yield f"{path}.{field}[{index}]", _map(container)


def workload_gpu_quantity_violations(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Every container asking for NVIDIA GPUs uses whole-number limits, with requests (if any) equal to them.

    Reuses :func:`gpu_components.workloads.container_gpu_problems`. Numbers arrive from the engine as doubles, so a
    whole-valued double counts as whole; fractions, booleans, zero, negative counts, non-numeric strings, requests
    that differ from the limit and requests without a limit are violations.
    """
    found = _pod_spec(resource_type, props)
    if found is None:
        return []
    messages: list[str] = []
    for path, container in _containers(*found):
        problems = container_gpu_problems(_map(container.get("resources")), f"{path}.resources", integral_floats=True)
        messages += [str(problem) for problem in problems]
    return messages


def _requests_gpus(pod: Mapping[str, Any]) -> bool:
    for _, container in _containers("", pod):
        resources = _map(container.get("resources"))
        for part in ("limits", "requests"):
            if any(isinstance(name, str) and is_gpu_resource(name) for name in _map(resources.get(part))):
                return True
    return False


def _gpu_tolerations(pod: Mapping[str, Any], keys: Collection[str]) -> list[str]:
    tolerated: list[str] = []
    for toleration in _list(pod.get("tolerations")):
        item = _map(toleration)
        key, operator = item.get("key"), item.get("operator", "Equal")
        if key in keys:
            tolerated.append(str(key))
        elif not key and operator == "Exists":
            tolerated.append("every taint (operator Exists without a key)")
    return tolerated


def toleration_without_gpu_violations(
    resource_type: str,
    props: Mapping[str, Any],
    allowed_daemonsets: Collection[str] = DEFAULT_ALLOWED_DAEMONSETS,
    gpu_taint_keys: Collection[str] = DEFAULT_GPU_TAINT_KEYS,
) -> list[str]:
    """A workload whose pods tolerate a GPU taint must request a GPU, or it squats on GPU nodes.

    DaemonSets matching ``allowed_daemonsets`` (``fnmatch`` patterns over ``metadata.name`` or
    ``<namespace>/<name>``) are exempt. A toleration of every taint (``operator: Exists`` without a key) counts.
    """
    found = _pod_spec(resource_type, props)
    if found is None:
        return []
    path, pod = found
    tolerated = _gpu_tolerations(pod, tuple(gpu_taint_keys))
    if not tolerated or _requests_gpus(pod):
        return []
    if resource_type == DAEMON_SET:
        name = str(_at(props, "metadata", "name") or "")
        namespace = str(_at(props, "metadata", "namespace") or "default")
        if name and any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(f"{namespace}/{name}", pattern)
            for pattern in allowed_daemonsets
        ):
            return []
    return [
        f"{path}.tolerations: the pods tolerate GPU taints ({', '.join(sorted(set(tolerated)))}) but no container "
        "requests an NVIDIA GPU, so they can occupy GPU nodes that GPU work is waiting for; remove the "
        "toleration, request a GPU, or (system DaemonSets) add the name to allowedDaemonSets "
        f"[source: {SOURCE_SCHEDULE_GPUS}]"
    ]


# ---------------------------------------------------------------------------------------------------------------
# Rule 4: NVIDIA Helm charts pin a version
# ---------------------------------------------------------------------------------------------------------------


def _chart_name(chart: str) -> tuple[str, bool]:
    """The chart's base name and whether the reference pins its content by itself (archive or local path)."""
    base = chart.rstrip("/").rsplit("/", 1)[-1]
    if base.endswith(".tgz"):
        stem = base.removesuffix(".tgz")
        name = next((n for n in NVIDIA_CHARTS if stem == n or stem.startswith(f"{n}-")), stem)
        return name, True
    local = chart.startswith((".", "/", "file://"))
    return base, local


def chart_version_violations(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """A Helm release or chart of the NVIDIA stack (``nvidia-device-plugin``, ``gpu-operator``,
    ``gpu-feature-discovery``) must pin an exact chart version (``0.20.0``, ``v26.7.0``), not none or a range.

    Covers ``kubernetes:helm.sh/v3:Release`` and ``kubernetes:helm.sh/v4:Chart``; chart archives (``.tgz``) and
    local chart directories pin their content themselves.
    """
    if resource_type not in HELM_TYPES:
        return []
    chart = props.get("chart")
    if not isinstance(chart, str):
        return []
    name, self_pinned = _chart_name(chart)
    if name not in NVIDIA_CHARTS or self_pinned:
        return []
    version = props.get("version")
    if isinstance(version, str) and _PINNED_VERSION.match(version.strip()):
        return []
    got = "no version" if not version else f"version {version!r}, not an exact version"
    return [
        f"version: chart {name} has {got}; every install would take whatever the repository serves then, so the "
        "GPU stack can change under a cluster without a change to the program; pin the version you tested "
        f"(e.g. 0.20.0 for nvidia-device-plugin) [source: {SOURCE_HELM_VERSION}]"
    ]


# ---------------------------------------------------------------------------------------------------------------
# Rule 5: shared GPUs only for workloads that trust each other
# ---------------------------------------------------------------------------------------------------------------


def _trusted(*marks: object) -> bool:
    return any(_map(mark).get(SHARING_TRUST_KEY) == SHARING_TRUSTED for mark in marks)


def _shared_entries(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """ConfigMap entries that are device plugin configs with sharing: (entry, ``timeSlicing`` or ``mps``)."""
    shared: list[tuple[str, str]] = []
    for entry, text in sorted(data.items()):
        if not isinstance(text, str):
            continue
        try:
            config = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        sharing = _map(_map(config).get("sharing"))
        shared += [(entry, mode) for mode in ("timeSlicing", "mps") if mode in sharing]
    return shared


def _bottlerocket_sharing(user_data: object) -> tuple[str | None, Mapping[str, Any]]:
    """The Bottlerocket device sharing strategy in launch template user data, and its node labels."""
    if not isinstance(user_data, str) or not user_data:
        return None, {}
    try:
        text = base64.b64decode(user_data, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        text = user_data
    try:
        settings = _map(tomllib.loads(text).get("settings"))
    except tomllib.TOMLDecodeError:
        return None, {}
    strategy = _at(settings, "kubelet-device-plugins", "nvidia", "device-sharing-strategy")
    labels = _map(_at(settings, "kubernetes", "node-labels"))
    return (strategy if isinstance(strategy, str) else None), labels


def _untrusted(what: str, where: str) -> str:
    return (
        f"{where}: {what} shares GPUs without memory isolation, so its workloads can read and disturb each "
        f"other's GPU memory; keep it to workloads that trust each other and mark it {SHARING_TRUST_KEY}: "
        f"{SHARING_TRUSTED}, or use MIG or whole GPUs [source: {SOURCE_SHARING}]"
    )


def shared_gpu_trust_violations(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """A GPU pool shared by time-slicing or MPS must be marked as serving workloads that trust each other.

    Covers the device plugin's ConfigMap (entries with ``sharing.timeSlicing`` / ``sharing.mps``; marked by a label
    or annotation of the ConfigMap), GKE node pools (``gpuSharingConfig`` ``TIME_SHARING`` / ``MPS``; marked by a
    node label in ``nodeConfig.labels``) and Bottlerocket launch templates (``device-sharing-strategy``
    ``time-slicing`` / ``mps`` in the user data; marked by a tag or a node label in
    ``settings.kubernetes.node-labels``).
    """
    if resource_type == CONFIG_MAP:
        metadata = _map(props.get("metadata"))
        if _trusted(metadata.get("labels"), metadata.get("annotations")):
            return []
        return [
            _untrusted(f"device plugin config {entry!r} ({mode})", f"data[{entry!r}]")
            for entry, mode in _shared_entries(_map(props.get("data")))
        ]
    if resource_type == GKE_NODE_POOL:
        if _trusted(_at(props, "nodeConfig", "labels")):
            return []
        messages: list[str] = []
        for index, accelerator in enumerate(_list(_at(props, "nodeConfig", "guestAccelerators"))):
            strategy = _at(_map(accelerator), "gpuSharingConfig", "gpuSharingStrategy")
            if strategy in GKE_SHARING_STRATEGIES:
                where = f"nodeConfig.guestAccelerators[{index}].gpuSharingConfig"
                messages.append(_untrusted(f"GKE GPU sharing {strategy}", where))
        return messages
    if resource_type == EKS_LAUNCH_TEMPLATE:
        strategy, labels = _bottlerocket_sharing(props.get("userData"))
        if strategy not in BOTTLEROCKET_SHARING or _trusted(props.get("tags"), labels):
            return []
        return [_untrusted(f"Bottlerocket device-sharing-strategy {strategy}", "userData")]
    return []
