"""Bad input to provisioned EKS pools and the shared Karpenter rules (issue 16's new-user trial): exact errors
through the stack config (the plan CLI), ``GpuCluster`` and the components, before any resource is registered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_components.aws.cluster import config_problems
from gpu_components.azure import AksNapGpuNodePool
from gpu_components.cluster import GpuCluster
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes import NvidiaGpuOperator
from gpu_components.spec import GpuNodePoolSpec
from tests.aws.test_provisioned import AUTO_L4, H100_MIG, L40S_SHARED, RESERVED, WIRING, auto_mode, karpenter
from tests.helpers import plan_of
from tests.test_stack_config_problems import plan as plan_stack
from tests.test_stack_config_problems import problems as stack_problems


def _problems(build: Any) -> list[str]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(build)
    return [f"{p.path}: {p.message} (got {p.value!r}); valid: {p.valid}" for p in caught.value.problems]


def _sources(build: Any) -> list[str | None]:
    with pytest.raises(GpuSpecError) as caught:
        plan_of(build)
    return [p.source for p in caught.value.problems]


ONE_SYSTEM_NODE = "    system_node_group: {min_size: 1, desired_size: 1, max_size: 1}\n"


def _stack(tmp_path: Path, cluster: str, pools: str, gpu_stack: str = "auto") -> list[str]:
    config = f"  gpu-components:cloud: aws\n  gpu-components:gpu_stack: {gpu_stack}\n{cluster}{pools}"
    return stack_problems(plan_stack(tmp_path, config))


KARPENTER_POOL = """\
  gpu-components:pools:
    - {name: p, instance_type: g6e.xlarge, provisioning: {provisioner: karpenter, max_gpus: 8}}
"""
AUTO_MODE_POOL = """\
  gpu-components:pools:
    - {name: p, instance_type: g6e.xlarge, provisioning: {provisioner: eks-auto-mode, max_gpus: 8}}
"""
VALID_KARPENTER = "cluster.karpenter (with existing: true on a cluster that already runs it)"
VALID_AUTO_MODE = "cluster.auto_mode (with existing: true on a cluster that already runs it)"


# 1. A pool's provisioner must run on the cluster; Karpenter and Auto Mode pools do not share one.


def test_a_karpenter_pool_needs_cluster_karpenter(tmp_path: Path) -> None:
    cluster = '  gpu-components:cluster: {name: c3, kubernetes_version: "1.34"}\n'
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "pools[0].provisioning.provisioner: karpenter pools need the Karpenter controller on the cluster, and the "
        "cluster config has no karpenter: nothing would create the pool's nodes (got 'karpenter'); valid: "
        + VALID_KARPENTER
    ]


def test_a_karpenter_pool_on_auto_mode_and_an_auto_mode_pool_on_karpenter_are_refused(tmp_path: Path) -> None:
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, auto_mode: {}}\n", KARPENTER_POOL) == [
        "pools[0].provisioning.provisioner: karpenter pools need the Karpenter controller on the cluster, and the "
        "cluster config has no karpenter (it has cluster.auto_mode): nothing would create the pool's nodes "
        "(got 'karpenter'); valid: " + VALID_KARPENTER
    ]
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, karpenter: {}}\n", AUTO_MODE_POOL) == [
        "pools[0].provisioning.provisioner: eks-auto-mode pools need EKS Auto Mode on the cluster, and the cluster "
        "config has no auto_mode (it has cluster.karpenter): nothing would create the pool's nodes "
        "(got 'eks-auto-mode'); valid: " + VALID_AUTO_MODE
    ]


def test_a_fixed_pool_on_a_new_auto_mode_cluster_is_refused(tmp_path: Path) -> None:
    # the trial: it planned a managed node group on a cluster without the VPC CNI and kube-proxy add-ons
    pools = AUTO_MODE_POOL + "    - {name: fixed, instance_type: g6.xlarge, max_size: 2}\n"
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, auto_mode: {}}\n", pools) == [
        "pools[1]: a fixed pool (an EKS managed node group) on the Auto Mode cluster this program creates, which "
        "leaves off the VPC CNI and kube-proxy add-ons a managed node group needs (got 'fixed'); valid: "
        "provisioning: {provisioner: eks-auto-mode, ...}"
    ]


def test_an_existing_cluster_says_what_it_runs(tmp_path: Path) -> None:
    cluster = (
        "  gpu-components:cluster:\n    name: c3\n    existing: true\n    subnet_ids: [subnet-a]\n"
        "    karpenter: {existing: true}\n    node_role_arn: arn:aws:iam::111122223333:role/nodes\n"
    )
    assert _stack(tmp_path, cluster, AUTO_MODE_POOL) == [
        "pools[0].provisioning.provisioner: eks-auto-mode pools need EKS Auto Mode on the cluster, and the cluster "
        "config has no auto_mode (it has cluster.karpenter): nothing would create the pool's nodes "
        "(got 'eks-auto-mode'); valid: " + VALID_AUTO_MODE
    ]


KARPENTER_WITH_AUTO_MODE = (
    "EKS Auto Mode runs its own Karpenter: with the karpenter controller too, two provisioners would launch this "
    "cluster's nodes (AWS documents the two side by side only while migrating from one to the other), and the "
    "Karpenter chart's default affinity keeps its controller off every Auto Mode node"
)


def test_gpu_cluster_refuses_karpenter_and_auto_mode_pools_together_with_the_stack_paths_reason() -> None:
    cluster = {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [L40S_SHARED, AUTO_L4]}
    assert _problems(lambda: GpuCluster("gc1", cluster)) == [  # type: ignore[arg-type]
        f"pools[1].provisioning.provisioner: pools[0] is a karpenter pool: {KARPENTER_WITH_AUTO_MODE} "
        "(got 'eks-auto-mode'); valid: karpenter, as pools[0], or a cluster of its own"
    ]
    assert config_problems({"name": "c", "karpenter": {}, "auto_mode": {}})[0].message == KARPENTER_WITH_AUTO_MODE


# 2. EC2 capacity reservation ids.

RESERVATION = (
    "pool.provisioning.reservation: not an EC2 capacity reservation id: the EC2NodeClass's "
    "capacityReservationSelectorTerms[].id takes only one (got 'my-res'); valid: an id matching ^cr-[0-9a-z]+$, "
    "e.g. cr-0123456789abcdef0"
)


def test_a_reservation_that_is_not_an_ec2_reservation_id_is_refused() -> None:
    pool = {**RESERVED, "provisioning": {**RESERVED["provisioning"], "reservation": "my-res"}}
    assert _problems(lambda: karpenter(pool)) == [RESERVATION]
    assert "karpenter.k8s.aws_ec2nodeclasses.yaml line 264" in str(_sources(lambda: karpenter(pool))[0])


def test_a_reservation_id_is_checked_through_the_stack_config(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: r
      instance_type: p5e.48xlarge
      provisioning: {provisioner: karpenter, max_nodes: 1, capacity_types: [reserved], reservation: CR-1}
"""
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, karpenter: {}}\n", pools) == [
        "pools[0].provisioning.reservation: not an EC2 capacity reservation id: the EC2NodeClass's "
        "capacityReservationSelectorTerms[].id takes only one (got 'CR-1'); valid: an id matching ^cr-[0-9a-z]+$, "
        "e.g. cr-0123456789abcdef0"
    ]


# 3. Resources a Karpenter-based provisioner never launches a node for: the rule AKS NAP has, on Karpenter too.

MIXED = (
    "karpenter, a Karpenter-based provisioner, sizes a node by its instance type's nvidia.com/gpu count and knows no "
    "nvidia.com/mig-<profile> resource: a pod requesting one would stay pending, with no node created for it"
)
RENAMED = (
    "karpenter, a Karpenter-based provisioner, sizes a node by its instance type's nvidia.com/gpu count and knows no "
    "nvidia.com/gpu.shared resource: a pod requesting one would stay pending, with no node created for it"
)
MIXED_MIG = {**H100_MIG, "mig": {"profile": "1g.10gb", "strategy": "mixed"}}
RENAMED_SHARING = {**L40S_SHARED, "time_slicing": {"replicas": 2, "rename_by_default": True}}


def test_karpenter_refuses_mixed_mig_and_renamed_time_slicing_through_the_component() -> None:
    assert _problems(lambda: karpenter(MIXED_MIG, gpu_stack="gpu-operator")) == [
        f"pool.mig.strategy: {MIXED} (got 'mixed'); valid: single"
    ]
    assert _problems(lambda: karpenter(RENAMED_SHARING)) == [
        f"pool.time_slicing.rename_by_default: {RENAMED} (got True); valid: false"
    ]


def test_karpenter_refuses_them_through_gpu_cluster_and_an_add_ons_plain_pools() -> None:
    cluster = {
        "cloud": "aws",
        "aws": {**WIRING, "karpenter_controller": True},
        "gpu_stack": "gpu-operator",
        "pools": [{**MIXED_MIG, "aws": {}}],
    }
    assert _problems(lambda: GpuCluster("c", cluster)) == [  # type: ignore[arg-type]
        f"pools[0].mig.strategy: {MIXED} (got 'mixed'); valid: single"
    ]
    assert _problems(lambda: NvidiaGpuOperator("op", {"cloud": "aws", "pools": [RENAMED_SHARING]})) == [
        f"pools[0].time_slicing.rename_by_default: {RENAMED} (got True); valid: false"
    ]


def test_karpenter_refuses_them_through_the_stack_config(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - name: m
      instance_type: p5.48xlarge
      mig: {profile: 1g.10gb, strategy: mixed}
      provisioning: {provisioner: karpenter, max_gpus: 8}
"""
    cluster = "  gpu-components:cluster: {name: c3, karpenter: {}}\n"
    assert _stack(tmp_path, cluster, pools, "gpu-operator") == [
        f"pools[0].mig.strategy: {MIXED} (got 'mixed'); valid: single"
    ]


# 4. Labels the provisioner's NodePool CRD refuses: its rule !x.find("^([^/]+)").endsWith(domain) (the key's
# domain part, or the whole key without a '/', ends with the domain) and, on NAP, AKS's plain labels.

CRD_RULE = (
    "label domain {domain} is restricted on {provisioner} NodePools: the NodePool CRD refuses a key whose domain "
    "(the part before '/', or the whole key without one) ends with {domain}, as {why}"
)
LIBRARY_RULE = "label {key} may not be set on {provisioner} NodePools: {why}"
INSTANCE_LABEL = (
    "the NodePool CRD allows it, but Karpenter turns a template label into a requirement, and the library sets the "
    "pool's instance types and node class from instance_type itself: it would repeat or contradict them; select a "
    "node by it in a workload instead"
)
CAPACITY_TYPE = (
    "the library sets it from provisioning.capacity_types (a NodePool requirement; Karpenter turns a template label "
    "into one, which would repeat or contradict it)"
)
NODEPOOL = (
    "Karpenter sets it to the NodePool's name on every node, and the NodePool CRD refuses it (label "
    '"karpenter.sh/nodepool" is restricted)'
)
KARPENTER_SH = (
    "Karpenter sets labels in it on every node itself (karpenter.sh/nodepool, karpenter.sh/capacity-type): select a "
    "node by them in a workload instead"
)
KARPENTER_AWS = (
    "Karpenter's AWS provider sets labels in it on every node itself (the instance type's, e.g. "
    "karpenter.k8s.aws/instance-gpu-name): select a node by them in a workload instead"
)
AUTO_MODE_AWS = (
    "it is the domain of Karpenter's own AWS provider, which Auto Mode does not run: Auto Mode sets its instance "
    "labels under eks.amazonaws.com instead (e.g. eks.amazonaws.com/instance-gpu-name): select a node by them in a "
    "workload instead"
)
AWS_VALID = "a label whose domain does not end with karpenter.sh, karpenter.k8s.aws"
KARPENTER_LABELS = {
    "karpenter.k8s.aws/instance-gpu-name": "l40s",
    "karpenter.sh/nodepool": "x",
    "foo.karpenter.sh/x": "y",
    "karpenter.sh/capacity-type": "spot",
    "mykarpenter.sh/x": "y",
    "karpenter.sh": "y",
    "xkarpenter.k8s.aws/y": "z",
    "karpenter.shop/x": "fine",
    "karpenter.sh.example.com/x": "fine",
}
REFUSED_ON_KARPENTER = [
    ("karpenter.k8s.aws/instance-gpu-name", None, INSTANCE_LABEL),
    ("karpenter.sh/nodepool", None, NODEPOOL),
    ("foo.karpenter.sh/x", "karpenter.sh", KARPENTER_SH),
    ("karpenter.sh/capacity-type", None, CAPACITY_TYPE),
    ("mykarpenter.sh/x", "karpenter.sh", KARPENTER_SH),
    ("karpenter.sh", "karpenter.sh", KARPENTER_SH),
    ("xkarpenter.k8s.aws/y", "karpenter.k8s.aws", KARPENTER_AWS),
]


def _refused(path: str, refused: list[tuple[str, str | None, str]], provisioner: str, valid: str) -> list[str]:
    """Each refused (key, restricted domain, why): the CRD's domain rule, or (domain None) the key's own reason."""
    return [
        f"{path}.labels[{key!r}]: "
        + (
            LIBRARY_RULE.format(key=key, provisioner=provisioner, why=why)
            if domain is None
            else CRD_RULE.format(domain=domain, provisioner=provisioner, why=why)
        )
        + f" (got {key!r}); valid: {valid}"
        for key, domain, why in refused
    ]


def test_karpenter_refuses_labels_by_the_crds_rule() -> None:
    assert _problems(lambda: karpenter({**L40S_SHARED, "labels": KARPENTER_LABELS})) == _refused(
        "pool", REFUSED_ON_KARPENTER, "karpenter", AWS_VALID
    )
    assert "karpenter.sh_nodepools.yaml lines 224-231" in str(
        _sources(lambda: karpenter({**L40S_SHARED, "labels": KARPENTER_LABELS}))[0]
    )


def test_karpenter_label_rule_through_gpu_cluster_and_the_stack_config(tmp_path: Path) -> None:
    cluster = {
        "cloud": "aws",
        "aws": {**WIRING, "karpenter_controller": True},
        "pools": [{**L40S_SHARED, "labels": KARPENTER_LABELS}],
    }
    assert _problems(lambda: GpuCluster("gc1", cluster)) == _refused(  # type: ignore[arg-type]
        "pools[0]", REFUSED_ON_KARPENTER, "karpenter", AWS_VALID
    )
    pools = """\
  gpu-components:pools:
    - name: p
      instance_type: g6e.xlarge
      labels: {mykarpenter.sh/x: y, karpenter.sh: y, xkarpenter.k8s.aws/y: z, karpenter.shop/x: fine}
      provisioning: {provisioner: karpenter, max_gpus: 8}
"""
    cluster_config = "  gpu-components:cluster: {name: c3, karpenter: {}}\n"
    assert _stack(tmp_path, cluster_config, pools) == _refused(
        "pools[0]",
        [
            ("mykarpenter.sh/x", "karpenter.sh", KARPENTER_SH),
            ("karpenter.sh", "karpenter.sh", KARPENTER_SH),
            ("xkarpenter.k8s.aws/y", "karpenter.k8s.aws", KARPENTER_AWS),
        ],
        "karpenter",
        AWS_VALID,
    )


def test_auto_mode_refuses_karpenters_aws_domain_without_saying_it_sets_those_labels(tmp_path: Path) -> None:
    auto = {**AUTO_L4, "labels": {"karpenter.k8s.aws/instance-family": "g6e", "xkarpenter.sh/y": "z"}}
    refused = [
        ("karpenter.k8s.aws/instance-family", "karpenter.k8s.aws", AUTO_MODE_AWS),
        ("xkarpenter.sh/y", "karpenter.sh", KARPENTER_SH),
    ]
    assert _problems(lambda: auto_mode(auto)) == _refused("pool", refused, "eks-auto-mode", AWS_VALID)
    cluster = {"cloud": "aws", "aws": {**WIRING, "karpenter_controller": True}, "pools": [auto]}
    assert _problems(lambda: GpuCluster("gc1", cluster)) == _refused(  # type: ignore[arg-type]
        "pools[0]", refused, "eks-auto-mode", AWS_VALID
    )
    pools = AUTO_MODE_POOL.replace(
        "instance_type: g6e.xlarge,",
        "instance_type: g6e.xlarge, labels: {karpenter.k8s.aws/instance-family: g6e, xkarpenter.sh/y: z},",
    )
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, auto_mode: {}}\n", pools) == _refused(
        "pools[0]", refused, "eks-auto-mode", AWS_VALID
    )


NAP_VALID = (
    "a label whose domain does not end with karpenter.sh, karpenter.azure.com, kubernetes.azure.com, other than "
    "agentpool, storageprofile, storagetier, accelerator"
)
KARPENTER_AZURE = (
    "Karpenter's Azure provider sets labels in it on every node itself (the VM size's, e.g. "
    "karpenter.azure.com/sku-gpu-name): select a node by them in a workload instead"
)
KUBERNETES_AZURE = "AKS sets labels in it on every node itself (e.g. kubernetes.azure.com/scalesetpriority)"
NAP_LABELS = {
    "karpenter.azure.com/sku-name": "x",
    "mykarpenter.azure.com/y": "x",
    "x.kubernetes.azure.com/y": "x",
    "kubernetes.azure.com": "x",
    "agentpool": "x",
    "storageprofile": "x",
    "storagetier": "x",
    "accelerator": "nvidia",
    "team/accelerator": "fine",
}
NAP_REFUSED = _refused(
    "{where}",
    [
        ("karpenter.azure.com/sku-name", None, INSTANCE_LABEL),
        ("mykarpenter.azure.com/y", "karpenter.azure.com", KARPENTER_AZURE),
        ("x.kubernetes.azure.com/y", "kubernetes.azure.com", KUBERNETES_AZURE),
        ("kubernetes.azure.com", "kubernetes.azure.com", KUBERNETES_AZURE),
    ],
    "node-auto-provisioning",
    NAP_VALID,
) + [
    f"{{where}}.labels[{key!r}]: label {key} is restricted on node-auto-provisioning NodePools: the NodePool CRD "
    f"refuses it, as AKS sets this node label itself (got {key!r}); valid: {NAP_VALID}"
    for key in ("agentpool", "storageprofile", "storagetier", "accelerator")
]
NAP_POOL: dict[str, Any] = {
    "name": "napl",
    "instance_type": "Standard_NC24ads_A100_v4",
    "labels": NAP_LABELS,
    "provisioning": {"provisioner": "node-auto-provisioning", "max_nodes": 1},
}


def test_nap_refuses_its_crds_domains_and_aks_plain_labels(tmp_path: Path) -> None:
    assert _problems(lambda: AksNapGpuNodePool("n", {"pool": NAP_POOL})) == [  # type: ignore[typeddict-item]
        line.replace("{where}", "pool") for line in NAP_REFUSED
    ]
    aks_own = {**NAP_POOL, "labels": {"kubernetes.azure.com/mode": "user"}}
    assert _problems(lambda: AksNapGpuNodePool("n", {"pool": aks_own})) == [  # type: ignore[typeddict-item]
        "pool.labels['kubernetes.azure.com/mode']: AKS refuses keys under kubernetes.azure.com/ in node pools (got "
        "'kubernetes.azure.com/mode'); valid: a key under your own prefix"
    ]
    assert "karpenter.sh_nodepools.yaml lines 225-242" in str(
        _sources(lambda: AksNapGpuNodePool("n", {"pool": NAP_POOL}))[-1]  # type: ignore[typeddict-item]
    )
    cluster = {"cloud": "azure", "azure": {"resource_group_name": "rg", "cluster_name": "gpu"}, "pools": [NAP_POOL]}
    assert _problems(lambda: GpuCluster("gc1", cluster)) == [  # type: ignore[arg-type]
        line.replace("{where}", "pools[0]") for line in NAP_REFUSED
    ]
    labels = ", ".join(f"{key}: {value}" for key, value in NAP_LABELS.items())
    config = f"""\
  azure-native:location: eastus
  gpu-components:cloud: azure
  gpu-components:gpu_stack: auto
  gpu-components:cluster: {{name: gpunap, resource_group_name: rg, node_auto_provisioning: true}}
  gpu-components:pools:
    - name: napl
      instance_type: Standard_NC24ads_A100_v4
      labels: {{{labels}}}
      provisioning: {{provisioner: node-auto-provisioning, max_nodes: 1}}
"""
    assert stack_problems(plan_stack(tmp_path, config)) == [line.replace("{where}", "pools[0]") for line in NAP_REFUSED]


# 5, 6. The Karpenter controller's settings.

HELM_CLUSTER = "  gpu-components:cluster:\n    name: c3\n    karpenter:\n"


def test_karpenter_helm_values_sections_the_library_fills_must_be_mappings(tmp_path: Path) -> None:
    values = "{settings: x, serviceAccount: [1], nodeSelector: system, controller: [], replicas: 1}"
    cluster = HELM_CLUSTER + f"      helm_values: {values}\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.karpenter.helm_values.settings: must be a mapping: the library sets settings.clusterName, "
        "settings.interruptionQueue inside it, which this value would replace (got 'x'); valid: a mapping of chart "
        "values",
        "cluster.karpenter.helm_values.serviceAccount: must be a mapping: the library sets serviceAccount.name, "
        "serviceAccount.create inside it, which this value would replace (got [1]); valid: a mapping of chart values",
        "cluster.karpenter.helm_values.nodeSelector: set by the library (the nodes the controller runs on, which "
        "must not be nodes Karpenter launches) (got 'system'); valid: remove it",
        "cluster.karpenter.helm_values.controller: must be a mapping: the library sets controller.resources inside "
        "it, which this value would replace (got []); valid: a mapping of chart values",
    ]
    assert [p.path for p in config_problems({"name": "c", "karpenter": {"helm_values": {"controller": None}}})] == [
        "cluster.karpenter.helm_values.controller"
    ]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            {"controller": {"resources": 1}},
            "cluster.karpenter.helm_values.controller.resources: set by the library (the guide's controller "
            "resources: 1 CPU and 1Gi, requested and limited) (got 1)",
        ),
        (
            {"controller": {"resources": {"requests": "x", "limits": {}}}},
            "cluster.karpenter.helm_values.controller.resources: set by the library (the guide's controller "
            "resources: 1 CPU and 1Gi, requested and limited) (got {'requests': 'x', 'limits': {}})",
        ),
    ],
)
def test_karpenter_helm_values_nested_sections_the_library_fills_are_refused(
    values: dict[str, Any], expected: str
) -> None:
    # A section the library sets whole (controller.resources) is refused as one value, whatever its shape.
    problems = config_problems({"name": "c", "karpenter": {"helm_values": values}})
    assert [f"{p.path}: {p.message} (got {p.value!r})" for p in problems] == [expected]


@pytest.mark.parametrize("version", ["0.37.0", "latest", "1.14", "v0.9.9"])
def test_karpenter_version_must_be_a_v1_release(tmp_path: Path, version: str) -> None:
    cluster = HELM_CLUSTER + f'      version: "{version}"\n'
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.karpenter.version: not a Karpenter release the library supports: its NodePools and EC2NodeClasses "
        "are karpenter.sh/v1 and karpenter.k8s.aws/v1, whose CRDs Karpenter ships from 1.0.0 on "
        f"(got '{version}'); valid: a release MAJOR.MINOR.PATCH from 1.0.0 on, e.g. 1.14.1"
    ]


@pytest.mark.parametrize("version", ["1.0.0", "1.14.1", "1.3.0", "2.0.0"])
def test_karpenter_v1_releases_are_accepted(version: str) -> None:
    assert config_problems({"name": "c", "karpenter": {"version": version}}) == []


def test_the_system_node_group_must_hold_every_karpenter_replica(tmp_path: Path) -> None:
    # Found by the Helm oracle (tests/oracles/test_helm.py): Karpenter's chart runs 2 controller replicas, each on a
    # node of its own and never on a Karpenter node; with our node selector only the system node group is left.
    cluster = HELM_CLUSTER + "      {}\n    system_node_group: {min_size: 1, desired_size: 1, max_size: 1}\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.system_node_group.desired_size: fewer nodes than Karpenter controller replicas (2, the chart's "
        "default replicas): the chart places each replica on a node of its own (pod anti-affinity on "
        "kubernetes.io/hostname) and never on a node Karpenter launches, so only the system node group can run them "
        "(got 1); valid: at least 2 (and max_size at least 2), or cluster.karpenter.helm_values.replicas: 1"
    ]


@pytest.mark.parametrize(
    ("cluster", "expected"),
    [
        ({"karpenter": {}, "system_node_group": {"min_size": 0, "desired_size": 0}}, [("at least 2", 0)]),
        (
            {"karpenter": {"helm_values": {"replicas": 3}}},
            [("at least 3, or cluster.karpenter.helm_values.replicas: 2", 2)],
        ),
        ({"karpenter": {"helm_values": {"replicas": 1}}, "system_node_group": {"min_size": 1, "desired_size": 1}}, []),
        (
            {"karpenter": {"helm_values": {"affinity": {}}}, "system_node_group": {"min_size": 0, "desired_size": 0}},
            [("at least 2", 0)],
        ),
        (
            {
                "karpenter": {"existing": True},
                "existing": True,
                "subnet_ids": ["s"],
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
            },
            [],
        ),
        ({"karpenter": {}}, []),
    ],
)
def test_karpenter_replicas_against_system_nodes(cluster: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    problems = config_problems({"name": "c", **cluster})
    found = [(p.valid, p.value) for p in problems if p.path == "cluster.system_node_group.desired_size"]
    assert [(valid, getattr(value, "value", value)) for valid, value in found] == expected


KARPENTER_SOURCE = " [source: https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml]"
TOO_FEW_NODES = (
    "cluster.system_node_group.desired_size: fewer nodes than Karpenter controller replicas ({replicas}, {where}): "
    "the chart places each replica on a node of its own (pod anti-affinity on kubernetes.io/hostname) and never on "
    "a node Karpenter launches, so only the system node group can run them (got {got}); valid: {valid}"
)


@pytest.mark.parametrize("replicas", ['"two"', '"3"', "1.5", "true", "-1", "0"])
def test_karpenter_replicas_must_be_a_whole_number_from_1(tmp_path: Path, replicas: str) -> None:
    cluster = HELM_CLUSTER + f"      helm_values: {{replicas: {replicas}}}\n"
    given = {'"two"': "'two'", '"3"': "'3'", "true": "True"}.get(replicas, replicas)
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.karpenter.helm_values.replicas: not a replica count: the Karpenter chart's Deployment replicas of "
        "the controller; 0 runs no Karpenter controller, so no provisioned pool ever gets a node "
        f"(got {given}); valid: a whole number from 1 to the system node group's desired_size (2)"
    ]
    problems = config_problems({"name": "c", "karpenter": {"helm_values": {"replicas": 0}}})
    assert [str(p) for p in problems] == [
        "cluster.karpenter.helm_values.replicas: not a replica count: the Karpenter chart's Deployment replicas of "
        "the controller; 0 runs no Karpenter controller, so no provisioned pool ever gets a node (got 0); valid: a "
        "whole number from 1 to the system node group's desired_size (2)" + KARPENTER_SOURCE
    ]


@pytest.mark.parametrize(
    ("values", "path", "why"),
    [
        ("{affinity: {}}", "affinity", "the chart's affinity keeps each controller replica on a node of its own"),
        ("{affinity: null}", "affinity", "the chart's affinity keeps each controller replica on a node of its own"),
        ("{nodeSelector: {gpu-components/role: other}}", "nodeSelector", "the nodes the controller runs on"),
        ("{nodeSelector: {kubernetes.io/os: linux}}", "nodeSelector", "the nodes the controller runs on"),
        ("{serviceAccount: {create: false}}", "serviceAccount.create", "the chart creates the service account"),
    ],
)
def test_karpenter_helm_values_cannot_move_the_controller_or_drop_its_service_account(
    tmp_path: Path, values: str, path: str, why: str
) -> None:
    # Before, these were taken, and the system-node check switched off where they changed the placement.
    cluster = HELM_CLUSTER + f"      helm_values: {values}\n"
    problems = _stack(tmp_path, cluster, KARPENTER_POOL)
    assert [line.split(" (")[0] for line in problems] == [f"cluster.karpenter.helm_values.{path}: set by the library"]
    assert why in problems[0]
    assert problems[0].endswith("valid: remove it")


def test_the_karpenter_nodes_hint_names_max_size_when_it_is_below_the_replicas(tmp_path: Path) -> None:
    cluster = HELM_CLUSTER + "      helm_values: {replicas: 3}\n    system_node_group: {max_size: 2, desired_size: 2}\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        TOO_FEW_NODES.format(
            replicas=3,
            where="cluster.karpenter.helm_values.replicas",
            got=2,
            valid="at least 3 (and max_size at least 3), or cluster.karpenter.helm_values.replicas: 2",
        )
    ]
    cluster = HELM_CLUSTER + "      helm_values: {replicas: 3}\n    system_node_group: {desired_size: 2}\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        TOO_FEW_NODES.format(
            replicas=3,
            where="cluster.karpenter.helm_values.replicas",
            got=2,
            valid="at least 3, or cluster.karpenter.helm_values.replicas: 2",  # max_size 3 (default) holds 3
        )
    ]


def test_a_system_node_group_max_size_below_the_default_desired_size(tmp_path: Path) -> None:
    cluster = HELM_CLUSTER + "      {}\n    system_node_group: {max_size: 1}\n"
    assert _stack(tmp_path, cluster, KARPENTER_POOL) == [
        "cluster.system_node_group.desired_size: must lie between min_size 1 (default) and max_size 1, which this "
        "desired_size does not (default: 2); valid: 1..1"
    ]


# 10. Smaller defects.


def test_a_new_cluster_with_an_existing_karpenter_is_told_only_that() -> None:
    problems = config_problems({"name": "c", "karpenter": {"existing": True}})
    assert [(p.path, p.message) for p in problems] == [
        ("cluster.karpenter.existing", "a cluster this program creates has no Karpenter yet")
    ]


@pytest.mark.parametrize("expire_after", ["0h", "0s", "0m0s", "00h"])
def test_a_zero_expiry_is_refused(expire_after: str) -> None:
    disruption = {"expire_after": expire_after}
    pool = {**L40S_SHARED, "provisioning": {**L40S_SHARED["provisioning"], "disruption": disruption}}
    with pytest.raises(GpuSpecError) as caught:
        GpuNodePoolSpec.from_args(pool, "aws")  # type: ignore[arg-type]
    assert [(p.path, p.message, p.valid) for p in caught.value.problems] == [
        (
            "provisioning.disruption.expire_after",
            "a zero duration: every node would expire, and be replaced, as soon as it is created",
            "a duration above zero, e.g. 720h, or Never (nodes do not expire)",
        )
    ]


def test_one_gpu_is_one_gpu_and_an_ec2nodeclass_is_named_without_an_article() -> None:
    pool = {**L40S_SHARED, "provisioning": {"provisioner": "karpenter", "max_gpus": 0}}
    assert _problems(lambda: karpenter(pool, node_class_spec={"role": "r"}))[0] == (
        "pool.provisioning.max_gpus: below one node of g6e.xlarge (1 GPU): the provisioner could never create such a "
        "node; raise the limit or drop those types (got 0); valid: >= 1"
    )
    assert _problems(lambda: karpenter(L40S_SHARED, node_class_spec={"role": "r"})) == [
        "node_class_spec.role: set by gpu_components from the pool on the EC2NodeClass (got 'r'); valid: EC2NodeClass "
        "spec keys other than amiFamily, amiSelectorTerms, blockDeviceMappings, capacityReservationSelectorTerms, "
        "instanceProfile, role, securityGroupSelectorTerms, subnetSelectorTerms, userData"
    ]


def test_a_miscased_provisioner_or_family_gets_a_did_you_mean_and_only_the_clouds_values(tmp_path: Path) -> None:
    pools = """\
  gpu-components:pools:
    - {name: p, instance_type: g6e.xlarge, provisioning: {provisioner: Karpenter, max_gpus: 8}}
    - name: q
      instance_type: g6e.xlarge
      provisioning: {provisioner: karpenter, max_gpus: 8, instance_families: [G6E]}
"""
    assert _stack(tmp_path, "  gpu-components:cluster: {name: c3, karpenter: {}}\n", pools) == [
        "pools[0].provisioning.provisioner: not a provisioner of EKS; did you mean 'karpenter'? (got 'Karpenter'); "
        "valid: karpenter, eks-auto-mode",
        "pools[1].provisioning.instance_families[0]: unknown aws GPU instance family; did you mean 'g6e'? "
        "(got 'G6E'); valid: g4dn, g5, g5g, g6, g6e, g7e, gr6, p3, p3dn, p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, "
        "p6e-gb200, p6e-gb300",
    ]
    component = lambda: karpenter({**L40S_SHARED, "provisioning": {"provisioner": "karpentr", "max_gpus": 8}})  # noqa: E731
    assert _problems(component) == [
        "pool.provisioning.provisioner: not a provisioner of EKS; did you mean 'karpenter'? (got 'karpentr'); "
        "valid: karpenter, eks-auto-mode"
    ]


def test_gpu_cluster_refuses_add_on_settings_no_pool_uses() -> None:
    cluster = {
        "cloud": "aws",
        "aws": {**WIRING, "karpenter_controller": True},
        "pools": [AUTO_L4],
        "device_plugin": {"namespace": "gpu"},
    }
    assert _problems(lambda: GpuCluster("c", cluster)) == [  # type: ignore[arg-type]
        "device_plugin: NVIDIA device plugin settings, but no pool is served by the NVIDIA device plugin (each "
        "pool's GPUs are advertised by another: pools[0] (auto-l4): cloud), so the cluster deploys none and they "
        "would be ignored (got {'namespace': 'gpu'}); valid: no device_plugin settings, or a pool the NVIDIA device "
        "plugin serves"
    ]
    operator = {
        "cloud": "aws",
        "aws": {**WIRING, "karpenter_controller": True},
        "pools": [AUTO_L4],
        "gpu_stack": "gpu-operator",
    }
    operator["gpu_operator"] = {"namespace": "gpu"}
    refused = [
        "gpu_stack: no pool is served by the GPU Operator (each pool's GPUs are advertised by another: pools[0] "
        "(auto-l4): cloud), so the cluster would deploy no operator and the switch would be ignored (got "
        "'gpu-operator'); valid: auto (each pool's own way), or a pool the GPU Operator serves"
    ]
    assert _problems(lambda: GpuCluster("c", operator)) == refused  # type: ignore[arg-type]
    del operator["gpu_operator"]
    assert _problems(lambda: GpuCluster("c", operator)) == refused  # type: ignore[arg-type]
