"""A published module's predefined setups as a ``scenarios:`` proposal for
``vmodtool import`` (``docs/guide/scenarios.md``, "Scenarios of a published
module").

Each ``PredefinedSetup`` of the module (File > New Game > *name*, under its
sub-menu) with a save file becomes one scenario: the save is read (from the
module's archive, or from the folder given for a bare buildFile; bounded
like every save) and replayed to its saved state, its pieces bound through
the binding the import proposes, and each unit set up where the save puts
it: a hex of the scenario's map, or the box of another map window.  Pieces
that look like units but that the binding does not bind are listed as not
bound, never guessed.  Saves of the folder that no setup names are proposed
too, named by their file (a module may list a setup without its file).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.audit.binding import PieceBinder
from vmodtool.errors import VmodError
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.scenario.from_module import yaml_text
from vmodtool.scenario.model import Counter, Scenario
from vmodtool.vassal.module import Module

if TYPE_CHECKING:
    from vmodtool.vassal.savefile import SavedGame

__all__ = ["PredefinedSetupEntry", "SetupRead", "predefined_setups", "read_setups", "scenarios_section",
           "SAVE_SUFFIXES", "propose_scenarios"]

#: a scenario id as the format takes it (its save is ``<id>.vsav``)
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
#: the files of a setups folder read as saves
SAVE_SUFFIXES = (".vsav", ".sav")
_SETUP_TAG = "PredefinedSetup"


@dataclass(frozen=True)
class PredefinedSetupEntry:
    """One New Game entry: its name, the sub-menu it is under, its file
    (None: a setup without a save, e.g. "Start with blank map")."""

    name: str
    menu: str | None
    file: str | None


def predefined_setups(module: Module) -> list[PredefinedSetupEntry]:
    """The module's predefined setups that are games (not sub-menus), in
    buildFile order."""
    out: list[PredefinedSetupEntry] = []
    for element in module.buildfile.root.iter():
        if not isinstance(element.tag, str) or not element.tag.endswith(_SETUP_TAG):
            continue
        if element.get("isMenu") == "true":
            continue
        parent = element.getparent()
        menu = parent.get("name") if parent is not None and str(parent.tag).endswith(_SETUP_TAG) else None
        use_file = element.get("useFile", "true") == "true"
        file = element.get("file") if use_file else None
        out.append(PredefinedSetupEntry(element.get("name") or "", menu, file or None))
    return out


@dataclass
class SetupRead:
    """One setup read from its save: units by (map, location) bottom to top,
    the unit-like pieces the binding did not bind (by name, with a count),
    or why it could not be read."""

    entry: PredefinedSetupEntry
    source: str | None
    stacks: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)
    not_bound: dict[str, int] = field(default_factory=dict)
    #: the binding's counter of each unit placed (type, side, name)
    counters: dict[str, Counter] = field(default_factory=dict)
    problem: str | None = None


_Placement = tuple[str, str | None, str, int, str]


class _Placed(ReplayVisitor[tuple[list[_Placement], dict[str, int]]]):
    """(map, location, stack, index, unit id) of each bound unit in the
    save's state; the pieces bound to nothing counted by name."""

    def __init__(self, binder: PieceBinder) -> None:
        self.binder = binder
        self.out: list[_Placement] = []
        self.not_bound: dict[str, int] = {}

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        if log.index != 0:
            return
        for piece in initial.pieces():
            if piece.place.map is None:
                continue
            bound = self.binder.bind(piece.ref)
            if bound.unit is not None:
                self.out.append((piece.place.map, piece.place.location, piece.stack, piece.stack_index,
                                 bound.unit))
            elif bound.marker is None and bound.terrain is None and bound.hexside is None and not bound.ignored:
                name = piece.ref.name or f"piece {piece.ref.id}"
                self.not_bound[name] = self.not_bound.get(name, 0) + 1

    def result(self) -> tuple[list[_Placement], dict[str, int]]:
        return self.out, self.not_bound


def _saved_game(module: Module, entry: PredefinedSetupEntry, setups_dir: Path | None) -> SavedGame:
    """The save of a setup: the module's own file, else the folder's (read
    with the bounds of every save)."""
    from vmodtool.vassal.savefile import SavedGame

    assert entry.file is not None
    data = module.read_file(entry.file)
    if data is not None:
        return SavedGame.from_bytes(data, file=entry.file)
    if setups_dir is not None:
        path = setups_dir / entry.file
        if path.is_file():
            return SavedGame.read(path)
    where = f"the module or {setups_dir}" if setups_dir is not None else "the module (give the folder with --setups)"
    raise VmodError(f"its file {entry.file!r} is not in {where}")


def read_setups(module: Module, scenario: Scenario, setups_dir: Path | None,
                board_sizes: dict[str, tuple[int, int]] | None = None) -> list[SetupRead]:
    """Every predefined setup with a file, and every save of ``setups_dir``
    that none names, read through ``scenario``'s binding."""
    from vmodtool.replay.game import Replay
    from vmodtool.replay.positions import Positions

    entries = [e for e in predefined_setups(module) if e.file]
    named = {e.file for e in entries}
    if setups_dir is not None:
        for path in sorted(setups_dir.iterdir()):
            if path.suffix.lower() in SAVE_SUFFIXES and path.name not in named and path.is_file():
                entries.append(PredefinedSetupEntry(path.stem, None, path.name))
    positions = Positions(module, board_sizes)
    out = []
    for entry in entries:
        read = SetupRead(entry, None)
        out.append(read)
        try:
            game = _saved_game(module, entry, setups_dir)
            read.source = game.file
            replay = Replay([game], positions, [game.file or entry.file or ""])
            binder = PieceBinder(scenario, module)
            ((placed, read.not_bound),) = replay.run(_Placed(binder), until=0)
        except VmodError as exc:
            read.problem = exc.message
            continue
        for map_name, location, _stack, _index, uid in sorted(placed, key=lambda p: (p[2], p[3])):
            read.stacks.setdefault((map_name, location), []).append(uid)
            read.counters[uid] = binder.counters[uid]
    return out


def scenario_of_text(text: str, module: Module, board_sizes: dict[str, tuple[int, int]] | None) -> Scenario:
    """The scenario an import's text describes, loaded with ``module``."""
    from vmodtool.scenario.loader import load_scenario

    with tempfile.TemporaryDirectory(prefix="vmodtool-import-") as folder:
        path = os.path.join(folder, "scenario.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return load_scenario(path, module=module, board_sizes=board_sizes)


def propose_scenarios(text: str, module: Module, setups_dir: Path | None,
                      board_sizes: dict[str, tuple[int, int]] | None) -> tuple[str, list[str]]:
    """``text`` (an import's proposal) with the module's predefined setups
    proposed as its ``counters`` and ``scenarios``, and notes; the text
    unchanged when the module has no setup with a save (and no folder is
    given)."""
    from vmodtool.scenario.problems import ScenarioProblems

    if setups_dir is None and not any(e.file for e in predefined_setups(module)):
        return text, []
    try:
        scenario = scenario_of_text(text, module, board_sizes)
    except ScenarioProblems as exc:       # (the skeleton still needs the user: a board's size, …)
        errors = [p for p in exc.problems if p.severity == "error"] or exc.problems
        why = errors[0].message if errors else exc.message
        return text, [f"the module's predefined setups are not proposed: the scenario written does not load "
                      f"yet ({why}); fix that and import again"]
    lines, notes = scenarios_section(scenario, read_setups(module, scenario, setups_dir, board_sizes))
    if not lines:
        return text, notes
    return text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n", notes


def _scenario_id(name: str, taken: set[str]) -> str:
    base = "".join(ch if ch.isalnum() or ch in "_.-" else "-" for ch in name.casefold()).strip("-.") or "scenario"
    while "--" in base:
        base = base.replace("--", "-")
    sid, n = base, 1
    while sid in taken:
        n += 1
        sid = f"{base}-{n}"
    taken.add(sid)
    return sid


class _Places:
    """Where a save's units go in the scenario: a hex of its map, or the box
    of another map window."""

    def __init__(self, scenario: Scenario) -> None:
        self.hexes = set(scenario.map.grid.hexes)
        self.main = scenario.map.module_map or scenario.map.name
        self.box_of = {b.module_map: b.id for b in scenario.boxes if b.module_map and not b.module_zone}

    def entry(self, map_name: str, location: str | None, uids: Sequence[str]) -> str | None:
        """The set-up entry (a YAML line) of the units at one place; None
        when the place is off the scenario's map and boxes."""
        listed = ", ".join(yaml_text(u) for u in uids)
        if map_name == self.main and location in self.hexes:
            return f"      - {{hex: {yaml_text(location or '')}, stack: [{listed}]}}"
        if map_name in self.box_of:
            return f"      - {{box: {self.box_of[map_name]}, units: [{listed}]}}"
        return None


def _scenario_lines(read: SetupRead, sid: str, places: _Places, counters: dict[str, Counter]) -> list[str]:
    """One scenario of the list; the counters its set-up places added to
    ``counters``."""
    body = [f"  - id: {yaml_text(sid)}", f"    name: {yaml_text(read.entry.name)}"]
    if read.entry.menu:
        body.append(f"    menu: {yaml_text(read.entry.menu)}")
    if read.entry.file:
        body.append(f"    # read from {yaml_text(read.entry.file)}")
    entries: list[str] = []
    off: list[str] = []
    for (map_name, location), uids in read.stacks.items():
        line = places.entry(map_name, location, uids)
        if line is None:
            off.extend(f"{u} ({map_name} {location or ''})".strip() for u in uids)
            continue
        entries.append(line)
        for uid in uids:
            counters.setdefault(uid, read.counters[uid])
    none = "    setup: []   # none of its units stands on the scenario's map or in a box"
    body.append("    setup:" if entries else none)
    body.extend(entries)
    if off:
        body.append(f"    # not set up: {len(off)} units off the scenario's map and boxes: "
                    f"{'; '.join(off[:8])}{' …' if len(off) > 8 else ''}")
    if read.not_bound:
        shown = ", ".join(f"{n} ×{k}" if k > 1 else n for n, k in sorted(read.not_bound.items())[:12])
        body.append(f"    # not bound ({sum(read.not_bound.values())} pieces the binding does not know; "
                    f"bind them and import again): {shown}{' …' if len(read.not_bound) > 12 else ''}")
    return body


def scenarios_section(scenario: Scenario, reads: Sequence[SetupRead]) -> tuple[list[str], list[str]]:
    """The ``counters`` and ``scenarios`` sections (YAML lines) proposing
    the setups read, and notes for the user."""
    places = _Places(scenario)
    counters: dict[str, Counter] = {}
    notes: list[str] = []
    body: list[str] = []
    taken: set[str] = set()
    for read in reads:
        if read.problem is not None or not read.stacks:
            why = read.problem or "no unit of the binding stands on a map in its save"
            notes.append(f"predefined setup {read.entry.name!r}: not proposed: {why}")
            continue
        stem = Path(read.entry.file).stem if read.entry.file else ""
        sid = stem if stem and _ID.match(stem) and stem not in taken else _scenario_id(read.entry.name, taken)
        taken.add(sid)
        body.extend(_scenario_lines(read, sid, places, counters))
    if not body:
        return [], notes
    head = ["counters:   # the units the predefined setups place, named as the binding names their pieces",
            *(f"  - {{id: {yaml_text(c.id)}, type: {c.type}, side: {c.side}"
              + (f", formation: {c.formation}" if c.formation else "") + "}" for c in counters.values()),
            "",
            "scenarios:   # one per predefined setup (File > New Game), read from its save"]
    return head + body, notes
