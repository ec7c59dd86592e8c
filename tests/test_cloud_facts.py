"""Each cloud's facts record (gpu_components.<cloud>.facts): the fields the contract requires, read without the cloud
SDKs, the same record the cloud's adapter carries; and the core that reads them names no cloud."""

from __future__ import annotations

import json
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import get_args

import pytest

from gpu_components import catalog
from gpu_components.cloud_facts import CLOUDS, CloudFacts, all_cloud_facts, facts_for
from gpu_components.cluster import ADAPTERS
from gpu_components.plan.mocks import CLOUD_MOCKS
from gpu_components.plan.replacements import FORCE_NEW
from gpu_components.shape import field_names
from gpu_components.spec import TaintEffect

PACKAGE = Path(__file__).resolve().parents[1] / "gpu_components"
CLOUD_NEUTRAL = [
    *sorted((PACKAGE / "nvidia").glob("*.py")),
    *sorted((PACKAGE / "kubernetes").glob("*.py")),
    *sorted((PACKAGE / "plan").glob("*.py")),
    *sorted((PACKAGE / "policy").glob("*.py")),
    *sorted((PACKAGE / "spec").glob("*.py")),
    PACKAGE / "labels.py",
    PACKAGE / "gpu_requests.py",
    PACKAGE / "workloads.py",
    PACKAGE / "samples.py",
]
"""The modules that receive cloud knowledge as data and name no cloud (every module of ``plan/``, its mocks
included: each cloud's mocks are in ``gpu_components/<cloud>/plan_mocks.py``)."""


@pytest.fixture(params=CLOUDS)
def facts(request: pytest.FixtureRequest) -> CloudFacts:
    return facts_for(request.param)


def test_every_cloud_has_a_facts_record_of_its_own_name() -> None:
    assert [facts.cloud for facts in all_cloud_facts()] == list(CLOUDS) == ["aws", "azure", "gcp"]


def test_unknown_cloud_has_no_facts() -> None:
    with pytest.raises(KeyError, match="no facts for cloud 'oci'; known: aws, azure, gcp"):
        facts_for("oci")


def test_the_adapter_carries_the_same_record(facts: CloudFacts) -> None:
    assert ADAPTERS[facts.cloud].facts is facts


def test_pool_name_rule_is_stated_with_its_source(facts: CloudFacts) -> None:
    rule = facts.pool_name
    assert rule.max_length > 0 and rule.valid and rule.source.startswith("https://")
    assert rule.pattern.match("gpu1") is not None


def test_every_kubernetes_taint_effect_has_the_clouds_spelling(facts: CloudFacts) -> None:
    assert set(facts.taint_effects) == set(get_args(TaintEffect))
    assert all(facts.taint_effects.values())


def test_driver_setting_is_a_pool_option_with_a_default_per_architecture(facts: CloudFacts) -> None:
    driver = facts.driver
    assert driver.setting in field_names(ADAPTERS[facts.cloud].pool_options)
    assert set(driver.defaults) == {"x86_64", "arm64"}
    assert driver.owner and driver.source.startswith("https://")
    # Where the cloud's installation must be off under the operator, the operator's default is the only owner.
    if driver.operator_exclusive:
        assert set(driver.defaults.values()) == {driver.off}


def test_gpu_operator_needs_cite_nvidias_guide(facts: CloudFacts) -> None:
    needs = facts.gpu_operator
    assert needs.source.startswith("https://")
    if needs.resource_quota is not None:
        assert set(needs.resource_quota()) == {"hard", "scopeSelector"}


def test_node_pool_resources_name_their_inputs_and_force_new_source(facts: CloudFacts) -> None:
    assert facts.node_pools
    for resource in facts.node_pools:
        package, module, name = resource.type_token.split(":")
        assert package.startswith(facts.cloud) and module and name
        assert resource.instance_types and resource.taints
        assert bool(resource.missing_gpu_taint) != (facts.gpu_taint_source is not None)
        if resource.force_new is not None:
            assert resource.force_new.fields and resource.force_new.source.startswith("https://")
            assert FORCE_NEW[resource.type_token] is resource.force_new
    assert any(resource.force_new is not None for resource in facts.node_pools)


@pytest.mark.parametrize(
    ("resource_type", "matches"),
    [
        ("azure-native:containerservice:AgentPool", True),
        ("azure-native:containerservice/v20240901:AgentPool", True),
        ("azure-native:containerservice/v20240901:ManagedCluster", False),
        ("azure-native:containerservicex:AgentPool", False),
    ],
)
def test_api_version_modules_hold_the_same_resource(resource_type: str, matches: bool) -> None:
    (agent_pool, _cluster) = facts_for("azure").node_pools
    assert agent_pool.matches(resource_type) is matches


def test_a_versioned_token_is_not_read_where_the_provider_has_none() -> None:
    (node_group,) = facts_for("aws").node_pools
    assert not node_group.matches("aws:eks/nodeGroup/v20240901:NodeGroup")


def test_the_facts_import_no_cloud_sdk() -> None:
    probe = (
        "import json, sys\n"
        "from gpu_components.cloud_facts import all_cloud_facts\n"
        "import gpu_components.plan.replacements, gpu_components.policy.rules\n"
        "all_cloud_facts()\n"
        "sdks = ('pulumi_aws', 'pulumi_eks', 'pulumi_azure_native', 'pulumi_gcp')\n"
        "print(json.dumps(sorted(m for m in sdks if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("path", CLOUD_NEUTRAL, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_the_cloud_neutral_core_names_no_cloud(path: Path) -> None:
    """The check of issue 12 (``grep -rn '"aws"\\|"azure"\\|"gcp"'`` over these files): no string literal in them is
    a cloud's name, so none can branch on one."""
    literals = [f"line {token.start[0]}: {token.string}" for token in _tokens(path) if _cloud_literal(token)]
    assert literals == []
    assert not any(f'"{cloud}"' in path.read_text("utf-8") for cloud in CLOUDS)


def test_a_clouds_own_device_plugin_states_its_limits_with_sources(facts: CloudFacts) -> None:
    plugin = facts.managed_device_plugin
    if plugin is None:
        return
    assert plugin.max_shared_gpus >= 1 and plugin.max_shared_gpus_source.startswith("https://")
    assert plugin.mps_host_ipc_source is None or plugin.mps_host_ipc_source.startswith("https://")


def test_a_cloud_that_names_gpus_by_accelerator_type_gives_each_nvidia_machine_type_one(facts: CloudFacts) -> None:
    nvidia = [t for t in catalog.instance_types(facts.cloud) if t.gpu_vendor == "nvidia"]
    if facts.accelerator_type_source is None:
        assert all(t.accelerator_type is None for t in nvidia)
    else:
        assert facts.accelerator_type_source.startswith("https://")
        assert nvidia and all(t.accelerator_type for t in nvidia)


def test_a_node_template_is_named_by_an_input_path_and_says_how_it_rolls_and_shares(facts: CloudFacts) -> None:
    for resource in facts.node_pools:
        template = resource.template
        if template is not None:
            assert template.type_token.startswith(facts.cloud) and template.reference
            assert template.rolls and template.rolls_source.startswith("https://")
            if template.sharing is not None:
                sharing = template.sharing
                assert sharing.settings and sharing.tags and sharing.label and sharing.shared_strategies
                assert sharing.read(None) == (None, {})


def test_the_plan_mocks_import_no_cloud_sdk() -> None:
    probe = (
        "import json, sys\n"
        "from gpu_components.plan.mocks import CLOUD_MOCKS\n"
        "sdks = ('pulumi_aws', 'pulumi_eks', 'pulumi_azure_native', 'pulumi_gcp')\n"
        "print(json.dumps(sorted(m for m in sdks if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_each_clouds_plan_mocks_are_its_providers_and_no_token_is_mocked_twice() -> None:
    assert list(CLOUD_MOCKS) == list(CLOUDS)
    tables = list(CLOUD_MOCKS.items())
    for cloud, table in tables:
        assert table.resources and table.invokes and table.fallbacks
        packages = set(table.fallbacks) | {token.split(":", 1)[0] for token in table.components}
        tokens = [*table.resources, *table.components, *table.invokes]
        assert all(token.split(":", 1)[0] in packages for token in tokens), cloud
    for kind in ("resources", "components", "invokes", "fallbacks"):
        keys = [key for _, table in tables for key in getattr(table, kind)]
        assert len(keys) == len(set(keys)), kind


def test_the_catalog_compares_nothing_with_a_clouds_name() -> None:
    """The catalog defines the cloud names (``Cloud``) and has GCP's own lookup (``gcp_accelerator_type``), but no
    rule of its loader branches on a cloud: what differs per cloud is in the cloud's facts."""
    tokens = [t for t in _tokens(PACKAGE / "catalog" / "__init__.py") if t.type not in _LAYOUT]
    branches = [
        f"line {token.start[0]}"
        for index, token in enumerate(tokens)
        if _cloud_literal(token) and any(t.string in _COMPARISONS for t in tokens[max(index - 1, 0) : index + 2])
    ]
    assert branches == []


_LAYOUT = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})
_COMPARISONS = frozenset({"==", "!=", "in", "is"})


def _tokens(path: Path) -> list[tokenize.TokenInfo]:
    """The file's tokens. (Read with ``tokenize``, not ``ast.parse``: CPython 3.11.7's ``ast.parse`` can fail at
    random under pytest-xdist with "AST constructor recursion depth mismatch", CPython bug gh-106905.)"""
    with path.open("rb") as source:
        return list(tokenize.tokenize(source.readline))


def _cloud_literal(token: tokenize.TokenInfo) -> bool:
    """A plain string literal whose value is a cloud's name (``"aws"``, ``'gcp'``)."""
    return token.type == tokenize.STRING and token.string[1:-1] in CLOUDS and token.string[0] == token.string[-1]


def test_a_node_pool_record_reads_its_node_labels_where_the_cloud_keeps_them() -> None:
    (node_group,) = facts_for("aws").node_pools
    node_pool = facts_for("gcp").node_pools[0]
    cluster = facts_for("azure").node_pools[1]

    assert node_group.node_labels({"labels": {"a": "1"}}) == {"a": "1"}
    assert node_pool.node_labels({"nodeConfig": {"labels": {"b": "2"}}}) == {"b": "2"}
    assert node_pool.node_labels({"nodeConfig": "[unknown]"}) == {}
    assert cluster.labels == "" and cluster.node_labels({"labels": {"c": "3"}}) == {}
