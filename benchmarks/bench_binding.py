"""What binding a module's pieces to a scenario costs: the 19-log chain of
The Longest Day (10,148 steps, VASSAL 2.9, ~2,400 pieces) audited with the
example scenario ``examples/the-longest-day``.

Three timings, each the best of ``--runs`` (default 5), interleaved in one
run so that a busy machine slows all of them alike, each measurement in a
fresh process (a replay's caches and garbage would slow the next one):

* **replay**: the chain replayed alone (read, decode, replay every step,
  the steps kept as the audit keeps them: an undo may come any number of
  steps later): the baseline, the audit with no binding work;
* **replay + binding**: the audit's preparation (``AuditGame.prepare``):
  the same replay, and every piece bound (selectors over names,
  prototypes, palette slots) and every event's piece identified;
* **whole audit**: ``audit_logs`` with the example's three rules (for
  scale: the rules, not the binding, are most of what the audit adds).

The target (issue 14): binding adds at most 10 % to the replay alone.
Needs ``../shared`` (or ``VMODTOOL_SHARED``).  Run from the repository root:
``python benchmarks/bench_binding.py``.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.fresh import run  # noqa: E402
from vmodtool.audit.game import AuditGame, audit_logs  # noqa: E402
from vmodtool.replay import Replay  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.vassal.module import Module  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
EXAMPLE = ROOT / "examples" / "the-longest-day" / "scenario.yaml"
SIZES = {"Normandy": (5340, 5024)}


def measure(what: str) -> tuple[float, int]:
    """(seconds, count) of one measurement, in this process."""
    module = Module.open(SHARED / "corpus" / "tld" / "buildFile")
    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    scenario = load_scenario(EXAMPLE, module=module)
    gc.collect()
    start = time.perf_counter()
    if what == "replay":
        count = len(list(Replay.open(logs, module=module, board_sizes=SIZES).steps()))
    elif what == "binding":
        game = AuditGame(scenario, Replay.open(logs, module=module, board_sizes=SIZES), module)
        game.prepare()
        count = len(game.piece_unit)
    else:
        count = audit_logs(logs, scenario, module=module).steps
    return time.perf_counter() - start, count


def main() -> int:
    if not (SHARED / "corpus" / "tld" / "buildFile").exists():
        print(f"needs the TLD corpus under {SHARED}/corpus/tld")
        return 2
    done = run(__file__, ["replay", "binding", "audit"], measure)
    if done is None:
        return 0
    timings, counts, runs = done
    base = min(timings["replay"])
    steps = counts["replay"]
    print(f"The Longest Day chain: 19 logs, {steps:,} steps, {counts['binding']:,} pieces bound as units "
          f"(best of {runs}, interleaved, a fresh process each)")
    names = {"replay": "replay", "binding": "replay + binding", "audit": "whole audit"}
    for what, name in names.items():
        t = min(timings[what])
        print(f"  {name:18s} {t:7.3f} s  {t / base:5.2f}× the replay  ({t / steps * 1e6:6.1f} µs/step)")
    overhead = min(timings["binding"]) / base - 1
    print(f"  binding adds {overhead * 100:.1f} % to the replay; target ≤ 10 %: "
          f"{'met' if overhead <= 0.10 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
