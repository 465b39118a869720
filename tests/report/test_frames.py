"""The per-step changes: drawing only what a step's events name gives the
same frames as drawing every step in full; the state they add up to is the
scene of that step; stacks are offset as StackMetrics does."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.report import frames as frames_module
from vmodtool.report.frames import counters_at, record_frames
from vmodtool.report.scene import SceneBuilder, scene_at

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "modern-tactical" / "scenario.yaml"
LOG = ROOT / "examples" / "modern-tactical" / "logs" / "game-1.vlog"


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frames") / "game.vmod"
    result = CliRunner().invoke(cli, ["build", str(SCENARIO), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_incremental_equals_full(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, steps = record_frames(Replay.open([LOG], module=module))
    monkeypatch.setattr(frames_module, "FULL_EVERY", 1)
    full, _ = record_frames(Replay.open([LOG], module=module))
    assert len(steps) > 50
    assert fast.record() == full.record()


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
    scene = builder.scene(engine)
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
