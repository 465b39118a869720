"""The command line: output, exit codes, and that bad input never gives a
traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import rel_id, shared_files
from vmodtool.cli import cli, main
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.obfuscation import encode_saved_game
from vmodtool.vassal.sequence import encode_sequence

ESC = "\x1b"
LOG_TEXT = ESC.join([
    "begin_save", "",
    "\\" + ESC + "+/11/piece;;;inf.png;1-36 Inf/Main Map;100;100;1;0",
    "PLAYER\ttop-secret-pw\tАлиса\tNATO",
    "end_save",
    "LOG\tM/11/Main Map/200/100/null/Main Map/100/100/null/top-secret-pw",
    "LOG\tCHAT&lt;Алиса&gt; - Привет",
])


def run(args):
    """Run the real entry point; returns (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "vmodtool", *args], capture_output=True,
                          text=True, encoding="utf-8")
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def log_file(tmp_path):
    path = tmp_path / "game.vlog"
    path.write_bytes(build_zip({"savedGame": encode_saved_game(LOG_TEXT, key=7)}))
    return path


def test_inspect_log(log_file):
    result = CliRunner().invoke(cli, ["inspect", str(log_file)])
    assert result.exit_code == 0, result.output
    assert "log" in result.output
    assert "Алиса (NATO)" in result.output
    assert "steps: 2" in result.output
    assert "top-secret-pw" not in result.output


def test_inspect_json(log_file):
    result = CliRunner().invoke(cli, ["inspect", "--format", "json", str(log_file)])
    report = json.loads(result.output)
    assert report["kind"] == "log" and report["steps"] == 2
    assert report["pieces_at_start"]["pieces"] == 1
    assert "top-secret-pw" not in result.output


def test_inspect_counts_undo_steps_as_the_replay_does(tmp_path):
    # a bracketed undo (VASSAL 3.2+) and the two ways older versions logged
    # one: the exact reversal of the previous step, and a chat line again
    # behind "* UNDO: "
    steps = [
        "LOG\tM/11/Main Map/200/100/null/Main Map/100/100/null/top-secret-pw",
        "LOG\tM/11/Main Map/100/100/null/Main Map/200/100/null/top-secret-pw",
        "LOG\tCHAT&lt;Алиса&gt; - Привет",
        "LOG\tCHAT* UNDO: &lt;Алиса&gt; - Привет",
        "LOG\tM/11/Main Map/300/100/null/Main Map/100/100/null/top-secret-pw",
        encode_sequence(["LOG\tUNDO\ttrue",
                         "LOG\tM/11/Main Map/100/100/null/Main Map/300/100/null/top-secret-pw",
                         "LOG\tUNDO\tfalse"], ESC),
    ]
    text = LOG_TEXT[:LOG_TEXT.index("end_save")] + "end_save" + ESC + encode_sequence(steps, ESC)
    path = tmp_path / "undo.vlog"
    path.write_bytes(build_zip({"savedGame": encode_saved_game(text, key=7)}))
    from vmodtool.inspection import inspect_file
    from vmodtool.replay import Replay
    report = inspect_file(path)
    assert report["steps"] == 6
    assert report["undo_steps"] == sum(1 for s in Replay.open(path).steps() if s.undo) == 3
    result = CliRunner().invoke(cli, ["inspect", str(path)])
    assert "steps: 6 (3 undo)" in result.output


def test_dump_text_and_jsonl(log_file):
    result = CliRunner().invoke(cli, ["dump", str(log_file)])
    assert result.exit_code == 0
    assert "MovePiece" in result.output and "Привет" in result.output
    assert "top-secret-pw" not in result.output
    result = CliRunner().invoke(cli, ["dump", "--format", "jsonl", str(log_file)])
    records = [json.loads(line) for line in result.output.splitlines()]
    paths = [r["path"] for r in records]
    assert paths[0] == "root" and "2.1" in paths
    move = [r for r in records if r["kind"] == "Log" and r["logged"]["kind"] == "MovePiece"][0]
    assert move["logged"]["player"] == "Алиса"
    assert "top-secret-pw" not in result.output


@pytest.mark.parametrize("content, expect", [
    (b"PK\x03\x04garbage", "zip"),
    (b"!VCSK1z", "hex"),
    (b"\xff\xfe\xfd", "UTF-8"),
])
def test_bad_input_exit_2_one_line(tmp_path, content, expect):
    path = tmp_path / "bad.vsav"
    path.write_bytes(content)
    code, out, err = run(["inspect", str(path)])
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expect in lines[0]


def test_missing_file_is_usage_error(tmp_path):
    code, _, err = run(["inspect", str(tmp_path / "none.vlog")])
    assert code == 2 and "Traceback" not in err


def test_unsafe_zip(tmp_path):
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../etc/evil", b"x")
    path = tmp_path / "evil.vsav"
    path.write_bytes(buf.getvalue())
    code, _, err = run(["dump", str(path)])
    assert code == 2 and "../../etc/evil" in err and "Traceback" not in err


def test_xxe_buildfile(tmp_path):
    path = tmp_path / "buildFile.xml"
    path.write_text('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                    '<VASSAL.build.GameModule name="&x;"/>', encoding="utf-8")
    code, out, err = run(["inspect", str(path)])
    assert code == 2 and "root:" not in out + err and "Traceback" not in err


def test_version_and_help():
    code, out, _ = run(["--version"])
    assert code == 0 and "vmodtool" in out
    code, out, _ = run(["--help"])
    assert code == 0 and "inspect" in out and "dump" in out


CORPUS = [p for p in shared_files("corpus", "**/*") if p.name not in ("MANIFEST.tsv",)
          and p.suffix != ".json"]


@pytest.mark.corpus
@pytest.mark.parametrize("path", CORPUS, ids=[rel_id(p) for p in CORPUS])
def test_inspect_and_dump_every_corpus_file(path, capsys):
    for args in (["inspect", str(path)], ["inspect", "--format", "json", str(path)],
                 ["dump", "--format", "jsonl", str(path)]):
        with pytest.raises(SystemExit) as info:
            main(args)
        out, err = capsys.readouterr()
        assert info.value.code == 0, err
        assert out


def test_board_sizes_nested_past_the_json_reader_are_a_located_error(tmp_path):
    """--board-sizes is read as untrusted text: JSON nested past Python's
    recursion limit is exit 2 naming the file (it was exit 70)."""
    sizes = tmp_path / "sizes.json"
    sizes.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    demo = Path(__file__).resolve().parents[1] / "examples" / "formats" / "demo.vlog"
    result = CliRunner().invoke(cli, ["replay", str(demo), "--board-sizes", str(sizes)])
    assert result.exit_code == 2 and "sizes.json" in result.output and "nested deeper" in result.output, \
        result.output
