"""A deadline for synchronous code on the main thread (RELIABILITY D13).

No asyncio timeout can stop plain Python code that never yields: an evaluator's endless loop
would hang its run. ``sync_deadline`` arms a real-time interval timer; when it fires, the
``SIGALRM`` handler raises :class:`Exceeded` inside that code, between two of its bytecodes.
``Exceeded`` is a ``BaseException``, so a plugin's ``except Exception`` cannot swallow it. Off the
main thread, or where the platform has no interval timer, the block runs without a deadline.
On Python 3.10 a loop whose body begins with ``try:`` runs no signal handler at all (CPython skips
them on a jump to a ``try``), so neither this deadline nor Ctrl-C stops that one loop there; the
plugin should isolate such work (``isolate_above``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator


class Exceeded(BaseException):
    """The block ran past its deadline."""


def _expire(signum: int, frame: object) -> None:
    raise Exceeded


@contextlib.contextmanager
def sync_deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`Exceeded` in the block if it runs longer than ``seconds``.

    A timer someone else armed (pytest-timeout, an application's alarm) is put back afterwards,
    less the time the block took; if it would fire first, it is left to fire as it was.
    """
    on_main = threading.current_thread() is threading.main_thread()
    if seconds <= 0 or not on_main or not hasattr(signal, "setitimer"):
        yield
        return
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, 0)
    if outer_delay and outer_delay <= seconds:
        signal.setitimer(signal.ITIMER_REAL, outer_delay, outer_interval)
        yield
        return
    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            left = outer_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), outer_interval)
