"""A longer fuzzing run of the save readers and the command parser than the
test suite affords (issue 13: hostile files), bounded in time.

Run: ``python benchmarks/fuzz_long.py [--minutes 3] [--seed 1] [--out DIR]``.

Random inputs, in turn, from four generators:

* ``raw``: command text assembled from the pieces that matter to the parser
  (ESC, backslashes, quotes, command prefixes) with long runs spliced in,
  read as a bare stream (no zip, no hex), and parsed on its own;
* ``text``: the decoded text of a real save (the corpus, or the bundled
  example), damaged byte-wise and with such runs spliced in, read raw and
  re-encoded in a random ``savedGame`` encoding inside a zip;
* ``file``: a real save file damaged byte-wise;
* ``bomb``: a compressed ``savedGame`` (xz, ``!VOXZ`` or ``!VCSZ``) of up to
  96 MiB of one repeated byte, which must be refused (or read when under the
  limits) within the memory bound.

The only exception allowed out of a reader is ``VmodError``.  Anything else
(and a bomb whose decoding allocated more than 100 MiB, by tracemalloc) is
a finding: printed, and its input written to ``--out``.  The report gives
executions per generator and the findings.
"""

from __future__ import annotations

import argparse
import lzma
import random
import sys
import time
import tracemalloc
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_fuzz import SAVES, _exercise_save, _exercise_text, _mutate, _undamaged  # noqa: E402
from vmodtool.errors import VmodError  # noqa: E402
from vmodtool.vassal.archive import build_zip  # noqa: E402
from vmodtool.vassal.commands import ESC  # noqa: E402
from vmodtool.vassal.obfuscation import Encoding, encode_saved_game  # noqa: E402
from vmodtool.vassal.savefile import SavedGame  # noqa: E402

MIB = 1024 * 1024
BOMB_CEILING = 100 * MIB
PIECES = [ESC, "\\", "'", "''", "\\" + ESC, "begin_save", "end_save", "+/1/", "M/", "D/", "-/",
          "LOG\t", "PLAYER\t", "UNDO\t", "\t", ";", "/", ",", "a", "Я", "piece;;;x.png;X/"]
RUNS = ["'", "\\", ESC, "\\" + ESC, "'" + ESC]


def _splice(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(text))
        run = rng.choice(RUNS) * rng.choice([1, 2, 10, 99, 100, 101, 500, 1001, 5000])
        text = text[:at] + run + text[at:]
    return text


def _ops(rng: random.Random) -> list[tuple[str, float, int]]:
    return [(rng.choice(["flip", "insert", "delete", "truncate"]), rng.random(), rng.randint(0, 255))
            for _ in range(rng.randint(1, 4))]


def gen_raw(rng: random.Random) -> Callable[[], None]:
    text = _splice(rng, "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 80))))
    if rng.random() < 0.5:
        text = "begin_save" + ESC + text

    def run() -> None:
        _exercise_text(text)
        _exercise_save(SavedGame.from_bytes(text.encode("utf-8"), file="fuzz.vlog"))
    run.data = text.encode("utf-8")  # type: ignore[attr-defined]
    return run


def gen_text(rng: random.Random) -> Callable[[], None]:
    path = rng.choice(SAVES)
    text, known = _undamaged(path)
    damaged = _splice(rng, _mutate(text.encode("utf-8"), _ops(rng)).decode("utf-8", errors="replace"))
    encoding = rng.choice(list(Encoding))
    key = rng.randint(1, 255)
    payload = encode_saved_game(damaged, encoding, key=key)
    data = build_zip({"savedGame": payload}, compress_level=1) if rng.random() < 0.7 else payload

    def run() -> None:
        _exercise_save(SavedGame.from_bytes(data, file="fuzz.vsav"), known)
    run.data = data  # type: ignore[attr-defined]
    return run


def gen_file(rng: random.Random) -> Callable[[], None]:
    path = rng.choice(SAVES)
    data = _mutate(path.read_bytes(), _ops(rng))

    def run() -> None:
        _exercise_save(SavedGame.from_bytes(data, file=path.name))
    run.data = data  # type: ignore[attr-defined]
    return run


def gen_bomb(rng: random.Random) -> Callable[[], None]:
    mib = rng.choice([1, 8, 33, 48, 96])
    byte = bytes([rng.choice([0, 0x41, 0x1B])])
    encoding = rng.choice([Encoding.XZ, Encoding.VOXZ, Encoding.VCSZ])
    comp: lzma.LZMACompressor | zlib._Compress = (
        zlib.compressobj(9) if encoding is Encoding.VCSZ else lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0))
    block = byte * MIB
    body = comp.compress(b"begin_save" + ESC.encode()) + b"".join(comp.compress(block) for _ in range(mib))
    body += comp.flush()
    key = rng.randint(1, 255)
    table = bytes(i ^ key for i in range(256))
    if encoding is Encoding.VOXZ:
        payload = b"!VOXZ" + bytes([key]) + body.translate(table)
    elif encoding is Encoding.VCSZ:
        payload = b"!VCSZ" + f"{key:02x}".encode() + body.translate(table).hex().encode()
    else:
        payload = body
    data = build_zip({"savedGame": payload}, compress_level=1)

    def run() -> None:
        refusal: VmodError | None = None
        tracemalloc.start()
        try:
            SavedGame.from_bytes(data, file="bomb.vsav")
        except VmodError as exc:
            refusal = exc
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if peak > BOMB_CEILING:
            raise MemoryError(f"a {mib} MiB {encoding.name} bomb peaked at {peak / MIB:.0f} MiB")
        if refusal is not None:
            raise refusal
    run.data = data  # type: ignore[attr-defined]
    return run


GENERATORS: dict[str, tuple[Callable[[random.Random], Callable[[], None]], float]] = {
    "raw": (gen_raw, 0.45), "text": (gen_text, 0.3), "file": (gen_file, 0.24), "bomb": (gen_bomb, 0.01),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="time budget (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-findings"),
                        help="where the inputs of findings are written (default ./fuzz-findings)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names = list(GENERATORS)
    weights = [GENERATORS[n][1] for n in names]
    runs: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    findings: list[str] = []
    deadline = time.monotonic() + args.minutes * 60
    start = time.monotonic()
    while time.monotonic() < deadline:
        name = rng.choices(names, weights)[0]
        job = GENERATORS[name][0](rng)
        runs[name] += 1
        try:
            job()
        except VmodError:
            refused[name] += 1
        except Exception as exc:  # noqa: BLE001 -- every other exception is what we hunt
            args.out.mkdir(parents=True, exist_ok=True)
            where = args.out / f"{name}-{len(findings) + 1}.bin"
            where.write_bytes(job.data)  # type: ignore[attr-defined]
            line = f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} -> {where}"
            findings.append(line)
            print("FINDING", line, flush=True)
    elapsed = time.monotonic() - start
    total = sum(runs.values())
    print(f"{total} executions in {elapsed:.0f} s ({total / elapsed:.0f}/s), seed {args.seed}")
    for name in names:
        print(f"  {name:5s} {runs[name]:7d} runs, {refused[name]:7d} refused with a VmodError")
    print(f"findings: {len(findings)}")
    for line in findings:
        print("  " + line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
