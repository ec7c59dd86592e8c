"""Install, type-check and test benchmark: what a new user and CI wait for, measured on fresh clones.

Run from the repository root (``make bench-install``, or ``.venv/bin/python benchmarks/bench_install.py``). It clones
the repository's ``HEAD`` (committed work only) into a temporary directory and measures, each as wall time around the
whole command:

1. ``make plan`` on a fresh clone, install included: once with the uv on ``PATH`` and the machine's uv cache (a
   developer's machine, CI's machine), once bootstrapping uv from PyPI into ``.tools/`` with an empty uv cache (a
   machine that never ran uv).
2. ``make check`` on another fresh clone (install, ruff, a cold ``mypy --strict``, the Python test suite: ``make
   test`` without the real programs of ``make oracles`` and ``make languages``, timed in README "Checked by the real
   programs"), then again in the same clone (warm: environment, mypy cache).
3. The PR check, warm: ``gpu-components plan --all --format json --out-dir`` and ``gpu-components diff`` of two plan
   directories.
4. One-cloud environments: for each extra (``aws``, ``azure``, ``gcp``), ``pip install .[<extra>]`` into an empty
   virtual environment (what a user with pip gets, byte-compiled), its size on disk, the plan of that cloud's
   example stack from it, and the clean error that importing another cloud's components gives there.

Targets (issue 11): ``make plan`` on a fresh clone <= 60 s; an AWS-only environment <= 450 MB; ``make check`` on a
fresh clone <= 240 s, warm <= 90 s; the PR check warm <= 20 s. ``--quick`` skips the cold-cache ``make plan`` and
the Azure and GCP environments.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"make plan, fresh clone": 60.0, "make check, fresh clone": 240.0, "make check, warm": 90.0, "PR check": 20.0}
"""What -> the target in seconds (issue 11)."""
TARGET_AWS_MB = 450.0
EXAMPLE_STACK = {"aws": "aws-eks", "azure": "azure-aks", "gcp": "gcp-gke"}
"""Extra -> the example stack its environment plans."""
OTHER_COMPONENT = {
    "aws": "from gpu_components.azure import AksGpuNodePool",
    "azure": "from gpu_components.gcp import GkeGpuNodePool",
    "gcp": "from gpu_components.aws import EksGpuNodeGroup",
}
"""Extra -> an import of another cloud's component, which must fail cleanly in that extra's environment."""


def run(command: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> tuple[float, str]:
    """Run ``command``; its wall time in seconds and its output. Fails loudly on a non-zero exit."""
    start = time.perf_counter()
    done = subprocess.run(list(command), cwd=cwd, env=dict(env or os.environ), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed in {cwd} ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed, done.stdout + done.stderr


def clone(into: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(into)], check=True)
    return into


def megabytes(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return total / 1e6


def without_uv_on_path(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with every ``PATH`` entry that holds a ``uv`` removed (the Makefile then installs uv into .tools/)."""
    keep = [entry for entry in env.get("PATH", "").split(os.pathsep) if not (Path(entry) / "uv").exists()]
    return {**env, "PATH": os.pathsep.join(keep)}


def one_cloud_environment(extra: str, work: Path, source: Path) -> list[str]:
    """Install ``.[extra]`` with pip into an empty venv; size it, plan its example stack, import another cloud."""
    venv = work / f"venv-{extra}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    seconds, _ = run([str(python), "-m", "pip", "install", "--quiet", f".[{extra}]"], cwd=source)
    size = megabytes(venv)
    stack = EXAMPLE_STACK[extra]
    plan_seconds, plan = run([str(venv / "bin" / "gpu-components"), "plan", stack, "--format", "capacity"], cwd=source)
    probe = f"try:\n    {OTHER_COMPONENT[extra]}\nexcept ImportError as error:\n    print(type(error).__name__, error)"
    _, error = run([str(python), "-c", probe], cwd=source)
    ok = plan.startswith(f"## GPU capacity: {stack}") and error.startswith("MissingExtraError ")
    return [
        f"| `pip install .[{extra}]` | {seconds:.1f} s | {size:.0f} MB | {stack}: {plan_seconds:.1f} s "
        f"| {'ok' if ok else 'FAILED'}: {error.strip()[:90]}… |"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the cold uv cache and the azure/gcp environments")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"# Install and test benchmark at {commit.stdout.strip()}: {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.system()} {platform.machine()}\n"
    )
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-install-") as tmp:
        work = Path(tmp)
        env = dict(os.environ)
        rows.append(("make plan, fresh clone", run(["make", "plan"], cwd=clone(work / "plan"), env=env)[0]))
        if not args.quick:
            cold = {**without_uv_on_path(env), "UV_CACHE_DIR": str(work / "uv-cache")}
            seconds, _ = run(["make", "plan"], cwd=clone(work / "plan-cold"), env=cold)
            rows.append(("make plan, fresh clone, uv from PyPI, empty uv cache", seconds))
        test_clone = clone(work / "test")
        rows.append(("make check, fresh clone", run(["make", "check"], cwd=test_clone, env=env)[0]))
        rows.append(("make check, warm", run(["make", "check"], cwd=test_clone, env=env)[0]))
        cli = str(test_clone / ".venv" / "bin" / "gpu-components")
        plans = work / "plans"
        plan_seconds, _ = run([cli, "plan", "--all", "--format", "json", "--out-dir", str(plans)], cwd=test_clone)
        shutil.copytree(plans, work / "plans-again")
        diff_seconds, _ = run([cli, "diff", str(plans), str(work / "plans-again")], cwd=test_clone)
        rows.append(("PR check", plan_seconds + diff_seconds))
        print("| what | seconds | target |\n|---|---|---|")
        for what, seconds in rows:
            target = next((limit for name, limit in TARGETS.items() if what.startswith(name)), None)
            verdict = "" if target is None else f"<= {target:.0f} s: {'met' if seconds <= target else 'MISSED'}"
            print(f"| {what} | {seconds:.1f} | {verdict} |")
        print(f"\n(PR check: plan --all {plan_seconds:.1f} s + diff {diff_seconds:.1f} s)\n")
        print(f"| environment | install | size (target aws <= {TARGET_AWS_MB:.0f} MB) | plan | other cloud |")
        print("|---|---|---|---|---|")
        for extra in ("aws",) if args.quick else ("aws", "azure", "gcp"):
            print("\n".join(one_cloud_environment(extra, work, test_clone)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
