"""The add-ons' Helm escape hatches cannot remove what advertises the GPUs or where it runs: the device plugin's
``devicePlugin.enabled`` and ``nodeSelector``, the GPU Operator's ``nfd.enabled`` (on every cloud: nothing else gives
the nodes NFD's PCI label), at the component, ``GpuCluster`` and the stack config; and a section two owned lists share
is refused once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaDraDriver
from tests.helpers import plan_of
from tests.test_bad_inputs import CLUSTER_ARGS, GKE_L4, L4, cluster, nodes, operator, plugin
from tests.test_config_rejections import plan_stack

DEVICE_PLUGIN_ENABLED = (
    "helm_values.devicePlugin.enabled: decided by the library: the device plugin DaemonSet is what advertises the "
    "pools' GPUs; without it the chart installs none and no pod gets a GPU (got False); valid: leave it to the library"
)
NODE_SELECTOR = (
    "helm_values.nodeSelector: decided by the library: the DaemonSet runs on every node of the pools it serves (the "
    "library's affinity); a node selector would keep it off some, whose GPUs nothing would advertise "
    "(got {'team': 'ml'}); valid: leave it to the library"
)
NFD = (
    "helm_values.nfd.enabled: decided by the library: the operator finds its GPU nodes by the label Node Feature "
    "Discovery gives them (feature.node.kubernetes.io/pci-10de.present), and NVIDIA turns NFD off only where NFD "
    "already runs; the library runs no other NFD and sets no such label (a pool may not), on any cloud, so no operand "
    "would run (got False); valid: leave it to the library"
)
T4 = {"name": "t4", "instance_type": "Standard_NC4as_T4_v3", "max_size": 2}


def problems(build: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(build)
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize(
    ("values", "expected"),
    [({"devicePlugin": {"enabled": False}}, DEVICE_PLUGIN_ENABLED), ({"nodeSelector": {"team": "ml"}}, NODE_SELECTOR)],
    ids=["device-plugin-off", "node-selector"],
)
def test_device_plugin_helm_values_cannot_remove_the_advertiser_or_its_placement(
    values: dict[str, Any], expected: str
) -> None:
    assert problems(plugin(nodes("aws", L4), helm_values=values)) == [expected]
    assert problems(cluster({**CLUSTER_ARGS, "device_plugin": {"helm_values": values}})) == [
        f"device_plugin.{expected}"
    ]


def test_device_plugin_helm_values_devicePlugin_must_be_a_mapping() -> None:
    assert problems(plugin(nodes("aws", L4), helm_values={"devicePlugin": "off"})) == [
        "helm_values.devicePlugin: decided by the library: the device plugin DaemonSet is what advertises the pools' "
        "GPUs; without it the chart installs none and no pod gets a GPU (got 'off'); valid: leave it to the library"
    ]


@pytest.mark.stack
def test_stack_config_refuses_device_plugin_values_that_turn_it_off(tmp_path: Path) -> None:
    values = {"devicePlugin": {"enabled": False}, "nodeSelector": {"team": "ml"}}
    result = plan_stack(tmp_path, "aws-eks", {"gpu-components:device_plugin": {"helm_values": values}})
    assert result.exit_code == 1
    assert f"  - device_plugin.{NODE_SELECTOR}\n" in result.output
    assert f"  - device_plugin.{DEVICE_PLUGIN_ENABLED}\n" in result.output


@pytest.mark.parametrize(("cloud", "pool"), [("aws", L4), ("azure", T4), ("gcp", GKE_L4)], ids=["eks", "aks", "gke"])
def test_gpu_operator_refuses_nfd_off_on_every_cloud(cloud: str, pool: dict[str, Any]) -> None:
    values = {"nfd": {"enabled": False}}
    assert problems(operator(nodes(cloud, pool, gpu_stack="gpu-operator"), helm_values=values)) == [NFD]


def test_gpu_cluster_refuses_nfd_off() -> None:
    args = {**CLUSTER_ARGS, "gpu_stack": "gpu-operator", "gpu_operator": {"helm_values": {"nfd": {"enabled": False}}}}
    assert problems(cluster(args)) == [f"gpu_operator.{NFD}"]


@pytest.mark.stack
def test_stack_config_refuses_nfd_off(tmp_path: Path) -> None:
    change = {"gpu-components:gpu_operator": {"helm_values": {"nfd": {"enabled": False}}}}
    result = plan_stack(tmp_path, "aws-eks-operator", change)
    assert result.exit_code == 1
    assert f"  - gpu_operator.{NFD}\n" in result.output


def test_a_driver_section_given_as_a_scalar_is_refused_once() -> None:
    # Before, GpuCluster reported it twice: as the operator's and as the driver owner's section.
    expected = (
        "helm_values.driver: decided by the library: one driver owner per pool: set operator_driver (got 3); valid: "
    )
    args = {**CLUSTER_ARGS, "gpu_stack": "gpu-operator", "gpu_operator": {"helm_values": {"driver": 3}}}
    assert problems(cluster(args)) == [f"gpu_operator.{expected}gpu_operator.operator_driver"]
    assert problems(operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"driver": 3})) == [
        f"{expected}operator_driver"
    ]


@pytest.mark.parametrize(
    ("values", "path", "expected"),
    [
        ([1], "helm_values", "input should be a valid dictionary (got [1]); valid: a mapping of key: value pairs"),
        (
            {"resources": 3},
            "helm_values.resources",
            "decided by the library: the driver publishes the pools' GPUs (got 3); valid: leave it to the library",
        ),
        (
            {"kubeletPlugin": None},
            "helm_values.kubeletPlugin",
            "decided by the library: the kubelet plugin runs only on the DRA pools, never beside a device plugin "
            "(got None); valid: leave it to the library",
        ),
    ],
    ids=["list", "resources-scalar", "kubelet-plugin-null"],
)
def test_dra_driver_helm_values_not_a_mapping_are_one_error_at_each_entry_point(
    values: object, path: str, expected: str
) -> None:
    pool = {**L4, "name": "dra-l4"}
    component = {"cloud": "aws", "kubernetes_version": "1.34", "pools": [pool], "helm_values": values}
    assert problems(lambda: NvidiaDraDriver("d", component)) == [f"{path}: {expected}"]  # type: ignore[arg-type]
    args = {
        **CLUSTER_ARGS,
        "pools": [pool],
        "gpu_stack": "dra",
        "dra": {"kubernetes_version": "1.34", "helm_values": values},
    }
    assert problems(cluster(args)) == [f"dra.{path}: {expected}"]
