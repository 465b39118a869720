"""``vmodtool lint``: static checks of any VASSAL module, ours or not.

A format-level check: it reads only :mod:`vmodtool.vassal` (a module's
buildFile, images and files) and knows nothing of scenarios, so it lives
beside the format layer rather than in the module assembler that used to
hold it.  :mod:`vmodtool.lint.linter` runs the checks; each family of checks
is a module that registers its finding codes beside them
(:mod:`~vmodtool.lint.codes`): :mod:`~vmodtool.lint.archive`,
:mod:`~vmodtool.lint.attributes`, :mod:`~vmodtool.lint.components`,
:mod:`~vmodtool.lint.maps`, :mod:`~vmodtool.lint.traits`,
:mod:`~vmodtool.lint.pieces`, :mod:`~vmodtool.lint.gpids`,
:mod:`~vmodtool.lint.files`, :mod:`~vmodtool.lint.decks`,
:mod:`~vmodtool.lint.uniqueness`.
"""

from vmodtool.lint.linter import (
    ATTRIBUTE_KINDS,
    BUILTIN_IMAGES,
    CODES,
    SEVERITIES,
    CodeInfo,
    Finding,
    LintResult,
    at_least,
    findings_to_json,
    format_finding,
    image_references,
    lint_module,
    lint_path,
    lint_result,
    summarize,
)

__all__ = [
    "Finding", "CodeInfo", "CODES", "SEVERITIES", "ATTRIBUTE_KINDS", "BUILTIN_IMAGES",
    "lint_module", "lint_path", "image_references", "summarize", "format_finding",
    "findings_to_json", "at_least", "LintResult", "lint_result",
]
