"""``gpu-components`` command line: offline plans of Pulumi Python and YAML projects, their diffs, diagrams, capacity.

``gpu-components plan aws-eks`` runs the same program ``pulumi up`` runs, under Pulumi mocks with no cloud
credentials, and prints every resource it would register. The project is the one in ``--cwd`` (``-C``, Pulumi's own
flag; ``--root`` is its deprecated name), the current directory by default: its ``Pulumi.yaml`` names the program
(``main:``) and the stack config directory (:func:`~gpu_components.plan.project.run_project`); this repository's
root is the example project. ``gpu-components diff OLD NEW`` compares two JSON plans (or ``--format state``
documents, on either side) and flags node-pool replacements; a missing side or an empty directory exits 1. Invalid
config exits with status 1 and the validation message, without a traceback; so do a directory
without ``Pulumi.yaml``, a project that is neither Python nor YAML or whose ``main:`` does not exist, a YAML program
the offline reader cannot run (:mod:`~gpu_components.plan.yaml_program`), and a program that raises
(its exception's type and message, and the program's file and line).

Exit status: 0 success; 1 an error (invalid config, unknown stack, malformed ``Pulumi.yaml`` or stack file, a project
the plan cannot run, a program that raises, unreadable plan); 2 a usage error. With ``--exit-code`` (``diff``,
``plan --diff``): :data:`EXIT_CHANGES` (3) when anything changed and :data:`EXIT_REPLACEMENT` (4) when a change drains
a node pool (replaced, deleted or its nodes rolled) or strands its GPU work (a new MIG layout or GPU advertiser, a new
GPU Operator driver version); :data:`EXIT_REFUSED` (6) when ``pulumi up`` would fail on a change (a ``protect``-ed
resource deleted or replaced, an input the cloud refuses to change in place), which outranks 3 and 4; 0 when nothing
changed.

``plan`` prints a ``warning:`` line on stderr for each ``ignoreChanges`` path of the plan that names no input of its
resource, with the closest input path (:mod:`~gpu_components.plan.ignore_changes`); ``diff`` and ``plan --diff`` put
the same warnings in the diff's text. A component's own warning during a plan (a driver upgrade drain without
``force``) prints the same way, ``warning: <stack>: ...``.

``plan`` of several stacks (``--all``, or several names) plans every one: a stack that cannot be planned prints its
error, the others are still printed, written or diffed, and the command exits 1 at the end (before ``--exit-code``
would), naming the stacks that failed.

``plan --policy [PACK_DIR]`` also runs a policy pack on each stack's plan (:mod:`gpu_components.plan.policy`) and
prints its ``Policies:`` section after the output: on stdout, or on stderr when stdout carries a ``json``, ``yaml`` or
``mermaid`` document. A mandatory violation exits :data:`EXIT_POLICY_VIOLATION` (5), which outranks ``--exit-code``;
a pack or ``--policy-config`` that cannot be used exits 1.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from gpu_components._extras import MissingExtraError
from gpu_components.autoscaler import autoscaled_pool_warning
from gpu_components.errors import GpuSpecError
from gpu_components.plan.capacity import capacity_report, claim_records
from gpu_components.plan.diagram import DiagramError, to_mermaid, to_png, to_svg
from gpu_components.plan.diff import PlanDiff, PlanFormatError, diff, to_document, to_text
from gpu_components.plan.ignore_changes import ignore_changes_warnings
from gpu_components.plan.kubernetes import to_kubernetes_yaml
from gpu_components.plan.mocks import DuplicateResourceError
from gpu_components.plan.project import ProgramError, load_project, pool_records, run_project
from gpu_components.plan.render import to_json, to_tree
from gpu_components.plan.runner import Plan, StackFileError
from gpu_components.plan.state import is_state, to_state_json

if TYPE_CHECKING:
    from gpu_components.plan.policy import PolicyConfig, PolicyPack, PolicyReport

# gpu_components.plan.policy (pulumi-policy, jsonschema) is imported where --policy is used: a plain plan does not
# pay for it at start-up.

EXIT_CHANGES = 3
"""``--exit-code``: the plans differ, and no change drains a node pool (see :data:`EXIT_REPLACEMENT`)."""
EXIT_REPLACEMENT = 4
"""``--exit-code``: at least one change drains a node pool's nodes: the pool replaced (a force-new input, a
``replaceOnChanges`` path or its provider), deleted, or its nodes recreated in place (a rolling change, or on EKS a
changed launch template), or its GPU work stranded on nodes that stay (a new MIG layout, or a new GPU advertiser:
its ``gpu-components/gpu-access`` node label changed) (:attr:`~gpu_components.plan.diff.PlanDiff.drained`)."""
EXIT_REFUSED = 6
"""``--exit-code``: at least one change would make ``pulumi up`` fail part-way: a ``protect``-ed resource deleted or
replaced (the engine refuses it until ``protect`` is removed), or an input the cloud refuses to change in place (AKS:
the VM size of an existing agent pool) (:attr:`~gpu_components.plan.diff.PlanDiff.refused`). It outranks
:data:`EXIT_CHANGES` and :data:`EXIT_REPLACEMENT` (the change cannot be applied as written) and is outranked by
:data:`EXIT_POLICY_VIOLATION` (nothing is deployed at all) and by an error (1)."""
EXIT_POLICY_VIOLATION = 5
"""``plan --policy``: the policy pack found a mandatory violation (``pulumi preview`` fails on it and ``pulumi up``
refuses to run). 5 is the Pulumi CLI's own exit code for a policy violation (``ExitPolicyViolation`` in
``pkg/cmd/pulumi/cmd/exit_codes.go``) and is none of ours (1 error, 2 usage, :data:`EXIT_CHANGES`,
:data:`EXIT_REPLACEMENT`). It outranks ``--exit-code``'s 3 and 4, as a program that fails its policies is not
deployed at all; an error (1) outranks it. Advisory violations are printed and change nothing."""

FORMATS: dict[str, tuple[str, Callable[[Plan], str]]] = {
    "tree": (".txt", to_tree),
    "json": (".json", to_json),
    "yaml": (".yaml", to_kubernetes_yaml),
    "mermaid": (
        ".mmd",
        lambda plan: to_mermaid(
            _title(plan), plan.outputs, records=pool_records(plan), claims=claim_records(plan.resources)
        ),
    ),
    "capacity": (
        ".md",
        lambda plan: capacity_report(
            plan.stack, plan.outputs, records=pool_records(plan), claims=claim_records(plan.resources)
        ),
    ),
    "state": (".json", to_state_json),
}
"""``--format`` -> (file suffix for ``--out-dir``, renderer)."""
_SINGLE_DOCUMENT = frozenset({"json", "mermaid", "state"})
"""Formats whose outputs cannot be concatenated: several stacks need ``--out-dir``."""
_DOCUMENT_FORMATS = frozenset({"json", "yaml", "mermaid"})
"""Formats whose stdout is a document for a program: ``--policy`` prints its verdicts on stderr beside them."""


def _title(plan: Plan) -> str:
    cluster = plan.outputs.get("clusterName")
    return f"{plan.stack}: cluster {cluster}" if isinstance(cluster, str) else plan.stack


@click.group()
def main() -> None:
    """GPU node pools for EKS, AKS and GKE: offline plans of Pulumi Python and YAML projects, diffs, capacity."""


@main.command()
@click.argument("stacks", nargs=-1)
@click.option("--all", "all_stacks", is_flag=True, help="Plan every stack in the project's stack config directory.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(list(FORMATS)),
    default="tree",
    show_default=True,
    help="tree: resource tree; json: deterministic plan document; yaml: Kubernetes manifests and Helm values; "
    "mermaid: cluster -> pools -> GPUs -> slices; capacity: Markdown capacity report; state: the plan as the "
    "deployment `pulumi stack export` writes (version 3; secrets as the mask, never their value).",
)
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write <stack><suffix> per stack into this directory instead of printing.",
)
@click.option(
    "--diagram",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a diagram image: .svg (built in) or .png (needs Pillow); missing directories are created. "
    "With several stacks, the stack name is added before the suffix.",
)
@click.option(
    "--diff",
    "baseline",
    type=click.Path(exists=True, path_type=Path),
    help="Print the diff against this JSON plan (or a directory of <stack>.json; a stack without one there is "
    "diffed as new, with a note on stderr) instead of the plan. Not with --format or --out-dir.",
)
@click.option(
    "--exit-code",
    is_flag=True,
    help=(
        "With --diff: exit 3 when anything changed, 4 when a node pool is replaced, deleted or rolled, or its work"
        " stranded (new MIG layout, GPU advertiser or operator driver version), 6 when pulumi up would refuse a change"
        " (a protected resource deleted or replaced, an input the cloud refuses to change)."
    ),
)
@click.option(
    "--cwd",
    "-C",
    "cwd",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The Pulumi project's directory, holding its Pulumi.yaml (as pulumi -C DIR): its program (main:) runs with "
    "its stacks' config (stackConfigDir). Default: the current directory.",
)
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Deprecated: the same as --cwd, which replaces it.",
)
@click.option(
    "--policy",
    "policy_pack",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[PACK_DIR]",
    help="Also run a policy pack on each stack's plan, as pulumi preview --policy-pack does, and print its verdicts "
    "after the output (on stderr when stdout carries a json, yaml or mermaid document): the library's own pack "
    "without a value, or the Python pack in PACK_DIR (its PulumiPolicy.yaml). Exit 5 on a mandatory violation. "
    "Give the value as --policy=PACK_DIR, or the option last, so a stack name is not read as PACK_DIR.",
)
@click.option(
    "--policy-config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --policy: the policy config JSON file, as pulumi preview --policy-pack-config takes it.",
)
@click.option(
    "--preview",
    is_flag=True,
    help="Plan as pulumi preview shows a new stack: ids and computed outputs of new resources are [unknown], and "
    "so is every input fed from them. Default: the state after pulumi up, every output known (what PR diffs compare).",
)
def plan(
    stacks: tuple[str, ...],
    all_stacks: bool,
    output_format: str,
    out_dir: Path | None,
    diagram: Path | None,
    baseline: Path | None,
    exit_code: bool,
    cwd: Path | None,
    root: Path | None,
    policy_pack: str | None,
    policy_config: Path | None,
    preview: bool,
) -> None:
    """Print what each STACK of the Pulumi Python or YAML project in --cwd would create, without cloud credentials.

    The project's program (Pulumi.yaml main:) runs as pulumi runs it, with the stack's config
    (<stackConfigDir>/Pulumi.STACK.yaml), under mocks: the plan is the state pulumi up leaves, or with --preview what
    pulumi preview of a new stack shows. A stack that cannot be planned prints its error and hides no
    other stack: the others are still printed, written or diffed, and the command exits 1 at the end.
    """
    root = _project_directory(cwd, root)
    _check_policy_took_no_stack(policy_pack, stacks, all_stacks)
    names = _stack_names(root, stacks, all_stacks)
    if baseline is not None:
        _reject_with_diff(out_dir)
    if len(names) > 1 and output_format in _SINGLE_DOCUMENT and out_dir is None and baseline is None:
        raise click.UsageError(f"--format {output_format} with several stacks needs --out-dir")
    if exit_code and baseline is None:
        raise click.UsageError("--exit-code needs --diff")
    if baseline is not None and len(names) > 1 and not baseline.is_dir():
        raise click.UsageError("--diff with several stacks needs a directory of <stack>.json plans")
    if diagram is not None and diagram.suffix.lower() not in (".svg", ".png"):
        raise click.UsageError(f"--diagram {diagram}: the file name must end in .svg or .png")
    if policy_config is not None and policy_pack is None:
        raise click.UsageError("--policy-config needs --policy")
    pack, pack_config = _policy_setup(policy_pack, policy_config)
    plans, failed = _plan_each(root, names, preview)
    for result in plans:
        _warn_autoscaled_pools(result)
    reports = [_run_policies(result, pack, pack_config) for result in plans] if pack is not None else []
    if diagram is not None:
        for result in plans:
            _write_diagram(_diagram_path(diagram, result.stack, len(names)), result)
    if baseline is not None:
        diffs = [_diff(_baseline(baseline, result.stack), to_json(result)) for result in plans]
        click.echo("\n".join(to_text(result) for result in diffs), nl=False)
        _print_policies(reports, to_stderr=False)
        _stop_if_failed(failed, len(names))
        _stop_if_mandatory(reports)
        _exit_for(diffs, exit_code)
        return
    for result in plans:
        records = [
            {"urn": r.urn, "type": r.type, "name": r.name, "inputs": r.inputs, "options": r.options}
            for r in result.resources
        ]
        for warning in ignore_changes_warnings(records, {}):
            click.echo(f"warning: {result.stack}: {warning}", err=True)
    suffix, render = FORMATS[output_format]
    if out_dir is not None:
        for result in plans:
            _write(out_dir / f"{result.stack}{suffix}", render(result), "--out-dir")
    elif output_format == "yaml" and len(names) > 1:
        # One stream for several stacks: a comment line says which stack the documents after it belong to.
        click.echo("\n".join(f"# stack: {result.stack}\n{render(result)}" for result in plans), nl=False)
    else:
        click.echo("\n".join(render(result) for result in plans), nl=False)
    _print_policies(reports, to_stderr=out_dir is None and output_format in _DOCUMENT_FORMATS)
    _stop_if_failed(failed, len(names))
    _stop_if_mandatory(reports)


@main.command(name="diff")
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--exit-code",
    is_flag=True,
    help=(
        "Exit 3 when anything changed, 4 when a node pool is replaced, deleted or rolled, or its work stranded (new"
        " MIG layout, GPU advertiser or operator driver version), 6 when pulumi up would refuse a change (a protected"
        " resource deleted or replaced, an input the cloud refuses to change)."
    ),
)
def diff_command(old: Path, new: Path, output_format: str, exit_code: bool) -> None:
    """Compare two plans (files, or directories of <stack>.json paired by name): JSON plans or --format state
    documents, either on either side (told apart by their content).

    A stack only in NEW shows every resource as created; only in OLD, as deleted. A side that does not exist, or a
    directory with no <stack>.json, is an error (exit 1): an empty side is no verdict.
    """
    for label, path in (("OLD", old), ("NEW", new)):
        _require_plans(label, path)
    pairs = _pairs(old, new)
    diffs = [_diff(_read_plan(a, stack), _read_plan(b, stack)) for stack, a, b in pairs]
    if output_format == "json":
        click.echo(json.dumps([to_document(result) for result in diffs], indent=2, sort_keys=True))
    else:
        click.echo("\n".join(to_text(result) for result in diffs), nl=False)
    _exit_for(diffs, exit_code)


# ------------------------------------------------------------------------------------------------------ helpers


def _project_directory(cwd: Path | None, root: Path | None) -> Path:
    """The project directory: ``--cwd``, or the deprecated ``--root`` (the same option, with a one-line notice on
    stderr), else the current one."""
    if cwd is not None and root is not None and cwd.resolve() != root.resolve():
        raise click.UsageError("--root is the deprecated name of --cwd: give one of them")
    if root is not None:
        click.echo("--root is deprecated: use --cwd (-C)", err=True)
    return cwd or root or Path(".")


def _check_policy_took_no_stack(policy_pack: str | None, stacks: Sequence[str], all_stacks: bool) -> None:
    """``--policy`` takes an optional value: in ``plan --policy aws-eks`` it took the stack name as PACK_DIR and left
    no stack. Say so, rather than only that no stack was given."""
    if policy_pack and not stacks and not all_stacks:
        raise click.UsageError(
            f"--policy took {policy_pack!r} as its PACK_DIR, and no stack name is left; for the library's own pack "
            f"put --policy last (plan {policy_pack} --policy), for a pack directory write --policy=PACK_DIR"
        )


def _stack_names(root: Path, stacks: Sequence[str], all_stacks: bool) -> list[str]:
    if all_stacks and stacks:
        raise click.UsageError("give stack names or --all, not both")
    if not all_stacks and not stacks:
        raise click.UsageError("give at least one stack name, or --all")
    found = available_stacks(root)  # the project is checked once, before any stack is planned
    if not all_stacks:
        return list(dict.fromkeys(stacks))
    if not found:
        raise click.ClickException(f"no stack config files (Pulumi.<stack>.yaml) under {root}")
    return found


def available_stacks(root: Path) -> list[str]:
    """The stacks of the project in ``root`` (``Pulumi.yaml``): those with a config file in its stack config
    directory (``stackConfigDir``), sorted. A project the plan cannot run (no ``Pulumi.yaml``, a runtime other than
    Python, a ``main:`` that does not exist) is a command error."""
    try:
        return load_project(root).stacks()
    except (FileNotFoundError, StackFileError) as error:
        raise click.ClickException(str(error)) from None


def _plan_each(root: Path, names: Sequence[str], preview: bool) -> tuple[list[Plan], list[str]]:
    """Plan every stack in ``names``: (the plans made, the stacks that could not be planned). A stack's error is
    printed as it happens (``Error: <stack>: ...`` on stderr) and hides no other stack's plan or error."""
    plans: list[Plan] = []
    failed: list[str] = []
    for name in names:
        try:
            plans.append(_plan(root, name, preview))
        except click.ClickException as error:
            error.show()
            failed.append(name)
    return plans, failed


def _stop_if_failed(failed: Sequence[str], count: int) -> None:
    """Exit 1 when a stack could not be planned (its error is printed already); with several stacks, a last line
    names the stacks that failed. An error outranks ``--exit-code``: a diff that misses a stack is no verdict."""
    if not failed:
        return
    if count > 1:
        raise click.ClickException(f"{len(failed)} of {count} stacks could not be planned: {', '.join(failed)}")
    raise click.exceptions.Exit(1)


class _StackLog(logging.Handler):
    """Prints the program's log messages during one stack's plan (a component's ``pulumi.log.warn``, e.g. the driver
    upgrade's drain without force) on stderr as the plan's other warnings print: ``warning: <stack>: <message>``
    (``error: <stack>: ...`` for an error); a component's message starts with its type and name, ``<type> (<name>):``
    (:mod:`gpu_components.plan.runner`)."""

    def __init__(self, stack: str) -> None:
        super().__init__(logging.WARNING)
        self.stack = stack

    def emit(self, record: logging.LogRecord) -> None:
        level = "warning" if record.levelno < logging.ERROR else "error"
        click.echo(f"{level}: {self.stack}: {record.getMessage()}", err=True)


_PROGRAM_LOG = logging.getLogger("gpu_components.plan.pulumi")
"""The logger the plan runner hands the Pulumi SDK (:mod:`gpu_components.plan.runner`)."""


def _plan(root: Path, stack: str, preview: bool) -> Plan:
    handler = _StackLog(stack)
    _PROGRAM_LOG.addHandler(handler)
    try:
        return run_project(root, stack, preview=preview)
    except (
        GpuSpecError,
        FileNotFoundError,
        StackFileError,
        DuplicateResourceError,
        MissingExtraError,
        ProgramError,
    ) as error:
        raise click.ClickException(f"{stack}: {error}") from None
    finally:
        _PROGRAM_LOG.removeHandler(handler)


def _warn_autoscaled_pools(result: Plan) -> None:
    """Print on stderr, as ``warning: <stack>: pool <name>: <note>`` (the prefix of the plan's other warnings), each
    fixed pool the Cluster Autoscaler scales whose nodes advertise no ``nvidia.com/gpu``
    (:func:`~gpu_components.autoscaler.autoscaled_pool_warning`); the pools are the plan's capacity records (the
    node-pool components, else the ``gpuPools`` stack output). The exit code is unchanged."""
    records = pool_records(result) or result.outputs.get("gpuPools")
    if not isinstance(records, Mapping):
        return
    for name, record in sorted(records.items()):
        if not isinstance(record, Mapping) or "provisioning" in record:
            continue
        advertised = {
            str(unit["name"]): int(unit["perNode"])
            for unit in record.get("advertises", [])
            if isinstance(unit, Mapping) and "name" in unit and "perNode" in unit
        }
        note = autoscaled_pool_warning(advertised, int(record.get("minNodes", 0)), int(record.get("maxNodes", 0)))
        if note is not None:
            click.echo(f"warning: {result.stack}: pool {name}: {note}", err=True)


def _policy_setup(
    policy_pack: str | None, policy_config: Path | None
) -> tuple[PolicyPack | None, dict[str, PolicyConfig]]:
    """The pack ``--policy`` names (the built-in one for an empty value) and the ``--policy-config`` file, read and
    checked before any stack is planned; a missing or malformed pack or config is a command error. A leading ``~``
    or ``~user`` in either is expanded as a shell would: the shell leaves ``--policy=~/pack`` as it is."""
    if policy_pack is None:
        return None, {}
    from gpu_components.plan.policy import PolicyPack, PolicyPackError, load_policy_config  # on use: gRPC, the engine's

    try:
        pack = PolicyPack.builtin() if policy_pack == "" else PolicyPack.load(Path(policy_pack).expanduser())
        config = load_policy_config(policy_config.expanduser()) if policy_config is not None else {}
    except PolicyPackError as error:
        raise click.ClickException(str(error)) from None
    return pack, config


def _run_policies(result: Plan, pack: PolicyPack, config: Mapping[str, PolicyConfig]) -> PolicyReport:
    from gpu_components.plan.policy import PolicyPackError, run_policy_pack

    try:
        return run_policy_pack(result, pack, config)
    except PolicyPackError as error:
        raise click.ClickException(f"{result.stack}: {error}") from None


def _print_policies(reports: Sequence[PolicyReport], to_stderr: bool) -> None:
    """The ``Policies:`` section of each stack after the output (after a blank line when on stdout)."""
    if reports:
        from gpu_components.plan.policy import to_text

        click.echo(("" if to_stderr else "\n") + to_text(reports), nl=False, err=to_stderr)


def _stop_if_mandatory(reports: Sequence[PolicyReport]) -> None:
    if any(report.mandatory for report in reports):
        raise click.exceptions.Exit(EXIT_POLICY_VIOLATION)


def _reject_with_diff(out_dir: Path | None) -> None:
    """``--diff`` prints a diff instead of the plan: ``--format`` and ``--out-dir`` would not apply."""
    given = ["--out-dir"] if out_dir is not None else []
    if click.get_current_context().get_parameter_source("output_format") is not ParameterSource.DEFAULT:
        given.insert(0, "--format")
    if given:
        raise click.UsageError(
            f"--diff prints the diff instead of the plan, so {' and '.join(given)} would be ignored; "
            "write the plan in a separate run without --diff"
        )


def _diagram_path(path: Path, stack: str, count: int) -> Path:
    return path if count == 1 else path.with_name(f"{path.stem}-{stack}{path.suffix}")


def _write_diagram(path: Path, result: Plan) -> None:
    records = pool_records(result)
    claims = claim_records(result.resources)
    try:
        content: str | bytes = (
            to_png(_title(result), result.outputs, records=records, claims=claims)
            if path.suffix.lower() == ".png"
            else to_svg(_title(result), result.outputs, records=records, claims=claims)
        )
    except DiagramError as error:
        raise click.ClickException(str(error)) from None
    _write(path, content, "--diagram")


def _write(path: Path, content: str | bytes, option: str) -> None:
    """Write ``content`` to ``path``, creating missing directories; a file system error is a command error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = "a file of that name is in the way" if isinstance(error, FileExistsError) else error.strerror
        raise click.ClickException(
            f"{option}: cannot create the directory {path.parent} for {path.name}: {reason or error}"
        ) from None
    try:
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    except OSError as error:
        raise click.ClickException(f"{option}: cannot write {path}: {error.strerror or error}") from None


def _baseline(path: Path, stack: str) -> dict[str, Any]:
    """The baseline plan of ``stack``: the file itself, or ``<dir>/<stack>.json``; an empty plan when the
    directory has none (a stack new in this change), with a note on stderr naming the missing file."""
    file = path / f"{stack}.json" if path.is_dir() else path
    if not file.exists():
        click.echo(
            f"Note: {file} does not exist: {stack} is diffed as a new stack (every resource created); "
            "if it is not new, check the --diff directory",
            err=True,
        )
    return _read_plan(file, stack)


def _read_plan(path: Path | None, stack: str) -> dict[str, Any]:
    if path is None or not path.exists():
        return {"stack": stack, "resources": [], "outputs": {}}
    try:
        document = json.loads(path.read_text())
    except OSError as error:
        raise click.ClickException(f"cannot read the plan {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise click.ClickException(f"{path} is not a JSON plan: {error}") from None
    if is_state(document):
        return dict(document)
    if not isinstance(document, dict) or not isinstance(document.get("resources"), list):
        raise click.ClickException(
            f"{path} is not a JSON plan: it needs a 'resources' list (or, as --format state writes it,"
            " 'deployment.resources')"
        )
    return document


def _diff(old: str | Mapping[str, Any], new: str | Mapping[str, Any]) -> PlanDiff:
    """:func:`diff`, with a malformed plan reported as a command error rather than a traceback."""
    try:
        return diff(old, new)
    except PlanFormatError as error:
        raise click.ClickException(str(error)) from None


def _require_plans(label: str, path: Path) -> None:
    """A ``diff`` side must exist and, as a directory, hold at least one ``<stack>.json``: diffing nothing would
    read as "no changes"."""
    if not path.exists():
        raise click.ClickException(f"{label} {path} does not exist: give a plan file or a directory of <stack>.json")
    if path.is_dir() and not any(path.glob("*.json")):
        raise click.ClickException(
            f"{label} {path} is a directory with no <stack>.json plan: nothing to compare (write plans with"
            " gpu-components plan --all --format json --out-dir DIR)"
        )


def _pairs(old: Path, new: Path) -> list[tuple[str, Path | None, Path | None]]:
    if old.is_dir() != new.is_dir():
        raise click.UsageError("OLD and NEW must both be files or both be directories")
    if not old.is_dir():
        return [(new.stem, old, new)]
    stems = sorted({p.stem for p in old.glob("*.json")} | {p.stem for p in new.glob("*.json")})
    return [(stem, old / f"{stem}.json", new / f"{stem}.json") for stem in stems]


def _exit_for(diffs: Sequence[PlanDiff], exit_code: bool) -> None:
    if not exit_code:
        return
    if any(result.refused for result in diffs):
        raise click.exceptions.Exit(EXIT_REFUSED)
    if any(result.drained for result in diffs):
        raise click.exceptions.Exit(EXIT_REPLACEMENT)
    if any(not result.empty for result in diffs):
        raise click.exceptions.Exit(EXIT_CHANGES)
