"""Resource claims for GPUs on DRA pools: ``ResourceClaimTemplate`` / ``ResourceClaim`` manifests and pod pieces.

On a pool whose GPUs NVIDIA's DRA driver publishes (``gpu_access: dra``; its ``device_plugin_host`` is
``dra-driver``), a pod gets GPUs through a resource claim, not an ``nvidia.com/gpu`` limit
(:data:`~gpu_components.dra.SOURCE_KUBERNETES_DRA`). Each helper returns a plain ``resource.k8s.io/v1`` manifest
(Kubernetes spelling, ready for ``k8s.resource.v1.ResourceClaimTemplate`` / ``ResourceClaim`` args: ``metadata`` and
``spec``; the offline plan sees those typed resources, not the objects of a ``k8s.yaml.v2.ConfigGroup``), checked
against the pool first:

- :func:`gpu_claim_template`: N whole GPUs (DeviceClass ``gpu.nvidia.com``), optionally of one GPU model or with a
  minimum of GPU memory (CEL selectors over the driver's ``productName`` attribute and ``memory`` capacity);
- :func:`mig_claim_template`: N MIG devices of one profile (DeviceClass ``mig.nvidia.com``, CEL on ``profile``);
- :func:`shared_gpu_claim`: one GPU in a ``ResourceClaim`` that several pods of one namespace reference by name,
  optionally with a time-slice interval (the driver's ``TimeSlicingSettings`` feature gate);
- :func:`mps_claim_template`: GPUs (or MIG devices) shared by the containers of a pod through CUDA MPS (the
  ``MPSSupport`` feature gate);
- :func:`claim_pod_settings`: the pod's ``resourceClaims``, the container's ``resources.claims``, and the
  tolerations and node selector that land the pod on the pool (no ``nvidia.com/gpu`` limit).

Counts follow the GPU quantity rule of :func:`~gpu_components.workloads.parse_gpu_quantity` (whole numbers of at
least 1, never rounded) and may not exceed what one node of the pool publishes. Alpha configs need the driver's
feature gate: pass the gates the cluster turns on (``dra.feature_gates``, which ``GpuCluster.dra_feature_gates``
holds); a config without its gate is an error naming the gate, as the driver would refuse it
(:data:`~gpu_components.dra.SOURCE_CONFIG_GATES`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, Protocol

from typing_extensions import NotRequired, TypedDict

from gpu_components import dra
from gpu_components.adapter import DevicePluginHost
from gpu_components.catalog import GpuModel
from gpu_components.enums import DraFeatureGate, DraFeatureGateArg, value_of
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gpu_requests import allowed_gpus, gpu_selection_problems, parse_gpu_quantity, tolerations
from gpu_components.labels import Toleration
from gpu_components.spec import GpuNodePoolSpec, Taint, pool_gpu_model

DEFAULT_NAMESPACE = "default"
"""Namespace of a claim unless another is given."""
DRA_DEVICE_PLUGIN_HOST: DevicePluginHost = "dra-driver"
"""The ``device_plugin_host`` of a pool whose GPUs the DRA driver publishes."""
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_CLAIM_KINDS = ("ResourceClaimTemplate", "ResourceClaim")
_QUANTITY = re.compile(r"^[0-9]+(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$")


class DraPool(Protocol):
    """What the claim helpers read of a pool: a node-pool component (:class:`~gpu_components.adapter.GpuNodePool`)
    or its :class:`~gpu_components.adapter.PoolView`."""

    @property
    def spec(self) -> GpuNodePoolSpec: ...
    @property
    def device_plugin_host(self) -> DevicePluginHost: ...
    @property
    def taints(self) -> tuple[Taint, ...]: ...
    @property
    def node_selector(self) -> dict[str, str]: ...


class PodResourceClaim(TypedDict):
    """One entry of a pod's ``spec.resourceClaims``: a claim made per pod from a template, or a shared claim."""

    name: str
    resourceClaimTemplateName: NotRequired[str]
    resourceClaimName: NotRequired[str]


class ContainerClaim(TypedDict):
    """One entry of a container's ``resources.claims``: the pod's claim entry it uses."""

    name: str


class DraPodSettings(TypedDict):
    """What a pod needs to land on a DRA pool and get its claimed devices.

    Fields: ``resourceClaims`` (pod spec), ``claims`` (the GPU container's ``resources.claims``), ``tolerations``
    and ``nodeSelector`` (pod spec).
    """

    resourceClaims: list[PodResourceClaim]
    claims: list[ContainerClaim]
    tolerations: list[Toleration]
    nodeSelector: dict[str, str]


# ---------------------------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------------------------


def _pool_problems(pool: DraPool) -> list[Problem]:
    """A problem when ``pool`` is not served by the DRA driver."""
    host = getattr(pool, "device_plugin_host", None)
    if host == DRA_DEVICE_PLUGIN_HOST:
        return []
    name = getattr(getattr(pool, "spec", None), "name", pool)
    return [
        Problem(
            "pool",
            name,
            f"pool {name} is not served by the DRA driver (its GPUs are advertised by device plugin host {host}); "
            "resource claims need a pool with gpu_access: dra under gpu_stack: dra",
            "a pool with gpu_access: dra",
            dra.SOURCE_KUBERNETES_DRA,
        )
    ]


def _name_problems(name: object, namespace: object) -> list[Problem]:
    problems: list[Problem] = []
    for field, value in (("name", name), ("namespace", namespace)):
        if not isinstance(value, str) or not _DNS_LABEL.fullmatch(value):
            problems.append(
                Problem(
                    field,
                    value,
                    "must be a DNS label (a pod's resourceClaims entry takes the claim's name)",
                    "lowercase letters, digits and '-', at most 63 characters, starting and ending alphanumeric",
                )
            )
    return problems


def _gates(feature_gates: Sequence[DraFeatureGateArg]) -> tuple[set[str], list[Problem]]:
    """The gate names of ``feature_gates``, and a problem for each value that is not a driver feature gate."""
    valid = [gate.value for gate in DraFeatureGate]
    if isinstance(feature_gates, str) or not isinstance(feature_gates, Sequence):
        return set(), [Problem("feature_gates", feature_gates, "must be a list of DRA driver feature gates")]
    names: set[str] = set()
    problems: list[Problem] = []
    for index, gate in enumerate(feature_gates):
        value = value_of(gate) if isinstance(gate, (str, DraFeatureGate)) else gate
        if value in valid:
            names.add(str(value))
        else:
            problems.append(Problem(f"feature_gates[{index}]", gate, "not a DRA driver feature gate", ", ".join(valid)))
    return names, problems


def _gate_problem(
    field: str, value: object, what: str, strategy: dra.SharingStrategy, gates: set[str]
) -> list[Problem]:
    """A problem when the driver feature gate that ``strategy`` needs is not among ``gates``."""
    gate = dra.SHARING_FEATURE_GATES[strategy].value
    if gate in gates:
        return []
    return [
        Problem(
            field,
            value,
            f"{what} needs the DRA driver's feature gate {gate} (alpha, off by default), which the cluster does not "
            f"turn on; add {gate} to the cluster's dra.feature_gates",
            f"dra.feature_gates including {gate}",
            dra.SOURCE_CONFIG_GATES,
        )
    ]


def _custom_selectors(selectors: Sequence[str], device_class: str) -> tuple[list[str], list[Problem]]:
    """The caller's CEL selectors (``selectors``, of a request of ``device_class``) and a problem per bad one, at
    ``selectors[i]`` (:func:`~gpu_components.dra.selector_problems`)."""
    if isinstance(selectors, str) or not isinstance(selectors, Sequence):
        return [], [
            Problem(
                "selectors",
                selectors,
                "must be a list of CEL expressions (strings)",
                "a list, e.g. [\"device.attributes['gpu.nvidia.com'].architecture == 'Hopper'\"]",
            )
        ]
    problems = [
        problem
        for index, expression in enumerate(selectors)
        for problem in dra.selector_problems(expression, device_class, f"selectors[{index}]")
    ]
    return [str(expression) for expression in selectors], problems


def _dynamic_mig(gates: set[str]) -> bool:
    """Whether the driver feature gates ``gates`` (of :func:`_gates`) hold DynamicMIG."""
    return DraFeatureGate.DYNAMIC_MIG.value in gates


def _node_devices(spec: GpuNodePoolSpec, dynamic_mig: bool = False) -> list[tuple[GpuModel, dict[str, int]]]:
    """``(GPU model, what one node publishes to DRA)`` of each instance type the pool allows: a fixed pool's one
    type, a provisioned pool's allowed types (:func:`~gpu_components.workloads.allowed_gpus`), each node's devices by
    :func:`~gpu_components.dra.dra_devices` (``gpu.nvidia.com`` or ``mig.nvidia.com/<profile>`` -> count; with
    ``dynamic_mig``, a whole GPU's possible MIG devices too)."""
    return [
        (gpu, dra.dra_devices(dataclasses.replace(spec, gpu=gpu, gpu_count=per_node), dynamic_mig))
        for gpu, per_node in allowed_gpus(spec).values()
    ]


def _whole_gpu_problems(
    spec: GpuNodePoolSpec, gpus: object, gpu_model: object, min_gpu_memory_gb: object
) -> tuple[int | None, list[Problem]]:
    """Check a request of ``gpus`` whole GPUs of the pool (optionally of ``gpu_model`` / ``min_gpu_memory_gb``):
    ``(count, [])`` or ``(None, problems)``."""
    problems: list[Problem] = []
    if spec.mig is not None:
        problems.append(
            Problem(
                "pool",
                spec.name,
                f"pool {spec.name}'s GPUs are partitioned into MIG devices ({spec.mig.config_name}): the DRA driver "
                f"publishes them in DeviceClass {dra.MIG_DEVICE_CLASS}, not whole GPUs; claim a MIG profile",
                ", ".join(f"mig_profile {profile}" for profile in spec.mig.devices),
                dra.SOURCE_MIG_DEVICE_CLASS,
            )
        )
    count, found = parse_gpu_quantity(gpus, "gpus")
    problems += found
    problems += gpu_selection_problems(gpu_model, min_gpu_memory_gb)
    if problems:
        return None, problems
    types = _node_devices(spec)
    offered = ", ".join(sorted({f"{gpu.name} ({gpu.memory_gb} GB)" for gpu, _ in types}))
    floor = min_gpu_memory_gb if isinstance(min_gpu_memory_gb, int) else 0
    wanted = [
        (gpu, devices[dra.GPU_DEVICE_CLASS])
        for gpu, devices in types
        if (gpu_model is None or gpu.name == gpu_model) and gpu.memory_gb >= floor
    ]
    if not wanted:
        field, value = ("gpu_model", gpu_model) if gpu_model is not None else ("min_gpu_memory_gb", min_gpu_memory_gb)
        if gpu_model is not None and min_gpu_memory_gb is not None and any(g.name == gpu_model for g, _ in types):
            field, value = "min_gpu_memory_gb", min_gpu_memory_gb
        return None, [Problem(field, value, f"pool {spec.name} has no such GPU", offered)]
    most = max(per_node for _, per_node in wanted)
    if count is not None and count > most:
        node = "the largest node" if spec.provisioning is not None else "each node"
        return None, [
            Problem(
                "gpus",
                gpus,
                f"{node} of pool {spec.name} has {most} such GPU{'' if most == 1 else 's'}; the claim could never be "
                "allocated",
                f"1..{most}",
                dra.SOURCE_KUBERNETES_DRA,
            )
        ]
    return count, []


def _mig_problems(
    spec: GpuNodePoolSpec, mig_profile: object, devices: object, dynamic_mig: bool
) -> tuple[int | None, list[Problem]]:
    """Check a request of ``devices`` MIG devices of ``mig_profile`` on the pool: a profile the pool's nodes publish
    (its static layout's, or with ``dynamic_mig`` any of a whole MIG-capable GPU's), at most as many as a node
    publishes."""
    count, problems = parse_gpu_quantity(devices, "devices")
    published = _published(spec, dynamic_mig)
    prefix = f"{dra.MIG_DEVICE_CLASS}/"
    offered = [key.removeprefix(prefix) for key in published if key.startswith(prefix)]
    valid = ", ".join(offered) or "none: the pool has no MIG layout (mig); claim whole GPUs"
    if not isinstance(mig_profile, str):
        return None, [*problems, Problem("mig_profile", mig_profile, "must be a MIG profile name (a string)", valid)]
    if mig_profile not in offered:
        source = dra.SOURCE_MIG_ATTRIBUTES
        if mig_profile not in spec.gpu.mig_profiles:
            why = f"{spec.gpu.name} GPUs have no MIG profile {mig_profile}"
        elif spec.mig is None:
            why = (
                f"pool {spec.name}'s GPUs are not partitioned (no mig) and the DRA driver runs without its DynamicMIG "
                "feature gate, so it publishes no MIG devices; with DynamicMIG (dra.feature_gates, passed to the "
                "helper as feature_gates; Kubernetes 1.36 or later) it publishes every MIG profile of a whole GPU "
                "and makes the device when the claim is allocated"
            )
            valid = f"with DynamicMIG: {', '.join(sorted(spec.gpu.mig_profiles))}; without: {valid}"
            source = f"{dra.SOURCE_DYNAMIC_MIG}; {dra.SOURCE_MIG_ATTRIBUTES}"
        else:
            why = f"MIG profile {mig_profile} is not in pool {spec.name}'s MIG layout ({spec.mig.config_name})"
        return None, [*problems, Problem("mig_profile", mig_profile, why, valid, source)]
    most = published[f"{prefix}{mig_profile}"]
    if count is not None and count > most:
        node = "the largest node" if spec.provisioning is not None else "each node"
        problems.append(
            Problem(
                "devices",
                devices,
                f"{node} of pool {spec.name} has {most} MIG device{'' if most == 1 else 's'} of {mig_profile}; "
                "the claim could never be allocated",
                f"1..{most}",
                dra.SOURCE_KUBERNETES_DRA,
            )
        )
    return (count if not problems else None), problems


def _model_expressions(gpu_model: str | None, min_gpu_memory_gb: int | None, types: Sequence[GpuModel]) -> list[str]:
    """CEL selecting ``gpu_model`` (by product family, with memory bounds where the pool has another GPU of the same
    family) and at least ``min_gpu_memory_gb`` GB, among the pool's GPU models ``types``."""
    expressions: list[str] = []
    if gpu_model is not None:
        model = next(gpu for gpu in types if gpu.name == gpu_model)
        expressions.append(dra.product_name_expression(gpu_model))
        family = [
            gpu for gpu in types if dra.product_family(gpu.name) == dra.product_family(gpu_model) and gpu != model
        ]
        if any(gpu.memory_gb < model.memory_gb for gpu in family):
            expressions.append(dra.memory_at_least_expression(model.memory_gb))
        larger = sorted(gpu.memory_gb for gpu in family if gpu.memory_gb > model.memory_gb)
        if larger:
            expressions.append(dra.memory_below_expression(larger[0]))
    if min_gpu_memory_gb is not None:
        expressions.append(dra.memory_at_least_expression(min_gpu_memory_gb))
    return expressions


# ---------------------------------------------------------------------------------------------------------------
# Manifests
# ---------------------------------------------------------------------------------------------------------------


def _request(request: str, device_class: str, count: int, expressions: Sequence[str]) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class, "count": count}
    if expressions:
        exactly["selectors"] = [{"cel": {"expression": expression}} for expression in expressions]
    return {"name": request, "exactly": exactly}


def _config(request: str, kind: str, sharing: dict[str, Any]) -> dict[str, Any]:
    """An opaque config of the driver for ``request`` (:data:`~gpu_components.dra.SOURCE_CONFIG_KINDS`)."""
    return {
        "requests": [request],
        "opaque": {
            "driver": dra.DRIVER_NAME,
            "parameters": {"apiVersion": dra.CONFIG_API_VERSION, "kind": kind, "sharing": sharing},
        },
    }


def _manifest(
    kind: Literal["ResourceClaimTemplate", "ResourceClaim"],
    name: str,
    namespace: str,
    request: dict[str, Any],
    config: dict[str, Any] | None = None,
    match_attribute: str | None = None,
) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": [request]}
    if match_attribute is not None:
        devices["constraints"] = [{"requests": [request["name"]], "matchAttribute": match_attribute}]
    if config is not None:
        devices["config"] = [config]
    spec: dict[str, Any] = {"devices": devices}
    return {
        "apiVersion": dra.RESOURCE_API_VERSION,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"spec": spec} if kind == "ResourceClaimTemplate" else spec,
    }


def gpu_claim_template(
    pool: DraPool,
    name: str,
    *,
    gpus: int = 1,
    gpu_model: str | None = None,
    min_gpu_memory_gb: int | None = None,
    selectors: Sequence[str] = (),
    namespace: str = DEFAULT_NAMESPACE,
) -> dict[str, Any]:
    """A ``ResourceClaimTemplate`` for ``gpus`` whole GPUs of ``pool`` (one claim per pod, DeviceClass
    ``gpu.nvidia.com``), in request ``gpu``.

    Args:
        pool: a DRA pool (node-pool component or pool view with ``device_plugin_host`` ``dra-driver``).
        name: the template's name (a DNS label; the pod's claim entry takes it).
        gpus: whole GPUs, at least 1 and at most what one node of the pool (of the qualifying types) has.
        gpu_model: a catalog GPU model among the pool's (e.g. ``L40S``, or ``H100`` where the pool has one H100
            model); adds the CEL of
            :func:`~gpu_components.dra.product_name_expression` on ``productName``, with memory bounds where the
            pool has another model of the same family. Defaults to any.
        min_gpu_memory_gb: at least this much GPU memory (GB); some GPU of the pool must have it; adds the CEL of
            :func:`~gpu_components.dra.memory_at_least_expression` on the ``memory`` capacity. Defaults to any.
        selectors: more CEL selectors of the request (``resource.k8s.io/v1`` ``selectors[].cel.expression``), after
            the helper's own: each must parse, use only attributes and capacities the driver publishes for the
            request's DeviceClass and evaluate to a bool (:func:`~gpu_components.dra.selector_problems`), e.g.
            ``["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"]``. Defaults to none.
        namespace: Defaults to :data:`DEFAULT_NAMESPACE`.

    Raises:
        GpuSpecError: every problem at once: a pool not served by the DRA driver, a MIG pool (its GPUs are
            published as MIG devices), an invalid name or count, a model or memory no GPU of the pool has, more
            GPUs than one node has, a bad selector (at ``selectors[i]``).
    """
    custom, problems = _custom_selectors(selectors, dra.GPU_DEVICE_CLASS)
    problems += _pool_problems(pool) + _name_problems(name, namespace)
    if isinstance(gpu_model, str):
        models = [gpu.name for gpu, _ in _node_devices(pool.spec)]
        gpu_model, found = pool_gpu_model(gpu_model, models, f"pool {pool.spec.name}'s", "gpu_model")
        problems += found
    if problems:
        raise GpuSpecError(problems)
    count, problems = _whole_gpu_problems(pool.spec, gpus, gpu_model, min_gpu_memory_gb)
    if problems or count is None:
        raise GpuSpecError(problems)
    expressions = _model_expressions(gpu_model, min_gpu_memory_gb, [gpu for gpu, _ in _node_devices(pool.spec)])
    return _manifest(
        "ResourceClaimTemplate", name, namespace, _request("gpu", dra.GPU_DEVICE_CLASS, count, expressions + custom)
    )


def mig_claim_template(
    pool: DraPool,
    name: str,
    mig_profile: str,
    *,
    devices: int = 1,
    same_gpu: bool = False,
    feature_gates: Sequence[DraFeatureGateArg] = (),
    selectors: Sequence[str] = (),
    namespace: str = DEFAULT_NAMESPACE,
) -> dict[str, Any]:
    """A ``ResourceClaimTemplate`` for ``devices`` MIG devices of ``mig_profile`` on ``pool`` (DeviceClass
    ``mig.nvidia.com``, CEL :func:`~gpu_components.dra.mig_profile_expression`), in request ``mig``.

    Args:
        pool: a DRA pool whose MIG layout (``mig``) has ``mig_profile``, or, with the DynamicMIG gate, a pool of
            whole MIG-capable GPUs (no ``mig``) whose GPU model has it (:func:`~gpu_components.dra.dra_devices`).
        name: the template's name (a DNS label).
        mig_profile: a profile of the pool's MIG layout (or, with DynamicMIG, of its GPU model), e.g. ``1g.10gb``.
        devices: MIG devices, at least 1 and at most the profile's devices on one node (per GPU times GPUs; with
            DynamicMIG, the profile's most instances on one GPU, from the catalog's MIG tables, times GPUs).
        same_gpu: all ``devices`` on one parent GPU: a claim constraint ``matchAttribute:
            gpu.nvidia.com/parentUUID`` on request ``mig`` (:data:`~gpu_components.dra.PARENT_UUID_ATTRIBUTE`).
            Needs at least 2 devices and at most the profile's devices on one GPU. Defaults to ``False``: the
            devices may come from any GPUs of the node.
        feature_gates: the DRA driver feature gates the cluster turns on (its ``dra.feature_gates``:
            ``GpuCluster.dra_feature_gates``); ``DynamicMIG`` among them lets a pool of whole GPUs be claimed as
            MIG devices (:data:`~gpu_components.dra.SOURCE_DYNAMIC_MIG`). Defaults to none.
        selectors: more CEL selectors of the request (``resource.k8s.io/v1`` ``selectors[].cel.expression``), after
            the helper's own: each must parse, use only attributes and capacities the driver publishes for the
            request's DeviceClass and evaluate to a bool (:func:`~gpu_components.dra.selector_problems`), e.g.
            ``["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"]``. Defaults to none.
        namespace: Defaults to :data:`DEFAULT_NAMESPACE`.

    Raises:
        GpuSpecError: a pool not served by the DRA driver, an invalid name, count or feature gate, a profile the
            pool's GPU does not have or its layout does not hold (``valid`` lists the layout's profiles), a pool of
            whole GPUs without DynamicMIG (the message names DynamicMIG), more devices than a node has;
            ``same_gpu`` not a bool, with one device, or with more devices than one GPU holds; a bad selector.
    """
    custom, problems = _custom_selectors(selectors, dra.MIG_DEVICE_CLASS)
    problems += _pool_problems(pool) + _name_problems(name, namespace)
    gates, found = _gates(feature_gates)
    problems += found
    if not isinstance(same_gpu, bool):
        problems.append(Problem("same_gpu", same_gpu, "must be a bool", "true, false"))
    if problems:
        raise GpuSpecError(problems)
    count, problems = _mig_problems(pool.spec, mig_profile, devices, _dynamic_mig(gates))
    if problems or count is None:
        raise GpuSpecError(problems)
    spec = pool.spec
    per_gpu = (
        spec.mig.devices[mig_profile] if spec.mig is not None else spec.gpu.mig_profiles[mig_profile].max_instances
    )
    if same_gpu and not 2 <= count <= per_gpu:
        raise GpuSpecError(
            [
                Problem(
                    "devices",
                    devices,
                    f"same_gpu puts the claim's devices on one GPU, which holds {per_gpu} MIG device"
                    f"{'' if per_gpu == 1 else 's'} of {mig_profile} in pool {pool.spec.name}'s layout"
                    if count > per_gpu
                    else "same_gpu constrains several devices to one GPU; one device is always on one GPU",
                    f"2..{per_gpu}" if per_gpu > 1 else "same_gpu: false",
                    dra.SOURCE_MIG_ATTRIBUTES,
                )
            ]
        )
    request = _request("mig", dra.MIG_DEVICE_CLASS, count, [dra.mig_profile_expression(mig_profile), *custom])
    return _manifest(
        "ResourceClaimTemplate",
        name,
        namespace,
        request,
        match_attribute=dra.PARENT_UUID_ATTRIBUTE if same_gpu else None,
    )


def shared_gpu_claim(
    pool: DraPool,
    name: str,
    *,
    time_slice_interval: dra.TimeSliceInterval | None = None,
    mig_profile: str | None = None,
    feature_gates: Sequence[DraFeatureGateArg] = (),
    selectors: Sequence[str] = (),
    namespace: str = DEFAULT_NAMESPACE,
) -> dict[str, Any]:
    """A ``ResourceClaim`` for one whole GPU (or one MIG device) of ``pool`` that several pods share: each pod of
    ``namespace`` that references it by name (``resourceClaimName``, :func:`claim_pod_settings`) gets the same
    device (:data:`~gpu_components.dra.SOURCE_SHARED_CLAIM`). This is DRA's GPU sharing: one claim, several pods;
    not a replica count on the pool.

    Args:
        pool: a DRA pool.
        name: the claim's name (a DNS label).
        time_slice_interval: the GPU's time-slice interval (``Default``, ``Short``, ``Medium``, ``Long``): a
            ``GpuConfig`` with ``sharing.strategy: TimeSlicing`` (:data:`~gpu_components.dra.SOURCE_SHARING`),
            which needs the driver's ``TimeSlicingSettings`` feature gate. Defaults to ``None``: no config, no gate.
            Not with ``mig_profile``: a ``MigDeviceConfig`` has no ``timeSlicingConfig``.
        mig_profile: share one MIG device of this profile of the pool's MIG layout instead of a whole GPU.
        feature_gates: the DRA driver feature gates the cluster turns on (its ``dra.feature_gates``:
            ``GpuCluster.dra_feature_gates``).
        selectors: more CEL selectors of the request (``resource.k8s.io/v1`` ``selectors[].cel.expression``), after
            the helper's own: each must parse, use only attributes and capacities the driver publishes for the
            request's DeviceClass and evaluate to a bool (:func:`~gpu_components.dra.selector_problems`), e.g.
            ``["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"]``. Defaults to none.
        namespace: the namespace of the claim and of every pod sharing it. Defaults to :data:`DEFAULT_NAMESPACE`.

    Raises:
        GpuSpecError: a pool not served by the DRA driver, a whole GPU of a MIG pool or a profile outside its
            layout, an invalid name, an interval the driver does not know, with a MIG device, or without the
            ``TimeSlicingSettings`` gate; a bad selector.
    """
    device_class = dra.MIG_DEVICE_CLASS if mig_profile is not None else dra.GPU_DEVICE_CLASS
    custom, problems = _custom_selectors(selectors, device_class)
    problems += _pool_problems(pool) + _name_problems(name, namespace)
    gates, found = _gates(feature_gates)
    problems += found
    if problems:
        raise GpuSpecError(problems)
    if mig_profile is not None:
        _, problems = _mig_problems(pool.spec, mig_profile, 1, _dynamic_mig(gates))
        if time_slice_interval is not None:
            problems.append(
                Problem(
                    "time_slice_interval",
                    time_slice_interval,
                    "a MIG device takes no time-slice interval (the driver's MigDeviceConfig has no "
                    "timeSlicingConfig); leave it out",
                    "None",
                    dra.SOURCE_SHARING,
                )
            )
        if problems:
            raise GpuSpecError(problems)
        request = _request("mig", dra.MIG_DEVICE_CLASS, 1, [dra.mig_profile_expression(mig_profile), *custom])
        return _manifest("ResourceClaim", name, namespace, request)
    _, problems = _whole_gpu_problems(pool.spec, 1, None, None)
    config = None
    if time_slice_interval is not None:
        if time_slice_interval not in dra.TIME_SLICE_INTERVALS:
            problems.append(
                Problem(
                    "time_slice_interval",
                    time_slice_interval,
                    "not a time-slice interval of the DRA driver",
                    ", ".join(dra.TIME_SLICE_INTERVALS),
                    dra.SOURCE_SHARING,
                )
            )
        problems += _gate_problem(
            "time_slice_interval", time_slice_interval, "a time-slice interval", "TimeSlicing", gates
        )
        sharing = {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": time_slice_interval}}
        config = _config("gpu", dra.GPU_CONFIG_KIND, sharing)
    if problems:
        raise GpuSpecError(problems)
    return _manifest("ResourceClaim", name, namespace, _request("gpu", dra.GPU_DEVICE_CLASS, 1, custom), config)


def mps_claim_template(
    pool: DraPool,
    name: str,
    *,
    feature_gates: Sequence[DraFeatureGateArg] = (),
    gpus: int = 1,
    mig_profile: str | None = None,
    default_active_thread_percentage: int | None = None,
    default_pinned_device_memory_limit: str | None = None,
    selectors: Sequence[str] = (),
    namespace: str = DEFAULT_NAMESPACE,
) -> dict[str, Any]:
    """A ``ResourceClaimTemplate`` whose devices the containers of each pod share through CUDA MPS (the driver
    runs an MPS control daemon per claim): a ``GpuConfig`` (whole GPUs, request ``gpu``) or ``MigDeviceConfig``
    (``mig_profile``, request ``mig``) with ``sharing.strategy: MPS`` (:data:`~gpu_components.dra.SOURCE_SHARING`).
    Needs the driver's ``MPSSupport`` feature gate (:data:`~gpu_components.dra.SOURCE_CONFIG_GATES`).

    Args:
        pool: a DRA pool.
        name: the template's name (a DNS label).
        feature_gates: the DRA driver feature gates the cluster turns on (its ``dra.feature_gates``:
            ``GpuCluster.dra_feature_gates``); must hold ``MPSSupport``. Defaults to none, which is the error
            naming the ``MPSSupport`` gate (as :func:`shared_gpu_claim` with a time-slice interval and no gates).
        gpus: GPUs (or MIG devices of ``mig_profile``), checked as in :func:`gpu_claim_template` /
            :func:`mig_claim_template`.
        mig_profile: share MIG devices of this profile of the pool's layout instead of whole GPUs.
        default_active_thread_percentage: ``mpsConfig.defaultActiveThreadPercentage``, 0..100 (percent of a
            device's SMs each client may use). Defaults to the driver's (unset).
        default_pinned_device_memory_limit: ``mpsConfig.defaultPinnedDeviceMemoryLimit``, a Kubernetes quantity
            of bytes, e.g. ``"10Gi"``. Defaults to the driver's (unset).
        selectors: more CEL selectors of the request (``resource.k8s.io/v1`` ``selectors[].cel.expression``), after
            the helper's own: each must parse, use only attributes and capacities the driver publishes for the
            request's DeviceClass and evaluate to a bool (:func:`~gpu_components.dra.selector_problems`), e.g.
            ``["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"]``. Defaults to none.
        namespace: Defaults to :data:`DEFAULT_NAMESPACE`.

    Raises:
        GpuSpecError: a pool not served by the DRA driver, an invalid name or count, a pool/profile mismatch (see
            the other helpers), a percentage outside 0..100, a memory limit that is not a quantity, no
            ``MPSSupport`` gate, a bad selector.
    """
    device_class = dra.MIG_DEVICE_CLASS if mig_profile is not None else dra.GPU_DEVICE_CLASS
    custom, problems = _custom_selectors(selectors, device_class)
    problems += _pool_problems(pool) + _name_problems(name, namespace)
    gates, found = _gates(feature_gates)
    problems += found
    if problems:
        raise GpuSpecError(problems)
    if mig_profile is None:
        count, problems = _whole_gpu_problems(pool.spec, gpus, None, None)
    else:
        count, problems = _mig_problems(pool.spec, mig_profile, gpus, _dynamic_mig(gates))
    percentage = default_active_thread_percentage
    low, high = dra.MPS_ACTIVE_THREAD_PERCENTAGE
    if percentage is not None and (
        isinstance(percentage, bool) or not isinstance(percentage, int) or not low <= percentage <= high
    ):
        problems.append(
            Problem(
                "default_active_thread_percentage",
                percentage,
                "an MPS active thread percentage is a whole number of percent",
                f"{low}..{high}",
                dra.SOURCE_CONFIG_GATES,
            )
        )
    limit = default_pinned_device_memory_limit
    if limit is not None and (not isinstance(limit, str) or not _QUANTITY.fullmatch(limit)):
        problems.append(
            Problem(
                "default_pinned_device_memory_limit",
                limit,
                "must be a Kubernetes quantity of bytes (a string)",
                'a whole number with an optional suffix, e.g. "10Gi" or "512Mi"',
                dra.SOURCE_SHARING,
            )
        )
    problems += _gate_problem("feature_gates", list(feature_gates), "MPS in a resource claim", "MPS", gates)
    if problems or count is None:
        raise GpuSpecError(problems)
    mps: dict[str, Any] = {}
    if percentage is not None:
        mps["defaultActiveThreadPercentage"] = percentage
    if limit is not None:
        mps["defaultPinnedDeviceMemoryLimit"] = limit
    sharing: dict[str, Any] = {"strategy": "MPS", "mpsConfig": mps} if mps else {"strategy": "MPS"}
    if mig_profile is None:
        request = _request("gpu", dra.GPU_DEVICE_CLASS, count, custom)
        config = _config("gpu", dra.GPU_CONFIG_KIND, sharing)
    else:
        request = _request("mig", dra.MIG_DEVICE_CLASS, count, [dra.mig_profile_expression(mig_profile), *custom])
        config = _config("mig", dra.MIG_DEVICE_CONFIG_KIND, sharing)
    return _manifest("ResourceClaimTemplate", name, namespace, request, config)


# ---------------------------------------------------------------------------------------------------------------
# Pod pieces
# ---------------------------------------------------------------------------------------------------------------


def _published(spec: GpuNodePoolSpec, dynamic_mig: bool) -> dict[str, int]:
    """What the largest node of the pool publishes to DRA, per device key (``gpu.nvidia.com``,
    ``mig.nvidia.com/<profile>``): a fixed pool's one node type, the most of any type a provisioned pool allows
    (``dynamic_mig``: the driver's DynamicMIG gate is on, :func:`~gpu_components.dra.dra_devices`)."""
    most: dict[str, int] = {}
    for _, devices in _node_devices(spec, dynamic_mig):
        for key, count in devices.items():
            most[key] = max(most.get(key, 0), count)
    return dict(sorted(most.items()))


def _request_fit_problems(
    spec: GpuNodePoolSpec, request: Mapping[str, Any], where: str, dynamic_mig: bool
) -> tuple[tuple[str, int] | None, list[Problem]]:
    """A claim request (``exactly``: DeviceClass, count, selectors, at ``where``) against what a node of the pool
    publishes: its DeviceClass must be one the pool publishes in, a ``mig.nvidia.com`` request must select one MIG
    profile of the pool's layout (:func:`~gpu_components.dra.mig_profile_expression`), and its count must fit one node.
    A claim made for another pool fails here, where its pod would stay Pending. Returns ``((device key, count),
    [])`` for a request that fits (the key as :func:`~gpu_components.dra.dra_devices` spells it), else ``(None,
    problems)``."""
    published = _published(spec, dynamic_mig)
    offered = ", ".join(f"{key}: {count}" for key, count in published.items())
    node = "the largest node" if spec.provisioning is not None else "each node"
    device_class = request.get("deviceClassName")
    key: str | None = device_class if device_class == dra.GPU_DEVICE_CLASS else None
    prefix = f"{dra.MIG_DEVICE_CLASS}/"
    layout = [device.removeprefix(prefix) for device in published if device.startswith(prefix)]
    if device_class == dra.MIG_DEVICE_CLASS and layout:
        selectors = request.get("selectors", [])
        profiles = [
            profile for profile in layout if {"cel": {"expression": dra.mig_profile_expression(profile)}} in selectors
        ]
        if not profiles:
            return None, [
                Problem(
                    f"{where}.selectors",
                    selectors,
                    f"selects no MIG profile that pool {spec.name}'s nodes publish; the claim was made for another "
                    "pool and could never be allocated",
                    offered,
                    dra.SOURCE_MIG_ATTRIBUTES,
                )
            ]
        key = f"{prefix}{profiles[0]}"
    if key is None or key not in published:
        return None, [
            Problem(
                f"{where}.deviceClassName",
                device_class,
                f"pool {spec.name}'s nodes publish no devices in DeviceClass {device_class}; the claim was made for "
                "another pool and could never be allocated",
                offered,
                dra.SOURCE_MIG_DEVICE_CLASS
                if layout or device_class == dra.MIG_DEVICE_CLASS
                else dra.SOURCE_KUBERNETES_DRA,
            )
        ]
    count = request.get("count", 1)
    if isinstance(count, int) and count > published[key]:
        return None, [
            Problem(
                f"{where}.count",
                count,
                f"{node} of pool {spec.name} publishes {_devices(published[key], key)}; the claim could never be "
                "allocated",
                f"1..{published[key]}",
                dra.SOURCE_KUBERNETES_DRA,
            )
        ]
    return ((key, count) if isinstance(count, int) else None), []


def _devices(count: int, key: str) -> str:
    """``count`` devices of device key ``key``, in words: ``1 device of gpu.nvidia.com``, ``2 devices of ...``."""
    return f"{count} device{'' if count == 1 else 's'} of {key}"


def _claim_fit_problems(
    spec: GpuNodePoolSpec, claim: Mapping[str, Any], where: str, dynamic_mig: bool
) -> tuple[list[tuple[str, int]], list[Problem]]:
    """Each ``exactly`` request of a claim manifest (``where``: its path) against the pool
    (:func:`_request_fit_problems`), after what no pool could satisfy
    (:func:`~gpu_components.dra.unsatisfiable_claim_problems`); a template's claim spec sits under ``spec.spec``.
    Returns the ``(device key,
    count)`` of each request that fits, and the problems."""
    template = claim.get("kind") == "ResourceClaimTemplate"
    body: Any = claim.get("spec")
    body = body.get("spec") if template and isinstance(body, Mapping) else body
    devices = body.get("devices") if isinstance(body, Mapping) else None
    requests = devices.get("requests") if isinstance(devices, Mapping) else None
    at = f"{where}.spec.spec.devices" if template else f"{where}.spec.devices"
    base = f"{at}.requests"
    if not isinstance(requests, Sequence) or isinstance(requests, str) or not requests:
        return [], [Problem(base, requests, "a claim needs at least one device request", "requests of exactly")]
    fits: list[tuple[str, int]] = []
    problems = dra.unsatisfiable_claim_problems(devices, at) if isinstance(devices, Mapping) else []
    for index, request in enumerate(requests):
        exactly = request.get("exactly") if isinstance(request, Mapping) else None
        if not isinstance(exactly, Mapping):
            problems.append(
                Problem(
                    f"{base}[{index}]",
                    request,
                    "not an exactly request (the claim helpers' form), so it cannot be checked against the pool",
                    "a request of the claim helpers",
                )
            )
            continue
        fit, found = _request_fit_problems(spec, exactly, f"{base}[{index}].exactly", dynamic_mig)
        fits += [fit] if fit is not None else []
        problems += found
    return fits, problems


def _pod_total_problems(
    spec: GpuNodePoolSpec, fits: Sequence[tuple[str, str, int]], dynamic_mig: bool
) -> list[Problem]:
    """The devices of all of a pod's claims (``fits``: each request's claim name, device key and count) against what
    one node of the pool publishes: the scheduler allocates every claim of a pod on the one node the pod runs on, so
    claims that each fit a node but together need more devices of a key than a node has leave the pod Pending."""
    published = _published(spec, dynamic_mig)
    node = "the largest node" if spec.provisioning is not None else "each node"
    problems: list[Problem] = []
    for key in sorted({key for _, key, _ in fits}):
        claims: dict[str, int] = {}
        for name, each, count in fits:
            if each == key:
                claims[name] = claims.get(name, 0) + count
        total = sum(claims.values())
        if len(claims) > 1 and total > published[key]:
            problems.append(
                Problem(
                    "claims",
                    claims,
                    f"the pod's claims need {_devices(total, key)} together, but {node} of pool {spec.name} "
                    f"publishes {published[key]}; every claim of a pod is allocated on the node it runs on, so the "
                    "pod could never be scheduled",
                    f"claims needing at most {_devices(published[key], key)} together",
                    dra.SOURCE_KUBERNETES_DRA,
                )
            )
    if dynamic_mig and spec.mig is None:
        problems += _shared_counter_problems(spec, fits)
    return problems


def _shared_counter_problems(spec: GpuNodePoolSpec, fits: Sequence[tuple[str, str, int]]) -> list[Problem]:
    """Under DynamicMIG, a node's whole GPUs and the MIG devices made from them share the GPUs
    (:data:`~gpu_components.dra.SOURCE_DYNAMIC_MIG`): a whole GPU takes one GPU, a MIG device at least
    ``1 / max_instances`` of one (its profile's most instances per GPU). A pod whose claims need more GPUs than a
    node has in all can never be scheduled; less is necessary, not sufficient (a layout must also fit each GPU)."""
    profiles = spec.gpu.mig_profiles
    need = Fraction(0)
    claims: dict[str, int] = {}
    for name, key, count in fits:
        profile = key.removeprefix(f"{dra.MIG_DEVICE_CLASS}/")
        if key == dra.GPU_DEVICE_CLASS:
            need += count
        elif profile in profiles:
            need += Fraction(count, profiles[profile].max_instances)
        else:
            continue
        claims[name] = claims.get(name, 0) + count
    if need <= spec.gpu_count:
        return []
    node = "the largest node" if spec.provisioning is not None else "each node"
    return [
        Problem(
            "claims",
            claims,
            f"the pod's claims need whole GPUs and MIG devices worth at least {float(need):.2f} GPUs together, but "
            f"{node} of pool {spec.name} has {spec.gpu_count}; under DynamicMIG they are made from the same GPUs "
            f"(each {spec.gpu.name} MIG device takes at least 1/<its profile's most instances per GPU> of one)",
            f"claims needing at most {spec.gpu_count} GPUs together",
            dra.SOURCE_DYNAMIC_MIG,
        )
    ]


def claim_pod_settings(
    pool: DraPool, claims: Sequence[Mapping[str, Any]], *, feature_gates: Sequence[DraFeatureGateArg] = ()
) -> DraPodSettings:
    """The pod pieces that use ``claims`` on ``pool``: one pod ``resourceClaims`` entry per claim, named as the
    claim (``resourceClaimTemplateName`` for a template, ``resourceClaimName`` for a shared claim), the GPU
    container's ``resources.claims`` naming each, and the pool's tolerations and node selector. No
    ``nvidia.com/gpu`` limit: the claims bring the devices.

    Args:
        pool: the DRA pool the claims were made for.
        claims: manifests of this module's helpers (``resource.k8s.io/v1`` ``ResourceClaimTemplate`` or
            ``ResourceClaim``), all in the pod's namespace; at least one.
        feature_gates: the DRA driver feature gates the cluster turns on, as the claims were made with; with
            ``DynamicMIG`` a pool of whole MIG-capable GPUs also publishes MIG devices
            (:func:`~gpu_components.dra.dra_devices`). Defaults to none.

    Raises:
        GpuSpecError: a pool not served by the DRA driver, an invalid feature gate, no claims, a claim that is not
            such a manifest, two
            claims of one name, claims in different namespaces (a pod references claims of its own namespace), a
            claim made for another pool: a request in a DeviceClass the pool publishes nothing in, a MIG request
            selecting no MIG profile of the pool's layout, or more devices than a node of the pool publishes
            (the pool's :func:`~gpu_components.dra.dra_devices`); claims that each fit but together need more
            devices of one DeviceClass (or MIG profile) than a node publishes (path ``claims``, value: each
            claim's devices of that key), since all of a pod's claims are allocated on the node it runs on.
            A claim no pool could satisfy (:func:`~gpu_components.dra.unsatisfiable_claim_problems`): two sharing
            strategies for one request, ``sharing.timeSlicingConfig.replicas``, or a MIG ``profile`` selector on
            a ``gpu.nvidia.com`` request.
    """
    pool_problems = _pool_problems(pool)
    gates, found = _gates(feature_gates)
    problems = pool_problems + found
    entries: list[PodResourceClaim] = []
    namespaces: list[str] = []
    fits: list[tuple[str, str, int]] = []
    if isinstance(claims, (str, Mapping)) or not isinstance(claims, Sequence) or not claims:
        problems.append(Problem("claims", claims, "must be a non-empty list of claim manifests"))
        raise GpuSpecError(problems)
    for index, claim in enumerate(claims):
        metadata = claim.get("metadata") if isinstance(claim, Mapping) else None
        kind = claim.get("kind") if isinstance(claim, Mapping) else None
        if (
            not isinstance(metadata, Mapping)
            or kind not in _CLAIM_KINDS
            or claim.get("apiVersion") != dra.RESOURCE_API_VERSION
        ):
            problems.append(
                Problem(
                    f"claims[{index}]",
                    claim,
                    f"not a {dra.RESOURCE_API_VERSION} ResourceClaimTemplate or ResourceClaim manifest",
                    "a manifest of gpu_claim_template, mig_claim_template, mps_claim_template or shared_gpu_claim",
                )
            )
            continue
        name = str(metadata.get("name"))
        namespaces.append(str(metadata.get("namespace", DEFAULT_NAMESPACE)))
        if not pool_problems:
            fit, found = _claim_fit_problems(pool.spec, claim, f"claims[{index}]", _dynamic_mig(gates))
            fits += [(name, key, count) for key, count in fit]
            problems += found
        if any(entry["name"] == name for entry in entries):
            problems.append(Problem(f"claims[{index}].metadata.name", name, "two claims of one name in one pod"))
            continue
        entry: PodResourceClaim = {"name": name}
        if kind == "ResourceClaimTemplate":
            entry["resourceClaimTemplateName"] = name
        else:
            entry["resourceClaimName"] = name
        entries.append(entry)
    problems += _pod_total_problems(pool.spec, fits, _dynamic_mig(gates))
    if len(set(namespaces)) > 1:
        problems.append(
            Problem(
                "claims",
                namespaces,
                "claims in different namespaces: a pod references resource claims of its own namespace",
                "one namespace",
                dra.SOURCE_KUBERNETES_DRA,
            )
        )
    if problems:
        raise GpuSpecError(problems)
    return {
        "resourceClaims": entries,
        "claims": [{"name": entry["name"]} for entry in entries],
        "tolerations": tolerations(pool.taints),
        "nodeSelector": dict(sorted(pool.node_selector.items())),
    }


__all__ = [
    "DEFAULT_NAMESPACE",
    "DRA_DEVICE_PLUGIN_HOST",
    "ContainerClaim",
    "DraPodSettings",
    "DraPool",
    "PodResourceClaim",
    "claim_pod_settings",
    "gpu_claim_template",
    "mig_claim_template",
    "mps_claim_template",
    "shared_gpu_claim",
]
