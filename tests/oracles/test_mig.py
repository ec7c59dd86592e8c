"""NVIDIA's MIG code judges every MIG profile, MIG resource name and mig-parted config the project has or renders
(``nvcheck``, oracles/nvidia; versions in oracles/pins.toml).

- go-nvlib's profile grammar (pkg/nvlib/device/mig_profile.go) on every catalog profile; where go-nvml ships a mock
  of the GPU (pkg/nvml/mock/gpus: A100 40/80GB, A30, H100 80GB, H200, B200) the name must also be one that GPU
  offers, spelled as NVML names it (``ParseMigProfile`` over the mock's GPU instance profiles).
- Every ``nvidia.com/mig-...`` resource name in a plan: profile grammar, the device plugin's naming rule
  (internal/rm/rm.go ``AddDefaultResourcesToConfig``) and Kubernetes' qualified-name rule.
- Every mig-parted config file rendered: parsed as ``nvidia-mig-parted`` parses ``-f`` (api/spec/v1 spec.go), each
  config name a valid value of label ``nvidia.com/mig.config`` (apimachinery ``IsValidLabelValue``); every
  ``nvidia.com/mig.config`` label value in the plan names one of them; and, on each variant whose GPU go-nvml
  mocks, every MIG-enabled config applied to a mock GPU with mig-parted's mode and config managers and asserted
  (what ``nvidia-mig-parted apply`` then ``assert`` do); on the A100-40GB also against mig-parted's table of
  valid layouts (pkg/mig/config/known_configs.go).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from gpu_components import catalog
from tests.oracles.conftest import Report
from tests.oracles.nvidia import batch, label_maps, mig_parted_configs, mig_resource_names, nvcheck
from tests.oracles.plans import example_plans, variant_of, variant_plans

MOCK_GPUS = {
    "A100-40GB": "A100-SXM4-40GB",
    "A100-80GB": "A100-SXM4-80GB",
    "A30-24GB": "A30-PCIE-24GB",
    "H100-80GB": "H100-SXM5-80GB",
}
"""Catalog GPU model -> the go-nvml mock GPU of that model. go-nvml v0.13.4-1 also mocks the H200 and B200, but
their MIG tables are not the GPUs': the H200 mock offers 1g.35gb+me and 3g.88gb/4g.88gb and no 1g.18gb, the B200
mock no 1g.23gb, where NVIDIA's MIG User Guide and the GPU Operator's own default mig-parted config
(assets/state-mig-manager/0400_configmap.yaml, device ids 0x2335, 0x2901) have 1g.18gb(+me), 3g.71gb, 4g.71gb and
1g.23gb(+me); those two are checked by the grammar only."""

MIG_CONFIG_LABEL = "nvidia.com/mig.config"


def _failures(requests: list[dict[str, Any]], answers: list[dict[str, Any]]) -> list[str]:
    return [f"{req['id']}: {ans.get('error')}" for req, ans in zip(requests, answers, strict=True) if not ans["ok"]]


def _all_plans() -> dict[str, dict[str, Any]]:
    return {**example_plans(), **variant_plans()}


def test_every_catalog_profile_parses(oracle_report: Report) -> None:
    requests: list[dict[str, Any]] = []
    for model in catalog.gpu_models():
        for profile in model.mig_profiles:
            requests.append({"id": f"{model.name} {profile}", "check": "mig-profile", "profile": profile})
            if model.name in MOCK_GPUS:
                gpu = MOCK_GPUS[model.name]
                requests.append(
                    {"id": f"{model.name} {profile} on mock", "check": "mig-profile", "profile": profile, "gpu": gpu}
                )
    answers = batch(nvcheck(), requests)
    failures = _failures(requests, answers)
    # NVML's spelling of each profile (the canonical name) is the catalog's.
    failures += [
        f"{req['id']}: NVML names it {ans['name']}"
        for req, ans in zip(requests, answers, strict=True)
        if ans["ok"] and ans["name"] != req["profile"]
    ]
    oracle_report("go-nvlib", len(requests), len(failures))
    assert len(requests) > 100
    assert failures == []


def test_every_rendered_mig_resource_name(oracle_report: Report) -> None:
    requests: list[dict[str, Any]] = []
    for name, plan in _all_plans().items():
        gpu = MOCK_GPUS.get(variant_of(name).gpu_model) if name not in example_plans() else None
        for resource in sorted(mig_resource_names(plan)):
            request = {"id": f"{name} {resource}", "check": "mig-resource", "resource": resource}
            requests.append({**request, "gpu": gpu} if gpu else request)
    answers = batch(nvcheck(), requests)
    failures = _failures(requests, answers)
    oracle_report("go-nvlib", len(requests), len(failures))
    assert len(requests) > 20
    assert failures == []


def _mig_configs() -> list[tuple[str, str, str]]:
    return [(name, where, text) for name, plan in _all_plans().items() for where, text in mig_parted_configs(plan)]


def test_every_rendered_mig_parted_config(oracle_report: Report) -> None:
    configs = _mig_configs()
    requests = [{"id": f"{name}: {where}", "check": "mig-parted", "config": text} for name, where, text in configs]
    answers = batch(nvcheck(), requests)
    failures = _failures(requests, answers)
    names_by_plan: dict[str, set[str]] = {}
    for (plan, _, _), answer in zip(configs, answers, strict=True):
        names_by_plan.setdefault(plan, set()).update(answer.get("names") or [])
    for plan_name, plan in _all_plans().items():
        for labels in label_maps([r["inputs"] for r in plan["resources"]]):
            value = labels.get(MIG_CONFIG_LABEL)
            if value is not None and value not in names_by_plan.get(plan_name, set()):
                failures.append(f"{plan_name}: label {MIG_CONFIG_LABEL}={value} names no mig-parted config")
    oracle_report("mig-parted", len(requests), len(failures))
    assert len(requests) > 150
    assert failures == []


def test_every_variant_mig_layout_applies_on_a_mock_gpu(oracle_report: Report) -> None:
    requests: list[dict[str, Any]] = []
    for name, plan in variant_plans().items():
        gpu = MOCK_GPUS.get(variant_of(name).gpu_model)
        if gpu is None:
            continue
        for where, text in mig_parted_configs(plan):
            for config, entries in (yaml.safe_load(text).get("mig-configs") or {}).items():
                if any(entry.get("mig-enabled") for entry in entries):
                    requests.append(
                        {
                            "id": f"{name}: {where} {config}",
                            "check": "mig-apply",
                            "config": text,
                            "selected": config,
                            "gpu": gpu,
                        }
                    )
    answers = batch(nvcheck(), requests)
    failures = _failures(requests, answers)
    oracle_report("mig-parted", len(requests), len(failures))
    assert len(requests) > 90
    assert failures == []


def _instance_models() -> dict[str, str]:
    return {
        t.name: t.gpu_model for cloud in ("aws", "azure", "gcp") for t in catalog.instance_types(cloud) if t.gpu_model
    }


def _example_pool_models(plan: dict[str, Any]) -> dict[str, set[str]]:
    """mig.config label value -> GPU models of the resources (node pools, NodePools) that carry it: the catalog
    instance types named anywhere in such a resource's inputs."""
    models = _instance_models()
    out: dict[str, set[str]] = {}
    for resource in plan["resources"]:
        values = {labels[MIG_CONFIG_LABEL] for labels in label_maps(resource["inputs"]) if MIG_CONFIG_LABEL in labels}
        if not values:
            continue
        text = json.dumps(resource["inputs"])
        found = {model for name, model in models.items() if f'"{name}"' in text}
        for value in values:
            out.setdefault(value, set()).update(found)
    return out


def test_every_example_mig_layout_applies_on_a_mock_gpu(oracle_report: Report) -> None:
    """The example stacks' layouts, on the mock of the GPU of each pool that selects them (pools whose GPU go-nvml
    does not mock are left out and counted)."""
    requests: list[dict[str, Any]] = []
    unmocked: set[str] = set()
    for name, plan in example_plans().items():
        models = _example_pool_models(plan)
        for where, text in mig_parted_configs(plan):
            for config, entries in (yaml.safe_load(text).get("mig-configs") or {}).items():
                if not any(entry.get("mig-enabled") for entry in entries):
                    continue
                assert models.get(config), f"{name}: no pool with a known GPU selects mig-config {config}"
                for model in sorted(models[config]):
                    if model not in MOCK_GPUS:
                        unmocked.add(f"{model} ({name} {config})")
                        continue
                    request = {"check": "mig-apply", "config": text, "selected": config, "gpu": MOCK_GPUS[model]}
                    requests.append({"id": f"{name}: {where} {config} on {model}", **request})
    answers = batch(nvcheck(), requests)
    failures = _failures(requests, answers)
    oracle_report("mig-parted", len(requests), len(failures))
    assert len(requests) >= 3, sorted(unmocked)
    assert failures == []


# --- the oracle can fail -----------------------------------------------------------------------------------------


LAYOUT = (
    "version: v1\nmig-configs:\n  {name}:\n  - devices: all\n    mig-enabled: {enabled}\n"
    "    mig-devices:\n      {devices}\n"
)


def _one(request: dict[str, Any]) -> dict[str, Any]:
    return batch(nvcheck(), [{"id": "negative", **request}])[0]


def test_an_invalid_profile_is_refused() -> None:
    answer = _one({"check": "mig-profile", "profile": "1g.10g"})
    assert answer["error"] == "cannot parse fields of '1g.10g': missing 'gb' from '%dgb'"


def test_a_profile_the_gpu_does_not_offer_is_refused() -> None:
    answer = _one({"check": "mig-profile", "profile": "1g.5gb", "gpu": "H100-SXM5-80GB"})
    assert answer["error"] == '"1g.5gb" on H100-SXM5-80GB: unable to parse profile string into a valid profile'


def test_a_config_name_that_is_no_label_value_is_refused() -> None:
    text = LAYOUT.format(name="all-1g.10gb+me", enabled="true", devices="1g.10gb+me: 1")
    answer = _one({"check": "mig-parted", "config": text})
    assert answer["error"].startswith(
        'mig-config "all-1g.10gb+me" is not a valid value of label nvidia.com/mig.config: a valid label must be'
    )


def test_mig_devices_when_disabled_are_refused() -> None:
    text = LAYOUT.format(name="x", enabled="false", devices="1g.10gb: 1")
    answer = _one({"check": "mig-parted", "config": text})
    assert answer["error"].endswith("MIG devices included when 'mig-enabled' is false")


def test_a_layout_too_big_for_the_gpu_is_refused() -> None:
    text = (
        "version: v1\nmig-configs:\n  x:\n  - devices: all\n    mig-enabled: true\n    mig-devices:\n      3g.20gb: 3\n"
    )
    answer = _one({"check": "mig-apply", "config": text, "selected": "x", "gpu": "A100-SXM4-40GB"})
    assert answer["error"] == (
        "mig-devices map[3g.20gb:3] on A100-SXM4-40GB: cannot configure as a subset of any valid configuration"
    )
