"""``build_zip`` lays a module's archive out itself: it must be, byte for
byte, what :mod:`zipfile` writes for the same entries (its reference,
``_zipfile_build_zip``), and read back to the same members."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from vmodtool.assemble.builder import build_module_file
from vmodtool.vassal import archive as A

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        return {info.filename: zf.read(info) for info in zf.infolist()}


@pytest.mark.parametrize("level", [9, 6, 1])
def test_varied_entries_are_laid_out_as_zipfile_lays_them(level):
    entries = {
        "buildFile.xml": b"<VASSAL.build.GameModule/>" * 500,
        "moduledata": b"",
        "images/": b"",
        "images/counter.png": bytes(range(256)) * 7,
        "images/Пехота №1.PNG": b"\x89PNG not deflated",
        "help/сценарий.html": "<p>Пон-Сен-Луи</p>".encode() * 40,
        "saves/start.vsav": b"PK\x03\x04 inner zip",
        "data.txt": b"x",
    }
    for when in [(1980, 1, 1, 0, 0, 0), (2024, 12, 31, 23, 59, 58)]:
        ours = A.build_zip(entries, date_time=when, compress_level=level)
        assert ours == A._zipfile_build_zip(entries, date_time=when, compress_level=level)
        assert _members(ours) == entries


def test_stored_and_deflated_as_before():
    data = A.build_zip({"a.png": b"p" * 100, "b.xml": b"x" * 100})
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        kinds = {i.filename: i.compress_type for i in zf.infolist()}
    assert kinds == {"a.png": zipfile.ZIP_STORED, "b.xml": zipfile.ZIP_DEFLATED}


def test_a_bad_entry_name_is_refused():
    with pytest.raises(ValueError, match="climbs out"):
        A.build_zip({"../evil.png": b""})


def test_an_archive_needing_zip64_is_written_by_zipfile(monkeypatch):
    entries = {"a.xml": b"a" * 5000, "b.png": b"b" * 5000}
    calls: list[int] = []
    real = A._zipfile_build_zip

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(A, "_zipfile_build_zip", counted)
    monkeypatch.setattr(A, "_NO_ZIP64_BELOW", 4000)
    assert _members(A.build_zip(entries)) == entries
    assert calls == [1]


@pytest.mark.parametrize("example", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_a_built_module_is_the_zipfile_archive_of_its_members(tmp_path, example):
    from vmodtool.assemble.module import MODULE_COMPRESS_LEVEL

    out = tmp_path / "m.vmod"
    build_module_file(EXAMPLES / example / "scenario.yaml", out, jobs=1)
    data = out.read_bytes()
    members = _members(data)
    assert data == A._zipfile_build_zip(members, compress_level=MODULE_COMPRESS_LEVEL)
