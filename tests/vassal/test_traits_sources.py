"""The property-source index of a trait chain (``traits._SOURCES``): a
property read goes straight to the trait that answers it, learnt by one walk
per chain.  Checked against the general walk (every trait from the
outermost inward) over the pieces of real modules and saved games, and the
claim of :meth:`TraitView.answers_alone` (the answer is a function of that
trait's own type and state) against pieces that differ in every other
trait's state and in their id."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import SHARED
from vmodtool.errors import VmodError
from vmodtool.vassal import traits
from vmodtool.vassal.commands import AddPiece, leaves
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.traits import (
    BasicPiece,
    CalculatedProperty,
    DynamicProperty,
    Embellishment,
    Labeler,
    Marker,
    piece_properties,
    piece_property,
    property_sources,
)

#: keys every chain is asked besides its own properties
EXTRA = ("BasicName", "PieceName", "CurrentMap", "CurrentX", "PieceUID", "UniqueID", "Moved",
         "ObscuredToOthers", "InvisibleToOthers", "NoSuchKey", "_Level", "_Active", "_Name")


def _general_prop(self: Any, i: int, key: str) -> Any:
    """``_Context.prop`` as it was before the index: every trait from i inward."""
    token = ("prop", i, key)
    if not self.enter(token):
        return None
    try:
        for j in range(i, len(self.views)):
            value = self.views[j].own_property(self, j, key)
            if value is not traits._MISSING:
                return value
        return None
    finally:
        self.leave(token)


@functools.cache
def _corpus_texts(limit_per_file: int = 400) -> tuple[str, ...]:
    """The piece texts of the saved games and modules of ../shared (none
    without it), read once for the tests of this file (each parses its own
    pieces from them)."""
    from vmodtool.vassal.buildfile import BuildFile
    from vmodtool.vassal.savefile import SavedGame
    texts: list[str] = []
    for path in sorted(SHARED.glob("corpus/*/*.vsav"))[:12]:
        try:
            saved = SavedGame.read(path)
            n = 0
            for _, cmd in leaves(saved.commands):
                if isinstance(cmd, AddPiece) and not cmd.is_stack and n < limit_per_file:
                    PieceDef.parse(cmd.text)
                    texts.append(cmd.text)
                    n += 1
        except VmodError:
            continue
    for path in sorted(SHARED.glob("corpus/*/buildFile*"))[:8]:
        try:
            build = BuildFile.parse(path.read_bytes(), file=path)
        except (VmodError, OSError):
            continue
        for k, slot in enumerate(build.piece_slots()):
            if k >= limit_per_file:
                break
            try:
                PieceDef.parse(slot.definition)
            except VmodError:
                continue
            texts.append(slot.definition)
    return tuple(texts)


def _corpus_pieces() -> Iterator[PieceDef]:
    """Pieces of the saved games and modules of ../shared, parsed afresh."""
    for text in _corpus_texts():
        yield PieceDef.parse(text)


def _synthetic() -> list[PieceDef]:
    """Chains whose answers depend on other traits: a label naming a
    marker, a calculated property, a layer following a property."""
    basic = BasicPiece.build(state="Main;10;20;;", image="a.png", piece_name="Tank")
    follow = Embellishment.build(state="1", layer_name="Step", image_names=["a.png", "b.png"],
                                 level_names=["full", "reduced"], follow_property=True,
                                 property_name="Steps", first_level_value=1, always_active=True)
    plain = Embellishment.build(state="-1", layer_name="Disrupted", image_names=["d.png"], level_names=["d"])
    out = []
    for steps in ("1", "2"):
        chain = [Labeler.build(state="$Steps$ steps", property_name="Strength"),
                 CalculatedProperty.build(property_name="Twice", expression="$Steps$$Steps$"),
                 follow, plain,
                 DynamicProperty.build(state=steps, key="Steps"),
                 Marker.build(properties={"Side": "red", "UnitId": "u1"}),
                 basic]
        out.append(PieceDef.from_traits(chain, f"id{steps}"))
    return out


def _keys(piece: PieceDef) -> list[str]:
    try:
        own = list(piece_properties(piece))
    except VmodError:
        own = []
    layers = [v.layer_name for v in piece.views() if isinstance(v, Embellishment)]
    return own + list(EXTRA) + [f"{n}{s}" for n in layers for s in ("_Level", "_Active", "_Name", "_Image")]


def _read(piece: PieceDef, key: str) -> object:
    try:
        return piece_property(piece, key)
    except VmodError as exc:
        return ("raises", type(exc).__name__)


def _pieces() -> list[PieceDef]:
    return _synthetic() + list(_corpus_pieces())


def test_indexed_reads_equal_the_general_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = _pieces()
    traits._SOURCES.clear()
    fast = [[_read(p, k) for k in _keys(p)] for p in pieces]
    monkeypatch.setattr(traits._Context, "prop", _general_prop)
    slow = [[_read(p, k) for k in _keys(p)] for p in pieces]
    assert fast == slow
    assert sum(map(len, fast)) > (20000 if SHARED.joinpath("corpus").exists() else 50)
    # (a chain asked again uses what it learnt: the same answers)
    monkeypatch.undo()
    assert [[_read(p, k) for k in _keys(p)] for p in pieces] == slow


def test_a_wrong_source_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails when the index names a wrong trait."""
    pieces = _synthetic()
    slow = [[_read(p, k) for k in _keys(p)] for p in pieces]
    traits._SOURCES.clear()
    monkeypatch.setattr(traits._Context, "source", lambda self, key: len(self.views) - 1)
    assert [[_read(p, k) for k in _keys(p)] for p in pieces] != slow
    monkeypatch.undo()
    traits._SOURCES.clear()


def _with_state(donor: PieceDef, base: PieceDef, j: int) -> PieceDef:
    """``base`` (other id) with trait ``j``'s state taken from ``donor``."""
    items = list(base.traits)
    items[j] = Trait(items[j].type, donor.traits[j].state, innermost=items[j].innermost)
    return PieceDef(items, f"other-{base.id}")


def _alone_mismatches(pieces: list[PieceDef]) -> int:
    """Reads that differ between a piece and another of its trait types
    given the answering trait's state, where the source says the answer is
    that trait's alone."""
    groups: dict[tuple[str, ...], list[PieceDef]] = defaultdict(list)
    for p in pieces:
        groups[tuple(t.type for t in p.traits)].append(p)
    wrong = checked = 0
    for group in groups.values():
        if len(group) < 2:
            continue
        a, others = group[0], group[1:6]
        keys = _keys(a)
        try:
            sources = property_sources(a, keys)
        except VmodError:
            continue
        for key, source in zip(keys, sources, strict=True):
            if source is None or not source[1]:
                continue
            for b in others:
                checked += 1
                if _read(_with_state(a, b, source[0]), key) != _read(a, key):
                    wrong += 1
    assert checked > 0
    return wrong


def test_an_answer_alone_is_the_traits_own() -> None:
    assert _alone_mismatches(_pieces()) == 0


def test_answers_that_read_other_traits_are_not_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = _synthetic()
    keys = ["Strength", "Twice", "Step_Level", "Step_Name", "Disrupted_Active", "Steps", "Side", "PieceUID",
            "PieceName", "CurrentMap"]
    found = dict(zip(keys, property_sources(pieces[0], keys), strict=True))
    assert found == {"Strength": (0, False), "Twice": (1, False), "Step_Level": (2, False),
                     "Step_Name": (2, False), "Disrupted_Active": (3, True), "Steps": (4, True),
                     "Side": (5, True), "PieceUID": (6, False), "PieceName": (6, False), "CurrentMap": (6, True)}
    # the check above catches a trait that claims what it cannot
    for cls in (Labeler, CalculatedProperty, Embellishment):
        monkeypatch.setattr(cls, "answers_alone", lambda self, key: True)
    assert _alone_mismatches(pieces) > 0


# -- names: traits that pass the name on are skipped ------------------------------------------

def _general_name(self: Any, i: int) -> str:
    """``_Context.name`` as it was before: every trait from i inward."""
    if i >= len(self.views):
        return ""
    token = ("name", i)
    if not self.enter(token):
        return ""
    try:
        return self.views[i].name(self, i)
    finally:
        self.leave(token)


def _looping() -> list[PieceDef]:
    """Names that loop back into themselves through ``$PieceName$``, with
    traits that pass the name on before, between and after."""
    basic = BasicPiece.build(state="Main;1;2;;", image="a.png", piece_name="Gun")
    passing = [Marker.build(properties={"Side": "red"}), DynamicProperty.build(state="3", key="Steps")]
    label = Labeler.build(state="x $PieceName$", property_name="Tag", name_format="$pieceName$ [$label$]",
                          always_use_format=True)
    layer = Embellishment.build(state="1", layer_name="Step", image_names=["a.png"], level_names=["+ full"],
                                always_active=True)
    chains = [[label, *passing, layer, basic], [*passing, label, layer, *passing, basic],
              [layer, *passing, label, basic], [*passing, basic], [label, label, basic]]
    return [PieceDef.from_traits(c, "p") for c in chains]


def test_names_equal_the_general_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    from vmodtool.vassal.traits import piece_name
    pieces = _looping() + _synthetic() + list(_corpus_pieces())

    def names() -> list[object]:
        out: list[object] = []
        for p in pieces:
            try:
                out.append((piece_name(p), piece_property(p, "PieceName"), piece_property(p, "Tag")))
            except VmodError as exc:
                out.append(type(exc).__name__)
        return out
    fast = names()
    monkeypatch.setattr(traits._Context, "name", _general_name)
    assert fast == names()
    assert fast[0][0] == "Gun full [x ]"         # (the loop back into the name is cut)
    # (and the comparison catches a name that skips a naming trait)
    monkeypatch.undo()
    monkeypatch.setattr(traits, "_PASSES_NAME", Embellishment.name)
    assert names() != fast
