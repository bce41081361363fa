"""Resuming a run: which tasks finished unchanged and which run again.

The store is scanned line by line (``RunStore.latest_refs``): only whether each key's latest line
finished and where it starts are held, never the lines, so a resume over a million results stays
small. The finished lines are then read back one at a time, in plan order, for their digest, the
summary and the statistics.
"""

from __future__ import annotations

from bench.report.observer import Resumed
from bench.scoring.run_stats import StatsCollector
from bench.suite.plan import Plan
from bench.vocabulary.errors import StoreError
from bench.vocabulary.results import Summary
from bench.vocabulary.store import RunStore, parsed

__all__ = ["Resumed", "select_tasks"]


def select_tasks(plan: Plan, store: RunStore, collector: StatsCollector) -> tuple[set[str], Summary, Resumed]:
    """The ids to run again: never finished, or changed since they finished."""
    manifest = store.read_manifest()
    if manifest.get("suite") != plan.name:
        raise StoreError(f"run {store.run_id} is of suite '{manifest.get('suite')}', not '{plan.name}'")
    recorded = store.latest_refs()
    summary, resumed, to_run = Summary(), Resumed(), set()
    for task_id, task_digest in zip(plan.tasks.ids, plan.tasks.digests, strict=True):
        ref = recorded.pop(task_id, None)
        previous = parsed(store.read_line(ref.offset)) if ref is not None and ref.finished else None
        if previous is not None:  # its latest line finished
            if previous.get("digest") == task_digest:
                summary.add(previous["status"])
                collector.add(previous)
                resumed.kept += 1
                continue
            resumed.changed += 1
        to_run.add(task_id)
    resumed.removed = len(recorded)
    return to_run, summary, resumed
