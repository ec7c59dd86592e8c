"""Helm oracle: every Helm Release of every example stack's plan and of every generated variant renders with the real
``helm template`` (Helm v4, ``oracles/pins.toml`` ``[helm]``) of the real chart (``[helm-chart-*]``), with exactly the
plan's values; the charts' own validation templates pass; the values take effect in the rendered objects (the
objects carry the plan's tolerations, affinity, ConfigMap names, ...); no value the plan sets is one no template
reads; every rendered built-in object validates strictly (kubernetes-validate) for the cluster's Kubernetes version
and no custom resource carries a field its chart's CRD would prune.

Upstream behaviour judged: the device plugin chart's ``templates/validation.yml`` and ``daemonset-device-plugin.yml``
(k8s-device-plugin ``deployments/helm/nvidia-device-plugin``), the DRA driver chart's ``templates/validation.yaml``
and ``kubeletplugin.yaml`` (dra-driver-nvidia-gpu ``deployments/helm/dra-driver-nvidia-gpu``), the GPU Operator
chart's ``templates/clusterpolicy.yaml`` and its vendored node-feature-discovery subchart (gpu-operator
``deployments/gpu-operator``), and Karpenter's ``templates/deployment.yaml`` (karpenter-provider-aws
``charts/karpenter``). None of the four ships a ``values.schema.json``, so Helm accepts any key: the ignored-value
probe (:func:`tests.oracles.helm.ignored_values`) stands in for the schema check Helm would otherwise make.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_components.aws.facts import KARPENTER_CHART
from gpu_components.nvidia.device_plugin import DEVICE_PLUGIN_CHART
from gpu_components.nvidia.dra_driver import DRA_DRIVER_CHART
from gpu_components.nvidia.gpu_operator import GPU_OPERATOR_CHART
from tests.helpers import ROOT
from tests.oracles import helm
from tests.oracles.build import pins
from tests.oracles.conftest import Report
from tests.oracles.plans import example_plans, variant_plans

Objects = list[dict[str, Any]]
Release = tuple[str, Mapping[str, Any], Mapping[str, Any]]
"""(plan name, plan, release resource)."""

REFERENCE = ROOT / "tests" / "reference" / "nvidia"


def _releases(plans: Mapping[str, Mapping[str, Any]]) -> list[Release]:
    return [(name, plan, release) for name, plan in plans.items() for release in helm.releases(plan)]


@functools.cache
def _example_releases() -> list[Release]:
    return _releases(example_plans())


@functools.cache
def _variant_releases() -> list[Release]:
    return _releases(variant_plans())


# ---------------------------------------------------------------------------------------------------------------
# What "the values took effect" means, per chart: each check returns the problems it found (empty: none).


def _workloads(objects: Objects, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def _env(container: Mapping[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def _plan_config_map(plan: Mapping[str, Any], name: str, namespace: str) -> Mapping[str, str] | None:
    """The data of the plan's ConfigMap ``namespace/name`` (the one a chart is told to read), if the plan has it."""
    for resource in plan["resources"]:
        if resource["type"] == "kubernetes:core/v1:ConfigMap":
            meta = resource["inputs"].get("metadata") or {}
            if meta.get("name") == name and meta.get("namespace") == namespace:
                return resource["inputs"].get("data") or {}
    return None


def _device_plugin(plan: Mapping[str, Any], inputs: Mapping[str, Any], objects: Objects) -> list[str]:
    values, problems = inputs["values"], []
    daemonsets = _workloads(objects, "DaemonSet")
    if sorted(daemonsets) != ["nvidia-device-plugin", "nvidia-device-plugin-mps-control-daemon"]:
        problems.append(f"DaemonSets {sorted(daemonsets)}")
    for name, daemonset in daemonsets.items():
        pod = daemonset["spec"]["template"]
        for key in ("tolerations", "affinity"):
            if key in values and pod["spec"].get(key) != values[key]:
                problems.append(f"{name} {key} {pod['spec'].get(key)} != plan's {values[key]}")
        annotations = pod["metadata"].get("annotations") or {}
        if any(annotations.get(k) != v for k, v in (values.get("podAnnotations") or {}).items()):
            problems.append(f"{name} annotations {annotations}")
        config = values.get("config") or {}
        if "name" in config:
            mounted = [v["configMap"]["name"] for v in pod["spec"]["volumes"] if "configMap" in v]
            if mounted != [config["name"]]:
                problems.append(f"{name} mounts ConfigMaps {mounted}, plan names {config['name']}")
            data = _plan_config_map(plan, config["name"], inputs["namespace"])
            if data is None:
                problems.append(f"the plan has no ConfigMap {inputs['namespace']}/{config['name']}")
            elif config.get("default") not in data:
                problems.append(f"default config {config.get('default')!r} is not a key of {sorted(data)}")
        for container in pod["spec"].get("initContainers", []) + pod["spec"]["containers"]:
            env = _env(container)
            if "DEFAULT_CONFIG" in env and env["DEFAULT_CONFIG"] != config.get("default"):
                problems.append(f"{name}/{container['name']} DEFAULT_CONFIG {env['DEFAULT_CONFIG']}")
    return problems


def _dra_driver(plan: Mapping[str, Any], inputs: Mapping[str, Any], objects: Objects) -> list[str]:
    values, problems = inputs["values"], []
    plugin = values.get("kubeletPlugin") or {}
    daemonsets = _workloads(objects, "DaemonSet")
    name = f"{inputs['name']}-kubelet-plugin"
    if name not in daemonsets:
        return [f"no DaemonSet {name} in {sorted(daemonsets)}"]
    spec = daemonsets[name]["spec"]["template"]["spec"]
    for key in ("tolerations", "affinity", "priorityClassName"):  # an empty priorityClassName: none (the template's if)
        if key in plugin and spec.get(key) != (plugin[key] or None):
            problems.append(f"kubelet plugin {key} {spec.get(key)} != plan's {plugin[key]}")
    gates = ",".join(f"{k}={str(v).lower()}" for k, v in sorted((values.get("featureGates") or {}).items()))
    for container in spec["containers"]:
        env = _env(container)
        if env.get("NVIDIA_DRIVER_ROOT") != values.get("nvidiaDriverRoot", "/"):
            problems.append(f"{container['name']} NVIDIA_DRIVER_ROOT {env.get('NVIDIA_DRIVER_ROOT')}")
        if env.get("FEATURE_GATES", ",").rstrip(",") != gates:
            problems.append(f"{container['name']} FEATURE_GATES {env.get('FEATURE_GATES')!r} != {gates!r}")
    containers = sorted(c["name"] for c in spec["containers"])
    wanted = sorted(k for k, on in (("gpus", values["resources"]["gpus"]["enabled"]),) if on)
    if values["resources"]["computeDomains"]["enabled"]:
        wanted = sorted([*wanted, "compute-domains"])
    if containers != wanted:
        problems.append(f"kubelet plugin containers {containers} != {wanted}")
    classes = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "DeviceClass")
    if values["resources"]["gpus"]["enabled"] and not {"gpu.nvidia.com", "mig.nvidia.com"} <= set(classes):
        problems.append(f"DeviceClasses {classes}")
    return problems


_OPERANDS = ("driver", "toolkit", "devicePlugin", "migManager", "dcgmExporter", "cdi", "mig", "daemonsets", "operator")


def _gpu_operator(plan: Mapping[str, Any], inputs: Mapping[str, Any], objects: Objects) -> list[str]:
    values, problems = inputs["values"], []
    policies = [o for o in objects if o["kind"] == "ClusterPolicy"]
    if len(policies) != 1:
        return [f"{len(policies)} ClusterPolicies"]
    spec = policies[0]["spec"]
    for operand in _OPERANDS:
        for path in helm.value_paths(values.get(operand) or {}, (operand,)):
            got: Any = spec
            for key in path:
                got = got.get(key) if isinstance(got, Mapping) else None
            want = values
            for key in path:
                want = want[key]
            if got != want:
                problems.append(f"ClusterPolicy spec.{'.'.join(path)} {got!r} != plan's {want!r}")
    for operand, key in (("devicePlugin", "default"), ("migManager", "default")):
        config = (values.get(operand) or {}).get("config") or {}
        if "name" not in config:
            continue
        data = _plan_config_map(plan, config["name"], inputs["namespace"])
        if data is None:
            problems.append(f"the plan has no ConfigMap {inputs['namespace']}/{config['name']} ({operand})")
            continue
        keys = sorted(yaml.safe_load(data["config.yaml"])["mig-configs"]) if operand == "migManager" else sorted(data)
        if config.get(key) not in keys:
            problems.append(f"{operand}.config.default {config.get(key)!r} is not one of {keys}")
    worker = ((values.get("node-feature-discovery") or {}).get("worker") or {}).get("tolerations")
    nfd = _workloads(objects, "DaemonSet").get(f"{inputs['name']}-node-feature-discovery-worker")
    if worker is not None and (nfd is None or nfd["spec"]["template"]["spec"].get("tolerations") != worker):
        problems.append("the NFD worker DaemonSet lacks the plan's tolerations")
    return problems


def _karpenter(plan: Mapping[str, Any], inputs: Mapping[str, Any], objects: Objects) -> list[str]:
    values, problems = inputs["values"], []
    deployment = _workloads(objects, "Deployment").get("karpenter")
    if deployment is None or deployment["metadata"]["namespace"] != inputs["namespace"]:
        return ["no Deployment karpenter in the release's namespace"]
    spec = deployment["spec"]["template"]["spec"]
    if any(spec["nodeSelector"].get(k) != v for k, v in (values.get("nodeSelector") or {}).items()):
        problems.append(f"nodeSelector {spec['nodeSelector']}")
    if spec["serviceAccountName"] != values["serviceAccount"]["name"]:
        problems.append(f"serviceAccountName {spec['serviceAccountName']}")
    controller = next(c for c in spec["containers"] if c["name"] == "controller")
    if controller["resources"] != values["controller"]["resources"]:
        problems.append(f"controller resources {controller['resources']}")
    env, settings = _env(controller), values["settings"]
    if (env.get("CLUSTER_NAME"), env.get("INTERRUPTION_QUEUE")) != (
        settings["clusterName"],
        settings.get("interruptionQueue"),
    ):
        problems.append(f"CLUSTER_NAME, INTERRUPTION_QUEUE {env.get('CLUSTER_NAME')}, {env.get('INTERRUPTION_QUEUE')}")
    return problems


CHECKS: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any], Objects], list[str]]] = {
    DEVICE_PLUGIN_CHART: _device_plugin,
    DRA_DRIVER_CHART: _dra_driver,
    GPU_OPERATOR_CHART: _gpu_operator,
    KARPENTER_CHART: _karpenter,
}


# ---------------------------------------------------------------------------------------------------------------
# Strict validation of the rendered objects.


def _pruned_fields(obj: Any, schema: Mapping[str, Any], path: str = "") -> Iterator[str]:
    """Fields of ``obj`` a structural CRD schema does not declare (the API server prunes them silently)."""
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(obj, Mapping) and "properties" in schema:
        for key, value in obj.items():
            if key not in schema["properties"]:
                yield f"{path}.{key}"
            else:
                yield from _pruned_fields(value, schema["properties"][key], f"{path}.{key}")
    elif isinstance(obj, Mapping) and isinstance(schema.get("additionalProperties"), Mapping):
        for key, value in obj.items():
            yield from _pruned_fields(value, schema["additionalProperties"], f"{path}.{key}")
    elif isinstance(obj, list) and "items" in schema:
        for index, value in enumerate(obj):
            yield from _pruned_fields(value, schema["items"], f"{path}[{index}]")


_VALIDATED: dict[str, list[str]] = {}


def _invalid(objects: Objects, kube: str) -> list[str]:
    """Built-in objects kubernetes-validate refuses (strict, for Kubernetes ``kube``), and custom resources with
    fields their CRD (rendered by the same chart) would prune. Results cached by object."""
    crds = {
        (c["spec"]["group"], version["name"], c["spec"]["names"]["kind"]): version["schema"]["openAPIV3Schema"]
        for c in objects
        if c["kind"] == "CustomResourceDefinition"
        for version in c["spec"]["versions"]
    }
    problems = []
    for obj in objects:
        key = hashlib.sha256(json.dumps([obj, kube], sort_keys=True).encode()).hexdigest()
        if key not in _VALIDATED:
            found: list[str] = []
            group, _, version = obj["apiVersion"].rpartition("/")
            name = f"{obj['kind']} {obj['metadata']['name']}"
            if (group, version, obj["kind"]) in crds:
                schema = crds[group, version, obj["kind"]]
                found = [f"{name}: CRD prunes {field}" for field in _pruned_fields(obj, schema)]
            else:
                try:
                    kubernetes_validate.validate(obj, f"{kube}.0", strict=True)
                except kubernetes_validate.ValidationError as error:
                    found = [f"{name}: {error.message}"]
            _VALIDATED[key] = found
        problems.extend(_VALIDATED[key])
    return problems


def _judge(release: Release, probe: bool) -> list[str]:
    """Everything the Helm oracle finds wrong with one Release (empty: nothing)."""
    name, plan, resource = release
    inputs, kube = resource["inputs"], helm.kube_version(plan)
    where = f"{name}: {resource['name']}"
    try:
        objects = helm.render(inputs, kube)
    except helm.HelmError as error:
        return [f"{where}: {error.stderr.strip()}"]
    problems = CHECKS[inputs["chart"]](plan, inputs, objects) + _invalid(objects, kube)
    if probe:
        problems += [f"ignored value {path}" for path in helm.ignored_values(inputs, kube)]
    return [f"{where}: {problem}" for problem in problems]


# ---------------------------------------------------------------------------------------------------------------


def test_helm_is_the_pinned_build() -> None:
    binary = helm.helm_binary()
    built = subprocess.run(["go", "version", "-m", str(binary)], capture_output=True, text=True, check=True).stdout
    assert f"\tmod\thelm.sh/helm/v4\t{pins()['helm']['version']}\t" in built  # the main module: a Go tool
    version = subprocess.run([str(binary), "version", "--template", "{{.Version}}"], capture_output=True, text=True)
    assert version.stdout == "v4.3"  # Helm's version variable, without the release build's ldflags


CHART_YAML = {
    "helm-chart-device-plugin": ("nvidia-device-plugin", "0.19.1"),
    "helm-chart-dra-driver": ("dra-driver-nvidia-gpu", "0.4.1"),
    "helm-chart-gpu-operator": ("gpu-operator", "v1.0.0-devel"),
    "helm-chart-karpenter": ("karpenter", "1.13.0"),
}


@pytest.mark.parametrize("table", sorted(CHART_YAML))
def test_each_chart_source_is_the_pinned_module(table: str) -> None:
    """Each chart comes from its pinned module; its name and Chart.yaml version are as the pin's note says; where
    the version differs from the package's pin, the table says why; no chart ships a values.schema.json."""
    chart_ref = next(ref for ref, t in helm.CHART_TABLES.items() if t == table)
    directory = helm.chart_dir(chart_ref, helm.pinned_chart_version(table))
    meta = yaml.safe_load((directory / "Chart.yaml").read_text())
    assert (meta["name"], meta["version"]) == CHART_YAML[table]
    assert not (directory / "values.schema.json").exists()
    pin = pins()[table]
    if pin["version"].lstrip("v") != helm.pinned_chart_version(table).lstrip("v"):
        assert "not served" in pin["note"]


def test_another_chart_version_has_no_source() -> None:
    with pytest.raises(KeyError, match=r"only the package's pin 0\.4\.1 has a source"):
        helm.chart_dir(DRA_DRIVER_CHART, "0.5.0")


def test_the_reference_values_are_the_module_charts_values() -> None:
    """The DRA chart's values.yaml in the module is byte-identical to the repo's reference copy of v0.4.1."""
    dra = helm.chart_dir(DRA_DRIVER_CHART, "0.4.1") / "values.yaml"
    assert dra.read_text() == (REFERENCE / "dra-driver-nvidia-gpu-v0.4.1" / "values.yaml").read_text()


def _defined(values: Any, path: tuple[str, ...]) -> bool:
    for key in path:
        if not isinstance(values, Mapping) or key not in values:
            return False
        values = values[key]
    return True


def test_every_gpu_operator_value_is_a_key_of_both_charts() -> None:
    """The GPU Operator module chart (a main-branch pseudo-version) is not the pinned v26.7.0: every value path the
    plans set is a key of both values.yaml files, so rendering the module's chart judges the plan's values."""
    served = yaml.safe_load((helm.chart_dir(GPU_OPERATOR_CHART, "v26.7.0") / "values.yaml").read_text())
    pinned = yaml.safe_load((REFERENCE / "gpu-operator-v26.7.0" / "values.yaml").read_text())
    paths = {
        path
        for _, _, release in _example_releases() + _variant_releases()
        if release["inputs"]["chart"] == GPU_OPERATOR_CHART
        for path in helm.value_paths(release["inputs"]["values"])
    }
    assert len(paths) >= 15
    assert [p for p in sorted(paths) if not (_defined(served, p) and _defined(pinned, p))] == []


def test_example_stacks_releases(oracle_report: Report) -> None:
    """Every Release of every example stack renders, with its values in effect, valid objects and no ignored value."""
    releases = _example_releases()
    charts = Counter(release["inputs"]["chart"] for _, _, release in releases)
    assert charts == {GPU_OPERATOR_CHART: 4, DEVICE_PLUGIN_CHART: 2, DRA_DRIVER_CHART: 2, KARPENTER_CHART: 1}
    failures = [problem for release in releases for problem in _judge(release, probe=True)]
    oracle_report(helm.HELM, len(releases), len(failures))
    assert failures == []


def test_variant_releases(oracle_report: Report) -> None:
    """Every Release of every generated variant renders, with its values in effect and valid objects; each value path
    (per chart) is probed once for being ignored, on the first Release that sets it."""
    releases = _variant_releases()
    assert len(releases) >= 550
    probed: set[tuple[str, tuple[str, ...]]] = set()
    failures = []
    for release in releases:
        inputs = release[2]["inputs"]
        fresh = {(inputs["chart"], p) for p in helm.value_paths(inputs["values"])} - probed
        probed |= fresh
        failures += _judge(release, probe=bool(fresh))
    per_chart = Counter(release[2]["inputs"]["chart"] for release in releases)
    for chart, count in per_chart.items():
        oracle_report(helm.CHART_TABLES[chart], count, sum(f"({chart} " in f for f in failures))
    oracle_report(helm.HELM, len(releases), len(failures))
    assert sorted(per_chart) == sorted([GPU_OPERATOR_CHART, DEVICE_PLUGIN_CHART, DRA_DRIVER_CHART])
    assert len(probed) >= 25
    assert failures[:20] == []


# ---------------------------------------------------------------------------------------------------------------
# Negative cases: the real chart refuses, or the oracle notices.


def _example(chart: str) -> dict[str, Any]:
    release = next(r for _, _, r in _example_releases() if r["inputs"]["chart"] == chart)
    return copy.deepcopy(dict(release["inputs"]))


def test_the_dra_chart_refuses_gpus_without_the_override() -> None:
    inputs = _example(DRA_DRIVER_CHART)
    del inputs["values"]["gpuResourcesEnabledOverride"]
    with pytest.raises(helm.HelmError) as refused:
        helm.render(inputs)
    assert "this DRA driver cannot be deployed alongside the standard GPU device plugin on the same node" in str(
        refused.value.stderr
    )
    assert "--set 'gpuResourcesEnabledOverride=true'" in refused.value.stderr


def test_the_device_plugin_chart_refuses_both_config_name_and_map() -> None:
    inputs = _example(DEVICE_PLUGIN_CHART)
    inputs["values"]["config"]["map"] = {"default": "version: v1\n"}
    with pytest.raises(helm.HelmError) as refused:
        helm.render(inputs)
    assert "Only one of 'config.name' or 'config.map' should ever be set for a given deployment." in (
        refused.value.stderr
    )


def test_the_device_plugin_chart_refuses_the_default_namespace() -> None:
    inputs = _example(DEVICE_PLUGIN_CHART)
    inputs["namespace"] = "default"
    with pytest.raises(helm.HelmError, match=r"Running in the 'default' namespace is not recommended\."):
        helm.render(inputs)


def test_a_misspelt_value_is_reported_as_ignored() -> None:
    inputs = _example(DEVICE_PLUGIN_CHART)
    inputs["values"]["toleration"] = inputs["values"].pop("tolerations")
    assert helm.ignored_values(inputs) == ["toleration"]
    daemonset = _workloads(helm.render(inputs), "DaemonSet")["nvidia-device-plugin"]
    assert inputs["values"]["toleration"][-1] not in daemonset["spec"]["template"]["spec"]["tolerations"]


def test_a_lost_toleration_is_noticed() -> None:
    """The value checks fail where the rendered objects do not carry the plan's values."""
    inputs = _example(GPU_OPERATOR_CHART)
    objects = helm.render(inputs)
    inputs["values"]["daemonsets"]["tolerations"].append({"key": "oracle", "operator": "Exists"})
    assert _gpu_operator({"resources": []}, inputs, objects)[0].startswith("ClusterPolicy spec.daemonsets.tolerations")


def test_render_is_cached_and_returns_copies() -> None:
    inputs = _example(KARPENTER_CHART)
    first = helm.render(inputs)
    first[0]["kind"] = "Changed"
    assert helm.render(inputs)[0]["kind"] != "Changed"
    assert helm._render.cache_info().hits >= 1
