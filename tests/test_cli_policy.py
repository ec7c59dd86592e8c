"""`gpu-components plan STACK --policy [PACK_DIR]`: a policy pack run on the offline plan as `pulumi preview
--policy-pack` runs it (the pack's own process, the engine's analyzer calls over gRPC), its `Policies:` section, its
exit status, and each way a pack or its config can be wrong.

The projects and packs are written into temporary directories: a team's project with an untainted GPU node group
(mandatory violation) and a ConfigMap with one trusted and one untrusted shared entry (advisory), and a tiny pack of
our own that reports what the engine handed it (provider, parent, options, stack-level parents and dependencies).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from google.protobuf import json_format

from gpu_components.cli import EXIT_POLICY_VIOLATION, main
from gpu_components.plan import policy as offline_policy
from gpu_components.plan.policy import (
    PolicyConfig,
    PolicyPack,
    PolicyReport,
    Violation,
    display_type,
    run_policy_pack,
    to_text,
)
from gpu_components.plan.project import run_project
from gpu_components.plan.render import to_json
from gpu_components.plan.runner import Plan, PlannedResource
from gpu_components.policy import policies
from tests.helpers import ROOT, example_plan
from tests.policy.test_rules import EXAMPLE_VIOLATIONS, RULES, STACK_RULES, STARTUP_ONLY, rule_verdicts

pytestmark = pytest.mark.stack
README = ROOT / "README.md"
NO_SHARED_POOL = {"aws-eks-auto", "aws-eks-dra", "gcp-gke-dra", "gcp-gke-autopilot"}
"""Example stacks without a shared pool the pack can see: aws-eks-auto's one pool is EKS Auto Mode's, which takes no
GPU sharing; the DRA stacks share GPUs in claims, not pools (pool-level time-slicing and MPS are refused under DRA);
gcp-gke-autopilot's time-shared pool is GKE Autopilot's, with no node pool resource (and so no trust label) for the
pack's rules to read."""

PROGRAM = """\
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s


class Team(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("team:index:Team", name, None, opts)
        self.register_outputs({})


team = Team("ml")
group = aws.eks.NodeGroup(
    "untainted",
    cluster_name="prod",
    node_role_arn="arn:aws:iam::123456789012:role/nodes",
    subnet_ids=["subnet-a"],
    instance_types=["g5.xlarge"],
    scaling_config={"min_size": 0, "max_size": 2, "desired_size": 0},
    opts=pulumi.ResourceOptions(parent=team),
)
shared = "version: v1\\nsharing:\\n  timeSlicing:\\n    resources:\\n    - name: nvidia.com/gpu\\n      replicas: 4\\n"
provider = k8s.Provider("k8s", context="prod", kubeconfig=pulumi.Output.secret("apiVersion: v1"))
k8s.core.v1.ConfigMap(
    "sharing",
    metadata={"name": "device-plugin-configs", "annotations": {"gpu-components/sharing-trusted-entries": "trusted"}},
    data={"trusted": shared, "shared": shared},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[group], protect=True),
)
pulumi.export("pool", "untainted")
"""

NODE_GROUP = "urn:pulumi:dev::gpu-team::team:index:Team$aws:eks/nodeGroup:NodeGroup::untainted"
CONFIG_MAP = "urn:pulumi:dev::gpu-team::kubernetes:core/v1:ConfigMap::sharing"
PROVIDER = "urn:pulumi:dev::gpu-team::pulumi:providers:kubernetes::k8s"
TEAM = "urn:pulumi:dev::gpu-team::team:index:Team::ml"
STACK = "urn:pulumi:dev::gpu-team::pulumi:pulumi:Stack::gpu-team-dev"

TAINT_MESSAGE = (
    "taints: GPU node group (g5.xlarge (1 x NVIDIA A10G 24GB)) has no NO_SCHEDULE GPU taint, so any pod can land on "
    "its GPU nodes; add {key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE} (taint keys accepted: "
    "nvidia.com/gpu, sku) [source: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/]"
)
SHARING_MESSAGE = (
    "data['shared']: device plugin config 'shared' (timeSlicing) shares GPUs without memory isolation, so its "
    "workloads can read and disturb each other's GPU memory; keep it to workloads that trust each other and list it "
    "in the ConfigMap's annotation gpu-components/sharing-trusted-entries (gpu_components' pools: "
    "time_slicing.trusted or mps.trusted), or use MIG or whole GPUs "
    "[source: https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0#shared-access-to-gpus]"
)
DESCRIPTIONS = {policy.name: policy.description for policy in policies()}

POLICIES_TEAM = f"""\
Policies:
    ❌ gpu-components@v0.0.1 (built-in: gpu_components.policy)
        - [mandatory]  gpu-node-pool-taint  (aws:eks:NodeGroup: {NODE_GROUP})
          {DESCRIPTIONS["gpu-node-pool-taint"]}
          {TAINT_MESSAGE}
        - [advisory]  gpu-shared-pool-trust  (kubernetes:core/v1:ConfigMap: {CONFIG_MAP})
          {DESCRIPTIONS["gpu-shared-pool-trust"]}
          {SHARING_MESSAGE}

"""

PACK_YAML = "runtime: python\nversion: 1.2.3\ndescription: what the engine hands a pack\n"
PACK_MAIN = """\
import os
import sys
from pathlib import Path

from pulumi_policy import (
    EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy, PolicyConfigSchema,
)

Path(os.environ["PACK_PID_FILE"]).write_text(str(os.getpid()))


def config_maps(args, report):
    if args.resource_type == "kubernetes:core/v1:ConfigMap":
        report(
            f"provider={args.provider.urn} providerContext={args.provider.props['context']} "
            f"kubeconfig={args.provider.props['kubeconfig']} "
            f"parent={args.opts.parent} protect={args.opts.protect} label={args.get_config()['label']}"
        )


def shape(args, report):
    for resource in args.resources:
        if resource.dependencies or resource.parent and resource.parent.resource_type != "pulumi:pulumi:Stack":
            report(
                f"{resource.name} <- {resource.parent.name}; "
                f"depends on {[d.name for d in resource.dependencies]}",
                resource.urn,
            )


PolicyPack(
    name="engine-view",
    policies=[
        ResourceValidationPolicy(
            name="no-config-maps",
            description="No ConfigMaps.",
            validate=config_maps,
            enforcement_level=EnforcementLevel.MANDATORY,
            config_schema=PolicyConfigSchema({"label": {"type": "string", "default": "none"}}),
        ),
        StackValidationPolicy(name="stack-shape", description="The stack's shape.", validate=shape),
    ],
)
"""


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A team's project: an untainted GPU node group under a component, a ConfigMap with a trusted and an untrusted
    shared entry on an explicit Kubernetes provider."""
    root = tmp_path_factory.mktemp("gpu-team")
    (root / "Pulumi.yaml").write_text("name: gpu-team\nruntime: python\n")
    (root / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-west-2\n")
    (root / "__main__.py").write_text(PROGRAM)
    return root


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tiny pack of our own that reports what it was handed and writes its process id to ``pid``."""
    directory = tmp_path / "engine-view"
    directory.mkdir()
    (directory / "PulumiPolicy.yaml").write_text(PACK_YAML)
    (directory / "__main__.py").write_text(PACK_MAIN)
    monkeypatch.setenv("PACK_PID_FILE", str(tmp_path / "pid"))
    return directory


def run(*args: str) -> Result:
    return CliRunner().invoke(main, [*args])


def gone(pid_file: Path) -> bool:
    """Whether the process whose id the pack wrote has ended (and was reaped)."""
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# ---------------------------------------------------------------------------------------------------------------
# The example stacks pass every rule; the offline run agrees with the rule functions
# ---------------------------------------------------------------------------------------------------------------


def test_every_example_stack_passes_the_pack_with_exit_0() -> None:
    result = run("plan", "--all", "--format", "capacity", "--policy")
    assert result.exit_code == 0, result.output
    sections = "".join(
        f"Policies ({stack}):\n    ✅ gpu-components@v0.0.1 (built-in: gpu_components.policy)\n\n"
        for stack in sorted(EXAMPLE_VIOLATIONS)
    )
    assert result.stdout.endswith("\n\n" + sections)
    assert all(not expected for expected in EXAMPLE_VIOLATIONS.values())  # what tests/policy expects of them


@pytest.mark.parametrize("stack", sorted(EXAMPLE_VIOLATIONS))
def test_the_offline_run_gives_the_rule_functions_verdicts_on_each_example_stack(stack: str) -> None:
    plan = example_plan(stack)
    report = run_policy_pack(plan)
    found = [(v.policy, v.urn) for v in report.violations]
    assert found == EXAMPLE_VIOLATIONS[stack] == [(name, urn) for name, urn, _ in rule_verdicts(_document(plan))]
    # The same program with its trust marks taken away: the pack and the rules flag the same shared pools.
    stripped = _document(plan)
    for item in stripped["resources"]:
        item["inputs"].get("metadata", {}).pop("annotations", None)
        for labels in (item["inputs"].get("labels"), item["inputs"].get("nodeConfig", {}).get("labels")):
            if isinstance(labels, dict):
                labels.pop("gpu-components/sharing", None)
    expected = rule_verdicts(stripped)
    if stack in NO_SHARED_POOL:
        assert expected == []
        return
    assert expected, stack  # every other example stack has a shared pool
    untrusted = run_policy_pack(_plan_of(plan, stripped))
    assert [(v.policy, v.urn, v.message) for v in untrusted.violations] == [
        (name, urn, f"{DESCRIPTIONS[name]}\n{message}") for name, urn, message in expected
    ]
    assert {v.level for v in untrusted.violations} == {"advisory"}


def test_the_policy_pack_directory_at_the_root_gives_the_same_verdicts_as_the_built_in_pack() -> None:
    result = run("plan", "aws-eks", f"--policy={ROOT / 'policy'}")
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"\n\nPolicies:\n    ✅ gpu-components@v0.0.1 (local: {ROOT / 'policy'})\n\n")


# ---------------------------------------------------------------------------------------------------------------
# A team's own project: a mandatory violation and an advisory one
# ---------------------------------------------------------------------------------------------------------------


def test_a_mandatory_violation_is_printed_after_the_plan_and_exits_5(team: Path) -> None:
    result = run("plan", "dev", "-C", str(team), "--policy")
    assert (result.exit_code, result.stderr) == (EXIT_POLICY_VIOLATION, "")
    plan_text, _, policies_text = result.stdout.partition("\n\nPolicies:\n")
    assert plan_text.startswith("pulumi:pulumi:Stack gpu-team-dev\n")
    assert "Policies:\n" + policies_text == POLICIES_TEAM


def test_the_offline_run_gives_the_rule_functions_verdicts_on_a_team_project(team: Path) -> None:
    plan = run_project(team, "dev")
    report = run_policy_pack(plan)
    assert report.mandatory
    assert [(v.policy, v.level, v.urn, v.message) for v in report.violations] == [
        ("gpu-node-pool-taint", "mandatory", NODE_GROUP, f"{DESCRIPTIONS['gpu-node-pool-taint']}\n{TAINT_MESSAGE}"),
        (
            "gpu-shared-pool-trust",
            "advisory",
            CONFIG_MAP,
            f"{DESCRIPTIONS['gpu-shared-pool-trust']}\n{SHARING_MESSAGE}",
        ),
    ]
    direct = rule_verdicts(_document(plan))
    assert [(name, urn, message) for name, urn, message in direct] == [
        (v.policy, v.urn, v.message.split("\n", 1)[1]) for v in report.violations
    ]
    assert sorted({**RULES, **STACK_RULES}) == sorted(DESCRIPTIONS)


KARPENTER_PROGRAM = """\
import pulumi_kubernetes as k8s

taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
sku = {"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC24ads_A100_v4"]}
for name, template in (("startup", {"startupTaints": [taint]}), ("tainted", {"taints": [taint]})):
    k8s.apiextensions.CustomResource(
        name,
        api_version="karpenter.sh/v1",
        kind="NodePool",
        metadata={"name": name},
        spec={"template": {"spec": {"requirements": [sku], **template}}},
    )
"""


def test_the_offline_run_flags_a_gpu_node_pool_whose_gpu_taint_is_only_a_startup_taint(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: nap-team\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(KARPENTER_PROGRAM)
    report = run_policy_pack(run_project(tmp_path, "dev"))
    assert [(v.policy, v.level, v.urn, v.message) for v in report.violations] == [
        (
            "gpu-node-pool-taint",
            "mandatory",
            "urn:pulumi:dev::nap-team::kubernetes:karpenter.sh/v1:NodePool::startup",
            f"{DESCRIPTIONS['gpu-node-pool-taint']}\n{STARTUP_ONLY}",
        )
    ]


AKS_PROGRAM = """\
import pulumi_azure_native as azure

azure.containerservice.AgentPool(
    "gpu",
    resource_group_name="rg",
    resource_name_="aks",
    vm_size="Standard_NC4as_T4_v3",
    os_disk_size_gb=20,
    count=1,
    node_taints=["nvidia.com/gpu=present:NoSchedule"],
)
"""


def test_a_hand_written_agent_pool_under_aks_minimum_os_disk_is_refused_by_the_pack(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: aks-team\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(AKS_PROGRAM)
    result = run("plan", "dev", "-C", str(tmp_path), "--policy")
    assert result.exit_code == EXIT_POLICY_VIOLATION, result.output
    assert result.stdout.endswith(
        "        - [mandatory]  gpu-pool-cloud-bounds  (azure-native:containerservice:AgentPool: "
        "urn:pulumi:dev::aks-team::azure-native:containerservice:AgentPool::gpu)\n"
        f"          {DESCRIPTIONS['gpu-pool-cloud-bounds']}\n"
        "          osDiskSizeGB: 20 is not what AKS accepts (30 to 2048 (GB)), so AKS refuses this GPU pool "
        "(Standard_NC4as_T4_v3 (1 x NVIDIA T4 16GB)) when it is deployed [source: AKS error 'The OSDiskSize for "
        "Agent pool1 cannot be less than 30GB or larger than 2048GB.' (pulumi/pulumi-azure-native#663; "
        "Azure/karpenter-provider-azure#1146 matches the AKSNodeClass to it)]\n\n"
    )


def test_policy_config_makes_every_policy_advisory_and_the_exit_0(team: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"all": "advisory"}))
    result = run("plan", "dev", "-C", str(team), "--policy-config", str(config), "--policy")
    assert result.exit_code == 0, result.output
    expected = POLICIES_TEAM.replace("❌", "⚠️").replace("[mandatory]", "[advisory]")
    assert result.stdout.endswith("\n\n" + expected)
    disabled = tmp_path / "disabled.json"
    disabled.write_text(json.dumps({"gpu-node-pool-taint": {"enforcementLevel": "disabled"}}))
    result = run("plan", "dev", "-C", str(team), "--policy-config", str(disabled), "--policy")
    assert result.exit_code == 0, result.output
    assert "gpu-node-pool-taint" not in result.stdout.partition("\n\nPolicies:\n")[2]


def test_json_stays_a_document_and_the_verdicts_go_to_stderr(team: Path) -> None:
    result = run("plan", "dev", "-C", str(team), "--format", "json", "--policy")
    assert result.exit_code == EXIT_POLICY_VIOLATION
    assert json.loads(result.stdout)["stack"] == "dev"
    assert result.stderr == POLICIES_TEAM


def test_with_diff_the_verdicts_follow_the_diff_and_outrank_exit_code(team: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "dev.json"
    result = run("plan", "dev", "-C", str(team), "--format", "json")
    baseline.write_text(result.stdout)
    result = run("plan", "dev", "-C", str(team), "--diff", str(baseline), "--exit-code", "--policy")
    assert result.exit_code == EXIT_POLICY_VIOLATION
    assert result.stdout == "Plan diff of dev:\nno changes\n\n" + POLICIES_TEAM


# ---------------------------------------------------------------------------------------------------------------
# A pack of our own: what the engine hands it, its version, its process ended
# ---------------------------------------------------------------------------------------------------------------


def test_a_custom_pack_sees_providers_parents_options_and_dependencies(team: Path, pack: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"no-config-maps": {"label": "team"}}))
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}", "--policy-config", str(config))
    assert result.exit_code == EXIT_POLICY_VIOLATION, result.output
    assert result.stdout.partition("\n\nPolicies:\n")[2] == (
        f"    ❌ engine-view@v1.2.3 (local: {pack})\n"
        f"        - [mandatory]  no-config-maps  (kubernetes:core/v1:ConfigMap: {CONFIG_MAP})\n"
        "          No ConfigMaps.\n"
        f"          provider={PROVIDER} providerContext=prod kubeconfig=[secret] parent={STACK} protect=True "
        "label=team\n"
        f"        - [advisory]  stack-shape  (kubernetes:core/v1:ConfigMap: {CONFIG_MAP})\n"
        "          The stack's shape.\n"
        "          sharing <- gpu-team-dev; depends on ['untainted']\n"
        f"        - [advisory]  stack-shape  (aws:eks:NodeGroup: {NODE_GROUP})\n"
        "          The stack's shape.\n"
        "          untainted <- ml; depends on []\n"
        "\n"
    )
    assert gone(tmp_path / "pid")


def test_the_pack_process_is_killed_when_it_prints_no_port_in_time(
    team: Path, pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pack / "__main__.py").write_text(
        "import os, time\nfrom pathlib import Path\n"
        "Path(os.environ['PACK_PID_FILE']).write_text(str(os.getpid()))\ntime.sleep(600)\n"
    )
    monkeypatch.setattr(offline_policy, "PORT_TIMEOUT_S", 15.0)  # time to import pulumi on a busy machine
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: dev: policy pack at local: {pack} printed no port within 15 s\n"
    assert gone(tmp_path / "pid")


# ---------------------------------------------------------------------------------------------------------------
# Errors: one line (or the pack's stderr tail), exit 1, no traceback of ours
# ---------------------------------------------------------------------------------------------------------------


def test_a_pack_dir_that_does_not_exist(team: Path, tmp_path: Path) -> None:
    result = run("plan", "dev", "-C", str(team), f"--policy={tmp_path / 'none'}")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: no policy pack at {tmp_path / 'none'}: not a directory\n"


def test_a_tilde_in_the_pack_dir_and_the_config_file_is_expanded_as_a_shell_would(
    team: Path, pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bash leaves `--policy=~/x` as it is (no expansion after `=`): the README's own example writes it so.
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "policy.json").write_text(json.dumps({"stack-shape": "disabled"}))
    result = run("plan", "dev", "-C", str(team), "--policy=~/engine-view", "--policy-config=~/policy.json")
    assert result.exit_code == EXIT_POLICY_VIOLATION, result.output
    assert f"    ❌ engine-view@v1.2.3 (local: {pack})\n" in result.stdout
    missing = run("plan", "dev", "-C", str(team), "--policy=~/none")
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"Error: no policy pack at {tmp_path / 'none'}: not a directory\n",
    )
    missing = run("plan", "dev", "-C", str(team), "--policy", "--policy-config=~/none.json")
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"Error: policy config {tmp_path / 'none.json'}: cannot read it: No such file or directory\n",
    )


def test_a_stack_name_taken_as_the_pack_dir_is_named(team: Path) -> None:
    result = run("plan", "-C", str(team), "--policy", "dev")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "Error: --policy took 'dev' as its PACK_DIR, and no stack name is left; for the library's own pack put "
        "--policy last (plan dev --policy), for a pack directory write --policy=PACK_DIR\n"
    )
    assert "give at least one stack name" not in result.stderr
    assert run("plan", "-C", str(team), "--policy").stderr.endswith("Error: give at least one stack name, or --all\n")


def test_a_pack_dir_without_pulumi_policy_yaml(team: Path, tmp_path: Path) -> None:
    result = run("plan", "dev", "-C", str(team), f"--policy={tmp_path}")
    assert result.stderr == f"Error: no policy pack at {tmp_path} ({tmp_path / 'PulumiPolicy.yaml'} is missing)\n"
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("policy_yaml", "problem"),
    [
        (
            "runtime: nodejs\n",
            "runtime is nodejs, not python: gpu-components plan --policy runs Python policy packs only",
        ),
        ("runtime:\n  name: opa\n", "runtime is opa, not python"),
        ("version: 1.0.0\n", "project is missing a 'runtime' attribute"),
        ("runtime: [python\n", "not valid YAML"),
        (
            "runtime:\n  name: python\n  options:\n    virtualenv: venv\n",
            "virtualenv venv has no Python",
        ),
    ],
)
def test_a_pulumi_policy_yaml_the_engine_would_refuse(team: Path, pack: Path, policy_yaml: str, problem: str) -> None:
    (pack / "PulumiPolicy.yaml").write_text(policy_yaml)
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"Error: {pack / 'PulumiPolicy.yaml'}: ")
    assert problem in result.stderr


def test_a_pack_without_its_program(team: Path, pack: Path) -> None:
    (pack / "__main__.py").unlink()
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}")
    assert result.stderr == (
        f"Error: {pack}/__main__.py is missing: a Python policy pack's program is its __main__.py\n"
    )
    assert result.exit_code == 1


def test_a_pack_that_crashes_shows_its_stderr_tail(team: Path, pack: Path) -> None:
    (pack / "__main__.py").write_text("raise RuntimeError('no rules today')\n")
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}")
    assert (result.exit_code, result.stdout) == (1, "")
    first, *tail = result.stderr.splitlines()
    assert first == (
        f"Error: dev: policy pack at local: {pack} exited with status 1 before printing its port; its stderr ends with:"
    )
    assert tail[-1] == "  RuntimeError: no rules today"
    assert all(line.startswith("  ") for line in tail)


@pytest.mark.parametrize(
    ("program", "problem"),
    [
        ("print('ready')\n", "printed 'ready' instead of its port"),
        ("import sys\nsys.exit(0)\n", "exited with status 0 before printing its port"),
    ],
)
def test_a_pack_that_prints_no_port(team: Path, pack: Path, program: str, problem: str) -> None:
    (pack / "__main__.py").write_text(program)
    result = run("plan", "dev", "-C", str(team), f"--policy={pack}")
    assert (result.exit_code, result.stderr) == (1, f"Error: dev: policy pack at local: {pack} {problem}\n")


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("{not json", "policy config {file}: not JSON: "),
        ('["all"]', "policy config {file}: not a JSON object of policy name -> config"),
        (
            '{"gpu-node-pool-taint": "loud"}',
            "policy config {file}: parsing enforcement level for 'gpu-node-pool-taint': \"loud\" is not a valid "
            "enforcement level; valid: advisory, mandatory, remediate, disabled",
        ),
        ('{"gpu-node-pool-taint": 3}', "policy config {file}: parsing 'gpu-node-pool-taint': 3 is not a valid value"),
        (
            '{"environments": ["prod/policy"]}',
            "policy config {file}: environments (Pulumi ESC) cannot be opened offline; give the values themselves",
        ),
        (
            '{"gpu-node-pol-taint": "advisory"}',
            "dev: policy config names 'gpu-node-pol-taint', which pack 'gpu-components' does not have; its policies: "
            "gpu-dra-alpha-claim-config, gpu-dra-pool-extended-resource, gpu-dra-unsatisfiable-claim, "
            "gpu-node-pool-taint, gpu-pool-autoscaler-resources, gpu-pool-cloud-bounds, gpu-shared-pool-trust, "
            "gpu-toleration-without-gpu, gpu-workload-pool-fit, gpu-workload-pool-selection, "
            "gpu-workload-pool-tolerations, gpu-workload-quantities, "
            "nvidia-chart-version-pinned",
        ),
        (
            '{"gpu-node-pool-taint": {"gpuTaintKeys": "nvidia.com/gpu"}}',
            "dev: validating policy config for 'gpu-components': gpu-node-pool-taint: gpuTaintKeys: 'nvidia.com/gpu' "
            "is not of type 'array'",
        ),
    ],
)
def test_a_bad_policy_config(team: Path, tmp_path: Path, config: str, problem: str) -> None:
    file = tmp_path / "config.json"
    file.write_text(config)
    result = run("plan", "dev", "-C", str(team), "--policy-config", str(file), "--policy")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("Error: " + problem.format(file=file))
    assert len(result.stderr.splitlines()) == 1


def test_a_missing_policy_config_file_and_one_without_policy(team: Path, tmp_path: Path) -> None:
    result = run("plan", "dev", "-C", str(team), "--policy-config", str(tmp_path / "none.json"), "--policy")
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: policy config {tmp_path / 'none.json'}: cannot read it: No such file or directory\n",
    )
    result = run("plan", "dev", "-C", str(team), "--policy-config", str(tmp_path / "none.json"))
    assert result.exit_code == 2
    assert "--policy-config needs --policy" in result.stderr


def test_the_readmes_python_example_runs_a_pack_on_a_project(
    team: Path, pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    section = re.search(r"^### Run the pack offline on a plan.*?\n(.*?)^##", README.read_text(), re.M | re.S)
    assert section is not None
    [snippet] = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    shutil.copytree(team, tmp_path / "infra")
    shutil.copytree(pack, tmp_path / "policies" / "gpu")
    (tmp_path / "policy.json").write_text(json.dumps({"stack-shape": "disabled"}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_status:
        exec(compile(snippet, "README.md", "exec"), {})
    assert exit_status.value.code == EXIT_POLICY_VIOLATION
    assert capsys.readouterr().out == (
        "Policies:\n    ❌ engine-view@v1.2.3 (local: policies/gpu)\n"
        f"        - [mandatory]  no-config-maps  (kubernetes:core/v1:ConfigMap: {CONFIG_MAP})\n"
        "          No ConfigMaps.\n"
        f"          provider={PROVIDER} providerContext=prod kubeconfig=[secret] parent={STACK} protect=True "
        "label=none\n\n"
    )


# ---------------------------------------------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------------------------------------------


def test_types_are_displayed_as_pulumi_displays_them() -> None:
    assert display_type("aws:eks/nodeGroup:NodeGroup") == "aws:eks:NodeGroup"
    assert display_type("kubernetes:core/v1:ConfigMap") == "kubernetes:core/v1:ConfigMap"
    assert display_type("azure-native:containerservice:AgentPool") == "azure-native:containerservice:AgentPool"
    assert display_type("pulumi:pulumi:Stack") == "pulumi:pulumi:Stack"


def test_unknowns_and_secrets_reach_the_pack_as_the_engine_marshals_them() -> None:
    wire = json_format.MessageToDict(offline_policy._struct({"a": "[unknown]", "b": ["[secret]", {"c": 1}]}))
    assert wire == {
        "a": "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        "b": [
            {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "[secret]"},
            {"c": 1.0},
        ],
    }


def test_custom_timeouts_reach_the_pack_in_seconds() -> None:
    assert offline_policy._seconds("1h30m") == 5400.0
    assert offline_policy._seconds("2.5s") == 2.5
    assert offline_policy._seconds("10 minutes") == 0.0
    assert offline_policy._seconds(None) == 0.0


def test_reports_order_and_marks() -> None:
    advisory = Violation("b-policy", "advisory", "urn:pulumi:s::p::t:m:T::x", "B.\nfound")
    mandatory = Violation("z-policy", "mandatory", "", "Z.", "high")
    text = to_text([PolicyReport("s", "pack", "1.0.0", "local: p", (mandatory, advisory))])
    assert text == (
        "Policies:\n    ❌ pack@v1.0.0 (local: p)\n"
        "        - [mandatory] [severity: high]  z-policy\n          Z.\n"
        "        - [advisory]  b-policy  (t:m:T: urn:pulumi:s::p::t:m:T::x)\n          B.\n          found\n\n"
    )
    assert to_text([]) == ""
    assert PolicyPack.builtin().label == "built-in: gpu_components.policy"
    assert PolicyConfig().enforcement_level is None


# ---------------------------------------------------------------------------------------------------------------


def _document(plan: Plan) -> dict[str, object]:
    """A plan as its JSON document (what tests/policy's rule checks read)."""
    document: dict[str, object] = json.loads(to_json(plan))
    return document


def _plan_of(plan: Plan, document: dict[str, object]) -> Plan:
    """``plan`` with the inputs of ``document`` (an edited copy of its JSON)."""
    inputs = {item["urn"]: item["inputs"] for item in document["resources"]}  # type: ignore[attr-defined]
    resources = tuple(
        PlannedResource(r.urn, r.type, r.name, r.parent, inputs[r.urn], r.custom, r.options) for r in plan.resources
    )
    return Plan(plan.project, plan.stack, resources, plan.outputs)


# ---------------------------------------------------------------------------------------------------------------
# Workloads against pools: the pack reads the node-pool components' outputs from the plan
# ---------------------------------------------------------------------------------------------------------------

WORKLOAD_PROGRAM = """\
import pulumi_kubernetes as k8s

from gpu_components.aws import EksGpuNodeGroup

pool = {"name": "l4", "instance_type": "g6.xlarge", "max_size": 2}
mig = {"name": "mig", "instance_type": "p4d.24xlarge", "max_size": 2, "mig": {"profile": "1g.5gb", "strategy": "mixed"}}
for spec, stack in ((pool, "auto"), (mig, "gpu-operator")):
    EksGpuNodeGroup(spec["name"], {"pool": spec, "cluster_name": "c", "subnet_ids": ["s"], "gpu_stack": stack})
for name, pod in {
    "lost": {},
    "untolerated": {"nodeSelector": {"gpu-components/pool": "l4"}},
    "greedy": {
        "nodeSelector": {"gpu-components/pool": "l4"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
    },
}.items():
    gpus = 2 if name == "greedy" else 1
    k8s.batch.v1.Job(
        name,
        spec={"template": {"spec": {"restartPolicy": "Never", **pod, "containers": [
            {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": gpus}}}
        ]}}},
    )
"""


def test_the_offline_run_judges_workloads_against_the_pools_they_select(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: team\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-west-2\n")
    (tmp_path / "__main__.py").write_text(WORKLOAD_PROGRAM)
    report = run_policy_pack(run_project(tmp_path, "dev"))
    found = [(v.policy, v.level, v.urn.rpartition("::")[2]) for v in report.violations]
    assert found == [
        ("gpu-workload-pool-fit", "mandatory", "greedy"),
        ("gpu-workload-pool-selection", "mandatory", "lost"),
        ("gpu-workload-pool-tolerations", "mandatory", "untolerated"),
        ("gpu-pool-autoscaler-resources", "advisory", "mig"),
    ]
    messages = {v.urn.rpartition("::")[2]: v.message.split("\n", 1)[1] for v in report.violations}
    assert (
        "2 nvidia.com/gpu per container fits no GPU pool the pods select: pool l4's nodes each have 1"
        in (messages["greedy"])
    )
    assert "select none of the stack's GPU pools (l4, mig)" in messages["lost"]
    assert "(pool l4: nvidia.com/gpu=present:NoSchedule)" in messages["untolerated"]
    assert messages["mig"].startswith("pool mig: nodes advertise nvidia.com/mig-1g.5gb and no nvidia.com/gpu")
    result = run("plan", "dev", "-C", str(tmp_path), "--format", "capacity")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "warning: dev: pool mig: nodes advertise nvidia.com/mig-1g.5gb and no nvidia.com/gpu, the only GPU resource "
        "the Cluster Autoscaler waits for on a new node: it may add nodes for pods a starting node will hold\n"
    )
