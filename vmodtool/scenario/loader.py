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

import os
from collections.abc import Callable, Mapping
from pathlib import Path as FsPath
from typing import TYPE_CHECKING

from vmodtool.errors import PathLike
from vmodtool.scenario import load_binding as LB
from vmodtool.scenario import load_cards as LC
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.load_boxes import build_boxes, build_tracks
from vmodtool.scenario.load_counters import build_counters, build_markers
from vmodtool.scenario.load_extensions import build_extensions
from vmodtool.scenario.load_formations import build_formations, check_formation_hqs
from vmodtool.scenario.load_game import build_game
from vmodtool.scenario.load_hexsides import hexside_pieces
from vmodtool.scenario.load_log import build_log
from vmodtool.scenario.load_map import GRID_NOT_BUILT, build_map
from vmodtool.scenario.load_maps import build_extra_maps
from vmodtool.scenario.load_rules import RULE_KINDS, build_plugin_paths, build_rules
from vmodtool.scenario.load_scenarios import build_scenarios
from vmodtool.scenario.load_setup import END_TURN_CHIT, build_setup
from vmodtool.scenario.load_styles import build_charts, check_styles, check_templates
from vmodtool.scenario.load_turns import build_turns, check_resources
from vmodtool.scenario.load_unit_types import build_layouts, build_unit_types
from vmodtool.scenario.offmap import OFF_MAP_NAME
from vmodtool.scenario.problems import Problem, ScenarioProblems
from vmodtool.scenario.rule_refs import ScenarioParts
from vmodtool.scenario.schema_cache import cached_schema_problems
from vmodtool.scenario.schema_check import scenario_schema
from vmodtool.scenario.source import Document, load_document

if TYPE_CHECKING:
    from vmodtool.vassal.module import Module

__all__ = ["load_scenario", "check_scenario", "scenario_schema", "ScenarioInputs", "RULE_KINDS", "SCHEMAS",
           "GRID_NOT_BUILT", "END_TURN_CHIT", "hexside_pieces"]

SCHEMAS = ("vmodtool/1", "wgscen/1")


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
    collector = ProblemCollector(doc, fs_path)
    scenario, opened = _model(collector, module, board_sizes)
    if inputs is not None:
        inputs.files.extend(collector.files_read)
        inputs.folders.extend(collector.folders_read)
        inputs.module = module is not None or board_sizes is not None or opened is not None
    return doc, scenario, collector.problems


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
# the model, section by section (each in its load_<section>.py)

def _model(c: ProblemCollector, module_arg: Module | PathLike | None,
           board_sizes: Mapping[str, tuple[int, int]] | None) -> tuple[M.Scenario | None, Module | None]:
    """The model built from the document ``c`` reads (None when its map
    cannot be built), and the module opened for it; every problem is in
    ``c.problems``.  The sections are read in the order the problems of one
    place must keep."""
    schema = c.text(("schema",))     # the JSON Schema reports a bad value
    game = build_game(c)
    module_source = LB.build_module_source(c)
    module = None
    if c.get(("map", "from_module")) is not None or any(
            isinstance(c.get(bp + ("module",)), dict) for bp, _ in c.list_of(("boxes",))):
        module = LB.open_module(c, module_source, module_arg)
    hex_map = build_map(c, module, module_source, board_sizes)
    if hex_map is None:
        return None, module
    extra_maps = build_extra_maps(c, hex_map, (OFF_MAP_NAME,), board_sizes)
    sides = [s.id for s in game.sides]
    boxes = LB.check_box_places(c, module, build_boxes(c, sides))
    tracks = build_tracks(c)
    layouts = build_layouts(c)
    unit_types = build_unit_types(c, layouts)
    markers = build_markers(c)
    formations = build_formations(c, sides)
    counters = build_counters(c, unit_types, sides, formations)
    binding = LB.build_binding(c, unit_types, sides, [f.id for f in formations], markers, counters, hex_map)
    check_formation_hqs(c, counters)
    turns = build_turns(c, boxes, sides)
    setup = build_setup(c, hex_map, counters, boxes, formations, unit_types, turns, windows=extra_maps)
    check_resources(c, tracks, turns, sides)
    log = build_log(c)
    charts = build_charts(c)
    parts = ScenarioParts(hex_map, sides, boxes, tracks, unit_types, markers, formations, turns)
    rules = build_rules(c, parts)
    scenarios = build_scenarios(
        c, hex_map, turns, rules,
        lambda path, own_turns: build_setup(c, hex_map, counters, boxes, formations, unit_types, own_turns, path,
                                            extra_maps),
        lambda path: build_rules(c, parts, path),
        lambda path, own_turns: check_resources(c, tracks, own_turns, sides, path)) \
        if c.get(("scenarios",)) is not None else []
    plugin_paths = build_plugin_paths(c)
    check_styles(c, formations, markers)
    check_templates(c, sides, unit_types)
    decks = LC.build_decks(c, sides, [b.id for b in boxes] + list(hex_map.zones))
    extensions = build_extensions(c, counters, [*setup, *(e for s in scenarios for e in s.setup)], decks)
    hands = LC.build_hands(c, sides, {s.id: s.name for s in game.sides},
                           taken=(hex_map.name, OFF_MAP_NAME, *(m.name for m in extra_maps)))
    return M.Scenario(
        path=c.path, schema=schema or SCHEMAS[0], game=game, map=hex_map,
        unit_types=unit_types, counters=tuple(counters), boxes=tuple(boxes),
        tracks=tuple(tracks), factor_layouts=layouts, markers=markers,
        formations=tuple(formations), setup=tuple(setup),
        resources=c.get(("resources",), dict, {}), turns=turns, log=log,
        charts=tuple(charts), styles=c.get(("styles",), dict, {}),
        vassal=c.get(("vassal",), dict, {}), rules=tuple(rules),
        plugin_paths=tuple(plugin_paths), module=module_source, binding=binding,
        decks=tuple(decks), hands=tuple(hands), scenarios=tuple(scenarios), extensions=tuple(extensions),
        maps=tuple(extra_maps)), module
