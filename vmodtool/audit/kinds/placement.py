"""Placement kinds: ``placement`` (``docs/seed-rules.md`` §2.5 item 10: a
piece entering the map)
and ``setup_conformity`` (item 13: the at-start state against the
scenario's setup)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vmodtool.audit.api import Event, GameView, Rule, UnitView, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.rulekit import (
    Placer,
    describe_selector,
    is_elimination_box,
    join_names,
    marker_kinds,
    marker_name,
    matches_carried,
    phase_name,
    unit_list,
)
from vmodtool.audit.selectors import Subject, as_list, matches
from vmodtool.audit.windows import window_location
from vmodtool.scenario.model import Scenario, SetupBox, SetupStack

__all__ = ["Placement", "SetupConformity"]


def _on(params: Mapping[Any, Any]) -> str:
    # YAML 1.1 reads an unquoted ``on`` key as True
    on: str = params.get("on", params.get(True, "enter_map"))
    return on


@register("placement")
class Placement(Rule):
    """When a piece matching ``subject`` enters the map (``on: enter_map``:
    from a box, the palette or created; ``on: return_from_box``: from an
    eliminated/dead box or re-created), it must be placed in one of
    ``phases``, on ``face`` (a face name or ``reduced_if_two_step``), in a hex
    holding a unit matching ``hex_has`` (relative to the placed unit; for a
    marker ``side: friendly`` is the placing player's side), holding nothing
    matching ``hex_has_not`` (``marker_kind`` selects marker pieces), whose
    terrain is not in ``terrain_not``, and with ``unique_on_map`` no other
    piece matching ``subject`` of its side may be on the map.

    ``subject: {marker_kind: k}`` places marker pieces (``marker_add`` or a
    marker moved from a box onto the map).  One violation per unmet
    requirement."""

    subscribes = frozenset({"enter", "add", "marker_add", "marker_move"})

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        p = self.params
        subject = p.get("subject")
        kinds = marker_kinds(subject)
        if kinds is not None:
            marker = event.marker
            if event.kind not in ("marker_add", "marker_move") or marker is None or marker not in kinds:
                return []
            if event.to_hex is None or (event.kind == "marker_move" and event.from_hex is not None):
                return []
            return self._check_marker(state, event, kinds, marker, event.to_hex)
        if event.kind not in ("enter", "add") or event.unit is None:
            return []
        try:
            unit = state.unit(event.unit)
        except KeyError:
            return []
        if unit.hex is None or not matches(subject, unit, state):
            return []
        if _on(p) == "return_from_box" and event.kind == "enter" and \
                not is_elimination_box(state.scenario, event.from_box):
            return []
        return self._check_unit(state, event, unit, unit.hex)

    # -- units -----------------------------------------------------------------------------
    def _check_unit(self, state: GameView, event: Event, unit: UnitView, hex_id: str) -> list[Violation]:
        """The requirements for ``unit``, placed in ``hex_id`` (its hex)."""
        p = self.params
        scenario = state.scenario
        out: list[Violation] = []
        who = f"{unit.name} ({unit.uid})"
        verb = "returned to the map" if _on(p) == "return_from_box" else "placed"

        def v(msg: str, check: str, hexes: Sequence[str | None] = (hex_id,),
              units: Sequence[str] = (unit.uid,)) -> None:
            out.append(self.ctx.violation(event, state, msg, units=list(units), hexes=list(hexes),
                                          check=check))

        phases = as_list(p.get("phases"))
        if phases and state.phase not in phases:
            v(f"{who} {verb} in {hex_id} in the {phase_name(scenario, state.phase)}; this is allowed only "
              f"in the {join_names([phase_name(scenario, x) for x in phases])}.", "phase")
        face = p.get("face")
        if face is not None:
            if face == "reduced_if_two_step":
                if unit.steps >= 2 and unit.state.get("step") != "reduced":
                    v(f"{who} {verb} in {hex_id} {unit.face} side up; a unit of {unit.steps} steps must "
                      f"come back reduced.", "face")
            elif face != "any" and unit.face not in as_list(face):
                v(f"{who} {verb} in {hex_id} {unit.face} side up; it must be placed "
                  f"{join_names(as_list(face))} side up.", "face")
        out.extend(self._hex_checks(state, event, hex_id, unit, unit.uid, who, verb))
        if p.get("unique_on_map"):
            others = [o for o in state.units() if o.uid != unit.uid and o.on_map and o.side == unit.side
                      and matches(p.get("subject"), o, state)]
            if others:
                v(f"{who} {verb} in {hex_id} while {unit_list(others)} is already on the map; only one "
                  f"{describe_selector(p.get('subject'), scenario)} unit of a side may be on the map.",
                  "unique", hexes=[hex_id] + [o.hex for o in others if o.hex != hex_id],
                  units=[unit.uid] + [o.uid for o in others])
        return out

    # -- markers ----------------------------------------------------------------------------
    def _check_marker(self, state: GameView, event: Event, kinds: tuple[str, ...], marker: str,
                      hex_id: str) -> list[Violation]:
        """The requirements for a ``marker`` counter the event placed in ``hex_id``."""
        p = self.params
        scenario = state.scenario
        out: list[Violation] = []
        who = f"{marker_name(scenario, marker)} marker"
        subj = Placer(side=event.side or state.phasing_side)
        phases = as_list(p.get("phases"))
        if phases and state.phase not in phases:
            out.append(self.ctx.violation(
                event, state, f"{who} placed in {hex_id} in the {phase_name(scenario, state.phase)}; "
                f"this is allowed only in the {join_names([phase_name(scenario, x) for x in phases])}.",
                hexes=[hex_id], check="phase", marker=event.unit))
        out.extend(self._hex_checks(state, event, hex_id, subj, event.unit, who, "placed"))
        if p.get("unique_on_map"):
            others = sorted(m.hex for m in state.markers() if m.key != event.unit and m.hex is not None
                            and m.kind in kinds)        # the hexes of the others
            if others:
                out.append(self.ctx.violation(
                    event, state, f"{who} placed in {hex_id} while another is on the map in "
                    f"{', '.join(others)}; only one may be on the map.",
                    hexes=[hex_id, *others], check="unique", marker=event.unit))
        return out

    # -- shared hex requirements ------------------------------------------------------------------
    def _hex_checks(self, state: GameView, event: Event, hex_id: str, subj: Subject, self_key: str | None,
                    who: str, verb: str) -> list[Violation]:
        """The requirements on the hex a piece (``self_key``: a unit's id, a
        marker's piece key) was placed in; ``subj`` is the unit, or a
        :class:`Placer` for a marker."""
        p = self.params
        scenario = state.scenario
        out: list[Violation] = []
        is_marker = isinstance(subj, Placer)
        extra: dict[str, Any] = {"marker": self_key} if is_marker else {}
        units = [] if is_marker or self_key is None else [self_key]

        terrain_not = as_list(p.get("terrain_not"))
        terrain = state.terrain_map.terrain.get(hex_id)
        if terrain in terrain_not:
            tname = scenario.map.terrain_types[terrain].name \
                if terrain is not None and terrain in scenario.map.terrain_types else terrain
            out.append(self.ctx.violation(
                event, state, f"{who} {verb} in {hex_id}, a {tname} hex; it may not be placed in "
                f"{join_names(terrain_not)} terrain.", units=units, hexes=[hex_id], check="terrain", **extra))

        has = p.get("hex_has")
        if has is not None and not self._hex_holds(state, hex_id, has, subj, self_key):
            desc = describe_selector(has, scenario, subj)
            present = [u for u in state.units_in(hex_id) if u.uid != self_key]
            anywhere = self._anywhere(state, has, subj, self_key)
            tail = "" if anywhere else "; no such unit is left on the map"
            out.append(self.ctx.violation(
                event, state, f"{who} {verb} in {hex_id}, which holds no unit {desc} "
                f"(in the hex: {unit_list(present)}){tail}.", units=units, hexes=[hex_id],
                check="hex_has", **extra))

        has_not = p.get("hex_has_not")
        if has_not is not None:
            found = self._hex_matches(state, hex_id, has_not, subj, self_key)
            if found:
                out.append(self.ctx.violation(
                    event, state, f"{who} {verb} in {hex_id}, which already holds {', '.join(found)}; "
                    f"it may not be placed in a hex with {describe_selector(has_not, scenario, subj)}.",
                    units=units, hexes=[hex_id], check="hex_has_not", **extra))
        return out

    def _hex_matches(self, state: GameView, hex_id: str, sel: Any, subj: Subject,
                     self_key: str | None) -> list[str]:
        """Descriptions of the pieces in the hex matching ``sel``."""
        kinds = marker_kinds(sel)
        if kinds is not None:
            return [f"a {marker_name(state.scenario, m.kind)} marker" for m in state.markers_in(hex_id)
                    if m.key != self_key and m.kind in kinds]
        return [f"{u.name} ({u.uid})" for u in state.units_in(hex_id)
                if u.uid != self_key and matches_carried(sel, state, u, subj)]

    def _hex_holds(self, state: GameView, hex_id: str, sel: Any, subj: Subject, self_key: str | None) -> bool:
        return bool(self._hex_matches(state, hex_id, sel, subj, self_key))

    def _anywhere(self, state: GameView, sel: Any, subj: Subject, self_key: str | None) -> bool:
        if marker_kinds(sel) is not None:
            return True
        return any(u.on_map and u.uid != self_key and matches_carried(sel, state, u, subj)
                   for u in state.units())


# -- setup_conformity -------------------------------------------------------------------------
@register("setup_conformity")
class SetupConformity(Rule):
    """At ``setup_end`` every unit must be where the scenario's ``setup``
    puts it (hex or box) on the face it gives (``faces``, else the counter's
    face, else the front); a unit the setup does not place may not be on the
    map or in a box.  ``tolerance: exact`` (the default) also compares the
    order of each set-up stack; any other tolerance only checks that each
    set-up unit is present (on the map, or in its box)."""

    subscribes = frozenset({"setup_end"})

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        exact = self.params.get("tolerance", "exact") == "exact"
        expected, stacks = _expected(state.scenario)
        present = {u.uid: u for u in state.units()}
        out: list[Violation] = []
        for uid, (kind, where, face) in expected.items():
            found = self._placed(state, event, uid, present.get(uid), kind, where, face, exact)
            if found is not None:
                out.append(found)
        if exact:
            out += self._extra(state, event, expected, present)
            out += self._order(state, event, stacks)
        return out

    def _placed(self, state: GameView, event: Event, uid: str, unit: UnitView | None, kind: str, where: str,
                face: str | None, exact: bool) -> Violation | None:
        """What is wrong with one set-up unit: missing, elsewhere (``exact``)
        or on the wrong face (``exact``)."""
        want = where if kind == "hex" else f"box {where}"
        name = _name(state, uid)
        if unit is None or (unit.hex is None and unit.box is None):
            return self.ctx.violation(
                event, state, f"{name} is missing at the start; the setup places it in {want}.",
                units=[uid], hexes=[where] if kind == "hex" else [], check="missing", expected=want)
        if not exact:
            return None
        got = unit.hex if unit.hex is not None else f"box {unit.box}"
        if (kind == "hex" and unit.hex != where) or (kind == "box" and (unit.hex is not None
                                                                        or unit.box != where)):
            return self.ctx.violation(
                event, state, f"{name} starts in {got}; the setup places it in {want}.",
                units=[uid], hexes=[h for h in (unit.hex, where if kind == "hex" else None) if h],
                check="place", expected=want, actual=got)
        want_face = face or _front(state.scenario, uid)
        if want_face is not None and unit.face != want_face:
            return self.ctx.violation(
                event, state, f"{name} starts {unit.face} side up in {got}; the setup gives "
                f"{want_face}.", units=[uid], hexes=[unit.hex] if unit.hex else [], check="face",
                expected=want_face, actual=unit.face)
        return None

    def _extra(self, state: GameView, event: Event, expected: Mapping[str, object],
               present: Mapping[str, UnitView]) -> list[Violation]:
        """Units on the board that the setup does not place."""
        out: list[Violation] = []
        for uid in sorted(state.unit_places()):
            unit = present.get(uid)
            if uid in expected or unit is None or (unit.hex is None and unit.box is None):
                continue
            got = unit.hex if unit.hex is not None else f"box {unit.box}"
            out.append(self.ctx.violation(
                event, state, f"{_name(state, uid)} is in {got} at the start, but the setup does not "
                f"place it.", units=[uid], hexes=[unit.hex] if unit.hex else [], check="extra"))
        return out

    def _order(self, state: GameView, event: Event,
               stacks: Sequence[tuple[str, tuple[str, ...]]]) -> list[Violation]:
        """Set-up stacks whose units are all there, in another order."""
        out: list[Violation] = []
        for hex_id, order in stacks:
            actual = [u.uid for u in state.units_in(hex_id) if u.uid in order]
            if sorted(actual) == sorted(order) and actual != list(order):
                out.append(self.ctx.violation(
                    event, state, f"The stack in {hex_id} starts as {', '.join(actual)} (bottom → top); "
                    f"the setup gives {', '.join(order)}.", units=list(order), hexes=[hex_id],
                    check="order"))
        return out


def _expected(scenario: Scenario) -> tuple[dict[str, tuple[str, str, str | None]],
                                           list[tuple[str, tuple[str, ...]]]]:
    """Where the setup puts each unit (uid -> (``hex`` or ``box``, where,
    face)), and the set-up stacks (hex, units bottom -> top)."""
    expected: dict[str, tuple[str, str, str | None]] = {}
    stacks: list[tuple[str, tuple[str, ...]]] = []
    default_face = {c.id: c.face for c in scenario.counters}
    for entry in scenario.setup:
        if isinstance(entry, SetupStack):
            hex_id = entry.hex if entry.map is None else _window_hex(scenario, entry.map, entry.hex)
            stacks.append((hex_id, entry.units))
            for uid in entry.units:
                expected[uid] = ("hex", hex_id, entry.faces.get(uid, default_face.get(uid)))
        elif isinstance(entry, SetupBox):
            for uid in entry.units:
                expected[uid] = ("box", entry.box, entry.faces.get(uid, default_face.get(uid)))
    return expected, stacks


def _window_hex(scenario: Scenario, window: str, hex_id: str) -> str:
    """A set-up hex of the window ``window`` (an id or name of ``map`` or of
    ``maps``) as the rules name it (:mod:`vmodtool.audit.windows`)."""
    hex_map = scenario.map_window(window)
    return hex_id if hex_map is scenario.map else window_location(hex_map.name, hex_id)


def _name(state: GameView, uid: str) -> str:
    try:
        return f"{state.unit(uid).name} ({uid})"
    except KeyError:
        scenario = state.scenario
        try:
            counter = scenario.counter(uid)
            utype = scenario.unit_type_of(counter)
            return f"{counter.label} {utype.name} ({uid})" if counter.label else f"{utype.name} ({uid})"
        except KeyError:
            return uid


def _front(scenario: Scenario, uid: str) -> str | None:
    try:
        return scenario.unit_type_of(scenario.counter(uid)).faces[0].name
    except (KeyError, IndexError):
        return None
