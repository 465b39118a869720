"""check-game tells set-ups of different scenarios of one module version
from a game: a file that is one of the module's predefined set-ups,
unplayed, after a game that started as another set-up is not one game; a
game restarted from its own set-up, and files the module's set-ups cannot
identify, stay what they were (a restart, a missing log)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.checkgame.test_chain import _record, _session, _writer
from tests.conftest import shared_path
from vmodtool.checkgame import record_game
from vmodtool.checkgame.chain import not_one_game, section
from vmodtool.checkgame.setups import Setup, module_setups
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.setups import PredefinedSetupDef, predefined_setups


def _hannibal_module(tmp_path: Path) -> Path:
    """Hannibal's module folder as its repository holds it (tomo9878/hannnibal,
    Hannibal_Valley_en_1.3.1/): the buildFile and its two set-ups under the
    names its PredefinedSetups give (the corpus renamed one)."""
    corpus = shared_path("corpus", "hannibal")
    folder = tmp_path / "hannibal"
    folder.mkdir()
    for name in ("buildFile", "moduledata", "PredifinedScenario.vsav"):
        shutil.copyfile(corpus / name, folder / name)
    shutil.copyfile(corpus / "Charles_Variant.vsav", folder / "Charles' Variant.vsav")
    return folder


def test_predefined_setups_are_read_with_their_menus() -> None:
    xml = b"""<VASSAL.launch.BasicModule name="M" version="1">
      <VASSAL.build.module.PredefinedSetup isMenu="true" name="New Game" file="menu.vsav" useFile="true">
        <VASSAL.build.module.PredefinedSetup file="a.vsav" isMenu="false" name="A" useFile="true"/>
        <VASSAL.build.module.PredefinedSetup isMenu="true" name="More">
          <VASSAL.build.module.PredefinedSetup file="b.vsav" name="B"/>
        </VASSAL.build.module.PredefinedSetup>
        <VASSAL.build.module.PredefinedSetup isMenu="false" name="Blank" useFile="false"/>
      </VASSAL.build.module.PredefinedSetup>
      <VASSAL.build.module.PredefinedSetup file="c.vsav" name="C" useFile="TRUE"/>
    </VASSAL.launch.BasicModule>"""
    setups = predefined_setups(BuildFile.parse(xml))
    assert [(s.title, s.file) for s in setups] == [("New Game › A", "a.vsav"), ("New Game › More › B", "b.vsav"),
                                                   ("C", "c.vsav")]


@pytest.mark.corpus
@pytest.mark.parametrize("order", [("Charles_Variant.vsav", "PredifinedScenario.vsav"),
                                   ("PredifinedScenario.vsav", "Charles_Variant.vsav")])
def test_hannibal_s_two_scenarios_are_not_one_game(tmp_path: Path, order: tuple[str, str]) -> None:
    saves = [shared_path("corpus", "hannibal", name) for name in order]
    record = record_game(saves, module=_hannibal_module(tmp_path))
    titles = {"Charles_Variant.vsav": "New Game › Charles' Variant",
              "PredifinedScenario.vsav": "New Game › Standard Game"}
    [apart] = not_one_game(record)
    assert apart.set_ups == (titles[order[0]], titles[order[1]])
    s = section(record)
    [f] = s.findings                 # one finding, not a missing log with 22 differences folded
    assert f.kind == "not_one_game" and f.severity == "suspicious"
    assert f"{order[0]} starts as the module's set-up “{titles[order[0]]}”" in f.message
    assert f"{order[1]} as its set-up “{titles[order[1]]}”" in f.message
    assert s.summary[0].startswith("NOT ONE GAME: set-ups of different scenarios")
    assert s.data["not_one_game"][0]["set_ups"] == [titles[order[0]], titles[order[1]]]


@pytest.mark.corpus
def test_without_the_set_up_files_nothing_is_decided(tmp_path: Path) -> None:
    """A bare buildFile names the set-ups but does not hold them: the two
    set-ups share their pieces, so nothing says they are not one game."""
    corpus = shared_path("corpus", "hannibal")
    record = record_game([corpus / "Charles_Variant.vsav", corpus / "PredifinedScenario.vsav"],
                         module=corpus / "buildFile")
    assert module_setups(record) == [] and not_one_game(record) == []
    [f] = section(record).findings
    assert f.kind == "missing_log"
    assert "give the module's archive with its set-ups" in f.message


@pytest.mark.corpus
def test_the_same_set_up_twice_is_one_game(tmp_path: Path) -> None:
    save = shared_path("corpus", "hannibal", "PredifinedScenario.vsav")
    record = record_game([save, save], module=_hannibal_module(tmp_path))
    assert not_one_game(record) == [] and section(record).findings == []


def _setups(monkeypatch: pytest.MonkeyPatch, setups: list[Setup]) -> None:
    monkeypatch.setattr("vmodtool.checkgame.chain.module_setups", lambda record: setups)


def test_a_game_restarted_from_its_own_set_up_is_a_restart(modern, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's first log starts as set-up A; a later log starts as A
    again: a restart (what was played since is not continued), not
    another scenario."""
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    again = tmp_path / "1-again.vlog"
    shutil.copyfile(first, again)
    record = _record([first, second, again], module, sizes)
    _setups(monkeypatch, [Setup(PredefinedSetupDef("A", "a.vsav"), record.starts[0])])
    assert not_one_game(record) == []
    assert not any(f.kind == "not_one_game" for f in section(record).findings)


def test_a_log_starting_as_another_set_up_is_not_one_game(modern, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Two logs of a game begun as set-up A, then a log that starts exactly
    as set-up B: not one game, with both set-ups named; a log matching no
    set-up is never such evidence."""
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    w.move(units[6], "0101", player="Avi")          # B: a set-up A is not
    other = _session(w, [], "Avi", tmp_path / "other.vlog")
    record = _record([first, second, other], module, sizes)
    a = Setup(PredefinedSetupDef("A", "a.vsav", ("Scenarios",)), record.starts[0])
    b = Setup(PredefinedSetupDef("B", "b.vsav", ("Scenarios",)), record.starts[2])
    _setups(monkeypatch, [a, b])
    [apart] = not_one_game(record)
    assert apart.k == 2 and apart.set_ups == ("Scenarios › A", "Scenarios › B")
    assert apart.reason == ("set-ups of different scenarios: 1.vlog starts as the module's set-up “Scenarios › A” "
                            "(a.vsav), other.vlog as its set-up “Scenarios › B” (b.vsav)")
    # only B known: the game's start is no set-up, nothing is decided
    _setups(monkeypatch, [b])
    assert not_one_game(record) == []


@pytest.mark.corpus
def test_two_saves_of_an_absent_module_stay_a_missing_log_that_says_what_else_it_may_be() -> None:
    """The Russian Campaign's "Campaign" and "New Scenario" saves (jspy's
    test files; the module is not in the corpus) share 185 pieces and stand
    at the same turn: nothing in them tells two set-ups from a game whose
    log is missing, so nothing is decided, and the finding says so."""
    saves = [shared_path("corpus", "jspy", name) for name in ("Campaign-180907.vsav", "New-180907.vsav")]
    record = record_game(saves)
    assert not_one_game(record) == []
    [f] = section(record).findings
    assert f.kind == "missing_log" and f.message.endswith(
        "both files are saved positions with no play logged, as set-ups of two scenarios of one module are: "
        "give the module's archive with its set-ups (--module) to tell them apart")


# -- the bundled Marne 1918 example: a game of three scenarios, each a predefined set-up ------------

@pytest.fixture(scope="module")
def marne(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import EXAMPLES
    from vmodtool.assemble.builder import build_module_file
    out = tmp_path_factory.mktemp("marne") / "marne.vmod"
    build_module_file(EXAMPLES / "marne-1918" / "scenario.yaml", out, jobs=1)
    return out


def _set_up(module_path: Path, name: str, folder: Path) -> Path:
    from vmodtool.vassal.module import Module
    with Module.open(module_path) as module:
        data = module.read_file(name)
    assert data is not None
    (folder / name).write_bytes(data)
    return folder / name


def test_the_marne_example_s_scenarios_are_not_one_game(marne: Path, tmp_path: Path) -> None:
    """Three scenarios of one module version sharing most of their pieces:
    before, check-game judged them one game given out of order."""
    files = [_set_up(marne, name, tmp_path) for name in ("chateau-thierry.vsav", "belleau-wood.vsav",
                                                         "second-marne.vsav")]
    record = record_game(files, module=marne)
    first, second = not_one_game(record)
    assert first.common > 0 and first.versions[0] == first.versions[1]      # not told by the pieces or version
    menu = "Marne Salient, 1918 › "
    assert first.set_ups == (menu + "Château-Thierry, 31 May", menu + "Belleau Wood, 6 June")
    assert second.set_ups == (menu + "Belleau Wood, 6 June", menu + "Second Marne, 15 July")
    [f] = section(record).findings
    assert f.kind == "not_one_game" and not any(g.kind == "logs_out_of_order" for g in section(record).findings)


def test_a_game_played_from_a_marne_set_up_is_one_game(marne: Path, tmp_path: Path) -> None:
    """The set-up saved, then two logs played from it, then a third started
    from the set-up again: one game (the logs continue it; the third
    restarts it), not another scenario."""
    from vmodtool.vassal.gamewriter import GameWriter, Player
    from vmodtool.vassal.module import Module
    from vmodtool.vassal.savefile import SavedGame
    start = _set_up(marne, "belleau-wood.vsav", tmp_path)
    with Module.open(marne) as module:
        writer = GameWriter(module, players=[Player("pw-a", "Alice", "Allies"), Player("pw-b", "Борис", "Germany")])
        writer.restore(SavedGame.from_bytes(start.read_bytes()))
        units = [pid for pid, p in writer.pieces.items() if p.piece.get_property("UnitId")]
        places = sorted({writer.location(pid) for pid in units})
        logs = []
        for n, who in enumerate(("Alice", "Борис", "Alice"), 1):
            if n == 3:
                writer.restore(SavedGame.from_bytes(start.read_bytes()))
            writer.snapshot()
            pid = units[n]
            writer.move(pid, next(p for p in places if p != writer.location(pid)), player=who)
            path = tmp_path / f"{n}.vlog"
            path.write_bytes(writer.to_bytes())
            logs.append(path)
    record = record_game([start, *logs], module=marne)
    assert not_one_game(record) == []
    kinds = [f.kind for f in section(record).findings]
    # (the third log fits best right after the set-up: the order check
    # says so, as before; never "not one game")
    assert "not_one_game" not in kinds and kinds in (["logs_out_of_order"], ["restarted_log"])
