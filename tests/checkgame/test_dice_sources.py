"""Dice rolled without a DiceButton: a dice-tray piece whose key command
reports to the chat (``report;`` trait), a Global Key Command's report, a
user's ``--dice-pattern``; and dice-like report lines no reader took, which
make the dice check NOT CHECKED (exit 3) with their count, never "no dice
rolled".  The logs are written with GameWriter on the modern-tactical
example's module with a dice tray added to its palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from vmodtool.checkgame import check_game, record_game
from vmodtool.checkgame.dice import read_rolls, section
from vmodtool.checkgame.dice_reports import DiceMatch, ReportFormat, is_dice_like, report_formats, user_patterns
from vmodtool.errors import VmodError
from vmodtool.vassal.keys import NamedKeyStroke
from vmodtool.vassal.traits import BasicPiece, DynamicProperty, ReportState, build_piece

#: the symbol-dice tray: a key command sets its properties and reports
TRAY_REPORT = "$PlayerName$ rolls $DiceCount$ dice: $DiceResult$"
#: a numeric tray whose report names no player (the key command's mover rolled)
NUMERIC_REPORT = "Бросок кубиков: $Die1$ и $Die2$"


def _tray_module(modern):  # type: ignore[no-untyped-def]
    """The modern-tactical module with two dice trays in its palette and a
    map Global Key Command whose report speaks of dice."""
    from tests.audit.helpers import built_module
    from vmodtool.vassal.buildfile import BuildFile
    from vmodtool.vassal.module import Module
    module, sizes = built_module(modern)
    bf = BuildFile.parse(module.buildfile.to_bytes())
    window = next(e for e in bf.root.iter() if isinstance(e.tag, str) and e.tag.endswith("PieceWindow"))
    holder = next(e for e in window.iter() if isinstance(e.tag, str) and e.tag.endswith(("ListWidget", "PanelWidget")))
    for n, (name, fmt) in enumerate((("Dice Tray", TRAY_REPORT), ("Кубики", NUMERIC_REPORT),
                                     ("Würfelbecher", "$PlayerName$: $Wurf$"))):
        slot = etree.SubElement(holder, "VASSAL.build.widget.PieceSlot", entryName=name, gpid=f"tray{n}",
                                height="50", width="50")
        slot.text = build_piece(
            ReportState.build(keys=[NamedKeyStroke(82, 130)], report_format=fmt),
            DynamicProperty.build(key="DiceResult"), DynamicProperty.build(key="DiceCount"),
            BasicPiece.build(piece_name=name)).encode()
    main_map = next(e for e in bf.root.iter() if isinstance(e.tag, str) and e.tag == "VASSAL.build.module.Map")
    etree.SubElement(main_map, "VASSAL.build.module.map.MassKeyCommand", name="Roll all",
                     reportFormat="All units roll: $result$")
    return Module(buildfile=bf, buildfile_entry="buildFile.xml", container="buildfile", file="trays"), sizes


def _writer(module, sizes):  # type: ignore[no-untyped-def]
    from vmodtool.vassal.gamewriter import GameWriter, Player
    return GameWriter(module, players=[Player("pw-avi", "Avi", "Israel Defense Forces"),
                                       Player("pw-sami", "Sami", "Syrian Arab Army")], board_sizes=sizes)


def test_the_module_s_dice_reports_are_learned(modern) -> None:  # type: ignore[no-untyped-def]
    module, _ = _tray_module(modern)
    reports = {r.label: r for r in report_formats(module)}
    assert {"Dice Tray", "Кубики", "Roll all"} <= set(reports)
    assert reports["Dice Tray"].source == "piece report" and reports["Roll all"].source == "component report"
    m = reports["Dice Tray"].match("Avi rolls 5 dice: ARTx2 INFx1 XSWx2")
    assert m is not None and (m.player, m.values, m.text, m.dice) == ("Avi", (), "ARTx2 INFx1 XSWx2", 5)
    # a report that does not speak of dice is not a dice report, unless its
    # piece's name does
    assert ReportFormat.of_format("piece report", "x", "$PlayerName$ flips $newPieceName$") is None
    assert ReportFormat.of_format("piece report", "x", "$PlayerName$: $Result$") is None
    cup = ReportFormat.of_format("piece report", "Dice Cup", "$PlayerName$: $Result$", of_dice=True)
    assert cup is not None and cup.match("Avi: 4,2") == DiceMatch("Dice Cup", "Avi", (4, 2), "", 2)
    assert "Würfelbecher" in reports
    # taken for its piece's name only, it reads dice, not any text
    assert cup.match("Avi: moves 0402 -> 0403") is None and cup.match("Avi: ARTx2 INFx1") is not None
    # the most specific format is tried first
    order = [r.label for r in report_formats(module)]
    assert order.index("Roll all") < order.index("Würfelbecher")
    assert is_dice_like("* Sami rolls the dice") and not is_dice_like("<Sami> - I rolled a 6")
    assert not is_dice_like("* UNDO: *** d6 = 3 *** <Joel>")
    # a picture of a die is no word of the text (Paths of Glory's welcome message)
    assert ReportFormat.of_format("component report", "Welcome Message",
                                  '<img src="d6-1-grey.png" width="14"> Welcome, $PlayerName$! $version$') is None
    assert not is_dice_like('* <img src="d6-4-black.png"> Welcome, Avi')


@pytest.fixture(scope="module")
def tray_game(modern, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One log: Avi rolls the symbol tray 3 times, Sami twice, Sami rolls the
    numeric tray 4 times (its report names no player: the step before is
    his), the map's GKC reports one roll."""
    module, sizes = _tray_module(modern)
    w = _writer(module, sizes)
    slot = next(s for s in w.slots if s.entry_name == "Кубики")
    units = [pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId")]
    w.snapshot()
    for who, shown in (("Avi", "ARTx2 INFx1 XSWx2"), ("Sami", "INFx3 XSWx2"), ("Avi", "ARTx5"),
                       ("Sami", "ARTx1 INFx4"), ("Avi", "XSWx5")):
        w.report(TRAY_REPORT.replace("$PlayerName$", who).replace("$DiceCount$", "5")
                 .replace("$DiceResult$", shown))
    tray = w.add(slot, w.location(units[0]), w.pieces[units[0]].map, player="Sami")
    for a, b in ((3, 4), (6, 1), (2, 2), (5, 6)):
        w.move(tray, w.location(units[1]), player="Sami", chat=False)
        w.report(f"Бросок кубиков: {a} и {b}")
    w.report("All units roll: 4")
    path = tmp_path_factory.mktemp("trays") / "trays.vlog"
    path.write_bytes(w.to_bytes(date_saved="1700000000000"))
    return path, module, sizes


def test_every_tray_roll_is_counted_with_its_player(tray_game) -> None:  # type: ignore[no-untyped-def]
    path, module, sizes = tray_game
    record = record_game([path], module=module, board_sizes=sizes)
    rolls = read_rolls(record)
    by = [(r.player, r.button, r.values, r.shown, r.source) for r in rolls]
    assert [b for b in by if b[1] == "Dice Tray"] == [
        ("Avi", "Dice Tray", (), "ARTx2 INFx1 XSWx2", "piece report"),
        ("Sami", "Dice Tray", (), "INFx3 XSWx2", "piece report"),
        ("Avi", "Dice Tray", (), "ARTx5", "piece report"),
        ("Sami", "Dice Tray", (), "ARTx1 INFx4", "piece report"),
        ("Avi", "Dice Tray", (), "XSWx5", "piece report")]
    assert [(r.player, r.values) for r in rolls if r.button == "Кубики"] == [
        ("Sami", (3, 4)), ("Sami", (6, 1)), ("Sami", (2, 2)), ("Sami", (5, 6))]
    assert [(r.player, r.values, r.source) for r in rolls if r.button == "Roll all"] == [
        ("Sami", (4,), "component report")]
    sec = section(record)
    assert sec.checked and sec.data["rolls"] == 10 and sec.data["unread_reports"] == 0
    assert sec.data["sources"] == {"piece report": 9, "component report": 1}


def test_the_dice_count_is_the_number_in_the_report_not_the_symbols(tray_game) -> None:  # type: ignore[no-untyped-def]
    """Beside symbol faces a number counts the dice, it is no face: each
    tray roll is 5 dice, none of them a d6 face in the statistics."""
    path, module, sizes = tray_game
    rolls = [r for r in read_rolls(record_game([path], module=module, board_sizes=sizes)) if r.button == "Dice Tray"]
    assert {(r.dice, r.faces == []) for r in rolls} == {(5, True)}
    fmt = ReportFormat.of_format("piece report", "Symbols", "$PlayerName$ rolled: $DiceResult$")
    assert fmt is not None
    m = fmt.match("Sami rolled: ARTx2 INFx1")
    assert m is not None and (m.values, m.text, m.dice) == ((), "ARTx2 INFx1", 3)


def test_unread_dice_reports_are_not_checked_with_their_count(tray_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from vmodtool.cli import cli as main
    path, module, sizes = tray_game
    record = record_game([path], module=None)       # without the module nobody reads the trays
    sec = section(record)
    assert not sec.checked and sec.data["unread_reports"] == 10 and sec.data["rolls"] == 0
    assert any(line.startswith("NOT CHECKED: 10 dice-like report line(s) that no reader took, first trays.vlog step 1: "
                               "«* Avi rolls 5 dice: ARTx2 INFx1 XSWx2»") for line in sec.summary)
    assert "no dice rolled" not in " ".join(sec.summary)
    result = CliRunner().invoke(main, ["check-game", str(path), "--check", "dice"])
    assert result.exit_code == 3, result.output
    # a user's pattern reads them
    pattern = r"^\* (?P<player>\w+) rolls \d+ dice: (?P<values>.+)$"
    result = CliRunner().invoke(main, ["check-game", str(path), "--check", "dice", "--dice-pattern", pattern,
                                       "--dice-pattern", r"^\* Бросок кубиков: (?P<a>\d) и (?P<b>\d)$",
                                       "--dice-pattern", r"^\* All units roll: (?P<v>\d+)$"])
    assert result.exit_code == 0, result.output
    assert "10 roll(s)" in result.output and "10 --dice-pattern lines" in result.output
    with pytest.raises(VmodError, match="not a regular expression"):
        user_patterns(["(unclosed"])
    bad = CliRunner().invoke(main, ["check-game", str(path), "--dice-pattern", "(unclosed"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_a_whole_game_check_names_the_tray_rolls(tray_game) -> None:  # type: ignore[no-untyped-def]
    path, module, sizes = tray_game
    game = check_game(record_game([path], module=module, board_sizes=sizes), ["dice"])
    text = "\n".join(game.lines())
    assert "10 roll(s)" in text and "Avi, Dice Tray: 3 roll(s) whose faces are not numbers" in text
    assert game.complete


def test_a_scenario_names_the_dice_reports_of_its_module(tray_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """``module.dice_reports`` in the scenario is ``--dice-pattern`` for the
    audit's integrity check: the tray rolls no module component describes
    (audited without the module) are read, with their player; without it they
    are NOT CHECKED with their count.  A pattern that does not compile is a
    located scenario error."""
    from vmodtool.audit.game import audit_logs
    from vmodtool.scenario import load_scenario
    from vmodtool.scenario.problems import ScenarioProblems

    path, _module, _sizes = tray_game
    text = (Path(__file__).resolve().parents[2] / "examples" / "modern-tactical" / "scenario.yaml").read_text("utf-8")

    def dice(patterns: list[str] | None):  # type: ignore[no-untyped-def]
        body = text if patterns is None else text.replace(
            "\ngame:\n", "\nmodule:\n  dice_reports:\n" + "".join(f"    - '{p}'\n" for p in patterns) + "game:\n", 1)
        scenario_file = tmp_path / "scenario.yaml"
        scenario_file.write_text(body, encoding="utf-8")
        report = audit_logs([path], load_scenario(scenario_file), integrity=True)
        assert report.integrity is not None
        return next(s for s in report.integrity.sections if s.name == "dice")

    plain = dice(None)
    assert not plain.checked and plain.data["unread_reports"] == 10
    read = dice([r"^\* (?P<player>\w+) rolls \d+ dice: (?P<values>.+)$", r"^\* Бросок кубиков: (?P<a>\d) и (?P<b>\d)$",
                 r"^\* All units roll: (?P<v>\d+)$"])
    assert read.checked and read.data["rolls"] == 10 and read.data["unread_reports"] == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("\ngame:\n", "\nmodule:\n  dice_reports: ['(unclosed']\ngame:\n", 1), encoding="utf-8")
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(bad)
    problem = next(p for p in info.value.problems if "dice_reports" in str(p))
    assert "not a regular expression" in problem.message and problem.line is not None
