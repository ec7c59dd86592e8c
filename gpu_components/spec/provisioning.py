"""Provisioned pools (Karpenter, EKS Auto Mode, GKE ComputeClasses, AKS Node Auto Provisioning): the instance types
and GPU requirements a provisioner may choose from, limits, capacity types, startup taints
(:class:`Provisioning`).
"""

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gpu_components import catalog
from gpu_components.catalog import Cloud
from gpu_components.cloud_facts import ProvisionerFacts, all_cloud_facts, facts_for
from gpu_components.enums import (
    CapacityTypeName,
    ProvisionerName,
    RequirementOperatorName,
    value_of,
)
from gpu_components.errors import Problem
from gpu_components.labels import (
    GPU_TAINT_KEY,
    POST_BOOT_LABEL_PREFIXES,
    SOURCE_POST_BOOT_LABELS,
)
from gpu_components.spec.disruption import Disruption, _disruption
from gpu_components.spec.hardware import (
    _examples,
    _Hardware,
    _model_problems,
    _short_model_problems,
    fractional_gpu_types,
    fractional_problem,
)
from gpu_components.spec.names import Taint, _restricted_label_problems, label_key_problems, label_value_problems
from gpu_components.spec.shapes import GpuNodePoolArgs, ProvisioningArgs, _join, _suggestion, _unsupported_problems

NUMERIC_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
"""Requirement operators that compare a label's value as an integer (the NodePool CRD: a single value, an integer
>= 0)."""
SOURCE_STARTUP_TAINTS = "https://karpenter.sh/docs/concepts/nodepools/#cilium-startup-taint"


@dataclass(frozen=True, slots=True)
class GpuRequirement:
    """A validated GPU requirement of a provisioned pool (see :class:`GpuRequirementArgs`)."""

    key: str
    operator: RequirementOperatorName
    values: tuple[str, ...] = ()

    def to_node_selector(self) -> dict[str, object]:
        """The requirement as a NodePool's ``template.spec.requirements`` item: ``{key, operator, values}``, without
        ``values`` when there are none (``Exists``, ``DoesNotExist``)."""
        item: dict[str, object] = {"key": self.key, "operator": self.operator}
        if self.values:
            item["values"] = list(self.values)
        return item

    @property
    def text(self) -> str:
        """The requirement in words for a message: ``karpenter.k8s.aws/instance-gpu-name In [h100]``."""
        return f"{self.key} {self.operator}" + (f" [{', '.join(self.values)}]" if self.values else "")

    def admits(self, value: str) -> bool:
        """Whether a node whose label :attr:`key` is ``value`` meets the requirement (Kubernetes' node selector
        rules; the numeric operators compare integers)."""
        if self.operator in NUMERIC_OPERATORS:
            given, bound = int(value), int(self.values[0])
            return {"Gt": given > bound, "Lt": given < bound, "Gte": given >= bound, "Lte": given <= bound}[
                self.operator
            ]
        return {
            "In": value in self.values,
            "NotIn": value not in self.values,
            "Exists": True,
            "DoesNotExist": False,
        }[self.operator]


@dataclass(frozen=True, slots=True)
class Provisioning:
    """A provisioned pool's validated settings (see :class:`ProvisioningArgs`).

    Attributes:
        provisioner: ``karpenter``, ``eks-auto-mode``, ``compute-class`` or ``node-auto-provisioning``.
        instance_types: the types named: the pool's ``instance_type`` first, then ``provisioning.instance_types``.
        instance_families: the families named, as given.
        allowed_types: every catalog type the provisioner may choose: ``instance_types`` and the catalog's NVIDIA
            types of each family that ``gpu_requirements`` admit, in that order, each once.
        max_gpus, max_nodes: the limits given (``None`` when not).
        capacity_types: the capacity the nodes may use, defaults filled in.
        reservation: the capacity reservation of ``reserved`` capacity, else ``None``.
        disruption: when the provisioner may remove nodes.
        gpu_requirements: the requirements on the provisioner's GPU labels, as given (validated).
        startup_taints: the taints the nodes start with until an agent removes them.
    """

    provisioner: ProvisionerName
    instance_types: tuple[str, ...]
    instance_families: tuple[str, ...]
    allowed_types: tuple[str, ...]
    max_gpus: int | None
    max_nodes: int | None
    capacity_types: tuple[CapacityTypeName, ...]
    reservation: str | None
    disruption: Disruption
    gpu_requirements: tuple[GpuRequirement, ...] = ()
    startup_taints: tuple[Taint, ...] = ()


FIXED_POOL_SIZES: tuple[Literal["min_size", "max_size", "desired_size"], ...] = ("min_size", "max_size", "desired_size")
"""A fixed pool's node counts, which a provisioned pool does not take (its provisioner decides its nodes)."""


def _family_types(cloud: Cloud, family: str) -> tuple[str, ...]:
    separator = facts_for(cloud).instance_family_separator
    return tuple(
        t.name
        for t in catalog.instance_types(cloud)
        if separator is not None and t.gpu_vendor == "nvidia" and t.name.partition(separator)[0] == family
    )


def _families(cloud: Cloud) -> list[str]:
    separator = facts_for(cloud).instance_family_separator
    if separator is None:
        return []
    names = (t.name.partition(separator)[0] for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia")
    return sorted(set(names))


def _allowed_types(
    given: ProvisioningArgs, cloud: Cloud, first: str, where: str
) -> tuple[tuple[str, ...], tuple[str, ...], list[Problem]]:
    """The named types (``first`` and ``instance_types``) and every allowed type, with the problems of both lists."""
    problems: list[Problem] = []
    named = [first]
    for index, name in enumerate(given.get("instance_types", [])):
        at = f"{where}.instance_types[{index}]"
        known = catalog.find_instance_type(cloud, name)
        fractional = fractional_gpu_types(cloud, name)
        if name in named:
            problems.append(Problem(at, name, "already allowed (the pool's instance_type or an earlier entry)"))
        elif fractional is not None:
            problems.append(fractional_problem(fractional, name, at))
        elif known is None or known.gpu_vendor != "nvidia":
            nvidia = [t.name for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia"]
            suggestions = difflib.get_close_matches(name, nvidia) if known is None else []
            why = "unknown" if known is None else f"not an NVIDIA GPU type ({known.gpu_description})"
            problems.append(
                Problem(
                    at,
                    name,
                    f"{why}: a provisioned pool allows catalog NVIDIA {cloud} instance types only",
                    ", ".join(suggestions) or _examples(cloud),
                )
            )
        else:
            named.append(name)
    allowed = list(named)
    families = given.get("instance_families", [])
    valid = _families(cloud)
    for index, family in enumerate(families):
        at = f"{where}.instance_families[{index}]"
        if not valid:
            problems.append(
                Problem(
                    at,
                    family,
                    f"instance families are not named on {cloud}: list the instance types",
                    f"{where}.instance_types",
                )
            )
        elif fractional := next((r for r in facts_for(cloud).fractional_gpu_types if family in r.families), None):
            problems.append(fractional_problem(fractional, family, at))
        elif family not in valid:
            problems.append(
                Problem(
                    at, family, f"unknown {cloud} GPU instance family" + _suggestion(family, valid), ", ".join(valid)
                )
            )
        elif family in families[:index]:
            problems.append(Problem(at, family, "already allowed by an earlier entry"))
        else:
            allowed += [name for name in _family_types(cloud, family) if name not in allowed]
    return tuple(named), tuple(allowed), problems


def _requirement_key_problems(
    key: str, facts: ProvisionerFacts, provisioner: ProvisionerName, here: str
) -> list[Problem]:
    """A requirement key that is not one of the provisioner's GPU labels: another provisioner's (naming this one's
    label of the same kind), a label set only after the node boots, or any other key."""
    ours = facts.gpu_labels()
    if key in ours.values():
        return []
    valid = ", ".join(ours.values())
    source = facts.requirements_source or None
    others = [
        (name, kind)
        for cloud_facts in all_cloud_facts()
        for name, other in cloud_facts.provisioners.items()
        for kind, label in other.gpu_labels().items()
        if label == key and name != provisioner
    ]
    if others:
        name, kind = others[0]
        right = f"{provisioner}'s is {ours[kind]}" if kind in ours else f"{provisioner} sets no GPU {kind} label"
        return [Problem(f"{here}.key", key, f"{key} is the GPU {kind} label of {name}; {right}", valid, source)]
    prefix = next((p for p in POST_BOOT_LABEL_PREFIXES if key.startswith(p)), None)
    if prefix is not None:
        return [
            Problem(
                f"{here}.key",
                key,
                f"{POST_BOOT_LABEL_PREFIXES[prefix]} sets {prefix}* labels on a node only after it boots, while "
                f"{provisioner} chooses the instance type before the node exists, from its own labels of each type: "
                "it cannot choose GPUs by them",
                valid,
                SOURCE_POST_BOOT_LABELS,
            )
        ]
    return [
        Problem(
            f"{here}.key",
            key,
            f"not a GPU label of {provisioner}" + _suggestion(key, list(ours.values())),
            valid,
            source,
        )
    ]


def _name_values(cloud: Cloud, facts: ProvisionerFacts) -> list[str]:
    """The GPU name label values of the cloud's catalog NVIDIA types that the library knows (as the provisioner
    spells them), sorted."""
    names = (facts.gpu_name_value(t.name) for t in catalog.instance_types(cloud) if t.gpu_vendor == "nvidia")
    return sorted({name for name in names if name is not None})


def _requirement_value_problems(
    requirement: GpuRequirement, kind: str, cloud: Cloud, facts: ProvisionerFacts, here: str
) -> list[Problem]:
    """Values of a requirement on the provisioner's GPU label of ``kind`` that the label never has: GPU names as the
    provisioner spells them, whole numbers for counts and MiB, the NVIDIA manufacturer value."""
    source = facts.requirements_source or None
    problems: list[Problem] = []
    for index, value in enumerate(requirement.values):
        at = f"{here}.values[{index}]"
        if kind == "name":
            known = _name_values(cloud, facts)
            if value not in known:
                message = f"not a {requirement.key} value of the catalog's {cloud} NVIDIA types" + _suggestion(
                    value, known
                )
                problems.append(Problem(at, value, message, ", ".join(known), facts.values_source or source))
        elif kind in ("count", "memory") and not value.isdigit():
            unit = "GPUs per node" if kind == "count" else "MiB of one GPU's memory"
            example = "2" if kind == "count" else "81920 (80 GiB)"
            problems.append(
                Problem(
                    at,
                    value,
                    f"{requirement.key} is a whole number ({unit})",
                    f"a whole number, e.g. {example}",
                    source,
                )
            )
        elif kind == "manufacturer" and value != facts.gpu_manufacturer_value:
            right = facts.gpu_manufacturer_value
            hint = f"; did you mean {right!r}?" if value.lower() == right else ""
            message = f"the pool's GPUs are NVIDIA's, whose {requirement.key} is {right}" + hint
            problems.append(Problem(at, value, message, right, source))
    return problems


def _requirement_problems(
    requirement: GpuRequirement, cloud: Cloud, facts: ProvisionerFacts, provisioner: ProvisionerName, here: str
) -> list[Problem]:
    """Problems of one GPU requirement of a provisioned pool: its key (:func:`_requirement_key_problems`), its
    operator (one the provisioner's NodePool takes; the numeric ones on counts and memory only), how many values the
    operator takes (the NodePool CRD's rules), and each value (:func:`_requirement_value_problems`)."""
    problems = _requirement_key_problems(requirement.key, facts, provisioner, here)
    if problems:
        return problems
    kind = {label: kind for kind, label in facts.gpu_labels().items()}[requirement.key]
    operator = requirement.operator
    source = facts.requirements_source or None
    if operator not in facts.requirement_operators:
        problems.append(
            Problem(
                f"{here}.operator",
                operator,
                f"not an operator of {provisioner}'s NodePool requirements",
                ", ".join(facts.requirement_operators),
                source,
            )
        )
    elif operator in NUMERIC_OPERATORS and kind not in ("count", "memory"):
        problems.append(
            Problem(
                f"{here}.operator",
                operator,
                f"{operator} compares whole numbers, and {requirement.key} is a {kind}",
                "In, NotIn, Exists, DoesNotExist",
                source,
            )
        )
    count = len(requirement.values)
    if operator in ("In", "NotIn") and count == 0:
        problems.append(Problem(f"{here}.values", [], f"{operator} needs at least one value", ">= 1 value", source))
    elif operator in ("Exists", "DoesNotExist") and count:
        problems.append(
            Problem(f"{here}.values", list(requirement.values), f"{operator} takes no values", "none", source)
        )
    elif operator in NUMERIC_OPERATORS and count != 1:
        valid = "one whole number"
        problems.append(
            Problem(f"{here}.values", list(requirement.values), f"{operator} takes one value", valid, source)
        )
    return problems + _requirement_value_problems(requirement, kind, cloud, facts, here)


def _gpu_requirements(
    given: ProvisioningArgs,
    cloud: Cloud,
    provisioner: ProvisionerName,
    types: tuple[tuple[str, ...], tuple[str, ...]],
    first_count: int | None,
    paths: tuple[str, str],
) -> tuple[tuple[GpuRequirement, ...], tuple[str, ...], list[Problem]]:
    """The validated ``provisioning.gpu_requirements`` of a pool and the allowed types they admit.

    ``types`` is (the named types: ``instance_type`` then ``instance_types``; every allowed type), ``first_count``
    the GPUs of a node of the first (``None`` when the pool's types have problems of their own: the requirements are
    then checked, but no type is filtered), ``paths`` (the pool's path, its ``provisioning``'s); none of a
    ``provisioner`` the cloud does not offer (reported by :func:`_provisioning`). Each type is checked
    against each requirement with the label values the provisioner gives its nodes (:class:`ProvisionerFacts`: GPU
    name and memory per type, the catalog's GPU count, the NVIDIA manufacturer value). A named type a requirement
    excludes is a problem naming both; a family's types it excludes are left out (the pool's ``instance_type``
    always stays, so no pool is left without types); a type whose label value the library does not know is a
    problem, never a guess.
    """
    items = given.get("gpu_requirements")
    named, allowed = types
    path, where = paths
    facts = facts_for(cloud).provisioners.get(provisioner)
    if not items or facts is None:
        return (), allowed, []
    at = f"{where}.gpu_requirements"
    if facts.requirements_refused:
        return (
            (),
            allowed,
            [
                Problem(
                    at,
                    [dict(item) for item in items],
                    f"{provisioner} pools take no GPU requirements: {facts.requirements_refused}",
                    None,
                    facts.requirements_source or None,
                )
            ],
        )
    requirements = tuple(
        GpuRequirement(item["key"], value_of(item["operator"]), tuple(item.get("values", []))) for item in items
    )
    problems = [
        problem
        for index, requirement in enumerate(requirements)
        for problem in _requirement_problems(requirement, cloud, facts, provisioner, f"{at}[{index}]")
    ]
    if problems or first_count is None:
        return requirements, allowed, problems
    kinds = {label: kind for kind, label in facts.gpu_labels().items()}
    named_paths = {named[0]: _join(path, "instance_type")} | {
        name: f"{where}.instance_types[{index}]" for index, name in enumerate(named[1:])
    }
    kept: list[str] = []
    for name in allowed:
        memory = facts.gpu_memory_mib(name)
        values = {
            "name": facts.gpu_name_value(name),
            "count": str(first_count if name == allowed[0] else catalog.instance_type(cloud, name).gpu_count),
            "memory": str(memory) if memory is not None else None,
            "manufacturer": facts.gpu_manufacturer_value,
        }
        admitted = True
        for index, requirement in enumerate(requirements):
            value = values[kinds[requirement.key]]
            if value is None:
                problems.append(
                    Problem(
                        f"{at}[{index}]",
                        requirement.to_node_selector(),
                        f"the library does not know the {requirement.key} value {provisioner} gives nodes of {name}, "
                        "so it cannot tell whether the requirement admits them",
                        "requirements on labels whose values the library knows for every allowed type",
                        facts.values_source or None,
                    )
                )
                admitted = False
            elif admitted and not requirement.admits(value):
                admitted = False
                if name in named_paths:
                    problems.append(
                        Problem(
                            named_paths[name],
                            name,
                            f"excluded by {at}[{index}] ({requirement.text}): {name}'s {requirement.key} is {value}; "
                            "drop the type or change the requirement",
                            None,
                            facts.requirements_source or None,
                        )
                    )
        if admitted:
            kept.append(name)
    return requirements, tuple(kept), problems


def _limit_problems(
    given: ProvisioningArgs, cloud: Cloud, allowed: Sequence[str], first_count: int, where: str
) -> list[Problem]:
    if "max_gpus" not in given and "max_nodes" not in given:
        return [Problem(f"{where}.max_gpus", None, "a provisioned pool needs a limit: max_gpus, max_nodes or both")]
    problems: list[Problem] = []
    if "max_nodes" in given and given["max_nodes"] < 1:
        problems.append(Problem(f"{where}.max_nodes", given["max_nodes"], "a pool needs room for one node", ">= 1"))
    if "max_gpus" in given:
        counts = {allowed[0]: first_count} | {n: catalog.instance_type(cloud, n).gpu_count for n in allowed[1:]}
        too_big = [
            f"{name} ({count} GPU{'' if count == 1 else 's'})"
            for name, count in counts.items()
            if count > given["max_gpus"]
        ]
        if too_big:
            problems.append(
                Problem(
                    f"{where}.max_gpus",
                    given["max_gpus"],
                    f"below one node of {', '.join(too_big)}: the provisioner could never create such a node; raise "
                    "the limit or drop those types",
                    f">= {max(counts.values())}",
                )
            )
    return problems


UNRESERVED_PROVISIONERS: tuple[ProvisionerName, ...] = ("node-auto-provisioning",)
"""Provisioners that launch no reserved capacity at all (AKS Node Auto Provisioning: spot and on-demand only). Their
own rules refuse ``reserved`` among ``capacity_types`` (``azure.nap.NAP_CAPACITY_TYPES``), so a missing
``reservation`` is not reported beside that: it would point at a field that cannot help."""


def _capacity(
    args: GpuNodePoolArgs, given: ProvisioningArgs, path: str, where: str, provisioner: ProvisionerName
) -> tuple[tuple[CapacityTypeName, ...], list[Problem]]:
    problems: list[Problem] = []
    types: tuple[CapacityTypeName, ...] = ("spot",) if args.get("spot") else ("on-demand",)
    if "capacity_types" in given:
        types = tuple(value_of(t) for t in given["capacity_types"])
        at = f"{where}.capacity_types"
        if "spot" in args:
            problems.append(
                Problem(
                    _join(path, "spot"),
                    args["spot"],
                    "a provisioned pool says its capacity in provisioning.capacity_types; give one, not both",
                )
            )
        if not types:
            problems.append(Problem(at, [], "at least one capacity type", "on-demand, spot, reserved"))
        problems += [Problem(f"{at}[{i}]", name, "given twice") for i, name in enumerate(types) if name in types[:i]]
    if "reserved" in types and "reservation" not in given and provisioner not in UNRESERVED_PROVISIONERS:
        problems.append(Problem(f"{where}.reservation", None, "reserved capacity needs the reservation it comes from"))
    if "reservation" in given and "reserved" not in types:
        problems.append(
            Problem(
                f"{where}.reservation",
                given["reservation"],
                "a reservation is used only with reserved among capacity_types; add reserved or drop it",
            )
        )
    return types, problems


def _startup_taints(
    given: ProvisioningArgs, taints: Sequence[Taint], where: str
) -> tuple[tuple[Taint, ...], list[Problem]]:
    """Validated ``provisioning.startup_taints``: each a valid taint, given once (key and effect), never the GPU
    taint's key (a taint pods must tolerate, which no agent removes) nor the key of one of the pool's ``taints``
    (the node would carry both, and removing the startup taint would leave the other)."""
    problems: list[Problem] = []
    result: list[Taint] = []
    for index, item in enumerate(given.get("startup_taints", [])):
        at = f"{where}.startup_taints[{index}]"
        taint = Taint.from_args(item)
        problems += label_key_problems(taint.key, f"{at}.key")
        problems += label_value_problems(taint.value, f"{at}.value")
        if taint.key == GPU_TAINT_KEY:
            problems.append(
                Problem(
                    f"{at}.key",
                    taint.key,
                    "the GPU taint is never a startup taint: it stays on GPU nodes so only pods that tolerate it "
                    "land there, and no agent removes it",
                    "another key (the GPU taint is the pool's gpu_taint)",
                    SOURCE_STARTUP_TAINTS,
                )
            )
        elif any(t.key == taint.key for t in taints):
            problems.append(
                Problem(
                    f"{at}.key",
                    taint.key,
                    "already a key of the pool's taints, which stay on the nodes: as a startup taint too the node "
                    "would keep one after the agent removes the other",
                    "a key none of the pool's taints has",
                    SOURCE_STARTUP_TAINTS,
                )
            )
        elif any((t.key, t.effect) == (taint.key, taint.effect) for t in result):
            problems.append(Problem(at, dict(item), "a startup taint with this key and effect is already given"))
        result.append(taint)
    return tuple(result), problems


def _provisioning(
    args: GpuNodePoolArgs, cloud: Cloud, hardware: "_Hardware", taints: Sequence[Taint], path: str
) -> tuple[Provisioning | None, list[Problem]]:
    """The validated ``provisioning`` of a pool (``None`` for a fixed pool), and its problems; a provisioned pool
    takes no fixed pool node counts."""
    given = args.get("provisioning")
    if given is None:
        return None, []
    where = _join(path, "provisioning")
    problems = [
        Problem(
            _join(path, key),
            args[key],
            "a provisioned pool has no fixed node counts: its provisioner creates nodes for pending pods within "
            "provisioning.max_gpus / max_nodes",
        )
        for key in FIXED_POOL_SIZES
        if key in args
    ]
    provisioner: ProvisionerName = value_of(given["provisioner"])
    offered = facts_for(cloud).provisioners
    if provisioner not in offered:
        problems.append(
            Problem(
                f"{where}.provisioner",
                provisioner,
                f"not a provisioner of {facts_for(cloud).service}",
                ", ".join(offered),
                "; ".join(f.source for f in offered.values()) or None,
            )
        )
    if provisioner in offered:
        # Keys under the cloud's own reserved prefixes are reported by _cloud_reserved_problems already.
        reserved = facts_for(cloud).reserved_prefixes
        labels = {
            key: value
            for key, value in args.get("labels", {}).items()
            if reserved is None or not key.startswith(reserved.prefixes)
        }
        problems += _restricted_label_problems(labels, offered[provisioner], provisioner, path)
    named, allowed, found = _allowed_types(given, cloud, args["instance_type"], where)
    problems += found
    types_known = hardware.gpu is not None and not found
    first_count = hardware.gpu_count if types_known else None
    requirements, allowed, found = _gpu_requirements(
        given, cloud, provisioner, (named, allowed), first_count, (path, where)
    )
    problems += found
    if hardware.gpu is not None and types_known and not found:
        problems += _model_problems(args, cloud, allowed, hardware, where)
        problems += _limit_problems(given, cloud, allowed, hardware.gpu_count, where)
        problems += _short_model_problems(args, cloud, allowed, hardware.gpu, path)
    capacity_types, found = _capacity(args, given, path, where, provisioner)
    problems += found
    disruption, found = _disruption(given, where)
    problems += found
    if provisioner in offered:
        problems += _unsupported_problems(given, offered[provisioner], provisioner, where)
    startup_taints, found = _startup_taints(given, taints, where)
    problems += found
    return (
        Provisioning(
            provisioner=provisioner,
            instance_types=named,
            instance_families=tuple(given.get("instance_families", [])),
            allowed_types=allowed,
            max_gpus=given.get("max_gpus"),
            max_nodes=given.get("max_nodes"),
            capacity_types=capacity_types,
            reservation=given.get("reservation"),
            disruption=disruption,
            gpu_requirements=requirements,
            startup_taints=startup_taints,
        ),
        problems,
    )


def _provisioned_max_nodes(provisioning: Provisioning, gpu_count: int) -> int:
    """Most nodes of a provisioned pool: ``max_nodes``, else as many nodes of its first type as ``max_gpus`` holds."""
    if provisioning.max_nodes is not None:
        return provisioning.max_nodes
    return (provisioning.max_gpus or 0) // max(gpu_count, 1)
