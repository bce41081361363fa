"""Worker processes for synchronous work that may run too long (RELIABILITY D13, N06).

Neither a thread nor an asyncio timeout can stop plain Python code, and while it runs on the
event loop no signal is handled. Work sent here runs in a ``pebble`` process pool instead: a
deadline or a cancellation (an interrupted run) kills the worker process that runs it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from bench.workspace import network_guard

T = TypeVar("T")

_pool: Any = None
#: How many worker processes the pool starts (at its first use): the CPU count or fewer.
_size = os.cpu_count() or 1


def set_size(tasks_in_flight: int) -> None:
    """Start no more worker processes than there can be tasks in flight (``-j``)."""
    global _size
    _size = max(1, min(os.cpu_count() or 1, tasks_in_flight))


def _get_pool() -> Any:
    global _pool
    if _pool is None or not _pool.active:
        # Imported here, not with this module (~4 ms a run that sends nothing here would spend);
        # ctypes before the fork, so each worker has it (``_die_with_parent``).
        import ctypes  # noqa: F401
        import multiprocessing

        from pebble import ProcessPool

        # fork: the worker inherits every loaded plugin, including ones no fresh process could import.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        _pool = ProcessPool(
            max_workers=_size,
            initializer=_die_with_parent,
            initargs=(os.getpid(),),
            context=multiprocessing.get_context(method),
        )
    return _pool


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """In a worker: be killed when bench dies, even by SIGKILL, rather than run on (Linux); offline
    when the run is (a forked worker inherits the guard, a spawned one reads the environment)."""
    network_guard.install_from_env()
    if sys.platform.startswith("linux"):
        import ctypes  # loaded before the fork: already in sys.modules

        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # bench died before the line above
        os._exit(1)


async def run_killable(function: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
    """``function(*args)`` in a worker process; past ``timeout`` seconds, or when the awaiting
    task is cancelled, the worker is killed. Raises ``TimeoutError`` (``asyncio.TimeoutError``) on
    the deadline. ``function`` and its arguments must be picklable."""
    future = _get_pool().schedule(function, args=args, timeout=timeout)
    try:
        return await asyncio.wrap_future(future)  # cancelling the wrapper cancels (kills) the work
    except concurrent.futures.TimeoutError:
        raise asyncio.TimeoutError from None


def shutdown() -> None:
    """Stop the worker processes (at the end of a run); work still running is killed."""
    global _pool
    if _pool is not None:
        _pool.stop()
        _pool.join()
        _pool = None


def kill_now() -> None:
    """Kill every worker process at once (before an immediate exit, no waiting)."""
    # Called from a signal handler: it imports nothing (a process that never imported
    # multiprocessing has no worker to kill), and never stops the exit.
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    with contextlib.suppress(Exception):
        for child in multiprocessing.active_children():
            child.kill()
