"""Counter images from the scenario: every face of every unit counter, the
marker counters and the formation activation chits.

Rendering is in two steps so that it can run in worker processes and be
cached:

1. :func:`counter_specs` resolves the scenario into plain, picklable
   :class:`CounterSpec` objects — one per physical counter — whose
   :class:`FaceSpec` faces hold every colour and text already formatted
   (factor layouts applied, fills lightened for reduced faces, pips counted).
   Bad data (an unknown NATO symbol, a factor a layout names but a face
   lacks, an unknown font) raises :class:`CounterError` here.
2. :func:`render_face` draws one face at a pixel size.  Fills, stripes and
   text are drawn at the final resolution (axis-aligned edges need no
   smoothing; FreeType anti-aliases glyphs); everything curved or slanted —
   NATO symbols, pips, the command-range ring — comes from sprites drawn at
   4× and box-reduced (:mod:`vmodtool.render.nato`).  Text that does not fit
   is shrunk down to :data:`MIN_TEXT_SCALE` of its size and otherwise raises
   :class:`CounterTextError` naming the counter, face and text.

:func:`render_all` writes every face as PNG at the VASSAL size and at print
resolutions, on all cores, skipping faces whose content hash is unchanged
since the last run (``counters.json`` in the output folder is both the
manifest and the cache index).

**File names** (ASCII, stable): ``<out>/<res>/<id>__<face>.png`` where
``<res>`` is ``vassal`` or ``<dpi>dpi``, ``<id>`` is the counter id
(``syr.t72.1``), ``marker.<kind>`` for a marker counter or
``chit.<formation>`` for an activation chit, and ``<face>`` the face name
(``front`` for markers and chits).  Characters outside ``A-Z a-z 0-9 . _ -``
are replaced by ``-`` and an 8-hex-digit hash of the original is appended.

The ``styles.counter`` keys are documented in ``counters/README.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import PIL
from PIL import Image, ImageDraw, ImageFont

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write, output_folder, parse_json
from vmodtool.images import ImageError, load_image
from vmodtool.render import fonts
from vmodtool.render.nato import NatoError, check_nato, render_symbol
from vmodtool.render.png import encode_png
from vmodtool.scenario.colours import MIN_TEXT_CONTRAST, contrast_ratio
from vmodtool.scenario.templates import (
    CounterTemplate,
    TemplateError,
    TemplateRef,
    load_template,
    template_file,
    template_refs,
)

__all__ = [
    "RENDERER_VERSION", "MIN_TEXT_SCALE", "CounterError", "CounterTextError", "CounterStyle",
    "FaceSpec", "CounterSpec", "Manifest", "ManifestEntry", "parse_size", "counter_style",
    "counter_specs", "resolved_specs", "check_text_fits", "located_counter_error", "render_face", "render_spec",
    "render_counter_faces", "render_marker", "render_all", "face_filename", "safe_name", "resolution_px",
    "render_contact_sheet", "pip_boxes",
]

#: bump when a change alters pixels: it invalidates every cache entry
RENDERER_VERSION = "3"
_PIL_VERSION = PIL.__version__
#: the modules whose code decides a counter's bytes
_RENDERER_SOURCES = ("counters.py", "nato.py", "png.py", "fonts.py", "art.py")


@lru_cache(maxsize=1)
def renderer_digest() -> str:
    """A digest of the counter renderer's source: an edited renderer (or PNG
    writer) invalidates every cached face even when nobody bumped
    :data:`RENDERER_VERSION`."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in _RENDERER_SOURCES:
        try:
            h.update((here / name).read_bytes())
        except OSError:               # an installation without sources: the version decides
            h.update(name.encode("ascii"))
    return h.hexdigest()[:16]
#: text is shrunk to at most this fraction of its nominal size before it is an error
MIN_TEXT_SCALE = 0.6
#: the size at which "does it fit" is decided, so the answer is the same at every resolution
_FIT_REFERENCE_PX = 600

RGB = tuple[int, int, int]
REGIONS = ("top_left", "top", "top_right", "left", "right", "bottom_left", "bottom",
           "bottom_right", "centre")


class CounterError(VmodError):
    """Counter data that cannot be rendered (bad style, symbol, factor)."""


class CounterTextError(CounterError):
    """A text does not fit on its counter even at the smallest allowed size."""


# -- style ---------------------------------------------------------------------------
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)(?:/([0-9]+))?\s*(in|mm|px)\s*$")


def parse_size(text: str | int | float, *, what: str = "size") -> tuple[float, str]:
    """``"5/8in"`` → (0.625, "in"); ``"16mm"`` → (16.0, "mm"); ``"60px"`` → (60.0, "px")."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text), "px"
    m = _SIZE_RE.match(str(text))
    if not m:
        raise CounterError(f"bad {what} {text!r}: write it like 5/8in, 0.75in, 16mm or 60px")
    value = float(m.group(1)) / (float(m.group(2)) if m.group(2) else 1.0)
    if value <= 0:
        raise CounterError(f"bad {what} {text!r}: it must be larger than 0")
    return value, m.group(3)


def _colour(text: Any, what: str) -> RGB:
    s = str(text or "").strip()
    if re.fullmatch(r"#[0-9a-fA-F]{6}", s):
        return (int(s[1:3], 16), int(s[3:5], 16), int(s[5:7], 16))
    if re.fullmatch(r"#[0-9a-fA-F]{3}", s):
        return (int(s[1] * 2, 16), int(s[2] * 2, 16), int(s[3] * 2, 16))
    raise CounterError(f"bad colour {text!r} for {what}: write it as #rrggbb")


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


@dataclass(frozen=True)
class CounterStyle:
    """The ``styles.counter`` options (see ``counters/README.md``)."""

    size_in: float = 0.625              # physical edge length, inches
    vassal_px: int = 75                 # edge length of the VASSAL images
    font: str = "bold"                  # factor font (a bundled style)
    label_font: str = "condensed-bold"
    border: RGB = (40, 40, 40)          # outline of VASSAL images (print: none, bleed instead)
    reduced_lighten: float = 0.45       # reduced faces: fill mixed this much with white
    reduced_mark: RGB = (192, 32, 32)   # the band along the bottom edge of reduced faces
    show_pips: bool = True
    formations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    marker_counts: Mapping[str, int] = field(default_factory=dict)
    chits: bool = True                  # print formation activation chits
    reduced_states: tuple[str, ...] = ("reduced", "broken", "depleted", "damaged", "exhausted")
    template: TemplateRef = TemplateRef()   # which counter template (templates/), per side and unit type


_STYLE_KEYS = {"size", "vassal_px", "vassal_dpi", "font", "label_font", "border", "reduced_lighten",
               "reduced_mark", "pips", "formations", "marker_counts", "chits",
               "reduced_states", "template"}


def counter_style(scenario: Any) -> CounterStyle:
    """Read ``styles.counter`` of a scenario (defaults for missing keys)."""
    raw = (scenario.styles or {}).get("counter") or {}
    where = "styles.counter"
    if not isinstance(raw, Mapping):
        raise CounterError(f"{where} must be a map of options", file=scenario.path)
    unknown = sorted(set(raw) - _STYLE_KEYS)
    if unknown:
        raise CounterError(f"{where}: unknown option(s) {', '.join(unknown)}; known: "
                           f"{', '.join(sorted(_STYLE_KEYS))}", file=scenario.path)
    try:
        value, unit = parse_size(raw.get("size", "5/8in"), what=f"{where}.size")
        vassal_dpi = float(raw.get("vassal_dpi", 120))
        if unit == "px":
            size_in, vassal_px = value / vassal_dpi, round(value)
        else:
            size_in = value if unit == "in" else value / 25.4
            vassal_px = round(size_in * vassal_dpi)
        if "vassal_px" in raw:
            vassal_px = int(raw["vassal_px"])
        if vassal_px < 24:
            raise CounterError(f"{where}: the VASSAL size would be {vassal_px} px; at least 24 px "
                               "are needed (raise vassal_dpi or vassal_px)")
        for key in ("font", "label_font"):
            if key in raw and raw[key] not in fonts.FONT_STYLES:
                raise CounterError(
                    f"{where}.{key}: font {raw[key]!r} is not bundled with vmodtool; use one of "
                    f"{', '.join(fonts.FONT_STYLES)} (output must be identical on every machine)")
        formations = raw.get("formations") or {}
        marker_counts = raw.get("marker_counts") or {}
        if not isinstance(formations, Mapping) or not isinstance(marker_counts, Mapping):
            raise CounterError(f"{where}: formations and marker_counts must be maps")
        style = CounterStyle(
            size_in=size_in, vassal_px=vassal_px,
            font=raw.get("font", "bold"), label_font=raw.get("label_font", "condensed-bold"),
            border=_colour(raw.get("border", "#282828"), f"{where}.border"),
            reduced_lighten=float(raw.get("reduced_lighten", 0.45)),
            reduced_mark=_colour(raw.get("reduced_mark", "#c02020"), f"{where}.reduced_mark"),
            show_pips=bool(raw.get("pips", True)),
            formations={str(k): dict(v or {}) for k, v in formations.items()},
            marker_counts={str(k): int(v) for k, v in marker_counts.items()},
            chits=bool(raw.get("chits", True)),
            reduced_states=tuple(str(v).lower() for v in raw.get(
                "reduced_states", CounterStyle.reduced_states)),
            template=template_refs(raw.get("template")),
        )
    except CounterError as exc:
        raise exc.located(file=scenario.path) from None
    except (TypeError, ValueError) as exc:
        raise CounterError(f"{where}: bad value ({exc})", file=scenario.path) from None
    # every bundled font must be present (clear error on a broken install)
    fonts.font_path(style.font)
    fonts.font_path(style.label_font)
    return style


def resolution_px(style: CounterStyle, resolution: str | int) -> int:
    """Edge length in pixels at ``"vassal"`` or at a print dpi."""
    if resolution == "vassal":
        return style.vassal_px
    dpi = int(resolution)
    if dpi < 50:
        raise CounterError(f"print resolution {dpi} dpi is too low (at least 50)")
    return round(style.size_in * dpi)


# -- resolved specs ---------------------------------------------------------------------
@dataclass(frozen=True)
class FaceSpec:
    """Everything needed to draw one face, resolved from the scenario."""

    where: str                               # "counter syr.t72.1, face full" (for messages)
    fill: RGB
    ink: RGB
    kind: str = "unit"                       # unit | marker
    stripe: RGB | None = None             # side stripe across the top
    formation_stripe: RGB | None = None   # formation band along the left edge
    regions: tuple[tuple[str, str], ...] = ()
    layout_style: str = "tactical"
    nato: tuple[str, str | None, tuple[str, ...], bool] | None = None
    label: str | None = None
    formation_text: str | None = None
    reduced: bool = False
    reduced_mark: RGB = (192, 32, 32)
    pips: tuple[int, int] = (0, 0)           # (remaining, total) steps
    command_range: str | None = None      # HQ range when the layout does not print it
    title: str | None = None              # marker: big text
    subtitle: str | None = None           # marker: small text
    font: str = "bold"
    label_font: str = "condensed-bold"
    border: RGB = (40, 40, 40)
    template: CounterTemplate = CounterTemplate("nato")   # the regions and their sizes
    art: str | None = None                # art of counters/art.yaml instead of the NATO symbol
    #: the face's own image: (file, sha256 of its bytes, fit, crop, position, box)
    image: tuple[str, str, str, tuple[int, int, int, int] | None, tuple[float, float], str] | None = None


_DEFAULT_TEMPLATE = CounterTemplate("nato")


@dataclass(frozen=True)
class CounterSpec:
    """One printed counter: id, faces (name, spec) front first, how many to
    print, and a content key for caching."""

    id: str
    kind: str                                # unit | marker | chit
    faces: tuple[tuple[str, FaceSpec], ...]
    count: int = 1

    def key(self, px: int, border: bool) -> str:
        """A content key: the renderer (its version and source), Pillow and
        every field of every face (the dataclasses' ``repr`` holds them all,
        in field order)."""
        blob = repr((RENDERER_VERSION, renderer_digest(), _PIL_VERSION, self.id, px, border, self.faces))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def _format_region(fmt: str, factors: Mapping[str, Any], where: str, region: str) -> str:
    try:
        return fmt.format_map(dict(factors))
    except KeyError as exc:
        raise CounterError(f"{where}: the layout's {region} text {fmt!r} names factor "
                           f"{exc.args[0]!r}, which this face does not have (it has: "
                           f"{', '.join(sorted(factors)) or 'none'})") from None
    except (ValueError, IndexError, AttributeError) as exc:
        raise CounterError(f"{where}: bad {region} format {fmt!r} ({exc})") from None


def _steps_of(utype: Any) -> tuple[list[Any], int]:
    values: list[Any] = []
    for face in utype.faces:
        v = face.state.get("step") if face.state else None
        if v is not None and v not in values:
            values.append(v)
    return values, max(int(utype.steps or 1), len(values))


def _template(scenario: Any, ref: str, cache: dict[str, CounterTemplate]) -> CounterTemplate:
    """The template ``ref`` names (bundled name or path in the scenario's folder)."""
    if ref not in cache:
        folder = Path(scenario.path).parent if scenario.path is not None else None
        found = template_file(ref, folder)
        if found is None:
            raise CounterError(f"styles.counter.template: unknown counter template {ref!r}",
                               file=scenario.path)
        try:
            cache[ref] = load_template(found)
        except TemplateError as exc:
            raise CounterError(str(exc)) from None
    return cache[ref]


@lru_cache(maxsize=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _image_ref(face: Any, where: str) -> tuple[str, str, str, tuple[int, int, int, int] | None,
                                                 tuple[float, float], str] | None:
    spec = getattr(face, "image_spec", None)
    if spec is None:
        return None
    try:
        st = os.stat(spec.path)
        digest = _file_digest(os.fspath(spec.path), st.st_mtime_ns, st.st_size)
    except OSError as exc:
        raise CounterError(f"{where}: the face image cannot be read ({exc.strerror})",
                           file=spec.path) from None
    return (os.fspath(spec.path), digest, spec.fit, spec.crop, spec.position, spec.box)


def _unit_specs(scenario: Any, style: CounterStyle) -> list[CounterSpec]:
    templates: dict[str, CounterTemplate] = {}
    out: list[CounterSpec] = []
    for counter in scenario.counters:
        look = _unit_look(scenario, style, counter, templates)
        faces = tuple((face.name, _unit_face(look, style, counter, index, face))
                      for index, face in enumerate(look.utype.faces))
        out.append(CounterSpec(counter.id, "unit", faces, 1))
    return out


@dataclass(frozen=True)
class _UnitLook:
    """What every face of one unit counter shares: its type's template,
    colours, fonts, layout, NATO symbol, art and steps."""

    utype: Any
    tpl: CounterTemplate
    fill: RGB
    ink: RGB
    stripe: RGB | None
    formation_stripe: RGB | None
    formation_text: str | None
    face_font: str
    label_font: str
    layout: dict[str, Any]
    layout_style: str
    nato: tuple[str, str | None, tuple[str, ...], bool] | None
    art: str | None
    located: Any
    step_values: list[Any]
    steps: int


def _unit_look(scenario: Any, style: CounterStyle, counter: Any,
               templates: dict[str, CounterTemplate]) -> _UnitLook:
    utype = scenario.unit_types[counter.type]
    side = scenario.game.side(counter.side)
    tpl = _template(scenario, style.template.for_unit(utype.id, side.id), templates)
    own = tpl.side_style(side.id)
    fill = _colour(own.get("fill", side.fill), f"side {side.id} fill")
    ink = _colour(own.get("ink", side.ink), f"side {side.id} ink")
    stripe_text = own.get("stripe", side.stripe)
    stripe = _colour(stripe_text, f"side {side.id} stripe") if stripe_text else None
    face_font = own.get("font") or tpl.font or style.font
    label_font = own.get("label_font") or tpl.label_font or style.label_font
    fstyle = style.formations.get(counter.formation or "", {})
    fstripe = _colour(fstyle["stripe"], f"styles.counter.formations.{counter.formation}.stripe") \
        if fstyle.get("stripe") else None
    ftext = fstyle.get("short")
    layout = dict(scenario.factor_layouts.get(utype.layout or "", {})) if utype.layout else {}
    if utype.layout and utype.layout not in scenario.factor_layouts:
        raise CounterError(f"counter {counter.id}: unit type {utype.id!r} uses layout "
                           f"{utype.layout!r}, which factor_layouts does not define",
                           file=scenario.path)
    layout_style = str(layout.pop("style", "tactical"))
    nato = _unit_nato(scenario, utype)
    art = tpl.art_for(utype.id, nato[0] if nato else None, nato[1] if nato else None, utype.tags)
    position = getattr(utype, "position", None)
    located = str(position) if position is not None and position.line else scenario.path
    step_values, steps = _steps_of(utype)
    return _UnitLook(utype, tpl, fill, ink, stripe, fstripe, str(ftext) if ftext else None, face_font,
                     label_font, layout, layout_style, nato, art, located, step_values, steps)


def _unit_nato(scenario: Any, utype: Any) -> tuple[str, str | None, tuple[str, ...], bool] | None:
    """The unit type's NATO symbol (symbol, size, modifiers, hq), checked."""
    if utype.nato is None:
        return None
    n = utype.nato
    try:
        check_nato(n.symbol, n.size, n.modifiers, where=f"unit type {utype.id}")
    except NatoError as exc:
        raise exc.located(file=scenario.path) from None
    return (n.symbol, n.size, tuple(n.modifiers), bool(n.hq))


def _unit_face(look: _UnitLook, style: CounterStyle, counter: Any, index: int, face: Any) -> FaceSpec:
    where = f"counter {counter.id}, face {face.name}"
    try:
        regions = tuple((r, _format_region(fmt, face.factors, where, r))
                        for r, fmt in look.layout.items() if r in REGIONS)
    except CounterError as exc:
        raise exc.located(file=look.located) from None
    step_value = face.state.get("step") if face.state else None
    lighter = index > 0
    reduced = (step_value is not None and look.step_values.index(step_value) > 0) or \
        any(str(v).lower() in style.reduced_states for v in (face.state or {}).values())
    if look.steps > 1 and style.show_pips:
        done = look.step_values.index(step_value) if step_value in look.step_values else index
        pips = (max(0, look.steps - done), look.steps)
    else:
        pips = (0, 0)
    cr = face.factors.get("command_range")
    uses_cr = any("command_range" in fmt for fmt in look.layout.values())
    nato = look.nato
    face_fill = _lighter_fill(look.fill, look.ink, style.reduced_lighten) if lighter else look.fill
    return FaceSpec(
        where=where, fill=face_fill, ink=look.ink, stripe=look.stripe, formation_stripe=look.formation_stripe,
        regions=regions, layout_style=look.layout_style, nato=nato,
        label=counter.label, formation_text=look.formation_text,
        reduced=reduced, reduced_mark=style.reduced_mark, pips=pips,
        command_range=str(cr) if cr is not None and not uses_cr and nato and nato[3] else None,
        font=look.face_font, label_font=look.label_font, border=style.border, template=look.tpl,
        art=look.art, image=_image_ref(face, where))


def _lighter_fill(fill: RGB, ink: RGB, lighten: float) -> RGB:
    """The fill of a face after the first: ``fill`` mixed ``lighten`` with
    white, or less where more would take the ink's contrast under WCAG's
    4.5:1 for text (white ink on a dark fill); never below the full face's
    own contrast."""
    floor = min(MIN_TEXT_CONTRAST, contrast_ratio(fill, ink))
    t = lighten
    while t > 0 and contrast_ratio(_mix(fill, (255, 255, 255), t), ink) < floor:
        t = round(t - 0.05, 2)
    return _mix(fill, (255, 255, 255), max(0.0, t))


def _marker_specs(scenario: Any, style: CounterStyle) -> list[CounterSpec]:
    out: list[CounterSpec] = []
    formations = [f for f in scenario.formations if f.chits]
    for kind in scenario.markers.values():
        if kind.representation != "counter":
            continue
        fill = _colour(kind.fill, f"marker {kind.id} fill") if kind.fill else (245, 245, 240)
        ink = _colour(kind.ink, f"marker {kind.id} ink") if kind.ink else (0, 0, 0)
        if kind.text is None and kind.scope == "box" and formations and style.chits \
                and "formation" in kind.id:
            # activation chits: one per formation chit, in the side's colours
            for f in formations:
                side = scenario.game.side(f.side)
                spec = FaceSpec(where=f"chit {f.id}", kind="marker",
                                fill=_colour(side.fill, f"side {side.id} fill"),
                                ink=_colour(side.ink, f"side {side.id} ink"),
                                stripe=_colour(side.stripe, "stripe") if side.stripe else None,
                                title=str(style.formations.get(f.id, {}).get("short") or f.name),
                                subtitle=kind.name, font=style.font,
                                label_font=style.label_font, border=style.border)
                out.append(CounterSpec(f"chit.{f.id}", "chit", (("front", spec),), int(f.chits)))
            continue
        count = style.marker_counts.get(kind.id, 1)
        if kind.id == "end_turn_chit" or (kind.text or "").upper() == "END TURN":
            count = style.marker_counts.get(kind.id, max(1, _end_turn_chits(scenario)))
        title = kind.text or kind.name
        subtitle = kind.name if kind.text and kind.name.lower() != kind.text.lower() else None
        spec = FaceSpec(where=f"marker {kind.id}", kind="marker", fill=fill, ink=ink,
                        title=title, subtitle=subtitle, font=style.font,
                        label_font=style.label_font, border=style.border)
        out.append(CounterSpec(f"marker.{kind.id}", "marker", (("front", spec),), count))
    return out


def _end_turn_chits(scenario: Any) -> int:
    if scenario.turns is None:
        return 0
    return max((p.activation.end_turn_chits for p in scenario.turns.phases
                if p.activation is not None), default=0)


def counter_specs(scenario: Any, style: CounterStyle | None = None) -> list[CounterSpec]:
    """Every counter of the scenario, resolved: unit counters in counter-mix
    order, then marker counters (``representation: counter``) and formation
    activation chits.  Raises :class:`CounterError` for bad data."""
    specs = resolved_specs(scenario, style)
    check_text_fits(scenario, specs)
    return specs


def resolved_specs(scenario: Any, style: CounterStyle | None = None) -> list[CounterSpec]:
    """:func:`counter_specs` without its check that every text fits (a
    build sends the specs to its workers first, then checks meanwhile)."""
    style = style or counter_style(scenario)
    return _unit_specs(scenario, style) + _marker_specs(scenario, style)


def check_text_fits(scenario: Any, specs: Sequence[CounterSpec]) -> None:
    """Fail early on text that cannot fit (decided at a fixed reference
    size, so rendering at any size fails alike): the :class:`CounterError`
    of the first such face, at its unit type's line."""
    for spec in specs:
        for _name, face in spec.faces:
            try:
                _layout_texts(face, _FIT_REFERENCE_PX)
            except CounterError as exc:
                raise located_counter_error(scenario, spec.id, exc) from None


def located_counter_error(scenario: Any, counter_id: str, exc: CounterError) -> CounterError:
    """``exc``, raised by a face of the counter (or marker) ``counter_id``,
    at its unit type's line of the scenario file (else at the file), when
    it does not name a file of its own."""
    try:
        pos = getattr(scenario.unit_type_of(scenario.counter(counter_id)), "position", None)
    except KeyError:                # a marker's or a chit's counter
        pos = None
    located = exc.located(file=str(pos) if pos is not None and pos.line else scenario.path)
    assert isinstance(located, CounterError)
    return located


# -- text fitting -----------------------------------------------------------------------
@lru_cache(maxsize=8192)
def _fit(text: str, font: str, nominal_frac: float, max_w_frac: float) -> tuple[float, float]:
    """(scale ≤ 1 of the nominal size at which ``text`` fits, its width at
    the nominal size as a fraction of the counter), decided at the
    reference size; one measurement per distinct text, font and place."""
    px = _FIT_REFERENCE_PX
    size = max(1, round(nominal_frac * px))
    width = fonts.load_font(font, size).getlength(text)
    max_w = max_w_frac * px
    return (1.0 if width <= max_w else max_w / width * 0.995), width / px


def _fit_scale(text: str, font: str, nominal_frac: float, max_w_frac: float, where: str,
               what: str) -> float:
    """Scale (≤ 1) of the nominal size at which ``text`` fits, decided at
    the reference size; error below :data:`MIN_TEXT_SCALE`."""
    scale, width = _fit(text, font, nominal_frac, max_w_frac)
    if scale < MIN_TEXT_SCALE:
        raise CounterTextError(
            f"{where}: the {what} text {text!r} does not fit on the counter even at "
            f"{round(MIN_TEXT_SCALE * 100)}% of its size (needs {width:.2f} of the counter's "
            f"width, has {max_w_frac:.2f}); shorten it or use a larger counter size")
    return scale


@lru_cache(maxsize=8192)
def _fitted_font(text: str, font: str, scale: float, nominal_frac: float, max_w_frac: float,
                 px: int) -> ImageFont.FreeTypeFont:
    size = max(4, round(nominal_frac * scale * px))
    f = fonts.load_font(font, size)
    while size > 4 and f.getlength(text) > max_w_frac * px:   # hinting at small sizes
        size -= 1
        f = fonts.load_font(font, size)
    return f


def _font_for(text: str, font: str, nominal_frac: float, max_w_frac: float, px: int,
              where: str, what: str) -> ImageFont.FreeTypeFont:
    scale = _fit_scale(text, font, nominal_frac, max_w_frac, where, what)
    return _fitted_font(text, font, scale, nominal_frac, max_w_frac, px)


def shrink_wrap(paragraphs: Sequence[Sequence[str]], font: str, frac: float, max_w: float, px: int,
                fits: Callable[[int, float], bool]) -> tuple[tuple[str, ...], float] | None:
    """Greedy word wrap of ``paragraphs`` (each its words) into lines of
    width ``max_w`` (a fraction of ``px``, the reference size) at the largest
    size from ``frac`` down to ``MIN_TEXT_SCALE * frac`` for which
    ``fits(number of lines, size)`` holds; None when none does.  Counters
    and cards fit their text with it."""
    limit = max_w * px
    steps = 12
    for i in range(steps + 1):
        f = frac * (1 - (1 - MIN_TEXT_SCALE) * i / steps)
        fnt = fonts.load_font(font, max(1, round(f * px)))
        lines: list[str] = []
        for words in paragraphs:
            start = len(lines)
            for word in words or [""]:
                cand = f"{lines[-1]} {word}" if len(lines) > start else word
                if len(lines) > start and fnt.getlength(cand) <= limit:
                    lines[-1] = cand
                else:
                    lines.append(word)
        if fits(len(lines), f) and all(fnt.getlength(ln) <= limit for ln in lines):
            return tuple(lines), f
    return None


@lru_cache(maxsize=4096)
def _wrap_lines(text: str, font: str, frac: float, max_w: float, max_lines: int, where: str,
                what: str, max_h: float = 1.0) -> tuple[tuple[str, ...], float]:
    """Greedy word wrap into at most ``max_lines`` lines of width ``max_w``
    at the largest size from ``frac`` down to ``MIN_TEXT_SCALE * frac``
    (decided at the reference size)."""
    fitted = shrink_wrap([text.split() or [""]], font, frac, max_w, _FIT_REFERENCE_PX,
                         lambda n, f: n <= max_lines and (n * 1.22 - 0.22) * f * 0.95 <= max_h)
    if fitted is not None:
        return fitted
    raise CounterTextError(
        f"{where}: the {what} text {text!r} does not fit on the counter in {max_lines} "
        f"line(s) even at {round(MIN_TEXT_SCALE * 100)}% of its size; shorten it "
        "or use a larger counter size")


# -- layout -------------------------------------------------------------------------------
@dataclass
class _Text:
    """One line of text on a counter face, placed in pixels
    (:func:`_layout_texts`): its font, anchor point and colour."""

    text: str
    font: Any
    x: float
    y: float            # the vertical centre of the capitals
    anchor: str         # l | m | r
    colour: RGB
    boxed: bool = False  # drawn in a box of the ink colour (the template's corners: boxed)
    what: str = ""       # what it is (label, title, subtitle, formation, a region): the lines of one text share it


def _row_widths(present: Sequence[str], left: str, mid: str, right: str) -> dict[str, float]:
    has_l, has_m, has_r = left in present, mid in present, right in present
    if has_m and (has_l or has_r):
        return {left: 0.29, mid: 0.33, right: 0.29}
    if has_m:
        return {mid: 0.9}
    return {left: 0.44, right: 0.44}


_CAP = 0.729                 # DejaVu's cap height, a fraction of the font size
#: the space between a designation and the factor row under it, a fraction of the row's capitals
_ROW_CLEARANCE = 0.45


#: the size at which descents are measured
_DESCENT_REF = 200


@lru_cache(maxsize=4096)
def _descent(text: str, font: str) -> float:
    """How far ``text`` reaches below its baseline (its descenders, commas,
    brackets), a fraction of the font size: measured at a large size, so
    that the geometry stays independent of the pixel size.  A text of
    Latin, Greek and Cyrillic letters, digits and punctuation without
    combining marks is laid on the baseline glyph by glyph (kerning moves
    glyphs along it, never up or down), so its lowest point is its lowest
    character's: measured once per character (a thousand designations
    share a dozen); any other text is laid out whole."""
    if text and all(ord(ch) < 0x0530 and not unicodedata.combining(ch) for ch in text):
        return max(_char_descent(ch, font) for ch in text)
    return _text_descent(text, font)


@lru_cache(maxsize=4096)
def _char_descent(ch: str, font: str) -> float:
    return _text_descent(ch, font)


def _text_descent(text: str, font: str) -> float:
    bottom = fonts.load_font(font, _DESCENT_REF).getbbox(text, anchor="ls")[3]
    return max(0.0, bottom / _DESCENT_REF)


def _label_lines(face: FaceSpec) -> tuple[tuple[str, ...], float]:
    """The designation's lines (one, else two) and size: at most the
    template's label size, shrunk to fit, never below 60 % of it."""
    label = face.label or ""
    size = face.template.label_size
    try:
        return (label,), size * _fit_scale(label, face.label_font, size, 0.9, face.where, "label")
    except CounterTextError:
        if len(label.split()) < 2:
            raise
    return _wrap_lines(label, face.label_font, size, 0.9, 2, face.where, "label")


@lru_cache(maxsize=4096)
def _lines_font(lines: tuple[str, ...], font: str, frac: float, max_w: float, px: int) -> ImageFont.FreeTypeFont:
    """The font at ``frac`` of ``px``, a pixel smaller while hinting makes a line wider than ``max_w``.
    A single line whose width at the reference size (``_fit``'s, already
    measured when the line was fitted at ``frac``), scaled to this font
    size, is inside ``max_w`` by more than hinting can add (2 px a
    character, 2 more) is not laid out again."""
    size = max(4, round(frac * px))
    f = fonts.load_font(font, size)
    if len(lines) == 1 and frac > 0:
        _scale, reference = _fit(lines[0], font, frac, max_w)
        if reference * size / frac + 2 * len(lines[0]) + 2 <= max_w * px:
            return f
    while f.size > 4 and max(f.getlength(ln) for ln in lines) > max_w * px:
        f = fonts.load_font(font, f.size - 1)
    return f


def _label_staff(face: FaceSpec, top_used: bool) -> bool:
    """The designation hangs beside an HQ's staff (one line)."""
    return bool(face.nato is not None and face.nato[3] and top_used and not face.art and face.image is None)


def _row_sizes(face: FaceSpec) -> tuple[float, float, float]:
    """Font sizes (fractions of the edge) of the top row, bottom row and the
    side texts, from the face's template and layout style."""
    t = face.template
    if face.layout_style == "operational":
        return min(t.top, 0.17), t.operational_bottom, t.side
    return t.top, t.bottom, t.side


def _geometry(face: FaceSpec) -> dict[str, Any]:
    """Positions as fractions of the edge (independent of pixel size),
    worked out from the template's sizes so that the rows, the size mark,
    the symbol (or art) and the designation never overlap: the symbol's
    size mark sits below the top row, the designation between the symbol
    and the bottom row (or above the symbol when no top row is used)."""
    t = face.template
    regions = dict(face.regions)
    top_used = any(r in regions for r in ("top_left", "top", "top_right"))
    bottom_used = any(r in regions for r in ("bottom_left", "bottom", "bottom_right"))
    top_f, bottom_f, _side = _row_sizes(face)
    top_off = t.stripe if face.stripe else 0.0
    g: dict[str, Any] = {"top_off": top_off, "top_used": top_used, "bottom_used": bottom_used}
    g["top_y"] = top_off + 0.135
    g["bottom_y"] = 0.855 - (0.01 if face.reduced else 0.0)
    lab = desc = 0.0             # the designation: its capitals (first line's top to last baseline), descenders
    if face.label:
        if _label_staff(face, top_used):
            lab = t.label_size * _CAP
            desc = t.label_size * _descent(face.label, face.label_font)
        else:
            lines, frac = _label_lines(face)
            lab = frac * _CAP + (len(lines) - 1) * frac * 1.18
            desc = frac * _descent(lines[-1], face.label_font)
    upper = (g["top_y"] + top_f * _CAP / 2 + 0.025) if top_used else top_off + 0.03
    # the row under the designation keeps it a part of the row's capitals away (a large row, more)
    row_gap = max(0.045, _ROW_CLEARANCE * bottom_f * _CAP)
    lower = (g["bottom_y"] - bottom_f * _CAP / 2 - row_gap) if bottom_used \
        else 0.95 - (t.reduced if face.reduced else 0)
    if face.label and top_used:
        g["label_y"] = lower - desc - lab / 2
        lower -= lab + desc + 0.035
    elif face.label:
        g["label_y"] = upper + lab / 2
        upper += lab + desc + 0.035
    else:
        g["label_y"] = None
    g["upper"], g["lower"] = upper, lower
    # the NATO symbol: a band for the size mark above a 0.62 × wide frame
    avail = max(0.1, lower - upper)
    mark = 0.27 if face.nato and face.nato[1] and face.nato[1] != "none" else 0.05
    staff = 0.3 if face.nato and face.nato[3] else 0.0
    fw = min(_FRAME_MAX, avail / (0.62 + mark + _FRAME_PAD), 0.8 / (1 + 0.1))
    if face.label and not top_used:
        fw = min(fw, _FRAME_MAX)
    content = (0.62 + mark) * fw
    g["frame_cy"] = upper + (avail - content) / 2 + mark * fw + 0.31 * fw
    g["frame_w"] = fw
    if staff and face.label and top_used:
        g["frame_cy"] = lower - 0.31 * fw
    # the art box: the template's, kept clear of the rows and the designation
    ax0, ay0, ax1, ay1 = t.art_box
    if face.image is not None:       # the designer's image takes the whole band between the texts
        ay0, ay1 = upper, lower
    reserve = 0.09 if t.size_mark and mark > 0.05 and face.art and face.image is None else 0.0
    g["art_box"] = (ax0, max(ay0, upper + reserve), ax1, min(ay1, lower))
    return g


#: the widest NATO frame (a fraction of the counter's edge) and the room kept around symbol and size mark
_FRAME_MAX = 0.56
_FRAME_PAD = 0.06
def _marker_title(face: FaceSpec) -> tuple[tuple[str, ...], float, str]:
    """Lines, size and font of a marker's big text: bold, else condensed
    bold, else smaller condensed text on up to four lines."""
    title = face.title or ""
    max_h = 0.6 if face.subtitle else 0.8
    tries = [(face.font, 0.3, 2), (face.label_font, 0.3, 2), (face.label_font, 0.17, 4)]
    for i, (fname, frac, nlines) in enumerate(tries):
        try:
            lines, f = _wrap_lines(title, fname, frac, 0.86, nlines, face.where, "marker", max_h)
            return lines, f, fname
        except CounterTextError:
            if i == len(tries) - 1:
                raise
    raise AssertionError("unreachable")


def _layout_texts(face: FaceSpec, px: int, geometry: dict[str, Any] | None = None) -> list[_Text]:
    """Every text of a face with its font and position in pixels
    (``geometry``: the face's :func:`_geometry`, when the caller has it)."""
    out: list[_Text] = []
    S = px
    if face.kind == "marker":
        sub_h = 0.0
        if face.subtitle:
            f = _font_for(face.subtitle, face.label_font, 0.12, 0.9, S, face.where, "marker name")
            out.append(_Text(face.subtitle, f, 0.5 * S, 0.86 * S, "m", face.ink, what="subtitle"))
            sub_h = 0.12
        lines, frac, fname = _marker_title(face)
        font = fonts.load_font(fname, max(4, round(frac * S)))
        while font.size > 4 and max(font.getlength(ln) for ln in lines) > 0.88 * S:
            font = fonts.load_font(fname, font.size - 1)
        lh = frac * 1.22
        cy0 = (0.5 - sub_h / 2 + (0.04 if face.stripe else 0)) - lh * (len(lines) - 1) / 2
        for i, line in enumerate(lines):
            out.append(_Text(line, font, 0.5 * S, (cy0 + i * lh) * S, "m", face.ink, what="title"))
        return out
    regions = dict(face.regions)
    g = geometry if geometry is not None else _geometry(face)
    top_f, bottom_f, side_f = _row_sizes(face)
    boxed = face.template.corners == "boxed"
    m = 0.075 if boxed else 0.06
    for _row, (l_, mid, r_), y, frac in (
            ("top", ("top_left", "top", "top_right"), g["top_y"], top_f),
            ("bottom", ("bottom_left", "bottom", "bottom_right"), g["bottom_y"], bottom_f)):
        present = [r for r in (l_, mid, r_) if r in regions]
        widths = _row_widths(present, l_, mid, r_)
        for region in present:
            text = regions[region]
            if not text.strip():
                continue
            f = _font_for(text, face.font, frac, widths[region] - (0.05 if boxed else 0), S, face.where,
                          region)
            x, anchor = {l_: (m, "l"), mid: (0.5, "m"), r_: (1 - m, "r")}[region]
            out.append(_Text(text, f, x * S, y * S, anchor, face.fill if boxed else face.ink, boxed, region))
    for region, x, anchor in (("left", m, "l"), ("right", 1 - m, "r")):
        if region in regions and regions[region].strip():
            f = _font_for(regions[region], face.font, side_f, 0.22, S, face.where, region)
            out.append(_Text(regions[region], f, x * S, g["frame_cy"] * S, anchor, face.ink, what=region))
    if "centre" in regions and regions["centre"].strip():
        f = _font_for(regions["centre"], face.font, 0.22, 0.8, S, face.where, "centre")
        out.append(_Text(regions["centre"], f, 0.5 * S, g["frame_cy"] * S, "m", face.ink, what="centre"))
    if face.label and g["label_y"] is not None:
        if _label_staff(face, g["top_used"]):      # beside the HQ staff, like a flag
            x0 = 0.5 - g["frame_w"] / 2 + 0.045
            f = _font_for(face.label, face.label_font, face.template.label_size, 0.96 - x0, S, face.where,
                          "label")
            out.append(_Text(face.label, f, x0 * S, g["label_y"] * S, "l", face.ink, what="label"))
        else:
            lines, frac = _label_lines(face)
            font = _lines_font(lines, face.label_font, frac, 0.9, S)
            lh = frac * 1.18
            for i, line in enumerate(lines):
                y = g["label_y"] - lh * (len(lines) - 1) / 2 + i * lh
                out.append(_Text(line, font, 0.5 * S, y * S, "m", face.ink, what="label"))
    if face.formation_text:
        f = _font_for(face.formation_text, face.label_font, 0.1, 0.2, S, face.where, "formation")
        out.append(_Text(face.formation_text, f, (1 - m) * S, (g["frame_cy"] - 0.1) * S, "r",
                         face.ink, what="formation"))
    return out


# -- drawing -----------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _disc(d_px: int, ink: RGB, filled: bool) -> Image.Image:
    ss = 4
    mask = Image.new("L", (d_px * ss, d_px * ss), 0)
    draw = ImageDraw.Draw(mask)
    w = max(ss, round(d_px * ss * 0.14))
    if filled:
        draw.ellipse((0, 0, d_px * ss - 1, d_px * ss - 1), fill=255)
    else:
        draw.ellipse((0, 0, d_px * ss - 1, d_px * ss - 1), outline=255, width=w)
    img = Image.new("RGBA", (d_px, d_px), ink + (0,))
    img.putalpha(mask.reduce(ss))
    return img


@lru_cache(maxsize=4096)
def _text_mask(text: str, font: ImageFont.FreeTypeFont, anchor: str) -> tuple[Image.Image, int, int]:
    """The coverage of ``text`` (drawn at a whole pixel with ``anchor``) and
    its offset from the anchor point: rendered once per distinct text and
    font, then filled into every face that shows it."""
    box = font.getbbox(text, anchor=anchor)
    left, top, right, bottom = math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3])
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


def _draw_text(img: Image.Image, t: _Text, box_colour: RGB | None = None) -> None:
    size = t.font.size
    cap = size * 0.729                                  # DejaVu cap height
    baseline = t.y + cap / 2
    mask, left, top = _text_mask(t.text, t.font, t.anchor + "s")
    x, y = round(t.x) + left, round(baseline) + top
    if t.boxed and box_colour is not None:
        pad = max(1, round(size * 0.18))
        ImageDraw.Draw(img).rectangle((x - pad, round(baseline - cap) - pad, x + mask.width + pad - 1,
                                       round(baseline) + pad - 1), fill=box_colour)
    img.paste(t.colour, (x, y, x + mask.width, y + mask.height), mask)


@lru_cache(maxsize=64)
def _source_image(path: str, digest: str) -> Image.Image:
    """A face image file, decoded once per process (``digest``: its bytes'
    sha256, so an edited file is read again)."""
    try:
        return load_image(path, "the face image", mode="RGBA")
    except ImageError as exc:
        raise CounterError(f"the face image cannot be read ({exc.reason})", file=path, place=exc.place) from None


@lru_cache(maxsize=512)
def _fitted_image(image: tuple[str, str, str, tuple[int, int, int, int] | None, tuple[float, float], str],
                  w: int, h: int) -> tuple[Image.Image, int, int]:
    """The face image cropped and fitted into a ``w`` × ``h`` box, and its
    offset in the box."""
    path, digest, fit, crop, (px, py), _box = image
    src = _source_image(path, digest)
    if crop is not None:
        x, y, cw, ch = crop
        src = src.crop((x, y, x + cw, y + ch))
    sw, sh = src.size
    if fit == "stretch":
        return src.resize((w, h), Image.Resampling.LANCZOS), 0, 0
    scale = (max if fit == "cover" else min)(w / sw, h / sh)
    nw, nh = max(1, round(sw * scale)), max(1, round(sh * scale))
    scaled = src.resize((nw, nh), Image.Resampling.LANCZOS)
    if fit == "cover":
        left, top = round((nw - w) * px), round((nh - h) * py)
        return scaled.crop((left, top, left + w, top + h)), 0, 0
    return scaled, round((w - nw) * px), round((h - nh) * py)


def _draw_base(face: FaceSpec, S: int, g: dict[str, Any]) -> Image.Image:
    """A face without its texts and border (:func:`render_face`): what it
    draws must not depend on the face's label or ``where``, which
    :func:`_base` leaves out of its key."""
    img = Image.new("RGB", (S, S), face.fill)
    draw = ImageDraw.Draw(img)
    t = face.template
    if face.image is not None and face.image[5] == "face":
        pic, ox, oy = _fitted_image(face.image, S, S)
        img.paste(pic, (ox, oy), pic)
    if face.stripe:
        draw.rectangle((0, 0, S - 1, round(t.stripe * S) - 1), fill=face.stripe)
    if face.formation_stripe:
        draw.rectangle((0, 0, round(t.formation * S) - 1, S - 1), fill=face.formation_stripe)
    if face.reduced:
        draw.rectangle((0, S - round(t.reduced * S), S - 1, S - 1), fill=face.reduced_mark)
    if face.kind == "unit":
        regions = dict(face.regions)
        ax0, ay0, ax1, ay1 = (round(v * S) for v in g["art_box"])
        if face.image is not None and face.image[5] == "art" and "centre" not in regions:
            pic, ox, oy = _fitted_image(face.image, max(1, ax1 - ax0), max(1, ay1 - ay0))
            img.paste(pic, (ax0 + ox, ay0 + oy), pic)
        elif face.art and "centre" not in regions:
            from vmodtool.render.art import render_art

            pic, ox, oy = render_art(face.art, ax1 - ax0, ay1 - ay0, face.ink, face.fill)
            img.paste(pic, (ax0 + ox, ay0 + oy), pic)
            if t.size_mark and face.nato and face.nato[1] and face.nato[1] != "none":
                fw = max(6, round(0.4 * S))
                mark = render_symbol("none", size=face.nato[1], frame_w=fw, ink=face.ink, line=max(1.0, S / 70),
                                     frame=False, where=face.where)
                mx0, my0, mx1, _my1 = mark.frame
                img.paste(mark.image, (round(S / 2 - (mx0 + mx1) / 2), ay0 - my0 + round(0.005 * S)),
                          mark.image)
        elif face.nato and "centre" not in regions:
            symbol, size, mods, hq = face.nato
            fw = max(6, round(g["frame_w"] * S))
            sym = render_symbol(symbol, size=size, modifiers=mods, hq=hq, frame_w=fw, ink=face.ink,
                                line=max(1.0, S / 70), where=face.where)
            fx0, fy0, fx1, fy1 = sym.frame
            cx, cy = S / 2, g["frame_cy"] * S
            ox = round(cx - (fx0 + fx1) / 2)
            oy = round(cy - (fy0 + fy1) / 2)
            img.paste(sym.image, (ox, oy), sym.image)
        if face.pips[1] > 1:
            n_left = face.pips[0]
            for i, (x, y, d) in enumerate(pip_boxes(face, S, g)):
                disc = _disc(d, face.ink, i < n_left)
                img.paste(disc, (x, y), disc)
        if face.command_range:
            d = max(8, round(0.17 * S))
            ring = _disc(d, face.ink, False)
            x = S - round(0.05 * S) - d
            y = round(g["frame_cy"] * S + 0.05 * S)
            img.paste(ring, (x, y), ring)
            f = fonts.load_font(face.font, max(4, round(d * 0.58)))
            _draw_text(img, _Text(face.command_range, f, x + d / 2, y + d / 2, "m", face.ink))
    return img


def pip_boxes(face: FaceSpec, S: int, g: Mapping[str, Any] | None = None) -> list[tuple[int, int, int]]:
    """Where the step pips of a unit face are drawn at ``S`` pixels: (x, y,
    diameter) of each, top down.  A column beside the symbol, centred on its
    frame: at the left edge (beside a formation band), or at the right edge
    when a side text takes the left and the right is free of side text and
    of the HQ's range ring."""
    total = face.pips[1]
    if total <= 1 or face.kind != "unit":
        return []
    g = g if g is not None else _geometry(face)
    regions = dict(face.regions)
    d = max(3, round(face.template.pip_size * S))
    gap = d * 1.45
    left = (0.085 if not face.formation_stripe else 0.1) * S - d / 2
    if "left" in regions and "right" not in regions and not face.command_range:
        left = (1 - 0.085) * S - d / 2
    y0 = g["frame_cy"] * S - gap * (total - 1) / 2 - d / 2
    return [(round(left), round(y0 + i * gap), d) for i in range(total)]


#: the bases of faces at up to this many pixels are kept (a VASSAL counter is 75)
_BASE_MAX_PX = 128
_BASES: dict[tuple[Any, ...], Image.Image] = {}


def _base(face: FaceSpec, S: int, g: dict[str, Any]) -> Image.Image:
    """:func:`_draw_base` of ``face``, drawn once for the faces that differ
    only in their label (the counters of one unit type and side): kept by
    the face without its label and ``where`` (every other field, and the
    geometry, which the label may move, are the key), so a base is reused
    only where it would be drawn alike."""
    if S > _BASE_MAX_PX:
        return _draw_base(face, S, g)
    plain = replace(face, label=None, where="")
    try:
        key = (S, plain, tuple(sorted(g.items())))
        found = _BASES.get(key)
    except TypeError:                       # an unhashable geometry value: not kept
        return _draw_base(face, S, g)
    if found is None:
        try:
            found = _draw_base(plain, S, g)
        except Exception:
            _draw_base(face, S, g)          # the error names the face
            raise
        if len(_BASES) >= 256:
            _BASES.clear()
        _BASES[key] = found
    return found


def render_face(face: FaceSpec, px: int, *, border: bool = True) -> Image.Image:
    """Draw one face as an RGB image ``px`` × ``px`` (``border``: a thin
    outline, for VASSAL images; print sheets use none)."""
    if px < 16:
        raise CounterError(f"{face.where}: a counter must be at least 16 px (got {px})")
    S = px
    g = _geometry(face) if face.kind == "unit" else {}
    texts = _layout_texts(face, S, g if face.kind == "unit" else None)
    img = _base(face, S, g).copy()
    for text in texts:
        _draw_text(img, text, face.ink)
    if border:
        w = max(1, round(S / 90))
        ImageDraw.Draw(img).rectangle((0, 0, S - 1, S - 1), outline=face.border, width=w)
    return img


def render_spec(spec: CounterSpec, px: int, *, border: bool = True) -> list[Image.Image]:
    """Every face of a resolved counter, front first."""
    return [render_face(face, px, border=border) for _name, face in spec.faces]


def _spec_for(scenario: Any, counter_id: str) -> CounterSpec:
    for spec in counter_specs(scenario):
        if spec.id == counter_id:
            return spec
    raise CounterError(f"no counter {counter_id!r} in the scenario", file=scenario.path)


def render_counter_faces(scenario: Any, counter: Any, *, px: int | None = None,
                         border: bool = True) -> list[Image.Image]:
    """The faces of one unit counter (a :class:`Counter` or its id) as RGB
    images, front first; ``px`` defaults to the VASSAL size."""
    style = counter_style(scenario)
    cid = counter if isinstance(counter, str) else counter.id
    specs = [s for s in _unit_specs(scenario, style) if s.id == cid]
    if not specs:
        raise CounterError(f"no counter {cid!r} in the scenario", file=scenario.path)
    return render_spec(specs[0], px or style.vassal_px, border=border)


def render_marker(scenario: Any, kind: str, *, px: int | None = None,
                  border: bool = True) -> Image.Image:
    """The counter of marker kind ``kind`` (or ``chit.<formation>``)."""
    style = counter_style(scenario)
    wanted = kind if kind.startswith("chit.") else f"marker.{kind}"
    for spec in _marker_specs(scenario, style):
        if spec.id == wanted:
            return render_spec(spec, px or style.vassal_px, border=border)[0]
    raise CounterError(f"no marker counter {kind!r} in the scenario (markers with "
                       "representation: counter only)", file=scenario.path)


# -- batch ----------------------------------------------------------------------------------
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(text: str) -> str:
    """An ASCII file-name part for ``text`` (stable; a hash is appended when
    characters had to be replaced)."""
    clean = _SAFE.sub("-", text)
    if clean != text or not clean:
        clean += "-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return clean


def face_filename(counter_id: str, face: str) -> str:
    return f"{safe_name(counter_id)}__{safe_name(face)}.png"


def _res_dir(resolution: str | int) -> str:
    return "vassal" if resolution == "vassal" else f"{int(resolution)}dpi"


@dataclass(frozen=True)
class ManifestEntry:
    """One face file in ``counters.json``: the counter, face and resolution it
    is for, its path and size, and the content key (:meth:`CounterSpec.key`)
    the cache compares."""

    counter: str
    face: str
    resolution: str          # "vassal" | "300dpi" …
    path: str                # relative to the output folder
    px: int
    key: str
    kind: str = "unit"
    count: int = 1
    sha256: str = ""         # of the file's bytes: a cached file is used only when they match


@dataclass
class Manifest:
    """What :func:`render_all` wrote: ``entries`` and how many faces were
    drawn and how many taken from the cache; ``data`` (with ``keep_data``)
    each file's bytes by its ``path``."""

    out_dir: Path
    entries: list[ManifestEntry]
    rendered: int = 0
    cached: int = 0
    data: dict[str, bytes] = field(default_factory=dict)

    def path(self, counter: str, face: str, resolution: str | int = "vassal") -> Path:
        res = _res_dir(resolution)
        for e in self.entries:
            if e.counter == counter and e.face == face and e.resolution == res:
                return self.out_dir / e.path
        raise KeyError((counter, face, res))

    def as_dict(self) -> dict[str, Any]:
        return {"renderer": RENDERER_VERSION, "entries": [dict(vars(e)) for e in self.entries]}


MANIFEST_NAME = "counters.json"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_Job = tuple[CounterSpec, int, bool, list[str]]


def _render_job(job: _Job) -> list[bytes]:
    spec, px, border, _paths = job
    return [encode_png(im) for im in render_spec(spec, px, border=border)]


def _write_job(out_dir: Path, job: _Job) -> list[bytes]:
    data = _render_job(job)
    for rel, blob in zip(job[3], data, strict=True):  # one path per rendered face
        atomic_write(out_dir / rel, blob)
    return data


def _worker(args: tuple[str, _Job]) -> list[bytes]:
    out_dir, job = args
    return _write_job(Path(out_dir), job)


def _old_manifest(path: Path) -> tuple[dict[str, tuple[str, str]], object]:
    """(path → (key, sha256), the whole document) of the last run's
    manifest; nothing when it is missing, of another renderer or not what
    this function writes."""
    try:
        data = parse_json(path.read_text("utf-8"))
        if data.get("renderer") != RENDERER_VERSION:
            return {}, None
        return {str(e["path"]): (str(e["key"]), str(e["sha256"])) for e in data.get("entries", [])}, data
    except (ValueError, OSError, KeyError, TypeError, AttributeError):
        return {}, None


def _cached_files(out: Path, paths: Sequence[str], key: str, old: Mapping[str, tuple[str, str]]
                  ) -> list[bytes] | None:
    """The bytes of a counter's cached files when every one has the
    counter's key and still the bytes recorded for it; None otherwise (a
    missing, changed or corrupt file is drawn again, never trusted)."""
    out_data = []
    for rel in paths:
        recorded = old.get(rel)
        if recorded is None or recorded[0] != key:
            return None
        try:
            blob = (out / rel).read_bytes()
        except OSError:
            return None
        if _sha(blob) != recorded[1]:
            return None
        out_data.append(blob)
    return out_data


def render_all(scenario: Any, out_dir: str | os.PathLike[str], *,
               resolutions: Sequence[str | int] = ("vassal", 300),
               jobs: int | None = None, cache: bool = True,
               progress: Callable[[int, int], None] | None = None,
               specs: Sequence[CounterSpec] | None = None, keep_data: bool = False) -> Manifest:
    """Write every face of every counter as PNG at each resolution
    (``"vassal"`` or a dpi; VASSAL images get a thin border, print images
    none) into ``out_dir`` and return the manifest, also written as
    ``counters.json``.  ``jobs``: worker processes (default: all cores;
    1 = in this process).  ``cache``: skip faces whose content key is
    unchanged and whose file still has the bytes the manifest records.
    ``progress(done, total)`` is called as counters finish.  ``keep_data``:
    the manifest's ``data`` holds every file's bytes (``vmodtool build``
    takes them without reading the files again)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise CounterError("the output must be a folder", file=out)
    if scenario.path is not None and out.resolve() == Path(scenario.path).resolve().parent:
        raise CounterError("write counters into their own folder, not the scenario's folder "
                           "(choose e.g. -o counters/)", file=out)
    style = counter_style(scenario)
    specs = list(specs) if specs is not None else counter_specs(scenario, style)
    output_folder(out)
    manifest_path = out / MANIFEST_NAME
    old, old_doc = _old_manifest(manifest_path) if cache else ({}, None)
    entries: list[ManifestEntry] = []
    todo: list[_Job] = []
    data: dict[str, bytes] = {}
    shas: dict[str, str] = {}
    cached = 0
    for res in resolutions:
        rdir = _res_dir(res)
        px = resolution_px(style, res)
        border = res == "vassal"
        output_folder(out, rdir)         # a real folder inside out: never a link to elsewhere
        for spec in specs:
            key = spec.key(px, border)
            paths = [f"{rdir}/{face_filename(spec.id, name)}" for name, _f in spec.faces]
            for (name, _f), rel in zip(spec.faces, paths, strict=True):
                entries.append(ManifestEntry(spec.id, name, rdir, rel, px, key, spec.kind, spec.count))
            found = _cached_files(out, paths, key, old) if cache else None
            if found is not None:
                cached += len(paths)
                for rel, blob in zip(paths, found, strict=True):
                    shas[rel] = old[rel][1]
                    if keep_data:
                        data[rel] = blob
                continue
            todo.append((spec, px, border, paths))
    total = len(todo)
    done = 0
    if progress:
        progress(0, total)
    n_jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    rendered = 0

    def record(job: _Job, blobs: list[bytes]) -> None:
        nonlocal rendered, done
        for rel, blob in zip(job[3], blobs, strict=True):
            shas[rel] = _sha(blob)
            if keep_data:
                data[rel] = blob
        rendered += len(blobs)
        done += 1
        if progress:
            progress(done, total)

    if n_jobs == 1 or total < 8:
        for job in todo:
            record(job, _write_job(out, job))
    else:
        from vmodtool.pools import process_pool  # only when there is much to draw

        chunk = max(1, min(16, total // (n_jobs * 8)))
        with process_pool(n_jobs) as pool:
            for job, blobs in zip(todo, pool.map(_worker, [(str(out), j) for j in todo], chunksize=chunk),
                                  strict=True):
                record(job, blobs)
    entries = [replace(e, sha256=shas[e.path]) for e in entries]
    manifest = Manifest(out, entries, rendered, cached, data)
    document = manifest.as_dict()
    if document != old_doc:             # an unchanged manifest is not written again
        atomic_write(manifest_path, json.dumps(document, indent=1, ensure_ascii=True).encode("ascii"))
    return manifest


def render_contact_sheet(scenario: Any, *, px: int = 120, cols: int = 8,
                         gap: int | None = None) -> Image.Image:
    """Every counter of the scenario on one image, each unit's faces side
    by side (front, back …), for proof-reading and documentation."""
    specs = counter_specs(scenario)
    gap = gap if gap is not None else max(4, px // 12)
    groups = [render_spec(s, px) for s in specs]
    # pack groups of faces into rows without splitting a counter's faces
    rows: list[list[Image.Image]] = [[]]
    for faces in groups:
        if rows[-1] and len(rows[-1]) + len(faces) > cols:
            rows.append([])
        rows[-1].extend(faces)
    w = cols * (px + gap) + gap
    h = len(rows) * (px + gap) + gap
    sheet = Image.new("RGB", (w, h), (255, 255, 255))
    for r, row in enumerate(rows):
        for c, img in enumerate(row):
            sheet.paste(img, (gap + c * (px + gap), gap + r * (px + gap)))
    return sheet
