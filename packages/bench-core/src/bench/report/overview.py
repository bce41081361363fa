"""What ``bench validate``, ``bench evaluators`` and ``--dry-run`` print: the plan, the evaluator
list, the estimate, and progress while a large suite is read."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from bench.llm.accounting import Estimate
from bench.plugins.registry import Registry
from bench.report.console import MAX_TASKS_LISTED, plain, stderr, stdout
from bench.suite.plan import Plan

if TYPE_CHECKING:
    from rich.progress import Progress


def _relative(origin: str) -> str:
    try:
        return str(Path(origin).relative_to(Path.cwd()))
    except ValueError:
        return origin


class TaskCounter:
    """Progress of one pass over a suite's tasks, on stderr.

    On a terminal a live counter (from ``LIVE_AFTER`` tasks on, so small suites show nothing);
    elsewhere a line every ``LINE_EVERY`` tasks, so CI logs show a large suite is moving.
    """

    LIVE_AFTER = 1_000
    LINE_EVERY = 10_000

    def __init__(self, verb: str, total: int | None = None) -> None:
        self.verb = verb
        self.total = total
        self.live = stderr.is_terminal
        self.progress: Progress | None = None
        self.bar: Any = None

    def __enter__(self) -> TaskCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def _describe(self, done: int) -> str:
        if self.total is None:
            return f"{self.verb}: {done:,} tasks checked"
        return f"{self.verb}: {done:,} of {self.total:,} tasks"

    def __call__(self, done: int) -> None:
        """Record that ``done`` tasks are through."""
        if not self.live:
            if done % self.LINE_EVERY == 0:
                stderr.print(Text(self._describe(done)), soft_wrap=True)
            return
        if self.progress is None:
            if done < self.LIVE_AFTER:
                return
            from rich.progress import Progress, TextColumn, TimeElapsedColumn  # a large suite, on a terminal

            self.progress = Progress(
                TextColumn("{task.description}"), TimeElapsedColumn(), console=stderr, transient=True
            )
            self.progress.start()
            self.bar = self.progress.add_task(self._describe(done))
        if done % 100 == 0:
            self.progress.update(self.bar, description=self._describe(done))


def _origin_file(origin: str) -> str:
    """``path:line`` without the line."""
    path, _, line = origin.rpartition(":")
    return path if path and line.isdigit() else origin


def print_plan(plan: Plan) -> None:
    """What ``bench validate`` shows: target, tasks, and each evaluator with where it is used.

    Named evaluators and those from definition files get a row each; inline ones are grouped by
    type and file, and at most ``MAX_TASKS_LISTED`` tasks are listed, so a 100,000-task suite
    prints a short summary.
    """
    runs = len(plan.tasks)
    counted = f"{runs} tasks"
    if plan.max_repeat > 1:
        counted = f"{plan.tasks.task_count()} tasks, {runs} runs (repeat up to {plan.max_repeat})"
    untargeted = plan.needs_target and plan.target is None and not plan.targets
    target_type = "none" if untargeted else plan.target_type
    stdout.print(Text(f"suite '{plan.name}' is valid: {counted}, target: {target_type}"))
    if plan.scorecard_strategy:
        stdout.print(Text(f"scorecard: {plan.scorecard_strategy}"))
    named = {id(ev) for ev in plan.named_evaluators.values()}
    definitions = {str(path) for path in plan.referenced_files}
    rows: dict[tuple[str, str, str, str], int] = {}
    repos: dict[str, int] = {}
    listed: list[tuple[Text, str, Text]] = []
    with TaskCounter("listing", runs) as counter:
        for done, planned in enumerate(plan.tasks, start=1):
            counter(done)
            if planned.task.repo is not None:
                where = f"{planned.task.repo.source} at {planned.task.repo.revision}"
                repos[where] = repos.get(where, 0) + 1
            for ev in planned.evaluators:
                file = _origin_file(ev.origin)
                if id(ev) in named or file in definitions:
                    key = (ev.name, ev.type, ev.distribution, _relative(ev.origin))
                else:
                    key = ("(inline)", ev.type, ev.distribution, _relative(file))
                rows[key] = rows.get(key, 0) + 1
            if len(listed) < MAX_TASKS_LISTED:
                source = "recorded" if planned.task.response is not None else target_type
                names = plain(", ".join(e.name for e in planned.evaluators))
                listed.append((plain(planned.task.id), source, names))
    for where, count in repos.items():
        stdout.print(plain(f"workspace: a fresh copy of {where} for each of {count} task runs", 400))
    table = Table(title="Evaluators", title_justify="left")
    for column in ("name", "type", "provided by", "defined in", "tasks"):
        table.add_column(column, overflow="fold")
    for (name, type_name, dist, origin), count in rows.items():
        table.add_row(plain(name), plain(type_name), plain(dist), plain(origin), str(count))
    stdout.print(table)
    tasks = Table(title="Tasks", title_justify="left")
    for column in ("task", "response from", "evaluators"):
        tasks.add_column(column, overflow="fold")
    for row in listed:
        tasks.add_row(*row)
    stdout.print(tasks)
    if runs > len(listed):
        stdout.print(Text(f"... and {runs - len(listed):,} more tasks"))
    suite_folder = plan.path.resolve().parent
    for path in plan.referenced_files:
        if suite_folder in path.parents:
            stdout.print(plain(f"definition file: {_relative(str(path))}", 4096))
        else:  # the real path, so a reviewer sees where a suite reaches outside its folder (B05)
            stdout.print(plain(f"definition file: {path} (outside the suite folder)", 4096))
    if untargeted:
        tasks_without = "1 task has" if plan.needs_target == 1 else f"{plan.needs_target:,} tasks have"
        stdout.print(
            Text(
                f"a target is needed to run it: {tasks_without} no recorded response and the suite "
                "names no target (add 'target:' or give --target SPEC)"
            )
        )


def print_evaluators(registry: Registry) -> None:
    """What ``bench evaluators`` shows."""
    table = Table(title="Evaluator types", title_justify="left")
    table.add_column("type", no_wrap=True)
    table.add_column("aliases", overflow="fold")
    table.add_column("distribution", no_wrap=True)
    table.add_column("description", overflow="fold", ratio=1)
    for provided in registry.evaluator_types():
        cls = provided.cls
        doc = (cls.__doc__ or "").strip().split("\n", 1)[0]
        table.add_row(cls.name, ", ".join(cls.aliases), provided.distribution, doc)
    stdout.print(table)
    if registry.targets:
        stdout.print(Text("targets: " + ", ".join(sorted(registry.targets))))


def print_estimate(plan: Plan, estimate: Estimate) -> None:
    """What ``bench run --dry-run`` shows: model calls per model and an upper-bound cost."""
    stdout.print(Text(f"dry run of '{plan.name}': {len(plan.tasks)} tasks, nothing called"))
    for row in estimate.models.values():
        cost = "no price" if row.cost_usd is None else f"at most ${row.cost_usd:.4f}"
        if row.batched:
            cost += (
                "; no price" if row.batch_cost_usd is None else f" live, ${row.batch_cost_usd:.4f} in a batch"
            )
        line = (
            f"  {row.model}: {row.calls} calls, about {row.input_tokens:,} input tokens, "
            f"at most {row.output_tokens:,} output tokens, {cost}"
        )
        stdout.print(plain(line, limit=500))
    total = estimate.cost_usd
    cost = "unknown (a model has no price; add pricing.models)" if total is None else f"at most ${total:.4f}"
    if estimate.batched and total is not None and estimate.batch_cost_usd is not None:
        cost += f" live, ${estimate.batch_cost_usd:.4f} with the batch price"
    stdout.print(Text(f"{estimate.calls} model calls; cost {cost}"))
    if estimate.simulator_calls:
        stdout.print(Text(f"  of which {estimate.simulator_calls} by simulated users"))
