"""Modules and extensions as a whole: ``.vmod``, ``.vext``/``.vmdx``, the
pre-3.0 ``.mod``, an unpacked module folder, or a bare ``buildFile(.xml)``
(``docs/vassal-format.md`` §1).

:class:`Module` gives the parsed :class:`~vmodtool.vassal.buildfile.BuildFile`,
the raw metadata entries, the list of files and the pixel size of board
images (read from the image header only).  Where a board image is missing (a
bare buildFile, SVG boards), its size can be supplied by the caller; the
module says which boards still lack one instead of guessing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from vmodtool.errors import FormatError
from vmodtool.fileio import not_what_expected
from vmodtool.vassal.archive import DEFAULT_LIMITS, Archive, ArchiveLimits, is_zip_data, read_head
from vmodtool.vassal.buildfile import EXTENSION_TAG, BoardEntry, BuildFile

__all__ = ["Module", "BUILDFILE_NAMES", "version_tuple"]

PathLike = Union[str, "os.PathLike[str]"]
BUILDFILE_NAMES = ("buildFile.xml", "buildFile")
_MAX_XML = 256 * 1024 * 1024
_MAX_IMAGE = 256 * 1024 * 1024
#: a board image's size is read from its header whatever its pixels would cost
_HEADER_ONLY = 1 << 62


def _ignore_warning(_message: str) -> None:
    """Pillow's warning about a module image's header: the size is all that is read."""


def version_tuple(version: str | None) -> tuple[int, ...]:
    """``"3.7.26"`` → ``(3, 7, 26)``; non-numeric tails are ignored
    (``"3.5.0-SNAPSHOT"`` → ``(3, 5, 0)``, ``"2.9b2"`` → ``(2, 9)``)."""
    out = []
    for part in (version or "").split("."):
        m = re.match(r"\d{1,20}", part)     # (a longer number is no version VASSAL wrote)
        if not m:
            break
        out.append(int(m.group(0)))
        if m.group(0) != part:
            break
    return tuple(out)


def _metadata_vassal_version(xml: bytes | None) -> str | None:
    if not xml:
        return None
    m = re.search(rb"<VassalVersion>\s*([^<]*?)\s*</VassalVersion>", xml)
    return m.group(1).decode("utf-8", "replace") if m else None


@dataclass
class Module:
    """A VASSAL module or extension opened for reading."""

    buildfile: BuildFile
    buildfile_entry: str
    container: str  # "zip", "folder" or "buildfile"
    file: str | None = None
    files: list[str] = field(default_factory=list)
    moduledata: bytes | None = None
    extensiondata: bytes | None = None
    _reader: object | None = field(default=None, repr=False)
    _sizes: dict[str, tuple[int, int] | None] = field(default_factory=dict, repr=False)

    # -- opening ------------------------------------------------------------
    @classmethod
    def open(cls, path: PathLike, *, limits: ArchiveLimits = DEFAULT_LIMITS) -> Module:
        """Open a module archive, an unpacked module folder or a bare
        buildFile."""
        src = Path(path)
        file = os.fspath(path)
        if src.is_dir():
            return cls._from_folder(src)
        head = read_head(src)
        if not is_zip_data(head):
            try:
                bf = BuildFile.read(src)
            except FormatError as exc:
                raise not_what_expected(exc, src, "a VASSAL module", own=("xml",)) from None
            return cls(buildfile=bf, buildfile_entry=src.name, container="buildfile", file=file)
        arc = Archive.open(src, limits=limits)
        try:
            files = arc.files()
            if "savedGame" in arc:
                raise FormatError("this is a saved game or log, not a module", file=file)
            present = [n for n in BUILDFILE_NAMES if n in arc]
            if not present:
                raise FormatError("not a VASSAL module: the archive has no 'buildFile.xml' or "
                                  "'buildFile' entry", file=file)
            moduledata = arc.read("moduledata", max_size=_MAX_XML) if "moduledata" in arc else None
            extdata = (arc.read("extensiondata", max_size=_MAX_XML)
                       if "extensiondata" in arc else None)
            entry = cls._choose_buildfile(present, extdata or moduledata)
            data = arc.read(entry, max_size=_MAX_XML)
            try:
                bf = BuildFile.parse(data, file=f"{file}!{entry}")
            except FormatError as exc:
                raise exc.located(file=file) from None
        except BaseException:
            arc.close()
            raise
        return cls(buildfile=bf, buildfile_entry=entry, container="zip", file=file, files=files,
                   moduledata=moduledata, extensiondata=extdata, _reader=arc)

    @classmethod
    def _from_folder(cls, folder: Path) -> Module:
        present = [n for n in BUILDFILE_NAMES if (folder / n).is_file()]
        if not present:
            raise FormatError("not an unpacked module: the folder has no 'buildFile.xml' or "
                              "'buildFile'", file=folder)
        moduledata = _read_small(folder / "moduledata")
        extdata = _read_small(folder / "extensiondata")
        entry = cls._choose_buildfile(present, extdata or moduledata)
        bf = BuildFile.read(folder / entry)
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        return cls(buildfile=bf, buildfile_entry=entry, container="folder", file=os.fspath(folder),
                   files=files, moduledata=moduledata, extensiondata=extdata, _reader=folder)

    @staticmethod
    def _choose_buildfile(present: list[str], metadata: bytes | None) -> str:
        """VASSAL reads ``buildFile`` when the metadata's VassalVersion is
        below 3.5, else ``buildFile.xml`` (§1.4)."""
        if len(present) == 1:
            return present[0]
        version = version_tuple(_metadata_vassal_version(metadata))
        if version and version[:2] < (3, 5):
            return "buildFile"
        return "buildFile.xml"

    def close(self) -> None:
        if isinstance(self._reader, Archive):
            self._reader.close()

    def __enter__(self) -> Module:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- contents -----------------------------------------------------------
    @property
    def is_extension(self) -> bool:
        return self.buildfile.root_tag == EXTENSION_TAG or self.extensiondata is not None

    @property
    def name(self) -> str:
        return self.buildfile.name

    @property
    def images(self) -> list[str]:
        """Image names (relative to ``images/``) present in the module."""
        return [f[len("images/"):] for f in self.files if f.startswith("images/") and f != "images/"]

    def read_file(self, name: str) -> bytes | None:
        """Bytes of one file of the module, or ``None`` when absent."""
        if isinstance(self._reader, Archive):
            if name not in self._reader:
                return None
            return self._reader.read(name, max_size=_MAX_IMAGE)
        if isinstance(self._reader, Path):
            path = (self._reader / name)
            try:
                path.resolve().relative_to(self._reader.resolve())
            except ValueError:
                return None
            return path.read_bytes() if path.is_file() else None
        return None

    def image_size(self, image: str) -> tuple[int, int] | None:
        """Pixel size of ``images/<image>`` from its header, or ``None`` when
        the image is absent or not a raster format Pillow reads."""
        if image in self._sizes:
            return self._sizes[image]
        size: tuple[int, int] | None = None
        data = self.read_file("images/" + image) if image else None
        if data:
            from vmodtool.images import ImageError, image_size
            try:
                # the header only: a board's size is wanted whatever it would
                # cost to decode (the readers of its pixels check the budget)
                size = image_size(data, file="images/" + image, budget=_HEADER_ONLY, warn=_ignore_warning)
            # not an image Pillow knows (e.g. SVG), a damaged header, or one
            # too large to trust
            except ImageError:
                size = None
        self._sizes[image] = size
        return size

    def board_sizes(self, given: dict[str, tuple[int, int]] | None = None
                    ) -> tuple[dict[str, tuple[int, int]], list[str]]:
        """Each board's pixel size and the boards whose size is unknown.

        The size comes from ``given`` (by board name) first, then from the
        board image's header, then, for a board with no image, from its
        ``width``/``height`` attributes, 500 each when absent (VASSAL's
        ``Board``, ``docs/vassal-format.md`` §2).  A board whose image the
        module does not hold (a bare buildFile holds none) has no known size:
        :meth:`board_size_unknown` says why, nothing is assumed."""
        given = given or {}
        sizes: dict[str, tuple[int, int]] = {}
        missing: list[str] = []
        for board in self.buildfile.boards():
            if board.name in sizes:
                continue
            if board.name in given:
                sizes[board.name] = given[board.name]
                continue
            size = self.image_size(board.image) if board.image else _attribute_size(board)
            if size is None:
                missing.append(board.name)
            else:
                sizes[board.name] = size
        return sizes, missing

    def board_size_unknown(self, name: str) -> str | None:
        """Why the pixel size of board ``name`` cannot be read from the
        module (None when it can, or the module has no such board)."""
        board = next((b for b in self.buildfile.boards() if b.name == name), None)
        if board is None:
            return None
        if not board.image:
            if _attribute_size(board) is not None:
                return None
            return "its width/height attributes are not whole numbers (VASSAL refuses to load the module)"
        if self.image_size(board.image) is not None:
            return None
        if self.container == "buildfile":
            return (f"its image {board.image!r} is not at hand, a bare buildFile holds no images: give the "
                    "module's .vmod or its unpacked folder")
        if self.read_file("images/" + board.image) is None:
            return f"its image {board.image!r} is not in the module"
        return (f"its image {board.image!r} is in the module but its size could not be read from its header, "
                "not a raster image vmodtool reads (such as SVG) or a damaged one")


def _attribute_size(board: BoardEntry) -> tuple[int, int] | None:
    """A board without an image: its ``width``/``height`` attributes, 500
    each when absent (VASSAL's default); None when one is not a positive
    number."""
    width = 500 if board.element.get("width") is None else board.width
    height = 500 if board.element.get("height") is None else board.height
    return (width, height) if width is not None and height is not None and width > 0 and height > 0 else None


def _read_small(path: Path) -> bytes | None:
    if not path.is_file():
        return None
    if path.stat().st_size > _MAX_XML:
        raise FormatError("metadata file is implausibly large", file=path)
    return path.read_bytes()
