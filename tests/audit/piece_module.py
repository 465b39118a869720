"""A small module of a published-game kind, and games of it written with
``GameWriter``, for the binding of real modules (issue 43, items 3 and 7):
terrain that is pieces (a Woods piece, a river piece on a hexside), leaders
whose BasicPiece name is generic and who are named by a label, duplicate
division markers that use the units' prototype, and a mover with no side."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.traits import BasicPiece, Labeler, Marker, UsePrototype, build_piece

P = "VASSAL.build."
MAP = "Main Map"
BOARD = "Board"
SIZE = (600, 500)


def _piece(name: str, *, proto: str = "Unit", side: str | None = None, label: str | None = None) -> str:
    traits = [UsePrototype.build(prototype_name=proto)]
    if side is not None:
        # (a leader also says whom it stands for: the property name_from reads)
        extra = {"Commander": f"Gen. {label}"} if label is not None else {}
        traits.append(Marker.build(properties={"Side": side, **extra}))
    if label is not None:
        traits.append(Labeler.build(state=label))
    traits.append(BasicPiece.build(image=f"{name}.png", piece_name=name))
    return build_piece(*traits).encode()


def write_module(folder: Path) -> Path:
    """The module's buildFile: one hex map; setup stacks of red infantry in
    0202, two labelled "Leader" pieces in 0303, three "90" division markers
    (prototype Unit) in 0404, a Woods piece in 0203 and a River piece."""
    bf = BuildFile.new(attributes=[("name", "Piece Terrain Test"), ("version", "1.0")])
    root = bf.root
    protos = etree.SubElement(root, P + "module.PrototypesContainer")
    for name in ("Unit", "Leader", "Terrain", "Division"):
        el = etree.SubElement(protos, P + "module.PrototypeDefinition", name=name)
        el.text = build_piece(Marker.build(properties={"Class": name}), BasicPiece.build()).encode()
    window = etree.SubElement(root, P + "module.PieceWindow", name="Pieces")
    tab = etree.SubElement(window, P + "widget.TabWidget", entryName="")
    lst = etree.SubElement(tab, P + "widget.ListWidget", entryName="Red")
    for name, proto in (("Rifles", "Unit"), ("Leader", "Leader"), ("90", "Unit")):
        slot = etree.SubElement(lst, P + "widget.PieceSlot", entryName=name)
        slot.text = _piece(name, proto=proto, side="Red")
    terrain = etree.SubElement(tab, P + "widget.ListWidget", entryName="Terrain")
    for name in ("Woods", "River"):
        slot = etree.SubElement(terrain, P + "widget.PieceSlot", entryName=name)
        slot.text = _piece(name, proto="Terrain")
    m = etree.SubElement(root, P + "module.Map", mapName=MAP)
    picker = etree.SubElement(m, P + "module.map.BoardPicker")
    board = etree.SubElement(picker, P + "module.map.boardPicker.Board", name=BOARD,
                             width=str(SIZE[0]), height=str(SIZE[1]))
    grid = etree.SubElement(board, P + "module.map.boardPicker.board.HexGrid", dx="55.43", dy="64",
                            x0="0", y0="32", sideways="false", snapTo="true", edgesLegal="true")
    etree.SubElement(grid, P + "module.map.boardPicker.board.mapgrid.HexGridNumbering",
                     first="H", sep="", hLeading="1", vLeading="1", hType="N", vType="N")

    def setup(name: str, hex_label: str, pieces: list[str]) -> None:
        stack = etree.SubElement(m, P + "module.map.SetupStack", name=name, location=hex_label,
                                 useGridLocation="true", owningBoard=BOARD)
        for i, text in enumerate(pieces):
            slot = etree.SubElement(stack, P + "widget.PieceSlot", entryName=f"{name} {i}")
            slot.text = text
    setup("infantry", "0202", [_piece("Rifles", side="Red")])
    setup("leaders", "0303", [_piece("Leader", proto="Leader", side="Red", label="Fergusson"),
                              _piece("Leader", proto="Leader", side="Red", label="Wellesley")])
    setup("division", "0404", [_piece("90", side="Red") for _ in range(3)])
    setup("woods", "0203", [_piece("Woods", proto="Terrain")])
    setup("river", "0505", [_piece("River", proto="Terrain")])
    path = folder / "buildFile.xml"
    bf.write(path)
    return path


SCENARIO = """\
schema: vmodtool/1
game:
  id: pt
  title: Piece Terrain Test
  sides:
    - {id: red, name: Red}
    - {id: blue, name: Blue}
module:
  file: buildFile.xml
  board_sizes: {Board: [600, 500]}
map:
  from_module: Main Map
  terrain_types:
    clear: {code: ".", name: Clear}
    woods: {code: w, name: Woods}
  hexside_types:
    river: {name: River}
  terrain: {default: clear}
unit_types:
  infantry:
    name: Infantry
    movement_class: foot
    faces:
      - {name: full, factors: {move: 2}}
markers:
  division: {name: Division, representation: counter}
binding:
  sides:
    - {side: red, match: {property: {Side: Red}}}
  units:
    - {match: {prototype: [Unit, Leader]}, type: infantry}
  markers:
    - {match: {name: "re:[0-9]+", prototype: Unit}, kind: division, before_units: true}
  terrain:
    - {match: {name: Woods}, terrain: woods}
    - {match: {name: River}, hexside: river}
rules:
  - id: move.allowance
    kind: movement_allowance
    params:
      window: phase
      allowance: {factor: move}
      costs:
        foot: {clear: 1, woods: 3}
      hexside_extra:
        river: {foot: 2}
    check_at: step_end
    severity: error
"""


def write_scenario(folder: Path, text: str = SCENARIO) -> Path:
    write_module(folder)
    path = folder / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return path
