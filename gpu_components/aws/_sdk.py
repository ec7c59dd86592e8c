"""The aws extra's SDKs (pulumi-aws and pulumi-eks), imported here only: a missing one is a clean
:class:`~gpu_components._extras.MissingExtraError` naming the extra to install."""

from __future__ import annotations

from gpu_components._extras import missing_extra

try:
    import pulumi_aws as aws
    import pulumi_eks as eks
except ModuleNotFoundError as error:
    raise missing_extra("aws", error) from None

__all__ = ["aws", "eks"]
