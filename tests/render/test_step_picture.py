"""The PNG of a step puts every piece at the centre VASSAL computes for its
hex (``MapGeometry.point_of``: the grid's ``getLocation``), stacked pieces
offset as ``StackMetrics`` does, and draws the piece's own image there."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from vmodtool.render.step_picture import _TITLE, render_scene
from vmodtool.replay import Replay
from vmodtool.replay.scene import SceneBuilder, scene_at

ROOT = Path(__file__).resolve().parents[2]
DEMO_LOG = ROOT / "examples" / "formats" / "demo.vlog"
DEMO_MODULE = ROOT / "examples" / "formats" / "demo.vmod"


@pytest.mark.parametrize("step", range(0, 8))
def test_every_piece_at_its_hex_centre(step: int) -> None:
    replay = Replay.open([DEMO_LOG], module=DEMO_MODULE)
    builder = SceneBuilder(replay.positions, replay.positions.module)
    scene = scene_at(replay, step, builder)
    board = replay.state_at(step) if step else replay.initial_state()
    picture = render_scene(scene, builder.catalog)
    main = scene.maps[0]
    geometry = replay.positions.geometry(main.name)
    assert geometry is not None
    drawn = {c.id: c for c in main.counters}
    pieces = [p for p in board.pieces if p.map == main.name]
    assert pieces and len(drawn) == len(pieces)
    for p in pieces:
        assert p.location is not None
        cx, cy = geometry.point_of(geometry.placements[0].board.name, p.location)
        c = drawn[p.id]
        assert (c.x, c.y) == (cx, cy), p.name
        top = c.layers[-1]
        image = Image.open(io.BytesIO(builder.catalog.data(top.image) or b"")).convert("RGB")
        # the centre pixel of the PNG is the centre pixel of the piece's top image
        assert picture.getpixel((cx, cy + _TITLE)) == image.getpixel((top.w // 2, top.h // 2))
        # and a pixel near its corner too (the image is placed, not only its centre)
        assert picture.getpixel((top.x + 3, top.y + 3 + _TITLE)) == image.getpixel((3, 3))


def test_replay_png_command(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from vmodtool.cli import cli

    out = tmp_path / "board.png"
    result = CliRunner().invoke(cli, ["replay", str(DEMO_LOG), "-m", str(DEMO_MODULE), "--step", "3",
                                       "--png", str(out)])
    assert result.exit_code == 0, result.output
    with Image.open(out) as img:
        assert img.format == "PNG" and img.width >= 600
    bad = CliRunner().invoke(cli, ["replay", str(DEMO_LOG), "-m", str(DEMO_MODULE), "--step", "99",
                                    "--png", str(out)])
    assert bad.exit_code == 2 and "step 99" in bad.output
    no_step = CliRunner().invoke(cli, ["replay", str(DEMO_LOG), "--png", str(out)])
    assert no_step.exit_code == 2


def test_grid_labels_at_their_hex_centres() -> None:
    """Boards without an image (or with visible numbering) show the grid's
    labels, each at the point VASSAL's ``getLocation`` gives its name."""
    from vmodtool.replay.scene import hex_labels

    replay = Replay.open([DEMO_LOG], module=DEMO_MODULE)
    geometry = replay.positions.geometry(replay.positions.map_names()[0])
    assert geometry is not None
    placement = geometry.placements[0]
    labels = hex_labels(placement.board, placement.origin)
    assert len(labels) > 50
    for name, x, y in labels:
        assert geometry.point_of(placement.board.name, name) == (x, y), name
