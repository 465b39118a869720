"""stacking, stack_order and cohabitation on the example scenarios (``docs/seed-rules.md`` §5.5
rows: stacking, HQ with own type, tank top of stack)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import EXAMPLES, feed, make_rule, move, rule, setup_state
from vmodtool.audit.api import Event

#: the example rule package (examples/rule-package): the stacking kind written
#: against the public rule API, run through this file's stacking tests too
RULE_PACKAGE_SRC: Path = EXAMPLES / "rule-package" / "src"


@pytest.fixture(params=["built-in", "rule package"])
def stacking_impl(request, monkeypatch):
    """Which ``stacking`` the tests run: the built-in kind, or the example
    rule package's re-implementation (imported from its source folder)."""
    if request.param == "rule package":
        monkeypatch.syspath_prepend(str(RULE_PACKAGE_SRC))
        from vmodtool_rule_example import Stacking

        import vmodtool.audit.kinds as kinds
        real = kinds.rule_class
        monkeypatch.setattr(kinds, "rule_class", lambda name: Stacking if name == "stacking" else real(name))
    return request.param


@pytest.mark.usefixtures("stacking_impl")
def test_the_stacking_under_test_is_the_parametrised_one(modern, stacking_impl):
    cls = type(rule(modern, "stack.limit"))
    assert cls.__module__ == ("vmodtool_rule_example" if stacking_impl == "rule package"
                              else "vmodtool.audit.kinds.stacking")


def summary(violations):
    return [(v.rule_id, v.units, v.hexes, v.severity) for v in violations]


def act_end(step=9, formation="bn_78"):
    return Event("activation_end", step, text=formation)


def step_end(step=1):
    return Event("step_end", step)


def phase_end(phase, step=9):
    return Event("phase_end", step, phase=phase)


# -- stacking (001:1.3.2a, 1.3.3b) -----------------------------------------------------------------
@pytest.mark.usefixtures("stacking_impl")
class TestStackingModern:
    def setup_state(self, modern):
        st = setup_state(modern, phase="action")
        st.active_formation = "bn_78"
        return st

    def test_three_units_hq_and_helicopter_are_legal(self, modern):
        st = self.setup_state(modern)
        r = rule(modern, "stack.limit")
        evs = [move(st, "syr.t72.2", "1103", step=1), move(st, "syr.t72.3", "1103", step=2),
               move(st, "syr.gazelle", "1103", step=3), act_end()]
        assert [u.uid for u in st.units_in("1103")] == ["syr.t72.1", "syr.hq_78", "syr.t72.2",
                                                        "syr.t72.3", "syr.gazelle"]
        assert feed(r, st, evs) == []

    def test_four_units_inside_the_activation_but_three_at_its_end(self, modern):
        st = self.setup_state(modern)
        r = rule(modern, "stack.limit")
        evs = [move(st, "syr.t72.2", "1103", step=1), move(st, "syr.t72.3", "1103", step=2),
               move(st, "syr.bmp.1", "1103", step=3), step_end(3),
               move(st, "syr.bmp.1", "1003", step=4), step_end(4), act_end()]
        assert feed(r, st, evs) == []

    def test_markers_never_count(self, modern):
        st = self.setup_state(modern)
        for i, kind in enumerate(["wreck", "smoke", "out_of_command", "in_zone"]):
            st.place_marker(f"m{i}", kind, "1103", None)
        move(st, "syr.t72.2", "1103")
        move(st, "syr.t72.3", "1103")
        assert feed(rule(modern, "stack.limit"), st, [act_end()]) == []

    def test_enemy_units_in_the_hex_count_per_side(self, modern):
        st = self.setup_state(modern)
        for uid in ("syr.t72.2", "syr.t72.3", "idf.mk.2", "idf.mk.3", "idf.hq_a"):
            move(st, uid, "1103")
        assert feed(rule(modern, "stack.limit"), st, [act_end()]) == []

    def test_four_units_at_activation_end(self, modern):
        st = self.setup_state(modern)
        r = rule(modern, "stack.limit")
        evs = [move(st, "syr.t72.2", "1103", step=1), move(st, "syr.t72.3", "1103", step=2),
               move(st, "syr.bmp.1", "1103", step=3), act_end()]
        out = feed(r, st, evs)
        assert summary(out) == [("stack.limit", ("syr.t72.1", "syr.t72.2", "syr.t72.3", "syr.bmp.1"),
                                 ("1103",), "error")]
        assert out[0].ref == ("001:1.3.2a", "001:1.3.3b")
        assert "4 units of Syrian Arab Army in 1103 at the end of the activation" in out[0].message
        assert "the limit is 3 (tagged hq or helicopter not counted)" in out[0].message
        assert "1/78 T-72 platoon (syr.t72.1)" in out[0].message

    def test_two_hqs_of_one_side_in_one_hex(self, modern):
        st = self.setup_state(modern)
        move(st, "syr.hq_85", "1103")
        out = feed(rule(modern, "stack.limit"), st, [act_end()])
        assert summary(out) == [("stack.limit", ("syr.hq_78", "syr.hq_85"), ("1103",), "error")]
        assert "at most 1 may share a hex" in out[0].message

    def test_hqs_of_both_sides_in_one_hex_are_legal(self, modern):
        st = self.setup_state(modern)
        move(st, "idf.hq_a", "1103")
        assert feed(rule(modern, "stack.limit"), st, [act_end()]) == []

    def test_judged_only_at_the_configured_point(self, modern):
        st = self.setup_state(modern)
        for uid in ("syr.t72.2", "syr.t72.3", "syr.bmp.1"):
            move(st, uid, "1103")
        r = rule(modern, "stack.limit")
        assert feed(r, st, [step_end(1), phase_end("action")]) == []
        assert len(feed(r, st, [act_end()])) == 1

    def test_a_log_ending_inside_an_activation(self, modern):
        st = self.setup_state(modern)
        for uid in ("syr.t72.2", "syr.t72.3", "syr.bmp.1"):
            move(st, uid, "1103")
        r = rule(modern, "stack.limit")
        assert len(feed(r, st, [Event("game_end", 9)])) == 1
        r = rule(modern, "stack.limit")
        assert len(feed(r, st, [act_end(9), Event("game_end", 9)])) == 1     # not twice

    def test_a_persisting_overstack_is_reported_once_and_again_after_a_fix(self, modern):
        st = self.setup_state(modern)
        for uid in ("syr.t72.2", "syr.t72.3", "syr.bmp.1"):
            move(st, uid, "1103")
        r = rule(modern, "stack.limit")
        assert len(feed(r, st, [act_end(5), act_end(6)])) == 1
        move(st, "syr.bmp.1", "1003", step=7)
        assert feed(r, st, [act_end(7)]) == []
        move(st, "syr.bmp.1", "1103", step=8)
        assert len(feed(r, st, [act_end(8)])) == 1

    def test_terrain_limit_and_steps(self, modern):
        st = self.setup_state(modern)
        r = make_rule(modern, "stacking", {"limit": {"town": 3, "default": 4}, "count": "steps",
                                           "exempt": {"side": "idf"}}, check_at="step_end")
        st.units_state["syr.bmp.1"].face = 1       # reduced: 1 step + the HQ's 2 = 3 in a town
        assert feed(r, st, [step_end()]) == []      # 1003 is a town
        move(st, "syr.t72.2", "1104")
        move(st, "syr.t72.1", "1104")               # clear: 3 x 2 steps > 4
        out = feed(r, st, [step_end()])
        assert summary(out) == [("test.rule", ("syr.t72.3", "syr.t72.2", "syr.t72.1"), ("1104",), "error")]
        assert out[0].message.startswith("6 steps of Syrian Arab Army in 1104 at the end of the step")


@pytest.mark.usefixtures("stacking_impl")
class TestStackingOthers:
    def test_ww1_limit_at_phase_end_hq_exempt(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        r = rule(ww1, "stack.limit")
        move(st, "ger.inf.2", "1101")
        assert feed(r, st, [phase_end("movement")]) == []          # HQ + 3 units
        move(st, "ger.inf.3", "1101")
        out = feed(r, st, [step_end(), phase_end("movement")])
        assert summary(out) == [("stack.limit", ("ger.inf.1", "ger.storm.1", "ger.inf.2", "ger.inf.3"),
                                 ("1101",), "error")]

    def test_cc_figures_weapons_exempt(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="fr")
        r = rule(cc, "stack.limit")
        move(st, "fr.sq_line.1", "0303")
        move(st, "fr.sq_line.2", "0303")                        # 2 + 1 + 2 + 2 = 7 figures
        assert feed(r, st, [step_end()]) == []
        move(st, "fr.sq_line.3", "0303", step=2)                # 9 figures
        out = feed(r, st, [step_end(2)])
        assert summary(out) == [("stack.limit", ("fr.sq_elite.1", "fr.ldr.1", "fr.sq_line.1",
                                                 "fr.sq_line.2", "fr.sq_line.3"), ("0303",), "error")]
        assert out[0].message.startswith("9 figures of Франция in 0303 at the end of the step")
        assert "(tagged weapon not counted)" in out[0].message


# -- stack_order (004:1.8f) ---------------------------------------------------------------------------
class TestStackOrder:
    def test_setup_stacks_are_legal(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        assert feed(rule(ww1, "tank.top_of_stack"), st, [phase_end("movement")]) == []

    def test_functional_tank_above_a_division_broken_tank_below_the_hq(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        move(st, "all.bri.1", "0302")
        move(st, "all.tank", "0302")
        st.set_order("0703", ["all.whippet", "all.hq3"])
        assert [u.uid for u in st.units_in("0703")] == ["all.whippet", "all.hq3"]
        assert feed(rule(ww1, "tank.top_of_stack"), st, [phase_end("movement")]) == []

    def test_functional_tank_under_a_division(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        move(st, "all.tank", "0902")
        st.set_order("0902", ["all.tank", "all.bri.1"])
        r = rule(ww1, "tank.top_of_stack")
        assert feed(r, st, [step_end()]) == []                     # not judged at step end
        out = feed(r, st, [phase_end("movement")])
        assert summary(out) == [("tank.top_of_stack", ("all.tank", "all.bri.1"), ("0902",), "error")]
        assert out[0].ref == ("004:1.8f",)
        assert "Mk IV (D Bn) Heavy tank battalion (all.tank) is below 58 Infantry division (all.bri.1)" \
            in out[0].message

    def test_infantry_between_two_functional_tanks(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        move(st, "all.tank", "0902")
        st.place_unit("all.ft", "0902", None)
        st.set_order("0902", ["all.tank", "all.bri.1", "all.ft"])
        out = feed(rule(ww1, "tank.top_of_stack"), st, [phase_end("movement")])
        assert summary(out) == [("tank.top_of_stack", ("all.tank", "all.bri.1"), ("0902",), "error")]

    def test_markers_and_ignored_units(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        st.place_marker("oos", "out_of_supply", "0703", None)     # a marker above the tank
        assert feed(rule(ww1, "tank.top_of_stack"), st, [phase_end("movement")]) == []
        st.set_order("0703", ["all.tank", "all.hq3"])
        r = make_rule(ww1, "stack_order", {"top": {"tags": ["tank"], "state": {"condition": "functional"}},
                                           "ignore": {"tags": ["hq"]}}, check_at="phase_end")
        assert feed(r, st, [phase_end("movement")]) == []
        r = make_rule(ww1, "stack_order", {"bottom": {"tags": ["hq"]}}, check_at="phase_end")
        out = feed(r, st, [phase_end("movement")])
        assert summary(out) == [("test.rule", ("all.hq3", "all.tank", "all.whippet"), ("0703",), "error")]


# -- cohabitation (001:1.3.3.1a) ----------------------------------------------------------------------
class TestCohabitation:
    def test_setup_and_hq_with_its_tank(self, modern):
        st = setup_state(modern, phase="action")
        r = rule(modern, "hq.with_own_type")
        assert feed(r, st, [step_end()]) == []
        move(st, "syr.t72.1", "1006")
        move(st, "syr.hq_78", "1006")
        assert feed(r, st, [step_end(2)]) == []

    @pytest.mark.parametrize("hex_id, company", [
        ("1006", ()),                        # alone
        ("1206", ("syr.bmp.2", "syr.inf")),  # wrong type: BMP and infantry
        ("1106", ("syr.rcl",)),              # wrong type: RCL team
        ("0603", ("idf.mk.2",)),             # a tank of another formation (and side)
    ])
    def test_hq_without_a_unit_of_its_type_and_formation(self, modern, hex_id, company):
        st = setup_state(modern, phase="action")
        r = rule(modern, "hq.with_own_type")
        move(st, "syr.hq_78", hex_id)
        out = feed(r, st, [step_end()])
        assert summary(out) == [("hq.with_own_type", ("syr.hq_78",), (hex_id,), "error")]
        assert out[0].evidence["with_units"] == list(company)
        assert "of a type it serves (tank)" in out[0].message
        assert "at least 1 required" in out[0].message

    def test_reported_once_while_it_lasts(self, modern):
        st = setup_state(modern, phase="action")
        r = rule(modern, "hq.with_own_type")
        move(st, "syr.hq_78", "1006")
        assert len(feed(r, st, [step_end(1), step_end(2)])) == 1
        move(st, "syr.hq_78", "1007", step=3)
        assert len(feed(r, st, [step_end(3)])) == 1              # a new hex, a new finding

    def test_hq_in_a_box_is_not_judged(self, modern):
        st = setup_state(modern, phase="action")
        st.place_unit("syr.hq_78", None, "syr_elim")
        assert feed(rule(modern, "hq.with_own_type"), st, [step_end()]) == []

    def test_other_formation_same_type_of_tank(self, modern):
        import dataclasses

        from vmodtool.scenario.model import Counter
        scen = dataclasses.replace(modern, counters=modern.counters + (
            Counter("syr.t72x", "t72_plt", "syr", "bn_85", "X/85"),))
        st = setup_state(scen, phase="action")
        st.place_unit("syr.t72x", "1006", None)
        move(st, "syr.hq_78", "1006")
        out = feed(rule(scen, "hq.with_own_type"), st, [step_end()])
        assert summary(out) == [("hq.with_own_type", ("syr.hq_78",), ("1006",), "error")]


# -- standing violations and applies_to (issue 43 item 5, docs/seed-rules.md §4.11) --------------
@pytest.mark.usefixtures("stacking_impl")
class TestStandingViolations:
    """A state rule reports a finding once where it arose, again only when
    it gains a unit or after a fix; ``applies_to`` limits a check to a side."""

    def _overstack(self, ww1, st, side="ger", step=1):
        # 1101 holds ger.hq14 (exempt), ger.inf.1, ger.storm.1: two more make 4 counted units
        units = ["ger.inf.2", "ger.inf.3"] if side == "ger" else ["all.bri.1", "all.bri.3", "all.cav", "all.tank"]
        hex_id = "1101" if side == "ger" else "0503"
        for uid in units:
            move(st, uid, hex_id, step=step)
        return hex_id

    def test_a_stack_that_only_loses_units_is_not_reported_again(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        r = rule(ww1, "stack.limit")
        self._overstack(ww1, st)
        move(st, "ger.storm.2", "1101", step=2)                  # 5 counted units
        assert len(feed(r, st, [phase_end("movement", 3)])) == 1
        move(st, "ger.storm.2", "1002", step=4)                  # 4: still over, but no new act
        assert feed(r, st, [phase_end("movement", 5)]) == []
        move(st, "ger.storm.2", "1101", step=6)                  # a unit moved in: a new act
        out = feed(r, st, [phase_end("movement", 7)])
        assert len(out) == 1 and "ger.storm.2" in out[0].units

    def test_applies_to_phasing_judges_the_phasing_side_only(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        r = rule(ww1, "stack.limit", applies_to="phasing")
        self._overstack(ww1, st, "ger")
        self._overstack(ww1, st, "all", step=2)
        out = feed(r, st, [phase_end("movement", 3)])
        assert [v.evidence["side_counted"] for v in out] == ["ger"]   # the Allied stack waits
        assert not r.idle(st)           # (so the engine does not skip the next check: nothing changed)
        st.phasing_side = "all"
        out = feed(r, st, [phase_end("movement", 5)])                  # nothing changed since
        assert [v.evidence["side_counted"] for v in out] == ["all"]
        assert feed(r, st, [phase_end("movement", 7)]) == []          # each reported once
        # with applies_to all (the default), both at the first check
        st2 = setup_state(ww1, phase="movement", phasing_side="ger")
        self._overstack(ww1, st2, "ger")
        self._overstack(ww1, st2, "all", step=2)
        assert len(feed(rule(ww1, "stack.limit"), st2, [phase_end("movement", 3)])) == 2

    def test_applies_to_moved_judges_the_sides_that_moved(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        r = rule(ww1, "stack.limit", applies_to="moved")
        assert feed(r, st, [phase_end("movement", 1)]) == []
        self._overstack(ww1, st, "all", step=2)
        self._overstack(ww1, st, "ger", step=3)
        assert len(feed(r, st, [phase_end("movement", 4)])) == 2
        move(st, "ger.storm.2", "1101", step=5)                          # only a German unit moved
        out = feed(r, st, [phase_end("movement", 6)])
        assert [v.evidence["side_counted"] for v in out] == ["ger"]

    def test_a_stack_standing_when_the_log_began_says_it_was_inherited(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        self._overstack(ww1, st, "ger")                                  # in the saved state
        r = rule(ww1, "stack.limit")
        assert feed(r, st, [Event("setup_end", 0)]) == []
        self._overstack(ww1, st, "all", step=2)                          # made in the log
        out = feed(r, st, [phase_end("movement", 3)])
        inherited = {v.evidence["side_counted"]: v.evidence.get("inherited", False) for v in out}
        assert inherited == {"ger": True, "all": False}
        assert "inherited" in next(v.message for v in out if v.evidence["side_counted"] == "ger")

    def test_game_end_judges_every_side(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="ger")
        r = rule(ww1, "stack.limit", applies_to="phasing")
        self._overstack(ww1, st, "all")
        assert feed(r, st, [phase_end("movement", 3)]) == []
        assert len(feed(r, st, [Event("game_end", 4)])) == 1
