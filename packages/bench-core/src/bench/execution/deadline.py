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

import signal
import threading
import time
from typing import Any


class Exceeded(BaseException):
    """The block ran past its deadline."""


def _expire(signum: int, frame: object) -> None:
    raise Exceeded


# The C functions under ``signal``: its wrappers convert every handler to and from an enum, which
# costs more than the rest of a fast evaluator's deadline (it is armed around every evaluation).
_raw: Any = getattr(signal, "_signal", signal)


class sync_deadline:  # a class, named like the function it replaced: ``with sync_deadline(s):``
    """Raise :class:`Exceeded` in the block if it runs longer than ``seconds``.

    A timer someone else armed (pytest-timeout, an application's alarm) is put back afterwards,
    less the time the block took; if it would fire first, it is left to fire as it was.
    """

    __slots__ = ("armed", "outer_delay", "outer_interval", "previous", "seconds", "started")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> None:
        seconds = self.seconds
        if seconds <= 0 or not _HAS_TIMER or threading.current_thread() is not threading.main_thread():
            return
        outer_delay, outer_interval = _raw.setitimer(_ITIMER_REAL, 0)
        if outer_delay and outer_delay <= seconds:
            _raw.setitimer(_ITIMER_REAL, outer_delay, outer_interval)
            return
        self.outer_delay, self.outer_interval = outer_delay, outer_interval
        self.started = time.monotonic()
        self.previous = _raw.signal(_SIGALRM, _expire)
        _raw.setitimer(_ITIMER_REAL, seconds)
        self.armed = True

    def __exit__(self, *exc: object) -> None:
        if not self.armed:
            return
        self.armed = False
        _raw.setitimer(_ITIMER_REAL, 0)
        _raw.signal(_SIGALRM, self.previous)
        if self.outer_delay:
            left = self.outer_delay - (time.monotonic() - self.started)
            _raw.setitimer(_ITIMER_REAL, max(left, 0.001), self.outer_interval)


_HAS_TIMER = hasattr(signal, "setitimer")
_ITIMER_REAL = getattr(signal, "ITIMER_REAL", 0)
_SIGALRM = int(getattr(signal, "SIGALRM", 0))
