"""A lint run's findings and its result: :class:`Finding` (a
:class:`vmodtool.findings.Finding` with lint's field names), the text line of
one, counts per severity, and :class:`LintResult` (a
:class:`~vmodtool.findings.CheckResult`: the exit code and the JSON report
``vmodtool lint`` and ``vmodtool batch`` give)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from vmodtool.exit_codes import check_exit_code
from vmodtool.findings import SEVERITIES, SEVERITY_RANK
from vmodtool.findings import Finding as BaseFinding

__all__ = ["Finding", "LintResult", "format_finding", "summarize", "at_least", "findings_to_json"]


@dataclass(frozen=True)
class Finding(BaseFinding):
    """One problem found in a module (its ``path`` is ``component_path``,
    its ``details`` ``detail``)."""

    code: str
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    component_path: str | None = None
    detail: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    #: lint's JSON keys for a finding
    RECORD: ClassVar[tuple[tuple[str, str], ...]] = (
        ("code", "code"), ("severity", "severity"), ("message", "message"), ("file", "file"),
        ("line", "line"), ("component_path", "component_path"), ("detail", "detail"))

    @property
    def path(self) -> str | None:
        """The component path (:attr:`component_path`)."""
        return self.component_path

    @property
    def details(self) -> Mapping[str, Any]:
        """The finding's data (:attr:`detail`)."""
        return self.detail

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (:meth:`record`)."""
        return self.record()


def format_finding(finding: Finding) -> str:
    """``file:line: severity code: message`` (``[component path]`` appended)."""
    where = finding.file or "-"
    if finding.line is not None:
        where += f":{finding.line}"
    text = f"{where}: {finding.severity} {finding.code}: {finding.message}"
    if finding.component_path:
        text += f" [{finding.component_path}]"
    return text


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Count of findings per severity."""
    counts = {severity: 0 for severity in SEVERITIES}
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def at_least(findings: Iterable[Finding], min_severity: str) -> list[Finding]:
    """The findings at ``min_severity`` or worse."""
    limit = SEVERITY_RANK[min_severity]
    return [f for f in findings if SEVERITY_RANK[f.severity] <= limit]


def findings_to_json(findings: Sequence[Finding], file: str | None = None) -> dict[str, Any]:
    """``{"file", "summary", "findings"}``."""
    return {"file": file, "summary": summarize(findings),
            "findings": [f.record() for f in findings]}


#: the codes that say a part of the file could not be checked (the lint is incomplete: exit 3)
NOT_CHECKED_CODES = frozenset({"extension-not-checked"})


@dataclass
class LintResult:
    """One module's lint: every finding, and those at ``min_severity`` or
    worse that are shown; ``file`` is the module as the user named it.
    Exit code 1 when there are errors (shown or not), else 3 when a part
    could not be checked (an extension without its module), else 0."""

    file: str
    findings: Sequence[Finding]
    min_severity: str = "info"

    @property
    def shown(self) -> list[Finding]:
        """The findings at :attr:`min_severity` or worse."""
        return at_least(self.findings, self.min_severity)

    @property
    def counts(self) -> dict[str, int]:
        """Findings per severity (all of them, shown or not)."""
        return summarize(self.findings)

    @property
    def exit_code(self) -> int:
        """``vmodtool lint``'s exit code (:func:`vmodtool.exit_codes.check_exit_code`)."""
        return check_exit_code(found=bool(self.counts["error"]),
                               complete=not any(f.code in NOT_CHECKED_CODES for f in self.findings))

    def as_json(self) -> dict[str, Any]:
        """``{"file", "summary", "findings"}``: the shown findings, the
        summary counting all."""
        report = findings_to_json(self.shown, self.file)
        report["summary"] = self.counts
        return report

    def lines(self) -> Iterator[str]:
        """The text report: one line per shown finding, then the counts."""
        shown = self.shown
        counts = self.counts
        yield from (format_finding(f) for f in shown)
        hidden = len(self.findings) - len(shown)
        yield (f"{self.file}: {counts['error']} error(s), {counts['warning']} warning(s), "
               f"{counts['info']} info" + (f" ({hidden} below --min-severity not shown)"
                                           if hidden else ""))
