"""``vmodtool build`` shows the board's warnings (place names or objective
markers that found no free place) as ``vmodtool board`` does: on stderr,
one line each, located in the scenario file, with exit code 0 — from a
board it draws and from a board it takes from ``--cache`` (whose entry
keeps them), located again when the scenario's lines have moved."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import game_examples
from vmodtool.assemble import images as I
from vmodtool.assemble.builder import build_module_file
from vmodtool.commands.board import board
from vmodtool.commands.build import build
from vmodtool.scenario import load_scenario

ALBERT = '    - {hex: "0203", text: "Albert"}'


def _crowded(folder: Path, extra: int = 12) -> Path:
    """The WW1 example with ``extra`` more place names in Albert's hex: the
    last ones find no free place."""
    source = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    shutil.copytree(source.parent, folder, dirs_exist_ok=True)
    path = folder / "scenario.yaml"
    text = path.read_text(encoding="utf-8")
    crowded = text.replace(ALBERT, ALBERT + "\n" + "".join(
        f'    - {{hex: "0203", text: "Albert quarter {i}"}}\n' for i in range(extra)).rstrip("\n"), 1)
    assert crowded != text
    path.write_text(crowded, encoding="utf-8")
    return path


def _invoke(command, args: list[str]) -> tuple[int, str, str]:
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames \
        else CliRunner()
    result = runner.invoke(command, args)
    return result.exit_code, result.stdout, result.stderr


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def _line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


class _Boards:
    """Counts the boards the build draws."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.drawn = 0
        draw = I._draw_board

        def counted(scenario):  # type: ignore[no-untyped-def]
            self.drawn += 1
            return draw(scenario)

        monkeypatch.setattr(I, "_draw_board", counted)


def test_build_shows_the_board_s_warnings_as_board_does(tmp_path):
    scen = _crowded(tmp_path / "game")
    code, out, err = _invoke(board, [str(scen), "-o", str(tmp_path / "board.png")])
    assert code == 0
    from_board = _warnings(err)
    last = _line_of(scen, '    - {hex: "0203", text: "Albert quarter 11"}')
    assert any(w.startswith(f"warning: {scen}:{last}:") and "finds no free place" in w for w in from_board)
    code, out, err = _invoke(build, [str(scen), "-o", str(tmp_path / "game.vmod"), "--quiet"])
    assert code == 0, err                                      # warnings, not errors
    assert (tmp_path / "game.vmod").is_file()
    assert _warnings(err) == from_board
    assert all("\n" not in w for w in _warnings(err))
    assert "wrote " in out and "warning" not in out


def test_a_clean_board_builds_without_warnings(tmp_path):
    source = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    code, out, err = _invoke(build, [str(source), "-o", str(tmp_path / "ww1.vmod"), "--quiet"])
    assert code == 0 and _warnings(err) == []
    assert build_module_file(source, tmp_path / "again.vmod").warnings == ()


def test_a_warm_build_takes_the_warnings_from_the_cache_without_drawing(tmp_path, monkeypatch):
    scen = _crowded(tmp_path / "game")
    cache = tmp_path / "cache"
    boards = _Boards(monkeypatch)
    cold = build_module_file(scen, tmp_path / "cold.vmod", cache_dir=cache)
    assert boards.drawn == 1 and cold.warnings
    index = json.loads((cache / I.BOARD_CACHE[1]).read_text("utf-8"))
    assert len(index["notes"]) == len(cold.warnings)
    warm = build_module_file(scen, tmp_path / "warm.vmod", cache_dir=cache)
    assert boards.drawn == 1                                   # the board came from the cache
    assert warm.warnings == cold.warnings
    assert (tmp_path / "warm.vmod").read_bytes() == (tmp_path / "cold.vmod").read_bytes()
    # and through the command, as the cold build shows them
    code, _out, err = _invoke(build, [str(scen), "-o", str(tmp_path / "cmd.vmod"), "--cache", str(cache), "-q"])
    assert code == 0 and _warnings(err) == [f"warning: {w}" for w in cold.warnings]
    assert boards.drawn == 1


def test_warm_warnings_follow_lines_that_moved(tmp_path, monkeypatch):
    """A comment above the map moves every label's line but not the board:
    the cached board is used and its warnings name the new lines."""
    scen = _crowded(tmp_path / "game")
    cache = tmp_path / "cache"
    boards = _Boards(monkeypatch)
    before = build_module_file(scen, tmp_path / "a.vmod", cache_dir=cache).warnings
    text = scen.read_text(encoding="utf-8")
    scen.write_text("# a note\n# another\n" + text, encoding="utf-8")
    after = build_module_file(scen, tmp_path / "b.vmod", cache_dir=cache).warnings
    assert boards.drawn == 1
    assert len(after) == len(before)
    last = _line_of(scen, '    - {hex: "0203", text: "Albert quarter 11"}')
    assert any(w.startswith(f"{scen}:{last}:") for w in after)
    assert [_line_number(w) for w in after] == [_line_number(w) + 2 for w in before]
    assert list(after) == load_board_warnings(scen)
    again = build_module_file(scen, tmp_path / "c.vmod", cache_dir=cache).warnings   # kept located
    assert again == after and boards.drawn == 1


def _line_number(warning: str) -> int:
    found = re.match(r".+?scenario\.yaml:(\d+):\d+: ", warning)
    assert found, warning
    return int(found.group(1))


def load_board_warnings(path: Path) -> list[str]:
    from vmodtool.render.board import board_drawing

    return board_drawing(load_scenario(path)).warnings


def test_a_cached_board_without_its_warnings_is_drawn_again(tmp_path, monkeypatch):
    """An entry of an older build (no warnings recorded) is not trusted to
    have none."""
    scen = _crowded(tmp_path / "game")
    cache = tmp_path / "cache"
    boards = _Boards(monkeypatch)
    cold = build_module_file(scen, tmp_path / "a.vmod", cache_dir=cache)
    index_file = cache / I.BOARD_CACHE[1]
    for damage in ("missing", "not a list"):
        index = json.loads(index_file.read_text("utf-8"))
        if damage == "missing":
            del index["notes"]
        else:
            index["notes"] = [["map", "labels"]]
        index_file.write_text(json.dumps(index), encoding="utf-8")
        drawn = boards.drawn
        assert build_module_file(scen, tmp_path / "b.vmod", cache_dir=cache).warnings == cold.warnings
        assert boards.drawn == drawn + 1


def test_the_worker_s_board_brings_its_warnings(tmp_path, monkeypatch):
    """A cache-less build with many counters draws the board in a forked
    worker (``_board_job``): its warnings come back with it."""
    scen = _crowded(tmp_path / "game")
    scenario = load_scenario(scen)
    monkeypatch.setattr(I, "_FORKED_SCENARIO", scenario)
    found = I._board_job(id(scenario))
    assert found is not None
    _data, size, lines = found
    assert size == tuple(scenario.map.size)
    assert lines == load_board_warnings(scen) and lines


def test_a_warm_build_with_warnings_reads_no_yaml_and_draws_nothing(tmp_path):
    """The warnings kept with the board need neither the scenario parsed
    again nor the board renderer: in a fresh process, as a user's warm
    build (Pillow itself this example's status-layer overlays import)."""
    import os
    import subprocess
    import sys

    scen = _crowded(tmp_path / "game")
    cache = tmp_path / "cache"
    cold = build_module_file(scen, tmp_path / "first.vmod", cache_dir=cache)
    assert cold.warnings
    probe = ("import sys; from vmodtool.assemble.builder import build_module_file; "
             f"s = build_module_file({str(scen)!r}, {str(tmp_path / 'warm.vmod')!r}, cache_dir={str(cache)!r}); "
             "print(len(s.warnings)); print(' '.join(m for m in ('yaml', 'vmodtool.scenario.source', "
             "'vmodtool.render.board', 'vmodtool.render.board_canvas', 'vmodtool.render.counters') "
             "if m in sys.modules))")
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    count, imported = (done.stdout.splitlines() + [""])[:2]
    assert int(count) == len(cold.warnings)
    assert imported.strip() == ""
