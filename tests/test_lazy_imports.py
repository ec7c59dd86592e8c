"""Each cloud's SDKs are imported only when that cloud is used (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SDKS = ("pulumi_aws", "pulumi_eks", "pulumi_azure_native", "pulumi_gcp")


def imported_sdks(code: str) -> list[str]:
    """The cloud SDK packages in ``sys.modules`` after running ``code`` in a new interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {SDKS!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    result: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_composition_and_cloud_packages_import_no_cloud_sdk() -> None:
    code = "import gpu_components, gpu_components.cluster, gpu_components.aws, gpu_components.azure, gpu_components.gcp"
    assert imported_sdks(code) == []


@pytest.mark.parametrize(
    ("cloud", "sdks"),
    [("aws", ["pulumi_aws", "pulumi_eks"]), ("azure", ["pulumi_azure_native"]), ("gcp", ["pulumi_gcp"])],
)
def test_an_adapter_lookup_imports_only_its_clouds_sdks(cloud: str, sdks: list[str]) -> None:
    code = f"from gpu_components.cluster import ADAPTERS\nassert ADAPTERS[{cloud!r}].cloud == {cloud!r}"
    assert imported_sdks(code) == sdks


def test_listing_the_clouds_imports_no_adapter() -> None:
    code = "from gpu_components.cluster import ADAPTERS\nassert list(ADAPTERS) == ['aws', 'azure', 'gcp']"
    assert imported_sdks(code) == []


def test_components_load_on_first_access() -> None:
    from gpu_components import GpuCluster, aws, azure, gcp
    from gpu_components.aws.eks import EksGpuNodeGroup
    from gpu_components.azure.aks import AksGpuNodePool
    from gpu_components.cluster import GpuCluster as ClusterModuleGpuCluster
    from gpu_components.gcp.gke import GkeGpuNodePool

    assert (aws.EksGpuNodeGroup, azure.AksGpuNodePool, gcp.GkeGpuNodePool, GpuCluster) == (
        EksGpuNodeGroup,
        AksGpuNodePool,
        GkeGpuNodePool,
        ClusterModuleGpuCluster,
    )


def test_unknown_package_attribute_is_an_attribute_error() -> None:
    import gpu_components.aws

    with pytest.raises(AttributeError, match=r"module 'gpu_components\.aws' has no attribute 'EksNodeGroup'"):
        _ = gpu_components.aws.EksNodeGroup  # type: ignore[attr-defined]


def test_unknown_cloud_is_absent_from_the_mapping_and_a_spec_error_for_adapter_for() -> None:
    from gpu_components.cluster import ADAPTERS, adapter_for
    from gpu_components.errors import GpuSpecError

    assert "oci" not in ADAPTERS
    assert ADAPTERS.get("oci") is None
    expected = r"cloud: no node-pool adapter for this cloud \(got 'oci'\); valid: aws, azure, gcp"
    with pytest.raises(GpuSpecError, match=expected):
        adapter_for("oci")
