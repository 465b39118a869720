"""A small area (point-to-point) module and its scenario, for the kinds that
measure the map on spaces (issue 42): a board whose grid is a
``RegionGrid`` of named spaces (Latin and Cyrillic), pieces of two sides
set up in spaces by name, and a scenario that takes the spaces from the
module and types connections of kinds with costs.  Games of it are written
with ``GameWriter``.

The typed graph (cost of each line in brackets)::

    Lille -(1)- Paris -(1)- Nancy -(2 mountain)- Belfort -(2 river)- Dijon
                              \\                  /
                               (1)- Metz -(1)---
    Остров: no line typed (the graph may be incomplete there)
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.traits import BasicPiece, Marker, build_piece

P = "VASSAL.build."
MAP = "Front"
BOARD = "Board"
SIZE = (800, 600)
SPACES = {"Lille": (100, 300), "Paris": (100, 100), "Nancy": (300, 100), "Belfort": (500, 100),
          "Metz": (300, 300), "Dijon": (500, 300), "Остров": (700, 500)}
#: piece name -> (side, set-up space)
PIECES = {"Red 1": ("Red", "Paris"), "Red 2": ("Red", "Lille"), "Red HQ": ("Red", "Paris"),
          "Blue 1": ("Blue", "Belfort")}


def _piece(name: str, side: str) -> str:
    return build_piece(Marker.build(properties={"Side": side}),
                       BasicPiece.build(image=f"{name}.png", piece_name=name)).encode()


def write_module(folder: Path) -> Path:
    bf = BuildFile.new(attributes=[("name", "Area Front"), ("version", "1.0")])
    root = bf.root
    m = etree.SubElement(root, P + "module.Map", mapName=MAP)
    picker = etree.SubElement(m, P + "module.map.BoardPicker")
    board = etree.SubElement(picker, P + "module.map.boardPicker.Board", name=BOARD,
                             width=str(SIZE[0]), height=str(SIZE[1]))
    grid = etree.SubElement(board, P + "module.map.boardPicker.board.RegionGrid", snapto="true")
    for name, (x, y) in SPACES.items():
        etree.SubElement(grid, P + "module.map.boardPicker.board.Region", name=name, originx=str(x),
                         originy=str(y))
    for name, (side, space) in PIECES.items():
        stack = etree.SubElement(m, P + "module.map.SetupStack", name=name, location=space,
                                 useGridLocation="true", owningBoard=BOARD)
        slot = etree.SubElement(stack, P + "widget.PieceSlot", entryName=name)
        slot.text = _piece(name, side)
    path = folder / "buildFile.xml"
    bf.write(path)
    return path


SCENARIO = """\
schema: vmodtool/1
game:
  id: area_front
  title: Area Front
  sides:
    - {id: red, name: Red}
    - {id: blue, name: Blue}
module:
  file: buildFile.xml
  board_sizes: {Board: [800, 600]}
map:
  from_module: Front
  terrain_types:
    clear: {code: ".", name: Clear}
  terrain: {default: clear}
  connection_types:
    clear: {name: Clear, cost: 1}
    mountain: {name: Mountain pass, cost: 2}
    river: {name: River crossing, cost: 2}
  connections_complete: COMPLETE           # every line of this small map is typed
  connections:
    - [Lille, Paris]
    - [Paris, Nancy]
    - [Nancy, Belfort, mountain]
    - [Nancy, Metz]
    - [Metz, Belfort]
    - [Belfort, Dijon, river]
unit_types:
  infantry:
    name: Infantry
    movement_class: foot
    faces:
      - {name: full, factors: {move: 3}}
  hq:
    name: HQ
    movement_class: foot
    faces:
      - {name: full, factors: {move: 3, command_range: 1}}
binding:
  sides:
    - {side: red, match: {property: {Side: Red}}}
    - {side: blue, match: {property: {Side: Blue}}}
  units:
    - {match: {name: "re:.* HQ"}, type: hq}
    - {match: {name: "*"}, type: infantry}
rules:
  - id: move.allowance
    kind: movement_allowance
    params:
      window: phase
      allowance: {factor: move}
      costs:
        foot: {default: 1}
RULE_EXTRA
    check_at: step_end
    severity: error
"""


def write_scenario(folder: Path, extra: str = "", connections: str | None = None, complete: bool = True) -> Path:
    """The module and the scenario in ``folder``: ``extra`` lines join the
    movement rule's params; ``connections`` replaces the typed list;
    ``complete`` is ``map.connections_complete``."""
    write_module(folder)
    text = SCENARIO.replace("RULE_EXTRA\n", extra).replace("COMPLETE", str(complete).lower())
    if connections is not None:
        head, rest = text.split("  connections:\n", 1)
        text = head + connections + "unit_types:" + rest.split("unit_types:", 1)[1]
    path = folder / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def writer(folder: Path) -> GameWriter:
    """A GameWriter of the module (written first), its set-up the log's start."""
    w = GameWriter(Module.open(folder / "buildFile.xml"), players=[Player("pw", "Ann", "Red")],
                   board_sizes={BOARD: SIZE})
    w.snapshot()
    return w


def piece(w: GameWriter, name: str) -> str:
    return next(pid for pid, p in w.pieces.items() if p.piece.name == name)
