"""``EksGpuNodeGroup``: an EKS managed node group for a validated GPU pool.

EKS spellings live in this package and nowhere else: AMI types and taint effects (``NO_SCHEDULE``) in
:mod:`gpu_components.aws.facts`, which the plan and the policy pack read without the AWS SDKs, ``SPOT`` here. Facts:
- NVIDIA AMI types, the instance types each supports (the Bottlerocket ARM NVIDIA AMI: g5g only, not the Grace
  Blackwell p6e hosts) and the AL2023 NVIDIA AMI contents (driver and container toolkit, no device plugin):
  https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html
- Taint effects and node group inputs: https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html
- Node role policies: https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html
- MIG on AL2023 is documented only through NVIDIA's MIG Manager (GPU Operator):
  https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html
- Under the GPU Operator (``gpu_stack: gpu-operator``) the NVIDIA AMIs keep the driver and toolkit (the operator's
  are off). AL2023 pools are served by the operator: its device plugin and MIG manager (labels of
  :func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`). Bottlerocket pools keep their host device
  plugin and MIG settings, and every operand is kept off their nodes with ``nvidia.com/gpu.deploy.operands=false``
  (NVIDIA "Installing the NVIDIA GPU Operator", section Operands:
  https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html#operands): Bottlerocket
  is not among the GPU Operator's supported operating systems (bottlerocket-os/bottlerocket#4162), and its
  operands (validator, GPU feature discovery, DCGM exporter) expect the toolkit's ``nvidia`` runtime class.
- Scale from zero (Cluster Autoscaler's AWS cloud provider README, :data:`SOURCE_AUTOSCALER`): for an Auto Scaling
  group with no instance, the autoscaler builds a template node from the instance type (CPU, memory, and
  ``nvidia.com/gpu`` = the GPU count) and the group's tags ``k8s.io/cluster-autoscaler/node-template/resources/<name>``
  (overriding a resource's amount), ``.../label/<key>`` (a label) and ``.../taint/<key>`` = ``<value>:<Effect>`` (a
  taint). The node group gets all three for everything its nodes carry: the resources each node advertises
  (``nvidia.com/gpu`` = 0 where they advertise other names, since the instance type alone would promise whole
  GPUs), every node label and every taint. With ``eks:DescribeNodegroup`` permission the autoscaler also reads the
  node group's labels and taints from EKS (autoscaler proposal ``circumvent-tag-limit-aws.md``); the tags make the
  template right without it. The README's "Special note on GPU instances" asks GPU nodes to carry the label
  ``k8s.amazonaws.com/accelerator`` so the autoscaler waits for their device plugin instead of adding nodes;
  pools that advertise ``nvidia.com/gpu`` get it (:data:`AUTOSCALER_GPU_LABEL`). What no tag can say is in the
  component's ``autoscaler_note`` (:mod:`gpu_components.autoscaler`).
- Node disk (``pool.disk_size_gb``): the node group's ``diskSize`` (the root volume), except with a launch template
  (Bottlerocket pools), where EKS refuses ``diskSize`` (CreateNodegroup API, :data:`SOURCE_CREATE_NODEGROUP`) and
  the size goes on Bottlerocket's data volume in the template (:func:`~gpu_components.aws.bottlerocket.block_devices`).
"""

import base64
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    DevicePluginHost,
    GpuStack,
    PoolDevicePluginHost,
    PoolTaints,
    PoolTolerations,
    PoolView,
    adopt_view,
    fixed_pool_problems,
    pool_outputs,
    validated_pool,
)
from gpu_components.autoscaler import LATE_MIG_NOTE, gpu_resource_note, joined, owned_tag_problems
from gpu_components.aws import bottlerocket
from gpu_components.aws._sdk import aws
from gpu_components.aws.facts import (
    BOTTLEROCKET_AMI_TYPES,
    BOTTLEROCKET_ARM_NVIDIA_FAMILIES,
    CLUSTER_NAME_FORM,
    DEFAULT_AMI_TYPES,
    NODE_GROUP_OPTIONS,
    NVIDIA_AMI_TYPES,
    RETIRED_GPU_AMI_TYPES,
    ROLE_ARN_FORM,
    SOURCE_AMI_TYPES,
    SOURCE_BOTTLEROCKET_DRA,
    TAINT_EFFECTS,
)
from gpu_components.enums import GpuStackArg, value_of
from gpu_components.errors import Problem
from gpu_components.gpu_requests import tolerations
from gpu_components.labels import GPU_ACCESS_LABEL, POOL_LABEL
from gpu_components.nvidia.device_plugin import GPU_RESOURCE, advertised_resources, device_plugin_node_labels
from gpu_components.nvidia.gpu_operator import operand_off_label, operator_node_labels
from gpu_components.nvidia.mig import mig_node_labels
from gpu_components.provider_args import ProviderArgs, collected
from gpu_components.shape import plain
from gpu_components.spec import (
    DEFAULT_GPU_TAINT,
    GpuNodePoolArgs,
    GpuNodePoolSpec,
    Taint,
    dra_refused,
    sharing_trust_labels,
)

SOURCE_MIG_ON_EKS = "https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html"
SOURCE_AUTOSCALER = (
    "https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md"
)
SOURCE_CREATE_NODEGROUP = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"

NODE_ROLE_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    }
)
"""Managed policies attached to a node role the component creates (role suffix -> ARN). The CNI policy is on the
node role because the example cluster does not set up IRSA for the VPC CNI."""

EKS_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36")
"""Kubernetes versions EKS supports in late 2026 (standard and extended support), for schema checks of what the
library renders. Source: https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html"""

CLUSTER_AUTOSCALER_TEMPLATE_TAG = "k8s.io/cluster-autoscaler/node-template/"
"""Prefix of every Auto Scaling group tag the Cluster Autoscaler reads to build a template node (and of node group
tags it reads through EKS, which override the group's): owned by the library, refused in ``tags``."""
CLUSTER_AUTOSCALER_RESOURCE_TAG = f"{CLUSTER_AUTOSCALER_TEMPLATE_TAG}resources/"
"""Prefix of the tag that tells the Cluster Autoscaler how much of a resource an empty node group's nodes offer."""
CLUSTER_AUTOSCALER_LABEL_TAG = f"{CLUSTER_AUTOSCALER_TEMPLATE_TAG}label/"
"""Prefix of the tag that tells the Cluster Autoscaler a label of an empty node group's nodes (value: the label's)."""
CLUSTER_AUTOSCALER_TAINT_TAG = f"{CLUSTER_AUTOSCALER_TEMPLATE_TAG}taint/"
"""Prefix of the tag that tells the Cluster Autoscaler a taint of an empty node group's nodes (``<value>:<Effect>``);
one tag per taint key."""
AUTOSCALER_GPU_LABEL = "k8s.amazonaws.com/accelerator"
"""Node label the Cluster Autoscaler's AWS provider reads as "this node has GPUs" (``GPULabel``): a labelled node
whose ``nvidia.com/gpu`` is still zero counts as starting, not as ready. Set, valued ``nvidia-<GPU model>``, on pools
that advertise ``nvidia.com/gpu``; kept off the others, whose nodes would look unready forever. The autoscaler
reads only its presence (the value names the GPU type in its ``--gpu-total`` limits and metrics). Refused as a user
label on EKS."""

NODE_GROUP_OWNED_ARGS = (
    "ami_type",
    "capacity_type",
    "cluster_name",
    "disk_size",
    "instance_types",
    "labels",
    "launch_template",
    "node_role_arn",
    "scaling_config",
    "subnet_ids",
    "tags",
    "taints",
)
"""``aws.eks.NodeGroup`` arguments the library sets (from the pool, ``ami_type``, the wiring and ``tags``), refused
in ``node_group_args``. ``launch_template`` is owned because Bottlerocket pools carry their settings in one and
EKS refuses ``diskSize`` beside any."""
NODE_GROUP_ARGS = ProviderArgs("pulumi_aws.eks.NodeGroup", aws.eks.NodeGroupArgs, frozenset(NODE_GROUP_OWNED_ARGS))
"""The escape hatch of :class:`EksGpuNodeGroup` (``node_group_args``; see :mod:`gpu_components.provider_args`)."""


class EksGpuNodeGroupArgs(TypedDict):
    """Inputs of :class:`EksGpuNodeGroup`."""

    pool: GpuNodePoolArgs
    """The GPU pool, validated for ``aws``."""
    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster."""
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    """Subnets for the nodes (private subnets of the cluster's VPC)."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """IAM role of the nodes. Defaults to a new role with the EKS worker, ECR pull and CNI policies
    (``NODE_ROLE_POLICIES``).
    A plain string must be an IAM role's ARN, ``arn:<aws|aws-cn|aws-us-gov>:iam::<12-digit account>:role/<optional
    path/><name>`` (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html); an output is taken as
    given."""
    ami_type: NotRequired[str]
    """An NVIDIA EKS AMI type matching the instance's CPU architecture (``AL2023_x86_64_NVIDIA``,
    ``AL2023_ARM_64_NVIDIA``, ``BOTTLEROCKET_x86_64_NVIDIA``, ``BOTTLEROCKET_ARM_64_NVIDIA``, which EKS supports on
    g5g only). Defaults to ``AL2023_x86_64_NVIDIA`` / ``AL2023_ARM_64_NVIDIA``. A ``BOTTLEROCKET_*_NVIDIA`` type
    runs the device plugin on the host, configured through Bottlerocket settings, and the device plugin DaemonSet
    (or, under the GPU Operator, every operand) is then kept off the pool."""
    tags: NotRequired[Mapping[str, str]]
    """AWS tags for the node group. Defaults to none. Keys under ``k8s.io/cluster-autoscaler/node-template/`` are
    refused: the library sets them (the autoscaler reads node group tags too, and they would override the
    template)."""
    node_group_args: NotRequired[dict[str, Any]]
    """Other ``pulumi_aws.eks.NodeGroup`` arguments, in the SDK's snake_case names (e.g. ``update_config``,
    ``node_group_name``, ``release_version``), merged under the library's. Defaults to none. A key the library sets
    (``NODE_GROUP_OWNED_ARGS``: ``ami_type``, ``capacity_type``, ``cluster_name``, ``disk_size``, ``instance_types``,
    ``labels``, ``launch_template``, ``node_role_arn``, ``scaling_config``, ``subnet_ids``, ``tags``, ``taints``) or
    that ``NodeGroup`` does not take is an error naming the key; so is ``remote_access`` on a Bottlerocket pool, whose
    launch template EKS does not combine with it (EKS CreateNodegroup API)."""
    gpu_stack: NotRequired[GpuStackArg]
    """The cluster's GPU stack. Defaults to ``auto``. With ``gpu-operator`` an AL2023 pool gets the operator's node
    labels (device plugin config, MIG config) and may use MIG through the operator's MIG manager; the operator itself
    is ``NvidiaGpuOperator``, with ``operator_driver`` false. With ``dra`` a pool whose ``gpu_access`` is ``dra`` (the
    default there) on an AL2023 NVIDIA AMI gets the label ``gpu-components/gpu-access: dra`` and no device plugin
    labels, NVIDIA's DRA driver publishing its GPUs; a Bottlerocket pool is refused (its host device plugin)."""


def ami_type_for(spec: GpuNodePoolSpec, ami_type: str | None) -> str:
    """The AMI type to use: ``ami_type`` when given, else the AL2023 NVIDIA AMI for the CPU architecture."""
    return ami_type if ami_type is not None else DEFAULT_AMI_TYPES[spec.cpu_architecture]


def supported_ami_types(spec: GpuNodePoolSpec) -> tuple[str, ...]:
    """The NVIDIA AMI types EKS supports for the pool's instance type: those of its CPU architecture, less
    ``BOTTLEROCKET_ARM_64_NVIDIA`` outside :data:`~gpu_components.aws.facts.BOTTLEROCKET_ARM_NVIDIA_FAMILIES`
    (:data:`SOURCE_AMI_TYPES`)."""
    family = spec.instance_type.split(".", 1)[0]
    return tuple(
        name
        for name, arch in NVIDIA_AMI_TYPES.items()
        if arch == spec.cpu_architecture
        and (name != BOTTLEROCKET_AMI_TYPES["arm64"] or family in BOTTLEROCKET_ARM_NVIDIA_FAMILIES)
    )


def device_plugin_host(ami_type: str, gpu_stack: GpuStack = "auto", dra: bool = False) -> DevicePluginHost:
    """Where the device plugin runs: on the host for Bottlerocket NVIDIA (whatever the GPU stack or access: a DRA pool
    there is refused, :func:`dra_problems`), else NVIDIA's DRA driver on an AL2023 NVIDIA pool whose resolved
    ``gpu_access`` is ``dra`` (``dra``), else the cluster's DaemonSet, or the GPU Operator's under ``gpu-operator``."""
    if ami_type.startswith("BOTTLEROCKET_"):
        return "node-image"
    if dra:
        return "dra-driver"
    return "gpu-operator" if gpu_stack == "gpu-operator" else "daemonset"


def dra_problems(spec: GpuNodePoolSpec, ami_type: str, path: str) -> list[Problem]:
    """A pool whose resolved ``gpu_access`` is ``dra`` on a Bottlerocket NVIDIA AMI: refused. Bottlerocket runs
    NVIDIA's device plugin on the host, and its own host DRA driver (:data:`SOURCE_BOTTLEROCKET_DRA`) is node settings
    the library does not set; NVIDIA's DRA driver chart beside either would make two GPU publishers on a node. The
    AL2023 NVIDIA AMIs carry the driver and run no device plugin (:data:`SOURCE_EKS_DRA`)."""
    if not ami_type.startswith("BOTTLEROCKET_"):
        return []
    return [
        dra_refused(
            spec,
            path,
            f"{ami_type} nodes run NVIDIA's device plugin on the host (Bottlerocket's own DRA driver is a host "
            "setting the library does not manage), and NVIDIA's DRA driver may not share a node with a device plugin",
            f"ami_type {DEFAULT_AMI_TYPES[spec.cpu_architecture]} (AL2023 NVIDIA: the driver on the host, no device "
            "plugin), or gpu_access: device-plugin",
            SOURCE_BOTTLEROCKET_DRA,
        )
    ]


def eks_problems(
    spec: GpuNodePoolSpec,
    ami_type: str | None,
    path: str = "",
    gpu_stack: GpuStack = "auto",
    ami_type_path: str | None = None,
) -> list[Problem]:
    """EKS rules for a validated pool: an NVIDIA AMI type of the right architecture, sharing the image can do, and
    labels and taints the Cluster Autoscaler's tags can describe.

    MIG needs partitions made on the node: Bottlerocket makes them from its settings; on AL2023 only NVIDIA's
    MIG Manager (GPU Operator) does, so MIG on AL2023 is rejected unless the pool is served by the GPU Operator.
    ``ami_type_path`` is where ``ami_type`` sits in the input (defaults to ``<path>.ami_type``). The autoscaler's
    rules: no user label :data:`AUTOSCALER_GPU_LABEL` (the library decides it), and one taint per key (an Auto
    Scaling group tag per taint key holds one value and effect; :data:`SOURCE_AUTOSCALER`).
    """
    return ami_problems(spec, ami_type, path, gpu_stack, ami_type_path) + _autoscaler_problems(spec, path)


def _autoscaler_problems(spec: GpuNodePoolSpec, path: str) -> list[Problem]:
    prefix = f"{path}." if path else ""
    problems: list[Problem] = []
    if AUTOSCALER_GPU_LABEL in spec.labels:
        problems.append(
            Problem(
                f"{prefix}labels[{AUTOSCALER_GPU_LABEL!r}]",
                AUTOSCALER_GPU_LABEL,
                "set by gpu_components on EKS pools whose nodes advertise nvidia.com/gpu: the Cluster Autoscaler "
                "reads it as 'GPUs are coming' and would wait forever on nodes that advertise other resources",
                "any other label key",
                SOURCE_AUTOSCALER,
            )
        )
    keys: dict[str, int] = {}
    for index, taint in enumerate(spec.taints):
        if taint.key in keys:
            first = spec.taint_path(keys[taint.key])
            also = f"the default GPU taint {DEFAULT_GPU_TAINT.text}" if first == "gpu_taint" else f"{prefix}{first}"
            problems.append(
                Problem(
                    f"{prefix}{spec.taint_path(index)}",
                    taint.as_given(),
                    f"a second taint with key {taint.key} ({also} has it too): the Cluster Autoscaler learns an EKS "
                    "pool's taints from one Auto Scaling group tag per key, which holds one value and effect",
                    "one taint per key on EKS",
                    SOURCE_AUTOSCALER,
                )
            )
        keys.setdefault(taint.key, index)
    return problems


def ami_problems(
    spec: GpuNodePoolSpec,
    ami_type: str | None,
    path: str,
    gpu_stack: GpuStack,
    ami_type_path: str | None,
) -> list[Problem]:
    """The AMI part of :func:`eks_problems` (also the rules of Karpenter pools, whose ``ami_type`` picks their AMI
    alias): an NVIDIA AMI type of the pool's architecture, Bottlerocket's MIG rules, and MIG on AL2023 only under
    the GPU Operator."""
    chosen = ami_type_for(spec, ami_type)
    where = ami_type_path if ami_type_path is not None else (f"{path}.ami_type" if path else "ami_type")
    arch = NVIDIA_AMI_TYPES.get(chosen)
    if arch is None:
        retired = chosen in RETIRED_GPU_AMI_TYPES
        return [
            Problem(
                where,
                chosen,
                f"{'an NVIDIA AMI type past its end of support' if retired else 'not an NVIDIA AMI type'}; "
                f"{spec.instance_type} has {spec.gpu_count} x {spec.gpu.name}",
                ", ".join(NVIDIA_AMI_TYPES),
                SOURCE_AMI_TYPES,
            )
        ]
    supported = supported_ami_types(spec)
    if arch != spec.cpu_architecture:
        return [
            Problem(
                where,
                chosen,
                f"built for {arch}, but {spec.instance_type} is {spec.cpu_architecture}",
                ", ".join(supported),
                SOURCE_AMI_TYPES,
            )
        ]
    if chosen not in supported:
        return [
            Problem(
                where,
                chosen,
                f"EKS's {chosen} AMI supports only the {', '.join(sorted(BOTTLEROCKET_ARM_NVIDIA_FAMILIES))} "
                f"instance family, not {spec.instance_type}",
                ", ".join(supported),
                SOURCE_AMI_TYPES,
            )
        ]
    if device_plugin_host(chosen) == "node-image":
        dra = dra_problems(spec, chosen, path) if spec.uses_dra(gpu_stack) else []
        return dra + bottlerocket.bottlerocket_problems(spec, path)
    if spec.mig is not None and gpu_stack != "gpu-operator" and not spec.uses_dra(gpu_stack):
        bottlerocket_type = BOTTLEROCKET_AMI_TYPES[arch]
        valid = "gpu_stack gpu-operator"
        if bottlerocket_type in supported:
            valid += f", or ami_type {bottlerocket_type} with a uniform mig.profile"
        # name a default as the default: the user never wrote it
        nodes = f"{chosen} nodes" if ami_type is not None else f"nodes of the ami_type left unset (default: {chosen})"
        return [
            Problem(
                f"{path}.mig" if path else "mig",
                spec.mig.as_given,
                f"{nodes} have no MIG partitioning of their own; EKS documents MIG through NVIDIA's "
                "MIG Manager (GPU Operator) or Bottlerocket's MIG settings",
                valid,
                SOURCE_MIG_ON_EKS,
            )
        ]
    return []


def eks_taints(taints: Sequence[Taint]) -> list[dict[str, str]]:
    """Taints in the EKS API's spelling: ``{"key", "value", "effect": "NO_SCHEDULE"}`` (value omitted if empty)."""
    result: list[dict[str, str]] = []
    for taint in taints:
        item = {"key": taint.key, "effect": TAINT_EFFECTS[taint.effect]}
        if taint.value:
            item["value"] = taint.value
        result.append(item)
    return result


def node_labels(spec: GpuNodePoolSpec, host: DevicePluginHost, gpu_stack: GpuStack = "auto") -> dict[str, str]:
    """Node labels of the pool: the user's, the pool label, and the selection labels of whatever serves it: the
    device plugin DaemonSet's, the GPU Operator's (:func:`~gpu_components.nvidia.gpu_operator.operator_node_labels`),
    or, on Bottlerocket under the GPU Operator, ``nvidia.com/gpu.deploy.operands=false`` (the host plugin serves
    the nodes and no operand runs there). Under ``gpu_stack: dra`` a DRA pool gets ``gpu-components/gpu-access: dra``
    and, for the GPU Operator beside the DRA driver, its MIG manager's ``nvidia.com/mig.config`` on a MIG pool or
    else ``nvidia.com/gpu.deploy.operands=false`` (a ClusterPolicy runs nothing there; a GPUCluster, installer
    ``gpu-operator``, ignores that label and runs its DRA driver); a pool left to a device plugin gets
    ``nvidia.com/gpu.deploy.operands=false`` too (installer ``gpu-operator`` refuses such pools: a GPUCluster's DRA
    driver would publish their GPUs a second time).
    Bottlerocket without the operator gets no NVIDIA labels. Pools whose nodes
    advertise ``nvidia.com/gpu`` also get :data:`AUTOSCALER_GPU_LABEL` (:func:`autoscaler_gpu_label`), and pools whose
    sharing is declared trusted ``gpu-components/sharing: trusted``
    (:func:`~gpu_components.spec.sharing_trust_labels`)."""
    labels = dict(spec.labels)
    labels[POOL_LABEL] = spec.name
    if host == "daemonset":
        labels.update(device_plugin_node_labels(spec))
    elif host == "gpu-operator":
        labels.update(operator_node_labels(spec, "aws"))
    elif host == "dra-driver":
        labels[GPU_ACCESS_LABEL] = "dra"
        # Installer chart: the GPU Operator beside the DRA driver (a ClusterPolicy) partitions MIG pools only (its
        # MIG manager reads the label) and runs nothing on the others (operands=false). Installer gpu-operator: a
        # GPUCluster's node labeller ignores operands=false, so its DRA driver runs here (gpu_components.nvidia.
        # gpu_operator's module docstring).
        labels.update(mig_node_labels(spec) if spec.mig is not None else operand_off_label("operands"))
    elif gpu_stack == "gpu-operator":
        labels.update(operand_off_label("operands"))
    if gpu_stack == "dra" and host in ("daemonset", "node-image"):
        labels.update(operand_off_label("operands"))
    if host != "dra-driver":
        labels.update(autoscaler_gpu_label(spec))
    labels.update(sharing_trust_labels(spec))
    return dict(sorted(labels.items()))


def autoscaler_gpu_label(spec: GpuNodePoolSpec) -> dict[str, str]:
    """``{AUTOSCALER_GPU_LABEL: "nvidia-<GPU model, lowercase>"}`` when the pool's nodes advertise ``nvidia.com/gpu``,
    else ``{}`` (see :data:`AUTOSCALER_GPU_LABEL`)."""
    if advertised_resources(spec).get(GPU_RESOURCE, 0) == 0:
        return {}
    return {AUTOSCALER_GPU_LABEL: f"nvidia-{spec.gpu.name.lower()}"}


def autoscaler_tags(
    spec: GpuNodePoolSpec, labels: Mapping[str, str], advertised: Mapping[str, int] | None = None
) -> dict[str, str]:
    """The Cluster Autoscaler's node-template tags for an EKS pool's Auto Scaling group (tag key -> value, sorted).

    Resources: what one node advertises (``advertised``; defaults to the NVIDIA device plugin's resources, and is
    empty on a DRA pool), and ``nvidia.com/gpu`` = ``0`` when that is not among them (the template would otherwise
    count the instance type's whole GPUs). Labels: every label in ``labels`` (the node group's).
    Taints: every taint of the pool, valued ``<value>:<Effect>`` (Kubernetes spelling). Source:
    :data:`SOURCE_AUTOSCALER`.
    """
    resources = {GPU_RESOURCE: 0, **(advertised_resources(spec) if advertised is None else advertised)}
    tags = {f"{CLUSTER_AUTOSCALER_RESOURCE_TAG}{name}": str(count) for name, count in resources.items()}
    tags.update({f"{CLUSTER_AUTOSCALER_LABEL_TAG}{key}": value for key, value in labels.items()})
    tags.update({f"{CLUSTER_AUTOSCALER_TAINT_TAG}{t.key}": f"{t.value}:{t.effect}" for t in spec.taints})
    return dict(sorted(tags.items()))


def autoscaler_tag_role(key: str) -> str:
    """The ``<what>`` of an autoscaler tag's resource name ``<name>-autoscaler-<what>``: the resource name with
    ``/`` as ``-`` (``nvidia.com-gpu``, the names these tags have always had), ``label-<key>`` or ``taint-<key>``."""
    if key.startswith(CLUSTER_AUTOSCALER_RESOURCE_TAG):
        return key.removeprefix(CLUSTER_AUTOSCALER_RESOURCE_TAG).replace("/", "-")
    if key.startswith(CLUSTER_AUTOSCALER_LABEL_TAG):
        return f"label-{key.removeprefix(CLUSTER_AUTOSCALER_LABEL_TAG)}"
    return f"taint-{key.removeprefix(CLUSTER_AUTOSCALER_TAINT_TAG)}"


def autoscaling_group_name(resources: Sequence[Any] | None) -> str:
    """The Auto Scaling group of a managed node group, from its ``resources`` output: EKS creates one group per
    node group (``resources[0].autoscalingGroups[0]``; DescribeNodegroup API). ``""`` when no group is reported,
    which happens only under test mocks that echo inputs (a program's own ``pulumi.runtime.Mocks``)."""
    groups = [group for item in resources or [] for group in item.autoscaling_groups or []]
    return str(groups[0].name) if groups else ""


def eks_autoscaler_note(spec: GpuNodePoolSpec, host: DevicePluginHost) -> str | None:
    """What the Cluster Autoscaler cannot model about the pool's nodes despite the tags, or ``None``: nodes that
    advertise no ``nvidia.com/gpu``, and MIG made by the GPU Operator's MIG manager (AL2023 pools; Bottlerocket
    partitions GPUs before its device plugin starts). See :mod:`gpu_components.autoscaler`."""
    late_mig = LATE_MIG_NOTE if host == "gpu-operator" and spec.mig is not None else None
    return joined(gpu_resource_note(advertised_resources(spec)), late_mig)


def eks_pool_view(spec: GpuNodePoolSpec, ami_type: str | None = None, gpu_stack: GpuStack = "auto") -> PoolView:
    """What an :class:`EksGpuNodeGroup` of the pool exposes, without creating it: ``ami_type`` (``None``: the
    default, :func:`ami_type_for`) decides who advertises its GPUs (:func:`device_plugin_host`) and with the GPU
    stack its labels (:func:`node_labels`); its taints are the spec's (EKS adds none); the node selector is the
    pool label; ``driver_setting`` is the AMI type."""
    chosen = ami_type_for(spec, ami_type)
    host = device_plugin_host(chosen, gpu_stack, spec.uses_dra(gpu_stack))
    return PoolView(
        spec=spec,
        device_plugin_host=host,
        labels=node_labels(spec, host, gpu_stack),
        taints=spec.taints,
        advertised_resources={} if host == "dra-driver" else advertised_resources(spec),
        node_selector={POOL_LABEL: spec.name},
        autoscaler_note=eks_autoscaler_note(spec, host),
        tolerations=tolerations(spec.taints),
        driver_setting=chosen,
        driver_setting_set=ami_type is not None,
    )


def node_group_inputs(spec: GpuNodePoolSpec, ami_type: str, gpu_stack: GpuStack = "auto") -> dict[str, Any]:
    """The plain ``aws.eks.NodeGroup`` inputs derived from the spec (cluster wiring excluded). ``disk_size`` is the
    pool's disk, except on Bottlerocket pools, whose launch template carries it (:data:`SOURCE_CREATE_NODEGROUP`)."""
    host = device_plugin_host(ami_type, gpu_stack, spec.uses_dra(gpu_stack))
    inputs: dict[str, Any] = {
        "ami_type": ami_type,
        "instance_types": [spec.instance_type],
        "capacity_type": "SPOT" if spec.spot else "ON_DEMAND",
        "scaling_config": {
            "min_size": spec.min_size,
            "max_size": spec.max_size,
            "desired_size": spec.desired_size,
        },
        "labels": node_labels(spec, host, gpu_stack),
        "taints": eks_taints(spec.taints),
    }
    if host != "node-image":
        inputs["disk_size"] = spec.disk_size_gb
    return inputs


def node_group_args_problems(given: object, ami_type: object, path: str = "node_group_args") -> list[Problem]:
    """Problems with ``node_group_args`` (:data:`NODE_GROUP_ARGS`), and ``remote_access`` on a Bottlerocket pool
    (``ami_type`` ``BOTTLEROCKET_*``), whose launch template EKS does not combine with it
    (:data:`SOURCE_CREATE_NODEGROUP`)."""
    problems = NODE_GROUP_ARGS.problems(given, path)
    bottlerocket_pool = isinstance(ami_type, str) and device_plugin_host(ami_type) == "node-image"
    if bottlerocket_pool and isinstance(given, Mapping) and "remote_access" in given:
        problems.append(
            Problem(
                f"{path}.remote_access",
                given["remote_access"],
                "EKS refuses remote_access on a node group with a launch template, and Bottlerocket pools carry "
                "their device plugin settings in one",
                "no remote_access (Bottlerocket's admin container gives shell access)",
                SOURCE_CREATE_NODEGROUP,
            )
        )
    return problems


def tag_problems(tags: object, path: str = "tags") -> list[Problem]:
    """Problems with the node group's ``tags``: keys under :data:`CLUSTER_AUTOSCALER_TEMPLATE_TAG`, which the
    library sets and which the autoscaler would read over the Auto Scaling group's."""
    return owned_tag_problems(
        tags,
        CLUSTER_AUTOSCALER_TEMPLATE_TAG,
        "set by gpu_components: the Cluster Autoscaler reads node-template tags from the node group too, and they "
        "would override the library's",
        f"a key not under {CLUSTER_AUTOSCALER_TEMPLATE_TAG}",
        SOURCE_AUTOSCALER,
        path=path,
    )


EC2_ASSUME_ROLE_POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    },
    sort_keys=True,
)
"""The trust policy of a role EC2 instances (nodes) assume."""


def create_node_role(
    name: str, opts: pulumi.ResourceOptions | None = None, policies: Mapping[str, str] | None = None
) -> tuple[aws.iam.Role, list[pulumi.Resource]]:
    """An IAM role EC2 nodes can assume, with ``policies`` (suffix -> managed policy ARN; defaults to
    :data:`NODE_ROLE_POLICIES`) attached.

    Returns the role (``<name>``) and its policy attachments (``<name>-<suffix>``, by default
    ``<name>-<worker|ecr|cni>``), which node groups should depend on.
    """
    role = aws.iam.Role(name, assume_role_policy=EC2_ASSUME_ROLE_POLICY, opts=opts)
    attachments: list[pulumi.Resource] = [
        aws.iam.RolePolicyAttachment(f"{name}-{suffix}", role=role.name, policy_arn=arn, opts=opts)
        for suffix, arn in (NODE_ROLE_POLICIES if policies is None else policies).items()
    ]
    return role, attachments


class EksGpuNodeGroup(pulumi.ComponentResource):
    """An EKS managed node group of NVIDIA GPU nodes for one validated pool.

    Children: ``<name>-node-role`` and ``<name>-node-role-<worker|ecr|cni>`` (when no role is given),
    ``<name>-launch-template`` (Bottlerocket only: the device plugin settings as TOML user data, and the node disk
    on Bottlerocket's data volume), ``<name>-node-group``, and one ``aws.autoscaling.Tag`` per Cluster Autoscaler
    node-template tag (:func:`autoscaler_tags`) on the node group's Auto Scaling group, named
    ``<name>-autoscaler-<what>`` (:func:`autoscaler_tag_role`: ``nvidia.com-gpu``, ``label-<key>``,
    ``taint-<key>``). The tags are registered with the component, so a preview shows them; the group's name, known
    once the node group exists, is their input.
    The node group ignores changes to ``scalingConfig.desiredSize`` so the Cluster Autoscaler owns it.
    Providers: ``aws``.

    Outputs: ``node_group_arn``, ``node_role_arn``, ``node_group_name``, ``autoscaling_group_name`` (known after
    deployment), ``pool_name``, ``labels``, ``taints``, ``tolerations``, ``node_selector``, ``advertised_resources``,
    ``dra_devices``, ``device_plugin_host``, ``autoscaler_note`` (plain values, known at preview). Other attributes:
    ``spec``, ``ami_type``, ``gpu_stack``, ``node_group`` (the ``aws.eks.NodeGroup``), ``served_by``.

    Raises:
        GpuSpecError: invalid pool, a provisioned pool (a ``provisioning`` block: an
            :class:`~gpu_components.aws.EksKarpenterGpuNodePool` or :class:`~gpu_components.aws.EksAutoModeGpuNodePool`
            makes it), non-NVIDIA or wrong-architecture AMI type, sharing the image (or, for MIG on
            AL2023, the GPU stack) cannot do, labels or taints the autoscaler's tags cannot carry, autoscaler tags
            in ``tags``, ``node_group_args`` keys that ``NodeGroup`` does not take or the library owns.
    """

    node_group_arn: pulumi.Output[str]
    """ARN of the EKS managed node group."""
    node_role_arn: pulumi.Output[str]
    """ARN of the nodes' IAM role: the one given, or the role the component created."""
    node_group_name: pulumi.Output[str]
    """Name of the EKS managed node group (Pulumi's auto-name of ``<name>-node-group`` unless ``node_group_args``
    names it)."""
    autoscaling_group_name: pulumi.Output[str]
    """Name of the Auto Scaling group EKS created for the node group (the Cluster Autoscaler's node-template tags are
    on it)."""
    pool_name: str
    """The pool's name."""
    labels: dict[str, str]
    """Every node label the pool's nodes get from the node group: the user's, ``gpu-components/pool``, the labels
    that select the device plugin's or GPU Operator's config, the Cluster Autoscaler's
    ``k8s.amazonaws.com/accelerator``, and ``gpu-components/sharing`` for trusted sharing."""
    taints: PoolTaints
    """Every taint on the pool's nodes (Kubernetes spelling; ``value`` ``""`` when a taint has none), the default GPU
    taint first when on."""
    tolerations: PoolTolerations
    """The tolerations a pod needs for every taint of the pool's nodes: ``key``, ``operator`` (``Equal`` with a
    ``value``, ``Exists`` without one) and ``effect``, as a pod spec's ``tolerations`` takes them."""
    node_selector: dict[str, str]
    """Node labels a pod selects to land on this pool: ``gpu-components/pool: <pool name>``."""
    advertised_resources: dict[str, int]
    """Extended resource name -> how many each node advertises (e.g. ``nvidia.com/gpu: 4`` for one GPU
    time-sliced 4 ways, ``nvidia.com/mig-1g.10gb: 7`` under the mixed MIG strategy)."""
    dra_devices: dict[str, int]
    """What each node publishes to DRA when NVIDIA's DRA driver serves the pool (``gpu.nvidia.com`` or
    ``mig.nvidia.com/<profile>`` -> devices per node, :func:`~gpu_components.dra.dra_devices`), else ``{}``."""
    device_plugin_host: PoolDevicePluginHost
    """Who advertises the pool's GPUs: ``daemonset`` (the NVIDIA device plugin DaemonSet, ``NvidiaDevicePlugin``),
    ``gpu-operator`` (the GPU Operator's device plugin, ``NvidiaGpuOperator``), ``node-image`` (Bottlerocket's host
    device plugin) or ``dra-driver`` (NVIDIA's DRA driver: a pool with ``gpu_access`` ``dra``)."""
    autoscaler_note: str | None
    """What the Cluster Autoscaler cannot model about the pool's nodes when it scales the pool from zero despite the
    node-template tags (nodes that advertise no ``nvidia.com/gpu``; MIG made by the GPU Operator's MIG manager), or
    null."""

    def __init__(self, name: str, args: EksGpuNodeGroupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        spec = collected(
            lambda: validated_pool(
                EksGpuNodeGroupArgs,
                args,
                "aws",
                lambda spec: eks_problems(
                    spec, args.get("ami_type"), "pool", value_of(args.get("gpu_stack", "auto")), "ami_type"
                ),
                fixed=_provisioned_problems,
            ),
            _own_args_problems(args),
        )
        gpu_stack: GpuStack = value_of(args.get("gpu_stack", "auto"))
        super().__init__("gpu-components:index:EksGpuNodeGroup", name, None, opts)
        view = eks_pool_view(spec, args.get("ami_type"), gpu_stack)
        self.spec: GpuNodePoolSpec = spec
        self.served_by: str | None = None
        self.pool_name = spec.name
        adopt_view(self, view)
        self.gpu_stack: GpuStack = gpu_stack
        self.ami_type: str = view.driver_setting
        inputs = node_group_inputs(spec, self.ami_type, gpu_stack)
        child = pulumi.ResourceOptions(parent=self)

        role_arn = args.get("node_role_arn")
        depends: list[pulumi.Resource] = []
        if role_arn is None:
            role, depends = create_node_role(f"{name}-node-role", child)
            role_arn = role.arn

        launch_template: aws.eks.NodeGroupLaunchTemplateArgs | None = None
        if self.device_plugin_host == "node-image":
            template = aws.ec2.LaunchTemplate(
                f"{name}-launch-template",
                user_data=base64.b64encode(bottlerocket.user_data(spec).encode()).decode(),
                block_device_mappings=bottlerocket.block_devices(spec),
                update_default_version=True,
                opts=child,
            )
            launch_template = aws.eks.NodeGroupLaunchTemplateArgs(
                version=template.latest_version.apply(str), id=template.id
            )

        ours = {
            "cluster_name": args["cluster_name"],
            "node_role_arn": role_arn,
            "subnet_ids": args["subnet_ids"],
            "launch_template": launch_template,
            "tags": dict(args.get("tags", {})),
            **inputs,
        }
        self.node_group: aws.eks.NodeGroup = aws.eks.NodeGroup(
            f"{name}-node-group",
            **NODE_GROUP_ARGS.merged(ours, args.get("node_group_args")),
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends, **NODE_GROUP_OPTIONS.resource_options()),
        )
        self.node_group_arn = self.node_group.arn
        self.node_role_arn = pulumi.Output.from_input(role_arn)
        self.node_group_name = self.node_group.node_group_name
        self.autoscaling_group_name = self.node_group.resources.apply(autoscaling_group_name)
        for key, value in autoscaler_tags(spec, self.labels, self.advertised_resources).items():
            aws.autoscaling.Tag(
                f"{name}-autoscaler-{autoscaler_tag_role(key)}",
                autoscaling_group_name=self.autoscaling_group_name,
                tag={"key": key, "value": value, "propagate_at_launch": False},
                opts=child,
            )
        self.register_outputs(
            {
                "nodeGroupArn": self.node_group_arn,
                "nodeRoleArn": self.node_role_arn,
                "nodeGroupName": self.node_group_name,
                "autoscalingGroupName": self.autoscaling_group_name,
                **pool_outputs(self),
            }
        )


def _provisioned_problems(pool: object) -> list[Problem]:
    """A provisioned pool given to :class:`EksGpuNodeGroup`, which makes managed node groups of fixed bounds only:
    Karpenter pools are :class:`~gpu_components.aws.EksKarpenterGpuNodePool`, EKS Auto Mode pools
    :class:`~gpu_components.aws.EksAutoModeGpuNodePool`."""
    return fixed_pool_problems(
        pool,
        "EksGpuNodeGroup",
        "a fixed EKS managed node group",
        {
            "karpenter": ("Karpenter", "EksKarpenterGpuNodePool"),
            "eks-auto-mode": ("EKS Auto Mode", "EksAutoModeGpuNodePool"),
        },
    )


def _own_args_problems(args: object) -> list[Problem]:
    """The problems of the component's own args that need no pool: ``cluster_name`` and ``node_role_arn`` (when
    plain strings: :data:`~gpu_components.aws.facts.ROLE_ARN_FORM`), ``tags`` and ``node_group_args``."""
    if not isinstance(args, Mapping):
        return []
    return (
        cluster_name_problems(args.get("cluster_name"), "cluster_name")
        + ROLE_ARN_FORM.problems(args.get("node_role_arn"), "node_role_arn")
        + subnet_ids_problems(args.get("subnet_ids"), "subnet_ids")
        + tag_problems(args.get("tags"))
        + node_group_args_problems(args.get("node_group_args"), args.get("ami_type"))
    )


SOURCE_NODE_GROUP_SUBNETS = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
"""EKS ``CreateNodegroup``: ``subnets``, required, the subnets of the node group's instances."""


def subnet_ids_problems(subnet_ids: object, path: str) -> list[Problem]:
    """An empty plain list of subnets at ``path``: EKS creates a node group in at least one subnet
    (:data:`SOURCE_NODE_GROUP_SUBNETS`), so the request would fail at deploy time. Outputs and other types are left to
    the shape check."""
    if isinstance(subnet_ids, (list, tuple)) and not subnet_ids:
        return [
            Problem(
                path, [], "a node group needs at least one subnet", "one subnet id or more", SOURCE_NODE_GROUP_SUBNETS
            )
        ]
    return []


def cluster_name_problems(name: object, path: str) -> list[Problem]:
    """``name`` (at ``path``) as EKS's ``CreateCluster`` takes a cluster name
    (:data:`~gpu_components.aws.facts.CLUSTER_NAME_FORM`: 1 to 100 characters); an existing cluster's name was made
    under the same rule, so a name outside it names no cluster. A name that is not a plain string (an output) is not
    checked."""
    return CLUSTER_NAME_FORM.problems(name, path)
