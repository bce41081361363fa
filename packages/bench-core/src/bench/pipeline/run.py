"""One run of a suite, stage after stage: load it, open the run, execute it, close it.

``run_suite`` is what ``bench run`` and ``bench.run`` both go through (``bench.api.execute``);
``run_plan`` runs a plan already loaded.
"""

from __future__ import annotations

import asyncio
import functools
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bench.llm.accounting import Estimate, Prices
from bench.llm.providers import eventloop
from bench.llm.providers.credentials import describe_missing, missing_credentials
from bench.llm.providers.offline import on_loopback
from bench.pipeline.closing import RunOutcome, close_run
from bench.pipeline.estimate import estimate
from bench.pipeline.executing import execute_run
from bench.pipeline.loading import executor_class, load_for_run
from bench.pipeline.offline import offline_guard
from bench.pipeline.opening import open_run
from bench.pipeline.options import RunOptions
from bench.pipeline.rerun import apply_selection
from bench.report.observer import RunObserver
from bench.suite.plan import Plan

if TYPE_CHECKING:
    from bench.plugins.registry import Registry

T = TypeVar("T")


@dataclass(frozen=True)
class DryRun:
    """What a run would call (``--dry-run``): nothing was called, no run was stored."""

    #: The plan as the run would run it (narrowed by the selection).
    plan: Plan
    estimate: Estimate
    #: What was selected, as ``selected 3 of 40 tasks (-k 'math')``; None: every task.
    selected: str | None
    #: Which credentials the calls would lack (a warning: nothing is called), or None.
    missing: str | None


async def run_suite(
    suite: str | Path,
    options: RunOptions,
    observer: RunObserver,
    registry: Registry | None = None,
    *,
    offload: bool = False,
) -> RunOutcome | DryRun:
    """Load ``suite``, tell its template warnings, and run it (or estimate it: ``dry_run``).

    ``offload``: read the suite in a worker thread, so that the caller's event loop keeps running
    meanwhile (``bench.arun``)."""
    with offline_guard(options.offline):
        with observer.loading(Path(suite)) as progress:
            work = functools.partial(load_for_run, suite, options, registry, progress)
            plan = await asyncio.to_thread(work) if offload else _interruptible(work, options.handle_signals)
        for line in plan.template_warnings:
            observer.warning(line)
        if options.dry_run:
            return dry_run(plan, options)
        return await run_loaded(plan, options, observer, registry)


def _interruptible(work: Callable[[], T], handle_signals: bool) -> T:
    """``work()``, which Ctrl-C stops at once when the run handles signals: on the event loop's
    thread, asyncio's own handler would cancel the run only once the work is done."""
    if not handle_signals:
        return work()
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: signals are not ours to handle
        return work()
    try:
        return work()
    finally:
        signal.signal(signal.SIGINT, previous)


async def run_loaded(
    plan: Plan, options: RunOptions, observer: RunObserver | None = None, registry: Registry | None = None
) -> RunOutcome:
    """Open the run, execute it, close it; every result lands in the run store."""
    observer = observer or RunObserver()
    with offline_guard(options.offline):
        opened = await open_run(plan, options, observer, lambda: executor_class(options.executor, registry))
        executed = await execute_run(opened, options, observer, registry)
        return close_run(opened, executed, options)


def run_plan(
    plan: Plan, options: RunOptions | None = None, observer: RunObserver | None = None
) -> RunOutcome:
    """Run a loaded plan to its end on an event loop of its own."""
    return eventloop.run(run_loaded(plan, options or RunOptions(), observer))


def dry_run(plan: Plan, options: RunOptions) -> DryRun:
    """Count and price the calls of the selected tasks from the price table (no client is built)."""
    note = None
    if options.select is not None and options.select.active:
        narrowed = apply_selection(plan, options.select, options.runs_dir).narrowed
        plan, note = narrowed.plan, narrowed.note
    endpoints = plan.endpoints
    if options.offline:  # the calls an offline run skips need no key
        endpoints = {e for e in endpoints if on_loopback(e.model, e.api_base)}
    missing = missing_credentials(endpoints)
    counted = estimate(plan, Prices(plan.pricing), options.batch)
    return DryRun(plan, counted, note, describe_missing(missing) if missing else None)
