"""Closing a run: every suite-level figure read back from the store, in plan order (tasks kept by
``--resume`` or run by other processes count too), into the run's report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.execution.figures import suite_figures
from bench.pipeline.executing import Executed
from bench.pipeline.opening import OpenedRun
from bench.pipeline.options import RunOptions
from bench.report.observer import Resumed
from bench.scoring.pass_at_k import verdicts as pass_at_k_verdicts
from bench.scoring.target_stats import target_statistics
from bench.vocabulary.results import RunReport
from bench.vocabulary.store import now_iso


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


def close_run(opened: OpenedRun, executed: Executed, options: RunOptions) -> RunOutcome:
    """The run's report: its summary, and the figures its results make."""
    store, executor, llm = opened.store, executed.executor, opened.llm
    order = opened.plan.tasks.ids
    extra = llm.redact.values(_figures(opened, executed, options))
    report = RunReport(
        suite=opened.plan.name,
        run_id=store.run_id,
        summary=opened.summary,
        tasks=lambda: store.iter_results(order),
        task_lines=lambda: store.iter_lines(order),
        started_at=opened.started,
        finished_at=now_iso(),
        duration_s=time.monotonic() - executed.clock,
        stopped="interrupted" if executor.interrupted else llm.redact.values(executor.stopped),
        extra=extra,
    )
    note = opened.chosen.narrowed.note if opened.chosen is not None else None
    return RunOutcome(
        report, store.folder, executor.interrupted, opened.resumed, opened.to_run, selected=note
    )


def _figures(opened: OpenedRun, executed: Executed, options: RunOptions) -> dict[str, Any]:
    """The report's ``extra``: model calls, suite-level figures, statistics, pass@k, calibration
    and the targets side by side."""
    plan, store, totals = opened.plan, opened.store, executed.totals
    order = plan.tasks.ids
    used = totals.calls or totals.cached or totals.attempts
    extra: dict[str, Any] = {"llm": totals.as_dict()} if used else {}
    batched = opened.llm.batcher.report() if opened.llm.batcher is not None else None
    if batched and batched.get("requests"):
        extra["batches"] = batched
    statistics = opened.collector.statistics()
    # Types with only the deprecated ``aggregate(instances)`` have figures from the instances that
    # ran in this process; the others' from the stored rows.
    aggregators = executed.aggregators.seeded(plan.aggregating)
    aggregates = suite_figures(aggregators, lambda: store.iter_results(order), options.evaluator_timeout)
    if aggregates:
        extra["aggregates"] = aggregates
    if statistics is not None:
        extra["statistics"] = statistics
    judged = pass_at_k_verdicts(store.iter_results(order), plan.pass_at_k)
    if judged is not None:
        extra["pass_at_k"] = judged
    if opened.calibration:
        extra["calibration"] = list(opened.calibration)
    if len(plan.targets) > 1:  # side by side, from the store: resumed tasks count too
        per_target = target_statistics(store.iter_results(order))
        if per_target is not None:
            extra["targets"] = per_target
    return extra
