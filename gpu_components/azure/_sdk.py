"""The azure extra's SDKs (pulumi-azure-native), imported here only: a missing one is a clean
:class:`~gpu_components._extras.MissingExtraError` naming the extra to install."""

from __future__ import annotations

from gpu_components._extras import missing_extra

try:
    import pulumi_azure_native as azure_native
except ModuleNotFoundError as error:
    raise missing_extra("azure", error) from None

__all__ = ["azure_native"]
