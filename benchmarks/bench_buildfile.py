"""Time BuildFile.parse + untouched to_bytes on the largest corpus buildFile,
and how fast hostile XML is refused.

Plain script: ``python benchmarks/bench_buildfile.py [path]``.  Without a
path it picks the largest ``buildFile*`` below ``../shared/corpus`` (or
``$VMODTOOL_SHARED/corpus``) and says so when that folder is absent.

Hostile XML (always run): ``parse_xml`` refusing a "billion laughs" entity
bomb — small, and at the head of a large document — against the baseline,
measured in the same run, of parsing a harmless document of the same size.
Refusal happens before the parser sees the bomb, so it costs at most what
reading the document costs (ratio ≤ 1) and never grows with the expansion.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vmodtool.errors import UnsafeFileError  # noqa: E402
from vmodtool.vassal.buildfile import BuildFile  # noqa: E402
from vmodtool.vassal.safexml import parse_xml  # noqa: E402


def _largest_buildfile() -> Path | None:
    shared = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared"))
    candidates = [p for p in (shared / "corpus").glob("*/buildFile*") if p.is_file()]
    return max(candidates, key=lambda p: p.stat().st_size) if candidates else None


def _best_of(repeats: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def entity_bomb(levels: int = 9, body: bytes = b"") -> bytes:
    """The "billion laughs" document: each entity ten of the one before, so
    ``&lol<levels>;`` expands to 3 × 10**levels bytes; ``body`` pads the
    document after the root's reference."""
    lines = [b'<?xml version="1.0"?>', b"<!DOCTYPE lolz [", b' <!ENTITY lol0 "lol">']
    for level in range(1, levels + 1):
        lines.append(b" <!ENTITY lol%d \"%s\">" % (level, (b"&lol%d;" % (level - 1)) * 10))
    lines.append(b"]>")
    lines.append(b"<lolz>&lol%d;%s</lolz>" % (levels, body))
    return b"\n".join(lines)


def harmless(size: int) -> bytes:
    """A plain document of about ``size`` bytes (no DOCTYPE)."""
    item = b'<item name="x" value="1">text</item>\n'
    return b'<?xml version="1.0"?>\n<root>\n' + item * max(1, size // len(item)) + b"</root>"


def refused(data: bytes) -> None:
    try:
        parse_xml(data)
    except UnsafeFileError:
        return
    raise AssertionError("the entity bomb was not refused")


def hostile_xml() -> None:
    print("hostile XML: refusing an entity bomb vs parsing a harmless document of the same size")
    for label, bomb in (("bomb alone", entity_bomb()),
                        ("bomb + 10 MB body", entity_bomb(body=b"<x>pad</x>\n" * 1_000_000))):
        plain = harmless(len(bomb))
        t_bomb = _best_of(20 if len(bomb) < 1e5 else 3, lambda bomb=bomb: refused(bomb))
        t_plain = _best_of(20 if len(bomb) < 1e5 else 3, lambda plain=plain: parse_xml(plain))
        print(f"  {label:18s} {len(bomb) / 1e6:7.3f} MB  refused in {t_bomb * 1e3:8.3f} ms; "
              f"baseline parse {t_plain * 1e3:8.3f} ms; ratio {t_bomb / t_plain:5.2f}")


def main() -> int:
    hostile_xml()
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else _largest_buildfile()
    if path is None:
        print("skipped: shared corpus not available (set VMODTOOL_SHARED or pass a path)")
        return 0
    data = path.read_bytes()
    megabytes = len(data) / 1e6
    buildfile = BuildFile.parse(data)
    assert buildfile.to_bytes() == data, "untouched round trip differs"
    parse = _best_of(10, lambda: BuildFile.parse(data))
    write = _best_of(10, buildfile.to_bytes)
    slot = buildfile.piece_slots()[0].element if buildfile.piece_slots() else buildfile.root
    slot.set("benchmark", "1")
    edited = _best_of(10, buildfile.to_bytes)
    print(f"{path} ({megabytes:.2f} MB)")
    print(f"parse              {parse * 1e3:8.1f} ms  {megabytes / parse:8.1f} MB/s")
    print(f"to_bytes untouched {write * 1e3:8.1f} ms  {megabytes / write:8.1f} MB/s")
    print(f"to_bytes 1 edit    {edited * 1e3:8.1f} ms  {megabytes / edited:8.1f} MB/s")
    print(f"parse + write      {(parse + write) * 1e3:8.1f} ms  "
          f"{megabytes / (parse + write):8.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
