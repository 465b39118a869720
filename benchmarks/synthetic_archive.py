"""A synthetic tournament archive for ``vmodtool batch``'s tests and benchmark.

The games are the example systems' logs, written by the project's own
writer (``examples/make_logs.py``: clean games and copies with one seeded
violation each), laid out as an organiser's archive: one folder per game
under its system, and a ``manifest.csv`` naming each game's scenario.  Bad
games are added on purpose: a log cut off in the middle and a file that is
no VASSAL log at all.  With ``../shared`` the corpus chains join (the TLD
chain of 19 VASSAL 2.9 logs, audited through the Longest Day example's
binding to its published module).

    python benchmarks/synthetic_archive.py OUT [--games 200] [--no-corpus]
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")

#: the bad games every archive holds: name -> how its one file is made
BAD = ("cut-off", "not-a-log")


def example_logs() -> list[tuple[str, Path]]:
    """(system, log) of every example log, system by system."""
    return [(system, log) for system in SYSTEMS for log in sorted((EXAMPLES / system / "logs").glob("*.vlog"))]


def write_archive(out: Path, games: int = 200, *, corpus: bool = True) -> Path:
    """Write ``games`` example games (cycling through the example logs), the
    bad games and (with ``corpus`` and ../shared) the TLD chain under
    ``out``; return the manifest's path."""
    logs = example_logs()
    rows: list[tuple[str, str, int, str, str]] = []
    for number in range(games):
        system, log = logs[number % len(logs)]
        name = f"{system}/game-{number + 1:03d}"
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / log.name
        target.write_bytes(log.read_bytes())
        rows.append((name, target.relative_to(out).as_posix(), 1, "",
                     str(EXAMPLES / system / "scenario.yaml")))
    system, log = logs[0]
    for bad in BAD:
        folder = out / "bad" / bad
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / "turn-1.vlog"
        data = log.read_bytes()
        target.write_bytes(data[: len(data) * 2 // 5] if bad == "cut-off" else b"turn 1: I moved my tanks\n")
        rows.append((f"bad/{bad}", target.relative_to(out).as_posix(), 1, "",
                     str(EXAMPLES / system / "scenario.yaml")))
    tld = SHARED / "corpus" / "tld"
    if corpus and (tld / "game").is_dir():
        chain = sorted((tld / "game").glob("*.log"))        # 0606-1 … 0610-2: played in name order
        for order, path in enumerate(chain, start=1):
            rows.append(("corpus/tld", str(path), order, str(tld / "buildFile"),
                         str(EXAMPLES / "the-longest-day" / "scenario.yaml")))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["game", "file", "order", "module", "scenario"])
    writer.writerows(rows)
    manifest = out / "manifest.csv"
    manifest.write_text(buf.getvalue(), encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--no-corpus", action="store_true")
    args = ap.parse_args(argv)
    print(write_archive(args.out, args.games, corpus=not args.no_corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
