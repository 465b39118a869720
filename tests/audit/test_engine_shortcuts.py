"""The engine's shortcuts change no finding: a rule's ``step_end`` skipped
when it was sent nothing since the last (``quiet_step_end``), a unit event
not sent to a rule whose fixed ``subject`` the unit does not match
(``subject_events``), no ``phase_start`` copy in a phase no rule reads it
in (``snapshot_phases``), no ``step_end`` built when every rule it goes to
is idle (``Engine.skips``: a settle-point rule that saw no hex change, a
drag judge with nothing pending).
Every example log (the clean games and every seeded illegal one) is audited
with them and without them, and the reports must be equal, violation by
violation."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmodtool.audit.api import BaseRule, Event
from vmodtool.audit.engine import Engine
from vmodtool.audit.game import audit_logs
from vmodtool.audit.kinds.status import SettleRule, TransitionWindow
from vmodtool.audit.selectors import is_fixed
from vmodtool.audit.state import AuditState
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")


def _rule_classes() -> list[type]:
    out = []
    todo = [BaseRule]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out


def _report(log: Path, scenario) -> list[dict]:
    report = audit_logs([log], scenario)
    return [v.as_dict() for v in report.violations] + [{"not_checked": report.not_checked,
                                                        "steps": report.steps}]


@pytest.mark.parametrize("system", SYSTEMS)
def test_shortcuts_change_no_finding(system, monkeypatch):
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    logs = sorted((EXAMPLES / system / "logs").glob("*.vlog"))
    assert len(logs) > 5
    fast = {log.name: _report(log, scenario) for log in logs}
    used = [cls for cls in _rule_classes() if vars(cls).get("quiet_step_end") or vars(cls).get("subject_events")]
    assert {c.kind for c in used if hasattr(c, "kind")} >= {"movement_allowance", "state_never",
                                                            "status_forbids", "escorted_move"}
    for cls in _rule_classes():
        if "quiet_step_end" in vars(cls):
            monkeypatch.setattr(cls, "quiet_step_end", False)
        if "subject_events" in vars(cls):
            monkeypatch.setattr(cls, "subject_events", frozenset())
    # no step_end left out when every rule it goes to is idle
    monkeypatch.setattr(Engine, "skips", lambda self, state, kind: False)
    original_init = TransitionWindow.__init__

    def every_phase(self, ctx):
        original_init(self, ctx)
        self.snapshot_phases = frozenset()
    monkeypatch.setattr(TransitionWindow, "__init__", every_phase)
    found = 0
    for log in logs:
        slow = _report(log, scenario)
        assert slow == fast[log.name], log.name
        found += len(slow) - 1
    assert found > 0                    # (the illegal logs find something)


def test_fixed_selectors():
    assert is_fixed(None) and is_fixed({}) and is_fixed({"tags": ["hq"]})
    assert is_fixed({"not": {"tags_any": ["hq", "helicopter"]}, "side": "syr", "type": ["t72"]})
    assert is_fixed([{"tags": ["hq"]}, {"formation": ["bn_78"]}])
    for moving in ({"side": "friendly"}, {"markers": ["disrupted"]}, {"face": "reduced"}, {"on_map": True},
                   {"not": {"state": {"step": "reduced"}}}, {"same": ["side"]}, {"served_by": "subject"},
                   [{"tags": ["hq"]}, {"in": ["dead"]}], {"first_activation_on_map": True}):
        assert not is_fixed(moving), moving


def test_a_quiet_rule_gets_step_end_only_after_an_event():
    scenario = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    engine = Engine(scenario, only=["status.ops_complete", "move.helicopter"])
    seen: list[tuple[str, str]] = []
    for i, (spec, rule) in enumerate(engine.rules):
        def check(state, event, _id=spec.id, _check=rule.check):
            seen.append((_id, event.kind))
            return _check(state, event)
        rule.check = check
        engine.rules[i] = (spec, rule)
    state = AuditState(scenario)
    tank = next(c.id for c in scenario.counters if "helicopter" not in scenario.unit_type_of(c).tags)
    state.place_unit(tank, "0101", None)
    engine.dispatch(state, Event("step_end", 1))
    assert seen == []                                       # nothing sent since: no step_end
    engine.dispatch(state, Event("move", 2, unit=tank, from_hex="0101", to_hex="0102"))
    engine.dispatch(state, Event("step_end", 2))
    # the move went to status_forbids (any unit) but not to the helicopters' rule
    assert seen == [("status.ops_complete", "move"), ("status.ops_complete", "step_end")]
    engine.dispatch(state, Event("step_end", 3))
    assert len(seen) == 2


# -- reads the binding skips ---------------------------------------------------------------

def _refs(replay):
    """Every piece reference of a replayed game: its saved state and its events."""
    from vmodtool.replay.events import AddEvent, ChangeEvent, MoveEvent, RemoveEvent
    engine = replay._restore(0)
    refs = [engine.ref(p) for p in engine.state.game_pieces()]
    for step in replay.steps():
        for ev in step.events:
            if type(ev) in (MoveEvent, AddEvent, RemoveEvent):
                refs.append(ev.piece)
            elif type(ev) is ChangeEvent:
                refs += [ev.before, ev.after]
    return refs


def _replays():
    from tests.conftest import shared_path
    from vmodtool.audit.game import scenario_positions
    from vmodtool.replay import Replay
    from vmodtool.vassal.module import Module
    for system in SYSTEMS:
        scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
        positions, properties, hands = scenario_positions(scenario)
        for log in sorted((EXAMPLES / system / "logs").glob("*.vlog"))[:4]:
            yield log.name, Replay.open([log], positions=positions, properties=properties, hands=hands)
    try:
        build = shared_path("corpus", "ragnarok", "buildFile.xml")
    except BaseException:                   # noqa: BLE001 - no shared corpus here (the test skips it)
        return
    module = Module.open(build)
    yield "ragnarok", Replay.open([build.parent / "ragnarok-start.vsav"], module=module)


def test_a_property_a_piece_has_is_never_skipped():
    """:func:`may_define` says "cannot have it" only of properties the piece
    does not have: every property of every piece of the example games (and
    of a module vmodtool did not build) is named in its type or states."""
    from vmodtool.audit.binding import PieceBinder, may_define
    checked = skipped = 0
    for name, replay in _replays():
        for ref in _refs(replay):
            full = ref.properties()
            for key in list(full) + ["CardId", "UnitId", "MarkerKind", "Formation", "NoSuchKey"]:
                if may_define(ref, key):
                    continue
                skipped += 1
                assert ref.get_property(key) is None and key not in full, (name, ref.id, key)
            checked += 1
    assert checked > 1000 and skipped > 1000
    # and a layer the type never names is no layer of the piece
    scenario = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    binder = PieceBinder(scenario)
    for _name, replay in _replays():
        for ref in _refs(replay)[:200]:
            for layer in ["Face", "Flip", "broken", "suppressed", "veteran", "NoSuchLayer"]:
                fast = binder._layer(ref, layer)
                binder._layer_cache.clear()
                try:
                    views = ref.definition().find("emb2;") + ref.definition().find("emb;")
                except Exception:           # noqa: BLE001 - (an undecodable piece has no layer)
                    views = []
                named = [v for v in views if getattr(v, "layer_name", None) == layer]
                unnamed = [v for v in views if not getattr(v, "layer_name", "")
                           and getattr(v, "activate_command", None) == layer]
                assert (fast is None) == (not named and not unnamed), (ref.id, layer)


def test_an_idle_rule_would_do_nothing():
    """Every time a rule says it is idle, a ``step_end`` then finds nothing
    (its own copy is asked); a settle-point rule's memory stays as it was."""
    import copy

    from vmodtool.audit.game import AuditGame, scenario_positions
    from vmodtool.replay import Replay
    asked = idle = 0
    kinds = [cls for cls in _rule_classes() if "idle" in vars(cls)]
    assert {getattr(c, "kind", c.__name__) for c in kinds} >= {"SettleRule", "movement_allowance",
                                                              "escorted_move", "status_forbids"}
    originals = {cls: vars(cls)["idle"] for cls in kinds}

    def checked(original):
        def checked_idle(self, state):
            nonlocal asked, idle
            answer = original(self, state)
            asked += 1
            if answer:
                idle += 1
                twin = copy.deepcopy(self)
                assert not list(twin.check(state, Event("step_end", state.step))), type(self).__name__
                if isinstance(self, SettleRule):
                    assert {k: v for k, v in twin.__dict__.items() if k != "_mark"} == \
                        {k: v for k, v in self.__dict__.items() if k != "_mark"}
                    assert twin.__dict__.get("_mark", 0) == self.__dict__.get("_mark", 0)
            return answer
        return checked_idle
    for cls, original in originals.items():
        cls.idle = checked(original)
    try:
        for system in SYSTEMS:
            scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
            positions, properties, hands = scenario_positions(scenario)
            for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
                game = AuditGame(scenario, Replay.open([log], positions=positions, properties=properties,
                                                       hands=hands))
                game.prepare()
                game.run(Engine(scenario))
    finally:
        for cls, original in originals.items():
            cls.idle = original
    assert idle > 50 and asked > idle
