"""A short summary of a loaded scenario (what ``check-scenario`` prints)."""

from __future__ import annotations

from typing import Any

from vmodtool.scenario.model import Scenario

__all__ = ["scenario_summary"]


def scenario_summary(scenario: Scenario) -> dict[str, Any]:
    """Counts of what the scenario defines (decks, cards and hands
    included), and one line of text."""
    counts = {
        "sides": len(scenario.game.sides),
        "hexes": len(scenario.map.hex_ids),
        "unit_types": len(scenario.unit_types),
        "counters": len(scenario.counters),
        "formations": len(scenario.formations),
        "setup_entries": len(scenario.setup),
        "turns": (scenario.turns.last - scenario.turns.first + 1) if scenario.turns else 0,
        "phases": len(scenario.turns.phases) if scenario.turns else 0,
        "rules": len(scenario.rules),
        "decks": len(scenario.decks),
        "cards": sum(len(d.copies()) for d in scenario.decks),
        "hands": len(scenario.hands),
    }
    w, h = scenario.map.size
    text = (f"{scenario.game.title}: {counts['sides']} sides, {counts['counters']} counters of "
            f"{counts['unit_types']} types, {counts['hexes']} hexes ({w}x{h} px), "
            f"{counts['turns']} turns, {counts['rules']} rules")
    areas = scenario.map.areas
    if areas is not None:
        counts["spaces"] = len(areas.spaces)
        counts["connections"] = len(areas.connections)
        text = text.replace(f"{counts['hexes']} hexes (", f"an area map of {counts['spaces']} spaces and "
                            f"{counts['connections']} connections" + (" (proposed)" if areas.proposed else "")
                            + " (", 1)
    if scenario.decks or scenario.hands:
        text += f", {counts['decks']} decks of {counts['cards']} cards, {counts['hands']} hands"
    if scenario.maps:                   # (keys only a scenario with them has: other summaries unchanged)
        counts["maps"] = len(scenario.maps)
        text += f", {len(scenario.maps)} more map window(s) (" + ", ".join(
            f"{m.name}: {len(m.hex_ids)} hexes" for m in scenario.maps) + ")"
    if scenario.extensions:
        counts["extensions"] = len(scenario.extensions)
        text += f", {len(scenario.extensions)} extension(s) (" + ", ".join(
            f"{e.name}: {len(e.counters)} counters" for e in scenario.extensions) + ")"
    out: dict[str, Any] = {"title": scenario.game.title, "id": scenario.game.id, **counts, "text": text}
    if scenario.scenarios:
        out["scenarios"] = [{"id": s.id, "name": s.name, "setup_entries": len(s.setup),
                             "turns": [s.turns.first, s.turns.last] if s.turns else None,
                             "rules": len(s.rules)} for s in scenario.scenarios]
        out["text"] = text + f"; {len(scenario.scenarios)} scenarios: " + " / ".join(s.name for s in scenario.scenarios)
    return out
