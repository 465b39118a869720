"""``vmodtool replay``: a log (or a chain of logs) as moves between hexes."""

from __future__ import annotations

import json

import click

from vmodtool.commands import echo_lines

__all__ = ["replay_command"]


@click.command("replay")
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--module", "-m", "module", type=click.Path(exists=True, path_type=str),
              help="The module (.vmod, unpacked folder or bare buildFile) for hex names.")
@click.option("--board-sizes", "board_sizes_file", type=click.Path(exists=True, dir_okay=False,
                                                                    path_type=str),
              help="JSON file of board pixel sizes (shape of board-sizes.json).")
@click.option("--board-size", "board_sizes", multiple=True, metavar="NAME=WxH",
              help="Pixel size of a board whose image is not in the module (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True, help="Readable move list, or JSON Lines.")
@click.option("--step", "step", type=int, default=None, metavar="N",
              help="Print the board state after step N (0: the saved state) instead.")
@click.option("--no-chat", is_flag=True, help="Leave chat lines out of the move list.")
def replay_command(logs, module, board_sizes_file, board_sizes, fmt, step, no_chat) -> None:
    """Replay VASSAL logs step by step: who moved which unit from which hex
    to which hex, face changes, chat and dice.

    Several LOGS are one game: the end of each is compared with the saved
    state of the next, and every difference is reported.  Player passwords
    are never printed.
    """
    from vmodtool.inspection import parse_board_sizes
    from vmodtool.replay import Replay, load_board_sizes
    from vmodtool.replay.report import board_lines, board_records, step_lines, step_records, summary_lines

    sizes = load_board_sizes(board_sizes_file) if board_sizes_file else {}
    sizes.update(parse_board_sizes(board_sizes))
    replay = Replay.open(list(logs), module=module, board_sizes=sizes)
    if step is not None:
        board = replay.state_at(step)
        if fmt == "jsonl":
            echo_lines(board_records(board))
        else:
            echo_lines(board_lines(board))
        return
    steps = []
    for s in replay.steps():
        steps.append(s)
        if fmt == "jsonl":
            echo_lines(step_records(s))
        else:
            echo_lines(step_lines(s, show_chat=not no_chat))
    if fmt == "jsonl":
        for d in replay.chain_differences:
            rec = {"type": "chain_difference"}
            rec.update(d.record())
            click.echo(json.dumps(rec, ensure_ascii=False))
        for w in replay.warnings:
            rec = {"type": "warning"}
            rec.update(w.record())
            click.echo(json.dumps(rec, ensure_ascii=False))
        click.echo(json.dumps({"type": "summary", "steps": len(steps),
                               "undo_steps": sum(1 for s in steps if s.undo),
                               "warnings": len(replay.warnings),
                               "chain_differences": len(replay.chain_differences),
                               "boards_without_size": replay.missing_board_sizes},
                              ensure_ascii=False))
    else:
        echo_lines(summary_lines(steps, replay.chain_differences, replay.warnings,
                                 replay.missing_board_sizes))


COMMANDS = [replay_command]
