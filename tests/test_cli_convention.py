"""One convention for every command: option spellings, help with examples,
short help that fits, the overwrite policy, output extensions, file kinds
named in errors, warnings on stderr and reports to -o."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from PIL import Image

from vmodtool.cli import all_commands, cli, main
from vmodtool.commands import Command, write_report
from vmodtool.errors import VmodError
from vmodtool.fileio import sniff
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.obfuscation import encode_saved_game

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
DEMO_LOG = EXAMPLES / "formats" / "demo.vlog"
DEMO_MODULE = EXAMPLES / "formats" / "demo.vmod"
SCENARIO = EXAMPLES / "modern-tactical" / "scenario.yaml"
COMMANDS = sorted(all_commands().items())
COMMANDS_BY_NAME = dict(COMMANDS)
ESC = "\x1b"


def invoke(args, **kwargs):
    """(exit code, stdout, stderr) of ``vmodtool ARGS``, stdout and stderr apart."""
    try:
        runner = CliRunner(mix_stderr=False)          # Click 8.1
    except TypeError:
        runner = CliRunner()                          # Click 8.2+: always apart
    result = runner.invoke(cli, [str(a) for a in args], prog_name="vmodtool", **kwargs)
    return result.exit_code, result.stdout, result.stderr


def options(command: click.Command):
    return [p for p in command.params if isinstance(p, click.Option)]


# -- help ----------------------------------------------------------------------

@pytest.mark.parametrize("name, command", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_every_option_has_help(name, command):
    assert isinstance(command, Command), f"{name} is not a vmodtool Command (its errors are not mapped)"
    missing = [p.opts for p in options(command) if not p.hidden and not (p.help or "").strip()]
    assert not missing, f"vmodtool {name}: options without help: {missing}"
    code, out, _ = invoke([name, "-h"])
    assert code == 0 and out.startswith(f"Usage: vmodtool {name} ")


def _examples(command: click.Command) -> list[str]:
    """The invocations of the help's last paragraph, an ``Examples:`` block
    kept as written (``\\b``)."""
    paragraphs = (command.help or "").strip().split("\n\n")
    last = paragraphs[-1].strip().splitlines()
    assert last[0].strip() == "\b" and last[1].strip() == "Examples:", \
        "the help must end with a \\b paragraph 'Examples:'"
    return [line.strip() for line in last[2:]]


@pytest.mark.parametrize("name, command", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_every_help_ends_with_examples_that_parse(name, command):
    examples = _examples(command)
    assert 1 <= len(examples) <= 2
    for example in examples:
        words = shlex.split(example)
        assert words[:2] == ["vmodtool", name], example
        _parse_example(command, name, words[2:])
    rendered = invoke([name, "--help"])[1]
    assert "Examples:\n" in rendered and examples[0] in rendered


def _parse_example(command: click.Command, name: str, args: list[str]) -> None:
    """Every option of an example exists and takes what it is given (the
    files it names need not exist here, so paths are not checked)."""
    ctx = click.Context(command, info_name=name)
    values, extra, _ = command.make_parser(ctx).parse_args(args)
    for param in command.params:
        if param.name in values and not isinstance(param.type, click.Path):
            param.type_cast_value(ctx, values[param.name])
    missing = [p.name for p in command.params if isinstance(p, click.Argument) and p.required
               and not values.get(p.name)]
    assert not missing and not extra, f"{name}: example without {missing} or with extra {extra}"


def test_a_wrong_example_would_fail():
    """The parse in the test above is a real check."""
    build, sheets = COMMANDS_BY_NAME["build"], COMMANDS_BY_NAME["sheets"]
    with pytest.raises(click.NoSuchOption):
        _parse_example(build, "build", ["s.yaml", "--out", "x.vmod"])
    with pytest.raises(click.BadParameter):
        _parse_example(sheets, "sheets", ["s.yaml", "-o", "x.pdf", "--paper", "a3"])
    with pytest.raises(click.BadParameter):
        _parse_example(build, "build", ["s.yaml", "-o", "x.vmod", "-j", "-1"])


def test_short_help_fits_the_listing():
    code, out, _ = invoke(["--help"], terminal_width=80)
    assert code == 0
    listing = out.split("Commands:\n", 1)[1].splitlines()
    assert len(listing) == len(COMMANDS)
    for line in listing:
        assert not line.rstrip().endswith("..."), f"short help cut: {line!r}"
        assert line.rstrip().endswith("."), line
    for name, command in COMMANDS:
        first = (command.help or "").strip().splitlines()[0]
        assert first.endswith(".") and len(first) <= 58, f"{name}: first line {first!r}"


# -- spellings -------------------------------------------------------------------

SPELLINGS = {"output": ["-o", "--output"], "module": ["-m", "--module"], "jobs": ["-j", "--jobs"],
             "fmt": ["--format"], "dpi": ["--dpi"], "quiet": ["-q", "--quiet"],
             "board_size": ["--board-size"], "board_sizes_file": ["--board-sizes"]}


def test_shared_options_are_spelt_the_same_everywhere():
    seen: dict[str, list[str]] = {}
    jobs_helps, jobs_ranges = set(), set()
    for name, command in COMMANDS:
        for opt in options(command):
            for short, dest in (("-o", "output"), ("-m", "module"), ("-j", "jobs"), ("-q", "quiet")):
                if short in opt.opts or f"--{dest}" in opt.opts:
                    assert opt.name == dest, f"{name}: {opt.opts} is stored as {opt.name}"
            assert "--out" not in opt.opts, f"{name}: --out is spelt --output"
            if opt.name in SPELLINGS:
                assert opt.opts == SPELLINGS[opt.name], f"vmodtool {name}: {opt.opts}"
                seen.setdefault(opt.name, []).append(name)
            if opt.name == "output":
                assert "replaced" in opt.help, f"{name}: -o help does not state the overwrite policy"
            if opt.name == "jobs":
                jobs_helps.add(opt.help)
                jobs_ranges.add((opt.type.min, opt.type.max, opt.default))
                assert "0 = all cores" in opt.help
            if opt.name == "fmt":
                assert set(opt.type.choices) <= {"text", "json", "jsonl"} and opt.default == "text"
            if opt.name == "dpi":
                assert isinstance(opt.type, click.types.IntParamType), f"{name}: --dpi {opt.type}"
    assert len(jobs_helps) == 1 and jobs_ranges == {(0, 256, 0)}
    assert set(seen["output"]) >= {"build", "board", "counters", "sheets", "grid-check", "inspect",
                                   "dump", "lint", "replay", "audit", "check-scenario", "schema"}
    assert set(seen["module"]) >= {"replay", "audit", "check-scenario"}
    assert set(seen["jobs"]) == {"build", "counters", "sheets", "batch"}
    assert set(seen["dpi"]) == {"board", "counters", "sheets"}


def test_dpi_choices_are_checked_as_numbers(tmp_path):
    code, _, err = invoke(["sheets", SCENARIO, "-o", tmp_path / "s.pdf", "--dpi", "450"])
    assert code == 2 and "450 is not one of 300, 600" in err
    code, _, err = invoke(["board", SCENARIO, "-o", tmp_path / "b.png", "--dpi", "3000"])
    assert code == 2 and "3000" in err
    assert not list(tmp_path.iterdir())


# -- outputs: the overwrite policy and extensions --------------------------------

def test_an_output_that_is_an_input_is_refused(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_bytes(SCENARIO.read_bytes())
    before = scenario.read_bytes()
    for args in (["check-scenario", scenario, "-o", scenario],
                 ["build", scenario, "-o", tmp_path / "s.yaml"],
                 ["board", scenario, "-o", tmp_path / "b.png", "--key", tmp_path / "b.png"]):
        code, out, err = invoke(args)
        assert code == 2, (args, err)
        assert "Traceback" not in err and err.count("\n") == 1, err
    assert scenario.read_bytes() == before


def test_an_existing_report_is_replaced_atomically(tmp_path):
    out = tmp_path / "report.txt"
    out.write_text("old report\n", encoding="utf-8")
    code, stdout, _ = invoke(["inspect", DEMO_LOG, "-o", out])
    assert code == 0 and stdout == ""
    assert out.read_text(encoding="utf-8").startswith(f"{DEMO_LOG}: log")
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]       # no temporary file left


def test_a_report_that_fails_midway_leaves_the_old_file(tmp_path):
    out = tmp_path / "report.txt"
    out.write_text("old report\n", encoding="utf-8")

    def lines():
        yield "first line"
        raise VmodError("broken at step 3", file="game.vlog")

    with pytest.raises(VmodError):
        write_report(lines(), str(out))
    assert out.read_text(encoding="utf-8") == "old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


@pytest.mark.parametrize("args, expect", [
    (["sheets", SCENARIO, "-o", "{tmp}/out.png"], ".pdf"),
    (["board", SCENARIO, "-o", "{tmp}/board.jpg"], ".png"),
    (["board", SCENARIO, "-o", "{tmp}/board.png", "--key", "{tmp}/key.pdf"], ".png"),
    (["grid-check", DEMO_MODULE, "-o", "{tmp}/check.jpeg"], ".png"),
    (["build", SCENARIO, "-o", "{tmp}/module.png"], ".vmod"),
    (["schema", "-o", "{tmp}/schema.yaml"], ".json"),
    (["counters", SCENARIO, "-o", "{tmp}/counters.png"], "give a folder name"),
    (["sheets", SCENARIO, "--png", "{tmp}/pages.pdf"], "give a folder name"),
    (["inspect", DEMO_LOG, "-o", "{tmp}/copy.vlog"], ".txt or .json"),
    (["replay", DEMO_LOG, "-o", "{tmp}/moves.pdf"], ".txt or .json"),
])
def test_an_output_of_the_wrong_kind_is_refused(tmp_path, args, expect):
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = invoke(args)
    assert code == 2 and expect in err and "Traceback" not in err, err
    assert not list(tmp_path.iterdir())                # nothing written, not even the board


# -- what a file is, in the error ---------------------------------------------------

@pytest.mark.parametrize("head, key", [
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "png"), (b"\xff\xd8\xff\xe0\0\x10JFIF", "jpeg"),
    (b"GIF89a\x01\0", "gif"), (b"%PDF-1.7\n", "pdf"), (b"PK\x03\x04\x14\0", "zip"),
    (b"\x1f\x8b\x08\0", "gzip"), (b"\xfd7zXZ\0\0", "xz"), (b"RIFF\x10\0\0\0WEBPVP8 ", "webp"),
    (b"<?xml version='1.0'?><VASSAL.build.GameModule/>", "xml"), (b"<!DOCTYPE html><html>", "html"),
    (b"!VCSK3c1a2b", "vassal-stream"), (b"begin_save\x1b\x1bend_save", "vassal-stream"),
    (b'{"boards": {}}', "json"), ("Привет, мир\n".encode(), "text"),
    ("Привет".encode()[:-1], "text"),                    # a character cut by the 512-byte head
    ("hello".encode("utf-16"), "utf16"), (b"", "empty"),
    (b"\x00\x01\x02\x03binary", None), (b"\xff\xfe\xfd", None),
])
def test_sniff(head, key):
    kind = sniff(head)
    assert (kind.key if kind else None) == key


def _png(path: Path) -> Path:
    Image.new("RGB", (8, 8), "red").save(path, format="PNG")
    return path


@pytest.mark.parametrize("args, expect", [
    (["inspect", "{png}.vmod"], "is a PNG image, not a VASSAL file"),
    (["dump", "{png}.vsav"], "is a PNG image, not a VASSAL file"),
    (["replay", "{png}.vlog"], "is a PNG image, not a VASSAL save or log"),
    (["audit", "{png}.vlog", "--scenario", SCENARIO], "is a PNG image, not a VASSAL save or log"),
    (["lint", "{png}.vmod"], "is a PNG image, not a VASSAL module"),
    (["replay", DEMO_LOG, "-m", "{png}.vmod"], "is a PNG image, not a VASSAL module"),
    (["replay", DEMO_LOG, "-m", "{text}"], "is plain text, not a VASSAL module"),
    (["replay", "{text}"], "is plain text, not a VASSAL save or log"),
])
def test_a_file_of_another_kind_is_named_by_what_it_is(tmp_path, args, expect):
    png = _png(tmp_path / "picture.png")
    text = tmp_path / "notes.vlog"
    text.write_text("Заметки о партии\n", encoding="utf-8")
    for suffix in (".vmod", ".vsav", ".vlog"):
        (tmp_path / f"picture{suffix}").write_bytes(png.read_bytes())
    args = [str(a).replace("{png}", str(tmp_path / "picture")).replace("{text}", str(text)) for a in args]
    code, out, err = invoke(args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vmodtool: error: ") and expect in lines[0], err
    assert out == ""


def test_a_damaged_vassal_file_keeps_its_own_message(tmp_path):
    path = tmp_path / "bad.vsav"
    path.write_bytes(b"!VCSK1z")
    code, _, err = invoke(["inspect", path])
    assert code == 2 and "hex key" in err and "not a VASSAL" not in err


# -- warnings and reports ----------------------------------------------------------

LOG_WITH_A_WARNING = ESC.join([
    "begin_save", "",
    "\\" + ESC + "+/11/piece;;;inf.png;1-36 Inf/Main Map;100;100;1;0",
    "PLAYER\ttop-secret-pw\tАлиса\tNATO",
    "end_save",
    "LOG\tM/11/Main Map/200/100/null/Main Map/100/100/null/top-secret-pw",
    "LOG\tM/99/Main Map/300/100/null/Main Map/100/100/null/top-secret-pw",
])


@pytest.fixture
def warning_log(tmp_path):
    path = tmp_path / "game.vlog"
    path.write_bytes(build_zip({"savedGame": encode_saved_game(LOG_WITH_A_WARNING, key=7)}))
    return path


def test_replay_warnings_go_to_stderr(warning_log):
    code, out, err = invoke(["replay", warning_log])
    assert code == 0
    assert "step 1, NATO: 1-36 Inf moved (100,100) → (200,100)" in out
    assert "warning" not in out.replace("1 warnings", "")       # the count is part of the report
    assert "step 2: MovePiece of unknown piece 99" in err and err.startswith("warning: ")
    code, out, err = invoke(["replay", warning_log, "--format", "jsonl"])
    records = [json.loads(line) for line in out.splitlines()]  # stdout: JSON Lines only
    assert any(r["type"] == "warning" for r in records) and "unknown piece 99" in err
    assert "top-secret-pw" not in out + err


@pytest.mark.parametrize("args", [
    ["inspect", DEMO_LOG], ["inspect", "--format", "json", DEMO_MODULE], ["dump", DEMO_LOG],
    ["replay", DEMO_LOG, "-m", DEMO_MODULE], ["replay", DEMO_LOG, "--format", "jsonl"],
    ["lint", DEMO_MODULE], ["check-scenario", SCENARIO], ["schema"],
    ["audit", EXAMPLES / "modern-tactical" / "logs" / "illegal-hq-moves-alone.vlog", "--scenario", SCENARIO],
], ids=lambda a: " ".join(str(x) for x in a[:1]) if isinstance(a, list) else None)
def test_o_writes_the_report_that_stdout_shows(tmp_path, args):
    code, shown, _ = invoke(args)
    out = tmp_path / ("report.json" if "schema" in args else "report.txt")
    code_o, quiet, _ = invoke([*args, "-o", out])
    assert code_o == code and quiet == ""
    assert out.read_text(encoding="utf-8") == shown and shown


# -- exit codes --------------------------------------------------------------------

def test_findings_exit_1_and_bad_input_exit_2(tmp_path):
    illegal = EXAMPLES / "modern-tactical" / "logs" / "illegal-hq-moves-alone.vlog"
    assert invoke(["audit", illegal, "--scenario", SCENARIO])[0] == 1
    assert invoke(["audit", illegal, "--scenario", SCENARIO, "--board-size", "Main"])[0] == 2
    assert invoke(["inspect", tmp_path / "absent.vlog"])[0] == 2


def test_ctrl_c_exits_130():
    @click.command(cls=Command)
    def slow() -> None:
        """Interrupted."""
        raise KeyboardInterrupt

    result = CliRunner().invoke(slow, [])
    assert result.exit_code == 130 and "vmodtool: interrupted" in result.output


def test_a_bug_is_one_line_and_exit_70(monkeypatch, capsys, tmp_path):
    import vmodtool.inspection

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero\nsecond line")

    monkeypatch.setattr(vmodtool.inspection, "inspect_file", broken)
    with pytest.raises(SystemExit) as info:
        main(["inspect", str(DEMO_LOG)])
    err = capsys.readouterr().err
    assert info.value.code == 70
    assert err.count("\n") == 1 and "internal error" in err and "ZeroDivisionError: division by zero" in err
    with pytest.raises(SystemExit) as info:
        main(["--debug", "inspect", str(DEMO_LOG)])
    assert info.value.code == 70 and "Traceback" in capsys.readouterr().err


def test_init_refuses_an_existing_folder(tmp_path):
    (tmp_path / "game").mkdir()
    code, _, err = invoke(["init", "game", "--dir", tmp_path])
    assert code == 2 and "already exists" in err
    assert list((tmp_path / "game").iterdir()) == []


def test_a_bad_scenario_lists_every_problem_then_one_error_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema: vmodtool/1\nbogus: 1\n", encoding="utf-8")
    code, out, err = invoke(["build", bad, "-o", tmp_path / "x.vmod"])
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and not (tmp_path / "x.vmod").exists()
    assert any("bad.yaml:2:" in line and "bogus" in line for line in lines[:-1])
    assert all(line.startswith(str(bad)) for line in lines[:-1])
    assert lines[-1] == f"vmodtool: error: {bad}: {len(lines) - 1} errors in the scenario (listed above)"


def test_a_scenario_of_another_kind_is_named_by_what_it_is(tmp_path):
    picture = _png(tmp_path / "scenario.yaml")
    code, out, err = invoke(["check-scenario", picture])
    assert code == 2 and f"{picture}: this is a PNG image, not a scenario file" in out
    code, _, err = invoke(["build", picture, "-o", tmp_path / "x.vmod"])
    assert code == 2 and "this is a PNG image, not a scenario file" in err
