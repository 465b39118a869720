"""Assemble a module extension (``.vmdx``) of a scenario: the optional
counters one entry of its ``extensions`` section holds, as VASSAL's
extension editor writes them (``docs/vassal-format.md`` §1.5).

The buildFile's root is ``VASSAL.build.module.ModuleExtension`` (the base
module's name and version, the extension's own version, description and
``extensionId``, ``nextPieceSlotId``); each side's counters are one
``ListWidget`` named after the extension, in an ``ExtensionElement`` whose
target is that side's tab of the module's palette
(``PieceWindow:Counters/TabWidget:Counters/TabWidget:<side>``, written by
:func:`~vmodtool.vassal.extension.component_path`).  Slots have the
extension's gpids (``<extensionId>:<n>``).  The pieces use the module's
prototypes, so the extension holds only their face images, the
``extensiondata`` and a copy of the module's ``moduledata``.

The targets are resolved in the base module's buildFile before anything is
returned, and an extension with nothing in it is refused: VASSAL fails on
an empty one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from lxml import etree

from vmodtool.assemble import components as C
from vmodtool.assemble.decks import add_decks
from vmodtool.assemble.module_images import ModuleImages
from vmodtool.assemble.pieces import PieceFactory, unit_name
from vmodtool.errors import VmodError
from vmodtool.scenario.model import ExtensionSpec, Scenario
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.buildfile import EXTENSION_TAG, BuildFile
from vmodtool.vassal.extension import EXTENSION_ELEMENT, TargetError, component_path, resolve_target
from vmodtool.vassal.metadata import ExtensionMetadata

__all__ = ["ExtensionBuild", "assemble_extension", "extension_id", "extension_only_images", "palette_target",
           "PALETTE_TAB", "find_extension", "module_decks"]

#: the name of the palette's top tab (``module.py`` writes it; extensions target it)
PALETTE_TAB = "Counters"
#: the deflate level of the extension's text entries (as the module's)
_COMPRESS_LEVEL = 6


@dataclass
class ExtensionBuild:
    """An extension made: its archive entries (name → bytes, in archive
    order), its id and how many piece slots it holds."""

    entries: dict[str, bytes]
    extension_id: str
    slots: int

    def to_bytes(self) -> bytes:
        return build_zip(self.entries, compress_level=_COMPRESS_LEVEL)


def extension_id(scenario: Scenario, name: str) -> str:
    """The ``extensionId`` of the scenario's extension ``name``: VASSAL's
    editor draws 3 random characters (the tail of a UUID); a build draws
    them from the game's and the extension's names, so that building again
    gives the same gpids (a saved game refers to its pieces' gpids), and
    draws again for an extension whose id an earlier one of the scenario
    has (two extensions of one id would share gpids)."""
    taken: set[str] = set()
    for spec in scenario.extensions:
        salt = 0
        while True:
            text = f"{scenario.game.title}\x00{spec.name}" + (f"\x00{salt}" if salt else "")
            candidate = hashlib.sha256(text.encode()).hexdigest()[:3]
            if candidate not in taken:
                break
            salt += 1
        taken.add(candidate)
        if spec.name == name:
            return candidate
    raise KeyError(name)


def palette_target(side_name: str) -> str:
    """The component path of a side's tab of the module's palette."""
    window = C.DEFAULTS["module.PieceWindow"]["name"]
    return component_path([(C.P + "module.PieceWindow", window), (C.P + "widget.TabWidget", PALETTE_TAB),
                           (C.P + "widget.TabWidget", side_name)])


def find_extension(scenario: Scenario, name: str) -> ExtensionSpec:
    """The scenario's extension of that name (a :class:`VmodError` naming
    the ones it has when there is none)."""
    for spec in scenario.extensions:
        if spec.name == name:
            return spec
    known = ", ".join(repr(s.name) for s in scenario.extensions)
    raise VmodError(f"the scenario has no extension {name!r}"
                    + (f"; its extensions: {known}" if known else "; it has no 'extensions' section"),
                    file=scenario.path)


def module_decks(scenario: Scenario) -> Scenario:
    """The scenario with the decks the module holds (those of no
    extension): the scenario itself when no extension holds a deck."""
    if not scenario.extension_decks:
        return scenario
    return replace(scenario, decks=tuple(d for d in scenario.decks if d.id not in scenario.extension_decks))


def _deck_images(scenario: Scenario, images: ModuleImages, deck_ids: frozenset[str] | set[str]) -> set[str]:
    """The card fronts and backs of the decks ``deck_ids``."""
    names = {images.card_back[d.id] for d in scenario.decks if d.id in deck_ids and d.id in images.card_back}
    return names | {images.card[c.id] for d in scenario.decks if d.id in deck_ids for c in d.cards
                    if c.id in images.card}


def extension_only_images(scenario: Scenario, images: ModuleImages) -> set[str]:
    """The image files only the extensions' counters and decks use (the
    module leaves them to the extensions)."""
    ext, ext_decks = scenario.extension_counters, scenario.extension_decks
    if not ext and not ext_decks:
        return set()
    theirs = {name for (cid, _), name in images.unit.items() if cid in ext}
    ours = {name for (cid, _), name in images.unit.items() if cid not in ext}
    if ext_decks:
        theirs |= _deck_images(scenario, images, ext_decks)
        ours |= _deck_images(scenario, images, {d.id for d in scenario.decks} - ext_decks)
    return theirs - ours


def assemble_extension(scenario: Scenario, images: ModuleImages, spec: ExtensionSpec,
                       module_entries: Mapping[str, bytes]) -> ExtensionBuild:
    """The extension ``spec`` of ``scenario`` for the module whose archive
    entries are ``module_entries`` (made by
    :func:`~vmodtool.assemble.module.assemble_module` from the same
    scenario and images)."""
    if not spec.counters and not spec.decks:
        raise VmodError(f"extension {spec.name!r} has no counters and no decks: VASSAL fails on an empty extension",
                        file=scenario.path, place=f"line {spec.position.line}" if spec.position else None)
    base = BuildFile.parse(module_entries["buildFile.xml"], file="buildFile.xml")
    ext_id = extension_id(scenario, spec.name)
    bf = BuildFile.new(EXTENSION_TAG)
    root = bf.root
    factory = PieceFactory(scenario, images.unit, images.marker, images.layer)
    w, h = images.counter_size
    gpid = 0
    used: set[str] = set()
    for side in scenario.game.sides:
        counters = [scenario.counter(cid) for cid in spec.counters if scenario.counter(cid).side == side.id]
        if not counters:
            continue
        target = palette_target(side.name)
        try:
            resolve_target(base.root, target)
        except TargetError as exc:       # the module's palette and this path are written together
            raise AssertionError(f"the extension's target is not in the module: {exc}") from None
        element = etree.SubElement(root, EXTENSION_ELEMENT, target=target)
        widget = C.add(element, "widget.ListWidget", {"entryName": spec.name})
        for counter in counters:
            gpid += 1
            slot_id = f"{ext_id}:{gpid}"
            unit_type = scenario.unit_type_of(counter)
            C.add(widget, "widget.PieceSlot", {"entryName": unit_name(counter, unit_type), "gpid": slot_id,
                                               "width": w, "height": h},
                  text=factory.unit_definition(counter, None, slot_id))
            used.update(images.unit[(counter.id, face.name)] for face in unit_type.faces)
    gpid = _add_decks(root, base, scenario, images, spec, ext_id, gpid)
    used |= _deck_images(scenario, images, set(spec.decks))
    base_root = base.root
    for key, value in (("anyModule", "false"), ("description", spec.description or spec.name),
                       ("extensionId", ext_id), ("module", base_root.get("name", "")),
                       ("moduleVersion", base_root.get("version", "")), ("nextPieceSlotId", str(gpid + 1)),
                       ("vassalVersion", base_root.get("VassalVersion", "")), ("version", spec.version)):
        root.set(key, value)
    meta = ExtensionMetadata(version=spec.version, vassal_version=base_root.get("VassalVersion", ""),
                             date_saved="0", description=spec.description or spec.name)
    entries: dict[str, bytes] = {"buildFile.xml": bf.to_bytes(), "extensiondata": meta.to_bytes(),
                                 "moduledata": module_entries["moduledata"]}
    for name in sorted(used):
        entries["images/" + name] = images.files[name]
    return ExtensionBuild(entries, ext_id, gpid)


def _add_decks(root: etree._Element, base: BuildFile, scenario: Scenario, images: ModuleImages,
               spec: ExtensionSpec, ext_id: str, gpid: int) -> int:
    """The extension's decks: each DrawPile (as the module would have it, at
    its place in the off-map window) in an ExtensionElement whose target is
    that window; the last gpid number taken."""
    if not spec.decks:
        return gpid
    holder = etree.Element("holder")
    taken = [gpid]

    def take() -> str:
        taken[0] += 1
        return f"{ext_id}:{taken[0]}"

    theirs = replace(scenario, decks=tuple(d for d in scenario.decks if d.id in spec.decks))
    add_decks(holder, theirs, layout_off_map(scenario), images.card, images.card_back, take)
    target = component_path([(C.P + "module.Map", OFF_MAP_NAME)])
    try:
        resolve_target(base.root, target)
    except TargetError as exc:           # a scenario with decks has the off-map window
        raise AssertionError(f"the extension's target is not in the module: {exc}") from None
    for pile in list(holder):
        etree.SubElement(root, EXTENSION_ELEMENT, target=target).append(pile)
    return taken[0]
