"""NVIDIA's device plugin and MPS control daemon (github.com/NVIDIA/k8s-device-plugin, oracles/pins.toml) start on
every device-plugin config the project renders, with the environment the chart or the GPU Operator gives them.

The plugin parses the config file (api/config/v1/config.go ``parseConfigFrom``; replicas.go refuses fewer than 2
replicas; sharing.go) and merges the flags, whose environment overrides the file (flags.go
``UpdateFromCLIFlags``), then checks them (cmd/nvidia-device-plugin/main.go ``validateFlags``: MPS with
``--mig-strategy=mixed``, MPS root, strategies, CDI). What it prints it runs with is compared to what the config
file asked for, so a flag the environment silently overrides is caught too.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
import yaml

from tests.oracles.conftest import Report
from tests.oracles.nvidia import PluginConfig, label_maps, plugin_configs, run_many, run_plugin
from tests.oracles.plans import example_plans, variant_plans

MPS_CAPABLE = "nvidia.com/mps.capable"
CONFIG_LABEL = "nvidia.com/device-plugin.config"


def _all_configs() -> list[PluginConfig]:
    configs: list[PluginConfig] = []
    for plans in (example_plans(), variant_plans()):
        for name, plan in plans.items():
            configs.extend(plugin_configs(name, plan))
    return configs


def _where(config: PluginConfig) -> str:
    return f"{config.plan}: {config.source} [{config.entry}]"


def _problems(configs: Iterable[PluginConfig], program: str) -> list[str]:
    configs = list(configs)
    env_of = (lambda c: c.env) if program == "nvidia-device-plugin" else (lambda c: c.mps_env)
    runs = run_many([(program, c.text, env_of(c)) for c in configs])
    problems: list[str] = []
    for config, run in zip(configs, runs, strict=True):
        if not run.accepted:
            problems.append(f"{_where(config)}: {run.error}")
            continue
        asked = (config.parsed.get("flags") or {}).get("migStrategy")
        ran = ((run.running or {}).get("flags") or {}).get("migStrategy")
        if run.running is not None and asked is not None and ran != asked:
            problems.append(f"{_where(config)}: the file asks migStrategy {asked}, the plugin runs with {ran}")
    return problems


def test_every_rendered_config_starts_the_device_plugin(oracle_report: Report) -> None:
    """Also ConfigMaps of plugin configs no release reads (the GPU Operator's, where DRA advertises the GPUs and
    the operator's plugin is off) are started, with the chart's defaults."""
    configs = _all_configs()
    problems = _problems(configs, "nvidia-device-plugin")
    oracle_report("device-plugin", len(configs), len(problems))
    assert len(configs) > 900
    assert {c.chart for c in configs} == {"nvidia-device-plugin", "gpu-operator", ""}
    assert problems == []


def test_every_mps_config_starts_the_mps_control_daemon(oracle_report: Report) -> None:
    configs = [c for c in _all_configs() if "mps" in (c.parsed.get("sharing") or {})]
    problems = _problems(configs, "mps-control-daemon")
    oracle_report("mps-control-daemon", len(configs), len(problems))
    assert len(configs) > 20
    assert problems == []


def test_the_mps_control_daemon_can_schedule_where_mps_is_configured() -> None:
    """The chart's MPS daemonset selects ``nvidia.com/mps.capable: "true"`` (templates/
    daemonset-mps-control-daemon.yml); without GPU feature discovery (chart ``gfd.enabled``, off by default) no one
    else sets it, so every node label set that selects an MPS config must carry it."""
    missing: list[str] = []
    checked = 0
    for plans in (example_plans(), variant_plans()):
        for name, plan in plans.items():
            mps_entries = {
                c.entry
                for c in plugin_configs(name, plan)
                if c.chart == "nvidia-device-plugin" and "mps" in (c.parsed.get("sharing") or {})
            }
            if not mps_entries:
                continue
            selected: set[str] = set()
            for labels in label_maps([r["inputs"] for r in plan["resources"]]):
                if labels.get(CONFIG_LABEL) in mps_entries:
                    selected.add(labels[CONFIG_LABEL])
                    if labels.get(MPS_CAPABLE) != "true":
                        missing.append(f"{name}: labels {labels}")
            missing += [f"{name}: no node labels select MPS entry {entry}" for entry in mps_entries - selected]
            checked += len(mps_entries)
    assert checked > 20
    assert missing == []


# --- the oracle can fail: configs the real programs refuse --------------------------------------------------------


def _a_config(predicate: str) -> PluginConfig:
    for config in _all_configs():
        sharing = config.parsed.get("sharing") or {}
        if predicate in sharing and config.chart == "nvidia-device-plugin":
            return config
    raise AssertionError(f"no rendered config with sharing.{predicate}")


def test_one_replica_is_refused() -> None:
    config = _a_config("timeSlicing")
    data = config.parsed
    data["sharing"]["timeSlicing"]["resources"][0]["replicas"] = 1
    run = run_plugin("nvidia-device-plugin", yaml.safe_dump(data), config.env)
    assert not run.accepted
    assert run.error.startswith("unable to load config: unable to finalize config: unable to parse config file")
    assert run.error.endswith("number of replicas must be >= 2")


def test_mps_with_the_mixed_strategy_is_refused() -> None:
    config = _a_config("mps")
    run = run_plugin("nvidia-device-plugin", config.text, {**config.env, "MIG_STRATEGY": "mixed"})
    assert (run.accepted, run.error) == (
        False,
        "unable to validate flags: using --mig-strategy=mixed is not supported with MPS",
    )


def test_an_unknown_version_is_refused() -> None:
    run = run_plugin("nvidia-device-plugin", "version: v2\n", {"MPS_ROOT": "/run/nvidia/mps"})
    assert run.error == (
        "unable to load config: unable to finalize config: unable to parse config file: "
        "error parsing config file: unknown version: v2"
    )


@pytest.mark.parametrize("program", ["nvidia-device-plugin", "mps-control-daemon"])
def test_a_valid_config_reaches_nvml(program: str) -> None:
    text = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
    run = run_plugin(program, text, {"MPS_ROOT": "/run/nvidia/mps"})
    assert run.accepted and run.error == ""
    assert run.running is not None
    assert run.running["sharing"]["mps"]["failRequestsGreaterThanOne"] is True
