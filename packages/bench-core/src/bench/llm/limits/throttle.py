"""Per-provider adaptive concurrency, per-model rate limits, and the circuit breaker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

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
        self.waiting = 0
        #: Counts since creation, read by a coordinated client to report what changed.
        self.successes = 0
        self.rate_limits = 0
        self._successes = 0
        self._last_cut = 0.0
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        self.waiting += 1
        try:
            async with self._changed:
                await self._changed.wait_for(lambda: self.in_use < self.limit)
                self.in_use += 1
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            async with self._changed:
                self.in_use -= 1
                self._changed.notify_all()

    def rate_limited(self) -> bool:
        """Note a 429; True when this starts an episode that cut the limit."""
        self.rate_limits += 1
        now = time.monotonic()
        cut = now - self._last_cut >= RATE_LIMIT_DEBOUNCE_S
        if cut:
            self.limit = max(1, self.limit // 2)
            self._last_cut = now
        self._successes = 0
        return cut

    async def succeeded(self) -> None:
        self.successes += 1
        self._successes += 1
        if self._successes >= GROW_AFTER_SUCCESSES and self.limit < self.maximum:
            self._successes = 0
            async with self._changed:
                self.limit += 1
                self._changed.notify_all()

    async def lease(self, cap: int, keep_cut: bool = False) -> None:
        """Make ``cap`` (a coordinator's lease) the maximum and the limit; with ``keep_cut``
        (a 429 the coordinator has not heard of yet) a lower limit stays."""
        async with self._changed:
            self.maximum = cap
            self.limit = min(self.limit, cap) if keep_cut else cap
            self._successes = 0
            self._changed.notify_all()

    @property
    def demand(self) -> int:
        """Calls holding or waiting for a slot."""
        return self.in_use + self.waiting


class Breaker:
    """Counts consecutive failures per provider; open means: start no more calls to it."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.failures: dict[str, int] = {}
        self.open: dict[str, str] = {}
        #: Counts since creation, read by a coordinated client to report what changed.
        self.resets: dict[str, int] = {}
        self.failed: dict[str, int] = {}

    def success(self, provider: str) -> None:
        self.failures[provider] = 0
        self.resets[provider] = self.resets.get(provider, 0) + 1

    def failure(self, provider: str, reason: str, fatal: bool = False) -> None:
        self.failed[provider] = self.failed.get(provider, 0) + 1
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
        self.model_slots: dict[str, AdaptiveLimit] = {}
        self.rpm: dict[str, Any] = {}
        self.tpm: dict[str, Any] = {}
        #: Per model, the suite's tpm over this client's lease of it (1 without a coordinator).
        self.tpm_scale: dict[str, float] = {}
        #: Calls inside ``model`` (waiting or in flight), per model with limits.
        self.model_demand: dict[str, int] = {}
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
        if limits.rpm and model not in self.rpm:
            self.rpm[model] = _per_minute(limits.rpm, spaced=True)
        if limits.tpm and model not in self.tpm:
            self.tpm[model] = _per_minute(limits.tpm)
        if limits.concurrency and model not in self.model_slots:
            self.model_slots[model] = AdaptiveLimit(limits.concurrency)
        self.model_demand[model] = self.model_demand.get(model, 0) + 1
        try:
            if model in self.rpm:
                await self.rpm[model].acquire()
            if model in self.tpm:
                tpm = self.tpm[model]
                # A lease of 1/k of the tpm: each token counts k times against the full rate.
                await tpm.acquire(min(estimated_tokens * self.tpm_scale.get(model, 1.0), tpm.max_rate))
            slot = self.model_slots.get(model)
            if slot is None:
                yield
                return
            async with slot.slot():
                yield
        finally:
            self.model_demand[model] -= 1

    async def lease_model(
        self, model: str, rpm: float | None, tpm: float | None, concurrency: int | None
    ) -> None:
        """Take a coordinator's lease of ``model``'s limits: the slot count at once; a new rpm
        limiter when the rpm share changed (calls already waiting finish on the old one; a new one
        lets at most one call through at once); the tpm limiter stays and tokens count more."""
        limits = self.settings.models.get(model)
        if rpm and (model not in self.rpm or self.rpm[model].time_period != 60 / rpm):
            self.rpm[model] = _per_minute(rpm, spaced=True)
        if tpm and limits is not None and limits.tpm:
            self.tpm.setdefault(model, _per_minute(limits.tpm))
            self.tpm_scale[model] = limits.tpm / tpm
        if concurrency:
            slot = self.model_slots.setdefault(model, AdaptiveLimit(concurrency))
            await slot.lease(concurrency)


def _per_minute(rate: float, spaced: bool = False) -> Any:
    """An aiolimiter for ``rate`` per minute; ``spaced``: one at a time every 60/rate s, not a
    burst of ``rate`` at the start of each minute."""
    from aiolimiter import AsyncLimiter

    return AsyncLimiter(1, 60 / rate) if spaced else AsyncLimiter(rate, 60)
