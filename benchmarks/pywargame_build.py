"""The pywargame side of ``bench_build.py``: the same module built with
pywargame's own API, run with the Python of pywargame's virtual environment
(pywargame needs Python >= 3.12; this file imports nothing of vmodtool).

``python pywargame_build.py SPEC.json MODE IMAGES OUT.vmod``

* ``SPEC.json``: what ``bench_build.py`` wrote from the generated scenario
  (title, counter size, board size, the scenario's hex grid attributes,
  sides, unit types, every counter with its faces' texts and its hex).
* ``MODE``: ``render`` draws every image with plain Pillow and writes it to
  ``IMAGES`` (not timed; makes the warm run's input), ``cold`` draws every
  face and the board with plain Pillow inside the timed part, ``warm`` reads
  the images ``render`` wrote and only assembles the module.

The module is what pywargame makes of it: a ``BuildFile`` with ``Game``,
a ``Map`` with ``BoardPicker``/``Board``/``HexGrid``/``HexGridNumbering``,
``SetupStack`` s (``AtStart``) with every counter, a ``PieceWindow`` with a
tab per side, prototypes (unit, side, type), pieces with a ``LayerTrait``
for the two faces, dice and a turn track, zipped by ``VMod``.

Prints ``seconds images entries`` (the timed part: from after the imports
to the closed zip).
"""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from pywargame.vassal import (
    BasicTrait,
    BuildFile,
    DeleteTrait,
    LayerTrait,
    MarkTrait,
    ModuleData,
    MovedTrait,
    PrototypeTrait,
    ReportTrait,
    VMod,
)


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")                # Pillow's defaults
    return buf.getvalue()


class PlainRenderer:
    """A box in the face's fill, a symbol rectangle, the label above and
    the factors below (2-3 text lines), PNG."""

    def __init__(self, spec: dict) -> None:
        self.px = spec["px"]
        self.big = ImageFont.truetype(spec["font"], max(6, round(self.px * 0.2)))
        self.small = ImageFont.truetype(spec["label_font"], max(6, round(self.px * 0.13)))

    def face(self, face: dict) -> bytes:
        px = self.px
        img = Image.new("RGB", (px, px), tuple(face["fill"]))
        draw = ImageDraw.Draw(img)
        draw.rectangle((0, 0, px - 1, px - 1), outline=(40, 40, 40), width=1)
        draw.rectangle((px * 0.25, px * 0.32, px * 0.75, px * 0.62), outline=(0, 0, 0), width=2)
        *small, big = face["lines"]
        for line, y in zip(small, (0.16, 0.72), strict=False):
            draw.text((px / 2, px * y), line, font=self.small, fill=(0, 0, 0), anchor="mm")
        draw.text((px / 2, px * 0.87), big, font=self.big, fill=(0, 0, 0), anchor="mm")
        return png(img)

    def board(self, spec: dict) -> bytes:
        w, h = spec["board"]
        img = Image.new("RGB", (w, h), (230, 226, 195))
        draw = ImageDraw.Draw(img)
        dx, dy = float(spec["grid"]["dx"]), float(spec["grid"]["dy"])
        x0, y0 = float(spec["grid"]["x0"]), float(spec["grid"]["y0"])
        r = dx * 2 / 3                                   # flat-topped hexes, VASSAL's dx = 3/4 width
        col = 0
        while x0 + col * dx < w + dx:
            cx = x0 + col * dx
            row = 0
            while y0 + row * dy < h + dy:
                cy = y0 + row * dy + (dy / 2 if col % 2 else 0)
                pts = [(cx - r, cy), (cx - r / 2, cy - dy / 2), (cx + r / 2, cy - dy / 2), (cx + r, cy),
                       (cx + r / 2, cy + dy / 2), (cx - r / 2, cy + dy / 2)]
                draw.polygon(pts, outline=(90, 90, 90))
                row += 1
            col += 1
        return png(img)


def images(spec: dict, mode: str, folder: Path) -> dict[str, bytes]:
    """name -> PNG bytes of the board and every face."""
    if mode == "warm":
        return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
    renderer = PlainRenderer(spec)
    out = {"board.png": renderer.board(spec)}
    for counter in spec["counters"]:
        for face in counter["faces"]:
            out[face["file"]] = renderer.face(face)
    return out


def build(spec: dict, files: dict[str, bytes], output: Path) -> int:
    build = BuildFile()
    game = build.addGame(name=spec["title"], version="1.0", VassalVersion="3.7.0", description="")
    game.addBasicCommandEncoder()
    roster = game.addPlayerRoster()
    for side in spec["sides"]:
        roster.addSide(side["name"])
    game.addGlobalOptions()
    game.addChatter()
    prototypes = game.addPrototypes()
    prototypes.addPrototype(name="unit", description="What every unit has",
                            traits=[ReportTrait("70,130"), MovedTrait(), DeleteTrait(), BasicTrait()])
    for side in spec["sides"]:
        prototypes.addPrototype(name=f"side: {side['id']}",
                                traits=[MarkTrait(name="Side", value=side["name"]), BasicTrait()])
    for utype in spec["types"]:
        prototypes.addPrototype(name=f"type: {utype['id']}", description=utype["name"],
                                traits=[MarkTrait(name="UnitType", value=utype["id"]), BasicTrait()])

    map_ = game.addMap(mapName=spec["map"], markMoved="Always")
    picker = map_.addBoardPicker()
    board = picker.addBoard(name=spec["map"], image="board.png", width=spec["board"][0], height=spec["board"][1])
    grid = board.addHexGrid(**spec["grid"])
    grid.addNumbering(**spec["numbering"])
    map_.addStackMetrics()
    map_.addForwardToChatter()
    map_.addMenuDisplayer()
    map_.addMapCenterer()
    map_.addStackExpander()
    map_.addPieceMover()
    map_.addKeyBufferer()
    map_.addCounterDetailViewer()
    map_.addZoomer()
    map_.addSelectionHighlighters()
    map_.addHighlightLastMoved()

    def traits(counter: dict) -> list:
        faces = counter["faces"]
        return [PrototypeTrait(name="unit"), PrototypeTrait(name=f"type: {counter['type']}"),
                PrototypeTrait(name=f"side: {counter['side']}"),
                MarkTrait(name="UnitId", value=counter["id"]),
                LayerTrait(images=[f["file"] for f in faces], newNames=["", "+ (reduced)"][:len(faces)],
                           activateName="", increaseName="Flip", increaseChar="F", name="Face",
                           loop=True, follow=False),
                BasicTrait(name=counter["name"], filename=faces[0]["file"])]

    px = spec["px"]
    by_hex: dict[str, list[dict]] = {}
    for counter in spec["counters"]:
        by_hex.setdefault(counter["hex"], []).append(counter)
    for hex_id, counters in by_hex.items():
        stack = map_.addAtStart(name=f"{hex_id} start", location=hex_id, owningBoard=spec["map"],
                                useGridLocation=True)
        for counter in counters:
            stack.addPieceSlot(entryName=counter["name"], traits=traits(counter), width=px, height=px)

    window = game.addPieceWindow(name="Counters")
    tabs = window.addTabs(entryName="Counters")
    for side in spec["sides"]:
        panel = tabs.addList(entryName=side["name"])
        for counter in spec["counters"]:
            if counter["side"] == side["id"]:
                panel.addPieceSlot(entryName=counter["name"], traits=traits(counter), width=px, height=px,
                                   gpid=game.nextPieceSlotId())
    game.addDiceButton(name="2d6", nDice=2, nSides=6, text="2d6")
    turns = game.addTurnTrack(name="Turn")
    turns.addLevel(counter={"property": "Turn", "start": 1})        # addCounter has a bug in 0.8.0
    game.addInventory()
    game.addGlobalProperties()
    game.addGlobalTranslatableMessages()
    game.addLanguage()
    game.addKeyNamer()
    game.addDocumentation()

    data = ModuleData()
    meta = data.addData()
    meta.addVersion(version="1.0")
    meta.addVASSALVersion(version="3.7.0")
    meta.addName(name=spec["title"])
    meta.addDescription(description="")
    meta.addDateSaved()
    with VMod(str(output), "w") as vmod:
        vmod.addFiles(**{VMod.BUILD_FILE: build.encode(), VMod.MODULE_DATA: data.encode()})
        for name, blob in files.items():
            vmod.addFile("images/" + name, blob)
    return 2 + len(files)


def main() -> None:
    spec_path, mode, folder, output = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    start = time.perf_counter()
    spec = json.loads(Path(spec_path).read_text("utf-8"))
    if mode == "render":
        folder.mkdir(parents=True, exist_ok=True)
        for name, blob in images(spec, "cold", folder).items():
            (folder / name).write_bytes(blob)
        print(time.perf_counter() - start, 0, 0)
        return
    files = images(spec, mode, folder)
    entries = build(spec, files, output)
    print(time.perf_counter() - start, len(files), entries)


if __name__ == "__main__":
    main()
