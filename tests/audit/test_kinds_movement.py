"""movement_allowance and escorted_move on the example scenarios (``docs/seed-rules.md`` §5.5 rows
"movement (cross-cutting)", "movement exemptions", "HQ escorted move").

Costs are computed by hand from the example's terrain rows and the rule's
``costs``; every expected number carries its path in a comment.  Hex
neighbours (low_columns even): odd column C, row R → (C, R±1), (C±1, R−1),
(C±1, R); even column → (C, R±1), (C±1, R), (C±1, R+1).
"""

from __future__ import annotations

import copy
import heapq

import pytest

from tests.audit.harness import Game
from tests.audit.helpers import example, make_rule, rule
from vmodtool.audit.kinds import movement
from vmodtool.audit.kinds.movement import MoveCosts

# ======================================================================================
# example A (modern tactical): move.ground, tracked T-72 (8), foot militia cavalry (3)
# ======================================================================================

@pytest.fixture(scope="module")
def quneitra():
    return example("modern-tactical")


def ground(sc):
    return rule(sc, "move.ground")


def clear_idf_west(g):
    """Take the IDF units off Quneitra (0505) and the bridge (0603, 0604)."""
    for uid in ("idf.m113.1", "idf.inf.1", "idf.mk.2", "idf.mk.3"):
        g.place(uid, None, "idf_elim")


def test_road_over_the_bridge_is_cheap(quneitra):
    # T-72 2/78 1005 → 0505: 0905 clear 1, 0804 clear 1, then the Damascus road
    # 0804-0704 0.5, 0704-0604 0.5 (bridge negates the wadi), 0604-0505 0.5 = 3.5 ≤ 8
    g = Game(quneitra, ground(quneitra), phase="action")
    clear_idf_west(g)
    g.place("syr.t72.2", "1005")
    g.activation("bn_78")
    g.step(("move", "syr.t72.2", "0505"))
    assert g.violations == []
    assert g.rules[0].spent == {"syr.t72.2": 3.5}


def test_long_tracked_move_along_the_road_is_legal(quneitra):
    # T-72 3/78 1007 → 0504: 0907 1, 0906 1, 0805 1, 0804 1, road 0704/0604/0505/0504
    # 4 × 0.5 = 6 ≤ 8
    g = Game(quneitra, ground(quneitra), phase="action")
    clear_idf_west(g)
    g.place("syr.t72.3", "1007")
    g.activation("bn_78")
    g.step(("move", "syr.t72.3", "0504"))
    assert g.violations == []
    assert g.rules[0].spent["syr.t72.3"] == 6


def test_militia_cavalry_exactly_its_allowance(quneitra):
    # PA Cav 1 (foot, 3) 1008 → 0806: 0908 clear 1, 0807 woods 1, 0806 woods 1 = 3 ≤ 3
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0806"))
    assert g.violations == []


def test_detour_over_the_bridge_for_an_adjacent_hex(quneitra):
    # 0805 and 0705 are adjacent across the wadi (prohibited for tracked); the
    # cheapest legal route is 0804 1, 0704 road 0.5, 0604 road+bridge 0.5,
    # 0705 clear 1 = 3 ≤ 8
    g = Game(quneitra, ground(quneitra), phase="action")
    clear_idf_west(g)
    g.place("syr.t72.1", "0805")
    g.activation("bn_78")
    g.step(("move", "syr.t72.1", "0705"))
    assert g.violations == []
    assert g.rules[0].spent["syr.t72.1"] == 3


def test_militia_cavalry_across_the_wadi_is_too_far(quneitra):
    # 1008 → 0708: 0908 1, 0807 woods 1, 0708 clear 1 + river 2 = 5 > 3
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    s = g.step(("move", "syr.cav.1", "0708"))
    assert g.found() == [("move.ground", s, ("syr.cav.1",), ("1008", "0708"))]
    v = g.violations[0]
    assert v.message == ("PA Cav 1 Militia cavalry platoon (syr.cav.1) moved 1008 → 0708: "
                         "needs 5 MP by the cheapest legal path 1008-0908(1)-0807(1)-0708(3), "
                         "has 3")
    assert v.evidence["path"] == ["1008", "0908", "0807", "0708"]
    assert v.evidence["costs"] == [1, 1, 3]
    assert v.severity == "error" and v.turn == 1 and v.phase == "action"
    assert v.activation == "bn_85"


def test_t72_one_hex_too_far(quneitra):
    # T-72 3/78 1104 → 1110: 1004 town 1, 1005, 1006, 1007, 1008, 1109 clear 1 each,
    # 1110 rough 3 = 9 > 8
    g = Game(quneitra, ground(quneitra), phase="action")
    g.activation("bn_78")
    s = g.step(("move", "syr.t72.3", "1110"))
    assert g.found() == [("move.ground", s, ("syr.t72.3",), ("1104", "1110"))]
    assert "needs 9 MP" in g.violations[0].message
    assert g.violations[0].message.endswith("has 8")


def test_split_moves_are_summed(quneitra):
    # 1008 → 0807 (0908 1, 0807 woods 1 = 2), then 0807 → 0805 (0806 woods 1,
    # 0805 clear 1 = 2): 4 > 3, flagged at the second drag only
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0807"))
    s2 = g.step(("move", "syr.cav.1", "0805"))
    assert g.found() == [("move.ground", s2, ("syr.cav.1",), ("0807", "0805"))]
    v = g.violations[0]
    assert v.evidence["spent"] == 4 and v.evidence["cost"] == 2
    assert "1008 → 0807 2" in v.message and "spent 4 MP, has 3" in v.message


def test_window_resets_at_the_next_activation(quneitra):
    # 2 MP in each of two activations of the 85th: never more than 3 in one
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0807"))        # 2
    g.clock("activation_end", text="bn_85")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0805"))        # 2
    assert g.violations == []


def test_move_into_an_enemy_hex(quneitra):
    # BRDM Recce/85 0904 → 0604: Merkava 3/A holds 0604
    g = Game(quneitra, ground(quneitra), phase="action")
    g.activation("bn_85")
    s = g.step(("move", "syr.brdm", "0604"))
    assert g.found() == [("move.ground", s, ("syr.brdm",), ("0904", "0604"))]
    assert "0604 holds enemy units (idf.mk.3)" in g.violations[0].message


def test_wheeled_into_rough_is_prohibited(quneitra):
    # BRDM (wheeled) 0904 → 0902: 0902 is basalt (rough), prohibited for wheeled
    g = Game(quneitra, ground(quneitra), phase="action")
    g.activation("bn_85")
    s = g.step(("move", "syr.brdm", "0902"))
    assert g.found() == [("move.ground", s, ("syr.brdm",), ("0904", "0902"))]
    assert "0902 is Basalt boulder field, prohibited for wheeled movement" in \
        g.violations[0].message


def test_enemy_on_the_bridge_leaves_no_legal_path(quneitra):
    # Merkava 3/A on 0604 blocks the only bridge; the wadi is prohibited for
    # tracked, so T-72 0804 → 0503 has no legal path at all
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.t72.1", "0804")
    g.activation("bn_78")
    s = g.step(("move", "syr.t72.1", "0503"))
    assert g.found() == [("move.ground", s, ("syr.t72.1",), ("0804", "0503"))]
    assert "no legal path for tracked movement" in g.violations[0].message


def test_minimum_move(quneitra):
    # fixed allowance 1: T-72 1105 → 1106 (hill, 2 > 1) is a single hex, legal
    # as the minimum move; a further hex in the same activation is then too far
    r = rule(quneitra, "move.ground", params={"allowance": 1})
    g = Game(quneitra, r, phase="action")
    g.place("syr.t72.3", "1105")
    g.activation("bn_78")
    g.step(("move", "syr.t72.3", "1106"))        # hill 2 > 1, minimum move
    assert g.violations == []
    s = g.step(("move", "syr.t72.3", "1107"))    # hill 2 more
    assert g.found() == [("move.ground", s, ("syr.t72.3",), ("1106", "1107"))]
    assert "minimum move" in g.violations[0].message


def test_minimum_move_never_allows_two_hexes(quneitra):
    # allowance 1, T-72 1105 → 1107 (1106 hill 2, 1107 hill 2 = 4): two hexes
    r = rule(quneitra, "move.ground", params={"allowance": 1})
    g = Game(quneitra, r, phase="action")
    g.place("syr.t72.3", "1105")
    g.activation("bn_78")
    s = g.step(("move", "syr.t72.3", "1107"))
    assert g.found() == [("move.ground", s, ("syr.t72.3",), ("1105", "1107"))]


# -- exemptions --------------------------------------------------------------------------

def test_moves_outside_the_listed_phases_are_not_counted(quneitra):
    g = Game(quneitra, ground(quneitra), phase="marker_removal")
    g.place("syr.cav.1", "1008")
    g.step(("move", "syr.cav.1", "0708"))        # 5 MP, but not in the Action Phase
    assert g.violations == []
    assert g.rules[0].spent == {}


def test_retreat_annotated_in_the_same_step(quneitra):
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    # the annotation may even follow the drag inside the step
    g.step(("move", "syr.cav.1", "0708"), ("retreat", None, None))
    assert g.violations == []
    assert g.rules[0].spent == {}


def test_retreat_annotated_before_the_move(quneitra):
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("retreat", "1008", "0708"))
    g.step(("move", "syr.cav.1", "0708"))        # exempt: the annotated retreat
    s = g.step(("move", "syr.cav.1", "0707"))    # not a retreat: 0707 clear 1 ≤ 3
    assert g.violations == [] and s
    # the annotation was consumed: the same retreat again is charged
    s = g.step(("move", "syr.cav.1", "0708"))
    assert g.violations == []                    # 1 + 1 = 2 ≤ 3
    g.place("syr.cav.1", "1008")
    s = g.step(("move", "syr.cav.1", "0708"))    # 2 + 5 > 3
    assert g.found() == [("move.ground", s, ("syr.cav.1",), ("1008", "0708"))]


def test_moves_into_the_eliminated_box_are_not_movement(quneitra):
    g = Game(quneitra, ground(quneitra), phase="action")
    g.activation("bn_85")
    g.step(("leave", "syr.cav.2", "syr_elim"))
    assert g.violations == []


def test_undone_move_is_rolled_back(quneitra):
    # §5.6: the engine restores the rule copy taken before the undone step
    g = Game(quneitra, ground(quneitra), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    before = copy.deepcopy(g.rules[0])
    g.step(("move", "syr.cav.1", "0807"))        # 2 MP
    assert g.rules[0].spent == {"syr.cav.1": 2}
    g.rules[0] = before                          # undo
    g.place("syr.cav.1", "1008")
    g.step(("move", "syr.cav.1", "0806"))        # 3 MP, alone in the window
    assert g.violations == []
    assert before.tables is g.rules[0].tables   # tables are shared, not copied


def test_helicopter_ignores_terrain_rivers_and_enemies(quneitra):
    # move.helicopter: air pays 1 per hex; Gazelle 1208 → 0505 is 7 hexes ≤ 22,
    # across the wadi and into the IDF-held town
    g = Game(quneitra, rule(quneitra, "move.helicopter"), ground(quneitra), phase="action")
    g.activation("syr_aviation")
    g.step(("move", "syr.gazelle", "0505"))
    assert g.violations == []
    assert g.rules[0].spent == {"syr.gazelle": 7}
    assert g.rules[1].spent == {}                # not a subject of move.ground


def test_helicopter_over_its_allowance(quneitra):
    # allowance 22: 1208 → 0207 (10 hexes) three times = 30 > 22 at the third
    g = Game(quneitra, rule(quneitra, "move.helicopter"), phase="action")
    g.activation("syr_aviation")
    g.step(("move", "syr.gazelle", "0207"))
    g.step(("move", "syr.gazelle", "1208"))
    s = g.step(("move", "syr.gazelle", "0207"))
    assert g.found() == [("move.helicopter", s, ("syr.gazelle",), ("1208", "0207"))]


class CountingHeap:
    """``heapq`` for the movement module, counting the hexes its searches
    take off the heap (the work of a Dijkstra run, whatever the machine)."""

    def __init__(self) -> None:
        self.pops = 0
        self.pushes = 0

    def heappush(self, heap, item) -> None:
        self.pushes += 1
        heapq.heappush(heap, item)

    def heappop(self, heap):
        self.pops += 1
        return heapq.heappop(heap)


@pytest.fixture
def counting_heap(monkeypatch):
    heap = CountingHeap()
    monkeypatch.setattr(movement, "heapq", heap)
    return heap


def test_repeated_moves_reuse_cached_searches(quneitra, counting_heap):
    # a unit shuttling round six hexes: one search per (from, to) pair, the
    # first time; every later check is a cache hit that searches nothing
    # (timings: benchmarks/bench_audit.py, "movement search")
    r = ground(quneitra)
    r.tables._paths.clear()             # (kept with the map's tables: earlier tests' searches)
    r.tables._cache.clear()
    g = Game(quneitra, r, phase="action")
    g.activation("bn_78")
    hexes = ["1005", "0905", "0804", "1006", "1103", "1002"]
    pops_after_first_round = None
    for i in range(300):
        r.spent = {}
        g.step(("move", "syr.t72.3", hexes[i % len(hexes)]))
        if i == len(hexes):                # 1104 → 1005 and the six moves of the round
            pops_after_first_round = counting_heap.pops
    assert g.violations == []
    assert pops_after_first_round and counting_heap.pops == pops_after_first_round
    assert len(r.tables._paths) == len(hexes) + 1         # distinct searches run
    # the rule made again (the next audit of the scenario) shares the searches
    again = ground(quneitra)
    assert again.tables._paths is r.tables._paths
    g = Game(quneitra, again, phase="action")
    g.activation("bn_78")
    for i in range(len(hexes) + 1):
        again.spent = {}
        g.step(("move", "syr.t72.3", hexes[i % len(hexes)]))
    assert g.violations == [] and counting_heap.pops == pops_after_first_round


def test_one_search_settles_each_hex_once(quneitra, counting_heap):
    # uncached searches on a fresh cost table: Dijkstra with a heap, each hex
    # settled once and each edge relaxed at most once, never a walk over paths;
    # the search stops when the destination is settled
    r = ground(quneitra)
    hexes = len(quneitra.map.hex_ids)
    for src in ["0101", "0505", "1208", "0610", "1201"]:
        costs = MoveCosts(quneitra, r.params)
        edges = sum(len(near) for near in costs.edges("tracked").values())
        counting_heap.pops = counting_heap.pushes = 0
        assert costs.cheapest("tracked", src, "0710") is not None
        assert counting_heap.pushes <= edges
        assert counting_heap.pops <= counting_heap.pushes + 1          # the heap is emptied at most once
        assert counting_heap.pops < 2 * hexes
        # another destination from the same hex: a second bounded search
        assert costs.cheapest("tracked", src, "0101" if src != "0101" else "1208") is not None
        assert counting_heap.pops <= counting_heap.pushes + 2 and counting_heap.pops < 4 * hexes


def test_a_destination_no_step_enters_is_answered_without_a_search(quneitra, counting_heap):
    # a move into an enemy-occupied hex (blocked) or into terrain its class may
    # not enter has no legal path: known before any search (a search would
    # settle every hex it reaches, a published module's whole map, for nothing)
    r = ground(quneitra)
    costs = MoveCosts(quneitra, r.params)
    hexes = sorted(quneitra.map.hex_ids)
    src, enemy = "1005", "0905"
    full_dist, _ = costs._search("tracked", src, frozenset({enemy}), frozenset())
    assert enemy not in full_dist                       # what the search would have found
    counting_heap.pops = counting_heap.pushes = 0
    assert costs.cheapest("tracked", src, enemy, frozenset({enemy})) is None
    # (a road across the hexside may still lead into prohibited terrain: a
    # hex is closed when no neighbour has a legal step into it)
    prohibited = [h for h in hexes if all(costs.step_cost("wheeled", a, h) is None
                                          for a in costs.neighbours.get(h, ()))]
    assert prohibited, "the example map has terrain wheeled units may not enter"
    full_dist, _ = costs._search("wheeled", src, frozenset(), frozenset())
    assert not set(prohibited) & set(full_dist)
    searched = counting_heap.pops
    for dst in prohibited:
        assert dst not in costs.entrances("wheeled")
        assert costs.cheapest("wheeled", src, dst) is None
    assert counting_heap.pops == searched               # (the whole search above only)
    # a unit that stays where it is (in its own blocked or prohibited hex) costs nothing
    assert costs.cheapest("wheeled", prohibited[0], prohibited[0], frozenset({prohibited[0]})) == (0.0, ())
    # every other destination: the same answer as the whole search gives
    blocked = frozenset({enemy, "0804"})
    dist, _ = costs._search("tracked", src, blocked, frozenset())
    for dst in hexes:
        found = MoveCosts(quneitra, r.params).cheapest("tracked", src, dst, blocked)
        assert (found[0] if found else None) == (dist.get(dst) if dst != src else 0.0)

# ======================================================================================
# example B (WWI operational): move.allowance, window phase, enemy ZOC stops
# ======================================================================================

@pytest.fixture(scope="module")
def somme():
    return example("ww1-operational")


def somme_game(sc):
    g = Game(sc, rule(sc, "move.allowance"), phase="movement")
    g.place("all.bri.3", "0502")          # out of the way: no Allied ZOC near 1004
    return g


def test_tank_must_use_the_bridge_and_fails(somme):
    # A7V (tracked, 3) 0905 → 1005: the Somme between them is prohibited for
    # tracked; the only route is the road 0905-1004 1, 1004-1104 1, the bridge
    # 1104-1105 1, then 1005 clear 1 = 4 > 3
    g = somme_game(somme)
    g.place("ger.a7v", "0905")
    g.clock("phase_start", phase="movement")
    s = g.step(("move", "ger.a7v", "1005"))
    assert g.found() == [("move.allowance", s, ("ger.a7v",), ("0905", "1005"))]
    assert ("needs 4 MP by the cheapest legal path 0905-1004(1)-1104(1)-1105(1)-1005(1), "
            "has 3") in g.violations[0].message


def test_tank_over_the_bridge_within_allowance(somme):
    # A7V 1004 → 1005 (adjacent across the river): 1104 road 1, bridge 1105 1,
    # 1005 1 = 3 ≤ 3; the German division in 1105 is friendly
    g = somme_game(somme)
    g.place("ger.a7v", "1004")
    g.clock("phase_start", phase="movement")
    g.step(("move", "ger.a7v", "1005"))
    assert g.violations == []


def test_enemy_zoc_forces_a_detour(somme):
    # with the 14th Division back in 0904, 1004 is in its ZOC: the A7V may
    # enter 1004 but not go on to 1104, so the bridge at Ham is out of reach.
    # 0905 → 1005 then costs the Peronne detour: road 0805 1, road over the
    # bridge 0806 1, 0907 clear 1, 1006 clear 1, 1005 clear 1 = 5 > 3
    g = Game(somme, rule(somme, "move.allowance"), phase="movement")
    g.place("ger.a7v", "0905")
    g.clock("phase_start", phase="movement")
    s = g.step(("move", "ger.a7v", "1005"))
    assert g.found() == [("move.allowance", s, ("ger.a7v",), ("0905", "1005"))]
    assert ("needs 5 MP by the cheapest legal path 0905-0805(1)-0806(1)-0907(1)-1006(1)"
            "-1005(1), has 3") in g.violations[0].message


def test_enemy_zoc_and_units_leave_no_path(somme):
    # as above, and a British division also holds the Peronne bridgehead 0806:
    # no legal path remains (the river is prohibited for tracked)
    g = Game(somme, rule(somme, "move.allowance"), phase="movement")
    g.place("ger.a7v", "0905")
    g.place("all.bri.1", "0806")
    g.clock("phase_start", phase="movement")
    s = g.step(("move", "ger.a7v", "1005"))
    assert g.found() == [("move.allowance", s, ("ger.a7v",), ("0905", "1005"))]
    assert g.violations[0].message.endswith(
        "no legal path for tracked movement (prohibited terrain and hexsides, "
        "enemy-occupied hexes, stopping on entering enemy ZOC)")


def test_moving_on_after_entering_enemy_zoc(somme):
    # A7V 1104 → 1004 (road 1) enters the ZOC of the 14th Division in 0904; a
    # second drag 1004 → 1105 (road 1104 1, bridge 1105 1: 1 + 2 = 3 ≤ 3) is
    # illegal anyway: movement had to stop in 1004
    g = Game(somme, rule(somme, "move.allowance"), phase="movement")
    g.place("ger.a7v", "1104")
    g.clock("phase_start", phase="movement")
    g.step(("move", "ger.a7v", "1004"))
    assert g.violations == []
    s = g.step(("move", "ger.a7v", "1105"))      # back on the road: leaves the ZOC
    assert g.found() == [("move.allowance", s, ("ger.a7v",), ("1004", "1105"))]
    assert "enemy zone of control at 1004" in g.violations[0].message


def test_phase_window_resets_at_the_next_phase(somme):
    # Whippet (tracked, 5) 0703 → 0803 clear 1 in the Movement Phase; a move in
    # the Combat Phase is not counted; the Exploitation Phase is a new window:
    # 0802 → 0803 on the Bapaume road 1
    g = somme_game(somme)
    g.clock("phase_start", phase="movement")
    g.step(("move", "all.whippet", "0803"))
    g.clock("phase_end", phase="movement")
    g.clock("phase_start", phase="combat")
    g.step(("move", "all.whippet", "0802"))      # combat: not a listed phase
    g.clock("phase_start", phase="exploitation")
    g.step(("move", "all.whippet", "0803"))
    assert g.violations == []
    assert g.rules[0].spent == {"all.whippet": 1}


# ======================================================================================
# Combat Commander example: move.allowance per Orders phase, walls, a road over water
# ======================================================================================

@pytest.fixture(scope="module")
def menton():
    return example("combat-commander")


def cc_game(sc):
    g = Game(sc, rule(sc, "move.allowance"), phase="orders")
    g.clock("phase_start", phase="orders")
    return g


def test_cc_wall_costs_extra_and_moves_are_summed(menton):
    # Italian line squad (movement 4) 0804 → 0704: orchard 1 + terrace wall 1 = 2;
    # then 0704 → 0503: 0603 open 1, 0503 buildings 2 = 3; 5 > 4
    g = cc_game(menton)
    g.step(("move", "it.sq_line.1", "0704"))
    assert g.violations == []
    s = g.step(("move", "it.sq_line.1", "0503"))
    assert g.found() == [("move.allowance", s, ("it.sq_line.1",), ("0704", "0503"))]
    assert g.violations[0].evidence["spent"] == 5


def test_cc_road_crosses_the_water_hex(menton):
    # 0605 (the Saint-Louis bridge) is water, prohibited for foot, but the
    # coast road runs 0705-0605: road cost 1 instead of the terrain
    g = cc_game(menton)
    g.state.place_unit("it.sq_line.1", "0705", None)
    g.step(("move", "it.sq_line.1", "0605"))
    assert g.violations == []
    assert g.rules[0].spent == {"it.sq_line.1": 1}


def test_cc_water_is_prohibited(menton):
    # green squad 0906 → 1007: water, and not along the road
    g = cc_game(menton)
    s = g.step(("move", "it.sq_green.2", "1007"))
    assert g.found() == [("move.allowance", s, ("it.sq_green.2",), ("0906", "1007"))]
    assert "1007 is Водная поверхность, prohibited for foot movement" in \
        g.violations[0].message


def test_cc_hero_is_not_a_subject(menton):
    g = cc_game(menton)
    g.state.place_unit("it.hero", "0906", None)
    g.step(("move", "it.hero", "0101"))          # far beyond movement 6: not judged here
    assert g.violations == []


# ======================================================================================
# escorted_move (hq.escorted_move, example A)
# ======================================================================================

def escort_game(sc, **params):
    r = rule(sc, "hq.escorted_move", params=params) if params else rule(sc, "hq.escorted_move")
    g = Game(sc, r, phase="action")
    g.place("syr.t72.1", "1006")
    g.place("syr.hq_78", "1006")
    g.activation("bn_78")
    return g


def test_hq_and_tank_dragged_together(quneitra):
    # a stack drag 1006 → 0805 gives one move per member in the same step
    g = escort_game(quneitra)
    g.step(("move", "syr.t72.1", "0805"), ("move", "syr.hq_78", "0805"))
    assert g.violations == []


def test_hq_and_tank_moved_separately_in_one_step(quneitra):
    g = escort_game(quneitra)
    g.step(("move", "syr.hq_78", "0805"), ("move", "syr.t72.1", "0805"))
    assert g.violations == []


def test_escort_in_two_drags(quneitra):
    # the tank goes 1006 → 0906 → 0805 in the step, the HQ in one drag
    g = escort_game(quneitra)
    g.step(("move", "syr.t72.1", "0906"), ("move", "syr.t72.1", "0805"),
           ("move", "syr.hq_78", "0805"))
    assert g.violations == []


def test_hq_and_tank_to_different_hexes(quneitra):
    g = escort_game(quneitra)
    s = g.step(("move", "syr.hq_78", "0805"), ("move", "syr.t72.1", "0906"))
    assert g.found() == [("hq.escorted_move", s, ("syr.hq_78",), ("1006", "0805"))]
    assert g.violations[0].message == (
        "78 Tank HQ (syr.hq_78) moved 1006 → 0805, but no escort moved 1006 → 0805 in the "
        "same step (1/78 T-72 platoon (syr.t72.1) moved 1006 → 0906)")


def test_hq_moves_alone(quneitra):
    g = escort_game(quneitra)
    s = g.step(("move", "syr.hq_78", "0805"))
    assert g.found() == [("hq.escorted_move", s, ("syr.hq_78",), ("1006", "0805"))]
    assert g.violations[0].message.endswith("(it moved alone)")


def test_wrong_escorts_do_not_count(quneitra):
    # HQ 78 serves tanks of the 78th: a BMP of the 85th moving with it is no escort
    g = escort_game(quneitra)
    g.place("syr.bmp.1", "1006")
    s = g.step(("move", "syr.bmp.1", "0805"), ("move", "syr.hq_78", "0805"))
    assert g.found() == [("hq.escorted_move", s, ("syr.hq_78",), ("1006", "0805"))]


def test_strict_window_tank_in_a_later_step(quneitra):
    g = escort_game(quneitra)
    s = g.step(("move", "syr.hq_78", "0805"))
    g.step(("move", "syr.t72.1", "0805"))
    assert g.found() == [("hq.escorted_move", s, ("syr.hq_78",), ("1006", "0805"))]


def test_lenient_window_tank_in_a_later_step(quneitra):
    g = escort_game(quneitra, window="activation")
    g.step(("move", "syr.hq_78", "0805"))
    g.step(("move", "syr.t72.1", "0805"))
    g.clock("activation_end", text="bn_78")
    assert g.violations == []


def test_lenient_window_tank_only_in_a_later_activation(quneitra):
    g = escort_game(quneitra, window="activation")
    s = g.step(("move", "syr.hq_78", "0805"))
    g.clock("activation_end", text="bn_78")
    assert g.found() == [("hq.escorted_move", s, ("syr.hq_78",), ("1006", "0805"))]
    assert g.violations[0].activation == "bn_78"
    g.activation("bn_78")
    g.step(("move", "syr.t72.1", "0805"))
    g.clock("activation_end", text="bn_78")
    assert len(g.violations) == 1


def test_escorted_move_custom_selector(quneitra):
    # the same kind with a plain selector: helicopters escorted by helicopters
    r = make_rule(quneitra, "escorted_move",
                  {"subject": {"type": "ah1_sect"}, "escort": {"tags": ["helicopter"]},
                   "window": "step"}, rule_id="heli.pair")
    g = Game(quneitra, r, phase="action")
    g.place("syr.gazelle", "0207")
    s = g.step(("move", "idf.cobra", "0306"))
    assert g.found() == [("heli.pair", s, ("idf.cobra",), ("0207", "0306"))]
    assert "(it moved alone)" in g.violations[0].message


@pytest.mark.parametrize("exempt", [False, True])
def test_a_unit_that_entered_the_map_this_window_with_exempt_entering(quneitra, exempt):
    """``exempt_entering``: a unit that came onto the map in the window
    (TLD's strategic movement off a display the module lacks) is not charged
    its later drags in it; without it, the drags after entering are summed
    (1008 → 0807 → 0805: 4 MP of 3, flagged)."""
    g = Game(quneitra, rule(quneitra, "move.ground", params={"exempt_entering": exempt}), phase="action")
    g.place("syr.cav.1", None, "syr_elim")
    g.activation("bn_85")
    g.step(("enter", "syr.cav.1", "1008"))
    g.step(("move", "syr.cav.1", "0807"))
    g.step(("move", "syr.cav.1", "0805"))
    assert [f[0] for f in g.found()] == ([] if exempt else ["move.ground"])
    g.clock("activation_end", text="bn_85")
    g.activation("bn_85")                          # a new window: charged again
    g.step(("move", "syr.cav.1", "0807"))
    g.step(("move", "syr.cav.1", "1008"))
    assert len(g.found()) == (1 if exempt else 2)
