"""Time parsing + naming of piece definitions.

Input: the ``definition`` fields of the golden ``pieces/*.jsonl`` (every
PieceSlot / PrototypeDefinition of the corpus buildFiles); the largest
corpus (by definition count) is timed alone, then all of them.  Prints
definitions per second.  Skips with a message when ../shared is absent.

    python benchmarks/bench_pieces.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vmodtool.vassal.pieces import PieceDef  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared"))


def _bench(label: str, definitions: list, rounds: int = 3) -> None:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for text in definitions:
            _ = PieceDef.parse(text).name              # decodes the trait chain
        best = min(best, time.perf_counter() - start)
    rate = len(definitions) / best if best else float("inf")
    print(f"{label}: {len(definitions)} definitions, parse+name {best * 1000:.1f} ms "
          f"-> {rate:,.0f} definitions/s (best of {rounds})")


def main() -> int:
    folder = SHARED / "golden" / "pieces"
    if not folder.exists():
        print(f"skipped: shared data not available ({folder})")
        return 0
    corpora = {}
    for f in sorted(folder.glob("*.jsonl")):
        with open(f, encoding="utf-8") as fh:
            corpora[f.stem] = [json.loads(line)["definition"] for line in fh]
    largest = max(corpora, key=lambda k: len(corpora[k]))
    _bench(f"largest corpus ({largest})", corpora[largest])
    _bench("all corpora", [d for defs in corpora.values() for d in defs])
    return 0


if __name__ == "__main__":
    sys.exit(main())
