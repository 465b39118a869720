"""A *proposed* adjacency of an area map's spaces from their positions
(issue 42 item 3): what ``vmodtool import`` writes as
``map.connections`` with ``connections_proposed: true`` for the user to
check against the printed map (``vmodtool board --spaces`` draws it).

The proposal is the Gabriel graph of the spaces of each zone (two spaces
are joined when no other space lies in the circle whose diameter is the
line between them: a subgraph of the Delaunay triangulation, with no
crossing lines), cut at a distance: no longer than ``cut`` times the
median distance from a space to its nearest neighbour, so that spaces far
apart across a sea or a box border are not joined.  Spaces of different
zones (the map and its reserve boxes) are never joined, nor are spaces
without a point.  Pure Python; deterministic (sorted by name)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from statistics import median

from vmodtool.scenario.locations import Space

__all__ = ["propose_connections", "DEFAULT_CUT"]

#: the longest proposed line, in median nearest-neighbour distances
DEFAULT_CUT = 2.5


def propose_connections(spaces: Iterable[Space], cut: float = DEFAULT_CUT) -> list[tuple[str, str]]:
    """Pairs (a, b), a < b, of spaces proposed as connected."""
    groups: dict[str | None, list[Space]] = {}
    for space in spaces:
        if space.point is not None and space.source == "region":
            groups.setdefault(space.zone, []).append(space)
    out: list[tuple[str, str]] = []
    for _, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        out.extend(_gabriel(sorted(members, key=lambda s: s.name), cut))
    return sorted(set(out))


def _gabriel(members: list[Space], cut: float) -> list[tuple[str, str]]:
    n = len(members)
    if n < 2:
        return []
    pts = [(float(s.point[0]), float(s.point[1])) for s in members if s.point is not None]
    nearest = []
    for i, (x, y) in enumerate(pts):
        nearest.append(min(math.hypot(x - u, y - v) for j, (u, v) in enumerate(pts) if j != i))
    limit = cut * median(nearest)
    # candidates: pairs within the cut, then no third point inside the
    # circle on the pair (only points within the cut of either end can be)
    near: list[list[int]] = [[j for j in range(n) if j != i and math.dist(pts[i], pts[j]) <= limit]
                             for i in range(n)]
    out: list[tuple[str, str]] = []
    for i in range(n):
        for j in near[i]:
            if j <= i:
                continue
            (ax, ay), (bx, by) = pts[i], pts[j]
            mx, my = (ax + bx) / 2, (ay + by) / 2
            r2 = ((ax - bx) ** 2 + (ay - by) ** 2) / 4
            blocked = any((pts[k][0] - mx) ** 2 + (pts[k][1] - my) ** 2 < r2
                          for k in near[i] if k != j)
            if not blocked:
                a, b = members[i].name, members[j].name
                out.append((a, b) if a < b else (b, a))
    return out
