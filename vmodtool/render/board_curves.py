"""Rivers and roads as smooth lines: the hexsides of one feature joined into
lines, and each line drawn as a curve through the midpoints of its hexsides.

A river along hexsides is a chain of hex corners ``v0 … vn`` (each hexside
one step); a road along hex centres a chain of centres ``c0 … cn``.  Either
way the curve is made of quadratic Béziers whose on-curve points are the
midpoints of the steps and whose control points are the chain's inner
points, flattened to a polyline for Pillow:

```
 v0 ── m1 ╮            a river: straight from v0 to the midpoint m1 of its
           v1 (control) first hexside, then a Bézier m1 → m2 about the
          ╭ m2 …        corner v1, …, straight from mn to vn
```

So the curve passes through the midpoint of every hexside the data names,
along that side there (a bridge across the side's middle stays square to
the river, and a road crosses each hexside at its middle, where the bridge
is), and each Bézier lies in the triangle of its three points (a Bézier's
convex hull): for a river, inside the hex on the inner side of the corner;
for a road, inside the hex it turns in.  It never strays into a hex the
feature does not touch.  Where lines meet (a junction) or a line ends, the
curve ends at the corner or centre itself.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["chains", "smooth_chain", "CURVE_STEPS"]

Point = tuple[float, float]
K = TypeVar("K", bound=Hashable)

#: the pieces each Bézier is flattened into (a hexside's bend is about a
#: hex across: eight pieces keep it round at print scale)
CURVE_STEPS = 8


def chains(edges: Sequence[tuple[K, K]]) -> list[list[K]]:
    """The edges of a graph as lines of nodes: each line runs between two
    nodes that are not simply on the way (an end or a junction: degree not
    2) or round a loop; every edge is in exactly one line, in the order the
    edges were given as far as that goes."""
    adj: dict[K, list[int]] = {}
    for i, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append(i)
        adj.setdefault(b, []).append(i)
    used = [False] * len(edges)
    out: list[list[K]] = []

    def walk(start: K, first: int) -> list[K]:
        line = [start]
        node, edge = start, first
        while True:
            used[edge] = True
            a, b = edges[edge]
            node = b if a == node else a
            line.append(node)
            if len(adj[node]) != 2:
                return line
            nxt = [e for e in adj[node] if not used[e]]
            if not nxt:
                return line            # round a loop, back at its start
            edge = nxt[0]

    for i, (a, _b) in enumerate(edges):     # lines from ends and junctions first
        if used[i]:
            continue
        for start in (a, edges[i][1]):
            if len(adj[start]) != 2:
                out.append(walk(start, i))
                break
    for i, (a, _b) in enumerate(edges):     # then what is left: loops
        if not used[i]:
            out.append(walk(a, i))
    return out


def _bezier(p0: Point, c: Point, p1: Point, steps: int) -> list[Point]:
    """The quadratic Bézier p0 → p1 about ``c``, as ``steps`` pieces for a
    turn of 60° and more for a sharper one (p0 left out)."""
    u0, u1 = (c[0] - p0[0], c[1] - p0[1]), (p1[0] - c[0], p1[1] - c[1])
    turn = abs(math.atan2(u0[0] * u1[1] - u0[1] * u1[0], u0[0] * u1[0] + u0[1] * u1[1]))
    steps = max(2, math.ceil(steps * turn / (math.pi / 3)))
    out = []
    for k in range(1, steps + 1):
        t = k / steps
        u = 1.0 - t
        out.append((u * u * p0[0] + 2 * u * t * c[0] + t * t * p1[0],
                    u * u * p0[1] + 2 * u * t * c[1] + t * t * p1[1]))
    return out


def smooth_chain(points: Sequence[Point], *, closed: bool = False, steps: int = CURVE_STEPS) -> list[Point]:
    """The curve through the midpoints of the steps of ``points`` (hex
    corners or centres), each inner point a Bézier's control point; from
    the first point to the last (``closed``: round the loop, the first
    point given again at the end).  Two points are one straight step."""
    pts = list(points)
    if closed and len(pts) > 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    n = len(pts)
    if n < 2:
        return pts
    if n == 2 and not closed:
        return pts
    mids = [((pts[i][0] + pts[(i + 1) % n][0]) / 2, (pts[i][1] + pts[(i + 1) % n][1]) / 2)
            for i in range(n if closed else n - 1)]
    if closed:
        out = [mids[-1]]
        for i in range(n):
            out += _bezier(mids[i - 1], pts[i], mids[i], steps)
        return out
    out = [pts[0], mids[0]]
    for i in range(1, n - 1):
        out += _bezier(mids[i - 1], pts[i], mids[i], steps)
    out.append(pts[-1])
    return out
