"""The one rule for NVIDIA chart versions: an exact version, never a range (pure).

A Helm chart version that is not exact (``^0.20``, ``0.x``, ``~0.20.0``, none) makes every install take whatever the
repository serves then, so the GPU stack can change under a cluster without a change to the program (Helm's
``--version``: "specify a version constraint for the chart version to use ... If this is not specified, the latest
version is used", :data:`SOURCE_HELM_VERSION`). The policy pack's ``nvidia-chart-version-pinned`` rule
(:func:`gpu_components.policy.rules.chart_version_violations`) and the add-on components' ``chart_version`` (the
device plugin's; the GPU Operator's and the DRA driver's also check their chart's exact form) read
:func:`is_pinned_chart_version`.
"""

from __future__ import annotations

import re

from gpu_components.errors import Problem

SOURCE_HELM_VERSION = "https://helm.sh/docs/helm/helm_install/"
"""Helm's ``install`` reference: ``--version`` takes a constraint, and none means the latest version."""
PINNED_CHART_VERSION = re.compile(r"v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")
"""An exact chart version (SemVer 2, optional ``v``): ``0.20.0``, ``v26.7.0``, ``0.21.0-rc.1``; the whole string."""
PINNED_CHART_VERSION_VALID = "an exact version MAJOR.MINOR.PATCH (optional v prefix and pre-release), not a range"
""":data:`PINNED_CHART_VERSION` in words, for problem messages."""


def is_pinned_chart_version(version: object) -> bool:
    """Whether ``version`` is an exact chart version (:data:`PINNED_CHART_VERSION`, the whole string: no surrounding
    spaces or newline)."""
    return isinstance(version, str) and PINNED_CHART_VERSION.fullmatch(version) is not None


def unpinned_chart_version_problems(version: object, path: str, chart: str, tested: str) -> list[Problem]:
    """A ``chart_version`` string that is not an exact version (:func:`is_pinned_chart_version`). Not a string is a
    shape error, not this one's.

    Args:
        version: the value given.
        path: where it sits (``chart_version``, ``device_plugin.chart_version``).
        chart: the chart's name, for the message.
        tested: the library's pinned, tested version of the chart, for the valid values.
    """
    if not isinstance(version, str) or is_pinned_chart_version(version):
        return []
    return [
        Problem(
            path,
            version,
            f"not an exact {chart} chart version: every install would take whatever the repository serves then, so "
            "the GPU stack could change under the cluster without a change to the program",
            f"{PINNED_CHART_VERSION_VALID}, e.g. {tested}",
            SOURCE_HELM_VERSION,
        )
    ]
