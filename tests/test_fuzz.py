"""Bounded fuzzing: random mutations of real files (the corpus when present,
else the bundled examples) fed to every reader.  The only exception allowed
out is vmodtool's own VmodError."""

import functools
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from vmodtool.errors import VmodError
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.commands import AddPiece, LogEntry, leaves
from vmodtool.vassal.metadata import ModuleMetadata, SaveMetadata
from vmodtool.vassal.obfuscation import encode_saved_game
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "formats"
SMALL = 200_000


def _small_files(patterns):
    found = []
    for pattern in patterns:
        found += [p for p in sorted((SHARED / "corpus").glob(pattern)) if p.stat().st_size < SMALL]
    return found


SAVES = _small_files(["*/*.vsav", "*/*.vlog", "*/*/*.log", "*/*/*.sav"]) or [EXAMPLES / "demo.vlog"]
BUILDFILES = (_small_files(["*/buildFile.xml", "*/buildFile"])
              or [EXAMPLES / "demo-module" / "buildFile.xml"])
METADATA = _small_files(["*/moduledata"]) or [EXAMPLES / "demo-module" / "moduledata"]

_mutation = st.lists(
    st.tuples(st.sampled_from(["flip", "insert", "delete", "truncate"]),
              st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
    min_size=1, max_size=4)


def _mutate(data: bytes, ops) -> bytes:
    buf = bytearray(data)
    for op, where, value in ops:
        if not buf:
            break
        i = int(where * len(buf))
        if op == "flip":
            buf[i] ^= value or 1
        elif op == "insert":
            buf[i:i] = bytes([value])
        elif op == "delete":
            del buf[i:i + 1 + value % 8]
        else:
            del buf[i:]
    return bytes(buf)


def _exercise_piece(text: str) -> None:
    piece = PieceDef.parse(text)
    assert isinstance(piece.name, str)
    piece.properties()
    piece.basic_state()


def _exercise_save(game: SavedGame, known: frozenset[str] = frozenset()) -> None:
    """Read everything a save holds, but of its commands only those whose
    text is not in ``known`` (the undamaged file's commands: reading one is
    a function of its text, so those cannot have been damaged; the redactor
    still learns from the whole damaged tree)."""
    redactor = game.redactor()
    for _, cmd in leaves(game.commands):
        if cmd.text in known:
            continue
        cmd.record(redactor)
        inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
        if isinstance(inner, AddPiece) and not inner.is_stack:
            _exercise_piece(inner.text)
    game.players()
    game.restore_part()


@functools.cache
def _undamaged(path: Path) -> tuple[str, frozenset[str]]:
    """The decoded text of a save and the texts of its commands (read
    undamaged by the corpus tests; here only damaged ones are read)."""
    game = SavedGame.read(path)
    return game.text, frozenset(cmd.text for _, cmd in leaves(game.commands))


FUZZ = settings(max_examples=int(os.environ.get("VMODTOOL_FUZZ_EXAMPLES", "150")), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- scenario files (YAML, TOML, CSV): only VmodError may come out of loading --

import tempfile  # noqa: E402

import hypothesis  # noqa: E402

from tests.scenario.test_hostile import HOSTILE_CHARS, HOSTILE_NUMBERS, REPRODUCERS, exercise, mutate  # noqa: E402
from tests.scenario.test_hostile import scenario_texts as _scenario_texts  # noqa: E402

SCENARIOS = _scenario_texts()
SCENARIO_FUZZ = settings(FUZZ, max_examples=int(os.environ.get("VMODTOOL_FUZZ_EXAMPLES", "60")))

_scenario_op = st.one_of(
    st.tuples(st.sampled_from(["flip", "insert", "delete", "truncate"]),
              st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
    st.tuples(st.just("number"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_NUMBERS) - 1)),
    st.tuples(st.just("nest"), st.floats(0, 1, exclude_max=True), st.sampled_from([1, 2, 63, 65, 100, 2000])),
    st.tuples(st.just("char"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_CHARS) - 1)),
    st.tuples(st.just("repeat"), st.floats(0, 1, exclude_max=True), st.integers(1, 200)),
)
_scenario_ops = st.lists(_scenario_op, min_size=1, max_size=4)


def _check_mutated_scenario(name, ops):
    kind, data = SCENARIOS[name]
    with tempfile.TemporaryDirectory() as folder:
        exercise(kind, mutate(kind, data, ops), Path(folder))   # raises only VmodError (caught inside)


def _seeds(kinds):
    def apply(test):
        for name, _kind, ops in REPRODUCERS:
            if SCENARIOS[name][0] in kinds:
                test = hypothesis.example(name, ops)(test)
        return test
    return apply


@SCENARIO_FUZZ
@_seeds({"yaml"})
@given(st.sampled_from([n for n, (k, _) in SCENARIOS.items() if k == "yaml"]), _scenario_ops)
def test_mutated_yaml_scenarios(name, ops):
    _check_mutated_scenario(name, ops)


@SCENARIO_FUZZ
@_seeds({"toml"})
@given(st.sampled_from([n for n, (k, _) in SCENARIOS.items() if k == "toml"]), _scenario_ops)
def test_mutated_toml_scenarios(name, ops):
    _check_mutated_scenario(name, ops)


@SCENARIO_FUZZ
@_seeds({"csv"})
@given(st.sampled_from([n for n, (k, _) in SCENARIOS.items() if k == "csv"]), _scenario_ops)
def test_mutated_counter_csv(name, ops):
    _check_mutated_scenario(name, ops)


@FUZZ
@given(st.sampled_from(SAVES), _mutation)
def test_mutated_save_files(path, ops):
    data = _mutate(path.read_bytes(), ops)
    try:
        _exercise_save(SavedGame.from_bytes(data, file=path.name))
    except VmodError:
        pass


@FUZZ
@given(st.sampled_from(SAVES), _mutation)
def test_mutated_command_text(path, ops):
    # mutate the decoded text, so that the command and piece parsers are
    # reached with damaged content (not just damaged hex)
    text, known = _undamaged(path)
    damaged = _mutate(text.encode("utf-8"), ops).decode("utf-8", errors="replace")
    data = build_zip({"savedGame": encode_saved_game(damaged, key=9)}, compress_level=1)
    try:
        _exercise_save(SavedGame.from_bytes(data, file="fuzz.vsav"), known)
    except VmodError:
        pass


@FUZZ
@given(st.sampled_from(BUILDFILES), _mutation)
def test_mutated_buildfiles(path, ops):
    data = _mutate(path.read_bytes(), ops)
    try:
        bf = BuildFile.parse(data, file=path.name)
        for slot in bf.piece_slots():
            try:
                piece = PieceDef.parse(slot.definition)
                assert isinstance(piece.name, str)
                piece.properties()
            except VmodError:
                pass
        bf.maps()
        bf.to_bytes()
    except VmodError:
        pass


@FUZZ
@given(st.sampled_from(METADATA), _mutation)
def test_mutated_metadata(path, ops):
    data = _mutate(path.read_bytes(), ops)
    for kind in (ModuleMetadata, SaveMetadata):
        try:
            kind.parse(data, file=path.name).to_bytes()
        except VmodError:
            pass
