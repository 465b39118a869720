"""No false clean (issue 42 item 4): the units no rule looked at.

A unit bound by the scenario that stands on a map in a place the scenario
does not name — neither a location of its map (a hex, or a space of an
area map) nor a box — is seen by no rule there: a stacking rule counts the
units of each location, and this one is in none.  The audit then may not
say "ok" for a rule that judges where units are: each such rule goes to the
report's ``not_checked`` with the units and the places (exit 3), and the
report lists the units (``units_not_checked``).

Rules that never read where a unit is (the card kinds) are not affected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from vmodtool.replay.events import Place

__all__ = ["where_label", "unjudged_reasons", "untold_reasons", "LOCATION_FREE_KINDS", "GEOMETRY_KINDS",
           "area_not_judged"]

#: rule kinds that judge no unit's place (cards in hands and decks)
LOCATION_FREE_KINDS = frozenset({"hand_limit", "card_window", "card_source"})

#: rule kinds that measure the map between hexes (paths, ranges, adjacency):
#: on an area map they cannot judge spaces (they are written for hex
#: geometry) and are NOT CHECKED rather than guessed
GEOMETRY_KINDS = frozenset({"movement_allowance", "command_range", "escorted_move"})

#: how many units a reason names before "and N more"
_SAMPLE = 8


def where_label(place: Place) -> str:
    """A map place as the report names it: ``map: location`` (VASSAL's
    name), or ``map (x,y)`` where the replay could name none."""
    loc = place.location
    if loc is not None and loc != "offboard":
        return f"{place.map}: {loc}"
    return f"{place.map} ({place.x},{place.y})" + (" offboard" if loc == "offboard" else "")


def unjudged_reasons(rules: Iterable[tuple[Any, Any]], unjudged: Mapping[str, str],
                     name_of: Callable[[str], str]) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED, for every rule (of a kind that reads
    places) while some units stood where no location or box of the
    scenario is (``unjudged``: unit id → the last such place)."""
    if not unjudged:
        return {}
    uids = sorted(unjudged)
    shown = [f"{name_of(uid)} at {unjudged[uid]}" for uid in uids[:_SAMPLE]]
    more = f" and {len(uids) - _SAMPLE} more" if len(uids) > _SAMPLE else ""
    why = (f"{len(uids)} unit(s) stood on a map where the scenario names no location (no hex or space of its "
           f"map, no box), so no rule looked at them there: {'; '.join(shown)}{more} (take the map's "
           "locations with map.from_module, or bind the window or zone as a box)")
    return {spec.id: why for spec, _ in rules if spec.kind not in LOCATION_FREE_KINDS}


def untold_reasons(rules: Iterable[tuple[Any, Any]], untold: Iterable[str]) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED, for every rule of a kind that reads
    places, while pieces of the game could not be told apart from pieces
    the binding makes units of (``PieceBinder.untold``: their names): a unit
    among them was counted by no rule."""
    names = sorted(untold)
    if not names:
        return {}
    more = f" and {len(names) - _SAMPLE} more" if len(names) > _SAMPLE else ""
    why = (f"pieces named {', '.join(names[:_SAMPLE])}{more} could not be bound (which piece of the module each "
           "is cannot be told), and units may be among them: no rule counted them")
    return {spec.id: why for spec, _ in rules if spec.kind not in LOCATION_FREE_KINDS}


def area_not_judged(rules: Iterable[Any], has_areas: bool) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED on an area map (``has_areas``): the
    enabled rules of :data:`GEOMETRY_KINDS`, whose paths and ranges are
    hex geometry; ``rules`` are the scenario's rule entries."""
    if not has_areas:
        return {}
    return {r.id: (f"a rule of kind {r.kind} measures paths and ranges between hexes; the map is an area map "
                   "(spaces and connections), which it cannot judge")
            for r in rules if r.kind in GEOMETRY_KINDS and r.enabled}
