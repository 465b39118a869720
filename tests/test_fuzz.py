"""Bounded fuzzing: random mutations of real files (the corpus when present,
else the bundled examples) fed to every reader.  The only exception allowed
out is vmodtool's own VmodError."""

import functools
import os
import tempfile
from pathlib import Path

import hypothesis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from tests.scenario.test_hostile import HOSTILE_CHARS, HOSTILE_NUMBERS, HOSTILE_TAGS, REPRODUCERS, exercise, mutate
from tests.scenario.test_hostile import scenario_texts as _scenario_texts
from vmodtool.errors import FormatError, VmodError
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.commands import ESC, AddPiece, LogEntry, leaf_commands, leaves, parse_commands, tree_to_json
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




SCENARIOS = _scenario_texts()
SCENARIO_FUZZ = settings(FUZZ, max_examples=int(os.environ.get("VMODTOOL_FUZZ_EXAMPLES", "60")))

_scenario_op = st.one_of(
    st.tuples(st.sampled_from(["flip", "insert", "delete", "truncate"]),
              st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
    st.tuples(st.just("number"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_NUMBERS) - 1)),
    st.tuples(st.just("nest"), st.floats(0, 1, exclude_max=True), st.sampled_from([1, 2, 63, 65, 100, 2000])),
    st.tuples(st.just("char"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_CHARS) - 1)),
    st.tuples(st.just("repeat"), st.floats(0, 1, exclude_max=True), st.integers(1, 200)),
    st.tuples(st.just("tag"), st.floats(0, 1, exclude_max=True), st.integers(0, len(HOSTILE_TAGS) - 1)),
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


# --------------------------------------------------------------------------
# the command parser on raw (unzipped) text: a bare .vlog is its savedGame
# content, so these reach parse_commands with no zip or hex in between

#: issue 13.3: VASSAL-style nesting far past any real depth
DEEP_QUOTES = "begin_save" + ESC + "'" * 5000
DEEP_BACKSLASHES = "\\" * 1001 + ESC
_RAW_PIECES = st.sampled_from([ESC, "\\", "'", "''", "\\" + ESC, "begin_save", "end_save", "+/1/", "M/",
                               "LOG\t", "PLAYER\t", "\t", ";", "/", "a", "Я"])
_runs = st.tuples(st.sampled_from(["'", "\\", ESC, "\\" + ESC]), st.integers(0, 3000))


def _exercise_text(text: str) -> None:
    """The parser and everything that walks its tree, on any text."""
    try:
        tree = parse_commands(text)
    except FormatError:
        return
    tree_to_json(tree)
    for cmd in leaf_commands(tree):
        cmd.record()
        inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
        if isinstance(inner, AddPiece) and not inner.is_stack:
            try:
                _exercise_piece(inner.text)
            except VmodError:
                pass


@FUZZ
@given(st.lists(_RAW_PIECES, max_size=60).map("".join), _runs, st.floats(0, 1))
@example(DEEP_QUOTES, ("'", 0), 0.0)
@example(DEEP_BACKSLASHES, ("'", 0), 0.0)
@example("begin_save" + ESC + DEEP_BACKSLASHES, ("'", 0), 0.0)
@example("begin_save" + ESC, ("\\" + ESC, 3000), 1.0)
def test_command_parser_on_raw_text(text, run, where):
    char, count = run
    at = int(where * len(text))
    text = text[:at] + char * count + text[at:]
    _exercise_text(text)
    try:
        _exercise_save(SavedGame.from_bytes(text.encode("utf-8"), file="fuzz.vlog"))
    except VmodError:
        pass


@FUZZ
@given(st.sampled_from(SAVES), _mutation, _runs, st.floats(0, 1))
@example(SAVES[0], [("flip", 0.0, 0)], ("'", 5000), 1.0)
@example(SAVES[0], [("flip", 0.0, 0)], ("\\", 1001), 0.5)
def test_mutated_raw_command_text(path, ops, run, where):
    # the decoded text of a real file, damaged and with a run of quotes,
    # backslashes or separators spliced in, read back as a bare stream
    text, known = _undamaged(path)
    damaged = _mutate(text.encode("utf-8"), ops).decode("utf-8", errors="replace")
    char, count = run
    at = int(where * len(damaged))
    damaged = damaged[:at] + char * count + damaged[at:]
    try:
        _exercise_save(SavedGame.from_bytes(damaged.encode("utf-8"), file="fuzz.vlog"), known)
    except VmodError:
        pass
