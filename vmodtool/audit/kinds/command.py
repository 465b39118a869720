"""Command kinds: ``command_range`` (``docs/seed-rules.md`` §2.5 item 4,
§4.5 "Command range") and ``per_turn_limit`` (§2.5 item 6).

``command_range`` measures, when a formation's activation starts, how far
each of its units is from the formation's HQ; a unit out of range must show
proof before its first move in that activation: an Out of Command marker in
its hex (the status rule then judges the move) or a passed morale check for
its hex (``#check <hex> pass`` after a dice roll, one check per hex).  On an
area map the range is counted in connections (the shortest way over the
typed ones); a unit whose space or HQ's space the typed connections do not
join is NOT CHECKED (:func:`vmodtool.audit.coverage.unjoined`).

``per_turn_limit`` counts a derived event (an activation, a step gain, or any
engine event kind) per unit, formation or side in each turn.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping
from typing import Any, TypedDict

from vmodtool.audit.api import Annotation, Event, GameView, Rule, RuleContext, UnitView, Violation
from vmodtool.audit.coverage import Tally, unjoined
from vmodtool.audit.kinds import register
from vmodtool.audit.kinds.movement import At, CheapCopy, Moment, describe
from vmodtool.audit.selectors import as_list, matches
from vmodtool.audit.windows import BETWEEN_WINDOWS, Windows

__all__ = ["CommandRange", "PerTurnLimit", "check_claim"]

PASS_WORDS = frozenset({"pass", "passed", "ok", "success"})
FAIL_WORDS = frozenset({"fail", "failed", "failure"})


def _tokens(value: Any) -> list[str]:
    if isinstance(value, str):
        return [t for t in re.split(r"[\s,;>]+", value) if t]
    if isinstance(value, Mapping):
        out: list[str] = []
        for v in value.values():
            out.extend(_tokens(v))
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        out = []
        for v in value:
            out.extend(_tokens(v))
        return out
    return [str(value)] if value is not None else []


def check_claim(annotation: Annotation, hex_ids: Container[str]) -> tuple[list[str], bool | None]:
    """The hexes a ``#check`` annotation names and its claimed result
    (True pass, False fail, None not said)."""
    tokens = _tokens(annotation.args)
    hexes: list[str] = []
    result: bool | None = None
    for token in tokens:
        if token in hex_ids and token not in hexes:
            hexes.append(token)
        low = token.lower()
        if low in PASS_WORDS:
            result = True
        elif low in FAIL_WORDS:
            result = False
    return hexes, result


# --------------------------------------------------------------------------------------
# command_range
# --------------------------------------------------------------------------------------

class _Owed(TypedDict):
    """A unit out of its HQ's range at the start of the activation: it owes a proof."""

    hex: str
    distance: int | None            # None: its HQ was not on the map
    range: float | None
    hq: str
    hq_hex: str | None


class _Roll(TypedDict):
    step: int
    dice: tuple[int, ...]
    label: str | None
    linked: bool                    # a ``#check`` annotation claimed it


class _Failure(TypedDict):
    """A failed check: the annotation's event and moment, and whether a move
    was already reported for it."""

    event: Event
    clock: Moment
    dice: tuple[int, ...]
    flagged: bool


@register("command_range")
class CommandRange(CheapCopy, Rule):
    """Units out of their HQ's command range need a passed check or an
    Out of Command marker before they move in their activation."""

    subscribes = frozenset({"activation_start", "activation_end", "move", "dice", "annotation",
                            "phase_start", "turn_start", "game_end"})
    # tables of the scenario, the same for every copy of the rule
    _shared = ("ctx", "params", "hex_ids", "formations", "formation_of", "windows")

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        oor = p.get("out_of_range") or {}
        self.accept = frozenset(as_list(oor.get("accept_if", ["passed_check", "ooc_marker"])))
        self.otherwise = oor.get("otherwise", ctx.severity)
        self.failed_severity = oor.get("failed_check", "error")
        self.target = oor.get("check_target")            # number or {hq_factor: name}
        self.ooc_kinds = frozenset(as_list(oor.get("ooc_marker", p.get("ooc_marker",
                                                                        "out_of_command"))))
        self.check_kinds = frozenset(as_list(oor.get("check_annotation", "check")))
        areas = ctx.scenario.map.areas
        # the locations a ``#check`` may name: hexes, or an area map's spaces
        self.hex_ids: Container[str] = ctx.scenario.map.grid.hexes if areas is None else areas.spaces
        self.formations = {f.id: f for f in ctx.scenario.formations}
        #: the windows of ``maps``: a range is measured on the window both ends are on
        self.windows = Windows(ctx.scenario)
        #: unit id -> its formation (a counter's never changes)
        self.formation_of = {c.id: c.formation for c in ctx.scenario.counters}
        # memory
        self.formation: str | None = None
        self.owed: dict[str, _Owed] = {}        # uid -> what it owes
        self.moved: dict[str, bool] = {}        # owed units already judged
        self.rolls: list[_Roll] = []            # this activation's rolls
        self.passed: dict[str, tuple[int, tuple[int, ...]]] = {}   # hex -> (step, dice)
        self.failed: dict[str, _Failure] = {}   # hex -> its failed check
        self.unjudged = Tally()                 # units an area map's typed connections cannot measure
        self.between = Tally()                  # units and HQs on two map windows (no grid joins them)

    def _reset(self) -> None:
        self.formation = None
        self.owed, self.moved, self.rolls, self.passed, self.failed = {}, {}, [], {}, {}

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        kind = event.kind
        if kind == "activation_start":
            self._reset()
            self._evaluate(state, event.text or state.active_formation)
            return ()
        if kind in ("activation_end", "phase_start", "turn_start", "game_end"):
            out = self._unmarked_failures(state)
            self._reset()
            if kind == "game_end":
                out.extend(self._not_judged(state, event))
            return out
        if self.formation is None:
            return ()
        if kind == "dice":
            self.rolls.append({"step": event.step, "dice": tuple(event.dice), "label": event.text,
                               "linked": False})
            return ()
        if kind == "annotation":
            return self._on_check(state, event)
        if kind == "move":
            return self._on_move(state, event)
        return ()

    # -- activation start ------------------------------------------------------------
    def _range_of(self, hq: UnitView) -> float | None:
        factor = self.params.get("range_factor", "command_range")
        if isinstance(factor, (int, float)):
            return factor
        value = hq.factors.get(factor)
        return value if isinstance(value, (int, float)) else None

    def _evaluate(self, state: GameView, formation_id: str | None) -> None:
        formation = self.formations.get(formation_id) if formation_id else None
        if formation is None:
            return
        self.formation = formation.id
        if self.params.get("hq", "formation_hq") != "formation_hq" or formation.hq is None:
            return          # no HQ to be in range of: nothing to measure
        hq_at: tuple[str, float] | None = None        # the HQ's hex and its command range
        if formation.hq in state.unit_places():
            hq = state.unit(formation.hq)
            if hq.on_map and hq.hex is not None:
                reach = self._range_of(hq)
                if reach is None:
                    return          # the HQ has no such factor: cannot judge
                hq_at = (hq.hex, reach)
        formation_of = self.formation_of
        for uid, s in state.unit_places().items():
            if not s.present or formation_of.get(uid, formation.id) != formation.id:
                continue                # (another formation's unit: no view made)
            unit = state.unit(uid)
            if unit.formation != formation.id or not unit.on_map or unit.uid == formation.hq:
                continue
            if unit.hex is None:        # (on the map: it has a hex)
                continue
            if not matches(self.params.get("subject"), unit, state, unit):
                continue
            exempt = self.params.get("exempt")
            if exempt and matches(exempt, unit, state, unit):
                continue
            if hq_at is None:
                self.owed[unit.uid] = {"hex": unit.hex, "distance": None, "range": None,
                                       "hq": formation.hq, "hq_hex": None}
                continue
            hq_hex, reach = hq_at
            distance = self._distance(state, unit, hq_hex, reach)
            if distance is not None and distance > reach:
                self.owed[unit.uid] = {"hex": unit.hex, "distance": distance, "range": reach,
                                       "hq": formation.hq, "hq_hex": hq_hex}

    def _not_judged(self, state: GameView, event: Event) -> list[Violation]:
        """The units no range was measured for, once at the game's end."""
        what = "unit(s) at the start of an activation"
        whys = [(self.unjudged.reason(what), self.unjudged.number),
                (self.between.reason(what, BETWEEN_WINDOWS), self.between.number)]
        why = "; ".join(text for text, _ in whys if text is not None)
        if not why:
            return []
        return [self.ctx.violation(event, state, why, severity="info", not_checked=True,
                                   units_not_judged=sum(n for _, n in whys))]

    def _distance(self, state: GameView, unit: UnitView, hq_hex: str, reach: float) -> int | None:
        """How far ``unit`` is from its HQ's location; None when an area
        map's typed connections cannot say (the unit noted NOT CHECKED): no
        way joins the two, or the typed way is longer than the range and the
        connections are not declared complete (a line not typed yet may
        bring it nearer: only "in range" is sure then)."""
        assert unit.hex is not None
        on = self.windows.common(unit.hex, hq_hex, state.scenario.map) if self.windows else None
        if isinstance(on, str):
            self.between = self.between.noted(f"{unit.describe()} in {unit.hex}, its HQ in {hq_hex}")
            return None
        hex_map, here, there = on if on is not None else (state.scenario.map, unit.hex, hq_hex)
        areas = hex_map.areas
        if areas is None:
            return hex_map.distance(here, there)
        gap = unjoined(areas, here, there)
        distance = hex_map.distance(here, there) if gap is None else None
        if distance is not None and distance > reach and not areas.complete:
            gap = f"{distance} connections by the typed lines, which are not declared complete"
        if gap is None:
            return distance
        self.unjudged = self.unjudged.noted(f"{unit.describe()} in {unit.hex}, its HQ in {hq_hex}: {gap}")
        return None

    # -- proofs --------------------------------------------------------------------------
    def _owed_hexes(self) -> set[str]:
        return {o["hex"] for o in self.owed.values()}

    def _target(self, state: GameView) -> float | None:
        if self.target is None:
            return None
        if isinstance(self.target, (int, float)):
            return self.target
        if isinstance(self.target, Mapping) and self.formation:
            f = self.formations[self.formation]
            factor = self.target.get("hq_factor")
            if f.hq and f.hq in state.unit_places() and factor is not None:
                value = state.unit(f.hq).factors.get(factor)
                if isinstance(value, (int, float)):
                    return value
        return None

    def _on_check(self, state: GameView, event: Event) -> list[Violation]:
        ann = event.annotation
        if ann is None or ann.kind not in self.check_kinds:
            return []
        hexes, result = check_claim(ann, self.hex_ids)
        roll = next((r for r in reversed(self.rolls) if not r["linked"]), None)
        if roll is None or result is None:
            return []       # not linked to a roll, or no result: proves nothing
        roll["linked"] = True
        out: list[Violation] = []
        target = self._target(state)
        total = sum(roll["dice"])
        if result and target is not None and total > target:
            out.append(self.ctx.violation(
                event, state, f"#check {' '.join(hexes)} claims a pass, but the linked roll "
                f"{'+'.join(map(str, roll['dice']))} = {total} is above the target {target}",
                severity="error", hexes=hexes, dice=list(roll["dice"]), target=target))
            result = False
        for h in hexes:
            if h not in self._owed_hexes():
                continue
            if result:
                self.passed[h] = (event.step, roll["dice"])
            else:
                self.failed[h] = {"event": event, "clock": Moment.of(state), "dice": roll["dice"],
                                  "flagged": False}
        return out

    def _ooc_in(self, state: GameView, hex_id: str) -> bool:
        return any(m.kind in self.ooc_kinds for m in state.markers_in(hex_id))

    def _on_move(self, state: GameView, event: Event) -> list[Violation]:
        uid = event.unit
        if not uid:
            return []
        owed = self.owed.get(uid)
        if owed is None or self.moved.get(uid):
            return []
        self.moved[uid] = True
        h = owed["hex"]
        s = state.unit_places().get(uid)
        own_layers = bool(s is not None and set(s.layers) & self.ooc_kinds)
        marked = own_layers or (event.from_hex is not None and self._ooc_in(state, event.from_hex))
        if marked and "ooc_marker" in self.accept:
            return []
        who = describe(state, uid)
        if h in self.failed:
            fail = self.failed[h]
            fail["flagged"] = True
            return [self.ctx.violation(
                event, state, f"{who} moved {event.from_hex} → {event.to_hex}, but the "
                f"morale check for {h} failed (roll {'+'.join(map(str, fail['dice']))}) and "
                f"no Out of Command marker was placed there", severity=self.failed_severity,
                units=[uid], hexes=[event.from_hex, event.to_hex], dice=list(fail["dice"]))]
        if h in self.passed and "passed_check" in self.accept:
            return []
        hq = describe(state, owed["hq"])
        if owed["hq_hex"] is None:
            why = f"its HQ {hq} was not on the map at the start of the activation"
        else:
            apart = "hexes" if state.scenario.map.areas is None else "connections"
            why = (f"it was {owed['distance']} {apart} from its HQ {hq} in {owed['hq_hex']} at "
                   f"the start of the activation (command range {owed['range']})")
        proofs = []
        if "passed_check" in self.accept:
            proofs.append(f"no passed morale check for {h}")
        if "ooc_marker" in self.accept:
            proofs.append(f"no Out of Command marker in {h}")
        msg = f"{who} moved {event.from_hex} → {event.to_hex}: {why}"
        if proofs:
            msg += ", and there is " + " and ".join(proofs)
        return [self.ctx.violation(event, state, msg, severity=self.otherwise, units=[uid],
                                   hexes=[event.from_hex, event.to_hex, owed["hq_hex"]],
                                   distance=owed["distance"], command_range=owed["range"],
                                   hq=owed["hq"])]

    def _unmarked_failures(self, state: GameView) -> list[Violation]:
        out: list[Violation] = []
        for h, fail in self.failed.items():
            if fail["flagged"] or self._ooc_in(state, h):
                continue
            out.append(self.ctx.violation(
                fail["event"], At(state, fail["clock"]),
                f"the morale check for {h} failed (roll {'+'.join(map(str, fail['dice']))}), "
                f"but no Out of Command marker was placed in {h} by the end of the activation",
                severity=self.failed_severity, hexes=[h], dice=list(fail["dice"])))
        return out


# --------------------------------------------------------------------------------------
# per_turn_limit
# --------------------------------------------------------------------------------------

@register("per_turn_limit")
class PerTurnLimit(CheapCopy, Rule):
    """At most ``max`` (or ``max_from``) counted events per unit, formation
    or side in each turn.  ``event: activation`` counts ``activation_start``;
    ``step_gain`` counts flips to a face with more steps and returns from a
    dead/eliminated box; any other engine event kind counts itself (for units
    matching ``subject``)."""

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        self.what = p.get("event", "activation")
        self.per = p.get("per", "formation")
        if self.what == "activation":
            kinds = {"activation_start"}
        elif self.what == "step_gain":
            kinds = {"flip", "enter"}
        else:
            kinds = {self.what}
        self.subscribes = frozenset(kinds | {"turn_start"})
        self.formations = {f.id: f for f in ctx.scenario.formations}
        self.dead_boxes = frozenset(b.id for b in ctx.scenario.boxes
                                    if b.role in ("dead", "eliminated"))
        self.counts: dict[str, int] = {}

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        if event.kind == "turn_start":
            self.counts = {}
            return ()
        counted = self._counted(state, event)
        if counted is None:
            return ()
        key, unit_id, formation_id, label = counted
        limit = self._limit(state, unit_id, formation_id)
        if limit is None:
            return ()
        self.counts[key] = self.counts.get(key, 0) + 1
        n = self.counts[key]
        if n <= limit:
            return ()
        what = {"activation": "activated"}.get(self.what, f"had a {self.what.replace('_', ' ')}")
        times = "once" if n == 1 else "twice" if n == 2 else f"{n} times"
        source = self.params.get("max_from") or "max"
        msg = f"{label} {what} {times} in turn {state.turn}; the limit is {limit} ({source})"
        return [self.ctx.violation(event, state, msg, units=[unit_id] if unit_id else [],
                                   hexes=[event.to_hex] if event.to_hex else [],
                                   count=n, limit=limit, per=self.per, key=key)]

    def _counted(self, state: GameView, event: Event) -> tuple[str, str | None, str | None, str] | None:
        """(count key, unit, formation, label) of a counted event, or None."""
        unit: UnitView | None = None
        if self.what == "activation":
            formation_id = event.text or state.active_formation
            if not formation_id:
                return None
        else:
            if not event.unit or event.unit not in state.unit_places():
                return None
            unit = state.unit(event.unit)
            if not matches(self.params.get("subject"), unit, state, unit):
                return None
            if self.what == "step_gain" and not self._gain(state, unit, event):
                return None
            formation_id = unit.formation
        formation = self.formations.get(formation_id) if formation_id else None
        if self.per == "unit":
            if unit is None:
                return None
            return unit.uid, unit.uid, formation_id, unit.describe()
        if self.per == "side":
            side = unit.side if unit is not None else (formation.side if formation else event.side)
            if side is None:
                return None
            try:
                name = state.scenario.game.side(side).name
            except KeyError:
                name = side
            return f"side:{side}", unit.uid if unit else None, formation_id, name
        if formation_id is None:
            return None
        name = f"{formation.name} ({formation_id})" if formation else formation_id
        return f"formation:{formation_id}", unit.uid if unit else None, formation_id, name

    def _gain(self, state: GameView, unit: UnitView, event: Event) -> bool:
        if event.kind == "enter":
            return event.from_box in self.dead_boxes
        faces = state.scenario.unit_type_of(state.scenario.counter(unit.uid)).faces
        change = event.changes.get("face") if event.changes else None
        if not change:
            return False
        names = [f.name for f in faces]
        old, new = change
        if old not in names or new not in names:
            return False
        steps = [f.state.get("step") for f in faces]
        order = [s for i, s in enumerate(steps) if s is not None and s not in steps[:i]]
        o, n = steps[names.index(old)], steps[names.index(new)]
        if o is None or n is None:
            return False
        return order.index(n) < order.index(o)      # earlier step value = more steps

    def _limit(self, state: GameView, unit_id: str | None, formation_id: str | None) -> int | None:
        if "max" in self.params:
            return int(self.params["max"])
        source = str(self.params.get("max_from", ""))
        if source.startswith("formation."):
            formation = self.formations.get(formation_id) if formation_id else None
            value = getattr(formation, source.split(".", 1)[1], None) if formation else None
            return int(value) if isinstance(value, (int, float)) else None
        if source.startswith("unit.") and unit_id:
            value = state.unit(unit_id).factors.get(source.split(".", 1)[1])
            return int(value) if isinstance(value, (int, float)) else None
        return None
