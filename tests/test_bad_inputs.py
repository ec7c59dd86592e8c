"""Bad input to every public component, each used on its own and through GpuCluster: always a clean
``pulumi.InputPropertiesError`` (our ``GpuSpecError``) naming the field, and nothing registered by the component.

Each case builds, inside a program run under the plan's mocks, whatever valid pools it needs first (their resources
are the only ones allowed in the plan), then the component with the bad input, and checks the problems' paths and a
key part of each message.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi
import pytest
from typing_extensions import NotRequired, Required, is_typeddict

from gpu_components import GpuCluster
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.aws.cluster import EksClusterConfig
from gpu_components.aws.eks import EksGpuNodeGroupArgs
from gpu_components.azure import AksGpuNodePool
from gpu_components.azure.aks import AksGpuNodePoolArgs
from gpu_components.azure.cluster import AksClusterConfig
from gpu_components.cluster import ClusterPoolArgs, GpuClusterArgs
from gpu_components.errors import GpuSpecError
from gpu_components.gcp import GkeGpuNodePool
from gpu_components.gcp.cluster import GkeClusterConfig
from gpu_components.gcp.gke import GkeGpuNodePoolArgs
from gpu_components.kubernetes import NvidiaDevicePlugin, NvidiaGpuOperator
from gpu_components.kubernetes.device_plugin import NvidiaDevicePluginArgs
from gpu_components.kubernetes.gpu_operator import NvidiaGpuOperatorArgs
from gpu_components.shape import args_problems, shape_problems
from gpu_components.spec import GpuNodePoolArgs
from gpu_components.workloads import gpu_pod_settings
from tests.helpers import WIRING, plan_of, pool_components

L4 = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2}
A10G_SHARED = {"name": "a10g", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 4}}
A100_MIG = {"name": "mig", "instance_type": "p4d.24xlarge", "max_size": 1, "mig": {"profile": "1g.5gb"}}
T4_SPOT = {"name": "t4spot", "instance_type": "Standard_NC8as_T4_v3", "max_size": 2, "spot": True}
GKE_L4 = {"name": "l4", "instance_type": "g2-standard-8", "max_size": 2}
BOTTLEROCKET = {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}


def eks(args: Any) -> Callable[[], object]:
    return lambda: EksGpuNodeGroup("bad", args)


def aks(args: Any) -> Callable[[], object]:
    return lambda: AksGpuNodePool("bad", args)


def gke(args: Any) -> Callable[[], object]:
    return lambda: GkeGpuNodePool("bad", args)


def plugin(pools: Callable[[], Any], **extra: Any) -> Callable[[], object]:
    return lambda: NvidiaDevicePlugin("bad", {"pools": pools(), **extra})


def operator(pools: Callable[[], Any], **extra: Any) -> Callable[[], object]:
    return lambda: NvidiaGpuOperator("bad", {"pools": pools(), **extra})


def cluster(args: Any) -> Callable[[], object]:
    return lambda: GpuCluster("bad", args)


def nodes(cloud: str, *pools: dict[str, Any], gpu_stack: str = "auto", **options: Any) -> Callable[[], list[Any]]:
    return lambda: pool_components(cloud, list(pools), gpu_stack, **options)


EKS_ARGS = {"pool": L4, **WIRING["aws"]}
AKS_ARGS = {"pool": {**L4, "instance_type": "Standard_NC4as_T4_v3"}, **WIRING["azure"]}
GKE_ARGS = {"pool": GKE_L4, **WIRING["gcp"]}
CLUSTER_ARGS = {"cloud": "aws", "aws": WIRING["aws"], "pools": [L4]}


@dataclass(frozen=True)
class Case:
    build: Callable[[], object]
    expected: list[tuple[str, str]]
    """(path, a key part of the message) of each problem, in order."""


def without(args: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k != key}


CASES: dict[str, Case] = {
    # EksGpuNodeGroup
    "eks: args not a mapping": Case(eks(None), [("args", "EksGpuNodeGroupArgs is a mapping of its fields")]),
    "eks: args a list": Case(eks([EKS_ARGS]), [("args", "is a mapping of its fields")]),
    "eks: missing cluster_name": Case(eks(without(EKS_ARGS, "cluster_name")), [("cluster_name", "required")]),
    "eks: missing subnet_ids": Case(eks(without(EKS_ARGS, "subnet_ids")), [("subnet_ids", "required field")]),
    "eks: missing pool": Case(eks(without(EKS_ARGS, "pool")), [("pool", "required field is missing")]),
    "eks: null pool": Case(eks({**EKS_ARGS, "pool": None}), [("pool", "must not be null")]),
    "eks: pool a list": Case(eks({**EKS_ARGS, "pool": [L4]}), [("pool", "valid dictionary")]),
    "eks: misspelt node_role": Case(
        eks({**EKS_ARGS, "node_role": "arn"}), [("node_role", "did you mean 'node_role_arn'?")]
    ),
    "eks: gpu_stack operator": Case(eks({**EKS_ARGS, "gpu_stack": "operator"}), [("gpu_stack", "allowed values")]),
    "eks: null gpu_stack": Case(eks({**EKS_ARGS, "gpu_stack": None}), [("gpu_stack", "leave the field out")]),
    "eks: ami_type a number": Case(eks({**EKS_ARGS, "ami_type": 7}), [("ami_type", "valid string")]),
    "eks: retired ami_type": Case(eks({**EKS_ARGS, "ami_type": "AL2_x86_64_GPU"}), [("ami_type", "end of support")]),
    "eks: arm AMI on x86": Case(eks({**EKS_ARGS, "ami_type": "AL2023_ARM_64_NVIDIA"}), [("ami_type", "arm64")]),
    "eks: subnet_ids a string": Case(eks({**EKS_ARGS, "subnet_ids": "subnet-1"}), [("subnet_ids", "a list")]),
    "eks: cluster_name a number": Case(eks({**EKS_ARGS, "cluster_name": 5}), [("cluster_name", "a string")]),
    "eks: tag value a number": Case(eks({**EKS_ARGS, "tags": {"team": 1}}), [("tags.team", "valid string")]),
    "eks: misspelt instance type": Case(
        eks({**EKS_ARGS, "pool": {**L4, "instance_type": "g6.xlarg"}}), [("pool.instance_type", "g6.xlarge")]
    ),
    "eks: taint effect in the EKS API's spelling": Case(
        eks({**EKS_ARGS, "pool": {**L4, "taints": [{"key": "k", "effect": "NO_SCHEDULE"}]}}),
        [("pool.taints[0].effect", "NoSchedule")],
    ),
    "eks: replicas as a string": Case(
        eks({**EKS_ARGS, "pool": {**L4, "time_slicing": {"replicas": "4"}}}),
        [("pool.time_slicing.replicas", "must be a whole number")],
    ),
    "eks: time_slicing.trusted a string": Case(
        eks({**EKS_ARGS, "pool": {**L4, "time_slicing": {"replicas": 4, "trusted": "yes"}}}),
        [("pool.time_slicing.trusted", "valid boolean; valid: true, false")],
    ),
    "eks: the sharing trust mark as a user label": Case(
        eks({**EKS_ARGS, "pool": {**L4, "labels": {"gpu-components/sharing": "trusted"}}}),
        [("pool.labels['gpu-components/sharing']", "valid: time_slicing: {trusted: true} or mps: {trusted: true}")],
    ),
    "eks: MIG on L4": Case(eks({**EKS_ARGS, "pool": {**L4, "mig": {"profile": "1g.10gb"}}}), [("pool.mig", "MIG")]),
    "eks: null pool field": Case(
        eks({**EKS_ARGS, "pool": {**L4, "labels": None}}), [("pool.labels", "must not be null; leave the field out")]
    ),
    "eks: max_size 0": Case(eks({**EKS_ARGS, "pool": {**L4, "max_size": 0}}), [("pool.max_size", "at least one")]),
    "eks: label under EKS's reserved prefix": Case(
        eks({**EKS_ARGS, "pool": {**L4, "labels": {"eks.amazonaws.com/team": "ml"}}}),
        [("pool.labels['eks.amazonaws.com/team']", "EKS refuses keys under")],
    ),
    "eks: taint under a Kubernetes prefix": Case(
        eks({**EKS_ARGS, "pool": {**L4, "taints": [{"key": "kubernetes.io/gpu", "effect": "NoSchedule"}]}}),
        [("pool.taints[0].key", "EKS refuses keys under kubernetes.io/, k8s.io/, eks.amazonaws.com/")],
    ),
    "eks: more nodes than a node group may have": Case(
        eks({**EKS_ARGS, "pool": {**L4, "max_size": 451}}), [("pool.max_size", "<= 450")]
    ),
    "eks: MIG on AL2023 without the operator": Case(
        eks({**EKS_ARGS, "pool": A100_MIG}), [("pool.mig", "no MIG partitioning of their own")]
    ),
    "eks: Bottlerocket MIG on an RTX PRO 6000 is one problem, as written": Case(
        eks(
            {
                **EKS_ARGS,
                **BOTTLEROCKET,
                "pool": {
                    "name": "br",
                    "instance_type": "g7e.2xlarge",
                    "max_size": 1,
                    "mig": {"profile": "1g.24gb+gfx"},
                },
            }
        ),
        [("pool.mig", "and g7e.2xlarge's RTX-PRO-6000 is not one of them")],
    ),
    "eks: MIG on a GB200 names the unset ami_type's default": Case(
        eks(
            {
                **EKS_ARGS,
                "pool": {
                    "name": "gb",
                    "instance_type": "p6e-gb200.36xlarge",
                    "max_size": 1,
                    "mig": {"profile": "1g.23gb"},
                },
            }
        ),
        [("pool.mig", "nodes of the ami_type left unset (default: AL2023_ARM_64_NVIDIA) have no MIG partitioning")],
    ),
    "eks: escape hatch values of the wrong type": Case(
        eks({**EKS_ARGS, "node_group_args": {"update_config": "fast", "force_update_version": "yes"}}),
        [
            ("node_group_args.update_config", "a mapping of NodeGroupUpdateConfigArgs fields"),
            ("node_group_args.force_update_version", "must be true or false"),
        ],
    ),
    "eks: escape hatch owning key": Case(
        eks({**EKS_ARGS, "node_group_args": {"taints": []}}), [("node_group_args.taints", "set by gpu_components")]
    ),
    # AksGpuNodePool
    "aks: missing resource_group_name": Case(
        aks(without(AKS_ARGS, "resource_group_name")), [("resource_group_name", "required field is missing")]
    ),
    "aks: gpu_driver in AKS's spelling Install": Case(
        aks({**AKS_ARGS, "gpu_driver": "Install"}), [("gpu_driver", "this library spells it 'aks'")]
    ),
    "aks: gpu_driver in AKS's spelling None": Case(
        aks({**AKS_ARGS, "gpu_driver": "None"}), [("gpu_driver", "this library spells it 'none'")]
    ),
    "aks: mps.trusted a number": Case(
        aks({**AKS_ARGS, "pool": {**AKS_ARGS["pool"], "mps": {"replicas": 2, "trusted": 1}}}),
        [("pool.mps.trusted", "valid boolean; valid: true, false")],
    ),
    "aks: unknown gpu_driver": Case(aks({**AKS_ARGS, "gpu_driver": "nvidia"}), [("gpu_driver", "'aks' or 'none'")]),
    "aks: misspelt cluster": Case(
        aks({**without(AKS_ARGS, "cluster_name"), "cluster": "c"}),
        [("cluster", "did you mean 'cluster_name'?"), ("cluster_name", "required field is missing")],
    ),
    "aks: tags a list": Case(aks({**AKS_ARGS, "tags": ["a"]}), [("tags", "valid dictionary")]),
    "aks: gpu_stack with an underscore": Case(
        aks({**AKS_ARGS, "gpu_stack": "gpu_operator"}), [("gpu_stack", "'gpu-operator'")]
    ),
    "aks: spot as a string": Case(
        aks({**AKS_ARGS, "pool": {**AKS_ARGS["pool"], "spot": "yes"}}),
        [("pool.spot", "valid boolean; valid: true, false")],
    ),
    "aks: gpu_driver none under the device plugin": Case(
        aks({**AKS_ARGS, "gpu_driver": "none"}), [("gpu_driver", "stops AKS installing the NVIDIA driver")]
    ),
    "aks: label under AKS's reserved prefix": Case(
        aks({**AKS_ARGS, "pool": {**AKS_ARGS["pool"], "labels": {"kubernetes.azure.com/mode": "gpu"}}}),
        [("pool.labels['kubernetes.azure.com/mode']", "AKS refuses keys under kubernetes.azure.com/")],
    ),
    "aks: more nodes than an agent pool may have": Case(
        aks({**AKS_ARGS, "pool": {**AKS_ARGS["pool"], "max_size": 1001}}), [("pool.max_size", "<= 1000")]
    ),
    "aks: AWS instance type": Case(
        aks({**AKS_ARGS, "pool": L4}), [("pool.instance_type", "unknown azure instance type")]
    ),
    "aks: escape hatch values of the wrong type": Case(
        aks({**AKS_ARGS, "agent_pool_args": {"availability_zones": "1", "enable_node_public_ip": "yes"}}),
        [
            ("agent_pool_args.availability_zones", "must be a list"),
            ("agent_pool_args.enable_node_public_ip", "must be true or false"),
        ],
    ),
    # GkeGpuNodePool
    "gke: time_slicing.trusted null": Case(
        gke({**GKE_ARGS, "pool": {**GKE_L4, "time_slicing": {"replicas": 2, "trusted": None}}}),
        [("pool.time_slicing.trusted", "must not be null; leave the field out for its default; valid: true, false")],
    ),
    "gke: missing location": Case(gke(without(GKE_ARGS, "location")), [("location", "required field is missing")]),
    "gke: node_locations a string": Case(
        gke({**GKE_ARGS, "node_locations": "us-central1-a"}), [("node_locations", "a list")]
    ),
    "gke: misspelt service_account": Case(
        gke({**GKE_ARGS, "service_acount": "sa"}), [("service_acount", "did you mean 'service_account'?")]
    ),
    "gke: unknown driver_version": Case(gke({**GKE_ARGS, "driver_version": "NEWEST"}), [("driver_version", "LATEST")]),
    "gke: misspelt gpu_stack key": Case(gke({**GKE_ARGS, "gpu_stak": "auto"}), [("gpu_stak", "'gpu_stack'?")]),
    "gke: MIG on L4": Case(gke({**GKE_ARGS, "pool": {**GKE_L4, "mig": {"profile": "1g.10gb"}}}), [("pool.mig", "MIG")]),
    "gke: null location": Case(gke({**GKE_ARGS, "location": None}), [("location", "must not be null")]),
    "gke: escape hatch nested value of the wrong type": Case(
        gke({**GKE_ARGS, "node_pool_args": {"node_config": {"disk_type": 5}, "max_pods_per_node": "110"}}),
        [
            ("node_pool_args.node_config.disk_type", "must be a string"),
            ("node_pool_args.max_pods_per_node", "must be a whole number"),
        ],
    ),
    # NvidiaDevicePlugin
    "plugin: no pools": Case(lambda: NvidiaDevicePlugin("bad", {}), [("pools", "required field is missing")]),  # type: ignore[typeddict-item]
    "plugin: null pools": Case(plugin(lambda: None), [("pools", "must not be null")]),
    "plugin: pools a mapping": Case(plugin(lambda: {"l4": L4}), [("pools", "a list of node-pool components")]),
    "plugin: empty pools": Case(plugin(lambda: []), [("pools", "at least one pool")]),
    "plugin: a plain pool without the add-on's cloud": Case(
        plugin(lambda: [L4]), [("cloud", "required field is missing: the cloud of the plain pools (pools[0])")]
    ),
    "plugin: a null pool": Case(plugin(lambda: [None]), [("pools[0]", "not a node-pool component")]),
    "plugin: a pool name": Case(plugin(lambda: ["l4"]), [("pools[0]", "not a node-pool component")]),
    "plugin: Bottlerocket pool": Case(
        plugin(nodes("aws", L4, **BOTTLEROCKET)), [("pools[0]", "node image's own device plugin")]
    ),
    "plugin: GKE-managed pool": Case(plugin(nodes("gcp", GKE_L4)), [("pools[0]", "cloud's managed device plugin")]),
    "plugin: pool built for the operator": Case(
        plugin(nodes("aws", L4, gpu_stack="gpu-operator")), [("pools[0]", "GPU Operator's device plugin")]
    ),
    "plugin: the same pool twice": Case(
        plugin(lambda: pool_components("aws", [L4]) * 2), [("pools[1]", "pool names must be unique")]
    ),
    "plugin: a pool another plugin serves": Case(
        lambda: (
            pools := pool_components("aws", [L4]),
            NvidiaDevicePlugin("first", {"pools": pools}),
            NvidiaDevicePlugin("bad", {"pools": pools}),
        ),
        [("pools[0]", "already served by first")],
    ),
    "plugin: a GpuCluster's pool": Case(
        lambda: NvidiaDevicePlugin("bad", {"pools": [GpuCluster("gc", CLUSTER_ARGS).pools["l4"]]}),
        [("pools[0]", "already served by gc-device-plugin")],
    ),
    "plugin: a cloud other than the components'": Case(
        plugin(nodes("aws", L4), cloud="azure"), [("cloud", "the node-pool components (pools[0]) are on aws")]
    ),
    "plugin: old node_taints key": Case(plugin(nodes("aws", L4), node_taints=[]), [("node_taints", "unknown field")]),
    "plugin: invalid namespace": Case(plugin(nodes("aws", L4), namespace="GPU_NS"), [("namespace", "DNS-1123")]),
    "plugin: helm_values a list": Case(plugin(nodes("aws", L4), helm_values=[1]), [("helm_values", "dictionary")]),
    "plugin: helm_values replace the tolerations": Case(
        plugin(nodes("azure", T4_SPOT), helm_values={"tolerations": []}),
        [("helm_values.tolerations", "tolerates every taint of the pools it serves")],
    ),
    "plugin: helm_values drop the affinity and the config": Case(
        plugin(nodes("aws", L4), helm_values={"affinity": None, "config": {"name": "mine"}}),
        [("helm_values.config", "rendered config entry"), ("helm_values.affinity", "never beside another plugin")],
    ),
    "plugin: helm_values set one MIG strategy for every pool": Case(
        plugin(nodes("aws", L4), helm_values={"migStrategy": "mixed"}),
        [("helm_values.migStrategy", "carries its pool's mig.strategy")],
    ),
    "plugin: helm_values fix the config hash": Case(
        plugin(nodes("aws", L4), helm_values={"podAnnotations": {"gpu-components/config-hash": "0", "team": "ml"}}),
        [("helm_values.podAnnotations.gpu-components/config-hash", "restart when a pool's config entry changes")],
    ),
    "plugin: chart_version a number": Case(
        plugin(nodes("aws", L4), chart_version=20), [("chart_version", "valid string")]
    ),
    "plugin: chart_version a range": Case(
        plugin(nodes("aws", L4), chart_version="^0.20"),
        [("chart_version", "not an exact nvidia-device-plugin chart version")],
    ),
    "plugin: chart_version with a trailing newline": Case(
        plugin(nodes("aws", L4), chart_version="0.20.0\n"),
        [("chart_version", "not an exact nvidia-device-plugin chart version")],
    ),
    "plugin: pools of two clouds": Case(
        plugin(lambda: [*pool_components("aws", [L4]), *pool_components("azure", [T4_SPOT])]),
        [("pools", "one cluster's cloud")],
    ),
    # NvidiaGpuOperator
    "operator: operator_driver a string": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), operator_driver="yes"),
        [("operator_driver", "valid boolean; valid: true, false")],
    ),
    "operator: helm_values driver.enabled": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"driver": {"enabled": True}}),
        [("helm_values.driver.enabled", "decided by the library")],
    ),
    "operator: helm_values mig.strategy": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"mig": {"strategy": "mixed"}}),
        [("helm_values.mig.strategy", "one MIG strategy per cluster")],
    ),
    "operator: helm_values replace the driver section": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"driver": None, "toolkit": False}),
        [("helm_values.driver", "one driver owner per pool"), ("helm_values.toolkit", "the toolkit goes with")],
    ),
    "operator: helm_values turn the device plugin off": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"devicePlugin": {"enabled": False}}),
        [("helm_values.devicePlugin.enabled", "advertises the pools' GPUs")],
    ),
    "operator: helm_values replace the operands' tolerations": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"daemonsets": {"tolerations": []}}),
        [("helm_values.daemonsets.tolerations", "tolerate every taint")],
    ),
    "operator: helm_values blank NFD's worker tolerations": Case(
        operator(
            nodes("aws", L4, gpu_stack="gpu-operator"),
            helm_values={"node-feature-discovery": {"worker": {"tolerations": []}}},
        ),
        [("helm_values.node-feature-discovery.worker.tolerations", "NFD's worker labels the GPU nodes")],
    ),
    "operator: helm_values replace NFD's section": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"node-feature-discovery": None}),
        [("helm_values.node-feature-discovery", "NFD's worker labels the GPU nodes")],
    ),
    "operator: chart_version a range": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), chart_version="^26.7"),
        [("chart_version", "not a GPU Operator chart version")],
    ),
    "operator: helm_values turn GPU feature discovery off": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), helm_values={"gfd": {"enabled": False}}),
        [("helm_values.gfd.enabled", "labels the nodes nvidia.com/mps.capable")],
    ),
    "operator: pool built for the device plugin": Case(
        operator(nodes("aws", L4)), [("pools[0]", "NVIDIA device plugin DaemonSet")]
    ),
    "operator: operator driver on EKS NVIDIA AMIs": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), operator_driver=True),
        [("pools[0].ami_type", "operator_driver true")],
    ),
    "operator: AKS pool without a driver, operator without its driver": Case(
        operator(nodes("azure", T4_SPOT, gpu_stack="gpu-operator", gpu_driver="none")),
        [("pools[0].gpu_driver", "operator_driver false")],
    ),
    "operator: ServiceMonitor without the exporter": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), dcgm_exporter=False, service_monitor=True),
        [("service_monitor", "dcgm_exporter")],
    ),
    "operator: null dcgm_exporter": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), dcgm_exporter=None),
        [("dcgm_exporter", "must not be null")],
    ),
    "operator: misspelt operator_driver": Case(
        operator(nodes("aws", L4, gpu_stack="gpu-operator"), operator_drivers=True),
        [("operator_drivers", "did you mean 'operator_driver'?")],
    ),
    # gpu_pod_settings
    "workload: a pool dict": Case(lambda: gpu_pod_settings(L4, 1), [("pool", "pass the node-pool component")]),  # type: ignore[arg-type]
    "workload: no pool": Case(lambda: gpu_pod_settings(None, 1), [("pool", "not a node-pool component")]),  # type: ignore[arg-type]
    "workload: a MIG profile list": Case(
        lambda: gpu_pod_settings(pool_components("aws", [L4])[0], 1, mig_profile=["1g.5gb"]),  # type: ignore[arg-type]
        [("mig_profile", "a MIG profile name (a string)")],
    ),
    "workload: requests as a string": Case(
        lambda: gpu_pod_settings(pool_components("aws", [L4])[0], 1, requests="yes"),  # type: ignore[arg-type]
        [("requests", "True or False")],
    ),
    "workload: half a GPU": Case(
        lambda: gpu_pod_settings(pool_components("aws", [L4])[0], 0.5),  # type: ignore[arg-type]
        [("gpus", "whole number")],
    ),
    # GpuCluster
    "cluster: args not a mapping": Case(cluster(None), [("args", "GpuClusterArgs is a mapping")]),
    "cluster: a null pool beside an invalid one": Case(
        cluster({**CLUSTER_ARGS, "pools": [None, {**L4, "max_size": 0}]}),
        [("pools[0]", "valid dictionary"), ("pools[1].max_size", "at least one node")],
    ),
    "cluster: pools a string": Case(cluster({**CLUSTER_ARGS, "pools": "l4"}), [("pools", "a list of pools")]),
    "cluster: two bad pools and a typo": Case(
        cluster({**CLUSTER_ARGS, "pools": [{**L4, "max_size": 0}, {**L4, "name": "b", "spot": 1}], "gpu_stak": 1}),
        [
            ("gpu_stak", "did you mean 'gpu_stack'?"),
            ("pools[1].spot", "valid boolean; valid: true, false"),
            ("pools[0].max_size", "at least one node"),
        ],
    ),
    "cluster: a pool's cloud block null": Case(
        cluster({**CLUSTER_ARGS, "pools": [{**L4, "aws": None}, {**L4, "name": "b", "max_size": 0}]}),
        [("pools[0].aws", "must not be null; leave the field out"), ("pools[1].max_size", "at least one node")],
    ),
    "cluster: a pool's cloud block a string": Case(
        cluster({**CLUSTER_ARGS, "pools": [{**L4, "aws": "BOTTLEROCKET_x86_64_NVIDIA"}]}),
        [("pools[0].aws", "valid dictionary")],
    ),
    "cluster: unknown cloud": Case(cluster({**CLUSTER_ARGS, "cloud": "amazon"}), [("cloud", "aws, azure, gcp")]),
    "cluster: gpu_stack operator": Case(cluster({**CLUSTER_ARGS, "gpu_stack": "operator"}), [("gpu_stack", "GPU")]),
    "cluster: wiring without cluster_name": Case(
        cluster({**CLUSTER_ARGS, "aws": {"subnet_ids": ["s"]}}), [("aws.cluster_name", "required field is missing")]
    ),
    "cluster: wiring subnet_ids a string": Case(
        cluster({**CLUSTER_ARGS, "aws": {**WIRING["aws"], "subnet_ids": "subnet-1"}}),
        [("aws.subnet_ids", "must be a list or a Pulumi Output")],
    ),
    "cluster: wiring with a null cluster_name and a null subnet": Case(
        cluster({**CLUSTER_ARGS, "aws": {**WIRING["aws"], "cluster_name": None, "subnet_ids": ["s", None]}}),
        [("aws.cluster_name", "must not be null"), ("aws.subnet_ids[1]", "a string or a Pulumi Output")],
    ),
    "cluster: AKS wiring without resource_group_name": Case(
        cluster({"cloud": "azure", "azure": {"cluster_name": "c"}, "pools": [T4_SPOT]}),
        [("azure.resource_group_name", "required field is missing")],
    ),
    "cluster: GKE node_locations a string": Case(
        cluster({"cloud": "gcp", "gcp": {**WIRING["gcp"], "node_locations": "us-central1-a"}, "pools": [GKE_L4]}),
        [("gcp.node_locations", "must be a list")],
    ),
    "cluster: Azure block on an AWS pool": Case(
        cluster({**CLUSTER_ARGS, "pools": [{**L4, "azure": {"gpu_driver": "aks"}}]}),
        [("pools[0].azure", "the cluster is on aws")],
    ),
    "cluster: invalid device plugin namespace": Case(
        cluster({**CLUSTER_ARGS, "device_plugin": {"namespace": "NS"}}), [("device_plugin.namespace", "DNS-1123")]
    ),
    "cluster: device plugin helm_values tolerations": Case(
        cluster({**CLUSTER_ARGS, "device_plugin": {"helm_values": {"tolerations": []}}}),
        [("device_plugin.helm_values.tolerations", "tolerates every taint")],
    ),
    "cluster: device plugin helm_values fix the config hash": Case(
        cluster({**CLUSTER_ARGS, "device_plugin": {"helm_values": {"podAnnotations": "none"}}}),
        [("device_plugin.helm_values.podAnnotations", "restart when a pool's config entry changes")],
    ),
    "cluster: device plugin chart_version a range": Case(
        cluster({**CLUSTER_ARGS, "device_plugin": {"chart_version": "^0.20"}}),
        [("device_plugin.chart_version", "not an exact nvidia-device-plugin chart version")],
    ),
    "cluster: operator helm_values blank NFD's worker tolerations": Case(
        cluster(
            {
                **CLUSTER_ARGS,
                "gpu_stack": "gpu-operator",
                "gpu_operator": {"helm_values": {"node-feature-discovery": {"worker": {"tolerations": None}}}},
            }
        ),
        [("gpu_operator.helm_values.node-feature-discovery.worker.tolerations", "NFD's worker labels")],
    ),
    "cluster: operator helm_values driver.enabled": Case(
        cluster(
            {**CLUSTER_ARGS, "gpu_stack": "gpu-operator", "gpu_operator": {"helm_values": {"driver": {"enabled": 1}}}}
        ),
        [("gpu_operator.helm_values.driver.enabled", "decided by the library")],
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_is_a_clean_input_error_and_registers_nothing(case: Case) -> None:
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            case.build()
        except GpuSpecError as error:
            errors.append(error)

    plan = plan_of(program)
    [error] = errors
    assert isinstance(error, pulumi.InputPropertiesError)
    found = [(problem.path, problem.message, problem.valid or "") for problem in error.problems]
    assert [path for path, _, _ in found] == [path for path, _ in case.expected], found
    for (path, message, valid), (_, part) in zip(found, case.expected, strict=True):
        assert part in f"{message}; valid: {valid}", (path, message, valid)
    assert error.errors == [{"property_path": problem.path, "reason": problem.reason} for problem in error.problems]
    assert not [r.name for r in plan.resources if r.name.startswith("bad")], "the bad component registered"


# ---------------------------------------------------------------------------------------------------------------
# Every boolean field, in a stack file's pools and cluster config or in a component's args, names its valid values
# ---------------------------------------------------------------------------------------------------------------

INPUT_SHAPES: tuple[type, ...] = (
    GpuNodePoolArgs,
    ClusterPoolArgs,
    GpuClusterArgs,
    EksClusterConfig,
    AksClusterConfig,
    GkeClusterConfig,
    EksGpuNodeGroupArgs,
    AksGpuNodePoolArgs,
    GkeGpuNodePoolArgs,
    NvidiaGpuOperatorArgs,
    NvidiaDevicePluginArgs,
)
"""The input TypedDicts: a stack file's pools and cluster config, and the components' args."""


def boolean_fields(shape: type, prefix: str = "") -> list[tuple[type, str, str]]:
    """(the TypedDict holding it, its key, its dotted path) of every ``bool`` field in ``shape`` and the TypedDicts
    (and lists of them) inside it; fields typed ``pulumi.Input`` are not read."""
    found: list[tuple[type, str, str]] = []
    for key, hint in shape.__annotations__.items():
        text = hint.__forward_arg__ if isinstance(hint, typing.ForwardRef) else hint
        if isinstance(text, str) and ("pulumi.Input[" in text or "pulumi.Output[" in text):
            continue
        annotation = (
            eval(text, vars(sys.modules[hint.__forward_module__ or shape.__module__]))  # as get_type_hints does
            if isinstance(hint, typing.ForwardRef)
            else hint
        )
        while typing.get_origin(annotation) in (list, NotRequired, Required):
            annotation = typing.get_args(annotation)[0]
        if annotation is bool:
            found.append((shape, key, f"{prefix}{key}"))
        elif is_typeddict(annotation):
            found += boolean_fields(annotation, f"{prefix}{key}.")
    return found


BOOLEAN_FIELDS = sorted(
    {(shape.__name__, key): (shape, key) for root in INPUT_SHAPES for shape, key, _ in boolean_fields(root)}.items()
)


def test_the_boolean_fields_are_found() -> None:
    assert {(name, key) for (name, key), _ in BOOLEAN_FIELDS} >= {
        ("GpuNodePoolArgs", "spot"),
        ("GpuNodePoolArgs", "gpu_taint"),
        ("TimeSlicingArgs", "trusted"),
        ("TimeSlicingArgs", "rename_by_default"),
        ("TimeSlicingArgs", "fail_requests_greater_than_one"),
        ("MpsArgs", "trusted"),
        ("EksClusterConfig", "existing"),
        ("AksClusterConfig", "existing"),
        ("GkeClusterConfig", "existing"),
        ("GkeClusterConfig", "deletion_protection"),
        ("NvidiaGpuOperatorArgs", "operator_driver"),
        ("NvidiaGpuOperatorArgs", "dcgm_exporter"),
        ("NvidiaGpuOperatorArgs", "service_monitor"),
    }


STRICT_FIELDS = [field for field in BOOLEAN_FIELDS if hasattr(field[1][0], "__pydantic_config__")]
"""Those in a STRICT TypedDict (a pool, its sharing, a cluster config, the cluster's add-on settings): what a stack
file's shape check reads (``shape_problems``)."""
ARGS_FIELDS = [field for field in BOOLEAN_FIELDS if not hasattr(field[1][0], "__pydantic_config__")]
"""Those of a component's own args (``args_problems``)."""


@pytest.mark.parametrize(
    ("shape", "key"), [field for _, field in STRICT_FIELDS], ids=[f"{name}.{key}" for (name, key), _ in STRICT_FIELDS]
)
@pytest.mark.parametrize("value", ["true", "yes", 1, None])
def test_a_boolean_field_given_a_non_boolean_names_true_and_false(shape: type, key: str, value: object) -> None:
    problems = [problem for problem in shape_problems(shape, {key: value}) if problem.path == key]
    assert [str(problem) for problem in problems] == [boolean_message(key, value)]


def boolean_message(key: str, value: object) -> str:
    """What both checks say of a boolean field given ``value``: YAML's ``null`` (every boolean field is optional)
    is told to be left out, in the same words whichever entry point reads it (a stack file, a component's args)."""
    if value is None:
        return f"{key}: must not be null; leave the field out for its default (got None); valid: true, false"
    return f"{key}: input should be a valid boolean (got {value!r}); valid: true, false"


@pytest.mark.parametrize(
    ("shape", "key"), [field for _, field in ARGS_FIELDS], ids=[f"{name}.{key}" for (name, key), _ in ARGS_FIELDS]
)
@pytest.mark.parametrize("value", ["true", "yes", 1, None])
def test_a_boolean_arg_given_a_non_boolean_names_true_and_false(shape: type, key: str, value: object) -> None:
    problems = [problem for problem in args_problems(shape, {key: value}) if problem.path == key]
    assert [str(problem) for problem in problems] == [boolean_message(key, value)]


# ---------------------------------------------------------------------------------------------------------------
# An error echoes what the user wrote at the path it names: a default as "(default: X)", a combination of fields
# by their paths, never a value the library derived (issue 15 follow-up)
# ---------------------------------------------------------------------------------------------------------------

A100_80 = {"name": "uniform", "instance_type": "p4de.24xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
MIXED = {
    "name": "mixed",
    "instance_type": "p4de.24xlarge",
    "max_size": 1,
    "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
}
OPERATOR_CLUSTER = {**CLUSTER_ARGS, "gpu_stack": "gpu-operator", "gpu_operator": {"operator_driver": False}}
SOURCE_OPERATOR_MIG = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"

ECHOES: dict[str, tuple[Callable[[], object], list[tuple[str, str]]]] = {
    "cluster: a default MIG strategy beside a mixed pool": (
        cluster({**OPERATOR_CLUSTER, "pools": [MIXED, A100_80]}),
        [
            (
                "pools[1].mig.strategy",
                "the GPU Operator has one MIG strategy per cluster (mig.strategy), and pools[0] (mixed) uses mixed "
                f"(default: single); valid: mixed [source: {SOURCE_OPERATOR_MIG}]",
            )
        ],
    ),
    "cluster: an MPS pool beside a mixed MIG pool": (
        cluster({**OPERATOR_CLUSTER, "pools": [L4 | {"mps": {"replicas": 4}}, MIXED]}),
        [
            (
                "pools[0].mps",
                "MPS pool l4 and pools[1] (mixed), whose MIG strategy is mixed, cannot share one GPU Operator: the "
                "operator sets its one mig.strategy (mixed) in every device plugin pod, over each pool's own config "
                'entry, and the device plugin refuses to start with MPS under it ("using --mig-strategy=mixed is '
                'not supported with MPS") (combines pools[0].mps and pools[1].mig.strategy); valid: time_slicing '
                "instead of mps on l4, or mig.strategy single on mixed (one profile per GPU: a mig.profile) "
                "[source: https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/cmd/nvidia-device-plugin/main.go "
                "(validateFlags); https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/controllers/object_controls.go "
                "(applyMIGConfiguration)]",
            )
        ],
    ),
    "operator: one uniform profile on two GPUs": (
        operator(nodes("aws", A100_80, {**A100_MIG, "mig": {"profile": "1g.10gb"}}, gpu_stack="gpu-operator")),
        [
            (
                "pools[1].mig.profile",
                "pools[0] (A100-80GB) has it too, with 7 x 1g.10gb per GPU, and here (A100-40GB) it is 4 x 1g.10gb; "
                "both select the mig-parted config 'all-1g.10gb' (node label nvidia.com/mig.config), and one "
                "mig-parted config name can hold only one layout for all GPUs (got '1g.10gb'); valid: the same "
                "layout, or a mig.layout for one of the pools (its config is then custom-<pool>) "
                "[source: https://github.com/NVIDIA/mig-parted/blob/v0.15.0/api/spec/v1/spec.go]",
            )
        ],
    ),
    "eks: a MIG pool on AL2023 without the operator": (
        eks({**EKS_ARGS, "pool": A100_MIG}),
        [
            (
                "pool.mig",
                "nodes of the ami_type left unset (default: AL2023_x86_64_NVIDIA) have no MIG partitioning of their "
                "own; EKS documents MIG through "
                "NVIDIA's MIG Manager (GPU Operator) or Bottlerocket's MIG settings (got {'profile': '1g.5gb'}); "
                "valid: gpu_stack gpu-operator, or ami_type BOTTLEROCKET_x86_64_NVIDIA with a uniform mig.profile "
                "[source: https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html]",
            )
        ],
    ),
    "eks: a layout without a strategy": (
        eks({**EKS_ARGS, "pool": {**A100_80, "mig": {"layout": {"3g.40gb": 1, "4g.40gb": 1}}}}),
        [
            (
                "pool.mig.strategy",
                "the single MIG strategy needs one profile on every GPU; a layout of several profiles needs the "
                "mixed strategy (default: single); valid: mixed "
                "[source: https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html#mig-strategies]",
            )
        ],
    ),
    "gke: min_size above max_size without desired_size": (
        gke({**GKE_ARGS, "pool": {**GKE_L4, "min_size": 3}}),
        [
            (
                "pool.min_size",
                "node counts must satisfy min_size <= max_size (max_size=2; desired_size, not set, defaults to "
                "min_size) (got 3); valid: 0..2",
            )
        ],
    ),
    "aks: the default driver beside the operator's": (
        operator(
            nodes("azure", {**L4, "instance_type": "Standard_NC4as_T4_v3"}, gpu_stack="gpu-operator"),
            cloud="azure",
            operator_driver=True,
        ),
        [
            (
                "pools[0].gpu_driver",
                "two parties would install the NVIDIA driver: the AKS node image and the GPU Operator (gpu_driver aks "
                "and operator_driver true) (default: aks); valid: operator_driver false, or gpu_driver none with "
                "operator_driver true [source: "
                "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/microsoft-aks.html]",
            )
        ],
    ),
}


@pytest.mark.parametrize("case", ECHOES.values(), ids=ECHOES.keys())
def test_an_error_echoes_what_the_user_wrote_or_names_the_default_or_the_fields(
    case: tuple[Callable[[], object], list[tuple[str, str]]],
) -> None:
    build, expected = case
    errors: list[GpuSpecError] = []

    def program() -> None:
        try:
            build()
        except GpuSpecError as error:
            errors.append(error)

    plan_of(program)
    [error] = errors
    assert [(problem.path, problem.reason) for problem in error.problems] == expected
