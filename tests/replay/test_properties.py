"""Global properties a module does not define: VASSAL decodes a
``MutableProperty``/``GlobalProperty`` command naming one as null and drops
it, so the replay warns (file, step, property) and does not report it set."""

from __future__ import annotations

import shutil
from pathlib import Path

from lxml import etree

from vmodtool.replay import PropertyEvent, Replay
from vmodtool.replay.properties import ModuleProperties
from vmodtool.vassal.buildfile import BuildFile

DEMO = Path(__file__).resolve().parents[2] / "examples" / "formats"
P = "VASSAL.build."


def _demo_without_dice(tmp_path: Path) -> Path:
    folder = tmp_path / "no-dice"
    shutil.copytree(DEMO / "demo-module", folder)
    bf = BuildFile.read(folder / "buildFile.xml")
    for button in bf.components("DiceButton"):
        button.getparent().remove(button)
    (folder / "buildFile.xml").write_bytes(bf.to_bytes())
    return folder


def test_undefined_dice_properties_are_warned_and_not_set(tmp_path):
    replay = Replay.open(DEMO / "demo.vlog", module=_demo_without_dice(tmp_path))
    steps = list(replay.steps())
    warned = [w for w in replay.warnings if "global property" in w.message]
    assert [(w.file, w.step) for w in warned] == [(str(DEMO / "demo.vlog"), 4)] * 4
    assert [w.message.split("'")[1] for w in warned] == ["2d6_result", "2d6_total", "2d6_keep",
                                                         "2d6_summary"]
    assert all("VASSAL drops the command" in w.message for w in warned)
    assert not [e for s in steps for e in s.events if isinstance(e, PropertyEvent)]
    assert replay.engine is not None and replay.engine.state.global_properties == {}
    assert steps[3].warnings == warned


def test_defined_dice_properties_are_set(tmp_path):
    replay = Replay.open(DEMO / "demo.vlog", module=DEMO / "demo.vmod")
    steps = list(replay.steps())
    assert replay.warnings == []
    changes = [(e.name, e.old, e.new) for e in steps[3].events if isinstance(e, PropertyEvent)]
    assert changes == [("2d6_result", "1", "3,5"), ("2d6_total", "0", "8"), ("2d6_keep", "0", "2"),
                       ("2d6_summary", "", "3 x1, 5 x1")]


def test_without_a_module_every_property_is_taken():
    replay = Replay.open(DEMO / "demo.vlog")
    steps = list(replay.steps())
    assert replay.warnings == []
    assert len([e for e in steps[3].events if isinstance(e, PropertyEvent)]) == 4


def _module(xml: str) -> ModuleProperties:
    return ModuleProperties.of(BuildFile.parse(xml.encode("utf-8")))


def test_containers_of_module_map_and_zone_properties():
    props = _module(f"""<?xml version="1.0" encoding="UTF-8"?>
<{P}GameModule name="m" version="1">
  <{P}module.properties.GlobalProperties>
    <{P}module.properties.GlobalProperty name="Weather"/>
  </{P}module.properties.GlobalProperties>
  <{P}module.DiceButton name="1d6"/>
  <{P}module.SpecialDiceButton name="Cards"/>
  <{P}module.turn.TurnTracker name="Turn">
    <{P}module.turn.CounterTurnLevel name="Turn" property="TurnNo">
      <{P}module.turn.ListTurnLevel name="Phase"/>
    </{P}module.turn.CounterTurnLevel>
  </{P}module.turn.TurnTracker>
  <{P}module.Map mapName="Карта">
    <{P}module.properties.GlobalProperties>
      <{P}module.properties.GlobalProperty name="Supply"/>
    </{P}module.properties.GlobalProperties>
    <{P}module.map.BoardPicker>
      <{P}module.map.boardPicker.Board name="b">
        <{P}module.map.boardPicker.board.ZonedGrid>
          <{P}module.map.boardPicker.board.mapgrid.Zone name="Box">
            <{P}module.properties.ZoneProperty name="Count"/>
          </{P}module.map.boardPicker.board.mapgrid.Zone>
        </{P}module.map.boardPicker.board.ZonedGrid>
      </{P}module.map.boardPicker.Board>
    </{P}module.map.BoardPicker>
  </{P}module.Map>
</{P}GameModule>""")
    assert props.by_container == {
        "Module": {"Weather", "1d6_result", "1d6_total", "1d6_keep", "1d6_summary",
                   "Cards_result", "Turn_command", "Turn_value", "TurnNo", "Phase"},
        "Карта": {"Supply"},
        "Карта:Box": {"Count", "Count\tBox\tb\tКарта"},
    }
    assert props.defines("Supply", "Карта") and not props.defines("Supply", "Module")
    assert props.defines("Count", "")                  # no container: any (pre-3.2 commands)
    assert not props.defines("2d6_result", "Module") and not props.defines("Weather", "Other map")


def test_only_the_properties_the_module_lacks_are_dropped(tmp_path):
    folder = _demo_without_dice(tmp_path)
    bf = BuildFile.read(folder / "buildFile.xml")
    holder = etree.SubElement(bf.root, P + "module.properties.GlobalProperties")
    etree.SubElement(holder, P + "module.properties.GlobalProperty", name="2d6_result")
    (folder / "buildFile.xml").write_bytes(bf.to_bytes())
    replay = Replay.open(DEMO / "demo.vlog", module=folder)
    list(replay.steps())
    names = [w.message.split("'")[1] for w in replay.warnings]
    assert names == ["2d6_total", "2d6_keep", "2d6_summary"]
    assert replay.engine is not None
    assert replay.engine.state.global_properties == {("Module", "2d6_result"): "3,5"}


def test_a_zone_property_restored_by_its_zone_id_is_the_zone_s():
    """A ZoneProperty restores itself as ``GlobalProperty<TAB>;Side<TAB>zone
    <TAB>board<TAB>map;value;`` (``ZoneProperty.getPropertyId``, no
    container id): the zone's property, never "a property the module does
    not define in any container"."""
    from tests.replay.test_engine import game
    from vmodtool.vassal.sequence import encode_sequence
    props = _module(f"""<?xml version="1.0" encoding="UTF-8"?>
<{P}GameModule name="m" version="1">
  <{P}module.Map mapName="Main Map">
    <{P}module.map.BoardPicker>
      <{P}module.map.boardPicker.Board name="Inland">
        <{P}module.map.boardPicker.board.ZonedGrid>
          <{P}module.map.boardPicker.board.mapgrid.Zone name="Allies">
            <{P}module.properties.ZoneProperty name="Side"/>
          </{P}module.map.boardPicker.board.mapgrid.Zone>
        </{P}module.map.boardPicker.board.ZonedGrid>
      </{P}module.map.boardPicker.Board>
    </{P}module.map.BoardPicker>
  </{P}module.Map>
</{P}GameModule>""")
    restore = encode_sequence(["GlobalProperty\t", "Side\tAllies\tInland\tMain Map", "Prussia", ""], ";") or ""
    unknown = encode_sequence(["GlobalProperty\t", "Side\tOther\tInland\tMain Map", "Prussia", ""], ";") or ""
    replay = Replay([game([restore, unknown], [])], properties=props)
    list(replay.steps())
    [warning] = replay.warnings
    assert repr("Side\tOther\tInland\tMain Map") in warning.message
    assert replay.engine is not None
    assert replay.engine.state.global_properties == {("Main Map:Allies", "Side"): "Prussia"}
