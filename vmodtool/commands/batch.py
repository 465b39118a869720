"""``vmodtool batch``: one command over every game of an archive."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from vmodtool.commands import (
    REPLACED,
    BadInput,
    Command,
    board_size_options,
    board_sizes,
    check_output,
    jobs_option,
    warn,
)

if TYPE_CHECKING:
    from vmodtool.batch import BatchProgress, BatchSummary, Game

__all__ = ["batch"]

_COMMANDS = ("audit", "check-game", "replay", "lint", "inspect")


@click.command(cls=Command)
@click.argument("command", type=click.Choice(_COMMANDS), metavar="COMMAND")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=str))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=str), default=None,
              metavar="FILE.jsonl",
              help=f"Write one JSON record per game to FILE.jsonl, atomically at the end ({REPLACED}; a "
                   "re-run skips games whose inputs have not changed, an interrupted run resumes). Without "
                   "it the records go to stdout as games finish.")
@click.option("--group", "group", default="folder", show_default=True, metavar="folder|file|REGEX",
              help="How a folder tree's files form games: one game per folder, one per file, or a regular "
                   "expression "
                   "over the path below the folder whose group 'game' (else its first group) names the game.")
@click.option("--scenario", "scenario", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="audit: the scenario of every game (a manifest's scenario column overrides it).")
@click.option("-m", "--module", "module", type=click.Path(exists=True, path_type=str),
              help="The module of every game (a manifest's module column overrides it).")
@jobs_option()
@click.option("--dask", "dask", metavar="ADDRESS", default=None,
              help="Run the games on this Dask scheduler (e.g. tcp://10.0.0.5:8786) instead of locally; "
                   "needs pip install 'vmodtool[dask]' here and on the workers.")
@click.option("--send-files", is_flag=True,
              help="With --dask: send each game's files to the worker as bytes (workers without the "
                   "shared path).")
@click.option("--rerun", is_flag=True, help="Run every game again, even those a previous record fits.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@board_size_options
@click.option("--plugins", "plugin_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=str),
              help="audit: import and run the Python rule plug-ins in this folder (repeatable).")
@click.option("--trust-scenario-plugins", is_flag=True,
              help="audit: import and run the plug-ins of the --scenario file's plugins.paths (code with your "
                   "rights); never those of a scenario a manifest names instead (their rules: NOT CHECKED).")
@click.option("--rule", "rules", multiple=True, metavar="ID", help="audit: only these rule ids (repeatable).")
@click.option("--integrity/--no-integrity", default=True, show_default=True,
              help="audit: also check each game's PBEM integrity.")
@click.option("--check", "checks", multiple=True, type=click.Choice(["chain", "undo", "dice", "actions", "decks"]),
              help="check-game: only these checks (repeatable).")
@click.option("--min-severity", type=click.Choice(["info", "warning", "error"]), default="info",
              show_default=True, help="lint: leave out findings below this severity.")
@click.pass_context
def batch(ctx: click.Context, command: str, sources: tuple[str, ...], output: str | None, group: str,
          scenario: str | None, module: str | None, jobs: int, dask: str | None, send_files: bool,
          rerun: bool, quiet: bool, board_sizes_file: str | None, board_size: tuple[str, ...],
          plugin_dirs: tuple[str, ...], trust_scenario_plugins: bool, rules: tuple[str, ...],
          integrity: bool, checks: tuple[str, ...], min_severity: str) -> None:
    """Run a command on every game of an archive.

    COMMAND is audit, check-game, replay, lint or inspect, run on all
    cores (-j) or on a Dask cluster (--dask).  SOURCES are
    folders (every .vlog/.vsav below, or .vmod/.vext for lint; one game per
    folder unless --group), manifests (.csv with columns game,file and
    optionally order,module,scenario; or .yaml with games: [{name, files,
    module, scenario}]) or single files.  Each game is run exactly as the
    command runs it alone; a bad file fails its game only (its one-line
    message in the record) and the run goes on.  Records (game, status,
    exit_code, result or error) stream as JSON Lines; a summary table
    follows on stderr (on stdout with -o).  Exit code 2 when a game failed,
    else 1 when one has findings, 3 when one could not be checked fully,
    70 when one hit a bug in vmodtool, 0 otherwise.

    \b
    Examples:
      vmodtool batch audit tournament/ --scenario scenario.yaml -m game.vmod -o results.jsonl
      vmodtool batch check-game games.csv --dask tcp://scheduler:8786 --send-files -o integrity.jsonl
    """
    from vmodtool.batch import Options, cpu_count, run_batch

    _check_batch_options(command, sources, output, scenario, module, board_sizes_file, dask, send_files)
    games = _games(command, sources, group, output)
    if trust_scenario_plugins and command == "audit":
        _untrusted_scenarios(games, Path(scenario) if scenario else None)
    options = Options(command=command, module=Path(module) if module else None,
                      scenario=Path(scenario) if scenario else None,
                      board_sizes=tuple(sorted(board_sizes(board_sizes_file, board_size).items())),
                      plugins=tuple(Path(d) for d in plugin_dirs), trust_scenario_plugins=trust_scenario_plugins,
                      rules=rules, integrity=integrity, checks=checks, min_severity=min_severity)
    to_file = output is not None and output != "-"
    show = not quiet and sys.stderr.isatty()
    bar = _Bar(show)
    summary = run_batch(games, options, output=Path(output) if output is not None and to_file else None,
                        jobs=jobs or cpu_count(), dask=dask, send_files=send_files, rerun=rerun,
                        stream=None if to_file else sys.stdout.buffer, on_progress=bar.update)
    bar.close()
    table = summary_lines(summary, output if to_file else None)
    for line in table:
        click.echo(line, err=not to_file)
    ctx.exit(summary.exit_code)


def _check_batch_options(command: str, sources: tuple[str, ...], output: str | None, scenario: str | None,
                         module: str | None, board_sizes_file: str | None, dask: str | None,
                         send_files: bool) -> None:
    """Refuse options that do not go together, and an output that is an
    input or would be read as a game of a source folder."""
    from vmodtool.batch import COMMANDS

    if send_files and not dask:
        raise click.UsageError("--send-files goes with --dask ADDRESS")
    if command == "audit" and scenario is None and not any(s.lower().endswith((".csv", ".yaml", ".yml"))
                                                           for s in sources):
        raise click.UsageError("batch audit needs --scenario FILE (or a manifest with a scenario column)")
    inputs = [*sources, scenario, module, board_sizes_file]
    if output is not None and output != "-":
        check_output(output, *inputs, suffixes=(".jsonl", ".json", ".ndjson"), what="JSON Lines")
        for source in sources:
            if Path(source).is_dir() and Path(output).resolve().is_relative_to(Path(source).resolve()) \
                    and output.lower().endswith(COMMANDS[command]):
                raise BadInput(f"{output}: the output would be read as a game of {source}")


def _games(command: str, sources: tuple[str, ...], group: str, output: str | None) -> list[Game]:
    """The games of the sources (a warning naming the files skipped);
    refused when one would read the batch's own output."""
    from vmodtool.batch import COMMANDS, games_from

    skipped: list[Path] = []
    games = games_from([Path(s) for s in sources], COMMANDS[command], group=group, skipped=skipped)
    if skipped:
        shown = ", ".join(str(p) for p in skipped[:_SKIPPED_SHOWN])
        more = f" and {len(skipped) - _SKIPPED_SHOWN} more" if len(skipped) > _SKIPPED_SHOWN else ""
        what = "modules" if command == "lint" else "VASSAL saves or logs"
        warn(f"skipped {len(skipped)} file(s) that are not {what}: {shown}{more}")
    if output is not None and output != "-":
        _refuse_reading_the_output(Path(output), games)
    return games


#: the skipped files a warning names (the rest are counted)
_SKIPPED_SHOWN = 10


def _refuse_reading_the_output(output: Path, games: list[Game]) -> None:
    """A game file (or module, scenario) that is the batch's own output or
    its ``.partial`` file would be read as a game and then replaced: refused
    before any work, as every command refuses an output that is an input."""
    import os

    targets = {}
    for path in (output, output.with_name(output.name + ".partial")):
        try:
            st = os.stat(path)
        except OSError:
            continue                # not there: a game naming it fails as a missing file
        targets[(st.st_dev, st.st_ino)] = path
    if not targets:
        return
    for game in games:
        for path in [*game.files, *(p for p in (game.module, game.scenario) if p is not None)]:
            try:
                st = os.stat(path)
            except OSError:
                continue
            target = targets.get((st.st_dev, st.st_ino))
            if target is not None:
                raise BadInput(f"{output}: refusing to overwrite an input file: game {game.name!r} names "
                               f"{path}, which is {'this output' if target == output else 'its resume file'}; "
                               "choose another output path")


def _untrusted_scenarios(games: list[Game], named: Path | None) -> None:
    """A warning naming the scenarios whose plug-ins --trust-scenario-plugins
    does not reach: those a manifest names, other than ``--scenario``."""
    from vmodtool.batch import Options
    from vmodtool.batch.tasks import game_options

    trusting = Options("audit", scenario=named, trust_scenario_plugins=True)
    others = sorted({str(g.scenario) for g in games
                     if g.scenario is not None and not game_options(g, trusting).trust_scenario_plugins})
    if others:
        warn(f"--trust-scenario-plugins trusts the plug-ins of {named or 'the --scenario file (none given)'} "
             f"only: those of {len(others)} scenario(s) a manifest names are not imported (their rules are "
             f"NOT CHECKED): {', '.join(others[:_SKIPPED_SHOWN])}{' …' if len(others) > _SKIPPED_SHOWN else ''}")


class _Bar:
    """One line on stderr: games done of all, failed, time left."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self.drawn = False
        self.last = 0.0

    def update(self, progress: BatchProgress) -> None:
        now = time.monotonic()
        if not self.show or (now - self.last < 0.1 and progress.done < progress.total):
            return
        self.last = now
        width = 30
        filled = width * progress.done // max(progress.total, 1)
        left = progress.seconds_left
        eta = "" if left is None else f", {int(left) // 60}:{int(left) % 60:02d} left"
        click.echo(f"\r[{'#' * filled}{'-' * (width - filled)}] {progress.done}/{progress.total} games, "
                   f"{progress.failed} failed{eta}   ", nl=False, err=True)
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            click.echo("", err=True)


def summary_lines(summary: BatchSummary, output: str | None) -> list[str]:
    """The table after a batch: every game that is not ok, then the counts."""
    from vmodtool.textsafe import escape_controls

    lines = []
    if summary.not_ok:
        width = min(40, max(len(r["game"]) for r in summary.not_ok))
        lines.append(f"{'game':{width}}  {'status':11}  exit  note")
        for row in summary.not_ok:
            note = row.get("error") or row.get("note") or ""
            lines.append(escape_controls(f"{row['game']:{width}}  {row['status']:11}  {row['exit_code']:4}  {note}"))
    if summary.not_ok_more:
        lines.append(f"… and {summary.not_ok_more} more game(s) not ok (every record is in the JSON Lines)")
    counts = ", ".join(f"{n} {s}" for s, n in sorted(summary.statuses.items()))
    reused = f" ({summary.reused} unchanged since the last run, not run again)" if summary.reused else ""
    where = f"; records in {output}" if output else ""
    peak = "" if summary.peak_worker_rss_mb is None else \
        f" (peak memory of a worker {summary.peak_worker_rss_mb:.0f} MB)"
    lines.append(f"{summary.games} game(s): {counts or 'none'}{reused}; {summary.seconds:.1f} s"
                 f" on {summary.workers or 'Dask'} worker(s){peak}{where}")
    return lines


COMMANDS = [batch]
