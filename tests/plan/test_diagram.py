"""Tests for gpu_components.plan.diagram: Mermaid, SVG and PNG diagrams of a plan's GPU pools."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest

from gpu_components.plan.diagram import DiagramError, layout, to_mermaid, to_png, to_svg

MIG = {
    "cloud": "aws",
    "instanceType": "p4d.24xlarge",
    "gpuModel": "A100-40GB",
    "gpuMemoryGb": 40,
    "gpusPerNode": 8,
    "minNodes": 0,
    "maxNodes": 2,
    "spot": False,
    "devicePlugin": "daemonset",
    "sharing": "none",
    "mig": {"1g.5gb": 4, "3g.20gb": 1},
    "isolation": "mig",
    "advertises": [
        {"name": "nvidia.com/mig-1g.5gb", "perNode": 32, "device": "MIG 1g.5gb", "memoryGb": 5, "sharedBy": 1},
        {"name": "nvidia.com/mig-3g.20gb", "perNode": 8, "device": "MIG 3g.20gb", "memoryGb": 20, "sharedBy": 1},
    ],
}
SHARED = {
    **MIG,
    "instanceType": "g5.2xlarge",
    "gpuModel": "A10G",
    "gpuMemoryGb": 24,
    "gpusPerNode": 1,
    "spot": True,
    "sharing": "time-slicing",
    "mig": {},
    "isolation": "shared",
    "advertises": [{"name": "nvidia.com/gpu", "perNode": 4, "device": "GPU", "memoryGb": 24, "sharedBy": 4}],
}
OUTPUTS: dict[str, Any] = {"gpuPools": {"mig": {"capacity": MIG}, "shared": {"capacity": SHARED}}}


def test_mermaid_is_exact() -> None:
    assert to_mermaid("dev: cluster <c>", OUTPUTS) == (
        "flowchart LR\n"
        '    cluster["dev: cluster #60;c#62;<br>2 GPU pool(s)"]\n'
        '    p0["pool mig<br>p4d.24xlarge<br>0..2 nodes"]\n'
        '    p0g["8 x A100-40GB (40 GB) per node<br>node advertises 32 x nvidia.com/mig-1g.5gb, '
        '8 x nvidia.com/mig-3g.20gb"]\n'
        '    p0s0["4 x MIG 1g.5gb (5 GB) per GPU<br>MIG-isolated"]\n'
        '    p0s1["1 x MIG 3g.20gb (20 GB) per GPU<br>MIG-isolated"]\n'
        '    p1["pool shared<br>g5.2xlarge, spot<br>0..2 nodes"]\n'
        '    p1g["1 x A10G (24 GB) per node<br>node advertises 4 x nvidia.com/gpu"]\n'
        '    p1s0["whole GPU x 4 time-sliced replicas<br>shared, no memory isolation"]\n'
        "    cluster --> p0\n"
        "    p0 --> p0g\n"
        "    p0g --> p0s0\n"
        "    p0g --> p0s1\n"
        "    cluster --> p1\n"
        "    p1 --> p1g\n"
        "    p1g --> p1s0\n"
        "    class cluster cluster\n"
        "    class p0 pool\n"
        "    class p0g gpus\n"
        "    class p0s0 slices\n"
        "    class p0s1 slices\n"
        "    class p1 pool\n"
        "    class p1g gpus\n"
        "    class p1s0 slices\n"
        "    classDef cluster fill:#e8eaf6,stroke:#555\n"
        "    classDef pool fill:#e3f2fd,stroke:#555\n"
        "    classDef gpus fill:#e8f5e9,stroke:#555\n"
        "    classDef slices fill:#fff8e1,stroke:#555\n"
    )


def test_provisioned_pool_shows_its_provisioner_types_and_gpu_limit() -> None:
    # A record as plan files before minGpusPerNode / maxGpusPerNode have it: GPUs per node as recorded.
    provisioned = {
        **SHARED,
        "maxNodes": 8,
        "provisioning": {
            "provisioner": "karpenter",
            "instanceTypes": ["g5.2xlarge"],
            "instanceFamilies": ["g5"],
            "allowedTypes": ["g5.2xlarge", "g5.xlarge", "g5.4xlarge"],
            "gpuModels": ["A10G"],
            "maxGpus": 8,
            "capacityTypes": ["spot"],
            "disruption": {"consolidation": "when-empty", "consolidateAfter": "10m"},
        },
    }
    mermaid = to_mermaid("dev", {"gpuPools": {"shared": {"capacity": provisioned}}})
    assert '    p0["pool shared<br>karpenter: g5.2xlarge +2 types, spot<br>0..8 nodes, at most 8 GPUs"]\n' in mermaid
    assert '    p0g["1 x A10G (24 GB) per node<br>node advertises 4 x nvidia.com/gpu"]\n' in mermaid


def test_layout_centres_parents_on_their_children() -> None:
    boxes = {box.id: box for box in layout("dev", OUTPUTS).boxes}
    slices = (boxes["p0s0"], boxes["p0s1"])
    assert boxes["p0g"].y + boxes["p0g"].height / 2 == pytest.approx((slices[0].y + slices[1].y + slices[1].height) / 2)
    assert boxes["cluster"].x < boxes["p0"].x < boxes["p0g"].x < boxes["p0s0"].x


def test_svg_is_well_formed_deterministic_and_escaped() -> None:
    svg = to_svg("dev: <c> & co", OUTPUTS)
    assert svg == to_svg("dev: <c> & co", OUTPUTS)
    root = ElementTree.fromstring(svg)
    texts = [element.text for element in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == "dev: <c> & co"
    assert "whole GPU x 4 time-sliced replicas" in texts
    assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) == 7


def test_no_pools_draws_only_the_cluster() -> None:
    assert to_mermaid("dev", {}).splitlines()[1] == '    cluster["dev<br>0 GPU pool(s)"]'
    assert [box.id for box in layout("dev", {}).boxes] == ["cluster"]


def test_png_without_pillow_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("PIL", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(DiagramError, match=r"gpu-components\[diagram\]"):
        to_png("dev", OUTPUTS)


def test_png_is_a_png_of_the_layout_size() -> None:
    png = to_png("dev", OUTPUTS)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png == to_png("dev", OUTPUTS)
