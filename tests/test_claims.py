"""DRA claim helpers: exact ResourceClaimTemplate / ResourceClaim manifests, pod pieces, every rejection, and the
sample Job of a DRA pool."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components import dra
from gpu_components.adapter import DevicePluginHost, PoolView
from gpu_components.claims import (
    claim_pod_settings,
    gpu_claim_template,
    mig_claim_template,
    mps_claim_template,
    shared_gpu_claim,
)
from gpu_components.enums import DraFeatureGate
from gpu_components.errors import GpuSpecError
from gpu_components.labels import POOL_LABEL
from gpu_components.samples import VECTOR_ADD_IMAGE, vector_add_claim_template, vector_add_job
from gpu_components.spec import GpuNodePoolSpec

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
PRODUCT = "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches"
MEMORY = "device.capacity['gpu.nvidia.com'].memory.compareTo"


def view(pool: dict[str, Any], host: DevicePluginHost = "dra-driver") -> PoolView:
    """A pool's view as a DRA pool's would be (until GpuCluster builds DRA pools): no extended resources."""
    spec = GpuNodePoolSpec.from_args(pool, "aws")
    return PoolView(
        spec=spec,
        device_plugin_host=host,
        labels={POOL_LABEL: spec.name},
        taints=spec.taints,
        advertised_resources={} if host == "dra-driver" else {"nvidia.com/gpu": spec.gpu_count},
        node_selector={POOL_LABEL: spec.name},
        autoscaler_note=None,
        tolerations=[],
        driver_setting="AL2023_x86_64_NVIDIA",
    )


def l40s() -> PoolView:
    """Four L40S per node."""
    return view({"name": "l40s", "instance_type": "g6e.12xlarge", "max_size": 2})


def h100_mig() -> PoolView:
    """Eight H100 80GB per node, each in seven 1g.10gb MIG devices."""
    return view({"name": "h100", "instance_type": "p5.48xlarge", "max_size": 2, "mig": {"profile": "1g.10gb"}})


def karpenter() -> PoolView:
    """A Karpenter pool of L40S (1, 4 or 8 per node) and A100 40GB / 80GB (8 per node) nodes."""
    provisioning = {"provisioner": "karpenter", "max_gpus": 16, "instance_families": ["g6e", "p4d", "p4de"]}
    return view({"name": "mixed", "instance_type": "g6e.xlarge", "provisioning": provisioning})


def template(name: str, request: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": [request]}
    if config is not None:
        devices["config"] = [config]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": devices}},
    }


def cel(*expressions: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": expression}} for expression in expressions]


def problems_of(error: pytest.ExceptionInfo[GpuSpecError]) -> list[tuple[str, object, str, str | None]]:
    return [(p.path, p.value, p.message, p.valid) for p in error.value.problems]


# ---------------------------------------------------------------------------------------------------------------
# Exact manifests
# ---------------------------------------------------------------------------------------------------------------


def test_whole_gpus_template() -> None:
    assert gpu_claim_template(l40s(), "two-gpus", gpus=2) == template(
        "two-gpus", {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}
    )


def test_gpus_by_model_and_memory_use_cel_on_the_driver_attributes() -> None:
    manifest = gpu_claim_template(karpenter(), "l40s", gpu_model="L40S", min_gpu_memory_gb=40, namespace="ml")
    assert manifest["metadata"] == {"name": "l40s", "namespace": "ml"}
    assert manifest["spec"]["spec"]["devices"]["requests"] == [
        {
            "name": "gpu",
            "exactly": {
                "deviceClassName": "gpu.nvidia.com",
                "count": 1,
                "selectors": cel(
                    f"{PRODUCT}('(^|[^a-z0-9])l40s([^a-z0-9]|$)')",
                    f"{MEMORY}(quantity('40G')) >= 0",
                ),
            },
        }
    ]


def test_a_model_of_a_family_the_pool_has_twice_is_told_apart_by_memory() -> None:
    smaller = gpu_claim_template(karpenter(), "a100", gpus=8, gpu_model="A100-40GB")
    larger = gpu_claim_template(karpenter(), "a100", gpu_model="A100-80GB")
    family = f"{PRODUCT}('(^|[^a-z0-9])a100([^a-z0-9]|$)')"
    assert smaller["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(
        family, f"{MEMORY}(quantity('80G')) < 0"
    )
    assert larger["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(
        family, f"{MEMORY}(quantity('80G')) >= 0"
    )


def test_product_name_expression_matches_whole_words_of_the_family() -> None:
    assert dra.product_family("RTX-PRO-6000") == "rtx-pro-6000"
    assert dra.product_family("H100-94GB") == "h100"
    assert dra.product_name_expression("RTX-PRO-6000") == f"{PRODUCT}('(^|[^a-z0-9])rtx[ -]pro[ -]6000([^a-z0-9]|$)')"


def test_mig_profile_template() -> None:
    assert mig_claim_template(h100_mig(), "mig", "1g.10gb", devices=56) == template(
        "mig",
        {
            "name": "mig",
            "exactly": {
                "deviceClassName": "mig.nvidia.com",
                "count": 56,
                "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"),
            },
        },
    )


def test_shared_claim_without_interval_needs_no_gate() -> None:
    assert shared_gpu_claim(l40s(), "shared", namespace="team-a") == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared", "namespace": "team-a"},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 1}}]}
        },
    }


def test_shared_claim_with_a_time_slice_interval() -> None:
    manifest = shared_gpu_claim(
        l40s(), "shared", time_slice_interval="Long", feature_gates=[DraFeatureGate.TIME_SLICING_SETTINGS]
    )
    assert manifest["spec"]["devices"]["config"] == [
        {
            "requests": ["gpu"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "GpuConfig",
                    "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}},
                },
            },
        }
    ]


def test_shared_claim_of_one_mig_device() -> None:
    assert shared_gpu_claim(h100_mig(), "shared", mig_profile="1g.10gb")["spec"] == {
        "devices": {
            "requests": [
                {
                    "name": "mig",
                    "exactly": {
                        "deviceClassName": "mig.nvidia.com",
                        "count": 1,
                        "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"),
                    },
                }
            ]
        }
    }
    with pytest.raises(GpuSpecError) as error:
        shared_gpu_claim(h100_mig(), "shared", mig_profile="1g.10gb", time_slice_interval="Long")
    assert problems_of(error)[0][:2] == ("time_slice_interval", "Long")
    assert "MigDeviceConfig has no timeSlicingConfig" in problems_of(error)[0][2]


def test_mps_template_of_gpus() -> None:
    manifest = mps_claim_template(
        l40s(),
        "mps",
        feature_gates=["MPSSupport"],
        default_active_thread_percentage=50,
        default_pinned_device_memory_limit="10Gi",
    )
    assert manifest == template(
        "mps",
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 1}},
        {
            "requests": ["gpu"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "GpuConfig",
                    "sharing": {
                        "strategy": "MPS",
                        "mpsConfig": {"defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10Gi"},
                    },
                },
            },
        },
    )


def test_mps_template_of_mig_devices_uses_mig_device_config() -> None:
    manifest = mps_claim_template(h100_mig(), "mps", feature_gates=["MPSSupport"], mig_profile="1g.10gb")
    assert manifest == template(
        "mps",
        {
            "name": "mig",
            "exactly": {
                "deviceClassName": "mig.nvidia.com",
                "count": 1,
                "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"),
            },
        },
        {
            "requests": ["mig"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "MigDeviceConfig",
                    "sharing": {"strategy": "MPS"},
                },
            },
        },
    )


def test_pod_settings_reference_templates_and_shared_claims_without_a_gpu_limit() -> None:
    pool = l40s()
    settings = claim_pod_settings(pool, [gpu_claim_template(pool, "own"), shared_gpu_claim(pool, "shared")])
    assert settings == {
        "resourceClaims": [
            {"name": "own", "resourceClaimTemplateName": "own"},
            {"name": "shared", "resourceClaimName": "shared"},
        ],
        "claims": [{"name": "own"}, {"name": "shared"}],
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {POOL_LABEL: "l40s"},
    }


# ---------------------------------------------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------------------------------------------


def test_a_device_plugin_pool_is_refused_naming_gpu_access() -> None:
    pool = view({"name": "dp", "instance_type": "g6e.xlarge", "max_size": 2}, host="daemonset")
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(pool, "gpu")
    [(path, value, message, valid)] = problems_of(error)
    assert (path, value, valid) == ("pool", "dp", "a pool with gpu_access: dra")
    assert "device plugin host daemonset" in message and "gpu_access: dra" in message


def test_more_gpus_than_a_node_has() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(l40s(), "gpu", gpus=5)
    assert problems_of(error) == [
        ("gpus", 5, "each node of pool l40s has 4 such GPUs; the claim could never be allocated", "1..4")
    ]


def test_a_provisioned_pool_counts_its_largest_qualifying_node() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(karpenter(), "gpu", gpus=9, gpu_model="L40S")
    assert problems_of(error)[0][2:] == (
        "the largest node of pool mixed has 8 such GPUs; the claim could never be allocated",
        "1..8",
    )


@pytest.mark.parametrize("gpus", [0, -1, 1.0, "1.5", True])
def test_gpu_counts_are_whole_numbers_never_rounded(gpus: Any) -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(l40s(), "gpu", gpus=gpus)
    [(path, value, _, valid)] = problems_of(error)
    assert (path, value, valid) == ("gpus", gpus, 'a whole number of at least 1, e.g. 1 or "1"')


def test_a_model_or_memory_the_pool_does_not_have_lists_its_gpus() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(karpenter(), "gpu", gpu_model="H100-80GB")
    assert problems_of(error) == [
        ("gpu_model", "H100-80GB", "pool mixed has no such GPU", "A100-40GB (40 GB), A100-80GB (80 GB), L40S (48 GB)")
    ]
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(karpenter(), "gpu", gpu_model="L40S", min_gpu_memory_gb=80)
    assert problems_of(error)[0][:3] == ("min_gpu_memory_gb", 80, "pool mixed has no such GPU")


def test_whole_gpus_of_a_mig_pool_are_refused() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(h100_mig(), "gpu")
    [(path, value, message, valid)] = problems_of(error)
    assert (path, value, valid) == ("pool", "h100", "mig_profile 1g.10gb")
    assert "publishes them in DeviceClass mig.nvidia.com" in message


def test_a_profile_outside_the_layout_lists_the_layout() -> None:
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(h100_mig(), "mig", "3g.40gb")
    assert problems_of(error) == [
        ("mig_profile", "3g.40gb", "MIG profile 3g.40gb is not in pool h100's MIG layout (all-1g.10gb)", "1g.10gb")
    ]
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(h100_mig(), "mig", "1g.5gb")
    assert problems_of(error)[0][2] == "H100-80GB GPUs have no MIG profile 1g.5gb"
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(h100_mig(), "mig", "1g.10gb", devices=57)
    assert problems_of(error)[0][::3] == ("devices", "1..56")


def test_a_profile_on_a_pool_without_mig() -> None:
    pool = view({"name": "whole", "instance_type": "p5.48xlarge", "max_size": 2})
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(pool, "mig", "1g.10gb")
    assert problems_of(error) == [
        (
            "mig_profile",
            "1g.10gb",
            "pool whole's GPUs are not partitioned (no mig) and the DRA driver runs without its DynamicMIG feature "
            "gate, so it publishes no MIG devices; with DynamicMIG (dra.feature_gates, passed to the helper as "
            "feature_gates; Kubernetes 1.36 or later) it publishes every MIG profile of a whole GPU and makes the "
            "device when the claim is allocated",
            "with DynamicMIG: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb; without: none: the "
            "pool has no MIG layout (mig); claim whole GPUs",
        )
    ]
    assert error.value.problems[0].source == (
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/driver.go; "
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/mig.go"
    )


def whole_h100() -> PoolView:
    return view({"name": "whole", "instance_type": "p5.48xlarge", "max_size": 2})


def test_dynamic_mig_publishes_every_profile_of_a_whole_gpu() -> None:
    spec = whole_h100().spec
    assert dra.dra_devices(spec) == {"gpu.nvidia.com": 8}
    assert dra.dra_devices(spec, dynamic_mig=True) == {
        "gpu.nvidia.com": 8,
        "mig.nvidia.com/1g.10gb": 56,
        "mig.nvidia.com/1g.10gb+me": 8,
        "mig.nvidia.com/1g.20gb": 32,
        "mig.nvidia.com/2g.20gb": 24,
        "mig.nvidia.com/3g.40gb": 16,
        "mig.nvidia.com/4g.40gb": 8,
        "mig.nvidia.com/7g.80gb": 8,
    }
    assert dra.dra_devices(l40s().spec, dynamic_mig=True) == {"gpu.nvidia.com": 4}


def test_dynamic_mig_claims_a_profile_of_a_whole_gpu_pool() -> None:
    claim = mig_claim_template(whole_h100(), "mig", "3g.40gb", devices=16, feature_gates=["DynamicMIG"])
    assert claim == template(
        "mig",
        {
            "name": "mig",
            "exactly": {
                "deviceClassName": "mig.nvidia.com",
                "count": 16,
                "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"),
            },
        },
    )
    gates = [DraFeatureGate.DYNAMIC_MIG]
    assert claim_pod_settings(whole_h100(), [claim], feature_gates=gates)["resourceClaims"] == [
        {"name": "mig", "resourceClaimTemplateName": "mig"}
    ]
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(whole_h100(), [claim])
    assert problems_of(error)[0][:2] == (
        "claims[0].spec.spec.devices.requests[0].exactly.deviceClassName",
        "mig.nvidia.com",
    )


def test_dynamic_mig_bounds_the_count_per_node_and_per_gpu() -> None:
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(whole_h100(), "mig", "3g.40gb", devices=17, feature_gates=["DynamicMIG"])
    assert problems_of(error) == [
        (
            "devices",
            17,
            "each node of pool whole has 16 MIG devices of 3g.40gb; the claim could never be allocated",
            "1..16",
        )
    ]
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(whole_h100(), "mig", "3g.40gb", devices=3, same_gpu=True, feature_gates=["DynamicMIG"])
    assert problems_of(error)[0][::3] == ("devices", "2..2")
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(whole_h100(), "mig", "1g.5gb", feature_gates=["DynamicMIG"])
    assert problems_of(error)[0][2:] == (
        "H100-80GB GPUs have no MIG profile 1g.5gb",
        "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb",
    )


def test_alpha_configs_without_their_gate_name_the_gate() -> None:
    with pytest.raises(GpuSpecError) as error:
        shared_gpu_claim(l40s(), "shared", time_slice_interval="Short", feature_gates=["MPSSupport"])
    [problem] = error.value.problems
    assert (problem.path, problem.value, problem.valid, problem.source) == (
        "time_slice_interval",
        "Short",
        "dra.feature_gates including TimeSlicingSettings",
        dra.SOURCE_CONFIG_GATES,
    )
    assert "feature gate TimeSlicingSettings" in problem.message
    with pytest.raises(GpuSpecError) as error:
        mps_claim_template(l40s(), "mps", feature_gates=[])
    assert problems_of(error)[0][::3] == ("feature_gates", "dra.feature_gates including MPSSupport")


def test_bad_sharing_values() -> None:
    with pytest.raises(GpuSpecError) as error:
        shared_gpu_claim(l40s(), "shared", time_slice_interval="Longer", feature_gates=["TimeSlicingSettings"])  # type: ignore[arg-type]
    assert problems_of(error) == [
        (
            "time_slice_interval",
            "Longer",
            "not a time-slice interval of the DRA driver",
            "Default, Short, Medium, Long",
        )
    ]
    with pytest.raises(GpuSpecError) as error:
        mps_claim_template(
            l40s(),
            "mps",
            feature_gates=["MPSSupport", "Nope"],  # type: ignore[list-item]
            default_active_thread_percentage=101,
            default_pinned_device_memory_limit="10 GB",
        )
    assert [p[0] for p in problems_of(error)] == ["feature_gates[1]"]
    with pytest.raises(GpuSpecError) as error:
        mps_claim_template(
            l40s(),
            "mps",
            feature_gates=["MPSSupport"],
            default_active_thread_percentage=101,
            default_pinned_device_memory_limit="10 GB",
        )
    assert [(p[0], p[3]) for p in problems_of(error)] == [
        ("default_active_thread_percentage", "0..100"),
        ("default_pinned_device_memory_limit", 'a whole number with an optional suffix, e.g. "10Gi" or "512Mi"'),
    ]


def test_names_must_be_dns_labels() -> None:
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(l40s(), "My.Claim", namespace="")
    assert [p[:2] for p in problems_of(error)] == [("name", "My.Claim"), ("namespace", "")]


def test_pod_settings_refuse_mixed_namespaces_and_non_claims() -> None:
    pool = l40s()
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(pool, [gpu_claim_template(pool, "a"), shared_gpu_claim(pool, "b", namespace="other")])
    assert problems_of(error)[0][:3] == (
        "claims",
        ["default", "other"],
        "claims in different namespaces: a pod references resource claims of its own namespace",
    )
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(pool, [{"kind": "Pod"}, gpu_claim_template(pool, "a"), gpu_claim_template(pool, "a")])
    assert [p[0] for p in problems_of(error)] == ["claims[0]", "claims[2].metadata.name"]


def test_pod_settings_refuse_a_claim_made_for_another_pool() -> None:
    source_mig_class = (
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/"
        "templates/deviceclass-mig.yaml"
    )
    source_dra = "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(h100_mig(), [gpu_claim_template(l40s(), "two", gpus=2)])
    assert problems_of(error) == [
        (
            "claims[0].spec.spec.devices.requests[0].exactly.deviceClassName",
            "gpu.nvidia.com",
            "pool h100's nodes publish no devices in DeviceClass gpu.nvidia.com; the claim was made for another pool "
            "and could never be allocated",
            "mig.nvidia.com/1g.10gb: 56",
        )
    ]
    assert error.value.problems[0].source == source_mig_class
    # A MIG claim on a pool of whole GPUs, one of another MIG profile, one of more devices than a node has.
    other_profile = mig_claim_template(
        view({"name": "h100b", "instance_type": "p5.48xlarge", "max_size": 1, "mig": {"profile": "3g.40gb"}}),
        "big",
        "3g.40gb",
    )
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(l40s(), [mig_claim_template(h100_mig(), "m", "1g.10gb")])
    assert problems_of(error)[0][:2] == (
        "claims[0].spec.spec.devices.requests[0].exactly.deviceClassName",
        "mig.nvidia.com",
    )
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(h100_mig(), [other_profile])
    assert problems_of(error) == [
        (
            "claims[0].spec.spec.devices.requests[0].exactly.selectors",
            cel("device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"),
            "selects no MIG profile that pool h100's nodes publish; the claim was made for another pool and could "
            "never be allocated",
            "mig.nvidia.com/1g.10gb: 56",
        )
    ]
    four = view({"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 1})
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(four, [shared_gpu_claim(l40s(), "s"), gpu_claim_template(l40s(), "four", gpus=4)])
    assert problems_of(error) == [
        (
            "claims[1].spec.spec.devices.requests[0].exactly.count",
            4,
            "each node of pool l40s publishes 1 device of gpu.nvidia.com; the claim could never be allocated",
            "1..1",
        )
    ]
    assert error.value.problems[0].source == source_dra


# ---------------------------------------------------------------------------------------------------------------
# Sample Job of a DRA pool
# ---------------------------------------------------------------------------------------------------------------


def test_vector_add_job_of_a_dra_pool_claims_one_gpu() -> None:
    pool = l40s()
    assert vector_add_claim_template(pool) == template(
        "l40s-vectoradd", {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 1}}
    )
    job = vector_add_job(pool)
    assert job["spec"]["template"]["spec"] == {
        "restartPolicy": "Never",
        "containers": [
            {"name": "vectoradd", "image": VECTOR_ADD_IMAGE, "resources": {"claims": [{"name": "l40s-vectoradd"}]}}
        ],
        "resourceClaims": [{"name": "l40s-vectoradd", "resourceClaimTemplateName": "l40s-vectoradd"}],
        "tolerations": [GPU_TOLERATION],
        "nodeSelector": {POOL_LABEL: "l40s"},
    }


def test_vector_add_of_a_mig_dra_pool_claims_one_device_of_the_first_profile() -> None:
    claim = vector_add_claim_template(h100_mig())
    assert claim["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "mig.nvidia.com",
        "count": 1,
        "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"),
    }


def test_vector_add_job_of_a_dra_pool_takes_no_resource_choice() -> None:
    with pytest.raises(GpuSpecError) as error:
        vector_add_job(h100_mig(), mig_profile="1g.10gb")
    assert problems_of(error)[0][:2] == ("mig_profile", "1g.10gb")


def test_pod_settings_refuse_claims_that_together_need_more_devices_than_a_node_publishes() -> None:
    one_gpu = view({"name": "l40s", "instance_type": "g6e.2xlarge", "max_size": 2})
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(one_gpu, [gpu_claim_template(one_gpu, "a"), gpu_claim_template(one_gpu, "b")])
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in error.value.problems] == [
        (
            "claims",
            {"a": 1, "b": 1},
            "the pod's claims need 2 devices of gpu.nvidia.com together, but each node of pool l40s publishes 1; "
            "every claim of a pod is allocated on the node it runs on, so the pod could never be scheduled",
            "claims needing at most 1 device of gpu.nvidia.com together",
            dra.SOURCE_KUBERNETES_DRA,
        )
    ]
    # A shared claim counts as well; claims of other MIG profiles are counted apart, each against its own devices.
    four = l40s()
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(four, [gpu_claim_template(four, "a", gpus=4), shared_gpu_claim(four, "s")])
    assert problems_of(error)[0][:2] == ("claims", {"a": 4, "s": 1})
    mig = h100_mig()
    settings = claim_pod_settings(
        mig, [mig_claim_template(mig, "a", "1g.10gb", devices=50), mig_claim_template(mig, "b", "1g.10gb", devices=6)]
    )
    assert [entry["name"] for entry in settings["resourceClaims"]] == ["a", "b"]
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(
            mig,
            [mig_claim_template(mig, "a", "1g.10gb", devices=50), mig_claim_template(mig, "b", "1g.10gb", devices=7)],
        )
    assert problems_of(error) == [
        (
            "claims",
            {"a": 50, "b": 7},
            "the pod's claims need 57 devices of mig.nvidia.com/1g.10gb together, but each node of pool h100 "
            "publishes 56; every claim of a pod is allocated on the node it runs on, so the pod could never be "
            "scheduled",
            "claims needing at most 56 devices of mig.nvidia.com/1g.10gb together",
        )
    ]


def test_one_gpu_of_a_one_gpu_node_is_said_in_the_singular() -> None:
    one_gpu = view({"name": "l40s", "instance_type": "g6e.2xlarge", "max_size": 2})
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(one_gpu, "trainer", gpus=2)
    assert problems_of(error) == [
        ("gpus", 2, "each node of pool l40s has 1 such GPU; the claim could never be allocated", "1..1")
    ]


def test_an_mps_template_without_feature_gates_names_the_gate_like_a_shared_claim() -> None:
    with pytest.raises(GpuSpecError) as error:
        mps_claim_template(l40s(), "c11")
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in error.value.problems] == [
        (
            "feature_gates",
            [],
            "MPS in a resource claim needs the DRA driver's feature gate MPSSupport (alpha, off by default), which the "
            "cluster does not turn on; add MPSSupport to the cluster's dra.feature_gates",
            "dra.feature_gates including MPSSupport",
            dra.SOURCE_CONFIG_GATES,
        )
    ]
    with pytest.raises(GpuSpecError) as error:
        shared_gpu_claim(l40s(), "shared", time_slice_interval="Short")
    assert [(p.path, p.valid) for p in error.value.problems] == [
        ("time_slice_interval", "dra.feature_gates including TimeSlicingSettings")
    ]


# ---------------------------------------------------------------------------------------------------------------
# Claims no pool could satisfy (user-written)
# ---------------------------------------------------------------------------------------------------------------

SOURCE_SHARING = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/api/nvidia.com/resource/v1beta1/sharing.go"
)
PROFILE_SELECTOR = "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"


def gpu_config(sharing: dict[str, Any], requests: list[str] | None = None) -> dict[str, Any]:
    parameters = {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig", "sharing": sharing}
    config: dict[str, Any] = {"opaque": {"driver": "gpu.nvidia.com", "parameters": parameters}}
    return config if requests is None else {"requests": requests, **config}


def test_pod_settings_refuse_two_sharing_strategies_for_one_request() -> None:
    claim = template("both", {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}})
    claim["spec"]["spec"]["devices"]["config"] = [
        gpu_config({"strategy": "TimeSlicing"}, ["gpu"]),
        gpu_config({"strategy": "MPS"}),
    ]
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(l40s(), [claim])
    assert problems_of(error) == [
        (
            "claims[0].spec.spec.devices.config",
            {"MPS": "config[1]", "TimeSlicing": "config[0]"},
            "request gpu is given two sharing strategies; a device of NVIDIA's DRA driver has one sharing with one "
            "strategy",
            "one of TimeSlicing, MPS per request",
        )
    ]
    assert error.value.problems[0].source == SOURCE_SHARING
    # One config naming one strategy and holding the other's settings is two strategies too.
    claim["spec"]["spec"]["devices"]["config"] = [gpu_config({"strategy": "TimeSlicing", "mpsConfig": {}})]
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(l40s(), [claim])
    assert problems_of(error)[0][:2] == (
        "claims[0].spec.spec.devices.config",
        {"MPS": "config[0]", "TimeSlicing": "config[0]"},
    )


def test_pod_settings_refuse_time_slicing_replicas() -> None:
    claim = template(
        "replicas",
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}},
        gpu_config({"strategy": "TimeSlicing", "timeSlicingConfig": {"replicas": 4}}, ["gpu"]),
    )
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(l40s(), [claim])
    assert problems_of(error) == [
        (
            "claims[0].spec.spec.devices.config[0].opaque.parameters.sharing.timeSlicingConfig.replicas",
            4,
            "not a field of NVIDIA's DRA driver (replicas is the device plugin's time-slicing); a DRA claim shares a "
            "GPU among the pods that use the claim, and time-slicing sets only interval",
            "timeSlicingConfig.interval: Default, Short, Medium, Long",
        )
    ]
    assert error.value.problems[0].source == SOURCE_SHARING


def test_pod_settings_refuse_a_mig_profile_selector_on_whole_gpus() -> None:
    claim = template(
        "profile", {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": cel(PROFILE_SELECTOR)}}
    )
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(l40s(), [claim])
    assert problems_of(error) == [
        (
            "claims[0].spec.spec.devices.requests[0].exactly.selectors[0].cel.expression",
            PROFILE_SELECTOR,
            "selects on the MIG attribute profile, which no device of DeviceClass gpu.nvidia.com (a whole GPU) "
            "publishes, so the request could never be allocated",
            "DeviceClass mig.nvidia.com for a MIG profile, or a whole-GPU attribute",
        )
    ]
    assert error.value.problems[0].source == (
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/deviceinfo.go; "
        "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/cmd/gpu-kubelet-plugin/mig.go"
    )


def test_the_helpers_own_sharing_claims_pass_the_unsatisfiable_checks() -> None:
    pool = l40s()
    gates = ["TimeSlicingSettings", "MPSSupport"]
    claims = [
        shared_gpu_claim(pool, "ts", time_slice_interval="Long", feature_gates=gates),
        mps_claim_template(pool, "mps", feature_gates=gates),
    ]
    assert [entry["name"] for entry in claim_pod_settings(pool, claims[:1])["resourceClaims"]] == ["ts"]
    assert [entry["name"] for entry in claim_pod_settings(pool, claims[1:])["resourceClaims"]] == ["mps"]


def test_mig_devices_on_one_parent_gpu() -> None:
    claim = mig_claim_template(h100_mig(), "pair", "1g.10gb", devices=2, same_gpu=True)
    assert claim["spec"]["spec"]["devices"] == {
        "requests": [
            {
                "name": "mig",
                "exactly": {
                    "deviceClassName": "mig.nvidia.com",
                    "count": 2,
                    "selectors": cel("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"),
                },
            }
        ],
        "constraints": [{"requests": ["mig"], "matchAttribute": "gpu.nvidia.com/parentUUID"}],
    }
    assert claim_pod_settings(h100_mig(), [claim])["resourceClaims"] == [
        {"name": "pair", "resourceClaimTemplateName": "pair"}
    ]
    assert "constraints" not in mig_claim_template(h100_mig(), "any", "1g.10gb", devices=2)["spec"]["spec"]["devices"]


@pytest.mark.parametrize(
    ("devices", "same_gpu", "problem"),
    [
        (
            8,
            True,
            (
                "devices",
                8,
                "same_gpu puts the claim's devices on one GPU, which holds 7 MIG devices of 1g.10gb in pool h100's "
                "layout",
                "2..7",
            ),
        ),
        (
            1,
            True,
            (
                "devices",
                1,
                "same_gpu constrains several devices to one GPU; one device is always on one GPU",
                "2..7",
            ),
        ),
        (2, "yes", ("same_gpu", "yes", "must be a bool", "true, false")),
    ],
)
def test_same_gpu_needs_several_devices_that_fit_one_gpu(devices: int, same_gpu: Any, problem: tuple[Any, ...]) -> None:
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(h100_mig(), "pair", "1g.10gb", devices=devices, same_gpu=same_gpu)
    assert problems_of(error) == [problem]


# ---------------------------------------------------------------------------------------------------------------
# Custom CEL selectors
# ---------------------------------------------------------------------------------------------------------------

HOPPER = "device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"
GPU_ATTRIBUTE_NAMES = (
    "addressingMode, architecture, brand, cudaComputeCapability, cudaDriverVersion, driverVersion, productName, "
    "type, uuid"
)


def test_custom_selectors_follow_the_helpers_own() -> None:
    claim = gpu_claim_template(
        l40s(), "gpu", min_gpu_memory_gb=40, selectors=[HOPPER, "device.driver == 'gpu.nvidia.com'"]
    )
    assert claim["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40G')) >= 0",
        HOPPER,
        "device.driver == 'gpu.nvidia.com'",
    )
    parent = "device.attributes['gpu.nvidia.com'].parentUUID != ''"
    mig = mig_claim_template(h100_mig(), "mig", "1g.10gb", selectors=[parent])
    assert mig["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(
        "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'", parent
    )
    shared = shared_gpu_claim(l40s(), "shared", selectors=[HOPPER])
    assert shared["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(HOPPER)
    mps = mps_claim_template(l40s(), "mps", feature_gates=["MPSSupport"], selectors=[HOPPER])
    assert mps["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"] == cel(HOPPER)
    assert claim_pod_settings(l40s(), [claim])["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "gpu"}
    ]


def test_bad_custom_selectors_are_refused_each_at_its_index() -> None:
    syntax = "device.attributes['gpu.nvidia.com'].productName =="
    with pytest.raises(GpuSpecError) as error:
        gpu_claim_template(
            l40s(),
            "gpu",
            selectors=[
                HOPPER,
                syntax,
                "device.attributes['gpu.nvidia.com'].prodName == 'NVIDIA L40S'",
                "device.attributes['nvidia.com'].uuid == 'GPU-1'",
                "'Hopper'",
                "device.drivr == 'gpu.nvidia.com'",
            ],
        )
    assert problems_of(error) == [
        (
            "selectors[1]",
            syntax,
            "not valid CEL: Unexpected token Token('$END', '') at line 1, column 49.",
            "a CEL expression over device.driver, device.attributes and device.capacity",
        ),
        (
            "selectors[2]",
            "device.attributes['gpu.nvidia.com'].prodName == 'NVIDIA L40S'",
            "device.attributes['gpu.nvidia.com'].prodName: NVIDIA's DRA driver publishes no attribute 'prodName' for "
            "DeviceClass gpu.nvidia.com (did you mean 'productName'?), so the selector never matches",
            GPU_ATTRIBUTE_NAMES,
        ),
        (
            "selectors[3]",
            "device.attributes['nvidia.com'].uuid == 'GPU-1'",
            "device.attributes['nvidia.com']: NVIDIA's DRA driver publishes no attribute of domain 'nvidia.com' for "
            "DeviceClass gpu.nvidia.com (did you mean 'gpu.nvidia.com'?), so the selector never matches",
            "gpu.nvidia.com, resource.kubernetes.io",
        ),
        (
            "selectors[4]",
            "'Hopper'",
            "evaluates to a string, not a bool; a selector must evaluate to true or false for each device",
            "an expression that evaluates to true or false",
        ),
        (
            "selectors[5]",
            "device.drivr == 'gpu.nvidia.com'",
            "device.drivr: a selector's device has no field 'drivr' (did you mean 'driver'?)",
            "allowMultipleAllocations, attributes, capacity, driver",
        ),
    ]
    assert error.value.problems[0].source == (
        "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-v1/; "
        "https://pypi.org/project/cel-python/"
    )
    driver = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1"
    assert error.value.problems[1].source == (
        f"{driver}/cmd/gpu-kubelet-plugin/deviceinfo.go; {driver}/cmd/gpu-kubelet-plugin/mig.go; "
        f"{driver}/cmd/gpu-kubelet-plugin/partitions.go; "
        f"{driver}/vendor/k8s.io/dynamic-resource-allocation/deviceattribute/attribute.go"
    )


def test_a_selector_is_checked_against_its_device_class() -> None:
    profile = "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"
    with pytest.raises(GpuSpecError) as error:
        shared_gpu_claim(l40s(), "shared", selectors=[profile, "device.capacity['gpu.nvidia.com'].memorySlice0 == 1"])
    assert [(p.path, p.valid) for p in error.value.problems] == [
        ("selectors[0]", GPU_ATTRIBUTE_NAMES),
        ("selectors[1]", "memory"),
    ]
    memory_slice = "device.capacity['gpu.nvidia.com'].memorySlice0 == 1"
    assert mig_claim_template(h100_mig(), "mig", "1g.10gb", selectors=[profile, memory_slice])
    with pytest.raises(GpuSpecError) as error:
        mig_claim_template(h100_mig(), "mig", "1g.10gb", selectors="device.driver == 'gpu.nvidia.com'")  # type: ignore[arg-type]
    assert problems_of(error)[0][:3] == (
        "selectors",
        "device.driver == 'gpu.nvidia.com'",
        "must be a list of CEL expressions (strings)",
    )


def test_one_problem_per_selector_with_several_findings() -> None:
    expression = "device.attributes['gpu.nvidia.com'].prodName + device.capacity['gpu.nvidia.com'].memroy"
    [problem] = dra.selector_problems(expression, "gpu.nvidia.com", "selectors[0]")
    assert problem.message == (
        "device.attributes['gpu.nvidia.com'].prodName: NVIDIA's DRA driver publishes no attribute 'prodName' for "
        "DeviceClass gpu.nvidia.com (did you mean 'productName'?), so the selector never matches; "
        "device.capacity['gpu.nvidia.com'].memroy: NVIDIA's DRA driver publishes no capacity 'memroy' for "
        "DeviceClass gpu.nvidia.com (did you mean 'memory'?), so the selector never matches; evaluates to arithmetic, "
        "not a bool; a selector must evaluate to true or false for each device"
    )
    assert problem.valid == f"{GPU_ATTRIBUTE_NAMES}; memory; an expression that evaluates to true or false"


@pytest.mark.parametrize(
    "expression",
    [
        "device.attributes['gpu.nvidia.com']['productName'] == 'NVIDIA H100 80GB HBM3'",
        "device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'",
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40G')) >= 0 && true",
        "!(device.attributes['gpu.nvidia.com'].brand == 'Nvidia')",
        "device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('8.0.0'))",
        "device.allowMultipleAllocations",
    ],
)
def test_valid_gpu_selectors_pass(expression: str) -> None:
    assert dra.selector_problems(expression, "gpu.nvidia.com", "selectors[0]") == []


def test_dynamic_mig_claims_of_one_pod_share_the_nodes_gpus() -> None:
    """Under DynamicMIG a node's whole GPUs and its MIG devices come from the same 8 H100s: 7 whole GPUs and two
    3g.40gb devices (half a GPU each at least) fit; 8 whole GPUs and one 1g.10gb device (a seventh) cannot."""
    gates = [DraFeatureGate.DYNAMIC_MIG]
    seven = gpu_claim_template(whole_h100(), "whole", gpus=7)
    halves = mig_claim_template(whole_h100(), "halves", "3g.40gb", devices=2, feature_gates=gates)
    assert len(claim_pod_settings(whole_h100(), [seven, halves], feature_gates=gates)["resourceClaims"]) == 2
    eight = gpu_claim_template(whole_h100(), "whole", gpus=8)
    slice_ = mig_claim_template(whole_h100(), "slice", "1g.10gb", feature_gates=gates)
    with pytest.raises(GpuSpecError) as error:
        claim_pod_settings(whole_h100(), [eight, slice_], feature_gates=gates)
    assert problems_of(error) == [
        (
            "claims",
            {"whole": 8, "slice": 1},
            "the pod's claims need whole GPUs and MIG devices worth at least 8.14 GPUs together, but each node of "
            "pool whole has 8; under DynamicMIG they are made from the same GPUs (each H100-80GB MIG device takes at "
            "least 1/<its profile's most instances per GPU> of one)",
            "claims needing at most 8 GPUs together",
        )
    ]
