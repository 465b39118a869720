"""``vmodtool templates``: the bundled counter templates, listed, and one
previewed as a contact sheet (on a scenario's counters, or on the modern
tactical example's)."""

from __future__ import annotations

import click

from vmodtool.commands import REPLACED, BadInput, Command, check_output, output_option

__all__ = ["templates_command", "COMMANDS"]


@click.command("templates", cls=Command)
@click.argument("action", required=False, metavar="[show")
@click.argument("template", required=False, metavar="TEMPLATE]")
@click.option("--scenario", "scenario", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Preview on this scenario's counters (default: the modern tactical example's).")
@output_option(f"PNG file the preview is written to ({REPLACED}).")
@click.option("--px", type=click.IntRange(24, 400), default=96, show_default=True,
              help="Edge of each counter in the preview, in pixels.")
@click.option("--cols", type=click.IntRange(1, 40), default=10, show_default=True, help="Counters a row.")
def templates_command(action: str | None, template: str | None, scenario: str | None, output: str | None,
                      px: int, cols: int) -> None:
    """List the counter templates and preview one.

    Without arguments: the bundled templates, one a line (name and
    description); a scenario chooses one with styles.counter.template.
    "show TEMPLATE -o FILE.png" draws TEMPLATE (a bundled name or a template
    file) on every counter of a scenario, each unit's faces side by side.

    \b
    Examples:
      vmodtool templates
      vmodtool templates show silhouette --scenario examples/modern-tactical/scenario.yaml -o preview.png
    """
    if action is None:
        from vmodtool.scenario.templates import bundled_templates, load_template

        for name, path in bundled_templates().items():
            click.echo(f"{name:<18} {load_template(path).description}")
        return
    if action != "show" or template is None:
        raise BadInput("write `vmodtool templates` to list them or `vmodtool templates show NAME -o FILE.png`")
    if output is None:
        raise BadInput("give the preview's file with -o FILE.png")
    from vmodtool.render.templates_preview import preview_template

    check_output(output, scenario, suffixes=(".png",), what="a PNG image")
    click.echo(f"{output}: {preview_template(template, scenario, output, px=px, cols=cols)}")


COMMANDS = (templates_command,)
