"""The audit state's caches stay true to the game: unit views follow every
change, the change log names every hex that changed, compiled selectors
answer as the reference interpretation, snapshots are kept where a rule
reads them, and the fast paths (distance, single properties) agree with
the slow ones."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import pytest

from tests.audit.helpers import EXAMPLES, setup_state
from vmodtool.audit.api import Event
from vmodtool.audit.engine import Engine
from vmodtool.audit.selectors import _key_matches, matches, reads
from vmodtool.audit.state import AuditState


def _reference(selector, unit, state, subject):
    """Selectors read key by key with :func:`_key_matches` (what the
    compiled predicates must agree with)."""
    if selector is None or selector == {}:
        return True
    if isinstance(selector, (list, tuple)):
        return any(_reference(s, unit, state, subject) for s in selector)
    if not isinstance(selector, Mapping):
        return False
    return all(_key_matches(k, v, unit, state, subject) for k, v in selector.items())


SELECTOR_KEYS = {"subject", "with", "escort", "status", "exempt", "select", "hex_contains",
                 "stacked_with", "same_hex_as", "enemy_ignore", "exerted_by", "where", "units"}


def _selectors(params):
    """Every selector-looking value of a rule's params (recursively)."""
    if isinstance(params, Mapping):
        for key, value in params.items():
            if key in SELECTOR_KEYS and isinstance(value, (Mapping, list)):
                yield value
            yield from _selectors(value)
    elif isinstance(params, list):
        for value in params:
            yield from _selectors(value)


HAND_MADE = [
    {}, None, {"tags": ["hq"]}, {"tags_all": ["hq", "x"]}, {"tags_any": ["hq", "helicopter"]},
    {"type": ["t72", "hq"]}, {"side": "friendly"}, {"side": "enemy"}, {"side": ["syr"]},
    {"same": ["side", "formation"]}, {"served_by": "subject"}, {"formation": ["bn_78"]},
    {"face": ["reduced"]}, {"markers": ["ops_complete", "disrupted"]}, {"in": ["dead"]},
    {"on_map": True}, {"on_map": False}, {"not": {"tags": ["hq"]}},
    {"formation_command": "exempt"}, {"formation_command": "none"},
    {"first_activation_on_map": True}, {"in_box_role": ["dead", "eliminated"]},
    {"state": {"steps": [1]}}, [{"tags": ["hq"]}, {"side": "enemy"}],
    {"not": [{"tags": ["hq"]}, {"face": "reduced"}], "side": "friendly"}, 42, "hq",
]


@pytest.mark.parametrize("system", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_compiled_selectors_agree_with_the_reference(system):
    from vmodtool.scenario import load_scenario
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    state = setup_state(scenario)
    selectors = HAND_MADE + [s for r in scenario.rules for s in _selectors(r.params)]
    units = state.units()
    assert units and len(selectors) > len(HAND_MADE)
    checked = 0
    for selector, unit, subject in itertools.product(selectors, units, units[:6] + [None]):
        assert matches(selector, unit, state, subject) == _reference(selector, unit, state, subject), \
            (selector, unit.uid, subject.uid if subject else None)
        checked += 1
    assert checked > 1000


def test_reads_finds_keys_at_any_depth():
    assert reads({"markers": ["x"]}, "markers")
    assert reads([{"tags": ["a"]}, {"not": {"markers": ["x"]}}], "markers")
    assert not reads({"tags": ["a"], "not": {"side": "enemy"}}, "markers")
    assert not reads(None, "markers")


def test_a_unit_view_follows_face_layers_moves_and_markers(modern):
    state = setup_state(modern)
    uid = next(u.uid for u in state.units() if u.on_map and len(modern.unit_type_of(
        modern.counter(u.uid)).faces) > 1)
    view = state.unit(uid)
    assert state.unit(uid) is view                       # cached while nothing changes
    state.units_state[uid].face = 1                      # a direct write drops the view
    assert state.unit(uid).face != view.face
    state.units_state[uid].layers |= {"ops_complete"}
    assert "ops_complete" in state.unit(uid).markers
    hex_id = view.hex
    kind = next(iter(modern.markers))
    state.place_marker("m1", kind, hex_id, None)         # a marker counter in its hex
    assert kind in state.unit(uid).markers
    state.place_marker("m1", kind, None, "somewhere")    # and gone again
    assert kind not in state.unit(uid).markers or kind == "ops_complete"
    other = next(h for h in modern.map.hex_ids if h != hex_id)
    state.place_unit(uid, other, None)
    assert state.unit(uid).hex == other and state.unit(uid).on_map


def test_the_change_log_names_every_changed_hex(modern):
    state = setup_state(modern)
    mark, _ = state.changed_since(0)
    uid = next(u.uid for u in state.units() if u.on_map)
    a = state.unit(uid).hex
    b = next(h for h in modern.map.hex_ids if h not in state.stacks)
    state.place_unit(uid, b, None)
    mark2, hexes = state.changed_since(mark)
    assert hexes == {a, b}
    assert state.changed_since(mark2)[1] == set()
    state.units_state[uid].face = 1                      # a flip changes what its hex shows
    mark3, hexes = state.changed_since(mark2)
    assert hexes == {b}
    state.place_marker("m2", next(iter(modern.markers)), b, None)
    assert state.changed_since(mark3)[1] == {b}
    state.set_order(b, ["m2", uid])
    assert state.changed_since(mark3)[1] == {b}
    # a copy keeps its own log, its marks going on from the original's; a
    # mark from before the copy counts every occupied hex
    end, _ = state.changed_since(0)
    dup = state.copy()
    assert dup.changed_since(end) == (end, set())
    dup.place_unit(uid, a, None)
    assert dup.changed_since(end)[1] == {a, b}
    assert dup.changed_since(0)[1] == set(dup.stacks) | {b}
    assert state.unit(uid).hex == b
    assert state.changed_since(end) == (end, set())


def test_moves_of_others_changes_only_when_another_side_moves(modern):
    state = setup_state(modern)
    syr = next(u for u in state.units() if u.on_map and u.side == "syr")
    idf = next(u for u in state.units() if u.on_map and u.side == "idf")
    before = state.moves_of_others("syr")
    state.place_unit(syr.uid, next(h for h in modern.map.hex_ids if h != syr.hex), None)
    assert state.moves_of_others("syr") == before
    state.place_unit(idf.uid, next(h for h in modern.map.hex_ids if h != idf.hex), None)
    assert state.moves_of_others("syr") != before
    assert state.copy().moves_of_others("syr") != state.moves_of_others("syr")


def _phase_start(step=1, phase="p"):
    return Event("phase_start", step, turn=1, phase=phase)


def test_snapshots_are_kept_only_where_a_rule_reads_them(modern, ww1):
    plain = Engine(modern)
    state = AuditState(modern)
    plain.dispatch(state, _phase_start())
    assert state.snapshot("phase_start") is None
    reading = Engine(ww1)          # its transition window reads phase_start, in the replacement phase
    state = AuditState(ww1)
    reading.dispatch(state, _phase_start(phase="replacement"))
    assert state.snapshot("phase_start") is not None
    assert reading.wants("phase_start") and not plain.wants("no_such_event")
    # no copy at the start of a phase no rule reads one in, and the older
    # phase's is not left to be read as this one's
    state.phase = "movement"
    reading.dispatch(state, _phase_start(2, phase="movement"))
    assert state.snapshot("phase_start") is None
    state.phase = "replacement"
    reading.dispatch(state, _phase_start(3, phase="replacement"))
    assert state.snapshot("phase_start") is not None


def test_distance_from_raw_indices_equals_the_grid_s(modern, cc):
    for scenario in (modern, cc):
        grid = scenario.map.grid
        hexes = list(grid.hexes)
        for a, b in itertools.product(hexes[::3], hexes[::2]):
            assert grid.distance(a, b) == grid.grid.distance(a, b)


def test_single_properties_equal_the_full_set():
    """What the audit reads one by one (``get_property``) is what the full
    property set says, for every piece of every example game's saved state."""
    from vmodtool.audit.game import scenario_positions
    from vmodtool.replay import Replay
    from vmodtool.scenario import load_scenario
    compared = 0
    for system in ("modern-tactical", "ww1-operational", "combat-commander"):
        scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
        positions, properties, _hands = scenario_positions(scenario)
        replay = Replay.open([EXAMPLES / system / "logs" / "game-1.vlog"], positions=positions,
                             properties=properties)
        engine = replay._restore(0)
        keys = ["UnitId", "MarkerKind", "Formation", "Face_Level"] + [
            f"{k}_Active" for k in scenario.markers]
        for piece in engine.state.game_pieces():
            ref = engine.ref(piece)
            full = engine.ref(piece).properties()
            for key in keys:
                assert ref.get_property(key) == full.get(key), (system, piece.id, key)
                compared += 1
    assert compared > 500


def test_track_position_counts_spaces_along_the_track(cc):
    state = setup_state(cc)
    assert state.track_position("fr_casualties", "surrender") is None
    state.place_marker("s1", "surrender", None, "fr_casualties", 6)
    assert state.track_position("fr_casualties", "surrender", "fr") == 6
    assert state.track_position("it_casualties", "surrender") is None
    assert [m.space for m in state.markers()] == [6]
    state.place_marker("s2", "surrender", None, "fr_casualties", 7)   # two: ambiguous
    assert state.track_position("fr_casualties", "surrender") is None
    state.remove_marker("s2")
    assert state.copy().track_position("fr_casualties", "surrender") == 6


def test_the_audit_follows_markers_along_tracks(monkeypatch):
    """In the Combat Commander game the French Surrender marker starts on
    the 6th space of its Casualty Track and Élan moves it to the 7th."""
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.game import AuditGame, scenario_positions
    from vmodtool.audit.judge import StepJudge
    from vmodtool.replay import Replay
    from vmodtool.scenario import load_scenario
    scenario = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    positions, properties, _hands = scenario_positions(scenario)
    seen = []
    engine = Engine(scenario, rules=[])
    game = AuditGame(scenario, Replay.open([EXAMPLES / "combat-commander" / "logs" / "game-1.vlog"],
                                           positions=positions, properties=properties))
    game.prepare()
    end_step = StepJudge.end_step

    def watch(self, step):
        end_step(self, step)
        seen.append((game.state.track_position("fr_casualties", "surrender"),
                     game.state.track_position("it_casualties", "surrender")))
    monkeypatch.setattr(StepJudge, "end_step", watch)
    game.run(engine)
    assert seen[0] == (6, None) and seen[1] == (6, 7)
    assert seen[-1] == (7, 7)
    assert set(seen) == {(6, None), (6, 7), (7, 7)}
