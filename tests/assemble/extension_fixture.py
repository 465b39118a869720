"""A small scenario with an extension (the ``vmodtool init`` starter with
two guard counters, one a side, shipped as the extension "Guards"), shared
by the build, lint, replay and audit tests of extensions."""

from __future__ import annotations

from pathlib import Path

from vmodtool.scenario.starter import write_starter

GUARDS = """  - {id: blue.guard, type: tank, side: blue, label: "Г"}
  - {id: red.guard, type: infantry, side: red, label: "G"}

extensions:
  - name: Guards
    version: "1.1"
    description: Optional guard units
    counters: [blue.guard, red.guard]
"""


def guard_scenario(parent: Path, extra: str = GUARDS) -> Path:
    """``parent/guards/scenario.yaml``: the starter with ``extra`` after its counters."""
    path = write_starter("guards", str(parent))
    text = path.read_text(encoding="utf-8")
    anchor = '  - {id: red.tank, type: tank, side: red, label: "3"}\n'
    assert anchor in text, "the starter's counters changed: update the fixture"
    path.write_text(text.replace(anchor, anchor + extra), encoding="utf-8")
    return path


#: a second map window (a strategic map with its own grid, terrain and a
#: Cyrillic name) and a set-up stack on it
STRATEGIC = """
maps:
  - id: strategic
    name: "Стратегическая карта"
    grid:
      kind: hex
      orientation: flat_top
      hex_height: 80
      columns: 5
      rows: 4
      numbering:
        first: column
        separator: "."
    terrain_types:
      clear: {code: ".", name: "Clear", fill: "#e6e2c3"}
      hills: {code: h, name: "Hills", fill: "#c9a66b"}
    terrain:
      default: clear
      hexes: {"02.02": hills}
    labels:
      - {hex: "03.03", text: "Париж"}
"""
STRATEGIC_MAP = "Стратегическая карта"


def two_map_scenario(parent: Path, extra: str = GUARDS) -> Path:
    """:func:`guard_scenario` with the strategic map, ``red.inf.2`` set up on it."""
    path = guard_scenario(parent, extra)
    text = path.read_text(encoding="utf-8")
    stack = '  - {hex: "0704", stack: [red.inf.2, red.tank]}\n'
    assert stack in text, "the starter's set-up changed: update the fixture"
    text = text.replace(stack, '  - {hex: "0704", stack: [red.tank]}\n'
                               '  - {map: strategic, hex: "04.02", stack: [red.inf.2]}\n')
    path.write_text(text + STRATEGIC, encoding="utf-8")
    return path
