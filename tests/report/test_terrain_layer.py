"""The terrain layer without a browser: what ``vmodtool terrain
--report-layer`` writes is what ``vmodtool report --terrain-layer`` reads,
placed on the board of the map it names; a page gets the layer's script
only when it has a layer."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vmodtool.errors import VmodError
from vmodtool.report.frames import Frames
from vmodtool.report.terrain_layer import layer_record
from vmodtool.scenario import load_scenario
from vmodtool.terrain.layer import layer_document, read_layer

ROOT = Path(__file__).resolve().parents[2]


def _layer(tmp_path: Path) -> Path:
    scenario = load_scenario(ROOT / "examples" / "ww1-operational" / "scenario.yaml")
    hexes = {h: (t, 0.1 if h == "0101" else 0.9) for h, t in scenario.map.terrain.items()}
    sides: dict[str, list[tuple[str, str, float]]] = {}
    for side in scenario.map.hexsides:
        sides.setdefault(side.type, []).append((side.a, side.b, 1.0))
    path = tmp_path / "layer.json"
    path.write_text(json.dumps(layer_document(scenario, hexes, sides, 0.25)), encoding="utf-8")
    return path


def _frames(*boards: tuple[str, int, int]) -> Frames:
    frames = Frames()
    frames.maps.append({"name": "Map", "w": 2000, "h": 2000,
                        "boards": [{"name": n, "img": -1, "x": x, "y": y, "w": 900, "h": 900, "rev": False,
                                    "labels": []} for n, x, y in boards]})
    return frames


def test_the_layer_is_read_back_and_placed_on_its_board(tmp_path: Path) -> None:
    scenario = load_scenario(ROOT / "examples" / "ww1-operational" / "scenario.yaml")
    layer = read_layer(_layer(tmp_path))
    assert {h: t for h, (_, _, t, _) in layer.hexes.items()} == dict(scenario.map.terrain)
    record = layer_record(_frames(("Board", 40, 25)), layer)
    types = [t[0] for t in record["types"]]
    x, y = scenario.map.grid.centres["0101"]
    assert [x + 40, y + 25, types.index(scenario.map.terrain["0101"]), 0.1] in record["hexes"]
    assert record["radius"] == pytest.approx(scenario.map.grid.grid.dy / math.sqrt(3), abs=0.01)
    # a river is drawn along its side: a segment as long as the side, across
    # the line between the two centres, through its middle
    river = record["sideTypes"].index(next(t for t in record["sideTypes"] if t[0] == "river"))
    x1, y1, x2, y2, _ = next(s for s in record["sides"] if s[4] == river)
    assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(record["radius"], abs=0.2)
    assert len(record["sides"]) == len(scenario.map.hexsides)


def test_a_layer_of_a_map_the_game_lacks_is_refused(tmp_path: Path) -> None:
    doc = json.loads(_layer(tmp_path).read_text("utf-8"))
    doc["map"] = "Normandy"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(VmodError, match="of map 'Normandy', which the game does not show"):
        layer_record(_frames(("Board", 0, 0)), read_layer(other))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["hexes"].update({"0101": [1, 2, "lava", 0.5]}), "hexes.0101: expected [x, y, a type"),
    (lambda d: d["types"]["clear"].update({"fill": "red;x"}), "types.clear: expected"),
    (lambda d: d["hexsides"].update({"river": [["0101", "9999", 1.0]]}), "hexsides.river: expected [hex, hex"),
    (lambda d: d.update({"low": "low"}), "'low' is not a number"),
])
def test_a_bad_field_is_named(tmp_path: Path, change: Callable[[dict[str, Any]], object], message: str) -> None:
    path = _layer(tmp_path)
    doc = json.loads(path.read_text("utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(VmodError, match=message.replace("[", r"\[")):
        read_layer(path)


def test_a_page_has_the_layers_script_only_with_a_layer(tmp_path: Path) -> None:
    from vmodtool.replay import Replay
    from vmodtool.replay.scene import SceneBuilder
    from vmodtool.report.frames import record_frames
    from vmodtool.report.page import write_page

    demo = ROOT / "examples" / "formats"
    replay = Replay.open([demo / "demo.vlog"], module=demo / "demo.vmod")
    builder = SceneBuilder(replay.positions, replay.positions.module)
    frames, _ = record_frames(replay, builder)
    plain, layered = tmp_path / "plain.html", tmp_path / "layered.html"
    write_page(plain, frames, builder.catalog, title="t", findings=[])
    record = {"map": 0, "radius": 10, "sideways": False, "low": 0.25, "types": [["clear", "Clear", "#ffffff"]],
              "sideTypes": [], "hexes": [[10, 10, 0, 0.9]], "sides": []}
    write_page(layered, frames, builder.catalog, title="t", findings=[], terrain=record)
    assert "terrain-toggle" not in plain.read_text("utf-8") and '"terrain"' not in plain.read_text("utf-8")
    assert "terrain-toggle" in layered.read_text("utf-8")
