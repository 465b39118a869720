"""Loading the ``game`` section: title, sides (with their colours) and
dice."""

from __future__ import annotations

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_game"]


def build_game(c: ProblemCollector) -> M.Game:
    p = ("game",)
    sides = []
    fills: dict[str, str] = {}
    for i, (sp, _) in enumerate(c.list_of(p + ("sides",))):
        sid = c.text(sp + ("id",))
        if not sid:
            continue
        default = M.SIDE_PALETTE[i % len(M.SIDE_PALETTE)]
        fill = c.text(sp + ("fill",), default) or default
        if fill.lower() in fills:
            c.err(sp + ("fill",) if c.text(sp + ("fill",)) else sp,
                  f"side {sid!r} has the fill {fill} of side {fills[fill.lower()]!r}: their counters "
                  f"print alike (leave fill out for a colour of its own)", severity="warning")
        fills.setdefault(fill.lower(), sid)
        sides.append(M.Side(sid, c.text(sp + ("name",), sid) or sid, fill,
                            c.text(sp + ("ink",), "#000000") or "#000000",
                            c.text(sp + ("stripe",))))
    c.unique_ids(p + ("sides",), "id", "side id")
    dice = tuple(d for d in c.get(p + ("dice",), list, []) if isinstance(d, str))
    return M.Game(id=c.text(p + ("id",), "") or "", title=c.text(p + ("title",), "") or "",
                  sides=tuple(sides), system=c.text(p + ("system",)),
                  note=c.text(p + ("note",)), scale=c.get(p + ("scale",), dict, {}),
                  dice=dice, designer=c.text(p + ("designer",)),
                  version=c.text(p + ("version",)), language=c.text(p + ("language",)))
