"""From a replayed log to the rules checker: the audit of a game as a replay
visitor (``docs/seed-rules.md`` §4.2–§4.5).

:func:`audit_logs` reads the logs, checks they were played with the
scenario's module, replays the game once and judges it.  A caller that
replays the game itself (``vmodtool report`` draws it in the same pass)
takes the two halves: :func:`prepare_audit` gives the replay and an
:class:`AuditVisitor`; ``replay.run(visitor, …)`` replays the game once,
driving the visitor beside the caller's own, and the visitor's result is
the :class:`~vmodtool.audit.report.AuditReport`.

In the replay pass the audit keeps the first log's saved state (from the
:class:`~vmodtool.replay.visitor.BoardView` a log starts with) and every
step, and binds each piece (:class:`~vmodtool.audit.bound.BoundGame`) in
the order the game shows it.  Only then is the game judged
(:class:`~vmodtool.audit.judge.StepJudge`, over the recorded steps): a
step's undo may come any number of steps later.  With ``integrity`` the
check-game record (:class:`~vmodtool.checkgame.recorder.GameRecorder`) is
made in the same pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from vmodtool.audit.bound import BoundGame, Initial
from vmodtool.audit.coverage import area_not_judged, unjudged_reasons, untold_reasons
from vmodtool.audit.engine import Engine
from vmodtool.audit.judge import StepJudge
from vmodtool.audit.report import AuditReport
from vmodtool.audit.scenario_choice import scenario_for_logs
from vmodtool.audit.windows import window_reasons
from vmodtool.errors import VmodError
from vmodtool.gc_policy import relaxed_gc
from vmodtool.replay import Replay
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.scenario.geometry import scenario_global_properties, scenario_hands, scenario_maps
from vmodtool.scenario.model import Scenario
from vmodtool.vassal.decks import HandDef
from vmodtool.vassal.metadata import ModuleMetadata
from vmodtool.vassal.savefile import SavedGame

if TYPE_CHECKING:
    from vmodtool.checkgame.recorder import GameRecorder
    from vmodtool.replay.events import (
        AddEvent,
        CardDrawEvent,
        CardPlayEvent,
        CardReturnEvent,
        ChangeEvent,
        MoveEvent,
        RemoveEvent,
    )
    from vmodtool.replay.events import Event as ReplayEvent
    from vmodtool.replay.game import Step
    from vmodtool.vassal.module import Module

__all__ = ["AuditGame", "AuditVisitor", "GameReader", "audit_logs", "prepare_audit", "scenario_positions",
           "ScenarioPositions", "Initial"]

R = TypeVar("R", covariant=True)


class ScenarioPositions(NamedTuple):
    """What a replay reads from the module ``vmodtool build`` makes of a
    scenario: its maps (``positions``) and global properties."""

    positions: Positions
    properties: ModuleProperties
    #: the private windows (PlayerHands) the built module has
    hands: tuple[HandDef, ...] = ()


def scenario_positions(scenario: Scenario,
                       board_sizes: dict[str, tuple[int, int]] | None = None) -> ScenarioPositions:
    """The maps, grids, zones and global properties of the module of a
    scenario as ``vmodtool build`` makes it, computed from the scenario
    (:mod:`vmodtool.scenario.geometry`; nothing is built): what positions
    are read with when the user does not give a module.  ``board_sizes``
    overrides a board's size, as it does a module's images."""
    maps = scenario_maps(scenario, board_sizes)
    positions = Positions.from_maps([(m.name, m.geometry) for m in maps],
                                    {m.name: m.stacking for m in maps},
                                    {m.name: m.alternatives for m in maps if m.alternatives})
    return ScenarioPositions(positions, ModuleProperties(scenario_global_properties(scenario)),
                             tuple(scenario_hands(scenario)))



class AuditGame(BoundGame):
    """One replay (a log or a chain) bound and judged: :meth:`prepare`
    replays it whole and binds every piece, :meth:`run` judges it with an
    :class:`Engine`."""

    def prepare(self) -> Scenario:
        """Replay the whole game (its own pass) and bind every piece in the
        order it appears; the scenario with the game's units (the one given
        when the binding made no new unit)."""
        self.replay.run(_Reader(self))
        return self.bind_new_units()

    def run(self, engine: Engine) -> None:
        """Judge the prepared game with ``engine`` (its rules made for the
        scenario :meth:`prepare` returned)."""
        StepJudge(self, engine).judge(self._steps)


class GameReader(ReplayVisitor[R]):
    """What the audit reads of the replay pass, into a
    :class:`~vmodtool.audit.bound.BoundGame`: the first log's saved state,
    every step, and each piece bound in the order the game shows it (with
    a log that names no module, the maps its pieces are put on).

    A card drawn, returned or played is not a piece the rules bind or a
    map a log is on: the card feed follows it when the game is judged (the
    base visitor would take it for a move)."""

    def __init__(self, game: BoundGame) -> None:
        self.game = game
        self._steps = game.replayed_steps

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        if log.index == 0:
            self.game.keep_initial(initial)

    def visit_move(self, event: MoveEvent | AddEvent) -> None:
        game = self.game
        game.identify(event.piece)
        maps = game.log_maps
        if maps is not None and event.target is not None and event.target.map is not None:
            maps.add(event.target.map)

    visit_add = visit_move

    def visit_remove(self, event: RemoveEvent) -> None:
        self.game.identify(event.piece)

    def visit_change(self, event: ChangeEvent) -> None:
        self.game.identify(event.after)

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        """Not a move to the audit (see the class)."""

    def visit_event(self, event: ReplayEvent) -> None:
        """Nothing else is read in this pass."""

    # (the events most steps hold: taken here, not through visit_event)
    visit_chat = visit_dice = visit_property = visit_turn = visit_event

    def visit_card_return(self, event: CardReturnEvent) -> None:
        """Not a move to the audit (see the class)."""

    def visit_card_play(self, event: CardPlayEvent) -> None:
        """Not a move to the audit (see the class)."""

    def end_step(self, step: Step) -> None:
        self._steps.append(step)


class _Reader(GameReader[None]):
    """:meth:`AuditGame.prepare`'s pass."""

    def result(self) -> None:
        return None


def audit_logs(logs: Sequence[Path], scenario: Scenario, *, module: Module | str | Path | None = None,
               board_sizes: dict[str, tuple[int, int]] | None = None,
               plugin_folders: Sequence[Path] = (), trust_scenario_plugins: bool = False,
               only: Sequence[str] | None = None, integrity: bool = False,
               scenario_name: str | None = None) -> AuditReport:
    """Audit one log or a chain of logs against a scenario's rules.

    A game with several scenarios (the ``scenarios`` section) is judged as
    the one ``scenario_name`` names, else as the one whose set-up the first
    log starts from (:mod:`vmodtool.audit.scenario_choice`; a
    :class:`~vmodtool.errors.VmodError` when no scenario is a clear match).

    Plug-in rules are code: they are imported only from ``plugin_folders``
    and, with ``trust_scenario_plugins``, from the scenario's own
    ``plugins.paths``.  By default neither: every ``kind: plugin`` rule is
    reported in :attr:`AuditReport.not_checked` (the report is not
    :attr:`~AuditReport.complete`) and nothing is imported.  A plug-in that
    cannot be made a rule is a :class:`~vmodtool.audit.plugins.PluginError`.

    No false clean: a log saved with another module than ``module`` (or,
    without ``module``, the scenario's; by ``moduledata`` name, or for a log
    without one by its maps) or a game in which no piece is a unit of the
    scenario is a :class:`~vmodtool.errors.VmodError`; a rule whose
    ``subject`` matched no unit of the game is in ``not_checked``.

    With ``integrity``, the game's PBEM integrity is checked too (the checks
    of ``vmodtool check-game``, over the same replay: no second pass) and
    reported in :attr:`AuditReport.integrity`.

    :func:`prepare_audit` then ``replay.run(visitor)`` are the same audit,
    for a caller that drives other visitors in the same pass."""
    # one relaxed collection for the whole audit, not one each for reading,
    # replaying and judging: between them a restored threshold would start
    # collections that scan the replay's objects (a tenth of a short audit)
    with relaxed_gc():
        replay, visitor = prepare_audit(logs, scenario, module=module, board_sizes=board_sizes,
                                        plugin_folders=plugin_folders,
                                        trust_scenario_plugins=trust_scenario_plugins, only=only,
                                        integrity=integrity, scenario_name=scenario_name)
        (report,) = replay.run(visitor)
        return report


def prepare_audit(logs: Sequence[Path], scenario: Scenario, *, module: Module | str | Path | None = None,
                  board_sizes: dict[str, tuple[int, int]] | None = None,
                  plugin_folders: Sequence[Path] = (), trust_scenario_plugins: bool = False,
                  only: Sequence[str] | None = None, integrity: bool = False,
                  scenario_name: str | None = None) -> tuple[Replay, AuditVisitor]:
    """The audit of :func:`audit_logs` (the same arguments) before the game
    is replayed: the rules made, the logs read and checked against the
    module.  ``replay.run(visitor, …)`` replays the game once (its module's
    or the scenario's positions) and judges it: the visitor's result is the
    report."""
    played: dict[str, Any] = {}
    if scenario.scenarios and scenario.chosen is None:
        module = _opened_module(scenario, module)
        scenario, choice = scenario_for_logs(
            logs, scenario, name=scenario_name, module=module,
            open_first=partial(_open_replay, [logs[0]], scenario, module, board_sizes))
        played = {"id": scenario.chosen, "name": choice.chosen.name if choice.chosen else scenario.chosen,
                  "by": choice.by, "scores": [s.as_json() for s in choice.scores]}
    elif scenario_name is not None:
        raise VmodError(f"--scenario-name {scenario_name!r}: the scenario file has no 'scenarios' section",
                        file=scenario.path)
    # the rules first: a plug-in that is not a rule stops the audit before any log is read;
    # on an area map whose connections are unknown the kinds that measure the map are not run (NOT CHECKED)
    skipped = area_not_judged(scenario.rules, scenario.map.areas)
    if skipped:
        only = [r.id for r in scenario.rules if r.id not in skipped and (only is None or r.id in only)]
    rules = partial(Engine, plugin_folders=plugin_folders, trust_scenario_plugins=trust_scenario_plugins,
                    only=only)
    engine = rules(scenario)
    source = scenario.module
    module = _opened_module(scenario, module)
    if module is None:
        given = _ModuleName(scenario.game.title, scenario.game.version or "1.0",
                            str(scenario.path or "the scenario"), ())
    else:
        given = _module_name(module)
        if source is not None and source.name:
            given = _ModuleName(source.name, given.version, f"module.name of {scenario.path}", given.translations)
    replay = _open_replay(list(logs), scenario, module, board_sizes)
    warnings: list[str] = []
    unnamed = False           # a log without moduledata: its maps are checked instead
    for log, saved in zip(logs, replay.games, strict=True):
        found = _log_module(saved)
        if found is None:
            unnamed = True
        else:
            warnings += _check_module(str(log), found, given,
                                      source.aliases if source is not None else (), scenario.path)
    if module is not None:
        warnings += _extensions_not_loaded(logs, replay.games, module)
    game = AuditGame(scenario, replay, module)
    if unnamed:
        game.log_maps = set()
    recorder = None
    if integrity:
        from vmodtool.checkgame.recorder import GameRecorder
        recorder = GameRecorder(list(logs), replay, module, sides=[s.name for s in scenario.game.sides],
                                dice_patterns=scenario.module.dice_reports if scenario.module else ())
    visitor = AuditVisitor(list(logs), game, engine, rules, given, warnings, module=module, skipped=skipped,
                           recorder=recorder)
    visitor.played = played
    return replay, visitor


def _opened_module(scenario: Scenario, module: Module | str | Path | None) -> Module | None:
    """The module the game is audited with, opened (None: the scenario's
    maps stand in for it)."""
    source = scenario.module
    if module is None and source is not None and source.file:
        module = scenario.folder / source.file
    if module is None:
        return None
    from vmodtool.vassal.module import Module
    return module if isinstance(module, Module) else Module.open(module)


def _open_replay(logs: list[Path], scenario: Scenario, module: Module | None,
                 board_sizes: dict[str, tuple[int, int]] | None) -> Replay:
    """A replay of the logs with the module, else with the scenario's maps."""
    source = scenario.module
    if source is not None and source.board_sizes:
        board_sizes = {**source.board_sizes, **(board_sizes or {})}
    if module is None:
        stand_in = scenario_positions(scenario, board_sizes)
        return Replay.open(logs, positions=stand_in.positions, properties=stand_in.properties,
                           hands=stand_in.hands)
    return Replay.open(logs, module=module, board_sizes=board_sizes)


class AuditVisitor(GameReader[AuditReport]):
    """The audit of one game as a replay visitor (:func:`prepare_audit`
    makes it): it reads the pass (:class:`GameReader`), and its
    :meth:`result` binds the game's units, judges the game and reports.
    With ``recorder`` (the audit's ``integrity``), the check-game record is
    made in the same pass and the game checked too."""

    def __init__(self, logs: list[Path], game: AuditGame, engine: Engine, rules: Callable[[Scenario], Engine],
                 given: _ModuleName, warnings: list[str], *, module: Module | None = None,
                 skipped: dict[str, str] | None = None, recorder: GameRecorder | None = None) -> None:
        super().__init__(game)
        self.logs = logs
        #: the module the game is audited with (None: the scenario's maps)
        self.module = module
        self.scenario = game.scenario
        self.audit_game = game
        #: the rules made for the scenario before anything was read
        self.engine = engine
        #: the rules made for a scenario (again for the game's bound units)
        self._rules = rules
        self.given = given
        self.warnings = warnings
        #: rule id -> why it was not run (a kind an area map cannot judge)
        self.skipped = skipped or {}
        self.recorder = recorder
        #: a game with several scenarios: which one is judged, and how it was chosen
        self.played: dict[str, Any] = {}

    @property
    def replay(self) -> Replay:
        """The replay the audit reads (run it, with this visitor)."""
        return self.audit_game.replay

    # the check-game record shares the pass (it reads no event)
    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        super().begin_log(log, initial)
        if self.recorder is not None:
            self.recorder.begin_log(log, initial)

    def end_step(self, step: Step) -> None:
        super().end_step(step)
        if self.recorder is not None:
            self.recorder.end_step(step)

    def end_log(self, log: LogStart, final: BoardView) -> None:
        if self.recorder is not None:
            self.recorder.end_log(log, final)

    def result(self) -> AuditReport:
        """Bind the game's units, judge the game, report."""
        with relaxed_gc():
            game = self.audit_game
            engine = self._judge()
            self._check_judged(engine)
            engine.mark_unseen()
            for rule_id, why in self.skipped.items():
                engine.not_checked.setdefault(rule_id, why)
            # no false clean: units that stood where the scenario names nothing
            for rule_id, why in unjudged_reasons(engine.rules, game.unjudged, game.unit_name).items():
                engine.not_checked.setdefault(rule_id, why)
            for rule_id, why in window_reasons(engine.rules, game.on_windows, game.unit_name).items():
                engine.not_checked.setdefault(rule_id, why)
            for rule_id, why in untold_reasons(engine.rules, game.binder.untold).items():
                engine.not_checked.setdefault(rule_id, why)
            return self._report(engine)

    def _judge(self) -> Engine:
        game = self.audit_game
        engine = self.engine
        bound = game.bind_new_units()
        if bound is not self.scenario:
            # the rules are made again for the game's units (the binding made them)
            engine = self._rules(bound)
        game.run(engine)
        return engine

    def _check_judged(self, engine: Engine) -> None:
        """No false clean: a log on none of the module's maps, or a game
        with no unit of the scenario, is an error, not a clean report."""
        game, logs, given = self.audit_game, self.logs, self.given
        if game.log_maps:
            known = set(game.replay.positions.map_names())
            if not game.log_maps & known:
                raise VmodError(
                    f"{logs[0]} uses map(s) {_names(game.log_maps)}, none of which is in the module "
                    f"given: {given.name!r} ({given.source}) has {_names(known) or 'no map'}; audit the log with "
                    "the module it was played with")
        if not game.piece_unit and engine.rules:
            # (with no rule to run the audit claims nothing: the replay's own findings stand)
            pieces = len(game.unknown_ids) + len(game.piece_marker) + len(game.ignored_ids)
            how = ("none with a UnitId property naming one of its counters (what a module made by 'vmodtool build' "
                   "writes; a game played with another module needs a binding, which 'vmodtool import' proposes)"
                   if self.scenario.binding.implied else "none matched by the scenario's binding.units")
            raise VmodError(
                f"no piece of {_names(str(p) for p in logs)} is a unit of the scenario "
                f"{self.scenario.path or self.scenario.game.title}: {pieces} piece(s), {how}; nothing could be checked")

    def log_place(self, step: int) -> tuple[str | None, int]:
        """Where a chain step (1 = the first log's first step, 0 = the
        starting state) is once the game is replayed: the log file's name and
        the step within it, what a player quotes to an opponent (a step past
        the end: the last)."""
        steps = self.audit_game.replayed_steps
        last = steps[-1].number if steps else 0
        file, file_step = self.audit_game.replay.log_position(min(max(step, 0), last))
        return (Path(file).name if file else None), file_step

    def _warnings(self) -> list[str]:
        game = self.audit_game
        warnings = list(self.warnings)
        warnings += [w.message if hasattr(w, "message") else str(w) for w in game.replay.warnings]
        if game.binder.problems:
            sample = ", ".join(sorted(game.binder.problems)[:8])
            warnings.append(f"{len(game.binder.problems)} piece(s) matched a binding.units entry but no side "
                            f"(give the entry a side or add a binding.sides entry) and are not units: {sample}")
        if game.unknown_pieces:
            sample = ", ".join(sorted(game.unknown_pieces)[:8])
            warnings.append(f"{len(game.unknown_pieces)} piece(s) are not units or markers of the "
                            f"scenario and were ignored by the rules: {sample}")
        if game.binder.untold:
            sample = ", ".join(sorted(game.binder.untold)[:8])
            warnings.append(
                f"{len(game.binder.untold)} of them have a name no piece of the module has and show the "
                f"pictures of several of its pieces that the binding binds differently (a unit and its "
                f"reduced twin), so which each is cannot be told: {sample}; if the game was saved with "
                "another version of the module, audit it with that version (-m), or bind these pieces by a "
                "property or name they carry (binding.units)")
        if game.terrain is not None and not game.terrain.kinds:
            lines = ", ".join(str(t.line) for t in self.scenario.binding.terrain if t.line is not None)
            warnings.append(f"no piece of the game matched binding.terrain (line(s) {lines or '?'}): the terrain "
                            "the rules read is the map's typed terrain alone")
        return warnings

    def _report(self, engine: Engine) -> AuditReport:
        game, scenario = self.audit_game, self.scenario
        replay = game.replay
        violations = [replace(v, log=place[0], log_step=place[1])
                      for v in engine.sorted_violations() for place in (self.log_place(v.step),)]
        warnings = self._warnings()
        checked = None
        if self.recorder is not None:
            from vmodtool.checkgame import check_game
            checked = check_game(self.recorder.result())
        terrain_pieces = len(game.terrain.kinds) if game.terrain is not None else 0
        return AuditReport(
            integrity=checked,
            logs=[str(p) for p in self.logs], scenario=str(scenario.path), violations=violations,
            steps=game.steps, rules_checked=[spec.id for spec, _ in engine.rules],
            not_checked=engine.not_checked, units_not_checked=dict(sorted(game.unjudged.items())),
            rule_sources=engine.rule_sources, played_scenario=self.played,
            rule_failures=[f.__dict__ for f in engine.failures], replay_warnings=warnings,
            chain_differences=[d.text() for d in replay.chain_differences],
            phase_names={p.id: p.name for p in (scenario.turns.phases if scenario.turns else ())},
            side_names={s.id: s.name for s in scenario.game.sides},
            bound={"units": len(game.piece_unit), "markers": len(game.piece_marker),
                   "ignored": len(game.ignored_ids) - terrain_pieces, "unbound": len(game.unknown_ids),
                   **({"terrain": terrain_pieces} if game.terrain is not None else {})})


class _ModuleName(NamedTuple):
    """A module as a log or the user names it: name, version, where the
    name comes from (a file), and the name's translations."""

    name: str
    version: str
    source: str
    translations: tuple[str, ...]


def _names(names: Iterable[str]) -> str:
    listed = sorted(set(names))
    shown = ", ".join(repr(n) for n in listed[:6])
    return shown + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")


def _module_name(module: Module) -> _ModuleName:
    """What a module is called: its ``moduledata`` name (VASSAL matches
    saves by it), else the buildFile root's."""
    source = module.file or "the module"
    if module.moduledata:
        try:
            meta = ModuleMetadata.parse(module.moduledata, file=module.file)
        except VmodError:
            meta = None
        if meta is not None and meta.name:
            return _ModuleName(meta.name, meta.version, source, tuple(meta.name_translations.values()))
    return _ModuleName(module.name, module.buildfile.version, source, ())


def _extensions_not_loaded(logs: Sequence[Path], games: Sequence[SavedGame], module: Module) -> list[str]:
    """A warning per extension a log registers (VASSAL's ``EXT``) that the
    module was not given with (``-x``): its pieces, prototypes and palette
    are unknown to the audit's module."""
    from vmodtool.vassal.extension import ExtendedModule, extension_name, registered_extensions

    loaded = {extension_name(x) for x in module.extensions} if isinstance(module, ExtendedModule) else set()
    out = []
    for log, saved in zip(logs, games, strict=True):
        for name, version in registered_extensions(saved):
            if name not in loaded:
                out.append(f"{log}: the game was saved with the extension {name!r} (version {version}) loaded; "
                           f"it is not given (-x {name}.vmdx): what only it defines is unknown to the module")
    return out


def _log_module(saved: SavedGame) -> _ModuleName | None:
    """The module a log was saved with (its ``moduledata``), or None when
    the log has none (VASSAL 2.x) or it cannot be read."""
    raw = saved.metadata_xml("moduledata")
    if not raw:
        return None
    if raw in _MODULEDATA:
        named = _MODULEDATA[raw]
    else:
        try:
            meta = ModuleMetadata.parse(raw, file=saved.file)
        except VmodError:
            named = None
        else:
            named = (meta.name, meta.version, tuple(meta.name_translations.values())) if meta.name else None
        if len(_MODULEDATA) >= 64:
            _MODULEDATA.clear()
        _MODULEDATA[raw] = named
    if named is None:
        return None
    return _ModuleName(named[0], named[1], str(saved.file), named[2])


#: the module names ``moduledata`` entries give (name, version,
#: translations; None: none): the logs of a batch are mostly of one module,
#: and the entry is XML to parse
_MODULEDATA: dict[bytes, tuple[str, str, tuple[str, ...]] | None] = {}


def _check_module(log: str, found: _ModuleName, given: _ModuleName, aliases: Sequence[str] = (),
                  scenario_path: Path | None = None) -> list[str]:
    """A :class:`VmodError` when a log was saved with another module than
    the one given (by name: the game's positions and pieces would be read
    with the wrong module); a warning when only the version differs
    (players update a module in the middle of a game), or when the log's
    name is one of the scenario's ``module.aliases`` (a module renamed
    between versions)."""
    names = {found.name.strip(), *(t.strip() for t in found.translations)}
    if not names & {given.name.strip(), *(t.strip() for t in given.translations)}:
        where = f"module.aliases of {scenario_path}" if scenario_path else "module.aliases"
        if names & {a.strip() for a in aliases}:
            return [f"{log} was saved with module {found.name!r} {found.version}, the module given is "
                    f"{given.name!r} {given.version} ({given.source}); audited as the same module renamed "
                    f"({where}): pieces or maps may differ"]
        raise VmodError(f"{log} was saved with module {found.name!r} {found.version}, but the module given "
                        f"is {given.name!r} ({given.source}); audit it with the module of that game, or, if "
                        f"{found.name!r} is the same module under an earlier name, add it to {where} "
                        f"(aliases: [{found.name!r}])")
    if found.version != given.version:
        return [f"{log} was saved with version {found.version} of module {found.name!r}, the module given "
                f"is version {given.version} ({given.source}): pieces or maps may differ"]
    return []

