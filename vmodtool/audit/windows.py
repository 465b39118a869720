"""Locations on the scenario's other map windows (``maps``, issue 46).

A location is a (map, label) pair.  On ``map`` the rules name it by its
label alone (``0504``), as they always have; on a window of ``maps`` by
``window: label`` (``Marne salient (strategic): 03.03``), the name the
report gives a place (:func:`vmodtool.audit.coverage.where_label`), so two
windows' hexes of one label are two locations, and stacking counts each
window's hex by itself.

Measuring rules measure within one window, on that window's grid: a move
between two windows is no path on one grid (the scenario does not say how
windows connect), so such a move is NOT CHECKED, never judged.
:class:`Windows` answers which window a location is on and what it is
there.  The kinds :data:`WINDOW_KINDS` judge units on any window; the
others are NOT CHECKED for a unit that stood on a window of ``maps``
(:func:`window_reasons`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from vmodtool.audit.coverage import units_at
from vmodtool.scenario.model import HexMap, Scenario

__all__ = ["window_location", "Windows", "WINDOW_KINDS", "BETWEEN_WINDOWS", "window_reasons"]

#: rule kinds that judge units on every map window (the others say NOT
#: CHECKED for a unit that stood on a window of ``maps``)
WINDOW_KINDS = frozenset({"stacking", "stack_order", "cohabitation", "movement_allowance", "command_range",
                          "setup_conformity", "hand_limit", "card_window", "card_source"})

#: how a rule's NOT CHECKED reason names what it measured on no grid
#: (:meth:`vmodtool.audit.coverage.Tally.reason`)
BETWEEN_WINDOWS = "between map windows (the scenario does not say how its windows connect)"


def window_location(window: str, label: str) -> str:
    """How rules name the location ``label`` of the map window ``window``
    (one of ``maps``)."""
    return f"{window}: {label}"


class Windows:
    """The scenario's windows beside ``map`` and their locations."""

    def __init__(self, scenario: Scenario) -> None:
        self.by_name: dict[str, HexMap] = {m.name: m for m in scenario.maps}

    def __bool__(self) -> bool:
        return bool(self.by_name)

    def location(self, window: str | None, label: str | None) -> str | None:
        """The location a place of ``window`` named ``label`` is (None: not a
        window of ``maps``, or no location of it)."""
        hex_map = self.by_name.get(window) if window is not None else None
        if hex_map is None or label is None:
            return None
        known = hex_map.areas.spaces if hex_map.areas is not None else hex_map.grid.hexes
        return window_location(hex_map.name, label) if label in known else None

    def split(self, location: str) -> tuple[HexMap, str] | None:
        """(window, label) of a location on a window of ``maps`` (None: a
        location of ``map``)."""
        if not self.by_name:
            return None
        name, sep, label = location.partition(": ")
        hex_map = self.by_name.get(name) if sep else None
        if hex_map is not None:
            return hex_map, label
        for name, hex_map in self.by_name.items():         # (a window's name with ": " in it)
            if location.startswith(name + ": "):
                return hex_map, location[len(name) + 2:]
        return None

    def common(self, a: str, b: str, main: HexMap) -> tuple[HexMap, str, str] | str:
        """The window both locations are on, with their labels there (``main``
        for two locations of ``map``), or why no grid measures between them:
        they are on two windows, and the scenario says nothing of how windows
        connect."""
        one, two = self.split(a), self.split(b)
        if one is None and two is None:
            return main, a, b
        if one is not None and two is not None and one[0] is two[0]:
            return one[0], one[1], two[1]
        return f"{a} and {b} are on two map windows, and no path on one grid joins them"

    def terrain(self, location: str, main: HexMap) -> str | None:
        """The terrain type id of a location on any window (``main``: the
        map rules read ``map``'s terrain from)."""
        found = self.split(location)
        if found is None:
            return main.terrain.get(location)
        return found[0].terrain.get(found[1])


def window_reasons(rules: Iterable[tuple[Any, Any]], on_windows: Mapping[str, str],
                   name_of: Callable[[str], str]) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED, for the rules of kinds not in
    :data:`WINDOW_KINDS`, while units stood on a window of ``maps``
    (``on_windows``: unit id → the last such place)."""
    if not on_windows:
        return {}
    why = (f"{len(on_windows)} unit(s) stood on a map window other than the scenario's map, which a rule of this "
           f"kind does not read yet: {units_at(on_windows, name_of)}")
    return {spec.id: why for spec, _ in rules if spec.kind not in WINDOW_KINDS}
