"""Extension target paths as VASSAL's ComponentPathBuilder writes and
resolves them, and a module with its extensions loaded."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from vmodtool.errors import FormatError
from vmodtool.vassal.extension import (
    TargetError,
    component_path,
    load_extensions,
    open_extended,
    parse_component_path,
    resolve_target,
)
from vmodtool.vassal.module import Module

P = "VASSAL.build."
MODULE_XML = f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<{P}GameModule name="Base" version="2.0" VassalVersion="3.7.0" nextPieceSlotId="3">
    <{P}module.Map mapName="Main: East/West"><{P}module.map.BoardPicker/></{P}module.Map>
    <{P}module.PieceWindow name="Counters">
        <{P}widget.TabWidget entryName="Counters">
            <{P}widget.TabWidget entryName="Blue"/>
            <{P}widget.TabWidget entryName="Red"/>
        </{P}widget.TabWidget>
    </{P}module.PieceWindow>
    <{P}module.PieceWindow name="Other">
        <{P}widget.ListWidget entryName="Deep"><{P}widget.ListWidget entryName="Inner"/></{P}widget.ListWidget>
    </{P}module.PieceWindow>
    <{P}module.Documentation/>
</{P}GameModule>
""".encode()


def ext_xml(*elements: tuple[str, str], module: str = "Base", universal: str = "false") -> bytes:
    body = "".join(f'<{P}module.ExtensionElement target="{t}">{child}</{P}module.ExtensionElement>'
                   for t, child in elements)
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            f'<{P}module.ModuleExtension anyModule="{universal}" extensionId="a1b" module="{module}" '
            f'moduleVersion="2.0" nextPieceSlotId="2" vassalVersion="3.7.0" version="1.0">\n'
            f'{body}\n</{P}module.ModuleExtension>\n').encode()


def write_zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def test_paths_are_written_and_read_as_component_path_builder_does() -> None:
    steps = [(P + "module.Map", "Main: East/West"), (P + "module.map.BoardPicker", None)]
    text = component_path(steps)
    # the name's ':' and '/' escaped, one backslash each (docs/vassal-format.md §3.1.1: backslashes are not
    # doubled); a step with no name has no ':'
    assert text == r"VASSAL.build.module.Map:Main\: East\/West/VASSAL.build.module.map.BoardPicker"
    assert parse_component_path(text) == steps
    assert component_path([]) == "" and parse_component_path("") == []


def test_targets_resolve_by_class_and_name_with_vassals_fallbacks() -> None:
    root = etree.fromstring(MODULE_XML)
    tab = f"{P}module.PieceWindow:Counters/{P}widget.TabWidget:Counters/{P}widget.TabWidget:Red"
    assert resolve_target(root, tab).get("entryName") == "Red"
    assert resolve_target(root, "") is root                       # the module itself
    mapped = component_path([(P + "module.Map", "Main: East/West"), (P + "module.map.BoardPicker", None)])
    assert resolve_target(root, mapped).tag == P + "module.map.BoardPicker"
    # the last step: the first of its class when no name matches (getPath's partial match)
    assert resolve_target(root, f"{P}module.PieceWindow:Counters/{P}widget.TabWidget:Nope").get(
        "entryName") == "Counters"
    # a step before the last: the first of the class whose subtree has the rest
    assert resolve_target(root, f"{P}module.PieceWindow:Gone/{P}widget.ListWidget:Deep/"
                                f"{P}widget.ListWidget:Inner").get("entryName") == "Inner"
    with pytest.raises(TargetError, match=r"no ChartWindow 'Charts' in the module"):
        resolve_target(root, f"{P}module.ChartWindow:Charts")
    with pytest.raises(TargetError, match=r"no PanelWidget 'X' in VASSAL.build.module.PieceWindow:Counters/"):
        resolve_target(root, f"{P}module.PieceWindow:Counters/{P}widget.TabWidget:Counters/{P}widget.PanelWidget:X")


def test_loading_grafts_components_and_reads_the_extensions_images(tmp_path: Path) -> None:
    base = write_zip(tmp_path / "base.vmod", {"buildFile.xml": MODULE_XML, "images/a.png": b"A"})
    tab = f"{P}module.PieceWindow:Counters/{P}widget.TabWidget:Counters/{P}widget.TabWidget:Blue"
    slot = (f'<{P}widget.PieceSlot entryName="Guard" gpid="a1b:1">+/null/piece;;;g.png;Guard/null;0;0;a1b:1;0'
            f'</{P}widget.PieceSlot>')
    ext = write_zip(tmp_path / "x.vmdx", {"buildFile.xml": ext_xml((tab, slot)), "extensiondata": b"<data/>",
                                          "images/g.png": b"G"})
    module = open_extended(str(base), [str(ext)])
    try:
        (entry,) = module.buildfile.piece_slots()
        assert entry.gpid == "a1b:1" and entry.element.getparent().get("entryName") == "Blue"
        assert entry.definition.startswith("+/null/piece;")
        assert module.read_file("images/g.png") == b"G" and module.read_file("images/a.png") == b"A"
        assert "images/g.png" in module.files and module.read_file("images/none.png") is None
    finally:
        module.close()


def test_an_extension_vassal_would_not_load_is_a_located_error(tmp_path: Path) -> None:
    base = write_zip(tmp_path / "base.vmod", {"buildFile.xml": MODULE_XML})
    child = f"<{P}widget.ListWidget entryName='L'/>"
    missing = write_zip(tmp_path / "missing.vmdx", {
        "buildFile.xml": ext_xml((f"{P}module.PieceWindow:Counters", child), (f"{P}module.ChartWindow:Charts", child)),
        "extensiondata": b"<data/>"})
    with Module.open(base) as module, Module.open(missing) as ext, \
            pytest.raises(FormatError, match=r"missing.vmdx!buildFile.xml: line 3: ExtensionElement target "
                                             r"'VASSAL.build.module.ChartWindow:Charts': no ChartWindow"):
        load_extensions(module, [ext])
    other = write_zip(tmp_path / "other.vmdx", {"buildFile.xml": ext_xml(module="Another"),
                                                "extensiondata": b"<data/>"})
    with Module.open(base) as module, Module.open(other) as ext, \
            pytest.raises(FormatError, match="built for the module 'Another', not 'Base'"):
        load_extensions(module, [ext])
    universal = write_zip(tmp_path / "any.vmdx", {"buildFile.xml": ext_xml((f"{P}module.PieceWindow:Other", child),
                                                                         module="Another", universal="true"),
                                                  "extensiondata": b"<data/>"})
    with Module.open(base) as module, Module.open(universal) as ext:
        loaded = load_extensions(module, [ext])
        assert [e.get("entryName") for e in loaded.buildfile.components("ListWidget")] == ["Deep", "Inner", "L"]
    with pytest.raises(FormatError, match="a module, not an extension"):
        open_extended(str(base), [str(base)])
    with pytest.raises(FormatError, match="an extension, not the module it extends"):
        open_extended(str(universal), [str(universal)])
    hollow = write_zip(tmp_path / "hollow.vmdx", {"buildFile.xml": ext_xml((f"{P}module.PieceWindow:Other", "")),
                                                  "extensiondata": b"<data/>"})
    with Module.open(base) as module, Module.open(hollow) as ext, \
            pytest.raises(FormatError, match=r"hollow.vmdx!buildFile.xml: line 3: an ExtensionElement .*wraps no"):
        load_extensions(module, [ext])


def test_the_extensions_a_real_save_registers() -> None:
    """VASL saves register their extensions after SETUP_STACK (``EXT``, RegCmd)."""
    from tests.conftest import shared_path
    from vmodtool.vassal.extension import registered_extensions
    from vmodtool.vassal.savefile import SavedGame

    saved = SavedGame.read(shared_path("corpus", "vasl", "3d6.vlog"))
    assert registered_extensions(saved) == [("3d6", "1.0")]
    many = SavedGame.read(shared_path("corpus", "vasl", "4players.vlog"))
    assert [name for name, _ in registered_extensions(many)] == [
        "4los", "5VBM", "BFP_v403", "kgs", "oba-flowchart", "SecretDR", "sniper-finder", "turnscrewv1_1",
        "VASLOverlays"]
