"""Per-provider adaptive concurrency, per-model rate limits, and the circuit breaker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bench.llm.settings import LLMSettings

RATE_LIMIT_DEBOUNCE_S = 5.0
GROW_AFTER_SUCCESSES = 8


class AdaptiveLimit:
    """A concurrency limit that halves on a rate limit (once per episode) and grows by one after
    a run of successes, back up to its maximum (AIMD, as promptfoo does)."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self.limit = maximum
        self.in_use = 0
        self._successes = 0
        self._last_cut = 0.0
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_use < self.limit)
            self.in_use += 1
        try:
            yield
        finally:
            async with self._changed:
                self.in_use -= 1
                self._changed.notify_all()

    def rate_limited(self) -> bool:
        """Note a 429; True when this starts an episode that cut the limit."""
        now = time.monotonic()
        cut = now - self._last_cut >= RATE_LIMIT_DEBOUNCE_S
        if cut:
            self.limit = max(1, self.limit // 2)
            self._last_cut = now
        self._successes = 0
        return cut

    async def succeeded(self) -> None:
        self._successes += 1
        if self._successes >= GROW_AFTER_SUCCESSES and self.limit < self.maximum:
            self._successes = 0
            async with self._changed:
                self.limit += 1
                self._changed.notify_all()


class Breaker:
    """Counts consecutive failures per provider; open means: start no more calls to it."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.failures: dict[str, int] = {}
        self.open: dict[str, str] = {}

    def success(self, provider: str) -> None:
        self.failures[provider] = 0

    def failure(self, provider: str, reason: str, fatal: bool = False) -> None:
        count = self.failures.get(provider, 0) + 1
        self.failures[provider] = count
        if fatal:
            self.open[provider] = reason
        elif count >= self.threshold:
            self.open[provider] = f"{count} consecutive failed calls to {provider} (last: {reason})"


class Limits:
    """All the limiters of one run, created on first use per provider and model."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.adaptive: dict[str, AdaptiveLimit] = {}
        self.model_slots: dict[str, asyncio.Semaphore] = {}
        self.rpm: dict[str, object] = {}
        self.tpm: dict[str, object] = {}
        self.breaker = Breaker(settings.max_consecutive_failures)

    def for_provider(self, provider: str) -> AdaptiveLimit:
        if provider not in self.adaptive:
            self.adaptive[provider] = AdaptiveLimit(self.settings.concurrency)
        return self.adaptive[provider]

    @asynccontextmanager
    async def model(self, model: str, estimated_tokens: int) -> AsyncIterator[None]:
        """Hold the model's own concurrency slot and pass its rpm/tpm limiters."""
        limits = self.settings.models.get(model)
        if limits is None:
            yield
            return
        from aiolimiter import AsyncLimiter

        if limits.rpm and model not in self.rpm:
            # Evenly spaced (one per 60/rpm s), not a burst of rpm at the start of each minute.
            self.rpm[model] = AsyncLimiter(1, 60 / limits.rpm)
        if limits.tpm and model not in self.tpm:
            self.tpm[model] = AsyncLimiter(limits.tpm, 60)
        if limits.concurrency and model not in self.model_slots:
            self.model_slots[model] = asyncio.Semaphore(limits.concurrency)
        if model in self.rpm:
            await self.rpm[model].acquire()  # type: ignore[attr-defined]
        if model in self.tpm:
            await self.tpm[model].acquire(min(estimated_tokens, limits.tpm or estimated_tokens))  # type: ignore[attr-defined]
        slot = self.model_slots.get(model)
        if slot is None:
            yield
            return
        async with slot:
            yield
