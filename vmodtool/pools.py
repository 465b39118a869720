"""The process pools vmodtool renders and runs batches with.

A pool's workers are forked from the calling process (Linux's default:
they start at once and inherit what it has loaded) unless that process has
other threads — a program that calls the library from a threaded server,
a Dask worker, a test runner — where a fork may copy a lock another thread
holds and the worker hangs (Python 3.12 warns of it); there the workers are
started by a fork server instead, which has no threads of its own.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext

__all__ = ["pool_context", "process_pool"]


def _threads() -> int:
    """This process's threads as the system counts them (on Linux, those
    started without :mod:`threading` too, as execnet's are), else the
    :mod:`threading` count."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def pool_context() -> BaseContext:
    """The start method for a pool made now: the platform's default, or the
    fork server when this process has threads and the default would fork."""
    context = multiprocessing.get_context()
    if (context.get_start_method() == "fork" and _threads() > 1
            and "forkserver" in multiprocessing.get_all_start_methods()):
        return multiprocessing.get_context("forkserver")
    return context


def process_pool(max_workers: int) -> ProcessPoolExecutor:
    """A :class:`ProcessPoolExecutor` of ``max_workers`` started the way
    :func:`pool_context` says."""
    return ProcessPoolExecutor(max_workers=max_workers, mp_context=pool_context())
