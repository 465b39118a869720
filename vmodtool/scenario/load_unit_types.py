"""Loading the ``factor_layouts`` and ``unit_types`` sections: each unit
type's faces (state, factors, image), tags, NATO symbol and steps."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_layouts", "build_unit_types", "face_image"]


def build_layouts(c: ProblemCollector) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for lid, regions in c.get(("factor_layouts",), dict, {}).items():
        if isinstance(regions, dict):
            out[str(lid)] = {str(k): v for k, v in regions.items() if isinstance(v, str)}
    return out


def scalar_map(value: dict[Any, Any]) -> dict[str, Any]:
    """A face's state or factors as the model keeps them: the entries with
    a text key and a text, number or boolean value (the schema reports the
    others, such as ``1: x`` or a list: building on them would fail)."""
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, (str, int, float))}


def build_unit_types(c: ProblemCollector, layouts: Mapping[str, Mapping[str, str]]) -> dict[str, M.UnitType]:
    out: dict[str, M.UnitType] = {}
    types = c.get(("unit_types",), dict, {})
    if not types and "unit_types" in c.data:
        c.err(("unit_types",), "define at least one unit type")
    all_tags: set[str] = set()
    for tdef in types.values():
        if isinstance(tdef, dict):
            all_tags.update(t for t in tdef.get("tags", []) or [] if isinstance(t, str))
    for tid, tdef in types.items():
        tp = ("unit_types", tid)
        if not isinstance(tdef, dict):
            continue
        faces = _faces(c, tp, tid)
        layout = c.ref(tp + ("layout",), layouts, "factor layout")
        if layout:
            check_layout(c, tp + ("layout",), layout, layouts, faces)
        tags = frozenset(t for t in c.get(tp + ("tags",), list, []) if isinstance(t, str))
        serves = tuple(t for t in c.get(tp + ("serves",), list, []) if isinstance(t, str))
        for sp, tag in c.list_of(tp + ("serves",)):
            if isinstance(tag, str) and tag not in all_tags:
                c.err(sp, f"unknown tag {tag!r}: no unit type has it")
        out[str(tid)] = M.UnitType(str(tid), c.text(tp + ("name",), str(tid)) or str(tid),
                                   tuple(faces), tags, c.text(tp + ("movement_class",)),
                                   _nato(c, tp), layout, _steps(c, tp, faces), serves, c.pos(tp))
    return out


def _faces(c: ProblemCollector, tp: Path, tid: object) -> list[M.Face]:
    faces: list[M.Face] = []
    for fp, face in c.list_of(tp + ("faces",)):
        if not isinstance(face, dict):
            continue
        name = c.text(fp + ("name",))
        factors = c.get(fp + ("factors",), dict)
        if factors is None and "factors" not in face:
            c.err(fp, f"face {name or ''!r} of unit type {tid!r} has no factors; "
                      "give its factors (e.g. factors: {attack: 4, defense: 3, move: 6})")
        elif factors == {}:
            c.err(fp + ("factors",), f"face {name!r} of unit type {tid!r} has an empty factor list")
        image_spec = face_image(c, fp + ("image",))
        faces.append(M.Face(name or f"face{len(faces) + 1}",
                            scalar_map(c.get(fp + ("state",), dict, {})), scalar_map(factors or {}),
                            str(image_spec.path) if image_spec else None, image_spec))
    if not faces:
        c.err(tp + ("faces",), f"unit type {tid!r} needs at least one face")
    c.unique_ids(tp + ("faces",), "name", f"face name in {tid!r}")
    return faces


def _nato(c: ProblemCollector, tp: Path) -> M.NatoSpec | None:
    if not isinstance(c.get(tp + ("nato",)), dict):
        return None
    np_ = tp + ("nato",)
    return M.NatoSpec(c.text(np_ + ("symbol",), "none") or "none", c.text(np_ + ("size",)),
                      tuple(m for m in c.get(np_ + ("modifiers",), list, []) if isinstance(m, str)),
                      bool(c.get(np_ + ("hq",), bool, False)))


def _steps(c: ProblemCollector, tp: Path, faces: Sequence[M.Face]) -> int:
    """``steps``: given, or the number of distinct ``step`` states of the faces."""
    steps = c.get(tp + ("steps",), int)
    if steps is None:
        step_values = {f.state.get("step") for f in faces if "step" in f.state}
        return max(1, len(step_values)) if step_values else 1
    if steps < 1:
        c.err(tp + ("steps",), "a unit has at least 1 step")
    elif not c.within(tp + ("steps",), steps, L.MAX_STEPS):
        return 1
    return int(steps)


def face_image(c: ProblemCollector, path: Path) -> M.FaceImage | None:
    """``faces[].image``: a file name, or ``{file, fit, crop, position,
    box}``; the file must be inside the scenario's folder and an image
    Pillow can read (checked here, so that check-scenario reports it)."""
    raw = c.get(path)
    if raw is None:
        return None
    opts: Mapping[str, Any] = raw if isinstance(raw, dict) else {"file": raw}
    name = opts.get("file")
    fpath = path + ("file",) if isinstance(raw, dict) else path
    if not isinstance(name, str) or not name:
        return None                       # the schema says what is expected
    found = c.local_file(fpath, name, "face image")
    if found is None:
        return None
    from vmodtool.images import ImageError, image_size

    try:
        # a counter draws it as RGBA: its header is refused past the decode budget
        width, height = image_size(found, "the face image", convert_to="RGBA", verify=True)
    except ImageError as exc:
        c.err(fpath, f"the face image {name!r} is not an image vmodtool can read ({exc.reason})")
        return None
    crop = opts.get("crop")
    box: tuple[int, int, int, int] | None = None
    if isinstance(crop, list) and len(crop) == 4 and all(isinstance(v, int) for v in crop):
        x, y, w, h = crop
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width or y + h > height:
            c.err(path + ("crop",), f"the crop [{x}, {y}, {w}, {h}] (x, y, width, height) must lie "
                                    f"inside the image, which is {width}x{height} pixels")
        else:
            box = (x, y, w, h)
    position = opts.get("position", [0.5, 0.5])
    pos = (float(position[0]), float(position[1])) if isinstance(position, list) and len(position) == 2 \
        else (0.5, 0.5)
    return M.FaceImage(found, str(opts.get("fit", "contain")), box, pos, str(opts.get("box", "art")))


def check_layout(c: ProblemCollector, path: Path, layout: str, layouts: Mapping[str, Mapping[str, str]],
                 faces: Sequence[M.Face]) -> None:
    """Warn of a factor the layout prints that a face lacks."""
    names: set[str] = set()
    for fmt in layouts.get(layout, {}).values():
        names.update(re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", fmt))
    for face in faces:
        missing = sorted(n for n in names if n not in face.factors)
        if missing:
            c.err(path, f"layout {layout!r} prints {', '.join(missing)} but face {face.name!r} "
                        "has no such factor", severity="warning")
