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
HEAVY = ("vmodtool.scenario", "vmodtool.render", "vmodtool.build", "vmodtool.audit", "vmodtool.report")

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
    assert modules <= {"vmodtool", "vmodtool.cli", "vmodtool.commands", "vmodtool.errors"}, modules
    assert "shutil" not in modules       # Click's help formatter would import it (and lzma, bz2)


@pytest.mark.parametrize("columns", ["", "50", "70", "160"])
def test_help_width_is_clicks(columns: str) -> None:
    """The help is laid out as Click lays it out for the terminal's width
    (``$COLUMNS``), though the width is found without :mod:`shutil`."""
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS=columns)
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
