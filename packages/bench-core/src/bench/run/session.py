"""One ``bench run``: open or resume the run store, run what is left, write the manifest."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bench import __version__, redact
from bench.errors import ConfigError, StoreError
from bench.llm.client import LLMClient
from bench.results import FINISHED_STATUSES, RunReport, Summary, TaskResult
from bench.run import killable
from bench.run.deadline import Exceeded, sync_deadline
from bench.run.estimate import check_prices
from bench.run.runner import EVALUATOR_TIMEOUT_S, Runner
from bench.scoring.run_stats import StatsCollector
from bench.store import RunStore, StoreWriteError, now_iso
from bench.suite.plan import Plan, PlannedTask

DEFAULT_CONCURRENCY = 8
#: After a first Ctrl-C, how long the event loop may stay unresponsive before bench exits at once.
STUCK_AFTER_S = 2.0
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
    #: Where the LLM response cache lives (default: ``cache/llm.sqlite3`` next to the runs folder).
    cache_path: Path | None = None
    #: Leave each task's workspace on disk (its path is in the result).
    keep_workspaces: bool = False


@dataclass
class Resumed:
    """What a resume found: tasks kept from earlier attempts and why others run again."""

    kept: int = 0
    changed: int = 0
    removed: int = 0


@dataclass
class RunOutcome:
    """The finished (or interrupted) run."""

    report: RunReport
    folder: Path
    interrupted: bool
    resumed: Resumed | None = None
    to_run: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Observer(Protocol):
    """Progress display hooks (the CLI's progress bar implements them)."""

    def started(self, run_id: str, total: int, kept: int, resumed: Resumed | None) -> None: ...

    def task_done(self, result: TaskResult) -> None: ...


class _Silent:
    def started(self, run_id: str, total: int, kept: int, resumed: Resumed | None) -> None:
        pass

    def task_done(self, result: TaskResult) -> None:
        pass


def serialize(result: TaskResult) -> str:
    """One result as one JSON line (valid UTF-8 even when the response holds lone surrogates)."""
    try:
        return result.model_dump_json()
    except ValueError:
        return json.dumps(result.model_dump(mode="python"), ensure_ascii=True, allow_nan=False)


def _select(plan: Plan, store: RunStore, collector: StatsCollector) -> tuple[set[str], Summary, Resumed]:
    """The ids to run again: never finished, or changed since they finished."""
    manifest = store.read_manifest()
    if manifest.get("suite") != plan.name:
        raise StoreError(f"run {store.run_id} is of suite '{manifest.get('suite')}', not '{plan.name}'")
    recorded = store.read_results()
    summary, resumed, to_run = Summary(), Resumed(), set()
    for task_id, task_digest in zip(plan.tasks.ids, plan.tasks.digests, strict=True):
        line = recorded.pop(task_id, None)
        previous = json.loads(line) if line else None
        if previous and previous.get("status") in FINISHED_STATUSES:
            if previous.get("digest") == task_digest:
                summary.add(previous["status"])
                collector.add(previous)
                resumed.kept += 1
                continue
            resumed.changed += 1
        to_run.add(task_id)
    resumed.removed = len(recorded)
    return to_run, summary, resumed


def _aggregates(runner: Runner, timeout: float) -> dict[str, Any]:
    """Suite-level figures of evaluators that have them (corpus BLEU, mean similarity, ...), each
    within the evaluator time limit."""
    out: dict[str, Any] = {}
    for (name, type_name), instances in runner.aggregators.items():
        listed = list(instances.values())
        try:
            with sync_deadline(timeout):
                figures = type(listed[0]).aggregate(listed)
        except Exceeded:
            out[name] = {"type": type_name, "error": f"the suite-level figures took more than {timeout:g} s"}
            continue
        except Exception as exc:  # a plugin's bug: say so in the report, keep the run's results
            out[name] = {"type": type_name, "error": f"{type(exc).__name__}: {exc}"}
            continue
        if figures:
            out[name] = {"type": type_name, **figures}
    return out


def _for_statistics(result: TaskResult, repeats: bool) -> dict[str, Any]:
    """The fields statistics read, without serialising the whole result."""
    row: dict[str, Any] = {
        "id": result.id,
        "status": result.status,
        "passed": result.passed,
        "score": result.score,
    }
    if repeats:  # judge samples, to split variance between the system and the judge
        row["evaluators"] = [
            {"name": o.name, "details": o.details} for o in result.evaluators if "verdicts" in o.details
        ]
    return row


def make_client(plan: Plan, options: RunOptions) -> LLMClient:
    """The run's LLM client, from the suite's settings and the command line."""
    settings = plan.llm if options.cache else plan.llm.model_copy(update={"cache": False})
    cache_path = options.cache_path or options.runs_dir.parent / "cache" / "llm.sqlite3"
    return LLMClient(
        settings,
        pricing=plan.pricing,
        runtime_limits=plan.runtime_limits,
        judge_limits=plan.judge_limits,
        cache_path=cache_path,
    )


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
        **fields,
    }


async def execute(plan: Plan, options: RunOptions, observer: Observer | None = None) -> RunOutcome:
    """Run a plan to completion (or interruption); every result lands in the run store."""
    observer = observer or _Silent()
    # The environment as it is now; variables the suite sends as credentials are secrets
    # whatever their names (H05).
    redact.refresh(redact.credential_names([plan.path, *plan.referenced_files]))
    llm = make_client(plan, options)
    check_prices(plan, llm.prices)
    resumed: Resumed | None = None
    selected: set[str] | None = None  # None: every task
    collector = StatsCollector(repeats=plan.max_repeat > 1)
    if options.resume:
        store = RunStore.open_existing(options.runs_dir, options.resume)
        try:
            selected, summary, resumed = _select(plan, store, collector)
            started = store.read_manifest().get("started_at", now_iso())
        except BaseException:
            store.close()
            raise
    else:
        store = RunStore.create(options.runs_dir)
        summary, started = Summary(), now_iso()
    to_run = len(plan.tasks) if selected is None else len(selected)
    tasks: Iterable[PlannedTask] = (
        plan.tasks if selected is None else (p for p in plan.tasks if p.key in selected)
    )

    if plan.target is not None:
        plan.target.llm = llm
    concurrency = options.concurrency or plan.concurrency or DEFAULT_CONCURRENCY
    runner = Runner(
        plan.target,
        lambda r: None,
        concurrency=concurrency,
        llm=llm,
        evaluator_timeout=options.evaluator_timeout,
        metrics=plan.metrics,
        signals=plan.signals,
        keep_workspaces=options.keep_workspaces,
        captures_dir=store.folder / "captures",
        redact=llm.redact,
        max_response_bytes=plan.max_response_bytes,
    )

    def record(result: TaskResult) -> None:
        try:
            store.append(llm.redact(serialize(result)))
        except StoreWriteError:
            runner.interrupt()
            raise
        summary.add(result.status)
        collector.add(_for_statistics(result, collector.repeats))
        observer.task_done(result)

    runner.record = record
    if plan.target is not None and plan.target.llm_calls() and plan.needs_target:
        await llm.warm_up()  # seconds of import belong to start-up, not to the first task's timeout
    clock = time.monotonic()
    status = "running"
    try:
        if plan.target is not None and plan.needs_target and to_run:
            try:
                await plan.target.open()
            except ConfigError:
                if not options.resume:
                    store.close()
                    shutil.rmtree(store.folder, ignore_errors=True)
                raise
        store.write_manifest(_manifest(plan, store, started, status=status))
        observer.started(store.run_id, len(plan.tasks), summary.total, resumed)
        with _signals(runner, options.handle_signals, store.run_id):
            try:
                await runner.run(tasks)
            finally:
                if plan.target is not None:
                    await plan.target.close()
        status = "interrupted" if runner.interrupted else "stopped" if runner.stopped else "finished"
        summary.not_run = len(plan.tasks) - summary.total
        summary.total = len(plan.tasks)
    except StoreWriteError:
        status = "failed"
        raise
    finally:
        if store.folder.exists():
            duration = time.monotonic() - clock
            # On a write error the original error says why; the results written so far are intact.
            with contextlib.suppress(StoreWriteError):
                store.write_manifest(
                    _manifest(
                        plan,
                        store,
                        started,
                        status=status,
                        finished_at=now_iso(),
                        duration_s=round(duration, 3),
                        summary=summary.as_dict(),
                        stopped=runner.stopped,
                        llm=llm.totals.as_dict(),
                    )
                )
        store.close()
        llm.close()

    order = plan.tasks.ids
    used = llm.totals.calls or llm.totals.cached or llm.totals.attempts
    extra: dict[str, Any] = {"llm": llm.totals.as_dict()} if used else {}
    statistics = collector.statistics()
    aggregates = _aggregates(runner, options.evaluator_timeout)
    if aggregates:
        extra["aggregates"] = aggregates
    if statistics is not None:
        extra["statistics"] = statistics
    report = RunReport(
        suite=plan.name,
        run_id=store.run_id,
        summary=summary,
        tasks=lambda: store.iter_results(order),
        task_lines=lambda: store.iter_lines(order),
        started_at=started,
        finished_at=now_iso(),
        duration_s=time.monotonic() - clock,
        stopped="interrupted" if runner.interrupted else llm.redact.values(runner.stopped),
        extra=llm.redact.values(extra),
    )
    return RunOutcome(report, store.folder, runner.interrupted, resumed, to_run)


class _signals:
    """First SIGINT/SIGTERM: stop cleanly and record what was in flight. Second: exit at once.

    A real signal handler, not ``loop.add_signal_handler``: that one runs only when the event loop
    polls, and a loop busy with CPU-bound work (or blocked in a plugin) may not poll for minutes.
    This one runs between two Python instructions wherever the main thread is: it sets the stop
    flag and cancels the tasks in flight there (as ``asyncio.run``'s own SIGINT handler cancels
    its main task), then wakes the loop. A watchdog exits at once if the loop cannot answer within
    ``STUCK_AFTER_S`` (a task stuck in code no cancellation reaches).
    """

    def __init__(self, runner: Runner, enabled: bool, run_id: str = "") -> None:
        self.runner = runner
        self.enabled = enabled
        self.run_id = run_id
        self.previous: dict[int, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def _handle(self, signum: int, frame: object) -> None:
        if self.runner.interrupted:
            killable.kill_now()
            os._exit(130)  # results are appended whole (one write per line): nothing is torn
        self.runner.interrupt()
        if self.loop is not None:
            self.loop.call_soon_threadsafe(lambda: None)
            threading.Thread(target=self._watch, args=(self.loop,), daemon=True).start()

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Exit at once if the loop cannot even run a callback: a task is stuck in plain Python code
        (a plugin's endless loop) that no cancellation reaches (RELIABILITY N11)."""
        answered = threading.Event()
        try:
            loop.call_soon_threadsafe(answered.set)
        except RuntimeError:  # the loop is closed: the run has ended
            return
        if answered.wait(STUCK_AFTER_S):
            return
        sys.stderr.write(
            f"bench: the run did not stop within {STUCK_AFTER_S:g} s (a task is stuck in code that cannot "
            "be interrupted); exiting now: the results written so far are kept, finish the run with "
            f"--resume {self.run_id}\n"
        )
        sys.stderr.flush()
        killable.kill_now()
        os._exit(130)

    def __enter__(self) -> None:
        if not self.enabled:
            return
        self.loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, OSError):  # not the main thread: the caller's job
                self.previous[sig] = signal.signal(sig, self._handle)

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)


def run_plan(plan: Plan, options: RunOptions | None = None, observer: Observer | None = None) -> RunOutcome:
    """Synchronous entry point: run a loaded plan."""
    return asyncio.run(execute(plan, options or RunOptions(), observer))
