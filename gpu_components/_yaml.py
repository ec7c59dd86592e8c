"""PyYAML's libyaml-backed safe loader when available (several times faster than the pure-Python one), else the
pure-Python loader. Both build the same data from the same text.

Only loading goes through libyaml: its emitter differs from the pure-Python one on long and multi-line strings and
ignores emitter hooks such as ``increase_indent``, so the rendered YAML (configs, hashes, plans) stays on
``yaml.safe_dump`` and does not depend on whether libyaml is installed.
"""

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import yaml

# Type-checked as the pure-Python class (same constructor API), so it can be subclassed.
if TYPE_CHECKING or not yaml.__with_libyaml__:
    from yaml import SafeLoader
else:
    from yaml import CSafeLoader as SafeLoader

__all__ = ["SafeLoader", "load_all"]


def load_all(text: str) -> Iterator[Any]:
    """``yaml.safe_load_all(text)``, through the fastest safe loader."""
    return yaml.load_all(text, Loader=SafeLoader)
