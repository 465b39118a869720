"""Scenario units and markers → VASSAL piece definitions.

Every unit piece is built the same way, so that logs read well and an audit
can identify it (``docs/seed-rules.md`` §3.13; ``docs/vassal-format.md`` §3):

* prototypes, layered: ``vmodtool unit`` (ReportState on every command,
  Mark Moved, Delete) → ``type: <unit type>`` (Marker ``UnitType``, ``Tags``,
  ``MovementClass``, ``Steps``) → ``side: <side>`` (Marker ``Side``);
* a Marker with ``UnitId``, ``Formation``, ``Label``, ``Faces`` and each
  face's factors as ``<factor>_<face>``;
* one activatable Layer per layer-type status marker (Ops Complete,
  Disrupted …), named after the marker kind;
* the ``Face`` Layer: one level per face, in the scenario's order, flipped
  with Ctrl+F (“Flip”); ``Face_Level`` is the face's 1-based index;
* the BasicPiece with the front image and the unit's name.

Marker counters get ``MarkerKind``.  All fields of every trait are written
(§3.4 “always write every field”).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from vmodtool.scenario import binding as B
from vmodtool.scenario.model import Counter, MarkerKind, Scenario, UnitType
from vmodtool.vassal import traits as T
from vmodtool.vassal.keys import CTRL, CTRL_SHIFT, NamedKeyStroke, key
from vmodtool.vassal.pieces import PieceDef, Trait

__all__ = ["PieceFactory", "COMMON_PROTOTYPE", "FLIP", "MARK_MOVED", "DELETE", "unit_name",
           "type_prototype_name", "side_prototype_name", "FACE_LAYER"]

COMMON_PROTOTYPE = "vmodtool unit"
MARKER_PROTOTYPE = "vmodtool marker"
# what the audit reads of a built module's pieces: one definition, the
# binding a built module implies (vmodtool.scenario.binding)
FACE_LAYER = B.FACE_LAYER
# key strokes as VASSAL's editor writes them: ``70,130`` is Ctrl+F, whereas
# ``70,130,Flip`` would be read as the named command "Flip" and the keys ignored
# (docs/vassal-format.md §3.1.6); the menu texts are the traits' own fields
FLIP = key("F", CTRL)
MARK_MOVED = key("M", CTRL)
DELETE = key("D", CTRL)
REPORT_FORMAT = "$oldPieceName$ $menuCommand$ ($location$) *"
_EMPTY_BASIC_STATE = "null;0;0;;0"
# keys for layer-type markers: Ctrl+Shift+1 … 9, then Ctrl+Shift+A …
_LAYER_KEY_CHARS = "123456789ABCEGHIJKLNOPQRSTUVWXYZ"


def unit_name(counter: Counter, unit_type: UnitType) -> str:
    """The piece name a unit shows in VASSAL (and in logs)."""
    return f"{counter.label} {unit_type.name}" if counter.label else unit_type.name


def type_prototype_name(unit_type_id: str) -> str:
    return f"type: {unit_type_id}"


def side_prototype_name(side_id: str) -> str:
    return f"side: {side_id}"


#: a stand-in for a counter's own value in the definition of its kind
_STAND_IN_MARK = "Zq7vmtStandIn"
_STAND_IN = _STAND_IN_MARK + "{}Zq"
#: characters that some level of a piece definition escapes or quotes on
_SPECIAL = frozenset(";,/\\'\t\n\r|:=$")


def _plain(value: str) -> bool:
    """A value no level of a definition's encoding changes (empty is plain:
    an empty token is empty at every level)."""
    return _STAND_IN_MARK not in value and _SPECIAL.isdisjoint(value)


def _safe(text: str) -> str:
    """Property values and names must not end in a backslash (§3.1.4)."""
    return text.rstrip("\\")


@dataclass(frozen=True)
class LayerMarker:
    """A layer-type marker kind as every unit piece carries it: the key that
    switches its Layer on and off (Ctrl+Shift+1 …) and its overlay image."""

    kind: MarkerKind
    keystroke: NamedKeyStroke
    image: str


class PieceFactory:
    """Builds the PieceSlot/PrototypeDefinition texts of one scenario.

    ``unit_images`` maps (counter id, face name) → image file name (relative
    to the module's ``images/``); ``marker_images`` marker kind → image;
    ``layer_images`` marker kind → overlay image of layer-type markers."""

    def __init__(self, scenario: Scenario, unit_images: Mapping[tuple[str, str], str],
                 marker_images: Mapping[str, str], layer_images: Mapping[str, str]) -> None:
        self.scenario = scenario
        self._definitions: dict[tuple[str, str | None], str] = {}
        self._templates: dict[tuple[str, str, str, bool, bool], tuple[str, list[str]]] = {}
        self._shared: dict[str, Trait] = {}
        self._layers: list[Trait] | None = None   # the status layers, built once
        self.unit_images = unit_images
        self.marker_images = marker_images
        self.layers: list[LayerMarker] = []
        for i, kind in enumerate(k for k in scenario.markers.values()
                                 if k.representation == "layer"):
            char = _LAYER_KEY_CHARS[i % len(_LAYER_KEY_CHARS)]
            self.layers.append(LayerMarker(kind, key(char, CTRL_SHIFT),
                                           layer_images.get(kind.id, "")))

    # -- prototypes ---------------------------------------------------------------
    def prototypes(self) -> list[tuple[str, str, str]]:
        """(name, description, definition) of every prototype."""
        out = [(COMMON_PROTOTYPE, "What every unit has: reports, moved marker, delete",
                self._common_prototype()),
               (MARKER_PROTOTYPE, "What every marker counter has", self._marker_prototype())]
        for type_id, unit_type in self.scenario.unit_types.items():
            marker = T.Marker.build(properties={
                B.UNIT_TYPE: type_id, "Tags": ",".join(sorted(unit_type.tags)),
                "MovementClass": unit_type.movement_class or "", "Steps": str(unit_type.steps)})
            out.append((type_prototype_name(type_id), unit_type.name,
                        PieceDef.from_traits([marker, T.BasicPiece.build()]).encode()))
        for side in self.scenario.game.sides:
            marker = T.Marker.build(properties={B.SIDE: side.id, "SideName": _safe(side.name)})
            out.append((side_prototype_name(side.id), side.name,
                        PieceDef.from_traits([marker, T.BasicPiece.build()]).encode()))
        return out

    def _common_prototype(self) -> str:
        keys = [FLIP, MARK_MOVED, DELETE] + [layer.keystroke for layer in self.layers]
        return PieceDef.from_traits([
            T.ReportState.build(keys=keys, report_format=REPORT_FORMAT,
                                description="Report every command in the log"),
            T.MovementMarkable.build(x_offset=0, y_offset=0, command="Mark Moved", key=MARK_MOVED,
                                     description="Moved marker"),
            T.Delete.build(),
            T.BasicPiece.build(),
        ]).encode()

    def _marker_prototype(self) -> str:
        return PieceDef.from_traits([
            T.ReportState.build(keys=[DELETE], report_format=REPORT_FORMAT,
                                description="Report every command in the log"),
            T.Delete.build(),
            T.BasicPiece.build(),
        ]).encode()

    # -- pieces -------------------------------------------------------------------
    def _prototype(self, name: str) -> Trait:
        trait = self._shared.get("prototype:" + name)
        if trait is None:
            trait = self._shared["prototype:" + name] = T.UsePrototype.build(prototype_name=name)
        return trait

    def _layer_traits(self) -> list[Trait]:
        """The status layers (same for every unit)."""
        cached = self._layers
        if cached is None:
            cached = [T.Embellishment.build(
                activate_command=_safe(layer.kind.name), activate_key="", up_command="",
                image_names=[layer.image], level_names=[""], layer_name=layer.kind.id,
                always_active=False, activate_keystroke=layer.keystroke,
                description=f"{layer.kind.name} marker", state="-1") for layer in self.layers]
            self._layers = cached
        return list(cached)

    def unit_traits(self, counter: Counter, face: str | None = None,
                    gpid: str = "") -> list[Trait]:
        unit_type = self.scenario.unit_type_of(counter)
        faces = unit_type.faces
        properties: dict[str, str] = {
            B.UNIT_ID: counter.id, B.FORMATION: counter.formation or "",
            "Label": _safe(counter.label or ""), "Faces": ",".join(f.name for f in faces)}
        for f in faces:
            for factor, value in f.factors.items():
                properties[f"{factor}_{f.name}"] = _safe(str(value))
        start = face or counter.face or faces[0].name
        level = [f.name for f in faces].index(start) + 1
        images = [self.unit_images[(counter.id, f.name)] for f in faces]
        names = [""] + [f"+ ({f.name})" for f in faces[1:]]
        traits: list[Trait] = [
            self._prototype(COMMON_PROTOTYPE),
            self._prototype(type_prototype_name(unit_type.id)),
            self._prototype(side_prototype_name(counter.side)),
            T.Marker.build(properties=properties),
        ]
        traits.extend(self._layer_traits())
        if len(faces) > 1:
            traits.append(T.Embellishment.build(
                activate_command="", activate_key="", up_command="Flip", image_names=images,
                level_names=names, layer_name=FACE_LAYER, always_active=True,
                activate_keystroke=None, increase_keystroke=FLIP, loop_levels=True,
                description="Faces of the counter", state=str(level)))
        traits.append(T.BasicPiece.build(image=images[0],
                                         piece_name=_safe(unit_name(counter, unit_type)),
                                         state=f"null;0;0;{gpid};0"))
        return traits

    def unit_definition(self, counter: Counter, face: str | None = None, gpid: str = "") -> str:
        """PieceSlot text of a unit (``+/null/type/state``).  The text is
        built once per counter and face; only the gpid at the very end of the
        BasicPiece state differs between the palette and the setup copies."""
        key = (counter.id, face)
        template = self._definitions.get(key)
        if template is None:
            template = self._shared_definition(counter, face)
            if template is None:
                template = PieceDef.from_traits(self.unit_traits(counter, face, "")).encode()
            if not template.endswith(_EMPTY_BASIC_STATE):
                raise AssertionError("the BasicPiece state must end the definition")
            self._definitions[key] = template
        return template[:-len(_EMPTY_BASIC_STATE)] + f"null;0;0;{gpid};0"

    def _shared_definition(self, counter: Counter, face: str | None) -> str | None:
        """The definition of ``counter`` made from the one of its kind —
        same unit type, side, starting face and which of formation and
        label it has — with its own id, formation, label and images put in
        place of stand-ins; None when a value is not :func:`_plain` (the
        caller builds the definition itself).

        A plain value is escaped by no level of the nested encoding and
        decides no quoting (§3.1.1: only delimiters, backslashes and a
        leading quote or backslash do), so putting it where its stand-in
        was gives exactly the text the traits would encode."""
        unit_type = self.scenario.unit_type_of(counter)
        images = [self.unit_images[(counter.id, f.name)] for f in unit_type.faces]
        label = counter.label or ""
        values = [counter.id, counter.formation or "", label, *images]
        if not all(_plain(v) for v in values):
            return None
        start = face or counter.face or unit_type.faces[0].name
        shape = (unit_type.id, counter.side, start, bool(counter.formation), bool(label))
        template = self._templates.get(shape)
        if template is None:
            stand_ins = [_STAND_IN.format(i) for i in range(len(values))]
            proxy = dataclasses.replace(counter, id=stand_ins[0], formation=stand_ins[1] if counter.formation else None,
                                        label=stand_ins[2] if label else None, face=start)
            saved = self.unit_images
            self.unit_images = {**saved, **{(proxy.id, f.name): stand_ins[3 + i]
                                            for i, f in enumerate(unit_type.faces)}}
            try:
                text = PieceDef.from_traits(self.unit_traits(proxy, None, "")).encode()
            finally:
                self.unit_images = saved
            template = self._templates[shape] = (text, stand_ins)
        text, stand_ins = template
        for stand_in, value in zip(stand_ins, values, strict=True):
            if value:
                text = text.replace(stand_in, value)
        return text if _STAND_IN_MARK not in text else None   # a stand-in not found whole: build it directly

    def marker_definition(self, kind: MarkerKind, gpid: str = "") -> str:
        """PieceSlot text of a marker counter."""
        return PieceDef.from_traits([
            T.UsePrototype.build(prototype_name=MARKER_PROTOTYPE),
            T.Marker.build(properties={B.MARKER_KIND: kind.id, "MarkerScope": kind.scope}),
            T.BasicPiece.build(image=self.marker_images[kind.id], piece_name=_safe(kind.name),
                               state=f"null;0;0;{gpid};0"),
        ]).encode()

    def chit_definition(self, formation_id: str | None, image: str, name: str,
                        gpid: str = "") -> str:
        """An activation chit (a formation's chit or an End Turn chit)."""
        return PieceDef.from_traits([
            T.UsePrototype.build(prototype_name=MARKER_PROTOTYPE),
            T.Marker.build(properties={B.MARKER_KIND: "formation_chit" if formation_id else "end_turn_chit",
                                       B.FORMATION: formation_id or ""}),
            T.BasicPiece.build(image=image, piece_name=_safe(name), state=f"null;0;0;{gpid};0"),
        ]).encode()
