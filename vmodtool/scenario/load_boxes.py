"""Loading the off-map places: ``boxes`` (holding boxes, cups, the dead
pile …) and ``tracks`` (a turn or casualty track's spaces)."""

from __future__ import annotations

from collections.abc import Sequence

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_boxes", "build_tracks"]


def build_boxes(c: ProblemCollector, sides: Sequence[str]) -> list[M.Box]:
    out = []
    for bp, _ in c.list_of(("boxes",)):
        bid = c.text(bp + ("id",))
        if not bid:
            continue
        side = c.ref(bp + ("side",), sides, "side")
        out.append(M.Box(bid, c.text(bp + ("name",), bid) or bid,
                         c.text(bp + ("role",), "holding") or "holding", side))
    c.unique_ids(("boxes",), "id", "box id")
    return out


def build_tracks(c: ProblemCollector) -> list[M.Track]:
    out = []
    for tp, _ in c.list_of(("tracks",)):
        tid = c.text(tp + ("id",))
        if not tid:
            continue
        spaces = c.get(tp + ("spaces",))
        if isinstance(spaces, int) and not isinstance(spaces, bool):
            if not c.within(tp + ("spaces",), spaces, L.MAX_TRACK_SPACES):
                spaces = 0
            names = tuple(str(i) for i in range(1, spaces + 1))
        elif isinstance(spaces, list):
            names = tuple(str(s) for s in spaces)
        else:
            names = ()
        shows = tuple(s for s in c.get(tp + ("shows",), list, []) if isinstance(s, str))
        out.append(M.Track(tid, c.text(tp + ("name",), tid) or tid,
                           c.text(tp + ("kind",), "generic") or "generic", names, shows))
    c.unique_ids(("tracks",), "id", "track id")
    return out
