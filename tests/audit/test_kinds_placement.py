"""placement and setup_conformity on the example scenarios (``docs/seed-rules.md`` §5.5 rows: HQ
rebuild, Combat Commander placements – Hero, Private, Smoke, Foxholes – and
setup conformity)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.audit.helpers import enter, example, feed, move, rule, setup_state
from vmodtool.audit.api import Event
from vmodtool.scenario.model import Counter


def summary(violations):
    return [(v.rule_id, v.units, v.hexes, v.severity, v.evidence.get("check")) for v in violations]


def marker_add(state, key, kind, hex_id, side, step=1):
    state.place_marker(key, kind, hex_id, None)
    return Event("marker_add", step, unit=key, marker=kind, to_hex=hex_id, player="p", side=side)


# -- HQ rebuild (001:1.3.3.3a-b, 003:3.2d) -----------------------------------------------------------
class TestHqRebuild:
    def dead_hq(self, modern, phase="marker_removal"):
        st = setup_state(modern, phase=phase, turn=3)
        st.place_unit("syr.hq_78", None, "syr_elim")
        return st

    def test_rebuilt_reduced_in_the_marker_removal_phase_with_a_t72(self, modern):
        st = self.dead_hq(modern)
        assert feed(rule(modern, "hq.rebuild"), st, [enter(st, "syr.hq_78", "1002", "reduced")]) == []

    def test_rebuilt_in_the_action_phase(self, modern):
        st = self.dead_hq(modern, phase="action")
        out = feed(rule(modern, "hq.rebuild"), st, [enter(st, "syr.hq_78", "1002", "reduced")])
        assert summary(out) == [("hq.rebuild", ("syr.hq_78",), ("1002",), "error", "phase")]
        assert out[0].message == ("78 Tank HQ (syr.hq_78) returned to the map in 1002 in the Action Phase; "
                                  "this is allowed only in the Marker Removal Phase.")

    def test_rebuilt_full_side_up(self, modern):
        st = self.dead_hq(modern)
        out = feed(rule(modern, "hq.rebuild"), st, [enter(st, "syr.hq_78", "1002", "full")])
        assert summary(out) == [("hq.rebuild", ("syr.hq_78",), ("1002",), "error", "face")]

    def test_rebuilt_with_only_the_rcl_team(self, modern):
        st = self.dead_hq(modern)
        out = feed(rule(modern, "hq.rebuild"), st, [enter(st, "syr.hq_78", "1106", "reduced")])
        assert summary(out) == [("hq.rebuild", ("syr.hq_78",), ("1106",), "error", "hex_has")]
        assert "(in the hex: B-10 RCL team (syr.rcl))" in out[0].message

    def test_rebuilt_when_no_t72_of_the_78th_remains(self, modern):
        st = self.dead_hq(modern)
        for uid in ("syr.t72.1", "syr.t72.2", "syr.t72.3"):
            st.place_unit(uid, None, "syr_elim")
        out = feed(rule(modern, "hq.rebuild"), st, [enter(st, "syr.hq_78", "1103", "reduced")])
        assert summary(out) == [("hq.rebuild", ("syr.hq_78",), ("1103",), "error", "hex_has")]
        assert out[0].message.endswith("no such unit is left on the map.")

    def test_other_entries_are_not_rebuilds(self, modern):
        st = setup_state(modern, phase="action", turn=2)
        r = rule(modern, "hq.rebuild")
        assert feed(r, st, [enter(st, "idf.m113.2", "0107")]) == []            # reinforcement
        assert feed(r, st, [move(st, "syr.hq_78", "1003")]) == []              # a move


# -- Combat Commander placements ------------------------------------------------------------------
def _with_second_hero(cc):
    return dataclasses.replace(cc, counters=cc.counters + (
        Counter("fr.hero.2", "fr_hero", "fr", "fr_outpost", "Герой 2"),))


class TestHero:
    def test_hero_placed_once_with_friendly_units(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        assert feed(rule(cc, "hero.placement"), st, [enter(st, "fr.hero", "0303")]) == []

    def test_hero_in_an_empty_or_enemy_hex(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        r = rule(cc, "hero.placement")
        out = feed(r, st, [enter(st, "fr.hero", "0505")])
        assert summary(out) == [("hero.placement", ("fr.hero",), ("0505",), "error", "hex_has")]
        st.place_unit("fr.hero", None, "fr_mix")
        out = feed(r, st, [enter(st, "fr.hero", "0801")])
        assert summary(out) == [("hero.placement", ("fr.hero",), ("0801",), "error", "hex_has")]

    def test_second_hero_on_the_map(self, cc):
        scen = _with_second_hero(cc)
        st = setup_state(scen, phase="orders", phasing_side="fr")
        st.place_unit("fr.hero.2", None, "fr_mix")
        r = rule(scen, "hero.placement")
        assert feed(r, st, [enter(st, "fr.hero", "0303")]) == []
        out = feed(r, st, [enter(st, "fr.hero.2", "0304", step=2)])
        assert summary(out) == [("hero.placement", ("fr.hero.2", "fr.hero"), ("0304", "0303"), "error",
                                 "unique")]

    def test_the_enemy_hero_does_not_count(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        st.place_unit("it.hero", "0801", None)
        assert feed(rule(cc, "hero.placement"), st, [enter(st, "fr.hero", "0303")]) == []


class TestPrivate:
    def test_private_with_a_friendly_broken_unit(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        st.units_state["fr.sq_line.2"].layers |= {"broken"}
        assert feed(rule(cc, "private.field_promotion"), st, [enter(st, "fr.private", "0404")]) == []

    def test_private_where_no_unit_is_broken(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        st.units_state["it.sq_line.1"].layers |= {"broken"}           # enemy broken unit
        move(st, "fr.sq_line.2", "0804")
        out = feed(rule(cc, "private.field_promotion"), st, [enter(st, "fr.private", "0804")])
        assert summary(out) == [("private.field_promotion", ("fr.private",), ("0804",), "error", "hex_has")]


class TestSmoke:
    def test_smoke_in_brush(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        assert feed(rule(cc, "smoke.not_water_or_blaze"), st,
                    [marker_add(st, "s1", "smoke", "0505", "it")]) == []

    def test_smoke_in_water(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        out = feed(rule(cc, "smoke.not_water_or_blaze"), st, [marker_add(st, "s1", "smoke", "0605", "it")])
        assert summary(out) == [("smoke.not_water_or_blaze", (), ("0605",), "error", "terrain")]
        assert out[0].message == ("Дым marker placed in 0605, a Водная поверхность hex; it may not be placed "
                                  "in water terrain.")

    def test_smoke_with_blaze(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        st.place_marker("b1", "blaze", "0505", None)
        out = feed(rule(cc, "smoke.not_water_or_blaze"), st, [marker_add(st, "s1", "smoke", "0505", "it")])
        assert summary(out) == [("smoke.not_water_or_blaze", (), ("0505",), "error", "hex_has_not")]

    def test_smoke_drifting_on_the_map_is_not_a_placement(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        st.place_marker("s1", "smoke", "0505", None)
        st.place_marker("s1", "smoke", "0605", None)
        ev = Event("marker_move", 2, unit="s1", marker="smoke", from_hex="0505", to_hex="0605")
        assert feed(rule(cc, "smoke.not_water_or_blaze"), st, [ev]) == []

    def test_smoke_from_the_marker_box(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        st.place_marker("s1", "smoke", "0605", None)
        ev = Event("marker_move", 2, unit="s1", marker="smoke", from_hex=None, to_hex="0605", side="it")
        out = feed(rule(cc, "smoke.not_water_or_blaze"), st, [ev])
        assert summary(out) == [("smoke.not_water_or_blaze", (), ("0605",), "error", "terrain")]


class TestFoxholes:
    def test_entrench_in_a_friendly_hex(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        assert feed(rule(cc, "foxholes.entrench"), st, [marker_add(st, "f1", "foxholes", "0404", "fr")]) == []

    def test_foxholes_where_a_fortification_exists(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        st.place_marker("t1", "trenches", "0404", None)
        out = feed(rule(cc, "foxholes.entrench"), st, [marker_add(st, "f1", "foxholes", "0404", "fr")])
        assert summary(out) == [("foxholes.entrench", (), ("0404",), "error", "hex_has_not")]
        assert "already holds a Траншеи marker" in out[0].message

    def test_foxholes_in_an_enemy_hex(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        out = feed(rule(cc, "foxholes.entrench"), st, [marker_add(st, "f1", "foxholes", "0801", "fr")])
        assert summary(out) == [("foxholes.entrench", (), ("0801",), "error", "hex_has")]


# -- setup conformity (§2.5 item 13) ----------------------------------------------------------------------
class TestSetupConformity:
    @pytest.mark.parametrize("name", ["modern-tactical", "ww1-operational", "combat-commander"])
    def test_the_setup_itself_conforms(self, name):
        scen = example(name)
        st = setup_state(scen)
        assert feed(rule(scen, "setup.match"), st, [Event("setup_end", 0)]) == []

    def test_unit_in_the_wrong_hex(self, modern):
        st = setup_state(modern)
        st.place_unit("syr.t72.2", "1003", None)
        out = feed(rule(modern, "setup.match"), st, [Event("setup_end", 0)])
        assert summary(out) == [("setup.match", ("syr.t72.2",), ("1003", "1002"), "warning", "place")]
        assert out[0].message == "2/78 T-72 platoon (syr.t72.2) starts in 1003; the setup places it in 1002."

    def test_unit_missing(self, modern):
        st = setup_state(modern)
        st.remove_unit("idf.inf.1")
        out = feed(rule(modern, "setup.match"), st, [Event("setup_end", 0)])
        assert summary(out) == [("setup.match", ("idf.inf.1",), ("0505",), "warning", "missing")]

    def test_unit_in_the_wrong_box_and_wrong_face(self, ww1):
        st = setup_state(ww1)
        st.place_unit("all.bri.2", None, "all_reinf")
        st.units_state["all.whippet"].face = 0
        out = feed(rule(ww1, "setup.match"), st, [Event("setup_end", 0)])
        assert summary(out) == [("setup.match", ("all.whippet",), ("0703",), "warning", "face"),
                                ("setup.match", ("all.bri.2",), (), "warning", "place")]

    def test_stack_order_and_extra_unit(self, ww1):
        scen = dataclasses.replace(ww1, counters=ww1.counters + (
            Counter("all.bri.9", "inf_div", "all", "bef_iii", "99"),))
        st = setup_state(scen)
        st.set_order("0703", ["all.tank", "all.whippet", "all.hq3"])
        st.place_unit("all.bri.9", "0902", None)
        out = feed(rule(scen, "setup.match"), st, [Event("setup_end", 0)])
        assert summary(out) == [("setup.match", ("all.bri.9",), ("0902",), "warning", "extra"),
                                ("setup.match", ("all.hq3", "all.whippet", "all.tank"), ("0703",), "warning",
                                 "order")]

    def test_zones_tolerance_only_checks_presence(self, modern):
        from tests.audit.helpers import make_rule
        st = setup_state(modern)
        st.place_unit("syr.t72.2", "1003", None)
        st.remove_unit("idf.inf.1")
        out = feed(make_rule(modern, "setup_conformity", {"tolerance": "zones"}), st, [Event("setup_end", 0)])
        assert summary(out) == [("test.rule", ("idf.inf.1",), ("0505",), "error", "missing")]
