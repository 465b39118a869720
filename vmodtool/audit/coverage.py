"""No false clean (issue 42 item 4): the units no rule looked at.

A unit bound by the scenario that stands on a map in a place the scenario
does not name — neither a location of its map (a hex, or a space of an
area map) nor a box — is seen by no rule there: a stacking rule counts the
units of each location, and this one is in none.  The audit then may not
say "ok" for a rule that judges where units are: each such rule goes to the
report's ``not_checked`` with the units and the places (exit 3), and the
report lists the units (``units_not_checked``).

Rules that never read where a unit is (the card kinds) are not affected.

On an area map the kinds that measure the map (:data:`GEOMETRY_KINDS`)
judge spaces through the typed connections (the same neighbours, distance
and path cost a hex map gives); what the typed graph cannot measure is
theirs to say NOT CHECKED for: the whole rule when the connections are only
a proposal or none is typed (:func:`area_not_judged`), one move or one unit
when a space involved has no connection or no path joins the two
(:func:`unjoined`, tallied by :class:`Tally` and reported once at the end).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from vmodtool.replay.events import Place
from vmodtool.scenario.locations import AreaMap

__all__ = ["where_label", "units_at", "unjudged_reasons", "untold_reasons", "LOCATION_FREE_KINDS", "GEOMETRY_KINDS",
           "area_not_judged", "unjoined", "Tally"]

#: rule kinds that judge no unit's place (cards in hands and decks)
LOCATION_FREE_KINDS = frozenset({"hand_limit", "card_window", "card_source"})

#: rule kinds that measure the map between locations (paths, ranges,
#: adjacency): on an area map they measure over the typed connections, and
#: are NOT CHECKED where those are not known (:func:`area_not_judged`)
GEOMETRY_KINDS = frozenset({"movement_allowance", "command_range", "retreat", "advance_after_combat"})

#: how many units a reason names before "and N more"
_SAMPLE = 8


def where_label(place: Place) -> str:
    """A map place as the report names it: ``map: location`` (VASSAL's
    name), or ``map (x,y)`` where the replay could name none."""
    loc = place.location
    if loc is not None and loc != "offboard":
        return f"{place.map}: {loc}"
    return f"{place.map} ({place.x},{place.y})" + (" offboard" if loc == "offboard" else "")


def units_at(places: Mapping[str, str], name_of: Callable[[str], str]) -> str:
    """The first few units of ``places`` (unit id → a place), named, each at
    its place, and how many more: the sample a NOT CHECKED reason shows."""
    uids = sorted(places)
    shown = "; ".join(f"{name_of(uid)} at {places[uid]}" for uid in uids[:_SAMPLE])
    return shown + (f" and {len(uids) - _SAMPLE} more" if len(uids) > _SAMPLE else "")


def unjudged_reasons(rules: Iterable[tuple[Any, Any]], unjudged: Mapping[str, str],
                     name_of: Callable[[str], str]) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED, for every rule (of a kind that reads
    places) while some units stood where no location or box of the
    scenario is (``unjudged``: unit id → the last such place)."""
    if not unjudged:
        return {}
    why = (f"{len(unjudged)} unit(s) stood on a map where the scenario names no location (no hex or space of its "
           f"map, no box), so no rule looked at them there: {units_at(unjudged, name_of)} (take the map's "
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


def area_not_judged(rules: Iterable[Any], areas: AreaMap | None) -> dict[str, str]:
    """Rule id → why it is NOT CHECKED on an area map (``areas``; None: a
    hex map) whose connections cannot be measured: the enabled rules of
    :data:`GEOMETRY_KINDS` when the connections are only proposed
    (``connections_proposed``: a guess from the spaces' positions) or none
    is typed; ``rules`` are the scenario's rule entries."""
    if areas is None:
        return {}
    if areas.proposed:
        why = ("the map's connections are a proposal (map.connections_proposed: true), not the printed map; "
               "check them (vmodtool board --spaces) and remove the flag")
    elif not areas.connections:
        why = "the area map has no connections typed (map.connections), so no path or range between spaces is known"
    else:
        return {}
    return {r.id: f"a rule of kind {r.kind} measures paths and ranges between locations; {why}"
            for r in rules if r.kind in GEOMETRY_KINDS and r.enabled}


def unjoined(areas: AreaMap, a: str, b: str) -> str | None:
    """Why the typed connections cannot measure between spaces ``a`` and
    ``b`` (None: they can): a space no connection reaches, or no path
    joining the two.  The typed graph may be incomplete, so such a move or
    range is NOT CHECKED, never judged."""
    if a == b and a in areas.spaces:
        return None                         # (no way to measure: none needed)
    for name in dict.fromkeys((a, b)):
        if name not in areas.spaces:
            return f"{name} is not a space of the area map"
        if not areas.connected(name):
            return f"no connection is typed for {name}"
    if areas.distance(a, b) is None:
        return f"no path joins {a} and {b} in the typed connections"
    return None


class Tally(NamedTuple):
    """What a rule could not judge (moves, units), counted, a few named:
    an immutable value a rule keeps in its memory (``self.t = self.t.noted(…)``:
    copied with it and rolled back with it on undo) and reports once, at the
    end of the game, as its NOT CHECKED reason (:meth:`reason`)."""

    number: int = 0
    sample: tuple[str, ...] = ()

    def noted(self, what: str) -> Tally:
        return Tally(self.number + 1, self.sample + (what,) if len(self.sample) < _SAMPLE else self.sample)

    def reason(self, what: str, where: str = "on the area map (its typed connections may be incomplete)"
               ) -> str | None:
        """``N <what> not judged <where>: …`` (None: nothing was left unjudged)."""
        if not self.number:
            return None
        more = f"; and {self.number - len(self.sample)} more" if self.number > len(self.sample) else ""
        return f"{self.number} {what} not judged {where}: {'; '.join(self.sample)}{more}"
