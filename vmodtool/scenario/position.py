"""Where a scenario object was defined: the file and line that later
layers' messages name (a module of its own, so that the card model and the
scenario model both use it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Position"]


@dataclass(frozen=True)
class Position:
    """Where an object was defined (for messages of later layers)."""

    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file or '<scenario>'}" + (f":{self.line}" if self.line else "")
