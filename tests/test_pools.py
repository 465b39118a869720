"""Process pools: forked from a process with one thread, started by the fork
server from one with threads (``vmodtool/pools.py``), and a build's faces the
same bytes either way."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from tests.assemble.test_build_cache import scenario_text
from vmodtool.pools import pool_context, process_pool

REPO = Path(__file__).resolve().parents[1]
LINUX = sys.platform.startswith("linux")


START = {
    "alone": "",
    "threading": "import threading; threading.Thread(target=threading.Event().wait, daemon=True).start()",
    # a thread threading does not list (execnet's, in a pytest-xdist worker): the system still counts it
    "raw thread": "import _thread, time; _thread.start_new_thread(time.sleep, (60,)); time.sleep(0.2)",
}


def _start_method(kind: str) -> str:
    """The start method a fresh interpreter chooses after ``START[kind]``."""
    code = f"{START[kind]}\nfrom vmodtool.pools import pool_context; print(pool_context().get_start_method())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=120, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(not LINUX, reason="fork is the default start method on Linux only")
def test_one_thread_forks_and_threads_use_the_fork_server() -> None:
    assert multiprocessing.get_start_method() == "fork"
    assert {kind: _start_method(kind) for kind in START} == \
        {"alone": "fork", "threading": "forkserver", "raw thread": "forkserver"}
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert pool_context().get_start_method() == "forkserver"
        with process_pool(1) as pool:                   # a working pool, started that way
            assert pool.submit(pow, 3, 4).result(timeout=120) == 81
    finally:
        stop.set()
        other.join()


def _members(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as zf:
        return {n: hashlib.sha256(zf.read(n)).hexdigest() for n in zf.namelist()}


def test_a_build_renders_the_same_bytes_forked_or_from_the_fork_server(tmp_path: Path) -> None:
    """A build of 240 counters (enough for the render pool): in a fresh
    process (forked workers) and in one with a second thread (fork server)."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(scenario_text(240), "utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = ("import sys, threading; from vmodtool.cli import main\n"
           "if sys.argv[1] == 'thread': threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
           "main(['build', sys.argv[2], '-o', sys.argv[3], '-q', '-j', '2'])\n")
    outputs = {}
    for mode in ("alone", "thread"):
        outputs[mode] = tmp_path / f"{mode}.vmod"
        done = subprocess.run([sys.executable, "-c", run, mode, str(scenario), str(outputs[mode])],
                              capture_output=True, text=True, env=env, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
    assert _members(outputs["alone"]) == _members(outputs["thread"])
    assert len(_members(outputs["alone"])) > 480


def test_a_build_whose_faces_cannot_be_laid_out_stops_its_started_workers(tmp_path: Path) -> None:
    """The workers start (the board, then the faces) before the faces' texts
    are checked: a face whose text cannot fit still ends the build with its
    located error, exit 2, nothing written, and no worker left behind."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(scenario_text(240, attack=999_999_999).replace("defense: 3,", "defense: 999999999,"), "utf-8")
    out = tmp_path / "out.vmod"
    run = ("import multiprocessing, sys\nfrom vmodtool.cli import main\n"
           "try:\n    main(['build', sys.argv[1], '-o', sys.argv[2], '-q', '-j', '2'])\n"
           "finally:\n    print('children', len(multiprocessing.active_children()), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", run, str(scenario), str(out)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and lines[-1] == "children 0", done.stderr
    assert "scenario.yaml:" in lines[0] and "does not fit" in lines[0], lines
    assert not out.exists()


def test_a_cold_build_refuses_a_scenario_its_schema_refuses_after_starting_workers(tmp_path: Path) -> None:
    """A cold build checks the schema while its workers draw: a scenario
    whose model is sound but whose file the schema refuses (an unknown key)
    is refused with every problem, as check-scenario lists them, nothing
    written and no worker left behind."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(scenario_text(240).replace("  dice: [2d6]\n", "  dice: [2d6]\n  dies: [1d6]\n"), "utf-8")
    out = tmp_path / "out.vmod"
    run = ("import multiprocessing, sys\nfrom vmodtool.cli import main\n"
           "try:\n    main(['build', sys.argv[1], '-o', sys.argv[2], '-q', '-j', '2'])\n"
           "finally:\n    print('children', len(multiprocessing.active_children()), file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", run, str(scenario), str(out)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    checked = subprocess.run([sys.executable, "-m", "vmodtool", "check-scenario", str(scenario)],
                             capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 2 and checked.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and lines[-1] == "children 0", done.stderr
    problem = checked.stdout.splitlines()[0]
    assert "dies" in problem and problem in lines, (problem, lines)
    assert not out.exists()


def test_an_error_raised_in_a_worker_reaches_the_caller_with_its_fields() -> None:
    """A :class:`VmodError` crosses a process pool whole: its type, file,
    place and a subclass's own fields, still able to be located."""
    import pickle

    from vmodtool.errors import FormatError
    from vmodtool.render.counters import CounterTextError

    err = FormatError("bad\nentry", file="game.vlog", place="byte 12")
    err.extra = 3  # type: ignore[attr-defined]
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is FormatError and (back.file, back.place, back.message, back.extra) == \
        ("game.vlog", "byte 12", "bad\nentry", 3)
    assert str(back) == str(err) and back.args == err.args
    fit = pickle.loads(pickle.dumps(CounterTextError("counter a: the label text 'x' does not fit")))
    assert str(fit.located(file="scenario.yaml:20")) == "scenario.yaml:20: counter a: the label text 'x' does not fit"


@pytest.mark.parametrize("counters", [40, 240])
def test_a_text_that_cannot_fit_is_refused_alike_drawn_here_or_in_workers(tmp_path: Path, counters: int) -> None:
    """A cold build lays out each face as it draws it, here (a few counters)
    or in its workers (many), and a text that cannot fit ends the build with
    the error the check of the scenario's texts gives, at its unit type's
    line, exit 2, nothing written; with a cache the texts are checked first."""
    from vmodtool.render.counters import CounterTextError, counter_specs
    from vmodtool.scenario.loader import load_scenario

    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(scenario_text(counters, attack=999_999_999), "utf-8")
    with pytest.raises(CounterTextError) as expected:
        counter_specs(load_scenario(scenario))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for extra in ([], ["--cache", str(tmp_path / "cache")]):
        out = tmp_path / "out.vmod"
        done = subprocess.run([sys.executable, "-m", "vmodtool", "build", str(scenario), "-o", str(out), "-q",
                               "-j", "2", *extra], capture_output=True, text=True, env=env, timeout=300, check=False)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip() == f"vmodtool: error: {expected.value}", (extra, done.stderr)
        assert "scenario.yaml:" in done.stderr and not out.exists()
