"""Scenario → VASSAL module: the buildFile components, piece definitions,
images and the .vmod archive; plus lint for any module::

    from vmodtool.build import build_module_file, lint_module
    build_module_file("scenario.yaml", "game.vmod")     # the whole pipeline
    findings = lint_module(Module.open("game.vmod"))    # any module, ours or not

:func:`assemble_module` is the pure step in between (scenario + rendered
images → buildFile and archive entries).  Names are imported on first use
(PEP 562): importing the package loads none of its modules until one of
their names is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.build.builder import BuildSummary, build_module_file
    from vmodtool.build.images import render_module_images
    from vmodtool.build.lint import CODES, Finding, findings_to_json, format_finding, lint_module, lint_path
    from vmodtool.build.module import ModuleBuild, ModuleImages, assemble_module

__all__ = [
    "build_module_file", "BuildSummary",
    "assemble_module", "ModuleImages", "ModuleBuild",
    "render_module_images",
    "lint_module", "lint_path", "Finding", "CODES", "format_finding", "findings_to_json",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.build.builder": ("build_module_file", "BuildSummary"),
    "vmodtool.build.module": ("assemble_module", "ModuleImages", "ModuleBuild"),
    "vmodtool.build.images": ("render_module_images",),
    "vmodtool.build.lint": ("lint_module", "lint_path", "Finding", "CODES", "format_finding", "findings_to_json"),
})
