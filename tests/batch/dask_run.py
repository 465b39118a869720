"""Run a batch on a Dask ``LocalCluster`` of two worker processes on the
loopback, killing one worker mid-run; run by ``test_batch.py`` in a process
of its own, so that the cluster's threads never share a process with the
suite's later forks.

    python -m tests.batch.dask_run ARCHIVE OUT.jsonl SENT.jsonl
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from vmodtool.batch import COMMANDS, Game, Options, games_from, run_batch


def games_of(archive: Path) -> list[Game]:
    """The archive's games twice over (enough for a kill to land mid-run)."""
    games = games_from([archive], COMMANDS["check-game"]) * 2
    return [Game(f"{g.name}/{i}", g.files, g.module, g.scenario) for i, g in enumerate(games)]


def main(archive: Path, out: Path, sent: Path) -> None:
    import distributed

    games = games_of(archive)
    options = Options(command="check-game")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=50) as cluster:
        pids = [nanny.pid for nanny in cluster.workers.values()]       # the worker processes
        killed: list[int] = []

        def kill_one(progress) -> None:
            if progress.done == 2 and not killed:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        summary = run_batch(games, options, output=out, dask=cluster.scheduler_address, on_progress=kill_one)
        run_batch(games[:4], options, output=sent, dask=cluster.scheduler_address, send_files=True)
    print(json.dumps({"workers": len(pids), "killed": killed, "games": summary.games}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
