"""A time-bounded fuzz run of the image readers of ``vmodtool slice``: the
sheet reader (:func:`vmodtool.render.slicing.read_sheet_image`: PNG, JPEG,
and its own reader of PDF page images, Flate with and without the PNG
predictor, or DCT) and the image helper under it
(:func:`vmodtool.images.load_image`).

Seeds are small valid files made here (RGB, RGBA, grey, 1-bit and palette
PNGs, a JPEG, PDFs of one page image); mutations flip, insert, delete and
truncate bytes, rewrite a PNG's IHDR size (with a correct CRC) or a PDF
image's ``/Width``/``/Height``/``/Predictor``/``/ColorSpace`` with hostile
numbers (0, 1, 2^31-1, 2^32-1, 13000, 50000 …).  Anything but a
``VmodError`` is a finding; so is one read slower than ``--slow`` seconds.
The process runs under an address-space limit of 1 GiB, so that a read
that does not respect the decode budget is a ``MemoryError`` finding.

Run from the repository root (bounded: ``--minutes``, default 3)::

    python benchmarks/fuzz_images.py --minutes 3 [--seed 1] [--out findings/]

It prints executions, executions per second, how many inputs were refused,
the slowest read, the peak memory, and each distinct finding.  Exit status
1 when there is a finding.
"""

from __future__ import annotations

import io
import random
import re
import resource
import struct
import sys
import tempfile
import time
import traceback
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from benchmarks.fuzzing import fuzz_arguments, limit_address_space  # noqa: E402
from vmodtool.errors import VmodError  # noqa: E402
from vmodtool.images import load_image  # noqa: E402
from vmodtool.render.slicing import read_sheet_image  # noqa: E402

MEMORY_LIMIT = 1024 ** 3       # bytes of address space for the whole run
HOSTILE_SIZES = (0, 1, 2, 255, 256, 9990, 12000, 13000, 50000, 65535, 65536, 2 ** 31 - 1, 2 ** 32 - 1)


def _png(mode: str, size: tuple[int, int] = (40, 30)) -> bytes:
    image = Image.new(mode, size)
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


def _pdf(dictionary: bytes, stream: bytes) -> bytes:
    return (b"%PDF-1.4\n1 0 obj\n<< /Type /XObject /Subtype /Image " + dictionary + b" /Length "
            + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream\nendobj\n%%EOF\n")


def seeds() -> dict[str, bytes]:
    """Small valid inputs of every kind the sheet reader takes."""
    out = {f"png-{mode}": _png(mode) for mode in ("RGB", "RGBA", "L", "1", "P", "LA")}
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(buf, "JPEG")
    out["jpeg"] = buf.getvalue()
    w, h = 16, 12
    out["pdf-flate"] = _pdf(f"/Width {w} /Height {h} /BitsPerComponent 8 /ColorSpace /DeviceRGB "
                            "/Filter /FlateDecode".encode(), zlib.compress(bytes(3 * w * h)))
    out["pdf-predictor"] = _pdf(f"/Width {w} /Height {h} /BitsPerComponent 8 /ColorSpace /DeviceGray "
                                f"/Filter /FlateDecode /DecodeParms << /Predictor 15 /Columns {w} >>".encode(),
                                zlib.compress(bytes(1 + w) * h))
    out["pdf-dct"] = _pdf(b"/Width 40 /Height 30 /BitsPerComponent 8 /ColorSpace /DeviceRGB "
                          b"/Filter /DCTDecode", out["jpeg"])
    return out


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """``data`` with 1–3 random mutations, and their names."""
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["flip", "insert", "delete", "truncate", "size", "size", "pdf-number", "pdf-number"])
        where = rng.randrange(max(1, len(data)))
        if kind == "flip" and data:
            data = data[:where] + bytes([data[where] ^ (1 << rng.randrange(8))]) + data[where + 1:]
        elif kind == "insert":
            data = data[:where] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[where:]
        elif kind == "delete":
            data = data[:where] + data[where + rng.randint(1, 64):]
        elif kind == "truncate":
            data = data[:where]
        elif kind == "size" and data.startswith(b"\x89PNG") and len(data) >= 33:
            width, height = rng.choice(HOSTILE_SIZES), rng.choice(HOSTILE_SIZES)
            ihdr = struct.pack(">II", width, height) + data[24:29]
            data = data[:8] + _chunk(b"IHDR", ihdr) + data[33:]
            kind = f"size {width}x{height}"
        elif kind == "pdf-number" and data.startswith(b"%PDF"):
            key = rng.choice([b"Width", b"Height", b"Predictor", b"BitsPerComponent", b"Columns"])
            value = str(rng.choice(HOSTILE_SIZES)).encode()
            data = re.sub(rb"/" + key + rb"\s+\d+", b"/" + key + b" " + value, data, count=1)
            kind = f"/{key.decode()} {value.decode()}"
        else:
            continue
        done.append(kind)
    return data, done


def main() -> int:
    args = fuzz_arguments(__doc__ or "", 5.0, "read").parse_args()
    limit_address_space(MEMORY_LIMIT)
    rng = random.Random(args.seed)
    inputs = seeds()
    names = sorted(inputs)
    findings: dict[tuple[str, str], tuple[str, list[str], str, bytes]] = {}
    executions = refused = 0
    slowest = (0.0, "")
    deadline = time.monotonic() + 60 * args.minutes
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sheet"
        while time.monotonic() < deadline:
            name = rng.choice(names)
            data, ops = mutate(inputs[name], rng)
            path.write_bytes(data)
            start = time.monotonic()
            try:
                if rng.random() < 0.5:
                    read_sheet_image(path)
                else:
                    load_image(data, file=name, mode="RGBA")
            except VmodError:
                refused += 1
            except (Exception, RecursionError) as exc:  # noqa: BLE001 - a fuzzer records whatever escapes
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                key = (type(exc).__name__, f"{Path(frame.filename).name}:{frame.lineno}")
                if key not in findings:
                    findings[key] = (name, ops, f"{type(exc).__name__}: {str(exc)[:200]}", data)
            took = time.monotonic() - start
            if took > slowest[0]:
                slowest = (took, f"{name} {ops!r}")
            if took > args.slow:
                findings.setdefault(("slow", f"{took:.1f}s"), (name, ops, f"one read took {took:.1f} s", data))
            executions += 1
    elapsed = 60 * args.minutes
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"executions: {executions} in {elapsed:.0f} s ({executions / elapsed:.1f}/s); "
          f"refused (one-line VmodError): {refused}; findings: {len(findings)}")
    print(f"slowest read: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"peak memory of the run: {peak_mb:.0f} MB (address space limited to {MEMORY_LIMIT // 1024 ** 2} MB)")
    for i, ((kind, where), (name, ops, message, content)) in enumerate(sorted(findings.items())):
        print(f"finding {i + 1}: {kind} at {where}: {message}\n  input: {name} with {ops!r}"[:1000])
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"finding-{i + 1}.bin").write_bytes(content)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
