"""Typed trait views, builders, key strokes and encoding hazards."""

from __future__ import annotations

import pytest

from vmodtool.vassal import traits as T
from vmodtool.vassal.keys import (
    CTRL,
    CTRL_SHIFT,
    NamedKeyStroke,
    decode_key,
    decode_key_list,
    encode_key,
    encode_key_list,
    key,
    normalize_modifiers,
)
from vmodtool.vassal.pieces import PieceDef, Trait


def test_keystrokes():
    assert decode_key("70,130") == NamedKeyStroke(70, 130)
    assert decode_key("70,128") == NamedKeyStroke(70, CTRL)  # new-style mask normalised
    assert decode_key("57344,0,Flip") == NamedKeyStroke(57344, 0, "Flip")
    assert decode_key("57344,0,") == NamedKeyStroke(57344, 0)
    assert decode_key("") is None and decode_key("x,y") is None
    assert decode_key(None, NamedKeyStroke(68, 130)) == NamedKeyStroke(68, 130)
    assert decode_key("F") == NamedKeyStroke(70, CTRL)  # legacy single char + Ctrl
    assert encode_key(key("F", CTRL_SHIFT)) == "70,195"
    assert encode_key(NamedKeyStroke(57344, 0, "Flip")) == "57344,0,Flip"
    assert encode_key(None) == ""
    assert normalize_modifiers(2) == 130 and normalize_modifiers(64) == 65
    assert encode_key_list([key("F"), key("M")]) == "70\\,130,77\\,130"
    assert decode_key_list("70\\,130,77\\,130") == [key("F"), key("M")]
    assert decode_key_list("AB") == [NamedKeyStroke(65, 130), NamedKeyStroke(66, 130)]


def test_named_key_hazards():
    with pytest.raises(ValueError, match="','"):
        key("F", name="a,b")
    with pytest.raises(ValueError):
        encode_key(NamedKeyStroke(57344, 0, "bad,name"))
    with pytest.raises(ValueError, match="backslash"):
        T.Delete.build(command_name="Delete\\")
    with pytest.raises(ValueError, match="backslash"):
        T.BasicPiece.build(piece_name="x\\")
    with pytest.raises(ValueError):
        T.Marker.build(properties={"A": "v\\"})
    with pytest.raises(TypeError):
        T.Delete.build(no_such_field=1)


def test_embellishment_view():
    t = Trait("emb2;;128;A;Flip;128;;;128;;;;1;false;0;0;f.png,b.png;,+ (reduced);true;Side;;;"
              "false;;1;1;true;;70,130;;Flip layer;1.0;;true", "2")
    v = t.view()
    assert isinstance(v, T.Embellishment)
    assert v.image_names == ["f.png", "b.png"] and v.level_names == ["", "+ (reduced)"]
    assert v.layer_name == "Side" and v.always_active and not v.can_be_activated
    assert v.increase_keystroke == key("F") and v.activate_keystroke is None
    assert v.value == 2 and v.active and v.scale == 1.0
    assert v.encode_type() == t.type


def test_embellishment_version0_legacy_fields():
    v = Trait("emb2;Activate;128;A;;128;;;128;;;;1;false;0;0;a.png;;true;L", "-1").view()
    # version 0 with activate key 'A': converted, not always active (docs/vassal-format.md §3.4 field 25)
    assert v.version == 1 and not v.always_active and v.can_be_activated
    assert v.activate_keystroke == NamedKeyStroke(65, 130)
    assert Trait("emb2;;128;AB;;128;;;128;;;;1;false;0;0;a.png", "1").java_class \
        == "VASSAL.counters.Embellishment0"


def test_legacy_emb():
    t = Trait("emb;A;_Hide;;;;;0;0;a.png,First;b.png,+ second", "-1")
    v = t.view()
    assert v.activate_command == "Hide" and v.draw_underneath
    assert v.image_names == ["a.png", "b.png"] and v.level_names == ["First", "+ second"]
    assert t.java_class == "VASSAL.counters.Embellishment"


def test_reader_defaults_for_missing_fields():
    assert Trait("delete;").view().key == NamedKeyStroke(68, 130)
    assert Trait("delete;").view().command_name == ""
    lab = Trait("label;").view()
    assert lab.name_format == "$pieceName$ ($label$)" and lab.property_name == "TextLabel"
    assert Trait("immob;;V").view().stacking_options == "R"
    dp = Trait("PROP;Strength;true,0,4,false;Lose step:76\\,130:I\\,-1,Set::R\\,New strength?;"
               "steps", "3").view()
    assert (dp.key, dp.numeric, dp.min_value, dp.max_value, dp.wrap) == ("Strength", True, 0, 4,
                                                                          False)
    assert dp.commands() == [("Lose step", key("L"), "I,-1"), ("Set", None, "R,New strength?")]
    assert dp.value == "3"


def test_freerotator_fields_depend_on_facings():
    v = Trait("rotate;6;93,130;91,130;Rotate CW;Rotate CCW;;;Dir;;;;;true", "2").view()
    assert v.facings == 6 and v.rotate_cw_text == "Rotate CW" and v.rotator_name == "Dir"
    free = Trait("rotate;1;82,130;Set angle;;;Dir", "45.0").view()
    assert free.set_angle_text == "Set angle" and free.rotator_name == "Dir"
    assert free.encode_type() == "rotate;1;82,130;Set angle;;;Dir;;;;;true"
    p = PieceDef.from_traits([Trait(v.type, "2"), T.BasicPiece.build(piece_name="T")])
    assert p.properties()["Dir_Facing"] == "3" and p.properties()["Dir_Degrees"] == "120"


def test_labeler_and_mask_and_hide_names():
    base = T.BasicPiece.build(piece_name="Tank")
    lab = T.Labeler.build(state="Hello")
    assert PieceDef.from_traits([lab, base]).name == "Tank (Hello)"
    lab2 = T.Labeler.build(name_format="$label$!", state="$Side$ unit")
    mark = T.Marker.build(properties={"Side": "US"})
    piece = PieceDef.from_traits([lab2, mark, base])
    assert piece.name == "US unit!"
    assert piece.properties()["TextLabel"] == "US unit"
    # unknown property: VASSAL substitutes its name
    assert PieceDef.from_traits([T.Labeler.build(state="$Nope$"), base]).name == "Tank (Nope)"
    assert PieceDef.from_traits([T.Obscurable.build(state="null;"), base]).name == "Tank"
    assert PieceDef.from_traits([T.Obscurable.build(state="p1;x"), base]).name == "?"
    assert PieceDef.from_traits([T.Hideable.build(state="p1"), base]).name == ""
    assert PieceDef.from_traits([T.BasicName.build(basic_name="Other"), base]).name == "Other"


def test_layer_name_rules():
    base = T.BasicPiece.build(piece_name="Inf")

    def named(level_name: str) -> str:
        emb = T.Embellishment.build(image_names=["a.png"], level_names=[level_name], state="1")
        return PieceDef.from_traits([emb, base]).name

    assert named("+ (reduced)") == "Inf (reduced)"
    assert named("Elite +") == "Elite Inf"
    assert named("Gone") == "Gone"
    assert named("") == "Inf"


def test_layer_follows_property():
    emb = T.Embellishment.build(image_names=["1.png", "2.png", "3.png"],
                                level_names=["one", "two", "three"], follow_property=True,
                                property_name="Step", state="1")
    dp = T.DynamicProperty.build(key="Step", state="3")
    p = PieceDef.from_traits([emb, dp, T.BasicPiece.build(piece_name="X")])
    assert p.name == "three"
    assert p.properties()["_Level"] == "3"


def test_movement_markable_and_marker_properties():
    p = PieceDef.from_traits([T.MovementMarkable.build(state="true"),
                              T.Marker.build(keys=["A", "B"], state="1"),
                              T.BasicPiece.build(piece_name="P")])
    props = p.properties()
    assert props["Moved"] == "true" and props["A"] == "1" and props["B"] == ""


def test_builders_write_every_field():
    assert T.Delete.build().type == "delete;Delete;68,130;"
    assert T.Immobilized.build(movement_options="V").type == "immob;;V;R;"
    assert T.UsePrototype.build(prototype_name="P", parameters={"a": "1", "b": "2"}).type \
        == "prototype;P;a=1,b=2"
    assert T.Embellishment.build().type.endswith(";1.0;;true")
    assert T.FreeRotator.build(facings=1).type == "rotate;1;;;;;;;;;;true"
    assert T.Hideable.build().type == "hide;73,130;Invisible;;player:;0.30000001192092896;;false"
    assert T.NonRectangular.build().type == "nonRect2;1.0;"
    for cls in (T.Clone, T.SendToLocation, T.TriggerAction, T.CounterGlobalKeyCommand,
                T.RestrictCommands, T.Restricted, T.ReportState):
        t = cls.build()
        assert t.type == T.DEFAULT_TYPES[cls.CLASS]
        assert t.view().encode_type() == t.type


def test_build_piece_round_trip():
    p = T.build_piece(T.Delete.build(), T.BasicPiece.build(image="a.png", piece_name="A/B"))
    text = p.encode()
    assert text == "+/null/delete;Delete;68,130;\tpiece;;;a.png;A\\/B/\tnull;0;0;;0"
    again = PieceDef.parse(text)
    assert again == p and again.name == "A/B"
    assert [v.java_class for v in again.find("Delete")] == ["VASSAL.counters.Delete"]
