"""The package with the real Pulumi CLI (``oracles/pins.toml`` [pulumi], built from the Go module proxy): the
executable provider serves the schema the CLI reads, ``pulumi package add`` into a YAML project, and what the CLI
says where it needs a language host the proxy does not serve (Python: the source-based plugin, the policy pack)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.languages.cli import ROOT, VENV_BIN, Pulumi
from tests.languages.conftest import Record

PROVIDER = VENV_BIN / "pulumi-resource-gpu-components"
NO_PYTHON_HOST = "no language plugin 'pulumi-language-python' found in the workspace or on your $PATH"


def _without_nested_descriptions(node: Any, dropped: list[str], path: str = "") -> Any:
    """``node`` without the ``description`` of every ``items`` / ``additionalProperties`` type (Pulumi's
    ``schema.TypeSpec`` has no such field, so the CLI's decoding drops it); their paths go to ``dropped``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            child = _without_nested_descriptions(value, dropped, f"{path}/{key}")
            if key in ("items", "additionalProperties") and isinstance(child, dict) and "description" in child:
                dropped.append(f"{path}/{key}")
                child = {k: v for k, v in child.items() if k != "description"}
            out[key] = child
        return out
    if isinstance(node, list):
        return [_without_nested_descriptions(item, dropped, f"{path}/{i}") for i, item in enumerate(node)]
    return node


def test_get_schema_of_the_executable_provider_is_schema_json(pulumi: Pulumi, languages_record: Record) -> None:
    done = pulumi.run("package", "get-schema", str(PROVIDER), cwd=pulumi.home)
    assert (done.returncode, done.stderr) == (0, "")
    served = json.loads(done.stdout)
    committed = json.loads((ROOT / "schema.json").read_text())
    dropped: list[str] = []
    expected = _without_nested_descriptions(committed, dropped)
    # What the CLI's PackageSpec round trip changes, exactly: an empty `config` added, the empty `dependencies` left
    # out, and the descriptions of nested (items / additionalProperties) types dropped.
    assert committed["dependencies"] == []
    del expected["dependencies"]
    expected["config"] = {}
    assert served == expected
    # Every nested type with a description loses it (how many follows schema.json; none of them is elsewhere).
    assert dropped
    assert all(path.startswith(("/resources/", "/types/")) for path in dropped)
    languages_record("yaml", "sdk", "n/a", "YAML needs no SDK; `pulumi package get-schema` reads the schema")


def test_get_schema_of_the_source_plugin_needs_the_python_host(pulumi: Pulumi, languages_record: Record) -> None:
    """The repository root (``PulumiPlugin.yaml``, runtime python) is started by Pulumi's Python language host, which
    the Go module proxy does not serve (``tests/languages/cli.py``, UNSERVED_HOSTS)."""
    done = pulumi.run("package", "get-schema", str(ROOT), cwd=pulumi.home)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"error: unable to install {ROOT}: {NO_PYTHON_HOST}\ncontext canceled\n"
    languages_record(
        "python (source plugin)",
        "preview",
        "blocked",
        "pulumi-language-python is not served by the Go module proxy (403): " + NO_PYTHON_HOST,
    )


def test_get_schema_of_a_provider_folder_is_refused_by_this_cli(pulumi: Pulumi, tmp_path: Path) -> None:
    """A folder holding the executable (what `packages:` of a project takes, see test_yaml.py) is not accepted by
    `package get-schema` of v3.276.0: it looks for ``pulumi-resource-`` plus an empty name."""
    folder = tmp_path / "gpu-components"
    folder.mkdir()
    (folder / PROVIDER.name).symlink_to(PROVIDER)
    done = pulumi.run("package", "get-schema", str(folder), cwd=pulumi.home)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f'error: unable to install {folder}: expected "" to have an executable named "pulumi-resource-" or a '
        "PulumiPlugin file\ncontext canceled\n"
    )


def test_package_add_into_a_yaml_project(pulumi: Pulumi, tmp_path: Path, languages_record: Record) -> None:
    """`pulumi package add <provider>` writes the package declaration, then asks the YAML language host to link it,
    which pulumi-language-yaml v1.25.0 (the newest the proxy serves) does not implement: `Pulumi.yaml` is left as it
    was, and a YAML program declares the package itself (`packages:`, test_yaml.py)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: add-test\nruntime: yaml\n")
    done = pulumi.run("package", "add", str(PROVIDER), cwd=project)
    assert done.returncode == 1
    assert done.stdout == f"Successfully generated an SDK for the gpu-components package at {project / 'sdks'}\n"
    yaml_host = f"warning: using pulumi-language-yaml from $PATH at {pulumi.bin / 'pulumi-language-yaml'}\n"
    assert done.stderr == yaml_host * 2 + "error: linking package: method Link not implemented\n"
    written = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert written == ["Pulumi.yaml", "sdks/gpu-components/gpu-components-0.1.0.yaml"]
    assert (project / "sdks/gpu-components/gpu-components-0.1.0.yaml").read_text() == (
        "packageDeclarationVersion: 1\nname: gpu-components\nversion: 0.1.0\n"
    )
    assert (project / "Pulumi.yaml").read_text() == "name: add-test\nruntime: yaml\n"


def test_policy_pack_needs_the_python_host(pulumi: Pulumi, tmp_path: Path, languages_record: Record) -> None:
    """`pulumi policy analyze` (v3.276.0: policy packs on a `pulumi stack export` document) of `policy/` on the
    aws-eks stack's offline plan: the pack runs in Pulumi's Python language host, not served by the proxy."""
    from click.testing import CliRunner

    from gpu_components.cli import main

    state = tmp_path / "aws-eks.json"
    result = CliRunner().invoke(main, ["plan", "aws-eks", "--format", "state", "-C", str(ROOT)])
    assert result.exit_code == 0, result.output
    state.write_text(result.stdout)
    done = pulumi.run("policy", "analyze", "--file", str(state), "--policy-pack", str(ROOT / "policy"), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f'error: loading policy packs: could not start policy pack "{ROOT / "policy"}" because the built-in analyzer '
        "plugin that runs policy plugins is missing. This might occur when the plugin directory is not on your $PATH, "
        "when the installed version of the Pulumi SDK does not support resource policies, or when the required "
        f"analyzer plugin has not been installed: {NO_PYTHON_HOST}\n"
    )
    languages_record(
        "python (policy pack)", "preview", "blocked", "pulumi policy analyze: pulumi-language-python not served (403)"
    )


@pytest.mark.parametrize("language", ["python", "nodejs", "go"])
def test_the_language_hosts_are_not_on_path(pulumi: Pulumi, language: str, languages_record: Record) -> None:
    """Only the CLI and the YAML host are built; Pulumi's own hosts are not served (README, "Checked with the real
    Pulumi CLI")."""
    assert pulumi.which(f"pulumi-language-{language}") is None
    assert pulumi.which("uv") is None
    languages_record(
        {"nodejs": "typescript"}.get(language, language),
        "preview",
        "blocked",
        f"pulumi-language-{language} is not served by the Go module proxy (403 for every version)",
    )
