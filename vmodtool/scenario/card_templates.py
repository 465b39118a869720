"""Card templates: the small declarative YAML files (``templates/cards/`` in
the source tree, ``vmodtool/templates/cards`` in the wheel) that say where
the regions of a card's front lie (border, title band, event line, picture
box, text box, corner values, footer) and how its back is drawn, with fonts
and colours, and colours by side.

A template is checked against ``card-template.schema.json`` and becomes a
:class:`CardTemplate` (plain, frozen, picklable data); a deck names one in
``template`` by a bundled name or by a path relative to the scenario's
folder.  Problems are :class:`~vmodtool.scenario.templates.TemplateError`
with the template's file and line, read by the counter templates' own
helpers (:func:`~vmodtool.scenario.templates.template_document`).  The
renderer (``render/cards.py``) reads only the resolved template.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from vmodtool.scenario.templates import (
    TemplateError,
    is_template_file,
    side_entry,
    template_document,
    template_error,
    template_schema,
    templates_dir,
)

__all__ = ["CardTemplate", "BandRegion", "LineRegion", "TextRegion", "ValueRegions", "BackLayout",
           "DEFAULT_CARD_TEMPLATE", "CARD_FIELDS", "CORNERS", "bundled_card_templates", "card_template_file",
           "load_card_template", "resolve_card_template", "is_card_template"]

DEFAULT_CARD_TEMPLATE = "standard"
#: the fields a line's text may name ({event} …), each a property of the card
CARD_FIELDS = ("event", "trigger", "tags", "number", "deck", "name", "id", "count")
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
_SCHEMA = "card-template.schema.json"


def cards_dir() -> Path:
    return templates_dir() / "cards"


def bundled_card_templates() -> dict[str, Path]:
    """Name → file of every card template shipped with vmodtool."""
    folder = cards_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


@dataclass(frozen=True)
class BandRegion:
    """The title band (the card's name): ``colour`` deck | side | #rrggbb,
    ``ink`` auto | #rrggbb; height a fraction of the card's height, size of
    its width."""

    position: str = "top"
    height: float = 0.15
    colour: str = "deck"
    ink: str = "auto"
    font: str = "bold"
    size: float = 0.075


@dataclass(frozen=True)
class LineRegion:
    """One line of card fields (``text`` as ``"{event}"``): the event line
    beside the band, or the footer in the row opposite it."""

    text: str
    height: float = 0.06
    fill: str = "none"                 # none | band | #rrggbb
    ink: str = "auto"                  # auto | text | #rrggbb
    font: str = "bold"
    size: float = 0.05

    def render(self, fields: dict[str, str]) -> str:
        return self.text.format_map(fields).strip()


@dataclass(frozen=True)
class TextRegion:
    """The card text, wrapped into the box the other regions leave: font, size
    (a fraction of the card's width), ink and side margin (likewise)."""

    font: str = "condensed"
    size: float = 0.058
    ink: str = "#141414"
    margin: float = 0.04


@dataclass(frozen=True)
class ValueRegions:
    """The corner values: which corners take the card's values (in order),
    the card number's corner, their style and sizes."""

    corners: tuple[str, ...] = CORNERS
    number: str | None = None
    number_label: str = "№"
    style: str = "boxed"               # boxed | plain
    width: float = 0.17
    row: float = 0.09
    font: str = "condensed-bold"
    size: float = 0.05
    keys: bool = True
    key_size: float = 0.03
    box: str = "#ffffff"
    outline: str = "#282828"
    ink: str = "auto"
    key_ink: str = "#5a5a5a"


@dataclass(frozen=True)
class BackLayout:
    """The back of a deck's cards: ``colour`` band | #rrggbb, ``image`` how a
    back image is fitted (cover | contain); without one, an optional frame
    and the back text in ``width`` × ``height`` (fractions of the card)."""

    colour: str = "band"               # band | #rrggbb
    image: str = "cover"               # cover | contain
    frame: bool = True
    frame_inset: float = 0.06
    frame_width: float = 0.0125
    frame_colour: str = "ink"          # ink | band | #rrggbb
    font: str = "bold"
    size: float = 0.09
    width: float = 0.8
    height: float = 0.64
    ink: str = "auto"


@dataclass(frozen=True)
class CardTemplate:
    """A card template, resolved (see ``templates/cards/card-template.schema.json``)."""

    name: str
    description: str = ""
    background: str = "#faf8f0"
    border_width: float = 0.025
    border_colour: str = "band"        # band | ink | #rrggbb
    band: BandRegion = BandRegion()
    event_line: LineRegion | None = None
    picture: float | None = 0.34       # the picture box's height, None: no picture box
    text: TextRegion = TextRegion()
    values: ValueRegions = ValueRegions()
    footer: LineRegion | None = None
    back: BackLayout = BackLayout()
    sides: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def side_colours(self, side: str | None) -> dict[str, str]:
        """The colours this template gives the decks of ``side``."""
        return side_entry(self.sides, side)


def _schema() -> dict[str, Any]:
    return template_schema(cards_dir() / _SCHEMA)


def card_template_file(ref: str, folder: Path | None) -> Path | None:
    """The file a deck's ``template`` names: a bundled card template, else a
    path relative to ``folder`` (the scenario's; None: the working folder);
    None when there is none."""
    bundled = bundled_card_templates()
    if ref in bundled:
        return bundled[ref]
    if ref.endswith((".yaml", ".yml")) or "/" in ref:
        candidate = folder / ref if folder is not None else Path(ref)
        if is_template_file(candidate):
            return candidate
    return None


def is_card_template(path: Path) -> bool:
    """Whether the YAML file at ``path`` says ``kind: card`` (what
    ``vmodtool templates show`` previews as a card)."""
    from vmodtool.scenario.source import load_yaml

    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    # the bounded reader: a file nested past its limits is no card template
    # (it recursed out of yaml.safe_load); its problems are load_card_template's
    doc = load_yaml(text, str(path))
    data = doc.data
    return not doc.problems and isinstance(data, dict) and data.get("kind") == "card"


def load_card_template(path: Path) -> CardTemplate:
    """Read and check a card template file (cached by its bytes)."""
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise TemplateError(f"the card template cannot be read ({exc.strerror})", file=path) from None
    return _parse(str(path), blob)


def resolve_card_template(ref: str | None, folder: Path | None) -> CardTemplate:
    """The template a deck's ``template`` (None: the default) names."""
    name = ref or DEFAULT_CARD_TEMPLATE
    found = card_template_file(name, folder)
    if found is None:
        raise TemplateError(f"unknown card template {name!r}: name a bundled card template "
                            f"({', '.join(bundled_card_templates())}) or a template file (.yaml) "
                            "in the scenario's folder")
    return load_card_template(found)


def _fields(doc: Any, path: tuple[str, ...], text: str) -> None:
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as exc:
        raise template_error(doc, path, f"{'.'.join(path)}: {exc} (write a field as {{event}}, "
                                        "a brace as {{ or }})") from None
    for name in names:
        if name not in CARD_FIELDS:
            raise template_error(doc, path, f"{'.'.join(path)}: unknown field {{{name}}}; a line shows "
                                            + ", ".join(f"{{{f}}}" for f in CARD_FIELDS))


def _colour(value: Any, default: str) -> str:
    """A colour or keyword as given; #rgb written as #rrggbb."""
    if not isinstance(value, str):
        return default
    if len(value) == 4 and value.startswith("#"):
        return "#" + "".join(c * 2 for c in value[1:]).lower()
    return value.lower() if value.startswith("#") else value


def _line(doc: Any, raw: Any, key: str) -> LineRegion | None:
    if not isinstance(raw, dict):
        return None
    _fields(doc, (key, "text"), str(raw["text"]))
    d = LineRegion("")
    return LineRegion(text=str(raw["text"]), height=float(raw.get("height", d.height)),
                      fill=_colour(raw.get("fill"), d.fill), ink=_colour(raw.get("ink"), d.ink),
                      font=str(raw.get("font", d.font)), size=float(raw.get("size", d.size)))


@lru_cache(maxsize=64)
def _parse(file: str, blob: bytes) -> CardTemplate:
    doc = template_document(file, blob, _schema(), f"cards/{_SCHEMA}")
    data: dict[str, Any] = doc.data
    border = data.get("border") or {}
    b, band_raw = BandRegion(), data.get("band") or {}
    band = BandRegion(position=str(band_raw.get("position", b.position)),
                      height=float(band_raw.get("height", b.height)),
                      colour=_colour(band_raw.get("colour"), b.colour), ink=_colour(band_raw.get("ink"), b.ink),
                      font=str(band_raw.get("font", b.font)), size=float(band_raw.get("size", b.size)))
    t, text_raw = TextRegion(), data.get("text") or {}
    text = TextRegion(font=str(text_raw.get("font", t.font)), size=float(text_raw.get("size", t.size)),
                      ink=_colour(text_raw.get("ink"), t.ink), margin=float(text_raw.get("margin", t.margin)))
    v, vr = ValueRegions(), data.get("values") or {}
    corners = tuple(str(c) for c in vr.get("corners", v.corners))
    number = vr.get("number")
    if number is not None and number in corners:
        raise template_error(doc, ("values", "number"), f"values.number: {number} is also one of values.corners; "
                                                        "the number takes a corner of its own")
    values = ValueRegions(
        corners=corners, number=None if number is None else str(number),
        number_label=str(vr.get("number_label", v.number_label)), style=str(vr.get("style", v.style)),
        width=float(vr.get("width", v.width)), row=float(vr.get("row", v.row)), font=str(vr.get("font", v.font)),
        size=float(vr.get("size", v.size)), keys=bool(vr.get("keys", v.keys)),
        key_size=float(vr.get("key_size", v.key_size)), box=_colour(vr.get("box"), v.box),
        outline=_colour(vr.get("outline"), v.outline), ink=_colour(vr.get("ink"), v.ink),
        key_ink=_colour(vr.get("key_ink"), v.key_ink))
    if 2 * values.width > 1 - 2 * float(border.get("width", 0.025)):
        raise template_error(doc, ("values", "width"), "values.width: two corners do not fit side by side "
                                                       "(at most half the card's width inside the border)")
    k, back_raw = BackLayout(), data.get("back") or {}
    frame = back_raw.get("frame", {})
    frame = frame if isinstance(frame, dict) else None
    back = BackLayout(colour=_colour(back_raw.get("colour"), k.colour), image=str(back_raw.get("image", k.image)),
                      frame=frame is not None, frame_inset=float((frame or {}).get("inset", k.frame_inset)),
                      frame_width=float((frame or {}).get("width", k.frame_width)),
                      frame_colour=_colour((frame or {}).get("colour"), k.frame_colour),
                      font=str(back_raw.get("font", k.font)), size=float(back_raw.get("size", k.size)),
                      width=float(back_raw.get("width", k.width)), height=float(back_raw.get("height", k.height)),
                      ink=_colour(back_raw.get("ink"), k.ink))
    picture = data.get("picture", "none")
    template = CardTemplate(
        name=str(data["name"]), description=str(data.get("description", "")),
        background=_colour(data.get("background"), CardTemplate.background),
        border_width=float(border.get("width", CardTemplate.border_width)),
        border_colour=_colour(border.get("colour"), CardTemplate.border_colour), band=band,
        event_line=_line(doc, data.get("event_line"), "event_line"),
        picture=float(picture["height"]) if isinstance(picture, dict) else None, text=text, values=values,
        footer=_line(doc, data.get("footer"), "footer"), back=back,
        sides=tuple((str(s), tuple((str(key), _colour(c, "")) for key, c in (colours or {}).items()))
                    for s, colours in (data.get("sides") or {}).items()))
    rows = band.height + (template.event_line.height if template.event_line else 0) + (template.picture or 0)
    if rows + (values.row if template.footer or _opposite(template) else 0) > 0.9:
        raise template_error(doc, ("band",), "the band, event line, picture box and corner row take more than "
                                             "90% of the card's height; leave room for the text")
    return template


def _opposite(template: CardTemplate) -> bool:
    """Whether a corner of the row opposite the band is used."""
    edge = template.band.position
    used = [*template.values.corners, *([template.values.number] if template.values.number else [])]
    return any(not c.startswith(edge) for c in used)
