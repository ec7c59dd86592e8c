"""What the GPU add-ons (device plugin, GPU Operator) take in common: the pools they serve and their install."""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict

from gpu_components.catalog import Cloud
from gpu_components.spec import GpuNodePoolArgs, Taint, TaintArgs


class GpuAddOnArgs(TypedDict):
    """Inputs every GPU add-on component takes.

    Fields:
        cloud: the cloud of the pools (``aws``, ``azure``, ``gcp``); pools are validated for it.
        pools: the GPU pools the add-on serves (:class:`~gpu_components.spec.GpuNodePoolArgs`).
        namespace: namespace to create and install into. Defaults to the add-on's own (see each component).
        chart_version: chart version. Defaults to the add-on's pinned, tested version.
        helm_values: raw chart values merged over the rendered ones (escape hatch). Defaults to none.
        node_taints: taints the cloud puts on the pools' nodes itself (e.g. AKS spot pools), tolerated too.
            Defaults to none.
    """

    cloud: Cloud
    pools: list[GpuNodePoolArgs]
    namespace: NotRequired[str]
    chart_version: NotRequired[str]
    helm_values: NotRequired[dict[str, Any]]
    node_taints: NotRequired[list[TaintArgs]]


def node_taints(args: GpuAddOnArgs) -> list[Taint]:
    """The cloud-added taints of ``args`` as :class:`~gpu_components.spec.Taint` objects."""
    return [Taint.from_args(taint) for taint in args.get("node_taints", [])]
