"""What the example program needs of a GKE cluster: create a minimal one, or attach to an existing one.

A new cluster is a Standard-mode ``gcp.container.Cluster`` whose default node pool is removed (GKE needs one at
creation: ``initial_node_count`` 1), with Workload Identity (workload pool ``<project>.svc.id.goog``) and a small
system ``NodePool`` for add-ons. One node service account with the roles GKE documents as the minimum
(:data:`~gpu_components.gcp.gke.NODE_SERVICE_ACCOUNT_ROLES`) serves the system pool and every GPU pool. The
Kubernetes provider reaches the cluster through a kubeconfig built from the endpoint and CA certificate that
authenticates with ``gke-gcloud-auth-plugin``
(https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin); the program
marks it secret.

``node_auto_provisioning`` turns on GKE's cluster-level node auto-provisioning with resource limits
(``cluster_autoscaling``: ``enabled`` and one ``resource_limits`` entry each for ``cpu`` in cores, ``memory`` in GB
and each GPU accelerator type, e.g. ``nvidia-l4``). Their limits also apply to the node pools GKE creates for
ComputeClasses, and they are the only limit on a ComputeClass pool's GPUs (:data:`SOURCE_NAP_LIMITS`, "Limitations");
a ComputeClass creates node pools without them from GKE 1.33.3-gke.1136000 on
(:data:`~gpu_components.gcp.compute_class.AUTO_CREATION_WITHOUT_NAP_VERSION`). With them, each GPU accelerator type
a ComputeClass pool allows needs a limit of at least the sum of the ``max_gpus`` of every ComputeClass pool with
those GPUs and the most GPUs of that type of the fixed pools (the limits count every node pool's nodes), and a
``kubernetes_version`` below that version needs ``node_auto_provisioning`` for a ComputeClass pool
(:func:`stack_problems`). With
``existing: true`` the key is refused like the other settings of a new cluster: an existing cluster keeps the limits
it has.

``autopilot: true`` makes the cluster a GKE Autopilot cluster (``enable_autopilot``; no default node pool to remove,
no system pool, no node service account: GKE creates and runs every node). Its pools are workload targets only
(:mod:`gpu_components.gcp.autopilot`), and ``kubernetes_version`` is required, new cluster or existing: it decides the
GPU pods' node selector. The keys that shape nodes (:data:`AUTOPILOT_REFUSED`) are refused with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
from gpu_components.adapter import (
    ProvisionedCluster,
    SystemPoolSizes,
    VersionForm,
    example_cluster_problems,
    system_instance_type_problems,
)
from gpu_components.cloud_facts import CLOUDS
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp._sdk import gcp
from gpu_components.gcp.autopilot import SOURCE_AUTOPILOT_GPUS
from gpu_components.gcp.compute_class import (
    AUTO_CREATION_WITHOUT_NAP_VERSION,
    SHARING_MIN_GKE_VERSION,
    SOURCE_CRD,
    compute_class_accelerator_types,
)
from gpu_components.gcp.facts import MACHINE_TYPE_FORM, NODE_POOL_OPTIONS, REGION_FORM
from gpu_components.gcp.gke import (
    CLOUD_PLATFORM_SCOPE,
    N1_ATTACHED_GPUS,
    accelerator_type_for,
    cluster_problems,
    create_node_service_account,
    zone_size_problems,
)
from gpu_components.labels import SYSTEM_ROLE_LABEL
from gpu_components.shape import STRICT
from gpu_components.spec import GpuNodePoolSpec, Mps

SYSTEM_MACHINE_TYPE = "e2-standard-4"
"""Machine type of the small system node pool that runs add-ons (kube-dns, metrics, the GPU stack's controllers)."""
RELEASE_CHANNEL = "REGULAR"
"""GKE release channel of a new cluster: GKE's default channel, which picks and upgrades the version."""
AUTH_PLUGIN = "gke-gcloud-auth-plugin"
"""The kubectl credential plugin GKE requires since Kubernetes 1.26."""
SYSTEM_SIZES = SystemPoolSizes("system_node_pool", ("min_size", "desired_size", "max_size"), (1, 1, 3))
"""The system pool's node counts (autoscaling totals and initial count): 1 to 3 nodes, 1 at creation."""
NEW_CLUSTER_ONLY = (
    "kubernetes_version",
    "network",
    "subnetwork",
    "deletion_protection",
    "system_node_pool",
    "node_auto_provisioning",
)
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true`` (but
``kubernetes_version`` with ``autopilot``, where it says which version the existing cluster runs)."""
AUTOPILOT_REFUSED = ("system_node_pool", "node_auto_provisioning", "node_service_account", "node_locations")
"""``cluster`` keys refused with ``autopilot``: each places, sizes or runs nodes of node pools, and an Autopilot
cluster has none of the program's (:data:`~gpu_components.gcp.autopilot.SOURCE_AUTOPILOT_GPUS`)."""


@STRICT
class SystemNodePoolConfig(TypedDict):
    """The non-GPU node pool for cluster add-ons. Defaults: ``e2-standard-4``, 1 to 3 nodes, 1 at creation."""

    machine_type: NotRequired[str]
    min_size: NotRequired[int]
    max_size: NotRequired[int]
    desired_size: NotRequired[int]


SOURCE_NAP_LIMITS = "https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning"
"""GKE's node pool auto-creation page: cluster resource limits (``cpu``, ``memory`` in GB, GPU accelerator types),
that they also apply to the node pools GKE creates for ComputeClasses, and that before GKE 1.33.3-gke.1136000 a
ComputeClass gets node pools only with cluster-level node auto-provisioning ("Limitations")."""
SOURCE_NAP_CONCEPTS = "https://cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning"
"""GKE's "About node auto-provisioning" page, "Resource limits": the cluster-level limits "are enforced based on the
total ... resources used across all node pools, not just auto-provisioned pools"."""


@STRICT
class NodeAutoProvisioningConfig(TypedDict):
    """Cluster-level node auto-provisioning of a new cluster: the most resources all auto-created nodes may have.

    Fields:
        cpu: most vCPUs (cores) in all, >= 1.
        memory_gb: most memory in GB in all, >= 1.
        gpus: GPU accelerator type (``nvidia-l4``, ``nvidia-h100-80gb``...) -> most GPUs of that type in all, each
            >= 1; the limit of the ComputeClass pools with those GPUs (their ``max_gpus``). Defaults to none (no GPU
            node can be auto-provisioned).
    """

    cpu: int
    memory_gb: int
    gpus: NotRequired[dict[str, int]]


@STRICT
class GkeClusterConfig(TypedDict):
    """``cluster`` config on GCP.

    Fields:
        name: GKE cluster name (created, or looked up when ``existing``).
        location: the cluster's region or zone, e.g. ``us-central1`` or ``us-central1-a``.
        project: the project. Defaults to the ``gcp:project`` config; one of them is required (it names the
            Workload Identity pool).
        existing: attach to the existing cluster ``name`` instead of creating one. Defaults to False.
        kubernetes_version: minimum control-plane version of a new cluster. Defaults to the release channel's.
        network, subnetwork: VPC of a new cluster. Defaults to the project's ``default`` network.
        node_locations: zones for the GPU pools' nodes (zones that offer the GPUs). Defaults to the cluster's.
        node_service_account: email of the nodes' service account. Defaults to one created for all pools
            (required to be given with ``existing`` only if the pools should not each create their own).
        deletion_protection: GKE's deletion protection of a new cluster. Defaults to True (the provider's
            default); set False before ``pulumi destroy``.
        system_node_pool: see :class:`SystemNodePoolConfig` (new clusters only).
        node_auto_provisioning: see :class:`NodeAutoProvisioningConfig` (new clusters only). Defaults to off.
        autopilot: a GKE Autopilot cluster (created with Autopilot, or an existing one): GKE creates the GPU nodes
            for the pods and runs their driver and device plugin; the pools are workload targets only, and
            ``kubernetes_version`` is required (it decides whether GPU pods select
            ``cloud.google.com/compute-class: Accelerator``). Defaults to false (GKE Standard).
    """

    name: str
    location: str
    project: NotRequired[str]
    existing: NotRequired[bool]
    kubernetes_version: NotRequired[str]
    network: NotRequired[str]
    subnetwork: NotRequired[str]
    node_locations: NotRequired[list[str]]
    node_service_account: NotRequired[str]
    deletion_protection: NotRequired[bool]
    system_node_pool: NotRequired[SystemNodePoolConfig]
    node_auto_provisioning: NotRequired[NodeAutoProvisioningConfig]
    autopilot: NotRequired[bool]


def cluster_autoscaling(config: NodeAutoProvisioningConfig) -> dict[str, Any]:
    """The ``gcp.container.Cluster`` ``cluster_autoscaling`` of a ``node_auto_provisioning`` config: enabled, and
    the limits of ``cpu``, ``memory`` and each accelerator type (sorted), each from 0."""
    limits = [("cpu", config["cpu"]), ("memory", config["memory_gb"]), *sorted(config.get("gpus", {}).items())]
    return {
        "enabled": True,
        "resource_limits": [
            {"resource_type": resource, "minimum": 0, "maximum": maximum} for resource, maximum in limits
        ],
    }


def _accelerator_types() -> list[str]:
    """Every GPU accelerator type of the catalog's GCP machine types and attachable GPUs."""
    found = {t.accelerator_type for t in catalog.instance_types("gcp") if t.accelerator_type is not None}
    found |= {catalog.gcp_accelerator_type(model) for model in N1_ATTACHED_GPUS}
    return sorted(found)


def _auto_provisioning_problems(config: Mapping[str, Any]) -> list[Problem]:
    path = "cluster.node_auto_provisioning"
    problems = [
        Problem(f"{path}.{key}", config[key], "a limit of at least 1", ">= 1", SOURCE_NAP_LIMITS)
        for key in ("cpu", "memory_gb")
        if config.get(key, 1) < 1
    ]
    known = _accelerator_types()
    for accelerator, maximum in config.get("gpus", {}).items():
        if accelerator not in known:
            problems.append(
                Problem(
                    f"{path}.gpus[{accelerator!r}]", accelerator, "not a GKE GPU accelerator type", ", ".join(known)
                )
            )
        elif maximum < 1:
            problems.append(
                Problem(f"{path}.gpus[{accelerator!r}]", maximum, "a limit of at least 1", ">= 1", SOURCE_NAP_LIMITS)
            )
    return problems


def gke_kubeconfig(cluster_name: str, endpoint: str, ca_certificate: str) -> str:
    """A kubeconfig (JSON) for a GKE cluster: server ``https://<endpoint>``, the cluster CA (base64, as GKE gives
    it), and a user that gets tokens from ``gke-gcloud-auth-plugin``."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": cluster_name,
                    "cluster": {"server": f"https://{endpoint}", "certificate-authority-data": ca_certificate},
                }
            ],
            "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
            "current-context": cluster_name,
            "users": [
                {
                    "name": cluster_name,
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": AUTH_PLUGIN,
                            "installHint": "Install gke-gcloud-auth-plugin: "
                            "gcloud components install gke-gcloud-auth-plugin",
                            "provideClusterInfo": True,
                        }
                    },
                }
            ],
        },
        sort_keys=True,
    )


def _project(cluster: GkeClusterConfig) -> str | None:
    return cluster.get("project") or pulumi.Config("gcp").get("project")


def _wiring(cluster: GkeClusterConfig, cluster_name: pulumi.Input[str], project: str | None) -> dict[str, Any]:
    wiring: dict[str, Any] = {"cluster": cluster_name, "location": cluster["location"]}
    if project is not None:
        wiring["project"] = project
    if "node_locations" in cluster:
        wiring["node_locations"] = cluster["node_locations"]
    if "node_service_account" in cluster:
        wiring["service_account"] = cluster["node_service_account"]
    if cluster.get("autopilot", False):
        wiring["autopilot"] = True
        wiring["kubernetes_version"] = cluster["kubernetes_version"]
    return wiring


def _cluster_args(cluster: GkeClusterConfig, project: str) -> dict[str, Any]:
    """The ``gcp.container.Cluster`` arguments an Autopilot and a Standard cluster share: name, location, project,
    GKE's release channel with ``min_master_version`` the config's ``kubernetes_version``, network and deletion
    protection (on unless the config turns it off)."""
    return {
        "name": cluster["name"],
        "location": cluster["location"],
        "project": project,
        "release_channel": {"channel": RELEASE_CHANNEL},
        "min_master_version": cluster.get("kubernetes_version"),
        "network": cluster.get("network"),
        "subnetwork": cluster.get("subnetwork"),
        "deletion_protection": cluster.get("deletion_protection", True),
    }


def _create_autopilot(cluster: GkeClusterConfig, project: str) -> ProvisionedCluster:
    """A new GKE Autopilot cluster: ``enable_autopilot``, GKE's release channel and ``min_master_version`` the
    config's ``kubernetes_version``; no node pool of the program's."""
    name = cluster["name"]
    gke = gcp.container.Cluster(name, enable_autopilot=True, **_cluster_args(cluster, project))
    kubeconfig = pulumi.Output.all(gke.endpoint, gke.master_auth).apply(
        lambda parts: gke_kubeconfig(name, parts[0], _ca_certificate(parts[1]))
    )
    return ProvisionedCluster(kubeconfig=kubeconfig, wiring=_wiring(cluster, gke.name, project), depends_on=[gke])


def _create(cluster: GkeClusterConfig) -> ProvisionedCluster:
    name = cluster["name"]
    project = _project(cluster)
    if project is None:
        raise GpuSpecError(config_problems(cluster))
    if cluster.get("autopilot", False):
        return _create_autopilot(cluster, project)
    gke = gcp.container.Cluster(
        name,
        remove_default_node_pool=True,
        initial_node_count=1,
        workload_identity_config={"workload_pool": f"{project}.svc.id.goog"},
        **_cluster_args(cluster, project),
        cluster_autoscaling=(
            cluster_autoscaling(cluster["node_auto_provisioning"]) if "node_auto_provisioning" in cluster else None
        ),
    )
    depends_on: list[pulumi.Resource] = []
    service_account: pulumi.Input[str]
    if "node_service_account" in cluster:
        service_account = cluster["node_service_account"]
    else:
        account, depends_on = create_node_service_account(f"{name}-nodes", project)
        service_account = account.email
    system = cluster.get("system_node_pool", {})
    counts = SYSTEM_SIZES.counts(cluster)
    system_pool = gcp.container.NodePool(
        f"{name}-system",
        name="system",
        cluster=gke.name,
        location=cluster["location"],
        project=project,
        initial_node_count=counts["desired_size"],
        autoscaling={"total_min_node_count": counts["min_size"], "total_max_node_count": counts["max_size"]},
        node_config={
            "machine_type": system.get("machine_type", SYSTEM_MACHINE_TYPE),
            "service_account": service_account,
            "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
            "labels": {SYSTEM_ROLE_LABEL: "system"},
        },
        opts=pulumi.ResourceOptions(
            depends_on=[gke, *depends_on], ignore_changes=list(NODE_POOL_OPTIONS.ignore_changes)
        ),
    )
    kubeconfig = pulumi.Output.all(gke.endpoint, gke.master_auth).apply(
        lambda parts: gke_kubeconfig(name, parts[0], _ca_certificate(parts[1]))
    )
    wiring = _wiring(cluster, gke.name, project)
    wiring["service_account"] = service_account
    return ProvisionedCluster(kubeconfig=kubeconfig, wiring=wiring, depends_on=[gke, system_pool, *depends_on])


def _attach(cluster: GkeClusterConfig) -> ProvisionedCluster:
    project = _project(cluster)
    found = gcp.container.get_cluster_output(name=cluster["name"], location=cluster["location"], project=project)
    kubeconfig = pulumi.Output.all(found.endpoint, found.master_auths).apply(
        lambda parts: gke_kubeconfig(cluster["name"], parts[0], _ca_certificate(parts[1][0]))
    )
    return ProvisionedCluster(kubeconfig=kubeconfig, wiring=_wiring(cluster, cluster["name"], project))


def _ca_certificate(master_auth: Any) -> str:
    """The base64 CA certificate of a ``master_auth`` block (an output object, or a plain mapping under mocks)."""
    if isinstance(master_auth, Mapping):
        value = master_auth.get("cluster_ca_certificate", master_auth.get("clusterCaCertificate"))
    else:
        value = getattr(master_auth, "cluster_ca_certificate", None)
    return str(value or "")


def config_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """Rules of the ``cluster`` config beyond its shape: a project, from ``cluster.project`` or ``gcp:project``;
    ``node_auto_provisioning`` limits of at least 1 and GPU accelerator types of the catalog;
    the rules of :func:`~gpu_components.adapter.example_cluster_problems` (:data:`NEW_CLUSTER_ONLY`,
    :data:`SYSTEM_SIZES`); ``name`` and ``location`` are a GKE cluster's name and a region or zone
    (:func:`~gpu_components.gcp.gke.cluster_problems`); the ``gcp:region`` config, when set, a region
    (:data:`~gpu_components.gcp.facts.REGION_FORM`); ``system_node_pool.machine_type`` is a machine type the
    catalog knows or at least of a machine type's form
    (:func:`~gpu_components.adapter.system_instance_type_problems`)."""
    autopilot = cluster.get("autopilot") is True
    new_only = tuple(key for key in NEW_CLUSTER_ONLY if not (autopilot and key == "kubernetes_version"))
    problems = example_cluster_problems(cluster, new_only, SYSTEM_SIZES, VERSION_FORM)
    problems += cluster_problems(cluster, "cluster.", "name")
    problems += REGION_FORM.problems(pulumi.Config("gcp").get("region"), "gcp:region")
    system = cluster.get("system_node_pool")
    problems += system_instance_type_problems(
        "gcp",
        system.get("machine_type") if isinstance(system, Mapping) else None,
        "cluster.system_node_pool.machine_type",
        MACHINE_TYPE_FORM,
    )
    if autopilot:
        problems += [
            Problem(
                f"cluster.{key}",
                cluster[key],
                "an Autopilot cluster has no node pools of the program's: GKE creates, sizes and runs every node",
                f"no {key} with autopilot",
                SOURCE_AUTOPILOT_GPUS,
            )
            for key in AUTOPILOT_REFUSED
            if key in cluster and not (cluster.get("existing", False) and key in new_only)
        ]
    elif not cluster.get("existing", False) and "node_auto_provisioning" in cluster:
        problems += _auto_provisioning_problems(cluster["node_auto_provisioning"])
    if _project(cast(GkeClusterConfig, cluster)) is None:
        problems.append(
            Problem(
                "cluster.project",
                None,
                "required when the gcp:project config is not set (it names the Workload Identity pool)",
            )
        )
    return problems


def _gke_version(text: str) -> tuple[int, ...] | None:
    """``1.33.3-gke.1136000`` -> ``(1, 33, 3, 1136000)``; a prefix (``1.33``, ``1.33.3``) gives its parts only;
    ``None`` for anything else (``latest``, ``-``: GKE's own spellings, left to GKE)."""
    match = _GKE_VERSION.fullmatch(text)
    return None if match is None else tuple(int(part) for part in match.groups() if part is not None)


_GKE_VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(?:-gke\.(\d+))?)?")
"""A GKE version; Kubernetes writes its numbers without a leading zero (``1.036`` is no version)."""
VERSION_FORM = VersionForm(
    re.compile(rf"{_GKE_VERSION.pattern}|latest|-"),
    "MAJOR.MINOR, MAJOR.MINOR.PATCH or MAJOR.MINOR.PATCH-gke.N (e.g. 1.33.3-gke.1136000), latest, or - (the default)",
    "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters#Cluster",
)
"""A new cluster's ``kubernetes_version`` (``initialClusterVersion``'s forms)."""


def below_version(kubernetes_version: str, first: str) -> bool:
    """Whether every GKE version ``kubernetes_version`` names is below ``first``, a full GKE version: with ``first``
    :data:`~gpu_components.gcp.compute_class.AUTO_CREATION_WITHOUT_NAP_VERSION` (1.33.3-gke.1136000), ``1.32``,
    ``1.33.2`` and ``1.33.3-gke.1000`` are; a prefix that also names later versions (``1.33``, ``1.33.3``), ``latest``
    and ``-`` (the release channel's default, which the library cannot know) are not."""
    given = _gke_version(kubernetes_version)
    known = _gke_version(first)
    return given is not None and known is not None and given < known[: len(given)]


def _gpu_pool_specs(pools: Sequence[Any]) -> list[tuple[int, GpuNodePoolSpec]]:
    """(index, spec) of each pool that is valid on its own (a pool with problems is left to its own rules)."""
    specs: list[tuple[int, GpuNodePoolSpec]] = []
    for index, pool in enumerate(pools):
        if not isinstance(pool, Mapping):
            continue
        try:
            specs.append(
                (
                    index,
                    GpuNodePoolSpec.from_args(
                        {key: value for key, value in pool.items() if key not in CLOUDS}, "gcp", f"pools[{index}]"
                    ),
                )
            )
        except GpuSpecError:
            continue
    return specs


def stack_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Rules between the ``cluster`` config and the pools: a new cluster's ``node_auto_provisioning`` and its
    ComputeClass pools, and the zones of the fixed pools.

    - With ``node_auto_provisioning``: its limits are cluster-wide and count every node pool's nodes, fixed pools'
      too ("enforced based on the total ... resources used across all node pools, not just auto-provisioned pools":
      :data:`SOURCE_NAP_CONCEPTS`, "Resource limits"); they also bound the node pools GKE creates for a
      ComputeClass, and GKE creates no node past a limit, nor one with GPUs that have no limit
      (:data:`SOURCE_NAP_LIMITS`). So each accelerator type a ComputeClass pool allows needs a limit of at least
      the sum of the ``max_gpus`` of every ComputeClass pool allowing it and the most GPUs of that type of every
      fixed pool (``max_size`` x GPUs per node): below it, the ComputeClass pools could never reach their
      ``max_gpus`` (:func:`~gpu_components.gcp.compute_class.compute_class_autoscaler_note`). One problem per
      accelerator type.
    - Without it, on a ``kubernetes_version`` below
      :data:`~gpu_components.gcp.compute_class.AUTO_CREATION_WITHOUT_NAP_VERSION` (:func:`below_version`),
      a ComputeClass pool is refused: before that version GKE creates node pools for a ComputeClass only with
      cluster-level node auto-provisioning (:data:`SOURCE_NAP_LIMITS`, "Limitations"), so it would create none.
      From that version on (the release channel's default), GKE applies no limit to a ComputeClass.
    - On a ``kubernetes_version`` below :data:`~gpu_components.gcp.compute_class.SHARING_MIN_GKE_VERSION`
      (:func:`below_version`), a ComputeClass pool with time-slicing, MPS or MIG is refused at its sharing field: its
      rules carry ``gpu.gpuSharing``, which ComputeClasses have only from that version on. A prefix that also names
      later versions, ``latest`` and ``-`` are left to GKE.

    - A fixed pool's ``max_size`` fits GKE's nodes per node pool zone over ``cluster.node_locations`` (or the one
      zone of a zonal ``cluster.location``), new or existing cluster
      (:func:`~gpu_components.gcp.gke.zone_size_problems`).

    An existing cluster keeps its own settings: nothing else to check. A pool with problems of its own is left to
    its own rules."""
    if cluster.get("autopilot") is True:  # no node pool: the Autopilot rules are the pools' (gcp.autopilot)
        return []
    specs = _gpu_pool_specs(pools)
    zones = [
        problem
        for index, spec in specs
        if spec.provisioning is None
        for problem in zone_size_problems(
            spec,
            cluster.get("node_locations"),
            f"pools[{index}]",
            "cluster.node_locations",
            cluster.get("location"),
            "cluster.location",
        )
    ]
    if cluster.get("existing", False):
        return zones
    classes = [
        (index, spec)
        for index, spec in specs
        if spec.provisioning is not None and spec.provisioning.provisioner == "compute-class"
    ]
    version = cluster.get("kubernetes_version")
    version = version if isinstance(version, str) else "-"
    problems = zones + _sharing_version_problems(classes, version)
    config = cluster.get("node_auto_provisioning")
    if not isinstance(config, Mapping):
        if not below_version(version, AUTO_CREATION_WITHOUT_NAP_VERSION):
            return problems
        return problems + [
            Problem(
                "cluster.node_auto_provisioning",
                None,
                f"required for {_which(index, spec)} on kubernetes_version {version}: before GKE "
                f"{AUTO_CREATION_WITHOUT_NAP_VERSION} GKE creates node pools for a ComputeClass only with the "
                "cluster's node auto-provisioning on, so it would create none",
                f"node_auto_provisioning with limits on the pool's GPUs, or kubernetes_version "
                f"{AUTO_CREATION_WITHOUT_NAP_VERSION} or later",
                SOURCE_NAP_LIMITS,
            )
            for index, spec in classes
        ]
    limits: Mapping[str, int] = config.get("gpus", {})
    path = "cluster.node_auto_provisioning.gpus"
    # accelerator type -> (what each pool may hold of it, as text; the sum)
    needs: dict[str, list[tuple[str, int]]] = {}
    for index, spec in classes:
        max_gpus = spec.provisioning.max_gpus if spec.provisioning is not None else None
        for accelerator in compute_class_accelerator_types(spec):
            needs.setdefault(accelerator, []).append(
                (f"max_gpus {max_gpus or 0} of {_which(index, spec)}", max_gpus or 0)
            )
    for index, spec in specs:
        accelerator = accelerator_type_for(spec)
        if spec.provisioning is None and accelerator in needs:
            most = spec.max_size * spec.gpu_count
            needs[accelerator].append(
                (
                    f"{most} of pools[{index}] ({spec.name}, a fixed pool, "
                    f"max_size {spec.max_size} x {spec.gpu_count})",
                    most,
                )
            )
    for accelerator, parts in sorted(needs.items()):
        total = sum(most for _, most in parts)
        held = " + ".join(text for text, _ in parts)
        limit = limits.get(accelerator)
        if limit is None:
            problems.append(
                Problem(
                    path,
                    dict(limits),
                    f"no limit on {accelerator}, the GPUs of {held}: GKE creates no node with GPUs the cluster's "
                    "node auto-provisioning has no limit on, and those limits also bound the node pools it creates "
                    "for a ComputeClass",
                    f"{accelerator}: {total} or more",
                    SOURCE_NAP_LIMITS,
                )
            )
        elif limit < total:
            problems.append(
                Problem(
                    f"{path}[{accelerator!r}]",
                    limit,
                    f"below the {total} {accelerator} GPUs the cluster's pools may hold ({held}): the limit is "
                    "cluster-wide and counts every node pool's GPUs, fixed pools' too, so the ComputeClass pools "
                    "could never reach their max_gpus",
                    f"{total} or more",
                    f"{SOURCE_NAP_LIMITS}; {SOURCE_NAP_CONCEPTS}",
                )
            )
    return problems


def _sharing_version_problems(classes: Sequence[tuple[int, GpuNodePoolSpec]], version: str) -> list[Problem]:
    """ComputeClass pools that share or partition their GPUs on a ``kubernetes_version`` that names only GKE versions
    before :data:`~gpu_components.gcp.compute_class.SHARING_MIN_GKE_VERSION`: one problem per pool, at
    ``cluster.kubernetes_version``, naming the pool's sharing fields (``time_slicing``, ``mps``, ``mig``)."""
    if not below_version(version, SHARING_MIN_GKE_VERSION):
        return []
    problems: list[Problem] = []
    for index, spec in classes:
        fields = [] if spec.sharing is None else ["mps" if isinstance(spec.sharing, Mps) else "time_slicing"]
        fields += ["mig"] if spec.mig is not None else []
        if fields:
            problems.append(
                Problem(
                    "cluster.kubernetes_version",
                    version,
                    f"{_which(index, spec)} shares its GPUs ({', '.join(f'pools[{index}].{f}' for f in fields)}) "
                    f"through the ComputeClass's gpu.gpuSharing, which GKE has only from {SHARING_MIN_GKE_VERSION} on",
                    f"{SHARING_MIN_GKE_VERSION} or later (or latest); or a fixed GKE pool (no provisioning) for GPU "
                    "sharing on earlier versions",
                    SOURCE_CRD,
                )
            )
    return problems


def _which(index: int, spec: GpuNodePoolSpec) -> str:
    return f"pools[{index}] ({spec.name}, a ComputeClass pool)"


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the GKE cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(GkeClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
