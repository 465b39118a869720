"""A scenario's terrain read from its board image (``vmodtool terrain``).

:func:`read_samples` reads the user's labelled hexes and hexsides (located
errors), :func:`derive_terrain` measures every hex and hexside of the
scenario's grid on the board image (:mod:`vmodtool.terrain.features`) and
labels them (:mod:`vmodtool.terrain.classify`); :func:`terrain_yaml` writes
the result as the scenario's ``map.terrain`` and ``map.hexsides`` sections,
each entry with its confidence, the doubtful ones listed for a human, and
(with ``keep``) the hexes and hexsides the scenario already types kept as
typed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vmodtool.errors import VmodError
from vmodtool.images import image_size, load_image
from vmodtool.scenario import model as M
from vmodtool.scenario.source import Document, load_document
from vmodtool.terrain.classify import (
    CrossingDetector,
    FeatureDetector,
    HexClassifier,
    Scaler,
    SymbolDetector,
    grow_lines,
    suggest,
)
from vmodtool.terrain.features import FloatArray, HexFrame, crossing_bands, hex_features, side_bands, srgb_to_lab

__all__ = ["Samples", "TerrainResult", "read_samples", "derive_terrain", "terrain_yaml", "read_board_image",
           "MAX_BOARD_PIXELS", "LOW_CONFIDENCE"]

#: the largest board image read (pixels): a 10,000 × 10,000 board is 300 MB as RGB
MAX_BOARD_PIXELS = 100_000_000
#: an answer below this confidence is listed for a human to check
LOW_CONFIDENCE = 0.25


@dataclass
class Samples:
    """The user's labels: terrain type → hex labels; hexside type → pairs;
    hexsides named plain (no feature)."""

    file: str
    hexes: dict[str, list[str]] = field(default_factory=dict)
    hexsides: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    plain: list[tuple[str, str]] = field(default_factory=list)
    #: hexside types read where their line crosses the side (roads that run
    #: town to town, not centre to centre)
    crossing: list[str] = field(default_factory=list)
    #: hexside type → the two types whose hexsides it is where both are found
    #: (a bridge where a road crosses a river)
    meet: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class TerrainResult:
    """Every hex's terrain type and every detected hexside feature, each
    with its confidence (0–1); ``suggested`` the hexes to label next."""

    hexes: dict[str, tuple[str, float]]
    hexsides: dict[str, list[tuple[str, str, float]]]
    doubtful_sides: list[tuple[str, str, str, float]]   # type, a, b, confidence: near the threshold
    suggested: list[str]
    scale: float

    def low_confidence(self, below: float = LOW_CONFIDENCE) -> list[tuple[str, str, float]]:
        return [(h, t, c) for h, (t, c) in self.hexes.items() if c < below]


def _error(doc: Document, path: tuple[Any, ...], message: str) -> VmodError:
    line, column = doc.where(path)
    place = f"line {line}" + (f", column {column}" if column else "") if line else None
    return VmodError(message, file=doc.file, place=place)


def _label(doc: Document, path: tuple[Any, ...], value: Any, hexes: Mapping[str, Any]) -> str:
    raw = doc.is_unquoted_number(path)
    label = raw if raw is not None else value
    if not isinstance(label, str):
        raise _error(doc, path, f"expected a hex label, found {value!r}")
    if label not in hexes:
        raise _error(doc, path, f"hex {label!r} is not on the scenario's map")
    return label


def read_samples(path: Path, scenario: M.Scenario) -> Samples:
    """The labelled hexes and hexsides of a samples file::

        hexes: {clear: ["0101", "0102"], woods: ["0401"]}
        hexsides: {river: [["0106", "0206"]]}
        plain: [["0101", "0102"]]          # hexsides with no feature (optional)

    A terrain type may also stand at the top level (``woods: [0401, 1210]``)."""
    doc = load_document(path)
    if doc.problems:
        p = doc.problems[0]
        raise VmodError(p.message, file=p.file, place=f"line {p.line}" if p.line else None)
    data = doc.data
    if not isinstance(data, dict):
        raise _error(doc, (), "expected a mapping of terrain types to hex labels (hexes:, hexsides:)")
    hmap = scenario.map
    grid = hmap.grid
    out = Samples(file=str(path))
    types = hmap.terrain_types
    side_types = hmap.hexside_types
    for key in data:
        if key in ("hexes", "hexsides", "plain", "crossing", "meet"):
            continue
        if key not in types:
            raise _error(doc, (key,), f"{key!r} is not a terrain type of the scenario (its types: "
                                      f"{', '.join(types) or 'none'}; hexsides go under 'hexsides:')")
    hex_part: dict[Any, Any] = {k: v for k, v in data.items() if k in types}
    nested = data.get("hexes", {})
    if not isinstance(nested, dict):
        raise _error(doc, ("hexes",), "expected a mapping of terrain type → list of hex labels")
    for key, labels in [*((("hexes", k), v) for k, v in nested.items()), *(((k,), v) for k, v in hex_part.items())]:
        name = key[-1]
        if name not in types:
            raise _error(doc, key, f"{name!r} is not a terrain type of the scenario (its types: "
                                   f"{', '.join(types) or 'none'})")
        if not isinstance(labels, list):
            raise _error(doc, key, "expected a list of hex labels")
        for i, value in enumerate(labels):
            label = _label(doc, key + (i,), value, grid.hexes)
            for other, listed in out.hexes.items():
                if label in listed and other != name:
                    raise _error(doc, key + (i,), f"hex {label} is labelled both {other!r} and {name!r}")
            out.hexes.setdefault(str(name), []).append(label)
    sides = data.get("hexsides", {})
    if not isinstance(sides, dict):
        raise _error(doc, ("hexsides",), "expected a mapping of hexside type → list of [hex, hex] pairs")

    def pairs(key: tuple[Any, ...], items: Any) -> list[tuple[str, str]]:
        if not isinstance(items, list):
            raise _error(doc, key, "expected a list of [hex, hex] pairs")
        found = []
        for i, pair in enumerate(items):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise _error(doc, key + (i,), "a hexside is a pair of two adjacent hexes, e.g. [\"0601\", \"0701\"]")
            a = _label(doc, key + (i, 0), pair[0], grid.hexes)
            b = _label(doc, key + (i, 1), pair[1], grid.hexes)
            if not grid.adjacent(a, b):
                raise _error(doc, key + (i,), f"hexes {a} and {b} are not adjacent: they share no hexside")
            x, y = sorted((a, b))
            found.append((x, y))
        return found

    for name, items in sides.items():
        if name not in side_types:
            raise _error(doc, ("hexsides", name), f"{name!r} is not a hexside type of the scenario (its types: "
                                                  f"{', '.join(side_types) or 'none'})")
        out.hexsides[str(name)] = pairs(("hexsides", name), items)
    if "plain" in data:
        out.plain = pairs(("plain",), data["plain"])
    out.crossing, out.meet = _crossing_and_meet(doc, data, side_types)
    if not out.hexes:
        raise _error(doc, (), "no hex is labelled: give a few hexes of each terrain type (hexes: {clear: [...]})")
    return out


def _crossing_and_meet(doc: Document, data: Mapping[str, Any], side_types: Mapping[str, Any],
                       ) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """The samples file's ``crossing: [road]`` (types read where their line
    crosses a hexside) and ``meet: {bridge: [road, river]}`` (a type found
    where two others are)."""
    crossing = data.get("crossing", [])
    if not isinstance(crossing, list):
        raise _error(doc, ("crossing",), "expected a list of hexside types (crossing: [road])")
    for i, name in enumerate(crossing):
        if name not in side_types:
            raise _error(doc, ("crossing", i), f"{name!r} is not a hexside type of the scenario")
    meet = data.get("meet", {})
    if not isinstance(meet, dict):
        raise _error(doc, ("meet",), "expected a mapping of hexside type → [type, type] "
                                     "(meet: {bridge: [road, river]})")
    found: dict[str, tuple[str, str]] = {}
    for name, pair in meet.items():
        if name not in side_types:
            raise _error(doc, ("meet", name), f"{name!r} is not a hexside type of the scenario")
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in side_types for p in pair)):
            raise _error(doc, ("meet", name), "expected two hexside types of the scenario, e.g. [road, river]")
        found[str(name)] = (str(pair[0]), str(pair[1]))
    return [str(c) for c in crossing], found


def read_board_image(source: Path, scenario: M.Scenario) -> npt.NDArray[np.uint8]:
    """The board image as 8-bit RGB: ``source`` an image file, or a module
    (``.vmod``, a module folder or buildFile) whose board of the scenario's
    map is read.  Refused past :data:`MAX_BOARD_PIXELS`, before decoding."""
    data: bytes | None
    name = str(source)
    if source.is_dir() or source.suffix.lower() in (".vmod", ".zip", ".xml") or source.name == "buildFile":
        from vmodtool.vassal.module import Module
        hmap = scenario.map
        with Module.open(source) as module:
            image = ""
            for entry in module.buildfile.maps():
                if hmap.module_map not in (None, entry.name):
                    continue
                for board in entry.boards:
                    if hmap.module_board in (None, board.name) and board.image:
                        image = board.image
                        break
                if image:
                    break
            if not image:
                raise VmodError("the module has no board image for the scenario's map", file=source)
            data = module.read_file("images/" + image)
            if data is None:
                raise VmodError(f"the module lacks its board image images/{image}", file=source)
            name = f"{source}!images/{image}"
    else:
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise VmodError(f"cannot read the image: {exc.strerror}", file=source) from None
    width, height = image_size(data, "the board image", file=name, budget=MAX_BOARD_PIXELS * 4)
    if width * height > MAX_BOARD_PIXELS:
        raise VmodError(f"the image is {width}×{height} pixels, more than the "
                        f"{MAX_BOARD_PIXELS:,} a board may have", file=name)
    rgb = load_image(data, "the board image", file=name, mode="RGB", budget=MAX_BOARD_PIXELS * 4)
    return np.asarray(rgb, dtype=np.uint8)


def _frame(scenario: M.Scenario, image: npt.NDArray[np.uint8]) -> HexFrame:
    hmap = scenario.map
    grid = hmap.grid
    board_w, board_h = grid.size if grid.size[0] > 0 else hmap.size
    height, width = image.shape[:2]
    if board_w <= 0 or board_h <= 0:
        raise VmodError("the scenario's map has no board size")
    scale = width / board_w
    if height + 1 < board_h * scale * 0.98:
        raise VmodError(f"the image ({width}×{height}) is not the board ({board_w}×{board_h}) at any scale: "
                        "give the board as VASSAL shows it, or that board drawn larger")
    inner = grid.grid.dy / 2
    centres = {label: (float(x), float(y)) for label, (x, y) in grid.centres.items()}
    return HexFrame(centres, inner, scale)


def derive_terrain(scenario: M.Scenario, image: npt.NDArray[np.uint8], samples: Samples,
                   suggest_count: int = 0) -> TerrainResult:
    """Every hex's terrain and every hexside's features, from the samples."""
    frame = _frame(scenario, image)
    labels = list(scenario.map.grid.hexes)
    index = {label: i for i, label in enumerate(labels)}
    features = hex_features(image, frame, labels)
    found, doubtful = _derive_hexsides(scenario, image, frame, samples, features, index)
    # the hexes again, less the lines found through them (roads)
    lines: dict[str, list[str]] = {}
    for type_id, sides in found.items():
        if _band_kind(scenario.map.hexside_types[type_id]) == "across":
            for a, b, _ in sides:
                lines.setdefault(a, []).append(b)
                lines.setdefault(b, []).append(a)
    if lines:
        features = hex_features(image, frame, labels, lines)
    scaler = Scaler.fit(features)
    scaled = scaler(features)
    labelled = {index[h]: name for name, hexes in samples.hexes.items() for h in hexes}
    classifier = HexClassifier.fit(scaled, labelled)
    classes, confidence = classifier.predict(scaled)
    for i, name in labelled.items():
        classes[i] = name
        confidence[i] = 1.0
    hexes = {label: (classes[i], float(confidence[i])) for i, label in enumerate(labels)}
    suggested = [labels[i] for i in suggest(scaled, confidence, set(labelled), suggest_count)] \
        if suggest_count > 0 else []

    return TerrainResult(hexes, found, doubtful, suggested, frame.scale)


def _derive_hexsides(scenario: M.Scenario, image: npt.NDArray[np.uint8], frame: HexFrame, samples: Samples,
                     features: FloatArray, index: dict[str, int],
                     ) -> tuple[dict[str, list[tuple[str, str, float]]], list[tuple[str, str, str, float]]]:
    """The hexsides of each sampled hexside type (a, b, confidence), and
    the doubtful ones (type, a, b, confidence)."""
    labels = list(index)
    grid = scenario.map.grid
    side_pairs: list[tuple[str, str]] = sorted({(min(a, b), max(a, b)) for a in labels for b in grid.neighbours(a)})
    side_index = {pair: i for i, pair in enumerate(side_pairs)}
    ground = np.array([(features[index[a], :3], features[index[b], :3]) for a, b in side_pairs]) \
        if side_pairs else np.empty((0, 2, 3))
    found: dict[str, list[tuple[str, str, float]]] = {}
    doubtful: list[tuple[str, str, str, float]] = []
    bands: dict[str, npt.NDArray[np.float32]] = {}
    crossing: npt.NDArray[np.uint8] | None = None
    for type_id, positives in samples.hexsides.items():
        if not positives:
            continue
        htype = scenario.map.hexside_types[type_id]
        kind = "crossing" if type_id in samples.crossing else _band_kind(htype)
        if kind not in bands and kind != "crossing":
            bands[kind] = srgb_to_lab(side_bands(image, frame, side_pairs, kind))
        pos = [side_index[p] for p in positives]
        neg = [side_index[p] for p in samples.plain]
        if kind == "crossing":
            if crossing is None:
                # a crossing band stays RGB: its detector converts a chunk at a time
                crossing = crossing_bands(image, frame, side_pairs)
            hits, conf = CrossingDetector.fit(crossing, ground, pos, neg).detect(crossing, ground)
        elif kind == "patch":
            hits, conf = SymbolDetector.fit(bands[kind], pos, neg).detect(bands[kind])
        else:
            strong, weak, conf = FeatureDetector.fit(bands[kind], ground, pos, neg).detect(
                bands[kind], ground, ends=kind == "along")
            for i in pos:
                strong[i] = True
            for i in neg:
                weak[i] = strong[i] = False
            hits = grow_lines(strong, weak, side_pairs, grid.adjacent, along=kind == "along") \
                if htype.continuous else strong
        for p in positives:
            hits[side_index[p]] = True
            conf[side_index[p]] = 1.0
        for p in samples.plain:
            hits[side_index[p]] = False
            conf[side_index[p]] = 1.0
        found[type_id] = [(a, b, float(conf[i])) for i, (a, b) in enumerate(side_pairs) if hits[i]]
        doubtful.extend((type_id, a, b, float(conf[i])) for i, (a, b) in enumerate(side_pairs)
                        if conf[i] < LOW_CONFIDENCE)
    _meet(found, samples.meet)
    return found, doubtful


def _meet(found: dict[str, list[tuple[str, str, float]]], meet: Mapping[str, tuple[str, str]]) -> None:
    """Type each ``meet`` type on the hexsides found as both of its two
    types (a bridge where a road crosses a river), with the first's confidence."""
    for type_id, (one, other) in meet.items():
        if one in found and other in found:
            where = {(a, b) for a, b, _ in found[other]}
            found[type_id] = [(a, b, c) for a, b, c in found[one] if (a, b) in where]


def _band_kind(htype: M.HexsideType) -> str:
    """What a hexside type is seen by: a line along the side (a river), one
    from centre to centre (a road), or a symbol about the side's middle (a
    bridge)."""
    if htype.symbol:
        return "patch"
    return "across" if htype.drawn_as == "centre_line" else "along"


def _yaml_key(label: str) -> str:
    return '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'


def terrain_yaml(scenario: M.Scenario, result: TerrainResult, *, keep: bool = False,
                 source: str = "", samples_file: str = "") -> str:
    """The ``map.terrain`` and ``map.hexsides`` sections as scenario YAML,
    each entry with its confidence as a comment.  With ``keep``, hexes and
    hexsides the scenario types already stay as typed (and win)."""
    hmap = scenario.map
    typed_hexes = typed_terrain(hmap) if keep else {}
    default = (_most_common(name for label, (name, _) in result.hexes.items() if label not in typed_hexes)
               or _most_common(hmap.terrain.values()) or "")
    lines = [f"# map.terrain and map.hexsides read from {source or 'the board image'} by vmodtool terrain",
             f"# samples: {samples_file or '-'}; confidence 0-1 after each entry (1: a sample or typed by hand)"]
    low = sorted(result.low_confidence(), key=lambda t: t[2])
    if low:
        lines.append(f"# {len(low)} hexes of low confidence (< {LOW_CONFIDENCE}), to check by eye: "
                     + ", ".join(f"{h} ({t}?)" for h, t, _ in low[:40]) + (" …" if len(low) > 40 else ""))
    lines += ["map:", "  terrain:", f"    default: {default}", *_derived_lines(source, low, typed_hexes),
              "    hexes:"]
    listed = 0
    for label, (name, conf) in result.hexes.items():
        if label in typed_hexes:
            lines.append(f"      {_yaml_key(label)}: {typed_hexes[label]}   # typed by hand")
            listed += 1
        elif name != default:
            lines.append(f"      {_yaml_key(label)}: {name}   # {conf:.2f}")
            listed += 1
    if not listed:
        lines[-1] = "    hexes: {}"
    lines.append("  hexsides:")
    typed_sides = [(s.type, s.a, s.b) for s in hmap.hexsides] if keep else []
    entries = 0
    for type_id, sides in result.hexsides.items():
        known = {(a, b) for t, a, b in typed_sides if t == type_id}
        lines.append(f"    - type: {type_id}")
        lines.append("      between:")
        for a, b, conf in sides:
            note = "typed by hand" if (a, b) in known else f"{conf:.2f}"
            lines.append(f"        - [{_yaml_key(a)}, {_yaml_key(b)}]   # {note}")
        for a, b in sorted(known - {(a, b) for a, b, _ in sides}):
            lines.append(f"        - [{_yaml_key(a)}, {_yaml_key(b)}]   # typed by hand")
        entries += 1
    for type_id in sorted({t for t, _, _ in typed_sides} - set(result.hexsides)):
        lines.append(f"    - type: {type_id}   # typed by hand")
        lines.append("      between:")
        for t, a, b in typed_sides:
            if t == type_id:
                lines.append(f"        - [{_yaml_key(a)}, {_yaml_key(b)}]")
        entries += 1
    if not entries:
        lines[-1] = "  hexsides: []"
    return "\n".join(lines) + "\n"


def _derived_lines(source: str, low: Iterable[tuple[str, str, float]], typed: Mapping[str, str]) -> list[str]:
    """``map.terrain.derived``: the terrain was read from ``source``, not
    typed (the audit accuses on it only what no misreading excuses), and
    the hexes of low confidence not typed by hand (``unsure``)."""
    unsure = sorted(h for h, _, _ in low if h not in typed)
    return ["    derived:   # read from the image, not typed by hand",
            f"      source: {_yaml_key(source or 'the board image')}",
            "      unsure: [" + ", ".join(_yaml_key(h) for h in unsure) + "]"]


def _most_common(names: Iterable[str]) -> str | None:
    """The commonest name (the greater name on a tie, so the answer does not
    depend on the order), None when there is none."""
    counts = Counter(names)
    return max(counts, key=lambda k: (counts[k], k)) if counts else None


def typed_terrain(hmap: M.HexMap) -> dict[str, str]:
    """The hexes a scenario types other than its default (the most common
    type: the scenario's ``terrain.default`` fills every hex it does not
    type), which a merge keeps as typed."""
    base = _most_common(hmap.terrain.values())
    return {h: t for h, t in hmap.terrain.items() if t != base}


def label_counts(result: TerrainResult) -> dict[str, int]:
    """How many hexes got each terrain type."""
    return dict(Counter(name for name, _ in result.hexes.values()))
