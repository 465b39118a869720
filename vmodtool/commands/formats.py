"""``vmodtool inspect`` and ``vmodtool dump``: what a VASSAL file holds."""

from __future__ import annotations

import json

import click

from vmodtool.commands import (
    Command,
    board_size_options,
    board_sizes,
    check_report_output,
    format_option,
    module_option,
    report_output_option,
    write_report,
)

__all__ = ["inspect", "dump"]


@click.command(cls=Command)
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@report_output_option()
@format_option("text", "json", help="Readable text, or one JSON object.")
@board_size_options
@module_option("For a save or log: its module (.vmod, folder or buildFile), to count the hands.")
def inspect(file: str, output: str | None, fmt: str, board_sizes_file: str | None,
            board_size: tuple[str, ...], module: str | None) -> None:
    """Summarise a module, save, log or buildFile.

    FILE is a module, extension, save, log, buildFile or metadata file.
    Modules: version, maps, boards, grids, pieces and prototypes.  Saves and
    logs: encoding, module, players (never their passwords), pieces, steps.

    \b
    Examples:
      vmodtool inspect examples/formats/demo.vlog
      vmodtool inspect --format json examples/formats/demo.vmod -o demo.json
    """
    from vmodtool.inspection import format_inspection, inspect_file

    check_report_output(output, file, board_sizes_file, module)
    report = inspect_file(file, board_sizes=board_sizes(board_sizes_file, board_size), module=module)
    if fmt == "json":
        write_report([json.dumps(report, ensure_ascii=False, indent=2)], output)
    else:
        write_report(format_inspection(report), output, one_line_items=True)


@click.command(cls=Command)
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@report_output_option()
@format_option("text", "jsonl", help="Indented tree, or JSON Lines (one record per command).")
def dump(file: str, output: str | None, fmt: str) -> None:
    """Print the decoded contents of a save, log or module.

    Saves and logs: the command tree, one line per command with its path in
    the tree (``3.1.0``).  Modules and buildFiles: every piece slot and
    prototype with its trait chain.  Player ids (VASSAL passwords) are
    replaced by the player's name.

    \b
    Examples:
      vmodtool dump examples/formats/demo.vlog
      vmodtool dump --format jsonl examples/formats/demo.vmod -o demo.jsonl
    """
    from vmodtool.inspection import dump_records, format_dump_record

    check_report_output(output, file)
    records = dump_records(file)
    if fmt == "jsonl":
        write_report((json.dumps(rec, ensure_ascii=False) for rec in records), output)
    else:
        # a record may be a block (a piece and its traits): its lines, each one line
        lines = (line for rec in records for line in format_dump_record(rec).split("\n"))
        write_report(lines, output, one_line_items=True)


COMMANDS = [inspect, dump]
