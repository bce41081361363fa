"""A client's side of shared limits: report usage to a coordinator about once a second and set
the local limits, breaker and budget from the leases it answers (bench.llm.limits.coordination).

Reports carry the client's counts since it began; the coordinator takes the differences, so a
sync that times out after the coordinator took it is not counted twice by the next one."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field

from bench.llm.accounting import Budget, Totals
from bench.llm.limits.coordination import Coordinator, Deltas, Leases, ProviderDelta
from bench.llm.limits.throttle import Limits
from bench.vocabulary.errors import RunStopped


@dataclass
class _Marks:
    """The client's counters at one report."""

    totals: Totals = field(default_factory=Totals)
    providers: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    """provider -> (successes, 429s, breaker resets, breaker failures)"""


class LeaseHolder:
    """Syncs one client's ``Limits``, ``Budget`` and totals with a coordinator."""

    def __init__(
        self,
        coordinator: Coordinator,
        limits: Limits,
        budget: Budget,
        *,
        worker_id: str | None = None,
        interval: float = 1.0,
    ) -> None:
        self.coordinator = coordinator
        self.limits = limits
        self.budget = budget
        self.worker_id = worker_id or uuid.uuid4().hex[:12]
        #: This client's reports (``Deltas.life``): a worker restarted with the same id is another.
        self.life = uuid.uuid4().hex[:12]
        self.interval = interval
        self.leases: Leases | None = None
        #: Why the coordinator stopped the run, once it has.
        self.stopped: str | None = None
        self._acked = _Marks()
        self._task: asyncio.Task[None] | None = None
        self._first: asyncio.Future[None] | None = None
        self._stopping = False
        self._even: set[str] = set()

    async def ready(self, provider: str) -> None:
        """Before a call: the first sync done (then one every ``interval`` in the background), and
        a provider no lease covers yet capped at an even share until the next sync."""
        if self._first is None:
            self._first = asyncio.ensure_future(self._begin())
        await asyncio.shield(self._first)
        if self.leases is not None and provider not in self.leases.providers and provider not in self._even:
            self._even.add(provider)
            even = max(1, self.limits.settings.concurrency // self.leases.workers)
            await self.limits.for_provider(provider).lease(even)

    def check(self, provider: str, purpose: str) -> None:
        """Raise RunStopped when the coordinator stopped the run, a budget is reached or the
        provider's breaker is open: asked again once a call has its slot, since a call may wait
        for one through several syncs."""
        if self.stopped:
            raise RunStopped(self.stopped)
        reached = self.budget.exhausted(purpose)
        if reached:
            raise RunStopped(f"budget {reached} reached")
        if provider in self.limits.breaker.open:
            raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}")

    async def _begin(self) -> None:
        await self.sync()
        self._task = asyncio.ensure_future(self._every_interval())

    async def stop(self) -> None:
        """Stop syncing and report what is left, so the coordinator's totals are complete."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._stopping = False
        if self._first is not None:
            self._first = None
            await self.sync()
        elif self.budget.totals.scalars() != self._acked.totals:
            await self.sync()  # answers from the cache alone never start the syncs: count them too

    def cancel(self) -> None:
        """Stop syncing without a last report (outside the event loop)."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _every_interval(self) -> None:
        # The flag, not only the cancel, ends the loop: Python 3.11's wait_for can swallow a
        # cancel that arrives as the coordinator answers.
        while not self._stopping:
            await asyncio.sleep(self.interval)
            if not self._stopping:
                await self.sync()

    async def sync(self) -> None:
        """Report the counts so far; apply the coordinator's leases. A coordinator that fails or
        takes longer than two intervals to answer gets the counts again at the next sync (it
        counts each once whether or not it took this one), and each provider's limit falls back
        to ``limit // workers`` meanwhile."""
        marks = self._marks()
        deltas = self._report(marks)
        try:
            leases = await asyncio.wait_for(
                self.coordinator.sync(self.worker_id, deltas), max(2 * self.interval, 0.1)
            )
        except Exception:  # unreachable, restarting or broken: carry on with a fair share
            await self._fall_back()
            return
        self._acked = marks
        await self._apply(leases, marks)

    def _marks(self) -> _Marks:
        limits, breaker = self.limits, self.limits.breaker
        names = set(limits.adaptive) | set(breaker.failures) | set(breaker.open)
        providers = {}
        for name in names:
            adaptive = limits.adaptive.get(name)
            providers[name] = (
                adaptive.successes if adaptive else 0,
                adaptive.rate_limits if adaptive else 0,
                breaker.resets.get(name, 0),
                breaker.failed.get(name, 0),
            )
        return _Marks(self.budget.totals.scalars(), providers)

    def _report(self, marks: _Marks) -> Deltas:
        providers = {}
        for name, (successes, limited, resets, failed) in marks.providers.items():
            adaptive = self.limits.adaptive.get(name)
            providers[name] = ProviderDelta(
                successes=successes,
                rate_limited=limited,
                failures=failed,
                consecutive=self.limits.breaker.failures.get(name, 0),
                resets=resets,
                opened=self.limits.breaker.open.get(name),
                demand=adaptive.demand if adaptive else 0,
                in_use=adaptive.in_use if adaptive else 0,
            )
        models = dict(self.limits.model_demand)
        return Deltas(providers, models, marks.totals, self.life)

    async def _apply(self, leases: Leases, marks: _Marks) -> None:
        self.leases = leases
        self._even.clear()
        for name, cap in leases.providers.items():
            adaptive = self.limits.for_provider(name)
            unreported_429 = adaptive.rate_limits > marks.providers.get(name, (0, 0, 0, 0))[1]
            await adaptive.lease(cap, keep_cut=unreported_429)
        for model, lease in leases.models.items():
            await self.limits.lease_model(model, lease.rpm, lease.tpm, lease.concurrency)
        for name, reason in leases.open.items():
            self.limits.breaker.open.setdefault(name, reason)
        if leases.budget and not self.budget.reached:
            self.budget.reached = leases.budget
        self.budget.elsewhere = leases.totals.minus(marks.totals)
        self.stopped = self.stopped or leases.stop

    async def _fall_back(self) -> None:
        if self.leases is None:
            return  # never heard from the coordinator: the suite's own limits stay
        for name, limit in self.leases.limits.items():
            await self.limits.for_provider(name).lease(max(1, limit // self.leases.workers), keep_cut=True)
