"""The response cache as the LLM client sees it: the local SQLite cache (L1), then the shared one
(L2, when set), then the model; and one call per key in flight within a process.

A lookup reads L1, then L2 (a hit there fills L1). A model's answer goes to L2 first, then L1, both
first-writer-wins, and the caller uses what was stored: racing tasks and workers end on one answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bench.llm.cache.local import ResponseCache
from bench.llm.cache.shared import SharedCache


class CacheLayers:
    """get/put through L1 and L2, and ``flight``: a request waits while one with its key is in flight."""

    def __init__(self, local: ResponseCache | None, shared: SharedCache | None = None) -> None:
        self.local = local
        self.shared = shared
        self._flights: dict[str, asyncio.Event] = {}

    @contextlib.asynccontextmanager
    async def flight(self, key: str) -> AsyncIterator[None]:
        """Hold ``key`` while the block runs; a second holder waits until the first is done, then
        finds its answer in the cache (or, when it was not stored, makes its own call)."""
        while (running := self._flights.get(key)) is not None:
            await running.wait()
        done = self._flights[key] = asyncio.Event()
        try:
            yield
        finally:
            del self._flights[key]
            done.set()

    async def get(self, key: str) -> dict[str, Any] | None:
        hit = self.local.get(key) if self.local is not None else None
        if hit is None and self.shared is not None:
            hit = await asyncio.to_thread(self.shared.get, key)
            if hit is not None and self.local is not None:
                hit = self.local.put(key, hit)
        return hit

    async def put(self, key: str, value: dict[str, Any]) -> dict[str, Any]:
        """Store ``value`` where no answer is stored yet; the answer to use (``value`` itself when it won)."""
        stored = value
        if self.shared is not None:
            stored = await asyncio.to_thread(self.shared.put, key, value)
        if self.local is not None:
            stored = self.local.put(key, stored)
        return stored

    def empty(self) -> bool:
        """Whether every lookup would miss: the local level holds nothing and there is no shared
        one (a shared level is never listed: that can be slow and costly on object storage)."""
        return self.shared is None and (self.local is None or self.local.empty())

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
