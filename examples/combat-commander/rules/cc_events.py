"""Event-window checks for the Pont-Saint-Louis example scenario.

Combat Commander events fire from Fate cards. When the scenario has the
cards (its ``decks``), the audit sends a ``card_event`` when a card whose
entry names the event is drawn or played (docs/seed-rules.md §4.10); without
them a VASSAL log does not explain the event, so these rules also start when
a player annotates it in chat: ``#event Deploy`` (or ``#event Élan``,
optionally followed by a side id, e.g. ``#event Élan fr``). Both carry the same
``event`` annotation, so one window logic serves both; a chat line naming an
event a card already opened in the same window does not open it again. The
*window* is the step of the card or the annotation plus the next
``window_steps - 1`` logged steps; the consequences are checked when it closes.

The module is self-contained: it imports nothing from vmodtool, because the
plug-in API (docs/seed-rules.md §3.12) lands later. The engine
passes duck-typed objects:

``ctx``    ``rule_id``, ``params``, ``scenario`` and
           ``violation(event, message, *, severity=None, units=(), hexes=(), **evidence)``.
``state``  post-event game state: ``phasing_side``, ``unit(uid)``,
           ``units_in(hex_id)`` and, for listing every unit, either
           ``state.units`` (iterable or callable) or ``ctx.scenario.counters``
           (objects or mappings with an ``id``). A unit view has ``uid``,
           ``label``, ``tags``, ``side``, ``hex``, ``box``, ``state``,
           ``markers`` and ``on_map``. ``ElanEvent`` also needs
           ``state.track_position(track_id, marker_kind, side)`` -> the marker's
           space counted along the track (1 = first), or None.
``event``  ``kind``, ``step`` and, for annotations and card events,
           ``annotation.kind`` and ``annotation.args``
           (``{"name": "Deploy", "side": "fr"}``; a card event adds ``card``).

When the engine cannot supply what a rule needs, the rule reports an ``info``
record ("not checked") rather than guessing. Deterministic, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: the event kinds that carry an ``event`` annotation: a typed chat line, a card
EVENT_SOURCES = frozenset({"annotation", "card_event"})


def _event_name(event: Any) -> tuple[str, str | None] | None:
    """(event name, side or None) of an '#event ...' annotation or of a
    card's event, else None."""
    note = getattr(event, "annotation", None)
    if event.kind not in EVENT_SOURCES or note is None or note.kind != "event":
        return None
    args = note.args or {}
    name = args.get("name")
    if name is None and args.get("words"):
        name = args["words"][0]
    return (str(name) if name is not None else "", args.get("side"))


def _all_units(state: Any, ctx: Any) -> Iterable[Any]:
    units = getattr(state, "units", None)
    if callable(units):
        units = units()
    if units is not None:
        return list(units)
    out = []
    for c in getattr(ctx.scenario, "counters", ()) or ():
        uid = c.get("id") if isinstance(c, dict) else getattr(c, "id", None)
        if uid:
            out.append(state.unit(uid))
    return out


class _EventWindow:
    """Opens on '#event <name>' or a card firing the event, closes
    ``window_steps`` steps later."""

    subscribes = frozenset({"annotation", "card_event", "step_end"})

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        p = ctx.params
        self.names = {str(p.get("event_name", "")).casefold()}
        self.names |= {str(a).casefold() for a in p.get("aliases", [])}
        self.window_steps = int(p.get("window_steps", 1))
        self.opened: int | None = None
        self.by_card = False
        self.side: str | None = None
        self.before: dict[str, Any] = {}

    def check(self, state: Any, event: Any) -> list[Any]:
        found = _event_name(event)
        if found is not None and found[0].casefold() in self.names:
            if self.opened is not None and self.by_card and event.kind == "annotation":
                return []       # the player announcing the event the card already fired
            self.opened = event.step
            self.by_card = event.kind == "card_event"
            self.side = found[1] or state.phasing_side
            self.before = self.snapshot(state)
            return []
        if (event.kind == "step_end" and self.opened is not None
                and event.step >= self.opened + self.window_steps - 1):
            try:
                return list(self.judge(state, event))
            finally:
                self.opened, self.side, self.before, self.by_card = None, None, {}, False
        return []

    def snapshot(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def judge(self, state: Any, event: Any) -> Iterable[Any]:
        raise NotImplementedError


class DeployEvent(_EventWindow):
    """000:E52 Deploy: in the window at most one friendly Squad leaves the map
    and exactly two Teams of the same quality enter its hex; the Teams are
    broken if the Squad was, and each Suppressed/Veteran marker of the Squad
    goes to exactly one of the Teams (never duplicated)."""

    def snapshot(self, state: Any) -> dict[str, Any]:
        p = self.ctx.params
        squad_tag, team_tag = p.get("squad_tag", "squad"), p.get("team_tag", "team")
        snap: dict[str, Any] = {}
        for u in _all_units(state, self.ctx):
            if u.on_map and (squad_tag in u.tags or team_tag in u.tags):
                snap[u.uid] = {"hex": u.hex, "side": u.side, "tags": set(u.tags),
                               "state": dict(u.state), "markers": set(u.markers)}
        return snap

    def judge(self, state: Any, event: Any) -> Iterable[Any]:
        p, ctx = self.ctx.params, self.ctx
        squad_tag, team_tag = p.get("squad_tag", "squad"), p.get("team_tag", "team")
        qkey = p.get("quality_key", "quality")
        broken = p.get("broken_marker", "broken")
        split = list(p.get("split_markers", ["suppressed", "veteran"]))
        gone = [uid for uid, s in self.before.items()
                if squad_tag in s["tags"] and s["side"] == self.side and not state.unit(uid).on_map]
        if not gone:
            return [ctx.violation(event, "Deploy announced but no Squad was replaced (the event is optional).",
                                  severity="info")]
        if len(gone) > 1:
            return [ctx.violation(event, f"Deploy replaces one Squad, but {len(gone)} Squads left the map.",
                                  units=tuple(gone))]
        sq = self.before[gone[0]]
        new_teams = [u for u in _all_units(state, ctx)
                     if u.on_map and team_tag in u.tags and u.uid not in self.before]
        out = []
        if len(new_teams) != 2:
            out.append(ctx.violation(event, f"Deploy must place exactly two Teams, found {len(new_teams)}.",
                                     units=(gone[0],) + tuple(t.uid for t in new_teams), hexes=(sq["hex"],)))
        for t in new_teams:
            if t.hex != sq["hex"] or t.side != sq["side"] or t.state.get(qkey) != sq["state"].get(qkey):
                out.append(ctx.violation(
                    event, f"{t.label} must enter {sq['hex']} with the Squad's side and quality "
                           f"({sq['state'].get(qkey)}).", units=(t.uid,), hexes=(sq["hex"],)))
            if (broken in t.markers) != (broken in sq["markers"]):
                out.append(ctx.violation(event, f"{t.label} must be broken exactly when the Squad was.",
                                         units=(t.uid,), hexes=(sq["hex"],)))
        for kind in split:
            have = sum(1 for t in new_teams if kind in t.markers)
            want = 1 if kind in sq["markers"] else 0
            if have != want:
                out.append(ctx.violation(event, f"The Squad's '{kind}' marker must pass to exactly "
                                                f"{want} Team(s); found {have}.",
                                         units=tuple(t.uid for t in new_teams), hexes=(sq["hex"],)))
        return out


class ElanEvent(_EventWindow):
    """000:E54 Élan: in the window the receiving player's Surrender marker
    moves exactly one space toward higher values on his Casualty Track."""

    def _position(self, state: Any) -> int | None:
        where = getattr(state, "track_position", None)
        tracks = self.ctx.params.get("tracks", {})
        if where is None or self.side not in tracks:
            return None
        return where(tracks[self.side], self.ctx.params.get("marker", "surrender"), self.side)

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {"position": self._position(state)}

    def judge(self, state: Any, event: Any) -> Iterable[Any]:
        before, after = self.before.get("position"), self._position(state)
        if before is None or after is None:
            return [self.ctx.violation(event, "Élan not checked: Surrender marker position unknown.",
                                       severity="info")]
        if after != before + 1:
            return [self.ctx.violation(event, f"Élan moves the Surrender marker one space up "
                                              f"(from {before} to {before + 1}); it is at {after}.",
                                       side=self.side, before=before, after=after)]
        return []
