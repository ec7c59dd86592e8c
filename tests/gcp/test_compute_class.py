"""GkeComputeClassGpuPool (a provisioned GKE pool: a ComputeClass with node-pool auto-creation) and the GCP adapter's
dispatch to it, under the plan's Pulumi mocks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gpu_components.cli import main
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeComputeClassGpuPool
from gpu_components.gcp import cluster as gke_cluster
from gpu_components.kubernetes import NvidiaDevicePlugin
from gpu_components.plan import Plan
from gpu_components.workloads import gpu_pod_settings
from tests import crd_schemas
from tests.helpers import BOTH_MODES, ROOT, copy_example_project, example_plan, plan_and, plan_of

COMPUTE_CLASS = "kubernetes:cloud.google.com/v1:ComputeClass"
CONFIG = {"gcp:project": "proj"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
L4_SPOT_THEN_ON_DEMAND = {
    "name": "l4",
    "instance_type": "g2-standard-8",
    "labels": {"team": "ml"},
    "time_slicing": {"replicas": 4, "trusted": True},
    "provisioning": {"provisioner": "compute-class", "max_gpus": 8, "capacity_types": ["spot", "on-demand"]},
}
A3_RESERVED = {
    "name": "h100",
    "instance_type": "a3-highgpu-8g",
    "disk_size_gb": 500,
    "provisioning": {
        "provisioner": "compute-class",
        "instance_types": ["a3-megagpu-8g"],
        "max_gpus": 64,
        "capacity_types": ["reserved", "on-demand"],
        "reservation": "h100-reservation",
        "disruption": {
            "consolidation": "when-empty-or-underutilized",
            "consolidate_after": "1h",
            "expire_after": "720h",
        },
    },
}


def provisioned(**fields: Any) -> dict[str, Any]:
    """An on-demand L4 ComputeClass pool with ``fields`` over it (``provisioning`` merged key by key)."""
    pool: dict[str, Any] = {"name": "gpu", "instance_type": "g2-standard-8"}
    provisioning = {"provisioner": "compute-class", "max_gpus": 4, **fields.pop("provisioning", {})}
    return {**pool, **fields, "provisioning": provisioning}


def plan_class(pool: dict[str, Any], preview: bool = False, **args: Any) -> tuple[Plan, GkeComputeClassGpuPool]:
    return plan_and(lambda: GkeComputeClassGpuPool("demo", {"pool": pool, **args}), preview, CONFIG)  # type: ignore[typeddict-item]


def custom_resource(plan: Plan) -> dict[str, Any]:
    """The plan's one ComputeClass, as the Kubernetes API gets it."""
    [found] = [r for r in plan.resources if r.type == COMPUTE_CLASS]
    assert found.name == "demo-compute-class"
    return dict(found.inputs)


def problem_lines(build: Callable[[], object]) -> list[str]:
    """The problems ``build`` raises under the mocks, before any resource is registered, each without its source."""
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


@BOTH_MODES
def test_l4_pool_with_spot_then_on_demand_is_this_compute_class(preview: bool) -> None:
    plan, pool = plan_class(L4_SPOT_THEN_ON_DEMAND, preview, driver_version="LATEST")
    gpu = {
        "type": "nvidia-l4",
        "count": 1,
        "driverVersion": "latest",
        "gpuSharing": {"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU": 4},
    }
    cr = custom_resource(plan)
    assert cr == {
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "metadata": {"name": "l4"},
        "spec": {
            "nodePoolAutoCreation": {"enabled": True},
            "whenUnsatisfiable": "DoNotScaleUp",
            "activeMigration": {"optimizeRulePriority": False},
            "autoscalingPolicy": {
                "consolidationDelayMinutes": 10,
                "consolidationThreshold": 0,
                "gpuConsolidationThreshold": 0,
            },
            "nodePoolConfig": {
                "nodeLabels": {"gpu-components/pool": "l4", "gpu-components/sharing": "trusted", "team": "ml"},
                "taints": [GPU_TAINT],
            },
            "priorities": [
                {"machineType": "g2-standard-8", "gpu": gpu, "spot": True, "storage": {"bootDiskSize": 100}},
                {"machineType": "g2-standard-8", "gpu": gpu, "storage": {"bootDiskSize": 100}},
            ],
        },
    }
    assert crd_schemas.problems(cr, "gcp") == []
    assert pool.device_plugin_host == "cloud"
    # GKE admits no accelerator, sharing or pool label beside a custom ComputeClass: the class alone.
    assert pool.node_selector == {"cloud.google.com/compute-class": "l4"}
    assert [t.text for t in pool.taints] == [
        "nvidia.com/gpu=present:NoSchedule",
        "cloud.google.com/compute-class=l4:NoSchedule",
    ]
    assert pool.tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "cloud.google.com/compute-class", "operator": "Equal", "value": "l4", "effect": "NoSchedule"},
    ]
    assert pool.advertised_resources == {"nvidia.com/gpu": 4}
    # The helper gives a pod exactly that: one shared GPU, both tolerations, the class alone.
    assert gpu_pod_settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": pool.tolerations,
        "nodeSelector": {"cloud.google.com/compute-class": "l4"},
    }
    assert pool.autoscaler_note == (
        "GKE applies no limit to a ComputeClass: max_gpus 8 holds only as the cluster's node auto-provisioning "
        "resource limit on nvidia-l4, shared by every node pool GKE creates with those GPUs "
        "(cluster.node_auto_provisioning)"
    )


def test_reserved_a3_pool_is_this_compute_class() -> None:
    plan, pool = plan_class(A3_RESERVED, service_account="nodes@proj.iam.gserviceaccount.com")
    reservation = {"affinity": "Specific", "specific": [{"name": "h100-reservation"}]}

    def rule(machine_type: str, accelerator: str, **more: Any) -> dict[str, Any]:
        return {
            "machineType": machine_type,
            "gpu": {"type": accelerator, "count": 8},
            "storage": {"bootDiskSize": 500},
            **more,
            "maxRunDurationSeconds": 2592000,
        }

    cr = custom_resource(plan)
    assert cr["spec"] == {
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": "DoNotScaleUp",
        "activeMigration": {"optimizeRulePriority": False},
        "autoscalingPolicy": {"consolidationDelayMinutes": 60},
        "nodePoolConfig": {
            "nodeLabels": {"gpu-components/pool": "h100"},
            "taints": [GPU_TAINT],
            "serviceAccount": "nodes@proj.iam.gserviceaccount.com",
        },
        "priorities": [
            rule("a3-highgpu-8g", "nvidia-h100-80gb", reservations=reservation),
            rule("a3-megagpu-8g", "nvidia-h100-mega-80gb", reservations=reservation),
            rule("a3-highgpu-8g", "nvidia-h100-80gb"),
            rule("a3-megagpu-8g", "nvidia-h100-mega-80gb"),
        ],
    }
    assert crd_schemas.problems(cr, "gcp") == []
    assert pool.node_selector == {"cloud.google.com/compute-class": "h100"}
    assert "resource limit on nvidia-h100-80gb, nvidia-h100-mega-80gb" in (pool.autoscaler_note or "")


@pytest.mark.parametrize(
    ("fields", "gpu_sharing", "advertised"),
    [
        (
            {"instance_type": "g2-standard-24", "mps": {"replicas": 8}},
            {"sharingStrategy": "MPS", "maxSharedClientsPerGPU": 8},
            16,
        ),
        ({"instance_type": "a2-highgpu-1g", "mig": {"profile": "1g.5gb"}}, {"gpuPartitionSize": "1g.5gb"}, 7),
        (
            {"instance_type": "a2-highgpu-1g", "mig": {"profile": "3g.20gb"}, "time_slicing": {"replicas": 2}},
            {"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU": 2, "gpuPartitionSize": "3g.20gb"},
            4,
        ),
    ],
    ids=["mps", "mig", "mig-time-sharing"],
)
def test_sharing_and_mig_are_the_compute_class_gpu_sharing(
    fields: dict[str, Any], gpu_sharing: dict[str, Any], advertised: int
) -> None:
    plan, pool = plan_class(provisioned(**fields, provisioning={"max_gpus": 8}))
    cr = custom_resource(plan)
    [rule] = cr["spec"]["priorities"]
    assert rule["gpu"]["gpuSharing"] == gpu_sharing
    assert crd_schemas.problems(cr, "gcp") == []
    assert pool.advertised_resources == {"nvidia.com/gpu": advertised}


def test_a_family_is_one_rule_per_catalog_machine_type_and_zones_and_escape_hatch_merge() -> None:
    plan, _ = plan_class(
        provisioned(provisioning={"instance_families": ["g2"], "max_gpus": 8}),
        node_locations=["us-central1-a"],
        compute_class_spec={"description": "L4 for notebooks", "nodePoolConfig": {"imageType": "cos_containerd"}},
    )
    cr = custom_resource(plan)
    assert [rule["machineType"] for rule in cr["spec"]["priorities"]] == [
        "g2-standard-8",
        "g2-standard-12",
        "g2-standard-16",
        "g2-standard-24",
        "g2-standard-32",
        "g2-standard-4",
        "g2-standard-48",
        "g2-standard-96",
    ]
    assert [rule["gpu"]["count"] for rule in cr["spec"]["priorities"]] == [1, 1, 1, 2, 1, 1, 4, 8]
    assert cr["spec"]["priorityDefaults"] == {"location": {"zones": ["us-central1-a"]}}
    assert cr["spec"]["description"] == "L4 for notebooks"
    assert cr["spec"]["nodePoolConfig"] == {
        "nodeLabels": {"gpu-components/pool": "gpu"},
        "taints": [GPU_TAINT],
        "imageType": "cos_containerd",
    }
    assert crd_schemas.problems(cr, "gcp") == []


def test_component_refuses_what_gke_cannot_do() -> None:
    pool = provisioned(
        mig={"layout": {"3g.20gb": 1, "2g.10gb": 1}, "strategy": "mixed"},
        provisioning={"max_nodes": 2, "disruption": {"consolidate_after": "90s"}},
    )
    assert problem_lines(
        lambda: GkeComputeClassGpuPool(
            "demo",
            {
                "pool": {**pool, "instance_type": "a2-highgpu-1g"},
                "gpu_stack": "device-plugin",
                "compute_class_spec": {"priorities": [], "nodePoolConfig": {"taints": []}, "nodepool": {}},
            },
        )
    ) == [
        "gpu_stack: a ComputeClass pool is served by GKE's own device plugin, which the NVIDIA device plugin may not "
        "run beside (got 'device-plugin'); valid: auto",
        "pool.mig.layout: GKE partitions every GPU of a pool with one partition size (gpu_partition_size), each GPU "
        "filled with the most instances of it; the layout is 1 x 3g.20gb, 1 x 2g.10gb, several profiles (got "
        "{'3g.20gb': 1, '2g.10gb': 1}); valid: mig.profile with one partition size, e.g. 1g.10gb, or a layout of one "
        "profile at its most instances per GPU",
        "pool.mig.strategy: GKE advertises every MIG partition as nvidia.com/gpu (the single strategy) (got 'mixed'); "
        "valid: single",
        "pool.provisioning.max_nodes: GKE has no node limit for a ComputeClass or the node pools it creates; its "
        "limits are the cluster's node auto-provisioning resource limits (cpu, memory, GPUs per accelerator type) "
        "(got 2); valid: pool.provisioning.max_gpus",
        "pool.provisioning.disruption.consolidate_after: a ComputeClass's consolidationDelayMinutes is whole minutes "
        "from 1 minute to 24 hours (got '90s'); valid: 1m..1440m in whole minutes, e.g. 10m, 1h30m",
        "compute_class_spec.priorities: set by the library from the pool (got 'priorities'); valid: a field not in "
        "autopilot, autoscalingPolicy, nodePoolAutoCreation, priorities, whenUnsatisfiable",
        "compute_class_spec.nodePoolConfig.taints: set by the library from the pool (labels, taints, the nodes' "
        "service account) (got 'taints'); valid: the pool's labels and taints, or the service_account wiring",
        "compute_class_spec.nodepool: not a ComputeClass spec field (got 'nodepool'); valid: activeMigration, "
        "autopilot, autoscalingPolicy, description, nodePoolAutoCreation, nodePoolConfig, nodePoolGroup, priorities, "
        "priorityDefaults, whenUnsatisfiable",
    ]


def test_component_refuses_a_fixed_pool_and_gke_driver_off() -> None:
    fixed = {"name": "gpu", "instance_type": "g2-standard-8", "max_size": 2}
    assert problem_lines(lambda: GkeComputeClassGpuPool("demo", {"pool": fixed})) == [
        "pool.provisioning: a GkeComputeClassGpuPool is a provisioned pool: provisioning with provisioner "
        "compute-class (got None); valid: provisioning: {provisioner: compute-class, max_gpus: ...}; or GkeGpuNodePool "
        "for a fixed pool",
    ]
    assert problem_lines(
        lambda: GkeComputeClassGpuPool(
            "demo",
            {
                "pool": provisioned(provisioning={"reservation": "Bad_Name", "capacity_types": ["reserved"]}),
                "driver_version": "INSTALLATION_DISABLED",
            },
        )
    ) == [
        "driver_version: not a GKE driver installation mode the library supports (INSTALLATION_DISABLED would "
        "leave the nodes without a driver unless gpu_stack is gpu-operator, whose driver then installs it) (got "
        "'INSTALLATION_DISABLED'); valid: DEFAULT, LATEST",
        "pool.provisioning.reservation: not a Compute Engine reservation name (got 'Bad_Name'); valid: 1-63 "
        "lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen",
    ]


def gcp_cluster(pools: list[dict[str, Any]], **args: Any) -> GpuCluster:
    return GpuCluster(
        "gpus",
        {
            "cloud": "gcp",
            "gcp": {"cluster": "demo", "location": "us-central1-a", "service_account": "sa@p.iam"},
            "pools": pools,
            **args,
        },  # type: ignore[typeddict-item]
    )


def test_gpu_cluster_makes_a_compute_class_beside_a_node_pool_and_no_device_plugin() -> None:
    fixed = {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 2, "mig": {"profile": "1g.5gb"}}
    plan, cluster = plan_and(lambda: gcp_cluster([fixed, L4_SPOT_THEN_ON_DEMAND]), False, CONFIG)
    assert type(cluster.pools["l4"]).__name__ == "GkeComputeClassGpuPool"
    assert type(cluster.pools["a100"]).__name__ == "GkeGpuNodePool"
    cr = custom_resource_named(plan, "gpus-l4-compute-class")
    assert cr["spec"]["nodePoolConfig"]["serviceAccount"] == "sa@p.iam"
    assert crd_schemas.problems(cr, "gcp") == []
    # GKE's own device plugin serves both pools: no DaemonSet of ours runs anywhere, so no node gets two plugins.
    assert [r.type for r in plan.resources if r.type.startswith("kubernetes:") and r.type != COMPUTE_CLASS] == []
    assert cluster.pool_scheduling["l4"]["devicePluginHost"] == "cloud"
    assert cluster.pool_scheduling["l4"]["nodeSelector"] == {"cloud.google.com/compute-class": "l4"}


def custom_resource_named(plan: Plan, name: str) -> dict[str, Any]:
    [found] = [r for r in plan.resources if r.type == COMPUTE_CLASS and r.name == name]
    return dict(found.inputs)


def test_gpu_cluster_and_device_plugin_refuse_compute_class_pools_with_exact_errors() -> None:
    pool = provisioned(gcp={"node_pool_args": {"management": {"auto_repair": True}}})
    fixed = {"name": "fixed", "instance_type": "g2-standard-8", "max_size": 1, "gcp": {"compute_class_spec": {}}}
    assert problem_lines(lambda: gcp_cluster([pool, fixed])) == [
        "pools[0].gcp.node_pool_args: a ComputeClass pool has no node pool of its own: GKE creates its node pools "
        "(got {'management': {'auto_repair': True}}); valid: pools[0].gcp.compute_class_spec (other ComputeClass "
        "spec fields)",
        "pools[1].gcp.compute_class_spec: only a ComputeClass pool (provisioning with provisioner compute-class) has "
        "a ComputeClass (got {}); valid: pools[1].gcp.node_pool_args for a fixed node pool",
    ]
    assert problem_lines(lambda: NvidiaDevicePlugin("dp", {"cloud": "gcp", "pools": [provisioned()]})) == [
        "pools[0]: its GPUs are advertised by the cloud's managed device plugin (GKE's, or EKS Auto Mode's); a second "
        "advertiser on its nodes would break them (got 'gpu'); valid: pools served by the NVIDIA device plugin "
        "DaemonSet (NvidiaDevicePlugin)",
    ]


COMPUTE_CLASS_KEY_PROBLEMS = [
    "pools[0].taints[0]: GKE taints a ComputeClass's nodes cloud.google.com/compute-class=gpu:NoSchedule itself and "
    "gives the pods that select the class its toleration; a taint of yours with this key would conflict with it (got "
    "{'key': 'cloud.google.com/compute-class', 'value': 'gpu', 'effect': 'NoSchedule'}); valid: a taint with another "
    "key",
    "pools[0].labels['cloud.google.com/compute-class']: set by GKE on a ComputeClass's nodes to the class's name "
    "(gpu): pods select the class with it (the pool's node_selector has it) (got 'cloud.google.com/compute-class'); "
    "valid: any other label key",
]


def test_a_compute_class_pool_refuses_a_label_or_taint_on_gkes_compute_class_key() -> None:
    pool = provisioned(
        labels={"cloud.google.com/compute-class": "other"},
        taints=[{"key": "cloud.google.com/compute-class", "value": "gpu", "effect": "NoSchedule"}],
    )
    assert problem_lines(lambda: gcp_cluster([pool])) == COMPUTE_CLASS_KEY_PROBLEMS
    component = [line.replace("pools[0].", "pool.") for line in COMPUTE_CLASS_KEY_PROBLEMS]
    assert problem_lines(lambda: GkeComputeClassGpuPool("demo", {"pool": pool})) == component  # type: ignore[typeddict-item]
    # A fixed pool says so with gcp.compute_class (one way to say it), which sets both.
    fixed = {**pool, "max_size": 1}
    del fixed["provisioning"]
    why = (
        "GKE ties a node pool you create to a ComputeClass with this label and taint together: compute_class sets both"
    )
    assert problem_lines(lambda: gcp_cluster([fixed])) == [
        "pools[0].taints[0]: "
        + why
        + " (got {'key': 'cloud.google.com/compute-class', 'value': 'gpu', 'effect': 'NoSchedule'}); valid: "
        "pools[0].gcp.compute_class: <class name>",
        f"pools[0].labels['cloud.google.com/compute-class']: {why} (got 'cloud.google.com/compute-class'); valid: "
        "pools[0].gcp.compute_class: <class name>",
    ]


def plan_stack_text(tmp_path: Path, stack: str) -> list[str]:
    """``gpu-components plan`` of a stack file ``stack`` (its text) in a copy of the example project: the output's
    lines after the first; ``[]`` when it plans."""
    copy_example_project(tmp_path)
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(stack)
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == (1 if "invalid GPU setting" in result.output else 0), result.output
    return result.output.splitlines()[1:] if result.exit_code else []


def test_device_plugin_settings_on_a_stack_of_gke_served_pools_are_an_error(tmp_path: Path) -> None:
    """Every pool of the gcp-gke stack is served by GKE's device plugin: settings of the NVIDIA one would be
    ignored."""
    stack = (ROOT / "stacks" / "Pulumi.gcp-gke.yaml").read_text()
    pools = "  gpu-components:pools:\n"
    assert plan_stack_text(
        tmp_path, stack.replace(pools, "  gpu-components:device_plugin: {namespace: gpu}\n" + pools)
    ) == [
        "  - device_plugin: NVIDIA device plugin settings, but no pool is served by the NVIDIA device plugin (each "
        "pool's GPUs are advertised by another: pools[0] (a100-mig): cloud, pools[1] (b200-mig): cloud, pools[2] "
        "(l4-shared): cloud, pools[3] (l4-auto): cloud), so the cluster deploys none and they would be ignored (got "
        "{'namespace': 'gpu'}); valid: no device_plugin settings, or a pool the NVIDIA device plugin serves"
    ]


def test_stack_config_reports_compute_class_problems(tmp_path: Path) -> None:
    lines = plan_stack_text(
        tmp_path,
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
        "  gpu-components:pools:\n"
        "    - name: l4\n      instance_type: g2-standard-8\n"
        "      provisioning: {provisioner: compute-class, max_nodes: 3}\n",
    )
    assert lines == [
        "  - pools[0].provisioning.max_nodes: GKE has no node limit for a ComputeClass or the node pools it creates; "
        "its limits are the cluster's node auto-provisioning resource limits (cpu, memory, GPUs per accelerator "
        "type) (got 3); valid: pools[0].provisioning.max_gpus [source: "
        "https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning]",
    ]


NAP = {"cpu": 64, "memory_gb": 256, "gpus": {"nvidia-l4": 12, "nvidia-h100-80gb": 16}}


def test_example_cluster_turns_on_node_auto_provisioning_with_its_limits() -> None:
    plan, _ = plan_and(
        lambda: gke_cluster.provision(
            {"name": "demo", "location": "us-central1-a", "project": "proj", "node_auto_provisioning": NAP}
        ),
        False,
        CONFIG,
    )
    [cluster] = [r for r in plan.resources if r.type == "gcp:container/cluster:Cluster"]
    assert cluster.inputs["clusterAutoscaling"] == {
        "enabled": True,
        "resourceLimits": [
            {"resourceType": "cpu", "minimum": 0, "maximum": 64},
            {"resourceType": "memory", "minimum": 0, "maximum": 256},
            {"resourceType": "nvidia-h100-80gb", "minimum": 0, "maximum": 16},
            {"resourceType": "nvidia-l4", "minimum": 0, "maximum": 12},
        ],
    }
    without, _ = plan_and(
        lambda: gke_cluster.provision({"name": "demo", "location": "us-central1-a", "project": "proj"}), False, CONFIG
    )
    [cluster] = [r for r in without.resources if r.type == "gcp:container/cluster:Cluster"]
    assert "clusterAutoscaling" not in cluster.inputs


def test_node_auto_provisioning_config_problems() -> None:
    bad = {"cpu": 0, "memory_gb": 8, "gpus": {"nvidia-l44": 4, "nvidia-l4": 0}}
    where = {"name": "demo", "location": "us-central1-a", "project": "p"}
    lines = [str(p) for p in gke_cluster.config_problems({**where, "node_auto_provisioning": bad})]
    source = " [source: https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning]"
    assert lines[0] == "cluster.node_auto_provisioning.cpu: a limit of at least 1 (got 0); valid: >= 1" + source
    assert lines[1].startswith(
        "cluster.node_auto_provisioning.gpus['nvidia-l44']: not a GKE GPU accelerator type (got 'nvidia-l44'); "
        "valid: nvidia-a100-80gb, "
    )
    assert "nvidia-l4, " in lines[1] and "nvidia-tesla-t4" in lines[1]
    assert lines[2:] == [
        "cluster.node_auto_provisioning.gpus['nvidia-l4']: a limit of at least 1 (got 0); valid: >= 1" + source
    ]
    assert [
        str(p) for p in gke_cluster.config_problems({**where, "existing": True, "node_auto_provisioning": NAP})
    ] == [
        f"cluster.node_auto_provisioning: applies only to a cluster this program creates; with existing: true it "
        f"would be ignored (got {NAP!r}); valid: remove it, or create the cluster (existing: false)"
    ]
    assert gke_cluster.config_problems({**where, "node_auto_provisioning": NAP}) == []


NAP_PAGE = "https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning"
NAP_CONCEPTS = "https://cloud.google.com/kubernetes-engine/docs/concepts/node-auto-provisioning"


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        (
            "{nvidia-h100-80gb: 8}",
            "cluster.node_auto_provisioning.gpus: no limit on nvidia-l4, the GPUs of max_gpus 8 of pools[1] (l4-auto, "
            "a ComputeClass pool) + 1 of pools[0] (fixed, a fixed pool, max_size 1 x 1): GKE creates no node with "
            "GPUs the cluster's node auto-provisioning has no limit on, and those limits also bound the node pools it "
            f"creates for a ComputeClass (got {{'nvidia-h100-80gb': 8}}); valid: nvidia-l4: 9 or more "
            f"[source: {NAP_PAGE}]",
        ),
        (
            "{nvidia-l4: 8}",
            "cluster.node_auto_provisioning.gpus['nvidia-l4']: below the 9 nvidia-l4 GPUs the cluster's pools may "
            "hold (max_gpus 8 of pools[1] (l4-auto, a ComputeClass pool) + 1 of pools[0] (fixed, a fixed pool, "
            "max_size 1 x 1)): the limit is cluster-wide and counts every node pool's GPUs, fixed pools' too, so the "
            f"ComputeClass pools could never reach their max_gpus (got 8); valid: 9 or more [source: {NAP_PAGE}; "
            f"{NAP_CONCEPTS}]",
        ),
    ],
    ids=["no-limit-on-the-pools-gpus", "limit-below-the-pools-sum"],
)
def test_a_compute_class_pool_needs_the_new_clusters_limit_on_all_pools_gpus(
    tmp_path: Path, gpus: str, expected: str
) -> None:
    """GKE's node auto-provisioning limits are cluster-wide and count fixed pools' nodes too: the limit on a
    ComputeClass pool's GPUs must hold its max_gpus plus the fixed pools' most GPUs of that type."""
    stack = (
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
        f"    node_auto_provisioning: {{cpu: 64, memory_gb: 256, gpus: {gpus}}}\n"
        "  gpu-components:pools:\n"
        "    - {name: fixed, instance_type: g2-standard-8, max_size: 1}\n"
        "    - name: l4-auto\n      instance_type: g2-standard-8\n"
        "      provisioning: {provisioner: compute-class, max_gpus: 8}\n"
    )
    assert plan_stack_text(tmp_path, stack) == [f"  - {expected}"]
    assert plan_stack_text(tmp_path, stack.replace(gpus, "{nvidia-l4: 9}")) == []
    limits = f"    node_auto_provisioning: {{cpu: 64, memory_gb: 256, gpus: {gpus}}}\n"
    assert plan_stack_text(tmp_path, stack.replace(limits, "")) == []


def test_two_compute_class_pools_share_the_limit_on_their_gpus(tmp_path: Path) -> None:
    stack = (
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
        "    node_auto_provisioning: {cpu: 64, memory_gb: 256, gpus: {nvidia-l4: 12}}\n"
        "  gpu-components:pools:\n"
        "    - {name: a, instance_type: g2-standard-8, provisioning: {provisioner: compute-class, max_gpus: 8}}\n"
        "    - {name: b, instance_type: g2-standard-8, provisioning: {provisioner: compute-class, max_gpus: 8}}\n"
    )
    assert plan_stack_text(tmp_path, stack) == [
        "  - cluster.node_auto_provisioning.gpus['nvidia-l4']: below the 16 nvidia-l4 GPUs the cluster's pools may "
        "hold (max_gpus 8 of pools[0] (a, a ComputeClass pool) + max_gpus 8 of pools[1] (b, a ComputeClass pool)): "
        "the limit is cluster-wide and counts every node pool's GPUs, fixed pools' too, so the ComputeClass pools "
        f"could never reach their max_gpus (got 12); valid: 16 or more [source: {NAP_PAGE}; {NAP_CONCEPTS}]"
    ]


@pytest.mark.parametrize(
    ("version", "refused"),
    [
        ("1.32", True),
        ("1.33.2-gke.100", True),
        ("1.33.3-gke.1000", True),
        ("1.33", False),
        ("1.33.3-gke.1136000", False),
        ("latest", False),
    ],
)
def test_a_compute_class_pool_before_auto_creation_without_nap_needs_node_auto_provisioning(
    tmp_path: Path, version: str, refused: bool
) -> None:
    """Before GKE 1.33.3-gke.1136000 (AUTO_CREATION_WITHOUT_NAP_VERSION) GKE creates node pools for a ComputeClass
    only with cluster-level node auto-provisioning; a prefix that also names later versions is left to GKE."""
    stack = (
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        f"  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n    kubernetes_version: '{version}'\n"
        "  gpu-components:pools:\n"
        "    - {name: l4-auto, instance_type: g2-standard-8, provisioning: {provisioner: compute-class, max_gpus: 8}}\n"
    )
    expected = [
        f"  - cluster.node_auto_provisioning: required for pools[0] (l4-auto, a ComputeClass pool) on "
        f"kubernetes_version {version}: before GKE 1.33.3-gke.1136000 GKE creates node pools for a ComputeClass only "
        "with the cluster's node auto-provisioning on, so it would create none (got None); valid: "
        "node_auto_provisioning with limits on the pool's GPUs, or kubernetes_version 1.33.3-gke.1136000 or later "
        f"[source: {NAP_PAGE}]"
    ]
    assert plan_stack_text(tmp_path, stack) == (expected if refused else [])
    with_nap = stack.replace(
        "  gpu-components:pools:",
        "    node_auto_provisioning: {cpu: 8, memory_gb: 32, gpus: {nvidia-l4: 8}}\n  gpu-components:pools:",
    )
    assert plan_stack_text(tmp_path, with_nap) == []


def test_gcp_gke_stack_compute_class_validates_and_no_daemonset_runs_on_its_nodes() -> None:
    plan = example_plan("gcp-gke")
    [found] = [r for r in plan.resources if r.type == COMPUTE_CLASS]
    cr = dict(found.inputs)
    assert found.name == "gpu-demo-gpu-l4-auto-compute-class"
    assert crd_schemas.problems(cr, "gcp") == []
    # Spot rules say so; on-demand rules carry no spot field (the CRD's "on-demand otherwise").
    assert [(rule["machineType"], rule.get("spot")) for rule in cr["spec"]["priorities"]] == [
        ("g2-standard-8", True),
        ("g2-standard-24", True),
        ("g2-standard-8", None),
        ("g2-standard-24", None),
    ]
    # GKE's device plugin serves every pool of the stack: it renders no DaemonSet at all.
    assert [r.name for r in plan.resources if r.type == "kubernetes:apps/v1:DaemonSet"] == []


def test_under_the_gpu_operator_a_compute_class_pool_stays_gkes_and_keeps_the_operands_off() -> None:
    fixed = {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 2}
    plan, cluster = plan_and(
        lambda: gcp_cluster([fixed, L4_SPOT_THEN_ON_DEMAND], gpu_stack="gpu-operator"), False, CONFIG
    )
    pool = cluster.pools["l4"]
    assert pool.device_plugin_host == "cloud"
    assert cluster.pools["a100"].device_plugin_host == "gpu-operator"
    cr = custom_resource_named(plan, "gpus-l4-compute-class")
    assert cr["spec"]["nodePoolConfig"]["nodeLabels"] == {
        "gpu-components/pool": "l4",
        "gpu-components/sharing": "trusted",
        "nvidia.com/gpu.deploy.operands": "false",
        "team": "ml",
    }
    # GKE's driver (the CRD's default driverVersion) and sharing stay: the operator runs none of its operands there.
    assert cr["spec"]["priorities"][0]["gpu"] == {
        "type": "nvidia-l4",
        "count": 1,
        "gpuSharing": {"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU": 4},
    }
    assert crd_schemas.problems(cr, "gcp") == []
    assert cluster.gpu_operator is not None
    assert (pool.served_by, cluster.pools["a100"].served_by) == (None, "gpus-gpu-operator")


# ---------------------------------------------------------------------------------------------------------------
# Issue 29: names GKE keeps, priorities with only what was asked, sharing gated by GKE version, pod selectors
# ---------------------------------------------------------------------------------------------------------------

BUILT_IN_SOURCES = (
    "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes; "
    "https://cloud.google.com/kubernetes-engine/docs/concepts/about-built-in-compute-classes"
)


def reserved_name_line(path: str, name: str) -> str:
    return (
        f"{path}: GKE keeps ComputeClass names starting with gke- or autopilot for its own classes (autopilot, "
        f"autopilot-spot), so it refuses a custom ComputeClass named so (got {name!r}); valid: a name that starts with "
        "neither gke- nor autopilot"
    )


@pytest.mark.parametrize("name", ["gke-l4", "autopilot", "autopilot-spot", "autopilotl4"])
def test_a_compute_class_pool_named_like_gkes_own_classes_is_refused(name: str) -> None:
    pool = provisioned(name=name)
    assert problem_lines(lambda: GkeComputeClassGpuPool("demo", {"pool": pool})) == [  # type: ignore[typeddict-item]
        reserved_name_line("pool.name", name)
    ]
    assert problem_lines(lambda: gcp_cluster([pool])) == [reserved_name_line("pools[0].name", name)]


@pytest.mark.parametrize("name", ["gke", "gkel4", "my-autopilot", "l4-gke-auto"])
def test_a_compute_class_name_that_only_contains_gke_or_autopilot_is_a_custom_class(name: str) -> None:
    plan, _ = plan_class(provisioned(name=name))
    assert custom_resource(plan)["metadata"] == {"name": name}


def test_the_stack_config_refuses_a_compute_class_pool_named_like_gkes_own_classes(tmp_path: Path) -> None:
    lines = plan_stack_text(
        tmp_path,
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
        "  gpu-components:pools:\n"
        "    - {name: gke-l4, instance_type: g2-standard-8, provisioning: {provisioner: compute-class, max_gpus: 4}}\n",
    )
    assert lines == [f"  - {reserved_name_line('pools[0].name', 'gke-l4')} [source: {BUILT_IN_SOURCES}]"]


def test_the_package_path_refuses_a_compute_class_pool_named_like_gkes_own_classes() -> None:
    from tests.test_package_construct import construct_error

    pool = {"name": "autopilot-l4", "instanceType": "g2-standard-8", "provisioning": {"provisioner": "compute-class"}}
    pool["provisioning"] = {"provisioner": "compute-class", "maxGpus": 4}
    error = construct_error("GkeComputeClassGpuPool", {"pool": pool})
    assert [(p.path, p.value, p.source) for p in error.problems] == [("pool.name", "autopilot-l4", BUILT_IN_SOURCES)]
    gcp = {"cluster": "demo", "location": "us-central1-a"}
    error = construct_error("GpuCluster", {"cloud": "gcp", "gcp": gcp, "pools": [pool]})
    assert [(p.path, p.value) for p in error.problems] == [("pools[0].name", "autopilot-l4")]


def rule(machine_type: str = "g2-standard-8", **more: Any) -> dict[str, Any]:
    """One priority rule of an L4 pool: the machine type and its GPU, ``more`` after them, the boot disk last."""
    return {
        "machineType": machine_type,
        "gpu": {"type": "nvidia-l4", "count": 1},
        **more,
        "storage": {"bootDiskSize": 100},
    }


RESERVATION = {"affinity": "Specific", "specific": [{"name": "l4-reservation"}]}


@pytest.mark.parametrize(
    ("fields", "args", "expected"),
    [
        ({}, {}, [rule()]),
        ({"provisioning": {"capacity_types": ["spot"]}}, {}, [rule(spot=True)]),
        (
            {"provisioning": {"capacity_types": ["reserved", "spot"], "reservation": "l4-reservation"}},
            {},
            [rule(reservations=RESERVATION), rule(spot=True)],
        ),
        (
            {"time_slicing": {"replicas": 3}},
            {},
            [
                {
                    "machineType": "g2-standard-8",
                    "gpu": {
                        "type": "nvidia-l4",
                        "count": 1,
                        "gpuSharing": {"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU": 3},
                    },
                    "storage": {"bootDiskSize": 100},
                }
            ],
        ),
        (
            {"provisioning": {"instance_types": ["g2-standard-24"]}},
            {"driver_version": "DEFAULT"},
            [
                {
                    "machineType": "g2-standard-8",
                    "gpu": {"type": "nvidia-l4", "count": 1, "driverVersion": "default"},
                    "storage": {"bootDiskSize": 100},
                },
                {
                    "machineType": "g2-standard-24",
                    "gpu": {"type": "nvidia-l4", "count": 2, "driverVersion": "default"},
                    "storage": {"bootDiskSize": 100},
                },
            ],
        ),
    ],
    ids=["types-only", "spot", "reservation-then-spot", "sharing", "driver-given"],
)
def test_priority_rules_carry_only_what_the_pool_asks_for(
    fields: dict[str, Any], args: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    """No ``spot: false`` (the CRD's on-demand is spot left out), no ``driverVersion`` unless given (the CRD's default
    is ``default``), no reservations block but for reserved capacity."""
    plan, _ = plan_class(provisioned(**fields), **args)
    cr = custom_resource(plan)
    assert cr["spec"]["priorities"] == expected
    assert crd_schemas.problems(cr, "gcp") == []


SHARING_STACK = (
    "config:\n"
    "  gcp:project: proj\n"
    "  gpu-components:cloud: gcp\n"
    "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n    kubernetes_version: '{version}'\n"
    "  gpu-components:pools:\n"
    "    - name: l4\n      instance_type: g2-standard-8\n{sharing}"
    "      provisioning: {{provisioner: compute-class, max_gpus: 8}}\n"
    "    - name: a100\n      instance_type: a2-highgpu-1g\n      mig: {{profile: 1g.5gb}}\n"
    "      time_slicing: {{replicas: 2}}\n"
    "      provisioning: {{provisioner: compute-class, max_gpus: 8}}\n"
    "    - {{name: fixed, instance_type: g2-standard-8, max_size: 1, mps: {{replicas: 2}}}}\n"
)


@pytest.mark.parametrize(
    ("version", "refused"),
    [
        ("1.34", True),
        ("1.35.1", True),
        ("1.35.2-gke.1484999", True),
        ("1.35", False),
        ("1.35.2", False),
        ("1.35.2-gke.1485000", False),
        ("1.36", False),
        ("latest", False),
        ("-", False),
    ],
)
def test_gpu_sharing_in_a_compute_class_needs_the_gke_version_that_has_it(
    tmp_path: Path, version: str, refused: bool
) -> None:
    """A version that names only releases before 1.35.2-gke.1485000 is refused for each ComputeClass pool that shares
    (a fixed pool's sharing is a node-pool setting, older); a prefix that also names later releases, ``latest`` and
    the channel default (``-``) are left to GKE."""
    stack = SHARING_STACK.format(version=version, sharing="      time_slicing: {replicas: 4}\n")
    expected = [
        f"  - cluster.kubernetes_version: pools[{index}] ({name}, a ComputeClass pool) shares its GPUs ({fields}) "
        "through the ComputeClass's gpu.gpuSharing, which GKE has only from 1.35.2-gke.1485000 on (got "
        f"'{version}'); valid: 1.35.2-gke.1485000 or later (or latest); or a fixed GKE pool (no provisioning) for "
        "GPU sharing on earlier versions [source: https://cloud.google.com/kubernetes-engine/docs/reference/crds/"
        "computeclass]"
        for index, name, fields in (
            (0, "l4", "pools[0].time_slicing"),
            (1, "a100", "pools[1].time_slicing, pools[1].mig"),
        )
    ]
    assert plan_stack_text(tmp_path, stack) == (expected if refused else [])
    # Without sharing the ComputeClass pool is fine on the same version; the other still needs it.
    assert plan_stack_text(tmp_path, SHARING_STACK.format(version=version, sharing="")) == (
        expected[1:] if refused else []
    )


def test_an_existing_clusters_version_is_unknown_so_sharing_is_left_to_gke() -> None:
    pool = provisioned(time_slicing={"replicas": 2})
    assert gke_cluster.stack_problems({"existing": True, "kubernetes_version": "1.30"}, [pool]) == []


def test_the_stack_config_ties_a_fixed_pool_to_a_compute_class_pool_of_the_stack(tmp_path: Path) -> None:
    stack = (
        "config:\n"
        "  gcp:project: proj\n"
        "  gpu-components:cloud: gcp\n"
        "  gpu-components:cluster:\n    name: demo\n    location: us-central1-a\n"
        "  gpu-components:pools:\n"
        "    - {name: l4-auto, instance_type: g2-standard-8, provisioning: {provisioner: compute-class, max_gpus: 4}}\n"
        "    - {name: l4, instance_type: g2-standard-8, max_size: 1, gcp: {compute_class: CLASS}}\n"
    )
    assert plan_stack_text(tmp_path, stack.replace("CLASS", "l4-auto")) == []
    assert plan_stack_text(tmp_path, stack.replace("CLASS", "gke-l4")) == [
        f"  - {reserved_name_line('pools[1].gcp.compute_class', 'gke-l4')} [source: {BUILT_IN_SOURCES}]",
    ]
    assert plan_stack_text(tmp_path, stack.replace("CLASS", "l4-other")) == [
        "  - pools[1].gcp.compute_class: not a ComputeClass pool of this cluster: a fixed pool serves a ComputeClass "
        "the cluster makes (got 'l4-other'); valid: l4-auto",
    ]
