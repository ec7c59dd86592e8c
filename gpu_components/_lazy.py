"""Package attributes imported from their module on first use (a PEP 562 module ``__getattr__``).

The cloud packages and the top-level package use it so that importing them, or the light modules beside their
components (validation, options), does not import the cloud SDKs behind the components: a program, a plan or a
test pays only for the clouds it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: attribute ``name`` is ``getattr(import_module(modules[name]),
    name)``, imported on first access (Python caches the module).

    Raises (from the returned function):
        AttributeError: for a name not in ``modules``, as for any missing module attribute.
    """

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
