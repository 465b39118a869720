"""The problem collector of the scenario loader: defensive reads of one
parsed scenario document (a value of the wrong type reads as the default:
the JSON Schema reports it) and the problems found, each located by file,
line, column and key path, so that a user sees every mistake at once.

Each ``load_<section>.py`` module reads its section through a
:class:`ProblemCollector` and reports there; :mod:`vmodtool.scenario.loader`
drives them in file order.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path as FsPath
from typing import Any

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.problems import Path, Problem
from vmodtool.scenario.source import Document

__all__ = ["ProblemCollector"]


class ProblemCollector:
    """Reads of the scenario document ``doc`` (of the file at ``path``) and
    the :class:`~vmodtool.scenario.problems.Problem` list they found
    (``problems``), with the files and folders read besides the document
    (``files_read``, ``folders_read``: what a cached model depends on)."""

    def __init__(self, doc: Document, path: FsPath) -> None:
        self.doc = doc
        self.path = path
        self.folder = path.parent
        self.problems: list[Problem] = []
        self.data: dict[str, Any] = doc.data
        self.hint_budget = L.MAX_HINT_COMPARISONS
        self._known_sets: dict[int, tuple[object, frozenset[str]]] = {}
        self.files_read: list[FsPath] = []      # besides the scenario file (ScenarioInputs)
        self.folders_read: list[FsPath] = []

    def err(self, path: Path, message: str, severity: str = "error") -> None:
        """Report a problem at ``path`` of the document."""
        self.problems.append(self.doc.problem(path, message, severity))

    def get(self, path: Path, kind: Any = None, default: Any = None) -> Any:
        """The value at ``path`` when it has type ``kind`` (else ``default``;
        the schema reports the wrong type)."""
        node: Any = self.data
        for part in path:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return default
        if kind is not None and not isinstance(node, kind):
            return default
        if kind in (int, float, (int, float)) and isinstance(node, bool):
            return default
        return node

    def within(self, path: Path, value: int | float, maximum: int | float, minimum: int | float | None = None
               ) -> bool:
        """Whether ``value`` lies in the field's bounds (:mod:`.limits`); if not,
        report it in the words of the JSON Schema, which states the same bound
        (so the two reports of one value are one)."""
        if value > maximum:
            self.err(path, f"the number {value} is out of range (maximum {maximum})")
            return False
        if minimum is not None and value < minimum:
            self.err(path, f"the number {value} is out of range (minimum {minimum})")
            return False
        return True

    def pos(self, path: Path) -> M.Position:
        """The model's position (file and line) of ``path``."""
        line, _ = self.doc.where(path)
        return M.Position(self.doc.file, line)

    def text(self, path: Path, default: str | None = None) -> str | None:
        """The value at ``path`` as a text (a number or boolean written as
        one; ``default`` for a missing value, a mapping or a list)."""
        value = self.get(path)
        if isinstance(value, str):
            return value
        if value is None:
            return default
        return str(value) if not isinstance(value, (dict, list)) else default

    def hex_id(self, path: Path, hexes: Mapping[str, Any], what: str = "hex") -> str | None:
        """Check that the value at ``path`` is a hex id on the map."""
        value = self.get(path)
        if value is None:
            return None
        raw = self.doc.is_unquoted_number(path)
        if raw is not None:
            # the schema reports the type; say which hex was meant
            return raw if raw in hexes else None
        if not isinstance(value, str):
            return None
        if value not in hexes:
            self.err(path, f"{what} {value!r} is not on the map" + self.hex_hint(value, hexes))
            return None
        return value

    def close_match(self, value: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
        """The known name closest to ``value`` ("did you mean …?"), while the
        scenario's budget of comparisons lasts: a file with thousands of
        unknown names among thousands of known ones gets no more hints, rather
        than minutes of difflib."""
        candidates = known if isinstance(known, Sequence) else list(known)
        if len(candidates) > self.hint_budget:
            self.hint_budget = 0
            return None
        self.hint_budget -= len(candidates)
        close = difflib.get_close_matches(value, candidates, n=1, cutoff=cutoff)
        return close[0] if close else None

    def known_set(self, known: Iterable[str]) -> Collection[str]:
        """``known`` for membership tests in O(1) (a list is turned into a set
        once per collector, not at every reference)."""
        if isinstance(known, (Mapping, set, frozenset)):
            return known
        entry = self._known_sets.get(id(known))
        if entry is None or entry[0] is not known:
            entry = (known, frozenset(known))   # keeps ``known`` alive, so its id stays its own
            self._known_sets[id(known)] = entry
        return entry[1]

    def hex_hint(self, value: str, hexes: Mapping[str, Any]) -> str:
        """What to add to "hex … is not on the map": the closest hex, or the
        map's first and last."""
        close = self.close_match(value, list(hexes) if len(hexes) <= self.hint_budget else (), cutoff=0.75)
        last = next(reversed(hexes)) if isinstance(hexes, dict) else list(hexes)[-1] if hexes else None
        span = f" (the map runs from {next(iter(hexes))} to {last})" if hexes else ""
        return f"; did you mean {close!r}?" if close else span

    def ref(self, path: Path, known: Iterable[str], what: str, *, allow: Sequence[str] = ()
            ) -> str | None:
        """The name at ``path`` when it is one of ``known`` (or ``allow``);
        else report it, with the closest known name."""
        value = self.get(path)
        if value is None:
            return None
        if not isinstance(value, str):
            return None
        if value not in self.known_set(known) and value not in allow:
            names = list(known)
            close = self.close_match(value, names)
            hint = f"; did you mean {close!r}?" if close else (
                f"; defined: {', '.join(names[:12])}" if names else f"; no {what}s are defined")
            self.err(path, f"unknown {what} {value!r}{hint}")
            return None
        return value

    def unique(self, items: Iterable[tuple[Path, str]], what: str) -> None:
        """Report each id of ``items`` given a second time."""
        seen: dict[str, Path] = {}
        for path, ident in items:
            if ident in seen:
                line, _ = self.doc.where(seen[ident])
                self.err(path, f"duplicate {what} {ident!r}" + (f" (first defined at line {line})" if line else ""))
            else:
                seen[ident] = path

    def unique_ids(self, path: Path, key: str, what: str) -> None:
        """Report each ``key`` of the entries of the list at ``path`` given a
        second time."""
        self.unique(((ep + (key,), self.text(ep + (key,)) or "") for ep, _ in self.list_of(path)
                     if self.text(ep + (key,))), what)

    def list_of(self, path: Path) -> list[tuple[Path, Any]]:
        """The items of the list at ``path``, each with its path."""
        value = self.get(path, list, [])
        return [(path + (i,), item) for i, item in enumerate(value)]

    def local_file(self, path: Path, name: str, what: str) -> FsPath | None:
        """The file ``name`` (the value at ``path``) in the scenario's folder,
        when it is inside it and exists."""
        candidate = (self.folder / name)
        self.files_read.append(candidate)
        try:
            candidate.resolve().relative_to(self.folder.resolve())
        except ValueError:
            self.err(path, f"the {what} {name!r} must be inside the scenario's folder")
            return None
        if not candidate.is_file():
            self.err(path, f"the {what} {name!r} does not exist (looked for {candidate})")
            return None
        return candidate
