"""Typed views and builders of VASSAL traits, and the piece name/properties.

* :data:`DECORATOR_CLASSES` / :data:`BASIC_CLASSES` — VASSAL 3.7.26's prefix →
  class table (``BasicCommandEncoder.decoratorFactories``; ``docs/vassal-format.md``
  §3.2/§3.4).
* Views: :func:`view_of` gives a :class:`TraitView` subclass for a
  :class:`~vmodtool.vassal.pieces.Trait`; its fields are read with VASSAL's
  reader defaults for missing trailing fields (§3.4) and are attributes
  (``emb.image_names``, ``label.name_format``).  :meth:`TraitView.fields`
  lists them all; :meth:`TraitView.encode_type` writes them back as VASSAL's
  ``myGetType`` would.  Traits without a view are kept verbatim
  (:class:`RawTrait`).
* Builders: ``Embellishment.build(image_names=[…], …)`` etc. write EVERY
  field, defaults being those of a freshly constructed VASSAL trait (§3.4
  "Default type and state per trait"; hard-coded in :data:`DEFAULT_TYPES`).
* :func:`piece_name` (``getName()``), :func:`piece_property` and
  :func:`piece_properties` evaluate a :class:`~vmodtool.vassal.pieces.PieceDef`
  as VASSAL does for a palette piece: no map, no player, no global
  properties, prototypes not expanded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from vmodtool.errors import FormatError
from vmodtool.vassal.keys import NamedKeyStroke, decode_key, decode_key_list, encode_key, encode_key_list
from vmodtool.vassal.pieces import BasicPieceState, PieceDef, Trait, java_int, parse_basic_state
from vmodtool.vassal.sequence import SequenceEncoder, check_token, decode_sequence, encode_sequence, java_double

__all__ = [
    "DECORATOR_CLASSES", "BASIC_CLASSES", "DEFAULT_TYPES", "DEFAULT_STATES",
    "java_class_for", "is_known_prefix", "view_of", "view_class_for",
    "TraitView", "RawTrait", "BasicPiece", "Embellishment", "Marker", "DynamicProperty",
    "Labeler", "ReportState", "Delete", "Clone", "UsePrototype", "MovementMarkable",
    "Immobilized", "Hideable", "Obscurable", "FreeRotator", "SendToLocation",
    "TriggerAction", "CounterGlobalKeyCommand", "RestrictCommands", "Restricted",
    "CalculatedProperty", "BasicName", "TranslatableMessage", "SubMenu", "Translate",
    "ReturnToDeck", "PlaceMarker", "Replace", "NonRectangular", "AreaOfEffect", "Deselect",
    "Footprint", "TableInfo", "MenuSeparator", "PropertySheet",
    "piece_name", "piece_property", "piece_properties", "build_piece", "property_sources",
]

_P = "VASSAL.counters."

#: decorator prefix → Java class (``BasicCommandEncoder.decoratorFactories``, 3.7.26)
DECORATOR_CLASSES: dict[str, str] = {
    "immob;": _P + "Immobilized", "emb2;": _P + "Embellishment", "emb;": _P + "Embellishment",
    "hide;": _P + "Hideable", "obs;": _P + "Obscurable", "label;": _P + "Labeler",
    "table;": _P + "TableInfo", "propertysheet;": _P + "PropertySheet",
    "rotate;": _P + "FreeRotator", "pivot;": _P + "Pivot",
    "nonRect;": _P + "NonRectangular", "nonRect2;": _P + "NonRectangular",
    "mark;": _P + "Marker", "locmsg;": _P + "TranslatableMessage",
    "restrict;": _P + "Restricted", "placemark;": _P + "PlaceMarker",
    "replace;": _P + "Replace", "report;": _P + "ReportState",
    "markmoved;": _P + "MovementMarkable", "footprint;": _P + "Footprint",
    "return;": _P + "ReturnToDeck", "sendto;": _P + "SendToLocation",
    "prototype;": _P + "UsePrototype", "clone;": _P + "Clone", "delete;": _P + "Delete",
    "submenu;": _P + "SubMenu", "menuSeparator;": _P + "MenuSeparator",
    "translate;": _P + "Translate", "AreaOfEffect;": _P + "AreaOfEffect",
    "globalkey;": _P + "CounterGlobalKeyCommand", "macro;": _P + "TriggerAction",
    "PROP;": _P + "DynamicProperty", "calcProp;": _P + "CalculatedProperty",
    "setprop;": _P + "SetGlobalProperty", "setpieceprop;": _P + "SetPieceProperty",
    "hideCmd;": _P + "RestrictCommands", "playSound;": _P + "PlaySound",
    "button;": _P + "ActionButton", "globalhotkey;": _P + "GlobalHotKey",
    "deselect;": _P + "Deselect", "mat;": _P + "Mat", "matPiece;": _P + "MatCargo",
    "basicName;": _P + "BasicName", "border;": _P + "BorderOutline",
    "attach;": _P + "Attachment", "locCommand;": _P + "MultiLocationCommand",
    "cmt;": _P + "Comment",
}

#: basic (innermost) prefix → Java class
BASIC_CLASSES: dict[str, str] = {
    "piece;": _P + "BasicPiece", "stack": _P + "Stack", "deck;": _P + "Deck",
}

#: §3.4 "Default type and state per trait (VASSAL 3.7.26, freshly constructed
#: trait)": myGetType()/myGetState() of a trait made with its default
#: constructor.  Builders start from these.  (Golden: traits/defaults.jsonl.)
DEFAULT_TYPES: dict[str, str] = {
    _P + "BasicPiece": "piece;;;;",
    _P + "Embellishment": "emb2;Activate;128;A;;128;;;128;;;;1;false;0;0;;;true;;;;false;;1;1;"
                          "true;65,130;;;;1.0;;true",
    _P + "Marker": "mark;",
    _P + "DynamicProperty": "PROP;;false,0,100,false;;",
    _P + "Labeler": "label;;Change label;10;;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;"
                    "TextLabel;;false",
    _P + "ReportState": "report;;$location$: $newPieceName$ *;;;;false",
    _P + "Delete": "delete;Delete;68,130;",
    _P + "Clone": "clone;Clone;67,130;",
    _P + "UsePrototype": "prototype;",
    _P + "MovementMarkable": "markmoved;moved.gif;0;0;Toggle whether piece marked as moved;77,130;;"
                             "false;Mark piece as moved;;Mark piece as unmoved;",
    _P + "Immobilized": "immob;;N;R;",
    _P + "Hideable": "hide;73,130;Invisible;;player:;0.30000001192092896;;false",
    _P + "Obscurable": "obs;77,130;;Mask;I;?;player:;Peek;;true;;",
    _P + "FreeRotator": "rotate;6;93,130;91,130;Rotate CW;Rotate CCW;;;;;;;;true",
    _P + "SendToLocation": "sendto;;;;;0;0;;;0;0;1;1;;L;;;;",
    _P + "TriggerAction": "macro;;Trigger;84,130;;;;false;;;counted;;;;false;;1;1",
    _P + "CounterGlobalKeyCommand": "globalkey;;71,130;75,130;;false;1;true;true;;;-1;"
                                    "COUNTER|false|MAP|||||0|0||false|||EQUALS||;false;",
    _P + "RestrictCommands": "hideCmd;;Hide;;",
    _P + "Restricted": "restrict;;false;true;",
    _P + "PropertySheet": "propertysheet;;Property Sheet;;0;;;;80,130;",
    _P + "Replace": "replace;Replace;82,130;null;null;0;0;false;;;;0;false;false;;1",
    _P + "PlaceMarker": "placemark;Place Marker;77,130;null;null;0;0;false;;;;0;false;false;;1",
    _P + "Footprint": "footprint;;Movement Trail;false;false;10;255,255,255;0,0,0;100;50;20;30;"
                      "1.0;;;;",
    _P + "TableInfo": "table;2;2;Show Data;83,130;",
    _P + "SubMenu": "submenu;Sub-Menu;;",
    _P + "Translate": "translate;Move Forward;77,130;0;60;false;0;0;0;0;",
    _P + "ReturnToDeck": "return;Return to Deck;82,130;;Select destination;;2;true;",
    _P + "CalculatedProperty": "calcProp;;;",
    _P + "NonRectangular": "nonRect2;1.0;",
    _P + "AreaOfEffect": "AreaOfEffect;128,128,128;30;1;true;Show area;;;true;;;;;;;;true",
    _P + "Deselect": "deselect;Deselect;75,0;;false;D",
}

#: default states (§3.4); ``None`` where VASSAL's myGetState returns null
#: (PropertySheet, TableInfo); SendToLocation's needs an inner piece.
DEFAULT_STATES: dict[str, str | None] = {
    _P + "BasicPiece": "null;0;0;;0", _P + "Embellishment": "1", _P + "ReportState": "-1",
    _P + "MovementMarkable": "false", _P + "Hideable": "null", _P + "Obscurable": "null;",
    _P + "FreeRotator": "0", _P + "Footprint": "false;;0;false", _P + "AreaOfEffect": "false",
    _P + "PropertySheet": None, _P + "TableInfo": None,
}


def is_known_prefix(prefix: str, innermost: bool = False) -> bool:
    """Whether VASSAL knows ``prefix`` (as a basic type when ``innermost``)."""
    return prefix in (BASIC_CLASSES if innermost else DECORATOR_CLASSES)


def java_class_for(trait: Trait) -> str:
    """The Java class VASSAL builds for ``trait`` (see :attr:`Trait.java_class`)."""
    prefix = trait.prefix
    if trait.innermost:
        return BASIC_CLASSES.get(prefix, "null")
    cls = DECORATOR_CLASSES.get(prefix)
    if cls is None:
        return _P + "Marker"  # unknown prefix: VASSAL's dummy Marker (§3.2 rule 4)
    if prefix == "emb2;" and Embellishment(trait).is_unconvertible_legacy:
        return _P + "Embellishment0"
    return cls


# ------------------------------------------------------------------ field codecs
_MISSING = object()


def _int(tok: str | None, default: int) -> int:
    value = java_int(tok)
    return default if value is None else value


def _float(tok: str | None, default: float) -> float:
    if tok is None:
        return default
    try:
        if tok.strip() != tok or tok == "" or "_" in tok:
            raise ValueError
        return float(tok)
    except ValueError:
        return default


def _str_array(tok: str | None, min_len: int = 0) -> list[str]:
    """``nextStringArray``: a ``,``-list; empty/missing → [] padded to min_len
    with empty strings (VASSAL pads with null, written back as empty)."""
    items = decode_sequence(tok, ",") if tok else []
    while len(items) < min_len:
        items.append("")
    return items


def _enc_str_array(items: Sequence[str]) -> str:
    """``StringArrayConfigurer.arrayToString``."""
    if not items:
        return ""
    return encode_sequence([check_token(i or "", "list item") for i in items], ",") or ""


class Field:
    """One type field: attribute ``name``, ``kind`` and VASSAL's reader
    default (used when the token is missing)."""

    __slots__ = ("name", "kind", "default")

    def __init__(self, name: str, kind: str, default: Any = "") -> None:
        self.name, self.kind, self.default = name, kind, default

    def decode(self, tok: str | None) -> Any:
        kind, default = self.kind, self.default
        if kind == "str":
            return default if tok is None else tok
        if kind == "int":
            return _int(tok, default)
        if kind == "bool":
            return default if tok is None else tok == "true"
        if kind == "double":
            return _float(tok, default)
        if kind == "key":
            return decode_key(tok, default)
        if kind == "keylist":
            return decode_key_list(tok)
        if kind == "char":
            return (tok[0] if tok else default) if tok is not None else default
        if kind == "strlist":
            return _str_array(tok, default or 0)
        raise AssertionError(kind)

    def encode(self, value: Any) -> Any:
        kind = self.kind
        if kind in ("str", "char"):
            if value is None:
                return ""
            if not isinstance(value, str):
                raise ValueError(f"field {self.name} takes a string, not {value!r}")
            return check_token(value, f"field {self.name}")
        if kind == "int":
            return int(value)
        if kind == "bool":
            return bool(value)
        if kind == "double":
            return java_double(float(value))
        if kind == "key":
            return encode_key(value)
        if kind == "keylist":
            return encode_key_list(value or [])
        if kind == "strlist":
            return _enc_str_array(list(value or []))
        raise AssertionError(kind)


# ------------------------------------------------------------------------ views
#: (view class, type string) -> decoded fields, shared by every view of that
#: type; bounded (cleared when full)
_DECODED: dict[tuple[type, str], dict[str, Any]] = {}
_DECODED_MAX = 20000
#: (type, state) of a Marker trait -> its properties (shared, read-only)
_MARKER_ITEMS: dict[tuple[str, str], dict[str, str]] = {}


class TraitView:
    """Read access to one trait.  Subclasses list their ``FIELDS`` in
    VASSAL's writer order; each field is an attribute of the view."""

    CLASS: ClassVar[str] = ""
    PREFIX: ClassVar[str] = ""
    SEP: ClassVar[str] = ";"
    FIELDS: ClassVar[tuple[Field, ...]] = ()
    _FIELD_NAMES: ClassVar[frozenset[str]] = frozenset()

    __slots__ = ("trait", "_values")

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "_FIELD_NAMES" not in cls.__dict__:
            cls._FIELD_NAMES = frozenset(f.name for f in cls.FIELDS)

    def __init__(self, trait: Trait) -> None:
        self.trait = trait
        self._values: dict[str, Any] | None = None

    # field access
    def fields(self) -> dict[str, Any]:
        """All type fields, decoded with VASSAL's reader defaults.  Read-only:
        views of equal type strings share one decoding (a replay meets the
        same trait types again and again)."""
        if self._values is None:
            key = (type(self), self.trait.type)
            values = _DECODED.get(key)
            if values is None:
                values = self._decode_type()
                if len(_DECODED) >= _DECODED_MAX:
                    _DECODED.clear()
                _DECODED[key] = values
            self._values = values
        return self._values

    def _decode_type(self) -> dict[str, Any]:
        body = self.trait.type[len(self.trait.prefix):]
        toks = decode_sequence(body, self.SEP)
        n = len(toks)
        return {f.name: f.decode(toks[i] if i < n else None) for i, f in enumerate(self.FIELDS)}

    def __getattr__(self, name: str) -> Any:
        if name in type(self)._FIELD_NAMES:
            return self.fields()[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    @property
    def java_class(self) -> str:
        """The Java class VASSAL builds for the trait."""
        return self.trait.java_class

    @property
    def type(self) -> str:
        return self.trait.type

    @property
    def state(self) -> str:
        return self.trait.state

    def encode_type(self) -> str:
        """Write the fields back as VASSAL's ``myGetType`` does."""
        return self._encode_fields(self.fields())

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        enc = SequenceEncoder(cls.SEP)
        for f in cls.FIELDS:
            enc.append(f.encode(values[f.name]))
        return cls.PREFIX + (enc.value or "")

    # building
    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The fields of a freshly constructed VASSAL trait (§3.4); for the
        few classes §3.4 gives no default for (BasicName, TranslatableMessage,
        MenuSeparator) the reader defaults of the bare prefix."""
        return dict(cls(Trait(DEFAULT_TYPES.get(cls.CLASS, cls.PREFIX), "")).fields())

    @classmethod
    def default_state(cls) -> str:
        """The state of a freshly constructed VASSAL trait (§3.4)."""
        return DEFAULT_STATES.get(cls.CLASS, "") or ""

    @classmethod
    def build_type(cls, **values: Any) -> str:
        """The type text with every field written; unset fields take the
        constructor defaults.  Unknown field names are a ``TypeError``."""
        unknown = set(values) - cls._FIELD_NAMES
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        merged = cls.defaults()
        merged.update(values)
        return cls._encode_fields(merged)

    @classmethod
    def build(cls, state: str | None = None, **values: Any) -> Trait:
        """A new :class:`Trait` with every field written (see
        :meth:`build_type`); ``state`` defaults to the constructor state."""
        if state is not None:
            check_token(state, "state")
        return Trait(cls.build_type(**values), cls.default_state() if state is None else state)

    # piece evaluation hooks: index i in ctx.views
    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        """This trait's answer to ``getProperty(key)`` or ``_MISSING``."""
        return _MISSING

    def name(self, ctx: _Context, i: int) -> str:
        """``getName()`` of the piece from this trait inward."""
        return ctx.name(i + 1)

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        """The properties this trait defines (for :func:`piece_properties`)."""
        return {}

    def answers_alone(self, key: str) -> bool:
        """Whether this trait's answer to ``getProperty(key)`` (where it
        answers it) is a function of its own type and state alone: no other
        trait of the chain, nor the piece's id, changes it (see
        :func:`property_source`).  False unless the class says so."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.trait.type!r}, state={self.trait.state!r})"


class RawTrait(TraitView):
    """A trait kept verbatim (no typed view): type and state as read."""

    def encode_type(self) -> str:
        return self.trait.type


def _f(spec: str) -> tuple[Field, ...]:
    """Compact field list: ``"name:kind=default"`` separated by spaces
    (kinds s str, i int, b bool, d double, k key, K keylist, c char, l list)."""
    kinds = {"s": "str", "i": "int", "b": "bool", "d": "double", "k": "key",
             "K": "keylist", "c": "char", "l": "strlist"}
    out = []
    for item in spec.split():
        name, _, rest = item.partition(":")
        kind, _, default = rest.partition("=")
        kd = kinds[kind]
        value: Any
        if kd == "int":
            value = int(default or 0)
        elif kd == "bool":
            value = default == "true"
        elif kd == "double":
            value = float(default or 0)
        elif kd == "key":
            value = decode_key(default.replace("/", ",")) if default else None
        elif kd == "strlist":
            value = int(default or 0)
        else:
            value = default.replace("~", " ")
        out.append(Field(name, kd, value))
    return tuple(out)


class BasicPiece(TraitView):
    """``piece;cloneKey;deleteKey;image;name`` (§3.3).  VASSAL cannot read a
    BasicPiece type with fewer than four fields."""

    CLASS = _P + "BasicPiece"
    PREFIX = "piece;"
    FIELDS = _f("clone_key:c delete_key:c image:s piece_name:s")

    def _decode_type(self) -> dict[str, Any]:
        toks = decode_sequence(self.trait.type[len(self.PREFIX):], ";")
        if len(toks) < 4:
            raise FormatError("BasicPiece type needs cloneKey;deleteKey;image;name "
                              f"(has {len(toks)} field(s)): {self.trait.type!r}",
                              place="trait (piece;)")
        return {f.name: f.decode(toks[i]) for i, f in enumerate(self.FIELDS)}

    def encode_type(self) -> str:
        v = self.fields()
        # BasicPiece.getType: a missing legacy char is written as nothing
        enc = SequenceEncoder(";", v["clone_key"] or "")
        enc.append(v["delete_key"] or "").append(v["image"]).append(v["piece_name"])
        return self.PREFIX + (enc.value or "")

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        enc = SequenceEncoder(";", check_token(values["clone_key"] or "", "clone key"))
        enc.append(check_token(values["delete_key"] or "", "delete key"))
        enc.append(check_token(values["image"] or "", "image"))
        enc.append(check_token(values["piece_name"] or "", "piece name"))
        return cls.PREFIX + (enc.value or "")

    def basic_state(self) -> BasicPieceState:
        """The parsed state (:class:`~vmodtool.vassal.pieces.BasicPieceState`)."""
        return parse_basic_state(self.trait.state, place="trait (piece;)")

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        if key == "BasicName":
            return self.piece_name
        if key == "PieceName":
            return ctx.name(0)
        st = ctx.basic_state()
        if key == "CurrentMap":
            return st.map or ""
        if key == "CurrentX":
            return str(st.x)
        if key == "CurrentY":
            return str(st.y)
        if key in ("LocationName", "CurrentBoard", "CurrentZone", "DeckName"):
            return ""
        if key == "DeckPosition":
            return "0"
        if key in ("StackPos", "StackSize"):
            return "1"
        if key == "PieceUID":
            return ctx.piece.id
        if key == "UniqueID":
            return st.properties.get("UniqueID")
        if key in st.properties:
            return st.properties[key]
        return None  # end of the chain: unknown

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        out: dict[str, Any] = dict(ctx.basic_state().properties)
        out["BasicName"] = self.piece_name
        return out

    def answers_alone(self, key: str) -> bool:
        # (the name is the whole chain's, the UID the piece's id; the rest is
        # this type's name or this state's map, position and properties)
        return key not in ("PieceName", "PieceUID")

    def name(self, ctx: _Context, i: int) -> str:
        value = ctx.prop(0, "BasicName")
        return "" if value is None else _prop_text(value)

    @classmethod
    def build(cls, state: str | None = None, **values: Any) -> Trait:
        if state is not None:
            check_token(state, "state")
        return Trait(cls.build_type(**values), cls.default_state() if state is None else state,
                     innermost=True)


class BasicName(TraitView):
    """``basicName;name``: overrides the BasicName property (the piece name)."""

    CLASS = _P + "BasicName"
    PREFIX = "basicName;"
    FIELDS = _f("basic_name:s")

    def _decode_type(self) -> dict[str, Any]:
        toks = decode_sequence(self.trait.type[len(self.PREFIX):], ";")
        return {"basic_name": toks[0]}

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        return self.basic_name if key == "BasicName" else _MISSING

    def answers_alone(self, key: str) -> bool:
        return True


class Marker(TraitView):
    """``mark;k1,k2`` with state ``v1,v2``: read-only properties (§3.4)."""

    CLASS = _P + "Marker"
    PREFIX = "mark;"
    SEP = ","
    FIELDS = ()

    @property
    def keys(self) -> list[str]:
        """The property names."""
        return decode_sequence(self.trait.type[len(self.PREFIX):], ",")

    @property
    def values(self) -> list[str]:
        """The values, one per key (missing values are empty)."""
        keys = self.keys
        vals = decode_sequence(self.trait.state, ",")[: len(keys)]
        return vals + [""] * (len(keys) - len(vals))

    def items(self) -> dict[str, str]:
        """Name → value (the first of duplicate names wins, as in VASSAL).
        Read-only: equal traits share one answer."""
        key = (self.trait.type, self.trait.state)
        out = _MARKER_ITEMS.get(key)
        if out is None:
            out = {}
            for k, v in zip(self.keys, self.values, strict=True):  # values are padded to the keys
                out.setdefault(k, v)
            if len(_MARKER_ITEMS) >= _DECODED_MAX:
                _MARKER_ITEMS.clear()
            _MARKER_ITEMS[key] = out
        return out

    def encode_type(self) -> str:
        return self.PREFIX + (encode_sequence(self.keys, ",") or "")

    @classmethod
    def build_type(cls, keys: Sequence[str] = (), **values: Any) -> str:
        if values:
            raise TypeError(f"Marker has no field(s) {sorted(values)}")
        return cls.PREFIX + (encode_sequence([check_token(k, "marker name") for k in keys], ",")
                             or "")

    @classmethod
    def build(cls, state: str | None = None, **values: Any) -> Trait:
        """``Marker.build(properties={"Side": "US"})`` (or ``keys=``/``state=``)."""
        props: dict[str, str] = dict(values.pop("properties", {}) or {})
        keys = list(values.pop("keys", props.keys()))
        if values:
            raise TypeError(f"Marker has no field(s) {sorted(values)}")
        if state is None:
            state = encode_sequence([check_token(str(props.get(k, "")), "marker value")
                                     for k in keys], ",") or ""
        return Trait(cls.build_type(keys), state)

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        items = self.items()
        return items[key] if key in items else _MISSING

    def answers_alone(self, key: str) -> bool:
        return True

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return self.items()


class DynamicProperty(TraitView):
    """``PROP;name;numeric,min,max,wrap;commands;description``, state = value."""

    CLASS = _P + "DynamicProperty"
    PREFIX = "PROP;"
    FIELDS = _f("key:s=name constraints:s key_commands:s description:s")

    def _decode_type(self) -> dict[str, Any]:
        values = super()._decode_type()
        c = decode_sequence(values.pop("constraints"), ",")
        values["numeric"] = c[0] == "true" if len(c) > 0 else False
        values["min_value"] = _int(c[1] if len(c) > 1 else None, 0)
        values["max_value"] = _int(c[2] if len(c) > 2 else None, 100)
        values["wrap"] = c[3] == "true" if len(c) > 3 else False
        return values

    _FIELD_NAMES = frozenset({"key", "numeric", "min_value", "max_value", "wrap",
                              "key_commands", "description"})

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        cons = SequenceEncoder(",").append(bool(values["numeric"])).append(
            int(values["min_value"])).append(int(values["max_value"])).append(
            bool(values["wrap"])).value
        cmds = values["key_commands"]
        if not isinstance(cmds, str):
            cmds = cls.encode_commands(cmds)
        enc = SequenceEncoder(";").append(check_token(values["key"], "property name"))
        enc.append(cons).append(cmds).append(check_token(values["description"], "description"))
        return cls.PREFIX + (enc.value or "")

    @staticmethod
    def encode_commands(commands: Sequence[tuple[str, NamedKeyStroke | None, str]]) -> str:
        """Encode ``(menu text, key, changer)`` triples; the changer is
        already written (``P,2``, ``I,-1``, ``R,prompt`` …), §3.4."""
        triples = []
        for menu, stroke, changer in commands:
            triples.append(SequenceEncoder(":").append(check_token(menu, "menu text")).append(
                encode_key(stroke)).append(check_token(changer, "changer")).value)
        return encode_sequence(triples, ",") or ""

    def commands(self) -> list[tuple[str, NamedKeyStroke | None, str]]:
        """The key commands as ``(menu text, key, changer)``."""
        out = []
        text = self.key_commands
        for item in decode_sequence(text, ",") if text else []:
            parts = decode_sequence(item, ":")
            out.append((parts[0], decode_key(parts[1] if len(parts) > 1 else ""),
                        parts[2] if len(parts) > 2 else ""))
        return out

    @property
    def value(self) -> str:
        """The current value (the state)."""
        return self.trait.state

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        return self.trait.state if key == self.key else _MISSING

    def answers_alone(self, key: str) -> bool:
        return True

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {self.key: self.trait.state}


class CalculatedProperty(TraitView):
    """``calcProp;name;expression;description``.  Only a constant or
    ``$prop$``-only expression is evaluated; a BeanShell ``{…}`` expression is
    not (its property then reads as the empty string)."""

    CLASS = _P + "CalculatedProperty"
    PREFIX = "calcProp;"
    FIELDS = _f("property_name:s expression:s description:s")

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        if not self.property_name or key != self.property_name:
            return _MISSING
        expr = self.expression
        if "{" in expr:
            return ""
        return _evaluate(ctx, expr, None)


class TranslatableMessage(TraitView):
    """``locmsg;key;description;message``: a translatable read-only property."""

    CLASS = _P + "TranslatableMessage"
    PREFIX = "locmsg;"
    FIELDS = _f("key:s=name description:s message:s")

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        return self.message if key == self.key else _MISSING

    def answers_alone(self, key: str) -> bool:
        return True

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {self.key: self.message}


class Embellishment(TraitView):
    """Layer, ``emb2;`` (and legacy ``emb;``), §3.4.  State: level value
    (>0 active at level value, <0 inactive remembering -value)."""

    CLASS = _P + "Embellishment"
    PREFIX = "emb2;"
    FIELDS = _f(
        "activate_command:s activate_modifiers:i=128 activate_key:s=A up_command:s "
        "up_modifiers:i=128 up_key:s down_command:s down_modifiers:i=128 down_key:s "
        "reset_command:s reset_key:k reset_level:s=1 draw_underneath:b x_off:i y_off:i "
        "image_names:l=1 level_names:l loop_levels:b=true layer_name:s "
        "rnd_key:k rnd_text:s follow_property:b property_name:s first_level_value:i=1 "
        "version:i always_active:b=true activate_keystroke:k increase_keystroke:k "
        "decrease_keystroke:k description:s scale:d=1.0 only_property_name:s "
        "only_property_state:s=true")

    def _decode_type(self) -> dict[str, Any]:
        if self.trait.prefix == "emb;":
            return self._decode_legacy()
        body = self.trait.type[len(self.PREFIX):]
        toks = decode_sequence(body, ";")
        n = len(toks)
        v: dict[str, Any] = {}
        for i, f in enumerate(self.FIELDS):
            tok = toks[i] if i < n else None
            if f.name == "level_names":
                v[f.name] = _str_array(tok, len(v["image_names"]))
            else:
                v[f.name] = f.decode(tok)
        v["_legacy_unconvertible"] = False
        if v["version"] == 0:
            # version 0: legacy keys converted, alwaysActive recomputed (§3.4 field 25)
            v["always_active"] = body == "Activate" or v["activate_key"] == ""
            if all(len(v[k]) <= 1 for k in ("activate_key", "up_key", "down_key")):
                for legacy, mods, stroke in (("activate_key", "activate_modifiers",
                                              "activate_keystroke"),
                                             ("up_key", "up_modifiers", "increase_keystroke"),
                                             ("down_key", "down_modifiers",
                                              "decrease_keystroke")):
                    ch = v[legacy]
                    v[stroke] = NamedKeyStroke(ord(ch), v[mods]) if ch else None
                v["version"] = 1
            else:
                v["_legacy_unconvertible"] = True
        return v

    def _decode_legacy(self) -> dict[str, Any]:
        # Embellishment.originalSetType (pre-2009 "emb;" encoding)
        toks = decode_sequence(self.trait.type, ";")
        pos = [1]

        def nxt(default: str | None = None) -> str | None:
            if pos[0] < len(toks):
                pos[0] += 1
                return toks[pos[0] - 1]
            return default

        v = {f.name: f.decode(None) for f in self.FIELDS}
        sub = decode_sequence(nxt("") or "", ";")
        v["activate_key"] = sub[0].upper()
        v["activate_modifiers"] = 128
        if len(sub) > 1:
            v["reset_command"] = sub[1]
            v["reset_key"] = decode_key(sub[2] if len(sub) > 2 else None)
            v["reset_level"] = sub[3] if len(sub) > 3 else "0"
        else:
            v["reset_command"], v["reset_key"], v["reset_level"] = "", None, "0"
        cmd = nxt("") or ""
        v["draw_underneath"] = cmd.startswith("_")
        v["activate_command"] = cmd[1:] if cmd.startswith("_") else cmd
        v["up_key"] = (nxt("") or "").upper()
        v["up_command"] = nxt("") or ""
        v["down_key"] = (nxt("") or "").upper()
        v["down_command"] = nxt("") or ""
        v["x_off"] = _int(nxt(), 0)
        v["y_off"] = _int(nxt(), 0)
        images, names = [], []
        while pos[0] < len(toks):
            parts = decode_sequence(nxt(), ",")
            images.append(parts[0])
            names.append(parts[1] if len(parts) > 1 else "")
        v["image_names"], v["level_names"] = images, names
        v["loop_levels"] = True
        v["always_active"] = v["activate_key"] == ""
        for legacy, stroke in (("activate_key", "activate_keystroke"),
                               ("up_key", "increase_keystroke"),
                               ("down_key", "decrease_keystroke")):
            ch = v[legacy]
            v[stroke] = NamedKeyStroke(ord(ch[0]), 130) if ch else None
        v["version"] = 1
        v["scale"] = 1.0
        v["_legacy_unconvertible"] = False
        return v

    @property
    def is_unconvertible_legacy(self) -> bool:
        """Version 0 with multi-character legacy keys: VASSAL falls back to
        its ``Embellishment0`` class."""
        return bool(self.fields()["_legacy_unconvertible"])

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        values = dict(values)
        n = len(values["image_names"] or [""])
        names = list(values["level_names"] or [])
        values["level_names"] = names + [""] * (n - len(names))
        return super()._encode_fields(values)

    @classmethod
    def build(cls, state: str | None = None, **values: Any) -> Trait:
        """Build a layer; ``version`` is always 1 (§3.4 field 25).  The state
        defaults to 1 (always active) or -1 (activatable)."""
        values.setdefault("version", 1)
        if state is None:
            always = values.get("always_active", cls.defaults()["always_active"])
            state = "1" if always else "-1"
        return super().build(state=state, **values)

    @property
    def can_be_activated(self) -> bool:
        """True when the layer has an on/off switch (not always active)."""
        v = self.fields()
        if v["_legacy_unconvertible"]:
            activate_key: str = v["activate_key"]
            return activate_key != ""
        return not v["always_active"]

    def raw_value(self) -> int:
        """The state value as VASSAL holds it after ``setState`` (clamped to
        ±number of levels; missing/invalid → -1)."""
        n = len(self.image_names)
        value = _int(decode_sequence(self.trait.state, ";")[0], -1)
        return min(max(-n, value), n)

    def _value(self, ctx: _Context | None, i: int) -> int:
        value = self.raw_value()
        if ctx is not None and self.follow_property and self.property_name:
            value = ctx.follow_level(i, self, value)
        return value

    @property
    def value(self) -> int:
        """The current level value (sign = active), without property following."""
        return self.raw_value()

    @property
    def active(self) -> bool:
        return self.raw_value() > 0

    def name(self, ctx: _Context, i: int) -> str:
        value = self._value(ctx, i)
        names = self.level_names
        cname = names[value - 1] if 0 < value and value - 1 < len(names) else None
        if cname:
            parts = decode_sequence(cname, "+")
            first = parts[0]
            if len(parts) > 1:
                if first == "":
                    return ctx.name(i + 1) + parts[1]
                return first + ctx.name(i + 1)
            return first
        return ctx.name(i + 1)

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        lname = self.layer_name
        if not key.startswith(lname):
            return _MISSING
        suffix = key[len(lname):]
        if suffix == "_Image":
            value = self._value(ctx, i)
            return self.image_names[value - 1] if value > 0 else ""
        if suffix == "_Name":
            value = self._value(ctx, i)
            return _strip_plus(self.level_names[value - 1]) if value > 0 else ""
        if suffix == "_Level":
            return str(self._value(ctx, i))
        if suffix == "_Active":
            return "true" if self.raw_value() > 0 else "false"
        return _MISSING

    def answers_alone(self, key: str) -> bool:
        # (a level that follows a property reads the rest of the chain)
        return not (self.follow_property and self.property_name)

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        lname = self.layer_name
        return {lname + s: self.own_property(ctx, i, lname + s)
                for s in ("_Level", "_Active", "_Name", "_Image")}


def _strip_plus(s: str | None) -> str | None:
    # Embellishment.strip: remove a leading "+" / trailing "+" marker
    if s is None:
        return None
    if s.startswith("+"):
        return s[1:].strip()
    if s.endswith("+"):
        return s[:-1].strip()
    return s


class Labeler(TraitView):
    """Text label, ``label;`` (§3.4); state = label text (trimmed on read)."""

    CLASS = _P + "Labeler"
    PREFIX = "label;"
    FIELDS = _f(
        "label_key:k menu_command:s=Change~label font_size:i=10 bg_color:s fg_color:s=0,0,0 "
        "vertical_pos:c=t vertical_offset:i horizontal_pos:c=c horizontal_offset:i "
        "vertical_just:c=b horizontal_just:c=c name_format:s=$pieceName$~($label$) "
        "font_family:s=Dialog font_style:i rotate_degrees:i property_name:s=TextLabel "
        "description:s always_use_format:b")

    def _decode_type(self) -> dict[str, Any]:
        v = super()._decode_type()
        v["name_format"] = v["name_format"].replace("$PieceName$", "$pieceName$")
        return v

    @property
    def label(self) -> str:
        """The label text as set (trimmed, references to its own property removed)."""
        s = self.trait.state.strip()
        ref = "$" + self.property_name + "$"
        while ref in s:
            s = s.replace(ref, "", 1)
        return s

    def text(self, ctx: _Context, i: int) -> str:
        """The evaluated label (its ``$prop$`` references resolved)."""
        return _evaluate(ctx, self.label, {"pieceName": ctx.name(i + 1)})

    def name(self, ctx: _Context, i: int) -> str:
        label = self.label
        if label == "" and not self.always_use_format:
            return ctx.name(i + 1)
        if not ctx.enter(("label", i)):
            return ""
        try:
            props = {"pieceName": ctx.name(i + 1), "label": self.text(ctx, i)}
            return _evaluate(ctx, self.name_format, props)
        finally:
            ctx.leave(("label", i))

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        return self.text(ctx, i) if key == self.property_name else _MISSING

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {self.property_name: self.text(ctx, i)}


class ReportState(TraitView):
    """``report;keys;format;cycleKeys;cycleFormats;description;noSuppress``."""

    CLASS = _P + "ReportState"
    PREFIX = "report;"
    FIELDS = _f("keys:K report_format:s=$location$:~$newPieceName$~* cycle_keys:K "
                "cycle_formats:l description:s no_suppress:b")


class Delete(TraitView):
    """``delete;commandName;key;description`` (reader default key Ctrl+D)."""

    CLASS = _P + "Delete"
    PREFIX = "delete;"
    FIELDS = _f("command_name:s key:k=68/130 description:s")


class Clone(TraitView):
    """``clone;commandName;key;description`` (reader default key Ctrl+C)."""

    CLASS = _P + "Clone"
    PREFIX = "clone;"
    FIELDS = _f("command_name:s key:k=67/130 description:s")


class UsePrototype(TraitView):
    """``prototype;name[;k=v,…]``.  Prototypes are not expanded here: for
    the name and properties the trait is transparent (as in VASSAL when the
    prototype is not defined)."""

    CLASS = _P + "UsePrototype"
    PREFIX = "prototype;"
    FIELDS = _f("prototype_name:s")

    def _decode_type(self) -> dict[str, Any]:
        toks = decode_sequence(self.trait.type[len(self.PREFIX):], ";")
        params: dict[str, str] | None = None
        if len(toks) > 1:
            params = {}
            for item in decode_sequence(toks[1], ","):
                kv = decode_sequence(item, "=")
                if len(kv) > 1:
                    params[kv[0]] = kv[1]
        return {"prototype_name": toks[0], "parameters": params}

    _FIELD_NAMES = frozenset({"prototype_name", "parameters"})

    def encode_type(self) -> str:
        return self.trait.type  # VASSAL writes back the type it was given

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        enc = SequenceEncoder(";").append(check_token(values["prototype_name"], "prototype name"))
        params = values.get("parameters")
        if params:
            enc.append(encode_sequence([SequenceEncoder("=").append(check_token(k, "key"))
                                        .append(check_token(v, "value")).value
                                        for k, v in params.items()], ","))
        return cls.PREFIX + (enc.value or "")


class MovementMarkable(TraitView):
    """``markmoved;`` (§3.4); state ``true``/``false`` = property ``Moved``."""

    CLASS = _P + "MovementMarkable"
    PREFIX = "markmoved;"
    FIELDS = _f("moved_icon:s x_offset:i y_offset:i command:s=Mark~Moved key:k=77/130 "
                "description:s ignore_same_location:b command_true:s=Mark~piece~as~moved "
                "key_true:k command_false:s=Mark~piece~as~unmoved key_false:k")

    @property
    def moved(self) -> bool:
        return self.trait.state == "true"

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        return ("true" if self.moved else "false") if key == "Moved" else _MISSING

    def answers_alone(self, key: str) -> bool:
        return True

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {"Moved": "true" if self.moved else "false"}


class Immobilized(TraitView):
    """``immob;selection;movement;stacking;description`` (§3.4)."""

    CLASS = _P + "Immobilized"
    PREFIX = "immob;"
    FIELDS = _f("selection_options:s movement_options:s stacking_options:s=R description:s")


class Hideable(TraitView):
    """Invisible, ``hide;``; state = id of the player who hid it or ``null``.
    Without a player a hidden piece is invisible to "me": its name is empty."""

    CLASS = _P + "Hideable"
    PREFIX = "hide;"
    FIELDS = _f("hide_key:k=73/130 command:s=Invisible bg_color:s access:s "
                "transparency:d=0.3 description:s disable_auto_report_move:b")

    @property
    def hidden_by(self) -> str | None:
        return None if self.trait.state == "null" else self.trait.state

    def name(self, ctx: _Context, i: int) -> str:
        return "" if self.hidden_by is not None else ctx.name(i + 1)

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {"InvisibleToOthers": "true" if self.hidden_by is not None else "false"}

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        if key == "InvisibleToOthers":
            return "true" if self.hidden_by is not None else "false"
        return _MISSING

    def answers_alone(self, key: str) -> bool:
        return True


class Obscurable(TraitView):
    """Mask, ``obs;`` (§3.4); state ``obscuredBy;options``.  Without a
    player a masked piece is obscured to "me": its name is the mask name."""

    CLASS = _P + "Obscurable"
    PREFIX = "obs;"
    FIELDS = _f("key_command:k image:s hide_command:s display_style:s=I mask_name:s=? "
                "access:s peek_command:s description:s auto_peek_rollover:b deal_key:k "
                "deal_expression:s")

    @property
    def obscured_by(self) -> str | None:
        tok = decode_sequence(self.trait.state, ";")[0]
        return None if tok == "null" else tok

    def name(self, ctx: _Context, i: int) -> str:
        if self.obscured_by is not None:
            mask_name: str = self.mask_name
            return mask_name
        return ctx.name(i + 1)

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        if key == "ObscuredToOthers":
            return "true" if self.obscured_by is not None else "false"
        return _MISSING

    def answers_alone(self, key: str) -> bool:
        return True

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        return {"ObscuredToOthers": "true" if self.obscured_by is not None else "false"}


class FreeRotator(TraitView):
    """Can rotate, ``rotate;`` (§3.4): the fields after the number of facings
    depend on it (1 = free rotation).  State: facing index (or degrees)."""

    CLASS = _P + "FreeRotator"
    PREFIX = "rotate;"
    _MULTI = _f("facings:i rotate_cw_key:k rotate_ccw_key:k rotate_cw_text:s rotate_ccw_text:s "
                "rotate_rnd_key:k rotate_rnd_text:s rotator_name:s description:s "
                "rotate_direct_key:k rotate_direct_text:s direct_expression:s "
                "direct_type_facing:b=true")
    _FREE = _f("facings:i set_angle_key:k set_angle_text:s rotate_rnd_key:k rotate_rnd_text:s "
               "rotator_name:s description:s rotate_direct_key:k rotate_direct_text:s "
               "direct_expression:s direct_type_facing:b=true")
    FIELDS = _MULTI
    _FIELD_NAMES = frozenset(f.name for f in _MULTI + _FREE)

    def _decode_type(self) -> dict[str, Any]:
        toks = decode_sequence(self.trait.type[len(self.PREFIX):], ";")
        facings = java_int(toks[0])
        if facings is None or facings < 1:
            raise FormatError(f"rotate; needs a number of facings, not {toks[0]!r}",
                              place="trait (rotate;)")
        fields = self._FREE if facings == 1 else self._MULTI
        n = len(toks)
        return {f.name: f.decode(toks[i] if i < n else None) for i, f in enumerate(fields)}

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        fields = cls._FREE if int(values["facings"]) == 1 else cls._MULTI
        enc = SequenceEncoder(";")
        for f in fields:
            enc.append(f.encode(values.get(f.name, f.default)))
        return cls.PREFIX + (enc.value or "")

    def own_properties(self, ctx: _Context, i: int) -> dict[str, Any]:
        name = self.rotator_name
        return {name + "_Facing": self.own_property(ctx, i, name + "_Facing"),
                name + "_Degrees": self.own_property(ctx, i, name + "_Degrees")}

    def own_property(self, ctx: _Context, i: int, key: str) -> Any:
        name = self.rotator_name
        n = self.facings
        if key not in (name + "_Facing", name + "_Degrees") or n == 1:
            return _MISSING
        index = _int(self.trait.state, 0)
        if not 0 <= index < n:
            index = 0
        if key == name + "_Facing":
            return str(index + 1)
        return str(int(round(abs(-index * (360.0 / n)))) % 360)

    def answers_alone(self, key: str) -> bool:
        return True


class SendToLocation(TraitView):
    """``sendto;`` (§3.4); state ``backMap;backX;backY``."""

    CLASS = _P + "SendToLocation"
    PREFIX = "sendto;"
    FIELDS = _f("command_name:s key:k map_id:s board_name:s x:s=0 y:s=0 back_command_name:s "
                "back_key:k x_index:s=0 y_index:s=0 x_offset:s=1 y_offset:s=1 description:s "
                "destination:s=L zone:s region:s property_filter:s grid_location:s")

    @classmethod
    def default_state(cls) -> str:
        return ";;"


class TriggerAction(TraitView):
    """``macro;`` (§3.4)."""

    CLASS = _P + "TriggerAction"
    PREFIX = "macro;"
    FIELDS = _f("trigger_name:s command:s=Trigger key:k=84/130 property_match:s watch_keys:K "
                "action_keys:K loop:b pre_loop_key:k post_loop_key:k loop_type:s=counted "
                "while_expression:s until_expression:s loop_count:s=1 index:b index_property:s "
                "index_start:s=1 index_step:s=1")


class CounterGlobalKeyCommand(TraitView):
    """``globalkey;`` (§3.4); ``target`` is the raw ``|``-joined block."""

    CLASS = _P + "CounterGlobalKeyCommand"
    PREFIX = "globalkey;"
    FIELDS = _f("command_name:s=Global~Command key:k=71/130 global_key:k=75/130 "
                "properties_filter:s restrict_range:b range:i=1 report_single:b=true "
                "fixed_range:b=true range_property:s description:s select_from_deck:s=-1 "
                "target:s suppress_sounds:b parameters:s")


class RestrictCommands(TraitView):
    """``hideCmd;name;Hide|Disable;propertyMatch;keys`` (§3.4)."""

    CLASS = _P + "RestrictCommands"
    PREFIX = "hideCmd;"
    FIELDS = _f("restriction_name:s action:s=Hide property_match:s watch_keys:K")


class Restricted(TraitView):
    """``restrict;sides;byPlayer;restrictMovement;description``; state = owner."""

    CLASS = _P + "Restricted"
    PREFIX = "restrict;"
    FIELDS = _f("sides:l restrict_by_player:b restrict_movement:b=true description:s")


class SubMenu(TraitView):
    """``submenu;menu;commands;description``."""

    CLASS = _P + "SubMenu"
    PREFIX = "submenu;"
    FIELDS = _f("menu:s commands:l description:s")


class Translate(TraitView):
    """Move fixed distance, ``translate;``."""

    CLASS = _P + "Translate"
    PREFIX = "translate;"
    FIELDS = _f("command_name:s=Move~Forward key:k=77/130 x_distance:s=0 y_distance:s=60 "
                "move_stack:b x_index:s=0 y_index:s=0 x_offset:s=0 y_offset:s=0 description:s")


class ReturnToDeck(TraitView):
    """``return;``."""

    CLASS = _P + "ReturnToDeck"
    PREFIX = "return;"
    FIELDS = _f("command:s key:k deck_id:s select_deck_prompt:s=Select~destination "
                "description:s version:i deck_select:b=true deck_expression:s")


class PlaceMarker(TraitView):
    """``placemark;`` (§3.4): an unset marker spec/text is the text ``null``."""

    CLASS = _P + "PlaceMarker"
    PREFIX = "placemark;"
    FIELDS = _f("command:s key:k marker_spec:s marker_text:s=null x_offset:s=0 y_offset:s=0 "
                "match_rotation:b after_burner_key:k description:s gpid:s placement:i "
                "above:b copy_dps_by_name:b parameters:s version:i")


class Replace(PlaceMarker):
    """``replace;`` (same fields as PlaceMarker)."""

    CLASS = _P + "Replace"
    PREFIX = "replace;"


class NonRectangular(TraitView):
    """``nonRect2;scale;shape`` (the shape is the unparsed remainder)."""

    CLASS = _P + "NonRectangular"
    PREFIX = "nonRect2;"
    FIELDS = _f("scale:d=1.0 shape:s")

    def _decode_type(self) -> dict[str, Any]:
        if self.trait.prefix != self.PREFIX:
            return {"scale": 1.0, "shape": self.trait.type[len(self.trait.prefix):]}
        body = self.trait.type[len(self.PREFIX):]
        head, sep, rest = body.partition(";")
        return {"scale": _float(head, 1.0), "shape": rest}

    @classmethod
    def _encode_fields(cls, values: dict[str, Any]) -> str:
        return f"{cls.PREFIX}{java_double(float(values['scale']))};{values['shape']}"


class AreaOfEffect(TraitView):
    """``AreaOfEffect;`` (§3.4); state ``true``/``false``."""

    CLASS = _P + "AreaOfEffect"
    PREFIX = "AreaOfEffect;"
    FIELDS = _f("transparency_color:s=128,128,128 transparency_level:i=30 radius:i=1 "
                "always_active:b=true activate_command:s=Show~area activate_key:k "
                "map_shader_name:s fixed_radius:b=true radius_marker:s description:s "
                "area_name:s on_menu_text:s on_key:k off_menu_text:s off_key:k "
                "globally_visible:b=true")


class Deselect(TraitView):
    """``deselect;``."""

    CLASS = _P + "Deselect"
    PREFIX = "deselect;"
    FIELDS = _f("command_name:s key:k=75/130 description:s unstack:b deselect_type:s=D")


class Footprint(TraitView):
    """Movement trail, ``footprint;``."""

    CLASS = _P + "Footprint"
    PREFIX = "footprint;"
    FIELDS = _f("trail_key:k menu_command:s=Movement~Trail initially_visible:b "
                "globally_visible:b circle_radius:i=10 fill_color:s=255,255,255 "
                "line_color:s=0,0,0 selected_transparency:i=100 unselected_transparency:i=50 "
                "edge_point_buffer:i=20 edge_display_buffer:i=30 line_width:d=1.0 "
                "trail_key_on:k trail_key_off:k trail_key_clear:k description:s")


class TableInfo(TraitView):
    """``table;rows;cols;command;key;description``."""

    CLASS = _P + "TableInfo"
    PREFIX = "table;"
    FIELDS = _f("rows:i=2 columns:i=2 command:s=Show~Data key:k description:s")


class PropertySheet(TraitView):
    """``propertysheet;definition;menu;launchChar;commitStyle;r;g;b;key;description``;
    its state is ``~``-separated values (VASSAL returns null for a new one)."""

    CLASS = _P + "PropertySheet"
    PREFIX = "propertysheet;"
    FIELDS = _f("definition:s menu_name:s launch_char:s commit_style:i red:s green:s blue:s "
                "launch_key:k description:s")


class MenuSeparator(TraitView):
    """``menuSeparator;description;key``."""

    CLASS = _P + "MenuSeparator"
    PREFIX = "menuSeparator;"
    FIELDS = _f("description:s key:k")


_VIEWS: dict[str, type[TraitView]] = {}
for _cls in (Embellishment, Marker, DynamicProperty, Labeler, ReportState, Delete, Clone,
             UsePrototype, MovementMarkable, Immobilized, Hideable, Obscurable, FreeRotator,
             SendToLocation, TriggerAction, CounterGlobalKeyCommand, RestrictCommands,
             Restricted, CalculatedProperty, BasicName, TranslatableMessage, SubMenu,
             Translate, ReturnToDeck, PlaceMarker, Replace, NonRectangular, AreaOfEffect,
             Deselect, Footprint, TableInfo, MenuSeparator, PropertySheet):
    _VIEWS[_cls.PREFIX] = _cls
_VIEWS["emb;"] = Embellishment
_VIEWS["nonRect;"] = NonRectangular


#: the ``name`` of a trait that passes the inner trait's name on
_PASSES_NAME = TraitView.name


def view_class_for(trait: Trait) -> type[TraitView]:
    """The view class used for ``trait`` (:class:`RawTrait` when none)."""
    if trait.innermost:
        return BasicPiece if trait.prefix == "piece;" else RawTrait
    return _VIEWS.get(trait.prefix, RawTrait)


def view_of(trait: Trait) -> TraitView:
    """A typed view of ``trait``."""
    return view_class_for(trait)(trait)


# ------------------------------------------------------------- piece evaluation
def _prop_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: a trait chain (its traits' types, outermost first, and the innermost
#: flag of each) -> property key -> the index of the trait that answers
#: ``getProperty(key)`` asked of the outermost trait (-1: none does).
#: Which trait answers a key is a function of the traits' types alone (every
#: ``own_property`` decides by its type's fields), so a chain learns it once,
#: on the first walk, and every piece of that type is then asked at that
#: trait only: the traits before it would all have said ``_MISSING``.
_SOURCES: dict[tuple[tuple[str, ...], tuple[bool, ...]], dict[str, int]] = {}


#: the piece whose chain :func:`_chain_sources` last looked up, and its
#: entry (a reader asks one piece several properties in a row)
_LAST_CHAIN: list[Any] = [None, None]


def _chain_sources(piece: PieceDef) -> dict[str, int]:
    last = _LAST_CHAIN
    if last[0] is piece:
        remembered: dict[str, int] = last[1]
        return remembered
    traits = piece.traits
    key = (tuple([t.type for t in traits]), tuple([t.innermost for t in traits]))
    found = _SOURCES.get(key)
    if found is None:
        if len(_SOURCES) >= _DECODED_MAX:
            _SOURCES.clear()
        found = _SOURCES[key] = {}
    last[0], last[1] = piece, found
    return found


class _Context:
    """Evaluation of one piece: property lookup from trait i inward."""

    __slots__ = ("piece", "views", "_active", "_basic_state", "_names", "_sources")

    def __init__(self, piece: PieceDef) -> None:
        self.piece = piece
        self.views = piece.views()
        self._active: set[Any] = set()
        self._basic_state: BasicPieceState | None = None
        self._names: dict[int, str] = {}
        self._sources: dict[str, int] | None = None

    def source(self, key: str) -> int:
        """The index of the trait answering ``getProperty(key)`` at the
        outermost trait, -1 when none does (learnt by one walk per chain)."""
        sources = self._sources
        if sources is None:
            sources = self._sources = _chain_sources(self.piece)
        j = sources.get(key)
        if j is None:
            j = -1
            for k in range(len(self.views)):
                if self.views[k].own_property(self, k, key) is not _MISSING:
                    j = k
                    break
            sources[key] = j
        return j

    def basic_state(self) -> BasicPieceState:
        if self._basic_state is None:
            basic = self.piece.basic
            if basic.prefix == "piece;":
                self._basic_state = parse_basic_state(
                    basic.state, place=f"trait {len(self.views)} (piece;)")
            else:
                self._basic_state = BasicPieceState()
        return self._basic_state

    def enter(self, token: Any) -> bool:
        if token in self._active:
            return False
        self._active.add(token)
        return True

    def leave(self, token: Any) -> None:
        self._active.discard(token)

    def name(self, i: int) -> str:
        views = self.views
        n = len(views)
        # a trait that passes the name on (``TraitView.name``) is skipped: the
        # name is the next naming trait's, and a loop back into the skipped
        # ones meets that trait's guard as it would have met theirs
        while i < n and type(views[i]).name is _PASSES_NAME:
            i += 1
        if i >= n:
            return ""
        token = ("name", i)
        if not self.enter(token):
            return ""  # VASSAL's RecursionLimiter: stop the loop
        try:
            return self.views[i].name(self, i)
        finally:
            self.leave(token)

    def prop(self, i: int, key: str) -> Any:
        token = ("prop", i, key)
        if not self.enter(token):
            return None
        try:
            if i == 0:
                j = self.source(key)
                return None if j < 0 else self.views[j].own_property(self, j, key)
            for j in range(i, len(self.views)):
                value = self.views[j].own_property(self, j, key)
                if value is not _MISSING:
                    return value
            return None
        finally:
            self.leave(token)

    def follow_level(self, i: int, emb: Embellishment, value: int) -> int:
        """Embellishment.checkPropertyLevel: the level follows a property."""
        token = ("follow", i)
        if not self.enter(token):
            return value
        try:
            name = emb.property_name.strip()
            if name.startswith("{") and name.endswith("}"):
                return value  # BeanShell expression: not evaluated
            val = self.prop(0, name)
            text = "" if val is None else _prop_text(val)
            first: int = emb.first_level_value
            if text == "":
                text = str(first)
            level = java_int(text)
            if level is None:
                return value  # VASSAL reports the error and keeps the value
            v = level - first + 1
            n = len(emb.image_names)
            v = max(1, min(v, n))
            return v if value > 0 else -v
        finally:
            self.leave(token)


def _evaluate(ctx: _Context, fmt: str, props: dict[str, str] | None) -> str:
    """``FormattedString.getText`` on the outermost piece (§3.1.5): the
    expression kind is chosen as ``Expression.createExpression`` does —
    blank → "", ``{…}`` → BeanShell (not evaluated: ""), an integer → its
    ``int`` value, text with ``$`` → ``$prop$`` substitution (an unknown
    property is replaced by its own name), anything else verbatim."""
    if fmt is None or fmt.strip() == "":
        return ""
    t = fmt.strip()
    if t.startswith("{") and t.endswith("}"):
        return ""
    value = java_int(t)
    if value is not None:
        return str(value)
    if "$" not in t:
        return fmt
    out: list[str] = []
    tokens = decode_sequence(t, "$")
    is_prop = True
    last = len(tokens) - 1
    for k, token in enumerate(tokens):
        is_prop = not is_prop
        if not token:
            continue
        if not is_prop or k == last:
            out.append(token)
        elif props is not None and token in props:
            if props[token] is not None:
                out.append(props[token])
        else:
            val = ctx.prop(0, token)
            out.append(token if val is None else _prop_text(val))
    return "".join(out)


def piece_name(piece: PieceDef) -> str:
    """VASSAL's ``getName()`` of the outermost trait, for a piece in a
    palette (no map, no player, prototypes not expanded):

    * BasicPiece: the ``BasicName`` property of the outermost trait, i.e. the
      BasicPiece name unless a ``basicName;`` trait overrides it;
    * Layer: the current level's name — ``+ text`` appends to, ``text +``
      prefixes the inner name, other text replaces it; levels follow their
      property where configured;
    * Label: with a non-empty label (or "always use format") the name format
      with ``$pieceName$``/``$label$`` and other properties substituted;
    * Mask with an owner: the mask name; Invisible with an owner: ``""``;
    * every other trait: the inner piece's name.
    """
    if piece.basic.prefix != "piece;":
        return ""
    return _Context(piece).name(0)


def piece_property(piece: PieceDef, key: str) -> str | None:
    """``getProperty(key)`` on the outermost trait (``None`` if undefined)."""
    value = _Context(piece).prop(0, key)
    return None if value is None else _prop_text(value)


def property_sources(piece: PieceDef, keys: Iterable[str]) -> list[tuple[int, bool] | None]:
    """For each key, which trait answers ``getProperty(key)`` on the
    outermost trait of ``piece``: its index (outermost first) and whether
    its answer is a function of that trait's own type and state alone
    (:meth:`TraitView.answers_alone`), so that every piece of the same trait
    types whose trait there has the same state has the same value; None when
    no trait answers (the value is then ``None`` for every such piece).
    Raises what the property's read raises (a trait type that cannot be
    decoded)."""
    ctx = _Context(piece)
    out: list[tuple[int, bool] | None] = []
    for key in keys:
        j = ctx.source(key)
        out.append(None if j < 0 else (j, ctx.views[j].answers_alone(key)))
    return out


def piece_properties(piece: PieceDef) -> dict[str, str]:
    """The properties a rules checker reads, outermost definition winning:

    Marker names → values; DynamicProperty name → value; TranslatableMessage
    key → message; Label property → evaluated label; Layer
    ``<layer>_Level``/``_Active``/``_Name``/``_Image``; ``Moved``
    (Mark when moved); Can rotate ``<name>_Facing``/``_Degrees``;
    ``ObscuredToOthers``/``InvisibleToOthers``; ``BasicName`` and the
    BasicPiece's persistent properties; plus ``PieceName``.
    CalculatedProperty values are left out (BeanShell is not evaluated)."""
    ctx = _Context(piece)
    out: dict[str, str] = {}
    for i in range(len(ctx.views) - 1, -1, -1):
        for key, value in ctx.views[i].own_properties(ctx, i).items():
            if value is not None and value is not _MISSING:
                out[key] = _prop_text(value)
    if piece.basic.prefix == "piece;":
        out["PieceName"] = ctx.name(0)
    return out


def build_piece(*traits: Trait, id: str | None = None) -> PieceDef:
    """``build_piece(Delete.build(), BasicPiece.build(image=…, piece_name=…))``:
    a :class:`PieceDef` from built traits, outermost first."""
    return PieceDef.from_traits(traits, id)
