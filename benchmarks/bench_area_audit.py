"""The audit of an area game against its replay (issue 42's speed), with a
hex game's as the peer, measured in the same run.

* **pog-replay** / **pog-audit**: ``vmodtool replay`` and ``vmodtool audit``
  (check-game included) of the Paths of Glory log ``overstack.vlog`` that
  ``examples/paths-of-glory/make_logs.py`` writes from the corpus's save,
  with ``examples/paths-of-glory/scenario.yaml`` and the module's bare
  buildFile (an area map: spaces and their printed connections);
* **tld-replay** / **tld-audit**: the same two commands on The Longest Day's
  ``0607-1.log`` with its example scenario (a hex map): the peer.

Each measurement is one fresh ``python -m vmodtool`` process (imports, the
scenario's loading and the module's parsing count, as a user meets them),
its CPU time (user + system, not wall: the machine may be shared); the
four are interleaved, ``--runs`` rounds (default 5), and the median kept.
The target: the area game's audit at most 2x its replay (the hex game's
ratio is printed beside it: the area path should cost no more).  Needs
``../shared`` (or ``VMODTOOL_SHARED``).  Run from the repository root:
``python benchmarks/bench_area_audit.py``.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.fresh import run  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
POG = SHARED / "corpus" / "pog"
TLD = SHARED / "corpus" / "tld"
LOGS = Path(tempfile.gettempdir()) / "vmodtool-bench-pog-logs"
NAMES = ("pog-replay", "pog-audit", "tld-replay", "tld-audit")


def pog_log() -> Path:
    """The Paths of Glory log, written once (deterministic) into a temporary
    folder shared by the measurements."""
    log = LOGS / "overstack.vlog"
    if not log.exists():
        spec = importlib.util.spec_from_file_location("pog_make_logs", ROOT / "examples" / "paths-of-glory"
                                                      / "make_logs.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        module.write_logs(POG, LOGS)
    return log


def command(name: str) -> list[str]:
    game, what = name.split("-")
    if game == "pog":
        args = [what, str(pog_log()), "-m", str(POG / "buildFile.xml")]
        scenario = ROOT / "examples" / "paths-of-glory" / "scenario.yaml"
    else:
        args = [what, str(TLD / "game" / "0607-1.log"), "-m", str(TLD / "buildFile"),
                "--board-sizes", str(TLD / "board-sizes.json")]
        scenario = ROOT / "examples" / "the-longest-day" / "scenario.yaml"
    if what == "audit":
        args += ["--scenario", str(scenario)]
    return [sys.executable, "-m", "vmodtool", *args]


def measure(name: str) -> tuple[float, int]:
    """CPU seconds of one fresh CLI process, and its exit code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), VMODTOOL_SHARED=str(SHARED))
    env.pop("PYTHONDONTWRITEBYTECODE", None)          # (compiling the package would dominate)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command(name), capture_output=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.returncode


def main() -> None:
    if not (POG / "buildFile.xml").exists() or not (TLD / "buildFile").exists():
        sys.exit(f"needs the corpus: {POG} and {TLD} (set VMODTOOL_SHARED)")
    pog_log()                                          # (written before any clock runs)
    result = run(__file__, NAMES, measure)
    if result is None:
        return
    timings, codes, runs = result
    median = {name: statistics.median(t) for name, t in timings.items()}
    print(f"CPU seconds per fresh process, median of {runs} interleaved runs (exit codes {codes}):")
    for name in NAMES:
        print(f"  {name:11} {median[name]:.3f} s  ({', '.join(f'{t:.2f}' for t in timings[name])})")
    for game, kind in (("pog", "area map"), ("tld", "hex map, the peer")):
        ratio = median[f"{game}-audit"] / median[f"{game}-replay"]
        print(f"  {game} ({kind}): audit / replay = {ratio:.2f}x")
    ratio = median["pog-audit"] / median["pog-replay"]
    print(f"target: the area game's audit at most 2x its replay: {'met' if ratio <= 2.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
