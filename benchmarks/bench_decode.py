"""Decode and parse speed of saves and logs (issue: foundation).

Run: ``python benchmarks/bench_decode.py [--size-mb 100]``.

Measures, in one run:

* decoding the ``savedGame`` entry of the largest corpus save, and of a
  synthetic save of ``--size-mb`` MB of encoded ``!VCSK`` hex built from real
  commands: MB/s of encoded input, and the ratio against a straightforward
  byte-at-a-time decoder (the way pywargame does it) measured here on the same
  data (on a prefix for the synthetic file, to keep the run short);
* parsing the decoded text into the command tree: MB/s of plaintext;
* peak memory (tracemalloc) of decoding, and of decoding + parsing, as a
  multiple of the plaintext size;
* the TLD chain (19 logs of VASSAL 2.9.8, upper-case hex, 121,000 commands):
  ``SavedGame.read`` of every log, then its command tree (best of 3).

Needs ../shared/corpus for the real file; the synthetic file is built from it
when present, else from a generated command stream.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmodtool.vassal.archive import Archive  # noqa: E402
from vmodtool.vassal.commands import parse_commands  # noqa: E402
from vmodtool.vassal.obfuscation import DecodedText, decode_saved_game, encode_saved_game  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
MB = 1024 * 1024


def byte_at_a_time(data: bytes) -> str:
    """The baseline: one byte at a time, as a straightforward port of
    VASSAL's DeobfuscatingInputStream does it."""
    key = int(data[5:7], 16)
    out = bytearray()
    for i in range(7, len(data), 2):
        out.append(int(data[i:i + 2], 16) ^ key)
    return out.decode("utf-8")


def best_of(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def peak_ratio(fn, plaintext_bytes: int) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak / plaintext_bytes


def largest_corpus_save():
    saves = [p for p in (SHARED / "corpus").rglob("*") if p.suffix in (".vsav", ".vlog", ".sav", ".log")]
    if not saves:
        return None, None
    path = max(saves, key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    if data[:2] == b"PK":
        with Archive(data, file=path) as arc:
            data = arc.read("savedGame")
    return path, data


def synthetic(size_mb: int, sample: str) -> bytes:
    """A !VCSK savedGame of about size_mb MB built from real commands."""
    pieces = [c for c in sample.split("\x1b") if c.startswith(("\\", "+/", "LOG", "M/", "D/"))] or [sample]
    target = size_mb * MB // 2  # two hex digits per plaintext byte
    out, total, i = [], 0, 0
    while total < target:
        piece = pieces[i % len(pieces)]
        out.append(piece)
        total += len(piece.encode("utf-8")) + 1
        i += 1
    text = "begin_save\x1b" + "\x1b".join(out) + "\x1bend_save"
    return encode_saved_game(text, key=0x5C)


def report(label: str, data: bytes, baseline_prefix: int | None = None) -> None:
    def decode(src: bytes | io.BytesIO) -> DecodedText:
        # a synthetic save may be larger than the default plaintext ceiling: this one is trusted
        return decode_saved_game(src, max_plaintext=len(data))

    decoded = decode(data)
    plain = decoded.plaintext_bytes
    t_fast = best_of(lambda: decode(data))
    base_data = data if baseline_prefix is None else data[:baseline_prefix + 7]
    if len(base_data) % 2 == 0:
        base_data = base_data[:-1]
    t_base = best_of(lambda: byte_at_a_time(base_data), repeat=1)
    fast_rate = len(data) / MB / t_fast
    base_rate = len(base_data) / MB / t_base
    text = decoded.text
    t_parse = best_of(lambda: parse_commands(text), repeat=2)
    parse_rate = plain / MB / t_parse
    mem_decode = peak_ratio(lambda: decode(io.BytesIO(data)), plain)
    decoded = text = None   # free them before measuring the peak of decode + parse
    mem_both = peak_ratio(lambda: parse_commands(decode(io.BytesIO(data)).text), plain)
    print(f"{label}")
    print(f"  encoded {len(data) / MB:.1f} MB, plaintext {plain / MB:.1f} MB")
    print(f"  decode: {t_fast:.3f} s = {fast_rate:.0f} MB/s encoded input (one core)")
    print(f"  byte-at-a-time baseline: {base_rate:.2f} MB/s "
          f"(on {len(base_data) / MB:.1f} MB) -> ratio {fast_rate / base_rate:.0f}x")
    print(f"  parse command tree: {t_parse:.3f} s = {parse_rate:.0f} MB/s of plaintext")
    print(f"  peak memory: decode {mem_decode:.2f}x plaintext; decode + parse {mem_both:.2f}x plaintext")


def tld_chain() -> None:
    from vmodtool.vassal.savefile import SavedGame

    files = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    if not files:
        return
    t_read = t_tree = float("inf")
    for _ in range(3):
        gc.collect()
        t0 = time.perf_counter()
        games = [SavedGame.read(f) for f in files]
        t1 = time.perf_counter()
        leaves = sum(len(g.top_level()) for g in games)
        t2 = time.perf_counter()
        t_read, t_tree = min(t_read, t1 - t0), min(t_tree, t2 - t1)
        plain = sum(g.decoded.plaintext_bytes for g in games)
        del games
    print(f"TLD chain: {len(files)} logs, {plain / MB:.1f} MB of plaintext, {leaves} top-level commands")
    print(f"  SavedGame.read of all: {t_read:.3f} s; command trees: {t_tree:.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=100, help="size of the synthetic save (encoded)")
    args = ap.parse_args()
    path, data = largest_corpus_save()
    if path is not None:
        report(f"largest corpus save: {path.relative_to(SHARED)}", data)
        sample = decode_saved_game(data).text
    else:
        print("(../shared/corpus not found: synthetic data only)")
        sample = "\x1b".join(f"+/{i}/piece;;;u{i}.png;Unit {i}/Main Map;{i};{i};{i};0" for i in range(5000))
    big = synthetic(args.size_mb, sample)
    report(f"synthetic !VCSK save ({args.size_mb} MB encoded)", big, baseline_prefix=8 * MB)
    tld_chain()


if __name__ == "__main__":
    main()
