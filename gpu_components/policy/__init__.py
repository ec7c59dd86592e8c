"""A Pulumi policy pack that enforces the library's GPU rules on any Pulumi program, ours or not.

Use it as ``pulumi preview --policy-pack policy`` (``policy/`` holds ``PulumiPolicy.yaml`` and a ``__main__.py``
that calls :func:`policy_pack`). The rules are the plain functions of :mod:`gpu_components.policy.rules`; here each
becomes a ``pulumi_policy.ResourceValidationPolicy`` named as in :data:`DEFAULT_ENFORCEMENT`.

Enforcement levels: each policy has the default in :data:`DEFAULT_ENFORCEMENT`; override them in code
(``policies({"gpu-shared-pool-trust": EnforcementLevel.MANDATORY})``) or, per deployment, in the pack config
(``pulumi preview --policy-pack policy --policy-pack-config config.json`` with e.g.
``{"gpu-toleration-without-gpu": {"enforcementLevel": "disabled"}}`` or ``{"gpu-node-pool-taint": "advisory"}``).
Config properties: ``gpuTaintKeys`` (taint keys that mark GPU nodes) for ``gpu-node-pool-taint`` and
``gpu-toleration-without-gpu``; ``allowedDaemonSets`` (``fnmatch`` patterns) for ``gpu-toleration-without-gpu``;
``draExtendedResource`` (boolean, default false: the cluster maps ``nvidia.com/gpu`` to the DRA driver's
``gpu.nvidia.com`` DeviceClass, Kubernetes' DRAExtendedResource feature gate) for ``gpu-dra-pool-extended-resource``;
it is for DRA drivers deployed without the library: where the stack has the library's DRA driver component, the
component's ``extendedResource`` output decides (``nvidia.com/gpu``: its ``extended_resource`` in force, Kubernetes
1.36 or later), and a config ``true`` against a driver that records null is a violation on the driver. A config key
a policy does not declare (the Pulumi CLI checks only the declared ones and passes the others on) is a violation of
that policy, once per run, with the closest declared key (:func:`config_key_problems`).

The DRA rules (``gpu-dra-pool-extended-resource``, ``gpu-dra-alpha-claim-config``, ``gpu-dra-unsatisfiable-claim``)
need several resources at once (the node pools' labels, the DRA driver's release, every claim), so they are
``pulumi_policy.StackValidationPolicy`` objects, run once per stack over all its resources; their violations name the
resource at fault. So are the workload-pool rules (:mod:`gpu_components.policy.workload_pools`:
``gpu-workload-pool-selection``, ``gpu-workload-pool-tolerations``, ``gpu-workload-pool-fit``, mandatory;
``gpu-pool-autoscaler-resources``, advisory), which read the pools from the library's node-pool components' outputs.
The others validate one resource at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyPack,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from gpu_components.policy import rules, workload_pools
from gpu_components.shape import did_you_mean

PACK_NAME = "gpu-components"
"""Name of the policy pack."""

NODE_POOL_TAINT = "gpu-node-pool-taint"
WORKLOAD_QUANTITIES = "gpu-workload-quantities"
TOLERATION_WITHOUT_GPU = "gpu-toleration-without-gpu"
CHART_VERSION = "nvidia-chart-version-pinned"
SHARED_POOL_TRUST = "gpu-shared-pool-trust"
DRA_POOL_EXTENDED_RESOURCE = "gpu-dra-pool-extended-resource"
DRA_ALPHA_CLAIM_CONFIG = "gpu-dra-alpha-claim-config"
WORKLOAD_POOL_SELECTION = "gpu-workload-pool-selection"
WORKLOAD_POOL_TOLERATIONS = "gpu-workload-pool-tolerations"
WORKLOAD_POOL_FIT = "gpu-workload-pool-fit"
POOL_AUTOSCALER_RESOURCES = "gpu-pool-autoscaler-resources"
DRA_UNSATISFIABLE_CLAIM = "gpu-dra-unsatisfiable-claim"
POOL_CLOUD_BOUNDS = "gpu-pool-cloud-bounds"

DEFAULT_ENFORCEMENT: Mapping[str, EnforcementLevel] = MappingProxyType(
    {
        NODE_POOL_TAINT: EnforcementLevel.MANDATORY,
        WORKLOAD_QUANTITIES: EnforcementLevel.MANDATORY,
        TOLERATION_WITHOUT_GPU: EnforcementLevel.ADVISORY,
        CHART_VERSION: EnforcementLevel.MANDATORY,
        SHARED_POOL_TRUST: EnforcementLevel.ADVISORY,
        DRA_POOL_EXTENDED_RESOURCE: EnforcementLevel.MANDATORY,
        DRA_ALPHA_CLAIM_CONFIG: EnforcementLevel.MANDATORY,
        WORKLOAD_POOL_SELECTION: EnforcementLevel.MANDATORY,
        WORKLOAD_POOL_TOLERATIONS: EnforcementLevel.MANDATORY,
        WORKLOAD_POOL_FIT: EnforcementLevel.MANDATORY,
        POOL_AUTOSCALER_RESOURCES: EnforcementLevel.ADVISORY,
        DRA_UNSATISFIABLE_CLAIM: EnforcementLevel.MANDATORY,
        POOL_CLOUD_BOUNDS: EnforcementLevel.MANDATORY,
    }
)
"""Policy name -> default enforcement. Mandatory where the mistake breaks scheduling or changes the GPU stack
unseen; advisory where the finding needs a person's judgement (a system agent, a trusted shared pool)."""

_TAINT_KEYS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string"},
    "default": list(rules.DEFAULT_GPU_TAINT_KEYS),
    "description": "Taint keys that mark GPU nodes.",
}
_ALLOWED_DAEMONSETS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string"},
    "default": list(rules.DEFAULT_ALLOWED_DAEMONSETS),
    "description": "DaemonSets (fnmatch patterns over name or namespace/name) that may tolerate GPU taints "
    "without requesting GPUs.",
}

_DRA_EXTENDED_RESOURCE_SCHEMA: dict[str, Any] = {
    "type": "boolean",
    "default": False,
    "description": "The cluster maps nvidia.com/gpu requests to the DRA driver's gpu.nvidia.com DeviceClass "
    "(Kubernetes feature gate DRAExtendedResource, beta from 1.36).",
}

Validator = Callable[[str, Mapping[str, Any], Mapping[str, Any]], list[str]]
"""A rule with the policy's config: ``(resource type, props, config) -> messages``."""


def _strings(config: Mapping[str, Any], key: str, default: Collection[str]) -> tuple[str, ...]:
    value = config.get(key)
    if isinstance(value, Sequence) and not isinstance(value, str) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return tuple(default)


def config_key_problems(policy: str, config: Mapping[str, Any], schema: PolicyConfigSchema | None) -> list[str]:
    """Messages for the keys of a policy's config (``--policy-pack-config``) that are not its config properties:
    the Pulumi CLI checks only the properties a policy's schema declares and passes any other key on unread, so a
    misspelt ``draExtendedResourse`` would leave the default in force unseen. The closest property is suggested."""
    known = sorted(schema.properties) if schema is not None else []
    takes = f"its config properties are {', '.join(known)}" if known else "it takes no config properties"
    messages = []
    for key in sorted(set(config) - set(known)):
        close = did_you_mean(key, known)
        hint = f"; did you mean {close!r}?" if close else ""
        messages.append(
            f"policy config of {policy}: {key!r} is not a config property of this policy, so it is ignored{hint}; "
            f"{takes} (enforcementLevel aside)"
        )
    return messages


def _validation(
    policy: str, validator: Validator, schema: PolicyConfigSchema | None
) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    reported: set[str] = set()  # a config problem once per pack run, not once per resource

    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        config = args.get_config()
        for message in config_key_problems(policy, config, schema):
            if message not in reported:
                reported.add(message)
                report_violation(message, None)
        for message in validator(args.resource_type, args.props, config):
            report_violation(message, None)

    return validate


def _node_pool_taint(resource_type: str, props: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    keys = _strings(config, "gpuTaintKeys", rules.DEFAULT_GPU_TAINT_KEYS)
    return rules.node_pool_taint_violations(resource_type, props, keys)


def _toleration_without_gpu(resource_type: str, props: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    allowed = _strings(config, "allowedDaemonSets", rules.DEFAULT_ALLOWED_DAEMONSETS)
    keys = _strings(config, "gpuTaintKeys", rules.DEFAULT_GPU_TAINT_KEYS)
    return rules.toleration_without_gpu_violations(resource_type, props, allowed, keys)


StackValidator = Callable[[list[rules.StackResource], Mapping[str, Any], Mapping[str, str]], list[rules.StackViolation]]
"""A stack rule with the policy's config and the resources' clusters (:func:`_clusters`): ``(resources, config,
clusters) -> (urn, message)`` violations."""

DEFAULT_CLUSTER = "default"
"""The cluster of Kubernetes resources that name no provider: the program's default Kubernetes provider's."""


def _clusters(resources: Sequence[PolicyResource]) -> dict[str, str]:
    """Resource URN -> the cluster its Kubernetes objects go to: a Kubernetes resource's provider URN (the default
    provider's, :data:`DEFAULT_CLUSTER`, where it names none), and a component's: that of its Kubernetes children
    (the DRA driver component's Helm release). Other resources are not in it."""
    found: dict[str, str] = {}
    for resource in resources:
        if resource.resource_type.startswith("kubernetes:"):
            provider = resource.provider
            found[resource.urn] = provider.urn if provider is not None else DEFAULT_CLUSTER
    for resource in resources:
        parent = resource.parent
        if parent is not None and resource.urn in found and parent.urn not in found:
            found[parent.urn] = found[resource.urn]
    return found


def _stack_validation(
    policy: str, validator: StackValidator, schema: PolicyConfigSchema | None
) -> Callable[[StackValidationArgs, ReportViolation], None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        config = args.get_config()
        for message in config_key_problems(policy, config, schema):
            report_violation(message, None)
        resources = [(resource.urn, resource.resource_type, resource.props) for resource in args.resources]
        for urn, message in validator(resources, config, _clusters(args.resources)):
            report_violation(message, urn)

    return validate


def _dra_pool_extended_resource(
    resources: list[rules.StackResource], config: Mapping[str, Any], clusters: Mapping[str, str]
) -> list[rules.StackViolation]:
    return rules.dra_pool_extended_resource_violations(resources, config.get("draExtendedResource") is True, clusters)


def _stack_rule(rule: Callable[[list[rules.StackResource]], list[rules.StackViolation]]) -> StackValidator:
    return lambda resources, _config, _clusters: rule(resources)


def _plain(rule: Callable[[str, Mapping[str, Any]], list[str]]) -> Validator:
    return lambda resource_type, props, _config: rule(resource_type, props)


def policies(enforcement: Mapping[str, EnforcementLevel] | None = None) -> list[Policy]:
    """The pack's policies, with :data:`DEFAULT_ENFORCEMENT` overridden by ``enforcement`` (policy name -> level).

    Raises:
        ValueError: ``enforcement`` names a policy the pack does not have.
    """
    unknown = sorted(set(enforcement or {}) - set(DEFAULT_ENFORCEMENT))
    if unknown:
        raise ValueError(f"unknown policies {unknown}; the pack has {sorted(DEFAULT_ENFORCEMENT)}")
    levels = {**DEFAULT_ENFORCEMENT, **(enforcement or {})}
    specs: list[tuple[str, str, Validator, PolicyConfigSchema | None]] = [
        (
            NODE_POOL_TAINT,
            "GPU node pools and node groups (EKS, AKS, GKE) and Karpenter NodePools carry a NoSchedule GPU taint (for "
            "a NodePool in taints, not only in startupTaints), so only pods that tolerate it land on GPU nodes.",
            _node_pool_taint,
            PolicyConfigSchema({"gpuTaintKeys": _TAINT_KEYS_SCHEMA}),
        ),
        (
            WORKLOAD_QUANTITIES,
            "Containers ask for NVIDIA GPUs with whole-number limits, and requests (if any) equal to the limits.",
            _plain(rules.workload_gpu_quantity_violations),
            None,
        ),
        (
            TOLERATION_WITHOUT_GPU,
            "Workloads that tolerate GPU taints request a GPU (system DaemonSets on the allow-list excepted).",
            _toleration_without_gpu,
            PolicyConfigSchema({"gpuTaintKeys": _TAINT_KEYS_SCHEMA, "allowedDaemonSets": _ALLOWED_DAEMONSETS_SCHEMA}),
        ),
        (
            CHART_VERSION,
            "Helm releases and charts of the NVIDIA GPU stack pin an exact chart version.",
            _plain(rules.chart_version_violations),
            None,
        ),
        (
            SHARED_POOL_TRUST,
            "GPU pools shared by time-slicing or MPS (no memory isolation) are marked "
            f"{rules.SHARING_TRUST_KEY}: {rules.SHARING_TRUSTED} as serving workloads that trust each other.",
            _plain(rules.shared_gpu_trust_violations),
            None,
        ),
        (
            POOL_CLOUD_BOUNDS,
            "GPU node pools stay within the bounds their cloud's API enforces (EKS cluster names and node group "
            "sizes, AKS OS disk sizes and node counts, GKE nodes per node pool zone), which the cloud would refuse "
            "at deploy time.",
            _plain(rules.pool_bound_violations),
            None,
        ),
    ]
    stack_specs: list[tuple[str, str, StackValidator, PolicyConfigSchema | None]] = [
        (
            DRA_POOL_EXTENDED_RESOURCE,
            "Workloads confined to DRA pools (gpu-components/gpu-access: dra) ask for GPUs with resource claims, "
            "not with NVIDIA extended resources, which no device plugin advertises there (nvidia.com/gpu excepted "
            "on a whole-GPU pool whose DRA driver's DeviceClass serves it, Kubernetes 1.36 or later).",
            _dra_pool_extended_resource,
            PolicyConfigSchema({"draExtendedResource": _DRA_EXTENDED_RESOURCE_SCHEMA}),
        ),
        (
            DRA_ALPHA_CLAIM_CONFIG,
            "Resource claims share GPUs by time-slicing or MPS only where the stack's DRA driver enables the alpha "
            "feature gate (TimeSlicingSettings, MPSSupport).",
            _stack_rule(rules.dra_alpha_claim_config_violations),
            None,
        ),
        (
            WORKLOAD_POOL_SELECTION,
            "GPU workloads select a GPU pool of the stack (nodeSelector or required node affinity on a label the "
            "pool has, e.g. gpu-components/pool).",
            _stack_rule(workload_pools.workload_pool_selection_violations),
            None,
        ),
        (
            WORKLOAD_POOL_TOLERATIONS,
            "GPU workloads tolerate every NoSchedule/NoExecute taint of a GPU pool they select.",
            _stack_rule(workload_pools.workload_pool_toleration_violations),
            None,
        ),
        (
            WORKLOAD_POOL_FIT,
            "Each container's GPU limit fits a pool it selects: at most 1 shared GPU where the pool's sharing admits "
            "one (MPS, time-slicing with failRequestsGreaterThanOne, GKE sharing), at most what one node advertises.",
            _stack_rule(workload_pools.workload_pool_fit_violations),
            None,
        ),
        (
            POOL_AUTOSCALER_RESOURCES,
            "Autoscaled GPU pools advertise nvidia.com/gpu, the only GPU resource the Cluster Autoscaler (or a "
            "Karpenter-based provisioner) counts (not MIG devices under the mixed strategy or renamed shared GPUs).",
            _stack_rule(workload_pools.autoscaler_resource_violations),
            None,
        ),
        (
            DRA_UNSATISFIABLE_CLAIM,
            "Resource claims for NVIDIA's DRA driver give each request at most one sharing strategy, time-slicing "
            "without replicas, MIG profile selectors only in DeviceClass mig.nvidia.com, and CEL selectors that "
            "parse, name only attributes and capacities the driver publishes and evaluate to a bool.",
            _stack_rule(rules.dra_unsatisfiable_claim_violations),
            None,
        ),
    ]
    resource_policies: list[Policy] = [
        ResourceValidationPolicy(
            name=name,
            description=description,
            validate=_validation(name, validator, schema),
            enforcement_level=levels[name],
            config_schema=schema,
        )
        for name, description, validator, schema in specs
    ]
    return resource_policies + [
        StackValidationPolicy(
            name=name,
            description=description,
            validate=_stack_validation(name, validator, schema),
            enforcement_level=levels[name],
            config_schema=schema,
        )
        for name, description, validator, schema in stack_specs
    ]


def policy_pack(enforcement: Mapping[str, EnforcementLevel] | None = None) -> PolicyPack:
    """Serve the pack (blocks: the Pulumi CLI runs it as a plugin). Call only from the pack's ``__main__.py``."""
    return PolicyPack(name=PACK_NAME, policies=policies(enforcement))


__all__ = [
    "CHART_VERSION",
    "DEFAULT_ENFORCEMENT",
    "DRA_ALPHA_CLAIM_CONFIG",
    "DRA_POOL_EXTENDED_RESOURCE",
    "DRA_UNSATISFIABLE_CLAIM",
    "NODE_POOL_TAINT",
    "PACK_NAME",
    "POOL_AUTOSCALER_RESOURCES",
    "POOL_CLOUD_BOUNDS",
    "SHARED_POOL_TRUST",
    "TOLERATION_WITHOUT_GPU",
    "WORKLOAD_POOL_FIT",
    "WORKLOAD_POOL_SELECTION",
    "WORKLOAD_POOL_TOLERATIONS",
    "WORKLOAD_QUANTITIES",
    "config_key_problems",
    "policies",
    "policy_pack",
]
