"""``vmodtool replay``: a log (or a chain of logs) as moves between hexes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from vmodtool.commands import (
    Command,
    board_size_options,
    board_sizes,
    check_report_output,
    extensions_option,
    format_option,
    module_option,
    report_output_option,
    warn,
    with_extensions,
    write_report,
)

if TYPE_CHECKING:
    from vmodtool.replay import Replay

__all__ = ["replay_command"]


@click.command("replay", cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@module_option("The module (.vmod, unpacked folder or bare buildFile) for hex names.")
@extensions_option()
@report_output_option()
@format_option("text", "jsonl", help="Readable move list, or JSON Lines.")
@board_size_options
@click.option("--step", "step", type=click.IntRange(min=0), default=None, metavar="N",
              help="Print the board state after step N (0: the saved state) instead.")
@click.option("--png", "png", type=click.Path(dir_okay=False, path_type=str), default=None, metavar="FILE",
              help="With --step N: write the picture of the board after step N (boards, pieces as VASSAL "
                   "draws them) as a PNG.")
@click.option("--no-chat", is_flag=True, help="Leave chat lines out of the move list.")
@click.option("--viewer", "viewer_side", metavar="SIDE", default=None,
              help="Watch as this side: its hands and what its players masked or hid are named "
                   "(default: an observer, who sees only what is public).")
@click.option("--referee", is_flag=True, help="Watch as a referee: every card and hidden piece is named.")
def replay_command(logs: tuple[str, ...], module: str | None, extensions: tuple[str, ...], output: str | None,
                   fmt: str,
                   board_sizes_file: str | None, board_size: tuple[str, ...], step: int | None,
                   png: str | None, no_chat: bool, viewer_side: str | None, referee: bool) -> None:
    """Replay VASSAL logs as moves between hexes.

    Step by step: who moved which unit from which hex to which hex, face
    changes, chat and dice.  Several LOGS are one game: the end of each is
    compared with the saved state of the next, and every difference is
    reported.  Warnings go to stderr (and, as records, into JSON Lines).
    Player passwords are never printed.

    \b
    Examples:
      vmodtool replay examples/formats/demo.vlog -m examples/formats/demo.vmod
      vmodtool replay turn1.vlog turn2.vlog -m game.vmod -x extra.vmdx --format jsonl -o game.jsonl
    """
    from vmodtool.replay import Replay
    from vmodtool.replay.output import board_lines, board_records, jsonl_lines, text_lines
    from vmodtool.replay.viewer import Viewer

    if referee and viewer_side is not None:
        raise click.UsageError("give --viewer SIDE or --referee, not both")
    viewer = Viewer("referee") if referee else Viewer.of_side(viewer_side) if viewer_side else Viewer()
    if png is not None and step is None:
        raise click.UsageError("--png needs --step N (the step to draw)")
    check_report_output(output, *logs, module, *extensions, board_sizes_file)
    if png is not None:
        from vmodtool.fileio import refuse_overwrite
        refuse_overwrite(png, *logs, *extensions, *(p for p in (module, board_sizes_file) if p))
    replay = Replay.open(list(logs), module=with_extensions(module, extensions),
                         board_sizes=board_sizes(board_sizes_file, board_size),
                         viewer=viewer)
    if png is not None and step is not None:
        _write_png(replay, step, png, warn)
    elif step is not None:
        board = replay.state_at(step)
        write_report(board_records(board) if fmt == "jsonl" else board_lines(board), output,
                     one_line_items=True)
    else:
        write_report(jsonl_lines(replay) if fmt == "jsonl" else text_lines(replay, show_chat=not no_chat),
                     output, one_line_items=True)
    for w in replay.warnings:
        warn(str(w))


def _write_png(replay: Replay, step: int, path: str, warn: Callable[[str], None]) -> None:
    import io

    from vmodtool.fileio import atomic_write
    from vmodtool.render.step_picture import render_scene
    from vmodtool.replay.scene import SceneBuilder, scene_at

    builder = SceneBuilder(replay.positions, replay.positions.module)
    picture = render_scene(scene_at(replay, step, builder), builder.catalog, warn)
    buf = io.BytesIO()
    picture.save(buf, "PNG", optimize=False)
    atomic_write(path, buf.getvalue())


COMMANDS = [replay_command]
