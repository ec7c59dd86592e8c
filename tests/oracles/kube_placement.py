"""One plan, run for real on a fresh control plane: every object applied, the pools' nodes registered, then the real
kube-scheduler and kube-controller-manager (DaemonSet, Job and ResourceClaim controllers) place the pods.

:func:`run_plan` returns a :class:`PlanRun`: what the API server refused (``refused``), and where each pod landed,
each DaemonSet's pods, each claim's allocation, for ``tests/oracles/test_placement.py`` to judge.

The GPU Operator creates its operands' DaemonSets itself at run time (not through Helm): where a plan's rendered
``ClusterPolicy`` enables them, the operator's own DaemonSet manifests are read from its Go module
(``assets/state-device-plugin/0500_daemonset.yaml``, ``state-mig-manager/0600_daemonset.yaml``,
``state-mps-control-daemon/0400_daemonset.yaml`` of ``github.com/NVIDIA/gpu-operator`` at :data:`OPERATOR_VERSION`,
the version the proxy serves) with the ClusterPolicy's ``daemonsets.tolerations`` put in as the operator does
(``controllers/object_controls.go``), and applied beside the plan's objects.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.oracles.build import module_source
from tests.oracles.kube import ApiError, ControlPlane, control_plane, describe, plan_objects
from tests.oracles.kube_nodes import Agents, Pool, node, pools, resource_slice
from tests.oracles.plans import example_plans

OPERATOR_MODULE = "github.com/NVIDIA/gpu-operator"
OPERATOR_VERSION = "v0.0.0-20250917190837-d73a0086a6ba"
"""The GPU Operator's module version the Go proxy serves (the chart pin v26.7.0 is not served there)."""

OPERAND_ASSETS = {
    "devicePlugin": ("state-device-plugin/0500_daemonset.yaml", "state-mps-control-daemon/0400_daemonset.yaml"),
    "migManager": ("state-mig-manager/0600_daemonset.yaml",),
}
"""ClusterPolicy component -> the operator's DaemonSet manifests for it."""

SETTLE_TIMEOUT = 60.0


@dataclass
class PlanRun:
    """What a real control plane made of one plan."""

    applied: int = 0
    refused: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    pools: list[Pool] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    daemonsets: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    slices: list[dict[str, Any]] = field(default_factory=list)
    operator_daemonsets: list[str] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)

    def pool_of_node(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.node_name == name), None)


def _operator_daemonsets(policy: Mapping[str, Any], namespace: str) -> list[dict[str, Any]]:
    spec = policy.get("spec", {})
    tolerations = (spec.get("daemonsets") or {}).get("tolerations") or []
    assets = module_source(OPERATOR_MODULE, OPERATOR_VERSION) / "assets"
    out = []
    for component, files in OPERAND_ASSETS.items():
        if (spec.get(component) or {}).get("enabled") is False:
            continue
        for file in files:
            ds = yaml.safe_load((assets / file).read_text())
            ds["metadata"]["namespace"] = namespace
            pod = ds["spec"]["template"]["spec"]
            if tolerations:
                pod["tolerations"] = tolerations
            pod.pop("priorityClassName", None)
            out.append(ds)
    return out


def _agents(objects: list[dict[str, Any]]) -> Agents:
    policy = next((o for o in objects if o["kind"] == "ClusterPolicy"), None)
    nfd = any(o["kind"] == "DaemonSet" and "node-feature-discovery" in o["metadata"]["name"] for o in objects)
    mig = policy is not None and (policy["spec"].get("migManager") or {}).get("enabled") is not False
    return Agents(operator=policy is not None, nfd=nfd, mig_manager=mig)


def _settled(plane: ControlPlane, jobs: int) -> bool:
    pods = plane.items("v1", "Pod")
    daemonsets = plane.items("apps/v1", "DaemonSet")
    if any(ds.get("status", {}).get("observedGeneration", 0) < 1 for ds in daemonsets):
        return False
    wanted = sum(ds["status"].get("desiredNumberScheduled", 0) for ds in daemonsets)
    owned = [p for p in pods if (p["metadata"].get("ownerReferences") or [{}])[0].get("kind") == "DaemonSet"]
    job_pods = [p for p in pods if (p["metadata"].get("ownerReferences") or [{}])[0].get("kind") == "Job"]
    if len(owned) < wanted or len({p["metadata"]["labels"].get("job-name") for p in job_pods}) < jobs:
        return False
    for pod in pods:
        if pod["spec"].get("nodeName"):
            continue
        conditions = {c["type"]: c for c in pod.get("status", {}).get("conditions", [])}
        if conditions.get("PodScheduled", {}).get("reason") != "Unschedulable":
            return False
    return True


def run_plan(
    bins: Mapping[str, Path], plan: Mapping[str, Any], place: bool = True, extra: Sequence[Mapping[str, Any]] = ()
) -> PlanRun:
    """Apply ``plan`` for real on a fresh control plane; with ``place``, register its pools' nodes and let the
    scheduler and controllers place the pods. ``extra`` objects (a test's own) are applied after the plan's."""
    run = PlanRun()
    cloud = str(plan.get("config", {}).get("gpu-components:cloud", "aws"))
    found = plan_objects(plan)
    run.skipped = found.skipped
    with control_plane(bins, cloud) as plane:
        try:
            plane.install_crds(found.crds)
        except ApiError as error:
            run.refused.append(f"CRDs: {error}")
        for obj in found.rest:
            try:
                plane.send(obj, found.by_helm(obj))
                run.applied += 1
            except ApiError as error:
                run.refused.append(f"{describe(obj)}: {error.message}")
        run.applied += len(found.crds)
        for obj in extra:
            plane.apply(obj)
        if not place:
            return run
        policy = next((o for o in found.objects if o["kind"] == "ClusterPolicy"), None)
        if policy is not None:
            namespace = policy["metadata"].get("namespace") or "gpu-operator"
            for ds in _operator_daemonsets(policy, namespace):
                plane.apply(ds)
                run.operator_daemonsets.append(ds["metadata"]["name"])
        agents = _agents(found.objects)
        run.pools = pools(plan)
        for pool in run.pools:
            obj = node(pool, agents)
            status = obj.pop("status")
            plane.request("POST", "/api/v1/nodes", obj)
            plane.request(
                "PATCH",
                f"/api/v1/nodes/{pool.node_name}/status",
                {"status": status},
                "application/merge-patch+json",
            )
            slice_ = resource_slice(pool)
            if slice_ is not None:
                plane.request("POST", "/apis/resource.k8s.io/v1/resourceslices", slice_)
        plane.start_controllers()
        jobs = sum(1 for o in [*found.objects, *extra] if o["kind"] == "Job")
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while not _settled(plane, jobs):
            if time.monotonic() > deadline:
                run.unsettled.append("pods did not settle in time")
                break
            time.sleep(0.5)
        run.pods = plane.items("v1", "Pod")
        run.daemonsets = plane.items("apps/v1", "DaemonSet")
        run.claims = plane.items("resource.k8s.io/v1", "ResourceClaim")
        run.slices = plane.items("resource.k8s.io/v1", "ResourceSlice")
    return run


_EXAMPLE_RUNS: dict[str, PlanRun] = {}


def example_runs(bins: Mapping[str, Path]) -> dict[str, PlanRun]:
    """Every example stack's :class:`PlanRun` (made once per process; the API and placement tests share it)."""
    if not _EXAMPLE_RUNS:
        for stack, plan in example_plans().items():
            _EXAMPLE_RUNS[stack] = run_plan(bins, plan)
    return _EXAMPLE_RUNS
