"""A longer fuzz run of what a batch reads than the test suite's: random
mutations of a CSV manifest, a YAML manifest and a resume file
(``OUTPUT.partial``), with the mutations of ``tests/batch/test_fuzz_batch.py``
(byte edits, control characters, hostile numbers, repeated lines, deep
nesting, and for resume records a field's value swapped for a hostile JSON
value).  A manifest may only be refused with a one-line ``VmodError``; a
resumed batch must give exactly a clean run's records (no record that
cannot prove itself is reused).  Anything else is a finding; so is one
execution that takes more than ``--slow`` seconds.  The process runs under
an address-space limit, so that a memory bomb is a MemoryError finding
instead of a stalled machine.

Run from the repository root (bounded: ``--minutes``, default 3)::

    python benchmarks/fuzz_batch.py --minutes 3 [--seed 1] [--out findings/]

It prints executions (per target), executions per second, records reused
from mutated resume files, the slowest execution, the peak memory and each
distinct finding; ``--out`` also writes each finding's input there.  Exit
status 1 when there is a finding.
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
from tests.batch.test_fuzz_batch import (  # noqa: E402
    HOSTILE_VALUES,
    RESUME_FIELDS,
    SEED_CSV,
    SEED_YAML,
    exercise_manifest,
    exercise_resume,
    resume_baseline,
)
from tests.scenario.test_hostile import HOSTILE_CHARS, HOSTILE_NUMBERS, mutate  # noqa: E402

MEMORY_LIMIT = 2 * 1024 ** 3   # bytes of address space for the whole run

Op = tuple[str, Any, Any]


def random_ops(rng: random.Random, target: str) -> list[Op]:
    ops: list[Op] = []
    for _ in range(rng.randint(1, 4)):
        names = ["flip", "insert", "delete", "truncate", "char", "char", "number", "repeat", "nest"]
        if target == "resume":
            names += ["field"] * 4
        name = rng.choice(names)
        where = rng.random()
        if name in ("flip", "insert", "delete", "truncate"):
            ops.append((name, where, rng.randrange(256)))
        elif name == "char":
            ops.append((name, where, rng.randrange(len(HOSTILE_CHARS))))
        elif name == "number":
            ops.append((name, where, rng.randrange(len(HOSTILE_NUMBERS))))
        elif name == "repeat":
            ops.append((name, where, rng.choice([1, 10, 100, 1000])))
        elif name == "nest":
            ops.append((name, where, rng.choice([1, 2, 100, 2000, 20000])))
        else:
            field = rng.choice(RESUME_FIELDS)
            ops.append(("sub", field, field + rng.choice(HOSTILE_VALUES) + ', "was": '))
    return ops


def main() -> int:
    args = fuzz_arguments(__doc__ or "", 10.0, "execution").parse_args()
    limit_address_space(MEMORY_LIMIT)
    rng = random.Random(args.seed)
    findings: dict[tuple[str, str], tuple[str, list[Op], str, bytes]] = {}
    executions = {"csv": 0, "yaml": 0, "resume": 0}
    refused = reused = 0
    slowest = (0.0, "")
    deadline = time.monotonic() + 60 * args.minutes
    with tempfile.TemporaryDirectory() as tmp:
        games, resume_seed, baseline = resume_baseline(Path(tmp))
        seeds = {"csv": SEED_CSV, "yaml": SEED_YAML, "resume": resume_seed}
        while time.monotonic() < deadline:
            target = rng.choice(["csv", "yaml", "resume"])
            ops = random_ops(rng, target)
            content = mutate("jsonl" if target == "resume" else target, seeds[target], ops)
            start = time.monotonic()
            try:
                if target == "resume":
                    reused += exercise_resume(content, Path(tmp), games, baseline)
                else:
                    refused += exercise_manifest(target, content, Path(tmp)) is None
            except (Exception, RecursionError) as exc:  # noqa: BLE001 - a fuzzer records whatever escapes
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                key = (type(exc).__name__, f"{Path(frame.filename).name}:{frame.lineno}")
                if key not in findings:
                    findings[key] = (target, ops, f"{type(exc).__name__}: {str(exc)[:200]}", content)
            took = time.monotonic() - start
            if took > slowest[0]:
                slowest = (took, f"{target} {ops!r}"[:300])
            if took > args.slow:
                findings.setdefault(("slow", f"{took:.1f}s"), (target, ops, f"one execution took {took:.1f} s",
                                                               content))
            executions[target] += 1
    elapsed = 60 * args.minutes
    total = sum(executions.values())
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"executions: {total} in {elapsed:.0f} s ({total / elapsed:.1f}/s): "
          + ", ".join(f"{k} {v}" for k, v in executions.items())
          + f"; manifests refused: {refused}; resume records reused: {reused}; findings: {len(findings)}")
    print(f"slowest execution: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"peak memory of the run: {peak_mb:.0f} MB (address space limited to {MEMORY_LIMIT // 1024 ** 2} MB)")
    for i, ((kind, where), (target, ops, message, content)) in enumerate(sorted(findings.items())):
        print(f"finding {i + 1}: {kind} at {where}: {message}\n  input: {target} with {ops!r}"[:1000])
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            suffix = "jsonl" if target == "resume" else target
            (args.out / f"finding-{i + 1}.{suffix}").write_bytes(content)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
