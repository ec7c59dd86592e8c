"""The real Pulumi CLI for the language tests: built once from the Go module proxy, run in a sandbox.

:func:`pulumi_binaries` builds (or reuses, see ``tests/oracles/build.py``) the Pulumi CLI of ``oracles/pins.toml``
``[pulumi]`` and the YAML language host of ``[pulumi-language-yaml]`` into the oracle cache outside the repository.
:class:`Pulumi` runs that CLI with a sandboxed environment: ``PULUMI_HOME`` in a temporary directory, the local
file backend (``PULUMI_BACKEND_URL=file://...``), a passphrase secrets provider, no update check and no automatic
plugin downloads, and a ``PATH`` of the built binaries only (no ``uv``, no other ``pulumi``, language host or
plugin the machine may have).

Pulumi's Python, Node.js and Go language hosts are not served by the Go module proxy (403 for every version), so
only YAML programs run here, and a ``runtime: python`` plugin (``PulumiPlugin.yaml``) cannot be started by this CLI:
the package is given to it as its executable provider, ``pulumi-resource-gpu-components``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.oracles.build import binaries, module_source, pins

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
PASSPHRASE = "gpu-components-tests"

# What the proxy answers for Pulumi's own language hosts (checked 2026-12-04): `go list -m` of any version, e.g.
# https://proxy.golang.org/github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3/@v/list -> 403.
UNSERVED_HOSTS = {
    "python": "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3",
    "nodejs": "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3",
    "go": "github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3",
}


def pulumi_binaries() -> dict[str, Path]:
    """Build (or reuse) ``pulumi`` and ``pulumi-language-yaml``; returns name -> path."""
    pinned = pins()
    cli = pinned["pulumi"]["version"]
    yaml = pinned["pulumi-language-yaml"]["version"]
    built = binaries(
        "pulumi",
        {"pulumi": "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"},
        ldflags=[f"-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version={cli}"],
    )
    built.update(
        binaries(
            "pulumi-yaml",
            {"pulumi-language-yaml": "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"},
            ldflags=[f"-X github.com/pulumi/pulumi-yaml/pkg/version.Version={yaml}"],
        )
    )
    return built


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class Pulumi:
    """The built CLI in a sandbox under ``home`` (a fresh temporary directory)."""

    def __init__(self, built: dict[str, Path], home: Path, extra_path: list[Path] | None = None) -> None:
        self.built = built
        self.home = home
        self.bin = home / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        for name, path in built.items():
            link = self.bin / name
            if not link.exists():
                link.symlink_to(path)
        (home / "state").mkdir(exist_ok=True)
        (home / "pulumi-home").mkdir(exist_ok=True)
        # Only the built binaries: no language host, plugin or uv a machine may have installed is found.
        search = [str(self.bin), *(str(p) for p in extra_path or [])]
        self.env = {
            "HOME": str(home),
            "PATH": os.pathsep.join(search),
            "PULUMI_HOME": str(home / "pulumi-home"),
            "PULUMI_BACKEND_URL": f"file://{home / 'state'}",
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_SKIP_UPDATE_CHECK": "1",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "PULUMI_SKIP_CONFIRMATIONS": "1",
            "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "1",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
        }
        for name in ("TMPDIR", "SSL_CERT_FILE"):
            if name in os.environ:
                self.env[name] = os.environ[name]

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.env["PATH"])

    def run(self, *args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) -> Result:
        argv = [str(self.bin / "pulumi"), *args]
        done = subprocess.run(
            argv,
            cwd=cwd,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Result(list(args), done.returncode, done.stdout, done.stderr)


def kubernetes_provider() -> Path:
    """Build (or reuse) ``pulumi-resource-kubernetes`` of ``oracles/pins.toml`` [pulumi-resource-kubernetes]; it
    reads its schema from ``$GPU_COMPONENTS_KUBERNETES_SCHEMA`` (:func:`kubernetes_schema`)."""
    built = binaries("pulumi-kubernetes", {"pulumi-resource-kubernetes": "./pulumi-resource-kubernetes"})
    return built["pulumi-resource-kubernetes"]


def kubernetes_schema() -> Path:
    """The schema the pulumi-kubernetes provider module ships (``cmd/pulumi-resource-kubernetes/schema.json``)."""
    pin = pins()["pulumi-resource-kubernetes"]
    return module_source(pin["module"], pin["version"]) / "cmd" / "pulumi-resource-kubernetes" / "schema.json"
