"""Loading the map's terrain: ``map.terrain_types`` (with their one-character
codes) and ``map.terrain`` (a default, rows of codes, hexes by label)."""

from __future__ import annotations

from collections.abc import Mapping

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.mapgrid import GridSpec, MapGrid
from vmodtool.scenario.problems import Path
from vmodtool.vassal.grid_numbering import format_index

__all__ = ["build_terrain_types", "build_terrain", "build_derived"]


def build_terrain_types(c: ProblemCollector, p: Path) -> tuple[dict[str, M.TerrainType], dict[str, str]]:
    """The terrain types by id, and their codes (code → id)."""
    ttypes: dict[str, M.TerrainType] = {}
    codes: dict[str, str] = {}
    for tid, tdef in c.get(p + ("terrain_types",), dict, {}).items():
        tp: Path = p + ("terrain_types", tid)
        if not isinstance(tdef, dict):
            continue
        code = c.text(tp + ("code",))
        if code is not None:
            if len(code) != 1 or code.isspace():
                c.err(tp + ("code",), f"a terrain code is one non-space character, found {code!r}")
            elif code in codes:
                c.err(tp + ("code",), f"terrain code {code!r} is already used by {codes[code]!r}")
            else:
                codes[code] = str(tid)
        elev = c.get(tp + ("elevation",), int)
        ttypes[str(tid)] = M.TerrainType(str(tid), code or "", c.text(tp + ("name",), str(tid)) or str(tid),
                                        c.text(tp + ("fill",)), elev, c.text(tp + ("symbol",)))
    if not ttypes:
        c.err(p + ("terrain_types",), "define at least one terrain type (e.g. clear)")
    return ttypes, codes


def build_terrain(c: ProblemCollector, p: Path, spec: GridSpec | None, grid: MapGrid, hexes: Mapping[str, object],
                  ttypes: Mapping[str, M.TerrainType], codes: Mapping[str, str]) -> dict[str, str]:
    """The terrain type of every hex: ``terrain.default``, then the rows
    (of a grid of this file), then ``terrain.hexes``."""
    tp = p + ("terrain",)
    default = (c.ref(tp + ("default",), ttypes, "terrain type")
               if c.get(tp + ("default",)) is not None else None)
    if default is None:
        default = next(iter(ttypes), "clear")
    terrain = {h: default for h in hexes}
    if spec is not None:
        build_terrain_rows(c, tp, spec, grid, codes, terrain)
    for hex_key, tname in c.get(tp + ("hexes",), dict, {}).items():
        kp = tp + ("hexes", hex_key)
        label = _quoted_key(c, kp, hex_key, "hex id")
        if label not in hexes:
            c.err(kp, f"hex {label!r} is not on the map" + c.hex_hint(label, hexes))
            continue
        if c.ref(kp, ttypes, "terrain type"):
            terrain[label] = tname
    return terrain


def build_derived(c: ProblemCollector, p: Path, hexes: Mapping[str, object]) -> M.DerivedTerrain | None:
    """``map.terrain.derived`` (None: the terrain is typed by hand): what
    the terrain was read from, and the hexes read with low confidence
    (each a hex of the map)."""
    dp = p + ("terrain", "derived")
    if c.get(dp) is None:
        return None
    if c.get(dp, dict) is None:
        return M.DerivedTerrain()           # (the schema reports the type)
    unsure = set()
    for hp, _ in c.list_of(dp + ("unsure",)):
        label = c.hex_id(hp, hexes)
        if label is not None:
            unsure.add(label)
    return M.DerivedTerrain(c.text(dp + ("source",), "") or "", frozenset(unsure))


def _quoted_key(c: ProblemCollector, kp: Path, key: object, what: str) -> str:
    """A key that labels a hex or row: a plain number YAML read as one is
    reported (it must be quoted) and taken as written."""
    label = str(key)
    kinfo = c.doc.key_info.get(kp)
    if kinfo is not None and kinfo.plain and kinfo.tag in ("int", "float"):
        c.err(kp, f"{what} {kinfo.raw} must be in quotes (\"{kinfo.raw}\"); unquoted, "
                  f"YAML reads it as the number {key}")
        label = kinfo.raw or label
    return label


def build_terrain_rows(c: ProblemCollector, tp: Path, spec: GridSpec, grid: MapGrid,
                       codes: Mapping[str, str], terrain: dict[str, str]) -> None:
    """``terrain.rows``: a text of terrain codes per printed row, left to right."""
    rows = c.get(tp + ("rows",), dict, {})
    if not rows:
        return
    # the labels of each printed row, left to right
    by_row: dict[str, list[str]] = {}
    for label, (raw_c, raw_r) in grid.hexes.items():
        row_key = _row_label(spec, raw_c, raw_r, grid)
        by_row.setdefault(row_key, []).append(label)
    for key, line in rows.items():
        kp = tp + ("rows", key)
        row_label = _quoted_key(c, kp, key, "row label")
        if row_label not in by_row:
            c.err(kp, f"there is no row {row_label!r} on the map; rows are "
                      f"{', '.join(sorted(by_row)[:3])} … {sorted(by_row)[-1] if by_row else ''}")
            continue
        if not isinstance(line, str):
            c.err(kp, "a terrain row is a text of terrain codes separated by spaces, e.g. \". w w h\"")
            continue
        cells = line.split()
        labels = by_row[row_label]
        if len(cells) != len(labels):
            c.err(kp, f"row {row_label} has {len(labels)} hexes ({labels[0]} … {labels[-1]}) but "
                      f"{len(cells)} terrain codes are given")
        for label, code in zip(labels, cells, strict=False):  # a count mismatch is reported above
            if code not in codes:
                known = ", ".join(f"{k} ({t})" for k, t in codes.items())
                c.err(kp, f"unknown terrain code {code!r} for hex {label}; the codes are: {known}")
            else:
                terrain[label] = codes[code]


def _row_label(spec: GridSpec, raw_c: int, raw_r: int, grid: MapGrid) -> str:
    """The row part of a label (the text a designer writes as a key of
    ``terrain.rows``): the V axis of flat-top maps, the H axis of
    pointy-top ones (``docs/vassal-format.md`` §5.5 (c))."""
    attrs = grid.numbering_attributes
    h, v = grid.grid.logical_column_row(*grid.grid.raw_center(raw_c, raw_r))
    axis, value = ("h", h) if spec.sideways else ("v", v)
    return format_index(value + int(attrs[f"{axis}Off"]), attrs[f"{axis}Type"],
                        int(attrs[f"{axis}Leading"]))
