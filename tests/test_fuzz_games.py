"""Bounded fuzzing of the game commands: real logs damaged the way a PBEM
game's files get damaged, fed to what a user runs on them.

The readers' fuzz (``tests/test_fuzz.py``) stops once a file is parsed; this
one goes on to the replay, the rules and the reports.  A log is damaged in
its decoded commands: a log entry dropped, repeated or moved (a game
restarted or edited by hand), a number, a piece id or a character changed,
bytes changed; then re-encoded in its own zip (its ``moduledata`` kept, so
that the commands get past the module check).  ``inspect``, ``replay``,
``check-game``, ``audit`` and ``report`` must each end with a documented exit
code (0, 1 findings, 2 bad input, 3 not everything checked), never with an
exception; bad input names the file.

The inputs are the examples' own logs; ``benchmarks/fuzz_games.py`` runs the
same for longer, with the corpus's published modules too.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from tests.scenario.test_hostile import HOSTILE_CHARS
from tests.test_fuzz import _mutate
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.obfuscation import Encoding, encode_saved_game
from vmodtool.vassal.savefile import SavedGame

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: what separates the log entries of a decoded log (the saved state first)
LOG_ENTRY = "\x1bLOG\t"
#: numbers a damaged or hand-edited log may hold where VASSAL wrote one
HOSTILE_LOG_NUMBERS = ("-1", "0", "2147483647", "2147483648", "-2147483649", "9" * 40, "9" * 5000, "1e9",
                       "NaN", "", "0x10", "\u0663", "\uff11\uff12", "1.5", " 7")
#: exit codes a command may end with (docs/guide/commands.md: 1 findings, 2 bad input, 3 not all checked)
EXIT_CODES = frozenset({0, 1, 2, 3})
MUTATIONS = ("flip", "insert", "delete", "truncate", "drop", "repeat", "swap", "number", "id", "char")

Op = tuple[str, float, int]


@dataclass(frozen=True)
class Game:
    """A log and what its commands need: the scenario of its audit (None:
    no audit) and the options naming its module and board sizes."""

    name: str
    log: Path
    scenario: Path | None = None
    options: tuple[str, ...] = ()


def example_games() -> list[Game]:
    """Every log of the examples, with its scenario (no module: the audit
    takes the scenario's maps, as for a module built by vmodtool)."""
    found = []
    for system in ("modern-tactical", "ww1-operational", "combat-commander"):
        for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
            found.append(Game(f"{system}/{log.name}", log, EXAMPLES / system / "scenario.yaml"))
    found.append(Game("formats/demo.vlog", EXAMPLES / "formats" / "demo.vlog", None,
                      ("-m", str(EXAMPLES / "formats" / "demo.vmod"))))
    return found


def corpus_games(shared: Path = SHARED) -> list[Game]:
    """Logs and saves of published modules in ``../shared`` with their
    buildFiles (empty without it); audited where an example scenario binds
    the module (The Longest Day, Ragnarok)."""
    corpus = shared / "corpus"
    if not corpus.is_dir():
        return []

    def opts(folder: str, module: str) -> tuple[str, ...]:
        sizes = corpus / folder / "board-sizes.json"
        return ("-m", str(corpus / folder / module), *(("--board-sizes", str(sizes)) if sizes.exists() else ()))
    candidates = [
        Game("tld/0606-1.log", corpus / "tld" / "game" / "0606-1.log", EXAMPLES / "the-longest-day" / "scenario.yaml",
             opts("tld", "buildFile")),
        Game("ragnarok/ragnarok-start.vsav", corpus / "ragnarok" / "ragnarok-start.vsav",
             EXAMPLES / "ragnarok" / "scenario.yaml", opts("ragnarok", "buildFile.xml")),
        Game("vassal-tour/tour.log", corpus / "vassal-tour" / "tour.log", None, opts("vassal-tour", "tour.mod")),
        Game("zxvt/5x5_startup.vlog", corpus / "zxvt" / "5x5_startup.vlog", None, opts("zxvt", "buildFile")),
        Game("kassala/Default_Setup.vsav", corpus / "kassala" / "Default_Setup.vsav", None,
             opts("kassala", "buildFile.xml")),
        Game("nevsky/Scenario_Watland_1241.vsav", corpus / "nevsky" / "Scenario_Watland_1241.vsav", None,
             opts("nevsky", "buildFile.xml")),
    ]
    return [g for g in candidates if g.log.exists() and all(Path(o).exists() for o in g.options[1::2])]


# -- damage -----------------------------------------------------------------------------------

def damage(text: str, ops: Sequence[Op]) -> str:
    """The decoded text of a log with each of ``ops`` (name, where in
    [0, 1), a value) applied in turn."""
    for name, where, value in ops:
        if name in ("flip", "insert", "delete", "truncate"):
            text = _mutate(text.encode("utf-8"), [(name, where, value % 256)]).decode("utf-8", errors="replace")
        elif name in ("drop", "repeat", "swap"):
            parts = text.split(LOG_ENTRY)
            if len(parts) < 2:
                continue
            i = 1 + int(where * (len(parts) - 1))
            j = 1 + value % (len(parts) - 1)
            if name == "drop":
                del parts[i]
            elif name == "repeat":
                parts.insert(j, parts[i])
            else:
                parts[i], parts[j] = parts[j], parts[i]
            text = LOG_ENTRY.join(parts)
        elif name in ("number", "id"):
            runs = list(re.finditer(r"\d{10,}" if name == "id" else r"-?\d+", text))
            if not runs:
                continue
            run = runs[int(where * len(runs))]
            new = (runs[value % len(runs)].group() if name == "id"
                   else HOSTILE_LOG_NUMBERS[value % len(HOSTILE_LOG_NUMBERS)])
            text = text[:run.start()] + new + text[run.end():]
        else:   # char
            at = int(where * len(text))
            text = text[:at] + HOSTILE_CHARS[value % len(HOSTILE_CHARS)] + text[at:]
    return text


def damaged_file(game: Game, ops: Sequence[Op], encoding: Encoding = Encoding.VCSK) -> bytes:
    """The log of ``game`` damaged by ``ops``, re-encoded in a zip with
    its other entries (``moduledata``, ``savedata``) as they were."""
    saved = SavedGame.read(game.log)
    return rewrapped(saved, damage(saved.text, ops), encoding)


def rewrapped(saved: SavedGame, text: str, encoding: Encoding = Encoding.VCSK) -> bytes:
    """``text`` as the ``savedGame`` of a zip with the other entries of
    ``saved``."""
    entries = {name: data for name, data in saved.entries.items() if name != "savedGame" and data}
    return build_zip({"savedGame": encode_saved_game(text, encoding, key=7), **entries}, compress_level=1)


# -- the commands ---------------------------------------------------------------------------------

def invocations(game: Game, path: Path, folder: Path, report: bool = True) -> list[list[str]]:
    """The command lines run on a damaged log ``path`` of ``game``."""
    opts = list(game.options)
    runs = [["inspect", str(path)],
            ["replay", str(path), *opts],
            ["replay", str(path), *opts, "--format", "jsonl", "--step", "5"],
            ["check-game", str(path), *opts, "--format", "json"]]
    if game.scenario is not None:
        runs.append(["audit", str(path), "--scenario", str(game.scenario), *opts, "--integrity",
                     "--format", "json"])
    if report:
        runs.append(["report", str(path), *opts, "-o", str(folder / "report.html"),
                     *(("--scenario", str(game.scenario)) if game.scenario is not None else ())])
    return runs


def exercise(game: Game, data: bytes, folder: Path, report: bool = True,
             tally: Counter[tuple[str, int]] | None = None) -> list[str]:
    """Run every command on ``data`` (the damaged log, written in
    ``folder``); what went wrong, one line each (empty: nothing).  ``tally``
    counts (command, exit code)."""
    from click.testing import CliRunner

    from vmodtool.cli import cli

    path = folder / f"fuzz{game.log.suffix}"
    path.write_bytes(data)
    problems: list[str] = []
    runner = CliRunner()
    for args in invocations(game, path, folder, report):
        result = runner.invoke(cli, args, catch_exceptions=True)
        if tally is not None:
            tally[args[0], result.exit_code] += 1
        problems += result_problems(f"{args[0]} ({' '.join(args[2:]) or 'no options'})", result, {path.name})
    return problems


def result_problems(what: str, result: Any, names: set[str]) -> list[str]:
    """What is wrong with one command's ``result`` (a CliRunner result): an
    exception out of it, an undocumented exit code, an exit 2 naming none of
    ``names`` (the files it read), a traceback in its output."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        at = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}" if tb is not None else ""
        return [f"{what}: {type(exc).__name__}{at}: {str(exc)[:200]}"]
    if result.exit_code not in EXIT_CODES:
        return [f"{what}: exit code {result.exit_code}: {result.output[-300:]}"]
    if result.exit_code == 2 and not any(n in result.stderr for n in names) and "Usage:" not in result.stderr:
        return [f"{what}: exit 2 without naming the file: {result.stderr.strip()[:300]}"]
    if "Traceback (most recent call last)" in result.output:
        return [f"{what}: a traceback in its output"]
    return []


# -- the bounded run of the suite ---------------------------------------------------------------------

def fuzz_settings(variable: str, default: int) -> Any:
    """Hypothesis settings of a bounded fuzz run: ``$variable`` examples
    (``default`` without it), derandomised, no deadline."""
    return settings(max_examples=int(os.environ.get(variable, str(default))), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def op_strategy(mutations: Sequence[str]) -> Any:
    """One damage op: (a mutation's name, where in [0, 1), a value)."""
    return st.tuples(st.sampled_from(mutations), st.floats(0, 1, exclude_max=True), st.integers(0, 10_000))


GAMES = example_games()
GAME_FUZZ = fuzz_settings("VMODTOOL_FUZZ_GAME_EXAMPLES", 25)
_op = op_strategy(MUTATIONS)


def _check(game: Game, ops: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        problems = exercise(game, damaged_file(game, ops), Path(folder))
    assert not problems, f"{game.name} damaged by {ops}:\n" + "\n".join(problems)


@GAME_FUZZ
@given(st.sampled_from(GAMES), st.lists(_op, min_size=1, max_size=3))
def test_damaged_example_logs(game: Game, ops: Any) -> None:
    _check(game, ops)


CORPUS_GAMES = corpus_games()


@pytest.mark.skipif(not CORPUS_GAMES, reason="../shared (the corpus) is not available")
@settings(GAME_FUZZ, max_examples=int(os.environ.get("VMODTOOL_FUZZ_GAME_EXAMPLES", "6")))
@given(st.sampled_from(CORPUS_GAMES or [Game("none", Path("none"))]), st.lists(_op, min_size=1, max_size=3))
def test_damaged_games_of_published_modules(game: Game, ops: Any) -> None:
    _check(game, ops)


def test_every_command_runs_on_an_undamaged_log() -> None:
    # the harness itself: each command line is valid and the undamaged
    # example log passes (a fuzz whose every run stops at a usage error
    # would find nothing)
    game = GAMES[0]
    with tempfile.TemporaryDirectory() as folder:
        from click.testing import CliRunner

        from vmodtool.cli import cli

        path = Path(folder) / "fuzz.vlog"
        path.write_bytes(damaged_file(game, []))
        codes = [CliRunner().invoke(cli, args).exit_code for args in invocations(game, path, Path(folder))]
    assert len(codes) == 6 and all(code in (0, 3) for code in codes), codes


def test_damage_changes_what_it_says() -> None:
    text = "begin_save\x1bend_save" + "".join(f"{LOG_ENTRY}CHAT{i} 1700000000{i:03d}" for i in range(4))
    assert damage(text, [("drop", 0.0, 0)]).count(LOG_ENTRY) == 3
    assert damage(text, [("repeat", 0.0, 2)]).count("CHAT0") == 2
    swapped = damage(text, [("swap", 0.0, 3)])
    assert swapped.index("CHAT3") < swapped.index("CHAT0")
    assert "1700000000002" in damage(text, [("id", 0.0, 2)]).split(LOG_ENTRY)[1]
    assert "2147483648" in damage(text, [("number", 0.99, 3)])


def test_a_coordinate_past_python_s_int_limit(tmp_path: Path) -> None:
    # the fuzz's first finding: int() of a 5,000-digit number raised
    # ValueError out of the piece reader (exit 70 of inspect, replay, audit, report)
    game = next(g for g in GAMES if g.name == "modern-tactical/game-1.vlog")
    saved = SavedGame.read(game.log)
    assert "Quneitra Gap;227;152;" in saved.text
    text = saved.text.replace("Quneitra Gap;227;152;", "Quneitra Gap;" + "9" * 5000 + ";152;", 1)
    assert exercise(game, rewrapped(saved, text), tmp_path) == []


def test_a_board_slot_past_any_map(tmp_path: Path) -> None:
    # a board set up at column 2**31 - 1 (or a number of 4,000 digits): the map
    # frame summed every slot before it, a loop no command came back from
    game = next(g for g in GAMES if g.name == "modern-tactical/game-1.vlog")
    saved = SavedGame.read(game.log)
    setup = "Quneitra GapBoardPicker\tQuneitra Gap\t0\t0"
    assert setup in saved.text
    for column in ("2147483647", "9" * 4000):
        text = saved.text.replace(setup, f"Quneitra GapBoardPicker\tQuneitra Gap\t{column}\t0", 1)
        assert exercise(game, rewrapped(saved, text), tmp_path, report=False) == []
