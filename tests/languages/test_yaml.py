"""A Pulumi YAML program using the package, previewed by the real Pulumi CLI and YAML language host.

The program (``programs/yaml-three``: ``GpuCluster``, ``EksGpuNodeGroup``, ``NvidiaDevicePlugin``) declares the
package as the README says a consumer with the package installed does: a folder named ``gpu-components`` holding
the executable provider ``pulumi-resource-gpu-components`` (``packages: {gpu-components: ./gpu-components}``). The
preview uses the local file backend and a passphrase; plugin downloads are off, so it gets as far as the first
cloud provider plugin a component's children need (aws or kubernetes, not buildable here), after the engine has
called the provider's ``Construct`` for each of the three components.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.languages.cli import VENV_BIN, Pulumi, kubernetes_provider, kubernetes_schema
from tests.languages.conftest import Record

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

PROGRAM = Path(__file__).parent / "programs" / "yaml-three"
PROVIDER = VENV_BIN / "pulumi-resource-gpu-components"
COMPONENTS = {
    "gpu-components:index:GpuCluster": "gpu-demo-gpu",
    "gpu-components:index:EksGpuNodeGroup": "gpu-demo-l4",
    "gpu-components:index:NvidiaDevicePlugin": "gpu-demo-device-plugin",
}


def _locked(name: str) -> str:
    lock = tomllib.loads((Path(__file__).parents[2] / "uv.lock").read_text())
    (version,) = [p["version"] for p in lock["package"] if p["name"] == name]
    return str(version)


def _project(tmp_path: Path, extra: str = "") -> Path:
    project = tmp_path / "program"
    shutil.copytree(PROGRAM, project)
    (project / "gpu-components").mkdir()
    (project / "gpu-components" / PROVIDER.name).symlink_to(PROVIDER)
    with open(project / "Pulumi.yaml", "a") as out:
        out.write("packages:\n  gpu-components: ./gpu-components\n" + extra)
    return project


def test_preview_constructs_the_components_and_stops_at_the_cloud_plugins(
    pulumi: Pulumi, tmp_path: Path, languages_record: Record
) -> None:
    project = _project(tmp_path)
    init = pulumi.run("stack", "init", "dev", cwd=project)
    assert (init.returncode, init.stderr) == (0, "Created stack 'dev'\n")
    done = pulumi.run("preview", "--non-interactive", "--logtostderr", "-v=7", cwd=project, timeout=600)
    assert done.returncode == 1
    logged = [json.loads(line)["msg"] for line in done.stderr.splitlines() if line.startswith("{")]
    stack = "urn:pulumi:dev::gpu-components-languages::pulumi:pulumi:Stack::gpu-components-languages-dev"
    constructed = sorted(m.split("].", 1)[1] for m in logged if ".Construct(" in m and m.endswith(")"))
    inputs = {"GpuCluster": 3, "EksGpuNodeGroup": 4, "NvidiaDevicePlugin": 2}
    assert constructed == sorted(
        f"Construct({token}, {name}, {stack}) executing (#inputs={inputs[token.rsplit(':', 1)[1]]})"
        for token, name in COMPONENTS.items()
    )
    # The first default provider the components' children ask for is aws (node groups) or kubernetes (the device
    # plugin's Helm release), at the version of the Python SDK in uv.lock; which one comes first is a race.
    missing = {
        "aws": f"no resource plugin 'pulumi-resource-aws' found in the workspace at version v{_locked('pulumi-aws')} "
        "or on your $PATH",
        "kubernetes": "no resource plugin 'pulumi-resource-kubernetes' found in the workspace at version "
        f"v{_locked('pulumi-kubernetes')} or on your $PATH",
    }
    errors = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("error: ")]
    assert len(set(errors)) == 1, done.stdout
    plugin = next(name for name, text in missing.items() if errors[0] == f"error: {text}")
    version = _locked("pulumi-aws" if plugin == "aws" else "pulumi-kubernetes")
    assert f"    pulumi:providers:{plugin} default_{version.replace('.', '_')}  1 error\n" in done.stdout
    # Which components and children the display shows as to create before the error is a race too.
    assert done.stdout.endswith("    1 errored\n\n")
    languages_record("yaml", "compiles", "n/a", "YAML programs are not compiled")
    languages_record(
        "yaml",
        "preview",
        "yes",
        "each component's Construct ran; stops at the first missing cloud provider plugin (aws or kubernetes: no "
        "plugin downloads here)",
    )


def test_the_yaml_host_type_checks_the_program_against_the_schema(
    pulumi: Pulumi, tmp_path: Path, languages_record: Record
) -> None:
    """pulumi-yaml checks every property against the schema the provider serves before anything runs."""
    project = _project(tmp_path)
    text = (project / "Pulumi.yaml").read_text()
    (project / "Pulumi.yaml").write_text(text.replace("instanceType: g5.2xlarge", "instanceTyp: g5.2xlarge"))
    assert pulumi.run("stack", "init", "dev", cwd=project).returncode == 0
    done = pulumi.run("preview", "--non-interactive", "--color", "never", cwd=project, timeout=600)
    assert done.returncode == 1
    pool = "{name: string, instanceTyp: string, minSize: number, maxSize: number, spot: boolean, timeSlicing: "
    pool += "{replicas: number, trusted: boolean}}"
    diagnostics = done.stdout.split("Diagnostics:\n", 1)[1]
    assert (
        f"        Cannot assign '{pool}' to 'gpu-components:index:ClusterPoolArgs':\n"
        "          instanceType: Missing required property 'instanceType'\n"
        "          Existing properties are: instanceType, name, diskSizeGb, gcp, gpuAccess and 16 others\n"
    ) in diagnostics
    languages_record("yaml", "typechecks", "yes", "pulumi-language-yaml checks the program against the schema")


def test_device_plugin_preview_with_the_kubernetes_provider(
    pulumi_built: dict[str, Path], tmp_path: Path, languages_record: Record
) -> None:
    """``NvidiaDevicePlugin`` alone, its Kubernetes provider in ``renderYamlToDirectory`` mode (no cluster), with the
    real pulumi-resource-kubernetes (``oracles/pulumi-kubernetes``) on the sandbox's ``PATH``."""
    provider = kubernetes_provider()
    project = tmp_path / "program"
    shutil.copytree(PROGRAM.parent / "yaml-device-plugin", project)
    (project / "gpu-components").mkdir()
    (project / "gpu-components" / PROVIDER.name).symlink_to(PROVIDER)
    with open(project / "Pulumi.yaml", "a") as out:
        out.write("packages:\n  gpu-components: ./gpu-components\n")
    pulumi = Pulumi({**pulumi_built, provider.name: provider}, tmp_path / "sandbox")
    pulumi.env["GPU_COMPONENTS_KUBERNETES_SCHEMA"] = str(kubernetes_schema())
    assert pulumi.run("stack", "init", "dev", cwd=project).returncode == 0
    done = pulumi.run("preview", "--non-interactive", "--color", "never", cwd=project, timeout=600)
    assert done.returncode == 1
    # The provider previews the Namespace and the ConfigMap (the device plugin's rendered configs); the Helm Release
    # needs NVIDIA's chart repository, which this machine cannot reach (no network but the package registries).
    for line in (
        " +  gpu-components:index:NvidiaDevicePlugin gpu-demo-device-plugin create \n",
        " +  kubernetes:core/v1:Namespace gpu-demo-device-plugin-namespace create \n",
        " +  kubernetes:core/v1:ConfigMap gpu-demo-device-plugin-config create \n",
        "    kubernetes:helm.sh/v3:Release gpu-demo-device-plugin-release  1 error\n",
    ):
        assert line in done.stdout
    (error,) = {line.strip() for line in done.stdout.splitlines() if line.strip().startswith("error: ")}
    assert error.startswith(
        "error: kubernetes:helm.sh/v3:Release resource 'gpu-demo-device-plugin-release': property chart value "
        '{nvidia-device-plugin} has a problem: looks like "https://nvidia.github.io/k8s-device-plugin" is not a valid '
        'chart repository or cannot be reached: Get "https://nvidia.github.io/k8s-device-plugin/index.yaml": dial '
        "tcp: lookup nvidia.github.io"
    )
    assert error.endswith(": no such host; check the chart name and repository configuration.")
    assert done.stdout.endswith("Resources:\n    + 5 to create\n    1 errored\n\n")
    languages_record(
        "yaml",
        "preview",
        "yes",
        "with pulumi-resource-kubernetes (renderYamlToDirectory): Namespace and ConfigMap previewed, the Helm Release "
        "stops at NVIDIA's chart repository (no network)",
    )
