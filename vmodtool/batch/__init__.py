"""Whole archives of games: every game of a folder tree or a manifest run by
one command (audit, check-game, replay, lint, inspect), on all local cores
or on a Dask cluster, each game exactly as the command runs it alone.

- :mod:`vmodtool.batch.games` — finding the games (folders, patterns, CSV or
  YAML manifests);
- :mod:`vmodtool.batch.tasks` — one game run as its command runs it, and the
  content key that lets a re-run skip it;
- :mod:`vmodtool.batch.runner` — the local process pool or the Dask client,
  resumable JSON Lines, progress and the summary.
"""

from vmodtool.batch.games import Game, ManifestError, find_games, games_from, read_manifest
from vmodtool.batch.runner import BatchProgress, BatchSummary, cpu_count, run_batch
from vmodtool.batch.tasks import COMMANDS, Options, Task, run_task, task_key

__all__ = ["Game", "ManifestError", "find_games", "games_from", "read_manifest", "BatchProgress",
           "BatchSummary", "run_batch", "cpu_count", "COMMANDS", "Options", "Task", "run_task", "task_key"]
