"""Hexagon geometry of a board, built on VASSAL's own hex centres.

VASSAL snaps a piece to ``hexPointCenterFromRawIndex``: the exact lattice
point ``(x0 + dx·col, y0 + dy·row [+ dy/2])`` *truncated to whole pixels*.
The board must put every hex exactly there, so each filled hexagon
(``polygons``) is the ideal hexagon laid around that integer centre: its
centre *is* VASSAL's centre.  Because truncation moves neighbouring centres
by different fractions of a pixel, such hexagons overlap or miss each other
by up to a pixel along their sides; the grid lines hide that: each corner of
the line work (``outlines``) is the mean of the estimates of the hexes of
the map that meet there (estimate = that hex's centre + the ideal corner
offset), so lines are shared, join exactly, and lie within a pixel of both
hexagons they separate.

A hexside between hexes ``a`` and ``b`` is the pair of corners the two
hexagons share; for features drawn on it its end points are the mean of
``a``'s and ``b``'s estimates only, so its midpoint is exactly halfway
between the two centres.

Everything works in VASSAL's rotated frame ``(u, v)`` — ``(x, y)``, or
``(y, x)`` for sideways (pointy-top) grids — where hexes are flat-topped
with corners at ``(±2dx/3, 0)`` and ``(±dx/3, ±dy/2)``.  Corners are keyed by
integers ``(U, V)`` in units of ``dx/3`` and ``dy/2``: a hex of raw column
``c``, row ``r`` has its centre at ``(3c, 2r + c mod 2)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from vmodtool.vassal.grid import HexGrid

__all__ = ["HexGeometry", "CORNER_OFFSETS", "Point"]

Point = tuple[float, float]
Key = tuple[int, int]

#: corner offsets in (dx/3, dy/2) units, going round the hexagon
CORNER_OFFSETS: tuple[Key, ...] = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))
# the six neighbours of a hex in corner-key units of its centre
_NEIGHBOUR_OFFSETS: tuple[Key, ...] = ((0, -2), (3, -1), (3, 1), (0, 2), (-3, 1), (-3, -1))


def _centre_key(col: int, row: int) -> Key:
    return 3 * col, 2 * row + (col % 2)


def _raw_of_key(key: Key) -> tuple[int, int]:
    col = key[0] // 3
    return col, (key[1] - col % 2) // 2


@dataclass
class HexGeometry:
    """Hexagons of the hexes ``cells`` (label → raw (col, row)) of ``grid``.

    Attributes (board pixels, board frame ``(x, y)``): ``centres`` label →
    VASSAL's integer centre; ``polygons`` label → the ideal hexagon around
    it; ``outlines`` label → the six corners of the shared line work;
    ``edges`` frozenset of two labels → the shared side's end points
    (from the two hexes' estimates); ``boundary`` the sides of the map edge,
    as ``(label, (p, q))``; ``neighbours`` label → labels of adjacent hexes
    on the map.
    """

    grid: HexGrid
    cells: Mapping[str, tuple[int, int]]
    centres: dict[str, tuple[int, int]] = field(default_factory=dict)
    polygons: dict[str, list[Point]] = field(default_factory=dict)
    outlines: dict[str, list[Point]] = field(default_factory=dict)
    neighbours: dict[str, list[str]] = field(default_factory=dict)
    boundary: list[tuple[str, tuple[Point, Point]]] = field(default_factory=list)
    _keys: dict[str, Key] = field(default_factory=dict)
    _by_key: dict[Key, str] = field(default_factory=dict)
    _uv: dict[Key, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def build(cls, grid: HexGrid, cells: Mapping[str, tuple[int, int]]) -> HexGeometry:
        geo = cls(grid, dict(cells))
        geo._build()
        return geo

    @classmethod
    def of_hexes(cls, grid: HexGrid, labels: Iterable[str]) -> HexGeometry:
        """Geometry of the named hexes of ``grid`` (raw indices from the names)."""
        return cls.build(grid, {label: grid.raw_index_of(label) for label in labels})

    # -- frames ----------------------------------------------------------

    @property
    def sideways(self) -> bool:
        return self.grid.sideways

    def _xy(self, u: float, v: float) -> Point:
        return (v, u) if self.grid.sideways else (u, v)

    def _uv_centre(self, col: int, row: int) -> tuple[int, int]:
        x, y = self.grid.raw_center(col, row)
        return (y, x) if self.grid.sideways else (x, y)

    def _estimate(self, centre_key: Key, corner: Key) -> Point:
        """A corner's position as the hex with ``centre_key`` places it."""
        found = self._uv.get(centre_key)
        if found is None:          # each hex's centre asked for a dozen times
            found = self._uv[centre_key] = self._uv_centre(*_raw_of_key(centre_key))
        cu, cv = found
        du, dv = corner[0] - centre_key[0], corner[1] - centre_key[1]
        return cu + du * self.grid.dx / 3.0, cv + dv * self.grid.dy / 2.0

    def _corner(self, corner: Key, owners: Iterable[Key]) -> Point:
        us, vs, n = 0.0, 0.0, 0
        for owner in owners:
            u, v = self._estimate(owner, corner)
            us += u
            vs += v
            n += 1
        return self._xy(us / n, vs / n)

    @staticmethod
    def _owners(corner: Key) -> list[Key]:
        """The three hex centres (keys) that meet at a corner."""
        out = []
        for du, dv in CORNER_OFFSETS:
            cu, cv = corner[0] - du, corner[1] - dv
            if cu % 3 == 0 and (cv - (cu // 3) % 2) % 2 == 0:
                out.append((cu, cv))
        return out

    # -- building --------------------------------------------------------

    def _build(self) -> None:
        for label, (col, row) in self.cells.items():
            key = _centre_key(col, row)
            self._keys[label] = key
            self._by_key[key] = label
            self.centres[label] = self.grid.raw_center(col, row)
        corner_cache: dict[Key, Point] = {}
        for label, key in self._keys.items():
            outline, ideal = [], []
            for du, dv in CORNER_OFFSETS:
                corner = (key[0] + du, key[1] + dv)
                point = corner_cache.get(corner)
                if point is None:
                    owners = [k for k in self._owners(corner) if k in self._by_key]
                    point = corner_cache[corner] = self._corner(corner, owners)
                outline.append(point)
                ideal.append(self._xy(*self._estimate(key, corner)))
            self.outlines[label] = outline
            self.polygons[label] = ideal
            near = []
            for i, (du, dv) in enumerate(_NEIGHBOUR_OFFSETS):
                other = self._by_key.get((key[0] + du, key[1] + dv))
                if other is not None:
                    near.append(other)
                else:
                    self.boundary.append((label, self._side(outline, i)))
            self.neighbours[label] = near

    @staticmethod
    def _side(poly: list[Point], neighbour_index: int) -> tuple[Point, Point]:
        # neighbour i (N, NE, SE, S, SW, NW in the uv frame) lies across the
        # side between corners (4, 5), (5, 0), (0, 1), (1, 2), (2, 3), (3, 4)
        a = (neighbour_index + 4) % 6
        return poly[a], poly[(a + 1) % 6]

    # -- queries ---------------------------------------------------------

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.neighbours.get(a, ())

    def shared_corners(self, a: str, b: str) -> tuple[Point, Point]:
        """The end points of the side between adjacent hexes ``a`` and
        ``b``: the two corners both hexagons have, each the mean of the two
        hexes' own estimates."""
        ka, kb = self._keys[a], self._keys[b]
        p, q = (self._corner(c, (ka, kb)) for c in self.side_corner_keys(a, b))
        return p, q

    def side_corner_keys(self, a: str, b: str) -> tuple[Key, Key]:
        """The keys of the two corners of the side between adjacent hexes
        ``a`` and ``b``, in the order :meth:`shared_corners` gives their
        points: the same corner has the same key from every side that
        ends there (a river's hexsides joined into one line)."""
        ka, kb = self._keys[a], self._keys[b]
        corners_a = {(ka[0] + du, ka[1] + dv) for du, dv in CORNER_OFFSETS}
        shared = [(kb[0] + du, kb[1] + dv) for du, dv in CORNER_OFFSETS
                  if (kb[0] + du, kb[1] + dv) in corners_a]
        if len(shared) != 2:
            raise ValueError(f"hexes {a} and {b} are not adjacent: they share no side")
        return shared[0], shared[1]

    def sides(self) -> dict[frozenset[str], tuple[Point, Point]]:
        """Every side between two hexes of the map (for grid lines)."""
        out: dict[frozenset[str], tuple[Point, Point]] = {}
        for label in self.neighbours:
            poly = self.outlines[label]
            key = self._keys[label]
            for i, (du, dv) in enumerate(_NEIGHBOUR_OFFSETS):
                other = self._by_key.get((key[0] + du, key[1] + dv))
                if other is not None and label < other:
                    out[frozenset((label, other))] = self._side(poly, i)
        return out

    def radius(self) -> float:
        """Centre-to-corner distance along the flat axis (2dx/3)."""
        return 2.0 * abs(self.grid.dx) / 3.0

    def across_flats(self) -> float:
        return abs(self.grid.dy)

    def bounds(self) -> tuple[float, float, float, float]:
        xs = [p[0] for poly in self.polygons.values() for p in poly]
        ys = [p[1] for poly in self.polygons.values() for p in poly]
        return min(xs), min(ys), max(xs), max(ys)

    def boundary_loops(self) -> list[list[Point]]:
        """The map edge as closed polylines (sides chained end to end)."""
        segments = [seg for _, seg in self.boundary]
        def rnd(p: Point) -> tuple[int, int]:
            return round(p[0] * 64), round(p[1] * 64)
        starts: dict[tuple[int, int], list[int]] = {}
        for i, (p, _q) in enumerate(segments):
            starts.setdefault(rnd(p), []).append(i)
        used = [False] * len(segments)
        loops: list[list[Point]] = []
        for i in range(len(segments)):
            if used[i]:
                continue
            loop = [segments[i][0]]
            j: int | None = i
            while j is not None and not used[j]:
                used[j] = True
                p, q = segments[j]
                loop.append(q)
                j = next((k for k in starts.get(rnd(q), []) if not used[k]), None)
            loops.append(loop)
        return loops
