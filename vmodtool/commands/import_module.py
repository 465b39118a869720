"""``vmodtool import``: a scenario skeleton from any VASSAL module."""

from __future__ import annotations

import os
from pathlib import Path

import click

from vmodtool.commands import (
    REPLACED,
    STDOUT,
    BadInput,
    Command,
    board_size_options,
    board_sizes,
    check_output,
    output_option,
    warn,
    write_report,
)

__all__ = ["import_module"]

_SUFFIXES = (".yaml", ".yml")


def _module_reference(module: str, output: str | None) -> str:
    """The module's path as the scenario names it: relative to the folder
    of the output (to the current folder on stdout), with ``/``."""
    base = os.getcwd() if output is None or output == STDOUT else os.path.dirname(os.path.abspath(output))
    try:
        relative = os.path.relpath(os.path.abspath(module), base)
    except ValueError:                      # another drive (Windows): keep it absolute
        relative = os.path.abspath(module)
    return relative.replace(os.sep, "/")


@click.command("import", cls=Command)
@click.argument("module", type=click.Path(path_type=str))
@output_option(f"Write the scenario to FILE.yaml instead of stdout ({REPLACED}; '-' is stdout).")
@board_size_options
@click.option("--setups", "setups_dir", type=click.Path(path_type=str), default=None,
              help="Folder with the saves of the module's predefined setups (for a bare buildFile; "
                   "its other .vsav/.sav files are proposed too).")
def import_module(module: str, output: str | None, board_sizes_file: str | None,
                  board_size: tuple[str, ...], setups_dir: str | None) -> None:
    """Write a scenario skeleton that binds a module's pieces.

    MODULE is any .vmod, unpacked module folder or bare buildFile, built by
    vmodtool or not.  The scenario takes its map from the module's map
    window with a hex grid (other windows become boxes), proposes sides
    (palette folders or a side property), unit types and markers from the
    pieces' prototypes, palette folders and names, the flip layer as the
    units' faces, the dice buttons and the turn tracker.  Every proposal is
    commented; check them, add terrain and rules, then run check-scenario.
    A bare buildFile has no board images: give the map's board size with
    --board-size or --board-sizes.  The module's predefined setups (File >
    New Game) become a scenarios list, each set-up read from its save; a
    bare buildFile's saves are read from the folder --setups names.

    \b
    Examples:
      vmodtool import examples/formats/demo.vmod -o demo-scenario.yaml
      vmodtool import tld/buildFile --board-size Normandy=5340x5024 --setups tld/scenarios -o tld.yaml
    """
    from vmodtool.scenario.from_module import scenario_from_module
    from vmodtool.scenario.import_setups import propose_scenarios
    from vmodtool.vassal.module import Module

    if not os.path.exists(module):
        raise BadInput(f"{module}: no such file or folder (expected a VASSAL module: a .vmod, an unpacked "
                       "module folder or a buildFile)")
    if output is not None and output != STDOUT:
        check_output(output, module, board_sizes_file, suffixes=_SUFFIXES, what="a YAML scenario")
    if setups_dir is not None and not os.path.isdir(setups_dir):
        raise BadInput(f"--setups {setups_dir}: no such folder (expected the folder holding the module's "
                       "predefined setup saves)")
    sizes = board_sizes(board_sizes_file, board_size)
    with Module.open(module) as opened:
        result = scenario_from_module(opened, module_file=_module_reference(module, output),
                                      board_sizes=sizes,
                                      scenario_file=output if output not in (None, STDOUT) else None)
        text, setup_notes = propose_scenarios(result.text, opened, Path(setups_dir) if setups_dir else None,
                                              sizes)
    write_report([text], output)
    for note in [*result.notes, *setup_notes]:
        warn(note)
    if output is not None and output != STDOUT:
        from vmodtool.textsafe import escape_controls

        shown = escape_controls(output)
        click.echo(f"wrote {shown}: {result.sides} sides, {result.unit_types} unit types, "
                   f"{result.markers} marker kinds, {result.boxes} boxes; check it with: "
                   f"vmodtool check-scenario {shown}")


COMMANDS = [import_module]
