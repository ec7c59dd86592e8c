"""Which input changes make the cloud replace a node pool, per resource type, from each cloud's facts.

A reviewer of an offline plan diff needs to know which changes delete and recreate a node pool (draining every
GPU node in it) rather than update it in place. That is a property of the provider's schema, not of the plan, so
each cloud records it as data beside its other facts, with its source: the ``force_new`` table of each of its
:class:`~gpu_components.cloud_facts.NodePoolResource` records (``gpu_components.<cloud>.facts``: EKS node groups
and GKE node pools from the upstream Terraform schemas' ``ForceNew`` fields, AKS agent pools from
pulumi-azure-native's curated list plus the pool's name parameters). This module gathers them and answers for any
resource type.

Paths are Pulumi input property paths in the plan's camelCase: ``a.b`` for nested objects and ``[*]`` for any
list index. A table entry covers everything beneath it (``remoteAccess`` covers ``remoteAccess.ec2SshKey``), and
a change of a whole object that contains a listed field (``launchTemplate`` added or removed) counts as a change
of that field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from gpu_components.cloud_facts import ForceNewTable, all_cloud_facts

__all__ = [
    "FORCE_NEW",
    "ForceNewTable",
    "forces_replacement",
    "node_pool_types",
]

_INDEX = re.compile(r"\[\d+\]")

FORCE_NEW: Mapping[str, ForceNewTable] = MappingProxyType(
    {
        resource.type_token: resource.force_new
        for facts in all_cloud_facts()
        for resource in facts.node_pools
        if resource.force_new is not None
    }
)
"""Node-pool resource type -> its force-new input paths, gathered from every cloud's facts (each table's source
is in the table)."""


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
