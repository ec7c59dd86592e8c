"""The DRA stack rules: workloads that ask for NVIDIA extended resources on DRA pools, and claims whose sharing needs
an alpha feature gate of NVIDIA's DRA driver that the stack's driver release does not turn on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import unknown_checking_proxy
from pulumi_policy.secret import secrets_preserving_proxy

from gpu_components.policy import policies
from gpu_components.policy.rules import (
    SOURCE_DRA_CLAIMS,
    SOURCE_DRA_EXTENDED_RESOURCE,
    SOURCE_DRA_SHARING_GATES,
    StackResource,
    chart_version_violations,
    dra_alpha_claim_config_violations,
    dra_driver_gates,
    dra_pool_extended_resource_violations,
    dra_pools,
    dra_unsatisfiable_claim_violations,
)

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
RELEASE = "kubernetes:helm.sh/v3:Release"
DRA_LABELS = {"gpu-components/pool": "h100", "gpu-components/gpu-access": "dra"}


def node_group(labels: dict[str, str]) -> StackResource:
    return ("urn:ng", NODE_GROUP, {"instanceTypes": ["p5.48xlarge"], "labels": labels})


def workload(resources: dict[str, Any], **pod: Any) -> StackResource:
    container = {"name": "model", "image": "registry.example/model:1", "resources": resources}
    spec = {"template": {"spec": {"containers": [container], **pod}}}
    return ("urn:app", DEPLOYMENT, {"metadata": {"name": "app"}, "spec": spec})


GPU = {"limits": {"nvidia.com/gpu": 1}}
ON_H100 = {"nodeSelector": {"gpu-components/pool": "h100"}}


def extended_message(names: str, how: str, mapping: str = "") -> str:
    return (
        f"spec.template.spec.containers[0].resources: the pods ask for {names} but select only DRA nodes ({how}); "
        "NVIDIA's DRA driver publishes their GPUs as DRA devices (DeviceClass gpu.nvidia.com, mig.nvidia.com), no "
        f"device plugin advertises {names} there, so the pods stay Pending{mapping}; ask for the GPUs with a "
        "resource claim instead (a ResourceClaimTemplate, the pod's resourceClaims and the container's "
        f"resources.claims: gpu_components.claims) [source: {SOURCE_DRA_CLAIMS}; {SOURCE_DRA_EXTENDED_RESOURCE}]"
    )


GPU_MAPPING = (
    " (a cluster whose Kubernetes DRAExtendedResource feature gate is on, beta from 1.36, maps nvidia.com/gpu to "
    "the driver's gpu.nvidia.com DeviceClass: the library's DRA setting extended_resource says so on Kubernetes "
    "1.36 or later; for a DRA driver deployed otherwise set the policy's draExtendedResource: true there)"
)


# ---------------------------------------------------------------------------------------------------------------
# gpu-dra-pool-extended-resource
# ---------------------------------------------------------------------------------------------------------------


def test_dra_pools_are_read_from_every_clouds_pool_labels_and_karpenter() -> None:
    karpenter = {"spec": {"template": {"metadata": {"labels": {**DRA_LABELS, "gpu-components/pool": "kp"}}}}}
    aks = {"vmSize": "Standard_NC24ads_A100_v4", "nodeLabels": {**DRA_LABELS, "gpu-components/pool": "aks"}}
    gke = {"nodeConfig": {"labels": {**DRA_LABELS, "gpu-components/pool": "gke"}}}
    resources: list[StackResource] = [
        node_group(DRA_LABELS),
        node_group({"gpu-components/pool": "plugin"}),
        ("urn:kp", "kubernetes:karpenter.sh/v1:NodePool", karpenter),
        ("urn:aks", "azure-native:containerservice:AgentPool", aks),
        ("urn:gke", "gcp:container/nodePool:NodePool", gke),
        ("urn:cm", "kubernetes:core/v1:ConfigMap", {"metadata": {"labels": DRA_LABELS}}),
    ]
    assert dra_pools(resources) == {"h100", "kp", "aks", "gke"}


def test_gpu_limit_on_a_dra_pool_is_flagged() -> None:
    violations = dra_pool_extended_resource_violations([node_group(DRA_LABELS), workload(GPU, **ON_H100)])
    how = "nodeSelector gpu-components/pool: h100 (a DRA pool)"
    assert violations == [("urn:app", extended_message("nvidia.com/gpu", how, GPU_MAPPING))]


def test_mig_request_selected_by_the_access_label_is_flagged_even_with_the_extended_resource_mapping() -> None:
    mig = {"limits": {"nvidia.com/mig-1g.10gb": 1}, "requests": {"nvidia.com/mig-1g.10gb": 1}}
    selector = {"nodeSelector": {"gpu-components/gpu-access": "dra"}}
    violations = dra_pool_extended_resource_violations([workload(mig, **selector)], extended_resource=True)
    how = "nodeSelector gpu-components/gpu-access: dra"
    assert violations == [("urn:app", extended_message("nvidia.com/mig-1g.10gb", how))]


def test_the_library_dra_driver_recording_the_extended_resource_lets_whole_gpus_pass_and_mig_still_fails() -> None:
    def component(recorded: str | None) -> StackResource:
        props = {"poolNames": ["h100"], "extendedResource": recorded}
        return ("urn:dra", "gpu-components:index:NvidiaDraDriver", props)

    mig = {"limits": {"nvidia.com/mig-1g.10gb": 1}}
    in_force = [node_group(DRA_LABELS), component("nvidia.com/gpu")]
    assert dra_pool_extended_resource_violations([*in_force, workload(GPU, **ON_H100)]) == []
    assert [urn for urn, _ in dra_pool_extended_resource_violations([*in_force, workload(mig, **ON_H100)])] == [
        "urn:app"
    ]
    off = [node_group(DRA_LABELS), component(None), workload(GPU, **ON_H100)]
    ((_, message),) = dra_pool_extended_resource_violations(off)
    assert message.endswith(
        extended_message("nvidia.com/gpu", "nodeSelector gpu-components/pool: h100 (a DRA pool)", GPU_MAPPING)
    )


def test_the_extended_resource_mapping_lets_whole_gpus_pass() -> None:
    resources = [node_group(DRA_LABELS), workload(GPU, **ON_H100)]
    assert dra_pool_extended_resource_violations(resources, extended_resource=True) == []


def affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    selector_terms = [{"matchExpressions": expressions} for expressions in terms]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": selector_terms}}}


def test_required_affinity_confining_to_dra_pools_is_flagged() -> None:
    pools = [{"key": "gpu-components/pool", "operator": "In", "values": ["h100"]}]
    access = [{"key": "gpu-components/gpu-access", "operator": "In", "values": ["dra"]}]
    app = workload(GPU, affinity=affinity(pools, access))
    how = "required node affinity gpu-components/pool In [h100] (DRA pools) or gpu-components/gpu-access In [dra]"
    assert dra_pool_extended_resource_violations([node_group(DRA_LABELS), app]) == [
        ("urn:app", extended_message("nvidia.com/gpu", how, GPU_MAPPING))
    ]


def test_required_affinity_on_the_access_label_existing_is_flagged() -> None:
    """Only DRA pools' nodes carry gpu-components/gpu-access, so Exists confines a Job to them (trial finding 10)."""
    exists = [{"key": "gpu-components/gpu-access", "operator": "Exists"}]
    container = {"name": "train", "image": "registry.example/train:1", "resources": GPU}
    pod = {"containers": [container], "restartPolicy": "Never", "affinity": affinity(exists)}
    job: StackResource = ("urn:job", "kubernetes:batch/v1:Job", {"spec": {"template": {"spec": pod}}})
    how = "required node affinity gpu-components/gpu-access Exists (only DRA pools' nodes carry it)"
    assert dra_pool_extended_resource_violations([node_group(DRA_LABELS), job]) == [
        ("urn:job", extended_message("nvidia.com/gpu", how, GPU_MAPPING))
    ]


@pytest.mark.parametrize(
    "pod",
    [
        {"nodeSelector": {"gpu-components/pool": "plugin"}},  # a device-plugin pool
        {},  # no selection: the scheduler finds the device-plugin pools' nodes
        {"affinity": affinity([{"key": "gpu-components/pool", "operator": "In", "values": ["h100", "plugin"]}])},
        {
            "affinity": affinity(
                [{"key": "gpu-components/pool", "operator": "In", "values": ["h100"]}],
                [{"key": "gpu-components/pool", "operator": "In", "values": ["plugin"]}],
            )
        },
        {"affinity": affinity([{"key": "gpu-components/gpu-access", "operator": "NotIn", "values": ["dra"]}])},
        {"affinity": affinity([{"key": "gpu-components/gpu-access", "operator": "DoesNotExist"}])},
        {
            "affinity": affinity(
                [{"key": "gpu-components/gpu-access", "operator": "Exists"}],
                [{"key": "gpu-components/pool", "operator": "In", "values": ["plugin"]}],
            )
        },
    ],
)
def test_workloads_that_may_land_on_device_plugin_pools_pass(pod: dict[str, Any]) -> None:
    resources = [node_group(DRA_LABELS), node_group({"gpu-components/pool": "plugin"}), workload(GPU, **pod)]
    assert dra_pool_extended_resource_violations(resources) == []


def test_claims_and_cpu_workloads_on_dra_pools_pass() -> None:
    claims = {"claims": [{"name": "gpu"}], "limits": {"cpu": "1"}}
    assert dra_pool_extended_resource_violations([node_group(DRA_LABELS), workload(claims, **ON_H100)]) == []


def test_a_pool_named_like_a_dra_pool_without_the_access_label_is_not_one() -> None:
    assert (
        dra_pool_extended_resource_violations([node_group({"gpu-components/pool": "h100"}), workload(GPU, **ON_H100)])
        == []
    )


# ---------------------------------------------------------------------------------------------------------------
# gpu-dra-alpha-claim-config
# ---------------------------------------------------------------------------------------------------------------


def driver(
    gates: dict[str, Any] | None = None,
    chart: str = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
) -> StackResource:
    values = {"featureGates": gates} if gates is not None else {}
    return ("urn:driver", RELEASE, {"chart": chart, "version": "0.4.1", "values": values})


def sharing_config(sharing: dict[str, Any], kind: str = "GpuConfig") -> dict[str, Any]:
    parameters = {"apiVersion": "resource.nvidia.com/v1beta1", "kind": kind, "sharing": sharing}
    return {"requests": ["gpu"], "opaque": {"driver": "gpu.nvidia.com", "parameters": parameters}}


def template(*configs: dict[str, Any]) -> StackResource:
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}
    devices = {"requests": [request], "config": list(configs)}
    return ("urn:rct", TEMPLATE, {"metadata": {"name": "shared"}, "spec": {"spec": {"devices": devices}}})


def gate_message(where: str, kind: str, what: str, gate: str) -> str:
    return (
        f"{where}: {kind} sets {what}, which NVIDIA's DRA driver allows only with its alpha feature gate {gate} (off "
        "by default), and the stack's DRA driver release does not turn it on, so the driver refuses the claim; "
        f"enable the gate (dra.feature_gates: [{gate}], chart value featureGates.{gate}: true) or drop the setting "
        f"[source: {SOURCE_DRA_SHARING_GATES}]"
    )


TIME_SLICING = {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}


def test_time_slicing_claim_template_without_the_gate_is_flagged_per_setting() -> None:
    where = "spec.spec.devices.config[0].opaque.parameters"
    assert dra_alpha_claim_config_violations([driver(), template(sharing_config(TIME_SLICING))]) == [
        ("urn:rct", gate_message(where, "GpuConfig", "sharing.strategy: TimeSlicing", "TimeSlicingSettings")),
        ("urn:rct", gate_message(where, "GpuConfig", "sharing.timeSlicingConfig", "TimeSlicingSettings")),
    ]


def test_mps_claim_on_a_mig_device_is_flagged_when_only_time_slicing_is_enabled() -> None:
    devices = {"config": [sharing_config({"strategy": "MPS"}, kind="MigDeviceConfig")]}
    claim = ("urn:rc", CLAIM, {"spec": {"devices": devices}})
    violations = dra_alpha_claim_config_violations([driver({"TimeSlicingSettings": True, "MPSSupport": False}), claim])
    where = "spec.devices.config[0].opaque.parameters"
    assert violations == [("urn:rc", gate_message(where, "MigDeviceConfig", "sharing.strategy: MPS", "MPSSupport"))]


def test_claims_pass_where_the_driver_enables_the_gates() -> None:
    gates = {"TimeSlicingSettings": True, "MPSSupport": True}
    mps = sharing_config({"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 50}})
    assert dra_alpha_claim_config_violations([driver(gates), template(sharing_config(TIME_SLICING), mps)]) == []


# gpu-dra-unsatisfiable-claim


def test_claims_no_pool_could_satisfy_are_flagged_by_the_pack() -> None:
    both = template(sharing_config({"strategy": "TimeSlicing"}), sharing_config({"strategy": "MPS"}))
    replicas = template(sharing_config({"strategy": "TimeSlicing", "timeSlicingConfig": {"replicas": 2}}))
    selector = "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
    request = {
        "name": "gpu",
        "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": selector}}]},
    }
    profile: StackResource = ("urn:rc", CLAIM, {"spec": {"devices": {"requests": [request]}}})
    source = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1"
    assert dra_unsatisfiable_claim_violations([driver(), both, replicas, profile]) == [
        (
            "urn:rct",
            "spec.spec.devices.config: request gpu is given two sharing strategies; a device of NVIDIA's DRA driver "
            "has one sharing with one strategy (got {'MPS': 'config[1]', 'TimeSlicing': 'config[0]'}); valid: one "
            f"of TimeSlicing, MPS per request [source: {source}/api/nvidia.com/resource/v1beta1/sharing.go]",
        ),
        (
            "urn:rct",
            "spec.spec.devices.config[0].opaque.parameters.sharing.timeSlicingConfig.replicas: not a field of "
            "NVIDIA's DRA driver (replicas is the device plugin's time-slicing); a DRA claim shares a GPU among the "
            "pods that use the claim, and time-slicing sets only interval (got 2); valid: timeSlicingConfig.interval: "
            f"Default, Short, Medium, Long [source: {source}/api/nvidia.com/resource/v1beta1/sharing.go]",
        ),
        (
            "urn:rc",
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: selects on the MIG attribute profile, "
            "which no device of DeviceClass gpu.nvidia.com (a whole GPU) publishes, so the request could never be "
            f'allocated (got "{selector}"); valid: DeviceClass mig.nvidia.com for a MIG profile, or a whole-GPU '
            f"attribute [source: {source}/cmd/gpu-kubelet-plugin/deviceinfo.go; "
            f"{source}/cmd/gpu-kubelet-plugin/mig.go]",
        ),
    ]
    assert dra_unsatisfiable_claim_violations([template(sharing_config(TIME_SLICING))]) == []


def test_a_mig_profile_claim_passes_beside_a_dynamic_mig_driver_and_a_whole_gpu_profile_selector_does_not() -> None:
    """The claim helpers' rule with DynamicMIG: a mig.nvidia.com request for a profile is claimable on a pool of whole
    GPUs (the driver makes the MIG device); a gpu.nvidia.com request never sees a profile attribute."""
    selector = [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"}}]
    mig = {"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com", "selectors": selector}}
    whole = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": selector}}
    dynamic = driver({"DynamicMIG": True})
    assert (
        dra_unsatisfiable_claim_violations([dynamic, ("urn:m", CLAIM, {"spec": {"devices": {"requests": [mig]}}})])
        == []
    )
    whole_claim: StackResource = ("urn:w", CLAIM, {"spec": {"devices": {"requests": [whole]}}})
    assert [urn for urn, _ in dra_unsatisfiable_claim_violations([dynamic, whole_claim])] == ["urn:w"]


def test_hand_written_selectors_are_checked_one_violation_per_bad_selector() -> None:
    selectors = [
        {"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}},
        {"cel": {"expression": "device.attributes['gpu.nvidia.com'].parentUuid == 'GPU-1' &&"}},
        {"cel": {"expression": "device.capacity['gpu.nvidia.com'].multiprocesors > 10"}},
    ]
    request = {"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com", "selectors": selectors}}
    claim: StackResource = ("urn:rc", CLAIM, {"spec": {"devices": {"requests": [request]}}})
    at = "spec.devices.requests[0].exactly.selectors"
    source = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1"
    assert dra_unsatisfiable_claim_violations([claim]) == [
        (
            "urn:rc",
            f"{at}[1].cel.expression: not valid CEL: Unexpected token Token('$END', '') at line 1, column 59. (got "
            "\"device.attributes['gpu.nvidia.com'].parentUuid == 'GPU-1' &&\"); valid: a CEL expression over "
            "device.driver, device.attributes and device.capacity [source: "
            "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-v1/; "
            "https://pypi.org/project/cel-python/]",
        ),
        (
            "urn:rc",
            f"{at}[2].cel.expression: device.capacity['gpu.nvidia.com'].multiprocesors: NVIDIA's DRA driver publishes "
            "no capacity 'multiprocesors' for DeviceClass mig.nvidia.com (did you mean 'multiprocessors'?), so the "
            "selector never matches (got \"device.capacity['gpu.nvidia.com'].multiprocesors > 10\"); valid: "
            "copyEngines, decoders, encoders, jpegEngines, memory, memorySlice<N>, multiprocessors, ofaEngines "
            f"[source: {source}/cmd/gpu-kubelet-plugin/deviceinfo.go; {source}/cmd/gpu-kubelet-plugin/mig.go; "
            f"{source}/cmd/gpu-kubelet-plugin/partitions.go; "
            f"{source}/vendor/k8s.io/dynamic-resource-allocation/deviceattribute/attribute.go]",
        ),
    ]


def test_the_gpu_operators_gpu_cluster_gates_count() -> None:
    values = {"gpuCluster": {"deployCR": True}, "draDriver": {"featureGates": {"TimeSlicingSettings": True}}}
    operator: StackResource = ("urn:op", RELEASE, {"chart": "gpu-operator", "version": "v26.7.0", "values": values})
    assert dra_driver_gates([operator]) == {"urn:op": frozenset({"TimeSlicingSettings"})}
    assert dra_alpha_claim_config_violations([operator, template(sharing_config(TIME_SLICING))]) == []
    without_cr: StackResource = (
        "urn:op",
        RELEASE,
        {"chart": "gpu-operator", "values": {"draDriver": values["draDriver"]}},
    )
    assert dra_driver_gates([without_cr]) is None


@pytest.mark.parametrize(
    "config",
    [
        sharing_config({"strategy": "TimeSlicing"}) | {"opaque": {"driver": "other.example.com", "parameters": {}}},
        {
            "requests": ["gpu"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "VfioDeviceConfig"},
            },
        },
        sharing_config({}),
    ],
)
def test_configs_without_alpha_sharing_pass(config: dict[str, Any]) -> None:
    assert dra_alpha_claim_config_violations([driver(), template(config)]) == []


def test_a_stack_without_a_dra_driver_release_is_not_judged() -> None:
    assert dra_alpha_claim_config_violations([template(sharing_config(TIME_SLICING))]) == []


# ---------------------------------------------------------------------------------------------------------------
# The pack runs both as stack policies, with the config property
# ---------------------------------------------------------------------------------------------------------------


def analyze_stack(
    resources: list[StackResource], config: dict[str, dict[str, Any]] | None = None
) -> list[tuple[str, str, str]]:
    servicer = _PolicyAnalyzerServicer("gpu-components", "0.0.1", list(policies()), EnforcementLevel.ADVISORY)
    if config:
        configure = proto.ConfigureAnalyzerRequest()
        for name, properties in config.items():
            configure.policyConfig[name].enforcementLevel = proto.MANDATORY
            configure.policyConfig[name].properties.update(properties)
        servicer.Configure(configure, None)
    request = proto.AnalyzeStackRequest()
    for urn, resource_type, props in resources:
        properties = struct_pb2.Struct()
        json_format.ParseDict(props, properties)
        request.resources.add(type=resource_type, urn=urn, name=urn, properties=properties)
    response = servicer.AnalyzeStack(request, None)
    return [(d.policyName, d.urn, d.message) for d in response.diagnostics]


def test_the_pack_reports_both_dra_rules_on_the_resource_at_fault() -> None:
    resources = [
        node_group(DRA_LABELS),
        workload(GPU, **ON_H100),
        driver(),
        template(sharing_config({"strategy": "MPS"})),
    ]
    reported = analyze_stack(resources)
    assert [(name, urn) for name, urn, _ in reported] == [
        ("gpu-dra-pool-extended-resource", "urn:app"),
        ("gpu-dra-alpha-claim-config", "urn:rct"),
    ]
    assert reported[0][2].endswith(
        extended_message("nvidia.com/gpu", "nodeSelector gpu-components/pool: h100 (a DRA pool)", GPU_MAPPING)
    )
    config = {"gpu-dra-pool-extended-resource": {"draExtendedResource": True}}
    assert [name for name, _, _ in analyze_stack(resources, config)] == ["gpu-dra-alpha-claim-config"]


def test_the_dra_driver_chart_must_pin_its_version() -> None:
    props = {"chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"}
    (message,) = chart_version_violations(RELEASE, props)
    assert message.startswith("version: chart dra-driver-nvidia-gpu has no version; ")
    assert chart_version_violations(RELEASE, {**props, "version": "0.4.1"}) == []


def test_the_pack_reports_unsatisfiable_claims_through_the_engines_proxies() -> None:
    """pulumi-policy hands a stack policy each resource's props as read-only proxies (Sequences and Mappings, not
    lists and dicts): the claim rule reads them as it reads plain values."""
    selector = "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
    request = {
        "name": "gpu",
        "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": selector}}]},
    }
    claim: StackResource = ("urn:rc", CLAIM, {"spec": {"devices": {"requests": [request]}}})
    both = template(sharing_config({"strategy": "TimeSlicing"}), sharing_config({"strategy": "MPS"}))
    reported = [
        (urn, message.split("\n")[-1].split(" (got ")[0])
        for name, urn, message in analyze_stack([claim, both])
        if name == "gpu-dra-unsatisfiable-claim"
    ]
    assert reported == [
        (
            "urn:rc",
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: selects on the MIG attribute profile, "
            "which no device of DeviceClass gpu.nvidia.com (a whole GPU) publishes, so the request could never be "
            "allocated",
        ),
        (
            "urn:rct",
            "spec.spec.devices.config: request gpu is given two sharing strategies; a device of NVIDIA's DRA driver "
            "has one sharing with one strategy",
        ),
    ]
    proxied = [(urn, kind, unknown_checking_proxy(secrets_preserving_proxy(props))) for urn, kind, props in [claim]]
    assert isinstance(proxied[0][2], Mapping) and not isinstance(proxied[0][2], dict)
    assert dra_unsatisfiable_claim_violations(proxied) == dra_unsatisfiable_claim_violations([claim])
    assert len(dra_unsatisfiable_claim_violations(proxied)) == 1


@pytest.mark.parametrize(
    "expression",
    [
        "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'",
        "device.attributes['gpu.nvidia.com']['profile'] == '3g.40gb'",
        'device.attributes["gpu.nvidia.com"].profile == "3g.40gb"',
        "device.attributes['gpu.nvidia.com'][\"profile\"].startsWith('3g')",
    ],
)
def test_a_mig_profile_selector_on_a_whole_gpu_request_is_flagged_in_any_spelling(expression: str) -> None:
    selectors = [{"cel": {"expression": expression}}]
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": selectors}}
    claim: StackResource = ("urn:rc", CLAIM, {"spec": {"devices": {"requests": [request]}}})
    [(_, message)] = dra_unsatisfiable_claim_violations([claim])
    assert message.startswith(
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: selects on the MIG attribute profile, which no "
        "device of DeviceClass gpu.nvidia.com (a whole GPU) publishes, so the request could never be allocated (got "
    )


def test_a_mig_profile_selector_in_a_first_available_subrequest_is_flagged() -> None:
    selector = "device.attributes['gpu.nvidia.com']['profile'] == '3g.40gb'"
    subrequests = [
        {"name": "mig", "deviceClassName": "mig.nvidia.com", "selectors": [{"cel": {"expression": selector}}]},
        {"name": "whole", "deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": selector}}]},
        {"name": "typo", "deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": "device.x"}}]},
    ]
    request = {"name": "gpu", "firstAvailable": subrequests}
    claim: StackResource = ("urn:rc", CLAIM, {"spec": {"devices": {"requests": [request]}}})
    messages = [message.split(" (got ")[0] for _, message in dra_unsatisfiable_claim_violations([claim])]
    assert messages == [
        "spec.devices.requests[0].firstAvailable[1].selectors[0].cel.expression: selects on the MIG attribute "
        "profile, which no device of DeviceClass gpu.nvidia.com (a whole GPU) publishes, so the subrequest could "
        "never be allocated",
        "spec.devices.requests[0].firstAvailable[2].selectors[0].cel.expression: device.x: a selector's device has "
        "no field 'x'",
    ]
