"""Grid numbering options: VASSAL's ``RegularGridNumbering`` family
(``docs/vassal-format.md`` §2.4.6, §5.3, §5.4).

These classes hold the numbering attributes exactly as VASSAL stores them
and know how to turn a (column, row) index into label text and back.  The
geometry (which index a point has) lives in the grid classes, which read the
options from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from re import Pattern
from typing import TypeVar

from vmodtool.errors import FormatError
from vmodtool.vassal.grid_common import (
    LocationError,
    color_to_string,
    compile_location_format,
    format_tokens,
    parse_bool_attribute,
    parse_color,
    parse_int_attribute,
)
from vmodtool.vassal.sequence import digits_value

__all__ = ["RegularGridNumbering", "HexGridNumbering", "SquareGridNumbering",
           "format_index", "parse_index"]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ALPHABETIC_MATCH = "-?(?:" + "|".join(c + "+" for c in ALPHABET) + ")"


def format_index(value: int, kind: str, leading: int) -> str:
    """``RegularGridNumbering.getName(n, type, leading)`` (§5.3 ``fmt``).

    Alphabetic (``kind == 'A'``): 0→A … 25→Z, 26→AA, 27→BB, 52→AAA.
    Numeric: zero-padded to ``leading+1`` digits; ``-`` goes before the zeros.
    """
    sign = "-" if value < 0 else ""
    magnitude = -value if value < 0 else value
    if kind == "A":
        letter = ALPHABET[magnitude % 26]
        return sign + letter * (magnitude // 26 + 1)
    digits = str(magnitude)
    if leading > 0 and len(digits) <= leading:
        digits = "0" * (leading + 1 - len(digits)) + digits
    return sign + digits


def parse_index(text: str, kind: str) -> int:
    """``RegularGridNumbering.parseName``: the inverse of :func:`format_index`
    for text the location pattern accepted."""
    if kind == "A":
        negative = text.startswith("-")
        letters = text[1:] if negative else text
        value = 26 * (len(letters) - 1) + ALPHABET.index(letters[-1]) if letters else 0
        return -value if negative else value
    number = digits_value(text)
    if number is None or not -(2 ** 31) <= number < 2 ** 31:
        # Integer.parseInt overflows: VASSAL throws NumberFormatException
        raise LocationError(f"grid index {text!r} is out of Java's int range")
    return number


_N = TypeVar("_N", bound="RegularGridNumbering")

#: what :meth:`RegularGridNumbering._compile` keeps: the location formatter, whether the
#: format is plain ``$gridLocation$``, and the parse pattern with its group numbers
_Compiled = tuple[Callable[[Mapping[str, str | None]], str], bool, tuple[Pattern[str], int, int] | None]


class RegularGridNumbering:
    """Numbering attributes shared by hex and square grids.

    Build with :meth:`from_attributes` (XML attribute dict, applied in
    attribute-name order as VASSAL's builder does).  Attribute fields:
    ``first`` ('H'/'V'), ``sep``, ``h_type``/``v_type`` ('N'/'A'),
    ``h_leading``/``v_leading``, ``h_off``/``v_off``,
    ``h_descend``/``v_descend``, ``location_format`` and the drawing options
    ``visible``, ``font_size``, ``color``, ``rotate_text``, ``h_draw_off``,
    ``v_draw_off``.
    """

    COMPONENT = "RegularGridNumbering"
    #: getAttributeNames() order (what getAttributeValueString is asked for)
    ATTRIBUTE_NAMES: tuple[str, ...] = (
        "first", "sep", "hType", "hLeading", "hOff", "hDescend", "vType",
        "vLeading", "vOff", "vDescend", "locationFormat", "visible", "fontSize",
        "color", "rotateText", "hDrawOff", "vDrawOff")

    def __init__(self) -> None:
        self.first = "H"
        self.sep = ""
        self.h_type = "N"
        self.v_type = "N"
        self.h_leading = 1
        self.v_leading = 1
        self.h_off = 1
        self.v_off = 1
        self.h_descend = False
        self.v_descend = False
        self.visible = False
        self.font_size = 9
        self.color: tuple[int, int, int, int] | None = (0, 0, 0, 255)
        self.rotate_text = 0
        self.h_draw_off = 0
        self.v_draw_off = 0
        self.location_format = "$gridLocation$"
        self._compiled: _Compiled | None = None

    # -- building --------------------------------------------------------

    @classmethod
    def from_attributes(cls: type[_N], attributes: Mapping[str, str] | None = None) -> _N:
        """Create the numbering from XML attributes (unknown names ignored)."""
        numbering = cls()
        attrs = attributes or {}
        for key in sorted(attrs):
            numbering.set_attribute(key, attrs[key])
        return numbering

    def _first_char(self, key: str, value: str) -> str:
        if value == "":
            raise FormatError(
                f"{self.COMPONENT} attribute {key}='' is empty; VASSAL reads its "
                "first character and aborts loading the module (docs/vassal-format.md §2.1)")
        return value[0]

    def set_attribute(self, key: str, value: str) -> None:
        """VASSAL's ``setAttribute(key, String)``."""
        c = self.COMPONENT
        if key == "first":
            self.first = self._first_char(key, value)
        elif key == "sep":
            self.sep = value
        elif key == "hType":
            self.h_type = self._first_char(key, value)
        elif key == "vType":
            self.v_type = self._first_char(key, value)
        elif key == "hLeading":
            self.h_leading = parse_int_attribute(c, key, value)
        elif key == "vLeading":
            self.v_leading = parse_int_attribute(c, key, value)
        elif key == "hOff":
            self.h_off = parse_int_attribute(c, key, value)
        elif key == "vOff":
            self.v_off = parse_int_attribute(c, key, value)
        elif key == "hDescend":
            self.h_descend = parse_bool_attribute(value)
        elif key == "vDescend":
            self.v_descend = parse_bool_attribute(value)
        elif key == "fontSize":
            self.font_size = parse_int_attribute(c, key, value)
        elif key == "color":
            self.color = parse_color(value)
        elif key == "visible":
            self.visible = parse_bool_attribute(value)
        elif key == "locationFormat":
            self.location_format = value
        elif key == "rotateText":
            self.rotate_text = parse_int_attribute(c, key, value)
        elif key == "hDrawOff":
            self.h_draw_off = parse_int_attribute(c, key, value)
        elif key == "vDrawOff":
            self.v_draw_off = parse_int_attribute(c, key, value)
        self._compiled = None

    def attribute_strings(self) -> dict[str, str]:
        """``getAttributeValueString`` of every attribute name."""
        out = {
            "first": self.first,
            "sep": self.sep,
            "hType": self.h_type,
            "hLeading": str(self.h_leading),
            "hOff": str(self.h_off),
            "hDescend": _jbool(self.h_descend),
            "vType": self.v_type,
            "vLeading": str(self.v_leading),
            "vOff": str(self.v_off),
            "vDescend": _jbool(self.v_descend),
            "locationFormat": self.location_format,
            "visible": _jbool(self.visible),
            "fontSize": str(self.font_size),
            "color": color_to_string(self.color),
            "rotateText": str(self.rotate_text),
            "hDrawOff": str(self.h_draw_off),
            "vDrawOff": str(self.v_draw_off),
        }
        return out

    # -- labels ----------------------------------------------------------

    def column_label(self, column: int) -> str:
        """Label of a (logical, 0-based) column: ``getName(col + hOff, hType, hLeading)``."""
        return format_index(column + self.h_off, self.h_type, self.h_leading)

    def row_label(self, row: int) -> str:
        """Label of a (logical, 0-based) row: ``getName(row + vOff, vType, vLeading)``."""
        return format_index(row + self.v_off, self.v_type, self.v_leading)

    def grid_location(self, column: int, row: int) -> str:
        """``getName(row, column)``: the combined label (``$gridLocation$``)."""
        col_name = self.column_label(column)
        row_name = self.row_label(row)
        if self.first == "H":
            return col_name + self.sep + row_name
        return row_name + self.sep + col_name

    def _compile(self) -> _Compiled:
        if self._compiled is None:
            formatter = compile_location_format(self.location_format, localized=True)
            plain = self.location_format.strip() == "$gridLocation$" and \
                self.location_format == "$gridLocation$"
            self._compiled = (formatter, plain, self._location_pattern())
        return self._compiled

    def name_of(self, column: int, row: int) -> str:
        """The location name of logical (column, row), formatted with
        ``locationFormat`` (``$gridLocation$``, ``$row$``, ``$column$``)."""
        formatter, plain, _ = self._compile()
        if plain:
            return self.grid_location(column, row)
        return formatter({
            "gridLocation": self.grid_location(column, row),
            "row": self.row_label(row),
            "column": self.column_label(column),
        })

    # -- name → index ----------------------------------------------------

    def _matching_pattern(self, kind: str, leading: int) -> str:
        if kind == "A":
            return _ALPHABETIC_MATCH
        return "-?[0-9]{" + str(leading + 1) + ",}"

    def _location_pattern(self) -> tuple[Pattern[str], int, int] | None:
        """The regex ``getLocation`` builds from ``locationFormat`` (§5.4),
        with the group numbers of the column and row, or ``None`` when the
        format has no column or no row (then no name parses)."""
        regex = []
        col_group = row_group = groups = 0
        col_pat = self._matching_pattern(self.h_type, self.h_leading)
        row_pat = self._matching_pattern(self.v_type, self.v_leading)
        for is_property, token in format_tokens(self.location_format):
            if not is_property:
                regex.append(re.escape(token))
            elif token == "gridLocation":
                if self.first == "H":
                    regex.append("(" + col_pat + ")")
                    groups += 1
                    col_group = groups
                    if self.sep:
                        regex.append(re.escape(self.sep))
                    regex.append("(" + row_pat + ")")
                    groups += 1
                    row_group = groups
                else:
                    regex.append("(" + row_pat + ")")
                    groups += 1
                    row_group = groups
                    regex.append(re.escape(self.sep))
                    regex.append("(" + col_pat + ")")
                    groups += 1
                    col_group = groups
            elif token == "row":
                regex.append("(" + row_pat + ")")
                groups += 1
                row_group = groups
            elif token == "column":
                regex.append("(" + col_pat + ")")
                groups += 1
                col_group = groups
        if not regex or col_group == 0 or row_group == 0:
            return None
        return re.compile("".join(regex)), col_group, row_group

    def parse_name(self, name: str) -> tuple[int, int]:
        """Parse a location name into logical (column, row) = label value
        minus offset, as ``getLocation`` does before ``getCenterPoint``.
        Greedy regex matching is kept (§5.6 quirk 7).  Raises
        :class:`LocationError` when VASSAL throws ``BadCoords``."""
        compiled = self._compile()[2]
        if compiled is None:
            raise LocationError(
                f"location format {self.location_format!r} has no column and row "
                f"to parse {name!r} with")
        pattern, col_group, row_group = compiled
        match = pattern.fullmatch(name)
        if match is None:
            raise LocationError(f"{name!r} is not a location of this grid")
        row = parse_index(match.group(row_group), self.v_type)
        col = parse_index(match.group(col_group), self.h_type)
        return col - self.h_off, row - self.v_off


def _jbool(value: bool) -> str:
    return "true" if value else "false"


class HexGridNumbering(RegularGridNumbering):
    """``HexGridNumbering``: :class:`RegularGridNumbering` plus ``stagger``
    (default **true**, §2.4.6)."""

    COMPONENT = "HexGridNumbering"
    ATTRIBUTE_NAMES = RegularGridNumbering.ATTRIBUTE_NAMES + ("stagger",)

    def __init__(self) -> None:
        super().__init__()
        self.stagger = True

    def set_attribute(self, key: str, value: str) -> None:
        if key == "stagger":
            self.stagger = parse_bool_attribute(value)
        else:
            super().set_attribute(key, value)

    def attribute_strings(self) -> dict[str, str]:
        out = super().attribute_strings()
        out["stagger"] = _jbool(self.stagger)
        return out


class SquareGridNumbering(RegularGridNumbering):
    """``SquareGridNumbering``: the common numbering options, no stagger."""

    COMPONENT = "SquareGridNumbering"
