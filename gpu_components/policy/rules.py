"""GPU policy rules as plain functions over a resource's type and properties, as the Pulumi engine sees them.

Each validator takes ``(resource_type, props)`` — ``props`` are the resource's inputs in the engine's camelCase
(``amiType``, ``nodeTaints``, ``nodeConfig.guestAccelerators``), whether or not this library created the resource
— and returns one message per violation (empty when the resource complies or the rule does not apply to it).
:mod:`gpu_components.policy` wraps each in a ``pulumi_policy.ResourceValidationPolicy``.

GPU knowledge comes from the library, not from copies: GPU instance types from :mod:`gpu_components.catalog`, the
GPU quantity rule from :mod:`gpu_components.workloads`, the default GPU taint from :mod:`gpu_components.spec`. What
each cloud's resources look like to the engine (their type tokens, where a pool's instance type, image,
accelerators, taints and labels sit, the taint effects and NVIDIA AMI types in the cloud's spelling) is that
cloud's facts (:class:`~gpu_components.cloud_facts.NodePoolResource` records in ``gpu_components.<cloud>.facts``),
the same records the node-pool components read; the rules here name no cloud, and the pack imports no cloud SDK.

Decisions:

- **Pools of a cloud that taints GPU nodes itself pass without an explicit taint.** GKE taints GPU node pools
  ``nvidia.com/gpu=present:NoSchedule`` itself whenever the cluster has a non-GPU pool, i.e. whenever there is
  other work to keep off (:attr:`~gpu_components.cloud_facts.CloudFacts.gpu_taint_source`). Such a GPU pool that
  sets an ``nvidia.com/gpu`` taint with another effect is flagged: it would conflict with the cloud's.
- **Trust marking for shared GPUs.** Time-slicing and MPS give no memory isolation, so a shared pool is flagged
  unless it carries :data:`SHARING_TRUST_KEY` ``=`` :data:`SHARING_TRUSTED`: as a node label of a node pool whose
  accelerators set a sharing strategy (a GKE pool's ``nodeConfig.labels``); on a device plugin ConfigMap, per entry,
  by the annotation :data:`SHARING_TRUSTED_ENTRIES_KEY` listing the trusted entries (one ConfigMap holds the entries
  of several pools, some trusted and some not), or for every entry by a ConfigMap label or annotation
  :data:`SHARING_TRUST_KEY`; and as a tag of a node template whose settings share GPUs
  (:attr:`~gpu_components.cloud_facts.NodeTemplate.sharing`: a Bottlerocket launch template) or a node label in
  those settings. The library's components set these marks from a pool's ``time_slicing.trusted`` /
  ``mps.trusted`` (:func:`gpu_components.spec.sharing_trust_labels`).
- **The DRA rules see the whole stack.** Whether a workload's nodes are a DRA pool's, and whether a claim's sharing
  is allowed, depends on other resources: the node pools' labels and the DRA driver's Helm release. So those two
  rules (:func:`dra_pool_extended_resource_violations`, :func:`dra_alpha_claim_config_violations`) take every
  resource of the stack (:data:`StackResource`) and the pack runs them as stack validation policies (the engine's
  ``AnalyzeStack``, which an offline plan runs too), where the other rules see one resource at a time. A stack
  that does not hold the fact a DRA rule needs (no pool labelled DRA, no DRA driver release) is not judged: a
  workload or claim deployed by another stack than its cluster's passes.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

import yaml

from gpu_components import catalog, dra
from gpu_components.catalog import InstanceType
from gpu_components.cloud_facts import CloudFacts, NodePoolResource, NodeTemplate, all_cloud_facts
from gpu_components.gpu_requests import SOURCE_SCHEDULE_GPUS
from gpu_components.labels import GPU_ACCESS_LABEL, GPU_TAINT_KEY, POOL_LABEL, SOURCE_TAINTS

# The trust marks (label / annotation / tag key and value, the ConfigMap's per-entry annotation) are the pool model's,
# which the components render; re-exported here, where the rule reads them.
from gpu_components.labels import SHARING_TRUST_KEY as SHARING_TRUST_KEY
from gpu_components.labels import SHARING_TRUSTED as SHARING_TRUSTED
from gpu_components.labels import SHARING_TRUSTED_ENTRIES_KEY as SHARING_TRUSTED_ENTRIES_KEY
from gpu_components.nvidia.chart_pin import SOURCE_HELM_VERSION, is_pinned_chart_version
from gpu_components.nvidia.device_plugin import GPU_RESOURCE
from gpu_components.nvidia.mig import ALL_DISABLED, MIG_CONFIG_LABEL
from gpu_components.spec import DEFAULT_GPU_TAINT, SOURCE_SHARING, TaintEffect
from gpu_components.workloads import container_gpu_problems, is_gpu_resource

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
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
"""Karpenter's NodePool (EKS Karpenter, AKS node auto-provisioning): its nodes' labels are at
``spec.template.metadata.labels``."""
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
"""Kubernetes' well-known node label of the instance type, which Karpenter NodePool requirements select by."""
SOURCE_STARTUP_TAINTS = (
    "https://karpenter.sh/docs/concepts/nodepools/ (spec.template.spec.startupTaints: taints another system removes "
    "once the node is ready; pods need not tolerate them)"
)
"""What Karpenter does with a NodePool's startup taints."""

REPELLING_EFFECTS: tuple[TaintEffect, ...] = ("NoSchedule", "NoExecute")
"""Taint effects that keep pods without a toleration off a node (each cloud's facts spell them its way)."""

DEFAULT_GPU_TAINT_KEYS = ("nvidia.com/gpu", "sku")
"""Taint keys that mark GPU nodes: the device plugin's and GKE's ``nvidia.com/gpu``, and ``sku`` (AKS's GPU guide
uses ``sku=gpu:NoSchedule``). Configurable per policy (``gpuTaintKeys``)."""
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

DRA_DRIVER_CHART = "dra-driver-nvidia-gpu"
"""The Helm chart of NVIDIA's DRA driver (``kubernetes-sigs/dra-driver-nvidia-gpu``)."""
GPU_OPERATOR_CHART = "gpu-operator"
NVIDIA_CHARTS = frozenset({"nvidia-device-plugin", GPU_OPERATOR_CHART, "gpu-feature-discovery", DRA_DRIVER_CHART})
"""Helm charts of the NVIDIA GPU stack."""


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


def _path(props: Mapping[str, Any], path: str) -> object:
    """The value at a dotted input path (``nodeConfig.machineType``), or ``None``."""
    return _at(props, *path.split(".")) if path else None


def _node_pool_resource(resource_type: str) -> tuple[CloudFacts, NodePoolResource] | None:
    """The cloud and node-pool resource record of ``resource_type``, or ``None`` when it holds no node pools."""
    for facts in all_cloud_facts():
        for resource in facts.node_pools:
            if resource.matches(resource_type):
                return facts, resource
    return None


def _node_template(resource_type: str) -> NodeTemplate | None:
    """The node template record of ``resource_type``, or ``None`` when it is no node template."""
    for facts in all_cloud_facts():
        for resource in facts.node_pools:
            if resource.template is not None and resource.template.type_token == resource_type:
                return resource.template
    return None


def _nvidia_instance(facts: CloudFacts, name: object) -> InstanceType | None:
    """The catalog entry of an NVIDIA GPU instance type (case-insensitively where the cloud's API matches so, as
    Azure VM sizes), else ``None``."""
    if not isinstance(name, str) or not name:
        return None
    known = catalog.find_instance_type(facts.cloud, name)
    if known is None and facts.instance_types_ignore_case:
        known = next((t for t in catalog.instance_types(facts.cloud) if t.name.lower() == name.lower()), None)
    return known if known is not None and known.gpu_vendor == "nvidia" else None


def _describe(instance: InstanceType) -> str:
    return f"{instance.name} ({instance.gpu_description})"


# ---------------------------------------------------------------------------------------------------------------
# Rule 1: GPU node pools carry a NoSchedule GPU taint
# ---------------------------------------------------------------------------------------------------------------


def _pool_gpu(facts: CloudFacts, resource: NodePoolResource, pool: Mapping[str, Any]) -> str | None:
    """What makes ``pool`` a GPU pool, in words: GPUs attached to it, an NVIDIA GPU instance type, an NVIDIA node
    image; ``None`` for a pool without GPUs."""
    for accelerator in _list(_path(pool, resource.accelerators)):
        count = _map(accelerator).get("count")
        if isinstance(count, (int, float)) and count > 0:
            return f"{count:g} x {_map(accelerator).get('type')}"
    names = _path(pool, resource.instance_types)
    for name in [names] if isinstance(names, str) else _list(names):
        instance = _nvidia_instance(facts, name)
        if instance is not None:
            return _describe(instance)
    images = resource.gpu_images
    image = _path(pool, images.path) if images is not None else None
    if images is not None and image in images.types:
        return f"{images.label} {image}"
    return None


def _taint(resource: NodePoolResource, taint: object) -> tuple[object, object]:
    """A taint's key and effect as the resource spells them (``key=value:Effect`` text, or an object)."""
    if not resource.taint_text:
        return _map(taint).get("key"), _map(taint).get("effect")
    if not isinstance(taint, str) or ":" not in taint:
        return None, None
    head, _, effect = taint.rpartition(":")
    return head.split("=", 1)[0], effect


def _suggested_taint(facts: CloudFacts, resource: NodePoolResource) -> str:
    """The default GPU taint as the resource takes it, effect in the cloud's spelling:
    ``'nvidia.com/gpu=present:NoSchedule'`` or ``{key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE}``."""
    taint = replace(DEFAULT_GPU_TAINT, effect=cast(TaintEffect, facts.taint_effects[DEFAULT_GPU_TAINT.effect]))
    if resource.taint_text:
        return repr(taint.text)
    return f"{{key: {taint.key}, value: {taint.value}, effect: {taint.effect}}}"


def _pool_taint_violations(
    facts: CloudFacts,
    resource: NodePoolResource,
    pool: Mapping[str, Any],
    where: str,
    prefix: str,
    keys: Collection[str],
) -> list[str]:
    """Rule 1 for one pool: ``where`` names it in a message, ``prefix`` is its path in the resource's inputs."""
    gpu = _pool_gpu(facts, resource, pool)
    if gpu is None:
        return []
    taints = [_taint(resource, taint) for taint in _list(_path(pool, resource.taints))]
    if facts.gpu_taint_source is not None:
        own = facts.taint_effects[DEFAULT_GPU_TAINT.effect]
        return [
            f"{prefix}{resource.taints}[{index}]: {facts.service} taints GPU pools {DEFAULT_GPU_TAINT.text} itself; "
            f"an {GPU_TAINT_KEY} taint with effect {effect} conflicts with it; use {own} "
            f"[source: {facts.gpu_taint_source}]"
            for index, (key, effect) in enumerate(taints)
            if key == GPU_TAINT_KEY and effect != own
        ]
    repelling = {facts.taint_effects[effect] for effect in REPELLING_EFFECTS}
    if any(key in keys and effect in repelling for key, effect in taints):
        return []
    return [
        f"{where}: {resource.missing_gpu_taint.format(gpu=gpu)}, so any pod can land on its GPU nodes; add "
        f"{_suggested_taint(facts, resource)} (taint keys accepted: {', '.join(keys)}) [source: {SOURCE_TAINTS}]"
    ]


def node_pool_taint_violations(
    resource_type: str, props: Mapping[str, Any], gpu_taint_keys: Collection[str] = DEFAULT_GPU_TAINT_KEYS
) -> list[str]:
    """A GPU node pool must carry a ``NoSchedule`` (or ``NoExecute``) taint with a GPU taint key.

    Covers every node-pool resource of the clouds' facts: ``aws:eks/nodeGroup:NodeGroup`` (GPU instance types or
    NVIDIA AMI types; ``taints`` with ``effect: NO_SCHEDULE``), ``azure-native:containerservice:AgentPool`` and the
    ``agentPoolProfiles`` of a ``ManagedCluster`` (GPU VM sizes; ``nodeTaints`` strings ``key=value:NoSchedule``),
    and ``gcp:container/nodePool:NodePool`` (see the module's decision on clouds that taint GPU nodes themselves),
    and Karpenter NodePools of any cloud (:func:`karpenter_node_pool_taint_violations`: the taint in ``taints``, not
    only in ``startupTaints``).
    AKS's spot taint does not count: it is not a GPU taint, and spot-tolerant pods would still land on the GPUs. GPU
    instance types are the catalog's; a type the catalog does not know is not recognised as a GPU type (an NVIDIA
    AMI type still marks an EKS group).
    """
    if resource_type == KARPENTER_NODE_POOL:
        return karpenter_node_pool_taint_violations(resource_type, props, gpu_taint_keys)
    found = _node_pool_resource(resource_type)
    if found is None:
        return []
    facts, resource = found
    keys = tuple(gpu_taint_keys)
    messages: list[str] = []
    for index, (pool, prefix) in enumerate(_pools(resource, props)):
        where = f"{prefix[:-1]} ({pool.get('name', index)})" if prefix else resource.taints
        messages += _pool_taint_violations(facts, resource, pool, where, prefix, keys)
    return messages


def _pools(resource: NodePoolResource, props: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], str]]:
    """The pools a node-pool resource holds, each with its path prefix in the resource's inputs (``""`` for a
    resource that is one pool, ``agentPoolProfiles[0].`` for a pool in a list)."""
    if not resource.pools:
        return [(props, "")]
    listed = _list(_path(props, resource.pools))
    return [(_map(pool), f"{resource.pools}[{index}].") for index, pool in enumerate(listed)]


def pool_bound_violations(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """A GPU node pool's inputs stay within the bounds the cloud's API holds them to (the cloud's
    :attr:`~gpu_components.cloud_facts.NodePoolResource.bounds`: EKS a node group's ``clusterName`` and
    ``scalingConfig.maxSize``; AKS an agent pool's ``osDiskSizeGB``, ``count`` and ``maxCount``, also in a managed
    cluster's ``agentPoolProfiles``; GKE a node pool's per-zone ``nodeCount`` and ``autoscaling`` counts). The cloud
    refuses such a pool when ``pulumi up`` creates or updates it; the rule says so at preview. Pools without GPUs,
    and values that are not plain (unknown outputs), are not judged."""
    found = _node_pool_resource(resource_type)
    if found is None:
        return []
    facts, resource = found
    messages: list[str] = []
    for pool, prefix in _pools(resource, props):
        gpu = _pool_gpu(facts, resource, pool)
        if gpu is None:
            continue
        for bound in resource.bounds:
            value = _path(pool, bound.path)
            if bound.breaks(value, pool):
                # Numbers reach a pack as the engine's floats (``20.0``); shown as the user wrote them.
                shown = f"{value:g}" if isinstance(value, (int, float)) else repr(value)
                accepted = bound.accepted_for(pool)
                messages.append(
                    f"{prefix}{bound.path}: {shown} is not what {facts.service} accepts ({accepted}), so "
                    f"{facts.service} refuses this GPU pool ({gpu}) when it is deployed [source: {bound.source}]"
                )
    return messages


def _admits_gpus(operator: object, values: Sequence[str]) -> bool:
    """Whether a requirement on a GPU name or count label admits only nodes with GPUs: ``Exists``, ``Gt`` (a count
    above some number), ``In`` a value other than ``0``, ``Gte`` at least 1."""
    if operator in ("Exists", "Gt"):
        return True
    if operator == "In":
        return any(value != "0" for value in values)
    return operator == "Gte" and any(value.isdigit() and int(value) >= 1 for value in values)


def _karpenter_gpu(requirements: Sequence[Any], limits: Mapping[str, Any]) -> str | None:
    """What makes a Karpenter NodePool a GPU pool, in words: a requirement In a catalog NVIDIA GPU instance type (on
    ``node.kubernetes.io/instance-type`` or a provisioner's instance-type label), a requirement on a provisioner's GPU
    name or count label (:class:`~gpu_components.cloud_facts.ProvisionerFacts`) that admits GPUs, or an
    ``nvidia.com/gpu`` limit; ``None`` for a pool without GPUs."""
    for facts in all_cloud_facts():
        type_labels = {INSTANCE_TYPE_LABEL, *(p.instance_type_label for p in facts.provisioners.values())}
        gpu_labels = {label for p in facts.provisioners.values() for label in (p.gpu_name_label, p.gpu_count_label)}
        for requirement in map(_map, requirements):
            key, operator = requirement.get("key"), requirement.get("operator")
            values = [str(value) for value in _list(requirement.get("values"))]
            if key in type_labels and operator == "In":
                for value in values:
                    instance = _nvidia_instance(facts, value)
                    if instance is not None:
                        return _describe(instance)
            if key in gpu_labels and _admits_gpus(operator, values):
                return f"requirement {key} {operator} {', '.join(values)}".rstrip()
    if GPU_RESOURCE in limits:
        return f"limits {GPU_RESOURCE}: {limits[GPU_RESOURCE]}"
    return None


def karpenter_node_pool_taint_violations(
    resource_type: str, props: Mapping[str, Any], gpu_taint_keys: Collection[str] = DEFAULT_GPU_TAINT_KEYS
) -> list[str]:
    """A GPU Karpenter NodePool (``karpenter.sh/v1``, any cloud: EKS Karpenter, AKS node auto-provisioning) must
    carry a ``NoSchedule`` (or ``NoExecute``) taint with a GPU taint key in ``spec.template.spec.taints``, as a node
    group must (:func:`node_pool_taint_violations`). A GPU taint only in ``spec.template.spec.startupTaints`` does not
    count: Karpenter launches such nodes for pods that do not tolerate it, and once the node is initialized the taint
    is gone (:data:`SOURCE_STARTUP_TAINTS`). GPU pools are recognised by :func:`_karpenter_gpu`."""
    if resource_type != KARPENTER_NODE_POOL:
        return []
    template = _map(_at(props, "spec", "template", "spec"))
    gpu = _karpenter_gpu(_list(template.get("requirements")), _map(_at(props, "spec", "limits")))
    if gpu is None:
        return []
    keys = tuple(gpu_taint_keys)

    def gpu_taints(field: str) -> list[str]:
        return [
            str(taint.get("key"))
            for taint in map(_map, _list(template.get(field)))
            if taint.get("key") in keys and taint.get("effect") in REPELLING_EFFECTS
        ]

    if gpu_taints("taints"):
        return []
    startup = gpu_taints("startupTaints")
    if startup:
        return [
            f"spec.template.spec.startupTaints: GPU NodePool ({gpu}) has its GPU taint {startup[0]} only in "
            "startupTaints, which pods need not tolerate and which is removed once the node is initialized, so any "
            "pod can land on its GPU nodes; put it in spec.template.spec.taints "
            f"[source: {SOURCE_STARTUP_TAINTS}]"
        ]
    return [
        f"spec.template.spec.taints: GPU NodePool ({gpu}) has no NoSchedule GPU taint, so any pod can land on its GPU "
        f"nodes; add {{key: {DEFAULT_GPU_TAINT.key}, value: {DEFAULT_GPU_TAINT.value}, effect: NoSchedule}} "
        f"(taint keys accepted: {', '.join(keys)}) [source: {SOURCE_TAINTS}]"
    ]


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
    """Whether a container asks for an NVIDIA GPU: an NVIDIA extended resource in its limits or requests, or a
    resource claim (its ``resources.claims`` naming one of the pod's ``resourceClaims``), as pods on a DRA pool ask
    for their GPUs or MIG devices (:data:`SOURCE_DRA_CLAIMS`). One resource's inputs do not show a claim's
    DeviceClass, so any claim counts."""
    pod_claims = {_map(claim).get("name") for claim in _list(pod.get("resourceClaims"))} - {None}
    for _, container in _containers("", pod):
        resources = _map(container.get("resources"))
        for part in ("limits", "requests"):
            if any(isinstance(name, str) and is_gpu_resource(name) for name in _map(resources.get(part))):
                return True
        if any(_map(claim).get("name") in pod_claims for claim in _list(resources.get("claims"))):
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
    """A workload whose pods tolerate a GPU taint must request a GPU (an NVIDIA extended resource, or a resource claim
    a container uses), or it squats on GPU nodes.

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
    if is_pinned_chart_version(version):
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


_MARK = f"mark it {SHARING_TRUST_KEY}: {SHARING_TRUSTED}"
_MARK_ENTRY = f"list it in the ConfigMap's annotation {SHARING_TRUSTED_ENTRIES_KEY}"
_DECLARE = "(gpu_components' pools: time_slicing.trusted or mps.trusted)"


def _untrusted(what: str, where: str, mark: str = _MARK) -> str:
    return (
        f"{where}: {what} shares GPUs without memory isolation, so its workloads can read and disturb each "
        f"other's GPU memory; keep it to workloads that trust each other and {mark} {_DECLARE}, or use MIG or "
        f"whole GPUs [source: {SOURCE_SHARING}]"
    )


def shared_gpu_trust_violations(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """A GPU pool shared by time-slicing or MPS must be marked as serving workloads that trust each other.

    Covers the device plugin's ConfigMap (entries with ``sharing.timeSlicing`` / ``sharing.mps``; an entry is marked
    when the annotation :data:`SHARING_TRUSTED_ENTRIES_KEY` names it among its comma-separated entries, and every
    entry is marked by a label or annotation :data:`SHARING_TRUST_KEY` ``=`` :data:`SHARING_TRUSTED` of the
    ConfigMap), and, from the clouds' facts, node pools whose accelerators set a sharing
    strategy (GKE ``gpuSharingConfig`` ``TIME_SHARING`` / ``MPS``; marked by a node label in ``nodeConfig.labels``)
    and node templates whose settings share GPUs (Bottlerocket launch templates with ``device-sharing-strategy``
    ``time-slicing`` / ``mps`` in the user data; marked by a tag or a node label in
    ``settings.kubernetes.node-labels``).
    """
    if resource_type == CONFIG_MAP:
        metadata = _map(props.get("metadata"))
        if _trusted(metadata.get("labels"), metadata.get("annotations")):
            return []
        listed = _map(metadata.get("annotations")).get(SHARING_TRUSTED_ENTRIES_KEY)
        trusted = {name.strip() for name in listed.split(",")} if isinstance(listed, str) else set()
        return [
            _untrusted(f"device plugin config {entry!r} ({mode})", f"data[{entry!r}]", _MARK_ENTRY)
            for entry, mode in _shared_entries(_map(props.get("data")))
            if entry not in trusted
        ]
    found = _node_pool_resource(resource_type)
    if found is not None and found[1].sharing_strategy:
        facts, resource = found
        if _trusted(resource.node_labels(props)):
            return []
        messages: list[str] = []
        config = resource.sharing_strategy.rpartition(".")[0]
        for index, accelerator in enumerate(_list(_path(props, resource.accelerators))):
            strategy = _path(_map(accelerator), resource.sharing_strategy)
            if strategy in resource.shared_strategies:
                where = f"{resource.accelerators}[{index}].{config}"
                messages.append(_untrusted(f"{facts.service} GPU sharing {strategy}", where))
        return messages
    template = _node_template(resource_type)
    if template is not None and template.sharing is not None:
        sharing = template.sharing
        strategy, labels = sharing.read(_path(props, sharing.settings))
        if strategy not in sharing.shared_strategies or _trusted(_path(props, sharing.tags), labels):
            return []
        return [_untrusted(f"{sharing.label} {strategy}", sharing.settings)]
    return []


# ---------------------------------------------------------------------------------------------------------------
# Rules 6 and 7: DRA pools (stack rules: they need the node pools and the DRA driver release of the stack)
# ---------------------------------------------------------------------------------------------------------------

StackResource = tuple[str, str, Mapping[str, Any]]
"""One resource of a stack as a stack rule sees it: ``(urn, resource type, props)``."""
StackViolation = tuple[str, str]
"""One violation of a stack rule: ``(urn of the resource at fault, message)``."""

DRA_ACCESS = "dra"
"""The value of :data:`~gpu_components.spec.GPU_ACCESS_LABEL` on the nodes of a DRA pool."""
RESOURCE_CLAIM_DEVICES: Mapping[str, tuple[str, ...]] = {
    "kubernetes:resource.k8s.io/v1:ResourceClaim": ("spec", "devices"),
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate": ("spec", "spec", "devices"),
}
"""Resource claim types -> where their device requests and configs sit in the props (``resource.k8s.io/v1``)."""
CLAIM_CONFIG_KINDS = frozenset({dra.GPU_CONFIG_KIND, dra.MIG_DEVICE_CONFIG_KIND})
"""The driver's opaque claim configs with a ``sharing`` field (``gpuconfig.go``, ``migconfig.go`` at v0.4.1)."""

SOURCE_DRA_CLAIMS = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
SOURCE_DRA_EXTENDED_RESOURCE = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/"
    "templates/deviceclass-gpu.yaml (extendedResourceName: nvidia.com/gpu on gpu.nvidia.com only; mig.nvidia.com "
    "has none); https://www.kubernetes.dev/resources/keps/5004/ (DRAExtendedResource: alpha 1.34, beta 1.36)"
)
SOURCE_DRA_SHARING_GATES = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/api/nvidia.com/resource/v1beta1/"
    "validate.go (validateSharingStrategy); .../v0.4.1/pkg/featuregates/featuregates.go (alpha, off by default)"
)

SHARING_GATES: Mapping[str, str] = {strategy: gate.value for strategy, gate in dra.SHARING_FEATURE_GATES.items()}
"""A claim config's ``sharing.strategy`` -> the driver feature gate it needs (:data:`gpu_components.dra.
SHARING_FEATURE_GATES`): the driver refuses the strategy otherwise (``"<strategy>" is selected as the GPU sharing
strategy, but the "<gate>" feature gate is not enabled``, :data:`SOURCE_DRA_SHARING_GATES`)."""
SHARING_SETTING_GATES: Mapping[str, str] = {
    "timeSlicingConfig": SHARING_GATES["TimeSlicing"],
    "mpsConfig": SHARING_GATES["MPS"],
}
"""A claim config's sharing settings -> the gate of the strategy they belong to (``sharing.go``: a time-slicing
config only with ``TimeSlicing``, an MPS config only with ``MPS``)."""


def _pool_label_sets(resource_type: str, props: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The node labels of each pool a resource holds: a Karpenter NodePool's template labels, or the labels the
    clouds' node-pool records (:attr:`~gpu_components.cloud_facts.NodePoolResource.labels`) say where to read."""
    if resource_type == KARPENTER_NODE_POOL:
        return [_map(_at(props, "spec", "template", "metadata", "labels"))]
    found = _node_pool_resource(resource_type)
    if found is None or not found[1].labels:
        return []
    resource = found[1]
    if resource.pools:
        return [resource.node_labels(_map(pool)) for pool in _list(_path(props, resource.pools))]
    return [resource.node_labels(props)]


def dra_pools(resources: Iterable[StackResource]) -> frozenset[str]:
    """The names (:data:`~gpu_components.spec.POOL_LABEL` values) of the stack's pools whose nodes carry
    :data:`~gpu_components.spec.GPU_ACCESS_LABEL` ``=`` :data:`DRA_ACCESS`: EKS node groups (``labels``), AKS agent
    pools (``nodeLabels``), GKE node pools (``nodeConfig.labels``), Karpenter NodePools (template labels)."""
    names: set[str] = set()
    for _, resource_type, props in resources:
        for labels in _pool_label_sets(resource_type, props):
            name = labels.get(POOL_LABEL)
            if labels.get(GPU_ACCESS_LABEL) == DRA_ACCESS and isinstance(name, str):
                names.add(name)
    return frozenset(names)


def mig_dra_pools(resources: Iterable[StackResource]) -> frozenset[str]:
    """The DRA pools (:func:`dra_pools`) whose nodes carry a MIG layout (:data:`~gpu_components.nvidia.mig.
    MIG_CONFIG_LABEL` other than ``all-disabled``): the MIG manager partitions every GPU of the layout, and NVIDIA's DRA
    driver publishes the partitions as ``mig.nvidia.com`` devices, so such a pool offers no whole GPU in the
    ``gpu.nvidia.com`` DeviceClass (the library's MIG layouts partition every GPU of a node)."""
    names: set[str] = set()
    for _, resource_type, props in resources:
        for labels in _pool_label_sets(resource_type, props):
            name, layout = labels.get(POOL_LABEL), labels.get(MIG_CONFIG_LABEL)
            partitioned = layout is not None and layout != ALL_DISABLED
            if labels.get(GPU_ACCESS_LABEL) == DRA_ACCESS and isinstance(name, str) and partitioned:
                names.add(name)
    return frozenset(names)


def _selected_dra_pools(pod: Mapping[str, Any], pools: frozenset[str]) -> frozenset[str]:
    """The DRA pools a pod confined to DRA nodes (:func:`_dra_selection`) may land on: the pool its ``nodeSelector``
    names, else the pools its required node affinity's terms name with ``In`` (every DRA pool for a term that
    selects by :data:`~gpu_components.spec.GPU_ACCESS_LABEL`)."""
    pool = _map(pod.get("nodeSelector")).get(POOL_LABEL)
    if isinstance(pool, str) and pool in pools:
        return frozenset({pool})
    affinity = _at(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = _list(_map(affinity).get("nodeSelectorTerms"))
    if not terms:
        return pools
    selected: set[str] = set()
    for term in terms:
        named = [
            {value for value in _list(_map(item).get("values")) if isinstance(value, str)}
            for item in _list(_map(term).get("matchExpressions"))
            if _map(item).get("key") == POOL_LABEL and _map(item).get("operator") == "In"
        ]
        selected |= set.intersection(*named) & pools if named else pools
    return frozenset(selected)


def _dra_term(term: Mapping[str, Any], pools: Collection[str]) -> str | None:
    """How one required node selector term confines a pod to DRA nodes, in words, or ``None`` when it does not."""
    for expression in _list(term.get("matchExpressions")):
        item = _map(expression)
        if item.get("key") == GPU_ACCESS_LABEL and item.get("operator") == "Exists":
            return f"{GPU_ACCESS_LABEL} Exists (only DRA pools' nodes carry it)"
        values = [value for value in _list(item.get("values")) if isinstance(value, str)]
        if item.get("operator") != "In" or not values:
            continue
        if item.get("key") == GPU_ACCESS_LABEL and set(values) == {DRA_ACCESS}:
            return f"{GPU_ACCESS_LABEL} In [{DRA_ACCESS}]"
        if item.get("key") == POOL_LABEL and all(value in pools for value in values):
            return f"{POOL_LABEL} In [{', '.join(values)}] (DRA pools)"
    return None


def _dra_selection(pod: Mapping[str, Any], pools: Collection[str]) -> str | None:
    """How a pod's required node selection confines it to DRA nodes (its ``nodeSelector``, or every term of its
    required node affinity), in words; ``None`` when it may land on other nodes too."""
    selector = _map(pod.get("nodeSelector"))
    pool = selector.get(POOL_LABEL)
    if selector.get(GPU_ACCESS_LABEL) == DRA_ACCESS:
        return f"nodeSelector {GPU_ACCESS_LABEL}: {DRA_ACCESS}"
    if isinstance(pool, str) and pool in pools:
        return f"nodeSelector {POOL_LABEL}: {pool} (a DRA pool)"
    affinity = _at(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = _list(_map(affinity).get("nodeSelectorTerms"))
    reasons = [_dra_term(_map(term), pools) for term in terms]
    if terms and all(reason is not None for reason in reasons):
        return f"required node affinity {' or '.join(dict.fromkeys(str(reason) for reason in reasons))}"
    return None


DRA_DRIVER_COMPONENT = "gpu-components:index:NvidiaDraDriver"
"""The library's DRA driver component, whose registered ``extendedResource`` output says whether its pools serve
plain ``nvidia.com/gpu`` requests (its ``extended_resource`` in force: ``nvidia.com/gpu``, else ``null``)."""


def dra_extended_resource_recorded(
    resources: Iterable[StackResource], clusters: Mapping[str, str] | None = None
) -> dict[tuple[str | None, str], bool]:
    """``(cluster, pool name)`` -> whether the pool's DeviceClass serves plain ``nvidia.com/gpu`` requests, as the
    library's DRA driver component serving it records it (:data:`DRA_DRIVER_COMPONENT`: its ``poolNames``, and its
    ``extendedResource`` output ``nvidia.com/gpu``, the DRA setting ``extended_resource`` in force on a whole-GPU
    pool; a null output is not kept, so a driver that recorded its ``poolNames`` and no ``extendedResource`` records
    null). ``clusters``: resource URN -> the cluster it goes to (its Kubernetes provider), which tells the pools of
    two clusters of one name apart; the cluster is ``None`` where unknown, and two drivers' records of one pool name
    there are joined (either serving is enough: the rules fail open). A pool no recorded driver serves is not in it
    (no library driver, or an engine that has recorded no outputs for it yet: then only the pack config can say)."""
    found: dict[tuple[str | None, str], bool] = {}
    for urn, props in _recorded_drivers(resources).items():
        cluster = (clusters or {}).get(urn)
        for name in _list(props.get("poolNames")):
            key = (cluster, str(name))
            found[key] = found.get(key, False) or props.get("extendedResource") == GPU_RESOURCE
    return found


def _recorded_drivers(resources: Iterable[StackResource]) -> dict[str, Mapping[str, Any]]:
    """URN -> outputs of each library DRA driver component whose outputs are recorded (its ``poolNames``)."""
    return {
        urn: props
        for urn, resource_type, props in resources
        if resource_type == DRA_DRIVER_COMPONENT and "poolNames" in props
    }


def _config_contradictions(resources: Iterable[StackResource]) -> list[StackViolation]:
    """The pack config's ``draExtendedResource: true`` against each library DRA driver of the stack recording that
    its DeviceClass serves no ``nvidia.com/gpu`` (``extendedResource: null``): the component knows its cluster's
    Kubernetes version and setting, so its record decides, and the config's contradiction is reported on it."""
    return [
        (
            urn,
            "extendedResource: null: this NvidiaDraDriver's gpu.nvidia.com DeviceClass serves no plain "
            f"{GPU_RESOURCE} requests (its DRA setting extended_resource false, or unset below Kubernetes 1.36, where "
            "the DRAExtendedResource feature gate is off by default), but the policy config draExtendedResource: "
            "true says the cluster maps them; the component's record decides for the pods of its stack: remove "
            "draExtendedResource from the policy config (it is for DRA drivers deployed without the library), or "
            f"set the driver's extended_resource on Kubernetes 1.36 or later [source: {SOURCE_DRA_EXTENDED_RESOURCE}]",
        )
        for urn, props in _recorded_drivers(resources).items()
        if props.get("extendedResource") is None
    ]


def dra_pool_extended_resource_violations(
    resources: Iterable[StackResource], extended_resource: bool = False, clusters: Mapping[str, str] | None = None
) -> list[StackViolation]:
    """A workload that asks for an NVIDIA extended resource (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``,
    ``nvidia.com/mig-*``) must not be confined to DRA nodes: NVIDIA's DRA driver publishes the GPUs there as DRA
    devices, no device plugin advertises the resource, and the pods stay Pending.

    Confined: the pod's ``nodeSelector`` sets :data:`~gpu_components.spec.GPU_ACCESS_LABEL` ``: dra`` or
    :data:`~gpu_components.spec.POOL_LABEL` to a DRA pool (:func:`dra_pools`), or every term of its required node
    affinity has such an ``In`` expression or ``gpu-components/gpu-access`` ``Exists`` (the library puts that label
    on DRA pools' nodes only). A pod that may also land on a device-plugin pool is not flagged.

    ``extended_resource``: the cluster maps ``nvidia.com/gpu`` to the driver's ``gpu.nvidia.com`` DeviceClass (its
    chart sets ``extendedResourceName: nvidia.com/gpu``; Kubernetes' DRAExtendedResource feature gate, beta from
    1.36: :data:`SOURCE_DRA_EXTENDED_RESOURCE`); then ``nvidia.com/gpu`` passes (Kubernetes allocates it a whole
    GPU of the DeviceClass: expected, not a violation) and the others are still flagged; so is ``nvidia.com/gpu``
    when every DRA pool the pod may land on has a MIG layout (:func:`mig_dra_pools`: no whole GPU to allocate, the
    pod stays Pending). The pack config
    ``draExtendedResource`` gives it for the pools no library DRA driver component serves; a pool such a component
    serves is judged by its record (:func:`dra_extended_resource_recorded`), so a stack of the library's needs no
    config, and a config ``true`` against a driver that records no mapping is itself a violation, on the driver.
    ``clusters`` (resource URN -> its cluster: the Kubernetes provider, as the pack finds it) judges a pod by its own
    cluster's drivers only: another cluster's pool of the same name, or another cluster's pools a
    ``gpu-components/gpu-access: dra`` selector names, serve it nothing. Without it pools are told apart by name.
    """
    resources = list(resources)
    by_cluster = dra_extended_resource_recorded(resources, clusters)
    by_name: dict[str, bool] = {}
    for (_, name), serves in by_cluster.items():
        by_name[name] = by_name.get(name, False) or serves
    messages: list[StackViolation] = _config_contradictions(resources) if extended_resource else []
    pools, mig_pools = dra_pools(resources), mig_dra_pools(resources)
    for urn, resource_type, props in resources:
        found = _pod_spec(resource_type, props)
        if found is None:
            continue
        how = _dra_selection(found[1], pools)
        if how is None:
            continue
        selected = _selected_dra_pools(found[1], pools)
        cluster = (clusters or {}).get(urn)
        mapped = [pool for pool in selected if _mapped(pool, cluster, by_cluster, by_name, extended_resource)]
        # nvidia.com/gpu through the DeviceClass needs a whole GPU: a pool selected only for its MIG devices has none.
        mig_only = sorted(selected) if selected and selected <= mig_pools else []
        served = any(pool not in mig_pools for pool in mapped)
        for path, container in _containers(*found):
            asked = _map(container.get("resources"))
            names = sorted(
                {
                    name
                    for part in ("limits", "requests")
                    for name in _map(asked.get(part))
                    if isinstance(name, str) and is_gpu_resource(name) and not (served and name == GPU_RESOURCE)
                }
            )
            if names:
                where = f"{path}.resources"
                messages.append((urn, _extended_resource_message(where, names, how, bool(mapped), mig_only)))
    return messages


def _mapped(
    pool: str,
    cluster: str | None,
    by_cluster: Mapping[tuple[str | None, str], bool],
    by_name: Mapping[str, bool],
    config: bool,
) -> bool:
    """Whether ``pool`` serves a plain ``nvidia.com/gpu`` request of a pod on ``cluster`` (``None``: unknown): the
    record of that cluster's driver serving the pool, or of a driver whose cluster is unknown; none where only
    another cluster's driver records the pool (it is not the pod's cluster's); by name where the pod's cluster is
    unknown; the pack config for a pool no library driver records."""
    for key in ((cluster, pool), (None, pool)):
        if key in by_cluster:
            return by_cluster[key]
    if pool in by_name:
        return cluster is None and by_name[pool]
    return config


def _extended_resource_message(
    where: str, names: list[str], how: str, extended_resource: bool, mig_only: Sequence[str]
) -> str:
    mapping = ""
    if GPU_RESOURCE in names and extended_resource and mig_only:
        mapping = (
            f" (the cluster maps {GPU_RESOURCE} to the driver's gpu.nvidia.com DeviceClass, but the DRA pools the "
            f"pods select, {', '.join(mig_only)}, have a MIG layout: their GPUs are published as mig.nvidia.com "
            "devices, none as a whole gpu.nvidia.com device)"
        )
    elif GPU_RESOURCE in names and not extended_resource:
        mapping = (
            f" (a cluster whose Kubernetes DRAExtendedResource feature gate is on, beta from 1.36, maps {GPU_RESOURCE} "
            "to the driver's gpu.nvidia.com DeviceClass: the library's DRA setting extended_resource says so on "
            "Kubernetes 1.36 or later; for a DRA driver deployed otherwise set the policy's draExtendedResource: "
            "true there)"
        )
    return (
        f"{where}: the pods ask for {', '.join(names)} but select only DRA nodes ({how}); NVIDIA's DRA driver "
        "publishes their GPUs as DRA devices (DeviceClass gpu.nvidia.com, mig.nvidia.com), no device plugin "
        f"advertises {', '.join(names)} there, so the pods stay Pending{mapping}; ask for the GPUs with a resource "
        "claim instead (a ResourceClaimTemplate, the pod's resourceClaims and the container's resources.claims: "
        f"gpu_components.claims) [source: {SOURCE_DRA_CLAIMS}; {SOURCE_DRA_EXTENDED_RESOURCE}]"
    )


def dra_driver_gates(resources: Iterable[StackResource]) -> dict[str, frozenset[str]] | None:
    """The feature gates each DRA driver release of the stack turns on: release URN -> gate names (``true``
    values of the standalone chart's ``featureGates``, or of ``draDriver.featureGates`` of a ``gpu-operator``
    release with ``gpuCluster.deployCR: true``, whose GPUCluster deploys the driver); ``None`` without one."""
    found: dict[str, frozenset[str]] = {}
    for urn, resource_type, props in resources:
        chart = props.get("chart")
        if resource_type not in HELM_TYPES or not isinstance(chart, str):
            continue
        name, _ = _chart_name(chart)
        values = _map(props.get("values"))
        if name == DRA_DRIVER_CHART:
            gates = _map(values.get("featureGates"))
        elif name == GPU_OPERATOR_CHART and _at(values, "gpuCluster", "deployCR") is True:
            gates = _map(_at(values, "draDriver", "featureGates"))
        else:
            continue
        found[urn] = frozenset(gate for gate, on in gates.items() if on is True)
    return found or None


def _claim_config_gates(parameters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(what the sharing sets, in words; the gate it needs) of one opaque config of the driver."""
    sharing = _map(parameters.get("sharing"))
    needs: list[tuple[str, str]] = []
    strategy = sharing.get("strategy")
    if isinstance(strategy, str) and strategy in SHARING_GATES:
        needs.append((f"sharing.strategy: {strategy}", SHARING_GATES[strategy]))
    needs += [(f"sharing.{field}", gate) for field, gate in SHARING_SETTING_GATES.items() if field in sharing]
    return needs


def dra_alpha_claim_config_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """A resource claim (``ResourceClaim``, ``ResourceClaimTemplate`` of ``resource.k8s.io/v1``) whose opaque config
    for NVIDIA's driver (``driver: gpu.nvidia.com``, ``apiVersion: resource.nvidia.com/v1beta1``, kind ``GpuConfig``
    or ``MigDeviceConfig``) shares a GPU with an alpha feature of the driver must run on a driver that enables that
    gate: ``sharing.strategy: TimeSlicing`` or ``sharing.timeSlicingConfig`` need TimeSlicingSettings,
    ``sharing.strategy: MPS`` or ``sharing.mpsConfig`` need MPSSupport (:data:`SOURCE_DRA_SHARING_GATES`).

    Judged only on a stack with a DRA driver release (:func:`dra_driver_gates`); with several, a gate counts as on
    when every release turns it on.
    """
    resources = list(resources)
    releases = dra_driver_gates(resources)
    if releases is None:
        return []
    enabled = frozenset.intersection(*releases.values())
    messages: list[StackViolation] = []
    for urn, resource_type, props in resources:
        keys = RESOURCE_CLAIM_DEVICES.get(resource_type)
        if keys is None:
            continue
        path = ".".join(keys)
        for index, config in enumerate(_list(_at(props, *keys, "config"))):
            opaque = _map(_map(config).get("opaque"))
            parameters = _map(opaque.get("parameters"))
            if (
                opaque.get("driver") != dra.DRIVER_NAME
                or parameters.get("apiVersion") != dra.CONFIG_API_VERSION
                or parameters.get("kind") not in CLAIM_CONFIG_KINDS
            ):
                continue
            for what, gate in _claim_config_gates(parameters):
                if gate not in enabled:
                    where = f"{path}.config[{index}].opaque.parameters"
                    messages.append((urn, _gate_message(where, str(parameters["kind"]), what, gate)))
    return messages


def dra_unsatisfiable_claim_violations(resources: Iterable[StackResource]) -> list[StackViolation]:
    """A resource claim (``ResourceClaim``, ``ResourceClaimTemplate`` of ``resource.k8s.io/v1``) that no pool could
    satisfy (:func:`gpu_components.dra.unsatisfiable_claim_problems`: two sharing strategies for one request,
    ``sharing.timeSlicingConfig.replicas``, a MIG ``profile`` selector on a ``gpu.nvidia.com`` request, a CEL
    selector of a ``gpu.nvidia.com`` / ``mig.nvidia.com`` request with a problem of
    :func:`gpu_components.dra.selector_problems`), one violation per problem (per selector), its path from the
    claim's props; the claim helpers refuse the same claims."""
    messages: list[StackViolation] = []
    for urn, resource_type, props in resources:
        keys = RESOURCE_CLAIM_DEVICES.get(resource_type)
        if keys is not None:
            devices = _map(_at(props, *keys))
            messages += [(urn, str(problem)) for problem in dra.unsatisfiable_claim_problems(devices, ".".join(keys))]
    return messages


def _gate_message(where: str, kind: str, what: str, gate: str) -> str:
    return (
        f"{where}: {kind} sets {what}, which NVIDIA's DRA driver allows only with its alpha feature gate {gate} "
        f"(off by default), and the stack's DRA driver release does not turn it on, so the driver refuses the "
        f"claim; enable the gate (dra.feature_gates: [{gate}], chart value featureGates.{gate}: true) or drop the "
        f"setting [source: {SOURCE_DRA_SHARING_GATES}]"
    )
