"""Java semantics shared by the grid classes (``docs/vassal-format.md`` §2.1, §5).

Everything here reproduces a piece of Java/VASSAL behaviour that the grid
geometry depends on bit for bit:

* attribute parsing as ``Integer.valueOf`` / ``Double.valueOf`` /
  ``Boolean.valueOf`` do it (§2.1: malformed numbers abort loading, so they
  raise :class:`~vmodtool.errors.FormatError` here);
* ``Math.round`` and 32-bit float rounding;
* ``java.awt.Polygon`` insideness (zones) and the ``Area`` edge test used
  for VASSAL's integer hexagons (§5.4 ``inside``);
* the old-style ``$name$`` format strings of location names.
"""

from __future__ import annotations

import math
import re
import struct
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

from vmodtool.errors import FormatError, VmodError
from vmodtool.vassal.sequence import digits_value, java_double

__all__ = [
    "LocationError",
    "Point",
    "MapGrid",
    "LatticeGrid",
    "JavaPolygon",
    "parse_int_attribute",
    "parse_double_attribute",
    "check_cell_size",
    "parse_bool_attribute",
    "parse_color",
    "color_to_string",
    "java_round",
    "float32",
    "compile_location_format",
    "format_tokens",
]

#: A board-local or map point, as VASSAL's ``java.awt.Point``.
Point = tuple[int, int]

_INT_MIN = -(2 ** 31)
_INT_MAX = 2 ** 31 - 1

#: The cell sizes (``dx``, ``dy``) a grid may have, in pixels.  VASSAL takes
#: any non-zero double, but outside these its pixel arithmetic leaves the int
#: range (a hex of 1e-320 px makes every point's column infinite; one of 1e300
#: px puts every centre past 2³¹): Java then saturates, Python would raise or
#: compute numbers of hundreds of digits.  No real module is near either end
#: (the corpus's cells are 25-530 px).  See docs/vassal-format.md §5.8.
MIN_CELL_SIZE = 1e-3
MAX_CELL_SIZE = 1e9


def check_cell_size(component: str, dx: float, dy: float) -> None:
    """Raise :class:`FormatError` unless both sizes are finite and within
    [:data:`MIN_CELL_SIZE`, :data:`MAX_CELL_SIZE`] in absolute value."""
    for name, value in (("dx", dx), ("dy", dy)):
        if not math.isfinite(value) or value == 0.0:
            raise FormatError(
                f"{component} {name}={java_double(value)} cannot be used for grid "
                "geometry (VASSAL would compute with Infinity/NaN)")
        if not MIN_CELL_SIZE <= abs(value) <= MAX_CELL_SIZE:
            raise FormatError(
                f"{component} {name}={java_double(value)} cannot be used for grid geometry: "
                f"vmodtool reads cells from {MIN_CELL_SIZE:g} to {MAX_CELL_SIZE:,.0f} px across "
                "(outside them VASSAL's pixel arithmetic overflows)")


class LocationError(VmodError):
    """A location name cannot be turned into a point (VASSAL's ``BadCoords``).

    Raised by every ``get_location`` when VASSAL's own ``getLocation`` would
    throw: the name does not match the location format, the grid has no
    numbering, or (zones) the point found is outside the zone.
    """


class MapGrid(ABC):
    """Common interface of every grid (HexGrid, SquareGrid, RegionGrid,
    ZonedGrid).  All points are board-local integer pixels."""

    @abstractmethod
    def location_name(self, x: int, y: int) -> str | None:
        """VASSAL's ``locationName``: the name of the point, or ``None`` (which
        a map reports as ``offboard``)."""

    @abstractmethod
    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """VASSAL's ``snapTo(p, force, centerOnly)``."""

    @abstractmethod
    def get_location(self, name: str) -> Point:
        """VASSAL's ``getLocation(name)``; raises :class:`LocationError`."""

    @abstractmethod
    def attribute_strings(self) -> dict[str, str]:
        """What VASSAL's ``getAttributeValueString`` returns per attribute."""


# --------------------------------------------------------------------------
# attribute parsing (§2.1)

_JAVA_INT_RE = re.compile(r"[+-]?\d+")
_JAVA_DOUBLE_RE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))[fFdD]?")
_JAVA_HEX_DOUBLE_RE = re.compile(
    r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?")


def _bad(component: str, key: str, value: str, what: str) -> FormatError:
    return FormatError(
        f"{component} attribute {key}={value!r} is not {what}; "
        "VASSAL fails to build that component on it and leaves it out (docs/vassal-format.md §2.1)")


def parse_int_attribute(component: str, key: str, value: str) -> int:
    """``Integer.valueOf(value)``: optional sign, decimal digits, 32-bit range,
    no blanks.  Anything else raises :class:`FormatError`."""
    if not _JAVA_INT_RE.fullmatch(value):
        raise _bad(component, key, value, "an integer")
    number = digits_value(value)
    if number is None or not _INT_MIN <= number <= _INT_MAX:
        raise _bad(component, key, value, "a 32-bit integer")
    return number


def parse_double_attribute(component: str, key: str, value: str) -> float:
    """``Double.valueOf(value)``: Java's floating-point literal grammar,
    surrounding blanks allowed (``12``, ``-1.5e3``, ``.5``, ``2d``,
    ``Infinity``, ``0x1p3``)."""
    text = value.strip(_JAVA_BLANKS)
    if _JAVA_DOUBLE_RE.fullmatch(text):
        core = text.rstrip("fFdD") if text[-1:] in "fFdD" else text
        if core.lstrip("+-") == "NaN":
            return math.nan
        if core.lstrip("+-") == "Infinity":
            return -math.inf if core.startswith("-") else math.inf
        return float(core)
    match = _JAVA_HEX_DOUBLE_RE.fullmatch(text)
    if match:
        magnitude = float.fromhex("0x" + match.group(2))
        return -magnitude if match.group(1) == "-" else magnitude
    raise _bad(component, key, value, "a number")


#: characters Java's String.trim() removes (everything <= U+0020)
_JAVA_BLANKS = "".join(chr(c) for c in range(0x21))


def parse_bool_attribute(value: str) -> bool:
    """``Boolean.valueOf``: ``true`` in any case is true, anything else false."""
    return value.lower() == "true"


def parse_color(value: str | None) -> tuple[int, int, int, int] | None:
    """``ColorConfigurer.stringToColor``: ``r,g,b[,a]`` or ``0xRRGGBB``;
    empty/``null`` is no colour; bad data falls back to black (a warning in
    VASSAL, not fatal)."""
    black = (0, 0, 0, 255)
    if value is None or value == "" or value == "null":
        return None
    try:
        if value[:2] in ("0x", "0X"):
            rgb = int(value[2:], 16)
            if rgb > _INT_MAX or rgb < 0:
                return black
            return ((rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255, 255)
        parts = [p for p in value.split(",") if p != ""]
        if len(parts) < 3:
            return black
        nums = [parse_int_attribute("Color", "color", p) for p in parts[:4 if len(parts) > 3 else 3]]
        if any(not 0 <= n <= 255 for n in nums):
            return black
        if len(nums) == 3:
            nums.append(255)
        return (nums[0], nums[1], nums[2], nums[3])
    except (FormatError, ValueError):
        return black


#: XML attribute -> the boolean it sets, alike on HexGrid and SquareGrid
_LATTICE_FLAGS = {"snapTo": "snap_enabled", "cornersLegal": "corners_legal",
                  "edgesLegal": "edges_legal", "visible": "visible",
                  "dotsVisible": "dots_visible"}


class LatticeGrid(MapGrid):
    """What HexGrid and SquareGrid share (VASSAL's two classes repeat it):
    origin, column width, the snap/visibility flags and colour attributes,
    and the setters after which the grid recomputes (``_prepare``)."""

    COMPONENT = ""

    def _apply_shared_attribute(self, key: str, value: str) -> bool:
        """Apply an attribute both grids read alike; False for any other."""
        if key in ("x0", "y0"):
            setattr(self, key, parse_int_attribute(self.COMPONENT, key, value))
        elif key == "dx":
            self.dx = parse_double_attribute(self.COMPONENT, key, value)
        elif key in _LATTICE_FLAGS:
            setattr(self, _LATTICE_FLAGS[key], parse_bool_attribute(value))
        elif key == "color":
            self.color = parse_color(value)
        else:
            return False
        return True

    @abstractmethod
    def _apply_attribute(self, key: str, value: str) -> None:
        """Apply one XML attribute without recomputing."""

    @abstractmethod
    def _prepare(self) -> None:
        """Recompute what the grid derives from its attributes."""

    def set_attribute(self, key: str, value: str) -> None:
        """Apply one XML attribute as VASSAL's ``setAttribute`` does."""
        self._apply_attribute(key, value)
        self._prepare()

    def set_container_size(self, width: int, height: int) -> None:
        """Set the container (board or zone bounding box) size."""
        self.container_size = (int(width), int(height))
        self._prepare()


def color_to_string(color: tuple[int, int, int, int] | None) -> str:
    """``ColorConfigurer.colorToString``: ``r,g,b`` (``r,g,b,a`` if not opaque)."""
    if color is None:
        return ""
    r, g, b, a = color
    return f"{r},{g},{b}" if a == 255 else f"{r},{g},{b},{a}"


# --------------------------------------------------------------------------
# arithmetic

def java_round(value: float) -> int:
    """Java's ``Math.round(double)``: nearest integer, ties towards +infinity,
    computed exactly (``floor(v + 0.5)`` is wrong for 0.49999999999999994)."""
    low = math.floor(value)
    return low + 1 if value - low >= 0.5 else low


_F32 = struct.Struct("f")


def float32(value: float) -> float:
    """Round a double to the nearest 32-bit float (Java ``(float)``)."""
    rounded: float = _F32.unpack(_F32.pack(value))[0]
    return rounded


# --------------------------------------------------------------------------
# polygons

class JavaPolygon:
    """An integer polygon with ``java.awt.Polygon`` semantics (§5.1, §5.4).

    ``contains`` is Java's even-odd crossing test: the left and top borders
    are inside, the right and bottom borders are not; fewer than 3 vertices
    contain nothing.
    """

    __slots__ = ("xs", "ys", "min_x", "min_y", "max_x", "max_y", "_edges")

    def __init__(self, vertices: Sequence[Point]) -> None:
        self.xs: tuple[int, ...] = tuple(int(v[0]) for v in vertices)
        self.ys: tuple[int, ...] = tuple(int(v[1]) for v in vertices)
        if self.xs:
            self.min_x, self.max_x = min(self.xs), max(self.xs)
            self.min_y, self.max_y = min(self.ys), max(self.ys)
        else:
            self.min_x = self.max_x = self.min_y = self.max_y = 0
        edges = []
        n = len(self.xs)
        for i in range(n):
            lastx, lasty = self.xs[i - 1], self.ys[i - 1]
            curx, cury = self.xs[i], self.ys[i]
            if cury != lasty:
                edges.append((lastx, lasty, curx, cury))
        self._edges = tuple(edges)

    @classmethod
    def from_path(cls, path: str | None) -> JavaPolygon:
        """Parse a Zone ``path`` (``x1,y1;x2,y2;…``) as VASSAL's
        ``PolygonEditor.stringToPolygon``: vertices whose numbers do not
        parse are skipped silently."""
        from vmodtool.vassal.sequence import decode_sequence

        vertices: list[Point] = []
        for token in decode_sequence(path, ";"):
            parts = decode_sequence(token, ",")
            if len(parts) < 2:
                continue
            try:
                x = parse_int_attribute("Zone", "path", parts[0].strip(_JAVA_BLANKS))
                y = parse_int_attribute("Zone", "path", parts[1].strip(_JAVA_BLANKS))
            except FormatError:
                continue
            vertices.append((x, y))
        return cls(vertices)

    @property
    def npoints(self) -> int:
        """Number of vertices."""
        return len(self.xs)

    def bounds_size(self) -> tuple[int, int]:
        """``getBounds().getSize()``: (max−min) of the vertex coordinates."""
        return (self.max_x - self.min_x, self.max_y - self.min_y)

    def contains(self, x: float, y: float) -> bool:
        """``java.awt.Polygon.contains(x, y)``."""
        if len(self.xs) <= 2:
            return False
        if not (self.min_x <= x < self.max_x and self.min_y <= y < self.max_y):
            return False
        hits = 0
        for lastx, lasty, curx, cury in self._edges:
            if curx < lastx:
                if x >= lastx:
                    continue
                leftx = curx
            else:
                if x >= curx:
                    continue
                leftx = lastx
            if cury < lasty:
                if y < cury or y >= lasty:
                    continue
                if x < leftx:
                    hits += 1
                    continue
                test1 = x - curx
                test2 = y - cury
            else:
                if y < lasty or y >= cury:
                    continue
                if x < leftx:
                    hits += 1
                    continue
                test1 = x - lastx
                test2 = y - lasty
            if test1 < (test2 / (lasty - cury) * (lastx - curx)):
                hits += 1
        return (hits & 1) != 0

    def to_path(self) -> str:
        """``PolygonEditor.polygonToString``: ``x,y;x,y;…``."""
        return ";".join(f"{x},{y}" for x, y in zip(self.xs, self.ys, strict=True))


# --------------------------------------------------------------------------
# old-style format strings ($name$)

def format_tokens(fmt: str) -> list[tuple[bool, str]]:
    """Split a ``$name$`` format as VASSAL's FormattedStringExpression and
    ``getLocation`` do: tokens alternate literal/property; empty tokens are
    dropped; a property token with nothing after it is literal text.
    Returns (is_property, text) pairs."""
    from vmodtool.vassal.sequence import decode_sequence

    tokens = decode_sequence(fmt, "$")
    parts: list[tuple[bool, str]] = []
    is_property = True
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        is_property = not is_property
        if token:
            parts.append((is_property and index < last, token))
    return parts


def compile_location_format(fmt: str, *, localized: bool
                            ) -> Callable[[Mapping[str, str | None]], str]:
    """Compile a location format into a function of the property values.

    Mirrors ``FormattedString`` → ``Expression.createExpression``: a blank
    format gives ``""``; a format that is a Java int gives that int; a format
    with ``$`` is trimmed and substituted; anything else is literal.  A
    property the caller does not supply is looked up in the game module in
    VASSAL; here it is taken to be undefined, which gives ``""`` when
    ``localized`` (numbering names) and the bare property name otherwise
    (zone names).  A ``None`` value adds nothing.  BeanShell formats
    (``{…}``) are not evaluated: they are substituted like plain formats.
    """
    if fmt is None or fmt.strip() == "" or fmt.isspace():
        return lambda props: ""
    trimmed = fmt.strip(_JAVA_BLANKS)
    if _JAVA_INT_RE.fullmatch(trimmed):
        number = int(trimmed)
        if _INT_MIN <= number <= _INT_MAX:
            text = str(number)
            return lambda props: text
    if "$" not in trimmed:
        return lambda props: fmt
    parts = format_tokens(trimmed)
    if parts == [(True, "gridLocation")]:
        return lambda props: props.get("gridLocation") or ""

    def evaluate(props: Mapping[str, str | None]) -> str:
        out = []
        for is_property, text in parts:
            if not is_property:
                out.append(text)
            elif text in props:
                value = props[text]
                if value is not None:
                    out.append(value)
            elif not localized:
                out.append(text)
        return "".join(out)

    return evaluate
