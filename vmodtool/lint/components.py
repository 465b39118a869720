"""Lint of the components themselves: each element's attributes and
references (one walk of the buildFile), piece definitions hidden in CDATA,
component classes outside VASSAL, and the standard components VASSAL adds
when they are missing."""

from __future__ import annotations

from lxml import etree

from vmodtool.lint.attributes import check_attributes
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, short_tag
from vmodtool.lint.references import collect_references
from vmodtool.vassal.buildfile import vassal_text

__all__ = ["check_elements", "check_standard_components"]


register = registrar(__name__)

register("cdata-definition", "error",
         "a piece definition is in a CDATA section, which VASSAL's Builder.getText "
         "skips: the piece vanishes")
register("custom-class", "info",
         "a component class outside VASSAL (it must be in the module's own classes)")
register("missing-class", "error",
         "a component class outside VASSAL whose .class file is not in the archive: "
         "'failed to load class'")
register("missing-standard-component", "info",
         "a standard module component is missing; VASSAL adds it silently, so its "
         "re-serialisation differs from the file")

_P = "VASSAL.build."
_STANDARD = ("module.BasicCommandEncoder", "module.Documentation", "module.PlayerRoster",
             "module.GlobalOptions", "module.Chatter", "module.KeyNamer", "module.PrototypesContainer",
             "module.properties.GlobalProperties",
             "module.properties.GlobalTranslatableMessages")


def check_elements(run: LintRun) -> None:
    """Attribute values, image/file references, CDATA, custom classes."""
    custom: dict[str, list[etree._Element]] = {}
    root = run.bf.root
    for element in root.iter():
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if element is not root:
            check_attributes(run, element, tag)
            if "." in tag and not tag.startswith("VASSAL."):
                custom.setdefault(tag, []).append(element)
        collect_references(run, element, tag)
        if short_tag(tag) in ("PieceSlot", "CardSlot", "PrototypeDefinition"):
            own = run.bf.text_of(element)
            merged = vassal_text(element)
            if own != merged:
                run.add("cdata-definition", "the piece definition is (partly) in a CDATA "
                        "section, which VASSAL skips: it reads "
                        + (repr(own[:40]) if own else "nothing"), element)
    for tag, elements in custom.items():
        class_file = tag.replace(".", "/") + ".class"
        if run.has_archive and class_file not in run.files:
            run.add("missing-class", f"component class {tag} ({len(elements)} element(s)) "
                    f"is not VASSAL's and '{class_file}' is not in the archive: VASSAL "
                    "reports 'failed to load class' and skips it", elements[0])
        else:
            where = "its class is in the archive" if run.has_archive else \
                "its class must be in the module archive"
            run.add("custom-class", f"component class {tag} ({len(elements)} element(s)) is "
                    f"not part of VASSAL; {where}", elements[0])


def check_standard_components(run: LintRun) -> None:
    """The standard components VASSAL adds when a module lacks them."""
    bf = run.bf
    if bf.is_extension:
        return
    present = {str(child.tag) for child in bf.root if isinstance(child.tag, str)}
    missing = [name for name in _STANDARD if _P + name not in present]
    if "VASSAL.i18n.Language" not in present:
        missing.append("i18n.Language")
    if missing:
        run.add("missing-standard-component",
                "missing (VASSAL adds them silently): " + ", ".join(
                     n.rsplit(".", 1)[-1] for n in missing), bf.root,
                detail={"missing": missing})
