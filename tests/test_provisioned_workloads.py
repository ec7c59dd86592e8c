"""Workload helpers on provisioned pools (issue 16): GPU selection with each provisioner's own node labels, the
do-not-disrupt annotation, time-slicing pods, and the provisioner's autoscaler note. Specs come from
``GpuNodePoolSpec.from_args``; no component is needed."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components.autoscaler import provisioner_note
from gpu_components.aws.facts import ec2_gpu_memory_mib, ec2_gpu_name
from gpu_components.azure.facts import nap_gpu_name
from gpu_components.cloud_facts import facts_for
from gpu_components.errors import GpuSpecError
from gpu_components.gcp.facts import gke_accelerator
from gpu_components.labels import POOL_LABEL
from gpu_components.nvidia.device_plugin import advertised_resources
from gpu_components.samples import vector_add_manifest
from gpu_components.spec import GpuNodePoolSpec
from gpu_components.workloads import do_not_disrupt_annotation, gpu_node_requirements, pod_settings

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def spec(cloud: str, instance_type: str, provisioning: dict[str, Any] | None = None, **pool: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "p", "instance_type": instance_type, **pool}
    if provisioning is None:
        args.setdefault("max_size", 2)
    else:
        args["provisioning"] = provisioning
    return GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]


def karpenter(**more: Any) -> GpuNodePoolSpec:
    """A Karpenter pool of L40S (g6e.xlarge first), L4 and A10G nodes and both A100 sizes."""
    provisioning = {"provisioner": "karpenter", "max_gpus": 16, "instance_families": ["g6", "g5", "p4d", "p4de"]}
    return spec("aws", "g6e.xlarge", provisioning, **more)


def settings(pool: GpuNodePoolSpec, gpus: int = 1, **options: Any) -> dict[str, Any]:
    return dict(pod_settings(pool, advertised_resources(pool), pool.taints, {POOL_LABEL: "p"}, gpus, **options))


def affinity(*requirements: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": list(requirements)}]
            }
        }
    }


def problems_of(error: pytest.ExceptionInfo[GpuSpecError]) -> list[tuple[str, object, str, str | None]]:
    return [(p.path, p.value, p.message, p.valid) for p in error.value.problems]


# ---------------------------------------------------------------------------------------------------------------
# The label values each cloud's facts give per instance type
# ---------------------------------------------------------------------------------------------------------------


def test_each_provisioners_gpu_label_keys_and_annotation() -> None:
    keys = {
        name: (
            f.gpu_name_label,
            f.gpu_count_label,
            f.gpu_memory_label,
            f.do_not_disrupt,
            f.counts_whole_gpus,
        )
        for cloud in ("aws", "gcp", "azure")
        for name, f in facts_for(cloud).provisioners.items()
    }
    assert keys == {
        "karpenter": (
            "karpenter.k8s.aws/instance-gpu-name",
            "karpenter.k8s.aws/instance-gpu-count",
            "karpenter.k8s.aws/instance-gpu-memory",
            ("karpenter.sh/do-not-disrupt", "true"),
            True,
        ),
        "eks-auto-mode": (
            "eks.amazonaws.com/instance-gpu-name",
            "eks.amazonaws.com/instance-gpu-count",
            "eks.amazonaws.com/instance-gpu-memory",
            ("karpenter.sh/do-not-disrupt", "true"),
            True,
        ),
        "compute-class": (
            "cloud.google.com/gke-accelerator",
            "cloud.google.com/gke-accelerator-count",
            None,
            ("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
            False,
        ),
        "node-auto-provisioning": (
            "karpenter.azure.com/sku-gpu-name",
            "karpenter.azure.com/sku-gpu-count",
            None,
            ("karpenter.sh/do-not-disrupt", "true"),
            True,
        ),
    }


def test_karpenter_label_values_are_ec2_lowercase_names_and_mib() -> None:
    assert [
        (ec2_gpu_name(t), ec2_gpu_memory_mib(t))
        for t in ("g6e.xlarge", "g6.xlarge", "g5.xlarge", "p5.48xlarge", "gr6.4xlarge", "p5.4xlarge")
    ] == [
        ("l40s", 45776),
        ("l4", 22888),
        ("a10g", 22888),
        ("h100", 81920),
        ("l4", 22888),
        ("h100", 81920),
    ]
    assert (ec2_gpu_name("p3.2xlarge"), ec2_gpu_memory_mib("p6e-gb200.36xlarge")) == (None, None)


def test_gke_label_value_is_the_machine_types_accelerator_type() -> None:
    assert [gke_accelerator(t) for t in ("g2-standard-8", "a3-megagpu-8g", "a2-ultragpu-1g", "e2-standard-4")] == [
        "nvidia-l4",
        "nvidia-h100-mega-80gb",
        "nvidia-a100-80gb",
        None,
    ]


def test_nap_label_value_is_the_accelerator_in_the_vm_size_name() -> None:
    sizes = (
        "Standard_NC4as_T4_v3",
        "Standard_NC24ads_A100_v4",
        "Standard_NC80adis_H100_v5",
        "Standard_ND128isr_NDR_GB200_v6",
        "Standard_NC6s_v3",
        "Standard_ND96asr_v4",
    )
    assert [nap_gpu_name(size) for size in sizes] == ["T4", "A100", "H100", "GB200", None, None]


# ---------------------------------------------------------------------------------------------------------------
# Selecting GPUs among a provisioned pool's types
# ---------------------------------------------------------------------------------------------------------------


def test_gpu_model_selects_with_karpenters_gpu_name_label() -> None:
    assert settings(karpenter(), gpu_model="L40S") == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {POOL_LABEL: "p"},
        "affinity": affinity({"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l40s"]}),
    }


def test_memory_floor_is_greater_than_one_mib_below_the_least_qualifying_gpu() -> None:
    assert gpu_node_requirements(karpenter(), min_gpu_memory_gb=40) == (
        [{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["40959"]}],
        [],
    )
    assert gpu_node_requirements(karpenter(), min_gpu_memory_gb=48) == (
        [{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["45775"]}],
        [],
    )


def test_a100_sizes_sharing_a_name_are_told_apart_by_memory() -> None:
    assert gpu_node_requirements(karpenter(), gpu_model="A100-80GB") == (
        [
            {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["a100"]},
            {"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "In", "values": ["81920"]},
        ],
        [],
    )


def test_auto_mode_selects_with_its_own_label_keys() -> None:
    pool = spec("aws", "g6e.xlarge", {"provisioner": "eks-auto-mode", "max_nodes": 2, "instance_families": ["g6"]})
    assert gpu_node_requirements(pool, gpu_model="L4") == (
        [{"key": "eks.amazonaws.com/instance-gpu-name", "operator": "In", "values": ["l4"]}],
        [],
    )


def test_gke_memory_floor_selects_accelerator_types_since_gke_has_no_memory_label() -> None:
    pool = spec(
        "gcp",
        "g2-standard-8",
        {"provisioner": "compute-class", "max_nodes": 4, "instance_types": ["a2-highgpu-1g", "a3-megagpu-8g"]},
    )
    assert gpu_node_requirements(pool, min_gpu_memory_gb=40) == (
        [
            {
                "key": "cloud.google.com/gke-accelerator",
                "operator": "In",
                "values": ["nvidia-h100-mega-80gb", "nvidia-tesla-a100"],
            }
        ],
        [],
    )


def test_nap_selects_with_the_sku_gpu_name_label() -> None:
    pool = spec(
        "azure",
        "Standard_NC24ads_A100_v4",
        {"provisioner": "node-auto-provisioning", "max_nodes": 4, "instance_types": ["Standard_NC40ads_H100_v5"]},
    )
    assert gpu_node_requirements(pool, gpu_model="H100-94GB") == (
        [{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["H100"]}],
        [],
    )


def test_a_type_whose_label_value_is_unknown_is_refused() -> None:
    pool = spec(
        "azure",
        "Standard_NC24ads_A100_v4",
        {"provisioner": "node-auto-provisioning", "max_nodes": 4, "instance_types": ["Standard_NC6s_v3"]},
    )
    with pytest.raises(GpuSpecError) as error:
        settings(pool, gpu_model="A100-80GB")
    assert problems_of(error) == [
        (
            "gpu_model",
            "A100-80GB",
            "the library does not know the karpenter.azure.com/sku-gpu-name value node-auto-provisioning gives nodes "
            "of Standard_NC6s_v3, so it cannot select among the pool's types by GPU; select by "
            "node.kubernetes.io/instance-type yourself",
            None,
        )
    ]


def test_types_the_labels_cannot_tell_apart_are_refused() -> None:
    pool = spec(
        "azure",
        "Standard_NC40ads_H100_v5",
        {"provisioner": "node-auto-provisioning", "max_nodes": 2, "instance_types": ["Standard_ND96isr_H100_v5"]},
    )
    with pytest.raises(GpuSpecError) as error:
        settings(pool, gpu_model="H100-94GB")
    assert problems_of(error) == [
        (
            "gpu_model",
            "H100-94GB",
            "node-auto-provisioning's labels do not tell Standard_ND96isr_H100_v5 from Standard_NC40ads_H100_v5: the "
            "same karpenter.azure.com/sku-gpu-name; select by node.kubernetes.io/instance-type yourself",
            None,
        )
    ]


def test_a_gpu_the_pool_does_not_allow_is_refused_with_the_pools_gpus() -> None:
    with pytest.raises(GpuSpecError) as error:
        settings(karpenter(), gpu_model="H100-80GB")
    assert problems_of(error) == [
        (
            "gpu_model",
            "H100-80GB",
            "pool p allows no instance type with such a GPU",
            "A100-40GB (40 GB), A100-80GB (80 GB), A10G (24 GB), L4 (24 GB), L40S (48 GB)",
        )
    ]


@pytest.mark.parametrize(
    ("given", "hint"),
    [("l40s", "; did you mean 'L40S'?"), ("a100", "; did you mean 'A100-40GB' or 'A100-80GB'?"), ("L40", "")],
)
def test_a_gpu_named_in_another_case_gets_did_you_mean_not_a_guess(given: str, hint: str) -> None:
    with pytest.raises(GpuSpecError) as error:
        settings(karpenter(), gpu_model=given)
    assert problems_of(error) == [
        (
            "gpu_model",
            given,
            f"pool p allows no instance type with such a GPU{hint}",
            "A100-40GB (40 GB), A100-80GB (80 GB), A10G (24 GB), L4 (24 GB), L40S (48 GB)",
        )
    ]


def test_gpu_selection_on_a_fixed_pool_is_refused() -> None:
    with pytest.raises(GpuSpecError) as error:
        settings(spec("aws", "g6e.xlarge"), min_gpu_memory_gb=24)
    assert problems_of(error) == [
        (
            "min_gpu_memory_gb",
            24,
            "pool p is a fixed pool of one instance type (g6e.xlarge, L40S): its pool label selects it; GPU "
            "selection is for provisioned pools that allow several types",
            None,
        )
    ]


def test_bad_selection_arguments_are_refused() -> None:
    with pytest.raises(GpuSpecError) as error:
        settings(karpenter(), gpu_model=5, min_gpu_memory_gb=0, do_not_disrupt="yes")
    assert problems_of(error) == [
        ("do_not_disrupt", "yes", "must be True or False", None),
    ]
    with pytest.raises(GpuSpecError) as error:
        settings(karpenter(), gpu_model=5, min_gpu_memory_gb=0)
    assert problems_of(error) == [
        ("gpu_model", 5, "must be a GPU model name (a string) or None", None),
        ("min_gpu_memory_gb", 0, "must be a whole number of GB, at least 1", None),
    ]


def test_no_affinity_when_every_allowed_type_qualifies() -> None:
    assert "affinity" not in settings(karpenter(), min_gpu_memory_gb=24)


def test_a_pod_may_ask_for_the_gpus_of_the_largest_allowed_type() -> None:
    assert settings(karpenter(), 8, gpu_model="L4")["resources"] == {"limits": {"nvidia.com/gpu": "8"}}
    with pytest.raises(GpuSpecError) as error:
        settings(karpenter(), 8, gpu_model="L40S")
    assert problems_of(error) == [
        ("gpus", 8, "the largest node of pool p has 1 nvidia.com/gpu; the pod would never schedule", "1..1")
    ]


# ---------------------------------------------------------------------------------------------------------------
# Do not disrupt
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cloud", "instance_type", "provisioner", "annotation"),
    [
        ("aws", "g6e.xlarge", "karpenter", ("karpenter.sh/do-not-disrupt", "true")),
        ("aws", "g6e.xlarge", "eks-auto-mode", ("karpenter.sh/do-not-disrupt", "true")),
        ("gcp", "g2-standard-8", "compute-class", ("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")),
        ("azure", "Standard_NC24ads_A100_v4", "node-auto-provisioning", ("karpenter.sh/do-not-disrupt", "true")),
        ("aws", "g6e.xlarge", None, ("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")),
    ],
)
def test_do_not_disrupt_annotation_is_the_provisioners(
    cloud: str, instance_type: str, provisioner: str | None, annotation: tuple[str, str]
) -> None:
    grace = {"disruption": {"termination_grace_period": "24h"}} if provisioner not in (None, "compute-class") else {}
    provisioning = {"provisioner": provisioner, "max_nodes": 2, **grace} if provisioner else None
    pool = spec(cloud, instance_type, provisioning)
    assert do_not_disrupt_annotation(pool) == annotation
    assert settings(pool, do_not_disrupt=True)["annotations"] == dict([annotation])
    # The label a GPU Operator driver upgrade waits for (waitForCompletion.podSelector).
    assert settings(pool, do_not_disrupt=True)["labels"] == {"gpu-components/long-running": "true"}
    assert "annotations" not in settings(pool)
    assert "labels" not in settings(pool)


def test_sample_job_carries_affinity_and_annotation_on_its_pod_template() -> None:
    manifest = vector_add_manifest(pod_settings_of(), "j")
    template = manifest["spec"]["template"]
    assert template["metadata"] == {
        "labels": {"app.kubernetes.io/name": "cuda-vectoradd", "gpu-components/long-running": "true"},
        "annotations": {"karpenter.sh/do-not-disrupt": "true"},
    }
    assert template["spec"]["affinity"] == affinity(
        {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4"]}
    )


def pod_settings_of() -> Any:
    pool = spec(
        "aws",
        "g6e.xlarge",
        {
            "provisioner": "karpenter",
            "max_gpus": 16,
            "instance_families": ["g6", "g5", "p4d", "p4de"],
            "disruption": {"termination_grace_period": "24h"},
        },
    )
    return pod_settings(
        pool, advertised_resources(pool), pool.taints, {POOL_LABEL: "p"}, 1, gpu_model="L4", do_not_disrupt=True
    )


# ---------------------------------------------------------------------------------------------------------------
# Time-slicing on Karpenter, and the autoscaler note
# ---------------------------------------------------------------------------------------------------------------


def test_time_sliced_karpenter_pool_pods_ask_for_the_replicas_as_on_a_fixed_pool() -> None:
    provisioning = {"provisioner": "karpenter", "max_nodes": 3, "instance_types": ["g6e.2xlarge"]}
    pool = spec("aws", "g6e.xlarge", provisioning, time_slicing={"replicas": 4})
    assert settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {POOL_LABEL: "p"},
    }
    renamed = spec("aws", "g6e.xlarge", provisioning, time_slicing={"replicas": 4, "rename_by_default": True})
    assert settings(renamed, 1)["resources"] == {"limits": {"nvidia.com/gpu.shared": "1"}}


def test_time_sliced_pods_ask_for_at_most_the_largest_allowed_types_physical_gpus() -> None:
    provisioning = {"provisioner": "karpenter", "max_nodes": 3, "instance_types": ["g6e.2xlarge"]}
    pool = spec("aws", "g6e.xlarge", provisioning, time_slicing={"replicas": 4})
    for gpus in (2, 4):
        with pytest.raises(GpuSpecError) as error:
            settings(pool, gpus)
        assert problems_of(error) == [
            (
                "gpus",
                gpus,
                "pool p's provisioner karpenter counts each nvidia.com/gpu a pod asks for as a physical GPU, and no "
                "allowed instance type (g6e.xlarge, g6e.2xlarge) has more than 1: it would never create a node for "
                "the pod, whatever the time-slicing replicas or MIG devices per node",
                "1..1",
            )
        ]
        assert "https://github.com/kubernetes-sigs/karpenter/issues/2140" in str(error.value.problems[0].source)
        assert "device-management-nvidia-time-slicing" in str(error.value.problems[0].source)
    larger = spec(
        "aws", "g6e.xlarge", {**provisioning, "instance_types": ["g6e.12xlarge"]}, time_slicing={"replicas": 4}
    )
    assert settings(larger, 4)["resources"] == {"limits": {"nvidia.com/gpu": "4"}}
    nap = spec(
        "azure",
        "Standard_NC8as_T4_v3",
        {"provisioner": "node-auto-provisioning", "max_nodes": 2},
        time_slicing={"replicas": 4},
    )
    with pytest.raises(GpuSpecError) as error:
        settings(nap, 2)
    assert problems_of(error)[0][2].startswith("pool p's provisioner node-auto-provisioning counts each")
    assert problems_of(error)[0][3] == "1..1"
    fixed = spec("aws", "g6e.xlarge", time_slicing={"replicas": 4})
    assert settings(fixed, 4)["resources"] == {"limits": {"nvidia.com/gpu": "4"}}


def test_note_when_karpenter_counts_time_slicing_replicas_as_whole_gpus() -> None:
    pool = spec("aws", "g6e.xlarge", {"provisioner": "karpenter", "max_nodes": 2}, time_slicing={"replicas": 4})
    assert provisioner_note(pool, "daemonset") == (
        "karpenter counts each nvidia.com/gpu request as a whole GPU of the instance type (1 per g6e.xlarge node) "
        "while a node advertises 4 (time-slicing, 4 replicas per GPU): it may create up to 4 times the nodes "
        "pending pods need; the empty ones are consolidated later"
    )


def test_note_for_single_strategy_mig() -> None:
    mig = spec("aws", "p5.48xlarge", {"provisioner": "karpenter", "max_nodes": 1}, mig={"profile": "1g.10gb"})
    assert provisioner_note(mig, "gpu-operator") == (
        "karpenter counts each nvidia.com/gpu request as a whole GPU of the instance type (8 per p5.48xlarge node) "
        "while a node advertises 56 (MIG devices): it may create up to 7 times the nodes pending pods need; the "
        "empty ones are consolidated later"
    )


@pytest.mark.parametrize(
    ("cloud", "instance_type", "provisioner", "host"),
    [
        ("aws", "g6e.xlarge", "karpenter", "daemonset"),
        ("aws", "g6e.xlarge", "eks-auto-mode", "cloud"),
        ("gcp", "g2-standard-8", "compute-class", "cloud"),
        ("aws", "g6e.xlarge", None, "daemonset"),
    ],
)
def test_no_note_for_whole_gpus_a_compute_class_or_a_fixed_pool(
    cloud: str, instance_type: str, provisioner: str | None, host: Any
) -> None:
    provisioning = {"provisioner": provisioner, "max_nodes": 2} if provisioner else None
    assert provisioner_note(spec(cloud, instance_type, provisioning), host) is None


# ---------------------------------------------------------------------------------------------------------------
# GKE ComputeClass: pods select the class and only the labels GKE admits beside it (issue 29)
# ---------------------------------------------------------------------------------------------------------------

COMPUTE_CLASS_VALID = (
    "topology.kubernetes.io/region, topology.kubernetes.io/zone, failure-domain.beta.kubernetes.io/region, "
    "failure-domain.beta.kubernetes.io/zone, cloud.google.com/gke-accelerator-count, "
    "cloud.google.com/gke-tpu-topology, cloud.google.com/gke-tpu-accelerator"
)


def compute_class_pool(**provisioning: Any) -> GpuNodePoolSpec:
    return spec(
        "gcp",
        "g2-standard-8",
        {"provisioner": "compute-class", "max_gpus": 8, **provisioning},
        time_slicing={"replicas": 2},
    )


def test_a_pod_on_a_compute_class_pool_selects_the_class_alone_and_tolerates_its_taint() -> None:
    from gpu_components.gcp.compute_class import compute_class_pool_view

    pool = compute_class_pool()
    view = compute_class_pool_view(pool)
    assert pod_settings(
        pool, view.advertised_resources, view.taints, view.node_selector, 1, device_plugin_host="cloud"
    ) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [
            GPU_TOLERATION,
            {"key": "cloud.google.com/compute-class", "operator": "Equal", "value": "p", "effect": "NoSchedule"},
        ],
        "nodeSelector": {"cloud.google.com/compute-class": "p"},
    }


def test_a_label_gke_rejects_beside_a_compute_class_is_refused_when_passed_to_the_helper() -> None:
    pool = compute_class_pool()
    selector = {
        "cloud.google.com/compute-class": "p",
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-accelerator-count": "1",
        "cloud.google.com/machine-family": "g2",
        POOL_LABEL: "p",
        "topology.kubernetes.io/zone": "us-central1-a",
    }
    with pytest.raises(GpuSpecError) as error:
        pod_settings(pool, {"nvidia.com/gpu": 2}, pool.taints, selector, 1, device_plugin_host="cloud")
    why = "GKE rejects a pod that selects cloud.google.com/compute-class: p beside this node label"
    assert problems_of(error) == [
        (f"node_selector[{key!r}]", key, why, COMPUTE_CLASS_VALID)
        for key in ("cloud.google.com/gke-accelerator", "cloud.google.com/machine-family", POOL_LABEL)
    ]
    assert {p.source for p in error.value.problems} == {
        "https://github.com/newrelic/newrelic-prometheus-configurator/issues/472; "
        "https://github.com/GoogleCloudPlatform/kubernetes-engine-samples/pull/1570"
    }
    # The labels GKE admits beside the class pass through as given.
    admitted = {
        key: selector[key]
        for key in selector
        if key.startswith(("cloud.google.com/c", "cloud.google.com/gke-accelerator-", "topology"))
    }
    assert pod_settings(pool, {"nvidia.com/gpu": 2}, pool.taints, admitted, 1)["nodeSelector"] == admitted


def test_gpu_selection_on_a_compute_class_pool_is_refused_since_gke_rejects_its_accelerator_affinity() -> None:
    pool = spec(
        "gcp", "g2-standard-8", {"provisioner": "compute-class", "max_gpus": 8, "instance_types": ["a2-highgpu-1g"]}
    )
    selector = {"cloud.google.com/compute-class": "p"}
    with pytest.raises(GpuSpecError) as error:
        pod_settings(pool, {"nvidia.com/gpu": 2}, pool.taints, selector, 1, gpu_model="L4")
    assert problems_of(error) == [
        (
            "gpu_model",
            "cloud.google.com/gke-accelerator",
            "selecting among pool p's machine types needs node affinity on cloud.google.com/gke-accelerator, which "
            "GKE rejects beside cloud.google.com/compute-class: p",
            COMPUTE_CLASS_VALID,
        )
    ]


@pytest.mark.parametrize(
    ("cloud", "instance_type", "provisioner", "disruption", "message", "valid"),
    [
        (
            "aws",
            "g6e.xlarge",
            "karpenter",
            {},
            "pool p's nodes expire after 720h, karpenter's default, and expiry is forceful: the expired node drains, "
            "the do-not-disrupt pod blocks the drain, and with no termination_grace_period the node stays draining "
            "for as long as the pod runs (forever for one that never ends)",
            "set pool p's provisioning.disruption.termination_grace_period (e.g. 24h), or its "
            "provisioning.disruption.expire_after: Never",
        ),
        (
            "aws",
            "g6e.xlarge",
            "eks-auto-mode",
            {"expire_after": "48h"},
            "pool p's nodes expire after 48h, and expiry is forceful: the expired node drains, the do-not-disrupt "
            "pod blocks the drain, and with no termination_grace_period the node stays draining for as long as the "
            "pod runs (forever for one that never ends)",
            "set pool p's provisioning.disruption.termination_grace_period (e.g. 24h)",
        ),
        (
            "azure",
            "Standard_NC24ads_A100_v4",
            "node-auto-provisioning",
            {},
            "pool p's nodes expire after 720h, node-auto-provisioning's default, and expiry is forceful: the expired "
            "node drains, the do-not-disrupt pod blocks the drain, and with no termination_grace_period the node "
            "stays draining for as long as the pod runs (forever for one that never ends)",
            "set pool p's provisioning.disruption.termination_grace_period (e.g. 24h), or its "
            "provisioning.disruption.expire_after: Never",
        ),
    ],
)
def test_do_not_disrupt_on_an_expiring_pool_without_a_grace_period_is_refused(
    cloud: str, instance_type: str, provisioner: str, disruption: dict[str, str], message: str, valid: str
) -> None:
    pool = spec(cloud, instance_type, {"provisioner": provisioner, "max_nodes": 2, "disruption": disruption})
    with pytest.raises(GpuSpecError) as error:
        settings(pool, do_not_disrupt=True)
    assert problems_of(error) == [("do_not_disrupt", True, message, valid)]
    assert "annotations" not in settings(pool)


@pytest.mark.parametrize(
    ("cloud", "instance_type", "provisioning"),
    [
        ("aws", "g6e.xlarge", {"provisioner": "karpenter", "disruption": {"expire_after": "Never"}}),
        ("aws", "g6e.xlarge", {"provisioner": "karpenter", "disruption": {"termination_grace_period": "1h"}}),
        ("gcp", "g2-standard-8", {"provisioner": "compute-class"}),
    ],
)
def test_do_not_disrupt_is_allowed_where_nodes_never_expire_or_a_grace_period_ends_the_drain(
    cloud: str, instance_type: str, provisioning: dict[str, Any]
) -> None:
    pool = spec(cloud, instance_type, {**provisioning, "max_gpus": 8})
    assert settings(pool, do_not_disrupt=True)["annotations"] == dict([do_not_disrupt_annotation(pool)])


def test_startup_taints_get_no_toleration_from_the_workload_helpers() -> None:
    startup = {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
    pool = spec("aws", "g6e.xlarge", {"provisioner": "karpenter", "max_gpus": 8, "startup_taints": [startup]})
    assert settings(pool)["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
