"""Loading the ``charts`` and ``styles`` sections: chart images, and what
the counter renderer would refuse found at load time (the counter size,
templates, styles naming formations and marker kinds that do not exist)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_charts", "check_styles", "check_templates"]

_COUNTER_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)(?:/([0-9]+))?\s*(in|mm|px)\s*$")


def build_charts(c: ProblemCollector) -> list[M.Chart]:
    out = []
    for cp, _ in c.list_of(("charts",)):
        cid = c.text(cp + ("id",))
        image = c.text(cp + ("image",))
        if not cid or not image:
            continue
        path = c.local_file(cp + ("image",), image, "chart image")
        if path:
            out.append(M.Chart(cid, c.text(cp + ("name",), cid) or cid, path))
    return out


def check_styles(c: ProblemCollector, formations: Sequence[M.Formation], markers: Mapping[str, M.MarkerKind]
                 ) -> None:
    """What the counter renderer would refuse, found at load time: the
    counter size bounds the images the renderers allocate and gives
    VASSAL images of at least 24 px; formation styles and marker counts
    name formations and marker kinds that exist (the schema checks the
    keys, types, fonts and colours)."""
    cp = ("styles", "counter")
    _style_keys(c, cp + ("formations",), [f.id for f in formations], "formation")
    _style_keys(c, cp + ("marker_counts",), list(markers), "marker kind")
    sp = cp + ("size",)
    size = c.text(sp)
    m = _COUNTER_SIZE.match(size or "")
    if m is None:
        return   # the schema says how to write it
    value = float(m.group(1)) / (float(m.group(2)) if m.group(2) and float(m.group(2)) else 1.0)
    limit = L.MAX_COUNTER_SIZE[m.group(3)]
    if value > limit:
        c.err(sp, f"a counter of {size} is too large (at most {limit:g}{m.group(3)})")
        return
    dpi = c.get(cp + ("vassal_dpi",), (int, float), 120)
    if c.get(cp + ("vassal_px",)) is not None or not dpi > 0:
        return   # an explicit edge length (the schema bounds it)
    inches = value / dpi if m.group(3) == "px" else (value if m.group(3) == "in" else value / 25.4)
    px = round(value) if m.group(3) == "px" else round(inches * dpi)
    if px < 24:
        c.err(sp, f"a counter of {size} at {dpi:g} dpi gives VASSAL images of {px} px; at least 24 px "
                  "are needed (raise vassal_dpi or give vassal_px)")


def _style_keys(c: ProblemCollector, path: Path, known: Sequence[str], what: str) -> None:
    """Each key of the mapping at ``path`` names a known ``what`` (a
    style for a formation that does not exist would be ignored)."""
    for key in c.get(path, dict, {}):
        if isinstance(key, str) and key not in c.known_set(known):
            close = c.close_match(key, known)
            hint = f"; did you mean {close!r}?" if close else (
                f"; defined: {', '.join(known[:12])}" if known else f"; no {what}s are defined")
            c.err(path + (key,), f"unknown {what} {key!r}{hint}")


def check_templates(c: ProblemCollector, sides: Sequence[str], unit_types: Mapping[str, M.UnitType]) -> None:
    """``styles.counter.template``: every name is a bundled template or
    a template file in the scenario's folder that is a valid template."""
    tp = ("styles", "counter", "template")
    raw = c.get(tp)
    if raw is None:
        return
    refs: list[tuple[Path, Any]] = []
    if isinstance(raw, str):
        refs.append((tp, raw))
    elif isinstance(raw, dict):
        if "default" in raw:
            refs.append((tp + ("default",), raw["default"]))
        for part, known, what in (("sides", list(sides), "side"),
                                  ("unit_types", list(unit_types), "unit type")):
            _style_keys(c, tp + (part,), known, what)
            for key, value in (raw.get(part) or {}).items():
                refs.append((tp + (part, key), value))
    for rp, ref in refs:
        if isinstance(ref, str):
            _check_template(c, rp, ref)


def _check_template(c: ProblemCollector, rp: Path, ref: str) -> None:
    from vmodtool.scenario.templates import (
        TemplateError,
        bundled_templates,
        file_in_folder,
        load_template,
        template_file,
    )

    found = template_file(ref, c.folder)
    if found is not None and ref not in bundled_templates() and file_in_folder(c.folder, ref) is None:
        # a file, but outside the folder (``..``, an absolute path or a symbolic link)
        c.err(rp, f"the counter template {ref!r} must be inside the scenario's folder")
        return
    if found is None:
        names = ", ".join(bundled_templates())
        c.err(rp, f"unknown counter template {ref!r}: name a bundled template ({names}) "
                  "or a template file (.yaml) in the scenario's folder")
        return
    try:
        load_template(found)
    except TemplateError as exc:
        c.err(rp, f"the counter template {ref!r} cannot be used: {exc}")
