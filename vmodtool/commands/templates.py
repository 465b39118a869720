"""``vmodtool templates``: the bundled counter templates, listed, and one
previewed as a contact sheet (on a scenario's counters, or on a small
built-in sample)."""

from __future__ import annotations

import click

from vmodtool.commands import REPLACED, Command, Group, check_output, output_option

__all__ = ["templates_group", "COMMANDS"]


@click.group("templates", cls=Group, invoke_without_command=True)
@click.pass_context
def templates_group(ctx: click.Context) -> None:
    """List the counter templates and preview one.

    Without a subcommand: the bundled templates, one a line (name and
    description).  A scenario chooses one with styles.counter.template.

    \b
    Examples:
      vmodtool templates
      vmodtool templates show silhouette -o preview.png
      vmodtool templates show combat-commander --scenario examples/combat-commander/scenario.yaml -o cc.png
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command)


@templates_group.command("list", cls=Command)
def list_command() -> None:
    """The bundled counter templates, one a line."""
    from vmodtool.scenario.templates import bundled_templates, load_template

    for name, path in bundled_templates().items():
        click.echo(f"{name:<18} {load_template(path).description}")


@templates_group.command("show", cls=Command)
@click.argument("template")
@click.option("--scenario", "scenario", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Draw this scenario's counters (default: the modern tactical example's kinds).")
@output_option(f"PNG file to write ({REPLACED}).", required=True)
@click.option("--px", type=click.IntRange(24, 400), default=96, show_default=True,
              help="Edge of each counter in the preview, in pixels.")
@click.option("--cols", type=click.IntRange(1, 40), default=10, show_default=True, help="Counters a row.")
def show_command(template: str, scenario: str | None, output: str, px: int, cols: int) -> None:
    """Preview TEMPLATE (a bundled name or a template file) as a contact
    sheet of every counter of a scenario, each unit's faces side by side."""
    from vmodtool.render.templates_preview import preview_template

    check_output(output, scenario, suffixes=(".png",), what="a PNG image")
    click.echo(f"{output}: {preview_template(template, scenario, output, px=px, cols=cols)}")


COMMANDS = (templates_group,)
