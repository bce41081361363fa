"""One ``bench run``: open or resume the run store, run what is left, write the manifest."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bench.execution.evaluation import EVALUATOR_TIMEOUT_S
from bench.execution.figures import Aggregators, suite_figures
from bench.execution.interrupts import StopOnSignal
from bench.execution.local import LocalExecutor
from bench.execution.sink import StoreSink
from bench.executor import DEFAULT_EXECUTOR, Executor, ExecutorSettings, Job
from bench.llm.accounting import Totals
from bench.llm.cache.local import default_cache_path
from bench.llm.cache.shared import shared_cache_url
from bench.llm.client import LLMClient
from bench.llm.limits.coordination import Coordinator
from bench.llm.providers.credentials import describe_missing, missing_credentials
from bench.llm.providers.direct import preload as preload_http
from bench.llm.providers.litellm_import import import_in_background
from bench.llm.providers.prices import model_cost
from bench.llm.settings import LLMSettings, sized_for_run
from bench.pipeline.estimate import check_prices
from bench.pipeline.rerun import Selected, apply_selection, check_target_override, resumed_selection
from bench.pipeline.resume import Resumed, select_tasks
from bench.scoring.pass_at_k import verdicts as pass_at_k_verdicts
from bench.scoring.run_stats import StatsCollector
from bench.scoring.target_stats import target_statistics
from bench.suite.plan import Plan, all_targets
from bench.suite.selection.narrowing import Selection
from bench.version import __version__
from bench.vocabulary import redact
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.results import RunReport, Summary, TaskResult
from bench.vocabulary.store import RunStore, StoreWriteError, now_iso, resolve_run

DEFAULT_CONCURRENCY = 8
DEFAULT_RUNS_DIR = Path(".bench") / "runs"


@dataclass
class RunOptions:
    """How to run a plan."""

    runs_dir: Path = DEFAULT_RUNS_DIR
    concurrency: int | None = None
    resume: str | None = None
    handle_signals: bool = True
    cache: bool = True
    #: Seconds an async evaluator (an LLM judge) may take before it is an evaluator error.
    evaluator_timeout: float = EVALUATOR_TIMEOUT_S
    #: Where the LLM response cache lives (default: ``default_cache_path()``, the user's cache folder).
    cache_path: Path | None = None
    #: The shared second level of the cache, an fsspec URL (default: ``$BENCH_SHARED_CACHE``, else none).
    shared_cache: str | None = None
    #: Leave each task's workspace on disk (its path is in the result).
    keep_workspaces: bool = False
    #: Which tasks to run (default: all); a resumed run applies the selection it started with.
    selection: Selection | None = None
    #: Refuse to run when a judge's kappa against its labels is below its bar (``--require-calibration``).
    require_calibration: bool = False
    #: The calibrated judges' standings measured before the run (``calibration_gate``), which the
    #: run's report records as ``calibration``.
    calibration: tuple[dict[str, Any], ...] = ()
    #: Which executor runs the tasks (``--executor``), and its settings (``--workers``, ...).
    executor: str = DEFAULT_EXECUTOR
    #: The class registered as ``executor`` (None: the local one); ``bench.api.prepare`` looks it up.
    executor_type: type[Executor] | None = None
    workers: int | None = None
    chunk: int | None = None
    address: str | None = None
    executor_options: dict[str, str] = field(default_factory=dict)
    #: ``load_suite``'s keyword arguments for this run (an executor's workers load the same plan).
    suite_args: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunOutcome:
    """The finished (or interrupted) run."""

    report: RunReport
    folder: Path
    interrupted: bool
    resumed: Resumed | None = None
    to_run: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    #: What was selected, as ``selected 3 of 40 tasks (-k 'math')``; None when every task ran.
    selected: str | None = None


class Observer(Protocol):
    """Progress display hooks (the CLI's progress bar implements them)."""

    def note(self, message: str) -> None:
        """What the run is doing before its first task (importing the model client, ...)."""

    def started(
        self, run_id: str, total: int, kept: int, resumed: Resumed | None, totals: Totals | None = None
    ) -> None:
        """The tasks start; ``totals`` are the model calls' running totals (cost so far)."""

    def task_done(self, result: TaskResult) -> None: ...

    def task_counted(self, status: str) -> bool:
        """A task finished with ``status`` (its result holds no workspace data): count it and
        return True, or return False to get the whole result in ``task_done`` instead."""


class _Silent:
    def note(self, message: str) -> None:
        pass

    def started(
        self, run_id: str, total: int, kept: int, resumed: Resumed | None, totals: Totals | None = None
    ) -> None:
        pass

    def task_done(self, result: TaskResult) -> None:
        pass

    def task_counted(self, status: str) -> bool:
        return True


def _counted(plan: Plan) -> str:
    """``N tasks``, or ``N tasks, M runs`` when tasks repeat."""
    runs = len(plan.tasks)
    if plan.max_repeat <= 1:
        return f"{runs:,} tasks"
    return f"{plan.tasks.task_count():,} tasks, {runs:,} runs"


def make_client(
    plan: Plan, options: RunOptions, *, coordinator: Coordinator | None = None, worker_id: str | None = None
) -> LLMClient:
    """The run's LLM client, from the suite's settings and the command line (a worker's shares
    the run's limits and budgets through ``coordinator``)."""
    settings, _ = call_settings(plan, options)
    settings = settings if options.cache else settings.model_copy(update={"cache": False})
    cache_path = options.cache_path or default_cache_path()
    return LLMClient(
        settings,
        pricing=plan.pricing,
        runtime_limits=plan.runtime_limits,
        judge_limits=plan.judge_limits,
        cache_path=cache_path,
        shared_cache=shared_cache_url(options.shared_cache),
        coordinator=coordinator,
        worker_id=worker_id,
    )


def call_settings(plan: Plan, options: RunOptions) -> tuple[LLMSettings, str | None]:
    """The suite's ``llm:`` settings sized for the run's tasks in flight, and the note that says
    which limit wins when the suite sets both (``sized_for_run``)."""
    source = "-j" if options.concurrency else "the suite's concurrency"
    return sized_for_run(plan.llm, options.concurrency or plan.concurrency, source)


def _run_totals(llm: LLMClient, executor: Executor) -> Totals:
    """The run's model calls: the driver's client's, plus its workers' when an executor has them."""
    if executor.llm_totals is None:
        return llm.totals
    totals = Totals()
    totals.merge(executor.llm_totals)
    totals.merge(llm.totals)
    return totals


def _manifest(plan: Plan, store: RunStore, started: str, **fields: Any) -> dict[str, Any]:
    return {
        "run_id": store.run_id,
        "suite": plan.name,
        "suite_path": str(plan.path.resolve()),
        "referenced_files": [str(p) for p in plan.referenced_files],
        "bench_version": __version__,
        "python": sys.version.split()[0],
        "started_at": started,
        "tasks": len(plan.tasks),
        "target_override": plan.target_override,
        **fields,
    }


def _read_ahead(direct: bool) -> None:
    model_cost()
    if direct:
        preload_http()


async def execute(plan: Plan, options: RunOptions, observer: Observer | None = None) -> RunOutcome:
    """Run a plan to completion (or interruption); every result lands in the run store."""
    observer = observer or _Silent()
    # The environment as it is now; variables the suite sends as credentials are secrets
    # whatever their names (H05).
    redact.refresh(redact.credential_names([plan.path, *plan.referenced_files]))
    llm = make_client(plan, options)
    said = call_settings(plan, options)[1]
    if said:
        observer.note(said)
    # Judges' models included: a judge-only suite's first judge call would import it otherwise.
    import_now = llm.needs_litellm([e.model for e in plan.endpoints]) and llm.may_call()
    if import_now:
        import_in_background()  # overlaps the checks and the store's opening below
    check_prices(plan, llm.prices)
    reading: threading.Thread | None = None
    if plan.endpoints:
        # litellm's price map takes ~40 ms to read and aiohttp ~0.1 s to import: both now, beside
        # the start-up, not in the first answer while every other call waits behind it.
        direct = llm.may_call() and any(llm.direct(e.model) for e in plan.endpoints)
        reading = threading.Thread(target=_read_ahead, args=(direct,), name="bench-prices", daemon=True)
        reading.start()
    missing = missing_credentials(plan.endpoints)
    if missing:  # one error before any task, never one per task
        raise ConfigError(describe_missing(missing))
    resumed: Resumed | None = None
    selected: set[str] | None = None  # None: every task
    collector = StatsCollector(repeats=plan.max_repeat > 1)
    chosen: Selected | None = None
    if options.resume:
        store = RunStore.open_existing(
            options.runs_dir, resolve_run(options.runs_dir, options.resume, "--resume", plan.name)
        )
        try:
            manifest = store.read_manifest()
            check_target_override(manifest, plan.target_override, store.run_id)
            selection = resumed_selection(manifest, options.selection, store.run_id)
            if selection is not None:
                chosen = apply_selection(plan, selection, options.runs_dir)
                plan = chosen.plan
            selected, summary, resumed = select_tasks(plan, store, collector)
            started = manifest.get("started_at", now_iso())
        except BaseException:
            store.close()
            raise
    else:
        if options.selection is not None and options.selection.active:
            chosen = apply_selection(plan, options.selection, options.runs_dir)
            plan = chosen.plan
        store = RunStore.create(options.runs_dir)
        summary, started = Summary(), now_iso()
    chosen_fields = chosen.manifest_fields() if chosen is not None else {}
    run_fields = {**chosen_fields, "executor": options.executor}
    to_run = len(plan.tasks) if selected is None else len(selected)
    observer.note(f"loaded {plan.path.name}: {_counted(plan)}")

    targets = all_targets(plan)
    for target in targets:
        target.llm = llm
    executor = make_executor(options, plan, store)
    job = Job(plan, selected, executor.settings, llm)
    done = None if isinstance(observer, _Silent) else observer.task_done
    sink = StoreSink(store, llm.redact, summary, collector, done, executor.interrupt, observer.task_counted)
    target_models = [m for target in targets for m, _ in target.llm_calls()] if plan.needs_target else []
    llm.on_import = lambda: observer.note("importing the model client (litellm)…")
    if import_now or (llm.needs_litellm(target_models) and llm.may_call()):
        await llm.warm_up()  # seconds of import belong to start-up, not to the first task's timeout
    if reading is not None:
        await asyncio.to_thread(reading.join)  # likewise the HTTP client's import (N05)
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
        store.write_manifest(_manifest(plan, store, started, status=status, **run_fields))
        observer.started(store.run_id, len(plan.tasks), summary.total, resumed, llm.totals)
        with StopOnSignal(executor, options.handle_signals, store.run_id):
            await executor.run(job, sink)
        status = "interrupted" if executor.interrupted else "stopped" if executor.stopped else "finished"
        summary.not_run = len(plan.tasks) - summary.total
        summary.total = len(plan.tasks)
    except StoreWriteError:
        status = "failed"
        raise
    finally:
        try:
            await executor.close()  # first: a distributed executor's workers report their calls
        finally:
            totals = _run_totals(llm, executor)
            _finish_manifest(plan, store, started, status, clock, summary, executor, totals, run_fields)
            store.close()
            await llm.aclose()

    order = plan.tasks.ids
    used = totals.calls or totals.cached or totals.attempts
    extra: dict[str, Any] = {"llm": totals.as_dict()} if used else {}
    statistics = collector.statistics()
    # From the store, in plan order: tasks kept by --resume, or run by other processes, count too.
    # Types with only the deprecated ``aggregate(instances)`` have figures on the local executor alone.
    ran_here = (
        executor.runner.aggregators if isinstance(executor, LocalExecutor) and executor.runner else None
    )
    aggregators = (ran_here or Aggregators()).seeded(plan.aggregating)
    aggregates = suite_figures(aggregators, lambda: store.iter_results(order), options.evaluator_timeout)
    if aggregates:
        extra["aggregates"] = aggregates
    if statistics is not None:
        extra["statistics"] = statistics
    judged = pass_at_k_verdicts(store.iter_results(order), plan.pass_at_k)
    if judged is not None:
        extra["pass_at_k"] = judged
    if options.calibration:
        extra["calibration"] = list(options.calibration)
    if len(plan.targets) > 1:  # side by side, from the store: resumed tasks count too
        per_target = target_statistics(store.iter_results(order))
        if per_target is not None:
            extra["targets"] = per_target
    report = RunReport(
        suite=plan.name,
        run_id=store.run_id,
        summary=summary,
        tasks=lambda: store.iter_results(order),
        task_lines=lambda: store.iter_lines(order),
        started_at=started,
        finished_at=now_iso(),
        duration_s=time.monotonic() - clock,
        stopped="interrupted" if executor.interrupted else llm.redact.values(executor.stopped),
        extra=llm.redact.values(extra),
    )
    note = chosen.narrowed.note if chosen is not None else None
    return RunOutcome(report, store.folder, executor.interrupted, resumed, to_run, selected=note)


def _finish_manifest(
    plan: Plan,
    store: RunStore,
    started: str,
    status: str,
    clock: float,
    summary: Summary,
    executor: Executor,
    totals: Totals,
    run_fields: dict[str, Any],
) -> None:
    """The manifest at the run's end, whatever happened (the results written so far are intact)."""
    if not store.folder.exists():
        return
    # On a write error the original error says why.
    with contextlib.suppress(StoreWriteError):
        store.write_manifest(
            _manifest(
                plan,
                store,
                started,
                status=status,
                finished_at=now_iso(),
                duration_s=round(time.monotonic() - clock, 3),
                summary=summary.as_dict(),
                stopped=executor.stopped,
                llm=totals.as_dict(),
                **run_fields,
            )
        )


def make_executor(options: RunOptions, plan: Plan, store: RunStore) -> Executor:
    """The run's executor (``options.executor``), looked up among the registered ones."""
    settings = ExecutorSettings(
        concurrency=options.concurrency or plan.concurrency or DEFAULT_CONCURRENCY,
        workers=options.workers,
        chunk=options.chunk,
        address=options.address,
        options=dict(options.executor_options),
        evaluator_timeout=options.evaluator_timeout,
        keep_workspaces=options.keep_workspaces,
        captures_dir=store.folder / "captures",
        cache=options.cache,
        cache_path=options.cache_path,
        shared_cache=shared_cache_url(options.shared_cache),
        suite_args=dict(options.suite_args),
    )
    return (options.executor_type or LocalExecutor)(settings)


def run_plan(plan: Plan, options: RunOptions | None = None, observer: Observer | None = None) -> RunOutcome:
    """Synchronous entry point: run a loaded plan."""
    return asyncio.run(execute(plan, options or RunOptions(), observer))
