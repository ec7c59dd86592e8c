"""The DRA setting ``extended_resource`` (Kubernetes' DRAExtendedResource, KEP-5004, and the DRA driver chart
0.4.1's ``gpu.nvidia.com`` DeviceClass, which always names ``extendedResourceName: nvidia.com/gpu``): its rules at
every entry point, the warning when left out from 1.36, and what it changes in the capacity record and report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from click.testing import CliRunner

from gpu_components import GpuCluster, GpuSpecError
from gpu_components.aws import EksGpuNodeGroup
from gpu_components.capacity import pool_capacity, served_extended_resource
from gpu_components.cli import main
from gpu_components.cluster import validate_cluster
from gpu_components.kubernetes import NvidiaDraDriver
from gpu_components.plan.capacity import capacity_report
from gpu_components.plan.policy import run_policy_pack
from gpu_components.policy.rules import dra_pool_extended_resource_violations
from gpu_components.policy.workload_pools import (
    workload_pool_fit_violations,
    workload_pool_selection_violations,
    workload_pool_toleration_violations,
)
from gpu_components.workloads import gpu_pod_settings
from tests.helpers import plan_and, plan_of
from tests.policy.test_dra_rules import analyze_stack
from tests.test_config_rejections import copy_example_project

STACKS = Path(__file__).resolve().parents[1] / "stacks"
WIRING = {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"}
L40S: dict[str, Any] = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 2}
H100: dict[str, Any] = {"name": "h100", "instance_type": "p5.48xlarge", "max_size": 1, "mig": {"profile": "1g.10gb"}}
GATE = "https://www.kubernetes.dev/resources/keps/5004/"
TEMPLATE = (
    "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/"
    "templates/deviceclass-gpu.yaml"
)
TRUE_BELOW_1_36 = (
    "DRA pools serve plain nvidia.com/gpu requests through the DeviceClass's extendedResourceName only with "
    "Kubernetes' DRAExtendedResource feature gate; in Kubernetes 1.35 that gate is alpha and off by default (alpha "
    "1.34 and 1.35, beta and on by default from 1.36), so the API server drops extendedResourceName, and managed "
    "control planes (EKS, AKS, GKE) do not let users turn alpha gates on (the DRA driver's feature_gates are the "
    "driver's own, not Kubernetes')"
)
FALSE_FROM_1_36 = (
    "the DRA driver chart 0.4.1 always renders its gpu.nvidia.com DeviceClass with extendedResourceName: "
    "nvidia.com/gpu (templates/deviceclass-gpu.yaml; no chart value leaves it out), and from Kubernetes 1.36 the "
    "DRAExtendedResource feature gate is on by default, so the DRA pools serve plain nvidia.com/gpu requests "
    "whatever this setting says"
)
WARNING = (
    "on Kubernetes 1.36 the DRA pools of whole GPUs (l40s) also serve plain nvidia.com/gpu requests (container "
    "limits) through the DRA "
    "driver's gpu.nvidia.com DeviceClass, whose extendedResourceName the driver chart 0.4.1 always sets (Kubernetes' "
    "DRAExtendedResource feature gate is on by default from 1.36): a pod asking for nvidia.com/gpu that tolerates a "
    "DRA pool's taints may be given one of its GPUs; set the DRA setting extended_resource: true to acknowledge it"
)


def refused(dra: dict[str, Any]) -> list[tuple[str, object, str, str | None, str | None]]:
    with pytest.raises(GpuSpecError) as caught:
        validate_cluster("aws", [L40S], "dra", dra=dra)
    return [(p.path, p.value, p.message, p.valid, p.source) for p in caught.value.problems]


def test_true_below_1_36_is_refused_naming_the_kubernetes_gate() -> None:
    assert refused({"kubernetes_version": "1.35", "extended_resource": True}) == [
        (
            "dra.extended_resource",
            True,
            TRUE_BELOW_1_36,
            "kubernetes_version >= 1.36, or extended_resource false or unset",
            f"{GATE}; {TEMPLATE}",
        )
    ]


def test_false_from_1_36_is_refused_naming_the_chart_and_its_template() -> None:
    assert refused({"kubernetes_version": "1.37", "extended_resource": False}) == [
        (
            "dra.extended_resource",
            False,
            FALSE_FROM_1_36,
            "extended_resource true (or unset) on Kubernetes >= 1.36, or a kubernetes_version below 1.36",
            f"{TEMPLATE}; {GATE}",
        )
    ]


def test_the_valid_combinations_are_accepted() -> None:
    for dra in (
        {"kubernetes_version": "1.34"},
        {"kubernetes_version": "1.35", "extended_resource": False},
        {"kubernetes_version": "1.36"},
        {"kubernetes_version": "1.36", "extended_resource": True},
    ):
        validate_cluster("aws", [L40S], "dra", dra=dra)


def test_not_a_bool_is_a_shape_problem_and_the_gpu_cluster_installer_refuses_it() -> None:
    assert refused({"kubernetes_version": "1.36", "extended_resource": "yes"}) == [
        ("dra.extended_resource", "yes", "input should be a valid boolean", "true, false", None)
    ]
    dra = {"kubernetes_version": "1.35", "extended_resource": True, "installer": "gpu-operator"}
    assert refused(dra) == [
        (
            "dra.extended_resource",
            True,
            "a setting of the DRA driver's own chart, whose gpu.nvidia.com DeviceClass the library knows; under "
            "installer gpu-operator the GPU Operator's GPUCluster deploys the driver and its DeviceClasses, which the "
            "library does not model: it would be ignored",
            "no extended_resource, or installer chart",
            None,
        )
    ]


def driver(**args: Any) -> NvidiaDraDriver:
    return NvidiaDraDriver("dra", {"cloud": "aws", "pools": [L40S, H100], **args})  # type: ignore[typeddict-item]


def test_the_standalone_driver_refuses_the_same_at_its_own_path() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: driver(kubernetes_version="1.35", extended_resource=True))
    assert [(p.path, p.value, p.message) for p in caught.value.problems] == [
        ("extended_resource", True, TRUE_BELOW_1_36)
    ]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: driver(kubernetes_version="1.36", extended_resource=False))
    assert [(p.path, p.value, p.message) for p in caught.value.problems] == [
        ("extended_resource", False, FALSE_FROM_1_36)
    ]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if "extendedResourceName" in record.getMessage()]


@pytest.mark.parametrize(
    ("settings", "in_force", "warned"),
    [
        ({"kubernetes_version": "1.34"}, None, []),
        ({"kubernetes_version": "1.35", "extended_resource": False}, None, []),
        ({"kubernetes_version": "1.36"}, "nvidia.com/gpu", [f"gpu-components:index:NvidiaDraDriver (dra): {WARNING}"]),
        ({"kubernetes_version": "1.36", "extended_resource": True}, "nvidia.com/gpu", []),
    ],
)
def test_the_standalone_driver_says_whether_it_is_in_force_and_warns_when_left_out_from_1_36(
    caplog: pytest.LogCaptureFixture, settings: dict[str, Any], in_force: str | None, warned: list[str]
) -> None:
    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        _, built = plan_and(lambda: driver(**settings))
    assert built.extended_resource == in_force
    assert warnings(caplog) == warned
    # Nothing the chart renders changes: the DeviceClass's extendedResourceName is the chart's, always.
    assert "extendedResource" not in json.dumps(built.values)


def test_gpu_cluster_passes_the_setting_to_its_driver_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    def build(dra: dict[str, Any]) -> GpuCluster:
        args = {"cloud": "aws", "aws": WIRING, "pools": [L40S, H100], "gpu_stack": "dra", "dra": dra}
        return GpuCluster("gpus", args)  # type: ignore[arg-type]

    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        _, cluster = plan_and(lambda: build({"kubernetes_version": "1.36"}))
    assert warnings(caplog) == [f"gpu-components:index:NvidiaDraDriver (gpus-dra-driver): {WARNING}"]
    assert cluster.dra_driver is not None and cluster.dra_driver.extended_resource == "nvidia.com/gpu"
    l40s, h100 = cluster.pools["l40s"], cluster.pools["h100"]
    assert served_extended_resource(l40s, [cluster.dra_driver]) == "nvidia.com/gpu"
    # A static-MIG pool publishes no whole GPU in gpu.nvidia.com: nothing to allocate for nvidia.com/gpu.
    assert pool_capacity(h100, served_extended_resource(h100, [cluster.dra_driver]))["advertises"] == []
    assert pool_capacity(l40s, served_extended_resource(l40s, [cluster.dra_driver]))["advertises"] == [
        {
            "name": "nvidia.com/gpu",
            "perNode": 1,
            "device": "GPU",
            "memoryGb": 48.0,
            "sharedBy": 1,
            "memoryLimitGb": 48.0,
            "through": "gpu.nvidia.com",
        }
    ]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: build({"kubernetes_version": "1.35", "extended_resource": True}))
    assert [(p.path, p.message) for p in caught.value.problems] == [("dra.extended_resource", TRUE_BELOW_1_36)]
    _, below = plan_and(lambda: build({"kubernetes_version": "1.35"}))
    assert below.dra_driver is not None and below.dra_driver.extended_resource is None
    assert (
        pool_capacity(below.pools["l40s"], served_extended_resource(below.pools["l40s"], [below.dra_driver]))[
            "advertises"
        ]
        == []
    )


def plan_dra_stack(tmp_path: Path, version: str, extended_resource: bool | str | None, *options: str) -> Any:
    """Plan the DRA example stack on Kubernetes ``version`` with ``dra.extended_resource`` (left out for ``None``;
    a string as YAML text, e.g. ``"null"``)."""
    copy_example_project(tmp_path)
    (tmp_path / "stacks").mkdir(exist_ok=True)
    text = (STACKS / "Pulumi.aws-eks-dra.yaml").read_text()
    text = text.replace('kubernetes_version: "1.34"', f'kubernetes_version: "{version}"')
    if extended_resource is not None:
        text = text.replace(
            "    installer: chart\n", f"    installer: chart\n    extended_resource: {extended_resource}\n"
        )
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(text)
    return CliRunner().invoke(main, ["plan", "t", "--cwd", str(tmp_path), *options])


def test_the_stack_config_refuses_false_from_1_36(tmp_path: Path) -> None:
    result = plan_dra_stack(tmp_path, "1.36", False)
    assert result.exit_code == 1
    assert f"dra.extended_resource: {FALSE_FROM_1_36} (got False)" in result.output


NULL = "must not be null; leave the field out for its default (got None); valid: true, false"


def test_a_null_is_told_to_be_left_out_in_the_same_words_at_every_entry_point(tmp_path: Path) -> None:
    """Trial: the stack config and GpuCluster said "input should be a valid boolean" of a null, NvidiaDraDriver
    "must not be null"; one message now, with the valid values."""
    result = plan_dra_stack(tmp_path, "1.36", "null")
    assert result.exit_code == 1
    assert result.output.splitlines()[1:] == [f"  - dra.extended_resource: {NULL}"]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: cluster({"kubernetes_version": "1.36", "extended_resource": None}))
    assert [str(p) for p in caught.value.problems] == [f"dra.extended_resource: {NULL}"]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: driver(kubernetes_version="1.36", extended_resource=None))
    assert [str(p) for p in caught.value.problems] == [f"extended_resource: {NULL}"]


def test_the_stack_config_refuses_true_below_1_36(tmp_path: Path) -> None:
    result = plan_dra_stack(tmp_path, "1.35", True)
    assert result.exit_code == 1
    assert f"dra.extended_resource: {TRUE_BELOW_1_36} (got True)" in result.output


def test_the_stack_plan_reports_nvidia_gpu_on_the_whole_gpu_dra_pool_from_1_36(tmp_path: Path) -> None:
    result = plan_dra_stack(tmp_path, "1.36", True, "--format", "capacity")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| l40s ")]
    assert rows == [
        "| l40s | aws | g6e.2xlarge | L40S (48 GB) | 1 | 0..4 | 1 x `gpu.nvidia.com` (DRA device)<br>1 x "
        "`nvidia.com/gpu` (through DRA DeviceClass gpu.nvidia.com) | 48 GB (GPU)<br>48 GB (GPU) | exclusive |",
        "| l40s | dra-driver | 1 x `gpu.nvidia.com`; also 1 x `nvidia.com/gpu` through `gpu.nvidia.com` | 4 x "
        "`gpu.nvidia.com` |",
    ]
    assert (
        "DRA pools (workloads ask for these devices with resource claims; where a pool lists an extended resource, a "
        "plain container limit of it is allocated whole GPUs through the DeviceClass named, Kubernetes' "
        "DRAExtendedResource):" in result.output
    )
    below = plan_dra_stack(tmp_path, "1.35", None, "--format", "capacity")
    assert below.exit_code == 0, below.output
    assert "nvidia.com/gpu" not in below.output
    assert "DRA pools (no extended resource: workloads ask for these devices with resource claims):" in below.output


@pytest.mark.parametrize(("version", "l40s"), [("1.36", {"nvidia.com/gpu": 1}), ("1.35", {})])
def test_the_stack_output_gpu_pools_advertises_what_pool_scheduling_and_capacity_say(
    tmp_path: Path, version: str, l40s: dict[str, int]
) -> None:
    """Trial: gpuPools.<pool>.advertises was the device plugin's ({}) on a DRA pool whose capacity record and
    GpuCluster.pool_scheduling list nvidia.com/gpu through the DeviceClass."""
    result = plan_dra_stack(tmp_path, version, None, "--format", "json")
    assert result.exit_code == 0, result.output
    pools = json.loads(result.stdout)["outputs"]["gpuPools"]
    assert {name: pool["advertises"] for name, pool in pools.items()} == {"h100-mig": {}, "l40s": l40s}


def test_the_report_of_a_record_without_through_is_unchanged() -> None:
    record = {
        "cloud": "aws",
        "instanceType": "g6e.xlarge",
        "gpuModel": "L40S",
        "gpuMemoryGb": 48,
        "gpusPerNode": 1,
        "minNodes": 0,
        "maxNodes": 2,
        "spot": False,
        "devicePlugin": "dra-driver",
        "sharing": "none",
        "mig": {},
        "isolation": "exclusive",
        "advertises": [],
        "draDevices": {"gpu.nvidia.com": 1},
    }
    report = capacity_report("s", {}, records={"l40s": record})  # type: ignore[dict-item]
    assert "| 1 x `gpu.nvidia.com` (DRA device) | 48 GB (GPU) | exclusive |" in report


def test_the_stack_plan_warns_when_left_out_from_1_36(tmp_path: Path) -> None:
    result = plan_dra_stack(tmp_path, "1.36", None)
    assert result.exit_code == 0, result.output
    assert [line for line in result.output.splitlines() if "extendedResourceName" in line] == [
        f"warning: t: gpu-components:index:NvidiaDraDriver (gpu-demo-gpu-dra-driver): {WARNING}"
    ]


def cluster(dra: dict[str, Any]) -> GpuCluster:
    args = {"cloud": "aws", "aws": WIRING, "pools": [L40S, H100], "gpu_stack": "dra", "dra": dra}
    return GpuCluster("gpus", args)  # type: ignore[arg-type]


def cluster_of_its_own(name: str, version: str, **changes: Any) -> tuple[GpuCluster, k8s.Provider]:
    """A GpuCluster ``name`` of the L40S pool, DRA on Kubernetes ``version``, on a Kubernetes provider of its own
    (a second cluster of one program), and that provider; ``changes`` replace its args (``dra``, ``pools``, ``aws``)."""
    provider = k8s.Provider(f"{name}-k8s", kubeconfig="{}")
    args = {
        "cloud": "aws",
        "aws": WIRING,
        "pools": [L40S],
        "gpu_stack": "dra",
        "dra": {"kubernetes_version": version},
        **changes,
    }
    return GpuCluster(name, args, pulumi.ResourceOptions(providers=[provider])), provider  # type: ignore[arg-type]


def plain_gpu_job(name: str, selector: dict[str, Any], provider: k8s.Provider | None = None) -> None:
    """A Job asking one plain nvidia.com/gpu and tolerating the GPU taint, with ``selector`` (its pod's nodeSelector
    and affinity), on ``provider`` (default: the program's)."""
    container = {"name": "c", "image": "cuda", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    toleration = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    pod = {"containers": [container], "tolerations": [toleration], **selector, "restartPolicy": "Never"}
    k8s.batch.v1.Job(name, spec={"template": {"spec": pod}}, opts=pulumi.ResourceOptions(provider=provider))


def test_gpu_pod_settings_asks_a_dra_pool_for_whole_gpus_given_its_driver_in_force() -> None:
    _, built = plan_and(lambda: cluster({"kubernetes_version": "1.36", "extended_resource": True}))
    settings = gpu_pod_settings(built.pools["l40s"], 1, dra_driver=built.dra_driver)
    assert settings == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        "nodeSelector": {"gpu-components/pool": "l40s"},
    }
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(built.pools["l40s"], 2, dra_driver=built.dra_driver)
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
        ("gpus", 2, "each node of pool l40s has 1 nvidia.com/gpu; the pod would never schedule", "1..1")
    ]
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(built.pools["l40s"], 1, resource="nvidia.com/mig-1g.10gb", dra_driver=built.dra_driver)
    assert [p.path for p in caught.value.problems] == ["resource"]


CLAIMS = (
    "gpu_components.claims: gpu_claim_template, mig_claim_template, shared_gpu_claim or mps_claim_template for the "
    "claim, then claim_pod_settings for the pod"
)


def test_gpu_pod_settings_without_the_driver_names_the_claim_helpers_and_the_driver() -> None:
    _, built = plan_and(lambda: cluster({"kubernetes_version": "1.36", "extended_resource": True}))
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(built.pools["l40s"], 1)
    [problem] = caught.value.problems
    assert (problem.path, problem.value) == ("pool", "l40s")
    assert problem.message.endswith("which gpu_pod_settings knows when given the driver")


def test_gpu_pod_settings_names_dra_driver_when_the_driver_is_off_and_mig_when_the_pool_is_static_mig() -> None:
    """Trial: a driver that serves nvidia.com/gpu to no pool (1.35), and a static-MIG pool, were both reported at
    ``pool`` with the no-driver message; each now says its own reason, at the field at fault."""
    _, below = plan_and(lambda: cluster({"kubernetes_version": "1.35"}))
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(below.pools["l40s"], 1, dra_driver=below.dra_driver)
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in caught.value.problems] == [
        (
            "dra_driver",
            "the NvidiaDraDriver of pools l40s, h100",
            "its gpu.nvidia.com DeviceClass serves no plain nvidia.com/gpu requests: its extended_resource is not in "
            "force (false, or unset below Kubernetes 1.36, where Kubernetes' DRAExtendedResource feature gate is off "
            "by default)",
            f"{CLAIMS}; or the DRA setting extended_resource in force (Kubernetes 1.36 or later)",
            GATE,
        )
    ]
    _, on = plan_and(lambda: cluster({"kubernetes_version": "1.36"}))
    # Trial 3: without the driver, or with a wrong one, the MIG pool's message pointed at a driver fix that then
    # failed with the MIG one: MIG is said first, whatever the driver.
    for given in (on.dra_driver, None, "junk"):
        with pytest.raises(GpuSpecError) as caught:
            gpu_pod_settings(on.pools["h100"], 1, dra_driver=given)
        assert [(p.path, p.value) for p in caught.value.problems] == [("pool", "h100")]
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(on.pools["h100"], 1, dra_driver=on.dra_driver)
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
        (
            "pool",
            "h100",
            "pool h100 has a static MIG layout: NVIDIA's DRA driver publishes its GPUs as mig.nvidia.com devices, "
            "none as a whole gpu.nvidia.com device, and only the gpu.nvidia.com DeviceClass serves plain "
            "nvidia.com/gpu requests (mig.nvidia.com names no extended resource), so a pod claims a MIG device",
            CLAIMS,
        )
    ]


def test_gpu_pod_settings_refuses_what_is_not_a_dra_driver_at_dra_driver() -> None:
    _, built = plan_and(lambda: cluster({"kubernetes_version": "1.36"}))
    for wrong, kind in ((built, "GpuCluster"), ("dra", "str"), (built.pools["l40s"], "EksGpuNodeGroup")):
        with pytest.raises(GpuSpecError) as caught:
            gpu_pod_settings(built.pools["l40s"], 1, dra_driver=wrong)
        assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
            (
                "dra_driver",
                f"an object of type {kind}",
                "not an NvidiaDraDriver: the DRA driver component tells whether its DeviceClass serves plain "
                "nvidia.com/gpu requests for the pools it serves",
                "the NvidiaDraDriver serving pool l40s (its GpuCluster's dra_driver)",
            )
        ]


def stack_resources(dra: dict[str, Any]) -> list[Any]:
    """The plan of a cluster and a plain nvidia.com/gpu Job on its L40S DRA pool, as the policy pack's stack rules
    see it (``gpu-components plan --policy``: a custom resource's inputs, a component's registered outputs)."""

    def program() -> None:
        built = cluster(dra)
        assert built.dra_driver is not None
        settings = gpu_pod_settings(built.pools["l40s"], 1, dra_driver=built.dra_driver)
        container = {"name": "c", "image": "cuda", "resources": settings["resources"]}
        pod = {
            "containers": [container],
            "tolerations": settings["tolerations"],
            "nodeSelector": settings["nodeSelector"],
        }
        k8s.batch.v1.Job("job", spec={"template": {"spec": {**pod, "restartPolicy": "Never"}}})

    plan = plan_of(program)
    return [(r.urn, r.type, r.inputs if r.custom else r.outputs) for r in plan.resources]


def test_the_policy_rules_expect_plain_gpu_pods_on_a_dra_pool_in_force_and_flag_them_otherwise() -> None:
    resources = stack_resources({"kubernetes_version": "1.36", "extended_resource": True})
    assert dra_pool_extended_resource_violations(resources) == []
    assert workload_pool_selection_violations(resources) == []
    assert workload_pool_toleration_violations(resources) == []
    assert workload_pool_fit_violations(resources) == []
    # The same Job with the mapping off (Kubernetes 1.35): the driver records no extended resource.
    off = [
        (urn, kind, {**props, "extendedResource": None} if kind.endswith("NvidiaDraDriver") else props)
        for urn, kind, props in resources
    ]
    [(urn, message)] = dra_pool_extended_resource_violations(off)
    assert urn.endswith("::job")
    assert message.startswith(
        "spec.template.spec.containers[0].resources: the pods ask for nvidia.com/gpu but select only DRA nodes "
        "(nodeSelector gpu-components/pool: l40s (a DRA pool)); "
    )


def plain_job_resources(dra: dict[str, Any], selector: dict[str, Any]) -> list[Any]:
    """The plan of a cluster and a Job asking one plain nvidia.com/gpu, tolerating the GPU taint, with ``selector``
    (its pod's nodeSelector and affinity), as the policy pack's stack rules see it."""

    def program() -> None:
        cluster(dra)
        plain_gpu_job("job", selector)

    plan = plan_of(program)
    return [(r.urn, r.type, r.inputs if r.custom else r.outputs) for r in plan.resources]


def pools_in(*names: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": "gpu-components/pool", "operator": "In", "values": list(names)}]}
    return {
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    }


MIG_ONLY = (
    "spec.template.spec.containers[0].resources: the pods ask for nvidia.com/gpu but select only DRA nodes ({how}); "
    "NVIDIA's DRA driver publishes their GPUs as DRA devices (DeviceClass gpu.nvidia.com, mig.nvidia.com), no device "
    "plugin advertises nvidia.com/gpu there, so the pods stay Pending (the cluster maps nvidia.com/gpu to the "
    "driver's gpu.nvidia.com DeviceClass, but the DRA pools the pods select, h100, have a MIG layout: their GPUs are "
    "published as mig.nvidia.com devices, none as a whole gpu.nvidia.com device); "
)


@pytest.mark.parametrize(
    ("selector", "how"),
    [
        ({"nodeSelector": {"gpu-components/pool": "h100"}}, "nodeSelector gpu-components/pool: h100 (a DRA pool)"),
        (pools_in("h100"), "required node affinity gpu-components/pool In [h100] (DRA pools)"),
    ],
)
def test_a_plain_gpu_pod_on_a_static_mig_dra_pool_is_flagged_though_the_mapping_is_in_force(
    selector: dict[str, Any], how: str
) -> None:
    resources = plain_job_resources({"kubernetes_version": "1.36", "extended_resource": True}, selector)
    [(urn, message)] = dra_pool_extended_resource_violations(resources)
    assert urn.endswith("::job")
    assert message.startswith(MIG_ONLY.format(how=how))
    # The DRA rule's alone (trial: the selection rule also said the pods selected none of the stack's GPU pools).
    assert workload_pool_selection_violations(resources) == []
    assert workload_pool_toleration_violations(resources) == []
    assert workload_pool_fit_violations(resources) == []


@pytest.mark.parametrize(
    "selector",
    [
        {"nodeSelector": {"gpu-components/pool": "l40s"}},
        {"nodeSelector": {"gpu-components/gpu-access": "dra"}},  # any DRA pool: the scheduler finds the L40S one
        pools_in("h100", "l40s"),
    ],
)
def test_a_plain_gpu_pod_that_may_land_on_a_whole_gpu_dra_pool_passes_under_the_mapping(
    selector: dict[str, Any],
) -> None:
    resources = plain_job_resources({"kubernetes_version": "1.36", "extended_resource": True}, selector)
    assert dra_pool_extended_resource_violations(resources) == []


def test_gpu_cluster_pool_scheduling_lists_nvidia_gpu_on_whole_gpu_dra_pools_where_the_mapping_is_in_force() -> None:
    _, on = plan_and(lambda: cluster({"kubernetes_version": "1.36", "extended_resource": True}))
    assert on.pool_scheduling["l40s"]["advertisedResources"] == {"nvidia.com/gpu": 1}
    assert on.pool_scheduling["l40s"]["draDevices"] == {"gpu.nvidia.com": 1}
    assert on.pool_scheduling["h100"]["advertisedResources"] == {}  # static MIG: no whole gpu.nvidia.com device
    _, off = plan_and(lambda: cluster({"kubernetes_version": "1.35"}))
    assert off.pool_scheduling["l40s"]["advertisedResources"] == {}


def test_gpu_pod_settings_refuses_another_clusters_driver_for_a_pool_of_the_same_settings() -> None:
    """Trial: two clusters in one program (prod on 1.36 with the mapping, staging on 1.34) with a pool of one name and
    settings; prod's driver does not serve staging's pool, so no plain limit is written for it."""

    def build() -> tuple[GpuCluster, GpuCluster]:
        prod, _ = cluster_of_its_own("prod", "1.36", dra={"kubernetes_version": "1.36", "extended_resource": True})
        staging, _ = cluster_of_its_own("staging", "1.34")
        return prod, staging

    _, (prod, staging) = plan_and(build)
    assert gpu_pod_settings(prod.pools["l40s"], 1, dra_driver=prod.dra_driver)["resources"] == {
        "limits": {"nvidia.com/gpu": "1"}
    }
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(staging.pools["l40s"], 1, dra_driver=prod.dra_driver)
    assert [(p.path, p.value, p.message) for p in caught.value.problems] == [
        (
            "dra_driver",
            "the NvidiaDraDriver of pools l40s",
            "does not serve pool l40s: a DRA driver serves the pools of its own cluster (a pool of the same name and "
            "settings in another cluster is another pool, on another cluster's DeviceClass)",
        )
    ]
    assert served_extended_resource(staging.pools["l40s"], [prod.dra_driver]) is None


CONTRADICTION = (
    "extendedResource: null: this NvidiaDraDriver's gpu.nvidia.com DeviceClass serves no plain nvidia.com/gpu "
    "requests (its DRA setting extended_resource false, or unset below Kubernetes 1.36, where the DRAExtendedResource "
    "feature gate is off by default), but the policy config draExtendedResource: true says the cluster maps them; "
    "the component's record decides for the pods of its stack: remove draExtendedResource from the policy config (it "
    "is for DRA drivers deployed without the library), or set the driver's extended_resource on Kubernetes 1.36 or "
    "later [source: https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/"
    "dra-driver-nvidia-gpu/templates/deviceclass-gpu.yaml (extendedResourceName: nvidia.com/gpu on gpu.nvidia.com "
    "only; mig.nvidia.com has none); https://www.kubernetes.dev/resources/keps/5004/ (DRAExtendedResource: alpha "
    "1.34, beta 1.36)]"
)


def test_the_policy_config_does_not_override_what_the_librarys_driver_records() -> None:
    """Trial: with ``draExtendedResource: true`` in the pack config, a plain nvidia.com/gpu Job on a 1.35 cluster's
    DRA pool passed, though the library's driver records that its DeviceClass serves no nvidia.com/gpu there."""
    resources = plain_job_resources({"kubernetes_version": "1.35"}, {"nodeSelector": {"gpu-components/pool": "l40s"}})
    [driver_urn] = [urn for urn, kind, _ in resources if kind == "gpu-components:index:NvidiaDraDriver"]
    reported = analyze_stack(resources, {"gpu-dra-pool-extended-resource": {"draExtendedResource": True}})
    assert [(name, urn.split("::")[-1], message.split("\n", 1)[1][:80]) for name, urn, message in reported] == [
        ("gpu-dra-pool-extended-resource", driver_urn.split("::")[-1], CONTRADICTION[:80]),
        (
            "gpu-dra-pool-extended-resource",
            "job",
            "spec.template.spec.containers[0].resources: the pods ask for nvidia.com/gpu but ",
        ),
    ]
    assert reported[0][2].split("\n", 1)[1] == CONTRADICTION
    # Where the driver records the mapping (1.36), the same config contradicts nothing and the Job passes.
    on = plain_job_resources({"kubernetes_version": "1.36"}, {"nodeSelector": {"gpu-components/pool": "l40s"}})
    assert analyze_stack(on, {"gpu-dra-pool-extended-resource": {"draExtendedResource": True}}) == []


STATIC_MIG_ONLY = (
    "every pool the DRA driver serves (h100) has a static MIG layout: their GPUs are published as mig.nvidia.com "
    "devices, none as a whole gpu.nvidia.com device, and only the gpu.nvidia.com DeviceClass names nvidia.com/gpu "
    "(mig.nvidia.com names no extended resource), so no plain nvidia.com/gpu request could be served: such a pod "
    "would stay Pending"
)


def test_a_driver_of_static_mig_pools_only_neither_warns_nor_takes_true(caplog: pytest.LogCaptureFixture) -> None:
    """Trial: on 1.36 a cluster whose DRA pools all have a static MIG layout warned that its pools serve plain
    nvidia.com/gpu requests, and took ``extended_resource: true``: they publish no whole GPU to serve them with."""

    def mig_cluster(dra: dict[str, Any]) -> GpuCluster:
        args = {"cloud": "aws", "aws": WIRING, "pools": [H100], "gpu_stack": "dra", "dra": dra}
        return GpuCluster("gpus", args)  # type: ignore[arg-type]

    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_and(lambda: mig_cluster({"kubernetes_version": "1.36"}))
        plan_and(lambda: NvidiaDraDriver("dra", {"cloud": "aws", "pools": [H100], "kubernetes_version": "1.36"}))
    assert warnings(caplog) == []
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: mig_cluster({"kubernetes_version": "1.36", "extended_resource": True}))
    assert [(p.path, p.value, p.message, p.valid, p.source) for p in caught.value.problems] == [
        (
            "dra.extended_resource",
            True,
            STATIC_MIG_ONLY,
            "extended_resource left out, or a DRA pool of whole GPUs (no mig) to serve",
            TEMPLATE,
        )
    ]
    with pytest.raises(GpuSpecError) as caught:
        plan_of(
            lambda: NvidiaDraDriver(
                "dra", {"cloud": "aws", "pools": [H100], "kubernetes_version": "1.36", "extended_resource": True}
            )
        )
    assert [(p.path, p.message) for p in caught.value.problems] == [("extended_resource", STATIC_MIG_ONLY)]
    with pytest.raises(GpuSpecError) as caught:  # the stack config's check
        validate_cluster("aws", [H100], "dra", dra={"kubernetes_version": "1.36", "extended_resource": True})
    assert [(p.path, p.message) for p in caught.value.problems] == [("dra.extended_resource", STATIC_MIG_ONLY)]
    # One pool of whole GPUs beside it is something to serve: accepted.
    plan_of(lambda: driver(kubernetes_version="1.36", extended_resource=True))


def test_each_warning_names_the_component_it_comes_from(caplog: pytest.LogCaptureFixture) -> None:
    """Trial: a program of two 1.36 clusters printed the same warning twice, naming neither. The plan's engine now
    names the resource as the Pulumi CLI lists it (type and name), which is what ``pulumi up`` shows."""

    def build() -> None:
        for name in ("prod", "staging"):
            cluster_of_its_own(name, "1.36")

    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(build)
    assert sorted(warnings(caplog)) == [
        f"gpu-components:index:NvidiaDraDriver (prod-dra-driver): {WARNING}",
        f"gpu-components:index:NvidiaDraDriver (staging-dra-driver): {WARNING}",
    ]


def test_each_pool_is_judged_by_its_own_clusters_driver() -> None:
    """Trial: with a 1.36 cluster (its driver recording nvidia.com/gpu) and a 1.35 one in one stack, a plain
    nvidia.com/gpu Job confined to the 1.35 cluster's DRA pool passed: the record was read stack-wide."""

    def program() -> None:
        for name, version in (("new", "1.36"), ("old", "1.35")):
            cluster_of_its_own(name, version, pools=[{**L40S, "name": f"l40s-{name}"}])
        for pool in ("l40s-new", "l40s-old"):
            plain_gpu_job(f"job-{pool}", {"nodeSelector": {"gpu-components/pool": pool}})

    plan = plan_of(program)
    resources = [(r.urn, r.type, r.inputs if r.custom else r.outputs) for r in plan.resources]
    assert [
        (urn.split("::")[-1], message.split(":")[0])
        for urn, message in dra_pool_extended_resource_violations(resources)
    ] == [("job-l40s-old", "spec.template.spec.containers[0].resources")]


def test_a_driver_of_static_mig_pools_only_records_no_extended_resource() -> None:
    """Trial: on 1.36 the driver of a static-MIG-only cluster recorded nvidia.com/gpu while the capacity report
    said its pools serve none (they publish no whole GPU)."""
    _, built = plan_and(lambda: NvidiaDraDriver("dra", {"cloud": "aws", "pools": [H100], "kubernetes_version": "1.36"}))
    assert built.extended_resource is None


def test_a_driver_given_the_pool_as_plain_settings_says_to_give_it_the_component() -> None:
    """Trials: an ``EksGpuNodeGroup`` and an ``NvidiaDraDriver`` given the same pool as plain settings: first
    gpu_pod_settings said the driver did not serve the pool; matched on equal settings, a driver of another cluster
    then wrote a limit for a pool it does not serve. A driver given plain settings cannot tell whose nodes they are,
    so the message says to give it the component; given the component, it serves it."""

    def build() -> tuple[Any, NvidiaDraDriver]:
        group = EksGpuNodeGroup(
            "l40s",
            {"pool": dict(L40S), "cluster_name": "prod", "subnet_ids": ["subnet-1"], "gpu_stack": "dra"},  # type: ignore[typeddict-item]
        )
        dra = NvidiaDraDriver(
            "dra",
            {"cloud": "aws", "pools": [dict(L40S)], "kubernetes_version": "1.36", "extended_resource": True},  # type: ignore[list-item]
        )
        return group, dra

    _, (group, dra) = plan_and(build)
    assert not dra.serves(group)
    assert served_extended_resource(group, [dra]) is None
    with pytest.raises(GpuSpecError) as caught:
        gpu_pod_settings(group, 1, dra_driver=dra)
    assert [(p.path, p.value, p.message, p.valid) for p in caught.value.problems] == [
        (
            "dra_driver",
            "the NvidiaDraDriver of pools l40s",
            "was given pool l40s as plain settings, not this node-pool component, so it cannot tell that the "
            "component's nodes are on its cluster (an equal pool of another cluster would match as well)",
            "an NvidiaDraDriver given the component itself in its pools (pools: [<the l40s component>]), or its "
            "GpuCluster's dra_driver",
        )
    ]

    def given_the_component() -> tuple[Any, NvidiaDraDriver]:
        group = EksGpuNodeGroup(
            "l40s",
            {"pool": dict(L40S), "cluster_name": "prod", "subnet_ids": ["subnet-1"], "gpu_stack": "dra"},  # type: ignore[typeddict-item]
        )
        return group, NvidiaDraDriver(
            "dra", {"pools": [group], "kubernetes_version": "1.36", "extended_resource": True}
        )

    _, (group, dra) = plan_and(given_the_component)
    assert dra.serves(group)
    assert gpu_pod_settings(group, 1, dra_driver=dra)["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert served_extended_resource(group, [dra]) == "nvidia.com/gpu"


def test_a_null_kubernetes_version_of_the_standalone_driver_is_one_problem() -> None:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(lambda: driver(kubernetes_version=None))
    assert [str(p) for p in caught.value.problems] == [
        "kubernetes_version: must not be null (got None); valid: a string"
    ]


def test_under_the_gpu_operators_gpu_cluster_1_36_warns_that_its_device_class_is_not_modelled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Trial: under dra.installer gpu-operator on 1.36 the outputs said no DRA pool serves nvidia.com/gpu, with no
    word that the GPUCluster's DeviceClass, which decides it, is not modelled."""

    def build(version: str) -> GpuCluster:
        dra = {"kubernetes_version": version, "installer": "gpu-operator"}
        args = {"cloud": "aws", "aws": WIRING, "pools": [L40S], "gpu_stack": "dra", "dra": dra}
        return GpuCluster("gpus", args)  # type: ignore[arg-type]

    with caplog.at_level("WARNING", logger="gpu_components.plan.pulumi"):
        plan_of(lambda: build("1.36"))
        plan_of(lambda: build("1.35"))
    assert [r.getMessage() for r in caplog.records if "GPUCluster" in r.getMessage()] == [
        "gpu-components:index:GpuCluster (gpus): on Kubernetes 1.36 a DeviceClass with an extendedResourceName serves "
        "plain nvidia.com/gpu requests (Kubernetes' DRAExtendedResource feature gate is on by default from 1.36); "
        "under dra.installer gpu-operator the GPU Operator's GPUCluster creates the DRA pools' DeviceClasses, which "
        "the library does not model, so it counts no nvidia.com/gpu on them (capacity, pool_scheduling, "
        "gpu_pod_settings): check the operator's gpu.nvidia.com DeviceClass before relying on either [source: "
        f"{GATE}]"
    ]


def test_the_pack_tells_two_clusters_pools_of_one_name_apart_by_their_kubernetes_provider() -> None:
    """Trial: two clusters (1.36 and 1.35) with a pool ``l40s`` each; the pack read the drivers' records by pool name,
    so whichever came last decided both clusters' Jobs (a missed violation, or a false one on a valid Job); and a
    Job selecting ``gpu-access: dra`` on the 1.35 cluster passed for the other cluster's pool. Run as ``pulumi
    preview --policy-pack`` runs it (``run_policy_pack``: each resource with its provider)."""

    def program() -> None:
        for name, version in (("new", "1.36"), ("aold", "1.35")):
            _, provider = cluster_of_its_own(name, version, aws={**WIRING, "cluster_name": name})
            for how, selector in (
                ("pool", {"gpu-components/pool": "l40s"}),
                ("access", {"gpu-components/gpu-access": "dra"}),
            ):
                plain_gpu_job(f"job-{name}-{how}", {"nodeSelector": selector}, provider)

    report = run_policy_pack(plan_of(program))
    assert sorted(v.urn.split("::")[-1] for v in report.violations if v.policy == "gpu-dra-pool-extended-resource") == [
        "job-aold-access",
        "job-aold-pool",
    ]
