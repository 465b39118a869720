"""Loading the ``module`` and ``binding`` sections and ``map.from_module``
(``docs/scenario-format.md``, "Games played with any module"): the module
is opened (``--module`` or ``module.file``), its map read as the
scenario's, and every name a binding gives (unit types, sides, formations,
marker kinds, module maps and zones) checked with its line.

The functions take the problem collector of :mod:`vmodtool.scenario.collector`
(its ``err``/``get``/``ref`` helpers) so that every problem is located the
same way as the rest of the file's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from vmodtool.errors import VmodError
from vmodtool.scenario.binding import (
    Binding,
    FaceBinding,
    MarkerBinding,
    ModuleSource,
    Pattern,
    PatternError,
    PieceOverride,
    PieceSelector,
    SideBinding,
    StatusBinding,
    TerrainBinding,
    UnitBinding,
    built_module_binding,
)
from vmodtool.scenario.module_map import ModuleMap, ModuleMapError, find_map, module_map_grid

if TYPE_CHECKING:
    from vmodtool.scenario import model as M
    from vmodtool.scenario.collector import ProblemCollector
    from vmodtool.scenario.problems import Path
    from vmodtool.vassal.module import Module

__all__ = ["build_module_source", "open_module", "build_module_map", "build_binding", "check_box_places"]

_SELECTOR_KEYS = ("name", "prototype", "image", "palette", "slot")


def build_module_source(b: ProblemCollector) -> ModuleSource | None:
    p: Path = ("module",)
    if not isinstance(b.get(p), dict):
        return None
    sizes: dict[str, tuple[int, int]] = {}
    for name, value in b.get(p + ("board_sizes",), dict, {}).items():
        if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               and v > 0 for v in value)):
            from vmodtool.scenario import limits as L
            if all(b.within(p + ("board_sizes", name, i), v, L.MAX_MAP_PIXELS) for i, v in enumerate(value)):
                sizes[str(name)] = (value[0], value[1])
    aliases = tuple(dict.fromkeys(a for a in b.get(p + ("aliases",), list, []) if isinstance(a, str) and a))
    dice_reports = []
    for i, text in enumerate(b.get(p + ("dice_reports",), list, [])):
        if not isinstance(text, str) or not text:
            continue
        try:
            re.compile(text)
        except re.error as exc:
            b.err(p + ("dice_reports", i), f"not a regular expression: {exc}")
            continue
        dice_reports.append(text)
    return ModuleSource(b.text(p + ("file",)), b.text(p + ("name",)), sizes, aliases, tuple(dice_reports))


def open_module(b: ProblemCollector, source: ModuleSource | None, given: Module | str | os.PathLike[str] | None
                ) -> Module | None:
    """The module the scenario's map comes from: ``given`` (``--module``)
    first, else ``module.file`` relative to the scenario.  A problem at
    ``map.from_module`` (or ``module.file``) when there is none or it cannot
    be read."""
    from vmodtool.vassal.module import Module
    if isinstance(given, Module):
        return given
    where: Path = ("map", "from_module")
    if given is not None:
        target = FsPath(given)
    elif source is not None and source.file:
        where = ("module", "file")
        target = b.folder / source.file
    else:
        b.err(where, "the map is taken from the module, but no module is named: give module.file "
                     "(relative to this file) or --module")
        return None
    try:
        return Module.open(target)
    except OSError as exc:
        b.err(where, f"cannot read the module {os.fspath(target)}: {exc.strerror or exc}")
    except VmodError as exc:
        b.err(where, f"cannot read the module: {exc}")
    return None


def build_module_map(b: ProblemCollector, module: Module, source: ModuleSource | None,
                     board_sizes: Mapping[str, tuple[int, int]] | None) -> ModuleMap | None:
    p: Path = ("map", "from_module")
    value = b.get(p)
    if isinstance(value, str):
        map_name, board_name = value, None
    elif isinstance(value, dict) and isinstance(value.get("map"), str):
        map_name, board_name = value["map"], b.text(p + ("board",))
    else:
        return None          # the schema reports the shape
    given = dict(source.board_sizes) if source is not None else {}
    given.update(board_sizes or {})
    try:
        sizes, _ = module.board_sizes(given)
        entry = find_map(list(module.buildfile.maps()), map_name)
        return module_map_grid(entry, board_name, sizes, module.board_size_unknown)
    except ModuleMapError as exc:
        b.err(p, f"{exc} ({module.file})")
    except VmodError as exc:
        b.err(p, f"cannot read map {map_name!r} of the module: {exc}")
    return None


def _patterns(b: ProblemCollector, path: Path) -> tuple[Pattern, ...]:
    value = b.get(path)
    texts = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] \
        if isinstance(value, list) else []
    out = []
    for i, text in enumerate(texts):
        try:
            out.append(Pattern.parse(text))
        except PatternError as exc:
            b.err(path + ((i,) if isinstance(value, list) else ()), str(exc))
    return tuple(out)


def _selector(b: ProblemCollector, path: Path) -> PieceSelector | None:
    value = b.get(path)
    if not isinstance(value, dict) or not value:
        return None
    keys = {k: _patterns(b, path + (k,)) for k in _SELECTOR_KEYS if k in value}
    props = tuple((str(k), _patterns(b, path + ("property", k)))
                  for k in b.get(path + ("property",), dict, {}))
    return PieceSelector(name=keys.get("name", ()), prototype=keys.get("prototype", ()), properties=props,
                         image=keys.get("image", ()), palette=keys.get("palette", ()), slot=keys.get("slot", ()),
                         line=b.pos(path).line)


def build_binding(b: ProblemCollector, unit_types: Mapping[str, Any], sides: list[str], formations: list[str],
                  markers: Mapping[str, M.MarkerKind], counters: list[M.Counter],
                  hex_map: M.HexMap | None = None) -> Binding:
    """The scenario's binding; without a ``binding`` section, the one a
    module built by vmodtool implies.  ``hex_map``: the scenario's map (the
    terrain and hexside types ``binding.terrain`` names)."""
    layer_kinds = [k for k, m in markers.items() if m.representation == "layer"]
    p: Path = ("binding",)
    if not isinstance(b.get(p), dict):
        return built_module_binding(layer_kinds)
    side_entries = []
    for sp, _ in b.list_of(p + ("sides",)):
        side = b.ref(sp + ("side",), sides, "side")
        match = _selector(b, sp + ("match",))
        if side and match:
            side_entries.append(SideBinding(side, match))
    keys = _UnitKeys(b, unit_types, sides, formations)
    units = _unit_entries(b, p, keys, bool(counters))
    overrides = _overrides(b, p, keys)
    marker_entries = _marker_entries(b, p, markers)
    faces = None
    layer = b.text(p + ("faces", "layer"))
    if layer:
        faces = FaceBinding(layer)
    status = _status_entries(b, p, markers)
    ignore = [s for ip, _ in b.list_of(p + ("ignore",)) if (s := _selector(b, ip)) is not None]
    return Binding(tuple(side_entries), tuple(units), overrides, tuple(marker_entries), faces, tuple(status),
                   tuple(ignore), _terrain_entries(b, p + ("terrain",), hex_map))


class _UnitKeys:
    """The unit type, side and formation an entry names (each checked)."""

    def __init__(self, b: ProblemCollector, unit_types: Mapping[str, Any], sides: list[str],
                 formations: list[str]) -> None:
        self.b, self.unit_types, self.sides, self.formations = b, unit_types, sides, formations

    def __call__(self, path: Path) -> tuple[str | None, str | None, str | None]:
        b = self.b
        return (b.ref(path + ("type",), self.unit_types, "unit type"), b.ref(path + ("side",), self.sides, "side"),
                b.ref(path + ("formation",), self.formations, "formation"))


def _unit_entries(b: ProblemCollector, p: Path, unit_keys: _UnitKeys, has_counters: bool) -> list[UnitBinding]:
    units = []
    for up, entry in b.list_of(p + ("units",)):
        match = _selector(b, up + ("match",))
        if match is None or not isinstance(entry, dict):
            continue
        utype, side, formation = unit_keys(up)
        counter_from = b.text(up + ("counter_from",))
        if counter_from is None and utype is None:
            if "type" not in entry:
                b.err(up, "a units entry needs 'type' (a unit type) or 'counter_from' (the property naming "
                          "a counter)")
            continue
        if counter_from is not None and "type" in entry:
            b.err(up + ("type",), "'type' and 'counter_from' exclude each other: a counter has its own type")
            continue
        if counter_from is not None and not has_counters:
            b.err(up + ("counter_from",), "counter_from names counters, but the scenario has no counters")
        name_from = b.text(up + ("name_from",))
        if name_from is not None and counter_from is not None:
            b.err(up + ("name_from",), "'name_from' goes with 'type': a counter has its own name")
            continue
        units.append(UnitBinding(match, utype, side, formation, counter_from, b.pos(up).line, name_from))
    return units


def _overrides(b: ProblemCollector, p: Path, unit_keys: _UnitKeys) -> dict[str, PieceOverride]:
    overrides: dict[str, PieceOverride] = {}
    for op, entry in b.list_of(p + ("overrides",)):
        piece = b.text(op + ("piece",))
        if not piece or not isinstance(entry, dict):
            continue
        utype, side, formation = unit_keys(op)
        if piece in overrides:
            b.err(op + ("piece",), f"piece {piece!r} is overridden twice (first at line {overrides[piece].line})")
            continue
        overrides[piece] = PieceOverride(piece, utype, side, formation, b.pos(op).line)
    return overrides


def _marker_entries(b: ProblemCollector, p: Path, markers: Mapping[str, M.MarkerKind]) -> list[MarkerBinding]:
    marker_entries = []
    for mp, entry in b.list_of(p + ("markers",)):
        match = _selector(b, mp + ("match",))
        if match is None or not isinstance(entry, dict):
            continue
        kind = b.ref(mp + ("kind",), markers, "marker kind")
        kind_from = b.text(mp + ("kind_from",))
        if (kind is None) == (kind_from is None):
            if "kind" not in entry or kind_from is not None:
                b.err(mp, "a markers entry needs exactly one of 'kind' (a marker kind) and 'kind_from' "
                          "(the property naming it)")
            continue
        before = b.get(mp + ("before_units",), bool, False)
        marker_entries.append(MarkerBinding(match, kind, kind_from, b.pos(mp).line, before))
    return marker_entries


def _status_entries(b: ProblemCollector, p: Path, markers: Mapping[str, M.MarkerKind]) -> list[StatusBinding]:
    status = []
    for sp, entry in b.list_of(p + ("status",)):
        if not isinstance(entry, dict):
            continue
        kind = b.ref(sp + ("marker",), markers, "marker kind")
        if kind is not None and markers[kind].representation != "layer":
            b.err(sp + ("marker",), f"marker kind {kind!r} is a counter (representation: counter); a unit's "
                                    "status is a marker kind with representation: layer")
            kind = None
        slayer, prop = b.text(sp + ("layer",)), b.text(sp + ("property",))
        if (slayer is None) == (prop is None):
            b.err(sp, "a status entry needs exactly one of 'layer' (a layer that is on) and 'property' "
                      "(a property with 'value')")
            continue
        if prop is not None and "value" not in entry:
            b.err(sp, f"a status from property {prop!r} needs 'value' (the values that mean the status)")
            continue
        if slayer is not None and "value" in entry:
            b.err(sp + ("value",), "'value' goes with 'property'; a layer's status takes 'level' (level names)")
            continue
        if kind is not None:
            status.append(StatusBinding(kind, slayer, _patterns(b, sp + ("level",)), prop,
                                        _patterns(b, sp + ("value",))))
    return status


def _terrain_entries(b: ProblemCollector, p: Path, hex_map: M.HexMap | None) -> tuple[TerrainBinding, ...]:
    """``binding.terrain``: pieces that are the terrain of their hex (a
    terrain type of ``map.terrain_types``) or a hexside feature (a type of
    ``map.hexside_types``)."""
    terrain_types = list(hex_map.terrain_types) if hex_map is not None else []
    hexside_types = list(hex_map.hexside_types) if hex_map is not None else []
    out = []
    for tp, entry in b.list_of(p):
        match = _selector(b, tp + ("match",))
        if match is None or not isinstance(entry, dict):
            continue
        if ("terrain" in entry) == ("hexside" in entry):
            b.err(tp, "a terrain entry needs exactly one of 'terrain' (a terrain type of map.terrain_types) "
                      "and 'hexside' (a hexside type of map.hexside_types)")
            continue
        terrain = b.ref(tp + ("terrain",), terrain_types, "terrain type")
        hexside = b.ref(tp + ("hexside",), hexside_types, "hexside type")
        if terrain is not None or hexside is not None:
            out.append(TerrainBinding(match, terrain, hexside, b.pos(tp).line))
    return tuple(out)


def check_box_places(b: ProblemCollector, module: Module | None, boxes: list[M.Box]) -> list[M.Box]:
    """Boxes with ``module: {map, zone}``: where they are in the module,
    whose map and zone must exist."""
    from dataclasses import replace

    from vmodtool.vassal.grid_board import ZONE_TAG
    maps = {m.name: m for m in module.buildfile.maps()} if module is not None else {}
    places: dict[str, tuple[str, str | None]] = {}
    for bp, _ in b.list_of(("boxes",)):
        mp: Path = bp + ("module",)
        map_name, box_id = b.text(mp + ("map",)), b.text(bp + ("id",))
        if map_name is None or box_id is None:
            continue
        zone = b.text(mp + ("zone",))
        if module is None:
            b.err(mp, "a box in the module needs the module: give module.file (or --module)")
            continue
        if map_name not in maps:
            listed = ", ".join(repr(n) for n in list(maps)[:12])
            b.err(mp + ("map",), f"the module has no map {map_name!r} (its maps: {listed})")
            continue
        if zone is not None:
            zones = {z.get("name") for board in maps[map_name].boards for z in board.element.iter(ZONE_TAG)}
            if zone not in zones:
                listed = ", ".join(repr(z) for z in sorted(n for n in zones if n)[:12]) or "none"
                b.err(mp + ("zone",), f"map {map_name!r} of the module has no zone {zone!r} (its zones: {listed})")
                continue
        places[box_id] = (map_name, zone)
    return [replace(box, module_map=places[box.id][0], module_zone=places[box.id][1]) if box.id in places else box
            for box in boxes]
