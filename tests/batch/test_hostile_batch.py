"""Hostile files, round 3, the batch and output-folder half (issue 40,
items 1, 2, 3, 6, 7, 8, 11, 13): consent reaches only the scenario the user
named; output folders are real folders inside the named place; an output
that is an input is refused; manifests and resume files are read with
bounds and located errors; something that is not a Dask scheduler is a
clear error; memory grows by a few hundred bytes a game, not by the
archive.  Each test asserts the exit code, the one located line and, where
it is about memory, a ceiling measured here."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.audit.test_plugin_consent import hostile
from tests.conftest import REPO, SHARED
from vmodtool.batch import Game, ManifestError, Options, games_from, read_manifest, run_batch
from vmodtool.batch import runner as batch_runner
from vmodtool.batch import tasks as batch_tasks
from vmodtool.cli import cli
from vmodtool.errors import VmodError
from vmodtool.fileio import bounded_lines, output_folder

EXAMPLES = REPO / "examples"
LOG = EXAMPLES / "modern-tactical" / "logs" / "game-1.vlog"
DEMO_LOG = EXAMPLES / "formats" / "demo.vlog"


@pytest.fixture(autouse=True)
def own_signing_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test with its own user key (records are signed with it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def invoke(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="vmodtool")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def error_line(err: str) -> str:
    """The one ``vmodtool: error:`` line of ``err`` (warnings may come before)."""
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("vmodtool: error: "), err
    return lines[0].removeprefix("vmodtool: error: ")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


# -- 1. consent reaches only the scenario the user named ---------------------------------

def test_trust_reaches_the_named_scenario_not_one_a_manifest_swaps_in(tmp_path: Path) -> None:
    mine = hostile(tmp_path / "mine")
    other = hostile(tmp_path / "elsewhere")
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"game,file,scenario\nswapped,{LOG},{other}\nnamed,{LOG},\n"
                        f"same,{LOG},{tmp_path / 'mine' / '..' / 'mine' / 'scenario.yaml'}\n", "utf-8")
    out = tmp_path / "r.jsonl"
    code, stdout, err = invoke("batch", "audit", manifest, "--scenario", mine, "--trust-scenario-plugins",
                               "-o", out, "-j", "1", "--no-integrity")
    assert not (tmp_path / "elsewhere" / "PWNED").exists()           # never imported
    assert (tmp_path / "mine" / "PWNED").exists()                    # the named one is
    by_game = {r["game"]: r for r in records(out)}
    swapped = by_game["swapped"]
    assert swapped["exit_code"] == 3 and swapped["status"] == "not_checked"
    assert list(swapped["result"]["not_checked"]) == ["house.evil"]
    assert by_game["named"]["exit_code"] == 1 and by_game["same"]["exit_code"] == 1
    (warning,) = [line for line in err.splitlines() if line.startswith("warning: --trust-scenario-plugins")]
    assert str(other) in warning and "NOT CHECKED" in warning
    assert code == 1, stdout + err


# -- 2. output folders -----------------------------------------------------------------

def test_output_folder_makes_reuses_and_refuses(tmp_path: Path) -> None:
    place = tmp_path / "place"
    made = output_folder(place, "cards/vassal")
    assert made == place / "cards" / "vassal" and made.is_dir()
    assert output_folder(place, "cards/vassal") == made               # reused
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (place / "linked").symlink_to(elsewhere)
    with pytest.raises(VmodError) as link:
        output_folder(place, "linked")
    assert str(link.value).startswith(f"{place / 'linked'}: refusing to write into this: it is a symbolic link")
    (place / "file").write_bytes(b"x")
    with pytest.raises(VmodError, match="it is a file, not a folder"):
        output_folder(place, "file")
    with pytest.raises(VmodError, match="the output folder is not a folder"):
        output_folder(place / "file")
    with pytest.raises(ValueError):
        output_folder(place, "../outside")
    # the place the user names may itself be a link: theirs to name
    (tmp_path / "named").symlink_to(elsewhere)
    assert output_folder(tmp_path / "named", "sub").is_dir() and (elsewhere / "sub").is_dir()


@pytest.fixture(scope="module")
def built_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    module = tmp_path_factory.mktemp("module") / "game.vmod"
    code, out, err = invoke("build", EXAMPLES / "modern-tactical" / "scenario.yaml", "-o", module, "-q", "-j", "1")
    assert code == 0, out + err
    return module


def test_a_report_does_not_write_through_a_linked_files_folder(tmp_path: Path, built_module: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "r_files").symlink_to(elsewhere)
    code, _out, err = invoke("report", EXAMPLES / "modern-tactical" / "logs" / "illegal-enemy-hex.vlog",
                             "-m", built_module, "--scenario", EXAMPLES / "modern-tactical" / "scenario.yaml",
                             "-o", tmp_path / "out" / "r.html")
    assert code == 2
    assert error_line(err).startswith(f"{tmp_path / 'out' / 'r_files'}: refusing to write into this: "
                                      "it is a symbolic link")
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "out" / "r.html").exists()


def test_build_cache_does_not_write_through_a_linked_vassal_folder(tmp_path: Path) -> None:
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    cache.mkdir()
    elsewhere.mkdir()
    (cache / "vassal").symlink_to(elsewhere)
    code, _out, err = invoke("build", EXAMPLES / "modern-tactical" / "scenario.yaml", "-o", tmp_path / "m.vmod",
                             "--cache", cache, "-q", "-j", "1")
    assert code == 2
    assert error_line(err).startswith(f"{cache / 'vassal'}: refusing to write into this: it is a symbolic link")
    assert list(elsewhere.iterdir()) == []


# -- 3. an output that is an input ---------------------------------------------------------

@pytest.mark.parametrize("named", ["results.jsonl", "results.jsonl.partial"])
def test_a_manifest_row_naming_the_output_or_its_resume_file_is_refused(tmp_path: Path, named: str) -> None:
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(DEMO_LOG, games / "a.vlog")
    output = tmp_path / "results.jsonl"
    target = tmp_path / named
    target.write_bytes(b"precious\n")
    manifest = games / "m.csv"
    manifest.write_text(f"game,file\na,a.vlog\nout,../{named}\n", "utf-8")
    code, _out, err = invoke("batch", "check-game", manifest, "-o", output, "-j", "1")
    assert code == 2
    line = error_line(err)
    assert line.startswith(f"{output}: refusing to overwrite an input file: game 'out' names ")
    assert target.read_bytes() == b"precious\n"


# -- 6. CSV manifests with bounds ------------------------------------------------------------

@pytest.mark.parametrize("row, message", [
    ("g," + "x" * 200_000 + ".vlog\n", "line 2: the line is longer than"),
    ('g,"' + "x" * 6000 + '.vlog"\n', "line 2: a field is 6005 characters long"),
    ("g,a\x00b.vlog\n", "line 2: the line holds a NUL character"),
    ('g,"' + ("x" * 99 + "\n") * 50 + '"\n', "line 52: a field is 5000 characters long"),
])
def test_a_csv_manifest_field_out_of_bounds_is_a_located_error(tmp_path: Path, row: str, message: str) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_text("game,file\n" + row, "utf-8")
    code, _out, err = invoke("batch", "check-game", manifest, "-j", "1")
    assert code == 2 and error_line(err).startswith(f"{manifest}: {message}"), err


def test_a_yaml_manifest_path_with_a_nul_is_a_located_error(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text('games:\n  - name: g\n    files: ["a\\0b.vlog"]\n', "utf-8")
    with pytest.raises(ManifestError) as caught:
        read_manifest(manifest)
    assert str(caught.value).startswith(f"{manifest}: line 3: the text holds the control character U+0000")


def test_a_csv_manifest_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_bytes(b"game,file\ng,a.vlog\nh,\xff.vlog\n")
    with pytest.raises(ManifestError, match=r"m\.csv: line \d: not UTF-8 text"):
        read_manifest(manifest)


# -- 7. something that is not a Dask scheduler ---------------------------------------------

@pytest.fixture
def junk_server(request: pytest.FixtureRequest) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers every connection with junk."""
    payload: bytes = request.param
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.sendall(payload)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(2)
    server.close()


@pytest.mark.parametrize("junk_server", [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                         b"\xff" * 64, b"0" * 8 + b"x" * 100],
                         indirect=True, ids=["http", "ones", "exabytes"])
def test_a_dask_address_where_something_else_answers_is_exit_2(tmp_path: Path, junk_server: int) -> None:
    pytest.importorskip("distributed")
    shutil.copy(DEMO_LOG, tmp_path / "a.vlog")
    address = f"tcp://127.0.0.1:{junk_server}"
    # in a process of its own: Dask's client leaves its IO-loop thread behind
    done = subprocess.run([sys.executable, "-m", "vmodtool", "batch", "check-game", str(tmp_path),
                           "--dask", address], env=dict(os.environ, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert error_line(done.stderr).startswith(f"--dask {address}: what answers there is not a Dask scheduler")
    assert "Traceback" not in done.stderr and "EiB" not in done.stderr


# -- 8. resume files: every record proves itself, read with a bound -------------------------

def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ran: list[str] = []
    real = batch_tasks.run_task

    def counted(task):
        ran.append(task.game.name)
        return real(task)

    monkeypatch.setattr("vmodtool.batch.runner.run_task", counted)
    return ran


@pytest.fixture
def three_games(tmp_path: Path) -> list[Game]:
    folder = tmp_path / "games"
    for name in ("a", "b", "c"):
        (folder / name).mkdir(parents=True)
        shutil.copy(DEMO_LOG, folder / name / "g.vlog")
    return games_from([folder], batch_tasks.COMMANDS["check-game"])


def _edit(record: dict, how: str) -> dict:
    edited = dict(record)
    if how == "no status":
        del edited["status"]
    elif how == "status list":
        edited["status"] = []
    elif how == "no exit_code":
        del edited["exit_code"]
    elif how == "exit_code text":
        edited["exit_code"] = "0"
    elif how == "forged ok":
        edited.update(status="ok", exit_code=0, result={"suspicious": 0, "complete": True})
    elif how == "unsigned":
        edited.pop("signature")
    elif how == "other game":
        edited["game"] = "z"
    elif how == "signature not ascii":          # found by benchmarks/fuzz_batch.py (compare_digest raised)
        edited["signature"] = "hmac-sha256:\u00e9" + edited["signature"][13:]
    return edited


@pytest.mark.parametrize("how", ["no status", "status list", "no exit_code", "exit_code text", "forged ok",
                                 "unsigned", "other game", "signature not ascii"])
def test_a_resume_record_that_cannot_prove_itself_is_run_again(tmp_path: Path, three_games: list[Game],
                                                               monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    full = tmp_path / "full.jsonl"
    first = run_batch(three_games, Options("check-game"), output=full)
    lines = full.read_text("utf-8").splitlines()
    edited = _edit(json.loads(lines[1]), how)
    (tmp_path / "r.jsonl.partial").write_text("\n".join([lines[0], json.dumps(edited), lines[2]]) + "\n", "utf-8")
    ran = _counting(monkeypatch)
    summary = run_batch(three_games, Options("check-game"), output=tmp_path / "r.jsonl")
    assert ran == [three_games[1].name] and summary.reused == 2
    assert summary.statuses == first.statuses and summary.exit_code == first.exit_code
    assert [r["status"] for r in records(tmp_path / "r.jsonl")] == [r["status"] for r in records(full)]


def test_a_record_signed_with_another_users_key_is_run_again(tmp_path: Path, three_games: list[Game],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r.jsonl"
    run_batch(three_games, Options("check-game"), output=out)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    ran = _counting(monkeypatch)
    assert run_batch(three_games, Options("check-game"), output=out).reused == 0
    assert ran == [g.name for g in three_games]


def test_the_cli_never_exits_70_on_a_hostile_resume_file(tmp_path: Path, three_games: list[Game]) -> None:
    out = tmp_path / "r.jsonl"
    folder = tmp_path / "games"
    (tmp_path / "r.jsonl.partial").write_text('{"key": "' + "0" * 64 + '"}\n{"key": 1, "status": []}\n'
                                              '[1, 2]\n"text"\n{"status": {"a": 1}}\n', "utf-8")
    code, _out, err = invoke("batch", "check-game", folder, "-o", out, "-j", "1")
    assert code in (1, 3) and "Traceback" not in err and len(records(out)) == 3


def test_bounded_lines_never_holds_a_line_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "lines"
    path.write_bytes(b"short\n" + b"x" * 100_000 + b"\nafter\n" + b"y" * 50_000)
    with path.open("rb") as fh:
        lines = list(bounded_lines(fh, 1000, block=4096))
    assert [tuple(line) for line in lines] == [
        (0, 6, b"short\n", True), (6, 100_001, None, True), (100_007, 6, b"after\n", True),
        (100_013, 50_000, None, False)]


def test_a_resume_file_of_one_huge_line_costs_a_block_not_the_line(tmp_path: Path, three_games: list[Game],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40 item 11: a 400 MB line without a newline took 842 MB; with
    the same ratio here (a line 256 times the record bound), the resume holds
    no more than the bound."""
    monkeypatch.setattr(batch_runner, "MAX_RECORD_BYTES", 64 * 1024)
    partial = tmp_path / "r.jsonl.partial"
    with partial.open("wb") as fh:
        fh.write(b'{"key": "')
        for _ in range(256):
            fh.write(b"a" * 65536)
    ran = _counting(monkeypatch)
    tracemalloc.start()
    try:
        summary = run_batch(three_games, Options("check-game"), output=tmp_path / "r.jsonl")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(ran) == 3 and summary.reused == 0 and not partial.exists()
    assert peak < 2 * 1024 * 1024, peak                # the line is 16 MB


# -- 11. memory bounded by the largest game, not by the archive ---------------------------

_MEASURE = """
import pathlib, sys
from vmodtool.batch import games_from, run_batch, Options

def run(rows):
    games = games_from([pathlib.Path(sys.argv[rows])], ('.vlog',))
    summary = run_batch(games, Options('check-game'), output=pathlib.Path(sys.argv[rows] + '.jsonl'))
    assert summary.statuses == {'failed': len(games)} and len(summary.not_ok) <= 200, summary.statuses

run(1)                      # everything imported and warm
try:                        # the peak resident size from here on (Linux: clear_refs 5)
    with open('/proc/self/clear_refs', 'w') as fh:
        fh.write('5')
except OSError:
    print('no-peak-reset')
    raise SystemExit
run(2)
print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')))
"""


def _manifest(tmp_path: Path, rows: int) -> Path:
    manifest = tmp_path / f"m{rows}.csv"
    with manifest.open("w", encoding="utf-8") as fh:
        fh.write("game,file\n")
        for i in range(rows):
            fh.write(f"game{i},missing/folder/of/the/archive/file-{i}.vlog\n")
    return manifest


def _peak_kb(tmp_path: Path, rows: int) -> int:
    """The peak resident size (kB) of a batch of ``rows`` missing files, in
    a process of its own that ran a small batch first."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(_manifest(tmp_path, 200)),
                           str(_manifest(tmp_path, rows))],
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                          timeout=120, check=True)
    last = done.stdout.strip().splitlines()[-1]
    if last == "no-peak-reset":
        pytest.skip("the peak resident size cannot be reset here (/proc/self/clear_refs)")
    return int(last)


def test_a_manifest_of_missing_files_grows_memory_by_a_few_hundred_bytes_a_game(tmp_path: Path) -> None:
    """Issue 40 item 11: 300,000 rows of missing files took 513 MB (1.7 kB a
    game).  Measured here on 1,000 and 7,000 rows (after a warm-up batch):
    about 820 bytes a game on a quiet machine (253 MB for the issue's
    300,000 rows), up to 1,050 under load (the resident size moves by whole
    allocator arenas); the bound is 1.4 kB, still under the old 1.7 kB.
    What stays is mostly the games' pathlib paths (Python 3.11's are heavy)."""
    small, large = _peak_kb(tmp_path, 1000), _peak_kb(tmp_path, 7000)
    per_game = (large - small) * 1024 / 6000
    assert per_game < 1400, f"{per_game:.0f} bytes a game ({small} kB -> {large} kB)"


# -- 13. what is a VASSAL file -----------------------------------------------------------

def test_a_zero_byte_log_is_not_a_vassal_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.vlog"
    empty.write_bytes(b"")
    for command in ("check-game", "replay", "inspect"):
        code, _out, err = invoke(command, empty)
        assert code == 2, command
        assert error_line(err) == f"{empty}: an empty file (0 bytes), not a VASSAL save or log"


def test_a_folder_batch_takes_saves_by_their_bytes_and_lists_what_it_skips(tmp_path: Path) -> None:
    game = tmp_path / "archive" / "g"
    game.mkdir(parents=True)
    shutil.copy(DEMO_LOG, game / "0611-2")                  # no extension, a VASSAL log
    shutil.copy(DEMO_LOG, game / "turn1.vlog")
    (game / "notes.txt").write_text("not a game", "utf-8")
    (game / "old.log").write_text("a chat log", "utf-8")
    out = tmp_path / "r.jsonl"
    code, _out, err = invoke("batch", "check-game", tmp_path / "archive", "-o", out, "-j", "1")
    (record,) = records(out)
    assert record["files"] == [str(game / "0611-2"), str(game / "turn1.vlog")]
    (warning,) = [line for line in err.splitlines() if line.startswith("warning: skipped")]
    assert warning == f"warning: skipped 2 file(s) that are not VASSAL saves or logs: {game / 'notes.txt'}, " \
                      f"{game / 'old.log'}"
    assert code in (0, 1, 3)


@pytest.mark.corpus
def test_a_tld_log_without_extension_is_part_of_its_game(tmp_path: Path) -> None:
    """The TLD archive's logs are VASSAL 2 ``.log`` files; one saved without
    its extension (as ``0611-2`` was) is still a log of the game."""
    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))[:2]
    if len(logs) < 2:
        pytest.skip("shared data not available: corpus/tld/game")
    game = tmp_path / "tld"
    game.mkdir()
    shutil.copy(logs[0], game / logs[0].name)
    shutil.copy(logs[1], game / logs[1].stem)
    skipped: list[Path] = []
    (found,) = games_from([tmp_path], batch_tasks.COMMANDS["check-game"], skipped=skipped)
    assert [p.name for p in found.files] == [logs[0].name, logs[1].stem] and skipped == []
