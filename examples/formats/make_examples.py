"""Write the small VASSAL files that the README's ``inspect``/``dump``
examples and the tests use: a demo module and a play-by-email log of it.

Run ``python examples/formats/make_examples.py``; the output is the same
every time (fixed keys, ids and timestamps), so it is committed beside this
script.  Everything here is made by vmodtool itself — no third-party file.

* ``demo.vmod`` (and the same files unpacked under ``demo-module/``): one map
  with a 10x8 flat-top hex board numbered ``0101``…, two two-sided units (one
  with a Russian name), an Ops Complete marker and a ``2d6`` dice button.
* ``demo.vlog``: the log of a short game of it — a move, a flip, a dice
  roll (the button's report and its ``2d6_result``/``_total``/``_keep``/
  ``_summary`` properties, as VASSAL 3.7.26 logs them), chat in Russian, and
  an undone move.  The players' VASSAL passwords
  (``alice-secret``, ``boris-secret``) are in the file, as in any real log;
  ``vmodtool`` never prints them.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from lxml import etree
from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from vmodtool.assemble.components import DEFAULTS  # noqa: E402
from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.vassal import traits as T  # noqa: E402
from vmodtool.vassal.archive import build_zip  # noqa: E402
from vmodtool.vassal.buildfile import BuildFile  # noqa: E402
from vmodtool.vassal.commands import AddPiece, ChangePiece, MovePiece  # noqa: E402
from vmodtool.vassal.grid import HexGrid  # noqa: E402
from vmodtool.vassal.keys import CTRL, key  # noqa: E402
from vmodtool.vassal.metadata import ModuleMetadata, SaveMetadata  # noqa: E402
from vmodtool.vassal.obfuscation import encode_saved_game  # noqa: E402
from vmodtool.vassal.pieces import PieceDef  # noqa: E402
from vmodtool.vassal.sequence import encode_sequence  # noqa: E402

ESC = "\x1b"
NAME, VERSION, VASSAL = "vmodtool Demo", "1.0", "3.7.0"
MAP, BOARD = "Main Map", "Demo Board"
BOARD_SIZE = (700, 620)
GRID = {"dx": "64.95", "dy": "75.0", "x0": "40", "y0": "38", "sideways": "false",
        "snapTo": "true", "visible": "true"}
NUMBERING = {"first": "H", "sep": "", "hLeading": "1", "vLeading": "1", "hOff": "1",
             "vOff": "1", "stagger": "false", "hType": "N", "vType": "N", "visible": "true"}
COUNTER = 60
FLIP = key("F", CTRL)                       # Ctrl+F: a name would make VASSAL ignore the keys
ALICE, BORIS = ("alice-secret", "Алиса", "Синие"), ("boris-secret", "Борис", "Красные")
PREFIX = "VASSAL.build."
DICE = "2d6"                                       # a DiceButton: defines 2d6_result, _total, _keep, _summary
DICE_REPORT = "** $name$ = $result$ *** &lt;$PlayerName$&gt;"   # VASSAL's own default


def grid() -> HexGrid:
    return HexGrid.from_attributes(GRID, NUMBERING, container_size=BOARD_SIZE)


def board_png() -> bytes:
    g = grid()
    img = Image.new("RGB", BOARD_SIZE, (233, 226, 200))
    draw = ImageDraw.Draw(img)
    r = g.dx * 2 / 3
    for label, (cx, cy) in g.hex_centres(*BOARD_SIZE):
        pts = [(cx - r, cy), (cx - r / 2, cy - g.dy / 2), (cx + r / 2, cy - g.dy / 2),
               (cx + r, cy), (cx + r / 2, cy + g.dy / 2), (cx - r / 2, cy + g.dy / 2)]
        draw.polygon(pts, outline=(120, 110, 90))
        draw.text((cx - 12, cy - g.dy / 2 + 4), label, fill=(90, 80, 60))
    return _png(img)


def counter_png(colour, text: str) -> bytes:
    img = Image.new("RGB", (COUNTER, COUNTER), colour)
    draw = ImageDraw.Draw(img)
    draw.rectangle((14, 12, 46, 32), outline=(0, 0, 0), width=2)
    draw.line((14, 12, 46, 32), fill=(0, 0, 0), width=2)
    draw.line((14, 32, 46, 12), fill=(0, 0, 0), width=2)
    draw.text((16, 40), text, fill=(0, 0, 0))
    return _png(img)


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def unit(name: str, unit_id: str, side: str, front: str, back: str) -> PieceDef:
    return PieceDef.from_traits([
        T.ReportState.build(keys=[FLIP], report_format="$oldPieceName$ $menuCommand$ ($location$)"),
        T.MovementMarkable.build(command="Mark Moved"),
        T.Delete.build(),
        T.Marker.build(properties={"UnitId": unit_id, "Side": side}),
        T.Embellishment.build(activate_command="", up_command="Flip", image_names=[front, back],
                              level_names=["", "+ (reduced)"], layer_name="Step",
                              always_active=True, activate_keystroke=None, increase_keystroke=FLIP),
        T.BasicPiece.build(image=front, piece_name=name),
    ])


def marker() -> PieceDef:
    return PieceDef.from_traits([T.Delete.build(),
                                 T.BasicPiece.build(image="ops-complete.png",
                                                    piece_name="Ops Complete")])


PIECES = [
    ("1/A/1-36 Inf", unit("1/A/1-36 Inf", "nato.inf.1", "Синие", "blue-inf.png", "blue-inf-r.png")),
    ("1-й танковый батальон", unit("1-й танковый батальон", "wp.tank.1", "Красные",
                                   "red-tank.png", "red-tank-r.png")),
    ("Ops Complete", marker()),
]


def _with_gpid(piece: PieceDef, gpid: int) -> str:
    """PieceSlot text with the slot's gpid in the BasicPiece state."""
    basic = piece.basic_state()
    basic.gpid = str(gpid)
    traits = list(piece.traits)
    traits[-1] = traits[-1].with_state(basic.encode())
    return PieceDef.from_traits(traits).encode()


def buildfile() -> bytes:
    bf = BuildFile.new(attributes=[("name", NAME), ("version", VERSION), ("VassalVersion", VASSAL),
                                   ("nextPieceSlotId", str(len(PIECES) + 1)), ("description", "")])
    root = bf.root
    E = etree.SubElement
    E(root, PREFIX + "module.BasicCommandEncoder")
    roster = E(root, PREFIX + "module.PlayerRoster")
    for side in (ALICE[2], BORIS[2]):
        E(roster, "entry").text = side
    E(root, PREFIX + "module.GlobalOptions")
    E(root, PREFIX + "module.Chatter")
    m = E(root, PREFIX + "module.Map", mapName=MAP)
    picker = E(m, PREFIX + "module.map.BoardPicker")
    board = E(picker, PREFIX + "module.map.boardPicker.Board", name=BOARD, image="board.png")
    hexgrid = E(board, PREFIX + "module.map.boardPicker.board.HexGrid", **GRID)
    E(hexgrid, PREFIX + "module.map.boardPicker.board.mapgrid.HexGridNumbering", **NUMBERING)
    E(m, PREFIX + "module.map.StackMetrics")
    E(m, PREFIX + "module.map.PieceMover")
    window = E(root, PREFIX + "module.PieceWindow", name="Pieces")
    widget = E(window, PREFIX + "widget.ListWidget", entryName="Units")
    for gpid, (name, piece) in enumerate(PIECES, start=1):
        slot = E(widget, PREFIX + "widget.PieceSlot", entryName=name, gpid=str(gpid),
                 width=str(COUNTER), height=str(COUNTER))
        slot.text = _with_gpid(piece, gpid)
    E(root, PREFIX + "module.PrototypesContainer")
    dice = dict(DEFAULTS["module.DiceButton"], name=DICE, text=DICE, tooltip=f"Roll {DICE}",
                reportFormat=DICE_REPORT)
    E(root, PREFIX + "module.DiceButton", **dict(sorted(dice.items())))
    return bf.to_bytes()


def module_files() -> dict:
    meta = ModuleMetadata(version=VERSION, vassal_version=VASSAL, date_saved="0",
                          description="A tiny module made by vmodtool's examples", name=NAME)
    return {
        "buildFile.xml": buildfile(),
        "moduledata": meta.to_bytes(),
        "images/board.png": board_png(),
        "images/blue-inf.png": counter_png((120, 170, 230), "1-36"),
        "images/blue-inf-r.png": counter_png((170, 200, 240), "1-36"),
        "images/red-tank.png": counter_png((230, 120, 110), "1 тб"),
        "images/red-tank-r.png": counter_png((240, 170, 160), "1 тб"),
        "images/ops-complete.png": counter_png((240, 240, 240), "OPS"),
    }


def game_log() -> str:
    g = grid()
    inf_id, tank_id = "1700000000001", "1700000000002"
    inf, tank = PIECES[0][1], PIECES[1][1]

    def placed(piece: PieceDef, piece_id: str, gpid: int, hex_label: str) -> AddPiece:
        x, y = g.get_location(hex_label)
        basic = piece.basic_state()
        basic.map, basic.x, basic.y, basic.gpid = MAP, x, y, str(gpid)
        basic.properties = {"UniqueID": piece_id}
        traits = list(piece.traits)
        traits[-1] = traits[-1].with_state(basic.encode())
        p = PieceDef.from_traits(traits)
        return AddPiece.build(piece_id, p.type, p.state)

    restore = ["", placed(inf, inf_id, 1, "0203").text, placed(tank, tank_id, 2, "0705").text]
    top = ["begin_save", "", encode_sequence(restore, ESC)]
    for pw, name, side in (ALICE, BORIS):
        top.append(encode_sequence(["PLAYER", pw, name, side], "\t"))
    top.append(f"{MAP}BoardPicker\t{BOARD}\t0\t0")
    top.append("end_save")

    def log(*commands: str) -> str:
        entries = ["LOG\t" + c for c in commands]
        return entries[0] if len(entries) == 1 else encode_sequence(entries, ESC)

    def move(piece_id, name, src, dst, pw):
        (x0, y0), (x1, y1) = g.get_location(src), g.get_location(dst)
        m = MovePiece.build(piece_id, MAP, x1, y1, None, MAP, x0, y0, None, pw)
        return m, f"CHAT* {name} moves {src} &rarr; {dst} *"

    m1, c1 = move(inf_id, "1/A/1-36 Inf", "0203", "0304", ALICE[0])
    top.append(log(m1.text, c1))
    top.append(log("CHAT&lt;Алиса&gt; - Ход сделан, твоя очередь"))
    m2, c2 = move(tank_id, "1-й танковый батальон", "0705", "0604", BORIS[0])
    top.append(log(m2.text, c2))
    # DiceButton.DR of VASSAL 3.7.26: the report, then the four properties
    # (their values before the first roll: 1, 0, 0 and empty)
    top.append(log("CHAT*** 2d6 = 3,5 *** &lt;Борис&gt;",
                   "MutableProperty\t2d6_result\t1\t3,5\tModule",
                   "MutableProperty\t2d6_total\t0\t8\tModule",
                   "MutableProperty\t2d6_keep\t0\t2\tModule",
                   "MutableProperty\t2d6_summary\t\t3 x1, 5 x1\tModule"))
    # the full state strings of the moved piece before and after its Layer
    # goes to level 2
    moved = PieceDef.parse(placed(inf, inf_id, 1, "0304").text)
    flipped = PieceDef.from_traits(
        [t.with_state("2") if t.prefix == "emb2;" else t for t in moved.traits])
    flip = ChangePiece.build(inf_id, flipped.state, moved.state)
    top.append(log(flip.text, "CHAT* 1/A/1-36 Inf Flip (0304) *"))
    m3, c3 = move(tank_id, "1-й танковый батальон", "0604", "0504", BORIS[0])
    top.append(log(m3.text, c3))
    undo = MovePiece.build(tank_id, MAP, *g.get_location("0604"), None, MAP,
                           *g.get_location("0504"), None, BORIS[0])
    top.append(log("UNDO\ttrue", undo.text, "UNDO\tfalse"))
    return encode_sequence(top, ESC) or ""


def main() -> None:
    files = module_files()
    folder = HERE / "demo-module"
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    atomic_write(HERE / "demo.vmod", build_zip(files))
    save = SaveMetadata(version=VERSION, vassal_version=VASSAL, date_saved="0",
                        description="Demo game, turn 1")
    log_entries = {
        "savedGame": encode_saved_game(game_log(), key=0x3C),
        "savedata": save.to_bytes(),
        "moduledata": files["moduledata"],
    }
    atomic_write(HERE / "demo.vlog", build_zip(log_entries))
    print(f"wrote {folder}, demo.vmod and demo.vlog in {HERE}")


if __name__ == "__main__":
    main()
