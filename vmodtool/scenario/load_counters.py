"""Loading the ``markers`` and ``counters`` sections: the counter mix,
given in the file or as a CSV file (``counters: {csv: …}``, each problem
reported at its row's line), expanded by ``count`` into one counter per
piece."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path, Problem
from vmodtool.scenario.source import load_csv

__all__ = ["build_markers", "build_counters"]

Entry = tuple[Path, dict[str, Any], M.Position]
_CSV_COLUMNS = ("id", "type", "side", "formation", "label", "labels", "count", "face")


def build_markers(c: ProblemCollector) -> dict[str, M.MarkerKind]:
    out = {}
    for mid, mdef in c.get(("markers",), dict, {}).items():
        mp = ("markers", mid)
        if isinstance(mdef, dict):
            out[str(mid)] = M.MarkerKind(str(mid), c.text(mp + ("name",), str(mid)) or str(mid),
                                         c.text(mp + ("representation",), "counter") or "counter",
                                         c.text(mp + ("scope",), "unit") or "unit",
                                         c.text(mp + ("text",)), c.text(mp + ("fill",)),
                                         c.text(mp + ("ink",)))
    return out


def _counter_entries(c: ProblemCollector) -> list[Entry]:
    value = c.get(("counters",))
    if isinstance(value, list):
        return [(cp, entry, c.pos(cp)) for cp, entry in c.list_of(("counters",)) if isinstance(entry, dict)]
    if isinstance(value, dict) and isinstance(value.get("csv"), str):
        return _csv_entries(c, value["csv"])
    return []


def _csv_entries(c: ProblemCollector, name: str) -> list[Entry]:
    csv_path = c.local_file(("counters", "csv"), name, "counter mix CSV")
    if csv_path is None:
        return []
    rows, lines, problems = load_csv(csv_path)
    c.problems.extend(problems)
    out: list[Entry] = []
    required = ("id", "type", "side")
    for row, line in zip(rows, lines, strict=True):  # one line number per row
        missing = [k for k in required if not (row.get(k) or "").strip()]
        if missing:
            c.problems.append(Problem(f"row is missing {', '.join(missing)}", file=str(csv_path),
                                      line=line, path=("counters",)))
            continue
        entry: dict[str, Any] = {k: v.strip() for k, v in row.items() if isinstance(k, str) and v and v.strip()}
        if "labels" in entry:
            entry["labels"] = [s.strip() for s in entry["labels"].split("|")]
        if "count" in entry:
            try:
                if L.number_text_problem(entry["count"]) is not None:
                    raise ValueError(entry["count"])
                entry["count"] = int(entry["count"])
            except ValueError:
                c.problems.append(Problem(f"count {entry['count']!r} is not a whole number",
                                          file=str(csv_path), line=line, path=("counters", "count")))
                entry["count"] = 1
        unknown = [k for k in row if isinstance(k, str) and k not in _CSV_COLUMNS]
        if unknown and line == lines[0]:
            c.problems.append(Problem(f"unknown column(s) {', '.join(unknown)}; expected id, type, "
                                      "side, formation, label, labels, count, face",
                                      file=str(csv_path), line=1, path=("counters",)))
        out.append((("counters", "csv", line), entry, M.Position(str(csv_path), line)))
    return out


def _counter_problem(c: ProblemCollector, cp: Path, position: M.Position, key: str, message: str) -> None:
    """Report a problem of one counter entry (a CSV row is reported at its line)."""
    if position.file != c.doc.file:
        c.problems.append(Problem(message, file=position.file, line=position.line, path=("counters", key)))
    else:
        c.err(cp + (key,), message)


def _counter_ref(c: ProblemCollector, cp: Path, position: M.Position, entry: dict[str, Any], key: str,
                 known: Iterable[str], what: str) -> str | None:
    """The name a counter entry gives under ``key`` when it is one of ``known``."""
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        return None
    if value not in c.known_set(known):
        close = c.close_match(value, known)
        _counter_problem(c, cp, position, key, f"unknown {what} {value!r}"
                         + (f"; did you mean {close!r}?" if close else ""))
        return None
    return value


class _Mix:
    """The counters built so far and where each id was first given."""

    def __init__(self) -> None:
        self.counters: list[M.Counter] = []
        self.seen: dict[str, M.Position] = {}


def build_counters(c: ProblemCollector, unit_types: Mapping[str, M.UnitType], sides: Sequence[str],
                   formations: Sequence[M.Formation]) -> list[M.Counter]:
    mix = _Mix()
    formation_side = {f.id: f.side for f in formations}
    for cp, entry, position in _counter_entries(c):
        cid = entry.get("id")
        if not isinstance(cid, str) or not cid:
            continue
        if not _add_entry(c, mix, cp, entry, position, cid, unit_types, sides, formation_side):
            break
    if (not mix.counters and c.get(("counters",)) is not None
            and not any(p.path[:1] == ("counters",) for p in c.problems)):
        c.err(("counters",), "the counter mix is empty")
    return mix.counters


def _add_entry(c: ProblemCollector, mix: _Mix, cp: Path, entry: dict[str, Any], position: M.Position, cid: str,
               unit_types: Mapping[str, M.UnitType], sides: Sequence[str], formation_side: Mapping[str, str]
               ) -> bool:
    """Add the counters of one entry; False when the mix grows past its limit."""
    bad = partial(_counter_problem, c, cp, position)
    check_ref = partial(_counter_ref, c, cp, position, entry)
    ctype = check_ref("type", unit_types, "unit type")
    side = check_ref("side", sides, "side")
    formation = check_ref("formation", formation_side, "formation")
    if formation and side and formation_side.get(formation) and formation_side[formation] != side:
        bad("formation", f"formation {formation!r} belongs to side {formation_side[formation]!r}, not {side!r}")
    face = entry.get("face") if isinstance(entry.get("face"), str) else None
    if face and ctype and face not in [f.name for f in unit_types[ctype].faces]:
        bad("face", f"unit type {ctype!r} has no face {face!r}; its faces are "
                    f"{', '.join(f.name for f in unit_types[ctype].faces)}")
        face = None
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        count = 1
    elif count > L.MAX_COUNT:
        bad("count", f"the number {count} is out of range (maximum {L.MAX_COUNT})")
        count = 1
    if len(mix.seen) + count > L.MAX_COUNTERS:
        bad("count" if "count" in entry else "id",
            f"the counter mix grows past {L.MAX_COUNTERS:,} counters here; a scenario has at most "
            f"{L.MAX_COUNTERS:,}")
        return False
    labels = entry.get("labels")
    label = entry.get("label") if isinstance(entry.get("label"), str) else None
    if isinstance(labels, list) and len(labels) != count:
        bad("labels", f"{len(labels)} labels for count {count}; give one label per counter")
    ids = [cid] if count == 1 and "count" not in entry else [f"{cid}.{i}" for i in range(1, count + 1)]
    for i, uid in enumerate(ids):
        if uid in mix.seen:
            bad("id", f"duplicate counter id {uid!r} (first at {mix.seen[uid]})")
            continue
        mix.seen[uid] = position
        lab = (str(labels[i]) if isinstance(labels, list) and i < len(labels) else label)
        if ctype and side:
            mix.counters.append(M.Counter(uid, ctype, side, formation, lab, face, cid, position))
    return True
