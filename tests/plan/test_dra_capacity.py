"""The capacity report and diagram of DRA pools: the DRA devices each node publishes (from the capacity record or,
in older records, the pool's draDevices output), who publishes them, and the resource claims of the plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi_kubernetes as k8s

from gpu_components import GpuCluster
from gpu_components.capacity import pool_capacity
from gpu_components.claims import claim_pod_settings, gpu_claim_template
from gpu_components.plan.capacity import capacity_records, capacity_report, claim_records
from gpu_components.plan.diagram import to_mermaid
from gpu_components.plan.runner import PlannedResource
from gpu_components.spec import GpuNodePoolSpec
from tests.helpers import plan_of

H100_MIG: dict[str, Any] = {
    "cloud": "aws",
    "instanceType": "p5.48xlarge",
    "gpuModel": "H100-80GB",
    "gpuMemoryGb": 80,
    "gpusPerNode": 8,
    "minNodes": 0,
    "maxNodes": 2,
    "spot": False,
    "devicePlugin": "dra-driver",
    "sharing": "none",
    "mig": {"1g.10gb": 7},
    "isolation": "mig",
    "advertises": [],
}
L40S: dict[str, Any] = {
    **H100_MIG,
    "instanceType": "g6e.12xlarge",
    "gpuModel": "L40S",
    "gpuMemoryGb": 48,
    "gpusPerNode": 4,
    "maxNodes": 3,
    "mig": {},
    "isolation": "exclusive",
    "draDevices": {"gpu.nvidia.com": 4},
}
A10G: dict[str, Any] = {
    **L40S,
    "instanceType": "g5.2xlarge",
    "gpuModel": "A10G",
    "gpuMemoryGb": 24,
    "gpusPerNode": 1,
    "devicePlugin": "daemonset",
    "advertises": [{"name": "nvidia.com/gpu", "perNode": 1, "device": "GPU", "memoryGb": 24, "sharedBy": 1}],
}
del A10G["draDevices"]

OUTPUTS: dict[str, Any] = {
    "gpuPools": {
        # a state written before the capacity record knew DRA: the devices are the pool's draDevices output
        "h100-mig": {"devicePlugin": "dra-driver", "draDevices": {"mig.nvidia.com/1g.10gb": 56}, "capacity": H100_MIG},
        "l40s": {"devicePlugin": "dra-driver", "capacity": L40S},
        "a10g": {"devicePlugin": "daemonset", "advertises": {"nvidia.com/gpu": 1}, "capacity": A10G},
    }
}


def resource(type_: str, name: str, inputs: dict[str, Any]) -> PlannedResource:
    return PlannedResource(f"urn:pulumi:dev::p::{type_}::{name}", type_, name, None, inputs, True)


MIG_TEMPLATE = resource(
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate",
    "h100-mig-1g",
    {
        "metadata": {"name": "h100-mig-1g", "namespace": "ml"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "mig",
                            "exactly": {
                                "deviceClassName": "mig.nvidia.com",
                                "count": 2,
                                "selectors": [
                                    {"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}}
                                ],
                            },
                        }
                    ]
                }
            }
        },
    },
)
SHARED_CLAIM = resource(
    "kubernetes:resource.k8s.io/v1:ResourceClaim",
    "l40s-shared",
    {
        "metadata": {"name": "l40s-shared"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "firstAvailable": [
                            {
                                "name": "big",
                                "deviceClassName": "gpu.nvidia.com",
                                "selectors": [
                                    {
                                        "cel": {
                                            "expression": "device.capacity['gpu.nvidia.com'].memory >= "
                                            "quantity('40Gi') || device.attributes['gpu.nvidia.com'].productName "
                                            "== 'NVIDIA L40S'"
                                        }
                                    }
                                ],
                            },
                            {"name": "any", "deviceClassName": "gpu.nvidia.com", "allocationMode": "All"},
                        ],
                    }
                ],
                "config": [
                    {
                        "requests": ["gpu"],
                        "opaque": {
                            "driver": "gpu.nvidia.com",
                            "parameters": {
                                "apiVersion": "resource.nvidia.com/v1beta1",
                                "kind": "GpuConfig",
                                "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}},
                            },
                        },
                    }
                ],
            }
        },
    },
)


def job(name: str, namespace: str, pool: str, claim: dict[str, str]) -> PlannedResource:
    pod = {"nodeSelector": {"gpu-components/pool": pool}, "resourceClaims": [{"name": "gpu", **claim}]}
    inputs = {"metadata": {"name": name, "namespace": namespace}, "spec": {"template": {"spec": pod}}}
    return resource("kubernetes:batch/v1:Job", name, inputs)


RESOURCES = [
    MIG_TEMPLATE,
    SHARED_CLAIM,
    job("h100-mig-sample", "ml", "h100-mig", {"resourceClaimTemplateName": "h100-mig-1g"}),
    job("other-namespace", "default", "h100-mig", {"resourceClaimTemplateName": "h100-mig-1g"}),
    job("l40s-a", "default", "l40s", {"resourceClaimName": "l40s-shared"}),
    job("l40s-b", "default", "l40s", {"resourceClaimName": "l40s-shared"}),
]


def test_dra_pools_and_claims_in_the_capacity_report_are_exact() -> None:
    report = capacity_report("aws-eks-dra", OUTPUTS, claims=claim_records(RESOURCES))
    assert report == (
        "## GPU capacity: aws-eks-dra\n"
        "\n"
        "| pool | cloud | instance | GPU | GPUs/node | nodes | each node advertises | GPU memory per unit "
        "| isolation |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| a10g | aws | g5.2xlarge | A10G (24 GB) | 1 | 0..3 | 1 x `nvidia.com/gpu` | 24 GB (GPU) | exclusive |\n"
        "| h100-mig | aws | p5.48xlarge | H100-80GB (80 GB) | 8 | 0..2 | 56 x `mig.nvidia.com/1g.10gb` (DRA device) "
        "| 10 GB (MIG 1g.10gb) | MIG-isolated |\n"
        "| l40s | aws | g6e.12xlarge | L40S (48 GB) | 4 | 0..3 | 4 x `gpu.nvidia.com` (DRA device) | 48 GB (GPU) "
        "| exclusive |\n"
        "\n"
        "At maximum size: 8 GPU nodes, 31 GPUs (3 x A10G, 16 x H100-80GB, 12 x L40S).\n"
        "\n"
        "DRA pools (no extended resource: workloads ask for these devices with resource claims):\n"
        "\n"
        "| pool | published by | DRA devices per node | at maximum size |\n"
        "|---|---|---|---|\n"
        "| h100-mig | dra-driver | 56 x `mig.nvidia.com/1g.10gb` | 112 x `mig.nvidia.com/1g.10gb` |\n"
        "| l40s | dra-driver | 4 x `gpu.nvidia.com` | 12 x `gpu.nvidia.com` |\n"
        "\n"
        "Resource claims (resource.k8s.io/v1):\n"
        "\n"
        "| claim | request | DeviceClass | count | selectors | config | used by |\n"
        "|---|---|---|---|---|---|---|\n"
        "| ResourceClaim default/l40s-shared | gpu/big | `gpu.nvidia.com` | 1 "
        "| `device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi') \\|\\| "
        "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L40S'` "
        "| GpuConfig sharing TimeSlicing (interval Long) [gpu] "
        "| Job default/l40s-a (pool l40s)<br>Job default/l40s-b (pool l40s) |\n"
        "| ResourceClaim default/l40s-shared | gpu/any | `gpu.nvidia.com` | all | - "
        "| GpuConfig sharing TimeSlicing (interval Long) [gpu] "
        "| Job default/l40s-a (pool l40s)<br>Job default/l40s-b (pool l40s) |\n"
        "| ResourceClaimTemplate ml/h100-mig-1g | mig | `mig.nvidia.com` | 2 "
        "| `device.attributes['gpu.nvidia.com'].profile == '1g.10gb'` | - | Job ml/h100-mig-sample (pool h100-mig) |\n"
    )


def test_records_without_dra_devices_anywhere_read_as_before() -> None:
    records = capacity_records(OUTPUTS)
    assert "draDevices" not in records["a10g"]
    assert records["h100-mig"]["draDevices"] == {"mig.nvidia.com/1g.10gb": 56}
    assert records["l40s"]["draDevices"] == {"gpu.nvidia.com": 4}
    old = {"gpuPools": {"h100-mig": {"capacity": H100_MIG}}}
    assert "DRA pools" not in capacity_report("old", old)


def test_claims_know_the_pools_their_workloads_select() -> None:
    assert [(claim.name, claim.pools) for claim in claim_records(RESOURCES)] == [
        ("default/l40s-shared", ("l40s",)),
        ("ml/h100-mig-1g", ("h100-mig",)),
    ]


def test_the_diagram_shows_what_the_dra_driver_publishes_and_the_claims_per_pool() -> None:
    mermaid = to_mermaid("aws-eks-dra", OUTPUTS, claims=claim_records(RESOURCES))
    assert 'p1["pool h100-mig<br>p5.48xlarge<br>0..2 nodes<br>claim ml/h100-mig-1g: 2 x mig.nvidia.com"]' in mermaid
    assert (
        'p2["pool l40s<br>g6e.12xlarge<br>0..3 nodes<br>claim default/l40s-shared: 1 x gpu.nvidia.com, '
        'all x gpu.nvidia.com"]' in mermaid
    )
    assert 'p0["pool a10g<br>g5.2xlarge<br>0..3 nodes"]' in mermaid
    assert 'p1g["8 x H100-80GB (80 GB) per node<br>dra-driver publishes 56 x mig.nvidia.com/1g.10gb"]' in mermaid
    assert 'p1s0["7 x MIG 1g.10gb (10 GB) per GPU<br>MIG-isolated"]' in mermaid
    assert 'p2g["4 x L40S (48 GB) per node<br>dra-driver publishes 4 x gpu.nvidia.com"]' in mermaid
    assert 'p0g["1 x A10G (24 GB) per node<br>node advertises 1 x nvidia.com/gpu"]' in mermaid


@dataclass
class DraPool:
    spec: GpuNodePoolSpec
    device_plugin_host: str
    advertised_resources: dict[str, int]
    autoscaler_note: str | None
    dra_devices: dict[str, int]


def test_a_pools_dra_devices_go_into_its_capacity_record() -> None:
    spec = GpuNodePoolSpec.from_args({"name": "h100", "instance_type": "p5.48xlarge", "max_size": 2}, "aws")
    record = pool_capacity(DraPool(spec, "dra-driver", {}, None, {"gpu.nvidia.com": 8}))
    assert (record["devicePlugin"], record["advertises"], record["draDevices"]) == (
        "dra-driver",
        [],
        {"gpu.nvidia.com": 8},
    )
    plugin = pool_capacity(DraPool(spec, "daemonset", {"nvidia.com/gpu": 8}, None, {}))
    assert "draDevices" not in plugin


def test_a_claim_made_the_way_the_readme_shows_is_in_the_plan() -> None:
    """README: create a claim helper's manifest as the typed k8s.resource.v1 resource (as sample_jobs does). The
    offline plan sees it; the objs of a k8s.yaml.v2.ConfigGroup it does not (the Kubernetes provider expands them
    only on a real deploy), so the same claim given so is not among the plan's claims (trial finding 6)."""
    wiring = {"cluster_name": "prod", "subnet_ids": ["subnet-1"], "node_role_arn": "arn:aws:iam::123456789012:role/n"}
    pool = {"name": "l40s", "instance_type": "g6e.xlarge", "max_size": 2}

    def program() -> None:
        gpus = GpuCluster(
            "gpus",
            {"cloud": "aws", "aws": wiring, "pools": [pool], "gpu_stack": "dra", "dra": {"kubernetes_version": "1.34"}},  # type: ignore[typeddict-item]
        )
        claim = gpu_claim_template(gpus.pools["l40s"], "trainer", gpus=1)
        k8s.resource.v1.ResourceClaimTemplate("trainer", metadata=claim["metadata"], spec=claim["spec"])
        hidden = gpu_claim_template(gpus.pools["l40s"], "hidden", gpus=1)
        k8s.yaml.v2.ConfigGroup("hidden", objs=[hidden])
        settings = claim_pod_settings(gpus.pools["l40s"], [claim])
        container = {"name": "train", "image": "registry.example/train:1", "resources": {"claims": settings["claims"]}}
        pod = {
            "containers": [container],
            "restartPolicy": "Never",
            "resourceClaims": settings["resourceClaims"],
            "tolerations": settings["tolerations"],
            "nodeSelector": settings["nodeSelector"],
        }
        k8s.batch.v1.Job("train", metadata={"name": "train"}, spec={"template": {"spec": pod}})

    records = claim_records(plan_of(program).resources)
    assert [(claim.kind, claim.name, claim.used_by, claim.pools) for claim in records] == [
        ("ResourceClaimTemplate", "default/trainer", ("Job default/train (pool l40s)",), ("l40s",))
    ]
