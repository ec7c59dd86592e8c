"""EKS adapter rules and translations (pure): AMI types, taints, labels, Bottlerocket settings."""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

import pytest

from gpu_components.aws import bottlerocket
from gpu_components.aws.adapter import ADAPTER
from gpu_components.aws.eks import (
    ami_type_for,
    autoscaler_tag_role,
    autoscaler_tags,
    eks_autoscaler_note,
    eks_problems,
    eks_taints,
    node_group_inputs,
)
from gpu_components.spec import GpuNodePoolSpec, Taint


def spec(**fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
    args.update(fields)
    return GpuNodePoolSpec.from_args(args, "aws")  # type: ignore[arg-type]


def test_default_ami_type_follows_cpu_architecture() -> None:
    assert node_group_inputs(spec(), "AL2023_x86_64_NVIDIA")["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert eks_problems(spec(instance_type="g5g.xlarge"), None) == []


def test_non_nvidia_ami_type_is_rejected() -> None:
    [problem] = eks_problems(spec(), "AL2023_x86_64_STANDARD", "pools[0]")
    assert problem.path == "pools[0].ami_type"
    assert problem.message == "not an NVIDIA AMI type; g5.xlarge has 1 x A10G"
    assert problem.valid == (
        "AL2023_x86_64_NVIDIA, AL2023_ARM_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA, BOTTLEROCKET_ARM_64_NVIDIA"
    )


def test_wrong_architecture_ami_type_is_rejected() -> None:
    [problem] = eks_problems(spec(instance_type="g5g.xlarge"), "AL2023_x86_64_NVIDIA")
    assert problem.message == "built for x86_64, but g5g.xlarge is arm64"
    assert problem.valid == "AL2023_ARM_64_NVIDIA, BOTTLEROCKET_ARM_64_NVIDIA"


def test_gb200_hosts_are_arm64_and_take_only_the_arm_nvidia_amis() -> None:
    gb200 = spec(instance_type="p6e-gb200.36xlarge", mig={"profile": "1g.23gb"})
    assert (gb200.cpu_architecture, gb200.gpu.name, gb200.gpu_count) == ("arm64", "GB200", 4)
    assert node_group_inputs(gb200, "AL2023_ARM_64_NVIDIA", "gpu-operator")["ami_type"] == "AL2023_ARM_64_NVIDIA"
    assert eks_problems(gb200, None, gpu_stack="gpu-operator") == []
    [problem] = eks_problems(gb200, "AL2023_x86_64_NVIDIA", "pools[0]", gpu_stack="gpu-operator")
    assert (problem.path, problem.message, problem.valid) == (
        "pools[0].ami_type",
        "built for x86_64, but p6e-gb200.36xlarge is arm64",
        "AL2023_ARM_64_NVIDIA",
    )
    b300 = spec(instance_type="p6-b300.48xlarge", mig={"profile": "1g.34gb"})
    assert (b300.cpu_architecture, b300.gpu.name, b300.gpu_count) == ("x86_64", "B300", 8)
    [problem] = eks_problems(b300, "AL2023_ARM_64_NVIDIA", gpu_stack="gpu-operator")
    assert problem.message == "built for arm64, but p6-b300.48xlarge is x86_64"


def test_gb300_hosts_are_arm64_and_take_only_the_arm_nvidia_amis() -> None:
    gb300 = spec(instance_type="p6e-gb300.36xlarge")
    assert (gb300.cpu_architecture, gb300.gpu.name, gb300.gpu_count) == ("arm64", "GB300", 4)
    assert ami_type_for(gb300, None) == "AL2023_ARM_64_NVIDIA"
    assert eks_problems(gb300, None) == []
    [problem] = eks_problems(gb300, "AL2023_x86_64_NVIDIA", "pools[0]")
    assert (problem.path, problem.message, problem.valid) == (
        "pools[0].ami_type",
        "built for x86_64, but p6e-gb300.36xlarge is arm64",
        "AL2023_ARM_64_NVIDIA",
    )


@pytest.mark.parametrize(
    ("instance_type", "profile"), [("p6e-gb200.36xlarge", "1g.23gb"), ("p6e-gb300.36xlarge", "1g.35gb")]
)
def test_the_bottlerocket_arm_nvidia_ami_is_refused_on_grace_blackwell_hosts(instance_type: str, profile: str) -> None:
    # EKS's AMI table lists g5g alone for Bottlerocket aarch64 aws-k8s-nvidia; p6e-gb200/p6e-gb300 take AL2023 ARM
    pool = spec(instance_type=instance_type)
    [problem] = eks_problems(pool, "BOTTLEROCKET_ARM_64_NVIDIA", "pools[0]")
    assert (problem.path, problem.value, problem.message, problem.valid, problem.source) == (
        "pools[0].ami_type",
        "BOTTLEROCKET_ARM_64_NVIDIA",
        f"EKS's BOTTLEROCKET_ARM_64_NVIDIA AMI supports only the g5g instance family, not {instance_type}",
        "AL2023_ARM_64_NVIDIA",
        "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html",
    )
    assert eks_problems(spec(instance_type="g5g.xlarge"), "BOTTLEROCKET_ARM_64_NVIDIA") == []
    [mig] = eks_problems(spec(instance_type=instance_type, mig={"profile": profile}), None)
    assert (mig.path, mig.valid) == ("mig", "gpu_stack gpu-operator")


def test_g7e_is_x86_64_rtx_pro_6000_and_its_mig_is_the_operators() -> None:
    g7e = spec(instance_type="g7e.48xlarge")
    assert (g7e.cpu_architecture, g7e.gpu.name, g7e.gpu_count) == ("x86_64", "RTX-PRO-6000", 8)
    assert ami_type_for(g7e, None) == "AL2023_x86_64_NVIDIA"
    mig = spec(instance_type="g7e.48xlarge", mig={"profile": "1g.24gb"})
    assert eks_problems(mig, None, gpu_stack="gpu-operator") == []
    [problem] = eks_problems(mig, "BOTTLEROCKET_x86_64_NVIDIA")
    assert (problem.path, problem.value) == ("mig", {"profile": "1g.24gb"})


def test_bottlerocket_mig_on_an_rtx_pro_6000_is_one_problem_echoing_the_instance_type_and_mig_block() -> None:
    # the GPU is the problem: no suggestion of a plain profile Bottlerocket would not make either
    pool = spec(instance_type="g7e.2xlarge", mig={"profile": "1g.24gb+gfx"})
    [problem] = eks_problems(pool, "BOTTLEROCKET_x86_64_NVIDIA", "pool")
    assert str(problem) == (
        "pool.mig: Bottlerocket documents MIG profiles only for some GPU models, and g7e.2xlarge's RTX-PRO-6000 is "
        "not one of them (got {'profile': '1g.24gb+gfx'}); valid: an instance type with one of A100-40GB, A100-80GB, "
        "H100-80GB, H200-141GB, or an AL2023 NVIDIA AMI type with gpu_stack gpu-operator (NVIDIA's MIG manager makes "
        f"every profile of the GPU) [source: {bottlerocket.SOURCE_BOTTLEROCKET}]"
    )


@pytest.mark.parametrize(
    ("instance_type", "profile", "plain"),
    [
        ("p4d.24xlarge", "1g.5gb+me", "1g.5gb"),
        ("p5.48xlarge", "1g.10gb+me", "1g.10gb"),
        ("p5e.48xlarge", "1g.18gb+me", "1g.18gb"),
    ],
)
def test_bottlerocket_refuses_a_mig_profile_with_an_engine_attribute(
    instance_type: str, profile: str, plain: str
) -> None:
    # Bottlerocket documents plain <compute>g.<memory>gb profiles only; its MIG manager would turn the
    # unknown value into the whole-GPU profile
    pool = spec(instance_type=instance_type, mig={"profile": profile})
    [problem] = eks_problems(pool, "BOTTLEROCKET_x86_64_NVIDIA", "pools[0]")
    assert (problem.path, problem.value, problem.message, problem.valid, problem.source) == (
        "pools[0].mig.profile",
        profile,
        "Bottlerocket's mig.profile takes a plain <compute>g.<memory>gb profile per GPU model and documents no "
        "engine attribute (+me, +me.all, +gfx, -me); its MIG manager turns a profile it does not know into the "
        "whole-GPU profile",
        f"{plain}, or an AL2023 NVIDIA AMI type with gpu_stack gpu-operator (NVIDIA's MIG manager makes every "
        "profile of the GPU)",
        bottlerocket.SOURCE_BOTTLEROCKET,
    )
    assert eks_problems(spec(instance_type=instance_type, mig={"profile": plain}), "BOTTLEROCKET_x86_64_NVIDIA") == []
    assert eks_problems(pool, None, gpu_stack="gpu-operator") == []


def test_mig_on_al2023_points_to_bottlerocket() -> None:
    [problem] = eks_problems(spec(instance_type="p4d.24xlarge", mig={"profile": "1g.5gb"}), None)
    assert problem.path == "mig"
    assert problem.valid == "gpu_stack gpu-operator, or ami_type BOTTLEROCKET_x86_64_NVIDIA with a uniform mig.profile"
    # the mig field as written, not the config name all-1g.5gb the library derives from it
    assert problem.value == {"profile": "1g.5gb"}
    assert str(problem) == (
        "mig: nodes of the ami_type left unset (default: AL2023_x86_64_NVIDIA) have no MIG partitioning of their own; "
        "EKS documents MIG through NVIDIA's MIG Manager (GPU Operator) or Bottlerocket's MIG settings (got "
        "{'profile': '1g.5gb'}); valid: gpu_stack gpu-operator, or ami_type BOTTLEROCKET_x86_64_NVIDIA with a uniform "
        f"mig.profile [source: {problem.source}]"
    )
    [given] = eks_problems(spec(instance_type="p4d.24xlarge", mig={"profile": "1g.5gb"}), "AL2023_x86_64_NVIDIA")
    assert given.message.startswith("AL2023_x86_64_NVIDIA nodes have no MIG partitioning of their own; ")


def test_mig_on_a_gb200_without_ami_type_names_the_arm_ami_as_the_default() -> None:
    [problem] = eks_problems(spec(instance_type="p6e-gb200.36xlarge", mig={"profile": "1g.23gb"}), None, "pools[3]")
    assert str(problem).startswith(
        "pools[3].mig: nodes of the ami_type left unset (default: AL2023_ARM_64_NVIDIA) have no MIG partitioning of "
        "their own; "
    )
    assert problem.valid == "gpu_stack gpu-operator"


def test_mig_on_al2023_echoes_a_layout_and_its_strategy_as_written() -> None:
    layout = {"3g.20gb": 1, "2g.10gb": 2}
    [problem] = eks_problems(spec(instance_type="p4d.24xlarge", mig={"layout": layout, "strategy": "mixed"}), None)
    assert (problem.path, problem.value) == ("mig", {"layout": layout, "strategy": "mixed"})


def test_bottlerocket_rejects_what_it_cannot_do() -> None:
    pool = spec(
        instance_type="p4de.24xlarge",
        mig={"layout": {"3g.40gb": 1, "2g.20gb": 1}, "strategy": "mixed"},
        time_slicing={"replicas": 2},
    )
    problems = eks_problems(pool, "BOTTLEROCKET_x86_64_NVIDIA")
    assert [p.message for p in problems] == [
        "Bottlerocket supports only the single MIG strategy",
        "Bottlerocket applies one MIG profile per GPU model, not a layout of several",
        "Bottlerocket does not combine MIG partitioning with a sharing strategy",
    ]
    b200 = spec(instance_type="p6-b200.48xlarge", mig={"profile": "1g.23gb"})
    assert [p.valid for p in eks_problems(b200, "BOTTLEROCKET_x86_64_NVIDIA")] == [
        "an instance type with one of A100-40GB, A100-80GB, H100-80GB, H200-141GB, or an AL2023 NVIDIA AMI type with "
        "gpu_stack gpu-operator (NVIDIA's MIG manager makes every profile of the GPU)"
    ]


def test_eks_taint_spelling() -> None:
    assert eks_taints([Taint("nvidia.com/gpu", "present", "NoSchedule"), Taint("a", "", "PreferNoSchedule")]) == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
        {"key": "a", "effect": "PREFER_NO_SCHEDULE"},
    ]


def test_node_group_inputs_for_a_time_sliced_spot_pool() -> None:
    pool = spec(name="shared", spot=True, min_size=0, max_size=4, labels={"team": "ml"}, time_slicing={"replicas": 4})
    assert node_group_inputs(pool, "AL2023_x86_64_NVIDIA") == {
        "ami_type": "AL2023_x86_64_NVIDIA",
        "instance_types": ["g5.xlarge"],
        "capacity_type": "SPOT",
        "scaling_config": {"min_size": 0, "max_size": 4, "desired_size": 0},
        "labels": {
            "gpu-components/pool": "shared",
            "k8s.amazonaws.com/accelerator": "nvidia-a10g",
            "nvidia.com/device-plugin.config": "shared",
            "nvidia.com/gpu.present": "true",
            "team": "ml",
        },
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
        "disk_size": 100,
    }


def test_an_mps_pool_carries_the_label_the_charts_mps_control_daemon_selects() -> None:
    pool = spec(name="mps", mps={"replicas": 4, "trusted": True})
    labels = node_group_inputs(pool, "AL2023_x86_64_NVIDIA")["labels"]
    assert labels == {
        "gpu-components/pool": "mps",
        "gpu-components/sharing": "trusted",
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nvidia.com/device-plugin.config": "mps",
        "nvidia.com/gpu.present": "true",
        "nvidia.com/mps.capable": "true",
    }


def test_an_mps_pool_under_the_gpu_operator_leaves_the_mps_label_to_feature_discovery() -> None:
    pool = spec(name="mps", mps={"replicas": 4})
    labels = node_group_inputs(pool, "AL2023_x86_64_NVIDIA", gpu_stack="gpu-operator")["labels"]
    assert "nvidia.com/mps.capable" not in labels
    assert labels["nvidia.com/device-plugin.config"] == "mps"


def test_bottlerocket_pool_has_no_device_plugin_labels() -> None:
    pool = spec(name="mig", instance_type="p4d.24xlarge", mig={"profile": "1g.5gb"})
    inputs = node_group_inputs(pool, "BOTTLEROCKET_x86_64_NVIDIA")
    assert inputs["labels"] == {"gpu-components/pool": "mig", "k8s.amazonaws.com/accelerator": "nvidia-a100-40gb"}
    assert "disk_size" not in inputs  # EKS refuses diskSize beside the launch template that carries the disk


def test_bottlerocket_user_data_for_mig_is_exact_toml() -> None:
    pool = spec(instance_type="p4d.24xlarge", mig={"profile": "1g.5gb"})
    assert bottlerocket.user_data(pool) == (
        "[settings.kubelet-device-plugins.nvidia]\n"
        'device-sharing-strategy = "none"\n'
        'device-partitioning-strategy = "mig"\n'
        "\n"
        "[settings.kubelet-device-plugins.nvidia.mig.profile]\n"
        '"a100.40gb" = "1g.5gb"\n'
    )


def test_bottlerocket_settings_for_sharing_are_explicit() -> None:
    sliced = tomllib.loads(bottlerocket.user_data(spec(time_slicing={"replicas": 4})))
    assert sliced["settings"]["kubelet-device-plugins"]["nvidia"] == {
        "device-sharing-strategy": "time-slicing",
        "time-slicing": {"replicas": 4, "rename-by-default": False, "fail-requests-greater-than-one": False},
    }
    mps = tomllib.loads(bottlerocket.user_data(spec(mps={"replicas": 6})))
    assert mps["settings"]["kubelet-device-plugins"]["nvidia"] == {
        "device-sharing-strategy": "mps",
        "mps": {"replicas": 6, "rename-by-default": False},
    }


def test_retired_gpu_ami_type_says_so() -> None:
    [problem] = eks_problems(spec(), "AL2_x86_64_GPU", "pools[0]", ami_type_path="pools[0].aws.ami_type")
    assert problem.path == "pools[0].aws.ami_type"
    assert problem.message == "an NVIDIA AMI type past its end of support; g5.xlarge has 1 x A10G"


def test_autoscaler_tags_describe_resources_labels_and_taints() -> None:
    pool = spec(time_slicing={"replicas": 2}, taints=[{"key": "team", "value": "ml", "effect": "NoSchedule"}])
    labels = {"gpu-components/pool": "gpu", "k8s.amazonaws.com/accelerator": "nvidia-a10g"}
    assert autoscaler_tags(pool, labels) == {
        "k8s.io/cluster-autoscaler/node-template/label/gpu-components/pool": "gpu",
        "k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "2",
        "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu": "present:NoSchedule",
        "k8s.io/cluster-autoscaler/node-template/taint/team": "ml:NoSchedule",
    }


def test_renamed_shared_gpus_zero_whole_gpus_and_lose_the_gpu_label() -> None:
    pool = spec(time_slicing={"replicas": 2, "rename_by_default": True})
    resources = {k: v for k, v in autoscaler_tags(pool, {}).items() if "/resources/" in k}
    assert resources == {
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "0",
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu.shared": "2",
    }
    assert "k8s.amazonaws.com/accelerator" not in node_group_inputs(pool, "AL2023_x86_64_NVIDIA")["labels"]
    assert eks_autoscaler_note(pool, "daemonset") == (
        "nodes advertise nvidia.com/gpu.shared and no nvidia.com/gpu, the only GPU resource the Cluster Autoscaler "
        "waits for on a new node: it may add nodes for pods a starting node will hold"
    )


@pytest.mark.parametrize(
    ("key", "role"),
    [
        ("k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/mig-1g.5gb", "nvidia.com-mig-1g.5gb"),
        ("k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu.present", "label-nvidia.com/gpu.present"),
        ("k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu", "taint-nvidia.com/gpu"),
    ],
)
def test_autoscaler_tag_resource_names(key: str, role: str) -> None:
    assert autoscaler_tag_role(key) == role


def test_cluster_pool_escape_hatch_is_checked_at_its_config_path() -> None:
    options = {"ami_type": "BOTTLEROCKET_x86_64_NVIDIA", "node_group_args": {"disk_size": 50, "remote_access": {}}}
    problems = ADAPTER.problems(spec(), options, "pools[0]", "auto")
    assert [p.path for p in problems] == [
        "pools[0].aws.node_group_args.disk_size",
        "pools[0].aws.node_group_args.remote_access",
    ]
