"""The audit's memos of piece reads (a new piece's name, read to see whether
it is a card, and the properties the binding reads) give what a fresh read
of the same piece gives, for every piece of every example game."""

from pathlib import Path

import pytest

from vmodtool.audit.binding import read_property
from vmodtool.audit.card_feed import piece_name
from vmodtool.audit.game import scenario_positions
from vmodtool.replay import Replay
from vmodtool.replay.events import AddEvent, ChangeEvent, MoveEvent, PieceRef, RemoveEvent
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYS = ("UnitId", "MarkerKind", "CardId", "Formation", "PieceUID", "BasicName", "CurrentMap")


def _refs(system: str) -> list[PieceRef]:
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    positions, properties, hands = scenario_positions(scenario)
    out: list[PieceRef] = []
    for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
        replay = Replay.open([log], positions=positions, properties=properties, hands=hands)
        for step in replay.steps():
            for ev in step.events:
                if type(ev) in (MoveEvent, AddEvent, RemoveEvent):
                    out.append(ev.piece)
                elif type(ev) is ChangeEvent:
                    out += [ev.before, ev.after]
    return out


@pytest.mark.parametrize("system", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_memos_give_the_fresh_reads(system: str) -> None:
    refs = _refs(system)
    assert len(refs) > 100
    for _ in range(2):                      # filling the memos, then answered from them
        for ref in refs:
            fresh = PieceRef(ref.id, ref.type_text, ref.states)
            assert piece_name(ref) == fresh.name
            for key in KEYS:
                assert read_property(ref, key) == PieceRef(ref.id, ref.type_text, ref.states).get_property(key)


def test_a_piece_id_is_read_per_piece() -> None:
    """Two pieces of one chain share every memo entry but their id's."""
    ref = next(r for r in _refs("modern-tactical") if r.id)
    twin = PieceRef(f"{ref.id}-twin", ref.type_text, ref.states)
    assert read_property(ref, "PieceUID") == ref.id
    assert read_property(twin, "PieceUID") == f"{ref.id}-twin"
    assert read_property(twin, "UnitId") == read_property(ref, "UnitId")
