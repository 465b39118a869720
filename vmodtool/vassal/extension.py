"""Module extensions (``.vmdx``/``.vext``, ``docs/vassal-format.md`` §1.5):
the component paths their ``ExtensionElement`` s target, and a module with
its extensions loaded as VASSAL loads them.

An extension's buildFile root is ``VASSAL.build.module.ModuleExtension``;
each child ``ExtensionElement target="PATH"`` wraps one component that
VASSAL adds under the component PATH names in the module
(``ExtensionElement.addTo``).  PATH is VASSAL's
``ComponentPathBuilder.getId``: the steps below the GameModule joined by
``/``, each step ``ClassName:configureName`` (both levels escaped as a
``SequenceEncoder`` escapes, §3.1); an empty PATH is the module itself.
:func:`resolve_target` finds the component as ``ComponentPathBuilder.getPath``
does (a child of that class and name; else, at the last step, the first of
that class; else the first of that class whose subtree has the rest), and
:func:`load_extensions` grafts the components into a module's buildFile and
makes the extensions' images readable through it, so that the replay, the
audit and lint know the pieces, prototypes and maps an extension adds.

Pure format knowledge: nothing about games.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

from lxml import etree

from vmodtool.errors import FormatError
from vmodtool.vassal.buildfile import EXTENSION_TAG
from vmodtool.vassal.commands import Command, CommandGroup, Node
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import SequenceEncoder, decode_sequence

__all__ = ["EXTENSION_ELEMENT", "ExtendedModule", "TargetError", "component_path", "configure_name",
           "extension_elements", "load_extensions", "parse_component_path", "resolve_target",
           "extension_name", "registered_extensions", "open_extended"]

EXTENSION_ELEMENT = "VASSAL.build.module.ExtensionElement"

#: the attribute that holds a component's configure name, by its class's short name
#: (VASSAL's ``getConfigureName``: ``mapName`` for map windows, ``entryName`` for palette
#: widgets and slots, ``chartName`` for a chart); every other component: ``name``
_NAME_ATTRIBUTE = {
    "Map": "mapName", "PrivateMap": "mapName", "PlayerHand": "mapName", "WidgetMap": "mapName",
    "TabWidget": "entryName", "ListWidget": "entryName", "PanelWidget": "entryName",
    "BoxWidget": "entryName", "MapWidget": "entryName", "HtmlChart": "entryName",
    "PieceSlot": "entryName", "CardSlot": "entryName", "Chart": "chartName",
}


class TargetError(ValueError):
    """A component path names no component of the module (VASSAL's
    ``PathFormatException``: the extension is not loaded)."""


def configure_name(element: etree._Element) -> str | None:
    """The name a component path gives ``element`` (``None``: it has none)."""
    tag = element.tag if isinstance(element.tag, str) else ""
    value: str | None = element.get(_NAME_ATTRIBUTE.get(tag.rsplit(".", 1)[-1], "name"))
    return value


def component_path(steps: Sequence[tuple[str, str | None]]) -> str:
    """``ComponentPathBuilder.getId``: (class name, configure name) steps
    below the GameModule as one target path."""
    outer = SequenceEncoder("/")
    for class_name, name in steps:
        inner = SequenceEncoder(":", class_name)
        if name is not None:
            inner.append(name)
        outer.append(inner.value or "")
    return outer.value or ""


def parse_component_path(target: str) -> list[tuple[str, str | None]]:
    """The (class name, configure name) steps of a target path."""
    if not target:
        return []
    steps: list[tuple[str, str | None]] = []
    for step in decode_sequence(target, "/"):
        parts = decode_sequence(step, ":")
        steps.append((parts[0], parts[1] if len(parts) > 1 else None))
    return steps


def _children(parent: etree._Element, class_name: str) -> list[etree._Element]:
    return [child for child in parent if child.tag == class_name]


def _walk(parent: etree._Element, steps: Sequence[tuple[str, str | None]]) -> list[etree._Element] | None:
    """``ComponentPathBuilder.addToPath``: the components the steps name
    below ``parent`` (``None`` when they name none)."""
    if not steps:
        return []
    (class_name, name), rest = steps[0], steps[1:]
    partial = _children(parent, class_name)
    exact = next((child for child in partial if configure_name(child) == name), None)
    if exact is not None:
        below = _walk(exact, rest)
        return None if below is None else [exact, *below]
    if not partial:
        return None
    if not rest:
        return [partial[0]]
    for candidate in partial:
        below = _walk(candidate, rest)
        if below is not None:
            return [candidate, *below]
    return None


def resolve_target(root: etree._Element, target: str) -> etree._Element:
    """The component of the module (``root``: its GameModule element) that
    ``target`` names; :class:`TargetError` saying which step is missing."""
    steps = parse_component_path(target)
    found = _walk(root, steps)
    if found is None:
        # the longest prefix that resolves says where the path stops
        depth = 0
        while depth < len(steps) and _walk(root, steps[:depth + 1]) is not None:
            depth += 1
        class_name, name = steps[depth]
        short = class_name.rsplit(".", 1)[-1]
        where = component_path(steps[:depth]) or "the module"
        raise TargetError(f"no {short} {name!r} in {where}" if name is not None else f"no {short} in {where}")
    return found[-1] if found else root


def extension_elements(root: etree._Element) -> list[tuple[etree._Element, etree._Element | None]]:
    """Each ``ExtensionElement`` of an extension's root with the component it
    wraps (its first child element, as VASSAL builds it; ``None``: none)."""
    out = []
    for element in root:
        if element.tag != EXTENSION_ELEMENT:
            continue
        wrapped = next((child for child in element if isinstance(child.tag, str)), None)
        out.append((element, wrapped))
    return out


def extension_name(extension: Module) -> str:
    """How VASSAL names an extension: its file name without folder and suffix."""
    name = (extension.file or "extension").replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name[1:] else name


@dataclass
class ExtendedModule(Module):
    """A module with its extensions loaded: the buildFile holds the
    extensions' components where their targets put them, and the files of
    the extensions are read after the module's own (VASSAL's
    ``DataArchive.addExtension``)."""

    extensions: list[Module] = field(default_factory=list)

    def read_file(self, name: str) -> bytes | None:
        data = super().read_file(name)
        for extension in self.extensions:
            if data is not None:
                break
            data = extension.read_file(name)
        return data

    def close(self) -> None:
        super().close()
        for extension in self.extensions:
            extension.close()


def _check_base(module: Module, extension: Module, label: str) -> None:
    root = extension.buildfile.root
    if root.tag != EXTENSION_TAG:
        raise FormatError("not a module extension: its buildFile's root is "
                          f"<{extension.buildfile.root_tag}>, not <{EXTENSION_TAG}>", file=label)
    built_for = root.get("module", "")
    if root.get("anyModule", "false") != "true" and built_for != module.name:
        raise FormatError(f"the extension was built for the module {built_for!r}, not {module.name!r} "
                          "(VASSAL does not load it)", file=label)


def load_extensions(module: Module, extensions: Sequence[Module]) -> ExtendedModule:
    """``module`` with ``extensions`` loaded as VASSAL loads them, in order:
    each extension's components are added (copies) under their targets in
    ``module``'s buildFile, which is changed in place.  A
    :class:`~vmodtool.errors.FormatError` names the extension (and the line
    of an element whose target is not in the module) when VASSAL would not
    load it: not an extension, built for another module, a target missing."""
    root = module.buildfile.root
    for extension in extensions:
        label = f"{extension.file}!{extension.buildfile_entry}" if extension.container == "zip" else \
            str(extension.file)
        _check_base(module, extension, label)
        for element, wrapped in extension_elements(extension.buildfile.root):
            line = extension.buildfile.line_of(element)
            place = f"line {line}" if line is not None else None
            try:
                target = resolve_target(root, element.get("target", ""))
            except TargetError as exc:
                raise FormatError(f"ExtensionElement target {element.get('target', '')!r}: {exc} "
                                  "(VASSAL does not load the extension)", file=label, place=place) from None
            if wrapped is None:         # ExtensionElement.addTo adds nothing: a NullPointerException
                raise FormatError(f"an ExtensionElement (target {element.get('target', '')!r}) wraps no "
                                  "component (VASSAL does not load the extension)", file=label, place=place)
            added = copy.deepcopy(wrapped)
            added.tail = None
            target.append(added)
    files = list(module.files)
    known = set(files)
    for extension in extensions:
        files += [name for name in extension.files if name not in known]
        known.update(extension.files)
    return ExtendedModule(buildfile=module.buildfile, buildfile_entry=module.buildfile_entry,
                          container=module.container, file=module.file, files=files,
                          moduledata=module.moduledata, extensiondata=module.extensiondata,
                          _reader=module._reader, extensions=list(extensions))


def open_extended(module: str | Module, extensions: Sequence[str]) -> Module:
    """Open ``module`` (a path, or an opened module) and load the extensions
    at the paths ``extensions`` into it (:func:`load_extensions`); with no
    extensions, the module as it is."""
    opened = module if isinstance(module, Module) else Module.open(module)
    if not extensions:
        return opened
    if opened.is_extension:
        opened.close()
        raise FormatError("this is an extension, not the module it extends (-m names the module)",
                          file=opened.file)
    loaded: list[Module] = []
    try:
        for path in extensions:
            extension = Module.open(path)
            loaded.append(extension)
            if not extension.is_extension:
                raise FormatError("this is a module, not an extension (-x names a .vmdx)", file=path)
        return load_extensions(opened, loaded)
    except BaseException:
        for extension in loaded:
            extension.close()
        opened.close()
        raise


def registered_extensions(saved: SavedGame) -> list[tuple[str, str]]:
    """(name, version) of each extension a saved game or log registers in
    its saved state (``EXT<TAB>name<TAB>version``, ``ModuleExtension.RegCmd``:
    VASSAL warns on loading it when that extension is not loaded)."""
    out: list[tuple[str, str]] = []
    # the saved state's commands are top-level tokens, or (a save written as
    # one restore command, as VASSAL's logs are) the tokens of the group of
    # its first; a piece group's AddPieces are only compared, never parsed
    level: list[Node] = list(saved.restore_part())
    for _ in range(3):
        below: list[Node] = []
        for node in level:
            if isinstance(node, CommandGroup):
                below.extend(node.children)
            elif isinstance(node, Command) and node.text.startswith("EXT\t"):
                parts = decode_sequence(node.text[4:], "\t")
                out.append((parts[0], parts[1] if len(parts) > 1 else ""))
        level = below
    return out
