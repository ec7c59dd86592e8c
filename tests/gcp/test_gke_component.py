"""GkeGpuNodePool, the GKE adapter and the example GKE cluster under Pulumi mocks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest

from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.gcp import cluster as gke_cluster
from gpu_components.spec import DEFAULT_GPU_TAINT

NODE_POOL = "gcp:container/nodePool:NodePool"
ACCOUNT = "gcp:serviceaccount/account:Account"
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"
TAINT = {"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


class Mocks(pulumi.runtime.Mocks):
    """Returns each resource's inputs as its state, plus the outputs the code reads (camelCase keys)."""

    def __init__(self) -> None:
        self.resources: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls: list[str] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.resources[(args.typ, args.name)] = dict(args.inputs)
        state = dict(args.inputs)
        if args.typ == ACCOUNT:
            email = f"{args.inputs['accountId']}@proj.iam.gserviceaccount.com"
            state.update(email=email, member=f"serviceAccount:{email}", project="proj")
        if args.typ == "gcp:container/cluster:Cluster":
            state.update(endpoint="203.0.113.10", masterAuth={"clusterCaCertificate": CA})
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[Any, Any], list[tuple[str, str]] | None]:
        self.calls.append(args.token)
        if args.token == "gcp:container/getCluster:getCluster":
            return {
                "name": args.args["name"],
                "endpoint": "198.51.100.7",
                "masterAuths": [{"clusterCaCertificate": CA}],
            }, []
        raise NotImplementedError(args.token)

    def of_type(self, typ: str) -> dict[str, dict[str, Any]]:
        return {name: inputs for (t, name), inputs in self.resources.items() if t == typ}


@pytest.fixture(params=[True, False], ids=["preview", "update"])
def mocks(request: pytest.FixtureRequest) -> Iterator[Mocks]:
    mocks = Mocks()
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=request.param)
    yield mocks


def pool_args(**fields: Any) -> dict[str, Any]:
    pool: dict[str, Any] = {"name": "gpu", "instance_type": "g2-standard-8", "max_size": 3}
    pool.update(fields)
    return pool


def create(pool: dict[str, Any], **args: Any) -> GkeGpuNodePool:
    return GkeGpuNodePool("demo-gpu", {"pool": pool, "cluster": "demo", "location": "us-central1-a", **args})  # type: ignore[typeddict-item]


def accelerators(mocks: Mocks) -> Any:
    return mocks.resources[(NODE_POOL, "demo-gpu-node-pool")]["nodeConfig"]["guestAccelerators"]


def after(pool: GkeGpuNodePool, check: Any) -> pulumi.Output[Any]:
    """Run ``check`` once the node pool is registered (its URN resolves after the mock saw its inputs)."""
    return pool.node_pool.urn.apply(lambda _: check())


@pulumi.runtime.test
def test_exclusive_pool_registers_exact_node_pool_inputs(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(name="l4", min_size=1, desired_size=2, max_size=5, labels={"team": "ml"}))

    def check() -> None:
        inputs = mocks.resources[(NODE_POOL, "demo-gpu-node-pool")]
        assert inputs == {
            "name": "l4",
            "cluster": "demo",
            "location": "us-central1-a",
            "initialNodeCount": 2,
            "autoscaling": {"totalMinNodeCount": 1, "totalMaxNodeCount": 5},
            "nodeConfig": {
                "machineType": "g2-standard-8",
                "guestAccelerators": [
                    {"type": "nvidia-l4", "count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}
                ],
                "labels": {"gpu-components/pool": "l4", "team": "ml"},
                "taints": [TAINT],
                "spot": False,
                "oauthScopes": SCOPES,
                "serviceAccount": "demo-gpu-node-sa@proj.iam.gserviceaccount.com",
            },
        }

    return after(pool, check)


@pulumi.runtime.test
def test_time_sharing_pool_accelerator(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(spot=True, time_slicing={"replicas": 4}), driver_version="LATEST")

    def check() -> None:
        assert accelerators(mocks) == [
            {
                "type": "nvidia-l4",
                "count": 1,
                "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
                "gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4},
            }
        ]
        assert mocks.resources[(NODE_POOL, "demo-gpu-node-pool")]["nodeConfig"]["spot"] is True
        assert pool.advertised_resources == {"nvidia.com/gpu": 4}

    return after(pool, check)


@pulumi.runtime.test
def test_mps_pool_accelerator(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(instance_type="g2-standard-24", mps={"replicas": 8}))

    def check() -> None:
        assert accelerators(mocks) == [
            {
                "type": "nvidia-l4",
                "count": 2,
                "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
                "gpuSharingConfig": {"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 8},
            }
        ]
        assert pool.advertised_resources == {"nvidia.com/gpu": 16}

    return after(pool, check)


@pulumi.runtime.test
def test_mig_pool_accelerator(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}))

    def check() -> None:
        assert accelerators(mocks) == [
            {
                "type": "nvidia-tesla-a100",
                "count": 1,
                "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
                "gpuPartitionSize": "1g.5gb",
            }
        ]
        assert pool.advertised_resources == {"nvidia.com/gpu": 7}
        assert pool.node_selector["cloud.google.com/gke-gpu-partition-size"] == "1g.5gb"

    return after(pool, check)


@pulumi.runtime.test
def test_mig_with_time_sharing_pool_accelerator(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(instance_type="a2-highgpu-1g", mig={"profile": "3g.20gb"}, time_slicing={"replicas": 2}))

    def check() -> None:
        assert accelerators(mocks) == [
            {
                "type": "nvidia-tesla-a100",
                "count": 1,
                "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
                "gpuPartitionSize": "3g.20gb",
                "gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2},
            }
        ]
        assert pool.advertised_resources == {"nvidia.com/gpu": 4}

    return after(pool, check)


@pulumi.runtime.test
def test_component_creates_a_minimal_node_service_account(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args())

    def check(email: str) -> None:
        assert email == "demo-gpu-node-sa@proj.iam.gserviceaccount.com"
        assert mocks.of_type(ACCOUNT)["demo-gpu-node-sa"]["accountId"] == "demo-gpu-node-sa"
        members = mocks.of_type(IAM_MEMBER)
        assert {name: (m["role"], m["member"], m["project"]) for name, m in members.items()} == {
            "demo-gpu-node-sa-node": (
                "roles/container.defaultNodeServiceAccount",
                "serviceAccount:demo-gpu-node-sa@proj.iam.gserviceaccount.com",
                "proj",
            ),
            "demo-gpu-node-sa-registry": (
                "roles/artifactregistry.reader",
                "serviceAccount:demo-gpu-node-sa@proj.iam.gserviceaccount.com",
                "proj",
            ),
        }

    return pulumi.Output.all(pool.service_account_email, pool.node_pool.urn).apply(lambda parts: check(parts[0]))


@pulumi.runtime.test
def test_given_service_account_creates_no_account(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(), service_account="nodes@proj.iam.gserviceaccount.com", project="proj")

    def check() -> None:
        assert mocks.of_type(ACCOUNT) == {}
        inputs = mocks.resources[(NODE_POOL, "demo-gpu-node-pool")]
        assert (inputs["project"], inputs["nodeConfig"]["serviceAccount"]) == (
            "proj",
            "nodes@proj.iam.gserviceaccount.com",
        )

    return after(pool, check)


@pulumi.runtime.test
def test_component_attributes_are_plain_values(mocks: Mocks) -> pulumi.Output[Any]:
    pool = create(pool_args(gpu_taint=False, taints=[{"key": "team", "value": "ml", "effect": "NoSchedule"}]))
    assert pool.device_plugin_host == "cloud"
    assert pool.accelerator_type == "nvidia-l4"
    assert pool.driver_version == "DEFAULT"
    assert pool.labels == {"gpu-components/pool": "gpu"}
    assert pool.taints[0] == DEFAULT_GPU_TAINT

    def check() -> None:
        taints = mocks.resources[(NODE_POOL, "demo-gpu-node-pool")]["nodeConfig"]["taints"]
        assert taints == [{"effect": "NO_SCHEDULE", "key": "team", "value": "ml"}]

    return after(pool, check)


@pulumi.runtime.test
def test_invalid_pool_registers_nothing(mocks: Mocks) -> None:
    with pytest.raises(GpuSpecError) as error:
        create(pool_args(instance_type="a2-highgpu-1g", mig={"layout": {"1g.5gb": 7}}), driver_version="NONE")
    assert [p.path for p in error.value.problems] == ["driver_version", "pool.mig.layout"]
    assert mocks.resources == {}


@pulumi.runtime.test
def test_gke_cluster_deploys_no_nvidia_device_plugin(mocks: Mocks) -> pulumi.Output[Any]:
    cluster = GpuCluster(
        "demo",
        {
            "cloud": "gcp",
            "pools": [
                {"name": "a100-mig", "instance_type": "a2-highgpu-1g", "max_size": 2, "mig": {"profile": "1g.5gb"}},
                {
                    "name": "l4-shared",
                    "instance_type": "g2-standard-8",
                    "max_size": 4,
                    "time_slicing": {"replicas": 4},
                    "gcp": {"driver_version": "LATEST"},
                },
            ],
            "gcp": {
                "cluster": "demo",
                "location": "us-central1-a",
                "service_account": "n@proj.iam.gserviceaccount.com",
            },
        },
    )
    assert cluster.device_plugin is None
    assert {name: pool.device_plugin_host for name, pool in cluster.pools.items()} == {
        "a100-mig": "cloud",
        "l4-shared": "cloud",
    }

    def check() -> None:
        types = {typ for typ, _ in mocks.resources}
        assert not any(typ.startswith("kubernetes:") or "NvidiaDevicePlugin" in typ for typ in types), types
        assert sorted(name for typ, name in mocks.resources if typ == NODE_POOL) == [
            "demo-a100-mig-node-pool",
            "demo-l4-shared-node-pool",
        ]
        l4 = mocks.resources[(NODE_POOL, "demo-l4-shared-node-pool")]["nodeConfig"]["guestAccelerators"][0]
        assert l4["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "LATEST"}

    last = cluster.pools["l4-shared"]
    assert isinstance(last, GkeGpuNodePool)
    return pulumi.Output.all(*(p.node_pool.urn for p in cluster.pools.values() if isinstance(p, GkeGpuNodePool))).apply(
        lambda _: check()
    )


def test_gke_rules_apply_in_a_cluster() -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuCluster(
            "demo",
            {
                "cloud": "gcp",
                "pools": [
                    {
                        "name": "l4",
                        "instance_type": "g2-standard-8",
                        "max_size": 1,
                        "time_slicing": {"replicas": 64},
                        "gcp": {"driver_version": "INSTALLATION_DISABLED"},
                    }
                ],
                "gcp": {"cluster": "demo", "location": "us-central1-a"},
            },
        )
    assert [p.path for p in error.value.problems] == ["pools[0].gcp.driver_version", "pools[0].time_slicing.replicas"]


# ------------------------------------------------------------------------------------------ example cluster


def test_kubeconfig_uses_the_gke_auth_plugin() -> None:
    config = json.loads(gke_cluster.gke_kubeconfig("demo", "203.0.113.10", CA))
    assert config["clusters"][0]["cluster"] == {"server": "https://203.0.113.10", "certificate-authority-data": CA}
    exec_ = config["users"][0]["user"]["exec"]
    assert (exec_["command"], exec_["apiVersion"], exec_["provideClusterInfo"]) == (
        "gke-gcloud-auth-plugin",
        "client.authentication.k8s.io/v1beta1",
        True,
    )


@pulumi.runtime.test
def test_example_cluster_is_standard_with_workload_identity(mocks: Mocks) -> pulumi.Output[Any]:
    provisioned = gke_cluster.provision({"name": "demo", "location": "us-central1-a", "project": "proj"})
    assert provisioned.wiring["location"] == "us-central1-a"
    assert provisioned.wiring["project"] == "proj"

    def check(kubeconfig: str) -> None:
        cluster = mocks.resources[("gcp:container/cluster:Cluster", "demo")]
        assert {key: cluster[key] for key in ("removeDefaultNodePool", "initialNodeCount")} == {
            "removeDefaultNodePool": True,
            "initialNodeCount": 1,
        }
        assert cluster["workloadIdentityConfig"] == {"workloadPool": "proj.svc.id.goog"}
        system = mocks.resources[(NODE_POOL, "demo-system")]
        assert system["nodeConfig"]["machineType"] == "e2-standard-4"
        assert system["nodeConfig"]["serviceAccount"] == "demo-nodes@proj.iam.gserviceaccount.com"
        assert system["autoscaling"] == {"totalMinNodeCount": 1, "totalMaxNodeCount": 3}
        assert json.loads(kubeconfig)["clusters"][0]["cluster"]["server"] == "https://203.0.113.10"
        assert json.loads(kubeconfig)["clusters"][0]["cluster"]["certificate-authority-data"] == CA

    urns = [resource.urn for resource in provisioned.depends_on]
    return pulumi.Output.all(provisioned.kubeconfig, *urns).apply(lambda parts: check(parts[0]))


@pulumi.runtime.test
def test_example_attaches_to_an_existing_cluster(mocks: Mocks) -> pulumi.Output[Any]:
    provisioned = gke_cluster.provision(
        {"name": "prod", "location": "us-east4", "project": "proj", "existing": True, "node_service_account": "n@x"}
    )
    assert provisioned.wiring == {
        "cluster": "prod",
        "location": "us-east4",
        "project": "proj",
        "service_account": "n@x",
    }

    def check(kubeconfig: str) -> None:
        assert mocks.calls == ["gcp:container/getCluster:getCluster"]
        assert mocks.resources == {}
        cluster = json.loads(kubeconfig)["clusters"][0]["cluster"]
        assert cluster == {"server": "https://198.51.100.7", "certificate-authority-data": CA}

    return pulumi.Output.from_input(provisioned.kubeconfig).apply(check)


def test_project_is_required_without_gcp_project_config() -> None:
    [problem] = gke_cluster.config_problems({"name": "demo", "location": "us-central1-a"})
    assert problem.path == "cluster.project"
    assert gke_cluster.config_problems({"name": "demo", "location": "us-central1-a", "project": "p"}) == []
