"""The public interface of the rules checker: events, violations, the view
of the game a rule sees, and the protocol a rule (built-in kind or a
user's plug-in) implements.

Modelled on python-chess: typed, small, deterministic.  A rule gets each
:class:`Event` it subscribes to *after* the event has been applied, with the
:class:`GameView` of that moment, and returns :class:`Violation` objects; it
never raises for a legal-but-odd game.  Rules keep their memory in plain
attributes: the engine copies rule instances at step boundaries, so an undo
in the log rolls them back together with the game.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import (Any, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Protocol,
                    Sequence, Tuple)

__all__ = ["Event", "Violation", "Annotation", "UnitView", "MarkerView", "GameView",
           "RuleContext", "Rule", "BaseRule", "SEVERITIES", "EVENT_KINDS", "Severity"]

Severity = str
SEVERITIES = ("error", "warning", "info")

#: what can happen; ``move`` is map → map, ``enter`` box/palette → map,
#: ``leave`` map → box, ``transfer`` box → box, ``remove`` gone from the game,
#: ``add`` new on the map; ``flip`` a face change; ``layer`` a status layer on/off;
#: ``reorder`` a stack's order changed in place
EVENT_KINDS = frozenset({
    "move", "enter", "leave", "transfer", "add", "remove", "flip", "layer", "reorder",
    "marker_add", "marker_remove", "marker_move",
    "chat", "dice", "annotation",
    "step_start", "step_end", "activation_start", "activation_end", "phase_start", "phase_end",
    "turn_start", "turn_end", "setup_end", "game_end",
})


#: the ``changes`` of an event that changes nothing (shared, read-only)
_NO_CHANGES: Mapping[str, Tuple[Any, Any]] = MappingProxyType({})


@dataclass(frozen=True)
class Annotation:
    """A ``#kind args`` line a player typed in the chat (§4.6 of the rules
    research): ``#attack 0302,0403 > 0503`` → kind ``attack``, ``args``
    ``{"from": ("0302", "0403"), "to": ("0503",), "text": "…"}``."""

    kind: str
    args: Mapping[str, Any]
    step: int
    player: Optional[str] = None


class Event(NamedTuple):
    """One thing that happened in a step (scenario ids, never VASSAL ids).
    Immutable; a named tuple because an audit makes several per step (a
    frozen dataclass costs four times as much to create)."""

    kind: str
    step: int
    sub: int = 0                         # order within the step
    unit: Optional[str] = None           # scenario unit id (or marker piece key)
    from_hex: Optional[str] = None
    to_hex: Optional[str] = None
    from_box: Optional[str] = None
    to_box: Optional[str] = None
    changes: Mapping[str, Tuple[Any, Any]] = _NO_CHANGES
    player: Optional[str] = None         # display name
    side: Optional[str] = None           # the player's side id
    text: Optional[str] = None
    dice: Tuple[int, ...] = ()
    annotation: Optional[Annotation] = None
    phase: Optional[str] = None
    turn: Optional[int] = None
    undone: bool = False
    marker: Optional[str] = None         # marker kind for marker_* and layer events


@dataclass(frozen=True)
class Violation:
    """A rule broken: which rule (id and rulebook refs), where in the game
    (step, turn, phase, phasing side, activation), who (player, side), which
    units and hexes, a sentence, and the evidence."""

    rule_id: str
    severity: Severity
    step: int
    message: str
    ref: Tuple[str, ...] = ()
    units: Tuple[str, ...] = ()
    labels: Tuple[str, ...] = ()
    hexes: Tuple[str, ...] = ()
    player: Optional[str] = None
    side: Optional[str] = None
    turn: Optional[int] = None
    phase: Optional[str] = None
    phasing_side: Optional[str] = None
    activation: Optional[str] = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    confidence: str = "certain"          # certain | inferred-phase | annotation-based
    withdrawn_by_undo: bool = False

    def as_dict(self) -> Dict[str, Any]:
        out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}
        out["evidence"] = dict(self.evidence)
        return out


class UnitView(Protocol):
    uid: str
    label: str
    name: str
    type: str
    tags: FrozenSet[str]
    side: str
    formation: Optional[str]
    hex: Optional[str]
    box: Optional[str]
    face: str
    state: Mapping[str, Any]
    factors: Mapping[str, Any]
    markers: FrozenSet[str]
    on_map: bool


class MarkerView(Protocol):
    key: str
    kind: str
    hex: Optional[str]
    box: Optional[str]
    space: Optional[int]                 # on a track: its space, 1 = the track's first
    on_map: bool


class GameView(Protocol):
    """What a rule may look at (and only look at: a rule never changes the
    game; the views it is given are shared by every rule of one event)."""

    turn: Optional[int]
    phase: Optional[str]
    phasing_side: Optional[str]
    active_formation: Optional[str]
    step: int
    scenario: Any

    def unit(self, uid: str) -> UnitView: ...
    def units(self) -> Sequence[UnitView]: ...
    def units_in(self, hex_id: str) -> List[UnitView]: ...          # bottom -> top
    def markers_in(self, hex_id: str) -> List[MarkerView]: ...
    def markers(self) -> Sequence[MarkerView]: ...
    def snapshot(self, point: str) -> Optional["GameView"]: ...    # "turn_start", "phase_start", "activation_start"
    def track_position(self, track_id: str, marker_kind: str,
                       side: Optional[str] = None) -> Optional[int]: ...  # the marker's space, 1 = first


class RuleContext(Protocol):
    rule_id: str
    ref: Tuple[str, ...]
    severity: Severity
    params: Mapping[str, Any]
    scenario: Any

    def violation(self, event: Event, state: GameView, message: str, *,
                  severity: Optional[Severity] = None, units: Sequence[str] = (),
                  hexes: Sequence[str] = (), **evidence: Any) -> Violation: ...


class Rule(Protocol):
    subscribes: FrozenSet[str]

    def check(self, state: GameView, event: Event) -> Iterable[Violation]: ...


class BaseRule:
    """Convenience base for built-in kinds and plug-ins: keeps the context,
    the params and the check point (``check_at`` of the scenario entry)."""

    subscribes: FrozenSet[str] = frozenset()
    #: the snapshot points (``turn_start``, ``phase_start``, ``activation_start``)
    #: a built-in kind reads with ``state.snapshot``: the engine copies the
    #: game only there (a plug-in may read every point)
    snapshots: FrozenSet[str] = frozenset()

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.params: Mapping[str, Any] = ctx.params

    #: attributes that never change during an audit (shared by the copies
    #: the engine takes before a step a later undo takes back)
    _shared: Tuple[str, ...] = ("ctx", "params")
    #: attributes copied one level deep (their values are immutable)
    _shallow: Tuple[str, ...] = ()

    def _copy_memory(self, value: Any, memo: dict) -> Any:
        """How a remembered value is copied (a subclass whose memory is plain
        containers of immutable values may copy it more cheaply)."""
        return copy.deepcopy(value, memo)

    def __deepcopy__(self, memo: dict) -> "BaseRule":
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key in self._shared:
                new.__dict__[key] = value
            elif key in self._shallow:
                new.__dict__[key] = copy.copy(value)
            else:
                new.__dict__[key] = self._copy_memory(value, memo)
        return new

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:  # pragma: no cover
        return ()
