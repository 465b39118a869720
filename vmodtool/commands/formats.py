"""``vmodtool inspect`` and ``vmodtool dump``: what a VASSAL file holds."""

from __future__ import annotations

import json

import click

from vmodtool.commands import echo_lines

__all__ = ["inspect", "dump"]


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Readable text, or one JSON object.")
@click.option("--board-size", "board_sizes", multiple=True, metavar="NAME=WxH",
              help="Pixel size of a board whose image is not in the file (repeatable).")
def inspect(file: str, fmt: str, board_sizes: tuple) -> None:
    """Show what a module, extension, save, log, buildFile or metadata file holds.

    Modules: version, maps, boards, grids, pieces and prototypes.  Saves and
    logs: encoding, module, players (never their passwords), pieces, steps.
    """
    from vmodtool.inspection import format_inspection, inspect_file, parse_board_sizes

    report = inspect_file(file, board_sizes=parse_board_sizes(board_sizes))
    if fmt == "json":
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        echo_lines(format_inspection(report))


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True,
              help="Indented readable tree, or JSON Lines (one record per command).")
def dump(file: str, fmt: str) -> None:
    """Print the decoded contents of a save, log or module.

    Saves and logs: the command tree, one line per command with its path in
    the tree (``3.1.0``).  Modules and buildFiles: every piece slot and
    prototype with its trait chain.  Player ids (VASSAL passwords) are
    replaced by the player's name.
    """
    from vmodtool.inspection import dump_records, format_dump_record

    records = dump_records(file)
    if fmt == "jsonl":
        echo_lines(json.dumps(rec, ensure_ascii=False) for rec in records)
    else:
        echo_lines(format_dump_record(rec) for rec in records)


COMMANDS = [inspect, dump]
