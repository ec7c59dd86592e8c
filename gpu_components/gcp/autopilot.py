"""``GkeAutopilotGpuPool``: GPU workloads on a GKE Autopilot cluster, where there is no node pool to create.

On Autopilot GKE creates, sizes and removes the nodes for the pods, installs the NVIDIA driver and runs its own
device plugin; users run neither node pools nor NVIDIA's DaemonSets. What remains of a GPU pool is the workload side:
which accelerator and how many GPUs per node a pod asks for, and the node selector that makes Autopilot create such a
node. So a pool on Autopilot registers no cloud resource at all; the component exists so the workload helpers
(:func:`~gpu_components.workloads.gpu_pod_settings`) and the plan see it like any other pool.

Facts, each with its source:

- A GPU pod selects ``cloud.google.com/gke-accelerator: <accelerator type>`` and
  ``cloud.google.com/gke-accelerator-count: "<GPUs per node>"`` and asks for ``nvidia.com/gpu`` in its limits
  (:data:`SOURCE_AUTOPILOT_GPUS`, "Request GPUs in your containers"; GKE's node labels:
  :data:`~gpu_components.gcp.facts.SOURCE_GKE_NODE_LABELS`).
- Autopilot runs GPU pods on the ``Accelerator`` compute class. From GKE 1.29.4-gke.1427000 a pod only requests GPUs;
  from 1.28.9-gke.1069000 up to that version it must also select ``cloud.google.com/compute-class: Accelerator``;
  before 1.28.9-gke.1069000 the class does not exist (:data:`SOURCE_AUTOPILOT_GPUS`, "About selecting accelerators in
  Pods"). The library supports the versions with the class: :func:`accelerator_class_needed` decides from the
  cluster's version, and a version it cannot place on one side of those boundaries (``latest``, ``-``, none, or a
  prefix such as ``1.29`` that names versions on both sides) is refused, never guessed.
- GPU time-sharing on Autopilot from GKE 1.29.3-gke.1093000 (:data:`SOURCE_AUTOPILOT_TIME_SHARING`); pods select
  ``cloud.google.com/gke-gpu-sharing-strategy: time-sharing`` and ``cloud.google.com/gke-max-shared-clients-per-gpu``.
  Multi-instance GPU partitions are chosen per Autopilot workload (:data:`~gpu_components.gcp.gke.SOURCE_MIG`: "the
  partition size ... can be specified when you deploy an Autopilot workload"), by
  ``cloud.google.com/gke-gpu-partition-size``; the library holds MIG on Autopilot to the same version as time-sharing
  (:data:`AUTOPILOT_SHARING_MIN_VERSION`; no separate minimum was found for it). The limits of GKE's own sharing
  apply as on a Standard pool (:func:`~gpu_components.gcp.gke.gke_problems`).
- Refused on Autopilot, each with its reason: the NVIDIA GPU Operator ("For Autopilot Pods, using the GPU Operator is
  not supported": :data:`~gpu_components.gcp.facts.SOURCE_GPU_OPERATOR`); DRA (GKE's DRA setup lists Autopilot among
  its limitations: :data:`~gpu_components.gcp.facts.SOURCE_GKE_DRA`); the NVIDIA device plugin DaemonSet (GKE runs its
  own device plugin on Autopilot GPU nodes; a second advertiser is never allowed); MPS (GKE's MPS guide,
  :data:`~gpu_components.gcp.gke.SOURCE_MPS`, configures it on Standard node pools; the library found no Autopilot
  selector for it); ``provisioning`` (Autopilot is the provisioner); and every pool field that shapes a node pool
  (sizes, disk, labels, extra taints, the pool's ``gcp`` options): there is none to shape.
- Spot: a spot pool's pods select ``cloud.google.com/gke-spot: "true"`` (Autopilot Spot Pods,
  :data:`SOURCE_AUTOPILOT_SPOT`).
"""

import dataclasses
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    DevicePluginHost,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    WorkloadOnlyMode,
    adopt_view,
    pool_outputs,
)
from gpu_components.enums import GpuStackArg, value_of
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp.facts import COMPUTE_CLASS_LABEL, SOURCE_GKE_DRA, SOURCE_GKE_GPUS, SOURCE_GPU_OPERATOR
from gpu_components.gcp.gke import (
    DEFAULT_DRIVER_VERSION,
    SOURCE_MPS,
    gke_advertised_resources,
    gke_effective_taints,
    gke_node_labels,
    gke_problems,
)
from gpu_components.gpu_requests import tolerations
from gpu_components.shape import args_problems, plain
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolArgs, GpuNodePoolSpec, Mps, parse_pools

TOKEN = "gpu-components:index:GkeAutopilotGpuPool"
"""Pulumi type token of :class:`GkeAutopilotGpuPool`."""

SOURCE_AUTOPILOT_GPUS = "https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus"
"""GKE's "Deploy GPU workloads in Autopilot": the node selectors ``cloud.google.com/gke-accelerator`` and
``cloud.google.com/gke-accelerator-count`` with ``nvidia.com/gpu`` limits, and which GKE versions need the
``cloud.google.com/compute-class: Accelerator`` selector ("About selecting accelerators in Pods")."""
SOURCE_AUTOPILOT_TIME_SHARING = "https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus"
"""GKE's "Share GPUs with multiple workloads using time-sharing": Autopilot clusters from 1.29.3-gke.1093000."""
SOURCE_AUTOPILOT_SPOT = "https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-spot-pods"
"""GKE's Autopilot Spot Pods: a pod selects ``cloud.google.com/gke-spot: "true"``."""

ACCELERATOR_CLASS = "Accelerator"
"""The built-in Autopilot compute class that runs GPU pods (:data:`SOURCE_AUTOPILOT_GPUS`)."""
ACCELERATOR_CLASS_MIN_VERSION = "1.28.9-gke.1069000"
"""First GKE version with the ``Accelerator`` compute class on Autopilot (:data:`SOURCE_AUTOPILOT_GPUS`): "The
Accelerator compute class isn't supported in versions earlier than 1.28.9-gke.1069000"."""
ACCELERATOR_SELECTOR_UNTIL = "1.29.4-gke.1427000"
"""First GKE version where a GPU pod needs no ``cloud.google.com/compute-class: Accelerator`` selector ("Version
1.29.4-gke.1427000 and later: Request GPUs in your workload manifest", :data:`SOURCE_AUTOPILOT_GPUS`); from
:data:`ACCELERATOR_CLASS_MIN_VERSION` up to it, the pod selects the class."""
AUTOPILOT_SHARING_MIN_VERSION = "1.29.3-gke.1093000"
"""First GKE version with GPU time-sharing on Autopilot (:data:`SOURCE_AUTOPILOT_TIME_SHARING`); the library holds
MIG partitions on Autopilot to it too."""
SPOT_LABEL = "cloud.google.com/gke-spot"
"""Node label an Autopilot Spot Pod selects (value ``"true"``, :data:`SOURCE_AUTOPILOT_SPOT`)."""
ACCELERATOR_COUNT_LABEL = "cloud.google.com/gke-accelerator-count"
"""Node label of a GKE GPU node's GPU count, which an Autopilot GPU pod selects (:data:`SOURCE_AUTOPILOT_GPUS`)."""
DEVICE_PLUGIN_HOST: DevicePluginHost = "cloud"
"""GKE installs the driver and runs its device plugin on Autopilot GPU nodes."""

AUTOPILOT_POOL_FIELDS = ("min_size", "desired_size", "disk_size_gb", "labels", "taints", "provisioning", "gcp")
"""Pool fields refused on Autopilot: each shapes a node pool or its nodes, and Autopilot has none to shape
(``max_size`` too, see :func:`autopilot_spec`; ``gpu_taint`` stays, true only: GKE taints GPU nodes itself;
``gpu_access`` stays, not ``dra``)."""
_NO_NODE_POOL = "Autopilot has no node pools: GKE creates, sizes and removes the nodes for the pods"

_REFUSED_STACKS: Mapping[str, tuple[str, str]] = {
    "device-plugin": (
        "GKE runs its own device plugin on Autopilot GPU nodes, and users run no NVIDIA DaemonSets there: a second "
        "advertiser of nvidia.com/gpu on a node is never allowed",
        SOURCE_AUTOPILOT_GPUS,
    ),
    "gpu-operator": ("NVIDIA: 'For Autopilot Pods, using the GPU Operator is not supported'", SOURCE_GPU_OPERATOR),
    "dra": ("GKE's DRA setup does not support Autopilot clusters (its limitations)", SOURCE_GKE_DRA),
}
"""GPU stacks refused on Autopilot -> (why, source)."""

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?")


def _version(text: str) -> tuple[int, ...] | None:
    """``1.29.4-gke.1427000`` -> ``(1, 29, 4, 1427000)``; a prefix (``1.30``) gives its parts only; ``None`` for
    anything else."""
    match = _VERSION.fullmatch(text)
    return None if match is None else tuple(int(part) for part in match.groups() if part is not None)


def _all_at_least(given: tuple[int, ...], first: tuple[int, ...]) -> bool:
    """Whether every GKE version ``given`` names (a prefix names all its completions) is at least ``first``."""
    head = first[: len(given)]
    return given > head or (given == head and len(given) == len(first))


def _all_below(given: tuple[int, ...], first: tuple[int, ...]) -> bool:
    """Whether every GKE version ``given`` names is below ``first``."""
    return given < first[: len(given)]


def accelerator_class_needed(kubernetes_version: object, path: str = "kubernetes_version") -> bool:
    """Whether a GPU pod on an Autopilot cluster of ``kubernetes_version`` must select
    ``cloud.google.com/compute-class: Accelerator``: ``True`` on 1.28.9-gke.1069000 up to 1.29.4-gke.1427000,
    ``False`` from 1.29.4-gke.1427000 on (:data:`SOURCE_AUTOPILOT_GPUS`). ``1.30`` is ``False`` (every 1.30 version
    is past the boundary), ``1.29.2`` and ``1.28.9-gke.1069000`` are ``True``.

    Raises:
        GpuSpecError: a version the library cannot place: not a GKE version (``latest``, ``-``, ``None``: the
            release channel's, which the library cannot know), one before 1.28.9-gke.1069000 (no Accelerator class),
            or a prefix that names versions on both sides of a boundary (``1.29``, ``1.28``, ``1.28.9``).
    """
    problems = version_problems(kubernetes_version, path)
    if problems:
        raise GpuSpecError(problems)
    given = _version(str(kubernetes_version))
    assert given is not None  # checked by version_problems
    return not _all_at_least(given, _version(ACCELERATOR_SELECTOR_UNTIL) or ())


def version_problems(kubernetes_version: object, path: str = "kubernetes_version") -> list[Problem]:
    """The Autopilot cluster's ``kubernetes_version`` as :func:`accelerator_class_needed` needs it: a GKE version
    (``MAJOR.MINOR``, ``MAJOR.MINOR.PATCH`` or ``MAJOR.MINOR.PATCH-gke.N``) whose versions all have the Accelerator
    compute class and lie on one side of 1.29.4-gke.1427000."""
    valid = (
        f"a GKE version that decides it: {ACCELERATOR_SELECTOR_UNTIL} or later (e.g. 1.30, 1.33), or the full "
        f"version from {ACCELERATOR_CLASS_MIN_VERSION} (e.g. 1.29.3-gke.1093000)"
    )
    given = _version(kubernetes_version) if isinstance(kubernetes_version, str) else None
    if given is None:
        if isinstance(kubernetes_version, str) and kubernetes_version.strip() not in ("", "latest", "-"):
            why = (
                "not a GKE version (MAJOR.MINOR, MAJOR.MINOR.PATCH or MAJOR.MINOR.PATCH-gke.N, no 'v' and no spaces): "
                "whether GPU pods must select cloud.google.com/compute-class: Accelerator depends on it"
            )
        elif isinstance(kubernetes_version, int | float) and not isinstance(kubernetes_version, bool):
            why = (
                'a number, not a version string: YAML reads 1.30 as 1.3; quote it ("1.30"), as whether GPU pods '
                "must select cloud.google.com/compute-class: Accelerator depends on it"
            )
        else:
            why = (
                "required on Autopilot: whether GPU pods must select cloud.google.com/compute-class: Accelerator "
                "depends on the GKE version, and the library does not guess the release channel's"
            )
        return [Problem(path, kubernetes_version, why, valid, SOURCE_AUTOPILOT_GPUS)]
    minimum = _version(ACCELERATOR_CLASS_MIN_VERSION) or ()
    if _all_below(given, minimum):
        return [
            Problem(
                path,
                kubernetes_version,
                f"the Accelerator compute class for Autopilot GPU pods isn't supported before "
                f"{ACCELERATOR_CLASS_MIN_VERSION}",
                valid,
                SOURCE_AUTOPILOT_GPUS,
            )
        ]
    until = _version(ACCELERATOR_SELECTOR_UNTIL) or ()
    decided = _all_at_least(given, until) or (_all_at_least(given, minimum) and _all_below(given, until))
    if not decided:
        return [
            Problem(
                path,
                kubernetes_version,
                f"names GKE versions on both sides of {ACCELERATOR_CLASS_MIN_VERSION} or {ACCELERATOR_SELECTOR_UNTIL}, "
                "where what a GPU pod must select changes: give the full version",
                valid,
                SOURCE_AUTOPILOT_GPUS,
            )
        ]
    return []


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def autopilot_pool_problems(pool: Mapping[str, Any], path: str = "pool") -> list[Problem]:
    """The pool fields Autopilot has no use for (:data:`AUTOPILOT_POOL_FIELDS` and ``max_size``), one problem each;
    checked on the pool as given, before :func:`autopilot_spec` builds its spec."""
    problems = [
        Problem(
            _join(path, key),
            pool[key],
            f"{_NO_NODE_POOL}, so {key} has nothing to set"
            + (" (Autopilot is the provisioner)" if key == "provisioning" else ""),
            f"no {key} on an Autopilot pool",
            SOURCE_AUTOPILOT_GPUS,
        )
        for key in ("max_size", *AUTOPILOT_POOL_FIELDS)
        if key in pool
    ]
    if value_of(pool.get("gpu_access")) == "dra":
        problems.append(
            Problem(
                _join(path, "gpu_access"),
                "dra",
                "GKE's DRA setup does not support Autopilot clusters (its limitations): GKE's device plugin "
                "advertises the GPUs as nvidia.com/gpu",
                "auto or device-plugin (GKE's own device plugin), or no gpu_access",
                SOURCE_GKE_DRA,
            )
        )
    if pool.get("gpu_taint") is False:
        problems.append(
            Problem(
                _join(path, "gpu_taint"),
                False,
                f"GKE taints Autopilot GPU nodes {DEFAULT_GPU_TAINT.text} itself, so the pool's pods tolerate it "
                "whatever gpu_taint says",
                "true, or no gpu_taint",
                SOURCE_GKE_GPUS,
            )
        )
    return problems


NODES_BY = "GKE Autopilot"
"""Who creates and sizes an Autopilot pool's nodes (its component's ``nodes_by``, the capacity record's ``nodesBy``)."""


def _no_nodes(spec: GpuNodePoolSpec) -> GpuNodePoolSpec:
    """``spec`` with no node count of its own (0, 0, 0): Autopilot creates the nodes."""
    return dataclasses.replace(spec, min_size=0, desired_size=0, max_size=0)


def autopilot_spec(pool: Mapping[str, Any], path: str = "pool") -> GpuNodePoolSpec:
    """The validated spec of an Autopilot pool: the pool's own fields (:meth:`GpuNodePoolSpec.from_args` for
    ``gcp``), after :func:`autopilot_pool_problems`. The spec's node counts are placeholders (``max_size`` 1), as the
    cloud-neutral model requires them of a pool without ``provisioning`` to validate it; the returned spec's node
    counts are then 0: the library creates no node (:data:`NODES_BY` creates them).

    Raises:
        GpuSpecError: every problem of the pool at once.
    """
    problems = autopilot_pool_problems(pool, path)
    try:
        given: dict[str, Any] = {k: v for k, v in pool.items() if k not in ("max_size", *AUTOPILOT_POOL_FIELDS)}
        spec = _no_nodes(GpuNodePoolSpec.from_args(cast(GpuNodePoolArgs, {**given, "max_size": 1}), "gcp", path))
    except GpuSpecError as error:
        raise GpuSpecError([*problems, *error.problems]) from None
    if problems:
        raise GpuSpecError(problems)
    return spec


def autopilot_problems(
    spec: GpuNodePoolSpec,
    kubernetes_version: object,
    gpu_stack: str = "auto",
    path: str = "pool",
    version_path: str = "kubernetes_version",
    stack_path: str = "gpu_stack",
    cluster_checks: bool = True,
) -> list[Problem]:
    """The Autopilot rules of a valid pool, every problem at once: the GPU stack is ``auto`` (the others are refused,
    each with its reason: :data:`_REFUSED_STACKS`); the version decides the selectors (:func:`version_problems`); no
    MPS; time-sharing and MIG from :data:`AUTOPILOT_SHARING_MIN_VERSION`; and GKE's own sharing and partition rules
    (:func:`~gpu_components.gcp.gke.gke_problems`). Without ``cluster_checks`` the GPU stack and the version are
    left to the caller, which checks them once for all pools (:func:`autopilot_cluster_problems`)."""
    problems: list[Problem] = []
    if cluster_checks:
        problems += stack_problems(gpu_stack, stack_path)
        problems += version_problems(kubernetes_version, version_path)
    if isinstance(spec.sharing, Mps):
        problems.append(
            Problem(
                _join(path, "mps"),
                {"replicas": spec.sharing.replicas},
                "MPS is not offered on GKE Autopilot by the library: GKE's MPS guide configures it on Standard node "
                "pools, and no Autopilot selector for it was found",
                "time_slicing, mig or exclusive GPUs on Autopilot; MPS on a GKE Standard pool",
                SOURCE_MPS,
            )
        )
    shared = [name for name, on in (("time_slicing", spec.sharing is not None), ("mig", spec.mig is not None)) if on]
    given = _version(kubernetes_version) if isinstance(kubernetes_version, str) else None
    sharing_min = _version(AUTOPILOT_SHARING_MIN_VERSION) or ()
    if shared and not isinstance(spec.sharing, Mps) and given is not None and not _all_at_least(given, sharing_min):
        problems.append(
            Problem(
                version_path,
                kubernetes_version,
                f"pool {spec.name} shares its GPUs ({', '.join(_join(path, f) for f in shared)}), which GKE Autopilot "
                f"offers from {AUTOPILOT_SHARING_MIN_VERSION} on; this version names earlier ones",
                f"{AUTOPILOT_SHARING_MIN_VERSION} or later, or exclusive GPUs",
                SOURCE_AUTOPILOT_TIME_SHARING,
            )
        )
    problems += [
        problem
        for problem in gke_problems(spec, None, path, options_path=_join(path, "gcp"))
        if not problem.path.startswith(_join(path, "mps"))
    ]
    return problems


def stack_problems(gpu_stack: object, path: str = "gpu_stack") -> list[Problem]:
    """A GPU stack other than ``auto`` on Autopilot, refused with its reason (:data:`_REFUSED_STACKS`)."""
    stack: object = gpu_stack.value if isinstance(gpu_stack, Enum) else gpu_stack
    if stack == "auto":
        return []
    why, source = _REFUSED_STACKS.get(str(stack), ("not a GPU stack", None))
    return [Problem(path, stack, f"not on GKE Autopilot: {why}", "auto", source)]


AUTOPILOT_WIRING_REFUSED = ("node_locations", "service_account")
"""``GpuCluster`` GKE wiring keys refused with ``autopilot``: they place and run nodes of node pools, and Autopilot
has none."""
_ADD_ON_SETTINGS = ("gpu_operator", "device_plugin", "dra")


def autopilot_cluster_problems(
    pools: object,
    wiring: Mapping[str, Any],
    settings: Mapping[str, Any],
    prefix: str = "",
    wiring_path: str = "gcp",
    refused_wiring: tuple[str, ...] = AUTOPILOT_WIRING_REFUSED,
) -> tuple[tuple[GpuNodePoolSpec, ...], list[Problem]]:
    """Validate the pools of an Autopilot cluster (every entry point: ``GpuCluster`` with ``gcp.autopilot``, the
    stack config with ``cluster.autopilot``) and return their specs with every problem: the GPU stack is ``auto``
    (:func:`stack_problems`); no add-on settings (``gpu_operator``, ``device_plugin``, ``dra``: Autopilot deploys
    none); no wiring that places nodes (``refused_wiring``); the cluster's ``kubernetes_version``
    (:func:`version_problems`, at ``<wiring_path>.kubernetes_version``); each pool's fields
    (:func:`autopilot_pool_problems`, no other cloud's block), its own rules and :func:`autopilot_problems`; unique
    names.

    Args:
        pools: the pools as given (:class:`~gpu_components.cluster.ClusterPoolArgs`).
        wiring: the GKE wiring, or the stack's ``cluster`` config (both spell ``autopilot`` and
            ``kubernetes_version`` alike).
        settings: ``gpu_stack`` and any add-on settings given.
        prefix: prefix of the settings' and pools' paths (``""`` for component args).
        wiring_path: where ``wiring`` is (``gcp`` for ``GpuCluster``, ``cluster`` for the stack config).
        refused_wiring: the keys of ``wiring`` refused on Autopilot.
    """
    problems = stack_problems(settings.get("gpu_stack", "auto"), f"{prefix}gpu_stack")
    problems += [
        Problem(
            f"{prefix}{key}",
            settings[key],
            "settings of a GPU add-on, but on GKE Autopilot the cluster deploys none: GKE installs the driver and "
            "runs its device plugin",
            f"no {key} settings",
            SOURCE_AUTOPILOT_GPUS,
        )
        for key in _ADD_ON_SETTINGS
        if settings.get(key) is not None
    ]
    problems += [
        Problem(
            f"{wiring_path}.{key}",
            wiring[key],
            f"{_NO_NODE_POOL}, so {key} has nothing to set",
            f"no {key} with autopilot",
            SOURCE_AUTOPILOT_GPUS,
        )
        for key in refused_wiring
        if key in wiring
    ]
    version = wiring.get("kubernetes_version")
    version_path = f"{wiring_path}.kubernetes_version"
    problems += version_problems(version, version_path)
    if not isinstance(pools, list | tuple) or not pools:
        return (), [*problems, Problem(f"{prefix}pools", pools, "at least one pool", "[{name, instance_type}, ...]")]
    given: list[Mapping[str, Any]] = []
    for index, pool in enumerate(pools):
        where = f"{prefix}pools[{index}]"
        if not isinstance(pool, Mapping):
            problems.append(Problem(where, pool, "must be a pool (a mapping)"))
            given.append({})
            continue
        problems += autopilot_pool_problems(pool, where)
        problems += [
            Problem(f"{where}.{key}", pool[key], f"settings for {key}, but the cluster is on gcp")
            for key in ("aws", "azure")
            if key in pool
        ]
        kept = {k: v for k, v in pool.items() if k not in ("max_size", *AUTOPILOT_POOL_FIELDS, "aws", "azure")}
        given.append({**kept, "max_size": 1})

    def rules(spec: GpuNodePoolSpec, index: int, where: str) -> list[Problem]:
        return autopilot_problems(spec, version, path=where, version_path=version_path, cluster_checks=False)

    specs: tuple[GpuNodePoolSpec, ...] = ()
    try:
        specs = tuple(_no_nodes(spec) for spec in parse_pools(given, "gcp", f"{prefix}pools", rules))
    except GpuSpecError as error:
        problems += error.problems
    return specs, problems


def autopilot_node_selector(spec: GpuNodePoolSpec, kubernetes_version: str) -> dict[str, str]:
    """The node selector of a GPU pod for the pool on Autopilot (sorted): GKE's accelerator type and GPU count per
    node, the sharing or partition labels the pool asks for (:func:`~gpu_components.gcp.gke.gke_node_labels`),
    ``cloud.google.com/gke-spot: "true"`` for a spot pool, and ``cloud.google.com/compute-class: Accelerator`` only
    where the version needs it (:func:`accelerator_class_needed`). No pool label: Autopilot nodes carry none of the
    library's labels.

    Raises:
        GpuSpecError: a version :func:`accelerator_class_needed` refuses.
    """
    selector = {**gke_node_labels(spec), ACCELERATOR_COUNT_LABEL: str(spec.gpu_count)}
    if spec.spot:
        selector[SPOT_LABEL] = "true"
    if accelerator_class_needed(kubernetes_version):
        selector[COMPUTE_CLASS_LABEL] = ACCELERATOR_CLASS
    return dict(sorted(selector.items()))


def autopilot_pool_view(spec: GpuNodePoolSpec, kubernetes_version: str) -> PoolView:
    """What a :class:`GkeAutopilotGpuPool` of the pool exposes: GKE advertises the GPUs (``cloud``); the labels GKE
    puts on the nodes for the pod's accelerator settings; GKE's GPU taint (and its Arm taint on Arm machines), which
    pods tolerate; what a node with the pool's GPUs advertises
    (:func:`~gpu_components.gcp.gke.gke_advertised_resources`); the node selector (:func:`autopilot_node_selector`);
    no autoscaler note; GKE's default driver."""
    taints = gke_effective_taints(spec)
    return PoolView(
        spec=spec,
        device_plugin_host=DEVICE_PLUGIN_HOST,
        labels=dict(sorted({**gke_node_labels(spec), ACCELERATOR_COUNT_LABEL: str(spec.gpu_count)}.items())),
        taints=taints,
        advertised_resources=gke_advertised_resources(spec),
        node_selector=autopilot_node_selector(spec, kubernetes_version),
        autoscaler_note=None,
        tolerations=tolerations(taints),
        driver_setting=DEFAULT_DRIVER_VERSION,
        driver_setting_set=False,
    )


class GkeAutopilotGpuPoolArgs(TypedDict):
    """Inputs of :class:`GkeAutopilotGpuPool`."""

    pool: GpuNodePoolArgs
    """The GPU workloads' pool, validated for ``gcp``: ``name``, ``instance_type`` (a GPU machine type, or N1 with
    ``gpu_model`` and ``gpu_count``: the accelerator type and GPUs per node pods ask for), ``spot``, ``gpu_taint``,
    ``time_slicing`` or ``mig``. Node-pool fields (``min_size``, ``max_size``, ``desired_size``, ``disk_size_gb``,
    ``labels``, ``taints``, ``provisioning``, ``gcp``) and ``mps`` are refused."""
    kubernetes_version: str
    """The Autopilot cluster's GKE version, which decides whether GPU pods select
    ``cloud.google.com/compute-class: Accelerator`` (needed from 1.28.9-gke.1069000 up to 1.29.4-gke.1427000):
    ``1.30`` or later, or a full version such as ``1.29.3-gke.1093000``. Required."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``, the only one on Autopilot (GKE's driver and device plugin);
    ``device-plugin``, ``gpu-operator`` and ``dra`` are refused with the reason."""


class GkeAutopilotGpuPool(pulumi.ComponentResource):
    """GPU workloads on GKE Autopilot: a pool with no node pool, whose pods Autopilot places on GPU nodes it creates,
    with GKE's driver and device plugin.

    Children: none (Autopilot creates the nodes). Providers: none.

    Outputs: ``pool_name``, ``labels``, ``taints``, ``tolerations``, ``node_selector``, ``advertised_resources``,
    ``dra_devices``, ``device_plugin_host``, ``autoscaler_note``, ``nodes_by`` (plain values, known at preview).
    Other attributes: ``spec``, ``kubernetes_version``, ``accelerator_class`` (whether pods select the Accelerator
    compute class), ``served_by``.

    Raises:
        GpuSpecError: every problem at once (:func:`autopilot_pool_problems`, the pool's own rules,
            :func:`autopilot_problems`), before anything is registered.
    """

    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """The labels GKE puts on the GPU nodes it creates for the pool's pods (accelerator, count, sharing)."""
    taints: PoolTaints
    """GKE's taints on those nodes (Kubernetes spelling): ``nvidia.com/gpu=present:NoSchedule``."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for them."""
    node_selector: dict[str, str]
    """Node labels a GPU pod selects on Autopilot (:func:`autopilot_node_selector`)."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many a node with the pool's GPUs advertises (``nvidia.com/gpu``)."""
    dra_devices: dict[str, int]
    """Always ``{}``: no DRA on Autopilot."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``cloud`` (GKE's own device plugin)."""
    autoscaler_note: str | None
    """None."""
    nodes_by: str
    """Who creates and sizes the pool's nodes: ``GKE Autopilot`` (the spec's node counts are 0)."""

    def __init__(self, name: str, args: GkeAutopilotGpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        spec = autopilot_component_spec(args)
        super().__init__(TOKEN, name, None, opts)
        version = str(args["kubernetes_version"])
        view = autopilot_pool_view(spec, version)
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        self.kubernetes_version = version
        self.accelerator_class = accelerator_class_needed(version)
        self.nodes_by = NODES_BY
        adopt_view(self, view)
        self.register_outputs({**pool_outputs(self), "nodesBy": self.nodes_by})


def autopilot_component_spec(args: object) -> GpuNodePoolSpec:
    """Validate :class:`GkeAutopilotGpuPoolArgs` and return the pool's spec: the args' own shape, the pool
    (:func:`autopilot_spec`), then :func:`autopilot_problems`.

    Raises:
        GpuSpecError: every problem at once.
    """
    problems = args_problems(GkeAutopilotGpuPoolArgs, args, validated_elsewhere=("pool",))
    pool = args.get("pool") if isinstance(args, Mapping) else None
    spec: GpuNodePoolSpec | None = None
    if isinstance(pool, Mapping):
        try:
            spec = autopilot_spec(pool, "pool")
        except GpuSpecError as error:
            problems += error.problems
    elif pool is not None:
        problems.append(Problem("pool", pool, "must be a pool (a mapping)"))
    if spec is not None and not problems and isinstance(args, Mapping):
        gpu_stack = value_of(args.get("gpu_stack", "auto"))
        problems += autopilot_problems(spec, args.get("kubernetes_version"), str(gpu_stack))
    if problems or spec is None:
        raise GpuSpecError(problems)
    return spec


def _create_pool(
    name: str, pool: Mapping[str, Any], wiring: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> GkeAutopilotGpuPool:
    return GkeAutopilotGpuPool(
        name, {"pool": cast(GpuNodePoolArgs, pool), "kubernetes_version": wiring["kubernetes_version"]}, opts
    )


AUTOPILOT = WorkloadOnlyMode("GKE Autopilot", autopilot_cluster_problems, _create_pool)
"""GKE Autopilot as a cluster mode of the GCP adapter (``gcp.autopilot`` / ``cluster.autopilot``)."""


def autopilot_mode(wiring: Mapping[str, Any]) -> WorkloadOnlyMode | None:
    """:data:`AUTOPILOT` when the wiring (or stack ``cluster`` config) says ``autopilot: true``, else ``None``."""
    return AUTOPILOT if wiring.get("autopilot") is True else None


__all__ = [
    "ACCELERATOR_CLASS",
    "ACCELERATOR_CLASS_MIN_VERSION",
    "ACCELERATOR_SELECTOR_UNTIL",
    "AUTOPILOT_SHARING_MIN_VERSION",
    "GkeAutopilotGpuPool",
    "GkeAutopilotGpuPoolArgs",
    "accelerator_class_needed",
    "autopilot_node_selector",
    "autopilot_pool_problems",
    "autopilot_pool_view",
    "autopilot_problems",
    "autopilot_spec",
    "version_problems",
]
