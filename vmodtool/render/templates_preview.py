"""A counter template previewed: a scenario's counters drawn with it (the
``vmodtool templates show`` contact sheet and ``docs/counters``)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write
from vmodtool.render.counters import render_contact_sheet
from vmodtool.render.png import encode_png

__all__ = ["with_template", "preview_template", "SAMPLE_SCENARIO"]

#: the scenario a preview draws when none is given
SAMPLE_SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "modern-tactical" / "scenario.yaml"


def with_template(scenario: Any, template: str) -> Any:
    """The scenario with ``styles.counter.template`` set to ``template``
    (a bundled name, or a path: made absolute so it resolves from anywhere)."""
    ref = template
    if template.endswith((".yaml", ".yml")) and Path(template).is_file():
        ref = os.path.abspath(template)
    styles = dict(scenario.styles or {})
    counter = dict(styles.get("counter") or {})
    counter["template"] = ref
    styles["counter"] = counter
    return replace(scenario, styles=styles)


def preview_template(template: str, scenario_path: str | None, out: str | os.PathLike[str] | None = None,
                     *, px: int = 96, cols: int = 10) -> str:
    """Draw the contact sheet of ``scenario_path`` (default: the modern
    tactical example) with ``template``; write it to ``out`` as PNG when
    given.  Returns a one-line description of what was drawn."""
    from vmodtool.scenario import load_scenario

    path = scenario_path or SAMPLE_SCENARIO
    if not Path(path).is_file():
        raise VmodError("no scenario to preview the template on; give one with --scenario", file=path)
    sc = with_template(load_scenario(path), template)
    sheet = render_contact_sheet(sc, px=px, cols=cols)
    if out is not None:
        atomic_write(Path(out), encode_png(sheet))
    return f"template {template} on {Path(path).name}: {sheet.width}x{sheet.height} px"
