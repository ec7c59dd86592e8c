"""The NVIDIA DRA driver (sigs.k8s.io/dra-driver-nvidia-gpu, oracles/pins.toml) judges every opaque claim config
the project renders or its claim helpers make (``dracheck``, oracles/nvidia-dra): decoded with the driver's
StrictDecoder, one of the kinds its webhook accepts, normalized and validated by its own code
(api/nvidia.com/resource/v1beta1), under the feature gates the plan's DRA chart values give the driver
(``featureGates`` -> FEATURE_GATES; for helper claims, the gates the helper was told are on).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

import pytest

from gpu_components import catalog, claims, dra
from gpu_components.adapter import PoolView
from gpu_components.errors import GpuSpecError
from gpu_components.labels import POOL_LABEL
from gpu_components.spec import GpuNodePoolSpec
from tests.oracles.conftest import Report
from tests.oracles.nvidia import batch, claim_opaque_configs, dra_feature_gates, dracheck, opaque_configs
from tests.oracles.plans import example_plans, variant_plans


def _check(by_gates: dict[str, list[tuple[str, dict[str, Any]]]]) -> tuple[int, list[str]]:
    checked, failures = 0, []
    for gates, items in sorted(by_gates.items()):
        requests = [{"id": where, "parameters": parameters} for where, parameters in items]
        answers = batch(dracheck(), requests, ["--feature-gates", gates])
        checked += len(requests)
        failures += [
            f"{r['id']} [{gates}]: {a['error']}" for r, a in zip(requests, answers, strict=True) if not a["ok"]
        ]
    return checked, failures


GATE_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("TimeSlicingSettings",),
    ("MPSSupport",),
    ("MPSSupport", "TimeSlicingSettings"),
)


def test_every_claim_config_in_the_plans(oracle_report: Report) -> None:
    """Today the plans' claims (the example DRA stacks' vector-add templates) carry no opaque config: under DRA,
    sharing belongs to the claim helpers (below), and variants with pool sharing under DRA are refused. The plans'
    claim templates are counted so that a plan losing them shows."""
    templates = sum(
        1
        for plans in (example_plans(), variant_plans())
        for plan in plans.values()
        for r in plan["resources"]
        if r["type"].endswith((":ResourceClaimTemplate", ":ResourceClaim"))
    )
    assert templates > 50
    by_gates: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for plans in (example_plans(), variant_plans()):
        for name, plan in plans.items():
            for where, parameters in opaque_configs(plan):
                by_gates.setdefault(dra_feature_gates(plan), []).append((f"{name}: {where}", parameters))
    checked, failures = _check(by_gates)
    oracle_report("dra-driver", checked, len(failures))
    assert failures == []


def _view(args: dict[str, Any]) -> PoolView:
    """A DRA pool's view (as tests/test_claims.py builds one): no extended resources, the DRA driver advertises."""
    spec = GpuNodePoolSpec.from_args(args, "aws")
    return PoolView(
        spec=spec,
        device_plugin_host="dra-driver",
        labels={POOL_LABEL: spec.name},
        taints=spec.taints,
        advertised_resources={},
        node_selector={POOL_LABEL: spec.name},
        autoscaler_note=None,
        tolerations=[],
        driver_setting="AL2023_x86_64_NVIDIA",
    )


def _pools() -> list[tuple[PoolView, str | None]]:
    """(pool, MIG profile) for every GPU model the catalog offers on AWS: whole GPUs, and each MIG profile."""
    out: list[tuple[PoolView, str | None]] = []
    for model in catalog.gpu_models():
        types = [t for t in catalog.instance_types("aws") if t.gpu_model == model.name]
        if not types:
            continue
        instance = min(types, key=lambda t: (t.gpu_count, t.name)).name
        out.append((_view({"name": "whole", "instance_type": instance, "max_size": 2}), None))
        for profile in model.mig_profiles:
            pool = {"name": "mig", "instance_type": instance, "max_size": 2, "mig": {"profile": profile}}
            out.append((_view(pool), profile))
    return out


def _helper_claims() -> list[tuple[str, str, dict[str, Any]]]:
    """(where, FEATURE_GATES, manifest) of the claims the helpers make over a generated set of arguments; calls the
    helpers refuse (their own rules) make nothing."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for (pool, profile), gates in product(_pools(), GATE_SETS):
        value = "".join(f"{g}=true," for g in sorted(gates))
        where = f"{pool.spec.instance_type} {profile or 'whole'} gates={value or '-'}"
        calls: list[tuple[str, Callable[[], dict[str, Any]]]] = []
        if profile is None:
            calls.append(("gpu_claim_template", lambda pool=pool: claims.gpu_claim_template(pool, "c")))
        else:
            calls.append(("mig_claim_template", lambda pool=pool, p=profile: claims.mig_claim_template(pool, "c", p)))
        for interval in (None, *dra.TIME_SLICE_INTERVALS):
            calls.append(
                (
                    f"shared_gpu_claim({interval})",
                    lambda pool=pool, i=interval, p=profile, g=gates: claims.shared_gpu_claim(
                        pool, "c", time_slice_interval=i, mig_profile=p, feature_gates=list(g)
                    ),
                )
            )
        for percent, limit in ((None, None), (50, None), (100, "1Gi"), (0, "512Mi")):
            calls.append(
                (
                    f"mps_claim_template({percent}, {limit})",
                    lambda pool=pool, p=profile, g=gates, pc=percent, lm=limit: claims.mps_claim_template(
                        pool,
                        "c",
                        feature_gates=list(g),
                        mig_profile=p,
                        default_active_thread_percentage=pc,
                        default_pinned_device_memory_limit=lm,
                    ),
                )
            )
        for name, call in calls:
            try:
                manifest = call()
            except GpuSpecError:
                continue
            out.append((f"{where} {name}", value, manifest))
    return out


def test_every_claim_config_from_the_helpers(oracle_report: Report) -> None:
    by_gates: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for where, gates, manifest in _helper_claims():
        for parameters in claim_opaque_configs(manifest):
            by_gates.setdefault(gates, []).append((where, parameters))
    checked, failures = _check(by_gates)
    oracle_report("dra-driver", checked, len(failures))
    assert checked > 500
    assert failures == []


# --- the oracle can fail -----------------------------------------------------------------------------------------


def _one(parameters: dict[str, Any], gates: str = "") -> dict[str, Any]:
    return batch(dracheck(), [{"id": "negative", "parameters": parameters}], ["--feature-gates", gates])[0]


API = "resource.nvidia.com/v1beta1"


def test_an_unknown_kind_is_refused() -> None:
    answer = _one({"apiVersion": API, "kind": "GpuSharingConfig"})
    assert answer["error"] == (
        'error decoding object: no kind "GpuSharingConfig" is registered for version "resource.nvidia.com/v1beta1" '
        'in scheme "pkg/runtime/scheme.go:111"'
    )


def test_an_unknown_field_is_refused() -> None:
    answer = _one(
        {"apiVersion": API, "kind": "GpuConfig", "sharing": {"strategy": "MPS", "replicas": 2}}, "MPSSupport=true,"
    )
    assert answer["error"] == 'error decoding object: strict decoding error: unknown field "sharing.replicas"'


def test_time_slicing_replicas_is_refused_as_the_claim_rule_says() -> None:
    """The driver itself refuses what :func:`gpu_components.dra.unsatisfiable_claim_problems` refuses at
    ``sharing.timeSlicingConfig.replicas``: time-slicing there has only ``interval``."""
    sharing = {"strategy": "TimeSlicing", "timeSlicingConfig": {"replicas": 4}}
    parameters = {"apiVersion": API, "kind": "GpuConfig", "sharing": sharing}
    assert [p.path for p in dra.unsatisfiable_claim_problems(_devices(parameters), "d")] == [
        "d.config[0].opaque.parameters.sharing.timeSlicingConfig.replicas"
    ]
    answer = _one(parameters, "TimeSlicingSettings=true,")
    assert answer["error"] == (
        'error decoding object: strict decoding error: unknown field "sharing.timeSlicingConfig.replicas"'
    )


def _devices(parameters: dict[str, Any]) -> dict[str, Any]:
    request = {"name": "gpu", "exactly": {"deviceClassName": dra.GPU_DEVICE_CLASS}}
    return {"requests": [request], "config": [{"opaque": {"driver": dra.DRIVER_NAME, "parameters": parameters}}]}


@pytest.mark.parametrize(("strategy", "gate"), [("MPS", "MPSSupport"), ("TimeSlicing", "TimeSlicingSettings")])
def test_sharing_without_its_gate_is_refused(strategy: str, gate: str) -> None:
    answer = _one({"apiVersion": API, "kind": "GpuConfig", "sharing": {"strategy": strategy}})
    assert answer["error"] == (
        f'object is invalid: "{strategy}" is selected as the GPU sharing strategy, but the "{gate}" feature gate is '
        "not enabled"
    )
