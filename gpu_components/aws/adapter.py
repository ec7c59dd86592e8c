"""The AWS adapter of the cross-cloud composition: EKS node groups, Karpenter and EKS Auto Mode pools, and the
example EKS cluster. A pool with ``provisioning`` goes to its provisioner's component
(:mod:`gpu_components.aws.provisioned`), any other to an :class:`~gpu_components.aws.eks.EksGpuNodeGroup`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi

from gpu_components.adapter import (
    CloudAdapter,
    DevicePluginHost,
    GpuNodePool,
    GpuStack,
    PoolView,
    pool_component_args,
)
from gpu_components.aws import cluster
from gpu_components.aws.eks import (
    EksGpuNodeGroup,
    EksGpuNodeGroupArgs,
    cluster_name_problems,
    eks_pool_view,
    eks_problems,
    node_group_args_problems,
)
from gpu_components.aws.facts import CLUSTER_NAME_FORM, FACTS
from gpu_components.aws.options import EksPoolOptionsArgs, EksWiringArgs
from gpu_components.aws.provisioned import (
    AUTO_NODE_CLASS_OWNED,
    EC2_NODE_CLASS_OWNED,
    SOURCE_AUTO_NODECLASS,
    SOURCE_NODEPOOL,
    EksAutoModeGpuNodePool,
    EksAutoModeGpuNodePoolArgs,
    EksKarpenterGpuNodePool,
    EksKarpenterGpuNodePoolArgs,
    auto_mode_pool_view,
    auto_mode_problems,
    auto_node_class_problems,
    hatch_problems,
    karpenter_pool_view,
    karpenter_problems,
    wiring_problems,
)
from gpu_components.enums import value_of
from gpu_components.errors import Problem
from gpu_components.spec import GpuNodePoolArgs, GpuNodePoolSpec

_PROVISIONED_ONLY = ("node_pool_spec", "node_class_spec", "node_class")


def _refused(
    options: Mapping[str, Any], keys: tuple[str, ...], where: str, why: str, valid: str, source: str
) -> list[Problem]:
    return [Problem(f"{where}.{key}", options[key], why, valid, source) for key in keys if key in options]


def _problems(spec: GpuNodePoolSpec, options: Mapping[str, Any], path: str, gpu_stack: GpuStack) -> list[Problem]:
    where = f"{path}.aws" if path else "aws"
    provisioning = spec.provisioning
    if provisioning is None:
        return (
            eks_problems(spec, options.get("ami_type"), path, gpu_stack, f"{where}.ami_type")
            + node_group_args_problems(
                options.get("node_group_args"), options.get("ami_type"), f"{where}.node_group_args"
            )
            + _refused(
                options,
                _PROVISIONED_ONLY,
                where,
                "a provisioned pool's setting (Karpenter NodePool / NodeClass spec); this pool is an EKS managed node "
                "group",
                "node_group_args, or a provisioning block",
                SOURCE_NODEPOOL,
            )
        )
    refused = _refused(
        options,
        ("node_group_args",),
        where,
        f"an EKS managed node group setting; this pool is provisioned by {provisioning.provisioner}",
        "node_pool_spec or node_class_spec",
        SOURCE_NODEPOOL,
    )
    if provisioning.provisioner == "karpenter":
        return (
            refused
            + _refused(
                options,
                ("node_class",),
                where,
                "an EKS Auto Mode pool's setting; a Karpenter pool has an EC2NodeClass of its own",
                "no node_class",
                SOURCE_NODEPOOL,
            )
            + karpenter_problems(spec, options.get("ami_type"), path, gpu_stack, f"{where}.ami_type")
            + hatch_problems(options, EC2_NODE_CLASS_OWNED, "EC2NodeClass", where)
        )
    refused += _refused(
        options,
        ("ami_type",),
        where,
        "EKS Auto Mode chooses the node AMI itself (its NodeClass has no AMI setting)",
        "no ami_type",
        SOURCE_AUTO_NODECLASS,
    )
    return (
        refused
        + auto_mode_problems(spec, path, gpu_stack)
        + auto_node_class_problems(spec, options, path, f"{where}.node_class")
        + hatch_problems(options, AUTO_NODE_CLASS_OWNED, "NodeClass", where)
    )


def _describe(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> PoolView:
    provisioner = spec.provisioning.provisioner if spec.provisioning is not None else None
    if provisioner == "karpenter":
        return karpenter_pool_view(spec, options.get("ami_type"), gpu_stack)
    if provisioner == "eks-auto-mode":
        return auto_mode_pool_view(spec, gpu_stack)
    return eks_pool_view(spec, options.get("ami_type"), gpu_stack)


def _host(spec: GpuNodePoolSpec, options: Mapping[str, Any], gpu_stack: GpuStack) -> DevicePluginHost:
    return _describe(spec, options, gpu_stack).device_plugin_host


def _create_pool(
    name: str,
    pool: GpuNodePoolArgs,
    options: Mapping[str, Any],
    wiring: Mapping[str, Any],
    gpu_stack: GpuStack,
    opts: pulumi.ResourceOptions,
) -> GpuNodePool:
    # karpenter_controller says what the cluster runs (checked by wiring_problems); no pool component takes it.
    pool_wiring = {key: value for key, value in wiring.items() if key != "karpenter_controller"}
    args = pool_component_args(pool, options, pool_wiring, gpu_stack)
    provisioning = pool.get("provisioning")
    if provisioning is not None and value_of(provisioning["provisioner"]) == "karpenter":
        return EksKarpenterGpuNodePool(name, cast(EksKarpenterGpuNodePoolArgs, args), opts)
    if provisioning is not None:
        return EksAutoModeGpuNodePool(name, cast(EksAutoModeGpuNodePoolArgs, args), opts)
    return EksGpuNodeGroup(name, cast(EksGpuNodeGroupArgs, args), opts)


def _wiring_notes(specs: Sequence[GpuNodePoolSpec], wiring: Mapping[str, Any]) -> list[str]:
    """``aws.karpenter_controller: true`` when no pool is a Karpenter pool: it only lets ``GpuCluster`` take Karpenter
    pools (:func:`~gpu_components.aws.provisioned.karpenter_controller_problems`), so it changes nothing here."""
    if wiring.get("karpenter_controller") is not True or any(
        spec.provisioning is not None and spec.provisioning.provisioner == "karpenter" for spec in specs
    ):
        return []
    return [
        "aws.karpenter_controller: true, but no pool is a Karpenter pool (provisioning.provisioner: karpenter): it "
        "changes nothing, as GpuCluster reads it only to allow Karpenter pools (it installs no controller); remove "
        "it (in the example program's stack config: cluster.karpenter, which sets it), or add a Karpenter pool"
    ]


ADAPTER = CloudAdapter(
    cloud="aws",
    pool_options=EksPoolOptionsArgs,
    cluster_config=cluster.EksClusterConfig,
    problems=_problems,
    wiring_problems=wiring_problems,
    device_plugin_host=_host,
    create_pool=_create_pool,
    describe_pool=_describe,
    config_problems=cluster.config_problems,
    stack_problems=cluster.stack_problems,
    wiring_pool_problems=lambda specs, wiring: cluster_name_problems(wiring.get("cluster_name"), "aws.cluster_name"),
    wiring_notes=_wiring_notes,
    provision=cluster.provision,
    wiring=EksWiringArgs,
    facts=FACTS,
    cluster_forms={"name": CLUSTER_NAME_FORM},
    default_kubernetes_version=cluster.DEFAULT_KUBERNETES_VERSION,
)
"""EKS: managed node groups with NVIDIA AMIs; the device plugin DaemonSet (or the GPU Operator) except on
Bottlerocket, whose host plugin serves its nodes; Karpenter pools as the same AMIs' node groups; EKS Auto Mode pools
served by AWS's own plugin."""
