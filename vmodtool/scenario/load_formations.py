"""Loading the ``formations`` section (and, once the counters are built,
checking each formation's HQ)."""

from __future__ import annotations

from collections.abc import Sequence

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_formations", "check_formation_hqs"]


def build_formations(c: ProblemCollector, sides: Sequence[str]) -> list[M.Formation]:
    out = []
    for fp, _ in c.list_of(("formations",)):
        fid = c.text(fp + ("id",))
        if not fid:
            continue
        side = c.ref(fp + ("side",), sides, "side") or ""
        chits = c.get(fp + ("chits",), int, 0)
        if not c.within(fp + ("chits",), chits, L.MAX_CHITS, 0):
            chits = 0
        out.append(M.Formation(fid, side, c.text(fp + ("name",), fid) or fid,
                               c.text(fp + ("hq",)), chits,
                               c.text(fp + ("command",), "normal") or "normal"))
    c.unique_ids(("formations",), "id", "formation id")
    return out


def check_formation_hqs(c: ProblemCollector, counters: Sequence[M.Counter]) -> None:
    """Each formation's ``hq`` is one of its counters."""
    by_id = {x.id: x for x in counters}
    for fp, _ in c.list_of(("formations",)):
        hq = c.text(fp + ("hq",))
        if hq is None:
            continue
        counter = by_id.get(hq)
        if counter is None:
            close = c.close_match(hq, list(by_id) if len(by_id) <= c.hint_budget else ())
            c.err(fp + ("hq",), f"unknown counter {hq!r} as HQ"
                  + (f"; did you mean {close!r}?" if close else ""))
            continue
        fid = c.text(fp + ("id",))
        if counter.formation and fid and counter.formation != fid:
            c.err(fp + ("hq",), f"HQ {hq!r} belongs to formation {counter.formation!r}, not {fid!r}")
