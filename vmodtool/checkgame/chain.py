"""Between the logs of a game (the ``chain`` section of ``vmodtool
check-game``, ``docs/check-game.md``): who saved each log, what changed
between the end of one log and the saved state the next starts from
(module updates collapsed to one note, every other difference in the
module's names), the order of the logs and the order that fits best, and
logs that seem missing.

The replay's own chain differences (:attr:`Replay.chain_differences`) are
the differences; the order is judged on piece positions captured once per
log start and end while replaying
(:class:`~vmodtool.checkgame.recorder.GameRecorder`), never by replaying
again.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.checkgame.setups import Setup, module_setups, setup_of
from vmodtool.checkgame.visitor import SectionVisitor, run_section
from vmodtool.replay.events import (
    AddEvent,
    ChangeEvent,
    HideEvent,
    MaskEvent,
    MoveEvent,
    PieceRef,
    Place,
    RemoveEvent,
)

if TYPE_CHECKING:
    from vmodtool.replay.chain import ChainDifference
    from vmodtool.replay.game import Step

__all__ = ["section", "ChainSection", "best_order", "not_one_game", "restarted_from", "Apart"]

Sig = dict[str, tuple[str | None, int, int]]

#: at least this many definitions changed in one transition is a module
#: update (fewer are reported piece by piece)
MODULE_UPDATE = 10
#: a transition moving at least this many pieces (and at least half as many
#: as a typical log moves) while no given log fits between: a log seems missing
GAP_MIN = 10


def _cost(end: Sig, start: Sig) -> int:
    """Pieces whose place differs (or that only one of the states has)."""
    return _cost_of(_places(end), _places(start))


def _places(sig: Sig) -> tuple[frozenset[int], frozenset[int]]:
    """A state as sets of the hashes of its (piece, place) pairs and of its
    pieces, made once per log: the cost of every pair of logs is then a
    difference of integer sets (a hash collision can only miscount a cost,
    which orders the logs, never a finding)."""
    return frozenset(hash(item) for item in sig.items()), frozenset(hash(pid) for pid in sig)


def _cost_of(end: tuple[frozenset[int], frozenset[int]], start: tuple[frozenset[int], frozenset[int]]) -> int:
    return len(end[0] - start[0]) + len(start[1] - end[1])


def best_order(cost: Sequence[Sequence[int]]) -> tuple[list[int], int]:
    """The order of the logs (indices) whose transitions cost least in
    total, ``cost[i][j]`` being the end of log i against the start of log
    j: exact for up to 8 logs, else the best greedy chain from every first
    log."""
    n = len(cost)
    if n <= 1:
        return list(range(n)), 0

    def total(order: Sequence[int]) -> int:
        return sum(cost[a][b] for a, b in zip(order, order[1:], strict=False))

    if n <= 8:
        best = min(permutations(range(n)), key=lambda o: (total(o), o))
        return list(best), total(best)
    candidates = []
    for first in range(n):
        order = [first]
        left = set(range(n)) - {first}
        while left:
            nxt = min(left, key=lambda j: (cost[order[-1]][j], j))
            order.append(nxt)
            left.remove(nxt)
        candidates.append(order)
    given = list(range(n))
    candidates.append(given)
    best_list = min(candidates, key=lambda o: (total(o), o != given))
    return _improve(best_list, total), total(_improve(best_list, total))


def _improve(order: list[int], total: Callable[[Sequence[int]], int]) -> list[int]:
    """Move one log at a time to the place where the chain costs least
    (or-opt), until no single move helps: a greedy chain leaves a log that
    fits in the middle to its end."""
    best, best_total = list(order), total(order)
    improved = True
    while improved:
        improved = False
        for i in range(len(best)):
            rest = best[:i] + best[i + 1:]
            for j in range(len(rest) + 1):
                candidate = rest[:j] + [best[i]] + rest[j:]
                t = total(candidate)
                if t < best_total:
                    best, best_total, improved = candidate, t, True
                    break
            if improved:
                break
    return best


@dataclass(frozen=True)
class Apart:
    """Two files given one after the other that are not one game: ``k`` is
    the later one's index, ``reason`` says why (in words), ``common`` the
    pieces they share, ``versions`` the module versions they were saved with
    (None where the file does not say), ``set_ups`` the module's set-ups
    the earlier file's game and the later file start as, when that is the
    evidence."""

    k: int
    reason: str
    common: int
    versions: tuple[str | None, str | None]
    set_ups: tuple[str, str] | None = None

    def record(self, names: Sequence[str]) -> dict[str, object]:
        out: dict[str, object] = {"from": names[self.k - 1], "to": names[self.k], "reason": self.reason,
                                  "common_pieces": self.common, "module_versions": list(self.versions)}
        if self.set_ups is not None:
            out["set_ups"] = list(self.set_ups)
        return out


def module_version(record: GameRecord, k: int) -> str | None:
    """The module version file ``k`` was saved with (its ``moduledata``,
    else its ``savedata``; None when it has neither: a VASSAL 2.x log)."""
    from vmodtool.errors import VmodError
    from vmodtool.vassal.metadata import ModuleMetadata, SaveMetadata
    game = record.replay.games[k]
    for entry, kind in (("moduledata", ModuleMetadata), ("savedata", SaveMetadata)):
        raw = game.entries.get(entry)
        if raw:
            try:
                return kind.parse(raw, file=game.file).version or None
            except VmodError:
                continue
    return None


def not_one_game(record: GameRecord) -> list[Apart]:
    """The places where the files given stop being one game: the next file
    shares no piece with the end of the one before (another game, another
    scenario's set-up), or it was saved with another module version and
    shares fewer than half its pieces (set-ups of different versions: a
    module update in a running game keeps the game's pieces), or it is one
    of the module's predefined set-ups, unplayed, while the game before it
    started as another (set-ups of different scenarios,
    :mod:`vmodtool.checkgame.setups`).  A game's logs, a module update
    between them and a log restarted from an earlier state (or from the
    set-up the game started from) all share their pieces and stay one
    game."""
    out: list[Apart] = []
    scenarios = _Scenarios(record)
    first = 0                       # the first file of the game being followed
    for k in range(1, min(len(record.starts), len(record.ends) + 1)):
        end, start = record.ends[k - 1], record.starts[k]
        if not end or not start:
            continue
        common = len(end.keys() & start.keys())
        versions = (module_version(record, k - 1), module_version(record, k))
        other_version = None not in versions and versions[0] != versions[1]
        if common == 0:
            reason = "no piece in common"
        elif other_version and common < min(len(end), len(start)) / 2:
            reason = f"{common} piece(s) in common of {min(len(end), len(start))}"
        else:
            apart = scenarios.apart(k, first, common, versions) if end != start else None
            if apart is not None:
                out.append(apart)
                first = k
            continue
        if other_version:
            reason += f", saved with module versions {versions[0]} and {versions[1]}"
        out.append(Apart(k, reason, common, versions))
        first = k
    return out


class _Scenarios:
    """Which of the module's predefined set-ups each file starts as, read
    only when a transition asks (a module's set-ups are replayed once)."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self._setups: list[Setup] | None = None
        self._of: dict[int, Setup | None] = {}

    def of(self, k: int) -> Setup | None:
        if self._setups is None:
            self._setups = module_setups(self.record)
        if k not in self._of:
            self._of[k] = setup_of(self.record.starts[k], self._setups)
        return self._of[k]

    def apart(self, k: int, first: int, common: int, versions: tuple[str | None, str | None]) -> Apart | None:
        """Files ``k - 1`` and ``k`` as set-ups of different scenarios:
        ``k`` starts as a set-up, unplayed, and the game before it (from
        file ``first`` on) started as another one."""
        if self.record.module is None:
            return None
        now = self.of(k)
        if now is None:
            return None
        began = next(((j, s) for j in range(k - 1, first - 1, -1) if (s := self.of(j)) is not None), None)
        if began is None or began[1].places == now.places:
            return None
        j, before = began
        names = [_name(f) for f in self.record.replay.files]
        return Apart(k, f"set-ups of different scenarios: {names[j]} starts as the module's set-up "
                        f"“{before.definition.title}” ({before.definition.file}), {names[k]} as its set-up "
                        f"“{now.definition.title}” ({now.definition.file})",
                     common, versions, (before.definition.title, now.definition.title))


def _apart_finding(names: Sequence[str], apart: Sequence[Apart], log: str, at: int | None) -> Finding:
    where = "; ".join(f"{names[a.k - 1]} → {names[a.k]}: {a.reason}" for a in apart)
    return Finding("not_one_game", SUSPICIOUS,
                   f"these files are not one game ({where}): their order and the differences between them "
                   "are not judged", log=log, step=at, file_step=0,
                   details={"transitions": [a.record(names) for a in apart]})


def restarted_from(record: GameRecord) -> dict[int, int]:
    """Logs that restart from an earlier saved state: log ``k`` -> the
    earlier log ``j`` (not the one just before) at whose end every piece
    stood where log ``k`` starts, while the log just before ended elsewhere
    (what that log and those between played is not continued).  The latest
    such ``j``."""
    out: dict[int, int] = {}
    ends = [_places(sig) for sig in record.ends]
    for k in range(2, len(record.starts)):
        start = _places(record.starts[k])
        if k - 1 >= len(ends) or _cost_of(ends[k - 1], start) == 0:
            continue
        for j in range(k - 2, -1, -1):
            if _cost_of(ends[j], start) == 0 and _cost_of(start, ends[j]) == 0:
                out[k] = j
                break
    return out


def _restart_finding(names: Sequence[str], k: int, j: int, own: Sequence[Finding], at: int | None,
                     log: str) -> Finding:
    skipped = ", ".join(names[j + 1:k])
    kinds = Counter(f.kind.replace("_between_logs", "") for f in own)
    return Finding(
        "restarted_log", SUSPICIOUS,
        f"{names[k]} restarts from the end of {names[j]}: what {skipped} played is not continued "
        f"({len(own)} difference(s) with the end of {names[k - 1]}: "
        + ", ".join(f"{n} {kind}" for kind, n in kinds.most_common()) + ")",
        log=log, step=at, file_step=0,
        details={"restarts_from": names[j], "not_continued": names[j + 1:k], "differences": len(own)},
        folded=tuple(own))


def _name(path: str | Path | None) -> str:
    return Path(path).name if path else "-"


def _readable(d: ChainDifference) -> str:
    """One difference in the module's names."""
    name = d.piece.label() if d.piece is not None else ""
    if d.kind == "moved" and d.before is not None and d.after is not None:
        return f"{name} moved {d.before.label()} → {d.after.label()}"
    if d.kind == "added":
        return f"{name} added at {d.after.label() if d.after else 'nowhere'}"
    if d.kind == "removed":
        return f"{name} removed from {d.before.label() if d.before else 'nowhere'}"
    if d.kind == "restacked":
        return f"{name} restacked at {d.after.label() if d.after else 'nowhere'} ({d.detail})"
    if d.kind == "changed" and d.before_piece is not None and d.piece is not None:
        was = d.before_piece.label()
        head = f"{was} became {name}" if was != name else name
        return f"{head} at {d.after.label() if d.after else 'nowhere'}: {_change(d)}"
    if d.kind in ("property", "turn"):
        return f"{'global property' if d.kind == 'property' else 'turn'} {d.detail}"
    return d.text()


def _change(d: ChainDifference) -> str:
    """A ``changed`` difference as its properties: a layer's level by its
    name (``NAME_Name``), others ``key old → new``."""
    if d.before_piece is None or d.piece is None:
        return d.detail
    change = ChangeEvent(before=d.before_piece, after=d.piece, place=d.after or Place(None)).changes()
    layers = {key.rsplit("_", 1)[0] for key in change if key.endswith(_LAYER_KEYS)}
    parts = []
    for key, (a, b) in change.items():
        base, _, suffix = key.rpartition("_")
        if key in ("PieceName", "BasicName") or (base in layers and f"_{suffix}" in _LAYER_KEYS):
            continue
        parts.append(f"{key} {a if a is not None else '-'} → {b if b is not None else '-'}")
    for layer in sorted(layers):
        name, active = change.get(f"{layer}_Name"), change.get(f"{layer}_Active")
        level = change.get(f"{layer}_Level")
        layer = layer or "an unnamed layer"
        if active is not None and active[1] == "false":
            parts.append(f"{layer} removed")
        elif name is not None and name[1]:
            parts.append(f"{layer} flipped to {name[1]}" + (f" (was {name[0]})" if name[0] else ""))
        elif active is not None and active[1] == "true":
            parts.append(f"{layer} added" + (f" at level {level[1]}" if level is not None else ""))
        elif level is not None:
            parts.append(f"{layer} level {level[0]} → {level[1]}")
    return ", ".join(parts) if parts else d.detail


#: the properties an Embellishment (layer) exposes
_LAYER_KEYS = ("_Level", "_Name", "_Active", "_Image")


def _is_definition(d: ChainDifference) -> bool:
    return d.kind == "changed" and d.detail.startswith(("trait definition differs", "trait chain differs"))


class ChainSection(SectionVisitor):
    """The ``chain`` section.  From the steps: who saved each log (its
    steps' players, most steps first) and how many pieces a log moves (the
    pieces its events name: moved, a card drawn among them, added, removed,
    hidden or masked); the rest from the record (each log's start and end
    places, the replay's chain differences)."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record)
        self.files = [str(f) for f in record.replay.files]
        self.players: dict[str, Counter[str]] = {f: Counter() for f in self.files}
        self.moved_in_log: dict[str, set[str]] = {f: set() for f in self.files}
        self._moved: set[str] | None = None

    def begin_step(self, step: Step) -> None:
        f = step.file or ""
        if step.player and f in self.players:
            self.players[f][step.player] += 1
        self._moved = self.moved_in_log.get(f)

    def _names(self, piece: PieceRef) -> None:
        if self._moved is not None and piece is not None and piece.id:
            self._moved.add(piece.id)

    def visit_move(self, event: MoveEvent) -> None:
        self._names(event.piece)

    def visit_add(self, event: AddEvent) -> None:
        self._names(event.piece)

    def visit_remove(self, event: RemoveEvent) -> None:
        self._names(event.piece)

    def visit_mask(self, event: MaskEvent) -> None:
        self._names(event.piece)

    def visit_hide(self, event: HideEvent) -> None:
        self._names(event.piece)

    def saved_by(self, f: str) -> list[str]:
        return [p for p, _ in self.players[f].most_common()]

    def result(self) -> Section:
        files = self.files
        names = [_name(f) for f in files]
        out = Section("chain", "Between the logs")
        if len(files) < 2:
            out.summary.append(f"one log ({names[0] if names else '-'}): nothing to compare")
            out.data = {"transitions": [], "order": names, "suggested_order": names}
            return out
        order = _Order.of(self.record, names)
        judge = _Transitions(self, names, order)
        for k in range(1, len(files)):
            judge.transition(k)
        findings = judge.findings
        if order.finding is not None:
            findings.insert(0, order.finding)
        if order.apart:
            apart = order.apart[0].k
            findings.insert(0, _apart_finding(names, order.apart, files[apart], judge.at[apart]))
        gaps = [f for f in findings if f.kind == "missing_log"]
        n_susp = sum(1 for f in findings if f.severity == SUSPICIOUS)
        summary = [order.head_line, *judge.summary]
        summary.append(f"{n_susp} suspicious finding(s); {len(gaps)} missing log(s); "
                       f"{sum(1 for t in judge.transitions if t['module_update'])} module update(s)")
        out.summary = summary
        out.findings = findings
        out.data = {"transitions": judge.transitions, **order.data,
                    "not_one_game": [a.record(names) for a in order.apart]}
        return out


@dataclass
class _Order:
    """The order of the logs, judged first: each log's end against every
    log's start.  In a wrong order every difference is an artefact of the
    order: the transitions are counted, not listed, and no gap is a missing
    log (:attr:`out_of_order`)."""

    data: dict[str, object]
    head_line: str
    finding: Finding | None = None
    apart: list[Apart] = field(default_factory=list)
    restarts: dict[int, int] = field(default_factory=dict)

    @property
    def out_of_order(self) -> bool:
        return self.finding is not None or bool(self.apart)

    @classmethod
    def of(cls, record: GameRecord, names: list[str]) -> _Order:
        n = len(names)
        data: dict[str, object] = {"order": names}
        if not (len(record.starts) == n and len(record.ends) == n):
            data["suggested_order"] = None
            return cls(data, "order not checked (the logs' start and end states were not captured)")
        apart = not_one_game(record)
        if apart:
            data["suggested_order"] = None
            return cls(data, "NOT ONE GAME: " + "; ".join(a.reason for a in apart), apart=apart)
        restarts = restarted_from(record)
        ends = [_places(sig) for sig in record.ends]
        starts = [_places(sig) for sig in record.starts]
        cost = [[_cost_of(ends[i], starts[j]) if i != j else 10 ** 9 for j in range(n)] for i in range(n)]
        given_cost = sum(cost[i][i + 1] for i in range(n - 1))
        order, best_cost = best_order(cost)
        suggested = [names[i] for i in order]
        data.update({"suggested_order": suggested, "given_cost": given_cost, "best_cost": best_cost})
        if order == list(range(n)) or best_cost >= given_cost:
            return cls(data, f"order checked: {n} logs in the order given fit best", restarts=restarts)
        finding = Finding(
            "logs_out_of_order", SUSPICIOUS,
            f"logs out of order: the order that fits is {', '.join(suggested)} ({best_cost} piece "
            f"place(s) differ between the logs in that order, {given_cost} in the order given)",
            details={"suggested_order": suggested, "given_cost": given_cost, "best_cost": best_cost})
        return cls(data, f"logs OUT OF ORDER: the order that fits is {', '.join(suggested)}", finding,
                   restarts=restarts)


@dataclass
class _Sorted:
    """One transition's differences sorted: those that count (``real``, by
    kind in ``counts``), those an unlogged stack move explains, the
    restacks that are consequences of other moves, and the module update's
    definitions."""

    real: list[ChainDifference]
    counts: Counter[str]
    explained: int
    consequences: int
    definitions: int
    module_update: bool

    @classmethod
    def of(cls, diffs: list[ChainDifference], ghosts: Sig) -> _Sorted:
        definitions = sum(1 for d in diffs if _is_definition(d))
        module_update = definitions >= MODULE_UPDATE
        counts: Counter[str] = Counter()
        explained = 0
        real: list[ChainDifference] = []
        for d in diffs:
            if module_update and _is_definition(d):
                continue
            pid = d.piece.id if d.piece is not None else None
            if d.kind in ("moved", "restacked") and pid in ghosts and d.after is not None and \
                    ghosts[pid] == (d.after.map, d.after.x, d.after.y):
                explained += 1
                continue
            counts[d.kind] += 1
            real.append(d)
        # a piece whose stack changed only because others moved in or out of
        # it is a consequence of those moves, not a finding of its own
        touched = {(pl.map, pl.x, pl.y) for d in real if d.kind in ("moved", "added", "removed")
                   for pl in (d.before, d.after) if pl is not None}
        consequences = [d for d in real if d.kind == "restacked" and any(
            pl is not None and (pl.map, pl.x, pl.y) in touched for pl in (d.before, d.after))]
        if consequences:
            real = [d for d in real if d not in consequences]
            counts["restacked"] -= len(consequences)
            counts = +counts
        return cls(real, counts, explained, len(consequences), definitions, module_update)

    @property
    def moved(self) -> int:
        """Pieces moved, added or removed."""
        return self.counts["moved"] + self.counts["added"] + self.counts["removed"]


_KINDS = {"moved": "moved_between_logs", "added": "added_between_logs", "removed": "removed_between_logs",
          "changed": "changed_between_logs", "property": "property_between_logs"}


def _difference_findings(real: list[ChainDifference], before: str, after: str, log: str,
                         at: int | None) -> list[Finding]:
    """A finding per difference between the end of ``before`` and the start
    of ``after`` (a piece moved and changed, as VASSAL marks a moved piece,
    is one finding)."""
    moved_ids = {d.piece.id for d in real if d.kind == "moved" and d.piece is not None}
    change_of = {d.piece.id: d for d in real if d.kind == "changed" and d.piece is not None
                 and d.piece.id in moved_ids}
    own: list[Finding] = []
    for d in real:
        if d.kind == "changed" and d.piece is not None and change_of.get(d.piece.id) is d:
            continue
        suspicious = d.kind in _KINDS
        kind = _KINDS.get(d.kind, f"{d.kind}_between_logs")
        text = _readable(d)
        details: dict[str, object] = {"from": before, "to": after, "difference": d.record()}
        if d.kind == "moved":
            text += f" since the end of {before} (outside the logs)"
            also = change_of.get(d.piece.id if d.piece is not None else None)
            if also is not None:
                text += f"; {_change(also)}"
                details["change"] = also.record()
        else:
            text += f" (since the end of {before})"
        own.append(Finding(kind, SUSPICIOUS if suspicious else NOTE, text, log=log, step=at, file_step=0,
                           details=details))
    return own


class _Transitions:
    """The transitions from each log to the next, judged one by one: their
    findings, summary lines and data."""

    def __init__(self, chain: ChainSection, names: list[str], order: _Order) -> None:
        record, replay = chain.record, chain.record.replay
        self.chain = chain
        self.record = record
        self.names = names
        self.order = order
        self.by_pair: dict[tuple[str | None, str | None], list[ChainDifference]] = {}
        for d in replay.chain_differences:
            self.by_pair.setdefault((d.before_file, d.after_file), []).append(d)
        files = chain.files
        # where each log's saved state stands in the chain (its step 0)
        self.at = [replay.chain_step(k) if k < len(replay.log_starts) else None for k in range(len(files))]
        moved_in_log = chain.moved_in_log
        self.typical = statistics.median(len(s) for s in moved_in_log.values()) if moved_in_log else 0
        self.gap_threshold = max(GAP_MIN, self.typical / 2)
        self.transitions: list[dict[str, object]] = []
        self.findings: list[Finding] = []
        self.summary: list[str] = []

    def transition(self, k: int) -> None:
        files, names, at = self.chain.files, self.names, self.at
        a, b = files[k - 1], files[k]
        ghosts = self.record.ghosts[k - 1] if k - 1 < len(self.record.ghosts) else {}
        diffs = self.by_pair.get((a, b), [])
        sort = _Sorted.of(diffs, ghosts)
        own = [] if self.order.out_of_order else _difference_findings(sort.real, names[k - 1], names[k], b, at[k])
        restart = self.order.restarts.get(k)
        gap = sort.moved >= self.gap_threshold and not self.order.out_of_order and restart is None
        if restart is not None and any(f.severity == SUSPICIOUS for f in own):
            self.findings.append(_restart_finding(names, k, restart, own, at[k], b))
        elif not gap:
            self.findings.extend(own)
        # (a missing log's differences are its consequences: folded into it, below)
        module_summary = self._module_update(k, diffs, sort)
        if sort.explained:
            self.findings.append(Finding(
                "unlogged_stack_move", NOTE,
                f"{sort.explained} piece(s) are where the board of the VASSAL that wrote {names[k - 1]} had "
                "them, not where VASSAL replaying it puts them (a move of a stack VASSAL created "
                "without logging it, or a removed stack that still held them): nothing was moved "
                "between the logs",
                log=b, step=at[k], file_step=0, details={"pieces": sort.explained}))
        who_a, who_b = self.chain.saved_by(a), self.chain.saved_by(b)
        self.transitions.append({
            "from": names[k - 1], "to": names[k], "saved_by": {"from": who_a, "to": who_b},
            "counts": dict(sort.counts), "module_update": module_summary,
            "unlogged_stack_moves": sort.explained, "restacked_by_moves": sort.consequences,
            "gap": gap, "restarts_from": names[restart] if restart is not None else None})
        line = (f"{names[k - 1]} → {names[k]} ({', '.join(who_a) or 'no player named'} → "
                f"{', '.join(who_b) or 'no player named'}): ")
        line += ", ".join(f"{n} {kind}" for kind, n in sorted(sort.counts.items())) or "no difference"
        if sort.module_update:
            line += f"; module updated ({sort.definitions:,} definitions)"
        if restart is not None:
            line += f"; restarts from the end of {names[restart]}"
        self.summary.append(line)
        if gap:
            self.findings.append(Finding(
                "missing_log", SUSPICIOUS,
                f"a log seems to be missing between {names[k - 1]} and {names[k]}: {sort.moved} piece(s) moved, "
                f"added or removed (a log here moves {self.typical:g} piece(s) in the median) and no given "
                "log fits between" + self._set_ups_unknown(k), log=b, step=at[k], file_step=0,
                details={"pieces": sort.moved}, folded=tuple(own)))

    def _set_ups_unknown(self, k: int) -> str:
        """What a missing log between two saves with no play logged may
        also be, when the module's set-ups could not tell."""
        games = self.record.replay.games
        if games[k - 1].is_log or games[k].is_log or module_setups(self.record):
            return ""
        return ("; both files are saved positions with no play logged, as set-ups of two scenarios of "
                "one module are: give the module's archive with its set-ups (--module) to tell them apart")

    def _module_update(self, k: int, diffs: list[ChainDifference], sort: _Sorted) -> dict[str, int] | None:
        """The module update between logs ``k - 1`` and ``k`` (its note
        added), None when there is none."""
        if not sort.module_update:
            return None
        names = self.names
        moved_defs = sum(1 for d in diffs if d.kind == "moved")
        module_summary = {"definitions_changed": sort.definitions, "positions_changed": moved_defs}
        self.findings.append(Finding(
            "module_updated", NOTE,
            f"module updated between {names[k - 1]} and {names[k]}: {sort.definitions:,} piece "
            f"definition(s) changed, "
            + (f"{moved_defs} position(s) changed" if moved_defs else "no position changed"),
            log=self.chain.files[k], step=self.at[k], file_step=0, details=module_summary))
        return module_summary


def section(record: GameRecord) -> Section:
    """The ``chain`` section of one game."""
    return run_section(ChainSection(record))
