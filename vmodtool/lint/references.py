"""The images and files a module names, and where VASSAL finds an image
(``DataArchive.getInputStream``: the archive, then VASSAL's built-in
``/images/…`` resources, then an extensionless GIF).  No finding codes: the
image and file checks are in :mod:`vmodtool.lint.files`."""

from __future__ import annotations

from lxml import etree

from vmodtool.lint.context import LintRun, short_tag
from vmodtool.vassal.buildfile import vassal_text
from vmodtool.vassal.sequence import decode_sequence

__all__ = ["BUILTIN_IMAGES", "collect_references", "file_references", "resolve_image"]


#: files of VASSAL 3.7.26's ``/images/`` resources: an image name VASSAL
#: does not find in the archive is looked up there too
BUILTIN_IMAGES = frozenset(
    "DoorClose.au DoorOpen.au Edit16.gif Help16.gif Save16.gif SaveAs16.gif Splash.gif "
    "Splash.png StepForward16.gif Undo16.gif VASSAL-256x256.png black.jpg camera.gif chart.gif "
    "chess_clock.png connect.gif counter.gif die.gif disconnect.gif getMessages.gif "
    "globe_selected.gif globe_unselected.gif inventory.gif keyCommand.gif lockedRoom.gif map.gif "
    "mm-extension-active.png mm-extension-inactive.png mm-file.png mm-gamefolder-closed.png "
    "mm-gamefolder-open.png mm-module.png moved.gif notes.gif overview.gif phone1.wav "
    "playerAway.gif playerLooking.gif postMessage.gif recenter.gif status.gif thread.gif "
    "unmoved.gif zoom.png zoomIn.gif zoomIn.png zoomOut.gif zoomOut.png".split())

#: attributes naming an image, on any component (IconConfigurer attributes)
_ICON_ATTRIBUTES = frozenset((
    "icon", "disabledIcon", "buttonIcon", "markUnmovedIcon", "iconName", "persistentIconName",
    "inIconName", "outIconName", "pickIconName", "hiddenIcon", "showingIcon"))
#: (class suffix, attribute) naming an image on specific components
_IMAGE_ATTRIBUTES = (
    (".boardPicker.Board", "image"), (".map.SelectionHighlighter", "image"),
    (".map.MapShader", "image"), (".gamepieceimage.ImageItem", "image"),
    (".documentation.AboutScreen", "fileName"), (".widget.Chart", "fileName"))


def collect_references(run: LintRun, element: etree._Element, tag: str) -> None:
    """Note the images ``element`` (of class ``tag``) names."""
    for name, value in element.attrib.items():
        if name in _ICON_ATTRIBUTES:
            run.ref_image(value, element, f"{short_tag(tag)} {name}")
    for suffix, name in _IMAGE_ATTRIBUTES:
        if tag.endswith(suffix) and element.get(name):
            run.ref_image(element.get(name), element, f"{short_tag(tag)} {name}")
    if tag.endswith(".gamepieceimage.GamePieceLayout"):
        # GamePieceLayout.decodeItemList: ','-list of "t1|t2"; ImageItem t1 is
        # "Image;<image>;<source>"
        for item in decode_sequence(element.get("layout", ""), ","):
            head = decode_sequence(item, "|")[0]
            if head.startswith("Image"):
                parts = decode_sequence(head, ";")
                if len(parts) > 1:
                    run.ref_image(parts[1], element, "GamePieceLayout image item")
    elif tag.endswith(".gamepieceimage.GamePieceImage"):
        # InstanceConfigurer.StringToProperties: ImageItemInstance
        # "Image;<name>;<location>;<image>"
        for item in decode_sequence(element.get("props", ""), ","):
            if item.startswith("Image"):
                parts = decode_sequence(item, ";")
                if len(parts) > 3:
                    run.ref_image(parts[3], element, "GamePieceImage image item")
    if short_tag(tag) == "GlobalOptions":
        for option in element:
            if option.tag == "option" and option.get("name", "").endswith("Icon"):
                run.ref_image(vassal_text(option), option,
                              f"GlobalOptions option {option.get('name')}")


def file_references(run: LintRun) -> list[tuple[str, etree._Element, str]]:
    """(file name, element, what) of every help page, chart, PDF and predefined setup."""
    refs = []
    for element in run.bf.root.iter():
        short = short_tag(element.tag)
        if short == "HtmlChart":
            refs.append((element.get("fileName", ""), element, "HTML chart"))
        elif short == "HelpFile" and element.get("fileType", "archive") == "archive":
            refs.append((element.get("fileName", ""), element, "help file"))
        elif short == "BrowserPDFFile":
            refs.append((element.get("pdfFile", ""), element, "PDF file"))
        elif short == "PredefinedSetup" \
                and element.get("useFile", "true").lower() == "true" \
                and element.get("isMenu", "false").lower() != "true":
            refs.append((element.get("file", ""), element, "predefined setup"))
    return refs


def resolve_image(run: LintRun, name: str) -> str | None:
    """The archive entry VASSAL loads for image ``name``, ``"builtin"``
    for a VASSAL resource, ``None`` when not found
    (``Op.load`` + ``DataArchive.getInputStream``)."""
    if name.startswith("/"):
        return "builtin"
    entry = run.has_file("images/" + name)
    if entry:
        return entry
    if name in BUILTIN_IMAGES:
        return "builtin"
    entry = run.has_file("images/" + name + ".gif")
    if entry:
        return entry
    if name + ".gif" in BUILTIN_IMAGES:
        return "builtin"
    return None
