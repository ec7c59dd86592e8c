"""The engine's verdict on each kind of real-world change, on every cloud: which node-pool resource is replaced,
rolled or left alone, and the exit status of ``gpu-components diff --exit-code`` (0 nothing, 3 changes, 4 a node
pool drained).

Stack cases edit one pool of an example stack's config; component cases plan a node-pool component before and after
a change of its program (a rename under an alias, a changed or removed cloud provider).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pytest

from tests.helpers import WIRING
from tests.plan.test_engine_verdicts import Edit, pool, program_plan, stack_plans, verdict

NODE_GROUP, AGENT_POOL, NODE_POOL = (
    "aws:eks/nodeGroup:NodeGroup",
    "azure-native:containerservice:AgentPool",
    "gcp:container/nodePool:NodePool",
)
DBR = "  [delete before replace]"
MIG_RELABEL = (
    "  [drains nodes: its nvidia.com/mig.config label changed: the GPU Operator's MIG Manager repartitions the GPUs of"
    " every node, which needs every GPU workload on them stopped first]"
)


def eks(pool_name: str) -> str:
    return f"{NODE_GROUP} gpu-demo-gpu-{pool_name}-node-group"


def aks(pool_name: str) -> str:
    return f"{AGENT_POOL} gpudemo-gpu-{pool_name}-agent-pool"


def gke(pool_name: str) -> str:
    return f"{NODE_POOL} gpu-demo-gpu-{pool_name}-node-pool"


def config(key: str, value: str) -> Edit:
    """An edit that sets one stack config key (a default provider's setting)."""

    def edit(stack_config: dict[str, Any]) -> None:
        stack_config[key] = value

    return edit


PROVIDER_SETTINGS_DRAIN = (
    "  [drains nodes: its provider's settings changed: the provider decides whether that replaces every resource it"
    " manages (DiffConfig), which cannot be asked offline]"
)

STACK_CASES: list[tuple[str, str, Edit, str, int]] = [
    # stack, what changes, edit, the node-pool resource's line in the diff ("" when it is not in it), exit status
    ("aws-eks", "spot -> on-demand", pool("a10g-shared", spot=False), f"+- {eks('a10g-shared')}", 4),
    (
        "aws-eks",
        "AMI type (driver)",
        pool("a10g-shared", aws={"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}),
        f"+- {eks('a10g-shared')}",
        4,
    ),
    ("aws-eks", "instance type", pool("a10g-shared", instance_type="g5.4xlarge"), f"+- {eks('a10g-shared')}", 4),
    ("aws-eks", "desired size", pool("a10g-shared", desired_size=3), "", 0),
    ("aws-eks", "max size", pool("a10g-shared", max_size=9), f"~ {eks('a10g-shared')}", 3),
    ("aws-eks", "time-slicing replicas", pool("a10g-shared", time_slicing={"replicas": 8, "trusted": True}), "", 3),
    (
        "aws-eks-operator",
        "MIG profile (GPU Operator)",
        pool("a100-mig", mig={"profile": "3g.20gb"}),
        f"~ {eks('a100-mig')}{MIG_RELABEL}",
        4,
    ),
    ("azure-aks", "spot -> regular", pool("t4spot", spot=False), f"+- {aks('t4spot')}{DBR}", 4),
    ("azure-aks", "MIG profile", pool("a100mig", mig={"profile": "2g.20gb"}), f"+- {aks('a100mig')}{DBR}", 4),
    ("azure-aks", "VM size", pool("t4spot", instance_type="Standard_NC16as_T4_v3"), f"+- {aks('t4spot')}{DBR}", 4),
    ("azure-aks", "desired size", pool("t4spot", desired_size=2), "", 0),
    ("gcp-gke", "spot -> on-demand", pool("l4-shared", spot=False), f"+- {gke('l4-shared')}{DBR}", 4),
    (
        "gcp-gke",
        "driver version",
        pool("l4-shared", gcp={"driver_version": "LATEST"}),
        f"+- {gke('l4-shared')}{DBR}",
        4,
    ),
    ("gcp-gke", "MIG profile", pool("a100-mig", mig={"profile": "2g.10gb"}), f"+- {gke('a100-mig')}{DBR}", 4),
    ("gcp-gke", "node labels", pool("l4-shared", labels={"workload": "batch"}), f"~ {gke('l4-shared')}", 3),
]


@pytest.mark.stack
@pytest.mark.parametrize(
    ("stack", "change", "edit", "line", "status"), STACK_CASES, ids=[f"{c[0]}: {c[1]}" for c in STACK_CASES]
)
def test_a_stack_change_gets_the_engines_verdict(
    tmp_path: Path, stack: str, change: str, edit: Edit, line: str, status: int
) -> None:
    text, exit_status = verdict(tmp_path, *stack_plans(stack, edit))

    pools = [entry for entry in text.splitlines() if entry.split(" ")[1:2] and _is_node_pool(entry.split(" ")[1])]
    assert pools == ([line] if line else [])
    assert exit_status == status


def _is_node_pool(type_: str) -> bool:
    return type_ in {NODE_GROUP, AGENT_POOL, NODE_POOL}


COMPONENTS: dict[str, tuple[str, dict[str, Any], str, str, str]] = {
    # cloud: (component, pool, provider package, node-pool resource type, its name's suffix)
    "aws": (
        "EksGpuNodeGroup",
        {"name": "l4", "instance_type": "g6.xlarge", "max_size": 4},
        "aws",
        NODE_GROUP,
        "node-group",
    ),
    "azure": (
        "AksGpuNodePool",
        {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 4},
        "azure-native",
        AGENT_POOL,
        "agent-pool",
    ),
    "gcp": (
        "GkeGpuNodePool",
        {"name": "l4", "instance_type": "g2-standard-8", "max_size": 4},
        "gcp",
        NODE_POOL,
        "node-pool",
    ),
}


def component_program(
    cloud: str,
    name: str,
    *,
    alias: str | None = None,
    provider: str | None = None,
    settings: dict[str, Any] | None = None,
) -> Callable[[], None]:
    """The cloud's node-pool component named ``name`` (an alias to ``alias``), on an explicit cloud provider named
    ``provider`` (with ``settings``) or the default one."""
    component, spec, package, _, _ = COMPONENTS[cloud]

    def program() -> None:
        options: dict[str, Any] = {}
        if alias is not None:
            options["aliases"] = [pulumi.Alias(name=alias)]
        if provider is not None:
            options["providers"] = [pulumi.ProviderResource(package, provider, settings or {}, None)]
        cls = getattr(importlib.import_module(f"gpu_components.{cloud}"), component)
        cls(name, {"pool": spec, **WIRING[cloud]}, pulumi.ResourceOptions(**options))

    return program


@pytest.mark.parametrize("cloud", ["aws", "azure"])
def test_a_rename_under_an_alias_keeps_the_node_pool(tmp_path: Path, cloud: str) -> None:
    old = program_plan(component_program(cloud, "gpu"))
    text, status = verdict(tmp_path, old, program_plan(component_program(cloud, "gpu-renamed", alias="gpu")))

    _, _, _, type_, suffix = COMPONENTS[cloud]
    assert f"= {type_} gpu-renamed-{suffix}  [renamed from gpu-{suffix}]" in text.splitlines()
    assert status == 0


def test_a_gke_pool_renamed_under_an_alias_is_replaced_for_its_node_service_account(tmp_path: Path) -> None:
    """The node service account the component makes is named after the component (its account id is force-new), so
    even under an alias a rename replaces the account, its IAM members and the node pool; a pool given
    ``service_account`` keeps everything."""
    old = program_plan(component_program("gcp", "gpu"))
    text, status = verdict(tmp_path, old, program_plan(component_program("gcp", "gpu-renamed", alias="gpu")))

    assert [line for line in text.splitlines() if not line.startswith(" ")][1:] == [
        "+- gcp:container/nodePool:NodePool gpu-renamed-node-pool  [renamed from gpu-node-pool]  [delete before"
        " replace]",
        "+- gcp:projects/iAMMember:IAMMember gpu-renamed-node-sa-node  [renamed from gpu-node-sa-node]",
        "+- gcp:projects/iAMMember:IAMMember gpu-renamed-node-sa-registry  [renamed from gpu-node-sa-registry]",
        "+- gcp:serviceaccount/account:Account gpu-renamed-node-sa  [renamed from gpu-node-sa]",
        "= gpu-components:index:GkeGpuNodePool gpu-renamed  [renamed from gpu]",
        "0 to create, 0 to update, 4 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes;"
        " 1 renamed by"
        " an alias and otherwise unchanged",
    ]
    assert '    accountId: "gpu-node-sa" -> "gpu-renamed-node-sa"  [forces replacement]' in text.splitlines()
    assert status == 4

    wiring = {**WIRING["gcp"], "service_account": "nodes@p.iam.gserviceaccount.com"}
    spec = COMPONENTS["gcp"][1]

    def program(name: str, alias: str | None) -> Callable[[], None]:
        from gpu_components.gcp import GkeGpuNodePool

        options = pulumi.ResourceOptions(aliases=[pulumi.Alias(name=alias)]) if alias else None
        return lambda: GkeGpuNodePool(name, {"pool": spec, **wiring}, options)

    kept, kept_status = verdict(
        tmp_path, program_plan(program("gpu", None)), program_plan(program("gpu-renamed", "gpu"))
    )
    assert kept_status == 0
    assert "= gcp:container/nodePool:NodePool gpu-renamed-node-pool  [renamed from gpu-node-pool]" in kept.splitlines()


ASKS = "  [unless the new provider's DiffConfig finds these settings need none, which cannot be asked offline]"


@pytest.mark.parametrize("cloud", sorted(COMPONENTS))
def test_a_changed_or_removed_provider_of_other_settings_replaces_the_node_pool(tmp_path: Path, cloud: str) -> None:
    """The engine replaces when the new provider's DiffConfig says the settings changed need it: known for the AWS
    provider's region (the cloud's facts), said to be unknowable offline for the others."""
    _, _, package, type_, suffix = COMPONENTS[cloud]
    old = program_plan(component_program(cloud, "gpu", provider="east", settings={"region": "east"}))
    west = program_plan(component_program(cloud, "gpu", provider="west", settings={"region": "west"}))
    moved, moved_status = verdict(tmp_path, old, west)
    removed, removed_status = verdict(tmp_path, old, program_plan(component_program(cloud, "gpu")))

    provider = f"urn:pulumi:dev::p::pulumi:providers:{package}::"
    note = "" if cloud == "aws" else ASKS
    region = "  [forces replacement]" if cloud == "aws" else ""
    lines = moved.splitlines()
    at = lines.index(f'    (provider): "{provider}east" -> "{provider}west"  [forces replacement]{note}')
    assert lines[at + 1] == f'    (provider settings) region: "east" -> "west"{region}'
    lines = removed.splitlines()
    at = lines.index(f'    (provider): "{provider}east" -> (the default provider)  [forces replacement]{note}')
    assert lines[at + 1] == f'    (provider settings) region: "east" -> (none){region}'
    for text in (moved, removed):
        assert any(line.startswith(f"+- {type_} gpu-{suffix}") for line in text.splitlines())
    assert (moved_status, removed_status) == (4, 4)


@pytest.mark.parametrize("cloud", ["azure", "gcp"])
def test_changed_settings_of_a_node_pools_provider_may_replace_it(tmp_path: Path, cloud: str) -> None:
    """The engine asks the provider (DiffConfig) whether new settings replace what it manages; offline the diff cannot
    ask, so a node pool under a provider whose settings changed is flagged as drained, never shown as safe."""
    _, _, package, type_, suffix = COMPONENTS[cloud]
    old = program_plan(component_program(cloud, "gpu", provider="p", settings={"region": "west"}))
    text, status = verdict(
        tmp_path, old, program_plan(component_program(cloud, "gpu", provider="p", settings={"region": "east"}))
    )

    lines = text.splitlines()
    pool_line = lines.index(
        f"~ {type_} gpu-{suffix}  [drains nodes: its provider's settings changed: the provider decides whether that"
        " replaces every resource it manages (DiffConfig), which cannot be asked offline]"
    )
    assert lines[pool_line + 1] == '    (provider settings) region: "west" -> "east"'
    assert f"~ pulumi:providers:{package} p" in lines
    assert status == 4


def test_a_changed_aws_provider_region_replaces_the_node_group(tmp_path: Path) -> None:
    """pulumi-aws's DiffConfig replaces every resource of a provider whose region changed (the AWS facts)."""
    old = program_plan(component_program("aws", "gpu", provider="p", settings={"region": "us-west-2"}))
    text, status = verdict(
        tmp_path, old, program_plan(component_program("aws", "gpu", provider="p", settings={"region": "us-east-1"}))
    )

    lines = text.splitlines()
    at = lines.index(f"+- {NODE_GROUP} gpu-node-group")
    assert lines[at + 1] == '    (provider settings) region: "us-west-2" -> "us-east-1"  [forces replacement]'
    assert status == 4


@pytest.mark.stack
def test_a_default_providers_changed_region_replaces_every_node_group_it_manages(tmp_path: Path) -> None:
    """``aws:region`` in the stack config is the default AWS provider's setting: the diff lists it on every resource
    that provider manages, and pulumi-aws replaces them all for it (it read "no changes", exit 0, before the plan kept
    its config)."""
    text, status = verdict(tmp_path, *stack_plans("aws-eks", config("aws:region", "us-east-1")))

    lines = text.splitlines()
    node_groups = [line for line in lines if line.startswith(f"+- {NODE_GROUP} ")]
    assert node_groups == [
        f"+- {eks('a100-mig')}",
        f"+- {eks('a10g-shared')}",
        f"+- {NODE_GROUP} gpu-demo-system",
    ]
    assert lines[lines.index(node_groups[0]) + 1] == (
        '    (provider settings) region: "us-west-2" -> "us-east-1"  [forces replacement]'
    )
    assert lines[-1].endswith("3 resource(s) draining nodes")
    assert status == 4


@pytest.mark.stack
def test_a_default_providers_changed_location_drains_every_aks_agent_pool(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("azure-aks", config("azure-native:location", "westus2")))

    assert [line for line in text.splitlines() if line.startswith(f"~ {AGENT_POOL} ")] == [
        f"~ {aks('a100mig')}{PROVIDER_SETTINGS_DRAIN}",
        f"~ {aks('gb200')}{PROVIDER_SETTINGS_DRAIN}",
        f"~ {aks('t4spot')}{PROVIDER_SETTINGS_DRAIN}",
    ]
    assert status == 4


def cluster(**settings: Any) -> Edit:
    """An edit that changes the example cluster's settings in the stack config."""

    def edit(stack_config: dict[str, Any]) -> None:
        stack_config["gpu-components:cluster"].update(settings)

    return edit


@pytest.mark.stack
def test_moving_the_example_aks_cluster_replaces_it_and_its_resource_group(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("azure-aks", cluster(location="westus2")))

    assert [line for line in text.splitlines() if not line.startswith(" ")][1:] == [
        "+- azure-native:containerservice:ManagedCluster gpudemo",
        "+- azure-native:resources:ResourceGroup gpudemo-rg",
        "0 to create, 0 to update, 2 to replace, 0 to delete; 0 output change(s); 1 resource(s) draining nodes",
    ]
    assert '    location: "eastus" -> "westus2"  [forces replacement]' in text.splitlines()
    assert status == 4


@pytest.mark.stack
def test_moving_the_example_gke_cluster_replaces_it_and_every_node_pool(tmp_path: Path) -> None:
    text, status = verdict(tmp_path, *stack_plans("gcp-gke", cluster(location="us-central1-b")))

    assert [line for line in text.splitlines() if line.startswith("+- ")] == [
        "+- gcp:container/cluster:Cluster gpu-demo",
        f"+- {gke('a100-mig')}{DBR}",
        f"+- {gke('b200-mig')}{DBR}",
        f"+- {gke('l4-shared')}{DBR}",
        f"+- {NODE_POOL} gpu-demo-system",
    ]
    assert status == 4
