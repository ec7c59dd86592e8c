"""What the example program needs of an EKS cluster: create a minimal one, or attach to an existing one.

A new cluster is a pulumi-eks ``Cluster`` (API authentication mode, no default node group) with a small
``AL2023_x86_64_STANDARD`` system node group for add-ons, in the given VPC or the account's default VPC. For
provisioned GPU pools it can also get:

- ``karpenter``: the Karpenter controller, a :class:`~gpu_components.aws.karpenter.KarpenterController` named
  ``<cluster>-karpenter`` (as Karpenter v1.14's getting-started guide sets it up,
  :data:`~gpu_components.aws.facts.SOURCE_KARPENTER_GETTING_STARTED`): a role for the nodes it launches with an
  ``EC2_LINUX`` access entry (a role of its own: a managed node group's role needs no access entry, EKS adds one, and a
  principal has one access entry per cluster, :data:`~gpu_components.aws.facts.SOURCE_ACCESS_ENTRIES`), the
  controller's role and policy through EKS Pod Identity, the interruption queue with its policy and EventBridge rules,
  and the chart (pinned, :data:`~gpu_components.aws.facts.KARPENTER_VERSION`) on the system node group, set up through
  the Kubernetes provider before the GPU pools (:attr:`~gpu_components.adapter.ProvisionedCluster.kubernetes`). The
  pools' wiring then says ``karpenter_controller: true`` (as it does on an existing cluster with
  ``karpenter.existing``).
- ``auto_mode``: EKS Auto Mode (pulumi-eks ``autoMode``, which turns compute, block storage and load balancing on
  together as EKS requires, :data:`~gpu_components.aws.facts.SOURCE_PULUMI_EKS_AUTO_MODE`), with its built-in
  ``general-purpose`` and ``system`` node pools (which run the add-ons: no system node group) and a node role the
  program creates (:data:`~gpu_components.aws.facts.SOURCE_AUTO_NODE_ROLE`), whose access entry EKS creates.

The GPU pools' wiring (:class:`~gpu_components.aws.options.EksWiringArgs`) then names the provisioner's node role as
``node_role_arn``: the role Karpenter may pass to EC2, or the Auto Mode node role a NodeClass must name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import pulumi
from typing_extensions import NotRequired, TypedDict

from gpu_components.adapter import (
    KubernetesInstall,
    ProvisionedCluster,
    SystemImage,
    SystemPoolSizes,
    VersionForm,
    example_cluster_problems,
    system_instance_type_problems,
)
from gpu_components.aws import karpenter_controller as karpenter
from gpu_components.aws._sdk import aws, eks
from gpu_components.aws.eks import cluster_name_problems, create_node_role, subnet_ids_problems
from gpu_components.aws.facts import (
    FACTS,
    INSTANCE_TYPE_FORM,
    KARPENTER_VERSION,
    KARPENTER_WITH_AUTO_MODE,
    NODE_GROUP_OPTIONS,
    REGION_FORM,
    ROLE_ARN_FORM,
    SOURCE_ACCESS_ENTRIES,
    SOURCE_AUTO_MIGRATE_KARPENTER,
    SOURCE_KARPENTER_GETTING_STARTED,
    SOURCE_PULUMI_EKS_AUTO_MODE,
)
from gpu_components.aws.karpenter import KarpenterController
from gpu_components.enums import value_of
from gpu_components.errors import Default, Problem
from gpu_components.labels import SYSTEM_ROLE_LABEL
from gpu_components.shape import STRICT

DEFAULT_KUBERNETES_VERSION = "1.34"
"""Kubernetes version of a new EKS cluster: in EKS standard support in late 2026 (EKS version calendar)."""
SYSTEM_INSTANCE_TYPE = "m7i.large"
"""Instance type of the small system node group that runs add-ons (CoreDNS, the device plugin's controller)."""
SYSTEM_IMAGE = SystemImage(
    "AL2023_x86_64_STANDARD",
    "x86_64",
    "https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html (amiType)",
)
"""The system node group's AMI type: Amazon Linux 2023 for x86_64 instances (an arm64 type needs
``AL2023_ARM_64_STANDARD``)."""
CONFIG_SETTINGS: Mapping[str, str | None] = {"cluster_name": "cluster.name", "node_selector": None}
"""Where the ``cluster`` config decides what :class:`~gpu_components.aws.karpenter.KarpenterController` inputs
decide: the cluster's name; the controller's nodes are the system node group's, not configurable."""
SYSTEM_SIZES = SystemPoolSizes("system_node_group", ("min_size", "desired_size", "max_size"), (1, 2, 3))
"""The system node group's node counts (``scalingConfig``): 1 to 3 nodes, 2 at creation."""
VERSION_FORM = VersionForm(
    re.compile(r"(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)"),  # Kubernetes writes no leading zero (1.036 is no version)
    "MAJOR.MINOR, e.g. 1.34",
    "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html",
)
"""A new cluster's ``kubernetes_version``: EKS takes the minor version only (CreateCluster ``version``)."""
NEW_CLUSTER_ONLY = ("kubernetes_version", "vpc_id", "system_node_group")
"""``cluster`` keys that shape a cluster this program creates, refused with ``existing: true``."""
AUTO_MODE_NODE_POOLS = ("general-purpose", "system")
"""EKS Auto Mode's built-in node pools a new Auto Mode cluster gets (pulumi-eks's default): ``system`` runs the
add-ons, ``general-purpose`` other workloads."""
RESERVED_CAPACITY_VERSION = "1.3.0"
"""The first Karpenter release with native capacity reservation support (capacity type ``reserved``,
``capacityReservationSelectorTerms``), behind its ``ReservedCapacity`` feature gate, alpha and off by default
(:data:`SOURCE_KARPENTER_ODCRS`)."""
RESERVED_CAPACITY_DEFAULT_VERSION = "1.6.0"
"""The first Karpenter release whose ``ReservedCapacity`` gate is beta and on by default (the chart's
``settings.featureGates.reservedCapacity: true``, false in 1.3.0 to 1.5.x: ``charts/karpenter/values.yaml`` of
aws/karpenter-provider-aws at those tags; :data:`SOURCE_KARPENTER_ODCRS`)."""
SOURCE_KARPENTER_ODCRS = (
    "https://karpenter.sh/docs/tasks/odcrs/; https://github.com/aws/karpenter-provider-aws/blob/v1.6.0/charts/"
    "karpenter/values.yaml (settings.featureGates.reservedCapacity)"
)
INCLUSIVE_OPERATORS_VERSION = "1.9.0"
"""The first Karpenter release whose NodePool requirements take the ``Gte`` and ``Lte`` operators
(kubernetes-sigs/karpenter#2674, first in its v1.9.0, which aws/karpenter-provider-aws v1.9.0 builds on; the NodePool
CRD of 1.8.x lists only ``In`` to ``Lt``: :data:`SOURCE_KARPENTER_GTE_LTE`)."""
SOURCE_KARPENTER_GTE_LTE = (
    "https://github.com/kubernetes-sigs/karpenter/pull/2674; https://karpenter.sh/docs/concepts/nodepools/"
)
INCLUSIVE_OPERATORS = ("Gte", "Lte")
"""The requirement operators Karpenter takes from :data:`INCLUSIVE_OPERATORS_VERSION` on."""
RESERVED_CAPACITY_GATE = ("settings", "featureGates", "reservedCapacity")
"""Where the Karpenter chart (1.3.0 on) takes the ``ReservedCapacity`` feature gate."""
AUTO_MODE_NODE_ROLE_POLICIES = {
    "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
    "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
}
"""Managed policies of the Auto Mode node role (role suffix -> ARN):
:data:`~gpu_components.aws.facts.SOURCE_AUTO_NODE_ROLE`."""


@STRICT
class SystemNodeGroupConfig(TypedDict):
    """The non-GPU node group for cluster add-ons. Defaults: ``m7i.large``, 1 to 3 nodes, 2 at creation. With
    ``karpenter``, at least as many nodes at creation as Karpenter controller replicas (the chart's 2)."""

    instance_type: NotRequired[str]
    min_size: NotRequired[int]
    max_size: NotRequired[int]
    desired_size: NotRequired[int]


@STRICT
class KarpenterConfig(TypedDict):
    """``cluster.karpenter``: the Karpenter controller for Karpenter GPU pools.

    Fields:
        existing: the cluster already runs Karpenter (with its IAM, interruption queue and node role): create nothing,
            and give the role its nodes use as ``cluster.node_role_arn``. Required with ``cluster.existing``; refused
            on a new cluster. Defaults to False.
        version: the chart (and controller) version, exact, from ``1.0.0`` on. Defaults to ``1.14.1``, the version
            of the CRDs the library's NodePools and EC2NodeClasses are checked against. ``v1.14.1`` is refused: the
            chart's versions have no ``v``.
        helm_values: other chart values (e.g. ``settings.featureGates.nodeOverlay``), merged over the library's.
            Defaults to none. Refused: what the library sets (``settings.clusterName``,
            ``settings.interruptionQueue``, ``serviceAccount.name``, ``nodeSelector``: the system node group,
            ``controller.resources``) and the chart values it relies on (``serviceAccount.create``, ``affinity``),
            :data:`~gpu_components.aws.karpenter_controller.OWNED_HELM_VALUES`; a value that is not a mapping where
            the library sets keys inside.
    """

    existing: NotRequired[bool]
    version: NotRequired[str]
    helm_values: NotRequired[dict[str, Any]]


@STRICT
class AutoModeConfig(TypedDict):
    """``cluster.auto_mode``: EKS Auto Mode for Auto Mode GPU pools.

    Fields:
        existing: the cluster already has Auto Mode on: give its node role (the compute config's ``nodeRoleArn``) as
            ``cluster.node_role_arn``. Required with ``cluster.existing``; refused on a new cluster. Defaults to False.
    """

    existing: NotRequired[bool]


@STRICT
class EksClusterConfig(TypedDict):
    """``cluster`` config on AWS.

    Fields:
        name: EKS cluster name (created, or looked up when ``existing``).
        existing: attach to the existing cluster ``name`` instead of creating one. Defaults to False.
        kubernetes_version: version of a new cluster. Defaults to ``1.34``.
        vpc_id, subnet_ids: network of a new cluster and of the node groups. Defaults to the account's default
            VPC and its subnets; ``subnet_ids`` is required with ``existing``.
        node_role_arn: IAM role for the node groups. Defaults to one role created for all of them. With
            ``auto_mode``: the Auto Mode node role (defaults to one created for it); required with an existing
            Karpenter or Auto Mode, whose node role it must be. An IAM role's ARN,
            ``arn:<aws|aws-cn|aws-us-gov>:iam::<12-digit account>:role/<optional path/><name>``.
        system_node_group: see :class:`SystemNodeGroupConfig` (new clusters only; not with ``auto_mode``).
        karpenter: the Karpenter controller, see :class:`KarpenterConfig`. Defaults to none.
        auto_mode: EKS Auto Mode, see :class:`AutoModeConfig`. Defaults to off. Not with ``karpenter``.
    """

    name: str
    existing: NotRequired[bool]
    kubernetes_version: NotRequired[str]
    vpc_id: NotRequired[str]
    subnet_ids: NotRequired[list[str]]
    node_role_arn: NotRequired[str]
    system_node_group: NotRequired[SystemNodeGroupConfig]
    karpenter: NotRequired[KarpenterConfig]
    auto_mode: NotRequired[AutoModeConfig]


def eks_kubeconfig(cluster_name: str, endpoint: str, certificate_authority: str) -> str:
    """A kubeconfig (JSON) for an EKS cluster that authenticates with ``aws eks get-token``."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": cluster_name,
                    "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority},
                }
            ],
            "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
            "current-context": cluster_name,
            "users": [
                {
                    "name": cluster_name,
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "aws",
                            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--output", "json"],
                        }
                    },
                }
            ],
        },
        sort_keys=True,
    )


def _network(cluster: EksClusterConfig) -> tuple[pulumi.Input[str], pulumi.Input[Sequence[str]]]:
    if "subnet_ids" in cluster and "vpc_id" in cluster:
        return cluster["vpc_id"], cluster["subnet_ids"]
    vpc_id = cluster["vpc_id"] if "vpc_id" in cluster else aws.ec2.get_vpc(default=True).id
    subnet_ids = cluster.get("subnet_ids") or aws.ec2.get_subnets(filters=[{"name": "vpc-id", "values": [vpc_id]}]).ids
    return vpc_id, subnet_ids


def _system_node_group(
    cluster: EksClusterConfig,
    role_arn: pulumi.Input[str],
    subnet_ids: pulumi.Input[Sequence[str]],
    depends_on: list[pulumi.Resource],
) -> aws.eks.NodeGroup:
    system = cluster.get("system_node_group", {})
    counts = SYSTEM_SIZES.counts(cluster)
    return aws.eks.NodeGroup(
        f"{cluster['name']}-system",
        cluster_name=cluster["name"],
        node_role_arn=role_arn,
        subnet_ids=subnet_ids,
        ami_type=SYSTEM_IMAGE.name,
        instance_types=[system.get("instance_type", SYSTEM_INSTANCE_TYPE)],
        scaling_config={
            "min_size": counts["min_size"],
            "max_size": counts["max_size"],
            "desired_size": counts["desired_size"],
        },
        labels={SYSTEM_ROLE_LABEL: "system"},
        opts=pulumi.ResourceOptions(depends_on=depends_on, ignore_changes=list(NODE_GROUP_OPTIONS.ignore_changes)),
    )


def _karpenter(
    cluster: EksClusterConfig, ready: list[pulumi.Resource]
) -> Callable[[pulumi.ProviderResource], KubernetesInstall]:
    """The step that sets the Karpenter controller up (:class:`~gpu_components.aws.karpenter.KarpenterController`,
    ``<cluster>-karpenter``) once the Kubernetes provider exists, after ``ready`` (the cluster and its system node
    group, where the controller runs); the pools wait for it and take its node role."""
    settings = {key: value for key, value in cluster.get("karpenter", {}).items() if key != "existing"}

    def install(provider: pulumi.ProviderResource) -> KubernetesInstall:
        controller = KarpenterController(
            f"{cluster['name']}-karpenter",
            {"cluster_name": cluster["name"], **settings},  # type: ignore[typeddict-item]
            pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=ready),
        )
        return KubernetesInstall([controller], {"node_role_arn": controller.node_role_arn})

    return install


def _create(cluster: EksClusterConfig) -> ProvisionedCluster:
    name = cluster["name"]
    vpc_id, subnet_ids = _network(cluster)
    depends_on: list[pulumi.Resource] = []
    auto_mode = "auto_mode" in cluster
    role_arn: pulumi.Input[str]
    if "node_role_arn" in cluster:
        role_arn = cluster["node_role_arn"]
    else:
        policies = AUTO_MODE_NODE_ROLE_POLICIES if auto_mode else None
        role, attachments = create_node_role(f"{name}-{'auto-' if auto_mode else ''}node-role", policies=policies)
        role_arn = role.arn
        depends_on.extend(attachments)
    auto_mode_args: dict[str, Any] = {}
    if auto_mode:
        auto_mode_args["auto_mode"] = {
            "enabled": True,
            "create_node_role": False,
            "compute_config": {"node_role_arn": role_arn, "node_pools": list(AUTO_MODE_NODE_POOLS)},
        }
    eks_cluster = eks.Cluster(
        name,
        name=name,
        version=cluster.get("kubernetes_version", DEFAULT_KUBERNETES_VERSION),
        vpc_id=vpc_id,
        subnet_ids=subnet_ids,
        skip_default_node_group=True,
        authentication_mode=eks.AuthenticationMode.API,
        **auto_mode_args,
        opts=pulumi.ResourceOptions(depends_on=depends_on) if auto_mode else None,
    )
    wiring: dict[str, Any] = {"cluster_name": name, "subnet_ids": subnet_ids, "node_role_arn": role_arn}
    if auto_mode:
        return ProvisionedCluster(
            kubeconfig=eks_cluster.kubeconfig_json, wiring=wiring, depends_on=[eks_cluster, *depends_on]
        )
    system_group = _system_node_group(cluster, role_arn, subnet_ids, [eks_cluster, *depends_on])
    ready: list[pulumi.Resource] = [eks_cluster, system_group, *depends_on]
    if "karpenter" not in cluster:
        return ProvisionedCluster(kubeconfig=eks_cluster.kubeconfig_json, wiring=wiring, depends_on=ready)
    return ProvisionedCluster(
        kubeconfig=eks_cluster.kubeconfig_json,
        wiring={**wiring, "karpenter_controller": True},
        depends_on=ready,
        kubernetes=_karpenter(cluster, [eks_cluster, system_group]),
    )


def _attach(cluster: EksClusterConfig) -> ProvisionedCluster:
    found = aws.eks.get_cluster_output(name=cluster["name"])
    kubeconfig = pulumi.Output.all(found.endpoint, found.certificate_authorities).apply(
        lambda parts: eks_kubeconfig(cluster["name"], parts[0], parts[1][0]["data"])
    )
    wiring: dict[str, Any] = {"cluster_name": cluster["name"], "subnet_ids": cluster["subnet_ids"]}
    if "node_role_arn" in cluster:
        wiring["node_role_arn"] = cluster["node_role_arn"]
    if "karpenter" in cluster:
        wiring["karpenter_controller"] = True
    return ProvisionedCluster(kubeconfig=kubeconfig, wiring=wiring)


def _provisioner_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """The rules of ``karpenter`` and ``auto_mode`` (see :func:`config_problems`)."""
    problems: list[Problem] = []
    if "karpenter" in cluster and "auto_mode" in cluster:
        problems.append(
            Problem(
                "cluster.auto_mode",
                cluster["auto_mode"],
                KARPENTER_WITH_AUTO_MODE,
                "karpenter or auto_mode, not both",
                f"{SOURCE_AUTO_MIGRATE_KARPENTER}, {SOURCE_KARPENTER_GETTING_STARTED}",
            )
        )
    existing = bool(cluster.get("existing", False))
    for key, what in (("karpenter", "Karpenter"), ("auto_mode", "EKS Auto Mode")):
        if key not in cluster:
            continue
        given: Mapping[str, Any] = cluster[key]
        attached = bool(given.get("existing", False))
        if existing and not attached:
            problems.append(
                Problem(
                    f"cluster.{key}.existing",
                    attached,
                    f"the program turns {what} on only in a cluster it creates; on an existing cluster it uses the "
                    f"{what} already there",
                    "true (the cluster runs it), or create the cluster (existing: false)",
                )
            )
        if not existing and attached:
            problems.append(
                Problem(
                    f"cluster.{key}.existing",
                    attached,
                    f"a cluster this program creates has no {what} yet",
                    "false (the program sets it up), or attach to the cluster (cluster.existing: true)",
                )
            )
        if not attached:
            continue
        problems += [
            Problem(
                f"cluster.{key}.{field}",
                value,
                f"applies only to a {what} this program sets up; with {key}.existing: true it would be ignored",
                "remove it",
            )
            for field, value in given.items()
            if field != "existing"
        ]
        if existing and "node_role_arn" not in cluster:
            problems.append(
                Problem(
                    "cluster.node_role_arn",
                    None,
                    f"required with {key}.existing: the IAM role of the nodes {what} launches, which the GPU pools' "
                    "node classes name (the one role with the cluster's access entry for them)",
                    source=SOURCE_ACCESS_ENTRIES,
                )
            )
    if "auto_mode" in cluster and not existing and "system_node_group" in cluster:
        problems.append(
            Problem(
                "cluster.system_node_group",
                cluster["system_node_group"],
                "an Auto Mode cluster runs its add-ons on Auto Mode's built-in system node pool, and leaves the VPC "
                "CNI and kube-proxy add-ons a managed node group needs off",
                "remove it",
                SOURCE_PULUMI_EKS_AUTO_MODE,
            )
        )
    karpenter_config: Mapping[str, Any] = cluster.get("karpenter", {})
    if not karpenter_config.get("existing", False):
        problems += karpenter.settings_problems(karpenter_config, "cluster.karpenter.", CONFIG_SETTINGS)
        if "karpenter" in cluster and not existing:
            problems += _karpenter_nodes_problems(cluster)
    return problems


def _karpenter_nodes_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """A new cluster's Karpenter ``helm_values.replicas`` must be a whole number from 1 on (the chart's Deployment
    ``replicas``; 0 runs no controller), and its system node group must start with as many nodes as the chart runs
    controller replicas: each on a node of its own, never on a node Karpenter launches, only on the system node group
    (:data:`~gpu_components.aws.karpenter_controller.CHART_REPLICAS`). With fewer, a replica stays Pending; with
    none, no controller runs and no Karpenter pool ever gets a node; ``desired_size`` cannot exceed ``max_size``, so
    the hint names ``max_size`` too where it is below the replicas.

    ``helm_values`` cannot change that placement: ``nodeSelector`` and ``affinity`` are refused
    (:data:`~gpu_components.aws.karpenter_controller.OWNED_HELM_VALUES`)."""
    overrides = cluster["karpenter"].get("helm_values", {})
    if not isinstance(overrides, Mapping):
        return []
    sizes = cluster.get("system_node_group") or {}
    if not isinstance(sizes, Mapping):
        return []
    desired = sizes.get("desired_size", SYSTEM_SIZES.defaults[1])
    replicas = karpenter.controller_replicas(overrides)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 1:
        return [
            Problem(
                "cluster.karpenter.helm_values.replicas",
                replicas,
                "not a replica count: the Karpenter chart's Deployment replicas of the controller; "
                "0 runs no Karpenter controller, so no provisioned pool ever gets a node",
                f"a whole number from 1 to the system node group's desired_size ({desired})",
                karpenter.SOURCE_KARPENTER_CHART_VALUES,
            )
        ]
    if not isinstance(desired, int) or desired >= replicas:
        return []
    maximum = sizes.get("max_size", SYSTEM_SIZES.defaults[2])
    value = desired if "desired_size" in sizes else Default(desired)
    where = "cluster.karpenter.helm_values.replicas" if "replicas" in overrides else "the chart's default replicas"
    valid = f"at least {replicas}"
    if isinstance(maximum, int) and maximum < replicas:
        valid += f" (and max_size at least {replicas})"
    if desired:
        valid += f", or cluster.karpenter.helm_values.replicas: {desired}"
    return [
        Problem(
            "cluster.system_node_group.desired_size",
            value,
            f"fewer nodes than Karpenter controller replicas ({replicas}, {where}): the chart places each replica "
            "on a node of its own (pod anti-affinity on kubernetes.io/hostname) and never on a node Karpenter "
            "launches, so only the system node group can run them",
            valid,
            karpenter.SOURCE_KARPENTER_CHART_VALUES,
        )
    ]


def config_problems(cluster: Mapping[str, Any]) -> list[Problem]:
    """Rules of the ``cluster`` config beyond its shape: ``name`` is an EKS cluster name
    (:func:`~gpu_components.aws.eks.cluster_name_problems`); the ``aws:region`` config, when set, a Region code
    (:data:`~gpu_components.aws.facts.REGION_FORM`); ``system_node_group.instance_type`` an x86_64 type of the
    catalog, or at least an EC2 instance type's name (:func:`~gpu_components.adapter.system_instance_type_problems`,
    :data:`SYSTEM_IMAGE`);
    those of :func:`~gpu_components.adapter.example_cluster_problems` (:data:`NEW_CLUSTER_ONLY`,
    :data:`SYSTEM_SIZES`), ``subnet_ids`` is required with ``existing``, and of ``karpenter`` and ``auto_mode``: not
    both; with ``existing``, each must say ``existing: true`` (the program sets neither up on a cluster it did not
    create), and a new cluster's must not; with ``existing: true`` no other key of theirs, and ``node_role_arn`` is
    required; no ``system_node_group`` with ``auto_mode``; no ``karpenter.helm_values`` the library sets
    (:data:`~gpu_components.aws.karpenter_controller.OWNED_HELM_VALUES`)."""
    system = cluster.get("system_node_group")
    return (
        cluster_name_problems(cluster.get("name"), "cluster.name")
        + ROLE_ARN_FORM.problems(cluster.get("node_role_arn"), "cluster.node_role_arn")
        + subnet_ids_problems(cluster.get("subnet_ids"), "cluster.subnet_ids")
        + REGION_FORM.problems(pulumi.Config("aws").get("region"), "aws:region")
        + system_instance_type_problems(
            "aws",
            system.get("instance_type") if isinstance(system, Mapping) else None,
            "cluster.system_node_group.instance_type",
            INSTANCE_TYPE_FORM,
            SYSTEM_IMAGE,
        )
        + example_cluster_problems(
            cluster, NEW_CLUSTER_ONLY, SYSTEM_SIZES, VERSION_FORM, existing_requires=("subnet_ids",)
        )
        + _provisioner_problems(cluster)
    )


PROVISIONER_SETTINGS: Mapping[str, tuple[str, str]] = {
    "karpenter": ("karpenter", "the Karpenter controller"),
    "eks-auto-mode": ("auto_mode", "EKS Auto Mode"),
}
"""Provisioner of a pool -> the ``cluster`` key that runs it (what a pool of that provisioner needs) and its name."""


def stack_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Rules between the ``cluster`` config and the pools: a pool's provisioner must run on the cluster
    (:data:`PROVISIONER_SETTINGS`): a Karpenter pool needs ``cluster.karpenter``, an EKS Auto Mode pool
    ``cluster.auto_mode`` (on an existing cluster, those keys say what it runs). Without it the NodePool and its node
    class would be custom resources no controller reads (or whose CRD the cluster lacks: Auto Mode has no
    EC2NodeClass, Karpenter no ``eks.amazonaws.com`` NodeClass). And no fixed pool (a managed node group) on an Auto
    Mode cluster this program creates: it leaves off the VPC CNI and kube-proxy add-ons a managed node group needs,
    as for ``system_node_group`` (:data:`~gpu_components.aws.facts.SOURCE_PULUMI_EKS_AUTO_MODE`)."""
    problems: list[Problem] = []
    new_auto_mode = "auto_mode" in cluster and not cluster.get("existing", False)
    for index, pool in enumerate(pools):
        provisioning = pool.get("provisioning") if isinstance(pool, Mapping) else None
        if not isinstance(provisioning, Mapping):
            if new_auto_mode and isinstance(pool, Mapping):
                problems.append(
                    Problem(
                        f"pools[{index}]",
                        pool.get("name"),
                        "a fixed pool (an EKS managed node group) on the Auto Mode cluster this program creates, which "
                        "leaves off the VPC CNI and kube-proxy add-ons a managed node group needs",
                        "provisioning: {provisioner: eks-auto-mode, ...}",
                        SOURCE_PULUMI_EKS_AUTO_MODE,
                    )
                )
            continue
        provisioner = value_of(provisioning.get("provisioner"))
        setting = PROVISIONER_SETTINGS.get(provisioner) if isinstance(provisioner, str) else None
        if setting is None or setting[0] in cluster:
            continue
        key, what = setting
        runs = [f"cluster.{other}" for other, _ in PROVISIONER_SETTINGS.values() if other in cluster]
        problems.append(
            Problem(
                f"pools[{index}].provisioning.provisioner",
                provisioner,
                f"{provisioner} pools need {what} on the cluster, and the cluster config has no {key}"
                + (f" (it has {', '.join(runs)})" if runs else "")
                + ": nothing would create the pool's nodes",
                f"cluster.{key} (with existing: true on a cluster that already runs it)",
                FACTS.provisioners[provisioner].source,
            )
        )
    return problems + reserved_capacity_problems(cluster, pools) + inclusive_operator_problems(cluster, pools)


def _version(text: str) -> tuple[int, ...]:
    found = karpenter.SEMVER.fullmatch(text)
    assert found is not None, "a version checked by _supported_karpenter"
    return tuple(int(part) for part in found.groups())


def reserved_capacity_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Karpenter pools with ``reserved`` capacity need the controller's ``ReservedCapacity`` feature gate: refused
    when ``cluster.karpenter.helm_values`` turn it off, when ``cluster.karpenter.version`` is before
    :data:`RESERVED_CAPACITY_VERSION` (no reserved capacity at all), or before
    :data:`RESERVED_CAPACITY_DEFAULT_VERSION` (gate off by default) unless the helm values turn it on. Nothing is
    checked on a cluster that already runs Karpenter (``existing: true``: the library does not install it)."""
    settings = cluster.get("karpenter")
    if not isinstance(settings, Mapping) or settings.get("existing", False):
        return []
    reserved = [
        index
        for index, pool in enumerate(pools)
        if isinstance(pool, Mapping)
        and isinstance(pool.get("provisioning"), Mapping)
        and value_of(pool["provisioning"].get("provisioner")) == "karpenter"
        and "reserved" in [value_of(t) for t in pool["provisioning"].get("capacity_types", [])]
    ]
    version = settings.get("version", KARPENTER_VERSION)
    if not reserved or not karpenter.supported_version(version):
        return []
    gate: Any = settings.get("helm_values", {})
    for key in RESERVED_CAPACITY_GATE:
        gate = gate.get(key) if isinstance(gate, Mapping) else None
    pools_text = ", ".join(f"pools[{index}]" for index in reserved)
    gate_path = "cluster.karpenter.helm_values." + ".".join(RESERVED_CAPACITY_GATE)
    if gate is not None and gate is not True:
        return [
            Problem(
                gate_path,
                gate,
                "the ReservedCapacity feature gate is what lets Karpenter launch reserved capacity, which "
                f"{pools_text} use (capacity type reserved)",
                "true, or leave it out",
                SOURCE_KARPENTER_ODCRS,
            )
        ]
    if _version(version) < _version(RESERVED_CAPACITY_VERSION):
        return [
            Problem(
                "cluster.karpenter.version",
                version,
                f"Karpenter supports capacity reservations from {RESERVED_CAPACITY_VERSION} on, and {pools_text} use "
                "reserved capacity",
                f"a release from {RESERVED_CAPACITY_VERSION} on (the gate on by default from "
                f"{RESERVED_CAPACITY_DEFAULT_VERSION}), e.g. {KARPENTER_VERSION}",
                SOURCE_KARPENTER_ODCRS,
            )
        ]
    if _version(version) < _version(RESERVED_CAPACITY_DEFAULT_VERSION) and gate is not True:
        return [
            Problem(
                "cluster.karpenter.version",
                version,
                f"Karpenter's ReservedCapacity feature gate is off by default before "
                f"{RESERVED_CAPACITY_DEFAULT_VERSION}, and {pools_text} use reserved capacity",
                f"{gate_path}: true, or a release from {RESERVED_CAPACITY_DEFAULT_VERSION} on",
                SOURCE_KARPENTER_ODCRS,
            )
        ]
    return []


def inclusive_operator_problems(cluster: Mapping[str, Any], pools: Sequence[Any]) -> list[Problem]:
    """Karpenter pools whose ``gpu_requirements`` use ``Gte`` or ``Lte`` need a Karpenter from
    :data:`INCLUSIVE_OPERATORS_VERSION` on: before it the NodePool CRD refuses those operators. Nothing is checked on
    a cluster that already runs Karpenter (``existing: true``: the library does not install it)."""
    settings = cluster.get("karpenter")
    if not isinstance(settings, Mapping) or settings.get("existing", False):
        return []
    version = settings.get("version", KARPENTER_VERSION)
    if not karpenter.supported_version(version) or _version(version) >= _version(INCLUSIVE_OPERATORS_VERSION):
        return []
    using = [
        f"pools[{index}].provisioning.gpu_requirements[{at}]"
        for index, pool in enumerate(pools)
        if isinstance(pool, Mapping)
        and isinstance(pool.get("provisioning"), Mapping)
        and value_of(pool["provisioning"].get("provisioner")) == "karpenter"
        and isinstance(pool["provisioning"].get("gpu_requirements"), Sequence)
        for at, requirement in enumerate(pool["provisioning"]["gpu_requirements"])
        if isinstance(requirement, Mapping) and value_of(requirement.get("operator")) in INCLUSIVE_OPERATORS
    ]
    if not using:
        return []
    return [
        Problem(
            "cluster.karpenter.version",
            version,
            f"Karpenter takes the Gte and Lte requirement operators from {INCLUSIVE_OPERATORS_VERSION} on (its "
            f"NodePool CRD refuses them before), and {', '.join(using)} use them",
            f"a release from {INCLUSIVE_OPERATORS_VERSION} on, e.g. {KARPENTER_VERSION}; or Gt and Lt (Gte N is "
            "Gt N-1)",
            SOURCE_KARPENTER_GTE_LTE,
        )
    ]


def provision(cluster: Mapping[str, Any]) -> ProvisionedCluster:
    """Create the EKS cluster described by validated ``cluster`` config, or attach to the existing one."""
    config = cast(EksClusterConfig, cluster)
    return _attach(config) if config.get("existing", False) else _create(config)
