"""The forms clouds give the names and identifiers of a cluster's config and wiring (cluster names, resource groups,
regions, instance types), as data with one check: :class:`NameForm`. Each cloud's forms, with their sources, are in
its facts module (``gpu_components.<cloud>.facts``); the example cluster config, ``GpuCluster``'s wiring and the
node-pool components check a value against the same form, so a name the cloud would refuse at apply time fails
before any resource is registered."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_components.errors import Problem


@dataclass(frozen=True)
class NameForm:
    """The whole-string form of one kind of name.

    Attributes:
        what: the kind, with its article, as the message names it (``an AKS cluster name``).
        pattern: the form, matched whole (``fullmatch``).
        valid: the form in words, the problem's valid values.
        source: the cloud's page that gives the form.
    """

    what: str
    pattern: re.Pattern[str]
    valid: str
    source: str

    def problems(self, value: object, path: str) -> list[Problem]:
        """One problem at ``path`` when ``value`` is a string outside the form, else ``[]``. A value that is not a
        plain string (an output, known only at deployment) is not judged; its type is the shape check's."""
        if not isinstance(value, str) or self.pattern.fullmatch(value):
            return []
        return [Problem(path, value, f"not {self.what}", self.valid, self.source)]
