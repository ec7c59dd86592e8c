"""``KarpenterController``: the Karpenter controller on an EKS cluster, as Karpenter v1.14's getting-started guide
sets it up (:data:`~gpu_components.aws.facts.SOURCE_KARPENTER_GETTING_STARTED`; the policies, rules and values are
the plain data of :mod:`gpu_components.aws.karpenter_controller`).

What Karpenter GPU pools (:class:`~gpu_components.aws.EksKarpenterGpuNodePool`, or a ``GpuCluster``'s pools with
``provisioning.provisioner: karpenter``) need on the cluster: their NodePools and EC2NodeClasses are custom resources
that only a running Karpenter controller reads, and its chart installs their CRDs. EKS Pod Identity rather than IRSA,
as the guide does: no OIDC provider to create, and the controller's role trusts one service principal
(https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html).
"""

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.aws import karpenter_controller as karpenter
from gpu_components.aws._sdk import aws
from gpu_components.aws.eks import EC2_ASSUME_ROLE_POLICY, cluster_name_problems
from gpu_components.aws.facts import (
    KARPENTER_CHART,
    KARPENTER_NAMESPACE,
    KARPENTER_SERVICE_ACCOUNT,
    KARPENTER_VERSION,
)
from gpu_components.errors import GpuSpecError
from gpu_components.nvidia.device_plugin import deep_merge
from gpu_components.shape import args_problems, plain

RELEASE_NAME = "karpenter"
"""The Helm release's name (the guide's)."""
POD_IDENTITY_AGENT = "eks-pod-identity-agent"
"""The EKS add-on that serves EKS Pod Identity credentials to pods."""


class KarpenterControllerArgs(TypedDict):
    """Inputs of :class:`KarpenterController`."""

    cluster_name: str
    """Name of the EKS cluster, a plain string (1 to 100 letters, digits, hyphens and underscores): it names the
    interruption queue and scopes the controller's IAM policy to the cluster's instances and launch templates."""
    version: NotRequired[str]
    """The Karpenter chart (and controller) version, exact, from ``1.0.0`` on (the ``karpenter.sh/v1`` NodePools and
    ``karpenter.k8s.aws/v1`` EC2NodeClasses the pools make). Defaults to ``1.14.1``, the release whose CRDs the
    library's custom resources are checked against. ``v1.14.1`` is refused: the chart's versions on
    ``oci://public.ecr.aws/karpenter/karpenter`` have no ``v`` (the guide's ``KARPENTER_VERSION="1.14.1"``)."""
    node_selector: NotRequired[dict[str, str]]
    """Node labels of the nodes the controller runs on (the chart also keeps it off the nodes Karpenter launches,
    one replica per node). Defaults to ``gpu-components/role: system``, the example cluster's system node group: on
    another cluster, the labels of nodes that are not Karpenter's (a managed node group or Fargate). Each key and value
    must be a Kubernetes label key and value (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/
    #syntax-and-character-set)."""
    helm_values: NotRequired[dict[str, Any]]
    """Other chart values (e.g. ``replicas``, ``settings.featureGates.nodeOverlay``), merged over the library's.
    Defaults to none. Refused: what the library sets (``settings.clusterName``: ``cluster_name``;
    ``settings.interruptionQueue``; ``serviceAccount.name``; ``nodeSelector``: ``node_selector``;
    ``controller.resources``), the chart values it relies on (``serviceAccount.create``, ``affinity``), all
    :data:`~gpu_components.aws.karpenter_controller.OWNED_HELM_VALUES`, and a value that is not a mapping where the
    library sets keys inside."""
    pod_identity_agent: NotRequired[bool]
    """Install EKS's ``eks-pod-identity-agent`` add-on, which gives the controller its role's credentials. Defaults
    to true; false on a cluster that has the add-on already (EKS installs an add-on once per cluster)."""


class KarpenterController(pulumi.ComponentResource):
    """The Karpenter controller on an EKS cluster, with its AWS side, as Karpenter v1.14's getting-started guide sets
    it up.

    Children: the node role ``<name>-node-role`` with its policies ``<name>-node-role-<worker|ecr|cni|ssm>``
    (:data:`~gpu_components.aws.karpenter_controller.NODE_ROLE_POLICIES`) and its EKS access entry
    ``<name>-node-access`` (type ``EC2_LINUX``); the interruption queue ``<name>-queue`` (named after the cluster) and
    ``<name>-queue-policy``, one EventBridge rule ``<name>-<event>`` and target ``<name>-<event>-target`` per
    :data:`~gpu_components.aws.karpenter_controller.INTERRUPTION_EVENTS`; the controller's role, policy and
    attachment ``<name>-controller`` (EKS Pod Identity); the ``eks-pod-identity-agent`` add-on
    ``<name>-pod-identity-agent`` (unless ``pod_identity_agent`` is false); the Pod Identity association
    ``<name>-pod-identity`` for service account ``kube-system/karpenter``; and the chart ``<name>-release``
    (``oci://public.ecr.aws/karpenter/karpenter``, release ``karpenter`` in ``kube-system``), created after all the
    rest. The children that use the cluster (access entry, add-on, association, release) wait for the component's
    ``depends_on`` (e.g. the cluster and the node group the controller runs on). Providers: ``aws``, ``kubernetes``
    (the cluster's). Each child also answers to its name at the stack's root, where the example program made these
    resources before this component existed (with the component named ``<cluster>-karpenter``, the same names, but
    ``<cluster>-pod-identity-agent`` for the add-on and ``<cluster>-karpenter`` for the association and the release), so
    a stack made then keeps its resources.

    Karpenter's nodes must use :attr:`node_role_arn`: the controller may pass only that role to EC2, and the cluster
    admits nodes by its access entry. Give it to the Karpenter pools as their ``node_role_arn`` (``GpuCluster``:
    ``aws.node_role_arn``, with ``aws.karpenter_controller: true``).

    Outputs: ``node_role_arn``, ``node_role_name``, ``controller_role_arn``, ``interruption_queue_name``,
    ``release_name`` (known after deployment), ``version`` (plain). Other attributes: none.

    Raises:
        GpuSpecError: every problem at once, before anything is registered: args of the wrong shape or unknown, a
            ``cluster_name`` that is not an EKS cluster name, a ``version`` before ``1.0.0``, not a release or with a
            leading ``v``, ``node_selector`` labels Kubernetes refuses, and ``helm_values`` the library sets or relies
            on (:func:`~gpu_components.aws.karpenter_controller.settings_problems`).
    """

    node_role_arn: pulumi.Output[str]
    """ARN of the role of the nodes Karpenter launches: the Karpenter pools' ``node_role_arn``."""
    node_role_name: pulumi.Output[str]
    """Name of that role (an EC2NodeClass's ``role``)."""
    controller_role_arn: pulumi.Output[str]
    """ARN of the controller's role (EKS Pod Identity)."""
    interruption_queue_name: pulumi.Output[str]
    """Name of the SQS queue of interruption events (the chart's ``settings.interruptionQueue``)."""
    release_name: pulumi.Output[str]
    """Name of the Helm release (``karpenter``)."""
    version: str
    """The Karpenter chart version installed."""

    def __init__(self, name: str, args: KarpenterControllerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        problems = args_problems(KarpenterControllerArgs, args)
        if isinstance(args, Mapping):
            problems += cluster_name_problems(args.get("cluster_name"), "cluster_name")
            problems += karpenter.settings_problems(args, "")
        if problems:
            raise GpuSpecError(problems)
        super().__init__("gpu-components:index:KarpenterController", name, None, opts)
        cluster: str = args["cluster_name"]
        self.version = args.get("version", KARPENTER_VERSION)
        after = _depends_on(opts)

        def child(
            resource_name: str, depends_on: Sequence[pulumi.Resource] = (), old_name: str | None = None
        ) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(
                parent=self,
                depends_on=list(depends_on),
                aliases=[pulumi.Alias(name=old_name or resource_name, parent=pulumi.ROOT_STACK_RESOURCE)],
            )

        node_role = aws.iam.Role(
            f"{name}-node-role", assume_role_policy=EC2_ASSUME_ROLE_POLICY, opts=child(f"{name}-node-role")
        )
        attachments: list[pulumi.Resource] = [
            aws.iam.RolePolicyAttachment(
                f"{name}-node-role-{suffix}",
                role=node_role.name,
                policy_arn=arn,
                opts=child(f"{name}-node-role-{suffix}"),
            )
            for suffix, arn in karpenter.NODE_ROLE_POLICIES.items()
        ]
        access_entry = aws.eks.AccessEntry(
            f"{name}-node-access",
            cluster_name=cluster,
            principal_arn=node_role.arn,
            type="EC2_LINUX",
            opts=child(f"{name}-node-access", after),
        )
        queue = aws.sqs.Queue(
            f"{name}-queue",
            name=cluster,
            message_retention_seconds=karpenter.QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            opts=child(f"{name}-queue"),
        )
        interruption: list[pulumi.Resource] = [
            aws.sqs.QueuePolicy(
                f"{name}-queue-policy",
                queue_url=queue.url,
                policy=queue.arn.apply(lambda arn: json.dumps(karpenter.queue_policy(arn), sort_keys=True)),
                opts=child(f"{name}-queue-policy"),
            )
        ]
        for event, (source, detail_type) in karpenter.INTERRUPTION_EVENTS.items():
            rule = aws.cloudwatch.EventRule(
                f"{name}-{event}",
                event_pattern=json.dumps(karpenter.event_pattern(source, detail_type), sort_keys=True),
                opts=child(f"{name}-{event}"),
            )
            interruption += [
                rule,
                aws.cloudwatch.EventTarget(
                    f"{name}-{event}-target",
                    rule=rule.name,
                    arn=queue.arn,
                    target_id="KarpenterInterruptionQueueTarget",
                    opts=child(f"{name}-{event}-target"),
                ),
            ]
        region = aws.get_region_output(opts=pulumi.InvokeOptions(parent=self)).region
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOptions(parent=self)).account_id
        controller_role = aws.iam.Role(
            f"{name}-controller",
            assume_role_policy=json.dumps(karpenter.POD_IDENTITY_TRUST, sort_keys=True),
            opts=child(f"{name}-controller"),
        )
        policy = aws.iam.Policy(
            f"{name}-controller",
            policy=pulumi.Output.all(region, account, node_role.arn, queue.arn).apply(
                lambda parts: json.dumps(
                    karpenter.controller_policy(cluster, parts[0], parts[1], parts[2], parts[3]), sort_keys=True
                )
            ),
            opts=child(f"{name}-controller"),
        )
        attachment = aws.iam.RolePolicyAttachment(
            f"{name}-controller",
            role=controller_role.name,
            policy_arn=policy.arn,
            opts=child(f"{name}-controller"),
        )
        agent: list[pulumi.Resource] = []
        if args.get("pod_identity_agent", True):
            agent.append(
                aws.eks.Addon(
                    f"{name}-pod-identity-agent",
                    cluster_name=cluster,
                    addon_name=POD_IDENTITY_AGENT,
                    opts=child(f"{name}-pod-identity-agent", after, f"{cluster}-pod-identity-agent"),
                )
            )
        association = aws.eks.PodIdentityAssociation(
            f"{name}-pod-identity",
            cluster_name=cluster,
            namespace=KARPENTER_NAMESPACE,
            service_account=KARPENTER_SERVICE_ACCOUNT,
            role_arn=controller_role.arn,
            opts=child(f"{name}-pod-identity", after, name),
        )
        values = deep_merge(
            karpenter.helm_values(cluster, queue.name, args.get("node_selector", karpenter.SYSTEM_NODE_SELECTOR)),
            args.get("helm_values", {}),
        )
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=KARPENTER_CHART,
            version=self.version,
            namespace=KARPENTER_NAMESPACE,
            values=values,
            opts=child(
                f"{name}-release",
                [*after, *agent, association, attachment, access_entry, *attachments, *interruption],
                name,
            ),
        )
        self.node_role_arn = node_role.arn
        self.node_role_name = node_role.name
        self.controller_role_arn = controller_role.arn
        self.interruption_queue_name = queue.name
        self.release_name = release.name.apply(str)
        self.register_outputs(
            {
                "nodeRoleArn": self.node_role_arn,
                "nodeRoleName": self.node_role_name,
                "controllerRoleArn": self.controller_role_arn,
                "interruptionQueueName": self.interruption_queue_name,
                "releaseName": self.release_name,
                "version": self.version,
            }
        )


def _depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources of the component's ``depends_on`` (one resource or a list of them), which its children that use
    the cluster wait for."""
    given = opts.depends_on if opts is not None else None
    if isinstance(given, pulumi.Resource):
        return [given]
    if isinstance(given, Sequence):
        return [resource for resource in given if isinstance(resource, pulumi.Resource)]
    return []
