"""Settle-point kinds about what shares a hex: ``stacking``
(``docs/seed-rules.md`` §2.5 items 1–2),
``stack_order`` (item 5) and ``cohabitation``.

They judge the state only at the rule's ``check_at`` point (§4.8: a stack
being rearranged inside a step or an activation is not flagged before
then); a finding is reported once and again only if it is put right and
reappears.  Marker pieces never count: ``units_in`` lists units only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vmodtool.audit.api import Event, GameView, RuleContext, UnitView, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.rulekit import (
    Findings,
    SettleRule,
    carried_view,
    current_steps,
    describe_selector,
    side_name,
    unit_list,
)
from vmodtool.audit.selectors import as_list, is_fixed, matches, predicate, reads_markers
from vmodtool.audit.windows import Windows

__all__ = ["Stacking", "StackOrder", "Cohabitation"]


@register("stacking")
class Stacking(SettleRule):
    """Per hex (and per side with ``per_side``, the default): the units not
    matching ``exempt`` weigh 1 each (``count: units``), their current steps
    (``steps``) or a factor (``count: points`` with ``points_from``); the sum
    may not exceed ``limit`` (a number or ``{terrain: n, default: n}``).
    ``per_type_max: [{select, max}]`` caps the matching units per hex (and
    side), exempt or not."""

    # unit id -> whether it matches ``exempt`` / each ``per_type_max`` entry's
    # ``select``, for selectors of what never changes (None: they read more),
    # and those selectors: the same for every copy of the rule
    _shared = ("ctx", "params", "_flag_cache", "_exempt", "_entries", "_windows")

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        selectors = [p.get("exempt")] + [entry.get("select") for entry in as_list(p.get("per_type_max"))
                                         if isinstance(entry, Mapping)]
        self._flag_cache: dict[str, tuple[bool, ...]] | None = {} if all(is_fixed(s) for s in selectors) else None
        # what findings_in reads of the entry, read once (it runs for every changed hex)
        self._exempt: Any = p.get("exempt")
        self._per_side: bool = bool(p.get("per_side", True))
        self._count: str = p.get("count", "units")
        self._entries: list[tuple[int, Mapping[str, Any]]] = [
            (i, entry) for i, entry in enumerate(as_list(p.get("per_type_max"))) if isinstance(entry, Mapping)]
        #: the fewest units a ``per_type_max`` entry allows (a side with no
        #: more units in a hex breaks none)
        #: the windows of ``maps``: a hex there has that window's terrain
        self._windows = Windows(ctx.scenario)
        self._least_max: float = min((entry.get("max", 0) for _, entry in self._entries), default=float("inf"))

    def _flags(self, members: Sequence[UnitView], state: GameView) -> list[tuple[bool, ...]]:
        """Per unit: whether it is exempt, then whether it matches each
        ``per_type_max`` entry's ``select``; kept per unit when every
        selector of the rule is fixed."""
        fixed = self._flag_cache
        out: list[tuple[bool, ...]] = []
        for u in members:
            found = fixed.get(u.uid) if fixed is not None else None
            if found is None:
                exempt = self._exempt
                found = (exempt is not None and matches(exempt, u, state),
                         *(matches(entry.get("select"), u, state) for _, entry in self._entries))
                if fixed is not None:
                    fixed[u.uid] = found
            out.append(found)
        return out

    def _limit(self, state: GameView, hex_id: str) -> float | None:
        limit = self.params.get("limit")
        found: float | None        # a number of the scenario's rule entry (checked by its schema)
        if isinstance(limit, Mapping):
            terrain = (self._windows.terrain(hex_id, state.terrain_map) if self._windows
                       else state.terrain_map.terrain.get(hex_id))
            found = limit.get(terrain, limit.get("default"))
        else:
            found = limit
        return found

    def _weight(self, state: GameView, unit: UnitView) -> float:
        count = self.params.get("count", "units")
        if count == "steps":
            return current_steps(state, unit)
        if count == "points":
            value = unit.factors.get(self.params.get("points_from", "stacking"), 0)
            try:
                return float(value)
            except (TypeError, ValueError):
                return 0.0
        return 1

    def _what(self, total: float) -> str:
        count = self.params.get("count", "units")
        number = int(total) if float(total).is_integer() else total
        if count == "steps":
            return f"{number} steps"
        if count == "points":
            return f"{number} {self.params.get('points_from', 'stacking points')}"
        return f"{number} units"

    def findings_in(self, state: GameView, hex_id: str) -> Findings:
        per_side = self._per_side
        out: Findings = {}
        groups: dict[str | None, list[UnitView]] = {}
        for u in state.units_in(hex_id):
            groups.setdefault(u.side if per_side else None, []).append(u)
        if not groups:
            return out
        limit = self._limit(state, hex_id)          # (the hex's: the same for every side)
        entries = self._entries
        by_units = self._count == "units"
        for side, members in (sorted(groups.items(), key=lambda kv: str(kv[0])) if len(groups) > 1
                              else groups.items()):
            if by_units and limit is not None and len(members) <= limit and len(members) <= self._least_max:
                continue                            # (the usual case: too few units to break either)
            flags = self._flags(members, state)
            counted = [u for u, f in zip(members, flags, strict=True) if not f[0]]
            total = len(counted) if by_units else sum(self._weight(state, u) for u in counted)
            if limit is not None and total > limit:
                out[("limit", hex_id, side)] = (
                    tuple(u.uid for u in counted),
                    self._limit_builder(state, hex_id, side, counted, total, limit))
            for i, entry in entries:
                hits = [u for u, f in zip(members, flags, strict=True) if f[1 + i]]
                if len(hits) > entry.get("max", 0):
                    out[("per_type", i, hex_id, side)] = (
                        tuple(u.uid for u in hits),
                        self._type_builder(state, hex_id, side, hits, entry))
        return out

    def _limit_builder(self, state: GameView, hex_id: str, side: str | None, counted: Sequence[UnitView],
                       total: float, limit: float) -> Callable[[Event], Violation]:
        # (the message is written only when the finding is reported: most
        # findings are already open at the next settle point)
        def build(event: Event) -> Violation:
            exempt = self.params.get("exempt")
            side_txt = f" of {side_name(state.scenario, side)}" if side is not None else ""
            ex_txt = f" ({describe_selector(exempt, state.scenario)} not counted)" if exempt else ""
            lim = int(limit) if float(limit).is_integer() else limit
            msg = (f"{self._what(total)}{side_txt} in {hex_id} {self.when}: {unit_list(counted)}; "
                   f"the limit is {lim}{ex_txt}.")
            return self.ctx.violation(event, state, msg, units=[u.uid for u in counted], hexes=[hex_id],
                                      count=total, limit=limit, side_counted=side)
        return build

    def _type_builder(self, state: GameView, hex_id: str, side: str | None, hits: Sequence[UnitView],
                      entry: Mapping[str, Any]) -> Callable[[Event], Violation]:
        def build(event: Event) -> Violation:
            side_txt = f" of {side_name(state.scenario, side)}" if side is not None else ""
            desc = describe_selector(entry.get("select"), state.scenario)
            msg = (f"{len(hits)} units {desc}{side_txt} in {hex_id} {self.when}: {unit_list(hits)}; "
                   f"at most {entry.get('max', 0)} may share a hex.")
            return self.ctx.violation(event, state, msg, units=[u.uid for u in hits], hexes=[hex_id],
                                      count=len(hits), limit=entry.get("max", 0), side_counted=side)
        return build


@register("stack_order")
class StackOrder(SettleRule):
    """In every stack (units only, bottom → top, units matching ``ignore``
    left out) the units matching ``top`` form the top block and those
    matching ``bottom`` the bottom block."""

    def findings_in(self, state: GameView, hex_id: str) -> Findings:
        p = self.params
        ignore = p.get("ignore")
        out: Findings = {}
        here = state.units_in(hex_id)
        if len(here) < 2:
            return out                  # (a unit alone is in order)
        stack = [u for u in here if ignore is None or not matches(ignore, u, state)]
        for end in ("top", "bottom"):
            sel = p.get(end)
            if sel is None:
                continue
            order = stack if end == "top" else list(reversed(stack))   # block sits at the end
            flags = [matches(sel, u, state) for u in order]
            if not any(flags):
                continue
            first = flags.index(True)
            intruders = [u for u, f in zip(order[first:], flags[first:], strict=True) if not f]
            if not intruders:
                continue
            last_intruder = max(i for i, f in enumerate(flags) if not f)
            misplaced = [u for i, (u, f) in enumerate(zip(order, flags, strict=True)) if f and i < last_intruder]
            out[(end, hex_id)] = (tuple(u.uid for u in stack),
                                  self._builder(state, hex_id, end, sel, misplaced, intruders, stack))
        return out

    def _builder(self, state: GameView, hex_id: str, end: str, sel: Any, misplaced: Sequence[UnitView],
                 intruders: Sequence[UnitView], stack: Sequence[UnitView]) -> Callable[[Event], Violation]:
        def build(event: Event) -> Violation:
            desc = describe_selector(sel, state.scenario)
            rel = "below" if end == "top" else "above"
            msg = (f"In {hex_id} {self.when}, {unit_list(misplaced)} {'is' if len(misplaced) == 1 else 'are'} "
                   f"{rel} {unit_list(intruders)}; units {desc} must be the {end} units of their stack "
                   f"(bottom → top: {', '.join(u.uid for u in stack)}).")
            uids = [u.uid for u in misplaced] + [u.uid for u in intruders]
            return self.ctx.violation(event, state, msg, units=uids, hexes=[hex_id],
                                      order=[u.uid for u in stack])
        return build


@register("cohabitation")
class Cohabitation(SettleRule):
    """Every unit on the map matching ``subject`` shares its hex with at
    least ``min`` (default 1) other units matching ``with`` (relative to the
    subject: ``same``, ``served_by: subject``, ``side: friendly``)."""

    # unit id -> whether it matches a ``subject`` of what never changes (None:
    # the subject reads more); the same for every copy of the rule
    _shared = ("ctx", "params", "_subjects")

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._subjects: dict[str, bool] | None = {} if is_fixed(self.params.get("subject")) else None

    def findings_in(self, state: GameView, hex_id: str) -> Findings:
        p = self.params
        subjects = self._subjects
        if subjects is not None and not self._has_subject(state, hex_id, subjects):
            return {}                       # (most hexes hold no HQ)
        minimum = p.get("min", 1)
        subject = p.get("subject")
        company = p.get("with")
        # (the selector's predicate looked up once per hex, not once per unit)
        carried = reads_markers(company)
        fits = predicate(company)
        out: Findings = {}
        here = state.units_in(hex_id)
        for unit in sorted(here, key=lambda u: u.uid) if len(here) > 1 else here:
            if not unit.on_map:
                continue
            if subjects is not None:
                is_subject = subjects.get(unit.uid)
                if is_subject is None:
                    is_subject = subjects[unit.uid] = matches(subject, unit, state)
            else:
                is_subject = matches(subject, unit, state)
            if not is_subject:
                continue
            others = [o for o in here if o.uid != unit.uid]
            good = [o for o in others if fits(carried_view(state, o) if carried else o, state, unit)]
            if len(good) < minimum:
                out[("cohabitation", unit.uid)] = (unit.hex,
                                                    self._builder(state, unit, others, good, minimum))
        return out

    def _has_subject(self, state: GameView, hex_id: str, subjects: dict[str, bool]) -> bool:
        units_state = state.unit_places()
        for key in state.stack(hex_id):
            if key not in units_state:
                continue
            found = subjects.get(key)
            if found is None:
                found = subjects[key] = matches(self.params.get("subject"), state.unit(key), state)
            if found:
                return True
        return False

    def _builder(self, state: GameView, unit: UnitView, others: Sequence[UnitView], good: Sequence[UnitView],
                 minimum: int) -> Callable[[Event], Violation]:
        def build(event: Event) -> Violation:
            desc = describe_selector(self.params.get("with"), state.scenario, unit)
            company = f"with it: {unit_list(others)}" if others else "it is alone"
            msg = (f"{unit.name} ({unit.uid}) in {unit.hex} {self.when} shares its hex with {len(good)} "
                   f"unit{'s' if len(good) != 1 else ''} {desc} ({company}); at least {minimum} required.")
            return self.ctx.violation(event, state, msg, units=[unit.uid], hexes=[unit.hex],
                                      with_units=[o.uid for o in others])
        return build
