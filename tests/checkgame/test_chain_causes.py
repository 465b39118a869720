"""check-game's chain section names the cause of what it finds: a log that
restarts from an earlier saved state is one finding (its differences
folded, counted), files that are not one game are one finding (not an
order question), and every finding names its log, the step within it and
the step in the chain (``Replay.log_position``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.checkgame.test_chain import _record, _session, _writer
from tests.conftest import shared_path
from vmodtool.checkgame import check_game, record_game
from vmodtool.checkgame.chain import not_one_game, section


def test_a_restarted_log_is_one_finding_with_its_differences_folded(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    third = _session(w, units[4:7], "Avi", tmp_path / "3.vlog")
    # the third session played again from the same saved state (the end of 2.vlog)
    again = tmp_path / "3-again.vlog"
    shutil.copyfile(third, again)
    record = _record([first, second, third, again], module, sizes)
    s = section(record)
    [f] = s.suspicious
    assert f.kind == "restarted_log" and f.log == str(again)
    assert f.message.startswith("3-again.vlog restarts from the end of 2.vlog: what 3.vlog played is not continued "
                                "(3 difference(s) with the end of 3.vlog: 3 moved)")
    assert f.count == 4 and {g.kind for g in f.folded} == {"moved_between_logs"}
    assert (f.file_step, f.step) == (0, len(record.steps) - 3)
    assert s.data["transitions"][-1]["restarts_from"] == "2.vlog"
    assert not any(g.kind == "missing_log" for g in s.findings)
    # the text folds them; -v lists them; the JSON carries them
    game = check_game(record, ["chain"])
    text = list(game.lines())
    assert "      (3 finding(s) of this one cause folded: -v lists them)" in text
    verbose = list(game.lines(verbose=True))
    assert sum(1 for line in verbose if line.startswith("      SUSPICIOUS 3-again.vlog start")) == 3
    [record_json] = [g for g in game.as_json()["sections"][0]["findings"] if g["kind"] == "restarted_log"]
    assert record_json["count"] == 4 and len(record_json["folded"]) == 3
    assert (record_json["log"], record_json["log_step"], record_json["step"]) == (str(again), 0, f.step)


def test_a_log_continued_from_the_one_before_is_no_restart(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    logs = [_session(w, units[i:i + 2], who, tmp_path / f"{i}.vlog")
            for i, who in zip(range(0, 6, 2), ["Avi", "Sami", "Avi"], strict=True)]
    s = section(_record(logs, module, sizes))
    assert s.findings == [] and all(t["restarts_from"] is None for t in s.data["transitions"])


def test_log_position_maps_chain_steps_to_the_log_and_back(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    logs = [_session(w, units[:2], "Avi", tmp_path / "1.vlog"), _session(w, [], "Sami", tmp_path / "2.vlog"),
            _session(w, units[2:5], "Avi", tmp_path / "3.vlog")]
    record = _record(logs, module, sizes)
    replay = record.replay
    for step in record.steps:
        assert replay.log_position(step.number) == (step.file, step.file_step)
        k = replay.files.index(step.file)
        assert replay.chain_step(k, step.file_step) == step.number
    assert replay.log_position(0) == (str(logs[0]), 0)
    assert [replay.chain_step(k) for k in range(3)] == [0, 2, 2]
    with pytest.raises(ValueError):
        replay.log_position(-1)


def test_every_chain_finding_names_its_log_and_steps(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    w.move(units[5], "0101", player="Sami")         # between the logs
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    game = check_game(_record([first, second], module, sizes), ["chain"])
    [f] = game.as_json()["sections"][0]["findings"]
    assert (f["log"], f["log_step"], f["step"]) == (str(second), 0, 2)
    assert any(line.startswith("  SUSPICIOUS 2.vlog start (#2): ") for line in game.lines())


@pytest.mark.corpus
def test_set_ups_of_different_module_versions_are_not_one_game() -> None:
    saves = sorted(shared_path("corpus", "pog").glob("Historical10-*.vsav"))
    assert len(saves) == 3
    record = record_game(saves, module=shared_path("corpus", "pog", "buildFile.xml"))
    s = section(record)
    [f] = s.findings
    assert f.kind == "not_one_game" and f.severity == "suspicious"
    assert f.message.startswith("these files are not one game (Historical10-0__12fab9b.vsav → "
                                "Historical10-3__061791c.vsav: no piece in common, saved with module versions "
                                "10.0 and 10.3; ")
    assert s.summary[0].startswith("NOT ONE GAME: ")
    assert [a["module_versions"] for a in s.data["not_one_game"]] == [["10.0", "10.3"], ["10.3", "10.8"]]


@pytest.mark.corpus
def test_the_tld_chain_is_one_game_and_restarts_nowhere(tld_chain) -> None:  # type: ignore[no-untyped-def]
    """Two module updates (1,490 and 1,486 definitions) and 19 sessions:
    one game, no log restarted."""
    assert not_one_game(tld_chain) == []
    s = section(tld_chain)
    assert not any(f.kind in ("not_one_game", "restarted_log") for f in s.findings)
    assert all(f.log and f.file_step == 0 and f.step is not None for f in s.findings
               if f.kind != "logs_out_of_order")
    # the replay's warnings are placed as a player quotes them too
    lines = check_game(tld_chain, []).warning_lines()
    assert any(line.startswith("replay: 0606-3.log: step 419 (#2351): MovePiece of stack 1169409786745")
               for line in lines)


def test_the_example_chain_is_one_game() -> None:
    """The Quneitra Gap game and the log that continues it (its withdrawal)."""
    from tests.audit.helpers import EXAMPLES, built_module, example
    module, sizes = built_module(example("modern-tactical"))
    logs = [EXAMPLES / "modern-tactical" / "logs" / name for name in ("game-1.vlog", "game-2-withdrawn.vlog")]
    record = record_game(logs, module=module, board_sizes=sizes)
    assert not_one_game(record) == []
    assert not any(f.kind in ("not_one_game", "restarted_log") for f in section(record).findings)


@pytest.mark.corpus
def test_check_game_sends_replay_warnings_to_stderr_counted_in_the_summary() -> None:
    """A corpus save whose stack lists a piece the save does not hold (one
    replay warning; its mapless stacks' ``null;0;0`` positions are none)."""
    from click.testing import CliRunner

    from vmodtool.cli import cli
    save = shared_path("corpus", "jspy", "New-180907.vsav")
    result = CliRunner().invoke(cli, ["check-game", str(save), "--check", "undo"])
    assert result.stdout.splitlines()[0].endswith("; 1 replay warning(s)")
    [line] = result.stderr.splitlines()
    assert line.startswith("replay: ") and line.endswith("lists unknown piece 1447557399911")
    assert "replay: " not in result.stdout
    kept = CliRunner().invoke(cli, ["check-game", str(save), "--check", "undo", "--warnings"])
    assert kept.stderr == "" and kept.stdout.splitlines()[-1] == line
    as_json = CliRunner().invoke(cli, ["check-game", str(save), "--check", "undo", "--format", "json"])
    import json
    assert len(json.loads(as_json.stdout)["replay_warnings"]) == 1 and as_json.stderr == ""


def test_a_missing_log_s_differences_are_folded_into_it(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The pieces a left-out log moved are its consequences: one
    ``missing_log`` finding, each of them folded in it (``-v`` lists them)."""
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:1], "Avi", tmp_path / "1.vlog")
    _session(w, units[:12], "Sami", tmp_path / "2.vlog")        # the log left out
    third = _session(w, units[1:2], "Avi", tmp_path / "3.vlog")
    s = section(_record([first, third], module, sizes))
    [f] = s.suspicious
    assert f.kind == "missing_log" and f.count == 13
    assert {g.kind for g in f.folded} == {"moved_between_logs"} and len(f.folded) == 12
    assert all(g.log == str(third) and g.file_step == 0 for g in f.folded)
