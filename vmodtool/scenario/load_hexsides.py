"""Loading the map's hexsides: ``map.hexside_types`` and ``map.hexsides``
(pairs of adjacent hexes, a path of hexes, or the hexes on a river's two
banks), with a warning when one river or road falls into pieces that do not
meet."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.mapgrid import MapGrid
from vmodtool.scenario.problems import Path

__all__ = ["build_hexside_types", "build_hexsides", "hexside_pieces"]


def build_hexside_types(c: ProblemCollector, p: Path) -> dict[str, M.HexsideType]:
    htypes: dict[str, M.HexsideType] = {}
    for hid, hdef in c.get(p + ("hexside_types",), dict, {}).items():
        hp: Path = p + ("hexside_types", hid)
        if isinstance(hdef, dict):
            symbol = c.text(hp + ("symbol",))
            htypes[str(hid)] = M.HexsideType(str(hid), c.text(hp + ("name",), str(hid)) or str(hid),
                                             c.text(hp + ("stroke",)),
                                             c.get(hp + ("width",), (int, float)),
                                             c.text(hp + ("drawn_as",), "hexside") or "hexside",
                                             symbol,
                                             c.get(hp + ("continuous",), bool, symbol is None))
    return htypes


def build_hexsides(c: ProblemCollector, p: Path, grid: MapGrid, hexes: Mapping[str, Any],
                   htypes: Mapping[str, M.HexsideType]) -> list[M.Hexside]:
    hexsides: list[M.Hexside] = []
    for hp, entry in c.list_of(p + ("hexsides",)):
        if not isinstance(entry, dict):
            continue
        htype = c.ref(hp + ("type",), htypes, "hexside type")
        entry_sides: list[tuple[str, str]] = []
        found = [_hexside(c, ap, bp, grid, hexes) for ap, bp in _pairs(c, hp, entry)]
        if "banks" in entry:
            found += _bank_sides(c, hp + ("banks",), grid, hexes)
        for side in found:
            if side is not None and htype:
                hexsides.append(M.Hexside(htype, *side))
                entry_sides.append(side)
        if htype and len(entry_sides) > 1 and htypes[htype].continuous:
            check_continuous(c, hp, htypes[htype], entry_sides, grid)
    return hexsides


def _pairs(c: ProblemCollector, hp: Path, entry: Mapping[str, Any]) -> list[tuple[Path, Path]]:
    """The paths of each pair of hexes one hexsides entry joins."""
    pairs: list[tuple[Path, Path]] = []
    for ip, pair in c.list_of(hp + ("between",)):
        if isinstance(pair, list) and len(pair) == 2:
            pairs.append((ip + (0,), ip + (1,)))
        elif pair is not None:
            c.err(ip, "a hexside is a pair of two adjacent hexes, e.g. [\"0601\", \"0701\"]")
    path_items = c.list_of(hp + ("path",))
    for (ap, _), (bp, _) in pairwise(path_items):
        pairs.append((ap, bp))
    if "between" not in entry and "path" not in entry and "banks" not in entry:
        c.err(hp, "a hexside entry needs 'between' (pairs of hexes), 'path' (a line of hexes) or "
                  "'banks' (the hexes on each side of a river)")
    return pairs


def _bank_sides(c: ProblemCollector, bp: Path, grid: MapGrid, hexes: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A river given by its ``banks``: the hexes on one side and the hexes on
    the other, each in any order; the river is every side between a hex of
    one bank and a hex of the other.  A hex on both banks, or one that
    shares no side with a hex across the river, is an error at that hex."""
    banks = c.get(bp, list)
    if not isinstance(banks, list) or len(banks) != 2 or not all(isinstance(b, list) for b in banks):
        return []                   # the schema says what 'banks' takes
    sides: list[list[tuple[Path, str]]] = [[], []]
    for k in (0, 1):
        for ip, _ in c.list_of(bp + (k,)):
            label = c.hex_id(ip, hexes)
            if label is not None:
                sides[k].append((ip, label))
    across = [{label for _, label in bank} for bank in sides]
    out: list[tuple[str, str]] = []
    for k in (0, 1):
        for ip, label in sides[k]:
            if label in across[1 - k]:
                if k == 1:
                    c.err(ip, f"hex {label} is on both banks of the river; a river that loops back past "
                              "a hex is two entries")
                continue
            facing = [n for n in grid.neighbours(label) if n in across[1 - k]]
            if not facing:
                c.err(ip, f"hex {label} shares no side with a hex of the other bank, so no stretch of the "
                          f"river runs along it; list only hexes with a whole side on the river (its "
                          f"neighbours are {', '.join(grid.neighbours(label))})")
            if k == 0:
                out += [(min(label, n), max(label, n)) for n in facing]
    return out


def _hexside(c: ProblemCollector, ap: Path, bp: Path, grid: MapGrid, hexes: Mapping[str, Any]
             ) -> tuple[str, str] | None:
    """The hexside between the hexes at ``ap`` and ``bp`` (in label order),
    when they are two adjacent hexes of the map."""
    a = c.hex_id(ap, hexes)
    b = c.hex_id(bp, hexes)
    if a is None or b is None:
        return None
    if a == b:
        c.err(bp, f"a hexside joins two different hexes; both are {a!r}")
        return None
    if not grid.adjacent(a, b):
        c.err(bp, f"hexes {a} and {b} are not adjacent (they are {grid.distance(a, b)} "
                  f"hexes apart), so they share no hexside; the neighbours of {a} are "
                  f"{', '.join(grid.neighbours(a))}")
        return None
    x, y = sorted((a, b))
    return x, y


def check_continuous(c: ProblemCollector, hp: Path, htype: M.HexsideType, sides: list[tuple[str, str]],
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
    c.err(hp, f"{htype.name} is in {len(pieces)} pieces that do not meet: {shown} ({how})",
          severity="warning")


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
