"""``vmodtool lint``: static checks of any VASSAL module, ours or not.

A format-level check: it reads only :mod:`vmodtool.vassal` (a module's
buildFile, images and files) and knows nothing of scenarios, so it lives
beside the format layer rather than in the module assembler that used to
hold it.  The checks are in :mod:`vmodtool.lint.linter`.
"""

from vmodtool.lint.linter import (
    ATTRIBUTE_KINDS,
    BUILTIN_IMAGES,
    CODES,
    SEVERITIES,
    CodeInfo,
    Finding,
    at_least,
    findings_to_json,
    format_finding,
    image_references,
    lint_module,
    lint_path,
    summarize,
)

__all__ = [
    "Finding", "CodeInfo", "CODES", "SEVERITIES", "ATTRIBUTE_KINDS", "BUILTIN_IMAGES",
    "lint_module", "lint_path", "image_references", "summarize", "format_finding",
    "findings_to_json", "at_least",
]
