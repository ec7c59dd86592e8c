"""Pod-side helpers: the container resources, tolerations and node selector that land a pod on a GPU pool.

From a pool (any node-pool component satisfying :class:`~gpu_components.adapter.GpuNodePool`, or the plain pieces
of one) and a GPU count, :func:`gpu_pod_settings` / :func:`pod_settings` return plain dictionaries in Kubernetes'
own spelling, ready to drop into a Deployment, Job or StatefulSet; :func:`resource_requirements_args` and
:func:`toleration_args` turn them into ``pulumi-kubernetes`` typed args. The sample CUDA vector-add ``Job`` built on
them is :mod:`gpu_components.samples`.

The GPU quantity rule lives here, once, and the policy pack (:mod:`gpu_components.policy`) reuses it
(:func:`parse_gpu_quantity`, :func:`gpu_resource_problems`, :func:`max_gpus_per_container`):

- GPUs are extended resources: whole numbers only, set in ``limits``; a request, if given, must equal the limit;
  a request without a limit is invalid (kubernetes.io, "Schedule GPUs", :data:`SOURCE_SCHEDULE_GPUS`). Booleans,
  floats (even ``2.0``), strings that are not whole numbers, zero and negative counts are errors, never rounded.
- A container may ask for at most one shared GPU where the pool's sharing forbids more: MPS always, time-slicing
  with ``fail_requests_greater_than_one`` (NVIDIA device plugin, :data:`~gpu_components.spec.SOURCE_SHARING`), and
  at most what a cloud's own device plugin allows where it serves the sharing
  (:attr:`~gpu_components.cloud_facts.CloudFacts.managed_device_plugin`, with its source; GKE: one).

A provisioned pool (``provisioning``) may allow several instance types: :func:`gpu_node_requirements` selects
among them by GPU model or GPU memory with the provisioner's own node labels
(:class:`~gpu_components.cloud_facts.ProvisionerFacts`), and :func:`do_not_disrupt_annotation` gives the pod
annotation that keeps a long GPU job's node from being consolidated away. Under time-slicing, pods ask for the
resource the pool advertises as for a fixed pool, but where the provisioner counts each ``nvidia.com/gpu`` as a
physical GPU (Karpenter, EKS Auto Mode, AKS NAP), a pod may ask for at most the physical GPUs of the largest allowed
type (else no node is ever created for it); what the provisioner cannot count when it scales is the pool's
``autoscaler_note`` (:func:`~gpu_components.autoscaler.provisioner_note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import POOL_COMPONENTS, DevicePluginHost, GpuNodePool, is_pool_component
from gpu_components.autoscaler import SOURCE_PROVISIONER_GPU_COUNT
from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import ManagedDevicePlugin, ProvisionerFacts, facts_for
from gpu_components.dra import GPU_DEVICE_CLASS
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gpu_requests import (
    SOURCE_SCHEDULE_GPUS as SOURCE_SCHEDULE_GPUS,  # re-exported: their home before gpu_requests existed
)
from gpu_components.gpu_requests import allowed_gpus as allowed_gpus
from gpu_components.gpu_requests import as_written
from gpu_components.gpu_requests import gpu_selection_problems as gpu_selection_problems
from gpu_components.gpu_requests import parse_gpu_quantity as parse_gpu_quantity
from gpu_components.gpu_requests import tolerations as tolerations
from gpu_components.labels import Toleration
from gpu_components.mig import MIG_RESOURCE_PREFIX, mig_resource_name
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, SHARED_SUFFIX
from gpu_components.nvidia.driver_upgrade import LONG_RUNNING_LABEL
from gpu_components.spec import (
    SOURCE_KARPENTER_TERMINATION,
    SOURCE_SHARING,
    GpuNodePoolSpec,
    Mps,
    Taint,
    TimeSlicing,
    gpu_models_named,
    pool_gpu_model,
)

SOURCE_DRA_CLAIMS = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
"""Kubernetes DRA: a pod asks for DRA devices with resource claims (``resourceClaims``, ``resources.claims``), not
with extended-resource limits."""
SOURCE_DRA_EXTENDED_RESOURCE = "https://www.kubernetes.dev/resources/keps/5004/"
"""KEP-5004, DRA extended resources: a DeviceClass's ``extendedResourceName`` (``nvidia.com/gpu`` on the DRA
driver chart's ``gpu.nvidia.com``) lets a plain extended-resource limit be allocated from the class's devices (feature
gate ``DRAExtendedResource``, beta and on by default from Kubernetes 1.36)."""
CLAIM_HELPERS = (
    "gpu_components.claims: gpu_claim_template, mig_claim_template, shared_gpu_claim or mps_claim_template for the "
    "claim, then claim_pod_settings for the pod"
)
"""How a pod asks for a DRA pool's GPUs with the library: the claim helpers."""
SOURCE_SAFE_TO_EVICT = "https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md"
"""Cluster Autoscaler FAQ: a pod annotated ``cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`` keeps the
autoscaler from removing its node when it scales down."""
CLUSTER_AUTOSCALER_DO_NOT_DISRUPT = ("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")
"""The pod annotation that keeps the Cluster Autoscaler, which scales every fixed pool, from removing a pod's node
(:data:`SOURCE_SAFE_TO_EVICT`)."""

GPU_RESOURCE_PATTERN = re.compile(
    rf"^(?:{re.escape(GPU_RESOURCE)}|{re.escape(MIG_RESOURCE_PREFIX)}[0-9a-z.+-]+)(?:{re.escape(SHARED_SUFFIX)})?$"
)
"""Extended resource names of NVIDIA GPUs: ``nvidia.com/gpu``, ``nvidia.com/gpu.shared``, ``nvidia.com/mig-*``.
Any name after the MIG prefix counts (compute-instance profiles, attributes NVIDIA adds later), so the policy pack
never misses a GPU request."""


class ResourceRequirements(TypedDict):
    """A container's ``resources``: GPU ``limits`` and, when asked for, equal ``requests`` (quantities as text)."""

    limits: dict[str, str]
    requests: NotRequired[dict[str, str]]


class NodeSelectorRequirement(TypedDict):
    """One requirement of a node affinity term: node label ``key`` ``In`` the ``values``, or ``Gt`` the one value
    (an integer as text)."""

    key: str
    operator: Literal["In", "Gt"]
    values: list[str]


class GpuPodSettings(TypedDict):
    """What a pod needs to land on a pool and get its GPUs.

    Fields: ``resources`` (the GPU container's ``resources``), ``tolerations`` and ``nodeSelector`` (pod spec),
    ``hostIPC`` (pod spec; only present, ``True``, on MPS pools whose cloud's own device plugin needs it, as GKE's
    does), ``affinity`` (pod spec; only present when a GPU model or memory was asked for among a provisioned pool's
    types: a required node affinity of :func:`gpu_node_requirements`), ``annotations`` (pod metadata; only
    present with ``do_not_disrupt``: :func:`do_not_disrupt_annotation`) and ``labels`` (pod metadata; only present with
    ``do_not_disrupt``: :data:`~gpu_components.nvidia.driver_upgrade.LONG_RUNNING_LABEL` ``"true"``, which the GPU
    Operator's driver upgrades wait for).
    """

    resources: ResourceRequirements
    tolerations: list[Toleration]
    nodeSelector: dict[str, str]
    hostIPC: NotRequired[bool]
    affinity: NotRequired[dict[str, Any]]
    annotations: NotRequired[dict[str, str]]
    labels: NotRequired[dict[str, str]]


# ---------------------------------------------------------------------------------------------------------------
# The GPU quantity rule (shared with the policy pack)
# ---------------------------------------------------------------------------------------------------------------


def is_gpu_resource(name: str) -> bool:
    """Whether ``name`` is an NVIDIA GPU resource (:data:`GPU_RESOURCE_PATTERN`)."""
    return bool(GPU_RESOURCE_PATTERN.fullmatch(name))


def max_gpus_per_container(
    sharing: TimeSlicing | Mps | None, device_plugin_host: DevicePluginHost, cloud: Cloud
) -> int | None:
    """The most shared GPUs one container may ask for on a pool of ``cloud``, or ``None`` when there is no such
    limit.

    One for MPS (the device plugin always fails larger requests) and for time-slicing with
    ``fail_requests_greater_than_one``; for any sharing served by the cloud's own device plugin, what that plugin
    allows (:attr:`~gpu_components.cloud_facts.CloudFacts.managed_device_plugin`: GKE rejects more than one
    time-shared ``nvidia.com/gpu`` per container).
    """
    if sharing is None:
        return None
    if isinstance(sharing, Mps) or sharing.fail_requests_greater_than_one:
        return 1
    plugin = _managed_device_plugin(cloud, device_plugin_host)
    return plugin.max_shared_gpus if plugin is not None else None


def _managed_device_plugin(cloud: Cloud, device_plugin_host: DevicePluginHost) -> ManagedDevicePlugin | None:
    """The cloud's own device plugin where it advertises the pool's GPUs, else ``None``."""
    return facts_for(cloud).managed_device_plugin if device_plugin_host == "cloud" else None


def _sharing_source(cloud: Cloud, device_plugin_host: DevicePluginHost) -> str:
    plugin = _managed_device_plugin(cloud, device_plugin_host)
    return plugin.max_shared_gpus_source if plugin is not None else SOURCE_SHARING


def gpu_resource_problems(
    resources: Mapping[str, Any] | None,
    resource: str,
    path: str,
    *,
    max_per_container: int | None = None,
    max_source: str = SOURCE_SHARING,
    integral_floats: bool = False,
) -> list[Problem]:
    """Problems with one GPU resource in a container's ``resources`` (``{"limits": ..., "requests": ...}``).

    The limit must be a valid quantity (:func:`parse_gpu_quantity`); a request, if given, must be one too and equal
    the limit; a request without a limit is rejected; the limit may not exceed ``max_per_container``. A resource in
    neither ``limits`` nor ``requests`` has no problems.

    Args:
        resources: the container's ``resources`` mapping (camelCase keys, as Kubernetes spells them).
        resource: the extended resource name, e.g. ``nvidia.com/gpu``.
        path: path of the ``resources`` mapping, e.g. ``spec.containers[0].resources``.
        max_per_container: most GPUs of this resource one container may ask for (see
            :func:`max_gpus_per_container`); ``None`` for no limit.
        max_source: the source of ``max_per_container``.
        integral_floats: see :func:`parse_gpu_quantity`.
    """
    limits = (resources or {}).get("limits") or {}
    requests = (resources or {}).get("requests") or {}
    limit_path, request_path = f"{path}.limits[{resource!r}]", f"{path}.requests[{resource!r}]"
    problems: list[Problem] = []
    if resource not in limits:
        if resource in requests:
            problems.append(
                Problem(
                    request_path,
                    as_written(requests[resource], integral_floats),
                    "a GPU request without a limit: GPUs are set in limits (a request, if given, must equal it)",
                    f"limits[{resource!r}] with the same count",
                    SOURCE_SCHEDULE_GPUS,
                )
            )
        return problems
    limit, found = parse_gpu_quantity(limits[resource], limit_path, integral_floats=integral_floats)
    problems += found
    if resource in requests:
        request, found = parse_gpu_quantity(requests[resource], request_path, integral_floats=integral_floats)
        problems += found
        if limit is not None and request is not None and request != limit:
            problems.append(
                Problem(
                    request_path,
                    as_written(requests[resource], integral_floats),
                    "a GPU request must equal the GPU limit",
                    str(limit),
                    SOURCE_SCHEDULE_GPUS,
                )
            )
    if limit is not None and max_per_container is not None and limit > max_per_container:
        problems.append(
            Problem(
                limit_path,
                as_written(limits[resource], integral_floats),
                f"the pool's GPU sharing lets a container ask for at most {max_per_container} shared GPU",
                f"1..{max_per_container}",
                max_source,
            )
        )
    return problems


def container_gpu_problems(
    resources: Mapping[str, Any] | None, path: str, *, integral_floats: bool = False
) -> list[Problem]:
    """:func:`gpu_resource_problems` for every NVIDIA GPU resource a container's ``resources`` names."""
    names: list[str] = []
    for part in ("limits", "requests"):
        section = (resources or {}).get(part) or {}
        names += [name for name in section if isinstance(name, str) and is_gpu_resource(name) and name not in names]
    problems: list[Problem] = []
    for name in names:
        problems += gpu_resource_problems(resources, name, path, integral_floats=integral_floats)
    return problems


# ---------------------------------------------------------------------------------------------------------------
# Pod settings for a pool
# ---------------------------------------------------------------------------------------------------------------


def select_resource(
    spec: GpuNodePoolSpec,
    advertised_resources: Mapping[str, int],
    resource: str | None = None,
    mig_profile: str | None = None,
) -> tuple[str | None, list[Problem]]:
    """The extended resource a pod asks for on the pool.

    The pool's single advertised resource; or, when it advertises several (MIG mixed strategy), the one named by
    ``resource`` (e.g. ``nvidia.com/mig-1g.10gb``) or ``mig_profile`` (e.g. ``1g.10gb``), which is then required.
    A ``mig_profile`` of a single-strategy or GKE MIG pool names its one resource.
    """
    names = sorted(advertised_resources)
    profiles = sorted(spec.mig.devices) if spec.mig is not None else []
    valid = ", ".join([*names, *(f"mig_profile {p}" for p in profiles)]) or "none: the pool advertises no GPUs"
    if resource is not None and mig_profile is not None:
        return None, [Problem("resource", resource, "give resource or mig_profile, not both", valid)]
    if resource is not None:
        if resource in advertised_resources:
            return resource, []
        return None, [Problem("resource", resource, f"pool {spec.name} does not advertise this resource", valid)]
    if mig_profile is not None:
        wanted = mig_resource_name(mig_profile)
        for name in (wanted, f"{wanted}{SHARED_SUFFIX}"):
            if name in advertised_resources:
                return name, []
        if len(names) == 1 and mig_profile in profiles:
            return names[0], []
        return None, [
            Problem("mig_profile", mig_profile, f"pool {spec.name} has no MIG devices of this profile", valid)
        ]
    if len(names) == 1:
        return names[0], []
    return None, [
        Problem(
            "resource",
            None,
            f"pool {spec.name} advertises several GPU resources; name one with resource or mig_profile",
            valid,
        )
    ]


def do_not_disrupt_annotation(spec: GpuNodePoolSpec) -> tuple[str, str]:
    """The pod annotation (key, value) that keeps the pool's autoscaler from voluntarily removing the pod's node
    while the pod runs, for long GPU jobs: a provisioned pool's provisioner's
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.do_not_disrupt`: Karpenter, EKS Auto Mode and AKS NAP
    ``karpenter.sh/do-not-disrupt: "true"``; a GKE ComputeClass ``cluster-autoscaler.kubernetes.io/safe-to-evict:
    "false"``), else the Cluster Autoscaler's (:data:`CLUSTER_AUTOSCALER_DO_NOT_DISRUPT`). It does not stop
    forceful disruption: Karpenter's expiry (``expire_after``), spot interruption, node repair."""
    if spec.provisioning is None:
        return CLUSTER_AUTOSCALER_DO_NOT_DISRUPT
    return facts_for(spec.cloud).provisioners[spec.provisioning.provisioner].do_not_disrupt


def do_not_disrupt_problems(spec: GpuNodePoolSpec) -> list[Problem]:
    """Why a pod on ``spec`` may not ask not to be disrupted (``do_not_disrupt``): a provisioned pool whose nodes
    expire (``provisioning.disruption.expire_after``, else the provisioner's default,
    :attr:`~gpu_components.cloud_facts.ProvisionerFacts.default_expire_after`) without a
    ``termination_grace_period``. Expiry is forceful: the expired node is drained, a do-not-disrupt pod blocks the
    drain, and without a termination grace period the node stays draining (cordoned, still paid for) for as long as
    the pod runs, forever for a pod that never ends (:data:`~gpu_components.spec.SOURCE_KARPENTER_TERMINATION`)."""
    provisioning = spec.provisioning
    if provisioning is None or provisioning.disruption.termination_grace_period is not None:
        return []
    facts = facts_for(spec.cloud).provisioners[provisioning.provisioner]
    given = provisioning.disruption.expire_after
    expire = given if given is not None else facts.default_expire_after
    if expire is None or expire == "Never":
        return []
    when = f"after {expire}" if given is not None else f"after {expire}, {provisioning.provisioner}'s default"
    valid = f"set pool {spec.name}'s provisioning.disruption.termination_grace_period (e.g. 24h)"
    if facts.expire_never:
        valid += ", or its provisioning.disruption.expire_after: Never"
    return [
        Problem(
            "do_not_disrupt",
            True,
            f"pool {spec.name}'s nodes expire {when}, and expiry is forceful: the expired node drains, the "
            "do-not-disrupt pod blocks the drain, and with no termination_grace_period the node stays draining "
            "for as long as the pod runs (forever for one that never ends)",
            valid,
            f"{SOURCE_KARPENTER_TERMINATION}; {facts.expire_source}",
        )
    ]


def _selected(spec: GpuNodePoolSpec, gpu_model: str | None, min_gpu_memory_gb: int | None) -> list[str]:
    """The pool's allowed types whose GPU is ``gpu_model`` (a catalog name, or a short name such as ``H100``:
    :func:`~gpu_components.spec.gpu_models_named`) with at least ``min_gpu_memory_gb`` GB (``None``: any)."""
    return [
        name
        for name, (gpu, _) in allowed_gpus(spec).items()
        if (gpu_model is None or gpu_models_named(gpu_model, [gpu.name]) == [gpu.name])
        and (min_gpu_memory_gb is None or gpu.memory_gb >= min_gpu_memory_gb)
    ]


def _named_in_other_case(given: str | None, models: Sequence[str]) -> list[str]:
    """The GPU models among ``models`` that ``given`` would name but for case (``l40s`` -> ``L40S``, ``h100`` ->
    ``H100-80GB`` and ``H100-94GB``: :func:`~gpu_components.spec.gpu_models_named`), sorted; none when it names one
    as written. A hint for the error only: a name is never guessed."""
    if given is None or gpu_models_named(given, models):
        return []
    lower = given.lower()
    return sorted(
        {
            model
            for model in models
            if model.lower().startswith(lower) and gpu_models_named(model[: len(given)], [model]) == [model]
        }
    )


def gpu_node_requirements(
    spec: GpuNodePoolSpec, gpu_model: str | None = None, min_gpu_memory_gb: int | None = None
) -> tuple[list[NodeSelectorRequirement], list[Problem]]:
    """Node affinity requirements that keep a pod on those of a provisioned pool's allowed instance types whose GPU
    is ``gpu_model`` (a catalog name, e.g. ``L40S``, or a short name the pool's types make unambiguous, e.g.
    ``H100`` for ``H100-80GB``) and has at least ``min_gpu_memory_gb`` GB (catalog memory),
    in the provisioner's own node labels (:class:`~gpu_components.cloud_facts.ProvisionerFacts`).

    Returns ``([], [])`` when nothing is asked, or when every allowed type qualifies (the pool label is enough).
    Otherwise, for a memory floor alone where the provisioner labels GPU memory (Karpenter, EKS Auto Mode:
    ``instance-gpu-memory`` in MiB as EC2 reports it), ``Gt`` one less than the least memory of the qualifying
    types, provided it leaves out the others; else the GPU name label ``In`` the names of the qualifying types
    (``l40s``, ``nvidia-l4``, ``A100``: each cloud's facts give the spelling per instance type), with the memory
    label ``In`` their exact memory where a name covers two models (Karpenter's ``a100`` of p4d and p4de).

    Returns:
        ``(requirements, problems)``; a problem where the pool is fixed (one instance type: its pool label selects
        it), a short ``gpu_model`` names several of the pool's GPU models (``valid`` lists them), no allowed type
        has such a GPU (``valid`` lists the pool's GPUs), or the provisioner's labels cannot
        tell the qualifying types from the others (a type whose label value the library does not know, or two
        types with the same values).
    """
    asked = [
        (name, value)
        for name, value in (("gpu_model", gpu_model), ("min_gpu_memory_gb", min_gpu_memory_gb))
        if value is not None
    ]
    if not asked:
        return [], []
    field, value = asked[0]
    problems = gpu_selection_problems(gpu_model, min_gpu_memory_gb)
    if problems:
        return [], problems
    if spec.provisioning is None:
        return [], [
            Problem(
                field,
                value,
                f"pool {spec.name} is a fixed pool of one instance type ({spec.instance_type}, {spec.gpu.name}): its "
                "pool label selects it; GPU selection is for provisioned pools that allow several types",
            )
        ]
    facts = facts_for(spec.cloud).provisioners[spec.provisioning.provisioner]
    allowed = spec.provisioning.allowed_types
    if gpu_model is not None:
        models = [gpu.name for gpu, _ in allowed_gpus(spec).values()]
        gpu_model, problems = pool_gpu_model(gpu_model, models, f"pool {spec.name}'s", field)
        if problems:
            return [], problems
    wanted = _selected(spec, gpu_model, min_gpu_memory_gb)
    if not wanted:
        offered = sorted({f"{gpu.name} ({gpu.memory_gb} GB)" for gpu, _ in allowed_gpus(spec).values()})
        other_case = _named_in_other_case(gpu_model, [gpu.name for gpu, _ in allowed_gpus(spec).values()])
        hint = f"; did you mean {' or '.join(repr(name) for name in other_case)}?" if other_case else ""
        return [], [
            Problem(
                field,
                value,
                f"pool {spec.name} allows no instance type with such a GPU{hint}",
                ", ".join(offered),
            )
        ]
    if len(wanted) == len(allowed):
        return [], []
    others = [name for name in allowed if name not in wanted]
    return _requirements(
        spec.provisioning.provisioner,
        facts,
        wanted,
        others,
        by_memory_alone=gpu_model is None,
        field=field,
        value=value,
    )


def _requirements(
    provisioner: str,
    facts: ProvisionerFacts,
    wanted: Sequence[str],
    others: Sequence[str],
    *,
    by_memory_alone: bool,
    field: str,
    value: object,
) -> tuple[list[NodeSelectorRequirement], list[Problem]]:
    """The requirements of :func:`gpu_node_requirements` once the qualifying types are known."""
    every = (*wanted, *others)
    memory = {name: mib for name in every if (mib := facts.gpu_memory_mib(name)) is not None}
    memory_label = facts.gpu_memory_label if len(memory) == len(every) else None
    if by_memory_alone and memory_label is not None:
        floor = min(memory[name] for name in wanted)
        if all(memory[name] < floor for name in others):
            return [{"key": memory_label, "operator": "Gt", "values": [str(floor - 1)]}], []
    names = {name: label for name in every if (label := facts.gpu_name_value(name)) is not None}
    unknown = [name for name in every if name not in names]
    if unknown:
        return [], [
            Problem(
                field,
                value,
                f"the library does not know the {facts.gpu_name_label} value {provisioner} gives nodes of "
                f"{', '.join(unknown)}, so it cannot select among the pool's types by GPU; select by "
                "node.kubernetes.io/instance-type yourself",
                None,
                facts.values_source or None,
            )
        ]
    values = sorted({names[name] for name in wanted})
    requirements: list[NodeSelectorRequirement] = [{"key": facts.gpu_name_label, "operator": "In", "values": values}]
    alike = [name for name in others if names[name] in values]
    if alike and memory_label is not None:
        sizes = sorted({memory[name] for name in wanted})
        alike = [name for name in alike if memory[name] in sizes]
        requirements.append({"key": memory_label, "operator": "In", "values": [str(mib) for mib in sizes]})
    if alike:
        return [], [
            Problem(
                field,
                value,
                f"{provisioner}'s labels do not tell {', '.join(alike)} from {', '.join(wanted)}: the same "
                f"{facts.gpu_name_label}; select by node.kubernetes.io/instance-type yourself",
                None,
                facts.values_source or None,
            )
        ]
    return requirements, []


def _most_per_node(spec: GpuNodePoolSpec, advertised: int, types: Sequence[str]) -> int:
    """The most units of a resource one node of ``types`` advertises: ``advertised`` (a node of the pool's first
    type) scaled by the most GPUs of those types (a provisioned pool may allow larger types; it advertises the same
    units per GPU, its sharing and MIG being one GPU model's)."""
    counts = allowed_gpus(spec)
    return advertised // max(spec.gpu_count, 1) * max(counts[name][1] for name in types)


def _whole_gpu_bound(spec: GpuNodePoolSpec, types: Sequence[str]) -> tuple[str, int] | None:
    """``(provisioner, most GPUs)``: the most physical GPUs of one node of ``types``, where the pool's provisioner
    plans nodes from each instance type's GPU count
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.counts_whole_gpus`: Karpenter, EKS Auto Mode, AKS NAP;
    :data:`~gpu_components.autoscaler.SOURCE_PROVISIONER_GPU_COUNT`); ``None`` where there is no such bound (a
    fixed pool, a GKE ComputeClass)."""
    provisioning = spec.provisioning
    if provisioning is None or not facts_for(spec.cloud).provisioners[provisioning.provisioner].counts_whole_gpus:
        return None
    counts = allowed_gpus(spec)
    return provisioning.provisioner, max(counts[name][1] for name in types)


def node_affinity(requirements: Sequence[NodeSelectorRequirement]) -> dict[str, Any]:
    """A pod's ``affinity`` requiring every one of ``requirements`` of the node (one node selector term)."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [dict(item) for item in requirements]}]
            }
        }
    }


def exclusive_selector_problems(
    spec: GpuNodePoolSpec,
    node_selector: Mapping[str, str],
    requirements: Sequence[NodeSelectorRequirement] = (),
    field: str = "gpu_model",
) -> list[Problem]:
    """Node labels a pod may not select beside a label that excludes them on the pool's cloud
    (:attr:`~gpu_components.cloud_facts.CloudFacts.exclusive_selectors`: GKE's ``cloud.google.com/compute-class``,
    beside which GKE admits only zone, region and accelerator-count labels): one problem per other key of
    ``node_selector`` (at ``node_selector[<key>]``) and per key of the node affinity ``requirements`` (at ``field``,
    the GPU selection that asked for them)."""
    problems: list[Problem] = []
    facts = facts_for(spec.cloud)
    for exclusive in facts.exclusive_selectors:
        if exclusive.key not in node_selector or node_selector[exclusive.key] in exclusive.exempt:
            continue
        selected = f"{exclusive.key}: {node_selector[exclusive.key]}"
        valid = ", ".join(exclusive.allowed)
        problems += [
            Problem(
                f"node_selector[{key!r}]",
                key,
                f"{facts.service} rejects a pod that selects {selected} beside this node label",
                valid,
                exclusive.source,
            )
            for key in sorted(node_selector)
            if key != exclusive.key and key not in exclusive.allowed
        ]
        problems += [
            Problem(
                field,
                requirement["key"],
                f"selecting among pool {spec.name}'s machine types needs node affinity on {requirement['key']}, "
                f"which {facts.service} rejects beside {selected}",
                valid,
                exclusive.source,
            )
            for requirement in requirements
            if requirement["key"] not in exclusive.allowed
        ]
    return problems


def _dra_pool_problem(spec: GpuNodePoolSpec, path: str, value: object) -> Problem:
    """The one problem of asking for a DRA pool's GPUs with an extended-resource limit where no extended resource
    is known to be served there: its pods claim them through :mod:`gpu_components.claims` (:data:`CLAIM_HELPERS`),
    or, where the DRA driver's ``extended_resource`` is in force, with a plain ``nvidia.com/gpu`` limit given the
    driver (:func:`gpu_pod_settings`' ``dra_driver``)."""
    return Problem(
        path,
        value,
        f"pool {spec.name} is a DRA pool (gpu_access: dra): NVIDIA's DRA driver publishes its GPUs as DRA devices, "
        "so a pod claims them with a resource claim; a plain nvidia.com/gpu limit gets its whole GPUs only where "
        "the DRA driver's gpu.nvidia.com DeviceClass serves nvidia.com/gpu (the DRA setting extended_resource in "
        "force, Kubernetes 1.36 or later), which gpu_pod_settings knows when given the driver",
        f"{CLAIM_HELPERS}; or gpu_pod_settings(pool, gpus, dra_driver=<the NvidiaDraDriver serving the pool, e.g. "
        "GpuCluster.dra_driver>) with extended_resource in force",
        f"{SOURCE_DRA_CLAIMS}; {SOURCE_DRA_EXTENDED_RESOURCE}",
    )


def _dra_driver_problem(pool: GpuNodePool, dra_driver: object) -> Problem:
    """Why a plain ``nvidia.com/gpu`` limit cannot be written for a DRA pool with ``dra_driver`` (for which
    :func:`dra_extended_resources` is empty), at the field at fault: no driver given (``pool``: the claim helpers, or
    give the driver); ``dra_driver`` not an :class:`~gpu_components.kubernetes.NvidiaDraDriver`, not the one serving
    the pool, or one whose ``extended_resource`` is not in force; or the pool's static MIG layout (``pool``: no whole
    GPU is published in ``gpu.nvidia.com``, the one DeviceClass that names the extended resource)."""
    spec = pool.spec
    if not pool.dra_devices.get(GPU_DEVICE_CLASS):  # no driver could serve nvidia.com/gpu from it: say why first
        return Problem(
            "pool",
            spec.name,
            f"pool {spec.name} has a static MIG layout: NVIDIA's DRA driver publishes its GPUs as mig.nvidia.com "
            f"devices, none as a whole gpu.nvidia.com device, and only the gpu.nvidia.com DeviceClass serves plain "
            f"{GPU_RESOURCE} requests (mig.nvidia.com names no extended resource), so a pod claims a MIG device",
            CLAIM_HELPERS,
            f"{SOURCE_DRA_CLAIMS}; {SOURCE_DRA_EXTENDED_RESOURCE}",
        )
    if dra_driver is None:
        return _dra_pool_problem(spec, "pool", spec.name)
    specs, serves = getattr(dra_driver, "specs", None), getattr(dra_driver, "serves", None)
    serving = f"the NvidiaDraDriver serving pool {spec.name} (its GpuCluster's dra_driver)"
    if not isinstance(specs, tuple) or not callable(serves) or not hasattr(dra_driver, "extended_resource"):
        return Problem(
            "dra_driver",
            f"an object of type {type(dra_driver).__name__}",
            "not an NvidiaDraDriver: the DRA driver component tells whether its DeviceClass serves plain "
            f"{GPU_RESOURCE} requests for the pools it serves",
            serving,
        )
    given = f"the NvidiaDraDriver of pools {', '.join(served.name for served in specs)}"
    as_settings = getattr(dra_driver, "given_as_settings", None)
    if not serves(pool) and callable(as_settings) and as_settings(pool):
        return Problem(
            "dra_driver",
            given,
            f"was given pool {spec.name} as plain settings, not this node-pool component, so it cannot tell that the "
            "component's nodes are on its cluster (an equal pool of another cluster would match as well)",
            f"an NvidiaDraDriver given the component itself in its pools (pools: [<the {spec.name} component>]), or "
            "its GpuCluster's dra_driver",
        )
    if not serves(pool):
        return Problem(
            "dra_driver",
            given,
            f"does not serve pool {spec.name}: a DRA driver serves the pools of its own cluster (a pool of the same "
            "name and settings in another cluster is another pool, on another cluster's DeviceClass)",
            serving,
        )
    # What is left: the driver serves the whole-GPU pool, so its extended_resource is not in force.
    return Problem(
        "dra_driver",
        given,
        f"its gpu.nvidia.com DeviceClass serves no plain {GPU_RESOURCE} requests: its extended_resource is not in "
        "force (false, or unset below Kubernetes 1.36, where Kubernetes' DRAExtendedResource feature gate is off "
        "by default)",
        f"{CLAIM_HELPERS}; or the DRA setting extended_resource in force (Kubernetes 1.36 or later)",
        SOURCE_DRA_EXTENDED_RESOURCE,
    )


def dra_extended_resources(pool: GpuNodePool, dra_driver: object) -> dict[str, int]:
    """What a plain container limit may ask of a DRA pool through its driver's ``gpu.nvidia.com`` DeviceClass: the
    driver's extended resource (``nvidia.com/gpu``: ``dra_driver``'s ``extended_resource``, an
    :class:`~gpu_components.kubernetes.NvidiaDraDriver` that serves ``pool``: its ``serves``, not an equal pool of
    another cluster)
    -> the pool's ``gpu.nvidia.com`` devices per node (whole GPUs; a static-MIG pool publishes none). ``{}`` when
    the driver is not given, serves another pool set, or its ``extended_resource`` is not in force."""
    resource, serves = getattr(dra_driver, "extended_resource", None), getattr(dra_driver, "serves", None)
    if not isinstance(resource, str) or not callable(serves) or not serves(pool):
        return {}
    whole = pool.dra_devices.get(GPU_DEVICE_CLASS, 0)
    return {resource: whole} if whole else {}


def pod_settings(
    spec: GpuNodePoolSpec,
    advertised_resources: Mapping[str, int],
    taints: Sequence[Taint],
    node_selector: Mapping[str, str],
    gpus: int,
    *,
    resource: str | None = None,
    mig_profile: str | None = None,
    requests: bool = False,
    device_plugin_host: DevicePluginHost = "daemonset",
    gpu_model: str | None = None,
    min_gpu_memory_gb: int | None = None,
    do_not_disrupt: bool = False,
) -> GpuPodSettings:
    """Container resources, tolerations and node selector for ``gpus`` GPUs on a pool given by its plain pieces.

    Args:
        spec: the validated pool.
        advertised_resources: resource name -> count per node, as the pool's device plugin advertises them.
        taints: every taint of the pool's nodes (the cloud's included); one toleration each.
        node_selector: the node labels that select the pool; beside a label that excludes others on the pool's
            cloud (GKE's ``cloud.google.com/compute-class``), only the labels the cloud admits
            (:func:`exclusive_selector_problems`).
        gpus: GPUs (or MIG devices, or shared replicas) for one container: a whole number of at least 1, at most
            what one node advertises, at most 1 where the pool's sharing forbids more, and, on a provisioned pool
            whose provisioner counts whole GPUs (Karpenter, EKS Auto Mode, AKS NAP) with time-slicing or MIG
            devices advertised as ``nvidia.com/gpu``, at most the physical GPUs of its largest allowed type: the
            provisioner counts each such request as a physical GPU (kubernetes-sigs/karpenter#2140; AWS's
            time-slicing page), so it would never create a node for a larger one.
        resource, mig_profile: which resource, when the pool advertises several (see :func:`select_resource`).
        requests: also set ``requests`` equal to ``limits``. Defaults to False (Kubernetes copies the limit).
        device_plugin_host: who advertises the pool's GPUs. Defaults to ``daemonset``. ``cloud`` applies what the
            cloud's own device plugin asks of pods on shared GPUs (GKE: one shared GPU per container and, for MPS,
            ``hostIPC: true``).
        gpu_model, min_gpu_memory_gb: on a provisioned pool allowing several instance types, keep the pod on the
            types with this GPU model (catalog name, e.g. ``L40S``) / at least this much GPU memory (GB): the
            ``affinity`` of :func:`gpu_node_requirements`, in the provisioner's own labels. Default: any type.
        do_not_disrupt: annotate the pod so the pool's provisioner (or, on a fixed pool, the Cluster Autoscaler)
            does not remove its node to consolidate while it runs (:func:`do_not_disrupt_annotation`), and label it
            long-running (:data:`~gpu_components.nvidia.driver_upgrade.LONG_RUNNING_LABEL` ``"true"``) so a GPU
            Operator driver upgrade waits for it (``driver.upgradePolicy.waitForCompletion``, up to its timeout)
            before deleting its node's GPU pods; for long GPU jobs that cannot resume. Defaults to False. It does not
            stop expiry or spot interruption: on a provisioned pool whose nodes expire (given or by the provisioner's
            default) it needs the pool's ``provisioning.disruption.termination_grace_period``
            (:func:`do_not_disrupt_problems`).

    Raises:
        GpuSpecError: on a DRA pool (``device_plugin_host`` ``dra-driver``) whose ``advertised_resources`` is not
            ``nvidia.com/gpu`` alone (what its DRA driver's DeviceClass serves where ``extended_resource`` is in
            force, :func:`dra_extended_resources`) one problem naming the claim helpers
            (:mod:`gpu_components.claims`); otherwise every problem at once: an invalid count, a resource the pool
            does not advertise or a missing choice among several, more GPUs than a node has, more than one shared
            GPU where sharing forbids it, more shared GPUs than a whole-GPU provisioner's largest allowed type has
            GPUs, a GPU selection the pool cannot satisfy (see :func:`gpu_node_requirements`), a node label or GPU
            selection the cloud rejects beside another selected label (:func:`exclusive_selector_problems`),
            ``do_not_disrupt`` on a pool whose nodes expire without a termination grace period
            (:func:`do_not_disrupt_problems`).
    """
    if device_plugin_host == "dra-driver" and set(advertised_resources) != {GPU_RESOURCE}:
        raise GpuSpecError([_dra_pool_problem(spec, "device_plugin_host", device_plugin_host)])
    problems = [
        Problem(field, value, f"must be {expected}")
        for field, value, kind, expected in (
            ("resource", resource, str, "a resource name (a string) or None"),
            ("mig_profile", mig_profile, str, "a MIG profile name (a string) or None"),
        )
        if value is not None and not isinstance(value, kind)
    ]
    problems += [
        Problem(field, value, "must be True or False")
        for field, value in (("requests", requests), ("do_not_disrupt", do_not_disrupt))
        if not isinstance(value, bool)
    ]
    if problems:
        raise GpuSpecError(problems)
    requirements, problems = gpu_node_requirements(spec, gpu_model, min_gpu_memory_gb)
    problems += exclusive_selector_problems(
        spec, node_selector, requirements, "gpu_model" if gpu_model is not None else "min_gpu_memory_gb"
    )
    if do_not_disrupt:
        problems += do_not_disrupt_problems(spec)
    types = _selected(spec, gpu_model, min_gpu_memory_gb) if not problems else [spec.instance_type]
    name, found = select_resource(spec, advertised_resources, resource, mig_profile)
    problems += found
    count, found = parse_gpu_quantity(gpus, "gpus")
    problems += found
    limit = max_gpus_per_container(spec.sharing, device_plugin_host, spec.cloud)
    shared = name == GPU_RESOURCE and advertised_resources[name] > spec.gpu_count
    bound = _whole_gpu_bound(spec, types) if shared else None
    if count is not None and limit is not None and count > limit:
        problems.append(
            Problem(
                "gpus",
                gpus,
                f"pool {spec.name} shares its GPUs; a container may ask for at most {limit} shared GPU",
                f"1..{limit}",
                _sharing_source(spec.cloud, device_plugin_host),
            )
        )
    elif count is not None and bound is not None and count > bound[1]:
        provisioner, whole = bound
        problems.append(
            Problem(
                "gpus",
                gpus,
                f"pool {spec.name}'s provisioner {provisioner} counts each {GPU_RESOURCE} a pod asks for as a "
                f"physical GPU, and no allowed instance type ({', '.join(types)}) has more than {whole}: it would "
                "never create a node for the pod, whatever the time-slicing replicas or MIG devices per node",
                f"1..{whole}",
                SOURCE_PROVISIONER_GPU_COUNT,
            )
        )
    elif count is not None and name is not None and count > _most_per_node(spec, advertised_resources[name], types):
        most = _most_per_node(spec, advertised_resources[name], types)
        problems.append(
            Problem(
                "gpus",
                gpus,
                f"{'the largest node' if spec.provisioning is not None else 'each node'} of pool {spec.name} has "
                f"{most} {name}; the pod would never schedule",
                f"1..{most}",
                SOURCE_SCHEDULE_GPUS,
            )
        )
    if problems or name is None or count is None:
        raise GpuSpecError(problems)
    quantity = {name: str(count)}
    resources: ResourceRequirements = {"limits": quantity}
    if requests:
        resources["requests"] = dict(quantity)
    settings: GpuPodSettings = {
        "resources": resources,
        "tolerations": tolerations(taints),
        "nodeSelector": dict(sorted(node_selector.items())),
    }
    plugin = _managed_device_plugin(spec.cloud, device_plugin_host)
    if plugin is not None and plugin.mps_host_ipc_source is not None and isinstance(spec.sharing, Mps):
        settings["hostIPC"] = True
    if requirements:
        settings["affinity"] = node_affinity(requirements)
    if do_not_disrupt:
        key, value = do_not_disrupt_annotation(spec)
        settings["annotations"] = {key: value}
        settings["labels"] = {LONG_RUNNING_LABEL: "true"}
    return settings


def gpu_pod_settings(
    pool: GpuNodePool,
    gpus: int,
    *,
    resource: str | None = None,
    mig_profile: str | None = None,
    requests: bool = False,
    gpu_model: str | None = None,
    min_gpu_memory_gb: int | None = None,
    do_not_disrupt: bool = False,
    dra_driver: object = None,
) -> GpuPodSettings:
    """:func:`pod_settings` for a node-pool component (``EksGpuNodeGroup``, ``AksGpuNodePool``, ``GkeGpuNodePool``,
    and the provisioned pools' components).

    Uses the pool's advertised resources, every taint of its nodes, its node selector and device plugin host.

    ``dra_driver``: for a DRA pool, the :class:`~gpu_components.kubernetes.NvidiaDraDriver` serving it (a
    :class:`~gpu_components.cluster.GpuCluster`'s ``dra_driver``). Where its ``extended_resource`` is in force (the
    DRA setting ``extended_resource`` true, or unset on Kubernetes 1.36 or later), the pool's whole GPUs are asked
    for as a plain ``nvidia.com/gpu`` limit, which Kubernetes allocates from the ``gpu.nvidia.com`` DeviceClass
    (DRAExtendedResource, KEP-5004): :func:`dra_extended_resources`. Only whole GPUs (no MIG device, no shared
    resource: the ``mig.nvidia.com`` class names no extended resource). Defaults to ``None``; ignored on a
    device-plugin pool.

    Raises:
        GpuSpecError: ``pool`` is not a node-pool component (a pool's dict included); ``pool`` is a DRA pool
            (``gpu_access: dra``) and ``dra_driver`` is not given (at ``pool``, naming the claim helpers of
            :mod:`gpu_components.claims` and ``dra_driver``), is not an ``NvidiaDraDriver``, does not serve it or has
            no extended resource in force (at ``dra_driver``), or the pool has a static MIG layout, which publishes
            no whole GPU (at ``pool``, saying so): one problem; or see :func:`pod_settings`.
    """
    if not is_pool_component(pool):
        hint = " (a pool's dict; pass the node-pool component built from it)" if isinstance(pool, Mapping) else ""
        raise GpuSpecError([Problem("pool", pool, f"not a node-pool component{hint}", POOL_COMPONENTS)])
    advertised = pool.advertised_resources
    if pool.device_plugin_host == "dra-driver":
        advertised = dra_extended_resources(pool, dra_driver)
        if not advertised:
            raise GpuSpecError([_dra_driver_problem(pool, dra_driver)])
    return pod_settings(
        pool.spec,
        advertised,
        pool.taints,
        pool.node_selector,
        gpus,
        resource=resource,
        mig_profile=mig_profile,
        requests=requests,
        device_plugin_host=pool.device_plugin_host,
        gpu_model=gpu_model,
        min_gpu_memory_gb=min_gpu_memory_gb,
        do_not_disrupt=do_not_disrupt,
    )


# ---------------------------------------------------------------------------------------------------------------
# pulumi-kubernetes typed args
# ---------------------------------------------------------------------------------------------------------------


def resource_requirements_args(resources: ResourceRequirements) -> k8s.core.v1.ResourceRequirementsArgs:
    """``resources`` as ``k8s.core.v1.ResourceRequirementsArgs`` (for a typed container)."""
    requests = resources.get("requests")
    return k8s.core.v1.ResourceRequirementsArgs(
        limits=dict(resources["limits"]), requests=dict(requests) if requests is not None else None
    )


def toleration_args(items: Sequence[Toleration]) -> list[k8s.core.v1.TolerationArgs]:
    """Tolerations as ``k8s.core.v1.TolerationArgs`` (for a typed pod spec)."""
    return [
        k8s.core.v1.TolerationArgs(
            key=item["key"], operator=item["operator"], value=item.get("value"), effect=item["effect"]
        )
        for item in items
    ]


# ---------------------------------------------------------------------------------------------------------------
# Sample workload
# ---------------------------------------------------------------------------------------------------------------
