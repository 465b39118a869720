"""The scenarios of a game as VASSAL predefined setups: one
``PredefinedSetup`` element per scenario (in a sub-menu of File > New Game
when the scenario names one) and its ``<id>.vsav``, a save written by
:class:`~vmodtool.vassal.gamewriter.GameWriter` as VASSAL writes one
(``docs/vassal-format.md`` §1.2, §2.3; ``docs/guide/scenarios.md``).

Each save holds the module's decks and, on the maps, the scenario's units
(and chits) where its set-up puts them, each a copy of its palette slot
(with that slot's gpid, as a piece a designer drags from the palette) in
its set-up face; the turn tracker stands at the scenario's first turn.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from lxml import etree

from vmodtool.assemble import components as C
from vmodtool.assemble.pieces import PieceFactory
from vmodtool.scenario.geometry import TRACKER_ID, scenario_maps, scenario_turn_trackers
from vmodtool.scenario.model import NamedScenario, Scenario, SetupBox, SetupStack
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.gamewriter import GameWriter
from vmodtool.vassal.module import Module

__all__ = ["add_predefined_setups", "setup_files", "scenarios_help", "chit_key", "SETUP_DATE"]

#: the save date written into each setup (``savedata``, ``moduledata``): fixed, so a build is reproducible
SETUP_DATE = "0"


def chit_key(chit: str) -> str:
    """The key of a chit's palette slot among the counters' (a formation
    id may also be a counter id)."""
    return "chit:" + chit


def add_predefined_setups(root: etree._Element, scenario: Scenario) -> None:
    """One ``PredefinedSetup`` per scenario at the end of the module, under
    a menu element per ``menu`` (in the order menus first appear)."""
    menus: dict[str, etree._Element] = {}
    for named in scenario.scenarios:
        parent = root
        if named.menu:
            parent = menus.get(named.menu, root)
            if named.menu not in menus:
                # a menu has no file: VASSAL writes no 'file' attribute for it
                parent = menus[named.menu] = etree.SubElement(
                    root, C.P + "module.PredefinedSetup", {"isMenu": "true", "name": named.menu, "useFile": "true"})
        C.add(parent, "module.PredefinedSetup", {"file": named.setup_file, "name": named.name})


def setup_files(scenario: Scenario, buildfile: bytes, moduledata: bytes, factory: PieceFactory,
                palette: Mapping[str, str], chit_images: Mapping[str, str]) -> dict[str, bytes]:
    """Each scenario's ``.vsav`` (entry name → bytes) for the module whose
    ``buildFile.xml`` and ``moduledata`` are given; ``palette`` is the gpid
    of each counter's palette slot (by counter id) and each chit's (by
    :func:`chit_key`)."""
    module = Module(buildfile=BuildFile.parse(buildfile, file="buildFile.xml"), buildfile_entry="buildFile.xml",
                    container="buildfile", moduledata=moduledata)
    maps = scenario_maps(scenario)
    sizes = {p.board.name: (p.board.width, p.board.height) for m in maps for p in m.geometry.placements}
    own = maps[0].geometry.placements[0].board
    alternatives = {b.id: b.name for b in scenario.map.boards}
    sizes.update({name: (own.width, own.height) for name in alternatives.values()})
    zone_of_box = {}
    if any(isinstance(e, SetupBox) for named in scenario.scenarios for e in named.setup):
        zone_of_box = {z.ref: z.name for z in layout_off_map(scenario).zones if z.kind == "box"}
    out: dict[str, bytes] = {}
    for named in scenario.scenarios:
        # a scenario on an alternative board: its save's SetBoards names that board
        chosen = {scenario.map.name: alternatives[named.board]} if named.board else None
        writer = GameWriter(module, board_sizes=sizes, boards=chosen)
        writer.clear_stacks()
        _lay_out(writer, scenario, named, factory, palette, chit_images, zone_of_box)
        _start_turn(writer, scenario, named)
        writer.snapshot()
        out[named.setup_file] = writer.to_bytes(date_saved=SETUP_DATE, comment=named.name)
    return out


def _lay_out(writer: GameWriter, scenario: Scenario, named: NamedScenario, factory: PieceFactory,
             palette: Mapping[str, str], chit_images: Mapping[str, str], zone_of_box: Mapping[str, str]) -> None:
    """The scenario's units (and chits) placed as its set-up says, bottom to top."""
    for entry in named.setup:
        chits: tuple[str, ...] = ()
        if isinstance(entry, SetupStack):
            window = scenario.map_window(entry.map) if entry.map else scenario.map    # (a 'maps' window's hex)
            where, units = (window.name, entry.hex), entry.units
        elif isinstance(entry, SetupBox) and entry.box in zone_of_box:
            where, units, chits = (OFF_MAP_NAME, zone_of_box[entry.box]), entry.units, entry.chits
        else:
            continue
        for uid in units:
            gpid = palette[uid]
            definition = factory.unit_definition(scenario.counter(uid), entry.faces.get(uid), gpid)
            writer.place(definition, where[0], where[1], gpid)
        for chit in chits:
            formation, name = (None, "End Turn") if chit == "end_turn" else (chit, scenario.formation(chit).name)
            gpid = palette[chit_key(chit)]
            writer.place(factory.chit_definition(formation, chit_images[chit], name, gpid), where[0], where[1], gpid)


def _start_turn(writer: GameWriter, scenario: Scenario, named: NamedScenario) -> None:
    """The turn tracker at the scenario's first turn (its other levels at
    their first entry), as the save of a game set up for it records it."""
    if scenario.turns is None:
        return
    tracker = scenario_turn_trackers(scenario).get(TRACKER_ID)
    if tracker is None:
        return
    first = named.turns.first if named.turns else scenario.turns.first
    writer.turn_states[TRACKER_ID] = tracker.state(first, scenario.turns.last)


def scenarios_help(scenario: Scenario) -> str:
    """The help page's section on the game's scenarios (empty for a game
    of one): each one's menu entry, turns, situation, victory conditions,
    objectives and rule changes."""
    if not scenario.scenarios:
        return ""
    e = html.escape
    game_rules = {r.id for r in scenario.rules}
    items = []
    for named in scenario.scenarios:
        turns = named.turns or scenario.turns
        parts = [f"<h3>{e(named.name)}</h3>"]
        if turns is not None:
            parts.append(f"<p>Turns {turns.first}–{turns.last}.</p>")
        if named.description:
            parts.append(f"<p>{e(named.description)}</p>")
        if named.victory:
            parts.append(f"<p><b>Victory:</b> {e(named.victory)}</p>")
        objectives = named.objectives if named.objectives is not None else scenario.map.objectives
        if objectives:
            parts.append("<p><b>Objectives:</b> " + ", ".join(
                f"{e(o.name)} ({e(o.hex)}" + (f", {o.vp:g} VP)" if o.vp is not None else ")") for o in objectives)
                + "</p>")
        own = [r.id for r in named.rules if r.id not in game_rules]
        left_out = sorted(game_rules - {r.id for r in named.rules})
        if own or left_out:
            parts.append("<p><b>Rules:</b> " + "; ".join(
                ([f"adds {e(', '.join(own))}"] if own else []) + ([f"without {e(', '.join(left_out))}"] if left_out
                                                                  else [])) + "</p>")
        items.append("".join(parts))
    return "<h2>Scenarios</h2><p>File &gt; New Game lists each as a predefined setup.</p>" + "".join(items)
