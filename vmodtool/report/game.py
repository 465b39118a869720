"""``vmodtool report`` without Click: replay a game once (recording its
frames and what ``check-game`` and, with a scenario, the audit read), run
the checks and the audit, and write the page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.replay.scene import SceneBuilder
from vmodtool.report.frames import record_frames

if TYPE_CHECKING:
    from vmodtool.audit.game import OpenedAudit
    from vmodtool.replay.engine import Engine

__all__ = ["ReportResult", "write_game_report"]


@dataclass
class ReportResult:
    """What was written: steps, pieces, findings, images the module lacks."""

    steps: int
    pieces: int
    findings: int
    missing_images: list[str] = field(default_factory=list)


def write_game_report(logs: Sequence[Path], output: Path, *, module: str | Path | None = None,
                      scenario: str | Path | None = None,
                      board_sizes: dict[str, tuple[int, int]] | None = None) -> ReportResult:
    from vmodtool.checkgame import GameRecord, check_game, dice
    from vmodtool.checkgame.chain import Capture
    from vmodtool.render.dice_chart import dice_chart_png
    from vmodtool.replay import Replay
    from vmodtool.report.findings import finding_records
    from vmodtool.report.page import write_page
    from vmodtool.vassal.module import Module

    opened = Module.open(module) if module is not None else None
    audit: OpenedAudit | None = None
    try:
        if scenario is not None:
            # the game replayed once, for the page and the audit alike (the
            # audit's replay: its module's, or the scenario's, positions)
            from vmodtool.audit.game import open_audit
            from vmodtool.scenario import load_scenario

            loaded = load_scenario(scenario, module=opened, board_sizes=board_sizes)
            audit = open_audit(list(logs), loaded, module=opened, board_sizes=board_sizes)
            replay = audit.replay
            # without -m, the scenario's module.file (as the audit reads it)
            played_with = audit.module
        else:
            replay = Replay.open(list(logs), module=opened, board_sizes=board_sizes)
            played_with = opened
        builder = SceneBuilder(replay.positions, played_with)
        capture = Capture()

        def restored(k: int, engine: Engine) -> None:
            capture.on_restore(k, engine)
            if audit is not None:
                audit.on_restore(k, engine)
        frames, steps = record_frames(replay, builder, on_restore=restored)
        capture.finish(replay.engine)
        record = GameRecord(list(logs), replay, steps, played_with, capture.starts, capture.ends, capture.ghosts)
        check = check_game(record)
        violations = audit.finish(steps).violations if audit is not None else []
        rolls = dice.read_rolls(record)
        groups = dice.dice_groups(rolls)
        chart = dice_chart_png(groups) if groups else None
        findings = finding_records(frames, replay.positions, violations=violations, check=check)
        title = (played_with.name if played_with is not None and played_with.name else "game") + " — " + \
            ", ".join(p.name for p in logs[:3]) + (" …" if len(logs) > 3 else "")
        missing = write_page(output, frames, builder.catalog, title=title, findings=findings, dice_png=chart)
        return ReportResult(len(steps), len(frames.pieces), len(findings), missing)
    finally:
        if opened is not None:
            opened.close()
        if audit is not None and audit.module is not None and audit.module is not opened:
            audit.module.close()        # (the scenario's module.file, opened by the audit)
