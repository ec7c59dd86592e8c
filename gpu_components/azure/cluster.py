"""What the example program needs of an AKS cluster: create a minimal one, or attach to an existing one.

A new cluster is a resource group and a ``ManagedCluster`` with a system-assigned managed identity and a small
``System`` pool for add-ons; the GPU pools are separate ``AgentPool`` resources (AKS refuses to add pools through
the managed cluster once it exists), or, with ``node_auto_provisioning``, Node Auto Provisioning NodePools. The
kubeconfig is the cluster user credential from ``listManagedClusterUserCredentials``, base64-decoded; the program
marks it secret.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    ProvisionedCluster,
    SystemPoolSizes,
    VersionForm,
    example_cluster_problems,
    system_instance_type_problems,
)
from gpu_components.azure._sdk import azure_native
from gpu_components.azure.aks import names_problems
from gpu_components.azure.facts import LOCATION_FORM, VM_SIZE_FORM
from gpu_components.errors import Problem
from gpu_components.shape import STRICT
from gpu_components.spec import GpuNodePoolSpec

DEFAULT_KUBERNETES_VERSION = "1.34"
"""Kubernetes version of a new AKS cluster: in AKS standard support in late 2026 (AKS Kubernetes release calendar,
https://learn.microsoft.com/azure/aks/supported-kubernetes-versions)."""
SYSTEM_VM_SIZE = "Standard_D4ds_v5"
"""VM size of the system pool that runs add-ons (CoreDNS, metrics-server, the device plugin's controller): 4 vCPUs,
16 GiB, above AKS's system pool minimum of 2 vCPUs and 4 GB."""
SYSTEM_POOL_NAME = "system"
"""AKS name of the system pool."""
SYSTEM_SIZES = SystemPoolSizes(
    "system_node_pool",
    ("min_count", "count", "max_count"),
    (1, 2, 3),
    floor=1,
    floor_source="https://learn.microsoft.com/azure/aks/use-system-pools (system pools need at least one node)",
)
"""The system pool's node counts (autoscaler bounds and count at creation): 1 to 3 nodes, 2 at creation."""
VERSION_FORM = VersionForm(
    re.compile(r"(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))?"),  # no leading zero (1.036 is no version)
    "MAJOR.MINOR (the latest patch), or MAJOR.MINOR.PATCH, e.g. 1.34",
    "https://learn.microsoft.com/azure/aks/supported-kubernetes-versions",
)
"""A new cluster's ``kubernetes_version``: AKS takes a minor version (then its latest patch) or a patch version."""
NEW_CLUSTER_ONLY = ("location", "kubernetes_version", "system_node_pool")
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true``."""

SOURCE_NAP = "https://learn.microsoft.com/azure/aks/node-auto-provisioning"
"""NAP's limits: not on a cluster with the Cluster Autoscaler; managed identity only; Standard Load Balancer."""
SOURCE_NAP_ENABLE = "https://learn.microsoft.com/azure/aks/use-node-auto-provisioning"
"""How to turn NAP on: ``nodeProvisioningProfile.mode: Auto``, with Azure CNI overlay and the Cilium data plane."""
SOURCE_NAP_NETWORKING = "https://learn.microsoft.com/azure/aks/node-auto-provisioning-networking"
"""NAP's networking: Azure CNI (overlay or node subnet), Cilium recommended; kubenet and Calico not supported."""
NAP_NETWORK_PROFILE: dict[str, str] = {
    "network_plugin": "azure",
    "network_plugin_mode": "overlay",
    "network_dataplane": "cilium",
}
"""The network profile of a new cluster with Node Auto Provisioning: Azure CNI overlay with the Cilium data plane,
what AKS's NAP guide creates (``az aks create --node-provisioning-mode Auto --network-plugin azure
--network-plugin-mode overlay --network-dataplane cilium``, :data:`SOURCE_NAP_ENABLE`) and recommends
(:data:`SOURCE_NAP_NETWORKING`). Clusters without NAP keep AKS's default network profile."""
NAP_FIXED_SYSTEM_KEYS = ("min_count", "max_count")
"""System pool keys that configure the Cluster Autoscaler, which a NAP cluster may not run: its system pool has a
fixed ``count``."""


@STRICT
class SystemNodePoolConfig(TypedDict):
    """The non-GPU ``System`` pool for cluster add-ons. Defaults: ``Standard_D4ds_v5``, 1 to 3 nodes, 2 at
    creation."""

    vm_size: NotRequired[str]
    min_count: NotRequired[int]
    max_count: NotRequired[int]
    count: NotRequired[int]


@STRICT
class AksClusterConfig(TypedDict):
    """``cluster`` config on Azure.

    Fields:
        name: AKS cluster name (created, or attached to when ``existing``).
        existing: attach to the existing cluster ``name`` in ``resource_group_name`` instead of creating one.
            Defaults to False.
        resource_group_name: resource group of the cluster. Required with ``existing``; for a new cluster,
            defaults to a new group named ``<name>-rg`` plus a random suffix.
        location: Azure region of a new cluster. Defaults to the provider's ``azure-native:location``.
        kubernetes_version: version of a new cluster. Defaults to ``1.34``.
        system_node_pool: see :class:`SystemNodePoolConfig` (new clusters only).
        node_auto_provisioning: AKS Node Auto Provisioning (NAP) on the cluster, which pools with ``provisioning``
            need. A new cluster gets ``nodeProvisioningProfile.mode: Auto``, Azure CNI overlay with Cilium, and a
            system pool of a fixed ``count`` (NAP may not run beside the Cluster Autoscaler, so
            ``system_node_pool.min_count``/``max_count`` and fixed GPU pools are refused). With ``existing`` it
            states that the existing cluster has NAP on (the program cannot check). Defaults to False.
    """

    name: str
    existing: NotRequired[bool]
    resource_group_name: NotRequired[str]
    location: NotRequired[str]
    kubernetes_version: NotRequired[str]
    system_node_pool: NotRequired[SystemNodePoolConfig]
    node_auto_provisioning: NotRequired[bool]


def decode_kubeconfig(kubeconfigs: Sequence[Any]) -> str:
    """The first credential of a ``listManagedClusterUserCredentials`` result, decoded from base64."""
    return base64.b64decode(kubeconfigs[0].value).decode()


def _kubeconfig(resource_group_name: pulumi.Input[str], cluster_name: pulumi.Input[str]) -> pulumi.Output[str]:
    credentials = azure_native.containerservice.list_managed_cluster_user_credentials_output(
        resource_group_name=resource_group_name, resource_name=cluster_name
    )
    kubeconfig: pulumi.Output[str] = credentials.kubeconfigs.apply(decode_kubeconfig)
    return kubeconfig


def _create(cluster: AksClusterConfig) -> ProvisionedCluster:
    name = cluster["name"]
    group_args: dict[str, Any] = {}
    if "resource_group_name" in cluster:
        group_args["resource_group_name"] = cluster["resource_group_name"]
    if "location" in cluster:
        group_args["location"] = cluster["location"]
    group = azure_native.resources.ResourceGroup(f"{name}-rg", **group_args)
    system = cluster.get("system_node_pool", {})
    counts = SYSTEM_SIZES.counts(cluster)
    nap = cluster.get("node_auto_provisioning", False)
    system_pool: azure_native.containerservice.ManagedClusterAgentPoolProfileArgsDict = {
        "name": SYSTEM_POOL_NAME,
        "mode": "System",
        "os_type": "Linux",
        "type": "VirtualMachineScaleSets",
        "vm_size": system.get("vm_size", SYSTEM_VM_SIZE),
        "count": counts["count"],
    }
    if not nap:
        system_pool.update(enable_auto_scaling=True, min_count=counts["min_count"], max_count=counts["max_count"])
    identity: azure_native.containerservice.ManagedClusterIdentityArgsDict = {
        "type": azure_native.containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
    }
    nap_args: dict[str, Any] = (
        {"node_provisioning_profile": {"mode": "Auto"}, "network_profile": dict(NAP_NETWORK_PROFILE)} if nap else {}
    )
    managed = azure_native.containerservice.ManagedCluster(
        name,
        resource_group_name=group.name,
        resource_name_=name,
        location=group.location,
        dns_prefix=name,
        kubernetes_version=cluster.get("kubernetes_version", DEFAULT_KUBERNETES_VERSION),
        identity=identity,
        agent_pool_profiles=[system_pool],
        **nap_args,
    )
    return ProvisionedCluster(
        kubeconfig=_kubeconfig(group.name, managed.name),
        wiring={"resource_group_name": group.name, "cluster_name": managed.name},
        depends_on=[managed],
    )


def _attach(cluster: AksClusterConfig) -> ProvisionedCluster:
    group, name = cluster["resource_group_name"], cluster["name"]
    return ProvisionedCluster(
        kubeconfig=_kubeconfig(group, name),
        wiring={"resource_group_name": group, "cluster_name": name},
    )


def config_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """Rules of the ``cluster`` config beyond its shape: those of
    :func:`~gpu_components.adapter.example_cluster_problems` (:data:`NEW_CLUSTER_ONLY`, :data:`SYSTEM_SIZES`),
    ``resource_group_name`` is required with ``existing``, and a new NAP cluster's system pool has no autoscaler
    bounds (:data:`NAP_FIXED_SYSTEM_KEYS`); ``name`` and ``resource_group_name`` are an AKS cluster's and a resource
    group's names (:func:`names_problems`); a new cluster has a region, ``location`` or the ``azure-native:location``
    config, of an Azure region's form (:func:`_location_problems`); ``system_node_pool.vm_size`` is a size the
    catalog knows or at least of a VM size's form (:func:`~gpu_components.adapter.system_instance_type_problems`)."""
    problems = example_cluster_problems(
        cluster, NEW_CLUSTER_ONLY, SYSTEM_SIZES, VERSION_FORM, existing_requires=("resource_group_name",)
    )
    problems += names_problems(cluster, "cluster.", "name")
    problems += _location_problems(cluster)
    system = cluster.get("system_node_pool")
    problems += system_instance_type_problems(
        "azure",
        system.get("vm_size") if isinstance(system, Mapping) else None,
        "cluster.system_node_pool.vm_size",
        VM_SIZE_FORM,
    )
    if cluster.get("node_auto_provisioning", False) and not cluster.get("existing", False):
        system = cluster.get("system_node_pool") or {}
        problems += [
            Problem(
                f"cluster.system_node_pool.{key}",
                system[key],
                "Node Auto Provisioning may not run beside the Cluster Autoscaler: the system pool of a NAP cluster "
                "has a fixed count",
                "system_node_pool.count only",
                SOURCE_NAP,
            )
            for key in NAP_FIXED_SYSTEM_KEYS
            if key in system
        ]
    return problems


def _location_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """A new cluster's region: ``location``, else the ``azure-native:location`` config (where the provider puts the
    new resource group and so the cluster), one of them required and each of an Azure region's form
    (:data:`~gpu_components.azure.facts.LOCATION_FORM`)."""
    configured = pulumi.Config("azure-native").get("location")
    problems = LOCATION_FORM.problems(configured, "azure-native:location")
    if cluster.get("existing", False):
        return problems
    if "location" not in cluster and configured is None:
        problems.append(
            Problem(
                "cluster.location",
                None,
                "required when the azure-native:location config is not set: the new resource group and cluster need "
                "a region",
                "an Azure region, e.g. eastus",
            )
        )
    return problems + LOCATION_FORM.problems(cluster.get("location"), "cluster.location")


_FIXED_ON_NAP = (
    "a fixed pool is an agent pool scaled by the Cluster Autoscaler, which a cluster with Node Auto Provisioning may "
    "not run"
)


def pool_mix_problems(specs: Sequence[GpuNodePoolSpec], prefix: str = "") -> list[Problem]:
    """The pools of one cluster are all Node Auto Provisioning pools or all fixed pools: a NAP pool needs NAP on the
    cluster, and a cluster with NAP may not run the Cluster Autoscaler that scales a fixed pool
    (:data:`SOURCE_NAP`). Each fixed pool beside a NAP pool is a problem, at ``<prefix>pools[<i>]``."""
    provisioned = [index for index, spec in enumerate(specs) if spec.provisioning is not None]
    if not provisioned:
        return []
    return [
        Problem(
            f"{prefix}pools[{index}]",
            spec.name,
            f"{_FIXED_ON_NAP}: {prefix}pools[{provisioned[0]}] ({specs[provisioned[0]].name}) is a Node Auto "
            "Provisioning pool, which needs NAP on the cluster",
            "every pool provisioned with provisioner node-auto-provisioning, or none",
            SOURCE_NAP,
        )
        for index, spec in enumerate(specs)
        if spec.provisioning is None
    ]


def stack_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Rules between the ``cluster`` config and the pools: a provisioned pool needs ``node_auto_provisioning``; a
    fixed pool (an agent pool with the Cluster Autoscaler) may not be on a NAP cluster (:data:`SOURCE_NAP`). Fixed
    pools beside NAP pools are :func:`pool_mix_problems`' (every entry point's), not repeated here."""
    nap = bool(cluster.get("node_auto_provisioning", False))
    mixed = any(isinstance(pool, Mapping) and "provisioning" in pool for pool in pools)
    problems: list[Problem] = []
    for index, pool in enumerate(pools):
        if not isinstance(pool, Mapping):
            continue
        provisioning = pool.get("provisioning")
        provisioner = provisioning.get("provisioner") if isinstance(provisioning, Mapping) else None
        if "provisioning" in pool and not nap:
            if provisioner != "node-auto-provisioning":
                continue  # another provisioner, or none: the pool's own problem, which names AKS's one
            problems.append(
                Problem(
                    f"pools[{index}].provisioning",
                    provisioner,
                    "a Node Auto Provisioning pool needs NAP on the cluster",
                    "cluster.node_auto_provisioning: true",
                    SOURCE_NAP_ENABLE,
                )
            )
        elif "provisioning" not in pool and nap and not mixed:
            problems.append(
                Problem(
                    f"pools[{index}]",
                    pool.get("name"),
                    _FIXED_ON_NAP,
                    "provisioning with provisioner node-auto-provisioning, or node_auto_provisioning: false",
                    SOURCE_NAP,
                )
            )
    return problems


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the AKS cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(AksClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
