"""``GkeComputeClassGpuPool``: a provisioned GPU pool on GKE Standard, realised as a custom ComputeClass
(``cloud.google.com/v1``) whose node pools GKE auto-creates for pending pods.

A pool with ``provisioning: {provisioner: compute-class}`` is not a node pool: it is a ComputeClass that tells GKE's
cluster autoscaler which machines to create node pools of, in order of preference, for the pods that select it
(``nodeSelector: {cloud.google.com/compute-class: <pool name>}``). GKE installs the driver and runs its own device
plugin on those nodes, as on a fixed GKE pool (:mod:`gpu_components.gcp.gke`, whose label, taint, accelerator and
sharing functions this module reuses), so the pool's ``device_plugin_host`` is ``cloud`` and no NVIDIA device plugin
or GPU Operator serves it.

How the pool maps onto the ComputeClass (field names from the CRD reference, :data:`SOURCE_CRD`, and the schema copy
under ``tests/reference/gke/``):

- ``priorities``: one rule per capacity type (in ``provisioning.capacity_types`` order) and allowed machine type (in
  ``allowed_types`` order), carrying only what the pool asks for: ``machineType`` with ``gpu: {type, count}`` (the
  catalog's accelerator type and GPU count of the machine type), ``gpu.driverVersion`` only when the pool gives
  ``driver_version`` (``default`` or ``latest``, lower-cased; the CRD's default is ``default``), ``spot: true`` for
  spot and nothing for on-demand (the CRD's ``spot`` is "on-demand otherwise"), and for reserved capacity
  ``reservations: {affinity: Specific, specific: [{name: <reservation>}]}`` ("Specific" considers only the named
  reservations, with no fallback: :data:`SOURCE_CRD`); ``storage.bootDiskSize`` is the pool's ``disk_size_gb``
  (the library's documented default, 100, when not given).
  Families are listed as their catalog machine types, so every rule names one machine type and its exact GPUs.
- GPU sharing and MIG: ``gpu.gpuSharing`` (``sharingStrategy`` ``TIME_SHARING``/``MPS`` with
  ``maxSharedClientsPerGPU``; ``gpuPartitionSize`` for MIG), GKE 1.35.2-gke.1485000 or later
  (:data:`SHARING_MIN_GKE_VERSION`): a new example cluster whose ``kubernetes_version`` names only earlier versions
  is refused (:func:`gpu_components.gcp.cluster.stack_problems`); where the library cannot know the version (an
  existing cluster, ``GpuCluster`` and this component, which are not told it) it does not check. The same limits
  as a fixed GKE pool apply (48 clients per GPU, one uniform partition size on the GPUs GKE partitions, the
  ``single`` strategy): :func:`~gpu_components.gcp.gke.gke_problems`.
- ``nodePoolConfig.nodeLabels`` and ``.taints``: the pool's labels and taints, exactly as a fixed GKE pool's
  (:func:`~gpu_components.gcp.gke.node_labels`, the spec's taints with the GPU taint first), applied to every node of
  the auto-created node pools; ``nodePoolConfig.serviceAccount`` the nodes' service account when one is wired.
- GKE labels and taints the nodes of a ComputeClass itself: label and taint ``cloud.google.com/compute-class=<name>``
  (``NoSchedule``), and pods that select the class are given the toleration (:data:`SOURCE_CUSTOM_CLASSES`,
  "manually created node pools"). The pool's ``taints`` include that taint, its ``node_selector`` is the label
  alone: GKE rejects a pod that selects a custom ComputeClass beside other node labels but a few
  (:data:`~gpu_components.gcp.facts.COMPUTE_CLASS_SELECTOR_KEYS`), GKE's accelerator and the pool label included.
- The class is named like the pool; GKE keeps names starting with ``gke-`` or ``autopilot`` for its own classes
  (:data:`~gpu_components.gcp.gke.RESERVED_NAME_PREFIXES`), so such a pool name is refused.
- ``whenUnsatisfiable: DoNotScaleUp``: when no rule can be met, GKE creates nothing (the CRD's other value,
  ``ScaleUpAnyway``, lets it create nodes that match none of the rules, outside the pool's allowed machine types).
- ``activeMigration.optimizeRulePriority: false``: GKE does not move running pods to a higher-priority rule's nodes
  once capacity returns (that would evict long GPU jobs).
- Disruption: ``consolidate_after`` -> ``autoscalingPolicy.consolidationDelayMinutes`` (whole minutes, 1..1440:
  :data:`CONSOLIDATION_DELAY_MINUTES`); ``when-empty`` -> ``consolidationThreshold: 0`` and
  ``gpuConsolidationThreshold: 0`` (the utilisation "below which a node can be considered for scale down", per the
  CRD: at 0 no node counts as under-utilised, so, as we read it, only nodes without workload pods are removed);
  ``when-empty-or-underutilized`` leaves both thresholds to GKE; ``expire_after`` ->
  ``maxRunDurationSeconds`` of every rule ("the maximum duration for the nodes to exist", :data:`SOURCE_CRD`;
  ``Never``: left out, nodes exist indefinitely). A pod is kept from scale-down by the cluster autoscaler's
  annotation ``cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`` (the GCP provisioner facts).
- Limits: a ComputeClass has no limit of its own. The resource limits of the cluster's node auto-provisioning
  (``cluster_autoscaling.resource_limits``: cpu, memory and one per GPU accelerator type, cluster-wide) also apply to
  the node pools GKE creates for ComputeClasses (:data:`SOURCE_AUTO_CREATION`, "Limitations"). So ``max_gpus``
  is enforced only there (the example cluster's ``node_auto_provisioning``), shared by every auto-created pool of
  the same accelerator type, and the component's ``autoscaler_note`` says so; ``max_nodes`` has no equivalent and is
  refused. GKE 1.33.3-gke.1136000 and later create node pools for a ComputeClass without cluster-level node
  auto-provisioning (:data:`AUTO_CREATION_WITHOUT_NAP_VERSION`).
- Under the GPU Operator the pool stays GKE's: ``gpu.driverVersion`` takes ``default`` or ``latest`` only (no
  ``INSTALLATION_DISABLED``), so GKE always installs its driver and runs its plugin on these nodes, and the nodes get
  ``nvidia.com/gpu.deploy.operands=false``, which keeps every operand of the operator off them
  (:func:`~gpu_components.nvidia.gpu_operator.operand_off_label`, NVIDIA's operand labels:
  :data:`SOURCE_OPERANDS`): one driver and one device plugin per node.
"""

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
from gpu_components.adapter import (
    DevicePluginHost,
    GpuStack,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    adopt_view,
    pool_outputs,
    validated_pool,
)
from gpu_components.enums import GpuStackArg, value_of
from gpu_components.errors import Problem
from gpu_components.gcp.facts import COMPUTE_CLASS_LABEL, SOURCE_CUSTOM_CLASSES, SOURCE_GKE_DRA
from gpu_components.gcp.gke import (
    DEFAULT_DRIVER_VERSION,
    SHARING_STRATEGIES,
    accelerator_type_for,
    compute_class_name_problems,
    compute_class_taint,
    gke_advertised_resources,
    gke_effective_taints,
    gke_problems,
    node_labels,
)
from gpu_components.gpu_requests import tolerations
from gpu_components.nvidia.gpu_operator import operand_off_label
from gpu_components.shape import plain
from gpu_components.spec import (
    GpuNodePoolArgs,
    GpuNodePoolSpec,
    Provisioning,
    Taint,
    dra_refused,
)

SOURCE_CRD = "https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass"
SOURCE_AUTO_CREATION = "https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning"
SOURCE_OPERANDS = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html#operands"

TOKEN = "gpu-components:index:GkeComputeClassGpuPool"
"""Pulumi type token of :class:`GkeComputeClassGpuPool`."""
API_VERSION = "cloud.google.com/v1"
KIND = "ComputeClass"
DEVICE_PLUGIN_HOST: DevicePluginHost = "cloud"
"""GKE installs the driver and runs its device plugin on a ComputeClass's nodes."""
SHARING_MIN_GKE_VERSION = "1.35.2-gke.1485000"
"""First GKE version with ``priorities[].gpu.gpuSharing`` (time-sharing, MPS, MIG partition size) in a ComputeClass,
as the ComputeClass CRD reference's field description says (quoted in kcl-lang/modules pull request 358,
https://github.com/kcl-lang/modules/pull/358)."""
AUTO_CREATION_WITHOUT_NAP_VERSION = "1.33.3-gke.1136000"
"""First GKE version that creates node pools for a ComputeClass (``nodePoolAutoCreation``) without cluster-level node
auto-provisioning (:data:`SOURCE_AUTO_CREATION`, "Limitations" and "Requirements")."""
CONSOLIDATION_DELAY_MINUTES = (1, 1440)
"""``autoscalingPolicy.consolidationDelayMinutes``: "Minimum duration is 1 minute, maximum is 24 hours or 1440
minutes" (:data:`SOURCE_CRD`)."""
WHEN_UNSATISFIABLE = "DoNotScaleUp"
"""What GKE does when no rule can be met: nothing (see the module docstring)."""
DRIVER_VERSION_VALUES: Mapping[str, str] = MappingProxyType({"DEFAULT": "default", "LATEST": "latest"})
"""The pool's ``driver_version`` -> the ComputeClass's ``gpu.driverVersion`` (enum ``default``, ``latest``)."""
RESERVATION_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
"""A Compute Engine reservation name (a resource name: RFC 1035, 1-63 characters)."""
SPEC_KEYS = (
    "activeMigration",
    "autopilot",
    "autoscalingPolicy",
    "description",
    "nodePoolAutoCreation",
    "nodePoolConfig",
    "nodePoolGroup",
    "priorities",
    "priorityDefaults",
    "whenUnsatisfiable",
)
"""Every ``spec`` field of a ComputeClass (the schema under ``tests/reference/gke/``)."""
OWNED_SPEC_KEYS = ("autopilot", "autoscalingPolicy", "nodePoolAutoCreation", "priorities", "whenUnsatisfiable")
"""``spec`` fields the library sets, refused in ``compute_class_spec``: the rules, auto-creation, what happens when
no rule can be met, the disruption policy, and Autopilot (a Standard-cluster pool)."""
OWNED_NODE_POOL_CONFIG_KEYS = ("nodeLabels", "serviceAccount", "taints")
"""``spec.nodePoolConfig`` fields the library sets (labels, taints, the nodes' identity)."""


class GkeComputeClassGpuPoolArgs(TypedDict):
    """Inputs of :class:`GkeComputeClassGpuPool`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``gcp``, with ``provisioning.provisioner: compute-class``."""
    driver_version: NotRequired[str]
    """GKE's driver: ``DEFAULT`` or ``LATEST`` (``gpu.driverVersion`` ``default``/``latest``). Defaults to
    ``DEFAULT``."""
    service_account: NotRequired[pulumi.Input[str]]
    """Email of the nodes' service account (``nodePoolConfig.serviceAccount``). Defaults to node auto-provisioning's
    default (the Compute Engine default service account unless the cluster says otherwise)."""
    node_locations: NotRequired[pulumi.Input[Sequence[pulumi.Input[str]]]]
    """Zones for the pool's nodes (``priorityDefaults.location.zones``). Defaults to the cluster's."""
    compute_class_spec: NotRequired[dict[str, Any]]
    """The escape hatch: other ComputeClass ``spec`` fields in the CRD's camelCase (``description``,
    ``activeMigration``, ``nodePoolGroup``, ``priorityDefaults``, and ``nodePoolConfig`` fields such as
    ``imageType``), merged over the library's (one level deep into ``nodePoolConfig``, ``priorityDefaults`` and
    ``activeMigration``). Defaults to none. A field the library sets (``OWNED_SPEC_KEYS``, ``nodePoolConfig``'s
    ``OWNED_NODE_POOL_CONFIG_KEYS``) or one the CRD does not have is an error naming it."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``. GKE's driver and device plugin serve the pool under any stack:
    ``device-plugin`` is refused (no NVIDIA plugin may run beside GKE's), and under ``gpu-operator`` the nodes are
    labelled to keep the operator's operands off them (see the module docstring)."""


# ---------------------------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _minutes(duration: str) -> float:
    """A validated ``s``/``m``/``h`` duration (``1h30m``) in minutes."""
    scale = {"s": 1 / 60, "m": 1.0, "h": 60.0}
    return sum(int(number) * scale[unit] for number, unit in re.findall(r"([0-9]+)([smh])", duration))


def compute_class_dra_problems(spec: GpuNodePoolSpec, gpu_stack: GpuStack, path: str = "") -> list[Problem]:
    """A ComputeClass pool whose resolved ``gpu_access`` is ``dra``: refused, GKE supports DRA neither with node
    auto-provisioning (a ComputeClass's node pools are auto-created) nor on Autopilot (:data:`SOURCE_GKE_DRA`)."""
    if not spec.uses_dra(gpu_stack):
        return []
    return [
        dra_refused(
            spec,
            path,
            "GKE supports DRA only on node pools created by hand: not with node auto-provisioning, which creates a "
            "ComputeClass's node pools, nor on Autopilot; GKE's own device plugin serves this pool",
            "gpu_access: device-plugin, or a fixed GKE node pool (no provisioning) for DRA",
            SOURCE_GKE_DRA,
        )
    ]


def compute_class_problems(
    spec: GpuNodePoolSpec,
    driver_version: str | None,
    path: str = "",
    options_path: str | None = None,
) -> list[Problem]:
    """GKE's rules for a ComputeClass pool, every problem at once: those of a fixed GKE pool
    (:func:`~gpu_components.gcp.gke.gke_problems`: driver mode, taints, GKE's labels, sharing and MIG, as with
    GKE's own plugin under any GPU stack), no ``max_nodes``, a consolidation delay of whole
    minutes in 1..1440, no label or taint of the pool's own on GKE's ``cloud.google.com/compute-class`` key
    (:data:`COMPUTE_CLASS_LABEL`), a reservation name Compute Engine takes, and a pool name (the ComputeClass's) that
    GKE does not keep for its own classes (:func:`~gpu_components.gcp.gke.compute_class_name_problems`).

    Args: as :func:`~gpu_components.gcp.gke.gke_problems`; ``spec.provisioning`` must be set.
    """
    provisioning = spec.provisioning
    assert provisioning is not None, "a ComputeClass pool is a provisioned pool"
    where = _join(path, "provisioning")
    problems = compute_class_name_problems(spec.name, _join(path, "name"))
    problems += gke_problems(spec, driver_version, path, options_path, "auto")
    if provisioning.max_nodes is not None:
        problems.append(
            Problem(
                _join(where, "max_nodes"),
                provisioning.max_nodes,
                "GKE has no node limit for a ComputeClass or the node pools it creates; its limits are the cluster's "
                "node auto-provisioning resource limits (cpu, memory, GPUs per accelerator type)",
                f"{where}.max_gpus",
                SOURCE_AUTO_CREATION,
            )
        )
    delay = _minutes(provisioning.disruption.consolidate_after)
    low, high = CONSOLIDATION_DELAY_MINUTES
    if delay != int(delay) or not low <= delay <= high:
        problems.append(
            Problem(
                _join(where, "disruption.consolidate_after"),
                provisioning.disruption.consolidate_after,
                "a ComputeClass's consolidationDelayMinutes is whole minutes from 1 minute to 24 hours",
                f"{low}m..{high}m in whole minutes, e.g. 10m, 1h30m",
                SOURCE_CRD,
            )
        )
    problems += [
        Problem(
            _join(path, spec.taint_path(index)),
            taint.as_given(),
            f"GKE taints a ComputeClass's nodes {compute_class_taint(spec.name).text} itself and gives the pods that "
            "select the class its toleration; a taint of yours with this key would conflict with it",
            "a taint with another key",
            SOURCE_CUSTOM_CLASSES,
        )
        for index, taint in enumerate(spec.taints)
        if taint.key == COMPUTE_CLASS_LABEL
    ]
    if COMPUTE_CLASS_LABEL in spec.labels:
        problems.append(
            Problem(
                f"{_join(path, 'labels')}[{COMPUTE_CLASS_LABEL!r}]",
                COMPUTE_CLASS_LABEL,
                f"set by GKE on a ComputeClass's nodes to the class's name ({spec.name}): pods select the class with "
                "it (the pool's node_selector has it)",
                "any other label key",
                SOURCE_CUSTOM_CLASSES,
            )
        )
    if provisioning.reservation is not None and not RESERVATION_NAME.fullmatch(provisioning.reservation):
        problems.append(
            Problem(
                _join(where, "reservation"),
                provisioning.reservation,
                "not a Compute Engine reservation name",
                "1-63 lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen",
                SOURCE_CRD,
            )
        )
    return problems


def compute_class_spec_problems(given: object, path: str) -> list[Problem]:
    """Problems of the ``compute_class_spec`` escape hatch: not a mapping, a field the CRD does not have, or one the
    library sets (:data:`OWNED_SPEC_KEYS`, :data:`OWNED_NODE_POOL_CONFIG_KEYS`)."""
    if given is None:
        return []
    if not isinstance(given, Mapping):
        return [Problem(path, given, "must be a mapping of ComputeClass spec fields", ", ".join(SPEC_KEYS))]
    problems: list[Problem] = []
    for key, value in given.items():
        at = f"{path}.{key}"
        if key not in SPEC_KEYS:
            problems.append(Problem(at, key, "not a ComputeClass spec field", ", ".join(SPEC_KEYS), SOURCE_CRD))
        elif key in OWNED_SPEC_KEYS:
            problems.append(
                Problem(at, key, "set by the library from the pool", "a field not in " + ", ".join(OWNED_SPEC_KEYS))
            )
        elif key == "nodePoolConfig" and isinstance(value, Mapping):
            problems += [
                Problem(
                    f"{at}.{owned}",
                    owned,
                    "set by the library from the pool (labels, taints, the nodes' service account)",
                    "the pool's labels and taints, or the service_account wiring",
                )
                for owned in OWNED_NODE_POOL_CONFIG_KEYS
                if owned in value
            ]
    return problems


# ---------------------------------------------------------------------------------------------------------------
# Translation (pure)
# ---------------------------------------------------------------------------------------------------------------


def compute_class_node_labels(spec: GpuNodePoolSpec, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """The node labels the ComputeClass sets: a GKE pool's (:func:`~gpu_components.gcp.gke.node_labels`) and, under
    the GPU Operator, ``nvidia.com/gpu.deploy.operands=false`` (GKE serves the nodes; no operand runs there)."""
    labels = node_labels(spec)
    if gpu_stack == "gpu-operator":
        labels.update(operand_off_label("operands"))
    return dict(sorted(labels.items()))


def _provisioning(spec: GpuNodePoolSpec) -> Provisioning:
    if spec.provisioning is None:
        raise ValueError(f"pool {spec.name!r} is not provisioned: a ComputeClass pool needs provisioning")
    return spec.provisioning


def _accelerators(spec: GpuNodePoolSpec) -> dict[str, tuple[str, int]]:
    """Allowed machine type -> (accelerator type, GPUs per node), the pool's instance type first."""
    result = {spec.instance_type: (accelerator_type_for(spec), spec.gpu_count)}
    for name in _provisioning(spec).allowed_types[1:]:
        known = catalog.instance_type("gcp", name)
        result[name] = (known.accelerator_type or catalog.gcp_accelerator_type(known.gpu_model or ""), known.gpu_count)
    return result


def compute_class_taints(spec: GpuNodePoolSpec) -> tuple[Taint, ...]:
    """Every taint on the pool's nodes: a GKE pool's (:func:`~gpu_components.gcp.gke.gke_effective_taints`) and the
    ComputeClass's own (:func:`compute_class_taint`)."""
    return (*gke_effective_taints(spec), compute_class_taint(spec.name))


def compute_class_node_selector(spec: GpuNodePoolSpec) -> dict[str, str]:
    """What a pod selects to land on the pool: the ComputeClass alone (which is what makes GKE create nodes for it).
    GKE rejects a pod that selects a custom ComputeClass and any node label but a few (zone, region, accelerator
    count: :data:`~gpu_components.gcp.facts.COMPUTE_CLASS_SELECTOR_KEYS`), so neither the pool label nor GKE's
    accelerator, sharing and partition labels are selected; the class's rules already fix the machine types, GPUs
    and sharing of its nodes."""
    return {COMPUTE_CLASS_LABEL: spec.name}


def compute_class_accelerator_types(spec: GpuNodePoolSpec) -> list[str]:
    """The GPU accelerator types (``nvidia-l4``...) of the pool's allowed machine types, sorted."""
    return sorted({accelerator for accelerator, _ in _accelerators(spec).values()})


def compute_class_autoscaler_note(spec: GpuNodePoolSpec) -> str:
    """What GKE does not enforce of the pool: its GPU limit is the cluster's, per accelerator type."""
    provisioning = _provisioning(spec)
    return (
        f"GKE applies no limit to a ComputeClass: max_gpus {provisioning.max_gpus} holds only as the cluster's node "
        f"auto-provisioning resource limit on {', '.join(compute_class_accelerator_types(spec))}, shared by every "
        "node pool GKE creates with those GPUs (cluster.node_auto_provisioning)"
    )


def compute_class_pool_view(
    spec: GpuNodePoolSpec, driver_version: str | None = None, gpu_stack: GpuStack = "auto"
) -> PoolView:
    """What a :class:`GkeComputeClassGpuPool` of the pool exposes, without creating it: GKE advertises the GPUs
    (``cloud``, under any GPU stack); the labels (:func:`compute_class_node_labels`), the taints
    (:func:`compute_class_taints`), what a node of the pool's ``instance_type`` advertises
    (:func:`~gpu_components.gcp.gke.gke_advertised_resources`), the node selector
    (:func:`compute_class_node_selector`), the limit note (:func:`compute_class_autoscaler_note`) and the driver
    mode (``DEFAULT`` when not given)."""
    taints = compute_class_taints(spec)
    return PoolView(
        spec=spec,
        device_plugin_host=DEVICE_PLUGIN_HOST,
        labels=compute_class_node_labels(spec, gpu_stack),
        taints=taints,
        advertised_resources=gke_advertised_resources(spec),
        node_selector=compute_class_node_selector(spec),
        autoscaler_note=compute_class_autoscaler_note(spec),
        tolerations=tolerations(taints),
        driver_setting=DEFAULT_DRIVER_VERSION if driver_version is None else driver_version,
    )


def _gpu(spec: GpuNodePoolSpec, accelerator: str, count: int, driver_version: str | None) -> dict[str, Any]:
    gpu: dict[str, Any] = {"type": accelerator, "count": count}
    if driver_version is not None:
        gpu["driverVersion"] = DRIVER_VERSION_VALUES[driver_version]
    sharing: dict[str, Any] = {}
    if spec.sharing is not None:
        sharing["sharingStrategy"] = SHARING_STRATEGIES[type(spec.sharing)][0]
        sharing["maxSharedClientsPerGPU"] = spec.sharing.replicas
    if spec.mig is not None and spec.mig.uniform_profile is not None:
        sharing["gpuPartitionSize"] = spec.mig.uniform_profile
    if sharing:
        gpu["gpuSharing"] = sharing
    return gpu


def priorities(spec: GpuNodePoolSpec, driver_version: str | None = None) -> list[dict[str, Any]]:
    """The ComputeClass's ``priorities``: per capacity type, one rule per allowed machine type (module docstring),
    each with only what the pool asks for: ``spot: true`` on spot rules alone (the CRD's ``spot`` is "on-demand
    otherwise", and ``priorityDefaults`` has no ``spot`` to inherit), ``gpu.driverVersion`` only when
    ``driver_version`` is given (the CRD's default is ``default``, the pool's default ``DEFAULT``)."""
    provisioning = _provisioning(spec)
    expire = provisioning.disruption.expire_after
    rules: list[dict[str, Any]] = []
    for capacity in provisioning.capacity_types:
        for machine_type, (accelerator, count) in _accelerators(spec).items():
            rule: dict[str, Any] = {"machineType": machine_type, "gpu": _gpu(spec, accelerator, count, driver_version)}
            if capacity == "spot":
                rule["spot"] = True
            rule["storage"] = {"bootDiskSize": spec.disk_size_gb}
            if capacity == "reserved":
                rule["reservations"] = {"affinity": "Specific", "specific": [{"name": provisioning.reservation}]}
            if expire is not None and expire != "Never":
                rule["maxRunDurationSeconds"] = round(_minutes(expire) * 60)
            rules.append(rule)
    return rules


def autoscaling_policy(spec: GpuNodePoolSpec) -> dict[str, int]:
    """``autoscalingPolicy`` from the pool's disruption policy (module docstring)."""
    disruption = _provisioning(spec).disruption
    policy = {"consolidationDelayMinutes": int(_minutes(disruption.consolidate_after))}
    if disruption.consolidation == "when-empty":
        policy |= {"consolidationThreshold": 0, "gpuConsolidationThreshold": 0}
    return policy


def compute_class_spec(
    spec: GpuNodePoolSpec,
    driver_version: str | None = None,
    gpu_stack: GpuStack = "auto",
    service_account: pulumi.Input[str] | None = None,
    node_locations: pulumi.Input[Sequence[pulumi.Input[str]]] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ComputeClass ``spec`` of a validated ComputeClass pool, with the ``compute_class_spec`` escape hatch
    (``extra``, checked by :func:`compute_class_spec_problems`) merged over it."""
    node_pool_config: dict[str, Any] = {
        "nodeLabels": compute_class_node_labels(spec, gpu_stack),
        "taints": [dict(taint.to_args()) for taint in spec.taints],
    }
    if service_account is not None:
        node_pool_config["serviceAccount"] = service_account
    result: dict[str, Any] = {
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": WHEN_UNSATISFIABLE,
        "activeMigration": {"optimizeRulePriority": False},
        "autoscalingPolicy": autoscaling_policy(spec),
        "nodePoolConfig": node_pool_config,
        "priorities": priorities(spec, driver_version),
    }
    if node_locations is not None:
        result["priorityDefaults"] = {"location": {"zones": node_locations}}
    for key, value in (extra or {}).items():
        merged = result.get(key)
        if isinstance(merged, dict) and isinstance(value, Mapping):
            result[key] = {**merged, **value}
        else:
            result[key] = value
    return result


def compute_class(spec: GpuNodePoolSpec, driver_version: str | None = None, **kwargs: Any) -> dict[str, Any]:
    """The whole ComputeClass resource (``apiVersion``, ``kind``, ``metadata.name`` the pool's name, ``spec``:
    :func:`compute_class_spec` with ``kwargs``)."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": spec.name},
        "spec": compute_class_spec(spec, driver_version, **kwargs),
    }


# ---------------------------------------------------------------------------------------------------------------
# Component
# ---------------------------------------------------------------------------------------------------------------


def _component_problems(spec: GpuNodePoolSpec, args: GkeComputeClassGpuPoolArgs) -> list[Problem]:
    problems: list[Problem] = []
    if spec.provisioning is None or spec.provisioning.provisioner != "compute-class":
        problems.append(
            Problem(
                "pool.provisioning",
                None if spec.provisioning is None else spec.provisioning.provisioner,
                "a GkeComputeClassGpuPool is a provisioned pool: provisioning with provisioner compute-class",
                "provisioning: {provisioner: compute-class, max_gpus: ...}; or GkeGpuNodePool for a fixed pool",
                SOURCE_CUSTOM_CLASSES,
            )
        )
        return problems
    gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
    if gpu_stack == "device-plugin":
        problems.append(
            Problem(
                "gpu_stack",
                gpu_stack,
                "a ComputeClass pool is served by GKE's own device plugin, which the NVIDIA device plugin may not run "
                "beside",
                "auto",
                SOURCE_CUSTOM_CLASSES,
            )
        )
    return (
        problems
        + compute_class_dra_problems(spec, gpu_stack, "pool")
        + compute_class_problems(spec, args.get("driver_version"), "pool", "")
    )


class GkeComputeClassGpuPool(pulumi.ComponentResource):
    """A provisioned GPU pool on GKE Standard: a ComputeClass (``cloud.google.com/v1``) with node-pool auto-creation,
    whose nodes GKE creates for pending pods that select it, with GKE's driver, device plugin and GPU sharing.

    Children: ``<name>-compute-class`` (``kubernetes:cloud.google.com/v1:ComputeClass``, cluster-scoped, named like
    the pool). Providers: ``kubernetes``.

    Outputs: ``compute_class_name`` (known after deployment), ``pool_name``, ``labels``, ``taints``, ``tolerations``,
    ``node_selector``, ``advertised_resources``, ``dra_devices``, ``device_plugin_host``, ``autoscaler_note`` (plain
    values, known at preview). Other attributes: ``spec``, ``gpu_stack``, ``driver_version``, ``compute_class`` (the
    custom resource), ``served_by``.

    Raises:
        GpuSpecError: invalid pool; a pool without ``provisioning.provisioner: compute-class``; the rules of
            :func:`compute_class_problems`; ``compute_class_spec`` fields the CRD lacks or the library sets
            (:func:`compute_class_spec_problems`).
    """

    compute_class_name: pulumi.Output[str]
    """Name of the ComputeClass in the cluster: the pool's name; pods select it with
    ``cloud.google.com/compute-class``."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the ComputeClass sets (``nodePoolConfig.nodeLabels``): the user's, ``gpu-components/pool``
    and ``gpu-components/sharing`` for trusted sharing. GKE adds ``cloud.google.com/compute-class`` and its
    accelerator, sharing and partition labels."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling): the pool's, GKE's GPU taint and GKE's
    ``cloud.google.com/compute-class=<name>:NoSchedule``."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes, as a pod spec's ``tolerations`` takes them."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``cloud.google.com/compute-class: <pool name>`` alone (what
    makes GKE create nodes for the pod; GKE rejects most other labels beside it)."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many a node of the pool's ``instance_type`` advertises (``nvidia.com/gpu``)."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``cloud`` (GKE's own device plugin)."""
    autoscaler_note: str | None
    """What GKE does not enforce about the pool: its GPU limit is the cluster's node auto-provisioning limit."""

    def __init__(self, name: str, args: GkeComputeClassGpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        extra = args.get("compute_class_spec") if isinstance(args, Mapping) else None
        spec = validated_pool(
            GkeComputeClassGpuPoolArgs,
            args,
            "gcp",
            lambda spec: _component_problems(spec, args) + compute_class_spec_problems(extra, "compute_class_spec"),
        )
        driver_version = args.get("driver_version")
        super().__init__(TOKEN, name, None, opts)
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
        view = compute_class_pool_view(spec, driver_version, gpu_stack)
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        adopt_view(self, view)
        self.gpu_stack = gpu_stack
        self.driver_version: str = view.driver_setting
        resource = compute_class(
            spec,
            driver_version,
            gpu_stack=gpu_stack,
            service_account=args.get("service_account"),
            node_locations=args.get("node_locations"),
            extra=extra,
        )
        self.compute_class: k8s.apiextensions.CustomResource = k8s.apiextensions.CustomResource(
            f"{name}-compute-class",
            api_version=resource["apiVersion"],
            kind=resource["kind"],
            metadata=resource["metadata"],
            spec=resource["spec"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.compute_class_name = self.compute_class.id.apply(lambda _: spec.name)
        self.register_outputs({"computeClassName": self.compute_class_name, **pool_outputs(self)})


__all__ = [
    "GkeComputeClassGpuPool",
    "GkeComputeClassGpuPoolArgs",
    "compute_class",
    "compute_class_pool_view",
    "compute_class_problems",
    "compute_class_spec_problems",
]
