"""The terrain layer of the report in real headless Chromium: terrain
derived from the modern-tactical example's board (``vmodtool terrain
--report-layer``) drawn over the report of a game played on it — each hex
tinted by its type where its hex is, the hexside features drawn, the
doubtful hexes outlined — and hidden and shown again by its checkbox.
``VMODTOOL_TERRAIN_LAYER_SCREENSHOT=FILE`` keeps the screenshot."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from vmodtool.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "modern-tactical" / "scenario.yaml"
LOG = ROOT / "examples" / "modern-tactical" / "logs" / "illegal-enemy-hex.vlog"

pytest.importorskip("numpy", reason="vmodtool terrain needs numpy")
playwright_api = pytest.importorskip("playwright.sync_api", reason="Python playwright is not installed")
if shutil.which("chromium") is None:
    pytest.skip("no chromium browser on PATH (apt-get install chromium)", allow_module_level=True)


def _samples(folder: Path) -> Path:
    """One labelled hex per terrain type and hexside feature (the example's own terrain)."""
    sys.path.insert(0, str(ROOT / "tests" / "terrain"))
    try:
        from test_terrain import samples_of, write_samples
    finally:
        sys.path.pop(0)
    from vmodtool.scenario import load_scenario

    samples = samples_of(load_scenario(SCENARIO), per_type=1)
    return write_samples(folder / "samples.yaml", samples)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, module: Path) -> tuple[Path, Path]:
    """The report with the layer, and the layer file."""
    from vmodtool.render.board import write_board
    from vmodtool.scenario import load_scenario

    folder = tmp_path_factory.mktemp("terrain-layer")
    board = folder / "board.png"
    write_board(load_scenario(SCENARIO), board)
    layer = folder / "layer.json"
    made = CliRunner().invoke(cli, ["terrain", str(board), "--scenario", str(SCENARIO), "--samples",
                                    str(_samples(folder)), "-o", str(folder / "terrain.yaml"),
                                    "--report-layer", str(layer)])
    assert made.exit_code == 0, made.output
    # the example's clean board leaves no hex in doubt: three are made so, as
    # a scan's would be, for the page to outline
    doc = json.loads(layer.read_text("utf-8"))
    for label in list(doc["hexes"])[5:60:20]:
        doc["hexes"][label][3] = 0.1
    layer.write_text(json.dumps(doc), encoding="utf-8")
    page = folder / "game.html"
    made = CliRunner().invoke(cli, ["report", str(LOG), "-m", str(module), "--terrain-layer", str(layer),
                                    "-o", str(page)])
    assert made.exit_code == 0, made.output
    return page, layer


def test_the_layer_shows_and_toggles(pages: tuple[Path, Path], module: Path, tmp_path: Path) -> None:
    page_file, layer_file = pages
    layer = json.loads(layer_file.read_text("utf-8"))
    doubtful = [h for h, v in layer["hexes"].items() if v[3] < layer["low"]]
    features = sum(len(v) for v in layer["hexsides"].values())
    assert len(doubtful) == 3 and features
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--headless", "--no-sandbox", "--disable-gpu",
                                          "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1280, "height": 820})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        svg = page.locator("#view .map svg.terrain")
        assert svg.count() == 1 and svg.is_visible()
        # a tinted hexagon per hex, in its type's group, on the pixel where
        # VASSAL puts the hex's centre on the report's map
        assert page.locator("svg.terrain .tint polygon").count() == len(layer["hexes"])
        assert page.locator("svg.terrain .feature line").count() == features
        assert page.locator("svg.terrain .low polygon").count() == len(doubtful)
        geometry, board = _geometry(module)
        for n, label in enumerate(layer["hexes"]):
            if n % 13:
                continue
            cx, cy, same_type = page.evaluate(_CENTRE, n)
            hx, hy = geometry.point_of(board, label)
            assert same_type and cx == pytest.approx(hx, abs=0.6) and cy == pytest.approx(hy, abs=0.6)
        # drawn under the counters: a counter still takes the click
        fill = page.evaluate("getComputedStyle(document.querySelector('svg.terrain .tint')).fill")
        assert fill.startswith("rgb")
        toggle = page.locator("#terrain-toggle")
        assert toggle.is_checked() and "doubtful" in page.locator("#terrain-legend").inner_text()
        page.screenshot(path=str(tmp_path / "layer.png"))
        shown = "[...document.querySelectorAll('.counter')].filter(e => e.style.display !== 'none').length"
        counters = page.evaluate(shown)
        toggle.uncheck()
        assert not svg.is_visible() and page.evaluate(shown) == counters > 0
        toggle.check()
        assert svg.is_visible()
        shot = tmp_path / "layer.png"
        if os.environ.get("VMODTOOL_TERRAIN_LAYER_SCREENSHOT"):
            shutil.copyfile(shot, os.environ["VMODTOOL_TERRAIN_LAYER_SCREENSHOT"])
        assert shot.stat().st_size > 10000
        assert errors == []
        browser.close()


def _geometry(module: Path) -> tuple[Any, str]:
    """The game's map geometry (VASSAL's arithmetic) and its board's name."""
    from vmodtool.replay import Replay
    from vmodtool.replay.scene import scene_at

    replay = Replay.open([LOG], module=module)
    geometry = replay.positions.geometry(scene_at(replay, 0).maps[0].name)
    assert geometry is not None
    return geometry, geometry.placements[0].board.name


# the centre of the n-th hex's polygon (the mean of its corners), and
# whether its group is the type the layer gives it
_CENTRE = """(n) => {
  const t = JSON.parse(document.getElementById('game-data').textContent).terrain, h = t.hexes[n];
  const poly = [...document.querySelectorAll('svg.terrain .tint')][h[2]]
      .querySelectorAll('polygon')[t.hexes.slice(0, n).filter(o => o[2] === h[2]).length];
  const pts = poly.getAttribute('points').split(' ').map(p => p.split(',').map(Number));
  return [pts.reduce((s, p) => s + p[0], 0) / 6, pts.reduce((s, p) => s + p[1], 0) / 6,
          poly.parentNode.dataset.type === t.types[h[2]][0]];
}"""


def test_a_bad_layer_is_one_line(tmp_path: Path, module: Path) -> None:
    """A layer file that is not one (or names a map the game lacks) is one
    line naming it, exit 2, and no page is written."""
    for content, message in [("{}", "not a terrain layer: expected a JSON object"),
                             ('{"format": "vmodtool-terrain-layer/1", "grid": {"dx": 0}}', "'grid' is not"),
                             ("[1, 2", "not JSON")]:
        layer = tmp_path / "layer.json"
        layer.write_text(content, encoding="utf-8")
        out = tmp_path / "game.html"
        made = CliRunner().invoke(cli, ["report", str(LOG), "-m", str(module), "--terrain-layer", str(layer),
                                        "-o", str(out)])
        lines = made.output.strip().splitlines()
        assert made.exit_code == 2 and len(lines) == 1 and message in lines[0] and str(layer) in lines[0], lines
        assert not out.exists()
