"""Combat windows (``docs/seed-rules.md`` §4.11): when a move is a combat
move (a retreat, an advance after combat, a displacement) rather than
movement.

A window opens at a combat roll (a ``dice`` event, its label matching
``roll_label`` when given), at an ``#attack`` annotation (the hexes it
names) or at the start of a phase the scenario names as a combat phase.
A roll's combat is where the roller's units (or the units the ``units``
selector picks) stand next to enemy units: those hexes and the enemy hexes
next to them.  A move that starts in a combat hex or next to one while the
window is open is a combat move, and so is every later drag of a unit that
made one (a retreat of two hexes in two drags); its end joins the combat.
A roll's window closes at the next phase or turn boundary, or at the first
move of a unit away from the combat (normal movement resumed); a combat
phase's window lasts the phase.

The spec (:class:`CombatSpec`) is the rule entry's ``combat`` mapping and
never changes; what a window holds is a plain dict (:func:`new_window`) kept
in the rule's memory, so the engine's copies for undo copy it with the rest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from vmodtool.audit.api import Event, GameView, UnitView
from vmodtool.audit.selectors import as_list, matches

__all__ = ["CombatSpec", "new_window", "COMBAT_EVENTS", "combat_enemies", "enemy_distance", "enemy_hexes", "hex_sides",
           "map_neighbours"]

#: the events a rule with combat windows takes besides its own
COMBAT_EVENTS = frozenset({"dice", "annotation", "phase_start", "phase_end", "turn_start", "turn_end"})

#: what a window holds: whether it is open ("roll", "phase" or None), the
#: side whose combat it is, the combat hexes (None: everywhere, a combat
#: phase), the hexes left in it (hex -> the side that left), the units that
#: made a combat move in it and where each began (uid -> hex)
Window = dict[str, Any]


def new_window() -> Window:
    return {"open": None, "side": None, "hexes": [], "vacated": {}, "origin": {}}


class CombatSpec:
    """A rule entry's ``combat`` mapping, read once (shared by the rule's
    copies)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.rolls = bool(spec.get("rolls", True))
        label = spec.get("roll_label")
        self.roll_label = re.compile(str(label)) if label else None
        self.phases = frozenset(as_list(spec.get("phases")))
        self.annotations = frozenset(as_list(spec.get("annotations", ["attack"])))
        self.units = spec.get("units")

    def __deepcopy__(self, memo: dict[int, Any]) -> CombatSpec:
        return self

    # -- what opens and closes a window -----------------------------------------------
    def on_event(self, state: GameView, event: Event, window: Window) -> None:
        """Open or close ``window`` at a clock, dice or annotation event."""
        kind = event.kind
        if kind == "phase_start":
            _close(window)
            if state.phase in self.phases:
                window.update(open="phase", side=state.phasing_side, hexes=None)
        elif kind in ("phase_end", "turn_start", "turn_end"):
            _close(window)
        elif kind == "dice":
            if not self.rolls or (self.roll_label is not None and not self.roll_label.search(event.text or "")):
                return
            # (a roll whose step names no side: the phasing side's, who attacks in its phases)
            side = event.side or state.phasing_side
            hexes = self._contact(state, side)
            if not hexes:
                return                      # (no unit of the roller's next to an enemy: not a combat roll)
            self._open_roll(window, side, hexes)
        elif kind == "annotation":
            ann = event.annotation
            if ann is None or ann.kind not in self.annotations:
                return
            named = [h for h in as_list(ann.args.get("from")) + as_list(ann.args.get("to")) if isinstance(h, str)]
            if named:
                self._open_roll(window, event.side, set(named))

    @staticmethod
    def _open_roll(window: Window, side: str | None, hexes: set[str]) -> None:
        if window["open"] == "phase":
            return                          # (the whole phase is a combat already)
        if window["open"] is None:
            window.update(open="roll", side=side, hexes=sorted(hexes), vacated={}, origin={})
        else:
            window["hexes"] = sorted(set(window["hexes"]) | hexes)

    def _contact(self, state: GameView, side: str | None) -> set[str]:
        """The hexes of the roller's units (or the ``units`` selector's)
        next to an enemy unit, and those enemy hexes."""
        neighbours = map_neighbours(state)
        sides = hex_sides(state)
        out: set[str] = set()
        if self.units is None:
            if side is None:
                return out
            memo = vars(state)
            key = (memo.get("_token"), memo.get("_all_moves"), side)
            hit = memo.get("_combat_contact")
            if hit is not None and hit[0] == key:
                return set(hit[1])          # (rolls in a row, nothing moved between)
            enemy = {h for h, here in sides.items() if any(s != side for s in here)}
            for hex_id, here in sides.items():
                if side not in here:
                    continue
                for h in neighbours.get(hex_id, ()):
                    if h in enemy:
                        out.add(hex_id)
                        out.add(h)
            memo["_combat_contact"] = (key, frozenset(out))
            return out
        for u in state.units():
            if not u.on_map or u.hex is None or not matches(self.units, u, state, u):
                continue
            for h in neighbours.get(u.hex, ()):
                if any(s != u.side for s in sides.get(h, ())):
                    out.add(u.hex)
                    out.add(h)
        return out

    # -- the moves ---------------------------------------------------------------------
    def combat_move(self, state: GameView, event: Event, unit: UnitView, window: Window) -> bool:
        """Whether a move (already applied to ``state``) is a combat move;
        records it in the window (the hex it left, where the unit began).
        A roll's window closes at a move that is not one."""
        if window["open"] is None or not event.from_hex or not event.to_hex:
            return False
        a, b = event.from_hex, event.to_hex
        origin = window["origin"]
        inside = unit.uid in origin
        if not inside:
            hexes = window["hexes"]
            if hexes is not None:
                near = set(hexes)
                close = a in near or any(h in near for h in map_neighbours(state).get(a, ()))
                if not close:
                    if window["open"] == "roll":
                        _close(window)      # (movement goes on elsewhere: the combat is over)
                    return False
            if self.units is not None and window["open"] == "roll" and not matches(self.units, unit, state, unit):
                return False
            origin[unit.uid] = a
        if not any(u.side == unit.side for u in state.units_in(a)):
            window["vacated"][a] = unit.side
        if window["hexes"] is not None and b not in window["hexes"]:
            window["hexes"] = [*window["hexes"], b]
        return True

    @staticmethod
    def is_advance(state: GameView, unit: UnitView, origin: str, to_hex: str, window: Window) -> bool:
        """A combat move is an advance when its unit is of the side whose
        combat it is and it did not move away from the enemy; else a
        retreat (or a displacement)."""
        if window["side"] is None or unit.side != window["side"]:
            return False
        enemy = combat_enemies(state, unit, window, origin)
        before, after = enemy_distance(state, unit, origin, enemy), enemy_distance(state, unit, to_hex, enemy)
        return before is None or after is None or after <= before


def _close(window: Window) -> None:
    window.update(new_window())


def map_neighbours(state: GameView) -> Mapping[str, tuple[str, ...]]:
    """Each hex's neighbours on the scenario map (the table the movement
    kinds keep per map)."""
    from vmodtool.audit.kinds.movement import map_neighbours as table
    return table(state.scenario.map)


def hex_sides(state: GameView) -> dict[str, set[str]]:
    """hex -> the sides of the units on it (from the units' counters: no
    unit views are made); kept with the state until a unit is placed,
    moved or removed (a roll after a roll, a retreat after its roll)."""
    memo = vars(state)
    key = (memo.get("_token"), memo.get("_all_moves"))
    hit = memo.get("_combat_sides")
    if hit is not None and hit[0] == key:
        return hit[1]  # type: ignore[no-any-return]
    out = _hex_sides(state)
    memo["_combat_sides"] = (key, out)
    return out


def _hex_sides(state: GameView) -> dict[str, set[str]]:
    counter = state.scenario.counter
    out: dict[str, set[str]] = {}
    for uid, s in state.unit_places().items():
        if not s.present or s.hex is None:
            continue
        try:
            side = counter(uid).side             # (no view made)
        except KeyError:
            side = state.unit(uid).side
        out.setdefault(s.hex, set()).add(side)
    return out


#: how far :func:`enemy_distance` looks (a retreat or an advance is judged
#: near its combat)
SEARCH_RADIUS = 12


def combat_enemies(state: GameView, unit: UnitView, window: Window, origin: str) -> set[str]:
    """The hexes of the enemy units in the combat: those of the window's
    hexes that hold one (in a combat phase, those next to ``origin``, where
    the unit began its combat moves); every enemy hex when there are none."""
    enemy = enemy_hexes(state, unit)
    hexes = window["hexes"]
    near = set(map_neighbours(state).get(origin, ())) if hexes is None else set(hexes)
    return (enemy & near) or enemy


def enemy_distance(state: GameView, unit: UnitView, hex_id: str, enemy: set[str] | None = None) -> int | None:
    """Hexes from ``hex_id`` to the nearest of ``enemy`` (default: every
    hex with a unit of another side); None: none within
    :data:`SEARCH_RADIUS`."""
    neighbours = map_neighbours(state)
    if enemy is None:
        enemy = enemy_hexes(state, unit)
    if hex_id in enemy:
        return 0
    seen = {hex_id}
    frontier = [hex_id]
    for d in range(1, SEARCH_RADIUS + 1):
        nxt = []
        for a in frontier:
            for b in neighbours.get(a, ()):
                if b in seen:
                    continue
                if b in enemy:
                    return d
                seen.add(b)
                nxt.append(b)
        frontier = nxt
    return None


def enemy_hexes(state: GameView, unit: UnitView) -> set[str]:
    """The hexes that hold a unit of another side."""
    return {h for h, sides in hex_sides(state).items() if any(s != unit.side for s in sides)}
