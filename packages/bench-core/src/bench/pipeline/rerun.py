"""Runs again: which of a run's tasks ``--resume`` runs, and which ``--failed RUN_ID`` /
``--errors RUN_ID`` select from the run store before the rest of the ``Selection``
(bench.suite.selection.narrowing) is applied to the plan.

A run derived from another records it in its manifest (``derived_from``), and every run records
its selection, which ``--resume`` applies again (a different one given on resume is refused).
A resume scans the store line by line (``RunStore.latest_refs``): only whether each key's latest
line finished and where it starts are held, never the lines, so a resume over a million results
stays small. The finished lines are then read back one at a time, in plan order, for their
digest, the summary and the statistics.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report.observer import Resumed
from bench.scoring.run_stats import StatsCollector
from bench.suite.plan import Plan
from bench.suite.selection.narrowing import Narrowed, Selection, narrow
from bench.vocabulary.errors import ConfigError, StoreError
from bench.vocabulary.results import ERROR, FAILED, Summary
from bench.vocabulary.run_key import RunKey
from bench.vocabulary.store import MANIFEST, RunStore, newest_run, parsed, results_path

LATEST = "latest"


@dataclass
class Selected:
    """A selection applied: the narrowed plan and what the run's manifest records of it."""

    narrowed: Narrowed

    @property
    def plan(self) -> Plan:
        return self.narrowed.plan

    def manifest_fields(self) -> dict[str, Any]:
        selection = self.narrowed.selection
        fields: dict[str, Any] = {"selection": selection.as_dict()}
        source = selection.failed or selection.errors
        if source:
            which = "+".join(
                w for w, given in (("failed", selection.failed), ("errors", selection.errors)) if given
            )
            fields["derived_from"] = {"run": source, "select": which}
        return fields


def apply_selection(plan: Plan, selection: Selection, runs_dir: Path) -> Selected:
    """Narrow ``plan`` to ``selection``, reading the run that ``--failed``/``--errors`` names."""
    only: set[str] | None = None
    if selection.failed or selection.errors:
        option = "--failed" if selection.failed else "--errors"
        given = selection.failed or selection.errors or ""
        run_id = _resolve(runs_dir, given, plan.name, option)
        selection = selection.with_run(run_id)
        statuses: set[str] = {
            s for s, wanted in ((FAILED, selection.failed), (ERROR, selection.errors)) if wanted
        }
        only = _task_ids(runs_dir / run_id, statuses)
        if not only:
            kinds = " or ".join(
                "failed" if s == FAILED else "errored" for s in sorted(statuses, reverse=True)
            )
            raise ConfigError(
                f"{option} {given}: run {run_id} has no task that {kinds}; nothing to run again"
            )
    return Selected(narrow(plan, selection, only))


def resumed_selection(manifest: dict[str, Any], given: Selection | None, run_id: str) -> Selection | None:
    """The selection a resumed run applies: the one it was started with; another one is refused."""
    recorded = manifest.get("selection")
    before = Selection.from_dict(recorded) if isinstance(recorded, dict) else Selection()
    source = before.failed or before.errors
    if given is not None and source and LATEST in (given.failed, given.errors):
        given = given.with_run(source)  # the run 'latest' named when this run started
    if given is not None and given.active and given != before:
        started = before.describe() if before.active else "every task"
        raise ConfigError(
            f"run {run_id} was started with {started}, not {given.describe()}; resume it without "
            "selection options (the run's own selection is applied again)"
        )
    return before if before.active else None


def check_target_override(manifest: dict[str, Any], given: dict[str, Any] | None, run_id: str) -> None:
    """A resumed run answers with the targets it started with: ``--target`` must be the same."""
    recorded = manifest.get("target_override")
    if recorded == given:
        return
    if recorded is None:
        raise ConfigError(f"run {run_id} was started without --target; resume it without --target")
    raise ConfigError(
        f"run {run_id} was started with --target '{json.dumps(recorded)}'; resume it with the same --target"
    )


def _resolve(runs_dir: Path, run_id: str, suite: str, option: str) -> str:
    """The run ``run_id`` names (``latest``: this suite's newest), checked to be of ``suite``."""
    if run_id == LATEST:
        newest = _newest(runs_dir, suite)
        if newest is None:
            raise ConfigError(f"{option} latest: no run of suite '{suite}' in {runs_dir}")
        return newest
    manifest = _manifest(runs_dir, run_id)
    if manifest is None:
        raise ConfigError(f"{option} {run_id}: no run '{run_id}' in {runs_dir}")
    if manifest.get("suite") != suite:
        raise ConfigError(
            f"{option} {run_id}: run {run_id} is of suite '{manifest.get('suite')}', not '{suite}'"
        )
    return run_id


def _manifest(runs_dir: Path, run_id: str) -> dict[str, Any] | None:
    if not run_id or "/" in run_id or run_id.startswith("."):
        return None
    try:
        data = json.loads((runs_dir / run_id / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _newest(runs_dir: Path, suite: str) -> str | None:
    """This suite's newest run: run ids start with their start time; ties go to the last written."""
    return newest_run(runs_dir, suite)


def _task_ids(folder: Path, statuses: set[str]) -> set[str]:
    """The ids of tasks whose latest result (any repeat) has one of ``statuses``, read line by line."""
    hits: set[RunKey] = set()
    path = results_path(folder)
    if not path.is_file():
        return set()
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                row = json.loads(line)
                key = RunKey.of(row)
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line: its task did not finish
            if row.get("status") in statuses:
                hits.add(key)
            else:
                hits.discard(key)  # a later attempt (a resume) replaced it
    return {task_id for task_id, _ in hits}


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
