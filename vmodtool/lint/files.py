"""Lint of the images and files a module names (``docs/vassal-format.md``
§1.2, §6.9): missing and unused images, missing help pages, charts, PDFs and
predefined setups, and setups VASSAL cannot load or that belong to another
module."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lxml import etree

from vmodtool.errors import UnsafeFileError, VmodError
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun
from vmodtool.lint.references import file_references, resolve_image

if TYPE_CHECKING:
    from vmodtool.vassal.savefile import SavedGame

__all__ = ["check_images_and_files"]


register = registrar(__name__)

register("images-not-checked", "info",
         "a bare buildFile has no archive: image and file references were not checked")
register("missing-image", "error",
         "an image named by the module is not under images/ (nor a VASSAL built-in): "
         "'Image not found'")
register("unused-image", "warning",
         "a file under images/ that nothing in the module refers to")
register("missing-file", "error",
         "a help page, HTML chart, PDF or predefined setup file is not in the archive")
register("setup-module-name-mismatch", "warning",
         "a predefined setup's moduledata names another module")
register("setup-unexpanded-prototype", "warning",
         "a predefined setup holds pieces with prototype; traits (VASSAL writes "
         "expanded pieces)")
register("unreadable-setup", "error",
         "a predefined setup file cannot be decoded")
register("setup-unknown-map", "warning",
         "a predefined setup puts pieces on a map the module does not have (VASSAL leaves them off the board)")

_HTML_FILES = (".html", ".htm", ".xhtml", ".css", ".properties", ".txt")


def check_images_and_files(run: LintRun) -> None:
    """Images and files the module names that are missing, images nothing
    names, and the predefined setups (a bare buildFile: not checked)."""
    file_refs = file_references(run)
    if not run.has_archive:
        if run.image_refs or file_refs:
            run.add("images-not-checked", f"a bare buildFile: {len(run.image_refs)} "
                    f"image name(s) and {len(file_refs)} file reference(s) were not checked "
                    "(lint the .vmod or the unpacked folder to check them)",
                    detail={"images": len(run.image_refs), "files": len(file_refs)})
        return
    loose = [run.bf.to_bytes().decode("utf-8", "replace")]
    for name in sorted(run.files):
        if name.lower().endswith(_HTML_FILES):
            data = run.module.read_file(name) or b""
            loose.append(data.decode("utf-8", "replace"))
    for name, element, what in file_refs:
        if what == "predefined setup" and not name:
            run.add("missing-file", "predefined setup uses a file but names none",
                    element)
            continue
        if not name or name.startswith("/"):
            continue
        entry = run.has_file(name)
        if entry is None:
            run.add("missing-file", f"{what} {name!r} is not in the archive", element,
                    detail={"file": name})
        elif what == "predefined setup":
            loose.append(_check_setup(run, entry, element))
    used: set[str] = set()
    for name, places in run.image_refs.items():
        entry = resolve_image(run, name)
        if entry is None and run.unchecked_extension:    # the module's, perhaps: not looked up
            run.unresolved_images.add(name)
        elif entry is None:
            first_ref, what = places[0]
            more = f" (and {len(places) - 1} more reference(s))" if len(places) > 1 else ""
            run.add("missing-image", f"image {name!r} ({what}) is not in the archive "
                    f"under images/{more}", first_ref,
                    detail={"image": name, "references": len(places)})
        elif entry != "builtin":
            used.add(entry)
    text = "\n".join(loose)
    for entry in sorted(run.files):
        if not entry.startswith("images/") or entry.endswith("/") or entry in used:
            continue
        name = entry[len("images/"):]
        if name in text or (name.endswith(".gif") and name[:-4] and name[:-4] in text):
            continue
        run.add("unused-image", f"{entry} is not used by any component, piece or help "
                "page", file=run.label(entry), detail={"image": name})


def _check_setup(run: LintRun, entry: str, element: etree._Element) -> str:
    """Decode a predefined setup; returns its text (for image references)."""
    from vmodtool.vassal.metadata import ModuleMetadata
    from vmodtool.vassal.savefile import SavedGame
    data = run.module.read_file(entry) or b""
    try:
        saved = SavedGame.from_bytes(data, file=entry)
        text = saved.text
    except UnsafeFileError as err:
        # a bomb is not a finding: reading it further could harm the machine
        raise UnsafeFileError(f"predefined setup: {err.message}", file=run.module.file,
                              place=", ".join(p for p in (f"entry {entry}", err.place) if p)) from None
    except VmodError as err:
        run.add("unreadable-setup", f"predefined setup {entry!r} cannot be decoded: "
                f"{err.message}", element)
        return ""
    xml = saved.metadata_xml("moduledata")
    if xml:
        try:
            name = ModuleMetadata.parse(xml).name
        except VmodError:
            name = None
        if name is not None and name.strip() != run.bf.name.strip():
            run.add("setup-module-name-mismatch", f"predefined setup {entry!r} is for "
                    f"module {name!r}, not {run.bf.name!r}", element)
    _check_setup_maps(run, entry, element, saved)
    if re.search(r"[\t/]\\*prototype;", text):
        run.add("setup-unexpanded-prototype", f"predefined setup {entry!r} holds pieces "
                "with unexpanded prototype; traits", element)
    return text


def _check_setup_maps(run: LintRun, entry: str, element: etree._Element, saved: SavedGame) -> None:
    """The maps a setup's pieces and stacks stand on are the module's (by
    ``mapName``, else ``Map<n>``: docs/vassal-format.md §4.10)."""
    from vmodtool.vassal.commands import AddPiece, leaves
    from vmodtool.vassal.pieces import parse_stack_state

    maps = run.bf.maps()
    known = {m.name for m in maps if m.name} | {f"Map{i}" for i in range(len(maps))}
    unknown: dict[str, int] = {}
    try:
        for node in saved.restore_part():
            for _, cmd in leaves(node):
                if not isinstance(cmd, AddPiece) or not cmd.is_stack:
                    continue
                map_id = parse_stack_state(cmd.state).map
                if map_id is not None and map_id not in known:
                    unknown[map_id] = unknown.get(map_id, 0) + 1
    except VmodError as err:
        run.add("unreadable-setup", f"predefined setup {entry!r} cannot be decoded: {err.message}", element)
        return
    for map_id, count in sorted(unknown.items()):
        run.add("setup-unknown-map", f"predefined setup {entry!r} puts {count} stack(s) on map {map_id!r}, "
                "which the module does not have", element, detail={"file": entry, "map": map_id})
