"""The report's narrative column: a notes file's notes at the steps they
name, a merged log's own ``[note]`` lines read by the replay visitor, one
column of both, escaped; a note off the game is a located error and
nothing is written; a game without notes gives the page it gave before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli_runner import invoke
from vmodtool.errors import VmodError
from vmodtool.replay import Replay
from vmodtool.report.narrative import NoteReader, StepNote, narrative_records, placed_notes
from vmodtool.step_notes import Note, StepAddress, read_notes

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "formats"
LOG = DEMO / "demo.vlog"
MODULE = DEMO / "demo.vmod"
HOSTILE = "</script><img src=x onerror=alert(1)> Контратака у моста"


def notes_file(folder: Path, text: str) -> Path:
    path = folder / "notes.txt"
    path.write_text(text, encoding="utf-8")
    return path


def page_data(page: Path) -> dict[str, object]:
    text = page.read_text(encoding="utf-8")
    block = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S)
    assert block is not None
    data: dict[str, object] = json.loads(block.group(1))
    return data


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo log merged (a chain of one) with two notes: a merged log's
    own ``[note]`` chat lines."""
    folder = tmp_path_factory.mktemp("merged")
    notes = notes_file(folder, f"0: Пролог\n3: {HOSTILE}\n")
    out = folder / "merged.vlog"
    code, _, stderr = invoke(["merge", LOG, "-o", out, "--notes", notes])
    assert code == 0, stderr
    return out


# -- the column's data -------------------------------------------------------------------------

def test_notes_are_placed_at_the_chain_steps_they_name(tmp_path: Path) -> None:
    notes = read_notes(notes_file(tmp_path, "# the story\n0: Начало\n2: the roll\ndemo.vlog:5: flip\n1:7: end\n"))
    replay = Replay.open([LOG], module=MODULE)
    assert placed_notes(notes, replay) == [StepNote(0, "Начало", "notes"), StepNote(2, "the roll", "notes"),
                                           StepNote(5, "flip", "notes"), StepNote(7, "end", "notes")]


def test_log_addresses_in_a_chain() -> None:
    """``LOG:N`` counts within that log; step 0 of a later log is shown with
    the last step of the log before it (the board it starts from)."""
    files, per_file = ["a.vlog", "b.vlog", "c.vlog"], [4, 0, 6]
    assert StepAddress(0, 3).chain_step(files, per_file) == 4
    assert StepAddress(2, "c").chain_step(files, per_file) == 6
    assert StepAddress(2, 3).chain_step(files, per_file) == 6
    assert StepAddress(10).chain_step(files, per_file) == 10
    with pytest.raises(VmodError, match="c.vlog has 6 steps, not 7"):
        StepAddress(7, "c.vlog").chain_step(files, per_file)


def test_a_note_off_the_game_is_located_at_its_line(tmp_path: Path) -> None:
    replay = Replay.open([LOG], module=MODULE)
    for text, message in (("1: fine\n\n8: beyond\n", "line 3: step 8 is beyond the chain's 7 steps"),
                          ("2:1: no second log\n", "line 1: log 2 is not one of the 1 logs"),
                          ("turn-9.vlog:1: x\n", "line 1: no log named 'turn-9.vlog'")):
        with pytest.raises(VmodError) as info:
            placed_notes(read_notes(notes_file(tmp_path, text)), replay)
        assert str(info.value) == f"{tmp_path / 'notes.txt'}: {message}"


def test_a_merged_logs_notes_are_read_by_the_visitor(merged: Path) -> None:
    replay = Replay.open([merged], module=MODULE)
    (found,) = replay.run(NoteReader())
    # merge puts each note before the step it names: the 1st step of the
    # merged log is the note of step 0, the note of step 3 comes after 2
    # steps and the first note, as step 4
    assert found == [StepNote(1, "Пролог", "log"), StepNote(4, HOSTILE, "log")]
    steps = list(Replay.open([merged], module=MODULE).steps())
    assert [line for s in steps if s.number == 4 for line in s.chat_lines] == \
        ["[note] " + HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")]


def test_a_players_chat_is_not_a_note() -> None:
    (found,) = Replay.open([LOG], module=MODULE).run(NoteReader())
    assert found == []


def test_records_are_by_step_in_source_order() -> None:
    in_log = [StepNote(4, "b", "log"), StepNote(9, "c", "log")]
    from_file = [StepNote(9, "d", "notes"), StepNote(0, "a", "notes")]
    assert [r["text"] for r in narrative_records(in_log, from_file)] == ["a", "b", "c", "d"]
    assert narrative_records(in_log)[0] == {"step": 4, "text": "b", "source": "log"}


# -- the command -------------------------------------------------------------------------------

def test_report_with_notes_shows_both_sources(merged: Path, tmp_path: Path) -> None:
    notes = notes_file(tmp_path, f"2: {HOSTILE}\n")
    page = tmp_path / "game.html"
    code, stdout, stderr = invoke(["report", merged, "-m", MODULE, "--notes", notes, "-o", page])
    assert code == 0, stderr
    assert stdout.strip().endswith("3 note(s)")
    data = page_data(page)
    assert data["notes"] == [{"step": 1, "text": "Пролог", "source": "log"},
                             {"step": 2, "text": HOSTILE, "source": "notes"},
                             {"step": 4, "text": HOSTILE, "source": "log"}]
    text = page.read_text(encoding="utf-8")
    assert "<img src=x" not in text and text.count("</script>") == 2    # the data block and the script
    assert 'id="narrative"' not in text and "narrative" in text         # made by the script, not markup


def test_a_note_off_the_game_writes_nothing(tmp_path: Path) -> None:
    notes = notes_file(tmp_path, "1: fine\n# a comment\n12: beyond the game\n")
    page = tmp_path / "game.html"
    code, stdout, stderr = invoke(["report", LOG, "-m", MODULE, "--notes", notes, "-o", page])
    assert code == 2 and stdout == ""
    assert stderr.strip() == f"vmodtool: error: {notes}: line 3: step 12 is beyond the chain's 7 steps"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_bad_notes_line_is_located(tmp_path: Path) -> None:
    notes = notes_file(tmp_path, "1: fine\nno step here\n")
    code, _, stderr = invoke(["report", LOG, "-m", MODULE, "--notes", notes, "-o", tmp_path / "g.html"])
    assert code == 2 and f"{notes}: line 2: expected 'STEP: text'" in stderr
    assert not (tmp_path / "g.html").exists()


def test_without_notes_the_page_is_as_before(tmp_path: Path) -> None:
    """No notes: no narrative data, style or script, so the page is the
    one the report made before the column existed (``benchmarks/
    output_snapshot.py`` holds it byte for byte on every recorded game)."""
    from vmodtool.report.page import asset_text

    page = tmp_path / "plain.html"
    code, stdout, stderr = invoke(["report", LOG, "-m", MODULE, "-o", page])
    assert code == 0, stderr
    assert "note(s)" not in stdout
    text = page.read_text(encoding="utf-8")
    assert "notes" not in page_data(page)
    assert asset_text("narrative.js") not in text and asset_text("narrative.css") not in text
    noted = tmp_path / "noted.html"
    code, _, stderr = invoke(["report", LOG, "-m", MODULE, "--notes", notes_file(tmp_path, "1: x\n"), "-o", noted])
    assert code == 0, stderr
    assert asset_text("narrative.js") in noted.read_text(encoding="utf-8")


def test_merge_locates_a_note_off_the_chain_too(tmp_path: Path) -> None:
    notes = notes_file(tmp_path, "\n3:1: x\n")
    code, _, stderr = invoke(["merge", LOG, "-o", tmp_path / "m.vlog", "--notes", notes])
    assert code == 2 and stderr.strip() == f"vmodtool: error: {notes}: line 2: log 3 is not one of the 1 logs"
    assert not (tmp_path / "m.vlog").exists()


def test_a_note_is_a_note_of_the_file_it_came_from() -> None:
    note = Note(StepAddress(3), "x", "n.txt", 4)
    assert note.place == "line 4"
    assert Note(StepAddress(3), "x").place is None


def test_merge_locates_an_edit_off_the_chain(tmp_path: Path) -> None:
    edits = tmp_path / "edits.yaml"
    edits.write_text("- {step: 2, note: fine}\n- {step: 40, delete: true}\n", encoding="utf-8")
    code, _, stderr = invoke(["merge", LOG, "-o", tmp_path / "m.vlog", "--edits", edits])
    assert code == 2 and stderr.strip() == f"vmodtool: error: {edits}: entry 2: step 40 is beyond the chain's 7 steps"
    edits.write_text("- {step: '1:0', delete: true}\n", encoding="utf-8")
    code, _, stderr = invoke(["merge", LOG, "-o", tmp_path / "m.vlog", "--edits", edits])
    assert code == 2 and stderr.strip() == \
        f"vmodtool: error: {edits}: entry 1: step 0 is the start, not a step to delete"
    assert not (tmp_path / "m.vlog").exists()
