"""The Helm oracle: Helm's own ``helm template`` renders the real charts with exactly a plan's Release values.

- :func:`helm_binary` builds Helm's CLI (``helm.sh/helm/v4/cmd/helm``, ``oracles/pins.toml`` ``[helm]``) once, through
  the wrapper module ``oracles/helm`` (:func:`tests.oracles.build.binaries`).
- :func:`chart_dir` maps a Release's ``chart`` / ``version`` inputs to the chart's source directory inside the Go
  module that ships it (``[helm-chart-*]`` tables: module, version, ``path``), read from Go's module cache through the
  wrapper module ``oracles/helm-charts`` whose ``go.sum`` pins their hashes. The published chart repositories are not
  reachable offline; the subcharts are vendored in those directories, so no ``helm dependency build`` is needed.
- :func:`render` runs ``helm template <name> <chart dir> --namespace <ns> --values <values.json> --include-crds
  --kube-version <version>`` and returns the parsed objects; cached per process by the hash of its arguments.
- :func:`ignored_values`: the value paths of a Release no template of the chart reads (rendering with the value
  changed gives the same objects).

Where the behaviour lives upstream: ``pkg/cmd/template.go`` (``helm template``), ``pkg/chart/v2/util/values.go``
(values merged over the chart's ``values.yaml``; a ``values.schema.json``, where a chart ships one, is checked in
``pkg/chart/common/util/jsonschema.go``), ``pkg/engine/engine.go`` (``fail`` in a template aborts the render).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from gpu_components.aws.facts import KARPENTER_CHART
from gpu_components.nvidia.device_plugin import DEVICE_PLUGIN_CHART
from gpu_components.nvidia.dra_driver import DRA_DRIVER_CHART
from gpu_components.nvidia.gpu_operator import GPU_OPERATOR_CHART
from tests.oracles.build import ORACLES, OracleBuildError, binaries, pins

HELM = "helm"
"""The Helm oracle's table in ``oracles/pins.toml``."""

CHART_TABLES: Mapping[str, str] = {
    DEVICE_PLUGIN_CHART: "helm-chart-device-plugin",
    DRA_DRIVER_CHART: "helm-chart-dra-driver",
    GPU_OPERATOR_CHART: "helm-chart-gpu-operator",
    KARPENTER_CHART: "helm-chart-karpenter",
}
"""A Release's ``chart`` input (as the package writes it) -> the ``oracles/pins.toml`` table of its source."""

DEFAULT_KUBE_VERSION = "1.34"
"""The cluster version a plan renders for when it names none (the package's default cluster version)."""


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it: parsing Helm's output (the CRDs are most of it) is 4x faster."""


class HelmError(RuntimeError):
    """``helm template`` refused a Release; ``stderr`` is Helm's message."""

    def __init__(self, release: str, stderr: str) -> None:
        super().__init__(f"helm template {release} failed:\n{stderr}")
        self.stderr = stderr


@functools.cache
def helm_binary() -> Path:
    """Helm's CLI built from ``helm.sh/helm/v4`` at the ``[helm]`` pin (cached outside the repo)."""
    return binaries(HELM, {"helm": "helm.sh/helm/v4/cmd/helm"})["helm"]


def chart_table(chart_ref: str) -> str:
    """The ``oracles/pins.toml`` table of the chart a Release's ``chart`` input names."""
    if chart_ref not in CHART_TABLES:
        raise KeyError(f"no chart source for {chart_ref!r}: add a [helm-chart-*] table and CHART_TABLES entry")
    return CHART_TABLES[chart_ref]


def pinned_chart_version(table: str) -> str:
    """The package's pin of the chart (``module:CONSTANT`` of the table's ``chart``)."""
    module, constant = pins()[table]["chart"].split(":")
    return str(getattr(__import__(module, fromlist=[constant]), constant))


@functools.cache
def chart_dir(chart_ref: str, version: str) -> Path:
    """The source directory of the chart ``chart_ref`` at the package's pinned ``version`` (read-only: Go's module
    cache). Only the package's pin has a source: another version raises ``KeyError``."""
    table = chart_table(chart_ref)
    if version != pinned_chart_version(table):
        raise KeyError(f"{chart_ref} {version}: only the package's pin {pinned_chart_version(table)} has a source")
    pin = pins()[table]
    download = subprocess.run(  # -mod=readonly: verified against the wrapper's go.sum, which is never rewritten
        ["go", "mod", "download", "-json", f"{pin['module']}@{pin['version']}"],
        cwd=ORACLES / pin["wrapper"],
        env={**os.environ, "GOFLAGS": "-mod=readonly"},
        capture_output=True,
        text=True,
        check=False,
    )
    if download.returncode != 0:
        wanted = f"{pin['module']}@{pin['version']}"
        raise OracleBuildError(f"go mod download {wanted} failed:\n{download.stdout}{download.stderr}")
    info = json.loads(download.stdout)
    path = Path(info["Dir"]) / pin["path"]
    if not (path / "Chart.yaml").is_file():
        raise FileNotFoundError(f"{pin['module']}@{pin['version']} has no chart at {pin['path']}")
    return path


def kube_version(plan: Mapping[str, Any]) -> str:
    """The Kubernetes version of a plan's cluster (EKS ``version``, AKS ``kubernetesVersion``, GKE
    ``minMasterVersion``), else :data:`DEFAULT_KUBE_VERSION`."""
    for resource in plan["resources"]:
        inputs = resource.get("inputs") or {}
        for key in ("version", "kubernetesVersion", "minMasterVersion"):
            if resource["type"] in _CLUSTER_TYPES and isinstance(inputs.get(key), str):
                return str(inputs[key])
    return DEFAULT_KUBE_VERSION


_CLUSTER_TYPES = frozenset(
    {
        "eks:index:Cluster",
        "aws:eks/cluster:Cluster",
        "azure-native:containerservice:ManagedCluster",
        "gcp:container/cluster:Cluster",
    }
)

RELEASE_TYPES = frozenset({"kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart"})
"""The plan resource types that install a Helm chart."""


def releases(plan: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The plan's Helm installs (their resources, with ``inputs``)."""
    for resource in plan["resources"]:
        if resource["type"] in RELEASE_TYPES:
            yield resource


def render(release_inputs: Mapping[str, Any], kube_version: str = DEFAULT_KUBE_VERSION) -> list[dict[str, Any]]:
    """``helm template`` of a Release: its ``chart``/``version`` from :func:`chart_dir`, its ``name`` (the release
    name), ``namespace`` and exactly its ``values``; the CRDs included. Returns the rendered objects (a fresh copy:
    callers may change them). Raises :class:`HelmError` with Helm's message when the chart refuses the values."""
    chart = str(release_inputs["chart"])
    version = str(release_inputs.get("version", ""))
    name = str(release_inputs.get("name") or chart.rsplit("/", 1)[-1])
    namespace = str(release_inputs.get("namespace") or "default")
    values = json.dumps(release_inputs.get("values") or {}, sort_keys=True)
    return copy.deepcopy(_render(chart, version, name, namespace, values, kube_version))


def prefetch(releases: Iterable[tuple[Mapping[str, Any], str]]) -> None:
    """Render many ``(release inputs, kube version)`` at once, one ``helm`` process per CPU, into :func:`render`'s
    cache (a refused one is left out: :func:`render` raises its error when asked)."""

    def one(item: tuple[Mapping[str, Any], str]) -> None:
        with contextlib.suppress(HelmError):
            render(*item)

    unique = {json.dumps([inputs, kube], sort_keys=True): (inputs, kube) for inputs, kube in releases}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(one, unique.values()))


@functools.lru_cache(maxsize=4096)
def _render(chart: str, version: str, name: str, namespace: str, values: str, kube: str) -> list[dict[str, Any]]:
    directory = chart_dir(chart, version)
    with tempfile.TemporaryDirectory(prefix="gpu-components-helm-") as tmp:
        values_file = Path(tmp) / f"values-{hashlib.sha256(values.encode()).hexdigest()[:12]}.json"
        values_file.write_text(values)
        args = [
            str(helm_binary()),
            "template",
            name,
            str(directory),
            "--namespace",
            namespace,
            "--values",
            str(values_file),
            "--include-crds",
            "--kube-version",
            kube,
        ]
        env = {
            **os.environ,
            "HELM_CACHE_HOME": f"{tmp}/cache",
            "HELM_CONFIG_HOME": f"{tmp}/config",
            "HELM_DATA_HOME": f"{tmp}/data",
            "KUBECONFIG": f"{tmp}/kubeconfig",
        }
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HelmError(f"{name} ({chart} {version})", done.stderr)
    return [doc for doc in yaml.load_all(done.stdout, Loader=_LOADER) if doc]


def value_paths(values: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every path of ``values`` to a value that is not a non-empty map (lists and empty maps are leaves)."""
    for key, value in values.items():
        path = (*prefix, key)
        if isinstance(value, Mapping) and value:
            yield from value_paths(value, path)
        else:
            yield path


def ignored_values(release_inputs: Mapping[str, Any], kube_version: str = DEFAULT_KUBE_VERSION) -> list[str]:
    """The dotted value paths of a Release (:func:`value_paths`) that no template reads (:func:`ignored_path`)."""
    paths = value_paths(release_inputs.get("values") or {})
    return [".".join(path) for path in paths if ignored_path(release_inputs, path, kube_version)]


def ignored_path(
    release_inputs: Mapping[str, Any], path: tuple[str, ...], kube_version: str = DEFAULT_KUBE_VERSION
) -> bool:
    """Whether no template reads the value at ``path``: rendering with it changed (to a different value of its
    type, then to an empty one) gives exactly the same objects. A change the chart refuses counts as read."""
    base = render(release_inputs, kube_version)
    return all(_renders_same(release_inputs, path, change, base, kube_version) for change in (_other, _empty))


def _renders_same(
    release_inputs: Mapping[str, Any],
    path: tuple[str, ...],
    change: Any,
    base: list[dict[str, Any]],
    kube: str,
) -> bool:
    changed = copy.deepcopy(dict(release_inputs))
    holder = changed["values"]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = change(holder[path[-1]])
    try:
        return render(changed, kube) == base
    except HelmError:
        return False


def _other(value: Any) -> Any:
    """A different value of the same type as ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + "-oracle"
    if isinstance(value, list):
        return [*value, copy.deepcopy(value[0]) if value else "oracle"]
    if isinstance(value, Mapping):
        return {**value, "oracleProbe": "oracle"}
    return "oracle"


def _empty(value: Any) -> Any:
    """The empty value of ``value``'s type (``None`` for a scalar that is already empty)."""
    if isinstance(value, bool):
        return not value
    return type(value)() if value or not isinstance(value, (str, int, float)) else None
