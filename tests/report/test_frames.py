"""The per-step changes: drawing only what a step's events name gives the
same frames as drawing every step in full; the state they add up to is the
scene of that step; stacks are offset as StackMetrics does."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.replay.test_fast_paths import FIRST_RESTORE, FIRST_STEPS, TYPE, M, game, move, state
from tests.replay.test_fast_paths import change as change_piece
from vmodtool.cli import cli
from vmodtool.replay import Replay, load_board_sizes
from vmodtool.replay.positions import Positions
from vmodtool.replay.scene import SceneBuilder, scene_at
from vmodtool.replay.visitor import BoardView
from vmodtool.report import frames as frames_module
from vmodtool.report.frames import counters_at, record_frames
from vmodtool.vassal.commands import AddPiece

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
SCENARIO = ROOT / "examples" / "modern-tactical" / "scenario.yaml"
LOG = ROOT / "examples" / "modern-tactical" / "logs" / "game-1.vlog"


def test_incremental_equals_full(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, steps = record_frames(Replay.open([LOG], module=module))
    monkeypatch.setattr(frames_module, "FULL_EVERY", 1)
    full, _ = record_frames(Replay.open([LOG], module=module))
    assert len(steps) > 50
    assert fast.record() == full.record()


def whole_and_delta(replay: Callable[[], Replay]) -> tuple[dict[str, object], dict[str, object]]:
    """The frames of one replay recorded from each step's deltas and from
    its whole scenes."""
    delta, _ = record_frames(replay())
    whole, _ = record_frames(replay(), incremental=False)
    return delta.record(), whole.record()


@pytest.mark.parametrize("log", sorted((ROOT / "examples" / "modern-tactical" / "logs").glob("*.vlog"))[:8],
                         ids=lambda p: p.name)
def test_step_deltas_give_the_whole_scenes_frames(module: Path, log: Path) -> None:
    delta, whole = whole_and_delta(lambda: Replay.open([log], module=module))
    assert len(delta["changes"]) > 20      # type: ignore[arg-type]
    assert delta == whole


@pytest.fixture(scope="module")
def cards_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frames-cc") / "cc.vmod"
    scenario = ROOT / "examples" / "combat-commander" / "scenario.yaml"
    result = CliRunner().invoke(cli, ["build", str(scenario), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("log", ["game-1.vlog", "illegal-hand-over-limit.vlog", "illegal-card-wrong-deck.vlog"])
def test_step_deltas_with_decks_and_hands(cards_module: Path, log: str) -> None:
    # cards drawn from decks into hands, played, discarded: decks and hands on their own maps
    path = ROOT / "examples" / "combat-commander" / "logs" / log
    delta, whole = whole_and_delta(lambda: Replay.open([path], module=cards_module))
    assert delta == whole


#: a chain whose steps move pieces between stacks, onto an empty point, off
#: the map and back, flip one, take a stack of two off the map, and whose second log restarts from another
#: state; ``ids`` pieces without an id (as old saves write some: each is
#: drawn, but only whole scenes tell the repeats apart)
def chained(ids: bool) -> Replay:
    extra = [] if ids else [AddPiece.build(None, TYPE, state("N1", M, 50, 50)).text,
                            AddPiece.build(None, TYPE, state("N2", M, 50, 50)).text]
    first = game(FIRST_RESTORE + extra, FIRST_STEPS + [
        move("p2", "null", (0, 0), M, (200, 200)),
        move("p2", M, (300, 300), "null", (0, 0)),
        move("p1", M, (100, 100), M, (200, 200)),
        change_piece("p1", state("A1x", M, 100, 100), state("A1", M, 100, 100)),
        move("s3", "null", (0, 0), M, (300, 300))], "one.vlog")
    second = game(FIRST_RESTORE[:3] + extra, [move("p3", M, (600, 600), M, (300, 300)),
                                              move("p1", M, (300, 300), M, (100, 100))], "two.vlog")
    return Replay([first, second], Positions())


@pytest.mark.parametrize("ids", [True, False], ids=["ids", "no ids"])
def test_step_deltas_of_a_chain(ids: bool) -> None:
    delta, whole = whole_and_delta(lambda: chained(ids))
    assert sum(len(c) for c in delta["changes"]) > 10     # type: ignore[union-attr,misc]
    assert delta == whole


def corpus_games() -> list[tuple[Path, Path | None, Path | None]]:
    out = []
    for folder in sorted((SHARED / "corpus").glob("*")) if (SHARED / "corpus").is_dir() else []:
        module = next((m for m in (folder / "buildFile.xml", folder / "buildFile", folder / "tour.mod")
                       if m.exists()), None)
        sizes = folder / "board-sizes.json"
        for log in sorted([*folder.glob("*.vlog"), *folder.glob("*.log")]):
            out.append((log, module, sizes if sizes.exists() else None))
    return out


@pytest.mark.parametrize("case", corpus_games() or [None], ids=lambda c: c[0].name if c else "no corpus")
def test_step_deltas_of_the_corpus_logs(case: tuple[Path, Path | None, Path | None] | None) -> None:
    if case is None:
        pytest.skip("../shared is not available")
    log, module, sizes_file = case
    sizes = load_board_sizes(sizes_file) if sizes_file else None
    delta, whole = whole_and_delta(lambda: Replay.open([log], module=module, board_sizes=sizes))
    assert delta == whole


@pytest.mark.parametrize("step", [0, 40, 97])
def test_changes_add_up_to_the_scene(module: Path, step: int) -> None:
    frames, _ = record_frames(Replay.open([LOG], module=module))
    state = counters_at(frames, step)
    replay = Replay.open([LOG], module=module)
    scene = scene_at(replay, step, SceneBuilder(replay.positions, replay.positions.module))
    counters = {c.id: c for c in scene.counters()}
    assert set(state) == set(counters)
    for pid, change in state.items():
        c = counters[pid]
        assert frames.maps[change[1]]["name"] == c.map
        assert (change[2], change[3]) == (c.x, c.y)
        assert frames.labels[change[5]] == c.label


def test_stacks_offset_as_stack_metrics(module: Path) -> None:
    """Equal-sized pieces of an unexpanded stack: each 2 px right and 4 px up
    of the one below (StackMetrics defaults)."""
    replay = Replay.open([LOG], module=module)
    engine = None
    for _ in replay.steps():
        engine = replay.engine
    assert engine is not None
    builder = SceneBuilder(replay.positions, replay.positions.module)
    scene = builder.scene(BoardView(engine))
    checked = 0
    for m in engine.state.maps.values():
        for obj in m.pieces:
            members = getattr(obj, "members", None)
            if not members or len(members) < 2 or type(obj).__name__ != "Stack":
                continue
            drawn = [c for c in scene.counters() if c.id in {p.id for p in members}]
            sizes = {(c.layers[0].w, c.layers[0].h) for c in drawn if c.layers}
            if len(drawn) != len(members) or len(sizes) != 1:
                continue
            order = {p.id: i for i, p in enumerate(members)}
            for c in drawn:
                i = order[c.id]
                assert (c.x, c.y) == (obj.x + 2 * i, obj.y - 4 * i)
            checked += 1
    assert checked > 0


def test_the_scene_after_a_step_is_a_visitor_of_one_pass(module: Path) -> None:
    """``SceneAfter`` run until a step draws the board the frames reach at
    that step; a step past the game's end is an error naming the last step,
    and step 0 is the saved state."""
    from vmodtool.errors import VmodError
    from vmodtool.replay.scene import SceneAfter

    frames, steps = record_frames(Replay.open([LOG], module=module))
    replay = Replay.open([LOG], module=module)
    builder = SceneBuilder(replay.positions, replay.positions.module)
    (scene,) = replay.run(SceneAfter(builder, 40), until=40)
    assert scene.step == 40 and {c.id for c in scene.counters()} == set(counters_at(frames, 40))
    (start,) = replay.run(SceneAfter(builder, 0), until=0)
    assert start.step == 0 and {c.id for c in start.counters()} == set(counters_at(frames, 0))
    with pytest.raises(VmodError, match=f"step {len(steps) + 1} does not exist: the replay has {len(steps)} step"):
        scene_at(replay, len(steps) + 1)
