"""NvidiaDraDriver and its chart values: exact values, every value a path of the pinned chart's values.yaml, owned
values refused, only DRA pools served, and the GPU Operator's DRA modes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_components.aws.adapter import ADAPTER as AWS_ADAPTER
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDraDriver, NvidiaGpuOperator
from gpu_components.nvidia.dra_driver import (
    DRA_CHART_NESTED_VALUES,
    DRA_CHART_VALUE_KEYS,
    dra_driver_values,
    dra_helm_values_problems,
)
from gpu_components.nvidia.gpu_operator import gpu_cluster_values
from gpu_components.spec import GpuNodePoolSpec, Taint
from tests.helpers import plan_of, resource
from tests.plan.test_state import git_blob_id

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "nvidia"
DRA_VALUES = REFERENCE / "dra-driver-nvidia-gpu-v0.4.1" / "values.yaml"
OPERATOR_VALUES = REFERENCE / "gpu-operator-v26.7.0" / "values.yaml"
BLOBS = {
    DRA_VALUES: "89885f77035d666ca83553a2a7d475f189a9ce0d",
    OPERATOR_VALUES: "45947b26ccadd2384549b4d5b9214073369cea1a",
}

L40S: dict[str, Any] = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 2}
H100: dict[str, Any] = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
A10G: dict[str, Any] = {"name": "a10g", "instance_type": "g5.xlarge", "max_size": 2, "gpu_access": "device-plugin"}
TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
]


def spec(pool: Mapping[str, Any]) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]


def leaf_paths(values: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every path to a value that is not a non-empty mapping (a list or a map the library sets whole is one leaf)."""
    for key, value in values.items():
        if isinstance(value, Mapping) and value:
            yield from leaf_paths(value, (*prefix, key))
        else:
            yield (*prefix, key)


def missing_paths(values: Mapping[str, Any], chart: Mapping[str, Any]) -> list[str]:
    """Paths of ``values`` the chart's values.yaml does not have; under a map the chart leaves empty (``{}``,
    free-form such as ``featureGates``) any key is the chart's."""
    missing = []
    for path in leaf_paths(values):
        node: Any = chart
        for key in path:
            if isinstance(node, Mapping) and node == {}:
                break
            if not isinstance(node, Mapping) or key not in node:
                missing.append(".".join(path))
                break
            node = node[key]
    return missing


def test_the_reference_values_are_the_upstream_blobs() -> None:
    assert {path: git_blob_id(path.read_bytes()) for path in BLOBS} == BLOBS


def test_the_chart_values_are_exact_and_select_only_the_dra_pools() -> None:
    values = dra_driver_values(
        [spec(H100), spec(L40S)], "/", ["TimeSlicingSettings", "MPSSupport"], (Taint("spot", "true", "NoSchedule"),)
    )
    assert values == {
        "resourceApiVersion": "resource.k8s.io/v1",
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "featureGates": {"MPSSupport": True, "TimeSlicingSettings": True},
        "kubeletPlugin": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "gpu-components/pool", "operator": "In", "values": ["h100", "l40s"]}
                                ]
                            }
                        ]
                    }
                }
            },
            "tolerations": [
                *TOLERATIONS,
                {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
            ],
        },
    }


def test_every_value_the_library_sets_is_a_value_of_the_pinned_charts() -> None:
    dra_chart = yaml.safe_load(DRA_VALUES.read_text())
    values = dra_driver_values([spec(H100)], "/", ["DynamicMIG"])
    assert missing_paths(values, dra_chart) == []
    assert missing_paths({"kubeletPlugin": {"nodeAffinity": 1}}, dra_chart) == ["kubeletPlugin.nodeAffinity"]
    operator_chart = yaml.safe_load(OPERATOR_VALUES.read_text())
    assert missing_paths(gpu_cluster_values([spec(L40S)], ["MPSSupport"]), operator_chart) == []


def test_the_known_top_level_keys_are_those_of_the_pinned_values() -> None:
    assert tuple(yaml.safe_load(DRA_VALUES.read_text())) == DRA_CHART_VALUE_KEYS


def test_helm_values_with_a_top_level_key_the_chart_lacks_are_refused() -> None:
    known = (
        "allowDefaultNamespace, altProcDevices, controller, featureGates, fullnameOverride, "
        "gpuResourcesEnabledOverride, image, imagePullSecrets, kubeletPlugin, logVerbosity, maskNvidiaDriverParams, "
        "nameOverride, namespaceOverride, nvidiaCDIHookPath, nvidiaDriverRoot, resourceApiVersion, resources, "
        "selectorLabelsOverride, serviceAccount, webhook"
    )
    source = (
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/tree/v0.4.1/deployments/helm/dra-driver-nvidia-gpu"
    )
    helm_values = {"kubeletPlugn": {}, "webhook": {"enabled": True}, "maskNvidiaDriverParams": True, "zzz": 1}
    args = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [L40S], "helm_values": helm_values}
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: NvidiaDraDriver("dra", args))  # type: ignore[arg-type]
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in caught.value.problems] == [
        (
            "helm_values.kubeletPlugn",
            {},
            "not a top-level value of the DRA driver chart 0.4.1, so it would be ignored; did you mean "
            "'kubeletPlugin'?",
            known,
            source,
        ),
        (
            "helm_values.zzz",
            1,
            "not a top-level value of the DRA driver chart 0.4.1, so it would be ignored",
            known,
            source,
        ),
    ]
    # The stack path, prefixed; another chart version's keys are not known, so not checked.
    problems = dra_helm_values_problems(helm_values, "0.4.1", "dra.")
    assert [p.path for p in problems] == ["dra.helm_values.kubeletPlugn", "dra.helm_values.zzz"]
    assert dra_helm_values_problems(helm_values, "0.5.0") == []


def test_the_component_installs_the_pinned_oci_chart_into_its_namespace() -> None:
    plan = plan_of(lambda: NvidiaDraDriver("dra", {"cloud": "aws", "kubernetes_version": "1.34", "pools": [L40S]}))
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "dra-release").inputs
    assert (release["chart"], release["version"], release["name"], release["namespace"]) == (
        "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
        "0.4.1",
        "dra-driver-nvidia-gpu",
        "dra-driver-nvidia-gpu",
    )
    assert "repositoryOpts" not in release
    assert release["values"]["kubeletPlugin"]["tolerations"] == TOLERATIONS


def refused(args: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: NvidiaDraDriver("dra", args))  # type: ignore[arg-type]
    return [(p.path, p.message) for p in caught.value.problems]


def test_owned_values_a_device_plugin_pool_and_an_old_kubernetes_are_refused() -> None:
    assert refused(
        {
            "cloud": "aws",
            "kubernetes_version": "1.33",
            "chart_version": "v0.4.1",
            "pools": [L40S, A10G],
            "helm_values": {"gpuResourcesEnabledOverride": False, "namespace": "x", "kubeletPlugin": {"affinity": {}}},
        }
    ) == [
        (
            "helm_values.gpuResourcesEnabledOverride",
            "decided by the library: the library guarantees no device plugin runs on the driver's nodes, which is "
            "what the override states",
        ),
        (
            "helm_values.kubeletPlugin.affinity",
            "decided by the library: the kubelet plugin runs only on the DRA pools, never beside a device plugin",
        ),
        (
            "helm_values.namespace",
            "decided by the library: the chart refuses a 'namespace' value (templates/validation.yaml: use the "
            "release namespace)",
        ),
        ("chart_version", "not a DRA driver chart version"),
        (
            "kubernetes_version",
            "DRA's resource.k8s.io/v1 API, which NVIDIA's DRA driver uses, is GA from Kubernetes 1.34; earlier "
            "versions serve DRA only as a beta API behind feature gates",
        ),
        (
            "pools[1]",
            "its GPUs are advertised by the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin); a second advertiser "
            "on its nodes would break them",
        ),
    ]


def test_dynamic_mig_beside_a_mig_pool_and_gates_the_driver_refuses_together() -> None:
    problems = refused(
        {
            "cloud": "aws",
            "kubernetes_version": "1.36",
            "pools": [H100],
            "feature_gates": ["DynamicMIG", "MPSSupport", "DeviceMetadata"],
        }
    )
    assert problems == [
        (
            "feature_gates",
            "the DRA driver refuses feature gate DynamicMIG together with MPSSupport (mutually exclusive)",
        ),
        ("feature_gates[2]", "the DRA driver requires feature gate PassthroughSupport with DeviceMetadata"),
        (
            "feature_gates[0]",
            "DynamicMIG lets the DRA driver create and destroy MIG devices on demand, destroying the static MIG "
            "partitions it did not create, and pools[0] (h100) has static MIG partitions (mig)",
        ),
    ]


def test_dynamic_mig_below_kubernetes_1_36_is_refused_naming_the_partitionable_devices_gate() -> None:
    assert refused(
        {"cloud": "aws", "kubernetes_version": "1.34", "pools": [L40S], "feature_gates": ["DynamicMIG"]}
    ) == [
        (
            "feature_gates[0]",
            "with DynamicMIG the DRA driver publishes MIG devices as partitionable devices, which need Kubernetes' "
            "DRAPartitionableDevices feature gate in kube-apiserver, kube-scheduler and kubelet; in Kubernetes 1.34 "
            "that gate is alpha and off by default (alpha 1.33 to 1.35, beta and on by default from 1.36), and "
            "managed control planes (EKS, AKS, GKE) do not let users turn alpha gates on",
        )
    ]


def test_the_gpu_cluster_mode_renders_a_gpu_cluster_not_a_cluster_policy() -> None:
    def program() -> None:
        NvidiaGpuOperator(
            "op",
            {
                "cloud": "aws",
                "pools": [L40S],
                "dra_installer": "gpu-operator",
                "dra_feature_gates": ["MPSSupport"],
                "dcgm_exporter": False,
            },
        )

    values = resource(plan_of(program), "kubernetes:helm.sh/v3:Release", "op-release").inputs["values"]
    assert values == {
        "clusterPolicy": {"deployCR": False},
        "gpuCluster": {"deployCR": True},
        "operator": {"env": [{"name": "DEFAULT_GPU_ALLOCATION_MODE", "value": "dra"}]},
        "draDriver": {"featureGates": {"MPSSupport": True}, "computeDomains": {"enabled": False}},
        "dcgmExporter": {"enabled": False, "serviceMonitor": {"enabled": False}},
        "daemonsets": {
            "tolerations": [
                {"key": "CriticalAddonsOnly", "operator": "Exists"},
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
            ]
        },
        "node-feature-discovery": {
            "worker": {
                "tolerations": [
                    {
                        "key": "node-role.kubernetes.io/control-plane",
                        "operator": "Equal",
                        "value": "",
                        "effect": "NoSchedule",
                    },
                    {"key": "CriticalAddonsOnly", "operator": "Exists"},
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
                ]
            }
        },
    }


def test_the_gpu_cluster_refuses_mig_pools_and_the_operators_driver() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: NvidiaGpuOperator(
                "op", {"cloud": "aws", "pools": [H100], "dra_installer": "gpu-operator", "operator_driver": True}
            )
        )
    owners, *rest = caught.value.problems
    assert (owners.path, owners.valid) == (
        "pools[0].aws.ami_type",
        "operator_driver false (every EKS NVIDIA AMI ships the driver)",
    )
    assert [(p.path, p.message) for p in rest] == [
        (
            "pools[0].mig",
            "the GPU Operator's GPUCluster (dra installer gpu-operator) runs no MIG manager, so nothing would "
            "partition the pool's GPUs",
        ),
        ("operator_driver", "the GPU Operator's GPUCluster (dra installer gpu-operator) installs no NVIDIA driver"),
    ]


def test_the_mig_manager_mode_turns_the_operators_device_plugin_off_and_marks_no_pool_served() -> None:
    def program() -> None:
        NvidiaDraDriver("dra", {"cloud": "aws", "kubernetes_version": "1.34", "pools": [H100]})
        NvidiaGpuOperator("op", {"cloud": "aws", "pools": [H100], "dra_installer": "chart"})

    values = resource(plan_of(program), "kubernetes:helm.sh/v3:Release", "op-release").inputs["values"]
    assert values["devicePlugin"] == {"enabled": False}
    assert (values["driver"], values["migManager"]["config"]) == (
        {"enabled": False},
        {"name": "gpu-operator-mig-parted-config", "default": "all-disabled"},
    )


def test_dra_feature_gates_need_the_gpu_cluster() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: NvidiaGpuOperator("op", {"cloud": "aws", "pools": [H100], "dra_feature_gates": ["MPSSupport"]}))
    assert [(p.path, p.valid) for p in caught.value.problems] == [
        ("dra_feature_gates", "dra_installer gpu-operator, or no dra_feature_gates")
    ]


def test_feature_gates_given_as_one_string_say_to_write_a_list_of_gates() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: NvidiaDraDriver(
                "dra",
                {"cloud": "aws", "kubernetes_version": "1.34", "pools": [L40S], "feature_gates": "MPSSupport"},  # type: ignore[typeddict-item]
            )
        )
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
        (
            "feature_gates",
            "MPSSupport",
            "must be a list, not a single value",
            "a list, e.g. [MPSSupport]; items: TimeSlicingSettings, MPSSupport, DynamicMIG, PassthroughSupport, "
            "NVMLDeviceHealthCheck, DeviceMetadata, IMEXDaemonsWithDNSNames, ComputeDomainCliques, "
            "CrashOnNVLinkFabricErrors",
        )
    ]


def test_nested_helm_values_keys_the_pinned_chart_never_reads_are_refused() -> None:
    helm_values = {
        "kubeletPlugin": {"tolerationz": [], "containers": {"gpus": {"envv": [], "resources": {"limits": {}}}}},
        "controller": {"affinity": {"anything": {}}, "metrics": {"enabled": False}},
        "webhook": {"strategy": {}, "tls": {"mode": "secret", "free": 1}},
        "resources": {"computeDomains": {"enabled": True, "x": 1}},
    }
    problems = dra_helm_values_problems(helm_values, None, "dra.")
    assert [(p.path, p.value, p.message, p.valid) for p in problems] == [
        (
            "dra.helm_values.kubeletPlugin.tolerationz",
            [],
            "not a value of kubeletPlugin that the DRA driver chart 0.4.1's templates read, so it would be ignored; "
            "did you mean 'tolerations'?",
            "affinity, containers, kubeletPluginsDirectoryPath, kubeletRegistrarDirectoryPath, metrics, "
            "networkPolicy, nodeSelector, podAnnotations, podSecurityContext, priorityClassName, tolerations, "
            "updateStrategy",
        ),
        (
            "dra.helm_values.kubeletPlugin.containers.gpus.envv",
            [],
            "not a value of kubeletPlugin.containers.gpus that the DRA driver chart 0.4.1's templates read, so it "
            "would be ignored; did you mean 'env'?",
            "env, healthcheckPort, resources, securityContext",
        ),
        (
            "dra.helm_values.webhook.strategy",
            {},
            "not a value of webhook that the DRA driver chart 0.4.1's templates read, so it would be ignored",
            "affinity, containerPort, containers, enabled, failurePolicy, nodeSelector, podAnnotations, "
            "podSecurityContext, priorityClassName, replicas, serviceAccount, servicePort, tls, tolerations",
        ),
        (
            "dra.helm_values.resources.computeDomains.x",
            1,
            "not a value of resources.computeDomains that the DRA driver chart 0.4.1's templates read, so it would "
            "be ignored",
            "enabled",
        ),
    ]
    assert dra_helm_values_problems(helm_values, "0.5.0") == []


def test_every_nested_value_the_check_knows_is_read_where_the_pinned_values_nest_it() -> None:
    chart = yaml.safe_load(DRA_VALUES.read_text())
    undeclared = []
    for path in DRA_CHART_NESTED_VALUES:
        node: Any = chart
        for part in path.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if node is None:
            undeclared.append(path)
    # values.yaml leaves this one out; templates/webhook-serviceaccount.yaml reads it (v0.4.1).
    assert undeclared == ["webhook.serviceAccount.annotations"]


def test_another_chart_version_is_deployed_with_a_warning_of_what_is_not_checked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    args = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [L40S], "chart_version": "0.5.0"}
    args["helm_values"] = {"kubeletPlugn": {}}
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan = plan_of(lambda: NvidiaDraDriver("dra", args))  # type: ignore[arg-type]
    assert resource(plan, "kubernetes:helm.sh/v3:Release", "dra-release").inputs["version"] == "0.5.0"
    assert [record.getMessage() for record in caplog.records if "chart_version" in record.getMessage()] == [
        "gpu-components:index:NvidiaDraDriver (dra): "
        "DRA driver chart_version 0.5.0 is not the pinned, tested 0.4.1: the chart values, feature gate names and "
        "library-owned keys are those of chart 0.4.1, and no helm_values key is checked against chart 0.5.0; "
        "compare its values.yaml with 0.4.1's before deploying"
    ]
    caplog.clear()
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: NvidiaDraDriver("dra", {**args, "chart_version": "0.4.1", "helm_values": {}}))  # type: ignore[arg-type]
    assert [record.getMessage() for record in caplog.records if "chart_version" in record.getMessage()] == []


MIG_MANAGER_TERMS = [
    {"matchExpressions": [{"key": "gpu-components/pool", "operator": "In", "values": ["l40s"]}]},
    {
        "matchExpressions": [
            {"key": "gpu-components/pool", "operator": "In", "values": ["h100"]},
            {"key": "nvidia.com/mig.config.state", "operator": "In", "values": ["success"]},
        ]
    },
]


def test_the_kubelet_plugin_waits_for_the_mig_managers_success_on_its_pools_only() -> None:
    values = dra_driver_values([spec(H100), spec(L40S)], "/", mig_manager_pools=["h100"])
    affinity = values["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert affinity == {"nodeSelectorTerms": MIG_MANAGER_TERMS}
    # Only MIG manager pools: one term, with the state; no empty pool list.
    only_mig = dra_driver_values([spec(H100)], "/", mig_manager_pools=["h100"])["kubeletPlugin"]["affinity"]
    assert only_mig["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": MIG_MANAGER_TERMS[1:]
    }
    assert "priorityClassName" not in values["kubeletPlugin"]


def test_the_component_makes_the_kubelet_plugin_wait_on_pools_the_mig_manager_partitions() -> None:
    args = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [H100, L40S]}
    plan = plan_of(lambda: NvidiaDraDriver("dra", args))  # type: ignore[arg-type]
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "dra-release").inputs["values"]
    affinity = values["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert affinity == {"nodeSelectorTerms": MIG_MANAGER_TERMS}
    assert "priorityClassName" not in values["kubeletPlugin"]


def test_a_mig_capable_pool_without_mig_has_no_mig_manager_label_and_does_not_wait_for_it() -> None:
    whole = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1}
    args = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [whole]}
    plan = plan_of(lambda: NvidiaDraDriver("dra", args))  # type: ignore[arg-type]
    assert "nvidia.com/mig.config" not in AWS_ADAPTER.describe_pool(spec(whole), {}, "dra").labels
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "dra-release").inputs["values"]
    affinity = values["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert affinity == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "gpu-components/pool", "operator": "In", "values": ["h100"]}]}
        ]
    }


def test_the_kubelet_plugin_priority_class_is_a_chart_value_set_only_when_given() -> None:
    chart = yaml.safe_load(DRA_VALUES.read_text())
    values = dra_driver_values([spec(L40S)], "/", kubelet_plugin_priority_class="")
    assert values["kubeletPlugin"]["priorityClassName"] == ""
    assert missing_paths(values, chart) == []
    # The chart's own, which the value replaces.
    assert chart["kubeletPlugin"]["priorityClassName"] == "system-node-critical"


def test_the_resource_api_version_is_pinned_to_the_claims_api() -> None:
    assert dra_driver_values([spec(L40S)], "/")["resourceApiVersion"] == "resource.k8s.io/v1"
    assert refused(
        {
            "cloud": "aws",
            "kubernetes_version": "1.34",
            "pools": [L40S],
            "helm_values": {"resourceApiVersion": "resource.k8s.io/v1beta1"},
        }
    ) == [
        (
            "helm_values.resourceApiVersion",
            "decided by the library: the DeviceClasses must be of the resource.k8s.io API the claims are written in "
            "(resource.k8s.io/v1)",
        )
    ]
