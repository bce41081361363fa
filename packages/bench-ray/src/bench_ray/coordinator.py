"""The run's limits, breaker and budgets on a Ray cluster: one ``LeaseBook`` in one actor.

The driver starts ``LimitsActor`` in ``open`` (no CPU, async, restarted by Ray if its process
dies) and kills it in ``close``. Each worker's LLM client syncs with it about once a second
through ``ActorCoordinator``. A restarted actor starts a new book, which learns each worker's
spend at its next sync (reports count since the worker began); while it is away each worker
falls back to ``limit // workers`` (bench.llm.limits.leasing).
"""

from __future__ import annotations

from typing import Any

from bench.distributed import Deltas, LeaseBook, Leases, Plan


class LimitsActor:
    """A ``LeaseBook`` built from the plan's ``llm``, ``runtime_limits`` and ``judge_limits``."""

    def __init__(self, llm: Any, runtime_limits: Any, judge_limits: Any, workers: int) -> None:
        self.book = LeaseBook(llm, runtime_limits, judge_limits, workers=workers)

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        return self.book.sync(worker_id, deltas)

    async def stop(self, reason: str) -> None:
        """Every worker stops starting calls at its next sync."""
        self.book.stop(reason)

    async def totals(self) -> Any:
        """The run's spend over every worker, as synced (scalars: no per-model figures)."""
        return self.book.totals


class ActorCoordinator:
    """A ``bench.distributed.Coordinator`` over the actor's handle: what a worker's LLM client syncs with."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        leases: Leases = await self.handle.sync.remote(worker_id, deltas)
        return leases


def start(plan: Plan, workers: int) -> Any:
    """The run's coordinator actor (``ray`` is initialised)."""
    import ray

    actor = ray.remote(LimitsActor).options(num_cpus=0, max_restarts=-1, max_task_retries=0)
    return actor.remote(plan.llm, plan.runtime_limits, plan.judge_limits, workers)
