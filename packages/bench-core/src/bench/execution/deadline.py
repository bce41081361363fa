"""A deadline for synchronous code on the main thread (RELIABILITY D13).

No asyncio timeout can stop plain Python code that never yields: an evaluator's endless loop
would hang its run. ``sync_deadline`` arms a real-time interval timer; when it fires, the
``SIGALRM`` handler raises :class:`Exceeded` inside that code, between two of its bytecodes.
``Exceeded`` is a ``BaseException``, so a plugin's ``except Exception`` cannot swallow it. Off the
main thread, or where the platform has no interval timer, the block runs without a deadline.
On Python 3.10 a loop whose body begins with ``try:`` runs no signal handler at all (CPython skips
them on a jump to a ``try``), so neither this deadline nor Ctrl-C stops that one loop there; the
plugin should isolate such work (``isolate_above``).

On an event loop, the blocks of one loop step (a worker running fast sync tasks evaluates
hundreds of them before it yields) share one armed timer: the first block installs the handler
and arms the timer, later ones only note their own end, and the step's end puts everything
back. A block whose end is still ahead when the shared timer fires re-arms it for the rest, so
each block keeps its own full deadline.
"""

from __future__ import annotations

import asyncio
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


class _Shared:
    """The timer the blocks of one event-loop step share (at most one step holds it)."""

    __slots__ = ("end", "fires_at", "open", "previous")

    def __init__(self) -> None:
        self.open = False
        #: The running block's end (``time.monotonic``); None between blocks.
        self.end: float | None = None
        #: When the armed timer fires; None when it is not armed.
        self.fires_at: float | None = None
        self.previous: Any = None

    def take(self, loop: asyncio.AbstractEventLoop) -> None:
        """Install the handler for this step, unless a timer someone else armed is running
        (then each block saves and restores it on its own)."""
        outer_delay, outer_interval = _raw.setitimer(_ITIMER_REAL, 0)
        if outer_delay:
            _raw.setitimer(_ITIMER_REAL, outer_delay, outer_interval)
            return
        self.previous = _raw.signal(_SIGALRM, self._fire)
        self.open = True
        loop.call_soon(self.release)  # the step's end: nothing armed survives a yield

    def enter(self, seconds: float) -> float | None:
        """Start a block of ``seconds``; returns the end it replaces (a block within a block)."""
        outer = self.end
        end = time.monotonic() + seconds
        if outer is not None and outer < end:
            end = outer
        self.end = end
        if self.fires_at is None or self.fires_at > end:
            _raw.setitimer(_ITIMER_REAL, max(end - time.monotonic(), 1e-6))
            self.fires_at = end
        return outer

    def _fire(self, signum: int, frame: object) -> None:
        end = self.end
        if end is None:
            self.fires_at = None  # between blocks: the next one arms again
            return
        left = end - time.monotonic()
        if left <= 0:
            self.fires_at = None
            raise Exceeded
        _raw.setitimer(_ITIMER_REAL, left)  # armed for an earlier block: this one's rest
        self.fires_at = end

    def release(self) -> None:
        """Disarm and put back the handler found (the step ended, or the runner is done)."""
        if not self.open:
            return
        self.open = False
        self.end = self.fires_at = None
        _raw.setitimer(_ITIMER_REAL, 0)
        _raw.signal(_SIGALRM, self.previous)
        self.previous = None


_shared = _Shared()
#: Put back the SIGALRM handler and disarm the timer shared by this step's blocks, if any.
release_shared = _shared.release


class sync_deadline:  # a class, named like the function it replaced: ``with sync_deadline(s):``
    """Raise :class:`Exceeded` in the block if it runs longer than ``seconds``.

    A timer someone else armed (pytest-timeout, an application's alarm) is put back afterwards,
    less the time the block took; if it would fire first, it is left to fire as it was.
    """

    __slots__ = ("armed", "outer_delay", "outer_interval", "previous", "seconds", "shared", "started")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False
        self.shared = False

    def __enter__(self) -> None:
        seconds = self.seconds
        if seconds <= 0 or not _HAS_TIMER or threading.get_ident() != _MAIN:
            return
        if not _shared.open:
            loop = asyncio.events._get_running_loop()
            if loop is not None:
                _shared.take(loop)
        if _shared.open:
            self.previous = _shared.enter(seconds)
            self.shared = True
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
        if self.shared:
            self.shared = False
            _shared.end = self.previous
            return
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
_MAIN = threading.main_thread().ident
