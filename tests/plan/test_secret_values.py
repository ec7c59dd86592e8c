"""Issue 30: a changed kubeconfig (a provider's settings) is never printed: one masked line per change, in the text
and in the JSON document; a value Pulumi marks secret on one side is masked on both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
from click.testing import CliRunner

from gpu_components.cli import main
from tests.plan.test_engine_verdicts import program_plan, verdict

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: gpu
  cluster: {{server: "https://gpu.example", certificate-authority-data: Q0E=}}
users:
- name: admin
  user: {{token: {token}}}
contexts:
- name: gpu
  context: {{cluster: gpu, user: admin}}
current-context: gpu
"""


def cluster_access(token: str) -> Callable[[], None]:
    """An explicit Kubernetes provider given a plain kubeconfig (as a YAML program or a file read gives it), one
    Namespace on it, and the kubeconfig as a stack output."""

    def program() -> None:
        kubeconfig = KUBECONFIG.format(token=token)
        provider = k8s.Provider("k8s", kubeconfig=kubeconfig)
        k8s.core.v1.Namespace("ns", metadata={"name": "gpu"}, opts=pulumi.ResourceOptions(provider=provider))
        pulumi.export("kubeconfig", kubeconfig)

    return program


def test_a_changed_kubeconfig_is_shown_masked_once_per_change(tmp_path: Path) -> None:
    """It printed the whole kubeconfig's unified diff, token included, on the provider, on every resource it
    manages and on the stack output."""
    old, new = program_plan(cluster_access("old-token")), program_plan(cluster_access("new-token"))
    text, status = verdict(tmp_path, old, new)

    assert text == (
        "Plan diff of dev:\n"
        "~ kubernetes:core/v1:Namespace ns\n"
        "    (provider settings) kubeconfig: [secret] (changed)\n"
        "~ pulumi:providers:kubernetes k8s\n"
        "    kubeconfig: [secret] (changed)\n"
        "outputs:\n"
        "    kubeconfig: [secret] (changed)\n"
        "0 to create, 2 to update, 0 to replace, 0 to delete; 1 output change(s)\n"
    )
    assert status == 3
    document = CliRunner().invoke(
        main, ["diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--format", "json"]
    )
    assert "token" not in document.output
    changes = [c for r in json.loads(document.output)[0]["resources"] for c in r["changes"]]
    assert changes == [
        {
            "path": "(provider settings) kubeconfig",
            "old": "[secret]",
            "new": "[secret]",
            "replaces": False,
            "secret": True,
        },
        {"path": "kubeconfig", "old": "[secret]", "new": "[secret]", "replaces": False, "secret": True},
    ]


def test_a_value_that_becomes_secret_is_masked_on_both_sides(tmp_path: Path) -> None:
    def program(secret: bool) -> Callable[[], None]:
        def run() -> None:
            token = pulumi.Output.secret("t0ken") if secret else "t0ken"
            k8s.core.v1.ConfigMap("c", metadata={"name": "c"}, data={"token": token})

        return run

    text, status = verdict(tmp_path, program_plan(program(False)), program_plan(program(True)))

    assert "t0ken" not in text
    assert "    data.token: [secret] (changed)  [forces replacement]" in text.splitlines()
    assert status == 3
