"""A program's own mocks: the invoke results and resource outputs the plan's mocks cannot know, given in a file beside
the project's ``Pulumi.yaml`` instead of in this package.

``gpu-components-mocks.yaml`` (:data:`~gpu_components.plan.mock_kit.MOCKS_FILE`)::

    invokes:                                    # invoke (or resource method) token -> its result
      aws:ssm/getParameter:getParameter:
        value: ami-0123456789abcdef0
    resources:                                  # resource type -> outputs laid over the plan's own
      aws:rds/instance:Instance:
        endpoint: db.internal:5432

An invoke's result replaces the plan's own mock of it, for every call of that token; a resource type's outputs are
laid over what the plan's mocks give each resource of that type (its inputs and computed outputs), a remote
component's included. Keys are Pulumi's names (camelCase, as the provider's schema and ``pulumi stack export`` spell
them), so ``value`` above is what ``get_parameter(...).value`` returns. Tokens are as ``pulumi`` prints them
(``<package>:<module>:<name>``); an SDK's source names each in its ``invoke(...)`` call.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpu_components.plan.mock_kit import MOCKS_FILE, UserMocks
from gpu_components.plan.runner import StackFileError, _read_mapping

__all__ = ["UserMocks", "load_user_mocks"]

_TOKEN = r"^[A-Za-z0-9_.-]+:[^:\s]*:[^:\s]+(/[A-Za-z0-9_]+)?$"
"""A Pulumi type or function token, ``<package>:<module>:<name>`` (a method: ``<type token>/<method>``)."""

_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        section: {
            "type": "object",
            "propertyNames": {"pattern": _TOKEN},
            "additionalProperties": {"type": "object"},
        }
        for section in ("invokes", "resources")
    },
}
"""The file's shape: ``invokes`` and ``resources``, each token -> a mapping of Pulumi property names to values."""


def load_user_mocks(directory: Path) -> UserMocks | None:
    """The mocks in ``<directory>/gpu-components-mocks.yaml``, or None when there is no such file.

    Raises:
        StackFileError: the file is not valid YAML or not shaped as the module docstring shows: an unknown top-level
            key (the message names it and the valid ones), a token that is not ``<package>:<module>:<name>``, or a
            result that is not a mapping. The message names the file, the key path and the value.
    """
    path = directory / MOCKS_FILE
    if not path.is_file():
        return None
    import jsonschema  # type: ignore[import-untyped]  # here: a plan without the file does without it

    document = _read_mapping(path)
    errors = sorted(
        jsonschema.Draft202012Validator(_SCHEMA).iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        raise StackFileError(path, "; ".join(_problem(error) for error in errors))
    return UserMocks(invokes=document.get("invokes") or {}, resources=document.get("resources") or {}, path=path)


def _problem(error: Any) -> str:
    """One schema error (a ``jsonschema.ValidationError``) in words: where, what was found, what is valid."""
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties" and not where:
        unknown = sorted(set(error.instance) - set(_SCHEMA["properties"]))
        return f"unknown key(s) {', '.join(unknown)}: the valid keys are invokes and resources"
    if "propertyNames" in error.absolute_schema_path:
        return (
            f"{where}: {error.instance!r} is not a Pulumi token such as aws:ssm/getParameter:getParameter "
            "(<package>:<module>:<name>)"
        )
    if error.validator == "type" and error.validator_value == "object":
        if where in ("invokes", "resources"):
            return f"{where} must be a mapping of tokens (got {error.instance!r})"
        section, token = where.split(".", 1)
        what = "the result" if section == "invokes" else "the outputs"
        return f"{where}: {what} of {token} must be a mapping of property names to values (got {error.instance!r})"
    return f"{where or 'the file'}: {error.message}"
