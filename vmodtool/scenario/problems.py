"""Problems found in a scenario file, each with its file, line, column and
key path, collected so that a user sees every mistake at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vmodtool.errors import ScenarioError

__all__ = ["Problem", "ScenarioProblems", "format_path", "Path"]

Path = tuple[object, ...]


def format_path(path: Sequence[object]) -> str:
    """``("map", "hexsides", 2, "between")`` → ``map.hexsides[2].between``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            if not text or any(c in text for c in ".[] "):
                text = f'"{text}"'
            out += ("." if out else "") + text
    return out


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario: where (file, line, column, key path)
    and what was expected."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: Path = ()
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file or "<scenario>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        key = format_path(self.path)
        prefix = f"{where}: " + (f"{key}: " if key else "")
        return prefix + ("warning: " if self.severity == "warning" else "") + self.message

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "path": format_path(self.path), "severity": self.severity,
                "message": self.message}


class ScenarioProblems(ScenarioError):
    """A scenario that could not be loaded: ``problems`` lists every error
    (and warning) found, in file order."""

    def __init__(self, problems: Iterable[Problem], file: str | None = None) -> None:
        self.problems: list[Problem] = sorted(
            problems, key=lambda p: (p.file or "", p.line or 0, p.column or 0))
        errors = [p for p in self.problems if p.severity == "error"]
        first = errors[0] if errors else (self.problems[0] if self.problems else None)
        count = len(errors)
        summary = f"{count} problem{'s' if count != 1 else ''} in the scenario"
        super().__init__(summary if first is None else f"{summary}; first: {first}", file=file)

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems]
