"""The example program: stack config -> cluster -> :class:`~gpu_components.cluster.GpuCluster`.

``stacks/__main__.py`` calls :func:`main`; ``pulumi up`` and the offline plan run exactly this. Config keys
(namespace ``gpu-components``, see ``stacks/Pulumi.aws-eks.yaml``):

- ``cloud``: a cloud with an adapter (``aws``, ``azure``, ``gcp``).
- ``cluster``: the cloud's cluster config (:class:`~gpu_components.aws.cluster.EksClusterConfig`,
  :class:`~gpu_components.azure.cluster.AksClusterConfig`, :class:`~gpu_components.gcp.cluster.GkeClusterConfig`):
  create a minimal cluster, or attach to an existing one.
- ``pools``: list of :class:`~gpu_components.cluster.ClusterPoolArgs`.
- ``gpu_stack``: :data:`~gpu_components.cluster.GpuStack`, default ``auto``.
- ``gpu_operator``: optional :class:`~gpu_components.cluster.GpuOperatorSettingsArgs`, with ``gpu_stack:
  gpu-operator`` only.
- ``device_plugin``: optional :class:`~gpu_components.cluster.DevicePluginSettingsArgs` (namespace, chart version,
  raw Helm values), not with ``gpu-operator``.
- ``dra``: optional :class:`~gpu_components.cluster.DraSettingsArgs`, with ``gpu_stack: dra`` only; its
  ``kubernetes_version`` defaults to the ``major.minor`` of ``cluster.kubernetes_version`` when that is given.

Any other key in the namespace is an error (a misspelt key would otherwise be ignored).

The whole config is validated, every problem reported at once, before any resource is registered.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s

from gpu_components.adapter import GPU_STACKS, KubernetesInstall
from gpu_components.capacity import CAPACITY_KEY, GPU_POOLS_OUTPUT, pool_capacity, served_extended_resource
from gpu_components.cluster import (
    ADAPTERS,
    ClusterPoolArgs,
    GpuCluster,
    GpuClusterArgs,
    adapter_for,
    validate_cluster,
)
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.name_forms import missing_form_problems
from gpu_components.nvidia.dra_driver import kubernetes_patch_problems, version_number_hint
from gpu_components.samples import sample_jobs
from gpu_components.shape import shape_problems, valid_mapping

CONFIG_NAMESPACE = "gpu-components"
"""Config namespace of the example program (the project name in ``Pulumi.yaml``)."""


CONFIG_KEYS = ("cloud", "cluster", "pools", "gpu_stack", "gpu_operator", "device_plugin", "dra")
"""Config keys the program reads in its namespace; any other key there is reported as unknown."""


@dataclass(frozen=True)
class StackConfig:
    """The validated config of a stack: ``cloud``, ``cluster``, ``pools``, ``gpu_stack`` and the optional settings
    of the GPU stack (``gpu_operator``, ``device_plugin``, ``dra``: under ``gpu_stack: dra`` the given settings with
    ``kubernetes_version`` filled in from the cluster's)."""

    cloud: str
    cluster: dict[str, Any]
    pools: list[dict[str, Any]]
    gpu_stack: str
    gpu_operator: dict[str, Any] | None
    device_plugin: dict[str, Any] | None
    dra: dict[str, Any] | None = None


def _namespace_keys() -> list[str]:
    """Config keys set in this program's namespace: from the running engine's config (``PULUMI_CONFIG`` under
    ``pulumi up``, the runtime's map under mocks and the offline plan)."""
    keys = {*pulumi.runtime.config.CONFIG.get(), *pulumi.runtime.config.get_config_env()}
    prefix = f"{CONFIG_NAMESPACE}:"
    return sorted(key.removeprefix(prefix) for key in keys if key.startswith(prefix))


def _pools_valid() -> str:
    return f"a list of pools, each {valid_mapping(GpuClusterArgs, ('pools', 0))}"


def _expected(key: str, cloud: object) -> tuple[str, str]:
    """What config ``key`` must be, in words, and what is valid there, as a type error states it (the keys of its
    mapping; a cluster's are its cloud's, ``cloud`` or the cloud it most likely means)."""
    if key == "pools":
        return "a YAML list of pools", _pools_valid()
    if key != "cluster":
        return "a YAML mapping", valid_mapping(GpuClusterArgs, (key,))
    named = cloud if isinstance(cloud, str) and cloud in ADAPTERS else None
    named = named or (_closest(cloud, ADAPTERS) if isinstance(cloud, str) else None)
    if named is None:
        return "a YAML mapping", f"a mapping of the cloud's cluster settings (cloud: {', '.join(ADAPTERS)})"
    return "a YAML mapping", valid_mapping(adapter_for(named).cluster_config)


_REQUIRED_OBJECTS = ("cluster", "pools")
"""Object config keys without a default."""


def _object(config: pulumi.Config, key: str, problems: list[Problem]) -> Any:
    """The object config ``key`` (None when not set). A YAML ``null`` there is refused, as ``GpuCluster`` refuses a
    null: it would read as the key left out, which the writer may not mean (``device_plugin: null`` turns nothing
    off, it keeps the default settings)."""
    try:
        value = config.get_object(key)
    except pulumi.ConfigTypeError:
        expected, valid = _expected(key, config.get("cloud"))
        problems.append(Problem(f"{CONFIG_NAMESPACE}:{key}", config.get(key), f"must be {expected}", valid))
        return None
    if value is None and config.get(key) is not None:
        expected, valid = _expected(key, config.get("cloud"))
        message = f"must not be null; give {expected}" + (
            "" if key in _REQUIRED_OBJECTS else ", or leave the key out for its default"
        )
        problems.append(Problem(f"{CONFIG_NAMESPACE}:{key}", None, message, valid))
    return value


def _closest(value: str, allowed: Iterable[str]) -> str | None:
    """The allowed value ``value`` most likely means: the same text in another case, else the closest match
    (:func:`difflib.get_close_matches`, as :func:`~gpu_components.shape.unknown_field` suggests keys)."""
    choices = list(allowed)
    folded = value.strip().lower()
    same = [choice for choice in choices if choice.lower() == folded]
    close = same or difflib.get_close_matches(folded, choices, n=1)
    return close[0] if close else None


def _unknown_key(key: str, value: object) -> Problem:
    close = _closest(key, CONFIG_KEYS)
    hint = f"; did you mean {CONFIG_NAMESPACE + ':' + close!r}?" if close else ""
    return Problem(f"{CONFIG_NAMESPACE}:{key}", value, f"unknown config key{hint}", ", ".join(CONFIG_KEYS))


def _known(
    value: str, allowed: Sequence[str], path: str, message: str, problems: list[Problem], checks: str
) -> str | None:
    """``value`` when it is one of ``allowed``; else a problem at ``path`` and the allowed value it most likely means
    (checked as that, so its typo hides no other problem), or None when no allowed value is close."""
    if value in allowed:
        return value
    close = _closest(value, allowed)
    if close is not None:
        message += f"; did you mean {close!r}? ({checks} checked as {close})"
    problems.append(Problem(path, value, message, ", ".join(allowed)))
    return close


def read_config(config: pulumi.Config) -> StackConfig:
    """Read and validate the stack's config; raise every problem at once.

    Nothing hides another problem: unknown or missing keys, an unknown cloud or GPU stack (checked as the value it
    most likely means, when one is close: ``AWS`` as ``aws``), the cluster and every pool are all reported. Within
    one pool, its shape problems (types, unknown fields) still come without that pool's rule problems
    (:func:`~gpu_components.cluster.validate_cluster`).

    Raises:
        GpuSpecError: missing or unknown keys, wrong shapes, unknown cloud, invalid pools or GPU stack settings.
    """
    problems = [_unknown_key(key, config.get(key)) for key in _namespace_keys() if key not in CONFIG_KEYS]
    cloud = config.get("cloud")
    cluster = _object(config, "cluster", problems)
    pools = _object(config, "pools", problems)
    gpu_stack = config.get("gpu_stack") or "auto"
    gpu_operator = _object(config, "gpu_operator", problems)
    device_plugin = _object(config, "device_plugin", problems)
    dra = _object(config, "dra", problems)
    for key, value in (("cloud", cloud), ("cluster", cluster), ("pools", pools)):
        if value is None and not any(p.path == f"{CONFIG_NAMESPACE}:{key}" for p in problems):
            problems.append(Problem(f"{CONFIG_NAMESPACE}:{key}", None, "required config key is missing"))
    pool_list = pools if isinstance(pools, list) else []
    if pools is not None and not isinstance(pools, list):
        problems.append(Problem("pools", pools, "must be a list of pools", _pools_valid()))
    checked_cloud = None
    if cloud is not None:
        checked_cloud = _known(
            cloud, list(ADAPTERS), "cloud", "no node-pool adapter for this cloud", problems, "cluster and pools"
        )
    checked_stack = _known(gpu_stack, GPU_STACKS, "gpu_stack", "unknown GPU stack", problems, "pools")
    if checked_cloud is None:
        # No cloud to check the rules of: every pool's cloud-neutral shape still is.
        for index, pool in enumerate(pool_list):
            problems += shape_problems(ClusterPoolArgs, pool, f"pools[{index}]")
    else:
        adapter = adapter_for(checked_cloud)
        if cluster is not None:
            misshapen = version_number_hint(
                missing_form_problems(
                    shape_problems(adapter.cluster_config, cluster, "cluster"), adapter.cluster_forms, "cluster."
                ),
                "cluster.kubernetes_version",
            )
            problems += misshapen or adapter.config_problems(cast(dict[str, Any], cluster))
            problems += [] if misshapen else adapter.stack_problems(cast(dict[str, Any], cluster), pool_list)
        from_cluster = unfilled = False
        version: object = None
        if (checked_stack or gpu_stack) == "dra":
            version = _cluster_version(cluster, adapter.default_kubernetes_version)
            problems += _version_mismatch_problems(dra, version)
            if isinstance(cluster, dict):
                problems += kubernetes_patch_problems(cluster.get("kubernetes_version"), "cluster.kubernetes_version")
            filled = _with_cluster_version(dra, version)
            from_cluster = filled is not dra
            # A cluster version that is no MAJOR.MINOR string is reported at cluster.kubernetes_version above; the
            # dra.kubernetes_version it would have filled is then no second problem.
            unfilled = (
                not from_cluster
                and isinstance(cluster, dict)
                and "kubernetes_version" in cluster
                and not (isinstance(dra, dict) and "kubernetes_version" in dra)
            )
            dra = filled
        try:
            validate_cluster(
                checked_cloud,
                pool_list,
                checked_stack or gpu_stack,
                gpu_operator=gpu_operator,
                device_plugin=device_plugin,
                dra=dra,
                cluster=cluster if isinstance(cluster, dict) else None,
            )
        except GpuSpecError as error:
            # Without a list of pools, "needs at least one pool" repeats the problem reported above, as an unknown
            # GPU stack with no close match repeats its own.
            found = [_at_cluster_version(p, version) for p in error.problems] if from_cluster else error.problems
            if unfilled:
                found = _unfilled_version(found, problems, cast(dict[str, Any], cluster)["kubernetes_version"])
            problems += [p for p in found if (isinstance(pools, list) or p.path != "pools") and p not in problems]
    if problems:
        raise GpuSpecError(problems)
    return StackConfig(
        str(cloud),
        cast(dict[str, Any], cluster),
        cast(list[dict[str, Any]], pools),
        gpu_stack,
        gpu_operator,
        device_plugin,
        dra,
    )


_MAJOR_MINOR = re.compile(r"(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?![0-9])")
"""The ``MAJOR.MINOR`` a cluster version starts with, numbers without leading zeros (``1.036`` has none)."""


def _cluster_version(cluster: object, default: str | None) -> str | Default | None:
    """The Kubernetes version the example cluster runs, for the DRA rules: the cluster config's
    ``kubernetes_version`` as written, else for a new cluster the version the program creates it with (the cloud
    adapter's ``default_kubernetes_version``, as a :class:`~gpu_components.errors.Default`); ``None`` for an existing
    cluster that gives none, or a cloud that picks the version itself (GKE's release channel)."""
    if not isinstance(cluster, dict):
        return None
    if "kubernetes_version" in cluster:
        given: str | None = cluster["kubernetes_version"]
        return given
    if cluster.get("existing") is True or default is None:
        return None
    return Default(default)


def _major_minor(version: object) -> str | None:
    """The ``MAJOR.MINOR`` a cluster version (:func:`_cluster_version`) starts with (``1.34``, ``1.34.2``,
    ``1.34.1-gke.1200``); ``None`` for a version of no such form."""
    text = version.value if isinstance(version, Default) else version
    match = _MAJOR_MINOR.match(text) if isinstance(text, str) else None
    return match.group() if match is not None else None


def _with_cluster_version(dra: object, version: object) -> object:
    """``dra`` with ``kubernetes_version`` filled in, when it gives none, from the ``major.minor`` of the version
    the example cluster runs (:func:`_cluster_version`). ``dra`` as it is when misshapen, or when the cluster's
    version is unknown (an existing cluster: then ``dra.kubernetes_version`` is required)."""
    if dra is not None and not isinstance(dra, dict):
        return dra
    minor = _major_minor(version)
    if minor is None or (dra is not None and "kubernetes_version" in dra):
        return dra
    return {**(dra or {}), "kubernetes_version": minor}


def _at_cluster_version(problem: Problem, version: object) -> Problem:
    """A problem of ``dra.kubernetes_version`` filled in from the cluster's version (:func:`_with_cluster_version`),
    reported where the version comes from: at ``cluster.kubernetes_version``, with the value as written there
    (``1.33.5``, not the ``1.33`` the rule checked), or the default a new cluster gets. Any other problem as it is."""
    if problem.path != "dra.kubernetes_version":
        return problem
    return replace(
        problem,
        path="cluster.kubernetes_version",
        value=version,
        message=f"{problem.message} (dra.kubernetes_version, unset, takes this version's major.minor)",
    )


def _unfilled_version(found: Sequence[Problem], reported: Sequence[Problem], written: object) -> list[Problem]:
    """The problems of the DRA settings when the cluster config's ``kubernetes_version`` (``written``) gave no
    ``major.minor`` to fill ``dra.kubernetes_version`` with: its "required" problem is dropped where a problem of
    the cluster's version is ``reported`` already, and otherwise says why the cluster's version does not serve (GKE
    takes ``latest`` or a release channel's version, which the DRA rules cannot check)."""
    if any(p.path == "cluster.kubernetes_version" for p in reported):
        return [p for p in found if (p.path, p.value) != ("dra.kubernetes_version", None)]
    return [
        replace(
            p,
            message=f"{p.message}; cluster.kubernetes_version {written!r} names no major.minor for the DRA rules to "
            "check, so give the version the cluster runs here",
        )
        if (p.path, p.value) == ("dra.kubernetes_version", None)
        else p
        for p in found
    ]


def _version_mismatch_problems(dra: object, version: object) -> list[Problem]:
    """``dra.kubernetes_version`` that is not the ``major.minor`` of the version the example cluster runs
    (:func:`_cluster_version`: its config's ``kubernetes_version``, or a new cluster's default): the DRA rules
    would check a version the cluster does not run."""
    given = dra.get("kubernetes_version") if isinstance(dra, dict) else None
    minor = _major_minor(version)
    # A given version that is no MAJOR.MINOR is the DRA rules' own problem (kubernetes_version_problems).
    if not isinstance(given, str) or _major_minor(given) != given or minor is None or given == minor:
        return []
    runs = (
        f"cluster.kubernetes_version is unset, so the new cluster runs the default {minor}"
        if isinstance(version, Default)
        else f"cluster.kubernetes_version is {version!r} (major.minor {minor})"
    )
    return [
        Problem(
            "dra.kubernetes_version",
            given,
            f"not the cluster's Kubernetes version: {runs}, and the DRA rules must check the version the cluster runs",
            f"{minor}, or no dra.kubernetes_version (it then takes the cluster's major.minor)",
        )
    ]


def main() -> None:
    """Run the example program for the current stack: validate config, create or attach, compose GPU pools, and
    register a sample CUDA vector-add Job per pool."""
    stack = read_config(pulumi.Config(CONFIG_NAMESPACE))
    name = str(stack.cluster["name"])
    provisioned = adapter_for(stack.cloud).provision(stack.cluster)
    kubeconfig = pulumi.Output.secret(provisioned.kubeconfig)
    provider = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig)
    installed = provisioned.kubernetes(provider) if provisioned.kubernetes is not None else KubernetesInstall([])
    args: dict[str, Any] = {
        "cloud": stack.cloud,
        "pools": stack.pools,
        stack.cloud: {**provisioned.wiring, **installed.wiring},
        "gpu_stack": stack.gpu_stack,
    }
    if stack.gpu_operator is not None:
        args["gpu_operator"] = stack.gpu_operator
    if stack.device_plugin is not None:
        args["device_plugin"] = stack.device_plugin
    if stack.dra is not None:
        args["dra"] = stack.dra
    gpus = GpuCluster(
        f"{name}-gpu",
        cast(GpuClusterArgs, args),
        pulumi.ResourceOptions(
            providers={"kubernetes": provider}, depends_on=[*provisioned.depends_on, *installed.depends_on]
        ),
    )
    pulumi.export("clusterName", name)
    pulumi.export("kubeconfig", kubeconfig)
    pulumi.export(
        GPU_POOLS_OUTPUT,
        {
            spec.name: {
                "instanceType": spec.instance_type,
                "gpus": f"{spec.gpu_count} x {spec.gpu.name}",
                "nodes": getattr(gpus.pools[spec.name], "nodes_by", f"{spec.min_size}..{spec.max_size}"),
                "advertises": gpus.pool_scheduling[spec.name]["advertisedResources"],
                "devicePlugin": gpus.pools[spec.name].device_plugin_host,
                CAPACITY_KEY: pool_capacity(
                    gpus.pools[spec.name], served_extended_resource(gpus.pools[spec.name], [gpus.dra_driver])
                ),
            }
            for spec in gpus.specs
        },
    )
    sample_jobs(gpus, pulumi.ResourceOptions(provider=provider, depends_on=[gpus]))
