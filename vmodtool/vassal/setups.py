"""A module's predefined set-ups: the ``PredefinedSetup`` entries of its
*File → New Game* menu that start a game from a saved game inside the
module (``docs/vassal-format.md`` §2, ``PredefinedSetup``: ``name``,
``file``, ``useFile``, ``isMenu``).  A menu entry (``isMenu="true"``) only
groups its children; an entry with ``useFile="false"`` starts from the
module's own at-start pieces and has no file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml import etree

    from vmodtool.vassal.buildfile import BuildFile

__all__ = ["PredefinedSetupDef", "predefined_setups"]

_TAG = "PredefinedSetup"


@dataclass(frozen=True)
class PredefinedSetupDef:
    """One set-up a game can start from: its menu ``name``, the ``file``
    (a path in the module) it loads, and the menus it sits in
    (``menu``, outermost first)."""

    name: str
    file: str
    menu: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The name as the menu shows it (``Scenarios › Historical``)."""
        return " › ".join((*self.menu, self.name))


def _is(element: etree._Element) -> bool:
    return isinstance(element.tag, str) and (element.tag == _TAG or element.tag.endswith("." + _TAG))


def _true(element: etree._Element, attribute: str, default: str) -> bool:
    return (element.get(attribute) or default).strip().lower() == "true"


def predefined_setups(buildfile: BuildFile) -> list[PredefinedSetupDef]:
    """Every predefined set-up of the module that loads a file, in menu
    order (VASSAL's ``PredefinedSetup``: ``useFile`` defaults to true,
    ``isMenu`` to false)."""
    out: list[PredefinedSetupDef] = []

    def walk(element: etree._Element, menu: tuple[str, ...]) -> None:
        name = element.get("name", "")
        if _true(element, "isMenu", "false"):
            for child in element:
                if _is(child):
                    walk(child, (*menu, name))
        elif _true(element, "useFile", "true") and element.get("file"):
            out.append(PredefinedSetupDef(name, element.get("file", ""), menu))

    for element in buildfile.root.iter():
        parent = element.getparent()
        if _is(element) and not (parent is not None and _is(parent)):
            walk(element, ())
    return out
