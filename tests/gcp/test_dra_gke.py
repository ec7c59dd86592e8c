"""GKE pools under DRA (``gpu_stack: dra``, a pool's ``gpu_access``): GKE's prerequisites set on fixed node pools,
refused where GKE cannot serve DRA, and who advertises each pool's GPUs."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_components import GpuCluster
from gpu_components.cluster import validate_cluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeComputeClassGpuPool, GkeGpuNodePool
from gpu_components.gcp.adapter import ADAPTER
from gpu_components.gcp.facts import FACTS, GKE_COS_DRIVER_INSTALLER, GKE_CRITICAL_PRIORITY_CLASSES
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import BOTH_MODES, names, plan_and, plan_of, resource
from tests.kubernetes.test_dra_driver import DRA_VALUES

NODE_POOL = "gcp:container/nodePool:NodePool"
TAINT = {"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}
SET_UP_DRA = "https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra"
DRA_LABELS = {
    "gke-no-default-nvidia-gpu-device-plugin": "true",
    "gpu-components/gpu-access": "dra",
    "gpu-components/pool": "l4",
    "nvidia.com/gpu.present": "true",
}


def fixed(**fields: Any) -> dict[str, Any]:
    return {"name": "l4", "instance_type": "g2-standard-8", "max_size": 3, **fields}


def compute_class(**fields: Any) -> dict[str, Any]:
    return {
        "name": "cc",
        "instance_type": "g2-standard-8",
        "provisioning": {"provisioner": "compute-class", "max_gpus": 8},
        **fields,
    }


def spec(pool: dict[str, Any]) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(pool, "gcp")


@BOTH_MODES
def test_dra_pool_node_pool_disables_gke_driver_and_plugin(preview: bool) -> None:
    plan, component = plan_and(
        lambda: GkeGpuNodePool(
            "demo-l4",
            {"pool": fixed(), "cluster": "demo", "location": "us-central1-a", "gpu_stack": "dra"},  # type: ignore[typeddict-item]
        ),
        preview,
        {"gcp:project": "proj"},
    )
    node_config = resource(plan, NODE_POOL, "demo-l4-node-pool").inputs["nodeConfig"]
    assert node_config["guestAccelerators"] == [
        {"type": "nvidia-l4", "count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"}}
    ]
    assert node_config["labels"] == DRA_LABELS
    assert node_config["taints"] == [TAINT]
    assert "imageType" not in node_config  # GKE's default image, Container-Optimized OS, which the installer serves
    assert component.device_plugin_host == "dra-driver"
    assert component.driver_version == "INSTALLATION_DISABLED"
    assert component.advertised_resources == {}
    assert component.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-l4", "gpu-components/pool": "l4"}
    assert component.autoscaler_note is None


def test_dra_pool_view_matches_facts_labels() -> None:
    view = ADAPTER.describe_pool(spec(fixed()), {}, "dra")
    assert FACTS.dra is not None
    assert {key: view.labels[key] for key in FACTS.dra.node_labels} == dict(FACTS.dra.node_labels)
    assert view.driver_setting == "INSTALLATION_DISABLED"
    assert view.driver_setting_set is False


def test_device_plugin_pool_under_dra_is_what_auto_gives() -> None:
    pool = spec(fixed(gpu_access="device-plugin"))
    dra = ADAPTER.describe_pool(pool, {}, "dra")
    auto = ADAPTER.describe_pool(pool, {}, "auto")
    assert dra.device_plugin_host == auto.device_plugin_host == "cloud"
    assert dra.labels == auto.labels == {"gpu-components/pool": "l4"}
    assert dra.advertised_resources == auto.advertised_resources == {"nvidia.com/gpu": 1}
    assert dra.driver_setting == "DEFAULT"


@pytest.mark.parametrize(
    ("pool", "gpu_stack", "host"),
    [
        (fixed(), "dra", "dra-driver"),
        (fixed(gpu_access="dra"), "dra", "dra-driver"),
        (fixed(gpu_access="device-plugin"), "dra", "cloud"),
        (fixed(), "auto", "cloud"),
        (fixed(), "gpu-operator", "gpu-operator"),
        (compute_class(), "dra", "cloud"),
        (compute_class(gpu_access="device-plugin"), "dra", "cloud"),
    ],
    ids=["fixed-default", "fixed-dra", "fixed-device-plugin", "fixed-auto", "fixed-operator", "cc-default", "cc-dp"],
)
def test_device_plugin_host_per_pool_kind_and_access(pool: dict[str, Any], gpu_stack: str, host: str) -> None:
    assert ADAPTER.device_plugin_host(spec(pool), {}, gpu_stack) == host  # type: ignore[arg-type]


def test_dra_pool_refuses_a_gke_driver_mode() -> None:
    [problem] = ADAPTER.problems(spec(fixed()), {"driver_version": "LATEST"}, "pools[0]", "dra")
    assert problem.path == "pools[0].gcp.driver_version"
    assert problem.value == "LATEST"
    assert "needs GKE's automatic driver installation disabled" in problem.message
    assert problem.valid == "INSTALLATION_DISABLED (the default on DRA pools), or gpu_access: device-plugin"
    assert problem.source == SET_UP_DRA


def test_dra_pool_accepts_installation_disabled_given() -> None:
    assert ADAPTER.problems(spec(fixed()), {"driver_version": "INSTALLATION_DISABLED"}, "pools[0]", "dra") == []


def test_dra_pool_refuses_mig() -> None:
    pool = spec(fixed(name="a100", instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}))
    [problem] = ADAPTER.problems(pool, {}, "pools[0]", "dra")
    assert problem.path == "pools[0].mig"
    assert problem.value == {"profile": "1g.5gb"}
    assert problem.message.startswith("GKE does not support multi-instance GPUs with DRA")
    assert problem.valid == "no mig on a DRA pool, or gpu_access: device-plugin (GKE's own MIG partitions)"
    assert problem.source == SET_UP_DRA


def test_device_plugin_pool_under_dra_keeps_gke_mig() -> None:
    pool = spec(
        fixed(name="a100", instance_type="a2-highgpu-1g", mig={"profile": "1g.5gb"}, gpu_access="device-plugin")
    )
    assert ADAPTER.problems(pool, {}, "pools[0]", "dra") == []
    assert ADAPTER.describe_pool(pool, {}, "dra").advertised_resources == {"nvidia.com/gpu": 7}


def test_compute_class_pool_refused_under_dra() -> None:
    [problem] = ADAPTER.problems(spec(compute_class()), {}, "pools[1]", "dra")
    assert str(problem) == (
        "pools[1].gpu_access: GKE supports DRA only on node pools created by hand: not with node auto-provisioning, "
        "which creates a ComputeClass's node pools, nor on Autopilot; GKE's own device plugin serves this pool "
        "(default: dra); valid: gpu_access: device-plugin, or a fixed GKE node pool (no provisioning) for DRA "
        f"[source: {SET_UP_DRA}]"
    )


def test_compute_class_pool_with_device_plugin_access_passes_under_dra() -> None:
    assert ADAPTER.problems(spec(compute_class(gpu_access="device-plugin")), {}, "pools[1]", "dra") == []


def test_compute_class_component_refuses_dra() -> None:
    with pytest.raises(GpuSpecError) as error:
        GkeComputeClassGpuPool("cc", {"pool": compute_class(gpu_access="dra"), "gpu_stack": "dra"})  # type: ignore[typeddict-item]
    [problem] = error.value.problems
    assert problem.path == "pool.gpu_access"
    assert problem.value == "dra"


def test_dra_driver_installer_is_gke_cos_installer_pinned() -> None:
    assert FACTS.dra is not None
    assert FACTS.dra.driver_root == "/home/kubernetes/bin/nvidia"
    assert (
        FACTS.dra.driver_installer
        == GKE_COS_DRIVER_INSTALLER
        == (
            "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
            "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer/cos/daemonset-preloaded.yaml"
        )
    )
    assert FACTS.dra.source == SET_UP_DRA


def dra_cluster(*pools: dict[str, Any]) -> Any:
    return plan_of(
        lambda: GpuCluster(
            "gpus",
            {  # type: ignore[typeddict-item]
                "cloud": "gcp",
                "gcp": {"cluster": "gpu", "location": "us-central1"},
                "pools": list(pools),
                "gpu_stack": "dra",
                "dra": {"kubernetes_version": "1.34"},
            },
        )
    )


def test_a_gke_dra_cluster_applies_gke_cos_driver_installer_once_and_no_gpu_operator() -> None:
    plan = dra_cluster(fixed(), fixed(name="l4b", gcp={"driver_version": "INSTALLATION_DISABLED"}))
    [installer] = [r for r in plan.resources if r.type == "kubernetes:yaml/v2:ConfigFile"]
    assert installer.name == "gpus-dra-driver-driver-installer"
    assert installer.inputs == {
        "file": "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
        "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer/cos/daemonset-preloaded.yaml"
    }
    assert installer.parent == resource(plan, "gpu-components:index:NvidiaDraDriver", "gpus-dra-driver").urn
    # The driver is GKE's installer's, under its root: no GPU Operator to install one.
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-dra-driver-release").inputs["values"]
    assert values["nvidiaDriverRoot"] == "/home/kubernetes/bin/nvidia"
    assert names(plan, "gpu-components:index:NvidiaGpuOperator") == []


def test_a_gke_cluster_without_dra_pools_applies_no_driver_installer() -> None:
    device_plugin_only = plan_of(
        lambda: GpuCluster(
            "gpus",
            {"cloud": "gcp", "gcp": {"cluster": "gpu", "location": "us-central1"}, "pools": [fixed()]},  # type: ignore[typeddict-item]
        )
    )
    assert names(device_plugin_only, "kubernetes:yaml/v2:ConfigFile") == []


def test_the_gpu_cluster_installer_is_refused_on_gke_whose_driver_comes_from_its_installer() -> None:
    with pytest.raises(GpuSpecError) as error:
        validate_cluster("gcp", [fixed()], "dra", dra={"kubernetes_version": "1.34", "installer": "gpu-operator"})
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in error.value.problems] == [
        (
            "dra.installer",
            "gpu-operator",
            "GKE DRA pools get the NVIDIA driver from GKE's installer DaemonSet (driver root "
            "/home/kubernetes/bin/nvidia), which NvidiaDraDriver applies under installer chart; the GPU Operator's "
            "GPUCluster installs no driver and the library sets none of its host paths for it",
            "chart",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers",
        )
    ]


def test_the_refused_gpu_cluster_installer_is_the_one_installer_problem_beside_other_pools() -> None:
    """A device-plugin pool and a MIG pool beside it: no pool problem names the refused installer (they are checked
    as under installer chart); the MIG pool keeps GKE's own refusal."""
    pools = [
        fixed(),
        {"name": "dp", "instance_type": "g2-standard-4", "max_size": 2, "gpu_access": "device-plugin"},
        {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 1, "mig": {"profile": "1g.5gb"}},
    ]
    with pytest.raises(GpuSpecError) as error:
        validate_cluster("gcp", pools, "dra", dra={"kubernetes_version": "1.34", "installer": "gpu-operator"})
    assert [(p.path, p.value, p.source) for p in error.value.problems] == [
        (
            "dra.installer",
            "gpu-operator",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers",
        ),
        ("pools[2].mig", {"profile": "1g.5gb"}, SET_UP_DRA),
    ]
    assert error.value.problems[1].message == (
        "GKE does not support multi-instance GPUs with DRA (its partitions come from gpu_partition_size, which needs "
        "GKE's driver installation, off on DRA pools)"
    )


def test_the_kubelet_plugin_has_no_priority_class_on_gke_as_gkes_dra_guide_installs_it() -> None:
    plan = dra_cluster(fixed())
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-dra-driver-release").inputs["values"]
    assert values["kubeletPlugin"]["priorityClassName"] == ""
    # Why: the chart's class is one GKE admits outside kube-system only under a ResourceQuota, and the release
    # gets none (the GPU Operator's namespace does).
    chart = yaml.safe_load(DRA_VALUES.read_text())["kubeletPlugin"]["priorityClassName"]
    assert chart in GKE_CRITICAL_PRIORITY_CLASSES
    assert names(plan, "kubernetes:core/v1:ResourceQuota") == []
    assert FACTS.dra is not None and FACTS.dra.kubelet_plugin_priority_class == ""
