"""The module assembler: scenario → VASSAL module (the buildFile
components, piece definitions, images and the .vmod archive)::

    from vmodtool.assemble import build_module_file
    build_module_file("scenario.yaml", "game.vmod")     # the whole pipeline

Lint (checks of any module, ours or not) is :mod:`vmodtool.lint`.  Until
0.x this package was ``vmodtool.build``; that import path still works for
one release (:mod:`vmodtool.build` warns and forwards here).

:func:`assemble_module` is the pure step in between (scenario + rendered
images → buildFile and archive entries).  Names are imported on first use
(PEP 562): importing the package loads none of its modules until one of
their names is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.assemble.builder import BuildSummary, build_module_file
    from vmodtool.assemble.images import render_module_images
    from vmodtool.assemble.module import ModuleBuild, ModuleImages, assemble_module

__all__ = [
    "build_module_file", "BuildSummary",
    "assemble_module", "ModuleImages", "ModuleBuild",
    "render_module_images",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.assemble.builder": ("build_module_file", "BuildSummary"),
    "vmodtool.assemble.module": ("assemble_module", "ModuleImages", "ModuleBuild"),
    "vmodtool.assemble.images": ("render_module_images",),
})
