"""The global properties a module defines, by container, as VASSAL 3.7.26
registers them when it builds the module: what a ``MutableProperty`` or
``GlobalProperty`` command may name.

VASSAL decodes ``MutableProperty<TAB>name<TAB>old<TAB>new<TAB>container``
with one ``ChangePropertyCommandEncoder`` per properties container (the
module ``Module``, each map by its name, each zone as ``<map>:<zone>``); when
the named container has no such property the command decodes to ``null`` and
is dropped (``ChangePropertyCommandEncoder.decode``).  An empty container id
is the pre-3.2 form: any container holding the property takes it.

What adds a property to its container (``addTo``):

* ``GlobalProperty`` (and its subclasses ``ZoneProperty``, the scenario
  options' ``…ScenarioProperty``) — its ``name``; a ``ZoneProperty`` is
  restored from a save by ``name<TAB>zone<TAB>board<TAB>map`` with no
  container id (:func:`zone_property_id`);
* ``DiceButton`` — ``<name>_result``, ``_total``, ``_keep``, ``_summary``;
  ``SpecialDiceButton`` — ``<name>_result``;
* ``TurnTracker`` — ``<name>_command``, ``<name>_value``; each ``TurnLevel``
  its ``property`` (or its name), always on the module;
* ``DoActionButton`` with a loop index — its ``indexProperty``, on the module.
"""

from __future__ import annotations

from typing import Any

from vmodtool.vassal.buildfile import BuildFile

__all__ = ["ModuleProperties", "MODULE_CONTAINER", "zone_property_id"]

MODULE_CONTAINER = "Module"
_MAP_KINDS = ("Map", "PrivateMap", "PlayerHand", "WidgetMap")
_DICE_SUFFIXES = ("_result", "_total", "_keep", "_summary")


def _short(tag: object) -> str:
    return tag.rsplit(".", 1)[-1] if isinstance(tag, str) else ""


class ModuleProperties:
    """Property names by container id, read from a buildFile."""

    def __init__(self, by_container: dict[str, set[str]]) -> None:
        self.by_container = by_container

    @classmethod
    def of(cls, buildfile: BuildFile) -> ModuleProperties:
        found: dict[str, set[str]] = {}

        def add(container: str, *names: str) -> None:
            found.setdefault(container, set()).update(n for n in names if n)

        for element in buildfile.root.iter():
            kind = _short(element.tag)
            name = element.get("name", "") if kind else ""
            if kind in ("GlobalProperty", "ZoneProperty") or kind.endswith("ScenarioProperty"):
                add(_container_of(element), name)
                if kind == "ZoneProperty":
                    # a zone's property is restored by the id ZoneProperty
                    # encodes (``GlobalProperty<TAB>;Side<TAB>zone<TAB>board<TAB>map;…``)
                    add(_container_of(element), zone_property_id(element))
            elif kind == "DiceButton":
                add(_container_of(element), *(name + s for s in _DICE_SUFFIXES))
            elif kind == "SpecialDiceButton":
                add(_container_of(element), name + "_result")
            elif kind == "TurnTracker":
                add(_container_of(element), name + "_command", name + "_value")
            elif kind.endswith("TurnLevel"):
                prop = element.get("property")
                add(MODULE_CONTAINER, prop if prop is not None else name)
            elif kind == "DoActionButton":
                if (element.get("doLoop") == "true" and element.get("hasIndex") == "true"):
                    add(MODULE_CONTAINER, element.get("indexProperty", ""))
        return cls(found)

    def defines(self, name: str, container: str | None) -> bool:
        """Would VASSAL decode a change of ``name`` in ``container``?"""
        if not container:
            return any(name in names for names in self.by_container.values())
        return name in self.by_container.get(container, ())


def zone_property_id(element: Any) -> str:
    """The id a ``ZoneProperty`` restores itself by (``getPropertyId``):
    its name, its zone's, its board's and its map's, TAB-joined (``null``
    for one it has not), with no container id (a ZoneProperty has no parent
    container: ``getContainerId`` is empty)."""
    zone = board = map_name = None
    for ancestor in element.iterancestors():
        kind = _short(ancestor.tag)
        if kind == "Zone" and zone is None:
            zone = ancestor.get("name", "")
        elif kind == "Board" and board is None:
            board = ancestor.get("name", "")
        elif kind in _MAP_KINDS:
            map_name = ancestor.get("mapName", "")
            break
    parts = (element.get("name", ""), zone, board, map_name)
    return "\t".join("null" if p is None else p for p in parts)


def _container_of(element: Any) -> str:
    """The properties container an element adds its properties to: the
    nearest zone (``<map>:<zone>``) or map (its name) above it, else the
    module (folders are transparent)."""
    zone: str | None = None
    for ancestor in element.iterancestors():
        kind = _short(ancestor.tag)
        if kind == "Zone" and zone is None:
            zone = ancestor.get("name", "")
        elif kind in _MAP_KINDS:
            name = ancestor.get("mapName", "")
            return f"{name}:{zone}" if zone is not None else name
    return MODULE_CONTAINER if zone is None else f":{zone}"
