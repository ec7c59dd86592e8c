"""Pod-side helpers: exact pod fragments per sharing mode, every rejection, typed args, the sample Job."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import kubernetes_validate
import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_components import workloads
from gpu_components.adapter import DevicePluginHost, GpuNodePool
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.errors import GpuSpecError, Problem
from gpu_components.gcp.facts import SOURCE_GKE_TIME_SHARING
from gpu_components.gpu_requests import SOURCE_SCHEDULE_GPUS, parse_gpu_quantity
from gpu_components.labels import POOL_LABEL
from gpu_components.nvidia.device_plugin import advertised_resources
from gpu_components.samples import VECTOR_ADD_IMAGE, sample_jobs, vector_add_job
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolSpec, Taint
from gpu_components.workloads import (
    gpu_pod_settings,
    gpu_resource_problems,
    pod_settings,
    resource_requirements_args,
    toleration_args,
)
from tests.helpers import names, plan_of, resource

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def eks_pool(pool: dict[str, Any], **extra: Any) -> EksGpuNodeGroup:
    """Build an EksGpuNodeGroup under the plan's mocks and hand back the component."""
    built: list[EksGpuNodeGroup] = []
    args: dict[str, Any] = {"pool": pool, "cluster_name": "demo", "subnet_ids": ["subnet-a"], **extra}
    plan_of(lambda: built.append(EksGpuNodeGroup("gpu", args)))  # type: ignore[arg-type]
    return built[0]


def spec(cloud: str = "aws", **pool: Any) -> GpuNodePoolSpec:
    return GpuNodePoolSpec.from_args({"name": "p", "max_size": 2, **pool}, cloud)  # type: ignore[arg-type]


@dataclass
class FakePool:
    """A node-pool component's plain attributes (the GpuNodePool protocol), for clouds built elsewhere."""

    spec: GpuNodePoolSpec
    device_plugin_host: DevicePluginHost = "daemonset"
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    advertised_resources: dict[str, int] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    dra_devices: dict[str, int] = field(default_factory=dict)


def fake(pool_spec: GpuNodePoolSpec, **attributes: Any) -> FakePool:
    defaults: dict[str, Any] = {
        "taints": pool_spec.taints,
        "advertised_resources": advertised_resources(pool_spec),
        "node_selector": {POOL_LABEL: pool_spec.name},
    }
    return FakePool(pool_spec, **{**defaults, **attributes})


def problems_of(error: pytest.ExceptionInfo[GpuSpecError]) -> list[tuple[str, object, str]]:
    return [(p.path, p.value, p.message) for p in error.value.problems]


# ---------------------------------------------------------------------------------------------------------------
# Exact pod fragments per sharing mode (EKS pools built under mocks)
# ---------------------------------------------------------------------------------------------------------------


def test_exclusive_pool_gives_limits_toleration_and_pool_selector() -> None:
    pool = eks_pool({"name": "whole", "instance_type": "g5.12xlarge", "max_size": 2})
    assert gpu_pod_settings(pool, 4) == {
        "resources": {"limits": {"nvidia.com/gpu": "4"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"gpu-components/pool": "whole"},
    }


def test_requests_equal_limits_only_when_asked() -> None:
    pool = eks_pool({"name": "whole", "instance_type": "g5.xlarge", "max_size": 2})
    assert gpu_pod_settings(pool, 1, requests=True)["resources"] == {
        "limits": {"nvidia.com/gpu": "1"},
        "requests": {"nvidia.com/gpu": "1"},
    }


def test_time_sliced_pool_allows_several_replicas_per_container() -> None:
    pool = eks_pool({"name": "ts", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 4}})
    assert gpu_pod_settings(pool, 3)["resources"] == {"limits": {"nvidia.com/gpu": "3"}}


def test_renamed_time_sliced_pool_asks_for_the_shared_resource() -> None:
    pool = eks_pool(
        {
            "name": "renamed",
            "instance_type": "g5.2xlarge",
            "max_size": 2,
            "time_slicing": {"replicas": 2, "rename_by_default": True},
        }
    )
    assert gpu_pod_settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu.shared": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"gpu-components/pool": "renamed"},
    }


def test_mps_pool_gives_one_replica_and_no_host_ipc_outside_gke() -> None:
    pool = eks_pool({"name": "mps", "instance_type": "g6.xlarge", "max_size": 2, "mps": {"replicas": 8}})
    assert gpu_pod_settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"gpu-components/pool": "mps"},
    }


def test_bottlerocket_mig_single_pool_asks_for_gpu_and_accepts_its_profile() -> None:
    pool = eks_pool(
        {"name": "mig", "instance_type": "p4d.24xlarge", "max_size": 1, "mig": {"profile": "1g.5gb"}},
        ami_type="BOTTLEROCKET_x86_64_NVIDIA",
    )
    expected = {
        "resources": {"limits": {"nvidia.com/gpu": "2"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {"gpu-components/pool": "mig"},
    }
    assert gpu_pod_settings(pool, 2) == expected
    assert gpu_pod_settings(pool, 2, mig_profile="1g.5gb") == expected


def test_pool_without_gpu_taint_gets_only_its_own_tolerations() -> None:
    pool = eks_pool(
        {
            "name": "dedicated",
            "instance_type": "g5.xlarge",
            "max_size": 1,
            "gpu_taint": False,
            "taints": [{"key": "team", "value": "ml", "effect": "NoExecute"}, {"key": "gpu", "effect": "NoSchedule"}],
        }
    )
    assert gpu_pod_settings(pool, 1)["tolerations"] == [
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
        {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
    ]


# ---------------------------------------------------------------------------------------------------------------
# The pure variant: MIG mixed, cloud-added taints, GKE's device plugin
# ---------------------------------------------------------------------------------------------------------------


def mixed() -> GpuNodePoolSpec:
    return spec(
        instance_type="p4d.24xlarge",
        mig={"layout": {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}, "strategy": "mixed"},
    )


def test_mixed_mig_pool_asks_for_the_named_profile() -> None:
    pool_spec = mixed()
    settings = pod_settings(pool_spec, advertised_resources(pool_spec), pool_spec.taints, {}, 1, mig_profile="2g.10gb")
    assert settings["resources"] == {"limits": {"nvidia.com/mig-2g.10gb": "1"}}
    by_name = pod_settings(
        pool_spec, advertised_resources(pool_spec), (), {}, 2, resource="nvidia.com/mig-1g.5gb", requests=True
    )
    assert by_name == {
        "resources": {"limits": {"nvidia.com/mig-1g.5gb": "2"}, "requests": {"nvidia.com/mig-1g.5gb": "2"}},
        "tolerations": [],
        "nodeSelector": {},
    }


def test_all_balanced_pool_advertises_and_asks_for_nvidias_balanced_profiles() -> None:
    pool_spec = spec(instance_type="p6e-gb300.36xlarge", mig={"config": "all-balanced", "strategy": "mixed"})
    assert advertised_resources(pool_spec) == {
        "nvidia.com/mig-1g.35gb": 8,
        "nvidia.com/mig-2g.70gb": 4,
        "nvidia.com/mig-3g.139gb": 4,
    }
    settings = pod_settings(pool_spec, advertised_resources(pool_spec), (), {}, 1, mig_profile="2g.70gb")
    assert settings["resources"] == {"limits": {"nvidia.com/mig-2g.70gb": "1"}}


def test_mixed_mig_pool_with_renamed_time_slicing_asks_for_the_shared_profile() -> None:
    pool_spec = spec(
        instance_type="p4d.24xlarge",
        mig={"layout": {"3g.20gb": 1, "1g.5gb": 4}, "strategy": "mixed"},
        time_slicing={"replicas": 2, "rename_by_default": True},
    )
    settings = pod_settings(pool_spec, advertised_resources(pool_spec), (), {}, 1, mig_profile="3g.20gb")
    assert settings["resources"] == {"limits": {"nvidia.com/mig-3g.20gb.shared": "1"}}


def test_cloud_added_taints_are_tolerated_once_each() -> None:
    pool_spec = spec(cloud="azure", instance_type="Standard_NC4as_T4_v3", spot=True)
    spot = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")
    settings = pod_settings(
        pool_spec,
        advertised_resources(pool_spec),
        (*pool_spec.taints, spot, DEFAULT_GPU_TAINT),
        {"kubernetes.azure.com/accelerator": "nvidia", POOL_LABEL: "p"},
        1,
    )
    assert settings["tolerations"] == [
        GPU_TOLERATION,
        {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
    ]
    assert settings["nodeSelector"] == {"gpu-components/pool": "p", "kubernetes.azure.com/accelerator": "nvidia"}


def test_gke_mps_pool_gets_host_ipc_and_the_gke_selector() -> None:
    pool_spec = spec(cloud="gcp", instance_type="g2-standard-8", mps={"replicas": 4})
    selector = {
        POOL_LABEL: "p",
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/gke-gpu-sharing-strategy": "mps",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "4",
    }
    pool = fake(
        pool_spec, device_plugin_host="cloud", advertised_resources={"nvidia.com/gpu": 4}, node_selector=selector
    )
    assert gpu_pod_settings(pool, 1) == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": dict(sorted(selector.items())),
        "hostIPC": True,
    }


def test_gke_time_shared_pool_allows_one_gpu_per_container() -> None:
    pool_spec = spec(cloud="gcp", instance_type="g2-standard-8", time_slicing={"replicas": 4})
    pool = fake(pool_spec, device_plugin_host="cloud", advertised_resources={"nvidia.com/gpu": 4})
    assert "hostIPC" not in gpu_pod_settings(pool, 1)
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 2)
    assert error.value.problems[0].source == SOURCE_GKE_TIME_SHARING


# ---------------------------------------------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpus", "message"),
    [
        (True, "a boolean is not a GPU count"),
        (2.0, "a float is not a GPU count, even a whole one; write 2"),
        (0.5, "GPUs cannot be split into fractions"),
        ("1.5", "not a whole number of GPUs"),
        ("two", "not a whole number of GPUs"),
        ("1k", "not a whole number of GPUs"),
        (0, "zero GPUs: leave the GPU resource out instead"),
        ("0", "zero GPUs: leave the GPU resource out instead"),
        (-1, "a GPU count cannot be negative"),
        (None, "a GPU quantity is a whole number, not a NoneType"),
    ],
)
def test_invalid_gpu_counts_are_rejected_with_the_rule_and_its_source(gpus: object, message: str) -> None:
    pool = fake(spec(instance_type="g5.12xlarge"))
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, gpus)  # type: ignore[arg-type]
    (problem,) = error.value.problems
    assert (problem.path, problem.value) == ("gpus", gpus)
    assert problem.message.startswith(message)
    assert problem.source == SOURCE_SCHEDULE_GPUS
    assert problem.valid == 'a whole number of at least 1, e.g. 1 or "1"'


def test_whole_number_strings_are_counts() -> None:
    assert parse_gpu_quantity("2", "x") == (2, [])
    assert gpu_pod_settings(fake(spec(instance_type="g5.12xlarge")), "2")["resources"] == {  # type: ignore[arg-type]
        "limits": {"nvidia.com/gpu": "2"}
    }


def test_whole_floats_are_counts_only_for_engine_values() -> None:
    assert parse_gpu_quantity(2.0, "x", integral_floats=True) == (2, [])
    assert parse_gpu_quantity(2.5, "x", integral_floats=True)[0] is None


@pytest.mark.parametrize(
    ("sharing", "source"),
    [
        ({"mps": {"replicas": 4}}, workloads.SOURCE_SHARING),
        ({"time_slicing": {"replicas": 4, "fail_requests_greater_than_one": True}}, workloads.SOURCE_SHARING),
    ],
)
def test_more_than_one_shared_gpu_is_rejected_where_sharing_forbids_it(sharing: dict[str, Any], source: str) -> None:
    pool = fake(spec(instance_type="g5.12xlarge", **sharing))
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 2)
    (problem,) = error.value.problems
    assert (problem.path, problem.value, problem.valid, problem.source) == ("gpus", 2, "1..1", source)
    assert "a container may ask for at most 1 shared GPU" in problem.message


def test_more_gpus_than_a_node_has_are_rejected() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(fake(spec(instance_type="g5.xlarge")), 2)
    assert problems_of(error) == [
        ("gpus", 2, "each node of pool p has 1 nvidia.com/gpu; the pod would never schedule"),
    ]


def test_a_pool_with_several_resources_needs_a_choice_listing_the_valid_ones() -> None:
    pool = fake(mixed())
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 1)
    (problem,) = error.value.problems
    assert (problem.path, problem.value) == ("resource", None)
    assert "advertises several GPU resources" in problem.message
    assert problem.valid == (
        "nvidia.com/mig-1g.5gb, nvidia.com/mig-2g.10gb, nvidia.com/mig-3g.20gb, "
        "mig_profile 1g.5gb, mig_profile 2g.10gb, mig_profile 3g.20gb"
    )


def test_unknown_resource_and_profile_and_both_are_rejected() -> None:
    pool = fake(mixed())
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 1, resource="nvidia.com/gpu")
    assert problems_of(error) == [("resource", "nvidia.com/gpu", "pool p does not advertise this resource")]
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 1, mig_profile="7g.40gb")
    assert problems_of(error) == [("mig_profile", "7g.40gb", "pool p has no MIG devices of this profile")]
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 1, resource="nvidia.com/mig-1g.5gb", mig_profile="1g.5gb")
    assert problems_of(error) == [("resource", "nvidia.com/mig-1g.5gb", "give resource or mig_profile, not both")]


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(fake(mixed()), 1.5, mig_profile="9g.1gb")  # type: ignore[arg-type]
    assert [p.path for p in error.value.problems] == ["mig_profile", "gpus"]


# ---------------------------------------------------------------------------------------------------------------
# The container quantity rule (shared with the policy pack)
# ---------------------------------------------------------------------------------------------------------------


def test_a_request_without_a_limit_is_rejected() -> None:
    problems = gpu_resource_problems({"requests": {"nvidia.com/gpu": "1"}}, "nvidia.com/gpu", "c.resources")
    assert problems == [
        Problem(
            "c.resources.requests['nvidia.com/gpu']",
            "1",
            "a GPU request without a limit: GPUs are set in limits (a request, if given, must equal it)",
            "limits['nvidia.com/gpu'] with the same count",
            SOURCE_SCHEDULE_GPUS,
        )
    ]


def test_a_request_different_from_the_limit_is_rejected() -> None:
    resources = {"limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": 1}}
    (problem,) = gpu_resource_problems(resources, "nvidia.com/gpu", "c")
    assert (problem.path, problem.value, problem.message, problem.valid) == (
        "c.requests['nvidia.com/gpu']",
        1,
        "a GPU request must equal the GPU limit",
        "2",
    )


def test_invalid_limit_and_request_are_both_reported() -> None:
    resources = {"limits": {"nvidia.com/gpu": 0.5}, "requests": {"nvidia.com/gpu": False}}
    assert [p.path for p in gpu_resource_problems(resources, "nvidia.com/gpu", "c")] == [
        "c.limits['nvidia.com/gpu']",
        "c.requests['nvidia.com/gpu']",
    ]


def test_limit_above_the_sharing_maximum_is_rejected() -> None:
    (problem,) = gpu_resource_problems({"limits": {"nvidia.com/gpu": "2"}}, "nvidia.com/gpu", "c", max_per_container=1)
    assert (problem.path, problem.valid) == ("c.limits['nvidia.com/gpu']", "1..1")


def test_valid_and_absent_resources_have_no_problems() -> None:
    resources = {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}}
    assert gpu_resource_problems(resources, "nvidia.com/gpu", "c") == []
    assert gpu_resource_problems(None, "nvidia.com/gpu", "c") == []


# ---------------------------------------------------------------------------------------------------------------
# pulumi-kubernetes typed args
# ---------------------------------------------------------------------------------------------------------------


def test_typed_args_carry_the_same_values() -> None:
    settings = gpu_pod_settings(fake(spec(instance_type="g5.12xlarge")), 2, requests=True)
    requirements = resource_requirements_args(settings["resources"])
    assert isinstance(requirements, k8s.core.v1.ResourceRequirementsArgs)
    assert (requirements.limits, requirements.requests) == ({"nvidia.com/gpu": "2"}, {"nvidia.com/gpu": "2"})
    (toleration,) = toleration_args(settings["tolerations"])
    assert isinstance(toleration, k8s.core.v1.TolerationArgs)
    assert (toleration.key, toleration.operator, toleration.value, toleration.effect) == (
        "nvidia.com/gpu",
        "Equal",
        "present",
        "NoSchedule",
    )
    assert resource_requirements_args({"limits": {"nvidia.com/gpu": "1"}}).requests is None


def test_typed_args_drop_into_a_deployment() -> None:
    pool = fake(spec(instance_type="g5.xlarge"))
    settings = gpu_pod_settings(pool, 1)

    def program() -> None:
        k8s.apps.v1.Deployment(
            "inference",
            spec=k8s.apps.v1.DeploymentSpecArgs(
                selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app": "inference"}),
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels={"app": "inference"}),
                    spec=k8s.core.v1.PodSpecArgs(
                        containers=[
                            k8s.core.v1.ContainerArgs(
                                name="model",
                                image="registry.example/model:1",
                                resources=resource_requirements_args(settings["resources"]),
                            )
                        ],
                        tolerations=toleration_args(settings["tolerations"]),
                        node_selector=settings["nodeSelector"],
                    ),
                ),
            ),
        )

    pod = resource(plan_of(program), "kubernetes:apps/v1:Deployment", "inference").inputs["spec"]["template"]["spec"]
    assert pod["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert pod["tolerations"] == [GPU_TOLERATION]
    assert pod["nodeSelector"] == {"gpu-components/pool": "p"}


# ---------------------------------------------------------------------------------------------------------------
# Sample vector-add Job
# ---------------------------------------------------------------------------------------------------------------


def test_vector_add_job_is_exact() -> None:
    pool = eks_pool({"name": "ts", "instance_type": "g5.2xlarge", "max_size": 2, "time_slicing": {"replicas": 4}})
    labels = {"app.kubernetes.io/name": "cuda-vectoradd", "gpu-components/sample-for": "ts"}
    assert vector_add_job(pool) == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "ts-vectoradd",
            "namespace": "default",
            "labels": labels,
            "annotations": {"pulumi.com/skipAwait": "true"},
        },
        "spec": {
            "backoffLimit": 2,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "vectoradd",
                            "image": VECTOR_ADD_IMAGE,
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ],
                    "tolerations": [GPU_TOLERATION],
                    "nodeSelector": {"gpu-components/pool": "ts"},
                },
            },
        },
    }


def sample_pools() -> list[GpuNodePool]:
    gke_spec = spec(cloud="gcp", instance_type="g2-standard-8", mps={"replicas": 4})
    return [
        eks_pool({"name": "whole", "instance_type": "g5.12xlarge", "max_size": 2}),
        eks_pool(
            {"name": "mig", "instance_type": "p4d.24xlarge", "max_size": 1, "mig": {"profile": "1g.5gb"}},
            ami_type="BOTTLEROCKET_x86_64_NVIDIA",
        ),
        fake(mixed()),
        fake(gke_spec, device_plugin_host="cloud", advertised_resources={"nvidia.com/gpu": 4}),
    ]


@pytest.mark.parametrize("version", EKS_KUBERNETES_VERSIONS)
def test_vector_add_jobs_are_valid_kubernetes(version: str) -> None:
    for pool in sample_pools():
        kubernetes_validate.validate(vector_add_job(pool), version, strict=True)


def test_vector_add_job_on_a_mixed_pool_takes_the_first_resource_unless_told() -> None:
    pool = fake(mixed())
    container = vector_add_job(pool)["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == {"limits": {"nvidia.com/mig-1g.5gb": "1"}}
    chosen = vector_add_job(pool, mig_profile="3g.20gb", name="big", namespace="ml")
    assert chosen["metadata"]["name"] == "big"
    assert chosen["metadata"]["namespace"] == "ml"
    assert chosen["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"nvidia.com/mig-3g.20gb": "1"}
    }


@dataclass
class FakeCluster:
    pools: dict[str, GpuNodePool]


@pytest.mark.parametrize("preview", [True, False])
def test_sample_jobs_registers_one_job_per_pool_with_stable_names(preview: bool) -> None:
    whole = fake(spec(instance_type="g5.xlarge"))
    shared = fake(spec(instance_type="g5.xlarge", time_slicing={"replicas": 2}), node_selector={POOL_LABEL: "s"})
    cluster = FakeCluster({"whole": whole, "shared": shared})
    plan = plan_of(lambda: sample_jobs(cluster, pulumi.ResourceOptions()), preview)
    assert names(plan, "kubernetes:batch/v1:Job") == ["shared-vectoradd", "whole-vectoradd"]
    inputs = resource(plan, "kubernetes:batch/v1:Job", "shared-vectoradd").inputs
    expected = vector_add_job(shared, name="shared-vectoradd")
    assert {key: inputs[key] for key in ("apiVersion", "kind", "metadata", "spec")} == expected


def test_gpu_pod_settings_on_a_dra_pool_is_one_error_naming_the_claim_helpers() -> None:
    pool = fake(
        spec(instance_type="g6e.12xlarge"),
        device_plugin_host="dra-driver",
        advertised_resources={},
        dra_devices={"gpu.nvidia.com": 4},
    )
    with pytest.raises(GpuSpecError) as error:
        gpu_pod_settings(pool, 1)
    [(path, value, message)] = problems_of(error)
    assert (path, value) == ("pool", "p")
    assert message == (
        "pool p is a DRA pool (gpu_access: dra): NVIDIA's DRA driver publishes its GPUs as DRA devices, so a pod "
        "claims them with a resource claim; a plain nvidia.com/gpu limit gets its whole GPUs only where the DRA "
        "driver's gpu.nvidia.com DeviceClass serves nvidia.com/gpu (the DRA setting extended_resource in force, "
        "Kubernetes 1.36 or later), which gpu_pod_settings knows when given the driver"
    )
    assert error.value.problems[0].valid == (
        "gpu_components.claims: gpu_claim_template, mig_claim_template, shared_gpu_claim or mps_claim_template for "
        "the claim, then claim_pod_settings for the pod; or gpu_pod_settings(pool, gpus, dra_driver=<the "
        "NvidiaDraDriver serving the pool, e.g. GpuCluster.dra_driver>) with extended_resource in force"
    )
