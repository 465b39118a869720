"""Load a scenario file, check it completely, and build the model.

:func:`check_scenario` returns the model (or ``None``) and **every** problem
found — structural ones from the JSON Schema (unknown keys, wrong types,
missing keys) and semantic ones (a hex that is not on the map, a unit that
does not exist, a hexside between hexes that are not adjacent, a rule naming
an unknown tag …) — each with its file, line, column and key path.
:func:`load_scenario` raises :class:`ScenarioProblems` when there is any
error.  Nothing here raises another exception type for a bad file.
"""

from __future__ import annotations

import difflib
import os
import re
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from itertools import pairwise
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from vmodtool.errors import PathLike, VmodError
from vmodtool.scenario import limits as L
from vmodtool.scenario import load_binding as LB
from vmodtool.scenario import load_cards as LC
from vmodtool.scenario import model as M
from vmodtool.scenario.load_areas import build_areas
from vmodtool.scenario.mapgrid import (
    SQRT3_2,
    AxisNumbering,
    GridSpec,
    MapGrid,
    alpha_index,
    board_size,
    build_map_grid,
)
from vmodtool.scenario.offmap import OFF_MAP_NAME
from vmodtool.scenario.problems import Path, Problem, ScenarioProblems
from vmodtool.scenario.rule_refs import RuleReferences
from vmodtool.scenario.schema_cache import cached_schema_problems
from vmodtool.scenario.schema_check import scenario_schema, too_long
from vmodtool.scenario.source import Document, load_csv, load_document
from vmodtool.vassal.grid_numbering import format_index

if TYPE_CHECKING:
    from vmodtool.scenario.binding import ModuleSource
    from vmodtool.scenario.module_map import ModuleMap
    from vmodtool.vassal.module import Module

__all__ = ["load_scenario", "check_scenario", "scenario_schema", "ScenarioInputs", "RULE_KINDS", "SCHEMAS"]

SCHEMAS = ("vmodtool/1", "wgscen/1")
RULE_KINDS = ("stacking", "stack_order", "cohabitation", "escorted_move", "obligation",
              "movement_allowance", "retreat", "advance_after_combat", "command_range", "status_forbids",
              "state_never", "transition_window", "placement", "phase_sweep", "per_turn_limit", "replacement",
              "setup_conformity", "hand_limit", "card_window", "card_source", "plugin")
END_TURN_CHIT = "end_turn"
GRID_NOT_BUILT = "the grid cannot be built; fix the grid keys above"
_COUNTER_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)(?:/([0-9]+))?\s*(in|mm|px)\s*$")
_PLUGIN_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def load_scenario(path: PathLike, *, module: Module | PathLike | None = None,
                  board_sizes: Mapping[str, tuple[int, int]] | None = None,
                  cache_dir: PathLike | None = None, inputs: ScenarioInputs | None = None) -> M.Scenario:
    """Load and validate a scenario; raises :class:`ScenarioProblems` listing
    every error (warnings alone do not stop loading).  ``module`` (a
    :class:`~vmodtool.vassal.module.Module` or its path) wins over the
    scenario's ``module.file``; ``board_sizes`` over its
    ``module.board_sizes``: both matter only to a scenario whose map is taken
    from the module.  ``cache_dir``: a build's cache folder, where a clean
    schema check is kept (``scenario/schema_cache.py``).  ``inputs``: filled
    with what the model was made of (:class:`ScenarioInputs`)."""
    scenario, problems = check_scenario(path, module=module, board_sizes=board_sizes, cache_dir=cache_dir,
                                        inputs=inputs)
    if scenario is None or any(p.severity == "error" for p in problems):
        raise ScenarioProblems(problems, file=os.fspath(path))
    return scenario


def check_scenario(path: PathLike, *, module: Module | PathLike | None = None,
                   board_sizes: Mapping[str, tuple[int, int]] | None = None,
                   cache_dir: PathLike | None = None, inputs: ScenarioInputs | None = None
                   ) -> tuple[M.Scenario | None, list[Problem]]:
    """Validate a scenario file: the model (None when it cannot be built)
    and every problem found, in file order; ``inputs`` is filled with what
    the model was made of."""
    built = _build(FsPath(path), module, board_sizes, inputs)
    if isinstance(built, list):
        return None, built
    doc, scenario, found = built
    schema = cached_schema_problems(doc, FsPath(cache_dir) if cache_dir is not None else None)
    return scenario, _merged(doc, schema, found)


def load_scenario_unchecked(path: PathLike, *, inputs: ScenarioInputs | None = None
                            ) -> tuple[M.Scenario, Callable[[], None]]:
    """:func:`load_scenario` but for the JSON Schema check, which the
    function returned does (raising :class:`ScenarioProblems` with every
    problem, as :func:`load_scenario` would): for a caller with work to
    start on a model that its own checks found sound (a cold build's
    workers) before it checks the rest.  A model with problems of its own
    is refused at once, with the schema's problems among them."""
    built = _build(FsPath(path), None, None, inputs)
    if isinstance(built, list):
        raise ScenarioProblems(built, file=os.fspath(path))
    doc, scenario, found = built
    if scenario is None or any(p.severity == "error" for p in doc.problems + found):
        raise ScenarioProblems(_merged(doc, cached_schema_problems(doc, None), found), file=os.fspath(path))

    def check_schema() -> None:
        schema = cached_schema_problems(doc, None)
        if any(p.severity == "error" for p in schema):
            raise ScenarioProblems(_merged(doc, schema, found), file=os.fspath(path))

    return scenario, check_schema


def _build(fs_path: FsPath, module: Module | PathLike | None, board_sizes: Mapping[str, tuple[int, int]] | None,
           inputs: ScenarioInputs | None) -> tuple[Document, M.Scenario | None, list[Problem]] | list[Problem]:
    """The document, the model and the model's own problems; the problems
    alone when the file is no scenario document."""
    doc = load_document(fs_path)
    if inputs is not None:
        inputs.digest = doc.digest
    if doc.problems and doc.data is None:
        return list(doc.problems)
    if not isinstance(doc.data, dict):
        doc.problems.append(doc.problem((), "a scenario file is a mapping of keys (schema, game, "
                                            "map, unit_types, counters, …) at the top level"))
        return doc.problems
    builder = _Builder(doc, fs_path, module=module, board_sizes=board_sizes)
    scenario = builder.build()
    if inputs is not None:
        inputs.files.extend(builder.files_read)
        inputs.folders.extend(builder.folders_read)
        inputs.module = module is not None or board_sizes is not None or builder.module is not None
    return doc, scenario, builder.problems


def _merged(doc: Document, schema: list[Problem], found: list[Problem]) -> list[Problem]:
    """The document's, the schema's and the model's problems, each once, in
    file order."""
    problems: list[Problem] = list(doc.problems) + schema
    seen = {(p.path, p.message) for p in problems}
    grid_path = ("map", "grid")
    grid_detail = any(p.path[:2] == grid_path and len(p.path) > 2 for p in problems + found)
    for p in found:
        if p.message == GRID_NOT_BUILT and grid_detail:
            continue   # a grid key's own problem says why
        if (p.path, p.message) not in seen:
            problems.append(p)
            seen.add((p.path, p.message))
    problems.sort(key=lambda p: (p.file or "", p.line or 0, p.column or 0))
    return problems


class ScenarioInputs:
    """What a loaded model was made of, besides the code: the sha256 of the
    scenario file's bytes as parsed (``digest``), every other file read or
    looked for (``files``: a counter-mix CSV, board, chart and card images)
    and folder (``folders``: plug-in paths), and whether a module (or board
    sizes given by the caller) took part (``module``).  A model kept by
    content (``vmodtool build --cache``) is valid while all of these are."""

    def __init__(self) -> None:
        self.digest = ""
        self.files: list[FsPath] = []
        self.folders: list[FsPath] = []
        self.module = False


# --------------------------------------------------------------------------
# the model builder: defensive reads + semantic checks

_MISSING = object()


def _scalar_map(value: dict[Any, Any]) -> dict[str, Any]:
    """A face's state or factors as the model keeps them: the entries with
    a text key and a text, number or boolean value (the schema reports the
    others, such as ``1: x`` or a list: building on them would fail)."""
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, (str, int, float))}


class _Builder:
    def __init__(self, doc: Document, path: FsPath, *, module: Module | PathLike | None = None,
                 board_sizes: Mapping[str, tuple[int, int]] | None = None) -> None:
        self.module_arg = module
        self.board_sizes_arg = board_sizes
        self.module: Module | None = None
        self.module_source: ModuleSource | None = None
        self.doc = doc
        self.path = path
        self.folder = path.parent
        self.problems: list[Problem] = []
        self.data: dict[str, Any] = doc.data
        self.hint_budget = L.MAX_HINT_COMPARISONS
        self._known_sets: dict[int, tuple[object, frozenset[str]]] = {}
        self.files_read: list[FsPath] = []      # besides the scenario file (ScenarioInputs)
        self.folders_read: list[FsPath] = []

    # -- helpers ------------------------------------------------------------
    def err(self, path: Path, message: str, severity: str = "error") -> None:
        self.problems.append(self.doc.problem(path, message, severity))

    def get(self, path: Path, kind: Any = None, default: Any = None) -> Any:
        """The value at ``path`` when it has type ``kind`` (else ``default``;
        the schema reports the wrong type)."""
        node: Any = self.data
        for part in path:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return default
        if kind is not None and not isinstance(node, kind):
            return default
        if kind in (int, float, (int, float)) and isinstance(node, bool):
            return default
        return node

    def within(self, path: Path, value: int | float, maximum: int | float, minimum: int | float | None = None
               ) -> bool:
        """Whether ``value`` lies in the field's bounds (:mod:`.limits`); if not,
        report it in the words of the JSON Schema, which states the same bound
        (so the two reports of one value are one)."""
        if value > maximum:
            self.err(path, f"the number {value} is out of range (maximum {maximum})")
            return False
        if minimum is not None and value < minimum:
            self.err(path, f"the number {value} is out of range (minimum {minimum})")
            return False
        return True

    def pos(self, path: Path) -> M.Position:
        line, _ = self.doc.where(path)
        return M.Position(self.doc.file, line)

    def text(self, path: Path, default: str | None = None) -> str | None:
        value = self.get(path)
        if isinstance(value, str):
            return value
        if value is None:
            return default
        return str(value) if not isinstance(value, (dict, list)) else default

    def hex_id(self, path: Path, hexes: Mapping[str, Any], what: str = "hex") -> str | None:
        """Check that the value at ``path`` is a hex id on the map."""
        value = self.get(path)
        if value is None:
            return None
        raw = self.doc.is_unquoted_number(path)
        if raw is not None:
            # the schema reports the type; say which hex was meant
            return raw if raw in hexes else None
        if not isinstance(value, str):
            return None
        if value not in hexes:
            self.err(path, f"{what} {value!r} is not on the map" + self._hex_hint(value, hexes))
            return None
        return value

    def close_match(self, value: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
        """The known name closest to ``value`` ("did you mean …?"), while the
        scenario's budget of comparisons lasts: a file with thousands of
        unknown names among thousands of known ones gets no more hints, rather
        than minutes of difflib."""
        candidates = known if isinstance(known, Sequence) else list(known)
        if len(candidates) > self.hint_budget:
            self.hint_budget = 0
            return None
        self.hint_budget -= len(candidates)
        close = difflib.get_close_matches(value, candidates, n=1, cutoff=cutoff)
        return close[0] if close else None

    def known_set(self, known: Iterable[str]) -> Collection[str]:
        """``known`` for membership tests in O(1) (a list is turned into a set
        once per builder, not at every reference)."""
        if isinstance(known, (Mapping, set, frozenset)):
            return known
        entry = self._known_sets.get(id(known))
        if entry is None or entry[0] is not known:
            entry = (known, frozenset(known))   # keeps ``known`` alive, so its id stays its own
            self._known_sets[id(known)] = entry
        return entry[1]

    def _hex_hint(self, value: str, hexes: Mapping[str, Any]) -> str:
        close = self.close_match(value, list(hexes) if len(hexes) <= self.hint_budget else (), cutoff=0.75)
        last = next(reversed(hexes)) if isinstance(hexes, dict) else list(hexes)[-1] if hexes else None
        span = f" (the map runs from {next(iter(hexes))} to {last})" if hexes else ""
        return f"; did you mean {close!r}?" if close else span

    def ref(self, path: Path, known: Iterable[str], what: str, *, allow: Sequence[str] = ()
            ) -> str | None:
        value = self.get(path)
        if value is None:
            return None
        if not isinstance(value, str):
            return None
        if value not in self.known_set(known) and value not in allow:
            names = list(known)
            close = self.close_match(value, names)
            hint = f"; did you mean {close!r}?" if close else (
                f"; defined: {', '.join(names[:12])}" if names else f"; no {what}s are defined")
            self.err(path, f"unknown {what} {value!r}{hint}")
            return None
        return value

    def unique(self, items: Iterable[tuple[Path, str]], what: str) -> None:
        seen: dict[str, Path] = {}
        for path, ident in items:
            if ident in seen:
                line, _ = self.doc.where(seen[ident])
                self.err(path, f"duplicate {what} {ident!r}" + (f" (first defined at line {line})" if line else ""))
            else:
                seen[ident] = path

    def list_of(self, path: Path) -> list[tuple[Path, Any]]:
        value = self.get(path, list, [])
        return [(path + (i,), item) for i, item in enumerate(value)]

    # -- build --------------------------------------------------------------
    def build(self) -> M.Scenario | None:
        schema = self.text(("schema",))
        if schema is not None and schema not in SCHEMAS:
            pass  # the JSON Schema reports the bad value
        game = self.build_game()
        module_source = self.module_source = LB.build_module_source(self)
        if self.get(("map", "from_module")) is not None or any(
                isinstance(self.get(bp + ("module",)), dict) for bp, _ in self.list_of(("boxes",))):
            self.module = LB.open_module(self, module_source, self.module_arg)
        hex_map = self.build_map()
        if hex_map is None:
            return None
        self.map = hex_map
        self.sides = [s.id for s in game.sides]
        self.boxes = LB.check_box_places(self, self.module, self.build_boxes())
        self.tracks = self.build_tracks()
        self.layouts = self.build_layouts()
        self.unit_types = self.build_unit_types()
        self.markers = self.build_markers()
        self.formations = self.build_formations()
        self.counters = self.build_counters()
        binding = LB.build_binding(self, self.unit_types, self.sides, [f.id for f in self.formations],
                                   self.markers, self.counters)
        self.check_formation_hqs()
        self.turns = self.build_turns()
        self.setup = self.build_setup()
        self.check_resources()
        log = self.build_log()
        charts = self.build_charts()
        rules = self.build_rules()
        plugin_paths = self.build_plugin_paths()
        self.check_styles()
        self.check_templates()
        decks = LC.build_decks(self, self.sides, [b.id for b in self.boxes] + list(hex_map.zones))
        hands = LC.build_hands(self, self.sides, {s.id: s.name for s in game.sides},
                               taken=(hex_map.name, OFF_MAP_NAME))
        if any(p.severity == "error" for p in self.problems):
            pass
        return M.Scenario(
            path=self.path, schema=schema or SCHEMAS[0], game=game, map=hex_map,
            unit_types=self.unit_types, counters=tuple(self.counters), boxes=tuple(self.boxes),
            tracks=tuple(self.tracks), factor_layouts=self.layouts, markers=self.markers,
            formations=tuple(self.formations), setup=tuple(self.setup),
            resources=self.get(("resources",), dict, {}), turns=self.turns, log=log,
            charts=tuple(charts), styles=self.get(("styles",), dict, {}),
            vassal=self.get(("vassal",), dict, {}), rules=tuple(rules),
            plugin_paths=tuple(plugin_paths), module=module_source, binding=binding,
            decks=tuple(decks), hands=tuple(hands))

    # -- game -----------------------------------------------------------------
    def build_game(self) -> M.Game:
        p = ("game",)
        sides = []
        fills: dict[str, str] = {}
        for i, (sp, _) in enumerate(self.list_of(p + ("sides",))):
            sid = self.text(sp + ("id",))
            if not sid:
                continue
            default = M.SIDE_PALETTE[i % len(M.SIDE_PALETTE)]
            fill = self.text(sp + ("fill",), default) or default
            if fill.lower() in fills:
                self.err(sp + ("fill",) if self.text(sp + ("fill",)) else sp,
                         f"side {sid!r} has the fill {fill} of side {fills[fill.lower()]!r}: their counters "
                         f"print alike (leave fill out for a colour of its own)", severity="warning")
            fills.setdefault(fill.lower(), sid)
            sides.append(M.Side(sid, self.text(sp + ("name",), sid) or sid, fill,
                                self.text(sp + ("ink",), "#000000") or "#000000",
                                self.text(sp + ("stripe",))))
        self.unique(((sp + ("id",), self.text(sp + ("id",)) or "") for sp, _ in self.list_of(p + ("sides",))
                     if self.text(sp + ("id",))), "side id")
        dice = tuple(d for d in self.get(p + ("dice",), list, []) if isinstance(d, str))
        return M.Game(id=self.text(p + ("id",), "") or "", title=self.text(p + ("title",), "") or "",
                      sides=tuple(sides), system=self.text(p + ("system",)),
                      note=self.text(p + ("note",)), scale=self.get(p + ("scale",), dict, {}),
                      dice=dice, designer=self.text(p + ("designer",)),
                      version=self.text(p + ("version",)), language=self.text(p + ("language",)))

    # -- map ------------------------------------------------------------------
    def _axis(self, path: Path, default_start: int = 1) -> AxisNumbering:
        kind = self.text(path + ("type",), "numeric") or "numeric"
        start_value = self.get(path + ("start",), default=default_start)
        start = default_start
        if isinstance(start_value, bool):
            start = default_start
        elif isinstance(start_value, int):
            start = start_value
        elif isinstance(start_value, str):
            try:
                start = alpha_index(start_value) if kind == "alpha" else int(start_value)
            except ValueError as exc:
                self.err(path + ("start",), f"{exc}" if kind == "alpha" else
                         f"start {start_value!r} is not a whole number")
        if kind == "alpha" and isinstance(start_value, int) and start_value < 0:
            self.err(path + ("start",), "an alphabetic axis starts at a letter (A = 0) or 0 or more")
        if kind == "alpha" and start > L.MAX_ALPHA_START:
            self.err(path + ("start",), f"an alphabetic axis starts at most at index {L.MAX_ALPHA_START} "
                                        f"(A = 0, a label of {L.MAX_ALPHA_START // 26 + 1} letters), found {start}")
            start = default_start
        elif kind != "alpha" and not self.within(path + ("start",), start, L.MAX_AXIS_START, -L.MAX_AXIS_START):
            start = default_start
        leading = self.get(path + ("leading_zeros",), int, 1 if kind == "numeric" else 0)
        if not self.within(path + ("leading_zeros",), leading, L.MAX_LEADING_ZEROS):
            leading = 1 if kind == "numeric" else 0
        return AxisNumbering(kind, start, max(0, leading),
                             bool(self.get(path + ("descending",), bool, False)))

    def build_grid_spec(self) -> GridSpec | None:
        p = ("map", "grid")
        if not isinstance(self.get(p), dict):
            return None
        orientation = self.text(p + ("orientation",), "flat_top") or "flat_top"
        hex_height = self.get(p + ("hex_height",), (int, float))
        hex_width = self.get(p + ("hex_width",), (int, float))
        columns = self.get(p + ("columns",), int)
        rows = self.get(p + ("rows",), int)
        if hex_height is None and hex_width is None:
            self.err(p, "the grid needs hex_height (and optionally hex_width) in pixels")
            return None
        if not columns or not rows or columns < 1 or rows < 1:
            return None  # the schema says what is missing
        if not (self.within(p + ("columns",), columns, L.MAX_GRID_LINES)
                and self.within(p + ("rows",), rows, L.MAX_GRID_LINES)):
            return None
        if columns * rows > L.MAX_HEXES:
            self.err(p, f"a grid of {columns} columns × {rows} rows has {columns * rows:,} hexes; "
                        f"a map has at most {L.MAX_HEXES:,}")
            return None
        for key, value in (("hex_height", hex_height), ("hex_width", hex_width)):
            if value is not None and value <= 0:
                self.err(p + (key,), f"{key} must be more than 0 pixels")
                return None
            if value is not None and not self.within(p + (key,), value, L.MAX_MAP_PIXELS):
                return None
        margin = self.get(p + ("margin",), int, 24)
        if not self.within(p + ("margin",), margin, L.MAX_MAP_PIXELS, 0):
            return None
        sep_path = p + ("numbering", "separator")
        separator = self.text(sep_path, "") or ""
        if len(separator) > L.MAX_SEPARATOR:
            self.err(sep_path, too_long(f"a text of {len(separator)} characters", L.MAX_SEPARATOR))
            return None
        if hex_height is None:
            # regular hexes: row spacing = column spacing / (√3/2) on flat-top maps,
            # × √3/2 on pointy-top ones
            hex_height = hex_width / SQRT3_2 if orientation == "flat_top" else hex_width * SQRT3_2
        pointy_shifted = orientation == "pointy_top" and "shifted_rows" in self.get(p, dict, {})
        parity_key = "shifted_rows" if pointy_shifted else "low_columns"
        parity = self.text(p + (parity_key,), "even") or "even"
        origin = self.get(p + ("origin",), list)
        origin_t = None
        if (origin is not None and len(origin) == 2
                and all(isinstance(v, int) and abs(v) <= L.MAX_MAP_PIXELS for v in origin)):
            origin_t = (origin[0], origin[1])
        n = p + ("numbering",)
        first = self.text(n + ("first",), "column") or "column"
        return GridSpec(orientation=orientation, hex_height=float(hex_height),
                        hex_width=float(hex_width) if hex_width is not None else None,
                        columns=columns, rows=rows, offset_parity=parity,
                        margin=margin, origin=origin_t,
                        snap=self.text(p + ("snap",), "centres") or "centres",
                        first=first, separator=separator,
                        column=self._axis(n + ("column",)), row=self._axis(n + ("row",)),
                        stagger=bool(self.get(n + ("stagger",), bool, False)),
                        location_format=self.text(n + ("location_format",), "$gridLocation$")
                        or "$gridLocation$")

    def build_map(self) -> M.HexMap | None:
        p = ("map",)
        module_map = None
        spec: GridSpec | None = None
        if self.get(p + ("from_module",)) is not None:
            for key in ("grid", "size", "board"):
                if self.get(p + (key,)) is not None:
                    self.err(p + (key,), f"map.{key} cannot be given with map.from_module: the map, its board "
                                         "and its grid are the module's")
            if self.get(p + ("terrain", "rows")) is not None:
                self.err(p + ("terrain", "rows"), "terrain rows need a grid of this file; with map.from_module "
                                                  "give terrain per hex label (terrain.hexes)")
            if self.module is None:
                return None
            module_map = LB.build_module_map(self, self.module, self.module_source, self.board_sizes_arg)
            if module_map is None:
                return None
            grid = module_map.grid
        elif self.get(p + ("grid",)) is None:
            return None           # the schema reports it missing
        else:
            spec = self.build_grid_spec()
            if spec is None:
                if isinstance(self.get(p + ("grid",)), dict):
                    self.err(p + ("grid",), GRID_NOT_BUILT)
                return None
            built = self._grid_of(p, spec)
            if built is None:
                return None
            grid = built
        return self._map_content(p, spec, grid, grid.hexes, module_map)

    def _grid_of(self, p: Path, spec: GridSpec) -> MapGrid | None:
        try:
            width, height = board_size(spec)
            if max(width, height) > L.MAX_MAP_PIXELS:
                self.err(p + ("grid",), f"the board would be {width:,}×{height:,} pixels; a board is at most "
                                        f"{L.MAX_MAP_PIXELS:,} pixels wide and high (fewer or smaller hexes)")
                return None
            grid = build_map_grid(spec)
        # a grid VASSAL itself would refuse (FormatError), or sizes that are not
        # finite numbers (.inf / .nan in YAML)
        except (VmodError, ValueError, ArithmeticError) as exc:
            self.err(p + ("grid",), f"the grid cannot be built: {exc}")
            return None
        for message in grid.problems[:5]:
            self.err(p + ("grid", "numbering"), message)
        return grid

    def _map_content(self, p: Path, spec: GridSpec | None, grid: MapGrid, hexes: Mapping[str, Any],
                     module_map: ModuleMap | None) -> M.HexMap:
        # terrain types
        ttypes: dict[str, M.TerrainType] = {}
        codes: dict[str, str] = {}
        for tid, tdef in self.get(p + ("terrain_types",), dict, {}).items():
            tp: Path = p + ("terrain_types", tid)
            if not isinstance(tdef, dict):
                continue
            code = self.text(tp + ("code",))
            if code is not None:
                if len(code) != 1 or code.isspace():
                    self.err(tp + ("code",), f"a terrain code is one non-space character, found {code!r}")
                elif code in codes:
                    self.err(tp + ("code",), f"terrain code {code!r} is already used by {codes[code]!r}")
                else:
                    codes[code] = str(tid)
            elev = self.get(tp + ("elevation",), int)
            ttypes[str(tid)] = M.TerrainType(str(tid), code or "", self.text(tp + ("name",), str(tid)) or str(tid),
                                            self.text(tp + ("fill",)), elev, self.text(tp + ("symbol",)))
        if not ttypes:
            self.err(p + ("terrain_types",), "define at least one terrain type (e.g. clear)")
        # terrain per hex
        tp = p + ("terrain",)
        default = (self.ref(tp + ("default",), ttypes, "terrain type")
                   if self.get(tp + ("default",)) is not None else None)
        if default is None:
            default = next(iter(ttypes), "clear")
        terrain = {h: default for h in hexes}
        if spec is not None:
            self.build_terrain_rows(tp, spec, grid, ttypes, codes, terrain)
        for hex_key, tname in self.get(tp + ("hexes",), dict, {}).items():
            kp = tp + ("hexes", hex_key)
            label = str(hex_key)
            kinfo = self.doc.key_info.get(kp)
            if kinfo is not None and kinfo.plain and kinfo.tag in ("int", "float"):
                self.err(kp, f"hex id {kinfo.raw} must be in quotes (\"{kinfo.raw}\"); unquoted, "
                             f"YAML reads it as the number {hex_key}")
                label = kinfo.raw or label
            if label not in hexes:
                self.err(kp, f"hex {label!r} is not on the map" + self._hex_hint(label, hexes))
                continue
            if self.ref(kp, ttypes, "terrain type"):
                terrain[label] = tname
        # hexsides
        htypes: dict[str, M.HexsideType] = {}
        for hid, hdef in self.get(p + ("hexside_types",), dict, {}).items():
            hp: Path = p + ("hexside_types", hid)
            if isinstance(hdef, dict):
                symbol = self.text(hp + ("symbol",))
                htypes[str(hid)] = M.HexsideType(str(hid), self.text(hp + ("name",), str(hid)) or str(hid),
                                                 self.text(hp + ("stroke",)),
                                                 self.get(hp + ("width",), (int, float)),
                                                 self.text(hp + ("drawn_as",), "hexside") or "hexside",
                                                 symbol,
                                                 self.get(hp + ("continuous",), bool, symbol is None))
        hexsides: list[M.Hexside] = []
        for hp, entry in self.list_of(p + ("hexsides",)):
            if not isinstance(entry, dict):
                continue
            htype = self.ref(hp + ("type",), htypes, "hexside type")
            pairs: list[tuple[Path, Path]] = []
            for ip, pair in self.list_of(hp + ("between",)):
                if isinstance(pair, list) and len(pair) == 2:
                    pairs.append((ip + (0,), ip + (1,)))
                elif pair is not None:
                    self.err(ip, "a hexside is a pair of two adjacent hexes, e.g. [\"0601\", \"0701\"]")
            path_items = self.list_of(hp + ("path",))
            for (ap, _), (bp, _) in pairwise(path_items):
                pairs.append((ap, bp))
            if "between" not in entry and "path" not in entry:
                self.err(hp, "a hexside entry needs 'between' (pairs of hexes) or 'path' (a line of hexes)")
            entry_sides: list[tuple[str, str]] = []
            for ap, bp in pairs:
                a = self.hex_id(ap, hexes)
                b = self.hex_id(bp, hexes)
                if a is None or b is None:
                    continue
                if a == b:
                    self.err(bp, f"a hexside joins two different hexes; both are {a!r}")
                elif not grid.adjacent(a, b):
                    self.err(bp, f"hexes {a} and {b} are not adjacent (they are {grid.distance(a, b)} "
                                 f"hexes apart), so they share no hexside; the neighbours of {a} are "
                                 f"{', '.join(grid.neighbours(a))}")
                elif htype:
                    x, y = sorted((a, b))
                    hexsides.append(M.Hexside(htype, x, y))
                    entry_sides.append((x, y))
            if htype and len(entry_sides) > 1 and htypes[htype].continuous:
                self.check_continuous(hp, htypes[htype], entry_sides, grid)
        labels = []
        for lp, _ in self.list_of(p + ("labels",)):
            h = self.hex_id(lp + ("hex",), hexes)
            if h:
                labels.append(M.MapLabel(h, self.text(lp + ("text",), "") or ""))
        objectives = []
        for op, _ in self.list_of(p + ("objectives",)):
            h = self.hex_id(op + ("hex",), hexes)
            if h:
                objectives.append(M.Objective(h, self.text(op + ("name",), h) or h,
                                              self.get(op + ("vp",), (int, float))))
        board_image = None
        image = self.text(p + ("board", "image"))
        if image:
            board_image = self.local_file(p + ("board", "image"), image, "board image")
        size = grid.size
        given = self.get(p + ("size",), list)
        if given and len(given) == 2 and all(isinstance(v, int) and v > 0 for v in given):
            if all(self.within(p + ("size", i), v, L.MAX_MAP_PIXELS) for i, v in enumerate(given)):
                size = (given[0], given[1])
        buffer = self.get(p + ("edge_buffer",), list, [0, 0])
        edge_buffer = ((buffer[0], buffer[1]) if len(buffer) == 2 and all(
            isinstance(v, int) and self.within(p + ("edge_buffer", i), v, L.MAX_MAP_PIXELS)
            for i, v in enumerate(buffer)) else (0, 0))
        if module_map is not None:
            name = module_map.map_name
            if self.text(p + ("name",)) not in (None, name):
                self.err(p + ("name",), f"the map's name is the module's map window, {name!r}")
        else:
            name = self.text(p + ("name",), "Main Map") or "Main Map"
        areas = build_areas(self, module_map.areas if module_map is not None else None, ttypes, terrain)
        return M.HexMap(id=self.text(p + ("id",), "main") or "main", name=name,
                        grid_spec=spec, grid=grid, terrain_types=ttypes, terrain=terrain,
                        hexside_types=htypes, hexsides=tuple(hexsides), labels=tuple(labels),
                        objectives=tuple(objectives), edges=self.get(p + ("edges",), dict, {}),
                        edge_buffer=edge_buffer, board_image=board_image, size=size,
                        module_map=module_map.map_name if module_map else None,
                        module_board=module_map.board_name if module_map else None,
                        zones=tuple(module_map.zones) if module_map else (), areas=areas)

    def check_continuous(self, hp: Path, htype: M.HexsideType, sides: list[tuple[str, str]],
                         grid: MapGrid) -> None:
        """Warn when one hexsides entry (one river, one road) falls into
        pieces that do not meet: a river typed as 15 unconnected pairs was
        drawn as 15 dashes.  Along hexsides (``drawn_as: hexside``) two
        hexsides continue each other where they meet at a corner, that is when
        their hexes are three that all touch; a centre line continues through
        a hex the two have in common."""
        along = htype.drawn_as != "centre_line"
        pieces = hexside_pieces(sides, grid.adjacent if along else None)
        if len(pieces) < 2:
            return
        shown = "; ".join("–".join(f"{a}|{b}" for a, b in piece[:3]) + (" …" if len(piece) > 3 else "")
                          for piece in pieces[:4]) + (" …" if len(pieces) > 4 else "")
        how = ("a river along hexsides goes on where two hexsides meet at a corner; typed as a 'path', "
               "each three hexes in a row must all touch (a zig-zag from bank to bank)" if along else
               "a line along hex centres goes on through a hex two of its pairs share")
        self.err(hp, f"{htype.name} is in {len(pieces)} pieces that do not meet: {shown} ({how})",
                 severity="warning")

    def build_terrain_rows(self, tp: Path, spec: GridSpec, grid: MapGrid, ttypes: Mapping[str, M.TerrainType],
                           codes: Mapping[str, str], terrain: dict[str, str]) -> None:
        rows = self.get(tp + ("rows",), dict, {})
        if not rows:
            return
        # the labels of each printed row, left to right
        by_row: dict[str, list[str]] = {}
        for label, (raw_c, raw_r) in grid.hexes.items():
            row_key = self._row_label(label, spec, raw_c, raw_r, grid)
            by_row.setdefault(row_key, []).append(label)
        for key, line in rows.items():
            kp = tp + ("rows", key)
            row_label = str(key)
            kinfo = self.doc.key_info.get(kp)
            if kinfo is not None and kinfo.plain and kinfo.tag in ("int", "float"):
                self.err(kp, f"row label {kinfo.raw} must be in quotes (\"{kinfo.raw}\"); unquoted, "
                             f"YAML reads it as the number {key}")
                row_label = kinfo.raw or row_label
            if row_label not in by_row:
                self.err(kp, f"there is no row {row_label!r} on the map; rows are "
                             f"{', '.join(sorted(by_row)[:3])} … {sorted(by_row)[-1] if by_row else ''}")
                continue
            if not isinstance(line, str):
                self.err(kp, "a terrain row is a text of terrain codes separated by spaces, e.g. \". w w h\"")
                continue
            cells = line.split()
            labels = by_row[row_label]
            if len(cells) != len(labels):
                self.err(kp, f"row {row_label} has {len(labels)} hexes ({labels[0]} … {labels[-1]}) but "
                             f"{len(cells)} terrain codes are given")
            for label, code in zip(labels, cells, strict=False):  # a count mismatch is reported above
                if code not in codes:
                    known = ", ".join(f"{c} ({t})" for c, t in codes.items())
                    self.err(kp, f"unknown terrain code {code!r} for hex {label}; the codes are: {known}")
                else:
                    terrain[label] = codes[code]

    @staticmethod
    def _row_label(label: str, spec: GridSpec, raw_c: int, raw_r: int, grid: MapGrid) -> str:
        """The row part of a label (the text a designer writes as a key of
        ``terrain.rows``): the V axis of flat-top maps, the H axis of
        pointy-top ones (``docs/vassal-format.md`` §5.5 (c))."""
        attrs = grid.numbering_attributes
        h, v = grid.grid.logical_column_row(*grid.grid.raw_center(raw_c, raw_r))
        axis, value = ("h", h) if spec.sideways else ("v", v)
        return format_index(value + int(attrs[f"{axis}Off"]), attrs[f"{axis}Type"],
                            int(attrs[f"{axis}Leading"]))

    def local_file(self, path: Path, name: str, what: str) -> FsPath | None:
        candidate = (self.folder / name)
        self.files_read.append(candidate)
        try:
            candidate.resolve().relative_to(self.folder.resolve())
        except ValueError:
            self.err(path, f"the {what} {name!r} must be inside the scenario's folder")
            return None
        if not candidate.is_file():
            self.err(path, f"the {what} {name!r} does not exist (looked for {candidate})")
            return None
        return candidate

    # -- boxes, tracks, layouts -------------------------------------------------
    def build_boxes(self) -> list[M.Box]:
        out = []
        for bp, _ in self.list_of(("boxes",)):
            bid = self.text(bp + ("id",))
            if not bid:
                continue
            side = self.ref(bp + ("side",), self.sides, "side")
            out.append(M.Box(bid, self.text(bp + ("name",), bid) or bid,
                             self.text(bp + ("role",), "holding") or "holding", side))
        self.unique(((bp + ("id",), self.text(bp + ("id",)) or "") for bp, _ in self.list_of(("boxes",))
                     if self.text(bp + ("id",))), "box id")
        return out

    def build_tracks(self) -> list[M.Track]:
        out = []
        for tp, _ in self.list_of(("tracks",)):
            tid = self.text(tp + ("id",))
            if not tid:
                continue
            spaces = self.get(tp + ("spaces",))
            if isinstance(spaces, int) and not isinstance(spaces, bool):
                if not self.within(tp + ("spaces",), spaces, L.MAX_TRACK_SPACES):
                    spaces = 0
                names = tuple(str(i) for i in range(1, spaces + 1))
            elif isinstance(spaces, list):
                names = tuple(str(s) for s in spaces)
            else:
                names = ()
            shows = tuple(s for s in self.get(tp + ("shows",), list, []) if isinstance(s, str))
            out.append(M.Track(tid, self.text(tp + ("name",), tid) or tid,
                               self.text(tp + ("kind",), "generic") or "generic", names, shows))
        self.unique(((tp + ("id",), self.text(tp + ("id",)) or "") for tp, _ in self.list_of(("tracks",))
                     if self.text(tp + ("id",))), "track id")
        return out

    def build_layouts(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for lid, regions in self.get(("factor_layouts",), dict, {}).items():
            if isinstance(regions, dict):
                out[str(lid)] = {str(k): v for k, v in regions.items() if isinstance(v, str)}
        return out

    # -- unit types ---------------------------------------------------------------
    def build_unit_types(self) -> dict[str, M.UnitType]:
        out: dict[str, M.UnitType] = {}
        types = self.get(("unit_types",), dict, {})
        if not types and "unit_types" in self.data:
            self.err(("unit_types",), "define at least one unit type")
        all_tags: set[str] = set()
        for tdef in types.values():
            if isinstance(tdef, dict):
                all_tags.update(t for t in tdef.get("tags", []) or [] if isinstance(t, str))
        for tid, tdef in types.items():
            tp = ("unit_types", tid)
            if not isinstance(tdef, dict):
                continue
            faces: list[M.Face] = []
            for fp, face in self.list_of(tp + ("faces",)):
                if not isinstance(face, dict):
                    continue
                name = self.text(fp + ("name",))
                factors = self.get(fp + ("factors",), dict)
                if factors is None and "factors" not in face:
                    self.err(fp, f"face {name or ''!r} of unit type {tid!r} has no factors; "
                                 "give its factors (e.g. factors: {attack: 4, defense: 3, move: 6})")
                elif factors == {}:
                    self.err(fp + ("factors",), f"face {name!r} of unit type {tid!r} has an empty factor list")
                image_spec = self.face_image(fp + ("image",))
                faces.append(M.Face(name or f"face{len(faces) + 1}",
                                    _scalar_map(self.get(fp + ("state",), dict, {})), _scalar_map(factors or {}),
                                    str(image_spec.path) if image_spec else None, image_spec))
            if not faces:
                self.err(tp + ("faces",), f"unit type {tid!r} needs at least one face")
            self.unique(((fp + ("name",), self.text(fp + ("name",)) or "") for fp, _ in self.list_of(tp + ("faces",))
                         if self.text(fp + ("name",))), f"face name in {tid!r}")
            layout = self.ref(tp + ("layout",), self.layouts, "factor layout")
            if layout:
                self.check_layout(tp + ("layout",), layout, faces)
            tags = frozenset(t for t in self.get(tp + ("tags",), list, []) if isinstance(t, str))
            serves = tuple(t for t in self.get(tp + ("serves",), list, []) if isinstance(t, str))
            for sp, tag in self.list_of(tp + ("serves",)):
                if isinstance(tag, str) and tag not in all_tags:
                    self.err(sp, f"unknown tag {tag!r}: no unit type has it")
            nato = None
            if isinstance(self.get(tp + ("nato",)), dict):
                np_ = tp + ("nato",)
                nato = M.NatoSpec(self.text(np_ + ("symbol",), "none") or "none", self.text(np_ + ("size",)),
                                  tuple(m for m in self.get(np_ + ("modifiers",), list, []) if isinstance(m, str)),
                                  bool(self.get(np_ + ("hq",), bool, False)))
            steps = self.get(tp + ("steps",), int)
            if steps is None:
                step_values = {f.state.get("step") for f in faces if "step" in f.state}
                steps = max(1, len(step_values)) if step_values else 1
            elif steps < 1:
                self.err(tp + ("steps",), "a unit has at least 1 step")
            elif not self.within(tp + ("steps",), steps, L.MAX_STEPS):
                steps = 1
            out[str(tid)] = M.UnitType(str(tid), self.text(tp + ("name",), str(tid)) or str(tid),
                                       tuple(faces), tags, self.text(tp + ("movement_class",)),
                                       nato, layout, steps, serves, self.pos(tp))
        return out

    def face_image(self, path: Path) -> M.FaceImage | None:
        """``faces[].image``: a file name, or ``{file, fit, crop, position,
        box}``; the file must be inside the scenario's folder and an image
        Pillow can read (checked here, so that check-scenario reports it)."""
        raw = self.get(path)
        if raw is None:
            return None
        opts: Mapping[str, Any] = raw if isinstance(raw, dict) else {"file": raw}
        name = opts.get("file")
        fpath = path + ("file",) if isinstance(raw, dict) else path
        if not isinstance(name, str) or not name:
            return None                       # the schema says what is expected
        found = self.local_file(fpath, name, "face image")
        if found is None:
            return None
        from vmodtool.images import ImageError, image_size

        try:
            # a counter draws it as RGBA: its header is refused past the decode budget
            width, height = image_size(found, "the face image", convert_to="RGBA", verify=True)
        except ImageError as exc:
            self.err(fpath, f"the face image {name!r} is not an image vmodtool can read ({exc.reason})")
            return None
        crop = opts.get("crop")
        box: tuple[int, int, int, int] | None = None
        if isinstance(crop, list) and len(crop) == 4 and all(isinstance(v, int) for v in crop):
            x, y, w, h = crop
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width or y + h > height:
                self.err(path + ("crop",), f"the crop [{x}, {y}, {w}, {h}] (x, y, width, height) must lie "
                                           f"inside the image, which is {width}x{height} pixels")
            else:
                box = (x, y, w, h)
        position = opts.get("position", [0.5, 0.5])
        pos = (float(position[0]), float(position[1])) if isinstance(position, list) and len(position) == 2 \
            else (0.5, 0.5)
        return M.FaceImage(found, str(opts.get("fit", "contain")), box, pos, str(opts.get("box", "art")))

    def check_templates(self) -> None:
        """``styles.counter.template``: every name is a bundled template or
        a template file in the scenario's folder that is a valid template."""
        from vmodtool.scenario.templates import (
            TemplateError,
            bundled_templates,
            file_in_folder,
            load_template,
            template_file,
        )

        tp = ("styles", "counter", "template")
        raw = self.get(tp)
        if raw is None:
            return
        refs: list[tuple[Path, Any]] = []
        if isinstance(raw, str):
            refs.append((tp, raw))
        elif isinstance(raw, dict):
            if "default" in raw:
                refs.append((tp + ("default",), raw["default"]))
            for part, known, what in (("sides", list(self.sides), "side"),
                                      ("unit_types", list(self.unit_types), "unit type")):
                self._style_keys(tp + (part,), known, what)
                for key, value in (raw.get(part) or {}).items():
                    refs.append((tp + (part, key), value))
        for rp, ref in refs:
            if not isinstance(ref, str):
                continue
            found = template_file(ref, self.folder)
            if found is not None and ref not in bundled_templates() and file_in_folder(self.folder, ref) is None:
                # a file, but outside the folder (``..``, an absolute path or a symbolic link)
                self.err(rp, f"the counter template {ref!r} must be inside the scenario's folder")
                continue
            if found is None:
                names = ", ".join(bundled_templates())
                self.err(rp, f"unknown counter template {ref!r}: name a bundled template ({names}) "
                             "or a template file (.yaml) in the scenario's folder")
                continue
            try:
                load_template(found)
            except TemplateError as exc:
                self.err(rp, f"the counter template {ref!r} cannot be used: {exc}")

    def check_layout(self, path: Path, layout: str, faces: Sequence[M.Face]) -> None:
        names: set[str] = set()
        for fmt in self.layouts.get(layout, {}).values():
            names.update(re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", fmt))
        for face in faces:
            missing = sorted(n for n in names if n not in face.factors)
            if missing:
                self.err(path, f"layout {layout!r} prints {', '.join(missing)} but face {face.name!r} "
                               "has no such factor", severity="warning")

    # -- markers, formations, counters --------------------------------------------
    def build_markers(self) -> dict[str, M.MarkerKind]:
        out = {}
        for mid, mdef in self.get(("markers",), dict, {}).items():
            mp = ("markers", mid)
            if isinstance(mdef, dict):
                out[str(mid)] = M.MarkerKind(str(mid), self.text(mp + ("name",), str(mid)) or str(mid),
                                             self.text(mp + ("representation",), "counter") or "counter",
                                             self.text(mp + ("scope",), "unit") or "unit",
                                             self.text(mp + ("text",)), self.text(mp + ("fill",)),
                                             self.text(mp + ("ink",)))
        return out

    def build_formations(self) -> list[M.Formation]:
        out = []
        for fp, _ in self.list_of(("formations",)):
            fid = self.text(fp + ("id",))
            if not fid:
                continue
            side = self.ref(fp + ("side",), self.sides, "side") or ""
            chits = self.get(fp + ("chits",), int, 0)
            if not self.within(fp + ("chits",), chits, L.MAX_CHITS, 0):
                chits = 0
            out.append(M.Formation(fid, side, self.text(fp + ("name",), fid) or fid,
                                   self.text(fp + ("hq",)), chits,
                                   self.text(fp + ("command",), "normal") or "normal"))
        self.unique(((fp + ("id",), self.text(fp + ("id",)) or "") for fp, _ in self.list_of(("formations",))
                     if self.text(fp + ("id",))), "formation id")
        return out

    def _counter_entries(self) -> list[tuple[Path, dict[str, Any], M.Position, Document | None]]:
        value = self.get(("counters",))
        if isinstance(value, list):
            return [(cp, entry, self.pos(cp), None) for cp, entry in self.list_of(("counters",))
                    if isinstance(entry, dict)]
        if isinstance(value, dict) and isinstance(value.get("csv"), str):
            csv_path = self.local_file(("counters", "csv"), value["csv"], "counter mix CSV")
            if csv_path is None:
                return []
            rows, lines, problems = load_csv(csv_path)
            self.problems.extend(problems)
            out: list[tuple[Path, dict[str, Any], M.Position, Document | None]] = []
            required = ("id", "type", "side")
            for row, line in zip(rows, lines, strict=True):  # one line number per row
                missing = [k for k in required if not (row.get(k) or "").strip()]
                if missing:
                    self.problems.append(Problem(f"row is missing {', '.join(missing)}", file=str(csv_path),
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
                        self.problems.append(Problem(f"count {entry['count']!r} is not a whole number",
                                                     file=str(csv_path), line=line, path=("counters", "count")))
                        entry["count"] = 1
                unknown = [k for k in row if isinstance(k, str) and k not in
                           ("id", "type", "side", "formation", "label", "labels", "count", "face")]
                if unknown and line == lines[0]:
                    self.problems.append(Problem(f"unknown column(s) {', '.join(unknown)}; expected id, type, "
                                                 "side, formation, label, labels, count, face",
                                                 file=str(csv_path), line=1, path=("counters",)))
                out.append((("counters", "csv", line), entry, M.Position(str(csv_path), line), None))
            return out
        return []

    def _counter_problem(self, cp: Path, position: M.Position, key: str, message: str) -> None:
        """Report a problem of one counter entry (a CSV row is reported at its line)."""
        if position.file != self.doc.file:
            self.problems.append(Problem(message, file=position.file, line=position.line,
                                         path=("counters", key)))
        else:
            self.err(cp + (key,), message)

    def _counter_ref(self, cp: Path, position: M.Position, entry: dict[str, Any], key: str,
                     known: Iterable[str], what: str) -> str | None:
        """The name a counter entry gives under ``key`` when it is one of ``known``."""
        value = entry.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            return None
        if value not in self.known_set(known):
            close = self.close_match(value, known)
            self._counter_problem(cp, position, key, f"unknown {what} {value!r}"
                                  + (f"; did you mean {close!r}?" if close else ""))
            return None
        return value

    def build_counters(self) -> list[M.Counter]:
        out: list[M.Counter] = []
        formation_side = {f.id: f.side for f in self.formations}
        seen: dict[str, M.Position] = {}
        for cp, entry, position, _ in self._counter_entries():
            bad = partial(self._counter_problem, cp, position)
            check_ref = partial(self._counter_ref, cp, position, entry)
            cid = entry.get("id")
            if not isinstance(cid, str) or not cid:
                continue
            ctype = check_ref("type", self.unit_types, "unit type")
            side = check_ref("side", self.sides, "side")
            formation = check_ref("formation", formation_side, "formation")
            if formation and side and formation_side.get(formation) and formation_side[formation] != side:
                bad("formation", f"formation {formation!r} belongs to side {formation_side[formation]!r}, "
                                 f"not {side!r}")
            face = entry.get("face") if isinstance(entry.get("face"), str) else None
            if face and ctype and face not in [f.name for f in self.unit_types[ctype].faces]:
                bad("face", f"unit type {ctype!r} has no face {face!r}; its faces are "
                            f"{', '.join(f.name for f in self.unit_types[ctype].faces)}")
                face = None
            count = entry.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                count = 1
            elif count > L.MAX_COUNT:
                bad("count", f"the number {count} is out of range (maximum {L.MAX_COUNT})")
                count = 1
            if len(seen) + count > L.MAX_COUNTERS:
                bad("count" if "count" in entry else "id",
                    f"the counter mix grows past {L.MAX_COUNTERS:,} counters here; a scenario has at most "
                    f"{L.MAX_COUNTERS:,}")
                break
            labels = entry.get("labels")
            label = entry.get("label") if isinstance(entry.get("label"), str) else None
            if isinstance(labels, list):
                if len(labels) != count:
                    bad("labels", f"{len(labels)} labels for count {count}; give one label per counter")
            ids = [cid] if count == 1 and "count" not in entry else [f"{cid}.{i}" for i in range(1, count + 1)]
            for i, uid in enumerate(ids):
                if uid in seen:
                    bad("id", f"duplicate counter id {uid!r} (first at {seen[uid]})")
                    continue
                seen[uid] = position
                lab = (str(labels[i]) if isinstance(labels, list) and i < len(labels) else label)
                if ctype and side:
                    out.append(M.Counter(uid, ctype, side, formation, lab, face, cid, position))
        if (not out and self.get(("counters",)) is not None
                and not any(p.path[:1] == ("counters",) for p in self.problems)):
            self.err(("counters",), "the counter mix is empty")
        return out

    def check_formation_hqs(self) -> None:
        by_id = {c.id: c for c in self.counters}
        for fp, _ in self.list_of(("formations",)):
            hq = self.text(fp + ("hq",))
            if hq is None:
                continue
            counter = by_id.get(hq)
            if counter is None:
                close = self.close_match(hq, list(by_id) if len(by_id) <= self.hint_budget else ())
                self.err(fp + ("hq",), f"unknown counter {hq!r} as HQ"
                         + (f"; did you mean {close!r}?" if close else ""))
                continue
            fid = self.text(fp + ("id",))
            if counter.formation and fid and counter.formation != fid:
                self.err(fp + ("hq",), f"HQ {hq!r} belongs to formation {counter.formation!r}, not {fid!r}")

    # -- turns, setup, resources, log, charts ------------------------------------------
    def build_turns(self) -> M.TurnStructure | None:
        p = ("turns",)
        if not isinstance(self.get(p), dict):
            return None
        phases = []
        box_ids = [b.id for b in self.boxes]
        for pp, _ in self.list_of(p + ("structure",)):
            pid = self.text(pp + ("phase",))
            if not pid:
                continue
            activation = None
            if isinstance(self.get(pp + ("activation",)), dict):
                ap = pp + ("activation",)
                end_chits = self.get(ap + ("end_turn_chits",), int, 0)
                if not self.within(ap + ("end_turn_chits",), end_chits, L.MAX_CHITS, 0):
                    end_chits = 0
                activation = M.Activation(self.text(ap + ("kind",), "none") or "none",
                                          self.ref(ap + ("cup",), box_ids, "box"),
                                          self.ref(ap + ("drawn",), box_ids, "box"),
                                          end_chits,
                                          tuple(s for s in self.get(ap + ("steps",), list, []) if isinstance(s, str)))
            phases.append(M.Phase(pid, self.text(pp + ("name",), pid) or pid, activation))
        self.unique(((pp + ("phase",), self.text(pp + ("phase",)) or "") for pp, _ in self.list_of(p + ("structure",))
                     if self.text(pp + ("phase",))), "phase id")
        for sp, _ in self.list_of(p + ("player_turns",)):
            self.ref(sp, self.sides, "side")
        first = self.get(p + ("first",), int, 1)
        if not self.within(p + ("first",), first, L.MAX_TURN, -L.MAX_TURN):
            first = 1
        last = self.get(p + ("last",), int, first)
        if not self.within(p + ("last",), last, L.MAX_TURN, -L.MAX_TURN):
            last = first
        if last < first:
            self.err(p + ("last",), f"the last turn ({last}) comes before the first ({first})")
        return M.TurnStructure(first, last, tuple(phases),
                               tuple(s for s in self.get(p + ("player_turns",), list, []) if isinstance(s, str)))

    def build_setup(self) -> list[Any]:
        hexes = self.map.grid.hexes
        counters = {c.id: c for c in self.counters}
        box_ids = [b.id for b in self.boxes]
        formation_ids = [f.id for f in self.formations]
        placed: dict[str, Path] = {}
        out: list[Any] = []

        def unit(path: Path) -> str | None:
            uid = self.text(path)
            if uid is None:
                return None
            if uid not in counters:
                close = self.close_match(uid, list(counters) if len(counters) <= self.hint_budget else ())
                self.err(path, f"unknown unit {uid!r}" + (f"; did you mean {close!r}?" if close else
                         " (counter ids with a count get .1, .2, … appended)"))
                return None
            if uid in placed:
                line, _ = self.doc.where(placed[uid])
                self.err(path, f"unit {uid!r} is set up twice (also at line {line})")
                return None
            placed[uid] = path
            return uid

        def faces(path: Path, units: Sequence[str]) -> dict[str, str]:
            result = {}
            for uid, face in self.get(path, dict, {}).items():
                fp = path + (uid,)
                if uid not in units:
                    self.err(fp, f"{uid!r} is not one of the units of this entry")
                    continue
                names = [f.name for f in self.unit_types[counters[uid].type].faces]
                if face not in names:
                    self.err(fp, f"unit type {counters[uid].type!r} has no face {face!r}; its faces are "
                                 f"{', '.join(names)}")
                    continue
                result[uid] = face
            return result

        for sp, entry in self.list_of(("setup",)):
            if not isinstance(entry, dict):
                continue
            position = self.pos(sp)
            if "hex" in entry:
                h = self.hex_id(sp + ("hex",), hexes, "setup hex")
                units = [u for u in (unit(up) for up, _ in self.list_of(sp + ("stack",))) if u]
                if "stack" not in entry:
                    self.err(sp, "a hex setup entry lists its units under 'stack' (bottom to top)")
                if h:
                    out.append(M.SetupStack(h, tuple(units), faces(sp + ("faces",), units), position))
            elif "box" in entry:
                box = self.ref(sp + ("box",), box_ids, "box")
                units = [u for u in (unit(up) for up, _ in self.list_of(sp + ("units",))) if u]
                chits = []
                for cp, _ in self.list_of(sp + ("chits",)):
                    c = self.ref(cp, formation_ids, "formation (or end_turn)", allow=(END_TURN_CHIT,))
                    if c:
                        chits.append(c)
                arrive_turn = arrive_hex = arrive_edge = None
                if isinstance(self.get(sp + ("arrive",)), dict):
                    ap = sp + ("arrive",)
                    arrive_turn = self.get(ap + ("turn",), int)
                    arrive_hex = self.hex_id(ap + ("hex",), hexes, "entry hex")
                    arrive_edge = self.ref(ap + ("edge",), self.map.edges, "map edge")
                    if (self.turns and arrive_turn is not None
                            and not (self.turns.first <= arrive_turn <= self.turns.last)):
                        self.err(ap + ("turn",), f"turn {arrive_turn} is outside the game "
                                                 f"({self.turns.first}–{self.turns.last})")
                if box:
                    out.append(M.SetupBox(box, tuple(units), tuple(chits), faces(sp + ("faces",), units),
                                          arrive_turn, arrive_hex, arrive_edge, position))
            else:
                self.err(sp, "a setup entry names a 'hex' (with a 'stack') or a 'box' (with 'units' or 'chits')")
        # chits per formation must not exceed the formation's number of chits
        chit_count: dict[str, int] = {}
        for entry in out:
            if isinstance(entry, M.SetupBox):
                for chit in entry.chits:
                    chit_count[chit] = chit_count.get(chit, 0) + 1
        for formation in self.formations:
            if chit_count.get(formation.id, 0) > formation.chits:
                self.err(("setup",), f"formation {formation.id!r} has {formation.chits} chit(s) but "
                                     f"{chit_count[formation.id]} are set up", severity="warning")
        return out

    def check_resources(self) -> None:
        rp = ("resources", "replacement_points")
        if not isinstance(self.get(rp), dict):
            return
        self.ref(rp + ("track",), [t.id for t in self.tracks], "track")
        for turn, per_side in self.get(rp + ("schedule",), dict, {}).items():
            tp = rp + ("schedule", turn)
            try:
                number = int(turn)
            except (TypeError, ValueError):
                self.err(tp, f"the schedule is keyed by turn numbers; {turn!r} is not one")
                continue
            if self.turns and not (self.turns.first <= number <= self.turns.last):
                self.err(tp, f"turn {number} is outside the game ({self.turns.first}–{self.turns.last})")
            for side in (per_side or {}) if isinstance(per_side, dict) else {}:
                if side not in self.sides:
                    self.err(tp + (side,), f"unknown side {side!r}")

    def build_log(self) -> dict[str, Any]:
        p = ("log",)
        log: dict[str, Any] = self.get(p, dict, {})
        for path in (p + ("dice_regex",), p + ("typed_chat_regex",), p + ("turn_tracker", "report_regex")):
            pattern = self.text(path)
            if pattern:
                self.check_regex(path, pattern)
        return log

    def check_regex(self, path: Path, pattern: str) -> None:
        """Compile a regex of the scenario: Python's regex parser recurses per
        group (so the nesting is bounded first) and refuses repetition counts
        past 2³²−1 with OverflowError; its warnings become the scenario's."""
        depth = deepest = 0
        escaped = in_class = False
        for char in pattern:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif in_class:
                in_class = char != "]"
            elif char == "[":
                in_class = True
            elif char == "(":
                depth += 1
                deepest = max(deepest, depth)
            elif char == ")":
                depth = max(0, depth - 1)
        if deepest > L.MAX_DEPTH:
            self.err(path, f"the regular expression nests {deepest} groups; at most {L.MAX_DEPTH}")
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                re.compile(pattern)
            except (re.error, OverflowError) as exc:
                self.err(path, f"not a valid regular expression: {exc}")
            except RecursionError:   # pragma: no cover - the nesting is bounded above
                self.err(path, "not a valid regular expression: nested too deeply")
        for warning in caught:
            self.err(path, f"regular expression: {warning.message}", severity="warning")

    def build_charts(self) -> list[M.Chart]:
        out = []
        for cp, _ in self.list_of(("charts",)):
            cid = self.text(cp + ("id",))
            image = self.text(cp + ("image",))
            if not cid or not image:
                continue
            path = self.local_file(cp + ("image",), image, "chart image")
            if path:
                out.append(M.Chart(cid, self.text(cp + ("name",), cid) or cid, path))
        return out

    def check_styles(self) -> None:
        """What the counter renderer would refuse, found at load time: the
        counter size bounds the images the renderers allocate and gives
        VASSAL images of at least 24 px; formation styles and marker counts
        name formations and marker kinds that exist (the schema checks the
        keys, types, fonts and colours)."""
        cp = ("styles", "counter")
        self._style_keys(cp + ("formations",), [f.id for f in self.formations], "formation")
        self._style_keys(cp + ("marker_counts",), list(self.markers), "marker kind")
        sp = cp + ("size",)
        size = self.text(sp)
        m = _COUNTER_SIZE.match(size or "")
        if m is None:
            return   # the schema says how to write it
        value = float(m.group(1)) / (float(m.group(2)) if m.group(2) and float(m.group(2)) else 1.0)
        limit = L.MAX_COUNTER_SIZE[m.group(3)]
        if value > limit:
            self.err(sp, f"a counter of {size} is too large (at most {limit:g}{m.group(3)})")
            return
        dpi = self.get(cp + ("vassal_dpi",), (int, float), 120)
        if self.get(cp + ("vassal_px",)) is not None or not dpi > 0:
            return   # an explicit edge length (the schema bounds it)
        inches = value / dpi if m.group(3) == "px" else (value if m.group(3) == "in" else value / 25.4)
        px = round(value) if m.group(3) == "px" else round(inches * dpi)
        if px < 24:
            self.err(sp, f"a counter of {size} at {dpi:g} dpi gives VASSAL images of {px} px; at least 24 px "
                         "are needed (raise vassal_dpi or give vassal_px)")

    def _style_keys(self, path: Path, known: Sequence[str], what: str) -> None:
        """Each key of the mapping at ``path`` names a known ``what`` (a
        style for a formation that does not exist would be ignored)."""
        for key in self.get(path, dict, {}):
            if isinstance(key, str) and key not in self.known_set(known):
                close = self.close_match(key, known)
                hint = f"; did you mean {close!r}?" if close else (
                    f"; defined: {', '.join(known[:12])}" if known else f"; no {what}s are defined")
                self.err(path + (key,), f"unknown {what} {key!r}{hint}")

    def build_plugin_paths(self) -> list[FsPath]:
        out = []
        for pp, rel in self.list_of(("plugins", "paths")):
            if not isinstance(rel, str):
                continue
            candidate = self.folder / rel
            self.folders_read.append(candidate)
            try:
                candidate.resolve().relative_to(self.folder.resolve())
            except ValueError:
                self.err(pp, f"plug-in path {rel!r} must be inside the scenario's folder")
                continue
            if not candidate.is_dir():
                self.err(pp, f"plug-in folder {rel!r} does not exist")
                continue
            out.append(candidate)
        return out

    # -- rules ----------------------------------------------------------------------
    def build_rules(self) -> list[M.RuleSpec]:
        out = []
        self.unique(((rp + ("id",), self.text(rp + ("id",)) or "") for rp, _ in self.list_of(("rules",))
                     if self.text(rp + ("id",))), "rule id")
        ctx = RuleReferences(self)
        for rp, entry in self.list_of(("rules",)):
            if not isinstance(entry, dict):
                continue
            rid = self.text(rp + ("id",))
            kind = self.text(rp + ("kind",))
            if not rid or not kind:
                continue
            plugin = self.text(rp + ("plugin",))
            if kind == "plugin":
                if not plugin:
                    self.err(rp, "a plugin rule names its class: plugin: \"module:Class\"")
                elif not _PLUGIN_REF.match(plugin):
                    self.err(rp + ("plugin",), f"{plugin!r} is not \"module:Class\"")
            elif plugin:
                self.err(rp + ("plugin",), f"'plugin' belongs to rules of kind plugin, not {kind!r}")
            params = self.get(rp + ("params",), dict, {})
            if kind in RULE_KINDS:
                ctx.check(rp + ("params",), params)
            refs = self.get(rp + ("ref",))
            ref = tuple(refs) if isinstance(refs, list) else ((refs,) if isinstance(refs, str) else ())
            out.append(M.RuleSpec(rid, kind, params, tuple(str(r) for r in ref),
                                  self.text(rp + ("check_at",), "event") or "event",
                                  self.text(rp + ("severity",), "error") or "error",
                                  bool(self.get(rp + ("enabled",), bool, True)), plugin,
                                  tuple(a for a in self.get(rp + ("needs_annotations",), list, [])
                                        if isinstance(a, str)), self.pos(rp),
                                  self._check_in(rp),
                                  self.text(rp + ("applies_to",), "all") or "all"))
        return out

    def _check_in(self, rp: Path) -> tuple[str, ...]:
        """``check_in``: phases of the turn structure, for a rule judged at a
        settle point."""
        phases = [p.id for p in self.turns.phases] if self.turns else []
        out = []
        for ip, _ in self.list_of(rp + ("check_in",)):
            found = self.ref(ip, phases, "phase")
            if found:
                out.append(found)
        if out and (self.text(rp + ("check_at",), "event") or "event") == "event":
            self.err(rp + ("check_in",), "check_in limits a settle point to phases; give check_at "
                                         "(step_end, activation_end, phase_end or turn_end)")
        return tuple(out)




def hexside_pieces(sides: Sequence[tuple[str, str]],
                   adjacent: Callable[[str, str], bool] | None) -> list[list[tuple[str, str]]]:
    """The connected pieces of a set of hexsides (each a pair of adjacent hex
    ids), in the order given.  With ``adjacent`` two hexsides are joined when
    they meet at a corner (they share a hex and their other hexes touch: a
    river along hexsides); without it, when they share a hex (a road from
    centre to centre)."""
    parent = list(range(len(sides)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_hex: dict[str, list[int]] = {}
    for i, (a, b) in enumerate(sides):
        for h in (a, b):
            for j in by_hex.get(h, ()):
                if adjacent is not None:
                    others = {a, b} ^ set(sides[j])
                    if others and (len(others) != 2 or not adjacent(*sorted(others))):
                        continue
                parent[root(i)] = root(j)
            by_hex.setdefault(h, []).append(i)
    pieces: dict[int, list[tuple[str, str]]] = {}
    for i, side in enumerate(sides):
        pieces.setdefault(root(i), []).append(side)
    return list(pieces.values())
