"""The policy pack in a real ``pulumi preview --policy-pack``, judging real component outputs.

The real Pulumi CLI and engine, the real pulumi-policy analyzer (``python -m pulumi.policy``, from this virtual
environment), a Pulumi YAML program whose pool is a ``GkeAutopilotGpuPool`` served by the package's provider (it has
no cloud child, so no cloud provider plugin is needed) and whose Pod goes to the real pulumi-resource-kubernetes in
``renderYamlToDirectory`` mode.

How the pack is started: Pulumi's Python language host, which runs a Python policy pack (``RunPlugin``), is not served
by the Go module proxy (:data:`tests.languages.cli.UNSERVED_HOSTS`). The CLI (v3.276.0) also launches an executable
given to ``--policy-pack`` as an analyzer plugin, passing it the engine's address (``NewPolicyAnalyzer`` in
``pkg/resource/plugin/analyzer_plugin.go``); the test writes a two-line launcher that runs ``python -u -m
pulumi.policy <engine address> <policy pack directory>``, the command Pulumi's own Python analyzer launcher runs
(``sdk/python/dist/pulumi-analyzer-policy-python``). Everything after the launch is the real thing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.languages.cli import ROOT, VENV_BIN, Pulumi, kubernetes_provider, kubernetes_schema

PROVIDER = VENV_BIN / "pulumi-resource-gpu-components"
POOL = """  l4:
    type: gpu-components:index:GkeAutopilotGpuPool
    properties:
      pool:
        name: l4
        instanceType: g2-standard-8
      kubernetesVersion: "1.33"
"""
POD = """  trainer:
    type: kubernetes:core/v1:Pod
    properties:
      metadata:
        name: trainer
      spec:
{placement}        containers:
          - name: main
            image: nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04
            resources:
              limits:
                nvidia.com/gpu: {gpus}
    options:
      provider: ${{k8s}}
"""


def _preview(pulumi_built: dict[str, Path], tmp_path: Path, placement: str, gpus: int) -> tuple[int, str]:
    provider = kubernetes_provider()
    pulumi = Pulumi({**pulumi_built, provider.name: provider}, tmp_path / "sandbox")
    pulumi.env["GPU_COMPONENTS_KUBERNETES_SCHEMA"] = str(kubernetes_schema())
    launcher = tmp_path / "gpu-components-policy"
    launcher.write_text(f'#!/bin/sh\nexec "{VENV_BIN / "python"}" -u -m pulumi.policy "$1" "{ROOT / "policy"}"\n')
    launcher.chmod(0o755)
    project = tmp_path / "program"
    (project / "gpu-components").mkdir(parents=True)
    (project / "gpu-components" / PROVIDER.name).symlink_to(PROVIDER)
    (project / "Pulumi.yaml").write_text(
        "name: gpu-components-policy\nruntime: yaml\nresources:\n"
        "  k8s:\n    type: pulumi:providers:kubernetes\n    properties:\n      renderYamlToDirectory: rendered\n"
        + POOL
        + POD.format(placement=placement, gpus=gpus)
        + "packages:\n  gpu-components: ./gpu-components\n"
    )
    assert pulumi.run("stack", "init", "dev", cwd=project).returncode == 0
    done = pulumi.run(
        "preview", "--non-interactive", "--color", "never", "--policy-pack", str(launcher), cwd=project, timeout=900
    )
    shutil.rmtree(project / "rendered", ignore_errors=True)
    return done.returncode, done.stdout


def test_the_pack_refuses_a_pod_that_fits_and_tolerates_no_pool_in_a_real_preview(
    pulumi_built: dict[str, Path], tmp_path: Path
) -> None:
    """A Pod selecting the Autopilot L4 pool's accelerator, asking 3 GPUs of a 1-GPU machine type, without the
    toleration of GKE's GPU taint: both mandatory workload-pool policies fail the preview, judged on the component's
    real outputs (``advertisedResources``, ``taints``)."""
    code, out = _preview(
        pulumi_built, tmp_path, "        nodeSelector:\n          cloud.google.com/gke-accelerator: nvidia-l4\n", 3
    )
    assert code == 1, out
    policies = out.split("Policies:\n", 1)[1].split("\nDiagnostics:", 1)[0]
    assert "❌ gpu-components@v0.0.1 (local: " in policies
    assert "- [mandatory]  gpu-workload-pool-fit  (kubernetes:core/v1:Pod: trainer)" in policies
    assert (
        "spec.containers[0].resources.limits['nvidia.com/gpu']: 3 nvidia.com/gpu per container fits no GPU pool the "
        "pods select: pool l4's nodes each have 1 nvidia.com/gpu" in policies
    )
    assert "- [mandatory]  gpu-workload-pool-tolerations  (kubernetes:core/v1:Pod: trainer)" in policies
    assert (
        "spec.tolerations: the pods select GPU pools whose taints they do not tolerate (pool l4: "
        "nvidia.com/gpu=present:NoSchedule), so they stay Pending" in policies
    )
    assert policies.count("[mandatory]") == 2


def test_the_pack_passes_a_pod_placed_with_the_pools_own_outputs_in_a_real_preview(
    pulumi_built: dict[str, Path], tmp_path: Path
) -> None:
    """The same Pod given the pool's ``nodeSelector`` output, the toleration of its ``tolerations`` output (written
    out: the schema types that output as a list of string maps, which pulumi-yaml does not assign to a Toleration)
    and 1 GPU: no policy fails."""
    placement = (
        "        nodeSelector: ${l4.nodeSelector}\n"
        "        tolerations:\n"
        "          - {key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}\n"
    )
    code, out = _preview(pulumi_built, tmp_path, placement, 1)
    assert code == 0, out
    assert "Policies:\n    ✅ gpu-components@v0.0.1 (local: " in out
    assert "[mandatory]" not in out and "[advisory]" not in out
    assert " +  kubernetes:core/v1:Pod trainer create \n" in out
