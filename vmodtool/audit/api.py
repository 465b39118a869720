"""The public interface of the rules checker: events, violations, the view
of the game a rule sees, and the one :class:`Rule` base class that the
built-in kinds and a user's rules (``--plugins DIR``, an installed rule
package) both subclass.

Modelled on python-chess: typed, small, deterministic.  A rule gets each
:class:`RuleEvent` it subscribes to *after* the event has been applied, with
the :class:`GameView` of that moment, and returns :class:`Violation`
objects (made with its context's one ``violation(event, state, message,
…)``); it never raises for a legal-but-odd game.  Rules keep their memory in
plain attributes: the engine copies rule instances at step boundaries, so
an undo in the log rolls them back together with the game.  The helpers the
built-in kinds share are public too: :mod:`vmodtool.audit.rulekit`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, TypeVar

from vmodtool.findings import SEVERITIES, Finding

if TYPE_CHECKING:
    from vmodtool.scenario.model import HexMap, Scenario

__all__ = ["RuleEvent", "Event", "Violation", "Annotation", "UnitView", "MarkerView", "UnitPlace", "MarkerPlace",
           "GameView", "MomentView", "RuleContext", "Rule", "BaseRule", "SEVERITIES", "EVENT_KINDS",
           "SNAPSHOT_POINTS", "Severity"]

Severity = str

#: what can happen; ``move`` is map → map, ``enter`` box/palette → map,
#: ``leave`` map → box, ``transfer`` box → box, ``remove`` gone from the game,
#: ``add`` new on the map; ``flip`` a face change; ``layer`` a status layer on/off;
#: ``reorder`` a stack's order changed in place; the card kinds (``card`` is the
#: scenario card id, ``deck`` the scenario deck id, ``to_box`` ``hand:<side>``
#: for a hand): ``card_draw`` a card left a deck, ``card_play`` a card left a
#: hand face up, ``card_discard`` a card went from a hand into a deck unplayed,
#: ``card_event`` a card's scenario event fired (drawn or played, by its
#: ``trigger``; ``text`` the event's name, ``annotation`` an ``event``
#: annotation with ``name``/``side`` as a chat ``#event`` line gives),
#: ``deck_shuffle`` a deck shuffled or reshuffled, ``deck_order`` a deck
#: reordered or searched by hand
EVENT_KINDS = frozenset({
    "move", "enter", "leave", "transfer", "add", "remove", "flip", "layer", "reorder",
    "card_draw", "card_play", "card_discard", "card_event", "deck_shuffle", "deck_order",
    "marker_add", "marker_remove", "marker_move",
    "chat", "dice", "annotation",
    "step_start", "step_end", "activation_start", "activation_end", "phase_start", "phase_end",
    "turn_start", "turn_end", "setup_end", "game_end",
})


#: the ``changes`` of an event that changes nothing (shared, read-only)
_NO_CHANGES: Mapping[str, tuple[Any, Any]] = MappingProxyType({})


@dataclass(frozen=True)
class Annotation:
    """A ``#kind args`` line a player typed in the chat (``docs/seed-rules.md``
    §4.6): ``#attack 0302,0403 > 0503`` → kind ``attack``, ``args``
    ``{"from": ("0302", "0403"), "to": ("0503",), "text": "…"}``."""

    kind: str
    args: Mapping[str, Any]
    step: int
    player: str | None = None


#: the moments a rule may read a copy of the game at (``GameView.snapshot``)
SNAPSHOT_POINTS = frozenset({"turn_start", "phase_start", "activation_start"})


class RuleEvent(NamedTuple):
    """One thing that happened in a step (scenario ids, never VASSAL ids),
    as a rule is sent it (the replay's own events are
    :mod:`vmodtool.replay.events`).  Immutable; a named tuple because an
    audit makes several per step (a frozen dataclass costs four times as
    much to create).  Also importable as ``Event`` (its older name)."""

    kind: str
    step: int
    sub: int = 0                         # order within the step
    unit: str | None = None           # scenario unit id (or marker piece key)
    from_hex: str | None = None
    to_hex: str | None = None
    from_box: str | None = None
    to_box: str | None = None
    changes: Mapping[str, tuple[Any, Any]] = _NO_CHANGES
    player: str | None = None         # display name
    side: str | None = None           # the player's side id
    text: str | None = None
    dice: tuple[int, ...] = ()
    annotation: Annotation | None = None
    phase: str | None = None
    turn: int | None = None
    undone: bool = False
    marker: str | None = None         # marker kind for marker_* and layer events
    card: str | None = None           # scenario card id (card_* events)
    deck: str | None = None           # scenario deck id (card_* and deck_* events)


#: the older name of :class:`RuleEvent` (kept: plug-ins import it)
Event = RuleEvent


@dataclass(frozen=True)
class Violation(Finding):
    """A rule broken: which rule (id and rulebook refs), where in the game
    (step, turn, phase, phasing side, activation), who (player, side), which
    units and hexes, a sentence, and the evidence.  The audit's
    :class:`~vmodtool.findings.Finding`: its ``code`` is the rule id, its
    ``details`` the evidence, its ``place`` the first hex; its JSON
    (:meth:`as_dict`, the same as :meth:`record`) keeps the audit report's
    keys (``docs/audit-report.md``)."""

    rule_id: str
    severity: Severity
    step: int
    message: str
    ref: tuple[str, ...] = ()
    units: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    player: str | None = None
    side: str | None = None
    turn: int | None = None
    phase: str | None = None
    phasing_side: str | None = None
    activation: str | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)
    confidence: str = "certain"          # certain | inferred-phase | annotation-based
    withdrawn_by_undo: bool = False
    #: the log file (its name) holding ``step`` and the step within that log
    #: (``step`` counts over the whole chain); set by the audit once the
    #: game is judged (None: a violation not placed in a log)
    log: str | None = None
    log_step: int | None = None

    #: the JSON keys, each the field of its name, in the fields' order
    RECORD: ClassVar[tuple[tuple[str, str], ...]] = tuple(
        (name, name) for name in ("rule_id", "severity", "step", "message", "ref", "units", "labels", "hexes",
                                  "player", "side", "turn", "phase", "phasing_side", "activation", "evidence",
                                  "confidence", "withdrawn_by_undo", "log", "log_step"))

    @property
    def code(self) -> str:
        return self.rule_id

    @property
    def details(self) -> Mapping[str, Any]:
        return self.evidence

    @property
    def place(self) -> str | None:
        return self.hexes[0] if self.hexes else None

    def as_dict(self) -> dict[str, Any]:
        """The violation's JSON (the audit report's keys)."""
        return self.record()


class UnitView(Protocol):
    """A unit as a rule sees it (read-only: the audit's own views are named
    tuples, :class:`vmodtool.audit.state.Unit`)."""

    @property
    def uid(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def tags(self) -> frozenset[str]: ...
    @property
    def side(self) -> str: ...
    @property
    def formation(self) -> str | None: ...
    @property
    def hex(self) -> str | None: ...
    @property
    def box(self) -> str | None: ...
    @property
    def face(self) -> str: ...
    @property
    def state(self) -> Mapping[str, Any]: ...
    @property
    def factors(self) -> Mapping[str, Any]: ...
    @property
    def markers(self) -> frozenset[str]: ...
    @property
    def on_map(self) -> bool: ...
    @property
    def serves(self) -> frozenset[str]: ...          # the unit types it serves (an HQ's ``serves``)
    @property
    def steps(self) -> int: ...                      # its type's steps at full strength
    @property
    def movement_class(self) -> str | None: ...
    @property
    def entered(self) -> tuple[int | None, int] | None: ...  # (turn, activation count) it last came onto the map
    def describe(self) -> str: ...                   # "name (uid)"


class MarkerView(Protocol):
    """A marker counter as a rule sees it (read-only)."""

    @property
    def key(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def hex(self) -> str | None: ...
    @property
    def box(self) -> str | None: ...
    @property
    def space(self) -> int | None: ...              # on a track: its space, 1 = the track's first
    @property
    def on_map(self) -> bool: ...


class UnitPlace(Protocol):
    """Where a unit is, without its view (cheap to read for every unit of
    the game at every event: :meth:`GameView.unit_places`)."""

    @property
    def hex(self) -> str | None: ...
    @property
    def box(self) -> str | None: ...
    @property
    def present(self) -> bool: ...                   # False: removed from the game
    @property
    def layers(self) -> frozenset[str]: ...          # the status layers it shows (marker kinds)


class MarkerPlace(Protocol):
    """Where a marker counter is, without its view
    (:meth:`GameView.marker_places`)."""

    @property
    def key(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def hex(self) -> str | None: ...
    @property
    def box(self) -> str | None: ...
    @property
    def space(self) -> int | None: ...


class MomentView(Protocol):
    """What a violation is dated with: the clock of a moment (and the units,
    to name them).  A :class:`GameView` is one; a kind may date a violation
    found later to the moment of the act."""

    @property
    def turn(self) -> int | None: ...
    @property
    def phase(self) -> str | None: ...
    @property
    def phasing_side(self) -> str | None: ...
    @property
    def active_formation(self) -> str | None: ...
    def unit(self, uid: str) -> UnitView: ...


class GameView(Protocol):
    """What a rule may look at (and only look at: a rule never changes the
    game; the views it is given are shared by every rule of one event).
    Everything the built-in kinds read is here: they are written against
    this view, as a user's rule is."""

    @property
    def scenario(self) -> Scenario: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def phase(self) -> str | None: ...
    @property
    def phasing_side(self) -> str | None: ...
    @property
    def active_formation(self) -> str | None: ...
    @property
    def step(self) -> int: ...
    @property
    def activation_count(self) -> int: ...           # activations so far in the game
    @property
    def time_inferred(self) -> bool: ...             # the clock was inferred, not read from the log
    @property
    def terrain_map(self) -> HexMap: ...             # the scenario's map with the terrain pieces laid over it

    # -- units and markers
    def unit(self, uid: str) -> UnitView: ...
    def units(self) -> Sequence[UnitView]: ...                       # in the game (on the map or in a box)
    def units_in(self, hex_id: str) -> Sequence[UnitView]: ...      # bottom -> top
    def units_in_box(self, box_id: str) -> Sequence[UnitView]: ...
    def unit_places(self) -> Mapping[str, UnitPlace]: ...          # every unit seen so far, by id
    def markers_in(self, hex_id: str) -> Sequence[MarkerView]: ...
    def markers(self) -> Sequence[MarkerView]: ...
    def marker_places(self) -> Mapping[str, MarkerPlace]: ...      # by piece key
    def stack(self, hex_id: str) -> Sequence[str]: ...              # unit ids and marker keys, bottom -> top
    def occupied_hexes(self) -> Sequence[str]: ...
    def track_position(self, track_id: str, marker_kind: str,
                       side: str | None = None) -> int | None: ...  # the marker's space, 1 = first
    # -- cards
    def hand(self, side: str) -> Sequence[str]: ...            # the card ids in a side's hand
    def deck_size(self, deck: str) -> int | None: ...          # cards in a deck (None: not known yet)
    def card_place(self, card: str) -> str | None: ...
    # -- time and change
    def snapshot(self, point: str) -> GameView | None: ...    # one of SNAPSHOT_POINTS (see Rule.snapshots)
    def change_mark(self) -> int: ...                          # a mark for changed_since: "now"
    def changed_since(self, mark: int) -> tuple[int, set[str]]: ...   # (new mark, hexes changed since)
    def moves_of_others(self, side: str | None) -> tuple[object, int]: ...
    def side_moves(self) -> Mapping[str | None, int]: ...    # side -> units placed or removed so far


class RuleContext(Protocol):
    """What a rule is made with: its scenario entry (read-only) and the one
    factory of its violations."""

    @property
    def rule_id(self) -> str: ...
    @property
    def ref(self) -> tuple[str, ...]: ...
    @property
    def severity(self) -> Severity: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def scenario(self) -> Scenario: ...
    @property
    def check_at(self) -> str: ...
    @property
    def check_in(self) -> tuple[str, ...]: ...
    @property
    def applies_to(self) -> str: ...

    def violation(self, event: RuleEvent, state: MomentView, message: str, *,
                  severity: Severity | None = None, units: Sequence[str] = (),
                  hexes: Sequence[str | None] = (), confidence: str | None = None,
                  **evidence: Any) -> Violation: ...
    # (``hexes`` may hold None, the hex of a unit off the map: it is left out)


_RuleT = TypeVar("_RuleT", bound="Rule")


class Rule:
    """The base class of every rule: the built-in kinds
    (:mod:`vmodtool.audit.kinds`), a ``--plugins DIR`` plug-in and a rule of
    an installed package (entry-point group ``vmodtool.rules``).  The engine
    treats them all alike: it sends ``check`` the events of
    :attr:`subscribes`, keeps the :attr:`snapshots` asked for, and skips
    what :attr:`quiet_step_end` and :attr:`subject_events` say would do
    nothing."""

    #: the scenario name of a registered kind (set by the registry)
    kind: ClassVar[str]
    #: the event kinds sent to :meth:`check`
    subscribes: frozenset[str] = frozenset()
    #: the snapshot points (``turn_start``, ``phase_start``, ``activation_start``)
    #: the rule reads with ``state.snapshot``: the engine copies the game only
    #: there
    snapshots: frozenset[str] = frozenset()
    #: the phases in which the rule reads the ``phase_start`` snapshot (empty:
    #: any); in the others no copy is made for it
    snapshot_phases: frozenset[str] = frozenset()
    #: a rule whose ``step_end`` does nothing unless it was sent another event
    #: since the last ``step_end``: the engine sends it only then (most steps
    #: move nothing most rules look at)
    quiet_step_end: ClassVar[bool] = False
    #: the unit events (``event.unit`` a unit id) that the rule ignores, with
    #: no effect, when the unit does not match its ``subject`` selector; for a
    #: selector of what never changes (tags, type, side, formation) the engine
    #: then sends them only for its subjects
    subject_events: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.params: Mapping[str, Any] = ctx.params

    def __class_getitem__(cls, item: Any) -> type[Rule]:
        """``BaseRule[GameView]`` of the older API: the class itself (a rule
        reads a :class:`GameView`, whatever its subscript said)."""
        return cls

    @property
    def subject(self) -> Any:
        """The ``subject`` selector of the units the rule judges (None: it
        judges no particular units).  A rule with one whose selector matched
        no unit of the game is reported as not checked."""
        return self.params.get("subject")

    #: attributes that never change during an audit (shared by the copies
    #: the engine takes before a step a later undo takes back)
    _shared: tuple[str, ...] = ("ctx", "params")
    #: attributes copied one level deep (their values are immutable)
    _shallow: tuple[str, ...] = ()

    def _copy_memory(self, value: Any, memo: dict[int, Any]) -> Any:
        """How a remembered value is copied (a subclass whose memory is plain
        containers of immutable values may copy it more cheaply)."""
        return copy.deepcopy(value, memo)

    def __deepcopy__(self: _RuleT, memo: dict[int, Any]) -> _RuleT:
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

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:  # pragma: no cover
        return ()


#: the older name of :class:`Rule` (kept: plug-ins subclass it)
BaseRule = Rule
