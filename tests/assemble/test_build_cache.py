"""``vmodtool build --cache DIR``: what a warm build takes from the cache
(counter faces, the board, a clean schema check) is what a cold build would
make — byte for byte — and every change of its inputs, or a corrupt entry,
makes it draw or check again instead of trusting the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmodtool.assemble import builder as B
from vmodtool.assemble import images as I
from vmodtool.assemble.builder import build_module_file
from vmodtool.assemble.scenario_cache import MODEL_CACHE
from vmodtool.render import counters as C
from vmodtool.scenario import problems as P
from vmodtool.scenario import schema_cache as SC


def scenario_text(n: int = 6, *, attack: int = 4, font: str | None = None, woods: str = "#5f8f3e",
                  title: str = "Cache test") -> str:
    styles = f"styles: {{counter: {{font: {font}}}}}\n" if font else ""
    counters = ", ".join(f'"{i}"' for i in range(1, n // 2 + 1))
    hexes = [f"{c:02d}{r:02d}" for r in range(1, 5) for c in range(1, 7)]
    ids = [f"{u}.{i}" for u in ("inf", "tank") for i in range(1, n // 2 + 1)]
    setup = "\n".join(f'  - {{hex: "{hexes[i % len(hexes)]}", stack: [{uid}]}}' for i, uid in enumerate(ids))
    return f"""schema: vmodtool/1
game:
  id: cache
  title: "{title}"
  sides: [{{id: a, name: "A", fill: "#9fc5e8"}}, {{id: b, name: "B", fill: "#ea9999"}}]
  dice: [2d6]
map:
  grid: {{hex_height: 64, columns: 6, rows: 4, low_columns: even,
         numbering: {{column: {{start: 1, leading_zeros: 1}}, row: {{start: 1, leading_zeros: 1}}}}}}
  terrain_types:
    clear: {{code: ".", fill: "#e6e2c3"}}
    woods: {{code: w, fill: "{woods}", symbol: trees}}
  terrain:
    default: clear
    rows: {{"01": ". w . . w .", "02": "w . . . . ."}}
factor_layouts:
  std: {{bottom: "{{attack}}-{{defense}}-{{move}}"}}
unit_types:
  inf:
    name: "Infantry"
    movement_class: foot
    nato: {{symbol: infantry, size: battalion}}
    layout: std
    faces:
      - {{name: full, state: {{step: full}}, factors: {{attack: {attack}, defense: 3, move: 4}}}}
      - {{name: reduced, state: {{step: reduced}}, factors: {{attack: 2, defense: 1, move: 4}}}}
  tank:
    name: "Tank"
    movement_class: foot
    nato: {{symbol: armour, size: battalion}}
    layout: std
    faces:
      - {{name: full, state: {{step: full}}, factors: {{attack: 6, defense: 5, move: 6}}}}
      - {{name: reduced, state: {{step: reduced}}, factors: {{attack: 3, defense: 2, move: 6}}}}
{styles}counters:
  - {{id: inf, type: inf, side: a, count: {n // 2}, labels: [{counters}]}}
  - {{id: tank, type: tank, side: b, count: {n // 2}, labels: [{counters}]}}
setup:
{setup}
turns: {{first: 1, last: 3, structure: [{{phase: move, name: "Movement"}}]}}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "game").mkdir()
    return tmp_path


def build(folder: Path, text: str, name: str, *, cache: bool, jobs: int = 1) -> bytes:
    scenario = folder / "game" / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    out = folder / name
    build_module_file(scenario, out, jobs=jobs, cache_dir=folder / "cache" if cache else None)
    return out.read_bytes()


class Counting:
    """Counts the counter faces and boards drawn, through the real renderers."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.faces = 0
        self.boards = 0
        render_spec, board = C.render_spec, I._draw_board

        def counted_spec(spec: C.CounterSpec, px: int, *, border: bool = True) -> list:
            self.faces += len(spec.faces)
            return render_spec(spec, px, border=border)

        def counted_board(scenario):  # type: ignore[no-untyped-def]
            self.boards += 1
            return board(scenario)

        monkeypatch.setattr(C, "render_spec", counted_spec)      # the cache's and the cold build's renderer
        monkeypatch.setattr(I, "_draw_board", counted_board)

    def reset(self) -> None:
        self.faces = self.boards = 0


def test_warm_build_is_the_cold_build_and_draws_nothing(folder, monkeypatch):
    count = Counting(monkeypatch)
    cold = build(folder, scenario_text(), "cold.vmod", cache=False)
    assert count.faces == 12 and count.boards == 1
    first = build(folder, scenario_text(), "first.vmod", cache=True)
    count.reset()
    warm = build(folder, scenario_text(), "warm.vmod", cache=True)
    assert cold == first == warm
    assert count.faces == 0 and count.boards == 0
    assert {p.name for p in (folder / "cache").iterdir()} >= {
        "counters.json", "vassal", *I.BOARD_CACHE, SC.CACHE_NAME}


def test_the_pool_and_the_cache_give_the_same_bytes(folder):
    """More than 200 counters: the faces are drawn by worker processes."""
    text = scenario_text(220)
    cold_pool = build(folder, text, "pool.vmod", cache=False, jobs=2)
    cold_here = build(folder, text, "here.vmod", cache=False, jobs=1)
    build(folder, text, "first.vmod", cache=True, jobs=2)
    warm = build(folder, text, "warm.vmod", cache=True, jobs=2)
    assert cold_pool == cold_here == warm


@pytest.mark.parametrize("change, faces, boards", [
    ({"attack": 7}, 6, 0),          # the three infantry counters (a key per counter: both faces)
    ({"font": "condensed-bold"}, 12, 0),
    ({"woods": "#204010"}, 0, 1),   # the board's terrain
    ({"title": "Renamed"}, 0, 0),   # the scenario only
])
def test_a_change_redraws_what_it_changes_and_the_result_is_the_cold_build(folder, monkeypatch, change, faces,
                                                                          boards):
    build(folder, scenario_text(), "first.vmod", cache=True)
    count = Counting(monkeypatch)
    warm = build(folder, scenario_text(**change), "warm.vmod", cache=True)
    assert (count.faces, count.boards) == (faces, boards)
    assert warm == build(folder, scenario_text(**change), "cold.vmod", cache=False)


def test_corrupt_cache_entries_are_drawn_again(folder, monkeypatch):
    build(folder, scenario_text(), "first.vmod", cache=True)
    cache = folder / "cache"
    face = cache / "vassal" / C.face_filename("inf.1", "full")
    face.write_bytes(face.read_bytes()[:-9] + b"corrupted")
    (cache / I.BOARD_CACHE[0]).write_bytes(b"\x89PNG not a board")
    (cache / SC.CACHE_NAME).write_text("{not json", encoding="utf-8")
    for first_hand in (I.FACE_PACK, MODEL_CACHE):     # the general path: the per-face cache, the schema check
        (cache / first_hand).unlink()
    count = Counting(monkeypatch)
    warm = build(folder, scenario_text(), "warm.vmod", cache=True)
    assert count.faces == 2 and count.boards == 1      # that counter's two faces and the board
    assert warm == build(folder, scenario_text(), "cold.vmod", cache=False)
    count.reset()
    assert build(folder, scenario_text(), "again.vmod", cache=True) == warm   # repaired
    assert count.faces == 0 and count.boards == 0


def test_cache_indexes_nested_past_the_json_reader_are_drawn_again(folder, monkeypatch):
    """A cache is read as untrusted text: an index nested past Python's
    recursion limit (the JSON decoder raises RecursionError) is a miss, not
    a crash."""
    build(folder, scenario_text(), "first.vmod", cache=True)
    cache = folder / "cache"
    deep = "[" * 100_000 + "]" * 100_000
    for name in (I.BOARD_CACHE[1], SC.CACHE_NAME, C.MANIFEST_NAME):
        (cache / name).write_text(deep, encoding="utf-8")
    pack = cache / I.FACE_PACK
    pack.write_bytes(deep.encode() + b"\n" + pack.read_bytes().partition(b"\n")[2])
    (cache / MODEL_CACHE).unlink()                  # (signed: its index is never parsed unsigned)
    count = Counting(monkeypatch)
    warm = build(folder, scenario_text(), "warm.vmod", cache=True)
    assert count.boards == 1 and count.faces > 0
    assert warm == build(folder, scenario_text(), "cold.vmod", cache=False)


def test_a_manifest_without_hashes_is_not_trusted(folder, monkeypatch):
    build(folder, scenario_text(), "first.vmod", cache=True)
    manifest = folder / "cache" / C.MANIFEST_NAME
    data = json.loads(manifest.read_text("utf-8"))
    for entry in data["entries"]:
        entry["sha256"] = ""
    manifest.write_text(json.dumps(data), encoding="utf-8")
    (folder / "cache" / I.FACE_PACK).unlink()       # the general path: render_all's per-face cache
    count = Counting(monkeypatch)
    build(folder, scenario_text(), "warm.vmod", cache=True)
    assert count.faces == 12


def test_a_clean_schema_check_is_kept_only_for_the_same_bytes(folder, monkeypatch):
    checks: list[int] = []
    real = SC.schema_problems

    def counted(doc):  # type: ignore[no-untyped-def]
        checks.append(1)
        return real(doc)

    monkeypatch.setattr(SC, "schema_problems", counted)
    build(folder, scenario_text(), "first.vmod", cache=True)
    build(folder, scenario_text(), "warm.vmod", cache=True)
    assert len(checks) == 1
    bad = scenario_text().replace("  dice: [2d6]\n", "  dice: [2d6]\n  colour_scheme: loud\n")
    with pytest.raises(P.ScenarioProblems, match="colour_scheme"):
        build(folder, bad, "bad.vmod", cache=True)
    assert len(checks) == 2
    with pytest.raises(P.ScenarioProblems, match="colour_scheme"):   # a failed check is never kept
        build(folder, bad, "bad.vmod", cache=True)
    assert len(checks) == 3


def test_schema_key_follows_the_bytes(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("schema: vmodtool/1\n", encoding="utf-8")
    first = SC.schema_key(path)
    path.write_text("schema: vmodtool/1 \n", encoding="utf-8")
    assert SC.schema_key(path) not in ("", first)
    assert SC.schema_key(tmp_path / "missing.yaml") == ""


def test_board_key_follows_the_map_not_the_rest(folder):
    from vmodtool.scenario import load_scenario

    paths = []
    for i, text in enumerate((scenario_text(), scenario_text(title="Other"), scenario_text(woods="#000000"))):
        path = folder / f"s{i}.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(I.board_key(load_scenario(path)))
    assert paths[0] == paths[1] != paths[2]


def test_builder_uses_start_module_images():
    assert B.start_module_images is I.start_module_images


@pytest.mark.parametrize("example", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_the_counts_of_a_build_are_those_of_its_buildfile(example):
    """The summary's counts are taken while assembling (the buildFile is
    parsed only when asked for): they must be what parsing it gives."""
    from vmodtool.assemble.module import assemble_module
    from vmodtool.scenario import load_scenario

    scenario = load_scenario(Path(__file__).resolve().parents[2] / "examples" / example / "scenario.yaml")
    build = assemble_module(scenario, I.module_image_names(scenario))
    assert build.slots == len(build.buildfile.piece_slots()) > 0
    assert build.prototypes == len(build.buildfile.prototypes()) > 0


# -- the scenario model cache and the face pack ----------------------------------------

def _write(folder: Path, text: str) -> Path:
    scenario = folder / "game" / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    return scenario


def _structure(value: object, seen: dict[int, int] | None = None) -> object:
    """A model as plain nested tuples: every dataclass field and instance
    attribute, with shared objects marked, so that two models compare equal
    only when they hold the same values in the same shape."""
    import dataclasses

    seen = {} if seen is None else seen
    if isinstance(value, (str, bytes, int, float, bool, type(None), Path)):
        return value
    if isinstance(value, (tuple, frozenset)):
        # immutable: whether two equal ones are one object is Python's
        # business (3.10 shares constant tuples differently), not the model's
        items = sorted(value, key=repr) if isinstance(value, frozenset) else value
        return (type(value).__name__, tuple(_structure(v, seen) for v in items))
    if id(value) in seen:
        return ("shared", seen[id(value)])
    seen[id(value)] = len(seen)
    if isinstance(value, dict):
        return ("dict", tuple((_structure(k, seen), _structure(v, seen)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return (type(value).__name__, tuple(_structure(v, seen) for v in items))
    if dataclasses.is_dataclass(value):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "__dict__"):
        fields = dict(vars(value))
    elif hasattr(value, "__slots__"):
        fields = {k: getattr(value, k) for k in value.__slots__ if hasattr(value, k)}
    else:
        return ("value", type(value).__qualname__, repr(value))
    return (type(value).__qualname__, tuple((k, _structure(v, seen)) for k, v in fields.items()
                                            if k != "_compiled"))


@pytest.mark.parametrize("example", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_the_cached_model_is_the_fresh_model(tmp_path, example):
    from vmodtool.assemble import scenario_cache as MC
    from vmodtool.scenario import load_scenario

    path = Path(__file__).resolve().parents[2] / "examples" / example / "scenario.yaml"
    fresh = load_scenario(path)
    first, digest = MC.load_build_scenario(path, tmp_path)
    assert (tmp_path / MC.MODEL_CACHE).is_file() and digest
    found = MC.cached_scenario(path, tmp_path)
    assert found is not None
    cached, cached_digest = found
    assert cached_digest == digest
    assert _structure(cached) == _structure(fresh) == _structure(first)
    # the grid numbering's lazily compiled formatter works after the round trip
    hexes = list(fresh.map.grid.hexes)
    assert [cached.map.grid.grid.location_name(*cached.map.grid.centres[h]) for h in hexes[:5]] == \
        [fresh.map.grid.grid.location_name(*fresh.map.grid.centres[h]) for h in hexes[:5]]


class CountingLoads:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from vmodtool.scenario import loader

        self.loads = 0
        real = loader.load_scenario

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.loads += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(loader, "load_scenario", counted)


def test_a_warm_build_takes_the_model_and_the_pack_and_equals_the_cold_build(folder, monkeypatch):
    cold = build(folder, scenario_text(), "cold.vmod", cache=False)
    build(folder, scenario_text(), "first.vmod", cache=True)
    assert {I.FACE_PACK, "scenario-model.pickle"} <= {p.name for p in (folder / "cache").iterdir()}
    loads, count = CountingLoads(monkeypatch), Counting(monkeypatch)
    specs: list[int] = []
    real_specs = C.resolved_specs
    monkeypatch.setattr(C, "resolved_specs", lambda *a: specs.append(1) or real_specs(*a))
    assert build(folder, scenario_text(), "warm.vmod", cache=True) == cold
    assert (loads.loads, specs, count.faces, count.boards) == (0, [], 0, 0)


def test_a_warm_build_imports_neither_the_loader_nor_the_renderers(folder):
    """What a warm build skips it does not import either (YAML, the schema
    checker, the counter renderer, Pillow's drawing): in a fresh process."""
    import subprocess
    import sys

    scenario = _write(folder, scenario_text())
    cache = folder / "cache"
    build_module_file(scenario, folder / "first.vmod", cache_dir=cache)
    probe = ("import sys; from vmodtool.assemble.builder import build_module_file; "
             f"build_module_file({str(scenario)!r}, {str(folder / 'warm.vmod')!r}, cache_dir={str(cache)!r}); "
             "print(' '.join(m for m in ('yaml', 'jsonschema', 'vmodtool.scenario.loader', 'vmodtool.render.counters', "
             "'vmodtool.render.board', 'PIL.Image') if m in sys.modules))")
    import os

    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == ""
    assert (folder / "warm.vmod").read_bytes() == (folder / "first.vmod").read_bytes()


@pytest.mark.parametrize("change", ["scenario", "csv", "cwd", "code"])
def test_a_changed_input_loads_the_scenario_again(folder, monkeypatch, change):
    """The model is kept by everything it was made of: the scenario file,
    a file it reads (the counter mix CSV), the working folder (the model
    keeps paths as given) and the code."""
    from vmodtool.assemble import scenario_cache as MC

    game = folder / "game"
    (game / "mix.csv").write_text("id,type,side,count\ninf,inf,a,3\ntank,tank,b,3\n", encoding="utf-8")
    text = scenario_text().replace(
        "counters:\n  - {id: inf, type: inf, side: a, count: 3, labels: [\"1\", \"2\", \"3\"]}\n"
        "  - {id: tank, type: tank, side: b, count: 3, labels: [\"1\", \"2\", \"3\"]}\n",
        "counters: {csv: mix.csv}\n")
    assert "csv: mix.csv" in text
    path = _write(folder, text)
    monkeypatch.chdir(folder)
    first, _ = MC.load_build_scenario(path, folder / "cache")
    assert MC.cached_scenario(path, folder / "cache") is not None
    if change == "scenario":
        path.write_text(text.replace('"Cache test"', '"Other"'), encoding="utf-8")
    elif change == "csv":
        (game / "mix.csv").write_text("id,type,side,count\ninf,inf,a,3\ntank,tank,a,3\n", encoding="utf-8")
    elif change == "cwd":
        monkeypatch.chdir(game)
        path = Path("scenario.yaml")
    else:
        monkeypatch.setattr(MC, "_code_digest", lambda: "another version of the loader")
    assert MC.cached_scenario(path, folder / "cache") is None
    loads = CountingLoads(monkeypatch)
    again, _ = MC.load_build_scenario(path, folder / "cache")
    assert loads.loads == 1
    if change == "scenario":
        assert again.game.title == "Other"
    elif change == "csv":
        assert {c.side for c in again.counters} == {"a"}
    elif change == "cwd":
        assert again.path == Path("scenario.yaml") != first.path
    else:
        assert _structure(again) == _structure(first)
    assert MC.cached_scenario(path, folder / "cache") is not None      # written again


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not json", "other format", "not a model",
                                    "unsigned", "another user's"])
def test_a_damaged_model_entry_is_never_loaded(folder, monkeypatch, damage):
    import hashlib
    import pickle

    from vmodtool.assemble import scenario_cache as MC

    build(folder, scenario_text(), "first.vmod", cache=True)
    entry = folder / "cache" / MC.MODEL_CACHE
    raw = entry.read_bytes()
    signature, _, rest = raw.partition(b"\n")
    head, _, payload = rest.partition(b"\n")
    secret = MC.user_secret()
    assert secret is not None and MC._signature(secret, head, payload).encode() == signature

    def signed(head: bytes, payload: bytes, key: bytes = secret) -> bytes:
        return MC._signature(key, head, payload).encode() + b"\n" + head + b"\n" + payload

    unpickled: list[bytes] = []
    if damage == "truncated":
        entry.write_bytes(raw[:-100])
    elif damage == "flipped":
        entry.write_bytes(signature + b"\n" + head + b"\n" + payload[:50] + bytes([payload[50] ^ 1]) + payload[51:])
    elif damage == "not json":
        entry.write_bytes(signed(b"{" + head, payload))
    elif damage == "other format":
        entry.write_bytes(signed(head.replace(b"scenario-model/1", b"scenario-model/0"), payload))
    elif damage == "not a model":       # signed, but its payload is not a scenario
        other = pickle.dumps({"not": "a scenario"})
        index = json.loads(head)
        index["sha256"] = hashlib.sha256(other).hexdigest()
        entry.write_bytes(signed(json.dumps(index).encode(), other))
    else:
        # a crafted entry whose digests all fit but that this user's vmodtool
        # did not sign (a cache folder from a repository, an archive, another
        # user): it must never reach pickle.loads, which runs what it names
        key = b"\0" * 32 if damage == "unsigned" else hashlib.sha256(b"someone else").digest()
        entry.write_bytes(signed(head, payload, key) if damage != "unsigned" else b"0" * 64 + b"\n" + rest)
        real_loads = MC.pickle.loads
        monkeypatch.setattr(MC.pickle, "loads", lambda data: unpickled.append(data) or real_loads(data))
    loads = CountingLoads(monkeypatch)
    warm = build(folder, scenario_text(), "warm.vmod", cache=True)
    assert loads.loads == 1
    assert unpickled == []
    assert warm == build(folder, scenario_text(), "cold.vmod", cache=False)


def test_the_signing_key_is_the_users_own_private_file(tmp_path, monkeypatch):
    from vmodtool.assemble import scenario_cache as MC

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = MC.user_secret()
    path = tmp_path / "vmodtool" / "cache-signing-key"
    assert key is not None and len(key) == 32 and path.read_bytes() == key
    assert path.stat().st_mode & 0o777 == 0o600
    assert MC.user_secret() == key                       # made once, never replaced
    path.chmod(0o644)                                    # readable by others: no longer a secret
    assert MC.user_secret() is None
    path.chmod(0o600)
    path.write_bytes(b"short")
    assert MC.user_secret() is None


def test_a_scenario_with_errors_is_not_kept(folder):
    from vmodtool.assemble import scenario_cache as MC

    bad = scenario_text().replace("  dice: [2d6]\n", "  dice: [2d6]\n  colour_scheme: loud\n")
    with pytest.raises(P.ScenarioProblems):
        build(folder, bad, "bad.vmod", cache=True)
    assert not (folder / "cache" / MC.MODEL_CACHE).exists()


@pytest.mark.parametrize("damage", ["body", "index", "lengths", "key"])
def test_a_stale_or_damaged_face_pack_is_not_used(folder, monkeypatch, damage):
    build(folder, scenario_text(), "first.vmod", cache=True)
    pack = folder / "cache" / I.FACE_PACK
    raw = pack.read_bytes()
    head, _, body = raw.partition(b"\n")
    index = json.loads(head)
    if damage == "body":
        pack.write_bytes(head + b"\n" + body[:-9] + b"corrupted")
    elif damage == "index":
        pack.write_bytes(head[:-5] + b"\n" + body)
    elif damage == "lengths":
        index["faces"][0][3] += 1
        index["faces"][1][3] -= 1
        pack.write_bytes(json.dumps(index).encode() + b"\n" + body)
    else:   # another renderer: the key changes, the pack is stale
        monkeypatch.setattr(I, "_render_sources", lambda: "another renderer")
    specs: list[int] = []
    real_specs = C.resolved_specs
    monkeypatch.setattr(C, "resolved_specs", lambda *a: specs.append(1) or real_specs(*a))
    warm = build(folder, scenario_text(), "warm.vmod", cache=True)
    assert specs == [1]                 # the general path: render_all's per-face cache
    assert warm == build(folder, scenario_text(), "cold.vmod", cache=False)
    assert I._read_pack(folder / "cache", json.loads(pack.read_bytes().partition(b"\n")[0])["key"])  # rewritten


def test_a_changed_counter_gets_a_new_pack(folder, monkeypatch):
    build(folder, scenario_text(), "first.vmod", cache=True)
    count = Counting(monkeypatch)
    warm = build(folder, scenario_text(attack=7), "warm.vmod", cache=True)
    assert count.faces == 6
    assert warm == build(folder, scenario_text(attack=7), "cold.vmod", cache=False)
    count.reset()
    assert build(folder, scenario_text(attack=7), "again.vmod", cache=True) == warm
    assert count.faces == 0


def test_processes_starting_together_share_one_whole_signing_key(tmp_path, monkeypatch):
    """Two processes making the key at once (a batch's workers, two builds)
    both read the one key, never an empty file: an unsigned batch record is
    never reused on resume, so a lost key silently costs a resume."""
    import multiprocessing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # (spawned: a fork of the test process, which may hold threads, is what
    # Python 3.12+ warns about)
    context = multiprocessing.get_context("spawn")
    with context.Pool(6) as pool:
        keys = pool.map(_secret_of_a_new_process, range(24))
    assert None not in keys
    assert len(set(keys)) == 1
    assert sorted(p.name for p in (tmp_path / "cache" / "vmodtool").iterdir()) == ["cache-signing-key"]


def _secret_of_a_new_process(_: int) -> bytes | None:
    from vmodtool.assemble.scenario_cache import user_secret
    return user_secret()
