"""Assemble a VASSAL module from a scenario: the buildFile component tree,
``moduledata``, images and help, zipped reproducibly (fixed timestamps,
stable order), so the same scenario always gives byte-identical output.

The images come in a :class:`ModuleImages` (rendered by
:mod:`vmodtool.assemble.images` from the scenario, or supplied by a caller);
this module only arranges them (``docs/vassal-format.md`` §2.3, §6).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from lxml import etree

from vmodtool.assemble import components as C
from vmodtool.assemble.decks import add_decks, add_hands
from vmodtool.assemble.extension import PALETTE_TAB, extension_only_images, module_decks
from vmodtool.assemble.maps import add_alternative_boards, add_map_windows
from vmodtool.assemble.maps import board_picker as _board_picker
from vmodtool.assemble.maps import map_children as _map_children
from vmodtool.assemble.maps import map_window as _map
from vmodtool.assemble.module_images import ModuleImages
from vmodtool.assemble.offmap import OffMapLayout, draw_off_map, layout_off_map
from vmodtool.assemble.pieces import PieceFactory, unit_name
from vmodtool.assemble.setups import add_predefined_setups, chit_key, scenarios_help, setup_files
from vmodtool.scenario.geometry import (
    TRACKER_ID,
    has_off_map,
    main_board_name,
    off_map_zones,
    scenario_turn_trackers,
    tracker_log,
)
from vmodtool.scenario.model import Counter, HexMap, Scenario, SetupBox, SetupStack, TurnStructure
from vmodtool.scenario.offmap import OFF_MAP_NAME
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.metadata import ModuleMetadata
from vmodtool.vassal.sequence import encode_sequence

__all__ = ["ModuleImages", "ModuleBuild", "assemble_module", "DEFAULT_VASSAL_VERSION",
           "OFF_MAP_NAME", "TURN_FORMAT", "TURN_REPORT", "DICE_REPORT"]

DEFAULT_VASSAL_VERSION = "3.7.0"   # opens in every 3.7.x without a "newer version" warning (§1.4)
TURN_REPORT = "TT|$newTurn$"
DICE_REPORT = "** $name$ = $result$ *** by $PlayerName$"
TURN_FORMAT = {1: "$level1$", 2: "$level1$|$level2$", 3: "$level1$|$level2$|$level3$"}
Progress = Callable[[str, int, int], None]
#: the deflate level of the module's text entries (the buildFile, help); images are stored
MODULE_COMPRESS_LEVEL = 6


@dataclass
class ModuleBuild:
    """The result: archive ``entries`` (name → bytes, in archive order),
    where each at-start piece was placed (for checks and reports), and how
    many piece slots (``PieceSlot``/``CardSlot``) and prototypes the
    buildFile has; :attr:`buildfile` parses it on first use (a build that
    only writes the module never does: for 4,000 counters that is half a
    second)."""

    entries: dict[str, bytes]
    setup_locations: dict[str, tuple[str, str]]   # counter id -> (map name, location)
    slots: int = 0
    prototypes: int = 0

    @cached_property
    def buildfile(self) -> BuildFile:
        return BuildFile.parse(self.entries["buildFile.xml"], file="buildFile.xml")

    def to_bytes(self) -> bytes:
        # text entries at zlib's default level (that of java.util.zip's
        # Deflater): level 9 took twice the time for 5% of the buildFile
        return build_zip(self.entries, compress_level=MODULE_COMPRESS_LEVEL)


class _Gpids:
    def __init__(self) -> None:
        self.next = 1

    def take(self) -> str:
        value = self.next
        self.next += 1
        return str(value)


def assemble_module(scenario: Scenario, images: ModuleImages,
                    progress: Progress | None = None, *,
                    images_ready: Callable[[], object] | None = None) -> ModuleBuild:
    """Build every component and return the archive entries (of a scenario
    with its own map grid: a map taken from a module is refused).  The
    buildFile needs only the images' names: ``images_ready`` is called
    after it is made and before ``images.files`` is read, so that counter
    faces still being rendered can arrive meanwhile."""
    if scenario.map.grid.spec is None:
        raise ValueError("a module is built from a scenario with its own map grid, not one taken from a module")
    game = scenario.game
    vassal_version = str(scenario.vassal.get("vassal_version", DEFAULT_VASSAL_VERSION))
    version = game.version or "1.0"
    parts = _Parts(scenario, images, PieceFactory(scenario, images.unit, images.marker, images.layer))
    bf = BuildFile.new(C.P + "GameModule")
    root = bf.root
    _module_root(root, scenario, version, vassal_version)
    _main_map(root, parts)
    add_map_windows(root, scenario, images, parts.place_stacks)
    off, layout, off_flare = _off_map(root, parts)
    palette = _palette(root, scenario, parts.factory, images, parts.gpids)
    # the decks' cards take gpids after every other piece, so that adding
    # decks to a scenario leaves the gpids of its units and markers alone
    if off is not None and layout is not None and scenario.decks:
        add_decks(off, module_decks(scenario), layout, images.card, images.card_back, parts.gpids.take,
                  before=off_flare)
    if scenario.hands:
        add_hands(root, scenario, images.hand_board, before=root.find(C.P + "module.PieceWindow"))
    protos = C.add(root, "module.PrototypesContainer")
    for name, description, definition in parts.factory.prototypes():
        C.add(protos, "module.PrototypeDefinition", {"name": name, "description": description},
              text=definition)
    for spec in game.dice:
        n, sides = spec.lower().split("d", 1)
        C.add(root, "module.DiceButton", {
            "name": spec, "nDice": int(n), "nSides": int(sides), "text": spec,
            "tooltip": f"Roll {spec}", "reportFormat": DICE_REPORT, "reportTotal": int(n) > 1})
    if scenario.turns is not None:
        _turn_tracker(root, scenario, scenario.turns)
    _charts(root, scenario, images)
    _documentation(root)
    if scenario.scenarios:
        add_predefined_setups(root, scenario)
    root.set("nextPieceSlotId", str(parts.gpids.next))

    buildfile = bf.to_bytes()
    if images_ready is not None:
        images_ready()
    meta = ModuleMetadata(version=version, vassal_version=vassal_version, date_saved="0",
                          description=game.note or "", name=game.title)
    entries: dict[str, bytes] = {"buildFile.xml": buildfile, "moduledata": meta.to_bytes()}
    left_out = extension_only_images(scenario, images)     # in the extensions, not the module
    for name in sorted(images.files):
        if name not in left_out:
            entries["images/" + name] = images.files[name]
    entries["help/scenario.html"] = _help_page(scenario).encode("utf-8")
    if scenario.scenarios:
        entries.update(setup_files(scenario, buildfile, entries["moduledata"], parts.factory, palette, images.chit))
    slots = sum(1 for _ in root.iter(C.P + "widget.PieceSlot", C.P + "widget.CardSlot"))
    prototypes = len({e.get("name", "") for e in root.iter(C.P + "module.PrototypeDefinition")})
    return ModuleBuild(entries, parts.setup_locations, slots, prototypes)


class _Parts:
    """What the components of one build share: the scenario, its images,
    the piece factory, the gpids handed out and where each at-start piece
    was placed."""

    def __init__(self, scenario: Scenario, images: ModuleImages, factory: PieceFactory) -> None:
        self.scenario = scenario
        self.images = images
        self.factory = factory
        self.gpids = _Gpids()
        self.setup_locations: dict[str, tuple[str, str]] = {}   # counter id -> (map name, location)

    def place_stacks(self, window: etree._Element, hex_map: HexMap) -> None:
        """The at-start stacks of the set-up's hexes on ``hex_map`` (the
        scenario's map, or one of its ``maps``: a stack's ``map``), in ``window``."""
        scenario = self.scenario
        window_id = None if hex_map is scenario.map else hex_map.id
        for entry in scenario.setup:
            if isinstance(entry, SetupStack) and entry.units and entry.map == window_id:
                stack = C.add(window, "module.map.SetupStack", {
                    "location": entry.hex, "name": f"{entry.hex} start", "owningBoard": hex_map.name,
                    "useGridLocation": True})
                for uid in entry.units:
                    counter = scenario.counter(uid)
                    _slot(stack, self.factory, self.images, self.gpids, counter, entry.faces.get(uid))
                    self.setup_locations[uid] = (hex_map.name, entry.hex)


def _module_root(root: etree._Element, scenario: Scenario, version: str, vassal_version: str) -> None:
    """The GameModule's attributes and its first components (roster, options, chat)."""
    game = scenario.game
    for key, value in sorted(C.DEFAULTS["GameModule"].items()):
        root.set(key, value)
    root.set("name", game.title)
    root.set("version", version)
    root.set("VassalVersion", vassal_version)
    root.set("description", game.note or "")
    C.add(root, "module.BasicCommandEncoder")
    roster = C.add(root, "module.PlayerRoster")
    for side in game.sides:
        etree.SubElement(roster, "entry").text = side.name
    options = C.add(root, "module.GlobalOptions")
    for name, value in C.GLOBAL_OPTION_CHILDREN:
        opt = etree.SubElement(options, "option", name=name)
        if value:
            opt.text = value
    C.add(root, "module.Chatter")


def _main_map(root: etree._Element, parts: _Parts) -> None:
    """The main map: its board (:func:`~vmodtool.scenario.geometry.main_board_name`)
    with the scenario's hex grid, and the units set up in its hexes."""
    scenario, images = parts.scenario, parts.images
    board_name = main_board_name(scenario)
    main = _map(root, scenario.map.name, markMoved="Always")
    board = _board_picker(main, board_name, images.board)
    grid = C.add(board, "module.map.boardPicker.board.HexGrid", scenario.map.grid.grid_attributes)
    C.add(grid, "module.map.boardPicker.board.mapgrid.HexGridNumbering",
          scenario.map.grid.numbering_attributes)
    add_alternative_boards(board, scenario.map, images)
    _map_children(main)
    parts.place_stacks(main, scenario.map)
    C.add(main, "module.map.Flare")


def _off_map(root: etree._Element, parts: _Parts
             ) -> tuple[etree._Element | None, OffMapLayout | None, etree._Element | None]:
    """The off-map window (when the scenario has boxes, tracks or decks):
    its zones (:func:`~vmodtool.scenario.geometry.off_map_zones`) and the
    units and chits set up in its boxes; the map, its layout and its
    ``Flare`` (the decks go before it)."""
    scenario, images = parts.scenario, parts.images
    if not has_off_map(scenario):
        return None, None, None
    layout = layout_off_map(scenario)
    if images.draw:
        images.files["off-map.png"] = draw_off_map(scenario, layout)
    off = _map(root, OFF_MAP_NAME, markMoved="Never", buttonName=OFF_MAP_NAME)
    off_board = _board_picker(off, OFF_MAP_NAME, "off-map.png")
    zoned = C.add(off_board, "module.map.boardPicker.board.ZonedGrid")
    for zone in off_map_zones(scenario, layout):
        C.add(zoned, "module.map.boardPicker.board.mapgrid.Zone", zone.attributes())
    _map_children(off)
    zone_of_box = {z.ref: z.name for z in layout.zones if z.kind == "box"}
    for entry in scenario.setup:
        if not isinstance(entry, SetupBox) or entry.box not in zone_of_box:
            continue
        if not entry.units and not entry.chits:
            continue
        stack = C.add(off, "module.map.SetupStack", {
            "location": zone_of_box[entry.box], "name": f"{zone_of_box[entry.box]} start",
            "owningBoard": OFF_MAP_NAME, "useGridLocation": True})
        for uid in entry.units:
            _slot(stack, parts.factory, images, parts.gpids, scenario.counter(uid), entry.faces.get(uid))
            parts.setup_locations[uid] = (OFF_MAP_NAME, zone_of_box[entry.box])
        for chit in entry.chits:
            _chit_slot(stack, scenario, parts.factory, images, parts.gpids, chit)
    return off, layout, C.add(off, "module.map.Flare")


def _charts(root: etree._Element, scenario: Scenario, images: ModuleImages) -> None:
    if not scenario.charts:
        return
    window = C.add(root, "module.ChartWindow", {"name": "Charts", "text": "Charts",
                                                "tooltip": "Charts and tables"})
    for chart in scenario.charts:
        name = f"chart-{chart.id}{chart.image.suffix.lower()}"
        if images.draw:
            images.files[name] = chart.image.read_bytes()
        C.add(window, "widget.Chart", {"chartName": chart.name, "description": chart.name,
                                       "fileName": name})


def _documentation(root: etree._Element) -> None:
    """The module's last components: inventory, properties, language, help."""
    C.add(root, "module.Inventory")
    C.add(root, "module.properties.GlobalProperties")
    C.add(root, "module.properties.GlobalTranslatableMessages")
    C.add(root, "VASSAL.i18n.Language")
    docs = C.add(root, "module.Documentation")
    C.add(docs, "module.documentation.AboutScreen")
    C.add(docs, "module.documentation.HelpFile", {"fileName": "help/scenario.html",
                                                  "fileType": "archive", "title": "Scenario",
                                                  "vassalDoc": "user"})
    C.add(docs, "module.documentation.HelpFile")
    C.add(root, "module.KeyNamer")


# -- pieces -----------------------------------------------------------------------

def _slot(parent: etree._Element, factory: PieceFactory, images: ModuleImages, gpids: _Gpids,
          counter: Counter, face: str | None) -> str:
    """Add a counter's PieceSlot; its gpid."""
    gpid = gpids.take()
    unit_type = factory.scenario.unit_type_of(counter)
    w, h = images.counter_size
    C.add(parent, "widget.PieceSlot", {"entryName": unit_name(counter, unit_type), "gpid": gpid,
                                        "width": w, "height": h},
          text=factory.unit_definition(counter, face, gpid))
    return gpid


def _chit_slot(parent: etree._Element, scenario: Scenario, factory: PieceFactory, images: ModuleImages,
               gpids: _Gpids, chit: str) -> str:
    gpid = gpids.take()
    if chit == "end_turn":
        name, formation = "End Turn", None
    else:
        formation = chit
        name = scenario.formation(chit).name
    w, h = images.counter_size
    C.add(parent, "widget.PieceSlot", {"entryName": name, "gpid": gpid, "width": w, "height": h},
          text=factory.chit_definition(formation, images.chit[chit], name, gpid))
    return gpid


def _palette(root: etree._Element, scenario: Scenario, factory: PieceFactory, images: ModuleImages,
             gpids: _Gpids) -> dict[str, str]:
    """The piece palette; the gpid of each counter's slot (by counter id)
    and each chit's (by :func:`~vmodtool.assemble.setups.chit_key`)."""
    slots: dict[str, str] = {}
    window = C.add(root, "module.PieceWindow")
    tabs = C.add(window, "widget.TabWidget", {"entryName": PALETTE_TAB})
    formation_names = {f.id: f.name for f in scenario.formations}
    for side in scenario.game.sides:
        side_tab = C.add(tabs, "widget.TabWidget", {"entryName": side.name})
        groups: dict[str, list[Counter]] = {}
        for counter in scenario.counters:
            if counter.side == side.id and counter.id not in scenario.extension_counters:
                groups.setdefault(counter.formation or "", []).append(counter)
        for formation_id, counters in groups.items():
            label = formation_names.get(formation_id, "Other units") if formation_id else "Other units"
            widget = C.add(side_tab, "widget.ListWidget", {"entryName": label})
            for counter in counters:
                slots[counter.id] = _slot(widget, factory, images, gpids, counter, None)
    # marker counters that have an image (activation chits are drawn per formation)
    markers = [k for k in scenario.markers.values()
               if k.representation == "counter" and k.id in images.marker]
    if markers or images.chit:
        widget = C.add(tabs, "widget.ListWidget", {"entryName": "Markers"})
        w, h = images.counter_size
        for kind in markers:
            gpid = gpids.take()
            C.add(widget, "widget.PieceSlot", {"entryName": kind.name, "gpid": gpid, "width": w,
                                               "height": h},
                  text=factory.marker_definition(kind, gpid))
        for chit in sorted(images.chit):
            slots[chit_key(chit)] = _chit_slot(widget, scenario, factory, images, gpids, chit)
    return slots


def _turn_tracker(root: etree._Element, scenario: Scenario, turns: TurnStructure) -> None:
    """The turn tracker :func:`~vmodtool.scenario.geometry.scenario_turn_trackers`
    computes (its name, levels, their properties and values), with what
    only a build needs: the formats of its text and report, the last turn."""
    log = tracker_log(scenario)
    tracker = scenario_turn_trackers(scenario)[TRACKER_ID]
    (top,) = tracker.levels
    chain = [top]
    while chain[-1].children:
        chain.append(chain[-1].children[0])
    element = C.add(root, "module.turn.TurnTracker", {
        "name": tracker.name,
        "turnFormat": str(log.get("turn_format", TURN_FORMAT[len(chain)])),
        "reportFormat": str(log.get("report_format", TURN_REPORT))})
    parent = C.add(element, "module.turn.CounterTurnLevel", {
        "name": top.name, "property": top.property, "start": top.start,
        "loopLimit": turns.last, "loop": False})
    for level in chain[1:]:
        parent = C.add(parent, "module.turn.ListTurnLevel", {
            "name": level.name, "property": level.property,
            "list": encode_sequence(list(level.values), ",") or ""})


# -- help ----------------------------------------------------------------------------

def _help_page(scenario: Scenario) -> str:
    g = scenario.game
    e = html.escape
    rows = []
    faces_of: dict[int, str] = {}      # a unit type's faces, written once for all its counters
    for counter in scenario.counters:
        unit_type = scenario.unit_type_of(counter)
        faces = faces_of.get(id(unit_type))
        if faces is None:
            faces = faces_of[id(unit_type)] = "; ".join(
                f"{e(f.name)}: " + ", ".join(f"{e(k)} {e(str(v))}" for k, v in f.factors.items())
                for f in unit_type.faces)
        rows.append(f"<tr><td>{e(counter.id)}</td><td>{e(unit_name(counter, unit_type))}</td>"
                    f"<td>{e(counter.side)}</td><td>{e(counter.formation or '')}</td><td>{faces}</td></tr>")
    rules = "".join(f"<li><b>{e(r.id)}</b> ({e(r.kind)}; {e(', '.join(r.ref))})</li>" for r in scenario.rules)
    phases = "".join(f"<li>{e(p.name)}</li>" for p in (scenario.turns.phases if scenario.turns else ()))
    sides = ", ".join(e(s.name) for s in g.sides)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{e(g.title)}</title></head>"
            f"<body><h1>{e(g.title)}</h1><p>{e(g.note or '')}</p><p>Sides: {sides}</p>"
            f"<h2>Sequence of play</h2><ol>{phases}</ol>{scenarios_help(scenario)}"
            f"<h2>Counters</h2><table border=\"1\"><tr><th>id</th><th>name</th><th>side</th>"
            f"<th>formation</th><th>faces</th></tr>{''.join(rows)}</table>"
            f"<h2>Rules checked by vmodtool audit</h2><ul>{rules}</ul>"
            f"<p>Built by vmodtool from the scenario file {e(scenario.path.name if scenario.path else '')}.</p>"
            f"</body></html>")
