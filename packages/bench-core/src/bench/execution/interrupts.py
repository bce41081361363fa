"""Ctrl-C and SIGTERM during a run: stop cleanly the first time, exit at once the second."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from typing import Any

from bench.execution import killable
from bench.executor import Executor

#: After a first Ctrl-C, how long the event loop may stay unresponsive before bench exits at once.
STUCK_AFTER_S = 2.0


class StopOnSignal:
    """First SIGINT/SIGTERM: stop cleanly and record what was in flight. Second: exit at once.

    A real signal handler, not ``loop.add_signal_handler``: that one runs only when the event loop
    polls, and a loop busy with CPU-bound work (or blocked in a plugin) may not poll for minutes.
    This one runs between two Python instructions wherever the main thread is: it sets the stop
    flag and cancels the tasks in flight there (as ``asyncio.run``'s own SIGINT handler cancels
    its main task), then wakes the loop. A watchdog exits at once if the loop cannot answer within
    ``STUCK_AFTER_S`` (a task stuck in code no cancellation reaches).
    """

    def __init__(self, runner: Executor, enabled: bool, run_id: str = "") -> None:
        self.runner = runner
        self.enabled = enabled
        self.run_id = run_id
        self.previous: dict[int, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def _handle(self, signum: int, frame: object) -> None:
        if self.runner.interrupted:
            killable.kill_now()
            os._exit(130)  # results are appended whole (one write per line): nothing is torn
        self.runner.interrupt()
        if self.loop is not None:
            self.loop.call_soon_threadsafe(lambda: None)
            threading.Thread(target=self._watch, args=(self.loop,), daemon=True).start()

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Exit at once if the loop cannot even run a callback: a task is stuck in plain Python code
        (a plugin's endless loop) that no cancellation reaches (RELIABILITY N11)."""
        answered = threading.Event()
        try:
            loop.call_soon_threadsafe(answered.set)
        except RuntimeError:  # the loop is closed: the run has ended
            return
        if answered.wait(STUCK_AFTER_S):
            return
        sys.stderr.write(
            f"bench: the run did not stop within {STUCK_AFTER_S:g} s (a task is stuck in code that cannot "
            "be interrupted); exiting now: the results written so far are kept, finish the run with "
            f"--resume {self.run_id}\n"
        )
        sys.stderr.flush()
        killable.kill_now()
        os._exit(130)

    def __enter__(self) -> None:
        if not self.enabled:
            return
        self.loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, OSError):  # not the main thread: the caller's job
                self.previous[sig] = signal.signal(sig, self._handle)

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)
