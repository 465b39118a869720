"""Loading the ``turns`` section (first and last turn, the phases with
their activation, the player turns) and ``resources`` (a replacement
points schedule by turn)."""

from __future__ import annotations

from collections.abc import Sequence

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_turns", "check_resources"]


def build_turns(c: ProblemCollector, boxes: Sequence[M.Box], sides: Sequence[str]) -> M.TurnStructure | None:
    p = ("turns",)
    if not isinstance(c.get(p), dict):
        return None
    phases = []
    box_ids = [b.id for b in boxes]
    for pp, _ in c.list_of(p + ("structure",)):
        pid = c.text(pp + ("phase",))
        if not pid:
            continue
        phases.append(M.Phase(pid, c.text(pp + ("name",), pid) or pid, _activation(c, pp, box_ids)))
    c.unique_ids(p + ("structure",), "phase", "phase id")
    for sp, _ in c.list_of(p + ("player_turns",)):
        c.ref(sp, sides, "side")
    first = c.get(p + ("first",), int, 1)
    if not c.within(p + ("first",), first, L.MAX_TURN, -L.MAX_TURN):
        first = 1
    last = c.get(p + ("last",), int, first)
    if not c.within(p + ("last",), last, L.MAX_TURN, -L.MAX_TURN):
        last = first
    if last < first:
        c.err(p + ("last",), f"the last turn ({last}) comes before the first ({first})")
    return M.TurnStructure(first, last, tuple(phases),
                           tuple(s for s in c.get(p + ("player_turns",), list, []) if isinstance(s, str)))


def _activation(c: ProblemCollector, pp: Path, box_ids: Sequence[str]) -> M.Activation | None:
    if not isinstance(c.get(pp + ("activation",)), dict):
        return None
    ap = pp + ("activation",)
    end_chits = c.get(ap + ("end_turn_chits",), int, 0)
    if not c.within(ap + ("end_turn_chits",), end_chits, L.MAX_CHITS, 0):
        end_chits = 0
    return M.Activation(c.text(ap + ("kind",), "none") or "none",
                        c.ref(ap + ("cup",), box_ids, "box"),
                        c.ref(ap + ("drawn",), box_ids, "box"),
                        end_chits,
                        tuple(s for s in c.get(ap + ("steps",), list, []) if isinstance(s, str)))


def check_resources(c: ProblemCollector, tracks: Sequence[M.Track], turns: M.TurnStructure | None,
                    sides: Sequence[str], path: Path = ("resources",)) -> None:
    """The resources at ``path`` (the game's, or one scenario's) against
    the tracks, turns and sides."""
    rp = path + ("replacement_points",)
    if not isinstance(c.get(rp), dict):
        return
    c.ref(rp + ("track",), [t.id for t in tracks], "track")
    for turn, per_side in c.get(rp + ("schedule",), dict, {}).items():
        tp = rp + ("schedule", turn)
        try:
            number = int(turn)
        except (TypeError, ValueError):
            c.err(tp, f"the schedule is keyed by turn numbers; {turn!r} is not one")
            continue
        if turns and not (turns.first <= number <= turns.last):
            c.err(tp, f"turn {number} is outside the game ({turns.first}–{turns.last})")
        for side in (per_side or {}) if isinstance(per_side, dict) else {}:
            if side not in sides:
                c.err(tp + (side,), f"unknown side {side!r}")
