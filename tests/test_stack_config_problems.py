"""A stack's config reports every problem at once: a key problem (unknown key, unknown cloud or GPU stack, missing
key) hides neither the cluster's nor any pool's problems (the new-user trial's ``t-typos`` stack)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner, Result

from gpu_components.cli import main
from tests.helpers import copy_example_project

POOLS = """\
  gpu-components:pools:
    - name: a10g
      instance_type: g5.2xlarge
      max_size: "2"
      spot: "yes"
      taints:
        - key: team
          value: ml
          effect: NO_SCHEDULE
    - name: A100
      instance_type: p4d.24xlarge
      max_size: 2
      aws:
        ami_type: BOTTLEROCKET_x86_64_NVIDIA
      mig:
        profile: MIG1g
"""
"""Pool 0 is misshapen (a string number, a string boolean, a taint effect in the wrong spelling); pool 1 is well
shaped but breaks two rules (its name is not a DNS label, MIG1g is AKS's spelling, not a MIG profile name)."""

POOL_PROBLEMS = [
    "pools[0].max_size: must be a whole number (got '2'); valid: a whole number, without quotes or a fraction (2, not "
    "2.5, 2.0 or '2')",
    "pools[0].spot: input should be a valid boolean (got 'yes'); valid: true, false",
    "pools[0].taints[0].effect: not one of the allowed values; did you mean 'NoSchedule'? (got 'NO_SCHEDULE'); "
    "valid: 'NoSchedule', 'PreferNoSchedule' or 'NoExecute'",
    "pools[1].name: pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels "
    "(got 'A100')",
    "pools[1].mig.profile: not a MIG profile name (got 'MIG1g')",
]
SHAPE_PROBLEMS = POOL_PROBLEMS[:3]
CLUSTER = "  gpu-components:cluster:\n    name: gpu-demo\n"


def plan(tmp_path: Path, config: str, stack: str = "t-typos") -> Result:
    (tmp_path / "stacks").mkdir(exist_ok=True)
    copy_example_project(tmp_path)
    (tmp_path / "stacks" / f"Pulumi.{stack}.yaml").write_text(f"config:\n  aws:region: us-west-2\n{config}")
    return CliRunner().invoke(main, ["plan", stack, "--cwd", str(tmp_path)])


def problems(result: Result) -> list[str]:
    """The problem lines of a failed plan, in order, each without its source."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    header, *lines = result.output.splitlines()
    assert re.fullmatch(r"Error: [\w-]+: \d+ invalid GPU settings?:", header), header
    assert header.split(": ")[2] == f"{len(lines)} invalid GPU setting{'s' if len(lines) != 1 else ''}:"
    return [re.sub(r" \[source: [^]]*\]$", "", line.removeprefix("  - ")) for line in lines]


def assert_reported(reported: list[str], expected: list[str]) -> None:
    """Each expected problem is reported, once (an expected line may stop before the reported one's valid values)."""
    for line in expected:
        assert len([problem for problem in reported if problem.startswith(line)]) == 1, (line, reported)


def test_an_unknown_key_hides_no_pool_problem(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu-stack: gpu-operator\n{CLUSTER}{POOLS}"
    reported = problems(plan(tmp_path, config))
    unknown = (
        "gpu-components:gpu-stack: unknown config key; did you mean 'gpu-components:gpu_stack'? "
        "(got 'gpu-operator'); valid: cloud, cluster, pools, gpu_stack, gpu_operator, device_plugin, dra"
    )
    assert reported[0] == unknown
    assert_reported(reported, POOL_PROBLEMS)
    assert len(reported) == 1 + len(POOL_PROBLEMS)


def test_a_miscased_cloud_is_named_and_the_pools_are_checked_as_that_cloud(tmp_path: Path) -> None:
    reported = problems(plan(tmp_path, f"  gpu-components:cloud: AWS\n{CLUSTER}{POOLS}"))
    assert reported[0] == (
        "cloud: no node-pool adapter for this cloud; did you mean 'aws'? (cluster and pools checked as aws) "
        "(got 'AWS'); valid: aws, azure, gcp"
    )
    assert_reported(reported, POOL_PROBLEMS)
    assert len(reported) == 1 + len(POOL_PROBLEMS)


def test_a_misspelt_cloud_gets_the_closest_cloud(tmp_path: Path) -> None:
    reported = problems(plan(tmp_path, f"  gpu-components:cloud: azur\n{CLUSTER}{POOLS}"))
    assert reported[0].startswith(
        "cloud: no node-pool adapter for this cloud; did you mean 'azure'? (cluster and pools checked as azure)"
    )
    # Checked as azure: AKS's own rules run (its pool names, its instance types; aws blocks belong to another cloud).
    assert_reported(
        reported,
        [
            *SHAPE_PROBLEMS,
            "pools[1].aws: settings for aws, but the cluster is on azure (got {'ami_type': ",
            "pools[1].name: not a valid azure node pool name, and pool names also name Kubernetes objects",
            "pools[1].instance_type: unknown azure instance type",
        ],
    )


def test_an_unknown_cloud_with_no_close_match_still_reports_every_pool_shape(tmp_path: Path) -> None:
    reported = problems(plan(tmp_path, f"  gpu-components:cloud: oci\n{CLUSTER}{POOLS}"))
    assert reported == [
        "cloud: no node-pool adapter for this cloud (got 'oci'); valid: aws, azure, gcp",
        *SHAPE_PROBLEMS,
    ]


def test_a_misspelt_gpu_stack_is_named_and_the_pools_are_checked_with_the_closest(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu_stack: gpu_operator\n{CLUSTER}{POOLS}"
    reported = problems(plan(tmp_path, config))
    assert reported[0] == (
        "gpu_stack: unknown GPU stack; did you mean 'gpu-operator'? (pools checked as gpu-operator) "
        "(got 'gpu_operator'); valid: auto, device-plugin, gpu-operator, dra"
    )
    assert_reported(reported, POOL_PROBLEMS)


def test_an_unknown_gpu_stack_with_no_close_match_is_reported_once(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu_stack: mps\n{CLUSTER}{POOLS}"
    reported = problems(plan(tmp_path, config))
    assert reported == [
        "gpu_stack: unknown GPU stack (got 'mps'); valid: auto, device-plugin, gpu-operator, dra",
        *SHAPE_PROBLEMS,  # validate_cluster checks no pool rules without a GPU stack to check them for
    ]


def test_missing_pools_and_an_unknown_key_are_both_reported_once(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:pool: []\n{CLUSTER}"
    reported = problems(plan(tmp_path, config))
    assert reported == [
        "gpu-components:pool: unknown config key; did you mean 'gpu-components:pools'? (got '[]'); "
        "valid: cloud, cluster, pools, gpu_stack, gpu_operator, device_plugin, dra",
        "gpu-components:pools: required config key is missing (got None)",
    ]


def test_pools_that_are_not_a_list_are_reported_once(tmp_path: Path) -> None:
    reported = problems(plan(tmp_path, f"  gpu-components:cloud: aws\n{CLUSTER}  gpu-components:pools:\n    a: 1\n"))
    assert reported == [
        "pools: must be a list of pools (got {'a': 1}); valid: a list of pools, each a mapping with keys aws, azure, "
        "cpu_architecture, desired_size, disk_size_gb, gcp, gpu_access, gpu_count, gpu_model, gpu_taint, "
        "instance_type, labels, max_size, mig, min_size, mps, name, provisioning, spot, taints, time_slicing"
    ]


def test_an_unknown_key_hides_no_cluster_rule(tmp_path: Path) -> None:
    # Before, any earlier problem skipped the cluster's own rules (here: attaching to an existing EKS cluster
    # needs its subnets).
    cluster = "  gpu-components:cluster:\n    name: gpu-demo\n    existing: true\n"
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpustack: auto\n{cluster}{POOLS}"
    reported = problems(plan(tmp_path, config))
    assert reported[0].startswith(
        "gpu-components:gpustack: unknown config key; did you mean 'gpu-components:gpu_stack'?"
    )
    assert any(line.startswith("cluster.subnet_ids: ") for line in reported), reported
    assert_reported(reported, POOL_PROBLEMS)


MIG_POOLS = """\
  gpu-components:pools:
    - name: count
      instance_type: g7e.2xlarge
      max_size: 1
      mig: {layout: {1g.24gb: 2.5}, strategy: mixed}
    - name: empty
      instance_type: g7e.2xlarge
      max_size: 1
      mig: {layout: {}, strategy: mixed}
    - name: strategy
      instance_type: g7e.2xlarge
      max_size: 1
      mig: {profile: 1g.24gb, strategy: Single}
    - name: dotted
      instance_type: g7e.2xlarge
      max_size: 1
      mig: {profile: 1g.24gb.me.all}
    - name: gb300
      instance_type: p6e-gb300.36xlarge
      max_size: 1
      mig: {profile: 1g.34gb}
"""


def test_mig_config_problems_read_as_documented_with_did_you_mean_and_the_mig_source(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu_stack: gpu-operator\n{CLUSTER}{MIG_POOLS}"
    result = plan(tmp_path, config)
    reported = problems(result)
    assert sorted(reported) == [  # shape problems come first; sorted, they are in pool order
        "pools[0].mig.layout['1g.24gb']: must be a whole number (got 2.5); valid: a whole number, without quotes or a "
        "fraction (2, not 2.5, 2.0 or '2')",
        "pools[1].mig.layout: a MIG layout needs at least one profile (got {}); valid: at least one entry <profile>: "
        "<instances per GPU>, e.g. {'1g.10gb': 2}",
        "pools[2].mig.strategy: not one of the allowed values; did you mean 'single'? (got 'Single'); valid: 'single' "
        "or 'mixed'",
        "pools[3].mig.profile: not a MIG profile name; did you mean '1g.24gb+me.all'? (got '1g.24gb.me.all'); valid: "
        "<compute>g.<memory>gb[+me|+me.all|+gfx|-me], e.g. 1g.10gb",
        "pools[4].mig.profile: not a MIG profile of GB300 (got '1g.34gb'); valid: 1g.35gb, 1g.35gb+me, 1g.70gb, "
        "2g.70gb, 3g.139gb, 4g.139gb, 7g.278gb",
    ]
    gb300 = next(line for line in result.output.splitlines() if line.startswith("  - pools[4]"))
    assert gb300.endswith(
        "[source: https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/assets/state-mig-manager/0400_configmap.yaml]"
    )


BALANCED_POOLS = """\
  gpu-components:pools:
    - name: single
      instance_type: p6e-gb300.36xlarge
      max_size: 1
      mig: {config: all-balanced}
    - name: typo
      instance_type: p6-b300.48xlarge
      max_size: 1
      mig: {config: balanced, strategy: mixed}
"""


def test_a_named_mig_config_problem_names_the_field_the_layout_and_the_valid_value(tmp_path: Path) -> None:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu_stack: gpu-operator\n{CLUSTER}{BALANCED_POOLS}"
    assert sorted(problems(plan(tmp_path, config))) == [
        "pools[0].mig.strategy: the single MIG strategy needs one profile on every GPU; a layout of several profiles "
        "(NVIDIA's all-balanced on GB300: 2 x 1g.35gb, 1 x 2g.70gb, 1 x 3g.139gb) needs the mixed strategy "
        "(default: single); valid: mixed",
        "pools[1].mig.config: not one of the allowed values; did you mean 'all-balanced'? (got 'balanced'); valid: "
        "'all-balanced'",
    ]
