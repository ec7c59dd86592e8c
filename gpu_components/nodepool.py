"""The parts of a Karpenter ``karpenter.sh/v1`` NodePool every Karpenter-based provisioner renders alike (Karpenter on
EKS, EKS Auto Mode, AKS Node Auto Provisioning): taints, startup taints, expiry, termination grace period, and the
``disruption`` block with its budgets.

The field names and enum values are the NodePool CRD's (:data:`~gpu_components.spec.SOURCE_NODEPOOL_CRD`); the
library's own spellings (``when-empty``, ``drifted``) are mapped here, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from gpu_components.spec import DISRUPTION_REASONS, Provisioning, Taint

CONSOLIDATION_POLICIES: Mapping[str, str] = MappingProxyType(
    {"when-empty": "WhenEmpty", "when-empty-or-underutilized": "WhenEmptyOrUnderutilized"}
)
"""``provisioning.disruption.consolidation`` -> NodePool ``disruption.consolidationPolicy``."""


def taint_items(taints: Sequence[Taint]) -> list[dict[str, str]]:
    """Taints as NodePool ``template.spec.taints`` / ``startupTaints`` items (no ``value`` when a taint has none)."""
    return [{"key": t.key, **({"value": t.value} if t.value else {}), "effect": t.effect} for t in taints]


def template_disruption(provisioning: Provisioning) -> dict[str, Any]:
    """The NodePool ``template.spec`` fields of a pool's node lifecycle, each only when the pool gives it:
    ``startupTaints`` (``provisioning.startup_taints``), ``expireAfter`` (``disruption.expire_after``; left out, the
    provisioner's default applies) and ``terminationGracePeriod`` (``disruption.termination_grace_period``)."""
    result: dict[str, Any] = {}
    if provisioning.startup_taints:
        result["startupTaints"] = taint_items(provisioning.startup_taints)
    disruption = provisioning.disruption
    if disruption.expire_after is not None:
        result["expireAfter"] = disruption.expire_after
    if disruption.termination_grace_period is not None:
        result["terminationGracePeriod"] = disruption.termination_grace_period
    return result


def disruption(provisioning: Provisioning) -> dict[str, Any]:
    """The NodePool ``disruption`` block: ``consolidationPolicy``, ``consolidateAfter``, and ``budgets`` when the
    pool gives any (each ``nodes``, then ``reasons`` in the CRD's spelling, ``schedule`` and ``duration`` when
    given)."""
    given = provisioning.disruption
    result: dict[str, Any] = {
        "consolidationPolicy": CONSOLIDATION_POLICIES[given.consolidation],
        "consolidateAfter": given.consolidate_after,
    }
    if given.budgets:
        result["budgets"] = [
            {
                "nodes": budget.nodes,
                **({"reasons": [DISRUPTION_REASONS[r] for r in budget.reasons]} if budget.reasons else {}),
                **({"schedule": budget.schedule} if budget.schedule is not None else {}),
                **({"duration": budget.duration} if budget.duration is not None else {}),
            }
            for budget in given.budgets
        ]
    return result
