"""The plan's mocks of the Azure Native provider (pulumi-azure-native), without its SDK: realistic, deterministic
outputs of the resources and invokes a GPU node-pool program uses on AKS.

Registered through the AKS facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`. ARM ids are in :data:`AZURE_SUBSCRIPTION_ID`, resources in the
stack's ``azure-native:location`` (default :data:`DEFAULT_AZURE_LOCATION`) unless they name one; auto-named
resources get 8 hex characters, as the provider's. A cluster's credentials are a kubeconfig that logs in with
``kubelogin``, as AKS's with Entra ID.

Sources for the shapes: the output properties declared by the pulumi-azure-native 3 Python SDK; the Azure resource
ids in the AKS REST reference (https://learn.microsoft.com/rest/api/aks/managed-clusters).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import yaml

from gpu_components.plan.mock_kit import (
    InvokeMock,
    MockInvoke,
    MockResource,
    Outputs,
    ProviderMocks,
    certificate_b64,
    hex_of,
    uuid_of,
)

__all__ = [
    "AZURE_SUBSCRIPTION_ID",
    "AZURE_TENANT_ID",
    "DEFAULT_AKS_VERSION",
    "DEFAULT_AZURE_LOCATION",
    "MOCKS",
]

AZURE_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000"
"""The subscription of every mocked ARM id."""
AZURE_TENANT_ID = "11111111-1111-1111-1111-111111111111"
"""The Entra ID tenant of every mocked identity and OIDC issuer."""
DEFAULT_AZURE_LOCATION = "eastus"
"""Location used when neither the resource nor `azure-native:location` gives one."""
DEFAULT_AKS_VERSION = "1.31.5"
"""Kubernetes version an AKS cluster or agent pool reports when the program sets none."""


def _location(config: Mapping[str, str]) -> str:
    """The stack's Azure location."""
    return config.get("azure-native:location") or DEFAULT_AZURE_LOCATION


# --------------------------------------------------------------------------------------------------
# Resources


def _azure_rg_id(rg: str) -> str:
    return f"/subscriptions/{AZURE_SUBSCRIPTION_ID}/resourceGroups/{rg}"


def _azure_resource_group(r: MockResource) -> Outputs:
    name = r.autoname("resourceGroupName", length=8)
    return _azure_rg_id(name), {
        "resourceGroupName": name,
        "name": name,
        "location": r.get("location", _location(r.config)),
        "properties": {"provisioningState": "Succeeded"},
        "type": "Microsoft.Resources/resourceGroups",
    }


def _aks_fqdn(prefix: str, rg: str, name: str, location: str, kind: str = "hcp") -> str:
    return f"{prefix}-{hex_of(rg + '/' + name, 8)}.{kind}.{location}.azmk8s.io"


def _azure_managed_cluster(r: MockResource) -> Outputs:
    rg = str(r.get("resourceGroupName", "rg"))
    name = r.autoname("resourceName", length=8)
    location = str(r.get("location", _location(r.config)))
    prefix = str(r.get("dnsPrefix", name))
    resource_id = f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{name}"
    version = r.get("kubernetesVersion", DEFAULT_AKS_VERSION)
    node_rg = r.get("nodeResourceGroup", f"MC_{rg}_{name}_{location}")
    pools = [
        {
            **dict(pool),
            "currentOrchestratorVersion": pool.get("orchestratorVersion", version),
            "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.12.0",
            "provisioningState": "Succeeded",
            "powerState": {"code": "Running"},
        }
        for pool in r.get("agentPoolProfiles", [])
        if isinstance(pool, Mapping)
    ]
    identity = dict(r.get("identity", {}))
    if identity.get("type") == "SystemAssigned":
        identity.update(principalId=uuid_of(r.urn + "principal"), tenantId=AZURE_TENANT_ID)
    state = {
        "resourceName": name,
        "name": name,
        "location": location,
        "dnsPrefix": prefix,
        "fqdn": _aks_fqdn(prefix, rg, name, location),
        "azurePortalFQDN": _aks_fqdn(prefix, rg, name, location, "portal.hcp"),
        "kubernetesVersion": version,
        "currentKubernetesVersion": version,
        "nodeResourceGroup": node_rg,
        "agentPoolProfiles": pools,
        "identity": identity,
        "identityProfile": {
            "kubeletidentity": {
                "clientId": uuid_of(r.urn + "kubelet-client"),
                "objectId": uuid_of(r.urn + "kubelet-object"),
                "resourceId": f"{_azure_rg_id(str(node_rg))}/providers/Microsoft.ManagedIdentity/"
                f"userAssignedIdentities/{name}-agentpool",
            }
        },
        "oidcIssuerProfile": {
            **dict(r.get("oidcIssuerProfile", {})),
            "issuerURL": f"https://{location}.oic.prod-aks.azure.com/{AZURE_TENANT_ID}/{uuid_of(r.urn)}/",
        },
        "maxAgentPools": 100,
        "powerState": {"code": "Running"},
        "provisioningState": "Succeeded",
        "resourceUID": hex_of(r.urn, 24),
        "type": "Microsoft.ContainerService/ManagedClusters",
    }
    r.mocks.remember("aks", f"{rg}/{name}", {**r.inputs, **state, "id": resource_id})
    return resource_id, state


def _azure_agent_pool(r: MockResource) -> Outputs:
    rg = str(r.get("resourceGroupName", "rg"))
    cluster = str(r.get("resourceName", "cluster"))
    name = r.autoname("agentPoolName", length=8)
    resource_id = f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{cluster}/agentPools/{name}"
    return resource_id, {
        "agentPoolName": name,
        "name": name,
        "currentOrchestratorVersion": r.get("orchestratorVersion", DEFAULT_AKS_VERSION),
        "nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.12.0",
        "provisioningState": "Succeeded",
        "eTag": hex_of(r.urn, 32),
        "type": "Microsoft.ContainerService/managedClusters/agentPools",
    }


def _azure_generic(r: MockResource) -> Outputs:
    """Any other azure-native resource: an ARM id and a name."""
    module = r.type.split(":")[1]
    kind = r.type.rsplit(":", 1)[-1]
    name = f"{r.name}-{hex_of(r.urn, 8)}"
    rg = str(r.get("resourceGroupName", "rg"))
    return f"{_azure_rg_id(rg)}/providers/Microsoft.{module}/{kind}/{name}", {"name": name}


# --------------------------------------------------------------------------------------------------
# Invokes


def _aks_kubeconfig_yaml(fqdn: str, cluster: str, rg: str, user: str) -> str:
    kubeconfig = {
        "apiVersion": "v1",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": certificate_b64(fqdn),
                    "server": f"https://{fqdn}:443",
                },
                "name": cluster,
            }
        ],
        "contexts": [{"context": {"cluster": cluster, "user": f"{user}_{rg}_{cluster}"}, "name": cluster}],
        "current-context": cluster,
        "kind": "Config",
        "users": [
            {
                "name": f"{user}_{rg}_{cluster}",
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "args": [
                            "get-token",
                            "--login",
                            "azurecli",
                            "--server-id",
                            "6dae42f8-4368-4678-94ff-3960e28e3630",
                        ],
                        "command": "kubelogin",
                        "env": None,
                        "provideClusterInfo": False,
                    }
                },
            }
        ],
    }
    return yaml.safe_dump(kubeconfig, sort_keys=False)


def _aks_known(i: MockInvoke) -> tuple[str, str, dict[str, Any]]:
    rg = str(i.args.get("resourceGroupName", "rg"))
    name = str(i.args.get("resourceName", "cluster"))
    known = i.mocks.recall("aks", f"{rg}/{name}")
    if known is None:
        location = _location(i.config)
        known = {
            "id": f"{_azure_rg_id(rg)}/providers/Microsoft.ContainerService/managedClusters/{name}",
            "name": name,
            "location": location,
            "dnsPrefix": name,
            "fqdn": _aks_fqdn(name, rg, name, location),
            "kubernetesVersion": DEFAULT_AKS_VERSION,
            "currentKubernetesVersion": DEFAULT_AKS_VERSION,
            "nodeResourceGroup": f"MC_{rg}_{name}_{location}",
            "provisioningState": "Succeeded",
            "powerState": {"code": "Running"},
            "type": "Microsoft.ContainerService/ManagedClusters",
        }
    return rg, name, known


def _aks_credentials(user: str) -> InvokeMock:
    def credentials(i: MockInvoke) -> dict[str, Any]:
        rg, name, known = _aks_known(i)
        text = _aks_kubeconfig_yaml(str(known["fqdn"]), name, rg, user)
        return {"kubeconfigs": [{"name": user, "value": base64.b64encode(text.encode()).decode()}]}

    return credentials


def _aks_get_managed_cluster(i: MockInvoke) -> dict[str, Any]:
    return dict(_aks_known(i)[2])


def _azure_get_client_config(i: MockInvoke) -> dict[str, Any]:
    return {
        "clientId": uuid_of("azure-client"),
        "objectId": uuid_of("azure-object"),
        "subscriptionId": AZURE_SUBSCRIPTION_ID,
        "tenantId": AZURE_TENANT_ID,
    }


# --------------------------------------------------------------------------------------------------
# The table


MOCKS = ProviderMocks(
    resources={
        "azure-native:resources:ResourceGroup": _azure_resource_group,
        "azure-native:containerservice:ManagedCluster": _azure_managed_cluster,
        "azure-native:containerservice:AgentPool": _azure_agent_pool,
    },
    invokes={
        "azure-native:containerservice:listManagedClusterUserCredentials": _aks_credentials("clusterUser"),
        "azure-native:containerservice:listManagedClusterAdminCredentials": _aks_credentials("clusterAdmin"),
        "azure-native:containerservice:getManagedCluster": _aks_get_managed_cluster,
        "azure-native:authorization:getClientConfig": _azure_get_client_config,
    },
    fallbacks={"azure-native": _azure_generic},
)
"""pulumi-azure-native resources and invokes as the plan mocks them; any other resource gets an ARM id and a
name."""
