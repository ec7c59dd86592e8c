"""NVIDIA's programs as oracles: build them (``tests.oracles.build``), run them on batches, and find in a plan what
they judge.

- The device plugin and the MPS control daemon are NVIDIA's own binaries (wrapper ``oracles/nvidia-device-plugin``)
  run once per distinct (config, environment) with the environment the chart or the GPU Operator gives their
  container. Both load the config file and validate it and their flags before touching NVML
  (``cmd/nvidia-device-plugin/main.go`` ``startPlugins``: ``loadConfig`` -> ``validateFlags`` -> "Updating config
  with default resource matching patterns." -> NVML; ``cmd/mps-control-daemon/main.go`` ``startDaemons`` alike).
  They run against a stub ``libnvidia-ml.so.1`` (a shared library with no NVML symbol) under their driver root, so
  they believe NVML is present (CDI device-list strategies demand it) and stop at the first NVML call with
  "undefined symbol: nvml...": that, after the "Updating config" line, is "config accepted"; "unable to load
  config: ..." or "unable to validate flags: ..." is the program refusing it.
- ``nvcheck`` (``oracles/nvidia``) and ``dracheck`` (``oracles/nvidia-dra``) read JSON lines and answer one JSON line
  each (see their ``main.go``).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.oracles.build import binaries

PLUGIN_PACKAGES = {
    "nvidia-device-plugin": "github.com/NVIDIA/k8s-device-plugin/cmd/nvidia-device-plugin",
    "mps-control-daemon": "github.com/NVIDIA/k8s-device-plugin/cmd/mps-control-daemon",
}

ACCEPTED_MARK = "Updating config with default resource matching patterns."
NVML_MARK = re.compile(r"undefined symbol: nvml\w+|failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND")
"""Reached NVML: the stub library's missing symbol, or (the MPS daemon opens NVML by name, not under its driver
root) no library at all."""
REFUSED = re.compile(r"error starting plugins: (unable to (?:load config|validate flags): .*)")
RUNNING = re.compile(r"Running with config:\n(\{.*?\n\})\n", re.DOTALL)


@functools.cache
def plugin_binaries() -> dict[str, Path]:
    """The device plugin and MPS control daemon, built from github.com/NVIDIA/k8s-device-plugin (cgo: NVML)."""
    return binaries("nvidia-device-plugin", PLUGIN_PACKAGES, cgo=True)


@functools.cache
def nvcheck() -> Path:
    """The MIG batch checker (go-nvlib, mig-parted, go-nvml mocks, apimachinery validation)."""
    return binaries("nvidia", {"nvcheck": "./cmd/nvcheck"}, cgo=True)["nvcheck"]


@functools.cache
def dracheck() -> Path:
    """The DRA driver's opaque config checker."""
    return binaries("nvidia-dra", {"dracheck": "./cmd/dracheck"})["dracheck"]


def batch(binary: Path, requests: Sequence[Mapping[str, Any]], args: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Run a JSON-lines checker on ``requests``; one answer per request, in order."""
    stdin = "".join(json.dumps(request) + "\n" for request in requests)
    done = subprocess.run([str(binary), *args], input=stdin, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{binary.name} {' '.join(args)} exited {done.returncode}: {done.stderr}")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests), done.stderr
    return answers


# --- the device plugin and MPS control daemon -------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One start of a plugin program: ``accepted`` (config and flags passed, NVML reached), the program's own
    ``error`` when it refused, and the config it printed it runs with (``None`` where it stopped before)."""

    accepted: bool
    error: str
    running: dict[str, Any] | None
    log: str


@functools.cache
def _stub_driver_root() -> Path:
    """A driver root whose ``libnvidia-ml.so.1`` loads but has no NVML function (built with the C compiler cgo
    needs anyway)."""
    root = Path(tempfile.mkdtemp(prefix="gpu-components-stub-driver-"))
    atexit.register(shutil.rmtree, root, True)
    lib = root / "usr" / "lib64"
    lib.mkdir(parents=True)
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-x", "c", "-o", str(lib / "libnvidia-ml.so.1"), "-"],
        input="int gpu_components_no_nvml;\n",
        text=True,
        check=True,
    )
    return root


def run_plugin(program: str, config: str | None, env: Mapping[str, str]) -> Run:
    """Start ``program`` (``nvidia-device-plugin`` or ``mps-control-daemon``) with the config file text ``config``
    (``CONFIG_FILE``) and the container environment ``env`` until it refuses or reaches NVML."""
    work = Path(tempfile.mkdtemp(prefix="gpu-components-plugin-"))
    full = {"PATH": os.environ.get("PATH", ""), "DRIVER_ROOT_CTR_PATH": str(_stub_driver_root()), **env}
    full["KUBELET_SOCKET"] = str(work / "kubelet.sock")
    if config is not None:
        (work / "config.yaml").write_text(config)
        full["CONFIG_FILE"] = str(work / "config.yaml")
    try:
        done = subprocess.run(
            [str(plugin_binaries()[program])], env=full, capture_output=True, text=True, check=False, timeout=60
        )
    finally:
        for path in work.iterdir():
            path.unlink()
        work.rmdir()
    log = done.stdout + done.stderr
    refused = REFUSED.search(log)
    if refused:
        return Run(False, refused.group(1), None, log)
    running = RUNNING.search(log)
    if ACCEPTED_MARK in log and NVML_MARK.search(log):
        return Run(True, "", json.loads(running.group(1)) if running else None, log)
    raise AssertionError(f"{program} neither refused its config nor reached NVML (exit {done.returncode}):\n{log}")


def run_many(jobs: Sequence[tuple[str, str | None, Mapping[str, str]]]) -> list[Run]:
    """:func:`run_plugin` over ``jobs`` (distinct ones once), a few at a time."""
    keys = [_job_key(job) for job in jobs]
    unique = dict(zip(keys, jobs, strict=True))
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(zip(unique, pool.map(lambda job: run_plugin(*job), unique.values()), strict=True))
    return [runs[key] for key in keys]


def _job_key(job: tuple[str, str | None, Mapping[str, str]]) -> str:
    program, config, env = job
    return hashlib.sha256(json.dumps([program, config, sorted(env.items())]).encode()).hexdigest()


# --- what the plans hold ----------------------------------------------------------------------------------------

OPERATOR_MPS_ROOT = "/run/nvidia/mps"


def chart_env(values: Mapping[str, Any]) -> dict[str, str]:
    """The plugin container's environment from nvidia-device-plugin chart values (templates/
    daemonset-device-plugin.yml: each variable only where its value has the right type; MPS_ROOT always)."""
    env = {"MPS_ROOT": str((values.get("mps") or {}).get("root", "/run/nvidia/mps"))}
    strings = {
        "migStrategy": "MIG_STRATEGY",
        "deviceListStrategy": "DEVICE_LIST_STRATEGY",
        "deviceIDStrategy": "DEVICE_ID_STRATEGY",
        "nvidiaDriverRoot": "NVIDIA_DRIVER_ROOT",
        "nvidiaDevRoot": "NVIDIA_DEV_ROOT",
        "deviceDiscoveryStrategy": "DEVICE_DISCOVERY_STRATEGY",
    }
    bools = {
        "failOnInitError": "FAIL_ON_INIT_ERROR",
        "compatWithCPUManager": "PASS_DEVICE_SPECS",
        "gdrcopyEnabled": "GDRCOPY_ENABLED",
        "gdsEnabled": "GDS_ENABLED",
        "mofedEnabled": "MOFED_ENABLED",
    }
    for key, name in strings.items():
        if isinstance(values.get(key), str):
            env[name] = values[key]
    for key, name in bools.items():
        if isinstance(values.get(key), bool):
            env[name] = "true" if values[key] else "false"
    return env


def chart_mps_env(values: Mapping[str, Any]) -> dict[str, str]:
    """The MPS control daemon's environment (templates/daemonset-mps-control-daemon.yml)."""
    return {"MIG_STRATEGY": values["migStrategy"]} if isinstance(values.get("migStrategy"), str) else {}


def operator_env(values: Mapping[str, Any]) -> dict[str, str]:
    """The device plugin container's environment under the GPU Operator: its daemonset asset
    (assets/state-device-plugin/0500_daemonset.yaml) and controllers/object_controls.go (CDI device-list strategy,
    MPS root, ``applyMIGConfiguration``: MIG_STRATEGY from ``mig.strategy``), then ``devicePlugin.env``."""
    plugin = values.get("devicePlugin") or {}
    cdi = (values.get("cdi") or {}).get("enabled", True)
    env = {
        "PASS_DEVICE_SPECS": "true",
        "FAIL_ON_INIT_ERROR": "true",
        "DEVICE_LIST_STRATEGY": "envvar,cdi-annotations" if cdi else "envvar",
        "DEVICE_ID_STRATEGY": "uuid",
        "MPS_ROOT": str((plugin.get("mps") or {}).get("root") or OPERATOR_MPS_ROOT),
    }
    strategy = (values.get("mig") or {}).get("strategy", "single")
    if strategy:
        env["MIG_STRATEGY"] = strategy
    for item in plugin.get("env") or []:
        env[item["name"]] = str(item.get("value", ""))
    return env


def operator_mps_env(values: Mapping[str, Any]) -> dict[str, str]:
    strategy = (values.get("mig") or {}).get("strategy", "single")
    return {"MIG_STRATEGY": strategy} if strategy else {}


@dataclass(frozen=True)
class PluginConfig:
    """One device-plugin config entry of a plan: where (``plan``, ConfigMap or release, ``entry``), its text, the
    plugin's and the MPS daemon's environment, and the chart values of the release that reads it."""

    plan: str
    source: str
    entry: str
    text: str
    env: dict[str, str]
    mps_env: dict[str, str]
    chart: str

    @property
    def parsed(self) -> dict[str, Any]:
        data = yaml.safe_load(self.text)
        return data if isinstance(data, dict) else {}


def _config_maps(plan: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for resource in plan["resources"]:
        if resource["type"] == "kubernetes:core/v1:ConfigMap":
            meta = resource["inputs"].get("metadata") or {}
            out[(meta.get("namespace", "default"), meta.get("name", ""))] = resource["inputs"]
    return out


def _releases(plan: Mapping[str, Any], chart: str) -> Iterator[dict[str, Any]]:
    for resource in plan["resources"]:
        if resource["type"] == "kubernetes:helm.sh/v3:Release" and resource["inputs"].get("chart") == chart:
            yield resource["inputs"]


def is_plugin_config(text: object) -> bool:
    """A device-plugin config file (api/config/v1): ``version: v1`` and plugin keys, not a mig-parted file."""
    if not isinstance(text, str):
        return False
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and "mig-configs" not in data and bool({"flags", "sharing"} & set(data))


def plugin_configs(name: str, plan: Mapping[str, Any]) -> list[PluginConfig]:
    """Every device-plugin config of a plan, with the environment of the release that reads it. ConfigMaps that
    hold plugin configs but no release reads are returned too, with source ``unread ConfigMap <ns>/<name>``."""
    maps = _config_maps(plan)
    out: list[PluginConfig] = []
    read: set[tuple[str, str]] = set()

    def add(source: str, data: Mapping[str, Any], env: dict[str, str], mps: dict[str, str], chart: str) -> None:
        for entry, text in sorted(data.items()):
            if is_plugin_config(text):
                out.append(PluginConfig(name, source, entry, text, env, mps, chart))

    for release in _releases(plan, "nvidia-device-plugin"):
        values = release.get("values") or {}
        config = values.get("config") or {}
        namespace = release.get("namespace", "default")
        env, mps = chart_env(values), chart_mps_env(values)
        add(f"release {release.get('name')} config.map", config.get("map") or {}, env, mps, "nvidia-device-plugin")
        if config.get("name"):
            key = (namespace, config["name"])
            read.add(key)
            data = (maps.get(key) or {}).get("data") or {}
            assert data, f"{name}: device plugin release reads ConfigMap {key}, which the plan does not create"
            add(f"ConfigMap {key[0]}/{key[1]}", data, env, mps, "nvidia-device-plugin")
    for release in _releases(plan, "gpu-operator"):
        values = release.get("values") or {}
        config = (values.get("devicePlugin") or {}).get("config") or {}
        namespace = release.get("namespace", "gpu-operator")
        env, mps = operator_env(values), operator_mps_env(values)
        inline = config.get("data") or {}
        add(f"release {release.get('name')} devicePlugin.config.data", inline, env, mps, "gpu-operator")
        if config.get("name"):
            key = (namespace, config["name"])
            read.add(key)
            add(f"ConfigMap {key[0]}/{key[1]}", (maps.get(key) or {}).get("data") or {}, env, mps, "gpu-operator")
    for key, inputs in sorted(maps.items()):
        if key not in read:
            add(f"unread ConfigMap {key[0]}/{key[1]}", inputs.get("data") or {}, chart_env({}), {}, "")
    return out


def mig_parted_configs(plan: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every mig-parted config file of a plan: (where, text): ConfigMap data values holding ``mig-configs``, and
    the GPU Operator's inline ``migManager.config.data``."""
    out: list[tuple[str, str]] = []
    for (namespace, cm_name), inputs in sorted(_config_maps(plan).items()):
        for key, text in sorted((inputs.get("data") or {}).items()):
            if isinstance(text, str) and "mig-configs" in text:
                out.append((f"ConfigMap {namespace}/{cm_name} {key}", text))
    for release in _releases(plan, "gpu-operator"):
        data = (((release.get("values") or {}).get("migManager") or {}).get("config") or {}).get("data") or {}
        for key, text in sorted(data.items()):
            out.append((f"release {release.get('name')} migManager.config.data {key}", text))
    return out


def label_maps(value: object) -> Iterator[dict[str, Any]]:
    """Every mapping under ``value`` that holds a key of the ``nvidia.com/`` label domain (node labels of pools,
    Karpenter NodePool templates, node selectors...)."""
    if isinstance(value, dict):
        if any(isinstance(k, str) and k.startswith("nvidia.com/") for k in value):
            yield value
        for item in value.values():
            yield from label_maps(item)
    elif isinstance(value, list):
        for item in value:
            yield from label_maps(item)


MIG_RESOURCE = re.compile(r"nvidia\.com/mig-[0-9A-Za-z.+-]+")


def mig_resource_names(plan: Mapping[str, Any]) -> set[str]:
    """Every MIG extended resource name (``nvidia.com/mig-...``) anywhere in a plan's resource inputs."""
    return set(MIG_RESOURCE.findall(json.dumps([r["inputs"] for r in plan["resources"]])))


DRA_DRIVER = "gpu.nvidia.com"


def opaque_configs(plan: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every opaque config for the NVIDIA DRA driver in a plan's ResourceClaims and ResourceClaimTemplates:
    (where, ``opaque.parameters``)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for resource in plan["resources"]:
        kind = resource["type"].rsplit(":", 1)[-1]
        if kind not in ("ResourceClaim", "ResourceClaimTemplate"):
            continue
        out.extend((f"{kind} {resource['name']}", p) for p in claim_opaque_configs(resource["inputs"]))
    return out


def claim_opaque_configs(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The NVIDIA driver's opaque parameters of one ResourceClaim or ResourceClaimTemplate manifest."""
    spec = manifest.get("spec") or {}
    if manifest.get("kind") == "ResourceClaimTemplate" or "spec" in spec:
        spec = spec.get("spec") or {}
    configs = (spec.get("devices") or {}).get("config") or []
    return [c["opaque"].get("parameters") or {} for c in configs if (c.get("opaque") or {}).get("driver") == DRA_DRIVER]


def dra_feature_gates(plan: Mapping[str, Any]) -> str:
    """The DRA chart's FEATURE_GATES value of a plan's DRA driver release (templates/kubeletplugin.yaml,
    webhook-deployment.yaml: ``Name=value,`` per ``featureGates`` entry), "" where the plan has none."""
    for resource in plan["resources"]:
        if resource["type"] != "kubernetes:helm.sh/v3:Release":
            continue
        inputs = resource["inputs"]
        if "dra-driver-nvidia-gpu" in str(inputs.get("chart", "")):
            gates = (inputs.get("values") or {}).get("featureGates") or {}
            return "".join(f"{k}={str(v).lower()}," for k, v in sorted(gates.items()))
    return ""
