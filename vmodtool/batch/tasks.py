"""One game of a batch, run as the command would run it alone.

:func:`run_task` is what a worker process (local or on a Dask worker) runs:
it calls the same library functions as the command (``vmodtool audit``,
``check-game``, ``replay``, ``lint``, ``inspect``), keeps what the command
would print as JSON and its exit code, and turns bad input into a failed
game with the command's one-line message — never an exception, so one bad
file fails its game only.  The record of a game::

    {"game", "command", "files", "status", "exit_code", "result" | "error",
     "seconds", "key"}

(the batch adds its ``index`` and this user's ``signature``, see
:mod:`vmodtool.batch.runner`).

``status`` is ``ok`` (exit 0), ``findings`` (exit 1), ``not_checked``
(exit 3: the command could not look at everything) or ``failed`` (exit 2:
bad input; ``error`` holds the message).  ``result`` is exactly the JSON the
command prints with ``--format json`` (``replay``: its JSON Lines records
other than the steps — chain differences, warnings and the summary;
``inspect``: one report per file).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vmodtool.batch.games import LOG_SUFFIXES, MODULE_SUFFIXES, Game
from vmodtool.errors import VmodError
from vmodtool.fileio import output_folder

__all__ = ["COMMANDS", "Options", "Task", "run_task", "task_key", "input_files", "forget_trees", "STATUS_OF_EXIT"]

#: the commands a batch runs, with the files a game of each is made of
COMMANDS: dict[str, tuple[str, ...]] = {
    "audit": LOG_SUFFIXES, "check-game": LOG_SUFFIXES, "replay": LOG_SUFFIXES,
    "inspect": LOG_SUFFIXES + MODULE_SUFFIXES, "lint": MODULE_SUFFIXES,
}

#: exit code -> status; the codes are the commands' own
STATUS_OF_EXIT = {0: "ok", 1: "findings", 2: "failed", 3: "not_checked"}


@dataclass(frozen=True)
class Options:
    """The batch's options, the same for every game (a manifest's module and
    scenario of a game override ``module`` and ``scenario``)."""

    command: str
    module: Path | None = None
    scenario: Path | None = None
    board_sizes: tuple[tuple[str, tuple[int, int]], ...] = ()
    plugins: tuple[Path, ...] = ()
    trust_scenario_plugins: bool = False
    rules: tuple[str, ...] = ()
    integrity: bool = True
    checks: tuple[str, ...] = ()
    min_severity: str = "info"

    def as_json(self) -> dict[str, Any]:
        return {"command": self.command, "module": _s(self.module), "scenario": _s(self.scenario),
                "board_sizes": [[n, list(s)] for n, s in self.board_sizes],
                "plugins": [str(p) for p in self.plugins],
                "trust_scenario_plugins": self.trust_scenario_plugins, "rules": list(self.rules),
                "integrity": self.integrity, "checks": list(self.checks), "min_severity": self.min_severity}


def _s(path: Path | None) -> str | None:
    return None if path is None else str(path)


@dataclass(frozen=True, slots=True)
class Task:
    """One game to run: its position in the batch, the game, the options
    with the game's own module and scenario applied, its content key, and —
    for a worker that cannot see the files — their bytes by path."""

    index: int
    game: Game
    options: Options
    key: str = ""
    payload: Mapping[str, bytes] | None = field(default=None, repr=False)


def game_options(game: Game, options: Options) -> Options:
    """The options of one game: its manifest's module and scenario first
    (the batch's own options object when the game overrides neither: an
    archive of many games holds one).  ``trust_scenario_plugins`` is the
    user's consent to the plug-ins of the scenario they named
    (``--scenario``): it does not reach a scenario a manifest names instead
    (that game's plug-in rules are reported not checked), unless it is the
    same file."""
    if game.module is None and game.scenario is None:
        return options
    trust = options.trust_scenario_plugins and (game.scenario is None or _same_file(game.scenario, options.scenario))
    return replace(options, module=game.module or options.module, scenario=game.scenario or options.scenario,
                   trust_scenario_plugins=trust)


def _same_file(path: Path, named: Path | None) -> bool:
    """Whether ``path`` is the file the user named (``None``: they named none)."""
    if named is None:
        return False
    try:
        return os.path.samefile(path, named)
    except OSError:
        return False


def input_files(task: Task) -> list[Path]:
    """Every file the game's result can depend on: its files, the module,
    the scenario and the files in the scenario's folder tree (its CSV,
    images and plug-ins), the plug-in folders' files."""
    files = list(task.game.files)
    opts = task.options
    if opts.module is not None:
        files += list(_tree(opts.module)) if opts.module.is_dir() else [opts.module]
    if opts.scenario is not None and opts.command == "audit":
        files.append(opts.scenario)
        files += [p for p in _tree(opts.scenario.parent) if p != opts.scenario and p not in task.game.files]
    for folder in opts.plugins:
        files += list(_tree(folder))
    return files


@functools.lru_cache(maxsize=64)
def _tree(folder: Path) -> tuple[Path, ...]:
    """The files under a folder (hidden ones and byte-code left out); walked
    once per batch for the games that share a scenario or module
    (:func:`forget_trees` at the start of each)."""
    out: list[Path] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        out += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
    return tuple(out)


def forget_trees() -> None:
    """A new batch: walk the folders again and load the scenarios again
    (files may have come, gone or changed since the last batch of this
    process)."""
    _tree.cache_clear()
    _SCENARIOS.clear()


def file_digest(path: Path, cache: dict[Path, str] | None = None) -> str:
    """sha256 of a file's content (``missing`` for a file that cannot be
    read: the game will fail, and so will it again until the file is
    there)."""
    if cache is not None and path in cache:
        return cache[path]
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        value = digest.hexdigest()
    except OSError:
        value = "missing"
    if cache is not None:
        cache[path] = value
    return value


def task_key(task: Task, version: str, cache: dict[Path, str] | None = None) -> str:
    """What the result of a game depends on, hashed: vmodtool's version, the
    command and its options, the game's name and the name and content of
    every input file.  The same key means the same result."""
    own = task.game.files                # a game's own files are read once: not kept in the cache
    parts = {"version": version, "options": task.options.as_json(), "game": task.game.name,
             "files": [[str(p), file_digest(p, None if p in own else cache)] for p in input_files(task)]}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


# -- running one game ----------------------------------------------------------------

#: per worker process and batch: scenarios already loaded, by what they
#: were loaded from (a loaded scenario is not changed by an audit; a worker
#: runs many games of one tournament's scenario)
_SCENARIOS: dict[tuple[Any, ...], Any] = {}
_SCENARIO_CACHE_SIZE = 4


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    """Which file is at ``path`` now (device, inode, size, modification
    time; None when there is none): a file the batch did not change gives
    the same stamp, without reading it (a published module runs to tens of
    megabytes, and a worker asks for it at every game)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _scenario(opts: Options) -> Any:
    from vmodtool.scenario import load_scenario
    from vmodtool.vassal.module import Module

    assert opts.scenario is not None
    key: tuple[Any, ...] = (str(opts.scenario), _stamp(opts.scenario), _s(opts.module),
           _stamp(opts.module) if opts.module is not None and opts.module.is_file() else None,
           opts.board_sizes)
    if opts.module is not None and opts.module.is_dir():
        key = ()                      # an unpacked module folder: not cached
    if key and key in _SCENARIOS:
        return _SCENARIOS[key]
    opened = Module.open(opts.module) if opts.module is not None else None
    loaded = (load_scenario(opts.scenario, module=opened, board_sizes=dict(opts.board_sizes) or None), opened)
    if key:
        if len(_SCENARIOS) >= _SCENARIO_CACHE_SIZE:
            _SCENARIOS.pop(next(iter(_SCENARIOS)))
        _SCENARIOS[key] = loaded
    return loaded


def _audit(task: Task) -> tuple[Any, int]:
    from vmodtool.audit.game import audit_logs
    from vmodtool.findings import check_outcome

    opts = task.options
    if opts.scenario is None:
        raise VmodError("audit needs a scenario: give --scenario or a scenario column in the manifest",
                        place=f"game {task.game.name}")
    scenario, opened = _scenario(opts)
    report = audit_logs(list(task.game.files), scenario, module=opened,
                        board_sizes=dict(opts.board_sizes) or None, plugin_folders=list(opts.plugins),
                        trust_scenario_plugins=opts.trust_scenario_plugins, only=list(opts.rules) or None,
                        integrity=opts.integrity)
    return check_outcome(report)


def _check_game(task: Task) -> tuple[Any, int]:
    from vmodtool.checkgame import CHECKS, check_game, record_game
    from vmodtool.findings import check_outcome

    opts = task.options
    record = record_game(list(task.game.files), module=opts.module,
                         board_sizes=dict(opts.board_sizes) or None)
    return check_outcome(check_game(record, list(opts.checks) or list(CHECKS)))


def _replay(task: Task) -> tuple[Any, int]:
    from vmodtool.replay import Replay
    from vmodtool.replay.output import StepCount, end_records

    opts = task.options
    replay = Replay.open(list(task.game.files), module=opts.module, board_sizes=dict(opts.board_sizes))
    ((steps, undo),) = replay.run(StepCount())
    return json.loads(json.dumps(end_records(replay, steps, undo), ensure_ascii=False)), 0


def _lint(task: Task) -> tuple[Any, int]:
    from vmodtool.findings import check_outcome
    from vmodtool.lint import lint_result

    outcomes = [check_outcome(lint_result(str(path), task.options.min_severity)) for path in task.game.files]
    code = max((code for _, code in outcomes), default=0)
    return (outcomes[0][0] if len(outcomes) == 1 else [report for report, _ in outcomes]), code


def _inspect(task: Task) -> tuple[Any, int]:
    from vmodtool.inspection import inspect_file

    opts = task.options
    reports = [inspect_file(path, board_sizes=dict(opts.board_sizes), module=opts.module)
               for path in task.game.files]
    return json.loads(json.dumps(reports[0] if len(reports) == 1 else reports, ensure_ascii=False)), 0


_RUNNERS: dict[str, Callable[[Task], tuple[Any, int]]] = {
    "audit": _audit, "check-game": _check_game, "replay": _replay, "lint": _lint, "inspect": _inspect}


@contextmanager
def _materialised(task: Task) -> Iterator[tuple[Task, dict[str, str]]]:
    """A task whose files came as bytes: written into a private temporary
    folder (the same layout under it), the task's paths pointing there; with
    each local path's original name, to name the files in messages and
    results as the user named them (empty when the files were not sent)."""
    if task.payload is None:
        yield task, {}
        return
    folder = Path(tempfile.mkdtemp(prefix="vmodtool-batch-"))
    names: dict[str, str] = {}
    try:
        def local(path: Path | None) -> Path | None:
            if path is None:
                return None
            target = folder / _relative(path)
            names[str(target)] = str(path)
            return target

        for name, data in task.payload.items():
            target = local(Path(name))
            assert target is not None
            if target.parent != folder:
                output_folder(folder, target.parent.relative_to(folder).as_posix())
            target.write_bytes(data)
        game = Game(task.game.name, tuple(local(p) or p for p in task.game.files),
                    local(task.game.module), local(task.game.scenario))
        opts = replace(task.options, module=local(task.options.module), scenario=local(task.options.scenario),
                       plugins=tuple(local(p) or p for p in task.options.plugins))
        yield replace(task, game=game, options=opts, payload=None), names
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _renamed(text: str, names: Mapping[str, str]) -> str:
    for local in sorted(names, key=len, reverse=True):
        text = text.replace(local, names[local])
    return text


def _relative(path: Path) -> Path:
    """An absolute path made relative and safe to put under a folder: no
    ``..``, no root (a payload is untrusted as any input)."""
    parts = [p for p in path.parts if p not in ("", "/", "\\", "..", ".") and not p.endswith(":")]
    return Path(*parts) if parts else Path("file")


def payload_of(task: Task) -> dict[str, bytes]:
    """The bytes of every input file of a task, by path (for workers that do
    not share the file system)."""
    out = {}
    for path in input_files(task):
        try:
            out[str(path)] = path.read_bytes()
        except OSError:
            pass                     # the worker reports the missing file as the command would
    return out


def run_task(task: Task) -> dict[str, Any]:
    """Run one game; the record (see the module's doc).  Bad input fails the
    game with the command's message; any other exception is a bug and is
    raised (the batch reports it as the game's internal error)."""
    from vmodtool.scenario.problems import ScenarioProblems
    from vmodtool.textsafe import escape_controls

    start = time.perf_counter()
    record: dict[str, Any] = {"game": task.game.name, "command": task.options.command,
                              "files": [str(p) for p in task.game.files]}
    with _materialised(task) as (local, names):
        try:
            result, code = _RUNNERS[task.options.command](local)
            if names:
                result = json.loads(_renamed(json.dumps(result, ensure_ascii=False), names))
            record.update(status=STATUS_OF_EXIT[code], exit_code=code, result=result)
        except VmodError as exc:
            message = str(exc)
            details = [escape_controls(line) for line in exc.lines()] if isinstance(exc, ScenarioProblems) else []
            if names:                       # name the files as the user named them
                message = _renamed(message, names)
                details = [_renamed(line, names) for line in details]
            record.update(status="failed", exit_code=2, error=message)
            if details:
                record["details"] = details
    _settle_memory()
    record["seconds"] = round(time.perf_counter() - start, 4)
    record["key"] = task.key
    return record


#: a worker's resident memory above its level after the last full
#: collection that calls for another one (bytes); and, where the resident
#: size cannot be read, every how many games
_GROWTH_BEFORE_COLLECT = 64 << 20
_GAMES_BEFORE_COLLECT = 8
_settled = {"rss": 0, "games": 0}


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _settle_memory() -> None:
    """Keep a worker's memory bounded by its largest game, not by how many
    it ran: a replay hands what it made to the oldest GC generation (see
    :func:`vmodtool.gc_policy.relaxed_gc`), so a game's cyclic garbage
    waits for a full collection, which a worker running game after game
    would reach late (300 games: 200 MB, against 45 MB).  A full collection
    costs about half a small game, so it runs once the resident size has
    grown by 64 MB since the last one (every 8 games where that cannot be
    read)."""
    import gc

    _settled["games"] += 1
    rss = _resident_bytes()
    if rss is None:
        due = _settled["games"] >= _GAMES_BEFORE_COLLECT
    else:
        due = rss - _settled["rss"] > _GROWTH_BEFORE_COLLECT
    if due:
        gc.collect()
        _settled["games"] = 0
        _settled["rss"] = _resident_bytes() or 0
