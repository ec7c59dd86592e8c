"""gpu_stack dra on a cluster: what each pool publishes to DRA, the add-ons a mixed cluster gets (one advertiser per
node), and each DRA rule's exact problem, on EKS AL2023 node groups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.claims import shared_gpu_claim
from gpu_components.cluster import validate_cluster
from gpu_components.dra import dra_devices
from gpu_components.kubernetes import NvidiaDraDriver, NvidiaGpuOperator
from gpu_components.nvidia.dra_driver import kubernetes_patch_problems
from gpu_components.program import _with_cluster_version
from gpu_components.samples import sample_jobs
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import names, plan_and, plan_of, resource
from tests.test_config_rejections import plan_stack

WIRING = {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"}
L40S: dict[str, Any] = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 2}
H100: dict[str, Any] = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
A10G: dict[str, Any] = {"name": "a10g", "instance_type": "g5.xlarge", "max_size": 2, "gpu_access": "device-plugin"}
DRA = {"kubernetes_version": "1.34"}
STACKS = Path(__file__).resolve().parents[1] / "stacks"
SOURCE_DRA = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
SOURCE_GPU_CLUSTER = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpucluster-reference.html"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def problems(pools: list[dict[str, Any]], gpu_stack: str = "dra", **settings: Any) -> list[tuple[str, object, str]]:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", pools, gpu_stack, **settings)
    return [(p.path, p.value, p.message) for p in caught.value.problems]


def test_each_node_publishes_its_gpus_or_its_mig_devices() -> None:
    def spec(pool: dict[str, Any]) -> GpuNodePoolSpec:
        return GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]

    assert dra_devices(spec(L40S)) == {"gpu.nvidia.com": 1}
    assert dra_devices(spec(H100)) == {"mig.nvidia.com/1g.10gb": 56}
    layout = {**H100, "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}, "strategy": "mixed"}}
    assert dra_devices(spec(layout)) == {
        "mig.nvidia.com/1g.10gb": 16,
        "mig.nvidia.com/2g.20gb": 8,
        "mig.nvidia.com/3g.40gb": 8,
    }


def mixed_cluster() -> Any:
    return plan_of(
        lambda: GpuCluster(
            "gpus",
            {"cloud": "aws", "aws": WIRING, "pools": [L40S, H100, A10G], "gpu_stack": "dra", "dra": DRA},  # type: ignore[typeddict-item]
        )
    )


def test_a_mixed_cluster_gets_one_advertiser_per_node() -> None:
    plan = mixed_cluster()
    assert names(plan, "gpu-components:index:NvidiaDevicePlugin") == ["gpus-device-plugin"]
    assert names(plan, "gpu-components:index:NvidiaDraDriver") == ["gpus-dra-driver"]
    assert names(plan, "gpu-components:index:NvidiaGpuOperator") == ["gpus-gpu-operator"]
    assert names(plan, "kubernetes:yaml/v2:ConfigFile") == []  # the AMI carries the driver: no installer to apply
    plugin = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-device-plugin-release").inputs["values"]
    assert plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "nvidia.com/device-plugin.config", "operator": "In", "values": ["a10g"]}]}
        ]
    }
    driver = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-dra-driver-release").inputs
    assert (driver["chart"], driver["version"], driver["namespace"]) == (
        "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
        "0.4.1",
        "dra-driver-nvidia-gpu",
    )
    assert driver["values"] == {
        "resourceApiVersion": "resource.k8s.io/v1",
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "featureGates": {},
        "kubeletPlugin": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "gpu-components/pool", "operator": "In", "values": ["l40s"]}
                                ]
                            },
                            # The MIG pool's nodes once the GPU Operator's MIG manager has partitioned them.
                            {
                                "matchExpressions": [
                                    {"key": "gpu-components/pool", "operator": "In", "values": ["h100"]},
                                    {"key": "nvidia.com/mig.config.state", "operator": "In", "values": ["success"]},
                                ]
                            },
                        ]
                    }
                }
            },
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, GPU_TOLERATION],
        },
    }
    # The GPU Operator partitions the MIG pool only, its device plugin off (the DRA driver publishes the devices).
    operator = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release").inputs["values"]
    assert (operator["devicePlugin"], operator["driver"], operator["toolkit"]) == (
        {"enabled": False},
        {"enabled": False},
        {"enabled": False},
    )
    mig = resource(plan, "kubernetes:core/v1:ConfigMap", "gpus-gpu-operator-mig-config").inputs["data"]["config.yaml"]
    assert "all-1g.10gb" in mig


def test_node_labels_keep_each_pool_to_its_advertiser() -> None:
    plan = mixed_cluster()
    labels = {
        pool: resource(plan, "aws:eks/nodeGroup:NodeGroup", f"gpus-{pool}-node-group").inputs["labels"]
        for pool in ("l40s", "h100", "a10g")
    }
    assert labels["l40s"] == {
        "gpu-components/gpu-access": "dra",
        "gpu-components/pool": "l40s",
        "nvidia.com/gpu.deploy.operands": "false",
    }
    # No k8s.amazonaws.com/accelerator on DRA pools: the Cluster Autoscaler would wait for nvidia.com/gpu on them.
    assert labels["h100"] == {
        "gpu-components/gpu-access": "dra",
        "gpu-components/pool": "h100",
        "nvidia.com/mig.config": "all-1g.10gb",
    }
    assert labels["a10g"] == {
        "gpu-components/pool": "a10g",
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nvidia.com/device-plugin.config": "a10g",
        "nvidia.com/gpu.deploy.operands": "false",
        "nvidia.com/gpu.present": "true",
    }


def test_under_the_gpu_operator_installer_dra_pools_keep_its_dra_driver() -> None:
    """GPU Operator v26.7.0: a GPUCluster's DRA kubelet plugin selects nvidia.com/gpu.deploy.dra-driver=true, which
    its node labeller sets on every GPU node that carries no value for it yet; it never reads
    nvidia.com/gpu.deploy.operands (only a ClusterPolicy does). The DRA pool carries no GPUCluster operand label."""
    dra = {**DRA, "installer": "gpu-operator"}
    plan = plan_of(
        lambda: GpuCluster("gpus", {"cloud": "aws", "aws": WIRING, "pools": [L40S], "gpu_stack": "dra", "dra": dra})  # type: ignore[typeddict-item]
    )
    assert resource(plan, "aws:eks/nodeGroup:NodeGroup", "gpus-l40s-node-group").inputs["labels"] == {
        "gpu-components/gpu-access": "dra",
        "gpu-components/pool": "l40s",
        "nvidia.com/gpu.deploy.operands": "false",
    }
    assert names(plan, "gpu-components:index:NvidiaGpuOperator") == ["gpus-gpu-operator"]


def test_pool_scheduling_tells_what_each_node_publishes_to_dra() -> None:
    plan = mixed_cluster()
    scheduling = resource(plan, "gpu-components:index:GpuCluster", "gpus").outputs["poolScheduling"]
    assert {
        name: (pool["devicePluginHost"], pool["advertisedResources"], pool["draDevices"])
        for name, pool in scheduling.items()
    } == {
        "a10g": ("daemonset", {"nvidia.com/gpu": 1}, {}),
        "h100": ("dra-driver", {}, {"mig.nvidia.com/1g.10gb": 56}),
        "l40s": ("dra-driver", {}, {"gpu.nvidia.com": 1}),
    }
    outputs = resource(plan, "gpu-components:index:EksGpuNodeGroup", "gpus-h100").outputs
    assert outputs["draDevices"] == {"mig.nvidia.com/1g.10gb": 56}
    assert resource(plan, "gpu-components:index:GpuCluster", "gpus").outputs["draFeatureGates"] == []


def test_the_gpu_operator_installer_deploys_a_gpu_cluster_and_no_driver_chart() -> None:
    dra = {**DRA, "installer": "gpu-operator", "feature_gates": ["TimeSlicingSettings"]}
    plan = plan_of(
        lambda: GpuCluster("gpus", {"cloud": "aws", "aws": WIRING, "pools": [L40S], "gpu_stack": "dra", "dra": dra})  # type: ignore[typeddict-item]
    )
    assert names(plan, "gpu-components:index:NvidiaDraDriver") == []
    # Other languages read the gates a claim's sharing config needs from the cluster's output.
    assert resource(plan, "gpu-components:index:GpuCluster", "gpus").outputs["draFeatureGates"] == [
        "TimeSlicingSettings"
    ]
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release").inputs["values"]
    assert (values["clusterPolicy"], values["gpuCluster"], values["draDriver"]) == (
        {"deployCR": False},
        {"deployCR": True},
        {"featureGates": {"TimeSlicingSettings": True}, "computeDomains": {"enabled": False}},
    )


def test_kubernetes_below_1_34_is_refused_naming_the_ga_version() -> None:
    assert problems([L40S], dra={"kubernetes_version": "1.33"}) == [
        (
            "dra.kubernetes_version",
            "1.33",
            "DRA's resource.k8s.io/v1 API, which NVIDIA's DRA driver uses, is GA from Kubernetes 1.34; earlier "
            "versions serve DRA only as a beta API behind feature gates",
        )
    ]
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [L40S], "dra")
    [problem] = caught.value.problems
    assert (problem.path, problem.value, problem.valid, problem.source) == (
        "dra.kubernetes_version",
        None,
        "MAJOR.MINOR >= 1.34, e.g. 1.34",
        SOURCE_DRA,
    )
    assert problems([L40S], dra={"kubernetes_version": "v1.34"}) == [
        ("dra.kubernetes_version", "v1.34", "not a Kubernetes major.minor version")
    ]


def test_dra_without_gpu_stack_dra_is_refused() -> None:
    assert problems([{**L40S, "gpu_access": "dra"}], "auto", dra=DRA) == [
        ("dra", DRA, "DRA settings, but gpu_stack is auto: they would be ignored"),
        ("pools[0].gpu_access", "dra", "resource claims need NVIDIA's DRA driver, which only gpu_stack dra deploys"),
    ]


def test_pool_sharing_on_a_dra_pool_says_sharing_lives_in_the_claim() -> None:
    found = problems(
        [{**L40S, "time_slicing": {"replicas": 4}}, {**L40S, "name": "m", "mps": {"replicas": 2}}], dra=DRA
    )
    assert found == [
        (
            "pools[0].time_slicing",
            {"replicas": 4},
            "time_slicing is the device plugin's GPU sharing (replicas of nvidia.com/gpu); under DRA sharing lives in "
            "the resource claim: pods share a GPU by referencing one shared ResourceClaim (same namespace), whose GPU "
            "sharing config sets a time-slice interval, not replicas (feature gate TimeSlicingSettings), or MPS "
            "(feature gate MPSSupport); see the resource claim helpers of gpu_components.claims and gpu_components.dra",
        ),
        ("pools[1].mps", {"replicas": 2}, found[0][2].replace("time_slicing is", "mps is", 1)),
    ]
    # The same pool with the device plugin keeps its time-slicing.
    assert validate_cluster("aws", [L40S, {**A10G, "time_slicing": {"replicas": 4}}], "dra", dra=DRA)


def test_the_gpu_cluster_installer_refuses_mig_device_plugin_pools_and_chart_settings() -> None:
    dra = {**DRA, "installer": "gpu-operator", "chart_version": "0.4.1"}
    assert problems([H100, A10G], dra=dra) == [
        (
            "dra.chart_version",
            "0.4.1",
            "a setting of the DRA driver's own chart, but under installer gpu-operator the GPU Operator deploys the "
            "driver: it would be ignored",
        ),
        (
            "pools[0].mig",
            {"profile": "1g.10gb"},
            "the GPU Operator's GPUCluster (dra installer gpu-operator) runs no MIG manager, so nothing would "
            "partition the pool's GPUs",
        ),
        (
            "pools[1].gpu_access",
            "device-plugin",
            "its GPUs are advertised by the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin), but under dra "
            "installer gpu-operator the GPUCluster's DRA driver schedules itself on every GPU node (not configurable), "
            "so it would publish them a second time",
        ),
    ]
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [H100], "dra", dra=dra)
    assert {p.source for p in caught.value.problems if p.path == "pools[0].mig"} == {SOURCE_GPU_CLUSTER}


def test_dynamic_mig_beside_a_static_mig_pool_is_refused() -> None:
    assert problems([L40S, H100], dra={"kubernetes_version": "1.36", "feature_gates": ["DynamicMIG"]}) == [
        (
            "dra.feature_gates[0]",
            "DynamicMIG",
            "DynamicMIG lets the DRA driver create and destroy MIG devices on demand, destroying the static MIG "
            "partitions it did not create, and pools[1] (h100) has static MIG partitions (mig)",
        )
    ]


DYNAMIC_MIG_BELOW_1_36 = (
    "with DynamicMIG the DRA driver publishes MIG devices as partitionable devices, which need Kubernetes' "
    "DRAPartitionableDevices feature gate in kube-apiserver, kube-scheduler and kubelet; in Kubernetes 1.35 that "
    "gate is alpha and off by default (alpha 1.33 to 1.35, beta and on by default from 1.36), and managed control "
    "planes (EKS, AKS, GKE) do not let users turn alpha gates on"
)


def test_dynamic_mig_below_kubernetes_1_36_names_the_partitionable_devices_gate() -> None:
    dra = {"kubernetes_version": "1.35", "feature_gates": ["TimeSlicingSettings", "DynamicMIG"]}
    assert problems([L40S], dra=dra) == [("dra.feature_gates[1]", "DynamicMIG", DYNAMIC_MIG_BELOW_1_36)]
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [L40S], "dra", dra=dra)
    assert caught.value.problems[0].valid == "kubernetes_version >= 1.36, or no DynamicMIG"
    assert caught.value.problems[0].source == (
        "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/; "
        "https://kubernetes.io/docs/concepts/resource-management/dynamic-resource-allocation/dra-features/; "
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/driver.go"
    )


def test_dynamic_mig_from_kubernetes_1_36_is_accepted() -> None:
    validate_cluster("aws", [L40S], "dra", dra={"kubernetes_version": "1.36", "feature_gates": ["DynamicMIG"]})


def test_gpu_stack_dra_without_a_dra_pool_and_unused_settings_are_refused() -> None:
    assert problems([A10G], dra=DRA) == [
        (
            "gpu_stack",
            "dra",
            "no pool's GPUs are published by NVIDIA's DRA driver (each pool's GPUs are advertised by another: pools[0] "
            "(a10g): daemonset), so the cluster would deploy no DRA driver and the switch would be ignored",
        )
    ]
    assert problems([L40S], dra=DRA, gpu_operator={"dcgm_exporter": False}, device_plugin={}) == [
        (
            "gpu_operator",
            {"dcgm_exporter": False},
            "GPU Operator settings, but under dra installer chart the cluster deploys the operator only for DRA pools "
            "that need its MIG manager or driver, and none does: they would be ignored",
        ),
        (
            "device_plugin",
            {},
            "NVIDIA device plugin settings, but no pool is served by the NVIDIA device plugin (pools[0] (l40s): "
            "dra-driver), so the cluster deploys none and they would be ignored",
        ),
    ]


def test_values_the_library_owns_are_refused_in_the_dra_settings() -> None:
    assert problems([L40S], dra={**DRA, "helm_values": {"featureGates": {"MPSSupport": True}}}) == [
        (
            "dra.helm_values.featureGates",
            {"MPSSupport": True},
            "decided by the library: the driver's feature gates, which the claim rules read",
        )
    ]


def test_a_helm_values_key_the_pinned_chart_lacks_is_refused_in_the_dra_settings() -> None:
    assert problems([L40S], dra={**DRA, "helm_values": {"kubeletPlugn": {}}}) == [
        (
            "dra.helm_values.kubeletPlugn",
            {},
            "not a top-level value of the DRA driver chart 0.4.1, so it would be ignored; did you mean "
            "'kubeletPlugin'?",
        )
    ]


def test_the_stack_config_takes_the_kubernetes_version_from_the_cluster(tmp_path: Path) -> None:
    assert _with_cluster_version(None, "1.34") == {"kubernetes_version": "1.34"}
    assert _with_cluster_version({"installer": "chart"}, "1.35.2") == {
        "installer": "chart",
        "kubernetes_version": "1.35",
    }
    assert _with_cluster_version({"kubernetes_version": "1.36"}, "1.34") == {"kubernetes_version": "1.36"}
    assert _with_cluster_version(None, None) is None  # an existing cluster that gives no version
    cluster = {"name": "gpu-demo", "kubernetes_version": "1.33"}
    result = plan_stack(
        tmp_path,
        "aws-eks",
        {"gpu-components:pools": [L40S], "gpu-components:gpu_stack": "dra", "gpu-components:cluster": cluster},
    )
    assert result.exit_code != 0
    # Reported where the version was written, as written.
    assert (
        "  - cluster.kubernetes_version: DRA's resource.k8s.io/v1 API, which NVIDIA's DRA driver uses, is GA from "
        "Kubernetes 1.34; earlier versions serve DRA only as a beta API behind feature gates (dra.kubernetes_version, "
        "unset, takes this version's major.minor) (got '1.33'); valid: >= 1.34 [source: " + SOURCE_DRA + "]\n"
    ) in result.output


def test_a_patch_version_below_1_34_is_reported_as_the_cluster_config_wrote_it(tmp_path: Path) -> None:
    config = yaml.safe_load((STACKS / "Pulumi.azure-aks.yaml").read_text())["config"]["gpu-components:cluster"]
    result = plan_stack(
        tmp_path,
        "azure-aks",
        {
            "gpu-components:pools": [{"name": "h100", "instance_type": "Standard_NC40ads_H100_v5", "max_size": 2}],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:cluster": {**config, "kubernetes_version": "1.33.5"},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - cluster.kubernetes_version: DRA's resource.k8s.io/v1 API, which NVIDIA's DRA driver uses, is GA from "
        "Kubernetes 1.34; earlier versions serve DRA only as a beta API behind feature gates (dra.kubernetes_version, "
        "unset, takes this version's major.minor) (got '1.33.5'); valid: >= 1.34 [source: " + SOURCE_DRA + "]"
    ]


PREREQUISITES = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/prerequisites.md"


@pytest.mark.parametrize("version", ["1.34.0", "1.34.1"])
def test_an_aks_patch_below_what_the_dra_driver_supports_is_refused(tmp_path: Path, version: str) -> None:
    config = yaml.safe_load((STACKS / "Pulumi.azure-aks.yaml").read_text())["config"]["gpu-components:cluster"]
    result = plan_stack(
        tmp_path,
        "azure-aks",
        {
            "gpu-components:pools": [{"name": "h100", "instance_type": "Standard_NC40ads_H100_v5", "max_size": 2}],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:cluster": {**config, "kubernetes_version": version},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - cluster.kubernetes_version: NVIDIA's DRA driver v0.4.1 supports Kubernetes 1.34.2 or later; earlier "
        f"1.34 patch releases are not supported (got '{version}'); valid: >= 1.34.2, or 1.34 (the cloud's latest "
        f"patch) [source: {PREREQUISITES}]"
    ]


def test_patch_rule_judges_only_patches_of_the_oldest_minor() -> None:
    assert [p.path for p in kubernetes_patch_problems("1.34.1-gke.1200", "cluster.kubernetes_version")] == [
        "cluster.kubernetes_version"
    ]
    for version in ["1.34", "1.34.2", "1.35.0", "1.33.5", None, "latest"]:
        assert kubernetes_patch_problems(version, "cluster.kubernetes_version") == []


def test_a_version_written_as_a_yaml_number_says_to_quote_it(tmp_path: Path) -> None:
    number = (
        "dra.kubernetes_version",
        1.3,
        "a number, not a string: YAML reads an unquoted version as a number (1.30 as 1.3); quote it",
        'MAJOR.MINOR as a string, e.g. "1.34"',
    )
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [L40S], "dra", dra={"kubernetes_version": 1.30})
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [number]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: NvidiaDraDriver("dra", {"kubernetes_version": 1.34, "cloud": "aws", "pools": [L40S]}))  # type: ignore[typeddict-item]
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
        ("kubernetes_version", 1.34, *number[2:])
    ]
    result = plan_stack(
        tmp_path,
        "aws-eks",
        {
            "gpu-components:pools": [L40S],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:dra": {"kubernetes_version": 1.30},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - dra.kubernetes_version: a number, not a string: YAML reads an unquoted version as a number (1.30 as "
        '1.3); quote it (got 1.3); valid: MAJOR.MINOR as a string, e.g. "1.34"'
    ]


def test_a_dra_version_other_than_the_clusters_is_refused(tmp_path: Path) -> None:
    result = plan_stack(
        tmp_path,
        "aws-eks",
        {
            "gpu-components:pools": [L40S],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:dra": {"kubernetes_version": "1.35"},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - dra.kubernetes_version: not the cluster's Kubernetes version: cluster.kubernetes_version is '1.34' "
        "(major.minor 1.34), and the DRA rules must check the version the cluster runs (got '1.35'); valid: 1.34, or "
        "no dra.kubernetes_version (it then takes the cluster's major.minor)"
    ]


def test_a_device_plugin_pool_with_mig_on_al2023_is_still_refused_under_dra() -> None:
    found = problems([L40S, {**H100, "gpu_access": "device-plugin"}], dra=DRA)
    assert [(path, value) for path, value, _ in found] == [("pools[1].mig", {"profile": "1g.10gb"})]
    assert found[0][2].endswith(
        "have no MIG partitioning of their own; EKS documents MIG through NVIDIA's MIG Manager (GPU Operator) or "
        "Bottlerocket's MIG settings"
    )


@pytest.mark.parametrize("gpu_stack", ["dra", "gpu-operator"])
def test_a_misshapen_cloud_block_is_its_only_problem(gpu_stack: str) -> None:
    settings = {"dra": DRA} if gpu_stack == "dra" else {}
    assert problems([{**L40S, "aws": "x"}], gpu_stack, **settings) == [
        ("pools[0].aws", "x", "input should be a valid dictionary")
    ]


def test_the_cluster_hands_its_feature_gates_and_pools_to_the_claim_helpers_and_sample_jobs() -> None:
    def build() -> tuple[GpuCluster, dict[str, Any]]:
        cluster = GpuCluster(
            "gpus",
            {  # type: ignore[typeddict-item]
                "cloud": "aws",
                "aws": WIRING,
                "pools": [L40S, H100, A10G],
                "gpu_stack": "dra",
                "dra": {**DRA, "feature_gates": ["TimeSlicingSettings"]},
            },
        )
        return cluster, sample_jobs(cluster, pulumi.ResourceOptions(depends_on=[cluster]))

    plan, (cluster, jobs) = plan_and(build)
    assert cluster.dra_feature_gates == ("TimeSlicingSettings",)
    claim = shared_gpu_claim(
        cluster.pools["l40s"], "shared", time_slice_interval="Short", feature_gates=cluster.dra_feature_gates
    )
    assert claim["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"] == {
        "strategy": "TimeSlicing",
        "timeSlicingConfig": {"interval": "Short"},
    }
    assert list(jobs) == ["l40s", "h100", "a10g"]
    # A claim template for each DRA pool; the device-plugin pool's Job asks for nvidia.com/gpu.
    assert names(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate") == ["h100-vectoradd", "l40s-vectoradd"]
    h100 = resource(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate", "h100-vectoradd").inputs
    assert h100["spec"]["spec"]["devices"]["requests"] == [
        {
            "name": "mig",
            "exactly": {
                "deviceClassName": "mig.nvidia.com",
                "count": 1,
                "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}}],
            },
        }
    ]
    a10g = resource(plan, "kubernetes:batch/v1:Job", "a10g-vectoradd").inputs["spec"]["template"]["spec"]
    assert a10g["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert "resourceClaims" not in a10g


def test_a_cluster_without_dra_turns_no_feature_gate_on() -> None:
    _, cluster = plan_and(lambda: GpuCluster("gpus", {"cloud": "aws", "aws": WIRING, "pools": [A10G]}))  # type: ignore[typeddict-item]
    assert cluster.dra_feature_gates == ()


def test_the_mig_strategy_changes_nothing_a_dra_pool_publishes_and_is_kept_for_the_operator() -> None:
    def spec(pool: dict[str, Any]) -> GpuNodePoolSpec:
        return GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]

    mixed = {**H100, "mig": {"profile": "1g.10gb", "strategy": "mixed"}}
    assert dra_devices(spec(mixed)) == dra_devices(spec(H100)) == {"mig.nvidia.com/1g.10gb": 56}
    # A layout of several profiles is checked before the GPU stack is known: it still needs the mixed strategy.
    layout = {**H100, "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}}}
    assert [(path, message) for path, _, message in problems([layout], dra=DRA)] == [
        (
            "pools[0].mig.strategy",
            "the single MIG strategy needs one profile on every GPU; a layout of several profiles needs the mixed "
            "strategy",
        )
    ]
    plan = plan_of(
        lambda: GpuCluster(
            "gpus",
            {"cloud": "aws", "aws": WIRING, "pools": [mixed], "gpu_stack": "dra", "dra": DRA},  # type: ignore[typeddict-item]
        )
    )
    operator = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release").inputs["values"]
    assert operator["mig"] == {"strategy": "mixed"}


def test_the_default_namespace_is_refused_as_the_chart_refuses_it() -> None:
    why = (
        "the DRA driver's chart refuses to run in the default namespace (its templates/validation.yaml) unless "
        "helm_values sets allowDefaultNamespace: true"
    )
    assert problems([L40S], dra={**DRA, "namespace": "default"}) == [("dra.namespace", "default", why)]
    allowed = {**DRA, "namespace": "default", "helm_values": {"allowDefaultNamespace": True}}
    assert [spec.name for spec in validate_cluster("aws", [L40S], "dra", dra=allowed)] == ["l40s"]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: NvidiaDraDriver(
                "dra", {"cloud": "aws", "pools": [L40S], "kubernetes_version": "1.34", "namespace": "default"}
            )
        )
    assert [(p.path, p.value, p.message) for p in caught.value.problems] == [("namespace", "default", why)]


def test_an_invalid_dra_namespace_or_a_single_feature_gate_is_one_problem_each(tmp_path: Path) -> None:
    result = plan_stack(
        tmp_path,
        "aws-eks",
        {
            "gpu-components:pools": [L40S],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:dra": {"namespace": "DRA", "feature_gates": "MPSSupport"},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "Error: t: 2 invalid GPU settings:",
        "  - dra.feature_gates: must be a list, not a single value (got 'MPSSupport'); valid: a list, e.g. "
        "[MPSSupport]; items: TimeSlicingSettings, MPSSupport, DynamicMIG, PassthroughSupport, NVMLDeviceHealthCheck, "
        "DeviceMetadata, IMEXDaemonsWithDNSNames, ComputeDomainCliques, CrashOnNVLinkFabricErrors",
        "  - dra.namespace: not a valid namespace name (DNS-1123 label) (got 'DRA'); valid: lowercase letters, digits "
        "or '-', starting and ending alphanumeric [source: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names]",
    ]


def test_a_nested_helm_values_key_the_pinned_chart_never_reads_is_refused_in_the_dra_settings() -> None:
    assert problems([L40S], dra={**DRA, "helm_values": {"controller": {"metrics": {"enabeld": False}}}}) == [
        (
            "dra.helm_values.controller.metrics.enabeld",
            False,
            "not a value of controller.metrics that the DRA driver chart 0.4.1's templates read, so it would be "
            "ignored; did you mean 'enabled'?",
        )
    ]


def test_the_resource_api_version_is_refused_in_the_dra_settings() -> None:
    assert problems([L40S], dra={**DRA, "helm_values": {"resourceApiVersion": "resource.k8s.io/v1beta2"}}) == [
        (
            "dra.helm_values.resourceApiVersion",
            "resource.k8s.io/v1beta2",
            "decided by the library: the DeviceClasses must be of the resource.k8s.io API the claims are written in "
            "(resource.k8s.io/v1)",
        )
    ]


def test_the_dra_driver_chart_installs_first_so_its_compute_domain_crds_are_the_ones_installed() -> None:
    # Both charts ship the ComputeDomain CRDs in crds/ in different versions; Helm installs them only where absent,
    # so the first release owns them: the DRA driver's, whose controller serves them (issue 32).
    plan = mixed_cluster()
    dra_release = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-dra-driver-release")
    operator_release = resource(plan, "kubernetes:helm.sh/v3:Release", "gpus-gpu-operator-release")
    assert dra_release.urn in operator_release.dependencies
    assert operator_release.urn not in dra_release.dependencies


def test_a_standalone_operators_release_waits_for_what_the_component_depends_on() -> None:
    def build() -> None:
        driver = NvidiaDraDriver("dra", {"pools": [H100], "cloud": "aws", "kubernetes_version": "1.34"})
        NvidiaGpuOperator(
            "helper",
            {"pools": [H100], "cloud": "aws", "dra_installer": "chart"},
            pulumi.ResourceOptions(depends_on=[driver]),
        )

    plan = plan_of(build)
    dra_release = resource(plan, "kubernetes:helm.sh/v3:Release", "dra-release")
    assert dra_release.urn in resource(plan, "kubernetes:helm.sh/v3:Release", "helper-release").dependencies


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        (
            1.36,  # unquoted in YAML
            "cluster.kubernetes_version: a number, not a string: YAML reads an unquoted version as a number (1.30 as "
            '1.3); quote it (got 1.36); valid: MAJOR.MINOR as a string, e.g. "1.34"',
        ),
        (
            "latest",
            "cluster.kubernetes_version: not a Kubernetes version the cloud accepts (got 'latest'); valid: "
            "MAJOR.MINOR, e.g. 1.34 [source: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html]",
        ),
    ],
)
def test_a_bad_cluster_version_is_one_problem_not_also_a_missing_dra_version(
    tmp_path: Path, written: object, problem: str
) -> None:
    """Trial: the cluster's version, which dra.kubernetes_version takes when unset, was not MAJOR.MINOR; the stack
    config said so and also that dra.kubernetes_version was required, which the user never had to write."""
    result = plan_stack(
        tmp_path,
        "aws-eks",
        {
            "gpu-components:pools": [L40S],
            "gpu-components:gpu_stack": "dra",
            "gpu-components:cluster": {"name": "gpu-demo", "kubernetes_version": written},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [f"  - {problem}"]


def dra_stack_cluster(base: str) -> dict[str, Any]:
    """The DRA example stack's cluster config of ``base``, without its ``kubernetes_version``."""
    config = yaml.safe_load((STACKS / f"Pulumi.{base}.yaml").read_text())["config"]["gpu-components:cluster"]
    return {key: value for key, value in config.items() if key != "kubernetes_version"}


def test_dra_kubernetes_version_is_checked_against_a_new_clusters_default(tmp_path: Path) -> None:
    """Trial: without cluster.kubernetes_version the example creates EKS 1.34, yet dra.kubernetes_version "1.36"
    with extended_resource true passed, and the outputs said the DRA pool served nvidia.com/gpu."""
    result = plan_stack(
        tmp_path,
        "aws-eks-dra",
        {
            "gpu-components:cluster": dra_stack_cluster("aws-eks-dra"),
            "gpu-components:dra": {"kubernetes_version": "1.36", "extended_resource": True},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        "  - dra.kubernetes_version: not the cluster's Kubernetes version: cluster.kubernetes_version is unset, so "
        "the new cluster runs the default 1.34, and the DRA rules must check the version the cluster runs (got "
        "'1.36'); valid: 1.34, or no dra.kubernetes_version (it then takes the cluster's major.minor)"
    ]
    # Left out on both, the DRA rules check the default the cluster is created with: 1.34, below the gate.
    result = plan_stack(
        tmp_path,
        "aws-eks-dra",
        {
            "gpu-components:cluster": dra_stack_cluster("aws-eks-dra"),
            "gpu-components:dra": {"extended_resource": True},
        },
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[1].startswith(
        "  - dra.extended_resource: DRA pools serve plain nvidia.com/gpu requests through the DeviceClass's "
        "extendedResourceName only with Kubernetes' DRAExtendedResource feature gate; in Kubernetes 1.34 "
    )


@pytest.mark.parametrize(
    ("cluster", "dra", "expected"),
    [
        (
            {"kubernetes_version": None},
            None,
            [
                "  - cluster.kubernetes_version: must not be null; leave the field out for its default (got None); "
                "valid: a string"
            ],
        ),
        (
            {},
            {"kubernetes_version": None},
            [
                "  - dra.kubernetes_version: must not be null; leave the field out for its default (got None); valid: "
                "a string"
            ],
        ),
    ],
    ids=["cluster-null", "dra-null"],
)
def test_a_null_version_is_one_problem(
    tmp_path: Path, cluster: dict[str, Any], dra: dict[str, Any] | None, expected: list[str]
) -> None:
    """Trial: a null version gave its null problem and also "dra.kubernetes_version: required"."""
    change: dict[str, Any] = {"gpu-components:cluster": {**dra_stack_cluster("aws-eks-dra"), **cluster}}
    if dra is not None:
        change["gpu-components:dra"] = {"installer": "chart", **dra}
    result = plan_stack(tmp_path, "aws-eks-dra", change)
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == expected


def test_a_gke_cluster_on_latest_is_asked_for_the_dra_version_saying_why(tmp_path: Path) -> None:
    """Trial: GKE takes ``latest`` as a cluster version; the stack said only "dra.kubernetes_version: required"."""
    cluster = {**dra_stack_cluster("gcp-gke-dra"), "kubernetes_version": "latest"}
    result = plan_stack(tmp_path, "gcp-gke-dra", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    [line] = result.output.splitlines()[1:]
    assert line.startswith("  - dra.kubernetes_version: required under gpu_stack dra: ")
    assert (
        "; cluster.kubernetes_version 'latest' names no major.minor for the DRA rules to check, so give the "
        "version the cluster runs here (got None)" in line
    )


@pytest.mark.parametrize("version", ["1.036", "01.36"])
def test_a_version_with_a_leading_zero_is_no_version(tmp_path: Path, version: str) -> None:
    """Trial: '1.036' was read as 1.36 by the DRA rules (and sent to the cloud as written)."""
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [L40S], "dra", dra={"kubernetes_version": version})
    assert [str(p) for p in caught.value.problems] == [
        f"dra.kubernetes_version: not a Kubernetes major.minor version (got {version!r}); valid: MAJOR.MINOR, e.g. "
        f"1.34 [source: {SOURCE_DRA}]"
    ]
    cluster = {**dra_stack_cluster("aws-eks-dra"), "kubernetes_version": version}
    result = plan_stack(tmp_path, "aws-eks-dra", {"gpu-components:cluster": cluster})
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        f"  - cluster.kubernetes_version: not a Kubernetes version the cloud accepts (got {version!r}); valid: "
        "MAJOR.MINOR, e.g. 1.34 [source: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html]"
    ]
    # A malformed dra.kubernetes_version is one problem, not also "not the cluster's version".
    result = plan_stack(tmp_path, "aws-eks-dra", {"gpu-components:dra": {"kubernetes_version": version}})
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [
        f"  - dra.kubernetes_version: not a Kubernetes major.minor version (got {version!r}); valid: MAJOR.MINOR, "
        f"e.g. 1.34 [source: {SOURCE_DRA}]"
    ]
