"""Bottlerocket user data read back (pure): what a launch template's TOML user data sets, for the plan's diff and the
policy pack. The rendering side is :mod:`gpu_components.aws.bottlerocket`; this half sits below the spec, beside the
AWS facts that use it (design notes, "Layers").

Settings reference: https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/ (the
``device-sharing-strategy`` values) and https://bottlerocket.dev/en/os/1.54.x/api/settings/kubernetes/
(``node-labels``).
"""

from __future__ import annotations

import base64
import binascii
import sys
from collections.abc import Mapping
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


SHARING_STRATEGIES = frozenset({"time-slicing", "mps"})
"""``device-sharing-strategy`` values that share a GPU without memory isolation (every value but ``none``)."""


def decode_user_data(value: object) -> tuple[str, object] | None:
    """A launch template's user data (EC2 takes it base64-encoded:
    https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RequestLaunchTemplateData.html) decoded:
    ``("base64 TOML", the settings)`` for Bottlerocket's TOML, ``("base64", the text)`` for anything else that
    decodes to text, ``None`` when ``value`` is not base64 text."""
    if not isinstance(value, str) or not value:
        return None
    try:
        text = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    try:
        return "base64 TOML", tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "base64", text


def sharing_settings(value: object) -> tuple[str | None, Mapping[str, Any]]:
    """The device sharing strategy (``settings.kubelet-device-plugins.nvidia.device-sharing-strategy``) and the node
    labels (``settings.kubernetes.node-labels``) that Bottlerocket TOML user data sets, given as a launch template
    holds it (base64, or the text itself); ``(None, {})`` for anything else."""
    if not isinstance(value, str) or not value:
        return None, {}
    decoded = decode_user_data(value)
    if decoded is not None:
        document = decoded[1]
    else:
        try:
            document = tomllib.loads(value)
        except tomllib.TOMLDecodeError:
            return None, {}
    settings = _table(_table(document).get("settings"))
    strategy = _table(_table(settings.get("kubelet-device-plugins")).get("nvidia")).get("device-sharing-strategy")
    labels = _table(_table(settings.get("kubernetes")).get("node-labels"))
    return (strategy if isinstance(strategy, str) else None), labels


def _table(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
