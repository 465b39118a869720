"""Selectors: the small maps rules use to pick units (``scenario-format``
"Rules"); all keys of one selector must hold, a list of selectors means any.

Relative keys compare with a ``subject`` unit: ``side: friendly`` /
``enemy``, ``same: [side, formation]``, ``served_by: subject`` (the unit
carries one of the tags the subject HQ serves)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from vmodtool.audit.api import GameView, UnitView

__all__ = ["matches", "predicate", "select", "as_list", "reads", "reads_markers", "is_fixed", "Subject", "Predicate"]


class Subject(Protocol):
    """What relative keys compare a unit with: a unit, or a stand-in for
    the player placing a marker (``kinds.status.Placer``)."""

    @property
    def side(self) -> str | None: ...
    @property
    def serves(self) -> frozenset[str]: ...


#: a compiled selector: (unit, state, subject) -> whether the unit matches
Predicate = Callable[[UnitView, "GameView | None", "Subject | None"], bool]


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]


def matches(selector: Any, unit: UnitView, state: GameView | None = None,
            subject: Subject | None = None) -> bool:
    """Whether ``unit`` matches ``selector`` (a mapping or a list of them)."""
    if selector is None:
        return True
    return _compiled(selector)[1](unit, state, subject)


def predicate(selector: Any) -> Predicate:
    """The compiled test of a selector (what :func:`matches` runs), for a
    caller that asks the same selector of many units: ``predicate(s)(unit,
    state, subject) == matches(s, unit, state, subject)``."""
    if selector is None:
        return _always
    return _compiled(selector)[1]


def reads_markers(selector: Any) -> bool:
    """Whether a selector looks at the markers a unit carries (which cost a
    look at its hex to know)."""
    return selector is not None and _compiled(selector)[2]


#: selector object id -> (the selector, its predicate, whether it reads
#: markers); the selector is kept so that its id cannot be reused while the
#: entry exists
_COMPILED: dict[int, tuple[Any, Predicate, bool]] = {}
_COMPILED_MAX = 4096


def _compiled(selector: Any) -> tuple[Any, Predicate, bool]:
    entry = _COMPILED.get(id(selector))
    if entry is None or entry[0] is not selector:
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        entry = _COMPILED[id(selector)] = (selector, _compile(selector), reads(selector, "markers"))
    return entry


def _gone() -> None:
    """A dead reference (no scenario seen yet)."""
    return None


#: the keys of a selector that read only what a unit of a game never changes
#: (its counter and unit type); ``side`` only with a side id
_FIXED_KEYS = frozenset({"tags", "tags_all", "tags_any", "type", "formation", "marker_kind", "select",
                         "max", "min"})


def is_fixed(selector: Any) -> bool:
    """Whether a selector's answer for a unit never changes during a game
    (it reads only the unit's tags, type, formation, absolute side): no
    place, face, markers, state, time or relative key."""
    if selector is None:
        return True
    if isinstance(selector, (list, tuple)):
        return all(is_fixed(s) for s in selector)
    if not isinstance(selector, Mapping):
        return True                     # (never matches: _never)
    for key, value in selector.items():
        if key in _FIXED_KEYS:
            continue
        if key == "side" and value not in ("friendly", "same", "enemy", "other"):
            continue
        if key == "not" and is_fixed(value):
            continue
        return False
    return True


def reads(selector: Any, key: str) -> bool:
    """Whether a selector (at any depth: lists, ``not``) has ``key`` — e.g.
    whether it looks at the markers a unit carries, which cost a look at
    its hex to know."""
    if isinstance(selector, (list, tuple)):
        return any(reads(s, key) for s in selector)
    if isinstance(selector, Mapping):
        return key in selector or reads(selector.get("not"), key)
    return False


def _always(unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    return True


def _never(unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    return False


def _compile(selector: Any) -> Predicate:
    """A selector as one function of (unit, state, subject): the rules ask
    the same few selectors for every event, so their keys are read once."""
    if selector is None or selector == {}:
        return _always
    if isinstance(selector, (list, tuple)):
        options = [_compile(s) for s in selector]
        return lambda u, st, sub: any(p(u, st, sub) for p in options)
    if not isinstance(selector, Mapping):
        return _never
    tests = [_compile_key(key, value) for key, value in selector.items()]
    tests = [t for t in tests if t is not _always]
    if not tests:
        return _always
    if len(tests) == 1:
        return tests[0]

    def all_hold(u: UnitView, st: GameView | None, sub: Subject | None) -> bool:
        for t in tests:
            if not t(u, st, sub):
                return False
        return True
    return all_hold


def _compile_key(key: str, value: Any) -> Predicate:
    """One key of a selector (the same meaning as :func:`_key_matches`,
    which stays the reference for the keys not compiled here)."""
    if key in ("tags", "tags_all"):
        need = frozenset(as_list(value))
        return lambda u, st, sub: need <= u.tags
    if key == "tags_any":
        need = frozenset(as_list(value))
        return lambda u, st, sub: bool(need & u.tags)
    if key in ("type", "formation", "face", "in") or (
            key == "side" and value not in ("friendly", "same", "enemy", "other")):
        options = tuple(as_list(value))
        attr = {"in": "box"}.get(key, key)
        return lambda u, st, sub: getattr(u, attr) in options
    if key == "side":
        if value in ("friendly", "same"):
            return lambda u, st, sub: sub is not None and u.side == sub.side
        return lambda u, st, sub: sub is not None and u.side != sub.side
    if key == "served_by":
        return lambda u, st, sub: sub is not None and bool(sub.serves & u.tags)
    if key == "same":
        attrs = tuple(as_list(value))

        def same(u: UnitView, st: GameView | None, sub: Subject | None) -> bool:
            if sub is None:
                return False
            for attr in attrs:
                if getattr(u, attr, None) != getattr(sub, attr, None):
                    return False
            return True
        return same
    if key == "state":
        wanted = [(skey, [str(v) if not isinstance(v, str) else v for v in as_list(expected)], as_list(expected))
                  for skey, expected in (value or {}).items()]

        def in_state(u: UnitView, st: GameView | None, sub: Subject | None) -> bool:
            values = u.state
            for skey, as_text, given in wanted:
                got = values.get(skey)
                if got not in as_text and got not in given:
                    return False
            return True
        return in_state
    if key == "markers":
        need = frozenset(as_list(value))
        return lambda u, st, sub: bool(need & u.markers)
    if key == "on_map":
        want = bool(value)
        return lambda u, st, sub: u.on_map == want
    if key == "not":
        inner = _compile(value)
        return lambda u, st, sub: not inner(u, st, sub)
    if key in ("formation_command", "in_box_role"):
        # read from the scenario's formations / boxes, indexed once per scenario;
        # the scenario is only referred to weakly: the predicate outlives it in
        # _COMPILED, and a long-lived process (batch, a library user) audits
        # game after game, each with a scenario of its own
        seen: Callable[[], object] = _gone  # the scenario ``index`` is of
        index: dict[str, str] = {}          # formation -> command, or box -> role

        def by_scenario(u: UnitView, st: GameView | None, sub: Subject | None) -> bool:
            nonlocal seen, index
            if st is None:
                return _key_matches(key, value, u, st, sub)
            scenario = st.scenario
            if seen() is not scenario:
                seen = weakref.ref(scenario)
                index = ({f.id: f.command for f in scenario.formations}
                         if key == "formation_command" else
                         {b.id: b.role for b in scenario.boxes})
            if key == "formation_command":
                if u.formation is None:
                    return wants_none
                return u.formation in index and index[u.formation] == value
            return u.box is not None and index.get(u.box) in roles
        roles = as_list(value)
        wants_none: bool = value == "none"      # a unit of no formation: command "none"
        return by_scenario
    if key in ("marker_kind", "select", "max", "min"):
        return _always
    return lambda u, st, sub: _key_matches(key, value, u, st, sub)


def _same(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    if subject is None:
        return False
    return all(getattr(unit, attr, None) == getattr(subject, attr, None) for attr in as_list(value))


def _side(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    if value in ("friendly", "same"):
        return subject is not None and unit.side == subject.side
    if value in ("enemy", "other"):
        return subject is not None and unit.side != subject.side
    return unit.side in as_list(value)


def _state(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    for skey, expected in (value or {}).items():
        if unit.state.get(skey) not in [str(v) if not isinstance(v, str) else v
                                        for v in as_list(expected)] and \
                unit.state.get(skey) not in as_list(expected):
            return False
    return True


def _in_box_role(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    if state is None or unit.box is None:
        return False
    roles = {b.id: b.role for b in state.scenario.boxes}
    return roles.get(unit.box) in as_list(value)


def _formation_command(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    if unit.formation is None or state is None:
        wants_none: bool = value == "none"
        return wants_none
    formations = {f.id: f for f in state.scenario.formations}
    f = formations.get(unit.formation)
    return f is not None and f.command == value


def _first_activation_on_map(value: Any, unit: UnitView, state: GameView | None, subject: Subject | None) -> bool:
    if state is None or unit.entered is None:
        return not value
    now = (state.turn, state.activation_count)
    return (unit.entered == now) == bool(value)


#: a selector key's test: (its value, the unit, the state, the subject) -> whether the unit matches
KeyTest = Callable[[Any, UnitView, "GameView | None", "Subject | None"], bool]

#: the test of each selector key; a key not here matches every unit
#: (``marker_kind``, ``select``, ``max``, ``min`` are not unit properties,
#: and unknown keys were reported by the scenario checker)
_KEY_TESTS: dict[str, KeyTest] = {
    "tags": lambda v, u, st, sub: set(as_list(v)) <= u.tags,
    "tags_all": lambda v, u, st, sub: set(as_list(v)) <= u.tags,
    "tags_any": lambda v, u, st, sub: bool(set(as_list(v)) & u.tags),
    "type": lambda v, u, st, sub: u.type in as_list(v),
    "side": _side,
    "same": _same,
    "served_by": lambda v, u, st, sub: sub is not None and bool(sub.serves & u.tags),
    "formation": lambda v, u, st, sub: u.formation in as_list(v),
    "state": _state,
    "face": lambda v, u, st, sub: u.face in as_list(v),
    "markers": lambda v, u, st, sub: bool(set(as_list(v)) & u.markers),
    "in": lambda v, u, st, sub: u.box in as_list(v),
    "in_box_role": _in_box_role,
    "on_map": lambda v, u, st, sub: u.on_map == bool(v),
    "not": lambda v, u, st, sub: not matches(v, u, st, sub),
    "formation_command": _formation_command,
    "first_activation_on_map": _first_activation_on_map,
}


def _key_matches(key: str, value: Any, unit: UnitView, state: GameView | None,
                 subject: Subject | None) -> bool:
    test = _KEY_TESTS.get(key)
    return True if test is None else test(value, unit, state, subject)


def select(units: Iterable[UnitView], selector: Any, state: GameView | None = None,
           subject: Subject | None = None) -> list[UnitView]:
    return [u for u in units if matches(selector, u, state, subject)]
