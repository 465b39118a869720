"""What a unit shows (its face and status layers) is read once per state of
the traits that decide it (``PieceBinder._shown_key``), not once per piece
and place: checked against the read itself for every piece of the example
games (and of a module vmodtool did not build), and the check fails when the
key leaves out a trait that decides."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_engine_shortcuts import SYSTEMS, _refs, _replays
from vmodtool.audit.binding import PieceBinder
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _binders() -> dict[str, PieceBinder]:
    out = {s: PieceBinder(load_scenario(EXAMPLES / s / "scenario.yaml")) for s in SYSTEMS}
    try:
        from tests.conftest import shared_path
        build = shared_path("corpus", "ragnarok", "buildFile.xml")
    except BaseException:                   # noqa: BLE001 - no shared corpus here
        return out
    from vmodtool.vassal.module import Module
    module = Module.open(build)
    out["ragnarok"] = PieceBinder(load_scenario(EXAMPLES / "ragnarok" / "scenario.yaml", module=module), module)
    return out


def _mismatches(binders: dict[str, PieceBinder]) -> tuple[int, int, int]:
    """(reads compared, reads that differ, distinct keys) over every piece
    reference of the example replays."""
    compared = wrong = 0
    keys: set[tuple[object, ...]] = set()
    for name, replay in _replays():
        binder = binders["ragnarok" if name == "ragnarok" else next(s for s in SYSTEMS if replay.games[0].file
                                                                  and s in str(replay.games[0].file))]
        for ref in _refs(replay):
            for faces, current in ((3, 0), (2, 1)):
                cached = binder.shown(ref, faces, current)
                index = binder._face_index(ref)
                face = current if index is None else max(0, min(index, faces - 1))
                compared += 1
                wrong += cached != (face, binder.layers(ref))
            keys.add(binder._shown_key(ref))
    return compared, wrong, len(keys)


def test_shown_equals_the_read() -> None:
    compared, wrong, keys = _mismatches(_binders())
    assert wrong == 0
    assert compared > 2000 and keys < compared / 2


def test_a_key_without_the_deciding_traits_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PieceBinder, "_deciding_traits", lambda self, ref: ())
    _, wrong, _ = _mismatches(_binders())
    assert wrong > 0
