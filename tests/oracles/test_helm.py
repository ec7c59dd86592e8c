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
from packaging.version import Version

from gpu_components.aws import karpenter_controller
from gpu_components.aws.eks import EKS_KUBERNETES_VERSIONS
from gpu_components.aws.facts import KARPENTER_CHART
from gpu_components.azure.aks import AKS_KUBERNETES_VERSIONS
from gpu_components.gcp.facts import GKE_CRITICAL_PRIORITY_CLASSES
from gpu_components.gcp.gke import GKE_KUBERNETES_VERSIONS
from gpu_components.labels import DEVICE_PLUGIN_CONFIG_LABEL
from gpu_components.nvidia import device_plugin, dra_driver, gpu_operator
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
    return problems + _device_plugin_placement(plan, inputs, daemonsets)


def _label_sets(value: Any, key: str) -> Iterator[Mapping[str, str]]:
    """Every node label set with ``key`` in a plan resource's inputs (a GPU pool's labels: EKS node group ``labels``,
    AKS ``nodeLabels``, GKE ``nodeConfig.labels``, a NodePool template's labels)."""
    if isinstance(value, Mapping):
        if key in value and all(isinstance(v, str) for v in value.values()):
            yield value
        for item in value.values():
            yield from _label_sets(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _label_sets(item, key)


def _matches(labels: Mapping[str, str], terms: list[Mapping[str, Any]]) -> bool:
    """Whether ``labels`` satisfy required node affinity ``nodeSelectorTerms`` (any term; every expression)."""
    tests: Mapping[str, Callable[[Mapping[str, Any]], bool]] = {
        "In": lambda e: labels.get(e["key"]) in e["values"],
        "NotIn": lambda e: labels.get(e["key"]) not in e["values"],
        "Exists": lambda e: e["key"] in labels,
        "DoesNotExist": lambda e: e["key"] not in labels,
    }
    return any(all(tests[e["operator"]](e) for e in term.get("matchExpressions", [])) for term in terms)


def _device_plugin_placement(
    plan: Mapping[str, Any], inputs: Mapping[str, Any], daemonsets: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """Each pool with a device plugin config label is selected by the chart's plugin DaemonSet; a pool whose config
    shares by MPS also carries the chart's MPS control daemon's node selector (else no MPS daemon, no MPS)."""
    problems = []
    data = _plan_config_map(plan, (inputs["values"].get("config") or {}).get("name", ""), inputs["namespace"]) or {}
    plugin = daemonsets.get("nvidia-device-plugin", {}).get("spec", {}).get("template", {}).get("spec", {})
    terms = (
        plugin.get("affinity", {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        .get("nodeSelectorTerms", [{}])
    )
    mps = daemonsets.get("nvidia-device-plugin-mps-control-daemon", {})
    mps_selector = mps.get("spec", {}).get("template", {}).get("spec", {}).get("nodeSelector") or {}
    for resource in plan["resources"]:
        for labels in _label_sets(resource.get("inputs"), DEVICE_PLUGIN_CONFIG_LABEL):
            key = labels[DEVICE_PLUGIN_CONFIG_LABEL]
            if not _matches(labels, terms):
                problems.append(f"{resource['name']} (config {key}) is not selected by the device plugin DaemonSet")
            sharing = (yaml.safe_load(data.get(key, "")) or {}).get("sharing") or {}
            if "mps" in sharing and any(labels.get(k) != v for k, v in mps_selector.items()):
                problems.append(f"{resource['name']} shares by MPS but lacks the MPS daemon's {mps_selector}")
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
    return problems + _dra_placement(plan, spec)


RUNTIME_LABELS = {"nvidia.com/mig.config": {"nvidia.com/mig.config.state": "success"}}
"""Labels NVIDIA's MIG manager adds at run time to a node with the first label (once its layout is applied)."""


def _dra_placement(plan: Mapping[str, Any], spec: Mapping[str, Any]) -> list[str]:
    """The chart's kubelet plugin DaemonSet selects exactly the plan's DRA pools (node label sets with
    ``gpu-components/gpu-access: dra``, with the labels the MIG manager adds at run time), and no other GPU pool
    (one GPU advertiser per node)."""
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    problems, pools = [], 0
    for resource in plan["resources"]:
        if resource["type"].startswith("kubernetes:batch/"):
            continue  # a Job's node selector, not a pool's labels
        for labels in _label_sets(resource.get("inputs"), "gpu-components/pool"):
            pools += 1
            added = {k: v for key, extra in RUNTIME_LABELS.items() if key in labels for k, v in extra.items()}
            dra = labels.get("gpu-components/gpu-access") == "dra"
            if _matches({**labels, **added}, terms) != dra:
                selected = "selects" if not dra else "does not select"
                problems.append(f"the kubelet plugin {selected} {resource['name']} ({dict(labels)})")
    return problems if pools else ["no GPU pool labels in the plan"]


_OPERANDS = ("driver", "toolkit", "devicePlugin", "migManager", "dcgmExporter", "cdi", "mig", "daemonsets", "operator")
_CLUSTER_POLICY_NAMES = {("driver", "upgradePolicy", "gpuPodDeletion"): ("driver", "upgradePolicy", "podDeletion")}
"""Values paths the chart writes into the ClusterPolicy under another name (its ``templates/clusterpolicy.yaml``:
``driver.upgradePolicy.gpuPodDeletion`` becomes ``spec.driver.upgradePolicy.podDeletion``)."""


def _cluster_policy_path(path: tuple[str, ...]) -> tuple[str, ...]:
    for prefix, renamed in _CLUSTER_POLICY_NAMES.items():
        if path[: len(prefix)] == prefix:
            return renamed + path[len(prefix) :]
    return path


def _gpu_operator(plan: Mapping[str, Any], inputs: Mapping[str, Any], objects: Objects) -> list[str]:
    values, problems = inputs["values"], []
    policies = [o for o in objects if o["kind"] == "ClusterPolicy"]
    if len(policies) != 1:
        return [f"{len(policies)} ClusterPolicies"]
    spec = policies[0]["spec"]
    for operand in _OPERANDS:
        for path in helm.value_paths(values.get(operand) or {}, (operand,)):
            got: Any = spec
            for key in _cluster_policy_path(path):
                got = got.get(key) if isinstance(got, Mapping) else None
            want = values
            for key in path:
                want = want[key]
            if got != want:
                at = ".".join(_cluster_policy_path(path))
                problems.append(f"ClusterPolicy spec.{at} {got!r} != plan's {want!r} (values {'.'.join(path)})")
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
                except kubernetes_validate.SchemaNotFoundError:
                    found = [f"{name}: {obj['apiVersion']} is not served by Kubernetes {kube}"]
            _VALIDATED[key] = found
        problems.extend(_VALIDATED[key])
    return problems


def _gke_priority_admitted(plan: Mapping[str, Any], objects: Objects, release_namespace: str) -> list[str]:
    """On GKE, a rendered pod with a critical priority class outside ``kube-system`` needs a ResourceQuota of the
    plan in its namespace admitting that class (GKE refuses the pods otherwise; ``GKE_CRITICAL_PRIORITY_CLASSES``)."""
    if not any(r["type"] == "gcp:container/cluster:Cluster" for r in plan["resources"]):
        return []
    admitted: dict[str, set[str]] = {}
    for resource in plan["resources"]:
        if resource["type"] == "kubernetes:core/v1:ResourceQuota":
            namespace = resource["inputs"]["metadata"]["namespace"]
            for expression in resource["inputs"]["spec"].get("scopeSelector", {}).get("matchExpressions", []):
                if (expression["scopeName"], expression["operator"]) == ("PriorityClass", "In"):
                    admitted.setdefault(namespace, set()).update(expression["values"])
    problems = []
    for obj in objects:
        if obj["kind"] not in ("DaemonSet", "Deployment", "Job"):
            continue
        priority = obj["spec"]["template"]["spec"].get("priorityClassName")
        namespace = obj["metadata"].get("namespace", release_namespace)  # Helm installs it in the release's
        critical = priority in GKE_CRITICAL_PRIORITY_CLASSES and namespace != "kube-system"
        if critical and priority not in admitted.get(namespace, set()):
            problems.append(f"{obj['kind']} {obj['metadata']['name']}: GKE refuses {priority} in {namespace}")
    return problems


def _judge(release: Release, probe: bool) -> list[str]:
    """Everything the Helm oracle finds wrong with one Release (empty: nothing)."""
    name, plan, resource = release
    inputs, kube = resource["inputs"], helm.kube_version(plan)
    where = f"{name}: {resource['name']} ({inputs['chart']} {inputs.get('version')})"
    try:
        objects = helm.render(inputs, kube)
    except helm.HelmError as error:
        return [f"{where}: helm template: {error.stderr.strip()}"]
    problems = CHECKS[inputs["chart"]](plan, inputs, objects) + _invalid(objects, kube)
    problems += _gke_priority_admitted(plan, objects, inputs["namespace"])
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
    _report(oracle_report, releases, failures)
    assert failures == []


def _report(oracle_report: Report, releases: list[Release], failures: list[str]) -> None:
    """One count for Helm and one per chart source (a failure names its chart: ``(<chart> <version>)``)."""
    per_chart = Counter(release[2]["inputs"]["chart"] for release in releases)
    for chart, count in per_chart.items():
        oracle_report(helm.CHART_TABLES[chart], count, sum(f"({chart} " in failure for failure in failures))
    oracle_report(helm.HELM, len(releases), len(failures))


SUPPORTED_VERSIONS = sorted(set(EKS_KUBERNETES_VERSIONS) | set(AKS_KUBERNETES_VERSIONS) | set(GKE_KUBERNETES_VERSIONS))
"""Every Kubernetes minor version a cluster of the package may run (the clouds' lists)."""


def test_example_releases_at_every_supported_version(oracle_report: Report) -> None:
    """The example stacks' Releases render, take effect and validate strictly for every Kubernetes version the package
    accepts (the DRA chart from the package's DRA minimum, 1.34), not only the examples' own 1.34."""
    assert SUPPORTED_VERSIONS == ["1.33", "1.34", "1.35", "1.36"]
    minimum = ".".join(map(str, dra_driver.MIN_KUBERNETES_VERSION))
    checked, failures = 0, []
    for version in SUPPORTED_VERSIONS:
        for name, plan, release in _example_releases():
            inputs = release["inputs"]
            if inputs["chart"] == DRA_DRIVER_CHART and Version(version) < Version(minimum):
                continue
            checked += 1
            objects = helm.render(inputs, version)
            problems = CHECKS[inputs["chart"]](plan, inputs, objects) + _invalid(objects, version)
            failures += [f"{version} {name}: {problem}" for problem in problems]
    oracle_report(helm.HELM, checked, len(failures))
    assert checked == 4 * 9 - 2
    assert failures == []


def test_variant_releases(oracle_report: Report) -> None:
    """Every Release of every generated variant renders, with its values in effect and valid objects; each value path
    (per chart) is probed once for being ignored, on the first Release that sets it."""
    releases = _variant_releases()
    assert len(releases) >= 550
    helm.prefetch((release["inputs"], helm.kube_version(plan)) for _, plan, release in releases)
    probed: set[tuple[str, tuple[str, ...]]] = set()
    failures = []
    for release in releases:
        inputs = release[2]["inputs"]
        fresh = {(inputs["chart"], p) for p in helm.value_paths(inputs["values"])} - probed
        probed |= fresh
        failures += _judge(release, probe=bool(fresh))
    _report(oracle_report, releases, failures)
    per_chart = Counter(release[2]["inputs"]["chart"] for release in releases)
    assert sorted(per_chart) == sorted([GPU_OPERATOR_CHART, DEVICE_PLUGIN_CHART, DRA_DRIVER_CHART, KARPENTER_CHART])
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


# ---------------------------------------------------------------------------------------------------------------
# The chart facts the package keeps as constants, against what the real charts render.


def _chart_defaults(chart: str, **values: Any) -> Objects:
    """The chart rendered with only ``values`` (else its own defaults), in a namespace of its own."""
    version = helm.pinned_chart_version(helm.chart_table(chart))
    inputs = {"chart": chart, "version": version, "name": chart.rsplit("/", 1)[-1], "namespace": "oracle"}
    return helm.render({**inputs, "values": values})


def _pod_spec(objects: Objects, kind: str, name: str) -> dict[str, Any]:
    return dict(_workloads(objects, kind)[name]["spec"]["template"]["spec"])


def test_the_chart_default_tolerations_the_package_keeps() -> None:
    """The tolerations the package keeps when it replaces a chart's list are the chart's own defaults."""
    plugin = _pod_spec(_chart_defaults(DEVICE_PLUGIN_CHART), "DaemonSet", "nvidia-device-plugin")
    assert plugin["tolerations"] == list(device_plugin.CHART_DEFAULT_TOLERATIONS)
    dra = _chart_defaults(DRA_DRIVER_CHART, gpuResourcesEnabledOverride=True)
    kubelet = _pod_spec(dra, "DaemonSet", "dra-driver-nvidia-gpu-kubelet-plugin")
    assert kubelet["tolerations"] == list(dra_driver.CHART_KUBELET_PLUGIN_TOLERATIONS)
    # The GPU Operator's module chart (a pseudo-version) still tolerates node-role.kubernetes.io/master first; the
    # package keeps v26.7.0's first NFD worker toleration (the pinned values.yaml), which the module chart has next.
    pinned = yaml.safe_load((REFERENCE / "gpu-operator-v26.7.0" / "values.yaml").read_text())
    control_plane = dict(gpu_operator.NFD_WORKER_CONTROL_PLANE_TOLERATION)
    assert pinned["node-feature-discovery"]["worker"]["tolerations"][0] == control_plane
    operator = _chart_defaults(GPU_OPERATOR_CHART)
    worker = _pod_spec(operator, "DaemonSet", "gpu-operator-node-feature-discovery-worker")
    assert worker["tolerations"][:2] == [{**control_plane, "key": "node-role.kubernetes.io/master"}, control_plane]
    (policy,) = (o for o in operator if o["kind"] == "ClusterPolicy")
    assert policy["spec"]["mig"]["strategy"] == pinned["mig"]["strategy"] == gpu_operator.DEFAULT_MIG_STRATEGY


def test_the_karpenter_controller_needs_a_system_node_per_replica() -> None:
    """Karpenter's chart runs ``CHART_REPLICAS`` controllers, each on its own node (required pod anti-affinity on the
    host name), never on a Karpenter node, and (with the package's node selector) only on the system node group: the
    rule of ``cluster.system_node_group.desired_size`` (``gpu_components/aws/cluster.py``)."""
    objects = _chart_defaults(KARPENTER_CHART, settings={"clusterName": "c"})
    deployment = _workloads(objects, "Deployment")["karpenter"]
    assert deployment["spec"]["replicas"] == karpenter_controller.CHART_REPLICAS == 2
    affinity = deployment["spec"]["template"]["spec"]["affinity"]
    (anti,) = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    (term,) = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}
    one = _chart_defaults(KARPENTER_CHART, settings={"clusterName": "c"}, replicas=1)
    assert _workloads(one, "Deployment")["karpenter"]["spec"]["replicas"] == 1
    for name, plan, release in _example_releases():
        if release["inputs"]["chart"] == KARPENTER_CHART:
            (group,) = (r for r in plan["resources"] if r["name"].endswith("-system") and "nodeGroup" in r["type"])
            assert group["inputs"]["scalingConfig"]["desiredSize"] >= deployment["spec"]["replicas"], name


def test_the_dra_chart_values_the_package_knows() -> None:
    """``DRA_CHART_VALUE_KEYS`` are the chart's top-level keys in order; every nested value of the chart's
    ``values.yaml`` (all features on: GPUs, ComputeDomains, the webhook) that changes the rendered objects is one of
    ``DRA_CHART_NESTED_VALUES`` (or below one), and each of those that ``values.yaml`` declares changes them; the
    template-only ``maskNvidiaDriverParams`` is read."""
    directory = helm.chart_dir(DRA_DRIVER_CHART, dra_driver.DRA_DRIVER_CHART_VERSION)
    declared = yaml.safe_load((directory / "values.yaml").read_text())
    assert tuple(declared) == dra_driver.DRA_CHART_VALUE_KEYS
    features = {
        "gpuResourcesEnabledOverride": True,
        "resources": {"computeDomains": {"enabled": True}, "gpus": {"enabled": True}},
        "webhook": {"enabled": True, "tls": {"mode": "secret", "secret": {"name": "oracle-tls"}}},
    }
    values = _merged(declared, features)
    inputs = {"chart": DRA_DRIVER_CHART, "version": "0.4.1", "name": "dra", "namespace": "oracle", "values": values}
    nested = set(dra_driver.DRA_CHART_NESTED_VALUES)
    read_unlisted, listed_unread, probed = [], [], 0
    for path in helm.value_paths(values):
        if len(path) < 2:
            continue
        dotted, probed = ".".join(path), probed + 1
        read = not helm.ignored_path(inputs, path)
        covered = any(dotted == known or dotted.startswith(known + ".") for known in nested)
        if read and not covered:
            read_unlisted.append(dotted)
        if not read and dotted in nested:
            listed_unread.append(dotted)
    assert probed >= 60
    assert (read_unlisted, listed_unread) == ([], [])
    masked = {**inputs, "values": {**values, "maskNvidiaDriverParams": True}}
    assert not helm.ignored_path(masked, ("maskNvidiaDriverParams",))


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        both = isinstance(value, Mapping) and isinstance(out.get(key), Mapping)
        out[key] = _merged(out[key], value) if both else value
    return out


def test_a_pool_the_dra_kubelet_plugin_misses_is_noticed() -> None:
    """The placement check fails where the chart's kubelet plugin would not run on a DRA pool of the plan."""
    _, plan, release = next(r for r in _example_releases() if r[0] == "aws-eks-dra" and "dra" in r[2]["name"])
    inputs = copy.deepcopy(dict(release["inputs"]))
    affinity = inputs["values"]["kubeletPlugin"]["affinity"]
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert [t["matchExpressions"][0]["values"] for t in terms["nodeSelectorTerms"]] == [["l40s"], ["h100-mig"]]
    del terms["nodeSelectorTerms"][1]
    problems = _dra_driver(plan, inputs, helm.render(inputs))
    assert problems == [
        "the kubelet plugin does not select gpu-demo-gpu-h100-mig-node-group ({'gpu-components/gpu-access': 'dra', "
        "'gpu-components/pool': 'h100-mig', 'nvidia.com/mig.config': 'all-1g.10gb'})"
    ]


def test_a_critical_priority_gke_refuses_is_noticed() -> None:
    """Without the GKE DRA setting (``kubeletPlugin.priorityClassName: ""``) the chart's kubelet plugin would be
    ``system-node-critical`` in a namespace without a ResourceQuota admitting it: the check says so."""
    _, plan, release = next(r for r in _example_releases() if r[0] == "gcp-gke-dra")
    inputs = copy.deepcopy(dict(release["inputs"]))
    assert inputs["values"]["kubeletPlugin"].pop("priorityClassName") == ""
    assert _gke_priority_admitted(plan, helm.render(inputs), inputs["namespace"]) == [
        "DaemonSet dra-driver-nvidia-gpu-kubelet-plugin: GKE refuses system-node-critical in dra-driver-nvidia-gpu"
    ]
