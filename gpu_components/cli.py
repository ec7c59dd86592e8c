"""``gpu-components`` command line: the offline plan of an example stack.

``gpu-components plan aws-eks`` runs the same program ``pulumi up`` runs, under Pulumi mocks with no cloud
credentials, and prints every resource it would register (``--format tree``, the default, or ``json``).
Invalid config exits with status 2 and the validation message, without a traceback.
"""

from __future__ import annotations

from pathlib import Path

import click

from gpu_components import program
from gpu_components.errors import GpuSpecError
from gpu_components.plan.render import to_json, to_tree
from gpu_components.plan.runner import load_stack, run_program


@click.group()
def main() -> None:
    """GPU node pools for EKS, AKS and GKE: offline plans of the example stacks."""


@main.command()
@click.argument("stack")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["tree", "json"]),
    default="tree",
    show_default=True,
    help="tree: readable resource tree; json: deterministic document for diffs.",
)
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Project root holding Pulumi.yaml and stacks/.",
)
def plan(stack: str, output_format: str, root: Path) -> None:
    """Print what STACK (stacks/Pulumi.STACK.yaml) would create, without cloud credentials."""
    try:
        project, config = load_stack(root, stack)
        result = run_program(program.main, project=project, stack=stack, config=config)
    except (GpuSpecError, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(to_json(result) if output_format == "json" else to_tree(result), nl=False)
