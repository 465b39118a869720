"""Self-contained consistency checks for the bundled example scenarios.

These tests read ``examples/<name>/scenario.yaml`` with ``yaml.safe_load`` and
check the data on their own (they do not use ``vmodtool.scenario``): schema
key, hex ids on the map, hexside adjacency on a flat-top grid, every
referenced id defined, counters placed exactly once, CSV counter mixes.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = ["modern-tactical", "ww1-operational", "combat-commander"]

RULE_KINDS = {
    "stacking", "stack_order", "cohabitation", "escorted_move", "obligation",
    "movement_allowance", "command_range", "status_forbids", "state_never",
    "transition_window", "placement", "phase_sweep", "per_turn_limit",
    "replacement", "setup_conformity", "plugin",
}
BOX_ROLES = {"eliminated", "dead", "cup", "drawn", "air_ready", "air_flown",
             "reinforcements", "counter_mix", "holding", "casualty"}
TRACK_KINDS = {"turn_record", "casualty", "replacement_points", "victory", "generic"}
CHECK_AT = {"event", "step_end", "activation_end", "phase_end", "turn_end"}


# ---------------------------------------------------------------- helpers

def load(name: str) -> dict:
    with open(EXAMPLES / name / "scenario.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _part(n: int, spec: dict) -> str:
    assert spec.get("type", "numeric") == "numeric", "tests only handle numeric numbering"
    return str(n).zfill(spec.get("leading_zeros", 0) + 1)


def grid_info(scen: dict):
    """(label set, label -> (column number, row number), label of (c, r))."""
    grid = scen["map"]["grid"]
    num = grid["numbering"]
    assert grid["orientation"] == "flat_top" and num["first"] == "column"
    cspec, rspec = num["column"], num["row"]
    sep = num.get("separator", "")
    coords: dict[str, tuple[int, int]] = {}
    for i in range(grid["columns"]):
        for j in range(grid["rows"]):
            c, r = cspec.get("start", 0) + i, rspec.get("start", 0) + j
            coords[_part(c, cspec) + sep + _part(r, rspec)] = (c, r)
    return coords


def adjacent(a: tuple[int, int], b: tuple[int, int], low_columns: str) -> bool:
    """Flat-top grid; columns whose number has the parity of ``low_columns``
    sit half a hex lower."""
    (c, r), (c2, r2) = a, b
    if c == c2:
        return abs(r - r2) == 1
    if abs(c - c2) != 1:
        return False
    low = (c % 2 == 0) == (low_columns == "even")
    return r2 - r in ((0, 1) if low else (-1, 0))


def expand_counters(scen: dict, folder: Path) -> list[dict]:
    spec = scen["counters"]
    if isinstance(spec, dict):
        with open(folder / spec["csv"], encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        entries = []
        for row in rows:
            e = {k: v for k, v in row.items() if v not in (None, "")}
            if "labels" in e:
                e["labels"] = e["labels"].split("|")
            if "count" in e:
                e["count"] = int(e["count"])
            entries.append(e)
    else:
        entries = spec
    out = []
    for e in entries:
        n = e.get("count")
        if n:
            labels = e.get("labels") or [e.get("label", e["id"])] * n
            assert len(labels) == n, f"{e['id']}: {len(labels)} labels for count {n}"
            for k in range(1, n + 1):
                out.append({**e, "id": f"{e['id']}.{k}", "label": labels[k - 1]})
        else:
            assert "labels" not in e or len(e["labels"]) == 1, e["id"]
            out.append(dict(e))
    return out


def walk(node, path=()):
    """Yield (key, value, path) for every mapping entry below ``node``."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v, path
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for v in node:
            yield from walk(v, path)


def as_list(v):
    return v if isinstance(v, list) else [v]


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module", params=NAMES)
def example(request):
    scen = load(request.param)
    return request.param, scen, EXAMPLES / request.param


# ---------------------------------------------------------------- tests

def test_files_exist():
    for name in NAMES:
        assert (EXAMPLES / name / "scenario.yaml").is_file()
        assert (EXAMPLES / name / "README.md").is_file()


def test_header(example):
    name, scen, _ = example
    assert scen["schema"] == "vmodtool/1"
    game = scen["game"]
    assert re.fullmatch(r"[a-z0-9_.-]+", game["id"])
    assert len(game["sides"]) >= 2
    for side in game["sides"]:
        for key in ("fill", "ink", "stripe"):
            if key in side:
                assert re.fullmatch(r"#[0-9a-fA-F]{6}", side[key])
    for d in game.get("dice", []):
        assert re.fullmatch(r"\d+d\d+", d)
    text = (EXAMPLES / name / "scenario.yaml").read_text(encoding="utf-8")
    head = text[:1500].lower()
    assert "invented" in head or "придуман" in head
    note = game["note"].lower()
    assert "invented" in note or "придуман" in note


def test_map(example):
    _, scen, _ = example
    m = scen["map"]
    coords = grid_info(scen)
    low = m["grid"]["low_columns"]
    tt = m["terrain_types"]
    codes = {v["code"]: k for k, v in tt.items()}
    assert len(codes) == len(tt), "terrain codes must be unique"
    assert all(len(c) == 1 and not c.isspace() for c in codes)
    terr = m["terrain"]
    assert terr["default"] in tt
    rows = sorted({lbl[-2:] for lbl in coords})
    for row_label, line in terr.get("rows", {}).items():
        assert isinstance(row_label, str) and row_label in rows, row_label
        cells = line.split()
        assert len(cells) == m["grid"]["columns"], row_label
        assert all(c in codes for c in cells), row_label
    for hex_id, t in (terr.get("hexes") or {}).items():
        assert hex_id in coords and t in tt
    for entry in m.get("hexsides", []):
        assert entry["type"] in m["hexside_types"], entry["type"]
        pairs = entry.get("between") or list(zip(entry["path"], entry["path"][1:]))
        for a, b in pairs:
            assert isinstance(a, str) and isinstance(b, str)
            assert a in coords and b in coords, (a, b)
            assert adjacent(coords[a], coords[b], low), f"{entry['type']}: {a}-{b} not adjacent"
    for item in m.get("labels", []) + m.get("objectives", []):
        assert item["hex"] in coords, item
    # a bridge must sit on a river (or stream) hexside it negates
    sides = {}
    for entry in m.get("hexsides", []):
        pairs = entry.get("between") or list(zip(entry["path"], entry["path"][1:]))
        for a, b in pairs:
            sides.setdefault(frozenset((a, b)), set()).add(entry["type"])
    for key, types in sides.items():
        if "bridge" in types:
            assert types & {"river", "stream", "canal"}, sorted(key)


def test_units_and_setup(example):
    name, scen, folder = example
    sides = {s["id"] for s in scen["game"]["sides"]}
    types = scen["unit_types"]
    layouts = scen.get("factor_layouts", {})
    all_tags = {t for ut in types.values() for t in ut.get("tags", [])}
    for tid, ut in types.items():
        assert ut.get("layout") is None or ut["layout"] in layouts, tid
        assert ut["faces"], tid
        names = [f["name"] for f in ut["faces"]]
        assert len(names) == len(set(names)), tid
        for s in ut.get("serves", []):
            assert s in all_tags, (tid, s)
    boxes = {b["id"]: b for b in scen.get("boxes", [])}
    for b in boxes.values():
        assert b["role"] in BOX_ROLES and b.get("side", next(iter(sides))) in sides
    for t in scen.get("tracks", []):
        assert t["kind"] in TRACK_KINDS
    counters = expand_counters(scen, folder)
    ids = [c["id"] for c in counters]
    assert len(ids) == len(set(ids)), "duplicate counter ids"
    by_id = {c["id"]: c for c in counters}
    forms = {f["id"]: f for f in scen.get("formations", [])}
    for f in forms.values():
        assert f["side"] in sides
        if f.get("hq"):
            assert f["hq"] in by_id and by_id[f["hq"]]["side"] == f["side"], f["id"]
            assert by_id[f["hq"]].get("formation") == f["id"]
    for c in counters:
        assert c["type"] in types, c
        assert c["side"] in sides, c
        assert c.get("formation") is None or c["formation"] in forms, c
        if c.get("formation"):
            assert forms[c["formation"]]["side"] == c["side"], c
        if c.get("face"):
            assert c["face"] in [f["name"] for f in types[c["type"]]["faces"]]
    if name == "modern-tactical":
        assert len(counters) >= 12
    coords = grid_info(scen)
    seen: list[str] = []
    chit_counts: dict[str, int] = {}
    for entry in scen["setup"]:
        if "hex" in entry:
            assert entry["hex"] in coords, entry
            units = entry["stack"]
        else:
            assert entry["box"] in boxes, entry
            assert "faces" not in entry, "faces only on hex stacks"
            units = entry.get("units", [])
            for chit in entry.get("chits", []):
                assert chit == "end_turn" or chit in forms, chit
                chit_counts[chit] = chit_counts.get(chit, 0) + 1
            if "arrive" in entry:
                arr = entry["arrive"]
                assert scen["turns"]["first"] <= arr["turn"] <= scen["turns"]["last"]
                assert "hex" not in arr or arr["hex"] in coords
                assert "edge" not in arr or arr["edge"] in scen["map"].get("edges", {})
        for u in units:
            assert u in by_id, u
        seen.extend(units)
        for u, face in (entry.get("faces") or {}).items():
            assert u in units, u
            assert face in [f["name"] for f in types[by_id[u]["type"]]["faces"]], (u, face)
    dup = {u for u in seen if seen.count(u) > 1}
    assert not dup, f"placed more than once: {sorted(dup)}"
    assert set(seen) == set(ids), f"not placed: {sorted(set(ids) - set(seen))}"
    if chit_counts:
        for fid, f in forms.items():
            assert chit_counts.get(fid, 0) == f["chits"], fid
        acts = [p["activation"] for p in scen["turns"]["structure"] if "activation" in p]
        assert chit_counts.get("end_turn", 0) == acts[0]["end_turn_chits"]


def test_turns_log_resources(example):
    _, scen, _ = example
    sides = {s["id"] for s in scen["game"]["sides"]}
    turns = scen["turns"]
    phases = [p["phase"] for p in turns["structure"]]
    assert len(phases) == len(set(phases))
    assert set(turns.get("player_turns", [])) <= sides
    boxes = {b["id"] for b in scen.get("boxes", [])}
    for p in turns["structure"]:
        act = p.get("activation")
        if act and act.get("kind") == "chit_pull":
            assert act["cup"] in boxes and act["drawn"] in boxes
    log = scen["log"]
    for key in ("dice_regex", "typed_chat_regex"):
        re.compile(log[key])
    re.compile(log["turn_tracker"]["report_regex"])
    rp = (scen.get("resources") or {}).get("replacement_points")
    if rp:
        assert rp["track"] in {t["id"] for t in scen["tracks"]}
        for turn, per_side in rp["schedule"].items():
            assert turns["first"] <= int(turn) <= turns["last"]
            assert set(per_side) <= sides


def test_rules_reference_defined_ids(example):
    _, scen, folder = example
    types = scen["unit_types"]
    tags = {t for ut in types.values() for t in ut.get("tags", [])}
    markers = set(scen.get("markers") or {})
    phases = {p["phase"] for p in scen["turns"]["structure"]}
    boxes = {b["id"] for b in scen.get("boxes", [])}
    tracks = {t["id"] for t in scen.get("tracks", [])}
    roles = {b["role"] for b in scen.get("boxes", [])}
    terrain = set(scen["map"]["terrain_types"])
    hexside_types = set(scen["map"]["hexside_types"])
    faces = {f["name"] for ut in types.values() for f in ut["faces"]}
    classes = {ut["movement_class"] for ut in types.values() if "movement_class" in ut}
    sides = {s["id"] for s in scen["game"]["sides"]}
    rule_ids = [r["id"] for r in scen["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    plugin_paths = (scen.get("plugins") or {}).get("paths", [])
    for rule in scen["rules"]:
        rid = rule["id"]
        assert rule["kind"] in RULE_KINDS, rid
        assert rule["ref"] and all(isinstance(x, str) for x in rule["ref"]), rid
        assert rule.get("check_at", "event") in CHECK_AT, rid
        assert rule.get("severity", "error") in {"error", "warning", "info"}, rid
        if rule["kind"] == "plugin":
            module, _, cls = rule["plugin"].partition(":")
            found = [folder / p / f"{module}.py" for p in plugin_paths
                     if (folder / p / f"{module}.py").is_file()]
            assert found, f"{rid}: plug-in module {module} not found"
            assert f"class {cls}" in found[0].read_text(encoding="utf-8"), rid
        for key, value, _path in walk(rule.get("params", {})):
            if key in ("tags", "tags_any"):
                assert set(as_list(value)) <= tags, (rid, value)
            elif key in ("markers", "marker_kind", "marker_in_hex"):
                assert set(as_list(value)) <= markers, (rid, value)
            elif key in ("phases", "phase", "phase_end", "combat_phase"):
                assert set(as_list(value)) <= phases, (rid, value)
            elif key == "type":
                assert set(as_list(value)) <= set(types), (rid, value)
            elif key in ("box_role", "in_box_role"):
                assert set(as_list(value)) <= roles, (rid, value)
            elif key == "in":
                assert set(as_list(value)) <= boxes | tracks, (rid, value)
            elif key == "terrain_not":
                assert set(as_list(value)) <= terrain, (rid, value)
            elif key in ("bridge_negates",):
                assert set(as_list(value)) <= hexside_types, (rid, value)
            elif key == "hexside_extra":
                assert set(value) <= hexside_types, (rid, value)
            elif key == "road":
                assert set(value["types"]) <= hexside_types, (rid, value)
            elif key == "costs":
                assert set(value) <= classes, (rid, value)
                for cls_costs in value.values():
                    assert set(cls_costs) <= terrain | {"default"}, (rid, cls_costs)
            elif key == "face" and value != "reduced_if_two_step":
                assert value in faces, (rid, value)
            elif key == "side" and value not in ("friendly", "enemy"):
                assert value in sides, (rid, value)
        for ann in rule.get("needs_annotations", []):
            assert re.fullmatch(r"[a-z_]+", ann)


def test_ww1_counter_csv_and_plugin():
    folder = EXAMPLES / "ww1-operational"
    with open(folder / "counters.csv", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    assert header == ["id", "type", "side", "formation", "label", "labels", "count"]
    assert rows and all(len(r) == len(header) for r in rows)
    for row in rows:
        rec = dict(zip(header, row))
        if rec["count"]:
            assert len(rec["labels"].split("|")) == int(rec["count"])
        else:
            assert rec["label"]
    src = (folder / "rules" / "somme_rules.py").read_text(encoding="utf-8")
    assert "vmodtool" not in src.split('"""', 2)[-1].replace("vmodtool/", "")  # no imports
    assert "class TankBreakdownAfterAttack" in src


def test_combat_commander_is_russian():
    scen = load("combat-commander")
    cyr = re.compile(r"[А-Яа-яЁё]")
    assert scen["game"].get("language") == "ru"
    for side in scen["game"]["sides"]:
        assert cyr.search(side["name"]) and side["id"].isascii()
    for tid, tt in scen["map"]["terrain_types"].items():
        assert cyr.search(tt["name"]) and tid.isascii()
    for b in scen["boxes"]:
        assert cyr.search(b["name"])
    for kind, mk in scen["markers"].items():
        assert cyr.search(mk["name"]) and kind.isascii()
    for c in scen["counters"]:
        assert c["id"].isascii()
        for lbl in as_list(c.get("labels") or c.get("label")):
            assert cyr.search(lbl), c["id"]
    private = [ut for ut in scen["unit_types"].values() if "private" in ut["tags"]]
    assert private and all(ut["faces"][0]["factors"]["morale"] == 6
                           and ut["faces"][0]["factors"]["command"] == 2 for ut in private)
