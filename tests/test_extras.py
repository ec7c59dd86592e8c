"""A cloud's components without that cloud's extra: a clean error naming the extra, from import and from the CLI.

Each test runs a fresh interpreter in which the SDK cannot be imported (``sys.modules[name] = None`` makes Python
raise ``ModuleNotFoundError`` for it, as in an environment without the extra); the other clouds stay usable.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpu_components._extras import EXTRAS, MissingExtraError, missing_extra

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def run_without(module: str, code: str) -> subprocess.CompletedProcess[str]:
    probe = f"import sys\nsys.modules[{module!r}] = None\n{code}"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=False)


@pytest.mark.parametrize(
    ("module", "statement", "extra", "installs"),
    [
        ("pulumi_aws", "from gpu_components.aws import EksGpuNodeGroup", "aws", "pulumi-aws, pulumi-eks"),
        ("pulumi_eks", "import gpu_components.aws.cluster", "aws", "pulumi-aws, pulumi-eks"),
        ("pulumi_azure_native", "from gpu_components.azure import AksGpuNodePool", "azure", "pulumi-azure-native"),
        ("pulumi_gcp", "import gpu_components.gcp.gke", "gcp", "pulumi-gcp"),
    ],
)
def test_importing_a_component_without_its_extra_names_the_extra(
    module: str, statement: str, extra: str, installs: str
) -> None:
    code = f"try:\n    {statement}\nexcept ImportError as error:\n    print(type(error).__name__, error.name, error)"
    done = run_without(module, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"MissingExtraError {module} the {extra} components need the {extra!r} extra, which is not installed "
        f"(no module {module!r}): pip install 'gpu-components[{extra}]' (or uv add 'gpu-components[{extra}]'; "
        f"it installs {installs})"
    )


def test_the_core_and_the_other_clouds_work_without_an_extra() -> None:
    code = (
        "import gpu_components, gpu_components.plan, gpu_components.policy, gpu_components.workloads\n"
        "import gpu_components.kubernetes, gpu_components.azure.options\n"
        "from gpu_components.aws import EksGpuNodeGroup\n"
        "print(EksGpuNodeGroup.__name__)"
    )
    done = run_without("pulumi_azure_native", code)
    assert (done.returncode, done.stdout, done.stderr) == (0, "EksGpuNodeGroup\n", "")


@pytest.mark.stack
def test_cli_plan_of_a_stack_without_its_extra_is_a_clean_error() -> None:
    code = "sys.argv = ['gpu-components', 'plan', 'azure-aks']\nfrom gpu_components.cli import main\nmain()"
    done = run_without("pulumi_azure_native", code)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "Error: azure-aks: the azure components need the 'azure' extra, which is not installed (no module "
        "'pulumi_azure_native'): pip install 'gpu-components[azure]' (or uv add 'gpu-components[azure]'; "
        "it installs pulumi-azure-native)\n"
    )


def test_a_module_missing_inside_an_sdk_is_not_reported_as_a_missing_extra() -> None:
    inner = ModuleNotFoundError("No module named 'parver'", name="parver")
    assert missing_extra("aws", inner) is inner
    error = missing_extra("gcp", ModuleNotFoundError("No module named 'pulumi_gcp'", name="pulumi_gcp"))
    assert isinstance(error, MissingExtraError)
    assert (error.extra, error.name) == ("gcp", "pulumi_gcp")


def test_each_extra_in_pyproject_installs_the_sdks_its_cloud_imports() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        distributions = [requirement.split(">=")[0].lower() for requirement in extras[extra]]
        assert distributions == [module.replace("_", "-") for module in modules]
    assert extras["all"] == ["gpu-components[aws,azure,gcp]"]
