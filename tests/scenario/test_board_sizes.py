"""A board's pixel size is read from where the module records it — its
image's header when the module holds the image, else (a board with no
image) its ``width``/``height`` attributes, VASSAL's 500 each when absent —
and where it cannot be known, every message says why, nothing assumed
(Paths of Glory's "Classic Map": its image is not in a bare buildFile)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import shared_path
from vmodtool.replay import Replay
from vmodtool.scenario.module_map import ModuleMapError, find_map, module_map_grid
from vmodtool.vassal.module import Module

_HEX = ('<VASSAL.build.module.map.boardPicker.board.HexGrid dx="60" dy="52" x0="30" y0="26" sideways="false">'
        '<VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering first="H" hOff="1" vOff="1" '
        'hDescend="false" vDescend="false" sep="" stagger="true" hType="N" vType="N" hLeading="1" vLeading="1"/>'
        '</VASSAL.build.module.map.boardPicker.board.HexGrid>')


def _folder(tmp_path: Path, boards: str) -> Path:
    folder = tmp_path / "module"
    (folder / "images").mkdir(parents=True)
    (folder / "buildFile.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<VASSAL.build.GameModule name="Sizes" version="1" VassalVersion="3.7.9">'
        '<VASSAL.build.module.Map mapName="Main"><VASSAL.build.module.map.BoardPicker>'
        f'{boards}'
        '</VASSAL.build.module.map.BoardPicker></VASSAL.build.module.Map>'
        '</VASSAL.build.GameModule>', encoding="utf-8")
    return folder


def _board(name: str, attributes: str, grid: str = "") -> str:
    return (f'<VASSAL.build.module.map.boardPicker.Board name="{name}" {attributes} reversible="false">'
            f'{grid}</VASSAL.build.module.map.boardPicker.Board>')


def test_sizes_from_where_the_module_records_them(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "".join([
        _board("Pictured", 'image="map.png"'),
        _board("Plain", 'width="800" height="300"'),
        _board("Default", ""),                              # VASSAL's Board: 500 × 500
        _board("Half", 'width="640"'),
        _board("Broken", 'width="wide" height="300"'),
        _board("Absent", 'image="gone.png"'),
        _board("Drawn", 'image="map.svg"'),
    ]))
    Image.new("RGB", (1234, 567)).save(folder / "images" / "map.png")
    (folder / "images" / "map.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    module = Module.open(folder)
    sizes, missing = module.board_sizes()
    assert sizes == {"Pictured": (1234, 567), "Plain": (800, 300), "Default": (500, 500), "Half": (640, 500)}
    assert missing == ["Broken", "Absent", "Drawn"]
    assert [module.board_size_unknown(name) for name in sizes] == [None] * 4
    assert "width/height attributes are not whole numbers" in str(module.board_size_unknown("Broken"))
    assert module.board_size_unknown("Absent") == "its image 'gone.png' is not in the module"
    assert "could not be read from its header" in str(module.board_size_unknown("Drawn"))
    # what a user gives wins, and then nothing is unknown
    assert module.board_sizes({"Absent": (10, 20)})[0]["Absent"] == (10, 20)


def test_a_hex_map_of_unknown_size_says_why(tmp_path: Path) -> None:
    folder = _folder(tmp_path, _board("Main", 'image="gone.png"', _HEX))
    module = Module.open(folder)
    entry = find_map(module.buildfile.maps(), "Main")
    with pytest.raises(ModuleMapError, match=r"the size of board 'Main' is unknown \(its image 'gone.png' is "
                                             r"not in the module\): give it as module.board_sizes"):
        module_map_grid(entry, None, module.board_sizes()[0], module.board_size_unknown)
    module_map = module_map_grid(entry, None, {"Main": (600, 520)}, module.board_size_unknown)
    assert module_map.size == (600, 520) and module_map.grid.hexes


@pytest.mark.corpus
def test_the_classic_map_s_size_is_unknown_and_said_so() -> None:
    """The Classic board's image (``map_classic_vassal.jpg``) is in no stored
    copy of the module: its size is not assumed (the Deluxe board's is not
    the Classic's), the replay says why it names no location there."""
    module = Module.open(shared_path("corpus", "pog", "buildFile.xml"))
    sizes, missing = module.board_sizes()
    assert "Classic Map" in missing and "Classic Map" not in sizes
    why = module.board_size_unknown("Classic Map")
    assert why == ("its image 'map_classic_vassal.jpg' is not at hand, a bare buildFile holds no images: give the "
                   "module's .vmod or its unpacked folder")
    replay = Replay.open([shared_path("corpus", "pog", "Classic10-5__cadea1d.vsav")], module=module)
    list(replay.steps())
    [warning] = [w.message for w in replay.warnings if "'Classic Map'" in w.message]
    assert f"board size unknown for 'Classic Map': {why}" in warning
