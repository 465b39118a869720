"""``vmodtool build --extension NAME``: a module extension (.vmdx) as
VASSAL's extension editor writes it, the module without the extension's
counters, lint of the extension against its module, and the located
errors of an extension VASSAL could not load."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.assemble.extension_fixture import GUARDS, guard_scenario
from tests.cli_runner import invoke
from vmodtool.assemble.builder import build_extension_file, build_module_file
from vmodtool.errors import VmodError
from vmodtool.lint import lint_module, lint_result
from vmodtool.scenario import load_scenario
from vmodtool.scenario.problems import ScenarioProblems
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.extension import EXTENSION_ELEMENT, open_extended, resolve_target
from vmodtool.vassal.metadata import ExtensionMetadata
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef

P = "VASSAL.build."
#: ModuleExtension.getAttributeNames() (VASSAL 3.7.26), which Java's DOM writes sorted
ROOT_ATTRIBUTES = sorted(["anyModule", "version", "description", "module", "moduleVersion", "vassalVersion",
                          "nextPieceSlotId", "extensionId"])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("ext")
    scenario = guard_scenario(folder)
    module, extension = folder / "guards.vmod", folder / "Guards.vmdx"
    build_module_file(scenario, module, jobs=1)
    build_extension_file(scenario, "Guards", extension, jobs=1)
    return scenario, module, extension


def test_the_extension_is_written_as_vassals_editor_writes_it(built: tuple[Path, Path, Path]) -> None:
    _, module_path, ext_path = built
    with zipfile.ZipFile(ext_path) as z:
        names = z.namelist()
        assert names[:3] == ["buildFile.xml", "extensiondata", "moduledata"]
        ext = BuildFile.parse(z.read("buildFile.xml"))
        meta = ExtensionMetadata.parse(z.read("extensiondata"))
        ext_moduledata = z.read("moduledata")
    with zipfile.ZipFile(module_path) as z:
        base = BuildFile.parse(z.read("buildFile.xml"))
        assert ext_moduledata == z.read("moduledata")            # a copy of the module's
        module_images = {n for n in z.namelist() if n.startswith("images/")}
    root = ext.root
    assert root.tag == P + "module.ModuleExtension"
    assert list(root.keys()) == ROOT_ATTRIBUTES
    assert (root.get("module"), root.get("moduleVersion")) == (base.name, base.version)
    assert (root.get("version"), root.get("description"), root.get("anyModule")) == ("1.1", "Optional guard units",
                                                                                     "false")
    assert root.get("vassalVersion") == base.vassal_version == meta.vassal_version
    assert (meta.version, meta.description, meta.universal) == ("1.1", "Optional guard units", False)
    ext_id = root.get("extensionId")
    assert ext_id is not None and len(ext_id) == 3
    # every child an ExtensionElement with only a target, wrapping one component that the module has a place for
    assert {child.tag for child in root} == {EXTENSION_ELEMENT}
    sides = []
    for element in root:
        assert list(element.keys()) == ["target"] and len(element) == 1
        target = resolve_target(base.root, element.get("target"))
        assert target.tag == P + "widget.TabWidget"
        sides.append(target.get("entryName"))
        (widget,) = element
        assert widget.tag == P + "widget.ListWidget" and widget.get("entryName") == "Guards"
    assert sides == ["Blue", "Red"]
    slots = ext.piece_slots()
    assert [s.gpid for s in slots] == [f"{ext_id}:1", f"{ext_id}:2"]
    assert int(root.get("nextPieceSlotId")) == 3
    assert all(s.definition.endswith(f"null;0;0;{s.gpid};0") for s in slots)
    # its pieces use the module's prototypes; its images are the guards' faces, and the module has none of them
    protos = base.prototypes()
    for slot in slots:
        used = [t.view().prototype_name for t in PieceDef.parse(slot.definition).traits
                if t.prefix == "prototype;"]
        assert used and all(name in protos for name in used)
    ext_images = {n for n in names if n.startswith("images/")}
    assert ext_images == {f"images/{c}.guard__{f}.png" for c in ("blue", "red") for f in ("full", "reduced")}
    assert not ext_images & module_images
    assert not [s for s in base.piece_slots() if "guard" in s.definition]


def test_the_module_and_extension_lint_clean_together_and_alone_not_checked(built: tuple[Path, Path, Path]) -> None:
    _, module_path, ext_path = built
    with Module.open(module_path) as module:
        assert [f.code for f in lint_module(module) if f.severity != "info"] == []
    together = lint_result(str(ext_path), base=str(module_path))
    assert together.counts == {"error": 0, "warning": 0, "info": 0} and together.exit_code == 0
    alone = lint_result(str(ext_path))
    assert [f.code for f in alone.findings] == ["extension-not-checked"]
    assert alone.exit_code == 3                 # what only the module answers is NOT CHECKED, never ok


def test_lint_finds_what_vassal_would_not_load(built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, module_path, ext_path = built
    with zipfile.ZipFile(ext_path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    broken = entries["buildFile.xml"].replace(b"TabWidget:Red", b"TabWidget:Green").replace(
        b'module="guards"', b'module="Other game"')
    bad = tmp_path / "bad.vmdx"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in entries.items():
            if name != "images/red.guard__full.png":
                z.writestr(name, broken if name == "buildFile.xml" else data)
    codes = sorted(f.code for f in lint_result(str(bad), base=str(module_path)).findings)
    # Green: the last step falls back to the first TabWidget (VASSAL's partial match), so it still resolves
    assert codes == ["missing-image", "wrong-base-module"]
    deeper = entries["buildFile.xml"].replace(b"PieceWindow:Counters/", b"PieceWindow:Counters/"
                                              b"VASSAL.build.widget.PanelWidget:Nope/")
    empty = (b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<VASSAL.build.module.ModuleExtension '
             b'anyModule="false" module="guards"/>\n')
    hollow = empty.replace(b'"guards"/>', b'"guards"><VASSAL.build.module.ExtensionElement target=""/>'
                                          b'</VASSAL.build.module.ModuleExtension>')
    for name, text, expected in (("deeper.vmdx", deeper, ["missing-target", "missing-target"]),
                                 ("empty.vmdx", empty, ["empty-extension"]),
                                 ("hollow.vmdx", hollow, ["empty-extension-element"])):
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as z:
            for entry, data in entries.items():
                z.writestr(entry, text if entry == "buildFile.xml" else data)
        result = lint_result(str(path), base=str(module_path))
        assert [f.code for f in result.findings if f.severity == "error"] == expected
        assert result.exit_code == 1


def test_building_again_gives_the_same_bytes(built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    scenario, _, ext_path = built
    again = tmp_path / "again.vmdx"
    code, out, err = invoke(["build", scenario, "--extension", "Guards", "-o", again, "-q"])
    assert code == 0, err
    assert "extension 'Guards' of guards 1.0 — 2 piece slots, 4 images" in out
    assert again.read_bytes() == ext_path.read_bytes()


def test_an_extension_vassal_cannot_load_is_refused_with_its_line(tmp_path: Path) -> None:
    empty = GUARDS.replace("counters: [blue.guard, red.guard]", "counters: []")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(guard_scenario(tmp_path / "a", empty))
    (line,) = caught.value.lines()
    assert "extensions[0]" in line and "VASSAL fails on an empty extension" in line
    placed = GUARDS.replace("[blue.guard, red.guard]", "[blue.guard, blue.tank, nobody]")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(guard_scenario(tmp_path / "b", placed))
    text = "\n".join(caught.value.lines())
    assert "counter 'blue.tank' is placed by the set-up (line" in text
    assert "unknown counter 'nobody'" in text
    twice = GUARDS + "  - {name: Guards, counters: [red.guard]}\n"
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(guard_scenario(tmp_path / "c", twice))
    assert sorted(line.split(": ", 2)[-1] for line in caught.value.lines()) == [
        "counter 'red.guard' is already in extension 'Guards'",
        "duplicate extension name 'Guards' (first defined at line 87)"]
    scenario = guard_scenario(tmp_path / "d")
    with pytest.raises(VmodError, match="has no extension 'Gards'; its extensions: 'Guards'"):
        build_extension_file(scenario, "Gards", tmp_path / "x.vmdx", jobs=1)
    code, _, err = invoke(["build", scenario, "--extension", "Guards", "-o", tmp_path / "x.vmod"])
    assert code == 2 and "should end in .vmdx" in err


EVENTS = """
decks:
  - {id: base_events, name: "Events", role: draw, cards: [{id: ev.rain, name: "Rain", text: "No movement."}]}
  - id: guard_events
    name: "Гвардия"
    role: draw
    reshuffle_from: guard_discard
    cards:
      - {id: ev.guard, name: "Guard", text: "A guard unit moves twice.", count: 2}
  - {id: guard_discard, name: "Guard discard", role: discard}
"""


def test_an_extension_holds_decks_with_their_discard_pile(tmp_path: Path) -> None:
    path = guard_scenario(tmp_path, GUARDS.replace("counters: [blue.guard, red.guard]",
                                                   "counters: [blue.guard, red.guard]\n"
                                                   "    decks: [guard_events, guard_discard]") + EVENTS)
    module_path, ext_path = tmp_path / "g.vmod", tmp_path / "Guards.vmdx"
    build_module_file(path, module_path, jobs=1)
    build_extension_file(path, "Guards", ext_path, jobs=1)
    with zipfile.ZipFile(ext_path) as z:
        ext = BuildFile.parse(z.read("buildFile.xml"))
        ext_images = {n for n in z.namelist() if n.startswith("images/")}
    with zipfile.ZipFile(module_path) as z:
        base = BuildFile.parse(z.read("buildFile.xml"))
        module_images = {n for n in z.namelist() if n.startswith("images/")}
    assert [p.get("name") for p in base.components("DrawPile")] == ["Events"]
    piles = [(e.get("target"), e[0].get("name"), e[0].get("reshuffleTarget")) for e in ext.root
             if e[0].tag.endswith("DrawPile")]
    assert piles == [("VASSAL.build.module.Map:Off-map", "Гвардия", ""),
                     ("VASSAL.build.module.Map:Off-map", "Guard discard", "Гвардия")]
    ext_id = ext.root.get("extensionId")
    assert [s.gpid for s in ext.piece_slots()] == [f"{ext_id}:{n}" for n in (1, 2, 3, 4)]   # 2 units, 2 cards
    assert int(ext.root.get("nextPieceSlotId")) == 5
    cards = {n for n in ext_images if "guard" in n.lower() and "__" not in n}
    assert cards and not cards & module_images and not any("rain" in n for n in ext_images)
    result = lint_result(str(ext_path), base=str(module_path))
    assert result.counts == {"error": 0, "warning": 0, "info": 0}, list(result.lines())
    # alone: the decks' map is the module's, not checked (and not "unknown board")
    assert [f.code for f in lint_result(str(ext_path)).findings] == ["extension-not-checked"]
    with open_extended(str(module_path), [str(ext_path)]) as loaded:       # as VASSAL loads it
        piles = loaded.buildfile.components("DrawPile")
        assert [(p.get("name"), p.getparent().get("mapName")) for p in piles] == [
            ("Events", "Off-map"), ("Гвардия", "Off-map"), ("Guard discard", "Off-map")]
    # a deck without its discard pile cannot go alone
    alone = guard_scenario(tmp_path / "b", GUARDS.replace("counters: [blue.guard, red.guard]",
                                                          "counters: [blue.guard]\n    decks: [guard_events]") + EVENTS)
    with pytest.raises(ScenarioProblems, match="'guard_events' and 'guard_discard' are a deck and the deck it "
                                               "reshuffles from: put both in the extension, or neither"):
        load_scenario(alone)


def test_extension_ids_differ_within_a_scenario(tmp_path: Path) -> None:
    from dataclasses import replace

    from vmodtool.assemble.extension import extension_id
    from vmodtool.scenario.model import ExtensionSpec

    scenario = load_scenario(guard_scenario(tmp_path))
    names = [f"E{i}" for i in range(200)]       # 200 ids of 3 hex digits: some first draws collide
    many = replace(scenario, extensions=tuple(ExtensionSpec(n, ("blue.guard",)) for n in names))
    ids = [extension_id(many, n) for n in names]
    assert len(set(ids)) == len(ids) and all(len(i) == 3 for i in ids)
    assert extension_id(scenario, "Guards") == extension_id(scenario, "Guards")     # the same build after build
