"""The findings a report lists and marks on its map: audit violations
(``vmodtool audit``, with a scenario) and ``check-game`` findings, each
with its step, the map point to mark (its first hex, else where the step's
first move went) and whether an undo withdrew it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vmodtool.report.frames import Frames
from vmodtool.vassal.grid_common import LocationError

if TYPE_CHECKING:
    from vmodtool.audit.api import Violation
    from vmodtool.checkgame import GameCheck
    from vmodtool.replay.positions import Positions

__all__ = ["finding_records"]


def _hex_point(positions: Positions, frames: Frames, hex_name: str) -> tuple[int, int, int] | None:
    """(map index, x, y) of a location name on the first map and board that knows it."""
    for index, m in enumerate(frames.maps):
        geometry = positions.geometry(m["name"])
        if geometry is None:
            continue
        for placement in geometry.placements:
            try:
                x, y = geometry.point_of(placement.board.name, hex_name)
            except (LocationError, KeyError, ValueError):
                continue
            return index, x, y
    return None


def _step_point(frames: Frames, step: int | None) -> tuple[int, int, int] | None:
    if step is None or not 0 < step <= len(frames.steps):
        return None
    arrows = frames.steps[step - 1].arrows
    return (arrows[0][0], arrows[0][3], arrows[0][4]) if arrows else None


def _undone(frames: Frames, step: int | None) -> bool:
    return step is not None and 0 < step <= len(frames.steps) and frames.steps[step - 1].undone_by is not None


def _record(source: str, kind: str, severity: str, message: str, step: int | None,
            point: tuple[int, int, int] | None, withdrawn: bool) -> dict[str, Any]:
    m, x, y = point if point is not None else (-1, 0, 0)
    return {"source": source, "kind": kind, "severity": severity, "message": message, "step": step,
            "map": m, "x": x, "y": y, "withdrawn": withdrawn}


def finding_records(frames: Frames, positions: Positions, *, violations: Iterable[Violation] = (),
                    check: GameCheck | None = None) -> list[dict[str, Any]]:
    """Every finding as the page lists it, by step."""
    out: list[dict[str, Any]] = []
    for v in violations:
        point = None
        for h in reversed(v.hexes):  # the last: where the unit went
            point = _hex_point(positions, frames, h)
            if point is not None:
                break
        out.append(_record("audit", v.rule_id, v.severity, v.message, v.step,
                           point or _step_point(frames, v.step), v.withdrawn_by_undo))
    if check is not None:
        for section in check.sections:
            for f in section.findings:
                hex_name = f.details.get("hex") or f.details.get("location") if isinstance(f.details, dict) else None
                point = _hex_point(positions, frames, hex_name) if isinstance(hex_name, str) else None
                out.append(_record("check-game", f.kind, f.severity, f.message, f.step,
                                   point or _step_point(frames, f.step), _undone(frames, f.step)))
    out.sort(key=lambda r: (r["step"] if r["step"] is not None else -1))
    return out
