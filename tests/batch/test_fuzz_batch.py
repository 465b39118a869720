"""Bounded fuzzing of what a batch reads that a user (or someone else) may
have written: CSV and YAML manifests and resume files (``OUTPUT.partial``).

A mutated manifest may only be refused with a :class:`VmodError` (a
located ``ManifestError``); a mutated resume file may change nothing of the
batch's result: every record it holds either proves itself (and is the
record the game's run gives) or its game is run again, so the output equals
a clean run's.  ``benchmarks/fuzz_batch.py`` runs the same targets for a
bounded time."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.scenario.test_hostile import HOSTILE_CHARS, HOSTILE_NUMBERS, mutate
from vmodtool.batch import Options, games_from, run_batch
from vmodtool.batch.games import LOG_SUFFIXES, Game
from vmodtool.errors import VmodError

DEMO_LOG = REPO / "examples" / "formats" / "demo.vlog"

SEED_CSV = ("game,file,order,module,scenario\n"
            "игра-1,logs/a.vlog,2,,\n"
            "игра-1,logs/b.vlog,1,,\n"
            '"game, two","logs/two ""quoted"".vlog",,m.vmod,s.yaml\n'
            "three,/abs/c.vsav,1.5,,\n").encode()
SEED_YAML = ("games:\n"
             "  - name: игра-1\n"
             "    files: [logs/a.vlog, logs/b.vlog]\n"
             "  - name: two\n"
             "    files: logs/c.vlog\n"
             "    module: m.vmod\n"
             "    scenario: s.yaml\n").encode()

#: the JSON values a resume record's fields are swapped for (``sub`` ops)
HOSTILE_VALUES = ('[]', '{}', 'null', 'true', '0', '70', '-1', '1e999', '"ok"', '"error"', '"findings"', '"0"',
                  '[0]', '"' + "0" * 64 + '"', '9' * 400)
RESUME_FIELDS = ('"status": ', '"exit_code": ', '"key": ', '"game": ', '"files": ', '"result": ', '"error": ',
                 '"signature": ', '"command": ')


def resume_games(folder: Path) -> list[Game]:
    """Three games: a real log, a missing file, a 0-byte file."""
    for name in ("a", "b", "c"):
        (folder / "games" / name).mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO_LOG, folder / "games" / "a" / "g.vlog")
    (folder / "games" / "c" / "g.vlog").write_bytes(b"")
    return [*games_from([folder / "games" / "a", folder / "games" / "c"], LOG_SUFFIXES),
            Game("missing", (folder / "games" / "b" / "gone.vlog",))]


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def resume_baseline(folder: Path) -> tuple[list[Game], bytes, list[dict[str, Any]]]:
    """The games, the records file of a clean run (the seed of the resume
    mutations) and its records (what every resumed run must give)."""
    games = resume_games(folder)
    out = folder / "clean.jsonl"
    run_batch(games, Options("check-game"), output=out)
    data = out.read_bytes()
    return games, data, _strip([json.loads(line) for line in data.splitlines()])


def exercise_manifest(kind: str, content: bytes, folder: Path) -> int | None:
    """Read ``content`` as a manifest (``csv``/``yaml``): the number of games,
    or None when it is refused with a VmodError (anything else propagates:
    a finding)."""
    path = folder / f"m.{kind}"
    path.write_bytes(content)
    try:
        return len(games_from([path], LOG_SUFFIXES))
    except VmodError as exc:
        assert "\n" not in str(exc), str(exc)
        return None


def exercise_resume(content: bytes, folder: Path, games: list[Game], baseline: list[dict[str, Any]]) -> int:
    """Resume a batch from ``content`` as its partial file; the records
    reused.  The output must equal the clean run's (a finding otherwise:
    AssertionError)."""
    out = folder / "r.jsonl"
    out.unlink(missing_ok=True)
    (folder / "r.jsonl.partial").write_bytes(content)
    summary = run_batch(games, Options("check-game"), output=out)
    got = _strip([json.loads(line) for line in out.read_bytes().splitlines()])
    assert got == baseline, "a resumed run differs from a clean run"
    assert not (folder / "r.jsonl.partial").exists()
    return summary.reused


def resume_ops(draw_index: int, where: float, field: int, value: int) -> list[tuple[str, Any, Any]]:
    """A ``sub`` of one field's value of a resume record (``mutate``'s op)."""
    del draw_index, where
    name = RESUME_FIELDS[field % len(RESUME_FIELDS)]
    return [("sub", name, name + HOSTILE_VALUES[value % len(HOSTILE_VALUES)] + ', "was": ')]


FUZZ = settings(max_examples=int(os.environ.get("VMODTOOL_FUZZ_EXAMPLES", "60")), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

_byte_op = st.tuples(st.sampled_from(["flip", "insert", "delete", "truncate"]),
                     st.floats(0, 1, exclude_max=True), st.integers(0, 255))
_text_op = st.one_of(
    _byte_op,
    st.tuples(st.just("char"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_CHARS) - 1)),
    st.tuples(st.just("number"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_NUMBERS) - 1)),
    st.tuples(st.just("repeat"), st.floats(0, 1, exclude_max=True), st.integers(1, 50)),
    st.tuples(st.just("nest"), st.floats(0, 1, exclude_max=True), st.sampled_from([1, 2, 100, 2000])),
)


@FUZZ
@given(kind=st.sampled_from(["csv", "yaml"]), ops=st.lists(_text_op, min_size=1, max_size=4))
def test_a_mutated_manifest_is_read_or_refused_with_one_located_line(kind: str, ops: list) -> None:
    seed = SEED_CSV if kind == "csv" else SEED_YAML
    with tempfile.TemporaryDirectory() as folder:
        exercise_manifest(kind, mutate(kind, seed, ops), Path(folder))


def test_the_seed_manifests_list_their_games(tmp_path: Path) -> None:
    assert exercise_manifest("csv", SEED_CSV, tmp_path) == 3
    assert exercise_manifest("yaml", SEED_YAML, tmp_path) == 2


_RESUME: dict[str, Any] = {}


def _resume_state() -> tuple[Path, list[Game], bytes, list[dict[str, Any]]]:
    """One clean run for the whole test (a folder of its own, kept for the
    session: Hypothesis calls the test many times)."""
    if not _RESUME:
        folder = Path(tempfile.mkdtemp(prefix="vmodtool-fuzz-resume-"))
        _RESUME["state"] = (folder, *resume_baseline(folder))
    state: tuple[Path, list[Game], bytes, list[dict[str, Any]]] = _RESUME["state"]
    return state


@FUZZ
@given(ops=st.lists(st.one_of(_text_op.map(lambda op: [op]),
                              st.builds(resume_ops, st.integers(0, 2), st.floats(0, 1),
                                        st.integers(0, 100), st.integers(0, 100))),
                    min_size=1, max_size=3))
def test_a_mutated_resume_file_changes_nothing_of_the_result(ops: list) -> None:
    folder, games, seed, baseline = _resume_state()
    flat = [op for group in ops for op in group]
    exercise_resume(mutate("jsonl", seed, flat), folder, games, baseline)


def test_the_unmutated_resume_file_is_reused_whole(tmp_path: Path) -> None:
    games, seed, baseline = resume_baseline(tmp_path)
    assert exercise_resume(seed, tmp_path, games, baseline) == 3
