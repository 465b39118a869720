"""Lint of pieces and prototypes (``docs/vassal-format.md`` §3, §6.7):
prototypes that are missing, unused, defined twice or in a cycle, and pieces
whose state-changing commands no Report Action makes visible in logs."""

from __future__ import annotations

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun
from vmodtool.lint.traits import parse_definition, report_legacy_layers, walk_traits
from vmodtool.vassal.pieces import PieceDef, Trait

__all__ = ["check_pieces"]


register = registrar(__name__)

register("unknown-prototype", "error",
         "a prototype; trait names no PrototypeDefinition: the piece silently lacks "
         "those traits")
register("prototype-cycle", "error",
         "prototypes that use each other in a cycle")
register("duplicate-prototype", "warning",
         "two PrototypeDefinitions share a name; the later one replaces the earlier")
register("unused-prototype", "info",
         "a PrototypeDefinition that no piece uses")
register("no-report-state", "warning",
         "a piece with commands that change its state but no Report Action "
         "(report;), even through its prototypes: those actions are silent in logs")


def check_pieces(run: LintRun) -> None:
    """Every prototype and piece slot: their definitions and traits
    (:mod:`vmodtool.lint.traits`), then the prototypes they use."""
    refs = _prototypes(run)
    _check_prototype_cycles(run)
    refs += _piece_slots(run)
    _check_prototype_uses(run, refs + run.marker_refs)
    report_legacy_layers(run)


def _prototypes(run: LintRun) -> list[tuple[str, etree._Element]]:
    """Walk the PrototypeDefinitions; the prototypes they use."""
    bf = run.bf
    refs: list[tuple[str, etree._Element]] = []
    for element in bf.components("PrototypeDefinition"):
        name = element.get("name", "")
        if name in run.prototype_elements:
            run.add("duplicate-prototype", f"prototype {name!r} is also defined at line "
                    f"{bf.line_of(run.prototype_elements[name])}; this later definition "
                    "replaces it", element)
        run.prototype_elements[name] = element
        piece = parse_definition(run, bf.text_of(element), element, f"prototype {name!r}")
        run.prototype_defs[name] = piece
        uses: list[tuple[str, etree._Element]] = []
        if piece is not None:
            walk_traits(run, piece, element, uses, in_prototype=True)
        run.prototype_uses[name] = {n for n, _ in uses}
        refs.extend(uses)
    return refs


def _piece_slots(run: LintRun) -> list[tuple[str, etree._Element]]:
    """Walk the piece slots (noting their gpids for :mod:`vmodtool.lint.gpids`);
    the prototypes they use."""
    refs: list[tuple[str, etree._Element]] = []
    for slot in run.bf.piece_slots():
        element = slot.element
        what = f"{slot.kind} {slot.entry_name!r}" if slot.entry_name else slot.kind
        run.gpids.append((slot.gpid, element, what))
        piece = parse_definition(run, slot.definition, element, what)
        if piece is None:
            continue
        uses: list[tuple[str, etree._Element]] = []
        walk_traits(run, piece, element, uses, in_prototype=False)
        refs.extend(uses)
        _check_report_state(run, piece, element, what)
        if piece.basic.prefix == "piece;":
            try:
                state_gpid = piece.basic_state().gpid
            except VmodError:
                state_gpid = ""
            if state_gpid and state_gpid != slot.gpid:
                run.state_gpid_mismatch.append(element)
    return refs


def _check_prototype_uses(run: LintRun, refs: list[tuple[str, etree._Element]]) -> None:
    """Prototypes used but not defined, and defined but not used."""
    reported: set[tuple[int, str]] = set()
    for name, element in refs:
        run.used_prototypes.add(name)
        if name in run.prototype_defs or "$" in name:
            continue
        if (id(element), name) in reported:
            continue
        reported.add((id(element), name))
        if run.unchecked_extension:          # the module's, perhaps: not looked up
            run.unresolved_prototypes.add(name)
            continue
        run.add("unknown-prototype", f"prototype {name!r} is not defined: the piece lacks "
                "its traits", element, detail={"prototype": name})
    for name, element in run.prototype_elements.items():
        if name not in run.used_prototypes:
            run.add("unused-prototype", f"prototype {name!r} is not used by any piece",
                    element)


def _check_prototype_cycles(run: LintRun) -> None:
    state: dict[str, int] = {}
    reported: set[frozenset[str]] = set()

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        stack.append(name)
        for used in sorted(run.prototype_uses.get(name, ())):
            if used not in run.prototype_uses:
                continue
            if state.get(used) == 1:
                cycle = stack[stack.index(used):]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    run.add("prototype-cycle", "prototypes use each other in a cycle: "
                            + " → ".join(repr(n) for n in cycle + [used]),
                            run.prototype_elements[used])
            elif state.get(used) is None:
                visit(used, stack)
        stack.pop()
        state[name] = 2

    for name in run.prototype_uses:
        if name not in state:
            visit(name, [])


def _summary(run: LintRun, piece: PieceDef, seen: tuple[str, ...]) -> tuple[bool, list[str]]:
    """(has a report; trait, the state-changing commands) of a piece,
    its prototypes expanded."""
    has_report = False
    changers: list[str] = []
    for trait in piece.decorators:
        prefix = trait.prefix
        if prefix == "report;":
            has_report = True
        elif prefix == "prototype;":
            try:
                name = trait.view().prototype_name
            except VmodError:
                continue
            if name in seen:
                continue
            if name not in run.proto_summary:
                proto = run.prototype_defs.get(name)
                run.proto_summary[name] = (_summary(run, proto, seen + (name,))
                                            if proto is not None else (False, []))
            sub_report, sub_changers = run.proto_summary[name]
            has_report = has_report or sub_report
            changers.extend(sub_changers)
        else:
            label = _state_changer(trait)
            if label:
                changers.append(label)
    return has_report, changers


def _check_report_state(run: LintRun, piece: PieceDef, element: etree._Element, what: str) -> None:
    if run.unchecked_extension and any(
            t.prefix == "prototype;" and _prototype_name(t) not in run.prototype_defs for t in piece.decorators):
        return                               # what its module's prototypes give it is unknown
    has_report, changers = _summary(run, piece, ())
    if changers and not has_report:
        shown = ", ".join(dict.fromkeys(changers[:4]))
        run.add("no-report-state", f"{what} has no Report Action (report;), even through "
                f"its prototypes: its commands ({shown}) leave no trace in logs", element)


def _prototype_name(trait: Trait) -> str:
    try:
        name: str = trait.view().prototype_name
    except VmodError:
        return ""
    return name


def _state_changer(trait: Trait) -> str | None:
    """A label when the trait has a command that changes the piece's state
    (what a Report Action makes visible in logs), else ``None``."""
    prefix = trait.prefix
    try:
        view = trait.view()
        if prefix in ("emb2;", "emb;"):
            keys = [view.increase_keystroke, view.decrease_keystroke, view.reset_key,
                    view.rnd_key]
            if view.can_be_activated:
                keys.append(view.activate_keystroke)
            return f"layer {view.layer_name!r}" if any(keys) else None
        if prefix == "PROP;":
            return f"property {view.key!r}" if view.key_commands else None
        if prefix == "rotate;":
            return "rotate"
        if prefix == "hide;":
            return "invisible" if view.hide_key is not None else None
        if prefix == "obs;":
            return "mask" if view.key_command is not None else None
        if prefix == "markmoved;":
            return "mark moved" if view.key is not None else None
        if prefix == "label;":
            return "text label" if view.label_key is not None or view.menu_command else None
    except (VmodError, AttributeError, IndexError):
        return None
    return None
