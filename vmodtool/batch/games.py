"""The games of an archive: found in a folder tree or listed in a manifest.

A game is the chain of files one command takes together (the logs of one
PBEM game, in the order they were played; for ``lint``, one module).  Games
come from

- a folder tree: every file with one of the command's suffixes; files are
  grouped into games by their folder (the usual layout of a tournament's
  archive, one folder per game), one game per file (``file``) or by a
  regular expression over the path
  relative to the root, whose group ``game`` (else its first group) names
  the game; a game's files are in natural order (``turn2`` before
  ``turn10``);
- a manifest: a CSV file with one row per file (``game,file`` and
  optionally ``order``, ``module``, ``scenario``) or a YAML file
  ``games: [{name, files: [...], module, scenario}]``.  Paths are relative to
  the manifest's folder; ``module`` and ``scenario`` of a game override the
  batch's options.

Every game is independent: nothing of one reaches another.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from vmodtool.errors import VmodError

__all__ = ["Game", "ManifestError", "find_games", "read_manifest", "games_from", "LOG_SUFFIXES",
           "MODULE_SUFFIXES"]

#: what a game of the log commands is made of (VASSAL 2 wrote logs as
#: ``.log`` and saves as ``.sav``: such files count only when they start as
#: a VASSAL file does, see :func:`_looks_like_vassal`)
LOG_SUFFIXES = (".vlog", ".vsav", ".log", ".sav")
_AMBIGUOUS = (".log", ".sav")
#: what ``lint`` takes
MODULE_SUFFIXES = (".vmod", ".vext")

_MANIFEST_SUFFIXES = (".csv", ".yaml", ".yml")


class ManifestError(VmodError):
    """A manifest or a grouping pattern that cannot be used."""


@dataclass(frozen=True, slots=True)
class Game:
    """One game: its name (unique in the batch), its files in order, and the
    module and scenario it overrides (``None``: the batch's options)."""

    name: str
    files: tuple[Path, ...]
    module: Path | None = None
    scenario: Path | None = None


def _natural(text: str) -> tuple[Any, ...]:
    """``turn2`` before ``turn10``: digits compare as numbers."""
    return tuple(int(part) if part.isdigit() else part.casefold()
                 for part in re.split(r"(\d+)", text))


def find_games(root: Path, suffixes: Sequence[str], *, group: str = "folder",
               skipped: list[Path] | None = None) -> list[Game]:
    """The games under ``root`` (a folder), grouped by folder or by the
    regular expression ``group``; games in natural order of their names.  A
    file that the pattern does not match is not part of any game.  For the
    log commands a file is a game file by its suffix (``.vlog``, ``.vsav``)
    or, whatever its name (``0611-2``, ``game.log``), when its first bytes
    are a VASSAL save's or log's (:func:`_looks_like_vassal`).  Every other
    file (hidden ones aside) is added to ``skipped``, for the command to
    list."""
    pattern = None
    if group == "file":
        group = r"^(?P<game>.+)$"
    if group != "folder":
        try:
            pattern = re.compile(group)
        except re.error as exc:
            raise ManifestError(f"--group: bad regular expression {group!r} ({exc})") from None
        if pattern.groups == 0:
            raise ManifestError(f"--group: the pattern {group!r} has no group to name the game; "
                                "write e.g. '(?P<game>[^/]+)-turn\\d+'")
    wanted = tuple(s.lower() for s in suffixes if s.lower() not in _AMBIGUOUS)
    sniffed = any(s.lower() in _AMBIGUOUS for s in suffixes)
    found: dict[str, list[Path]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(folder) / name
            if not name.lower().endswith(wanted) and not (sniffed and _looks_like_vassal(path)):
                if skipped is not None:
                    skipped.append(path)
                continue
            rel = path.relative_to(root).as_posix()
            if pattern is None:
                key = Path(rel).parent.as_posix()
                key = root.name if key == "." else key
            else:
                match = pattern.search(rel)
                if match is None:
                    continue
                key = match.group("game") if "game" in pattern.groupindex else match.group(1)
                if not key:
                    continue
            found.setdefault(key, []).append(path)
    return [Game(key, tuple(sorted(paths, key=lambda p: _natural(p.name))))
            for key, paths in sorted(found.items(), key=lambda kv: _natural(kv[0]))]


def _looks_like_vassal(path: Path) -> bool:
    """A file without a game suffix (``.log``, ``.sav``, none) that is a
    VASSAL save or log: a ZIP archive with a ``savedGame`` entry, or a bare
    command stream (``!VCSK`` …, ``begin_save``: what
    :func:`vmodtool.fileio.sniff` calls ``vassal-stream``).  A regular
    file only: nothing is opened that could block (a FIFO) or is not a
    file."""
    import stat
    import zipfile

    from vmodtool.fileio import sniff

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with path.open("rb") as fh:
            head = fh.read(64)
            if head.startswith(b"PK\x03\x04"):
                with zipfile.ZipFile(fh) as archive:
                    return "savedGame" in archive.NameToInfo
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return False
    kind = sniff(head)
    return kind is not None and kind.key == "vassal-stream"


def _located(manifest: Path, place: str, message: str) -> ManifestError:
    return ManifestError(message, file=manifest, place=place)


def _resolve(manifest: Path, text: Any, place: str, what: str) -> Path:
    if not isinstance(text, str) or not text.strip():
        raise _located(manifest, place, f"{what} must be a file name, not {text!r}")
    if "\x00" in text or len(text) > MAX_CSV_FIELD:
        raise _located(manifest, place, f"{what} is no file name: "
                       + ("it holds a NUL character" if "\x00" in text else f"{len(text)} characters long"))
    path = Path(text.strip())
    return path if path.is_absolute() else manifest.parent / path


#: the longest field of a CSV manifest (a game name or a file path: a path is
#: at most 4096 bytes on Linux), and the longest line
MAX_CSV_FIELD = 4096
_MAX_CSV_LINE = 5 * MAX_CSV_FIELD


def _csv_rows(manifest: Path, fh: IO[str]) -> Iterator[tuple[str, list[str]]]:
    """(place, fields) of each line of a CSV manifest, read as a stream with
    a bound on a line and a field: what is over it, a NUL character or bytes
    that are no UTF-8 is a :class:`ManifestError` naming the line."""
    number = 0

    def lines() -> Iterator[str]:
        nonlocal number
        while True:
            try:
                line = fh.readline(_MAX_CSV_LINE + 1)
            except UnicodeDecodeError as exc:
                raise _located(manifest, f"line {number + 1}", f"not UTF-8 text (byte {exc.start} of a block)") \
                    from None
            if not line:
                return
            number += 1
            if len(line) > _MAX_CSV_LINE:
                raise _located(manifest, f"line {number}", f"the line is longer than {_MAX_CSV_LINE} characters "
                               f"(a field is at most {MAX_CSV_FIELD}: a game name or a file path)")
            if "\x00" in line:
                raise _located(manifest, f"line {number}", "the line holds a NUL character (no file name has one)")
            yield line

    reader = csv.reader(lines())
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _located(manifest, f"line {number}", f"not a CSV line ({exc})") from None
        long = next((f for f in fields if len(f) > MAX_CSV_FIELD), None)
        if long is not None:
            raise _located(manifest, f"line {number}", f"a field is {len(long)} characters long; at most "
                           f"{MAX_CSV_FIELD} (a game name or a file path)")
        yield f"line {number}", fields


def _csv_games(manifest: Path, fh: IO[str]) -> list[Game]:
    rows_of = _csv_rows(manifest, fh)
    header = next(rows_of, None)
    fields = [f.strip().lower() for f in header[1]] if header is not None else []
    if "game" not in fields or "file" not in fields:
        raise _located(manifest, "line 1", "the header must name the columns game and file "
                       f"(and optionally order, module, scenario); it has: {', '.join(fields) or 'nothing'}")
    rows: dict[str, list[tuple[Any, int, Path]]] = {}
    extra: dict[str, dict[str, tuple[Path, str]]] = {}
    for number, (place, values) in enumerate(rows_of, start=2):
        row = {name: value.strip() for name, value in zip(fields, values, strict=False)}
        if not any(row.values()):
            continue
        game = row.get("game", "")
        if not game:
            raise _located(manifest, place, "the game column is empty")
        order_text = row.get("order", "")
        order: Any = number
        if order_text:
            try:
                order = float(order_text)
            except ValueError:
                raise _located(manifest, place, f"order must be a number, not {order_text!r}") from None
        rows.setdefault(game, []).append((order, number, _resolve(manifest, row.get("file"), place, "file")))
        for key in ("module", "scenario"):
            if row.get(key):
                path = _resolve(manifest, row[key], place, key)
                seen = extra.setdefault(game, {}).get(key)
                if seen is not None and seen[0] != path:
                    raise _located(manifest, place, f"game {game!r} names two {key}s: {seen[0]} "
                                   f"({seen[1]}) and {path}")
                extra[game][key] = (path, place)
    games = []
    while rows:                         # each row let go as its game is made: one copy at a time
        name = next(iter(rows))
        items = rows.pop(name)
        items.sort(key=lambda item: (item[0], item[1]))
        more = extra.get(name, {})
        games.append(Game(name, tuple(p for _, _, p in items),
                          module=more["module"][0] if "module" in more else None,
                          scenario=more["scenario"][0] if "scenario" in more else None))
    return games


def _yaml_games(manifest: Path, text: str) -> list[Game]:
    # the scenario's YAML reader: safe, bounded (nesting, values, scalar
    # sizes) and with a line for every value
    from vmodtool.scenario.source import load_yaml

    doc = load_yaml(text, str(manifest))
    if doc.problems:
        first = doc.problems[0]
        raise ManifestError(first.message, file=manifest,
                            place=f"line {first.line}" if first.line is not None else None)
    data = doc.data

    top: tuple[Any, ...] = ("games",) if isinstance(data, dict) else ()

    def at(index: int, *keys: str | int) -> str:
        """``games[3].files[1]``, with the line it was written on."""
        place = f"games[{index}]" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys)
        line, _ = doc.where((*top, index, *keys))
        return f"{place} (line {line})" if line is not None else place

    items = data.get("games") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ManifestError("expected a list of games (games: [{name, files: [...]}])", file=manifest)
    games = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise _located(manifest, at(index), "a game must be a map with name and files")
        name = item.get("name")
        files = item.get("files")
        if isinstance(files, str):
            files = [files]
        if not isinstance(name, (str, int)) or str(name) == "":
            raise _located(manifest, at(index), "name is missing")
        if not isinstance(files, list) or not files:
            raise _located(manifest, at(index, "files"), "files must be a non-empty list of file names")
        games.append(Game(str(name), tuple(_resolve(manifest, f, at(index, "files", i), "a file")
                                           for i, f in enumerate(files)),
                          module=_resolve(manifest, item["module"], at(index, "module"), "module")
                          if item.get("module") else None,
                          scenario=_resolve(manifest, item["scenario"], at(index, "scenario"), "scenario")
                          if item.get("scenario") else None))
    return games


def read_manifest(manifest: Path) -> list[Game]:
    """The games a CSV or YAML manifest lists, in its order.  A CSV manifest
    is read as a stream, line by line, with bounds (:func:`_csv_rows`); a
    YAML one up to the size of a scenario file and with its reader's
    bounds."""
    from vmodtool.scenario.limits import MAX_FILE_BYTES

    try:
        if manifest.suffix.lower() == ".csv":
            with manifest.open("r", encoding="utf-8-sig", newline="") as fh:
                games = _csv_games(manifest, fh)
        else:
            with manifest.open("rb") as raw:
                data = raw.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise ManifestError(f"a YAML manifest is read up to {MAX_FILE_BYTES // (1 << 20)} MB; "
                                    "list a larger archive in a CSV manifest", file=manifest)
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise ManifestError(f"not UTF-8 text (byte {exc.start})", file=manifest) from None
            games = _yaml_games(manifest, text)
    except OSError as exc:
        raise ManifestError(f"cannot read the manifest ({exc.strerror or exc})", file=manifest) from None
    seen: set[str] = set()
    for game in games:
        if game.name in seen:
            raise ManifestError(f"game {game.name!r} is listed twice", file=manifest)
        seen.add(game.name)
    if not games:
        raise ManifestError("lists no game", file=manifest)
    return games


def games_from(sources: Iterable[Path], suffixes: Sequence[str], *, group: str = "folder",
               skipped: list[Path] | None = None) -> list[Game]:
    """The games of every source: a manifest (``.csv``/``.yaml``), a folder
    tree, or one file (a game of its own).  Game names are unique: a name
    met twice gets its source's position appended.  The files of a folder
    that are no game file go to ``skipped`` (see :func:`find_games`)."""
    games: list[Game] = []
    for source in sources:
        if source.is_dir():
            found = find_games(source, suffixes, group=group, skipped=skipped)
            if not found:
                raise ManifestError(f"holds no {' or '.join(suffixes)} file"
                                    + ("" if group == "folder" else f" that --group {group!r} matches"),
                                    file=source)
            games += found
        elif source.suffix.lower() in _MANIFEST_SUFFIXES:
            games += read_manifest(source)
        else:
            games.append(Game(source.stem, (source,)))
    names: dict[str, int] = {}
    unique = []
    for game in games:
        count = names.get(game.name, 0)
        names[game.name] = count + 1
        unique.append(game if count == 0 else Game(f"{game.name}#{count + 1}", game.files, game.module,
                                                   game.scenario))
    return unique
