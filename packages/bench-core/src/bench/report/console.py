"""What ``bench`` prints: progress, the run summary, the plan and the evaluator list.

Text that comes from a run (responses, reasons, errors) is untrusted: it is printed as rich
``Text`` with control characters removed, never as markup (RELIABILITY.md J5, D03).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from bench import redact
from bench.plugins.registry import Registry
from bench.results import PASSED, TaskResult
from bench.run.estimate import Estimate
from bench.run.resume import Resumed
from bench.run.session import RunOutcome
from bench.suite.plan import Plan

if TYPE_CHECKING:
    from bench.report.compare import Comparison

_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
)
MAX_LISTED = 20
MAX_TASKS_LISTED = 50

stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False)


def plain(text: Any, limit: int = 200) -> Text:
    """Untrusted text, made safe to print: no markup, no control characters, one line, no secret
    (redacted before it is cut, or the cut would leave a piece of the secret that no longer matches)."""
    cleaned = _CONTROL.sub("", redact.current()("" if text is None else str(text))).replace("\n", " ")
    return Text(cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…")


class ConsoleObserver:
    """A progress bar on stderr, plus the first few tasks that did not pass."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and stderr.is_terminal
        self.not_passed: list[TaskResult] = []
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=stderr,
            transient=True,
            disable=not self.enabled,
        )
        self.bar: Any = None
        self.counts = {"passed": 0, "failed": 0, "error": 0}
        #: Tasks whose agent left its workspace (``../x`` writes, symlinks leading out).
        self.escapes: list[tuple[str, list[dict[str, str]]]] = []
        self.kept: list[str] = []

    def __enter__(self) -> ConsoleObserver:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def started(self, run_id: str, total: int, kept: int, resumed: Resumed | None) -> None:
        if resumed is not None:
            note = f"resuming run {run_id}: {resumed.kept} kept, {total - resumed.kept} to run"
            if resumed.changed:
                note += f" ({resumed.changed} changed since the first attempt)"
            if resumed.removed:
                note += f"; {resumed.removed} no longer in the suite are left out"
            stderr.print(Text(note))
        self.bar = self.progress.add_task("running", total=total, completed=kept, counts="")

    def task_done(self, result: TaskResult) -> None:
        if result.status in self.counts:
            self.counts[result.status] += 1
        if result.status != PASSED and len(self.not_passed) < MAX_LISTED:
            self.not_passed.append(result)
        workspace = result.workspace or {}
        if workspace.get("escapes"):
            self.escapes.append((result.id, workspace["escapes"]))
        if workspace.get("path"):
            self.kept.append(workspace["path"])
        if self.bar is not None and self.enabled:
            c = self.counts
            self.progress.update(
                self.bar, advance=1, counts=f"✓ {c['passed']} ✗ {c['failed']} ! {c['error']}"
            )


def _why(result: TaskResult) -> Text:
    if result.status == "error" and result.error and not result.evaluators:
        return plain(result.error)
    for outcome in result.evaluators:
        if outcome.error:
            return plain(f"{outcome.name}: {outcome.error}")
        if not outcome.passed:
            return plain(f"{outcome.name}: {outcome.reason}")
    return plain("; ".join(f"{o.name}: {o.reason}" for o in result.evaluators) or result.status)


_STYLES = {"passed": "green", "failed": "red"}


def _print_workspaces(observer: ConsoleObserver) -> None:
    for task_id, escapes in observer.escapes[:MAX_LISTED]:
        listed = "; ".join(
            f"{e['kind']}: {e['path']}" + (f" -> {e['target']}" if e.get("target") else "")
            for e in escapes[:5]
        )
        stdout.print(plain(f"warning: task {task_id} left its workspace: {listed}", 400), style="yellow")
    if observer.kept:
        where = os.path.dirname(os.path.dirname(observer.kept[0]))
        stdout.print(plain(f"workspaces kept ({len(observer.kept)}): {where}", 400))


def print_summary(outcome: RunOutcome, observer: ConsoleObserver, suite: Path) -> None:
    """A table of the tasks (all of them in a small run, else those that did not pass), then
    the totals and where the run is stored."""
    s = outcome.report.summary
    if s.total <= MAX_LISTED:
        rows = [TaskResult.model_validate(task) for task in outcome.report.tasks()]
        title = "Results"
    else:
        rows, title = observer.not_passed, "Tasks that did not pass"
    if rows:
        table = Table(title=title, title_justify="left", show_lines=False)
        table.add_column("task", overflow="fold")
        table.add_column("status")
        table.add_column("why", overflow="fold")
        for result in rows:
            style = _STYLES.get(result.status, "yellow")
            name = result.id if not result.repeat else f"{result.id} (run {result.repeat + 1})"
            table.add_row(plain(name, 60), Text(result.status, style=style), _why(result))
        stdout.print(table)
    shown = sum(r.status != PASSED for r in rows)
    hidden = s.failed + s.errors + s.interrupted - shown
    line = Text()
    statistics = outcome.report.extra.get("statistics") or {}
    if statistics.get("repeats", 1) > 1:
        line.append(f"{s.total} runs of {statistics['tasks']} tasks: ")
    else:
        line.append(f"{s.total} tasks: ")
    line.append(f"{s.passed} passed", style="green")
    line.append(", ")
    line.append(f"{s.failed} failed", style="red" if s.failed else "")
    line.append(", ")
    line.append(f"{s.errors} errors", style="yellow" if s.errors else "")
    if s.interrupted:
        line.append(f", {s.interrupted} interrupted", style="yellow")
    if s.not_run:
        line.append(f", {s.not_run} not run", style="yellow")
    line.append(f" in {outcome.report.duration_s:.2f} s")
    stdout.print(line)
    if hidden > 0 and shown:
        stdout.print(Text(f"({hidden} more not shown; see the results file)"))
    stdout.print(Text(f"run {outcome.report.run_id}: {outcome.folder / 'results.jsonl'}"))
    _print_workspaces(observer)
    llm = outcome.report.extra.get("llm")
    if llm:
        cost = "unknown" if llm["cost_usd"] is None else f"${llm['cost_usd']:.4f}"
        stdout.print(
            Text(
                f"model calls: {llm['calls']} made, {llm['cached']} from cache; "
                f"{llm['total_tokens']:,} tokens; cost {cost}"
            )
        )
    statistics = outcome.report.extra.get("statistics")
    if statistics:
        for text in statistics_lines(statistics):
            stdout.print(Text(text))
    for label, figures in (outcome.report.extra.get("aggregates") or {}).items():
        listed = ", ".join(
            f"{key.replace('_', ' ')} {value:.4g}"
            for key, value in figures.items()
            if isinstance(value, (int, float))
        )
        stdout.print(plain(f"{label} ({figures['type']}): {listed}", 300))
    if outcome.interrupted:
        stdout.print(Text(f"interrupted; finish it with: bench run {suite} --resume {outcome.report.run_id}"))
    elif outcome.report.stopped:
        stdout.print(
            Text(
                f"stopped: {outcome.report.stopped}; finish it with: "
                f"bench run {suite} --resume {outcome.report.run_id}"
            )
        )


def _interval(block: dict[str, Any], percent: bool) -> str:
    scale, unit = (100, "%") if percent else (1, "")
    value, low, high = (block[k] * scale for k in ("value", "low", "high"))
    digits = 1 if percent else 3
    return f"{value:.{digits}f}{unit} [{low:.{digits}f}{unit}, {high:.{digits}f}{unit}] ({block['method']})"


def statistics_lines(statistics: dict[str, Any]) -> list[str]:
    """The run's statistics as short lines for the console."""
    level = f"{statistics['confidence']:.0%}"
    lines = [f"pass rate {_interval(statistics['pass_rate'], True)}, {level} interval"]
    if "mean_score" in statistics:
        lines.append(f"mean score {_interval(statistics['mean_score'], False)}")
    if statistics.get("repeats", 1) > 1:
        at_k = ", ".join(f"pass@{k} {v:.3f}" for k, v in statistics["pass_at_k"].items())
        hat_k = ", ".join(f"pass^{k} {v:.3f}" for k, v in statistics["pass_hat_k"].items())
        lines.append(f"{statistics['repeats']} runs per task: {at_k}; {hat_k}")
        flaky = statistics.get("flaky") or []
        shown = ", ".join(flaky[:10]) + (f" (+{len(flaky) - 10} more)" if len(flaky) > 10 else "")
        lines.append(f"flaky tasks ({len(flaky)}): {shown}" if flaky else "flaky tasks: none")
        variance = statistics.get("variance")
        if variance:
            lines.append(
                f"score variance: system {variance['system']:.4f}, judge {variance['judge']:.4f} "
                f"({variance['system_share']:.0%} system): {variance['hint']}"
            )
    return lines


def print_comparison(result: Comparison, alpha: float) -> None:
    """What ``bench compare`` shows."""
    rate = result.pass_rate
    stdout.print(Text(f"{result.matched} tasks in common", style="bold"))
    if result.only_in_a or result.only_in_b:
        stdout.print(
            plain(f"only in A: {len(result.only_in_a)} ({', '.join(result.only_in_a[:5])}); "
                  f"only in B: {len(result.only_in_b)} ({', '.join(result.only_in_b[:5])})", 400)
        )  # fmt: skip
    if rate.get("a") is not None:
        low, high = rate["interval"]
        stdout.print(
            Text(
                f"pass rate {rate['a']:.1%} -> {rate['b']:.1%}: {rate['difference']:+.1%} "
                f"[{low:+.1%}, {high:+.1%}], {rate['test']}, p = {rate['p_value']:.4g}"
            )
        )
    if result.score is not None:
        s = result.score
        stdout.print(
            Text(
                f"mean score {s['a']:.3f} -> {s['b']:.3f}: {s['difference']:+.3f} "
                f"[{s['interval'][0]:+.3f}, {s['interval'][1]:+.3f}], "
                f"paired bootstrap, p = {s['p_value']:.4g}"
            )
        )
    for label, tasks, style in (
        ("regressed", result.regressions, "red"),
        ("improved", result.improvements, "green"),
    ):
        if tasks:
            shown = ", ".join(tasks[:10]) + (f" (+{len(tasks) - 10} more)" if len(tasks) > 10 else "")
            line = Text(f"{label} ({len(tasks)}): ", style=style)
            line.append(plain(shown, 600))
            stdout.print(line)
    style = {"regression": "red", "improvement": "green"}.get(result.verdict, "yellow")
    verdict = Text(f"verdict: {result.verdict}", style=f"bold {style}")
    if result.verdict == "insufficient evidence":
        needed = f"; about {result.needed_tasks} tasks would be needed" if result.needed_tasks else ""
        verdict.append(f" ({result.note}{needed})")
    elif result.verdict == "no significant change":
        verdict.append(f" at alpha {alpha:g}")
    stdout.print(verdict)


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
        distinct = len({key.split("@", 1)[0] for key in plan.tasks.ids})
        counted = f"{distinct} tasks, {runs} runs (repeat up to {plan.max_repeat})"
    stdout.print(Text(f"suite '{plan.name}' is valid: {counted}, target: {plan.target_type}"))
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
                source = "recorded" if planned.task.response is not None else plan.target_type
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
        line = (
            f"  {row.model}: {row.calls} calls, about {row.input_tokens:,} input tokens, "
            f"at most {row.output_tokens:,} output tokens, {cost}"
        )
        stdout.print(plain(line, limit=500))
    total = estimate.cost_usd
    cost = "unknown (a model has no price; add pricing.models)" if total is None else f"at most ${total:.4f}"
    stdout.print(Text(f"{estimate.calls} model calls; cost {cost}"))
