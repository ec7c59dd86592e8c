"""The example program: stack config -> cluster -> :class:`~gpu_components.cluster.GpuCluster`.

``stacks/__main__.py`` calls :func:`main`; ``pulumi up`` and the offline plan run exactly this. Config keys
(namespace ``gpu-components``, see ``stacks/Pulumi.aws-eks.yaml``):

- ``cloud``: a cloud with an adapter (``aws``).
- ``cluster``: the cloud's cluster config (on AWS :class:`~gpu_components.aws.cluster.EksClusterConfig`): create
  a minimal cluster, or attach to an existing one.
- ``pools``: list of :class:`~gpu_components.cluster.ClusterPoolArgs`.
- ``gpu_stack``: :data:`~gpu_components.cluster.GpuStack`, default ``auto``.
- ``gpu_operator``: optional :class:`~gpu_components.cluster.GpuOperatorSettingsArgs`, with ``gpu_stack:
  gpu-operator`` only.

The whole config is validated, every problem reported at once, before any resource is registered.
"""

from __future__ import annotations

from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s

from gpu_components.cluster import GpuCluster, GpuClusterArgs, adapter_for, validate_cluster
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.plan.capacity import CAPACITY_KEY, pool_capacity
from gpu_components.shape import shape_problems
from gpu_components.workloads import sample_jobs

CONFIG_NAMESPACE = "gpu-components"
"""Config namespace of the example program (the project name in ``Pulumi.yaml``)."""


def read_config(
    config: pulumi.Config,
) -> tuple[str, dict[str, Any], list[dict[str, Any]], str, dict[str, Any] | None]:
    """Read and validate ``cloud``, ``cluster``, ``pools``, ``gpu_stack`` and ``gpu_operator``; raise every problem
    at once.

    Raises:
        GpuSpecError: missing keys, wrong shapes, unknown cloud, invalid pools.
    """
    problems: list[Problem] = []
    cloud = config.get("cloud")
    cluster = config.get_object("cluster")
    pools = config.get_object("pools")
    gpu_stack = config.get("gpu_stack") or "auto"
    gpu_operator = config.get_object("gpu_operator")
    for key, value in (("cloud", cloud), ("cluster", cluster), ("pools", pools)):
        if value is None:
            problems.append(Problem(f"{CONFIG_NAMESPACE}:{key}", None, "required config key is missing"))
    if pools is not None and not isinstance(pools, list):
        problems.append(Problem("pools", pools, "must be a list of pools"))
    if problems:
        raise GpuSpecError(problems)
    adapter = adapter_for(str(cloud))
    problems += shape_problems(adapter.cluster_config, cluster, "cluster")
    if not problems:
        problems += adapter.config_problems(cast(dict[str, Any], cluster))
    try:
        validate_cluster(str(cloud), cast(list[dict[str, Any]], pools), gpu_stack, gpu_operator=gpu_operator)
    except GpuSpecError as error:
        problems += error.problems
    if problems:
        raise GpuSpecError(problems)
    settings = cast("dict[str, Any] | None", gpu_operator)
    return str(cloud), cast(dict[str, Any], cluster), cast(list[dict[str, Any]], pools), gpu_stack, settings


def main() -> None:
    """Run the example program for the current stack: validate config, create or attach, compose GPU pools, and
    register a sample CUDA vector-add Job per pool."""
    cloud, cluster, pools, gpu_stack, gpu_operator = read_config(pulumi.Config(CONFIG_NAMESPACE))
    name = str(cluster["name"])
    provisioned = adapter_for(cloud).provision(cluster)
    kubeconfig = pulumi.Output.secret(provisioned.kubeconfig)
    provider = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig)
    args = {"cloud": cloud, "pools": pools, cloud: dict(provisioned.wiring), "gpu_stack": gpu_stack}
    if gpu_operator is not None:
        args["gpu_operator"] = gpu_operator
    gpus = GpuCluster(
        f"{name}-gpu",
        cast(GpuClusterArgs, args),
        pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=provisioned.depends_on),
    )
    pulumi.export("clusterName", name)
    pulumi.export("kubeconfig", kubeconfig)
    pulumi.export(
        "gpuPools",
        {
            spec.name: {
                "instanceType": spec.instance_type,
                "gpus": f"{spec.gpu_count} x {spec.gpu.name}",
                "nodes": f"{spec.min_size}..{spec.max_size}",
                "advertises": gpus.pools[spec.name].advertised_resources,
                "devicePlugin": gpus.pools[spec.name].device_plugin_host,
                CAPACITY_KEY: pool_capacity(gpus.pools[spec.name]),
            }
            for spec in gpus.specs
        },
    )
    sample_jobs(gpus, pulumi.ResourceOptions(provider=provider, depends_on=[gpus]))
