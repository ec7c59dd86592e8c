"""What a pod may ask of a GPU pool, whichever way it asks (extended resources or DRA claims): GPU quantities,
the shape of a GPU selection by model and memory, the GPU model and count of each instance type a pool allows, and
the tolerations of its taints.

The rules both the device-plugin helpers (:mod:`gpu_components.workloads`) and the DRA claim helpers
(:mod:`gpu_components.claims`) build on, below both of them (design notes, "Layers").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from gpu_components import catalog
from gpu_components.errors import Problem
from gpu_components.labels import Toleration
from gpu_components.nvidia.device_plugin import toleration
from gpu_components.spec import GpuNodePoolSpec, Taint

SOURCE_SCHEDULE_GPUS = "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/"
"""Kubernetes' rules for GPU quantities (integers, in limits, requests equal to limits)."""
_WHOLE_NUMBER = re.compile(r"^[+-]?[0-9]+$")
_VALID_QUANTITY = 'a whole number of at least 1, e.g. 1 or "1"'


def parse_gpu_quantity(value: object, path: str, *, integral_floats: bool = False) -> tuple[int | None, list[Problem]]:
    """Parse one GPU quantity: an ``int`` or a string of decimal digits, at least 1.

    Args:
        value: the quantity as given.
        path: where it sits, for the problem.
        integral_floats: accept floats with a whole value (``2.0``), and show one in a problem as the integer the
            user wrote (``0``, not ``0.0``). Only for values that went through a protobuf ``Struct`` (the Pulumi
            engine hands a policy pack every number as a double); callers writing Python must never need it.

    Returns:
        ``(count, [])`` for a valid quantity, ``(None, [problem])`` otherwise.
    """
    found = _count_or_reason(value, integral_floats)
    if isinstance(found, int) and found >= 1:
        return found, []
    if isinstance(found, int):
        found = "zero GPUs: leave the GPU resource out instead" if found == 0 else "a GPU count cannot be negative"
    return None, [Problem(path, as_written(value, integral_floats), found, _VALID_QUANTITY, SOURCE_SCHEDULE_GPUS)]


def _count_or_reason(value: object, integral_floats: bool) -> int | str:
    """The count a GPU quantity says (any integer, checked for at least 1 by :func:`parse_gpu_quantity`), or why it
    is not a count."""
    if isinstance(value, bool):
        return "a boolean is not a GPU count"
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not value.is_integer():
            return "GPUs cannot be split into fractions; a GPU quantity is a whole number"
        return int(value) if integral_floats else f"a float is not a GPU count, even a whole one; write {int(value)}"
    if isinstance(value, str):
        return (
            int(value)
            if _WHOLE_NUMBER.fullmatch(value)
            else "not a whole number of GPUs (no fractions, units or exponents)"
        )
    return f"a GPU quantity is a whole number, not a {type(value).__name__}"


def as_written(value: object, integral_floats: bool) -> object:
    """``value`` as the user wrote it: with ``integral_floats`` (numbers that went through a protobuf ``Struct``), a
    whole-valued double is the integer the manifest had (``0``, not the engine's ``0.0``)."""
    if integral_floats and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def tolerations(taints: Sequence[Taint]) -> list[Toleration]:
    """One toleration per taint (``Equal`` with its value, ``Exists`` when it has none), each once, in order."""
    result: list[Toleration] = []
    for taint in taints:
        item = cast(Toleration, toleration(taint))
        if item not in result:
            result.append(item)
    return result


def allowed_gpus(spec: GpuNodePoolSpec) -> dict[str, tuple[catalog.GpuModel, int]]:
    """GPU model and GPUs per node of each instance type the pool allows (a provisioned pool's allowed types, the
    first with the pool's own hardware, which may be outside the catalog; a fixed pool's one type)."""
    result = {spec.instance_type: (spec.gpu, spec.gpu_count)}
    for name in spec.provisioning.allowed_types[1:] if spec.provisioning is not None else ():
        found = catalog.instance_type(spec.cloud, name)
        assert found.gpu_model is not None  # a provisioned pool allows catalog NVIDIA types only (_allowed_types)
        result[name] = (catalog.gpu_model(found.gpu_model), found.gpu_count)
    return result


def gpu_selection_problems(gpu_model: object, min_gpu_memory_gb: object) -> list[Problem]:
    """The shape of a GPU selection by model and memory floor (each ``None`` for any): ``gpu_model`` a string,
    ``min_gpu_memory_gb`` a whole number of GB, at least 1; a problem at each field that is not."""
    problems: list[Problem] = []
    if gpu_model is not None and not isinstance(gpu_model, str):
        problems.append(Problem("gpu_model", gpu_model, "must be a GPU model name (a string) or None"))
    if min_gpu_memory_gb is not None and (
        isinstance(min_gpu_memory_gb, bool) or not isinstance(min_gpu_memory_gb, int) or min_gpu_memory_gb < 1
    ):
        problems.append(Problem("min_gpu_memory_gb", min_gpu_memory_gb, "must be a whole number of GB, at least 1"))
    return problems
