"""Run every game of a batch: on all local cores, or on a Dask cluster.

Records stream as games finish: to a callback (the command's progress bar
and standard output) and, with an output file, into ``OUTPUT.partial`` —
appended and flushed record by record, so an interrupted run loses at most
the games that were running.  At the end the output file is written
atomically, one record per game in the batch's order, and the partial file
removed.

A re-run reuses the record of every game whose key (its inputs' content,
the options and vmodtool's version: :func:`~vmodtool.batch.tasks.task_key`)
is in the previous output or in the partial file of an interrupted run; a
game whose run ended in an internal error (a bug, a worker lost twice) is
run again.  A record read back is untrusted text: it is reused only when
it proves itself — the shape of a record, this game's name, command and
files, and this user's HMAC signature over it (see :func:`_proven`) — and
read with a bound on its line (:data:`MAX_RECORD_BYTES`); any other is run
again.  Memory stays bounded by the games in flight: previous records
are indexed by their byte offsets, not held, and no more games are handed
out than the workers can run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeGuard

from vmodtool.batch.games import Game
from vmodtool.batch.tasks import (
    STATUS_OF_EXIT,
    Options,
    Task,
    forget_trees,
    game_options,
    payload_of,
    run_task,
    task_key,
)
from vmodtool.errors import VmodError
from vmodtool.fileio import parse_json
from vmodtool.pools import process_pool

__all__ = ["BatchProgress", "BatchSummary", "run_batch", "EXIT_INTERNAL"]

#: the exit code of a game whose run failed inside vmodtool (a bug) or whose
#: worker was lost twice: the same code the CLI gives a bug
EXIT_INTERNAL = 70

#: the games not ``ok`` a summary holds (the rest are counted): the summary
#: of a 300,000-game archive of missing files stays small
NOT_OK_SHOWN = 200

#: the longest record line a re-run reads back; a longer one is never held
#: (its game is run again)
MAX_RECORD_BYTES = 64 << 20

#: how often one game may break a local process pool (a worker killed by the
#: system, e.g. out of memory) before it is reported as an internal error
_POOL_ATTEMPTS = 2


@dataclass
class BatchProgress:
    """What a progress bar shows: games done (run or reused), failed, and
    an estimate of the time left from the games run so far."""

    total: int
    done: int = 0
    failed: int = 0
    reused: int = 0
    started: float = field(default_factory=time.monotonic)
    last: dict[str, Any] | None = None

    @property
    def seconds_left(self) -> float | None:
        ran = self.done - self.reused
        if ran <= 0:
            return None
        elapsed = time.monotonic() - self.started
        return elapsed / ran * (self.total - self.done)


@dataclass
class BatchSummary:
    """Counts of a finished batch, and the short record of each game that
    was not ``ok`` (its name, status, exit code and message or counts)."""

    games: int
    statuses: dict[str, int]
    reused: int
    seconds: float
    not_ok: list[dict[str, Any]]
    workers: int
    peak_worker_rss_mb: float | None = None
    #: games not ``ok`` past the first :data:`NOT_OK_SHOWN` (counted, not held)
    not_ok_more: int = 0

    @property
    def exit_code(self) -> int:
        """2 when a game failed (bad input), 70 when one hit a bug, else 1
        when one has findings, 3 when one could not be checked fully, else 0."""
        s = self.statuses
        if s.get("error"):
            return EXIT_INTERNAL
        if s.get("failed"):
            return 2
        if s.get("findings"):
            return 1
        if s.get("not_checked"):
            return 3
        return 0

    def as_json(self) -> dict[str, Any]:
        return {"type": "summary", "games": self.games, "statuses": self.statuses, "reused": self.reused,
                "seconds": round(self.seconds, 3), "workers": self.workers,
                "peak_worker_rss_mb": self.peak_worker_rss_mb, "exit_code": self.exit_code}


def _short(record: dict[str, Any]) -> dict[str, Any]:
    out = {"game": record["game"], "status": record["status"], "exit_code": record["exit_code"]}
    if "error" in record:
        out["error"] = record["error"]
    else:
        out["note"] = _note(record.get("result"))
    return out


def _note(result: Any) -> str:
    """A few words on a result for the summary table."""
    if isinstance(result, list) and result and isinstance(result[-1], dict) \
            and result[-1].get("type") == "summary":                                # replay
        last = result[-1]
        return f"{last.get('steps')} steps, {last.get('chain_differences')} chain difference(s), " \
               f"{last.get('warnings')} warning(s)"
    if not isinstance(result, dict):
        return ""
    parts = []
    summary = result.get("summary")
    if isinstance(summary, dict):
        totals: dict[str, int] = {}
        for key, value in summary.items():
            if isinstance(value, dict):                                             # audit: per rule
                for severity, count in value.items():
                    totals[severity] = totals.get(severity, 0) + int(count)
            elif isinstance(value, int):                                            # lint
                totals[key] = totals.get(key, 0) + value
        parts.append(", ".join(f"{v} {k}" for k, v in totals.items() if v) or "nothing found")
    if isinstance(result.get("suspicious"), int):                                   # check-game
        parts.append(f"{result['suspicious']} suspicious")
    integrity = result.get("integrity")
    if isinstance(integrity, dict) and isinstance(integrity.get("suspicious"), int):
        parts.append(f"integrity: {integrity['suspicious']} suspicious")
    if result.get("complete") is False:
        parts.append("NOT everything checked")
    return "; ".join(parts)


# -- the record files ------------------------------------------------------------------

def _index(path: Path, *, trim: bool = False) -> dict[str, tuple[int, int]]:
    """key -> (offset, length) of each whole record of a JSON Lines file
    that has the shape of a record (:func:`_well_formed`; later records of a
    key win, internal errors are not reused), read with a bound on a line
    (:data:`MAX_RECORD_BYTES`: a longer one is skipped, not held).  With
    ``trim`` a torn last line (an interrupted write) is cut off."""
    from vmodtool.fileio import bounded_lines

    index: dict[str, tuple[int, int]] = {}
    if not path.is_file():
        return index
    good = 0
    with path.open("rb") as fh:
        for line in bounded_lines(fh, MAX_RECORD_BYTES):
            if not line.whole:
                break
            good = line.offset + line.length
            try:
                record = None if line.data is None else parse_json(line.data)
            except ValueError:
                record = None
            if _well_formed(record):
                index[record["key"]] = (line.offset, line.length)
    if trim and good != path.stat().st_size:
        with path.open("r+b") as fh:
            fh.truncate(good)
    return index


_KEY = re.compile(r"[0-9a-f]{64}")
_REUSABLE = {status: code for code, status in STATUS_OF_EXIT.items()}


def _well_formed(record: Any) -> TypeGuard[dict[str, Any]]:
    """A record a re-run may reuse, by its shape: a content key, a status
    other than an internal error with its own exit code, the game, command
    and files as text, and the result (or, failed, the message)."""
    if not isinstance(record, dict):
        return False
    key, status, code = record.get("key"), record.get("status"), record.get("exit_code")
    if not isinstance(key, str) or not _KEY.fullmatch(key) or not isinstance(status, str) \
            or status not in _REUSABLE or type(code) is not int or _REUSABLE[status] != code:
        return False
    files = record.get("files")
    if not isinstance(record.get("game"), str) or not isinstance(record.get("command"), str) \
            or not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return False
    return isinstance(record.get("error"), str) if status == "failed" else "result" in record


def _proven(record: Any, task: Task, secret: bytes | None) -> TypeGuard[dict[str, Any]]:
    """Whether a record read back may stand for ``task``'s run: well formed,
    of this game, command and files, and signed with this user's key (a
    record anyone else wrote, or edited, proves nothing: its game is run
    again).  Without a key nothing is reused."""
    if not _well_formed(record) or secret is None or record["key"] != task.key \
            or record["game"] != task.game.name or record["command"] != task.options.command \
            or record["files"] != [str(p) for p in task.game.files]:
        return False
    signature = record.get("signature")
    # compared as bytes: compare_digest refuses text that is not ASCII (a forged signature may be)
    return isinstance(signature, str) and hmac.compare_digest(signature.encode("utf-8", "surrogatepass"),
                                                              _signature(secret, record).encode("ascii"))


def _signature(secret: bytes, record: dict[str, Any]) -> str:
    """This user's HMAC of a record as it reads back (its position in the
    batch and its time left out: they change when it is reused)."""
    body = {k: v for k, v in record.items() if k not in _UNSIGNED}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return "hmac-sha256:" + hmac.new(secret, text, hashlib.sha256).hexdigest()


_UNSIGNED = frozenset({"index", "seconds", "signature"})


def _signed_line(record: dict[str, Any], secret: bytes | None) -> bytes:
    """The record's line, signed (when there is a key) as it will read back:
    the record itself when its line is its JSON as is (the usual case),
    else what the line's escapes make of it."""
    from vmodtool.textsafe import escape_report

    body = {k: v for k, v in record.items() if k != "signature"}
    text = json.dumps(body, ensure_ascii=False)
    line = escape_report(text)
    if secret is not None:
        body["signature"] = _signature(secret, body if line == text else parse_json(line))
        line = escape_report(json.dumps(body, ensure_ascii=False))
    return (line + "\n").encode("utf-8")


def _read_at(path: Path, where: tuple[int, int]) -> bytes:
    with path.open("rb") as fh:
        fh.seek(where[0])
        return fh.read(where[1])


def _line(record: dict[str, Any]) -> bytes:
    """One JSON Lines record; no control character, C1 control or bidi
    override from an input survives (as in every report of vmodtool)."""
    from vmodtool.textsafe import escape_report

    return (escape_report(json.dumps(record, ensure_ascii=False)) + "\n").encode("utf-8")


# -- execution -------------------------------------------------------------------------

Runner = Callable[[Iterable[Task], Callable[[Task, dict[str, Any]], None]], "float | None"]


class _Queue:
    """The tasks still to hand out: made one by one as they are taken (an
    archive's tasks are never all held), and those handed back to be run
    again (a broken pool), which come first."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._fresh = iter(tasks)
        self._back: list[Task] = []

    def __bool__(self) -> bool:
        if not self._back:
            task = next(self._fresh, None)
            if task is None:
                return False
            self._back.append(task)
        return True

    def pop(self) -> Task:
        """The next task (after a true ``bool``)."""
        return self._back.pop()

    def append(self, task: Task) -> None:
        self._back.append(task)


def _internal(task: Task, message: str) -> dict[str, Any]:
    return {"game": task.game.name, "command": task.options.command,
            "files": [str(p) for p in task.game.files], "status": "error", "exit_code": EXIT_INTERNAL,
            "error": message, "seconds": 0.0, "key": task.key}


def _bug(task: Task, exc: BaseException) -> dict[str, Any]:
    return _internal(task, f"internal error in vmodtool ({type(exc).__name__}: {exc}); "
                           "please report it with the game's files")


def _run_here(tasks: Iterable[Task], done: Callable[[Task, dict[str, Any]], None]) -> float | None:
    for task in tasks:
        try:
            record = run_task(task)
        except Exception as exc:  # noqa: BLE001 - a bug in one game must not stop the others
            record = _bug(task, exc)
        done(task, record)
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run_local(jobs: int) -> Runner:
    def run(tasks: Iterable[Task], done: Callable[[Task, dict[str, Any]], None]) -> float | None:
        import multiprocessing

        queue = _Queue(tasks)
        others = {child.pid for child in multiprocessing.active_children()}
        peak: float | None = None
        attempts: dict[int, int] = {}
        while queue:
            pool = process_pool(jobs)
            running: dict[Future[dict[str, Any]], Task] = {}
            broken = False
            try:
                while queue or running:
                    while queue and len(running) < 2 * jobs and not broken:
                        task = queue.pop()
                        try:
                            running[pool.submit(run_task, task)] = task
                        except BrokenProcessPool:
                            queue.append(task)
                            broken = True
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        task = running.pop(future)
                        try:
                            record = future.result()
                        except BrokenProcessPool:
                            broken = True
                            attempts[task.index] = attempts.get(task.index, 0) + 1
                            if attempts[task.index] >= _POOL_ATTEMPTS:
                                done(task, _internal(task, "the worker process running this game died "
                                                           f"{_POOL_ATTEMPTS} times (out of memory?)"))
                            else:
                                queue.append(task)
                            continue
                        except Exception as exc:  # noqa: BLE001 - a bug in one game must not stop the others
                            record = _bug(task, exc)
                        done(task, record)
                    if broken and not running:
                        break
            finally:
                workers = [c.pid for c in multiprocessing.active_children() if c.pid not in others]
                peak = max([peak or 0.0, *(_high_water_mb(pid) or 0.0 for pid in workers)]) or None
                pool.shutdown(wait=True, cancel_futures=True)
        return peak
    return run


#: how long connecting to a Dask scheduler may take
_DASK_CONNECT_SECONDS = 10


def _run_dask(address: str, send_files: bool) -> Runner:
    def run(tasks: Iterable[Task], done: Callable[[Task, dict[str, Any]], None]) -> float | None:
        import importlib

        from vmodtool.textsafe import escape_controls

        try:
            # untyped (and absent from the lint environment): used through Any
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise VmodError("--dask needs Dask distributed: pip install 'vmodtool[dask]'") from None
        try:
            client = distributed.Client(address, timeout=_DASK_CONNECT_SECONDS)
        except Exception as exc:  # noqa: BLE001 - whatever answers there is no input of ours: no bug
            # a closed port is an OSError; something else answering that
            # port (not a Dask scheduler) makes the protocol read a length
            # of exabytes (MemoryError), a struct error or a comm error
            if isinstance(exc, (OSError, TimeoutError, ValueError)) and not _garbled(exc):
                raise VmodError(f"--dask {address}: cannot reach the scheduler "
                                f"({escape_controls(str(exc))[:200]})") from None
            raise VmodError(f"--dask {address}: what answers there is not a Dask scheduler (its reply "
                            f"cannot be read: {type(exc).__name__})") from None
        try:
            slots = max(1, sum(client.nthreads().values()))
            pending = _Queue(tasks)
            futures: dict[Any, Task] = {}

            def submit(task: Task) -> Any:
                sent = Task(task.index, task.game, task.options, task.key,
                            payload_of(task) if send_files else None)
                future = client.submit(run_task, sent, key=f"vmodtool-batch-{task.index}-{task.key[:16]}",
                                       pure=False, retries=1)
                futures[future] = task
                return future

            first: list[Any] = []
            while pending and len(first) < 2 * slots:
                first.append(submit(pending.pop()))
            queue = distributed.as_completed(first)
            for future in queue:
                task = futures.pop(future)
                try:
                    record = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker or a bug fails this game only
                    name = type(exc).__name__
                    record = _internal(task, "every Dask worker that ran this game was lost (KilledWorker)"
                                       if name == "KilledWorker" else f"internal error ({name}: {exc})")
                done(task, record)
                future.release()
                if pending:
                    queue.add(submit(pending.pop()))
            peaks = client.run(_peak_rss_mb)
            return max(peaks.values()) if peaks else None
        finally:
            client.close()
    return run


def _garbled(exc: BaseException) -> bool:
    """Whether a connect error comes from reading a reply that is no Dask
    message (a length of exabytes, an array dimension) rather than from the
    address or the network."""
    text = str(exc)
    return isinstance(exc, ValueError) and ("dimension" in text or "buffer" in text or "unpack" in text)


def _high_water_mb(pid: int | None) -> float | None:
    """The peak resident memory of a live process (Linux), else ``None``."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def _peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- the batch -------------------------------------------------------------------------

def run_batch(games: Sequence[Game], options: Options, *, output: Path | None = None, jobs: int = 1,
              dask: str | None = None, send_files: bool = False, rerun: bool = False,
              stream: IO[bytes] | None = None,
              on_progress: Callable[[BatchProgress], None] | None = None) -> BatchSummary:
    """Run ``options.command`` on every game.  ``output``: the JSON Lines
    file (resumable, written atomically at the end); ``stream``: where each
    record goes as it finishes; ``jobs``: local processes (1: in this
    process); ``dask``: a scheduler's address instead; ``rerun``: run every
    game even if a previous record fits.

    A previous record is reused only when it proves itself
    (:func:`_proven`: its shape, its game and this user's signature);
    anything else is run again.  What is held per game besides ``games``
    is its key (32 bytes) and where its record is (17 bytes); its task is
    made when it is handed out, so that an archive of a few hundred
    thousand games costs a few hundred bytes a game."""
    from vmodtool import __version__
    from vmodtool.assemble.scenario_cache import user_secret
    from vmodtool.fileio import atomic_write, check_output_target

    forget_trees()
    secret = user_secret()
    digests: dict[Path, str] = {}
    count = len(games)
    keys = bytearray(32 * count)             # each game's key (sha256), 32 bytes a game
    for index, game in enumerate(games):
        key = task_key(Task(index, game, game_options(game, options)), __version__, digests)
        keys[32 * index:32 * (index + 1)] = bytes.fromhex(key)
    del digests

    def task_at(index: int) -> Task:
        """The task of a game, made when it is needed (not held)."""
        game = games[index]
        return Task(index, game, game_options(game, options), keys[32 * index:32 * (index + 1)].hex())

    partial = None if output is None else output.with_name(output.name + ".partial")
    old = {} if output is None or rerun else _index(output)
    if partial is not None:
        check_output_target(partial)
    previous = {} if partial is None else _index(partial, trim=True)
    if rerun:
        previous = {}
    progress = BatchProgress(total=count)
    statuses: dict[str, int] = {}
    not_ok: list[dict[str, Any]] = []
    more = 0
    # where each game's record is: 0 nowhere yet, 1 the partial file, 2 the previous output
    sources = [None, partial, output]
    source = bytearray(count)
    offsets = array("q", bytes(8 * count))
    lengths = array("q", bytes(8 * count))
    sink = None if partial is None else partial.open("ab")
    start = time.monotonic()
    try:
        def account(record: dict[str, Any], reused: bool) -> None:
            nonlocal more
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            if record["status"] != "ok":
                if len(not_ok) < NOT_OK_SHOWN:
                    not_ok.append(_short(record))
                else:
                    more += 1
            progress.done += 1
            progress.reused += reused
            progress.failed += record["status"] in ("failed", "error")
            progress.last = record
            if on_progress is not None:
                on_progress(progress)

        def finished(task: Task, record: dict[str, Any]) -> None:
            record = {"index": task.index, **record}
            line = _signed_line(record, secret)
            if sink is not None and partial is not None:
                offset = sink.tell()
                sink.write(line)
                sink.flush()
                source[task.index], offsets[task.index], lengths[task.index] = 1, offset, len(line)
            if stream is not None:
                stream.write(line)
                stream.flush()
            account(record, False)

        to_run = array("q")
        for index in range(count):
            task = task_at(index)
            kind, where = (1, previous[task.key]) if partial is not None and task.key in previous else \
                (2, old[task.key]) if output is not None and task.key in old else (0, (0, 0))
            path = sources[kind]
            record = None
            if path is not None:
                try:
                    record = parse_json(_read_at(path, where))
                except (OSError, ValueError):
                    record = None
            if not _proven(record, task, secret):
                to_run.append(index)
                continue
            record = {**record, "index": task.index}
            source[task.index], offsets[task.index], lengths[task.index] = kind, *where
            if stream is not None:
                stream.write(_signed_line(record, secret))
                stream.flush()
            account(record, True)

        runner = _run_dask(dask, send_files) if dask else _run_here if jobs <= 1 else _run_local(jobs)
        peak = runner((task_at(i) for i in to_run), finished)
        if sink is not None:
            sink.close()
            sink = None
        if output is not None and partial is not None:
            places = ((sources[source[i]], (offsets[i], lengths[i])) for i in range(count))
            atomic_write(output, _ordered(places))
            partial.unlink(missing_ok=True)
    finally:
        if sink is not None:
            sink.close()
    workers = 0 if dask else max(1, jobs)
    return BatchSummary(count, statuses, progress.reused, time.monotonic() - start,
                        sorted(not_ok, key=lambda r: r["game"]), workers,
                        None if peak is None else round(peak, 1), more)


def _ordered(places: Iterator[tuple[Path | None, tuple[int, int]]]) -> Iterator[bytes]:
    """The records in the batch's order, each read back from where it was
    written (the partial file or the previous output), its index set."""
    for index, (path, at) in enumerate(places):
        assert path is not None, "every game has its record"
        record = json.loads(_read_at(path, at))
        record["index"] = index             # not signed: the signature stands
        yield _line(record)


def cpu_count() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
