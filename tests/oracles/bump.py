"""Move every oracle to the newest version the Go module proxy serves: ``python -m tests.oracles.bump``.

For each table of ``oracles/pins.toml``: asks ``go list -m -json <module>@latest``; where that is newer, runs
``go get <module>@<version>`` and ``go mod tidy`` in the oracle's wrapper module (for ``k8s.io/kubernetes``, its
staging modules' ``replace`` lines move to the matching ``v0.<minor>.<patch>`` first) and rewrites the version in
``pins.toml``. Prints one line per oracle. The weekly SDK job (``.github/workflows/sdk-drift.yml``) runs it, then
``make oracles``, and proposes the result as a pull request; a bump past a chart pin keeps that oracle's ``note``
to be reviewed there (``tests/oracles/test_pins.py``).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.oracles.build import ORACLES, PINS, pins

_STAGING = re.compile(r"^(\s*k8s\.io/[\w.-]+\s+=>\s+k8s\.io/[\w.-]+\s+)v0\.\d+\.\d+\s*$", re.MULTILINE)


def _go(args: list[str], cwd: Path) -> str:
    return subprocess.run(["go", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def latest(module: str, cwd: Path) -> str:
    """The version ``@latest`` resolves to on the module proxy."""
    version: str = json.loads(_go(["list", "-m", "-json", f"{module}@latest"], cwd))["Version"]
    return version


def _move_staging(go_mod: Path, kubernetes_version: str) -> None:
    staging = "v0." + kubernetes_version.removeprefix("v1.")
    go_mod.write_text(_STAGING.sub(lambda m: m.group(1) + staging, go_mod.read_text()))


def _set_version(text: str, name: str, version: str) -> str:
    """``text`` (pins.toml) with the ``version`` of table ``[name]`` set, comments and order kept."""
    start = text.index(f"[{name}]\n")
    end = text.find("\n[", start + 1)
    end = len(text) if end < 0 else end
    section = re.sub(r'^version = ".*"$', f'version = "{version}"', text[start:end], count=1, flags=re.MULTILINE)
    return text[:start] + section + text[end:]


def bump() -> list[str]:
    """Bump every oracle; returns one line per oracle saying what moved."""
    lines: list[str] = []
    text = PINS.read_text()
    for name, pin in pins().items():
        wrapper = ORACLES / pin["wrapper"]
        newest = latest(pin["module"], wrapper)
        if newest == pin["version"]:
            lines.append(f"{name}: {pin['module']} {newest} (newest)")
            continue
        if pin["module"] == "k8s.io/kubernetes":
            _move_staging(wrapper / "go.mod", newest)
        _go(["get", f"{pin['module']}@{newest}"], wrapper)
        _go(["mod", "tidy"], wrapper)
        text = _set_version(text, name, newest)
        lines.append(f"{name}: {pin['module']} {pin['version']} -> {newest}")
    PINS.write_text(text)
    return lines


if __name__ == "__main__":
    print("\n".join(bump()))
