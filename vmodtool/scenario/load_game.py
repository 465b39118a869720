"""Loading the ``game`` section: title, sides (with their colours) and
dice."""

from __future__ import annotations

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.colours import MIN_TEXT_CONTRAST, contrast_ratio, hex_rgb, readable_ink
from vmodtool.scenario.problems import Path

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
        sides.append(M.Side(sid, c.text(sp + ("name",), sid) or sid, fill, _side_ink(c, sp, sid, fill),
                            c.text(sp + ("stripe",))))
    c.unique_ids(p + ("sides",), "id", "side id")
    dice = tuple(d for d in c.get(p + ("dice",), list, []) if isinstance(d, str))
    return M.Game(id=c.text(p + ("id",), "") or "", title=c.text(p + ("title",), "") or "",
                  sides=tuple(sides), system=c.text(p + ("system",)),
                  note=c.text(p + ("note",)), scale=c.get(p + ("scale",), dict, {}),
                  dice=dice, designer=c.text(p + ("designer",)),
                  version=c.text(p + ("version",)), language=c.text(p + ("language",)))


def _side_ink(c: ProblemCollector, sp: Path, sid: str, fill: str) -> str:
    """The side's ink: as given (a located warning when it is hard to read on
    the fill: WCAG's 4.5:1 for text), else black or white, whichever reads
    better on the fill."""
    given = c.text(sp + ("ink",))
    rgb = hex_rgb(fill)
    if not given:
        if rgb is None:
            return "#000000"
        r, g, b = readable_ink(rgb)
        return f"#{r:02x}{g:02x}{b:02x}"
    ink = hex_rgb(given)
    if rgb is not None and ink is not None and contrast_ratio(rgb, ink) < MIN_TEXT_CONTRAST:
        c.err(sp + ("ink",), f"side {sid!r}: its ink {given} on its fill {fill} has a contrast of "
              f"{contrast_ratio(rgb, ink):.1f}:1, under the {MIN_TEXT_CONTRAST}:1 text needs to be read "
              f"(WCAG 2.1); leave ink out for black or white, whichever reads better", severity="warning")
    return given
