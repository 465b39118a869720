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


def test_two_kinds_of_connection_get_a_key_one_kind_none(tmp_path: Path) -> None:
    scenario = _write(tmp_path, """\
  connection_types:
    rail: {name: Rail, cost: 0.5}
  connections:
    - [Бельфор, Nancy, rail]
    - [Nancy, Metz]""")
    out = tmp_path / "spaces.png"
    assert CliRunner().invoke(cli, ["board", str(scenario), "--spaces", "-o", str(out)]).exit_code == 0
    image = Image.open(out).convert("RGB")
    # the key at the top left: a line of each kind's colour, sorted by kind
    clear, rail = image.getpixel((48, 25)), image.getpixel((48, 51))
    assert clear == image.getpixel((180, 200)) and rail == image.getpixel((100, 150)) and clear != rail
    plain = tmp_path / "plain"
    plain.mkdir()
    one = _write(plain, "  connections: [[Бельфор, Nancy], [Nancy, Metz]]")
    assert CliRunner().invoke(cli, ["board", str(one), "--spaces", "-o", str(plain / "s.png")]).exit_code == 0
    assert Image.open(plain / "s.png").convert("RGB").getpixel((48, 25)) == (255, 255, 255)
