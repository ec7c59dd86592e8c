"""Bounds the clouds enforce, refused from a stack's config before any resource: AKS's smallest OS disk of a fixed
pool (the components' and ``GpuCluster``'s tests sit beside them in ``tests/azure`` and ``tests/aws``)."""

from __future__ import annotations

from pathlib import Path

from tests.test_stack_config_problems import plan, problems

AKS_STACK = """\
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
