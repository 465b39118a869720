"""``vmodtool terrain``: every example board vmodtool renders is read back
from its image, from three samples per terrain type and hexside type, and
the scenario's own terrain is the ground truth."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

np = pytest.importorskip("numpy")

from vmodtool.cli import cli  # noqa: E402
from vmodtool.render.board import write_board  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario import model as M  # noqa: E402
from vmodtool.terrain import derive as D  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BOARDS = ("ww1-operational", "modern-tactical", "combat-commander", "own-art")


def samples_of(scenario: M.Scenario, per_type: int = 3) -> D.Samples:
    """The first ``per_type`` hexes of each terrain type and hexsides of each
    hexside type, in label order (what a user might pick: any few)."""
    samples = D.Samples(file="samples.yaml")
    for label, name in sorted(scenario.map.terrain.items()):
        if len(samples.hexes.setdefault(name, [])) < per_type:
            samples.hexes[name].append(label)
    for side in sorted(scenario.map.hexsides, key=lambda s: (s.a, s.b)):
        chosen = samples.hexsides.setdefault(side.type, [])
        if len(chosen) < per_type:
            chosen.append((side.a, side.b))
    return samples


def read_back(tmp: Path, example: str, scale: float) -> tuple[M.Scenario, D.Samples, D.TerrainResult]:
    scenario = load_scenario(REPO / "examples" / example / "scenario.yaml")
    image = tmp / f"{example}-{scale}.png"
    write_board(scenario, image, scale=scale)
    samples = samples_of(scenario)
    return scenario, samples, D.derive_terrain(scenario, D.read_board_image(image, scenario), samples)


@pytest.mark.parametrize("scale", [1.0, 3.0], ids=["vassal-size", "print-300dpi"])
def test_example_boards_are_read_back(tmp_path: Path, scale: float) -> None:
    """Hex terrain at least 99 % right over the example boards (98 % on each:
    combat-commander's bridge hex, under a bridge, a road, a place name and an
    objective star, is the one miss at print scale), and each hexside feature
    (rivers, roads, walls, bridges) found with recall and precision of at least
    98 % over the boards.  Measured 2026-12-07: hexes 100 % at the VASSAL size
    and 99.7 % at print scale; one extra road hexside (ww1, beside Bapaume).
    Again with the curved rivers and roads (issue 46): hexes 100 % and
    99.6 %; hexsides 97 of 97 found with no extra at the VASSAL size, one
    extra at print scale."""
    right = judged = 0
    found: dict[str, list[int]] = {}
    for example in BOARDS:
        scenario, samples, result = read_back(tmp_path, example, scale)
        skip = {h for hexes in samples.hexes.values() for h in hexes}
        truth = {h: t for h, t in scenario.map.terrain.items() if h not in skip}
        ok = sum(result.hexes[h][0] == t for h, t in truth.items())
        assert ok / len(truth) >= 0.98, (example, [(h, t, result.hexes[h]) for h, t in truth.items()
                                                   if result.hexes[h][0] != t])
        right += ok
        judged += len(truth)
        for type_id in scenario.map.hexside_types:
            true = {(s.a, s.b) for s in scenario.map.hexsides if s.type == type_id}
            given = set(samples.hexsides.get(type_id, []))
            got = {(a, b) for a, b, _ in result.hexsides.get(type_id, [])}
            kind = D._band_kind(scenario.map.hexside_types[type_id])
            counts = found.setdefault(kind, [0, 0, 0])      # true positives, truth, found
            counts[0] += len((true & got) - given)
            counts[1] += len(true - given)
            counts[2] += len(got - given)
    assert right / judged >= 0.99
    # (every bridge of the examples is one of the three samples: bridges are
    # judged here by precision alone, no bridge found where there is none)
    assert found["along"][1] > 40 and found["across"][1] > 40
    for kind, (hits, truth_n, got_n) in found.items():
        if truth_n:
            assert hits / truth_n >= 0.98, (kind, hits, truth_n)
        assert hits >= 0.98 * got_n, (kind, hits, got_n)


def write_samples(path: Path, samples: D.Samples) -> Path:
    data = {"hexes": samples.hexes,
            "hexsides": {t: [list(p) for p in pairs] for t, pairs in samples.hexsides.items()}}
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_cli_output_is_the_scenarios_terrain(tmp_path: Path) -> None:
    """The YAML written is the scenario's map.terrain and map.hexsides: put
    into the scenario in place of its own, the scenario loads with the same
    terrain; a picture and suggestions come with it."""
    scenario = load_scenario(REPO / "examples" / "own-art" / "scenario.yaml")
    board = tmp_path / "board.png"
    write_board(scenario, board, scale=2.0)
    labels = write_samples(tmp_path / "метки.yaml", samples_of(scenario))
    out, picture = tmp_path / "terrain.yaml", tmp_path / "check.png"
    result = CliRunner().invoke(cli, ["terrain", str(board), "--scenario", str(REPO / "examples/own-art/scenario.yaml"),
                                      "--samples", str(labels), "-o", str(out), "--picture", str(picture),
                                      "--suggest", "2"])
    assert result.exit_code == 0, result.output
    assert "label these next" in result.output and picture.stat().st_size > 1000
    derived = yaml.safe_load(out.read_text("utf-8"))["map"]
    data = yaml.safe_load((REPO / "examples/own-art/scenario.yaml").read_text("utf-8"))
    data["map"]["terrain"], data["map"]["hexsides"] = derived["terrain"], derived["hexsides"]
    shutil.copytree(REPO / "examples/own-art", tmp_path / "art")
    (tmp_path / "art" / "scenario.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    again = load_scenario(tmp_path / "art" / "scenario.yaml")
    assert dict(again.map.terrain) == dict(scenario.map.terrain)
    assert scenario.map.derived is None and again.map.derived is not None   # (marked as read, not typed)
    assert {(s.type, s.a, s.b) for s in again.map.hexsides} == {(s.type, s.a, s.b) for s in scenario.map.hexsides}


def test_keep_typed_keeps_the_scenarios_own_entries(tmp_path: Path) -> None:
    """With --keep-typed a hex the scenario types keeps its type even where
    the image says otherwise (a hand-typed hex wins)."""
    scenario = load_scenario(REPO / "examples" / "ww1-operational" / "scenario.yaml")
    result = D.TerrainResult({h: ("clear", 0.9) for h in scenario.map.grid.hexes}, {}, [], [], 1.0)
    text = D.terrain_yaml(scenario, result, keep=True)
    hexes = yaml.safe_load(text)["map"]["terrain"]["hexes"]
    typed = D.typed_terrain(scenario.map)
    assert typed and all(hexes[h] == t for h, t in typed.items())
    plain = yaml.safe_load(D.terrain_yaml(scenario, result))["map"]["terrain"]
    assert plain == {"default": "clear", "derived": {"source": "the board image", "unsure": []}, "hexes": {}}
    low = D.TerrainResult({h: ("clear", 0.1 if h == "0101" else 0.9) for h in scenario.map.grid.hexes},
                          {}, [], [], 1.0)
    assert yaml.safe_load(D.terrain_yaml(scenario, low))["map"]["terrain"]["derived"]["unsure"] == ["0101"]


def test_suggestions_are_unlabelled_and_least_sure(tmp_path: Path) -> None:
    scenario = load_scenario(REPO / "examples" / "combat-commander" / "scenario.yaml")
    image = tmp_path / "b.png"
    write_board(scenario, image)
    samples = samples_of(scenario, per_type=1)
    result = D.derive_terrain(scenario, D.read_board_image(image, scenario), samples, suggest_count=6)
    labelled = {h for hexes in samples.hexes.values() for h in hexes}
    assert len(result.suggested) == 6 and len(set(result.suggested)) == 6
    assert not labelled & set(result.suggested)
    sure = sorted(c for h, (_, c) in result.hexes.items() if h not in labelled)
    assert max(result.hexes[h][1] for h in result.suggested) <= sure[len(sure) // 2]


@pytest.mark.parametrize("content, message", [
    ("hexes: {forest: ['0101']}\n", "line 1, column 17: 'forest' is not a terrain type of the scenario"),
    ("hexes:\n  clear: ['9999']\n", "line 2, column 11: hex '9999' is not on the scenario's map"),
    ("hexes: {clear: ['0101']}\nhexsides: {river: [['0101', '0505']]}\n",
     "line 2, column 20: hexes 0101 and 0505 are not adjacent"),
    ("hexes: {clear: [0101], woods: [0101]}\n", "hex 0101 is labelled both 'clear' and 'woods'"),
    ("- just a list\n", "expected a mapping of terrain types"),
    ("hexes: {clear: ['0101']}\ncrossing: [canal]\n", "line 2, column 12: 'canal' is not a hexside type"),
    ("hexes: {clear: ['0101']}\nmeet: {ford: [road, river]}\n", "line 2, column 14: 'ford' is not a hexside type"),
])
def test_bad_samples_are_one_located_line(tmp_path: Path, content: str, message: str) -> None:
    scenario = REPO / "examples" / "ww1-operational" / "scenario.yaml"
    board = tmp_path / "board.png"
    write_board(load_scenario(scenario), board)
    labels = tmp_path / "labels.yaml"
    labels.write_text(content, encoding="utf-8")
    out = tmp_path / "t.yaml"
    result = CliRunner().invoke(cli, ["terrain", str(board), "--scenario", str(scenario), "--samples", str(labels),
                                      "-o", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(labels) in lines[0] and message in lines[0], lines
    assert not out.exists()


def test_an_image_too_large_is_refused_before_decoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    scenario = load_scenario(REPO / "examples" / "own-art" / "scenario.yaml")
    big = tmp_path / "big.png"
    Image.new("RGB", (4000, 3400)).save(big)
    monkeypatch.setattr(D, "MAX_BOARD_PIXELS", 1_000_000)
    opened: list[int] = []
    real_convert = Image.Image.convert
    monkeypatch.setattr(Image.Image, "convert", lambda self, *a, **k: opened.append(1) or real_convert(self, *a, **k))
    with pytest.raises(D.VmodError, match="big.png.*more than the"):
        D.read_board_image(big, scenario)
    assert not opened
    other = tmp_path / "other.png"
    Image.new("RGB", (400, 100)).save(other)
    with pytest.raises(D.VmodError, match="is not the board"):
        D.derive_terrain(scenario, D.read_board_image(other, scenario), samples_of(scenario))


RAGNAROK_MAP = os.environ.get("VMODTOOL_RAGNAROK_MAP")


@pytest.mark.corpus
@pytest.mark.skipif(not RAGNAROK_MAP, reason="VMODTOOL_RAGNAROK_MAP (the published Ragnarok map.jpg) not given")
def test_a_real_published_board(tmp_path: Path, shared: Path) -> None:
    """SPI's Ragnarok (1981) map as its VASSAL module shows it, 451 playable
    hexes looked at by eye (tests/terrain/data/ragnarok-forest.yaml): from
    three random samples per terrain type, ten draws, every draw at least 98 %
    right and 99 % on average (measured 2026-12-07: 98.4 % lowest, 99.2 %
    mean; Asgard's gates, drawn in the forest's colours, are the usual miss)."""
    import random

    build_file = shared / "corpus" / "ragnarok" / "buildFile.xml"
    data = yaml.safe_load((REPO / "examples" / "ragnarok" / "scenario.yaml").read_text("utf-8"))
    data["map"]["terrain_types"] = {"clear": {"code": ".", "name": "Clear"}, "forest": {"code": "f", "name": "Forest"}}
    data["map"]["terrain"] = {"default": "clear"}
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    from vmodtool.scenario import check_scenario

    scenario, _ = check_scenario(tmp_path / "scenario.yaml", module=build_file)
    assert scenario is not None
    truth_doc = yaml.safe_load((Path(__file__).parent / "data" / "ragnarok-forest.yaml").read_text("utf-8"))
    margin, forest = set(truth_doc["margin"]), set(truth_doc["forest"])
    labels = [h for h in scenario.map.grid.hexes if h not in margin]
    truth = {h: "forest" if h in forest else "clear" for h in labels}
    assert len(labels) == 451 and len(forest) == 114
    image = D.read_board_image(Path(str(RAGNAROK_MAP)), scenario)
    accuracies = []
    for seed in range(10):
        draw = random.Random(seed)
        samples = D.Samples(file="samples.yaml")
        for name in ("clear", "forest"):
            samples.hexes[name] = draw.sample(sorted(h for h in labels if truth[h] == name), 3)
        result = D.derive_terrain(scenario, image, samples)
        chosen = {h for hexes in samples.hexes.values() for h in hexes}
        judged = [h for h in labels if h not in chosen]
        accuracies.append(sum(result.hexes[h][0] == truth[h] for h in judged) / len(judged))
    assert min(accuracies) >= 0.98 and sum(accuracies) / len(accuracies) >= 0.99, accuracies


def _town_to_town(scenario: M.Scenario, chain: list[str], shift: tuple[float, float]) -> list[tuple[float, float]]:
    """A road's points through ``chain``: a point in each hex off its centre
    by ``shift`` (inner radii), as a road from town to town runs."""
    inner = scenario.map.grid.grid.dy / 2
    return [(scenario.map.grid.centres[h][0] + shift[0] * inner, scenario.map.grid.centres[h][1] + shift[1] * inner)
            for h in chain]


def test_roads_that_run_town_to_town_are_read_where_they_cross_a_side(tmp_path: Path) -> None:
    """A road typed ``crossing`` is found on every hexside its line crosses
    near the middle and goes on into both hexes, however far from the hex
    centres it runs; a town's filled block, a line along a hexside and a
    line that stops at a side are no road; where a road meets a river found
    on the board, a bridge (``meet``)."""
    from PIL import Image, ImageDraw

    scenario = load_scenario(REPO / "examples" / "ww1-operational" / "scenario.yaml")
    grid = scenario.map.grid
    width, height = (int(v) for v in (grid.size if grid.size[0] > 0 else scenario.map.size))
    image = Image.new("RGB", (width, height), (245, 240, 225))
    draw = ImageDraw.Draw(image)
    inner = grid.grid.dy / 2
    roads = [["0202", "0303", "0403", "0503", "0504"], ["0604", "0704", "0803"], ["0606", "0707", "0708"]]
    shifts = [(0.3, 0.25), (-0.35, 0.1), (0.1, -0.35)]
    expected: set[tuple[str, str]] = set()
    for chain, shift in zip(roads, shifts, strict=True):
        assert all(grid.adjacent(a, b) for a, b in zip(chain, chain[1:], strict=False))
        draw.line(_town_to_town(scenario, chain, shift), fill=(20, 20, 20), width=max(2, round(inner / 12)))
        expected |= {(min(a, b), max(a, b)) for a, b in zip(chain, chain[1:], strict=False)}
    # a town (a filled block), a line along a side, a road that ends at a side
    x, y = grid.centres["0305"]
    draw.rectangle((x - inner * 0.6, y - inner * 0.6, x + inner * 0.6, y + inner * 0.6), fill=(20, 20, 20))
    (ax, ay), (bx, by) = grid.centres["0702"], grid.centres["0703"]
    draw.line([((ax + bx) / 2 - inner * 0.5, (ay + by) / 2), ((ax + bx) / 2 + inner * 0.5, (ay + by) / 2)],
              fill=(20, 20, 20), width=3)
    samples = D.Samples(file="samples.yaml", hexes={"clear": ["0101"]},
                        hexsides={"road": sorted(expected)[:3]}, crossing=["road"])
    result = D.derive_terrain(scenario, np.asarray(image, dtype=np.uint8), samples)
    found = {(a, b) for a, b, _ in result.hexsides["road"]}
    assert found == expected, (sorted(found - expected), sorted(expected - found))
    # a bridge where a road found crosses a river found (two river samples
    # on the road: samples are always found)
    crossed = sorted(expected)[4:6]
    samples.hexsides["river"], samples.meet = crossed, {"bridge": ("road", "river")}
    both = D.derive_terrain(scenario, np.asarray(image, dtype=np.uint8), samples).hexsides
    bridged, rivers = ({(a, b) for a, b, _ in both[t]} for t in ("bridge", "river"))
    assert set(crossed) <= bridged == rivers & {(a, b) for a, b, _ in both["road"]}
    del samples.hexsides["river"]
    # the centre band misses them: what the crossing kind is for
    samples.crossing = []
    centre = {(a, b) for a, b, _ in D.derive_terrain(scenario, np.asarray(image, dtype=np.uint8),
                                                      samples).hexsides["road"]}
    assert expected - centre


TLD_MAP = os.environ.get("VMODTOOL_TLD_MAP")
TLD_CLASSES = ("clear", "bocage", "forest", "hill", "flooded", "swamp", "city", "sea")
TLD_CODES = ".bfhwsc~"


def tld_truth() -> dict[str, str]:
    """The hand-labelled hexes of The Longest Day's map (tests/terrain/data/tld-terrain.yaml)."""
    doc = yaml.safe_load((Path(__file__).parent / "data" / "tld-terrain.yaml").read_text("utf-8"))
    return {h: name for name in TLD_CLASSES for h in doc[name]}


def tld_scenario(tmp_path: Path, shared: Path, rivers: bool = False, roads: bool = False) -> M.Scenario:
    """The Longest Day example bound to its module's grid, with the map's
    eight terrain types (and its rivers as a hexside type)."""
    from vmodtool.scenario import check_scenario

    data = yaml.safe_load((REPO / "examples" / "the-longest-day" / "scenario.yaml").read_text("utf-8"))
    data["map"]["terrain_types"] = {name: {"code": code, "name": name.title()}
                                   for name, code in zip(TLD_CLASSES, TLD_CODES, strict=True)}
    data["map"]["terrain"] = {"default": "clear"}
    if rivers:
        data["map"]["hexside_types"] = {"river": {"name": "River", "drawn_as": "hexside"}}
    if roads:
        data["map"]["hexside_types"] = {**data["map"].get("hexside_types", {}),
                                        "road": {"name": "Road", "drawn_as": "centre_line"}}
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    scenario, problems = check_scenario(tmp_path / "scenario.yaml", module=shared / "corpus" / "tld" / "buildFile")
    assert scenario is not None and not [p for p in problems if p.severity == "error"], problems
    return scenario


def test_tld_truth_is_well_formed() -> None:
    """The second real board's truth: a few hundred hexes, every type the map
    draws, no hex in two classes, labels of the module's grid (its 7,482
    hexes are numbered 0100-9678)."""
    doc = yaml.safe_load((Path(__file__).parent / "data" / "tld-terrain.yaml").read_text("utf-8"))
    listed = [h for name in (*TLD_CLASSES, "unsure") for h in doc[name]]
    assert len(listed) == len(set(listed))
    truth = tld_truth()
    assert len(truth) >= 400 and all(len(doc[name]) >= 9 for name in TLD_CLASSES)
    assert all(len(h) == 4 and h.isdigit() and 1 <= int(h[:2]) <= 96 and int(h[2:]) <= 78 for h in listed)


@pytest.mark.corpus
@pytest.mark.skipif(not TLD_MAP, reason="VMODTOOL_TLD_MAP (the published Longest Day Map_Full.png) not given")
def test_a_second_real_published_board(tmp_path: Path, shared: Path) -> None:
    """The Longest Day's Normandy map (5,340 × 5,024 px, 7,482 hexes) as its
    VASSAL module draws it, 427 hexes of eight terrain types labelled by eye
    (tests/terrain/data/tld-terrain.yaml): from five random samples per type,
    ten draws, every draw at least 95 % right and 96 % on average (measured
    2026-12-07: 96.1 % lowest, 96.8 % mean; the usual misses are clear hexes
    under a river's name or a town's roads taken for the city's hatching,
    and hexes under the map's big place names)."""
    import random

    scenario = tld_scenario(tmp_path, shared)
    truth = tld_truth()
    assert set(truth) <= set(scenario.map.grid.hexes)
    image = D.read_board_image(Path(str(TLD_MAP)), scenario)
    accuracies = []
    for seed in range(10):
        draw = random.Random(seed)
        samples = D.Samples(file="samples.yaml")
        for name in TLD_CLASSES:
            samples.hexes[name] = draw.sample(sorted(h for h in truth if truth[h] == name), 5)
        result = D.derive_terrain(scenario, image, samples)
        chosen = {h for hexes in samples.hexes.values() for h in hexes}
        judged = [h for h in truth if h not in chosen]
        accuracies.append(sum(result.hexes[h][0] == truth[h] for h in judged) / len(judged))
    assert min(accuracies) >= 0.95 and sum(accuracies) / len(accuracies) >= 0.96, accuracies


@pytest.mark.corpus
@pytest.mark.skipif(not TLD_MAP, reason="VMODTOOL_TLD_MAP (the published Longest Day Map_Full.png) not given")
def test_rivers_on_a_real_published_board(tmp_path: Path, shared: Path) -> None:
    """The rivers of The Longest Day's map, drawn along the hexsides, against
    the 182 hexsides of two windows looked at by eye
    (tests/terrain/data/tld-rivers.yaml): from five random river samples,
    three draws, recall at least 97 % and precision at least 90 % (measured
    2026-12-07 over ten draws: 99.4 % and 93.2 %; the misses are a river under
    a bridge's road box, the false finds the letters of CARENTAN along a side
    and two sides where a second look finds a river the labels lack)."""
    import random

    scenario = tld_scenario(tmp_path, shared, rivers=True)
    truth = tld_truth()
    doc = yaml.safe_load((Path(__file__).parent / "data" / "tld-rivers.yaml").read_text("utf-8"))
    rivers = {(a, b) for window in doc["windows"].values() for a, b in window["river"]}
    plain = {(a, b) for window in doc["windows"].values() for a, b in window["plain"]}
    assert len(rivers) == 57 and len(plain) == 120 and not rivers & plain
    assert all(scenario.map.grid.adjacent(a, b) and a < b for a, b in rivers | plain)
    image = D.read_board_image(Path(str(TLD_MAP)), scenario)
    hits = missed = extra = 0
    for seed in range(3):
        draw = random.Random(seed)
        samples = D.Samples(file="samples.yaml")
        for name in TLD_CLASSES:
            samples.hexes[name] = draw.sample(sorted(h for h in truth if truth[h] == name), 5)
        samples.hexsides["river"] = draw.sample(sorted(rivers), 5)
        got = {(a, b) for a, b, _ in D.derive_terrain(scenario, image, samples).hexsides["river"]}
        given = set(samples.hexsides["river"])
        hits += len((got & rivers) - given)
        missed += len(rivers - given - got)
        extra += len(got & plain)
    assert hits / (hits + missed) >= 0.97 and hits / (hits + extra) >= 0.90, (hits, missed, extra)


@pytest.mark.corpus
@pytest.mark.skipif(not RAGNAROK_MAP, reason="VMODTOOL_RAGNAROK_MAP (the published Ragnarok map.jpg) not given")
def test_a_meandering_river_on_a_real_board(tmp_path: Path, shared: Path) -> None:
    """Ragnarok's Vimur meanders about the hexsides, bulging into the hexes;
    its 69 hexsides of one window looked at by eye
    (tests/terrain/data/ragnarok-rivers.yaml). From five random river samples,
    ten draws: recall at least 90 % and precision at least 95 % over the
    draws (measured 2026-12-07: 95 % and 100 %; the miss is the side under the
    Bifrost bridge). A sample whose river the bridge hides no longer lowers
    the threshold to its own score: three of these draws made every hexside
    a river before."""
    import random

    from vmodtool.scenario import check_scenario

    data = yaml.safe_load((REPO / "examples" / "ragnarok" / "scenario.yaml").read_text("utf-8"))
    data["map"]["terrain_types"] = {"clear": {"code": ".", "name": "Clear"}, "forest": {"code": "f", "name": "Forest"}}
    data["map"]["terrain"] = {"default": "clear"}
    data["map"]["hexside_types"] = {"river": {"name": "River", "drawn_as": "hexside"}}
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    scenario, _ = check_scenario(tmp_path / "scenario.yaml", module=shared / "corpus" / "ragnarok" / "buildFile.xml")
    assert scenario is not None
    doc = yaml.safe_load((Path(__file__).parent / "data" / "ragnarok-rivers.yaml").read_text("utf-8"))
    rivers = {(a, b) for a, b in doc["river"]}
    plain = {(a, b) for a, b in doc["plain"]}
    assert len(rivers) == 15 and len(plain) == 53
    forest = set(yaml.safe_load((Path(__file__).parent / "data" / "ragnarok-forest.yaml").read_text("utf-8"))["forest"])
    image = D.read_board_image(Path(str(RAGNAROK_MAP)), scenario)
    hits = missed = extra = 0
    for seed in range(10):
        draw = random.Random(seed)
        samples = D.Samples(file="samples.yaml")
        samples.hexes["forest"] = draw.sample(sorted(forest), 3)
        samples.hexes["clear"] = draw.sample(sorted(set(scenario.map.grid.hexes) - forest), 3)
        samples.hexsides["river"] = draw.sample(sorted(rivers), 5)
        got = {(a, b) for a, b, _ in D.derive_terrain(scenario, image, samples).hexsides["river"]}
        given = set(samples.hexsides["river"])
        hits += len((got & rivers) - given)
        missed += len(rivers - given - got)
        extra += len(got & plain)
    assert hits / (hits + missed) >= 0.90 and hits / (hits + extra) >= 0.95, (hits, missed, extra)


def test_tld_road_truth_is_well_formed() -> None:
    """The road truth: 73 hexsides of two windows, each adjacent pair once."""
    doc = yaml.safe_load((Path(__file__).parent / "data" / "tld-roads.yaml").read_text("utf-8"))
    pairs = [tuple(p) for name in ("road", "railway", "unsure", "plain") for p in doc[name]]
    assert len(pairs) == len(set(pairs)) == 73 and len(doc["road"]) == 11
    assert all(len(p) == 2 and p[0] < p[1] for p in pairs)


@pytest.mark.corpus
@pytest.mark.skipif(not TLD_MAP, reason="VMODTOOL_TLD_MAP (the published Longest Day Map_Full.png) not given")
def test_roads_on_a_real_published_board(tmp_path: Path, shared: Path) -> None:
    """The Longest Day's roads run town to town; read where they cross a
    hexside (``crossing``), against the 73 hexsides of two windows about
    Carentan looked at by eye (tests/terrain/data/tld-roads.yaml): from five
    random road samples, three draws, no plain hexside and no railway found
    and at least 40 % of the road sides (measured 2026-12-07 over four
    draws: 50 % recall, 100 % precision; the misses are roads running into a
    town's big dot or under a bridge's box)."""
    import random

    scenario = tld_scenario(tmp_path, shared, roads=True)
    truth = tld_truth()
    doc = yaml.safe_load((Path(__file__).parent / "data" / "tld-roads.yaml").read_text("utf-8"))
    roads = {(a, b) for a, b in doc["road"]}
    wrong = {(a, b) for a, b in doc["plain"] + doc["railway"]}
    assert all(scenario.map.grid.adjacent(a, b) for a, b in roads | wrong)
    image = D.read_board_image(Path(str(TLD_MAP)), scenario)
    hits = missed = extra = 0
    for seed in range(3):
        draw = random.Random(seed)
        samples = D.Samples(file="samples.yaml", crossing=["road"])
        for name in TLD_CLASSES:
            samples.hexes[name] = draw.sample(sorted(h for h in truth if truth[h] == name), 5)
        samples.hexsides["road"] = draw.sample(sorted(roads), 5)
        got = {(a, b) for a, b, _ in D.derive_terrain(scenario, image, samples).hexsides["road"]}
        given = set(samples.hexsides["road"])
        hits += len((got & roads) - given)
        missed += len(roads - given - got)
        extra += len(got & wrong)
    assert extra == 0 and hits / (hits + missed) >= 0.4, (hits, missed, extra)
