"""The stacking kind (``docs/seed-rules.md`` §2.5 items 1-2) as a rule package
writes it: only the public API (vmodtool.audit.api, .rulekit, .selectors)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vmodtool.audit.api import GameView, RuleEvent, UnitView, Violation
from vmodtool.audit.rulekit import Findings, SettleRule, current_steps, describe_selector, side_name, unit_list
from vmodtool.audit.selectors import as_list, matches


class Stacking(SettleRule):
    """Per hex (and side, unless ``per_side: false``) the units not matching
    ``exempt`` weigh 1, their steps (``count: steps``) or a factor (``count:
    points``, ``points_from``); the sum may not exceed ``limit`` (a number or
    ``{terrain: n, default: n}``); ``per_type_max: [{select, max}]`` caps units."""

    def findings_in(self, state: GameView, hex_id: str) -> Findings:
        p, out = self.params, {}
        groups: dict[str | None, list[UnitView]] = {}
        for u in state.units_in(hex_id):
            groups.setdefault(u.side if p.get("per_side", True) else None, []).append(u)
        limit = p.get("limit")
        if isinstance(limit, Mapping):
            limit = limit.get(state.terrain_map.terrain.get(hex_id), limit.get("default"))
        for side, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
            counted = [u for u in members if p.get("exempt") is None or not matches(p["exempt"], u, state)]
            total = sum(self._weight(state, u) for u in counted)
            if limit is not None and total > limit:
                lim = int(limit) if float(limit).is_integer() else limit
                ex = f" ({describe_selector(p['exempt'], state.scenario)} not counted)" if p.get("exempt") else ""
                out[("limit", hex_id, side)] = (tuple(u.uid for u in counted), self._report(
                    state, hex_id, side, counted, f"{self._what(total)}", f"the limit is {lim}{ex}", total, limit))
            for i, entry in enumerate(as_list(p.get("per_type_max"))):
                hits = [u for u in members if isinstance(entry, Mapping) and matches(entry.get("select"), u, state)]
                if hits and len(hits) > entry.get("max", 0):
                    what = f"{len(hits)} units {describe_selector(entry.get('select'), state.scenario)}"
                    out[("per_type", i, hex_id, side)] = (tuple(u.uid for u in hits), self._report(
                        state, hex_id, side, hits, what, f"at most {entry.get('max', 0)} may share a hex",
                        len(hits), entry.get("max", 0)))
        return out

    def _weight(self, state: GameView, unit: UnitView) -> float:
        count = self.params.get("count", "units")
        if count == "steps":
            return current_steps(state, unit)
        if count == "points":
            try:
                return float(unit.factors.get(self.params.get("points_from", "stacking"), 0))
            except (TypeError, ValueError):
                return 0.0
        return 1

    def _what(self, total: float) -> str:
        number = int(total) if float(total).is_integer() else total
        count = self.params.get("count", "units")
        noun = {"steps": "steps", "points": self.params.get("points_from", "stacking points")}.get(count, "units")
        return f"{number} {noun}"

    def _report(self, state: GameView, hex_id: str, side: str | None, units: Sequence[UnitView], what: str,
                rule: str, count: Any, limit: Any) -> Callable[[RuleEvent], Violation]:
        side_txt = f" of {side_name(state.scenario, side)}" if side is not None else ""
        msg = f"{what}{side_txt} in {hex_id} {self.when}: {unit_list(units)}; {rule}."
        return lambda event: self.ctx.violation(event, state, msg, units=[u.uid for u in units], hexes=[hex_id],
                                                count=count, limit=limit, side_counted=side)
