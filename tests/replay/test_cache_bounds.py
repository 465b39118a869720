"""The caches the readers keep across games (a batch worker replays game
after game in one process) hold a bounded number of entries and of
characters: a few huge piece types or states empty them rather than stay
held (types run to tens of kilobytes; a hostile file's to megabytes)."""

from __future__ import annotations

import pytest

from vmodtool.bounded import BoundedCache
from vmodtool.replay import events, state
from vmodtool.vassal import pieces


def _types(n: int, size: int) -> list[str]:
    return [f"mark;{i};" + "x" * size + "\tpiece;;;a.png;N" for i in range(n)]


def test_the_replays_split_caches_hold_a_bounded_number_of_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state._TYPE_CACHE, "max_chars", 100_000)
    monkeypatch.setattr(state._SPLIT_CACHE, "max_chars", 100_000)
    state._TYPE_CACHE.clear()
    state._SPLIT_CACHE.clear()
    held = []
    for text in _types(40, 10_000):                   # 400,000 characters of keys
        assert state.type_tokens(text) == tuple(text.split("\t"))
        assert state.split_levels(text, 2) == tuple(text.split("\t"))
        held.append(sum(map(len, state._TYPE_CACHE)) + sum(len(k[0]) for k in state._SPLIT_CACHE))
    assert max(held) <= 2 * (100_000 + 10_100)        # each: the bound and one more key at most
    assert state._TYPE_CACHE and state._SPLIT_CACHE   # (still caching after each emptying)


def test_the_piece_type_cache_holds_a_bounded_number_of_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pieces._TYPE_CACHE, "max_chars", 100_000)
    pieces._TYPE_CACHE.clear()
    for text in _types(40, 10_000):
        assert pieces._type_chain(text) == text.split("\t")
        assert sum(map(len, pieces._TYPE_CACHE)) <= 100_000 + 10_100


def test_the_refs_name_caches_hold_a_bounded_number_of_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    cache: BoundedCache[tuple[str | None, str, tuple[str, ...]], str] = BoundedCache(100_000, 100_000)
    for i, text in enumerate(_types(40, 10_000)):
        assert events._shared(cache, (str(i), text, ("s" * 100,)), lambda: "N") == "N"
        assert sum(len(k[1]) + sum(map(len, k[2])) for k in cache) <= 100_000 + 10_300
    assert len(cache) < 40


def test_a_pieces_unit_id_is_read_once_per_state() -> None:
    # a piece's refs in one state (a move's, then the next change's "before")
    # share its UnitId as they share its name: the second decodes nothing
    # (a replay printing every step asked each ref's chain again)
    types = "mark;UnitId\tpiece;;;;T-72"
    first = events.PieceRef("p1", types, ("syr.t72.1", "null;0;0;0"))
    assert first.label() == "T-72 [syr.t72.1]"
    again = events.PieceRef("p1", types, ("syr.t72.1", "null;0;0;0"))
    assert again.unit_id == "syr.t72.1" and again._def is None
    assert again.label() == "T-72 [syr.t72.1]" and again._def is None
    other = events.PieceRef("p1", types, ("syr.t72.2", "null;0;0;0"))
    assert other.unit_id == "syr.t72.2"
    bare = events.PieceRef("p2", "piece;;;;Chit", ("null;0;0;0",))
    assert bare.unit_id is None
    assert events.PieceRef("p2", "piece;;;;Chit", ("null;0;0;0",)).unit_id is None
