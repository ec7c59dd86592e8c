"""The seven public components as Pulumi's schema analyzer reads them (issue 14): every property described, closed value
sets as enums, camelCase names, required fields as the TypedDicts say, outputs as registered; and enum members
behave exactly as their strings in Python."""

from __future__ import annotations

import dataclasses
import functools
import typing
from enum import Enum
from typing import Any

import pulumi
import pytest
from pulumi.provider.experimental.analyzer import (
    Analyzer,
    AnalyzeResult,
    ComponentDefinition,
    PropertyDefinition,
    TypeDefinition,
)
from pulumi.provider.experimental.util import camel_case
from pulumi.runtime.rpc import serialize_property
from typing_extensions import is_typeddict

import gpu_components
from gpu_components import enums
from gpu_components.aws import EksGpuNodeGroup, KarpenterController
from gpu_components.azure import AksGpuNodePool
from gpu_components.cluster import ClusterPoolArgs, GpuCluster
from gpu_components.enums import (
    CapacityType,
    Cloud,
    Consolidation,
    CpuArchitecture,
    GpuDriver,
    GpuStack,
    MigStrategy,
    Provisioner,
    TaintEffect,
)
from gpu_components.gcp import GkeAutopilotGpuPool, GkeComputeClassGpuPool, GkeGpuNodePool
from gpu_components.kubernetes import (
    NvidiaDevicePlugin,
    NvidiaDevicePluginArgs,
    NvidiaDraDriver,
    NvidiaDraDriverArgs,
    NvidiaGpuOperator,
    NvidiaGpuOperatorArgs,
)
from gpu_components.kubernetes.addon import GpuAddOnArgs
from gpu_components.plan import Plan
from gpu_components.shape import plain, required_keys, shape_problems
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec, Taint
from tests.helpers import WIRING, plan_and

COMPONENTS = [
    GpuCluster,
    EksGpuNodeGroup,
    KarpenterController,
    AksGpuNodePool,
    GkeGpuNodePool,
    GkeComputeClassGpuPool,
    GkeAutopilotGpuPool,
    NvidiaDevicePlugin,
    NvidiaGpuOperator,
    NvidiaDraDriver,
]

POOL_OUTPUTS = {
    "poolName",
    "labels",
    "taints",
    "tolerations",
    "nodeSelector",
    "advertisedResources",
    "draDevices",
    "devicePluginHost",
    "autoscalerNote",
}
OUTPUTS = {
    "GpuCluster": {"poolNames", "poolScheduling", "draFeatureGates"},
    "KarpenterController": {
        "nodeRoleArn",
        "nodeRoleName",
        "controllerRoleArn",
        "interruptionQueueName",
        "releaseName",
        "version",
    },
    "EksGpuNodeGroup": {"nodeGroupArn", "nodeRoleArn", "nodeGroupName", "autoscalingGroupName", *POOL_OUTPUTS},
    "AksGpuNodePool": {"agentPoolId", "agentPoolName", *POOL_OUTPUTS},
    "GkeGpuNodePool": {"nodePoolName", "nodePoolId", "serviceAccountEmail", *POOL_OUTPUTS},
    "GkeComputeClassGpuPool": {"computeClassName", *POOL_OUTPUTS},
    "GkeAutopilotGpuPool": {"nodesBy", *POOL_OUTPUTS},
    "NvidiaDevicePlugin": {"namespace", "configMapName", "releaseName"},
    "NvidiaGpuOperator": {"namespace", "devicePluginConfigMapName", "migConfigMapName", "releaseName"},
    "NvidiaDraDriver": {"namespace", "releaseName", "poolNames", "extendedResource"},
}
"""Each component's outputs, as its docstring lists them (``Outputs:``) and as it registers them."""


@functools.cache
def analyzed() -> AnalyzeResult:
    return Analyzer("gpu-components").analyze(list(COMPONENTS))


def component(name: str) -> ComponentDefinition:
    return analyzed()["component_definitions"][name]


def schema_type(name: str) -> TypeDefinition:
    return analyzed()["type_definitions"][name]


def properties() -> list[tuple[str, PropertyDefinition]]:
    """Every property of the result (inputs, outputs, object types' properties) as ``(owner.name, definition)``."""
    found: list[tuple[str, PropertyDefinition]] = []
    for name, definition in analyzed()["component_definitions"].items():
        found += [(f"{name}.inputs.{key}", prop) for key, prop in definition.inputs.items()]
        found += [(f"{name}.outputs.{key}", prop) for key, prop in definition.outputs.items()]
    for name, type_ in analyzed()["type_definitions"].items():
        found += [(f"{name}.{key}", prop) for key, prop in type_.properties.items()]
    return found


def test_the_analyzer_reads_every_component_and_every_property_has_a_description() -> None:
    assert sorted(analyzed()["component_definitions"]) == sorted(OUTPUTS)
    assert len(properties()) > 150
    assert [where for where, prop in properties() if not (prop.description or "").strip()] == []
    for name, type_ in analyzed()["type_definitions"].items():
        assert (type_.description or "").strip(), name
        assert all((member.description or "").strip() for member in type_.enum or []), name
    assert all((definition.description or "").strip() for definition in analyzed()["component_definitions"].values())


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("GpuStack", ["auto", "device-plugin", "gpu-operator", "dra"]),
        ("GpuAccess", ["device-plugin", "dra"]),
        ("TaintEffect", ["NoSchedule", "PreferNoSchedule", "NoExecute"]),
        ("MigStrategy", ["single", "mixed"]),
        ("MigConfig", ["all-balanced"]),
        ("Cloud", ["aws", "azure", "gcp"]),
        ("GpuDriver", ["aks", "none"]),
        ("CpuArchitecture", ["x86_64", "arm64"]),
        ("Provisioner", ["karpenter", "eks-auto-mode", "compute-class", "node-auto-provisioning"]),
        ("CapacityType", ["on-demand", "spot", "reserved"]),
        ("Consolidation", ["when-empty", "when-empty-or-underutilized"]),
    ],
)
def test_closed_value_sets_are_schema_enums_with_their_exact_values(name: str, values: list[str]) -> None:
    enum = schema_type(name).enum
    assert enum is not None
    assert [member.value for member in enum] == values


def test_enum_fields_refer_to_the_enums() -> None:
    ref = "#/types/gpu-components:index:{}".format
    assert component("GpuCluster").inputs["gpuStack"].ref == ref("GpuStack")
    assert component("GpuCluster").inputs["cloud"].ref == ref("Cloud")
    assert component("EksGpuNodeGroup").inputs["gpuStack"].ref == ref("GpuStack")
    assert component("AksGpuNodePool").inputs["gpuDriver"].ref == ref("GpuDriver")
    assert schema_type("AksPoolOptionsArgs").properties["gpuDriver"].ref == ref("GpuDriver")
    assert schema_type("TaintArgs").properties["effect"].ref == ref("TaintEffect")
    assert schema_type("Taint").properties["effect"].ref == ref("TaintEffect")
    assert schema_type("MigArgs").properties["strategy"].ref == ref("MigStrategy")
    assert schema_type("MigArgs").properties["config"].ref == ref("MigConfig")
    assert schema_type("GpuNodePoolArgs").properties["cpuArchitecture"].ref == ref("CpuArchitecture")
    assert schema_type("ProvisioningArgs").properties["provisioner"].ref == ref("Provisioner")
    assert schema_type("ProvisioningArgs").properties["capacityTypes"].items.ref == ref("CapacityType")
    assert schema_type("DisruptionArgs").properties["consolidation"].ref == ref("Consolidation")


def test_names_are_camel_case() -> None:
    assert "timeSlicing" in schema_type("GpuNodePoolArgs").properties
    assert "diskSizeGb" in schema_type("ClusterPoolArgs").properties
    assert "failRequestsGreaterThanOne" in schema_type("TimeSlicingArgs").properties
    assert "nodeGroupArgs" in component("EksGpuNodeGroup").inputs
    assert "nodeGroupArgs" in schema_type("EksPoolOptionsArgs").properties
    assert "agentPoolArgs" in component("AksGpuNodePool").inputs
    assert "nodePoolArgs" in component("GkeGpuNodePool").inputs
    assert schema_type("GpuNodePoolArgs").properties_mapping["timeSlicing"] == "time_slicing"


def _required(props: dict[str, PropertyDefinition]) -> list[str]:
    return sorted(key for key, prop in props.items() if not prop.optional)


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_component_inputs_are_required_as_their_args_say(name: str) -> None:
    args = typing.get_type_hints(next(c for c in COMPONENTS if c.__name__ == name).__init__)["args"]
    assert _required(component(name).inputs) == sorted(camel_case(key) for key in required_keys(args))
    assert sorted(component(name).inputs) == sorted(camel_case(key) for key in args.__annotations__)


def test_object_types_are_required_as_their_typed_dicts_say() -> None:
    checked = []
    for name, type_ in analyzed()["type_definitions"].items():
        if type_.enum or (not is_typeddict(type_.python_type) and name != "Taint"):
            continue
        expected = required_keys(type_.python_type) if name != "Taint" else ["effect", "key", "value"]
        assert _required(type_.properties) == sorted(camel_case(key) for key in expected), name
        checked.append(name)
    assert len(checked) == 22  # with DriverUpgradeSettingsArgs (issue 26)
    assert _required(schema_type("GpuNodePoolArgs").properties) == ["instanceType", "name"]
    assert _required(schema_type("ProvisioningArgs").properties) == ["provisioner"]
    assert _required(schema_type("TaintArgs").properties) == ["effect", "key"]


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_outputs_are_those_the_docstring_lists(name: str) -> None:
    outputs = component(name).outputs
    assert set(outputs) == OUTPUTS[name]
    cls = next(c for c in COMPONENTS if c.__name__ == name)
    listed = (cls.__doc__ or "").split("Outputs")[1].split("Other attributes")[0]
    assert {camel_case(word) for word in listed.replace(",", " ").split("``")[1::2]} == OUTPUTS[name]


def test_outputs_known_at_construction_are_plain_and_others_are_outputs() -> None:
    eks = component("EksGpuNodeGroup").outputs
    assert eks["taints"].items is not None
    assert eks["taints"].items.ref == "#/types/gpu-components:index:Taint"
    assert eks["advertisedResources"].additional_properties is not None
    assert (eks["autoscalerNote"].optional, eks["poolName"].optional) == (True, False)
    annotations = EksGpuNodeGroup.__annotations__
    assert typing.get_origin(annotations["node_group_arn"]) is pulumi.Output
    assert annotations["pool_name"] is str


def test_a_cluster_pool_declares_the_neutral_pools_fields_alike() -> None:
    """Pulumi's analyzer reads a field's description from the class that declares it, so ClusterPoolArgs declares
    GpuNodePoolArgs's fields itself (no inheritance); they must stay the same."""
    neutral, cluster = schema_type("GpuNodePoolArgs").properties, schema_type("ClusterPoolArgs").properties
    assert sorted(set(cluster) - set(neutral)) == ["aws", "azure", "gcp"]
    assert {key: cluster[key] for key in neutral} == neutral
    assert {key: ClusterPoolArgs.__annotations__[key] for key in GpuNodePoolArgs.__annotations__} == (
        GpuNodePoolArgs.__annotations__
    )


def _undescribed(prop: PropertyDefinition | None) -> PropertyDefinition | None:
    """``prop`` (and its items and values) without descriptions: what a property is, not what it says."""
    if prop is None:
        return None
    return dataclasses.replace(
        prop,
        description=None,
        items=_undescribed(prop.items),
        additional_properties=_undescribed(prop.additional_properties),
    )


@pytest.mark.parametrize("args", [NvidiaDevicePluginArgs, NvidiaGpuOperatorArgs, NvidiaDraDriverArgs])
def test_each_add_on_declares_the_add_on_fields_alike(args: type) -> None:
    """Each add-on declares the fields every add-on takes (GpuAddOnArgs) itself, for its own descriptions: the
    same types in Python and the same schema properties, plain pools being cluster pools (the type a GpuCluster's
    pools have) and an optional cloud the Cloud enum."""
    assert {key: args.__annotations__[key] for key in GpuAddOnArgs.__annotations__} == GpuAddOnArgs.__annotations__
    inputs = component(args.__name__.removesuffix("Args")).inputs
    shared = {camel_case(key) for key in GpuAddOnArgs.__annotations__}
    assert shared == {"pools", "cloud", "namespace", "chartVersion", "helmValues"}
    pools, cloud = _undescribed(inputs["pools"]), _undescribed(inputs["cloud"])
    assert pools == _undescribed(component("GpuCluster").inputs["pools"])
    assert pools is not None and pools.items is not None
    assert (pools.optional, pools.items.ref) == (False, "#/types/gpu-components:index:ClusterPoolArgs")
    assert cloud is not None and (cloud.optional, cloud.ref) == (True, "#/types/gpu-components:index:Cloud")
    assert {key: _undescribed(inputs[key]) for key in shared} == {
        key: _undescribed(component("NvidiaDevicePlugin").inputs[key]) for key in shared
    }


def test_the_enum_aliases_hold_the_enums_values_and_public_names_are_the_enums() -> None:
    aliases = {
        Cloud: enums.CloudName,
        CpuArchitecture: enums.CpuArchitectureName,
        TaintEffect: enums.TaintEffectName,
        MigStrategy: enums.MigStrategyName,
        enums.MigConfig: enums.MigConfigName,
        GpuStack: enums.GpuStackName,
        enums.GpuAccess: enums.GpuAccessName,
        enums.DraInstaller: enums.DraInstallerName,
        enums.DraFeatureGate: enums.DraFeatureGateName,
        GpuDriver: enums.GpuDriverName,
        Provisioner: enums.ProvisionerName,
        CapacityType: enums.CapacityTypeName,
        Consolidation: enums.ConsolidationName,
        enums.RequirementOperator: enums.RequirementOperatorName,
        enums.DisruptionReason: enums.DisruptionReasonName,
    }
    assert set(aliases) == set(enums.ENUMS)
    for enum, alias in aliases.items():
        assert typing.get_args(alias) == tuple(member.value for member in enum)
    assert gpu_components.GpuStack is GpuStack
    assert str(GpuStack.GPU_OPERATOR) == f"{GpuStack.GPU_OPERATOR}" == "gpu-operator"


# ---------------------------------------------------------------------------------------------------------------
# Registered outputs are the attributes, as Pulumi serializes them
# ---------------------------------------------------------------------------------------------------------------

POOL = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}}
DRA_POOL = {key: value for key, value in POOL.items() if key != "time_slicing"}  # under DRA, sharing is the claim's
AKS_POOL = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True}
GKE_POOL = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 2}
GKE_PROVISIONED = {
    "name": "l4",
    "instance_type": "g2-standard-8",
    "provisioning": {"provisioner": "compute-class", "max_gpus": 2},
}


def _builders() -> dict[str, Any]:
    def eks() -> Any:
        return EksGpuNodeGroup("np", {"pool": POOL, **WIRING["aws"]})  # type: ignore[typeddict-item]

    def aks() -> Any:
        return AksGpuNodePool("np", {"pool": AKS_POOL, **WIRING["azure"]})  # type: ignore[typeddict-item]

    def gke() -> Any:
        return GkeGpuNodePool("np", {"pool": GKE_POOL, **WIRING["gcp"]})  # type: ignore[typeddict-item]

    return {
        "GpuCluster": lambda: GpuCluster("gc", {"cloud": "aws", "aws": WIRING["aws"], "pools": [POOL]}),  # type: ignore[typeddict-item]
        "KarpenterController": lambda: KarpenterController("kc", {"cluster_name": "prod"}),
        "EksGpuNodeGroup": eks,
        "AksGpuNodePool": aks,
        "GkeGpuNodePool": gke,
        "GkeComputeClassGpuPool": lambda: GkeComputeClassGpuPool("cc", {"pool": GKE_PROVISIONED}),  # type: ignore[typeddict-item]
        "GkeAutopilotGpuPool": lambda: GkeAutopilotGpuPool(
            "ap", {"pool": {"name": "l4", "instance_type": "g2-standard-8"}, "kubernetes_version": "1.33"}
        ),
        "NvidiaDevicePlugin": lambda: NvidiaDevicePlugin("dp", {"pools": [eks()]}),
        "NvidiaGpuOperator": lambda: NvidiaGpuOperator(
            "op",
            {"pools": [EksGpuNodeGroup("np", {"pool": POOL, **WIRING["aws"], "gpu_stack": "gpu-operator"})]},  # type: ignore[typeddict-item]
        ),
        "NvidiaDraDriver": lambda: NvidiaDraDriver(
            "dra",
            {
                "kubernetes_version": "1.34",
                "pools": [EksGpuNodeGroup("np", {"pool": DRA_POOL, **WIRING["aws"], "gpu_stack": "dra"})],  # type: ignore[typeddict-item]
            },
        ),
    }


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_each_output_is_the_attribute_of_its_name_as_registered(name: str) -> None:
    """What the provider's Construct returns as a component's state (``getattr(instance, snake_name)`` for each
    schema output, serialized by Pulumi) equals what the component registers."""
    mapping = component(name).outputs_mapping

    def build() -> Any:
        instance = _builders()[name]()
        for key, attribute in mapping.items():  # serialized as the provider serializes a Construct's state
            pulumi.export(key, pulumi.Output.from_input(serialize_property(getattr(instance, attribute), [], key)))
        return instance

    plan, instance = plan_and(build, preview=False)
    registered = _registered(plan, instance)
    assert set(mapping) == OUTPUTS[name]
    unset = {key for key, attribute in mapping.items() if getattr(instance, attribute) is None}  # left out as null
    assert set(registered) == set(mapping) - unset
    assert plan.outputs == registered


def _registered(plan: Plan, instance: pulumi.ComponentResource) -> dict[str, Any]:
    token = f"gpu-components:index:{type(instance).__name__}"
    found = [r for r in plan.resources if r.type == token and r.name == instance._name]
    return dict(found[0].outputs)


def test_a_taint_is_the_mapping_pulumi_serializes() -> None:
    taint = Taint("nvidia.com/gpu", "present", "NoSchedule")
    assert dict(taint) == taint.to_args() == {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    assert (len(taint), taint["effect"], taint == Taint("nvidia.com/gpu", "present", "NoSchedule")) == (
        3,
        "NoSchedule",
        True,
    )
    with pytest.raises(KeyError):
        taint["text"]


# ---------------------------------------------------------------------------------------------------------------
# Enum members behave as their strings
# ---------------------------------------------------------------------------------------------------------------


def _enum_members(value: object) -> list[object]:
    if isinstance(value, Enum):
        return [value]
    if isinstance(value, dict):
        return [m for key, item in value.items() for m in _enum_members(key) + _enum_members(item)]
    if isinstance(value, list | tuple):
        return [m for item in value for m in _enum_members(item)]
    return []


MEMBER_POOL = {
    **POOL,
    "cpu_architecture": CpuArchitecture.X86_64,
    "gpu_model": "L4",
    "gpu_count": 1,
    "taints": [{"key": "team", "effect": TaintEffect.PREFER_NO_SCHEDULE}],
}
STRING_POOL = {**MEMBER_POOL, "cpu_architecture": "x86_64", "taints": [{"key": "team", "effect": "PreferNoSchedule"}]}
MIG_MEMBERS = {"name": "a100", "instance_type": "p4d.24xlarge", "max_size": 1, "mig": {"profile": "1g.5gb"}}


def _cluster(pool: dict[str, Any], cloud: object, gpu_stack: object, strategy: object) -> Any:
    mig = {**MIG_MEMBERS, "mig": {**MIG_MEMBERS["mig"], "strategy": strategy}}
    args = {"cloud": cloud, "aws": WIRING["aws"], "pools": [pool, mig], "gpu_stack": gpu_stack}
    return GpuCluster("gc", args)  # type: ignore[arg-type]


def test_enum_members_and_strings_plan_alike_and_no_member_reaches_the_plan() -> None:
    by_members, cluster = plan_and(
        lambda: _cluster(MEMBER_POOL, Cloud.AWS, GpuStack.GPU_OPERATOR, MigStrategy.SINGLE), preview=False
    )
    by_strings = plan_and(lambda: _cluster(STRING_POOL, "aws", "gpu-operator", "single"), preview=False)[0]
    assert by_members.resources == by_strings.resources
    assert [r.urn for r in by_members.resources if _enum_members([r.inputs, r.outputs])] == []
    pool = cluster.pools["l4"]
    assert [type(value) for value in (pool.gpu_stack, pool.spec.cloud, pool.taints[1].effect)] == [str, str, str]
    assert pool.spec.cpu_architecture == "x86_64" and type(pool.spec.cpu_architecture) is str


def test_an_aks_pool_takes_its_driver_as_a_member() -> None:
    args = {"pool": AKS_POOL, **WIRING["azure"], "gpu_driver": GpuDriver.AKS}
    plan, pool = plan_and(lambda: AksGpuNodePool("np", args))  # type: ignore[arg-type]
    assert type(pool.gpu_driver) is str and pool.gpu_driver == "aks"
    assert [r.name for r in plan.resources if _enum_members(r.inputs)] == []


def test_a_spec_from_members_holds_strings() -> None:
    spec = GpuNodePoolSpec.from_args(
        {**MIG_MEMBERS, "mig": {"profile": "1g.5gb", "strategy": MigStrategy.SINGLE}},
        Cloud.AWS,  # type: ignore[arg-type]
    )
    assert spec.mig is not None
    assert (type(spec.cloud), type(spec.mig.strategy)) == (str, str)


def test_members_pass_the_shape_check_and_wrong_values_get_the_literal_error() -> None:
    assert shape_problems(GpuNodePoolArgs, MEMBER_POOL) == []
    bad = shape_problems(GpuNodePoolArgs, {**POOL, "taints": [{"key": "a", "effect": "NO_SCHEDULE"}]}, "pools[0]")
    assert [str(problem) for problem in bad] == [
        "pools[0].taints[0].effect: not one of the allowed values; did you mean 'NoSchedule'? (got 'NO_SCHEDULE'); "
        "valid: 'NoSchedule', 'PreferNoSchedule' or 'NoExecute'"
    ]
    wrong_enum = shape_problems(GpuNodePoolArgs, {**POOL, "mig": {"profile": "1g.5gb", "strategy": GpuStack.AUTO}})
    assert [(p.path, p.message, p.valid) for p in wrong_enum] == [
        ("mig.strategy", "not one of the allowed values", "'single' or 'mixed'")
    ]


def test_plain_turns_members_into_values_at_any_depth_and_keeps_other_objects() -> None:
    output = pulumi.Output.from_input("x")
    value = {"a": [GpuStack.AUTO, (TaintEffect.NO_EXECUTE, output)], "b": {"c": Cloud.GCP}, "d": 1}
    result = plain(value)
    assert result == {"a": ["auto", ("NoExecute", output)], "b": {"c": "gcp"}, "d": 1}
    assert _enum_members(result) == [] and result["a"][1][1] is output


def test_descriptions_state_the_defaults_the_code_uses() -> None:
    from gpu_components.kubernetes import device_plugin, gpu_operator
    from gpu_components.nvidia.device_plugin import DEVICE_PLUGIN_CHART_VERSION
    from gpu_components.nvidia.gpu_operator import GPU_OPERATOR_CHART_VERSION
    from gpu_components.spec import DEFAULT_DISK_SIZE_GB, MAX_DISK_SIZE_GB, MIN_DISK_SIZE_GB

    def described(props: dict[str, PropertyDefinition], key: str) -> str:
        return props[key].description or ""

    for props in (component("NvidiaDevicePlugin").inputs, schema_type("DevicePluginSettingsArgs").properties):
        assert f"``{DEVICE_PLUGIN_CHART_VERSION}``" in described(props, "chartVersion")
        assert f"``{device_plugin.DEFAULT_NAMESPACE}``" in described(props, "namespace")
    for props in (component("NvidiaGpuOperator").inputs, schema_type("GpuOperatorSettingsArgs").properties):
        assert f"``{GPU_OPERATOR_CHART_VERSION}``" in described(props, "chartVersion")
        assert f"``{gpu_operator.DEFAULT_NAMESPACE}``" in described(props, "namespace")
    disk = described(schema_type("GpuNodePoolArgs").properties, "diskSizeGb")
    assert f"{MIN_DISK_SIZE_GB}..{MAX_DISK_SIZE_GB}" in disk and f"Defaults to {DEFAULT_DISK_SIZE_GB}," in disk
