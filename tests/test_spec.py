"""Rules of the cloud-neutral pool spec: each with a failing input and the key parts of its message."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_components import catalog
from gpu_components.errors import Default, GpuSpecError, Problem
from gpu_components.spec import (
    DEFAULT_GPU_TAINT,
    GpuNodePoolSpec,
    Mig,
    Mps,
    Taint,
    TimeSlicing,
    parse_pools,
)


def pool(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "gpu", "instance_type": "g5.xlarge", "max_size": 3}
    base.update(fields)
    return base


def problems_of(args: dict[str, Any], cloud: str = "aws") -> list[Problem]:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(args, cloud)  # type: ignore[arg-type]
    return list(caught.value.problems)


def only_problem(args: dict[str, Any], cloud: str = "aws") -> Problem:
    problems = problems_of(args, cloud)
    assert len(problems) == 1, problems
    return problems[0]


def test_minimal_pool_resolves_catalog_and_defaults() -> None:
    spec = GpuNodePoolSpec.from_args(pool(), "aws")
    assert (spec.gpu.name, spec.gpu_count, spec.cpu_architecture) == ("A10G", 1, "x86_64")
    assert (spec.min_size, spec.desired_size, spec.max_size, spec.spot) == (0, 0, 3, False)
    assert spec.taints == (DEFAULT_GPU_TAINT,)
    assert Taint("nvidia.com/gpu", "present", "NoSchedule") == DEFAULT_GPU_TAINT
    assert spec.sharing is None and spec.mig is None and spec.isolation == "exclusive"


def test_gpu_taint_can_be_turned_off_explicitly_and_extra_taints_follow_it() -> None:
    spec = GpuNodePoolSpec.from_args(
        pool(gpu_taint=False, taints=[{"key": "dedicated", "value": "ml", "effect": "NoExecute"}]), "aws"
    )
    assert spec.taints == (Taint("dedicated", "ml", "NoExecute"),)
    kept = GpuNodePoolSpec.from_args(pool(taints=[{"key": "team", "effect": "PreferNoSchedule"}]), "aws")
    assert kept.taints == (DEFAULT_GPU_TAINT, Taint("team", "", "PreferNoSchedule"))


def test_sharing_modes_are_parsed_into_spec_objects() -> None:
    sliced = GpuNodePoolSpec.from_args(pool(time_slicing={"replicas": 4, "rename_by_default": True}), "aws")
    assert sliced.sharing == TimeSlicing(4, True, False)
    assert sliced.isolation == "shared"
    mps = GpuNodePoolSpec.from_args(pool(mps={"replicas": 8}), "aws")
    assert mps.sharing == Mps(8)


def test_uniform_mig_profile_fills_each_gpu() -> None:
    spec = GpuNodePoolSpec.from_args(pool(instance_type="p4de.24xlarge", mig={"profile": "1g.10gb"}), "aws")
    assert spec.mig == Mig({"1g.10gb": 7}, "single", "1g.10gb", "all-1g.10gb", uniform_profile="1g.10gb")
    assert spec.mig is not None and spec.mig.instances_per_gpu == 7
    assert spec.isolation == "mig"


def test_mixed_mig_layout_that_fits_is_accepted() -> None:
    layout = {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}
    spec = GpuNodePoolSpec.from_args(
        pool(name="mixed", instance_type="p5.48xlarge", mig={"layout": layout, "strategy": "mixed"}), "aws"
    )
    assert spec.mig == Mig(layout, "mixed", None, "custom-mixed")


def test_structural_errors_name_field_value_and_allowed_keys() -> None:
    problems = problems_of(pool(max_size=2.0, replica=3, taints=[{"key": "a", "effect": "NoSchedul"}]))
    rendered = [str(p) for p in problems]
    assert (
        "max_size: must be a whole number (got 2.0); valid: a whole number, without quotes or a fraction (2, not 2.5, "
        "2.0 or '2')"
    ) in rendered
    unknown = next(p for p in problems if p.path == "replica")
    assert unknown.message == "unknown field"
    assert unknown.valid is not None and "time_slicing" in unknown.valid and "max_size" in unknown.valid
    effect = next(p for p in problems if p.path == "taints[0].effect")
    assert effect.message == "not one of the allowed values; did you mean 'NoSchedule'?"
    assert effect.valid == "'NoSchedule', 'PreferNoSchedule' or 'NoExecute'"


@pytest.mark.parametrize(("path", "value"), [("mig.layout['1g.24gb']", 2.5), ("mig.layout['1g.24gb']", "2")])
def test_a_layout_count_that_is_not_an_integer_must_be_a_whole_number(path: str, value: object) -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"layout": {"1g.24gb": value}, "strategy": "mixed"}))
    assert str(problem) == (
        f"{path}: must be a whole number (got {value!r}); valid: a whole number, without quotes or a fraction (2, not "
        "2.5, 2.0 or '2')"
    )


def test_a_miscased_mig_strategy_gets_did_you_mean() -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"profile": "1g.24gb", "strategy": "Single"}))
    assert str(problem) == (
        "mig.strategy: not one of the allowed values; did you mean 'single'? (got 'Single'); valid: 'single' or 'mixed'"
    )


@pytest.mark.parametrize("value", [True, "3", 2.5])
def test_counts_must_be_whole_numbers(value: object) -> None:
    problem = only_problem(pool(max_size=value))
    assert problem.path == "max_size" and problem.value == value


def test_every_problem_is_reported_at_once() -> None:
    problems = problems_of(
        pool(
            name="Bad_Name!",
            instance_type="p4d.24xlarge",
            min_size=3,
            max_size=2,
            mps={"replicas": 1},
            mig={"profile": "1g.10gb"},
            labels={"kubernetes.io/arch": "amd64"},
        )
    )
    assert [p.path for p in problems] == [
        "name",
        "min_size",
        "labels['kubernetes.io/arch']",
        "mps",
        "mps.replicas",
    ]


@pytest.mark.parametrize(
    ("cloud", "name", "fragment"),
    [
        ("aws", "-starts-with-dash", "1-63 letters, digits"),
        ("azure", "gpupoolnametoolong", "1-12 lowercase letters or digits"),
        ("azure", "Gpu", "1-12 lowercase letters or digits"),
        ("gcp", "ends-with-dash-", "1-40 lowercase letters"),
    ],
)
def test_pool_names_follow_the_cloud_rule(cloud: str, name: str, fragment: str) -> None:
    instance = {"aws": "g5.xlarge", "azure": "Standard_NC4as_T4_v3", "gcp": "g2-standard-4"}[cloud]
    problems = problems_of(pool(name=name, instance_type=instance), cloud)
    assert any(p.path == "name" and p.valid is not None and fragment in p.valid for p in problems), problems


def test_default_is_a_reserved_pool_name() -> None:
    problem = only_problem(pool(name="default"))
    assert "reserved" in problem.message


def test_unknown_instance_type_suggests_the_closest_names() -> None:
    problem = only_problem(pool(instance_type="p4d.24xlarg"))
    assert problem.path == "instance_type"
    assert problem.valid is not None and problem.valid.startswith("p4d.24xlarge")
    assert "also give cpu_architecture, gpu_count, gpu_model" in problem.message


def test_unknown_instance_type_is_accepted_with_explicit_gpu_facts() -> None:
    spec = GpuNodePoolSpec.from_args(
        pool(instance_type="p7.48xlarge", gpu_model="B200", gpu_count=8, cpu_architecture="x86_64"), "aws"
    )
    assert (spec.gpu.name, spec.gpu_count) == ("B200", 8)


def test_explicit_gpu_facts_must_agree_with_the_catalog() -> None:
    problem = only_problem(pool(gpu_count=2))
    assert (problem.path, problem.value, problem.valid) == ("gpu_count", 2, "1")
    assert "disagrees with the catalog entry of g5.xlarge" in problem.message


def test_amd_gpu_instance_is_rejected_as_not_nvidia() -> None:
    problem = only_problem(pool(instance_type="g4ad.xlarge"))
    assert problem.message.startswith("not an NVIDIA GPU instance type (")
    assert "AMD" in problem.message


def test_non_gpu_instance_is_rejected() -> None:
    problem = only_problem(pool(instance_type="m5.large"))
    assert problem.message.startswith("not a GPU instance type")
    assert problem.valid is not None and problem.valid.startswith("NVIDIA GPU instance types, e.g.")


def test_gcp_n1_machine_type_takes_attached_gpus() -> None:
    spec = GpuNodePoolSpec.from_args(pool(name="t4", instance_type="n1-standard-8", gpu_model="T4", gpu_count=2), "gcp")
    assert (spec.gpu.name, spec.gpu_count, spec.cpu_architecture) == ("T4", 2, "x86_64")


def test_node_counts_must_be_ordered() -> None:
    problem = only_problem(pool(min_size=2, desired_size=1, max_size=4))
    assert (problem.path, problem.valid) == ("desired_size", "2..4")
    assert "min_size <= desired_size <= max_size" in problem.message


def test_labels_must_be_valid_and_not_reserved() -> None:
    problems = problems_of(pool(labels={"bad key!": "x", "team": "-bad-", "nvidia.com/gpu.present": "true"}))
    assert [(p.path, p.message) for p in problems] == [
        ("labels['bad key!']", "not a valid qualified name"),
        ("labels['team']", "not a valid label value"),
        ("labels['nvidia.com/gpu.present']", "set by gpu_components itself"),
    ]


def test_the_mps_capable_label_is_reserved_so_no_pool_runs_an_mps_daemon_it_does_not_use() -> None:
    problems = problems_of(pool(labels={"nvidia.com/mps.capable": "true"}))
    assert [(p.path, p.message) for p in problems] == [
        ("labels['nvidia.com/mps.capable']", "set by gpu_components itself")
    ]


@pytest.mark.parametrize(
    "key",
    [
        "gke-no-default-nvidia-gpu-device-plugin",
        "nvidia.com/gpu.deploy.device-plugin",
        "nvidia.com/gpu.deploy.operands",
        "nvidia.com/gpu.deploy.mig-manager",
    ],
)
def test_gpu_operator_labels_are_reserved(key: str) -> None:
    problem = only_problem(pool(labels={key: "false"}))
    assert (problem.path, problem.value) == (f"labels[{key!r}]", key)
    assert problem.message.startswith("set by gpu_components itself")


def test_labels_beside_the_gpu_operator_prefix_are_allowed() -> None:
    labels = {"nvidia.com/gpu.deployment": "a", "example.com/gpu.deploy.x": "b", "gke-no-default": "c"}
    assert dict(GpuNodePoolSpec.from_args(pool(labels=labels), "aws").labels) == labels


def test_taint_duplicating_the_default_gpu_taint_is_rejected() -> None:
    problem = only_problem(pool(taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]))
    assert problem.message == "duplicates the default GPU taint; set gpu_taint: false to replace it"
    # the taint as written, not its kubectl text nvidia.com/gpu=true:NoSchedule
    assert (problem.path, problem.value) == (
        "taints[0]",
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
    )


def test_spec_taint_paths_skip_the_default_gpu_taint() -> None:
    taints = [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "value": "", "effect": "NoExecute"}]
    on = GpuNodePoolSpec.from_args(pool(taints=taints), "aws")
    off = GpuNodePoolSpec.from_args(pool(gpu_taint=False, taints=taints), "aws")
    assert [on.taint_path(i) for i in range(3)] == ["gpu_taint", "taints[0]", "taints[1]"]
    assert [off.taint_path(i) for i in range(2)] == ["taints[0]", "taints[1]"]
    assert [t.as_given() for t in off.taints] == [
        {"key": "a", "effect": "NoSchedule"},
        {"key": "b", "effect": "NoExecute"},
    ]


def test_time_slicing_needs_two_replicas() -> None:
    problem = only_problem(pool(time_slicing={"replicas": 1}))
    assert (problem.path, problem.valid) == ("time_slicing.replicas", ">= 2")


def test_time_slicing_and_mps_are_exclusive() -> None:
    problem = only_problem(pool(time_slicing={"replicas": 2}, mps={"replicas": 2}))
    assert problem.message == "time-slicing and MPS are mutually exclusive on a pool"


def test_mps_replicas_are_capped_by_compute_capability() -> None:
    v100 = only_problem(pool(instance_type="p3.2xlarge", mps={"replicas": 17}))
    assert v100.valid == "2..16" and "compute capability 7.0 of V100" in v100.message
    assert GpuNodePoolSpec.from_args(pool(mps={"replicas": 48}), "aws").sharing == Mps(48)
    assert only_problem(pool(mps={"replicas": 49})).valid == "2..48"


def test_mig_needs_a_mig_capable_gpu() -> None:
    problem = only_problem(pool(mig={"profile": "1g.10gb"}))
    assert problem.message == "A10G does not support MIG"
    assert problem.valid is not None and "A100-80GB" in problem.valid


def test_mig_profile_must_exist_on_the_gpu_model() -> None:
    problem = only_problem(pool(instance_type="p4de.24xlarge", mig={"profile": "1g.5gb"}))
    assert problem.message == "not a MIG profile of A100-80GB"
    assert problem.valid == "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb"


def test_mig_profile_syntax_is_checked() -> None:
    problem = only_problem(pool(instance_type="p4de.24xlarge", mig={"profile": "1g10gb"}))
    assert problem.message == "not a MIG profile name"


def test_mig_needs_exactly_one_of_profile_and_layout() -> None:
    problem = only_problem(pool(instance_type="p4de.24xlarge", mig={"strategy": "mixed"}))
    assert problem.message == "give exactly one of profile (uniform), layout or config (NVIDIA's named layout)"
    assert problem.valid == "profile, layout, config"


def test_a_layout_of_one_profile_filling_each_gpu_names_that_profile_as_uniform() -> None:
    full = GpuNodePoolSpec.from_args(
        pool(name="full", instance_type="p4de.24xlarge", mig={"layout": {"1g.10gb": 7}}), "aws"
    )
    assert full.mig == Mig({"1g.10gb": 7}, "single", None, "custom-full", False, uniform_profile="1g.10gb")
    short = GpuNodePoolSpec.from_args(pool(instance_type="p4de.24xlarge", mig={"layout": {"1g.10gb": 6}}), "aws")
    assert short.mig is not None and short.mig.uniform_profile is None


@pytest.mark.parametrize(
    ("instance_type", "devices"),
    [
        ("p6-b300.48xlarge", {"1g.34gb": 2, "2g.67gb": 1, "3g.135gb": 1}),
        ("p6e-gb300.36xlarge", {"1g.35gb": 2, "2g.70gb": 1, "3g.139gb": 1}),
        ("p5.48xlarge", {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}),
    ],
)
def test_nvidias_balanced_config_expands_to_the_gpus_balanced_layout(
    instance_type: str, devices: dict[str, int]
) -> None:
    spec = GpuNodePoolSpec.from_args(
        pool(instance_type=instance_type, mig={"config": "all-balanced", "strategy": "mixed"}), "aws"
    )
    assert spec.mig == Mig(devices, "mixed", None, "all-balanced", config="all-balanced")
    assert spec.mig.as_given == {"config": "all-balanced", "strategy": "mixed"}


def test_nvidias_balanced_config_needs_the_mixed_strategy() -> None:
    problem = only_problem(pool(instance_type="p6e-gb300.36xlarge", mig={"config": "all-balanced"}))
    assert str(problem) == (
        "mig.strategy: the single MIG strategy needs one profile on every GPU; a layout of several profiles (NVIDIA's "
        "all-balanced on GB300: 2 x 1g.35gb, 1 x 2g.70gb, 1 x 3g.139gb) needs the mixed strategy (default: single); "
        "valid: mixed [source: https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html"
        "#mig-strategies]"
    )


def test_a_named_config_other_than_nvidias_is_refused_naming_the_valid_one() -> None:
    problem = only_problem(pool(instance_type="p5.48xlarge", mig={"config": "balanced", "strategy": "mixed"}))
    assert (problem.path, problem.value, problem.valid) == ("mig.config", "balanced", "'all-balanced'")


def test_a_named_config_on_a_gpu_without_mig_is_refused() -> None:
    problem = only_problem(pool(instance_type="g6e.2xlarge", mig={"config": "all-balanced", "strategy": "mixed"}))
    assert (problem.path, problem.message) == ("mig", "L40S does not support MIG")


def test_a_named_config_with_a_layout_is_refused() -> None:
    given = {"config": "all-balanced", "layout": {"1g.10gb": 2}, "strategy": "mixed"}
    problem = only_problem(pool(instance_type="p5.48xlarge", mig=given))
    assert (problem.path, problem.value) == ("mig", given)


def test_mig_layout_counts_are_capped_per_profile() -> None:
    problem = only_problem(pool(instance_type="p4de.24xlarge", mig={"layout": {"3g.40gb": 3}, "strategy": "mixed"}))
    assert (problem.path, problem.valid) == ("mig.layout['3g.40gb']", "1..2")


def test_mig_layout_must_fit_the_gpu() -> None:
    problem = only_problem(
        pool(
            instance_type="p4de.24xlarge",
            mig={"layout": {"4g.40gb": 1, "3g.40gb": 1, "1g.10gb": 1}, "strategy": "mixed"},
        )
    )
    assert "needs 8 compute and 9 memory slices of 7 and 8" in problem.message


def test_single_strategy_needs_one_profile() -> None:
    problem = only_problem(pool(instance_type="p4de.24xlarge", mig={"layout": {"3g.40gb": 1, "4g.40gb": 1}}))
    assert (problem.path, problem.value, problem.valid) == ("mig.strategy", Default("single"), "mixed")
    # strategy was not set: the reason shows the default, not a value the user wrote
    assert str(problem) == (
        "mig.strategy: the single MIG strategy needs one profile on every GPU; a layout of several profiles needs "
        "the mixed strategy (default: single); valid: mixed "
        "[source: https://docs.nvidia.com/datacenter/cloud-native/kubernetes/latest/index.html#mig-strategies]"
    )


def test_a_written_single_strategy_with_a_layout_is_echoed() -> None:
    problem = only_problem(
        pool(instance_type="p4de.24xlarge", mig={"layout": {"3g.40gb": 1, "4g.40gb": 1}, "strategy": "single"})
    )
    assert (problem.path, problem.value) == ("mig.strategy", "single")
    assert "needs the mixed strategy (got 'single'); valid: mixed" in str(problem)


def test_a_min_size_above_max_size_without_desired_size_is_reported_at_min_size() -> None:
    # desired_size defaults to min_size: the problem is the min_size the user wrote, not a desired_size they did not
    assert str(only_problem(pool(min_size=4, max_size=3))) == (
        "min_size: node counts must satisfy min_size <= max_size (max_size=3; desired_size, not set, defaults to "
        "min_size) (got 4); valid: 0..3"
    )


def test_mig_records_whether_the_strategy_was_set() -> None:
    unset = GpuNodePoolSpec.from_args(pool(instance_type="p4de.24xlarge", mig={"profile": "1g.10gb"}), "aws").mig
    given = GpuNodePoolSpec.from_args(
        pool(instance_type="p4de.24xlarge", mig={"profile": "1g.10gb", "strategy": "single"}), "aws"
    ).mig
    assert unset is not None and given is not None
    assert (unset.strategy, unset.strategy_set, given.strategy, given.strategy_set) == ("single", False, "single", True)
    assert unset == given  # the same layout: where the strategy came from is not part of it


def test_parse_pools_requires_unique_names_and_prefixes_paths() -> None:
    with pytest.raises(GpuSpecError) as caught:
        parse_pools([pool(), pool(max_size=0)], "aws")
    assert [(p.path, p.message) for p in caught.value.problems] == [
        ("pools[1].max_size", "a pool needs room for at least one node"),
        ("pools[1].name", "pool names must be unique; pools[0] has it too"),
    ]


def test_error_message_lists_every_problem_with_source() -> None:
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(pool(time_slicing={"replicas": 1}), "aws", "pools[0]")
    assert str(caught.value) == (
        "1 invalid GPU setting:\n"
        "  - pools[0].time_slicing.replicas: the device plugin requires at least 2 replicas (got 1); valid: >= 2 "
        "[source: https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#shared-access-to-gpus]"
    )


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({"max_size": 1}, (0, 0, 1)),  # min_size defaults to 0, desired_size to min_size
        ({"min_size": 0, "desired_size": 1, "max_size": 1}, (0, 1, 1)),
        ({"min_size": 1, "desired_size": 1, "max_size": 1}, (1, 1, 1)),
        ({"min_size": 3, "max_size": 5}, (3, 3, 5)),
        ({"min_size": 2, "desired_size": 3, "max_size": 4}, (2, 3, 4)),
        ({"min_size": 0, "desired_size": 450, "max_size": 450}, (0, 450, 450)),  # EKS: nodes per node group
    ],
)
def test_node_counts_on_the_boundaries_are_accepted(sizes: dict[str, int], expected: tuple[int, int, int]) -> None:
    spec = GpuNodePoolSpec.from_args(pool(**sizes), "aws")
    assert (spec.min_size, spec.desired_size, spec.max_size) == expected


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({"min_size": 1, "desired_size": 0, "max_size": 1}, [("desired_size", 0, "1..1")]),
        ({"min_size": 0, "desired_size": 2, "max_size": 1}, [("desired_size", 2, "0..1")]),
        ({"min_size": 2, "desired_size": 2, "max_size": 1}, [("desired_size", 2, None)]),
        ({"min_size": 4, "max_size": 3}, [("min_size", 4, "0..3")]),  # desired_size not set: at min_size
        ({"min_size": 4, "max_size": 0}, [("max_size", 0, ">= 1"), ("min_size", 4, "0..0")]),
        ({"max_size": -1}, [("max_size", -1, ">= 1")]),  # min_size and desired_size both defaults: not repeated
        ({"min_size": -1, "desired_size": 0, "max_size": 1}, [("min_size", -1, ">= 0")]),
        ({"min_size": 0, "desired_size": 0, "max_size": 0}, [("max_size", 0, ">= 1")]),
        (
            {"min_size": -1, "desired_size": -2, "max_size": 0},
            [("min_size", -1, ">= 0"), ("max_size", 0, ">= 1"), ("desired_size", -2, "-1..0")],
        ),
    ],
)
def test_node_counts_off_the_boundaries_are_rejected(
    sizes: dict[str, int], expected: list[tuple[str, int, str | None]]
) -> None:
    assert [(p.path, p.value, p.valid) for p in problems_of(pool(**sizes))] == expected


def test_unknown_cloud_is_a_problem_not_a_crash() -> None:
    problem = only_problem(pool(), cloud="AWS")
    assert (problem.path, problem.message, problem.valid) == ("cloud", "unknown cloud", "aws, azure, gcp")


def test_pool_names_must_be_dns_labels_since_they_name_kubernetes_objects() -> None:
    problems = problems_of(pool(name="GPU_Pool"))
    assert [(p.path, p.valid) for p in problems] == [
        ("name", "1-50 lowercase letters, digits or '-', starting and ending alphanumeric")
    ]
    assert "DNS-1123" in problems[0].message


def test_a_shape_problem_in_a_mapping_names_its_key_as_the_rules_do() -> None:
    """A label key or MIG profile may hold dots: a key of a mapping is written ``['key']`` in every path."""
    pool = {
        "name": "a",
        "instance_type": "p4d.24xlarge",
        "max_size": 1,
        "mig": {"layout": {"3g.20gb": 1.5}, "strategy": "mixed"},
        "labels": {"team.example.com/owner": 1},
    }
    with pytest.raises(GpuSpecError) as raised:
        GpuNodePoolSpec.from_args(pool, "aws", "pool")
    assert [p.path for p in raised.value.problems] == [
        "pool.labels['team.example.com/owner']",
        "pool.mig.layout['3g.20gb']",
    ]


@pytest.mark.parametrize(
    ("profile", "meant"),
    [("1G.24GB", "1g.24gb"), ("1g.24gb+ME", "1g.24gb+me"), ("1g.24gb.me.all", "1g.24gb+me.all")],
)
def test_a_mig_profile_written_another_way_gets_did_you_mean(profile: str, meant: str) -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"profile": profile}))
    assert (problem.path, problem.value, problem.message) == (
        "mig.profile",
        profile,
        f"not a MIG profile name; did you mean {meant!r}?",
    )


def test_a_mig_profile_of_another_size_gets_no_did_you_mean() -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"profile": "1G.23GB"}))
    assert problem.message == "not a MIG profile name"
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"profile": "1g.23gb"}))
    assert problem.message == "not a MIG profile of RTX-PRO-6000"


def test_an_empty_mig_layout_names_what_it_needs() -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"layout": {}, "strategy": "mixed"}))
    assert str(problem) == (
        "mig.layout: a MIG layout needs at least one profile (got {}); valid: at least one entry <profile>: "
        "<instances per GPU>, e.g. {'1g.10gb': 2}"
    )


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        (
            {"1g.24gb": 0},
            "mig.layout['1g.24gb']: a layout entry needs at least 1 instance of 1g.24gb; leave out a profile it has "
            "none of (got 0); valid: 1..4",
        ),
        (
            {"1g.24gb+me": 2},
            "mig.layout['1g.24gb+me']: RTX-PRO-6000 holds at most 1 instance of 1g.24gb+me (got 2); valid: 1..1",
        ),
        (
            {"1g.24gb": 5},
            "mig.layout['1g.24gb']: RTX-PRO-6000 holds at most 4 instances of 1g.24gb (got 5); valid: 1..4",
        ),
    ],
)
def test_a_layout_count_out_of_range_says_which_bound(layout: dict[str, int], expected: str) -> None:
    problem = only_problem(pool(instance_type="g7e.2xlarge", mig={"layout": layout, "strategy": "mixed"}))
    source = catalog.gpu_model("RTX-PRO-6000").mig_source
    assert source == "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
    assert str(problem) == f"{expected} [source: {source}]"


@pytest.mark.parametrize(
    ("instance_type", "mig"),
    [
        ("p6e-gb300.36xlarge", {"profile": "1g.34gb"}),
        ("p6-b300.48xlarge", {"layout": {"1g.34gb": 8}, "strategy": "mixed"}),
    ],
)
def test_mig_errors_cite_the_mig_blocks_source_not_the_gpus(instance_type: str, mig: dict[str, Any]) -> None:
    problem = only_problem(pool(instance_type=instance_type, mig=mig), "aws")
    gpu = catalog.gpu_model(str(catalog.instance_type("aws", instance_type).gpu_model))
    assert gpu.source == "https://developer.nvidia.com/cuda-gpus"
    assert (
        problem.source
        == gpu.mig_source
        == ("https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/assets/state-mig-manager/0400_configmap.yaml")
    )
