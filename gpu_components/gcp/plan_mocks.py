"""The plan's mocks of the Google Cloud provider (pulumi-gcp), without its SDK.

Registered through the GKE facts record (:attr:`~gpu_components.cloud_facts.CloudFacts.plan_mocks`) and answered by
:class:`~gpu_components.plan.mocks.PlanMocks`, which derives every other output from the resource's SDK class. What
is here: each resource's identity (:func:`_gcp_resource`: its id, ``projects/<project>/...``, and self link, in the
stack's ``gcp:project`` and ``gcp:region``, defaults :data:`DEFAULT_GCP_PROJECT` and :data:`DEFAULT_GCP_REGION`;
auto-names 7 hex characters, as the provider's), and what other resources read: a cluster's endpoint and CA
certificate (a kubeconfig is made from them; also for an existing cluster, ``getCluster``) and a service account's
email (node pools and IAM members name it).

Sources for the formats: the GKE and IAM API references
(https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters,
https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_components.plan.mock_kit import MockInvoke, MockResource, Outputs, ProviderMocks, certificate_b64, hex_of

__all__ = ["DEFAULT_GCP_PROJECT", "DEFAULT_GCP_REGION", "MOCKS"]

DEFAULT_GCP_PROJECT = "gpu-components-plan"
"""Project used when neither the resource nor `gcp:project` gives one."""
DEFAULT_GCP_REGION = "us-central1"
"""Region used when neither the resource nor `gcp:region` gives one."""

_IDS = {
    "gcp:container/cluster:Cluster": "projects/{project}/locations/{location}/clusters/{name}",
    "gcp:container/nodePool:NodePool": "projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}",
}
"""Resource ids that are not ``projects/<project>/<kind>s/<name>``."""


def _project(given: Any, config: Mapping[str, str]) -> str:
    """The project a resource or invoke names, else the stack's."""
    return str(given or config.get("gcp:project") or DEFAULT_GCP_PROJECT)


def _gcp_resource(r: MockResource) -> Outputs:
    """Any pulumi-gcp resource: its id, its name (given or auto-named) and project, and its self link
    ``https://www.googleapis.com/<module>/v1/<id>``."""
    project, name = _project(r.get("project"), r.config), r.autoname("name")
    location = str(r.get("location", r.config.get("gcp:region") or DEFAULT_GCP_REGION))
    kind = r.type.rsplit(":", 1)[-1]
    collection = re.sub(r"^[A-Z]+?(?=[A-Z]?[a-z]|$)", lambda m: m.group().lower(), kind) + "s"  # IAMMember: iamMembers
    template = _IDS.get(r.type, "projects/{project}/" + collection + "/{name}")
    cluster = str(r.get("cluster", "cluster")).rsplit("/", 1)[-1]
    resource_id = template.format(project=project, location=location, name=name, cluster=cluster)
    module = r.type.split(":")[1].split("/")[0]
    return resource_id, {
        "name": name,
        "project": project,
        "selfLink": f"https://www.googleapis.com/{module}/v1/{resource_id}",
    }


def _ipv4(seed: str) -> str:
    octets = bytes.fromhex(hex_of(seed, 6))
    return f"34.{octets[0]}.{octets[1]}.{max(octets[2], 1)}"


def _cluster_auth(seed: str) -> dict[str, Any]:
    """A cluster's endpoint (a public IPv4 address) and its CA certificate, derived from ``seed``."""
    return {"endpoint": _ipv4(seed), "masterAuth": {"clusterCaCertificate": certificate_b64(seed)}}


def _cluster(r: MockResource) -> Outputs:
    """Its identity, endpoint and CA certificate, which a kubeconfig for it is made from."""
    resource_id, outputs = _gcp_resource(r)
    return resource_id, {**outputs, **_cluster_auth(r.urn)}


def _service_account(r: MockResource) -> Outputs:
    """``projects/<project>/serviceAccounts/<email>``, its email and its IAM member, which node pools and role
    bindings name."""
    project = _project(r.get("project"), r.config)
    email = f"{r.get('accountId', r.name)}@{project}.iam.gserviceaccount.com"
    name = f"projects/{project}/serviceAccounts/{email}"
    return name, {"email": email, "member": f"serviceAccount:{email}", "name": name, "project": project}


def _get_cluster(i: MockInvoke) -> dict[str, Any]:
    """``gcp.container.get_cluster`` (an existing cluster): its endpoint and CA certificate, from its location and
    name."""
    name = str(i.args.get("name", "cluster"))
    location = str(i.args.get("location") or i.config.get("gcp:region") or DEFAULT_GCP_REGION)
    auth = _cluster_auth(f"gke-cluster/{location}/{name}")
    return {
        "id": f"projects/{_project(i.args.get('project'), i.config)}/locations/{location}/clusters/{name}",
        "name": name,
        "location": location,
        "endpoint": auth["endpoint"],
        "masterAuths": [auth["masterAuth"]],
    }


def _region(given: Any, config: Mapping[str, str]) -> str:
    return str(given or config.get("gcp:region") or DEFAULT_GCP_REGION)


def _client_config(i: MockInvoke) -> dict[str, Any]:
    """``gcp.organizations.get_client_config``: the provider's project, region and zone (the stack's ``gcp:project``,
    ``gcp:region``, ``gcp:zone``; zone default ``<region>-a``), id ``projects/<project>/regions/<region>/zones/<zone>``
    as the provider's, and a placeholder access token (no credentials offline)."""
    project, region = _project(None, i.config), _region(None, i.config)
    zone = i.config.get("gcp:zone") or f"{region}-a"
    return {
        "id": f"projects/{project}/regions/{region}/zones/{zone}",
        "project": project,
        "region": region,
        "zone": zone,
        "accessToken": "plan-offline-access-token",
        "defaultLabels": {},
    }


def _get_zones(i: MockInvoke) -> dict[str, Any]:
    """``gcp.compute.get_zones``: zones ``a``, ``b`` and ``c`` of the region given (default the stack's), id
    ``projects/<project>/regions/<region>``."""
    project, region = _project(i.args.get("project"), i.config), _region(i.args.get("region"), i.config)
    return {
        "id": f"projects/{project}/regions/{region}",
        "names": [f"{region}-{letter}" for letter in "abc"],
        "project": project,
        "region": region,
        **({"status": i.args["status"]} if i.args.get("status") else {}),
    }


MOCKS = ProviderMocks(
    resources={"gcp:container/cluster:Cluster": _cluster, "gcp:serviceaccount/account:Account": _service_account},
    invokes={
        "gcp:compute/getZones:getZones": _get_zones,
        "gcp:container/getCluster:getCluster": _get_cluster,
        "gcp:organizations/getClientConfig:getClientConfig": _client_config,
    },
    fallbacks={"gcp": _gcp_resource},
)
"""pulumi-gcp resources (every one: :func:`_gcp_resource`; clusters with their endpoint and CA, service accounts with
their email), the existing-cluster lookup, the client config and the region's zones."""
