"""``vmodtool batch``: every game of an archive, exactly as its command alone.

The archive is the synthetic one of ``benchmarks/synthetic_archive.py``
(the example systems' logs written by the project's writer, laid out one
folder per game, plus a cut-off log and a file that is no log); each
game's record is compared with what the command prints for that game
alone (``--format json`` and its exit code, or its one-line error)."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import REPO, SHARED
from vmodtool.batch import Game, ManifestError, Options, find_games, games_from, read_manifest, run_batch
from vmodtool.batch import tasks as batch_tasks
from vmodtool.cli import cli


def _load_archive_module():
    spec = importlib.util.spec_from_file_location("synthetic_archive", REPO / "benchmarks" / "synthetic_archive.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


synthetic = _load_archive_module()


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """9 example games (three of each system, clean and seeded) and the two bad ones."""
    return synthetic.write_archive(tmp_path_factory.mktemp("archive"), games=9, corpus=False)


def _alone(args: list[str]) -> tuple[int, object]:
    """What the command prints for one game: (exit code, JSON or error line)."""
    result = CliRunner().invoke(cli, args)
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.startswith("vmodtool: error: ")]
        return 2, lines[-1].removeprefix("vmodtool: error: ")
    assert result.exit_code in (0, 1, 3), result.output
    return result.exit_code, json.loads(result.stdout)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _compare(records: list[dict], alone_args) -> None:
    for record in records:
        code, expected = _alone(alone_args(record))
        assert record["exit_code"] == code, record["game"]
        if code == 2:
            assert record["status"] == "failed" and record["error"] == expected
        else:
            assert record["result"] == expected, record["game"]


# -- games -----------------------------------------------------------------------------

def test_folder_tree_groups_by_folder_in_natural_order(tmp_path: Path) -> None:
    for name in ("g2/turn10.vlog", "g2/turn2.vlog", "g10/a.vsav", "g2/notes.txt", "g2/old.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    games = find_games(tmp_path, batch_tasks.COMMANDS["audit"])
    assert [g.name for g in games] == ["g2", "g10"]
    # old.log does not start as a VASSAL file does: not a game's file
    assert [p.name for p in games[0].files] == ["turn2.vlog", "turn10.vlog"]
    by_pattern = find_games(tmp_path, (".vlog",), group=r"(?P<game>g\d+)/turn")
    assert [(g.name, len(g.files)) for g in by_pattern] == [("g2", 2)]
    assert [g.name for g in find_games(tmp_path, (".vlog", ".vsav"), group="file")] == \
        ["g2/turn2.vlog", "g2/turn10.vlog", "g10/a.vsav"]


def test_bad_group_pattern_and_empty_folder_are_located_errors(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no group"):
        find_games(tmp_path, (".vlog",), group="turn")
    with pytest.raises(ManifestError, match="bad regular expression"):
        find_games(tmp_path, (".vlog",), group="(")
    with pytest.raises(ManifestError, match="holds no .vlog"):
        games_from([tmp_path], (".vlog",))


def test_csv_manifest_orders_each_game_and_names_its_module_and_scenario(tmp_path: Path) -> None:
    manifest = tmp_path / "games.csv"
    manifest.write_text("game,file,order,module,scenario\nб,t2.vlog,2,m.vmod,s.yaml\nб,t1.vlog,1,,\n"
                        "a,x.vlog,,,\n", encoding="utf-8")
    games = read_manifest(manifest)
    assert games == [Game("б", (tmp_path / "t1.vlog", tmp_path / "t2.vlog"), tmp_path / "m.vmod",
                          tmp_path / "s.yaml"), Game("a", (tmp_path / "x.vlog",))]


@pytest.mark.parametrize(("text", "message"), [
    ("name,path\nx,y\n", "games.csv: line 1: the header must name the columns game and file"),
    ("game,file,order\nx,y,first\n", "games.csv: line 2: order must be a number, not 'first'"),
    ("game,file,module\nx,a.vlog,m1.vmod\nx,b.vlog,m2.vmod\n", "games.csv: line 3: game 'x' names two modules"),
    ("game,file\n,a.vlog\n", "games.csv: line 2: the game column is empty"),
])
def test_csv_manifest_errors_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    manifest = tmp_path / "games.csv"
    manifest.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as err:
        read_manifest(manifest)
    assert str(err.value).startswith(f"{tmp_path}/{message}")


def test_yaml_manifest_and_its_errors(tmp_path: Path) -> None:
    manifest = tmp_path / "games.yaml"
    manifest.write_text("games:\n  - name: g1\n    files: [a.vlog, b.vlog]\n    scenario: s.yaml\n", "utf-8")
    assert read_manifest(manifest) == [Game("g1", (tmp_path / "a.vlog", tmp_path / "b.vlog"), None,
                                            tmp_path / "s.yaml")]
    manifest.write_text("games:\n  - name: g1\n    files: []\n", "utf-8")
    with pytest.raises(ManifestError, match=r"games\[0\]\.files \(line 3\): files must be a non-empty list"):
        read_manifest(manifest)
    manifest.write_text("games: [\n", "utf-8")
    with pytest.raises(ManifestError, match=r"games.yaml: line \d+: not valid YAML"):
        read_manifest(manifest)
    manifest.write_text("games:\n  - {name: g, files: a.vlog}\n  - {name: g, files: b.vlog}\n", "utf-8")
    with pytest.raises(ManifestError, match="listed twice"):
        read_manifest(manifest)


# -- equal to each game alone ----------------------------------------------------------

def test_batch_audit_on_two_processes_equals_each_game_audited_alone(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.jsonl"
    result = CliRunner().invoke(cli, ["batch", "audit", str(archive), "-o", str(out), "-j", "2", "-q"])
    assert result.exit_code == 2, result.output          # the bad games failed, the others ran
    records = _records(out)
    games = read_manifest(archive)
    assert [r["game"] for r in records] == [g.name for g in games]
    assert [r["index"] for r in records] == list(range(len(games)))
    statuses = {r["status"] for r in records}
    assert {"failed", "findings", "ok"} <= statuses
    assert [r["game"] for r in records if r["status"] == "failed"] == ["bad/cut-off", "bad/not-a-log"]
    by_name = {g.name: g for g in games}
    _compare(records, lambda r: ["audit", *map(str, by_name[r["game"]].files), "--scenario",
                                 str(by_name[r["game"]].scenario), "--format", "json"])
    # the summary table: each game that is not ok, then the counts
    assert "bad/cut-off" in result.output and "the file may be truncated" in result.output
    assert result.output.rstrip().splitlines()[-1].startswith(f"{len(games)} game(s): 2 failed")


def test_batch_check_game_and_replay_equal_each_game_alone(archive: Path, tmp_path: Path) -> None:
    games = read_manifest(archive)
    for command, fmt in (("check-game", "json"), ("replay", "jsonl")):
        out = tmp_path / f"{command}.jsonl"
        result = CliRunner().invoke(cli, ["batch", command, str(archive), "-o", str(out), "-j", "1"])
        assert result.exit_code in (1, 2), result.output
        records = _records(out)
        assert len(records) == len(games)
        for record, game in zip(records, games, strict=True):
            alone = CliRunner().invoke(cli, [command, *map(str, game.files), "--format", fmt])
            assert record["exit_code"] == alone.exit_code, game.name
            if alone.exit_code == 2:
                assert alone.stderr.rstrip().endswith(record["error"])
            elif command == "replay":
                # the records of the replay other than its steps
                lines = [json.loads(line) for line in alone.stdout.splitlines()]
                assert record["result"] == [r for r in lines if r["type"] != "step"]
            else:
                assert record["result"] == json.loads(alone.stdout)


def test_batch_lint_and_inspect_of_modules_and_logs(tmp_path: Path) -> None:
    demo = REPO / "examples" / "formats"
    out = tmp_path / "lint.jsonl"
    result = CliRunner().invoke(cli, ["batch", "lint", str(demo / "demo.vmod"), "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    (record,) = _records(out)
    alone = CliRunner().invoke(cli, ["lint", str(demo / "demo.vmod"), "--format", "json"])
    assert (record["exit_code"], record["result"]) == (alone.exit_code, json.loads(alone.stdout))
    out = tmp_path / "inspect.jsonl"
    result = CliRunner().invoke(cli, ["batch", "inspect", str(demo / "demo.vlog"), str(demo / "demo.vmod"),
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    for record, name in zip(_records(out), ("demo.vlog", "demo.vmod"), strict=True):
        alone = CliRunner().invoke(cli, ["inspect", str(demo / name), "--format", "json"])
        assert record["result"] == json.loads(alone.stdout)


def test_without_output_records_stream_to_stdout_and_the_table_to_stderr(archive: Path) -> None:
    result = CliRunner().invoke(cli, ["batch", "check-game", str(archive.parent / "bad"), "--group", "file"])
    assert result.exit_code == 2
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(r["game"] for r in records) == ["cut-off/turn-1.vlog", "not-a-log/turn-1.vlog"]
    assert "2 game(s): 2 failed" in result.stderr


def test_audit_needs_a_scenario(archive: Path) -> None:
    result = CliRunner().invoke(cli, ["batch", "audit", str(archive.parent / "bad")])
    assert result.exit_code == 2 and "needs --scenario" in result.output


# -- re-runs and interruptions ---------------------------------------------------------

def _counting(monkeypatch) -> list[str]:
    ran: list[str] = []
    real = batch_tasks.run_task

    def counted(task):
        ran.append(task.game.name)
        return real(task)

    monkeypatch.setattr("vmodtool.batch.runner.run_task", counted)
    return ran


def _options(archive: Path) -> Options:
    return Options(command="check-game")


def test_a_rerun_skips_unchanged_games_and_reruns_a_changed_one(archive: Path, tmp_path: Path,
                                                                monkeypatch) -> None:
    games = games_from([archive], batch_tasks.COMMANDS["check-game"])
    out = tmp_path / "r.jsonl"
    first = run_batch(games, _options(archive), output=out)
    before = out.read_bytes()
    ran = _counting(monkeypatch)
    again = run_batch(games, _options(archive), output=out)
    assert ran == [] and again.reused == len(games)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in _records(out)]
    assert strip == [{k: v for k, v in json.loads(line).items() if k != "seconds"}
                     for line in before.decode().splitlines()]
    assert first.statuses == again.statuses
    # one game's log changes (same name, other content): that game alone runs again
    changed = tmp_path / "changed" / games[0].files[0].name
    changed.parent.mkdir()
    changed.write_bytes(games[0].files[0].read_bytes())
    games2 = [Game(games[0].name, (changed,)), *games[1:]]
    run_batch(games2, _options(archive), output=out)
    ran.clear()
    changed.write_bytes(games[1].files[0].read_bytes())
    run_batch(games2, _options(archive), output=out)
    assert ran == [games[0].name]


def test_an_interrupted_run_resumes_where_it_stopped(archive: Path, tmp_path: Path, monkeypatch) -> None:
    games = games_from([archive], batch_tasks.COMMANDS["check-game"])
    out = tmp_path / "i.jsonl"
    full = tmp_path / "full.jsonl"
    run_batch(games, _options(archive), output=full)
    lines = full.read_bytes().splitlines(keepends=True)
    # an interrupted run: four records written, the fifth torn mid-line
    (tmp_path / "i.jsonl.partial").write_bytes(b"".join(lines[:4]) + lines[4][:20])
    ran = _counting(monkeypatch)
    summary = run_batch(games, _options(archive), output=out)
    assert ran == [g.name for g in games[4:]]
    assert summary.reused == 4
    assert not (tmp_path / "i.jsonl.partial").exists()
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in _records(out)] == \
        [{k: v for k, v in r.items() if k != "seconds"} for r in _records(full)]


def test_a_partial_file_line_nested_past_the_json_reader_is_run_again(archive: Path, tmp_path: Path,
                                                                      monkeypatch) -> None:
    """What a resume reads back is untrusted text: a line nested past
    Python's recursion limit is a record not written, run again."""
    games = games_from([archive], batch_tasks.COMMANDS["check-game"])[:3]
    full = tmp_path / "full.jsonl"
    run_batch(games, _options(archive), output=full)
    lines = full.read_bytes().splitlines(keepends=True)
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    (tmp_path / "d.jsonl.partial").write_bytes(lines[0] + deep + lines[2])
    ran = _counting(monkeypatch)
    summary = run_batch(games, _options(archive), output=tmp_path / "d.jsonl")
    assert ran == [games[1].name] and summary.reused == 2


def test_a_bug_in_one_game_is_its_internal_error_and_is_run_again(archive: Path, tmp_path: Path,
                                                                  monkeypatch) -> None:
    games = games_from([archive], batch_tasks.COMMANDS["check-game"])[:3]
    real = batch_tasks.run_task

    def flaky(task):
        if task.index == 1:
            raise RuntimeError("planted")
        return real(task)

    monkeypatch.setattr("vmodtool.batch.runner.run_task", flaky)
    out = tmp_path / "b.jsonl"
    summary = run_batch(games, _options(archive), output=out)
    records = _records(out)
    assert records[1]["status"] == "error" and "planted" in records[1]["error"]
    assert summary.exit_code == 70 and records[0]["status"] != "error"
    ran = _counting(monkeypatch)
    run_batch(games, _options(archive), output=out)
    assert ran == [games[1].name]                      # the other two were reused


def test_the_output_is_never_one_of_the_games(archive: Path) -> None:
    target = archive.parent / "bad" / "out.vlog"
    result = CliRunner().invoke(cli, ["batch", "check-game", str(archive.parent / "bad"), "-o", str(target)])
    assert result.exit_code == 2 and not target.exists()


@pytest.mark.corpus
def test_the_corpus_chain_in_a_batch_equals_its_check_alone(tmp_path: Path) -> None:
    chain = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    if not chain:
        pytest.skip("shared data not available: corpus/tld/game")
    module = SHARED / "corpus" / "tld" / "buildFile"
    manifest = tmp_path / "m.yaml"
    manifest.write_text(json.dumps({"games": [{"name": "tld", "files": [str(p) for p in chain],
                                               "module": str(module)}]}), "utf-8")
    out = tmp_path / "tld.jsonl"
    CliRunner().invoke(cli, ["batch", "check-game", str(manifest), "-o", str(out)])
    (record,) = _records(out)
    alone = CliRunner().invoke(cli, ["check-game", *map(str, chain), "-m", str(module), "--format", "json"])
    assert (record["exit_code"], record["result"]) == (alone.exit_code, json.loads(alone.stdout))
    assert record["result"]["steps"] > 10000


# -- Dask -------------------------------------------------------------------------------

def test_on_a_dask_local_cluster_with_a_worker_killed_mid_run(archive: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    import subprocess
    import sys

    from tests.batch.dask_run import games_of

    games = games_of(archive)
    local = tmp_path / "local.jsonl"
    run_batch(games, _options(archive), output=local)
    out, sent = tmp_path / "dask.jsonl", tmp_path / "sent.jsonl"
    # the cluster in a process of its own: its threads must not live on in
    # the suite's process, which forks render workers later
    done = subprocess.run([sys.executable, "-m", "tests.batch.dask_run", str(archive), str(out), str(sent)],
                          cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = json.loads(done.stdout.strip().splitlines()[-1])
    assert ran["workers"] == 2 and len(ran["killed"]) == 1 and ran["games"] == len(games)

    def strip(path: Path) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in _records(path)]

    assert strip(out) == strip(local)
    # files sent as bytes: the same results, the same file names in the messages
    assert strip(sent) == strip(local)[:4]


def test_a_dask_address_that_is_no_address_is_a_clear_error(archive: Path) -> None:
    pytest.importorskip("distributed")
    import subprocess
    import sys

    # in a process of its own: Dask's client leaves its IO-loop thread behind
    done = subprocess.run([sys.executable, "-m", "vmodtool", "batch", "check-game", str(archive.parent / "bad"),
                           "--dask", "nowhere"], env=dict(os.environ, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "vmodtool: error: --dask nowhere: cannot reach the scheduler" in done.stderr


def test_the_progress_line_shows_done_failed_and_time_left(capsys) -> None:
    import time as _time

    from vmodtool.batch import BatchProgress
    from vmodtool.commands.batch import _Bar

    bar = _Bar(True)
    progress = BatchProgress(total=10, done=4, failed=1, reused=0, started=_time.monotonic() - 8)
    bar.update(progress)
    bar.close()
    line = capsys.readouterr().err
    # 4 games ran in 8 s: 6 left take about 12 s
    assert "4/10 games, 1 failed, 0:1" in line and "left" in line
    silent = _Bar(False)
    silent.update(progress)
    assert capsys.readouterr().err == ""


@pytest.mark.corpus
def test_games_sharing_a_published_module_and_its_scenario_equal_each_audited_alone(tmp_path: Path) -> None:
    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("0606-*.log"))[:3]
    if not logs:
        pytest.skip("shared data not available: corpus/tld/game")
    module = SHARED / "corpus" / "tld" / "buildFile"
    scenario = REPO / "examples" / "the-longest-day" / "scenario.yaml"
    out = tmp_path / "tld.jsonl"
    # one game per log: the worker loads the scenario and the module once and audits all three
    result = CliRunner().invoke(cli, ["batch", "audit", *map(str, logs), "--scenario", str(scenario), "-m",
                                      str(module), "-o", str(out), "-j", "1"])
    assert result.exit_code in (1, 3), result.output
    records = _records(out)
    assert [r["files"] for r in records] == [[str(p)] for p in logs]
    _compare(records, lambda r: ["audit", *r["files"], "--scenario", str(scenario), "-m", str(module),
                                 "--format", "json"])


def test_a_worker_knows_its_loaded_scenario_and_module_without_reading_them_again(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    # a worker asks for the game's scenario and module at every game: a
    # published module runs to tens of megabytes, hashed at every game before;
    # the same files (by device, inode, size and time) are the loaded ones,
    # and a file changed meanwhile is loaded again
    import shutil

    from vmodtool.scenario import model

    scenario = tmp_path / "scenario.yaml"
    shutil.copy(REPO / "examples" / "modern-tactical" / "scenario.yaml", scenario)
    module = tmp_path / "game.vmod"
    built = CliRunner().invoke(cli, ["build", str(scenario), "-o", str(module), "-q"])
    assert built.exit_code == 0, built.output
    batch_tasks.forget_trees()
    options = Options("audit", module=module, scenario=scenario)
    first = batch_tasks._scenario(options)
    assert isinstance(first[0], model.Scenario)

    def no_reading(*args, **kwargs):
        raise AssertionError("the files were read again")
    monkeypatch.setattr(batch_tasks, "file_digest", no_reading)
    monkeypatch.setattr(batch_tasks.hashlib, "sha256", no_reading)
    for _ in range(3):
        assert batch_tasks._scenario(options) is first
    monkeypatch.undo()
    os.utime(scenario, ns=(scenario.stat().st_atime_ns, scenario.stat().st_mtime_ns + 10**9))
    again = batch_tasks._scenario(options)
    assert again is not first and again[0].game == first[0].game
    batch_tasks.forget_trees()


def test_a_worker_collects_its_garbage_once_its_memory_has_grown(monkeypatch) -> None:
    """Memory bounded by the largest game, not by how many a worker ran: a
    full collection once the resident size has grown by 64 MB (or every 8
    games where it cannot be read)."""
    import gc as _gc

    collected: list[int] = []
    monkeypatch.setattr(_gc, "collect", lambda *a: collected.append(1) or 0)
    sizes = iter([100 << 20, 150 << 20, 170 << 20, 175 << 20])
    monkeypatch.setattr(batch_tasks, "_resident_bytes", lambda: next(sizes))
    monkeypatch.setitem(batch_tasks._settled, "rss", 90 << 20)
    batch_tasks._settle_memory()               # 100 MB: grown 10 MB, nothing
    batch_tasks._settle_memory()               # 150 MB: grown 60 MB, nothing
    assert collected == []
    batch_tasks._settle_memory()               # 170 MB: 80 MB above 90 → collect (then 175 is the new level)
    assert collected == [1] and batch_tasks._settled["rss"] == 175 << 20
    monkeypatch.setattr(batch_tasks, "_resident_bytes", lambda: None)
    for _ in range(8):
        batch_tasks._settle_memory()
    assert collected == [1, 1]


def test_a_yaml_manifest_with_a_tag_its_text_cannot_have_is_a_manifest_error(tmp_path: Path) -> None:
    manifest = tmp_path / "games.yaml"
    manifest.write_text("games:\n  - name: !!int g1\n    files: [a.vlog]\n", "utf-8")
    with pytest.raises(ManifestError, match=r"games.yaml: line 2: 'g1' is not a YAML int, which its tag !!int"):
        read_manifest(manifest)


@pytest.mark.parametrize("text", ["games: " + "[" * 5000 + "]" * 5000,
                                  "games:\n" + "".join("  " * i + "- \n" for i in range(1, 3000)),
                                  "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
                                      f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n"
                                      for i in range(9)) + "games: *j\n"],
                         ids=["deep-flow", "deep-block", "alias-bomb"])
def test_a_hostile_yaml_manifest_is_a_located_manifest_error(tmp_path: Path, text: str) -> None:
    """Nested past any real manifest, or an alias bomb: the scenario's
    bounded YAML reader refuses it with its line (it recursed out, exit 70)."""
    manifest = tmp_path / "games.yaml"
    manifest.write_text(text, "utf-8")
    with pytest.raises(ManifestError, match=r"games.yaml: line \d+: "):
        read_manifest(manifest)
    result = CliRunner().invoke(cli, ["batch", "audit", str(manifest), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 2 and "games.yaml: line" in result.output, result.output
