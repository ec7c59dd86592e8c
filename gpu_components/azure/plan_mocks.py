"""The plan's mocks of the Azure Native provider (pulumi-azure-native), without its SDK.

Registered through the AKS facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`, which derives every other output from the resource's SDK class. What
is here: each resource's identity (:func:`_azure_resource`: its ARM id in :data:`AZURE_SUBSCRIPTION_ID`, and its
name, auto-named with 8 hex characters as the provider does), and what other resources and invokes read: a managed
cluster's API server FQDN (in its location, default the stack's ``azure-native:location`` or
:data:`DEFAULT_AZURE_LOCATION`), which the cluster user credentials listed for it point at, with ``kubelogin`` as
AKS's credentials with Entra ID do.

Sources for the formats: the ARM resource ids and FQDNs in the AKS REST reference
(https://learn.microsoft.com/rest/api/aks/managed-clusters), the credential format of
``az aks get-credentials`` (https://learn.microsoft.com/azure/aks/kubelogin-authentication).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import yaml

from gpu_components.plan.mock_kit import MockInvoke, MockResource, Outputs, ProviderMocks, certificate_b64, hex_of

__all__ = [
    "AZURE_CLIENT_ID",
    "AZURE_OBJECT_ID",
    "AZURE_SUBSCRIPTION_ID",
    "AZURE_TENANT_ID",
    "DEFAULT_AZURE_LOCATION",
    "MOCKS",
]

AZURE_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000"
"""The subscription of every mocked ARM id."""
DEFAULT_AZURE_LOCATION = "eastus"
"""Location used when neither the resource nor `azure-native:location` gives one."""
AKS_SERVER_APP_ID = "6dae42f8-4368-4678-94ff-3960e28e3630"
"""The Entra ID application of the AKS API server that ``kubelogin`` asks a token for (Microsoft's, the same in every
tenant)."""

_NAMES = {
    "azure-native:resources:ResourceGroup": ("resourceGroupName", "resourceGroups"),
    "azure-native:containerservice:ManagedCluster": ("resourceName", "managedClusters"),
    "azure-native:containerservice:AgentPool": ("agentPoolName", "agentPools"),
}
"""Resource type -> (its name input, its ARM resource type segment); other types: ``<type>s``, input ``name``."""
_NAMESPACES = {"containerservice": "ContainerService", "managedidentity": "ManagedIdentity"}
"""ARM resource provider namespaces (``Microsoft.<namespace>``) that are not the SDK module's name capitalised."""
_PARENTS = {"azure-native:containerservice:AgentPool": ("resourceName", "managedClusters")}
"""Child resource types -> (the input naming the parent, the parent's ARM resource type segment)."""


def _location(config: Mapping[str, str]) -> str:
    return config.get("azure-native:location") or DEFAULT_AZURE_LOCATION


def _group_id(group: str) -> str:
    return f"/subscriptions/{AZURE_SUBSCRIPTION_ID}/resourceGroups/{group}"


def _azure_resource(r: MockResource) -> Outputs:
    """Any azure-native resource: its ARM id,
    ``/subscriptions/<sub>/resourceGroups/<group>/providers/Microsoft.<Module>/[<parent type>/<parent>/]<type>/<name>``
    (a resource group: ``/subscriptions/<sub>/resourceGroups/<name>``), its name, given or auto-named, and (not for a
    child resource such as an agent pool) its location, given or the stack's."""
    module, kind = r.type.split(":")[1], r.type.rsplit(":", 1)[-1]
    name_key, segment = _NAMES.get(r.type, ("name", kind[0].lower() + kind[1:] + "s"))
    name = r.autoname(name_key, length=8)
    outputs = {name_key: name, "name": name}
    if r.type not in _PARENTS:  # the provider gives a resource without a location the stack's
        outputs["location"] = r.get("location", _location(r.config))
    if r.type == "azure-native:resources:ResourceGroup":
        return _group_id(name), outputs
    namespace = _NAMESPACES.get(module, module.title())
    path = f"{_group_id(str(r.get('resourceGroupName', 'rg')))}/providers/Microsoft.{namespace}"
    if r.type in _PARENTS:
        parent_key, parent_segment = _PARENTS[r.type]
        path += f"/{parent_segment}/{r.get(parent_key, 'parent')}"
    return f"{path}/{segment}/{name}", outputs


def _fqdn(prefix: str, group: str, name: str, location: str) -> str:
    """A managed cluster's API server FQDN, ``<dnsPrefix>-<8 hex>.hcp.<location>.azmk8s.io``."""
    return f"{prefix}-{hex_of(group + '/' + name, 8)}.hcp.{location}.azmk8s.io"


def _managed_cluster(r: MockResource) -> Outputs:
    """Its identity and its FQDN, which the credentials listed for it point at (kept for them)."""
    resource_id, outputs = _azure_resource(r)
    group, name = str(r.get("resourceGroupName", "rg")), outputs["name"]
    location = str(r.get("location", _location(r.config)))
    fqdn = _fqdn(str(r.get("dnsPrefix", name)), group, name, location)
    r.mocks.remember("aks", f"{group}/{name}", {"fqdn": fqdn})
    return resource_id, {**outputs, "fqdn": fqdn}


def _user_credentials(i: MockInvoke) -> dict[str, Any]:
    """``listManagedClusterUserCredentials``: one base64 kubeconfig for the cluster's FQDN (a cluster the program
    registered, else one derived from the names) that logs in with ``kubelogin``."""
    group, name = str(i.args.get("resourceGroupName", "rg")), str(i.args.get("resourceName", "cluster"))
    known = i.mocks.recall("aks", f"{group}/{name}") or {"fqdn": _fqdn(name, group, name, _location(i.config))}
    user = f"clusterUser_{group}_{name}"
    exec_ = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "args": ["get-token", "--login", "azurecli", "--server-id", AKS_SERVER_APP_ID],
        "command": "kubelogin",
        "env": None,
        "provideClusterInfo": False,
    }
    kubeconfig = {
        "apiVersion": "v1",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": certificate_b64(known["fqdn"]),
                    "server": f"https://{known['fqdn']}:443",
                },
                "name": name,
            }
        ],
        "contexts": [{"context": {"cluster": name, "user": user}, "name": name}],
        "current-context": name,
        "kind": "Config",
        "users": [{"name": user, "user": {"exec": exec_}}],
    }
    text = yaml.safe_dump(kubeconfig, sort_keys=False)
    return {"kubeconfigs": [{"name": "clusterUser", "value": base64.b64encode(text.encode()).decode()}]}


AZURE_TENANT_ID = "00000000-0000-0000-0000-000000000001"
"""The Entra ID tenant of the mocked subscription."""
AZURE_CLIENT_ID = "00000000-0000-0000-0000-000000000002"
"""The application (client) id the mocked credentials sign in as."""
AZURE_OBJECT_ID = "00000000-0000-0000-0000-000000000003"
"""The Entra ID object id of the principal the mocked credentials sign in as."""


def _client_config(i: MockInvoke) -> dict[str, Any]:
    """``authorization.get_client_config``: who the provider signs in as (:data:`AZURE_CLIENT_ID`,
    :data:`AZURE_OBJECT_ID`), in :data:`AZURE_TENANT_ID` and :data:`AZURE_SUBSCRIPTION_ID`, or the stack's
    ``azure-native:subscriptionId`` and ``azure-native:tenantId`` when it sets them."""
    return {
        "clientId": i.config.get("azure-native:clientId") or AZURE_CLIENT_ID,
        "objectId": AZURE_OBJECT_ID,
        "subscriptionId": i.config.get("azure-native:subscriptionId") or AZURE_SUBSCRIPTION_ID,
        "tenantId": i.config.get("azure-native:tenantId") or AZURE_TENANT_ID,
    }


MOCKS = ProviderMocks(
    resources={"azure-native:containerservice:ManagedCluster": _managed_cluster},
    invokes={
        "azure-native:authorization:getClientConfig": _client_config,
        "azure-native:containerservice:listManagedClusterUserCredentials": _user_credentials,
    },
    fallbacks={"azure-native": _azure_resource},
)
"""pulumi-azure-native resources (every one: :func:`_azure_resource`; managed clusters with their FQDN), the
cluster user credentials and the client config."""
