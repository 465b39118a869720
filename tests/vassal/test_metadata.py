"""moduledata / savedata / extensiondata: VASSAL's tolerant reading, the
pre-3.6.11 translation swap, VASSAL 3.7's layout when writing."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import SHARED, rel_id, shared_files, shared_path
from vmodtool.errors import FormatError, UnsafeFileError
from vmodtool.vassal.metadata import ExtensionMetadata, ModuleMetadata, SaveMetadata, is_pre_translation_fix

MODULEDATA = shared_files("corpus", "*/moduledata")
SAVES = [path for path in shared_files("corpus", "*/*.vsav") + shared_files("corpus", "*/*.vlog")
         if zipfile.is_zipfile(path)]


def _manifest() -> dict:
    """MANIFEST.tsv rows keyed by local_file."""
    path = shared_path("corpus", "MANIFEST.tsv")
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return {row.split("\t")[0]: dict(zip(header, row.split("\t"), strict=False)) for row in lines[1:]}


@pytest.mark.corpus
@pytest.mark.parametrize("path", MODULEDATA, ids=rel_id)
def test_corpus_moduledata_parses_and_round_trips(path: Path) -> None:
    data = path.read_bytes()
    metadata = ModuleMetadata.parse(data, file=path)
    row = _manifest()[str(path.relative_to(SHARED / "corpus"))]
    assert metadata.name == row["module_name"]
    assert metadata.version == row["module_version"]
    assert metadata.vassal_version == row["vassal_version"]
    assert metadata.date_saved.isdigit()
    assert ModuleMetadata.parse(metadata.to_bytes()) == metadata
    if b"<extra1" in data:  # written by 3.7: our layout is VASSAL's, byte for byte
        assert metadata.to_bytes() == data


@pytest.mark.corpus
def test_localized_names_pog_and_zxvt() -> None:
    manifest = _manifest()
    localized = {key.split("/")[0] for key, row in manifest.items()
                 if "localized <name lang" in row["notes"]}
    assert {"pog", "zxvt"} <= localized
    pog = ModuleMetadata.parse(shared_path("corpus", "pog", "moduledata").read_bytes())
    assert pog.name == "Paths of Glory"
    assert pog.name_translations == {"es": "Senderos de Gloria"}
    assert pog.description_translations["es"].startswith("Incluye la versión")
    # zxvt was saved by 3.2.17, which swapped language and text
    zxvt = ModuleMetadata.parse(shared_path("corpus", "zxvt", "moduledata").read_bytes())
    assert zxvt.name == "Capture of the territory"
    assert zxvt.name_translations == {"ru": "Захват территории"}
    assert zxvt.description == ""


@pytest.mark.corpus
@pytest.mark.parametrize("path", SAVES, ids=rel_id)
def test_corpus_savedata(path: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        if "savedata" not in archive.namelist():
            pytest.skip("no savedata entry")
        data = archive.read("savedata")
    metadata = SaveMetadata.parse(data, file=path)
    assert metadata.vassal_version
    assert SaveMetadata.parse(metadata.to_bytes()) == metadata
    if b"<extra1" in data:  # 3.7 on Windows
        assert metadata.to_bytes(line_end="\r\n") == data


def test_vassal_37_layout() -> None:
    metadata = ModuleMetadata(name="Minimal Hex", version="0.1", vassal_version="3.7.26",
                              date_saved="0",
                              description="Minimal clean hex wargame (golden reference)")
    expected = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        b'<data version="1">\n'
        b"  <version>0.1</version>\n"
        b"  <extra1/>\n"
        b"  <extra2/>\n"
        b"  <VassalVersion>3.7.26</VassalVersion>\n"
        b"  <dateSaved>0</dateSaved>\n"
        b"  <description>Minimal clean hex wargame (golden reference)</description>\n"
        b"  <name>Minimal Hex</name>\n"
        b"</data>\n")
    assert metadata.to_bytes() == expected
    golden = SHARED / "golden" / "modules" / "minimal-hex" / "moduledata"
    if golden.is_file():
        assert golden.read_bytes() == expected


def test_a_crlf_moduledata_round_trips_byte_for_byte() -> None:
    """Issue 40 item 14: a VASSAL 3.7 moduledata saved on Windows (CRLF)
    is written back with its CRLFs; equality ignores the line ending."""
    lf = (b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1">\n'
          b"  <version>1.2</version>\n  <extra1/>\n  <extra2/>\n  <VassalVersion>3.7.26</VassalVersion>\n"
          b"  <dateSaved>1700000000000</dateSaved>\n  <description>\xd0\x98\xd0\xb3\xd1\x80\xd0\xb0</description>\n"
          b"  <name>Kursk</name>\n</data>\n")
    crlf = lf.replace(b"\n", b"\r\n")
    parsed = ModuleMetadata.parse(crlf)
    assert parsed.to_bytes() == crlf
    assert ModuleMetadata.parse(lf).to_bytes() == lf
    assert parsed == ModuleMetadata.parse(lf) and parsed.copy().to_bytes() == crlf
    assert parsed.to_bytes(line_end="\n") == lf
    saved = SaveMetadata.parse(crlf.replace(b"  <name>Kursk</name>\r\n", b""))
    assert saved.to_bytes().count(b"\r\n") == 9


def test_tolerant_reading() -> None:
    data = b"""<?xml version="1.0"?>
<anything>
  <unknown>ignored<version>nested</version></unknown>
  <version>
     1.0  </version>
  <VassalVersion>3.7.1</VassalVersion>
  <name><![CDATA[A & B]]></name>
  <name lang="de">  Deutsch  </name>
  <description>d</description>
  <description lang="fr">f</description>
  <!-- comment -->
</anything>"""
    metadata = ModuleMetadata.parse(data)
    assert metadata.version == "1.0"
    assert metadata.name == "A & B"
    assert metadata.name_translations == {"de": "Deutsch"}
    assert metadata.description_translations == {"fr": "f"}
    assert ModuleMetadata.parse(metadata.to_bytes()) == metadata
    assert b"<name>A &amp; B</name>" in metadata.to_bytes()


def test_translation_swap_before_3_6_11() -> None:
    old = b"""<data version="1"><VassalVersion>3.6.10</VassalVersion>
<name>N</name><name lang="Nom">fr</name>
<description>D</description><description lang="Desc">fr</description></data>"""
    metadata = ModuleMetadata.parse(old)
    assert metadata.name_translations == {"fr": "Nom"}
    assert metadata.description_translations == {"fr": "Desc"}
    assert ModuleMetadata.parse(metadata.to_bytes()) == metadata
    assert b'<name lang="Nom">fr</name>' in metadata.to_bytes()  # as 3.6.10 wrote it
    metadata.vassal_version = "3.7.0"
    assert b'<name lang="fr">Nom</name>' in metadata.to_bytes()
    new = old.replace(b"3.6.10", b"3.6.11")
    assert ModuleMetadata.parse(new).name_translations == {"Nom": "fr"}
    # no VassalVersion at all: VASSAL assumes its own (current) version
    assert ModuleMetadata.parse(b'<data><name>N</name><name lang="de">X</name></data>'
                                ).name_translations == {"de": "X"}


@pytest.mark.parametrize("version, swapped", [
    ("3.6.10", True), ("3.6.11", False), ("3.6.11-beta1", False), ("3.2.17", True),
    ("3.6.0-beta3", True), ("3.7", False), ("", True), ("2.9b2", True),
    ("3.5.0-SNAPSHOT-bugfix-554-a8f2c3033", True), ("4", False),
])
def test_version_gate(version: str, swapped: bool) -> None:
    assert is_pre_translation_fix(version) is swapped


def test_extension_metadata() -> None:
    data = b"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<data version="1">
  <version>2</version>
  <VassalVersion>3.7.0</VassalVersion>
  <dateSaved>12</dateSaved>
  <description>ext</description>
  <universal>true</universal>
</data>"""
    metadata = ExtensionMetadata.parse(data)
    assert metadata.universal is True
    assert metadata.version == "2"
    written = metadata.to_bytes()
    assert written.index(b"<description>") < written.index(b"<universal>true</universal>")
    assert ExtensionMetadata.parse(written) == metadata
    assert ExtensionMetadata.parse(data.replace(b">true<", b">TRUE<")).universal is False
    assert ExtensionMetadata().to_bytes().count(b"<universal>false</universal>") == 1


def test_save_metadata_description_is_optional() -> None:
    metadata = SaveMetadata(version="1", vassal_version="3.7.9", date_saved="5")
    assert b"description" not in metadata.to_bytes()
    metadata.description = "Turn 3"
    assert b"<description>Turn 3</description>" in metadata.to_bytes()
    assert SaveMetadata.parse(metadata.to_bytes()) == metadata


def test_copy_is_deep() -> None:
    metadata = ModuleMetadata(name="x", name_translations={"de": "y"})
    clone = metadata.copy()
    clone.name_translations["fr"] = "z"
    assert metadata.name_translations == {"de": "y"}


def test_bad_xml_names_the_line() -> None:
    with pytest.raises(FormatError) as info:
        ModuleMetadata.parse(b'<data version="1">\n  <name>x</nam>\n</data>', file="moduledata")
    assert "line 2" in str(info.value)
    assert "moduledata" in str(info.value)


def test_entities_refused() -> None:
    with pytest.raises(UnsafeFileError):
        ModuleMetadata.parse(b'<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                             b"<data><name>&e;</name></data>")
