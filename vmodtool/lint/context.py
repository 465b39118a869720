"""One lint run's shared state (:class:`LintRun`): the module, the findings
so far, and what one family of checks collects for another (image
references, prototypes, gpids); and the small helpers every family uses."""

from __future__ import annotations

import unicodedata
from typing import Any

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.lint.codes import CODES
from vmodtool.lint.result import Finding
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef, java_int

__all__ = ["LintRun", "short_tag", "java_int_ok"]

#: the attributes that name a component, for its path
_NAME_ATTRIBUTES = ("name", "mapName", "entryName", "chartName", "title", "configureName")
_MISSING_ALIAS: Any = object()


def short_tag(tag: object) -> str:
    """The class name of a component's tag (``Map`` for ``VASSAL.build.module.Map``)."""
    return tag.rsplit(".", 1)[-1] if isinstance(tag, str) else ""


def java_int_ok(value: str) -> bool:
    """Whether ``Integer.valueOf`` reads ``value``."""
    return java_int(value) is not None


class LintRun:
    """One lint run over one module (see :func:`vmodtool.lint.lint_module`):
    the checks of each family read and add to it."""

    def __init__(self, module: Module, base: Module | None = None) -> None:
        self.module = module
        #: the module an extension extends (``lint ext.vmdx --module``): its
        #: prototypes and files are the extension's too, as in VASSAL
        self.base = base
        #: an extension's prototype and image names it does not hold, unchecked without ``base``
        self.unresolved_prototypes: set[str] = set()
        self.unresolved_images: set[str] = set()
        self.bf: BuildFile = module.buildfile
        self.findings: list[Finding] = []
        self.has_archive = module.container in ("zip", "folder")
        self.files: set[str] = set(module.files)
        self.file_label = self.label(module.buildfile_entry)
        #: image name → [(element or None, what)] in reference order
        self.image_refs: dict[str, list[tuple[etree._Element | None, str]]] = {}
        self.prototype_defs: dict[str, PieceDef | None] = {}
        self.prototype_elements: dict[str, etree._Element] = {}
        self.prototype_uses: dict[str, set[str]] = {}
        self.used_prototypes: set[str] = set()
        self.gpids: list[tuple[str, etree._Element, str]] = []
        self.legacy_layers: list[etree._Element] = []
        self.state_gpid_mismatch: list[etree._Element] = []
        self.proto_summary: dict[str, tuple[bool, list[str]]] = {}
        #: prototype uses inside place/replace-marker definitions (not expanded
        #: into the piece that carries the marker trait)
        self.marker_refs: list[tuple[str, etree._Element]] = []
        self._board_sizes: dict[str, tuple[int, int]] | None = None
        self._base_files: set[str] = set(base.files) if base is not None else set()
        if base is not None:
            for name, text in base.buildfile.prototypes().items():
                try:
                    self.prototype_defs[name] = PieceDef.parse(text)
                except VmodError:
                    self.prototype_defs[name] = None

    @property
    def unchecked_extension(self) -> bool:
        """An extension linted without its module: what it uses of the module cannot be looked up."""
        return self.bf.is_extension and self.base is None

    def label(self, entry: str) -> str | None:
        """How a finding names an entry of the module."""
        m = self.module
        if m.container == "buildfile":
            return m.file
        if m.container == "folder":
            return f"{m.file}/{entry}"
        return f"{m.file}!{entry}"

    def add(self, code: str, message: str, element: etree._Element | None = None, *,
            file: Any = _MISSING_ALIAS, line: int | None = None,
            detail: dict[str, Any] | None = None) -> None:
        """Add a finding of a registered ``code`` (its severity is the
        code's) at ``element`` (its line and component path)."""
        info = CODES[code]
        if element is not None and line is None:
            line = self.bf.line_of(element)
        self.findings.append(Finding(
            code=code, severity=info.severity, message=message,
            file=self.file_label if file is _MISSING_ALIAS else file,
            line=line, component_path=self.path(element) if element is not None else None,
            detail=detail or {}))

    def path(self, element: etree._Element) -> str:
        """``Map[Main Map]/BoardPicker/Board[Main]/HexGrid`` (root excluded)."""
        parts = []
        chain = [element] + [a for a in element.iterancestors()]
        for node in reversed(chain):
            if node is self.bf.root:
                continue
            name = next((node.get(a) for a in _NAME_ATTRIBUTES if node.get(a)), None)
            short = short_tag(node.tag) or str(node.tag)
            parts.append(f"{short}[{name}]" if name else short)
        return "/".join(parts) or short_tag(self.bf.root.tag)

    def board_sizes(self) -> dict[str, tuple[int, int]]:
        """The module's board sizes (from the images), read once per lint."""
        if self._board_sizes is None:
            self._board_sizes = self.module.board_sizes()[0]
        return self._board_sizes

    def ref_image(self, name: str | None, element: etree._Element | None,
                  what: str) -> None:
        """Record an image reference (blank names are no image, as in
        ``ImagePainter.setImageName``)."""
        if name and not name.isspace():
            self.image_refs.setdefault(name, []).append((element, what))

    def has_file(self, name: str) -> str | None:
        """The archive entry named ``name`` (or its NFD form), if any."""
        for candidate in (name, unicodedata.normalize("NFD", name)):
            if candidate in self.files or candidate in self._base_files:
                return candidate
        return None
