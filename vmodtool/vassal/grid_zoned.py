"""VASSAL's ``ZonedGrid`` and ``Zone`` (``docs/vassal-format.md`` §2.4.7, §5.1).

A ZonedGrid holds polygon zones (in document order) in front of an optional
background grid.  Point → name, snapping and name → point dispatch to the
first zone containing the point exactly as VASSAL 3.7.26 does; a zone's own
grid uses the same board-local coordinates, with the zone polygon's bounding
box as its container size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from vmodtool.vassal.grid_common import (
    JavaPolygon,
    LocationError,
    MapGrid,
    Point,
    compile_location_format,
    format_tokens,
)

__all__ = ["Zone", "ZonedGrid"]

# Java's "." in a regex does not match line terminators
_JAVA_ANY = "([^\n\r\u0085\u2028\u2029]*)"


class Zone:
    """A named polygon of a :class:`ZonedGrid`.

    ``location_format`` (default ``$name$``) may use ``$name$`` and
    ``$gridLocation$``; ``use_parent_grid`` makes the zone use the
    ZonedGrid's background grid instead of its own ``grid``.
    """

    COMPONENT = "Zone"

    def __init__(self, name: str = "", path: str = "", *,
                 location_format: str = "$name$", use_parent_grid: bool = False,
                 use_highlight: bool = False, highlight_property: str = "",
                 grid: MapGrid | None = None) -> None:
        self.name = name
        self.polygon = JavaPolygon.from_path(path)
        self.location_format = location_format
        self.use_parent_grid = bool(use_parent_grid)
        self.use_highlight = bool(use_highlight)
        self.highlight_property = highlight_property
        self.own_grid = grid
        self.parent: ZonedGrid | None = None
        self._format = compile_location_format(location_format, localized=False)
        # (format, name, has_grid) → (pattern or None, number of the grid location group)
        self._pattern: tuple[tuple[str, str, bool], tuple[re.Pattern[str] | None, int]] | None = None

    @classmethod
    def from_attributes(cls, attributes: Mapping[str, str]) -> Zone:
        """Build from XML attributes (``useParentGrid``/``useHighlight`` are
        true only for exactly ``"true"``, as VASSAL compares)."""
        zone = cls()
        for key in sorted(attributes):
            value = attributes[key]
            if key == "name":
                zone.name = value
            elif key == "path":
                zone.polygon = JavaPolygon.from_path(value)
            elif key == "locationFormat":
                zone.location_format = value
            elif key == "useParentGrid":
                zone.use_parent_grid = value == "true"
            elif key == "useHighlight":
                zone.use_highlight = value == "true"
            elif key == "highlightProperty":
                zone.highlight_property = value
        zone._format = compile_location_format(zone.location_format, localized=False)
        return zone

    def attribute_strings(self) -> dict[str, str]:
        """``getAttributeValueString`` of every attribute."""
        return {
            "name": self.name,
            "locationFormat": self.location_format,
            "path": self.polygon.to_path(),
            "useParentGrid": "true" if self.use_parent_grid else "false",
            "useHighlight": "true" if self.use_highlight else "false",
            "highlightProperty": self.highlight_property,
        }

    @property
    def container_size(self) -> tuple[int, int]:
        """Size a child grid uses for descending numbering: the polygon's
        bounding box (§5.1, §5.6 quirk 9)."""
        return self.polygon.bounds_size()

    @property
    def grid(self) -> MapGrid | None:
        """The grid in effect: the parent's background when
        ``use_parent_grid``, else the zone's own grid (may be ``None``)."""
        if self.use_parent_grid:
            return self.parent.background if self.parent is not None else None
        return self.own_grid

    def contains(self, x: int, y: int) -> bool:
        """``java.awt.Polygon.contains`` of the zone polygon."""
        return self.polygon.contains(x, y)

    def location_name(self, x: int, y: int) -> str:
        """``Zone.locationName``: the format with ``$name$`` and
        ``$gridLocation$`` (empty when the zone has no grid or the grid
        names nothing)."""
        grid = self.grid
        grid_location = grid.location_name(x, y) if grid is not None else None
        return self._format({"name": self.name, "gridLocation": grid_location})

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """Snap with the zone's grid; a gridless zone does not snap."""
        grid = self.grid
        if grid is None:
            return (x, y)
        return grid.snap_to(x, y, force, center_only)

    def get_location(self, name: str) -> Point:
        """``Zone.getLocation``: match the name against the zone's format;
        with a grid, the ``$gridLocation$`` part is located by the grid and
        must lie in the zone; without one, the mean of the vertices (or the
        first vertex if the mean is outside).  Raises :class:`LocationError`."""
        grid = self.grid
        pattern, groups = self._location_pattern(grid is not None)
        if pattern is None:
            raise LocationError(f"zone {self.name!r} has nothing to match {name!r} with")
        match = pattern.fullmatch(name)
        if match is None:
            raise LocationError(f"{name!r} is not a location of zone {self.name!r}")
        if groups > 0 and grid is not None:  # groups only come with a grid
            point = grid.get_location(match.group(groups))
            if not self.contains(*point):
                raise LocationError(f"{name!r} lies outside zone {self.name!r}")
            return point
        poly = self.polygon
        n = poly.npoints
        if n <= 0:
            return (0, 0)
        x = _div_trunc(sum(poly.xs), n)
        y = _div_trunc(sum(poly.ys), n)
        if not self.contains(x, y):
            return (poly.xs[0], poly.ys[0])
        return (x, y)

    def _location_pattern(self, has_grid: bool) -> tuple[re.Pattern[str] | None, int]:
        key = (self.location_format, self.name, has_grid)
        if self._pattern is not None and self._pattern[0] == key:
            return self._pattern[1]
        regex: list[str] = []
        groups = 0
        for is_property, token in format_tokens(self.location_format):
            if not is_property:
                regex.append(re.escape(token))
            elif token == "name":
                regex.append(re.escape(self.name))
            elif token == "gridLocation" and has_grid:
                regex.append(_JAVA_ANY)
                groups += 1
        result = (re.compile("".join(regex)) if regex else None, groups)
        self._pattern = (key, result)
        return result

    def __repr__(self) -> str:
        return f"Zone({self.name!r})"


def _div_trunc(total: int, count: int) -> int:
    """Java int division (truncates toward zero)."""
    quotient = abs(total) // count
    return quotient if total >= 0 else -quotient


class ZonedGrid(MapGrid):
    """Zones in front of an optional background grid (``background``)."""

    COMPONENT = "ZonedGrid"

    def __init__(self, zones: Sequence[Zone] = (), background: MapGrid | None = None) -> None:
        self.zones: list[Zone] = list(zones)
        self.background = background
        for zone in self.zones:
            zone.parent = self

    def add_zone(self, zone: Zone) -> None:
        """Append a zone (document order matters)."""
        zone.parent = self
        self.zones.append(zone)

    def attribute_strings(self) -> dict[str, str]:
        """A ZonedGrid has no attributes."""
        return {}

    def find_zone(self, x: int, y: int) -> Zone | None:
        """The first zone, in document order, containing the point."""
        for zone in self.zones:
            if zone.polygon.contains(x, y):
                return zone
        return None

    def zone_named(self, name: str) -> Zone | None:
        """The first zone with this name."""
        for zone in self.zones:
            if zone.name == name:
                return zone
        return None

    def location_name(self, x: int, y: int) -> str | None:
        """The first containing zone's name; outside all zones the
        background grid's (``None`` without one)."""
        zone = self.find_zone(x, y)
        if zone is not None:
            return zone.location_name(x, y)
        if self.background is not None:
            return self.background.location_name(x, y)
        return None

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """Snap by the containing zone (a gridless zone does not snap);
        outside all zones by the background grid."""
        zone = self.find_zone(x, y)
        if zone is not None:
            return zone.snap_to(x, y, force, center_only)
        if self.background is not None:
            return self.background.snap_to(x, y, force, center_only)
        return (x, y)

    def get_location(self, name: str) -> Point:
        """``ZonedGrid.getLocation``: the first zone whose result lies inside
        it, then the background grid; raises :class:`LocationError`."""
        for zone in self.zones:
            try:
                point = zone.get_location(name)
            except LocationError:
                continue
            if zone.contains(*point):
                return point
        if self.background is not None:
            return self.background.get_location(name)
        raise LocationError(f"{name!r} is not a location of this board")
