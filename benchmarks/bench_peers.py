"""vmodtool against its peers, side by side, every figure a ratio measured in
this run (issue 18).

Run from the repository root: ``python benchmarks/bench_peers.py [--runs 3]``
(needs ``../shared`` or ``$VMODTOOL_SHARED``; ``--no-peers`` skips them).

* **inspect**: ``inspect`` of the largest corpus save (PoG, 13 MB of command
  text) against reading and splitting it (``SavedGame.read`` + the command
  tree), each in a fresh process; pywargame reading the same save
  (``SaveIO.readSave``) and, as the analogue of the piece parsing inside
  ``inspect``, reading it and splitting every AddPiece into its traits
  (``WithTraits.decodeAdd2``).
* **start-up**: ``vmodtool --help`` and ``vmodtool inspect`` of the demo log
  against a bare interpreter (``python -c pass``), median of ``--startups``
  starts, bytecode cached (as an installed tool has it: the cache lives under
  the bench cache folder, not in the repository); ``--help`` also against an
  empty Click group's ``--help`` (the floor of any Click tool), same run.
* **memory**: tracemalloc peak of reading the largest save and splitting
  its command tree (``SavedGame.read`` + ``commands``), as a multiple of its
  plaintext.
* **replay**: the TLD chain (19 logs) read, decoded and replayed per logged
  command, against python-chess reading and validating PGN games per ply
  (games generated deterministically with python-chess itself: random legal
  moves from a fixed seed); and ``vmodtool audit`` of each example game
  with every rule (plug-ins with ``--trust-scenario-plugins``) against
  ``vmodtool replay`` of the same log, both as users run them (fresh
  processes, wall time, the module built beforehand); and the audit of the
  TLD chain with The Longest Day example's rules (a game of a published
  module, as users audit them) against the chain's read + replay, both in
  fresh processes (a process's first audit: no search kept from another).

Peers are installed in their own virtual environments under
``~/.cache/vmodtool-bench/`` (``$VMODTOOL_BENCH_CACHE``) with pip: python-chess
(``chess``) with this interpreter, pywargame (``pywargame``, Python ≥ 3.12)
with the first Python 3.12+ found.  A peer that cannot be installed or run is
reported as "not run" with the reason, never with a number.
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fresh import interleaved  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
CACHE = Path(os.environ.get("VMODTOOL_BENCH_CACHE", Path.home() / ".cache" / "vmodtool-bench"))
PYCACHE = CACHE / "pycache"
TLD = SHARED / "corpus" / "tld"
DEMO_LOG = ROOT / "examples" / "formats" / "demo.vlog"
TLD_SCENARIO = ROOT / "examples" / "the-longest-day" / "scenario.yaml"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")
CHESS_GAMES = 400


def largest_save() -> Path:
    saves = sorted(SHARED.glob("corpus/*/*.vsav"), key=lambda p: p.stat().st_size)
    return saves[-1]


# --------------------------------------------------------------------------
# our measurements, each run as ``--one NAME`` in a fresh process

def measure(name: str) -> tuple[float, int]:
    """(seconds, count) of one measurement in this process."""
    if name in ("read", "inspect"):
        path = largest_save()
        start = time.perf_counter()
        if name == "read":
            from vmodtool.vassal.savefile import SavedGame
            game = SavedGame.read(path)
            count = len(game.top_level())
        else:
            from vmodtool.inspection import format_inspection, inspect_file
            count = len(list(format_inspection(inspect_file(path))))
        return time.perf_counter() - start, count
    if name in ("replay", "replay-only"):
        from vmodtool.replay import Replay, load_board_sizes
        from vmodtool.vassal.commands import leaves
        files = sorted((TLD / "game").glob("*.log"))
        sizes = load_board_sizes(TLD / "board-sizes.json")
        start = time.perf_counter()
        replay = Replay.open(files, module=TLD / "buildFile", board_sizes=sizes)
        for game in replay.games:
            _ = game.commands
        read = time.perf_counter()
        list(replay.steps())
        end = time.perf_counter()
        logged = sum(1 for g in replay.games for _, node in g.log_steps() for _ in leaves(node))
        return (end - start if name == "replay" else end - read), logged
    if name == "audit-tld":
        # The Longest Day example's rules over the same chain, read and
        # replayed as "replay" does (the scenario loaded before the clock)
        from vmodtool.audit.game import audit_logs
        from vmodtool.replay import load_board_sizes
        from vmodtool.scenario import load_scenario
        files = sorted((TLD / "game").glob("*.log"))
        sizes = load_board_sizes(TLD / "board-sizes.json")
        scenario = load_scenario(TLD_SCENARIO, module=TLD / "buildFile", board_sizes=sizes)
        start = time.perf_counter()
        report = audit_logs(files, scenario, module=TLD / "buildFile", board_sizes=sizes)
        return time.perf_counter() - start, report.steps
    raise SystemExit(f"unknown measurement {name}")


# --------------------------------------------------------------------------
# peers in their own virtual environments

def _runs_312(candidate: str) -> bool:
    """Whether ``candidate`` starts and is Python >= 3.12 (a pyenv shim is on
    the PATH for every installed version but fails for one that is not
    selected, so being found is not enough)."""
    try:
        done = subprocess.run([candidate, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _python_312() -> str | None:
    if sys.version_info >= (3, 12):
        return sys.executable
    candidates = [found for name in ("python3.14", "python3.13", "python3.12") if (found := shutil.which(name))]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")), reverse=True)
    return next((c for c in candidates if _runs_312(c)), None)


def peer_python(folder: str, package: str, interpreter: str | None) -> tuple[str | None, str]:
    """(the venv's python, "") or (None, why it cannot run)."""
    venv = CACHE / folder
    python = venv / "bin" / "python"
    if python.exists():
        return str(python), ""
    if interpreter is None:
        return None, f"no interpreter for {package} found"
    try:
        subprocess.run([interpreter, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "-q", package], check=True, capture_output=True,
                       timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(venv, ignore_errors=True)
        return None, f"pip install {package} failed ({type(exc).__name__})"
    return str(python), ""


CHESS_SCRIPT = r"""
import io, random, sys, time
import chess, chess.pgn
rnd = random.Random(18)
games = []
for _ in range(int(sys.argv[1])):
    board, game = chess.Board(), chess.pgn.Game()
    node = game
    for _ in range(rnd.randint(40, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rnd.choice(moves)
        node = node.add_variation(move)
        board.push(move)
    games.append(str(game))
text = "\n\n".join(games) + "\n"
start = time.perf_counter()
stream, plies = io.StringIO(text), 0
while (game := chess.pgn.read_game(stream)) is not None:   # SAN parsed and checked legal on its board
    if game.errors:
        raise SystemExit(f"PGN errors: {game.errors[:1]}")
    plies += sum(1 for _ in game.mainline_moves())
print(time.perf_counter() - start, plies)
"""

PYWARGAME_SCRIPT = r"""
import sys, time, warnings
from pywargame.vassal import SaveIO
from pywargame.vassal.withtraits import WithTraits
start = time.perf_counter()
lines = SaveIO.readSave(sys.argv[1])[1]
read = time.perf_counter() - start
traits = 0
for line in lines:
    if line.startswith("+/"):
        traits += len(WithTraits.decodeAdd2(line, False)[1])
print(read, time.perf_counter() - start, len(lines), traits)
"""


def run_peer(python: str, script: str, *args: str) -> list[float] | str:
    try:
        done = subprocess.run([python, "-c", script, *args], capture_output=True, text=True, timeout=900,
                              cwd=CACHE)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"failed ({type(exc).__name__})"
    if done.returncode != 0:
        return f"failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:120]}"
    return [float(x) for x in done.stdout.strip().splitlines()[-1].split()]


# --------------------------------------------------------------------------
# start-up and memory

def _imports_this_tree() -> bool:
    """Whether this interpreter's installed ``vmodtool`` is this repository's
    code (an editable install), not some other copy."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c",
                           "import vmodtool, sys; sys.stdout.write(vmodtool.__file__)"],
                          capture_output=True, text=True, check=False, env=env, cwd=CACHE)
    return done.returncode == 0 and Path(done.stdout).resolve().is_relative_to(ROOT)


def startups(runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU (user + system) seconds of each start."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(PYCACHE), PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tool = [sys.executable, "-m", "vmodtool"]
    script = Path(sys.executable).with_name("vmodtool")     # the installed command, as users start it
    if script.exists() and _imports_this_tree():
        tool = [str(script)]
    print(f"  (vmodtool started as: {' '.join(Path(t).name if '/' in t else t for t in tool)})")
    commands = {"bare interpreter": ([sys.executable, "-c", "pass"], env),
                "Click alone (empty --help)": ([sys.executable, "-c",
                                                "import click; click.group()(lambda: None)(['--help'])"], env),
                "vmodtool --help": ([*tool, "--help"], env),
                "vmodtool inspect demo.vlog": ([*tool, "inspect", str(DEMO_LOG)], env)}
    for cmd, cmd_env in commands.values():            # write the bytecode cache
        subprocess.run(cmd, env=cmd_env, stdout=subprocess.DEVNULL, check=True)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (cmd, cmd_env) in commands.items():
            start = time.perf_counter()
            child = subprocess.Popen(cmd, env=cmd_env, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            times[name].append(time.perf_counter() - start)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
            if status != 0:
                raise SystemExit(f"{name} failed")
    return ({name: statistics.median(t) for name, t in times.items()},
            {name: statistics.median(t) for name, t in cpu.items()})


def memory() -> tuple[float, int]:
    import tracemalloc

    from vmodtool.vassal.savefile import SavedGame
    gc.collect()
    tracemalloc.start()
    game = SavedGame.read(largest_save())
    _ = game.commands
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / game.decoded.plaintext_bytes, game.decoded.plaintext_bytes


def audit_against_replay(runs: int) -> list[tuple[str, float, float, float, float]]:
    """(system, audit s, replay s, audit CPU s, replay CPU s) of each example
    game as users run the commands: each a fresh ``vmodtool`` process (wall
    and CPU time, medians of
    ``runs``, the two interleaved), the audit with every rule of the
    scenario (its plug-in rules with their consent flag,
    ``--trust-scenario-plugins``), the replay with the module built from the
    same scenario (built once, beforehand, into a temporary folder)."""
    import tempfile

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    tool = [sys.executable, "-m", "vmodtool"]
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for system in SYSTEMS:
            folder = ROOT / "examples" / system
            module = Path(tmp) / f"{system}.vmod"
            subprocess.run([*tool, "build", str(folder / "scenario.yaml"), "-o", str(module)], env=env,
                           check=True, capture_output=True)
            log = str(folder / "logs" / "game-1.vlog")
            consent = ["--trust-scenario-plugins"] if "kind: plugin" in \
                (folder / "scenario.yaml").read_text(encoding="utf-8") else []
            commands = {"audit": [*tool, "audit", log, "--scenario", str(folder / "scenario.yaml"), *consent],
                        "replay": [*tool, "replay", log, "-m", str(module)]}
            times: dict[str, list[float]] = {name: [] for name in commands}
            cpu: dict[str, list[float]] = {name: [] for name in commands}
            for cmd in commands.values():            # the bytecode cache written, the exit code checked
                done = subprocess.run(cmd, env=env, capture_output=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.decode()[-300:]}")
            for _ in range(runs):
                for name, cmd in commands.items():
                    start = time.perf_counter()
                    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    _, status, usage = os.wait4(child.pid, 0)
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(usage.ru_utime + usage.ru_stime)
                    if status != 0:
                        raise SystemExit(f"{' '.join(cmd)} failed")
            out.append((system, statistics.median(times["audit"]), statistics.median(times["replay"]),
                        statistics.median(cpu["audit"]), statistics.median(cpu["replay"])))
    return out


# --------------------------------------------------------------------------

def best(values: list[float]) -> float:
    return min(values)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="rounds of the fresh-process measurements")
    ap.add_argument("--startups", type=int, default=21, help="starts per start-up measurement")
    ap.add_argument("--examples", type=int, default=7, help="fresh-process runs of each example command")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        seconds, count = measure(args.one)
        print(f"{seconds} {count}")
        return
    if not (SHARED / "corpus").exists():
        print("../shared is not available")
        return
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores); "
          f"best of {args.runs} fresh-process runs, interleaved")
    save = largest_save()
    # the fresh processes load cached bytecode, as an installed vmodtool does
    # (the cache is under CACHE, never in the repository)
    os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

    chess_py, chess_why = (None, "--no-peers") if args.no_peers else \
        peer_python("chess", "chess", sys.executable)
    pwg_py, pwg_why = (None, "--no-peers") if args.no_peers else \
        peer_python("pywargame", "pywargame", _python_312())

    ours: dict[str, list[float]] = {n: [] for n in ("read", "inspect", "replay", "replay-only", "audit-tld")}
    counts: dict[str, int] = {}
    chess_runs: list[tuple[float, float]] = []
    pwg_runs: list[list[float]] = []
    interleaved(__file__, list(ours), 1)                            # writes the bytecode cache
    for _ in range(args.runs):
        timings, counted = interleaved(__file__, list(ours), 1)     # each in a fresh process
        for name, seconds in timings.items():
            ours[name] += seconds
        counts.update(counted)
        if chess_py:
            got = run_peer(chess_py, CHESS_SCRIPT, str(CHESS_GAMES))
            if isinstance(got, str):
                chess_py, chess_why = None, got
            else:
                chess_runs.append((got[0], got[1]))
        if pwg_py:
            got = run_peer(pwg_py, PYWARGAME_SCRIPT, str(save))
            if isinstance(got, str):
                pwg_py, pwg_why = None, got
            else:
                pwg_runs.append(got)

    t_read, t_inspect = best(ours["read"]), best(ours["inspect"])
    print(f"\ninspect of {save.relative_to(SHARED)}:")
    print(f"  read + split (baseline): {t_read:.3f} s; inspect {t_inspect:.3f} s = "
          f"{t_inspect / t_read:.2f}x the baseline (target <= 1.5x)")
    if pwg_runs:
        p_read = min(r[0] for r in pwg_runs)
        p_all = min(r[1] for r in pwg_runs)
        print(f"  pywargame readSave {p_read:.2f} s = {p_read / t_read:.1f}x our read + split; "
              f"readSave + decodeAdd2 of every AddPiece {p_all:.2f} s = {p_all / t_inspect:.1f}x our inspect")
    else:
        print(f"  pywargame: not run ({pwg_why})")

    print(f"\nstart-up (median of {args.startups}, bytecode cached):")
    starts, cpu = startups(args.startups)
    bare, bare_cpu = starts["bare interpreter"], cpu["bare interpreter"]
    for name, seconds in starts.items():
        print(f"  {name:30s} {seconds * 1000:6.1f} ms = {seconds / bare:.2f}x a bare interpreter "
              f"(CPU {cpu[name] * 1000:5.1f} ms = {cpu[name] / bare_cpu:.2f}x)")
    click_floor = starts["Click alone (empty --help)"]
    print(f"  vmodtool --help = {starts['vmodtool --help'] / click_floor:.2f}x an empty Click group's --help "
          f"(target <= 1.3x)")

    ratio, plain = memory()
    print(f"\nmemory: SavedGame.read + command tree of the largest save: peak {ratio:.2f}x its "
          f"{plain / 1e6:.1f} MB of plaintext (target < 3x)")

    logged = counts["replay"]
    t_replay, t_only = best(ours["replay"]), best(ours["replay-only"])
    per_cmd, per_cmd_only = t_replay / logged, t_only / logged
    print(f"\nreplay: TLD chain, {logged:,} logged commands: read + replay {per_cmd * 1e6:.1f} µs per logged "
          f"command (replay alone {per_cmd_only * 1e6:.1f} µs)")
    if chess_runs:
        c_time = min(t for t, _ in chess_runs)
        plies = int(chess_runs[0][1])
        per_ply = c_time / plies
        print(f"  python-chess: {plies:,} plies of {CHESS_GAMES} PGN games read and validated in {c_time:.2f} s "
              f"= {per_ply * 1e6:.1f} µs per ply")
        print(f"  ratio per logged command / per ply: read + replay {per_cmd / per_ply:.2f}x, "
              f"replay alone {per_cmd_only / per_ply:.2f}x (target <= 1.0x)")
    else:
        print(f"  python-chess: not run ({chess_why})")

    t_tld = best(ours["audit-tld"])
    print(f"\naudit of the TLD chain ({counts['audit-tld']:,} steps) with The Longest Day example's rules, a "
          f"game of a published module (fresh processes, as the replay above): {t_tld:.2f} s = "
          f"{t_tld / t_replay:.2f}x its read + replay (target <= 1.5x)")
    print(f"\nexample games: 'vmodtool audit' with all the scenario's rules (plug-ins with their consent flag) "
          f"against 'vmodtool replay' of the same log, each a fresh process (medians of {args.examples}):")
    for system, t_audit, t_alone, c_audit, c_alone in audit_against_replay(args.examples):
        print(f"  {system:18s} audit {t_audit * 1000:6.1f} ms, replay {t_alone * 1000:6.1f} ms = "
              f"{t_audit / t_alone:.2f}x (target <= 1.5x); CPU {c_audit * 1000:6.1f} ms against "
              f"{c_alone * 1000:6.1f} ms = {c_audit / c_alone:.2f}x")
    load = os.getloadavg()
    print(f"\nload average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(json.dumps({"ratios": {"inspect/read": round(t_inspect / t_read, 2),
                                 "help/bare": round(starts['vmodtool --help'] / bare, 2),
                                 "help/click-floor": round(starts['vmodtool --help'] / click_floor, 2),
                                 "memory/plaintext": round(ratio, 2),
                                 "audit-tld/replay": round(t_tld / t_replay, 2)}}))


if __name__ == "__main__":
    main()
