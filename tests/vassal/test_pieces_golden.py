"""Piece definitions against VASSAL 3.7.26's own decoding (golden ``pieces/``
and ``traits/``; the golden README describes both folders)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.conftest import shared_path
from vmodtool.vassal import traits as T
from vmodtool.vassal.keys import key
from vmodtool.vassal.pieces import PieceDef

#: piece names that depend on a BeanShell ``{…}`` expression (a Layer that
#: follows ``{If(VP_Bid_Type > 0, 1, 2)}`` / ``{Variant+1}``); BeanShell is
#: not evaluated by vmodtool, so these two names differ from VASSAL's.
BEANSHELL_NAMES = {("pog.jsonl", 53), ("pog.jsonl", 446)}


def _load(path) -> list[dict]:
    out = []
    for f in sorted(path.glob("*.jsonl")):
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                d["_file"] = f.name
                out.append(d)
    return out


@pytest.fixture(scope="module")
def golden_pieces() -> list[dict]:
    return _load(shared_path("golden", "pieces"))


def test_all_golden_definitions(golden_pieces):
    counts: Counter = Counter()
    failures: dict[str, list] = {}

    def fail(kind: str, what) -> None:
        failures.setdefault(kind, []).append(what)

    for d in golden_pieces:
        counts["definitions"] += 1
        p = PieceDef.parse(d["definition"])
        if len(p.traits) != len(d["traits"]):
            fail("trait count", d["index"])
            continue
        counts["same trait count"] += 1
        ok_cls = ok_tok = True
        for t, g in zip(p.traits, d["traits"], strict=True):
            counts["traits"] += 1
            if t.java_class != g["class"]:
                ok_cls = False
                fail("class", (d["_file"], d["index"], t.java_class, g["class"]))
            if t.type != g.get("type_in", g["type"]) or t.state != g.get("state_in", g["state"]):
                ok_tok = False
                fail("tokens", (d["_file"], d["index"], t.prefix))
            if "type_in" not in g and t.java_class == g["class"]:
                counts["traits with VASSAL-identical type"] += 1
                if t.view().encode_type() == g["type"]:
                    counts["computed type == VASSAL's"] += 1
                else:
                    fail("computed type", (d["_file"], d["index"], t.prefix))
        counts["same classes"] += ok_cls
        counts["same tokens"] += ok_tok
        if p.name == d["piece_name"]:
            counts["same name"] += 1
        elif (d["_file"], d["index"]) not in BEANSHELL_NAMES:
            fail("name", (d["_file"], d["index"], p.name, d["piece_name"]))
        if p.encode() == d["definition"]:
            counts["re-encoding identical"] += 1
        else:
            fail("encode", d["index"])
        if p.encode_computed() == d["definition"]:
            counts["computed encoding identical"] += 1
        else:
            fail("computed encoding", d["index"])
    print("\ngolden pieces:", dict(counts))
    assert counts["definitions"] == 6652
    assert not failures, {k: v[:5] for k, v in failures.items()}
    assert counts["same name"] >= counts["definitions"] - len(BEANSHELL_NAMES)


# ------------------------------------------------------------------ examples
F, M, S, R, L = key("F"), key("M"), key("S"), key("R"), key("L")


def _report():
    return T.ReportState.build(keys=[F, M], report_format="$oldPieceName$ $menuCommand$ ($location$)",
                               description="Report flip and moved")


def _markmoved():
    return T.MovementMarkable.build(x_offset=24, y_offset=-24, command="Mark Moved",
                                    description="Moved marker")


def _unit_inner():
    return [
        T.Marker.build(properties={"UnitId": "us.inf.1", "UnitType": "mech_inf",
                                   "Side": "NATO", "Formation": "1-36"}),
        T.DynamicProperty.build(key="Step", numeric=True, min_value=1, max_value=2,
                                key_commands=[("Step Loss", S, "P,1"), ("Restore", R, "P,2")],
                                description="Step", state="2"),
        T.Embellishment.build(activate_command="", up_command="Flip",
                              image_names=["us-inf-1-front.png", "us-inf-1-back.png"],
                              level_names=["", ""], layer_name="Flip", always_active=True,
                              activate_keystroke=None, increase_keystroke=F,
                              description="Flip layer"),
        T.BasicPiece.build(image="us-inf-1-front.png", piece_name="1/A/1-36 Inf"),
    ]


EXAMPLES = {
    "unit_two_sided": lambda: [_report(), _markmoved(), T.Delete.build()] + _unit_inner(),
    "unit_two_sided_with_prototype": lambda: [T.UsePrototype.build(prototype_name="NATO unit")]
    + _unit_inner(),
    "prototype_nato_unit": lambda: [_report(), _markmoved(), T.Delete.build(),
                                    T.BasicPiece.build()],
    "marker_ops_complete": lambda: [T.Delete.build(),
                                    T.BasicPiece.build(image="ops-complete.png",
                                                       piece_name="Ops Complete")],
    "hq_with_command_range_label": lambda: [
        T.Labeler.build(label_key=L, menu_command="Change Label", font_size=9,
                        bg_color="255,255,204", vertical_pos="b", vertical_just="t",
                        name_format="$pieceName$", font_style=1,
                        property_name="CommandRangeLabel", description="Command range label",
                        state="CR $CommandRange$"),
        T.Marker.build(properties={"UnitId": "us.hq.1-36", "UnitType": "hq", "Side": "NATO",
                                   "Formation": "1-36", "CommandRange": "4"}),
        T.Delete.build(),
        T.BasicPiece.build(image="us-hq-1-36.png", piece_name="HQ 1-36 Inf"),
    ],
}


@pytest.fixture(scope="module")
def examples() -> dict[str, dict]:
    path = shared_path("golden", "traits", "examples.jsonl")
    with open(path, encoding="utf-8") as fh:
        return {d["name"]: d for d in map(json.loads, fh)}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_built_byte_for_byte(examples, name):
    d = examples[name]
    built = PieceDef.from_traits(EXAMPLES[name]())
    assert built.encode() == d["definition"]
    assert built.name == d["piece_name"]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_decode(examples, name):
    d = examples[name]
    p = PieceDef.parse(d["definition"])
    assert [t.java_class for t in p.traits] == [g["class"] for g in d["decoded_traits"]]
    assert [(t.type, t.state) for t in p.traits] == [(g["type"], g["state"])
                                                     for g in d["decoded_traits"]]
    assert p.name == d["piece_name"]
    for t in p.traits:
        assert t.view().encode_type() == t.type


def test_defaults_match_golden():
    path = shared_path("golden", "traits", "defaults.jsonl")
    views = {c.CLASS: c for c in vars(T).values()
             if isinstance(c, type) and issubclass(c, T.TraitView) and getattr(c, "CLASS", "")}
    seen = 0
    with open(path, encoding="utf-8") as fh:
        for d in map(json.loads, fh):
            cls = views[d["class"]]
            trait = cls.build()
            assert trait.type == d["type"], d["class"]
            assert T.DEFAULT_TYPES[d["class"]] == d["type"]
            assert trait.prefix == d["id"]
            if d["state"] is not None and not d["state"].startswith("!ERROR"):
                assert trait.state == d["state"], d["class"]
            # the definition around an empty BasicPiece
            if d["state"] is not None and not d["state"].startswith("!ERROR") \
                    and d["class"] != "VASSAL.counters.BasicPiece":
                piece = PieceDef.from_traits([trait, T.BasicPiece.build()])
                assert piece.encode() == d["definition_around_empty_basicpiece"]
            seen += 1
    assert seen == 31
