"""The first calls to a provider with one key (RELIABILITY C14): one error for a refused key,
never one per task, and no call held back while a key is being proven.

A ``KeyGate`` starts shut: the first call (the leader) goes alone and its answer opens the gate
for the others. Where the key can be probed (``Route.probe``, the direct path), the gate opens at
once instead: the probe goes beside the first calls, and those calls are tracked until the key is
proven (a 2xx probe or a successful answer). The first refusal, the probe's or a call's, cuts the
tracked calls (they end in ``Refused``, then wait for the leader's answer) and shuts the gate, so
the run reports the leader's error once and the others stop. Once the leader has its answer the
gate is ``settled``: a later refusal (a follower's own 401, received before the leader's cut
reached it) still cuts the tracked calls, but no longer shuts the gate, since no answer is left
to open it again; the breaker, opened by the leader's refusal, stops those calls instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Refused(Exception):
    """A call cut in flight because another answer refused the key."""


class KeyGate:
    """The first calls to one provider with one key."""

    def __init__(self) -> None:
        self._open = asyncio.Event()
        #: The leader has its answer: a refusal no longer shuts the gate.
        self._settled = False
        #: A 2xx probe or a successful answer: calls are no longer tracked.
        self.proven = False
        self._flights: set[asyncio.Future[object]] = set()
        self._cut: set[asyncio.Future[object]] = set()

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    def open(self) -> None:
        """Let the other calls go (the leader's first answer came, or a probe goes beside it)."""
        self._open.set()

    def settle(self) -> None:
        """The leader's call ended (answered, failed or cancelled): open the gate for good."""
        self._settled = True
        self._open.set()

    async def wait(self) -> None:
        await self._open.wait()

    def prove(self) -> None:
        """The key was accepted: stop tracking calls."""
        self.proven = True
        self._flights.clear()
        self._open.set()

    def refuse(self) -> None:
        """The key was refused: cut the calls in flight and hold back new ones until the leader's
        own answer opens the gate again (after that answer, only the cut)."""
        if self.proven:
            return
        if not self._settled:
            self._open.clear()
        for flight in self._flights:
            if flight.cancel():
                self._cut.add(flight)
        self._flights.clear()

    async def send(self, call: Awaitable[T], timeout: float, leader: bool) -> T:
        """Await one attempt within ``timeout``; a follower's, sent before the key is proven, can
        be cut by ``refuse`` and then raises ``Refused``."""
        if leader or self.proven:
            return await asyncio.wait_for(call, timeout)
        flight: asyncio.Future[T] = asyncio.ensure_future(call)
        self._flights.add(flight)  # type: ignore[arg-type]
        try:
            return await asyncio.wait_for(flight, timeout)
        except asyncio.CancelledError:
            if flight in self._cut:
                raise Refused from None
            raise
        finally:
            self._flights.discard(flight)
            self._cut.discard(flight)
