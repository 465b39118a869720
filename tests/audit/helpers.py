"""Shared test helpers for rule kinds: a state with the scenario's setup,
events, and running one rule entry."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vmodtool.audit.api import Event, Violation
from vmodtool.audit.context import Context
from vmodtool.audit.state import AuditState
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import RuleSpec, Scenario, SetupBox, SetupStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> Scenario:
    return load_scenario(EXAMPLES / name / "scenario.yaml")


def setup_state(scenario: Scenario, *, turn: int = 1, phase: str | None = None,
                phasing_side: str | None = None) -> AuditState:
    """The scenario's at-start state."""
    state = AuditState(scenario)
    state.turn, state.phase, state.phasing_side = turn, phase, phasing_side
    for entry in scenario.setup:
        if isinstance(entry, SetupStack):
            for uid in entry.units:
                state.place_unit(uid, entry.hex, None)
                if uid in entry.faces:
                    state.units_state[uid].face = _face_index(scenario, uid, entry.faces[uid])
        elif isinstance(entry, SetupBox):
            for uid in entry.units:
                state.place_unit(uid, None, entry.box)
    for counter in scenario.counters:
        if counter.face and counter.id in state.units_state:
            state.units_state[counter.id].face = _face_index(scenario, counter.id, counter.face)
    return state


def _face_index(scenario: Scenario, uid: str, face: str) -> int:
    names = [f.name for f in scenario.unit_type_of(scenario.counter(uid)).faces]
    return names.index(face)


def rule(scenario: Scenario, rule_id: str, **overrides: Any):
    """An instance of the scenario's rule entry ``rule_id`` (params may be
    overridden)."""
    from vmodtool.audit.registry import rule_class
    spec = next(r for r in scenario.rules if r.id == rule_id)
    params = dict(spec.params)
    params.update(overrides.pop("params", {}))
    if overrides:
        spec = RuleSpec(**{**spec.__dict__, **overrides})
    return rule_class(spec.kind)(Context(spec, scenario, params))


def make_rule(scenario: Scenario, kind: str, params: dict[str, Any], *, check_at: str = "event",
              rule_id: str = "test.rule", severity: str = "error"):
    from vmodtool.audit.registry import rule_class
    spec = RuleSpec(rule_id, kind, params, ("test",), check_at, severity)
    return rule_class(kind)(Context(spec, scenario, params))


def feed(rule_obj, state: AuditState, events: Iterable[Event]) -> list[Violation]:
    out: list[Violation] = []
    for event in events:
        if event.kind in rule_obj.subscribes:
            out.extend(rule_obj.check(state, event))
    return out


def move(state: AuditState, uid: str, to_hex: str, *, step: int = 1, player: str = "p",
         side: str | None = None) -> Event:
    """Apply a map move to the state and return its event."""
    from_hex = state.units_state[uid].hex
    state.place_unit(uid, to_hex, None)
    return Event("move", step, unit=uid, from_hex=from_hex, to_hex=to_hex, player=player,
                 side=side or state.unit(uid).side, turn=state.turn, phase=state.phase)


class Run:
    """Feeds each event right after the state change that made it, as the
    engine does: ``run(eliminate(...))``; ``out`` collects the violations."""

    def __init__(self, rule_obj, state):
        self.rule, self.state, self.out = rule_obj, state, []

    def __call__(self, *events):
        self.out.extend(feed(self.rule, self.state, events))
        return self


def flip(state: AuditState, uid: str, face: str, step: int = 1) -> Event:
    """Turn a unit to ``face`` and return the flip event with the state keys
    that changed."""
    before = state.unit(uid)
    state.units_state[uid].face = _face_index(state.scenario, uid, face)
    after = state.unit(uid)
    changes = {"face": (before.face, after.face)}
    for key in set(before.state) | set(after.state):
        if before.state.get(key) != after.state.get(key):
            changes[key] = (before.state.get(key), after.state.get(key))
    return Event("flip", step, unit=uid, changes=changes, player="p", side=after.side)


def enter(state: AuditState, uid: str, hex_id: str, face: str | None = None, step: int = 1) -> Event:
    """Bring a unit from its box onto ``hex_id`` (optionally on ``face``)."""
    from_box = state.units_state[uid].box
    state.place_unit(uid, hex_id, None)
    if face is not None:
        state.units_state[uid].face = _face_index(state.scenario, uid, face)
    return Event("enter", step, unit=uid, from_box=from_box, to_hex=hex_id, player="p",
                 side=state.unit(uid).side)


def built_module(scenario: Scenario):
    """The module ``vmodtool build`` makes of a scenario, without images
    (its buildFile: maps, grids, piece slots, trackers), and its board
    sizes: (Module, {board name: (width, height)})."""
    from vmodtool.assemble.images import module_image_names
    from vmodtool.assemble.module import assemble_module
    from vmodtool.scenario.cards import hand_board_size
    from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
    from vmodtool.vassal.module import Module

    build = assemble_module(scenario, module_image_names(scenario))
    sizes = {scenario.map.name: scenario.map.size}
    if scenario.boxes or scenario.tracks or scenario.decks:
        sizes[OFF_MAP_NAME] = layout_off_map(scenario).size
    for hand in scenario.hands:                 # a PlayerHand's own board
        sizes[hand.vassal_name] = hand_board_size(scenario.decks, hand)
    module = Module(buildfile=build.buildfile, buildfile_entry="buildFile.xml",
                    container="buildfile", file=str(scenario.path or "scenario"))
    return module, sizes
