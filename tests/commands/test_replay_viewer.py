"""``vmodtool replay --viewer SIDE`` / ``--referee``: a drawn card is named
in the text and the JSON only to the viewers who could see it; ``--step``
lists decks and hands with their counts."""

from __future__ import annotations

import json

from tests.cli_runner import invoke
from tests.replay.test_decks import PLAYERS, _buildfile_text
from vmodtool.vassal.gamewriter import GameWriter
from vmodtool.vassal.module import Module


def _game(tmp_path):
    folder = tmp_path / "mod"
    folder.mkdir()
    (folder / "buildFile.xml").write_text(_buildfile_text(), encoding="utf-8")
    sizes = tmp_path / "sizes.json"
    sizes.write_text('{"Felt": [800, 600]}', encoding="utf-8")
    with Module.open(folder) as module:
        w = GameWriter(module, players=PLAYERS, board_sizes={"Felt": (800, 600)})
        w.snapshot()
        w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
        log = tmp_path / "game.vlog"
        log.write_bytes(w.to_bytes(date_saved="1"))
    return log, folder / "buildFile.xml", sizes


def test_viewer_and_referee_in_text_and_json(tmp_path):
    log, module, sizes = _game(tmp_path)
    base = ["replay", log, "-m", module, "--board-sizes", sizes]
    for extra, named in (([], False), (["--viewer", "Germans"], False), (["--viewer", "Soviets"], True),
                         (["--referee"], True)):
        code, out, _ = invoke(base + extra)
        assert code == 0
        assert "Sami drew" in out and ("Frost" in out) is named
        assert "pw-sami" not in out
        code, out, _ = invoke(base + extra + ["--format", "jsonl"])
        assert code == 0
        step = next(json.loads(line) for line in out.splitlines() if json.loads(line)["type"] == "step")
        (draw,) = [e for e in step["events"] if e["kind"] == "draw"]
        assert draw["visible"] is named and (draw["piece"]["name"] == "Frost") is named
        assert draw["hand"] == "Soviets Hand" and draw["hand_count"] == 1


def test_step_lists_decks_and_hands(tmp_path):
    log, module, sizes = _game(tmp_path)
    code, out, _ = invoke(["replay", log, "-m", module, "--board-sizes", sizes, "--step", "1"])
    assert code == 0
    assert "deck Fate on Table (100,100): 4 cards, face down" in out
    assert "hand Soviets Hand (Soviets): 1 piece" in out and "Frost" not in out
    code, out, _ = invoke(["replay", log, "-m", module, "--board-sizes", sizes, "--step", "0",
                           "--format", "jsonl"])
    decks = [json.loads(line) for line in out.splitlines() if json.loads(line)["type"] == "deck"]
    assert [(d["name"], d["count"], d["face_down"], d["cards"]) for d in decks] == \
        [("Fate", 5, True, None), ("Fate Discard", 0, False, [])]


def test_viewer_and_referee_together_is_a_usage_error(tmp_path):
    log, module, sizes = _game(tmp_path)
    code, _, err = invoke(["replay", log, "-m", module, "--board-sizes", sizes, "--viewer", "Soviets",
                           "--referee"])
    assert code == 2 and "not both" in err
