"""``vmodtool merge``: a chain of logs as one log whose replay equals the
chain's step for step (plus one labelled transition step per boundary),
ending in the last log's end; editing while merging; the final position as
a save.  The TLD chain (19 logs, VASSAL 2.9) is merged once per fixture."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli_runner import invoke as _invoke
from tests.conftest import shared_files, shared_path
from vmodtool.errors import VmodError
from vmodtool.merge import (
    MERGE_MARK,
    NOTE_MARK,
    Edit,
    MergeOptions,
    StepAddress,
    final_save_text,
    merge_logs,
    read_edits,
    read_notes,
)
from vmodtool.replay import Replay
from vmodtool.replay.chain import compare_states
from vmodtool.replay.engine import ReplayEngine as Engine
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "formats" / "demo.vmod"
EXAMPLE_GAMES = sorted(REPO.glob("examples/*/logs/game-1.vlog"))


def _write(result, path: Path) -> Path:
    path.write_bytes(SavedGame(decoded=result.replay.games[-1].decoded, container="zip",
                               entries=dict(result.replay.games[-1].entries)).to_bytes(result.text))
    return path


def _replayed(path: Path) -> tuple[list, Engine]:
    replay = Replay.open([path])
    steps = list(replay.steps())
    assert replay.engine is not None
    return steps, replay.engine


def _same_state(want: Engine, got: Engine) -> list[str]:
    """What ``got`` (a merged log's end) lacks of ``want`` (the chain's
    end): pieces either way; global properties ``want`` has (a property
    no save restores, such as a die's last result, may live on)."""
    return [d.text() for d in compare_states(got.state, want.state, got.place_of, want.place_of,
                                             Engine.ref, "got", "want")]


def _events(step) -> list:
    """A step's events; a property change without its old value: a
    property no save restores (a die's last result) keeps, in the merged
    log, the value the previous log left where the next log knew none."""
    out = []
    for e in step.events:
        record = e.record()
        if record.get("kind") == "property":
            record.pop("old", None)
        out.append(record)
    return out


def assert_step_for_step(result, merged_steps) -> None:
    """Every original step of the merged log replays as in the chain (events
    with positions, states and dice; player and side); the other steps are
    the transitions and notes, labelled."""
    assert len(merged_steps) == len(result.steps)
    chain = {s.number: s for s in result.chain_steps}
    originals = 0
    for got, origin in zip(merged_steps, result.steps, strict=True):
        if origin.kind == "step":
            want = chain[origin.number]
            assert _events(got) == _events(want), f"step {origin.number} ({origin.file}:{origin.file_step})"
            assert (got.player, got.side) == (want.player, want.side)
            originals += 1
        elif origin.kind == "transition":
            assert got.chat_lines and got.chat_lines[0].startswith(MERGE_MARK)
        else:
            assert got.chat_lines == [f"{NOTE_MARK}{origin.text}"]
    assert originals == len(result.chain_steps)


# -- TLD ------------------------------------------------------------------------------------

TLD = shared_files("corpus", "tld/game/*.log")


@pytest.fixture(scope="module")
def tld(tmp_path_factory):
    if not TLD:
        shared_path("corpus", "tld", "game")
    result = merge_logs(TLD)
    path = _write(result, tmp_path_factory.mktemp("merge") / "tld.vlog")
    steps, engine = _replayed(path)
    return result, steps, engine


def test_tld_merged_replays_step_for_step(tld):
    result, steps, engine = tld
    assert len(result.chain_steps) == 10148
    assert sum(1 for s in result.steps if s.kind == "transition") == 18
    assert_step_for_step(result, steps)
    assert _same_state(result.final_engine, engine) == []


def test_tld_transitions_say_what_happened_between_the_logs(tld):
    result, steps, _ = tld
    transitions = [s for s, o in zip(steps, result.steps, strict=True) if o.kind == "transition"]
    first = transitions[0].chat_lines[0]
    assert first.startswith(f"{MERGE_MARK}0606-1.log → 0606-2.log")
    assert "22 moved" in first and "5 added" in first
    assert any("no difference" in t.chat_lines[0] for t in transitions)
    # the pieces moved outside the logs are moved in the transition, in the open
    assert sum(1 for e in transitions[0].events if e.kind == "add") >= 22


@pytest.fixture(scope="module")
def tld_dropped(tmp_path_factory):
    if not TLD:
        shared_path("corpus", "tld", "game")
    result = merge_logs(TLD, MergeOptions(drop_undone=True))
    path = _write(result, tmp_path_factory.mktemp("merge") / "tld-dropped.vlog")
    steps, engine = _replayed(path)
    return result, steps, engine


def test_tld_drop_undone_keeps_the_final_state_and_no_undone_step(tld_dropped):
    result, steps, engine = tld_dropped
    assert _same_state(result.final_engine, engine) == []
    chain = {s.number: s for s in result.chain_steps}
    kept = [chain[o.number] for o in result.steps if o.kind == "step"]
    assert len(kept) == 10148 - 1040
    assert not any(s.undone_by is not None for s in kept)
    assert not any(s.undo and s.undoes is not None for s in kept)
    # nor does the merged log's own replay find a step undone in it
    assert not any(got.undone_by is not None for got, o in zip(steps, result.steps, strict=True)
                   if o.kind == "step")
    assert any(line.startswith("dropped 520 undone step(s) and 520 undo(s)") for line in result.summary)
    assert any(line.startswith("DICE DROPPED: 12 dice report(s)") for line in result.summary)


def test_tld_save_holds_the_final_position(tld, tmp_path):
    result, _, _ = tld
    text = final_save_text(result.final_engine, result.replay.games[-1].restore_part())
    path = tmp_path / "end.vsav"
    path.write_bytes(SavedGame(decoded=result.replay.games[-1].decoded, container="zip").to_bytes(text))
    replay = Replay.open([path])
    list(replay.steps())
    assert replay.engine is not None
    assert _same_state(result.final_engine, replay.engine) == []
    assert replay.engine.state.global_properties == result.final_engine.state.global_properties
    assert replay.engine.state.turns == result.final_engine.state.turns


def test_tld_out_of_order_stops_the_merge_unless_forced():
    if not TLD:
        shared_path("corpus", "tld", "game")
    swapped = [TLD[1], TLD[0], TLD[2]]
    with pytest.raises(VmodError, match="logs out of order"):
        merge_logs(swapped)
    result = merge_logs(swapped, MergeOptions(force=True))
    assert any("merged anyway" in line for line in result.summary)


# -- a chain written with GameWriter (and the example games) --------------------------------------

@pytest.fixture(scope="module")
def demo_chain(tmp_path_factory):
    """Two logs of the demo module; between them a piece moved outside the
    logs and a roll made; log 1 has an undone move and dice."""
    folder = tmp_path_factory.mktemp("demo")
    with Module.open(DEMO) as module:
        w = GameWriter(module, players=[Player("alice-pw-1", "Алиса", "Синие"),
                                        Player("bob-pw-22", "Bob", "Красные")])
        a = w.add(w.palette_slot(UnitId="wp.tank.1"), "0505", "Main Map", player="Bob")
        b = w.add(w.palette_slot(UnitId="nato.inf.1"), "0303", "Main Map", player="Алиса")
        w.snapshot()
        w.move(a, "0506", player="Bob")
        w.dice("2d6", [3, 5], player="Bob")
        w.chat("Привет, hello", player="Алиса")
        w.move(b, "0304", player="Алиса")
        w.undo(player="Алиса")
        w.move(b, "0404", player="Алиса")
        first = folder / "turn-1.vlog"
        first.write_bytes(w.to_bytes(date_saved="1767225600000"))
        w.move(b, "0202", player="Алиса")              # between the logs
        w.snapshot()
        w.chat("second log", player="Bob")
        w.move(a, "0706", player="Bob")
        second = folder / "turn-2.vlog"
        second.write_bytes(w.to_bytes(date_saved="1767225600001"))
    return [first, second]


def test_demo_chain_merged_step_for_step(demo_chain, tmp_path):
    result = merge_logs(demo_chain)
    steps, engine = _replayed(_write(result, tmp_path / "demo.vlog"))
    assert_step_for_step(result, steps)
    assert _same_state(result.final_engine, engine) == []
    transition = [s for s, o in zip(steps, result.steps, strict=True) if o.kind == "transition"]
    assert len(transition) == 1 and "1 moved" in transition[0].chat_lines[0]


def test_demo_chain_without_the_transition_would_differ(demo_chain, tmp_path):
    """The transition step is what makes the state equal: the plain
    concatenation of the steps ends elsewhere."""
    result = merge_logs(demo_chain)
    from vmodtool.vassal.commands import CommandGroup, parse_commands
    tree = parse_commands(result.text)
    assert isinstance(tree, CommandGroup)
    kept = [n for n in tree.children if MERGE_MARK not in n.encode()]
    path = tmp_path / "plain.vlog"
    path.write_bytes(SavedGame(decoded=result.replay.games[-1].decoded, container="zip")
                     .to_bytes(CommandGroup(kept).encode()))
    _, engine = _replayed(path)
    assert _same_state(result.final_engine, engine) != []


def test_demo_chain_edits_notes_and_chat(demo_chain, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("# comments are skipped\n1: Начало <игры>\nturn-2.vlog:0: the second evening\n",
                     encoding="utf-8")
    edits = tmp_path / "edits.yaml"
    edits.write_text("- {step: '1:3', delete: true}\n- {step: 2, note: 'the roll'}\n", encoding="utf-8")
    options = MergeOptions(drop_chat=re.compile("hello"), edits=read_edits(edits))
    result = merge_logs(demo_chain, options, notes=read_notes(notes))
    steps, engine = _replayed(_write(result, tmp_path / "edited.vlog"))
    lines = [line for s in steps for line in s.chat_lines]
    assert f"{NOTE_MARK}Начало &lt;игры&gt;" in lines
    assert f"{NOTE_MARK}the second evening" in lines
    assert f"{NOTE_MARK}the roll" in lines
    assert not any("hello" in line for line in lines)
    # the note comes before the step it names
    kinds = [(o.kind, o.file_step) for o in result.steps]
    assert kinds.index(("note", 1)) < kinds.index(("step", 1))
    assert _same_state(result.final_engine, engine) == []


def test_dice_are_never_dropped_silently(demo_chain, tmp_path):
    edits = [Edit(StepAddress(2), "delete")]                    # step 2 is the roll
    dropped = merge_logs(demo_chain, MergeOptions(edits=edits))
    assert any(line.startswith("DICE DROPPED: 1 dice report(s)") for line in dropped.summary)
    kept = merge_logs(demo_chain, MergeOptions(edits=edits, keep_dice=True))
    steps, _ = _replayed(_write(kept, tmp_path / "dice.vlog"))
    assert any(e.kind == "dice" for s in steps for e in s.events)
    assert not any(line.startswith("DICE DROPPED") for line in kept.summary)
    chat = merge_logs(demo_chain, MergeOptions(drop_chat=re.compile(r"\*")))
    assert any(line.startswith("DICE DROPPED: 1") for line in chat.summary)


def test_demo_chain_drop_undone(demo_chain, tmp_path):
    result = merge_logs(demo_chain, MergeOptions(drop_undone=True))
    steps, engine = _replayed(_write(result, tmp_path / "dropped.vlog"))
    assert _same_state(result.final_engine, engine) == []
    assert not any(s.undo for s in steps)
    assert "dropped 1 undone step(s) and 1 undo(s)" in result.summary


@pytest.mark.parametrize("log", EXAMPLE_GAMES, ids=[p.parts[-3] for p in EXAMPLE_GAMES])
def test_example_game_merged_alone_and_twice(log, tmp_path):
    """An example game (a chain of one) merges to itself; the same log
    twice (forced) needs a transition back to its start, and still ends
    where the second copy ends."""
    result = merge_logs([log])
    steps, engine = _replayed(_write(result, tmp_path / "one.vlog"))
    assert_step_for_step(result, steps)
    assert _same_state(result.final_engine, engine) == []
    twice = merge_logs([log, log], MergeOptions(force=True))
    steps, engine = _replayed(_write(twice, tmp_path / "two.vlog"))
    assert_step_for_step(twice, steps)
    assert _same_state(twice.final_engine, engine) == []


# -- addresses, files, errors ----------------------------------------------------------------

def test_step_addresses():
    assert StepAddress.parse("12") == StepAddress(12)
    assert StepAddress.parse("2:7") == StepAddress(7, 2)
    assert StepAddress.parse("turn-2.vlog:0") == StepAddress(0, "turn-2.vlog")
    with pytest.raises(VmodError, match="not a step address"):
        StepAddress.parse("x")


def test_edit_lists_in_yaml_and_json(tmp_path):
    edits = tmp_path / "edits.yaml"
    edits.write_text("- {step: 2:5, delete: true}\n- {step: 7, note: Ход}\n- step: 1:0\n  note: x\n",
                     encoding="utf-8")
    assert read_edits(edits) == [Edit(StepAddress(5, 2), "delete"), Edit(StepAddress(7), "annotate", "Ход"),
                                 Edit(StepAddress(0, 1), "annotate", "x")]
    as_json = tmp_path / "edits.json"
    as_json.write_text('{"edits": [{"step": "turn-2.vlog:1", "delete": true}]}', encoding="utf-8")
    assert read_edits(as_json) == [Edit(StepAddress(1, "turn-2.vlog"), "delete")]


def test_cli_a_bad_pattern_is_bad_input(demo_chain, tmp_path):
    code, _, stderr = _invoke(["merge", *demo_chain, "-o", tmp_path / "g.vlog", "--drop-chat", "(["])
    assert code == 2 and "--drop-chat" in stderr
    assert not (tmp_path / "g.vlog").exists()


def test_bad_notes_and_edits_are_located(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("1: fine\nno step here\n", encoding="utf-8")
    with pytest.raises(VmodError, match=r"notes.txt: line 2: expected"):
        read_notes(notes)
    edits = tmp_path / "edits.yaml"
    edits.write_text("- {step: 1, cut: true}\n", encoding="utf-8")
    with pytest.raises(VmodError, match=r"entry 1: unknown key"):
        read_edits(edits)
    edits.write_text("- " + "[" * 50000 + "]" * 50000 + "\n", encoding="utf-8")
    with pytest.raises(VmodError, match="edits.yaml"):
        read_edits(edits)
    edits.write_text("- {step: 1, delete: [\n", encoding="utf-8")
    with pytest.raises(VmodError, match=r"line \d+, column \d+"):
        read_edits(edits)


def test_an_address_beyond_the_chain_is_an_error(demo_chain):
    with pytest.raises(VmodError, match="turn-1.vlog has 6 steps, not 9"):
        merge_logs(demo_chain, MergeOptions(edits=[Edit(StepAddress(9, 1), "delete")]))
    with pytest.raises(VmodError, match="no log named 'nope'"):
        merge_logs(demo_chain, MergeOptions(edits=[Edit(StepAddress(1, "nope"), "delete")]))


def test_cli_merges_and_saves(demo_chain, tmp_path):
    out, save = tmp_path / "game.vlog", tmp_path / "end.vsav"
    code, stdout, stderr = _invoke(["merge", *demo_chain, "-o", out, "--save", save, "--drop-undone"])
    assert code == 0, stderr
    assert "1 transition step(s)" in stdout and f"written: {out}" in stdout
    assert SavedGame.read(out).is_log and not SavedGame.read(save).is_log
    raw = out.read_bytes()
    assert raw.startswith(b"PK")


def test_cli_a_bad_log_in_the_chain_writes_nothing(demo_chain, tmp_path):
    bad = tmp_path / "bad.vlog"
    bad.write_bytes(b"PK\x03\x04 not a zip at all")
    out = tmp_path / "game.vlog"
    code, _, stderr = _invoke(["merge", demo_chain[0], bad, "-o", out])
    assert code == 2 and stderr.count("\n") == 1 and "bad.vlog" in stderr
    assert not out.exists()


def test_cli_a_foreign_log_in_the_chain_writes_nothing(demo_chain, tmp_path):
    if not TLD:
        shared_path("corpus", "tld", "game")
    foreign = shared_path("corpus", "zxvt", "5x5_startup.vlog")
    out = tmp_path / "game.vlog"
    code, _, stderr = _invoke(["merge", demo_chain[0], foreign, "-o", out])
    assert code == 2 and stderr.count("\n") == 1 and "5x5_startup.vlog" in stderr and "module" in stderr
    assert not out.exists()


def test_cli_a_save_is_not_a_log(demo_chain, tmp_path):
    save = tmp_path / "s.vsav"
    code, _, _ = _invoke(["merge", *demo_chain, "-o", tmp_path / "g.vlog", "--save", save])
    assert code == 0
    code, _, stderr = _invoke(["merge", save, "-o", tmp_path / "h.vlog"])
    assert code == 2 and "this is a save, not a log" in stderr
    assert not (tmp_path / "h.vlog").exists()
