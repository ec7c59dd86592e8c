"""Our cloud spelling tables against the installed provider SDKs, the independent source of the values each API takes.

Where an SDK has an enum (pulumi-azure-native's ``containerservice`` enums, pulumi-eks's ``AmiType``) the test reads
its values; pulumi-aws and pulumi-gcp are bridged from Terraform and have plain strings, so the values are read from
the SDK's own field documentation (``Valid values: ...`` / ``Accepted values are: ...``). Each table must equal the
SDK's values, less the exceptions named with their reason.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

import pulumi_aws
import pulumi_eks
import pulumi_gcp
from pulumi_azure_native import containerservice

from gpu_components.aws import eks
from gpu_components.aws import facts as eks_facts
from gpu_components.azure import aks
from gpu_components.gcp import facts as gke_facts
from gpu_components.gcp import gke
from gpu_components.gcp.facts import GKE_DRIVER_INSTALLATION_DISABLED
from gpu_components.spec import DEFAULT_GPU_TAINT, GpuNodePoolSpec


def values(enum: type[Enum]) -> set[str]:
    return {member.value for member in enum}


def documented(field: Any) -> set[str]:
    """The values an SDK field's docstring lists, in backticks (quoted or not)."""
    return set(re.findall(r'`"?([A-Z][A-Z_]*)"?`', field.__doc__))


def spec(cloud: str, **fields: Any) -> GpuNodePoolSpec:
    args: dict[str, Any] = {"name": "gpu", "max_size": 2, **fields}
    return GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------------- EKS

# pulumi-eks 4.4's AmiType predates AL2023_ARM_64_NVIDIA, which the EKS API lists among node group AMI types
# (https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html#AmazonEKS-Type-Nodegroup-amiType; also
# AWS CDK's aws_eks.NodegroupAmiType).
NOT_IN_PULUMI_EKS = {"AL2023_ARM_64_NVIDIA"}


def test_docstring_reader_reads_the_listed_values() -> None:
    assert documented(pulumi_aws.eks.NodeGroupArgs.capacity_type) == {"ON_DEMAND", "SPOT"}


def test_eks_nvidia_ami_types_are_pulumi_eks_gpu_ami_types() -> None:
    gpu_ami_types = {v for v in values(pulumi_eks.AmiType) if v.endswith(("_NVIDIA", "_GPU"))}
    assert gpu_ami_types == (set(eks_facts.NVIDIA_AMI_TYPES) - NOT_IN_PULUMI_EKS) | eks_facts.RETIRED_GPU_AMI_TYPES


def test_policy_pack_ami_types_are_the_adapters() -> None:
    (node_group,) = eks_facts.FACTS.node_pools  # what the policy pack reads of an EKS node group
    assert node_group.gpu_images is not None
    assert set(eks_facts.NVIDIA_AMI_TYPES) | eks_facts.RETIRED_GPU_AMI_TYPES == node_group.gpu_images.types


def test_eks_default_ami_types_are_sdk_values_or_the_named_exception() -> None:
    known = values(pulumi_eks.AmiType) | NOT_IN_PULUMI_EKS
    assert {arch: ami in known for arch, ami in eks_facts.DEFAULT_AMI_TYPES.items()} == {
        "x86_64": True,
        "arm64": True,
    }


def test_eks_bottlerocket_ami_types_are_sdk_values() -> None:
    assert set(eks_facts.BOTTLEROCKET_AMI_TYPES.values()) <= values(pulumi_eks.AmiType)


def test_eks_taint_effects_are_the_sdks() -> None:
    assert set(eks_facts.TAINT_EFFECTS.values()) == documented(pulumi_aws.eks.NodeGroupTaintArgs.effect)


def test_eks_capacity_types_rendered_are_the_sdks() -> None:
    rendered = {
        eks.node_group_inputs(spec("aws", instance_type="g5.xlarge", spot=spot), "AL2023_x86_64_NVIDIA")[
            "capacity_type"
        ]
        for spot in (False, True)
    }
    assert rendered == documented(pulumi_aws.eks.NodeGroupArgs.capacity_type)


# ------------------------------------------------------------------------------------------------------------- AKS


def test_aks_gpu_instance_profiles_are_the_sdk_enum() -> None:
    by_compute = {int(re.fullmatch(r"MIG(\d)g", v)[1]): v for v in values(containerservice.GPUInstanceProfile)}  # type: ignore[index]
    assert dict(aks.GPU_INSTANCE_PROFILES) == by_compute


def test_aks_gpu_driver_settings_are_the_sdk_enum() -> None:
    assert set(aks.GPU_DRIVER_SETTINGS.values()) == values(containerservice.GPUDriver)


def test_aks_agent_pool_enum_inputs_are_sdk_enum_values() -> None:
    pool = spec("azure", instance_type="Standard_NC24ads_A100_v4", spot=True, mig={"profile": "1g.10gb"})
    inputs = aks.agent_pool_inputs(pool)
    enums = {
        "mode": containerservice.AgentPoolMode,
        "os_type": containerservice.OSType,
        "type": containerservice.AgentPoolType,
        "scale_set_priority": containerservice.ScaleSetPriority,
        "scale_set_eviction_policy": containerservice.ScaleSetEvictionPolicy,
        "gpu_instance_profile": containerservice.GPUInstanceProfile,
    }
    assert {key: inputs[key] in values(enum) for key, enum in enums.items()} == dict.fromkeys(enums, True)
    assert (inputs["scale_set_priority"], inputs["scale_set_eviction_policy"], inputs["gpu_instance_profile"]) == (
        containerservice.ScaleSetPriority.SPOT.value,
        containerservice.ScaleSetEvictionPolicy.DELETE.value,
        containerservice.GPUInstanceProfile.MIG1G.value,
    )


# ------------------------------------------------------------------------------------------------------------- GKE
# pulumi-gcp documents the accepted values on the cluster's node config types; node pools take the same GKE API
# type (NodeConfig), whose pool-side docstrings only link to the API package.

GPU_SHARING = pulumi_gcp.container.ClusterNodeConfigGuestAcceleratorGpuSharingConfigArgs.gpu_sharing_strategy
GPU_DRIVER = pulumi_gcp.container.ClusterNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs.gpu_driver_version
# GPU_DRIVER_VERSION_UNSPECIFIED is left out on purpose: the library always states the driver mode, because a
# left-out mode reads back as a computed value and plans a replacement (gke.DEFAULT_DRIVER_VERSION).
NOT_ACCEPTED_DRIVER_VERSIONS = {"GPU_DRIVER_VERSION_UNSPECIFIED"}


def test_gke_sharing_strategies_are_the_sdks() -> None:
    assert {api for api, _label in gke.SHARING_STRATEGIES.values()} == documented(GPU_SHARING)
    assert documented(GPU_SHARING) == gke_facts.GPU_SHARING_STRATEGIES


def test_gke_driver_versions_are_the_sdks() -> None:
    assert set(gke.OPERATOR_DRIVER_VERSIONS) == documented(GPU_DRIVER) - NOT_ACCEPTED_DRIVER_VERSIONS
    assert GKE_DRIVER_INSTALLATION_DISABLED in documented(GPU_DRIVER)


def test_gke_taint_effects_are_the_sdks() -> None:
    effects = documented(pulumi_gcp.container.ClusterNodeConfigTaintArgs.effect)
    assert set(gke_facts.TAINT_EFFECTS.values()) == effects
    assert gke_facts.FACTS.taint_effects[DEFAULT_GPU_TAINT.effect] in effects


def test_gke_rendered_accelerator_settings_are_sdk_values() -> None:
    shared = gke.guest_accelerator(spec("gcp", instance_type="g2-standard-8", mps={"replicas": 4}))
    assert (
        shared["gpu_sharing_config"]["gpu_sharing_strategy"],
        shared["gpu_driver_installation_config"]["gpu_driver_version"],
    ) == ("MPS", "DEFAULT")
    assert shared["gpu_sharing_config"]["gpu_sharing_strategy"] in documented(GPU_SHARING)
    assert shared["gpu_driver_installation_config"]["gpu_driver_version"] in documented(GPU_DRIVER)
