"""check-game's sections are replay visitors (issue 41 item 1): each a
``SectionVisitor`` walked over the record's steps through the replay's own
dispatch, its rule for an event stated once in a ``visit_<event>`` method
(no event-type dispatch in the package), every function simple."""

from __future__ import annotations

import ast
from pathlib import Path
from types import GenericAlias, SimpleNamespace

import pytest

from vmodtool.checkgame import CHECKS, GameRecord, check_game, record_game
from vmodtool.checkgame.visitor import SectionVisitor, run_section
from vmodtool.replay.engine import Roster
from vmodtool.replay.events import CardDrawEvent, DeckRef, PieceRef, Place
from vmodtool.replay.game import Step

PACKAGE = Path(__file__).resolve().parents[2] / "vmodtool" / "checkgame"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEMO_LOG = EXAMPLES / "formats" / "demo.vlog"
DEMO_MODULE = EXAMPLES / "formats" / "demo.vmod"


def _event_names(node: ast.expr, tuples: dict[str, list[str]]) -> list[str]:
    """The class names an ``isinstance``/``type() is`` operand names (a
    module-level tuple of classes read through)."""
    if isinstance(node, ast.Tuple):
        return [n for element in node.elts for n in _event_names(element, tuples)]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return tuples.get(node.id, [node.id])
    return []


def _dispatches(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tuples = {target.id: [n for e in node.value.elts for n in _event_names(e, {})]
              for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
              for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2:
            names = _event_names(node.args[1], tuples)
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) \
                and isinstance(node.left.func, ast.Name) and node.left.func.id == "type":
            names = [n for c in node.comparators for n in _event_names(c, tuples)]
        found.extend(f"{path.name}:{node.lineno} {n}" for n in names if n.endswith("Event"))
    return found


def test_no_section_dispatches_on_event_types() -> None:
    """The replay's visitor dispatches events; a section only overrides
    ``visit_<event>`` (a card draw is a move unless it says otherwise)."""
    found = [hit for path in sorted(PACKAGE.glob("*.py")) for hit in _dispatches(path)]
    assert found == []


def test_the_probe_finds_a_dispatch(tmp_path: Path) -> None:
    """The scan above is not blind: it finds both shapes, a tuple of
    classes read through."""
    probe = tmp_path / "probe.py"
    probe.write_text("_MOVES = (MoveEvent, events.CardDrawEvent)\n"
                     "def f(e):\n    return isinstance(e, _MOVES) or type(e) is ChatEvent\n", encoding="utf-8")
    assert _dispatches(probe) == ["probe.py:3 MoveEvent", "probe.py:3 CardDrawEvent", "probe.py:3 ChatEvent"]


def test_every_function_of_the_package_is_simple() -> None:
    """No function above cyclomatic complexity 30 (radon); the sections'
    ``section()`` were 33 to 105."""
    radon = pytest.importorskip("radon.complexity")
    complex_ = [(path.name, block.name, block.complexity) for path in sorted(PACKAGE.glob("*.py"))
                for block in radon.cc_visit(path.read_text(encoding="utf-8"))
                for block in [block, *getattr(block, "methods", [])] if block.complexity > 30]
    assert complex_ == []


def test_every_check_is_a_section_visitor_and_one_walk_gives_each_ones_verdict() -> None:
    """``check_game`` walks all sections side by side over the record; each
    gives the verdict it gives walked alone (no section reads another's
    state)."""
    import importlib

    record = record_game([DEMO_LOG], module=DEMO_MODULE)
    together = check_game(record).sections
    assert [s.name for s in together] == list(CHECKS)
    for name, section in zip(CHECKS, together, strict=True):
        module = importlib.import_module(f"vmodtool.checkgame.{name}")
        # (not a generic alias such as dict[str, …]: on Python 3.10 it passes isinstance(…, type))
        visitors = [v for v in vars(module).values()
                    if isinstance(v, type) and not isinstance(v, GenericAlias)
                    and issubclass(v, SectionVisitor) and v is not SectionVisitor]
        assert len(visitors) == 1, name
        alone = run_section(visitors[0](record))
        assert alone.record() == section.record() == module.section(record).record()


def _card_game(*, undone: bool) -> GameRecord:
    """Алиса draws a card (a CardDrawEvent, a MoveEvent's subclass); with
    ``undone`` her next step undoes it."""
    card = PieceRef("c1", "piece;;;;Огонь", ("null;0;0;0",))
    draw = CardDrawEvent(piece=card, source=Place("Колоды", 1, 1), target=Place("Рука", 200, 2),
                         deck=DeckRef("d1", "Колода судьбы", 40), hand="Рука", player="Алиса")
    steps = [Step(1, "game.vlog", 1, 0, "Алиса", "Франция", [draw], undone_by=2 if undone else None)]
    if undone:
        steps.append(Step(2, "game.vlog", 2, 1, "Алиса", "Франция", [], undo=True, undoes=1,
                          undo_kind="bracket"))
    replay = SimpleNamespace(roster=Roster(), files=[Path("game.vlog")], games=[], chain_differences=[],
                             log_starts=[0])
    return GameRecord([Path("game.vlog")], replay, steps)  # type: ignore[arg-type]


def test_a_card_drawn_is_a_move_to_undo_and_a_draw_to_decks() -> None:
    """Each section states its rule for a card draw once: the undo section
    names it as the move it is (the visitor's default), the decks section
    counts it as a draw and not as a move."""
    record = _card_game(undone=True)
    undo, decks = check_game(record, ["undo", "decks"]).sections
    (finding,) = undo.findings
    assert finding.message.startswith("Алиса undid step 1 (") and " moved " in finding.message
    # a deck event of an undone step counts (only an undo step's own events
    # take back what they undo)
    assert decks.data["draws"] == 1 and decks.summary[0].endswith("1 used in the logs (1 card(s) drawn)")
