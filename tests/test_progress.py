"""What a run prints while it runs: start-up notes, plain progress lines where stderr is not a
terminal (CLI tests run without one), ``--quiet`` and ``--verbose``."""

from __future__ import annotations

import json
import re

import pytest

from bench.llm.accounting import Totals
from bench.report.progress import Tracker, cost_so_far
from bench.testing.server import Reply


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _recorded_suite(bench_suite_file, statuses: str, ids: list[str] | None = None):
    """One recorded task per letter: p passes, f fails, e is an error (no response)."""
    rows = []
    for i, kind in enumerate(statuses):
        task_id = ids[i] if ids else f"t{i}"
        if kind == "e":
            rows.append(f"  - {{id: {json.dumps(task_id)}, evaluate: {{expected: x}}}}\n")
        else:
            response = "x" if kind == "p" else "y"
            rows.append(
                f"  - {{id: {json.dumps(task_id)}, response: {response}, evaluate: {{expected: x}}}}\n"
            )
    return bench_suite_file("target: {type: recorded}\ntasks:\n" + "".join(rows))


def _seconds(text: str) -> str:
    """A task line with its duration (which varies) as ``S``."""
    return re.sub(r"\b\d+\.\d\d s$", "S s", text, flags=re.M)


@pytest.fixture
def frozen_clock(monkeypatch):
    """Time stands still during the run: rates and ETAs are unknown, lines come at 10% steps."""
    monkeypatch.setattr("bench.report.progress.now", lambda: 100.0)


def test_ci_log_gets_a_plain_line_at_each_10_percent_step(bench_cli, bench_suite_file, frozen_clock):
    path = _recorded_suite(bench_suite_file, "pfpepppfpp")
    result = bench_cli("run", path, "-j", "1", "--runs-dir", "runs")
    assert result.exit_code == 3
    counts = [(0, 0), (1, 0), (1, 0), (1, 1), (1, 1), (1, 1), (1, 1), (2, 1), (2, 1), (2, 1)]
    lines = [
        f"bench: {done * 10}% {done}/10 tasks, {failed} failed, {errors} errors, ? tasks/s, ETA ?"
        for done, (failed, errors) in enumerate(counts, start=1)
    ]
    lines[-1] = "bench: 100% 10/10 tasks, 2 failed, 1 errors, ? tasks/s, ETA 0:00:00"
    assert result.stderr.splitlines() == ["loaded suite.yaml: 10 tasks", *lines]
    assert "bench: " not in result.stdout  # progress never mixes into what stdout carries


def test_ci_log_lines_are_throttled_between_steps_of_a_large_run(bench_cli, bench_suite_file, frozen_clock):
    path = _recorded_suite(bench_suite_file, "p" * 40)
    result = bench_cli("run", path, "--runs-dir", "runs")
    progress = [line for line in result.stderr.splitlines() if line.startswith("bench: ")]
    assert [line.split()[1] for line in progress] == [f"{p}%" for p in range(10, 101, 10)]
    assert progress[3] == "bench: 40% 16/40 tasks, 0 failed, 0 errors, ? tasks/s, ETA ?"


def test_quiet_prints_no_progress_and_no_start_up_line(bench_cli, bench_suite_file):
    path = _recorded_suite(bench_suite_file, "pf")
    result = bench_cli("run", path, "-q", "--runs-dir", "runs")
    assert result.stderr == ""
    assert "2 tasks: 1 passed, 1 failed, 0 errors" in result.stdout
    assert result.exit_code == 1


def test_verbose_prints_a_line_per_task_with_ids_as_plain_text_j5(bench_cli, bench_suite_file, frozen_clock):
    ids = ["[red]forged[/red]", "b\u009b31mx", "c"]
    path = _recorded_suite(bench_suite_file, "pfe", ids)
    result = bench_cli("run", path, "-v", "-j", "1", "--runs-dir", "runs")
    tasks = [_seconds(line) for line in result.stderr.splitlines() if line.startswith("task ")]
    assert tasks == [
        "task [red]forged[/red]: passed, score 1, S s",
        "task b31mx: failed, score 0, S s",
        "task c: error, no score, S s",
    ]


def test_verbose_line_names_the_repeat_and_the_duration(monkeypatch):
    from bench.report.console import task_line
    from bench.vocabulary.results import TaskResult

    result = TaskResult(id="a", status="passed", passed=True, score=0.75, repeat=1, duration_ms=1234.5)
    assert task_line(result).plain == "task a (run 2): passed, score 0.75, 1.23 s"


def test_a_model_run_says_it_imports_the_model_client_first(
    bench_cli, bench_suite_file, bench_fake_llm, monkeypatch
):
    monkeypatch.setattr("bench.llm.providers.calls._warmed_up", False)
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "litellm")  # openai/ models skip litellm otherwise
    path = bench_suite_file(
        "target: {type: litellm, model: openai/gpt-4o-mini}\n"
        "tasks:\n  - {id: a, prompt: hi, evaluate: {expected: ok}}\n"
    )
    bench_fake_llm.default = lambda body: Reply("ok")
    result = bench_cli("run", path, "--runs-dir", "runs")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [
        "loaded suite.yaml: 1 tasks",
        "importing the model client (litellm)…",
    ]


def test_repeats_are_counted_as_tasks_and_runs_on_the_loaded_line(bench_cli, bench_suite_file):
    path = _recorded_suite(bench_suite_file, "pp")
    result = bench_cli("run", path, "--repeat", "3", "--runs-dir", "runs")
    assert result.stderr.splitlines()[0] == "loaded suite.yaml: 2 tasks, 6 runs"


def test_line_shows_cost_rate_and_eta():
    clock = Clock()
    tracker = Tracker(400, 0, clock)
    for i in range(160):
        tracker.finished("failed" if i < 12 else "passed")
    clock.t = 20.0
    totals = Totals(calls=3, cost_usd=0.42)
    assert tracker.snapshot(totals).line() == (
        "bench: 40% 160/400 tasks, 12 failed, 0 errors, $0.42, 8.0 tasks/s, ETA 0:00:30"
    )
    assert tracker.snapshot(totals).bar_text() == (
        "148 passed, 12 failed, 0 errors · 8.0 tasks/s · ETA 0:00:30 · $0.42"
    )


def test_a_resumed_runs_kept_tasks_count_as_done_but_not_in_the_rate():
    clock = Clock()
    tracker = Tracker(100, 60, clock)
    for _ in range(10):
        tracker.finished("passed")
    clock.t = 5.0
    assert (
        tracker.snapshot().line() == "bench: 70% 70/100 tasks, 0 failed, 0 errors, 2.0 tasks/s, ETA 0:00:15"
    )


@pytest.mark.parametrize(
    ("totals", "shown"),
    [
        (None, None),
        (Totals(), None),
        (Totals(calls=2, unpriced_calls=2), None),
        (Totals(calls=2, cost_usd=0.0042), "$0.0042"),
        (Totals(calls=2, cost_usd=12.3), "$12.30"),
        (Totals(calls=3, unpriced_calls=1, cost_usd=0.5), "at least $0.50"),
    ],
)
def test_cost_is_shown_once_a_call_had_a_price(totals, shown):
    assert cost_so_far(totals) == shown


def test_lines_come_at_most_every_10_s_between_10_percent_steps():
    clock = Clock()
    tracker = Tracker(100, 0, clock)
    due = []
    for done in range(1, 31):
        clock.t = 4.0 * done  # a task every 4 s: 10 s pass every third task
        tracker.finished("passed")
        if tracker.line_due():
            due.append(done)
    assert due == [3, 6, 9, 10, 13, 16, 19, 20, 23, 26, 29, 30]


def test_fast_tasks_get_only_the_10_percent_lines():
    clock = Clock()
    tracker = Tracker(1000, 0, clock)
    due = []
    for done in range(1, 1001):
        clock.t = 0.009 * done
        tracker.finished("passed")
        if tracker.line_due():
            due.append(done)
    assert due == list(range(100, 1001, 100))


def test_the_interval_can_be_chosen():
    clock = Clock()
    tracker = Tracker(1000, 0, clock, every=1.0)
    clock.t = 0.5
    tracker.finished("passed")
    assert not tracker.line_due()
    clock.t = 1.0
    tracker.finished("passed")
    assert tracker.line_due()


def test_quiet_and_verbose_together_print_the_task_lines_only(bench_cli, bench_suite_file):
    path = _recorded_suite(bench_suite_file, "p")
    result = bench_cli("run", path, "-q", "-v", "--runs-dir", "runs")
    assert _seconds(result.stderr) == "task t0: passed, score 1, S s\n"
