"""Semantic checks of rule parameters: every tag, unit type, side, marker,
box, phase, terrain, hexside type, movement class, factor and face a rule
names must exist in the scenario (the rule checker that enforces the rules
comes later; a rule that names something unknown is caught here)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

from vmodtool.scenario import model as M
from vmodtool.scenario.problems import Path

__all__ = ["RuleReferences", "BOX_ROLES"]

BOX_ROLES = ("eliminated", "dead", "cup", "drawn", "air_ready", "air_flown", "reinforcements",
             "counter_mix", "holding", "casualty")


class ScenarioParts(Protocol):
    """What the checks read of a scenario being built (the loader's
    builder, once everything but the rules is built), and where they report."""

    @property
    def map(self) -> M.HexMap: ...
    @property
    def sides(self) -> Sequence[str]: ...
    @property
    def boxes(self) -> Sequence[M.Box]: ...
    @property
    def tracks(self) -> Sequence[M.Track]: ...
    @property
    def unit_types(self) -> Mapping[str, M.UnitType]: ...
    @property
    def markers(self) -> Mapping[str, M.MarkerKind]: ...
    @property
    def formations(self) -> Sequence[M.Formation]: ...
    @property
    def turns(self) -> M.TurnStructure | None: ...

    def err(self, path: Path, message: str, severity: str = "error") -> None: ...

    def known_set(self, known: Iterable[str]) -> Collection[str]: ...

    def close_match(self, value: str, known: Iterable[str], cutoff: float = 0.6) -> str | None: ...


class RuleReferences:
    """Semantic checks of rule parameters: every tag, unit type, side,
    marker, box, phase, terrain, hexside type and movement class a rule names
    must exist in the scenario."""

    RELATIVE_SIDES = ("friendly", "enemy", "same", "other")

    def __init__(self, builder: ScenarioParts) -> None:
        b = builder
        self.b = b
        self.tags = sorted(set[str]().union(*[t.tags for t in b.unit_types.values()]))
        self.types = sorted(b.unit_types)
        self.markers = sorted(b.markers)
        self.boxes = [x.id for x in b.boxes]
        self.roles = sorted(set(BOX_ROLES) | {x.role for x in b.boxes})
        self.phases = [p.id for p in b.turns.phases] if b.turns else []
        self.terrain = sorted(b.map.terrain_types)
        self.hexside_types = sorted(b.map.hexside_types)
        self.classes = sorted({t.movement_class for t in b.unit_types.values() if t.movement_class})
        self.faces = sorted({f.name for t in b.unit_types.values() for f in t.faces})
        self.state_keys = sorted({k for t in b.unit_types.values() for f in t.faces for k in f.state})
        self.factors = sorted({k for t in b.unit_types.values() for f in t.faces for k in f.factors})
        self.formations = [f.id for f in b.formations]
        self.tracks = [t.id for t in b.tracks]

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
            if key in ("tags", "tags_any", "tags_all", "serves"):
                self.names(kp, value, self.tags, "tag")
            elif key == "type":
                self.names(kp, value, self.types, "unit type")
            elif key == "side" and isinstance(value, str):
                self.names(kp, value, self.b.sides, "side", allow=self.RELATIVE_SIDES)
            elif key in ("markers", "marker_in_hex", "marker_kind"):
                self.names(kp, value, self.markers, "marker kind")
            elif key in ("in", "box", "cup", "drawn"):
                # a box, or a track (a Casualty Track holds units too)
                self.names(kp, value, self.boxes + self.tracks, "box or track")
            elif key in ("in_box_role", "box_role"):
                self.names(kp, value, self.roles, "box role")
            elif key in ("phases",) or (key == "phase" and isinstance(value, (str, list))) \
                    or key == "phase_end" or key == "phase_start":
                self.names(kp, value, self.phases, "phase")
            elif key in ("terrain_not", "terrain"):
                self.names(kp, value, self.terrain, "terrain type")
            elif key in ("bridge_negates", "ignore_hexsides_types"):
                self.names(kp, value, self.hexside_types, "hexside type")
            elif key == "costs" and isinstance(value, dict):
                for cls, table in value.items():
                    cp = kp + (cls,)
                    self.names(cp, cls, self.classes, "movement class", severity="warning")
                    if isinstance(table, dict):
                        for t in table:
                            if t != "default":
                                self.names(cp + (t,), t, self.terrain, "terrain type")
            elif key == "hexside_extra" and isinstance(value, dict):
                for htype, table in value.items():
                    hp = kp + (htype,)
                    self.names(hp, htype, self.hexside_types, "hexside type")
                    if isinstance(table, dict):
                        for cls in table:
                            self.names(hp + (cls,), cls, self.classes, "movement class",
                                       severity="warning")
            elif key == "road" and isinstance(value, dict):
                self.names(kp + ("types",), value.get("types", []), self.hexside_types, "hexside type")
                if isinstance(value.get("cost"), dict):
                    for cls in value["cost"]:
                        self.names(kp + ("cost", cls), cls, self.classes, "movement class",
                                   severity="warning")
            elif key == "state" and isinstance(value, dict):
                for skey in value:
                    self.names(kp + (skey,), skey, self.state_keys, "state key")
                self.check(kp, {})
            elif key in ("from", "to") and isinstance(value, dict):
                for skey in value:
                    self.names(kp + (skey,), skey, self.state_keys, "state key")
            elif key in ("factor", "range_factor", "allowance_factor", "hq_factor") and isinstance(value, str):
                self.names(kp, value, self.factors, "factor")
            elif key == "face" and isinstance(value, (str, list)):
                self.names(kp, value, self.faces, "face", allow=("reduced_if_two_step", "any"))
            elif key == "refs":
                continue    # rulebook references of a replacement rule's sub-checks (texts, not names)
            elif key in ("track", "budget_track"):
                self.names(kp, value, self.tracks, "track")
            elif key == "formation" and isinstance(value, str):
                self.names(kp, value, self.formations, "formation")
            else:
                self.check(kp, value)
