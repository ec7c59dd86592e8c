"""The GPU add-ons given plain pool descriptions (AddOnPoolArgs) register exactly what they register given the
node-pool components built from the same pools, on every cloud; bad descriptions get every problem at once, with
the field's path in the add-on's args, before anything is registered."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.plan import Plan
from tests.helpers import BOTH_MODES, WIRING, plan_and, plan_of, pool_components

COMPONENTS = {"aws": "EksGpuNodeGroup", "azure": "AksGpuNodePool", "gcp": "GkeGpuNodePool"}
ADD_ONS: dict[str, Callable[[str, Any], pulumi.ComponentResource]] = {
    "device-plugin": NvidiaDevicePlugin,
    "gpu-operator": NvidiaGpuOperator,
}


def component(description: dict[str, Any]) -> Any:
    """The node-pool component a description describes (named ``np-<pool>``): its pool, the cloud's block as the
    component's own args, the GPU stack, and :data:`~tests.helpers.WIRING`. Call inside a program."""
    cloud = description["cloud"]
    pool = {key: value for key, value in description.items() if key not in ("cloud", "gpu_stack", *COMPONENTS)}
    args = {"pool": pool, **WIRING[cloud], **description.get(cloud, {})}
    if "gpu_stack" in description:
        args["gpu_stack"] = description["gpu_stack"]
    cls = getattr(importlib.import_module(f"gpu_components.{cloud}"), COMPONENTS[cloud])
    return cls(f"np-{pool['name']}", args)


def registered(plan: Plan, name: str) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Everything the add-on ``name`` registered (itself and its children), by (type, name): parent, inputs,
    options, dependencies (all and per input) and outputs, as the engine would receive them."""
    return {
        (r.type, r.name): (r.parent, r.inputs, r.options, r.dependencies, r.property_dependencies, r.outputs)
        for r in plan.resources
        if r.name == name or r.name.startswith(f"{name}-")
    }


# Each case: the add-on, its pools as descriptions (the same pools' components are built from them), its settings,
# and the resources it registers, to prove the comparison is not of two empty plans.
DP_RESOURCES = ["dp", "dp-config", "dp-namespace", "dp-release"]
OP_RESOURCES = ["op", "op-device-plugin-config", "op-mig-config", "op-namespace", "op-release"]
CASES: dict[str, tuple[str, list[dict[str, Any]], dict[str, Any], list[str]]] = {
    "aws device plugin": (
        "device-plugin",
        [
            {
                "cloud": "aws",
                "name": "shared",
                "instance_type": "g5.xlarge",
                "max_size": 2,
                "time_slicing": {"replicas": 4},
            },
            {
                "cloud": "aws",
                "gpu_stack": "device-plugin",
                "name": "infer",
                "instance_type": "g6.xlarge",
                "max_size": 2,
                "spot": True,
                "mps": {"replicas": 8, "trusted": True},
                "taints": [{"key": "dedicated", "value": "inference", "effect": "NoExecute"}],
                "aws": {"ami_type": "AL2023_x86_64_NVIDIA", "node_group_args": {"release_version": "1.33.0-20260101"}},
            },
        ],
        {"namespace": "gpu-system", "helm_values": {"gfd": {"enabled": True}}},
        DP_RESOURCES,
    ),
    "aws gpu operator": (
        "gpu-operator",
        [
            {"cloud": "aws", "gpu_stack": "gpu-operator", "name": "l4", "instance_type": "g6.xlarge", "max_size": 2},
            {
                "cloud": "aws",
                "gpu_stack": "gpu-operator",
                "name": "mig",
                "instance_type": "p4de.24xlarge",
                "max_size": 2,
                "mig": {"profile": "1g.10gb"},
                "aws": {"ami_type": "AL2023_x86_64_NVIDIA"},
            },
        ],
        {"dcgm_exporter": False},
        OP_RESOURCES,
    ),
    "azure device plugin": (
        "device-plugin",
        [
            {"cloud": "azure", "name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True},
            {
                "cloud": "azure",
                "name": "a100mig",
                "instance_type": "Standard_NC24ads_A100_v4",
                "max_size": 2,
                "mig": {"profile": "1g.10gb"},
                "azure": {"gpu_driver": "aks"},
            },
        ],
        {},
        DP_RESOURCES,
    ),
    "azure gpu operator": (
        "gpu-operator",
        [
            {
                "cloud": "azure",
                "gpu_stack": "gpu-operator",
                "name": "t4spot",
                "instance_type": "Standard_NC8as_T4_v3",
                "max_size": 2,
                "spot": True,
                "time_slicing": {"replicas": 2},
                "azure": {"gpu_driver": "none"},
            },
        ],
        {"operator_driver": True},
        OP_RESOURCES,
    ),
    "gcp gpu operator": (
        "gpu-operator",
        [
            {
                "cloud": "gcp",
                "gpu_stack": "gpu-operator",
                "name": "l4",
                "instance_type": "g2-standard-4",
                "max_size": 2,
                "time_slicing": {"replicas": 4},
            },
            {
                "cloud": "gcp",
                "gpu_stack": "gpu-operator",
                "name": "a100",
                "instance_type": "a2-highgpu-1g",
                "max_size": 1,
                "spot": True,
                "mig": {"profile": "1g.5gb"},
                "gcp": {"driver_version": "INSTALLATION_DISABLED"},
            },
        ],
        {},
        [*OP_RESOURCES[:3], "op-namespace", "op-release", "op-resource-quota"],
    ),
}


def addon_plan(kind: str, pools: Callable[[], list[Any]], settings: dict[str, Any], preview: bool) -> Plan:
    name = "dp" if kind == "device-plugin" else "op"

    def program() -> None:
        ADD_ONS[kind](name, {**settings, "pools": pools()})

    return plan_of(program, preview)


@BOTH_MODES
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_descriptions_register_what_the_components_register(
    case: tuple[str, list[dict[str, Any]], dict[str, Any], list[str]], preview: bool
) -> None:
    kind, descriptions, settings, expected = case
    name = "dp" if kind == "device-plugin" else "op"
    from_components = addon_plan(kind, lambda: [component(d) for d in descriptions], settings, preview)
    from_descriptions = addon_plan(kind, lambda: descriptions, settings, preview)
    assert sorted(n for _, n in registered(from_descriptions, name)) == sorted(expected)
    assert registered(from_descriptions, name) == registered(from_components, name)
    assert not [r.name for r in from_descriptions.resources if r.name.startswith("np-")]


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_descriptions_give_the_add_on_the_same_plain_attributes(
    case: tuple[str, list[dict[str, Any]], dict[str, Any], list[str]],
) -> None:
    kind, descriptions, settings, _ = case
    _, by_components = plan_and(lambda: ADD_ONS[kind]("a", {**settings, "pools": [component(d) for d in descriptions]}))
    _, by_descriptions = plan_and(lambda: ADD_ONS[kind]("a", {**settings, "pools": descriptions}))
    attributes = ("specs", "values", "configs", "tolerations", "device_plugin_configs", "mig_configs")
    for attribute in attributes:
        assert getattr(by_descriptions, attribute, None) == getattr(by_components, attribute, None), attribute
    assert [spec.name for spec in by_descriptions.specs] == [d["name"] for d in descriptions]  # type: ignore[attr-defined]


def test_components_and_descriptions_mix_in_one_list() -> None:
    _, descriptions, settings, _ = CASES["aws device plugin"]
    mixed = addon_plan("device-plugin", lambda: [component(descriptions[0]), descriptions[1]], settings, True)
    whole = addon_plan("device-plugin", lambda: [component(d) for d in descriptions], settings, True)
    assert registered(mixed, "dp") == registered(whole, "dp")
    assert [r.name for r in mixed.resources if r.type == "gpu-components:index:EksGpuNodeGroup"] == ["np-shared"]


def test_the_description_default_gpu_stack_is_the_components_auto() -> None:
    description = {"cloud": "azure", "name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
    stated = addon_plan("device-plugin", lambda: [{**description, "gpu_stack": "auto"}], {}, True)
    left_out = addon_plan("device-plugin", lambda: [description], {}, True)
    pool = {key: value for key, value in description.items() if key != "cloud"}
    built = addon_plan("device-plugin", lambda: pool_components("azure", [pool]), {}, True)
    assert registered(left_out, "dp") == registered(stated, "dp") == registered(built, "dp")


# ---------------------------------------------------------------------------------------------------------------
# Bad descriptions: every problem at once, exact paths and messages, nothing registered
# ---------------------------------------------------------------------------------------------------------------

L4 = {"cloud": "aws", "name": "l4", "instance_type": "g6.xlarge", "max_size": 2}
A100 = {"cloud": "aws", "name": "a100", "instance_type": "p4de.24xlarge", "max_size": 1}
AKS_A100 = {"cloud": "azure", "name": "a100", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 1}
T4 = {"cloud": "azure", "name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
GKE_L4 = {"cloud": "gcp", "name": "l4", "instance_type": "g2-standard-4", "max_size": 2}
DESCRIPTION_KEYS = (
    "aws, azure, cloud, cpu_architecture, desired_size, disk_size_gb, gcp, gpu_count, gpu_model, gpu_stack, "
    "gpu_taint, instance_type, labels, max_size, mig, min_size, mps, name, spot, taints, time_slicing"
)
A100_80GB_PROFILES = "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb"
SOURCE_MIG_PROFILES = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html"
DAEMONSET = "the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin)"
OPERATOR = (
    "the GPU Operator's device plugin (NvidiaGpuOperator; the pool was built or described with gpu_stack gpu-operator)"
)


def advertised_by(who: str, instead: str) -> tuple[str, str]:
    return (
        f"its GPUs are advertised by {who}; a second advertiser on its nodes would break them",
        f"pools served by {instead}",
    )


BAD: dict[str, tuple[str, list[Any], dict[str, Any], list[tuple[str, object, str, str | None]]]] = {
    "unknown key, with the closest key": (
        "device-plugin",
        [{**L4, "max_szie": 3}],
        {},
        [("pools[0].max_szie", 3, "unknown field; did you mean 'max_size'?", DESCRIPTION_KEYS)],
    ),
    "unknown key in the cloud block": (
        "device-plugin",
        [{**L4, "aws": {"ami_typ": "AL2023_x86_64_NVIDIA"}}],
        {},
        [
            (
                "pools[0].aws.ami_typ",
                "AL2023_x86_64_NVIDIA",
                "unknown field; did you mean 'ami_type'?",
                "ami_type, node_group_args",
            )
        ],
    ),
    "missing cloud": (
        "device-plugin",
        [{key: value for key, value in L4.items() if key != "cloud"}],
        {},
        [
            (
                "pools[0].cloud",
                None,
                "required field is missing: a pool description names its cloud, which decides its rules",
                "aws, azure, gcp",
            )
        ],
    ),
    "unknown cloud": (
        "device-plugin",
        [{**L4, "cloud": "oci"}],
        {},
        [("pools[0].cloud", "oci", "not one of the allowed values", "'aws', 'azure' or 'gcp'")],
    ),
    "another cloud's block": (
        "device-plugin",
        [{**L4, "gcp": {"driver_version": "LATEST"}}],
        {},
        [
            (
                "pools[0].gcp",
                {"driver_version": "LATEST"},
                "settings for gcp, but the pool is on aws",
                "the block aws, or cloud gcp",
            )
        ],
    ),
    "MIG profile the GPU does not have, on the second pool": (
        "gpu-operator",
        [{**L4, "gpu_stack": "gpu-operator"}, {**A100, "gpu_stack": "gpu-operator", "mig": {"profile": "2g.5gb"}}],
        {},
        [("pools[1].mig.profile", "2g.5gb", "not a MIG profile of A100-80GB", A100_80GB_PROFILES)],
    ),
    "MIG profile AKS cannot make": (
        "device-plugin",
        [{**AKS_A100, "mig": {"profile": "1g.20gb"}}],
        {},
        [
            (
                "pools[0].mig.profile",
                "1g.20gb",
                "AKS's gpuInstanceProfile makes only one profile per compute size on A100-80GB",
                "1g.10gb (MIG1g), 2g.20gb (MIG2g), 3g.40gb (MIG3g), 4g.40gb (MIG4g), 7g.80gb (MIG7g)",
            )
        ],
    ),
    "pool served by its node image (Bottlerocket)": (
        "device-plugin",
        [{**L4, "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}}],
        {},
        [
            (
                "pools[0]",
                "l4",
                *advertised_by(
                    "the node image's own device plugin (Bottlerocket NVIDIA runs it on the host)", DAEMONSET
                ),
            )
        ],
    ),
    "pool served by its cloud (GKE)": (
        "device-plugin",
        [GKE_L4],
        {},
        [("pools[0]", "l4", *advertised_by("the cloud's managed device plugin (GKE installs and runs it)", DAEMONSET))],
    ),
    "pool described for the device plugin, given to the operator": (
        "gpu-operator",
        [T4],
        {},
        [("pools[0]", "t4", *advertised_by(DAEMONSET, OPERATOR))],
    ),
    "pools of two clouds": (
        "device-plugin",
        [L4, T4],
        {},
        [("pools", ["aws", "azure"], "the pools of one add-on must be of one cluster's cloud", None)],
    ),
    "the same pool twice": (
        "device-plugin",
        [L4, L4],
        {},
        [("pools[1]", "l4", "pool names must be unique; pools[0] has it too", None)],
    ),
    "an entry neither component nor mapping": (
        "device-plugin",
        [L4, "t4"],
        {},
        [
            (
                "pools[1]",
                "t4",
                "not a node-pool component or a pool description (a mapping)",
                "EksGpuNodeGroup, AksGpuNodePool or GkeGpuNodePool, or a pool description (AddOnPoolArgs: a cluster "
                "pool with its cloud)",
            )
        ],
    ),
    "AKS with no driver under the device plugin": (
        "device-plugin",
        [{**T4, "azure": {"gpu_driver": "none"}}],
        {},
        [
            (
                "pools[0].azure.gpu_driver",
                "none",
                "gpu_driver none stops AKS installing the NVIDIA driver, and the pool's GPU stack (the NVIDIA device "
                "plugin, gpu_stack auto or device-plugin) installs none either: the GPUs would be unusable",
                "gpu_driver aks with the device plugin, or gpu_stack gpu-operator with operator_driver true",
            )
        ],
    ),
    "two driver owners under the operator": (
        "gpu-operator",
        [{**L4, "gpu_stack": "gpu-operator"}],
        {"operator_driver": True},
        [
            (
                "pools[0].aws.ami_type",
                "AL2023_x86_64_NVIDIA",
                "two parties would install the NVIDIA driver: the EKS NVIDIA AMI and the GPU Operator (ami_type "
                "AL2023_x86_64_NVIDIA and operator_driver true)",
                "operator_driver false (every EKS NVIDIA AMI ships the driver)",
            )
        ],
    ),
    "every problem of every pool at once": (
        "device-plugin",
        [{**L4, "max_szie": 3}, {**T4, "mig": {"profile": "1g.10gb"}}, {**L4, "name": "Bad_Name"}],
        {"namespace": "GPU"},
        [
            ("pools[0].max_szie", 3, "unknown field; did you mean 'max_size'?", DESCRIPTION_KEYS),
            (
                "pools[1].mig",
                {"profile": "1g.10gb"},
                "T4 does not support MIG",
                "GPUs with MIG: A100-40GB, A100-80GB, A30-24GB, B200, H100-80GB, H100-94GB, H200-141GB",
            ),
            (
                "pools[2].name",
                "Bad_Name",
                "pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels",
                "1-50 lowercase letters, digits or '-', starting and ending alphanumeric",
            ),
            (
                "namespace",
                "GPU",
                "not a valid namespace name (DNS-1123 label)",
                "lowercase letters, digits or '-', starting and ending alphanumeric",
            ),
        ],
    ),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_bad_descriptions_get_exact_errors_and_register_nothing(
    case: tuple[str, list[Any], dict[str, Any], list[tuple[str, object, str, str | None]]],
) -> None:
    kind, pools, settings, expected = case
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            ADD_ONS[kind]("bad", {**settings, "pools": pools})
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program)
    [error] = errors
    assert isinstance(error, pulumi.InputPropertiesError)
    assert [(p.path, p.value, p.message, p.valid) for p in error.problems] == expected
    assert plan.resources == ()
