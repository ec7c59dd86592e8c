"""``time_slicing.trusted`` / ``mps.trusted``: each cloud's node-pool component marks a trusted shared pool with the
node label the policy rule reads, and the add-ons' config ConfigMap names the trusted entries only, so one ConfigMap
serving a trusted and an untrusted pool is flagged for the untrusted one alone."""

from __future__ import annotations

import base64
from typing import Any

import pulumi_kubernetes as k8s
import pytest
import tomllib
from pulumi import ResourceOptions

from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.policy.rules import shared_gpu_trust_violations
from tests.helpers import inputs_by_name, plan_of, pool_components

TRUSTED = {"replicas": 4, "trusted": True}
POOLS = {
    "aws": ("g5.2xlarge", "aws:eks/nodeGroup:NodeGroup", "np-{}-node-group", ("labels",)),
    "azure": ("Standard_NC8as_T4_v3", "azure-native:containerservice:AgentPool", "np-{}-agent-pool", ("nodeLabels",)),
    "gcp": ("g2-standard-8", "gcp:container/nodePool:NodePool", "np-{}-node-pool", ("nodeConfig", "labels")),
}


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@pytest.mark.parametrize("cloud", sorted(POOLS))
@pytest.mark.parametrize("mode", ["time_slicing", "mps"])
def test_a_trusted_shared_pool_carries_the_trust_label_and_an_untrusted_one_does_not(cloud: str, mode: str) -> None:
    instance, type_, name, path = POOLS[cloud]
    pools = [
        {"name": "trusted", "instance_type": instance, "max_size": 2, mode: TRUSTED},
        {"name": "shared", "instance_type": instance, "max_size": 2, mode: {"replicas": 4}},
    ]
    plan = plan_of(lambda: pool_components(cloud, pools))
    inputs = inputs_by_name(plan, type_)
    assert _at(inputs[name.format("trusted")], path)["gpu-components/sharing"] == "trusted"
    assert "gpu-components/sharing" not in _at(inputs[name.format("shared")], path)


def test_a_trusted_bottlerocket_pool_labels_its_nodes_in_the_user_data() -> None:
    pool = {"name": "trusted", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": TRUSTED}
    plan = plan_of(lambda: pool_components("aws", [pool], ami_type="BOTTLEROCKET_x86_64_NVIDIA"))
    template = inputs_by_name(plan, "aws:ec2/launchTemplate:LaunchTemplate")["np-trusted-launch-template"]
    settings = tomllib.loads(base64.b64decode(template["userData"]).decode())["settings"]
    assert settings["kubernetes"] == {"node-labels": {"gpu-components/sharing": "trusted"}}
    assert settings["kubelet-device-plugins"]["nvidia"]["device-sharing-strategy"] == "time-slicing"
    assert shared_gpu_trust_violations("aws:ec2/launchTemplate:LaunchTemplate", template) == []


@pytest.mark.parametrize(("addon", "config_map"), [("plugin", "dp-config"), ("operator", "op-device-plugin-config")])
def test_one_config_map_for_a_trusted_and_an_untrusted_pool_is_flagged_for_the_untrusted_one(
    addon: str, config_map: str
) -> None:
    pools = [
        {"name": "trusted", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": TRUSTED},
        {"name": "shared", "instance_type": "g5.2xlarge", "max_size": 2, "mps": {"replicas": 4}},
        {"name": "exclusive", "instance_type": "g5.2xlarge", "max_size": 2},
    ]

    def program() -> None:
        gpu_stack = "gpu-operator" if addon == "operator" else "auto"
        components = pool_components("aws", pools, gpu_stack)
        provider = k8s.Provider("k8s", kubeconfig="{}")
        if addon == "operator":
            NvidiaGpuOperator("op", {"pools": components}, ResourceOptions(provider=provider))
        else:
            NvidiaDevicePlugin("dp", {"pools": components}, ResourceOptions(provider=provider))

    plan = plan_of(program)
    inputs = inputs_by_name(plan, "kubernetes:core/v1:ConfigMap")[config_map]
    assert inputs["metadata"]["annotations"] == {"gpu-components/sharing-trusted-entries": "trusted"}
    (message,) = shared_gpu_trust_violations("kubernetes:core/v1:ConfigMap", inputs)
    assert message.startswith(
        "data['shared']: device plugin config 'shared' (mps) shares GPUs without memory isolation"
    )


def test_a_config_map_without_trusted_pools_has_no_annotation() -> None:
    pool = {"name": "shared", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 2}}

    def program() -> None:
        components = pool_components("aws", [pool])
        NvidiaDevicePlugin("dp", {"pools": components}, ResourceOptions(provider=k8s.Provider("k8s", kubeconfig="{}")))

    inputs = inputs_by_name(plan_of(program), "kubernetes:core/v1:ConfigMap")["dp-config"]
    assert inputs["metadata"] == {"name": "nvidia-device-plugin-configs", "namespace": "nvidia-device-plugin"}
