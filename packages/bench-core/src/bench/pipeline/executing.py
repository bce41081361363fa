"""Executing an opened run: its executor runs the job's tasks and lands each result through the
sink; the manifest says the run is running, then how it ended, whatever happened."""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.execution.figures import Aggregators
from bench.execution.groups.decide import decide_groups, restated
from bench.execution.interrupts import StopOnSignal
from bench.execution.sink import StoreSink
from bench.executor import Executor, ExecutorSettings, Job
from bench.llm.accounting import Totals
from bench.llm.cache.shared import shared_cache_url
from bench.pipeline.batches import use_batches
from bench.pipeline.loading import executor_class
from bench.pipeline.opening import OpenedRun
from bench.pipeline.options import DEFAULT_CONCURRENCY, RunOptions
from bench.report.observer import RunObserver
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.store import StoreWriteError, now_iso

if TYPE_CHECKING:
    from bench.plugins.registry import Registry


#: A run whose batches were submitted and have not ended: ``bench run --resume RUN_ID`` collects.
WAITING = "waiting on batches"
#: A run whose conversations wait for a person's turn: answer them, then ``--resume``.
WAITING_FOR_PERSON = "waiting for a person"


@dataclass
class Executed:
    """How the run's execution ended."""

    executor: Executor
    #: The run's model calls: the driver's, and its workers' when the executor has them.
    totals: Totals
    #: When the tasks started (``time.monotonic``).
    clock: float
    #: The evaluators with suite-level figures that ran in this process (``Job.aggregators``).
    aggregators: Aggregators


def executor_settings(options: RunOptions, opened: OpenedRun) -> ExecutorSettings:
    """What the executor reads of the options (and where the run keeps captured files)."""
    return ExecutorSettings(
        # With batches every task is in flight at once: their calls wait in one batch per stage.
        concurrency=max(opened.to_run, 1)
        if opened.llm.batcher is not None
        else options.concurrency or opened.plan.concurrency or DEFAULT_CONCURRENCY,
        workers=options.workers,
        chunk=options.chunk,
        address=options.address,
        options=dict(options.executor_options),
        evaluator_timeout=options.evaluator_timeout,
        keep_workspaces=options.keep_workspaces,
        captures_dir=opened.store.folder / "captures",
        cache=options.cache,
        cache_path=options.cache_path,
        shared_cache=shared_cache_url(options.shared_cache),
        suite_args=options.suite_args(),
    )


async def execute_run(
    opened: OpenedRun, options: RunOptions, observer: RunObserver, registry: Registry | None = None
) -> Executed:
    """Run what the opened run selected; every result lands in its store. The store and the
    client are closed at the end, whatever happened."""
    plan, store, llm, summary = opened.plan, opened.store, opened.llm, opened.summary
    try:
        use_batches(llm, store.folder / "batches", options)  # before the settings: all tasks at once
        executor = executor_class(options.executor, registry)(executor_settings(options, opened))
    except BaseException:
        store.close()
        await llm.aclose()
        raise
    aggregators = Aggregators()
    job = Job(plan, opened.selected, executor.settings, llm, aggregators=aggregators)
    done = observer.task_done if observer.watches_tasks else None
    sink = StoreSink(
        store, llm.redact, summary, opened.collector, done, executor.interrupt, observer.task_counted
    )
    clock = time.monotonic()
    status = "running"
    try:
        try:
            await executor.open(job)
        except ConfigError:
            if not options.resume:
                store.close()
                shutil.rmtree(store.folder, ignore_errors=True)
            raise
        store.write_manifest(opened.manifest(status=status))
        observer.started(store.run_id, len(plan.tasks), summary.total, opened.resumed, llm.totals)
        with StopOnSignal(executor, options.handle_signals, store.run_id):
            await executor.run(job, sink)
            if not executor.interrupted and await decide_groups(
                plan, store, sink, llm, options.evaluator_timeout
            ):
                opened.collector = restated(opened.collector, store, plan.tasks.ids)
        status = "interrupted" if executor.interrupted else "stopped" if executor.stopped else "finished"
        if status == "finished" and summary.waiting:
            status = WAITING_FOR_PERSON  # finished but for the conversations a person must answer
        summary.not_run = len(plan.tasks) - summary.total
        summary.total = len(plan.tasks)
    except StoreWriteError:
        status = "failed"
        raise
    finally:
        try:
            await executor.close()  # first: a distributed executor's workers report their calls
        finally:
            totals = _run_totals(opened, executor)
            _finish_manifest(opened, status, clock, executor, totals)
            store.close()
            await llm.aclose()
    return Executed(executor, totals, clock, aggregators)


def _run_totals(opened: OpenedRun, executor: Executor) -> Totals:
    """The run's model calls: the driver's client's, plus its workers' when an executor has them."""
    if executor.llm_totals is None:
        return opened.llm.totals
    totals = Totals()
    totals.merge(executor.llm_totals)
    totals.merge(opened.llm.totals)
    return totals


def _finish_manifest(
    opened: OpenedRun, status: str, clock: float, executor: Executor, totals: Totals
) -> None:
    """The manifest at the run's end, whatever happened (the results written so far are intact)."""
    if not opened.store.folder.exists():
        return
    batched = opened.llm.batcher
    if batched is not None and batched.waiting() and status == "stopped":
        status = WAITING
    # On a write error the original error says why.
    with contextlib.suppress(StoreWriteError):
        opened.store.write_manifest(
            opened.manifest(
                status=status,
                finished_at=now_iso(),
                duration_s=round(time.monotonic() - clock, 3),
                summary=opened.summary.as_dict(),
                stopped=executor.stopped,
                llm=totals.as_dict(),
                **({"batches": batched.report()} if batched is not None else {}),
            )
        )
