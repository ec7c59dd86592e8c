"""The nodes a plan's pools would bring up, as the clouds, NVIDIA's agents and the DRA driver would register them.

For each pool of a plan (fixed pools: EKS node groups, AKS agent pools, GKE node pools; provisioned pools: Karpenter /
EKS Auto Mode / AKS NAP ``NodePool``s, GKE ``ComputeClass``es; GKE Autopilot pools, whose node GKE makes for the
pods) one ``Node`` is made with:

- the labels and taints the plan puts on the pool's nodes (effects in Kubernetes spelling);
- what each cloud adds itself (each with its source):
  - all: ``kubernetes.io/os``, ``kubernetes.io/arch`` (``arm64`` for ARM AMIs / instance requirements),
    ``kubernetes.io/hostname``, ``node.kubernetes.io/instance-type`` (kubelet's well-known labels);
  - EKS managed node groups: ``eks.amazonaws.com/nodegroup``, ``eks.amazonaws.com/capacityType`` (EKS user guide,
    "Managed node groups"); Karpenter (incl. Auto Mode): ``karpenter.sh/nodepool``, ``karpenter.sh/capacity-type``
    and the template's requirements as labels (Karpenter ``pkg/apis/v1/labels.go``);
  - AKS: ``kubernetes.azure.com/agentpool``, ``agentpool``; GPU sizes ``kubernetes.azure.com/accelerator=nvidia``;
    spot pools ``kubernetes.azure.com/scalesetpriority=spot`` and the taint of the same key ``=spot:NoSchedule``
    (AKS docs "Use GPUs", "Spot node pools");
  - GKE: ``cloud.google.com/gke-nodepool``, ``cloud.google.com/gke-accelerator=<type>``, the taint
    ``nvidia.com/gpu=present:NoSchedule`` on every GPU pool, ``cloud.google.com/gke-gpu-partition-size``,
    ``cloud.google.com/gke-gpu-sharing-strategy`` / ``-max-shared-clients-per-gpu``, ``cloud.google.com/gke-spot``;
    nodes of a ComputeClass: ``cloud.google.com/compute-class=<name>`` and the taint of that key ``:NoSchedule``
    (GKE docs "About GPUs", "Share GPUs", "Custom compute classes");
- what NVIDIA's agents publish where the plan runs them, in steady state: with the GPU Operator, NFD's
  ``feature.node.kubernetes.io/pci-10de.present=true`` and the operator's ``nvidia.com/gpu.present`` and
  ``nvidia.com/gpu.deploy.<operand>=true`` labels, each only where the node does not set it already (gpu-operator
  ``controllers/state_manager.go``, ``gpuStateLabels`` / ``addGPUStateLabels``; ``deploy.operands=false`` removes
  them all), ``nvidia.com/gpu.deploy.mig-manager`` and ``nvidia.com/mig.capable`` on MIG-capable GPUs (GFD);
  ``nvidia.com/mig.config.state=success`` where a ``nvidia.com/mig.config`` is asked for (the MIG manager's report
  when the layout is applied, mig-parted ``deployments/gpu-operator``); ``nvidia.com/mps.capable=true`` on MPS pools
  (GPU feature discovery, from the device plugin's MPS config);
- capacity as the pool's advertiser publishes it: ``nvidia.com/gpu`` (or ``nvidia.com/mig-*``) per node from the
  plan's own ``gpuPools`` output for device-plugin / operator / cloud advertisers; for DRA pools no extended
  resource but a ``ResourceSlice`` in the DRA driver's format (``sigs.k8s.io/dra-driver-nvidia-gpu`` v0.4.1,
  ``cmd/gpu-kubelet-plugin/deviceinfo.go`` and ``mig.go``): driver ``gpu.nvidia.com``, pool = node name, devices
  ``gpu-<minor>`` (attributes ``type=gpu``, ``productName``, ``uuid``, ``brand``, ``architecture``,
  ``cudaComputeCapability``, ``driverVersion``, ``cudaDriverVersion``; capacity ``memory``) or, on static-MIG
  pools, ``gpu-<minor>-mig-<profile without dots>-<profile id>-<placement>`` (``type=mig``, ``profile``,
  ``parentUUID``, ...; capacity ``memory``, ``multiprocessors``, ...).

Nodes are Ready with room for pods; their heartbeats are never checked because no node lifecycle controller runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_components import catalog

DRA_DRIVER = "gpu.nvidia.com"

PRODUCT_NAMES: Mapping[str, str] = {
    "A100-40GB": "NVIDIA A100-SXM4-40GB",
    "A100-80GB": "NVIDIA A100-SXM4-80GB",
    "A10G": "NVIDIA A10G",
    "A30-24GB": "NVIDIA A30",
    "B200": "NVIDIA B200",
    "B300": "NVIDIA B300 SXM6 AC",
    "GB200": "NVIDIA GB200",
    "GB300": "NVIDIA GB300",
    "H100-80GB": "NVIDIA H100 80GB HBM3",
    "H100-94GB": "NVIDIA H100 NVL",
    "H200-141GB": "NVIDIA H200",
    "L4": "NVIDIA L4",
    "L40S": "NVIDIA L40S",
    "RTX-PRO-6000": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    "T4": "Tesla T4",
    "T4G": "NVIDIA T4G",
    "V100": "Tesla V100-SXM2-16GB",
}
"""NVML's device name (``nvidia-smi --query-gpu=name``) per catalog GPU: the DRA driver's ``productName``."""

OPERATOR_STATE_LABELS = (
    "nvidia.com/gpu.deploy.driver",
    "nvidia.com/gpu.deploy.gpu-feature-discovery",
    "nvidia.com/gpu.deploy.container-toolkit",
    "nvidia.com/gpu.deploy.device-plugin",
    "nvidia.com/gpu.deploy.dcgm",
    "nvidia.com/gpu.deploy.dcgm-exporter",
    "nvidia.com/gpu.deploy.node-status-exporter",
    "nvidia.com/gpu.deploy.operator-validator",
)
"""``gpuStateLabels[container]`` of gpu-operator ``controllers/state_manager.go``."""

_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


@dataclass
class Pool:
    """One pool of a plan: ``name`` (the ``gpu-components/pool`` label, or the resource's pool name for others),
    the labels and taints its nodes carry, and the plan's ``gpuPools`` entry for GPU pools (``None`` otherwise)."""

    name: str
    cloud: str
    source: str
    instance_type: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[dict[str, str]] = field(default_factory=list)
    gpu: dict[str, Any] | None = None

    @property
    def node_name(self) -> str:
        return f"{self.cloud}-{self.name}-0".lower().replace("_", "-")

    @property
    def advertiser(self) -> str | None:
        """Who advertises the GPUs here (the plan's ``devicePlugin``: ``daemonset``, ``gpu-operator``,
        ``dra-driver``, ``node-image``, ``cloud``), ``None`` for CPU pools."""
        return None if self.gpu is None else str(self.gpu["devicePlugin"])


def _taint(key: str, value: str | None, effect: str) -> dict[str, str]:
    taint = {"key": key, "effect": _EFFECTS.get(effect, effect)}
    if value:
        taint["value"] = value
    return taint


def _add_taint(pool: Pool, taint: dict[str, str]) -> None:
    if not any(t["key"] == taint["key"] and t["effect"] == taint["effect"] for t in pool.taints):
        pool.taints.append(taint)


def _requirement(requirements: list[dict[str, Any]], key: str) -> str | None:
    for req in requirements:
        if req.get("key") == key and req.get("operator") == "In" and req.get("values"):
            return str(req["values"][0])
    return None


def _gpu_pools(plan: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out = plan.get("outputs", {}).get("gpuPools", {})
    return out if isinstance(out, dict) else {}


def pools(plan: Mapping[str, Any]) -> list[Pool]:
    """Every pool of ``plan`` whose nodes the plan defines (labels, taints, instance type)."""
    gpu_pools = _gpu_pools(plan)
    found: list[Pool] = []
    for resource in plan["resources"]:
        token, inputs = resource["type"], resource["inputs"]
        pool: Pool | None = None
        if token == "aws:eks/nodeGroup:NodeGroup":
            labels = dict(inputs.get("labels") or {})
            pool = Pool(
                labels.get("gpu-components/pool", inputs.get("nodeGroupName") or resource["name"]),
                "aws",
                token,
                (inputs.get("instanceTypes") or ["m7i.large"])[0],
                labels,
            )
            for t in inputs.get("taints") or []:
                _add_taint(pool, _taint(t["key"], t.get("value"), t["effect"]))
            pool.labels["eks.amazonaws.com/nodegroup"] = resource["name"]
            pool.labels["eks.amazonaws.com/capacityType"] = inputs.get("capacityType") or "ON_DEMAND"
            if "ARM" in str(inputs.get("amiType", "")):
                pool.labels["kubernetes.io/arch"] = "arm64"
        elif token == "azure-native:containerservice:AgentPool":
            labels = dict(inputs.get("nodeLabels") or {})
            name = str(inputs.get("agentPoolName") or labels.get("gpu-components/pool") or resource["name"])
            pool = Pool(labels.get("gpu-components/pool", name), "azure", token, str(inputs.get("vmSize")), labels)
            for text in inputs.get("nodeTaints") or []:
                key_value, effect = text.rsplit(":", 1)
                key, _, value = key_value.partition("=")
                _add_taint(pool, _taint(key, value, effect))
            pool.labels["kubernetes.azure.com/agentpool"] = name
            pool.labels["agentpool"] = name
            if inputs.get("scaleSetPriority") == "Spot":
                pool.labels["kubernetes.azure.com/scalesetpriority"] = "spot"
                _add_taint(pool, _taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule"))
        elif token == "gcp:container/nodePool:NodePool":
            config = inputs.get("nodeConfig") or {}
            labels = dict(config.get("labels") or {})
            name = str(inputs.get("name") or resource["name"])
            pool = Pool(labels.get("gpu-components/pool", name), "gcp", token, str(config.get("machineType")), labels)
            for t in config.get("taints") or []:
                _add_taint(pool, _taint(t["key"], t.get("value"), t["effect"]))
            pool.labels["cloud.google.com/gke-nodepool"] = name
            _gke_gpu(pool, (config.get("guestAccelerators") or [None])[0], bool(config.get("spot")))
        elif token == "kubernetes:karpenter.sh/v1:NodePool":
            pool = _karpenter(plan, resource)
        elif token == "kubernetes:cloud.google.com/v1:ComputeClass":
            pool = _compute_class(resource)
        elif token == "gpu-components:index:GkeAutopilotGpuPool":
            pool = _autopilot(resource, gpu_pools)
        if pool is None:
            continue
        if pool.name in gpu_pools:
            pool.gpu = gpu_pools[pool.name]
            if pool.cloud == "azure":
                pool.labels["kubernetes.azure.com/accelerator"] = "nvidia"
        found.append(pool)
    for managed in _managed_system_pools(plan):
        found.append(managed)
    return found


def _gke_gpu(pool: Pool, accelerator: Mapping[str, Any] | None, spot: bool) -> None:
    if spot:
        pool.labels["cloud.google.com/gke-spot"] = "true"
    if not accelerator:
        return
    pool.labels["cloud.google.com/gke-accelerator"] = str(accelerator["type"])
    _add_taint(pool, _taint("nvidia.com/gpu", "present", "NoSchedule"))
    if accelerator.get("gpuPartitionSize"):
        pool.labels["cloud.google.com/gke-gpu-partition-size"] = str(accelerator["gpuPartitionSize"])
    sharing = accelerator.get("gpuSharingConfig") or {}
    if sharing:
        strategy = str(sharing["gpuSharingStrategy"]).lower().replace("_", "-")
        pool.labels["cloud.google.com/gke-gpu-sharing-strategy"] = strategy
        pool.labels["cloud.google.com/gke-max-shared-clients-per-gpu"] = str(sharing["maxSharedClientsPerGpu"])


def _karpenter(plan: Mapping[str, Any], resource: Mapping[str, Any]) -> Pool:
    spec = resource["inputs"]["spec"]
    template = spec["template"]
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    requirements = template["spec"].get("requirements") or []
    cloud = "azure" if "azure" in plan["resources"][0]["type"] or _cloud(plan) == "azure" else _cloud(plan)
    instance = _requirement(requirements, "node.kubernetes.io/instance-type") or _requirement(
        requirements, "karpenter.azure.com/sku-name"
    )
    name = resource["inputs"]["metadata"]["name"]
    pool = Pool(labels.get("gpu-components/pool", name), cloud, resource["type"], str(instance), labels)
    for req in requirements:
        value = _requirement([req], req["key"])
        if value is not None:
            pool.labels.setdefault(req["key"], value)
    pool.labels["karpenter.sh/nodepool"] = name
    pool.labels.setdefault("karpenter.sh/capacity-type", "on-demand")
    for t in template["spec"].get("taints") or []:
        _add_taint(pool, _taint(t["key"], t.get("value"), t["effect"]))
    ref = template["spec"].get("nodeClassRef") or {}
    if ref.get("group") == "eks.amazonaws.com":
        pool.labels["eks.amazonaws.com/compute-type"] = "auto"
    if cloud == "azure":
        pool.labels["kubernetes.azure.com/agentpool"] = name
    return pool


def _compute_class(resource: Mapping[str, Any]) -> Pool:
    spec = resource["inputs"]["spec"]
    name = resource["inputs"]["metadata"]["name"]
    config = spec.get("nodePoolConfig") or {}
    labels = dict(config.get("nodeLabels") or {})
    first = (spec.get("priorities") or [{}])[0]
    pool = Pool(labels.get("gpu-components/pool", name), "gcp", resource["type"], str(first.get("machineType")), labels)
    for t in config.get("taints") or []:
        _add_taint(pool, _taint(t["key"], t.get("value"), t["effect"]))
    pool.labels["cloud.google.com/compute-class"] = name
    _add_taint(pool, _taint("cloud.google.com/compute-class", name, "NoSchedule"))
    gpu = first.get("gpu")
    accelerator = {"type": gpu["type"]} if gpu else None
    _gke_gpu(pool, accelerator, bool(first.get("spot")))
    return pool


def _autopilot(resource: Mapping[str, Any], gpu_pools: Mapping[str, Mapping[str, Any]]) -> Pool | None:
    """The GPU node GKE Autopilot creates for a pool's pods (it has no node pool in the plan): the machine type's
    accelerator and its count per node, Spot, time-sharing and partition labels, and GKE's GPU taint (GKE "Deploy
    GPU workloads in Autopilot": ``cloud.google.com/gke-accelerator``, ``cloud.google.com/gke-accelerator-count``;
    "About GPUs": the taint). It carries no label of the library's: pods reach it by GKE's labels alone."""
    name = next(
        (
            pool
            for pool, entry in gpu_pools.items()
            if entry.get("nodes") == "GKE Autopilot" and str(resource["name"]).endswith(f"-{pool}")
        ),
        None,
    )
    if name is None:
        return None
    capacity = gpu_pools[name]["capacity"]
    instance_type = str(capacity["instanceType"])
    found = catalog.find_instance_type("gcp", instance_type)
    pool = Pool(name, "gcp", resource["type"], instance_type)  # no label of the library's: Autopilot sets the labels
    pool.labels["cloud.google.com/gke-accelerator-count"] = str(capacity["gpusPerNode"])
    accelerator: dict[str, Any] = {"type": found.accelerator_type if found is not None else None}
    shared = [entry["sharedBy"] for entry in capacity["advertises"] if entry.get("sharedBy", 1) > 1]
    if shared:
        accelerator["gpuSharingConfig"] = {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": shared[0]}
    if capacity.get("mig"):
        accelerator["gpuPartitionSize"] = next(iter(capacity["mig"]))
    _gke_gpu(pool, accelerator, bool(capacity.get("spot")))
    return pool


def _managed_system_pools(plan: Mapping[str, Any]) -> Iterator[Pool]:
    """System pools declared inside the cluster resource (AKS ``agentPoolProfiles``)."""
    for resource in plan["resources"]:
        if resource["type"] == "azure-native:containerservice:ManagedCluster":
            for profile in resource["inputs"].get("agentPoolProfiles") or []:
                labels = dict(profile.get("nodeLabels") or {})
                name = str(profile["name"])
                pool = Pool(name, "azure", resource["type"], str(profile.get("vmSize")), labels)
                pool.labels["kubernetes.azure.com/agentpool"] = name
                pool.labels["agentpool"] = name
                yield pool


def _cloud(plan: Mapping[str, Any]) -> str:
    return str(plan.get("config", {}).get("gpu-components:cloud", "aws"))


# ---- NVIDIA's agents ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Agents:
    """What NVIDIA software the plan runs cluster-wide (read from its rendered objects)."""

    operator: bool
    """The GPU Operator runs (it labels GPU nodes; NFD with it unless ``nfd.enabled=false``)."""
    nfd: bool
    mig_manager: bool


def _mig(pool: Pool) -> dict[str, int]:
    return dict((pool.gpu or {}).get("capacity", {}).get("mig") or {})


def _model(pool: Pool) -> catalog.GpuModel | None:
    name = (pool.gpu or {}).get("capacity", {}).get("gpuModel")
    return next((m for m in catalog.gpu_models() if m.name == name), None)


def node(pool: Pool, agents: Agents) -> dict[str, Any]:
    """The ``Node`` object of ``pool``'s first node (labels, taints, capacity, Ready)."""
    labels = {
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": pool.node_name,
        "node.kubernetes.io/instance-type": pool.instance_type,
    }
    labels.update(pool.labels)
    capacity = {"cpu": "96", "memory": "768Gi", "pods": "110", "ephemeral-storage": "200Gi"}
    if pool.gpu is not None:
        model = _model(pool)
        sharing = str(pool.gpu.get("capacity", {}).get("sharing"))
        if agents.operator and pool.gpu is not None:
            if agents.nfd:
                labels["feature.node.kubernetes.io/pci-10de.present"] = "true"
            if labels.get("nvidia.com/gpu.deploy.operands") != "false":
                labels.setdefault("nvidia.com/gpu.present", "true")
                for key in OPERATOR_STATE_LABELS:
                    labels.setdefault(key, "true")
                if model is not None and model.mig_capable:
                    labels.setdefault("nvidia.com/mig.capable", "true")
                    labels.setdefault("nvidia.com/gpu.deploy.mig-manager", "true")
                    if agents.mig_manager:
                        labels.setdefault("nvidia.com/mig.config", "all-disabled")
        if "nvidia.com/mig.config" in labels:
            labels["nvidia.com/mig.config.state"] = "success"
        if sharing == "mps":
            labels["nvidia.com/mps.capable"] = "true"
        if pool.advertiser != "dra-driver":
            for resource_name, per_node in (pool.gpu.get("advertises") or {}).items():
                capacity[resource_name] = str(per_node)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": pool.node_name, "labels": labels},
        "spec": {"taints": pool.taints} if pool.taints else {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "oracle node"}],
            "nodeInfo": {"architecture": labels["kubernetes.io/arch"], "operatingSystem": "linux"},
        },
    }


def resource_slice(pool: Pool) -> dict[str, Any] | None:
    """The DRA driver's ``ResourceSlice`` for ``pool``'s node (``None`` unless the DRA driver advertises there)."""
    if pool.advertiser != "dra-driver" or pool.gpu is None:
        return None
    model = _model(pool)
    capacity = pool.gpu.get("capacity", {})
    gpus = int(capacity.get("gpusPerNode") or 1)
    product = PRODUCT_NAMES.get(str(capacity.get("gpuModel")), str(capacity.get("gpuModel")))
    memory_gb = int(capacity.get("gpuMemoryGb") or (model.memory_gb if model else 16))
    major, minor_cc = model.compute_capability if model else (8, 0)
    common = {
        "productName": {"string": product},
        "brand": {"string": "Nvidia"},
        "architecture": {"string": model.architecture if model else "Ampere"},
        "cudaComputeCapability": {"version": f"{major}.{minor_cc}.0"},
        "driverVersion": {"version": "570.172.8"},
        "cudaDriverVersion": {"version": "12.8.0"},
    }
    devices: list[dict[str, Any]] = []
    mig = _mig(pool)
    for minor in range(gpus):
        uuid = f"GPU-{pool.node_name}-{minor}"
        if not mig:
            attributes = {"type": {"string": "gpu"}, "uuid": {"string": uuid}, **common}
            devices.append(
                {"name": f"gpu-{minor}", "attributes": attributes, "capacity": {"memory": {"value": f"{memory_gb}Gi"}}}
            )
            continue
        placement = 0
        for profile, count in mig.items():
            info = model.mig_profiles[profile] if model else None
            size = info.memory_slices if info else 1
            for index in range(count):
                name = re.sub(r"[^a-z0-9-]", "-", profile.replace(".", "").lower())
                attributes = {
                    "type": {"string": "mig"},
                    "profile": {"string": profile},
                    "parentUUID": {"string": uuid},
                    "uuid": {"string": f"MIG-{uuid}-{profile}-{index}"},
                    **common,
                }
                mem = f"{info.memory_gb}Gi" if info is not None else "5Gi"
                devices.append(
                    {
                        "name": f"gpu-{minor}-mig-{name}-{index}-{placement}",
                        "attributes": attributes,
                        "capacity": {"memory": {"value": mem}},
                    }
                )
                placement += size
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{pool.node_name}-{DRA_DRIVER}"},
        "spec": {
            "driver": DRA_DRIVER,
            "nodeName": pool.node_name,
            "pool": {"name": pool.node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def dumps(obj: Any) -> str:
    """Compact JSON for messages."""
    return json.dumps(obj, sort_keys=True)
