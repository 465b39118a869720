"""``vmodtool report`` without Click: replay a game once, driving the
frames (:class:`~vmodtool.report.frames.FrameRecorder`), the check-game
record and, with a scenario, the audit in the same pass, then check the game
and write the page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.replay.scene import SceneBuilder
from vmodtool.report.frames import FrameRecorder
from vmodtool.report.narrative import NoteReader, narrative_records, placed_notes

if TYPE_CHECKING:
    from vmodtool.audit.game import AuditVisitor
    from vmodtool.step_notes import Note
    from vmodtool.vassal.module import Module

__all__ = ["ReportResult", "write_game_report"]


@dataclass
class ReportResult:
    """What was written: steps, pieces, findings, images the module lacks,
    notes in the narrative column."""

    steps: int
    pieces: int
    findings: int
    missing_images: list[str] = field(default_factory=list)
    notes: int = 0


def write_game_report(logs: Sequence[Path], output: Path, *, module: Module | str | Path | None = None,
                      scenario: str | Path | None = None,
                      board_sizes: dict[str, tuple[int, int]] | None = None,
                      notes: Sequence[Note] = (), scenario_name: str | None = None,
                      terrain_layer: Path | None = None) -> ReportResult:
    """Replay ``logs`` once and write their page to ``output``; ``notes``
    (a notes file's, :func:`vmodtool.step_notes.read_notes`) and the
    merged log's own notes fill the narrative column.  A note naming a step
    the game does not have is a located ``VmodError`` before anything is
    written.  ``scenario_name`` picks one of the scenario file's scenarios
    (else the one the game starts from); ``terrain_layer`` a file of
    ``vmodtool terrain --report-layer`` drawn over its map."""
    from vmodtool.checkgame import check_game, dice
    from vmodtool.checkgame.recorder import GameRecorder
    from vmodtool.render.dice_chart import dice_chart_png
    from vmodtool.replay import Replay
    from vmodtool.report.findings import finding_records
    from vmodtool.report.page import write_page
    from vmodtool.vassal.module import Module

    layer = None
    if terrain_layer is not None:           # read (and refused) before the game is replayed
        from vmodtool.terrain.layer import read_layer
        layer = read_layer(terrain_layer)
    opened = module if isinstance(module, Module) or module is None else Module.open(module)
    audit: AuditVisitor | None = None
    try:
        if scenario is not None:
            # the game replayed once, for the page, the checks and the audit
            # alike (the audit's replay: its module's, or the scenario's, positions)
            from vmodtool.audit.game import prepare_audit
            from vmodtool.scenario import load_scenario

            loaded = load_scenario(scenario, module=opened, board_sizes=board_sizes)
            replay, audit = prepare_audit(list(logs), loaded, module=opened, board_sizes=board_sizes,
                                          scenario_name=scenario_name)
            # without -m, the scenario's module.file (as the audit reads it)
            played_with = audit.module
        else:
            replay = Replay.open(list(logs), module=opened, board_sizes=board_sizes)
            played_with = opened
        placed = placed_notes(notes, replay)        # a note off the game stops here
        builder = SceneBuilder(replay.positions, played_with)
        drawn = FrameRecorder(builder)
        recorder = GameRecorder(list(logs), replay, played_with)
        if audit is not None:
            frames, record, in_log, audited = replay.run(drawn, recorder, NoteReader(), audit)
            violations = audited.violations
        else:
            frames, record, in_log = replay.run(drawn, recorder, NoteReader())
            violations = []
        check = check_game(record)
        rolls = dice.read_rolls(record)
        groups = dice.dice_groups(rolls)
        chart = dice_chart_png(groups) if groups else None
        findings = finding_records(frames, replay.positions, violations=violations, check=check)
        title = (played_with.name if played_with is not None and played_with.name else "game") + " — " + \
            ", ".join(p.name for p in logs[:3]) + (" …" if len(logs) > 3 else "")
        narrative = narrative_records(in_log, placed)
        terrain = None
        if layer is not None:
            from vmodtool.report.terrain_layer import layer_record
            terrain = layer_record(frames, layer)
        missing = write_page(output, frames, builder.catalog, title=title, findings=findings, dice_png=chart,
                             notes=narrative, terrain=terrain)
        return ReportResult(len(drawn.steps), len(frames.pieces), len(findings), missing, len(narrative))
    finally:
        if opened is not None:
            opened.close()
        if audit is not None and audit.module is not None and audit.module is not opened:
            audit.module.close()        # (the scenario's module.file, opened by the audit)
