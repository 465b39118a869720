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

from vmodtool.audit.api import Event
from vmodtool.audit.selectors import as_list, matches
from vmodtool.audit.state import AuditState, Unit

__all__ = ["CombatSpec", "new_window", "COMBAT_EVENTS", "enemy_distance", "enemy_hexes"]

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
    def on_event(self, state: AuditState, event: Event, window: Window) -> None:
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
            hexes = self._contact(state, event.side)
            if not hexes:
                return                      # (no unit of the roller's next to an enemy: not a combat roll)
            self._open_roll(window, event.side, hexes)
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

    def _contact(self, state: AuditState, side: str | None) -> set[str]:
        """The hexes of the roller's units (or the ``units`` selector's)
        next to an enemy unit, and those enemy hexes."""
        neighbours = state.scenario.map.neighbours
        sides: dict[str, set[str]] = {}
        units = [u for u in state.units() if u.on_map and u.hex is not None]
        for u in units:
            sides.setdefault(u.hex or "", set()).add(u.side)
        out: set[str] = set()
        for u in units:
            if self.units is not None:
                if not matches(self.units, u, state, u):
                    continue
            elif side is None or u.side != side:
                continue
            assert u.hex is not None
            try:
                near = neighbours(u.hex)
            except (KeyError, ValueError):
                continue
            for h in near:
                if any(s != u.side for s in sides.get(h, ())):
                    out.add(u.hex)
                    out.add(h)
        return out

    # -- the moves ---------------------------------------------------------------------
    def combat_move(self, state: AuditState, event: Event, unit: Unit, window: Window) -> bool:
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
                try:
                    close = a in near or any(h in near for h in state.scenario.map.neighbours(a))
                except (KeyError, ValueError):
                    close = False
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
    def is_advance(state: AuditState, unit: Unit, origin: str, to_hex: str, window: Window) -> bool:
        """A combat move is an advance when its unit is of the side whose
        combat it is and it did not move away from the enemy; else a
        retreat (or a displacement)."""
        if window["side"] is None or unit.side != window["side"]:
            return False
        before, after = enemy_distance(state, unit, origin), enemy_distance(state, unit, to_hex)
        return before is None or after is None or after <= before


def _close(window: Window) -> None:
    window.update(new_window())


def enemy_distance(state: AuditState, unit: Unit, hex_id: str) -> int | None:
    """Hexes from ``hex_id`` to the nearest unit of another side (None: no
    enemy on the map)."""
    distance = state.scenario.map.distance
    best: int | None = None
    for other in state.units():
        if other.side == unit.side or not other.on_map or other.hex is None:
            continue
        try:
            d = distance(hex_id, other.hex)
        except (KeyError, ValueError):
            continue
        if best is None or d < best:
            best = d
    return best


def enemy_hexes(state: AuditState, unit: Unit) -> set[str]:
    """The hexes that hold a unit of another side."""
    return {u.hex for u in state.units() if u.side != unit.side and u.on_map and u.hex is not None}
