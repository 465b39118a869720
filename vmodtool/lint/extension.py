"""Lint of a module extension (``.vmdx``/``.vext``, ``docs/vassal-format.md``
§1.5) against the module it extends: an extension with nothing in it
(VASSAL fails on it), an ``ExtensionElement`` that wraps no component,
a target path that names no component of the module (VASSAL does not load
the extension), and an extension built for another module.  Without the
module (``vmodtool lint ext.vmdx --module game.vmod``) what only the module
can answer — the targets, the module's prototypes and images — is said to
be not checked, never reported as missing."""

from __future__ import annotations

from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun
from vmodtool.vassal.extension import TargetError, extension_elements, resolve_target

__all__ = ["check_extension"]

register = registrar(__name__)

register("empty-extension", "error",
         "an extension with no ExtensionElement: VASSAL fails on an empty extension")
register("empty-extension-element", "error",
         "an ExtensionElement that wraps no component: VASSAL fails adding nothing to its target")
register("missing-target", "error",
         "an ExtensionElement's target names no component of the module: VASSAL does not load the extension")
register("wrong-base-module", "error",
         "the extension was built for another module (its 'module' attribute): VASSAL does not load it")
register("extension-not-checked", "info",
         "an extension linted without its module: its targets and what it uses of the module "
         "(prototypes, images) were not checked")


def check_extension(run: LintRun) -> None:
    """The checks of an extension's own structure and, with ``run.base``,
    of its targets and module name against the module."""
    bf = run.bf
    if not bf.is_extension:
        return
    elements = extension_elements(bf.root)
    if not elements:
        run.add("empty-extension", "the extension has no ExtensionElement: VASSAL fails on an empty "
                "extension", bf.root)
    for element, wrapped in elements:
        if wrapped is None:
            run.add("empty-extension-element", f"ExtensionElement (target {element.get('target', '')!r}) "
                    "wraps no component", element)
    base = run.base
    if base is None:
        run.add("extension-not-checked", f"an extension linted without its module: {len(elements)} "
                f"target(s), {len(run.unresolved_prototypes)} prototype name(s) and the images it does not "
                "hold were not checked (give --module)", bf.root,
                detail={"targets": len(elements), "prototypes": sorted(run.unresolved_prototypes)})
        return
    built_for = bf.root.get("module", "")
    if bf.root.get("anyModule", "false") != "true" and built_for != base.name:
        run.add("wrong-base-module", f"the extension was built for the module {built_for!r}, not "
                f"{base.name!r}", bf.root, detail={"module": built_for, "given": base.name})
    for element, _ in elements:
        target = element.get("target", "")
        try:
            resolve_target(base.buildfile.root, target)
        except TargetError as exc:
            run.add("missing-target", f"target {target!r}: {exc}", element, detail={"target": target})
