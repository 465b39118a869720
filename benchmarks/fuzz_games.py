"""A longer fuzz run of the game commands than the test suite's
(``tests/test_fuzz_games.py``), bounded in time: real logs and saves damaged
in their decoded commands (a log entry dropped, repeated or moved; a number,
a piece id or a character changed; bytes changed), re-encoded in a random
``savedGame`` encoding, and run through ``inspect``, ``replay``,
``check-game``, ``audit`` and ``report`` in this process.

The games: the examples' logs with their scenarios and, with ``../shared``
(``VMODTOOL_SHARED``), published modules' logs and saves with their
buildFiles (The Longest Day and Ragnarok audited with the example scenarios
that bind them).

Run from the repository root::

    python benchmarks/fuzz_games.py --minutes 3 [--seed 1] [--out findings/] [--no-report]

A finding is an exception out of a command, an exit code other than 0, 1, 2
and 3, an exit 2 that does not name the file, a traceback in the output, or
one run of the commands slower than ``--slow`` seconds (one with no answer after
three times that is a hang: its worker is replaced).  The run prints the
executions, each command's exit codes (how far the damaged games got: an exit
2 stopped at bad input, 0/1/3 went through the rules), the slowest run and
every distinct finding with the game and mutations to reproduce it (``--out``
also writes its input file).  Exit status 1 when there is a finding.
"""

from __future__ import annotations

import multiprocessing
import random
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from multiprocessing.pool import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fuzzing import fuzz_arguments, limit_address_space  # noqa: E402
from tests.test_fuzz_games import (  # noqa: E402
    MUTATIONS,
    Game,
    Op,
    corpus_games,
    damaged_file,
    example_games,
    exercise,
)
from vmodtool.vassal.obfuscation import Encoding  # noqa: E402

MEMORY_LIMIT = 2 * 1024 ** 3   # bytes of address space of the worker (a memory bomb: a MemoryError finding)
#: runs of the commands a worker process does before it is replaced
RECYCLE = 50
#: a run without an answer after this many times ``--slow`` is a hang
HANG_AFTER = 3
#: the encodings a damaged log is written in (each reader path)
ENCODINGS = (Encoding.VCSK, Encoding.PLAIN, Encoding.VCSZ, Encoding.VOXZ)


def random_ops(rng: random.Random) -> list[Op]:
    return [(rng.choice(MUTATIONS), rng.random(), rng.randrange(10_000)) for _ in range(rng.randint(1, 3))]


def _limit_memory() -> None:
    limit_address_space(MEMORY_LIMIT)


def _run_one(game: Game, data: bytes, folder: str, report: bool) -> tuple[list[str], Counter[tuple[str, int]], float]:
    """One run of the commands, in a worker: (problems, exit codes, seconds)."""
    tally: Counter[tuple[str, int]] = Counter()
    start = time.monotonic()
    try:
        problems = exercise(game, data, Path(folder), report=report, tally=tally)
    except Exception as exc:  # noqa: BLE001 - the harness's own failure is a finding too
        problems = [f"harness: {type(exc).__name__}: {exc}: {traceback.format_exc(limit=-1).strip()}"]
    return problems, tally, time.monotonic() - start


def _finding_key(problem: str) -> str:
    """What makes two problems the same finding: the exception and where
    it was raised (or the kind of problem), whatever the command line."""
    return re.sub(r"^[^:]*\): ", "", problem).split(":")[0]


def main() -> int:
    parser = fuzz_arguments(__doc__ or "", 20.0, "run")
    parser.add_argument("--no-report", action="store_true", help="leave 'report' out (the slowest command)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    examples, corpus = example_games(), corpus_games()
    print(f"{len(examples)} example logs, {len(corpus)} corpus games"
          f"{'' if corpus else ' (../shared not found: set VMODTOOL_SHARED)'}; seed {args.seed}")
    tally: Counter[tuple[str, int]] = Counter()
    findings: dict[str, str] = {}
    runs = 0
    slowest = (0.0, "")
    deadline = time.monotonic() + args.minutes * 60
    # the commands run in a worker process, replaced every RECYCLE runs: what
    # one process keeps over thousands of runs of many modules (caches,
    # allocator) is not mistaken for a memory bomb, and a crash of the
    # interpreter itself is a finding, not the end of the run
    context = multiprocessing.get_context("spawn")

    def new_pool() -> Pool:
        return context.Pool(1, initializer=_limit_memory, maxtasksperchild=RECYCLE)
    pool = new_pool()
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < deadline:
            # the corpus games are fewer and larger: one run in three
            game = rng.choice(corpus if corpus and rng.random() < 1 / 3 else examples)
            ops = random_ops(rng)
            encoding = rng.choice(ENCODINGS)
            data = damaged_file(game, ops, encoding)
            job = pool.apply_async(_run_one, (game, data, tmp, not args.no_report))
            try:
                problems, counted, seconds = job.get(timeout=HANG_AFTER * args.slow)
            except multiprocessing.TimeoutError:    # a hang: the worker is replaced
                pool.terminate()
                pool = new_pool()
                seconds = HANG_AFTER * args.slow
                problems, counted = [f"hang: no answer after {seconds:.0f} s"], Counter()
            except Exception as exc:  # noqa: BLE001 - the worker died (or could not send its answer)
                problems, counted, seconds = [f"worker: {type(exc).__name__}: {exc}"], Counter(), 0.0
            tally.update(counted)
            runs += 1
            if seconds > slowest[0]:
                slowest = (seconds, f"{game.name} {ops} {encoding.value}")
            if seconds > args.slow:
                problems.append(f"slow: {seconds:.1f} s")
            for problem in problems:
                key = _finding_key(problem)
                if key in findings:
                    continue
                findings[key] = problem
                print(f"FINDING {game.name} {ops} ({encoding.value}): {problem}", flush=True)
                if args.out:
                    args.out.mkdir(parents=True, exist_ok=True)
                    (args.out / f"finding-{len(findings)}{game.log.suffix}").write_bytes(data)
    pool.terminate()
    print(f"{runs} runs of the commands in {args.minutes:g} min ({runs / (args.minutes * 60):.1f}/s); "
          f"slowest {slowest[0]:.2f} s ({slowest[1]})")
    for command in sorted({c for c, _ in tally}):
        codes = ", ".join(f"exit {code}: {n}" for (c, code), n in sorted(tally.items()) if c == command)
        print(f"  {command:11} {codes}")
    print(f"{len(findings)} distinct finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
