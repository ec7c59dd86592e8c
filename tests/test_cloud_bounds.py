"""Bounds the clouds enforce, refused from a stack's config before any resource: AKS's smallest OS disk of a fixed
pool, GKE's nodes per node pool zone (the components' and ``GpuCluster``'s tests sit beside them in ``tests/azure``,
``tests/gcp`` and ``tests/aws``)."""

from __future__ import annotations

from pathlib import Path

from tests.test_stack_config_problems import plan, problems

AKS_STACK = """\
  azure-native:location: eastus
  gpu-components:cloud: azure
  gpu-components:cluster:
    name: gpudemo
    resource_group_name: gpudemo-rg
  gpu-components:pools:
    - name: t4
      instance_type: Standard_NC4as_T4_v3
      max_size: 2
      disk_size_gb: 20
"""


def test_stack_config_refuses_an_aks_pool_disk_under_the_smallest_os_disk(tmp_path: Path) -> None:
    assert problems(plan(tmp_path, AKS_STACK, "aks-disk")) == [
        "pools[0].disk_size_gb: an AKS agent pool's osDiskSizeGB is at least 30 GB (got 20); valid: 30..2048"
    ]


GKE_STACK = """\
  gcp:project: gpu-demo-project
  gpu-components:cloud: gcp
  gpu-components:cluster:
    name: gpu-demo
    location: us-central1
    node_locations: [us-central1-a, us-central1-b]
  gpu-components:pools:
    - name: l4
      instance_type: g2-standard-8
      max_size: 2001
"""


def test_stack_config_refuses_a_gke_pool_larger_than_its_zones_allow(tmp_path: Path) -> None:
    assert problems(plan(tmp_path, GKE_STACK, "gke-zones")) == [
        "pools[0].max_size: more nodes than GKE allows in one node pool over the 2 zone(s) of cluster.node_locations "
        "(1000 per node pool zone) (got 2001); valid: <= 2000, or more zones"
    ]


def test_stack_config_reports_every_bound_an_aks_pool_breaks_at_once(tmp_path: Path) -> None:
    stack = AKS_STACK.replace("max_size: 2", "max_size: 1001").replace("disk_size_gb: 20", "disk_size_gb: 25")
    assert problems(plan(tmp_path, stack, "aks-bounds")) == [
        "pools[0].max_size: more nodes than one AKS node pool may have; split the pool (got 1001); valid: <= 1000",
        "pools[0].disk_size_gb: an AKS agent pool's osDiskSizeGB is at least 30 GB (got 25); valid: 30..2048",
    ]
