"""Lint of piece definitions and their traits (``docs/vassal-format.md`` §3,
§6.7): definitions VASSAL cannot decode, unknown or malformed traits,
fields ending with a backslash, legacy layers, and the trait colours and
key strokes VASSAL cannot read.  Walking the traits also collects what other
checks need: image names, prototype uses, place-marker gpids."""

from __future__ import annotations

from typing import Any

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.lint.attributes import colour_problem, key_problem
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.sequence import decode_sequence
from vmodtool.vassal.traits import TraitView

__all__ = ["parse_definition", "walk_traits", "report_legacy_layers"]


register = registrar(__name__)

register("bad-piece-definition", "error",
         "a piece definition cannot be decoded (not +/id/type/state, or no basic "
         "piece)")
register("state-levels", "error",
         "a piece definition has fewer state levels than traits: VASSAL throws 'no "
         "state for trait'")
register("bad-trait", "error",
         "a trait's type cannot be decoded by VASSAL (too few fields, bad number)")
register("unknown-trait", "warning",
         "a trait prefix VASSAL does not know: it becomes a dummy Marker and its "
         "behaviour is lost")
register("trailing-backslash", "warning",
         "a trait field ends with a backslash (or has swallowed the next trait that "
         "way): VASSAL's encoder merges it with the next field")
register("legacy-layer", "info",
         "layers (emb2;) with version 0 or the old emb; encoding: VASSAL converts their "
         "keys and recomputes 'always active' on load")


def _backslash_before_tab(text: str) -> int | None:
    """The 1-based trait whose type ends with a backslash, from the raw
    definition: the TAB below trait k is written with k-1 backslashes in
    front (§3.1.3); one more means the field before it ended with ``\\``."""
    if not text.startswith("+/") or "placemark;" in text or "replace;" in text:
        return None
    parts = decode_sequence(text[2:], "/")
    if len(parts) < 2:
        return None
    type_text = parts[1]
    position = type_text.find("\t")
    level = 0
    while position >= 0:
        count = 0
        while position - count - 1 >= 0 and type_text[position - count - 1] == "\\":
            count += 1
        if count > level:
            return level + 1
        level += 1
        position = type_text.find("\t", position + 1)
    return None


#: trait colour fields (ColorConfigurer.stringToColor)
_TRAIT_COLOURS: dict[str, tuple[str, ...]] = {
    "label;": ("bg_color", "fg_color"), "hide;": ("bg_color",),
    "AreaOfEffect;": ("transparency_color",), "footprint;": ("fill_color", "line_color"),
}


def parse_definition(run: LintRun, text: str, element: etree._Element,
                     what: str) -> PieceDef | None:
    """The decoded piece definition, or ``None`` with a finding."""
    try:
        return PieceDef.parse(text)
    except VmodError as err:
        code = "state-levels" if "no state for this trait" in err.message else \
            "bad-piece-definition"
        place = f" ({err.place})" if err.place else ""
        run.add(code, f"{what}: {err.message}{place}", element)
        level = _backslash_before_tab(text)
        if level is not None:
            run.add("trailing-backslash", f"{what}: the last field of trait {level} ends "
                    "with a backslash, which escaped the TAB after it: the traits below "
                    "it were swallowed", element)
        return None


def walk_traits(run: LintRun, piece: PieceDef, element: etree._Element,
                uses: list[tuple[str, etree._Element]], *, in_prototype: bool,
                depth: int = 0) -> None:
    """Check every trait of ``piece`` and collect images, prototype
    uses and place-marker gpids."""
    for index, trait in enumerate(piece.traits):
        prefix = trait.prefix
        where = f"trait {index + 1} ({prefix})"
        if not trait.innermost and not trait.known:
            run.add("unknown-trait", f"{where}: VASSAL does not know the trait prefix "
                    f"{prefix!r}: it becomes a dummy Marker", element,
                    detail={"prefix": prefix})
            continue
        view = trait.view()
        try:
            values = view.fields()
        except VmodError as err:
            run.add("bad-trait", f"{where}: {err.message}", element)
            continue
        if prefix in ("placemark;", "replace;"):
            _walk_marker(run, values, element, where, in_prototype=in_prototype, depth=depth)
        else:
            _collect(run, trait, values, element, uses)
        _check_colours(run, prefix, values, element, where)
        tokens = _check_keys(run, trait, view, element, where)
        spec_index = 2 if prefix in ("placemark;", "replace;") else -1
        if any(t.endswith("\\") or ("\t" in t and i != spec_index)
               for i, t in enumerate(tokens)):
            run.add("trailing-backslash", f"{where}: a field ends with a backslash, or "
                    "holds the next trait because a backslash escaped the TAB after it "
                    "(VASSAL's encoder joins such a field with the next one)", element)


def _collect(run: LintRun, trait: Trait, values: dict[str, Any], element: etree._Element,
             uses: list[tuple[str, etree._Element]]) -> None:
    """What a trait names: images, a prototype (expanded in place), and
    whether it is a legacy layer."""
    prefix = trait.prefix
    if prefix == "piece;":
        run.ref_image(values["image"], element, "BasicPiece image")
    elif prefix in ("emb2;", "emb;"):
        for image in values["image_names"]:
            run.ref_image(image, element, f"Layer {values['layer_name']!r} image")
        if prefix == "emb;" or _raw_field(trait, 24) in (None, "", "0") \
                or values.get("_legacy_unconvertible"):
            run.legacy_layers.append(element)
    elif prefix == "obs;":
        run.ref_image(values["image"], element, "Mask image")
        style = values["display_style"]
        if style.startswith("G") and len(style) > 1:
            run.ref_image(style[1:], element, "Mask 'image' style")
    elif prefix == "markmoved;":
        run.ref_image(values["moved_icon"], element, "Mark When Moved icon")
    elif prefix == "prototype;":
        uses.append((values["prototype_name"], element))  # expanded in place


def _walk_marker(run: LintRun, values: dict[str, Any], element: etree._Element, where: str, *,
                 in_prototype: bool, depth: int) -> None:
    """A place/replace-marker trait: its gpid, and the piece it places
    (walked as a piece of its own, its prototype uses kept apart)."""
    if depth == 0:
        run.gpids.append((values["gpid"], element, f"{where} gpid"))
    spec = values["marker_spec"]
    if spec.startswith("+/") and depth < 3:
        inner = parse_definition(run, spec, element, f"{where} marker definition")
        if inner is not None:
            marker_uses: list[tuple[str, etree._Element]] = []
            walk_traits(run, inner, element, marker_uses, in_prototype=in_prototype,
                        depth=depth + 1)
            run.marker_refs.extend(marker_uses)


def _check_colours(run: LintRun, prefix: str, values: dict[str, Any], element: etree._Element,
                   where: str) -> None:
    for name in _TRAIT_COLOURS.get(prefix, ()):
        why = colour_problem(values.get(name))
        if why:
            run.add("bad-colour", f"{where} {name}={values.get(name)!r} is not a "
                    f"colour ({why}): VASSAL uses black", element)


def _check_keys(run: LintRun, trait: Trait, view: TraitView, element: etree._Element,
                where: str) -> list[str]:
    """The key strokes of a trait decoded field by field (a trait whose
    view decodes its own type has none checked); its type's fields."""
    prefix = trait.prefix
    generic = type(view)._decode_type is TraitView._decode_type or prefix == "emb2;"
    if not generic:
        return decode_sequence(trait.type[len(prefix):], view.SEP) if prefix.endswith(";") else []
    tokens = decode_sequence(trait.type[len(prefix):], view.SEP)
    for position, fld in enumerate(view.FIELDS[:len(tokens)]):
        token = tokens[position]
        if fld.kind == "key":
            items = [token]
        elif fld.kind == "keylist" and "," in token:
            items = decode_sequence(token, ",")
        else:
            continue
        for item in items:
            problem = key_problem(item, legacy_char=True)
            if problem:
                run.add(problem[0], f"{where} {fld.name} {item!r}: {problem[1]}", element)
    return tokens


def report_legacy_layers(run: LintRun) -> None:
    """One finding for every legacy layer walked (at the first)."""
    if run.legacy_layers:
        run.add("legacy-layer", f"{len(run.legacy_layers)} layer trait(s) use the legacy "
                "encoding (emb2; version 0 or emb;); VASSAL converts them on load (the "
                "first is here)", run.legacy_layers[0],
                detail={"count": len(run.legacy_layers)})


def _raw_field(trait: Trait, index: int) -> str | None:
    tokens = decode_sequence(trait.type[len(trait.prefix):], ";")
    return tokens[index] if index < len(tokens) else None
