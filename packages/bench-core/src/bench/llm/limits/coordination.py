"""LLM limits, breaker and budgets held once for many clients, handed out as leases.

A ``LeaseBook`` is the coordinator's state: per provider the global AIMD concurrency limit, per
model the rpm/tpm/concurrency limits, the breaker's consecutive failures, the run's spend against
its budgets, and a stop flag. Each client (a worker) calls ``sync`` about once a second with what
happened since its last sync and gets back its ``Leases``: its share of every limit, weighted by
its demand, and never more than the others' last leases leave, so the leases together stay
within the limit plus one per worker. There is no call per request (docs/llm.md, "Shared
limits"). Everything here is synchronous and its inputs and outputs are plain dataclasses, so a
Ray actor can wrap it.

A worker reports its counts since it began, not since its last report: the book keeps each
worker's last report and takes the difference. So a report the book took but whose answer the
worker never saw (a timed-out sync) is not counted twice when the next one repeats it, and a
restarted coordinator's empty book learns every worker's whole spend at their next syncs. A
worker restarted under the same id counts from zero again: its reports name their ``life``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from bench.llm.accounting import Budget, Totals
from bench.llm.limits.throttle import GROW_AFTER_SUCCESSES, RATE_LIMIT_DEBOUNCE_S
from bench.llm.settings import JudgeLimits, LLMSettings, RuntimeLimits

#: A worker not heard from for this long no longer counts when limits are shared out.
FORGET_AFTER_S = 30.0


@dataclass
class ProviderDelta:
    """What one worker has seen of one provider: counts since the worker began, and its state now."""

    successes: int = 0
    rate_limited: int = 0
    """429 answers."""
    failures: int = 0
    """Calls that failed for good (the breaker counts them)."""
    consecutive: int = 0
    """The worker's own consecutive failures now (after its last success)."""
    resets: int = 0
    """Times the worker's breaker saw a success after a failure."""
    opened: str | None = None
    """The reason the worker's breaker opened, when it did (a refused key, a quota error)."""
    demand: int = 0
    """Calls in flight or waiting for a slot now."""
    in_use: int = 0
    """Calls in flight now."""


@dataclass
class Deltas:
    """A worker's report: per provider, per model demand, and its spend (counts since it began:
    the book takes the differences)."""

    providers: dict[str, ProviderDelta] = field(default_factory=dict)
    models: dict[str, int] = field(default_factory=dict)
    """Calls in flight or waiting, per model that has limits."""
    spend: Totals = field(default_factory=Totals)
    life: str = ""
    """Which life of the worker reports: one Ray restarts keeps its id but counts from zero again."""


@dataclass
class ModelLease:
    """A worker's share of one model's limits (None: the model has no such limit)."""

    rpm: float | None = None
    tpm: float | None = None
    concurrency: int | None = None


@dataclass
class Leases:
    """The coordinator's answer to a sync."""

    providers: dict[str, int]
    """This worker's concurrency per provider."""
    limits: dict[str, int]
    """The global AIMD limit per provider (a worker that loses the coordinator falls back to
    ``limit // workers``)."""
    models: dict[str, ModelLease]
    open: dict[str, str]
    """Providers whose breaker is open, with the reason."""
    budget: str | None
    """The budget reached, e.g. ``runtime_limits.max_cost_usd``."""
    stop: str | None
    totals: Totals
    """The run's spend over all workers, this one's synced part included."""
    workers: int


class Coordinator(Protocol):
    """Anything a client can sync with: a ``LocalCoordinator``, or a Ray actor's handle wrapped."""

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases: ...


def share(total: float, weight: int, weights: int) -> float:
    """``total`` x ``weight`` / ``weights`` (the caller rounds and floors)."""
    return total * weight / weights


class LeaseBook:
    """The shared state behind leases; pure and synchronous (one coordinator owns one)."""

    def __init__(
        self,
        settings: LLMSettings | None = None,
        runtime_limits: RuntimeLimits | None = None,
        judge_limits: JudgeLimits | None = None,
        *,
        workers: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or LLMSettings()
        self.clock = clock
        #: Workers expected (``--workers N``): they share limits before they first sync.
        self.expected = workers
        self.limits: dict[str, int] = {}
        self.totals = Totals()
        self.budget = Budget(runtime_limits or RuntimeLimits(), judge_limits or JudgeLimits(), self.totals)
        self.consecutive: dict[str, int] = {}
        self.open: dict[str, str] = {}
        self.stopped: str | None = None
        self._successes: dict[str, int] = {}
        self._last_cut: dict[str, float] = {}
        self._seen: dict[str, float] = {}
        self._demand: dict[str, dict[str, int]] = {}  # worker -> provider -> demand
        self._model_demand: dict[str, dict[str, int]] = {}  # worker -> model -> demand
        self._in_use: dict[str, dict[str, int]] = {}  # worker -> provider -> calls in flight
        self._granted: dict[str, dict[str, int]] = {}  # worker -> provider -> its last lease
        self._reported: dict[str, Deltas] = {}  # worker -> its last report (counts since it began)

    def stop(self, reason: str) -> None:
        """Stop every worker at its next sync."""
        self.stopped = self.stopped or reason

    def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        """Take a worker's deltas; return its leases."""
        now = self.clock()
        self._seen[worker_id] = now
        before = self._reported.get(worker_id)
        if before is None or before.life != deltas.life:  # a new worker, or one restarted
            before = Deltas()
        self._reported[worker_id] = deltas
        for name, delta in deltas.providers.items():
            self._provider(name, _since(delta, before.providers.get(name)), now)
        self._demand[worker_id] = {p: d.demand for p, d in deltas.providers.items()}
        self._in_use[worker_id] = {p: d.in_use for p, d in deltas.providers.items()}
        self._model_demand[worker_id] = dict(deltas.models)
        self.totals.add(deltas.spend.minus(before.spend))
        self.budget.exhausted("judge")
        live = [w for w, at in self._seen.items() if now - at < FORGET_AFTER_S]
        workers = max(len(live), self.expected)
        spare = workers - len(live)  # expected workers not heard from yet weigh 1 each
        providers = {}
        for name, limit in self.limits.items():
            weights = spare + sum(max(1, self._demand[w].get(name, 0)) for w in live)
            mine = max(1, self._demand[worker_id].get(name, 0))
            # No more than the others leave: they may hold their last leases until they sync.
            held = sum(self._held(w, name) for w in live if w != worker_id)
            fair = int(share(limit, mine, weights))
            providers[name] = max(1, min(fair, limit - held))
        self._granted[worker_id] = providers
        models = {}
        for model, limits in self.settings.models.items():
            weights = spare + sum(max(1, self._model_demand[w].get(model, 0)) for w in live)
            mine = max(1, self._model_demand[worker_id].get(model, 0))
            models[model] = ModelLease(
                rpm=share(limits.rpm, mine, weights) if limits.rpm else None,
                tpm=share(limits.tpm, mine, weights) if limits.tpm else None,
                concurrency=max(1, int(share(limits.concurrency, mine, weights)))
                if limits.concurrency
                else None,
            )
        return Leases(
            providers=providers,
            limits=dict(self.limits),
            models=models,
            open=dict(self.open),
            budget=self.budget.reached,
            stop=self.stopped,
            totals=self.totals.scalars(),
            workers=workers,
        )

    def _held(self, worker: str, provider: str) -> int:
        """What ``worker`` may have in flight: its last lease, or more while a cut lease drains."""
        return max(self._granted.get(worker, {}).get(provider, 0), self._in_use[worker].get(provider, 0))

    def _provider(self, name: str, delta: ProviderDelta, now: float) -> None:
        """AdaptiveLimit's rules on batched counts: a period with a 429 cuts (once per episode)
        and its successes do not count towards growth; every GROW_AFTER_SUCCESSES successes
        otherwise add one, up to ``llm.concurrency``."""
        maximum = self.settings.concurrency
        limit = self.limits.setdefault(name, maximum)
        if delta.rate_limited:
            if now - self._last_cut.get(name, -RATE_LIMIT_DEBOUNCE_S) >= RATE_LIMIT_DEBOUNCE_S:
                limit = max(1, limit // 2)
                self._last_cut[name] = now
            self._successes[name] = 0
        else:
            count = self._successes.get(name, 0) + delta.successes
            grow = min(count // GROW_AFTER_SUCCESSES, maximum - limit)
            limit += max(0, grow)
            self._successes[name] = count % GROW_AFTER_SUCCESSES if limit < maximum else count
        self.limits[name] = limit
        # The breaker: consecutive failures over all workers. A success in the period resets the
        # count to the failures after it (which the worker's own count is).
        if delta.resets:
            self.consecutive[name] = delta.consecutive
        else:
            self.consecutive[name] = self.consecutive.get(name, 0) + delta.failures
        count = self.consecutive[name]
        if delta.opened and name not in self.open:
            self.open[name] = delta.opened
        elif count >= self.settings.max_consecutive_failures and name not in self.open:
            self.open[name] = f"{count} consecutive failed calls to {name} (over all workers)"


def _since(now: ProviderDelta, before: ProviderDelta | None) -> ProviderDelta:
    """A worker's provider report as counts since its previous report (state fields as they are)."""
    if before is None:
        return now
    return replace(
        now,
        successes=now.successes - before.successes,
        rate_limited=now.rate_limited - before.rate_limited,
        failures=now.failures - before.failures,
        resets=now.resets - before.resets,
    )


class LocalCoordinator:
    """A LeaseBook behind the async ``sync`` a client calls: for tests and in-process workers."""

    def __init__(self, book: LeaseBook) -> None:
        self.book = book
        self.syncs = 0

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        self.syncs += 1
        return self.book.sync(worker_id, deltas)
