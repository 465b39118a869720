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
