"""Pool names, node labels and taints: the Kubernetes naming rules (DNS-1123 labels, qualified label names and
values), the labels the library reserves, the cloud's own reserved labels, and the pool's taints (:class:`Taint`).
"""

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import ProvisionerFacts, all_cloud_facts, facts_for
from gpu_components.enums import (
    MigStrategyName,
    TaintEffectName,
    value_of,
)
from gpu_components.errors import Problem
from gpu_components.labels import (
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    OPERAND_LABEL_PREFIX,
    RESERVED_LABEL_PREFIXES,
    RESERVED_LABELS,
    RESERVED_LIBRARY_LABEL_PREFIXES,
    SHARING_TRUST_KEY,
    SOURCE_LABELS,
    SOURCE_TAINTS,
)
from gpu_components.spec.shapes import GpuNodePoolArgs, TaintArgs, _join

TaintEffect = TaintEffectName
"""A taint effect's value, as the library's code is typed (the schema's enum:
:class:`gpu_components.enums.TaintEffect`)."""
MigStrategy = MigStrategyName
"""A MIG strategy's value, as the library's code is typed (the schema's enum:
:class:`gpu_components.enums.MigStrategy`)."""


if TYPE_CHECKING:
    _TaintEffectField = TaintEffect
else:  # what Pulumi's analyzer reads of a Taint output: the schema's enum (the value is always a plain string)
    from gpu_components.enums import TaintEffect as _TaintEffectField

RESERVED_POOL_NAMES = frozenset({"default"})
"""Pool names the library uses itself: ``default`` names the device plugin's default config entry."""
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
"""A DNS-1123 label: what Kubernetes object names (and namespaces) built from a pool name must be."""
MAX_POOL_NAME_LENGTH = 50
"""Longest pool name: 63 (DNS-1123 label) less the longest suffix the library appends (``-vectoradd``, and room)."""
SOURCE_NAMES = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names"
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_TAINT_FIELDS = ("key", "value", "effect")
_RESERVED_SUBDOMAINS = tuple("." + prefix.rstrip("/") for prefix in RESERVED_LABEL_PREFIXES)
"""The subdomains of the reserved label prefixes (``.kubernetes.io``, ``.k8s.io``): reserved too."""


@dataclass(frozen=True, slots=True)
class Taint(Mapping[str, str]):
    """A validated node taint in Kubernetes spelling. Read-only, it is also the mapping ``{"key", "value",
    "effect"}`` (:meth:`to_args`), the form Pulumi serializes it in (a node-pool component's ``taints`` output)."""

    key: str
    """The taint's key, e.g. ``nvidia.com/gpu``."""
    value: str
    """The taint's value; ``""`` when the taint has none."""
    effect: _TaintEffectField
    """``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``."""

    @classmethod
    def from_args(cls, args: TaintArgs) -> "Taint":
        """The taint of a :class:`TaintArgs` (a missing ``value`` becomes ``""``); checked by the pool rules."""
        return cls(args["key"], args.get("value", ""), value_of(args["effect"]))

    def to_args(self) -> TaintArgs:
        """This taint as :class:`TaintArgs`, the shape component args take."""
        return {"key": self.key, "value": self.value, "effect": self.effect}

    def as_given(self) -> dict[str, str]:
        """The taint as a pool's ``taints`` item gives it, for an error: ``{"key", "value", "effect"}``, without
        ``value`` when it is empty."""
        given = {"key": self.key, "value": self.value, "effect": self.effect}
        return given if self.value else {"key": self.key, "effect": self.effect}

    @property
    def text(self) -> str:
        """The taint as ``kubectl taint`` writes it: ``key=value:Effect``, or ``key:Effect`` without a value
        (``nvidia.com/gpu=present:NoSchedule``). Source: :data:`SOURCE_TAINTS`."""
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def __getitem__(self, name: str) -> str:
        if name not in _TAINT_FIELDS:
            raise KeyError(name)
        return str(getattr(self, name))

    def __iter__(self) -> Iterator[str]:
        return iter(_TAINT_FIELDS)

    def __len__(self) -> int:
        return len(_TAINT_FIELDS)


DEFAULT_GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT)
"""The taint every GPU pool carries unless ``gpu_taint`` is False: ``nvidia.com/gpu=present:NoSchedule``."""


def name_problems(name: str, cloud: Cloud, path: str) -> list[Problem]:
    """Problems with a pool name: the cloud's pool-name rule and a DNS-1123 label (it names Kubernetes objects and
    label values), not reserved. A name that breaks both rules is one problem giving both, so one fix meets both."""
    problems: list[Problem] = []
    rule = facts_for(cloud).pool_name
    cloud_ok = bool(name) and len(name) <= rule.max_length and rule.pattern.fullmatch(name) is not None
    dns_ok = DNS_LABEL.fullmatch(name) is not None and len(name) <= MAX_POOL_NAME_LENGTH
    dns_message = "pool names also name Kubernetes objects and label values, so they must be DNS-1123 labels"
    dns_valid = f"1-{MAX_POOL_NAME_LENGTH} lowercase letters, digits or '-', starting and ending alphanumeric"
    if not cloud_ok and not dns_ok:
        problems.append(
            Problem(
                path,
                name,
                f"not a valid {cloud} node pool name, and {dns_message}",
                f"{rule.valid}; and {dns_valid}",
                f"{rule.source}; {SOURCE_NAMES}",
            )
        )
    elif not cloud_ok:
        problems.append(Problem(path, name, f"not a valid {cloud} node pool name", rule.valid, rule.source))
    elif not dns_ok:
        problems.append(Problem(path, name, dns_message, dns_valid, SOURCE_NAMES))
    if name in RESERVED_POOL_NAMES:
        problems.append(
            Problem(path, name, "reserved: it names the device plugin's default config entry", "any other name")
        )
    return problems


def label_key_problems(key: str, path: str) -> list[Problem]:
    """Problems with a label or taint key: ``[prefix/]name`` with a DNS-subdomain prefix (Kubernetes rule)."""
    prefix, _, name = key.rpartition("/")
    valid = "[DNS subdomain prefix (<= 253 chars) '/'] name (<= 63 chars: alphanumerics, '-', '_', '.')"
    if (prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix))) or (
        len(name) > 63 or not _LABEL_NAME.fullmatch(name)
    ):
        return [Problem(path, key, "not a valid qualified name", valid, SOURCE_LABELS)]
    return []


def label_value_problems(value: str, path: str) -> list[Problem]:
    """Problems with a label or taint value (Kubernetes rule: <= 63 chars, alphanumeric at both ends)."""
    if len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        valid = "<= 63 chars: alphanumerics, '-', '_', '.', starting and ending alphanumeric (or empty)"
        return [Problem(path, value, "not a valid label value", valid, SOURCE_LABELS)]
    return []


@functools.cache
def reserved_labels() -> frozenset[str]:
    """Every node label the library sets itself: :data:`RESERVED_LABELS` and the labels it sets on the GPU Operator's
    nodes on any cloud (:attr:`~gpu_components.cloud_facts.GpuOperatorFacts.node_labels`, e.g. GKE's
    ``gke-no-default-nvidia-gpu-device-plugin``)."""
    return RESERVED_LABELS | {label for facts in all_cloud_facts() for label in facts.gpu_operator.node_labels}


def _label_problems(labels: Mapping[str, str], path: str) -> list[Problem]:
    problems: list[Problem] = []
    for key, value in labels.items():
        where = f"{path}[{key!r}]"
        problems += label_key_problems(key, where)
        problems += label_value_problems(value, where)
        if key == SHARING_TRUST_KEY:
            problems.append(
                Problem(
                    where,
                    key,
                    "set by gpu_components itself on pools whose sharing is declared trusted",
                    "time_slicing: {trusted: true} or mps: {trusted: true}",
                )
            )
        elif key in reserved_labels():
            problems.append(Problem(where, key, "set by gpu_components itself", "any other label key"))
        elif key.startswith(RESERVED_LIBRARY_LABEL_PREFIXES):
            problems.append(
                Problem(
                    where,
                    key,
                    f"set by gpu_components itself: the {OPERAND_LABEL_PREFIX}* labels switch the GPU Operator's "
                    "operands on or off per node",
                    "a key under another prefix",
                )
            )
        elif key.startswith(RESERVED_LABEL_PREFIXES) or key.split("/")[0].endswith(_RESERVED_SUBDOMAINS):
            problems.append(
                Problem(
                    where,
                    key,
                    "the kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
                    "a key under your own prefix",
                    SOURCE_LABELS,
                )
            )
    return problems


def _cloud_reserved_problems(
    labels: Mapping[str, str], taints: Sequence[TaintArgs], cloud: Cloud, path: str
) -> list[Problem]:
    """Label (and, where the cloud says so, taint) keys under a prefix the cloud's node-pool API keeps for itself."""
    reserved = facts_for(cloud).reserved_prefixes
    if reserved is None:
        return []
    service = facts_for(cloud).service
    # Label keys under Kubernetes' own prefixes are reported by the label rules already.
    keys = [(f"{_join(path, 'labels')}[{key!r}]", key) for key in labels if not key.startswith(RESERVED_LABEL_PREFIXES)]
    if reserved.taints:
        keys += [(f"{_join(path, 'taints')}[{index}].key", taint["key"]) for index, taint in enumerate(taints)]
    return [
        Problem(
            where,
            key,
            f"{service} refuses keys under {', '.join(reserved.prefixes)} in node pools",
            "a key under your own prefix",
            reserved.source,
        )
        for where, key in keys
        if key.startswith(reserved.prefixes)
    ]


def _taints(args: GpuNodePoolArgs, path: str) -> tuple[tuple[Taint, ...], list[Problem]]:
    problems: list[Problem] = []
    taints: list[Taint] = [DEFAULT_GPU_TAINT] if args.get("gpu_taint", True) else []
    for index, given in enumerate(args.get("taints", [])):
        where = f"{_join(path, 'taints')}[{index}]"
        taint = Taint.from_args(given)
        problems += label_key_problems(taint.key, f"{where}.key")
        problems += label_value_problems(taint.value, f"{where}.value")
        clash = [t for t in taints if (t.key, t.effect) == (taint.key, taint.effect)]
        if clash:
            message = (
                "duplicates the default GPU taint; set gpu_taint: false to replace it"
                if clash[0] == DEFAULT_GPU_TAINT
                else "a taint with this key and effect is already given"
            )
            problems.append(Problem(where, dict(given), message, None, SOURCE_TAINTS))
        taints.append(taint)
    return tuple(taints), problems


def _restricted_label_problems(
    labels: Mapping[str, str], facts: ProvisionerFacts, provisioner: str, path: str
) -> list[Problem]:
    """A provisioned pool's labels its provisioner's NodePool CRD refuses, by its rules on
    ``template.metadata.labels``: a key whose domain part (before its ``/``, or the whole key without one) ends with
    a restricted domain (the CRD's ``!x.find("^([^/]+)").endsWith(domain)``), and the plain keys it names
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.restricted_label_domains`, ``restricted_labels``); a key
    the domain rule lets through but the library sets, or another rule refuses, gets its own reason
    (:attr:`~gpu_components.cloud_facts.ProvisionerFacts.label_reasons`)."""
    domains = facts.restricted_label_domains
    valid = "a label whose domain does not end with " + ", ".join(domains)
    if facts.restricted_labels:
        valid += ", other than " + ", ".join(facts.restricted_labels)
    problems: list[Problem] = []
    for key in labels:
        where = f"{_join(path, 'labels')}[{key!r}]"
        hit = next((d for d in domains if key.partition("/")[0].endswith(d)), None)
        if key in facts.label_reasons:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label {key} may not be set on {provisioner} NodePools: {facts.label_reasons[key]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
        elif hit is not None:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label domain {hit} is restricted on {provisioner} NodePools: the NodePool CRD refuses a key "
                    f"whose domain (the part before '/', or the whole key without one) ends with {hit}, as "
                    f"{domains[hit]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
        elif key in facts.restricted_labels:
            problems.append(
                Problem(
                    where,
                    key,
                    f"label {key} is restricted on {provisioner} NodePools: the NodePool CRD refuses it, as "
                    f"{facts.restricted_labels[key]}",
                    valid,
                    facts.restricted_labels_source,
                )
            )
    return problems
