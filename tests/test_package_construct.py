"""Every component constructed as a TypeScript, Go or YAML program has the engine construct it: through the provider's
``Construct``, from property values with camelCase names (numbers as floats, as on the wire). Under the plan's mocks
it registers exactly what the Python path registers, and bad input reaches the caller as Pulumi's input-properties
error with the consumer's camelCase paths."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from typing import Any, cast

import pulumi
import pytest
from google.protobuf import struct_pb2
from pulumi.provider.server import ProviderServicer
from pulumi.runtime import proto, rpc
from pulumi.runtime.proto import errors_pb2, status_pb2

from gpu_components.aws import EksGpuNodeGroup
from gpu_components.aws.provisioned import EksKarpenterGpuNodePool
from gpu_components.azure import AksGpuNodePool
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.package import GpuComponentsProvider
from gpu_components.plan import Plan
from tests.helpers import plan_of

ROLE = "arn:aws:iam::123456789012:role/nodes"


@functools.cache
def provider() -> GpuComponentsProvider:
    return GpuComponentsProvider()


def wire(inputs: dict[str, Any]) -> struct_pb2.Struct:
    """``inputs`` as the engine sends them: a protobuf Struct (every number a float)."""
    struct = struct_pb2.Struct()
    struct.update(inputs)
    return struct


def construct(component: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Construct ``component`` through the provider, as the engine does for a remote component; the state it
    returns (the component's outputs, by schema name)."""
    values = rpc.deserialize_properties(wire(inputs), keep_unknowns=True)
    result = provider().construct(name, f"gpu-components:index:{component}", values)
    return dict(result.state)


def both_paths(python: Callable[[], object], component: str, name: str, inputs: dict[str, Any]) -> tuple[Plan, Plan]:
    return plan_of(python, preview=False), plan_of(lambda: construct(component, name, inputs), preview=False)


SHARED = {"name": "a10g-shared", "instance_type": "g5.2xlarge", "min_size": 0, "max_size": 6, "spot": True}
SHARED_INPUTS = {"name": "a10g-shared", "instanceType": "g5.2xlarge", "minSize": 0, "maxSize": 6, "spot": True}
TIME_SLICED = {**SHARED, "labels": {"workload": "inference"}, "time_slicing": {"replicas": 4, "trusted": True}}
TIME_SLICED_INPUTS = {
    **SHARED_INPUTS,
    "labels": {"workload": "inference"},
    "timeSlicing": {"replicas": 4, "trusted": True},
}

BOTTLEROCKET = "BOTTLEROCKET_x86_64_NVIDIA"
MIG_INPUTS = {"name": "a100-mig", "instanceType": "p4d.24xlarge", "maxSize": 2, "mig": {"profile": "1g.5gb"}}


def test_gpu_cluster_on_aws_registers_what_the_python_path_registers() -> None:
    mig = {"name": "a100-mig", "instance_type": "p4d.24xlarge", "max_size": 2, "mig": {"profile": "1g.5gb"}}
    python, constructed = both_paths(
        lambda: GpuCluster(
            "gpu-demo-gpu",
            {
                "cloud": "aws",
                "pools": [TIME_SLICED, {**mig, "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}}],
                "aws": {"cluster_name": "gpu-demo", "subnet_ids": ["subnet-a", "subnet-b"], "node_role_arn": ROLE},
            },
        ),
        "GpuCluster",
        "gpu-demo-gpu",
        {
            "cloud": "aws",
            "pools": [
                TIME_SLICED_INPUTS,
                {
                    "name": "a100-mig",
                    "instanceType": "p4d.24xlarge",
                    "maxSize": 2,
                    "mig": {"profile": "1g.5gb"},
                    "aws": {"amiType": BOTTLEROCKET},
                },
            ],
            "aws": {"clusterName": "gpu-demo", "subnetIds": ["subnet-a", "subnet-b"], "nodeRoleArn": ROLE},
        },
    )
    assert constructed.resources == python.resources
    assert len(python.resources) > 10  # two node groups, their launch template and tags, the device plugin


def test_gpu_cluster_under_the_gpu_operator_keeps_helm_value_keys_as_written() -> None:
    helm = {"dcgmExporter": {"config": {"name": "custom-metrics"}}, "node_feature_discovery": {"enabled": True}}
    python, constructed = both_paths(
        lambda: GpuCluster(
            "gpus",
            {
                "cloud": "azure",
                "pools": [{"name": "a100", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 2}],
                "azure": {"resource_group_name": "rg", "cluster_name": "aks"},
                "gpu_stack": "gpu-operator",
                "gpu_operator": {"dcgm_exporter": True, "helm_values": helm},
            },
        ),
        "GpuCluster",
        "gpus",
        {
            "cloud": "azure",
            "pools": [{"name": "a100", "instanceType": "Standard_NC24ads_A100_v4", "maxSize": 2}],
            "azure": {"resourceGroupName": "rg", "clusterName": "aks"},
            "gpuStack": "gpu-operator",
            "gpuOperator": {"dcgmExporter": True, "helmValues": helm},
        },
    )
    assert constructed.resources == python.resources


def test_eks_node_group_registers_what_the_python_path_registers() -> None:
    extra = {"update_config": {"max_unavailable": 1}}
    python, constructed = both_paths(
        lambda: EksGpuNodeGroup(
            "gpu",
            {
                "pool": TIME_SLICED,
                "cluster_name": "demo",
                "subnet_ids": ["subnet-a"],
                "tags": {"team": "ml"},
                "node_group_args": extra,
            },
        ),
        "EksGpuNodeGroup",
        "gpu",
        {
            "pool": TIME_SLICED_INPUTS,
            "clusterName": "demo",
            "subnetIds": ["subnet-a"],
            "tags": {"team": "ml"},
            "nodeGroupArgs": extra,
        },
    )
    assert constructed.resources == python.resources


def test_a_karpenter_pools_capacity_types_arrive_as_the_python_path_gives_them() -> None:
    """A list of enum values (``capacityTypes``): the Pulumi SDK maps each item as an object (``"spot"`` became
    ``{}``, refused as not an allowed value); the provider passes the values on as the enum's members."""
    provisioning = {"provisioner": "karpenter", "max_gpus": 8, "capacity_types": ["spot", "on-demand"]}
    python, constructed = both_paths(
        lambda: EksKarpenterGpuNodePool(
            "l40s",
            {
                "pool": {"name": "l40s", "instance_type": "g6e.xlarge", "provisioning": provisioning},
                "cluster_name": "demo",
                "subnet_ids": ["subnet-a"],
                "node_role_arn": ROLE,
            },
        ),
        "EksKarpenterGpuNodePool",
        "l40s",
        {
            "pool": {
                "name": "l40s",
                "instanceType": "g6e.xlarge",
                "provisioning": {"provisioner": "karpenter", "maxGpus": 8, "capacityTypes": ["spot", "on-demand"]},
            },
            "clusterName": "demo",
            "subnetIds": ["subnet-a"],
            "nodeRoleArn": ROLE,
        },
    )
    assert constructed.resources == python.resources
    [node_pool] = [r for r in python.resources if r.inputs.get("kind") == "NodePool"]
    assert {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]} in node_pool.inputs[
        "spec"
    ]["template"]["spec"]["requirements"]


def test_a_capacity_type_outside_the_enum_lists_the_allowed_values() -> None:
    pool = {"name": "l40s", "instanceType": "g6e.xlarge", "provisioning": {"provisioner": "karpenter", "maxGpus": 8}}
    pool["provisioning"]["capacityTypes"] = ["spot", "Spot"]  # type: ignore[index]
    error = construct_error("EksKarpenterGpuNodePool", {"pool": pool, "clusterName": "demo", "subnetIds": ["s"]})
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("pool.provisioning.capacityTypes[1]", "Spot", "'on-demand', 'spot' or 'reserved'")
    ]


def test_aks_node_pool_registers_what_the_python_path_registers() -> None:
    pool = {"name": "t4", "instance_type": "Standard_NC4as_T4_v3", "max_size": 3, "mps": {"replicas": 4}}
    python, constructed = both_paths(
        lambda: AksGpuNodePool(
            "gpu", {"pool": pool, "resource_group_name": "rg", "cluster_name": "aks", "gpu_driver": "aks"}
        ),
        "AksGpuNodePool",
        "gpu",
        {
            "pool": {"name": "t4", "instanceType": "Standard_NC4as_T4_v3", "maxSize": 3, "mps": {"replicas": 4}},
            "resourceGroupName": "rg",
            "clusterName": "aks",
            "gpuDriver": "aks",
        },
    )
    assert constructed.resources == python.resources


def test_gke_node_pool_registers_what_the_python_path_registers() -> None:
    pool = {"name": "a100", "instance_type": "a2-highgpu-1g", "max_size": 2, "mig": {"profile": "1g.5gb"}}
    python, constructed = both_paths(
        lambda: GkeGpuNodePool("gpu", {"pool": pool, "cluster": "gke", "location": "us-central1", "project": "proj"}),
        "GkeGpuNodePool",
        "gpu",
        {
            "pool": {"name": "a100", "instanceType": "a2-highgpu-1g", "maxSize": 2, "mig": {"profile": "1g.5gb"}},
            "cluster": "gke",
            "location": "us-central1",
            "project": "proj",
        },
    )
    assert constructed.resources == python.resources


def test_gpu_cluster_on_gke_registers_what_the_python_path_registers() -> None:
    pool = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 3, "time_slicing": {"replicas": 2}}
    python, constructed = both_paths(
        lambda: GpuCluster(
            "gpus",
            {
                "cloud": "gcp",
                "pools": [pool],
                "gcp": {"cluster": "gke", "location": "us-central1", "project": "proj"},
                "gpu_stack": "gpu-operator",
            },
        ),
        "GpuCluster",
        "gpus",
        {
            "cloud": "gcp",
            "pools": [{"name": "l4", "instanceType": "g2-standard-8", "maxSize": 3, "timeSlicing": {"replicas": 2}}],
            "gcp": {"cluster": "gke", "location": "us-central1", "project": "proj"},
            "gpuStack": "gpu-operator",
        },
    )
    assert constructed.resources == python.resources


def test_the_device_plugin_from_cluster_pools_registers_what_the_python_path_does_from_components() -> None:
    """A consumer passes the pools as plain cluster pools with their ``cloud`` (it cannot pass components across the
    package boundary); the Python path passes the node-pool components: the add-on's resources are the same."""

    def python() -> None:
        group = EksGpuNodeGroup("a10g", {"pool": TIME_SLICED, "cluster_name": "demo", "subnet_ids": ["subnet-a"]})
        NvidiaDevicePlugin("dp", {"pools": [group], "namespace": "gpu", "helm_values": {"priorityClassName": "p"}})

    def consumer() -> None:
        EksGpuNodeGroup("a10g", {"pool": TIME_SLICED, "cluster_name": "demo", "subnet_ids": ["subnet-a"]})
        construct(
            "NvidiaDevicePlugin",
            "dp",
            {
                "cloud": "aws",
                "pools": [TIME_SLICED_INPUTS],
                "namespace": "gpu",
                "helmValues": {"priorityClassName": "p"},
            },
        )

    assert plan_of(consumer, preview=False).resources == plan_of(python, preview=False).resources


def test_the_gpu_operator_from_cluster_pools_registers_what_the_python_path_does_from_components() -> None:
    pool = {"name": "a100", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 2, "mig": {"profile": "3g.40gb"}}
    wiring = {"resource_group_name": "rg", "cluster_name": "aks", "gpu_stack": "gpu-operator"}

    def python() -> None:
        node_pool = AksGpuNodePool("a100", {"pool": pool, **wiring})
        NvidiaGpuOperator("op", {"pools": [node_pool], "dcgm_exporter": False})

    def consumer() -> None:
        AksGpuNodePool("a100", {"pool": pool, **wiring})
        construct(
            "NvidiaGpuOperator",
            "op",
            {
                "cloud": "azure",
                "pools": [
                    {
                        "name": "a100",
                        "instanceType": "Standard_NC24ads_A100_v4",
                        "maxSize": 2,
                        "mig": {"profile": "3g.40gb"},
                    }
                ],
                "dcgmExporter": False,
            },
        )

    assert plan_of(consumer, preview=False).resources == plan_of(python, preview=False).resources


def test_an_add_on_pool_error_is_named_in_camel_case() -> None:
    pool = {**SHARED_INPUTS, "aws": {"amiType": "BOTTLEROCKET_x86_64_NVIDIA"}}
    error = construct_error("NvidiaDevicePlugin", {"cloud": "aws", "pools": [pool]})
    assert paths(error) == ["pools[0]"]
    assert "node image's own device plugin" in error.problems[0].message


def test_a_number_the_wire_made_a_double_is_echoed_as_the_integer_written() -> None:
    # a TypeScript `name: 5` arrives as 5.0 (protobuf Struct); the error shows 5, what the program wrote
    pool = {**SHARED_INPUTS, "name": 5, "labels": {"team": 3}}
    error = construct_error("EksGpuNodeGroup", {"clusterName": "c", "subnetIds": ["s"], "pool": pool})
    assert [str(p) for p in error.problems] == [
        "pool.name: input should be a valid string (got 5); valid: a string",
        "pool.labels['team']: input should be a valid string (got 3); valid: a string",
    ]
    fraction = {**SHARED_INPUTS, "timeSlicing": {"replicas": 2.5}}  # not whole: shown as it came
    error = construct_error("EksGpuNodeGroup", {"clusterName": "c", "subnetIds": ["s"], "pool": fraction})
    assert [str(p) for p in error.problems] == [
        "pool.timeSlicing.replicas: must be a whole number (got 2.5); valid: a whole number, without quotes or a "
        "fraction (2, not 2.5, 2.0 or '2')"
    ]


def test_a_cluster_tells_a_consumer_how_to_schedule_on_each_pool() -> None:
    """``poolScheduling``: what a TypeScript or YAML program needs to put a workload on a pool (it cannot reach the
    node-pool components, which the Python workload helpers read)."""
    states: list[dict[str, Any]] = []
    inputs = {"cloud": "aws", "aws": {"clusterName": "demo", "subnetIds": ["s"]}, "pools": [TIME_SLICED_INPUTS]}
    plan = plan_of(lambda: states.append(construct("GpuCluster", "gpus", inputs)), preview=False)
    component = next(r for r in plan.resources if r.type == "gpu-components:index:GpuCluster")
    assert states[0]["poolScheduling"] == component.outputs["poolScheduling"]
    assert states[0]["poolScheduling"] == {
        "a10g-shared": {
            "nodeSelector": {"gpu-components/pool": "a10g-shared"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
            "advertisedResources": {"nvidia.com/gpu": 4},
            "draDevices": {},
            "devicePluginHost": "daemonset",
        }
    }


def test_a_node_group_constructed_returns_its_registered_outputs_as_its_state() -> None:
    """The ``ConstructResult`` state (what the consumer's outputs resolve to) has exactly the schema's outputs, the
    keys the component registers; how each value serializes is in ``tests/test_schema_types.py``."""
    states: list[dict[str, Any]] = []

    def program() -> None:
        states.append(
            construct(
                "EksGpuNodeGroup",
                "gpu",
                {"pool": MIG_INPUTS, "clusterName": "demo", "subnetIds": ["subnet-a"], "gpuStack": "gpu-operator"},
            )
        )

    plan = plan_of(program, preview=False)
    component = next(r for r in plan.resources if r.type == "gpu-components:index:EksGpuNodeGroup")
    schema_outputs = provider()._component_defs["EksGpuNodeGroup"].outputs
    assert sorted(states[0]) == sorted(component.outputs) == sorted(schema_outputs)
    assert (states[0]["poolName"], states[0]["devicePluginHost"]) == ("a100-mig", "gpu-operator")
    assert states[0]["advertisedResources"] == component.outputs["advertisedResources"] == {"nvidia.com/gpu": 56}
    assert states[0]["autoscalerNote"] == component.outputs["autoscalerNote"]


# --- errors -------------------------------------------------------------------------------------------------------


def construct_error(component: str, inputs: dict[str, Any]) -> GpuSpecError:
    errors: list[GpuSpecError] = []

    def program() -> None:
        with pytest.raises(GpuSpecError) as raised:
            construct(component, "bad", inputs)
        errors.append(raised.value)

    plan = plan_of(program)
    assert plan.resources == ()  # nothing registered, not even the component
    return errors[0]


def paths(error: GpuSpecError) -> list[str]:
    return [problem.path for problem in error.problems]


CLUSTER = {"cloud": "aws", "aws": {"clusterName": "demo", "subnetIds": ["subnet-a"]}}


def test_a_component_rule_names_the_property_by_its_camel_case_path() -> None:
    error = construct_error(
        "GpuCluster", {**CLUSTER, "pools": [{**SHARED_INPUTS, "timeSlicing": {"replicas": 1, "renameByDefault": True}}]}
    )
    assert [(p.path, p.value) for p in error.problems] == [("pools[0].timeSlicing.replicas", 1)]


def test_a_mig_profile_the_gpu_lacks_lists_the_valid_profiles_under_camel_case_paths() -> None:
    pool = {"name": "a100", "instanceType": "p4d.24xlarge", "maxSize": 1, "mig": {"profile": "1g.20gb"}}
    error = construct_error(
        "EksGpuNodeGroup",
        {"pool": pool, "clusterName": "demo", "subnetIds": ["subnet-a"], "amiType": BOTTLEROCKET},
    )
    assert paths(error) == ["pool.mig.profile"]
    assert error.problems[0].value == "1g.20gb"
    assert "1g.5gb" in (error.problems[0].valid or "")


def test_nvidias_balanced_config_on_an_aks_agent_pool_is_refused_under_its_camel_case_path() -> None:
    pool = {
        "name": "a100",
        "instanceType": "Standard_NC24ads_A100_v4",
        "maxSize": 1,
        "mig": {"config": "all-balanced", "strategy": "mixed"},
    }
    error = construct_error("AksGpuNodePool", {"pool": pool, "resourceGroupName": "rg", "clusterName": "demo"})
    assert [(p.path, p.value) for p in error.problems] == [("pool.mig.config", "all-balanced")]


def test_a_one_profile_layout_short_of_filling_each_gpu_is_refused_by_a_gke_pool() -> None:
    pool = {"name": "a100", "instanceType": "a2-highgpu-1g", "maxSize": 1, "mig": {"layout": {"1g.5gb": 6}}}
    error = construct_error("GkeGpuNodePool", {"pool": pool, "cluster": "demo", "location": "us-central1-a"})
    assert [(p.path, p.value) for p in error.problems] == [("pool.mig.layout", {"1g.5gb": 6})]


def test_a_fractional_number_for_an_integer_is_an_error_not_rounded() -> None:
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [{**SHARED_INPUTS, "maxSize": 2.5}]})
    assert [(p.path, p.value, p.message) for p in error.problems] == [
        ("pools[0].maxSize", 2.5, "must be a whole number")
    ]


def test_an_unknown_property_is_an_error_with_the_closest_name() -> None:
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [{**SHARED_INPUTS, "timeSlicng": {"replicas": 4}}]})
    assert [(p.path, p.message) for p in error.problems] == [
        ("pools[0].timeSlicng", "unknown field; did you mean 'timeSlicing'?")
    ]


def test_an_unknown_enum_value_alone_is_the_components_to_report() -> None:
    """The only raw problem a value outside its enum: the component reports it, as for a Python caller."""
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [SHARED_INPUTS], "gpuStack": "operator"})
    assert [(p.path, p.value, p.message, p.valid) for p in error.problems] == [
        ("gpuStack", "operator", "unknown GPU stack", "auto, device-plugin, gpu-operator, dra")
    ]


def test_raw_value_problems_at_every_level_come_at_once() -> None:
    pool = {**SHARED_INPUTS, "maxSize": 2.5, "timeSlicng": {"replicas": 4}, "taints": [{"key": "k", "effect": "NoRun"}]}
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [SHARED_INPUTS, pool], "gpuStack": "operator"})
    assert [(p.path, p.message) for p in error.problems] == [
        ("pools[1].timeSlicng", "unknown field; did you mean 'timeSlicing'?"),
        ("pools[1].maxSize", "must be a whole number"),
        ("pools[1].taints[0].effect", "not one of the allowed values"),
        ("gpuStack", "not one of the allowed values; did you mean 'gpu-operator'?"),
    ]


def test_a_fraction_and_a_miscased_enum_value_read_as_on_the_python_path() -> None:
    pool = {**SHARED_INPUTS, "maxSize": 2.5, "taints": [{"key": "k", "effect": "noSchedule"}]}
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [pool]})
    assert [str(p) for p in error.problems] == [
        "pools[0].maxSize: must be a whole number (got 2.5); valid: a whole number, without quotes or a fraction (2, "
        "not 2.5, 2.0 or '2')",
        "pools[0].taints[0].effect: not one of the allowed values; did you mean 'NoSchedule'? (got 'noSchedule'); "
        "valid: 'NoSchedule', 'PreferNoSchedule' or 'NoExecute'",
    ]


def test_a_missing_required_property_is_named_in_camel_case() -> None:
    error = construct_error("EksGpuNodeGroup", {"pool": SHARED_INPUTS, "subnetIds": ["subnet-a"]})
    assert [(p.path, p.message) for p in error.problems] == [("clusterName", "required property is missing")]


def test_a_value_of_the_wrong_shape_is_named_with_the_value_as_written() -> None:
    error = construct_error(
        "GpuCluster", {"cloud": "aws", "aws": "demo", "pools": [None, {**SHARED_INPUTS, "mig": "1g.5gb"}, "a10g"]}
    )
    assert sorted((p.path, p.value, p.message) for p in error.problems) == [
        ("aws", "demo", "must be an object"),
        ("pools[0]", None, "a list item must not be null"),
        ("pools[1].mig", "1g.5gb", "must be an object"),
        ("pools[2]", "a10g", "must be an object"),
    ]
    assert (
        next(p.valid for p in error.problems if p.path == "aws")
        == "{clusterName, karpenterController, nodeRoleArn, subnetIds}"
    )


def test_a_secret_or_unknown_value_in_a_plain_property_is_refused() -> None:
    """GPU settings are plain in the schema (the components render them before anything exists); wiring values may
    come from other resources."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        pool = {**SHARED_INPUTS, "labels": {"workload": pulumi.Output.secret("team-a")}}
        inputs = {"cloud": "aws", "aws": {"clusterName": pulumi.Output.from_input("demo"), "subnetIds": ["s"]}}
        with pytest.raises(GpuSpecError) as raised:
            provider().construct("bad", "gpu-components:index:GpuCluster", {**inputs, "pools": [pool]})
        errors.append(raised.value)

    plan_of(program)
    assert [(p.path, p.value) for p in errors[0].problems] == [("pools[0].labels['workload']", "[secret or unknown]")]
    assert "must be a plain value known before deployment" in errors[0].problems[0].message


def test_a_mig_layouts_counts_arrive_as_integers() -> None:
    layout = {"3g.20gb": 1, "1g.5gb": 2}
    pool = {
        "name": "a100",
        "instance_type": "p4d.24xlarge",
        "max_size": 2,
        "mig": {"layout": layout, "strategy": "mixed"},
    }
    python, constructed = both_paths(
        lambda: EksGpuNodeGroup(
            "gpu", {"pool": pool, "cluster_name": "demo", "subnet_ids": ["s"], "gpu_stack": "gpu-operator"}
        ),
        "EksGpuNodeGroup",
        "gpu",
        {
            "pool": {
                "name": "a100",
                "instanceType": "p4d.24xlarge",
                "maxSize": 2,
                "mig": {"layout": layout, "strategy": "mixed"},
            },
            "clusterName": "demo",
            "subnetIds": ["s"],
            "gpuStack": "gpu-operator",
        },
    )
    assert constructed.resources == python.resources
    error = construct_error(
        "EksGpuNodeGroup",
        {
            "pool": {"name": "a100", "instanceType": "p4d.24xlarge", "maxSize": 2, "mig": {"layout": {"3g.20gb": 1.5}}},
            "clusterName": "demo",
            "subnetIds": ["s"],
        },
    )
    assert [(p.path, p.message) for p in error.problems] == [("pool.mig.layout['3g.20gb']", "must be a whole number")]


def test_an_unknown_component_type_names_the_packages_components() -> None:
    errors: list[GpuSpecError] = []

    def program() -> None:
        with pytest.raises(GpuSpecError) as raised:
            provider().construct("x", "gpu-components:index:GpuClustr", {})
        errors.append(raised.value)

    plan_of(program)
    (problem,) = errors[0].problems
    assert (problem.path, problem.value) == ("type", "gpu-components:index:GpuClustr")
    assert problem.message == "not a component of this package; did you mean 'gpu-components:index:GpuCluster'?"
    assert problem.valid is not None and problem.valid.startswith("gpu-components:index:GpuCluster, ")


def test_label_keys_stay_as_written_in_error_paths() -> None:
    pool = {**SHARED_INPUTS, "labels": {"nvidia.com/gpu.present": "false"}}
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [pool]})
    assert paths(error) == ["pools[0].labels['nvidia.com/gpu.present']"]


class _Aborted(Exception):
    pass


class _Context:
    """The gRPC servicer context: records the status the servicer aborts with."""

    def __init__(self) -> None:
        self.status: Any = None

    async def abort_with_status(self, status: Any) -> None:
        self.status = status
        raise _Aborted


def test_the_engine_receives_an_input_properties_error_with_camel_case_paths() -> None:
    """Through the provider's gRPC ``Construct`` (what the engine calls): status INVALID_ARGUMENT with one property
    error per problem, as the engine shows a provider's input errors."""
    request = proto.ConstructRequest(
        project="p",
        stack="s",
        type="gpu-components:index:GpuCluster",
        name="bad",
        inputs=wire({**CLUSTER, "pools": [{**SHARED_INPUTS, "timeSlicing": {"replicas": 1}}]}),
    )
    context = _Context()
    servicer = ProviderServicer(provider(), [], "")
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(servicer.Construct(request, context))
        except BaseException as error:  # the outcome is asserted below
            outcome.append(error)

    thread = threading.Thread(target=lambda: contextvars.Context().run(run))
    thread.start()
    thread.join()
    assert [type(e) for e in outcome] == [_Aborted]
    assert context.status.code.name == "INVALID_ARGUMENT"
    assert "pools[0].timeSlicing.replicas" in context.status.details
    metadata = dict(context.status.trailing_metadata)
    status = status_pb2.Status.FromString(metadata["grpc-status-details-bin"])
    details = errors_pb2.InputPropertiesError()
    status.details[0].Unpack(details)
    assert [e.property_path for e in details.errors] == ["pools[0].timeSlicing.replicas"]


def test_escape_hatches_take_outputs_and_errors_never_show_an_outputs_address() -> None:
    """SDK args and Helm values are passed on as given, so they may hold another resource's output or a secret; an
    error that echoes a value shows such an output as ``[secret or unknown]``."""
    errors: list[GpuSpecError] = []
    ok: list[object] = []

    def program() -> None:
        secret = pulumi.Output.secret("1.30")
        base = {"pool": {**SHARED_INPUTS, "maxSize": 6}, "clusterName": "demo", "subnetIds": ["s"]}
        ok.append(
            provider().construct(
                "fine", "gpu-components:index:EksGpuNodeGroup", {**base, "nodeGroupArgs": {"release_version": secret}}
            )
        )
        with pytest.raises(GpuSpecError) as raised:
            provider().construct(
                "bad", "gpu-components:index:EksGpuNodeGroup", {**base, "nodeGroupArgs": {"releaseVersion": secret}}
            )
        errors.append(raised.value)

    plan_of(program)
    assert len(ok) == 1
    (problem,) = errors[0].problems
    assert (problem.path, problem.value) == ("nodeGroupArgs.releaseVersion", "[secret or unknown]")


def test_a_mig_layout_is_echoed_in_order_of_profile_name_whatever_order_the_wire_gave() -> None:
    # the protobuf Struct the engine sends keeps no key order: the plugin puts a layout's profiles in order of name
    layout = {"2g.48gb+me.all": 1, "1g.24gb": 2}
    pool = {"name": "g7", "instanceType": "g7e.2xlarge", "maxSize": 1, "mig": {"layout": layout, "strategy": "mixed"}}
    error = construct_error("GpuCluster", {**CLUSTER, "gpuStack": "gpu-operator", "pools": [pool]})
    [problem] = [p for p in error.problems if p.path == "pools[0].mig.layout"]
    assert list(cast(dict[str, int], problem.value)) == ["1g.24gb", "2g.48gb+me.all"]


def test_cluster_wide_pool_rules_name_the_pools_and_settings_in_camel_case() -> None:
    """The AKS pool mix and the unused add-on settings, from another language."""
    nap = {
        "name": "a100",
        "instanceType": "Standard_NC24ads_A100_v4",
        "provisioning": {"provisioner": "node-auto-provisioning", "maxGpus": 4},
    }
    fixed = {"name": "t4", "instanceType": "Standard_NC8as_T4_v3", "maxSize": 2}
    azure = {"cloud": "azure", "azure": {"resourceGroupName": "rg", "clusterName": "aks"}}
    error = construct_error("GpuCluster", {**azure, "pools": [nap, fixed]})
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("pools[1]", "t4", "every pool provisioned with provisioner node-auto-provisioning, or none")
    ]
    auto_mode = {
        "name": "auto",
        "instanceType": "g6.xlarge",
        "provisioning": {"provisioner": "eks-auto-mode", "maxGpus": 4},
    }
    error = construct_error("GpuCluster", {**CLUSTER, "pools": [auto_mode], "devicePlugin": {"namespace": "gpu"}})
    assert [(p.path, p.value, p.valid) for p in error.problems] == [
        ("devicePlugin", {"namespace": "gpu"}, "no device_plugin settings, or a pool the NVIDIA device plugin serves")
    ]


def test_an_unpinned_device_plugin_chart_version_is_refused_by_its_camel_case_path() -> None:
    error = construct_error("NvidiaDevicePlugin", {"cloud": "aws", "pools": [SHARED_INPUTS], "chartVersion": "^0.20"})
    assert [(p.path, p.value) for p in error.problems] == [("chartVersion", "^0.20")]
    assert error.problems[0].message.startswith("not an exact nvidia-device-plugin chart version")


def test_helm_values_blanking_nfd_worker_tolerations_are_refused_with_the_key_as_written() -> None:
    pool = {"name": "a100", "instanceType": "Standard_NC24ads_A100_v4", "maxSize": 2}
    helm = {"node-feature-discovery": {"worker": {"tolerations": []}}}
    error = construct_error("NvidiaGpuOperator", {"cloud": "azure", "pools": [pool], "helmValues": helm})
    assert [(p.path, p.value) for p in error.problems] == [("helmValues.node-feature-discovery.worker.tolerations", [])]


def test_cloud_bounds_are_named_by_their_camel_case_paths() -> None:
    wiring = {"clusterName": "demo.gpu", "subnetIds": ["subnet-a"]}
    error = construct_error("GpuCluster", {"cloud": "aws", "aws": wiring, "pools": [SHARED_INPUTS]})
    assert [(p.path, p.value) for p in error.problems] == [("aws.clusterName", "demo.gpu")]
    pool = {"name": "t4", "instanceType": "Standard_NC4as_T4_v3", "maxSize": 1, "diskSizeGb": 20}
    error = construct_error("AksGpuNodePool", {"pool": pool, "resourceGroupName": "rg", "clusterName": "aks"})
    assert [(p.path, p.value) for p in error.problems] == [("pool.diskSizeGb", 20)]
    pool = {"name": "l4", "instanceType": "g2-standard-8", "maxSize": 1001}
    inputs = {"pool": pool, "cluster": "demo", "location": "us-central1", "nodeLocations": ["us-central1-a"]}
    error = construct_error("GkeGpuNodePool", inputs)
    assert [(p.path, p.value) for p in error.problems] == [("pool.maxSize", 1001)]
