"""Audit reports: one line per violation in step order, a summary per rule,
and a JSON form with a documented schema (``docs/audit-report.md``).

Player names come from the roster; VASSAL player ids (passwords) never reach
a report."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vmodtool.audit.api import Violation
from vmodtool.exit_codes import check_exit_code
from vmodtool.findings import SEVERITIES

if TYPE_CHECKING:
    from vmodtool.checkgame import GameCheck

__all__ = ["AuditReport", "REPORT_SCHEMA_VERSION"]

REPORT_SCHEMA_VERSION = "vmodtool-audit/1"


@dataclass
class AuditReport:
    """Everything one audit found (a :class:`vmodtool.findings.CheckResult`:
    its :attr:`exit_code` and :meth:`as_json`)."""

    logs: Sequence[str]
    scenario: str
    violations: list[Violation]
    steps: int = 0
    rules_checked: Sequence[str] = ()
    not_checked: Mapping[str, str] = field(default_factory=dict)
    rule_failures: Sequence[Mapping[str, Any]] = ()
    replay_warnings: Sequence[str] = ()
    chain_differences: Sequence[str] = ()
    phase_names: Mapping[str, str] = field(default_factory=dict)
    side_names: Mapping[str, str] = field(default_factory=dict)
    #: no false clean: unit id -> where it stood on a map in no location or
    #: box of the scenario (no rule looked at it there; its rules are in
    #: :attr:`not_checked`)
    units_not_checked: Mapping[str, str] = field(default_factory=dict)
    #: the game's PBEM integrity (``vmodtool check-game``'s checks), when asked
    integrity: GameCheck | None = None
    #: how many of the game's pieces the binding made units, markers, ignored
    #: on purpose, or could not bind (``units``, ``markers``, ``ignored``,
    #: ``unbound``); empty when not counted
    bound: Mapping[str, int] = field(default_factory=dict)
    #: rule id -> where a rule not built in came from (``entry point
    #: <distribution>``, ``plugin folder <folder>``); empty when all are built in
    rule_sources: Mapping[str, str] = field(default_factory=dict)
    #: a game with several scenarios: the one judged (id, name), how it was
    #: chosen (``by``: name, start) and each scenario's score of the log's start
    played_scenario: Mapping[str, Any] = field(default_factory=dict)

    @property
    def suspicious(self) -> int:
        """Suspicious integrity findings (0 when integrity was not checked)."""
        return len(self.integrity.suspicious) if self.integrity is not None else 0

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error" and not v.withdrawn_by_undo]

    @property
    def complete(self) -> bool:
        """Whether every rule of the audit was checked: none is in
        :attr:`not_checked` (a plug-in not run without the user's consent, a
        rule that could not decide) and no plug-in failed.  Only then does a
        report without errors mean the game is clean."""
        return not self.not_checked and not self.rule_failures

    @property
    def exit_code(self) -> int:
        """``vmodtool audit``'s exit code for this report
        (:func:`vmodtool.exit_codes.check_exit_code`)."""
        return check_exit_code(found=bool(self.errors or self.suspicious), complete=self.complete)

    def summary(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for v in self.violations:
            entry = out.setdefault(v.rule_id, {**dict.fromkeys(SEVERITIES, 0), "withdrawn": 0})
            entry["withdrawn" if v.withdrawn_by_undo else v.severity] += 1
        return out

    def _when(self, v: Violation) -> str:
        parts = []
        if v.turn is not None:
            parts.append(f"turn {v.turn}")
        if v.phase:
            parts.append(self.phase_names.get(v.phase, v.phase))
        when = " ".join(parts)
        side = self.side_names.get(v.side or "", v.side) if v.side else None
        who = ""
        if side:
            who = side + (f" ({v.player})" if v.player else "")
        elif v.player:
            who = f"{v.player} (no side)"          # a mover the roster gives no side
        return ", ".join(p for p in (self._where(v), when, who) if p)

    def _where(self, v: Violation) -> str:
        """``0607-3.log step 12 (chain step 1,234)``: the log and the step
        within it a player quotes (the chain step too when there are several
        logs); ``step N`` for a violation not placed in a log."""
        if v.log is None or v.log_step is None:
            return f"step {v.step}"
        if len(self.logs) > 1:
            return f"{v.log} step {v.log_step} (chain step {v.step:,})"
        return f"{v.log} step {v.log_step}"

    def lines(self, *, warnings: bool = True) -> Iterator[str]:
        """The text report; the replay's warnings are counted in the summary
        line, and listed only with ``warnings`` (``audit`` sends them to
        stderr unless ``--warnings``)."""
        for v in sorted(self.violations, key=lambda v: (v.step, v.rule_id, v.units)):
            refs = ", ".join(v.ref)
            tag = f"[{v.rule_id}" + (f", {refs}" if refs else "") + "]"
            status = "WITHDRAWN (undone) " if v.withdrawn_by_undo else ""
            level = v.severity.upper()
            yield f"{status}{level} {self._when(v)}: {v.message} {tag}"
        yield ""
        yield (f"{len(self.logs)} log(s), {self.steps} steps, {len(self.rules_checked)} rules: "
               f"{len(self.errors)} error(s), "
               f"{sum(1 for v in self.violations if v.severity == 'warning' and not v.withdrawn_by_undo)} "
               f"warning(s), {sum(1 for v in self.violations if v.withdrawn_by_undo)} withdrawn by undo"
               + (f"; {len(self.not_checked)} rule(s) NOT CHECKED" if self.not_checked else "")
               + (f"; {len(self.replay_warnings)} replay warning(s)" + ("" if warnings else " (on stderr)")
                  if self.replay_warnings else "")
               + (f"; {len(self.units_not_checked)} unit(s) NOT CHECKED (in no location or box of the scenario)"
                  if self.units_not_checked else ""))
        if self.played_scenario:
            yield self._played_line()
        if self.bound:
            b = self.bound
            yield (f"bound: {b.get('units', 0)} unit(s), {b.get('markers', 0)} marker(s), "
                   + (f"{b['terrain']} terrain piece(s), " if "terrain" in b else "")
                   + f"{b.get('ignored', 0)} ignored, {b.get('unbound', 0)} not bound")
        for rule_id, counts in sorted(self.summary().items()):
            yield "  " + rule_id + ": " + ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        if self.not_checked:
            yield f"{len(self.not_checked)} rule(s) NOT CHECKED (the game is not known to be clean for them):"
            for rule_id, why in sorted(self.not_checked.items()):
                yield f"  NOT CHECKED {rule_id}: {why}"
        if self.rule_sources:
            yield f"{len(self.rule_sources)} rule(s) not built in:"
            for rule_id, source in sorted(self.rule_sources.items()):
                yield f"  {rule_id}: {source}"
        for failure in self.rule_failures:
            yield f"rule {failure['rule_id']} failed at step {failure['step']}: {failure['error']}"
        for warning in self.replay_warnings if warnings else ():
            yield f"replay: {warning}"
        if self.integrity is not None:
            # (the integrity check reads the differences between logs: its
            # chain section says them, in the module's names)
            yield ""
            yield "PBEM integrity (vmodtool check-game):"
            for line in self.integrity.lines():
                yield f"  {line}" if line else ""
        else:
            for diff in self.chain_differences:
                yield f"continuity: {diff}"

    def _played_line(self) -> str:
        """Which scenario of a game with several was judged, and why."""
        played = self.played_scenario
        how = "named by --scenario-name" if played.get("by") == "name" else \
            "chosen by the log's starting positions: " + ", ".join(
                f"{s['name']} {s['in_place']}/{s['in_place'] + s['misplaced'] + s['extra']} in place"
                for s in played.get("scores", ()))
        return f"scenario: {played['name']} ({how})"

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA_VERSION,
            "logs": list(self.logs),
            "scenario": self.scenario,
            "steps": self.steps,
            "rules_checked": list(self.rules_checked),
            "summary": self.summary(),
            "violations": [v.as_dict() for v in sorted(
                self.violations, key=lambda v: (v.step, v.rule_id, v.units))],
            "not_checked": dict(self.not_checked),
            "complete": self.complete,
            "units_not_checked": dict(self.units_not_checked),
            "rule_failures": [dict(f) for f in self.rule_failures],
            "replay_warnings": list(self.replay_warnings),
            "chain_differences": list(self.chain_differences),
            **({"bound": dict(self.bound)} if self.bound else {}),
            **({"rule_sources": dict(self.rule_sources)} if self.rule_sources else {}),
            **({"played_scenario": dict(self.played_scenario)} if self.played_scenario else {}),
            **({"integrity": self.integrity.as_json()} if self.integrity is not None else {}),
        }
