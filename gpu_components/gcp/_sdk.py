"""The gcp extra's SDKs (pulumi-gcp), imported here only: a missing one is a clean
:class:`~gpu_components._extras.MissingExtraError` naming the extra to install."""

from __future__ import annotations

from gpu_components._extras import missing_extra

try:
    import pulumi_gcp as gcp
except ModuleNotFoundError as error:
    raise missing_extra("gcp", error) from None

__all__ = ["gcp"]
