"""replacement (seed 004:1.7a–d) on the WWI example: ``docs/seed-rules.md`` §5.5 rows RP
eligibility and limits, priority, return placement and budget; each
sub-check under its own ref."""

from __future__ import annotations

from tests.audit.helpers import Run, enter, flip, make_rule, rule, setup_state
from vmodtool.audit.api import Event


def summary(violations):
    return [(v.rule_id, v.ref, v.units, v.hexes, v.severity) for v in violations]


def allied_phase(ww1, turn=1, phase="replacement", side="all"):
    """Allied Replacement Phase: 18th Division (all.bri.2) in the dead pile,
    14th (all.bri.3) reduced in 0904, III Corps HQ in 0703."""
    return setup_state(ww1, turn=turn, phase=phase, phasing_side=side)


# -- eligibility and limits (1.7a) -----------------------------------------------------------------
class TestEligibilityAndLimits:
    def test_18th_division_returns_reduced_with_the_corps_hq(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "reduced"), Event("phase_end", 2, phase="replacement"))
        assert run.out == []

    def test_out_of_supply_unit_takes_an_rp(self, ww1):
        st = allied_phase(ww1, turn=3)                          # 2 RPs
        st.units_state["all.bri.3"].layers |= {"out_of_supply"}
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "reduced", step=1))
        run(flip(st, "all.bri.3", "full", step=2))
        assert run.out == []

    def test_storm_unit_regains_a_step(self, ww1):
        st = allied_phase(ww1, side="ger")
        st.place_unit("ger.storm.1", None, "ger_dead")
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "ger.storm.1", "1101"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7a-2",), ("ger.storm.1",), ("1101",), "error")]
        assert "only units tagged combat, not tagged storm or french_regiment may absorb" in run.out[0].message

    def test_french_regiment_regains_a_step(self, ww1):
        st = allied_phase(ww1, turn=3)
        st.place_unit("all.fr_rgt.1", None, "all_dead")
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.fr_rgt.1", "0703"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7a-2",), ("all.fr_rgt.1",), ("0703",),
                                     "error")]

    def test_one_division_regains_two_steps_in_one_turn(self, ww1):
        st = allied_phase(ww1, turn=3)                          # 2 RPs: the budget is not the issue
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "reduced", step=1))
        run(flip(st, "all.bri.2", "full", step=2))
        assert summary(run.out) == [("rp.replacements", ("004:1.7a-3",), ("all.bri.2",), ("0703",), "error")]
        assert "replacement no. 2 for this unit in turn 3" in run.out[0].message

    def test_the_next_turn_is_a_new_count(self, ww1):
        st = allied_phase(ww1, turn=3)
        r = rule(ww1, "rp.replacements")
        run = Run(r, st)
        run(enter(st, "all.bri.2", "0703", "reduced", step=1))
        st.turn = 4
        run(flip(st, "all.bri.2", "full", step=9))
        assert run.out == []

    def test_a_unit_gains_two_steps_from_one_rp(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "full"))             # dead -> full: 2 steps
        assert summary(run.out) == [("rp.replacements", ("004:1.7c-1",), ("all.bri.2",), ("0703",), "error")]
        assert "full side up (2 steps); a 2-step unit returns reduced" in run.out[0].message

    def test_two_steps_at_once_without_a_return_face(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements", params={"return_from_dead": {}}), st)
        run(enter(st, "all.bri.2", "0703", "full"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7a-4",), ("all.bri.2",), ("0703",), "error")]


# -- priority (1.7b) -------------------------------------------------------------------------
class TestPriority:
    def test_only_an_ineligible_unit_in_the_dead_pile(self, ww1):
        st = allied_phase(ww1)
        st.place_unit("all.bri.2", "0702", None)            # 18th back on the map
        st.place_unit("all.fr_rgt.1", None, "all_dead")     # ineligible
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "all.bri.3", "full"))
        assert run.out == []

    def test_reduced_division_restored_while_the_18th_waits(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "all.bri.3", "full"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7b",), ("all.bri.3",), ("0904",), "error")]
        assert run.out[0].evidence["waiting"] == ["all.bri.2"]
        assert "while 18 Infantry division (all.bri.2) is still waiting" in run.out[0].message

    def test_reduced_aircraft_while_the_18th_waits(self, ww1):
        st = allied_phase(ww1)
        st.units_state["all.gc12"].face = 1
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "all.gc12", "full"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7b",), ("all.gc12",), (), "error")]

    def test_reduced_aircraft_with_an_empty_dead_pile(self, ww1):
        st = allied_phase(ww1)
        st.place_unit("all.bri.2", "0702", None)
        st.units_state["all.gc12"].face = 1
        assert Run(rule(ww1, "rp.replacements"), st)(flip(st, "all.gc12", "full")).out == []

    def test_dead_pile_counts_only_if_returnable(self, ww1):
        st = allied_phase(ww1)
        st.place_unit("all.hq3", None, "all_dead")          # no Corps HQ on the map: 18th cannot return
        st.place_unit("all.hq5", None, "all_reinf")
        r = rule(ww1, "rp.replacements", params={"priority": {
            **ww1.rules[1].params["priority"], "dead_pile_counts_only_if_returnable": True}})
        assert Run(r, st)(flip(st, "all.bri.3", "full")).out == []


# -- return placement (1.7c) -------------------------------------------------------------------
class TestReturnPlacement:
    def test_placed_full_strength(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "full"))
        assert [v.evidence["check"] for v in run.out] == ["return"]

    def test_placed_without_a_corps_hq(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0902", "reduced"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7c-1",), ("all.bri.2",), ("0902",), "error")]
        assert "a hex without a unit tagged corps_hq, of the same side" in run.out[0].message

    def test_enemy_corps_hq_does_not_count(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "1101", "reduced"))      # with the German XIV Corps HQ
        assert [v.ref for v in run.out] == [("004:1.7c-1",)]


# -- budget (1.7d) and phase (1.7a-1) ------------------------------------------------------------
class TestBudgetAndPhase:
    def test_allies_use_two_rps_in_turn_1(self, ww1):
        st = allied_phase(ww1)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.bri.2", "0703", "reduced", step=1))
        run(flip(st, "all.bri.3", "full", step=2))
        assert summary(run.out) == [("rp.replacements", ("004:1.7d",), ("all.bri.3",), ("0904",), "error")]
        assert "Allies have used 2 replacement points in turn 1; 1 available" in run.out[0].message

    def test_unused_rp_of_turn_1_spent_in_turn_2(self, ww1):
        st = allied_phase(ww1, turn=1)
        r = rule(ww1, "rp.replacements")
        run = Run(r, st)
        run(Event("phase_end", 1, phase="replacement"))     # turn 1: no RP used
        st.turn = 2
        run(enter(st, "all.bri.2", "0703", "reduced", step=5))
        run(flip(st, "all.bri.3", "full", step=6))
        assert [v.ref for v in run.out] == [("004:1.7d",)]

    def test_carry_over_when_allowed(self, ww1):
        st = allied_phase(ww1, turn=2)
        r = rule(ww1, "rp.replacements", params={"carry_over": True})
        run = Run(r, st)
        run(enter(st, "all.bri.2", "0703", "reduced", step=5))
        run(flip(st, "all.bri.3", "full", step=6))
        assert run.out == []

    def test_carry_over_to_any_turn_sums_what_the_turns_left(self, ww1):
        # a turn as large as a damaged log may give (2**31) is summed in the
        # time of the turns with points or use, not turn by turn (it hung the
        # audit); for any turn the same total as adding turn after turn
        st = allied_phase(ww1, turn=1)
        first = st.scenario.turns.first
        used = {first: 1, first + 1: 3, first + 4: 1}
        for budget in ({}, {"budget": 2}, {"budget": 0}):
            carried = rule(ww1, "rp.replacements", params={"carry_over": True, **budget})
            carried.used = {**{f"{t}|all": n for t, n in used.items()}, f"{first + 1}|ger": 9}
            plain = rule(ww1, "rp.replacements", params=budget)
            for turn in range(first, first + 10):
                added = plain._budget(st, turn, "all") + sum(
                    max(0, plain._budget(st, t, "all") - used.get(t, 0)) for t in range(first, turn))
                assert carried._budget(st, turn, "all") == added, (budget, turn)
            assert carried._budget(st, 2_147_483_647, "all") is not None

    def test_german_budget(self, ww1):
        st = allied_phase(ww1, side="ger")                  # Germans: 2 RPs in turn 1
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "ger.inf.3", "full"))
        assert run.out == []

    def test_step_regained_outside_the_replacement_phase(self, ww1):
        st = allied_phase(ww1, phase="movement")
        st.place_unit("all.bri.2", "0702", None)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "all.bri.3", "full"))
        assert summary(run.out) == [("rp.replacements", ("004:1.7a-1",), ("all.bri.3",), ("0904",), "error")]

    def test_allied_step_regained_in_the_german_phase(self, ww1):
        st = allied_phase(ww1, side="ger")
        st.place_unit("all.bri.2", "0702", None)
        run = Run(rule(ww1, "rp.replacements"), st)
        run(flip(st, "all.bri.3", "full"))
        assert [v.ref for v in run.out] == [("004:1.7a-1",)]
        assert "of German Empire" in run.out[0].message

    def test_reinforcements_and_step_losses_are_not_replacements(self, ww1):
        st = allied_phase(ww1, turn=2, phase="movement")
        run = Run(rule(ww1, "rp.replacements"), st)
        run(enter(st, "all.fr_div", "0408"))                # from the reinforcement box
        run(flip(st, "all.bri.1", "reduced"))               # a step loss
        run(flip(st, "all.whippet", "functional"))          # a tank repair: no step change
        assert run.out == []

    def test_explicit_refs_param(self, ww1):
        st = allied_phase(ww1)
        r = make_rule(ww1, "replacement", {"phase": "replacement", "budget": 0,
                                           "refs": {"budget": "my:budget"}})
        run = Run(r, st)
        run(enter(st, "all.bri.2", "0703", "reduced"))
        assert [v.ref for v in run.out] == [("my:budget",)]
