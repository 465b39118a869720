"""Hostile files, the output side (issue 13, items 5 and 6): outputs only
replace regular files; what a file says never reaches the terminal raw;
every error is one line; a huge image is refused from its header; and no
file content makes the CLI exit 70 (a bug)."""

from __future__ import annotations

import json
import os
import random
import re
import resource
import socket
import stat
import struct
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.cli import cli, main
from vmodtool.errors import FormatError, VmodError
from vmodtool.fileio import atomic_write, check_output_target, output_kind, refuse_overwrite
from vmodtool.images import DECODE_BUDGET, image_size
from vmodtool.render.board import image_header, read_image
from vmodtool.textsafe import escape_controls, escape_report
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.obfuscation import encode_saved_game

REPO = Path(__file__).resolve().parents[1]
FORMATS = REPO / "examples" / "formats"
DEMO_LOG = FORMATS / "demo.vlog"
DEMO_MODULE = FORMATS / "demo.vmod"
ESC = "\x1b"
#: what must never reach a terminal raw: C0 but tab and newline, DEL, C1, bidi, line separators
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def invoke(args):
    """(exit code, stdout, stderr) of ``vmodtool ARGS`` in this process."""
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="vmodtool")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def one_error_line(err: str) -> str:
    """The one ``vmodtool: error:`` line that is all of ``err``."""
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n") and lines[0].startswith("vmodtool: error: "), err
    return lines[0]


# --------------------------------------------------------------------------
# 5. outputs onto special files

@pytest.fixture
def specials(tmp_path):
    """A FIFO, a socket, a folder, a symbolic link to a regular file and a
    dangling one, each named like a report (and a character device when
    the tests run as root: a copy of /dev/null's node, in tmp_path)."""
    made = {}
    made["fifo"] = tmp_path / "fifo.txt"
    os.mkfifo(made["fifo"])
    made["socket"] = tmp_path / "sock.txt"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(made["socket"]))
    made["folder"] = tmp_path / "folder.txt"
    made["folder"].mkdir()
    real = tmp_path / "real.txt"
    real.write_text("keep me\n")
    made["symlink"] = tmp_path / "link.txt"
    made["symlink"].symlink_to(real)
    made["dangling"] = tmp_path / "dangling.txt"
    made["dangling"].symlink_to(tmp_path / "nowhere.txt")
    if os.geteuid() == 0:
        made["device"] = tmp_path / "null.txt"
        os.mknod(made["device"], stat.S_IFCHR | 0o666, os.makedev(1, 3))
    yield made
    sock.close()


KIND_WORDS = {"fifo": "named pipe", "socket": "socket", "folder": "folder", "symlink": "symbolic link",
              "dangling": "symbolic link", "device": "character device"}


def _mode(path: Path) -> int:
    return os.lstat(path).st_mode


def test_output_kind_names_what_is_there(specials, tmp_path):
    assert output_kind(tmp_path / "new.txt") is None
    assert output_kind(tmp_path / "real.txt") is None
    for key, path in specials.items():
        assert KIND_WORDS[key] in (output_kind(path) or ""), key
    assert output_kind("/dev/null") == "a character device"       # looked at, never written
    with pytest.raises(VmodError, match="/dev/null: .*character device"):
        check_output_target("/dev/null")


def test_atomic_write_replaces_only_regular_files(specials, tmp_path):
    before = {key: _mode(path) for key, path in specials.items()}
    for key, path in specials.items():
        with pytest.raises(VmodError) as info:
            atomic_write(path, b"data\n")
        message = str(info.value)
        assert "\n" not in message and message.startswith(f"{path}: ") and KIND_WORDS[key] in message
        assert _mode(path) == before[key], key                    # still what it was
    assert (tmp_path / "real.txt").read_text() == "keep me\n"     # never written through the link
    assert "real.txt" in str(pytest.raises(VmodError, atomic_write, specials["symlink"], b"").value)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    atomic_write(tmp_path / "real.txt", b"new\n")                 # a regular file is replaced
    assert (tmp_path / "real.txt").read_bytes() == b"new\n"


def test_refuse_overwrite_checks_the_kind_before_any_work(specials, tmp_path):
    with pytest.raises(VmodError, match="named pipe"):
        refuse_overwrite(specials["fifo"], tmp_path / "input.vlog")


def test_the_temporary_file_is_exclusive_in_the_target_folder_and_removed_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out" / "report.txt"
    target.parent.mkdir()
    target.write_bytes(b"old\n")
    flags_seen = []
    real_open = os.open

    def spy_open(path, flags, *args, **kwargs):
        flags_seen.append((Path(path).parent, flags))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy_open)

    def chunks():
        temps = [p for p in target.parent.iterdir() if p.name.startswith(".report.txt.")]
        assert len(temps) == 1 and temps[0].name.endswith(".tmp")
        yield b"half"
        raise VmodError("made up failure while the data is made", file="input.vlog")

    with pytest.raises(VmodError, match="made up failure"):
        atomic_write(target, chunks())
    folder, flags = flags_seen[0]
    assert folder == target.parent and flags & os.O_CREAT and flags & os.O_EXCL
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.txt"]
    assert target.read_bytes() == b"old\n"


def test_an_output_made_special_while_writing_is_still_refused(tmp_path):
    target = tmp_path / "report.txt"

    def chunks():
        yield b"first"
        os.mkfifo(target)                   # someone puts a FIFO there meanwhile
        yield b"second"

    with pytest.raises(VmodError, match="named pipe"):
        atomic_write(target, chunks())
    assert stat.S_ISFIFO(_mode(target))
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_file_system_error_is_bad_input_not_a_bug(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root may write into a read-only folder")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(VmodError, match="cannot write the output"):
            atomic_write(folder / "x.txt", b"x")
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("key", ["fifo", "socket", "folder", "symlink", "device"])
def test_cli_refuses_a_special_output_with_exit_2(specials, key):
    if key not in specials:
        pytest.skip("a character device can only be made by root")
    path = specials[key]
    before = _mode(path)
    code, out, err = invoke(["inspect", DEMO_LOG, "-o", path])
    if key == "folder":                             # Click's own check (-o is a file option)
        assert code == 2 and "is a directory" in err and path.is_dir()
        return
    line = one_error_line(err)
    assert code == 2 and str(path) in line and KIND_WORDS[key] in line
    assert _mode(path) == before
    if key in ("fifo", "socket", "device"):
        assert "-o -" in line                       # the way to say stdout


@pytest.mark.parametrize("args", [["board", REPO / "examples/modern-tactical/scenario.yaml", "-o", "{}"],
                                  ["counters", REPO / "examples/modern-tactical/scenario.yaml", "-o", "{}"]])
def test_image_outputs_refuse_special_files_before_any_work(specials, args):
    fifo = specials["fifo"]
    link = fifo.with_name("board.png")
    link.symlink_to(fifo)
    target = fifo if args[0] == "counters" else link
    code, _, err = invoke([target if a == "{}" else a for a in args])
    line = one_error_line(err)
    assert code == 2 and str(target) in line
    assert stat.S_ISFIFO(_mode(fifo))


def test_dash_is_stdout_for_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke(["inspect", DEMO_LOG, "-o", "-"])
    assert code == 0 and err == "" and out.startswith(f"{DEMO_LOG}: log\n")
    assert list(tmp_path.iterdir()) == []           # no file named "-"
    _, plain, _ = invoke(["inspect", DEMO_LOG])
    assert out == plain


# --------------------------------------------------------------------------
# 6. control characters from a log's chat, and one-line errors

HOSTILE_CHAT = "bell\x07 return\r over \x9b31m red \u202eevil\u2066 Привет\nforged line\x7f"


@pytest.fixture
def chat_log(tmp_path):
    text = ESC.join(["begin_save", "", "PLAYER\tsecret-pw\tАл\x07иса\r\tNATO", "end_save",
                     f"LOG\tCHAT&lt;Алиса&gt; - {HOSTILE_CHAT}"])
    path = tmp_path / "chat.vlog"
    path.write_bytes(build_zip({"savedGame": encode_saved_game(text, key=7)}))
    return path


def test_escape_controls_is_visible_and_leaves_printable_text():
    assert escape_controls("a\x07b\r\nc\td") == "a\\x07b\\r\\nc\\td"
    assert escape_controls("\x9b\x7f\u202e\u2069\u2028") == "\\u009b\\u007f\\u202e\\u2069\\u2028"
    text = "Привет, Ünïcode — ✓ 東京 \\x07"
    assert escape_controls(text) is text
    assert escape_report("a\tb\nc\x1b[0m") == "a\tb\nc\\x1b[0m"
    raw = {"chat": HOSTILE_CHAT}
    assert json.loads(escape_report(json.dumps(raw, ensure_ascii=False))) == raw


@pytest.mark.parametrize("args", [["dump"], ["replay"], ["inspect"]])
def test_chat_and_names_reach_the_terminal_escaped(chat_log, args):
    code, out, err = invoke([*args, chat_log])
    assert code == 0, err
    assert not RAW_CONTROL.search(out + err)
    assert "forged line" not in {line.strip() for line in out.splitlines()}
    assert "Алиса" in out or "Ал\\x07иса" in out                 # Cyrillic stays readable
    if args != ["inspect"]:
        assert "bell\\x07 return\\r over \\u009b31m red \\u202eevil\\u2066 Привет\\nforged line" in out
    assert "secret-pw" not in out


@pytest.mark.parametrize("command", ["lint", "inspect", "dump"])
def test_a_newline_in_a_module_name_cannot_forge_a_report_line(tmp_path, command):
    text = (FORMATS / "demo-module" / "buildFile.xml").read_text(encoding="utf-8")
    assert 'mapName="Main Map"' in text and 'entryName="Units"' in text
    hostile = (text.replace('mapName="Main Map"', 'mapName="Main&#10;FORGED&#13;&#x9b;Map"')
               .replace('entryName="Units"', 'entryName="Main&#10;FORGED&#13;&#x9b;Map"'))
    path = tmp_path / "buildFile.xml"
    path.write_text(hostile, encoding="utf-8")
    code, out, err = invoke([command, path])
    assert code in (0, 1), err
    assert not RAW_CONTROL.search(out)
    forged = [line for line in out.splitlines() if "FORGED" in line]
    assert forged and all("Main\\nFORGED\\r\\u009bMap" in line for line in forged)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("args", [["dump", "--format", "jsonl"], ["replay", "--format", "jsonl"],
                                  ["inspect", "--format", "json"]])
def test_json_output_escapes_c1_and_bidi_but_keeps_the_text(chat_log, tmp_path, args):
    code, out, _ = invoke([*args, chat_log])
    assert code == 0
    assert not RAW_CONTROL.search(out)
    records = [json.loads(out)] if args[0] == "inspect" else [json.loads(line) for line in out.splitlines()]
    texts = [t for rec in records for t in _strings(rec)]
    if args[0] == "inspect":                        # the player's name, exactly as the log has it
        assert "Ал\x07иса\r" not in out and "Ал\\u0007иса\\r" in out and "Ал\x07иса\r" in texts
    else:                                           # the chat, exactly; Cyrillic unescaped
        assert "\\u009b31m red \\u202eevil\\u2066 Привет" in out
        assert any(HOSTILE_CHAT in t for t in texts)
    assert "secret-pw" not in out
    written = tmp_path / "out.json"
    assert invoke([*args, chat_log, "-o", written])[0] == 0
    assert written.read_text(encoding="utf-8") == out            # the same in a file


def test_a_libxml2_message_with_a_newline_is_one_line(tmp_path):
    build = tmp_path / "buildFile.xml"
    build.write_bytes(b'<VASSAL.build.GameModule name="x"><![CDATA[never\nclosed\x07\n'
                      + b"more\n" * 50 + b"</VASSAL.build.GameModule>")
    code, _, err = invoke(["inspect", build])
    line = one_error_line(err)
    assert code == 2 and re.search(rf"{re.escape(str(build))}: line \d+, column \d+: malformed XML: CData", line)
    assert not RAW_CONTROL.search(err)


def test_every_vmod_error_is_one_line():
    err = FormatError("libxml2 says:\nsecond line\r\x1b[2Jcleared\n", file="a\nb.xml", place="line\n3")
    assert str(err) == "a\\nb.xml: line\\n3: libxml2 says:\\nsecond line\\r\\x1b[2Jcleared"
    assert "\n" not in str(err.located(place="entry\nx"))


def test_scenario_problems_stay_one_per_line(tmp_path):
    bad = tmp_path / "scenario.yaml"
    # two keys with control characters: each is one problem on one line (the key is refused, not echoed raw)
    bad.write_text('schema: 1\n"bo\\x07gus\\nx\\u202e": 1\n"se\\x1bcond": 2\n', encoding="utf-8")
    code, _, err = invoke(["board", bad, "-o", tmp_path / "board.png"])
    assert code == 2 and not RAW_CONTROL.search(err)
    lines = err.splitlines()
    assert len(lines) >= 3 and all(line.startswith(f"{bad}:") for line in lines[:-1])
    assert [line.split(":")[1:3] for line in lines[:-1]] == [["2", "1"], ["3", "1"]]   # each located by line:col
    assert lines[-1] == f"vmodtool: error: {bad}: {len(lines) - 1} errors in the scenario (listed above)"


# --------------------------------------------------------------------------
# 6. a huge image given to grid-check: refused from its header

def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _bilevel_png(width: int, height: int, extra: bytes = b"") -> bytes:
    """A valid black 1-bit PNG: 12000×12000 pixels are a 17 KB file (the
    compression ratio of a decompression bomb) that decodes to 144 MB."""
    row = b"\x00" + bytes((width + 7) // 8)
    data = zlib.compress(row * height, 9)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + extra + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def bomb_png(tmp_path_factory):
    path = tmp_path_factory.mktemp("bomb") / "scan.png"
    path.write_bytes(_bilevel_png(12000, 12000))
    return path


def _grid_check_limited(args, limit_mb=256):
    """grid-check in a child process whose address space is capped: decoding
    the 144-megapixel image (144 MB as 1-bit pixels, and a copy) cannot fit."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_AS caps the address space on Linux only")

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}
    proc = subprocess.run([sys.executable, "-m", "vmodtool", "grid-check", *map(str, args)],
                          capture_output=True, text=True, encoding="utf-8", preexec_fn=cap, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def test_grid_check_reports_a_missing_option_before_reading_the_image(bomb_png):
    code, _, err = _grid_check_limited([bomb_png])
    line = one_error_line(err)
    assert code == 2 and "--hex-height" in line
    assert not bomb_png.with_name("scan-grid.png").exists()


def test_grid_check_refuses_an_image_past_the_pixel_limit_from_its_header(bomb_png):
    code, _, err = _grid_check_limited([bomb_png, "--hex-height", "64"])
    line = one_error_line(err)
    assert code == 2 and f"{bomb_png}: image header: " in line and "12000x12000" in line
    assert f"{DECODE_BUDGET:,} bytes" in line and "Warning" not in err
    code, _, err = _grid_check_limited([bomb_png, "--vassal", "dx=64", "--vassal", "dy=75"])
    assert code == 2 and "image header" in one_error_line(err)


def test_an_image_under_the_limit_is_read_without_pillow_warnings_leaking(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(_bilevel_png(9500, 9500))           # past Pillow's warning threshold, under ours
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # any warning escaping would raise here
        assert image_size(path) == (9500, 9500)          # 90 MB as 1-bit pixels (a byte each)
        with pytest.raises(VmodError, match="9500x9500 pixels of mode 1, 451,250,000 bytes decoded as RGB"):
            image_header(path)                           # grid-check draws it over an RGB copy


def test_pillow_warnings_become_located_warnings_or_errors(tmp_path):
    path = tmp_path / "odd.png"
    bad_actl = _chunk(b"acTL", struct.pack(">II", 0, 0))  # "Invalid APNG": Pillow warns
    path.write_bytes(_bilevel_png(40, 30, extra=bad_actl))
    seen: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_image(path, warn=seen.append).size == (40, 30)
    assert seen == [f"{path}: the image: Invalid APNG, will use default PNG image if possible"]
    with pytest.raises(VmodError, match=r"odd\.png: cannot read the image: it looks damaged: Invalid APNG"):
        read_image(path)
    code, _, err = invoke(["grid-check", path, "--hex-height", "10", "--columns", "2", "--rows", "2",
                           "-o", tmp_path / "o.png"])
    assert code in (0, 1) and f"warning: {path}: the image: Invalid APNG" in err
    assert "UserWarning" not in err


def test_the_overlay_is_composited_in_bands_exactly_as_whole(tmp_path, monkeypatch):
    import numpy as np
    from PIL import Image

    from vmodtool.render import board_canvas
    from vmodtool.render.board import grid_from_options, overlay_grid, write_grid_overlay

    rng = np.random.default_rng(13)
    scan = Image.fromarray(rng.integers(0, 256, (300, 420, 4), dtype=np.uint8), "RGBA")
    grid = grid_from_options(hex_height=40, columns=10, rows=7)
    whole = np.asarray(overlay_grid(scan, grid).convert("RGB"))
    monkeypatch.setattr(board_canvas, "BAND_PIXELS", 420 * 9 * 37)     # eight bands of 37 rows
    write_grid_overlay(scan, grid, tmp_path / "o.png")
    assert np.array_equal(np.asarray(Image.open(tmp_path / "o.png").convert("RGB")), whole)


@pytest.mark.parametrize(("args", "expect"), [
    (["--hex-height", "nan"], "not a hex size"), (["--hex-height", "1e9"], "not a hex size"),
    (["--hex-width", "-3", "--hex-height", "10"], "not a hex size"), (["--columns", "100000"], "--columns"),
    (["--vassal", "dx=1e-9", "--vassal", "dy=1e-9"], "--vassal: HexGrid dx=1.0E-9 cannot be used"),
    (["--vassal", "dx=64", "--vassal", "dy=1e12"], "--vassal: HexGrid dy=1.0E12 cannot be used"),
    (["--vassal", "dx=64", "--vassal", "dy=1e5"], "hex spacing"),
    (["--vassal", "dx=1", "--vassal", "dy=1"], "more than the 250,000 grid-check draws")])
def test_grid_check_bounds_the_drawing_before_it_starts(tmp_path, args, expect):
    path = tmp_path / "scan.png"
    path.write_bytes(_bilevel_png(800, 600))
    code, _, err = invoke(["grid-check", path, *args, "-o", tmp_path / "o.png"])
    assert code == 2 and expect in err and not (tmp_path / "o.png").exists()


def test_a_truncated_image_is_one_located_line(tmp_path):
    path = tmp_path / "cut.png"
    path.write_bytes(_bilevel_png(400, 300)[:60])
    code, _, err = invoke(["grid-check", path, "--hex-height", "10"])
    line = one_error_line(err)
    assert code == 2 and f"{path}: image data: cannot read the image" in line


# --------------------------------------------------------------------------
# exit 70 is unreachable from a file's content

def _with_entry(zip_data: bytes, name: str, data: bytes) -> bytes:
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(zip_data)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    files[name] = data
    return build_zip(files)


def _mangled_inputs() -> list[tuple[str, bytes]]:
    rng = random.Random(13)
    log, module = DEMO_LOG.read_bytes(), DEMO_MODULE.read_bytes()
    build = (FORMATS / "demo-module" / "buildFile.xml").read_bytes()
    cases = [("empty.vlog", b""), ("random.vlog", rng.randbytes(3000)), ("random.vmod", rng.randbytes(3000)),
             ("png.vlog", _bilevel_png(8, 8)), ("module-as-log.vlog", module), ("log-as-module.vmod", log),
             ("zip-of-junk.vlog", build_zip({"savedGame": rng.randbytes(500)})),
             ("zip-of-nothing.vmod", build_zip({"readme.txt": b"hello"})),
             ("bare-garbage.vsav", b"!VCSK" + rng.randbytes(200)),
             ("big-board.vmod", _with_entry(module, "images/board.png", _bilevel_png(9500, 9500)))]
    for name, data in (("log.vlog", log), ("module.vmod", module), ("buildFile.xml", build)):
        for cut in (0.1, 0.5, 0.9, 0.99):
            cases.append((f"cut{cut}-{name}", data[:int(len(data) * cut)]))
        for n in range(4):
            buf = bytearray(data)
            for _ in range(1 + n * 3):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
            cases.append((f"flip{n}-{name}", bytes(buf)))
    return cases


MANGLED = _mangled_inputs()


@pytest.mark.parametrize(("name", "data"), MANGLED, ids=[n for n, _ in MANGLED])
def test_no_file_content_is_a_bug(name, data, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(data)
    commands = [["inspect", path], ["dump", path], ["lint", path], ["replay", path],
                ["replay", DEMO_LOG, "-m", path]]
    for args in commands:
        with warnings.catch_warnings(record=True) as caught, pytest.raises(SystemExit) as info:
            warnings.simplefilter("always")
            main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert info.value.code in (0, 1, 2), (args, err)
        assert not RAW_CONTROL.search(out + err), args
        # Python would print these raw (ResourceWarning it hides by default)
        assert [str(w.message) for w in caught if w.category is not ResourceWarning] == [], args
        if info.value.code == 2:
            assert err.count("vmodtool: error: ") == 1 and err.splitlines()[-1].startswith("vmodtool: error: ")
            assert all(line.startswith("warning: ") for line in err.splitlines()[:-1]), err
