"""What the example program needs of an AKS cluster: create a minimal one, or attach to an existing one.

A new cluster is a resource group and a ``ManagedCluster`` with a system-assigned managed identity and a small
``System`` pool for add-ons; the GPU pools are separate ``AgentPool`` resources (AKS refuses to add pools through
the managed cluster once it exists). The kubeconfig is the cluster user credential from
``listManagedClusterUserCredentials``, base64-decoded; the program marks it secret.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import ProvisionedCluster, SystemPoolSizes, example_cluster_problems
from gpu_components.azure._sdk import azure_native
from gpu_components.errors import Problem
from gpu_components.shape import STRICT

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
NEW_CLUSTER_ONLY = ("location", "kubernetes_version", "system_node_pool")
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true``."""


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
    """

    name: str
    existing: NotRequired[bool]
    resource_group_name: NotRequired[str]
    location: NotRequired[str]
    kubernetes_version: NotRequired[str]
    system_node_pool: NotRequired[SystemNodePoolConfig]


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
    system_pool: azure_native.containerservice.ManagedClusterAgentPoolProfileArgsDict = {
        "name": SYSTEM_POOL_NAME,
        "mode": "System",
        "os_type": "Linux",
        "type": "VirtualMachineScaleSets",
        "vm_size": system.get("vm_size", SYSTEM_VM_SIZE),
        "enable_auto_scaling": True,
        "min_count": counts["min_count"],
        "max_count": counts["max_count"],
        "count": counts["count"],
    }
    identity: azure_native.containerservice.ManagedClusterIdentityArgsDict = {
        "type": azure_native.containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
    }
    managed = azure_native.containerservice.ManagedCluster(
        name,
        resource_group_name=group.name,
        resource_name_=name,
        location=group.location,
        dns_prefix=name,
        kubernetes_version=cluster.get("kubernetes_version", DEFAULT_KUBERNETES_VERSION),
        identity=identity,
        agent_pool_profiles=[system_pool],
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
    :func:`~gpu_components.adapter.example_cluster_problems` (:data:`NEW_CLUSTER_ONLY`, :data:`SYSTEM_SIZES`), and
    ``resource_group_name`` is required with ``existing``."""
    return example_cluster_problems(cluster, NEW_CLUSTER_ONLY, SYSTEM_SIZES, existing_requires=("resource_group_name",))


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the AKS cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(AksClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
