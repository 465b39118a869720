"""A longer fuzz run of the scenario loader than the test suite's: random
mutations of the example scenarios (YAML, TOML, the counter-mix CSV), with
the mutations of ``tests/test_fuzz.py`` (byte edits, hostile numbers, deep
nesting, control characters, repeated lines), each checked with
``check_scenario``/``load_scenario``.  Anything but a ``VmodError`` is a
finding; so is one check that takes more than ``--slow`` seconds.  The
process runs under an address-space limit, so that a memory bomb is a
MemoryError finding instead of a stalled machine.

Run from the repository root (bounded: ``--minutes``, default 3)::

    python benchmarks/fuzz_scenarios.py --minutes 3 [--seed 1] [--out findings/]

It prints executions, executions per second, the slowest check, the peak
memory, and each distinct finding (exception, where it was raised, the
scenario and the mutations to reproduce it); ``--out`` also writes each
finding's input file there.  Exit status 1 when there is a finding.
"""

from __future__ import annotations

import random
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fuzzing import fuzz_arguments, limit_address_space  # noqa: E402
from tests.scenario.test_hostile import (  # noqa: E402
    HOSTILE_CHARS,
    HOSTILE_NUMBERS,
    HOSTILE_TAGS,
    REPRODUCERS,
    exercise,
    mutate,
    scenario_texts,
)
from vmodtool.errors import VmodError  # noqa: E402

MEMORY_LIMIT = 2 * 1024 ** 3   # bytes of address space for the whole run


def random_ops(rng: random.Random) -> list[tuple[str, Any, Any]]:
    ops: list[tuple[str, Any, Any]] = []
    for _ in range(rng.randint(1, 4)):
        name = rng.choice(["flip", "insert", "delete", "truncate", "number", "number", "nest", "char", "char",
                           "repeat", "tag", "tag"])
        where = rng.random()
        if name in ("flip", "insert", "delete", "truncate"):
            ops.append((name, where, rng.randrange(256)))
        elif name == "number":
            ops.append((name, where, rng.randrange(len(HOSTILE_NUMBERS))))
        elif name == "nest":
            ops.append((name, where, rng.choice([1, 2, 63, 64, 65, 100, 2000, 20000])))
        elif name == "char":
            ops.append((name, where, rng.randrange(len(HOSTILE_CHARS))))
        elif name == "tag":
            ops.append((name, where, rng.randrange(len(HOSTILE_TAGS))))
        else:
            ops.append((name, where, rng.choice([1, 10, 100, 1000, 5000])))
    return ops


def main() -> int:
    args = fuzz_arguments(__doc__ or "", 10.0, "check").parse_args()
    limit_address_space(MEMORY_LIMIT)
    rng = random.Random(args.seed)
    texts = scenario_texts()
    names = sorted(texts)
    # the reproducers first, then random mutations until the time is up
    queue: list[tuple[str, list[tuple[str, Any, Any]]]] = [(n, ops) for n, _k, ops in REPRODUCERS]
    findings: dict[tuple[str, str], tuple[str, list[tuple[str, Any, Any]], str, bytes]] = {}
    executions = refused = 0
    slowest = (0.0, "")
    deadline = time.monotonic() + 60 * args.minutes
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < deadline:
            name, ops = queue.pop(0) if queue else (rng.choice(names), random_ops(rng))
            kind, data = texts[name]
            content = mutate(kind, data, ops)
            folder = Path(tmp) / str(executions % 64)
            folder.mkdir(exist_ok=True)
            start = time.monotonic()
            try:
                problems = exercise(kind, content, folder)
                refused += bool(problems)
                key = None
            except VmodError:   # exercise() catches load_scenario's; check_scenario returns problems
                key = None
            except (Exception, RecursionError) as exc:  # noqa: BLE001 - a fuzzer records whatever escapes
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                key = (type(exc).__name__, f"{Path(frame.filename).name}:{frame.lineno}")
                if key not in findings:
                    findings[key] = (name, ops, f"{type(exc).__name__}: {str(exc)[:200]}", content)
            took = time.monotonic() - start
            if took > slowest[0]:
                slowest = (took, f"{name} {ops!r}"[:300])
            if took > args.slow:
                findings.setdefault(("slow", f"{took:.1f}s"), (name, ops, f"one check took {took:.1f} s", content))
            executions += 1
    elapsed = 60 * args.minutes
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"executions: {executions} in {elapsed:.0f} s ({executions / elapsed:.1f}/s); "
          f"with problems: {refused}; findings: {len(findings)}")
    print(f"slowest check: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"peak memory of the run: {peak_mb:.0f} MB (address space limited to {MEMORY_LIMIT // 1024 ** 2} MB)")
    for i, ((kind, where), (name, ops, message, content)) in enumerate(sorted(findings.items())):
        print(f"finding {i + 1}: {kind} at {where}: {message}\n  input: {name} with {ops!r}"[:1000])
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            suffix = texts[name][0]
            (args.out / f"finding-{i + 1}.{suffix}").write_bytes(content)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
