"""The Kubernetes oracle: a real control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager)
built from ``k8s.io/kubernetes`` (``oracles/pins.toml`` ``[kube-apiserver]``) judges the plans' objects.

- :func:`kube_binaries` builds etcd (``go.etcd.io/etcd/server/v3/etcdmain``, the version ``k8s.io/kubernetes``
  requires) and the three control-plane commands in ONE ``go build`` of the wrapper module ``oracles/kube`` (about
  7 minutes with an empty Go build cache on 2 cores, then reused from the binary cache). kubectl is not built: the
  harness sends the requests ``kubectl apply --server-side`` would send itself, which saves its build.
- :class:`ControlPlane` runs them on 127.0.0.1 only (random free ports below the kernel's ephemeral range, a temporary
  directory, kube-apiserver's self-signed serving certificate from ``--cert-dir``, a static admin token, an
  ``openssl``-made service-account key), waits for ``/readyz`` and stops every process it started. It talks to the API
  over HTTPS with the token: :meth:`ControlPlane.apply` is server-side apply (``PATCH``
  ``application/apply-patch+yaml``, the request ``kubectl apply --server-side`` sends), optionally ``dryRun=All``; the
  API server runs its OpenAPI schema, CEL rules and admission on it exactly as for ``pulumi up``. Two admission plugins
  are off: ``ServiceAccount`` (no token controller runs, no kubelet starts a pod) and ``TaintNodesByCondition`` (its
  ``not-ready`` taint on a new Node is lifted by the node lifecycle controller, which does not run: the nodes here are
  registered Ready).
- :func:`plan_objects` turns a plan into the Kubernetes objects ``pulumi up`` would send: each ``kubernetes:*``
  resource's ``inputs`` is the object (``kubernetes:<group>/<version>:<Kind>`` -> ``apiVersion``/``kind``), and each
  ``kubernetes:helm.sh/v3:Release`` is rendered by the Helm oracle (``tests.oracles.helm.render``) where it is
  available. ``kubernetes:yaml/v2:ConfigFile`` resources name a URL (GKE's driver installer manifest) that is
  not reachable offline: they are listed in :attr:`PlanObjects.skipped`.

Kubernetes version: the binaries are 1.36 (``k8s.io/kubernetes`` v1.36.3, the served release); the example stacks
ask the clouds for 1.34. Every API the plans use (``resource.k8s.io/v1``, ``batch/v1``, CRD validation with CEL)
is served by both unchanged.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import ROOT
from tests.oracles.build import binaries

REFERENCE = ROOT / "tests" / "reference"
"""The unchanged upstream CRDs and CRD schemas (its README names each file's upstream commit)."""

TARGETS = {
    "etcd": "./etcd",
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
}

TOKEN = "gpu-components-oracle-admin"
FIELD_MANAGER = "gpu-components-oracle"
READY_TIMEOUT = 90.0


def kube_binaries() -> dict[str, Path]:
    """etcd, kube-apiserver, kube-scheduler and kube-controller-manager (one build, cached outside the repo)."""
    return binaries("kube", TARGETS)


class ApiError(RuntimeError):
    """The API server refused a request: ``status`` (HTTP code), ``reason`` and the server's ``message``."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message


PORT_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 10000
START_ATTEMPTS = 3
"""A control plane whose process lost a port to another process between :func:`_free_port` and its bind (``address
already in use``) is stopped and started again on new ports, at most this many times in all."""


def _free_port() -> int:
    """A port free on 127.0.0.1 now, picked at random BELOW the kernel's ephemeral range (``ip_local_port_range``):
    ports the kernel hands to outgoing connections (kube-apiserver's to etcd, another test's) are never chosen, so
    only another test picking the same port at random can take it before the server binds (see START_ATTEMPTS)."""
    ephemeral_low = int(PORT_RANGE_FILE.read_text().split()[0]) if PORT_RANGE_FILE.exists() else 32768
    for _ in range(1000):
        port = random.randrange(LOWEST_PORT, ephemeral_low)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port on 127.0.0.1 in [{LOWEST_PORT}, {ephemeral_low})")


class PortTaken(RuntimeError):
    """A control-plane process exited because its port was taken (``address already in use`` in its log)."""


@dataclass
class ControlPlane:
    """etcd + kube-apiserver (+ :meth:`start_controllers`: kube-scheduler, kube-controller-manager) in ``root``."""

    bins: Mapping[str, Path]
    root: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    port: int = 0
    _resources: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)
    _ssl: ssl.SSLContext = field(default_factory=ssl.create_default_context)
    _local: threading.local = field(default_factory=threading.local)

    # ---- processes -------------------------------------------------------------------------------------------
    def _spawn(self, name: str, args: list[str]) -> None:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 - owned by the process until stop()
        self.processes[name] = subprocess.Popen(
            [str(self.bins[name]), *args], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()

    def start(self) -> None:
        """Start etcd and kube-apiserver and wait until the API server is ready (again on new ports, up to
        START_ATTEMPTS times in all, when a process lost its port: :class:`PortTaken`)."""
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._start_once()
                return
            except PortTaken:
                self.stop()
                shutil.rmtree(self.root / "etcd", ignore_errors=True)
                if attempt == START_ATTEMPTS:
                    raise

    def _start_once(self) -> None:
        client, peer, self.port = _free_port(), _free_port(), _free_port()
        etcd_dir = self.root / "etcd"
        self._spawn(
            "etcd",
            [
                "--name=oracle",
                f"--data-dir={etcd_dir}",
                f"--listen-client-urls=http://127.0.0.1:{client}",
                f"--advertise-client-urls=http://127.0.0.1:{client}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-cluster=oracle=http://127.0.0.1:{peer}",
                "--unsafe-no-fsync",
                "--log-level=warn",
            ],
        )
        key = self.root / "sa.key"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        (self.root / "tokens.csv").write_text(f'{TOKEN},oracle-admin,oracle-admin,"system:masters"\n')
        self._spawn(
            "kube-apiserver",
            [
                f"--etcd-servers=http://127.0.0.1:{client}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={self.port}",
                f"--cert-dir={self.root / 'certs'}",
                f"--token-auth-file={self.root / 'tokens.csv'}",
                "--authorization-mode=RBAC",
                "--service-account-issuer=https://kubernetes.default.svc",
                f"--service-account-key-file={key}",
                f"--service-account-signing-key-file={key}",
                "--service-cluster-ip-range=10.96.0.0/16",
                "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
                "--allow-privileged=true",
                "--endpoint-reconciler-type=none",
                "--enable-priority-and-fairness=false",
                "--profiling=false",
            ],
        )
        self._wait_ready()
        # kube-apiserver wrote its self-signed serving certificate (for 127.0.0.1); trust exactly that one.
        self._ssl = ssl.create_default_context(cafile=str(self.root / "certs" / "apiserver.crt"))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE  # only for the readiness probe, before the certificate exists
        while time.monotonic() < deadline:
            for name, proc in self.processes.items():
                if proc.poll() is not None:
                    log = self.log(name)
                    error = PortTaken if "address already in use" in log else RuntimeError
                    raise error(f"{name} exited with {proc.returncode}:\n{log[-4000:]}")
            try:
                request = urllib.request.Request(f"https://127.0.0.1:{self.port}/readyz", headers=self._headers())
                with urllib.request.urlopen(request, context=insecure, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"kube-apiserver not ready after {READY_TIMEOUT} s:\n{self.log('kube-apiserver')[-4000:]}")

    def kubeconfig(self) -> Path:
        """A kubeconfig for the admin token (for the scheduler and the controller manager)."""
        path = self.root / "kubeconfig"
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "oracle",
                    "cluster": {
                        "server": f"https://127.0.0.1:{self.port}",
                        "certificate-authority": str(self.root / "certs" / "apiserver.crt"),
                    },
                }
            ],
            "users": [{"name": "admin", "user": {"token": TOKEN}}],
            "contexts": [{"name": "oracle", "context": {"cluster": "oracle", "user": "admin"}}],
            "current-context": "oracle",
        }
        path.write_text(json.dumps(config))
        return path

    def start_controllers(self) -> None:
        """Start kube-scheduler (DRA is on by default: GA since 1.34) and kube-controller-manager with only the
        controllers placement needs: DaemonSets, Jobs and ResourceClaims (claims from a pod's templates)."""
        kubeconfig = self.kubeconfig()
        common = [
            f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
        ]
        self._spawn("kube-scheduler", [*common, f"--secure-port={_free_port()}"])
        self._spawn(
            "kube-controller-manager",
            [
                *common,
                f"--secure-port={_free_port()}",
                "--controllers=daemonset-controller,job-controller,resourceclaim-controller",
                "--concurrent-daemonset-syncs=5",
            ],
        )

    def log(self, name: str) -> str:
        """What process ``name`` wrote so far."""
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """Stop every process this control plane started (newest first), by its own process group."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        for name in reversed(list(self.processes)):
            proc = self.processes.pop(name)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()

    # ---- the API ---------------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}

    def _connection(self) -> http.client.HTTPSConnection:
        """This thread's kept-alive connection to the API server (one TLS handshake per thread, not per request)."""
        conn: http.client.HTTPSConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self._ssl, timeout=60)
            self._local.conn = conn
        return conn

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json", **query: str
    ) -> Any:
        """One API request; the decoded JSON answer, or :class:`ApiError` with the server's status message."""
        if query:
            path += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        headers = self._headers()
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                text = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
        if response.status < 400:
            return json.loads(text or b"null")
        try:
            status = json.loads(text)
        except json.JSONDecodeError:
            status = {"reason": response.reason, "message": text.decode(errors="replace")}
        raise ApiError(response.status, str(status.get("reason", "")), str(status.get("message", text)))

    def discover(self) -> None:
        """(Re)read which resources the server has: (apiVersion, kind) -> (plural, namespaced)."""
        self._resources.clear()
        versions = [("v1", "/api/v1")]
        for group in self.request("GET", "/apis")["groups"]:
            for version in group["versions"]:
                versions.append((version["groupVersion"], f"/apis/{version['groupVersion']}"))
        for group_version, path in versions:
            try:
                listing = self.request("GET", path)
            except ApiError:
                continue  # an aggregated or just-removed version
            for res in listing["resources"]:
                if "/" not in res["name"]:
                    self._resources[(group_version, res["kind"])] = (res["name"], res["namespaced"])

    def served(self, api_version: str, kind: str) -> bool:
        """Whether the server serves ``kind`` of ``api_version`` (after :meth:`discover`)."""
        return (api_version, kind) in self._resources

    def path(self, obj: Mapping[str, Any], named: bool = True) -> str:
        """The REST path of ``obj`` (its collection when ``named`` is false)."""
        api_version, kind = obj["apiVersion"], obj["kind"]
        if (api_version, kind) not in self._resources:
            self.discover()
        if (api_version, kind) not in self._resources:
            raise ApiError(404, "NotFound", f"the server does not serve {kind} of {api_version}")
        plural, namespaced = self._resources[(api_version, kind)]
        prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        meta = obj.get("metadata", {})
        if namespaced:
            prefix += f"/namespaces/{meta.get('namespace') or 'default'}"
        out = f"{prefix}/{plural}"
        return f"{out}/{meta['name']}" if named else out

    def apply(self, obj: Mapping[str, Any], dry_run: bool = False) -> Any:
        """Server-side apply of ``obj`` (what ``kubectl apply --server-side [--dry-run=server]`` sends)."""
        query = {"fieldManager": FIELD_MANAGER, "force": "true"}
        if dry_run:
            query["dryRun"] = "All"
        return self.request("PATCH", self.path(obj), obj, "application/apply-patch+yaml", **query)

    def send(self, obj: Mapping[str, Any], by_helm: bool, dry_run: bool = False) -> Any:
        """Send ``obj`` the way its Pulumi resource does: the Kubernetes provider's resources by server-side apply
        (its default since v4), a ``helm.sh/v3`` Release's objects by create, as Helm 3's install does (the API
        server prunes ``null`` from a CRD object on create but refuses it in an apply patch)."""
        if not by_helm:
            return self.apply(obj, dry_run)
        query = {"fieldManager": FIELD_MANAGER, **({"dryRun": "All"} if dry_run else {})}
        return self.request("POST", self.path(obj, named=False), obj, **query)

    def get(self, obj: Mapping[str, Any]) -> Any:
        """The object as the server holds it."""
        return self.request("GET", self.path(obj))

    def items(self, api_version: str, kind: str) -> list[dict[str, Any]]:
        """Every object of a kind, all namespaces."""
        plural, _ = self._resources.get((api_version, kind)) or (None, False)
        if plural is None:
            self.discover()
            plural, _ = self._resources[(api_version, kind)]
        prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        items: list[dict[str, Any]] = self.request("GET", f"{prefix}/{plural}")["items"]
        return items

    def install_crds(self, crds: Iterable[Mapping[str, Any]]) -> None:
        """Create CRDs and wait until each is Established and served."""
        names = []
        for crd in crds:
            self.apply(crd)
            names.append(crd["metadata"]["name"])
        deadline = time.monotonic() + 60
        for name in names:
            while True:
                got = self.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
                conditions = {c["type"]: c["status"] for c in (got.get("status") or {}).get("conditions") or []}
                if conditions.get("Established") == "True":
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"CRD {name} not established: {conditions}")
                time.sleep(0.2)
        self.discover()


CRD_FILES: Mapping[str, tuple[str, ...]] = {
    "aws": (
        "karpenter/aws-v1.14.1/karpenter.sh_nodepools.yaml",
        "karpenter/aws-v1.14.1/karpenter.k8s.aws_ec2nodeclasses.yaml",
    ),
    "azure": (
        "karpenter-azure/v1.14.2/karpenter.sh_nodepools.yaml",
        "karpenter-azure/v1.14.2/karpenter.azure.com_aksnodeclasses.yaml",
    ),
    "gcp": (),
}
"""The upstream CRDs each cloud's plans need (Karpenter's NodePool differs per provider: the AWS and Azure copies add
rules on their own label domains, so one control plane holds one cloud's copy)."""

SCHEMA_CRDS: Mapping[str, tuple[str, str, str, str, str]] = {
    "aws": ("eks-auto-mode/nodeclass_v1.schema.json", "eks.amazonaws.com", "NodeClass", "nodeclasses", "v1"),
    "gcp": ("gke/computeclass_v1.schema.json", "cloud.google.com", "ComputeClass", "computeclasses", "v1"),
}
"""EKS Auto Mode's ``NodeClass`` and GKE's ``ComputeClass`` have no public CRD, only JSON Schema conversions of the
served CRDs (``tests/reference/README.md``): the test wraps each into a cluster-scoped CRD (:func:`schema_crd`)."""


def _relax(schema: Any) -> Any:
    """A CRD-legal copy of a JSON Schema conversion: ``additionalProperties: false`` beside ``properties`` is not
    allowed in a CRD (and the EKS conversion predates later fields: an unknown field is unknown, not invalid), and
    ``metadata`` may only restrict ``name``."""
    if isinstance(schema, dict):
        out = {k: _relax(v) for k, v in schema.items() if not (k == "additionalProperties" and v is False)}
        return out
    if isinstance(schema, list):
        return [_relax(v) for v in schema]
    return schema


def schema_crd(file: str, group: str, kind: str, plural: str, version: str) -> dict[str, Any]:
    """A cluster-scoped CRD serving ``kind`` of ``group/version`` with the JSON Schema ``file`` as its schema."""
    schema = _relax(json.loads((REFERENCE / file).read_text()))
    schema["properties"]["metadata"] = {"type": "object"}
    schema.pop("description", None)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "scope": "Cluster",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def reference_crds(cloud: str) -> list[dict[str, Any]]:
    """The CRDs a ``cloud``'s plans need that no rendered chart brings."""
    crds = [yaml.safe_load((REFERENCE / file).read_text()) for file in CRD_FILES[cloud]]
    if cloud in SCHEMA_CRDS:
        crds.append(schema_crd(*SCHEMA_CRDS[cloud]))
    return crds


@contextmanager
def control_plane(bins: Mapping[str, Path], cloud: str | None = None) -> Iterator[ControlPlane]:
    """A running etcd + kube-apiserver (with ``cloud``'s reference CRDs installed), stopped and removed after."""
    root = Path(tempfile.mkdtemp(prefix="gpu-components-kube-"))
    plane = ControlPlane(bins, root)
    try:
        plane.start()
        plane.discover()
        if cloud is not None:
            plane.install_crds(reference_crds(cloud))
        yield plane
    finally:
        plane.stop()
        shutil.rmtree(root, ignore_errors=True)


# ---- plans -> objects ----------------------------------------------------------------------------------------
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"


def type_to_api(token: str) -> tuple[str, str]:
    """``kubernetes:core/v1:ConfigMap`` -> (``v1``, ``ConfigMap``); ``kubernetes:batch/v1:Job`` -> (``batch/v1``,
    ``Job``): the Pulumi Kubernetes provider's type tokens, ``kubernetes:<group or core>/<version>:<Kind>``."""
    _, group_version, kind = token.split(":")
    group, version = group_version.split("/")
    return (version if group == "core" else group_version), kind


@dataclass
class PlanObjects:
    """The Kubernetes objects of one plan, in apply order (CRDs, namespaces, the rest), and what was left out."""

    objects: list[dict[str, Any]]
    skipped: list[str]
    """``<resource name>: <why>`` for each Kubernetes resource that could not be turned into objects here."""
    helm: set[int] = field(default_factory=set)
    """``id()`` of the objects a Helm Release renders (sent as Helm sends them: :meth:`ControlPlane.send`)."""

    def by_helm(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` comes from a Helm Release (rather than a ``kubernetes:*`` resource of the plan)."""
        return id(obj) in self.helm

    @property
    def crds(self) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == "CustomResourceDefinition"]

    @property
    def rest(self) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] != "CustomResourceDefinition"]


def _helm_render() -> Any:
    try:
        from tests.oracles.helm import render  # the Helm oracle, where present
    except ImportError:
        return None
    return render


def helm_available() -> bool:
    """Whether the Helm oracle (``tests/oracles/helm.py``) is present to render the plans' Releases."""
    return _helm_render() is not None


def kube_version(plan: Mapping[str, Any]) -> str:
    """The Kubernetes version the plan's cluster asks for (``gpu-components:cluster.kubernetes_version``)."""
    cluster = plan.get("config", {}).get("gpu-components:cluster", {})
    if isinstance(cluster, str):
        cluster = json.loads(cluster)
    return str(cluster.get("kubernetes_version") or "1.34") if isinstance(cluster, dict) else "1.34"


def plan_objects(plan: Mapping[str, Any]) -> PlanObjects:
    """Every Kubernetes object the plan would create, with Helm Releases rendered by the Helm oracle."""
    render = _helm_render()
    objects: list[dict[str, Any]] = []
    skipped: list[str] = []
    helm: set[int] = set()
    for resource in plan["resources"]:
        token = resource["type"]
        if not token.startswith("kubernetes:") or token.startswith("kubernetes:pulumi"):
            continue
        if token == HELM_RELEASE:
            if render is None:
                skipped.append(f"{resource['name']}: Helm oracle (tests/oracles/helm.py) not present")
                continue
            namespace = resource["inputs"].get("namespace") or "default"
            for obj in render(resource["inputs"], kube_version(plan)):
                if obj and obj.get("kind"):
                    obj.setdefault("metadata", {})
                    obj["metadata"].setdefault("namespace", namespace)
                    objects.append(obj)
                    helm.add(id(obj))
            continue
        if token == CONFIG_FILE:
            skipped.append(f"{resource['name']}: a manifest by URL ({resource['inputs'].get('file')}), offline")
            continue
        obj = json.loads(json.dumps(resource["inputs"]))
        api_version, kind = type_to_api(token)
        obj.setdefault("apiVersion", api_version)
        obj.setdefault("kind", kind)
        assert (obj["apiVersion"], obj["kind"]) == (api_version, kind), resource["name"]
        objects.append(obj)
    order = {"CustomResourceDefinition": 0, "Namespace": 1}
    objects.sort(key=lambda o: order.get(o["kind"], 2))
    return PlanObjects(objects, skipped, helm)


def describe(obj: Mapping[str, Any]) -> str:
    """``Kind namespace/name`` of an object, for messages."""
    meta = obj.get("metadata", {})
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{obj['kind']} {where}{meta.get('name')}"
