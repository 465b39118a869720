"""The dice check of ``vmodtool check-game``: rolls counted against an
independent count of the raw chat lines and properties, statistics against
scipy, re-rolls after an undo and in a restarted log, the exports."""

from __future__ import annotations

import csv
import io
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy import stats as sps

from tests.conftest import shared_files
from vmodtool.checkgame import check_game, record_game
from vmodtool.checkgame.dice import MIN_PER_FACE, P_SUSPICIOUS, csv_text, dice_groups, read_rolls
from vmodtool.checkgame.model import SUSPICIOUS, GameRecord
from vmodtool.checkgame.stats import chi2_sf, chi_square_fair, gamma_q, in_words, normal_sf, runs_test
from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.replay.events import DiceEvent
from vmodtool.vassal.gamewriter import ESC, GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEMO_LOG = EXAMPLES / "formats" / "demo.vlog"
DEMO_MODULE = EXAMPLES / "formats" / "demo.vmod"
TLD_LOGS = shared_files("corpus/tld/game", "*.log")


# ------------------------------------------------------------------ statistics against scipy

@pytest.mark.parametrize("x,dof", [(0.0, 1), (0.5, 1), (3.0, 5), (5.0, 5), (11.07, 5), (40.0, 5), (200.0, 19),
                                   (1e-6, 2), (12.5, 9), (30.0, 30), (1000.0, 5), (2.2, 99), (150.0, 99)])
def test_chi2_survival_equals_scipy(x: float, dof: int) -> None:
    assert chi2_sf(x, dof) == pytest.approx(sps.chi2.sf(x, dof), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("a,x", [(0.5, 0.1), (2.5, 7.0), (10.0, 3.0), (50.0, 60.0)])
def test_upper_incomplete_gamma_equals_scipy(a: float, x: float) -> None:
    from scipy.special import gammaincc
    assert gamma_q(a, x) == pytest.approx(gammaincc(a, x), rel=1e-9)


@pytest.mark.parametrize("z", [-3.0, -0.5, 0.0, 0.7, 1.96, 3.3, 8.0])
def test_normal_tail_equals_scipy(z: float) -> None:
    assert normal_sf(z) == pytest.approx(sps.norm.sf(z), rel=1e-12)


@pytest.mark.parametrize("seed,sides,n", [(1, 6, 60), (2, 6, 600), (3, 10, 200), (4, 20, 500), (5, 4, 41)])
def test_chi_square_equals_scipy(seed: int, sides: int, n: int) -> None:
    rng = random.Random(seed)
    counts = Counter(rng.randint(1, sides) for _ in range(n))
    observed = [counts.get(f, 0) for f in range(1, sides + 1)]
    mine = chi_square_fair(observed)
    theirs = sps.chisquare(observed)
    assert mine.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert mine.p == pytest.approx(theirs.pvalue, rel=1e-9)
    assert mine.dof == sides - 1


def _runs_direct(values: list[int], sides: int) -> tuple[int, float]:
    """The Wald–Wolfowitz runs test written out again, the textbook way."""
    median = (sides + 1) / 2
    s = ["+" if v > median else "-" for v in values if v != median]
    runs = len(re.findall(r"\++|-+", "".join(s)))
    n1, n2 = s.count("+"), s.count("-")
    mu = 2 * n1 * n2 / (n1 + n2) + 1
    sigma2 = (mu - 1) * (mu - 2) / (n1 + n2 - 1)
    z = (runs - mu) / math.sqrt(sigma2)
    return runs, 2 * sps.norm.sf(abs(z))


@pytest.mark.parametrize("seed,sides", [(7, 6), (8, 5), (9, 20)])
def test_runs_test_equals_the_direct_formula(seed: int, sides: int) -> None:
    rng = random.Random(seed)
    values = [rng.randint(1, sides) for _ in range(300)]
    mine = runs_test(values, sides)
    assert mine is not None
    runs, p = _runs_direct(values, sides)
    assert mine.runs == runs
    assert mine.p == pytest.approx(p, rel=1e-9)


def test_runs_test_sees_alternating_dice() -> None:
    values = [1, 6] * 40
    result = runs_test(values, 6)
    assert result is not None and result.runs == 80 and result.p < 1e-10


def test_p_values_in_words() -> None:
    assert in_words(0.025) == "as likely as 1 game in 40"
    assert in_words(0.00012) == "as likely as 1 game in 8,300"
    assert in_words(0.9).startswith("an ordinary result")
    assert "trillion" in in_words(1e-20)


# ------------------------------------------------------------------ the replay's dice events

def test_default_dice_report_names_the_roller_and_the_dice() -> None:
    steps = list(Replay.open(DEMO_LOG, module=DEMO_MODULE).steps())
    step = next(s for s in steps if any(isinstance(e, DiceEvent) for e in s.events))
    event = next(e for e in step.events if isinstance(e, DiceEvent))
    assert (step.player, step.side) == ("Борис", "Красные")
    assert (event.button, event.results) == ("2d6", [3, 5])


# ------------------------------------------------------------------ counts against the raw logs

_RAW_REPORT = re.compile(r"CHAT\*\*\* (\S+) = (\d+(?:,\d+)*) \*\*\* (?:&lt;|<)([^<>&]+)(?:&gt;|>)")
_RAW_RESULT = re.compile(r"MutableProperty\t(\S+)_result\t[^\t]*\t(\d+(?:,\d+)*)\t")


def _raw_count(paths: list[Path]) -> Counter[str]:
    """Dice per player from the logs' text: report lines (an undo's
    "* UNDO: ***" echo is no roll), each roll once even when its
    ``_result`` property is logged with it."""
    per_player: Counter[str] = Counter()
    for path in paths:
        text = SavedGame.read(path).text
        for m in _RAW_REPORT.finditer(text):
            per_player[m.group(3)] += len(m.group(2).split(","))
    return per_player


@pytest.mark.skipif(not TLD_LOGS, reason="shared data not available")
def test_tld_chain_counts_equal_the_raw_chat(tld_chain: GameRecord) -> None:
    record = tld_chain
    rolls = read_rolls(record)
    mine = Counter()
    for r in rolls:
        mine[r.player] += len(r.values)
    raw = _raw_count(TLD_LOGS)
    assert dict(mine) == dict(raw)
    assert raw == {"Joel": 344, "Nate": 636}
    # the rolls logged again after an undo (same values) are counted once
    undo_echoes = sum(len(re.findall(r"CHAT\* UNDO: \*\*\* ", SavedGame.read(p).text)) for p in TLD_LOGS)
    again = [r for r in rolls if r.repeat_of is not None]
    assert 0 < len(again) <= undo_echoes
    groups = {g.player: g for g in dice_groups(rolls)}
    assert groups["Joel"].rolls + groups["Nate"].rolls == sum(raw.values()) - len(again)
    section = check_game(record, ["dice"]).sections[0]
    assert not section.suspicious, [f.message for f in section.suspicious]
    assert section.data["logged_again"] == len(again)


def test_demo_log_counts_one_roll_for_its_report_and_property() -> None:
    text = SavedGame.read(DEMO_LOG).text
    reports = _RAW_REPORT.findall(text)
    results = _RAW_RESULT.findall(text)
    assert len(reports) == len(results) == 1
    rolls = read_rolls(record_game([DEMO_LOG], module=DEMO_MODULE))
    assert [(r.player, r.button, r.values, r.sides) for r in rolls] == \
        [(reports[0][2], results[0][0], tuple(int(v) for v in results[0][1].split(",")), 6)]




_RAW_SUMMARY = re.compile(r"MutableProperty\t(\S+)_summary\t[^\t]*\t((?:\d+ x\d+(?:, )?)+)\t")


def test_example_logs_counts_equal_the_raw_properties(example_modules: dict[str, Path]) -> None:
    """Rolls per button = the ``_result`` changes; faces = the ``_summary``
    changes (the example buttons report their total only)."""
    checked = 0
    for system, module in example_modules.items():
        for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
            text = SavedGame.read(log).text
            presses = Counter(m.group(1) for m in _RAW_RESULT.finditer(text))
            faces: Counter[tuple[str, int]] = Counter()
            for m in _RAW_SUMMARY.finditer(text):
                for value, times in re.findall(r"(\d+) x(\d+)", m.group(2)):
                    faces[(m.group(1), int(value))] += int(times)
            rolls = read_rolls(record_game([log], module=module))
            assert Counter(r.button for r in rolls) == presses, log
            assert Counter((r.button, v) for r in rolls for v in r.values) == faces, log
            checked += bool(presses)
    assert checked >= 3


def test_clean_example_games_are_not_suspicious(example_modules: dict[str, Path]) -> None:
    for system, module in example_modules.items():
        log = EXAMPLES / system / "logs" / "game-1.vlog"
        if not log.exists():
            continue
        result = check_game(record_game([log], module=module), ["dice"])
        assert not result.suspicious, (log, [f.message for f in result.suspicious])


# ------------------------------------------------------------------ re-rolls

def _writer() -> GameWriter:
    module = Module.open(DEMO_MODULE)
    w = GameWriter(module, players=[Player("pw-a", "Алиса", "Синие"), Player("pw-b", "Борис", "Красные")])
    w.snapshot()
    return w


def _undo_dice(w: GameWriter, button: str) -> None:
    """What VASSAL logs when the last roll is undone: the roll's property
    changes reversed between UNDO brackets (its chat line has no undo)."""
    last = w.steps[-1].split(ESC)
    reverse = []
    for cmd in reversed(last):
        if cmd.startswith("LOG\tMutableProperty"):
            parts = cmd[4:].split("\t")
            name, old, new, container = parts[1], parts[2], parts[3], parts[4]
            reverse.append(encode_sequence(["MutableProperty", name, new, old, container], "\t") or "")
            w.global_values[(container, name)] = old
    w.steps.append(encode_sequence(["LOG\tUNDO\ttrue"] + ["LOG\t" + c for c in reverse] + ["LOG\tUNDO\tfalse"],
                                   ESC) or "")


def _check(tmp_path: Path, *writers: GameWriter) -> list:
    paths = []
    for i, w in enumerate(writers):
        path = tmp_path / f"log-{i}.vlog"
        path.write_bytes(w.to_bytes(date_saved="1700000000000"))
        paths.append(path)
    return check_game(record_game(paths, module=DEMO_MODULE), ["dice"]).sections[0].findings


def test_undone_roll_made_again_is_one_reroll(tmp_path: Path) -> None:
    w = _writer()
    w.dice("2d6", [1, 2], player="Борис")
    _undo_dice(w, "2d6")
    w.dice("2d6", [6, 6], player="Борис")
    w.dice("2d6", [3, 4], player="Борис")
    findings = _check(tmp_path, w)
    rerolls = [f for f in findings if f.kind == "reroll"]
    assert len(rerolls) == 1 and rerolls[0].severity == SUSPICIOUS
    assert rerolls[0].player == "Борис" and "1,2" in rerolls[0].message and "6,6" in rerolls[0].message
    assert [f.kind for f in findings if f.severity == SUSPICIOUS] == ["reroll"]


def test_restarted_log_rolling_again_is_reported_once(tmp_path: Path) -> None:
    first = _writer()
    first.add(first.slots[0], "0304", "Main Map", player="Алиса")       # the board changes
    first.dice("2d6", [1, 1], player="Алиса")
    again = _writer()
    again.dice("2d6", [6, 5], player="Алиса")
    findings = _check(tmp_path, first, again)
    restarts = [f for f in findings if f.kind == "restart_reroll"]
    assert len(restarts) == 1 and restarts[0].log.endswith("log-1.vlog")
    assert "1,1" in restarts[0].message and "6,5" in restarts[0].message


def test_fair_dice_are_not_flagged_and_loaded_dice_are(tmp_path: Path) -> None:
    rng = random.Random(15)
    fair = _writer()
    for _ in range(200):
        fair.dice("2d6", [rng.randint(1, 6), rng.randint(1, 6)], player="Алиса")
    assert not [f for f in _check(tmp_path, fair) if f.severity == SUSPICIOUS]
    loaded = _writer()
    for _ in range(200):
        loaded.dice("2d6", [rng.choice([4, 5, 6, 6]), rng.randint(1, 6)], player="Алиса")
    unlikely = [f for f in _check(tmp_path, loaded) if f.kind == "dice_unlikely"]
    assert len(unlikely) >= 1 and all(f.details["chi_square"]["p"] < P_SUSPICIOUS for f in unlikely
                                      if "faces" in f.message)


def test_few_rolls_are_not_judged(tmp_path: Path) -> None:
    w = _writer()
    for _ in range(MIN_PER_FACE * 6 // 2 - 1):      # always double sixes, but too few dice
        w.dice("2d6", [6, 6], player="Алиса")
    findings = _check(tmp_path, w)
    assert not [f for f in findings if f.severity == SUSPICIOUS]


# ------------------------------------------------------------------ exports

def test_csv_and_chart_options(tmp_path: Path) -> None:
    out_csv, out_png = tmp_path / "rolls.csv", tmp_path / "dice.png"
    result = CliRunner().invoke(cli, ["check-game", str(DEMO_LOG), "-m", str(DEMO_MODULE), "--check", "dice",
                                       "--dice-csv", str(out_csv), "--dice-chart", str(out_png)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text("utf-8"))))
    assert [(r["player"], r["button"], r["values"], r["sides"]) for r in rows] == [("Борис", "2d6", "3 5", "6")]
    assert out_png.read_bytes().startswith(b"\x89PNG")
    before = DEMO_LOG.read_bytes()
    refused = CliRunner().invoke(cli, ["check-game", str(DEMO_LOG), "--check", "dice", "--dice-chart", str(DEMO_LOG)])
    assert refused.exit_code == 2 and DEMO_LOG.read_bytes() == before
    report = tmp_path / "report.csv"
    same = CliRunner().invoke(cli, ["check-game", str(DEMO_LOG), "--check", "dice", "-o", str(report),
                                    "--dice-csv", str(report)])
    assert same.exit_code == 2 and not report.exists()


def test_csv_text_has_one_row_per_roll() -> None:
    rolls = read_rolls(record_game([DEMO_LOG], module=DEMO_MODULE))
    assert len(csv_text(rolls).splitlines()) == 1 + len(rolls)


# ------------------------------------------------------------------ module report formats

def test_a_buttons_own_report_format_is_read() -> None:
    from vmodtool.checkgame.dice import ButtonDef
    button = ButtonDef("Withdraw11", 3, 6, " $playerName$ ($playerSide$): Rolled a $result$ for Initiative, Withdraw")
    pattern = button.pattern()
    assert pattern is not None
    m = pattern.fullmatch("*  Фёдор (Rome): Rolled a 3,1,6 for Initiative, Withdraw"[2:])
    assert m is not None and (m.group("player"), m.group("result")) == ("Фёдор", "3,1,6")
    assert pattern.fullmatch("Фёдор (Rome): Rolled a 3 for Pursue") is None


def test_special_dice_faces_are_read_by_their_text() -> None:
    from vmodtool.checkgame.dice import ButtonDef, _Reader
    faces = tuple(str(i) for i in range(1, 7))
    button = ButtonDef("Grey Die", 1, 6, "$name$ = <img src=\"d6-$result1$-grey.png\"> (Rolled by $PlayerName$)",
                       faces=(faces,))
    pattern = button.pattern()
    assert pattern is not None
    m = pattern.fullmatch("Grey Die = <img src=\"d6-4-grey.png\"> (Rolled by Анна)")
    assert m is not None and _Reader._special_values(button, m.groupdict()) == (4,)


def _module_with_sides(tmp_path: Path, sides: str) -> Path:
    """The demo module with its 2d6 button's ``nSides`` set to ``sides``."""
    import zipfile

    from vmodtool.vassal.archive import build_zip
    with zipfile.ZipFile(DEMO_MODULE) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    text = entries["buildFile.xml"].decode("utf-8")
    assert text.count('nSides="6"') == 1
    entries["buildFile.xml"] = text.replace('nSides="6"', f'nSides="{sides}"').encode("utf-8")
    path = tmp_path / "dice.vmod"
    path.write_bytes(build_zip(entries, compress_level=1))
    return path


@pytest.mark.parametrize("sides,expected", [("2147483647", 2147483647), ("2147483648", 6), ("1001", 1001)])
def test_a_button_of_more_sides_than_can_be_counted_is_not_judged_face_by_face(tmp_path: Path, sides: str,
                                                                             expected: int) -> None:
    """``nSides`` is read as Java reads it (an int it refuses: the default),
    and a die of more than MAX_COUNTED_FACES sides has its faces test not
    judged: its counts were a list of every face (2^31 of them: the
    machine's memory), now only the faces seen."""
    from vmodtool.checkgame.dice import MAX_COUNTED_FACES
    from vmodtool.render.dice_chart import dice_chart_png

    module_path = _module_with_sides(tmp_path, sides)
    w = GameWriter(Module.open(module_path), players=[Player("pw-a", "Алиса", "Синие")])
    w.snapshot()
    for i in range(30):
        w.dice("2d6", [1 + i % 6, 6 - i % 6], player="Алиса")
    path = tmp_path / "rolls.vlog"
    path.write_bytes(w.to_bytes(date_saved="1700000000000"))
    record = record_game([path], module=module_path)
    (group,) = dice_groups(read_rolls(record))
    assert group.sides == expected and group.counted is (expected <= MAX_COUNTED_FACES)
    data = group.record()
    if group.counted:
        assert len(data["counts"]) == expected
    else:
        assert data["counts"] == {str(v): 10 for v in range(1, 7)} and data["chi_square"] is None
        assert "faces not judged (more than 1,000 sides)" in group.line()
    assert dice_chart_png([group]).startswith(b"\x89PNG")
    result = CliRunner().invoke(cli, ["check-game", str(path), "-m", str(module_path), "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.output


def test_the_rolls_of_some_logs_are_read_as_in_the_whole_game(tld_chain) -> None:  # type: ignore[no-untyped-def]
    """``read_rolls(record, logs=…)`` (what the undo check reads for the
    logs whose undone steps rolled) gives those logs' rolls as the whole
    game's reading does, each linked to its repeat after an undo; only the
    sides of a die no button or label names are guessed from fewer rolls."""
    def key(r):  # type: ignore[no-untyped-def]
        return (r.log, r.step, r.player, r.button, r.values, r.source, r.undone_by, r.repeat_of)

    whole = read_rolls(tld_chain)
    undone_logs = sorted({r.log for r in whole if r.undone})
    assert len(undone_logs) >= 2 and any(r.repeat_of is not None for r in whole)
    for log in undone_logs[:3]:
        some = read_rolls(tld_chain, logs={log})
        assert some and [key(r) for r in some] == [key(r) for r in whole if r.log == log]
