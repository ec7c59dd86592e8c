"""NvidiaDevicePlugin under Pulumi mocks: namespace, ConfigMap, Helm release; manifests valid for EKS versions."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pulumi_kubernetes as k8s
import pytest
import yaml

from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.kubernetes import NvidiaDevicePlugin
from gpu_components.plan import Plan
from tests.helpers import plan_of, pool_components, resource

POOLS: list[Any] = [
    {"name": "shared", "instance_type": "g5.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}},
    {
        "name": "infer",
        "instance_type": "g6.xlarge",
        "max_size": 2,
        "mps": {"replicas": 8},
        "taints": [{"key": "dedicated", "value": "inference", "effect": "NoExecute"}],
    },
]


def plugin_plan(**extra: Any) -> Plan:
    return plan_of(lambda: NvidiaDevicePlugin("dp", {"pools": pool_components("aws", POOLS), **extra}))


def test_registers_namespace_configmap_and_pinned_release() -> None:
    plan = plugin_plan()
    namespace = resource(plan, "kubernetes:core/v1:Namespace", "dp-namespace").inputs
    assert namespace["metadata"] == {"name": "nvidia-device-plugin"}
    config = resource(plan, "kubernetes:core/v1:ConfigMap", "dp-config").inputs
    assert config["metadata"] == {"name": "nvidia-device-plugin-configs", "namespace": "nvidia-device-plugin"}
    assert sorted(config["data"]) == ["default", "infer", "shared"]
    assert yaml.safe_load(config["data"]["infer"])["sharing"]["mps"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 8}
    ]
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "dp-release").inputs
    assert (release["chart"], release["version"], release["name"], release["namespace"]) == (
        "nvidia-device-plugin",
        "0.20.0",
        "nvidia-device-plugin",
        "nvidia-device-plugin",
    )
    assert release["repositoryOpts"] == {"repo": "https://nvidia.github.io/k8s-device-plugin"}
    values = release["values"]
    assert values["config"] == {"default": "default", "name": "nvidia-device-plugin-configs"}
    assert values["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Equal", "value": "present"},
        {"effect": "NoExecute", "key": "dedicated", "operator": "Equal", "value": "inference"},
    ]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [
        {
            "matchExpressions": [
                {"key": "nvidia.com/device-plugin.config", "operator": "In", "values": ["infer", "shared"]}
            ]
        }
    ]


def test_settings_override_namespace_version_and_values() -> None:
    plan = plugin_plan(namespace="gpu-system", chart_version="0.19.0", helm_values={"gfd": {"enabled": True}})
    release = resource(plan, "kubernetes:helm.sh/v3:Release", "dp-release").inputs
    assert (release["namespace"], release["version"], release["values"]["gfd"]) == (
        "gpu-system",
        "0.19.0",
        {"enabled": True},
    )


@pytest.mark.parametrize("version", EKS_KUBERNETES_VERSIONS)
def test_rendered_manifests_validate_strictly(version: str) -> None:
    plan = plugin_plan()
    namespace = resource(plan, "kubernetes:core/v1:Namespace", "dp-namespace").inputs
    config = resource(plan, "kubernetes:core/v1:ConfigMap", "dp-config").inputs
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "dp-release").inputs["values"]
    manifests = [
        {"apiVersion": "v1", "kind": "Namespace", **namespace},
        {"apiVersion": "v1", "kind": "ConfigMap", **config},
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "nvidia-device-plugin", "namespace": "nvidia-device-plugin"},
            "spec": {
                "selector": {"matchLabels": {"app": "nvidia-device-plugin"}},
                "template": {
                    "metadata": {"labels": {"app": "nvidia-device-plugin"}, "annotations": values["podAnnotations"]},
                    "spec": {
                        "tolerations": values["tolerations"],
                        "affinity": values["affinity"],
                        "containers": [{"name": "plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"}],
                    },
                },
            },
        },
    ]
    for manifest in manifests:
        kubernetes_validate.validate(manifest, version, strict=True)


def test_validation_would_catch_a_misspelt_toleration() -> None:
    bad = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}], "tolerations": [{"key": "k", "operater": "Exists"}]},
    }
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, EKS_KUBERNETES_VERSIONS[-1], strict=True)


def test_a_standalone_aks_spot_pool_gives_the_device_plugin_the_spot_taint_to_tolerate() -> None:
    spot = {"name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 6, "spot": True}
    plan = plan_of(lambda: NvidiaDevicePlugin("dp", {"pools": pool_components("azure", [spot])}))
    values = resource(plan, "kubernetes:helm.sh/v3:Release", "dp-release").inputs["values"]
    assert values["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Equal", "value": "present"},
        {"effect": "NoSchedule", "key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot"},
    ]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [
        {"matchExpressions": [{"key": "nvidia.com/device-plugin.config", "operator": "In", "values": ["t4spot"]}]}
    ]


def test_the_component_exposes_its_release_specs_and_tolerations() -> None:
    built: list[NvidiaDevicePlugin] = []
    plan_of(lambda: built.append(NvidiaDevicePlugin("dp", {"pools": pool_components("aws", POOLS)})))
    [component] = built
    assert [spec.name for spec in component.specs] == ["shared", "infer"]
    assert component.tolerations == component.values["tolerations"]
    assert component.tolerations[-1] == {
        "effect": "NoExecute",
        "key": "dedicated",
        "operator": "Equal",
        "value": "inference",
    }
    assert isinstance(component.release, k8s.helm.v3.Release)
