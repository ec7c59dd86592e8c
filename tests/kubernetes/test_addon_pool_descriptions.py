"""The GPU add-ons given pools as plain values (cluster pools, ClusterPoolArgs, with the add-on's ``cloud``) register
exactly what they register given the node-pool components built from the same pools, on every cloud; a plain pool
is the pool built with the add-on's GPU stack. Bad plain pools and a missing or wrong ``cloud`` get every problem
at once, with the field's path in the add-on's args, before anything is registered."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest

from gpu_components.errors import Combined, Default, GpuSpecError
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.plan import Plan
from tests.helpers import BOTH_MODES, WIRING, plan_and, plan_of

COMPONENTS = {"aws": "EksGpuNodeGroup", "azure": "AksGpuNodePool", "gcp": "GkeGpuNodePool"}
ADD_ONS: dict[str, Callable[[str, Any], pulumi.ComponentResource]] = {
    "device-plugin": NvidiaDevicePlugin,
    "gpu-operator": NvidiaGpuOperator,
}
COMPONENT_STACKS = {"device-plugin": ("auto", "device-plugin"), "gpu-operator": ("gpu-operator",)}
"""The GPU stacks a node-pool component an add-on serves may be built with: a plain pool must register what each
registers."""


def component(cloud: str, pool: dict[str, Any], gpu_stack: str) -> Any:
    """The node-pool component of the cluster pool ``pool`` on ``cloud`` (named ``np-<pool>``): the pool without its
    cloud block, the block as the component's own args, the GPU stack, and :data:`~tests.helpers.WIRING`. Call
    inside a program."""
    neutral = {key: value for key, value in pool.items() if key not in COMPONENTS}
    args = {"pool": neutral, **WIRING[cloud], **pool.get(cloud, {}), "gpu_stack": gpu_stack}
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


@dataclass(frozen=True)
class Case:
    """An add-on, its cloud, its pools as cluster pools (the same pools' components are built from them), its
    settings, and the resources it registers, to prove the comparison is not of two empty plans."""

    kind: str
    cloud: str
    pools: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    resources: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return "dp" if self.kind == "device-plugin" else "op"


DP_RESOURCES = ("dp", "dp-config", "dp-namespace", "dp-release")
OP_RESOURCES = ("op", "op-device-plugin-config", "op-mig-config", "op-namespace", "op-release")
CASES: dict[str, Case] = {
    "aws device plugin": Case(
        "device-plugin",
        "aws",
        [
            {"name": "shared", "instance_type": "g5.xlarge", "max_size": 2, "time_slicing": {"replicas": 4}},
            {
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
    "aws gpu operator": Case(
        "gpu-operator",
        "aws",
        [
            {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2},
            {
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
    "azure device plugin": Case(
        "device-plugin",
        "azure",
        [
            {"name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True},
            {
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
    "azure gpu operator": Case(
        "gpu-operator",
        "azure",
        [
            {
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
    "gcp gpu operator": Case(
        "gpu-operator",
        "gcp",
        [
            {"name": "l4", "instance_type": "g2-standard-4", "max_size": 2, "time_slicing": {"replicas": 4}},
            {
                "name": "a100",
                "instance_type": "a2-highgpu-1g",
                "max_size": 1,
                "spot": True,
                "mig": {"profile": "1g.5gb"},
                "gcp": {"driver_version": "INSTALLATION_DISABLED"},
            },
        ],
        {},
        (*OP_RESOURCES, "op-resource-quota"),
    ),
}
"""Every cloud under both add-ons, but GKE under the device plugin: GKE's managed plugin advertises a GKE pool's
GPUs, so the device plugin add-on refuses its pools however given (tested below)."""
BY_STACK = [
    pytest.param(case, gpu_stack, id=f"{name}, components built with {gpu_stack}")
    for name, case in CASES.items()
    for gpu_stack in COMPONENT_STACKS[case.kind]
]


def addon_plan(case: Case, pools: Callable[[], list[Any]], preview: bool, **extra: Any) -> Plan:
    def program() -> None:
        ADD_ONS[case.kind](case.name, {**case.settings, **extra, "pools": pools()})

    return plan_of(program, preview)


@BOTH_MODES
@pytest.mark.parametrize(("case", "gpu_stack"), BY_STACK)
def test_plain_pools_register_what_the_components_register(case: Case, gpu_stack: str, preview: bool) -> None:
    from_components = addon_plan(case, lambda: [component(case.cloud, p, gpu_stack) for p in case.pools], preview)
    from_plain = addon_plan(case, lambda: case.pools, preview, cloud=case.cloud)
    assert sorted(n for _, n in registered(from_plain, case.name)) == sorted(case.resources)
    assert registered(from_plain, case.name) == registered(from_components, case.name)
    assert not [r.name for r in from_plain.resources if r.name.startswith("np-")]


@pytest.mark.parametrize(("case", "gpu_stack"), BY_STACK)
def test_plain_pools_give_the_add_on_the_same_plain_attributes(case: Case, gpu_stack: str) -> None:
    components = {**case.settings, "pools": [component(case.cloud, p, gpu_stack) for p in case.pools]}
    _, by_components = plan_and(lambda: ADD_ONS[case.kind]("a", components))
    _, by_plain = plan_and(lambda: ADD_ONS[case.kind]("a", {**case.settings, "cloud": case.cloud, "pools": case.pools}))
    attributes = ("specs", "values", "configs", "tolerations", "device_plugin_configs", "mig_configs")
    for attribute in attributes:
        assert getattr(by_plain, attribute, None) == getattr(by_components, attribute, None), attribute
    assert [spec.name for spec in by_plain.specs] == [p["name"] for p in case.pools]  # type: ignore[attr-defined]


def test_components_and_plain_pools_mix_in_one_list_and_cloud_may_name_the_components_cloud() -> None:
    case = CASES["aws device plugin"]
    shared, infer = case.pools
    mixed = addon_plan(case, lambda: [component("aws", shared, "auto"), infer], True, cloud="aws")
    whole = addon_plan(case, lambda: [component("aws", p, "auto") for p in case.pools], True)
    named = addon_plan(case, lambda: [component("aws", p, "auto") for p in case.pools], True, cloud="aws")
    assert registered(mixed, "dp") == registered(whole, "dp") == registered(named, "dp")
    assert sorted(n for _, n in registered(mixed, "dp")) == sorted(case.resources)
    assert [r.name for r in mixed.resources if r.type == "gpu-components:index:EksGpuNodeGroup"] == ["np-shared"]


def test_the_cloud_may_be_given_as_its_enum_member() -> None:
    from gpu_components.enums import Cloud

    case = CASES["azure device plugin"]
    by_member = addon_plan(case, lambda: case.pools, True, cloud=Cloud.AZURE)
    by_string = addon_plan(case, lambda: case.pools, True, cloud="azure")
    assert registered(by_member, "dp") == registered(by_string, "dp")
    assert sorted(n for _, n in registered(by_member, "dp")) == sorted(case.resources)


# ---------------------------------------------------------------------------------------------------------------
# Bad plain pools and clouds: every problem at once, exact paths and messages, nothing registered
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    """A ``pools`` entry built as its node-pool component inside the program (:func:`component`)."""

    cloud: str
    pool: dict[str, Any]
    gpu_stack: str = "auto"


L4 = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2}
A100 = {"name": "a100", "instance_type": "p4de.24xlarge", "max_size": 1}
AKS_A100 = {"name": "a100", "instance_type": "Standard_NC24ads_A100_v4", "max_size": 1}
T4 = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
GKE_L4 = {"name": "l4", "instance_type": "g2-standard-4", "max_size": 2}
POOL_KEYS = (
    "aws, azure, cpu_architecture, desired_size, disk_size_gb, gcp, gpu_access, gpu_count, gpu_model, gpu_taint, "
    "instance_type, labels, max_size, mig, min_size, mps, name, provisioning, spot, taints, time_slicing"
)
A100_80GB_PROFILES = "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb"
DAEMONSET = "the NVIDIA device plugin DaemonSet (NvidiaDevicePlugin)"
OPERATOR = "the GPU Operator's device plugin (NvidiaGpuOperator; the pool was built with gpu_stack gpu-operator)"
GKE_PLUGIN = "the cloud's managed device plugin (GKE's, or EKS Auto Mode's)"
BOTTLEROCKET = "the node image's own device plugin (Bottlerocket NVIDIA runs it on the host)"
POOL_ENTRIES = "EksGpuNodeGroup, AksGpuNodePool or GkeGpuNodePool, or a cluster pool (ClusterPoolArgs, a mapping)"


def advertised_by(who: str, instead: str) -> tuple[str, str]:
    return (
        f"its GPUs are advertised by {who}; a second advertiser on its nodes would break them",
        f"pools served by {instead}",
    )


BAD: dict[str, tuple[str, dict[str, Any], list[tuple[str, object, str, str | None]]]] = {
    "unknown key, with the closest key": (
        "device-plugin",
        {"cloud": "aws", "pools": [{**L4, "max_szie": 3}]},
        [("pools[0].max_szie", 3, "unknown field; did you mean 'max_size'?", POOL_KEYS)],
    ),
    "unknown key in the cloud block": (
        "device-plugin",
        {"cloud": "aws", "pools": [{**L4, "aws": {"ami_typ": "AL2023_x86_64_NVIDIA"}}]},
        [
            (
                "pools[0].aws.ami_typ",
                "AL2023_x86_64_NVIDIA",
                "unknown field; did you mean 'ami_type'?",
                "ami_type, node_class, node_class_spec, node_group_args, node_pool_spec",
            )
        ],
    ),
    "the cloud or GPU stack written in a pool, where the add-on has them": (
        "gpu-operator",
        {"cloud": "aws", "pools": [{**L4, "cloud": "aws", "gpu_stack": "gpu-operator"}]},
        [
            ("pools[0].cloud", "aws", "unknown field", POOL_KEYS),
            ("pools[0].gpu_stack", "gpu-operator", "unknown field; did you mean 'gpu_taint'?", POOL_KEYS),
        ],
    ),
    "plain pools without cloud, every pool still checked": (
        "device-plugin",
        {"pools": [{**L4, "max_szie": 3}, T4]},
        [
            ("pools[0].max_szie", 3, "unknown field; did you mean 'max_size'?", POOL_KEYS),
            (
                "cloud",
                None,
                "required field is missing: the cloud of the plain pools (pools[0], pools[1]), which decides their "
                "rules",
                "aws, azure, gcp",
            ),
        ],
    ),
    "plain pool beside a component, without cloud": (
        "device-plugin",
        {"pools": [Built("aws", L4), A100]},
        [
            (
                "cloud",
                None,
                "required field is missing: the cloud of the plain pools (pools[1]), which decides their rules",
                "aws, azure, gcp",
            )
        ],
    ),
    "unknown cloud": (
        "device-plugin",
        {"cloud": "oci", "pools": [L4]},
        [("cloud", "oci", "not one of the allowed values", "'aws', 'azure' or 'gcp'")],
    ),
    "another cloud's block": (
        "device-plugin",
        {"cloud": "aws", "pools": [{**L4, "gcp": {"driver_version": "LATEST"}}]},
        [
            (
                "pools[0].gcp",
                {"driver_version": "LATEST"},
                "settings for gcp, but the add-on's cloud is aws",
                "the block aws, or cloud gcp",
            )
        ],
    ),
    "a cloud other than the components'": (
        "device-plugin",
        {"cloud": "azure", "pools": [Built("aws", L4), T4, Built("aws", A100)]},
        [
            (
                "cloud",
                "azure",
                "the pools of one add-on must be of one cluster's cloud, but the node-pool components (pools[0], "
                "pools[2]) are on aws",
                "aws, the components' cloud",
            )
        ],
    ),
    "components of two clouds": (
        "device-plugin",
        {"pools": [Built("aws", L4), Built("azure", T4)]},
        [
            (
                "pools",
                Combined(("pools[0]", "pools[1]")),  # not ['aws', 'azure'], which nobody wrote
                "the pools of one add-on must be of one cluster's cloud, but the node-pool components are not "
                "(pools[0] on aws; pools[1] on azure)",
                None,
            )
        ],
    ),
    "MIG profile the GPU does not have, on the second pool": (
        "gpu-operator",
        {"cloud": "aws", "pools": [L4, {**A100, "mig": {"profile": "2g.5gb"}}]},
        [("pools[1].mig.profile", "2g.5gb", "not a MIG profile of A100-80GB", A100_80GB_PROFILES)],
    ),
    "MIG profile AKS cannot make": (
        "device-plugin",
        {"cloud": "azure", "pools": [{**AKS_A100, "mig": {"profile": "1g.20gb"}}]},
        [
            (
                "pools[0].mig.profile",
                "1g.20gb",
                "AKS's gpuInstanceProfile makes only one profile per compute size on A100-80GB",
                "1g.10gb (MIG1g), 2g.20gb (MIG2g), 3g.40gb (MIG3g), 4g.40gb (MIG4g), 7g.80gb (MIG7g)",
            )
        ],
    ),
    "pool served by its node image (Bottlerocket), under the device plugin": (
        "device-plugin",
        {"cloud": "aws", "pools": [{**L4, "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}}]},
        [("pools[0]", "l4", *advertised_by(BOTTLEROCKET, DAEMONSET))],
    ),
    "pool served by its node image (Bottlerocket), under the operator": (
        "gpu-operator",
        {"cloud": "aws", "pools": [L4, {**A100, "aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}}]},
        [("pools[1]", "a100", *advertised_by(BOTTLEROCKET, OPERATOR))],
    ),
    "GKE pool under the device plugin: GKE's managed plugin advertises it": (
        "device-plugin",
        {"cloud": "gcp", "pools": [GKE_L4]},
        [("pools[0]", "l4", *advertised_by(GKE_PLUGIN, DAEMONSET))],
    ),
    "component built for the device plugin, given to the operator": (
        "gpu-operator",
        {"cloud": "azure", "pools": [Built("azure", T4, "device-plugin")]},
        [("pools[0]", "t4", *advertised_by(DAEMONSET, OPERATOR))],
    ),
    "component built for the operator, given to the device plugin": (
        "device-plugin",
        {"pools": [Built("aws", L4, "gpu-operator")]},
        [("pools[0]", "l4", *advertised_by(OPERATOR, DAEMONSET))],
    ),
    "the same pool twice": (
        "device-plugin",
        {"cloud": "aws", "pools": [L4, L4]},
        [("pools[1]", "l4", "pool names must be unique; pools[0] has it too", None)],
    ),
    "an entry neither component nor mapping": (
        "device-plugin",
        {"cloud": "aws", "pools": [L4, "t4"]},
        [("pools[1]", "t4", "not a node-pool component or a cluster pool (a mapping)", POOL_ENTRIES)],
    ),
    "AKS with no driver under the device plugin": (
        "device-plugin",
        {"cloud": "azure", "pools": [{**T4, "azure": {"gpu_driver": "none"}}]},
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
    "two driver owners under the operator, at the plain pool's block": (
        "gpu-operator",
        {"cloud": "aws", "operator_driver": True, "pools": [Built("aws", A100, "gpu-operator"), L4]},
        [
            (
                "pools[0].ami_type",
                Default("AL2023_x86_64_NVIDIA"),  # the component's ami_type was not set
                "two parties would install the NVIDIA driver: the EKS NVIDIA AMI and the GPU Operator (ami_type "
                "AL2023_x86_64_NVIDIA and operator_driver true)",
                "operator_driver false (every EKS NVIDIA AMI ships the driver)",
            ),
            (
                "pools[1].aws.ami_type",
                Default("AL2023_x86_64_NVIDIA"),  # the plain pool's ami_type was not set
                "two parties would install the NVIDIA driver: the EKS NVIDIA AMI and the GPU Operator (ami_type "
                "AL2023_x86_64_NVIDIA and operator_driver true)",
                "operator_driver false (every EKS NVIDIA AMI ships the driver)",
            ),
        ],
    ),
    "every problem of every pool at once": (
        "device-plugin",
        {
            "cloud": "azure",
            "namespace": "GPU",
            "pools": [{**T4, "max_szie": 3}, {**AKS_A100, "mig": {"profile": "1g.20gb"}}, {**T4, "name": "Bad_Name"}],
        },
        [
            ("pools[0].max_szie", 3, "unknown field; did you mean 'max_size'?", POOL_KEYS),
            (
                "pools[1].mig.profile",
                "1g.20gb",
                "AKS's gpuInstanceProfile makes only one profile per compute size on A100-80GB",
                "1g.10gb (MIG1g), 2g.20gb (MIG2g), 3g.40gb (MIG3g), 4g.40gb (MIG4g), 7g.80gb (MIG7g)",
            ),
            (
                "pools[2].name",
                "Bad_Name",
                "not a valid azure node pool name, and pool names also name Kubernetes objects and label values, so "
                "they must be DNS-1123 labels",
                "1-12 lowercase letters or digits, starting with a letter (Linux node pools); and 1-50 lowercase "
                "letters, digits or '-', starting and ending alphanumeric",
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
def test_bad_plain_pools_and_clouds_get_exact_errors_and_the_add_on_registers_nothing(
    case: tuple[str, dict[str, Any], list[tuple[str, object, str, str | None]]],
) -> None:
    kind, args, expected = case
    errors: list[GpuSpecError] = []

    def program() -> None:
        pools = [
            component(entry.cloud, entry.pool, entry.gpu_stack) if isinstance(entry, Built) else entry
            for entry in args["pools"]
        ]
        try:
            ADD_ONS[kind]("bad", {**args, "pools": pools})
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program)
    [error] = errors
    assert isinstance(error, pulumi.InputPropertiesError)
    assert [(p.path, p.value, p.message, p.valid) for p in error.problems] == expected
    assert [r.name for r in plan.resources if not r.name.startswith("np-")] == []


@pytest.mark.parametrize("given", ["plain", "auto"])
def test_the_device_plugin_refuses_a_gke_pool_however_given(given: str) -> None:
    """GKE's managed plugin serves a GKE pool, so the device plugin add-on refuses it, plain or as its component
    (which itself refuses gpu_stack device-plugin: tests/gcp/test_gke_component.py)."""
    errors: list[GpuSpecError] = []

    def program() -> None:
        pool = GKE_L4 if given == "plain" else component("gcp", GKE_L4, given)
        try:
            NvidiaDevicePlugin("dp", {"cloud": "gcp", "pools": [pool]})
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program)
    [error] = errors
    assert [(p.path, p.value, p.message, p.valid) for p in error.problems] == [
        ("pools[0]", "l4", *advertised_by(GKE_PLUGIN, DAEMONSET))
    ]
    assert [r.name for r in plan.resources if not r.name.startswith("np-")] == []
