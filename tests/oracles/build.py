"""Build the oracles (real programs from their published Go modules) once, and cache the binaries outside the repo.

Each oracle module is a small wrapper Go module under ``oracles/<name>/`` whose ``go.mod`` requires the upstream
modules at the versions of ``oracles/pins.toml``. :func:`binaries` builds the named packages of one wrapper
module with ``go build -trimpath -mod=readonly`` into ``<cache>/<name>-<key>/``, where the key hashes everything
the build reads from us (the wrapper's files, ``go version``, the targets). A later run with the same key reuses the
binaries (seconds); a changed pin or Go version builds anew (minutes, the first time).

The cache is ``$GPU_COMPONENTS_ORACLE_CACHE``, else ``$XDG_CACHE_HOME/gpu-components/oracles``, else
``~/.cache/gpu-components/oracles``. Go's own module and build caches (``go env GOMODCACHE GOCACHE``) are used as
they are, so nothing is written inside the repository.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
ORACLES = ROOT / "oracles"
PINS = ORACLES / "pins.toml"


class OracleBuildError(RuntimeError):
    """An oracle could not be built or fetched (Go's own message inside): the test errors with that message alone,
    not a Python traceback (``tests/oracles/conftest.py``)."""


def go_missing() -> str | None:
    """Why the oracles cannot run here (``None`` where they can): the Go toolchain is not on ``PATH``."""
    if shutil.which("go") is None:
        return "Go is not on PATH: the oracles build NVIDIA's, Helm's and Kubernetes' programs from the Go module proxy"
    return None


def cache_dir() -> Path:
    """Where built oracle binaries are kept (outside the repository)."""
    explicit = os.environ.get("GPU_COMPONENTS_ORACLE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-components" / "oracles"


def pins() -> dict[str, dict[str, str]]:
    """The oracle pins, by oracle name: ``module``, ``version``, ``wrapper`` and, where one applies, ``chart``."""
    data = tomllib.loads(PINS.read_text())
    return {name: {k: str(v) for k, v in entry.items()} for name, entry in data.items()}


def _go_env() -> dict[str, str]:
    env = dict(os.environ)
    flags = env.get("GOFLAGS", "").split()
    if not any(flag.startswith("-buildvcs") for flag in flags):
        flags.append("-buildvcs=false")
    env["GOFLAGS"] = " ".join(flags)
    return env


def _go(args: list[str], cwd: Path) -> str:
    done = subprocess.run(["go", *args], cwd=cwd, env=_go_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OracleBuildError(f"go {' '.join(args)} (in {cwd}) failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def _key(wrapper: Path, targets: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    digest.update(_go(["version"], wrapper).encode())
    for path in sorted(p for p in wrapper.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(wrapper)).encode())
        digest.update(path.read_bytes())
    digest.update(json.dumps(dict(targets), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def binaries(
    wrapper: str, targets: Mapping[str, str], cgo: bool = False, ldflags: Sequence[str] = ()
) -> dict[str, Path]:
    """Build (or reuse) the binaries ``targets`` (binary name -> Go package path) of the wrapper module
    ``oracles/<wrapper>``; returns binary name -> path. Safe to call from several test processes at once (a file
    lock per build). ``cgo`` builds with ``CGO_ENABLED=1`` (NVIDIA's NVML bindings need it); otherwise 0.
    ``ldflags`` are passed to the linker (``-X pkg.Version=v1.2.3``: the version a program reports of itself).

    Raises :class:`OracleBuildError` with Go's output when the build fails (nothing is left in the cache).
    """
    module = ORACLES / wrapper
    extra = {"__ldflags__": " ".join(ldflags)} if ldflags else {}
    key = _key(module, {**targets, "__cgo__": str(cgo), **extra})
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    out = root / f"{wrapper}-{key}"
    wanted = {name: out / name for name in targets}
    with open(root / f"{wrapper}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(path.exists() for path in wanted.values()):
            return wanted
        staging = Path(tempfile.mkdtemp(prefix=f"{wrapper}.staging-", dir=root))
        try:
            started = time.monotonic()
            env_cgo = "1" if cgo else "0"
            if all(name == package.rstrip("/").rsplit("/", 1)[-1] for name, package in targets.items()):
                # One `go build -o <dir>/` for all: the packages' shared dependencies compile once, in parallel.
                _go_build(module, list(targets.values()), staging / "", env_cgo, ldflags)
            else:
                for name, package in targets.items():
                    _go_build(module, [package], staging / name, env_cgo, ldflags)
            (staging / "BUILD").write_text(f"built in {time.monotonic() - started:.0f} s\n")
            if out.exists():
                shutil.rmtree(out)
            staging.rename(out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    _prune(root, wrapper, keep=out)
    return wanted


def _prune(root: Path, wrapper: str, keep: Path) -> None:
    """Remove the wrapper's builds other than ``keep`` (earlier pins or Go versions), so the cache holds one build
    per wrapper; a build another process holds the lock of is left alone."""
    own = re.compile(re.escape(wrapper) + r"-[0-9a-f]{16}")
    for entry in root.iterdir():
        if entry == keep or not entry.is_dir() or not own.fullmatch(entry.name):
            continue
        lock_path = root / f"{entry.name}.lock"
        with open(lock_path, "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            shutil.rmtree(entry, ignore_errors=True)
        lock_path.unlink(missing_ok=True)


def _go_build(module: Path, packages: list[str], target: Path, cgo: str, ldflags: Sequence[str] = ()) -> None:
    """``go build`` of ``packages`` into ``target``: a file for one package, a directory (ending in ``/``, each
    binary named after its package) for several."""
    env = _go_env()
    env["CGO_ENABLED"] = cgo
    out = f"{target}/" if len(packages) > 1 else str(target)
    linker = ["-ldflags", " ".join(ldflags)] if ldflags else []
    args = ["go", "build", "-trimpath", "-mod=readonly", *linker, "-o", out, *packages]
    done = subprocess.run(args, cwd=module, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OracleBuildError(f"{' '.join(args)} (in {module}) failed:\n{done.stdout}{done.stderr}")


def module_source(module: str, version: str) -> Path:
    """The unpacked source of ``module@version`` in Go's module cache (``go mod download``), read-only: where the
    charts that ship inside a Go module (device plugin, DRA driver, GPU Operator, Karpenter) are read from."""
    out = _go(["mod", "download", "-json", f"{module}@{version}"], ORACLES)
    return Path(json.loads(out)["Dir"])


def mark_go_tests(items: list[pytest.Item], here: Path, marker: pytest.MarkDecorator, missing_reason: str) -> None:
    """Give every collected test under ``here`` ``marker``, and skip them with ``missing_reason`` where Go is not on
    ``PATH`` (the one reason a run prints for them)."""
    missing = go_missing()
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(marker)
            if missing is not None:
                item.add_marker(pytest.mark.skip(reason=missing_reason))


def open_report(env: str, prefix: str) -> None:
    """Name, in ``env``, the JSON-lines file a run's tests append their records to (under pytest-xdist the workers
    inherit it from the controller), unless a parent run named one already."""
    if env not in os.environ:
        handle, path = tempfile.mkstemp(prefix=prefix, suffix=".jsonl")
        os.close(handle)
        os.environ[env] = path


def take_report(config: pytest.Config, env: str) -> list[str]:
    """The records the run's tests appended to the file of :func:`open_report`, read once by the controller (the
    file is removed); ``[]`` in an xdist worker or where no test recorded anything."""
    path = Path(os.environ.get(env, ""))
    if hasattr(config, "workerinput") or not path.is_file():
        return []
    lines = path.read_text().splitlines()
    path.unlink()
    return lines
