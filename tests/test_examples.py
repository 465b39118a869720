"""The bundled format examples are what their generator makes, and the
commands of docs/guide/inspect-and-dump.md work on them."""

import importlib.util
import json
from pathlib import Path

from click.testing import CliRunner

from vmodtool.cli import cli
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "formats"


def _generator():
    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_examples_are_up_to_date():
    gen = _generator()
    assert SavedGame.read(EXAMPLES / "demo.vlog").text == gen.game_log()
    files = gen.module_files()
    assert (EXAMPLES / "demo-module" / "buildFile.xml").read_bytes() == files["buildFile.xml"]
    with Module.open(EXAMPLES / "demo.vmod") as module:
        assert module.read_file("buildFile.xml") == files["buildFile.xml"]
        assert module.board_sizes() == ({"Demo Board": (700, 620)}, [])


def test_demo_log_positions_are_hex_centres():
    gen = _generator()
    grid = gen.grid()
    game = SavedGame.read(EXAMPLES / "demo.vlog")
    moves = [n.logged for _, step in game.log_steps()
             for n in (step.children if hasattr(step, "children") else [step])
             if getattr(n, "logged", None) is not None and n.logged.kind == "MovePiece"]
    names = [(grid.location_name(*m.old_position), grid.location_name(*m.new_position)) for m in moves]
    assert names == [("0203", "0304"), ("0705", "0604"), ("0604", "0504"), ("0504", "0604")]


def test_readme_examples_run():
    runner = CliRunner()
    for args in (["inspect", str(EXAMPLES / "demo.vlog")], ["inspect", str(EXAMPLES / "demo.vmod")],
                 ["inspect", str(EXAMPLES / "demo-module")], ["dump", str(EXAMPLES / "demo.vlog")],
                 ["dump", "--format", "jsonl", str(EXAMPLES / "demo.vmod")]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert "secret" not in result.output
    out = runner.invoke(cli, ["dump", "--format", "jsonl", str(EXAMPLES / "demo.vmod")]).output
    names = [json.loads(line).get("piece_name") for line in out.splitlines()]
    assert "1-й танковый батальон" in names
