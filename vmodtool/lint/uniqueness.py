"""Lint of names that must be unique (``docs/vassal-format.md`` §6.12):
global properties of one container, dice buttons."""

from __future__ import annotations

from lxml import etree

from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, short_tag

__all__ = ["check_uniqueness"]


register = registrar(__name__)

register("duplicate-global-property", "warning",
         "two global properties of one container share a name")
register("duplicate-dice-button", "warning",
         "two dice buttons share a name (they define the same <name>_result "
         "properties)")


def check_uniqueness(run: LintRun) -> None:
    """Global properties of one container and dice buttons sharing a name."""
    for container in run.bf.components("properties.GlobalProperties"):
        seen: set[str] = set()
        for child in container:
            if short_tag(child.tag) != "GlobalProperty":
                continue
            name = child.get("name", "")
            if name in seen:
                run.add("duplicate-global-property", f"global property {name!r} is "
                        "defined twice in this container", child)
            seen.add(name)
    dice: dict[str, etree._Element] = {}
    for element in run.bf.root.iter():
        if short_tag(element.tag) not in ("DiceButton", "SpecialDiceButton",
                                       "InternetDiceButton"):
            continue
        name = element.get("name", "")
        if name in dice:
            run.add("duplicate-dice-button", f"dice button {name!r} is also defined at "
                    f"line {run.bf.line_of(dice[name])}", element)
        dice.setdefault(name, element)
