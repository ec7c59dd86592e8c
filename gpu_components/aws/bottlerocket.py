"""Bottlerocket NVIDIA: GPU sharing through the host device plugin's settings (pure).

Bottlerocket's NVIDIA variants run the NVIDIA device plugin on the host (systemd service
``nvidia-k8s-device-plugin``), configured by ``settings.kubelet-device-plugins.nvidia.*`` in TOML user data
(https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/). So no device plugin DaemonSet
may run on these nodes, and sharing is rendered here instead of into the DaemonSet's ConfigMap.

What Bottlerocket supports (same source): time-slicing (from 1.25.0), MIG with a uniform profile per GPU model
and the ``single`` strategy only (from 1.34.0; bottlerocket-os/bottlerocket#4483), MPS with 2-48 replicas
(from 1.54.0), and not MIG together with a sharing strategy.

``mig.profile`` maps a GPU model key (``a100.40gb``) to a plain ``<compute>g.<memory>gb`` profile (``2g.10gb``) or
a number of partitions; neither Bottlerocket's settings reference (:data:`SOURCE_BOTTLEROCKET`, "NVIDIA Multi-Instance
GPU (MIG)") nor the EKS user guide's Bottlerocket MIG section
(https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-mig.html, "Use MIG on Bottlerocket nodes
with the NVIDIA device plugin") documents a profile with an engine attribute (``+me``, ``+me.all``, ``+gfx``, ``-me``;
:mod:`gpu_components.mig`), so :func:`bottlerocket_problems` refuses one. Bottlerocket's MIG manager reads the value
against a fixed list of plain profiles per GPU model whose whole-GPU entry takes every other value
(``#[serde(other)]``: ``1g.5gb+me`` on an A100 40GB would become ``7g.40gb``, whole GPUs instead of partitions;
``sources/nvidia-migmanager/src/mig_profile.rs``, read in the copy at vyaghras/bottlerocket-kernel-kit a8c5da1, as
the index holds no current upstream copy).

:mod:`gpu_components.aws.user_data` reads back what user data sets (the policy pack's shared-GPU rule, the plan's
diff).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import tomli_w

from gpu_components.aws.user_data import SHARING_STRATEGIES as SHARING_STRATEGIES  # re-exported: their old home
from gpu_components.aws.user_data import decode_user_data as decode_user_data
from gpu_components.aws.user_data import sharing_settings as sharing_settings
from gpu_components.errors import Problem
from gpu_components.mig import MIG_PROFILE_ATTRIBUTES, parse_mig_profile_name
from gpu_components.spec import GpuNodePoolSpec, Mps, TimeSlicing, sharing_trust_labels

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - Python 3.10
    pass

SOURCE_BOTTLEROCKET = "https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/"
SOURCE_VOLUMES = "https://github.com/bottlerocket-os/bottlerocket#default-volumes"

DATA_VOLUME_DEVICE = "/dev/xvdb"
"""Device of Bottlerocket's data volume on EC2, which holds container images and orchestrator state (the root
device, ``/dev/xvda``, holds only the OS partitions): the volume a node disk size is for. Sources:
:data:`SOURCE_VOLUMES` ("Default volumes": the data partition grows to fill the data device at boot), and the
Bottlerocket AMIs' two block device mappings, ``/dev/xvda`` and ``/dev/xvdb``
(https://github.com/cloudposse/terraform-aws-eks-node-group/issues/74)."""

MIG_PROFILE_KEYS: Mapping[str, str] = MappingProxyType(
    {
        "A100-40GB": "a100.40gb",
        "A100-80GB": "a100.80gb",
        "H100-80GB": "h100.80gb",
        "H200-141GB": "h200.141gb",
    }
)
"""Catalog GPU model -> the key Bottlerocket's ``mig.profile`` map uses for it (the GPU models it documents)."""


def bottlerocket_problems(spec: GpuNodePoolSpec, path: str) -> list[Problem]:
    """What a Bottlerocket NVIDIA node cannot do for ``spec``: MIG on a GPU model it does not document (then the
    only problem, echoing the ``mig`` block as written), mixed MIG, MIG layouts, MIG with sharing, a MIG profile
    with an engine attribute (``+me``, ``+me.all``, ``+gfx``, ``-me``; module docstring). Each problem's path is
    under ``<path>.mig``."""
    problems: list[Problem] = []
    mig = spec.mig
    if mig is None:
        return problems
    where = f"{path}.mig" if path else "mig"
    if spec.gpu.name not in MIG_PROFILE_KEYS:
        # the one problem: whatever the profile, strategy or layout, Bottlerocket does not partition this GPU
        return [
            Problem(
                where,
                mig.as_given,
                f"Bottlerocket documents MIG profiles only for some GPU models, and {spec.instance_type}'s "
                f"{spec.gpu.name} is not one of them",
                f"an instance type with one of {', '.join(MIG_PROFILE_KEYS)}, or an AL2023 NVIDIA AMI type with "
                "gpu_stack gpu-operator (NVIDIA's MIG manager makes every profile of the GPU)",
                SOURCE_BOTTLEROCKET,
            )
        ]
    if mig.strategy != "single":
        problems.append(
            Problem(
                f"{where}.strategy",
                mig.strategy,
                "Bottlerocket supports only the single MIG strategy",
                "single",
                SOURCE_BOTTLEROCKET,
            )
        )
    if mig.profile is None:
        problems.append(
            Problem(
                f"{where}.layout",
                dict(mig.devices),
                "Bottlerocket applies one MIG profile per GPU model, not a layout of several",
                "mig.profile",
                SOURCE_BOTTLEROCKET,
            )
        )
    if spec.sharing is not None:
        problems.append(
            Problem(
                where,
                "mig with sharing",
                "Bottlerocket does not combine MIG partitioning with a sharing strategy",
                "mig alone, or time_slicing / mps without mig",
                SOURCE_BOTTLEROCKET,
            )
        )
    parsed = parse_mig_profile_name(mig.profile) if mig.profile is not None else None
    if parsed is not None and parsed.attribute:
        problems.append(
            Problem(
                f"{where}.profile",
                mig.profile,
                "Bottlerocket's mig.profile takes a plain <compute>g.<memory>gb profile per GPU model and documents no "
                f"engine attribute ({', '.join(MIG_PROFILE_ATTRIBUTES)}); its MIG manager turns a profile it does "
                "not know into the whole-GPU profile",
                f"{parsed.compute_slices}g.{parsed.memory_gb}gb, or an AL2023 NVIDIA AMI type with gpu_stack "
                "gpu-operator (NVIDIA's MIG manager makes every profile of the GPU)",
                SOURCE_BOTTLEROCKET,
            )
        )
    return problems


def device_plugin_settings(spec: GpuNodePoolSpec) -> dict[str, Any]:
    """The ``settings.kubelet-device-plugins.nvidia`` table for ``spec`` (call after :func:`bottlerocket_problems`).

    Every value Bottlerocket would otherwise default is set explicitly, so nodes advertise exactly what
    :func:`gpu_components.nvidia.device_plugin.advertised_resources` says (Bottlerocket's own defaults rename
    shared GPUs to ``nvidia.com/gpu.shared``).
    """
    nvidia: dict[str, Any] = {}
    sharing = spec.sharing
    if isinstance(sharing, TimeSlicing):
        nvidia["device-sharing-strategy"] = "time-slicing"
        nvidia["time-slicing"] = {
            "replicas": sharing.replicas,
            "rename-by-default": sharing.rename_by_default,
            "fail-requests-greater-than-one": sharing.fail_requests_greater_than_one,
        }
    elif isinstance(sharing, Mps):
        nvidia["device-sharing-strategy"] = "mps"
        nvidia["mps"] = {"replicas": sharing.replicas, "rename-by-default": False}
    else:
        nvidia["device-sharing-strategy"] = "none"
    if spec.mig is not None and spec.mig.profile is not None:
        nvidia["device-partitioning-strategy"] = "mig"
        nvidia["mig"] = {"profile": {MIG_PROFILE_KEYS[spec.gpu.name]: spec.mig.profile}}
    return {"settings": {"kubelet-device-plugins": {"nvidia": nvidia}}}


def block_devices(spec: GpuNodePoolSpec) -> list[dict[str, Any]]:
    """The launch template's block device mappings: the data volume (:data:`DATA_VOLUME_DEVICE`) sized to the
    pool's ``disk_size_gb`` (GiB); the AMI's other settings of the volume (type, encryption) are kept."""
    return [{"device_name": DATA_VOLUME_DEVICE, "ebs": {"volume_size": spec.disk_size_gb}}]


def user_data(spec: GpuNodePoolSpec) -> str:
    """Bottlerocket TOML user data carrying the device plugin settings and, for a pool whose sharing is declared
    trusted, the node label ``gpu-components/sharing: trusted`` (``settings.kubernetes.node-labels``, which the
    policy rule reads from the launch template); EKS merges it with its own settings."""
    document = device_plugin_settings(spec)
    trust = sharing_trust_labels(spec)
    if trust:
        document["settings"]["kubernetes"] = {"node-labels": trust}
    return tomli_w.dumps(document)
