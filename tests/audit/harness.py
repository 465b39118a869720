"""A small driver that feeds rules the engine's events step by step (the
state updated first, then the events, then ``step_end``), for rule-kind
tests on synthetic games."""

from __future__ import annotations

from tests.audit.helpers import feed, move, setup_state
from vmodtool.audit.api import Annotation, Event, Violation
from vmodtool.audit.timeline import parse_annotation


class Game:
    def __init__(self, scenario, *rules, phase: str | None = None, turn: int = 1) -> None:
        self.state = setup_state(scenario, turn=turn, phase=phase)
        self.rules = list(rules)
        self.n = 0
        self.violations: list[Violation] = []
        self.markers = 0

    def place(self, uid: str, hex_id: str | None, box: str | None = None) -> None:
        """Set-up placement (no event)."""
        self.state.place_unit(uid, hex_id, box)

    def _feed(self, events) -> None:
        for r in self.rules:
            self.violations.extend(feed(r, self.state, events))

    def _events(self, action, step: int) -> list:
        if isinstance(action, Event):
            return [action]
        kind = action[0]
        st = self.state
        if kind == "move":
            return [move(st, action[1], action[2], step=step)]
        if kind == "leave":
            uid, box = action[1], action[2]
            old = st.units_state[uid].hex
            st.place_unit(uid, None, box)
            return [Event("leave", step, unit=uid, from_hex=old, to_box=box)]
        if kind == "enter":
            uid, hex_id = action[1], action[2]
            box = st.units_state[uid].box
            st.place_unit(uid, hex_id, None)
            return [Event("enter", step, unit=uid, from_box=box, to_hex=hex_id)]
        if kind == "dice":
            return [Event("dice", step, dice=tuple(action[1:]), text="2d6")]
        if kind == "chat":
            ann = parse_annotation(action[1], step, "p")
            return [Event("annotation", step, annotation=ann, text=action[1])]
        if kind == "marker":
            self.markers += 1
            key = f"m{self.markers}"
            st.place_marker(key, action[1], action[2], None)
            return [Event("marker_add", step, unit=key, marker=action[1], to_hex=action[2])]
        if kind == "flip":
            uid, face = action[1], action[2]
            utype = st.scenario.unit_type_of(st.scenario.counter(uid))
            names = [f.name for f in utype.faces]
            old = names[st.units_state[uid].face]
            st.units_state[uid].face = names.index(face)
            return [Event("flip", step, unit=uid, changes={"face": (old, face)})]
        # any other ("kind", from, to): an annotation #kind from > to
        _, a, b = action
        args = {"from": (a,) if a else (), "to": (b,) if b else (), "text": f"{a or ''} > {b or ''}"}
        return [Event("annotation", step, annotation=Annotation(kind, args, step))]

    def step(self, *actions) -> int:
        """One step: ("move", uid, hex), ("leave", uid, box), ("enter", uid, hex),
        ("dice", d1, d2), ("chat", "#check 1206 pass"), ("marker", kind, hex),
        ("flip", uid, face), ("retreat", from, to) annotations, or Events."""
        self.n += 1
        step = self.n
        self._feed([Event("step_start", step)])
        for action in actions:
            self._feed(self._events(action, step))
        self._feed([Event("step_end", step)])
        return step

    def clock(self, kind: str, **kw) -> int:
        """A step holding a clock event (phase/activation/turn change)."""
        self.n += 1
        step = self.n
        if kind == "activation_start":
            self.state.active_formation = kw["text"]
            self.state.activation_count += 1
        elif kind == "phase_start":
            self.state.phase = kw["phase"]
        elif kind == "turn_start":
            self.state.turn = kw["turn"]
        self._feed([Event("step_start", step), Event(kind, step, **kw), Event("step_end", step)])
        if kind == "activation_end":
            self.state.active_formation = None
        return step

    def activation(self, formation: str) -> int:
        return self.clock("activation_start", text=formation)

    def end_activation(self) -> int:
        return self.clock("activation_end", text=self.state.active_formation)

    def found(self):
        return [(v.rule_id, v.step, v.units, v.hexes) for v in self.violations]
