"""The cloud SDKs come with the package's extras, so a team installs only its own cloud's SDKs.

``pip install 'gpu-components[aws]'`` (or ``[azure]``, ``[gcp]``, ``[all]``; ``uv add`` the same). The core (spec,
catalog, NVIDIA renderers, workloads, plan engine, policy rules and the Kubernetes add-on components) needs none of
them. Each cloud package imports its SDKs in one module (``<cloud>/_sdk.py``), which turns a missing SDK into a
:class:`MissingExtraError` naming the extra to install.
"""

from __future__ import annotations

EXTRAS: dict[str, tuple[str, ...]] = {
    "aws": ("pulumi_aws", "pulumi_eks"),
    "azure": ("pulumi_azure_native",),
    "gcp": ("pulumi_gcp",),
}
"""Extra name -> the SDK modules it installs (the distributions are the same names with ``-``; pyproject.toml)."""


class MissingExtraError(ImportError):
    """A cloud's components were imported without that cloud's extra installed.

    Attributes:
        extra: the extra to install (``aws``, ``azure`` or ``gcp``).
    """

    def __init__(self, extra: str, module: str) -> None:
        packages = ", ".join(name.replace("_", "-") for name in EXTRAS[extra])
        super().__init__(
            f"the {extra} components need the {extra!r} extra, which is not installed (no module {module!r}): "
            f"pip install 'gpu-components[{extra}]' (or uv add 'gpu-components[{extra}]'; it installs {packages})",
            name=module,
        )
        self.extra = extra


def missing_extra(extra: str, error: ModuleNotFoundError) -> ImportError:
    """The error to raise for ``error``, met while importing ``extra``'s SDKs: a :class:`MissingExtraError` when
    one of those SDKs itself is missing, otherwise ``error`` unchanged (a broken install inside an SDK)."""
    if error.name in EXTRAS[extra]:
        return MissingExtraError(extra, error.name)
    return error
