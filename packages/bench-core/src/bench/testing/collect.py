"""``pytest evals/suite.yaml``: a bench suite collected as one test item per task (when opted in).

The first item of a file to run runs every selected task of that file as one bench run (so
``-k`` and ``--deselect`` choose tasks and the suite's concurrency applies); each item then
passes or fails with its task's result, the evaluators' reasons in the failure. Runs are stored
under ``.bench/runs`` in pytest's root folder, like ``bench run``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from bench.testing.assertions import describe

if TYPE_CHECKING:
    from bench.api import LoadedSuite
    from bench.vocabulary.results import TaskResult


class TaskFailed(Exception):
    """A collected task did not pass; the message says why."""


class SuiteFile(pytest.File):
    """A suite file: one ``TaskItem`` per run of a task (``id``, ``id@1``... with repeats)."""

    loaded: LoadedSuite | None = None
    _results: dict[str, TaskResult] | None = None
    _stopped: str | None = None

    def collect(self) -> Iterator[TaskItem]:
        from bench.api import load
        from bench.vocabulary.errors import BenchError

        try:
            self.loaded = load(self.path)
        except BenchError as exc:
            raise self.CollectError(f"bench could not load the suite: {exc}") from None
        for key in self.loaded.task_ids:
            yield TaskItem.from_parent(self, name=key)

    def result_of(self, key: str) -> TaskResult | None:
        """The task's result; the first call runs every task of this file pytest selected."""
        if self._results is None:
            wanted = {item.name for item in self.session.items if item.parent is self} | {key}
            self._results = self._run(wanted)
        return self._results.get(key)

    def _run(self, wanted: set[str]) -> dict[str, TaskResult]:
        from bench.api import RunResult, run_blocking
        from bench.pipeline.options import RunOptions
        from bench.pipeline.run import run_loaded

        assert self.loaded is not None
        plan = _only(self.loaded.plan, wanted)
        options = RunOptions(runs_dir=self.config.rootpath / ".bench" / "runs", handle_signals=False)
        outcome = run_blocking(lambda: run_loaded(plan, options))
        result = RunResult(outcome.report, outcome.folder, outcome.interrupted)
        self._stopped = result.stopped
        return {r.key: r for r in result.results}

    @property
    def stopped(self) -> str | None:
        return self._stopped


def _only(plan: Any, wanted: set[str]) -> Any:
    """The plan with only the tasks whose keys are in ``wanted``."""
    from bench.suite.plan import TaskList

    tasks = plan.tasks
    if set(tasks.ids) <= wanted:
        return plan
    pairs = [(k, d) for k, d in zip(tasks.ids, tasks.digests, strict=True) if k in wanted]
    built = [p for p in tasks if p.key in wanted] if tasks.kept else None
    chosen = TaskList(
        [k for k, _ in pairs], [d for _, d in pairs], lambda: (p for p in tasks if p.key in wanted), built
    )
    return dataclasses.replace(plan, tasks=chosen)


class TaskItem(pytest.Item):
    """One run of one task of a suite."""

    parent: SuiteFile

    def runtest(self) -> None:
        result = self.parent.result_of(self.name)
        if result is None:
            why = self.parent.stopped or "the run ended first"
            raise TaskFailed(f"task {self.name} did not run: {why}")
        if result.status == "passed":
            return
        lines = [f"task {self.name} {result.status}" + _score(result.score)]
        if result.error:
            lines.append(f"error: {result.error}")
        lines += [describe(o) for o in result.evaluators if not o.passed or o.error is not None]
        raise TaskFailed("\n  ".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, TaskFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"bench task {self.name}"


def _score(score: float | None) -> str:
    return "" if score is None else f" (score {score:.2f})"
