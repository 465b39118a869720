"""Audit speed: the example game logs and synthetic long logs of the
Quneitra Gap example, with all of the scenario's rules on.

Run from the repository root: ``python benchmarks/bench_audit.py``
(``--steps N`` for the long log, default 50000; ``--profile`` prints the
hottest functions of one audit of the long log; ``--examples-only`` runs
only the example game logs, ``--rounds N`` how many times each is measured,
CPU time, best of N).

The synthetic log is a real game of the example module written with
GameWriter: turns of a Marker Removal and an Action Phase, each activation
a chit draw, then units of the drawn formation moving back and forth
between two hexes within their allowance, a dice roll and chat, with an
undo now and then.  Time is reported per logged step for the whole audit
(read, replay, rules) and, for linearity, for a log of 1/5 of the length;
the baseline, measured in the same run, is replaying the long log alone.

Movement search (first, quick): the cheapest-path search of every
``movement_allowance`` rule of the examples, uncached (a fresh search per
pair of hexes) and answered from the cache, against the baseline, measured
in the same run, of a plain breadth-first walk over the same map from the
same hex (the least any single-source search can do).  ``--movement-only``
stops after it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmodtool.assemble.images import module_image_names  # noqa: E402
from vmodtool.assemble.module import OFF_MAP_NAME, assemble_module  # noqa: E402
from vmodtool.audit.game import audit_logs, scenario_positions  # noqa: E402
from vmodtool.audit.kinds.movement import MoveCosts  # noqa: E402
from vmodtool.replay import Replay  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.offmap import layout_off_map  # noqa: E402
from vmodtool.vassal.gamewriter import GameWriter, Player  # noqa: E402
from vmodtool.vassal.module import Module  # noqa: E402

EXAMPLES = ROOT / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")

#: formation -> [(units moved together or alone, hex A, hex B)]; every move is
#: legal: within the allowance, escorts with the HQs, no enemy hexes
SHUTTLES = {
    "bn_78": [(["syr.t72.2"], "1002", "0902"), (["syr.t72.1", "syr.hq_78"], "1103", "1102"),
              (["syr.t72.3"], "1104", "1204")],
    "bn_85": [(["syr.brdm"], "0904", "0804"), (["syr.bmp.1", "syr.hq_85"], "1003", "1004")],
    "team_ari": [(["idf.mk.2"], "0603", "0503"), (["idf.mk.1", "idf.hq_a"], "0402", "0403"),
                 (["idf.inf.1"], "0505", "0405")],
}
ORDER = ("bn_78", "team_ari", "bn_85")


def synthetic_log(steps: int, path: Path) -> int:
    """Write a legal Quneitra Gap log of about ``steps`` steps; returns its
    step count."""
    scenario = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    build = assemble_module(scenario, module_image_names(scenario))     # the buildFile, no images
    module = Module(buildfile=build.buildfile, buildfile_entry="buildFile.xml", container="buildfile")
    sizes = {scenario.map.name: scenario.map.size, OFF_MAP_NAME: layout_off_map(scenario).size}
    players = [Player("idf", "Avi", "Israel Defense Forces"), Player("syr", "Sami", "Syrian Arab Army")]
    w = GameWriter(module, players=players, board_sizes=sizes)
    unit = {p.piece.get_property("UnitId"): pid for pid, p in w.pieces.items()
            if p.piece.get_property("UnitId")}
    chits = {}
    for pid, p in w.pieces.items():
        if p.piece.get_property("MarkerKind") == "formation_chit":
            chits.setdefault(p.piece.get_property("Formation"), []).append(pid)
    w.snapshot()
    where = {}          # shuttle -> current end (0: A, 1: B)
    turn = 0
    while len(w.steps) < steps:
        turn += 1
        w.report(f"TT|{turn}|Marker Removal Phase")
        for f in ORDER:
            for pid in chits[f]:
                if w.location(pid) != "Chit cup":
                    w.move(pid, "Chit cup", map_name=OFF_MAP_NAME, player="Avi")
        w.report(f"TT|{turn}|Action Phase")
        for f in ORDER:
            who = "Avi" if f == "team_ari" else "Sami"
            w.move(chits[f][0], "Drawn chits", map_name=OFF_MAP_NAME, player=who)
            for _ in range(2):                                  # back and forth: 2 moves
                for i, (uids, a, b) in enumerate(SHUTTLES[f]):
                    key = (f, i)
                    end = where.get(key, 0)
                    target = b if end == 0 else a
                    pids = [unit[u] for u in uids]
                    if len(pids) == 1:
                        w.move(pids[0], target, player=who)
                    else:
                        w.move_stack(pids, target, player=who)
                    where[key] = 1 - end
                w.dice("2d6", [turn % 6 + 1, (turn * 5) % 6 + 1], player=who)
                w.chat("fire!", player=who)
            if turn % 7 == 0:                                  # a misclick taken back
                uids, a, b = next(x for x in SHUTTLES[f] if len(x[0]) == 1)
                pid = unit[uids[0]]
                here = w.location(pid)
                w.move(pid, a if here == b else b, player=who)
                w.undo(player=who)
    path.write_bytes(w.to_bytes())
    return len(w.steps)


def timed_audit(path: Path, scenario, repeat: int = 3):
    best = None
    report = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        report = audit_logs([path], scenario)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None or elapsed < best else best
    return best, report


def cpu_audit(path: Path, scenario, only=None):
    """(CPU seconds, report) of one audit (``only=()``: with no rule)."""
    gc.collect()
    start = time.process_time()
    report = audit_logs([path], scenario, only=only)
    return time.process_time() - start, report


def replay_alone(path: Path, scenario, clock=time.perf_counter) -> float:
    """Seconds to replay a log as the audit replays it (the scenario's maps,
    properties and hands), nothing judged."""
    gc.collect()
    start = clock()
    positions, properties, hands = scenario_positions(scenario)
    for _step in Replay.open([path], positions=positions, properties=properties, hands=hands).steps():
        pass
    return clock() - start


def breadth_first(neighbours, src: str) -> int:
    """The baseline: every hex reachable from ``src``, unweighted."""
    seen = {src}
    queue = deque([src])
    while queue:
        for b in neighbours[queue.popleft()]:
            if b not in seen:
                seen.add(b)
                queue.append(b)
    return len(seen)


def per_call(fn, pairs, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for src, dst in pairs:
            fn(src, dst)
        best = min(best, (time.perf_counter() - start) / len(pairs))
    return best


def movement_search() -> None:
    print("movement search (cheapest legal path; best of 5, per search):")
    slowest = 0.0
    for system in SYSTEMS:
        scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
        hexes = sorted(scenario.map.hex_ids)
        pairs = [(hexes[i], hexes[-1 - i]) for i in range(0, len(hexes) // 2, max(1, len(hexes) // 40))]
        for spec in (r for r in scenario.rules if r.kind == "movement_allowance"):
            costs = MoveCosts(scenario, spec.params)
            cls = sorted(costs.costs)[0]
            costs.edges(cls)                                   # tables built once per rule

            def uncached(src, dst, costs=costs, cls=cls):
                costs._cache.clear()
                costs._paths.clear()
                return costs.cheapest(cls, src, dst)

            t_search = per_call(uncached, pairs)
            t_cached = per_call(lambda src, dst, costs=costs, cls=cls: costs.cheapest(cls, src, dst), pairs)
            t_bfs = per_call(lambda src, dst, costs=costs: breadth_first(costs.neighbours, src), pairs)
            slowest = max(slowest, t_search)
            print(f"  {system:18s} {spec.id:16s} {cls:10s} {len(hexes):4d} hexes  "
                  f"search {t_search * 1e6:7.1f} µs ({t_search / t_bfs:4.1f}× a BFS of {t_bfs * 1e6:6.1f} µs)  "
                  f"cached {t_cached * 1e6:5.2f} µs ({t_cached / t_search:.3f}× a search)")
    print(f"  target: an uncached search ≤ 5 ms: {'met' if slowest <= 0.005 else 'NOT met'}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--movement-only", action="store_true")
    ap.add_argument("--examples-only", action="store_true", help="only the example game logs")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of the example game measurements")
    args = ap.parse_args()

    if not args.examples_only:
        movement_search()
        if args.movement_only:
            return 0
        print()

    load = os.getloadavg()
    print(f"example game logs (CPU time, best of {args.rounds} rounds at load {load[0]:.1f}; each round the "
          "whole audit with all rules on, incl. reading, the same audit with no rule (its fixed cost: "
          "reading, binding, faces and status, the clock, the state) and the baseline, the replay alone, "
          "as bench_peers.py measures it, run in turn: the same load on all three):")
    for system in SYSTEMS:
        scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
        path = EXAMPLES / system / "logs" / "game-1.vlog"
        t_first, report = cpu_audit(path, scenario)            # the scenario's memos still empty
        t = t_none = t_replay = float("inf")
        for _ in range(args.rounds):
            t = min(t, cpu_audit(path, scenario)[0])
            t_none = min(t_none, cpu_audit(path, scenario, only=())[0])
            t_replay = min(t_replay, replay_alone(path, scenario, clock=time.process_time))
        print(f"  {system:18s} {report.steps:6d} steps  {t * 1000:7.1f} ms  "
              f"{t / report.steps * 1e6:8.1f} µs/step  ({len(report.errors)} errors)  "
              f"{t / t_replay:4.2f}× the replay alone ({t_replay * 1000:.1f} ms); with no rule "
              f"{t_none * 1000:.1f} ms, {t_none / t_replay:4.2f}×; "
              f"the first audit of the scenario {t_first * 1000:.1f} ms (the first system: with the imports)")
    if args.examples_only:
        return 0

    scenario = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "small.vlog", Path(tmp) / "big.vlog"
        start = time.perf_counter()
        n_small = synthetic_log(args.steps // 5, small)
        n_big = synthetic_log(args.steps, big)
        print(f"\nsynthetic logs written in {time.perf_counter() - start:.1f} s")
        t_small, r_small = timed_audit(small, scenario, repeat=2)
        t_big, r_big = timed_audit(big, scenario, repeat=2)
        for n, t, r in ((n_small, t_small, r_small), (n_big, t_big, r_big)):
            print(f"  {n:6d} steps  {t:6.2f} s  {t / r.steps * 1e6:6.1f} µs/step  "
                  f"({len(r.errors)} errors, {len(r.violations)} findings)")
        # where the rest goes: the same audit with no rule (replay + turning
        # replay events into scenario events and game time)
        t_none = None
        for _ in range(2):
            gc.collect()
            start = time.perf_counter()
            audit_logs([big], scenario, only=())
            elapsed = time.perf_counter() - start
            t_none = elapsed if t_none is None or elapsed < t_none else t_none
        # baseline, same run: replaying the long log alone (what `vmodtool
        # replay` does: read, decode, one pass) with nothing judged
        t_replay = None
        for _ in range(2):
            start = time.perf_counter()
            positions, properties, hands = scenario_positions(scenario)     # fresh: no warm cache
            replay = Replay.open([big], positions=positions, properties=properties, hands=hands)
            for _step in replay.steps():
                pass
            elapsed = time.perf_counter() - start
            t_replay = elapsed if t_replay is None or elapsed < t_replay else t_replay
        del replay
        print(f"  baseline, replay alone: {t_replay / r_big.steps * 1e6:6.1f} µs/step; "
              f"the audit costs {t_big / t_replay:.1f}× the replay")
        print(f"  the audit with no rule: {t_none / r_big.steps * 1e6:6.1f} µs/step "
              f"(so the {len(r_big.rules_checked)} rules take "
              f"{(t_big - t_none) / r_big.steps * 1e6:.1f} µs/step)")
        ratio = (t_big / r_big.steps) / (t_small / r_small.steps)
        print(f"  linearity: µs/step at {n_big} ÷ µs/step at {n_small} = {ratio:.2f} (1.00 = linear)")
        print(f"  target ≤ 25 µs/step: {'met' if t_big / r_big.steps * 1e6 <= 25 else 'NOT met'}")
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            audit_logs([big], scenario)
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
