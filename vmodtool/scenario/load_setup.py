"""Loading the ``setup`` section: the units (and activation chits) each
hex or box holds at the start, their faces, and reinforcements' arrival."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_setup", "END_TURN_CHIT"]

END_TURN_CHIT = "end_turn"


class _SetupReader:
    """The setup entries read against the scenario's parts: each unit set
    up once."""

    def __init__(self, c: ProblemCollector, hex_map: M.HexMap, counters: Sequence[M.Counter],
                 boxes: Sequence[M.Box], formations: Sequence[M.Formation],
                 unit_types: Mapping[str, M.UnitType], turns: M.TurnStructure | None) -> None:
        self.c = c
        self.map = hex_map
        self.hexes = hex_map.grid.hexes
        self.counters = {x.id: x for x in counters}
        self.box_ids = [b.id for b in boxes]
        self.formation_ids = [f.id for f in formations]
        self.unit_types = unit_types
        self.turns = turns
        self.placed: dict[str, Path] = {}
        #: the ``maps`` windows by id (a hex entry's ``map``)
        self.windows: dict[str, M.HexMap] = {}

    def unit(self, path: Path) -> str | None:
        c = self.c
        uid = c.text(path)
        if uid is None:
            return None
        if uid not in self.counters:
            close = c.close_match(uid, list(self.counters) if len(self.counters) <= c.hint_budget else ())
            c.err(path, f"unknown unit {uid!r}" + (f"; did you mean {close!r}?" if close else
                  " (counter ids with a count get .1, .2, … appended)"))
            return None
        if uid in self.placed:
            line, _ = c.doc.where(self.placed[uid])
            c.err(path, f"unit {uid!r} is set up twice (also at line {line})")
            return None
        self.placed[uid] = path
        return uid

    def units(self, path: Path) -> list[str]:
        return [u for u in (self.unit(up) for up, _ in self.c.list_of(path)) if u]

    def faces(self, path: Path, units: Sequence[str]) -> dict[str, str]:
        c = self.c
        result = {}
        for uid, face in c.get(path, dict, {}).items():
            fp = path + (uid,)
            if uid not in units:
                c.err(fp, f"{uid!r} is not one of the units of this entry")
                continue
            utype = self.counters[uid].type
            names = [f.name for f in self.unit_types[utype].faces]
            if face not in names:
                c.err(fp, f"unit type {utype!r} has no face {face!r}; its faces are {', '.join(names)}")
                continue
            result[uid] = face
        return result

    def hex_entry(self, sp: Path, entry: Mapping[str, Any]) -> M.SetupStack | None:
        c = self.c
        hexes, window = self.hexes, None
        if "map" in entry:
            window = c.ref(sp + ("map",), list(self.windows), "map id of 'maps'")
            if window is None:
                return None
            hexes = self.windows[window].grid.hexes
        h = c.hex_id(sp + ("hex",), hexes, "setup hex")
        units = self.units(sp + ("stack",))
        if "stack" not in entry:
            c.err(sp, "a hex setup entry lists its units under 'stack' (bottom to top)")
        if h:
            return M.SetupStack(h, tuple(units), self.faces(sp + ("faces",), units), c.pos(sp), window)
        return None

    def box_entry(self, sp: Path) -> M.SetupBox | None:
        c = self.c
        position = c.pos(sp)
        box = c.ref(sp + ("box",), self.box_ids, "box")
        units = self.units(sp + ("units",))
        chits = []
        for cp, _ in c.list_of(sp + ("chits",)):
            chit = c.ref(cp, self.formation_ids, "formation (or end_turn)", allow=(END_TURN_CHIT,))
            if chit:
                chits.append(chit)
        arrive_turn = arrive_hex = arrive_edge = None
        if isinstance(c.get(sp + ("arrive",)), dict):
            ap = sp + ("arrive",)
            arrive_turn = c.get(ap + ("turn",), int)
            arrive_hex = c.hex_id(ap + ("hex",), self.hexes, "entry hex")
            arrive_edge = c.ref(ap + ("edge",), self.map.edges, "map edge")
            if (self.turns and arrive_turn is not None
                    and not (self.turns.first <= arrive_turn <= self.turns.last)):
                c.err(ap + ("turn",), f"turn {arrive_turn} is outside the game "
                                      f"({self.turns.first}–{self.turns.last})")
        if box:
            return M.SetupBox(box, tuple(units), tuple(chits), self.faces(sp + ("faces",), units),
                              arrive_turn, arrive_hex, arrive_edge, position)
        return None


def build_setup(c: ProblemCollector, hex_map: M.HexMap, counters: Sequence[M.Counter], boxes: Sequence[M.Box],
                formations: Sequence[M.Formation], unit_types: Mapping[str, M.UnitType],
                turns: M.TurnStructure | None, path: Path = ("setup",),
                windows: Sequence[M.HexMap] = ()) -> list[M.SetupStack | M.SetupBox]:
    """The set-up at ``path`` (the game's ``setup``, or one scenario's of
    the ``scenarios`` section): each unit set up once; ``windows``: the
    ``maps`` a hex entry may name."""
    reader = _SetupReader(c, hex_map, counters, boxes, formations, unit_types, turns)
    reader.windows = {w.id: w for w in windows}
    out: list[M.SetupStack | M.SetupBox] = []
    for sp, entry in c.list_of(path):
        if not isinstance(entry, dict):
            continue
        found: M.SetupStack | M.SetupBox | None
        if "hex" in entry:
            found = reader.hex_entry(sp, entry)
        elif "box" in entry:
            found = reader.box_entry(sp)
        else:
            c.err(sp, "a setup entry names a 'hex' (with a 'stack') or a 'box' (with 'units' or 'chits')")
            found = None
        if found is not None:
            out.append(found)
    # chits per formation must not exceed the formation's number of chits
    chit_count: dict[str, int] = {}
    for placed in out:
        if isinstance(placed, M.SetupBox):
            for chit in placed.chits:
                chit_count[chit] = chit_count.get(chit, 0) + 1
    for formation in formations:
        if chit_count.get(formation.id, 0) > formation.chits:
            c.err(path, f"formation {formation.id!r} has {formation.chits} chit(s) but "
                              f"{chit_count[formation.id]} are set up", severity="warning")
    return out
