"""Which input changes make the cloud replace a node pool: the library's own force-new tables, per resource type.

A reviewer of an offline plan diff needs to know which changes delete and recreate a node pool (draining every
GPU node in it) rather than update it in place. That is a property of the provider's schema, not of the plan, so
it is recorded here as data, one table per node-pool resource type, each with its source:

- ``aws:eks/nodeGroup:NodeGroup``: the attributes marked ``ForceNew`` in the upstream Terraform provider schema
  that pulumi-aws bridges (terraform-provider-aws ``internal/service/eks/node_group.go``,
  :data:`SOURCE_EKS`). ``launchTemplate.version``, ``scalingConfig``, ``labels``, ``taints``, ``updateConfig``,
  ``version`` and ``releaseVersion`` update in place.
- ``azure-native:containerservice:AgentPool``: pulumi-azure-native's curated force-new list for ``AgentPool``
  (``gpuInstanceProfile``, ``vmSize``, ``networkProfile.nodePublicIPTags``; :data:`SOURCE_AZURE_NATIVE`, added
  in pulumi/pulumi-azure-native#3655 because AKS documents both as unchangeable after creation) and the
  resource's URL path parameters (``resourceGroupName``, ``resourceName``, ``agentPoolName``), which name the
  pool and so always replace it.
- ``gcp:container/nodePool:NodePool``: the attributes marked ``ForceNew`` in the upstream Terraform provider schema
  that pulumi-gcp bridges (terraform-provider-google ``resource_container_node_pool.go`` and the node config
  schema in ``node_config.go``, :data:`SOURCE_GKE`): the accelerators with their sharing, partition and driver
  settings, spot and preemptible, the service account and OAuth scopes, the initial node count. Not among them:
  ``nodeConfig.machineType``, ``labels`` and ``taints``, which GKE updates in place (a GPU machine type change
  usually changes the accelerator count or type too, which does replace), and ``autoscaling``.

Paths are Pulumi input property paths in the plan's camelCase: ``a.b`` for nested objects and ``[*]`` for any
list index. A table entry covers everything beneath it (``remoteAccess`` covers ``remoteAccess.ec2SshKey``), and
a change of a whole object that contains a listed field (``launchTemplate`` added or removed) counts as a change
of that field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "FORCE_NEW",
    "ForceNewTable",
    "forces_replacement",
    "node_pool_types",
]

SOURCE_EKS = "https://github.com/hashicorp/terraform-provider-aws/blob/main/internal/service/eks/node_group.go"
"""Schema of ``aws_eks_node_group``, which pulumi-aws's ``eks.NodeGroup`` bridges (``ForceNew: true`` fields)."""
SOURCE_AZURE_NATIVE = (
    "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/gen/forceNew.go "
    "(pulumi/pulumi-azure-native#3655; https://learn.microsoft.com/azure/aks/manage-node-pools#limitations, "
    "https://learn.microsoft.com/azure/aks/gpu-multi-instance)"
)
"""pulumi-azure-native's curated force-new properties of ``AgentPool`` and the AKS pages they rest on."""
SOURCE_GKE = (
    "https://github.com/hashicorp/terraform-provider-google/blob/main/google/services/container/"
    "resource_container_node_pool.go, .../node_config.go"
)
"""Schema of ``google_container_node_pool`` and its ``node_config``, which pulumi-gcp's ``container.NodePool``
bridges (``ForceNew: true`` fields)."""

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AKS_AGENT_POOL = "azure-native:containerservice:AgentPool"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"

_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class ForceNewTable:
    """The input paths of one resource type whose change replaces the resource, and where that fact comes from."""

    fields: tuple[str, ...]
    source: str


FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        EKS_NODE_GROUP: ForceNewTable(
            (
                "amiType",
                "capacityType",
                "clusterName",
                "diskSize",
                "instanceTypes",
                "launchTemplate.id",
                "launchTemplate.name",
                "nodeGroupName",
                "nodeGroupNamePrefix",
                "nodeRoleArn",
                "remoteAccess",
                "subnetIds",
            ),
            SOURCE_EKS,
        ),
        AKS_AGENT_POOL: ForceNewTable(
            (
                "agentPoolName",
                "resourceGroupName",
                "resourceName",
                "gpuInstanceProfile",
                "vmSize",
                "networkProfile.nodePublicIPTags",
            ),
            SOURCE_AZURE_NATIVE,
        ),
        GKE_NODE_POOL: ForceNewTable(
            (
                "name",
                "cluster",
                "location",
                "project",
                "initialNodeCount",
                "nodeConfig.guestAccelerators",
                "nodeConfig.guestAccelerators[*].type",
                "nodeConfig.guestAccelerators[*].count",
                "nodeConfig.guestAccelerators[*].gpuPartitionSize",
                "nodeConfig.guestAccelerators[*].gpuSharingConfig",
                "nodeConfig.guestAccelerators[*].gpuSharingConfig.gpuSharingStrategy",
                "nodeConfig.guestAccelerators[*].gpuSharingConfig.maxSharedClientsPerGpu",
                "nodeConfig.guestAccelerators[*].gpuDriverInstallationConfig",
                "nodeConfig.guestAccelerators[*].gpuDriverInstallationConfig.gpuDriverVersion",
                "nodeConfig.spot",
                "nodeConfig.preemptible",
                "nodeConfig.serviceAccount",
                "nodeConfig.oauthScopes",
            ),
            SOURCE_GKE,
        ),
    }
)
"""Node-pool resource type -> its force-new input paths (see the module docstring for each table's source)."""


def node_pool_types() -> frozenset[str]:
    """The resource types this module knows as node pools (those with a force-new table)."""
    return frozenset(FORCE_NEW)


def forces_replacement(resource_type: str, path: str) -> bool:
    """Whether a change at input ``path`` (e.g. ``instanceTypes[0]``, ``launchTemplate``) of a ``resource_type``
    resource replaces it.

    True when the path, with list indexes read as ``[*]``, is a listed field, lies beneath one, or contains one.
    False for resource types without a table.
    """
    table = FORCE_NEW.get(resource_type)
    if table is None:
        return False
    normalised = _INDEX.sub("[*]", path)
    return any(_covers(field, normalised) or _covers(normalised, field) for field in table.fields)


def _covers(outer: str, inner: str) -> bool:
    """Whether ``inner`` is ``outer`` or a path beneath it (``outer.x`` or ``outer[*]...``)."""
    return inner == outer or inner.startswith((outer + ".", outer + "["))
