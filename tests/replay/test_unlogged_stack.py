"""A MovePiece naming a stack VASSAL created without logging it (the
"unknown piece" warnings of the TLD chain): VASSAL replaying the log ignores
it, the replay too, and the engine keeps where the pieces are on the
mover's board (``Engine.ghosts``) so that the chain check can tell a next
log saved on the mover's machine from pieces moved between the logs."""

from __future__ import annotations

from tests.replay.test_engine import base, game, log, move, piece, stack, where
from vmodtool.replay import Replay
from vmodtool.vassal.commands import RemovePiece


def _start() -> list[str]:
    # p1 and p3 in stack s1 at (100, 100)
    return base() + [piece("p3", "Main Map", 100, 100, "C3"), stack("s1", "Main Map", 100, 100, "p1", "p3")]


def _steps() -> list[str]:
    # both pieces leave (100, 100) and come back by an old-style undo: VASSAL
    # then makes a stack at (100, 100) with an id it never logs, and the
    # next step moves that whole stack by that id
    return [log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100)),
                stack("s3", "Main Map", 300, 300, "p1")),
            log(move("p3", "Main Map", (300, 300), "Main Map", (100, 100), "p1")),
            log(move("p3", "Main Map", (100, 100), "Main Map", (300, 300))),
            log(RemovePiece.build("s3").text, move("p1", "Main Map", (100, 100), "Main Map", (300, 300))),
            log(move("1168786995021", "Main Map", (400, 400), "Main Map", (100, 100)))]


def _undo_then_stack_move() -> Replay:
    return Replay([game(_start(), _steps())])


def test_a_move_of_an_unlogged_stack_is_ignored_and_explained() -> None:
    r = _undo_then_stack_move()
    steps = list(r.steps())
    assert where(r, "p1")[:2] == where(r, "p3")[:2] == ("Main Map", (100, 100))
    [w] = steps[4].warnings
    assert "created on the mover's machine without logging it" in w.message
    assert "1/A/1-36 Inf" in w.message and "went to (400,400)" in w.message
    assert r.engine is not None and r.engine.ghosts == {"p1": ("Main Map", 400, 400), "p3": ("Main Map", 400, 400)}


def test_a_logged_move_of_the_piece_ends_its_ghost() -> None:
    r = Replay([game(_start(), _steps() + [log(move("p1", "Main Map", (500, 500), "Main Map", (100, 100)))])])
    list(r.steps())
    assert r.engine is not None and r.engine.ghosts == {"p3": ("Main Map", 400, 400)}
    assert where(r, "p1")[:2] == ("Main Map", (500, 500))


def test_a_command_naming_a_removed_piece_says_when_it_was_removed() -> None:
    g = game(base(), [log(RemovePiece.build("s1").text), log(RemovePiece.build("s1").text),
                      log(move("s1", "Main Map", (9, 9), "Main Map", (100, 100)))])
    r = Replay([g])
    steps = list(r.steps())
    assert "removed at step 1" in steps[1].warnings[0].message
    assert "removed at step 1" in steps[2].warnings[0].message
    assert r.engine is not None and r.engine.ghosts == {"p1": ("Main Map", 100, 100)}   # s1 still held it


def test_pieces_left_in_a_removed_stack_are_ghosts_where_it_was() -> None:
    # VASSAL 3.7 takes a removed stack's pieces off the map with it (as the
    # replay does); the VASSAL that wrote an old log may have kept them
    g = game(_start(), [log(RemovePiece.build("s1").text)])
    r = Replay([g])
    list(r.steps())
    assert where(r, "p1")[0] is None
    assert r.engine is not None and r.engine.ghosts == {"p1": ("Main Map", 100, 100), "p3": ("Main Map", 100, 100)}
