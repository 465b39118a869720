"""``vmodtool --help`` and ``vmodtool inspect FILE`` start without the
scenario, render, build, replay or audit layers (checked in a fresh
interpreter: which ``vmodtool`` modules it imported), and the command table
the help is written from without importing the commands is the commands'
own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from vmodtool.cli import COMMAND_MODULES, LAZY_COMMANDS, all_commands, cli

REPO = Path(__file__).resolve().parents[1]
DEMO_LOG = REPO / "examples" / "formats" / "demo.vlog"
DEMO_MODULE = REPO / "examples" / "formats" / "demo.vmod"
HEAVY = ("vmodtool.scenario", "vmodtool.render", "vmodtool.assemble", "vmodtool.audit", "vmodtool.report")

PROBE = """
import sys
from vmodtool.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES", *sorted(m for m in sys.modules if m.startswith("vmodtool") or m == "shutil"), file=sys.stderr)
"""


def _imported(*args: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env,
                          timeout=120)
    line = done.stderr.rsplit("MODULES", 1)[1]
    return set(line.split())


def _layer(modules: set[str], layer: str) -> set[str]:
    return {m for m in modules if m == layer or m.startswith(layer + ".")}


def test_help_imports_only_the_cli() -> None:
    modules = _imported("--help")
    # (vmodtool.exit_codes: the exit codes, constants only)
    assert modules <= {"vmodtool", "vmodtool.cli", "vmodtool.commands", "vmodtool.errors", "vmodtool.exit_codes",
                       "vmodtool.terminal"}, modules
    assert "shutil" not in modules       # Click's help formatter would import it (and lzma, bz2)


@pytest.mark.parametrize("columns", ["", "50", "70", "160"])
def test_help_width_is_clicks(columns: str, tmp_path: Path) -> None:
    """The help is laid out as Click lays it out for the terminal's width
    (``$COLUMNS``), though the width is found without :mod:`shutil`."""
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS=columns, XDG_CACHE_HOME=str(tmp_path))
    ours = subprocess.run([sys.executable, "-m", "vmodtool", "--help"], capture_output=True, text=True,
                          env=env, timeout=120).stdout
    clicks = subprocess.run([sys.executable, "-c", "import click, sys, vmodtool.commands as c; "
                             "c.HelpContext.make_formatter = click.Context.make_formatter; "
                             "from vmodtool.cli import main; main(['--help'])"],
                            capture_output=True, text=True, env=env, timeout=120).stdout
    assert ours == clicks and "Commands:" in ours
    widest = max(len(line) for line in ours.splitlines())
    assert widest <= max(min(int(columns or 80), 80) - 2, 50)


@pytest.mark.parametrize("target", [DEMO_LOG, DEMO_MODULE], ids=["log", "module"])
def test_inspect_imports_no_scenario_or_render_layer(target: Path) -> None:
    modules = _imported("inspect", str(target))
    assert "vmodtool.inspection" in modules           # the probe saw the command run
    for layer in HEAVY:
        assert not _layer(modules, layer), (layer, sorted(_layer(modules, layer)))
    others = {m.split(".")[2] for m in _layer(modules, "vmodtool.commands") if m.count(".") == 2}
    assert others == {"formats"}                       # only the family of the command run


def test_the_probe_sees_a_heavy_import() -> None:
    """The check above can fail: ``build --help`` imports its family, which
    ``--help`` alone does not."""
    assert "vmodtool.commands.build" in _imported("build", "--help")


def test_the_lazy_table_is_the_commands_own() -> None:
    commands = all_commands()
    missing = sorted(set(commands) - set(LAZY_COMMANDS))
    assert not missing, (f"add {missing} to vmodtool.cli.LAZY_COMMANDS (family, first paragraph of the "
                         "help), or 'vmodtool --help' imports the family")
    assert set(LAZY_COMMANDS) <= set(commands)
    for name, (family, summary) in LAZY_COMMANDS.items():
        command = commands[name]
        assert command.callback is not None and command.callback.__module__ == f"vmodtool.commands.{family}"
        for limit in (20, 45, 200):
            shown = click.Command(name, help=summary).get_short_help_str(limit)
            assert shown == command.get_short_help_str(limit), name
    assert {family for family, _ in LAZY_COMMANDS.values()} <= set(COMMAND_MODULES)


def test_help_lists_every_command_alike_lazy_or_loaded() -> None:
    def listing() -> str:
        ctx = click.Context(cli, info_name="vmodtool")
        formatter = ctx.make_formatter()
        cli.format_commands(ctx, formatter)
        return formatter.getvalue()

    saved = dict(cli.commands)
    try:
        cli.commands.clear()
        lazy = listing()
        all_commands()
        assert listing() == lazy
        assert all(name in lazy for name in LAZY_COMMANDS)
    finally:
        cli.commands.clear()
        cli.commands.update(saved)


# --------------------------------------------------------------------------
# the console entry point (vmodtool.launcher): every command line, `--help`
# included, goes through Click, and nothing is cached between runs

LAUNCH = """
import sys
from vmodtool.launcher import main
sys.argv[1:] = {args!r}
try:
    main()
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\\nEXIT", code, "CLICK", "click" in sys.modules, file=sys.stderr)
"""


def _launch(cache: Path, *args: str, columns: str = "") -> tuple[bytes, int, bool]:
    """stdout, exit code and whether Click was imported, of the console
    entry point run in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS=columns, XDG_CACHE_HOME=str(cache))
    env.pop("_VMODTOOL_COMPLETE", None)
    done = subprocess.run([sys.executable, "-c", LAUNCH.format(args=list(args))], capture_output=True,
                          env=env, timeout=120, check=False)
    tail = done.stderr.decode().rsplit("EXIT", 1)[1].split()
    return done.stdout, int(tail[0]), tail[2] == "True"


def _clicks_help(columns: str, *args: str) -> bytes:
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS=columns)
    return subprocess.run([sys.executable, "-c", f"from vmodtool.cli import main; main({list(args)!r})"],
                          capture_output=True, env=env, timeout=120, check=False).stdout


@pytest.mark.parametrize("columns", ["", "50", "160"])
def test_the_entry_points_help_is_clicks_and_writes_no_cache(columns: str, tmp_path: Path) -> None:
    """``vmodtool --help`` (and ``-h``) is Click's page, written by Click on
    every run: nothing is kept under ``$XDG_CACHE_HOME``."""
    clicks = _clicks_help(columns, "--help")
    assert b"Commands:" in clicks
    for _ in range(2):
        for args in (("--help",), ("-h",)):
            assert _launch(tmp_path, *args, columns=columns) == (clicks, 0, True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--help"], ["build", "--help"]], ids=["help", "build-help"])
def test_help_into_a_closed_pipe_is_quiet(args: list[str], tmp_path: Path) -> None:
    """``vmodtool --help | head``: no traceback, Click's own exit code for a
    closed pipe (1), as for any other command's help."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = dict(os.environ, PYTHONPATH=str(REPO), XDG_CACHE_HOME=str(tmp_path))
        done = subprocess.run([sys.executable, "-m", "vmodtool", *args], stdout=write_end,
                              stderr=subprocess.PIPE, env=env, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (1, b"")


def test_any_command_line_goes_through_click(tmp_path: Path) -> None:
    for args in (("--version",), ("--help", "--debug"), ("build", "--help"), ()):
        out, code, imported = _launch(tmp_path, *args)
        assert imported, args
        assert out == _clicks_help("", *args), args


FROZEN = """
import gc, sys
from vmodtool.launcher import main
sys.argv[1:] = {args!r}
before = gc.get_freeze_count()
try:
    main()
except SystemExit as exc:
    code = exc.code
print("\\nEXIT", code, "FROZE", gc.get_freeze_count() - before, file=sys.stderr)
"""


@pytest.mark.parametrize("args", [["inspect", str(DEMO_LOG)], ["inspect", "no-such-file.vlog"]],
                         ids=["ok", "bad-input"])
def test_the_entry_point_freezes_what_a_command_leaves_for_the_shutdown(args: list[str]) -> None:
    """The objects a command leaves are frozen before the interpreter shuts
    down (its collections would walk them for nothing), whether the command
    succeeded or not; the command's own output is unchanged."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", FROZEN.format(args=args)], capture_output=True,
                          text=True, env=env, timeout=120, check=False)
    tail = done.stderr.rsplit("EXIT", 1)[1].split()
    assert int(tail[0]) == (0 if args[1] == str(DEMO_LOG) else 2)
    assert int(tail[2]) > 1000, done.stderr
    plain = subprocess.run([sys.executable, "-m", "vmodtool", *args], capture_output=True, text=True,
                           env=env, timeout=120, check=False)
    assert plain.stdout == done.stdout and plain.returncode == int(tail[0])
