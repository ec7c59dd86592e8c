"""The executable provider `pulumi-resource-gpu-components` (pyproject `[project.scripts]`) serves the same provider
as the source-based plugin's `__main__.py`: `gpu_components.package.main` (README, "Where the plugin starts")."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from gpu_components import package


def test_the_console_script_is_the_package_main() -> None:
    (script,) = entry_points(group="console_scripts", name="pulumi-resource-gpu-components")
    assert script.value == "gpu_components.package:main"
    assert script.load() is package.main


def test_the_installed_script_asks_for_the_engine_address() -> None:
    """Pulumi starts a provider binary with the engine's address as its argument; without one it says so."""
    binary = Path(sys.executable).parent / "pulumi-resource-gpu-components"
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "pulumi-resource-gpu-components: error: the following arguments are required: engine"
    )
