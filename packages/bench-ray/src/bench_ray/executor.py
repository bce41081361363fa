"""The ``ray`` executor: the driver of a run on a Ray cluster (docs/scale.md).

The driver owns the run store and is its only writer. ``BenchWorker`` async actors each load the
suite's header once and run chunks of the plan's rows (``PlanRow``: index, raw row, digest and the
keys of it to run), ``--chunk`` keys each in plan order (aligned with the local runner's batches;
a row may be split between two chunks). The driver reads the rows again from the suite as it
hands chunks out and holds only the chunks in flight. Each chunk's results stream back and the
driver lands a key only while it is still pending in its chunk, so a key lands once whatever Ray
replays. Ray's own retries are off: a worker that dies is marked down until a ``ready()`` probe
answers again, and only its chunks' unlanded keys are handed out again.

Rows whose ``needs`` name a pool's tag (``--executor-option pool.TAG.workers=N``) go to that pool's
workers only (``bench_ray.pools``); each pool has its own chunks, read from the suite in plan order,
and its own resubmissions. Workers that Ray cannot place fail the run after ``start_timeout``.

With ``--batch`` the driver owns the batches (``job.llm.batcher``): the workers' batched calls
reach it through a ``BatchRelay`` actor (``bench_ray.relay``), and every chunk is handed out at
once (each task waits on its batch, not on a worker).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from bench import ConfigError, Executor, Job, Sink
from bench.distributed import PlanRow
from bench_ray.coordinator import start as start_coordinator
from bench_ray.handshake import identity, mismatch
from bench_ray.options import DEFAULT_CHUNK, RayOptions, parse_options
from bench_ray.pools import Group, default_workers, groups, not_started, unheld
from bench_ray.relay import serve
from bench_ray.relay import start as start_relay

#: Seconds between two looks at the workers (probes of down ones, Ctrl-C).
TICK_S = 1.0
#: Seconds the coordinator has to answer with the run's totals at the end.
FINISH_TIMEOUT_S = 30.0


def _keeping(row: PlanRow, keys: set[str] | None) -> PlanRow | None:
    """``row`` with only its keys in ``keys`` (None: all of them); None when it keeps none."""
    kept = row.keys if keys is None else tuple(k for k in row.keys if k in keys)
    if not kept:
        return None
    return row if kept == row.keys else dataclasses.replace(row, keys=kept)


def chunks(rows: Iterator[PlanRow], selected: set[str] | None, size: int) -> Iterator[list[PlanRow]]:
    """The rows to run, ``size`` keys at a time in plan order (the local runner prepares batches
    the same way); each row keeps the keys of ``selected`` (None: all), a row without any is left
    out, and a row whose keys straddle a chunk's end is split between two."""
    chunk: list[PlanRow] = []
    room = size
    for row in rows:
        kept = _keeping(row, selected)
        keys = kept.keys if kept is not None else ()
        while keys:
            part, keys = keys[:room], keys[room:]
            chunk.append(row if part == row.keys else dataclasses.replace(row, keys=part))
            room -= len(part)
            if not room:
                yield chunk
                chunk, room = [], size
    if chunk:
        yield chunk


def unlanded(chunk: list[PlanRow], pending: set[str]) -> list[PlanRow]:
    """The rows of ``chunk`` with only their keys still ``pending`` (none: left out)."""
    return [kept for row in chunk if (kept := _keeping(row, pending)) is not None]


def _lost_worker_errors() -> tuple[type[BaseException], ...]:
    """Ray's errors for a worker (or its node) that went away: its chunks are handed out again."""
    from ray import exceptions

    names = (
        "RayActorError",
        "ActorUnavailableError",
        "WorkerCrashedError",
        "NodeDiedError",
        "ObjectLostError",
    )
    return tuple(getattr(exceptions, name) for name in names if hasattr(exceptions, name))


async def not_ready(readies: Sequence[asyncio.Future[Any]], timeout: float) -> list[int]:
    """Wait up to ``timeout`` for every worker's ``ready``; the positions of those still not
    answering. A worker that failed (to load the suite) ends the wait with its error at once: that,
    not another worker's placement timeout later, is what the user must fix."""
    await asyncio.wait(readies, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION)
    for ready in readies:
        if ready.done() and not ready.cancelled() and ready.exception() is not None:
            ready.result()  # raises it
    return [i for i, ready in enumerate(readies) if not ready.done()]


class RayExecutor(Executor):
    """Runs the tasks on ``--workers`` actors of a Ray cluster (a new local one by default)."""

    name = "ray"
    description = "the tasks run on worker actors of a Ray cluster (--workers, --chunk, --address)"
    batches = True

    workers: list[Any]
    #: The default workers and each pool that has rows to run, with their workers' indexes.
    groups: list[Group]
    #: The run's ``LimitsActor`` (bench_ray.coordinator), from ``open`` to ``close``.
    coordinator: Any = None
    #: With ``--batch``: the ``BatchRelay`` the workers' batched calls go through to the driver.
    relay: Any = None
    #: ``run`` started: the workers' calls are counted at ``close`` (a refused set-up has none).
    ran = False
    #: The run is offline: every worker must have the network guard on (docs/offline.md).
    offline = False

    async def open(self, job: Job) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            import ray
        except ImportError as exc:
            raise ConfigError(f"--executor ray needs Ray, which does not import here: {exc}") from None

        from bench_ray.worker import BenchWorker

        self.ray_options: RayOptions = parse_options(dict(self.settings.options))
        required = job.plan.required
        opts = self.ray_options
        why = unheld(job.plan.needs_runs(job.selected), opts.pools, required, opts.disk)
        if why is not None:  # before any cluster starts
            raise ConfigError(why)
        self.workers, self.groups = [], []
        self.started_cluster = False
        if not ray.is_initialized():
            ray.init(
                address=self.settings.address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
            self.started_cluster = True
        cpus = ray.cluster_resources().get("CPU", 1)
        used = job.plan.row_needs(job.selected)  # after --resume, what is left to run
        count = self.settings.workers or default_workers(opts, cpus, used, required)
        self.groups = groups(opts, count, used, lambda text: print(text, file=sys.stderr), required)
        plan = job.plan
        files = [plan.path.resolve(), *plan.referenced_files]
        self.identity = identity(files)
        suite = str(plan.path.resolve())
        self.coordinator = start_coordinator(plan, sum(len(g.members) for g in self.groups))
        if job.llm.batcher is not None:
            self.relay = start_relay()
        batching = (self.relay, job.llm.settings.batch)
        self.offline = offline = os.environ.get("BENCH_OFFLINE") == "1"  # docs/offline.md
        for group in self.groups:
            actor = ray.remote(BenchWorker).options(
                num_cpus=group.resources.num_cpus,
                num_gpus=group.resources.num_gpus,
                resources=group.resources.resources or None,
                max_restarts=-1,
                max_task_retries=0,
            )
            for i in group.members:
                self.workers.append(
                    actor.remote(
                        suite,
                        self.settings,
                        [str(f) for f in files],
                        self.coordinator,
                        f"worker-{i}",
                        batching,
                        offline=offline,
                    )
                )
        readies = [asyncio.ensure_future(self._ready(w)) for w in self.workers]
        try:
            late = await not_ready(readies, opts.start_timeout)
            if late:
                raise ConfigError(not_started(self.groups, late, opts.start_timeout))
            answers = [ready.result() for ready in readies]
        except _lost_worker_errors() as exc:
            raise ConfigError(f"--executor ray: a worker could not load the suite: {exc}") from None
        finally:
            for ready in readies:
                ready.cancel()
        for answer in answers:
            if offline and answer.get("offline") is not True:
                raise ConfigError(
                    f"--executor ray: worker {answer.get('pid')} on {answer.get('node')} did not turn "
                    "the offline guard on; an offline run runs no task unguarded"
                )
            wrong = mismatch(self.identity, answer)
            if wrong is not None:
                raise ConfigError(
                    f"--executor ray: worker {answer.get('pid')} on {answer.get('node')} runs other code "
                    f"or another suite than this run ({wrong}); install the same versions everywhere"
                )

    @staticmethod
    async def _ready(worker: Any) -> Any:
        return await worker.ready.remote()

    async def run(self, job: Job, sink: Sink) -> None:
        self.ran = True
        size = self.settings.chunk or DEFAULT_CHUNK
        # Each group reads the suite's rows on its own, keeping its rows: no group waits on another's.
        todo = [chunks(group.rows(job.plan.rows()), job.selected, size) for group in self.groups]
        repeats = job.plan.max_repeat > 1
        # Per group, the rows of chunks a lost worker left unlanded.
        again: list[deque[list[PlanRow]]] = [deque() for _ in self.groups]
        group_of = {i: g for g, group in enumerate(self.groups) for i in group.members}
        n = len(self.workers)
        load, up = [0] * n, [True] * n
        running: dict[asyncio.Task[Any], int] = {}
        probes: dict[int, asyncio.Task[Any]] = {}
        exhausted = [False] * len(self.groups)
        # With batches every chunk is in flight at once: its tasks wait on their batch.
        in_flight = self.ray_options.in_flight if self.relay is None else sys.maxsize
        serving = asyncio.ensure_future(serve(self.relay, job.llm.batcher, TICK_S)) if self.relay else None
        try:
            while not self.interrupted:
                for g, group in enumerate(self.groups):
                    while not self.stopped:
                        idle = [i for i in group.members if up[i] and load[i] < in_flight]
                        if not idle:
                            break
                        chunk = again[g].popleft() if again[g] else next(todo[g], None)
                        if chunk is None:
                            exhausted[g] = True
                            break
                        worker = min(idle, key=lambda i: load[i])
                        running[asyncio.ensure_future(self._consume(worker, chunk, repeats, sink))] = worker
                        load[worker] += 1
                # A stopped run hands out nothing more: a lost worker's keys are left for --resume.
                if not running and (self.stopped or (all(exhausted) and not any(again))):
                    return
                for i in range(n):
                    if not up[i] and i not in probes:
                        probes[i] = asyncio.ensure_future(self._probe(i))
                waiting: set[asyncio.Task[Any]] = {*running, *probes.values()}
                done, _ = await asyncio.wait(waiting, timeout=TICK_S, return_when=asyncio.FIRST_COMPLETED)
                if serving is not None and serving.done():
                    serving.result()  # the relay is lost: the workers' batched calls would wait forever
                for task in done:
                    if task in running:
                        worker = running.pop(task)
                        load[worker] -= 1
                        missing: list[PlanRow] = task.result()
                        if missing:
                            up[worker] = False
                            again[group_of[worker]].append(missing)
                    else:
                        worker = next(i for i, probe in probes.items() if probe is task)
                        del probes[worker]
                        up[worker] = bool(task.result())
        finally:
            reason = "interrupted" if self.interrupted else self.stopped
            if reason:  # the workers stop starting calls at their next sync
                self.coordinator.stop.remote(reason)
            serves = [serving] if serving is not None else []
            for task in [*running, *probes.values(), *serves]:
                task.cancel()
            await asyncio.gather(*running, *probes.values(), *serves, return_exceptions=True)

    async def _consume(self, worker: int, chunk: list[PlanRow], repeats: bool, sink: Sink) -> list[PlanRow]:
        """Land a chunk's results as they stream in; its rows left unlanded if the worker was lost."""
        pending = {key for row in chunk for key in row.keys}
        try:
            async for ref in self.workers[worker].run_chunk.remote(chunk, repeats):
                batch = await ref
                for key, status, stats, line in batch["results"]:
                    if key in pending:  # a key lands once, however often it comes back
                        pending.discard(key)
                        sink.land(line, status, stats)
                if batch["stopped"]:
                    self.stopped = self.stopped or batch["stopped"]
        except _lost_worker_errors():
            return unlanded(chunk, pending)
        return []

    async def _totals(self) -> Any:
        """The coordinator's totals once every worker has reported its last calls, with the
        workers' per-model figures (a lost worker's calls count, its per-model figures do not)."""
        finishing = asyncio.gather(*(w.finish.remote() for w in self.workers), return_exceptions=True)
        try:
            answers = await asyncio.wait_for(finishing, FINISH_TIMEOUT_S)
        except asyncio.TimeoutError:
            answers = []
        lost: tuple[type[BaseException], ...] = (asyncio.TimeoutError, *_lost_worker_errors())
        try:
            totals = await asyncio.wait_for(self.coordinator.totals.remote(), FINISH_TIMEOUT_S)
        except lost:
            return None
        for by_model in answers:
            if isinstance(by_model, dict):
                for model, figures in by_model.items():
                    mine = totals.by_model.setdefault(model, {"calls": 0, "tokens": 0, "cost_usd": 0.0})
                    for name, value in figures.items():
                        mine[name] = mine.get(name, 0) + value
        return totals

    async def _probe(self, worker: int) -> bool:
        """Whether a down worker answers again (with the same code); waits a tick when not."""
        try:
            answer = await asyncio.wait_for(self.workers[worker].ready.remote(), TICK_S * 5)
        except asyncio.TimeoutError:
            await asyncio.sleep(TICK_S)
            return False
        except _lost_worker_errors():
            await asyncio.sleep(TICK_S)
            return False
        guarded = answer.get("offline") is True or not self.offline
        return guarded and mismatch(self.identity, answer) is None

    async def close(self) -> None:
        if not getattr(self, "workers", None) and not getattr(self, "started_cluster", False):
            return
        import ray

        if self.coordinator is not None and self.ran:
            self.llm_totals = await self._totals()  # None: the coordinator is lost, so are its totals
        for handle in [*self.workers, self.coordinator, self.relay]:
            if handle is not None:
                ray.kill(handle)
        self.workers, self.groups, self.coordinator, self.relay = [], [], None, None
        if self.started_cluster:
            ray.shutdown()
            self.started_cluster = False
