"""``BenchWorker``: a Ray actor that loads the suite's header once (``tasks="lazy"``) and runs
chunks of its rows with bench's runner, rebuilding each chunk's tasks (``Plan.build``).

Captured workspace files travel in the results (portable captures) for the driver to write.
Results go back as they finish, in batches (``BATCH`` results or ``FLUSH_S`` seconds), each
``(key, status, statistics row, redacted JSON line)``. Nothing here writes to the run store: the
driver is its only writer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from bench import ExecutorSettings, Job, TaskResult
from bench.distributed import (
    LocalExecutor,
    PlanRow,
    RelayedBatches,
    load_plan,
    plan_client,
    serialize_result,
    statistics_row,
)
from bench.workspace import install_from_env
from bench_ray.coordinator import ActorCoordinator
from bench_ray.handshake import identity

#: Results per batch sent to the driver, and the longest a finished result waits to be sent.
BATCH = 64
FLUSH_S = 1.0

Landed = tuple[str, str, dict[str, Any], str]


@dataclasses.dataclass
class _ChunkJob(Job):
    """A job whose tasks are a chunk's, already looked up."""

    chunk: list[Any] = dataclasses.field(default_factory=list)

    def tasks(self) -> Iterator[Any]:
        return iter(self.chunk)


class _BatchSink:
    """Collects a worker's results, redacted here with the worker's own environment."""

    def __init__(self, redact: Any, repeats: bool) -> None:
        self.redact = redact
        self.repeats = repeats
        self.landed: list[Landed] = []
        self.full = asyncio.Event()

    def record(self, result: TaskResult) -> None:
        line = self.redact(serialize_result(result))
        self.landed.append((result.key, result.status, statistics_row(result, self.repeats), line))
        if len(self.landed) >= BATCH:
            self.full.set()

    def land(self, line: str, status: str, stats: dict[str, Any]) -> None:
        raise NotImplementedError("a worker makes its results itself")

    def take(self) -> list[Landed]:
        taken, self.landed = self.landed, []
        self.full.clear()
        return taken


def _go_offline() -> bool:
    """The offline guard on for the rest of this worker process; ``BENCH_OFFLINE`` set for the
    processes it starts. A Ray worker is started by its node, not by the driver, so it does not
    inherit the driver's environment: the driver says so in the actor's arguments."""
    os.environ["BENCH_OFFLINE"] = "1"
    return install_from_env()


class BenchWorker:
    """One worker process: the suite loaded once, its own LLM client, chunks run one after another
    or side by side (an async actor)."""

    def __init__(
        self,
        suite: str,
        settings: ExecutorSettings,
        files: list[str],
        coordinator: Any = None,
        worker_id: str | None = None,
        batching: tuple[Any, bool] = (None, False),
        offline: bool = False,
    ) -> None:
        """``coordinator``: the run's ``LimitsActor`` handle (its limits and budgets are the run's);
        the client's cache is ``settings.shared_cache`` (L2) behind a local L1 on this node's disk.
        ``batching``: the run's ``BatchRelay`` (None: no batches) and whether every model's calls
        go to batches (``--batch``; else the suite's own ``batch: true``). ``offline``: the run is
        (``--offline``): the network guard is on in this process, and in the processes it starts,
        before the suite is loaded (docs/offline.md)."""
        self.offline = _go_offline() if offline else False
        self.settings = settings
        self.files = [Path(f) for f in files]
        self.plan = load_plan(suite, {**settings.suite_args, "tasks": "lazy"})
        shared = ActorCoordinator(coordinator) if coordinator is not None else None
        self.llm = plan_client(self.plan, settings, coordinator=shared, worker_id=worker_id)
        relay, batch_all = batching
        if relay is not None:  # the driver owns the batches: batched calls are sent to it
            if batch_all:
                self.llm.settings = self.llm.settings.model_copy(update={"batch": True})
            self.llm.batcher = RelayedBatches(
                lambda request, params, rid: relay.ask.remote(request, params, rid)
            )
        for target in [self.plan.target, *self.plan.targets.values()]:
            if target is not None:
                target.llm = self.llm

    def ready(self) -> dict[str, Any]:
        """Who this worker is and which code and suite it runs (the driver's handshake)."""
        node = {"pid": os.getpid(), "node": socket.gethostname(), "offline": self.offline}
        return {**node, **identity(self.files)}

    async def finish(self) -> dict[str, dict[str, float]]:
        """The last report to the coordinator (its totals are then complete); this worker's calls
        per model."""
        await self.llm.aclose()
        return self.llm.totals.by_model

    async def run_chunk(self, rows: list[PlanRow], repeats: bool) -> AsyncIterator[dict[str, Any]]:
        """Run the runs each row names (``PlanRow.keys``: a row may expand into more);
        yield ``{"results": [...], "stopped": reason or None}``. ``repeats``: the run has repeats
        (statistics rows then carry judge samples)."""
        keys = {key for row in rows for key in row.keys}
        runs = [run for run in self.plan.build(rows) if run.key in keys]
        # The header-only plan counts no tasks: the chunk's own count opens the targets.
        plan = dataclasses.replace(self.plan, needs_target=sum(r.task.response is None for r in runs))
        settings = dataclasses.replace(self.settings, portable_captures=True)
        sink = _BatchSink(self.llm.redact, repeats)
        job = _ChunkJob(plan, keys, settings, self.llm, chunk=runs)
        executor = LocalExecutor(settings)
        await executor.open(job)
        running = asyncio.ensure_future(executor.run(job, sink))
        try:
            flushed = time.monotonic()
            while not running.done():
                full = asyncio.ensure_future(sink.full.wait())
                left = max(0.0, flushed + FLUSH_S - time.monotonic())
                await asyncio.wait({running, full}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                full.cancel()
                if sink.landed and (len(sink.landed) >= BATCH or time.monotonic() >= flushed + FLUSH_S):
                    yield {"results": sink.take(), "stopped": None}
                    flushed = time.monotonic()
            running.result()  # a failure of the runner itself reaches the driver
            yield {"results": sink.take(), "stopped": executor.stopped}
        finally:
            if not running.done():
                executor.interrupt()
                running.cancel()
