"""The workload-pool stack rules (gpu_components.policy.workload_pools) on pools as the node-pool components register
them and workloads as Kubernetes resources; exact messages' key parts."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.policy.workload_pools import (
    autoscaler_resource_violations,
    stack_pools,
    workload_pool_fit_violations,
    workload_pool_selection_violations,
    workload_pool_toleration_violations,
)
from gpu_components.spec import SOURCE_SHARING

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
SHARED_ENTRY = (
    "version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n    failRequestsGreaterThanOne: true\n"
    "    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
)
MPS_ENTRY = (
    "version: v1\nflags:\n  migStrategy: none\nsharing:\n  mps:\n"
    "    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
)


def pool(name: str, advertised: dict[str, int], host: str = "daemonset", **extra: Any) -> tuple[str, str, Any]:
    outputs = {
        "poolName": name,
        "labels": {"gpu-components/pool": name, "nvidia.com/device-plugin.config": name, **extra.pop("labels", {})},
        "nodeSelector": {"gpu-components/pool": name},
        "taints": extra.pop("taints", [GPU_TAINT]),
        "advertisedResources": advertised,
        "devicePluginHost": host,
        "autoscalerNote": None,
    }
    return (f"urn:pool:{name}", "gpu-components:index:EksGpuNodeGroup", outputs)


def config_map(**entries: str) -> tuple[str, str, Any]:
    return ("urn:cm", "kubernetes:core/v1:ConfigMap", {"data": entries})


def job(gpus: float | str = 1, resource: str = "nvidia.com/gpu", **pod: Any) -> tuple[str, str, Any]:
    spec = {
        "containers": [{"name": "c", "resources": {"limits": {resource: gpus}}}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        **pod,
    }
    return ("urn:job", "kubernetes:batch/v1:Job", {"spec": {"template": {"spec": spec}}})


def on(name: str) -> dict[str, Any]:
    return {"nodeSelector": {"gpu-components/pool": name}}


L4 = pool("l4", {"nvidia.com/gpu": 1})
SHARED = pool("shared", {"nvidia.com/gpu": 4})


def test_pools_are_read_from_the_node_pool_components_outputs_with_their_sharing_limit() -> None:
    [facts] = stack_pools([SHARED, config_map(shared=SHARED_ENTRY)])
    assert (facts.name, dict(facts.advertised), facts.taints) == (
        "shared",
        {"nvidia.com/gpu": 4},
        (("nvidia.com/gpu", "present", "NoSchedule"),),
    )
    assert dict(facts.max_shared) == {"nvidia.com/gpu": (1, SOURCE_SHARING)}


def test_a_workload_on_its_pool_with_its_tolerations_passes_every_rule() -> None:
    resources = [L4, job(1, **on("l4"))]
    assert workload_pool_selection_violations(resources) == []
    assert workload_pool_toleration_violations(resources) == []
    assert workload_pool_fit_violations(resources) == []


def test_a_gpu_workload_that_selects_no_pool_is_a_violation() -> None:
    [(urn, message)] = workload_pool_selection_violations([L4, job(1)])
    assert urn == "urn:job"
    assert message.startswith("spec.template.spec: the pods ask for nvidia.com/gpu but their nodeSelector")
    assert "select none of the stack's GPU pools (l4); select one, e.g. nodeSelector {gpu-components/pool: l4}" in (
        message
    )


def test_the_suggested_selector_is_the_pools_own_node_selector() -> None:
    """An Autopilot pool has no pool label: the advice is its nodeSelector output, which selects it."""
    selector = {"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-accelerator-count": "1"}
    urn, token, outputs = pool("al4", {"nvidia.com/gpu": 1}, "cloud")
    autopilot = (urn, token, {**outputs, "labels": selector, "nodeSelector": selector})
    [(_, message)] = workload_pool_selection_violations([autopilot, job(1)])
    assert (
        "select one, e.g. nodeSelector {cloud.google.com/gke-accelerator: nvidia-l4, "
        "cloud.google.com/gke-accelerator-count: 1}" in message
    )
    assert workload_pool_selection_violations([autopilot, job(1, nodeSelector=selector)]) == []


def test_a_selector_of_a_misspelt_pool_selects_nothing() -> None:
    assert len(workload_pool_selection_violations([L4, job(1, **on("l4x"))])) == 1


def test_required_node_affinity_on_the_pool_label_selects_the_pool() -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "gpu-components/pool", "operator": "In", "values": ["l4"]}]}
                ]
            }
        }
    }
    assert workload_pool_selection_violations([L4, job(1, affinity=affinity)]) == []


def test_a_cpu_workload_is_not_judged() -> None:
    cpu = ("urn:web", "kubernetes:apps/v1:Deployment", {"spec": {"template": {"spec": {"containers": [{}]}}}})
    assert workload_pool_selection_violations([L4, cpu]) == []


def test_a_stack_without_pool_components_is_not_judged() -> None:
    assert workload_pool_selection_violations([job(1)]) == []


@pytest.mark.parametrize(
    ("tolerations", "untolerated"),
    [
        ([], "nvidia.com/gpu=present:NoSchedule"),
        ([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}], "present"),
        ([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}], "present:NoSchedule"),
    ],
)
def test_tolerations_that_miss_the_pools_taint_are_a_violation(tolerations: list[Any], untolerated: str) -> None:
    [(_, message)] = workload_pool_toleration_violations([L4, job(1, **on("l4"), tolerations=tolerations)])
    assert message.startswith("spec.template.spec.tolerations: the pods select GPU pools whose taints they do not")
    assert "(pool l4: nvidia.com/gpu=present:NoSchedule)" in message
    assert untolerated in message


@pytest.mark.parametrize(
    "toleration",
    [
        {"operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "value": "present"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
    ],
)
def test_kubernetes_toleration_matching_is_followed(toleration: dict[str, str]) -> None:
    assert workload_pool_toleration_violations([L4, job(1, **on("l4"), tolerations=[toleration])]) == []


def test_a_prefer_no_schedule_taint_needs_no_toleration() -> None:
    soft = pool("soft", {"nvidia.com/gpu": 1}, taints=[{**GPU_TAINT, "effect": "PreferNoSchedule"}])
    assert workload_pool_toleration_violations([soft, job(1, **on("soft"), tolerations=[])]) == []


@pytest.mark.parametrize("entry", [SHARED_ENTRY, MPS_ENTRY], ids=["time-slicing fails >1", "mps"])
def test_more_than_one_shared_gpu_where_the_pool_admits_one_is_a_violation(entry: str) -> None:
    resources = [SHARED, config_map(shared=entry), job(2, **on("shared"))]
    [(_, message)] = workload_pool_fit_violations(resources)
    assert message.startswith(
        "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: 2 nvidia.com/gpu per container fits no"
    )
    assert "pool shared shares nvidia.com/gpu and admits at most 1 per container" in message


def test_time_slicing_without_fail_requests_admits_several() -> None:
    entry = SHARED_ENTRY.replace("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false")
    assert workload_pool_fit_violations([SHARED, config_map(shared=entry), job(2, **on("shared"))]) == []


def test_gke_sharing_admits_one_gpu_per_container() -> None:
    gke = pool(
        "ts", {"nvidia.com/gpu": 4}, host="cloud", labels={"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing"}
    )
    [(_, message)] = workload_pool_fit_violations([gke, job(2, **on("ts"))])
    assert "pool ts shares nvidia.com/gpu and admits at most 1 per container" in message
    assert "timesharing-gpus" in message


def test_more_gpus_than_a_node_has_is_a_violation() -> None:
    [(_, message)] = workload_pool_fit_violations([L4, job(2, **on("l4"))])
    assert (
        "2 nvidia.com/gpu per container fits no GPU pool the pods select: pool l4's nodes each have 1 nvidia.com/gpu"
        in (message)
    )


def test_a_resource_the_pool_does_not_advertise_is_a_violation() -> None:
    mig = pool("mig", {"nvidia.com/mig-1g.10gb": 56})
    [(_, message)] = workload_pool_fit_violations([mig, job(1, **on("mig"))])
    assert "pool mig's nodes each have no nvidia.com/gpu (it advertises nvidia.com/mig-1g.10gb: 56)" in message


def test_a_pool_advertising_no_nvidia_gpu_gets_the_autoscaler_advisory() -> None:
    mig = pool("mig", {"nvidia.com/mig-1g.10gb": 56})
    [(urn, message)] = autoscaler_resource_violations([mig, L4])
    assert urn == "urn:pool:mig"
    assert message.startswith(
        "pool mig: nodes advertise nvidia.com/mig-1g.10gb and no nvidia.com/gpu, the only GPU resource the Cluster "
        "Autoscaler waits for on a new node"
    )


def test_dra_pools_are_left_to_the_dra_rules() -> None:
    dra = pool("dra", {}, host="dra-driver")
    assert autoscaler_resource_violations([dra]) == []
    assert workload_pool_selection_violations([dra, job(1)]) == []


def test_gpu_limits_written_as_quantity_strings_are_judged_as_numbers() -> None:
    """Kubernetes quantities are often strings ("3"): read as the gpu-workload-quantities rule reads them."""
    [(_, fit)] = workload_pool_fit_violations([L4, job("3", **on("l4"))])
    assert fit.startswith(
        "spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']: 3 nvidia.com/gpu per container fits no "
        "GPU pool the pods select: pool l4's nodes each have 1 nvidia.com/gpu"
    )
    [(_, selection)] = workload_pool_selection_violations([L4, job("1")])
    assert selection.startswith(
        "spec.template.spec: the pods ask for nvidia.com/gpu but their nodeSelector and required node affinity select "
        "none of the stack's GPU pools (l4)"
    )
    assert workload_pool_fit_violations([L4, job("1", **on("l4"))]) == []
    assert workload_pool_fit_violations([L4, job(1.0, **on("l4"))]) == []
