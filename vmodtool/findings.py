"""One findings model for every check: ``vmodtool lint``, ``check-game`` and
the audit.

A :class:`Finding` is one thing a check found: a stable ``code``, a
``severity``, one readable ``message``, where it is (``file``, ``log``,
``step``, ``place`` — a hex or a named spot —, ``line``, ``path`` — a
component path in a buildFile) and ``details`` for the JSON report.  Each
check's findings are a subclass that keeps the field names its users and its
JSON schema already have (lint's ``component_path``/``detail``,
check-game's ``kind``); the subclass says which attribute is which and lists
its JSON keys in :attr:`Finding.RECORD`, so :meth:`Finding.record` is
written once.

A check's whole result (an audit report, a game check, a lint run) is a
:class:`CheckResult`: it carries its exit code, as click's exceptions do
(:func:`vmodtool.exit_codes.check_exit_code`), and its JSON; the commands
and ``vmodtool batch`` read both there.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, runtime_checkable

__all__ = ["SEVERITIES", "SEVERITY_RANK", "Finding", "Location", "CheckResult", "check_outcome"]

#: every severity a finding can have, worst first
SEVERITIES = ("error", "warning", "info")
#: severity → rank (0 the worst), for sorting and thresholds
SEVERITY_RANK: Mapping[str, int] = MappingProxyType({s: i for i, s in enumerate(SEVERITIES)})

_NO_DETAILS: Mapping[str, Any] = MappingProxyType({})
#: what a finding whose check does not have one of the common attributes reads
_ABSENT: Mapping[str, Any] = MappingProxyType({
    "file": None, "log": None, "step": None, "place": None, "line": None, "path": None,
    "details": _NO_DETAILS})


class Location(NamedTuple):
    """Where a finding is; ``None`` for what does not apply to its check."""

    file: str | None = None
    log: str | None = None
    step: int | None = None
    place: str | None = None
    line: int | None = None
    path: str | None = None


class Finding:
    """One thing a check found (the base of every check's findings).

    Subclasses are frozen dataclasses whose fields keep their own names; an
    attribute the base names but a subclass calls otherwise is a property of
    the subclass (lint: ``path`` is ``component_path``; check-game: ``code``
    is ``kind``).  What a subclass does not have reads ``None`` (``details``:
    empty).

    :attr:`RECORD` lists the JSON keys :meth:`record` writes, each with the
    attribute it reads, in order; a key in :attr:`RECORD_OMIT_EMPTY` is left
    out when its value is empty.  Tuples become lists, a finding its record,
    a mapping a dict.

    How the audit's ``Violation`` becomes one: ``class Violation(Finding)``
    with its fields unchanged, ``RECORD`` its field names in order (its JSON
    keys today) and properties ``code`` (``rule_id``), ``details``
    (``evidence``) and ``place`` (its first hex); its ``as_dict`` is then
    ``record``.
    """

    # The base declares the common attributes as read-only properties for
    # the type checker only.  At run time it has no class attribute of those
    # names (a property could not be set through by a subclass's dataclass
    # field, and a plain class attribute would become that field's default);
    # what a subclass lacks is answered by ``__getattr__``.
    if TYPE_CHECKING:
        @property
        def code(self) -> str: ...
        @property
        def severity(self) -> str: ...
        @property
        def message(self) -> str: ...
        @property
        def file(self) -> str | None: ...
        @property
        def log(self) -> str | None: ...
        @property
        def step(self) -> int | None: ...
        @property
        def place(self) -> str | None: ...
        @property
        def line(self) -> int | None: ...
        @property
        def path(self) -> str | None: ...
        @property
        def details(self) -> Mapping[str, Any]: ...
    else:
        def __getattr__(self, name):
            try:
                return _ABSENT[name]
            except KeyError:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None

    #: (JSON key, attribute) in the order :meth:`record` writes them
    RECORD: ClassVar[tuple[tuple[str, str], ...]] = (
        ("code", "code"), ("severity", "severity"), ("message", "message"), ("file", "file"),
        ("log", "log"), ("step", "step"), ("place", "place"), ("line", "line"), ("path", "path"),
        ("details", "details"))
    #: JSON keys left out of :meth:`record` when their value is empty
    RECORD_OMIT_EMPTY: ClassVar[frozenset[str]] = frozenset()

    @property
    def location(self) -> Location:
        """Where the finding is, in one value."""
        return Location(self.file, self.log, self.step, self.place, self.line, self.path)

    def record(self) -> dict[str, Any]:
        """The finding as JSON-ready data (its check's schema: :attr:`RECORD`)."""
        out: dict[str, Any] = {}
        omit = self.RECORD_OMIT_EMPTY
        for key, attribute in self.RECORD:
            value = getattr(self, attribute)
            if key in omit and not value:
                continue
            out[key] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    """A finding's attribute as JSON-ready data (a dict is passed as it is)."""
    if isinstance(value, Finding):
        return value.record()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


@runtime_checkable
class CheckResult(Protocol):
    """What a check returns as a whole (``AuditReport``, ``GameCheck``,
    ``LintResult``): its command's exit code and its JSON report.

    The JSON is ``as_json()`` rather than ``record()``: a ``GameCheck``'s
    ``record`` is its :class:`~vmodtool.checkgame.model.GameRecord`."""

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings, 3 NOT CHECKED (:mod:`vmodtool.exit_codes`)."""
        ...

    def as_json(self) -> dict[str, Any]:
        """The JSON report (its schema is the check's)."""
        ...


def check_outcome(result: CheckResult) -> tuple[dict[str, Any], int]:
    """``(JSON report, exit code)`` of a check: what ``vmodtool batch``
    stores for one game and what a command prints and exits with."""
    return result.as_json(), result.exit_code
