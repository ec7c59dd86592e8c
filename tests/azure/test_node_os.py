"""The node OS of AKS GPU pools (an agent pool's ``agent_pool_args.os_sku``, a NAP node class's ``imageFamily``), AKS's
managed GPU experience on NAP pools (``node_class_spec.tags``), and the GPU Operator across OS families: through each
component, ``GpuCluster``, the stack config and the package's ``Construct``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gpu_components.azure import AksGpuNodePool, AksNapGpuNodePool
from gpu_components.azure.facts import (
    SOURCE_AZURE_LINUX_2_RETIREMENT,
    SOURCE_GPU_OS,
    SOURCE_GRACE_BLACKWELL_IMAGE,
    SOURCE_MANAGED_GPU,
    SOURCE_OPERATOR_ONE_OS,
    SOURCE_OS_SKUS,
)
from gpu_components.azure.nap import SOURCE_AKS_NODE_CLASS, nap_pool_view
from gpu_components.cli import main
from gpu_components.cluster import GpuCluster, GpuClusterArgs
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.kubernetes import NvidiaGpuOperator
from gpu_components.spec import GpuNodePoolSpec
from tests.crd_schemas import problems as crd_problems
from tests.helpers import ROOT, copy_example_project, plan_of, resource
from tests.test_package_construct import construct_error

WIRING = {"resource_group_name": "rg", "cluster_name": "gpu"}
NAP = "node-auto-provisioning"
T4 = {"name": "t4", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2}
GB200 = {"name": "gb", "instance_type": "Standard_ND128isr_NDR_GB200_v6", "max_size": 2}
T4_NAP: dict[str, Any] = {
    "name": "t4nap",
    "instance_type": "Standard_NC8as_T4_v3",
    "provisioning": {"provisioner": NAP, "max_nodes": 2},
}
GB300_NAP: dict[str, Any] = {
    "name": "gbnap",
    "instance_type": "Standard_ND128isr_GB300_v6",
    "provisioning": {"provisioner": NAP, "max_nodes": 2},
}
SKUS = "Ubuntu, Ubuntu2204, Ubuntu2404, AzureLinux, AzureLinux3"
FAMILIES = "Ubuntu, Ubuntu2204, Ubuntu2404, AzureLinux"
MANAGED = {"tags": {"EnableManagedGPUExperience": "true"}}
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"
RELEASE = "kubernetes:helm.sh/v3:Release"


def raised(build: Any) -> list[Problem]:
    with pytest.raises(GpuSpecError) as error:
        plan_of(build)
    return list(error.value.problems)


def agent_pool(pool: dict[str, Any], **args: Any) -> list[Problem]:
    return raised(lambda: AksGpuNodePool("p", {"pool": pool, **WIRING, **args}))  # type: ignore[typeddict-item]


def nap_pool(pool: dict[str, Any], **args: Any) -> list[Problem]:
    return raised(lambda: AksNapGpuNodePool("p", {"pool": pool, **args}))  # type: ignore[typeddict-item]


def cluster(*pools: dict[str, Any], **args: Any) -> list[Problem]:
    cluster_args = {"cloud": "azure", "azure": WIRING, "pools": list(pools), **args}
    return raised(lambda: GpuCluster("c", cluster_args))  # type: ignore[arg-type]


RETIRED = "Azure Linux 2.0 is retired on AKS (support ended 2025-11-30), so a GPU pool cannot use it"
WINDOWS = (
    "a Windows OS SKU; the library makes Linux GPU pools (osType Linux), served by NVIDIA's Linux device plugin or "
    "GPU Operator, so a GPU pool cannot use it"
)


@pytest.mark.parametrize(
    ("os_sku", "expected"),
    [
        (
            "Flatcar",
            Problem(
                "agent_pool_args.os_sku",
                "Flatcar",
                "Flatcar Container Linux for AKS has no NVIDIA GPU support on AKS, so a GPU pool cannot use it",
                SKUS,
                SOURCE_GPU_OS,
            ),
        ),
        (
            "AzureLinuxOSGuard",
            Problem(
                "agent_pool_args.os_sku",
                "AzureLinuxOSGuard",
                "Azure Linux with OS Guard has no NVIDIA GPU support on AKS, so a GPU pool cannot use it",
                SKUS,
                SOURCE_GPU_OS,
            ),
        ),
        (
            "CBLMariner",
            Problem("agent_pool_args.os_sku", "CBLMariner", RETIRED, SKUS, SOURCE_AZURE_LINUX_2_RETIREMENT),
        ),
        ("Windows2022", Problem("agent_pool_args.os_sku", "Windows2022", WINDOWS, SKUS, SOURCE_OS_SKUS)),
        (
            "ubuntu2404",
            Problem(
                "agent_pool_args.os_sku",
                "ubuntu2404",
                "not an agent pool osSku AKS runs NVIDIA GPU nodes with; did you mean 'Ubuntu2404'?",
                SKUS,
                SOURCE_OS_SKUS,
            ),
        ),
        (
            "Debian",
            Problem(
                "agent_pool_args.os_sku",
                "Debian",
                "not an agent pool osSku AKS runs NVIDIA GPU nodes with",
                SKUS,
                SOURCE_OS_SKUS,
            ),
        ),
    ],
    ids=["flatcar", "os-guard", "azure-linux-2", "windows", "misspelt", "unknown"],
)
def test_an_agent_pool_os_sku_without_nvidia_gpu_support_is_refused(os_sku: str, expected: Problem) -> None:
    assert agent_pool(T4, agent_pool_args={"os_sku": os_sku}) == [expected]


@pytest.mark.parametrize("os_sku", ["Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux", "AzureLinux3"])
def test_an_agent_pool_takes_each_gpu_os_sku_as_given(os_sku: str) -> None:
    plan = plan_of(lambda: AksGpuNodePool("p", {"pool": T4, **WIRING, "agent_pool_args": {"os_sku": os_sku}}))  # type: ignore[typeddict-item]
    assert resource(plan, "azure-native:containerservice:AgentPool", "p-agent-pool").inputs["osSKU"] == os_sku


GB200_AZURE_LINUX = Problem(
    "agent_pool_args.os_sku",
    "AzureLinux3",
    "AKS runs Standard_ND128isr_NDR_GB200_v6 (GB200) on Ubuntu only: no Azure Linux node image or GPU driver "
    "install for it",
    "Ubuntu, Ubuntu2204, Ubuntu2404 (or leave it unset: Ubuntu)",
    SOURCE_GRACE_BLACKWELL_IMAGE,
)


def test_azure_linux_on_a_grace_blackwell_agent_pool_is_refused_at_every_entry_point(tmp_path: Path) -> None:
    args = {"os_sku": "AzureLinux3"}
    assert agent_pool(GB200, agent_pool_args=args) == [GB200_AZURE_LINUX]
    in_cluster = GB200_AZURE_LINUX.under("pools[0].azure")
    assert cluster({**GB200, "azure": {"agent_pool_args": args}}) == [in_cluster]
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.azure-aks.yaml").read_text())
    stack["config"]["gpu-components:pools"] = [{**GB200, "azure": {"agent_pool_args": args}}]
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    result = CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [f"  - {in_cluster}"]
    pool = {"name": "gb", "instanceType": "Standard_ND128isr_NDR_GB200_v6", "maxSize": 2}
    error = construct_error(
        "AksGpuNodePool", {"pool": pool, "resourceGroupName": "rg", "clusterName": "aks", "agentPoolArgs": args}
    )
    assert [str(problem) for problem in error.problems] == [
        str(GB200_AZURE_LINUX).replace("agent_pool_args", "agentPoolArgs")
    ]


def test_a_nap_image_family_is_checked_like_an_os_sku() -> None:
    assert nap_pool(T4_NAP, node_class_spec={"imageFamily": "AzureLinux3"}) == [
        Problem(
            "node_class_spec.imageFamily",
            "AzureLinux3",
            "not an AKSNodeClass imageFamily AKS runs NVIDIA GPU nodes with; did you mean 'AzureLinux'?",
            FAMILIES,
            SOURCE_AKS_NODE_CLASS,
        )
    ]
    assert nap_pool(T4_NAP, node_class_spec={"imageFamily": "Flatcar"}) == [
        Problem(
            "node_class_spec.imageFamily",
            "Flatcar",
            "Flatcar Container Linux for AKS has no NVIDIA GPU support on AKS, so a GPU pool cannot use it",
            FAMILIES,
            SOURCE_GPU_OS,
        )
    ]


def test_azure_linux_on_a_grace_blackwell_nap_pool_is_refused_through_the_component_and_the_cluster() -> None:
    expected = Problem(
        "node_class_spec.imageFamily",
        "AzureLinux",
        "AKS runs Standard_ND128isr_GB300_v6 (GB300) on Ubuntu only: no Azure Linux node image or GPU driver install "
        "for it",
        "Ubuntu, Ubuntu2204, Ubuntu2404 (or leave it unset: Ubuntu)",
        SOURCE_GRACE_BLACKWELL_IMAGE,
    )
    spec = {"imageFamily": "AzureLinux"}
    assert nap_pool(GB300_NAP, node_class_spec=spec) == [expected]
    assert cluster({**GB300_NAP, "azure": {"node_class_spec": spec}}) == [expected.under("pools[0].azure")]


def test_node_class_tags_are_a_map_of_strings() -> None:
    assert nap_pool(T4_NAP, node_class_spec={"tags": "EnableManagedGPUExperience=true"}) == [
        Problem(
            "node_class_spec.tags",
            "EnableManagedGPUExperience=true",
            "AKSNodeClass tags are a map of tag name to string value, not a string or list",
            "a mapping such as {EnableManagedGPUExperience: 'true'}",
            SOURCE_AKS_NODE_CLASS,
        )
    ]
    assert nap_pool(T4_NAP, node_class_spec={"tags": {"team": 7}}) == [
        Problem(
            "node_class_spec.tags['team']",
            7,
            "an AKSNodeClass tag value is a string",
            "a string",
            SOURCE_AKS_NODE_CLASS,
        )
    ]
    error = construct_error(
        "AksNapGpuNodePool",
        {
            "pool": {
                "name": "t4nap",
                "instanceType": "Standard_NC8as_T4_v3",
                "provisioning": {"provisioner": NAP, "maxNodes": 2},
            },
            "nodeClassSpec": {"tags": "EnableManagedGPUExperience=true"},
        },
    )
    assert [(p.path, p.value) for p in error.problems] == [("nodeClassSpec.tags", "EnableManagedGPUExperience=true")]


def test_a_managed_gpu_nap_pool_gets_no_device_plugin_from_the_library() -> None:
    pool = {**T4_NAP, "azure": {"node_class_spec": MANAGED}}
    args: GpuClusterArgs = {"cloud": "azure", "azure": WIRING, "pools": [pool]}  # type: ignore[typeddict-item]
    plan = plan_of(lambda: GpuCluster("c", args))
    assert [r.name for r in plan.resources if r.type == RELEASE] == []
    node_pool = resource(plan, NODE_POOL, "c-t4nap-node-pool").inputs
    assert node_pool["spec"]["template"]["metadata"]["labels"] == {"gpu-components/pool": "t4nap"}
    node_class = resource(plan, NODE_CLASS, "c-t4nap-node-class").inputs
    assert node_class["spec"]["tags"] == {"EnableManagedGPUExperience": "true"}
    for planned in (node_pool, node_class):
        cr = {key: planned[key] for key in ("apiVersion", "kind", "metadata", "spec")}
        assert crd_problems(json.loads(json.dumps(cr)), "azure") == []
    component = AksNapGpuNodePool  # the standalone component says the same
    standalone = plan_of(lambda: component("p", {"pool": T4_NAP, "node_class_spec": MANAGED}))  # type: ignore[typeddict-item]
    assert resource(standalone, NODE_POOL, "p-node-pool").inputs["spec"]["template"]["metadata"]["labels"] == {
        "gpu-components/pool": "t4nap"
    }


TAG = "node_class_spec.tags['EnableManagedGPUExperience']"
TAGGED = "EnableManagedGPUExperience=true makes AKS run NVIDIA's device plugin on the pool's nodes"
TWO_ADVERTISERS = (
    f"{TAGGED}, and the GPU Operator's device plugin would advertise the same GPUs: two advertisers on one node"
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"gpu_stack": "gpu-operator"},
            TWO_ADVERTISERS,
        ),
        (
            {"gpu_stack": "gpu-operator", "gpu_driver": "none"},
            f"{TAGGED} only where AKS installs the driver; with gpu_driver none it does nothing",
        ),
        (
            {"pool": {**T4_NAP, "time_slicing": {"replicas": 4}}},
            f"{TAGGED}, which gets no time-slicing or MPS config from the library: the pool's sharing would be "
            "silently lost",
        ),
    ],
    ids=["operator", "no-driver", "time-slicing"],
)
def test_a_managed_gpu_tag_where_aks_would_not_advertise_alone_is_refused(args: dict[str, Any], message: str) -> None:
    given = {"pool": T4_NAP, "node_class_spec": MANAGED, **args}
    found = raised(lambda: AksNapGpuNodePool("p", given))  # type: ignore[arg-type]
    assert [(p.path, p.value, p.message, p.source) for p in found] == [(TAG, "true", message, SOURCE_MANAGED_GPU)]


def test_the_managed_gpu_tag_name_matches_in_any_case_on_a_nap_pool() -> None:
    given = {"pool": T4_NAP, "node_class_spec": {"tags": {"enableManagedGpuExperience": "true"}}}
    found = raised(lambda: AksNapGpuNodePool("p", {**given, "gpu_stack": "gpu-operator"}))  # type: ignore[arg-type]
    assert [(p.path, p.value, p.message) for p in found] == [
        (
            "node_class_spec.tags['enableManagedGpuExperience']",
            "true",
            TWO_ADVERTISERS,
        )
    ]
    plan = plan_of(lambda: AksNapGpuNodePool("p", given))  # type: ignore[arg-type]
    assert [r.name for r in plan.resources if r.type == RELEASE] == []


def test_the_gpu_cluster_refuses_the_managed_gpu_tag_under_the_operator_and_the_device_plugin_stack() -> None:
    pool = {**T4_NAP, "azure": {"node_class_spec": MANAGED}}
    [operator] = cluster(pool, gpu_stack="gpu-operator")
    assert (operator.path, operator.message) == (
        f"pools[0].azure.{TAG}",
        TWO_ADVERTISERS,
    )
    [plugin] = cluster(pool, gpu_stack="device-plugin")
    assert (plugin.path, plugin.message) == (
        "gpu_stack",
        "pools[0] is served by azure's own device plugin, which the NVIDIA device plugin may not run beside",
    )


MIXED_OS = (
    "the GPU Operator serves pools of more than one node OS (Azure Linux: t4al; Ubuntu: t4); its driver and container "
    "toolkit are per OS and AKS documents it as not compatible with several OS versions in one cluster: keep its "
    f"pools on one OS family and version [source: {SOURCE_OPERATOR_ONE_OS}]"
)
AZURE_LINUX_T4 = {**T4, "name": "t4al", "azure": {"agent_pool_args": {"os_sku": "AzureLinux"}}}


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if "node OS" in record.getMessage()]


def test_a_gpu_operator_spanning_ubuntu_and_azure_linux_pools_is_warned(caplog: pytest.LogCaptureFixture) -> None:
    args: GpuClusterArgs = {
        "cloud": "azure",
        "azure": WIRING,
        "gpu_stack": "gpu-operator",
        "pools": [T4, AZURE_LINUX_T4],
    }  # type: ignore[typeddict-item]
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: GpuCluster("c", args))
    assert warnings(caplog) == [f"gpu-components:index:NvidiaGpuOperator (c-gpu-operator): {MIXED_OS}"]
    caplog.clear()
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: NvidiaGpuOperator("op", {"cloud": "azure", "pools": [T4, AZURE_LINUX_T4]}))  # type: ignore[list-item]
    assert warnings(caplog) == [f"gpu-components:index:NvidiaGpuOperator (op): {MIXED_OS}"]


def _os_pool(name: str, os_sku: str) -> dict[str, Any]:
    return {**T4, "name": name, "azure": {"agent_pool_args": {"os_sku": os_sku}}}


def _operator_warnings(caplog: pytest.LogCaptureFixture, *pools: dict[str, Any]) -> list[str]:
    args: GpuClusterArgs = {"cloud": "azure", "azure": WIRING, "gpu_stack": "gpu-operator", "pools": list(pools)}  # type: ignore[typeddict-item]
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: GpuCluster("c", args))
    return warnings(caplog)


def test_a_gpu_operator_spanning_two_ubuntu_versions_is_warned(caplog: pytest.LogCaptureFixture) -> None:
    pools = (_os_pool("t4a", "Ubuntu2204"), _os_pool("t4b", "Ubuntu2404"))
    assert _operator_warnings(caplog, *pools) == [
        "gpu-components:index:NvidiaGpuOperator (c-gpu-operator): "
        "the GPU Operator serves pools of more than one node OS (Ubuntu 22.04: t4a; Ubuntu 24.04: t4b); its driver "
        "and container toolkit are per OS and AKS documents it as not compatible with several OS versions in one "
        f"cluster: keep its pools on one OS family and version [source: {SOURCE_OPERATOR_ONE_OS}]"
    ]


@pytest.mark.parametrize(
    "os_skus",
    [("Ubuntu", "Ubuntu2404"), ("Ubuntu", "Ubuntu2204"), ("Ubuntu2404", "Ubuntu2404"), ("AzureLinux", "AzureLinux3")],
)
def test_a_gpu_operator_on_one_os_family_and_at_most_one_named_version_is_not_warned(
    caplog: pytest.LogCaptureFixture, os_skus: tuple[str, str]
) -> None:
    # Ubuntu (or AzureLinux) alone is AKS's default version for the Kubernetes version: maybe the named one.
    assert _operator_warnings(caplog, _os_pool("t4a", os_skus[0]), _os_pool("t4b", os_skus[1])) == []


def nap_stack(tmp_path: Path, pools: list[dict[str, Any]], *args: str, gpu_stack: str = "gpu-operator") -> Any:
    """`gpu-components plan t` of the NAP example stack (under the GPU Operator) with ``pools`` and ``gpu_stack``."""
    copy_example_project(tmp_path)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.azure-aks-nap.yaml").read_text())
    stack["config"]["gpu-components:pools"] = pools
    stack["config"]["gpu-components:gpu_stack"] = gpu_stack
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    return CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path), *args])


def test_the_stack_config_checks_a_nap_pools_image_family_and_tags(tmp_path: Path) -> None:
    pools = [
        {**GB300_NAP, "azure": {"node_class_spec": {"imageFamily": "AzureLinux"}}},
        {**T4_NAP, "azure": {"node_class_spec": {"tags": "EnableManagedGPUExperience=true"}}},
    ]
    result = nap_stack(tmp_path, pools)
    assert result.exit_code == 1
    assert [line.split(" (got")[0] for line in result.output.splitlines()[1:]] == [
        "  - pools[0].azure.node_class_spec.imageFamily: AKS runs Standard_ND128isr_GB300_v6 (GB300) on Ubuntu only: "
        "no Azure Linux node image or GPU driver install for it",
        "  - pools[1].azure.node_class_spec.tags: AKSNodeClass tags are a map of tag name to string value, not a "
        "string or list",
    ]
    error = construct_error(
        "AksNapGpuNodePool",
        {
            "pool": {
                "name": "gbnap",
                "instanceType": "Standard_ND128isr_GB300_v6",
                "provisioning": {"provisioner": NAP, "maxNodes": 2},
            },
            "nodeClassSpec": {"imageFamily": "AzureLinux"},
        },
    )
    assert [(p.path, p.value, p.source) for p in error.problems] == [
        ("nodeClassSpec.imageFamily", "AzureLinux", SOURCE_GRACE_BLACKWELL_IMAGE)
    ]


def test_the_stack_config_leaves_a_managed_gpu_nap_pool_to_aks(tmp_path: Path) -> None:
    pools = [{**T4_NAP, "azure": {"node_class_spec": MANAGED}}]
    result = nap_stack(tmp_path, pools, "--format", "json", gpu_stack="auto")
    assert result.exit_code == 0, result.output
    resources = json.loads(result.stdout)["resources"]
    assert [r for r in resources if r["type"] == RELEASE] == []
    [node_class] = [r for r in resources if r["type"] == NODE_CLASS]
    assert node_class["inputs"]["spec"]["tags"] == {"EnableManagedGPUExperience": "true"}


def test_the_managed_gpu_tag_name_matches_in_any_case_on_an_agent_pool() -> None:
    assert [(p.path, p.value) for p in agent_pool(T4, tags={"enableManagedGpuExperience": "true"})] == [
        ("tags['enableManagedGpuExperience']", "true")
    ]


def test_the_managed_gpu_tag_on_an_agent_pool_is_refused() -> None:
    assert agent_pool(T4, tags={"EnableManagedGPUExperience": "True", "team": "ml"}) == [
        Problem(
            "tags['EnableManagedGPUExperience']",
            "True",
            "AKS would run NVIDIA's device plugin on the agent pool's nodes beside the library's GPU stack (two "
            "advertisers); the library leaves GPUs to AKS on Node Auto Provisioning pools only (node_class_spec.tags)",
            "no such tag",
            SOURCE_MANAGED_GPU,
        )
    ]
    plan = plan_of(lambda: AksGpuNodePool("p", {"pool": T4, **WIRING, "tags": {"EnableManagedGPUExperience": "false"}}))  # type: ignore[typeddict-item]
    assert (
        resource(plan, "azure-native:containerservice:AgentPool", "p-agent-pool").inputs["tags"][
            "EnableManagedGPUExperience"
        ]
        == "false"
    )


def test_a_managed_gpu_nap_pool_under_the_dra_stack_keeps_the_operators_operands_off() -> None:
    pool = {**T4_NAP, "gpu_access": "device-plugin"}
    view = nap_pool_view(GpuNodePoolSpec.from_args(pool, "azure"), None, "dra", MANAGED)  # type: ignore[arg-type]
    assert (view.device_plugin_host, view.labels) == (
        "cloud",
        {"gpu-components/pool": "t4nap", "nvidia.com/gpu.deploy.operands": "false"},
    )
