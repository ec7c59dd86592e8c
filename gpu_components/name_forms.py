"""The forms clouds give the names and identifiers of a cluster's config and wiring (cluster names, resource groups,
regions, instance types), as data with one check: :class:`NameForm`, and for regions the cloud's list
(:class:`KnownNames`). Each cloud's forms, with their sources, are in
its facts module (``gpu_components.<cloud>.facts``); the example cluster config, ``GpuCluster``'s wiring and the
node-pool components check a value against the same form, so a name the cloud would refuse at apply time fails
before any resource is registered."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gpu_components.errors import Problem


@dataclass(frozen=True)
class KnownNames:
    """The names a cloud lists for one kind of identifier (its regions), as read from its page on one date.

    Attributes:
        noun: what one name is, as the message names it (``Region``, ``region``).
        owner: whose list it is, possessive (``AWS's``).
        names: every listed name.
        source: the page (or command) that lists them.
        read: the date the list was compiled (``YYYY-MM-DD``), which the message names; a name the cloud added
            since is refused until the list is updated from ``source``.
        folded: names compare lowercased with spaces removed (Azure takes a region's display name, ``East US 2``,
            for ``eastus2``).
    """

    noun: str
    owner: str
    names: tuple[str, ...]
    source: str
    read: str
    folded: bool = False

    def problem(self, value: str, part: str, what: str, path: str) -> list[Problem]:
        """One problem at ``path`` when ``part`` of ``value`` (the whole value, or a zone's region) is not listed,
        naming the closest listed names, else ``[]``."""
        key = part.lower().replace(" ", "") if self.folded else part
        if key in self.names:
            return []
        close = difflib.get_close_matches(key, self.names, n=3, cutoff=0.6)
        valid = f"a {self.noun} of the list" + (f", closest: {', '.join(close)}" if close else "")
        return [
            Problem(
                path,
                value,
                f"not {what}: {self.owner} list of {self.noun}s has no {key} (list of {self.read})",
                valid,
                self.source,
            )
        ]


@dataclass(frozen=True)
class NameForm:
    """The whole-string form of one kind of name.

    Attributes:
        what: the kind, with its article, as the message names it (``an AKS cluster name``).
        pattern: the form, matched whole (``fullmatch``).
        valid: the form in words, the problem's valid values.
        source: the cloud's page that gives the form.
        known: the names the cloud lists, when a name of the form may still name nothing (a region): a value of the
            form is then looked up, whole, or its part the pattern's group ``listed`` matches (a zone's region).
            None: the form alone is checked.
    """

    what: str
    pattern: re.Pattern[str]
    valid: str
    source: str
    known: KnownNames | None = None

    def problems(self, value: object, path: str) -> list[Problem]:
        """One problem at ``path`` when ``value`` is a string outside the form, or of the form but not in the
        cloud's list (:attr:`known`), else ``[]``. A value that is not a plain string (an output, known only at
        deployment) is not judged; its type is the shape check's."""
        if not isinstance(value, str):
            return []
        match = self.pattern.fullmatch(value)
        if match is None:
            return [Problem(path, value, f"not {self.what}", self.valid, self.source)]
        if self.known is None:
            return []
        part = match.group("listed") if "listed" in self.pattern.groupindex else value
        return self.known.problem(value, part, self.what, path)


MISSING = "required field is missing"
"""The message of a required field left out (:mod:`gpu_components.shape`)."""


def missing_form_problems(problems: Sequence[Problem], forms: Mapping[str, NameForm], prefix: str) -> list[Problem]:
    """``problems`` with each required key left out at ``<prefix><key>`` whose value has a form (``forms``, by key:
    a GKE ``location``) given the form's valid values and source; the others as they are."""
    return [
        replace(problem, valid=forms[key].valid, source=forms[key].source)
        if problem.message == MISSING
        and problem.path.startswith(prefix)
        and (key := problem.path.removeprefix(prefix)) in forms
        else problem
        for problem in problems
    ]
