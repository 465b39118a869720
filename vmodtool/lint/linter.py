"""``vmodtool lint``: static checks of any VASSAL module, ours or not.

:func:`lint_module` runs every check on an opened
:class:`~vmodtool.vassal.module.Module` and returns :class:`Finding` s, each
with a stable ``code`` (listed with its severity and a one-line explanation
in :data:`CODES`), the buildFile line and the component path.  Severities:

* ``error`` — VASSAL fails, drops a component or loses data (a malformed
  integer attribute, a prototype that does not exist, duplicate gpids, an
  image or file that is not in the archive …);
* ``warning`` — the module works but something is wrong (a grid without
  numbering reports every location as ``offboard``, a piece whose commands
  are silent in logs, an image nothing uses …);
* ``info`` — worth knowing (checks skipped for a bare buildFile, legacy
  encodings VASSAL converts on load).

The checks turn ``docs/vassal-format.md`` §6 (a module VASSAL 3.7 opens
cleanly) into code.  Which attribute of which component is an integer,
double, boolean, colour or key stroke comes from VASSAL 3.7.26's own
``setAttribute`` methods (:data:`ATTRIBUTE_KINDS`); image look-up follows
``DataArchive.getInputStream`` (archive, then VASSAL's built-in
``/images/…`` resources, then an extensionless GIF).

Pure: nothing is written; the module's files are only read.
"""

from __future__ import annotations

from collections.abc import Callable

from vmodtool.errors import VmodError
from vmodtool.findings import SEVERITIES, SEVERITY_RANK
from vmodtool.lint import archive, components, decks, extension, files, gpids, maps, pieces, uniqueness
from vmodtool.lint.attribute_kinds import ATTRIBUTE_KINDS
from vmodtool.lint.codes import CODES, CodeInfo
from vmodtool.lint.context import LintRun
from vmodtool.lint.context import java_int_ok as _java_int_ok  # noqa: F401 -- its old private name (tests)
from vmodtool.lint.references import BUILTIN_IMAGES
from vmodtool.lint.result import (
    Finding,
    LintResult,
    at_least,
    findings_to_json,
    format_finding,
    summarize,
)
from vmodtool.vassal.module import Module

__all__ = [
    "Finding", "CodeInfo", "CODES", "SEVERITIES", "ATTRIBUTE_KINDS", "BUILTIN_IMAGES",
    "lint_module", "lint_path", "image_references", "summarize", "format_finding",
    "findings_to_json", "at_least", "LintResult", "lint_result", "CHECKS",
]

#: every check, in the order a lint runs them (the grid check reads the
#: attribute findings made before it)
CHECKS: tuple[Callable[[LintRun], None], ...] = (
    archive.check_container, archive.check_root, components.check_elements,
    components.check_standard_components, maps.check_maps, maps.check_setup_stacks,
    pieces.check_pieces, gpids.check_gpids, uniqueness.check_uniqueness, decks.check_decks,
    files.check_images_and_files, extension.check_extension)


def lint_module(module: Module, base: Module | None = None) -> list[Finding]:
    """Every finding for an opened module (archive, folder or bare
    buildFile), sorted by file and line; for an extension, ``base`` is the
    module it extends (its targets, prototypes and images checked there)."""
    run = LintRun(module, base)
    for check in CHECKS:
        check(run)
    order = {code: i for i, code in enumerate(CODES)}
    run.findings.sort(key=lambda f: (f.file or "", f.line if f.line is not None else 1 << 30,
                                     SEVERITY_RANK[f.severity], order[f.code], f.message))
    return run.findings


def lint_path(path: str, base: str | None = None) -> list[Finding]:
    """Open ``path`` with :meth:`Module.open` and lint it (an extension
    against the module at ``base``).  Unreadable input raises
    :class:`~vmodtool.errors.VmodError`."""
    with Module.open(path) as module:
        if base is None:
            return lint_module(module)
        if not module.is_extension:
            raise VmodError("a module is linted alone: --module names the module of an extension",
                            file=path)
        with Module.open(base) as base_module:
            if base_module.is_extension:
                raise VmodError("this is an extension, not the module it extends", file=base)
            return lint_module(module, base_module)


def lint_result(path: str, min_severity: str = "info", base: str | None = None) -> LintResult:
    """:func:`lint_path` as a :class:`LintResult` (its exit code and JSON
    report, the findings below ``min_severity`` counted but not shown)."""
    return LintResult(path, lint_path(path, base), min_severity)


def image_references(module: Module) -> dict[str, list[str]]:
    """Every image name the module refers to (components, toolbar icons,
    piece traits, prototypes) → what refers to it, in document order."""
    run = LintRun(module)
    components.check_elements(run)
    pieces.check_pieces(run)
    return {name: [what for _, what in places] for name, places in run.image_refs.items()}
