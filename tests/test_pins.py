"""Every dependency in pyproject.toml says what was tested: a lower bound equal to the lowest version of it in
uv.lock (what CI and the golden plans were made with) and an upper bound below its next breaking release."""

from __future__ import annotations

import re
import sys

from packaging.requirements import Requirement
from packaging.version import Version

from tests.helpers import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = tomllib.loads((ROOT / "uv.lock").read_text())


def requirements() -> list[Requirement]:
    project = PROJECT["project"]
    listed = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    listed += [r for group in PROJECT["dependency-groups"].values() for r in group]
    return [Requirement(text) for text in listed if not text.startswith("gpu-components")]


def locked(name: str) -> list[Version]:
    key = name.lower().replace("_", "-")
    return sorted(Version(package["version"]) for package in LOCK["package"] if package["name"] == key)


def bounds(requirement: Requirement) -> tuple[Version, Version]:
    lower = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
    upper = [Version(s.version) for s in requirement.specifier if s.operator == "<"]
    assert len(lower) == 1 and len(upper) == 1, f"{requirement}: one >= and one < bound"
    return lower[0], upper[0]


def test_every_lower_bound_is_the_lowest_locked_version() -> None:
    wrong = [
        (str(requirement), str(locked(requirement.name)[0]))
        for requirement in requirements()
        if bounds(requirement)[0] != locked(requirement.name)[0]
    ]
    assert wrong == []


def test_every_upper_bound_is_below_the_next_breaking_release() -> None:
    for requirement in requirements():
        lower, upper = bounds(requirement)
        breaking = Version(f"{lower.major + 1}") if lower.major else Version(f"0.{lower.minor + 1}")
        assert upper == breaking, f"{requirement}: < {breaking}"


def test_the_requirements_cover_each_distribution_once() -> None:
    names = [re.sub(r"[-_.]+", "-", r.name).lower() for r in requirements()]
    assert len(names) == len(set(names))
    assert {"pulumi", "pulumi-kubernetes", "pulumi-aws", "pulumi-eks", "pulumi-azure-native", "pulumi-gcp"} <= set(
        names
    )
