"""The hostile-file reproducers of issue 13 (items 2 and 3) at full size:
exit code, time and the peak RSS of ``vmodtool`` refusing each.

Run: ``python benchmarks/bench_hostile.py [--gib 3] [--work DIR]`` (about a
minute: building the 3 GiB bombs is most of it; they are kept in ``--work``).

* a ``.vsav`` whose ``savedGame`` is ``!VOXZ`` + xz of 3 GiB of zeros (469 KB),
  the same as bare xz, as ``!VCSZ`` (hex of zlib; deflated, so that the zip
  ratio check stops it, and STORED, so that the decoder must), and as a
  predefined setup inside a ``.vmod`` read by ``vmodtool lint``;
* ``begin_save`` ESC + 5,000 ``'``, and 1,001 backslashes then ESC;
* the honest ``!VCSK`` case: peak memory of decoding a large real-looking
  save, as a multiple of its plaintext (tracemalloc).

Each command runs in a child under a 4 GiB address-space limit (what the
issue used); its own peak RSS comes from ``os.wait4``.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import resource
import subprocess
import sys
import time
import tracemalloc
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmodtool.vassal.archive import build_zip  # noqa: E402
from vmodtool.vassal.commands import ESC  # noqa: E402
from vmodtool.vassal.obfuscation import Encoding, decode_saved_game, encode_saved_game  # noqa: E402

MIB = 1024 * 1024
HEAD = b"begin_save" + ESC.encode()


def zeros(compressor: lzma.LZMACompressor | zlib._Compress, mib: int) -> bytes:
    block = bytes(MIB)
    parts = [compressor.compress(HEAD)] + [compressor.compress(block) for _ in range(mib)]
    parts.append(compressor.flush())
    return b"".join(parts)


def stored_zip(saved_game: bytes) -> bytes:
    """A save whose ``savedGame`` is STORED: no zip-level ratio to trip."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("savedGame", saved_game)
    return buf.getvalue()


def limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 * 1024 ** 3, 4 * 1024 ** 3))


def measured(args: list[str]) -> tuple[int, float, int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VMODTOOL_MAX_")}
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([sys.executable, "-m", "vmodtool", *args], stdout=null,
                                stderr=subprocess.PIPE, preexec_fn=limit, env=env)
        assert proc.stderr is not None
        err = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.perf_counter() - t0, usage.ru_maxrss * 1024, err.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=int, default=3, help="plaintext of the bombs (default 3 GiB)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/vmodtool-bench-hostile"))
    parser.add_argument("--honest-mib", type=int, default=100)
    args = parser.parse_args()
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    xz_path, z_path = work / f"zeros-{args.gib}g.xz", work / f"zeros-{args.gib}g.zlib"
    if not xz_path.exists():
        xz_path.write_bytes(zeros(lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0), args.gib * 1024))
    if not z_path.exists():
        z_path.write_bytes(zeros(zlib.compressobj(9), args.gib * 1024))
    xz, deflated = xz_path.read_bytes(), z_path.read_bytes()
    key = 0x5A
    table = bytes(i ^ key for i in range(256))
    files = {
        "voxz.vsav": build_zip({"savedGame": b"!VOXZ" + bytes([key]) + xz.translate(table)}),
        "bare.vlog": xz,
        "vcsz.vsav": build_zip({"savedGame": b"!VCSZ5a" + deflated.translate(table).hex().encode()}),
        "vcsz-stored.vsav": stored_zip(b"!VCSZ5a" + deflated.translate(table).hex().encode()),
        "quotes.vsav": build_zip({"savedGame": encode_saved_game("begin_save" + ESC + "'" * 5000, key=3)}),
        "backslashes.vsav": build_zip({"savedGame": encode_saved_game(
            "begin_save" + ESC + "\\" * 1001 + ESC, key=3)}),
    }
    demo = ROOT / "examples" / "formats" / "demo.vmod"
    with zipfile.ZipFile(demo) as src:
        entries = {n: src.read(n) for n in src.namelist()}
    entries["buildFile.xml"] = entries["buildFile.xml"].replace(
        b"</VASSAL.build.GameModule>",
        b'<VASSAL.build.module.PredefinedSetup file="start.vsav" isMenu="false" name="Start" '
        b'useFile="true"/></VASSAL.build.GameModule>')
    entries["start.vsav"] = files["voxz.vsav"]
    files["setup.vmod"] = build_zip(entries)
    print(f"bombs of {args.gib} GiB of zeros: xz {len(xz)} bytes ({args.gib * 1024 ** 3 / len(xz):.0f}:1), "
          f"zlib {len(deflated)} bytes ({args.gib * 1024 ** 3 / len(deflated):.0f}:1)")
    for name, data in files.items():
        path = work / name
        path.write_bytes(data)
        commands = [["lint", str(path)]] if name.endswith(".vmod") else [["inspect", str(path)], ["dump", str(path)]]
        for command in commands:
            code, seconds, rss, err = measured(command)
            first = err.splitlines()[0] if err else ""
            print(f"{command[0]:8s} {name:17s} {len(data):>9d} B  exit {code}  {seconds:5.2f} s  "
                  f"peak RSS {rss / MIB:6.1f} MiB  lines {len(err.splitlines())}")
            print(f"         {first[:220]}")
    # the honest case, scaled down: a VCSK save of real-looking commands
    line = "+/{0}/piece;;;inf.png;Inf {0}/Main Map;{0};100;1;0" + ESC
    text = "begin_save" + ESC + "".join(line.format(i) for i in range(args.honest_mib * MIB // 48))
    payload = encode_saved_game(text, Encoding.VCSK, key=11)
    size = len(text.encode("utf-8"))
    del text
    tracemalloc.start()
    t0 = time.perf_counter()
    decoded = decode_saved_game(io.BytesIO(payload), size=len(payload))
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert decoded.plaintext_bytes == size
    print(f"honest !VCSK: {size / MIB:.0f} MiB of text decoded in {seconds:.2f} s, "
          f"peak {peak / MIB:.0f} MiB = {peak / size:.2f} x the plaintext")


if __name__ == "__main__":
    main()
