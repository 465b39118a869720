"""``vmodtool board --spaces`` (issue 42): an area map's spaces and
connections drawn to check them against the printed map."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from tests.scenario.test_locations import _write
from vmodtool.cli import cli


def test_spaces_and_connections_are_drawn_where_vassal_names_them(tmp_path: Path) -> None:
    scenario = _write(tmp_path, """\
  connections:
    - [Бельфор, Nancy]
    - [Nancy, Metz]""")
    out = tmp_path / "spaces.png"
    result = CliRunner().invoke(cli, ["board", str(scenario), "--spaces", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "4 spaces, 2 connections" in result.output and "proposed" not in result.output
    image = Image.open(out).convert("RGB")
    # the ring of the space "Nancy" (100, 200) and the line Бельфор (100, 100) → Nancy
    assert image.getpixel((100 - 9, 200)) != (255, 255, 255)
    assert image.getpixel((100, 150)) not in ((255, 255, 255), (0, 0, 0))
    assert image.getpixel((150, 150)) == (255, 255, 255)          # no line Бельфор → Metz


def test_a_background_image_is_drawn_over_and_never_replaced(tmp_path: Path) -> None:
    scenario = _write(tmp_path, "  connections_proposed: true\n  connections: [[Nancy, Metz]]")
    board = tmp_path / "board.png"
    Image.new("RGB", (800, 700), (10, 200, 10)).save(board)
    out = tmp_path / "spaces.png"
    result = CliRunner().invoke(cli, ["board", str(scenario), "--spaces", "--image", str(board), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "proposed: check each against the printed map" in result.output
    image = Image.open(out).convert("RGB")
    assert image.size == (800, 700) and image.getpixel((700, 600)) == (10, 200, 10)
    again = CliRunner().invoke(cli, ["board", str(scenario), "--spaces", "--image", str(board), "-o", str(board)])
    assert again.exit_code == 2 and Image.open(board).getpixel((150, 200)) == (10, 200, 10)


def test_a_hex_map_has_no_spaces_to_draw(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[2] / "examples" / "modern-tactical" / "scenario.yaml"
    result = CliRunner().invoke(cli, ["board", str(scenario), "--spaces", "-o", str(tmp_path / "x.png")])
    assert result.exit_code == 2
    assert "not an area map" in result.output


def test_an_area_map_is_not_drawn_as_a_hex_board(tmp_path: Path) -> None:
    scenario = _write(tmp_path, "")
    result = CliRunner().invoke(cli, ["board", str(scenario), "-o", str(tmp_path / "board.png")])
    assert result.exit_code == 2, result.output
    assert "is an area map (spaces, no hexes)" in result.output and "--spaces" in result.output
