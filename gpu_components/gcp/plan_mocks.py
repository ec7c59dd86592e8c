"""The plan's mocks of the Google Cloud provider (pulumi-gcp), without its SDK: realistic, deterministic outputs
of the resources and invokes a GPU node-pool program uses on GKE.

Registered through the GKE facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`. Resources live in the stack's ``gcp:project`` and ``gcp:region``
(defaults :data:`DEFAULT_GCP_PROJECT`, :data:`DEFAULT_GCP_REGION`) unless they name their own; auto-named
resources get 7 hex characters, as the provider's.

Sources for the shapes: the output properties declared by the pulumi-gcp 10 Python SDK; the GKE and IAM API
references for name and self-link formats
(https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters,
https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_components.plan.mock_kit import (
    MockInvoke,
    MockResource,
    Outputs,
    ProviderMocks,
    certificate_b64,
    digits_of,
    hex_of,
    last_segment,
    secret,
)

__all__ = ["DEFAULT_GCP_PROJECT", "DEFAULT_GCP_REGION", "DEFAULT_GKE_VERSION", "MOCKS"]

DEFAULT_GCP_PROJECT = "gpu-components-plan"
"""Project used when neither the resource nor `gcp:project` gives one."""
DEFAULT_GCP_REGION = "us-central1"
"""Region used when neither the resource nor `gcp:region` gives one."""
DEFAULT_GKE_VERSION = "1.31.6-gke.1020000"
"""Kubernetes version a GKE cluster or node pool reports when the program sets none."""


def _project(config: Mapping[str, str]) -> str:
    """The stack's GCP project."""
    return config.get("gcp:project") or DEFAULT_GCP_PROJECT


def _region(config: Mapping[str, str]) -> str:
    """The stack's GCP region."""
    return config.get("gcp:region") or DEFAULT_GCP_REGION


# --------------------------------------------------------------------------------------------------
# Resources


def _ipv4(seed: str) -> str:
    octets = bytes.fromhex(hex_of(seed, 6))
    return f"34.{octets[0]}.{octets[1]}.{max(octets[2], 1)}"


def _gcp_location(r: MockResource) -> str:
    return str(r.get("location", r.get("region", _region(r.config))))


def _gke_cluster_state(name: str, location: str, project: str, seed: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    version = inputs.get("minMasterVersion") or DEFAULT_GKE_VERSION
    master_auth = dict(inputs.get("masterAuth") or {})
    return {
        "name": name,
        "location": location,
        "project": project,
        "endpoint": _ipv4(seed),
        "masterAuth": {
            "clientCertificateConfig": {"issueClientCertificate": False},
            **master_auth,
            "clusterCaCertificate": certificate_b64(seed),
            "clientCertificate": "",
            "clientKey": "",
        },
        "masterVersion": version,
        "nodeVersion": inputs.get("nodeVersion") or version,
        "selfLink": f"https://container.googleapis.com/v1/projects/{project}/locations/{location}/clusters/{name}",
        "servicesIpv4Cidr": "34.118.224.0/20",
        "labelFingerprint": hex_of(seed + "labels", 8),
        "effectiveLabels": dict(inputs.get("resourceLabels") or {}),
        "pulumiLabels": dict(inputs.get("resourceLabels") or {}),
        "operation": "",
    }


def _gcp_container_cluster(r: MockResource) -> Outputs:
    name = r.autoname("name")
    location = _gcp_location(r)
    project = str(r.get("project", _project(r.config)))
    state = _gke_cluster_state(name, location, project, r.urn, r.inputs)
    r.mocks.remember("gke", f"{location}/{name}", {**r.inputs, **state})
    return f"projects/{project}/locations/{location}/clusters/{name}", state


def _gcp_container_node_pool(r: MockResource) -> Outputs:
    cluster = last_segment(str(r.get("cluster", "cluster")))
    name = r.autoname("name")
    location = _gcp_location(r)
    project = str(r.get("project", _project(r.config)))
    group = f"gke-{cluster}-{name}-{hex_of(r.urn, 8)}"
    zone = f"{location}-a" if location.count("-") == 1 else location
    base = f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}"
    return f"projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}", {
        "name": name,
        "location": location,
        "project": project,
        "version": r.get("version", DEFAULT_GKE_VERSION),
        "instanceGroupUrls": [f"{base}/instanceGroupManagers/{group}-grp"],
        "managedInstanceGroupUrls": [f"{base}/instanceGroups/{group}-grp"],
        "operation": "",
    }


def _gcp_service_account(r: MockResource) -> Outputs:
    project = str(r.get("project", _project(r.config)))
    account_id = str(r.get("accountId", r.name))
    email = f"{account_id}@{project}.iam.gserviceaccount.com"
    name = f"projects/{project}/serviceAccounts/{email}"
    return name, {
        "accountId": account_id,
        "email": email,
        "member": f"serviceAccount:{email}",
        "name": name,
        "project": project,
        "uniqueId": "1" + digits_of(r.urn, 20),
    }


def _gcp_generic(r: MockResource) -> Outputs:
    """Any other GCP resource: an id, a name and a self link in the configured project."""
    project = str(r.get("project", _project(r.config)))
    name = r.autoname("name")
    kind = r.type.rsplit(":", 1)[-1]
    module = r.type.split(":")[1].split("/")[0]
    resource_id = f"projects/{project}/{kind[0].lower() + kind[1:]}s/{name}"
    return resource_id, {
        "name": name,
        "project": project,
        "selfLink": f"https://www.googleapis.com/{module}/v1/{resource_id}",
    }


# --------------------------------------------------------------------------------------------------
# Invokes


def _gcp_get_cluster(i: MockInvoke) -> dict[str, Any]:
    name = str(i.args.get("name", "cluster"))
    location = str(i.args.get("location") or _region(i.config))
    project = str(i.args.get("project") or _project(i.config))
    known = i.mocks.recall("gke", f"{location}/{name}")
    if known is None:
        known = _gke_cluster_state(name, location, project, f"gke-cluster/{location}/{name}", {})
    return {
        **{key: value for key, value in known.items() if key != "masterAuth"},
        "id": f"projects/{project}/locations/{location}/clusters/{name}",
        "masterAuths": [known["masterAuth"]],
        "nodePools": [],
    }


def _gcp_get_client_config(i: MockInvoke) -> dict[str, Any]:
    return {
        "id": f"projects/{_project(i.config)}/regions/{_region(i.config)}/zones/{_region(i.config)}-a",
        "accessToken": secret("ya29.plan-mock-token"),
        "project": _project(i.config),
        "region": _region(i.config),
        "zone": f"{_region(i.config)}-a",
        "defaultLabels": {},
    }


def _gcp_get_engine_versions(i: MockInvoke) -> dict[str, Any]:
    versions = [DEFAULT_GKE_VERSION, "1.30.10-gke.1070000", "1.29.14-gke.1018000"]
    channels = {
        "RAPID": "1.32.2-gke.1182001",
        "REGULAR": DEFAULT_GKE_VERSION,
        "STABLE": "1.30.10-gke.1070000",
    }
    return {
        "id": str(i.args.get("location") or _region(i.config)),
        "defaultClusterVersion": DEFAULT_GKE_VERSION,
        "latestMasterVersion": DEFAULT_GKE_VERSION,
        "latestNodeVersion": DEFAULT_GKE_VERSION,
        "validMasterVersions": versions,
        "validNodeVersions": versions,
        "releaseChannelDefaultVersion": channels,
        "releaseChannelLatestVersion": channels,
        "releaseChannelUpgradeTargetVersion": channels,
    }


def _gcp_get_zones(i: MockInvoke) -> dict[str, Any]:
    region = str(i.args.get("region") or _region(i.config))
    return {
        "id": f"projects/{_project(i.config)}/regions/{region}",
        "names": [f"{region}-{letter}" for letter in "abcf"],
        "project": _project(i.config),
        "region": region,
    }


def _gcp_get_project(i: MockInvoke) -> dict[str, Any]:
    project = str(i.args.get("projectId") or _project(i.config))
    return {
        "id": f"projects/{project}",
        "projectId": project,
        "name": project,
        "number": "1" + digits_of(project, 11),
    }


# --------------------------------------------------------------------------------------------------
# The table


MOCKS = ProviderMocks(
    resources={
        "gcp:container/cluster:Cluster": _gcp_container_cluster,
        "gcp:container/nodePool:NodePool": _gcp_container_node_pool,
        "gcp:serviceaccount/account:Account": _gcp_service_account,
    },
    invokes={
        "gcp:container/getCluster:getCluster": _gcp_get_cluster,
        "gcp:container/getEngineVersions:getEngineVersions": _gcp_get_engine_versions,
        "gcp:compute/getZones:getZones": _gcp_get_zones,
        "gcp:organizations/getClientConfig:getClientConfig": _gcp_get_client_config,
        "gcp:organizations/getProject:getProject": _gcp_get_project,
    },
    fallbacks={"gcp": _gcp_generic},
)
"""pulumi-gcp resources and invokes as the plan mocks them; any other resource gets an id, a name and a self link
in the stack's project."""
