"""GkeGpuNodePool, the GKE adapter and the example GKE cluster under the plan's Pulumi mocks."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest

from gpu_components.adapter import ProvisionedCluster
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.gcp import cluster as gke_cluster
from gpu_components.plan import UNKNOWN, Plan
from gpu_components.spec import DEFAULT_GPU_TAINT
from gpu_components.workloads import gpu_pod_settings
from tests.helpers import BOTH_MODES, inputs_by_name, names, plan_and, plan_of, resource

NODE_POOL = "gcp:container/nodePool:NodePool"
ACCOUNT = "gcp:serviceaccount/account:Account"
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"
TAINT = {"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
CONFIG = {"gcp:project": "proj"}
"""Stack config of every plan here: resources without a project of their own are in ``proj``."""


def pool_args(**fields: Any) -> dict[str, Any]:
    pool: dict[str, Any] = {"name": "gpu", "instance_type": "g2-standard-8", "max_size": 3}
    pool.update(fields)
    return pool


def create(pool: dict[str, Any], **args: Any) -> GkeGpuNodePool:
    return GkeGpuNodePool("demo-gpu", {"pool": pool, "cluster": "demo", "location": "us-central1-a", **args})  # type: ignore[typeddict-item]


def plan_pool(preview: bool, pool: dict[str, Any], **args: Any) -> tuple[Plan, GkeGpuNodePool]:
    return plan_and(lambda: create(pool, **args), preview, CONFIG)


def node_pool(plan: Plan) -> Mapping[str, Any]:
    return resource(plan, NODE_POOL, "demo-gpu-node-pool").inputs


def accelerators(plan: Plan) -> Any:
    return node_pool(plan)["nodeConfig"]["guestAccelerators"]


@BOTH_MODES
def test_exclusive_pool_registers_exact_node_pool_inputs(preview: bool) -> None:
    plan, _ = plan_pool(preview, pool_args(name="l4", min_size=1, desired_size=2, max_size=5, labels={"team": "ml"}))
    assert node_pool(plan) == {
        "name": "l4",
        "cluster": "demo",
        "location": "us-central1-a",
        "initialNodeCount": 2,
        "autoscaling": {"totalMinNodeCount": 1, "totalMaxNodeCount": 5},
        "nodeConfig": {
            "machineType": "g2-standard-8",
            "diskSizeGb": 100,
            "guestAccelerators": [
                {"type": "nvidia-l4", "count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}
            ],
            "labels": {"gpu-components/pool": "l4", "team": "ml"},
            "taints": [TAINT],
            "spot": False,
            "oauthScopes": SCOPES,
            # The email of the service account the component creates: a computed output, unknown in preview.
            "serviceAccount": UNKNOWN if preview else "demo-gpu-node-sa@proj.iam.gserviceaccount.com",
        },
    }


@BOTH_MODES
def test_time_sharing_pool_accelerator(preview: bool) -> None:
    plan, pool = plan_pool(preview, pool_args(spot=True, time_slicing={"replicas": 4}), driver_version="LATEST")
    assert accelerators(plan) == [
        {
            "type": "nvidia-l4",
            "count": 1,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
            "gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4},
        }
    ]
    assert node_pool(plan)["nodeConfig"]["spot"] is True
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}


@BOTH_MODES
def test_mps_pool_accelerator(preview: bool) -> None:
    plan, pool = plan_pool(preview, pool_args(instance_type="g2-standard-24", mps={"replicas": 8}))
    assert accelerators(plan) == [
        {
            "type": "nvidia-l4",
            "count": 2,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
            "gpuSharingConfig": {"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 8},
        }
    ]
    assert pool.advertised_resources == {"nvidia.com/gpu": 16}


@BOTH_MODES
def test_mig_pool_accelerator(preview: bool) -> None:
    plan, pool = plan_pool(preview, pool_args(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}))
    assert accelerators(plan) == [
        {
            "type": "nvidia-tesla-a100",
            "count": 1,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
            "gpuPartitionSize": "1g.5gb",
        }
    ]
    assert pool.advertised_resources == {"nvidia.com/gpu": 7}
    assert pool.node_selector["cloud.google.com/gke-gpu-partition-size"] == "1g.5gb"


@BOTH_MODES
def test_a_layout_of_one_profile_filling_each_gpu_registers_as_the_profile(preview: bool) -> None:
    layout_plan, layout = plan_pool(preview, pool_args(instance_type="a2-highgpu-1g", mig={"layout": {"1g.5gb": 7}}))
    profile_plan, profile = plan_pool(preview, pool_args(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}))
    assert accelerators(layout_plan) == accelerators(profile_plan)
    assert accelerators(layout_plan)[0]["gpuPartitionSize"] == "1g.5gb"
    assert layout.node_selector == profile.node_selector
    assert layout.advertised_resources == {"nvidia.com/gpu": 7}


@BOTH_MODES
def test_nvidias_balanced_layout_registers_nothing(preview: bool) -> None:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            create(pool_args(instance_type="a2-highgpu-1g", mig={"config": "all-balanced", "strategy": "mixed"}))
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, preview, CONFIG)
    [error] = errors
    assert [(p.path, p.value) for p in error.problems] == [
        ("pool.mig.config", "all-balanced"),
        ("pool.mig.strategy", "mixed"),
    ]
    assert plan.resources == ()


@BOTH_MODES
def test_mig_with_time_sharing_pool_accelerator(preview: bool) -> None:
    plan, pool = plan_pool(
        preview, pool_args(instance_type="a2-highgpu-1g", mig={"profile": "3g.20gb"}, time_slicing={"replicas": 2})
    )
    assert accelerators(plan) == [
        {
            "type": "nvidia-tesla-a100",
            "count": 1,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
            "gpuPartitionSize": "3g.20gb",
            "gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2},
        }
    ]
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}


@BOTH_MODES
def test_component_creates_a_minimal_node_service_account(preview: bool) -> None:
    def program() -> None:
        pulumi.export("email", create(pool_args()).service_account_email)

    plan = plan_of(program, preview, CONFIG)
    email = UNKNOWN if preview else "demo-gpu-node-sa@proj.iam.gserviceaccount.com"  # computed: unknown in preview
    assert plan.outputs["email"] == email
    assert inputs_by_name(plan, ACCOUNT)["demo-gpu-node-sa"]["accountId"] == "demo-gpu-node-sa"
    members = inputs_by_name(plan, IAM_MEMBER)
    member = UNKNOWN if preview else f"serviceAccount:{email}"
    assert {name: (m["role"], m["member"], m["project"]) for name, m in members.items()} == {
        "demo-gpu-node-sa-node": ("roles/container.defaultNodeServiceAccount", member, "proj"),
        "demo-gpu-node-sa-registry": ("roles/artifactregistry.reader", member, "proj"),
    }


@BOTH_MODES
def test_given_service_account_creates_no_account(preview: bool) -> None:
    plan, _ = plan_pool(preview, pool_args(), service_account="nodes@proj.iam.gserviceaccount.com", project="proj")
    assert inputs_by_name(plan, ACCOUNT) == {}
    inputs = node_pool(plan)
    assert (inputs["project"], inputs["nodeConfig"]["serviceAccount"]) == (
        "proj",
        "nodes@proj.iam.gserviceaccount.com",
    )


@BOTH_MODES
def test_component_attributes_are_plain_values(preview: bool) -> None:
    plan, pool = plan_pool(
        preview, pool_args(gpu_taint=False, taints=[{"key": "team", "value": "ml", "effect": "NoSchedule"}])
    )
    assert pool.device_plugin_host == "cloud"
    assert pool.accelerator_type == "nvidia-l4"
    assert pool.driver_version == "DEFAULT"
    assert pool.labels == {"gpu-components/pool": "gpu"}
    assert pool.taints[0] == DEFAULT_GPU_TAINT
    taints = node_pool(plan)["nodeConfig"]["taints"]
    assert taints == [{"effect": "NO_SCHEDULE", "key": "team", "value": "ml"}]


@BOTH_MODES
def test_invalid_pool_registers_nothing(preview: bool) -> None:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            create(pool_args(instance_type="a2-highgpu-1g", mig={"layout": {"1g.5gb": 6}}), driver_version="NONE")
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, preview, CONFIG)
    [error] = errors
    assert [p.path for p in error.problems] == ["driver_version", "pool.mig.layout"]
    assert plan.resources == ()


@BOTH_MODES
def test_gke_cluster_deploys_no_nvidia_device_plugin(preview: bool) -> None:
    def build() -> GpuCluster:
        return GpuCluster(
            "demo",
            {
                "cloud": "gcp",
                "pools": [
                    {
                        "name": "a100-mig",
                        "instance_type": "a2-highgpu-1g",
                        "max_size": 2,
                        "mig": {"profile": "1g.5gb"},
                    },
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

    plan, cluster = plan_and(build, preview, CONFIG)
    assert cluster.device_plugin is None
    assert {name: pool.device_plugin_host for name, pool in cluster.pools.items()} == {
        "a100-mig": "cloud",
        "l4-shared": "cloud",
    }
    types = {r.type for r in plan.resources}
    assert not any(typ.startswith("kubernetes:") or "NvidiaDevicePlugin" in typ for typ in types), types
    assert names(plan, NODE_POOL) == [
        "demo-a100-mig-node-pool",
        "demo-l4-shared-node-pool",
    ]
    l4 = resource(plan, NODE_POOL, "demo-l4-shared-node-pool").inputs["nodeConfig"]["guestAccelerators"][0]
    assert l4["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "LATEST"}
    assert all(isinstance(pool, GkeGpuNodePool) for pool in cluster.pools.values())


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


def test_a_cluster_refuses_a_layout_short_of_filling_each_gpu_and_accepts_a_full_one() -> None:
    def cluster(layout: dict[str, int]) -> GpuCluster:
        pool = {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 1, "mig": {"layout": layout}}
        wiring = {"cluster": "demo", "location": "us-central1-a"}
        return GpuCluster("demo", {"cloud": "gcp", "pools": [pool], "gcp": wiring})  # type: ignore[typeddict-item, list-item]

    with pytest.raises(GpuSpecError) as error:
        cluster({"1g.5gb": 6})
    assert [(p.path, p.value) for p in error.value.problems] == [("pools[0].mig.layout", {"1g.5gb": 6})]
    plan = plan_of(lambda: cluster({"1g.5gb": 7}) and None, True, CONFIG)
    pool = resource(plan, NODE_POOL, "demo-a100-node-pool").inputs
    assert pool["nodeConfig"]["guestAccelerators"][0]["gpuPartitionSize"] == "1g.5gb"


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


def export_kubeconfig(provisioned: ProvisionedCluster, endpoint: pulumi.Input[str], ca: pulumi.Input[str]) -> None:
    """Export the kubeconfig the example program would give the Kubernetes provider, and the endpoint and CA
    certificate GKE reports for the cluster, which it must point at."""
    pulumi.export("kubeconfig", provisioned.kubeconfig)
    pulumi.export("endpoint", endpoint)
    pulumi.export("ca", ca)


@BOTH_MODES
def test_example_cluster_is_standard_with_workload_identity(preview: bool) -> None:
    def build() -> ProvisionedCluster:
        provisioned = gke_cluster.provision({"name": "demo", "location": "us-central1-a", "project": "proj"})
        [gke] = [r for r in provisioned.depends_on if isinstance(r, gcp.container.Cluster)]
        export_kubeconfig(provisioned, gke.endpoint, gke.master_auth.cluster_ca_certificate)
        return provisioned

    plan, provisioned = plan_and(build, preview, CONFIG)
    assert provisioned.wiring["location"] == "us-central1-a"
    assert provisioned.wiring["project"] == "proj"
    cluster = resource(plan, "gcp:container/cluster:Cluster", "demo").inputs
    assert {key: cluster[key] for key in ("removeDefaultNodePool", "initialNodeCount")} == {
        "removeDefaultNodePool": True,
        "initialNodeCount": 1,
    }
    assert cluster["workloadIdentityConfig"] == {"workloadPool": "proj.svc.id.goog"}
    system = resource(plan, NODE_POOL, "demo-system").inputs
    assert system["nodeConfig"]["machineType"] == "e2-standard-4"
    assert system["nodeConfig"]["serviceAccount"] == (UNKNOWN if preview else "demo-nodes@proj.iam.gserviceaccount.com")
    assert system["autoscaling"] == {"totalMinNodeCount": 1, "totalMaxNodeCount": 3}
    if preview:  # the endpoint is computed: the kubeconfig made from it is unknown
        assert [plan.outputs[key] for key in ("kubeconfig", "endpoint")] == [UNKNOWN] * 2
        return
    kubeconfig = json.loads(plan.outputs["kubeconfig"])
    assert kubeconfig["clusters"][0]["cluster"]["server"] == f"https://{plan.outputs['endpoint']}"
    assert kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"] == plan.outputs["ca"]


@BOTH_MODES
def test_example_attaches_to_an_existing_cluster(preview: bool) -> None:
    def build() -> ProvisionedCluster:
        provisioned = gke_cluster.provision(
            {"name": "prod", "location": "us-east4", "project": "proj", "existing": True, "node_service_account": "n@x"}
        )
        # What GKE reports for prod in us-east4 (the plan's getCluster mock derives it from name and location).
        found = gcp.container.get_cluster_output(name="prod", location="us-east4", project="proj")
        export_kubeconfig(provisioned, found.endpoint, found.master_auths[0].cluster_ca_certificate)
        return provisioned

    plan, provisioned = plan_and(build, preview, CONFIG)
    assert provisioned.wiring == {
        "cluster": "prod",
        "location": "us-east4",
        "project": "proj",
        "service_account": "n@x",
    }
    assert plan.resources == ()
    kubeconfig = json.loads(plan.outputs["kubeconfig"])
    assert kubeconfig["current-context"] == "prod"
    cluster = kubeconfig["clusters"][0]["cluster"]
    assert cluster == {
        "server": f"https://{plan.outputs['endpoint']}",
        "certificate-authority-data": plan.outputs["ca"],
    }


def test_project_is_required_without_gcp_project_config() -> None:
    [problem] = gke_cluster.config_problems({"name": "demo", "location": "us-central1-a"})
    assert problem.path == "cluster.project"
    assert gke_cluster.config_problems({"name": "demo", "location": "us-central1-a", "project": "p"}) == []


def rejected(pool: dict[str, Any], **args: Any) -> GpuSpecError:
    """``GkeGpuNodePool`` with ``pool`` and ``args`` under the mocks: it must raise before registering anything."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            create(pool, **args)
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, True, CONFIG)
    assert plan.resources == ()
    [error] = errors
    return error


@BOTH_MODES
def test_node_pool_args_merge_node_config_key_by_key(preview: bool) -> None:
    extra = {
        "management": {"auto_repair": True, "auto_upgrade": True},
        "node_config": {"disk_type": "pd-ssd", "reservation_affinity": {"consume_reservation_type": "NO_RESERVATION"}},
    }
    plan, _ = plan_pool(
        preview, pool_args(name="l4", disk_size_gb=300), service_account="sa@proj", node_pool_args=extra
    )
    inputs = node_pool(plan)
    assert inputs["management"] == {"autoRepair": True, "autoUpgrade": True}
    assert inputs["nodeConfig"] == {
        "machineType": "g2-standard-8",
        "diskSizeGb": 300,
        "diskType": "pd-ssd",
        "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
        "guestAccelerators": [
            {"type": "nvidia-l4", "count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}
        ],
        "labels": {"gpu-components/pool": "l4"},
        "taints": [TAINT],
        "spot": False,
        "oauthScopes": SCOPES,
        "serviceAccount": "sa@proj",
    }


NODE_POOL_OWNED = (
    "autoscaling, cluster, initial_node_count, location, name, name_prefix, node_config.boot_disk, "
    "node_config.disk_size_gb, node_config.effective_taints, node_config.guest_accelerators, node_config.image_type, "
    "node_config.labels, node_config.machine_type, node_config.oauth_scopes, node_config.preemptible, "
    "node_config.service_account, node_config.spot, node_config.taints, node_count, node_locations, project"
)
NODE_CONFIG_OWNED = (
    "boot_disk, disk_size_gb, effective_taints, guest_accelerators, image_type, labels, machine_type, oauth_scopes, "
    "preemptible, service_account, spot, taints"
)


@pytest.mark.parametrize(
    ("extra", "path", "owned"),
    [
        ({"autoscaling": {}}, "node_pool_args.autoscaling", NODE_POOL_OWNED),
        ({"node_count": 3}, "node_pool_args.node_count", NODE_POOL_OWNED),
        (
            {"node_config": {"guest_accelerators": []}},
            "node_pool_args.node_config.guest_accelerators",
            NODE_CONFIG_OWNED,
        ),
        ({"node_config": {"disk_size_gb": 50}}, "node_pool_args.node_config.disk_size_gb", NODE_CONFIG_OWNED),
        ({"node_config": {"taints": []}}, "node_pool_args.node_config.taints", NODE_CONFIG_OWNED),
    ],
)
def test_node_pool_args_may_not_set_an_owned_key(extra: dict[str, Any], path: str, owned: str) -> None:
    [problem] = rejected(pool_args(), node_pool_args=extra).problems
    assert problem.path == path
    assert problem.valid == f"any other argument; owned: {owned}"


def test_unknown_node_config_key_names_the_closest() -> None:
    [problem] = rejected(pool_args(), node_pool_args={"node_config": {"disktype": "pd-ssd"}}).problems
    assert problem.path == "node_pool_args.node_config.disktype"
    assert problem.message == (
        "unknown field; did you mean 'disk_type'? (not an argument of pulumi_gcp.container.NodePool node_config)"
    )
    assert problem.valid == "disk_type"


def test_node_config_escape_hatch_must_be_a_mapping() -> None:
    [problem] = rejected(pool_args(), node_pool_args={"node_config": "pd-ssd"}).problems
    assert (problem.path, problem.value) == ("node_pool_args.node_config", "pd-ssd")


def test_gke_autoscaler_note_only_under_the_gpu_operator() -> None:
    mig = pool_args(instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"})
    _, ours = plan_pool(True, mig)
    assert ours.autoscaler_note is None
    _, operator = plan_pool(True, mig, gpu_stack="gpu-operator", driver_version="INSTALLATION_DISABLED")
    assert operator.autoscaler_note == (
        "GKE's autoscaler builds its template from the node pool, which under the GPU Operator has 1 whole GPU(s) "
        "and no sharing or partitions, while nodes advertise 7 x nvidia.com/gpu; MIG partitions are made by the GPU "
        "Operator's MIG manager after a node joins; until then the node advertises whole GPUs, not the partitions "
        "the Cluster Autoscaler's template counts"
    )


def test_gpu_cluster_checks_the_escape_hatch_at_its_pool_path() -> None:
    pools = [{**pool_args(), "gcp": {"node_pool_args": {"node_config": {"spot": True}}}}]
    wiring = {"cluster": "demo", "location": "us-central1-a"}
    with pytest.raises(GpuSpecError) as error:
        GpuCluster("gpus", {"cloud": "gcp", "pools": pools, "gcp": wiring})  # type: ignore[typeddict-item]
    assert [p.path for p in error.value.problems] == ["pools[0].gcp.node_pool_args.node_config.spot"]


def test_gpu_stack_device_plugin_is_refused_on_a_pool_gke_serves() -> None:
    """As ``GpuCluster`` refuses it: GKE's own device plugin serves the pool, and the NVIDIA one may not run beside."""
    error = rejected(pool_args(), gpu_stack="device-plugin")
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("gpu_stack", "device-plugin", "auto, or gpu-operator (which turns GKE's plugin off)")
    ]
    assert "GKE's own device plugin" in error.problems[0].message


def test_operator_driver_outside_the_gpu_operator_is_refused() -> None:
    error = rejected(pool_args(), operator_driver=False)
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("operator_driver", False, "gpu_stack gpu-operator, or no operator_driver")
    ]
    assert "but gpu_stack is auto: it would be ignored" in error.problems[0].message


@pytest.mark.parametrize(("operator_driver", "image"), [(True, "UBUNTU_CONTAINERD"), (False, "COS_CONTAINERD")])
def test_the_node_image_follows_who_installs_the_driver_under_the_operator(operator_driver: bool, image: str) -> None:
    plan, pool = plan_pool(True, pool_args(), gpu_stack="gpu-operator", operator_driver=operator_driver)
    assert node_pool(plan)["nodeConfig"]["imageType"] == image
    assert pool.driver_version == "INSTALLATION_DISABLED"


def test_gke_installing_the_driver_under_the_operator_is_refused_either_way() -> None:
    error = rejected(pool_args(), gpu_stack="gpu-operator", operator_driver=False, driver_version="DEFAULT")
    assert [(p.path, p.value) for p in error.problems] == [("driver_version", "DEFAULT")]
    assert "GKE would install it (driver_version DEFAULT and operator_driver false)" in error.problems[0].message


# ---------------------------------------------------------------------------------------------------------------
# A node pool created by hand, tied to a ComputeClass (issue 29)
# ---------------------------------------------------------------------------------------------------------------

CLASS_TAINT = {"key": "cloud.google.com/compute-class", "value": "l4-auto", "effect": "NoSchedule"}


@BOTH_MODES
def test_a_node_pool_tied_to_a_compute_class_has_gkes_label_and_taint_and_tolerates_it(preview: bool) -> None:
    plan, pool = plan_pool(preview, pool_args(name="l4"), compute_class="l4-auto", service_account="sa@p.iam")
    config = node_pool(plan)["nodeConfig"]
    assert config["labels"] == {"cloud.google.com/compute-class": "l4-auto", "gpu-components/pool": "l4"}
    assert config["taints"] == [TAINT, {**CLASS_TAINT, "effect": "NO_SCHEDULE"}]
    assert [t.text for t in pool.taints] == [
        "nvidia.com/gpu=present:NoSchedule",
        "cloud.google.com/compute-class=l4-auto:NoSchedule",
    ]
    assert pool.tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {**CLASS_TAINT, "operator": "Equal"},
    ]
    # Its own pods still select it by its pool label (GKE admits no such label beside a ComputeClass selector).
    assert pool.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-l4", "gpu-components/pool": "l4"}
    assert pool.labels == config["labels"]
    assert gpu_pod_settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": pool.tolerations,
        "nodeSelector": pool.node_selector,
    }


def problem_lines(build: Any) -> list[str]:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            build()
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, True, CONFIG)
    assert plan.resources == ()
    [error] = errors
    return [str(problem).split(" [source: ")[0] for problem in error.problems]


WHY_TIE = (
    "GKE ties a node pool you create to a ComputeClass with this label and taint together: compute_class sets both"
)


def test_a_standalone_node_pool_refuses_a_compute_class_gke_refuses_and_its_own_label_on_the_key() -> None:
    pool = pool_args(labels={"cloud.google.com/compute-class": "x"})
    assert problem_lines(lambda: create(pool, compute_class="Autopilot_L4")) == [
        "compute_class: a ComputeClass name is an object name and the value of GKE's compute-class label (got "
        "'Autopilot_L4'); valid: 1-63 lowercase letters, digits or '-', starting and ending alphanumeric",
        f"pool.labels['cloud.google.com/compute-class']: {WHY_TIE} (got 'cloud.google.com/compute-class'); valid: "
        "compute_class: <class name>",
    ]
    assert problem_lines(lambda: create(pool_args(), compute_class="gke-l4")) == [
        "compute_class: GKE keeps ComputeClass names starting with gke- or autopilot for its own classes (autopilot, "
        "autopilot-spot), so it refuses a custom ComputeClass named so (got 'gke-l4'); valid: a name that starts "
        "with neither gke- nor autopilot"
    ]


def gke_cluster_of(pools: list[dict[str, Any]], **args: Any) -> GpuCluster:
    wiring = {"cluster": "demo", "location": "us-central1-a", "service_account": "sa@p.iam"}
    return GpuCluster("gpus", {"cloud": "gcp", "gcp": wiring, "pools": pools, **args})  # type: ignore[typeddict-item]


AUTO = {
    "name": "l4-auto",
    "instance_type": "g2-standard-8",
    "provisioning": {"provisioner": "compute-class", "max_gpus": 4},
}


def test_a_cluster_ties_a_fixed_pool_to_its_compute_class_pool() -> None:
    fixed = pool_args(name="l4", gcp={"compute_class": "l4-auto"})
    plan, cluster = plan_and(lambda: gke_cluster_of([AUTO, fixed]), False, CONFIG)
    config = resource(plan, NODE_POOL, "gpus-l4-node-pool").inputs["nodeConfig"]
    assert config["labels"] == {"cloud.google.com/compute-class": "l4-auto", "gpu-components/pool": "l4"}
    assert config["taints"] == [TAINT, {**CLASS_TAINT, "effect": "NO_SCHEDULE"}]
    assert cluster.pool_scheduling["l4"]["tolerations"][-1] == {**CLASS_TAINT, "operator": "Equal"}


def test_a_cluster_refuses_a_compute_class_that_is_not_one_of_its_compute_class_pools() -> None:
    fixed = pool_args(name="l4", gcp={"compute_class": "l4-other"})
    auto = {**AUTO, "gcp": {"compute_class": "l4-auto"}}
    assert problem_lines(lambda: gke_cluster_of([auto, fixed])) == [
        "pools[0].gcp.compute_class: a ComputeClass pool is its own ComputeClass, named like the pool; compute_class "
        "ties a fixed pool to one (got 'l4-auto'); valid: no compute_class on a ComputeClass pool",
    ]
    assert problem_lines(lambda: gke_cluster_of([AUTO, fixed])) == [
        "pools[1].gcp.compute_class: not a ComputeClass pool of this cluster: a fixed pool serves a ComputeClass the "
        "cluster makes (got 'l4-other'); valid: l4-auto",
    ]
    assert problem_lines(lambda: gke_cluster_of([fixed])) == [
        "pools[0].gcp.compute_class: not a ComputeClass pool of this cluster: a fixed pool serves a ComputeClass the "
        "cluster makes (got 'l4-other'); valid: none: the cluster has no ComputeClass pool (provisioning.provisioner: "
        "compute-class)",
    ]


def test_the_gpu_operators_daemonsets_tolerate_the_compute_class_taint_of_a_tied_pool() -> None:
    fixed = pool_args(name="l4", gcp={"compute_class": "l4-auto", "driver_version": "INSTALLATION_DISABLED"})
    plan = plan_of(lambda: gke_cluster_of([AUTO, fixed], gpu_stack="gpu-operator"), False, CONFIG)
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release").inputs["values"]
    toleration = {**CLASS_TAINT, "operator": "Equal"}
    assert toleration in values["daemonsets"]["tolerations"]
    assert toleration in values["node-feature-discovery"]["worker"]["tolerations"]


def test_the_package_path_ties_a_node_pool_to_a_compute_class_and_refuses_a_name_gke_keeps() -> None:
    from tests.test_package_construct import construct_error

    pool = {"name": "l4", "instanceType": "g2-standard-8", "maxSize": 3}
    wiring = {"cluster": "demo", "location": "us-central1-a", "project": "proj"}
    error = construct_error("GkeGpuNodePool", {"pool": pool, **wiring, "computeClass": "autopilot-l4"})
    assert [(p.path, p.value) for p in error.problems] == [("computeClass", "autopilot-l4")]
    auto = {
        "name": "l4-auto",
        "instanceType": "g2-standard-8",
        "provisioning": {"provisioner": "compute-class", "maxGpus": 4},
    }
    error = construct_error(
        "GpuCluster",
        {"cloud": "gcp", "gcp": wiring, "pools": [auto, {**pool, "gcp": {"computeClass": "l4-other"}}]},
    )
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("pools[1].gcp.computeClass", "l4-other", "l4-auto")
    ]


ZONE_LIMIT = "https://cloud.google.com/kubernetes-engine/quotas"


def test_a_pool_larger_than_its_zones_allow_registers_nothing() -> None:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            create(pool_args(max_size=2001), node_locations=["us-central1-a", "us-central1-b"])
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program, False, CONFIG)
    [problem] = errors[0].problems
    assert (problem.path, problem.value, problem.valid, problem.source) == (
        "pool.max_size",
        2001,
        "<= 2000, or more zones",
        ZONE_LIMIT,
    )
    assert problem.message == (
        "more nodes than GKE allows in one node pool over the 2 zone(s) of node_locations (1000 per node pool zone)"
    )
    assert plan.resources == ()


def test_a_pool_of_1000_nodes_per_zone_is_a_node_pool() -> None:
    plan = plan_of(lambda: create(pool_args(max_size=1000), node_locations=["us-central1-a"]), False, CONFIG)
    assert node_pool(plan)["autoscaling"]["totalMaxNodeCount"] == 1000


@pytest.mark.parametrize("existing", [False, True])
def test_stack_config_refuses_a_fixed_pool_larger_than_the_clusters_zones_allow(existing: bool) -> None:
    cluster = {"name": "demo", "location": "us-central1", "node_locations": ["us-central1-a"], "existing": existing}
    pools = [pool_args(max_size=1001), pool_args(name="small", max_size=1000)]
    [problem] = gke_cluster.stack_problems(cluster, pools)
    assert (problem.path, problem.value, problem.valid, problem.source) == (
        "pools[0].max_size",
        1001,
        "<= 1000, or more zones",
        ZONE_LIMIT,
    )
    assert problem.message == (
        "more nodes than GKE allows in one node pool over the 1 zone(s) of cluster.node_locations "
        "(1000 per node pool zone)"
    )


def test_gpu_cluster_refuses_a_fixed_pool_larger_than_its_zones_allow() -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuCluster(
            "demo",
            {
                "cloud": "gcp",
                "pools": [pool_args(max_size=1001)],
                "gcp": {"cluster": "demo", "location": "us-central1-a", "node_locations": ["us-central1-a"]},
            },
        )
    [problem] = error.value.problems
    assert (problem.path, problem.value) == ("pools[0].max_size", 1001)
    assert "zone(s) of gcp.node_locations" in problem.message


def test_a_pool_in_a_zonal_location_has_one_zone() -> None:
    """Without node_locations a zonal cluster's pool is in its one zone (us-central1-a): at most 1000 nodes."""
    with pytest.raises(GpuSpecError) as error:
        create(pool_args(max_size=1001))
    [problem] = error.value.problems
    assert (problem.path, problem.value, problem.valid, problem.source) == (
        "pool.max_size",
        1001,
        "<= 1000, or node_locations naming more zones",
        ZONE_LIMIT,
    )
    assert problem.message == (
        "more nodes than GKE allows in one node pool in the zone of location us-central1-a (1000 per node pool zone)"
    )
    plan = plan_of(lambda: create(pool_args(max_size=1001), location="us-central1"), False, CONFIG)
    assert node_pool(plan)["autoscaling"]["totalMaxNodeCount"] == 1001


def test_stack_config_refuses_a_fixed_pool_larger_than_a_zonal_clusters_zone() -> None:
    cluster = {"name": "demo", "location": "us-central1-a"}
    [problem] = gke_cluster.stack_problems(cluster, [pool_args(max_size=1001)])  # type: ignore[arg-type]
    assert (problem.path, problem.value, problem.valid) == (
        "pools[0].max_size",
        1001,
        "<= 1000, or cluster.node_locations naming more zones",
    )
    assert problem.message == (
        "more nodes than GKE allows in one node pool in the zone of cluster.location us-central1-a (1000 per node "
        "pool zone)"
    )
    assert gke_cluster.stack_problems({**cluster, "location": "us-central1"}, [pool_args(max_size=1001)]) == []  # type: ignore[arg-type]


def test_gpu_cluster_refuses_a_fixed_pool_larger_than_its_zonal_locations_zone() -> None:
    with pytest.raises(GpuSpecError) as error:
        GpuCluster(
            "demo",
            {"cloud": "gcp", "pools": [pool_args(max_size=1001)], "gcp": {"cluster": "demo", "location": "us-west1-b"}},
        )
    [problem] = error.value.problems
    assert (problem.path, problem.value, problem.valid) == (
        "pools[0].max_size",
        1001,
        "<= 1000, or gcp.node_locations naming more zones",
    )
    assert problem.message == (
        "more nodes than GKE allows in one node pool in the zone of gcp.location us-west1-b (1000 per node pool zone)"
    )


def test_a_provisioned_pool_is_not_a_node_pool() -> None:
    pool = {
        "name": "l4",
        "instance_type": "g2-standard-8",
        "provisioning": {"provisioner": "compute-class", "max_gpus": 8},
    }
    with pytest.raises(GpuSpecError) as error:
        plan_of(lambda: create(pool), True, CONFIG)
    assert [(p.path, p.value, p.message, p.valid) for p in error.value.problems] == [
        (
            "pool.provisioning.provisioner",
            "compute-class",
            "GkeGpuNodePool makes a fixed GKE node pool; a pool that a ComputeClass creates nodes for is a "
            "GkeComputeClassGpuPool",
            "no provisioning, or GkeComputeClassGpuPool",
        )
    ]
