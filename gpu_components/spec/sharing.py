"""GPU sharing without memory isolation: time-slicing and MPS (:class:`TimeSlicing`, :class:`Mps`), with the NVIDIA
device plugin's replica bounds and MPS client limits.
"""

from dataclasses import dataclass

from gpu_components.catalog import GpuModel
from gpu_components.errors import Problem
from gpu_components.spec.shapes import GpuNodePoolArgs, _join

SOURCE_SHARING = "https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#shared-access-to-gpus"
SOURCE_MPS_CLIENTS = "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/cmd/mps-control-daemon/mps/device.go"
MIN_SHARING_REPLICAS = 2
"""Fewest replicas the NVIDIA device plugin accepts for time-slicing and MPS ("number of replicas must be >= 2")."""
MPS_MAX_CLIENTS = 48
"""Most MPS replicas per GPU the device plugin's MPS daemon accepts at compute capability >= 7.5."""
MPS_MAX_CLIENTS_BELOW_7_5 = 16
"""Most MPS replicas per GPU the device plugin's MPS daemon accepts below compute capability 7.5."""


@dataclass(frozen=True, slots=True)
class TimeSlicing:
    """Validated time-slicing settings (see :class:`TimeSlicingArgs`)."""

    replicas: int
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False
    trusted: bool = False


@dataclass(frozen=True, slots=True)
class Mps:
    """Validated MPS settings (see :class:`MpsArgs`)."""

    replicas: int
    trusted: bool = False


Sharing = TimeSlicing | Mps


def mps_client_limit(gpu: GpuModel) -> int:
    """Most MPS replicas one GPU takes: 48 at compute capability >= 7.5, else 16.

    Source: the device plugin's MPS control daemon (k8s-device-plugin v0.20.0,
    ``cmd/mps-control-daemon/mps/device.go``), which is what rejects a larger value on the node.
    """
    return MPS_MAX_CLIENTS if gpu.compute_capability >= (7, 5) else MPS_MAX_CLIENTS_BELOW_7_5


def _sharing(args: GpuNodePoolArgs, gpu: GpuModel | None, path: str) -> tuple[Sharing | None, list[Problem]]:
    problems: list[Problem] = []
    time_slicing = args.get("time_slicing")
    mps = args.get("mps")
    if time_slicing is not None and mps is not None:
        problems.append(
            Problem(
                _join(path, "mps"),
                dict(mps),
                "time-slicing and MPS are mutually exclusive on a pool",
                "one of time_slicing, mps",
                SOURCE_SHARING,
            )
        )
    if mps is not None and "mig" in args:
        problems.append(
            Problem(
                _join(path, "mps"),
                dict(mps),
                "MPS cannot be combined with MIG: the device plugin skips MIG devices under MPS",
                "time_slicing with mig, or mps without mig",
                SOURCE_SHARING,
            )
        )
    if time_slicing is not None:
        replicas = time_slicing["replicas"]
        if replicas < MIN_SHARING_REPLICAS:
            problems.append(
                Problem(
                    _join(path, "time_slicing.replicas"),
                    replicas,
                    "the device plugin requires at least 2 replicas",
                    f">= {MIN_SHARING_REPLICAS}",
                    SOURCE_SHARING,
                )
            )
        sharing: Sharing = TimeSlicing(
            replicas,
            time_slicing.get("rename_by_default", False),
            time_slicing.get("fail_requests_greater_than_one", False),
            time_slicing.get("trusted", False),
        )
        return sharing, problems
    if mps is not None:
        replicas = mps["replicas"]
        limit = mps_client_limit(gpu) if gpu is not None else MPS_MAX_CLIENTS
        if not MIN_SHARING_REPLICAS <= replicas <= limit:
            cc = f"compute capability {'.'.join(map(str, gpu.compute_capability))} of {gpu.name}" if gpu else "the GPU"
            problems.append(
                Problem(
                    _join(path, "mps.replicas"),
                    replicas,
                    f"MPS replicas must be at least 2 and at most the MPS client limit of {cc}",
                    f"{MIN_SHARING_REPLICAS}..{limit}",
                    SOURCE_MPS_CLIENTS,
                )
            )
        return Mps(replicas, mps.get("trusted", False)), problems
    return None, problems
