"""The plans the oracles judge: every example stack's plan, and generated variants.

Both come as the JSON documents of ``gpu-components plan --format json`` (``{"stack", "config", "resources",
...}``, each resource ``{"type", "name", "inputs", "options", ...}``), so every oracle reads one format.

- :func:`example_plans`: fresh plans of the example stacks (``stacks/Pulumi.<stack>.yaml``), made in-process from
  the code in the working tree, so an oracle judges what the code renders now, not the committed golden plans
  (``tests/stacks/test_golden.py`` holds those equal to fresh plans separately).
- :func:`variant_plans`: each cloud x GPU stack (device plugin, GPU Operator, DRA) x GPU model x sharing mode
  (exclusive, time-slicing, MPS, each MIG profile under the single strategy, a mixed MIG layout, MIG with
  time-slicing), one GPU pool per plan beside the cluster's system pool, planned in-process by the same program
  ``pulumi up`` runs (:func:`gpu_components.program.main`) under the plan's mocks. Combinations the library refuses
  (its own rules: a GPU a cloud does not offer, MPS on a DRA pool, ...) are left out and counted in
  :data:`REFUSED` by reason, so a rule that starts refusing everything shows up as a drop in the count.
"""

from __future__ import annotations

import copy
import functools
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gpu_components import catalog
from gpu_components.errors import GpuSpecError
from gpu_components.plan import load_stack, run_program, to_json
from gpu_components.program import main as example_program
from tests.helpers import ROOT

CLOUDS: tuple[catalog.Cloud, ...] = ("aws", "azure", "gcp")

_CLUSTERS: dict[str, dict[str, Any]] = {
    "aws": {
        "aws:region": "us-west-2",
        "gpu-components:cluster": {
            "name": "oracle",
            "kubernetes_version": "1.34",
            "system_node_group": {"instance_type": "m7i.large", "min_size": 1, "max_size": 3, "desired_size": 1},
        },
    },
    "azure": {
        "azure-native:location": "eastus",
        "gpu-components:cluster": {
            "name": "oracle",
            "resource_group_name": "oracle-rg",
            "kubernetes_version": "1.34",
            "system_node_pool": {"vm_size": "Standard_D4ds_v5", "min_count": 1, "max_count": 3, "count": 1},
        },
    },
    "gcp": {
        "gcp:project": "oracle-project",
        "gcp:region": "us-central1",
        "gpu-components:cluster": {
            "name": "oracle",
            "location": "us-central1-a",
            "kubernetes_version": "1.34",
            "system_node_pool": {"machine_type": "e2-standard-4", "min_size": 1, "max_size": 3, "desired_size": 1},
        },
    },
}

REFUSED: Counter[str] = Counter()
"""Variants the library refused, by the first refused field path (filled by :func:`variant_plans`)."""


@dataclass(frozen=True)
class Variant:
    """One generated stack: ``name`` (``<cloud>-<gpu stack>-<gpu>-<sharing>``), and its stack config.
    ``gpu_stack`` is the variant's label of who advertises the GPUs: ``device-plugin``, ``bottlerocket``,
    ``gke-plugin``, ``gpu-operator`` or ``dra``."""

    name: str
    cloud: str
    gpu_stack: str
    gpu_model: str
    sharing: str
    config: dict[str, Any]


def _instance_type(cloud: catalog.Cloud, model: str) -> str | None:
    types = [t for t in catalog.instance_types(cloud) if t.gpu_model == model]
    return min(types, key=lambda t: (t.gpu_count, t.name)).name if types else None


def _mixed_layout(model: catalog.GpuModel) -> dict[str, int] | None:
    """The largest profile plus the smallest plain profile filling the rest: a layout of two profiles that fits
    one GPU (7 compute and 8 memory slices, A30-class 4 and 4), checked again by the library's own rule."""
    plain = [p for p in model.mig_profiles.values() if not p.media_extensions]
    if len(plain) < 2:
        return None
    half = [p for p in plain if p.compute_slices * 2 <= model.mig_compute_slices]
    big = max(half, key=lambda p: p.compute_slices, default=None)
    small = min(plain, key=lambda p: (p.compute_slices, p.memory_slices))
    if big is None or big == small:
        return None
    spare = min(
        (model.mig_compute_slices - big.compute_slices) // small.compute_slices,
        (model.mig_memory_slices - big.memory_slices) // small.memory_slices,
        small.max_instances,
    )
    return {big.name: 1, small.name: spare} if spare >= 1 else None


def _sharings(model: catalog.GpuModel) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "exclusive", {}
    yield "time-slicing", {"time_slicing": {"replicas": 4, "trusted": True}}
    yield "mps", {"mps": {"replicas": 4, "trusted": True}}
    for profile in model.mig_profiles:
        yield f"mig-{profile}", {"mig": {"profile": profile, "strategy": "single"}}
    layout = _mixed_layout(model)
    if layout is not None:
        yield "mig-mixed", {"mig": {"layout": layout, "strategy": "mixed"}}
    if model.mig_profiles:
        smallest = next(iter(model.mig_profiles))
        yield (
            f"mig-{smallest}-time-slicing",
            {
                "mig": {"profile": smallest, "strategy": "single"},
                "time_slicing": {"replicas": 2, "trusted": True},
            },
        )


def _stacks(cloud: str) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """Each GPU stack of a cloud: (variant label, ``gpu_stack``, extra pool fields, extra stack config). Besides the
    NVIDIA device plugin, the GPU Operator and the DRA driver: Bottlerocket's host device plugin on EKS, GKE's own on
    GKE, and on GKE the GPU Operator on Google's COS driver installer (``operator_driver: false``)."""
    if cloud == "gcp":
        yield "gke-plugin", "auto", {}, {}
    else:
        yield "device-plugin", "device-plugin", {}, {}
    if cloud == "aws":
        yield "bottlerocket", "device-plugin", {"aws": {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}}, {}
    yield "gpu-operator", "gpu-operator", {}, {}
    if cloud == "gcp":
        yield "gpu-operator-cos", "gpu-operator", {}, {"gpu-components:gpu_operator": {"operator_driver": False}}
    yield "dra", "dra", {}, {}


def _models() -> list[catalog.GpuModel]:
    """Every MIG-capable GPU of the catalog, and one GPU of each other architecture (time-slicing and MPS)."""
    mig = [m for m in catalog.gpu_models() if m.mig_capable]
    seen = {m.architecture for m in mig}
    others: list[catalog.GpuModel] = []
    for model in catalog.gpu_models():
        if not model.mig_capable and model.architecture not in seen:
            others.append(model)
            seen.add(model.architecture)
    return mig + others


_STARTUP_TAINT = {"key": "example.com/agent-not-ready", "value": "true", "effect": "NoExecute"}
_BUDGETS = [
    {"nodes": "10%", "reasons": ["drifted"]},
    {"nodes": "0", "reasons": ["underutilized", "empty"], "schedule": "0 8 * * mon-fri", "duration": "10h"},
]
_PROVISIONED: tuple[tuple[catalog.Cloud, str, str, dict[str, Any | None], dict[str, Any]], ...] = (
    (
        "aws",
        "karpenter",
        "g6e.xlarge",
        {
            "karpenter": {},
            "system_node_group": {"instance_type": "m7i.large", "min_size": 2, "max_size": 3, "desired_size": 2},
        },
        {
            "instance_families": ["g6e"],
            "gpu_requirements": [
                {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l40s"]},
                {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lte", "values": ["4"]},
            ],
        },
    ),
    (
        "aws",
        "eks-auto-mode",
        "g6e.xlarge",
        {"auto_mode": {}, "system_node_group": None},
        {
            "instance_types": ["g6e.2xlarge"],
            "gpu_requirements": [{"key": "eks.amazonaws.com/instance-gpu-name", "operator": "In", "values": ["l40s"]}],
        },
    ),
    (
        "azure",
        "node-auto-provisioning",
        "Standard_NC24ads_A100_v4",
        {"node_auto_provisioning": True, "system_node_pool": {"vm_size": "Standard_D4ds_v5", "count": 1}},
        {
            "instance_types": ["Standard_NC48ads_A100_v4"],
            "gpu_requirements": [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["A100"]}],
        },
    ),
)
"""The Karpenter-style provisioned pools of :func:`variants` (cloud, provisioner, instance type, cluster settings
over :data:`_CLUSTERS`' (``None``: removed), provisioning fields): each with GPU requirements, a startup taint, a
termination grace period and disruption budgets, so the real API server judges those NodePool fields with the
CRDs' CEL rules."""


def _provisioned_variants() -> Iterator[Variant]:
    """A pool of each Karpenter-style provisioner, exclusive and time-sliced, under the device plugin and the GPU
    Operator (EKS Auto Mode, exclusive under ``auto`` only: AWS's own driver and plugin serve its nodes)."""
    for cloud, provisioner, instance_type, cluster, fields in _PROVISIONED:
        model = catalog.instance_type(cloud, instance_type).gpu_model
        assert model is not None
        stacks = ("auto",) if provisioner == "eks-auto-mode" else ("device-plugin", "gpu-operator")
        for gpu_stack in stacks:
            for sharing, sharing_fields in (("exclusive", {}), ("time-slicing", {"time_slicing": {"replicas": 2}})):
                if provisioner == "eks-auto-mode" and sharing != "exclusive":
                    continue
                config = copy.deepcopy(_CLUSTERS[cloud])
                for key, value in cluster.items():
                    if value is None:
                        del config["gpu-components:cluster"][key]
                    else:
                        config["gpu-components:cluster"][key] = copy.deepcopy(value)
                config["gpu-components:cloud"] = cloud
                config["gpu-components:gpu_stack"] = gpu_stack
                provisioning = {
                    "provisioner": provisioner,
                    "max_gpus": 8,
                    "startup_taints": [_STARTUP_TAINT],
                    "disruption": {"expire_after": "168h", "termination_grace_period": "2h", "budgets": _BUDGETS},
                    **copy.deepcopy(fields),
                }
                pool = {"name": "gpu", "instance_type": instance_type, "provisioning": provisioning, **sharing_fields}
                config["gpu-components:pools"] = [pool]
                name = f"{cloud}-{provisioner}-{gpu_stack}-{model.lower()}-{sharing}"
                yield Variant(name, cloud, gpu_stack, model, sharing, config)


def variants() -> list[Variant]:
    """Every candidate variant (before the library's own rules decide which are valid): the fixed pools of each
    cloud x GPU stack x GPU model x sharing mode, and the provisioned pools of :func:`_provisioned_variants`."""
    out: list[Variant] = list(_provisioned_variants())
    for cloud in CLOUDS:
        for model in _models():
            instance_type = _instance_type(cloud, model.name)
            if instance_type is None:
                continue
            for label, gpu_stack, extra, stack_extra in _stacks(cloud):
                for sharing, fields in _sharings(model):
                    pool = {"name": "gpu", "instance_type": instance_type, "min_size": 0, "max_size": 2}
                    pool.update(copy.deepcopy(extra))
                    pool.update(fields)
                    config = copy.deepcopy(_CLUSTERS[cloud])
                    config["gpu-components:cloud"] = cloud
                    config["gpu-components:gpu_stack"] = gpu_stack
                    config["gpu-components:pools"] = [pool]
                    config.update(copy.deepcopy(stack_extra))
                    name = f"{cloud}-{label}-{model.name.lower()}-{sharing}"
                    out.append(Variant(name, cloud, label, model.name, sharing, config))
    return out


def plan_json(stack: str, config: dict[str, Any]) -> dict[str, Any]:
    """Plan one stack config as ``pulumi up`` would run it, as the plan's JSON document."""
    plan = run_program(example_program, project="gpu-components", stack=stack, config=config, preview=False)
    document: dict[str, Any] = json.loads(to_json(plan))
    return document


@functools.cache
def example_plans() -> dict[str, dict[str, Any]]:
    """Every example stack's plan, planned now from ``stacks/Pulumi.<stack>.yaml``, by stack name."""
    plans: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
        project, config = load_stack(ROOT, stack)
        plan = run_program(example_program, project=project, stack=stack, config=config, preview=False)
        plans[stack] = json.loads(to_json(plan))
    return plans


@functools.cache
def variant_plans() -> dict[str, dict[str, Any]]:
    """The plans of every variant the library accepts, by variant name (several hundred; about 0.1 s each)."""
    plans: dict[str, dict[str, Any]] = {}
    for variant in variants():
        try:
            plans[variant.name] = plan_json(variant.name, variant.config)
        except GpuSpecError as error:
            REFUSED[error.problems[0].path if error.problems else str(error)] += 1
    return plans


def variant_of(name: str) -> Variant:
    """The variant called ``name``."""
    return next(v for v in variants() if v.name == name)
