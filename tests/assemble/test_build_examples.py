"""End to end: each bundled example builds through the CLI into a module
that our own readers, lint and replay accept."""

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import game_examples
from vmodtool.cli import cli
from vmodtool.lint import lint_module
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import SetupStack
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.grid import board_from_element
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = game_examples()


@pytest.fixture(scope="module", params=SCENARIOS, ids=[p.parent.name for p in SCENARIOS])
def built(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "module.vmod"
    result = CliRunner().invoke(cli, ["build", str(request.param), "-o", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    return load_scenario(request.param), out


def test_module_lints_clean(built):
    _, out = built
    with Module.open(out) as module:
        findings = lint_module(module)
    assert [f for f in findings if f.severity in ("error", "warning")] == []


def test_images_are_the_rendered_counters_and_board(built):
    scenario, out = built
    with Module.open(out) as module:
        assert module.image_size("board.png") == scenario.map.size
        for slot in module.buildfile.piece_slots():
            piece = PieceDef.parse(slot.definition)
            image = piece.basic.view().image
            assert image and module.read_file("images/" + image), slot.entry_name
            size = module.image_size(image)
            if slot.kind == "CardSlot":      # cards: the card's size at VASSAL_CARD_DPI
                assert size == (225, 315), slot.entry_name
            else:
                assert size[0] == size[1] and size[0] >= 40


def test_at_start_pieces_on_their_hex_centres(built):
    scenario, out = built
    with Module.open(out) as module:
        writer = GameWriter(module)
        main = next(m for m in module.buildfile.maps() if m.name == scenario.map.name)
        board = board_from_element(main.boards[0].element, *scenario.map.size)
        for entry in scenario.setup:
            if isinstance(entry, SetupStack):
                for uid in entry.units:
                    pid = writer.find(UnitId=uid)
                    placed = writer.pieces[pid]
                    assert (placed.x, placed.y) == scenario.map.grid.grid.get_location(entry.hex)
                    assert board.location_name(placed.x, placed.y) == entry.hex


def test_replay_reads_a_log_of_the_module(built, tmp_path):
    scenario, out = built
    sides = scenario.game.sides
    with Module.open(out) as module:
        writer = GameWriter(module, players=[Player("pw-a", "Alice", sides[0].name),
                                             Player("pw-b", "Борис", sides[1].name)])
        if scenario.scenarios:          # a game of scenarios: one starts from its predefined setup
            named = scenario.scenarios[0]
            writer.restore(SavedGame.from_bytes(module.read_file(named.setup_file) or b""))
            scenario = scenario.named(named.id)
        writer.snapshot()
        stack = next(s for s in scenario.setup if isinstance(s, SetupStack) and s.units)
        uid = stack.units[-1]
        pid = writer.find(UnitId=uid)
        target = next(n for n in scenario.map.neighbours(stack.hex))
        writer.move(pid, target, player="Alice")
        writer.chat("ход сделан", player="Alice")
        log = tmp_path / "game.vlog"
        log.write_bytes(writer.to_bytes())
    replay = Replay.open([log], module=out)
    steps = list(replay.steps())
    assert len(steps) == 2
    moves = [e for e in steps[0].events if e.kind == "move"]
    assert moves and moves[0].piece.unit_id == uid
    assert (moves[0].source.location, moves[0].target.location) == (stack.hex, target)
    assert steps[0].player == "Alice"
    assert "pw-a" not in str([e.record() for s in steps for e in s.events])


def test_invalid_scenario_writes_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (EXAMPLES / "modern-tactical" / "scenario.yaml").read_text(encoding="utf-8")
    bad.write_text(text.replace("schema: vmodtool/1", "schema: vmodtool/1\nbogus_key: 1"),
                   encoding="utf-8")
    out = tmp_path / "out.vmod"
    result = CliRunner().invoke(cli, ["build", str(bad), "-o", str(out), "-q"])
    assert result.exit_code != 0 and not out.exists()


def test_existing_output_is_replaced_atomically(tmp_path):
    out = tmp_path / "out.vmod"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    result = CliRunner().invoke(cli, ["build", str(SCENARIOS[0]), "-o", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0
    assert out.read_bytes()[:2] == b"PK" and oct(out.stat().st_mode & 0o777) == "0o640"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.vmod")]


def test_a_build_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    """The build freezes what it loaded for the collector while it renders
    and assembles (gc_policy.relaxed_gc) and hands everything back."""
    import gc

    from vmodtool.assemble.builder import build_module_file

    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen: list[tuple[int, int]] = []
    real = gc.freeze

    def watching_freeze() -> None:
        real()
        seen.append((gc.get_threshold()[0], gc.get_freeze_count()))

    gc.freeze = watching_freeze               # type: ignore[assignment]
    try:
        build_module_file(SCENARIOS[0], tmp_path / "m.vmod", jobs=1)
    finally:
        gc.freeze = real                      # type: ignore[assignment]
    assert seen and seen[0][0] >= 1_000_000 and seen[0][1] > frozen   # frozen under a raised threshold
    assert gc.get_threshold() == threshold and gc.get_freeze_count() <= frozen   # (3.12+ may thaw its own)


def test_key_strokes_are_written_as_vassal_reads_them(built):
    """Issue 40 item 16: Ctrl+F flips a counter or a card in VASSAL. The
    Face layer's and the card Mask's key is ``70,130``: written
    ``70,130,Flip`` VASSAL 3.7.26 reads the named command "Flip" and ignores
    the keys.  No key of a built module has a name beside a key stroke
    (lint reads every key field of every trait)."""
    import re

    scenario, out = built
    with Module.open(out) as module:
        text = (module.read_file("buildFile.xml") or b"").decode("utf-8")
        findings = lint_module(module)
    assert [f for f in findings if f.code == "named-key-hides-keystroke"] == []
    assert ",Flip" not in text and ",Discard" not in text
    if any(len(t.faces) > 1 for t in scenario.unit_types.values()):
        assert re.search(r"emb2;[^\t]*;Face;[^\t]*;70\\*,130;", text), "the Face layer's Ctrl+F"
    if {d.id for d in scenario.decks} - scenario.extension_decks:     # (an extension's decks are in it)
        assert re.search(r"obs;70\\*,130;", text), "the card Mask's Ctrl+F"
