"""`oracles/pins.toml` is the one place the oracles' versions are pinned: each wrapper go.mod requires exactly the
pinned version, and an oracle standing for a chart the package pins either matches that pin or says why not."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.oracles.build import ORACLES, _prune, pins
from tests.oracles.bump import _move_staging, _set_version

_REQUIRE = re.compile(r"^\s*(?:require\s+)?(\S+)\s+(v\S+)(?:\s+//.*)?$")


def _required(wrapper: str) -> dict[str, str]:
    """Module -> version of every ``require`` line of ``oracles/<wrapper>/go.mod`` (``replace`` lines left out)."""
    required: dict[str, str] = {}
    block = ""
    for line in (ORACLES / wrapper / "go.mod").read_text().splitlines():
        stripped = line.strip()
        if stripped.endswith("("):
            block = stripped.split()[0]
            continue
        if stripped == ")":
            block = ""
            continue
        if block not in ("require", "") or (block == "" and not stripped.startswith("require ")):
            continue
        match = _REQUIRE.match(stripped)
        if match:
            required[match.group(1)] = match.group(2)
    return required


def _chart_pin(reference: str) -> str:
    module, constant = reference.split(":")
    value = getattr(importlib.import_module(module), constant)
    assert isinstance(value, str)
    return value


def test_every_oracle_names_module_version_and_wrapper() -> None:
    for name, pin in pins().items():
        assert {"module", "version", "wrapper"} <= set(pin), name
        assert (ORACLES / pin["wrapper"] / "go.mod").is_file(), f"{name}: oracles/{pin['wrapper']}/go.mod"


def test_each_wrapper_requires_exactly_the_pinned_version() -> None:
    wrong = {
        name: (pin["version"], _required(pin["wrapper"]).get(pin["module"]))
        for name, pin in pins().items()
        if _required(pin["wrapper"]).get(pin["module"]) != pin["version"]
    }
    assert wrong == {}


def test_an_oracle_off_its_chart_pin_says_why() -> None:
    for name, pin in pins().items():
        if "chart" not in pin:
            continue
        chart = _chart_pin(pin["chart"]).lstrip("v")
        if pin["version"].lstrip("v") != chart:
            assert pin.get("note", "").strip(), f"{name}: {pin['version']} is not the chart pin {chart}: add a note"


def test_bump_sets_the_version_of_one_table_only() -> None:
    text = '[a]\nmodule = "x"\nversion = "v1.0.0"\n\n[b]\nmodule = "y"\nversion = "v1.0.0"\n'
    assert _set_version(text, "b", "v1.1.0") == (
        '[a]\nmodule = "x"\nversion = "v1.0.0"\n\n[b]\nmodule = "y"\nversion = "v1.1.0"\n'
    )


def test_bump_moves_kubernetes_staging_replaces_with_kubernetes(tmp_path: Path) -> None:
    go_mod = tmp_path / "go.mod"
    go_mod.write_text(
        "replace (\n\tk8s.io/api => k8s.io/api v0.36.3\n\tk8s.io/client-go => k8s.io/client-go v0.36.3\n)\n"
    )
    _move_staging(go_mod, "v1.37.2")
    assert go_mod.read_text() == (
        "replace (\n\tk8s.io/api => k8s.io/api v0.37.2\n\tk8s.io/client-go => k8s.io/client-go v0.37.2\n)\n"
    )


def test_a_new_build_prunes_the_wrappers_older_builds_only(tmp_path: Path) -> None:
    for name in ("nvidia-0123456789abcdef", "nvidia-fedcba9876543210", "nvidia-dra-0123456789abcdef", "kube-x"):
        (tmp_path / name).mkdir()
    _prune(tmp_path, "nvidia", keep=tmp_path / "nvidia-fedcba9876543210")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "kube-x",
        "nvidia-dra-0123456789abcdef",
        "nvidia-fedcba9876543210",
    ]
