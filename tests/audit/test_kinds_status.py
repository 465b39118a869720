"""status_forbids, state_never, transition_window, phase_sweep and
obligation on the example scenarios (``docs/seed-rules.md`` §5.5 rows: Ops Complete / OOC forbid
move, broken tank not exploit-capable, HQ never Disrupted, helicopter one
step, tank repair, Marker Removal sweep, HQ dies with its stack / Wreck)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.audit.helpers import Run, _face_index, feed, flip, make_rule, move, rule, setup_state
from vmodtool.audit.api import Event
from vmodtool.scenario.model import Face


def summary(violations):
    return [(v.rule_id, v.units, v.hexes, v.severity) for v in violations]


def layer(state, uid, kind, on=True, step=1):
    s = state.units_state[uid]
    state.set_face_and_layers(uid, s.face, s.layers | {kind} if on else s.layers - {kind})
    return Event("layer", step, unit=uid, marker=kind, changes={"active": (not on, on)}, player="p",
                 side=state.unit(uid).side)


def eliminate(state, uid, box, step=1):
    from_hex = state.units_state[uid].hex
    state.place_unit(uid, None, box)
    return Event("leave", step, unit=uid, from_hex=from_hex, to_box=box, player="p",
                 side=state.unit(uid).side)


def marker_add(state, key, kind, hex_id, step=1, side=None):
    state.place_marker(key, kind, hex_id, None)
    return Event("marker_add", step, unit=key, marker=kind, to_hex=hex_id, player="p", side=side)


def marker_move(state, key, hex_id, step=1):
    m = state.markers_state[key]
    old = m.hex
    state.place_marker(key, m.kind, hex_id, None)
    return Event("marker_move", step, unit=key, marker=m.kind, from_hex=old, to_hex=hex_id)


# -- status_forbids ------------------------------------------------------------------------------
class TestOpsComplete:
    def test_marker_removed_then_the_unit_moves(self, modern):
        st = setup_state(modern, phase="action")
        st.active_formation = "bn_78"
        evs = [layer(st, "syr.t72.2", "ops_complete", True, step=1),
               layer(st, "syr.t72.2", "ops_complete", False, step=2),
               move(st, "syr.t72.2", "1003", step=3), Event("step_end", 3)]
        assert feed(rule(modern, "status.ops_complete"), st, evs) == []

    def test_unit_with_ops_complete_moves(self, modern):
        st = setup_state(modern, phase="action")
        st.units_state["syr.hq_78"].layers |= {"ops_complete"}
        out = feed(rule(modern, "status.ops_complete"), st,
                   [move(st, "syr.hq_78", "1003", step=4), Event("step_end", 4)])
        assert summary(out) == [("status.ops_complete", ("syr.hq_78",), ("1103", "1003"), "error")]
        assert out[0].ref == ("001:1.3.3.1d", "003:4.1")
        assert out[0].message == ("78 Tank HQ (syr.hq_78) moved 1103 → 1003 while marked Ops Complete; "
                                  "a unit marked Ops Complete may not move at any time.")


class TestOutOfCommand:
    def test_ooc_unit_that_does_not_move_and_moves_outside_its_activation(self, modern):
        st = setup_state(modern, phase="action")
        st.place_marker("ooc1", "out_of_command", "1206", None)
        st.active_formation = "bn_78"              # another formation's activation
        r = rule(modern, "status.out_of_command")
        evs = [Event("dice", 1, dice=(3, 4)), move(st, "syr.bmp.2", "1205", step=2), Event("step_end", 2)]
        assert feed(r, st, evs) == []

    def test_unit_entering_this_activation_is_not_ooc(self, modern):
        st = setup_state(modern, phase="action")
        st.active_formation = "team_ari"
        st.place_unit("idf.inf.2", "0107", None)
        assert feed(rule(modern, "status.out_of_command"), st,
                    [move(st, "idf.inf.2", "0206"), Event("step_end", 1)]) == []

    def test_unit_in_an_ooc_hex_moves_in_its_own_activation(self, modern):
        st = setup_state(modern, phase="action")
        st.place_marker("ooc1", "out_of_command", "1206", None)
        st.active_formation = "bn_85"
        out = feed(rule(modern, "status.out_of_command"), st,
                   [move(st, "syr.bmp.2", "1205", step=3), Event("step_end", 3)])
        assert summary(out) == [("status.out_of_command", ("syr.bmp.2",), ("1206", "1205"), "error")]
        assert "during its own formation's activation" in out[0].message

    @pytest.mark.parametrize("marker_first", [True, False])
    def test_marker_dragged_along_with_the_stack(self, modern, marker_first):
        st = setup_state(modern, phase="action")
        st.place_marker("ooc1", "out_of_command", "1206", None)
        st.active_formation = "bn_85"
        r = rule(modern, "status.out_of_command")
        if marker_first:
            evs = [marker_move(st, "ooc1", "1205", step=3), move(st, "syr.bmp.2", "1205", step=3)]
        else:
            evs = [move(st, "syr.bmp.2", "1205", step=3), marker_move(st, "ooc1", "1205", step=3)]
        out = feed(r, st, evs + [Event("step_end", 3)])
        assert summary(out) == [("status.out_of_command", ("syr.bmp.2",), ("1206", "1205"), "error")]


    def test_ooc_marker_placed_after_the_unit_left(self, modern):
        st = setup_state(modern, phase="action")
        st.active_formation = "bn_85"
        run = Run(rule(modern, "status.out_of_command"), st)
        run(move(st, "syr.bmp.2", "1205", step=3))
        run(marker_add(st, "ooc1", "out_of_command", "1206", step=3))    # for the infantry left behind
        run(Event("step_end", 3))
        assert run.out == []


class TestBrokenTankNoExploit:
    def test_broken_tank_moves_in_the_movement_phase(self, ww1):
        st = setup_state(ww1, phase="movement", phasing_side="all")
        assert feed(rule(ww1, "tank.broken_no_exploit"), st, [move(st, "all.whippet", "0603")]) == []

    def test_functional_tank_exploits(self, ww1):
        st = setup_state(ww1, phase="exploitation", phasing_side="all")
        assert feed(rule(ww1, "tank.broken_no_exploit"), st, [move(st, "all.tank", "0603")]) == []

    def test_broken_tank_moves_in_the_exploitation_phase(self, ww1):
        st = setup_state(ww1, phase="exploitation", phasing_side="all")
        out = feed(rule(ww1, "tank.broken_no_exploit"), st, [move(st, "all.whippet", "0603")])
        assert summary(out) == [("tank.broken_no_exploit", ("all.whippet",), ("0703", "0603"), "error")]
        assert out[0].message.endswith("may not move in the Exploitation Phase.")


# -- state_never ---------------------------------------------------------------------------------
class TestHqNeverDisrupted:
    def test_disrupted_tank_stacked_with_the_hq(self, modern):
        st = setup_state(modern, phase="action")
        assert feed(rule(modern, "hq.never_disrupted"), st,
                    [Event("setup_end", 0), layer(st, "syr.t72.1", "disrupted")]) == []

    def test_disrupted_layer_on_the_hq(self, modern):
        st = setup_state(modern, phase="action")
        r = rule(modern, "hq.never_disrupted")
        out = feed(r, st, [layer(st, "syr.hq_78", "disrupted", step=5)])
        assert summary(out) == [("hq.never_disrupted", ("syr.hq_78",), ("1103",), "error")]
        assert out[0].message == ("78 Tank HQ (syr.hq_78) in 1103 now has Disrupted; units tagged hq may "
                                  "never have marked Disrupted.")
        # still on: not reported again; off and on again: reported again
        assert feed(r, st, [move(st, "syr.hq_78", "1003", step=6)]) == []
        assert feed(r, st, [layer(st, "syr.hq_78", "disrupted", False, step=7)]) == []
        assert len(feed(r, st, [layer(st, "syr.hq_78", "disrupted", step=8)])) == 1


def _heli_with_reduced_face(modern):
    """A module whose helicopter counter has a reduced side (a third-party
    module, or a mistake in ours)."""
    ah1 = modern.unit_types["ah1_sect"]
    faces = ah1.faces + (Face("reduced", {"step": "reduced", "mode": "flying"}, dict(ah1.faces[0].factors)),)
    types = dict(modern.unit_types)
    types["ah1_sect"] = dataclasses.replace(ah1, faces=faces)
    return dataclasses.replace(modern, unit_types=types)


class TestHelicopterOneStep:
    def test_flying_landed_and_eliminated(self, modern):
        st = setup_state(modern, phase="action")
        evs = [Event("setup_end", 0), flip(st, "idf.cobra", "flying", step=1),
               flip(st, "idf.cobra", "landed", step=2), eliminate(st, "idf.cobra", "idf_elim", step=3)]
        assert feed(rule(modern, "heli.one_step"), st, evs) == []

    def test_helicopter_shown_reduced(self, modern):
        scen = _heli_with_reduced_face(modern)
        st = setup_state(scen, phase="action")
        out = feed(rule(scen, "heli.one_step"), st, [flip(st, "idf.cobra", "reduced", step=4)])
        assert summary(out) == [("heli.one_step", ("idf.cobra",), ("0207",), "error")]
        assert "now has step reduced" in out[0].message

    def test_step_loss_announced_by_the_flip_event(self, modern):
        st = setup_state(modern, phase="action")
        ev = Event("flip", 4, unit="idf.cobra", changes={"face": ("landed", "landed"),
                                                          "step": ("full", "reduced")})
        out = feed(rule(modern, "heli.one_step"), st, [ev])
        assert summary(out) == [("heli.one_step", ("idf.cobra",), ("0207",), "error")]


# -- transition_window (004:1.8e) ------------------------------------------------------------------
class TestTankRepair:
    def start(self, ww1, side="all", phase="replacement", hq_face=None):
        st = setup_state(ww1, phase=phase, phasing_side=side)
        if hq_face:
            st.units_state["all.hq3"].face = _face_index(ww1, "all.hq3", hq_face)
        st.take_snapshot("phase_start")
        return st

    @pytest.mark.parametrize("hq_face", [None, "exhausted", "replenished"])
    def test_repair_with_the_hq_in_the_allied_replacement_phase(self, ww1, hq_face):
        st = self.start(ww1, hq_face=hq_face)
        r = rule(ww1, "tank.repair")
        evs = [flip(st, "all.whippet", "functional"), Event("phase_end", 2, phase="replacement")]
        assert feed(r, st, evs) == []

    def test_flip_in_the_movement_phase(self, ww1):
        st = self.start(ww1, phase="movement")
        out = feed(rule(ww1, "tank.repair"), st, [flip(st, "all.whippet", "functional")])
        assert summary(out) == [("tank.repair", ("all.whippet",), ("0703",), "error")]
        assert out[0].message == ("Whippet (3 Bn) Light tank battalion (all.whippet) in 0703 changed "
                                  "broken → functional in the Movement Phase of Allies; this change is "
                                  "allowed only in the Replacement & Reinforcement Phase of its own side.")

    def test_flip_in_the_german_replacement_phase(self, ww1):
        st = self.start(ww1, side="ger")
        out = feed(rule(ww1, "tank.repair"), st, [flip(st, "all.whippet", "functional")])
        assert summary(out) == [("tank.repair", ("all.whippet",), ("0703",), "error")]

    def test_hq_arrived_only_during_the_phase(self, ww1):
        st = setup_state(ww1, phase="replacement", phasing_side="all")
        st.place_unit("all.whippet", "0503", None)        # with the cavalry, no HQ
        st.take_snapshot("phase_start")
        move(st, "all.hq3", "0503")
        out = feed(rule(ww1, "tank.repair"), st, [flip(st, "all.whippet", "functional")])
        assert summary(out) == [("tank.repair", ("all.whippet",), ("0503",), "error")]
        assert "at the start of the phase it did not share a hex with a unit tagged hq" in out[0].message

    def test_eligible_tank_left_broken_at_phase_end(self, ww1):
        st = self.start(ww1)
        out = feed(rule(ww1, "tank.repair"), st, [Event("phase_end", 3, phase="replacement")])
        assert summary(out) == [("tank.repair", ("all.whippet",), ("0703",), "warning")]

    def test_not_mandatory_outside_its_window(self, ww1):
        st = self.start(ww1, side="ger")
        r = rule(ww1, "tank.repair")
        assert feed(r, st, [Event("phase_end", 3, phase="replacement")]) == []
        st.phase = "movement"
        assert feed(r, st, [Event("phase_end", 4, phase="movement")]) == []

    def test_breakdown_is_not_a_repair(self, ww1):
        st = self.start(ww1, phase="combat")
        assert feed(rule(ww1, "tank.repair"), st, [flip(st, "all.tank", "broken")]) == []


# -- phase_sweep ---------------------------------------------------------------------------------
class TestMarkerRemovalSweep:
    def test_all_markers_gone(self, modern):
        st = setup_state(modern, phase="marker_removal")
        st.units_state["syr.t72.1"].layers |= {"disrupted"}      # not swept by this rule
        st.place_marker("w1", "wreck", "0805", None)
        assert feed(rule(modern, "sweep.marker_removal"), st,
                    [Event("phase_end", 2, phase="marker_removal")]) == []

    def test_one_ops_complete_layer_left_on(self, modern):
        st = setup_state(modern, phase="marker_removal")
        st.units_state["syr.t72.2"].layers |= {"ops_complete"}
        out = feed(rule(modern, "sweep.marker_removal"), st, [Event("phase_end", 2, phase="marker_removal")])
        assert summary(out) == [("sweep.marker_removal", ("syr.t72.2",), ("1002",), "error")]
        assert out[0].message.startswith("2/78 T-72 platoon (syr.t72.2) in 1002 is still marked Ops Complete "
                                         "at the end of the Marker Removal Phase")

    def test_in_zone_counter_left(self, modern):
        st = setup_state(modern, phase="marker_removal")
        st.place_marker("z1", "in_zone", "1103", None)
        r = rule(modern, "sweep.marker_removal")
        assert feed(r, st, [Event("phase_end", 2, phase="action")]) == []
        out = feed(r, st, [Event("phase_end", 2, phase="marker_removal")])
        assert summary(out) == [("sweep.marker_removal", (), ("1103",), "error")]

    def test_formation_chits_back_in_the_cup(self, modern):
        st = setup_state(modern, phase="marker_removal")
        st.place_marker("c1", "formation_chit", None, "chit_cup")
        st.place_marker("c2", "formation_chit", None, "chit_cup")
        st.place_marker("e1", "end_turn_chit", None, "chits_drawn")      # may be held back
        r = rule(modern, "chits.back_to_cup")
        assert feed(r, st, [Event("phase_end", 2, phase="marker_removal")]) == []
        st.place_marker("c2", "formation_chit", None, "chits_drawn")
        out = feed(r, st, [Event("phase_end", 2, phase="marker_removal")])
        assert summary(out) == [("chits.back_to_cup", (), (), "warning")]
        assert out[0].evidence["marker"] == "c2"


class TestOtherSweeps:
    def test_aircraft_off_the_map_after_combat(self, ww1):
        st = setup_state(ww1, phase="combat", phasing_side="ger")
        r = rule(ww1, "air.off_map_after_combat")
        assert feed(r, st, [Event("phase_end", 2, phase="combat")]) == []
        st.place_unit("ger.jg1", "0902", None)
        out = feed(r, st, [Event("phase_end", 3, phase="combat")])
        assert summary(out) == [("air.off_map_after_combat", ("ger.jg1",), ("0902",), "warning")]

    def test_hero_back_to_the_counter_mix(self, cc):
        st = setup_state(cc, phase="orders", phasing_side="it")
        r = rule(cc, "hero.back_to_counter_mix")
        st.place_unit("fr.hero", "0303", None)                    # on the map: not selected
        assert feed(r, st, [Event("phase_end", 2, phase="orders")]) == []
        st.place_unit("fr.hero", None, "fr_casualties")           # the Casualty Track
        st.place_unit("it.hero", None, "fr_mix")                  # the other side's counter mix
        out = feed(r, st, [Event("phase_end", 3, phase="orders")])
        assert summary(out) == [("hero.back_to_counter_mix", ("fr.hero",), (), "error"),
                                ("hero.back_to_counter_mix", ("it.hero",), (), "error")]
        assert "is in box fr_casualties at the end of the Приказы и действия" in out[0].message


# -- obligation (001:1.3.3.1c, 1.3.3.2c-d) ---------------------------------------------------------
class TestHqDiesWithStack:
    @pytest.mark.parametrize("hq_first", [False, True])
    def test_hq_eliminated_with_its_stack_and_wreck_placed(self, modern, hq_first):
        st = setup_state(modern, phase="action")
        run = Run(rule(modern, "hq.dies_with_stack"), st)
        run(Event("step_start", 7))
        for uid in (["syr.hq_78", "syr.t72.1"] if hq_first else ["syr.t72.1", "syr.hq_78"]):
            run(eliminate(st, uid, "syr_elim", step=7))
        run(marker_add(st, "wr1", "wreck", "1103", step=7))
        run(Event("step_end", 7))
        assert run.out == []

    def test_hq_still_on_the_map(self, modern):
        st = setup_state(modern, phase="action")
        run = Run(rule(modern, "hq.dies_with_stack"), st)
        run(eliminate(st, "syr.t72.1", "syr_elim", step=7))
        run(Event("dice", 7, dice=(6,)), Event("step_end", 7))
        assert summary(run.out) == [("hq.dies_with_stack", ("syr.hq_78",), ("1103",), "error")]
        assert run.out[0].step == 7
        assert run.out[0].message == (
            "the last unit stacked with 78 Tank HQ (syr.hq_78) in 1103 was eliminated (1/78 T-72 platoon "
            "(syr.t72.1)), but 78 Tank HQ (syr.hq_78) in 1103 is still on the map at the end of the step; "
            "it must be eliminated with its stack.")

    @pytest.mark.parametrize("hq_first", [False, True])
    def test_hq_eliminated_but_no_wreck(self, modern, hq_first):
        st = setup_state(modern, phase="action")
        run = Run(rule(modern, "hq.dies_with_stack"), st)
        for uid in (["syr.hq_78", "syr.t72.1"] if hq_first else ["syr.t72.1", "syr.hq_78"]):
            run(eliminate(st, uid, "syr_elim", step=7))
        run(Event("step_end", 7))
        assert summary(run.out) == [("hq.dies_with_stack", ("syr.hq_78",), ("1103",), "error")]
        assert "no Wreck marker in 1103" in run.out[0].message

    def test_not_the_last_unit_or_not_an_elimination(self, modern):
        st = setup_state(modern, phase="action")
        move(st, "syr.t72.2", "1103")
        run = Run(rule(modern, "hq.dies_with_stack"), st)
        run(eliminate(st, "syr.t72.1", "syr_elim", step=7))
        run(Event("step_end", 7))
        run(move(st, "syr.t72.2", "1104", step=8))
        run(Event("step_end", 8))
        assert run.out == []

    def test_removed_from_the_game_counts_as_eliminated(self, modern):
        st = setup_state(modern, phase="action")
        st.remove_unit("syr.t72.1")
        out = feed(rule(modern, "hq.dies_with_stack"), st,
                   [Event("remove", 7, unit="syr.t72.1", from_hex="1103"), Event("step_end", 7)])
        assert summary(out) == [("hq.dies_with_stack", ("syr.hq_78",), ("1103",), "error")]

    def test_generic_elimination_trigger(self, modern):
        st = setup_state(modern, phase="action")
        r = make_rule(modern, "obligation", {"trigger": {"event": "eliminated", "subject": {"tags": ["hq"]}},
                                             "require": [{"marker_in_hex": "wreck"}], "due": "step_end"})
        out = feed(r, st, [eliminate(st, "syr.hq_85", "syr_elim", step=3), Event("step_end", 3)])
        assert summary(out) == [("test.rule", ("syr.hq_85",), ("1003",), "error")]
