"""Combat-move kinds (``docs/seed-rules.md`` §4.11): ``retreat`` and
``advance_after_combat`` judge the moves a combat window makes combat moves
(:mod:`vmodtool.audit.combat`), which ``movement_allowance`` then leaves
alone.

A combat move of a unit of the side whose combat it is that does not move
away from the enemy is an advance; every other combat move is a retreat
(or a displacement).  Both are measured from where the unit began its
combat moves in the window, so a retreat of two hexes dragged hex by hex
is one retreat of two hexes.  On an area map hexes are spaces and
distances count connections; a combat move the typed connections cannot
measure is NOT CHECKED (:func:`vmodtool.audit.coverage.unjoined`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable
from typing import Any

from vmodtool.audit.api import Event, GameView, Rule, RuleContext, UnitView, Violation
from vmodtool.audit.combat import (
    COMBAT_EVENTS,
    CombatSpec,
    Window,
    combat_enemies,
    enemy_distance,
    enemy_hexes,
    map_neighbours,
    new_window,
)
from vmodtool.audit.coverage import Tally, unjoined
from vmodtool.audit.kinds import register
from vmodtool.audit.kinds.movement import CheapCopy, describe
from vmodtool.audit.selectors import matches
from vmodtool.audit.windows import Windows
from vmodtool.scenario.model import Scenario

__all__ = ["Retreat", "AdvanceAfterCombat"]


class _CombatMoves(CheapCopy, Rule, ABC):
    """A kind judging the combat moves of one class (``advance`` or not)."""

    _shared = ("ctx", "params", "spec")
    advances: bool = False

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.spec = CombatSpec(self.params.get("combat") or {})
        self.max_hexes = int(self.params.get("max_hexes", 1))
        self.subscribes = COMBAT_EVENTS | {"move", "game_end"}
        self.window: Window = new_window()
        self.unjudged = Tally()         # combat moves an area map's typed connections cannot measure

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        if event.kind != "move":
            self.spec.on_event(state, event, self.window)
            why = self.unjudged.reason("combat move(s)") if event.kind == "game_end" else None
            if why is not None:
                return [self.ctx.violation(event, state, why, severity="info", not_checked=True,
                                           moves_not_judged=self.unjudged.number)]
            return ()
        if event.unit is None or not event.from_hex or not event.to_hex or event.from_hex == event.to_hex:
            return ()
        try:
            unit = state.unit(event.unit)
        except KeyError:
            return ()
        window = self.window
        if not self.spec.combat_move(state, event, unit, window):
            return ()
        if not matches(self.params.get("subject"), unit, state, unit):
            return ()
        origin = window["origin"].get(unit.uid, event.from_hex)
        if not self.measurable(state, unit, origin, event.to_hex):
            return ()
        if CombatSpec.is_advance(state, unit, origin, event.to_hex, window) != self.advances:
            return ()
        problem = self.judge(state, unit, origin, event.to_hex, window)
        if problem is None:
            return ()
        message, evidence = problem
        return [self.ctx.violation(event, state, f"{describe(state, unit.uid)} {message}",
                                   units=[unit.uid], hexes=[origin, event.to_hex], origin=origin,
                                   **evidence)]

    def measurable(self, state: GameView, unit: UnitView, origin: str, to_hex: str, *others: str) -> bool:
        """Whether the map measures between ``origin`` and ``to_hex`` (and
        ``others``, from ``origin``): always on a hex map; on an area map
        when the typed connections join them and are declared complete
        (distances from the enemy are measured too), else the move is noted
        NOT CHECKED."""
        if state.scenario.maps and _on_window(state.scenario, (origin, to_hex, *others)):
            # on a window of ``maps``: not measured there yet (the kind is NOT CHECKED: audit/windows.py)
            self.unjudged = self.unjudged.noted(f"{describe(state, unit.uid)} {origin} → {to_hex}: "
                                                "on a map window other than the scenario's map")
            return False
        areas = state.scenario.map.areas
        if areas is None:
            return True
        for there in (to_hex, *others):
            gap = unjoined(areas, origin, there) or (
                None if areas.complete else "the typed connections are not declared complete")
            if gap is not None:
                self.unjudged = self.unjudged.noted(f"{describe(state, unit.uid)} {origin} → {to_hex}: {gap}")
                return False
        return True

    @abstractmethod
    def judge(self, state: GameView, unit: UnitView, origin: str, to_hex: str,
              window: Window) -> tuple[str, dict[str, Any]] | None:
        """The (message, evidence) of a combat move this kind refuses, or None."""

    def beyond_reach(self, state: GameView, what: str, origin: str, to_hex: str,
                     enemies: Collection[str]) -> tuple[str, dict[str, Any]] | None:
        """What both kinds refuse: more than ``max_hexes`` from where the
        move began, or into a hex the enemy holds."""
        far = state.scenario.map.distance(origin, to_hex)
        if far is not None and far > self.max_hexes:
            return (f"{what}: {far} hexes, at most {self.max_hexes}",
                    {"hexes_moved": far, "max_hexes": self.max_hexes})
        if to_hex in enemies:
            return f"{what}: {to_hex} holds enemy units", {"into": "enemy"}
        return None


@register("retreat")
class Retreat(_CombatMoves):
    """A retreat (a combat move that is not an advance) goes at most
    ``max_hexes`` hexes from where it began, ends farther from the enemy
    units of the combat than it began, never into an enemy-occupied hex nor
    (``enemy_zoc: prohibited``, the default) into a hex next to any enemy
    unit."""

    advances = False

    def judge(self, state: GameView, unit: UnitView, origin: str, to_hex: str,
              window: Window) -> tuple[str, dict[str, Any]] | None:
        what = f"retreated {origin} → {to_hex}"
        enemies = enemy_hexes(state, unit)
        beyond = self.beyond_reach(state, what, origin, to_hex, enemies)
        if beyond is not None:
            return beyond
        fighting = combat_enemies(state, unit, window, origin)
        before, after = (enemy_distance(state, unit, origin, fighting),
                         enemy_distance(state, unit, to_hex, fighting))
        if before is not None and after is not None and after <= before:
            return (f"{what}: not away from the enemy ({before} hex(es) from the nearest enemy "
                    f"of the combat before, {after} after)", {"enemy_before": before, "enemy_after": after})
        if self.params.get("enemy_zoc", "prohibited") == "prohibited" and \
                any(h in enemies for h in map_neighbours(state).get(to_hex, ())):
            return f"{what}: into an enemy zone of control (next to an enemy unit)", {"into": "enemy_zoc"}
        return None


@register("advance_after_combat")
class AdvanceAfterCombat(_CombatMoves):
    """An advance (a combat move of the side whose combat it is, not away
    from the enemy) enters a hex vacated in the window first and goes at
    most ``max_hexes`` (default 1) from where it began; never into an
    enemy-occupied hex."""

    advances = True

    def judge(self, state: GameView, unit: UnitView, origin: str, to_hex: str,
              window: Window) -> tuple[str, dict[str, Any]] | None:
        hex_map = state.scenario.map
        what = f"advanced {origin} → {to_hex}"
        beyond = self.beyond_reach(state, what, origin, to_hex, enemy_hexes(state, unit))
        if beyond is not None:
            return beyond
        vacated = [h for h, side in window["vacated"].items() if side != unit.side]
        if not self.measurable(state, unit, origin, to_hex, *vacated):
            return None                 # (a vacated space the typed connections do not reach)
        if not any(hex_map.distance(origin, v) == 1 and (hex_map.distance(v, to_hex) or 0) <= self.max_hexes - 1
                   for v in vacated):
            left = ", ".join(sorted(vacated)) or "none"
            return (f"{what}: not into a hex the enemy vacated in this combat (vacated: {left})",
                    {"vacated": sorted(vacated)})
        return None


def _on_window(scenario: Scenario, locations: Iterable[str]) -> bool:
    """Whether a location is on a window of ``maps`` (``scenario.maps``)."""
    windows = Windows(scenario)
    return any(windows.split(location) is not None for location in locations)
