"""The ``decks`` and ``hands`` sections: a good file loads into the card
model; each mistake is one located problem (file:line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.summary import scenario_summary

FIXTURE = Path(__file__).parent / "fixtures" / "example_a" / "scenario.yaml"

DECKS = '''
decks:
  - id: idf_draw
    name: "Колода ЦАХАЛ"
    owner: idf
    reshuffle_from: idf_discard
    back: "Судьба"
    cards:
      - {id: c.smoke, name: "Дым (Smoke)", event: Smoke, trigger: play, tags: [event], count: 2,
         values: {d6: 3, hex: "0304"}, text: "Поставьте маркер дыма."}
      - {id: c.air, name: "Air strike", text: "One air strike.", trigger: draw}
  - id: idf_discard
    name: "Сброс ЦАХАЛ"
    role: discard
    owner: idf
  - {id: shared, name: "Shared", zone: chit_cup, size: mini-euro, shuffle: menu, face_down: false}

hands:
  - {side: idf, name: "Рука ЦАХАЛ", size: 5}
  - {side: syr}
'''


def write(tmp_path: Path, extra: str, files: dict[str, bytes] | None = None) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(FIXTURE.read_text(encoding="utf-8") + extra, encoding="utf-8")
    for name, data in (files or {}).items():
        (tmp_path / name).write_bytes(data)
    return path


def line_of(text: str, needle: str) -> int:
    base = FIXTURE.read_text(encoding="utf-8").count("\n")
    return base + text[:text.index(needle)].count("\n") + 1


def test_decks_and_hands_load(tmp_path):
    sc = load_scenario(write(tmp_path, DECKS))
    draw, discard, shared = sc.decks
    assert (draw.name, draw.role, draw.owner, draw.face_down, draw.shuffle) == \
        ("Колода ЦАХАЛ", "draw", "idf", True, "always")
    assert draw.reshuffle_from == "idf_discard" and draw.back == "Судьба"
    assert (discard.role, discard.face_down, discard.shuffle, discard.back) == \
        ("discard", False, "never", "Сброс ЦАХАЛ")
    assert (shared.zone, shared.size, shared.shuffle, shared.owner) == ("chit_cup", "mini-euro", "menu", None)
    smoke, air = draw.cards
    assert (smoke.name, smoke.event, smoke.trigger, smoke.count, smoke.deck) == \
        ("Дым (Smoke)", "Smoke", "play", 2, "idf_draw")
    assert dict(smoke.values) == {"d6": 3, "hex": "0304"} and smoke.tags == frozenset({"event"})
    assert air.trigger == "draw" and air.event is None
    assert [cid for cid, _ in draw.copies()] == ["c.smoke", "c.smoke#2", "c.air"]
    assert smoke.position.line == line_of(DECKS, "{id: c.smoke")
    assert [(h.side, h.name, h.size) for h in sc.hands] == \
        [("idf", "Рука ЦАХАЛ", 5), ("syr", "Syrian Arab Army hand", None)]
    summary = scenario_summary(sc)
    assert (summary["decks"], summary["cards"], summary["hands"]) == (3, 3, 2)
    assert "3 decks of 3 cards, 2 hands" in summary["text"]


MISTAKES = [
    ("owner: idf\n    reshuffle_from", "owner: usa\n    reshuffle_from", "owner: usa", "unknown side 'usa'"),
    ("zone: chit_cup", "zone: nowhere", "zone: nowhere", "unknown zone (a box id) 'nowhere'"),
    ("reshuffle_from: idf_discard", "reshuffle_from: idf_dscard", "reshuffle_from: idf_dscard",
     "unknown deck 'idf_dscard'; did you mean 'idf_discard'?"),
    ("reshuffle_from: idf_discard", "reshuffle_from: shared", "reshuffle_from: shared",
     "a deck reshuffles from a discard deck"),
    ("id: shared, name", "id: idf_draw, name", "id: idf_draw, name", "duplicate deck id 'idf_draw'"),
    ("id: c.air,", "id: c.smoke,", 'c.smoke, name: "Air', "duplicate card id 'c.smoke'"),
    ("text: \"One air strike.\"", "image: missing.png", "image: missing.png",
     "the card image 'missing.png' does not exist"),
    ("size: mini-euro", "size: tarot", "size: tarot", "'tarot' is not allowed; expected one of: poker, mini-euro"),
    ("{side: syr}", "{side: idf}", "{side: idf}", "side 'idf' already has a hand"),
    ("{side: syr}", "{side: rus}", "{side: rus}", "unknown side 'rus'"),
    ("    back: \"Судьба\"", "    back_image: nope.png", "back_image: nope.png",
     "the card back image 'nope.png' does not exist"),
]


@pytest.mark.parametrize("old,new,needle,expected", MISTAKES, ids=[m[3][:30] for m in MISTAKES])
def test_each_deck_mistake_is_located(tmp_path, old, new, needle, expected):
    assert old in DECKS
    text = DECKS.replace(old, new, 1)
    _, problems = check_scenario(write(tmp_path, text))
    errors = [p for p in problems if p.severity == "error"]
    assert len(errors) == 1, "\n".join(map(str, errors))
    (problem,) = errors
    assert expected in problem.message
    assert problem.file and problem.file.endswith("scenario.yaml")
    assert problem.line == line_of(text, needle)


def test_existing_card_image_is_accepted(tmp_path):
    text = DECKS.replace('text: "One air strike."', "image: art/air.png")
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "air.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    sc = load_scenario(write(tmp_path, text))
    assert sc.decks[0].cards[1].image == "art/air.png"


def test_the_example_has_fate_decks_and_hands():
    sc = load_scenario(Path(__file__).parents[2] / "examples" / "combat-commander" / "scenario.yaml")
    by_id = {d.id: d for d in sc.decks}
    for side in ("fr", "it"):
        fate, discard, play = by_id[f"{side}_fate"], by_id[f"{side}_discard"], by_id[f"{side}_play"]
        assert fate.reshuffle_from == discard.id and discard.role == "discard"
        assert play.role == "play" and not play.face_down and not play.cards
        assert 12 <= len(fate.copies()) <= 16
        events = {c.event for c in fate.cards if c.event}
        assert {"Deploy", "Dust", "Élan", "Entrench", "FieldPromotion", "Hero"} <= events
    assert {h.side: h.size for h in sc.hands} == {"fr": 5, "it": 4}
