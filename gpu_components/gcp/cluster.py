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
of a ComputeClass pool needs a limit of at least the pool's ``max_gpus`` (:func:`stack_problems`). With
``existing: true`` the key is refused like the other settings of a new cluster: an existing cluster keeps the limits
it has.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components import catalog
from gpu_components.adapter import ProvisionedCluster, SystemPoolSizes, example_cluster_problems
from gpu_components.cloud_facts import CLOUDS
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp._sdk import gcp
from gpu_components.gcp.compute_class import compute_class_accelerator_types
from gpu_components.gcp.facts import NODE_POOL_OPTIONS
from gpu_components.gcp.gke import CLOUD_PLATFORM_SCOPE, N1_ATTACHED_GPUS, create_node_service_account
from gpu_components.shape import STRICT
from gpu_components.spec import SYSTEM_ROLE_LABEL, GpuNodePoolSpec

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
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true``."""


@STRICT
class SystemNodePoolConfig(TypedDict):
    """The non-GPU node pool for cluster add-ons. Defaults: ``e2-standard-4``, 1 to 3 nodes, 1 at creation."""

    machine_type: NotRequired[str]
    min_size: NotRequired[int]
    max_size: NotRequired[int]
    desired_size: NotRequired[int]


SOURCE_NAP_LIMITS = "https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning"
"""GKE's node pool auto-creation page: cluster resource limits (``cpu``, ``memory`` in GB, GPU accelerator types) and
that they also apply to the node pools GKE creates for ComputeClasses."""


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
    return wiring


def _create(cluster: GkeClusterConfig) -> ProvisionedCluster:
    name = cluster["name"]
    project = _project(cluster)
    if project is None:
        raise GpuSpecError(config_problems(cluster))
    gke = gcp.container.Cluster(
        name,
        name=name,
        location=cluster["location"],
        project=project,
        remove_default_node_pool=True,
        initial_node_count=1,
        workload_identity_config={"workload_pool": f"{project}.svc.id.goog"},
        release_channel={"channel": RELEASE_CHANNEL},
        min_master_version=cluster.get("kubernetes_version"),
        network=cluster.get("network"),
        subnetwork=cluster.get("subnetwork"),
        deletion_protection=cluster.get("deletion_protection", True),
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
    :data:`SYSTEM_SIZES`)."""
    problems = example_cluster_problems(cluster, NEW_CLUSTER_ONLY, SYSTEM_SIZES)
    if not cluster.get("existing", False) and "node_auto_provisioning" in cluster:
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


def stack_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Rules between a new cluster's ``node_auto_provisioning`` and its ComputeClass pools: the cluster's limits also
    bound the node pools GKE creates for a ComputeClass, and the autoscaler creates no node past a limit
    (:data:`SOURCE_NAP_LIMITS`), a GPU accelerator type without a limit counting as none of it (see
    :class:`NodeAutoProvisioningConfig`). So each accelerator type a ComputeClass pool allows needs a limit of at
    least the pool's ``max_gpus``, which is what holds the pool
    (:func:`~gpu_components.gcp.compute_class.compute_class_autoscaler_note`). Without ``node_auto_provisioning``
    GKE applies no limit to a ComputeClass (from GKE 1.33.3-gke.1136000), and an existing cluster keeps its own:
    nothing to check. A pool with problems of its own is left to its own rules."""
    config = cluster.get("node_auto_provisioning")
    if cluster.get("existing", False) or not isinstance(config, Mapping):
        return []
    limits: Mapping[str, int] = config.get("gpus", {})
    path = "cluster.node_auto_provisioning.gpus"
    problems: list[Problem] = []
    for index, pool in enumerate(pools):
        if not isinstance(pool, Mapping) or not isinstance(pool.get("provisioning"), Mapping):
            continue
        try:
            spec = GpuNodePoolSpec.from_args(
                {key: value for key, value in pool.items() if key not in CLOUDS}, "gcp", f"pools[{index}]"
            )
        except GpuSpecError:
            continue
        if spec.provisioning is None or spec.provisioning.provisioner != "compute-class":
            continue
        max_gpus = spec.provisioning.max_gpus
        which = f"pools[{index}] ({spec.name}, a ComputeClass pool, max_gpus {max_gpus})"
        for accelerator in compute_class_accelerator_types(spec):
            limit = limits.get(accelerator)
            if limit is None:
                problems.append(
                    Problem(
                        path,
                        dict(limits),
                        f"no limit on {accelerator}, the GPUs of {which}: GKE creates no node with GPUs the "
                        "cluster's node auto-provisioning has no limit on, and those limits also bound the node "
                        "pools it creates for a ComputeClass",
                        f"{accelerator}: {max_gpus} or more",
                        SOURCE_NAP_LIMITS,
                    )
                )
            elif max_gpus is not None and limit < max_gpus:
                problems.append(
                    Problem(
                        f"{path}[{accelerator!r}]",
                        limit,
                        f"below the max_gpus of {which}: the cluster's limit on {accelerator} is what holds the "
                        f"pool, which could never have more than {limit}",
                        f"{max_gpus} or more",
                        SOURCE_NAP_LIMITS,
                    )
                )
    return problems


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the GKE cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(GkeClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
