"""The TypeScript and Go SDKs of the gpu-components package, generated as ``pulumi package add`` generates them, and the
toolchains that compile them and type-check programs on them (tests/languages/test_sdks.py).

- :func:`generate` runs Pulumi's own SDK generators (``oracles/pulumi-codegen``: github.com/pulumi/pulumi/pkg/v3
  codegen/nodejs and codegen/go at the version of ``oracles/pins.toml`` [pulumi-codegen], built once into the oracle
  cache) on ``schema.json``.
- :func:`typescript_project` lays out, in a directory outside the repository, the TypeScript program project of
  ``tests/languages/typescript`` (its ``package.json`` and ``package-lock.json`` pin every npm package) with the SDK
  at ``sdks/gpu-components``, linked as ``file:sdks/gpu-components`` as ``pulumi package add`` links it, and runs
  ``npm ci`` (npm's own cache, outside the repository). The SDK is compiled as its own ``postinstall`` script does
  (``tsc --types node`` in the SDK, with the TypeScript its ``package.json`` asks for, nested under it by npm).
- :func:`go_project` lays out the Go program of ``tests/languages/go`` with the SDK at ``sdks/gpu-components`` (its
  ``go.mod`` replaces the SDK module with that directory, as ``pulumi package add`` does); :func:`go` runs ``go
  build``/``go vet`` there with ``-mod=readonly`` (Go's own module and build caches).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.oracles.build import _go_env, binaries

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCHEMA = ROOT / "schema.json"
TYPESCRIPT = HERE / "typescript"
TYPESCRIPT_EXAMPLE = ROOT / "examples" / "typescript-eks"
GO = HERE / "go"
SDK = Path("sdks") / "gpu-components"
"""Where ``pulumi package add`` writes the SDK, relative to the program's project directory."""

GO_SDK_MODULE = "example.com/pulumi-gpu-components/sdk/go"
"""The Go SDK's module path: the generator's default for a schema without a Go ``importBasePath`` or repository."""

GO_SDK_PACKAGE = f"{GO_SDK_MODULE}/gpucomponents"


@dataclass(frozen=True)
class Run:
    """One command's exit status, its stdout and stderr together, and its wall time."""

    returncode: int
    output: str
    seconds: float


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    started = time.monotonic()
    done = subprocess.run(
        ["nice", "-n", "10", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    return Run(done.returncode, done.stdout, time.monotonic() - started)


def _checked(run: Run, what: str) -> Run:
    if run.returncode != 0:
        raise RuntimeError(f"{what} failed ({run.returncode}):\n{run.output}")
    return run


def codegen() -> Path:
    """The built ``pulumi-codegen`` (Pulumi's SDK generators behind ``oracles/pulumi-codegen/main.go``)."""
    return binaries("pulumi-codegen", {"pulumi-codegen": "."})["pulumi-codegen"]


@dataclass(frozen=True)
class Generated:
    """An SDK written by :func:`generate`: the files it wrote (relative paths, sorted) and the generator's
    diagnostics (warnings and errors, one line each)."""

    directory: Path
    files: list[str]
    diagnostics: list[str]
    seconds: float


def generate(language: str, out: Path, schema: Path = SCHEMA, namespace: str = "") -> Generated:
    """Generate the ``language`` (``nodejs`` or ``go``) SDK of ``schema`` into ``out``, as ``pulumi package add`` of a
    local path does; ``namespace`` as it does for a git source (the URL's owner)."""
    started = time.monotonic()
    done = subprocess.run(
        [str(codegen()), "-schema", str(schema), "-language", language, "-out", str(out), "-namespace", namespace],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"pulumi-codegen -language {language} failed ({done.returncode}):\n{done.stderr}")
    diagnostics = [line.removeprefix("diagnostic: ") for line in done.stderr.splitlines()]
    return Generated(out, sorted(done.stdout.split()), diagnostics, time.monotonic() - started)


def resources() -> dict[str, dict[str, object]]:
    """The schema's resources (components), by class name."""
    spec = json.loads(SCHEMA.read_text())
    return {token.rsplit(":", 1)[1]: value for token, value in spec["resources"].items()}


def file_stem(class_name: str) -> str:
    """The generators' file name of a class (both name files lowerCamelCase): ``GpuCluster`` -> ``gpuCluster``."""
    return class_name[0].lower() + class_name[1:]


# TypeScript -----------------------------------------------------------------------------------------------------


def typescript_project(work: Path) -> tuple[Path, Generated, Run]:
    """The TypeScript program project in ``work`` (created) with the generated SDK, its npm packages installed:
    the project directory, the SDK and the ``npm ci`` run. Install scripts are not run by ``npm ci``;
    :func:`compile_typescript_sdk` runs the SDK's."""
    work.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json", "tsconfig.json", "index.ts"):
        shutil.copy(TYPESCRIPT / name, work / name)
    sdk = generate("nodejs", work / SDK)
    install = _checked(
        _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], work),
        "npm ci",
    )
    return work, sdk, install


def compile_typescript_sdk(project: Path) -> Run:
    """Compile the SDK as its ``postinstall`` script does: ``tsc --types node`` in the SDK directory, with the
    TypeScript its own ``package.json`` depends on (npm nests it under the SDK when the program's differs)."""
    sdk = project / SDK
    tsc = sdk / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.is_file():
        tsc = project / "node_modules" / "typescript" / "bin" / "tsc"
    return _run(["node", str(tsc), "--types", "node"], sdk)


def typescript_version(directory: Path) -> str:
    """The version of the ``typescript`` package that resolves from ``directory``'s ``node_modules``."""
    return str(json.loads((directory / "node_modules" / "typescript" / "package.json").read_text())["version"])


def typecheck_typescript(project: Path, program: str = "index.ts", tsconfig: Path | None = None) -> Run:
    """``tsc --noEmit`` of ``program`` (in ``project``) with the program project's TypeScript and the compiler options
    of ``tsconfig`` (default: the project's tsconfig.json); diagnostics without colours (``pretty: false``)."""
    config = project / "tsconfig.json"
    if program != "index.ts" or tsconfig is not None:
        options = json.loads((tsconfig or config).read_text())["compilerOptions"] | {"pretty": False}
        config = project / f"tsconfig.{Path(program).stem}.json"
        config.write_text(json.dumps({"compilerOptions": options, "files": [program]}) + "\n")
    tsc = project / "node_modules" / "typescript" / "bin" / "tsc"
    return _run(["node", str(tsc), "--noEmit", "-p", str(config)], project)


_TS_PROPERTY = re.compile(r"^    (?:readonly )?(\w+)(\?)?: ", re.MULTILINE)


def typescript_interface(source: str, name: str) -> dict[str, bool]:
    """Property name -> required, of ``export interface <name> { ... }`` in a generated TypeScript file."""
    match = re.search(rf"^export interface {name} \{{\n(.*?)^\}}", source, re.MULTILINE | re.DOTALL)
    assert match is not None, f"interface {name} not found"
    return {m.group(1): m.group(2) is None for m in _TS_PROPERTY.finditer(match.group(1))}


# Go -------------------------------------------------------------------------------------------------------------


def go_project(work: Path) -> tuple[Path, Generated]:
    """The Go program project in ``work`` (created) with the generated SDK at ``sdks/gpu-components``."""
    work.mkdir(parents=True, exist_ok=True)
    for name in ("go.mod", "go.sum", "main.go"):
        shutil.copy(GO / name, work / name)
    return work, generate("go", work / SDK)


_GO_DOWNLOADING = re.compile(r"^go: downloading \S+ \S+\n", re.MULTILINE)
"""Go's progress line for a module fetched into an empty module cache (a fresh CI machine): not a diagnostic."""


def go(project: Path, *args: str) -> Run:
    """``go <args>`` in ``project`` with Go's own caches (never ``-mod=mod``: go.mod and go.sum are the pins); the
    output leaves out Go's ``go: downloading <module> <version>`` progress lines, which only a cold cache prints."""
    ran = _run(["go", *args], project, _go_env())
    return Run(ran.returncode, _GO_DOWNLOADING.sub("", ran.output), ran.seconds)


_GO_FIELD = re.compile(r"^\t(\w+) +(\S+)(?: +`pulumi:\"(\w+)\"`)?$", re.MULTILINE)


def go_struct(source: str, name: str) -> dict[str, tuple[str, str | None]]:
    """Field name -> (Go type, ``pulumi`` tag) of ``type <name> struct { ... }`` in a generated Go file."""
    match = re.search(rf"^type {name} struct \{{\n(.*?)^\}}", source, re.MULTILINE | re.DOTALL)
    assert match is not None, f"struct {name} not found"
    return {m.group(1): (m.group(2), m.group(3)) for m in _GO_FIELD.finditer(match.group(1))}
