"""What ``bench run`` and ``bench compare`` print: progress, the run summary, the comparison.

Text that comes from a run (responses, reasons, errors) is untrusted: it is printed as rich
``Text`` with control characters removed, never as markup (docs/reliability.md D03).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bench.report.observer import Resumed, RunObserver
from bench.report.progress import LINE_EVERY_S, Spending, Tracker, live_bar
from bench.vocabulary import redact
from bench.vocabulary.results import NOT_APPLICABLE, PASSED, RunReport, Summary, TaskResult
from bench.vocabulary.store import results_path

if TYPE_CHECKING:
    from bench.report.compare import Comparison

_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
)
MAX_LISTED = 20
MAX_TASKS_LISTED = 50


class _Console(Console):
    """rich's console, leaving a closed pipe to the command line (bench.cli exits 141 quietly)
    rather than exiting 1 itself, which a reader of bench's exit codes would take for a failure."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise  # the BrokenPipeError rich is handling


# No ``:name:`` emoji codes: bench prints none, and a task's text must print as written (rich's
# code table alone costs ~2 ms to import).
stdout = _Console(highlight=False, soft_wrap=True, emoji=False)
stderr = _Console(stderr=True, highlight=False, emoji=False)


def plain(text: Any, limit: int = 200) -> Text:
    """Untrusted text, made safe to print: no markup, no control characters, one line, no secret
    (redacted before it is cut, or the cut would leave a piece of the secret that no longer matches)."""
    cleaned = _CONTROL.sub("", redact.current()("" if text is None else str(text))).replace("\n", " ")
    return Text(redact.excerpt(cleaned, limit))


@contextlib.contextmanager
def summary_on_stderr(active: bool = True) -> Iterator[None]:
    """While active, what this module prints on stdout goes to stderr (``-o -`` owns stdout)."""
    if not active:
        yield
        return
    stdout.file = sys.stderr
    try:
        yield
    finally:
        stdout.file = None  # type: ignore[assignment]  # back to whatever sys.stdout is then


def plain_block(text: Any) -> Text:
    """Untrusted text of several lines (a prompt, a response), whole: redacted, no markup, no
    control characters except newlines and tabs."""
    return Text(_CONTROL.sub("", redact.current()("" if text is None else str(text))))


class Finished(Protocol):
    """A finished (or interrupted) run, as its summary is printed (``bench.RunResult``)."""

    @property
    def report(self) -> RunReport: ...

    @property
    def folder(self) -> Path: ...

    @property
    def interrupted(self) -> bool: ...

    @property
    def selected(self) -> str | None:
        """What was selected, as ``selected 3 of 40 tasks (-k 'math')``; None: every task ran."""


class ConsoleObserver(RunObserver):
    """A run's progress on stderr, plus the first few tasks that did not pass.

    On a terminal a bar (from the first task on, until the observer's context ends); elsewhere
    (CI logs) a plain line at each 10% step and at most every ``every`` seconds
    (``bench.report.progress``). ``enabled=False`` (``--quiet``) prints neither, nor the start-up
    notes; ``verbose`` adds a line per finished task.
    """

    watches_tasks: ClassVar[bool] = True

    def __init__(
        self,
        enabled: bool = True,
        *,
        verbose: bool = False,
        clock: Callable[[], float] | None = None,
        every: float = LINE_EVERY_S,
    ) -> None:
        self.enabled = enabled
        self.live = enabled and stderr.is_terminal
        self.verbose = verbose
        self.clock, self.every = clock, every
        self.not_passed: list[TaskResult] = []
        #: The bar on a terminal; None elsewhere (rich's progress module is not even imported).
        self.progress = live_bar(stderr) if self.live else None
        self.bar: Any = None
        self.tracker: Tracker | None = None
        self.totals: Spending | None = None
        #: Tasks whose agent left its workspace (``../x`` writes, symlinks leading out).
        self.escapes: list[tuple[str, list[dict[str, str]]]] = []
        self.kept: list[str] = []

    def __enter__(self) -> ConsoleObserver:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def note(self, message: str) -> None:
        """A start-up line saying what the run is doing before its first task ends."""
        if self.enabled:
            stderr.print(plain(message, 400), soft_wrap=True)

    def started(
        self, run_id: str, total: int, kept: int, resumed: Resumed | None, totals: Spending | None = None
    ) -> None:
        if resumed is not None:  # printed under --quiet too: it says which tasks the run leaves out
            note = f"resuming run {run_id}: {resumed.kept} kept, {total - resumed.kept} to run"
            if resumed.changed:
                note += f" ({resumed.changed} changed since the first attempt)"
            if resumed.removed:
                note += f"; {resumed.removed} no longer in the suite are left out"
            stderr.print(Text(note))
        self.totals = totals
        self.tracker = Tracker(total, kept, self.clock, self.every)
        # Started here, not before: loading the suite may show a live counter of its own.
        if self.progress is not None:
            self.progress.start()
            self.bar = self.progress.add_task("running", total=total, completed=kept, counts="")

    def task_done(self, result: TaskResult) -> None:
        if result.status != PASSED and len(self.not_passed) < MAX_LISTED:
            self.not_passed.append(result)
        workspace = result.workspace or {}
        if workspace.get("escapes"):
            self.escapes.append((result.id, workspace["escapes"]))
        if workspace.get("path"):
            self.kept.append(workspace["path"])
        if self.verbose:
            stderr.print(task_line(result), soft_wrap=True)
        self._advance(result.status)

    def task_counted(self, status: str) -> bool:
        """Count a task by its status when that is all this display needs of it: not under
        ``--verbose``, and not for one of the first not-passed tasks the summary lists."""
        if self.verbose or (status != PASSED and len(self.not_passed) < MAX_LISTED):
            return False
        self._advance(status)
        return True

    def _advance(self, status: str) -> None:
        tracker = self.tracker
        if tracker is None:
            return
        tracker.finished(status)
        if self.progress is not None and self.bar is not None:
            self.progress.update(self.bar, advance=1, counts=tracker.snapshot(self.totals).bar_text())
        elif self.enabled and not self.live and tracker.line_due():
            stderr.print(Text(tracker.snapshot(self.totals).line()), soft_wrap=True)


def task_line(result: TaskResult) -> Text:
    """``--verbose``: one finished task as ``task ID: STATUS, score S, D s`` (the id is untrusted)."""
    name = result.id if not result.repeat else f"{result.id} (run {result.repeat + 1})"
    score = "no score" if result.score is None else f"score {result.score:.3g}"
    return plain(f"task {name}: {result.status}, {score}, {result.duration_ms / 1000:.2f} s", 400)


def _why(result: TaskResult) -> Text:
    asked = (result.conversation or {}).get("waiting")
    if result.status == "waiting" and asked:
        return plain(
            f"waits for a person at turn {asked['turn']}" + (f": {asked['prompt']}" * bool(asked["prompt"]))
        )
    if result.status == "error" and result.error and not result.evaluators:
        return plain(result.error)
    for outcome in result.evaluators:
        if outcome.error:
            return plain(f"{outcome.name}: {outcome.error}")
        if not outcome.passed and NOT_APPLICABLE not in outcome.details:
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


def print_summary(outcome: Finished, observer: ConsoleObserver, command: list[str]) -> None:
    """A table of the tasks (all of them in a small run, else those that did not pass), then
    the totals and where the run is stored; an unfinished run says how to finish it: ``command``
    (the run's own command line, ``bench run SUITE ...``) with ``--resume RUN_ID``."""
    s = outcome.report.summary
    if s.total <= MAX_LISTED:
        rows = [TaskResult.model_validate(task) for task in outcome.report.tasks()]
        title = "Results"
    else:
        rows, title = observer.not_passed, "Tasks that did not pass"
    if rows:
        stdout.print(_results_table(rows, title))
    shown = sum(r.status != PASSED for r in rows)
    hidden = s.failed + s.errors + s.interrupted + s.waiting - shown
    if outcome.selected:
        stdout.print(Text(outcome.selected))
    stdout.print(_totals(outcome))
    judged = outcome.report.extra.get("pass_at_k")
    if judged:
        stdout.print(_pass_at_k_verdict(judged))
    if hidden > 0 and shown:
        stdout.print(Text(f"({hidden} more not shown; see the results file)"))
    stdout.print(Text(f"run {outcome.report.run_id}: {results_path(outcome.folder)}"))
    _print_workspaces(observer)
    _print_figures(outcome.report.extra)
    resume = shlex.join([*command, "--resume", outcome.report.run_id])
    if outcome.interrupted:
        stdout.print(Text(f"interrupted; finish it with: {resume}"))
    elif outcome.report.stopped:
        stdout.print(Text(f"stopped: {outcome.report.stopped}; finish it with: {resume}"))
    elif s.waiting:
        answer = f"bench answer {outcome.report.run_id} TASK"
        stdout.print(Text(f"waiting for a person: answer with {answer} (or in bench view), then: {resume}"))


def _results_table(rows: list[TaskResult], title: str) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("task", overflow="fold")
    table.add_column("status")
    table.add_column("why", overflow="fold")
    for result in rows:
        style = _STYLES.get(result.status, "yellow")
        name = result.id if not result.repeat else f"{result.id} (run {result.repeat + 1})"
        table.add_row(plain(name, 60), Text(result.status, style=style), _why(result))
    return table


def _totals(outcome: Finished) -> Text:
    """``N tasks: P passed, F failed, E errors ... in S s``."""
    s = outcome.report.summary
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
    if s.waiting:
        line.append(f", {s.waiting} waiting for a person", style="yellow")
    if s.not_run:
        line.append(f", {s.not_run} not run", style="yellow")
    line.append(f" in {outcome.report.duration_s:.2f} s")
    return line


def _pass_at_k_verdict(judged: dict[str, Any]) -> Text:
    failing = [f"{task} {row['pass_at_k']:.3g}" for task, row in judged["tasks"].items() if not row["passed"]]
    verdict = Text(f"judged over their repeats by pass@k: {judged['passed']} tasks passed, ")
    verdict.append(f"{judged['failed']} failed", style="red" if judged["failed"] else "")
    if failing:
        verdict.append(" (" + ", ".join(failing[:5]) + (", ..." if len(failing) > 5 else "") + ")")
    return verdict


def batches_line(batches: Mapping[str, Any]) -> str:
    """What a run sent through batch APIs and what it cost, beside the live price."""
    count, cost = len(batches.get("batches") or []), batches.get("cost_usd", 0.0)
    line = f"batched: {batches.get('requests', 0)} requests in {count} batches; cost ${cost:.4f}"
    live = batches.get("live_cost_usd")
    return line + (f" (live price ${live:.4f})" if live else "")


def _print_figures(extra: dict[str, Any]) -> None:
    """The run's model calls, statistics, per-target table and aggregates, those it has."""
    llm = extra.get("llm")
    if llm:
        cost = "unknown" if llm["cost_usd"] is None else f"${llm['cost_usd']:.4f}"
        stdout.print(
            Text(
                f"model calls: {llm['calls']} made, {llm['cached']} from cache; "
                f"{llm['total_tokens']:,} tokens; cost {cost}"
            )
        )
    if extra.get("batches"):
        stdout.print(Text(batches_line(extra["batches"])))
    statistics = extra.get("statistics")
    if statistics:
        for text in statistics_lines(statistics):
            stdout.print(Text(text))
    per_target = extra.get("targets")
    if per_target:
        stdout.print(targets_table(per_target))
    for label, figures in (extra.get("aggregates") or {}).items():
        listed = ", ".join(
            f"{key.replace('_', ' ')} {value:.4g}"
            for key, value in figures.items()
            if isinstance(value, (int, float))
        )
        stdout.print(plain(f"{label} ({figures['type']}): {listed}", 300))


def _interval(block: dict[str, Any], percent: bool) -> str:
    scale, unit = (100, "%") if percent else (1, "")
    value, low, high = (block[k] * scale for k in ("value", "low", "high"))
    digits = 1 if percent else 3
    return f"{value:.{digits}f}{unit} [{low:.{digits}f}{unit}, {high:.{digits}f}{unit}] ({block['method']})"


def print_threshold(summary: Summary, percent: Decimal) -> bool:
    """Print the ``--pass-rate-threshold`` verdict; True when the pass rate is at least ``percent``.

    The rate is shown rounded down to the threshold's decimals (at least one), so the sign printed
    between them always agrees with the exact comparison."""
    rate = Fraction(summary.passed * 100, summary.total)
    exponent = percent.normalize().as_tuple().exponent
    decimals = max(1, -exponent if isinstance(exponent, int) else 1)
    shown = Decimal(math.floor(rate * 10**decimals)).scaleb(-decimals)
    meets = rate >= Fraction(percent)
    sign, verdict = ("≥", "passing") if meets else ("<", "failing")
    stdout.print(
        Text(f"pass rate {shown:.{decimals}f}% {sign} threshold {percent.normalize():f}%: {verdict}")
    )
    return meets


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
        variance = statistics.get("variance") or {}
        if "system" in variance:
            lines.append(
                f"score variance: system {variance['system']:.4f}, judge {variance['judge']:.4f} "
                f"({variance['system_share']:.0%} system): {variance['hint']}"
            )
        users = variance.get("simulated_user")
        if users and users.get("variance") is not None:
            lines.append(
                f"simulated user: {users['variance']:.4f}, system and judge {users['system_and_judge']:.4f} "
                f"({users['user_share']:.0%} the user): {users['hint']}"
            )
        elif users:
            lines.append(f"simulated user: {users['hint']}")
    return lines


def interval_text(block: dict[str, Any] | None, percent: bool) -> str:
    """``66.7% [20.8, 93.9]`` (a rate) or ``0.667 [0.000, 1.000]``; ``-`` for none."""
    if not block:
        return "-"
    scale, unit, digits = (100, "%", 1) if percent else (1, "", 3)
    value, low, high = (block[k] * scale for k in ("value", "low", "high"))
    return f"{value:.{digits}f}{unit} [{low:.{digits}f}, {high:.{digits}f}]"


def targets_table(rows: list[dict[str, Any]]) -> Table:
    """The run's targets side by side, a column each: counts, pass rate and mean score with their
    intervals, cost, and time per task (mean and 95th percentile)."""
    table = Table(title="Targets", title_justify="left")
    table.add_column("")
    for row in rows:
        table.add_column(plain(row["label"], 60), justify="right", overflow="fold")

    def line(name: str, cell: Any) -> None:
        table.add_row(name, *(cell(row) for row in rows))

    def duration(key: str) -> Any:
        return lambda r: "-" if not r.get("duration_ms") else f"{r['duration_ms'][key] / 1000:.2f} s"

    line("tasks", lambda r: str(r["tasks"]))
    if any(r["runs"] != r["tasks"] for r in rows):  # repeats: counts below are of runs
        line("runs", lambda r: str(r["runs"]))
    counted = ("passed", "failed", "errors", "interrupted")
    for key in counted if any(r["interrupted"] for r in rows) else counted[:3]:
        line(key, lambda r, key=key: str(r[key]))
    line("pass rate", lambda r: interval_text(r.get("pass_rate"), True))
    line("mean score", lambda r: interval_text(r.get("mean_score"), False))
    line("cost", lambda r: "-" if r.get("cost_usd") is None else f"${r['cost_usd']:.4f}")
    line("time/task", duration("mean"))
    line("time p95", duration("p95"))
    return table


def _p_text(test: dict[str, Any]) -> str:
    """``p = 0.03125``, and the Holm-adjusted p-value the verdict used when it differs."""
    text = f"p = {test['p_value']:.4g}"
    if test["p_adjusted"] != test["p_value"]:
        text += f" (Holm-adjusted {test['p_adjusted']:.4g})"
    return text


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
                f"[{low:+.1%}, {high:+.1%}], {rate['test']}, {_p_text(rate)}"
            )
        )
    if result.score is not None:
        s = result.score
        stdout.print(
            Text(
                f"mean score {s['a']:.3f} -> {s['b']:.3f}: {s['difference']:+.3f} "
                f"[{s['interval'][0]:+.3f}, {s['interval'][1]:+.3f}], {s['test']}, {_p_text(s)}"
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
