"""Semantic checks of rule parameters: every tag, unit type, side, marker,
box, phase, terrain, hexside type, movement class, factor and face a rule
names must exist in the scenario (the rule checker that enforces the rules
comes later; a rule that names something unknown is caught here)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from vmodtool.scenario import model as M
from vmodtool.scenario.problems import Path

__all__ = ["RuleReferences", "ScenarioParts", "BOX_ROLES"]

BOX_ROLES = ("eliminated", "dead", "cup", "drawn", "air_ready", "air_flown", "reinforcements",
             "counter_mix", "holding", "casualty")


class Reporter(Protocol):
    """Where the checks report, and how they match names (the loader's
    :class:`~vmodtool.scenario.collector.ProblemCollector`)."""

    def err(self, path: Path, message: str, severity: str = "error") -> None: ...

    def known_set(self, known: Iterable[str]) -> Collection[str]: ...

    def close_match(self, value: str, known: Iterable[str], cutoff: float = 0.6) -> str | None: ...


@dataclass(frozen=True)
class ScenarioParts:
    """What the checks read of a scenario being built (once everything but
    the rules is built)."""

    map: M.HexMap
    sides: Sequence[str]
    boxes: Sequence[M.Box]
    tracks: Sequence[M.Track]
    unit_types: Mapping[str, M.UnitType]
    markers: Mapping[str, M.MarkerKind]
    formations: Sequence[M.Formation]
    turns: M.TurnStructure | None


#: the sides a rule may name relative to a unit's
RELATIVE_SIDES = ("friendly", "enemy", "same", "other")
#: a params key whose value names things of one kind: (the attribute of
#: :class:`RuleReferences` holding the known names, what they are, the value
#: types checked (else the value is walked as params), names allowed besides)
_NAMES: dict[str, tuple[str, str, tuple[type, ...], tuple[str, ...]]] = {}
for _keys, _spec in (
        (("tags", "tags_any", "tags_all", "serves"), ("tags", "tag", (object,), ())),
        (("type",), ("types", "unit type", (object,), ())),
        (("side",), ("sides", "side", (str,), RELATIVE_SIDES)),
        (("markers", "marker_in_hex", "marker_kind"), ("markers", "marker kind", (object,), ())),
        # a box, or a track (a Casualty Track holds units too)
        (("in", "box", "cup", "drawn"), ("boxes_and_tracks", "box or track", (object,), ())),
        (("in_box_role", "box_role"), ("roles", "box role", (object,), ())),
        (("phases", "phase_end", "phase_start"), ("phases", "phase", (object,), ())),
        (("phase",), ("phases", "phase", (str, list), ())),
        (("terrain_not", "terrain"), ("terrain", "terrain type", (object,), ())),
        (("bridge_negates", "ignore_hexsides_types"), ("hexside_types", "hexside type", (object,), ())),
        (("factor", "range_factor", "allowance_factor", "hq_factor"), ("factors", "factor", (str,), ())),
        (("face",), ("faces", "face", (str, list), ("reduced_if_two_step", "any"))),
        (("track", "budget_track"), ("tracks", "track", (object,), ())),
        (("formation",), ("formations", "formation", (str,), ()))):
    for _key in _keys:
        _NAMES[_key] = _spec


class RuleReferences:
    """Semantic checks of rule parameters: every tag, unit type, side,
    marker, box, phase, terrain, hexside type and movement class a rule names
    must exist in the scenario."""

    RELATIVE_SIDES = RELATIVE_SIDES

    def __init__(self, reporter: Reporter, parts: ScenarioParts) -> None:
        b = parts
        self.b = reporter
        self.sides = b.sides
        self.tags = sorted(set[str]().union(*[t.tags for t in b.unit_types.values()]))
        self.types = sorted(b.unit_types)
        self.markers = sorted(b.markers)
        self.boxes = [x.id for x in b.boxes]
        self.roles = sorted(set(BOX_ROLES) | {x.role for x in b.boxes})
        self.phases = [p.id for p in b.turns.phases] if b.turns else []
        self.terrain = sorted(b.map.terrain_types)
        #: what a movement class's cost table may name: terrain, and on an
        #: area map the connection kinds (a step there costs its connection's)
        areas = b.map.areas
        self.cost_keys = sorted(set(self.terrain) | set(areas.kinds)) if areas is not None else self.terrain
        self.hexside_types = sorted(b.map.hexside_types)
        self.classes = sorted({t.movement_class for t in b.unit_types.values() if t.movement_class})
        self.faces = sorted({f.name for t in b.unit_types.values() for f in t.faces})
        self.state_keys = sorted({k for t in b.unit_types.values() for f in t.faces for k in f.state})
        self.factors = sorted({k for t in b.unit_types.values() for f in t.faces for k in f.factors})
        self.formations = [f.id for f in b.formations]
        self.tracks = [t.id for t in b.tracks]
        self.boxes_and_tracks = self.boxes + self.tracks

    def names(self, path: Path, value: Any, known: Sequence[str], what: str,
              allow: Sequence[str] = (), severity: str = "error") -> None:
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            ipath = path + (i,) if isinstance(value, list) else path
            if isinstance(item, str) and item not in self.b.known_set(known) and item not in allow:
                close = self.b.close_match(item, known)
                hint = f"; did you mean {close!r}?" if close else (
                    f"; known: {', '.join(list(known)[:15])}" if known else f"; the scenario defines no {what}s")
                self.b.err(ipath, f"unknown {what} {item!r}{hint}", severity=severity)

    def check(self, path: Path, node: Any) -> None:
        """Walk a params mapping and check every key whose meaning is known."""
        if isinstance(node, list):
            for i, item in enumerate(node):
                self.check(path + (i,), item)
            return
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            kp = path + (key,)
            names = _NAMES.get(key)
            if names is not None and isinstance(value, names[2]):
                attr, what, _, allow = names
                self.names(kp, value, getattr(self, attr), what, allow=allow)
            elif key == "refs":
                continue    # rulebook references of a replacement rule's sub-checks (texts, not names)
            elif not (isinstance(value, dict) and self._tables(key, kp, value)):
                self.check(kp, value)

    def _tables(self, key: str, kp: Path, value: dict[Any, Any]) -> bool:
        """Check a params mapping whose keys are names (movement costs by
        class and terrain, state keys …); False when ``key`` is no such one."""
        if key == "costs":
            for cls, table in value.items():
                cp = kp + (cls,)
                self.names(cp, cls, self.classes, "movement class", severity="warning")
                if isinstance(table, dict):
                    for t in table:
                        if t != "default":
                            self.names(cp + (t,), t, self.cost_keys,
                                       "terrain type" if self.cost_keys is self.terrain
                                       else "terrain type or connection kind")
        elif key == "hexside_extra":
            for htype, table in value.items():
                hp = kp + (htype,)
                self.names(hp, htype, self.hexside_types, "hexside type")
                if isinstance(table, dict):
                    for cls in table:
                        self.names(hp + (cls,), cls, self.classes, "movement class", severity="warning")
        elif key == "road":
            self.names(kp + ("types",), value.get("types", []), self.hexside_types, "hexside type")
            if isinstance(value.get("cost"), dict):
                for cls in value["cost"]:
                    self.names(kp + ("cost", cls), cls, self.classes, "movement class", severity="warning")
        elif key in ("state", "from", "to"):
            for skey in value:
                self.names(kp + (skey,), skey, self.state_keys, "state key")
        else:
            return False
        return True
