"""The calibration check before a run walks the tasks only when some judge has a bar: a large
plan rebuilds each task it walks (about a fifth of a 100,000-task run's CPU)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.pipeline.calibration_gate import bars
from bench.suite.loader import load_suite
from bench.suite.plan import TaskList


def _not_walked(self: TaskList) -> Iterator[object]:
    raise AssertionError("the tasks were walked")


def test_a_suite_without_calibration_bars_is_not_walked_for_them(
    bench_suite_file, monkeypatch: pytest.MonkeyPatch
):
    path = bench_suite_file(
        "tasks:\n"
        "  - {id: a, prompt: q, response: '4', evaluate: {expected: '4'}}\n"
        "  - {id: b, prompt: q, response: '5', evaluate: {expected: '4'}}\n"
    )
    plan = load_suite(path)
    monkeypatch.setattr(TaskList, "__iter__", _not_walked)
    assert bars(plan) == {}


def test_a_plan_loaded_without_its_tasks_is_still_walked(bench_suite_file, monkeypatch: pytest.MonkeyPatch):
    path = bench_suite_file("tasks:\n  - {id: a, prompt: q, response: '4', evaluate: {expected: '4'}}\n")
    plan = load_suite(path, tasks="lazy")
    assert plan.calibrated  # a worker's plan has not seen its tasks' evaluators
