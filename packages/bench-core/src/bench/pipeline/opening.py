"""Opening a run: the calibration gate, the LLM client and its checks, the run store created (or
resumed) with the tasks selected, and the manifest's fields. Nothing has run yet."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.executor import DEFAULT_EXECUTOR, Executor
from bench.llm.client import LLMClient
from bench.llm.providers.offline import remote_models
from bench.pipeline.calibration_gate import gate
from bench.pipeline.client import StartUp, call_settings, make_client, with_client
from bench.pipeline.options import RunOptions
from bench.pipeline.rerun import (
    Selected,
    apply_selection,
    check_target_override,
    resumed_selection,
    select_tasks,
)
from bench.report.observer import Resumed, RunObserver
from bench.scoring.run_stats import StatsCollector
from bench.suite.plan import Plan, all_targets
from bench.vocabulary import redact
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.results import Summary
from bench.vocabulary.store import RunStore, now_iso, resolve_run
from bench.vocabulary.version import __version__


@dataclass
class OpenedRun:
    """A run ready to execute: its plan (narrowed by the selection, its targets built with the
    client), the store it writes to, and what a resume kept."""

    plan: Plan
    store: RunStore
    llm: LLMClient
    #: Counts of the results so far (a resume's kept tasks), completed as results land.
    summary: Summary
    collector: StatsCollector
    #: When the run first started (a resumed run keeps its first start).
    started: str
    #: The keys to run (``PlannedTask.key``); None: every task.
    selected: set[str] | None = None
    resumed: Resumed | None = None
    chosen: Selected | None = None
    #: The calibrated judges' standings measured before the run.
    calibration: tuple[dict[str, Any], ...] = ()
    #: The executor that runs the tasks (``--executor``), as the manifest records it.
    executor: str = DEFAULT_EXECUTOR

    @property
    def to_run(self) -> int:
        """How many task runs execute (a resume's kept ones left out)."""
        return len(self.plan.tasks) if self.selected is None else len(self.selected)

    def manifest(self, **fields: Any) -> dict[str, Any]:
        """The run's manifest with ``fields`` (its status, and its figures at the end)."""
        plan = self.plan
        return {
            "run_id": self.store.run_id,
            "suite": plan.name,
            "suite_path": str(plan.path.resolve()),
            "referenced_files": [str(p) for p in plan.referenced_files],
            "bench_version": __version__,
            "python": sys.version.split()[0],
            "started_at": self.started,
            "tasks": len(plan.tasks),
            "target_override": plan.target_override,
            **fields,
            **(self.chosen.manifest_fields() if self.chosen is not None else {}),
            "executor": self.executor,
        }


def _counted(plan: Plan) -> str:
    """``N tasks``, or ``N tasks, M runs`` when tasks repeat."""
    runs = len(plan.tasks)
    if plan.max_repeat <= 1:
        return f"{runs:,} tasks"
    return f"{plan.tasks.task_count():,} tasks, {runs:,} runs"


async def open_run(
    plan: Plan, options: RunOptions, observer: RunObserver, executor: Callable[[], type[Executor]]
) -> OpenedRun:
    """Check what must hold before anything runs (``executor`` gives the class that will run the
    tasks, looked up only when a check needs it), then create (or resume) the run's store."""
    refuse_sequential(plan, options, executor)
    calibration = await gate(plan, options, observer)
    # The environment as it is now; variables the suite sends as credentials are secrets
    # whatever their names (H05).
    redact.refresh(redact.credential_names([plan.path, *plan.referenced_files]))
    llm = make_client(plan, options, on_import=lambda: observer.note("importing the model client (litellm)…"))
    said = call_settings(plan, options)[1]
    if said:
        observer.note(said)
    try:
        start_up = StartUp.start(plan, llm, offline=options.offline)
        opened = _open_store(with_client(plan, llm), options, llm, calibration)
    except BaseException:
        await llm.aclose()
        raise
    try:
        observer.note(f"loaded {plan.path.name}: {_counted(opened.plan)}")
        remote = remote_models(plan.endpoints) if options.offline else []
        if remote:
            observer.note(f"offline: the checks that need {', '.join(remote)} are skipped")
        await start_up.finish(opened.plan, llm)
    except BaseException:
        opened.store.close()
        await llm.aclose()
        raise
    return opened


def refuse_sequential(plan: Plan, options: RunOptions, executor: Callable[[], type[Executor]]) -> None:
    """A target whose answers depend on the earlier tasks answered in this process (``sequential``)
    is never run by a resume, or by an executor that does not declare ``sequential_targets``:
    either would answer a task without them. An executor that is not installed declares nothing:
    the suite's reason is told, not the missing plugin."""
    for target in all_targets(plan):
        why = target.sequential()
        if why is None:
            continue
        if options.resume:
            raise ConfigError(f"--resume cannot finish this run: {why}; run the suite again without --resume")
        if not _runs_sequential_targets(executor):
            raise ConfigError(
                f"--executor {options.executor} cannot run this suite: {why}; run it with the local executor"
            )


def _runs_sequential_targets(executor: Callable[[], type[Executor]]) -> bool:
    try:
        return executor().sequential_targets
    except ConfigError:  # not installed
        return False


def _open_store(
    plan: Plan, options: RunOptions, llm: LLMClient, calibration: tuple[dict[str, Any], ...]
) -> OpenedRun:
    """A new store for the selected tasks, or the resumed run's with what is left to run."""
    collector = StatsCollector(repeats=plan.max_repeat > 1)
    if not options.resume:
        chosen = None
        if options.select is not None and options.select.active:
            chosen = apply_selection(plan, options.select, options.runs_dir)
            plan = chosen.plan
        store = RunStore.create(options.runs_dir)
        return OpenedRun(
            plan,
            store,
            llm,
            Summary(),
            collector,
            now_iso(),
            chosen=chosen,
            calibration=calibration,
            executor=options.executor,
        )
    store = RunStore.open_existing(
        options.runs_dir, resolve_run(options.runs_dir, options.resume, "--resume", plan.name)
    )
    try:
        manifest = store.read_manifest()
        check_target_override(manifest, plan.target_override, store.run_id)
        selection = resumed_selection(manifest, options.select, store.run_id)
        chosen = None if selection is None else apply_selection(plan, selection, options.runs_dir)
        plan = plan if chosen is None else chosen.plan
        selected, summary, resumed = select_tasks(plan, store, collector)
        started = manifest.get("started_at", now_iso())
    except BaseException:
        store.close()
        raise
    return OpenedRun(
        plan,
        store,
        llm,
        summary,
        collector,
        started,
        selected=selected,
        resumed=resumed,
        chosen=chosen,
        calibration=calibration,
        executor=options.executor,
    )
