"""``NvidiaDraDriver``: NVIDIA's DRA driver for the GPU pools of one cluster whose pods get GPUs through resource
claims (``gpu_access: dra``)."""

from collections.abc import Mapping
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired, TypedDict

from gpu_components.cloud_facts import facts_for
from gpu_components.enums import CloudArg, DraFeatureGateArg, value_of
from gpu_components.errors import GpuSpecError
from gpu_components.kubernetes.addon import (
    AddOnPools,
    OwnedValue,
    gpu_stack_problems,
    join_cluster,
    owned_value_problems,
    served_pools,
)
from gpu_components.nvidia.dra_driver import (
    DEFAULT_DRA_NAMESPACE,
    DRA_DRIVER_CHART,
    DRA_DRIVER_CHART_VERSION,
    EXTENDED_RESOURCE,
    dra_chart_version_note,
    dra_chart_version_problems,
    dra_driver_values,
    dra_helm_values_problems,
    dra_namespace_problems,
    driver_root,
    driver_root_problems,
    extended_resource_in_force,
    extended_resource_note,
    extended_resource_problems,
    feature_gate_problems,
    kubernetes_version_problems,
    static_mig_problems,
    version_number_hint,
)
from gpu_components.nvidia.mig import MIG_CONFIG_LABEL
from gpu_components.shape import plain
from gpu_components.spec import GpuNodePoolSpec

RELEASE_NAME = "dra-driver-nvidia-gpu"
"""Helm release name, the one the driver's install guide uses."""

DRA_DRIVER_OWNED_VALUES: tuple[OwnedValue, ...] = (
    OwnedValue(
        ("nvidiaDriverRoot",),
        "where the pools' NVIDIA driver lives on the host, from their cloud and driver owner",
        None,
    ),
    OwnedValue(
        ("gpuResourcesEnabledOverride",),
        "the library guarantees no device plugin runs on the driver's nodes, which is what the override states",
        None,
    ),
    OwnedValue(
        ("resourceApiVersion",),
        "the DeviceClasses must be of the resource.k8s.io API the claims are written in (resource.k8s.io/v1)",
        None,
    ),
    OwnedValue(("resources", "gpus", "enabled"), "the driver publishes the pools' GPUs", None),
    OwnedValue(("featureGates",), "the driver's feature gates, which the claim rules read", "feature_gates"),
    OwnedValue(
        ("kubeletPlugin", "affinity"),
        "the kubelet plugin runs only on the DRA pools, never beside a device plugin",
        None,
    ),
    OwnedValue(("kubeletPlugin", "tolerations"), "the kubelet plugin tolerates every taint of the DRA pools", None),
    OwnedValue(
        ("namespace",),
        "the chart refuses a 'namespace' value (templates/validation.yaml: use the release namespace)",
        "namespace",
    ),
)
"""DRA driver chart values the library decides, which ``helm_values`` may not set (nor replace their section)."""


class NvidiaDraDriverArgs(TypedDict):
    """Inputs of :class:`NvidiaDraDriver` (the fields of every add-on,
    :class:`~gpu_components.kubernetes.addon.GpuAddOnArgs`, and the DRA driver's own)."""

    pools: AddOnPools
    """The pools whose GPUs the DRA driver publishes: at least one, all of one cloud, with unique pool names. Each is
    a node-pool component built with gpu_stack ``dra`` and ``gpu_access`` ``dra`` or unset (Python only) or the pool
    as plain values, a cluster pool (:class:`~gpu_components.cluster.ClusterPoolArgs`, with its optional cloud block)
    on ``cloud``, taken as built with gpu_stack ``dra``; the two may be mixed. A pool whose GPUs a device plugin
    advertises (its node image's, its cloud's, the device plugin add-on's) is an error naming who advertises it."""
    kubernetes_version: str
    """The cluster's Kubernetes version, ``MAJOR.MINOR``: at least ``1.34``, where DRA's ``resource.k8s.io/v1`` API
    is GA."""
    cloud: NotRequired[CloudArg]
    """The cloud of the pools given as plain values: ``aws``, ``azure`` or ``gcp``. Required when any pool is a plain
    cluster pool; it must equal the cloud of the node-pool components given with them. Defaults to none."""
    feature_gates: NotRequired[list[DraFeatureGateArg]]
    """The driver's feature gates to turn on (alpha gates are off by default: ``TimeSlicingSettings``,
    ``MPSSupport``, ``DynamicMIG``, ...). Defaults to none. DynamicMIG is refused beside MIG pools (it destroys
    partitions it did not create), and so are gate pairs the driver refuses at start."""
    extended_resource: NotRequired[bool]
    """Whether the pools also serve plain ``nvidia.com/gpu`` requests (container limits, whole GPUs) through the
    driver's ``gpu.nvidia.com`` DeviceClass, whose ``extendedResourceName: nvidia.com/gpu`` the pinned chart always
    sets and Kubernetes honours from 1.36 (feature gate ``DRAExtendedResource``, KEP-5004). ``true`` is refused below
    1.36 (the gate is alpha and off there), ``false`` from 1.36 (no chart value leaves the name out), ``true`` where
    every pool has a static MIG layout (no whole GPU to serve:
    :func:`~gpu_components.nvidia.dra_driver.static_mig_problems`). Defaults to unset: in force from 1.36, with a
    warning saying so where a pool publishes whole GPUs
    (:func:`~gpu_components.nvidia.dra_driver.extended_resource_note`), off below."""
    namespace: NotRequired[str]
    """Namespace to create and install into (a DNS-1123 label). Defaults to ``dra-driver-nvidia-gpu``, the one the
    driver's install guide uses."""
    chart_version: NotRequired[str]
    """Version of the ``dra-driver-nvidia-gpu`` chart (``MAJOR.MINOR.PATCH``). Defaults to the pinned, tested ``0.4.1``.
    Another version is deployed as given with the values, feature gate names and owned keys of 0.4.1, its
    ``helm_values`` keys unchecked, and a warning saying so
    (:func:`~gpu_components.nvidia.dra_driver.dra_chart_version_note`)."""
    helm_values: NotRequired[dict[str, Any]]
    """Raw chart values merged over the rendered ones (escape hatch), e.g. ``resources.computeDomains.enabled`` for
    Multi-Node NVLink systems. Defaults to none. The values the library decides (``DRA_DRIVER_OWNED_VALUES``:
    ``nvidiaDriverRoot``, ``gpuResourcesEnabledOverride``, ``resources.gpus.enabled``, ``featureGates``,
    ``kubeletPlugin.affinity``, ``kubeletPlugin.tolerations``, ``namespace``) are refused. Under the pinned chart a key
    its templates never read is refused (top level, and inside the chart's own maps such as ``kubeletPlugin`` or
    ``controller.metrics``; not inside a value passed on whole, such as ``affinity`` or ``resources``:
    :func:`~gpu_components.nvidia.dra_driver.dra_helm_values_problems`)."""


class NvidiaDraDriver(pulumi.ComponentResource):
    """Namespace and the ``dra-driver-nvidia-gpu`` Helm release (NVIDIA's DRA driver for GPUs).

    The kubelet plugin DaemonSet is pinned by node affinity to the pools listed (node label ``gpu-components/pool``)
    and tolerates their taints; it publishes their GPUs (or MIG devices) to DRA in the DeviceClasses
    ``gpu.nvidia.com`` and ``mig.nvidia.com``. The chart's guard ``gpuResourcesEnabledOverride`` is set: no device
    plugin runs on those pools (the library's one-advertiser rule), which is what the guard asks to confirm. On a
    MIG pool whose partitions the GPU Operator's MIG manager makes (its nodes carry ``nvidia.com/mig.config``), the
    kubelet plugin starts only once the node's ``nvidia.com/mig.config.state`` is ``success``: driver v0.4.1 finds
    its devices at start only, and the MIG manager does not restart it
    (:func:`~gpu_components.nvidia.dra_driver.kubelet_plugin_node_selector_terms`). Where the cloud does not admit the
    chart's ``system-node-critical`` outside ``kube-system`` (GKE), the kubelet plugin gets the priority class GKE's
    DRA guide gives it: none (:attr:`~gpu_components.cloud_facts.DraFacts.kubelet_plugin_priority_class`).

    On a cloud whose DRA pools get their NVIDIA driver from the cloud's own installer DaemonSet
    (:attr:`~gpu_components.cloud_facts.DraFacts.driver_installer`: GKE, whose automatic driver installation is off on
    DRA pools), that manifest too, applied as is from its pinned URL: GKE's COS installer selects the nodes it serves
    itself (``cloud.google.com/gke-accelerator`` present, ``cloud.google.com/gke-gpu-driver-version`` absent) and
    tolerates every taint, so it needs no selection or toleration of the library's
    (the manifest at its pinned commit, ``gpu_components.gcp.facts.GKE_COS_DRIVER_INSTALLER``; GKE's DRA setup
    leaves the driver to a manual installation: https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra).
    One DRA driver per cluster (the one-GPU-stack rule) makes it one installer per cluster.

    Children: ``<name>-namespace``, ``<name>-release``, and on GKE ``<name>-driver-installer``
    (``kubernetes.yaml.v2.ConfigFile``). Providers: ``kubernetes``.

    Outputs: ``namespace``, ``release_name`` (known after deployment), ``pool_names``, ``extended_resource``
    (plain, known at preview; the policy pack reads them). Other attributes (plain values, known at preview, but
    ``release``): ``specs`` (the served pools), ``values`` (the chart values), ``tolerations`` (the kubelet
    plugin's), ``driver_installer`` (the ConfigFile, or ``None`` off GKE).

    Raises:
        GpuSpecError: every problem of the args at once (see
            :func:`~gpu_components.kubernetes.addon.served_pools`; the Kubernetes version, feature gates, chart
            version and owned values), before anything is registered.
    """

    namespace: pulumi.Output[str]
    """Namespace the DRA driver runs in."""
    release_name: pulumi.Output[str]
    """Name of the Helm release (``dra-driver-nvidia-gpu``)."""
    pool_names: list[str]
    """The names of the pools the driver serves, sorted."""
    extended_resource: str | None
    """``nvidia.com/gpu`` when the pools also serve plain ``nvidia.com/gpu`` requests (whole GPUs) through the
    driver's ``gpu.nvidia.com`` DeviceClass (the ``extended_resource`` arg true, or unset on Kubernetes 1.36 or
    later, and a served pool of whole GPUs: one without a static MIG layout), else null."""

    def __init__(self, name: str, args: NvidiaDraDriverArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        args = plain(args)
        mapping: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
        owned = owned_value_problems(DRA_DRIVER_OWNED_VALUES, mapping.get("helm_values"))
        owned += dra_helm_values_problems(mapping.get("helm_values"), mapping.get("chart_version"))
        owned += dra_chart_version_problems(mapping.get("chart_version"), "chart_version")
        owned += dra_namespace_problems(mapping.get("namespace"), mapping.get("helm_values"), "namespace")
        if mapping.get("kubernetes_version") is not None:  # missing or null: a shape problem of the args
            owned += kubernetes_version_problems(mapping["kubernetes_version"], "kubernetes_version")
            owned += extended_resource_problems(
                mapping.get("extended_resource"), mapping["kubernetes_version"], "extended_resource"
            )
        owned += gpu_stack_problems("NvidiaDraDriver", name, opts)
        try:
            served, settings = served_pools(name, NvidiaDraDriverArgs, args, "dra-driver", "dra", owned)
        except GpuSpecError as error:
            raise GpuSpecError(version_number_hint(error.problems, "kubernetes_version")) from None
        specs = served.specs
        gates = [value_of(gate) for gate in settings.get("feature_gates", [])]
        mig_pools = [(f"pools[{index}]", spec.name) for index, spec in enumerate(specs) if spec.mig is not None]
        roots = [(path, driver_root(served.cloud, value), value) for value, path, _ in served.driver_settings]
        problems = driver_root_problems(roots)
        problems += feature_gate_problems(gates, mig_pools, "feature_gates", settings.get("kubernetes_version"))
        problems += static_mig_problems(
            settings.get("extended_resource"),
            [(spec.name, spec.mig is not None) for spec in specs],
            "extended_resource",
        )
        if problems:
            raise GpuSpecError(problems)
        join_cluster("NvidiaDraDriver", name, opts)
        super().__init__("gpu-components:index:NvidiaDraDriver", name, None, opts)
        given, version = settings.get("extended_resource"), settings.get("kubernetes_version")
        whole_gpu_pools = [spec.name for spec in specs if spec.mig is None]
        notes = (
            dra_chart_version_note(settings.get("chart_version")),
            extended_resource_note(given, version, whole_gpu_pools),
        )
        for note in notes:
            if note is not None:
                pulumi.log.warn(note, resource=self)
        self.specs: tuple[GpuNodePoolSpec, ...] = specs
        self._given = served.pools
        self.extended_resource = (
            EXTENDED_RESOURCE if whole_gpu_pools and extended_resource_in_force(given, version) else None
        )
        self.pool_names = sorted(spec.name for spec in specs)
        dra_facts = facts_for(served.cloud).dra
        # Pools whose nodes the GPU Operator's MIG manager partitions: those whose nodes carry its selection label
        # nvidia.com/mig.config (each cloud's label function sets it on a DRA pool only where the MIG manager makes
        # the pool's MIG partitions, as gpu_components.cluster.needs_gpu_operator reads it).
        mig_manager_pools = [
            spec.name for pool, spec in zip(served.pools, specs, strict=True) if MIG_CONFIG_LABEL in pool.labels
        ]
        self.values: dict[str, Any] = dra_driver_values(
            specs,
            str(roots[0][1]),
            gates,
            served.node_taints,
            settings.get("helm_values"),
            mig_manager_pools=mig_manager_pools,
            kubelet_plugin_priority_class=dra_facts.kubelet_plugin_priority_class if dra_facts is not None else None,
        )
        self.tolerations: list[dict[str, str]] = self.values["kubeletPlugin"]["tolerations"]
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": settings.get("namespace", DEFAULT_DRA_NAMESPACE)},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release: k8s.helm.v3.Release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=DRA_DRIVER_CHART,
            version=settings.get("chart_version", DRA_DRIVER_CHART_VERSION),
            namespace=namespace.metadata.name,
            values=self.values,
            opts=pulumi.ResourceOptions(parent=self),
        )
        installer = dra_facts.driver_installer if dra_facts is not None else None
        # No ordering between the installer and the release: the kubelet plugin's init container waits, retrying
        # every 10 s, until the driver root holds the driver (hack/kubelet-plugin-prestart.sh at v0.4.1).
        self.driver_installer: k8s.yaml.v2.ConfigFile | None = (
            None
            if installer is None
            else k8s.yaml.v2.ConfigFile(
                f"{name}-driver-installer", file=installer, opts=pulumi.ResourceOptions(parent=self)
            )
        )
        self.namespace = namespace.metadata.name
        self.release_name = cast(pulumi.Output[str], self.release.name)  # always set: the library names the release
        self.register_outputs(
            {
                "namespace": self.namespace,
                "releaseName": self.release_name,
                "poolNames": self.pool_names,
                "extendedResource": self.extended_resource,
            }
        )

    def serves(self, pool: object) -> bool:
        """Whether the driver serves ``pool``, a node-pool component: one of the components it was given. A pool
        given to it as plain settings is not tied to any component (an equal pool of another cluster would match
        it too), so no component counts as served through it: give the driver the component itself."""
        return any(given is pool for given in self._given)

    def given_as_settings(self, pool: object) -> bool:
        """Whether the driver was given a pool with ``pool``'s settings as plain settings rather than as the
        node-pool component ``pool`` (which it then does not serve: :meth:`serves`)."""
        spec = getattr(pool, "spec", None)
        return any(
            not isinstance(given, pulumi.Resource) and served == spec
            for given, served in zip(self._given, self.specs, strict=True)
        )
