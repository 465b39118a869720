"""``vmodtool templates``: the bundled counter and card templates, listed,
and one previewed as a contact sheet (a counter template on a scenario's
counters, or on the modern tactical example's; a card template on sample
cards, or on a scenario's decks)."""

from __future__ import annotations

import click

from vmodtool.commands import REPLACED, BadInput, Command, check_output, output_option

__all__ = ["templates_command", "COMMANDS"]


@click.command("templates", cls=Command)
@click.argument("action", required=False, metavar="[show")
@click.argument("template", required=False, metavar="TEMPLATE]")
@click.option("--scenario", "scenario", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Preview on this scenario's counters or cards (default: the modern tactical example's counters, "
                   "sample cards).")
@output_option(f"PNG file the preview is written to ({REPLACED}).")
@click.option("--px", type=click.IntRange(24, 400), default=96, show_default=True,
              help="Edge of each counter in the preview, in pixels (cards: the width of each card; "
                   "without it cards are drawn at 150 dpi).")
@click.option("--cols", type=click.IntRange(1, 40), default=10, show_default=True,
              help="Counters (cards: at most 6) a row.")
def templates_command(action: str | None, template: str | None, scenario: str | None, output: str | None,
                      px: int, cols: int) -> None:
    """List the counter and card templates and preview one.

    Without arguments: the bundled templates, one a line (name, kind and
    description); a scenario chooses a counter template with
    styles.counter.template, a deck's card template with its template key.
    "show TEMPLATE -o FILE.png" draws TEMPLATE (a bundled name or a template
    file): a counter template on every counter of a scenario, each unit's
    faces side by side; a card template on sample cards (Latin and
    Cyrillic, fronts and backs) or on the cards of --scenario.

    \b
    Examples:
      vmodtool templates show silhouette --scenario examples/modern-tactical/scenario.yaml -o preview.png
      vmodtool templates show fate -o fate.png
    """
    if action is None:
        from vmodtool.scenario.card_templates import bundled_card_templates, load_card_template
        from vmodtool.scenario.templates import bundled_templates, load_template

        rows = [(name, "counter", load_template(path).description) for name, path in bundled_templates().items()]
        rows += [(name, "card", load_card_template(path).description)
                 for name, path in bundled_card_templates().items()]
        for name, kind, description in rows:
            click.echo(f"{name:<18} {kind:<8} {description}")
        return
    if action != "show" or template is None:
        raise BadInput("write `vmodtool templates` to list them or `vmodtool templates show NAME -o FILE.png`")
    if output is None:
        raise BadInput("give the preview's file with -o FILE.png")
    from vmodtool.render.templates_preview import is_card_template_ref, preview_card_template, preview_template

    check_output(output, scenario, suffixes=(".png",), what="a PNG image")
    if is_card_template_ref(template):
        given = click.get_current_context().get_parameter_source("px") is click.core.ParameterSource.COMMANDLINE
        drawn = preview_card_template(template, scenario, output, cols=min(cols, 6), width_px=px if given else None)
        click.echo(f"{output}: {drawn}")
    else:
        click.echo(f"{output}: {preview_template(template, scenario, output, px=px, cols=cols)}")


COMMANDS = (templates_command,)
